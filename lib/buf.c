// SPDX-License-Identifier: MIT
/*
 * Output buffers and the JSON writer. Everything the suite writes goes
 * through here, so escaping is done once: JSON strings are valid UTF-8
 * (bytes that are not become U+FFFD), text for terminals has no control
 * bytes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "util.h"

void ibve_buf_printf(struct ibve_buf *b, const char *fmt, ...)
{
	size_t room = b->len < b->size ? b->size - b->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? b->p + b->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n;
}

size_t ibve_buf_end(struct ibve_buf *b)
{
	if (b->size)
		b->p[b->len < b->size ? b->len : b->size - 1] = '\0';
	return b->len;
}

void ibve_buf_local_time(struct ibve_buf *b, const struct timespec *ts, bool ms)
{
	struct tm tm;
	time_t t = ts->tv_sec;
	long off;

	if (!localtime_r(&t, &tm)) {
		ibve_buf_puts(b, "?");
		return;
	}
	off = tm.tm_gmtoff / 60;
	ibve_buf_printf(b, "%04d-%02d-%02d %02d:%02d:%02d", tm.tm_year + 1900,
			tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			tm.tm_sec);
	if (ms)
		ibve_buf_printf(b, ".%03ld", ts->tv_nsec / 1000000);
	ibve_buf_printf(b, "%c%02ld:%02ld", off < 0 ? '-' : '+', labs(off) / 60,
			labs(off) % 60);
}

size_t ibve_buf_grow(char **buf, size_t *size,
		     size_t (*fmt)(const void *arg, char *buf, size_t size),
		     const void *arg)
{
	for (;;) {
		size_t n = fmt(arg, *buf, *size);
		char *p;

		if (n < *size)
			return n;
		p = realloc(*buf, n + 1);
		if (!p)
			return (size_t)-1;
		*buf = p;
		*size = n + 1;
	}
}

/* Bytes a JSON string holds as they are: printable ASCII but " and \\. */
static const bool json_plain[256] = {
	[0x20 ... 0x21] = true, /* '"' is 0x22 */
	[0x23 ... 0x5b] = true, /* '\\' is 0x5c */
	[0x5d ... 0x7e] = true,
};

/* Bytes escaped by a letter (or themselves) after a backslash. */
static const char short_esc[256] = {
	['"'] = '"',
	['\\'] = '\\',
	['\n'] = 'n',
	['\t'] = 't',
};

void ibve_buf_json_str(struct ibve_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	ibve_buf_putc(b, '"');
	while (*p) {
		size_t run = 0;

		/* Copy plain runs in one go. */
		while (json_plain[p[run]])
			run++;
		if (run) {
			ibve_buf_put(b, (const char *)p, run);
			p += run;
			continue;
		}
		if (short_esc[*p]) {
			ibve_buf_putc(b, '\\');
			ibve_buf_putc(b, short_esc[*p++]);
		} else if (*p < 0x20 || *p == 0x7f) {
			ibve_buf_printf(b, "\\u%04x", *p++);
		} else {
			size_t n = ibve_utf8_len(p);

			/*
			 * Not UTF-8: U+FFFD, written as UTF-8 like any other
			 * character so a record read back and written again
			 * comes out byte for byte the same.
			 */
			ibve_buf_put(b, n ? (const char *)p : "\xef\xbf\xbd",
				     n ? n : 3);
			p += n ? n : 1;
		}
	}
	ibve_buf_putc(b, '"');
}

void ibve_buf_utf8_str(struct ibve_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = ibve_utf8_len(p);

		ibve_buf_put(b, n ? (const char *)p : "\xef\xbf\xbd",
			     n ? n : 3);
		p += n ? n : 1;
	}
}

void ibve_buf_text_str(struct ibve_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = ibve_utf8_len(p);

		if (*p == '\\') {
			ibve_buf_puts(b, "\\\\");
			p++;
		} else if (!n || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
			ibve_buf_printf(b, "\\x%02x", *p++);
		} else if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
			/* C1 controls would steer a terminal too. */
			ibve_buf_printf(b, "\\x%02x\\x%02x", p[0], p[1]);
			p += 2;
		} else {
			ibve_buf_put(b, (const char *)p, n);
			p += n;
		}
	}
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */

void ibve_json_init_fields(struct ibve_json *j, struct ibve_buf *b)
{
	ibve_json_init(j, b);
	j->fields = 1;
	j->room = 0; /* every key the slow way */
	j->at = b->len;
	j->path[0] = NULL;
}

/* C in a journal field's name: A-Z, 0-9 and '_'. */
static char name_char(char c)
{
	if (c >= 'a' && c <= 'z')
		return (char)(c - 'a' + 'A');
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_';
}

