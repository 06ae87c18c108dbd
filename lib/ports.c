// SPDX-License-Identifier: MIT
/*
 * The port table: one row per device port with its attributes, its events
 * by kind, events per minute, the last event and its age, and the error
 * counters that moved; counters of events by device, port, event and
 * severity (the metrics' series); device presence; the last records. Both
 * the dashboard and the Prometheus metrics are views of it.
 *
 * Live (IBVE_PORTS_SYSFS), rows are the ports sysfs lists for the devices
 * that are there, attributes and counters come from sysfs. From a capture,
 * rows appear as records name them and PORT_ERR / PORT_ACTIVE are all that
 * is known of the state.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/utsname.h>

#include "ports.h"
#include "source.h"
#include "sysfs.h"

/* enum ibv_port_state, without pulling in verbs.h */
#define PORT_DOWN   1
#define PORT_ACTIVE 4

IBVE_EXPORT int ibve_ports_new(struct ibve_ports **out, unsigned int flags)
{
	struct ibve_ports *t = calloc(1, sizeof(*t));
	struct utsname u;

	if (t && (flags & IBVE_PORTS_RECENT) &&
	    !(t->recent = calloc(IBVE_RECENT, sizeof(*t->recent)))) {
		free(t);
		t = NULL;
	}
	*out = t;
	if (!t)
		return ibve_error(ENOMEM, "out of memory");
	t->flags = flags;
	t->flap_window = 600;
	if ((flags & IBVE_PORTS_SYSFS) && uname(&u) == 0) {
		ibve_strcpy(t->sum.host, u.nodename, sizeof(t->sum.host));
		ibve_strcpy(t->sum.kernel, u.release, sizeof(t->sum.kernel));
	}
	return 0;
}

static void free_row(struct ibve_row *r)
{
	free(r->counters);
}

IBVE_EXPORT void ibve_ports_free(struct ibve_ports *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows; i++)
		free_row(&t->rows[i]);
	free(t->rows);
	free(t->series);
	free(t->downs);
	free(t->devs);
	free(t->recent);
	free(t->saved);
	free(t);
}

IBVE_EXPORT void ibve_ports_set_flap_window(struct ibve_ports *t,
					    double seconds)
{
	if (seconds > 0)
		t->flap_window = seconds;
}

void ibve_boot_id(char *buf, size_t size)
{
	if (ibve_sysfs_read("/proc/sys/kernel/random/boot_id", buf, size))
		buf[0] = '\0';
}

bool ibve_counter_advance(uint64_t prev, uint64_t now, uint64_t *cur)
{
	if (now >= prev) {
		*cur += now - prev;
		return false;
	}
	*cur += now; /* reset (driver reload, wrap): counting from 0 again */
	return true;
}

/* Room for one more element of SIZE at index AT of *V (*N of *CAP). */
static void *insert_at(void **v, size_t *n, size_t *cap, size_t size, size_t at)
{
	char *p = *v;

	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;

		p = realloc(p, c * size);
		if (!p)
			return NULL;
		*v = p;
		*cap = c;
	}
	memmove(p + (at + 1) * size, p + at * size, (*n - at) * size);
	memset(p + at * size, 0, size);
	(*n)++;
	return p + at * size;
}

static int key_cmp(const char *dev_a, uint32_t port_a, const char *dev_b,
		   uint32_t port_b)
{
	int c = strcmp(dev_a, dev_b);

	return c ? c : (port_a > port_b) - (port_a < port_b);
}

/* --- devices ------------------------------------------------------------ */

