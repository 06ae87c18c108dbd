// SPDX-License-Identifier: MIT
/*
 * Devices coming and going.
 *
 * Removal: the uverbs character device is deleted at the very start of an
 * RDMA device's removal, before the kernel waits for every process to
 * close it (drivers without disassociate_ucontext, such as rxe and siw,
 * wait forever). Its kernel uevent (subsystem infiniband_verbs, ACTION
 * remove) is therefore the earliest signal, on every kernel, and needs no
 * udevd. The RDMA netlink monitor's UNREGISTER comes only after that wait,
 * so it cannot be what releases the device.
 *
 * Arrival: on kernels with the RDMA netlink monitor (6.12 has it) the
 * REGISTER message, which also brings NETDEV_ATTACH / NETDEV_DETACH;
 * otherwise the uverbs node's own uevent (ACTION add).
 */
#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hotplug.h"
#include "util.h"

/*
 * RDMA netlink numbers, fixed ABI (include/uapi/rdma/rdma_netlink.h): the
 * monitor's appeared in Linux 6.11, after the headers Debian 12 ships.
 */
#define NL_TYPE(op)		    RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op)
#define NLDEV_CMD_MONITOR	    28
#define NLDEV_ATTR_EVENT_TYPE	    102
#define NLDEV_SYS_ATTR_MONITOR_MODE 103
#define NL_GROUP_NOTIFY		    4 /* RDMA_NL_GROUP_NOTIFY */

/* The monitor's events (enum rdma_nl_notify_event_type), by number. */
static const enum ibve_hp_what mon_whats[] = {
	IBVE_HP_ADDED,	       /* RDMA_REGISTER_EVENT */
	IBVE_HP_REMOVED,       /* RDMA_UNREGISTER_EVENT */
	IBVE_HP_NETDEV_ATTACH, /* RDMA_NETDEV_ATTACH_EVENT */
	IBVE_HP_NETDEV_DETACH, /* RDMA_NETDEV_DETACH_EVENT */
};

/* FD, closed, having failed: -errno. */
static int close_failed(int fd)
{
	int e = errno;

	close(fd);
	return -e;
}

static int uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd, size = 1 << 20;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	/* Other subsystems' bursts (boot, udev triggers) must not drop ours. */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return close_failed(fd);
	return fd;
}

int ibve_nl_rdma_socket(int flags)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 1 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | flags,
			NETLINK_RDMA);

	if (fd < 0)
		return -errno;
	/* every wait bounded: requests run at start-up and on hot-plug */
	if (!flags)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return close_failed(fd);
	return fd;
}

void ibve_nl_attr_put(struct nlmsghdr *h, uint16_t type, const void *data,
		      size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)h + h->nlmsg_len);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	h->nlmsg_len += NLA_ALIGN(a->nla_len);
}

void ibve_nl_for_each_attr(const struct nlmsghdr *h, ibve_nl_attr_cb cb,
			   void *arg)
{
	const char *p = (const char *)NLMSG_DATA(h);
	size_t left = h->nlmsg_len - NLMSG_HDRLEN;

	while (left >= sizeof(struct nlattr)) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t alen = NLA_ALIGN(a->nla_len);

		if (a->nla_len < sizeof(*a) || a->nla_len > left)
			break;
		cb(a->nla_type & RDMA_NLA_TYPE_MASK, p + NLA_HDRLEN,
		   a->nla_len - NLA_HDRLEN, arg);
		if (alen >= left)
			break;
		p += alen;
		left -= alen;
	}
}

uint32_t ibve_nl_attr_u32(const void *data, size_t len)
{
	uint32_t v = 0;

	if (len >= sizeof(v))
		memcpy(&v, data, sizeof(v));
	else if (len == 1)
		v = *(const uint8_t *)data;
	return v;
}

bool ibve_nl_replies(int fd, bool dump, uint16_t type, ibve_nl_attr_cb cb,
		     void (*done)(void *arg), void *arg)
{
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (n <= 0)
			return false;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return true;
			if (h->nlmsg_type == NLMSG_ERROR)
				return !dump;
			if (h->nlmsg_type != type)
				continue;
			ibve_nl_for_each_attr(h, cb, arg);
			if (done)
				done(arg);
			if (!dump)
				return true;
		}
	}
}

