/* SPDX-License-Identifier: MIT */
/*
 * The source interface: what a source of records is to the pipeline (what
 * the pipeline is to it: host.h). A source knows nothing of the pipeline
 * but its host interface, and the pipeline knows no source by name: adding
 * one is a file with its ops and a line in sources.c (or, for a test's
 * own, ibve_register_source()).
 */
#ifndef IBVE_SOURCE_H
#define IBVE_SOURCE_H

#include "util.h"

struct ibve_fieldspec;
struct ibve_host;

/* A row of a source's events (struct ibve_event_desc; its MESSAGE_ID is
 * written down once, never computed: journal.c), of the source's .records. */
#define ROW(c, n, cl, aff, sev, id, txt, todo)                      \
	{                                                           \
		.code = c, .name = n, .cls = IBVE_CLASS_##cl,       \
		.affiliated = aff, .severity = IBVE_SEVERITY_##sev, \
		.text = txt, .message_id = id, .advice = todo       \
	}
#define ROWS(r)		 .rows = (r), .nrows = ARRAY_SIZE(r)
#define KINDS(k)	 .kind_of = (k), .nkind_of = ARRAY_SIZE(k)
#define OPTIONS(o)	 .options = (o), .noptions = ARRAY_SIZE(o)
#define IBVE_KIND_OWN(i) (IBVE_KIND_MAX + (i))

/* A source, with the rows of its events; its own state (SRC) is a type of
 * its own, only it knows. */
struct ibve_source_ops {
	const char *name;
	/* the enum ibve_source its records carry (a new one: the next number);
	 * -1: any (a replay) */
	int records;
	const char *called; /* ibve_source_name() of its records; NULL: name */
	/* Its rows (ROWS()); their place in the event table: lower rank (0-15)
	 * first. */
	const struct ibve_event_desc *rows;
	size_t nrows;
	int rank;
	/*
	 * What its events count as in the port table: by code (KINDS()),
	 * else, and for codes it has no row for, KIND (0: other; never
	 * link_down for all of a source's records). A kind
	 * is one of enum ibve_kind, or IBVE_KIND_OWN(I): the I-th of KINDS,
	 * kinds of its own numbered after the library's.
	 */
	const struct ibve_kind_of {
		int code, kind;
	} * kind_of;
	size_t nkind_of;
	int kind;
	/* The severities its records may have beside their rows' (a mask of
	 * 1 << severity: a counters record that moved is a warning). */
	unsigned int severities;
	const struct ibve_kind_info *kinds;
	size_t nkinds;
	/* The options that ask for it, or set its flags; added only when
	 * asked for (ibve_pipeline_add_live()). */
	const struct ibve_source_option *options;
	size_t noptions;
	bool on_demand;
	/* Added whenever the source called WITH is (evidence it observes). */
	const char *with;
	/*
	 * Its records' owner, which --pid and --comm match (filter.c): when
	 * OWNER_FLAG is set, the pid (uint32_t) and the comm (char[16]) at
	 * these offsets of the record; 0: its records have none.
	 */
	uint32_t owner_flag;
	size_t owner_pid, owner_comm;
	/* In the port table: 1 when EV says its device came, -1 went, else
	 * 0 (optional). */
	int (*presence)(const struct ibve_event *ev);
	/* In the port table: the cause (a name of ibve_causes) EV says its
	 * port went down for, else NULL (optional; the autopsy's verdicts). */
	const char *(*down_cause)(const struct ibve_event *ev);
	/* The journal's MESSAGE_ID of EV when it is not its event's (a
	 * verdict's: its cause's), else NULL (optional). */
	const char *(*message_id)(const struct ibve_event *ev);
	/* Its records may name a device no other source opened (a fabric
	 * simulator's): live, the port table reads its ports then. */
	bool names_devices;
	/* The fields of its records (fields.h): on its records only. */
	const struct ibve_fieldspec *fields;
	size_t nfields;
	/* A source whose rows its records carry too (the kernel: verbs). */
	const struct ibve_source_ops *also;
	bool devset; /* its state is the pipeline's device set */
	/* Start order: lower first (the subnet agents before devices). */
	int order;
	/* Take the options (copied as needed); nothing opened yet. */
	int (*create)(void **src, const struct ibve_source_opts *o,
		      const struct ibve_host *h);
	/* Open what it watches. -errno, reason in ibve_errmsg(). */
	int (*start)(void *src);
	/* Once every source started: what it requires is there (optional). */
	int (*check)(void *src);
	/*
	 * 0 when it watches something; else -errno, and why in
	 * ibve_errmsg(). A pipeline where every source is empty fails.
	 */
	int (*empty)(const void *src);
	/* Whether it has anything to give now (optional: once started). */
	bool (*live)(const void *src);
	/*
	 * FD COOKIE is readable: emit what is there, without blocking, a
	 * batch at most; true: more is buffered, call again without waiting.
	 */
	bool (*ready)(void *src, uint32_t cookie);
	/* Every record of the pipeline, any source's (optional). */
	void (*observe)(void *src, const struct ibve_event *ev);
	/*
	 * Add what it knows to a record before anything sees it (optional;
	 * the subnet source: a port's peer). Quick, and never blocking.
	 */
	void (*annotate)(void *src, struct ibve_event *ev);
	/* The run ends: emit what it holds back (optional; the kernel
	 * source: the counts its programs kept that were not read yet). */
	void (*finish)(void *src);
	/* Its part of the "watching ..." line; 0 when none (optional). */
	size_t (*describe)(const void *src, char *buf, size_t size);
	/* Release everything at once. */
	void (*destroy)(void *src);
};

/* Every source, from sources.c; NULL-terminated (IBVE_SOURCES_MAX:
 * util.h). */
extern const struct ibve_source_ops *ibve_sources[IBVE_SOURCES_MAX + 1];
/* The same list as the engines read it (event.c: sources.c sets it at
 * load, so that they need no symbol of the sources'), and whether a table
 * was made of it: then none may be added. */
extern const struct ibve_source_ops *const *ibve_source_list;
extern bool ibve_sources_sealed;
/*
 * Add source O to the list, before any table is made of it (a test's
 * source); -EBUSY after, -ENOSPC past IBVE_SOURCES_MAX.
 */
int ibve_register_source(const struct ibve_source_ops *o);
/* The registered source whose records are SOURCE's, or NULL (event.c). */
const struct ibve_source_ops *ibve_source_of(int source);
/* 0, or -E2BIG when their rows make no table (why: ibve_errmsg()). */
int ibve_event_table_check(void);
extern const struct ibve_source_ops ibve_source_devices;

/*
 * The autopsy's causes (src_autopsy.c), in the order they are tried, the
 * last (unknown) decided by nothing; NAME NULL ends them. The man page's
 * table and the schema's names are made of them (share/mktables.c).
 */
struct ibve_cause {
	const char *name;
	unsigned int facts; /* what the evidence must say (src_autopsy.c) */
	enum ibve_severity severity;
	const char *decided_by, *action;
	const char *message_id; /* its verdicts' in the journal (catalog) */
};
extern const struct ibve_cause ibve_causes[];

#endif
