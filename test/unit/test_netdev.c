// SPDX-License-Identifier: MIT
/*
 * The netdev source's decoders: rtnetlink's link messages, byte by byte as
 * rtnl_fill_ifinfo() makes them and as the 6.12 guest sent them
 * (test/fuzz/inputs/netdev.hex); the flags' changes; ethtool's
 * LINKSTATE_GET replies as linkstate_fill_reply() makes them (the
 * firmware's reasons: soft-RoCE has none, mlx5 here neither); and the
 * record made of them, in JSON, text and back. Run from the top of the
 * tree, as make check-unit does.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>

#include "buf.h"
#include "fields.h"
#include "netdev.h"
#include "source.h"
#include "tap.h"

/* Bytes as netlink lays them out: each piece 4-aligned, zero-padded. */
struct bytes {
	uint8_t b[1024] __attribute__((aligned(4)));
	size_t n;
};

static void add(struct bytes *x, const void *data, size_t len)
{
	memcpy(x->b + x->n, data, len);
	x->n += NLMSG_ALIGN(len);
}

static void attr(struct bytes *x, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len),
			    .nla_type = type };

	add(x, &a, sizeof(a));
	x->n -= NLA_HDRLEN; /* the data right after it */
	memcpy(x->b + x->n + NLA_HDRLEN, data, len);
	x->n += NLA_ALIGN(a.nla_len);
}

/* A message of TYPE whose payload is what adding did since AT. */
static void seal(struct bytes *x, size_t at, uint16_t type)
{
	struct nlmsghdr h = { .nlmsg_len = (uint32_t)(x->n - at),
			      .nlmsg_type = type };

	memcpy(x->b + at, &h, sizeof(h));
}

/* A link message as rtnl_fill_ifinfo() begins one: ifinfomsg, then
 * IFLA_IFNAME, IFLA_TXQLEN, IFLA_OPERSTATE, IFLA_LINKMODE, IFLA_MTU. */
static void link_msg(struct bytes *x, uint16_t type, int index, uint32_t flags,
		     const char *name)
{
	struct ifinfomsg i = { .ifi_family = AF_UNSPEC,
			       .ifi_type = 1,
			       .ifi_index = index,
			       .ifi_flags = flags };
	uint32_t txqlen = 1000, mtu = 1500;
	uint8_t oper = flags & IFF_LOWER_UP ? 6 : 2, mode = 0;
	size_t at = x->n;

	x->n += NLMSG_HDRLEN;
	add(x, &i, sizeof(i));
	if (name)
		attr(x, IFLA_IFNAME, name, (uint16_t)(strlen(name) + 1));
	attr(x, IFLA_TXQLEN, &txqlen, 4);
	attr(x, IFLA_OPERSTATE, &oper, 1);
	attr(x, IFLA_LINKMODE, &mode, 1);
	attr(x, IFLA_MTU, &mtu, 4);
	seal(x, at, type);
}

/* Another message: TYPE, LEN bytes of DATA. */
static void other_msg(struct bytes *x, uint16_t type, const void *data,
		      size_t len)
{
	size_t at = x->n;

	x->n += NLMSG_HDRLEN;
	add(x, data, len);
	seal(x, at, type);
}

/* Every link message of M's datagram, "INDEX FLAGS NAME[ gone]" a line. */
static const char *links(const void *buf, size_t size)
{
	static char out[512];
	struct ibve_buf b = { out, sizeof(out), 0 };
	struct ibve_nd_link l;

	for (size_t off = 0; ibve_nd_link_next(buf, size, &off, &l);)
		ibve_buf_printf(&b, "%u %#x %s%s\n", l.index, l.flags, l.name,
				l.gone ? " gone" : "");
	ibve_buf_end(&b);
	return out;
}

