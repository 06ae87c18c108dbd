/* SPDX-License-Identifier: MIT */
#ifndef IBVE_PARSE_H
#define IBVE_PARSE_H

#include "dl_jsonc.h"

#include "ibvevent.h"

/*
 * Parse LINE. *TOK is json-c's tokener for the lines the scanner leaves to
 * it: made when first needed, kept across lines, replaced after a failure
 * (the caller frees it). NULL to begin with. -EINVAL for a malformed line,
 * -ELIBACC when json-c, needed for it, cannot be loaded (why in ERR).
 */
int ibve_parse_line(struct json_tokener **tok, const char *line, size_t len,
		    struct ibve_event *ev, char *err, size_t errlen);
/* Whether the non-allocating scanner reads LINE (else json-c does). */
bool ibve_parse_fast_takes(const char *line, size_t len);
/* The same with json-c alone: the reference the fast path must match. */
int ibve_parse_line_jsonc(struct json_tokener **tok, const char *line,
			  size_t len, struct ibve_event *ev, char *err,
			  size_t errlen);
/* JSON's white space: space, tab, line feed, carriage return. */
static inline bool ibve_json_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* P past white space, not beyond END. */
static inline const char *ibve_skip_ws(const char *p, const char *end)
{
	while (p < end && ibve_json_ws(*p))
		p++;
	return p;
}

/*
 * The replay's prefilter (prefilter.c): false when F cannot pass LINE's
 * record, true when it may or when the byte search cannot tell. A
 * malformed line it refuses is not parsed, so not named. PF keeps what F
 * made of each identity seen (a new F starts afresh).
 */
struct ibve_prefilter;
int ibve_prefilter_new(struct ibve_prefilter **pf); /* 0, or -1: no memory */
void ibve_prefilter_free(struct ibve_prefilter *pf);
bool ibve_prefilter_line(struct ibve_prefilter *pf, const struct ibve_filter *f,
			 const char *line, size_t len);

#endif
