// SPDX-License-Identifier: MIT
/*
 * The "netdev" source: the link changes of the network devices of the
 * RoCE and iWARP ports of the devices the pipeline watches (the device
 * set), as rtnetlink tells them: set down or up (IFF_UP), and, up, the
 * carrier lost or back (IFF_LOWER_UP). One socket in the poll loop, on
 * RTMGRP_LINK, with a dump at start for each link's flags before: it wakes
 * only when a link of the host changes. A port's netdev is looked up
 * (sysfs, its default GID's) when its link changes, so that devices that
 * come later are covered. With CARRIER_LOST it asks ethtool's generic
 * netlink family at once for the firmware's reason (LINKSTATE_GET: the
 * driver fills it only while the carrier is down) and keeps the raw reply
 * in the record, which the same decoder reads live and on replay.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buf.h"
#include "devices.h"
#include "fields.h"
#include "netdev.h"
#include "source.h"
#include "sysfs.h"

#define REPLY_MAX IBVE_ND_REPLY_MAX /* of the reply kept: whole attributes */
#define ND(ev)	  ((struct ibve_nd_fields *)(ev)->area)

/* The first attribute TYPE of the N bytes at P, its length in *LEN. */
static const uint8_t *attr(const uint8_t *p, size_t n, uint16_t type,
			   size_t *len)
{
	struct nlattr a;

	for (size_t step; n >= NLA_HDRLEN; p += step, n -= step) {
		memcpy(&a, p, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > n)
			return NULL;
		if ((a.nla_type & NLA_TYPE_MASK) == type) {
			*len = a.nla_len - NLA_HDRLEN;
			return p + NLA_HDRLEN;
		}
		if ((step = (size_t)NLA_ALIGN(a.nla_len)) >= n)
			return NULL;
	}
	return NULL;
}

bool ibve_nd_link_next(const void *buf, size_t size, size_t *off,
		       struct ibve_nd_link *l)
{
	const size_t head = NLMSG_LENGTH(sizeof(struct ifinfomsg));

	while (*off < size && size - *off >= NLMSG_HDRLEN) {
		const struct nlmsghdr *h =
			(const void *)((const char *)buf + *off);
		const struct ifinfomsg *i = NLMSG_DATA(h);
		const char *name;
		size_t len = h->nlmsg_len, nlen;

		if (len < NLMSG_HDRLEN || len > size - *off)
			return false;
		*off += NLMSG_ALIGN(len);
		if ((h->nlmsg_type != RTM_NEWLINK &&
		     h->nlmsg_type != RTM_DELLINK) ||
		    len < head || i->ifi_index <= 0)
			continue;
		memset(l, 0, sizeof(*l));
		l->index = (uint32_t)i->ifi_index;
		l->flags = i->ifi_flags;
		l->gone = h->nlmsg_type == RTM_DELLINK;
		name = (const char *)attr(
			(const uint8_t *)h + NLMSG_ALIGN(head),
			len - NLMSG_ALIGN(head), IFLA_IFNAME, &nlen);
		if (name && memchr(name, '\0', nlen))
			ibve_strcpy(l->name, name, sizeof(l->name));
		return true;
	}
	return false;
}

int ibve_nd_change(uint32_t was, uint32_t now)
{
	if ((was ^ now) & IFF_UP)
		return now & IFF_UP ? IBVE_NETDEV_UP : IBVE_NETDEV_DOWN;
	if (!(now & IFF_UP) || !((was ^ now) & IFF_LOWER_UP))
		return -1;
	return now & IFF_LOWER_UP ? IBVE_NETDEV_CARRIER_UP
				  : IBVE_NETDEV_CARRIER_LOST;
}

bool ibve_nd_linkstate(const uint8_t *r, size_t n, int *state, int *sub)
{
	const uint8_t *v;
	size_t len;

	*state = *sub = -1;
	if (n < GENL_HDRLEN || r[0] != ETHTOOL_MSG_LINKSTATE_GET_REPLY)
		return false;
	v = attr(r + GENL_HDRLEN, n - GENL_HDRLEN,
		 ETHTOOL_A_LINKSTATE_EXT_STATE, &len);
	if (!v || !len)
		return true;
	*state = *v;
	v = attr(r + GENL_HDRLEN, n - GENL_HDRLEN,
		 ETHTOOL_A_LINKSTATE_EXT_SUBSTATE, &len);
	if (v && len)
		*sub = *v;
	return true;
}

