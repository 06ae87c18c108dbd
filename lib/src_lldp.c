// SPDX-License-Identifier: MIT
/*
 * The LLDP peers of RoCE ports: a source of no records of its own that
 * asks lldpd (lldp.c) the neighbour of each RoCE port's netdev and adds it
 * to the port events of that port (annotate()), as last looked up.
 *
 * A lookup is a timer's tick in the pipeline's poll loop, never inline
 * with a record: the first right after the pipeline starts (the RoCE
 * ports are listed then, after the "watching" line), one after a
 * PORT_ACTIVE of one of its ports (the record goes out first),
 * and one every LOOKUP_S, since lldpd learns neighbours when they speak,
 * not when a link comes up (and may start later). (liblldpctl's change notifications would need
 * the connection's I/O done here, byte by byte; a lookup is one short
 * exchange on a local socket.) A peer that changed is said in a note; so
 * is, once, that lldpd's socket refuses (lldpd died). Without liblldpctl,
 * or without lldpd's socket (never started, or stopped), it says nothing:
 * every RoCE port's peer stays unknown, as before.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "lldp.h"
#include "ports.h"
#include "source.h"

#define LOOKUP_S 30
/* After a start or PORT_ACTIVE, while a port has no neighbour yet: every
 * second, this many times (lldpd hears one within its tx interval). */
#define SOON_TRIES 10

struct lldp_port {
	char device[IBVE_NAME_MAX];
	uint32_t port;
	char netdev[IBVE_IFNAME_MAX];
	struct ibve_peer peer, known;
};

struct lldp {
	struct ibve_host h;
	struct ibve_names names;
	int timer_fd;
	bool said;   /* that lldpd cannot be asked, since the last answer */
	bool listed; /* the RoCE ports found (at the first tick) */
	unsigned int soon; /* lookups left a second apart */
	size_t nports;
	struct lldp_port *ports;
};

static int create(void **out, const struct ibve_source_opts *o,
		  const struct ibve_host *h)
{
	struct lldp *l = calloc(1, sizeof(*l));

	*out = l;
	if (!l)
		return ibve_error(ENOMEM, "out of memory");
	l->h = *h;
	l->timer_fd = -1;
	return ibve_names_copy(&l->names, o);
}

/* The next lookup now, then every second a few times (SOON: a port just
 * came up), or every LOOKUP_S. */
static void arm(struct lldp *l, bool soon)
{
	struct itimerspec its = { .it_value.tv_sec = soon ? 0 : LOOKUP_S,
				  .it_value.tv_nsec = soon,
				  .it_interval.tv_sec = soon ? 1 : LOOKUP_S };

	l->soon = soon ? SOON_TRIES : 0;
	timerfd_settime(l->timer_fd, 0, &its, NULL);
}

static bool want(const char *name, void *arg)
{
	struct lldp *l = arg;

	return ibve_names_want(&l->names, &l->h, name);
}

/* The RoCE ports of the devices present now; none is no failure. */
static int list_ports(struct lldp *l)
{
	struct ibve_device_info *list = NULL;
	int n = ibve_device_list_select(&list, want, l);
	size_t k = 0;

	for (int d = 0; d < n; d++) /* room for all, the RoCE ones kept */
		k += list[d].port_count;
	if (k && !(l->ports = calloc(k, sizeof(*l->ports)))) {
		ibve_device_list_free(list, n > 0 ? (size_t)n : 0);
		return ibve_error(ENOMEM, "out of memory");
	}
	for (int d = 0; d < n; d++)
		for (size_t p = 0; p < list[d].port_count; p++) {
			const struct ibve_port_info *pi = &list[d].ports[p];
			struct lldp_port *lp = &l->ports[l->nports];

			if (pi->link_layer != IBV_LINK_LAYER_ETHERNET ||
			    !pi->netdev[0])
				continue;
			ibve_strcpy(lp->device, list[d].name,
				    sizeof(lp->device));
			ibve_strcpy(lp->netdev, pi->netdev, sizeof(lp->netdev));
			lp->port = pi->num;
			lp->peer.kind = lp->known.kind = IBVE_PEER_LLDP;
			l->nports++;
		}
	/* the list is allocated even when it holds no device */
	ibve_device_list_free(list, n > 0 ? (size_t)n : 0);
	return 0;
}

/*
 * A timer whose first tick is now: the ports are listed then, after the
 * "watching" line (listing opens every device), not here.
 */
static int start(void *arg)
{
	struct lldp *l = arg;

	l->timer_fd =
		timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l->timer_fd < 0)
		return ibve_error(errno, "LLDP peers: timerfd");
	arm(l, true);
	return l->h.watch(l->h.ctx, l->timer_fd, l, 0);
}

