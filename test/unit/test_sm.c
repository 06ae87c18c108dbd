// SPDX-License-Identifier: MIT
/*
 * The subnet-event MAD codec, against byte vectors laid out by hand from
 * the specification's tables: MAD header (24 bytes), SA header (to byte
 * 56), then InformInfo (36 bytes) or Notice (80 bytes).
 */
#include <stdlib.h>

#include "ibvevent.h"
#include "sm.h"
#include "tap.h"

static uint8_t mad[IBVE_MAD_SIZE];

static void header(uint8_t cls, uint8_t method, uint16_t attr, uint16_t st)
{
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;
	mad[1] = cls;
	mad[2] = cls == 0x03 ? 2 : 1;
	mad[3] = method;
	mad[4] = (uint8_t)(st >> 8);
	mad[5] = (uint8_t)st;
	/* TID 0x0001_0000_1234_5678: the top half is the kernel's. */
	mad[9] = 0x01;
	mad[12] = 0x12;
	mad[13] = 0x34;
	mad[14] = 0x56;
	mad[15] = 0x78;
	mad[16] = (uint8_t)(attr >> 8);
	mad[17] = (uint8_t)attr;
}

static void test_inform_encode(void)
{
	static const uint8_t want_hdr[24] = {
		1,    0x03, 2, 0x02, 0, 0, 0, 0,  /* Set, class SA v2 */
		0,    0,    0, 0,    0, 0, 0, 42, /* TID */
		0x00, 0x03, 0, 0,    0, 0, 0, 0,  /* InformInfo */
	};
	static const uint8_t want_ii[36] = {
		0,    0,    0,	  0,	0, 0, 0, 0,
		0,    0,    0,	  0,	0, 0, 0, 0, /* GID 0 */
		0xff, 0xff, 0,	  0,	/* LIDRangeBegin 0xFFFF: any */
		0,    0,    1,	  1,	/* reserved, IsGeneric, Subscribe */
		0xff, 0xff, 0,	  65,	/* Type any, TrapNumber 65 */
		0,    0,    0x01, 19,	/* QPN 1, RespTimeValue 19 */
		0,    0xff, 0xff, 0xff, /* ProducerType any */
	};

	ibve_sm_inform_encode(mad, 42, 65, true, 19);
	ok(memcmp(mad, want_hdr, sizeof(want_hdr)) == 0,
	   "Set(InformInfo): the MAD header byte for byte");
	ok(memcmp(mad + 56, want_ii, sizeof(want_ii)) == 0,
	   "InformInfo at byte 56: any GID, generic, trap 65, QPN 1");
	for (size_t i = 24; i < 56; i++)
		if (mad[i])
			ok(false, "SA header byte %zu is %u, not 0", i, mad[i]);
	ibve_sm_inform_encode(mad, 43, 67, false, 19);
	is_int(mad[56 + 23], 0, "unsubscribe: Subscribe 0");
	is_int(mad[56 + 27], 67, "unsubscribe: the same trap number");
}

static void test_inform_resp(void)
{
	struct ibve_sm_mad d;
	char buf[96];

	header(0x03, 0x81, 0x0003, 0);
	mad[56 + 23] = 1;
	mad[56 + 26] = 0;
	mad[56 + 27] = 66;
	ok(ibve_sm_mad_decode(mad, 92, &d), "GetResp(InformInfo) of 92 bytes");
	is_int(d.what, IBVE_SM_MAD_INFORM_RESP, "type: an answered Set");
	is_int(d.trap, 66, "trap 66");
	is_int(d.subscribe, 1, "subscribed");
	is_int(d.tid & 0xffffffff, 0x12345678, "TID low half");
	is_int(d.status, 0, "status 0");
	ok(!ibve_sm_mad_decode(mad, 91, &d),
	   "one byte short of the InformInfo: rejected");

	header(0x03, 0x81, 0x0003, 0x0200);
	ok(ibve_sm_mad_decode(mad, 256, &d), "refused Set decodes");
	is_int(d.status, 0x0200, "status 0x0200");
	is_str(ibve_sm_status_str(d.status, buf, sizeof(buf)),
	       "request invalid (status 0x0200)", "SA status decoded");
	is_str(ibve_sm_status_str(0x0700, buf, sizeof(buf)),
	       "request denied (status 0x0700)", "denied");
	is_str(ibve_sm_status_str(0x0001, buf, sizeof(buf)),
	       "SA busy (status 0x0001)", "busy bit");
	is_str(ibve_sm_status_str(0x000c, buf, sizeof(buf)),
	       "method/attribute combination not supported (status 0x000c)",
	       "common invalid-field code 3");
	is_str(ibve_sm_status_str(0x4200, buf, sizeof(buf)),
	       "unknown status (status 0x4200)", "unknown class code");
}

