// SPDX-License-Identifier: MIT
/* Devices and ports as libibverbs reports them. */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#include "buf.h"
#include "host.h"
#include "providers.h"

static const char *const port_states[] = {
	"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
};
static const char *const phys_states[] = {
	NULL,
	"Sleep",
	"Polling",
	"Disabled",
	"PortConfigurationTraining",
	"LinkUp",
	"LinkErrorRecovery",
	"PhyTest",
};
static const char *const link_layers[] = { "unspecified", "InfiniBand",
					   "Ethernet" };
static const char *const node_types[] = {
	NULL,	"CA",	 "switch",    "router",
	"RNIC", "usNIC", "usNIC UDP", "unspecified",
};
static const char *const transports[] = { "InfiniBand", "iWARP", "usNIC",
					  "usNIC UDP", "unspecified" };
static const char *const gid_types[] = {
	[IBV_GID_TYPE_IB] = "IB",
	[IBV_GID_TYPE_ROCE_V1] = "RoCE v1",
	[IBV_GID_TYPE_ROCE_V2] = "RoCE v2",
};

static const char *lookup(const char *const *v, size_t n, int i)
{
	return i >= 0 && (size_t)i < n && v[i] ? v[i] : "unknown";
}

IBVE_EXPORT const char *ibve_port_state_name(int state)
{
	return lookup(port_states, ARRAY_SIZE(port_states), state);
}

IBVE_EXPORT const char *ibve_port_phys_state_name(int phys_state)
{
	return lookup(phys_states, ARRAY_SIZE(phys_states), phys_state);
}

IBVE_EXPORT const char *ibve_link_layer_name(int link_layer)
{
	return lookup(link_layers, ARRAY_SIZE(link_layers), link_layer);
}

IBVE_EXPORT const char *ibve_node_type_name(int node_type)
{
	return lookup(node_types, ARRAY_SIZE(node_types), node_type);
}

IBVE_EXPORT const char *ibve_transport_name(int transport_type)
{
	return lookup(transports, ARRAY_SIZE(transports), transport_type);
}

/* IBTA active_width and active_speed encodings. */
static void port_rate(struct ibve_port_info *p, uint8_t width, uint8_t speed)
{
	static const struct {
		uint8_t code, lanes;
		const char *name;
	} widths[] = { { 1, 1, "1X" },
		       { 2, 4, "4X" },
		       { 4, 8, "8X" },
		       { 8, 12, "12X" },
		       { 16, 2, "2X" } };
	static const struct {
		uint8_t code;
		double gbps;
		const char *name;
	} speeds[] = { { 1, 2.5, "SDR" }, { 2, 5, "DDR" },
		       { 4, 10, "QDR" },  { 8, 10, "FDR10" },
		       { 16, 14, "FDR" }, { 32, 25, "EDR" },
		       { 64, 50, "HDR" }, { 128, 100, "NDR" } };
	const char *wn = NULL, *sn = NULL;
	unsigned int lanes = 0;
	double g = 0;

	for (size_t i = 0; i < ARRAY_SIZE(widths); i++)
		if (widths[i].code == width) {
			lanes = widths[i].lanes;
			wn = widths[i].name;
		}
	for (size_t i = 0; i < ARRAY_SIZE(speeds); i++)
		if (speeds[i].code == speed) {
			g = speeds[i].gbps;
			sn = speeds[i].name;
		}
	if (!wn || !sn) {
		snprintf(p->rate, sizeof(p->rate),
			 "unknown (width %u speed %u)", width, speed);
		return;
	}
	p->rate_gbps = g * lanes;
	snprintf(p->rate, sizeof(p->rate), "%g Gb/sec (%s %s)", p->rate_gbps,
		 wn, sn);
}

