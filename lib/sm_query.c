// SPDX-License-Identifier: MIT
/*
 * A port's peer asked of the subnet administrator and waited for: the two
 * Gets of the subnet source's lookup (sm_mad.c), sent in turn on an agent
 * of their own, for -l and --check, which list once and exit. Each Get is
 * tried three times, waiting 1, then 2, then 4 seconds for its answer.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dl_umad.h"
#include "ports.h"
#include "sm.h"

#define TRIES 3

struct query {
	int fd, agent;
	uint16_t sm_lid;
	uint8_t sm_sl;
	uint32_t tid;
};

/*
 * One Get of the lookup, into D: NodeRecord of LID (NODE), else LinkRecord
 * of LID, PORT. False, with OUT none and why, when it gave no record.
 */
static bool ask(struct query *q, bool node, uint16_t lid, uint8_t port,
		struct ibve_sm_mad *d, struct ibve_peer *out)
{
	uint8_t buf[sizeof(struct ib_user_mad) + IBVE_MAD_SIZE] = { 0 };
	uint8_t in[sizeof(struct ib_user_mad) + IBVE_MAD_SIZE];
	enum ibve_sm_mad_type want = node ? IBVE_SM_MAD_NODE_RESP
					  : IBVE_SM_MAD_LINK_RESP;
	char st[96];

	if (node)
		ibve_sm_node_encode(umad_get_mad(buf), ++q->tid, lid);
	else
		ibve_sm_link_encode(umad_get_mad(buf), ++q->tid, lid, port);
	for (int t = 0; t < TRIES; t++) {
		long wait = (long)IBVE_SA_TRY_MS << t;
		struct timespec end, now;

		umad_set_addr(buf, q->sm_lid, 1, q->sm_sl, IBVE_SA_QKEY);
		if (umad_send(q->fd, q->agent, buf, IBVE_MAD_SIZE, (int)wait,
			      0) < 0)
			goto none;
		clock_gettime(CLOCK_MONOTONIC, &end);
		ibve_ts_add_ms(&end, wait);
		for (;;) {
			int len = IBVE_MAD_SIZE, left, r;

			clock_gettime(CLOCK_MONOTONIC, &now);
			if (!ibve_ts_before(&now, &end))
				break;
			left = (int)(ibve_ts_secs(&now, &end) * 1000) + 1;
			memset(in, 0, sizeof(in));
			r = umad_recv(q->fd, in, &len, left);
			if (r == -ETIMEDOUT || r == -EINTR || r == -EAGAIN)
				continue;
			if (r < 0) /* would fail again at once: no spinning */
				goto none;
			if (umad_status(in)) /* the kernel gave up on it */
				break;
			if (!ibve_sm_mad_decode(umad_get_mad(in), (size_t)len,
						d) ||
			    d->what != want || (uint32_t)d->tid != q->tid)
				continue;
			if (!d->status)
				return true;
			ibve_sm_peer_none(out, ibve_sm_status_str(d->status, st,
								  sizeof(st)));
			return false;
		}
	}
none:
	ibve_sm_peer_none(out, "no answer from the SA");
	return false;
}

/* The peer of CA's port P (UP, as libibumad read it). */
static void lookup(const char *ca, const umad_port_t *up, struct ibve_peer *out)
{
	struct query q = { .fd = -1, .agent = -1 };
	struct ibve_sm_mad link, node;
	long mask[16 / sizeof(long)] = { 0 };

	if (up->state != 4 || !up->sm_lid) { /* 4: IB_PORT_ACTIVE */
		ibve_sm_peer_none(out,
				  up->state != 4 ? "port not active" : "no SM");
		return;
	}
	q.sm_lid = (uint16_t)up->sm_lid;
	q.sm_sl = (uint8_t)up->sm_sl;
	q.tid = (uint32_t)getpid() << 12;
	q.fd = umad_open_port(ca, up->portnum);
	if (q.fd >= 0)
		q.agent = umad_register(q.fd, IBVE_MAD_CLASS_SA, 2, 0, mask);
	if (q.fd < 0 || q.agent < 0)
		ibve_sm_peer_none(out, "cannot open the management device");
	else if (ask(&q, false, (uint16_t)up->base_lid, (uint8_t)up->portnum,
		     &link, out) &&
		 ask(&q, true, link.to_lid, 0, &node, out))
		ibve_sm_peer_from(out, &link, &node);
	if (q.agent >= 0)
		umad_unregister(q.fd, q.agent);
	if (q.fd >= 0)
		umad_close_port(q.fd);
}

