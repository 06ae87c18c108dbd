// SPDX-License-Identifier: MIT
/*
 * The injector: provoke real async events on objects of our own and
 * report whether, and how fast, the device delivered them.
 *
 * Affiliated events go only to the context that owns the object, so the
 * injector watches its own context (through the monitor, which acks every
 * event as soon as it is read: destroying the objects never waits). Every
 * scenario uses one topology: QP A sends to QP B over an RC connection on
 * the same port (RoCE: to our own GID; InfiniBand: to our own LID), B
 * receives from an SRQ. One poll loop waits on the async events, the
 * completion channel and the caller's cancel fd, with a deadline.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#include "internal.h"
#include "tools.h"

#define SRQ_WQES    16	 /* receive buffers on the SRQ */
#define SRQ_LIMIT   8	 /* armed limit: the event comes at 7 left */
#define BIG_CQ	    4096 /* completions we drain */
#define STORM_BATCH 1024 /* overflowing completions per round at most */
#define MSG	    64	 /* bytes per message */

static const struct ibve_scenario scenarios[] = {
	{ "srq-limit", "SRQ_LIMIT_REACHED",
	  "SRQ of 16 receive buffers with its limit armed at 8; RC loopback sends consume 9" },
	{ "cq-overflow", "CQ_ERR",
	  "a CQ of minimal size takes more RDMA WRITE completions than it holds" },
	{ "sq-drained", "SQ_DRAINED",
	  "an RTS queue pair with sends in flight is moved to SQD with async notification" },
	{ "last-wqe", "QP_LAST_WQE_REACHED",
	  "a queue pair attached to an SRQ is moved to the error state" },
};

const struct ibve_scenario *ibve_scenario_at(size_t i)
{
	return i < ARRAY_SIZE(scenarios) ? &scenarios[i] : NULL;
}

const struct ibve_scenario *ibve_scenario_lookup(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(scenarios); i++)
		if (strcmp(scenarios[i].name, name) == 0)
			return &scenarios[i];
	return NULL;
}

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
	bool raw; /* bench/'s floor: verbs alone read the events */
};

static double us_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e6 +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e3;
}

/* A setup failure: name the verb and the cause. */
static int fail(struct inj *j, const char *verb, int err)
{
	struct ibve_inject_report *r = j->r;

	r->status = 3;
	snprintf(r->error, sizeof(r->error), "%s: %s", verb,
		 strerror(err ? err : EIO));
	return -1;
}

static int open_device(struct inj *j)
{
	struct ibv_device **list;
	const char *want = j->o->device;
	int n, err = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		j->r->status = 3;
		snprintf(
			j->r->error, sizeof(j->r->error), "%s",
			errno == ENOSYS
				? "no RDMA devices found: the kernel offers no RDMA "
				  "to user space (is ib_uverbs loaded?)"
				: strerror(errno));
		return -1;
	}
	for (int i = 0; i < n && !j->ctx; i++) {
		struct ibv_device_attr da;
		struct ibv_context *ctx;
		uint32_t p;

		if (want && strcmp(ibv_get_device_name(list[i]), want) != 0)
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			err = errno;
			continue;
		}
		if (ibv_query_device(ctx, &da)) {
			err = errno;
			ibv_close_device(ctx);
			continue;
		}
		/* The asked-for port, else the first ACTIVE one. */
		for (p = 1; p <= da.phys_port_cnt; p++) {
			if (j->o->port && p != j->o->port)
				continue;
			if (ibv_query_port(ctx, (uint8_t)p, &j->pattr))
				continue;
			if (j->o->port || j->pattr.state == IBV_PORT_ACTIVE)
				break;
		}
		if (j->o->port && j->o->port > da.phys_port_cnt) {
			j->r->status = 3;
			snprintf(j->r->error, sizeof(j->r->error),
				 "%s: no port %u (it has %u)",
				 ibv_get_device_name(list[i]), j->o->port,
				 da.phys_port_cnt);
			ibv_close_device(ctx);
			ibv_free_device_list(list);
			return -1;
		}
		if (p > da.phys_port_cnt) {
			ibv_close_device(ctx);
			continue;
		}
		j->ctx = ctx;
		j->r->port = p;
		j->max_qp_wr = da.max_qp_wr;
		ibve_strcpy(j->r->device, ibv_get_device_name(list[i]),
			    sizeof(j->r->device));
		j->r->node_guid = be64toh(ibv_get_device_guid(list[i]));
	}
	ibv_free_device_list(list);
	if (j->ctx)
		return 0;
	j->r->status = 3;
	if (want && err)
		snprintf(j->r->error, sizeof(j->r->error), "%s: %s", want,
			 strerror(err));
	else if (want)
		snprintf(j->r->error, sizeof(j->r->error),
			 "device '%s': no such RDMA device", want);
	else
		snprintf(j->r->error, sizeof(j->r->error),
			 "no RDMA device with an ACTIVE port");
	return -1;
}