/* Send one request (a dump with DUMP) and hand its replies to CB, DONE. */
static void rdma_request(uint16_t op, const uint32_t *dev_index, bool dump,
			 ibve_nl_attr_cb cb, void (*done)(void *arg), void *arg)
{
	struct {
		struct nlmsghdr h;
		char attrs[8];
	} req = { .h = { .nlmsg_len = NLMSG_HDRLEN,
			 .nlmsg_type = NL_TYPE(op),
			 .nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : 0),
			 .nlmsg_seq = 1 } };
	int fd = ibve_nl_rdma_socket(0);

	if (fd < 0)
		return;
	if (dev_index)
		ibve_nl_attr_put(&req.h, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index,
				 sizeof(*dev_index));
	if (send(fd, &req, req.h.nlmsg_len, 0) >= 0)
		ibve_nl_replies(fd, dump, NL_TYPE(op), cb, done, arg);
	close(fd);
}

static void sys_attr(uint16_t type, const void *data, size_t len, void *arg)
{
	(void)data;
	(void)len;
	if (type == NLDEV_SYS_ATTR_MONITOR_MODE)
		*(bool *)arg = true;
}

static bool rdma_monitor_supported(void)
{
	bool mon = false;

	rdma_request(RDMA_NLDEV_CMD_SYS_GET, NULL, false, sys_attr, NULL, &mon);
	return mon;
}

static int rdma_monitor_open(void)
{
	int fd = ibve_nl_rdma_socket(SOCK_NONBLOCK), group = NL_GROUP_NOTIFY;

	if (fd < 0)
		return fd;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group,
		       sizeof(group)))
		return close_failed(fd);
	return fd;
}

/* Each reply of a GET: remember index -> name; the last one named. */
struct dev_attrs {
	uint32_t index;
	bool has_index;
	char name[IBVE_NAME_MAX];
};

struct dev_query {
	struct ibve_hotplug *hp;
	struct dev_attrs cur, last;
};

static void dev_attr(uint16_t type, const void *data, size_t len, void *arg)
{
	struct dev_attrs *d = &((struct dev_query *)arg)->cur;

	if (type == RDMA_NLDEV_ATTR_DEV_INDEX) {
		d->index = ibve_nl_attr_u32(data, len);
		d->has_index = true;
	} else if (type == RDMA_NLDEV_ATTR_DEV_NAME && len) {
		snprintf(d->name, sizeof(d->name), "%.*s", (int)len,
			 (const char *)data);
	}
}

static void dev_done(void *arg)
{
	struct dev_query *q = arg;

	if (q->cur.has_index && q->cur.name[0]) {
		ibve_name_cache_put(&q->hp->names, q->cur.index, q->cur.name);
		q->last = q->cur;
	}
	q->cur = (struct dev_attrs){ 0 };
}

void ibve_name_cache_put(struct ibve_name_cache *c, uint32_t index,
			 const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].index == index)
			break;
	if (i == c->n) {
		if (c->n == IBVE_NAME_CACHE)
			i = index % IBVE_NAME_CACHE; /* evict something */
		else
			c->n++;
	}
	c->v[i].index = index;
	ibve_strcpy(c->v[i].name, name, sizeof(c->v[i].name));
}

const char *ibve_name_cache_get(const struct ibve_name_cache *c, uint32_t index)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].index == index)
			return c->v[i].name;
	return NULL;
}

/*
 * The name of RDMA device INDEX into NAME (zeroed): asked of the kernel
 * (with ASK), else remembered; "" if neither knows it.
 */
static void device_name(struct ibve_hotplug *hp, uint32_t index, bool ask,
			char *name, size_t size)
{
	struct dev_query q = { .hp = hp };
	const char *known;

	if (ask)
		rdma_request(RDMA_NLDEV_CMD_GET, &index, false, dev_attr,
			     dev_done, &q);
	known = q.last.name[0] ? q.last.name
			       : ibve_name_cache_get(&hp->names, index);
	if (known)
		ibve_strcpy(name, known, size);
}

void ibve_hotplug_refresh(struct ibve_hotplug *hp)
{
	struct dev_query q = { .hp = hp };

	/* Learn every device's index while it exists, for UNREGISTER. */
	if (hp->method == IBVE_HOTPLUG_NETLINK)
		rdma_request(RDMA_NLDEV_CMD_GET, NULL, true, dev_attr, dev_done,
			     &q);
}

