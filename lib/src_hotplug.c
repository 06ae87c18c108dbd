// SPDX-License-Identifier: MIT
/*
 * The "hotplug" source: devices coming and going (hotplug.c reads the
 * kernel's messages), told to the "devices" source, which opens and
 * closes them and announces it. Netdevs attached to and detached from
 * ports are records of their own.
 *
 * A device's arrival can be announced before libibverbs can list it: the
 * uverbs node's uevent is sent from inside the uverbs client's add, and
 * rdma-core finds the node through netlink, which names it only once that
 * add has returned. An arrival not yet listed is looked for again after
 * 50 ms, then after twice as long each time, for about three seconds.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "devices.h"
#include "hotplug.h"
#include "source.h"

#define AWAIT_MAX   8 /* arrivals looked for at once */
#define AWAIT_TRIES 7 /* 50 ms, doubling: 3.15 s in all */

enum { C_UEVENT, C_NETLINK, C_RETRY };

struct hotplug {
	struct ibve_host h;
	bool uevent_only;
	struct ibve_hotplug *hp;
	struct ibve_devset *devices;
	struct ibve_await await[AWAIT_MAX];
	size_t nawait;
	unsigned int tries;
	int retry_fd;
};

static int create(void **out, const struct ibve_source_opts *o,
		  const struct ibve_host *h)
{
	struct hotplug *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return ibve_error(ENOMEM, "out of memory");
	s->h = *h;
	s->retry_fd = -1;
	/* IBVEVENT_HOTPLUG=uevent: as on a kernel without the monitor */
	s->uevent_only = (o->flags & IBVE_SRC_UEVENT_ONLY) ||
			 ibve_env_is("IBVEVENT_HOTPLUG", "uevent");
	return 0;
}

/* Open before the devices: nothing that happens in between is missed. */
static int start(void *arg)
{
	struct hotplug *s = arg;
	int r = ibve_hotplug_open(&s->hp, s->uevent_only
						  ? IBVE_HOTPLUG_UEVENT
						  : IBVE_HOTPLUG_NETLINK);

	if (!r)
		r = s->h.watch(s->h.ctx, s->hp->uevent_fd, s, C_UEVENT);
	if (!r && s->hp->nl_fd >= 0)
		r = s->h.watch(s->h.ctx, s->hp->nl_fd, s, C_NETLINK);
	if (r)
		return ibve_error(r, "cannot watch for devices: %s",
				  strerror(-r));
	/* made now, so the count of open files never changes later */
	s->retry_fd =
		timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	r = s->retry_fd < 0 ? -errno
			    : s->h.watch(s->h.ctx, s->retry_fd, s, C_RETRY);
	if (r)
		return ibve_error(r, "timerfd: %s", strerror(-r));
	s->devices = s->h.devset(s->h.ctx);
	if (s->devices)
		s->devices->followed = true;
	return 0;
}

/* Learn every device's index while it exists, for UNREGISTER. */
static int check(void *arg)
{
	struct hotplug *s = arg;

	ibve_hotplug_refresh(s->hp);
	return 0;
}

static void rescan(struct hotplug *s)
{
	if (!s->devices)
		return;
	ibve_devices_rescan(s->devices, true, s->await, &s->nawait);
	ibve_hotplug_refresh(s->hp);
}

/* Arm the retry timer for try number s->tries (0: 50 ms). */
static void arm_retry(struct hotplug *s)
{
	long ms = 50L << s->tries;
	struct itimerspec its = { .it_value = { ms / 1000,
						(ms % 1000) * 1000000 } };

	timerfd_settime(s->retry_fd, 0, &its, NULL);
}

/* An arrival was announced: look now, and again later if not listed. */
static void arrived(struct hotplug *s, const struct ibve_hp_msg *m)
{
	if (s->nawait < AWAIT_MAX && (m->chardev[0] || m->device[0])) {
		struct ibve_await *w = &s->await[s->nawait++];

		ibve_strcpy(w->chardev, m->chardev, sizeof(w->chardev));
		ibve_strcpy(w->device, m->device, sizeof(w->device));
	}
	rescan(s);
	if (s->nawait) {
		s->tries = 0;
		arm_retry(s);
	}
}