static void notice(uint16_t trap)
{
	static const uint8_t gid[16] = { 0xfe, 0x80, 0,	   0,	 0,    0,
					 0,    0,    0x00, 0x02, 0xc9, 0x03,
					 0x00, 0x11, 0x22, 0x33 };
	uint8_t *n = mad + 56;

	header(0x03, 0x06, 0x0002, 0);
	n[0] = 0x80 | 4; /* generic, informational */
	n[1] = 0;
	n[2] = 0;
	n[3] = 4; /* producer: class manager */
	n[4] = (uint8_t)(trap >> 8);
	n[5] = (uint8_t)trap;
	n[6] = 0x00;
	n[7] = 0x01; /* issuer LID 1 */
	memcpy(n + 16, gid, 16);
	memset(n + 64, 0xee, 16); /* IssuerGID: not the GID concerned */
}

static void test_report(void)
{
	struct ibve_sm_mad d;
	struct ibve_event ev;
	char line[1024];

	notice(65);
	ok(ibve_sm_mad_decode(mad, 256, &d), "Report(Notice) decodes");
	is_int(d.what, IBVE_SM_MAD_REPORT, "type: a Report");
	is_int(d.trap, 65, "trap 65");
	is_int(d.generic, 1, "generic");
	is_int(d.type, 4, "type 4, informational");
	is_int(d.producer, 4, "producer 4");
	is_int(d.issuer_lid, 1, "issuer LID 1");
	is_int(d.gid[0], 0xfe, "GID from Notice byte 16 (DataDetails 6)");
	is_int(d.gid[15], 0x33, "GID's last byte from Notice byte 31");
	ok(ibve_sm_mad_decode(mad, 56 + 32, &d) && d.what == IBVE_SM_MAD_REPORT,
	   "a Report that ends after the GID still decodes");
	ok(!ibve_sm_mad_decode(mad, 56 + 31, &d),
	   "a Report cut inside the GID is rejected");

	ibve_sm_mad_decode(mad, 256, &d);
	ibve_sm_event_from_report(&ev, &d, "mlx5_0", 0x0002c90300112233ull, 1);
	is_str(ev.name, "GID_OUT_OF_SERVICE", "trap 65 is GID_OUT_OF_SERVICE");
	is_int(ev.source, IBVE_SOURCE_SM, "source sm");
	is_int(ev.severity, IBVE_SEVERITY_WARNING, "a port leaving warns");
	is_int(ev.port, 1, "the port it came in on");
	ibve_event_format_json(&ev, line, sizeof(line));
	ok(strstr(line,
		  "\"gid\":\"fe80:0000:0000:0000:0002:c903:0011:2233\"") &&
		   strstr(line, "\"issuer_lid\":1") &&
		   strstr(line, "\"source\":\"sm\""),
	   "JSON: gid, issuer_lid, source");
	{
		struct ibve_event back;

		ok(ibve_event_parse_json(line, strlen(line), &back) == 0 &&
			   back.code == 65 && back.source == IBVE_SOURCE_SM &&
			   memcmp(back.sm.gid, ev.sm.gid, 16) == 0,
		   "the JSON reads back the same");
	}

	for (uint16_t t = 64; t <= 67; t++) {
		static const char *const names[] = { "GID_IN_SERVICE",
						     "GID_OUT_OF_SERVICE",
						     "MCG_CREATED",
						     "MCG_DELETED" };

		notice(t);
		ibve_sm_mad_decode(mad, 256, &d);
		ibve_sm_event_from_report(&ev, &d, "ib0", 0, 1);
		is_str(ev.name, names[t - 64], "trap %u", t);
	}

	ibve_sm_report_resp(mad);
	is_int(mad[3], 0x86, "ReportResp: method 0x86");
	is_int(mad[12] << 24 | mad[13] << 16 | mad[14] << 8 | mad[15],
	       0x12345678, "ReportResp keeps the TID");
}

