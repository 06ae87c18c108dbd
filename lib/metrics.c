// SPDX-License-Identifier: MIT
/*
 * Prometheus metrics of a port table (ports.c): counters per device, port,
 * event and severity; port downs by cause; last-event times; port state
 * and attributes; device presence; rendered in the text exposition format,
 * written atomically, and optionally kept across restarts.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dl_jsonc.h"

#include "buf.h"
#include "ports.h"

/* NAME="V", with \, " and newline escaped; ",NAME" after the first. */
static void label(struct ibve_buf *b, const char *name, const char *v)
{
	ibve_buf_printf(b, "%s=\"", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			ibve_buf_putc(b, '\\');
		if (*v == '\n') {
			ibve_buf_puts(b, "\\n");
			continue;
		}
		ibve_buf_putc(b, *v);
	}
	ibve_buf_putc(b, '"');
}

/* The start of a line of family NAME: its name and first label. */
static void series(struct ibve_buf *b, const char *name, const char *key,
		   const char *value)
{
	ibve_buf_printf(b, "%s{", name);
	label(b, key, value);
}

/* The start of a line of a port's: device, port ("" for 0: the device). */
static void port_series(struct ibve_buf *b, const char *name, const char *dev,
			uint32_t port)
{
	char num[16] = "";

	if (port)
		snprintf(num, sizeof(num), "%u", port);
	series(b, name, "device", dev);
	label(b, ",port", num);
}

/* The node GUID of DEV as text, or "" when unknown. */
static const char *guid_of(const struct ibve_ports *m, const char *dev,
			   char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < m->ndevs; i++)
		if (strcmp(m->devs[i].name, dev) == 0 && m->devs[i].guid)
			ibve_guid_format(m->devs[i].guid, buf, size);
	return buf;
}

static void family(struct ibve_buf *b, const char *name, const char *type,
		   const char *help)
{
	ibve_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
			type);
}

/*
 * The watcher's own series: events its sources lost, and, for a table a
 * pipeline's sink feeds, its start, which sources run, and the entries
 * its logs could not send.
 */
static void watcher(struct ibve_buf *b, const struct ibve_ports *m)
{
	const struct ibve_watcher *w = &m->w;

	family(b, "ibvevent_events_lost_total", "counter",
	       "Events the watcher's sources lost before reading them (EVENTS_LOST records: the kernel source's count; an mlx5 event channel's overflows, one each), by device.");
	for (size_t i = 0; i < m->ndevs; i++) {
		series(b, "ibvevent_events_lost_total", "device",
		       m->devs[i].name);
		ibve_buf_printf(b, "} %" PRIu64 "\n", m->devs[i].lost);
	}
	if (!w->known)
		return;
	family(b, "ibvevent_start_time_seconds", "gauge",
	       "When the watcher started, in seconds since the epoch.");
	ibve_buf_printf(b, "ibvevent_start_time_seconds %lld.%03ld\n",
			(long long)w->born.tv_sec, w->born.tv_nsec / 1000000);
	family(b, "ibvevent_source_enabled", "gauge",
	       "Whether the watcher runs the source of these records (1) or not (0).");
	for (size_t i = 0; i < w->nsources; i++) {
		series(b, "ibvevent_source_enabled", "source",
		       ibve_source_name(
			       (enum ibve_source)w->sources[i].records));
		ibve_buf_printf(b, "} %d\n", w->sources[i].runs);
	}
	if (w->nlogs)
		family(b, "ibvevent_log_send_failures_total", "counter",
		       "Entries the watcher could not send to a log (journal, syslog) and lost.");
	for (size_t i = 0; i < w->nlogs; i++) {
		series(b, "ibvevent_log_send_failures_total", "sink",
		       w->logs[i].name);
		ibve_buf_printf(b, "} %" PRIu64 "\n", w->logs[i].failures);
	}
}

static int workload_cmp(const void *a, const void *b)
{
	const struct ibve_workload *x = *(const struct ibve_workload *const *)a;
	const struct ibve_workload *y = *(const struct ibve_workload *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->event, y->event);
}

