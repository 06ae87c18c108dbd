/* SPDX-License-Identifier: MIT */
/* The host interface: what the pipeline is to a source (source.h). */
#ifndef IBVE_HOST_H
#define IBVE_HOST_H

#include "util.h"

struct ibve_devset;

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

/* A formatted note through the host (util.c). */
void ibve_host_note(const struct ibve_host *h, enum ibve_note_kind kind,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