/* RoCE: the asked-for GID index, else a RoCE v2 entry, else any. */
static int choose_gid(struct inj *j)
{
	struct ibve_inject_report *r = j->r;
	struct ibv_gid_entry e[256];
	ssize_t n;
	int best = -1;

	r->link_layer = j->pattr.link_layer;
	r->lid = j->pattr.lid;
	if (j->pattr.state != IBV_PORT_ACTIVE) {
		r->status = 3;
		snprintf(r->error, sizeof(r->error),
			 "%s port %u is %s, not ACTIVE", r->device, r->port,
			 ibve_port_state_name(j->pattr.state));
		return -1;
	}
	if (j->pattr.link_layer != IBV_LINK_LAYER_ETHERNET) {
		r->gid_index = -1;
		if (!j->pattr.lid) {
			r->status = 3;
			snprintf(
				r->error, sizeof(r->error),
				"%s port %u has no LID (is a subnet manager running?)",
				r->device, r->port);
			return -1;
		}
		return 0;
	}
	n = ibv_query_gid_table(j->ctx, e, ARRAY_SIZE(e), 0);
	if (n < 0)
		return fail(j, "ibv_query_gid_table", (int)-n);
	for (ssize_t i = 0; i < n; i++) {
		if (e[i].port_num != r->port)
			continue;
		if (j->o->gid_index >= 0) {
			if (e[i].gid_index == (uint32_t)j->o->gid_index)
				best = (int)i;
		} else if (best < 0 ||
			   (e[i].gid_type == IBV_GID_TYPE_ROCE_V2 &&
			    e[best].gid_type != IBV_GID_TYPE_ROCE_V2)) {
			best = (int)i;
		}
	}
	if (best < 0) {
		r->status = 3;
		if (j->o->gid_index >= 0)
			snprintf(r->error, sizeof(r->error),
				 "%s port %u: no valid GID at index %d",
				 r->device, r->port, j->o->gid_index);
		else
			snprintf(r->error, sizeof(r->error),
				 "%s port %u has no valid GID", r->device,
				 r->port);
		return -1;
	}
	r->gid_index = (int)e[best].gid_index;
	memcpy(j->gid.raw, e[best].gid.raw, sizeof(j->gid.raw));
	return 0;
}