/* The queue errors of each workload kept, in (workload, event) order. */
static void workloads(struct ibve_buf *b, const struct ibve_ports *m)
{
	const struct ibve_workload *v[IBVE_WORKLOADS_KEPT];

	family(b, "ibvevent_workload_queue_errors_total", "counter",
	       "Queue errors (QP, CQ, SRQ and WQ events of error severity or worse) of the processes of a workload (\"slurm job N\", \"pod UID\"), by event: the last 64 workloads seen.");
	for (size_t i = 0; i < m->nworkloads; i++)
		v[i] = &m->workloads[i];
	qsort(v, m->nworkloads, sizeof(v[0]), workload_cmp);
	for (size_t i = 0; i < m->nworkloads; i++) {
		series(b, "ibvevent_workload_queue_errors_total", "workload",
		       v[i]->name);
		label(b, ",event", v[i]->event);
		ibve_buf_printf(b, "} %" PRIu64 "\n", v[i]->count);
	}
}

IBVE_EXPORT size_t ibve_metrics_format(const struct ibve_ports *m, char *buf,
				       size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	char guid[32];

	family(&b, "ibvevent_events_total", "counter",
	       "RDMA asynchronous events seen, by device, port (empty: the whole device), event and severity.");
	for (size_t i = 0; i < m->nseries; i++) {
		const struct ibve_series *s = &m->series[i];

		port_series(&b, "ibvevent_events_total", s->device, s->port);
		label(&b, ",event", s->event);
		label(&b, ",severity", ibve_severity_name(s->severity));
		ibve_buf_printf(&b, "} %" PRIu64 "\n", s->count);
	}
	family(&b, "ibvevent_events_by_class_total", "counter",
	       "RDMA asynchronous events seen, by device and class (device, port, qp, cq, srq, wq, unknown).");
	/* series are sorted by device: one group of lines per device */
	for (size_t i = 0, j; i < m->nseries; i = j) {
		uint64_t n[IBVE_CLASS_UNKNOWN + 1] = { 0 };

		for (j = i; j < m->nseries && strcmp(m->series[j].device,
						     m->series[i].device) == 0;
		     j++) {
			const struct ibve_event_desc *d =
				ibve_event_desc_lookup(m->series[j].event);

			n[d ? d->cls : IBVE_CLASS_UNKNOWN] +=
				m->series[j].count;
		}
		for (int c = 0; c <= IBVE_CLASS_UNKNOWN; c++) {
			if (!n[c])
				continue;
			series(&b, "ibvevent_events_by_class_total", "device",
			       m->series[i].device);
			label(&b, ",class",
			      ibve_class_name((enum ibve_class)c));
			ibve_buf_printf(&b, "} %" PRIu64 "\n", n[c]);
		}
	}
	family(&b, "ibvevent_last_event_timestamp_seconds", "gauge",
	       "When the last event of this kind was seen, in seconds since the epoch.");
	/* series are sorted: one line per (device, port, event) group */
	for (size_t i = 0, j; i < m->nseries; i = j) {
		const struct ibve_series *s = &m->series[i];
		struct timespec last = s->last;

		for (j = i + 1; j < m->nseries &&
				strcmp(m->series[j].device, s->device) == 0 &&
				m->series[j].port == s->port &&
				strcmp(m->series[j].event, s->event) == 0;
		     j++)
			if (ibve_ts_before(&last, &m->series[j].last))
				last = m->series[j].last;
		port_series(&b, "ibvevent_last_event_timestamp_seconds",
			    s->device, s->port);
		label(&b, ",event", s->event);
		ibve_buf_printf(&b, "} %lld.%03ld\n", (long long)last.tv_sec,
				last.tv_nsec / 1000000);
	}
	family(&b, "ibvevent_port_state", "gauge",
	       "Port state as verbs numbers it: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER.");
	for (size_t i = 0; i < m->nrows; i++) {
		const struct ibve_port_row *p = &m->rows[i].pub;

		if (!p->state_num || !p->port)
			continue;
		port_series(&b, "ibvevent_port_state", p->device, p->port);
		ibve_buf_printf(&b, "} %d\n", p->state_num);
	}
	family(&b, "ibvevent_port_state_since_timestamp_seconds", "gauge",
	       "Since when the port has been up (ACTIVE) or not, in seconds since the epoch; the watcher's start when it saw no change.");
	for (size_t i = 0; i < m->nrows; i++) {
		const struct ibve_port_row *p = &m->rows[i].pub;

		if (!p->port || (!p->since.tv_sec && !p->since.tv_nsec))
			continue;
		port_series(&b, "ibvevent_port_state_since_timestamp_seconds",
			    p->device, p->port);
		ibve_buf_printf(&b, "} %lld.%03ld\n",
				(long long)p->since.tv_sec,
				p->since.tv_nsec / 1000000);
	}
	family(&b, "ibvevent_port_flaps_total", "counter",
	       "Port flaps: PORT_ERR followed by PORT_ACTIVE within the flap window.");
	for (size_t i = 0; i < m->nrows; i++) {
		const struct ibve_port_row *p = &m->rows[i].pub;

		if (!p->port)
			continue;
		port_series(&b, "ibvevent_port_flaps_total", p->device,
			    p->port);
		ibve_buf_printf(&b, "} %" PRIu64 "\n", p->flaps);
	}
	family(&b, "ibvevent_port_down_total", "counter",
	       "Port downs the link autopsy (--autopsy) explained (PORT_DOWN_CAUSE), by device, port (empty: the whole device) and cause; a series for each cause seen.");
	for (size_t i = 0; i < m->ndowns; i++) {
		const struct ibve_series *s = &m->downs[i];

		port_series(&b, "ibvevent_port_down_total", s->device, s->port);
		label(&b, ",cause", s->event);
		ibve_buf_printf(&b, "} %" PRIu64 "\n", s->count);
	}
	family(&b, "ibvevent_port_last_down_duration_seconds", "gauge",
	       "How long the port was down the last time it came back up.");
	for (size_t i = 0; i < m->nrows; i++) {
		const struct ibve_port_row *p = &m->rows[i].pub;

		if (!p->port || p->last_down <= 0)
			continue;
		port_series(&b, "ibvevent_port_last_down_duration_seconds",
			    p->device, p->port);
		ibve_buf_printf(&b, "} %.3f\n", p->last_down);
	}
	family(&b, "ibvevent_port_rate_bytes_per_second", "gauge",
	       "The port's current signalling rate (sysfs rate, or what a speed change said), in bytes per second.");
	for (size_t i = 0; i < m->nrows; i++) {
		const struct ibve_port_row *p = &m->rows[i].pub;

		if (!p->port || p->rate_gbps <= 0)
			continue;
		port_series(&b, "ibvevent_port_rate_bytes_per_second",
			    p->device, p->port);
		ibve_buf_printf(&b, "} %.0f\n", p->rate_gbps * 1e9 / 8);
	}
	family(&b, "ibvevent_port_info", "gauge",
	       "Port attributes as labels (state by name; the others, read from sysfs, on a live port only); the value is always 1.");
	for (size_t i = 0; i < m->nrows; i++) {
		const struct ibve_row *r = &m->rows[i];

		if (!r->pub.live && !(r->pub.port && r->pub.state_num))
			continue;
		port_series(&b, "ibvevent_port_info", r->pub.device,
			    r->pub.port);
		if (r->pub.state_num)
			label(&b, ",state",
			      ibve_port_state_name(r->pub.state_num));
		if (r->pub.live) {
			label(&b, ",link_layer", r->a.link_layer);
			label(&b, ",phys_state", r->a.phys_state);
			label(&b, ",rate", r->a.rate);
			label(&b, ",address", r->a.address);
			label(&b, ",node_guid",
			      guid_of(m, r->pub.device, guid, sizeof(guid)));
		}
		ibve_buf_puts(&b, "} 1\n");
	}
	family(&b, "ibvevent_port_peer_info", "gauge",
	       "The far end of the port's link, as last known (InfiniBand: the subnet administrator; RoCE: LLDP): its node GUID or chassis id, port and name; the value is always 1.");
	for (size_t i = 0; i < m->nrows; i++) {
		const struct ibve_peer *q = &m->rows[i].pub.peer;
		char port[16];

		if (!m->rows[i].pub.port || q->state != IBVE_PEER_KNOWN)
			continue;
		port_series(&b, "ibvevent_port_peer_info",
			    m->rows[i].pub.device, m->rows[i].pub.port);
		if (q->kind == IBVE_PEER_LLDP) {
			label(&b, ",peer_guid", q->chassis);
			label(&b, ",peer_port", q->port_id);
		} else {
			ibve_guid_format(q->guid, guid, sizeof(guid));
			snprintf(port, sizeof(port), "%u", q->port);
			label(&b, ",peer_guid", guid);
			label(&b, ",peer_port", port);
		}
		label(&b, ",peer_name", q->name);
		ibve_buf_puts(&b, "} 1\n");
	}
	family(&b, "ibvevent_device_present", "gauge",
	       "Whether the device is there (1) or went away (0) since it was seen.");
	for (size_t i = 0; i < m->ndevs; i++) {
		series(&b, "ibvevent_device_present", "device",
		       m->devs[i].name);
		ibve_buf_printf(&b, "} %d\n", m->devs[i].present);
	}
	workloads(&b, m);
	watcher(&b, m);
	family(&b, "ibvevent_build_info", "gauge",
	       "The ibvevent build that exports these metrics; the value is always 1.");
	series(&b, "ibvevent_build_info", "version", IBVE_VERSION);
	label(&b, ",mlx5", ibve_features() & IBVE_FEATURE_MLX5 ? "yes" : "no");
	ibve_buf_puts(&b, "} 1\n");
	return ibve_buf_end(&b);
}

