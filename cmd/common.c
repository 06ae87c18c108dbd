// SPDX-License-Identifier: MIT
/* What every command shares: see common.h. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

const char *cmd_prog;

#define HELP_COLUMN 25

/* The options ibv_eventwatch and ibv_eventtop share, defined once. */
static const struct cmd_opt shared[] = {
	{ 'd', "ib-dev", required_argument, "NAME",
	  "only device NAME (repeatable; default: every device,\nand those that appear later)" },
	{ CMD_OPT_EXCLUDE_DEVICE, "exclude-device", required_argument, "GLOB",
	  "never open nor read devices matching GLOB (repeatable)" },
	{ 'i', "ib-port", required_argument, "N", "only port N (repeatable)" },
	{ 'r', "replay", required_argument, "FILE",
	  "read events from FILE, a capture of ibv_eventwatch\n(- for standard input)" },
	{ CMD_OPT_FLAP_WINDOW, "flap-window", required_argument, "DURATION",
	  "a flap is a PORT_ERR then PORT_ACTIVE within it\n(default 10m)" },
	{ CMD_OPT_NO_COLOR, "no-color", no_argument, NULL,
	  "no colours (also when NO_COLOR is set)" },
};

/* Every command's last options, answered by cmd_getopt(). */
static const struct cmd_opt builtin[] = {
	{ 'h', "help", no_argument, NULL, "show this help" },
	{ 'V', "version", no_argument, NULL, "show the version" },
};

/* A device name (-d), kept in *NAMES (grown). */
static void cmd_device(const char *arg, const char ***names, size_t *n)
{
	const char **v;

	if (!*arg || strlen(arg) >= IBVE_NAME_MAX)
		cmd_usage_error("invalid device name '%s'", arg);
	v = realloc(*names, (*n + 1) * sizeof(*v));
	if (!v) {
		cmd_error("out of memory");
		exit(EXIT_RUNTIME);
	}
	v[(*n)++] = arg;
	*names = v;
}

/* What the shared option ID with ARG sets in S. */
static void set_shared(struct cmd_shared *s, int id, const char *arg)
{
	switch (id) {
	case 'd':
		cmd_device(arg, &s->names, &s->nnames);
		ibve_filter_add_device(s->filter, arg);
		break;
	case CMD_OPT_EXCLUDE_DEVICE:
		cmd_device(arg, &s->exclude, &s->nexclude);
		break;
	case 'i':
		s->port = cmd_port(arg);
		ibve_filter_add_port(s->filter, s->port);
		break;
	case 'r':
		s->replay = arg;
		break;
	case CMD_OPT_FLAP_WINDOW:
		s->flap_window = cmd_duration(arg);
		break;
	case CMD_OPT_NO_COLOR:
		s->no_color = true;
		break;
	}
}

/*
 * SPEC's options as --help lists them: a shared one from the shared table,
 * the sources' where SPEC says, then -h and -V. Made once.
 */
static struct cmd_opt opts[64];
static int source_of[64]; /* a source's option: its index; else -1 */
static size_t nopts;

static void add_opt(const struct cmd_opt *o, int source)
{
	if (nopts < sizeof(opts) / sizeof(*opts)) {
		source_of[nopts] = source;
		opts[nopts++] = *o;
	}
}

static void make_opts(const struct cmd_spec *spec)
{
	const struct ibve_source_option *so;
	const char *src;

	for (size_t i = 0; i < spec->nopts; i++) {
		const struct cmd_opt *o = &spec->opts[i];

		for (size_t k = 0; o->id == CMD_OPT_SOURCES &&
				   (so = ibve_source_option_at(k, &src));
		     k++)
			add_opt(&(struct cmd_opt){ so->letter ? so->letter
							      : CMD_OPT_SOURCE +
									(int)k,
						   so->name, no_argument, NULL,
						   so->help },
				(int)k);
		for (size_t k = 0;
		     !o->name && k < sizeof(shared) / sizeof(*shared); k++)
			if (shared[k].id == o->id)
				o = &shared[k];
		if (o->name)
			add_opt(o, -1);
	}
	for (size_t i = 0; i < sizeof(builtin) / sizeof(*builtin); i++)
		add_opt(&builtin[i], -1);
}

