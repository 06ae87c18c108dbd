// SPDX-License-Identifier: MIT
/*
 * The live source: the async event queue of every watched device and the
 * hot-plug sockets behind one epoll fd. Every verbs event is copied into a
 * record and acknowledged at once, so destroying objects never waits on
 * us. A device that goes away is closed as soon as its uverbs node goes,
 * so its removal never waits on us either.
 *
 * A device's arrival can be announced before libibverbs can list it: the
 * uverbs node's uevent is sent from inside the uverbs client's add, and
 * rdma-core finds the node through netlink, which names it only once that
 * add has returned. An arrival not yet listed is looked for again after
 * 50 ms, then after twice as long each time, for about three seconds.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <net/if.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "hotplug.h"
#include "internal.h"
#include "mlx5_source.h"
#include "sm.h"

enum tag {
	TAG_DEVICE = 1,
	TAG_UEVENT = 2,
	TAG_NETLINK = 3,
	TAG_MLX5 = 4,
	TAG_RETRY = 5,
	TAG_SM = 6,
	TAG_SM_TIMER = 7,
};

#define AWAIT_MAX   8 /* arrivals looked for at once */
#define AWAIT_TRIES 7 /* 50 ms, doubling: 3.15 s in all */

/* An announced arrival libibverbs did not list yet: by node or by name. */
struct await {
	char chardev[IBVE_IFNAME_MAX];
	char device[IBVE_NAME_MAX];
};
#define EP_DATA(tag, i) (((uint64_t)(tag) << 32) | (uint32_t)(i))

struct slot {
	bool used;
	bool borrowed; /* the caller's context: never closed here */
	char name[IBVE_NAME_MAX];
	char chardev[IBVE_IFNAME_MAX];
	uint64_t guid;
	struct ibv_context *ctx;   /* NULL: closed after DEVICE_FATAL */
	struct ibve_mlx5_chan *dx; /* mlx5 DEVX events, or NULL */
};

struct ibve_monitor {
	int epfd;
	unsigned int flags;
	bool all;
	char (*watch)[IBVE_NAME_MAX];
	size_t nwatch;
	struct slot *slots;
	size_t nslots;
	struct ibve_hotplug *hp;
	/* Records made while handling hot-plug, not yet handed out. */
	struct ibve_event *pending;
	size_t head, npending, cap;
	/* Notes for people, oldest first; the one handed out last. */
	char **notes;
	size_t nnotes;
	char *note;
	/* Arrivals to look for again, and the timer that says when. */
	struct await await[AWAIT_MAX];
	size_t nawait;
	unsigned int tries;
	int retry_fd;
	struct ibve_sm *sm; /* subnet events, or NULL */
};

IBVE_EXPORT struct ibve_monitor *ibve_monitor_new(unsigned int flags)
{
	struct ibve_monitor *m = calloc(1, sizeof(*m));
	struct epoll_event e = { .events = EPOLLIN };
	int r;

	if (!m)
		return NULL;
	m->flags = flags;
	m->retry_fd = -1;
	m->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (m->epfd < 0)
		goto fail;
	if (flags & IBVE_MONITOR_HOTPLUG) {
		r = ibve_hotplug_open(&m->hp, flags & IBVE_MONITOR_UEVENT_ONLY
						      ? IBVE_HOTPLUG_UEVENT
						      : IBVE_HOTPLUG_NETLINK);
		if (r) {
			errno = -r;
			goto fail;
		}
		e.data.u64 = EP_DATA(TAG_UEVENT, 0);
		if (epoll_ctl(m->epfd, EPOLL_CTL_ADD,
			      ibve_hotplug_uevent_fd(m->hp), &e))
			goto fail;
		if (ibve_hotplug_netlink_fd(m->hp) >= 0) {
			e.data.u64 = EP_DATA(TAG_NETLINK, 0);
			if (epoll_ctl(m->epfd, EPOLL_CTL_ADD,
				      ibve_hotplug_netlink_fd(m->hp), &e))
				goto fail;
		}
		/* made now, so the count of open files never changes later */
		m->retry_fd = timerfd_create(CLOCK_MONOTONIC,
					     TFD_CLOEXEC | TFD_NONBLOCK);
		e.data.u64 = EP_DATA(TAG_RETRY, 0);
		if (m->retry_fd < 0 ||
		    epoll_ctl(m->epfd, EPOLL_CTL_ADD, m->retry_fd, &e))
			goto fail;
	}
	return m;
fail:
	r = errno;
	ibve_monitor_free(m);
	errno = r;
	return NULL;
}