static void query_gids(struct ibv_context *ctx, struct ibve_device_info *d)
{
	size_t max = 0;
	struct ibv_gid_entry *e;
	ssize_t n;

	for (size_t i = 0; i < d->port_count; i++)
		max += d->ports[i].gid_tbl_len;
	if (!max)
		return;
	e = calloc(max, sizeof(*e));
	if (!e)
		return;
	n = ibv_query_gid_table(ctx, e, max, 0);
	for (size_t p = 0; n > 0 && p < d->port_count; p++) {
		struct ibve_port_info *pi = &d->ports[p];

		pi->gids = calloc(pi->gid_tbl_len ? pi->gid_tbl_len : 1,
				  sizeof(*pi->gids));
		if (!pi->gids)
			break;
		for (ssize_t i = 0; i < n; i++) {
			struct ibve_gid *g;

			if (e[i].port_num != pi->num ||
			    pi->gid_count >= pi->gid_tbl_len)
				continue;
			g = &pi->gids[pi->gid_count++];
			memcpy(g->raw, e[i].gid.raw, sizeof(g->raw));
			g->index = e[i].gid_index;
			ibve_strcpy(g->type,
				    lookup(gid_types, ARRAY_SIZE(gid_types),
					   (int)e[i].gid_type),
				    sizeof(g->type));
			if (e[i].ndev_ifindex &&
			    if_indextoname(e[i].ndev_ifindex, g->netdev) &&
			    !pi->netdev[0])
				ibve_strcpy(pi->netdev, g->netdev,
					    sizeof(pi->netdev));
		}
	}
	free(e);
}

static void query_device(struct ibv_device *dev, struct ibve_device_info *d)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx;

	ibve_strcpy(d->name, ibv_get_device_name(dev), sizeof(d->name));
	ibve_strcpy(d->chardev, dev->dev_name, sizeof(d->chardev));
	d->node_guid = be64toh(ibv_get_device_guid(dev));
	d->node_type = dev->node_type;
	d->transport_type = dev->transport_type;

	ctx = ibv_open_device(dev);
	if (!ctx) {
		d->error = errno ? errno : EIO;
		return;
	}
	if (ibv_query_device(ctx, &attr)) {
		d->error = errno ? errno : EIO;
		goto out;
	}
	ibve_strcpy(d->fw_ver, attr.fw_ver, sizeof(d->fw_ver));
	d->sys_image_guid = be64toh(attr.sys_image_guid);
	d->vendor_id = attr.vendor_id;
	d->vendor_part_id = attr.vendor_part_id;
	d->hw_ver = attr.hw_ver;
	d->ports = calloc(attr.phys_port_cnt ? attr.phys_port_cnt : 1,
			  sizeof(*d->ports));
	if (!d->ports) {
		d->error = ENOMEM;
		goto out;
	}
	for (uint8_t p = 1; p <= attr.phys_port_cnt; p++) {
		struct ibve_port_info *pi = &d->ports[d->port_count];
		struct ibv_port_attr pa;

		if (ibv_query_port(ctx, p, &pa))
			continue;
		pi->num = p;
		pi->state = pa.state;
		pi->phys_state = pa.phys_state;
		pi->link_layer = pa.link_layer;
		pi->lid = pa.lid;
		pi->sm_lid = pa.sm_lid;
		pi->lmc = pa.lmc;
		pi->pkey_tbl_len = pa.pkey_tbl_len;
		pi->gid_tbl_len = (uint32_t)pa.gid_tbl_len;
		port_rate(pi, pa.active_width, pa.active_speed);
		d->port_count++;
	}
	query_gids(ctx, d);
out:
	ibv_close_device(ctx);
}

IBVE_EXPORT int ibve_device_unknown(const char *name)
{
	struct dirent **v = NULL;
	int n = scandir("/sys/class/infiniband", &v, NULL, alphasort);
	char have[400] = "none"; /* or every name, cut short at the end */
	struct ibve_buf b = { have, sizeof(have), 0 };

	for (int i = 0; i < n; i++) {
		if (v[i]->d_name[0] != '.')
			ibve_buf_printf(&b, "%s%s", b.len ? ", " : "",
					v[i]->d_name);
		free(v[i]);
	}
	free(v);
	return ibve_error(ENODEV,
			  "device '%s': no such RDMA device (there are %s)",
			  name, have);
}

IBVE_EXPORT int ibve_device_list_get(struct ibve_device_info **out)
{
	return ibve_device_list_select(out, NULL, NULL);
}

