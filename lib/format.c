// SPDX-License-Identifier: MIT
/*
 * One print path per format: text for people, JSON Lines for programs.
 * Both write into a caller's buffer so a line is written with one call.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "buf.h"
#include "fields.h"

/* Year, month and day of day Z since 1970-01-01 (proleptic Gregorian). */
static void civil_from_days(int64_t z, int64_t *y, unsigned int *m,
			    unsigned int *d)
{
	int64_t era;
	unsigned int doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned int)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* V in exactly WIDTH decimal digits at P. */
static void put_digits(char *p, uint64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--, v /= 10)
		p[i] = (char)('0' + v % 10);
}

/*
 * Written for every record, so without gmtime_r() and printf(); the date
 * and time of the last second written are kept (records come in bursts
 * within a second), so most records only write their nanoseconds.
 */
IBVE_EXPORT size_t ibve_time_format(const struct timespec *ts, char *buf,
				    size_t size)
{
	static __thread struct {
		time_t sec;
		bool set;
		char s[19];
	} last;
	struct ibve_buf b = { buf, size, 0 };
	int64_t days = ts->tv_sec / 86400, sec = ts->tv_sec % 86400, y;
	unsigned int m, d;
	char s[30];

	if (!last.set || last.sec != ts->tv_sec || ts->tv_nsec < 0 ||
	    ts->tv_nsec > 999999999) {
		if (sec < 0) {
			sec += 86400;
			days--;
		}
		civil_from_days(days, &y, &m, &d);
		if (y < 0 || y > 9999 || ts->tv_nsec < 0 ||
		    ts->tv_nsec > 999999999) {
			ibve_buf_printf(&b,
					"%04" PRId64
					"-%02u-%02uT%02d:%02d:%02d.%09ldZ",
					y, m, d, (int)(sec / 3600),
					(int)(sec / 60 % 60), (int)(sec % 60),
					(long)ts->tv_nsec);
			return ibve_buf_end(&b);
		}
		memcpy(last.s, "YYYY-MM-DDTHH:MM:SS", sizeof(last.s));
		put_digits(last.s, (uint64_t)y, 4);
		put_digits(last.s + 5, m, 2);
		put_digits(last.s + 8, d, 2);
		put_digits(last.s + 11, (uint64_t)(sec / 3600), 2);
		put_digits(last.s + 14, (uint64_t)(sec / 60 % 60), 2);
		put_digits(last.s + 17, (uint64_t)(sec % 60), 2);
		last.sec = ts->tv_sec;
		last.set = true;
	}
	memcpy(s, last.s, sizeof(last.s));
	s[19] = '.';
	put_digits(s + 20, (uint64_t)ts->tv_nsec, 9);
	s[29] = 'Z';
	ibve_buf_put(&b, s, sizeof(s));
	return ibve_buf_end(&b);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (no timegm: this
 * runs for every replayed line). */
static time_t days_from_civil(int y, int m, int d)
{
	int era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (time_t)era * 146097 + doe - 719468;
}

/* The value of the N (<= 9) digits at S, or -1. */
static long digits_at(const char *s, int n)
{
	long v = 0;

	for (int i = 0; i < n; i++) {
		unsigned int c = (unsigned char)s[i] - (unsigned int)'0';

		if (c > 9)
			return -1;
		v = v * 10 + c;
	}
	return v;
}

static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

/* "YYYY-MM-DDTHH:MM:SS" at S (19 bytes) into *T, in seconds since the epoch. */
static int date_time(const char *s, time_t *t)
{
	long y = digits_at(s, 4), mo = digits_at(s + 5, 2),
	     d = digits_at(s + 8, 2), h = digits_at(s + 11, 2),
	     mi = digits_at(s + 14, 2), sec = digits_at(s + 17, 2);

	if (s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
	    s[13] != ':' || s[16] != ':' || y < 0 || mo < 1 || mo > 12 ||
	    d < 1 || d > mdays[mo - 1] || h < 0 || h > 23 || mi < 0 ||
	    mi > 59 || sec < 0 || sec > 60)
		return -EINVAL;
	*t = days_from_civil((int)y, (int)mo, (int)d) * 86400 + h * 3600 +
	     mi * 60 + sec;
	return 0;
}

IBVE_EXPORT int ibve_time_parse(const char *s, struct timespec *ts)
{
	/* the last date and time read, and its second: lines come in bursts */
	static __thread struct {
		char s[19];
		time_t sec;
		bool set;
	} last;
	long nsec = 0;
	int off = 0;

	if (strnlen(s, 19) < 19)
		return -EINVAL;
	if (!last.set || memcmp(s, last.s, sizeof(last.s)) != 0) {
		if (date_time(s, &last.sec)) {
			last.set = false;
			return -EINVAL;
		}
		memcpy(last.s, s, sizeof(last.s));
		last.set = true;
	}
	s += 19;
	if (*s == '.') {
		int n = 0;

		if ((unsigned char)(*++s - '0') > 9)
			return -EINVAL;
		for (; (unsigned char)(*s - '0') <= 9; s++, n++)
			if (n < 9)
				nsec = nsec * 10 + (*s - '0');
		for (; n < 9; n++)
			nsec *= 10;
	}
	if (*s == 'Z' || *s == 'z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		long hh = digits_at(s + 1, 2), mm;

		/* in order: the string may end anywhere */
		if (hh < 0 || hh > 23 || s[3] != ':' ||
		    (mm = digits_at(s + 4, 2)) < 0 || mm > 59)
			return -EINVAL;
		off = (*s == '-' ? -1 : 1) * (int)(hh * 3600 + mm * 60);
		s += 6;
	} else {
		return -EINVAL;
	}
	if (*s)
		return -EINVAL;
	ts->tv_sec = last.sec - off;
	ts->tv_nsec = nsec;
	return 0;
}

static const char *const sev_color[] = {
	[IBVE_SEVERITY_INFO] = "\033[32m",
	[IBVE_SEVERITY_WARNING] = "\033[33m",
	[IBVE_SEVERITY_ERROR] = "\033[31m",
	[IBVE_SEVERITY_FATAL] = "\033[1;31m",
};

IBVE_EXPORT size_t ibve_event_format_text(const struct ibve_event *ev,
					  char *buf, size_t size,
					  unsigned int flags)
{
	struct ibve_buf b = { buf, size, 0 };
	size_t start;
	bool color = flags & IBVE_FORMAT_COLOR;
	unsigned int sev = ev->severity < IBVE_SEVERITY_COUNT
				   ? ev->severity
				   : IBVE_SEVERITY_WARNING;

	ibve_buf_local_time(&b, &ev->time, true);
	ibve_buf_putc(&b, ' ');

	start = b.len;
	ibve_buf_text_str(&b, ev->device);
	if (ev->port)
		ibve_buf_printf(&b, "/%u", ev->port);
	while (b.len - start < 10)
		ibve_buf_putc(&b, ' ');
	ibve_buf_putc(&b, ' ');

	start = b.len;
	if (color)
		ibve_buf_puts(&b, "\033[1m");
	ibve_buf_text_str(&b, ev->name);
	if (color)
		ibve_buf_puts(&b, "\033[0m");
	for (size_t w = b.len - start - (color ? 8 : 0); w < 20; w++)
		ibve_buf_putc(&b, ' ');
	ibve_buf_putc(&b, ' ');

	if (color)
		ibve_buf_puts(&b, sev_color[sev]);
	ibve_buf_printf(&b, "%-7s", ibve_severity_name(ev->severity));
	if (color)
		ibve_buf_puts(&b, "\033[0m");
	ibve_buf_putc(&b, ' ');
	ibve_buf_event_text(&b, ev);
	ibve_buf_event_details(&b, ev);
	ibve_buf_putc(&b, '\n');
	return ibve_buf_end(&b);
}

void ibve_buf_event_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	if (ev->fields & IBVE_FIELD_SUMMARY)
		ibve_buf_summary(b, ev);
	else
		ibve_buf_puts(b, ibve_event_text(ev));
}

