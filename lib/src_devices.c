// SPDX-License-Identifier: MIT
/*
 * The "devices" source: the async event queue of every watched device.
 * Every verbs event is copied into a record and acknowledged at once, so
 * destroying objects never waits on us. A device that goes away is closed
 * as soon as anything says so (its uverbs node's removal, which the
 * hot-plug source sees first; EIO; DEVICE_FATAL), so its removal never
 * waits on us either. Other sources hook into the opening and closing of
 * devices (devices.h).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include <infiniband/verbs.h>

#include "buf.h"
#include "devices.h"
#include "dl_jsonc.h"
#include "fields.h"
#include "hotplug.h"
#include "providers.h"
#include "source.h"
#include "sysfs.h"

#define C_LAZY UINT32_MAX /* the cookie of lazy_fd */

IBVE_EXPORT void ibve_event_from_verbs(struct ibve_event *ev,
				       const struct ibv_async_event *ae,
				       const char *device, uint64_t node_guid)
{
	memset(ev, 0, sizeof(*ev));
	clock_gettime(CLOCK_REALTIME, &ev->time);
	ibve_strcpy(ev->device, device, sizeof(ev->device));
	ibve_event_fill_verbs(ev, ae, node_guid);
}

void ibve_event_fill_verbs(struct ibve_event *ev,
			   const struct ibv_async_event *ae, uint64_t node_guid)
{
	ev->node_guid = node_guid;
	ibve_event_set_code(ev, IBVE_SOURCE_VERBS, (int)ae->event_type);

	/* element is a union: read only the member of the event's class. */
	switch (ev->cls) {
	case IBVE_CLASS_PORT:
		ev->port = (uint32_t)ae->element.port_num;
		break;
	case IBVE_CLASS_QP:
		if (ae->element.qp) {
			ev->qp_num = ae->element.qp->qp_num;
			ev->handle = ae->element.qp->handle;
			ev->fields |= IBVE_FIELD_QP_NUM | IBVE_FIELD_HANDLE;
		}
		break;
	case IBVE_CLASS_CQ:
		if (ae->element.cq) {
			ev->handle = ae->element.cq->handle;
			ev->fields |= IBVE_FIELD_HANDLE;
		}
		break;
	case IBVE_CLASS_SRQ:
		if (ae->element.srq) {
			ev->handle = ae->element.srq->handle;
			ev->fields |= IBVE_FIELD_HANDLE;
		}
		break;
	case IBVE_CLASS_WQ:
		if (ae->element.wq) {
			ev->wq_num = ae->element.wq->wq_num;
			ev->handle = ae->element.wq->handle;
			ev->fields |= IBVE_FIELD_WQ_NUM | IBVE_FIELD_HANDLE;
		}
		break;
	case IBVE_CLASS_DEVICE:
	case IBVE_CLASS_UNKNOWN:
		/* Unknown: the union's meaning is unknown, read none of it. */
		break;
	}
}

void ibve_rates_diff(struct ibve_event *ev, const char (*old)[28],
		     const char (*now)[28], uint32_t n)
{
	struct ibve_verbs_fields *v = &ev->verbs;

	v->nrates = 0;
	for (uint32_t i = 0; i < n && v->nrates < IBVE_RATES_MAX; i++) {
		struct ibve_rate_change *c = &v->rates[v->nrates];

		if (strcmp(old[i], now[i]) == 0)
			continue;
		c->port = i + 1;
		ibve_strcpy(c->old_rate, old[i], sizeof(c->old_rate));
		ibve_strcpy(c->new_rate, now[i], sizeof(c->new_rate));
		v->nrates++;
	}
	if (v->nrates)
		ev->fields |= IBVE_FIELD_RATES;
}

void ibve_event_set_down(struct ibve_event *ev, const struct timespec *down_at)
{
	double s;

	if (!down_at->tv_sec && !down_at->tv_nsec)
		return;
	s = ibve_ts_secs(down_at, &ev->time);
	ev->verbs.down_us = s > 0 ? (uint64_t)(s * 1e6 + 0.5) : 0;
	ev->fields |= IBVE_FIELD_DOWN;
}

static int create(void **out, const struct ibve_source_opts *o,
		  const struct ibve_host *h)
{
	struct ibve_devset *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return ibve_error(ENOMEM, "out of memory");
	s->h = *h;
	s->lazy_fd = s->ifsock = -1;
	if (o->context) {
		s->borrowed = o->context;
		if (o->ndevices)
			ibve_strcpy(s->borrowed_name, o->devices[0],
				    sizeof(s->borrowed_name));
		return 0;
	}
	s->all = !o->ndevices;
	s->wait = s->all && (o->flags & IBVE_SRC_WAIT);
	for (size_t i = 0; i < o->ndevices; i++)
		if (strlen(o->devices[i]) >= IBVE_NAME_MAX)
			return ibve_device_unknown(o->devices[i]);
	return ibve_names_copy(&s->watch, o);
}

int ibve_devices_hook(struct ibve_devset *s, const struct ibve_dev_hooks *h)
{
	if (s->nhooks == IBVE_HOOKS_MAX)
		return ibve_error(ENOSPC, "too many device hooks");
	s->hooks[s->nhooks] = *h;
	return (int)s->nhooks++;
}

bool ibve_devices_watched(const struct ibve_devset *s, const char *name)
{
	return (s->all || s->watch.n) &&
	       ibve_names_want(&s->watch, &s->h, name);
}