static void test_links(void)
{
	struct bytes x = { .n = 0 };
	char name[IBVE_IFNAME_MAX + 8];
	struct nlmsghdr bad = { .nlmsg_len = 8, .nlmsg_type = RTM_NEWLINK };

	link_msg(&x, RTM_NEWLINK, 4, IFF_UP | IFF_BROADCAST | IFF_MULTICAST,
		 "enp59s0f0np0");
	is_str(links(x.b, x.n), "4 0x1003 enp59s0f0np0\n",
	       "a link's index, flags and name");
	/* a dump's part: several, then its end; another kind between */
	link_msg(&x, RTM_NEWLINK, 2, 0x100c3, "dummy0");
	other_msg(&x, RTM_NEWADDR,
		  &(struct ifinfomsg){ .ifi_index = 9, .ifi_flags = 1 }, 16);
	link_msg(&x, RTM_DELLINK, 5, 0x1002, "capa");
	other_msg(&x, NLMSG_DONE, &(int){ 0 }, 4);
	is_str(links(x.b, x.n),
	       "4 0x1003 enp59s0f0np0\n2 0x100c3 dummy0\n5 0x1002 capa gone\n",
	       "each link of a datagram, the others skipped, a deletion said");
	/* cut in the middle of its last message: the whole ones only */
	is_str(links(x.b, x.n - 24),
	       "4 0x1003 enp59s0f0np0\n2 0x100c3 dummy0\n",
	       "a message past the bytes received is not read");
	x.n = 0;
	link_msg(&x, RTM_NEWLINK, 7, 1, NULL);
	link_msg(&x, RTM_NEWLINK, 0, 1, "lo");
	other_msg(&x, RTM_NEWLINK, &(int){ 8 }, 4); /* no room for ifinfomsg */
	is_str(links(x.b, x.n), "7 0x1 \n",
	       "no name: none; index 0, or no ifinfomsg: no link");
	x.n = 0;
	memset(name, 'x', sizeof(name));
	x.n += NLMSG_HDRLEN;
	add(&x, &(struct ifinfomsg){ .ifi_index = 3 }, 16);
	attr(&x, IFLA_IFNAME, name, sizeof(name)); /* no NUL in it */
	seal(&x, 0, RTM_NEWLINK);
	is_str(links(x.b, x.n), "3 0 \n", "a name without its end: none");
	is_str(links(&bad, sizeof(bad)), "",
	       "a length below a header's: the end");
}

/* The bytes of the hex line of test/fuzz/inputs/netdev.hex after COMMENT. */
static size_t captured(const char *comment, uint8_t *out, size_t size)
{
	FILE *f = fopen("test/fuzz/inputs/netdev.hex", "r");
	char line[8192];
	bool next = false;
	size_t n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (next) {
			n = strlen(line) / 2 - 1;
			if (n > size || ibve_hex_bytes(line + 2, out, n))
				n = 0;
			break;
		}
		next = line[0] == '#' && strcmp(line + 2, comment) == 0;
	}
	if (f)
		fclose(f);
	return n;
}

/* What the 6.12 guest sent, read as the source reads it, and the codes
 * its flags' changes make. */
static void test_captured(void)
{
	static const struct {
		const char *comment, *want;
		uint32_t was;
		int code;
	} c[] = {
		{ "capa: far end set down (carrier lost)", "4 0x1003 capa\n",
		  0x11043, IBVE_NETDEV_CARRIER_LOST },
		{ "capa: far end up (carrier back)", "4 0x11043 capa\n", 0x1003,
		  IBVE_NETDEV_CARRIER_UP },
		{ "dummy0 set down", "2 0x82 dummy0\n", 0x100c3,
		  IBVE_NETDEV_DOWN },
		{ "dummy0 set up", "2 0x100c3 dummy0\n", 0x82, IBVE_NETDEV_UP },
		{ "capa deleted: RTM_DELLINK", "4 0x1002 capa gone\n", 0x1002,
		  -1 },
	};
	uint8_t buf[4096] __attribute__((aligned(4)));

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		size_t n = captured(c[i].comment, buf, sizeof(buf));
		struct ibve_nd_link l = { 0 };
		size_t off = 0;

		ok(n > 0, "the capture has '%s'", c[i].comment);
		is_str(links(buf, n), c[i].want, "%s: read", c[i].comment);
		ibve_nd_link_next(buf, n, &off, &l);
		is_int(ibve_nd_change(c[i].was, l.flags), c[i].code,
		       "%s: its change", c[i].comment);
	}
}