void ibve_nd_record(struct ibve_event *ev, const char *device, uint64_t guid,
		    uint32_t port, const struct ibve_nd_link *l, int code,
		    const uint8_t *r, size_t n)
{
	struct ibve_nd_fields *f = ND(ev);
	size_t keep = GENL_HDRLEN;
	struct nlattr a;
	int st, su;

	ibve_strcpy(ev->device, device, sizeof(ev->device));
	ev->node_guid = guid;
	ev->port = port;
	ibve_event_set_code(ev, IBVE_SOURCE_NETDEV, code);
	/* a netdev's name is any bytes: written as it reads back */
	ibve_utf8_copy(ev->netdev, l->name, sizeof(ev->netdev));
	ev->netdev_index = l->index;
	f->ifflags = l->flags;
	ev->fields |= IBVE_FIELD_NETDEV | IBVE_FIELD_IFFLAGS;
	if (!ibve_nd_linkstate(r, n, &st, &su))
		return;
	/* the attributes that fit: those of today's kernels all do */
	while (n - keep >= NLA_HDRLEN) {
		size_t step;

		memcpy(&a, r + keep, sizeof(a));
		step = (size_t)NLA_ALIGN(a.nla_len);
		step = step < n - keep ? step : n - keep; /* its padding */
		if (a.nla_len < NLA_HDRLEN || a.nla_len > n - keep ||
		    keep + step > REPLY_MAX)
			break;
		keep += step;
	}
	memcpy(f->reply, r, keep);
	f->len = (uint32_t)keep;
	ev->fields |= IBVE_FIELD_LINKSTATE;
}

/* --- the firmware's reason: names ---------------------------------------- */

/*
 * enum ethtool_link_ext_state (linux/ethtool.h) by number, each with its
 * substates from 1 after it: the kernel's names, lower case, without their
 * prefixes.
 */
static const char *const reasons[] = {
	"autoneg no_partner_detected ack_not_received next_page_exchange_failed "
	"no_partner_detected_force_mode fec_mismatch_during_override no_hcd",
	"link_training_failure kr_frame_lock_not_acquired "
	"kr_link_inhibit_timeout kr_link_partner_did_not_set_receiver_ready "
	"remote_fault",
	"link_logical_mismatch pcs_did_not_acquire_block_lock "
	"pcs_did_not_acquire_am_lock pcs_did_not_get_align_status "
	"fc_fec_is_not_locked rs_fec_is_not_locked",
	"bad_signal_integrity large_number_of_physical_errors unsupported_rate "
	"serdes_reference_clock_lost serdes_alos",
	"no_cable",
	"cable_issue unsupported_cable cable_test_failure",
	"eeprom_issue",
	"calibration_failure",
	"power_budget_exceeded",
	"overheat",
	"module cmis_not_ready",
};

/* Word I of the words S into OUT; false: S has fewer. */
static bool word(const char *s, int i, char *out, size_t size)
{
	while (i-- > 0 && s)
		if ((s = strchr(s, ' ')))
			s++;
	if (s)
		snprintf(out, size, "%.*s", (int)strcspn(s, " "), s);
	return s;
}

/* The names of what EV's reply says into STATE and SUB; false: none. */
static bool reason(const struct ibve_event *ev, char state[32], char sub[48])
{
	const char *s;
	int st, su;

	if (!ibve_nd_linkstate(ND(ev)->reply, ND(ev)->len, &st, &su) || st < 0)
		return false;
	s = (size_t)st < ARRAY_SIZE(reasons) ? reasons[st] : NULL;
	if (!s)
		snprintf(state, 32, "unknown(%d)", st);
	else
		word(s, 0, state, 32);
	sub[0] = '\0';
	if (su >= 0 && !(s && su > 0 && word(s, su, sub, 48)))
		snprintf(sub, 48, "unknown(%d)", su);
	return true;
}