static int make_qp(struct inj *j, struct ibv_qp **qp, struct ibv_cq *scq,
		   uint32_t max_send, bool on_srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = scq,
		.recv_cq = j->cq,
		.srq = on_srq ? j->srq : NULL,
		.cap = { .max_send_wr = max_send,
			 .max_recv_wr = on_srq ? 0 : 1,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	*qp = ibv_create_qp(j->pd, &a);
	return *qp ? 0 : fail(j, "ibv_create_qp", errno);
}

/* INIT, RTR, RTS towards REMOTE on our own port. */
static int connect_qp(struct inj *j, struct ibv_qp *qp, uint32_t remote)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = (uint8_t)j->r->port,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE,
	};
	int err;

	err = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_ACCESS_FLAGS);
	if (err)
		return fail(j, "ibv_modify_qp(INIT)", err);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = j->pattr.active_mtu;
	a.dest_qp_num = remote;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = (uint8_t)j->r->port;
	if (j->r->gid_index >= 0) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = j->gid;
		a.ah_attr.grh.sgid_index = (uint8_t)j->r->gid_index;
		a.ah_attr.grh.hop_limit = 1;
	} else {
		a.ah_attr.dlid = j->pattr.lid;
	}
	err = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	if (err)
		return fail(j, "ibv_modify_qp(RTR)", err);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	err = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				    IBV_QP_MAX_QP_RD_ATOMIC);
	return err ? fail(j, "ibv_modify_qp(RTS)", err) : 0;
}

/* Objects every scenario needs: PD, MR, channel, CQ, SRQ, A -> B. */
static int setup(struct inj *j, struct ibv_cq *a_send_cq, uint32_t a_depth)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = SRQ_WQES,
						  .max_sge = 1 } };
	int fl;

	j->pd = ibv_alloc_pd(j->ctx);
	if (!j->pd)
		return fail(j, "ibv_alloc_pd", errno);
	j->buf = calloc(SRQ_WQES + 1, MSG);
	if (!j->buf)
		return fail(j, "malloc", ENOMEM);
	j->mr = ibv_reg_mr(j->pd, j->buf, (SRQ_WQES + 1) * MSG,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!j->mr)
		return fail(j, "ibv_reg_mr", errno);
	j->ch = ibv_create_comp_channel(j->ctx);
	if (!j->ch)
		return fail(j, "ibv_create_comp_channel", errno);
	fl = fcntl(j->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(j->ch->fd, F_SETFL, fl | O_NONBLOCK))
		return fail(j, "fcntl", errno);
	j->cq = ibv_create_cq(j->ctx, BIG_CQ, NULL, j->ch, 0);
	if (!j->cq)
		return fail(j, "ibv_create_cq", errno);
	if (ibv_req_notify_cq(j->cq, 0))
		return fail(j, "ibv_req_notify_cq", errno);
	j->srq = ibv_create_srq(j->pd, &sa);
	if (!j->srq)
		return fail(j, "ibv_create_srq", errno);
	if (make_qp(j, &j->a, a_send_cq ? a_send_cq : j->cq, a_depth, false) ||
	    make_qp(j, &j->b, j->cq, 1, true))
		return -1;
	if (connect_qp(j, j->a, j->b->qp_num) ||
	    connect_qp(j, j->b, j->a->qp_num))
		return -1;
	return 0;
}

static int post_recvs(struct inj *j, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct ibv_sge sge = { (uintptr_t)j->buf + MSG, MSG,
				       j->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i,
					  .sg_list = &sge,
					  .num_sge = 1 },
				   *bad;
		int err = ibv_post_srq_recv(j->srq, &wr, &bad);

		if (err)
			return fail(j, "ibv_post_srq_recv", err);
	}
	return 0;
}

/* N signaled operations from A in one post: SENDs, or 1-byte WRITEs. */
static int post_sends(struct inj *j, unsigned int n, bool write)
{
	struct ibv_send_wr *wr = calloc(n, sizeof(*wr)), *bad;
	struct ibv_sge sge = { (uintptr_t)j->buf, write ? 1 : MSG,
			       j->mr->lkey };
	int err;

	if (!wr)
		return fail(j, "malloc", ENOMEM);
	for (unsigned int i = 0; i < n; i++) {
		wr[i].wr_id = i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = write ? IBV_WR_RDMA_WRITE : IBV_WR_SEND;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uintptr_t)j->buf + MSG;
		wr[i].wr.rdma.rkey = j->mr->rkey;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	err = ibv_post_send(j->a, wr, &bad);
	free(wr);
	return err ? fail(j,
			  write ? "ibv_post_send(RDMA_WRITE)"
				: "ibv_post_send(SEND)",
			  err)
		   : 0;
}

