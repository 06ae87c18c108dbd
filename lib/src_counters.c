// SPDX-License-Identifier: MIT
/*
 * The "counters" source: the error counters (ibve_is_error_counter()) of
 * every watched port, sampled when it starts (sysfs alone: no device is
 * opened), at each record of the port (observe()), and every SAMPLE_S
 * while it runs: one wake-up a minute, never more. When a record says a
 * port went down (verbs PORT_ERR, netdev NETDEV_DOWN or CARRIER_LOST,
 * DEVICE_REMOVED), the port is read at once and COUNTERS_MOVED "before"
 * says which counters moved since the sample before (none: an empty
 * object, so that it is known they were looked at); at its PORT_ACTIVE,
 * "since" says which moved while it was down. A port whose counters cannot
 * be read (its device gone) gets no record. Records are made while
 * another's record passes, so they wait for the timer's next tick, set to
 * now. Added whenever the autopsy source is, whose evidence they are.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "buf.h"
#include "devices.h"
#include "dl_jsonc.h"
#include "fields.h"
#include "ports.h"
#include "source.h"
#include "sysfs.h"

#define SAMPLE_S 60

enum { COUNTERS_MOVED };

struct cport {
	char device[IBVE_NAME_MAX];
	uint32_t port;
	uint64_t guid;
	bool down;	    /* a down seen, its PORT_ACTIVE not yet */
	struct timespec at; /* the last sample; down: the down's */
	struct ibve_counter *c;
	size_t n;
};

struct counters {
	struct ibve_host h;
	struct ibve_devset *devs;
	int fd;
	struct cport *ports;
	size_t nports;
	struct ibve_event *pend; /* made, not yet emitted */
	size_t npend;
};

static int create(void **out, const struct ibve_source_opts *o,
		  const struct ibve_host *h)
{
	struct counters *s = calloc(1, sizeof(*s));

	(void)o;
	*out = s;
	if (!s)
		return ibve_error(ENOMEM, "out of memory");
	s->h = *h;
	s->fd = -1;
	return 0;
}

/* The next tick now (records wait), or in SAMPLE_S. */
static void arm(struct counters *s, bool now)
{
	struct itimerspec its = { .it_value = { now ? 0 : SAMPLE_S, now },
				  .it_interval = { SAMPLE_S, 0 } };

	timerfd_settime(s->fd, 0, &its, NULL);
}

static void port_dir(char *dir, size_t size, const char *device, uint32_t port)
{
	snprintf(dir, size, IBVE_SYSFS "/%s/ports/%u", device, port);
}

/*
 * Keep C's move in F's largest ones (as the earlier of equal moves); one
 * more left out. A name JSON cannot carry as it is is left out too.
 */
