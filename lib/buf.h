/* SPDX-License-Identifier: MIT */
/*
 * Output buffers that never overflow, and the one JSON writer: used by the
 * library and, linked as the same object (buf.o), by the commands.
 */
#ifndef IBVE_BUF_H
#define IBVE_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* A caller's buffer; LEN may exceed SIZE: the length that was needed. */
struct ibve_buf {
	char *p;
	size_t size;
	size_t len;
};

/*
 * The small writes are inline: every record makes dozens of them, and a
 * length known where they are called (a literal) folds away.
 */
static inline void ibve_buf_put(struct ibve_buf *b, const char *s, size_t n)
{
	if (b->len + n <= b->size)
		memcpy(b->p + b->len, s, n);
	else if (b->len < b->size)
		memcpy(b->p + b->len, s, b->size - b->len);
	b->len += n;
}

static inline void ibve_buf_putc(struct ibve_buf *b, char c)
{
	if (b->len < b->size)
		b->p[b->len] = c;
	b->len++;
}

static inline void ibve_buf_puts(struct ibve_buf *b, const char *s)
{
	ibve_buf_put(b, s, strlen(s));
}

/* V in decimal. */
void ibve_buf_uint(struct ibve_buf *b, uint64_t v);
void ibve_buf_printf(struct ibve_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* S as a JSON string, quotes included. */
void ibve_buf_json_str(struct ibve_buf *b, const char *s);
/* S as it is, but bytes that are not UTF-8 as U+FFFD: as its JSON reads. */
void ibve_buf_utf8_str(struct ibve_buf *b, const char *s);
/* S for a terminal: control and non-UTF-8 bytes as \xHH. */
void ibve_buf_text_str(struct ibve_buf *b, const char *s);
/*
 * The local time of TS and its offset from UTC, as date --rfc-3339 writes
 * them ("2026-03-02 09:15:00+01:00"), with MS milliseconds or none: text
 * output says which zone it is in.
 */
void ibve_buf_local_time(struct ibve_buf *b, const struct timespec *ts,
			 bool ms);
/* Terminate and return the length, as snprintf does. */
size_t ibve_buf_end(struct ibve_buf *b);
/*
 * Format into a buffer that grows as needed: FMT(ARG, buf, size) returns
 * the length needed, like snprintf. *BUF and *SIZE are kept across calls.
 * Returns the length, or (size_t)-1 out of memory.
 */
size_t ibve_buf_grow(char **buf, size_t *size,
		     size_t (*fmt)(const void *arg, char *buf, size_t size),
		     const void *arg);

/*
 * The JSON writer: one object (or array) per line, members written in
 * order, commas and escaping taken care of. A NULL key is a value in an
 * array or the top level.
 *
 * Its fields mode writes the same calls as the journal's fields, each
 * after a NUL: a member is RDMA_<KEY>=VALUE (KEY in capitals, an object's
 * keys before it joined by '_'), a string as it is (bytes that are not
 * UTF-8 as U+FFFD, as its JSON reads), a number or boolean as its JSON, a
 * null no field; an object is no field, its members are; an array is one
 * field, its compact JSON.
 */
#define IBVE_JSON_DEPTH 8

struct ibve_json {
	struct ibve_buf *b;
	size_t room; /* b's size for a key in one write; 0: fields mode */
	int depth;
	bool first[IBVE_JSON_DEPTH];
	/* fields mode: 1 where a member is a field, 1 + N in N arrays
	 * (written as JSON); 0: JSON */
	int fields;
	size_t at; /* fields: where the last field begins (its NUL) */
	const char *path[IBVE_JSON_DEPTH]; /* fields: the objects' keys */
};

static inline void ibve_json_init(struct ibve_json *j, struct ibve_buf *b)
{
	j->b = b;
	j->room = b->size;
	j->depth = 0;
	j->first[0] = true;
	j->fields = 0;
}

void ibve_json_init_fields(struct ibve_json *j, struct ibve_buf *b);
/* The key of N bytes (KEY NULL: a value in an array), after a comma. */
void ibve_json_key_slow(struct ibve_json *j, const char *key, size_t n,
			bool comma);

/* The key alone; the value follows with ibve_buf_*(). */
static inline void ibve_json_key(struct ibve_json *j, const char *key)
{
	struct ibve_buf *b = j->b;
	size_t n = key ? strlen(key) : 0;
	bool comma = !j->first[j->depth];

	j->first[j->depth] = false;
	if (key && b->len + n + 4 <= j->room) { /* room: one write */
		char *p = b->p + b->len;

		*p = ',';
		p += comma;
		*p++ = '"';
		memcpy(p, key, n);
		p[n] = '"';
		p[n + 1] = ':';
		b->len = (size_t)(p + n + 2 - b->p);
		return;
	}
	ibve_json_key_slow(j, key, n, comma);
}

void ibve_json_open(struct ibve_json *j, const char *key); /* { */
void ibve_json_close(struct ibve_json *j);		   /* } */
void ibve_json_open_array(struct ibve_json *j, const char *key);
void ibve_json_close_array(struct ibve_json *j);
static inline void ibve_json_str(struct ibve_json *j, const char *key,
				 const char *s)
{
	ibve_json_key(j, key);
	if (j->fields == 1)
		ibve_buf_utf8_str(j->b, s);
	else
		ibve_buf_json_str(j->b, s);
}
/*
 * A string of the library's own making, with nothing to escape: a name
 * from a table, a time or GUID it formatted. Never one read from outside.
 */
static inline void ibve_json_name_n(struct ibve_json *j, const char *key,
				    const char *s, size_t n)
{
	ibve_json_key(j, key);
	if (j->fields == 1) {
		ibve_buf_put(j->b, s, n);
		return;
	}
	ibve_buf_putc(j->b, '"');
	ibve_buf_put(j->b, s, n);
	ibve_buf_putc(j->b, '"');
}

static inline void ibve_json_name(struct ibve_json *j, const char *key,
				  const char *s)
{
	ibve_json_name_n(j, key, s, strlen(s));
}
/* A string, or null when S is NULL or empty. */
void ibve_json_str_or_null(struct ibve_json *j, const char *key, const char *s);
static inline void ibve_json_uint(struct ibve_json *j, const char *key,
				  uint64_t v)
{
	ibve_json_key(j, key);
	ibve_buf_uint(j->b, v);
}
void ibve_json_int(struct ibve_json *j, const char *key, int64_t v);
/* An unsigned number, or null when V is 0. */
void ibve_json_uint_or_null(struct ibve_json *j, const char *key, uint64_t v);
static inline void ibve_json_bool(struct ibve_json *j, const char *key, bool v)
{
	ibve_json_key(j, key);
	if (v)
		ibve_buf_put(j->b, "true", 4);
	else
		ibve_buf_put(j->b, "false", 5);
}

static inline void ibve_json_null(struct ibve_json *j, const char *key)
{
	ibve_json_key(j, key);
	if (j->fields == 1)
		j->b->len = j->at; /* no field */
	else
		ibve_buf_put(j->b, "null", 4);
}
/* A number printed with FMT ("%.3f", "%g"). */
void ibve_json_double(struct ibve_json *j, const char *key, const char *fmt,
		      double v);
/*
 * P as the object KEY: a record's "peer", a listed port's, a row of
 * ibv_eventtop's (the commands link this object, not the library's
 * internals).
 */
struct ibve_peer;
void ibve_json_peer(struct ibve_json *j, const char *key,
		    const struct ibve_peer *p);

#endif