static void mark_trigger(struct inj *j)
{
	clock_gettime(CLOCK_MONOTONIC, &j->trigger);
	if (!j->first_trigger.tv_sec && !j->first_trigger.tv_nsec)
		j->first_trigger = j->trigger;
}

/* Completions of the big CQ: take them so it never overflows. */
static void drain_cq(struct inj *j)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	struct ibv_wc wc[32];

	while (ibv_get_cq_event(j->ch, &cq, &cq_ctx) == 0)
		j->cq_events_unacked++;
	ibv_req_notify_cq(j->cq, 0);
	while (ibv_poll_cq(j->cq, ARRAY_SIZE(wc), wc) > 0)
		;
}

static bool is_expected(const struct inj *j, const struct ibve_event *ev)
{
	if (ev->desc != j->want)
		return false;
	if (j->by_qpn)
		return (ev->fields & IBVE_FIELD_QP_NUM) &&
		       ev->qp_num == j->match_qpn;
	return (ev->fields & IBVE_FIELD_HANDLE) &&
	       ev->handle == j->match_handle;
}

static void count_expected(struct inj *j, const struct timespec *now)
{
	struct ibve_inject_report *r = j->r;
	double lat = us_between(&j->trigger, now);

	if (!r->received++)
		r->latency_us = lat;
	if (lat > r->latency_max_us)
		r->latency_max_us = lat;
	j->last_event = *now;
}

/*
 * The floor the storm benchmark compares libibvevent with: each event
 * read with ibv_get_async_event() and acked, nothing decoded or copied.
 */
static void read_raw(struct inj *j)
{
	struct ibv_async_event e;
	struct timespec now;

	while (ibv_get_async_event(j->ctx, &e) == 0) {
		bool match = (int)e.event_type == j->want->code;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (match && j->by_qpn)
			match = e.element.qp->qp_num == j->match_qpn;
		else if (match && e.event_type == IBV_EVENT_SRQ_LIMIT_REACHED)
			match = e.element.srq->handle == j->match_handle;
		else if (match)
			match = e.element.cq->handle == j->match_handle;
		ibv_ack_async_event(&e);
		j->r->events++;
		if (match)
			count_expected(j, &now);
	}
}

/*
 * Wait until WANT expected events in all have arrived, for at most the
 * timeout after the current trigger. 0, or ETIMEDOUT, or EINTR.
 */
static int wait_for(struct inj *j, unsigned long want)
{
	struct ibve_inject_report *r = j->r;
	struct timespec deadline = j->trigger;
	double t = j->o->timeout > 0 ? j->o->timeout : 5;

	deadline.tv_sec += (time_t)t;
	deadline.tv_nsec += (long)((t - (double)(time_t)t) * 1e9);
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	while (r->received < want) {
		struct pollfd p[3] = {
			{ j->raw ? j->ctx->async_fd : ibve_pipeline_fd(j->pl),
			  POLLIN, 0 },
			{ j->ch->fd, POLLIN, 0 },
			{ j->o->cancel_fd, POLLIN, 0 },
		};
		struct ibve_event evs[64];
		struct timespec now;
		double left;
		int n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = us_between(&now, &deadline);
		if (left <= 0)
			return ETIMEDOUT;
		n = poll(p, j->o->cancel_fd >= 0 ? 3 : 2,
			 (int)(left / 1000) + 1);
		if (n < 0 && errno != EINTR)
			return errno;
		if (p[2].revents) {
			r->interrupted = true;
			return EINTR;
		}
		if (p[1].revents)
			drain_cq(j);
		if (!p[0].revents)
			continue;
		if (j->raw) {
			read_raw(j);
			continue;
		}
		/* all that is queued before polling again, as the floor does */
		do {
			n = ibve_pipeline_read(j->pl, evs, ARRAY_SIZE(evs));
			clock_gettime(CLOCK_MONOTONIC, &now);
			for (int i = 0; i < n; i++) {
				r->events++;
				if (!is_expected(j, &evs[i]))
					continue;
				if (!r->received)
					r->first = evs[i];
				count_expected(j, &now);
			}
		} while (n == (int)ARRAY_SIZE(evs));
	}
	return 0;
}