IBVE_EXPORT int
ibve_device_list_select(struct ibve_device_info **out,
			bool (*want)(const char *name, void *arg), void *arg)
{
	struct ibv_device **list;
	struct ibve_device_info *v;
	int n, k = 0;

	*out = NULL;
	errno = 0;
	list = ibve_get_device_list(&n);
	if (!list)
		return ibve_device_list_error(errno ? -errno : -ENOSYS);
	v = calloc(n ? (size_t)n : 1, sizeof(*v));
	if (!v) {
		ibv_free_device_list(list);
		return ibve_error(ENOMEM, "out of memory");
	}
	for (int i = 0; i < n; i++)
		if (!want || want(ibv_get_device_name(list[i]), arg))
			query_device(list[i], &v[k++]);
	ibv_free_device_list(list);
	*out = v;
	return k;
}

IBVE_EXPORT void ibve_device_list_free(struct ibve_device_info *list,
				       size_t count)
{
	if (!list)
		return;
	for (size_t i = 0; i < count; i++) {
		for (size_t p = 0; p < list[i].port_count; p++)
			free(list[i].ports[p].gids);
		free(list[i].ports);
	}
	free(list);
}

static void put_gid_text(struct ibve_buf *b, const uint8_t *raw)
{
	for (int i = 0; i < 16; i += 2)
		ibve_buf_printf(b, "%s%02x%02x", i ? ":" : "", raw[i],
				raw[i + 1]);
}

static void device_text(struct ibve_buf *b, const struct ibve_device_info *d,
			uint32_t port)
{
	char guid[32], peer[160];

	ibve_buf_text_str(b, d->name);
	ibve_buf_puts(b, "  ");
	ibve_buf_text_str(b, d->chardev);
	ibve_guid_format(d->node_guid, guid, sizeof(guid));
	ibve_buf_printf(b, "  node_guid %s  %s  %s", guid,
			ibve_node_type_name(d->node_type),
			ibve_transport_name(d->transport_type));
	if (d->error) {
		ibve_buf_printf(b, "  error: %s\n", strerror(d->error));
		return;
	}
	ibve_buf_puts(b, "  fw ");
	ibve_buf_text_str(b, d->fw_ver[0] ? d->fw_ver : "-");
	ibve_buf_putc(b, '\n');
	for (size_t i = 0; i < d->port_count; i++) {
		const struct ibve_port_info *p = &d->ports[i];

		if (port && p->num != port)
			continue;
		ibve_buf_printf(
			b, "    port %u  %s  %s  %s  %s  lid %u  sm_lid %u",
			p->num, ibve_port_state_name(p->state),
			ibve_port_phys_state_name(p->phys_state),
			ibve_link_layer_name(p->link_layer), p->rate, p->lid,
			p->sm_lid);
		ibve_peer_format(&p->peer, peer, sizeof(peer));
		ibve_buf_puts(b, "  peer ");
		ibve_buf_text_str(b, peer);
		if (p->netdev[0]) {
			ibve_buf_puts(b, "  netdev ");
			ibve_buf_text_str(b, p->netdev);
		}
		ibve_buf_putc(b, '\n');
		for (size_t g = 0; g < p->gid_count; g++) {
			ibve_buf_printf(b, "        gid %-3u ",
					p->gids[g].index);
			put_gid_text(b, p->gids[g].raw);
			ibve_buf_printf(b, "  %s", p->gids[g].type);
			if (p->gids[g].netdev[0]) {
				ibve_buf_puts(b, "  ");
				ibve_buf_text_str(b, p->gids[g].netdev);
			}
			ibve_buf_putc(b, '\n');
		}
	}
}