static size_t dev_lower(const struct ibve_ports *t, const char *name)
{
	size_t lo = 0, hi = t->ndevs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(t->devs[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct ibve_dev *dev_get(struct ibve_ports *t, const char *name)
{
	size_t i = dev_lower(t, name);
	struct ibve_dev *d;

	if (i < t->ndevs && strcmp(t->devs[i].name, name) == 0)
		return &t->devs[i];
	d = insert_at((void **)&t->devs, &t->ndevs, &t->devs_cap, sizeof(*d),
		      i);
	if (d)
		ibve_strcpy(d->name, name, sizeof(d->name));
	return d;
}

/* --- rows --------------------------------------------------------------- */

/* The index of the first row not before (DEVICE, PORT). */
static size_t row_lower(const struct ibve_ports *t, const char *device,
			uint32_t port)
{
	size_t lo = 0, hi = t->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ibve_port_row *p = &t->rows[mid].pub;

		if (key_cmp(p->device, p->port, device, port) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct ibve_row *find_row(struct ibve_ports *t, const char *device,
				 uint32_t port)
{
	size_t i = row_lower(t, device, port);

	return i < t->nrows && key_cmp(t->rows[i].pub.device,
				       t->rows[i].pub.port, device, port) == 0
		       ? &t->rows[i]
		       : NULL;
}

static struct ibve_row *add_row(struct ibve_ports *t, const char *device,
				uint32_t port)
{
	size_t i = row_lower(t, device, port);
	struct ibve_row *r = insert_at((void **)&t->rows, &t->nrows,
				       &t->rows_cap, sizeof(*r), i);

	if (!r)
		return NULL;
	ibve_strcpy(r->pub.device, device, sizeof(r->pub.device));
	r->pub.port = port;
	r->up = -1;
	strcpy(r->pub.state, "-");
	strcpy(r->pub.phys_state, "-");
	strcpy(r->pub.link_layer, "-");
	strcpy(r->pub.rate, "-");
	strcpy(r->pub.address, "-");
	return r;
}

/*
 * R's attributes at NOW into its public row: FROM, as a record carries
 * them, or (NULL) read now. A string sysfs did not give stays as it was
 * ("-" at first); a rate that changed is the last change.
 */
static void read_attrs(struct ibve_row *r, const struct ibve_port_attrs *from,
		       const struct timespec *now)
{
	struct ibve_port_row *p = &r->pub;
	struct ibve_port_attrs a = { 0 };

	if (from)
		a = *from;
	else if (ibve_sysfs_port(p->device, p->port, &a))
		return;
	if (r->a.rate[0] && a.rate[0] && strcmp(r->a.rate, a.rate)) {
		p->rate_changed = *now;
		ibve_strcpy(p->old_rate, r->a.rate, sizeof(p->old_rate));
	}
	r->a = a;
	p->live = true;
	p->state_num = a.state;
	if (a.state_name[0])
		ibve_strcpy(p->state, a.state_name, sizeof(p->state));
	if (a.phys_state[0])
		ibve_strcpy(p->phys_state, a.phys_state, sizeof(p->phys_state));
	if (a.link_layer[0])
		ibve_strcpy(p->link_layer, a.link_layer, sizeof(p->link_layer));
	if (a.rate[0])
		ibve_strcpy(p->rate, a.rate, sizeof(p->rate));
	if (a.address[0])
		ibve_strcpy(p->address, a.address, sizeof(p->address));
	p->rate_gbps = strtod(a.rate, NULL);
}

/* A saved port's health for a new row, as far as it still holds. */
static void restore(struct ibve_ports *t, struct ibve_row *r,
		    const struct timespec *now)
{
	struct ibve_port_row *p = &r->pub;
	int up = ibve_state_up(p->state_num);

	r->up = up;
	if (up >= 0) {
		p->since = t->started ? t->start : *now;
		p->since_start = true;
	}
	for (size_t i = 0; i < t->nsaved; i++) {
		const struct ibve_saved_port *sp = &t->saved[i];

		if (key_cmp(sp->device, sp->port, p->device, p->port))
			continue;
		p->flaps = sp->flaps;
		p->last_down = sp->last_down;
		memcpy(r->flap_at, sp->flap_at,
		       sp->flap_n * sizeof(*r->flap_at));
		r->flap_n = sp->flap_n;
		r->flap_head = sp->flap_n % IBVE_FLAPS_KEPT;
		/* the same state as when saved: since then, exactly */
		if (sp->up >= 0 && sp->up == up) {
			p->since = sp->since;
			p->since_start = false;
		}
	}
}

/*
 * Counters worth showing beside events: errors, drops, downs, retries
 * exhausted. A name is one when one of its words ("_"-separated) says so;
 * traffic counters (data, packets, sends, ack_deferred) are not errors.
 */
bool ibve_is_error_counter(const char *name)
{
	static const char *const words[] = {
		"err",	     "errs",	  "error",	"errors",    "discard",
		"discards",  "drop",	  "drops",	"dropped",   "downed",
		"exceeded",  "violation", "violations", "integrity", "timeout",
		"nak",	     "symbol",	  "recovery",	"overrun",   "rnr",
		"malformed", "bad",	  "invalid",	"duplicate", "seq",
		"sequence",  "buffer",
	};
	const char *p = name;

	while (*p) {
		size_t n = strcspn(p, "_");

		for (size_t i = 0; i < ARRAY_SIZE(words); i++)
			if (strlen(words[i]) == n &&
			    strncasecmp(p, words[i], n) == 0)
				return true;
		p += n;
		p += *p == '_';
	}
	return false;
}

/* The error counters of port directory DIR's counters/ (HW: hw_counters/),
 * added to *V (*N of them). */
static void counter_dir(const char *dir, bool hw, struct ibve_counter **v,
			size_t *n)
{
	char path[512];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", dir,
		 hw ? "hw_counters" : "counters");
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct ibve_counter *c;

		if (e->d_name[0] == '.' || !ibve_is_error_counter(e->d_name) ||
		    strlen(e->d_name) >= sizeof(c->name))
			continue;
		c = realloc(*v, (*n + 1) * sizeof(*c));
		if (!c)
			break;
		*v = c;
		c = &c[(*n)++];
		memset(c, 0, sizeof(*c));
		ibve_strcpy(c->name, e->d_name, sizeof(c->name));
		c->hw = hw;
	}
	closedir(d);
}

static int name_order(const void *a, const void *b)
{
	const struct ibve_counter *x = a, *y = b;

	return strcmp(x->name, y->name);
}

size_t ibve_counters_find(const char *dir, struct ibve_counter **v)
{
	size_t n = 0;

	*v = NULL;
	counter_dir(dir, false, v, &n);
	counter_dir(dir, true, v, &n);
	if (n)
		qsort(*v, n, sizeof(**v), name_order);
	return n;
}

/* A counter file's value, as the kernel writes it (%llu): decimal digits
 * alone, then newlines or spaces; false for anything else (a driver's text, a value past 64 bits),
 * which is then not read, never taken as 0 or in another base. */
static bool counter_value(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	end += strspn(end, "\n "); /* as sysfs ends it */
	return !*end && errno != ERANGE;
}

size_t ibve_counters_read(const char *dir, struct ibve_counter *v, size_t n,
			  double dt, bool first, unsigned int *resets)
{
	size_t got = 0;

	for (size_t i = 0; i < n; i++) {
		struct ibve_counter *c = &v[i];
		char path[512], s[64];
		uint64_t now, before = c->delta;

		snprintf(path, sizeof(path), "%s/%s/%s", dir,
			 c->hw ? "hw_counters" : "counters", c->name);
		if (ibve_sysfs_read(path, s, sizeof(s)) ||
		    !counter_value(s, &now))
			continue;
		got++;
		if (first)
			c->value = now;
		/* never a negative delta: backwards is a reset */
		if (ibve_counter_advance(c->value, now, &c->delta) && resets)
			(*resets)++;
		c->changed = now != c->value;
		c->rate = dt > 0 ? (double)(c->delta - before) / dt : 0;
		c->value = now;
	}
	return got;
}

/*
 * Read every counter of R. FIRST: which counters it has, found once (the
 * row is new), their values the base; later reads give the delta since the
 * base and the rate over DT seconds.
 */
static void read_counters(struct ibve_row *r, double dt, bool first)
{
	struct ibve_port_row *p = &r->pub;
	char dir[512];

	snprintf(dir, sizeof(dir), IBVE_SYSFS "/%s/ports/%u", p->device,
		 p->port);
	if (first) {
		p->counter_count = ibve_counters_find(dir, &r->counters);
		p->counters = r->counters;
	}
	ibve_counters_read(dir, r->counters, p->counter_count, dt, first,
			   &p->counter_resets);
	p->moved = 0;
	for (size_t i = 0; i < p->counter_count; i++)
		p->moved += r->counters[i].delta != 0;
}

/* Live: a row for each port sysfs lists of DEVICE. */
static int read_ports(struct ibve_ports *t, const char *device)
{
	char dir[512];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), IBVE_SYSFS "/%s/ports", device);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		unsigned long port = strtoul(e->d_name, &end, 10);
		struct ibve_row *r;
		struct timespec now;

		if (!isdigit((unsigned char)e->d_name[0]) || *end ||
		    find_row(t, device, (uint32_t)port))
			continue;
		clock_gettime(CLOCK_REALTIME, &now);
		r = add_row(t, device, (uint32_t)port);
		if (!r)
			break;
		read_attrs(r, NULL, &now);
		restore(t, r, &now);
		if (t->flags & IBVE_PORTS_COUNTERS)
			read_counters(r, 0, true);
	}
	closedir(d);
	return 0;
}

