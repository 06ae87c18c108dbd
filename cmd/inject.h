/* SPDX-License-Identifier: MIT */
/*
 * The injector of ibv_eventinject (inject.c, inject_verbs.c): provoke
 * events on objects of our own. bench/floor links it too, for its
 * verbs-only mode.
 */
#ifndef IBVE_CMD_INJECT_H
#define IBVE_CMD_INJECT_H

#include <infiniband/verbs.h>

#include "common.h"
#include "ibvevent.h"

struct ibve_scenario {
	const char *name;    /* "srq-limit" */
	const char *expects; /* the event it provokes: "SRQ_LIMIT_REACHED" */
	const char *text;    /* what it does, in a line */
};

/* Every scenario, in order, up to one whose name is NULL. */
extern const struct ibve_scenario ibve_scenarios[];
/* The scenario named NAME, or NULL. */
const struct ibve_scenario *ibve_scenario_lookup(const char *name);

struct ibve_inject_opts {
	const char *device;  /* NULL: the first device with an ACTIVE port */
	uint32_t port;	     /* 0: the device's first ACTIVE port */
	int gid_index;	     /* RoCE: -1 chooses one (RoCE v2 first) */
	double timeout;	     /* seconds each expected event may take */
	unsigned long count; /* expected events: srq-limit 1 + re-arms,
				cq-overflow the storm size; 0 means 1 */
	int cancel_fd;	     /* -1, or an fd whose readability stops the run */
	bool raw;	     /* verbs alone read the events (bench/'s floor) */
};

struct ibve_inject_report {
	const struct ibve_scenario *scenario;
	char device[IBVE_NAME_MAX];
	uint64_t node_guid;
	uint32_t port;
	int link_layer; /* IBV_LINK_LAYER_* */
	int gid_index;	/* -1 on InfiniBand (LID routed) */
	uint32_t lid;
	unsigned long expected;	 /* how many scenario->expects were wanted */
	unsigned long received;	 /* how many arrived, about our object */
	unsigned long events;	 /* every async event read (and acked) */
	struct ibve_event first; /* the first expected event, if any */
	double latency_us;	 /* trigger to arrival of the first one */
	double latency_max_us;
	double seconds; /* first trigger to last expected event */
	double rate;	/* expected events per second */
	bool teardown;	/* every object destroyed */
	double teardown_ms;
	bool interrupted; /* stopped through cancel_fd */
	int status; /* 0 all arrived, 1 not delivered in time, 3 setup failed */
	char error[256]; /* status 3: the verb that failed and why; 1: what */
};

/*
 * Run scenario NAME on a device: create our own objects, drive them into
 * the condition with real traffic, wait for the event, tear down. Every
 * event read is acknowledged before teardown. Returns R->status, or
 * -EINVAL for an unknown scenario.
 */
int ibve_inject_run(const char *name, const struct ibve_inject_opts *o,
		    struct ibve_inject_report *r);

/* ------------------------------------------------------------------ */
/* Between the injector's parts                                         */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SRQ_WQES      16 /* receive buffers on the SRQ */

struct inj {
	const struct ibve_inject_opts *o;
	struct ibve_inject_report *r;
	const struct ibve_event_desc *want; /* the expected event */
	struct ibv_context *ctx;
	struct ibv_port_attr pattr;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *buf;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;   /* B's receives and A's sends: drained */
	struct ibv_cq *tiny; /* cq-overflow: A's send CQ, left to fill */
	struct ibv_srq *srq;
	struct ibv_qp *a, *b;
	struct ibve_pipeline *pl;
	uint32_t match_handle; /* the object the expected event must name */
	uint32_t match_qpn;
	bool by_qpn;
	struct timespec trigger; /* CLOCK_MONOTONIC, of the current round */
	struct timespec first_trigger, last_event;
	unsigned int cq_events_unacked;
	int max_qp_wr;
};

/* The run ends with STATUS, and why (in the report): CMD_SAID. */
int inj_say(struct inj *j, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A setup failure: name the verb and the cause. */
int inj_fail(struct inj *j, const char *verb, int err);
/* FD non-blocking; a setup failure if it cannot be. */
int inj_nonblock(struct inj *j, int fd);
/* The device and port the options name (else the first ACTIVE), its GID. */
int inj_open(struct inj *j);
/* Objects every scenario needs: PD, MR, channel, CQ, SRQ, A -> B. */
int inj_setup(struct inj *j, struct ibv_cq *a_send_cq, uint32_t a_depth);
int inj_make_qp(struct inj *j, struct ibv_qp **qp, struct ibv_cq *scq,
		uint32_t max_send, bool on_srq);
/* INIT, RTR, RTS towards REMOTE on our own port. */
int inj_connect_qp(struct inj *j, struct ibv_qp *qp, uint32_t remote);
int inj_post_recvs(struct inj *j, unsigned int n);
/* N signaled operations from A in one post: SENDs, or 1-byte WRITEs. */
int inj_post_sends(struct inj *j, unsigned int n, bool write);

#endif
