/* SPDX-License-Identifier: MIT */
#ifndef IBVE_PARSE_H
#define IBVE_PARSE_H

#include <json-c/json.h>

#include "ibvevent.h"

/*
 * Parse LINE. *TOK is json-c's tokener for the lines the scanner leaves to
 * it: made when first needed, kept across lines, replaced after a failure
 * (the caller frees it). NULL to begin with.
 */
int ibve_parse_line(struct json_tokener **tok, const char *line, size_t len,
		    struct ibve_event *ev, char *err, size_t errlen);
/* Whether the non-allocating scanner reads LINE (else json-c does). */
bool ibve_parse_fast_takes(const char *line, size_t len);
/* The same with json-c alone: the reference the fast path must match. */
int ibve_parse_line_jsonc(struct json_tokener **tok, const char *line,
			  size_t len, struct ibve_event *ev, char *err,
			  size_t errlen);
int ibve_parse_object(struct json_object *o, struct ibve_event *ev, char *err,
		      size_t errlen);

#endif