static void drop_rows(struct ibve_ports *t, const char *device)
{
	size_t k = 0;

	for (size_t i = 0; i < t->nrows; i++) {
		if (strcmp(t->rows[i].pub.device, device) == 0) {
			for (size_t c = 0; c < IBVE_KIND_MAX; c++)
				t->sum.kinds[c] -= t->rows[i].pub.counts[c];
			free_row(&t->rows[i]);
		} else {
			t->rows[k++] = t->rows[i];
		}
	}
	t->nrows = k;
}

IBVE_EXPORT int ibve_ports_add_device(struct ibve_ports *t, const char *device,
				      uint64_t node_guid)
{
	struct ibve_dev *d = dev_get(t, device);

	if (!d)
		return ibve_error(ENOMEM, "out of memory");
	d->present = true;
	if (node_guid)
		d->guid = node_guid;
	else if (t->flags & IBVE_PORTS_SYSFS)
		d->guid = ibve_sysfs_node_guid(device);
	if (!(t->flags & IBVE_PORTS_SYSFS))
		return 0;
	return read_ports(t, device);
}

/* --- series ------------------------------------------------------------- */

static int series_cmp(const struct ibve_series *s, const char *dev,
		      uint32_t port, const char *event, enum ibve_severity sev)
{
	int c = key_cmp(s->device, s->port, dev, port);

	if (!c)
		c = strcmp(s->event, event);
	if (!c)
		c = (s->severity > sev) - (s->severity < sev);
	return c;
}

