/* SPDX-License-Identifier: MIT */
/*
 * The source interface: what a source of records is to the pipeline, and
 * what the pipeline is to it. A source knows nothing of the pipeline but
 * this host interface, and the pipeline knows no source by name: adding
 * one is a file with its ops and a line in sources.c.
 */
#ifndef IBVE_SOURCE_H
#define IBVE_SOURCE_H

#include "internal.h"

struct ibve_src; /* a source's own state */

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
	/* Poll FD for POLLIN; ready(SRC, COOKIE) is then called. */
	int (*watch)(void *ctx, int fd, struct ibve_src *src, uint32_t cookie);
	void (*unwatch)(void *ctx, int fd);
	/* Something people should know (kind: enum ibve_note_kind). */
	void (*note)(void *ctx, enum ibve_note_kind kind, const char *text);
	/* The running source of that name, NULL when there is none. */
	struct ibve_src *(*find)(void *ctx, const char *name);
	/* This source has nothing more to give (a replay at its end). */
	void (*done)(void *ctx, struct ibve_src *src);
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
};

/* A formatted note through the host. */
void ibve_host_note(const struct ibve_host *h, enum ibve_note_kind kind,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

struct ibve_source_ops {
	const char *name;
	/* Start order: lower first (the subnet agents before devices). */
	int order;
	/* Take the options (copied as needed); nothing opened yet. */
	int (*create)(struct ibve_src **src, const struct ibve_source_opts *o,
		      const struct ibve_host *h);
	/* Open what it watches. -errno, reason in ibve_errmsg(). */
	int (*start)(struct ibve_src *src);
	/* Once every source started: what it requires is there (optional). */
	int (*check)(struct ibve_src *src);
	/*
	 * 0 when it watches something; else -errno, and why in
	 * ibve_errmsg(). A pipeline where every source is empty fails.
	 */
	int (*empty)(const struct ibve_src *src);
	/*
	 * FD COOKIE is readable: emit what is there, without blocking, a
	 * batch at most; true: more is buffered, call again without waiting.
	 */
	bool (*ready)(struct ibve_src *src, uint32_t cookie);
	/* Every record of the pipeline, any source's (optional). */
	void (*observe)(struct ibve_src *src, const struct ibve_event *ev);
	/* The devices it has open, up to MAX; how many (optional). */
	size_t (*devices)(const struct ibve_src *src, const char **names,
			  size_t max);
	/* Its part of the "watching ..." line; 0 when none (optional). */
	size_t (*describe)(const struct ibve_src *src, char *buf, size_t size);
	/* Release everything at once. */
	void (*destroy)(struct ibve_src *src);
};

/* Every source, from sources.c; NULL-terminated. */
extern const struct ibve_source_ops *const ibve_sources[];

#endif