static void linkstate_json(struct ibve_json *j, const struct ibve_event *ev)
{
	const struct ibve_nd_fields *f = ND(ev);
	char hex[2 * REPLY_MAX + 1], state[32], sub[48];

	for (uint32_t i = 0; i < f->len && i < REPLY_MAX; i++)
		snprintf(hex + 2 * i, 3, "%02x", f->reply[i]);
	hex[2 * (f->len < REPLY_MAX ? f->len : REPLY_MAX)] = '\0';
	ibve_json_name(j, "linkstate", hex);
	if (!reason(ev, state, sub))
		return;
	ibve_json_name(j, "ext_state", state);
	if (sub[0])
		ibve_json_name(j, "ext_substate", sub);
}

static void linkstate_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	char state[32], sub[48];

	if (!reason(ev, state, sub))
		ibve_buf_puts(b, "no reason from the driver");
	else
		ibve_buf_printf(b, "firmware: %s%s%s", state, sub[0] ? "/" : "",
				sub);
}

/* The reply says what the firmware said: its names are not read back. */
static int linkstate_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
			   int key, char *err, size_t errlen)
{
	struct ibve_nd_fields *f = ND(ev);
	const char *s;
	size_t n;
	int st, sub, r = ibve_get_str(o, key, &s, err, errlen);

	if (r <= 0)
		return r;
	n = strlen(s) / 2;
	if (n > REPLY_MAX || ibve_hex_bytes(s, f->reply, n) ||
	    !ibve_nd_linkstate(f->reply, n, &st, &sub))
		FAIL("\"linkstate\" is not an ethtool LINKSTATE_GET reply of at "
		     "most %d bytes in hex",
		     REPLY_MAX);
	f->len = (uint32_t)n;
	ev->fields |= IBVE_FIELD_LINKSTATE;
	return 0;
}

/* --- the source ------------------------------------------------------------ */

struct link {
	uint32_t index, flags;
};

struct netdev {
	struct ibve_host h;
	struct ibve_devset *devices;
	int fd;	    /* rtnetlink: RTMGRP_LINK */
	int gen;    /* generic netlink, once a carrier was lost; -1 */
	int family; /* ethtool's; 0: not asked yet, -1: none */
	uint32_t seq;
	struct link *links; /* every link's flags as last told */
	size_t nlinks;
};

static int create(void **out, const struct ibve_source_opts *o,
		  const struct ibve_host *h)
{
	struct netdev *s = calloc(1, sizeof(*s));

	(void)o;
	*out = s;
	if (!s)
		return ibve_error(ENOMEM, "out of memory");
	s->h = *h;
	s->fd = s->gen = -1;
	return 0;
}

/* Every link's flags, answered on the socket as the changes are. */
static void dump(struct netdev *s)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = { .h = { .nlmsg_len = sizeof(req),
			 .nlmsg_type = RTM_GETLINK,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			 .nlmsg_seq = ++s->seq } };

	send(s->fd, &req, sizeof(req), 0);
}

static int start(void *arg)
{
	struct netdev *s = arg;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = RTMGRP_LINK };
	int size = 1 << 20;

	s->devices = s->h.devset(s->h.ctx);
	if (!s->devices) /* no ports to watch */
		return 0;
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       NETLINK_ROUTE);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return ibve_error(errno, "netdevs: rtnetlink: %s",
				  strerror(errno));
	/* a burst of other links' changes must not drop ours */
	setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	dump(s);
	return s->h.watch(s->h.ctx, s->fd, s, 0);
}

/*
 * Ask generic netlink: TYPE's command CMD with the attributes A (N bytes);
 * the reply's payload (from its genlmsghdr) into OUT (SIZE), its length or
 * -errno (the kernel's answer; no answer within a second).
 */
