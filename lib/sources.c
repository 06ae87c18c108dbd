// SPDX-License-Identifier: MIT
/*
 * Every source of records, by name. The order is the order of their parts
 * in the "watching" line; each says itself when it must start, and where
 * its rows come in the event table. A program linking the library's
 * objects may add a source of its own before the first record or table
 * is made (ibve_register_source(): test/unit/test_source.c adds a source
 * of synthetic events).
 */
#include <errno.h>

#include "fields.h"
#include "source.h"

extern const struct ibve_source_ops ibve_source_mlx5;
extern const struct ibve_source_ops ibve_source_sm;
extern const struct ibve_source_ops ibve_source_hotplug;
extern const struct ibve_source_ops ibve_source_replay;
extern const struct ibve_source_ops ibve_source_kernel;
extern const struct ibve_source_ops ibve_source_lldp;
extern const struct ibve_source_ops ibve_source_netdev;
extern const struct ibve_source_ops ibve_source_counters;
extern const struct ibve_source_ops ibve_source_autopsy;

const struct ibve_source_ops *ibve_sources[IBVE_SOURCES_MAX + 1] = {
	&ibve_source_devices,
	&ibve_source_mlx5,
	&ibve_source_sm,
	&ibve_source_hotplug,
	&ibve_source_kernel,
	&ibve_source_replay,
	&ibve_source_lldp,     /* no records: adds peers to verbs ones */
	&ibve_source_netdev,   /* --netdev, or with the autopsy */
	&ibve_source_counters, /* with the autopsy */
	&ibve_source_autopsy,  /* --autopsy */
	NULL,		       /* then ibve_register_source()'s */
};

int ibve_register_source(const struct ibve_source_ops *o)
{
	size_t n = 0, kinds = IBVE_KIND_OTHER + 1 + o->nkinds;
	int r;

	while (ibve_sources[n])
		kinds += ibve_sources[n++]->nkinds;
	if (__atomic_load_n(&ibve_sources_sealed, __ATOMIC_ACQUIRE))
		return ibve_error(EBUSY,
				  "source '%s' registered too late: "
				  "the tables were made",
				  o->name);
	if (n == IBVE_SOURCES_MAX)
		return ibve_error(ENOSPC, "source '%s': more than %d sources",
				  o->name, IBVE_SOURCES_MAX);
	if (kinds > IBVE_KIND_MAX)
		return ibve_error(ENOSPC, "source '%s': more than %d kinds",
				  o->name, IBVE_KIND_MAX);
	r = ibve_fields_admit(o);
	if (!r)
		ibve_sources[n] = o;
	return r;
}

/* The engines' list (event.c), this one, at load. */
__attribute__((constructor)) static void sources_list(void)
{
	ibve_source_list = (const struct ibve_source_ops *const *)ibve_sources;
}
