// SPDX-License-Identifier: MIT
/*
 * Prometheus metrics of the events seen: a small model (counters per
 * device, port, event and severity; last-event times; port state and
 * attributes; device presence) rendered in the text exposition format,
 * written atomically, and optionally kept across restarts.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <json-c/json.h>

#include "internal.h"

/* enum ibv_port_state, without pulling in verbs.h */
#define IBV_PORT_DOWN_STATE   1
#define IBV_PORT_ACTIVE_STATE 4

struct series {
	char device[IBVE_NAME_MAX];
	uint32_t port;
	char event[IBVE_EVENT_NAME_MAX];
	enum ibve_severity severity;
	uint64_t count;
	struct timespec last;
};

struct mport {
	char device[IBVE_NAME_MAX];
	uint32_t port;
	struct ibve_port_attrs a;
	bool live; /* attributes from sysfs, not derived from events */
};

struct mdev {
	char device[IBVE_NAME_MAX];
	uint64_t guid;
	bool present;
};

struct ibve_metrics {
	unsigned int flags;
	struct series *s;
	size_t ns;
	struct mport *p;
	size_t np;
	struct mdev *d;
	size_t nd;
};

IBVE_EXPORT struct ibve_metrics *ibve_metrics_new(unsigned int flags)
{
	struct ibve_metrics *m = calloc(1, sizeof(*m));

	if (m)
		m->flags = flags;
	return m;
}

IBVE_EXPORT void ibve_metrics_free(struct ibve_metrics *m)
{
	if (!m)
		return;
	free(m->s);
	free(m->p);
	free(m->d);
	free(m);
}

/* Grow *V (N elements of SIZE) by one zeroed element at index AT. */
static void *insert_at(void **v, size_t *n, size_t size, size_t at)
{
	char *p = realloc(*v, (*n + 1) * size);

	if (!p)
		return NULL;
	memmove(p + (at + 1) * size, p + at * size, (*n - at) * size);
	memset(p + at * size, 0, size);
	*v = p;
	(*n)++;
	return p + at * size;
}

static int key_cmp(const char *dev_a, uint32_t port_a, const char *dev_b,
		   uint32_t port_b)
{
	int c = strcmp(dev_a, dev_b);

	return c ? c : (port_a > port_b) - (port_a < port_b);
}

static struct mdev *device(struct ibve_metrics *m, const char *name)
{
	size_t i;
	int c = 1;

	for (i = 0; i < m->nd; i++) {
		c = strcmp(m->d[i].device, name);
		if (c >= 0)
			break;
	}
	if (i < m->nd && c == 0)
		return &m->d[i];
	struct mdev *d = insert_at((void **)&m->d, &m->nd, sizeof(*d), i);

	if (d)
		ibve_strcpy(d->device, name, sizeof(d->device));
	return d;
}

static struct mport *port(struct ibve_metrics *m, const char *dev, uint32_t num)
{
	size_t i;
	int c = 1;

	for (i = 0; i < m->np; i++) {
		c = key_cmp(m->p[i].device, m->p[i].port, dev, num);
		if (c >= 0)
			break;
	}
	if (i < m->np && c == 0)
		return &m->p[i];
	struct mport *p = insert_at((void **)&m->p, &m->np, sizeof(*p), i);

	if (p) {
		ibve_strcpy(p->device, dev, sizeof(p->device));
		p->port = num;
	}
	return p;
}

static struct series *series(struct ibve_metrics *m, const char *dev,
			     uint32_t num, const char *event,
			     enum ibve_severity sev)
{
	size_t i;
	int c = 1;

	for (i = 0; i < m->ns; i++) {
		const struct series *s = &m->s[i];

		c = key_cmp(s->device, s->port, dev, num);
		if (!c)
			c = strcmp(s->event, event);
		if (!c)
			c = (s->severity > sev) - (s->severity < sev);
		if (c >= 0)
			break;
	}
	if (i < m->ns && c == 0)
		return &m->s[i];
	struct series *s = insert_at((void **)&m->s, &m->ns, sizeof(*s), i);

	if (s) {
		ibve_strcpy(s->device, dev, sizeof(s->device));
		s->port = num;
		ibve_strcpy(s->event, event, sizeof(s->event));
		s->severity = sev;
	}
	return s;
}

