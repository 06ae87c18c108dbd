// SPDX-License-Identifier: MIT
/*
 * A new source is one file and one registration line: this file is a
 * source of synthetic events, written as a source of the library would
 * be, with its rows in its descriptor, and its registration, without a
 * line of the library changed (lib/sources.c's list is weak). Its events
 * then have names, rows and a source name the library knows, reach a
 * reader through a pipeline, and appear in the JSON schema, the
 * completion's words, the man page's tables and the journal catalog that
 * share/mktables.c generates from the same registration. Run from the top
 * of the tree, as make check-unit does.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <sys/eventfd.h>
#include <sys/wait.h>

#include "buf.h"
#include "common.h"
#include "event.h"
#include "fields.h"
#include "host.h"
#include "journal.h"
#include "source.h"
#include "tap.h"

#define main mktables_main
int mktables_main(int argc, char **argv);
#include "../../share/mktables.c"
#undef main

/* --- the source ---------------------------------------------------------- */

/* Its records' source: a number past the public enum's. */
#define SOURCE_SYNTHETIC 20

enum { SYN_TICK = 1, SYN_ALARM = 2 };

static const struct ibve_event_desc synthetic_rows[] = {
	ROW(SYN_TICK, "SYNTHETIC_TICK", DEVICE, false, INFO,
	    "137175dc396a4dd7aba6acac90def0a1",
	    "a tick of the synthetic source",
	    "Nothing to do: the unit tests made it."),
	ROW(SYN_ALARM, "SYNTHETIC_ALARM", PORT, false, ERROR,
	    "c7b7716645fd49fba3493a5ecf686954",
	    "an alarm of the synthetic source",
	    "Nothing to do: the unit tests made it too."),
};

/*
 * Its one field: the alarm's level, in the record's per-source area, with a
 * flag bit the library does not use.
 */
struct synthetic_fields {
	uint32_t level;
};
#define SYN_FIELD_LEVEL (1u << 20)

static const struct ibve_fieldspec synthetic_fields[] = {
	{ .keys = "syn_level",
	  .order = 155,
	  .flag = SYN_FIELD_LEVEL,
	  .type = FT_U32,
	  .off = offsetof(struct ibve_event, area),
	  .size = 4,
	  .words = "level %" PRIu64,
	  .doc = "Source synthetic: the alarm's level." },
};

/* Its alarms count as a kind of their own in the port table. */
static const struct ibve_kind_info synthetic_kinds[] = {
	{ "synthetic_alarm", "SYN", 4 },
};
static const struct ibve_kind_of synthetic_kind_of[] = {
	{ SYN_ALARM, IBVE_KIND_OWN(0) },
};

/* Asked for by an option of its own, not there otherwise. */
static const struct ibve_source_option synthetic_options[] = {
	{ "synthetic", 0, "also the synthetic events of the unit tests", 0 },
};

struct synthetic {
	struct ibve_host h;
	int fd; /* readable once: each row's event is emitted, then done */
};

static int syn_create(void **out, const struct ibve_source_opts *o,
		      const struct ibve_host *h)
{
	struct synthetic *s = calloc(1, sizeof(*s));

	(void)o;
	if (!s)
		return -ENOMEM;
	s->h = *h;
	s->fd = -1;
	*out = s;
	return 0;
}

static int syn_start(void *arg)
{
	struct synthetic *s = arg;

	s->fd = eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->fd < 0)
		return -errno;
	return s->h.watch(s->h.ctx, s->fd, s, 0);
}

static int syn_empty(const void *arg)
{
	(void)arg;
	return 0;
}

static bool syn_ready(void *arg, uint32_t cookie)
{
	struct synthetic *s = arg;
	uint64_t n;

	(void)cookie;
	if (read(s->fd, &n, sizeof(n)) != sizeof(n))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(synthetic_rows); i++) {
		struct ibve_event *ev = s->h.emit(s->h.ctx);

		if (!ev)
			break;
		ibve_strcpy(ev->device, "syn0", sizeof(ev->device));
		ev->port = 1;
		ibve_event_set_code(ev, SOURCE_SYNTHETIC,
				    synthetic_rows[i].code);
		if (synthetic_rows[i].code == SYN_ALARM) {
			((struct synthetic_fields *)ev->area)->level = 7;
			ev->fields |= SYN_FIELD_LEVEL;
		}
	}
	s->h.done(s->h.ctx, s);
	return false;
}