IBVE_EXPORT void ibve_monitor_free(struct ibve_monitor *m)
{
	if (!m)
		return;
	ibve_sm_close(m->sm);
	for (size_t i = 0; i < m->nslots; i++) {
		ibve_mlx5_close(m->slots[i].dx);
		if (m->slots[i].used && m->slots[i].ctx &&
		    !m->slots[i].borrowed)
			ibv_close_device(m->slots[i].ctx);
	}
	for (size_t i = 0; i < m->nnotes; i++)
		free(m->notes[i]);
	free(m->notes);
	free(m->note);
	ibve_hotplug_close(m->hp);
	if (m->retry_fd >= 0)
		close(m->retry_fd);
	if (m->epfd >= 0)
		close(m->epfd);
	free(m->slots);
	free(m->watch);
	free(m->pending);
	free(m);
}

IBVE_EXPORT int ibve_monitor_fd(const struct ibve_monitor *m)
{
	return m->epfd;
}

IBVE_EXPORT enum ibve_hotplug_method
ibve_monitor_hotplug(const struct ibve_monitor *m)
{
	return m->hp ? ibve_hotplug_method(m->hp) : IBVE_HOTPLUG_NONE;
}

IBVE_EXPORT size_t ibve_monitor_devices(const struct ibve_monitor *m,
					const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nslots; i++) {
		if (!m->slots[i].used || !m->slots[i].ctx)
			continue;
		if (n < max)
			names[n] = m->slots[i].name;
		n++;
	}
	return n;
}

bool ibve_notes_addv(char ***notes, size_t *n, const char *fmt, va_list ap)
{
	char **v = realloc(*notes, (*n + 1) * sizeof(*v));

	if (!v)
		return false;
	*notes = v;
	if (vasprintf(&v[*n], fmt, ap) < 0)
		return false;
	(*n)++;
	return true;
}

void ibve_monitor_add_note(struct ibve_monitor *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ibve_notes_addv(&m->notes, &m->nnotes, fmt, ap);
	va_end(ap);
}

IBVE_EXPORT const char *ibve_monitor_note(struct ibve_monitor *m)
{
	free(m->note);
	m->note = NULL;
	if (!m->nnotes)
		return NULL;
	m->note = m->notes[0];
	memmove(m->notes, m->notes + 1, --m->nnotes * sizeof(*m->notes));
	return m->note;
}

IBVE_EXPORT unsigned int ibve_monitor_sources(const struct ibve_monitor *m,
					      const char *device)
{
	unsigned int sources = m->sm && ibve_sm_ports(m->sm, device)
				       ? 1u << IBVE_SOURCE_SM
				       : 0;

	for (size_t i = 0; i < m->nslots; i++) {
		const struct slot *s = &m->slots[i];

		if (s->used && s->ctx && strcmp(s->name, device) == 0)
			return sources | 1u << IBVE_SOURCE_VERBS |
			       (s->dx ? 1u << IBVE_SOURCE_MLX5 : 0);
	}
	return sources;
}

static bool watched(const struct ibve_monitor *m, const char *name);

IBVE_EXPORT int ibve_monitor_add_sm(struct ibve_monitor *m, char *path,
				    size_t pathlen)
{
	struct epoll_event e = { .events = EPOLLIN };
	int r;

	if (pathlen)
		path[0] = '\0';
	if (m->sm)
		return (int)ibve_sm_ports(m->sm, NULL);
	/* Before any device is added: every device, present and future. */
	if (!m->all && !m->nwatch)
		m->all = true;
	r = ibve_sm_open(&m->sm, m, watched, m->flags & IBVE_MONITOR_SM_ISSM,
			 path, pathlen);
	if (r)
		return r;
	e.data.u64 = EP_DATA(TAG_SM, 0);
	if (epoll_ctl(m->epfd, EPOLL_CTL_ADD, ibve_sm_fd(m->sm), &e))
		goto fail;
	e.data.u64 = EP_DATA(TAG_SM_TIMER, 0);
	if (epoll_ctl(m->epfd, EPOLL_CTL_ADD, ibve_sm_timer_fd(m->sm), &e))
		goto fail;
	return (int)ibve_sm_ports(m->sm, NULL);
fail:
	r = -errno;
	ibve_sm_close(m->sm);
	m->sm = NULL;
	return r;
}

