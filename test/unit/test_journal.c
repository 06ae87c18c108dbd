// SPDX-License-Identifier: MIT
/*
 * The journal: MESSAGE_IDs (valid, unique, one per row), the catalog
 * against the event table, and a record as an entry's fields.
 */
#include <glob.h>
#include <json-c/json.h>
#include <stdlib.h>

#include "event.h"
#include "journal.h"
#include "source.h"
#include "tap.h"

/* 32 lowercase hex digits, laid out as a version 4 (random) UUID. */
static bool valid_id(const char *id)
{
	if (!id || strlen(id) != 32 || strspn(id, "0123456789abcdef") != 32)
		return false;
	return id[12] == '4' && strchr("89ab", id[16]);
}

static size_t rows(void)
{
	size_t n = 0;

	while (ibve_event_desc_at(n))
		n++;
	return n;
}

static void test_ids(void)
{
	size_t n = rows(), dups = 0, bad = 0;
	const char **ids = calloc(n + 1, sizeof(*ids));

	ok(n >= 58, "the table has its %zu rows", n);
	for (size_t i = 0; i <= n; i++) {
		const struct ibve_event_desc *d = i < n ? ibve_event_desc_at(i)
							: &ibve_unknown_desc;

		ids[i] = d->message_id;
		if (!valid_id(d->message_id)) {
			bad++;
			printf("# %s: MESSAGE_ID '%s' is not valid\n", d->name,
			       d->message_id ? d->message_id : "(null)");
		}
		if (!d->advice || strlen(d->advice) < 20 ||
		    strchr(d->advice, '\n') || strstr(d->advice, "  ") ||
		    d->advice[strlen(d->advice) - 1] != '.') {
			bad++;
			printf("# %s: no advice, or not one paragraph\n",
			       d->name);
		}
		for (size_t j = 0; j < i; j++)
			if (ids[j] && d->message_id &&
			    strcmp(ids[j], d->message_id) == 0) {
				dups++;
				printf("# %s has the MESSAGE_ID of row %zu\n",
				       d->name, j);
			}
	}
	is_int(bad, 0, "every row and UNKNOWN: a valid MESSAGE_ID, advice");
	is_int(dups, 0, "no two rows share a MESSAGE_ID");
	free(ids);
}

static void test_record_ids(void)
{
	struct ibve_event ev, k;
	size_t wrong = 0;

	for (size_t i = 0; ibve_event_desc_at(i); i++) {
		const struct ibve_event_desc *d = ibve_event_desc_at(i);

		memset(&ev, 0, sizeof(ev));
		ibve_event_set_code(&ev, d->source, d->code);
		if (ev.desc != d ||
		    strcmp(ibve_event_message_id(&ev), d->message_id)) {
			wrong++;
			printf("# %s: record has %s\n", d->name,
			       ibve_event_message_id(&ev));
		}
	}
	is_int(wrong, 0, "a record has its row's MESSAGE_ID");
	memset(&ev, 0, sizeof(ev));
	memset(&k, 0, sizeof(k));
	ibve_event_set_code(&ev, IBVE_SOURCE_VERBS, 1);
	ibve_event_set_code(&k, IBVE_SOURCE_KERNEL, 1);
	is_str(ibve_event_message_id(&k), ibve_event_message_id(&ev),
	       "the kernel source's QP_FATAL is the verbs QP_FATAL");
	ibve_event_set_code(&ev, IBVE_SOURCE_VERBS, 21);
	ibve_event_set_code(&k, IBVE_SOURCE_MLX5, 0x3f);
	is_str(ibve_event_message_id(&ev), ibve_unknown_desc.message_id,
	       "UNKNOWN(21) has the unknown events' MESSAGE_ID");
	is_str(ibve_event_message_id(&k), ibve_unknown_desc.message_id,
	       "an unknown mlx5 type too");
}

/* Words of S joined by single spaces (the catalog wraps lines). */
static void squash(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		char c = *r == '\n' ? ' ' : *r;

		if (c == ' ' && (w == s || w[-1] == ' '))
			continue;
		*w++ = c;
	}
	*w = '\0';
}