/* No more lookups: no RoCE port, or no liblldpctl. */
static void stop_timer(struct lldp *l)
{
	struct itimerspec off = { 0 };

	l->h.unwatch(l->h.ctx, l->timer_fd);
	timerfd_settime(l->timer_fd, 0, &off, NULL);
	l->soon = 0;
}

static void lookup(struct lldp *l)
{
	const char **names = calloc(l->nports, sizeof(*names));
	struct ibve_peer *next = calloc(l->nports, sizeof(*next));
	int r = names && next ? 0 : -ENOMEM;
	bool all = true; /* every port's neighbour known */

	for (size_t i = 0; !r && i < l->nports; i++)
		names[i] = l->ports[i].netdev;
	if (!r)
		r = ibve_lldp_lookup(names, next, l->nports);
	if (r == -ELIBACC || r == -ENOTSUP) {
		/* no liblldpctl: as before it, peers unknown and unsaid */
		stop_timer(l);
	} else if (r && r != -ENOENT && !l->said) {
		l->said = true;
		ibve_host_note(&l->h, IBVE_NOTE,
			       "peers of RoCE ports are unknown: %s",
			       ibve_errmsg());
	}
	for (size_t i = 0; !r && i < l->nports; i++) {
		struct lldp_port *p = &l->ports[i];
		char was[160], now[160];

		l->said = false;
		all &= next[i].state == IBVE_PEER_KNOWN;
		ibve_peer_format(&p->known, was, sizeof(was));
		if (ibve_peer_take(&p->known, &p->peer, &next[i])) {
			ibve_peer_format(&p->peer, now, sizeof(now));
			ibve_host_note(&l->h, IBVE_NOTE,
				       "%s port %u: peer %s, was %s", p->device,
				       p->port, now, was);
		}
	}
	/* the second-apart lookups end once all are known, or at their count */
	if (l->soon && (r || all || !--l->soon))
		arm(l, false);
	free(names);
	free(next);
}

static bool ready(void *arg, uint32_t cookie)
{
	struct lldp *l = arg;
	uint64_t ticks;

	(void)cookie;
	if (read(l->timer_fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return false;
	if (!l->listed) {
		int r = list_ports(l);

		l->listed = true;
		if (r || !l->nports) {
			if (r) /* its records go on without peers */
				ibve_host_note(
					&l->h, IBVE_NOTE,
					"peers of RoCE ports are unknown: %s",
					ibve_errmsg());
			stop_timer(l);
			return false;
		}
	}
	lookup(l);
	return false;
}

/*
 * The peer a record carries: the last known. lldpd forgets a neighbour
 * when the link goes down, so a lookup that found none since says nothing
 * of the cable (none only before any was known).
 */
static const struct ibve_peer *shown(const struct lldp_port *p)
{
	return p->peer.state == IBVE_PEER_KNOWN ||
			       p->known.state != IBVE_PEER_KNOWN
		       ? &p->peer
		       : &p->known;
}

/*
 * A port event of one of its ports carries its peer (shown()); after a
 * PORT_ACTIVE the next lookup is now, once the record went out.
 * (It observes no record: that would keep the kernel's prefilter off.)
 */
static void annotate(void *arg, struct ibve_event *ev)
{
	struct lldp *l = arg;

	if (ev->source != IBVE_SOURCE_VERBS || ev->cls != IBVE_CLASS_PORT ||
	    !ev->port || (ev->fields & (IBVE_FIELD_PEER | IBVE_FIELD_RATES)))
		return;
	for (size_t i = 0; i < l->nports; i++)
		if (l->ports[i].port == ev->port &&
		    strcmp(l->ports[i].device, ev->device) == 0) {
			const struct ibve_peer *peer = shown(&l->ports[i]);

			/* nothing known (no lldpd): the record as before */
			if (peer->state != IBVE_PEER_UNKNOWN) {
				ev->verbs.peer = *peer;
				ev->fields |= IBVE_FIELD_PEER;
			}
			if (ev->desc && strcmp(ev->name, "PORT_ACTIVE") == 0)
				arm(l, true);
			return;
		}
}

static void destroy(void *arg)
{
	struct lldp *l = arg;

	if (!l)
		return;
	if (l->timer_fd >= 0)
		close(l->timer_fd);
	free(l->ports);
	free(l->names.v);
	free(l);
}

/* Its records would be verbs', were there any: it adds to theirs. */
const struct ibve_source_ops ibve_source_lldp = {
	.name = "lldp",
	.records = IBVE_SOURCE_VERBS,
	.order = 30, /* after the devices' */
	.create = create,
	.start = start,
	.ready = ready,
	.annotate = annotate,
	.destroy = destroy,
};
