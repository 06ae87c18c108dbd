// SPDX-License-Identifier: MIT
/*
 * Every record of the stored captures is one the live code could have
 * written: each is rebuilt from its raw facts (event number and the union
 * member of its class, the mlx5 entry, the SA notice, the hot-plug
 * message, a netdev's flags and the firmware's reply) by the same decoder the live sources use, and written again;
 * it must come out as the capture's own line, read and written.
 *
 * A name this version does not know (a capture from a newer version) has
 * no decoder here: such records are only read and written back.
 */
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#include "devices.h"
#include "hotplug.h"
#include "kernel.h"
#include "mlx5.h"
#include "netdev.h"
#include "sm.h"
#include "tap.h"

static const char *const captures[] = {
	"test/captures/ib-fabric.jsonl",
	"test/captures/mlx5.jsonl",
	"test/captures/sm.jsonl",
	"test/captures/hotplug.jsonl",
	"test/captures/kernel.jsonl",
	"test/captures/netdev.jsonl",
	"test/captures/fleet-node1.jsonl",
	"test/captures/fleet-node2.jsonl",
	"test/captures/fleet-node3.jsonl",
	"test/captures/fleet-node3-reboot.jsonl",
};

/* The record the verbs source makes of R's raw facts. */
static void rebuild_verbs(const struct ibve_event *r, struct ibve_event *l)
{
	struct ibv_async_event ae = { .event_type =
					      (enum ibv_event_type)r->code };
	struct ibv_qp qp = { .qp_num = r->qp_num, .handle = r->handle };
	struct ibv_cq cq = { .handle = r->handle };
	struct ibv_srq srq = { .handle = r->handle };
	struct ibv_wq wq = { .wq_num = r->wq_num, .handle = r->handle };
	const struct ibve_event_desc *d =
		ibve_event_desc_find(IBVE_SOURCE_VERBS, r->code);
	bool has_object = r->fields & IBVE_FIELD_HANDLE;

	/* The union member of the event's class, as the kernel fills it. */
	switch (d ? d->cls : IBVE_CLASS_UNKNOWN) {
	case IBVE_CLASS_PORT:
		ae.element.port_num = (int)r->port;
		break;
	case IBVE_CLASS_QP:
		ae.element.qp = has_object ? &qp : NULL;
		break;
	case IBVE_CLASS_CQ:
		ae.element.cq = has_object ? &cq : NULL;
		break;
	case IBVE_CLASS_SRQ:
		ae.element.srq = has_object ? &srq : NULL;
		break;
	case IBVE_CLASS_WQ:
		ae.element.wq = has_object ? &wq : NULL;
		break;
	default:
		/* a device event, or a number this version does not know:
		 * whatever the union held, the decoder reads none of it */
		ae.element.port_num = (int)r->port;
		break;
	}
	ibve_event_from_verbs(l, &ae, r->device, r->node_guid);
	l->time = r->time;
	/* what the source adds from the ports it keeps track of */
	if (r->fields & IBVE_FIELD_RATES) {
		char old[IBVE_RATES_MAX * 4][28] = { { 0 } };
		char now[IBVE_RATES_MAX * 4][28] = { { 0 } };
		uint32_t n = 0;

		for (uint32_t i = 0; i < r->verbs.nrates; i++) {
			const struct ibve_rate_change *c = &r->verbs.rates[i];

			if (c->port > IBVE_RATES_MAX * 4)
				continue;
			memcpy(old[c->port - 1], c->old_rate, sizeof(old[0]));
			memcpy(now[c->port - 1], c->new_rate, sizeof(now[0]));
			n = c->port > n ? c->port : n;
		}
		ibve_rates_diff(l, old, now, n);
	}
	if (r->fields & IBVE_FIELD_DOWN) {
		struct timespec at = r->time;
		uint64_t us = r->verbs.down_us;

		at.tv_sec -= (time_t)(us / 1000000);
		at.tv_nsec -= (long)(us % 1000000) * 1000;
		if (at.tv_nsec < 0) {
			at.tv_nsec += 1000000000;
			at.tv_sec--;
		}
		ibve_event_set_down(l, &at);
	}
}

static void rebuild_mlx5(const struct ibve_event *r, struct ibve_event *l)
{
	memset(l, 0, sizeof(*l));
	ibve_strcpy(l->device, r->device, sizeof(l->device));
	l->node_guid = r->node_guid;
	if (r->fields & IBVE_FIELD_MLX5)
		ibve_mlx5_decode(l, r->mlx5.eqe, sizeof(r->mlx5.eqe));
	else
		ibve_mlx5_event_lost(l, r->lost);
}

static void rebuild_sm(const struct ibve_event *r, struct ibve_event *l)
{
	struct ibve_sm_mad mad = {
		.what = IBVE_SM_MAD_REPORT,
		.trap = (uint16_t)r->code,
		.producer = r->sm.producer_type,
		.issuer_lid = r->sm.issuer_lid,
	};

	memcpy(mad.gid, r->sm.gid, sizeof(mad.gid));
	ibve_sm_event_from_report(l, &mad, r->device, r->node_guid, r->port);
}