IBVE_EXPORT int ibve_severity_syslog(enum ibve_severity severity)
{
	static const int level[IBVE_SEVERITY_COUNT] = {
		[IBVE_SEVERITY_INFO] = LOG_INFO,
		[IBVE_SEVERITY_WARNING] = LOG_WARNING,
		[IBVE_SEVERITY_ERROR] = LOG_ERR,
		[IBVE_SEVERITY_FATAL] = LOG_CRIT,
	};

	return (unsigned int)severity < IBVE_SEVERITY_COUNT ? level[severity]
							    : LOG_WARNING;
}

IBVE_EXPORT size_t ibve_event_format_syslog(const struct ibve_event *ev,
					    char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };

	ibve_buf_puts(&b, "device=");
	ibve_buf_text_str(&b, ev->device);
	if (ev->port)
		ibve_buf_printf(&b, " port=%u", ev->port);
	ibve_buf_puts(&b, " event=");
	ibve_buf_text_str(&b, ev->name);
	ibve_buf_printf(&b, " severity=%s", ibve_severity_name(ev->severity));
	if (ev->code >= 0)
		ibve_buf_printf(&b, " code=%d", ev->code);
	ibve_buf_printf(&b, " source=%s: ", ibve_source_name(ev->source));
	ibve_buf_event_text(&b, ev);
	ibve_buf_event_details(&b, ev);
	return ibve_buf_end(&b);
}