static void test_smp(void)
{
	struct ibve_sm_mad d;
	uint64_t guid_be = htobe64(0x0002c90300112233ull);

	header(0x81, 0x01, 0x0020, 0);
	ok(ibve_sm_mad_decode(mad, 256, &d) && d.what == IBVE_SM_MAD_SMP_GET,
	   "directed-route SMP Get");
	ibve_sm_smp_answer(mad, guid_be);
	is_int(mad[3], 0x81, "answered with GetResp");
	is_int(mad[4] << 8 | mad[5], 0x8000,
	       "directed route: D bit set, status 0");
	ok(memcmp(mad + 64, &guid_be, 8) == 0, "SMInfo: our port GUID");
	is_int(mad[64 + 20], 0, "priority 0, state NOTACTIVE");

	header(0x01, 0x01, 0x0015, 0);
	ibve_sm_smp_answer(mad, guid_be);
	is_int(mad[4] << 8 | mad[5], 0x000c,
	       "any other attribute: unsupported, no D bit (LID routed)");

	header(0x04, 0x01, 0x0001, 0);
	ok(ibve_sm_mad_decode(mad, 256, &d) && d.what == IBVE_SM_MAD_OTHER,
	   "another class is not ours");
	mad[0] = 2;
	ok(!ibve_sm_mad_decode(mad, 256, &d), "base version 2 is rejected");
	ok(!ibve_sm_mad_decode(mad, 23, &d), "shorter than a header");
}

/* Report N of trap TRAP about a GID ending in G, received at MS. */
static bool repeat(struct ibve_sm_seen *seen, uint32_t tid, uint16_t trap,
		   uint8_t g, long ms)
{
	struct ibve_sm_mad r = { .what = IBVE_SM_MAD_REPORT,
				 .tid = 0xabcd000000000000ull | tid,
				 .trap = trap };
	struct timespec at = { 1000 + ms / 1000, (ms % 1000) * 1000000 };

	r.gid[15] = g;
	return ibve_sm_seen_before(seen, &r, &at);
}

static void test_seen(void)
{
	struct ibve_sm_seen s = { 0 };

	ok(!repeat(&s, 1, 65, 7, 0), "a first notice is shown");
	ok(repeat(&s, 1, 65, 7, 5000),
	   "the same TID again is a repeat, late or not");
	ok(repeat(&s, 2, 65, 7, 500),
	   "the same notice with a new TID, within 2 s: a repeat");
	ok(!repeat(&s, 3, 65, 8, 600),
	   "the same trap about another GID is shown");
	ok(!repeat(&s, 4, 64, 7, 700), "the GID back in service is shown");
	ok(!repeat(&s, 5, 65, 7, 900),
	   "out, in, out again within 2 s: the second out is shown (7481d57)");
	ok(repeat(&s, 6, 65, 7, 1000), "and a copy of it is not");
	ok(!repeat(&s, 7, 65, 8, 2600), "the same notice after 2 s is news");
	memset(&s, 0, sizeof(s));
	for (uint32_t i = 0; i < IBVE_SM_SEEN_MAX + 4; i++)
		repeat(&s, 100 + i, 66, (uint8_t)i, 0);
	ok(!repeat(&s, 100, 66, 200, 0),
	   "a TID pushed out of the memory is not taken for a repeat");
	ok(repeat(&s, 100 + IBVE_SM_SEEN_MAX + 3, 66, 201, 0),
	   "one still remembered is");
}