/* Whether D's name is another row's too: its subject names its source. */
static bool twice(const struct ibve_event_desc *d)
{
	size_t n = 0;

	for (size_t i = 0; ibve_event_desc_at(i); i++)
		n += strcmp(ibve_event_desc_at(i)->name, d->name) == 0;
	return n > 1;
}

/* The link autopsy's cause I's catalog entry P (past "-- "): false if
 * it is not, said. */
static bool cause_entry(size_t i, char *p)
{
	const struct ibve_cause *c = &ibve_causes[i];
	char subject[128], *body;

	snprintf(subject, sizeof(subject),
		 "\nSubject: RDMA PORT_DOWN_CAUSE (%s) on @RDMA_DEVICE@\n",
		 c->name);
	body = strstr(p, "\n\n");
	if (strncmp(p, c->message_id, 32) || p[32] != '\n' ||
	    !strstr(p, subject) || !body) {
		printf("# cause %s: not its MESSAGE_ID or subject\n", c->name);
		return false;
	}
	squash(body);
	/* the action as a sentence: its first letter a capital */
	if (!strstr(body, c->decided_by) || !strstr(body, c->action + 1)) {
		printf("# cause %s: the body lacks what decides it or the action\n",
		       c->name);
		return false;
	}
	return true;
}

/*
 * The catalog share/mktables.c wrote (ibvevent.catalog beside test/ in the
 * build directory), against the table: entry I is row I's, then the
 * unknown events', then one per cause of the link autopsy.
 */
static void test_catalog(const char *argv0)
{
	char path[4096], text[1 << 17], *p, *next;
	size_t n = rows(), i = 0, bad = 0, len = 0, ncauses = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%.*s/../ibvevent.catalog",
		 (int)(strrchr(argv0, '/') ? strrchr(argv0, '/') - argv0 : 1),
		 strrchr(argv0, '/') ? argv0 : ".");
	while (ibve_causes[ncauses].name)
		ncauses++;
	if (!ok((f = fopen(path, "r")) != NULL, "%s reads", path))
		return;
	len = fread(text, 1, sizeof(text) - 1, f);
	text[len] = '\0';
	fclose(f);
	ok(len < sizeof(text) - 1 &&
		   strncmp(text, "# SPDX-License-Identifier: MIT\n", 31) == 0,
	   "the catalog starts with its licence, as a comment");
	for (p = strstr(text, "\n-- "); p; p = next, i++) {
		const struct ibve_event_desc *d = i < n ? ibve_event_desc_at(i)
							: &ibve_unknown_desc;
		char subject[128], *body;

		p += 4;
		next = strstr(p, "\n-- ");
		if (next)
			*next = '\0';
		if (i > n) {
			bad += i - n > ncauses || !cause_entry(i - n - 1, p);
			if (next)
				*next = '\n';
			continue;
		}
		if (strncmp(p, d->message_id, 32) || p[32] != '\n') {
			bad++;
			printf("# entry %zu is not %s's MESSAGE_ID\n", i,
			       d->name);
			continue;
		}
		if (i < n && twice(d))
			snprintf(subject, sizeof(subject),
				 "\nSubject: RDMA %s (%s) on @RDMA_DEVICE@\n",
				 d->name, ibve_source_name(d->source));
		else if (i < n)
			snprintf(subject, sizeof(subject),
				 "\nSubject: RDMA %s on @RDMA_DEVICE@\n",
				 d->name);
		else
			snprintf(subject, sizeof(subject),
				 "\nSubject: RDMA event @RDMA_EVENT@ on "
				 "@RDMA_DEVICE@, unknown to ibvevent\n");
		body = strstr(p, "\n\n");
		if (!strstr(p, subject) || !body ||
		    !strstr(p, "\nDefined-By: ibvevent\n")) {
			bad++;
			printf("# %s: no subject or headers\n", d->name);
			continue;
		}
		squash(body);
		if (!strstr(body, d->text) || !strstr(body, d->advice)) {
			bad++;
			printf("# %s: the body lacks the explanation or advice\n",
			       d->name);
		}
		if (next)
			*next = '\n';
	}
	is_int(i, n + 1 + ncauses,
	       "one catalog entry per row, one for UNKNOWN, one per cause");
	is_int(bad, 0, "each with its MESSAGE_ID, subject, text and advice");
}