static void drop_ports(struct ibve_metrics *m, const char *dev)
{
	size_t k = 0;

	for (size_t i = 0; i < m->np; i++)
		if (strcmp(m->p[i].device, dev) != 0)
			m->p[k++] = m->p[i];
	m->np = k;
}

static void read_ports(struct ibve_metrics *m, const char *dev)
{
	for (uint32_t n = 1; n < 256; n++) {
		struct ibve_port_attrs a = { 0 };
		struct mport *p;

		if (ibve_sysfs_port(dev, n, &a))
			break;
		p = port(m, dev, n);
		if (!p)
			return;
		p->a = a;
		p->live = true;
	}
}

IBVE_EXPORT int ibve_metrics_add_device(struct ibve_metrics *m,
					const char *name, uint64_t guid)
{
	struct mdev *d = device(m, name);

	if (!d)
		return -ENOMEM;
	d->present = true;
	if (guid) {
		d->guid = guid;
	} else if (m->flags & IBVE_METRICS_SYSFS) {
		char path[256], v[64];

		snprintf(path, sizeof(path), IBVE_SYSFS "/%s/node_guid", name);
		if (ibve_sysfs_read(path, v, sizeof(v)) == 0)
			ibve_guid_parse(v, &d->guid);
	}
	if (m->flags & IBVE_METRICS_SYSFS)
		read_ports(m, name);
	return 0;
}

IBVE_EXPORT void ibve_metrics_event(struct ibve_metrics *m,
				    const struct ibve_event *ev)
{
	struct series *s =
		series(m, ev->device, ev->port, ev->name, ev->severity);
	struct mdev *d = device(m, ev->device);
	struct mport *p;

	if (s) {
		s->count++;
		s->last = ev->time;
	}
	if (d && ev->node_guid)
		d->guid = ev->node_guid;
	if (ev->source == IBVE_SOURCE_HOTPLUG && !ev->port && d) {
		if (ev->code == IBVE_HOTPLUG_DEVICE_ADDED) {
			d->present = true;
			if (m->flags & IBVE_METRICS_SYSFS)
				read_ports(m, ev->device);
		} else if (ev->code == IBVE_HOTPLUG_DEVICE_REMOVED) {
			d->present = false;
			drop_ports(m, ev->device);
		}
		return;
	}
	if (d && !(m->flags & IBVE_METRICS_SYSFS))
		d->present = true; /* a capture: it was there */
	if (!ev->port || ev->cls != IBVE_CLASS_PORT || !d || !d->present)
		return;
	p = port(m, ev->device, ev->port);
	if (!p)
		return;
	if (m->flags & IBVE_METRICS_SYSFS) {
		/* The event says the port changed: read what it is now. */
		ibve_sysfs_port(ev->device, ev->port, &p->a);
		p->live = true;
	} else if (ev->source == IBVE_SOURCE_VERBS &&
		   strcmp(ev->name, "PORT_ACTIVE") == 0) {
		p->a.state = IBV_PORT_ACTIVE_STATE;
	} else if (ev->source == IBVE_SOURCE_VERBS &&
		   strcmp(ev->name, "PORT_ERR") == 0) {
		p->a.state = IBV_PORT_DOWN_STATE; /* all a capture can say */
	}
}

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
static const char *guid_of(const struct ibve_metrics *m, const char *dev,
			   char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < m->nd; i++)
		if (strcmp(m->d[i].device, dev) == 0 && m->d[i].guid)
			ibve_guid_format(m->d[i].guid, buf, size);
	return buf;
}

static void family(struct ibve_buf *b, const char *name, const char *type,
		   const char *help)
{
	ibve_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
			type);
}

