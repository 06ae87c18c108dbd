// SPDX-License-Identifier: MIT
/*
 * The MADs of a trap subscription, as bytes: Set(InformInfo) out,
 * GetResp(InformInfo) and Report(Notice) in, ReportResp back. Layouts from
 * the InfiniBand Architecture Specification vol. 1: the SA header is 56
 * bytes; InformInfo (36 bytes) and Notice (80 bytes) follow it. Every
 * field is big-endian on the wire. And the two Gets of a peer lookup:
 * LinkRecord (8 bytes) from our LID and port, then NodeRecord (108
 * bytes: LID, reserved, NodeInfo of 40 bytes, NodeDescription of 64) of
 * the LID at its other end. Then the PMA's Get(PortCounters) of the peer's
 * port (PerfMgt class, its data at byte 64: PortSelect at 1, the error
 * counters from 4 to 23).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sm.h"

/* InformInfo, from the start of the SA data. */
enum {
	II_GID = 0,
	II_LID_BEGIN = 16,
	II_LID_END = 18,
	II_IS_GENERIC = 22,
	II_SUBSCRIBE = 23,
	II_TYPE = 24,
	II_TRAP = 26,
	II_QPN_RESP = 28, /* QPN(24) | reserved(3) | RespTimeValue(5) */
	II_PRODUCER = 33, /* 24 bits */
	II_SIZE = 36,
};

/* Notice, from the start of the SA data. */
enum {
	NO_GENERIC_TYPE = 0, /* IsGeneric(1) | Type(7) */
	NO_PRODUCER = 1,     /* 24 bits */
	NO_TRAP = 4,
	NO_ISSUER_LID = 6,
	NO_GID = 16, /* DataDetails bytes 6..21, for traps 64-67 */
};

/* LinkRecord: FromLID, FromPort, ToPort, ToLID. ComponentMask bits. */
enum {
	LR_FROM_LID = 0,
	LR_FROM_PORT = 2,
	LR_TO_PORT = 3,
	LR_TO_LID = 4,
	LR_SIZE = 8,
	LR_MASK_FROM_LID = 1 << 0,
	LR_MASK_FROM_PORT = 1 << 1,
};

/* NodeRecord: LID, reserved, NodeInfo, NodeDescription. */
enum {
	NR_LID = 0,
	NR_INFO = 4,
	NR_NODE_TYPE = NR_INFO + 2,
	NR_NODE_GUID = NR_INFO + 12,
	NR_LOCAL_PORT = NR_INFO + 36,
	NR_DESC = 44,
	NR_DESC_LEN = 64,
	NR_SIZE = 108,
	NR_MASK_LID = 1 << 0,
};

/* PortCounters' error counters: byte offset in the data, width in bits
 * and shift (two 4-bit counters share byte 19). */
#define PC_PORT_SELECT 1
static const struct {
	uint8_t off, bits, shift;
} pc[IBVE_PMA_NCOUNTERS] = {
	{ 4, 16, 0 },  { 6, 8, 0 },   { 7, 8, 0 },   { 8, 16, 0 },
	{ 10, 16, 0 }, { 12, 16, 0 }, { 14, 16, 0 }, { 16, 8, 0 },
	{ 17, 8, 0 },  { 19, 4, 4 },  { 19, 4, 0 },  { 22, 16, 0 },
};

const char *const ibve_pma_names[IBVE_PMA_NCOUNTERS] = {
	"symbol_error",
	"link_error_recovery",
	"link_downed",
	"port_rcv_errors",
	"port_rcv_remote_physical_errors",
	"port_rcv_switch_relay_errors",
	"port_xmit_discards",
	"port_xmit_constraint_errors",
	"port_rcv_constraint_errors",
	"local_link_integrity_errors",
	"excessive_buffer_overrun_errors",
	"VL15_dropped",
};