#define PORTS_MAX (IBVE_RATES_MAX * 32) /* ports of a device tracked */

/* PORT's rate now, from sysfs (the device is open, so it is there). */
static void read_rate(const struct ibve_slot *d, uint32_t port, char *rate)
{
	char path[512];

	snprintf(path, sizeof(path), IBVE_SYSFS "/%s/ports/%u/rate", d->name,
		 port);
	if (ibve_sysfs_read(path, rate, sizeof(d->ports->rate)))
		rate[0] = '\0';
}

static void untrack_ports(struct ibve_slot *d)
{
	for (uint32_t i = 0; i < d->nports; i++)
		if (d->ports[i].ndev_fd >= 0)
			close(d->ports[i].ndev_fd);
	free(d->ports);
	d->ports = NULL;
	d->nports = 0;
}

/* The socket read_port() asks a netdev's index on, kept open; -1. */
static int ifsock(struct ibve_devset *s)
{
	if (s->ifsock < 0)
		s->ifsock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	return s->ifsock;
}

/*
 * What is kept of D's ports: how many, their rates, and each one's netdev
 * attribute held open (GID 0, a RoCE port's default GID, is always its
 * netdev's; an InfiniBand port's has none), so that a port event reads it
 * again with a pread, on its way to its line (bench/ part 8).
 */