static int not_delivered(struct inj *j, int err)
{
	struct ibve_inject_report *r = j->r;

	if (err == EINTR) {
		r->status = 1;
		snprintf(r->error, sizeof(r->error),
			 "interrupted after %lu of %lu %s", r->received,
			 r->expected, j->want->name);
		return -1;
	}
	if (err != ETIMEDOUT)
		return fail(j, "poll", err);
	r->status = 1;
	if (r->received)
		snprintf(
			r->error, sizeof(r->error),
			"%s delivered %lu of %lu %s; the rest did not come within %g s",
			r->device, r->received, r->expected, j->want->name,
			j->o->timeout);
	else
		snprintf(r->error, sizeof(r->error),
			 "%s did not deliver %s within %g s", r->device,
			 j->want->name, j->o->timeout);
	return -1;
}

static int arm_srq(struct inj *j)
{
	struct ibv_srq_attr a = { .srq_limit = SRQ_LIMIT };
	int err = ibv_modify_srq(j->srq, &a, IBV_SRQ_LIMIT);

	return err ? fail(j, "ibv_modify_srq(IBV_SRQ_LIMIT)", err) : 0;
}

/* Each round: full SRQ, armed limit, 9 sends take it to 7 left. */
static int run_srq_limit(struct inj *j)
{
	const unsigned int sends = SRQ_WQES - SRQ_LIMIT + 1;

	if (setup(j, NULL, SRQ_WQES) || post_recvs(j, SRQ_WQES))
		return -1;
	j->match_handle = j->srq->handle;
	for (unsigned long round = 1; round <= j->r->expected; round++) {
		int err;

		if (round > 1 && post_recvs(j, sends))
			return -1; /* back to full */
		if (arm_srq(j) || post_sends(j, sends, false))
			return -1;
		mark_trigger(j);
		err = wait_for(j, round);
		if (err)
			return not_delivered(j, err);
	}
	return 0;
}

/* The device broke the pair (hardware may, on overrun): new A and CQ. */
static int recreate_overflow_pair(struct inj *j, unsigned int depth)
{
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	int err;

	if (ibv_destroy_qp(j->a))
		return fail(j, "ibv_destroy_qp", errno);
	j->a = NULL;
	if (ibv_destroy_cq(j->tiny))
		return fail(j, "ibv_destroy_cq", errno);
	j->tiny = ibv_create_cq(j->ctx, 1, NULL, NULL, 0);
	if (!j->tiny)
		return fail(j, "ibv_create_cq", errno);
	err = ibv_modify_qp(j->b, &reset, IBV_QP_STATE);
	if (err)
		return fail(j, "ibv_modify_qp(RESET)", err);
	if (make_qp(j, &j->a, j->tiny, depth, false) ||
	    connect_qp(j, j->a, j->b->qp_num) ||
	    connect_qp(j, j->b, j->a->qp_num))
		return -1;
	j->match_handle = j->tiny->handle;
	return 0;
}

/*
 * A CQ of minimal size (its capacity C as the device rounds it) takes
 * C + M completions of RDMA WRITEs: C fill it, M overflow it, one CQ_ERR
 * each. Rounds of at most STORM_BATCH until the count is reached; the CQ
 * is emptied between rounds, and replaced if the device broke the QP.
 */