static void keep(struct ibve_counters_fields *f, const struct ibve_counter *c)
{
	size_t i = f->n, len = strspn(c->name, "abcdefghijklmnopqrstuvwxyz"
					       "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					       "0123456789_");

	if (!len || c->name[len] || len >= sizeof(f->moved[0].name) ||
	    (f->n == IBVE_COUNTERS_KEPT &&
	     c->delta <= f->moved[f->n - 1].delta)) {
		f->more++;
		return;
	}
	if (f->n == IBVE_COUNTERS_KEPT)
		f->more++, i--; /* the smallest goes */
	else
		f->n++;
	for (; i && f->moved[i - 1].delta < c->delta; i--)
		f->moved[i] = f->moved[i - 1];
	f->moved[i].delta = c->delta;
	f->moved[i].hw = c->hw;
	ibve_strcpy(f->moved[i].name, c->name, sizeof(f->moved[i].name));
}

void ibve_counters_moved(struct ibve_event *ev, const struct ibve_counter *v,
			 size_t n, bool since, uint64_t sample_us)
{
	struct ibve_counters_fields *f = &ev->counters;

	ibve_event_set_code(ev, IBVE_SOURCE_COUNTERS, COUNTERS_MOVED);
	ev->fields |= IBVE_FIELD_COUNTERS;
	memset(f, 0, sizeof(*f));
	f->since = since;
	f->sample_us = sample_us;
	for (size_t i = 0; i < n; i++)
		if (v[i].delta)
			keep(f, &v[i]);
	if (f->n || f->more)
		ev->severity = IBVE_SEVERITY_WARNING;
}

/* P's record of the moves since WAS, at NOW, for the next tick. */
static void queue(struct counters *s, const struct cport *p,
		  const struct timespec *was, const struct timespec *now,
		  bool since)
{
	struct ibve_event *v = realloc(s->pend, (s->npend + 1) * sizeof(*v));
	struct ibve_event *ev;

	if (!v) {
		s->h.fail(s->h.ctx, ibve_error(ENOMEM, "out of memory"));
		return;
	}
	s->pend = v;
	ev = memset(&v[s->npend++], 0, sizeof(*ev));
	ev->time = *now;
	ibve_strcpy(ev->device, p->device, sizeof(ev->device));
	ev->port = p->port;
	ev->node_guid = p->guid;
	ibve_counters_moved(ev, p->c, p->n, since,
			    (uint64_t)(ibve_ts_secs(was, now) * 1e6));
	arm(s, true);
}

/*
 * Sample P: each counter's delta its move since the last sample, or while
 * down since the down's. CHANGE 1: the port went down, -1: it came back.
 */
static void look(struct counters *s, struct cport *p, int change)
{
	struct timespec now, was = p->at;
	bool down = p->down;
	char dir[160];

	clock_gettime(CLOCK_REALTIME, &now);
	port_dir(dir, sizeof(dir), p->device, p->port);
	if (!ibve_counters_read(dir, p->c, p->n, 0, false, NULL))
		return; /* gone: nothing was looked at */
	if (change && (change > 0) != down) {
		queue(s, p, &was, &now, down);
		p->down = !down;
	}
	if (down && p->down)
		return; /* what moves while down adds up */
	p->at = now;
	for (size_t i = 0; i < p->n; i++)
		p->c[i].delta = 0;
}

static struct cport *find(struct counters *s, const char *device, uint32_t port)
{
	for (size_t i = 0; i < s->nports; i++)
		if (s->ports[i].port == port &&
		    strcmp(s->ports[i].device, device) == 0)
			return &s->ports[i];
	return NULL;
}

/* The ports of watched DEVICE that have error counters, read. */
static void add_device(struct counters *s, const char *device)
{
	const struct ibve_slot *slot = ibve_devices_find(s->devs, device);
	char dir[160];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), IBVE_SYSFS "/%s/ports", device);
	if (!slot || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		char *end;
		uint32_t port = (uint32_t)strtoul(e->d_name, &end, 10);
		struct cport *p;

		if (!isdigit((unsigned char)e->d_name[0]) || *end ||
		    find(s, device, port) ||
		    !(p = realloc(s->ports, (s->nports + 1) * sizeof(*p))))
			continue;
		s->ports = p;
		p += s->nports;
		*p = (struct cport){ .port = port, .guid = slot->guid };
		ibve_strcpy(p->device, device, sizeof(p->device));
		clock_gettime(CLOCK_REALTIME, &p->at);
		port_dir(dir, sizeof(dir), device, port);
		p->n = ibve_counters_find(dir, &p->c);
		if (p->n && ibve_counters_read(dir, p->c, p->n, 0, true, NULL))
			s->nports++;
		else
			free(p->c);
	}
	closedir(d);
}

static void drop_device(struct counters *s, const char *device)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nports; i++)
		if (strcmp(s->ports[i].device, device))
			s->ports[k++] = s->ports[i];
		else
			free(s->ports[i].c);
	s->nports = k;
}

