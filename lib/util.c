// SPDX-License-Identifier: MIT
/* The error idiom, notes and time arithmetic, each written once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "source.h"

static _Thread_local char errmsg[512];

IBVE_EXPORT int ibve_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	va_end(ap);
	return err > 0 ? -err : err ? err : -EIO;
}

IBVE_EXPORT const char *ibve_errmsg(void)
{
	return errmsg;
}

bool ibve_notes_addv(char ***notes, size_t *n, const char *fmt, va_list ap)
{
	char **v = realloc(*notes, (*n + 1) * sizeof(*v));

	if (!v)
		return false;
	*notes = v;
	if (vasprintf(&v[*n], fmt, ap) < 0)
		return false;
	(*n)++;
	return true;
}

void ibve_ts_add(struct timespec *t, double seconds)
{
	long long ns = (long long)(seconds * 1e9);

	t->tv_sec += (time_t)(ns / 1000000000LL);
	t->tv_nsec += (long)(ns % 1000000000LL);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	} else if (t->tv_nsec < 0) {
		t->tv_sec--;
		t->tv_nsec += 1000000000L;
	}
}

void ibve_ts_add_ms(struct timespec *t, long ms)
{
	t->tv_sec += ms / 1000;
	t->tv_nsec += (ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

bool ibve_ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

double ibve_ts_secs(const struct timespec *from, const struct timespec *to)
{
	return (double)(to->tv_sec - from->tv_sec) +
	       (double)(to->tv_nsec - from->tv_nsec) / 1e9;
}

void ibve_host_note(const struct ibve_host *h, enum ibve_note_kind kind,
		    const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	h->note(h->ctx, kind, text);
}

bool ibve_utf8_copy(char *dst, const char *src, size_t size)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t used = 0;

	while (*p) {
		size_t n = ibve_utf8_len(p), out = n ? n : 3;
		const void *from = n ? (const void *)p : "\xef\xbf\xbd";

		if (used + out >= size) {
			dst[used] = '\0';
			return false;
		}
		memcpy(dst + used, from, out);
		used += out;
		p += n ? n : 1;
	}
	dst[used] = '\0';
	return true;
}