static void test_change(void)
{
	const uint32_t up = IFF_UP | IFF_BROADCAST, ok_ = up | IFF_LOWER_UP;

	is_int(ibve_nd_change(ok_, IFF_BROADCAST), IBVE_NETDEV_DOWN,
	       "up and running, then down: NETDEV_DOWN (not CARRIER_LOST)");
	is_int(ibve_nd_change(up, IFF_BROADCAST), IBVE_NETDEV_DOWN,
	       "up without carrier, then down: NETDEV_DOWN");
	is_int(ibve_nd_change(IFF_BROADCAST, up), IBVE_NETDEV_UP,
	       "set up without carrier: NETDEV_UP");
	is_int(ibve_nd_change(IFF_BROADCAST, ok_), IBVE_NETDEV_UP,
	       "set up with its carrier at once: NETDEV_UP alone");
	is_int(ibve_nd_change(ok_, up), IBVE_NETDEV_CARRIER_LOST,
	       "up, the carrier lost: CARRIER_LOST");
	is_int(ibve_nd_change(up, ok_), IBVE_NETDEV_CARRIER_UP,
	       "up, the carrier back: CARRIER_UP");
	is_int(ibve_nd_change(ok_, ok_ | IFF_RUNNING | IFF_PROMISC), -1,
	       "other flags: nothing");
	is_int(ibve_nd_change(IFF_BROADCAST, IFF_BROADCAST | IFF_LOWER_UP), -1,
	       "down, whatever its carrier: nothing");
}

/* An ethtool LINKSTATE_GET reply as linkstate_fill_reply() makes one for
 * enp59s0f0np0 (index 4): the header, LINK, then STATE and SUB (-1: not
 * there); its length. */
static size_t reply(uint8_t *out, uint8_t cmd, int state, int sub)
{
	struct bytes hd = { .n = 0 }, x = { .n = 0 };
	struct genlmsghdr g = { .cmd = cmd, .version = 1 };
	uint32_t index = 4;
	uint8_t link = 0, st = (uint8_t)state, su = (uint8_t)sub;

	attr(&hd, ETHTOOL_A_HEADER_DEV_INDEX, &index, 4);
	attr(&hd, ETHTOOL_A_HEADER_DEV_NAME, "enp59s0f0np0", 13);
	add(&x, &g, sizeof(g));
	attr(&x, ETHTOOL_A_LINKSTATE_HEADER | NLA_F_NESTED, hd.b,
	     (uint16_t)hd.n);
	attr(&x, ETHTOOL_A_LINKSTATE_LINK, &link, 1);
	if (state >= 0)
		attr(&x, ETHTOOL_A_LINKSTATE_EXT_STATE, &st, 1);
	if (sub >= 0)
		attr(&x, ETHTOOL_A_LINKSTATE_EXT_SUBSTATE, &su, 1);
	memcpy(out, x.b, x.n);
	return x.n;
}