static void device_json(struct ibve_buf *b, const struct ibve_device_info *d,
			uint32_t port)
{
	char guid[32];
	bool first = true;
	struct ibve_json j;

	ibve_buf_puts(b, "{\"device\":");
	ibve_buf_json_str(b, d->name);
	ibve_buf_puts(b, ",\"chardev\":");
	ibve_buf_json_str(b, d->chardev);
	ibve_guid_format(d->node_guid, guid, sizeof(guid));
	ibve_buf_printf(
		b,
		",\"node_guid\":\"%s\",\"node_type\":\"%s\",\"transport\":\"%s\"",
		guid, ibve_node_type_name(d->node_type),
		ibve_transport_name(d->transport_type));
	if (d->error) {
		ibve_buf_puts(b, ",\"error\":");
		ibve_buf_json_str(b, strerror(d->error));
		ibve_buf_puts(b, "}\n");
		return;
	}
	ibve_guid_format(d->sys_image_guid, guid, sizeof(guid));
	ibve_buf_printf(b, ",\"sys_image_guid\":\"%s\",\"fw_ver\":", guid);
	ibve_buf_json_str(b, d->fw_ver);
	ibve_buf_printf(
		b,
		",\"vendor_id\":%u,\"vendor_part_id\":%u,\"hw_ver\":%u,\"ports\":[",
		d->vendor_id, d->vendor_part_id, d->hw_ver);
	for (size_t i = 0; i < d->port_count; i++) {
		const struct ibve_port_info *p = &d->ports[i];

		if (port && p->num != port)
			continue;
		ibve_buf_printf(
			b,
			"%s{\"port\":%u,\"state\":\"%s\",\"phys_state\":\"%s\",\"link_layer\":\"%s\",\"rate\":\"%s\",\"rate_gbps\":%g,\"lid\":%u,\"sm_lid\":%u,\"lmc\":%u,\"pkey_tbl_len\":%u,\"gid_tbl_len\":%u",
			first ? "" : ",", p->num,
			ibve_port_state_name(p->state),
			ibve_port_phys_state_name(p->phys_state),
			ibve_link_layer_name(p->link_layer), p->rate,
			p->rate_gbps, p->lid, p->sm_lid, p->lmc,
			p->pkey_tbl_len, p->gid_tbl_len);
		first = false;
		ibve_json_init(&j, b);
		j.first[0] = false; /* after the members above */
		ibve_json_str_or_null(&j, "netdev", p->netdev);
		ibve_json_peer(&j, "peer", &p->peer);
		ibve_buf_puts(b, ",\"gids\":[");
		for (size_t g = 0; g < p->gid_count; g++) {
			ibve_buf_printf(b, "%s{\"index\":%u,\"gid\":\"",
					g ? "," : "", p->gids[g].index);
			put_gid_text(b, p->gids[g].raw);
			ibve_buf_printf(b, "\",\"type\":\"%s\"",
					p->gids[g].type);
			ibve_json_str_or_null(&j, "netdev", p->gids[g].netdev);
			ibve_buf_putc(b, '}');
		}
		ibve_buf_puts(b, "]}");
	}
	ibve_buf_puts(b, "]}\n");
}

IBVE_EXPORT int ibve_device_print(FILE *f, const struct ibve_device_info *d,
				  uint32_t port, bool json)
{
	struct ibve_buf b = { NULL, 0, 0 };
	size_t need;
	int r = 0;

	/* Measure, then fill: one write per device. */
	(json ? device_json : device_text)(&b, d, port);
	need = b.len + 1;
	b = (struct ibve_buf){ malloc(need), need, 0 };
	if (!b.p)
		return ibve_error(ENOMEM, "out of memory");
	(json ? device_json : device_text)(&b, d, port);
	if (fwrite(b.p, 1, b.len, f) != b.len)
		r = errno ? -errno : -EIO;
	if (r)
		ibve_error(r, "write: %s", strerror(-r));
	free(b.p);
	return r;
}

int ibve_names_copy(struct ibve_names *names, const struct ibve_source_opts *o)
{
	names->v = calloc(o->ndevices + 1, sizeof(*names->v));
	if (!names->v)
		return ibve_error(ENOMEM, "out of memory");
	for (size_t i = 0; i < o->ndevices; i++)
		ibve_strcpy(names->v[names->n++], o->devices[i], IBVE_NAME_MAX);
	return 0;
}

bool ibve_names_want(const struct ibve_names *names, const struct ibve_host *h,
		     const char *device)
{
	if (h->excluded(h->ctx, device))
		return false;
	for (size_t i = 0; i < names->n; i++)
		if (strcmp(names->v[i], device) == 0)
			return true;
	return !names->n;
}
