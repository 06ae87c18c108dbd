/* SPDX-License-Identifier: MIT */
/*
 * Storm summaries: the one place that turns a storm of one key's events
 * into a summary record a second, for every sink that asks for them.
 */
#ifndef IBVE_STORM_H
#define IBVE_STORM_H

#include "util.h"

struct ibve_storm;

/* Where the summariser's records go: 0, or a value that stops the run. */
typedef int (*ibve_storm_out)(const struct ibve_event *ev, void *arg);

/* A summariser of keys past THRESHOLD events a second (> 0); -ENOMEM. */
int ibve_storm_new(struct ibve_storm **s, unsigned long threshold);
void ibve_storm_free(struct ibve_storm *s);
/*
 * EV through OUT at once, or counted into its key's summary; what OUT
 * returned, else 0. A summary whose interval EV's time has passed goes
 * out first.
 */
int ibve_storm_feed(struct ibve_storm *s, const struct ibve_event *ev,
		    ibve_storm_out out, void *arg);
/* Milliseconds from NOW (CLOCK_REALTIME) to the next interval's end; -1. */
int ibve_storm_next(const struct ibve_storm *s, const struct timespec *now);
/*
 * The summaries of the intervals that ended by NOW to OUT (NULL: every
 * storm ends now, each with its last summary); 0 or what OUT returned.
 */
int ibve_storm_tick(struct ibve_storm *s, const struct timespec *now,
		    ibve_storm_out out, void *arg);

#endif
