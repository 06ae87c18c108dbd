// SPDX-License-Identifier: MIT
/*
 * One print path per format: text for people, JSON Lines for programs.
 * Both write into a caller's buffer so a line is written with one call.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include "internal.h"

void ibve_buf_put(struct ibve_buf *b, const char *s, size_t n)
{
	if (b->len < b->size) {
		size_t room = b->size - b->len;

		memcpy(b->p + b->len, s, n < room ? n : room);
	}
	b->len += n;
}

void ibve_buf_putc(struct ibve_buf *b, char c)
{
	if (b->len < b->size)
		b->p[b->len] = c;
	b->len++;
}

void ibve_buf_puts(struct ibve_buf *b, const char *s)
{
	ibve_buf_put(b, s, strlen(s));
}

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

/* Terminate and return the length, as snprintf does. */
size_t ibve_buf_end(struct ibve_buf *b)
{
	if (b->size)
		b->p[b->len < b->size ? b->len : b->size - 1] = '\0';
	return b->len;
}

static const char hexdig[] = "0123456789abcdef";

void ibve_buf_json_str(struct ibve_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	ibve_buf_putc(b, '"');
	while (*p) {
		size_t run = 0;

		/* Copy plain runs in one go. */
		while (p[run] >= 0x20 && p[run] < 0x7f && p[run] != '"' &&
		       p[run] != '\\')
			run++;
		if (run) {
			ibve_buf_put(b, (const char *)p, run);
			p += run;
			continue;
		}
		if (*p == '"' || *p == '\\') {
			ibve_buf_putc(b, '\\');
			ibve_buf_putc(b, (char)*p++);
		} else if (*p == '\n') {
			ibve_buf_puts(b, "\\n");
			p++;
		} else if (*p == '\t') {
			ibve_buf_puts(b, "\\t");
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			ibve_buf_printf(b, "\\u%04x", *p++);
		} else {
			size_t n = ibve_utf8_len(p);

			if (n) {
				ibve_buf_put(b, (const char *)p, n);
				p += n;
			} else {
				/*
				 * Not UTF-8: U+FFFD, written as UTF-8 like any
				 * other character so a record read back and
				 * written again comes out byte for byte the same.
				 */
				ibve_buf_puts(b, "\xef\xbf\xbd");

				p++;
			}
		}
	}
	ibve_buf_putc(b, '"');
}

void ibve_buf_text_str(struct ibve_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = ibve_utf8_len(p);

		if (n == 1 && (*p < 0x20 || *p == 0x7f || *p == '\\')) {
			if (*p == '\\')
				ibve_buf_puts(b, "\\\\");
			else
				ibve_buf_printf(b, "\\x%02x", *p);
			p++;
		} else if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
			/* C1 controls would steer a terminal too. */
			ibve_buf_printf(b, "\\x%02x\\x%02x", p[0], p[1]);
			p += 2;
		} else if (n) {
			ibve_buf_put(b, (const char *)p, n);
			p += n;
		} else {
			ibve_buf_printf(b, "\\x%02x", *p++);
		}
	}
}

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

/* Written for every record, so without gmtime_r() and printf(). */
IBVE_EXPORT size_t ibve_time_format(const struct timespec *ts, char *buf,
				    size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	int64_t days = ts->tv_sec / 86400, sec = ts->tv_sec % 86400, y;
	unsigned int m, d;
	char s[30];

	if (sec < 0) {
		sec += 86400;
		days--;
	}
	civil_from_days(days, &y, &m, &d);
	if (y < 0 || y > 9999 || ts->tv_nsec < 0 || ts->tv_nsec > 999999999) {
		ibve_buf_printf(&b,
				"%04" PRId64 "-%02u-%02uT%02d:%02d:%02d.%09ldZ",
				y, m, d, (int)(sec / 3600),
				(int)(sec / 60 % 60), (int)(sec % 60),
				(long)ts->tv_nsec);
		return ibve_buf_end(&b);
	}
	put_digits(s, (uint64_t)y, 4);
	s[4] = '-';
	put_digits(s + 5, m, 2);
	s[7] = '-';
	put_digits(s + 8, d, 2);
	s[10] = 'T';
	put_digits(s + 11, (uint64_t)(sec / 3600), 2);
	s[13] = ':';
	put_digits(s + 14, (uint64_t)(sec / 60 % 60), 2);
	s[16] = ':';
	put_digits(s + 17, (uint64_t)(sec % 60), 2);
	s[19] = '.';
	put_digits(s + 20, (uint64_t)ts->tv_nsec, 9);
	s[29] = 'Z';
	ibve_buf_put(&b, s, sizeof(s));
	return ibve_buf_end(&b);
}

