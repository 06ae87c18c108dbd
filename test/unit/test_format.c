// SPDX-License-Identifier: MIT
/* Text and JSON formatting, times, GUIDs, escaping, and parsing back. */
#include <errno.h>
#include <stdlib.h>

#include "ibvevent.h"
#include "tap.h"

static struct ibve_event base(void)
{
	struct ibve_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.time.tv_sec = 1795255200; /* 2026-11-21T10:00:00Z */
	ev.time.tv_nsec = 123456789;
	snprintf(ev.device, sizeof(ev.device), "mlx5_0");
	ev.port = 1;
	ev.node_guid = 0x0002c90300112233ull;
	ibve_event_set_code(&ev, IBVE_SOURCE_VERBS, 10);
	return ev;
}

static void test_json(void)
{
	struct ibve_event ev = base();
	char buf[1024];
	size_t n;

	n = ibve_event_format_json(&ev, buf, sizeof(buf));
	is_str(buf,
	       "{\"time\":\"2026-11-21T10:00:00.123456789Z\",\"device\":\"mlx5_0\","
	       "\"port\":1,\"event\":\"PORT_ERR\",\"code\":10,\"class\":\"port\","
	       "\"severity\":\"error\",\"affiliated\":false,\"source\":\"verbs\","
	       "\"node_guid\":\"0002:c903:0011:2233\"}\n",
	       "a port event as JSON");
	is_int(n, strlen(buf), "the length returned is the length written");

	ev = base();
	ev.port = 0;
	ev.node_guid = 0;
	ibve_event_set_code(&ev, IBVE_SOURCE_VERBS, 1);
	ev.qp_num = 17;
	ev.handle = 3;
	ev.fields = IBVE_FIELD_QP_NUM | IBVE_FIELD_HANDLE;
	ibve_event_format_json(&ev, buf, sizeof(buf));
	ok(strstr(buf, "\"port\":null,") && strstr(buf, "\"node_guid\":null") &&
		   strstr(buf, ",\"qp_num\":17,\"handle\":3}"),
	   "null port and GUID, QP identity: %s", buf);

	ev = base();
	ibve_event_set_code(&ev, IBVE_SOURCE_HOTPLUG, 1);
	ev.port = 0;
	snprintf(ev.chardev, sizeof(ev.chardev), "uverbs0");
	ev.fields = IBVE_FIELD_CHARDEV;
	ibve_event_format_json(&ev, buf, sizeof(buf));
	ok(strstr(buf,
		  "\"event\":\"DEVICE_REMOVED\",\"code\":1,\"class\":\"device\"") &&
		   strstr(buf, "\"source\":\"hotplug\"") &&
		   strstr(buf, "\"chardev\":\"uverbs0\""),
	   "a hot-plug record: %s", buf);

	ev = base();
	snprintf(ev.device, sizeof(ev.device), "a\"b\\c\n\x01\x7f\xff\xc3\xa9");
	ibve_event_format_json(&ev, buf, sizeof(buf));
	ok(strstr(buf,
		  "\"device\":\"a\\\"b\\\\c\\n\\u0001\\u007f\xef\xbf\xbd\xc3\xa9\""),

	   "JSON escapes quotes, backslashes, controls, invalid UTF-8: %s",
	   buf);

	ev = base();
	ev.code = -1;
	n = ibve_event_format_json(&ev, buf, 10);
	ok(n > 10 && strlen(buf) == 9,
	   "a short buffer: terminated, and the needed length is returned");
	ibve_event_format_json(&ev, buf, sizeof(buf));
	ok(strstr(buf, "\"code\":null"), "no code prints as null");

	/* every row's members, whether copied whole or written one by one */
	{
		const struct ibve_event_desc *d;
		size_t i, bad = 0, kept = 0, used = 0;
		char want[512];

		for (i = 0; (d = ibve_event_desc_at(i)); i++) {
			ev = base();
			ibve_event_set_code(&ev, d->source, d->code);
			if (ev.desc != d)
				continue;
			used++;
			ibve_event_format_json(&ev, buf, sizeof(buf));
			snprintf(
				want, sizeof(want),
				",\"event\":\"%s\",\"code\":%d,\"class\":\"%s\","
				"\"severity\":\"%s\",\"affiliated\":%s,"
				"\"source\":\"%s\",",
				d->name, d->code, ibve_class_name(d->cls),
				ibve_severity_name(d->severity),
				d->affiliated ? "true" : "false",
				ibve_source_name(d->source));
			bad += !strstr(buf, want);
			/* what the record says, where it differs from its row:
			 * one member at a time */
			for (int m = 0; m < 6; m++) {
				ev = base();
				ibve_event_set_code(&ev, d->source, d->code);
				switch (m) {
				case 0:
					snprintf(ev.name, sizeof(ev.name),
						 "X%s", d->name);
					break;
				case 1:
					ev.code = d->code + 1000;
					break;
				case 2:
					ev.cls = d->cls == IBVE_CLASS_PORT
							 ? IBVE_CLASS_QP
							 : IBVE_CLASS_PORT;
					break;
				case 3:
					ev.severity =
						d->severity == IBVE_SEVERITY_INFO
							? IBVE_SEVERITY_ERROR
							: IBVE_SEVERITY_INFO;
					break;
				case 4:
					ev.affiliated = !d->affiliated;
					break;
				default:
					ev.source =
						d->source == IBVE_SOURCE_KERNEL
							? IBVE_SOURCE_VERBS
							: IBVE_SOURCE_KERNEL;
					break;
				}
				ibve_event_format_json(&ev, buf, sizeof(buf));
				snprintf(want, sizeof(want),
					 ",\"event\":\"%s\",\"code\":%d,"
					 "\"class\":\"%s\",\"severity\":\"%s\","
					 "\"affiliated\":%s,\"source\":\"%s\",",
					 ev.name, ev.code,
					 ibve_class_name(ev.cls),
					 ibve_severity_name(ev.severity),
					 ev.affiliated ? "true" : "false",
					 ibve_source_name(ev.source));
				kept += strstr(buf, want) != NULL;
			}
		}
		is_int(bad, 0, "each of the %zu rows' members as its row says",
		       i);
		ok(used > 40 && kept == 6 * used,
		   "a record that differs from its row in one member prints "
		   "what it says (%zu of %zu: six members of each row)",
		   kept, 6 * used);
	}
}