int ibve_hotplug_open(struct ibve_hotplug **out, enum ibve_hotplug_method want)
{
	struct ibve_hotplug *hp = calloc(1, sizeof(*hp));
	int r;

	if (!hp)
		return -ENOMEM;
	hp->nl_fd = -1;
	hp->uevent_fd = uevent_open();
	if (hp->uevent_fd < 0) {
		r = hp->uevent_fd;
		free(hp);
		return r;
	}
	hp->method = IBVE_HOTPLUG_UEVENT;
	if (want == IBVE_HOTPLUG_NETLINK && rdma_monitor_supported()) {
		hp->nl_fd = rdma_monitor_open();
		if (hp->nl_fd >= 0)
			hp->method = IBVE_HOTPLUG_NETLINK;
	}
	*out = hp;
	return 0;
}

void ibve_hotplug_close(struct ibve_hotplug *hp)
{
	if (!hp)
		return;
	if (hp->uevent_fd >= 0)
		close(hp->uevent_fd);
	if (hp->nl_fd >= 0)
		close(hp->nl_fd);
	free(hp);
}

bool ibve_hp_uevent_parse(const char *buf, size_t len, struct ibve_hp_msg *m)
{
	const char *action = NULL, *devpath = NULL, *subsystem = NULL;
	const char *p = buf, *end = buf + len;

	/* Skip the "ACTION@DEVPATH" summary, then read KEY=VALUE pairs. */
	p += strnlen(p, len) + 1;
	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));

		if (strncmp(p, "ACTION=", 7) == 0)
			action = p + 7;
		else if (strncmp(p, "DEVPATH=", 8) == 0)
			devpath = p + 8;
		else if (strncmp(p, "SUBSYSTEM=", 10) == 0)
			subsystem = p + 10;
		p += n + 1;
	}
	if (!action || !devpath || !subsystem ||
	    strcmp(subsystem, "infiniband_verbs") != 0)
		return false;
	if (strcmp(action, "add") == 0)
		m->what = IBVE_HP_ADDED;
	else if (strcmp(action, "remove") == 0)
		m->what = IBVE_HP_REMOVED;
	else
		return false;
	p = strrchr(devpath, '/');
	ibve_strcpy(m->chardev, p ? p + 1 : devpath, sizeof(m->chardev));
	/*
	 * The class itself (infiniband_verbs/abi_version) is not a device;
	 * the kernel names them uverbsN, and nothing else is read.
	 */
	return strncmp(m->chardev, "uverbs", 6) == 0 && m->chardev[6] &&
	       strspn(m->chardev + 6, "0123456789") == strlen(m->chardev + 6);
}

static void mon_attr(uint16_t type, const void *data, size_t len, void *arg)
{
	struct ibve_hp_mon *m = arg;

	switch (type) {
	case NLDEV_ATTR_EVENT_TYPE:
		m->event = (int)ibve_nl_attr_u32(data, len);
		break;
	case RDMA_NLDEV_ATTR_DEV_INDEX:
		m->dev_index = ibve_nl_attr_u32(data, len);
		m->has_dev = true;
		break;
	case RDMA_NLDEV_ATTR_PORT_INDEX:
		m->port = ibve_nl_attr_u32(data, len);
		break;
	case RDMA_NLDEV_ATTR_NDEV_INDEX:
		m->ndev_index = ibve_nl_attr_u32(data, len);
		break;
	}
}

bool ibve_hp_monitor_parse(const struct nlmsghdr *h, struct ibve_hp_mon *m)
{
	memset(m, 0, sizeof(*m));
	m->event = -1;
	if (h->nlmsg_type != NL_TYPE(NLDEV_CMD_MONITOR) ||
	    h->nlmsg_len < NLMSG_HDRLEN)
		return false;
	ibve_nl_for_each_attr(h, mon_attr, m);
	/* a port no record carries (the records' ports end at 65535); a
	 * newer kernel's event */
	if (!m->has_dev || m->port > UINT16_MAX || m->event < 0 ||
	    m->event >= (int)ARRAY_SIZE(mon_whats))
		return false;
	m->what = mon_whats[m->event];
	return true;
}