/* The series of (DEV, PORT, EVENT, SEV) in *V, of *N, made when new. */
static struct ibve_series *series_in(struct ibve_series **v, size_t *n,
				     size_t *cap, const char *dev,
				     uint32_t port, const char *event,
				     enum ibve_severity sev)
{
	size_t lo = 0, hi = *n;
	struct ibve_series *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (series_cmp(&(*v)[mid], dev, port, event, sev) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < *n && series_cmp(&(*v)[lo], dev, port, event, sev) == 0)
		return &(*v)[lo];
	s = insert_at((void **)v, n, cap, sizeof(*s), lo);
	if (s) {
		ibve_strcpy(s->device, dev, sizeof(s->device));
		s->port = port;
		ibve_strcpy(s->event, event, sizeof(s->event));
		s->severity = sev;
	}
	return s;
}

struct ibve_series *ibve_ports_series(struct ibve_ports *t, const char *dev,
				      uint32_t port, const char *event,
				      enum ibve_severity sev)
{
	return series_in(&t->series, &t->nseries, &t->series_cap, dev, port,
			 event, sev);
}

struct ibve_series *ibve_ports_down(struct ibve_ports *t, const char *dev,
				    uint32_t port, const char *cause)
{
	return series_in(&t->downs, &t->ndowns, &t->downs_cap, dev, port, cause,
			 IBVE_SEVERITY_INFO);
}

int ibve_cause_index(const char *name, char *names, size_t size)
{
	size_t n = 0;

	for (int i = 0; ibve_causes[i].name; i++) {
		if (!strcmp(ibve_causes[i].name, name))
			return i;
		if (names && n < size)
			n += (size_t)snprintf(names + n, size - n, "%s%s",
					      i ? ", " : "",
					      ibve_causes[i].name);
	}
	return -1;
}

const char *ibve_ports_down_cause(const struct ibve_ports *t, const char *dev,
				  uint32_t port, const struct timespec *since)
{
	const struct ibve_series *best = NULL;

	for (size_t i = 0; i < t->ndowns; i++) {
		const struct ibve_series *s = &t->downs[i];

		if (s->port != port || strcmp(s->device, dev) ||
		    ibve_ts_before(&s->last, since) ||
		    (best && !ibve_ts_before(&best->last, &s->last)))
			continue;
		best = s;
	}
	return best ? best->event : NULL;
}

/* --- records ------------------------------------------------------------ */

