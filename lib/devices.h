/* SPDX-License-Identifier: MIT */
/*
 * The device set: the "devices" source's table of open devices, which the
 * pipeline offers other sources (host devset): the hot-plug source tells
 * it what came and went, the mlx5 source opens mlx5 devices its own way and
 * watches a channel of each, the kernel source waits for devices.
 */
#ifndef IBVE_DEVICES_H
#define IBVE_DEVICES_H

#include "host.h"

struct ibv_context;
struct ibv_device;

#define IBVE_HOOKS_MAX 2

/* What the source keeps of each port: for PORT_ACTIVE and speed changes,
 * and the netdev its port events name. */
struct ibve_port_track {
	char rate[28];		 /* as last read; "" unknown */
	struct timespec down_at; /* its PORT_ERR; 0: not known to be down */
	int ndev_fd;		 /* its GID 0's netdev attribute, open; -1 */
};

/* An open device (or one closed after DEVICE_FATAL, ctx NULL). */
struct ibve_slot {
	bool used;
	bool borrowed; /* the caller's context: never closed here */
	size_t index;
	char name[IBVE_NAME_MAX];
	char chardev[IBVE_IFNAME_MAX];
	uint64_t guid;
	struct ibv_context *ctx;
	void *hook_data[IBVE_HOOKS_MAX]; /* each hook's own, by its id */
	struct ibve_port_track *ports;	 /* [0] is port 1 */
	uint32_t nports;
	bool ports_pending; /* not read yet: after start-up */
};

/* What another source does when devices are opened and closed. */
struct ibve_dev_hooks {
	void *arg;
	/* Open DEV its own way; NULL: it is opened the usual way. */
	struct ibv_context *(*open)(void *arg, struct ibv_device *dev);
	/* SLOT was opened; detach: it is about to be closed. */
	void (*attach)(void *arg, int id, struct ibve_slot *slot);
	void (*detach)(void *arg, int id, struct ibve_slot *slot);
	/* A word beside the device's name in the "watching" line, or NULL. */
	const char *(*tag)(void *arg, int id, const struct ibve_slot *slot);
};

struct ibve_devset {
	struct ibve_host h;
	bool followed; /* the hot-plug source tells it what comes and goes */
	bool all;
	struct ibve_names watch;
	struct ibv_context *borrowed; /* the caller's context, or NULL */
	char borrowed_name[IBVE_NAME_MAX];
	struct ibve_slot **slots; /* stable: hooks keep pointers */
	size_t nslots;
	struct ibve_dev_hooks hooks[IBVE_HOOKS_MAX];
	size_t nhooks;
	bool no_rdma; /* every device: the kernel offers no RDMA at all */
	bool wait;    /* IBVE_SRC_WAIT: none is not a failure */
	int lazy_fd;  /* a timerfd: the ports' rates, read after start-up */
	bool lazy_watched;
	int ifsock; /* for SIOCGIFINDEX: a netdev's index; -1 */
};

/* Add hooks before the devices source starts; the hook's id, or -errno. */
int ibve_devices_hook(struct ibve_devset *devices,
		      const struct ibve_dev_hooks *h);

/* An arrival announced but not yet listed by libibverbs. */
struct ibve_await {
	char chardev[IBVE_IFNAME_MAX];
	char device[IBVE_NAME_MAX];
};

/*
 * Bring the open devices in line with what exists: open watched devices
 * that are new (or came back), close those that are gone; ANNOUNCE: say
 * so with DEVICE_ADDED / DEVICE_REMOVED. Arrivals of AW (*NAW) now listed
 * are taken out of it.
 */
int ibve_devices_rescan(struct ibve_devset *devices, bool announce,
			struct ibve_await *aw, size_t *naw);
/* A uverbs node (CHARDEV) or a device (DEVICE) went away: close it. */
void ibve_devices_removed(struct ibve_devset *devices, const char *chardev,
			  const char *device);
/* Close SLOT at once and announce DEVICE_REMOVED. */
void ibve_devices_close(struct ibve_devset *devices, struct ibve_slot *slot);
/* Whether DEVICE is one of those watched. */
bool ibve_devices_watched(const struct ibve_devset *devices,
			  const char *device);
/* The names of the open devices, up to MAX; how many there are. */
size_t ibve_devices_names(const struct ibve_devset *devices, const char **out,
			  size_t max);
/* The open slot of DEVICE, or NULL. */
struct ibve_slot *ibve_devices_find(struct ibve_devset *devices,
				    const char *device);

struct ibv_async_event;

/*
 * ibve_event_from_verbs() into a record the pipeline made: already zeroed,
 * its time and device name set (a storm is not zeroed and timed twice).
 */
void ibve_event_fill_verbs(struct ibve_event *ev,
			   const struct ibv_async_event *ae,
			   uint64_t node_guid);

/* rdma-core 62's IBV_EVENT_DEVICE_SPEED_CHANGE, unknown to Debian 12's. */
#define IBVE_VERBS_DEVICE_SPEED_CHANGE 20

/*
 * The rates of N ports before (OLD) and after (NOW), "" unknown: the ports
 * whose rate changed go into EV (IBVE_FIELD_RATES, when any did).
 */
void ibve_rates_diff(struct ibve_event *ev, const char (*old)[28],
		     const char (*now)[28], uint32_t n);
/* PORT_ACTIVE at NOW after a PORT_ERR at DOWN_AT: the down time on EV. */
void ibve_event_set_down(struct ibve_event *ev, const struct timespec *down_at);

#endif
