/* SPDX-License-Identifier: MIT */
/* The sink interface: what the pipeline hands records to. */
#ifndef IBVE_SINK_H
#define IBVE_SINK_H

#include "util.h"

struct ibve_sink_ops {
	/* One record; 0, or -errno (reason in ibve_errmsg()) stops the run. */
	int (*write)(struct ibve_sink *s, const struct ibve_event *ev);
	/* Before the loop waits, and at the end (optional). */
	int (*flush)(struct ibve_sink *s);
	/* The pipeline started with the N devices NAMES open (optional). */
	int (*start)(struct ibve_sink *s, const char *const *names, size_t n);
	void (*destroy)(struct ibve_sink *s);
};

/* The head of every sink. */
struct ibve_sink {
	const struct ibve_sink_ops *ops;
	/* set by ibve_pipeline_add_sink(): the pipeline it is in */
	struct ibve_pipeline *pipeline;
	/* a log (the journal, syslog): its name, and the entries it could
	 * not send (counted by the sink; the watcher's own metrics) */
	const char *log;
	uint64_t failures;
	bool failing; /* the last entry failed: said once, until one goes */
	bool attrs;   /* it keeps a live port table (ibve_host's attrs) */
	/* where the pipeline writes what the watcher's own metrics say of
	 * it (ports.h), before the sink starts and flushes; NULL: nowhere */
	struct ibve_watcher *watcher;
};

/*
 * A log sink S could not send an entry for the reason ERR (an errno):
 * counted, and said through the pipeline's notes when the one before went.
 */
void ibve_sink_log_failed(struct ibve_sink *s, int err);
/* A log sink S sent an entry. */
void ibve_sink_log_sent(struct ibve_sink *s);

#endif