static void track_ports(struct ibve_devset *s, struct ibve_slot *d)
{
	uint32_t n = 0;
	struct ibv_device_attr a;

	untrack_ports(d);
	d->ports_pending = false;
	if (ibv_query_device(d->ctx, &a) == 0)
		n = a.phys_port_cnt;
	if (!n || n > PORTS_MAX || !(d->ports = calloc(n, sizeof(*d->ports))))
		return;
	d->nports = n;
	for (uint32_t i = 0; i < n; i++) {
		char path[512];

		read_rate(d, i + 1, d->ports[i].rate);
		snprintf(path, sizeof(path),
			 IBVE_SYSFS "/%s/ports/%u/gid_attrs/ndevs/0", d->name,
			 i + 1);
		d->ports[i].ndev_fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	ifsock(s);
}

/*
 * The ports' rates are read once the loop runs, not before the first line
 * (start-up does only what "watching" needs): a timer that fires at once.
 */
static void later(struct ibve_devset *s, struct ibve_slot *d)
{
	struct itimerspec its = { .it_value = { 0, 1 } };

	d->ports_pending = true;
	if (s->lazy_fd < 0)
		s->lazy_fd = timerfd_create(CLOCK_MONOTONIC,
					    TFD_CLOEXEC | TFD_NONBLOCK);
	if (s->lazy_fd < 0 ||
	    (!s->lazy_watched && s->h.watch(s->h.ctx, s->lazy_fd, s, C_LAZY))) {
		track_ports(s, d); /* now, then */
		return;
	}
	s->lazy_watched = true;
	timerfd_settime(s->lazy_fd, 0, &its, NULL);
}

static void lazy(struct ibve_devset *s)
{
	uint64_t ticks;

	if (read(s->lazy_fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return;
	/*
	 * Not watched until a device comes: a pipeline with one watch left
	 * (one device, no hot-plug: the injector) reads it without epoll.
	 */
	s->h.unwatch(s->h.ctx, s->lazy_fd);
	s->lazy_watched = false;
	for (size_t i = 0; i < s->nslots; i++) {
		struct ibve_slot *d = s->slots[i];

		if (d->used && d->ctx && d->ports_pending)
			track_ports(s, d);
	}
}

/*
 * A port event reads its port once for every sink: its attributes when a
 * port table wants them, which the record carries to it, and the network
 * device of a RoCE or iWARP port (with its index, which JSON carries with
 * it): the name an operator knows. The netdev is read now, as the event
 * comes (it may have been renamed), through the descriptor held for it.
 */
static void read_port(struct ibve_devset *s, const struct ibve_slot *d,
		      const struct ibve_port_track *t, struct ibve_event *ev)
{
	struct ifreq ifr;
	ssize_t n = -1;
	char dir[256];

	if (s->h.attrs(s->h.ctx)) {
		snprintf(dir, sizeof(dir), IBVE_SYSFS "/%s/ports/%u", d->name,
			 ev->port);
		if (ibve_sysfs_port_dir(dir, &ev->verbs.attrs) == 0)
			ev->fields |= IBVE_FIELD_ATTRS;
	}
	_Static_assert(sizeof(ifr.ifr_name) == sizeof(ev->netdev), "one size");
	if (t->ndev_fd >= 0)
		n = pread(t->ndev_fd, ev->netdev, sizeof(ev->netdev) - 1, 0);
	while (n > 0 && (ev->netdev[n - 1] == '\n' || ev->netdev[n - 1] == ' '))
		n--;
	ev->netdev[n > 0 ? n : 0] = '\0';
	memcpy(ifr.ifr_name, ev->netdev, sizeof(ifr.ifr_name));
	if (n <= 0 || ioctl(ifsock(s), SIOCGIFINDEX, &ifr)) {
		/* none, or in another network namespace, or gone */
		ev->netdev[0] = '\0';
		return;
	}
	ev->netdev_index = (uint32_t)ifr.ifr_ifindex;
	ev->fields |= IBVE_FIELD_NETDEV;
}

/* What a port or device event says of D's ports, and they of it. */
static void track_event(struct ibve_devset *s, struct ibve_slot *d,
			struct ibve_event *ev)
{
	struct ibve_port_track *t;

	/* an affiliated event is about an object, not a port or the device */
	if (ev->source != IBVE_SOURCE_VERBS || ev->affiliated)
		return;
	if (d->ports_pending) /* an event before the timer: now, then */
		track_ports(s, d);
	if (!d->nports)
		return;
	t = ev->port && ev->port <= d->nports ? &d->ports[ev->port - 1] : NULL;
	if (ev->cls == IBVE_CLASS_PORT && t)
		read_port(s, d, t, ev);
	if (ev->code == IBV_EVENT_PORT_ERR && t) {
		if (!t->down_at.tv_sec && !t->down_at.tv_nsec)
			t->down_at = ev->time;
	} else if (ev->code == IBV_EVENT_PORT_ACTIVE && t) {
		ibve_event_set_down(ev, &t->down_at);
		t->down_at = (struct timespec){ 0, 0 };
		if (ev->fields & IBVE_FIELD_ATTRS)
			ibve_strcpy(t->rate, ev->verbs.attrs.rate,
				    sizeof(t->rate));
		else
			read_rate(d, ev->port, t->rate);
	} else if (ev->code == IBVE_VERBS_DEVICE_SPEED_CHANGE) {
		char old[PORTS_MAX][28], now[PORTS_MAX][28];

		for (uint32_t i = 0; i < d->nports; i++) {
			memcpy(old[i], d->ports[i].rate, sizeof(old[i]));
			read_rate(d, i + 1, now[i]);
		}
		ibve_rates_diff(ev, old, now, d->nports);
		for (uint32_t i = 0; i < d->nports; i++)
			memcpy(d->ports[i].rate, now[i], sizeof(now[i]));
	}
}

static struct ibve_slot *new_slot(struct ibve_devset *s)
{
	struct ibve_slot **v;
	size_t i;

	for (i = 0; i < s->nslots; i++)
		if (!s->slots[i]->used)
			break;
	if (i == s->nslots) {
		v = realloc(s->slots, (s->nslots + 1) * sizeof(*v));
		if (!v)
			return NULL;
		s->slots = v;
		v[i] = calloc(1, sizeof(**v));
		if (!v[i])
			return NULL;
		s->nslots++;
	}
	untrack_ports(s->slots[i]);
	memset(s->slots[i], 0, sizeof(*s->slots[i]));
	s->slots[i]->index = i;
	return s->slots[i];
}

struct ibve_slot *ibve_devices_find(struct ibve_devset *s, const char *name)
{
	for (size_t i = 0; i < s->nslots; i++)
		if (s->slots[i]->used && strcmp(s->slots[i]->name, name) == 0)
			return s->slots[i];
	return NULL;
}

static void announce(struct ibve_devset *s, const struct ibve_slot *d, int code)
{
	struct ibve_event *ev = s->h.emit(s->h.ctx);

	if (ev)
		ibve_hp_event_device(ev, d->name, d->guid, d->chardev, code);
}

/* Stop polling D and close what it holds (not a borrowed context). */
static void release(struct ibve_devset *s, struct ibve_slot *d)
{
	if (!d->ctx)
		return;
	for (size_t k = 0; k < s->nhooks; k++)
		if (s->hooks[k].detach)
			s->hooks[k].detach(s->hooks[k].arg, (int)k, d);
	s->h.unwatch(s->h.ctx, d->ctx->async_fd);
	untrack_ports(d);
	if (!d->borrowed)
		ibv_close_device(d->ctx);
	d->ctx = NULL;
}

void ibve_devices_close(struct ibve_devset *s, struct ibve_slot *d)
{
	release(s, d);
	announce(s, d, IBVE_HOTPLUG_DEVICE_REMOVED);
	d->used = false;
}

/*
 * Open DEV into slot D (new or dormant; or holding the caller's context),
 * poll its async queue (non-blocking) and tell the hooks.
 */
static int open_into(struct ibve_devset *s, struct ibve_slot *d,
		     struct ibv_device *dev)
{
	const char *name = d->borrowed && s->borrowed_name[0]
				   ? s->borrowed_name
				   : ibv_get_device_name(dev);
	int fl, r;

	for (size_t k = 0; k < s->nhooks && !d->ctx; k++)
		if (s->hooks[k].open)
			d->ctx = s->hooks[k].open(s->hooks[k].arg, dev);
	errno = 0;
	if (!d->ctx && !(d->ctx = ibv_open_device(dev)))
		return errno ? -errno : -EIO;
	d->used = true;
	ibve_strcpy(d->name, name, sizeof(d->name));
	ibve_strcpy(d->chardev, dev->dev_name, sizeof(d->chardev));
	d->guid = be64toh(ibv_get_device_guid(dev));
	later(s, d);
	fl = fcntl(d->ctx->async_fd, F_GETFL);
	if (fl < 0 || fcntl(d->ctx->async_fd, F_SETFL, fl | O_NONBLOCK) < 0)
		r = -errno;
	else
		r = s->h.watch(s->h.ctx, d->ctx->async_fd, s,
			       (uint32_t)d->index);
	if (r) {
		release(s, d);
		d->used = false;
		return r;
	}
	for (size_t k = 0; k < s->nhooks; k++)
		if (s->hooks[k].attach)
			s->hooks[k].attach(s->hooks[k].arg, (int)k, d);
	return 0;
}

int ibve_devices_rescan(struct ibve_devset *s, bool announce_changes,
			struct ibve_await *aw, size_t *naw)
{
	struct ibv_device **list;
	int n;

	list = ibve_get_device_list(&n);
	if (!list)
		return errno ? -errno : -ENOSYS;

	for (size_t i = 0; i < s->nslots; i++) {
		struct ibve_slot *d = s->slots[i];
		bool present = false;

		if (!d->used || d->borrowed)
			continue;
		for (int k = 0; k < n && !present; k++)
			present = strcmp(ibv_get_device_name(list[k]),
					 d->name) == 0 &&
				  strcmp(list[k]->dev_name, d->chardev) == 0;
		if (present)
			continue;
		release(s, d);
		if (announce_changes)
			announce(s, d, IBVE_HOTPLUG_DEVICE_REMOVED);
		d->used = false;
	}
	for (int k = 0; k < n; k++) {
		const char *name = ibv_get_device_name(list[k]);
		struct ibve_slot *d;

		if (!ibve_devices_watched(s, name))
			continue;
		d = ibve_devices_find(s, name);
		if (d && d->ctx)
			continue;
		/* Closed after DEVICE_FATAL: wait for a new instance. */
		if (d && strcmp(d->chardev, list[k]->dev_name) == 0)
			continue;
		if (!d)
			d = new_slot(s);
		if (!d)
			continue;
		if (open_into(s, d, list[k]) == 0 && announce_changes)
			announce(s, d, IBVE_HOTPLUG_DEVICE_ADDED);
	}
	/* Arrivals now listed are no longer awaited. */
	for (size_t a = 0; aw && a < *naw;) {
		bool listed = false;

		for (int k = 0; k < n && !listed; k++)
			listed = aw[a].chardev[0]
					 ? strcmp(list[k]->dev_name,
						  aw[a].chardev) == 0
					 : strcmp(ibv_get_device_name(list[k]),
						  aw[a].device) == 0;
		if (listed)
			aw[a] = aw[--*naw];
		else
			a++;
	}
	ibv_free_device_list(list);
	return 0;
}

void ibve_devices_removed(struct ibve_devset *s, const char *chardev,
			  const char *device)
{
	for (size_t i = 0; i < s->nslots; i++) {
		struct ibve_slot *d = s->slots[i];

		if (d->used && ((chardev && chardev[0] &&
				 strcmp(d->chardev, chardev) == 0) ||
				(device && device[0] && d->ctx &&
				 strcmp(d->name, device) == 0)))
			ibve_devices_close(s, d);
	}
}

static int start_borrowed(struct ibve_devset *s)
{
	struct ibve_slot *d = new_slot(s);
	int r;

	if (!d)
		return ibve_error(ENOMEM, "out of memory");
	d->borrowed = true;
	d->ctx = s->borrowed;
	r = open_into(s, d, d->ctx->device);
	return r ? ibve_error(r, "watching %s: %s", d->name, strerror(-r)) : 0;
}

static int start(void *arg)
{
	struct ibve_devset *s = arg;
	struct ibv_device **list;
	int n, r = 0;

	if (s->borrowed)
		return start_borrowed(s);
	if (s->all) {
		r = ibve_devices_rescan(s, false, NULL, NULL);
		/* other sources may have something (umad without verbs) */
		s->no_rdma = r == -ENOSYS;
		return r && !s->no_rdma ? ibve_device_list_error(r) : 0;
	}
	errno = 0;
	list = ibve_get_device_list(&n);
	if (!list)
		return ibve_device_list_error(errno ? -errno : -ENOSYS);
	for (size_t w = 0; w < s->watch.n && !r; w++) {
		const char *name = s->watch.v[w];
		struct ibve_slot *d;
		int k;

		if (ibve_devices_find(s, name) || s->h.excluded(s->h.ctx, name))
			continue;
		for (k = 0; k < n; k++)
			if (strcmp(ibv_get_device_name(list[k]), name) == 0)
				break;
		if (k == n) {
			r = ibve_device_unknown(name);
			break;
		}
		d = new_slot(s);
		r = d ? open_into(s, d, list[k]) : -ENOMEM;
		if (r)
			r = ibve_error(r, "device '%s': %s", name,
				       strerror(-r));
	}
	ibv_free_device_list(list);
	return r;
}

/* Read, copy and acknowledge the events of slot COOKIE. */
static bool ready(void *arg, uint32_t cookie)
{
	struct ibve_devset *s = arg;
	struct ibve_slot *d = cookie < s->nslots ? s->slots[cookie] : NULL;

	if (cookie == C_LAZY) {
		lazy(s);
		return false;
	}
	while (d && d->used && d->ctx) {
		struct ibv_async_event ae;
		struct ibve_event *ev;

		if (ibv_get_async_event(d->ctx, &ae)) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			/* EIO and the like: the device was taken away. */
			ibve_devices_close(s, d);
			break;
		}
		ev = s->h.emit(s->h.ctx);
		if (ev) {
			/* the slot's name is zero-padded: one fixed copy */
			_Static_assert(sizeof(ev->device) == sizeof(d->name),
				       "one size");
			memcpy(ev->device, d->name, sizeof(ev->device));
			ibve_event_fill_verbs(ev, &ae, d->guid);
		}
		ibv_ack_async_event(&ae);
		if (ev)
			track_event(s, d, ev);
		/* DEVICE_FATAL ends the stream: a later rescan or uevent
		 * brings a new instance back. */
		if (ev && ev->code == IBV_EVENT_DEVICE_FATAL) {
			if (!d->borrowed)
				release(s, d);
			break;
		}
		/* the reader's array is full: the rest waits in the kernel */
		if (s->h.full(s->h.ctx))
			break;
	}
	return false;
}

static int empty(const void *arg)
{
	const struct ibve_devset *s = arg;

	/* IBVE_SRC_WAIT: watching none until one appears */
	if (ibve_devices_names(s, NULL, 0) || s->wait)
		return 0;
	if (s->no_rdma)
		return ibve_device_list_error(-ENOSYS);
	return ibve_error(ENODEV, "no RDMA devices found");
}

static size_t describe(const void *arg, char *buf, size_t size)
{
	const struct ibve_devset *s = arg;
	struct ibve_buf b = { buf, size, 0 };
	size_t n = ibve_devices_names(s, NULL, 0);

	ibve_buf_printf(&b, "%zu device%s%s", n, n == 1 ? "" : "s",
			n ? ":" : "");
	for (size_t i = 0; i < s->nslots; i++) {
		const struct ibve_slot *d = s->slots[i];

		if (!d->used || !d->ctx)
			continue;
		ibve_buf_putc(&b, ' ');
		ibve_buf_text_str(&b, d->name);
		for (size_t k = 0; k < s->nhooks; k++) {
			const struct ibve_dev_hooks *hk = &s->hooks[k];
			const char *tag = hk->tag ? hk->tag(hk->arg, (int)k, d)
						  : NULL;

			if (tag)
				ibve_buf_printf(&b, "(%s)", tag);
		}
	}
	return ibve_buf_end(&b);
}

static void destroy(void *arg)
{
	struct ibve_devset *s = arg;

	for (size_t i = 0; i < s->nslots; i++) {
		if (s->slots[i]->used)
			release(s, s->slots[i]);
		untrack_ports(s->slots[i]);
		free(s->slots[i]);
	}
	if (s->lazy_fd >= 0)
		close(s->lazy_fd);
	if (s->ifsock >= 0)
		close(s->ifsock);
	free(s->slots);
	free(s->watch.v);
	free(s);
}

size_t ibve_devices_names(const struct ibve_devset *s, const char **out,
			  size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nslots; i++) {
		if (!s->slots[i]->used || !s->slots[i]->ctx)
			continue;
		if (n < max)
			out[n] = s->slots[i]->name;
		n++;
	}
	return n;
}

/*
 * Verbs events carry their enum ibv_event_type number (rdma-core 44 has
 * 0..19, rdma-core 62 adds 20). Newer numbers decode as UNKNOWN(n) and are
 * still delivered.
 */
static const struct ibve_event_desc rows[] = {
	ROW(IBV_EVENT_CQ_ERR, "CQ_ERR", CQ, true, ERROR,
	    "35f1a4cff56c4103b5a57fc746ce0756",
	    "completion queue overrun: completions were lost",
	    "The owning process polls its completion queue too slowly or made it "
	    "too small; the queue pairs on it are in error. Restart the job; if "
	    "it recurs, raise the queue sizes of its communication library or "
	    "report it to its developers."),
	ROW(IBV_EVENT_QP_FATAL, "QP_FATAL", QP, true, ERROR,
	    "c3cc782684984620962dd79bd046dcd0",
	    "local catastrophic error on the queue pair; it moved to the error state",
	    "The adapter met an error it could not recover from on this queue "
	    "pair; the connection is lost. If several queue pairs or nodes see "
	    "it, read the kernel log (dmesg) and check the adapter's firmware; "
	    "otherwise restart the job."),
	ROW(IBV_EVENT_QP_REQ_ERR, "QP_REQ_ERR", QP, true, ERROR,
	    "e5d6c1fc600b4a5fb2c237f830ce6a4a",
	    "invalid request from the peer (transport error); queue pair moved to error",
	    "The peer sent a request this queue pair could not accept. Look at "
	    "the peer process and its node: a peer that crashed mid-transfer or a "
	    "mismatch between the two sides' software are the usual causes."),
	ROW(IBV_EVENT_QP_ACCESS_ERR, "QP_ACCESS_ERR", QP, true, ERROR,
	    "61c0e4a9f6504d45afc93cfb3c14182b",
	    "remote access violation (bad key or permissions); queue pair moved to error",
	    "A remote access used a bad key, address or permission: usually an "
	    "application bug, or a peer using memory already released. Report it "
	    "to the application's developers with the job's logs."),
	ROW(IBV_EVENT_COMM_EST, "COMM_EST", QP, true, INFO,
	    "6ea3bcf9f1634f5e8675b9dcadc52ef7",
	    "first packet received in RTR: communication established",
	    "Informational: the first packet arrived on a connection still in "
	    "RTR. Nothing to do."),
	ROW(IBV_EVENT_SQ_DRAINED, "SQ_DRAINED", QP, true, INFO,
	    "7dce90e2b125415abb15e06fe70ebbfe",
	    "send queue drained after the move to SQD",
	    "Informational: the owning application asked for it. Nothing to do."),
	ROW(IBV_EVENT_PATH_MIG, "PATH_MIG", QP, true, WARNING,
	    "c699f4d005a94b46ab693527124efd28",
	    "connection migrated to its alternate path",
	    "Traffic moved to the alternate path because the primary path has a "
	    "problem. Check the links and switch ports of the primary path (port "
	    "counters, the fabric's error reports)."),
	ROW(IBV_EVENT_PATH_MIG_ERR, "PATH_MIG_ERR", QP, true, ERROR,
	    "95078ee2ccb04c7b9e99028aff7f6b15",
	    "migration to the alternate path failed",
	    "Neither path works for this connection. Check the links and switches "
	    "of both paths and the subnet manager's log."),
	ROW(IBV_EVENT_DEVICE_FATAL, "DEVICE_FATAL", DEVICE, false, FATAL,
	    "0866f6ffc09647189dd7128af228b600",
	    "device failed or is being removed; it is unusable until reset",
	    "The adapter is unusable and every job using it has failed. Read the "
	    "kernel log (dmesg) for the driver's reason; a reset or reboot may "
	    "bring it back, a repeat points at the hardware. Drain the node until "
	    "it is fixed."),
	ROW(IBV_EVENT_PORT_ACTIVE, "PORT_ACTIVE", PORT, false, INFO,
	    "cdd83400705b4cfe8b7072304283852c",
	    "port is active: link up and ready for traffic",
	    "Informational: the link is up. After a PORT_ERR it means the link "
	    "flapped: watch for repeats (ibvevent_port_flaps_total, ibv_eventwatch "
	    "--check)."),
	ROW(IBV_EVENT_PORT_ERR, "PORT_ERR", PORT, false, ERROR,
	    "b660206d9ee048e69747f696ec0d638e",
	    "port left the active state: link down or lost",
	    "The link is down. Check the cable, the module and the switch port "
	    "(ibv_eventwatch -l, ibstat, the port counters, the switch's log); "
	    "jobs using the port lose their connections."),
	ROW(IBV_EVENT_LID_CHANGE, "LID_CHANGE", PORT, false, WARNING,
	    "2ae79d5f0c524d9fb34e456446120045",
	    "subnet manager assigned the port a new LID",
	    "The subnet manager gave the port a new address, usually after a "
	    "fabric change or an SM restart; connections to the old LID must be "
	    "made again. Repeated changes point at an unstable subnet manager or "
	    "fabric."),
	ROW(IBV_EVENT_PKEY_CHANGE, "PKEY_CHANGE", PORT, false, WARNING,
	    "9da1eb9738504e58af7fb7882d56fa8c",
	    "P_Key table of the port changed",
	    "The port's partition membership changed. Check that the subnet "
	    "manager's partition configuration is what was meant; jobs in a "
	    "partition the port left lose access."),
	ROW(IBV_EVENT_SM_CHANGE, "SM_CHANGE", PORT, false, WARNING,
	    "0fb6e6156bd24e51afba91ef0f892014",
	    "the subnet manager serving the port changed",
	    "Another subnet manager took over. Find out why the previous one "
	    "stopped (its host and log); every node of the subnet sees this at "
	    "once."),
	ROW(IBV_EVENT_SRQ_ERR, "SRQ_ERR", SRQ, true, ERROR,
	    "28f12f5546b2434e8b99e32ea6657263",
	    "shared receive queue failed; its queue pairs moved to error",
	    "The shared receive queue failed and took its queue pairs with it. "
	    "Restart the job; if it recurs, read the kernel log and check the "
	    "adapter's firmware."),
	ROW(IBV_EVENT_SRQ_LIMIT_REACHED, "SRQ_LIMIT_REACHED", SRQ, true,
	    WARNING, "8bb07330c42e43da817c995492ff3f68",
	    "shared receive queue fell below its armed limit",
	    "The owning process is running low on receive buffers and armed this "
	    "limit to be told. Usually handled by the application; frequent "
	    "events mean it posts buffers too slowly."),
	ROW(IBV_EVENT_QP_LAST_WQE_REACHED, "QP_LAST_WQE_REACHED", QP, true,
	    INFO, "48ce312655f4402e9b1c080933c521bb",
	    "queue pair on an SRQ is in error and will take no more receive buffers",
	    "Informational: part of tearing down a queue pair attached to a "
	    "shared receive queue. Nothing to do unless errors come with it."),
	ROW(IBV_EVENT_CLIENT_REREGISTER, "CLIENT_REREGISTER", PORT, false,
	    WARNING, "ad2de981204a47b4a5c2d3cf27dd9494",
	    "subnet manager asks clients to register again (multicast, subscriptions)",
	    "The subnet manager asks clients to register their multicast groups "
	    "and subscriptions again, e.g. after it restarted. Nothing to do if "
	    "services recover; repeats point at an unstable subnet manager."),
	ROW(IBV_EVENT_GID_CHANGE, "GID_CHANGE", PORT, false, INFO,
	    "73a1fd59363843749ca05f50b0326f11",
	    "GID table of the port changed (address added or removed)",
	    "An address was added to or removed from the port (RoCE: an IP "
	    "address of its network device). Expected when the network is "
	    "reconfigured; otherwise find out who changed it."),
	ROW(IBV_EVENT_WQ_FATAL, "WQ_FATAL", WQ, true, ERROR,
	    "d655b311c50c4b5f95b5a2dc07e0039a",
	    "catastrophic error on the work queue; it moved to the error state",
	    "The work queue failed and traffic on it stopped. Restart the "
	    "application; if it recurs, read the kernel log and check the "
	    "adapter's firmware."),
	/* rdma-core 62's IBV_EVENT_DEVICE_SPEED_CHANGE; its port means nothing */
	ROW(IBVE_VERBS_DEVICE_SPEED_CHANGE, "DEVICE_SPEED_CHANGE", DEVICE,
	    false, WARNING, "2e178c9433d74d28bd178a0134a0d619",
	    "a link of the device retrained at another speed or width",
	    "A link trained again at another speed or width; a worn cable, module "
	    "or switch port is the usual cause. Compare the rates (RDMA_RATES, "
	    "ibv_eventwatch -l) with what the port should run at and check the "
	    "cable."),
};

/* --- its records' fields: down time, rate changes, peer ------------------ */

/* A duration for people: "850 ms", "12.3 s", "4m05s", "2h10m". */
static void put_duration(struct ibve_buf *b, uint64_t us)
{
	uint64_t s = us / 1000000;

	if (us < 1000000)
		ibve_buf_printf(b, "%" PRIu64 " ms", us / 1000);
	else if (s < 60)
		ibve_buf_printf(b, "%.1f s", (double)us / 1e6);
	else if (s < 3600)
		ibve_buf_printf(b, "%" PRIu64 "m%02" PRIu64 "s", s / 60,
				s % 60);
	else
		ibve_buf_printf(b, "%" PRIu64 "h%02" PRIu64 "m", s / 3600,
				s / 60 % 60);
}

static void down_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ibve_buf_puts(b, "down ");
	put_duration(b, ev->verbs.down_us);
}