/* Write LEN bytes to PATH so that readers see the old or the new file. */
static int write_atomic(const char *path, const char *data, size_t len,
			bool durable)
{
	char tmp[4096];
	int fd, e = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			break;
		}
		data += n;
		len -= (size_t)n;
	}
	if (!e && durable && fsync(fd))
		e = errno;
	if (close(fd) && !e)
		e = errno;
	if (!e && rename(tmp, path))
		e = errno;
	if (e)
		unlink(tmp);
	return -e;
}

/* What FMT makes of M, written to PATH with write_atomic(). */
static int render(size_t (*fmt)(const struct ibve_ports *, char *, size_t),
		  const struct ibve_ports *m, const char *path, bool durable)
{
	size_t n = fmt(m, NULL, 0);
	char *buf = malloc(n + 1);
	int r;

	if (!buf)
		return ibve_error(ENOMEM, "out of memory");
	r = write_atomic(path, buf, fmt(m, buf, n + 1), durable);
	free(buf);
	return r ? ibve_error(r, "write to %s: %s", path, strerror(-r)) : 0;
}

IBVE_EXPORT int ibve_metrics_write(const struct ibve_ports *m, const char *path)
{
	return render(ibve_metrics_format, m, path, false);
}

/* A port's health as a state line. */
static void format_port(struct ibve_buf *b, const struct ibve_row *r)
{
	const struct ibve_port_row *p = &r->pub;
	char when[64];

	ibve_buf_puts(b, "{\"device\":");
	ibve_buf_json_str(b, p->device);
	ibve_buf_printf(b, ",\"port\":%u,\"flaps\":%" PRIu64, p->port,
			p->flaps);
	if (r->up >= 0 && !p->since_start && p->since.tv_sec) {
		ibve_time_format(&p->since, when, sizeof(when));
		ibve_buf_printf(b, ",\"up\":%s,\"since\":\"%s\"",
				r->up ? "true" : "false", when);
	}
	if (p->last_down > 0)
		ibve_buf_printf(b, ",\"last_down\":%.6f", p->last_down);
	ibve_buf_puts(b, ",\"flap_times\":[");
	for (size_t k = 0; k < r->flap_n; k++) {
		/* oldest first */
		size_t at = (r->flap_head + IBVE_FLAPS_KEPT - r->flap_n + k) %
			    IBVE_FLAPS_KEPT;

		ibve_time_format(&r->flap_at[at], when, sizeof(when));
		ibve_buf_printf(b, "%s\"%s\"", k ? "," : "", when);
	}
	ibve_buf_puts(b, "]}\n");
}