static int digits(const char **s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++, (*s)++) {
		if ((unsigned char)(**s - '0') > 9)
			return -1;
		v = v * 10 + (**s - '0');
	}
	return v;
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

IBVE_EXPORT int ibve_time_parse(const char *s, struct timespec *ts)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30,
				     31, 31, 30, 31, 30, 31 };
	long nsec = 0;
	int off = 0, v[6];
	time_t t;

	v[0] = digits(&s, 4);
	if (v[0] < 0 || *s++ != '-')
		return -EINVAL;
	v[1] = digits(&s, 2);
	if (v[1] < 1 || v[1] > 12 || *s++ != '-')
		return -EINVAL;
	v[2] = digits(&s, 2);
	if (v[2] < 1 || v[2] > mdays[v[1] - 1] || (*s != 'T' && *s != 't'))
		return -EINVAL;
	s++;
	v[3] = digits(&s, 2);
	if (v[3] < 0 || v[3] > 23 || *s++ != ':')
		return -EINVAL;
	v[4] = digits(&s, 2);
	if (v[4] < 0 || v[4] > 59 || *s++ != ':')
		return -EINVAL;
	v[5] = digits(&s, 2);
	if (v[5] < 0 || v[5] > 60)
		return -EINVAL;
	if (*s == '.') {
		long scale = 100000000;

		s++;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		for (; isdigit((unsigned char)*s); s++) {
			nsec += (*s - '0') * scale;
			scale /= 10;
		}
	}
	if (*s == 'Z' || *s == 'z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		int sign = *s++ == '-' ? -1 : 1, hh, mm;

		hh = digits(&s, 2);
		if (hh < 0 || hh > 23 || *s++ != ':')
			return -EINVAL;
		mm = digits(&s, 2);
		if (mm < 0 || mm > 59)
			return -EINVAL;
		off = sign * (hh * 3600 + mm * 60);
	} else {
		return -EINVAL;
	}
	if (*s)
		return -EINVAL;
	t = days_from_civil(v[0], v[1], v[2]) * 86400 + v[3] * 3600 +
	    v[4] * 60 + v[5];
	ts->tv_sec = t - off;
	ts->tv_nsec = nsec;
	return 0;
}

IBVE_EXPORT size_t ibve_guid_format(uint64_t guid, char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	char s[19];

	for (int i = 0, k = 0; i < 16; i++) {
		if (i && i % 4 == 0)
			s[k++] = ':';
		s[k++] = hexdig[guid >> (60 - 4 * i) & 0xf];
	}
	ibve_buf_put(&b, s, sizeof(s));
	return ibve_buf_end(&b);
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

static void put_hex(struct ibve_buf *b, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ibve_buf_putc(b, hexdig[p[i] >> 4]);
		ibve_buf_putc(b, hexdig[p[i] & 0xf]);
	}
}

static void put_gid(struct ibve_buf *b, const uint8_t *gid)
{
	for (int i = 0; i < 16; i += 2)
		ibve_buf_printf(b, "%s%02x%02x", i ? ":" : "", gid[i],
				gid[i + 1]);
}