/* The members an event's row decides, "event" to "source". */
static void json_identity(struct ibve_json *j, const struct ibve_event *ev)
{
	ibve_json_str(j, "event", ev->name);
	if (ev->code >= 0)
		ibve_json_uint(j, "code", (uint64_t)ev->code);
	else
		ibve_json_null(j, "code");
	ibve_json_name(j, "class", ibve_class_name(ev->cls));
	ibve_json_name(j, "severity", ibve_severity_name(ev->severity));
	ibve_json_bool(j, "affiliated", ev->affiliated);
	ibve_json_name(j, "source", ibve_source_name(ev->source));
}

/*
 * Those members of each row of the event table as json_identity() writes
 * them (after a member, so with the comma), made once: a record that says
 * what its row says gets them in one copy. A replay writes millions.
 */
#define SEG_ROWS 256
#define SEG_MAX	 176

static struct {
	char s[SEG_MAX];
	unsigned char len; /* 0: written member by member */
} segs[SEG_ROWS];
static size_t nsegs;
static pthread_once_t segs_once = PTHREAD_ONCE_INIT;

static void make_segs(void)
{
	const struct ibve_event_desc *d;

	for (nsegs = 0; nsegs < SEG_ROWS && (d = ibve_event_desc_at(nsegs));
	     nsegs++) {
		struct ibve_event ev = { .code = -1 };
		struct ibve_buf b = { segs[nsegs].s, SEG_MAX, 0 };
		struct ibve_json j;

		ibve_event_set_code(&ev, d->source, d->code);
		if (ev.desc != d)
			continue; /* a row another hides: not made */
		ibve_json_init(&j, &b);
		j.first[j.depth] = false;
		json_identity(&j, &ev);
		if (b.len < SEG_MAX)
			segs[nsegs].len = (unsigned char)b.len;
	}
}

/* The row's members made, when EV says what its row says; else NULL. */
static const char *identity_seg(const struct ibve_event *ev, size_t *len)
{
	const struct ibve_event_desc *d = ev->desc, *first;
	uintptr_t at;

	pthread_once(&segs_once, make_segs);
	first = ibve_event_desc_at(0);
	at = (uintptr_t)d - (uintptr_t)first;
	if (!d || at % sizeof(*d) || at / sizeof(*d) >= nsegs)
		return NULL;
	at /= sizeof(*d);
	if (!segs[at].len || ev->code != d->code || ev->source != d->source ||
	    ev->cls != d->cls || ev->severity != d->severity ||
	    ev->affiliated != d->affiliated || strcmp(ev->name, d->name) != 0)
		return NULL;
	*len = segs[at].len;
	return segs[at].s;
}

/*
 * EV's JSON line, or with FIELDS the same members as the journal's fields
 * (buf.h's fields mode): one writer for both, so that they cannot differ.
 */
static size_t format_event(const struct ibve_event *ev, char *buf, size_t size,
			   bool fields)
{
	struct ibve_buf b = { buf, size, 0 };
	struct ibve_json j;
	char tmp[64];
	const char *seg;
	size_t n;

	if (fields)
		ibve_json_init_fields(&j, &b);
	else
		ibve_json_init(&j, &b);
	ibve_json_open(&j, NULL);
	n = ibve_time_format(&ev->time, tmp, sizeof(tmp));
	ibve_json_name_n(&j, "time", tmp, n < sizeof(tmp) ? n : strlen(tmp));
	ibve_json_str(&j, "device", ev->device);
	ibve_json_uint_or_null(&j, "port", ev->port);
	if (!fields && (seg = identity_seg(ev, &n)))
		ibve_buf_put(&b, seg, n);
	else
		json_identity(&j, ev);
	if (ev->node_guid) {
		n = ibve_guid_format(ev->node_guid, tmp, sizeof(tmp));
		ibve_json_name_n(&j, "node_guid", tmp, n);
	} else {
		ibve_json_null(&j, "node_guid");
	}
	ibve_json_event_fields(&j, ev);
	ibve_json_close(&j);
	if (!fields)
		ibve_buf_putc(&b, '\n');
	return ibve_buf_end(&b);
}

IBVE_EXPORT size_t ibve_event_format_json(const struct ibve_event *ev,
					  char *buf, size_t size)
{
	return format_event(ev, buf, size, false);
}

size_t ibve_event_format_fields(const struct ibve_event *ev, char *buf,
				size_t size)
{
	return format_event(ev, buf, size, true);
}

IBVE_EXPORT size_t ibve_event_format_details(const struct ibve_event *ev,
					     char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };

	ibve_buf_event_details(&b, ev);
	return ibve_buf_end(&b);
}
