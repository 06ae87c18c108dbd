// SPDX-License-Identifier: MIT
/*
 * The injector's objects (inject.h): the device and port, RoCE's GID, the
 * protection domain, memory, CQs, SRQ and the RC pair A -> B on our own
 * port, and the traffic that drives them.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

#define BIG_CQ 4096 /* completions we drain */
#define MSG    64   /* bytes per message */

int inj_say(struct inj *j, int status, const char *fmt, ...)
{
	va_list ap;

	j->r->status = status;
	va_start(ap, fmt);
	vsnprintf(j->r->error, sizeof(j->r->error), fmt, ap);
	va_end(ap);
	return CMD_SAID;
}

int inj_fail(struct inj *j, const char *verb, int err)
{
	return inj_say(j, 3, "%s: %s", verb, strerror(err ? err : EIO));
}

int inj_nonblock(struct inj *j, int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		return inj_fail(j, "fcntl", errno);
	return 0;
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
	if (j->pattr.state != IBV_PORT_ACTIVE)
		return inj_say(j, 3, "%s port %u is %s, not ACTIVE", r->device,
			       r->port, ibve_port_state_name(j->pattr.state));
	if (j->pattr.link_layer != IBV_LINK_LAYER_ETHERNET) {
		r->gid_index = -1;
		if (!j->pattr.lid)
			return inj_say(
				j, 3,
				"%s port %u has no LID (is a subnet manager running?)",
				r->device, r->port);
		return 0;
	}
	n = ibv_query_gid_table(j->ctx, e, ARRAY_SIZE(e), 0);
	if (n < 0)
		return inj_fail(j, "ibv_query_gid_table", (int)-n);
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
	if (best < 0 && j->o->gid_index >= 0)
		return inj_say(j, 3, "%s port %u: no valid GID at index %d",
			       r->device, r->port, j->o->gid_index);
	if (best < 0)
		return inj_say(j, 3, "%s port %u has no valid GID", r->device,
			       r->port);
	r->gid_index = (int)e[best].gid_index;
	memcpy(j->gid.raw, e[best].gid.raw, sizeof(j->gid.raw));
	return 0;
}

int inj_open(struct inj *j)
{
	struct ibv_device **list;
	const char *want = j->o->device;
	int n, err = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return inj_say(
			j, 3, "%s",
			errno == ENOSYS
				? "no RDMA devices found: the kernel offers no RDMA "
				  "to user space (is ib_uverbs loaded?)"
				: strerror(errno));
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
		for (p = 1; p <= da.phys_port_cnt; p++)
			if ((!j->o->port || p == j->o->port) &&
			    !ibv_query_port(ctx, (uint8_t)p, &j->pattr) &&
			    (j->o->port || j->pattr.state == IBV_PORT_ACTIVE))
				break;
		if (j->o->port && j->o->port > da.phys_port_cnt) {
			inj_say(j, 3, "%s: no port %u (it has %u)",
				ibv_get_device_name(list[i]), j->o->port,
				da.phys_port_cnt);
			ibv_close_device(ctx);
			ibv_free_device_list(list);
			return CMD_SAID;
		}
		if (p > da.phys_port_cnt) {
			ibv_close_device(ctx);
			continue;
		}
		j->ctx = ctx;
		j->r->port = p;
		j->max_qp_wr = da.max_qp_wr;
		snprintf(j->r->device, sizeof(j->r->device), "%s",
			 ibv_get_device_name(list[i]));
		j->r->node_guid = be64toh(ibv_get_device_guid(list[i]));
	}
	ibv_free_device_list(list);
	if (j->ctx)
		return choose_gid(j);
	if (want && err)
		return inj_say(j, 3, "%s: %s", want, strerror(err));
	if (want) {
		ibve_device_unknown(want);
		return inj_say(j, 3, "%s", ibve_errmsg());
	}
	return inj_say(j, 3, "no RDMA device with an ACTIVE port");
}

int inj_make_qp(struct inj *j, struct ibv_qp **qp, struct ibv_cq *scq,
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
	return *qp ? 0 : inj_fail(j, "ibv_create_qp", errno);
}

int inj_connect_qp(struct inj *j, struct ibv_qp *qp, uint32_t remote)
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
		return inj_fail(j, "ibv_modify_qp(INIT)", err);

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
		return inj_fail(j, "ibv_modify_qp(RTR)", err);

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
	return err ? inj_fail(j, "ibv_modify_qp(RTS)", err) : 0;
}

int inj_setup(struct inj *j, struct ibv_cq *a_send_cq, uint32_t a_depth)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = SRQ_WQES,
						  .max_sge = 1 } };

	j->pd = ibv_alloc_pd(j->ctx);
	if (!j->pd)
		return inj_fail(j, "ibv_alloc_pd", errno);
	j->buf = calloc(SRQ_WQES + 1, MSG);
	if (!j->buf)
		return inj_fail(j, "malloc", ENOMEM);
	j->mr = ibv_reg_mr(j->pd, j->buf, (SRQ_WQES + 1) * MSG,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!j->mr)
		return inj_fail(j, "ibv_reg_mr", errno);
	j->ch = ibv_create_comp_channel(j->ctx);
	if (!j->ch)
		return inj_fail(j, "ibv_create_comp_channel", errno);
	if (inj_nonblock(j, j->ch->fd))
		return CMD_SAID;
	j->cq = ibv_create_cq(j->ctx, BIG_CQ, NULL, j->ch, 0);
	if (!j->cq)
		return inj_fail(j, "ibv_create_cq", errno);
	if (ibv_req_notify_cq(j->cq, 0))
		return inj_fail(j, "ibv_req_notify_cq", errno);
	j->srq = ibv_create_srq(j->pd, &sa);
	if (!j->srq)
		return inj_fail(j, "ibv_create_srq", errno);
	if (inj_make_qp(j, &j->a, a_send_cq ? a_send_cq : j->cq, a_depth,
			false) ||
	    inj_make_qp(j, &j->b, j->cq, 1, true) ||
	    inj_connect_qp(j, j->a, j->b->qp_num) ||
	    inj_connect_qp(j, j->b, j->a->qp_num))
		return CMD_SAID;
	return 0;
}

int inj_post_recvs(struct inj *j, unsigned int n)
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
			return inj_fail(j, "ibv_post_srq_recv", err);
	}
	return 0;
}

int inj_post_sends(struct inj *j, unsigned int n, bool write)
{
	struct ibv_send_wr *wr = calloc(n, sizeof(*wr)), *bad;
	struct ibv_sge sge = { (uintptr_t)j->buf, write ? 1 : MSG,
			       j->mr->lkey };
	int err;

	if (!wr)
		return inj_fail(j, "malloc", ENOMEM);
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
	return err ? inj_fail(j,
			      write ? "ibv_post_send(RDMA_WRITE)"
				    : "ibv_post_send(SEND)",
			      err)
		   : 0;
}