static void count(struct ibve_ports *t, struct ibve_row *r,
		  const struct ibve_event *ev, enum ibve_kind k)
{
	struct ibve_port_row *p = &r->pub;
	size_t b = (size_t)(ev->time.tv_sec % IBVE_BUCKETS);
	uint64_t n = ibve_event_count(ev); /* a summary's events */

	t->sum.kinds[k] += n;
	p->counts[k] += n;
	p->total += n;
	ibve_strcpy(p->last_event, ev->name, sizeof(p->last_event));
	p->last_time = ev->time;
	if (r->bucket_sec[b] != ev->time.tv_sec) {
		r->bucket_sec[b] = ev->time.tv_sec;
		r->bucket_n[b] = 0;
	}
	r->bucket_n[b] += (unsigned int)n;
}

static void push_flap(struct ibve_row *r, const struct timespec *when)
{
	r->flap_at[r->flap_head] = *when;
	r->flap_head = (r->flap_head + 1) % IBVE_FLAPS_KEPT;
	if (r->flap_n < IBVE_FLAPS_KEPT)
		r->flap_n++;
	r->pub.flaps++;
}

static bool ts_zero(const struct timespec *ts)
{
	return !ts->tv_sec && !ts->tv_nsec;
}

/*
 * What a verbs port event (of kind K) says of R's health: since when,
 * downs, flaps; and, in a capture, its state (all that is known of it).
 */
static void health(struct ibve_ports *t, struct ibve_row *r,
		   const struct ibve_event *ev, enum ibve_kind k)
{
	struct ibve_port_row *p = &r->pub;
	int up = k == IBVE_KIND_LINK_UP;
	double down = -1;

	if (!up && k != IBVE_KIND_LINK_DOWN)
		return;
	if (!(t->flags & IBVE_PORTS_SYSFS)) {
		p->state_num = up ? PORT_ACTIVE : PORT_DOWN;
		strcpy(p->state, up ? "ACTIVE" : "DOWN");
	}
	if (r->up != up) {
		r->up = up;
		p->since = ev->time;
		p->since_start = false;
	}
	if (!up) {
		if (ts_zero(&r->down_at))
			r->down_at = ev->time;
		return;
	}
	if (!ts_zero(&r->down_at))
		down = ibve_ts_secs(&r->down_at, &ev->time);
	else if (ev->fields & IBVE_FIELD_DOWN)
		down = (double)ev->verbs.down_us / 1e6;
	if (down >= 0) {
		p->last_down = down;
		if (down <= t->flap_window)
			push_flap(r, &ev->time);
	}
	r->down_at = (struct timespec){ 0, 0 };
}

/* A speed change names the ports whose rate changed. */
static void rates_changed(struct ibve_ports *t, const struct ibve_event *ev)
{
	for (uint32_t i = 0; i < ev->verbs.nrates; i++) {
		const struct ibve_rate_change *c = &ev->verbs.rates[i];
		struct ibve_row *r = find_row(t, ev->device, c->port);

		/* a capture: the ports it names are ports of the device */
		if (!r && !(t->flags & IBVE_PORTS_SYSFS) &&
		    (r = add_row(t, ev->device, c->port)))
			restore(t, r, &ev->time);
		if (!r)
			continue;
		r->pub.rate_changed = ev->time;
		ibve_strcpy(r->pub.old_rate, c->old_rate,
			    sizeof(r->pub.old_rate));
		if (!(t->flags & IBVE_PORTS_SYSFS)) {
			ibve_strcpy(r->pub.rate, c->new_rate,
				    sizeof(r->pub.rate));
			r->pub.rate_gbps = strtod(c->new_rate, NULL);
		}
	}
}

/* A device came or went: its presence, and live its rows. */
static void presence(struct ibve_ports *t, struct ibve_dev *d,
		     const struct ibve_event *ev, int came)
{
	bool live = t->flags & IBVE_PORTS_SYSFS;

	if (came > 0) {
		d->present = true;
		if (live)
			read_ports(t, ev->device);
	} else if (came < 0) {
		d->present = false;
		if (live)
			drop_rows(t, ev->device);
		/* a capture: its ports' state is unknown now (live: no rows) */
		for (size_t i = row_lower(t, ev->device, 0);
		     i < t->nrows &&
		     strcmp(t->rows[i].pub.device, ev->device) == 0;
		     i++) {
			t->rows[i].pub.state_num = 0;
			strcpy(t->rows[i].pub.state, "-");
		}
	}
}