static void rates_json(struct ibve_json *j, const struct ibve_event *ev)
{
	ibve_json_open_array(j, "rates");
	for (uint32_t i = 0; i < ev->verbs.nrates; i++) {
		const struct ibve_rate_change *c = &ev->verbs.rates[i];

		ibve_json_open(j, NULL);
		ibve_json_uint(j, "port", c->port);
		ibve_json_str(j, "old", c->old_rate);
		ibve_json_str(j, "new", c->new_rate);
		ibve_json_close(j);
	}
	ibve_json_close_array(j);
}

static void rates_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	for (uint32_t i = 0; i < ev->verbs.nrates; i++) {
		const struct ibve_rate_change *c = &ev->verbs.rates[i];

		ibve_buf_printf(b, "%sport %u: ", i ? ", " : "", c->port);
		ibve_buf_text_str(b, c->old_rate[0] ? c->old_rate : "?");
		ibve_buf_puts(b, " -> ");
		ibve_buf_text_str(b, c->new_rate[0] ? c->new_rate : "?");
	}
}

/* One {"port":N,"old":"...","new":"..."} of "rates" into C. */
static int rate_parse(struct json_object *x, struct ibve_rate_change *c,
		      char *err, size_t errlen)
{
	struct json_object *p, *o, *n;
	int64_t port;

	if (!json_object_is_type(x, json_type_object) ||
	    !json_object_object_get_ex(x, "port", &p) ||
	    !json_object_is_type(p, json_type_int) ||
	    !json_object_object_get_ex(x, "old", &o) ||
	    !json_object_is_type(o, json_type_string) ||
	    !json_object_object_get_ex(x, "new", &n) ||
	    !json_object_is_type(n, json_type_string))
		FAIL("\"rates\" holds {\"port\":N,\"old\":\"...\",\"new\":\"...\"}");
	port = json_object_get_int64(p);
	if (port < 1 || port > UINT16_MAX)
		FAIL("\"rates\": port out of range");
	c->port = (uint32_t)port;
	if (ibve_copy_str(c->old_rate, sizeof(c->old_rate), "old",
			  json_object_get_string(o), err, errlen) ||
	    ibve_copy_str(c->new_rate, sizeof(c->new_rate), "new",
			  json_object_get_string(n), err, errlen))
		return -EINVAL;
	return 0;
}

