/* SPDX-License-Identifier: MIT */
/*
 * The kernel source's decoder: what its BPF program hands over, made a
 * record. Pure, so that stored captures can be checked against it.
 */
#ifndef IBVE_KERNEL_H
#define IBVE_KERNEL_H

#include <linux/types.h>

#include "internal.h"
#include "bpf/kevent.h"

/*
 * EV (zeroed by the caller) from K: device, event, object, owner or
 * kernel consumer. Not the time, the cgroup path or the cause before it:
 * the source adds those from its own state.
 */
void ibve_kevent_record(struct ibve_event *ev, const struct ibve_kevent *k,
			uint64_t node_guid);

/* EV (zeroed by the caller): DEVICE's ring buffer lost LOST events since
 * the last such record. */
void ibve_kevent_lost(struct ibve_event *ev, const char *device,
		      uint64_t node_guid, uint64_t lost);

#endif
