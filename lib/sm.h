/* SPDX-License-Identifier: MIT */
/*
 * Subnet events: the SA InformInfo subscription and the Report MADs the
 * subnet manager sends for it. The codec below works on plain 256-byte
 * MAD images (no umad header) so it can be tested on byte vectors; the
 * source in src_sm.c moves them through libibumad.
 */
#ifndef IBVE_SM_H
#define IBVE_SM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "util.h"

#define IBVE_MAD_SIZE  256
#define IBVE_SA_QKEY   0x80010000u /* the well-known Q_Key of the GSI */
#define IBVE_SA_TRY_MS 1000	   /* the first wait for a GetResp; doubles */

/* Byte offsets of the MAD and SA headers (IBA 13.4.3, 15.2.1.1). */
enum {
	IBVE_MAD_OFF_BASE_VERSION = 0,
	IBVE_MAD_OFF_CLASS = 1,
	IBVE_MAD_OFF_CLASS_VERSION = 2,
	IBVE_MAD_OFF_METHOD = 3,
	IBVE_MAD_OFF_STATUS = 4,
	IBVE_MAD_OFF_TID = 8,
	IBVE_MAD_OFF_ATTR_ID = 16,
	IBVE_SA_OFF_COMP_MASK = 48, /* the SA header's ComponentMask */
	IBVE_SA_OFF_DATA = 56, /* after the RMPP header, SM_Key, offset, mask */
	IBVE_SMP_OFF_DATA = 64,
	IBVE_PMA_OFF_DATA = 64, /* after the MAD header and 40 reserved */
};

enum {
	IBVE_MAD_CLASS_SMI = 0x01,
	IBVE_MAD_CLASS_SA = 0x03,
	IBVE_MAD_CLASS_PERF = 0x04, /* PerfMgt: a port's PMA */
	IBVE_MAD_CLASS_SMI_DR = 0x81,
	IBVE_MAD_GET = 0x01,
	IBVE_MAD_SET = 0x02,
	IBVE_MAD_REPORT = 0x06,
	IBVE_MAD_GET_RESP = 0x81,
	IBVE_MAD_REPORT_RESP = 0x86,
	IBVE_MAD_ATTR_CLASS_PORT_INFO = 0x0001,
	IBVE_MAD_ATTR_NOTICE = 0x0002,
	IBVE_MAD_ATTR_INFORM_INFO = 0x0003,
	IBVE_MAD_ATTR_NODE_RECORD = 0x0011, /* SA class */
	IBVE_MAD_ATTR_LINK_RECORD = 0x0020, /* SA class */
	IBVE_MAD_ATTR_SM_INFO = 0x0020,
	IBVE_MAD_ATTR_PORT_COUNTERS = 0x0012, /* PerfMgt class */
};

/* The traps subscribed to, first to last. */
#define IBVE_SM_TRAP_FIRST 64
#define IBVE_SM_TRAP_LAST  67
#define IBVE_SM_NTRAPS	   (IBVE_SM_TRAP_LAST - IBVE_SM_TRAP_FIRST + 1)

enum ibve_sm_mad_type {
	IBVE_SM_MAD_OTHER,	 /* not for us: ignored */
	IBVE_SM_MAD_INFORM_RESP, /* GetResp(InformInfo): a Set answered */
	IBVE_SM_MAD_REPORT,	 /* Report(Notice) */
	IBVE_SM_MAD_SMP_GET,	 /* an SM asking this port (simulator) */
	IBVE_SM_MAD_LINK_RESP,	 /* GetResp(LinkRecord): a peer's LID, port */
	IBVE_SM_MAD_NODE_RESP,	 /* GetResp(NodeRecord): a peer's node */
	IBVE_SM_MAD_PMA_RESP,	 /* GetResp(PortCounters): a port's errors */
};

/*
 * The error counters of PMA PortCounters (IBA 16.1.3.5), by the names the
 * kernel gives them in sysfs (counters/); LinkDownedCounter among them.
 */
#define IBVE_PMA_NCOUNTERS 12
extern const char *const ibve_pma_names[IBVE_PMA_NCOUNTERS];

