// SPDX-License-Identifier: MIT
/*
 * A port's peer, the far end of its link (struct ibve_peer): its words,
 * and whether a lookup found another one than the last known. A leaf of
 * the library: the port table, the record's fields, the listing and the
 * subnet source all use it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ports.h"

IBVE_EXPORT const char *ibve_peer_kind_name(int kind)
{
	return kind == IBVE_PEER_LLDP ? "lldp"
	       : kind == IBVE_PEER_IB ? "ib"
				      : "unknown";
}

IBVE_EXPORT const char *ibve_peer_state_name(int state)
{
	static const char *const n[] = { "unknown", "none", "known" };

	return state >= 0 && (size_t)state < ARRAY_SIZE(n) ? n[state]
							   : "unknown";
}

IBVE_EXPORT const char *ibve_peer_node_name(int node_type)
{
	static const char *const n[] = { "unknown", "CA", "switch", "router" };

	return node_type >= 0 && (size_t)node_type < ARRAY_SIZE(n)
		       ? n[node_type]
		       : "unknown";
}

IBVE_EXPORT size_t ibve_peer_format(const struct ibve_peer *p, char *buf,
				    size_t size)
{
	const char *name = p->name;
	int n;

	if (p->state == IBVE_PEER_NONE)
		n = snprintf(buf, size, "none (%s)",
			     p->reason[0] ? p->reason : "no reason given");
	else if (p->state != IBVE_PEER_KNOWN)
		n = snprintf(buf, size, "unknown");
	else if (p->kind == IBVE_PEER_LLDP)
		n = snprintf(buf, size, "%s[%s]", name[0] ? name : p->chassis,
			     p->port_id);
	else if (name[0])
		n = snprintf(buf, size, "%s[%u]", name, p->port);
	else
		n = snprintf(buf, size, "0x%016" PRIx64 "[%u]", p->guid,
			     p->port);
	return n < 0 ? 0 : (size_t)n;
}

IBVE_EXPORT bool ibve_peer_same(const struct ibve_peer *a,
				const struct ibve_peer *b)
{
	if (a->kind != b->kind || a->state != b->state)
		return false;
	if (a->state != IBVE_PEER_KNOWN)
		return true;
	if (a->kind == IBVE_PEER_LLDP)
		return strcmp(a->chassis, b->chassis) == 0 &&
		       strcmp(a->port_id, b->port_id) == 0;
	return a->guid == b->guid && a->port == b->port;
}

bool ibve_peer_take(struct ibve_peer *known, struct ibve_peer *cur,
		    const struct ibve_peer *next)
{
	*cur = *next;
	cur->changed = false;
	if (next->state != IBVE_PEER_KNOWN)
		return false;
	cur->changed = known->state == IBVE_PEER_KNOWN &&
		       !ibve_peer_same(known, next);
	*known = *cur;
	known->changed = false;
	return cur->changed;
}
