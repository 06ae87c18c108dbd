/* SPDX-License-Identifier: MIT */
/*
 * The netdev source's records and its decoders (src_netdev.c), pure for
 * the tests and the fuzz target.
 */
#ifndef IBVE_NETDEV_H
#define IBVE_NETDEV_H

#include "util.h"

/* Its records' fields, in their per-source area. */
#define IBVE_ND_REPLY_MAX 128
struct ibve_nd_fields {
	uint32_t ifflags; /* IBVE_FIELD_IFFLAGS */
	uint32_t len;	  /* of reply (IBVE_FIELD_LINKSTATE) */
	uint8_t reply[IBVE_ND_REPLY_MAX];
};
struct ibve_nd_link {
	uint32_t index, flags;	    /* ifi_index, ifi_flags (IFF_*) */
	char name[IBVE_IFNAME_MAX]; /* IFLA_IFNAME, as the kernel has it */
	bool gone;		    /* RTM_DELLINK */
};
/*
 * The next link message (RTM_NEWLINK, RTM_DELLINK) of the SIZE bytes at BUF
 * (one datagram of rtnetlink) from *OFF on, into L; *OFF past it. False at
 * the end or at a message that does not fit.
 */
bool ibve_nd_link_next(const void *buf, size_t size, size_t *off,
		       struct ibve_nd_link *l);
/* The enum ibve_netdev_code of a netdev's flags WAS becoming NOW; -1: none. */
int ibve_nd_change(uint32_t was, uint32_t now);
/*
 * An ETHTOOL_MSG_LINKSTATE_GET reply's payload (from its genlmsghdr) of N
 * bytes: the firmware's reason, *STATE and *SUB (-1 none); false when it
 * is no such reply.
 */
bool ibve_nd_linkstate(const uint8_t *r, size_t n, int *state, int *sub);
/*
 * EV (zeroed, its time set): CODE of DEVICE's port PORT, whose netdev is L,
 * with the reply R of N bytes (0: none) kept whole attributes at a time.
 */
void ibve_nd_record(struct ibve_event *ev, const char *device, uint64_t guid,
		    uint32_t port, const struct ibve_nd_link *l, int code,
		    const uint8_t *r, size_t n);

#endif