static int rates_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
		       int key, char *err, size_t errlen)
{
	struct json_object *a;
	struct ibve_jval v;
	size_t n;

	o->get(o, key, &v);
	if (v.type == J_ABSENT || v.type == J_NULL)
		return 0;
	a = (struct json_object *)v.obj;
	if (v.type != J_OTHER || !a || !json_object_is_type(a, json_type_array))
		FAIL("\"rates\" must be an array");
	n = json_object_array_length(a);
	if (n > IBVE_RATES_MAX)
		FAIL("\"rates\" holds more than %d ports", IBVE_RATES_MAX);
	for (size_t i = 0; i < n; i++)
		if (rate_parse(json_object_array_get_idx(a, i),
			       &ev->verbs.rates[i], err, errlen))
			return -EINVAL;
	ev->verbs.nrates = (uint32_t)n;
	if (n)
		ev->fields |= IBVE_FIELD_RATES;
	return 0;
}

static void peer_json(struct ibve_json *j, const struct ibve_event *ev)
{
	ibve_json_peer(j, "peer", &ev->verbs.peer);
}

static void peer_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	char words[256];

	ibve_peer_format(&ev->verbs.peer, words, sizeof(words));
	ibve_buf_puts(b, ev->verbs.peer.changed ? "peer now " : "peer ");
	ibve_buf_text_str(b, words);
}