static struct ibve_event *push(struct ibve_monitor *m)
{
	struct ibve_event *ev;

	if (m->head + m->npending == m->cap) {
		if (m->head) {
			memmove(m->pending, m->pending + m->head,
				m->npending * sizeof(*ev));
			m->head = 0;
		} else {
			size_t cap = m->cap ? m->cap * 2 : 16;
			struct ibve_event *p =
				realloc(m->pending, cap * sizeof(*p));

			if (!p)
				return NULL;
			m->pending = p;
			m->cap = cap;
		}
	}
	ev = &m->pending[m->head + m->npending++];
	memset(ev, 0, sizeof(*ev));
	clock_gettime(CLOCK_REALTIME, &ev->time);
	return ev;
}

static void announce(struct ibve_monitor *m, const struct slot *s, int code)
{
	struct ibve_event *ev = push(m);

	if (ev)
		ibve_hp_event_device(ev, s->name, s->guid, s->chardev, code);
}

static bool watched(const struct ibve_monitor *m, const char *name)
{
	if (m->all)
		return true;
	for (size_t i = 0; i < m->nwatch; i++)
		if (strcmp(m->watch[i], name) == 0)
			return true;
	return false;
}

static struct slot *new_slot(struct ibve_monitor *m, size_t *idx)
{
	size_t i;

	for (i = 0; i < m->nslots; i++)
		if (!m->slots[i].used)
			break;
	if (i == m->nslots) {
		struct slot *v =
			realloc(m->slots, (m->nslots + 1) * sizeof(*v));

		if (!v)
			return NULL;
		m->slots = v;
		m->nslots++;
	}
	memset(&m->slots[i], 0, sizeof(m->slots[i]));
	*idx = i;
	return &m->slots[i];
}

