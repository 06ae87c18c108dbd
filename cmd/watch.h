/* SPDX-License-Identifier: MIT */
/* ibv_eventwatch's parts: the options, the health check (--check). */
#ifndef IBVE_WATCH_H
#define IBVE_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "ibvevent.h"

/* What the options ask for (watch_opts.c). */
struct watch {
	struct cmd_shared c; /* -d, -i, -r, -A, ... (common.h) */
	struct ibve_check *spec;
	double since;
	bool check, brief, specs, ignore,
		filtered; /* filtered: -e, -x, -i, --pid, --comm */
	bool owners;	  /* --pid, --comm */
	struct ibve_filter *expect;
	struct ibve_run_opts run;
	const char *capture, *metrics, *state, *listen, *web_config;
	bool json, list, list_events, quiet, journal;
	int facility;
	unsigned long storm; /* --storm: the threshold, events a second */
	bool storm_json;     /* --storm-json */
};

/*
 * Past 10 events of one key in a second, a storm. journald keeps 10,000
 * entries of a service in 30 s (about 333 a second): at one summary a
 * second per key, thirty storming keys stay far below it, while lone
 * events and the short bursts of a flap or a CQ overrun of a few
 * completions are still written one by one. A person reads a few lines a
 * second, not hundreds.
 */
#define WATCH_STORM_DEFAULT 10

/* Parse ARGV into W; a usage error exits 2 with the reason. */
void watch_parse(struct watch *w, int argc, char **argv);

/* Whether device DEV is selected: -d (none: all), less --exclude-device
 * (ARG: a struct cmd_shared). */
bool watch_selected(const char *dev, void *arg);
/* -l: the selected devices with their ports (-i: that one); an exit
 * status. */
int watch_list(const struct cmd_shared *sel, bool json);
/* --list-events: every row of the library's event table; an exit status. */
int watch_list_events(bool json);
/* LOG_DAEMON ... of a facility's NAME; -1 when it is not one. */
int watch_facility(const char *name);
/* Whether a syslog daemon takes messages; if not, said, and -errno. */
int watch_syslog_ready(void);

/*
 * --check of W's spec (every port ACTIVE when it has none), the history of
 * -r or --metrics-state over --since: the exit status (0 healthy, 1 not, 3
 * runtime, 4 bad input).
 */
int watch_check(struct watch *w);

#endif
