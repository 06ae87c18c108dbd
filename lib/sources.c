// SPDX-License-Identifier: MIT
/*
 * Every source of records, by name. The order is the order of their parts
 * in the "watching" line; each says itself when it must start, and where
 * its rows come in the event table. Weak: a program linking the library's
 * objects may register a list of its own (test/unit/test_source.c adds a
 * source of synthetic events).
 */
#include "source.h"

extern const struct ibve_source_ops ibve_source_mlx5;
extern const struct ibve_source_ops ibve_source_sm;
extern const struct ibve_source_ops ibve_source_hotplug;
extern const struct ibve_source_ops ibve_source_replay;
extern const struct ibve_source_ops ibve_source_kernel;
extern const struct ibve_source_ops ibve_source_lldp;

__attribute__((weak)) const struct ibve_source_ops *const ibve_sources[] = {
	&ibve_source_devices,
	&ibve_source_mlx5,
	&ibve_source_sm,
	&ibve_source_hotplug,
	&ibve_source_kernel,
	&ibve_source_replay,
	&ibve_source_lldp, /* no records: adds peers to verbs ones */
	NULL,
};

/* The event table (event.c) is their rows: handed over at load, so that
 * what every source uses uses none of them (no cycle). */
__attribute__((constructor)) static void sources_rows(void)
{
	ibve_event_sources = ibve_sources;
}