struct ibve_sm_mad {
	enum ibve_sm_mad_type what;
	uint64_t tid;
	uint16_t status;     /* MAD status, host order */
	uint16_t trap;	     /* INFORM_RESP: InformInfo.TrapNumber; REPORT */
	bool subscribe;	     /* INFORM_RESP */
	bool generic;	     /* REPORT */
	uint8_t type;	     /* REPORT: 0 fatal .. 4 informational */
	uint32_t producer;   /* REPORT: 24 bits */
	uint16_t issuer_lid; /* REPORT */
	uint8_t gid[16];     /* REPORT, traps 64-67: the GID concerned */
	/* LINK_RESP (status 0): where the link from our port goes */
	uint16_t to_lid;
	uint8_t to_port;
	/* NODE_RESP (status 0): that node */
	uint8_t node_type; /* NodeInfo: 1 CA, 2 switch, 3 router */
	uint64_t node_guid;
	char desc[65]; /* NodeDescription, printable ASCII, '?' for others */
	/* PMA_RESP (status 0): the port's, by ibve_pma_names' order */
	uint8_t pma_port;
	uint32_t pma[IBVE_PMA_NCOUNTERS];
};

/*
 * Build a Set(InformInfo) for TRAP from any source LID, Subscribe 1 or 0;
 * RESP_TIME is the 5-bit response-time value the SA may take.
 */
void ibve_sm_inform_encode(uint8_t mad[IBVE_MAD_SIZE], uint64_t tid,
			   uint16_t trap, bool subscribe, uint8_t resp_time);
/* Build an SA Get of attribute ATTR (no data), e.g. ClassPortInfo. */
void ibve_sm_get_encode(uint8_t mad[IBVE_MAD_SIZE], uint64_t tid,
			uint16_t attr);
/* Build an SA Get(LinkRecord) of the link from LID, PORT. */
void ibve_sm_link_encode(uint8_t mad[IBVE_MAD_SIZE], uint64_t tid, uint16_t lid,
			 uint8_t port);
/* Build an SA Get(NodeRecord) of the node at LID. */
void ibve_sm_node_encode(uint8_t mad[IBVE_MAD_SIZE], uint64_t tid,
			 uint16_t lid);
/* Build a PMA Get(PortCounters) of PORT of the node it is sent to. */
void ibve_sm_pma_encode(uint8_t mad[IBVE_MAD_SIZE], uint64_t tid, uint8_t port);
/* Classify and decode a received MAD of LEN bytes; false if too short. */
bool ibve_sm_mad_decode(const uint8_t *mad, size_t len,
			struct ibve_sm_mad *out);
/*
 * The peer of a port from the answers to its two Gets: LINK's ToPort is
 * the peer's port, NODE its node.
 */
void ibve_sm_peer_from(struct ibve_peer *p, const struct ibve_sm_mad *link,
		       const struct ibve_sm_mad *node);
/* A peer looked up in vain: none, for REASON. Returns P. */
struct ibve_peer *ibve_sm_peer_none(struct ibve_peer *p, const char *reason);
/* Turn a received Report into its ReportResp, in place. */
void ibve_sm_report_resp(uint8_t mad[IBVE_MAD_SIZE]);
/*
 * Answer an SMP Get in place: SMInfo as a not-active SM of priority 0
 * with PORT_GUID (big-endian); any other attribute "unsupported".
 */
void ibve_sm_smp_answer(uint8_t mad[IBVE_MAD_SIZE], uint64_t port_guid_be);
/* "SA: request invalid (status 0x0200)" and the like, into BUF. */
const char *ibve_sm_status_str(uint16_t status, char *buf, size_t len);
/*
 * The Reports a port received lately, to tell a repeat: the same TID (the
 * SA resent it, our ReportResp being late or lost), or the same notice as
 * the latest one about its GID within IBVE_SM_SAME_MS (an SM may send one
 * change twice, or to two of our subscriptions, with new TIDs). A port
 * that goes out, in and out again within that time still shows all three.
 */
#define IBVE_SM_SEEN_MAX 32
#define IBVE_SM_SAME_MS	 2000

struct ibve_sm_seen {
	struct {
		uint32_t tid; /* the low 32 bits: the kernel owns the rest */
		uint16_t trap;
		uint8_t gid[16];
		struct timespec at;
	} e[IBVE_SM_SEEN_MAX];
	size_t n, next;
};

/* Whether Report R, received at NOW (monotonic), is a repeat; remembers
 * it when it is not. */
bool ibve_sm_seen_before(struct ibve_sm_seen *s, const struct ibve_sm_mad *r,
			 const struct timespec *now);
/* Fill EV from a decoded Report received on DEVICE/PORT. */
void ibve_sm_event_from_report(struct ibve_event *ev,
			       const struct ibve_sm_mad *r, const char *device,
			       uint64_t node_guid, uint32_t port);

#endif