/*
 * A count's state line: its device, port, KEY (the series' event or
 * cause name), with SEVERITY its severity, its count and last time.
 */
static void format_count(struct ibve_buf *b, const struct ibve_series *s,
			 const char *key, bool severity)
{
	char when[64];

	ibve_time_format(&s->last, when, sizeof(when));
	ibve_buf_puts(b, "{\"device\":");
	ibve_buf_json_str(b, s->device);
	ibve_buf_printf(b, ",\"port\":%u,\"%s\":", s->port, key);
	ibve_buf_json_str(b, s->event);
	if (severity)
		ibve_buf_printf(b, ",\"severity\":\"%s\"",
				ibve_severity_name(s->severity));
	ibve_buf_printf(b, ",\"count\":%" PRIu64 ",\"last\":\"%s\"}\n",
			s->count, when);
}

/*
 * The state: the boot it belongs to, one JSON object per port's health,
 * one per counter, one per count of a port's downs by cause.
 */
static size_t format_state(const struct ibve_ports *m, char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	char boot[40];

	ibve_boot_id(boot, sizeof(boot));
	ibve_buf_puts(&b, "{\"boot_id\":");
	ibve_buf_json_str(&b, boot);
	ibve_buf_puts(&b, "}\n");
	for (size_t i = 0; i < m->nrows; i++)
		if (m->rows[i].pub.port)
			format_port(&b, &m->rows[i]);

	for (size_t i = 0; i < m->nseries; i++)
		format_count(&b, &m->series[i], "event", true);
	for (size_t i = 0; i < m->ndowns; i++)
		format_count(&b, &m->downs[i], "cause", false);
	return ibve_buf_end(&b);
}

