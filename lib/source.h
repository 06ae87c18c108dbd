/* SPDX-License-Identifier: MIT */
/*
 * The source interface: what a source of records is to the pipeline, and
 * what the pipeline is to it. A source knows nothing of the pipeline but
 * this host interface, and the pipeline knows no source by name: adding
 * one is a file with its ops and a line in sources.c (or, for a test's
 * own, ibve_register_source()).
 */
#ifndef IBVE_SOURCE_H
#define IBVE_SOURCE_H

#include "internal.h"

struct ibve_devset;
struct ibve_fieldspec;

/* What the pipeline offers a source. */
struct ibve_host {
	void *ctx;
	/* A zeroed record to fill, its time set to now; NULL: no memory. */
	struct ibve_event *(*emit)(void *ctx);
	/*
	 * The reader's array is full: a source that can leave the rest where
	 * it is (in the kernel) stops, rather than have it queued and copied
	 * out again; the next read takes it. Always false in a run.
	 */
	bool (*full)(void *ctx);
	/* A whole record of its own (a replay's), copied; -ENOMEM. */
	int (*put)(void *ctx, const struct ibve_event *ev);
	/* Poll FD for POLLIN; ready(SRC, COOKIE) is then called; -errno. */
	int (*watch)(void *ctx, int fd, void *src, uint32_t cookie);
	void (*unwatch)(void *ctx, int fd);
	/*
	 * Something people should know (kind: enum ibve_note_kind); TEXT
	 * NULL: a malformed line counted, not told.
	 */
	void (*note)(void *ctx, enum ibve_note_kind kind, const char *text);
	/*
	 * The device set (devices.h): the devices source's open devices and
	 * its hooks; NULL when the pipeline has none. Sources that start
	 * before it hook into it, those after it find it started.
	 */
	struct ibve_devset *(*devset)(void *ctx);
	/* This source has nothing more to give (a replay at its end). */
	void (*done)(void *ctx, void *src);
	/* It cannot go on: the run ends with ERR (reason in ibve_errmsg()). */
	void (*fail)(void *ctx, int err);
	/* A replay's clock reached NOW: records before it were emitted. */
	int (*clock)(void *ctx, const struct timespec *now);
	/* DEVICE is excluded: never opened nor read, its records dropped. */
	bool (*excluded)(void *ctx, const char *device);
	/*
	 * The filter every record must pass to be of use, when nothing takes
	 * records the filter refuses (no sink of all records, no source that
	 * observes them, a run rather than reads); else NULL. Asked again
	 * before each batch.
	 */
	const struct ibve_filter *(*needed)(void *ctx);
	/*
	 * The filter whose owner sets (--pid, --comm) may leave records
	 * unmade, when no sink takes every record; else NULL. Fixed once the
	 * pipeline starts.
	 */
	const struct ibve_filter *(*owners)(void *ctx);
	/*
	 * Whether a sink keeps a live port table: a port event's source
	 * then reads the port's attributes for the record to carry to it
	 * (IBVE_FIELD_ATTRS), so that they are read once.
	 */
	bool (*attrs)(void *ctx);
	/* The storm threshold (ibve_pipeline_set_storm()); 0: none. */
	unsigned long (*storm)(void *ctx);
};

/* The devices a source was asked for (none: every one), copied. */
struct ibve_names {
	char (*v)[IBVE_NAME_MAX];
	size_t n;
};

/* Copy O's device names into NAMES; -ENOMEM (device.c). */
int ibve_names_copy(struct ibve_names *names, const struct ibve_source_opts *o);
/* Whether DEVICE is wanted: not excluded, and named or none named. */
bool ibve_names_want(const struct ibve_names *names, const struct ibve_host *h,
		     const char *device);

/* A formatted note through the host. */
void ibve_host_note(const struct ibve_host *h, enum ibve_note_kind kind,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

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

/* Every source, from sources.c; NULL-terminated. */
#define IBVE_SOURCES_MAX 16
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

#endif
