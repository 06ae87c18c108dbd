/* SPDX-License-Identifier: MIT */
/* A few TAP helpers for the unit tests: each check is one TAP line. */
#ifndef IBVE_TAP_H
#define IBVE_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3))) static bool ok(bool cond, const char *fmt,
						     ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	return cond;
}

#define is_int(got, want, ...)                                           \
	do {                                                             \
		long long g_ = (long long)(got), w_ = (long long)(want); \
		if (!ok(g_ == w_, __VA_ARGS__))                          \
			printf("#   got %lld, want %lld\n", g_, w_);     \
	} while (0)

#define is_str(got, want, ...)                                          \
	do {                                                            \
		const char *g_ = (got), *w_ = (want);                   \
		if (!ok(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__))  \
			printf("#   got  '%s'\n#   want '%s'\n",        \
			       g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
	} while (0)

static int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
