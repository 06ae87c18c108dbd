/* SPDX-License-Identifier: MIT */
/* A filter's parts, for those that test them before a record is whole. */
#ifndef IBVE_FILTER_H
#define IBVE_FILTER_H

#include "util.h"

/*
 * The part of a filter a record's identity decides: its device, and the
 * include and exclude terms (name, class, source, severity). Whether F has
 * any such part.
 */
bool ibve_filter_match_identity(const struct ibve_filter *f,
				const struct ibve_event *ev);
bool ibve_filter_has_identity(const struct ibve_filter *f);
/* F's owner sets (--pid, --comm): how many, and where in *V. */
size_t ibve_filter_pids(const struct ibve_filter *f, const uint32_t **v);
size_t ibve_filter_comms(const struct ibve_filter *f, const char (**v)[16]);

#endif