size_t ibve_hp_monitor_split(const void *buf, size_t size,
			     struct ibve_hp_mon *out, size_t max)
{
	const struct nlmsghdr *h = buf;
	size_t n = 0;

	/*
	 * Not NLMSG_NEXT(): past a last message of a length not aligned,
	 * its count goes below 0, and NLMSG_OK() of it, made unsigned,
	 * read on past the datagram.
	 */
	while (n < max && NLMSG_OK(h, size)) {
		size_t step = NLMSG_ALIGN(h->nlmsg_len);

		if (ibve_hp_monitor_parse(h, &out[n]))
			n++;
		if (step >= size)
			break;
		size -= step;
		h = (const struct nlmsghdr *)((const char *)h + step);
	}
	return n;
}

/* The monitor's messages of a datagram (LEN bytes), at most MAX, into MSGS. */
static size_t monitor_msgs(struct ibve_hotplug *hp, const char *buf, size_t len,
			   struct ibve_hp_msg *msgs, size_t max)
{
	struct ibve_hp_mon mon[16];
	size_t k = ibve_hp_monitor_split(
		buf, len, mon, max < ARRAY_SIZE(mon) ? max : ARRAY_SIZE(mon));

	for (size_t j = 0; j < k; j++) {
		struct ibve_hp_msg *m = &msgs[j];

		m->what = mon[j].what;
		/* Gone already: only a remembered name. */
		device_name(hp, mon[j].dev_index, m->what != IBVE_HP_REMOVED,
			    m->device, sizeof(m->device));
		if (m->what == IBVE_HP_NETDEV_ATTACH ||
		    m->what == IBVE_HP_NETDEV_DETACH) {
			m->port = mon[j].port;
			m->ifindex = mon[j].ndev_index;
		}
	}
	return k;
}

size_t ibve_hotplug_read(struct ibve_hotplug *hp, int fd,
			 struct ibve_hp_msg *msgs, size_t max)
{
	char buf[8192 + 1];
	size_t n = 0;

	while (n < max) {
		struct sockaddr_nl sa;
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr mh = { .msg_name = &sa,
				     .msg_namelen = sizeof(sa),
				     .msg_iov = &iov,
				     .msg_iovlen = 1 };
		ssize_t len = recvmsg(fd, &mh, 0);
		struct ibve_hp_msg *m = &msgs[n];

		memset(m, 0, (max - n) * sizeof(*m));
		if (len < 0 && errno != ENOBUFS)
			break; /* EAGAIN: drained */
		if (len < 0) {
			/* Lost some: compare with what exists. */
			m->what = IBVE_HP_RESCAN;
			n++;
		} else if (fd == hp->nl_fd) {
			n += monitor_msgs(hp, buf, (size_t)len, m, max - n);
		} else if (sa.nl_pid == 0) {
			/* The kernel's own uevent (not udevd's, not spoofed). */
			buf[len] = '\0';
			/* With the monitor, arrivals come from REGISTER only. */
			if (ibve_hp_uevent_parse(buf, (size_t)len, m) &&
			    (m->what != IBVE_HP_ADDED ||
			     hp->method != IBVE_HOTPLUG_NETLINK))
				n++;
		}
	}
	return n;
}

void ibve_hp_event_device(struct ibve_event *ev, const char *device,
			  uint64_t guid, const char *chardev, int code)
{
	ibve_strcpy(ev->device, device, sizeof(ev->device));
	ev->node_guid = guid;
	ibve_event_set_code(ev, IBVE_SOURCE_HOTPLUG, code);
	if (chardev && chardev[0]) {
		ibve_strcpy(ev->chardev, chardev, sizeof(ev->chardev));
		ev->fields |= IBVE_FIELD_CHARDEV;
	}
}

void ibve_hp_event_netdev(struct ibve_event *ev, const char *device,
			  uint64_t guid, uint32_t port, uint32_t ifindex,
			  const char *ifname, bool attach)
{
	ibve_hp_event_device(ev, device, guid, NULL,
			     attach ? IBVE_HOTPLUG_NETDEV_ATTACH
				    : IBVE_HOTPLUG_NETDEV_DETACH);
	ev->port = port;
	if (ifindex) {
		ev->netdev_index = ifindex;
		ibve_strcpy(ev->netdev, ifname, sizeof(ev->netdev));
		ev->fields |= IBVE_FIELD_NETDEV;
	}
}