static void syn_destroy(void *arg)
{
	struct synthetic *s = arg;

	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

static const struct ibve_source_ops ibve_source_synthetic = {
	.name = "synthetic",
	.records = SOURCE_SYNTHETIC,
	ROWS(synthetic_rows),
	KINDS(synthetic_kind_of),
	.kinds = synthetic_kinds,
	.nkinds = ARRAY_SIZE(synthetic_kinds),
	FIELDS(synthetic_fields),
	OPTIONS(synthetic_options),
	.on_demand = true,
	.with = "autopsy", /* and added with it, as its evidence is */
	.rank = 2,	   /* its rows after the library's */
	.order = 30,
	.create = syn_create,
	.start = syn_start,
	.empty = syn_empty,
	.ready = syn_ready,
	.destroy = syn_destroy,
};

/* --- its registration: one call, before any table is made ------------------ */

static void test_register(void)
{
	ok(ibve_register_source(&ibve_source_synthetic) == 0,
	   "the source registers through the seam");
	ok(ibve_register_source(&ibve_source_synthetic) == -EEXIST &&
		   strstr(ibve_errmsg(), "\"syn_level\" is another field's"),
	   "a second time its key is taken: %s", ibve_errmsg());
}

/* --- what the library makes of it ----------------------------------------- */

static void test_table(void)
{
	const struct ibve_event_desc *d, *last = NULL;
	char out[64];
	size_t n = 0, rows = 0;

	is_str(ibve_source_name(SOURCE_SYNTHETIC), "synthetic",
	       "the source's records are called by its name");
	is_int(ibve_source_parse("Synthetic"), SOURCE_SYNTHETIC,
	       "and the name parses back to its number");
	d = ibve_event_desc_find(SOURCE_SYNTHETIC, SYN_ALARM);
	ok(d && strcmp(d->name, "SYNTHETIC_ALARM") == 0 &&
		   d->source == SOURCE_SYNTHETIC && d->cls == IBVE_CLASS_PORT,
	   "its row is found by code, with the descriptor's source");
	d = ibve_event_desc_find(SOURCE_SYNTHETIC, SYN_TICK);
	ok(d && ibve_event_desc_lookup("synthetic_tick") == d, "and by name");
	ok(!ibve_event_desc_find(SOURCE_SYNTHETIC, 3), "no row: no code 3");
	while ((d = ibve_event_desc_at(n)))
		last = d, n++;
	for (const struct ibve_source_ops *const *o =
		     (const struct ibve_source_ops *const *)ibve_sources;
	     *o; o++)
		rows += (*o)->nrows;
	/* the table has room for 255: a row past it would go unseen */
	is_int(n, rows, "every source's rows are in the table");
	ok(n > 2 && last && strcmp(last->name, "SYNTHETIC_ALARM") == 0 &&
		   strcmp(ibve_event_desc_at(0)->name, "CQ_ERR") == 0,
	   "its rows come after the library's, by rank (%zu rows)", n);
	ok(ibve_term_suggest("SYNTHETIC_ALRM", out, sizeof(out)) &&
		   strcmp(out, "SYNTHETIC_ALARM") == 0,
	   "a misspelt name of it is suggested");
}

/* Its field, in each form a record takes, from EV and its JSON. */
static void test_field(const struct ibve_event *ev, const char *json)
{
	struct ibve_journal_entry e = { 0 };
	struct ibve_event back;
	char text[512];
	bool found = false;

	ok(strstr(json, ",\"syn_level\":7}"), "its field is in the JSON");
	ibve_event_format_text(ev, text, sizeof(text), 0);
	ok(strstr(text, "(level 7)"), "and in the text: %.*s",
	   (int)strcspn(text, "\n"), text);
	ok(ibve_event_parse_json(json, strlen(json), &back) == 0 &&
		   back.fields == SYN_FIELD_LEVEL &&
		   ((struct synthetic_fields *)back.area)->level == 7,
	   "a replay reads it back");
	snprintf(text, sizeof(text),
		 "{\"time\":\"2026-03-02T08:15:00Z\",\"device\":\"syn0\","
		 "\"port\":1,\"event\":\"PORT_ERR\",\"syn_level\":7}");
	ok(ibve_event_parse_json(text, strlen(text), &back) == 0 &&
		   !(back.fields & SYN_FIELD_LEVEL),
	   "but not on another source's record (its room is theirs)");
	if (ok(ibve_journal_entry_build(&e, ev, "test") == 0,
	       "a journal entry is made"))
		for (size_t i = 0; i < e.n; i++)
			found |= e.iov[i].iov_len == 16 &&
				 !memcmp(e.iov[i].iov_base, "RDMA_SYN_LEVEL=7",
					 16);
	ok(found, "with the field RDMA_SYN_LEVEL=7");
	ibve_journal_entry_free(&e);
}

/* Its kind: after the library's, and counted in the port table. */
static void test_kind(const struct ibve_event *evs, size_t n)
{
	const struct ibve_kind_info *k = ibve_kind_info(IBVE_KIND_OTHER + 1);
	const struct ibve_port_row *row;
	struct ibve_ports *t;

	ok(k && strcmp(k->name, "synthetic_alarm") == 0 &&
		   strcmp(k->title, "SYN") == 0 && k->width == 4 &&
		   !ibve_kind_info(IBVE_KIND_OTHER + 2),
	   "its kind is the next after the library's");
	ok(ibve_event_kind(&evs[1]) == IBVE_KIND_OTHER + 1 &&
		   ibve_event_kind(&evs[0]) == IBVE_KIND_OTHER,
	   "its alarm counts as it, its tick as other");
	if (ibve_ports_new(&t, 0))
		return;
	for (size_t i = 0; i < n; i++)
		ibve_ports_event(t, &evs[i]);
	row = ibve_ports_count(t) == 1 ? ibve_ports_at(t, 0) : NULL;
	ok(row && row->counts[IBVE_KIND_OTHER + 1] == 1 &&
		   row->counts[IBVE_KIND_OTHER] == 1 &&
		   ibve_ports_summary(t)->kinds[IBVE_KIND_OTHER + 1] == 1,
	   "the port table counts it in its own column");
	ibve_ports_free(t);
}

/* The records a pipeline of the source alone gives a reader. */
static void test_pipeline(void)
{
	struct ibve_pipeline *p = NULL;
	struct ibve_event evs[4];
	char json[1024] = "";
	int n = 0, r = 0;

	if (!ok(ibve_pipeline_new(&p) == 0 &&
			ibve_pipeline_add_source(p, "synthetic", NULL) == 0 &&
			ibve_pipeline_start(p) == 0,
		"a pipeline adds the source by name and starts it")) {
		printf("#   %s\n", ibve_errmsg());
		ibve_pipeline_free(p);
		return;
	}
	/* a deadline: four seconds of polls at most */
	for (int i = 0; i < 40 && n < 2 && r >= 0; i++) {
		struct pollfd pfd = { ibve_pipeline_fd(p), POLLIN, 0 };

		if (poll(&pfd, 1, 100) > 0 &&
		    (r = ibve_pipeline_read(p, evs + n, 2 - (size_t)n)) > 0)
			n += r;
	}
	is_int(n, 2, "both synthetic events are read");
	if (n == 2) {
		ibve_event_format_json(&evs[1], json, sizeof(json));
		ok(strcmp(evs[0].name, "SYNTHETIC_TICK") == 0 &&
			   evs[1].severity == IBVE_SEVERITY_ERROR &&
			   strstr(json, "\"source\":\"synthetic\"") &&
			   strstr(json, "\"event\":\"SYNTHETIC_ALARM\""),
		   "with their rows' names and severities: %.*s",
		   (int)strcspn(json, "\n"), json);
		test_field(&evs[1], json);
		test_kind(evs, 2);
	}
	ibve_pipeline_free(p);
}

/* --- its option ------------------------------------------------------------ */

/* What a command with the sources' options prints for --help. */
static char *help_text(void)
{
	static const struct cmd_opt opts[] = { CMD_SHARED(CMD_OPT_SOURCES) };
	struct cmd_shared sh = { 0 };
	struct cmd_spec spec = { "[OPTIONS]", "A test.\n", opts, 1,
				 NULL,	      NULL,	   &sh };
	char *text = calloc(1, 8192);
	int fd[2], status;
	pid_t pid;

	if (!text || pipe(fd))
		return text;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		const char *arg;

		dup2(fd[1], 1);
		cmd_prog = "test";
		cmd_getopt(&spec, 2, (char *[]){ "test", "--help", NULL },
			   &arg);
		_exit(9); /* --help exits */
	}
	close(fd[1]);
	for (size_t n = 0, r;
	     (r = (size_t)read(fd[0], text + n, 8191 - n)) && r != (size_t)-1;)
		n += r;
	close(fd[0]);
	waitpid(pid, &status, 0);
	return text;
}