/* The value of field NAME of E ("" and false when it has none). */
static bool field(const struct ibve_journal_entry *e, const char *name,
		  char *out, size_t size)
{
	size_t len = strlen(name);

	*out = '\0';
	for (size_t i = 0; i < e->n; i++) {
		const char *f = e->iov[i].iov_base;
		size_t n = e->iov[i].iov_len;

		if (n > len && f[len] == '=' && strncmp(f, name, len) == 0) {
			snprintf(out, size, "%.*s", (int)(n - len - 1),
				 f + len + 1);
			return true;
		}
	}
	return false;
}

static struct ibve_event parsed(const char *line)
{
	struct ibve_event ev;

	if (ibve_event_parse_json(line, strlen(line), &ev))
		printf("# %s: %s\n", line, ibve_errmsg());
	return ev;
}

/*
 * E's fields from *K on against the members of O, json-c's reading of the
 * record's JSON, each named PREFIX_<KEY> in capitals: one field per member
 * and in order, a string as it is, an object's members under its name, a
 * null none, the rest as compact JSON. Returns the differences.
 */
static size_t expect_fields(const struct ibve_journal_entry *e, size_t *k,
			    struct json_object *o, const char *prefix)
{
	size_t wrong = 0;

	json_object_object_foreach(o, key, v)
	{
		char name[128];
		const char *want;
		size_t len, i;

		snprintf(name, sizeof(name), "%s_%s", prefix, key);
		for (i = 0; name[i]; i++)
			name[i] = (char)(name[i] >= 'a' && name[i] <= 'z'
						 ? name[i] - 'a' + 'A'
						 : name[i]);
		if (!v)
			continue;
		if (json_object_is_type(v, json_type_object)) {
			wrong += expect_fields(e, k, v, name);
			continue;
		}
		want = json_object_is_type(v, json_type_string)
			       ? json_object_get_string(v)
			       : json_object_to_json_string_ext(
					 v,
					 JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE);
		len = strlen(name);
		if (*k >= e->n ||
		    e->iov[*k].iov_len != len + 1 + strlen(want) ||
		    memcmp(e->iov[*k].iov_base, name, len) ||
		    ((char *)e->iov[*k].iov_base)[len] != '=' ||
		    memcmp((char *)e->iov[*k].iov_base + len + 1, want,
			   strlen(want))) {
			wrong++;
			printf("# field %zu: '%.*s', not '%s=%s'\n", *k,
			       *k < e->n ? (int)e->iov[*k].iov_len : 6,
			       *k < e->n ? (char *)e->iov[*k].iov_base
					 : "(none)",
			       name, want);
		}
		++*k;
	}
	return wrong;
}

/*
 * Whether E is EV's entry: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER and
 * MESSAGE_ID, then exactly the fields of EV's JSON as json-c reads it (not
 * the library's writer: an independent reading), byte for byte.
 */
static size_t entry_differs(const struct ibve_journal_entry *e,
			    const struct ibve_event *ev)
{
	static const char *const head[] = {
		"MESSAGE=", "PRIORITY=", "SYSLOG_IDENTIFIER=", "MESSAGE_ID="
	};
	char json[8192];
	struct json_object *o;
	size_t wrong = 0, k = 4;

	for (size_t i = 0; i < 4; i++)
		if (i >= e->n || strncmp(e->iov[i].iov_base, head[i],
					 strlen(head[i])) != 0) {
			printf("# field %zu is not %s\n", i, head[i]);
			return 1;
		}
	ibve_event_format_json(ev, json, sizeof(json));
	if (!(o = json_tokener_parse(json))) {
		printf("# json-c does not read %s", json);
		return 1;
	}
	wrong = expect_fields(e, &k, o, "RDMA");
	json_object_put(o);
	if (k != e->n) {
		wrong++;
		printf("# %zu fields, not %zu\n", e->n, k);
	}
	return wrong;
}

