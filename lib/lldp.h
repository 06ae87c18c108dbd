/* SPDX-License-Identifier: MIT */
/*
 * The LLDP neighbours of netdevs, asked of lldpd through liblldpctl
 * (loaded when first needed, dl.h): the peers of RoCE ports (lldp.c).
 */
#ifndef IBVE_LLDP_H
#define IBVE_LLDP_H

#include "internal.h"

/*
 * PEERS[i] := the LLDP neighbour of the netdev NETDEVS[i] (N of them), in
 * one exchange with lldpd over its control socket: known, or none and why
 * (lldpd does not watch it, no neighbour). 0; else -errno with why in
 * ibve_errmsg() (-ELIBACC no liblldpctl, -ENOENT lldpd not started: no
 * socket, -ECONNREFUSED its socket refuses), PEERS untouched.
 */
int ibve_lldp_lookup(const char *const *netdevs, struct ibve_peer *peers,
		     size_t n);

#endif