static void test_option(void)
{
	const struct ibve_source_option *o = NULL;
	const char *src = NULL;
	struct ibve_source_opts so = { .sz = sizeof(so) };
	struct ibve_pipeline *p = NULL;
	char *help = help_text();
	size_t i = 0;

	while ((o = ibve_source_option_at(i, &src)) && strcmp(src, "synthetic"))
		i++;
	ok(o && strcmp(o->name, "synthetic") == 0,
	   "its option is among the sources' (the %zu-th)", i);
	ok(help && strstr(help, "\n      --synthetic        also the synthetic "
				"events of the unit tests\n"),
	   "a command's --help lists it");
	/* added: adding it again says so; not asked for, it was not */
	ok(ibve_pipeline_new(&p) == 0 &&
		   ibve_pipeline_add_live(p, &so, 1ull << i) == 0 &&
		   ibve_pipeline_add_source(p, "synthetic", NULL) == -EEXIST,
	   "asked for, the live sources include it");
	ibve_pipeline_free(p);
	ok(ibve_pipeline_new(&p) == 0 &&
		   ibve_pipeline_add_live(p, &so, 0) == 0 &&
		   ibve_pipeline_add_source(p, "synthetic", NULL) == 0,
	   "not asked for, they do not");
	ibve_pipeline_free(p);
	for (i = 0;
	     (o = ibve_source_option_at(i, &src)) && strcmp(src, "autopsy");)
		i++;
	ok(o && ibve_pipeline_new(&p) == 0 &&
		   ibve_pipeline_add_live(p, &so, 1ull << i) == 0 &&
		   ibve_pipeline_add_source(p, "autopsy", NULL) == -EEXIST &&
		   ibve_pipeline_add_source(p, "synthetic", NULL) == -EEXIST,
	   "the source it is with asked for (--autopsy), they include it");
	ibve_pipeline_free(p);
	free(help);
}

