// SPDX-License-Identifier: MIT
/*
 * A replayed line: both readers must agree (the scanner and json-c), and
 * a record read must survive format -> parse -> format unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "ibvevent.h"
#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *why, const char *a, const char *b)
{
	fprintf(stderr, "fuzz_replay: %s\n  %s\n  %s\n", why, a, b);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct json_tokener *tok;
	const char *line = (const char *)data;
	struct ibve_event a, b, c;
	char ea[256] = "", eb[256] = "", j1[8192], j2[8192], text[8192];
	int ra, rb;

	/* the reader hands out lines: no newline, no NUL inside */
	if (memchr(data, '\n', size) || memchr(data, '\0', size))
		return 0;
	ra = ibve_parse_line(&tok, line, size, &a, ea, sizeof(ea));
	rb = ibve_parse_line_jsonc(&tok, line, size, &b, eb, sizeof(eb));
	if (ra != rb || strcmp(ea, eb) != 0)
		fail("the two readers disagree", ea, eb);
	if (ra == 0 && memcmp(&a, &b, sizeof(a)) != 0)
		fail("the two readers read different records", "", "");
	if (ra)
		return 0;
	ibve_event_format_text(&a, text, sizeof(text), IBVE_FORMAT_COLOR);
	ibve_event_format_json(&a, j1, sizeof(j1));
	if (ibve_parse_line(&tok, j1, strcspn(j1, "\n"), &c, ea, sizeof(ea)))
		fail("what we write, we must read", j1, ea);
	ibve_event_format_json(&c, j2, sizeof(j2));
	if (strcmp(j1, j2) != 0)
		fail("what we read back must write the same", j1, j2);
	return 0;
}