static void test_linkstate(void)
{
	uint8_t r[256];
	size_t n;
	int st = 0, su = 0;

	n = reply(r, ETHTOOL_MSG_LINKSTATE_GET_REPLY,
		  ETHTOOL_LINK_EXT_STATE_CABLE_ISSUE,
		  ETHTOOL_LINK_EXT_SUBSTATE_CI_UNSUPPORTED_CABLE);
	ok(ibve_nd_linkstate(r, n, &st, &su) &&
		   st == ETHTOOL_LINK_EXT_STATE_CABLE_ISSUE &&
		   su == ETHTOOL_LINK_EXT_SUBSTATE_CI_UNSUPPORTED_CABLE,
	   "a reply's state and substate");
	n = reply(r, ETHTOOL_MSG_LINKSTATE_GET_REPLY,
		  ETHTOOL_LINK_EXT_STATE_NO_CABLE, -1);
	ok(ibve_nd_linkstate(r, n, &st, &su) &&
		   st == ETHTOOL_LINK_EXT_STATE_NO_CABLE && su == -1,
	   "a state without a substate");
	n = reply(r, ETHTOOL_MSG_LINKSTATE_GET_REPLY, -1, 3);
	ok(ibve_nd_linkstate(r, n, &st, &su) && st == -1 && su == -1,
	   "no state (-ENODATA, -EOPNOTSUPP): none, whatever follows");
	ok(!ibve_nd_linkstate(r, 3, &st, &su),
	   "shorter than its genlmsghdr: no reply");
	n = reply(r, ETHTOOL_MSG_LINKMODES_GET_REPLY, 4, -1);
	ok(!ibve_nd_linkstate(r, n, &st, &su) && st == -1,
	   "another command's reply: no reply");
	n = reply(r, ETHTOOL_MSG_LINKSTATE_GET_REPLY, 9, -1);
	r[4 + 32 + 8] = 0xff; /* the LINK attribute's length: past the end */
	ok(ibve_nd_linkstate(r, n, &st, &su) && st == -1,
	   "an attribute longer than the reply ends the reading");
	/* what the guest answered for a veth and for dummy0 */
	n = captured("ethtool LINKSTATE_GET reply for capa, carrier lost", r,
		     sizeof(r));
	ok(n == 36 && ibve_nd_linkstate(r, n, &st, &su) && st == -1,
	   "the 6.12 guest's reply for a veth: LINK 0, no reason");
	n = captured("ethtool LINKSTATE_GET reply for dummy0, up", r,
		     sizeof(r));
	ok(n == 28 && ibve_nd_linkstate(r, n, &st, &su) && st == -1,
	   "for dummy0: its header alone");
}

/* EV written and read back: the same JSON. */
static void round_trip(const struct ibve_event *ev, char *json, size_t size)
{
	struct ibve_event back;
	char again[2048];

	ibve_event_format_json(ev, json, size);
	ok(ibve_event_parse_json(json, strlen(json), &back) == 0,
	   "its JSON reads back");
	ibve_event_format_json(&back, again, sizeof(again));
	is_str(again, json, "and writes the same");
}