/* --- what the generator makes of it --------------------------------------- */

/* What share/mktables.c writes for ARG, in a string to free; NULL: failed. */
static char *generate(const char *arg)
{
	char path[] = "/tmp/test_source.XXXXXX", *text = NULL;
	int fd = mkstemp(path), saved, rc;
	off_t size;

	if (fd < 0)
		return NULL;
	unlink(path);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	rc = mktables_main(2, (char *[]){ "mktables", (char *)arg, NULL });
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	size = lseek(fd, 0, SEEK_END);
	if (!rc && size > 0 && (text = calloc(1, (size_t)size + 1)) &&
	    pread(fd, text, (size_t)size, 0) != size) {
		free(text);
		text = NULL;
	}
	close(fd);
	return text;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = f ? calloc(1, 1 << 20) : NULL;

	if (text)
		fread(text, 1, (1 << 20) - 1, f);
	if (f)
		fclose(f);
	return text;
}

/* Each word of the completion's event terms in TEXT, "\n"-joined, sorted. */
static void terms_of(const char *text, struct ibve_buf *b)
{
	static const char var[] = "\n_ibvevent_terms='";
	const char *at = text ? strstr(text, var) : NULL;
	const char *end = at ? strchr(at + strlen(var), '\'') : NULL;

	for (at = at ? at + strlen(var) : NULL; at && at < end;) {
		size_t len = strcspn(at, " \t\n'");

		if (len)
			ibve_buf_printf(b, "%.*s\n", (int)len, at);
		at += len + (at + len < end);
	}
}