static void rebuild_hotplug(const struct ibve_event *r, struct ibve_event *l)
{
	memset(l, 0, sizeof(*l));
	if (r->code == IBVE_HOTPLUG_NETDEV_ATTACH ||
	    r->code == IBVE_HOTPLUG_NETDEV_DETACH)
		ibve_hp_event_netdev(l, r->device, r->node_guid, r->port,
				     r->netdev_index, r->netdev,
				     r->code == IBVE_HOTPLUG_NETDEV_ATTACH);
	else
		ibve_hp_event_device(l, r->device, r->node_guid, r->chardev,
				     r->code);
}

/*
 * The record the kernel source makes of what its BPF program saw: the
 * hook of the event's class and the object's facts. The cgroup path and
 * the cause before it come from the source's state, not the program.
 */
static void rebuild_kernel(const struct ibve_event *r, struct ibve_event *l)
{
	static const enum ibve_khook hook[] = {
		[IBVE_CLASS_QP] = IBVE_KHOOK_CORE_QP,
		[IBVE_CLASS_CQ] = IBVE_KHOOK_CQ,
		[IBVE_CLASS_SRQ] = IBVE_KHOOK_SRQ,
		[IBVE_CLASS_WQ] = IBVE_KHOOK_WQ,
	};
	struct ibve_kevent k = { .event = (__u32)r->code,
				 .port = r->port,
				 .handle = r->handle,
				 .tgid = r->kernel.pid,
				 .qp_type = r->kernel.qp_type };

	ibve_strcpy(k.device, r->device, sizeof(k.device));
	if (r->cls < ARRAY_SIZE(hook))
		k.hook = hook[r->cls];
	k.num = r->cls == IBVE_CLASS_WQ ? r->wq_num : r->qp_num;
	if (r->fields & (IBVE_FIELD_QP_NUM | IBVE_FIELD_WQ_NUM))
		k.flags |= IBVE_KF_NUM;
	if (r->fields & IBVE_FIELD_QP_TYPE)
		k.flags |= IBVE_KF_QP_TYPE;
	if (r->fields & IBVE_FIELD_HANDLE)
		k.flags |= IBVE_KF_HANDLE;
	if (r->fields & IBVE_FIELD_OWNER) {
		k.flags |= IBVE_KF_OWNER;
		ibve_strcpy(k.comm, r->kernel.comm, sizeof(k.comm));
	}
	ibve_strcpy(k.kern, r->kernel.consumer, sizeof(k.kern));
	memset(l, 0, sizeof(*l));
	if (r->code == IBVE_KERNEL_EVENTS_LOST) {
		ibve_kevent_lost(l, r->device, r->node_guid, r->lost);
		return;
	}
	ibve_kevent_record(l, &k, r->node_guid);
	memcpy(l->kernel.cgroup, r->kernel.cgroup, sizeof(l->kernel.cgroup));
	memcpy(l->kernel.after, r->kernel.after, sizeof(l->kernel.after));
	l->kernel.after_port = r->kernel.after_port;
	l->kernel.after_us = r->kernel.after_us;
	l->fields |= r->fields & IBVE_FIELD_AFTER;
}

/* The netdev source's record of a link's flags and the firmware's reply. */
static void rebuild_netdev(const struct ibve_event *r, struct ibve_event *l)
{
	const struct ibve_nd_fields *f = (const void *)r->area;
	struct ibve_nd_link k = { .index = r->netdev_index,
				  .flags = f->ifflags };

	memset(l, 0, sizeof(*l));
	ibve_strcpy(k.name, r->netdev, sizeof(k.name));
	ibve_nd_record(l, r->device, r->node_guid, r->port, &k, r->code,
		       f->reply, r->fields & IBVE_FIELD_LINKSTATE ? f->len : 0);
}

static void check_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, a[4096], b[4096];
	size_t cap = 0;
	ssize_t len;
	unsigned long n = 0;

	if (!ok(f != NULL, "%s opens", path))
		return;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct ibve_event r, l;
		int rc;

		n++;
		rc = ibve_event_parse_json(line, (size_t)len, &r);
		if (!ok(rc == 0, "%s:%lu reads", path, n)) {
			printf("#   %s\n", ibve_errmsg());
			continue;
		}
		ibve_event_format_json(&r, a, sizeof(a));
		if (!r.desc && strncmp(r.name, "UNKNOWN(", 8) != 0) {
			ok(true, "%s:%lu %s: a newer version's name", path, n,
			   r.name);
			continue;
		}
		switch (r.source) {
		case IBVE_SOURCE_VERBS:
			rebuild_verbs(&r, &l);
			break;
		case IBVE_SOURCE_MLX5:
			rebuild_mlx5(&r, &l);
			break;
		case IBVE_SOURCE_SM:
			rebuild_sm(&r, &l);
			break;
		case IBVE_SOURCE_HOTPLUG:
			rebuild_hotplug(&r, &l);
			break;
		case IBVE_SOURCE_KERNEL:
			rebuild_kernel(&r, &l);
			break;
		case IBVE_SOURCE_NETDEV:
			rebuild_netdev(&r, &l);
			break;
		default:
			ok(false, "%s:%lu: no decoder for source %s", path, n,
			   ibve_source_name(r.source));
			continue;
		}
		l.time = r.time;
		ibve_event_format_json(&l, b, sizeof(b));
		is_str(b, a, "%s:%lu %s is what the %s source writes", path, n,
		       r.name, ibve_source_name(r.source));
	}
	free(line);
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		for (int i = 1; i < argc; i++)
			check_file(argv[i]);
	else
		for (size_t i = 0; i < ARRAY_SIZE(captures); i++)
			check_file(captures[i]);
	return done_testing();
}
