// SPDX-License-Identifier: MIT
/*
 * A MAD as the SA (or any node of the fabric) sends it, of any length up
 * to the 256 bytes umad_recv() gives: it decodes or is refused without a
 * read past its end; the answer made in place of a Report or an SMP Get
 * decodes as no request of ours; a Report of a subscribed trap makes a
 * record that prints and replays the same, and is a repeat when sent
 * again.
 */
#include <string.h>

#include "ibvevent.h"
#include "sm.h"

#define FUZZ_NAME "fuzz_sm_mad"
#include "roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* EV prints and replays the same, the notice's fields too. */
static void notice_round_trip(const struct ibve_event *ev)
{
	struct ibve_event back;
	char j[8192];

	round_trip(ev, &back);
	if (memcmp(back.sm.gid, ev->sm.gid, sizeof(ev->sm.gid)) ||
	    back.sm.issuer_lid != ev->sm.issuer_lid ||
	    back.sm.producer_type != ev->sm.producer_type) {
		ibve_event_format_json(ev, j, sizeof(j));
		fail("the notice's fields must replay", j, "");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mad[IBVE_MAD_SIZE] = { 0 };
	struct ibve_sm_seen seen = { 0 };
	struct timespec now = { 1000, 0 };
	struct ibve_sm_mad d, again;
	struct ibve_event ev;
	char st[96];

	if (size > IBVE_MAD_SIZE)
		return 0; /* umad_recv() refuses a longer one */
	/* the decoder reads DATA itself: ASan sees a read past SIZE */
	if (!ibve_sm_mad_decode(data, size, &d))
		return 0;
	ibve_sm_status_str(d.status, st, sizeof(st));
	/* what the receiver does: a zeroed buffer, the MAD at its start */
	memcpy(mad, data, size);
	switch (d.what) {
	case IBVE_SM_MAD_SMP_GET:
		ibve_sm_smp_answer(mad, 0x0123456789abcdefull);
		if (!ibve_sm_mad_decode(mad, IBVE_MAD_SIZE, &again) ||
		    again.what != IBVE_SM_MAD_OTHER)
			fail("an SMP answer is no request", "", "");
		break;
	case IBVE_SM_MAD_REPORT:
		ibve_sm_report_resp(mad);
		if (!ibve_sm_mad_decode(mad, IBVE_MAD_SIZE, &again) ||
		    again.what != IBVE_SM_MAD_OTHER || again.tid != d.tid ||
		    again.status)
			fail("a ReportResp is no Report, same TID, status 0",
			     "", "");
		if (d.trap < IBVE_SM_TRAP_FIRST || d.trap > IBVE_SM_TRAP_LAST)
			break;
		if (ibve_sm_seen_before(&seen, &d, &now))
			fail("the first Report is no repeat", "", "");
		if (!ibve_sm_seen_before(&seen, &d, &now))
			fail("the same Report again is a repeat", "", "");
		ibve_sm_event_from_report(&ev, &d, "mlx4_0", 0x0002c90300a1b2c3,
					  1);
		if (ev.code != d.trap || ev.source != IBVE_SOURCE_SM)
			fail("the record is of the trap", ev.name, "");
		notice_round_trip(&ev);
		break;
	case IBVE_SM_MAD_LINK_RESP:
	case IBVE_SM_MAD_NODE_RESP: {
		/* the answers of a peer lookup make a peer that prints */
		struct ibve_peer p;
		char text[256];

		ibve_sm_peer_from(&p, &d, &d);
		if (ibve_peer_format(&p, text, sizeof(text)) >= sizeof(text) ||
		    p.node_type > IBVE_PEER_NODE_ROUTER ||
		    strlen(p.name) != strlen(d.desc))
			fail("a peer prints in full, its type known or 0", text,
			     d.desc);
		break;
	}
	case IBVE_SM_MAD_PMA_RESP:
		/* a counter of the peer's within its width: 16, 8 or 4 bits
		 * (the two that share a byte) */
		for (int i = 0; i < IBVE_PMA_NCOUNTERS; i++) {
			bool nibble = strstr(ibve_pma_names[i], "local_link") ||
				      strstr(ibve_pma_names[i], "excessive");

			if (d.pma[i] > (nibble ? 15u : 0xffffu))
				fail("a PMA counter within its width",
				     ibve_pma_names[i], "");
		}
		break;
	case IBVE_SM_MAD_INFORM_RESP:
	case IBVE_SM_MAD_OTHER:
		break;
	}
	return 0;
}