/* A queue error of an owner in a workload: its count, the oldest out. */
static void workload(struct ibve_ports *t, const struct ibve_event *ev)
{
	struct ibve_workload *w = NULL, *oldest = t->workloads;
	char name[sizeof(w->name)];

	if (!ev->affiliated || ev->severity < IBVE_SEVERITY_ERROR ||
	    !(ev->fields & IBVE_FIELD_OWNER) ||
	    !ibve_cgroup_job(ev->kernel.cgroup, name, sizeof(name)))
		return;
	for (size_t i = 0; i < t->nworkloads && !w; i++) {
		if (strcmp(t->workloads[i].name, name) == 0 &&
		    strcmp(t->workloads[i].event, ev->name) == 0)
			w = &t->workloads[i];
		else if (t->workloads[i].seen < oldest->seen)
			oldest = &t->workloads[i];
	}
	if (!w) {
		w = t->nworkloads < IBVE_WORKLOADS_KEPT
			    ? &t->workloads[t->nworkloads++]
			    : oldest;
		*w = (struct ibve_workload){ .count = 0 };
		snprintf(w->name, sizeof(w->name), "%s", name);
		snprintf(w->event, sizeof(w->event), "%s", ev->name);
	}
	w->count += ibve_event_count(ev);
	w->seen = ++t->workload_tick;
}

IBVE_EXPORT void ibve_ports_event(struct ibve_ports *t,
				  const struct ibve_event *ev)
{
	bool live = t->flags & IBVE_PORTS_SYSFS;
	enum ibve_kind k = ibve_event_kind(ev);
	struct ibve_series *s = ibve_ports_series(t, ev->device, ev->port,
						  ev->name, ev->severity);
	struct ibve_dev *d = dev_get(t, ev->device);
	const struct ibve_source_ops *o = ibve_source_of(ev->source);
	const struct ibve_port_attrs *attrs =
		ev->fields & IBVE_FIELD_ATTRS ? &ev->verbs.attrs : NULL;
	const char *cause = NULL;
	struct ibve_row *r;
	bool any = false;

	if (s) {
		s->count += ibve_event_count(ev);
		s->last = ev->time;
	}
	/* a verdict of why its port went down: counted by its cause too */
	if (o && o->down_cause && (cause = o->down_cause(ev)) &&
	    (s = ibve_ports_down(t, ev->device, ev->port, cause))) {
		s->count += ibve_event_count(ev);
		s->last = ev->time;
	}
	if (d && ev->node_guid)
		d->guid = ev->node_guid;
	if (d && (ev->fields & IBVE_FIELD_LOST))
		d->lost += ev->lost;
	workload(t, ev);
	if (t->recent) {
		t->recent[t->recent_head] = *ev;
		t->recent_head = (t->recent_head + 1) % IBVE_RECENT;
		if (t->recent_n < IBVE_RECENT)
			t->recent_n++;
	}
	t->sum.events += ibve_event_count(ev);
	if (!live && !t->started) {
		t->start = ev->time;
		t->started = true;
	}
	/* a source that says devices come and go: live, its records about a
	 * whole device are its presence, not events of its ports */
	if (d && o && o->presence && !ev->port) {
		presence(t, d, ev, o->presence(ev));
		if (live)
			return;
	} else if (d && !live) {
		d->present = true; /* a capture: it was there */
	}

	if (ev->port) {
		r = find_row(t, ev->device, ev->port);
		/* A CA known by its subnet events alone (no verbs device). */
		if (!r && live && o && o->names_devices &&
		    read_ports(t, ev->device) == 0)
			r = find_row(t, ev->device, ev->port);
		if (!r && !live && (r = add_row(t, ev->device, ev->port)))
			restore(t, r, &ev->time);
		if (!r)
			return;
		count(t, r, ev, k);
		if (cause)
			ibve_strcpy(r->pub.down_cause, cause,
				    sizeof(r->pub.down_cause));
		/* the last known far end: a lookup that found none while the
		 * port was down does not forget which cable it is */
		if ((ev->fields & IBVE_FIELD_PEER) &&
		    ev->verbs.peer.state == IBVE_PEER_KNOWN)
			r->pub.peer = ev->verbs.peer;
		if (ev->cls != IBVE_CLASS_PORT || (d && !d->present))
			return;
		if (live) /* the event says it changed: as read for it, or now */
			read_attrs(r, attrs, &ev->time);
		health(t, r, ev, k);
		return;
	}
	if (ev->fields & IBVE_FIELD_RATES)
		rates_changed(t, ev);
	/* About the whole device: every port of it shows it. */
	for (size_t i = row_lower(t, ev->device, 0);
	     i < t->nrows && strcmp(t->rows[i].pub.device, ev->device) == 0;
	     i++) {
		count(t, &t->rows[i], ev, k);
		any = true;
	}
	if (!any && !live && (r = add_row(t, ev->device, 0)))
		count(t, r, ev, k);
}