static void test_record(void)
{
	struct ibve_nd_link l = { .index = 4, .flags = 0x1003 };
	struct ibve_event ev = { 0 }, back;
	const struct ibve_nd_fields *f = (const void *)ev.area;
	char json[2048], text[1024], line[1024];
	const char *hex;
	uint8_t r[256];
	size_t n;

	ibve_strcpy(l.name, "enp59s0f0np0", sizeof(l.name));
	n = reply(
		r, ETHTOOL_MSG_LINKSTATE_GET_REPLY,
		ETHTOOL_LINK_EXT_STATE_BAD_SIGNAL_INTEGRITY,
		ETHTOOL_LINK_EXT_SUBSTATE_BSI_LARGE_NUMBER_OF_PHYSICAL_ERRORS);
	ibve_nd_record(&ev, "mlx5_0", 0xb8cef60300a10b10ull, 1, &l,
		       IBVE_NETDEV_CARRIER_LOST, r, n);
	round_trip(&ev, json, sizeof(json));
	ok(strstr(json, "\"event\":\"CARRIER_LOST\",\"code\":2,\"class\":"
			"\"port\",\"severity\":\"warning\"") &&
		   strstr(json, "\"source\":\"netdev\",\"node_guid\":"
				"\"b8ce:f603:00a1:0b10\",\"netdev\":"
				"\"enp59s0f0np0\",\"netdev_index\":4,"
				"\"ifflags\":4099,\"linkstate\":\"06010000") &&
		   strstr(json,
			  "\",\"ext_state\":\"bad_signal_integrity\","
			  "\"ext_substate\":\"large_number_of_physical_errors\"}"),
	   "CARRIER_LOST's JSON: the port, its netdev, flags, the reply "
	   "and what it says: %.*s",
	   (int)strcspn(json, "\n"), json);
	ibve_event_format_text(&ev, text, sizeof(text), 0);
	ok(strstr(text, " mlx5_0/1 ") &&
		   strstr(text, "(netdev enp59s0f0np0, firmware: "
				"bad_signal_integrity/"
				"large_number_of_physical_errors)\n"),
	   "its text: %.*s", (int)strcspn(text, "\n"), text);

	/* replayed, the reply alone says the reason: the names are its */
	hex = strstr(json, "\"linkstate\":\"") + 13;
	snprintf(line, sizeof(line),
		 "{\"time\":\"2026-04-07T03:04:00Z\",\"device\":\"mlx5_0\","
		 "\"port\":1,\"event\":\"CARRIER_LOST\",\"source\":\"netdev\","
		 "\"netdev\":\"enp59s0f0np0\",\"netdev_index\":4,"
		 "\"ifflags\":4099,\"linkstate\":\"%.*s\",\"ext_state\":"
		 "\"overheat\"}",
		 (int)strcspn(hex, "\""), hex);
	ok(ibve_event_parse_json(line, strlen(line), &back) == 0 &&
		   (ibve_event_format_json(&back, text, sizeof(text)),
		    strstr(text, "\"ext_state\":\"bad_signal_integrity\"")),
	   "a replay decodes the reply, not the line's names");

	memset(&ev, 0, sizeof(ev));
	ibve_nd_record(&ev, "rxe0", 0, 1, &l, IBVE_NETDEV_DOWN, NULL, 0);
	round_trip(&ev, json, sizeof(json));
	ok(strstr(json, "\"ifflags\":4099}\n") &&
		   !(ev.fields & IBVE_FIELD_LINKSTATE),
	   "NETDEV_DOWN: no reply, ifflags last");
	ibve_event_format_text(&ev, text, sizeof(text), 0);
	ok(strstr(text, "set down (IFF_UP cleared) (netdev enp59s0f0np0)\n"),
	   "its text: %.*s", (int)strcspn(text, "\n"), text);

	/* a reply with more than there is room for: whole attributes */
	memset(&ev, 0, sizeof(ev));
	n = reply(r, ETHTOOL_MSG_LINKSTATE_GET_REPLY, 4, -1);
	for (int i = 0; i < 12; i++) { /* attributes of a future kernel */
		struct nlattr a = { 12, (uint16_t)(20 + i) };

		memcpy(r + n, &a, 4);
		memset(r + n + 4, i, 8);
		n += 12;
	}
	ibve_nd_record(&ev, "mlx5_0", 0, 1, &l, IBVE_NETDEV_CARRIER_LOST, r, n);
	ok(n > IBVE_ND_REPLY_MAX && f->len <= IBVE_ND_REPLY_MAX &&
		   f->len > IBVE_ND_REPLY_MAX - 12 && (f->len - 4) % 4 == 0 &&
		   !memcmp(f->reply, r, f->len),
	   "a reply of %zu bytes is kept to %u: whole attributes", n, f->len);
	round_trip(&ev, json, sizeof(json));
	ok(strstr(json, "\"ext_state\":\"no_cable\"}"),
	   "and still says its reason");
	memset(&ev, 0, sizeof(ev));
	ibve_nd_record(&ev, "mlx5_0", 0, 1, &l, IBVE_NETDEV_CARRIER_LOST, r, 3);
	ok(!(ev.fields & IBVE_FIELD_LINKSTATE), "3 bytes are no reply");
	memset(&ev, 0, sizeof(ev));
	/* a name of any bytes is written as it reads back */
	memcpy(l.name, "en\xff\xfe", 5);
	ibve_nd_record(&ev, "mlx5_0", 0, 1, &l, IBVE_NETDEV_UP, NULL, 0);
	round_trip(&ev, json, sizeof(json));
}