static const char *const sev_color[] = {
	[IBVE_SEVERITY_INFO] = "\033[32m",
	[IBVE_SEVERITY_WARNING] = "\033[33m",
	[IBVE_SEVERITY_ERROR] = "\033[31m",
	[IBVE_SEVERITY_FATAL] = "\033[1;31m",
};

/* Object identity and source details: " (qp 0x000011, handle 3)". */
void ibve_buf_event_details(struct ibve_buf *b, const struct ibve_event *ev)
{
	size_t start = b->len;

#define SEP() ibve_buf_puts(b, b->len == start ? " (" : ", ")
	if (ev->fields & IBVE_FIELD_MLX5) {
		SEP();
		ibve_mlx5_details(b, ev);
	}
	if (ev->fields & IBVE_FIELD_QP_NUM) {
		SEP();
		ibve_buf_printf(b, "qp 0x%06x", ev->qp_num);
	}
	if (ev->fields & IBVE_FIELD_WQ_NUM) {
		SEP();
		ibve_buf_printf(b, "wq 0x%06x", ev->wq_num);
	}
	if (ev->fields & IBVE_FIELD_HANDLE) {
		SEP();
		/* "cq handle 3" where there is no number to name the object */
		if (!(ev->fields & (IBVE_FIELD_QP_NUM | IBVE_FIELD_WQ_NUM)))
			ibve_buf_printf(b, "%s ", ibve_class_name(ev->cls));
		ibve_buf_printf(b, "handle %u", ev->handle);
	}
	if (ev->fields & IBVE_FIELD_CHARDEV) {
		SEP();
		ibve_buf_text_str(b, ev->chardev);
	}
	if (ev->fields & IBVE_FIELD_NETDEV) {
		SEP();
		ibve_buf_puts(b, "netdev ");
		ibve_buf_text_str(b, ev->netdev[0] ? ev->netdev : "?");
	}
	if (ev->fields & IBVE_FIELD_LOST) {
		SEP();
		ibve_buf_printf(b, "lost %" PRIu64, ev->lost);
	}
	if (ev->fields & IBVE_FIELD_SM) {
		SEP();
		ibve_buf_puts(b, "gid ");
		put_gid(b, ev->sm.gid);
		ibve_buf_printf(b, ", issuer lid %u", ev->sm.issuer_lid);
	}
#undef SEP
	if (b->len != start)
		ibve_buf_putc(b, ')');
}

IBVE_EXPORT size_t ibve_event_format_text(const struct ibve_event *ev,
					  char *buf, size_t size,
					  unsigned int flags)
{
	struct ibve_buf b = { buf, size, 0 };
	struct tm tm;
	time_t t = ev->time.tv_sec;
	size_t start;
	bool color = flags & IBVE_FORMAT_COLOR;
	unsigned int sev = ev->severity < IBVE_SEVERITY_COUNT
				   ? ev->severity
				   : IBVE_SEVERITY_WARNING;

	localtime_r(&t, &tm);
	ibve_buf_printf(&b, "%04d-%02d-%02d %02d:%02d:%02d.%03ld ",
			tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			tm.tm_hour, tm.tm_min, tm.tm_sec,
			ev->time.tv_nsec / 1000000);

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
	ibve_buf_puts(&b, ibve_event_text(ev));
	ibve_buf_event_details(&b, ev);
	ibve_buf_putc(&b, '\n');
	return ibve_buf_end(&b);
}

IBVE_EXPORT int ibve_severity_syslog(enum ibve_severity severity)
{
	switch (severity) {
	case IBVE_SEVERITY_INFO:
		return LOG_INFO;
	case IBVE_SEVERITY_WARNING:
		return LOG_WARNING;
	case IBVE_SEVERITY_ERROR:
		return LOG_ERR;
	case IBVE_SEVERITY_FATAL:
		return LOG_CRIT;
	case IBVE_SEVERITY_COUNT:
		break;
	}
	return LOG_WARNING;
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
	ibve_buf_printf(&b, " source=%s: %s", ibve_source_name(ev->source),
			ibve_event_text(ev));
	ibve_buf_event_details(&b, ev);
	return ibve_buf_end(&b);
}

