// SPDX-License-Identifier: MIT
/*
 * The two readers of JSON Lines agree: json-c (the reference) and the
 * scanner that takes flat lines of our own format. Same status, same
 * message, same record, for lines each of them takes.
 */
#include <stdlib.h>

#include <json-c/json.h>

#include "fields.h"
#include "ibvevent.h"
#include "parse.h"
#include "tap.h"

static struct json_tokener *tok;

/*
 * The readers take the key table's order for the writer's (the scanner's
 * guess of the next key, the prefilter's leading members): each field row,
 * written alone, puts the fixed keys and then keys of its own, in the
 * table's order.
 */
static void writer_order(void)
{
	bool rows;

	ibve_fields_ready();
	rows = ibve_fields[0].key == K_FIXED;
	for (size_t i = 1; i < ibve_nfields; i++)
		rows = rows &&
		       ibve_fields[i].key == ibve_fields[i - 1].key +
						     ibve_fields[i - 1].nkeys &&
		       ibve_fields[i].spec->order >=
			       ibve_fields[i - 1].spec->order;
	ok(rows && ibve_fields[ibve_nfields - 1].key +
				   ibve_fields[ibve_nfields - 1].nkeys ==
			   ibve_nkeys,
	   "the field rows begin at the first field key, in key order");
	for (size_t i = 0; i < ibve_nfields; i++) {
		int end = ibve_fields[i].key + ibve_fields[i].nkeys;
		struct ibve_event ev = { .code = 1,
					 .fields = ibve_fields[i].spec->flag };
		char line[4096], order[512] = "";
		struct json_object *o;
		int next = 0;
		bool good = true;

		/* the members written only when set */
		strcpy(ev.kernel.cgroup, "/");
		ev.kernel.after_port = 1;
		ev.kernel.recovered = true;
		ibve_event_format_json(&ev, line, sizeof(line));
		o = json_tokener_parse(line);
		json_object_object_foreach(o, k, v)
		{
			int key = 0;

			(void)v;
			while (key < ibve_nkeys &&
			       strcmp(ibve_keys[key].name, k))
				key++;
			if (key == ibve_nkeys)
				continue; /* written, not read: mlx5's decoding */
			snprintf(order + strlen(order),
				 sizeof(order) - strlen(order), " %s", k);
			good = good && key >= next &&
			       (key < K_FIXED || key >= ibve_fields[i].key) &&
			       key < end && (next >= K_FIXED || key == next);
			next = key + 1;
		}
		ok(good && next > K_FIXED,
		   "field row %zu writes in key order:%s", i, order);
		json_object_put(o);
	}
}

/* Both readers on LINE; FAST: the scanner must take it. */
static void same(const char *line, bool fast, const char *what)
{
	struct ibve_event a, b;
	char ea[256] = "", eb[256] = "";
	size_t n = strlen(line);
	int ra = ibve_parse_line(&tok, line, n, &a, ea, sizeof(ea));
	int rb = ibve_parse_line_jsonc(&tok, line, n, &b, eb, sizeof(eb));

	ok(ra == rb && strcmp(ea, eb) == 0 &&
		   (ra || memcmp(&a, &b, sizeof(a)) == 0),
	   "%s: same result (%d '%s' / %d '%s')", what, ra, ea, rb, eb);
	if (fast)
		ok(ibve_parse_fast_takes(line, n), "  and the scanner took it");
}

#define BASE \
	"\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"mlx5_0\",\"port\":1"