static void test_text(void)
{
	struct ibve_event ev = base();
	char buf[1024];

	ibve_event_format_text(&ev, buf, sizeof(buf), 0);
	is_str(buf,
	       "2026-11-21 10:00:00.123+00:00 mlx5_0/1   PORT_ERR             error   "
	       "port left the active state: link down or lost\n",
	       "a port event as text, local time (TZ=UTC here)");

	ibve_event_format_text(&ev, buf, sizeof(buf), IBVE_FORMAT_COLOR);
	ok(strstr(buf, "\033[31merror  \033[0m") &&
		   strstr(buf, "\033[1mPORT_ERR\033[0m"),
	   "colour: severity in red, name in bold");
	ok(strstr(buf, "PORT_ERR\033[0m             \033[31m"),
	   "colour codes do not shift the columns");

	ibve_event_set_code(&ev, IBVE_SOURCE_VERBS, 0);
	ev.port = 0;
	ev.handle = 5;
	ev.fields = IBVE_FIELD_HANDLE;
	ibve_event_format_text(&ev, buf, sizeof(buf), 0);
	ok(strstr(buf, "mlx5_0     CQ_ERR ") && strstr(buf, " (cq handle 5)\n"),
	   "a CQ event names its CQ: %s", buf);

	ibve_event_set_code(&ev, IBVE_SOURCE_VERBS, 16);
	ev.qp_num = 0x11;
	ev.handle = 3;
	ev.fields = IBVE_FIELD_QP_NUM | IBVE_FIELD_HANDLE;
	ibve_event_format_text(&ev, buf, sizeof(buf), 0);
	ok(strstr(buf, " (qp 0x000011, handle 3)\n"), "a QP event: %s", buf);

	ev = base();
	snprintf(ev.device, sizeof(ev.device), "evil\033[2J\\\x9b");
	ibve_event_format_text(&ev, buf, sizeof(buf), 0);
	ok(strstr(buf, "evil\\x1b[2J\\\\\\x9b/1") && !strchr(buf, '\033'),
	   "text escapes terminal controls in names: %s", buf);

	ev = base();
	ibve_event_set_code(&ev, IBVE_SOURCE_VERBS, 21);
	ibve_event_format_text(&ev, buf, sizeof(buf), 0);
	ok(strstr(buf, "UNKNOWN(21)          warning "),
	   "unknown events print: %s", buf);
}

