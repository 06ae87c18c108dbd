/* SPDX-License-Identifier: MIT */
/* Shared inside libibvevent only; nothing here is exported. */
#ifndef IBVE_INTERNAL_H
#define IBVE_INTERNAL_H

#include <stdarg.h>
#include <string.h>

#include "ibvevent.h"

#define IBVE_EXPORT   __attribute__((visibility("default")))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Copy SRC into DST of SIZE bytes, always terminated, truncating. */
static inline void ibve_strcpy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Length of the valid UTF-8 sequence at S (0: not valid). */
static inline size_t ibve_utf8_len(const unsigned char *s)
{
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* An output buffer that never overflows and counts what was wanted. */

struct ibve_buf {
	char *p;
	size_t size;
	size_t len; /* may exceed size: the length needed */
};

void ibve_buf_putc(struct ibve_buf *b, char c);
void ibve_buf_put(struct ibve_buf *b, const char *s, size_t n);
void ibve_buf_puts(struct ibve_buf *b, const char *s);
void ibve_buf_printf(struct ibve_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* S as a JSON string, quotes included. */
void ibve_buf_json_str(struct ibve_buf *b, const char *s);
/* S for a terminal: control and non-UTF-8 bytes as \xHH. */
void ibve_buf_text_str(struct ibve_buf *b, const char *s);
size_t ibve_buf_end(struct ibve_buf *b);
/* The object or detail of EV, as text shows it: " (qp 0x000011, ...)". */
void ibve_buf_event_details(struct ibve_buf *b, const struct ibve_event *ev);

/* Port attributes read from sysfs; "" for what could not be read. */
#define IBVE_SYSFS "/sys/class/infiniband"

struct ibve_port_attrs {
	int state; /* enum ibv_port_state; 0 when unknown */
	char state_name[16];
	char phys_state[32];
	char link_layer[16];
	char rate[40];
	char address[48]; /* "LID 0x12" or the first GID as IPv6 */
};

int ibve_sysfs_read(const char *path, char *buf, size_t size);
int ibve_sysfs_port(const char *device, uint32_t port,
		    struct ibve_port_attrs *a);

/* An mlx5 record's decoded fields: for text, and as JSON fields. */
void ibve_mlx5_details(struct ibve_buf *b, const struct ibve_event *ev);
void ibve_mlx5_json(struct ibve_buf *b, const struct ibve_event *ev);

/* EV is the DEVX channel's overflow, the OVERFLOWS-th so far. */
void ibve_mlx5_event_lost(struct ibve_event *ev, uint64_t overflows);

/* Whether a port counter of that name counts errors (dashboard). */
bool ibve_top_is_error_counter(const char *name);

/*
 * ibve_inject_run() with the events read by verbs alone, acked and not
 * decoded: the floor bench/ measures the library against.
 */
struct ibve_inject_opts;
struct ibve_inject_report;
int ibve_inject_run_floor(const char *name, const struct ibve_inject_opts *o,
			  struct ibve_inject_report *r);

/* Append a formatted note to the list *NOTES of *N; false if out of memory. */
bool ibve_notes_addv(char ***notes, size_t *n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* A note for people, kept until ibve_monitor_note() hands it out. */
struct ibve_monitor;
void ibve_monitor_add_note(struct ibve_monitor *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The generic row used for codes this version does not know. */
void ibve_event_set_unknown(struct ibve_event *ev, enum ibve_source source,
			    int code);

#endif