static int run_cq_overflow(struct inj *j)
{
	struct ibve_inject_report *r = j->r;
	unsigned int cap, batch, depth;

	j->tiny = ibv_create_cq(j->ctx, 1, NULL, NULL, 0);
	if (!j->tiny)
		return fail(j, "ibv_create_cq", errno);
	cap = (unsigned int)j->tiny->cqe;
	batch = STORM_BATCH;
	if (j->max_qp_wr > 0 && cap + batch > (unsigned int)j->max_qp_wr)
		batch = (unsigned int)j->max_qp_wr > cap
				? (unsigned int)j->max_qp_wr - cap
				: 1;
	depth = cap + batch;
	if (setup(j, j->tiny, depth))
		return -1;
	j->match_handle = j->tiny->handle;

	while (r->received < r->expected) {
		unsigned long left = r->expected - r->received;
		unsigned int m = left < batch ? (unsigned int)left : batch;
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qia;
		struct ibv_wc wc[16];
		int err;

		if (post_sends(j, cap + m, true))
			return -1;
		mark_trigger(j);
		err = wait_for(j, r->received + m);
		if (err)
			return not_delivered(j, err);
		/* Empty the CQ for the next round. */
		while (ibv_poll_cq(j->tiny, ARRAY_SIZE(wc), wc) > 0)
			;
		if (r->received < r->expected &&
		    (ibv_query_qp(j->a, &qa, IBV_QP_STATE, &qia) ||
		     qa.qp_state != IBV_QPS_RTS) &&
		    recreate_overflow_pair(j, depth))
			return -1;
	}
	return 0;
}

/* A with sends in flight goes RTS -> SQD, asking to be told when drained. */
static int run_sq_drained(struct inj *j)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD,
				 .en_sqd_async_notify = 1 };
	int err;

	if (setup(j, NULL, SRQ_WQES) || post_recvs(j, SRQ_WQES) ||
	    post_sends(j, 4, false))
		return -1;
	j->by_qpn = true;
	j->match_qpn = j->a->qp_num;
	err = ibv_modify_qp(j->a, &a,
			    IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY);
	if (err)
		return fail(j, "ibv_modify_qp(SQD)", err);
	mark_trigger(j);
	err = wait_for(j, 1);
	return err ? not_delivered(j, err) : 0;
}

/* B, attached to the SRQ, goes to the error state. */
static int run_last_wqe(struct inj *j)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int err;

	if (setup(j, NULL, SRQ_WQES) || post_recvs(j, SRQ_WQES))
		return -1;
	j->by_qpn = true;
	j->match_qpn = j->b->qp_num;
	err = ibv_modify_qp(j->b, &a, IBV_QP_STATE);
	if (err)
		return fail(j, "ibv_modify_qp(ERR)", err);
	mark_trigger(j);
	err = wait_for(j, 1);
	return err ? not_delivered(j, err) : 0;
}

/* Destroy in dependency order; every event was acked when read. */
static void teardown(struct inj *j)
{
	struct ibve_inject_report *r = j->r;
	struct timespec t0, t1;
	bool ok = true;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (j->a)
		ok &= ibv_destroy_qp(j->a) == 0;
	if (j->b)
		ok &= ibv_destroy_qp(j->b) == 0;
	if (j->srq)
		ok &= ibv_destroy_srq(j->srq) == 0;
	if (j->tiny)
		ok &= ibv_destroy_cq(j->tiny) == 0;
	if (j->cq) {
		if (j->cq_events_unacked)
			ibv_ack_cq_events(j->cq, j->cq_events_unacked);
		ok &= ibv_destroy_cq(j->cq) == 0;
	}
	if (j->ch)
		ok &= ibv_destroy_comp_channel(j->ch) == 0;
	if (j->mr)
		ok &= ibv_dereg_mr(j->mr) == 0;
	free(j->buf);
	if (j->pd)
		ok &= ibv_dealloc_pd(j->pd) == 0;
	ibve_pipeline_free(j->pl);
	if (j->ctx)
		ok &= ibv_close_device(j->ctx) == 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->teardown = ok;
	r->teardown_ms = us_between(&t0, &t1) / 1000;
}

static int inject_run(const char *name, const struct ibve_inject_opts *o,
		      struct ibve_inject_report *r, bool raw)
{
	static int (*const run[])(struct inj *) = {
		run_srq_limit,
		run_cq_overflow,
		run_sq_drained,
		run_last_wqe,
	};
	const struct ibve_scenario *s = ibve_scenario_lookup(name);
	struct inj j = { .o = o, .r = r, .raw = raw };
	int e;

