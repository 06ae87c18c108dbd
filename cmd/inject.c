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
 * completion channel and the caller's cancel fd, with a deadline. The
 * objects are made in inject_verbs.c, the report printed by the command.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

#define SRQ_LIMIT   8	 /* armed limit: the event comes at 7 left */
#define STORM_BATCH 1024 /* overflowing completions per round at most */

const struct ibve_scenario ibve_scenarios[] = {
	{ "srq-limit", "SRQ_LIMIT_REACHED",
	  "SRQ of 16 receive buffers with its limit armed at 8; RC loopback sends consume 9" },
	{ "cq-overflow", "CQ_ERR",
	  "a CQ of minimal size takes more RDMA WRITE completions than it holds" },
	{ "sq-drained", "SQ_DRAINED",
	  "an RTS queue pair with sends in flight is moved to SQD with async notification" },
	{ "last-wqe", "QP_LAST_WQE_REACHED",
	  "a queue pair attached to an SRQ is moved to the error state" },
	{ NULL, NULL, NULL },
};

const struct ibve_scenario *ibve_scenario_lookup(const char *name)
{
	for (const struct ibve_scenario *s = ibve_scenarios; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

static double us_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e6 +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e3;
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
 * Triggered now: wait until WANT expected events in all have arrived, for
 * at most the timeout. 0, or -1 with why not (interrupted, not in time,
 * poll failed).
 */
static int await(struct inj *j, unsigned long want)
{
	struct ibve_inject_report *r = j->r;
	double t = j->o->timeout > 0 ? j->o->timeout : 5;

	clock_gettime(CLOCK_MONOTONIC, &j->trigger);
	if (!j->first_trigger.tv_sec && !j->first_trigger.tv_nsec)
		j->first_trigger = j->trigger;
	while (r->received < want) {
		struct pollfd p[3] = {
			{ j->o->raw ? j->ctx->async_fd
				    : ibve_pipeline_fd(j->pl),
			  POLLIN, 0 },
			{ j->ch->fd, POLLIN, 0 },
			{ j->o->cancel_fd, POLLIN, 0 },
		};
		struct ibve_event evs[64];
		struct timespec now;
		double left;
		int n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = t * 1e6 - us_between(&j->trigger, &now);
		if (left <= 0)
			break;
		n = poll(p, j->o->cancel_fd >= 0 ? 3 : 2,
			 (int)(left / 1000) + 1);
		if (n < 0 && errno != EINTR)
			return inj_fail(j, "poll", errno);
		if (p[2].revents) {
			r->interrupted = true;
			return inj_say(j, 1, "interrupted after %lu of %lu %s",
				       r->received, r->expected, j->want->name);
		}
		if (p[1].revents)
			drain_cq(j);
		if (!p[0].revents)
			continue;
		if (j->o->raw) {
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
	if (r->received >= want)
		return 0;
	if (r->received)
		return inj_say(
			j, 1,
			"%s delivered %lu of %lu %s; the rest did not come within %g s",
			r->device, r->received, r->expected, j->want->name,
			j->o->timeout);
	return inj_say(j, 1, "%s did not deliver %s within %g s", r->device,
		       j->want->name, j->o->timeout);
}

/* Each round: full SRQ, armed limit, 9 sends take it to 7 left. */
static int run_srq_limit(struct inj *j)
{
	const unsigned int sends = SRQ_WQES - SRQ_LIMIT + 1;

	if (inj_setup(j, NULL, SRQ_WQES) || inj_post_recvs(j, SRQ_WQES))
		return CMD_SAID;
	j->match_handle = j->srq->handle;
	for (unsigned long round = 1; round <= j->r->expected; round++) {
		struct ibv_srq_attr a = { .srq_limit = SRQ_LIMIT };
		int err;

		if (round > 1 && inj_post_recvs(j, sends))
			return CMD_SAID; /* back to full */
		err = ibv_modify_srq(j->srq, &a, IBV_SRQ_LIMIT);
		if (err)
			return inj_fail(j, "ibv_modify_srq(IBV_SRQ_LIMIT)",
					err);
		if (inj_post_sends(j, sends, false) || await(j, round))
			return CMD_SAID;
	}
	return 0;
}

/* The device broke the pair (hardware may, on overrun): new A and CQ. */
static int recreate_overflow_pair(struct inj *j, unsigned int depth)
{
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	int err;

	if (ibv_destroy_qp(j->a))
		return inj_fail(j, "ibv_destroy_qp", errno);
	j->a = NULL;
	if (ibv_destroy_cq(j->tiny))
		return inj_fail(j, "ibv_destroy_cq", errno);
	j->tiny = ibv_create_cq(j->ctx, 1, NULL, NULL, 0);
	if (!j->tiny)
		return inj_fail(j, "ibv_create_cq", errno);
	err = ibv_modify_qp(j->b, &reset, IBV_QP_STATE);
	if (err)
		return inj_fail(j, "ibv_modify_qp(RESET)", err);
	if (inj_make_qp(j, &j->a, j->tiny, depth, false) ||
	    inj_connect_qp(j, j->a, j->b->qp_num) ||
	    inj_connect_qp(j, j->b, j->a->qp_num))
		return CMD_SAID;
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
		return inj_fail(j, "ibv_create_cq", errno);
	cap = (unsigned int)j->tiny->cqe;
	batch = STORM_BATCH;
	if (j->max_qp_wr > 0 && cap + batch > (unsigned int)j->max_qp_wr)
		batch = (unsigned int)j->max_qp_wr > cap
				? (unsigned int)j->max_qp_wr - cap
				: 1;
	depth = cap + batch;
	if (inj_setup(j, j->tiny, depth))
		return CMD_SAID;
	j->match_handle = j->tiny->handle;

	while (r->received < r->expected) {
		unsigned long left = r->expected - r->received;
		unsigned int m = left < batch ? (unsigned int)left : batch;
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qia;
		struct ibv_wc wc[16];

		if (inj_post_sends(j, cap + m, true) ||
		    await(j, r->received + m))
			return CMD_SAID;
		/* Empty the CQ for the next round. */
		while (ibv_poll_cq(j->tiny, ARRAY_SIZE(wc), wc) > 0)
			;
		if (r->received < r->expected &&
		    (ibv_query_qp(j->a, &qa, IBV_QP_STATE, &qia) ||
		     qa.qp_state != IBV_QPS_RTS) &&
		    recreate_overflow_pair(j, depth))
			return CMD_SAID;
	}
	return 0;
}

/*
 * sq-drained: A with sends in flight goes RTS -> SQD, asking to be told
 * when drained. last-wqe: B, attached to the SRQ, goes to the error state.
 */
static int run_qp_state(struct inj *j)
{
	bool sqd = j->want->code == IBV_EVENT_SQ_DRAINED;
	struct ibv_qp_attr a = { .qp_state = sqd ? IBV_QPS_SQD : IBV_QPS_ERR,
				 .en_sqd_async_notify = sqd };
	struct ibv_qp *qp;
	int err;

	if (inj_setup(j, NULL, SRQ_WQES) || inj_post_recvs(j, SRQ_WQES) ||
	    (sqd && inj_post_sends(j, 4, false)))
		return CMD_SAID;
	qp = sqd ? j->a : j->b;
	j->by_qpn = true;
	j->match_qpn = qp->qp_num;
	err = ibv_modify_qp(
		qp, &a, IBV_QP_STATE | (sqd ? IBV_QP_EN_SQD_ASYNC_NOTIFY : 0));
	if (err)
		return inj_fail(
			j, sqd ? "ibv_modify_qp(SQD)" : "ibv_modify_qp(ERR)",
			err);
	return await(j, 1);
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

/* Our own context's async events, through a pipeline of its own. */
static int watch_own(struct inj *j)
{
	const char *dev = j->r->device;
	struct ibve_source_opts so = { .sz = sizeof(so),
				       .devices = &dev,
				       .ndevices = 1,
				       .context = j->ctx };
	int e = ibve_pipeline_new(&j->pl);

	if (!e)
		e = ibve_pipeline_add_source(j->pl, "devices", &so);
	if (!e)
		e = ibve_pipeline_start(j->pl);
	return e ? inj_fail(j, "watching the async events", -e) : 0;
}

int ibve_inject_run(const char *name, const struct ibve_inject_opts *o,
		    struct ibve_inject_report *r)
{
	static int (*const run[])(struct inj *) = {
		run_srq_limit,
		run_cq_overflow,
		run_qp_state,
		run_qp_state,
	};
	const struct ibve_scenario *s = ibve_scenario_lookup(name);
	struct inj j = { .o = o, .r = r };

	memset(r, 0, sizeof(*r));
	r->gid_index = -1;
	if (!s)
		return -EINVAL;
	r->scenario = s;
	r->expected = o->count ? o->count : 1;
	j.want = ibve_event_desc_lookup(s->expects);
	if (inj_open(&j) ||
	    (o->raw ? inj_nonblock(&j, j.ctx->async_fd) : watch_own(&j)))
		goto out;
	run[s - ibve_scenarios](&j);
	if (r->received) {
		r->seconds = us_between(&j.first_trigger, &j.last_event) / 1e6;
		r->rate = r->seconds > 0 ? (double)r->received / r->seconds : 0;
	}
out:
	teardown(&j);
	return r->status;
}