/* Print --help of SPEC to F. */
static void help(const struct cmd_spec *spec, FILE *f)
{
	fprintf(f, "Usage: %s %s\n%s\n", cmd_prog, spec->usage, spec->summary);
	for (size_t i = 0; i < nopts; i++) {
		const struct cmd_opt *o = &opts[i];
		const char *h = o->help;
		int n;

		n = o->id < 256 ? fprintf(f, "  -%c, --%s", o->id, o->name)
				: fprintf(f, "      --%s", o->name);
		if (o->arg)
			n += fprintf(f,
				     o->has_arg == optional_argument ? "[=%s]"
								     : " %s",
				     o->arg);
		fprintf(f, "%*s", n + 2 < HELP_COLUMN ? HELP_COLUMN - n : 2,
			"");
		while (*h) {
			size_t len = strcspn(h, "\n");

			fprintf(f, "%.*s\n", (int)len, h);
			h += len;
			if (*h == '\n' && *++h)
				fprintf(f, "%*s", HELP_COLUMN, "");
		}
	}
	if (spec->epilogue)
		fprintf(f, "\n%s", spec->epilogue);
}

/* Whether ID is one SPEC takes from the shared table. */
static bool is_shared(const struct cmd_spec *spec, int id)
{
	for (size_t i = 0; i < spec->nopts; i++)
		if (!spec->opts[i].name && spec->opts[i].id == id)
			return true;
	return false;
}

int cmd_getopt(const struct cmd_spec *spec, int argc, char **argv,
	       const char **arg)
{
	static struct option longs[64];
	static char shorts[128];
	const char *extra;
	int c;

	if (!nopts) {
		size_t s = 0;

		if (spec->shared && !spec->shared->filter)
			spec->shared->filter = cmd_filter();
		make_opts(spec);
		for (size_t i = 0; i < nopts; i++) {
			longs[i] = (struct option){ opts[i].name,
						    opts[i].has_arg, NULL,
						    opts[i].id };
			if (opts[i].id >= 256)
				continue;
			shorts[s++] = (char)opts[i].id;
			if (opts[i].has_arg == required_argument)
				shorts[s++] = ':';
		}
	}
again:
	c = getopt_long(argc, argv, shorts, longs, NULL);
	*arg = optarg;
	for (size_t i = 0; c > 0 && i < nopts; i++)
		if (opts[i].id == c && source_of[i] >= 0) {
			spec->shared->asked |= 1ull << source_of[i];
			goto again;
		}
	if (c > 0 && is_shared(spec, c)) {
		set_shared(spec->shared, c, optarg);
		goto again;
	}
	switch (c) {
	case 'h':
		help(spec, stdout);
		exit(fflush(stdout) ? EXIT_RUNTIME : EXIT_OK);
	case 'V':
		extra = spec->features ? spec->features() : NULL;
		printf("%s %s (libibvevent %s%s%s)\n", cmd_prog, IBVE_VERSION,
		       ibve_version(), extra ? "; " : "", extra ? extra : "");
		exit(fflush(stdout) ? EXIT_RUNTIME : EXIT_OK);
	case '?':
	case ':':
		fprintf(stderr, "Try '%s --help' for more information.\n",
			cmd_prog);
		exit(EXIT_USAGE);
	}
	return c;
}

uint64_t cmd_asked(const struct cmd_shared *s, const char *source)
{
	const struct ibve_source_option *o;
	const char *src;
	uint64_t m = 0;

	for (size_t i = 0; i < 64 && (o = ibve_source_option_at(i, &src)); i++)
		if (strcmp(src, source) == 0)
			m |= 1ull << i;
	return s->asked & m;
}