/* The open devices' ports read, the timer set. */
static int start(void *arg)
{
	struct counters *s = arg;
	size_t n;
	const char **names;

	s->devs = s->h.devset(s->h.ctx);
	n = s->devs ? ibve_devices_names(s->devs, NULL, 0) : 0;
	if (!(names = calloc(n + 1, sizeof(*names))))
		return ibve_error(ENOMEM, "out of memory");
	n = s->devs ? ibve_devices_names(s->devs, names, n) : 0;
	for (size_t i = 0; i < n; i++)
		add_device(s, names[i]);
	free(names);
	s->fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (s->fd < 0)
		return ibve_error(errno, "error counters: timerfd: %s",
				  strerror(errno));
	arm(s, false);
	return s->h.watch(s->h.ctx, s->fd, s, 0);
}

/* A tick with records waiting emits them; else it is the slow sample of
 * every port. */
static bool ready(void *arg, uint32_t cookie)
{
	struct counters *s = arg;
	uint64_t ticks;

	(void)cookie;
	if (read(s->fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return false;
	for (size_t i = 0; i < s->nports && !s->npend; i++)
		look(s, &s->ports[i], 0);
	for (size_t i = 0; i < s->npend; i++)
		s->h.put(s->h.ctx, &s->pend[i]);
	s->npend = 0;
	arm(s, false);
	return false;
}

/* What a record says of its port (by the stable names of the verbs,
 * netdev and hot-plug sources): 1 down, -1 active again, else 0. */
static int change(const struct ibve_event *ev)
{
	static const char *const downs[] = { "PORT_ERR", "NETDEV_DOWN",
					     "CARRIER_LOST", "DEVICE_REMOVED" };

	for (size_t i = 0; ev->desc && i < ARRAY_SIZE(downs); i++)
		if (strcmp(ev->desc->name, downs[i]) == 0)
			return 1;
	return ev->desc && strcmp(ev->desc->name, "PORT_ACTIVE") == 0 ? -1 : 0;
}

static void observe(void *arg, const struct ibve_event *ev)
{
	struct counters *s = arg;
	int c;

	/*
	 * Not its own records, nor the kernel source's of who set a netdev
	 * down or removed a device: read after the down itself, their sample
	 * took its moves as the baseline, and the down's "before" said none.
	 */
	if (ev->source == IBVE_SOURCE_COUNTERS ||
	    (ev->cls != IBVE_CLASS_PORT && ev->cls != IBVE_CLASS_DEVICE) ||
	    (ev->source == IBVE_SOURCE_KERNEL && !ev->affiliated))
		return;
	c = change(ev);
	if (ev->cls == IBVE_CLASS_DEVICE && c <= 0) {
		if (ev->desc && strcmp(ev->desc->name, "DEVICE_ADDED") == 0)
			add_device(s, ev->device);
		return;
	}
	for (size_t i = 0; i < s->nports; i++)
		if ((ev->cls == IBVE_CLASS_DEVICE ||
		     s->ports[i].port == ev->port) &&
		    strcmp(s->ports[i].device, ev->device) == 0)
			look(s, &s->ports[i], c);
	if (ev->cls == IBVE_CLASS_DEVICE)
		drop_device(s, ev->device);
}

static void destroy(void *arg)
{
	struct counters *s = arg;

	if (s->fd >= 0)
		close(s->fd);
	for (size_t i = 0; i < s->nports; i++)
		free(s->ports[i].c);
	free(s->ports);
	free(s->pend);
	free(s);
}

/* --- its records' fields ------------------------------------------------- */

static void counters_json(struct ibve_json *j, const struct ibve_event *ev)
{
	const struct ibve_counters_fields *f = &ev->counters;

	ibve_json_name(j, "phase", f->since ? "since" : "before");
	ibve_json_open(j, "counters");
	for (size_t i = 0; i < f->n && i < IBVE_COUNTERS_KEPT; i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s%.*s",
			 f->moved[i].hw ? "hw_counters/" : "",
			 (int)sizeof(f->moved[i].name), f->moved[i].name);
		ibve_json_uint(j, key, f->moved[i].delta);
	}
	ibve_json_close(j);
	if (f->more)
		ibve_json_uint(j, "counters_more", f->more);
	ibve_json_uint(j, "sample_us", f->sample_us);
}

static void counters_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	const struct ibve_counters_fields *f = &ev->counters;

	ibve_buf_puts(b, f->since ? "since the down: " : "before the down: ");
	if (!f->n && !f->more)
		ibve_buf_puts(b, "none moved");
	for (size_t i = 0; i < f->n && i < IBVE_COUNTERS_KEPT; i++)
		ibve_buf_printf(b, "%s%s%.*s +%" PRIu64, i ? ", " : "",
				f->moved[i].hw ? "hw_counters/" : "",
				(int)sizeof(f->moved[i].name), f->moved[i].name,
				f->moved[i].delta);
	if (f->more)
		ibve_buf_printf(b, " and %u more", f->more);
	ibve_buf_printf(b, ", over %.1f s", (double)f->sample_us / 1e6);
}