/* A device libibumad knows and libibverbs did not list, from CA. */
static void from_umad(struct ibve_device_info *d, const umad_ca_t *ca)
{
	memset(d, 0, sizeof(*d));
	ibve_strcpy(d->name, ca->ca_name, sizeof(d->name));
	d->node_guid = be64toh(ca->node_guid);
	d->sys_image_guid = be64toh(ca->system_guid);
	d->node_type = (int)ca->node_type;
	ibve_strcpy(d->fw_ver, ca->fw_ver, sizeof(d->fw_ver));
	d->ports = calloc(ca->numports > 0 ? (size_t)ca->numports : 1,
			  sizeof(*d->ports));
	for (int i = 1; d->ports && i <= ca->numports && i < UMAD_CA_MAX_PORTS;
	     i++) {
		const umad_port_t *up = ca->ports[i];
		struct ibve_port_info *p = &d->ports[d->port_count];

		if (!up)
			continue;
		p->num = (uint32_t)i;
		p->state = (int)up->state;
		p->phys_state = (int)up->phys_state;
		p->link_layer = strcmp(up->link_layer, "Ethernet") == 0 ? 2 : 1;
		p->rate_gbps = up->rate;
		snprintf(p->rate, sizeof(p->rate), "%u Gb/sec", up->rate);
		p->lid = up->base_lid;
		p->sm_lid = up->sm_lid;
		p->lmc = (uint8_t)up->lmc;
		d->port_count++;
	}
}

IBVE_EXPORT int
ibve_device_list_peers(struct ibve_device_info **list, size_t count,
		       bool (*want)(const char *name, void *arg), void *arg)
{
	char names[32][UMAD_CA_NAME_LEN];
	int n, r = ibve_dl_load(&ibve_umad_dl);

	if (r)
		return r;
	if (umad_init() < 0)
		return ibve_error(ENOSYS, "no InfiniBand management devices "
					  "(is ib_umad loaded?)");
	n = umad_get_cas_names(names, 32);
	for (int c = 0; c < n; c++) {
		struct ibve_device_info *d = NULL;
		umad_ca_t ca;

		if (want && !want(names[c], arg))
			continue;
		for (size_t i = 0; i < count && !d; i++)
			if (strcmp((*list)[i].name, names[c]) == 0)
				d = &(*list)[i];
		if (umad_get_ca(names[c], &ca) < 0)
			continue;
		if (!d) { /* a simulator's, or one libibverbs cannot open */
			d = realloc(*list, (count + 1) * sizeof(**list));
			if (!d) {
				umad_release_ca(&ca);
				return ibve_error(ENOMEM, "out of memory");
			}
			*list = d;
			d = &d[count++];
			from_umad(d, &ca);
		}
		for (size_t i = 0; i < d->port_count; i++) {
			struct ibve_port_info *p = &d->ports[i];
			const umad_port_t *up = p->num < UMAD_CA_MAX_PORTS
							? ca.ports[p->num]
							: NULL;

			if (up && (strcmp(up->link_layer, "InfiniBand") == 0 ||
				   strcmp(up->link_layer, "IB") == 0))
				lookup(names[c], up, &p->peer);
		}
		umad_release_ca(&ca);
	}
	return (int)count;
}

IBVE_EXPORT int ibve_ports_lookup_peers(struct ibve_ports *t)
{
	int r = ibve_dl_load(&ibve_umad_dl);

	if (r)
		return r;
	if (umad_init() < 0)
		return ibve_error(ENOSYS, "no InfiniBand management devices "
					  "(is ib_umad loaded?)");
	for (size_t i = 0; i < t->nrows; i++) {
		struct ibve_port_row *p = &t->rows[i].pub;
		umad_port_t up;

		if (!p->port || umad_get_port(p->device, (int)p->port, &up) < 0)
			continue;
		if (strcmp(up.link_layer, "InfiniBand") == 0 ||
		    strcmp(up.link_layer, "IB") == 0)
			lookup(p->device, &up, &p->peer);
		umad_release_port(&up);
	}
	return 0;
}