static void json_key(struct ibve_buf *b, const char *key)
{
	ibve_buf_puts(b, ",\"");
	ibve_buf_puts(b, key);
	ibve_buf_puts(b, "\":");
}

IBVE_EXPORT size_t ibve_event_format_json(const struct ibve_event *ev,
					  char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	char tmp[64];

	ibve_time_format(&ev->time, tmp, sizeof(tmp));
	ibve_buf_puts(&b, "{\"time\":\"");
	ibve_buf_puts(&b, tmp);
	ibve_buf_putc(&b, '"');
	json_key(&b, "device");
	ibve_buf_json_str(&b, ev->device);
	json_key(&b, "port");
	if (ev->port)
		ibve_buf_printf(&b, "%u", ev->port);
	else
		ibve_buf_puts(&b, "null");
	json_key(&b, "event");
	ibve_buf_json_str(&b, ev->name);
	json_key(&b, "code");
	if (ev->code >= 0)
		ibve_buf_printf(&b, "%d", ev->code);
	else
		ibve_buf_puts(&b, "null");
	json_key(&b, "class");
	ibve_buf_json_str(&b, ibve_class_name(ev->cls));
	json_key(&b, "severity");
	ibve_buf_json_str(&b, ibve_severity_name(ev->severity));
	json_key(&b, "affiliated");
	ibve_buf_puts(&b, ev->affiliated ? "true" : "false");
	json_key(&b, "source");
	ibve_buf_json_str(&b, ibve_source_name(ev->source));
	json_key(&b, "node_guid");
	if (ev->node_guid) {
		ibve_guid_format(ev->node_guid, tmp, sizeof(tmp));
		ibve_buf_json_str(&b, tmp);
	} else {
		ibve_buf_puts(&b, "null");
	}
	if (ev->fields & IBVE_FIELD_QP_NUM) {
		json_key(&b, "qp_num");
		ibve_buf_printf(&b, "%u", ev->qp_num);
	}
	if (ev->fields & IBVE_FIELD_WQ_NUM) {
		json_key(&b, "wq_num");
		ibve_buf_printf(&b, "%u", ev->wq_num);
	}
	if (ev->fields & IBVE_FIELD_HANDLE) {
		json_key(&b, "handle");
		ibve_buf_printf(&b, "%u", ev->handle);
	}
	if (ev->fields & IBVE_FIELD_CHARDEV) {
		json_key(&b, "chardev");
		ibve_buf_json_str(&b, ev->chardev);
	}
	if (ev->fields & IBVE_FIELD_NETDEV) {
		json_key(&b, "netdev");
		ibve_buf_json_str(&b, ev->netdev);
		json_key(&b, "netdev_index");
		ibve_buf_printf(&b, "%u", ev->netdev_index);
	}
	if (ev->fields & IBVE_FIELD_LOST) {
		json_key(&b, "lost");
		ibve_buf_printf(&b, "%" PRIu64, ev->lost);
	}
	if (ev->fields & IBVE_FIELD_SM) {
		json_key(&b, "gid");
		ibve_buf_putc(&b, '"');
		put_gid(&b, ev->sm.gid);
		ibve_buf_putc(&b, '"');
		json_key(&b, "issuer_lid");
		ibve_buf_printf(&b, "%u", ev->sm.issuer_lid);
		json_key(&b, "producer_type");
		ibve_buf_printf(&b, "%u", ev->sm.producer_type);
	}
	if (ev->fields & IBVE_FIELD_MLX5) {
		ibve_mlx5_json(&b, ev);
		json_key(&b, "eqe");
		ibve_buf_putc(&b, '"');
		put_hex(&b, ev->mlx5.eqe, sizeof(ev->mlx5.eqe));
		ibve_buf_putc(&b, '"');
	}
	ibve_buf_puts(&b, "}\n");
	return ibve_buf_end(&b);
}
