// SPDX-License-Identifier: MIT
/*
 * Writes what is derived from the library's tables, at build time, so that
 * no list of names is kept by hand beside them:
 *
 *   mktables catalog     the journal catalog (ibvevent.catalog)
 *   mktables FILE.in     FILE.in with each @LIST@ replaced: a template
 *   mktables FILE        FILE with the lines between a line holding
 *                        "@gen LIST [FORMAT]" and one holding "@end" made
 *                        again (man pages, the completion)
 *
 * to standard output. A LIST alone on a template line is a multi-line
 * part of the JSON schema (the rules of the event table, the properties);
 * inside a line it is a JSON array. After "@gen", FORMAT is one line with
 * the items for its %s: ", "-joined for a man page's macro line (FORMAT
 * starts with a dot), else space-joined and wrapped. Lives in share/, with
 * its input (the schema's template and its properties' prose): it is no
 * part of the library or the commands, only linked on the library's
 * objects to read its tables. make runs it; test/cli/03-generated.bats
 * checks that what is shipped is what it writes.
 */
#include <libgen.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "event.h"
#include "fields.h"
#include "source.h"

/* The words of the list being made, each once; grown as needed. */
static char **items;
static size_t nitems, room;
static const char *template_dir = ".";

static void add(const char *s)
{
	for (size_t i = 0; i < nitems; i++)
		if (strcmp(items[i], s) == 0)
			return;
	if (nitems == room) {
		room = room ? 2 * room : 64;
		items = realloc(items, room * sizeof(*items));
	}
	if (!items || !(items[nitems++] = strdup(s))) {
		perror("mktables");
		exit(1);
	}
}

/* The name of source S, or NULL; below 64 (the event table refuses more). */
#define MAX_SOURCE 64

static const char *source_at(int s)
{
	const char *n = ibve_source_name((enum ibve_source)s);

	return strcmp(n, "unknown") ? n : NULL;
}

/* Whether source S says row D for its code (the kernel: the verbs rows). */
static bool speaks(int s, const struct ibve_event_desc *d)
{
	return ibve_event_desc_find((enum ibve_source)s, d->code) == d;
}

/* --- the journal catalog ------------------------------------------------ */

/*
 * The width of the N bytes of word S as journalctl shows it: a field it
 * substitutes (@RDMA_DEVICE@) as wide as a usual value.
 */
static size_t shown_width(const char *s, size_t n)
{
	const char *end = n > 1 && *s == '@' ? memchr(s + 1, '@', n - 1) : NULL;

	return end ? 7 + (size_t)(s + n - end - 1) : n;
}