	memset(r, 0, sizeof(*r));
	r->gid_index = -1;
	if (!s)
		return -EINVAL;
	r->scenario = s;
	r->expected = o->count ? o->count : 1;
	j.want = ibve_event_desc_lookup(s->expects);
	if (open_device(&j) || choose_gid(&j))
		goto out;
	if (raw) {
		int fl = fcntl(j.ctx->async_fd, F_GETFL);

		if (fl < 0 ||
		    fcntl(j.ctx->async_fd, F_SETFL, fl | O_NONBLOCK)) {
			fail(&j, "fcntl", errno);
			goto out;
		}
		run[s - scenarios](&j);
		goto done;
	}
	e = ibve_pipeline_new(&j.pl);
	if (!e) {
		const char *dev = r->device;
		struct ibve_source_opts so = { .sz = sizeof(so),
					       .devices = &dev,
					       .ndevices = 1,
					       .context = j.ctx };

		e = ibve_pipeline_add_source(j.pl, "devices", &so);
	}
	if (!e)
		e = ibve_pipeline_start(j.pl);
	if (e) {
		fail(&j, "watching the async events", -e);
		goto out;
	}
	run[s - scenarios](&j);
done:
	if (r->received) {
		r->seconds = us_between(&j.first_trigger, &j.last_event) / 1e6;
		r->rate = r->seconds > 0 ? (double)r->received / r->seconds : 0;
	}
out:
	teardown(&j);
	return r->status;
}

int ibve_inject_run(const char *name, const struct ibve_inject_opts *o,
		    struct ibve_inject_report *r)
{
	return inject_run(name, o, r, o->raw);
}

static void report_text(struct ibve_buf *b, const struct ibve_inject_report *r)
{
	const char *ll = r->link_layer == IBV_LINK_LAYER_ETHERNET
				 ? "RoCE"
				 : "InfiniBand";

	ibve_buf_printf(b, "scenario   %s\n",
			r->scenario ? r->scenario->name : "?");
	if (r->device[0]) {
		ibve_buf_puts(b, "device     ");
		ibve_buf_text_str(b, r->device);
		ibve_buf_printf(b, " port %u", r->port);
		if (r->gid_index >= 0)
			ibve_buf_printf(b, " (%s, GID index %d)\n", ll,
					r->gid_index);
		else if (r->lid)
			ibve_buf_printf(b, " (%s, LID %u)\n", ll, r->lid);
		else
			ibve_buf_putc(b, '\n');
	}
	if (r->scenario)
		ibve_buf_printf(b, "expected   %s x%lu\n", r->scenario->expects,
				r->expected);
	if (r->status != 3 || r->received) {
		ibve_buf_printf(b, "received   %s x%lu", r->scenario->expects,
				r->received);
		if (r->received) {
			char d[256];

			ibve_event_format_details(&r->first, d, sizeof(d));
			ibve_buf_puts(b, d);
		}
		ibve_buf_putc(b, '\n');
	}
	if (r->received) {
		ibve_buf_printf(b, "latency    %.0f us from trigger to arrival",
				r->latency_us);
		if (r->received > 1)
			ibve_buf_printf(b, " (max %.0f us)", r->latency_max_us);
		ibve_buf_putc(b, '\n');
		if (r->received > 1)
			ibve_buf_printf(
				b, "rate       %.0f events/s over %.3f s\n",
				r->rate, r->seconds);
	}
	ibve_buf_printf(b, "events     %lu read, every one acknowledged\n",
			r->events);
	ibve_buf_printf(b, "teardown   %s in %.1f ms\n",
			r->teardown ? "complete" : "FAILED", r->teardown_ms);
	if (r->status == 0)
		ibve_buf_puts(b, "result     OK\n");
	else
		ibve_buf_printf(b, "result     %s: %s\n",
				r->status == 1 ? "NOT DELIVERED"
					       : "SETUP FAILED",
				r->error);
}

