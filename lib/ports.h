/* SPDX-License-Identifier: MIT */
/* The port table's insides, shared by ports.c and metrics.c. */
#ifndef IBVE_PORTS_H
#define IBVE_PORTS_H

#include "util.h"

#define IBVE_RECENT  512 /* records kept for the event log */
#define IBVE_BUCKETS 60	 /* one per second: events per minute */

/* A counter of events of one kind on one port (metrics' series). */
struct ibve_series {
	char device[IBVE_NAME_MAX];
	uint32_t port;
	char event[IBVE_EVENT_NAME_MAX];
	enum ibve_severity severity;
	uint64_t count;
	struct timespec last;
};

#define IBVE_FLAPS_KEPT 64 /* flap times kept per port */

struct ibve_row {
	struct ibve_port_row pub; /* first: handed out as is */
	int up;			  /* -1 unknown, 0 down, 1 up (for since) */
	struct timespec down_at;  /* its PORT_ERR while down; 0: none */
	struct timespec flap_at[IBVE_FLAPS_KEPT]; /* ring, newest at head-1 */
	size_t flap_head, flap_n;
	struct ibve_port_attrs a; /* as read, "" where unreadable */
	int64_t bucket_sec[IBVE_BUCKETS];
	uint32_t bucket_n[IBVE_BUCKETS];
	struct ibve_counter *counters;
};

/* A port's health from a state file, for its row when it comes. */
struct ibve_saved_port {
	char device[IBVE_NAME_MAX];
	uint32_t port;
	uint64_t flaps;
	int up; /* -1: no since (another boot) */
	struct timespec since;
	double last_down;
	struct timespec flap_at[IBVE_FLAPS_KEPT];
	size_t flap_n;
};

struct ibve_dev {
	char name[IBVE_NAME_MAX];
	uint64_t guid;
	uint64_t lost; /* events its sources lost (EVENTS_LOST records) */
	bool present;
};

/*
 * Queue errors (affiliated events of error severity or worse) of one
 * workload (a Slurm job, a Kubernetes pod: ibve_cgroup_job()) and event.
 * The IBVE_WORKLOADS_KEPT last seen are kept, so that a watcher that runs
 * for months exports a bounded number of series; an older one is
 * forgotten (its series ends).
 */
#define IBVE_WORKLOADS_KEPT 64

struct ibve_workload {
	char name[64];
	char event[IBVE_EVENT_NAME_MAX];
	uint64_t count;
	uint64_t seen; /* when last counted, in ticks of the table */
};

/* Log sinks a pipeline takes (ibve_pipeline_add_sink() refuses more). */
#define IBVE_WATCHER_LOGS 8

/*
 * The watcher's own, copied from the pipeline a ports sink is in, when it
 * starts and before the loop waits (so the table never points at it).
 */
struct ibve_watcher {
	bool known; /* a pipeline's sink: the rest holds */
	struct timespec born;
	size_t nsources;
	struct {
		int records; /* enum ibve_source */
		bool runs;
	} sources[IBVE_SOURCES_MAX];
	size_t nlogs;
	struct {
		const char *name; /* static: "journal", "syslog" */
		uint64_t failures;
	} logs[IBVE_WATCHER_LOGS];
};

struct ibve_ports {
	unsigned int flags;
	struct ibve_row *rows; /* in (device, port) order */
	size_t nrows, rows_cap;
	struct ibve_series *series; /* in (device, port, event, severity) */
	size_t nseries, series_cap;
	/* port downs by cause (.event: its name), in (device, port, cause) */
	struct ibve_series *downs;
	size_t ndowns, downs_cap;
	struct ibve_dev *devs; /* in name order */
	size_t ndevs, devs_cap;
	struct ibve_event *recent;
	size_t recent_head, recent_n;
	uint64_t events_at_sample;
	struct timespec start, prev;
	bool started, sampled;
	struct ibve_ports_summary sum;
	double flap_window;
	struct ibve_saved_port *saved;
	size_t nsaved;
	struct ibve_watcher w;
	struct ibve_workload workloads[IBVE_WORKLOADS_KEPT]; /* unordered */
	size_t nworkloads;
	uint64_t workload_tick;
};

/* The up-ness of a verbs port state: ACTIVE and ACTIVE_DEFER are up. */
static inline int ibve_state_up(int state)
{
	return state ? state == 4 || state == 5 : -1;
}

/* This boot's id ("" when unknown), into BUF of 40 bytes. */
void ibve_boot_id(char *buf, size_t size);
/* Add to CUR the move of a counter from PREV to NOW: a counter that went
 * backwards was reset (NOW counts from 0); true then. */
bool ibve_counter_advance(uint64_t prev, uint64_t now, uint64_t *cur);
/*
 * The error counters (ibve_is_error_counter()) of the port directory DIR
 * (IBVE_SYSFS/DEV/ports/N): counters/ and hw_counters/, by name, into *V
 * (NULL: none), not read yet; how many.
 */
size_t ibve_counters_find(const char *dir, struct ibve_counter **v);
/*
 * Read the N counters V of DIR: each one's move since its last read added
 * to its delta (ibve_counter_advance(), a reset counted in *RESETS), its
 * rate that move over DT seconds (0: none); FIRST: the values alone. How
 * many could be read.
 */
size_t ibve_counters_read(const char *dir, struct ibve_counter *v, size_t n,
			  double dt, bool first, unsigned int *resets);
/*
 * EV a COUNTERS_MOVED record of the N counters V's moves (their deltas),
 * the IBVE_COUNTERS_KEPT largest kept, over SAMPLE_US; SINCE: while the
 * port was down, else before its down (src_counters.c).
 */
void ibve_counters_moved(struct ibve_event *ev, const struct ibve_counter *v,
			 size_t n, bool since, uint64_t sample_us);

/*
 * A port's peer looked up again (NEXT) becomes CUR; KNOWN keeps the last
 * known one across lookups that found none (a link down between two
 * cables): a known peer that is not KNOWN is changed (returned, and set in
 * CUR). A peer is never carried over from an older lookup.
 */
bool ibve_peer_take(struct ibve_peer *known, struct ibve_peer *cur,
		    const struct ibve_peer *next);

/* The series of (DEV, PORT, EVENT, SEV), made when new; NULL: no memory. */
struct ibve_series *ibve_ports_series(struct ibve_ports *t, const char *dev,
				      uint32_t port, const char *event,
				      enum ibve_severity sev);
/* The count of DEV/PORT's downs for CAUSE, made when new; NULL: no memory. */
struct ibve_series *ibve_ports_down(struct ibve_ports *t, const char *dev,
				    uint32_t port, const char *cause);
/*
 * The index of the link autopsy's cause NAME in its table, or -1 with
 * every name, comma-separated, in NAMES (NULL: not wanted).
 */
int ibve_cause_index(const char *name, char *names, size_t size);
/*
 * The cause of DEV/PORT's last down decided at or after SINCE (its verdict
 * comes a second after the down), or NULL: none known.
 */
const char *ibve_ports_down_cause(const struct ibve_ports *t, const char *dev,
				  uint32_t port, const struct timespec *since);
/* Whether a port counter of that name counts errors (dashboard). */
bool ibve_is_error_counter(const char *name);

#endif