/*
 * Fields mode: the NUL that ends a field, and the name of KEY's: RDMA_ and
 * the keys of the objects it is in and its own, joined by '_', in capitals
 * (journald takes A-Z, 0-9 and '_', and names of 64 bytes at most).
 */
static void field_name(struct ibve_json *j, const char *key)
{
	char name[64] = "RDMA_";
	size_t len = 5;

	for (int d = 0; d <= j->depth + 1; d++) {
		const char *k = d <= j->depth ? j->path[d] : key;

		for (; k && *k && len < sizeof(name); k++)
			name[len++] = name_char(*k);
		if (k && d <= j->depth && len < sizeof(name))
			name[len++] = '_';
	}
	j->at = j->b->len;
	ibve_buf_putc(j->b, '\0');
	ibve_buf_put(j->b, name, len);
	ibve_buf_putc(j->b, '=');
}

void ibve_json_key_slow(struct ibve_json *j, const char *key, size_t n,
			bool comma)
{
	if (j->fields == 1) {
		field_name(j, key);
		return;
	}
	if (comma)
		ibve_buf_putc(j->b, ',');
	if (key) {
		ibve_buf_putc(j->b, '"');
		ibve_buf_put(j->b, key, n);
		ibve_buf_put(j->b, "\":", 2);
	}
}

static void open_(struct ibve_json *j, const char *key, char c)
{
	bool field = j->fields == 1 && c == '{'; /* no field: its members */

	if (!field) {
		ibve_json_key(j, key);
		ibve_buf_putc(j->b, c);
	}
	if (j->depth + 1 < IBVE_JSON_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
	j->path[j->depth] = key;
	if (j->fields && c == '[')
		j->fields++; /* one field, its JSON */
}

void ibve_json_open(struct ibve_json *j, const char *key)
{
	open_(j, key, '{');
}

void ibve_json_open_array(struct ibve_json *j, const char *key)
{
	open_(j, key, '[');
}

void ibve_json_close(struct ibve_json *j)
{
	if (j->fields != 1)
		ibve_buf_putc(j->b, '}');
	if (j->depth)
		j->depth--;
}

void ibve_json_close_array(struct ibve_json *j)
{
	ibve_buf_putc(j->b, ']');
	if (j->depth)
		j->depth--;
	if (j->fields > 1)
		j->fields--;
}

void ibve_json_str_or_null(struct ibve_json *j, const char *key, const char *s)
{
	if (s && *s)
		ibve_json_str(j, key, s);
	else
		ibve_json_null(j, key);
}

void ibve_buf_uint(struct ibve_buf *b, uint64_t v)
{
	char d[24];
	int i = (int)sizeof(d);

	do
		d[--i] = (char)('0' + v % 10);
	while (v /= 10);
	ibve_buf_put(b, d + i, sizeof(d) - (size_t)i);
}

void ibve_json_int(struct ibve_json *j, const char *key, int64_t v)
{
	ibve_json_key(j, key);
	ibve_buf_printf(j->b, "%lld", (long long)v);
}

void ibve_json_uint_or_null(struct ibve_json *j, const char *key, uint64_t v)
{
	if (v)
		ibve_json_uint(j, key, v);
	else
		ibve_json_null(j, key);
}

void ibve_json_double(struct ibve_json *j, const char *key, const char *fmt,
		      double v)
{
	ibve_json_key(j, key);
	ibve_buf_printf(j->b, fmt, v);
}

/* A port's peer: the record's, a listed port's and the dashboard's. */
void ibve_json_peer(struct ibve_json *j, const char *key,
		    const struct ibve_peer *p)
{
	char guid[32];

	ibve_json_open(j, key);
	ibve_json_str(j, "kind", ibve_peer_kind_name(p->kind));
	ibve_json_str(j, "state", ibve_peer_state_name(p->state));
	if (p->state == IBVE_PEER_NONE) {
		ibve_json_str(j, "reason", p->reason);
	} else if (p->state == IBVE_PEER_KNOWN && p->kind == IBVE_PEER_LLDP) {
		ibve_json_str(j, "chassis", p->chassis);
		ibve_json_str(j, "port_id", p->port_id);
		ibve_json_str(j, "name", p->name);
		ibve_json_str(j, "port_desc", p->port_desc);
	} else if (p->state == IBVE_PEER_KNOWN) {
		ibve_guid_format(p->guid, guid, sizeof(guid));
		ibve_json_str(j, "guid", guid);
		ibve_json_uint(j, "port", p->port);
		ibve_json_str(j, "name", p->name);
		ibve_json_str(j, "node_type",
			      ibve_peer_node_name(p->node_type));
	}
	ibve_json_bool(j, "changed", p->changed);
	ibve_json_close(j);
}
