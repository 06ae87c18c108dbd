/* SPDX-License-Identifier: MIT */
/*
 * The kernel source's decoder: what its BPF program hands over, made a
 * record. Pure, so that stored captures can be checked against it.
 */
#ifndef IBVE_KERNEL_H
#define IBVE_KERNEL_H

#include <linux/types.h>

#include "util.h"
#include "bpf/kevent.h"

/*
 * EV (zeroed by the caller) from K: device, event, object, owner or
 * kernel consumer. Not the time, the cgroup path or the cause before it:
 * the source adds those from its own state.
 */
void ibve_kevent_record(struct ibve_event *ev, const struct ibve_kevent *k,
			uint64_t node_guid);

/*
 * K from one ring buffer record of SIZE bytes at DATA, its strings ended:
 * false when the record is too short to be one, names no device, or an
 * event number above INT32_MAX.
 */
bool ibve_kevent_from_ring(struct ibve_kevent *k, const void *data,
			   size_t size);

/* EV (zeroed by the caller): DEVICE's ring buffer lost LOST events since
 * the last such record. */
void ibve_kevent_lost(struct ibve_event *ev, const char *device,
		      uint64_t node_guid, uint64_t lost);

#endif