/* V into the N bytes at P, big-endian. */
static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* The N bytes at P, big-endian. */
static uint64_t get(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

void ibve_sm_get_encode(uint8_t mad[IBVE_MAD_SIZE], uint64_t tid, uint16_t attr)
{
	memset(mad, 0, IBVE_MAD_SIZE);
	mad[IBVE_MAD_OFF_BASE_VERSION] = 1;
	mad[IBVE_MAD_OFF_CLASS] = IBVE_MAD_CLASS_SA;
	mad[IBVE_MAD_OFF_CLASS_VERSION] = 2;
	mad[IBVE_MAD_OFF_METHOD] = IBVE_MAD_GET;
	put(mad + IBVE_MAD_OFF_TID, tid, 8);
	put(mad + IBVE_MAD_OFF_ATTR_ID, attr, 2);
}

void ibve_sm_link_encode(uint8_t mad[IBVE_MAD_SIZE], uint64_t tid, uint16_t lid,
			 uint8_t port)
{
	uint8_t *d = mad + IBVE_SA_OFF_DATA;

	ibve_sm_get_encode(mad, tid, IBVE_MAD_ATTR_LINK_RECORD);
	mad[IBVE_SA_OFF_COMP_MASK + 7] = LR_MASK_FROM_LID | LR_MASK_FROM_PORT;
	put(d + LR_FROM_LID, lid, 2);
	d[LR_FROM_PORT] = port;
}

void ibve_sm_node_encode(uint8_t mad[IBVE_MAD_SIZE], uint64_t tid, uint16_t lid)
{
	ibve_sm_get_encode(mad, tid, IBVE_MAD_ATTR_NODE_RECORD);
	mad[IBVE_SA_OFF_COMP_MASK + 7] = NR_MASK_LID;
	put(mad + IBVE_SA_OFF_DATA + NR_LID, lid, 2);
}

void ibve_sm_pma_encode(uint8_t mad[IBVE_MAD_SIZE], uint64_t tid, uint8_t port)
{
	ibve_sm_get_encode(mad, tid, IBVE_MAD_ATTR_PORT_COUNTERS);
	mad[IBVE_MAD_OFF_CLASS] = IBVE_MAD_CLASS_PERF;
	mad[IBVE_MAD_OFF_CLASS_VERSION] = 1;
	mad[IBVE_PMA_OFF_DATA + PC_PORT_SELECT] = port;
}

/* A NodeDescription: up to its first NUL, printable ASCII kept. */
static void node_desc(char *out, const uint8_t *d)
{
	size_t n = 0;

	while (n < NR_DESC_LEN && d[n]) {
		out[n] = d[n] >= 0x20 && d[n] < 0x7f ? (char)d[n] : '?';
		n++;
	}
	out[n] = '\0';
}

void ibve_sm_inform_encode(uint8_t mad[IBVE_MAD_SIZE], uint64_t tid,
			   uint16_t trap, bool subscribe, uint8_t resp_time)
{
	uint8_t *d = mad + IBVE_SA_OFF_DATA;

	ibve_sm_get_encode(mad, tid, IBVE_MAD_ATTR_INFORM_INFO);
	mad[IBVE_MAD_OFF_METHOD] = IBVE_MAD_SET;
	/* GID 0 and LIDRangeBegin 0xFFFF: about any port of the subnet. */
	put(d + II_LID_BEGIN, 0xffff, 2);
	d[II_IS_GENERIC] = 1;
	d[II_SUBSCRIBE] = subscribe ? 1 : 0;
	put(d + II_TYPE, 0xffff, 2); /* any type */
	put(d + II_TRAP, trap, 2);
	/*
	 * QPN 1: Reports come to the GSI QP the Set is sent from; OpenSM
	 * keeps that QPN in the subscription and matches an unsubscribe on it.
	 */
	put(d + II_QPN_RESP, 1u << 8 | (resp_time & 0x1fu), 4);
	put(d + II_PRODUCER, 0xffffff, 3);
}

bool ibve_sm_mad_decode(const uint8_t *mad, size_t len, struct ibve_sm_mad *out)
{
	uint8_t cls, method;
	uint16_t attr;
	const uint8_t *d = mad + IBVE_SA_OFF_DATA;

	memset(out, 0, sizeof(*out));
	/* Senders may give only the bytes they use: check per type. */
	if (len < 24 || mad[IBVE_MAD_OFF_BASE_VERSION] != 1)
		return false;
	cls = mad[IBVE_MAD_OFF_CLASS];
	method = mad[IBVE_MAD_OFF_METHOD];
	out->tid = get(mad + IBVE_MAD_OFF_TID, 8);
	out->status = (uint16_t)get(mad + IBVE_MAD_OFF_STATUS, 2);
	attr = (uint16_t)get(mad + IBVE_MAD_OFF_ATTR_ID, 2);

	if ((cls == IBVE_MAD_CLASS_SMI || cls == IBVE_MAD_CLASS_SMI_DR) &&
	    method == IBVE_MAD_GET) {
		out->what = IBVE_SM_MAD_SMP_GET;
		return true;
	}
	if (cls == IBVE_MAD_CLASS_PERF && method == IBVE_MAD_GET_RESP &&
	    attr == IBVE_MAD_ATTR_PORT_COUNTERS) {
		if (len < IBVE_PMA_OFF_DATA + 24)
			return false;
		d = mad + IBVE_PMA_OFF_DATA;
		out->what = IBVE_SM_MAD_PMA_RESP;
		out->pma_port = d[PC_PORT_SELECT];
		for (int i = 0; i < IBVE_PMA_NCOUNTERS; i++)
			out->pma[i] = (uint32_t)(get(d + pc[i].off,
						     (pc[i].bits + 7) / 8) >>
						 pc[i].shift) &
				      ((1u << pc[i].bits) - 1);
		return true;
	}
	if (cls != IBVE_MAD_CLASS_SA)
		return true;
	if (method == IBVE_MAD_GET_RESP && attr == IBVE_MAD_ATTR_INFORM_INFO) {
		if (len < IBVE_SA_OFF_DATA + II_SIZE)
			return false;
		out->what = IBVE_SM_MAD_INFORM_RESP;
		out->trap = (uint16_t)get(d + II_TRAP, 2);
		out->subscribe = d[II_SUBSCRIBE] & 1;
	} else if (method == IBVE_MAD_GET_RESP &&
		   attr == IBVE_MAD_ATTR_LINK_RECORD) {
		if (len < IBVE_SA_OFF_DATA + LR_SIZE)
			return false;
		out->what = IBVE_SM_MAD_LINK_RESP;
		out->to_port = d[LR_TO_PORT];
		out->to_lid = (uint16_t)get(d + LR_TO_LID, 2);
	} else if (method == IBVE_MAD_GET_RESP &&
		   attr == IBVE_MAD_ATTR_NODE_RECORD) {
		if (len < IBVE_SA_OFF_DATA + NR_SIZE)
			return false;
		out->what = IBVE_SM_MAD_NODE_RESP;
		out->node_type = d[NR_NODE_TYPE];
		out->node_guid = get(d + NR_NODE_GUID, 8);
		node_desc(out->desc, d + NR_DESC);
	} else if (method == IBVE_MAD_REPORT && attr == IBVE_MAD_ATTR_NOTICE) {
		if (len < IBVE_SA_OFF_DATA + NO_GID + 16)
			return false;
		out->what = IBVE_SM_MAD_REPORT;
		out->generic = d[NO_GENERIC_TYPE] >> 7;
		out->type = d[NO_GENERIC_TYPE] & 0x7f;
		out->producer = (uint32_t)get(d + NO_PRODUCER, 3);
		out->trap = (uint16_t)get(d + NO_TRAP, 2);
		out->issuer_lid = (uint16_t)get(d + NO_ISSUER_LID, 2);
		memcpy(out->gid, d + NO_GID, sizeof(out->gid));
	}
	return true;
}

void ibve_sm_peer_from(struct ibve_peer *p, const struct ibve_sm_mad *link,
		       const struct ibve_sm_mad *node)
{
	memset(p, 0, sizeof(*p));
	p->kind = IBVE_PEER_IB;
	p->state = IBVE_PEER_KNOWN;
	p->node_type = node->node_type <= IBVE_PEER_NODE_ROUTER
			       ? node->node_type
			       : IBVE_PEER_NODE_UNKNOWN;
	p->guid = node->node_guid;
	p->port = link->to_port;
	ibve_strcpy(p->name, node->desc, sizeof(p->name));
}

struct ibve_peer *ibve_sm_peer_none(struct ibve_peer *p, const char *reason)
{
	memset(p, 0, sizeof(*p));
	p->kind = IBVE_PEER_IB;
	p->state = IBVE_PEER_NONE;
	ibve_strcpy(p->reason, reason, sizeof(p->reason));
	return p;
}

void ibve_sm_report_resp(uint8_t mad[IBVE_MAD_SIZE])
{
	mad[IBVE_MAD_OFF_METHOD] = IBVE_MAD_REPORT_RESP;
	put(mad + IBVE_MAD_OFF_STATUS, 0, 2);
}

void ibve_sm_smp_answer(uint8_t mad[IBVE_MAD_SIZE], uint64_t port_guid_be)
{
	bool dr = mad[IBVE_MAD_OFF_CLASS] == IBVE_MAD_CLASS_SMI_DR;
	/* A directed-route answer goes back: the D bit of its status. */
	uint16_t status = dr ? 0x8000 : 0;
	uint8_t *d = mad + IBVE_SMP_OFF_DATA;

	mad[IBVE_MAD_OFF_METHOD] = IBVE_MAD_GET_RESP;
	memset(d, 0, 64);
	if (get(mad + IBVE_MAD_OFF_ATTR_ID, 2) == IBVE_MAD_ATTR_SM_INFO) {
		/* GUID, SM_Key 0, ActCount 0, Priority 0 | SMState 0. */
		memcpy(d, &port_guid_be, 8);
	} else {
		status |= 0x000c; /* method/attribute combination unsupported */
	}
	put(mad + IBVE_MAD_OFF_STATUS, status, 2);
}

const char *ibve_sm_status_str(uint16_t status, char *buf, size_t len)
{
	static const char *const sa[] = {
		[1] = "SA has no resources", [2] = "request invalid",
		[3] = "no records",	     [4] = "too many records",
		[5] = "invalid GID",	     [6] = "insufficient components",
		[7] = "request denied",
	};
	static const char *const common[] = {
		[1] = "bad base or class version",
		[2] = "method not supported",
		[3] = "method/attribute combination not supported",
		[7] = "invalid attribute or modifier value",
	};
	unsigned int code = status >> 8, inv = (status >> 2) & 7;
	const char *what = "unknown status";

	if (status & 1)
		what = "SA busy";
	else if (status & 2)
		what = "redirection required";
	else if (inv && inv < ARRAY_SIZE(common) && common[inv])
		what = common[inv];
	else if (code && code < ARRAY_SIZE(sa))
		what = sa[code];
	snprintf(buf, len, "%s (status 0x%04x)", what, status);
	return buf;
}

void ibve_sm_event_from_report(struct ibve_event *ev,
			       const struct ibve_sm_mad *r, const char *device,
			       uint64_t node_guid, uint32_t port)
{
	memset(ev, 0, sizeof(*ev));
	clock_gettime(CLOCK_REALTIME, &ev->time);
	ibve_strcpy(ev->device, device, sizeof(ev->device));
	ev->node_guid = node_guid;
	ibve_event_set_code(ev, IBVE_SOURCE_SM, r->trap);
	ev->port = port;
	ev->fields |= IBVE_FIELD_SM;
	memcpy(ev->sm.gid, r->gid, sizeof(ev->sm.gid));
	ev->sm.issuer_lid = r->issuer_lid;
	ev->sm.producer_type = r->producer;
}

bool ibve_sm_seen_before(struct ibve_sm_seen *s, const struct ibve_sm_mad *r,
			 const struct timespec *now)
{
	bool latest = true; /* the newest entry about this GID not met yet */

	for (size_t k = 1; k <= s->n; k++) {
		size_t i = (s->next + IBVE_SM_SEEN_MAX - k) % IBVE_SM_SEEN_MAX;
		long long ms;

		if (s->e[i].tid == (uint32_t)r->tid)
			return true;
		if (!latest || memcmp(s->e[i].gid, r->gid, sizeof(r->gid)) != 0)
			continue;
		latest = false;
		ms = (long long)(now->tv_sec - s->e[i].at.tv_sec) * 1000 +
		     (now->tv_nsec - s->e[i].at.tv_nsec) / 1000000;
		if (s->e[i].trap == r->trap && ms < IBVE_SM_SAME_MS)
			return true;
	}
	s->e[s->next].tid = (uint32_t)r->tid;
	s->e[s->next].trap = r->trap;
	memcpy(s->e[s->next].gid, r->gid, sizeof(r->gid));
	s->e[s->next].at = *now;
	s->next = (s->next + 1) % IBVE_SM_SEEN_MAX;
	if (s->n < IBVE_SM_SEEN_MAX)
		s->n++;
	return false;
}
