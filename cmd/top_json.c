// SPDX-License-Identifier: MIT
/* The dashboard's batch JSON: one object with every row shown. */
#include <stdio.h>

#include "buf.h"
#include "top.h"

static void json_row(struct ibve_json *j, const struct ibve_port_row *p)
{
	char tmp[64];

	ibve_json_open(j, NULL);
	ibve_json_str(j, "device", p->device);
	ibve_json_uint_or_null(j, "port", p->port);
	ibve_json_str(j, "state", p->state);
	ibve_json_str(j, "phys_state", p->phys_state);
	ibve_json_str(j, "link_layer", p->link_layer);
	ibve_json_str(j, "rate", p->rate);
	ibve_json_str(j, "address", p->address);
	if (p->peer.state == IBVE_PEER_KNOWN)
		ibve_json_peer(j, "peer", &p->peer);
	else
		ibve_json_null(j, "peer");
	ibve_json_open(j, "counts");
	for (unsigned int k = 0; ibve_kind_info(k); k++)
		ibve_json_uint(j, ibve_kind_info(k)->name, p->counts[k]);
	ibve_json_close(j);
	if (p->since.tv_sec || p->since.tv_nsec) {
		ibve_time_format(&p->since, tmp, sizeof(tmp));
		ibve_json_str(j, "since", tmp);
	} else {
		ibve_json_null(j, "since");
	}
	ibve_json_bool(j, "since_start", p->since_start);
	ibve_json_double(j, "last_down", "%.3f", p->last_down);
	ibve_json_uint(j, "flaps", p->flaps);
	ibve_json_uint(j, "flaps_window", p->flaps_window);
	ibve_json_str_or_null(j, "down_cause", p->down_cause);
	if (p->rate_changed.tv_sec) {
		ibve_time_format(&p->rate_changed, tmp, sizeof(tmp));
		ibve_json_str(j, "rate_changed", tmp);
		ibve_json_str(j, "old_rate", p->old_rate);
	}
	ibve_json_uint(j, "total", p->total);
	ibve_json_uint(j, "per_minute", p->per_minute);
	if (p->total) {
		ibve_time_format(&p->last_time, tmp, sizeof(tmp));
		ibve_json_str(j, "last_event", p->last_event);
		ibve_json_str(j, "last_time", tmp);
		ibve_json_double(j, "last_age", "%.3f", p->last_age);
	} else {
		ibve_json_null(j, "last_event");
		ibve_json_null(j, "last_time");
		ibve_json_null(j, "last_age");
	}
	ibve_json_uint(j, "counter_resets", p->counter_resets);
	ibve_json_open_array(j, "counters");
	for (size_t c = 0; c < p->counter_count; c++) {
		const struct ibve_counter *k = &p->counters[c];

		ibve_json_open(j, NULL);
		ibve_json_str(j, "name", k->name);
		ibve_json_bool(j, "hw", k->hw);
		ibve_json_uint(j, "value", k->value);
		ibve_json_uint(j, "delta", k->delta);
		ibve_json_double(j, "rate", "%.3f", k->rate);
		ibve_json_bool(j, "changed", k->changed);
		ibve_json_close(j);
	}
	ibve_json_close_array(j);
	ibve_json_close(j);
}

size_t top_format_json(const void *arg, char *buf, size_t size)
{
	const struct view *v = arg;
	const struct ibve_ports_summary *s = ibve_ports_summary(v->ports);
	struct ibve_buf b = { buf, size, 0 };
	struct ibve_json j;
	char tmp[64];

	ibve_json_init(&j, &b);
	ibve_json_open(&j, NULL);
	ibve_time_format(&s->now, tmp, sizeof(tmp));
	ibve_json_str(&j, "time", tmp);
	ibve_json_str_or_null(&j, "host", s->host);
	ibve_json_str_or_null(&j, "kernel", s->kernel);
	ibve_json_uint(&j, "devices", s->devices);
	ibve_json_uint(&j, "ports", s->ports);
	ibve_json_uint(&j, "events", s->events);
	ibve_json_double(&j, "per_second", "%.3f", s->per_second);
	ibve_json_double(&j, "uptime", "%.3f", s->uptime);
	ibve_json_open_array(&j, "rows");
	for (size_t i = 0; i < v->norder; i++)
		json_row(&j, ibve_ports_at(v->ports, v->order[i]));
	ibve_json_close_array(&j);
	if (v->procs.n)
		top_procs_json(v, &j);
	ibve_json_close(&j);
	ibve_buf_putc(&b, '\n');
	return ibve_buf_end(&b);
}
