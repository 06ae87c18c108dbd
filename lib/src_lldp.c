// SPDX-License-Identifier: MIT
/*
 * The LLDP peers of RoCE ports: a source of no records of its own that
 * asks lldpd the neighbour of each RoCE port's netdev and adds it to the
 * port events of that port (annotate()), as last looked up; the same
 * lookup serves the device listing (ibve_device_list_lldp()).
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

#ifdef IBVE_HAVE_LLDPCTL
#include "dl_lldpctl.h"
#endif
#include "host.h"
#include "ports.h"
#include "source.h"

#ifdef IBVE_HAVE_LLDPCTL
static void none(struct ibve_peer *p, const char *fmt, const char *netdev)
{
	memset(p, 0, sizeof(*p));
	p->kind = IBVE_PEER_LLDP;
	p->state = IBVE_PEER_NONE;
	snprintf(p->reason, sizeof(p->reason), fmt, netdev);
}

static void str(char *dst, size_t size, lldpctl_atom_t *a, lldpctl_key_t key)
{
	const char *s = a ? lldpctl_atom_get_str(a, key) : NULL;

	/* a neighbour's text is anyone's bytes: written as it reads back */
	ibve_utf8_copy(dst, s ? s : "", size);
}

/* P := the first neighbour of local port PORT (an interface's). */
static void neighbour(struct ibve_peer *p, lldpctl_atom_t *port,
		      const char *netdev)
{
	lldpctl_atom_t *list = lldpctl_atom_get(port, lldpctl_k_port_neighbors);
	lldpctl_atom_iter_t *it = list ? lldpctl_atom_iter(list) : NULL;
	lldpctl_atom_t *n = it ? lldpctl_atom_iter_value(list, it) : NULL;
	lldpctl_atom_t *ch = n ? lldpctl_atom_get(n, lldpctl_k_port_chassis)
			       : NULL;

	none(p, n ? "" : "no LLDP neighbour on %s", netdev);
	if (n) { /* known: no reason, its strings */
		p->state = IBVE_PEER_KNOWN;
		str(p->chassis, sizeof(p->chassis), ch, lldpctl_k_chassis_id);
		str(p->name, sizeof(p->name), ch, lldpctl_k_chassis_name);
		str(p->port_id, sizeof(p->port_id), n, lldpctl_k_port_id);
		str(p->port_desc, sizeof(p->port_desc), n,
		    lldpctl_k_port_descr);
	}
	lldpctl_atom_dec_ref(ch);
	lldpctl_atom_dec_ref(n);
	lldpctl_atom_dec_ref(list);
}

/* liblldpctl's own log (stderr by default): what fails is said once, by us */
static void quiet(int severity, const char *msg)
{
	(void)severity;
	(void)msg;
}

/*
 * PEERS[i] := the LLDP neighbour of the netdev NETDEVS[i] (N of them), as
 * lldpd learnt it, in one exchange over its control socket (liblldpctl's
 * own synchronous I/O on a local socket lldpd answers from memory): the
 * first neighbour's chassis id, port id, system name and port description,
 * the strings lldpcli shows; or none and why (lldpd does not watch it, no
 * neighbour). 0; else -errno with why in ibve_errmsg() (-ELIBACC no
 * liblldpctl, -ENOENT lldpd not started: no socket, -ECONNREFUSED its
 * socket refuses), PEERS untouched.
 */
static int lldpd_lookup(const char *const *netdevs, struct ibve_peer *peers,
			size_t n)
{
	int r = ibve_dl_load(&ibve_lldpctl_dl);
	const char *path;
	lldpctl_conn_t *c;
	lldpctl_atom_t *ifs, *i;
	lldpctl_atom_iter_t *it;

	if (r)
		return r;
	lldpctl_log_callback(quiet);
	path = lldpctl_get_default_transport();
	if (access(path, F_OK) && errno == ENOENT)
		return ibve_error(ENOENT, "lldpd at %s: not started", path);
	if (!(c = lldpctl_new_name(path, NULL, NULL, NULL)))
		return ibve_error(ENOMEM, "lldpd at %s", path);
	if (!(ifs = lldpctl_get_interfaces(c))) {
		r = ibve_error(ECONNREFUSED, "lldpd at %s: %s", path,
			       lldpctl_strerror(lldpctl_last_error(c)));
		lldpctl_release(c);
		return r;
	}
	for (size_t k = 0; k < n; k++)
		none(&peers[k], "lldpd does not watch %s", netdevs[k]);
	for (it = lldpctl_atom_iter(ifs);
	     it && (i = lldpctl_atom_iter_value(ifs, it));
	     it = lldpctl_atom_iter_next(ifs, it)) {
		const char *name =
			lldpctl_atom_get_str(i, lldpctl_k_interface_name);
		lldpctl_atom_t *port = NULL;

		for (size_t k = 0; name && k < n; k++) {
			if (strcmp(name, netdevs[k]) != 0)
				continue;
			if (!port)
				port = lldpctl_get_port(i);
			if (port)
				neighbour(&peers[k], port, netdevs[k]);
		}
		lldpctl_atom_dec_ref(port);
		lldpctl_atom_dec_ref(i);
	}
	lldpctl_atom_dec_ref(ifs);
	lldpctl_release(c);
	return 0;
}
#else
static int lldpd_lookup(const char *const *netdevs, struct ibve_peer *peers,
			size_t n)
{
	(void)netdevs;
	(void)peers;
	(void)n;
	return ibve_error(ENOTSUP, "built without liblldpctl");
}
#endif

/* A port with a netdev of its own, whose far end LLDP can say. */
static bool roce(const struct ibve_port_info *p)
{
	return p->link_layer == IBV_LINK_LAYER_ETHERNET && p->netdev[0];
}

IBVE_EXPORT int ibve_device_list_lldp(struct ibve_device_info *list,
				      size_t count)
{
	const char **names = NULL;
	struct ibve_peer *peers = NULL;
	size_t n = 0, k = 0;
	int r;

	for (size_t d = 0; d < count; d++)
		for (size_t p = 0; p < list[d].port_count; p++)
			n += roce(&list[d].ports[p]);
	if (!n)
		return 0;
	names = calloc(n, sizeof(*names));
	peers = calloc(n, sizeof(*peers));
	if (!names || !peers) {
		r = ibve_error(ENOMEM, "LLDP peers");
		goto out;
	}
	for (size_t d = 0; d < count; d++)
		for (size_t p = 0; p < list[d].port_count; p++)
			if (roce(&list[d].ports[p]))
				names[k++] = list[d].ports[p].netdev;
	if ((r = lldpd_lookup(names, peers, n)))
		goto out;
	k = 0;
	for (size_t d = 0; d < count; d++)
		for (size_t p = 0; p < list[d].port_count; p++)
			if (roce(&list[d].ports[p]))
				list[d].ports[p].peer = peers[k++];
out:
	free(names);
	free(peers);
	return r;
}

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

			if (!roce(pi))
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
		r = lldpd_lookup(names, next, l->nports);
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
