/* SPDX-License-Identifier: MIT */
#ifndef IBVE_HOTPLUG_H
#define IBVE_HOTPLUG_H

#include "ibvevent.h"

enum ibve_hotplug_method {
	IBVE_HOTPLUG_UEVENT,  /* kernel uevents of the uverbs nodes */
	IBVE_HOTPLUG_NETLINK, /* RDMA netlink monitor (kernel >= 6.11)
				 plus uevents for the earliest removal */
};

enum ibve_hp_what {
	IBVE_HP_ADDED,	 /* a device appeared: look for new ones */
	IBVE_HP_REMOVED, /* chardev (uevent) or device (netlink) went away */
	IBVE_HP_RESCAN,	 /* messages were lost: compare with what exists */
	IBVE_HP_NETDEV_ATTACH,
	IBVE_HP_NETDEV_DETACH,
};

struct ibve_hp_msg {
	enum ibve_hp_what what;
	char chardev[IBVE_IFNAME_MAX]; /* uverbsN, from uevents */
	char device[IBVE_NAME_MAX];    /* from the netlink monitor */
	uint32_t port;
	uint32_t ifindex;
};

/* One message of the kernel's RDMA netlink monitor, decoded. */
struct ibve_hp_mon {
	enum ibve_hp_what what;
	int event; /* RDMA_NETDEV_*_EVENT as sent; -1 when missing */
	uint32_t dev_index, port, ndev_index;
	bool has_dev;
};

struct nlmsghdr;

/*
 * One kernel uevent, "ACTION@DEVPATH\0KEY=VALUE\0..." (LEN bytes, and
 * BUF[LEN] a '\0'): true for a uverbs node's add or remove, its name in
 * M->chardev (M zeroed by the caller); false for every other message.
 */
bool ibve_hp_uevent_parse(const char *buf, size_t len, struct ibve_hp_msg *m);

/*
 * RDMA device index -> name, for UNREGISTER, which comes when the device
 * is gone and cannot be asked its name: IBVE_NAME_CACHE entries, a new
 * index past that evicting the entry at its index modulo the size.
 */
#define IBVE_NAME_CACHE 64
struct ibve_name_cache {
	struct {
		uint32_t index;
		char name[IBVE_NAME_MAX];
	} v[IBVE_NAME_CACHE];
	size_t n;
};
void ibve_name_cache_put(struct ibve_name_cache *c, uint32_t index,
			 const char *name);
/* INDEX's name, or NULL. */
const char *ibve_name_cache_get(const struct ibve_name_cache *c,
				uint32_t index);

/*
 * A bound NETLINK_RDMA socket (FLAGS: SOCK_NONBLOCK or 0, whose waits end
 * after a second), or -errno.
 */
int ibve_nl_rdma_socket(int flags);
/* Each attribute of netlink message H, nested ones not entered. */
typedef void (*ibve_nl_attr_cb)(uint16_t type, const void *data, size_t len,
				void *arg);
void ibve_nl_for_each_attr(const struct nlmsghdr *h, ibve_nl_attr_cb cb,
			   void *arg);
/* An attribute's value as a u32 (from a u8 or a u32). */
uint32_t ibve_nl_attr_u32(const void *data, size_t len);
/* Attribute TYPE, LEN bytes of DATA, added to H (which has room for it). */
void ibve_nl_attr_put(struct nlmsghdr *h, uint16_t type, const void *data,
		      size_t len);
/*
 * Read the replies to a request on FD, a blocking socket of the above:
 * each message of TYPE, its attributes to CB, then DONE (if not NULL);
 * until the first such message or an error (with DUMP: the dump's end).
 * False when the socket fails or is silent, or a dump ends in an error.
 */
bool ibve_nl_replies(int fd, bool dump, uint16_t type, ibve_nl_attr_cb cb,
		     void (*done)(void *arg), void *arg);

/*
 * H (a whole netlink message, nlmsg_len bytes) as a monitor message:
 * false for other messages, events a newer kernel adds, and messages
 * that name no device or a port above 65535 (no record's).
 */
bool ibve_hp_monitor_parse(const struct nlmsghdr *h, struct ibve_hp_mon *m);
/*
 * The monitor messages among the SIZE bytes BUF received (one datagram),
 * at most MAX of them into OUT: how many.
 */
size_t ibve_hp_monitor_split(const void *buf, size_t size,
			     struct ibve_hp_mon *out, size_t max);

struct ibve_hotplug {
	enum ibve_hotplug_method method;
	int uevent_fd;
	int nl_fd;		      /* the monitor's, or -1 */
	struct ibve_name_cache names; /* RDMA device index -> name */
};

/* WANT NETLINK falls back to UEVENT where the kernel lacks the monitor. */
int ibve_hotplug_open(struct ibve_hotplug **hp, enum ibve_hotplug_method want);
void ibve_hotplug_close(struct ibve_hotplug *hp);
/* Drain FD (one of the two above) into at most MAX messages. */
size_t ibve_hotplug_read(struct ibve_hotplug *hp, int fd,
			 struct ibve_hp_msg *msgs, size_t max);
/* Learn the RDMA device indices of all devices, for UNREGISTER. */
void ibve_hotplug_refresh(struct ibve_hotplug *hp);

/*
 * The records of the hot-plug source, on a zeroed EV with its time set:
 * a device's arrival or removal (CODE: enum ibve_hotplug_code, CHARDEV its
 * uverbs node or ""), and a netdev attached to or detached from a port
 * (IFNAME the netdev's name, "" if unknown; IFINDEX 0: none named).
 */
void ibve_hp_event_device(struct ibve_event *ev, const char *device,
			  uint64_t guid, const char *chardev, int code);
void ibve_hp_event_netdev(struct ibve_event *ev, const char *device,
			  uint64_t guid, uint32_t port, uint32_t ifindex,
			  const char *ifname, bool attach);

#endif