/* TEXT's words on lines of at most 76 columns, as journalctl shows them. */
static void wrap(FILE *f, const char *text)
{
	size_t col = 0;

	while (*text) {
		size_t n = strcspn(text, " "), w = shown_width(text, n);

		if (col && col + 1 + w > 76) {
			fputc('\n', f);
			col = 0;
		} else if (col) {
			fputc(' ', f);
			col++;
		}
		fwrite(text, 1, n, f);
		col += w;
		text += n;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

/* Whether another row has D's name (EVENTS_LOST: mlx5's and the kernel's). */
static bool shared_name(const struct ibve_event_desc *d)
{
	const struct ibve_event_desc *o;

	for (size_t i = 0; (o = ibve_event_desc_at(i)); i++)
		if (o != d && strcmp(o->name, d->name) == 0)
			return true;
	return false;
}

static void catalog_entry(FILE *f, const struct ibve_event_desc *d,
			  bool unknown)
{
	char what[512];

	fprintf(f, "\n-- %s\n", d->message_id);
	if (unknown)
		fputs("Subject: RDMA event @RDMA_EVENT@ on @RDMA_DEVICE@, "
		      "unknown to ibvevent\n",
		      f);
	else if (shared_name(d))
		fprintf(f, "Subject: RDMA %s (%s) on @RDMA_DEVICE@\n", d->name,
			ibve_source_name(d->source));
	else
		fprintf(f, "Subject: RDMA %s on @RDMA_DEVICE@\n", d->name);
	fputs("Defined-By: ibvevent\n"
	      "Documentation: man:ibv_eventwatch(1)\n\n",
	      f);
	/* the record's own class and severity: mlx5 sub-types set theirs */
	snprintf(what, sizeof(what),
		 "@RDMA_DEVICE@ reported %s (class @RDMA_CLASS@, severity "
		 "@RDMA_SEVERITY@, source @RDMA_SOURCE@): %s.",
		 unknown ? "@RDMA_EVENT@" : d->name, d->text);
	wrap(f, what);
	fputc('\n', f);
	snprintf(what, sizeof(what), "What to do: %s", d->advice);
	wrap(f, what);
	fputc('\n', f);
	wrap(f,
	     "The entry's RDMA_* fields hold the whole record, as "
	     "ibv_eventwatch -j writes it (RDMA_PORT, RDMA_QP_NUM, RDMA_PID, "
	     "RDMA_COMM, ...); RDMA_TIME is when the event was read, which "
	     "for a replayed capture is not when the entry was written.");
}

/* A verdict of the link autopsy: its cause's entry, what decides it and
 * what to do. */
static void cause_entry(FILE *f, const struct ibve_cause *c)
{
	char what[1024];

	fprintf(f,
		"\n-- %s\n"
		"Subject: RDMA PORT_DOWN_CAUSE (%s) on @RDMA_DEVICE@\n"
		"Defined-By: ibvevent\n"
		"Documentation: man:ibv_eventwatch(1)\n\n",
		c->message_id, c->name);
	snprintf(
		what, sizeof(what),
		"Port @RDMA_PORT@ of @RDMA_DEVICE@ went down, and the link "
		"autopsy decided why: %s (severity @RDMA_SEVERITY@). That "
		"cause is decided by %s. The evidence seen a second before and "
		"after the down: @RDMA_EVIDENCE@.",
		c->name, c->decided_by);
	wrap(f, what);
	fputc('\n', f);
	snprintf(what, sizeof(what), "What to do: %c%s.",
		 toupper((unsigned char)c->action[0]), c->action + 1);
	wrap(f, what);
}

static void catalog(FILE *f)
{
	const struct ibve_event_desc *d;

	fputs("# SPDX-License-Identifier: MIT\n"
	      "#\n"
	      "# The journal catalog of ibvevent: one entry per MESSAGE_ID of\n"
	      "# ibv_eventwatch --journal, made from libibvevent's event table\n"
	      "# at build time (do not edit). journalctl -x shows the entry\n"
	      "# beside each message once journalctl --update-catalog has read\n"
	      "# it from /usr/lib/systemd/catalog.\n",
	      f);
	for (size_t i = 0; (d = ibve_event_desc_at(i)); i++)
		catalog_entry(f, d, false);
	catalog_entry(f, &ibve_unknown_desc, true);
	for (const struct ibve_cause *c = ibve_causes; c->name; c++)
		cause_entry(f, c);
}

/* --- lists of words -------------------------------------------------------- */

static void sources(void)
{
	for (int s = 0; s < MAX_SOURCE; s++)
		if (source_at(s))
			add(source_at(s));
}

static void classes(void)
{
	for (int c = 0; c <= IBVE_CLASS_UNKNOWN; c++)
		add(ibve_class_name((enum ibve_class)c));
}

static void severities(void)
{
	for (int v = 0; v <= IBVE_SEVERITY_FATAL; v++)
		add(ibve_severity_name((enum ibve_severity)v));
}

static void names(void)
{
	const struct ibve_event_desc *d;

	for (size_t i = 0; (d = ibve_event_desc_at(i)); i++)
		add(d->name);
}

/* What the kernel source names as the cause before an event. */
static void after(void)
{
	const struct ibve_event_desc *d;

	for (size_t i = 0; (d = ibve_event_desc_at(i)); i++)
		if (d->source == IBVE_SOURCE_VERBS &&
		    (d->cls == IBVE_CLASS_PORT ||
		     d->cls == IBVE_CLASS_DEVICE) &&
		    d->severity >= IBVE_SEVERITY_WARNING)
			add(d->name);
}

static void qp_types(bool numbered)
{
	char buf[32];

	for (uint32_t t = 0; t < 256; t++)
		if (strncmp(ibve_qp_type_name(t), "QPT(", 4)) {
			snprintf(buf, sizeof(buf), "QPT(%u)", t);
			add(numbered ? buf : ibve_qp_type_name(t));
		}
}

static void qp_named(void)
{
	qp_types(false);
}

static void qp_numbered(void)
{
	qp_types(true);
}

/* -e's words: names, classes, sources and severity terms. */
static void terms(void)
{
	char buf[64];

	names();
	classes();
	sources();
	for (int v = 0; v <= IBVE_SEVERITY_FATAL; v++) {
		snprintf(buf, sizeof(buf), "severity%s%s",
			 v < IBVE_SEVERITY_FATAL ? ">=" : "=",
			 ibve_severity_name((enum ibve_severity)v));
		add(buf);
	}
}

/* The sources' options, as a command line spells them: "-A --all-processes". */
static void source_options(void)
{
	const struct ibve_source_option *o;
	const char *src;
	char buf[64];

	for (size_t i = 0; (o = ibve_source_option_at(i, &src)); i++) {
		if (o->letter) {
			snprintf(buf, sizeof(buf), "-%c", o->letter);
			add(buf);
		}
		snprintf(buf, sizeof(buf), "--%s", o->name);
		add(buf);
	}
}

/* The link autopsy's causes, in the order they are tried; those whose
 * verdict is a warning. */
static void causes(void)
{
	for (const struct ibve_cause *c = ibve_causes; c->name; c++)
		add(c->name);
}

static void warning_causes(void)
{
	for (const struct ibve_cause *c = ibve_causes; c->name; c++)
		if (c->severity == IBVE_SEVERITY_WARNING)
			add(c->name);
}

static const struct {
	const char *name;
	void (*fill)(void);
} lists[] = {
	{ "sources", sources },
	{ "classes", classes },
	{ "severities", severities },
	{ "names", names },
	{ "after", after },
	{ "qp_types", qp_named },
	{ "qp_numbered", qp_numbered },
	{ "terms", terms },
	{ "source_options", source_options },
	{ "causes", causes },
	{ "warning_causes", warning_causes },
};

static bool fill(const char *name, size_t len)
{
	while (nitems)
		free(items[--nitems]);
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
		if (strlen(lists[i].name) == len &&
		    strncmp(lists[i].name, name, len) == 0) {
			lists[i].fill();
			return true;
		}
	return false;
}

static void json_array(FILE *f)
{
	fputc('[', f);
	for (size_t i = 0; i < nitems; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", items[i]);
	fputc(']', f);
}

/* --- the schema's rules -------------------------------------------------- */

/* Source S's names: its rows, or UNKNOWN(n) for a code it has none for. */
static void name_rules(FILE *f, const char *indent)
{
	const struct ibve_event_desc *d;

	for (int s = 0, n = 0; s < MAX_SOURCE; s++) {
		bool first = true;

		if (!source_at(s))
			continue;
		fprintf(f,
			"%s%s{\"$comment\": \"The names of source %s.\", \"if\": {\"properties\": {\"source\": {\"const\": \"%s\"}}, \"required\": [\"source\"]}, \"then\": {\"properties\": {\"event\": {\"anyOf\": [{\"enum\": [",
			n++ ? ",\n" : "", indent, source_at(s), source_at(s));
		for (size_t i = 0; (d = ibve_event_desc_at(i)); i++)
			if (speaks(s, d)) {
				fprintf(f, "%s\"%s\"", first ? "" : ", ",
					d->name);
				first = false;
			}
		fputs("]}, {\"pattern\": \"^UNKNOWN\\\\(\", \"not\": {\"enum\": [",
		      f);
		first = true;
		for (size_t i = 0; (d = ibve_event_desc_at(i)); i++)
			if (speaks(s, d)) {
				fprintf(f, "%s\"UNKNOWN(%d)\"",
					first ? "" : ", ", d->code);
				first = false;
			}
		fputs("]}}]}}}}", f);
	}
	fputc('\n', f);
}

/* The severities an mlx5 entry of type CODE decodes to, by sub-type and
 * module status: a mask of 1 << severity. */
static unsigned int mlx5_severities(int code)
{
	unsigned int mask = 0;

	for (int sub = 0; sub < 256; sub++)
		for (int b = 0; b < 16; b++) {
			uint8_t eqe[64] = { [1] = (uint8_t)code,
					    [3] = (uint8_t)sub,
					    [35] = (uint8_t)b };
			struct ibve_event ev = { 0 };

			ibve_mlx5_decode(&ev, eqe, sizeof(eqe));
			mask |= 1u << ev.severity;
		}
	return mask;
}

/* Each row: its name and sources fix code, class, affiliation, severity. */
static void row_rules(FILE *f, const char *indent)
{
	const struct ibve_event_desc *d;

	for (size_t i = 0; (d = ibve_event_desc_at(i)); i++) {
		bool mlx5 = d->source == IBVE_SOURCE_MLX5 && d->code < 256;
		const struct ibve_source_ops *o = ibve_source_of(d->source);
		unsigned int sev =
			(mlx5 ? mlx5_severities(d->code) : 1u << d->severity) |
			(o ? o->severities : 0);
		char src[64] = "", list[96] = "";
		int n = 0;

		for (int s = 0; s < MAX_SOURCE; s++)
			if (source_at(s) && speaks(s, d)) {
				snprintf(src + strlen(src),
					 sizeof(src) - strlen(src), "%s%s",
					 n ? "/" : "", source_at(s));
				snprintf(list + strlen(list),
					 sizeof(list) - strlen(list),
					 "%s\"%s\"", n++ ? ", " : "",
					 source_at(s));
			}
		fprintf(f,
			"%s%s{\"$comment\": \"%s %s (%d).\", \"if\": {\"properties\": {\"event\": {\"const\": \"%s\"}, \"source\": {",
			i ? ",\n" : "", indent, src, d->name, d->code, d->name);
		if (n > 1)
			fprintf(f, "\"enum\": [%s]", list);
		else
			fprintf(f, "\"const\": %s", list);
		fprintf(f,
			"}}, \"required\": [\"event\", \"source\"]}, \"then\": {\"properties\": {\"code\": {\"const\": %d}, \"class\": {\"const\": \"%s\"}, \"affiliated\": {\"const\": %s}, \"severity\": {",
			d->code, ibve_class_name(d->cls),
			d->affiliated ? "true" : "false");
		if ((sev & (sev - 1)) == 0) {
			fprintf(f, "\"const\": \"%s\"",
				ibve_severity_name(d->severity));
		} else {
			fputs("\"enum\": [", f);
			for (int v = 0, k = 0; v <= IBVE_SEVERITY_FATAL; v++)
				if (sev & (1u << v))
					fprintf(f, "%s\"%s\"", k++ ? ", " : "",
						ibve_severity_name(
							(enum ibve_severity)v));
			fputc(']', f);
		}
		fputc('}', f);
		if (mlx5)
			fprintf(f,
				", \"eqe\": {\"pattern\": \"^[0-9a-f]{2}%02x\"}",
				d->code);
		fputs("}}}", f);
	}
	fputc('\n', f);
}

static int put_line(FILE *f, const char *line);

/* Key K's property from its row alone (no line of event.keys): the
 * row's one line of documentation and its type; NULL: it has none. */
static char *row_property(int k)
{
	const struct ibve_frow *r = ibve_field_of_key(k);
	const struct ibve_fieldspec *f = r ? r->spec : NULL;
	char buf[1024];

	if (!f || !f->doc)
		return NULL;
	if (f->type == FT_STR)
		snprintf(
			buf, sizeof(buf),
			"%s {\"description\": \"%s\", \"type\": \"string\", \"maxLength\": %zu}\n",
			ibve_keys[k].name, f->doc, f->size - 1);
	else if (f->type != FT_OWN)
		snprintf(
			buf, sizeof(buf),
			"%s {\"description\": \"%s\", \"type\": \"integer\", \"minimum\": 0, \"maximum\": %llu}\n",
			ibve_keys[k].name, f->doc,
			f->type == FT_U32 ? 4294967295ull
					  : 18446744073709551615ull);
	else
		snprintf(buf, sizeof(buf), "%s {\"description\": \"%s\"}\n",
			 ibve_keys[k].name, f->doc);
	return strdup(buf);
}

/*
 * The properties: one per key of the library's key table, in its order,
 * with their prose from event.keys beside the template ("KEY JSON" lines)
 * or, for a key it has no line for, from its field row; the keys not in
 * the table (the mlx5 decoder's) where that file has them.
 */
static int properties(FILE *f, const char *indent)
{
	char path[4096], *line[128] = { 0 }, *out[256], buf[8192];
	bool mine[256] = { false };
	size_t n = 0, next = 0, nout = 0;
	FILE *in;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/event.keys", template_dir);
	if (!(in = fopen(path, "r"))) {
		perror(path);
		return 1;
	}
	while (fgets(buf, sizeof(buf), in))
		if (buf[0] != '#' && buf[0] != '\n' && n < ARRAY_SIZE(line))
			line[n++] = strdup(buf);
		else if (buf[0] != '#' && buf[0] != '\n')
			rc = 1; /* never a property left out */
	fclose(in);
	if (rc) {
		fprintf(stderr, "%s: more than %zu properties\n", path,
			ARRAY_SIZE(line));
		return rc;
	}
	ibve_fields_ready();
	for (int k = 0; k <= ibve_nkeys && !rc; k++) {
		size_t j = n, len = k < ibve_nkeys ? ibve_keys[k].len : 0;
		char *own = NULL;

		for (size_t i = 0; k < ibve_nkeys && i < n; i++)
			if (strncmp(line[i], ibve_keys[k].name, len) == 0 &&
			    line[i][len] == ' ')
				j = i;
		if (k < ibve_nkeys && j == n && !(own = row_property(k))) {
			fprintf(stderr, "%s: no line for key %s\n", path,
				ibve_keys[k].name);
			rc = 1;
		} else if (j < next) {
			fprintf(stderr, "%s: %s is not in the table's order\n",
				path, ibve_keys[k].name);
			rc = 1;
		}
		for (; !rc && !own && next < n && next <= j; next++)
			out[nout++] = line[next];
		if (own) {
			mine[nout] = true;
			out[nout++] = own;
		}
	}
	for (size_t i = 0; !rc && i < nout; i++) {
		char *sp = strchr(out[i], ' ');

		snprintf(buf, sizeof(buf), "%s\"%.*s\": %s", indent,
			 (int)(sp - out[i]), out[i], sp + 1);
		buf[strlen(buf) - 1] = i + 1 < nout ? ',' : '\0';
		rc = put_line(f, buf);
	}
	for (size_t i = 0; i < nout; i++)
		if (mine[i])
			free(out[i]);
	for (size_t i = 0; i < n; i++)
		free(line[i]);
	return rc;
}

/* --- files ---------------------------------------------------------------- */

/* LINE with each @LIST@ in it a JSON array; 1 for an unknown list. */
static int put_line(FILE *f, const char *line)
{
	const char *at, *end;

	while ((at = strchr(line, '@')) && (end = strchr(at + 1, '@'))) {
		fwrite(line, 1, (size_t)(at - line), f);
		if (!fill(at + 1, (size_t)(end - at - 1))) {
			fprintf(stderr, "no list %.*s\n", (int)(end - at - 1),
				at + 1);
			return 1;
		}
		json_array(f);
		line = end + 1;
	}
	fputs(line, f);
	fputc('\n', f);
	return 0;
}

static int template_line(FILE *f, char *line)
{
	size_t ind = strspn(line, " ");
	char indent[64];

	snprintf(indent, sizeof(indent), "%.*s", (int)ind, line);
	if (strcmp(line + ind, "@names@") == 0)
		name_rules(f, indent);
	else if (strcmp(line + ind, "@rows@") == 0)
		row_rules(f, indent);
	else if (strcmp(line + ind, "@properties@") == 0)
		return properties(f, indent);
	else
		return put_line(f, line);
	return 0;
}

/* The lines of a "@gen LIST FORMAT" region. */
static int region(FILE *f, const char *spec)
{
	const char *sp = spec + strcspn(spec, " "), *fmt = sp + (*sp == ' ');
	const struct ibve_event_desc *d;
	size_t col;

	if (strncmp(spec, "source-options", 14) == 0) {
		/* which option asks for which source, with its help */
		const struct ibve_source_option *o;
		const char *src;

		fputs(".Bl -tag -width Ds -compact\n", f);
		for (size_t i = 0; (o = ibve_source_option_at(i, &src)); i++) {
			if (o->letter)
				fprintf(f, ".It Fl %c , \\-", o->letter);
			else
				fputs(".It Fl \\-", f);
			for (const char *c = o->name; *c; c++)
				fprintf(f, *c == '-' ? "\\-" : "%c", *c);
			fprintf(f, "\nsource\n.Cm %s :\n", src);
			for (const char *c = o->help; *c; c++)
				fputc(*c == '\n' ? ' ' : *c, f);
			fputc('\n', f);
		}
		fputs(".El\n", f);
		return 0;
	}
	if (strncmp(spec, "journal-ids", 11) == 0) {
		/* the MESSAGE_IDs of the sources whose man page this is */
		for (size_t i = 0; (d = ibve_event_desc_at(i)); i++)
			if (d->source != IBVE_SOURCE_MLX5 &&
			    d->source != IBVE_SOURCE_KERNEL)
				fprintf(f, ".It Dv %s Ta Li %s\n", d->name,
					d->message_id);
		fprintf(f, ".It Dv UNKNOWN(n) Ta Li %s\n",
			ibve_unknown_desc.message_id);
		return 0;
	}
	if (strncmp(spec, "cause-ids", 9) == 0) {
		/* a verdict's MESSAGE_ID: its cause's */
		for (const struct ibve_cause *c = ibve_causes; c->name; c++)
			fprintf(f, ".It Cm %s Ta Li %s\n", c->name,
				c->message_id);
		return 0;
	}
	if (strncmp(spec, "causes:", 7) == 0) {
		/* the autopsy's table: cause, what decides it, the action */
		fputs(".Bl -tag -width Ds\n", f);
		for (const struct ibve_cause *c = ibve_causes; c->name; c++)
			fprintf(f,
				".It Cm %s Pq %s\nDecided by %s.\nAction: %s.\n",
				c->name, ibve_severity_name(c->severity),
				c->decided_by, c->action);
		fputs(".El\n", f);
		return 0;
	}
	if (!fill(spec, (size_t)(sp - spec)) || !strstr(fmt, "%s")) {
		fprintf(stderr, "no list or no %%s: @gen %s\n", spec);
		return 1;
	}
	fwrite(fmt, 1, (size_t)(strstr(fmt, "%s") - fmt), f);
	col = (size_t)(strstr(fmt, "%s") - fmt);
	for (size_t i = 0; i < nitems; i++) {
		size_t w = strlen(items[i]);

		if (fmt[0] == '.') {
			fprintf(f, "%s%s", i ? " , " : "", items[i]);
		} else if (i && col + 1 + w > 72) {
			fprintf(f, "\n\t%s", items[i]);
			col = 8 + w;
		} else {
			fprintf(f, "%s%s", i ? " " : "", items[i]);
			col += w + !!i;
		}
	}
	fprintf(f, "%s\n", strstr(fmt, "%s") + 2);
	return 0;
}

static int file(const char *path)
{
	bool template = strlen(path) > 3 &&
			!strcmp(path + strlen(path) - 3, ".in");
	char *line = NULL, *dir = strdup(path);
	size_t size = 0;
	bool skip = false;
	FILE *in = fopen(path, "r");
	int rc = 0;
	ssize_t n;

	if (!in) {
		perror(path);
		return 1;
	}
	template_dir = dirname(dir);
	while (!rc && (n = getline(&line, &size, in)) > 0) {
		char *gen = strstr(line, "@gen ");

		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (template) {
			rc = template_line(stdout, line);
			continue;
		}
		if (skip && !strstr(line, "@end"))
			continue;
		puts(line);
		skip = false;
		if (gen) {
			rc = region(stdout, gen + 5);
			skip = true;
		}
	}
	if (skip) {
		fprintf(stderr, "%s: @gen without @end\n", path);
		rc = 1;
	}
	free(line);
	free(dir);
	fclose(in);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc != 2) {
		fputs("usage: mktables catalog | FILE\n", stderr);
		return 2;
	}
	if (ibve_event_table_check()) {
		fprintf(stderr, "mktables: %s\n", ibve_errmsg());
		return 1;
	}
	if (strcmp(argv[1], "catalog") == 0) {
		catalog(stdout);
		rc = 0;
	} else {
		rc = file(argv[1]);
	}
	return fflush(stdout) || ferror(stdout) || rc ? 1 : 0;
}
