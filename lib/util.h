/* SPDX-License-Identifier: MIT */
/*
 * What almost every file of the library needs (util.c): the error idiom,
 * strings, time arithmetic, the environment. Nothing here is exported.
 */
#ifndef IBVE_UTIL_H
#define IBVE_UTIL_H

#include <stdarg.h>
#include <string.h>

#include "ibvevent.h"

#define IBVE_EXPORT   __attribute__((visibility("default")))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Sizes of tables inside the library only: the public severities, and
 * the sources (sources.c's list, the watcher's own metrics of them). */
#define IBVE_SEVERITY_COUNT (IBVE_SEVERITY_FATAL + 1)
#define IBVE_SOURCES_MAX    16

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
	size_t n = s[0] < 0x80	 ? 1
		   : s[0] < 0xc2 ? 0
		   : s[0] < 0xe0 ? 2
		   : s[0] < 0xf0 ? 3
		   : s[0] < 0xf5 ? 4
				 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * SRC into DST of SIZE bytes as the records are written: a byte that is
 * not UTF-8 as U+FFFD, whole characters only, so that what is written
 * reads back. False when SRC did not fit (DST holds what did).
 */
bool ibve_utf8_copy(char *dst, const char *src, size_t size);

/*
 * The error idiom: a failing function returns ibve_error(errno, what) — a
 * negative errno — after saying why for ibve_errmsg().
 */
int ibve_error(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append a formatted note to the list *NOTES of *N; false if out of memory. */
bool ibve_notes_addv(char ***notes, size_t *n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Time arithmetic, written once. */
void ibve_ts_add(struct timespec *t, double seconds);
void ibve_ts_add_ms(struct timespec *t, long ms);
bool ibve_ts_before(const struct timespec *a, const struct timespec *b);
double ibve_ts_secs(const struct timespec *from, const struct timespec *to);

/*
 * A source's own environment variable NAME (IBVEVENT_...): seconds, at
 * most a day, 0 when unset or not a number; whether it is VALUE.
 */
unsigned int ibve_env_seconds(const char *name);
bool ibve_env_is(const char *name, const char *value);

#endif