IBVE_EXPORT int ibve_metrics_save(const struct ibve_ports *m, const char *path)
{
	return render(format_state, m, path, true);
}

/* A port's health line into the table's saved ports; false: not one. */
static bool load_port(struct ibve_ports *m, struct json_object *o,
		      bool same_boot)
{
	struct ibve_saved_port sp = { .up = -1 }, *v;
	struct json_object *x;
	const char *dev;
	int64_t port, flaps;

	if (!json_object_object_get_ex(o, "device", &x) ||
	    !(dev = json_object_get_string(x)) || !*dev ||
	    strlen(dev) >= sizeof(sp.device) ||
	    !json_object_object_get_ex(o, "port", &x) ||
	    (port = json_object_get_int64(x)) < 1 || port > UINT16_MAX ||
	    !json_object_object_get_ex(o, "flaps", &x) ||
	    (flaps = json_object_get_int64(x)) < 0)
		return false;
	ibve_strcpy(sp.device, dev, sizeof(sp.device));
	sp.port = (uint32_t)port;
	sp.flaps = (uint64_t)flaps;
	if (json_object_object_get_ex(o, "last_down", &x))
		sp.last_down = json_object_get_double(x);
	/* times of another boot say nothing of this one's ports */
	if (same_boot && json_object_object_get_ex(o, "since", &x) &&
	    ibve_time_parse(json_object_get_string(x), &sp.since) == 0 &&
	    json_object_object_get_ex(o, "up", &x))
		sp.up = json_object_get_boolean(x);
	if (same_boot && json_object_object_get_ex(o, "flap_times", &x) &&
	    json_object_is_type(x, json_type_array)) {
		size_t n = json_object_array_length(x);

		for (size_t k = n > IBVE_FLAPS_KEPT ? n - IBVE_FLAPS_KEPT : 0;
		     k < n; k++)
			if (ibve_time_parse(
				    json_object_get_string(
					    json_object_array_get_idx(x, k)),
				    &sp.flap_at[sp.flap_n]) == 0)
				sp.flap_n++;
	}
	v = realloc(m->saved, (m->nsaved + 1) * sizeof(*v));
	if (!v)
		return true; /* out of memory: the port's health starts anew */
	m->saved = v;
	m->saved[m->nsaved++] = sp;
	return true;
}

