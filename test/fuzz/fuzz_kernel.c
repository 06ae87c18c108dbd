// SPDX-License-Identifier: MIT
/*
 * A record of the eBPF ring buffer, any bytes of any length: one shorter
 * than struct ibve_kevent, naming no device or an event number no int
 * holds, is refused; any other makes a record (its strings ended
 * whatever the bytes) that prints and replays the same, with the process
 * and the object's numbers it carried.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *why, const char *a, const char *b)
{
	fprintf(stderr, "fuzz_kernel: %s\n  %s\n  %s\n", why, a, b);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[4096], j1[8192], j2[8192];
	struct ibve_event ev = { 0 }, back;
	struct ibve_kevent k;

	if (!ibve_kevent_from_ring(&k, data, size)) {
		if (size >= sizeof(k) && k.device[0] && k.event <= INT32_MAX)
			fail("a whole record naming a device is read", "", "");
		return 0;
	}
	if (size < sizeof(k))
		fail("a short record is refused", "", "");
	if (k.hook == IBVE_KHOOK_PORT) {
		/* remembered as the cause of what follows, by its name */
		const struct ibve_event_desc *d =
			ibve_event_desc_find(IBVE_SOURCE_VERBS, (int)k.event);

		if (d && !d->name[0])
			fail("a known event has a name", "", "");
		return 0;
	}
	ibve_kevent_record(&ev, &k, 0xf8d24cfffed49ed8ull);
	ibve_event_format_text(&ev, text, sizeof(text), IBVE_FORMAT_COLOR);
	ibve_event_format_json(&ev, j1, sizeof(j1));
	if (ibve_event_parse_json(j1, strcspn(j1, "\n"), &back))
		fail("what we write, we must read", j1, ibve_errmsg());
	ibve_event_format_json(&back, j2, sizeof(j2));
	if (strcmp(j1, j2) != 0)
		fail("what we read back must write the same", j1, j2);
	/* strings: the same JSON (bytes not UTF-8 are written replaced) */
	if (back.code != ev.code || back.port != ev.port ||
	    back.fields != ev.fields || back.kernel.pid != ev.kernel.pid ||
	    back.qp_num != ev.qp_num || back.wq_num != ev.wq_num ||
	    back.handle != ev.handle)
		fail("the record's fields must replay", j1, j2);
	return 0;
}
