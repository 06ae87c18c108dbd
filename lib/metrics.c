// SPDX-License-Identifier: MIT
/*
 * Prometheus metrics of a port table (ports.c): counters per device, port,
 * event and severity; last-event times; port state and attributes; device
 * presence; rendered in the text exposition format, written atomically,
 * and optionally kept across restarts.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <json-c/json.h>

#include "ports.h"

/* A label value: backslash, double quote and newline escaped. */
static void label(struct ibve_buf *b, const char *name, const char *v,
		  bool first)
{
	ibve_buf_printf(b, "%s%s=\"", first ? "" : ",", name);
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

static void port_label(struct ibve_buf *b, uint32_t port)
{
	char num[16] = "";

	if (port)
		snprintf(num, sizeof(num), "%u", port);
	label(b, "port", num, false);
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

IBVE_EXPORT size_t ibve_metrics_format(const struct ibve_ports *m, char *buf,
				       size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	char guid[32];

	family(&b, "rdma_async_events_total", "counter",
	       "RDMA asynchronous events seen, by device, port (empty: the whole device), event and severity.");
	for (size_t i = 0; i < m->nseries; i++) {
		const struct ibve_series *s = &m->series[i];

		ibve_buf_puts(&b, "rdma_async_events_total{");
		label(&b, "device", s->device, true);
		port_label(&b, s->port);
		label(&b, "event", s->event, false);
		label(&b, "severity", ibve_severity_name(s->severity), false);
		ibve_buf_printf(&b, "} %" PRIu64 "\n", s->count);
	}
	family(&b, "rdma_async_events_by_class_total", "counter",
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
			ibve_buf_puts(&b, "rdma_async_events_by_class_total{");
			label(&b, "device", m->series[i].device, true);
			label(&b, "class", ibve_class_name((enum ibve_class)c),
			      false);
			ibve_buf_printf(&b, "} %" PRIu64 "\n", n[c]);
		}
	}
	family(&b, "rdma_async_last_event_timestamp_seconds", "gauge",
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
		ibve_buf_puts(&b, "rdma_async_last_event_timestamp_seconds{");
		label(&b, "device", s->device, true);
		port_label(&b, s->port);
		label(&b, "event", s->event, false);
		ibve_buf_printf(&b, "} %lld.%03ld\n", (long long)last.tv_sec,
				last.tv_nsec / 1000000);
	}
	family(&b, "rdma_port_state", "gauge",
	       "Port state as verbs numbers it: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER.");
	for (size_t i = 0; i < m->nrows; i++) {
		const struct ibve_port_row *p = &m->rows[i].pub;

		if (!p->state_num || !p->port)
			continue;
		ibve_buf_puts(&b, "rdma_port_state{");
		label(&b, "device", p->device, true);
		port_label(&b, p->port);
		ibve_buf_printf(&b, "} %d\n", p->state_num);
	}
	family(&b, "rdma_port_info", "gauge",
	       "Port attributes as labels; the value is always 1.");
	for (size_t i = 0; i < m->nrows; i++) {
		const struct ibve_row *r = &m->rows[i];

		if (!r->pub.live)
			continue;
		ibve_buf_puts(&b, "rdma_port_info{");
		label(&b, "device", r->pub.device, true);
		port_label(&b, r->pub.port);
		label(&b, "link_layer", r->a.link_layer, false);
		label(&b, "phys_state", r->a.phys_state, false);
		label(&b, "rate", r->a.rate, false);
		label(&b, "address", r->a.address, false);
		label(&b, "node_guid",
		      guid_of(m, r->pub.device, guid, sizeof(guid)), false);
		ibve_buf_puts(&b, "} 1\n");
	}
	family(&b, "rdma_device_present", "gauge",
	       "Whether the device is there (1) or went away (0) since it was seen.");
	for (size_t i = 0; i < m->ndevs; i++) {
		ibve_buf_puts(&b, "rdma_device_present{");
		label(&b, "device", m->devs[i].name, true);
		ibve_buf_printf(&b, "} %d\n", m->devs[i].present);
	}
	family(&b, "ibvevent_build_info", "gauge",
	       "The ibvevent build that exports these metrics; the value is always 1.");
	ibve_buf_puts(&b, "ibvevent_build_info{");
	label(&b, "version", IBVE_VERSION, true);
	label(&b, "mlx5", ibve_features() & IBVE_FEATURE_MLX5 ? "yes" : "no",
	      false);
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

static char *render(size_t (*fmt)(const struct ibve_ports *, char *, size_t),
		    const struct ibve_ports *m, size_t *len)
{
	size_t n = fmt(m, NULL, 0);
	char *buf = malloc(n + 1);

	if (buf)
		*len = fmt(m, buf, n + 1);
	return buf;
}

IBVE_EXPORT int ibve_metrics_write(const struct ibve_ports *m, const char *path)
{
	size_t len;
	char *buf = render(ibve_metrics_format, m, &len);
	int r;

	if (!buf)
		return ibve_error(ENOMEM, "out of memory");
	r = write_atomic(path, buf, len, false);
	free(buf);
	return r ? ibve_error(r, "write to %s: %s", path, strerror(-r)) : 0;
}

/* The state: one JSON object per counter. */
static size_t format_state(const struct ibve_ports *m, char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	char when[64];

	for (size_t i = 0; i < m->nseries; i++) {
		const struct ibve_series *s = &m->series[i];

		ibve_time_format(&s->last, when, sizeof(when));
		ibve_buf_puts(&b, "{\"device\":");
		ibve_buf_json_str(&b, s->device);
		ibve_buf_printf(&b, ",\"port\":%u,\"event\":", s->port);
		ibve_buf_json_str(&b, s->event);
		ibve_buf_printf(&b,
				",\"severity\":\"%s\",\"count\":%" PRIu64
				",\"last\":\"%s\"}\n",
				ibve_severity_name(s->severity), s->count,
				when);
	}
	return ibve_buf_end(&b);
}

IBVE_EXPORT int ibve_metrics_save(const struct ibve_ports *m, const char *path)
{
	size_t len;
	char *buf = render(format_state, m, &len);
	int r;

	if (!buf)
		return ibve_error(ENOMEM, "out of memory");
	r = write_atomic(path, buf, len, true);
	free(buf);
	return r ? ibve_error(r, "write to %s: %s", path, strerror(-r)) : 0;
}

IBVE_EXPORT int ibve_metrics_load(struct ibve_ports *m, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	unsigned long n = 0;
	int r = 0;

	if (!f)
		return ibve_error(errno, "%s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		struct json_object *o = json_tokener_parse(line), *v;
		const char *dev, *ev;
		int sev;
		struct ibve_series *s;
		struct timespec last = { 0, 0 };

		n++;
		if (!o || !json_object_object_get_ex(o, "device", &v) ||
		    !(dev = json_object_get_string(v)) || !*dev ||
		    !json_object_object_get_ex(o, "event", &v) ||
		    !(ev = json_object_get_string(v)) || !*ev ||
		    !json_object_object_get_ex(o, "severity", &v) ||
		    (sev = ibve_severity_parse(json_object_get_string(v))) <
			    0 ||
		    !json_object_object_get_ex(o, "count", &v) ||
		    json_object_get_int64(v) < 0) {
			json_object_put(o);
			r = ibve_error(EINVAL,
				       "%s:%lu: not a metrics state line", path,
				       n);
			break;
		}
		s = ibve_ports_series(
			m, dev,
			json_object_object_get_ex(o, "port", &v)
				? (uint32_t)json_object_get_int64(v)
				: 0,
			ev, (enum ibve_severity)sev);
		if (s) {
			json_object_object_get_ex(o, "count", &v);
			s->count += (uint64_t)json_object_get_int64(v);
			if (json_object_object_get_ex(o, "last", &v))
				ibve_time_parse(json_object_get_string(v),
						&last);
			s->last = last;
		}
		json_object_put(o);
	}
	free(line);
	fclose(f);
	return r;
}
