// SPDX-License-Identifier: MIT
/* The error idiom, notes, time arithmetic and GUIDs, each written once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

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

static void ts_add_ns(struct timespec *t, long long ns)
{
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

void ibve_ts_add(struct timespec *t, double seconds)
{
	ts_add_ns(t, (long long)(seconds * 1e9));
}

void ibve_ts_add_ms(struct timespec *t, long ms)
{
	ts_add_ns(t, ms * 1000000LL);
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

IBVE_EXPORT size_t ibve_guid_format(uint64_t guid, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	char s[20];

	/* four groups of four digits; ibve_strcpy(), not the buffer writer:
	 * buf.o's peer writer uses this, and objects must not depend on each
	 * other both ways */
	for (int i = 0, bit = 64; i < 19; i++)
		s[i] = i % 5 == 4 ? ':' : hex[guid >> (bit -= 4) & 0xf];
	s[19] = '\0';
	if (size)
		ibve_strcpy(buf, s, size);
	return 19;
}

/* Hex digits' values + 1; 0 for any other byte (read for every line). */
static const uint8_t hex1[256] = {
	['0'] = 1,  ['1'] = 2,	['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

IBVE_EXPORT int ibve_guid_parse(const char *s, uint64_t *guid)
{
	uint64_t v = 0;
	int n = 0;

	/* the form the writer puts: xxxx:xxxx:xxxx:xxxx */
	if (strnlen(s, 20) == 19 && s[4] == ':' && s[9] == ':' &&
	    s[14] == ':') {
		unsigned int ok = 1;

		for (int g = 0; g < 4; g++)
			for (int i = 0; i < 4; i++) {
				unsigned int h =
					hex1[(unsigned char)s[5 * g + i]];

				ok &= h != 0;
				v = v << 4 | (h - 1);
			}
		if (ok) {
			*guid = v;
			return 0;
		}
		v = 0;
	}

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++) {
		unsigned int h = hex1[(unsigned char)*s];

		if (*s == ':')
			continue;
		if (!h || ++n > 16)
			return -EINVAL;
		v = v << 4 | (h - 1);
	}
	if (!n)
		return -EINVAL;
	*guid = v;
	return 0;
}

unsigned int ibve_env_seconds(const char *name)
{
	const char *env = getenv(name);
	char *end;
	unsigned long v;

	if (!env || !*env)
		return 0;
	errno = 0;
	v = strtoul(env, &end, 10);
	return errno || *end || v > 86400 ? 0 : (unsigned int)v;
}

bool ibve_env_is(const char *name, const char *value)
{
	const char *env = getenv(name);

	return env && strcmp(env, value) == 0;
}