static void report_json(struct ibve_buf *b, const struct ibve_inject_report *r)
{
	struct ibve_json j;
	char tmp[64];

	ibve_json_init(&j, b);
	ibve_json_open(&j, NULL);
	ibve_json_str(&j, "scenario", r->scenario ? r->scenario->name : "");
	ibve_json_str(&j, "device", r->device);
	ibve_json_uint_or_null(&j, "port", r->port);
	if (r->node_guid) {
		ibve_guid_format(r->node_guid, tmp, sizeof(tmp));
		ibve_json_str(&j, "node_guid", tmp);
	} else {
		ibve_json_null(&j, "node_guid");
	}
	ibve_json_str(&j, "link_layer", ibve_link_layer_name(r->link_layer));
	if (r->gid_index >= 0)
		ibve_json_int(&j, "gid_index", r->gid_index);
	else
		ibve_json_null(&j, "gid_index");
	ibve_json_uint(&j, "lid", r->lid);
	ibve_json_str(&j, "event", r->scenario ? r->scenario->expects : "");
	ibve_json_uint(&j, "expected", r->expected);
	ibve_json_uint(&j, "received", r->received);
	if (r->received) {
		const struct ibve_event *e = &r->first;

		ibve_time_format(&e->time, tmp, sizeof(tmp));
		ibve_json_str(&j, "time", tmp);
		ibve_json_int(&j, "code", e->code);
		ibve_json_str(&j, "class", ibve_class_name(e->cls));
		ibve_json_str(&j, "severity", ibve_severity_name(e->severity));
		ibve_json_bool(&j, "affiliated", e->affiliated);
		if (e->fields & IBVE_FIELD_QP_NUM)
			ibve_json_uint(&j, "qp_num", e->qp_num);
		if (e->fields & IBVE_FIELD_HANDLE)
			ibve_json_uint(&j, "handle", e->handle);
		ibve_json_double(&j, "latency_us", "%.1f", r->latency_us);
		ibve_json_double(&j, "latency_max_us", "%.1f",
				 r->latency_max_us);
		ibve_json_double(&j, "seconds", "%.6f", r->seconds);
		ibve_json_double(&j, "rate", "%.1f", r->rate);
	}
	ibve_json_uint(&j, "events", r->events);
	ibve_json_bool(&j, "teardown", r->teardown);
	ibve_json_double(&j, "teardown_ms", "%.3f", r->teardown_ms);
	ibve_json_bool(&j, "interrupted", r->interrupted);
	ibve_json_int(&j, "status", r->status);
	if (r->status)
		ibve_json_str(&j, "error", r->error);
	else
		ibve_json_null(&j, "error");
	ibve_json_close(&j);
	ibve_buf_putc(b, '\n');
}

size_t ibve_inject_format(const struct ibve_inject_report *r, char *buf,
			  size_t size, bool json)
{
	struct ibve_buf b = { buf, size, 0 };

	(json ? report_json : report_text)(&b, r);
	return ibve_buf_end(&b);
}

size_t ibve_scenario_format(char *buf, size_t size, bool json)
{
	struct ibve_buf b = { buf, size, 0 };

	for (size_t i = 0; i < ARRAY_SIZE(scenarios); i++) {
		const struct ibve_scenario *s = &scenarios[i];
		struct ibve_json j;

		if (!json) {
			ibve_buf_printf(&b, "%-12s %-20s %s\n", s->name,
					s->expects, s->text);
			continue;
		}
		ibve_json_init(&j, &b);
		ibve_json_open(&j, NULL);
		ibve_json_str(&j, "scenario", s->name);
		ibve_json_str(&j, "event", s->expects);
		ibve_json_str(&j, "description", s->text);
		ibve_json_close(&j);
		ibve_buf_putc(&b, '\n');
	}
	return ibve_buf_end(&b);
}