static int ask(struct netdev *s, uint16_t type, uint8_t cmd, const void *a,
	       size_t n, uint8_t *out, size_t size)
{
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
		uint8_t a[16];
	} req = { .h = { .nlmsg_len = (uint32_t)NLMSG_LENGTH(GENL_HDRLEN + n),
			 .nlmsg_type = type,
			 .nlmsg_flags = NLM_F_REQUEST,
			 .nlmsg_seq = ++s->seq },
		  .g = { .cmd = cmd, .version = 1 } };
	char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlmsghdr *h = (const void *)buf;
	ssize_t r;

	memcpy(req.a, a, n);
	if (send(s->gen, &req, req.h.nlmsg_len, 0) < 0)
		return -errno;
	do { /* a late answer to an earlier question is not this one's */
		if ((r = recv(s->gen, buf, sizeof(buf), 0)) < 0)
			return -errno;
		if (r < (ssize_t)NLMSG_HDRLEN || h->nlmsg_len < NLMSG_HDRLEN)
			return -EIO;
	} while (h->nlmsg_seq != s->seq);
	if (h->nlmsg_type == NLMSG_ERROR) { /* an acknowledgement: none */
		int e = 0;

		if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(e)))
			memcpy(&e, NLMSG_DATA(h), sizeof(e));
		return e < 0 ? e : -ENODATA;
	}
	/* a long one (the family's) cut to its first attributes */
	r = (h->nlmsg_len < (size_t)r ? (ssize_t)h->nlmsg_len : r) -
	    NLMSG_HDRLEN;
	r = (size_t)r < size ? r : (ssize_t)size;
	memcpy(out, NLMSG_DATA(h), (size_t)r);
	return (int)r;
}

/* An attribute (header and data) at P: its length, aligned. */
static size_t put(uint8_t *p, uint16_t type, const void *v, uint16_t len)
{
	struct nlattr a = { .nla_len = NLA_HDRLEN + len, .nla_type = type };

	memcpy(p, &a, sizeof(a));
	memcpy(p + NLA_HDRLEN, v, len);
	return NLA_ALIGN(a.nla_len);
}

