/* SPDX-License-Identifier: MIT */
/*
 * What every command shares: the option table that drives getopt and
 * --help, the parsers of numbers, seconds, ports and devices, the exit
 * statuses, -h and -V, colour, and the messages that must read the same
 * whichever command prints them.
 */
#ifndef IBVE_CMD_COMMON_H
#define IBVE_CMD_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "ibvevent.h"

/* Exit statuses, the same for every command (EXIT STATUS in the manuals). */
enum cmd_exit {
	EXIT_OK = 0,
	EXIT_NOT_MET = 1,   /* an expectation was not met */
	EXIT_USAGE = 2,	    /* bad options */
	EXIT_RUNTIME = 3,   /* what was asked could not be done */
	EXIT_BAD_INPUT = 4, /* malformed replay input, good lines kept */
};

/*
 * The errors of cmd/, as the library's: 0, or a negative errno with the
 * reason in ibve_errmsg() for the caller to say; or CMD_SAID, when the
 * function has said why itself (on standard error, or in a report it
 * fills) and the caller only passes it on.
 */
#define CMD_SAID (-1)

/* The program's name, for every message. */
extern const char *cmd_prog;

/*
 * What the options ibv_eventwatch and ibv_eventtop share set: -d, -i,
 * -r, --exclude-device, --flap-window, --no-color, and the
 * sources' own options (-A, --sm, --mlx5: the library's).
 */
struct cmd_shared {
	const char **names, **exclude; /* -d, --exclude-device */
	size_t nnames, nexclude;
	struct ibve_filter *filter; /* of -d and -i */
	const char *replay;
	double flap_window;
	uint32_t port; /* the last -i; 0: none */
	/* the sources' options given: bit I, ibve_source_option_at(I) */
	uint64_t asked;
	bool no_color;
};

/* The ids of the shared long options; a command's own start at CMD_OPT_OWN. */
enum {
	CMD_OPT_EXCLUDE_DEVICE = 256,
	CMD_OPT_FLAP_WINDOW,
	CMD_OPT_NO_COLOR,
	/* in a command's table, where the sources' options go (CMD_SHARED) */
	CMD_OPT_SOURCES,
	CMD_OPT_OWN,
	/* the sources' options: CMD_OPT_SOURCE + their index */
	CMD_OPT_SOURCE = 1024,
};

/* One option: its names, its argument, its line(s) of --help. */
struct cmd_opt {
	int id;		  /* getopt's value: the short letter, or >= 256 */
	const char *name; /* long name; NULL: the shared option ID */
	int has_arg;	  /* no_argument, required_argument, ... */
	const char *arg;  /* the argument's name in --help, or NULL */
	const char *help; /* lines after the first indented in --help */
};

/* In a command's table: the shared option ID, where --help shows it. */
#define CMD_SHARED(id)                  \
	{                               \
		id, NULL, 0, NULL, NULL \
	}

/* The options of a command, with its usage line and what it does. */
struct cmd_spec {
	const char *usage;   /* "[OPTIONS]" */
	const char *summary; /* lines after "Usage:" */
	const struct cmd_opt *opts;
	size_t nopts;
	const char *epilogue; /* after the options (keys, exit status) */
	/* -V: features worth naming after the library's version, or NULL */
	const char *(*features)(void);
	struct cmd_shared *shared; /* what the shared options set */
};

/*
 * The next option of ARGV (getopt_long over SPEC), its argument in
 * *ARG; -1 at the end. -h and -V are answered here (exit 0), the shared
 * options set SPEC's shared; a bad option exits 2.
 */
int cmd_getopt(const struct cmd_spec *spec, int argc, char **argv,
	       const char **arg);

/* "PROG: <message>" and "Try 'PROG --help'", exit 2. */
void cmd_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)))
__attribute__((noreturn));
/* "PROG: <message>" on standard error. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PROG: <ibve_errmsg()>", the library's last failure, and EXIT_RUNTIME. */
int cmd_fail(void);

/* The options of source SOURCE given in S (a mask of S->asked). */
uint64_t cmd_asked(const struct cmd_shared *s, const char *source);
/*
 * The shared options' combinations refused: a source's option (but
 * those of source KEEP, or NULL) with a mode other
 * than watching devices (OTHER, named as MODES: "-r").
 */
void cmd_shared_check(const struct cmd_shared *s, bool other, const char *modes,
		      const char *keep);
/*
 * Add to P the sources of S: the capture of -r with O's step and flags
 * (and --autopsy, of its records), or those of live devices (-d: those),
 * with what the sources' options asked for. 0 or -errno.
 */
int cmd_add_sources(struct ibve_pipeline *p, const struct cmd_shared *s,
		    struct ibve_source_opts o);
/* Keep the devices of --exclude-device out of P; 0 or -errno. */
int cmd_exclude(struct ibve_pipeline *p, const struct cmd_shared *s);

/* Parsers of option arguments; a bad one is a usage error naming WHAT. */
unsigned long cmd_count(const char *arg, const char *what, unsigned long min,
			unsigned long max);
double cmd_seconds(const char *arg, const char *what, double min, double max);
uint32_t cmd_port(const char *arg);
/* "90", "90s", "10m", "2h", "1d": seconds, more than 0 (else usage). */
double cmd_duration(const char *arg);

/* Whether text on standard output gets colours (not NO_COLOR, a tty). */
bool cmd_color(bool no_color, bool need_tty_stdout);

/* The filter of -d and -i: devices and ports. */
struct ibve_filter *cmd_filter(void);

/*
 * Notes of a pipeline: what a source went on without as "PROG: note",
 * a malformed input line as the library says it ("FILE:LINE: reason").
 */
void cmd_notes(enum ibve_note_kind kind, const char *text, void *arg);
/*
 * ibve_pipeline_start() failed: say why, named after the option that
 * asks for the source that failed (--sm, --mlx5), and EXIT_RUNTIME.
 */
int cmd_start_failed(const struct ibve_pipeline *p);

#endif