static void test_time_guid(void)
{
	struct timespec ts;
	char buf[64];
	uint64_t g;

	ok(ibve_time_parse("2026-11-21T10:00:00.123456789Z", &ts) == 0 &&
		   ts.tv_sec == 1795255200 && ts.tv_nsec == 123456789,
	   "RFC 3339 with nanoseconds");
	ok(ibve_time_parse("2026-11-21T11:30:00+01:30", &ts) == 0 &&
		   ts.tv_sec == 1795255200 && ts.tv_nsec == 0,
	   "an offset is applied");
	ok(ibve_time_parse("2026-11-21t10:00:00.5z", &ts) == 0 &&
		   ts.tv_nsec == 500000000,
	   "lower-case t and z, short fraction");
	static const char *const bad[] = {
		"2026-11-21 10:00:00Z",	 "2026-11-21T10:00:00",
		"2026-13-01T00:00:00Z",	 "2026-11-21T24:00:00Z",
		"2026-11-21T10:00:00.Z", "2026-11-21T10:00:00Zjunk",
		"26-11-21T10:00:00Z",	 "",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(ibve_time_parse(bad[i], &ts), -EINVAL,
		       "time '%s' refused", bad[i]);
	ts.tv_sec = 0;
	ts.tv_nsec = 5;
	ibve_time_format(&ts, buf, sizeof(buf));
	is_str(buf, "1970-01-01T00:00:00.000000005Z",
	       "time formats with 9 digits");

	ibve_guid_format(0x0002c90300112233ull, buf, sizeof(buf));
	is_str(buf, "0002:c903:0011:2233", "GUID format");
	ok(ibve_guid_parse("0002:c903:0011:2233", &g) == 0 &&
		   g == 0x0002c90300112233ull,
	   "GUID parse");
	ok(ibve_guid_parse("0x0002C90300112233", &g) == 0 &&
		   g == 0x0002c90300112233ull,
	   "GUID parse, 0x form");
	ok(ibve_guid_parse("0002:c903:0011:22334", &g) == -EINVAL &&
		   ibve_guid_parse("xyz", &g) == -EINVAL &&
		   ibve_guid_parse("", &g) == -EINVAL,
	   "bad GUIDs refused");
}

static void test_parse(void)
{
	struct ibve_event ev, back;
	char buf[1024];
	const char *line;

	line = "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"mlx5_0\",\"port\":1,\"event\":\"PORT_ERR\"}";
	ok(ibve_event_parse_json(line, strlen(line), &ev) == 0 &&
		   ev.port == 1 && ev.code == 10 &&
		   ev.severity == IBVE_SEVERITY_ERROR &&
		   strcmp(ev.device, "mlx5_0") == 0,
	   "the four required fields are enough");
	line = "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"d\",\"port\":null,\"code\":8,\"whatever\":[1,{}]}";
	ok(ibve_event_parse_json(line, strlen(line), &ev) == 0 &&
		   strcmp(ev.name, "DEVICE_FATAL") == 0 && ev.port == 0,
	   "a code without a name, unknown fields ignored");
	line = "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"d\",\"port\":1,\"event\":\"PLANE_CHANGE\",\"code\":22,\"class\":\"port\",\"severity\":\"info\"}";
	ok(ibve_event_parse_json(line, strlen(line), &ev) == 0 &&
		   strcmp(ev.name, "PLANE_CHANGE") == 0 &&
		   ev.cls == IBVE_CLASS_PORT &&
		   ev.severity == IBVE_SEVERITY_INFO && ev.code == 22 &&
		   !ev.desc,
	   "a name from a newer version is kept with its class and severity");
	line = "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"d\",\"port\":null,\"event\":\"UNKNOWN(21)\"}";
	ok(ibve_event_parse_json(line, strlen(line), &ev) == 0 &&
		   ev.code == 21 && strcmp(ev.name, "UNKNOWN(21)") == 0,
	   "UNKNOWN(n) gives its code back");

	static const struct {
		const char *line, *reason;
	} bad[] = {
		{ "[]", "not a JSON object" },
		{ "{\"device\":\"d\",\"port\":1,\"event\":\"PORT_ERR\"}",
		  "missing \"time\"" },
		{ "{\"time\":\"x\",\"device\":\"d\",\"port\":1,\"event\":\"PORT_ERR\"}",
		  "\"time\" is not an RFC 3339 time" },
		{ "{\"time\":\"2026-11-21T10:00:00Z\",\"port\":1,\"event\":\"PORT_ERR\"}",
		  "missing \"device\"" },
		{ "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"\",\"port\":1,\"event\":\"PORT_ERR\"}",
		  "\"device\" is empty" },
		{ "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"d\",\"event\":\"PORT_ERR\"}",
		  "missing \"port\"" },
		{ "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"d\",\"port\":\"1\",\"event\":\"PORT_ERR\"}",
		  "\"port\" must be a port number or null" },
		{ "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"d\",\"port\":-1,\"event\":\"PORT_ERR\"}",
		  "\"port\" must be a port number or null" },
		{ "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"d\",\"port\":1}",
		  "needs \"event\" or \"code\"" },
		{ "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"d\",\"port\":1,\"event\":3}",
		  "\"event\" must be a string" },
		{ "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"d\",\"port\":1,\"event\":\"PORT_ERR\"} x",
		  "text after the JSON object" },
		{ "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"d\",\"port\":1,",
		  "incomplete JSON" },
		{ "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"d\",\"port\":1,\"event\":\"X\",\"source\":\"zz\"}",
		  "unknown source" },
		{ "{\"time\":\"2026-11-21T10:00:00Z\",\"device\":\"d\",\"port\":1,\"event\":\"PORT_ERR\",\"node_guid\":\"zz\"}",
		  "\"node_guid\" is not a GUID" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ibve_error(EINVAL, "%s", "");
		ok(ibve_event_parse_json(bad[i].line, strlen(bad[i].line),
					 &ev) == -EINVAL &&
			   strstr(ibve_errmsg(), bad[i].reason),
		   "refused: %s (%s)", bad[i].reason, ibve_errmsg());
	}

	/* What format_json writes, parse_json reads back unchanged. */
	ev = base();
	ibve_event_set_code(&ev, IBVE_SOURCE_VERBS, 3);
	ev.port = 0;
	ev.qp_num = 0xabcdef;
	ev.handle = 42;
	ev.fields = IBVE_FIELD_QP_NUM | IBVE_FIELD_HANDLE;
	snprintf(ev.device, sizeof(ev.device), "dev\twith \"odd\" \xc3\xa9");
	ibve_event_format_json(&ev, buf, sizeof(buf));
	ok(ibve_event_parse_json(buf, strlen(buf), &back) == 0,
	   "a formatted record parses (%s)", ibve_errmsg());
	ok(back.time.tv_sec == ev.time.tv_sec &&
		   back.time.tv_nsec == ev.time.tv_nsec &&
		   strcmp(back.device, ev.device) == 0 &&
		   back.port == ev.port && back.code == ev.code &&
		   back.desc == ev.desc && back.node_guid == ev.node_guid &&
		   back.fields == ev.fields && back.qp_num == ev.qp_num &&
		   back.handle == ev.handle,
	   "and every field comes back");
}

/* The hand-made time and GUID writers agree with gmtime_r and printf. */
static void test_time_reference(void)
{
	uint64_t x = 88172645463325252ull; /* xorshift: the same every run */
	int bad_time = 0, bad_guid = 0, bad_back = 0;

	for (int i = 0; i < 200000; i++) {
		struct timespec ts, back;
		struct tm tm;
		char a[64], b[64];
		time_t t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* years 1 to 9999, and a few days around each end of a day */
		t = (time_t)(x % 315537897600ull) - 62135596800LL;
		if (i < 1000)
			t = (time_t)(i - 500) * 43200 + (i & 1);
		ts.tv_sec = t;
		ts.tv_nsec = (long)(x % 1000000000);
		gmtime_r(&t, &tm);
		snprintf(a, sizeof(a), "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec);
		ibve_time_format(&ts, b, sizeof(b));
		bad_time += strcmp(a, b) != 0;
		bad_back += ibve_time_parse(b, &back) != 0 ||
			    back.tv_sec != ts.tv_sec ||
			    back.tv_nsec != ts.tv_nsec;
		snprintf(a, sizeof(a), "%04x:%04x:%04x:%04x",
			 (unsigned int)(x >> 48) & 0xffff,
			 (unsigned int)(x >> 32) & 0xffff,
			 (unsigned int)(x >> 16) & 0xffff,
			 (unsigned int)x & 0xffff);
		ibve_guid_format(x, b, sizeof(b));
		bad_guid += strcmp(a, b) != 0;
	}
	is_int(bad_time, 0,
	       "times from year 1 to 9999 as gmtime_r writes them");
	is_int(bad_back, 0, "and each reads back to the same instant");
	is_int(bad_guid, 0, "GUIDs as printf writes them");
}

/*
 * Text says its zone: the offset of the local time, half hours and
 * summer time included (POSIX TZ strings: no time zone database needed).
 */
static void test_text_zone(void)
{
	struct ibve_event ev = base();
	char buf[1024];

	setenv("TZ", "IST-5:30", 1); /* Asia/Kolkata */
	tzset();
	ibve_event_format_text(&ev, buf, sizeof(buf), 0);
	ok(strncmp(buf, "2026-11-21 15:30:00.123+05:30 mlx5_0/1 ", 39) == 0,
	   "text in UTC+5:30 says so: %s", buf);

	setenv("TZ", "NST3:30NDT,M3.2.0,M11.1.0", 1); /* America/St_Johns */
	tzset();
	ibve_event_format_text(&ev, buf, sizeof(buf), 0);
	ok(strncmp(buf, "2026-11-21 06:30:00.123-03:30 mlx5_0/1 ", 39) == 0,
	   "text in UTC-3:30 says so: %s", buf);
	ev.time.tv_sec = 1782907200; /* 2026-07-01T12:00:00Z: summer time */
	ibve_event_format_text(&ev, buf, sizeof(buf), 0);
	ok(strncmp(buf, "2026-07-01 09:30:00.123-02:30 mlx5_0/1 ", 39) == 0,
	   "and in its summer time, UTC-2:30: %s", buf);

	setenv("TZ", "UTC", 1);
	tzset();
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	test_json();
	test_text();
	test_text_zone();
	test_time_guid();
	test_time_reference();
	test_parse();
	return done_testing();
}