static int counters_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
			  int key, char *err, size_t errlen)
{
	enum { PHASE, COUNTERS, MORE, SAMPLE_US };
	struct ibve_counters_fields *f = &ev->counters;
	struct json_object *x;
	struct ibve_jval v;
	const char *phase;
	uint64_t more;
	int r = ibve_get_str(o, key + PHASE, &phase, err, errlen);

	if (r <= 0)
		return r;
	memset(f, 0, sizeof(*f));
	if (strcmp(phase, "before") && strcmp(phase, "since"))
		FAIL("\"phase\" must be before or since");
	f->since = phase[0] == 's';
	o->get(o, key + COUNTERS, &v);
	x = (struct json_object *)v.obj;
	if (v.type != J_OTHER || !x ||
	    !json_object_is_type(x, json_type_object))
		FAIL("\"counters\" must be an object");
	json_object_object_foreach(x, name, d)
	{
		struct ibve_counter c = { .hw = !strncmp(name, "hw_counters/",
							 12) };
		size_t n = f->n;

		if (!json_object_is_type(d, json_type_int) ||
		    json_object_get_int64(d) < 1 ||
		    ibve_copy_str(c.name, sizeof(c.name), "counters",
				  name + 12 * c.hw, err, errlen))
			FAIL("\"counters\" holds moves: {\"NAME\": 1 or more}");
		c.delta = json_object_get_uint64(d);
		keep(f, &c);
		if (f->n == n)
			FAIL("\"counters\": \"%.64s\": at most %d names of "
			     "letters, digits and _",
			     name, IBVE_COUNTERS_KEPT);
	}
	if (ibve_get_uint(o, key + MORE, UINT32_MAX, &more, err, errlen) < 0 ||
	    ibve_get_uint(o, key + SAMPLE_US, UINT64_MAX, &f->sample_us, err,
			  errlen) < 0)
		return -EINVAL;
	f->more = (uint32_t)more;
	ev->fields |= IBVE_FIELD_COUNTERS;
	if (f->n || f->more) /* as it was made */
		ev->severity = IBVE_SEVERITY_WARNING;
	return 0;
}

static const struct ibve_fieldspec fields[] = {
	{ .keys = "phase counters counters_more sample_us",
	  .order = 170,
	  .flag = IBVE_FIELD_COUNTERS,
	  .json = counters_json,
	  .text = counters_text,
	  .parse = counters_parse },
};

static const struct ibve_event_desc rows[] = {
	ROW(COUNTERS_MOVED, "COUNTERS_MOVED", PORT, false, INFO,
	    "c89974a3976f4c96b51c3b33e71f6b27",
	    "error counters of the port around a link down",
	    "Evidence of why the link went down: before names the error "
	    "counters that moved between the last sample and the down "
	    "(symbol errors, link error recovery or link integrity errors "
	    "point at the cable or transceiver), since those that moved while "
	    "it was down. None before: look at what took it down or at the "
	    "far end."),
};

const struct ibve_source_ops ibve_source_counters = {
	.name = "counters",
	.records = IBVE_SOURCE_COUNTERS,
	ROWS(rows),
	FIELDS(fields),
	.severities = 1u << IBVE_SEVERITY_WARNING,
	.on_demand = true,
	.with = "autopsy",
	.order = 30, /* after the devices' */
	.create = create,
	.start = start,
	.ready = ready,
	.observe = observe,
	.destroy = destroy,
};