/* The ethtool family's id, looked up once; -1: none. */
static int family(struct netdev *s)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 1 };
	uint8_t a[16], r[256];
	const uint8_t *id;
	uint16_t v;
	size_t len;
	int n;

	if (s->family)
		return s->family;
	s->family = -1;
	s->gen = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->gen < 0 || bind(s->gen, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	setsockopt(s->gen, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = ask(s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, a,
		put(a, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME,
		    sizeof(ETHTOOL_GENL_NAME)),
		r, sizeof(r));
	if (n > (int)GENL_HDRLEN &&
	    (id = attr(r + GENL_HDRLEN, (size_t)n - GENL_HDRLEN,
		       CTRL_ATTR_FAMILY_ID, &len)) &&
	    len >= sizeof(v)) {
		memcpy(&v, id, sizeof(v));
		s->family = v;
	}
	return s->family;
}

/* The LINKSTATE_GET reply for link INDEX into R: its length; 0 none. */
static size_t linkstate(struct netdev *s, uint32_t index, uint8_t *r,
			size_t size)
{
	uint8_t dev[8], a[16];
	int fam = family(s), n;

	if (fam < 0)
		return 0;
	n = ask(s, (uint16_t)fam, ETHTOOL_MSG_LINKSTATE_GET, a,
		put(a, ETHTOOL_A_LINKSTATE_HEADER | NLA_F_NESTED, dev,
		    (uint16_t)put(dev, ETHTOOL_A_HEADER_DEV_INDEX, &index,
				  sizeof(index))),
		r, size);
	return n > 0 ? (size_t)n : 0;
}

/* Link L changed with CODE: a record for each watched port it is the
 * netdev of (the firmware asked once). */
static void emit(struct netdev *s, const struct ibve_nd_link *l, int code)
{
	uint8_t r[512];
	size_t n = 0;
	bool asked = false;

	for (size_t i = 0; i < s->devices->nslots; i++) {
		const struct ibve_slot *d = s->devices->slots[i];

		for (uint32_t p = 1; d->used && d->ctx; p++) {
			char name[IBVE_IFNAME_MAX];
			struct ibve_event *ev;
			int has = ibve_sysfs_port_netdev(d->name, p, name,
							 sizeof(name));

			if (has < 0)
				break;
			if (!has || strcmp(name, l->name) != 0)
				continue;
			if (code == IBVE_NETDEV_CARRIER_LOST && !asked) {
				n = linkstate(s, l->index, r, sizeof(r));
				asked = true;
			}
			if ((ev = s->h.emit(s->h.ctx)))
				ibve_nd_record(ev, d->name, d->guid, p, l, code,
					       r, n);
		}
	}
}

/* Link L as rtnetlink says it now, against what it said before. */
static void link_is(struct netdev *s, const struct ibve_nd_link *l)
{
	struct link *k = NULL, *v;
	int code;

	for (size_t i = 0; i < s->nlinks && !k; i++)
		if (s->links[i].index == l->index)
			k = &s->links[i];
	if (l->gone) {
		if (k)
			*k = s->links[--s->nlinks];
		return;
	}
	if (!k) { /* first heard of: what it is now is its state */
		v = realloc(s->links, (s->nlinks + 1) * sizeof(*v));
		if (v) {
			s->links = v;
			v[s->nlinks++] = (struct link){ l->index, l->flags };
		}
		return;
	}
	code = ibve_nd_change(k->flags, l->flags);
	k->flags = l->flags;
	if (code >= 0)
		emit(s, l, code);
}

static bool ready(void *arg, uint32_t cookie)
{
	struct netdev *s = arg;
	char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct ibve_nd_link l;
	ssize_t n;

	(void)cookie;
	while (!s->h.full(s->h.ctx)) {
		n = recv(s->fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == ENOBUFS) { /* changes lost: ask again */
			dump(s);
			continue;
		}
		if (n <= 0)
			break;
		for (size_t off = 0;
		     ibve_nd_link_next(buf, (size_t)n, &off, &l);)
			link_is(s, &l);
	}
	return false;
}

static void destroy(void *arg)
{
	struct netdev *s = arg;

	if (s->fd >= 0)
		close(s->fd);
	if (s->gen >= 0)
		close(s->gen);
	free(s->links);
	free(s);
}

static const struct ibve_event_desc rows[] = {
	ROW(IBVE_NETDEV_DOWN, "NETDEV_DOWN", PORT, false, WARNING,
	    "d1aabd449c28402d9a331af847a2b700",
	    "the port's network device was set down (IFF_UP cleared)",
	    "Software on this host set the interface down (ip link set, a "
	    "network manager, a script): the link went down on purpose, not "
	    "through the hardware. Find who did it; ip link set DEV up brings "
	    "it back if it was not meant."),
	ROW(IBVE_NETDEV_UP, "NETDEV_UP", PORT, false, INFO,
	    "a0b077731db6441684bf4be21cc6dbb7",
	    "the port's network device was set up",
	    "Informational: the interface was set up again; the port follows "
	    "once its link is up."),
	ROW(IBVE_NETDEV_CARRIER_LOST, "CARRIER_LOST", PORT, false, WARNING,
	    "58f39c6dcb3244e6a92a03d7da868954",
	    "the port's network device lost its carrier, itself still up",
	    "The link went down while the interface stayed up: the cable, the "
	    "module or the far end (its port down, its host rebooted). Where "
	    "the driver says the firmware's reason (ext_state), it names "
	    "which; else look at the far end's port and the cable."),
	ROW(IBVE_NETDEV_CARRIER_UP, "CARRIER_UP", PORT, false, INFO,
	    "0fcb56cdc249411abd476e3b70ea8ac3",
	    "the port's network device has its carrier again",
	    "Informational: the link is back; the port follows once it is "
	    "active."),
};

static const struct ibve_fieldspec fields[] = {
	{ .keys = "ifflags",
	  .order = 92,
	  .flag = IBVE_FIELD_IFFLAGS,
	  .type = FT_U32,
	  .off = offsetof(struct ibve_event, area) +
		 offsetof(struct ibve_nd_fields, ifflags),
	  .size = 4 },
	{ .keys = "linkstate ext_state ext_substate",
	  .order = 94,
	  .flag = IBVE_FIELD_LINKSTATE,
	  .json = linkstate_json,
	  .text = linkstate_text,
	  .parse = linkstate_parse },
};

static const struct ibve_source_option options[] = {
	{ "netdev", 0,
	  "also the link changes of the ports' network devices\n(set down or up, carrier lost or back)",
	  0 },
};

const struct ibve_source_ops ibve_source_netdev = {
	.name = "netdev",
	.records = IBVE_SOURCE_NETDEV,
	ROWS(rows),
	FIELDS(fields),
	OPTIONS(options),
	.on_demand = true,
	.with = "autopsy",
	.rank = 1,
	.order = 30, /* after the devices' */
	.create = create,
	.start = start,
	.ready = ready,
	.destroy = destroy,
};