/* Every record of the stored captures: its entry is its JSON. */
static void test_captures(void)
{
	struct ibve_journal_entry e = { 0 };
	size_t records = 0, wrong = 0;
	char line[8192];
	glob_t g;

	if (!ok(glob("test/captures/*.jsonl", 0, NULL, &g) == 0 &&
			g.gl_pathc >= 10,
		"the captures are found"))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");

		while (f && fgets(line, sizeof(line), f)) {
			struct ibve_event ev;

			/* malformed.jsonl's bad lines: no record */
			if (ibve_event_parse_json(line, strlen(line), &ev))
				continue;
			records++;
			if (ibve_journal_entry_build(&e, &ev, "test") ||
			    entry_differs(&e, &ev)) {
				wrong++;
				printf("# %s: %s", g.gl_pathv[i], line);
			}
		}
		if (f)
			fclose(f);
	}
	globfree(&g);
	ok(records >= 100, "%zu records read", records);
	is_int(wrong, 0, "each one's entry holds its JSON, field for field");
	ibve_journal_entry_free(&e);
}

static void test_entry(void)
{
	struct ibve_journal_entry e = { 0 };
	struct ibve_event ev;
	char v[2048], msg[1024];
	size_t wrong = 0;

	ev = parsed(
		"{\"time\":\"2026-11-24T00:07:56.583Z\",\"device\":\"rxe0\","
		"\"port\":null,\"event\":\"SRQ_LIMIT_REACHED\",\"code\":15,"
		"\"source\":\"kernel\",\"handle\":3,\"pid\":217,"
		"\"comm\":\"ibv_eventinject\",\"cgroup\":\"/a/job_4712/b\","
		"\"after\":\"PORT_ERR\",\"after_port\":1,"
		"\"after_us\":795000}");
	is_int(ibve_journal_entry_build(&e, &ev, "test"), 0,
	       "a kernel record's entry is built");
	ibve_event_format_syslog(&ev, msg, sizeof(msg));
	field(&e, "MESSAGE", v, sizeof(v));
	is_str(v, msg, "MESSAGE is the syslog text");
	field(&e, "PRIORITY", v, sizeof(v));
	is_str(v, "4", "PRIORITY 4 (warning)");
	field(&e, "SYSLOG_IDENTIFIER", v, sizeof(v));
	is_str(v, "test", "SYSLOG_IDENTIFIER is the one given");
	field(&e, "MESSAGE_ID", v, sizeof(v));
	is_str(v, ev.desc->message_id, "MESSAGE_ID is the row's");
	ok(!field(&e, "RDMA_PORT", v, sizeof(v)), "no port: no RDMA_PORT");
	field(&e, "RDMA_PID", v, sizeof(v));
	is_str(v, "217", "RDMA_PID");
	field(&e, "RDMA_AFTER_US", v, sizeof(v));
	is_str(v, "795000", "RDMA_AFTER_US");
	field(&e, "RDMA_TIME", v, sizeof(v));
	is_str(v, "2026-11-24T00:07:56.583000000Z", "RDMA_TIME: the record's");
	is_int(entry_differs(&e, &ev), 0,
	       "its fields are its JSON's members, in order, value for value");

	ev = parsed(
		"{\"time\":\"2026-03-02T10:00:00.5Z\",\"device\":\"mlx5_1\","
		"\"port\":null,\"event\":\"DEVICE_SPEED_CHANGE\",\"code\":20,"
		"\"rates\":[{\"port\":1,\"old\":\"200 Gb/sec (4X HDR)\","
		"\"new\":\"100 Gb/sec (2X HDR)\"}]}");
	ibve_journal_entry_build(&e, &ev, "test");
	field(&e, "RDMA_RATES", v, sizeof(v));
	is_str(v,
	       "[{\"port\":1,\"old\":\"200 Gb/sec (4X HDR)\","
	       "\"new\":\"100 Gb/sec (2X HDR)\"}]",
	       "an array is compact JSON, slashes as they are");
	is_int(entry_differs(&e, &ev), 0, "a speed change: every member");

	ev = parsed(
		"{\"time\":\"2026-03-02T10:00:00.5Z\",\"device\":\"mlx5_0\","
		"\"port\":1,\"event\":\"PORT_ACTIVE\",\"peer\":{\"kind\":\"ib\","
		"\"state\":\"known\",\"guid\":\"0002:c903:0000:0001\",\"port\":2,"
		"\"name\":\"SwitchL\",\"node_type\":\"switch\","
		"\"changed\":true}}");
	ibve_journal_entry_build(&e, &ev, "test");
	ok(!field(&e, "RDMA_PEER", v, sizeof(v)), "no RDMA_PEER: its members");
	field(&e, "RDMA_PEER_NAME", v, sizeof(v));
	is_str(v, "SwitchL", "RDMA_PEER_NAME");
	field(&e, "RDMA_PEER_PORT", v, sizeof(v));
	is_str(v, "2", "RDMA_PEER_PORT");
	field(&e, "RDMA_PEER_GUID", v, sizeof(v));
	is_str(v, "0002:c903:0000:0001", "RDMA_PEER_GUID");
	field(&e, "RDMA_PEER_CHANGED", v, sizeof(v));
	is_str(v, "true", "RDMA_PEER_CHANGED");
	is_int(entry_differs(&e, &ev), 0, "a peer: every member of its own");

	ev = parsed(
		"{\"time\":\"2026-04-07T02:00:05Z\",\"device\":\"mlx5_0\","
		"\"port\":null,\"source\":\"mlx5\",\"eqe\":\"00170000"
		"000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000100000000000000000000000000000000\"}");
	ibve_journal_entry_build(&e, &ev, "test");
	field(&e, "RDMA_EVENT", v, sizeof(v));
	is_str(v, "TEMP_WARN", "an mlx5 entry decoded");
	is_int(entry_differs(&e, &ev), 0, "an mlx5 record: every member");

	snprintf(ev.kernel.comm, sizeof(ev.kernel.comm), "a\"b\nc");
	ev.source = IBVE_SOURCE_KERNEL;
	ev.fields = IBVE_FIELD_OWNER;
	ibve_event_set_code(&ev, IBVE_SOURCE_KERNEL, 0x99);
	ibve_journal_entry_build(&e, &ev, "test");
	field(&e, "RDMA_COMM", v, sizeof(v));
	is_str(v, "a\"b\nc", "a string field holds its bytes, not JSON");
	field(&e, "RDMA_EVENT", v, sizeof(v));
	is_str(v, "UNKNOWN(153)", "an unknown code");
	field(&e, "MESSAGE_ID", v, sizeof(v));
	is_str(v, ibve_unknown_desc.message_id, "the unknown MESSAGE_ID");
	is_int(entry_differs(&e, &ev), 0, "an unknown record: every member");

	/* any byte in a string: as json-c reads the record's JSON */
	for (int c = 1; c < 256; c++) {
		snprintf(ev.kernel.comm, sizeof(ev.kernel.comm),
			 "%c\xc3\xa9%c\xff", c, c);
		snprintf(ev.device, sizeof(ev.device), "d%c", c);
		if (ibve_journal_entry_build(&e, &ev, "test") ||
		    entry_differs(&e, &ev)) {
			wrong++;
			printf("# byte 0x%02x\n", c);
		}
	}
	is_int(wrong, 0, "a string with any byte: as its JSON reads");
	field(&e, "RDMA_COMM", v, sizeof(v));
	is_str(v, "\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd",
	       "a byte that is not UTF-8: U+FFFD");
	ibve_journal_entry_free(&e);
}

int main(int argc, char **argv)
{
	(void)argc;
	test_ids();
	test_record_ids();
	test_catalog(argv[0]);
	test_entry();
	test_captures();
	return done_testing();
}
