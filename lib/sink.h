/* SPDX-License-Identifier: MIT */
/* The sink interface: what the pipeline hands records to. */
#ifndef IBVE_SINK_H
#define IBVE_SINK_H

#include "internal.h"

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
};

#endif
