// SPDX-License-Identifier: MIT
/*
 * What the netdev source reads from the kernel. The first byte says which:
 * even, the rest is one datagram of rtnetlink (link messages one after
 * another); odd, the payload of an ethtool LINKSTATE_GET reply. Neither
 * reader may read past the bytes received; each link read makes records
 * of every change, and a reply a CARRIER_LOST record, that print and
 * replay the same, the reply's reason with them.
 */
#include <string.h>

#include "netdev.h"

#define FUZZ_NAME "fuzz_netdev"
#include "roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
			round_trip(&ev, NULL);
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
	round_trip(&ev, NULL);
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