/* The two Gets of a peer lookup and their answers. */
static void test_peer(void)
{
	static const uint8_t want_lr[24] = {
		1,    0x03, 2, 0x01, 0, 0, 0, 0, /* Get, class SA v2 */
		0,    0,    0, 0,    0, 0, 0, 7, /* TID */
		0x00, 0x20, 0, 0,    0, 0, 0, 0, /* LinkRecord */
	};
	struct ibve_sm_mad link, node;
	struct ibve_peer p;
	char buf[128];

	ibve_sm_link_encode(mad, 7, 0x0012, 1);
	ok(memcmp(mad, want_lr, sizeof(want_lr)) == 0,
	   "Get(LinkRecord): the MAD header byte for byte");
	for (size_t i = 24; i < 55; i++)
		if (mad[i])
			ok(false, "SA header byte %zu is %u, not 0", i, mad[i]);
	is_int(mad[55], 0x03, "ComponentMask: FromLID and FromPort");
	ok(mad[56] == 0x00 && mad[57] == 0x12 && mad[58] == 1 && mad[59] == 0 &&
		   mad[60] == 0 && mad[61] == 0,
	   "LinkRecord: FromLID 0x12, FromPort 1, the rest 0");

	ibve_sm_node_encode(mad, 8, 0x0004);
	is_int(mad[3], 0x01, "Get(NodeRecord): method Get");
	ok(mad[16] == 0x00 && mad[17] == 0x11, "attribute NodeRecord 0x0011");
	is_int(mad[55], 0x01, "ComponentMask: LID");
	ok(mad[56] == 0x00 && mad[57] == 0x04, "NodeRecord: LID 4");

	header(0x03, 0x81, 0x0020, 0);
	mad[56 + 1] = 0x12; /* FromLID */
	mad[56 + 2] = 1;    /* FromPort */
	mad[56 + 3] = 2;    /* ToPort */
	mad[56 + 5] = 0x04; /* ToLID */
	ok(ibve_sm_mad_decode(mad, 64, &link), "GetResp(LinkRecord), 64 bytes");
	is_int(link.what, IBVE_SM_MAD_LINK_RESP, "what: a link");
	is_int(link.to_lid, 4, "ToLID 4");
	is_int(link.to_port, 2, "ToPort 2");
	ok(!ibve_sm_mad_decode(mad, 63, &link), "a byte short: rejected");
	ibve_sm_mad_decode(mad, 256, &link);

	header(0x03, 0x81, 0x0011, 0);
	mad[56 + 1] = 0x04;	 /* LID */
	mad[56 + 4 + 2] = 2;	 /* NodeType: switch */
	mad[56 + 4 + 3] = 8;	 /* NumPorts */
	mad[56 + 4 + 12] = 0x00; /* NodeGUID */
	mad[56 + 4 + 17] = 0x02;
	mad[56 + 4 + 18] = 0xc9;
	mad[56 + 4 + 19] = 0x07;
	mad[56 + 4 + 20] = 0xee; /* PortGUID: not the node's */
	mad[56 + 4 + 36] = 2;	 /* LocalPortNum */
	memcpy(mad + 56 + 44, "SwitchL\tB", 9);
	ok(ibve_sm_mad_decode(mad, 164, &node),
	   "GetResp(NodeRecord), 164 bytes");
	is_int(node.what, IBVE_SM_MAD_NODE_RESP, "what: a node");
	is_int(node.node_type, 2, "NodeType switch");
	ok(node.node_guid == 0x0002c907ull, "NodeGUID 0x2c907 (%llx)",
	   (unsigned long long)node.node_guid);
	is_str(node.desc, "SwitchL?B", "description: a control byte shown '?'");
	ok(!ibve_sm_mad_decode(mad, 163, &node), "a byte short: rejected");
	memset(mad + 56 + 44, 'x', 64);
	ibve_sm_mad_decode(mad, 256, &node);
	is_int((int)strlen(node.desc), 64, "64 bytes without a NUL: all kept");
	memcpy(mad + 56 + 44, "SwitchL", 8);
	ibve_sm_mad_decode(mad, 256, &node);

	ibve_sm_peer_from(&p, &link, &node);
	ibve_peer_format(&p, buf, sizeof(buf));
	is_str(buf, "SwitchL[2]",
	       "the peer: its description, the link's ToPort");
	ok(p.kind == IBVE_PEER_IB && p.state == IBVE_PEER_KNOWN &&
		   p.node_type == IBVE_PEER_NODE_SWITCH && p.guid == 0x2c907,
	   "an IB switch, known, by its node GUID");
	node.node_type = 9;
	ibve_sm_peer_from(&p, &link, &node);
	is_int(p.node_type, IBVE_PEER_NODE_UNKNOWN, "node type 9: unknown");

	header(0x03, 0x81, 0x0020, 0x0300);
	ok(ibve_sm_mad_decode(mad, 256, &link) && link.status == 0x0300,
	   "no LinkRecord: the SA's status");
	ibve_sm_peer_none(&p, ibve_sm_status_str(link.status, buf, 64));
	ibve_peer_format(&p, buf, sizeof(buf));
	is_str(buf, "none (no records (status 0x0300))", "none, and why");
}