/* A replay line of SOURCE's EVENT with LINKSTATE: refused (1) or read. */
static bool refused(const char *linkstate, const char *source,
		    const char *event)
{
	char line[1024];
	struct ibve_event ev;

	snprintf(line, sizeof(line),
		 "{\"time\":\"2026-04-07T03:04:00Z\",\"device\":\"mlx5_0\","
		 "\"port\":1,\"event\":\"%s\",\"source\":\"%s\","
		 "\"linkstate\":\"%s\"}",
		 event, source, linkstate);
	return ibve_event_parse_json(line, strlen(line), &ev) != 0;
}

static void test_refused(void)
{
	char big[2 * IBVE_ND_REPLY_MAX + 16] = "060100000500050004000000";

	ok(!refused("0601000005000500040000", "netdev", "CARRIER_LOST"),
	   "a reply is read");
	ok(refused("06010000050005000400000", "netdev", "CARRIER_LOST"),
	   "an odd number of digits is refused");
	ok(refused("06010000zz", "netdev", "CARRIER_LOST"),
	   "so is a non-digit");
	ok(refused("0501000005000500040000", "netdev", "CARRIER_LOST"),
	   "so is another command's reply: %s", ibve_errmsg());
	ok(refused("060100", "netdev", "CARRIER_LOST"),
	   "so is less than a genlmsghdr");
	memset(big + 24, '0', sizeof(big) - 25);
	ok(refused(big, "netdev", "CARRIER_LOST"), "so is more than %d bytes",
	   IBVE_ND_REPLY_MAX);
	ok(!refused("zz", "verbs", "PORT_ERR"),
	   "on another source's record it is not read");
}

/* The stored capture's reasons were named by hand from the kernel's
 * enums: what the decoder makes of their replies must say the same. */
static void test_capture(void)
{
	FILE *f = fopen("test/captures/netdev.jsonl", "r");
	char line[2048], json[2048];
	struct ibve_event ev;
	int n = 0, same = 0;

	while (f && fgets(line, sizeof(line), f)) {
		n++;
		if (ibve_event_parse_json(line, strlen(line), &ev) == 0 &&
		    (ibve_event_format_json(&ev, json, sizeof(json)),
		     strcmp(json, line) == 0))
			same++;
		else
			printf("#   line %d: %s", n, line);
	}
	if (f)
		fclose(f);
	ok(n >= 19 && same == n,
	   "test/captures/netdev.jsonl: %d of %d lines written back as "
	   "they are",
	   same, n);
}

static void test_source(void)
{
	struct ibve_source_opts so = { .sz = sizeof(so) };
	const struct ibve_source_option *o;
	struct ibve_pipeline *p = NULL;
	const char *src = "";
	size_t i = 0;

	while ((o = ibve_source_option_at(i, &src)) && strcmp(src, "netdev"))
		i++;
	ok(o && strcmp(o->name, "netdev") == 0, "--netdev asks for it");
	ok(ibve_pipeline_new(&p) == 0 &&
		   ibve_pipeline_add_live(p, &so, 0) == 0 &&
		   ibve_pipeline_add_source(p, "netdev", NULL) == 0,
	   "not asked for, the live sources leave it out");
	ibve_pipeline_free(p);
	ok(ibve_pipeline_new(&p) == 0 &&
		   ibve_pipeline_add_live(p, &so, 1ull << i) == 0 &&
		   ibve_pipeline_add_source(p, "netdev", NULL) == -EEXIST,
	   "asked for, they have it");
	ibve_pipeline_free(p);
	is_str(ibve_source_name(IBVE_SOURCE_NETDEV), "netdev",
	       "its records' source is called netdev");
}

int main(void)
{
	test_links();
	test_captured();
	test_change();
	test_linkstate();
	test_record();
	test_refused();
	test_capture();
	test_source();
	return done_testing();
}