static void test_tables(void)
{
	char *schema = generate("share/event.schema.in");
	char *completion = generate("completions/ibvevent");
	char *shipped = slurp("completions/ibvevent");
	char *man = generate("man/ibv_eventwatch.1");
	char *catalog = generate("catalog");
	char made[8192] = "\n", had[8192] = "\n", word[sizeof(had) + 2];
	struct ibve_buf m = { made, sizeof(made), 1 };
	struct ibve_buf h = { had, sizeof(had), 1 };
	bool all = true;

	ok(schema &&
		   strstr(schema,
			  "{\"$comment\": \"The names of source synthetic.\", \"if\": {\"properties\": {\"source\": {\"const\": \"synthetic\"}}, \"required\": [\"source\"]}, \"then\": {\"properties\": {\"event\": {\"anyOf\": [{\"enum\": [\"SYNTHETIC_TICK\", \"SYNTHETIC_ALARM\"]}") &&
		   strstr(schema,
			  "\"$comment\": \"synthetic SYNTHETIC_ALARM (2).\""),
	   "the schema has the source's names and a rule for each row");
	ok(schema &&
		   strstr(schema,
			  "\"syn_level\": {\"description\": \"Source synthetic: "
			  "the alarm's level.\", \"type\": \"integer\", "
			  "\"minimum\": 0, \"maximum\": 4294967295},\n"),
	   "and its field's property, from its row");
	terms_of(completion, &m);
	terms_of(shipped, &h);
	ok(strstr(made, "\nSYNTHETIC_TICK\nSYNTHETIC_ALARM\n") &&
		   strstr(made, "\nsynthetic\n"),
	   "the completion's event words have its names and source");
	/* the rest is what is shipped: the registration lists every source */
	ibve_buf_end(&m);
	ibve_buf_end(&h);
	for (char *w = had + 1, *nl; (nl = strchr(w, '\n')); w = nl + 1) {
		*nl = '\0';
		snprintf(word, sizeof(word), "\n%s\n", w);
		if (!strstr(made, word))
			printf("#   the generated words lack %s\n", w);
		all &= !!strstr(made, word);
	}
	ok(all && m.len == h.len + strlen("SYNTHETIC_TICK\nSYNTHETIC_ALARM\n"
					  "synthetic\n"),
	   "and the words shipped besides (%zu, %zu bytes)", m.len - 1,
	   h.len - 1);
	ok(man &&
		   strstr(man, ".It Dv SYNTHETIC_TICK Ta Li "
			       "137175dc396a4dd7aba6acac90def0a1\n") &&
		   strstr(man,
			  ".Pq Cm verbs , hotplug , mlx5 , sm , kernel , ") &&
		   strstr(man, " , autopsy , synthetic ,\n"),
	   "the man page's tables have its MESSAGE_IDs and its source");
	ok(completion && strstr(completion, "--synthetic'\n"),
	   "the completion offers its option");
	ok(man && strstr(man, ".It Fl \\-synthetic\nsource\n.Cm synthetic :\n"
			      "also the synthetic events of the unit tests\n"),
	   "the man page's table of the sources' options has it");
	ok(catalog && strstr(catalog, "-- c7b7716645fd49fba3493a5ecf686954\n"
				      "Subject: RDMA SYNTHETIC_ALARM on"),
	   "the journal catalog has an entry for each row");
	free(schema);
	free(completion);
	free(shipped);
	free(man);
	free(catalog);
}

int main(void)
{
	test_register();
	test_table();
	test_pipeline();
	test_option();
	test_tables();
	return done_testing();
}
