// SPDX-License-Identifier: MIT
/*
 * What the targets that make records ask of each: fail() says why with
 * the two texts under it, as target FUZZ_NAME (defined before this is
 * included), and aborts; round_trip() has the record print, and its JSON
 * read back (into BACK, when not NULL) and write the same JSON.
 */
#ifndef IBVE_FUZZ_ROUNDTRIP_H
#define IBVE_FUZZ_ROUNDTRIP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibvevent.h"

static void fail(const char *why, const char *a, const char *b)
{
	fprintf(stderr, FUZZ_NAME ": %s\n  %s\n  %s\n", why, a, b);
	abort();
}

static void round_trip(const struct ibve_event *ev, struct ibve_event *back)
{
	char text[4096], j1[8192], j2[8192];
	struct ibve_event mine;

	if (!back)
		back = &mine;
	ibve_event_format_text(ev, text, sizeof(text), IBVE_FORMAT_COLOR);
	ibve_event_format_json(ev, j1, sizeof(j1));
	if (ibve_event_parse_json(j1, strcspn(j1, "\n"), back))
		fail("what we write, we must read", j1, ibve_errmsg());
	ibve_event_format_json(back, j2, sizeof(j2));
	if (strcmp(j1, j2) != 0)
		fail("what we read back must write the same", j1, j2);
}

#endif