int main(void)
{
	static const struct {
		const char *line;
		bool fast;
		const char *what;
	} cases[] = {
		{ "{" BASE ",\"event\":\"PORT_ERR\"}", true, "plain" },
		{ " {\"event\":\"PORT_ERR\"," BASE "}  ", true,
		  "white space, other order" },
		{ "{" BASE ",\"event\":\"PORT_ERR\",\"event\":\"PORT_ACTIVE\"}",
		  true, "a repeated key: the last wins" },
		{ "{" BASE ",\"event\":\"PORT_ERR\",\"x\":[1,{\"y\":2}]}",
		  false, "nested unknown field" },
		{ "{" BASE
		  ",\"event\":\"PORT_ERR\",\"x\":\"\\u00e9\\n\\t\\\\\\\"\"}",
		  true, "escapes in an unknown field" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"ev\\u001bil\\u00e9\\u20ac\",\"port\":1,\"event\":\"PORT_ERR\"}",
		  true, "\\u escapes in a name" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"a\\nb\\rc\\td\\be\\ff\\/g\\\\h\\\"i\",\"port\":1,\"event\":\"PORT_ERR\"}",
		  true, "every short escape in a name" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"a\\ud83d\\ude00\",\"port\":1,\"event\":\"PORT_ERR\"}",
		  false, "a surrogate pair" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"a\\u0000b\",\"port\":1,\"event\":\"PORT_ERR\"}",
		  false, "\\u0000" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"a\tb\",\"port\":1,\"event\":\"PORT_ERR\"}",
		  false, "a raw tab in a string" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"\xc3\xa9\xff\",\"port\":1,\"event\":\"PORT_ERR\"}",
		  true, "raw UTF-8 and a stray byte" },
		{ "{" BASE ",\"code\":10}", true, "a code" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"d\",\"port\":-1,\"event\":\"PORT_ERR\"}",
		  true, "a negative port" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"d\",\"port\":-0,\"event\":\"PORT_ERR\"}",
		  false, "-0" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"d\",\"port\":01,\"event\":\"PORT_ERR\"}",
		  false, "a leading zero" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"d\",\"port\":1.0,\"event\":\"PORT_ERR\"}",
		  false, "a fraction" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"d\",\"port\":1e0,\"event\":\"PORT_ERR\"}",
		  false, "an exponent" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"d\",\"port\":99999999999999999999,\"event\":\"PORT_ERR\"}",
		  false, "a huge port" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"d\",\"port\":65536,\"event\":\"PORT_ERR\"}",
		  true, "a port out of range" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"d\",\"port\":null,\"event\":\"PORT_ERR\"}",
		  true, "a null port" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"d\",\"port\":true,\"event\":\"PORT_ERR\"}",
		  true, "a boolean port" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"d\",\"port\":\"1\",\"event\":\"PORT_ERR\"}",
		  true, "a string port" },
		{ "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"d\",\"event\":\"PORT_ERR\"}",
		  true, "no port" },
		{ "{" BASE "}", true, "no event" },
		{ "{" BASE
		  ",\"event\":\"NEW_THING\",\"class\":\"port\",\"severity\":\"info\",\"affiliated\":true}",
		  true, "a newer name" },
		{ "{" BASE ",\"event\":\"UNKNOWN(21)\",\"source\":\"mlx5\"}",
		  true, "UNKNOWN(n) of mlx5" },
		{ "{" BASE ",\"event\":\"PORT_ERR\",\"source\":\"moon\"}", true,
		  "an unknown source" },
		{ "{" BASE
		  ",\"event\":\"PORT_ERR\",\"node_guid\":\"0002:c903:0011:2233\",\"qp_num\":17,\"handle\":3,\"lost\":18446744073709551615}",
		  false, "a uint64 beyond int64" },
		{ "{" BASE
		  ",\"event\":\"PORT_ERR\",\"node_guid\":\"0002:c903:0011:2233\",\"qp_num\":17,\"handle\":3,\"lost\":900000000000000000}",
		  true, "identity fields" },
		{ "{" BASE ",\"event\":\"PORT_ERR\"} x", false,
		  "text after the object" },
		{ "{" BASE ",\"event\":\"PORT_ERR\",}", false,
		  "a trailing comma" },
		{ "{" BASE ",\"event\":\"PORT_ERR\"", false,
		  "no closing brace" },
		{ "{'time':'x'}", false, "single quotes" },
		{ "{\"t\\u0069me\":\"2026-03-02T08:15:00Z\",\"device\":\"d\",\"port\":1,\"event\":\"PORT_ERR\"}",
		  false, "an escaped key" },
		{ "{" BASE ",\"event\":\"PORT_ERR\"}\f", false,
		  "a form feed after" },
		{ "{}", true, "an empty object" },
		{ "{\"time\":\"2026-13-02T08:15:00Z\",\"device\":\"d\",\"port\":1,\"event\":\"PORT_ERR\"}",
		  true, "a bad time" },
		{ "{" BASE
		  ",\"source\":\"mlx5\",\"event\":\"PORT_MODULE\",\"eqe\":\"00160000000000000000000000000000000000000000000000000000000000000002000300000700000000000000000000000000000000000000000000000000\"}",
		  true, "an mlx5 entry" },
		{ "{" BASE
		  ",\"source\":\"mlx5\",\"event\":\"TEMP_WARN\",\"sensors\":[0,5]}",
		  false, "an array" },
	};
	struct ibve_event ev;
	char line[2048];

	setenv("TZ", "UTC", 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		same(cases[i].line, cases[i].fast, cases[i].what);
	writer_order();

	/* every record the watcher writes takes the fast path */
	for (size_t i = 0; ibve_event_desc_at(i); i++) {
		const struct ibve_event_desc *d = ibve_event_desc_at(i);

		memset(&ev, 0, sizeof(ev));
		ev.time.tv_sec = 1795255200;
		snprintf(ev.device, sizeof(ev.device), "dev \"%zu\"\x01", i);
		ev.port = d->cls == IBVE_CLASS_PORT ? 2 : 0;
		ev.node_guid = 0x1122334455667788ull;
		ibve_event_set_code(&ev, d->source, d->code);
		ev.qp_num = 5;
		ev.handle = 6;
		ev.fields = IBVE_FIELD_QP_NUM | IBVE_FIELD_HANDLE;
		ibve_event_format_json(&ev, line, sizeof(line));
		line[strcspn(line, "\n")] = '\0';
		same(line, true, d->name);
	}

	/* json-c's reset keeps a half-read surrogate: it must not leak on */
	same("{\"time\":\"\\ud834", false, "a line cut after a high surrogate");
	same("{\"time\":\"300+\\u00b1\"}", false,
	     "the next line's \\u escape is read as itself");
	{
		static const char cut
			[] = "{\"device\":\"\\ud834",
		     next[] =
			     "{" BASE
			     ",\"event\":\"PORT_ERR\",\"netdev\":\"\\u00b1\",\"x\":[1]}";
		char err[256];

		ibve_parse_line(&tok, cut, strlen(cut), &ev, err, sizeof(err));
		ok(ibve_parse_line(&tok, next, strlen(next), &ev, err,
				   sizeof(err)) == 0 &&
			   strcmp(ev.netdev, "\xc2\xb1") == 0,
		   "after a failed line, json-c reads \\u00b1 as U+00B1: '%s' %s",
		   ev.netdev, err);
	}
	/* and what they stand for, json-c aside */
	{
		static const char esc[] =
			"{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"a\\nb\\rc\\td\\be\\ff\\/g\\\\h\\\"i\",\"port\":1,\"event\":\"PORT_ERR\"}";
		char err[256] = "";

		ok(ibve_parse_line(&tok, esc, strlen(esc), &ev, err,
				   sizeof(err)) == 0 &&
			   strcmp(ev.device, "a\nb\rc\td\be\ff/g\\h\"i") == 0,
		   "\\n \\r \\t \\b \\f \\/ \\\\ \\\" in a name read as themselves %s",
		   err);
	}
	if (tok)
		json_tokener_free(tok);
	return done_testing();
}
