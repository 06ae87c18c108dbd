// SPDX-License-Identifier: MIT
/*
 * What the netdev source reads from the kernel. The first byte says which:
 * even, the rest is one datagram of rtnetlink (link messages one after
 * another); odd, the payload of an ethtool LINKSTATE_GET reply. Neither
 * reader may read past the bytes received; each link read makes records
 * of every change, and a reply a CARRIER_LOST record, that print and
 * replay the same, the reply's reason with them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netdev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *why, const char *a, const char *b)
{
	fprintf(stderr, "fuzz_netdev: %s\n  %s\n  %s\n", why, a, b);
	abort();
}

/* EV prints, and its JSON reads back to the same JSON. */
static void round_trip(const struct ibve_event *ev)
{
	char text[4096], j1[8192], j2[8192];
	struct ibve_event back;

	ibve_event_format_text(ev, text, sizeof(text), IBVE_FORMAT_COLOR);
	ibve_event_format_json(ev, j1, sizeof(j1));
	if (ibve_event_parse_json(j1, strcspn(j1, "\n"), &back))
		fail("what we write, we must read", j1, ibve_errmsg());
	ibve_event_format_json(&back, j2, sizeof(j2));
	if (strcmp(j1, j2) != 0)
		fail("what we read back must write the same", j1, j2);
}

static void links(const uint8_t *data, size_t len)
{
	/* a copy of its own, the size received: ASan sees a read past it */
	void *buf = malloc(len ? len : 1);
	struct ibve_nd_link l;

	if (!buf)
		abort();
	memcpy(buf, data, len);
	for (size_t off = 0, last = 0; ibve_nd_link_next(buf, len, &off, &l);
	     last = off) {
		if (off <= last || !l.index || !memchr(l.name, '\0', 16))
			fail("a link moves on and has an index and a name", "",
			     "");
		for (int code = IBVE_NETDEV_DOWN;
		     code <= IBVE_NETDEV_CARRIER_UP; code++) {
			struct ibve_event ev = { 0 };

			ibve_nd_record(&ev, "rxe0", 0, 1, &l, code, NULL, 0);
			round_trip(&ev);
		}
	}
	free(buf);
}

static void linkstate(const uint8_t *data, size_t len)
{
	uint8_t *buf = malloc(len ? len : 1);
	struct ibve_nd_link l = { .index = 4, .flags = 0x1003, .name = "eth0" };
	struct ibve_event ev = { 0 };
	char j[8192];
	int st, sub;
	bool reply;

	if (!buf)
		abort();
	memcpy(buf, data, len);
	reply = ibve_nd_linkstate(buf, len, &st, &sub);
	if (!reply && (st != -1 || sub != -1))
		fail("no reply says no reason", "", "");
	if (sub >= 0 && st < 0)
		fail("no substate without a state", "", "");
	ibve_nd_record(&ev, "mlx5_0", 0, 1, &l, IBVE_NETDEV_CARRIER_LOST, buf,
		       len);
	round_trip(&ev);
	ibve_event_format_json(&ev, j, sizeof(j));
	/* what was kept is a prefix of whole attributes: the same reason,
	 * unless the reason came after what fits */
	if (reply && st >= 0 && len <= IBVE_ND_REPLY_MAX &&
	    !strstr(j, "\"ext_state\":"))
		fail("a reply's reason is said", j, "");
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		linkstate(data + 1, size - 1);
	else
		links(data + 1, size - 1);
	return 0;
}