IBVE_EXPORT void ibve_ports_sample(struct ibve_ports *t,
				   const struct timespec *now)
{
	double dt = t->sampled ? ibve_ts_secs(&t->prev, now) : 0;

	if (!t->started) {
		t->start = *now;
		t->started = true;
	}
	t->sum.devices = 0;
	for (size_t i = 0; i < t->nrows; i++) {
		struct ibve_row *r = &t->rows[i];
		struct ibve_port_row *p = &r->pub;
		unsigned int pm = 0;

		if (i == 0 || strcmp(p->device, t->rows[i - 1].pub.device))
			t->sum.devices++;
		if (t->flags & IBVE_PORTS_SYSFS) {
			int up;

			read_attrs(r, NULL, now);
			/* a change no event told of: since now, about */
			up = ibve_state_up(p->state_num);
			if (up >= 0 && r->up >= 0 && up != r->up) {
				p->since = *now;
				p->since_start = false;
			}
			if (up >= 0)
				r->up = up;
		}
		if (t->flags & IBVE_PORTS_COUNTERS)
			read_counters(r, dt, false);
		p->flaps_window = 0;
		for (size_t f = 0; f < r->flap_n; f++)
			p->flaps_window += ibve_ts_secs(&r->flap_at[f], now) <
					   t->flap_window;
		for (size_t b = 0; b < IBVE_BUCKETS; b++)
			if (r->bucket_sec[b] > now->tv_sec - IBVE_BUCKETS &&
			    r->bucket_sec[b] <= now->tv_sec)
				pm += r->bucket_n[b];
		p->per_minute = pm;
		p->last_age = p->total ? ibve_ts_secs(&p->last_time, now) : 0;
		p->since_age =
			ts_zero(&p->since) ? 0 : ibve_ts_secs(&p->since, now);
	}
	t->sum.ports = t->nrows;
	t->sum.per_second =
		dt > 0 ? (double)(t->sum.events - t->events_at_sample) / dt : 0;
	t->events_at_sample = t->sum.events;
	t->sum.uptime = ibve_ts_secs(&t->start, now);
	t->prev = *now;
	t->sum.now = *now;
	t->sampled = true;
}

IBVE_EXPORT void ibve_ports_reset(struct ibve_ports *t)
{
	memset(t->sum.kinds, 0, sizeof(t->sum.kinds));
	for (size_t i = 0; i < t->nrows; i++) {
		struct ibve_row *r = &t->rows[i];
		struct ibve_port_row *p = &r->pub;

		memset(p->counts, 0, sizeof(p->counts));
		p->total = 0;
		p->per_minute = 0;
		p->last_event[0] = '\0';
		p->last_age = 0;
		memset(r->bucket_n, 0, sizeof(r->bucket_n));
		r->flap_n = 0;
		p->flaps = p->flaps_window = 0;
		for (size_t c = 0; c < p->counter_count; c++) {
			r->counters[c].delta = 0;
			r->counters[c].changed = false;
		}
		p->moved = 0;
	}
	t->sum.events = t->events_at_sample = 0;
	t->recent_n = 0;
	t->start = t->sum.now;
	t->sum.uptime = 0;
}

IBVE_EXPORT size_t ibve_ports_count(const struct ibve_ports *t)
{
	return t->nrows;
}

IBVE_EXPORT const struct ibve_port_row *
ibve_ports_at(const struct ibve_ports *t, size_t i)
{
	return i < t->nrows ? &t->rows[i].pub : NULL;
}

IBVE_EXPORT const struct ibve_event *
ibve_ports_recent(const struct ibve_ports *t, size_t i)
{
	if (!t->recent || i >= t->recent_n)
		return NULL;
	return &t->recent[(t->recent_head + IBVE_RECENT - 1 - i) % IBVE_RECENT];
}

IBVE_EXPORT const struct ibve_ports_summary *
ibve_ports_summary(const struct ibve_ports *t)
{
	return &t->sum;
}