static void retry(struct hotplug *s)
{
	uint64_t ticks;

	if (read(s->retry_fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return;
	rescan(s);
	if (!s->nawait)
		return;
	if (++s->tries < AWAIT_TRIES) {
		arm_retry(s);
		return;
	}
	for (size_t a = 0; a < s->nawait; a++)
		ibve_host_note(&s->h, IBVE_NOTE,
			       "%s appeared but libibverbs did not list it",
			       s->await[a].chardev[0] ? s->await[a].chardev
						      : s->await[a].device);
	s->nawait = 0;
}

static void netdev(struct hotplug *s, const struct ibve_hp_msg *m)
{
	char ifname[IF_NAMESIZE] = "";
	const struct ibve_slot *d;
	struct ibve_event *ev;

	if (!m->device[0] || !s->devices ||
	    !ibve_devices_watched(s->devices, m->device))
		return;
	ev = s->h.emit(s->h.ctx);
	if (!ev)
		return;
	d = ibve_devices_find(s->devices, m->device);
	if (m->ifindex && !if_indextoname(m->ifindex, ifname))
		ifname[0] = '\0';
	ibve_hp_event_netdev(ev, m->device, d ? d->guid : 0, m->port,
			     m->ifindex, ifname,
			     m->what == IBVE_HP_NETDEV_ATTACH);
}

static bool ready(void *arg, uint32_t cookie)
{
	struct hotplug *s = arg;
	struct ibve_hp_msg msgs[16];
	int fd;
	size_t n;

	if (cookie == C_RETRY) {
		retry(s);
		return false;
	}
	fd = cookie == C_UEVENT ? s->hp->uevent_fd : s->hp->nl_fd;
	while ((n = ibve_hotplug_read(s->hp, fd, msgs, ARRAY_SIZE(msgs))) > 0) {
		for (size_t k = 0; k < n; k++) {
			const struct ibve_hp_msg *m = &msgs[k];

			switch (m->what) {
			case IBVE_HP_ADDED:
				arrived(s, m);
				break;
			case IBVE_HP_RESCAN:
				rescan(s);
				break;
			case IBVE_HP_REMOVED:
				if (s->devices)
					ibve_devices_removed(s->devices,
							     m->chardev,
							     m->device);
				break;
			case IBVE_HP_NETDEV_ATTACH:
			case IBVE_HP_NETDEV_DETACH:
				netdev(s, m);
				break;
			}
		}
		if (n < ARRAY_SIZE(msgs))
			break;
	}
	return false;
}

static size_t describe(const void *arg, char *buf, size_t size)
{
	const struct hotplug *s = arg;
	static const char *const how[] = { "uevent", "netlink" };

	return (size_t)snprintf(buf, size, "(hot-plug: %s)",
				how[s->hp->method]);
}

static void destroy(void *arg)
{
	struct hotplug *s = arg;

	ibve_hotplug_close(s->hp);
	if (s->retry_fd >= 0)
		close(s->retry_fd);
	free(s);
}

/* The kernel's RDMA netlink monitor's events, by its codes. */
static const struct ibve_event_desc rows[] = {
	ROW(IBVE_HOTPLUG_DEVICE_ADDED, "DEVICE_ADDED", DEVICE, false, INFO,
	    "0040c9057e4b4d49bf7a841d30b5bd25",
	    "device appeared and is being watched",
	    "Informational: a device appeared (driver loaded, adapter reset or "
	    "plugged in). After an unplanned DEVICE_REMOVED, read the kernel log "
	    "for the reason of the reset."),
	ROW(IBVE_HOTPLUG_DEVICE_REMOVED, "DEVICE_REMOVED", DEVICE, false,
	    WARNING, "d88c22bb7eef4093968614442e5e9c7d",
	    "device went away; it was closed at once so its removal can finish",
	    "The device went away: driver unloaded, adapter reset or failed. If "
	    "it was not planned, read the kernel log (dmesg); jobs that used it "
	    "have failed."),
	ROW(IBVE_HOTPLUG_NETDEV_ATTACH, "NETDEV_ATTACH", PORT, false, INFO,
	    "6f0f767e8b9d452ca4c6ef2f5f18b795",
	    "network device attached to the port",
	    "Informational: a network device was bound to the port (RoCE). "
	    "Nothing to do if it was meant."),
	ROW(IBVE_HOTPLUG_NETDEV_DETACH, "NETDEV_DETACH", PORT, false, WARNING,
	    "399b704943164ce3af85d1202917b315",
	    "network device detached from the port",
	    "The port lost its network device (RoCE) and carries no traffic until "
	    "one is attached again. Check the network configuration (bonding, "
	    "SR-IOV) if it was not meant."),
};

/* What its records say of a device's presence, in the port table. */
static int presence(const struct ibve_event *ev)
{
	return ev->code == IBVE_HOTPLUG_DEVICE_ADDED	 ? 1
	       : ev->code == IBVE_HOTPLUG_DEVICE_REMOVED ? -1
							 : 0;
}

const struct ibve_source_ops ibve_source_hotplug = {
	.name = "hotplug",
	.records = IBVE_SOURCE_HOTPLUG,
	ROWS(rows),
	.presence = presence,
	.order = 15,
	.create = create,
	.start = start,
	.check = check,
	.ready = ready,
	.describe = describe,
	.destroy = destroy,
};