/* The peer's PMA PortCounters: the Get, and each error counter of the
 * answer at its place (IBA 16.1.3.5), two of them 4 bits of one byte. */
static void test_pma(void)
{
	static const uint8_t want[24] = {
		1,    0x04, 1, 0x01, 0, 0, 0, 0, /* Get, class PerfMgt v1 */
		0,    0,    0, 0,    0, 0, 0, 9, /* TID */
		0x00, 0x12, 0, 0,    0, 0, 0, 0, /* PortCounters */
	};
	static const uint32_t values[IBVE_PMA_NCOUNTERS] = {
		0xfffe, 0xfd, 0xfc, 0x1234, 0x2345, 0x3456,
		0x4567, 0xfb, 0xfa, 0xa,    0x5,    0x5678,
	};
	uint8_t *d = mad + 64;
	struct ibve_sm_mad r;

	ibve_sm_pma_encode(mad, 9, 2);
	ok(memcmp(mad, want, sizeof(want)) == 0,
	   "Get(PortCounters): the MAD header byte for byte");
	is_int(mad[65], 2, "PortSelect 2");
	for (size_t i = 24; i < 256; i++)
		if (mad[i] && i != 65)
			ok(false, "byte %zu is %u, not 0", i, mad[i]);

	header(0x04, 0x81, 0x0012, 0);
	d[1] = 2;
	d[4] = 0xff, d[5] = 0xfe; /* SymbolErrorCounter */
	d[6] = 0xfd;		  /* LinkErrorRecoveryCounter */
	d[7] = 0xfc;		  /* LinkDownedCounter */
	d[8] = 0x12, d[9] = 0x34; /* PortRcvErrors */
	d[10] = 0x23, d[11] = 0x45;
	d[12] = 0x34, d[13] = 0x56;
	d[14] = 0x45, d[15] = 0x67; /* PortXmitDiscards */
	d[16] = 0xfb, d[17] = 0xfa;
	d[18] = 0x77; /* CounterSelect2: none of the counters */
	d[19] = 0xa5; /* LocalLinkIntegrity 0xa, ExcessiveBufferOverrun 5 */
	d[20] = 0x66, d[21] = 0x66; /* QP1Dropped: not an error counter */
	d[22] = 0x56, d[23] = 0x78; /* VL15Dropped */
	ok(!ibve_sm_mad_decode(mad, 64 + 23, &r), "a byte short: rejected");
	ok(ibve_sm_mad_decode(mad, 64 + 24, &r), "GetResp(PortCounters)");
	is_int(r.what, IBVE_SM_MAD_PMA_RESP, "what: the PMA's counters");
	is_int(r.pma_port, 2, "of port 2");
	for (int i = 0; i < IBVE_PMA_NCOUNTERS; i++)
		ok(r.pma[i] == values[i], "%s: 0x%x (0x%x)", ibve_pma_names[i],
		   values[i], r.pma[i]);
	header(0x04, 0x01, 0x0012, 0);
	ibve_sm_mad_decode(mad, 256, &r);
	is_int(r.what, IBVE_SM_MAD_OTHER, "a Get of our PMA: not ours");
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	test_inform_encode();
	test_inform_resp();
	test_report();
	test_smp();
	test_seen();
	test_peer();
	test_pma();
	return done_testing();
}