IBVE_EXPORT size_t ibve_metrics_format(const struct ibve_metrics *m, char *buf,
				       size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	char guid[32];

	family(&b, "rdma_async_events_total", "counter",
	       "RDMA asynchronous events seen, by device, port (empty: the whole device), event and severity.");
	for (size_t i = 0; i < m->ns; i++) {
		const struct series *s = &m->s[i];

		ibve_buf_puts(&b, "rdma_async_events_total{");
		label(&b, "device", s->device, true);
		port_label(&b, s->port);
		label(&b, "event", s->event, false);
		label(&b, "severity", ibve_severity_name(s->severity), false);
		ibve_buf_printf(&b, "} %" PRIu64 "\n", s->count);
	}
	family(&b, "rdma_async_last_event_timestamp_seconds", "gauge",
	       "When the last event of this kind was seen, in seconds since the epoch.");
	/* series are sorted: one line per (device, port, event) group */
	for (size_t i = 0, j; i < m->ns; i = j) {
		const struct series *s = &m->s[i];
		struct timespec last = s->last;

		for (j = i + 1; j < m->ns &&
				key_cmp(m->s[j].device, m->s[j].port, s->device,
					s->port) == 0 &&
				strcmp(m->s[j].event, s->event) == 0;
		     j++)
			if (m->s[j].last.tv_sec > last.tv_sec ||
			    (m->s[j].last.tv_sec == last.tv_sec &&
			     m->s[j].last.tv_nsec > last.tv_nsec))
				last = m->s[j].last;
		ibve_buf_puts(&b, "rdma_async_last_event_timestamp_seconds{");
		label(&b, "device", s->device, true);
		port_label(&b, s->port);
		label(&b, "event", s->event, false);
		ibve_buf_printf(&b, "} %lld.%03ld\n", (long long)last.tv_sec,
				last.tv_nsec / 1000000);
	}
	family(&b, "rdma_port_state", "gauge",
	       "Port state as verbs numbers it: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER.");
	for (size_t i = 0; i < m->np; i++) {
		if (!m->p[i].a.state)
			continue;
		ibve_buf_puts(&b, "rdma_port_state{");
		label(&b, "device", m->p[i].device, true);
		port_label(&b, m->p[i].port);
		ibve_buf_printf(&b, "} %d\n", m->p[i].a.state);
	}
	family(&b, "rdma_port_info", "gauge",
	       "Port attributes as labels; the value is always 1.");
	for (size_t i = 0; i < m->np; i++) {
		const struct mport *p = &m->p[i];

		if (!p->live)
			continue;
		ibve_buf_puts(&b, "rdma_port_info{");
		label(&b, "device", p->device, true);
		port_label(&b, p->port);
		label(&b, "link_layer", p->a.link_layer, false);
		label(&b, "phys_state", p->a.phys_state, false);
		label(&b, "rate", p->a.rate, false);
		label(&b, "address", p->a.address, false);
		label(&b, "node_guid",
		      guid_of(m, p->device, guid, sizeof(guid)), false);
		ibve_buf_puts(&b, "} 1\n");
	}
	family(&b, "rdma_device_present", "gauge",
	       "Whether the device is there (1) or went away (0) since it was seen.");
	for (size_t i = 0; i < m->nd; i++) {
		ibve_buf_puts(&b, "rdma_device_present{");
		label(&b, "device", m->d[i].device, true);
		ibve_buf_printf(&b, "} %d\n", m->d[i].present);
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

static char *render(size_t (*fmt)(const struct ibve_metrics *, char *, size_t),
		    const struct ibve_metrics *m, size_t *len)
{
	size_t n = fmt(m, NULL, 0);
	char *buf = malloc(n + 1);

	if (buf)
		*len = fmt(m, buf, n + 1);
	return buf;
}

IBVE_EXPORT int ibve_metrics_write(const struct ibve_metrics *m,
				   const char *path)
{
	size_t len;
	char *buf = render(ibve_metrics_format, m, &len);
	int r;

	if (!buf)
		return -ENOMEM;
	r = write_atomic(path, buf, len, false);
	free(buf);
	return r;
}

/* The state: one JSON object per counter. */
static size_t format_state(const struct ibve_metrics *m, char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	char when[64];

	for (size_t i = 0; i < m->ns; i++) {
		const struct series *s = &m->s[i];

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

IBVE_EXPORT int ibve_metrics_save(const struct ibve_metrics *m,
				  const char *path)
{
	size_t len;
	char *buf = render(format_state, m, &len);
	int r;

	if (!buf)
		return -ENOMEM;
	r = write_atomic(path, buf, len, true);
	free(buf);
	return r;
}

IBVE_EXPORT int ibve_metrics_load(struct ibve_metrics *m, const char *path,
				  unsigned long *bad_line)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	unsigned long n = 0;
	int r = 0;

	*bad_line = 0;
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		struct json_object *o = json_tokener_parse(line), *v;
		const char *dev, *ev;
		int sev;
		struct series *s;
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
			*bad_line = n;
			r = -EINVAL;
			break;
		}
		s = series(m, dev,
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