/* KEY of the peer object X: a string (NULL: absent) into DST. */
static int peer_str(struct json_object *x, const char *key, char *dst,
		    size_t size, char *err, size_t errlen)
{
	struct json_object *v;

	if (!json_object_object_get_ex(x, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		FAIL("\"peer\": \"%s\" must be a string", key);
	return ibve_copy_str(dst, size, key, json_object_get_string(v), err,
			     errlen);
}

/* The index of NAME among N names of LOOKUP, or -1. */
static int peer_enum(const char *name, const char *(*lookup)(int), int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(lookup(i), name) == 0)
			return i;
	return -1;
}

static int peer_parse(const struct ibve_jsrc *o, struct ibve_event *ev, int key,
		      char *err, size_t errlen)
{
	struct ibve_peer *p = &ev->verbs.peer;
	struct json_object *x, *v;
	struct ibve_jval jv;
	char kind[8] = "", state[8] = "", type[8] = "", guid[32] = "";
	int k, st, nt = 0;

	o->get(o, key, &jv);
	if (jv.type == J_ABSENT || jv.type == J_NULL)
		return 0;
	x = (struct json_object *)jv.obj;
	if (jv.type != J_OTHER || !x ||
	    !json_object_is_type(x, json_type_object))
		FAIL("\"peer\" must be an object");
	memset(p, 0, sizeof(*p));
	if (peer_str(x, "kind", kind, sizeof(kind), err, errlen) ||
	    peer_str(x, "state", state, sizeof(state), err, errlen) ||
	    peer_str(x, "node_type", type, sizeof(type), err, errlen) ||
	    peer_str(x, "guid", guid, sizeof(guid), err, errlen) ||
	    peer_str(x, "reason", p->reason, sizeof(p->reason), err, errlen) ||
	    peer_str(x, "chassis", p->chassis, sizeof(p->chassis), err,
		     errlen) ||
	    peer_str(x, "port_id", p->port_id, sizeof(p->port_id), err,
		     errlen) ||
	    peer_str(x, "name", p->name, sizeof(p->name), err, errlen) ||
	    peer_str(x, "port_desc", p->port_desc, sizeof(p->port_desc), err,
		     errlen))
		return -EINVAL;
	k = peer_enum(kind, ibve_peer_kind_name, 2);
	st = peer_enum(state, ibve_peer_state_name, 3);
	if (type[0])
		nt = peer_enum(type, ibve_peer_node_name, 4);
	if (k < 0 || st < 0 || nt < 0)
		FAIL("\"peer\": kind ib or lldp, state unknown, none or known, "
		     "node_type CA, switch or router");
	if (guid[0] && ibve_guid_parse(guid, &p->guid))
		FAIL("\"peer\": \"guid\" must be a GUID (0002:c903:0011:2233)");
	if (json_object_object_get_ex(x, "port", &v)) {
		int64_t port = json_object_get_int64(v);

		if (!json_object_is_type(v, json_type_int) || port < 0 ||
		    port > 255)
			FAIL("\"peer\": \"port\" must be a port number");
		p->port = (uint32_t)port;
	}
	if (json_object_object_get_ex(x, "changed", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			FAIL("\"peer\": \"changed\" must be true or false");
		p->changed = json_object_get_boolean(v);
	}
	p->kind = (uint8_t)k;
	p->state = (uint8_t)st;
	p->node_type = (uint8_t)nt;
	ev->fields |= IBVE_FIELD_PEER;
	return 0;
}

/* In the record's order, among every source's rows. */
static const struct ibve_fieldspec fields[] = {
	{ .keys = "down_us",
	  .order = 110,
	  .flag = IBVE_FIELD_DOWN,
	  .type = FT_U64,
	  .off = offsetof(struct ibve_event, verbs.down_us),
	  .size = 8,
	  .text = down_text },
	{ .keys = "rates",
	  .order = 120,
	  .flag = IBVE_FIELD_RATES,
	  .json = rates_json,
	  .text = rates_text,
	  .parse = rates_parse },
	{ .keys = "peer",
	  .order = 130,
	  .flag = IBVE_FIELD_PEER,
	  .json = peer_json,
	  .text = peer_text,
	  .parse = peer_parse },
};

/* What its port and device events count as in the port table. */
static const struct ibve_kind_of kind_of[] = {
	{ IBV_EVENT_PORT_ERR, IBVE_KIND_LINK_DOWN },
	{ IBV_EVENT_PORT_ACTIVE, IBVE_KIND_LINK_UP },
	{ IBV_EVENT_LID_CHANGE, IBVE_KIND_LID },
	{ IBV_EVENT_PKEY_CHANGE, IBVE_KIND_PKEY },
	{ IBV_EVENT_SM_CHANGE, IBVE_KIND_SM },
	{ IBV_EVENT_GID_CHANGE, IBVE_KIND_GID },
	{ IBV_EVENT_CLIENT_REREGISTER, IBVE_KIND_REREG },
	{ IBV_EVENT_DEVICE_FATAL, IBVE_KIND_FATAL },
};

const struct ibve_source_ops ibve_source_devices = {
	.name = "devices",
	.records = IBVE_SOURCE_VERBS,
	.called = "verbs",
	ROWS(rows),
	KINDS(kind_of),
	FIELDS(fields),
	.devset = true,
	.order = 20,
	.create = create,
	.start = start,
	.empty = empty,
	.ready = ready,
	.describe = describe,
	.destroy = destroy,
};