/* A counter's line into the table; false: not one. */
static bool load_series(struct ibve_ports *m, struct json_object *o)
{
	struct json_object *v;
	const char *dev, *ev;
	int sev;
	struct ibve_series *s;
	struct timespec last = { 0, 0 };

	if (!json_object_object_get_ex(o, "device", &v) ||
	    !(dev = json_object_get_string(v)) || !*dev ||
	    !json_object_object_get_ex(o, "event", &v) ||
	    !(ev = json_object_get_string(v)) || !*ev ||
	    !json_object_object_get_ex(o, "severity", &v) ||
	    (sev = ibve_severity_parse(json_object_get_string(v))) < 0 ||
	    !json_object_object_get_ex(o, "count", &v) ||
	    json_object_get_int64(v) < 0)
		return false;
	s = ibve_ports_series(m, dev,
			      json_object_object_get_ex(o, "port", &v)
				      ? (uint32_t)json_object_get_int64(v)
				      : 0,
			      ev, (enum ibve_severity)sev);
	if (s) {
		json_object_object_get_ex(o, "count", &v);
		s->count += (uint64_t)json_object_get_int64(v);
		if (json_object_object_get_ex(o, "last", &v))
			ibve_time_parse(json_object_get_string(v), &last);
		s->last = last;
	}
	return true;
}

/* A count of a port's downs by cause into the table; false: not one. */
static bool load_down(struct ibve_ports *m, struct json_object *o)
{
	struct json_object *v;
	const char *dev, *cause;
	int64_t port = 0, n;
	struct ibve_series *s;

	if (!json_object_object_get_ex(o, "device", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    !*(dev = json_object_get_string(v)) ||
	    strlen(dev) >= sizeof(s->device) ||
	    !json_object_object_get_ex(o, "cause", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    !*(cause = json_object_get_string(v)) || *cause == '_' ||
	    strlen(cause) >= sizeof(s->event) ||
	    strspn(cause, "abcdefghijklmnopqrstuvwxyz_") != strlen(cause) ||
	    (json_object_object_get_ex(o, "port", &v) &&
	     ((port = json_object_get_int64(v)) < 0 || port > UINT16_MAX)) ||
	    !json_object_object_get_ex(o, "count", &v) ||
	    (n = json_object_get_int64(v)) < 1)
		return false;
	s = ibve_ports_down(m, dev, (uint32_t)port, cause);
	if (s) {
		s->count += (uint64_t)n;
		if (json_object_object_get_ex(o, "last", &v))
			ibve_time_parse(json_object_get_string(v), &s->last);
	}
	return true;
}

IBVE_EXPORT int ibve_metrics_load(struct ibve_ports *m, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, boot[40], saved_boot[40] = "";
	size_t cap = 0;
	unsigned long n = 0;
	bool same_boot = true;
	int r = 0;

	if (!f)
		return ibve_error(errno, "%s: %s", path, strerror(errno));
	if ((r = ibve_dl_load(&ibve_jsonc_dl))) {
		fclose(f);
		return r;
	}
	ibve_boot_id(boot, sizeof(boot));
	while (getline(&line, &cap, f) > 0) {
		struct json_object *o = json_tokener_parse(line), *v;
		bool ok;

		n++;
		if (o && json_object_object_get_ex(o, "boot_id", &v)) {
			ibve_strcpy(saved_boot, json_object_get_string(v),
				    sizeof(saved_boot));
			same_boot = !*boot || strcmp(saved_boot, boot) == 0;
			json_object_put(o);
			continue;
		}
		ok = o && (json_object_object_get_ex(o, "cause", &v)
				   ? load_down(m, o)
			   : json_object_object_get_ex(o, "flaps", &v)
				   ? load_port(m, o, same_boot)
				   : load_series(m, o));
		json_object_put(o);
		if (!ok) {
			r = ibve_error(EINVAL,
				       "%s:%lu: not a metrics state line", path,
				       n);
			break;
		}
	}
	if (!r && ferror(f)) /* a directory: EISDIR */
		r = ibve_error(errno, "%s: %s", path, strerror(errno));
	free(line);
	fclose(f);
	if (!r && !same_boot) {
		ibve_error(
			0,
			"%s was saved in another boot (boot id %s): counts kept, the ports' since times and recent flaps start anew",
			path, saved_boot);
		return 1;
	}
	return r;
}