void cmd_shared_check(const struct cmd_shared *s, bool other, const char *modes,
		      const char *keep)
{
	uint64_t refused = other ? s->asked & ~(keep ? cmd_asked(s, keep) : 0)
				 : 0;
	const char *src;

	if (refused)
		cmd_usage_error("--%s is for watching devices, not with %s",
				ibve_source_option_at(
					(size_t)__builtin_ctzll(refused), &src)
					->name,
				modes);
}

int cmd_exclude(struct ibve_pipeline *p, const struct cmd_shared *s)
{
	int r = 0;

	for (size_t i = 0; !r && i < s->nexclude; i++)
		r = ibve_pipeline_exclude_device(p, s->exclude[i]);
	return r;
}

void cmd_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cmd_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", cmd_prog);
	exit(EXIT_USAGE);
}

void cmd_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cmd_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cmd_fail(void)
{
	cmd_error("%s", ibve_errmsg());
	return EXIT_RUNTIME;
}

unsigned long cmd_count(const char *arg, const char *what, unsigned long min,
			unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || !*arg || *end || *arg == '-' || v < min || v > max)
		cmd_usage_error(what, arg);
	return v;
}

double cmd_seconds(const char *arg, const char *what, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < min || v > max)
		cmd_usage_error(what, arg);
	return v;
}

double cmd_duration(const char *arg)
{
	/* a unit's seconds; with none, strchr() finds the end: seconds too */
	static const char units[] = "smhd";
	static const double secs[] = { 1, 60, 3600, 86400, 1 };
	const char *u;
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	u = strchr(units, *end);
	if (errno || end == arg || !isfinite(v) || v <= 0 || !u ||
	    (*end && end[1]) || v * secs[u - units] > 1e9)
		cmd_usage_error("invalid duration '%s': e.g. 90s, 10m, 2h",
				arg);
	return v * secs[u - units];
}

uint32_t cmd_port(const char *arg)
{
	return (uint32_t)cmd_count(arg, "invalid port number '%s'", 1, 65535);
}

bool cmd_color(bool no_color, bool need_tty_stdout)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (no_color || (nc && *nc))
		return false;
	return !need_tty_stdout ||
	       (isatty(STDOUT_FILENO) && term && strcmp(term, "dumb") != 0);
}

struct ibve_filter *cmd_filter(void)
{
	struct ibve_filter *f;

	if (ibve_filter_new(&f))
		exit(cmd_fail());
	return f;
}

void cmd_notes(enum ibve_note_kind kind, const char *text, void *arg)
{
	(void)arg;
	if (kind == IBVE_NOTE_INPUT)
		fprintf(stderr, "%s\n", text);
	else
		cmd_error("%s", text);
}

int cmd_start_failed(const struct ibve_pipeline *p)
{
	const char *failed = ibve_pipeline_failed(p), *src;
	const struct ibve_source_option *o;

	/* a source an option asks for: named after it */
	for (size_t i = 0; failed && (o = ibve_source_option_at(i, &src)); i++)
		if (strcmp(src, failed) == 0) {
			cmd_error("--%s: %s", o->name, ibve_errmsg());
			return EXIT_RUNTIME;
		}
	cmd_error("%s", ibve_errmsg());
	return EXIT_RUNTIME;
}

int cmd_add_sources(struct ibve_pipeline *p, const struct cmd_shared *s,
		    struct ibve_source_opts o)
{
	o.sz = sizeof(o);
	o.devices = s->names;
	o.ndevices = s->nnames;
	if (s->replay) { /* with the autopsy of its records, asked for */
		int r;

		o.path = s->replay;
		r = ibve_pipeline_add_source(p, "replay", &o);
		if (!r && cmd_asked(s, "autopsy"))
			r = ibve_pipeline_add_source(p, "autopsy", &o);
		return r;
	}
	return ibve_pipeline_add_live(p, &o, s->asked);
}