static int watch_context(struct ibve_monitor *m, size_t i)
{
	struct slot *s = &m->slots[i];
	struct epoll_event e = { .events = EPOLLIN,
				 .data.u64 = EP_DATA(TAG_DEVICE, i) };
	int fl = fcntl(s->ctx->async_fd, F_GETFL);

	if (fl < 0 || fcntl(s->ctx->async_fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    epoll_ctl(m->epfd, EPOLL_CTL_ADD, s->ctx->async_fd, &e))
		return -errno;
	if (s->dx) {
		e.data.u64 = EP_DATA(TAG_MLX5, i);
		if (epoll_ctl(m->epfd, EPOLL_CTL_ADD, ibve_mlx5_fd(s->dx), &e))
			return -errno;
	}
	return 0;
}

/* Stop polling slot S and close what it holds (not a borrowed context). */
static void release(struct ibve_monitor *m, struct slot *s)
{
	if (s->dx) {
		epoll_ctl(m->epfd, EPOLL_CTL_DEL, ibve_mlx5_fd(s->dx), NULL);
		ibve_mlx5_close(s->dx);
		s->dx = NULL;
	}
	if (s->ctx) {
		epoll_ctl(m->epfd, EPOLL_CTL_DEL, s->ctx->async_fd, NULL);
		if (!s->borrowed)
			ibv_close_device(s->ctx);
		s->ctx = NULL;
	}
}

/* Open DEV into slot S (new or dormant). */
static int open_into(struct ibve_monitor *m, struct slot *s, size_t i,
		     struct ibv_device *dev)
{
	int r;

	s->ctx = m->flags & IBVE_MONITOR_MLX5 ? ibve_mlx5_open(dev, &s->dx, m)
					      : ibv_open_device(dev);
	if (!s->ctx)
		return errno ? -errno : -EIO;
	s->used = true;
	ibve_strcpy(s->name, ibv_get_device_name(dev), sizeof(s->name));
	ibve_strcpy(s->chardev, dev->dev_name, sizeof(s->chardev));
	s->guid = be64toh(ibv_get_device_guid(dev));
	r = watch_context(m, i);
	if (r) {
		release(m, s);
		s->used = false;
	}
	return r;
}

/* Stop watching slot I, closing its context at once; CODE: announce. */
static void close_slot(struct ibve_monitor *m, size_t i, int code)
{
	struct slot *s = &m->slots[i];

	release(m, s);
	if (code >= 0)
		announce(m, s, code);
	s->used = false;
}

static struct slot *find_slot(struct ibve_monitor *m, const char *name,
			      size_t *idx)
{
	for (size_t i = 0; i < m->nslots; i++)
		if (m->slots[i].used && strcmp(m->slots[i].name, name) == 0) {
			*idx = i;
			return &m->slots[i];
		}
	return NULL;
}

/*
 * Bring the open devices in line with what exists: open watched devices
 * that are new (or came back), close those that are gone.
 */
static int rescan(struct ibve_monitor *m, bool announce_changes)
{
	struct ibv_device **list;
	int n;

	list = ibv_get_device_list(&n);
	if (!list)
		return errno ? -errno : -ENOSYS;

	for (size_t i = 0; i < m->nslots; i++) {
		struct slot *s = &m->slots[i];
		bool present = false;

		if (!s->used || s->borrowed)
			continue;
		for (int k = 0; k < n && !present; k++)
			present = strcmp(ibv_get_device_name(list[k]),
					 s->name) == 0 &&
				  strcmp(list[k]->dev_name, s->chardev) == 0;
		if (!present)
			close_slot(m, i,
				   announce_changes
					   ? IBVE_HOTPLUG_DEVICE_REMOVED
					   : -1);
	}
	for (int k = 0; k < n; k++) {
		const char *name = ibv_get_device_name(list[k]);
		struct slot *s;
		size_t i;

		if (!watched(m, name))
			continue;
		s = find_slot(m, name, &i);
		if (s && s->ctx)
			continue;
		/* Closed after DEVICE_FATAL: wait for a new instance. */
		if (s && strcmp(s->chardev, list[k]->dev_name) == 0)
			continue;
		if (!s)
			s = new_slot(m, &i);
		if (!s)
			continue;
		if (open_into(m, s, i, list[k]) == 0 && announce_changes)
			announce(m, s, IBVE_HOTPLUG_DEVICE_ADDED);
	}
	/* Arrivals now listed are no longer awaited. */
	for (size_t a = 0; a < m->nawait;) {
		const struct await *w = &m->await[a];
		bool listed = false;

		for (int k = 0; k < n && !listed; k++)
			listed = w->chardev[0]
					 ? strcmp(list[k]->dev_name,
						  w->chardev) == 0
					 : strcmp(ibv_get_device_name(list[k]),
						  w->device) == 0;
		if (listed)
			m->await[a] = m->await[--m->nawait];
		else
			a++;
	}
	ibv_free_device_list(list);
	if (m->hp)
		ibve_hotplug_refresh(m->hp);
	return 0;
}

/* Arm the retry timer for try number m->tries (0: 50 ms). */
static void arm_retry(struct ibve_monitor *m)
{
	long ms = 50L << m->tries;
	struct itimerspec its = { .it_value = { ms / 1000,
						(ms % 1000) * 1000000 } };

	timerfd_settime(m->retry_fd, 0, &its, NULL);
}

/* An arrival was announced: look now, and again later if not listed. */
static void arrived(struct ibve_monitor *m, const struct ibve_hp_msg *h)
{
	if (m->nawait < AWAIT_MAX && (h->chardev[0] || h->device[0])) {
		struct await *w = &m->await[m->nawait++];

		ibve_strcpy(w->chardev, h->chardev, sizeof(w->chardev));
		ibve_strcpy(w->device, h->device, sizeof(w->device));
	}
	rescan(m, true);
	if (m->nawait) {
		m->tries = 0;
		arm_retry(m);
	}
}

static void retry(struct ibve_monitor *m)
{
	uint64_t ticks;

	if (read(m->retry_fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return;
	rescan(m, true);
	if (!m->nawait)
		return;
	if (++m->tries < AWAIT_TRIES) {
		arm_retry(m);
		return;
	}
	for (size_t a = 0; a < m->nawait; a++)
		ibve_monitor_add_note(
			m, "%s appeared but libibverbs did not list it",
			m->await[a].chardev[0] ? m->await[a].chardev
					       : m->await[a].device);
	m->nawait = 0;
}

IBVE_EXPORT int ibve_monitor_add_device(struct ibve_monitor *m,
					const char *name)
{
	struct ibv_device **list;
	char(*w)[IBVE_NAME_MAX];
	int n, r = -ENODEV;

	if (strlen(name) >= IBVE_NAME_MAX)
		return -ENODEV;
	list = ibv_get_device_list(&n);
	if (!list)
		return errno ? -errno : -ENOSYS;
	for (int k = 0; k < n; k++) {
		struct slot *s;
		size_t i;

		if (strcmp(ibv_get_device_name(list[k]), name) != 0)
			continue;
		if (find_slot(m, name, &i)) {
			r = 0;
			break;
		}
		s = new_slot(m, &i);
		r = s ? open_into(m, s, i, list[k]) : -ENOMEM;
		break;
	}
	ibv_free_device_list(list);
	if (r)
		return r;
	w = realloc(m->watch, (m->nwatch + 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	m->watch = w;
	ibve_strcpy(m->watch[m->nwatch++], name, IBVE_NAME_MAX);
	if (m->hp)
		ibve_hotplug_refresh(m->hp);
	return 0;
}

IBVE_EXPORT int ibve_monitor_add_all(struct ibve_monitor *m)
{
	m->all = true;
	return rescan(m, false);
}

IBVE_EXPORT int ibve_monitor_add_context(struct ibve_monitor *m,
					 struct ibv_context *ctx,
					 const char *name)
{
	struct slot *s;
	size_t i;
	int r;

	s = new_slot(m, &i);
	if (!s)
		return -ENOMEM;
	s->used = true;
	s->borrowed = true;
	s->ctx = ctx;
	ibve_strcpy(s->name, name, sizeof(s->name));
	ibve_strcpy(s->chardev, ctx->device->dev_name, sizeof(s->chardev));
	s->guid = be64toh(ibv_get_device_guid(ctx->device));
	r = watch_context(m, i);
	if (r) {
		s->used = false;
		s->ctx = NULL;
	}
	return r;
}

/* Events after which the SM may have forgotten our subscriptions. */
static bool sm_may_forget(enum ibv_event_type t)
{
	return t == IBV_EVENT_SM_CHANGE || t == IBV_EVENT_CLIENT_REREGISTER ||
	       t == IBV_EVENT_LID_CHANGE || t == IBV_EVENT_PORT_ACTIVE;
}

/* Read, copy and acknowledge events of slot I into EVS; returns count. */
static size_t read_device(struct ibve_monitor *m, size_t i,
			  struct ibve_event *evs, size_t max)
{
	struct slot *s = &m->slots[i];
	size_t n = 0;
	bool fatal = false;

	while (n < max && s->ctx) {
		struct ibv_async_event ae;

		if (ibv_get_async_event(s->ctx, &ae)) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			/* EIO and the like: the device was taken away. */
			close_slot(m, i, IBVE_HOTPLUG_DEVICE_REMOVED);
			break;
		}
		ibve_event_from_verbs(&evs[n], &ae, s->name, s->guid);
		ibv_ack_async_event(&ae);
		if (m->sm && sm_may_forget(ae.event_type))
			ibve_sm_resubscribe(m->sm, s->name, evs[n].port);
		if (evs[n].desc && evs[n].cls == IBVE_CLASS_DEVICE)
			fatal = true; /* DEVICE_FATAL: end of this stream */
		n++;
		if (fatal)
			break;
	}
	if (fatal && !s->borrowed)
		release(m, s); /* a later rescan or uevent brings it back */
	return n;
}

static size_t read_mlx5(struct ibve_monitor *m, size_t i,
			struct ibve_event *evs, size_t max)
{
	struct slot *s = &m->slots[i];
	bool gone;
	size_t n;

	if (!s->dx)
		return 0;
	n = ibve_mlx5_read(s->dx, s->name, s->guid, evs, max, &gone);
	if (gone)
		close_slot(m, i, IBVE_HOTPLUG_DEVICE_REMOVED);
	return n;
}

static void netdev_event(struct ibve_monitor *m, const struct ibve_hp_msg *h)
{
	char ifname[IF_NAMESIZE] = "";
	struct ibve_event *ev;
	size_t i;
	struct slot *s;

	if (!h->device[0] || !watched(m, h->device))
		return;
	ev = push(m);
	if (!ev)
		return;
	s = find_slot(m, h->device, &i);
	if (h->ifindex && !if_indextoname(h->ifindex, ifname))
		ifname[0] = '\0';
	ibve_hp_event_netdev(ev, h->device, s ? s->guid : 0, h->port,
			     h->ifindex, ifname,
			     h->kind == IBVE_HP_NETDEV_ATTACH);
}

static void handle_hotplug(struct ibve_monitor *m, int fd)
{
	struct ibve_hp_msg msgs[16];
	size_t n;

	while ((n = ibve_hotplug_read(m->hp, fd, msgs, ARRAY_SIZE(msgs))) > 0) {
		for (size_t k = 0; k < n; k++) {
			const struct ibve_hp_msg *h = &msgs[k];

			switch (h->kind) {
			case IBVE_HP_ADDED:
				arrived(m, h);
				break;
			case IBVE_HP_RESCAN:
				rescan(m, true);
				break;
			case IBVE_HP_REMOVED:
				for (size_t i = 0; i < m->nslots; i++) {
					struct slot *s = &m->slots[i];

					if (!s->used)
						continue;
					if ((h->chardev[0] &&
					     strcmp(s->chardev, h->chardev) ==
						     0) ||
					    (h->device[0] && s->ctx &&
					     strcmp(s->name, h->device) == 0))
						close_slot(
							m, i,
							IBVE_HOTPLUG_DEVICE_REMOVED);
				}
				break;
			case IBVE_HP_NETDEV_ATTACH:
			case IBVE_HP_NETDEV_DETACH:
				netdev_event(m, h);
				break;
			}
		}
		if (n < ARRAY_SIZE(msgs))
			break;
	}
}

static size_t take_pending(struct ibve_monitor *m, struct ibve_event *evs,
			   size_t max)
{
	size_t n = m->npending < max ? m->npending : max;

	if (!n)
		return 0; /* m->pending may not exist yet */
	memcpy(evs, m->pending + m->head, n * sizeof(*evs));
	m->head += n;
	m->npending -= n;
	if (!m->npending)
		m->head = 0;
	return n;
}

/*
 * The slot of the one device that is all M watches (no hot-plug, no
 * mlx5 channel), which can be read without asking epoll which is ready:
 * a system call less per wake-up, what the storm benchmark measures.
 */
static bool only_device(const struct ibve_monitor *m, size_t *idx)
{
	bool found = false;

	if (m->hp || m->sm)
		return false;
	for (size_t i = 0; i < m->nslots; i++) {
		const struct slot *s = &m->slots[i];

		if (!s->used || !s->ctx)
			continue;
		if (s->dx || found)
			return false;
		found = true;
		*idx = i;
	}
	return found;
}

IBVE_EXPORT int ibve_monitor_read(struct ibve_monitor *m,
				  struct ibve_event *evs, size_t max)
{
	struct epoll_event ready[16];
	size_t n, only;
	int nr;

	n = take_pending(m, evs, max);
	if (n == max)
		return (int)n;
	if (only_device(m, &only)) {
		n += read_device(m, only, evs + n, max - n);
		return (int)(n + take_pending(m, evs + n, max - n));
	}
	nr = epoll_wait(m->epfd, ready, ARRAY_SIZE(ready), 0);
	if (nr < 0)
		return errno == EINTR ? (int)n : -errno;
	for (int k = 0; k < nr && n < max; k++) {
		uint64_t d = ready[k].data.u64;
		size_t i = (uint32_t)d;

		switch (d >> 32) {
		case TAG_DEVICE:
			if (i < m->nslots && m->slots[i].used)
				n += read_device(m, i, evs + n, max - n);
			break;
		case TAG_MLX5:
			if (i < m->nslots && m->slots[i].used)
				n += read_mlx5(m, i, evs + n, max - n);
			break;
		case TAG_UEVENT:
			handle_hotplug(m, ibve_hotplug_uevent_fd(m->hp));
			break;
		case TAG_NETLINK:
			handle_hotplug(m, ibve_hotplug_netlink_fd(m->hp));
			break;
		case TAG_RETRY:
			retry(m);
			break;
		case TAG_SM:
			n += ibve_sm_read(m->sm, evs + n, max - n);
			break;
		case TAG_SM_TIMER:
			ibve_sm_tick(m->sm);
			break;
		}
		n += take_pending(m, evs + n, max - n);
	}
	return (int)n;
}
