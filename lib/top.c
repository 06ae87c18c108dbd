// SPDX-License-Identifier: MIT
/*
 * The dashboard's model: one row per device port with its attributes, its
 * event counts by kind, events per minute, the last event and its age, and
 * the error counters that moved. Data collection only; drawing is the
 * command's. Live, attributes and counters come from sysfs; from a capture,
 * rows appear as events name them.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "internal.h"

#define RECENT	512 /* events kept for the log pane */
#define BUCKETS 60  /* one per second: events per minute */

struct row {
	struct ibve_top_port pub; /* first: handed out as is */
	int64_t bucket_sec[BUCKETS];
	uint32_t bucket_n[BUCKETS];
	uint64_t *base; /* counter values at start or reset */
};

struct ibve_top {
	unsigned int flags;
	struct row *rows; /* in (device, port) order */
	size_t nrows, cap;
	uint64_t kind_total[IBVE_TOP_KIND_COUNT]; /* over all rows */
	struct ibve_event recent[RECENT];
	size_t recent_head, recent_n;
	uint64_t events, events_at_sample;
	struct timespec start, now, prev;
	bool started, sampled;
	double per_second;
	char host[64], kernel[64];
};

static double secs(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

IBVE_EXPORT struct ibve_top *ibve_top_new(unsigned int flags)
{
	struct ibve_top *t = calloc(1, sizeof(*t));
	struct utsname u;

	if (!t)
		return NULL;
	t->flags = flags;
	if (uname(&u) == 0) {
		ibve_strcpy(t->host, u.nodename, sizeof(t->host));
		ibve_strcpy(t->kernel, u.release, sizeof(t->kernel));
	}
	return t;
}

static void free_row(struct row *r)
{
	free(r->pub.counters);
	free(r->base);
}

IBVE_EXPORT void ibve_top_free(struct ibve_top *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows; i++)
		free_row(&t->rows[i]);
	free(t->rows);
	free(t);
}

/*
 * Counters worth showing beside events: errors, drops, downs, retries
 * exhausted. A name is one when one of its words ("_"-separated) says so;
 * traffic counters (data, packets, sends, ack_deferred) are not errors.
 */
bool ibve_top_is_error_counter(const char *name)
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

static int row_cmp_key(const struct ibve_top_port *p, const char *device,
		       uint32_t port)
{
	int c = strcmp(p->device, device);

	return c ? c : (p->port > port) - (p->port < port);
}

/* The index of the first row not before (DEVICE, PORT). */
static size_t lower_bound(const struct ibve_top *t, const char *device,
			  uint32_t port)
{
	size_t lo = 0, hi = t->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (row_cmp_key(&t->rows[mid].pub, device, port) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct row *find_row(struct ibve_top *t, const char *device,
			    uint32_t port)
{
	size_t i = lower_bound(t, device, port);

	return i < t->nrows && row_cmp_key(&t->rows[i].pub, device, port) == 0
		       ? &t->rows[i]
		       : NULL;
}

/* A new row, kept in (device, port) order; NULL on ENOMEM. */
static struct row *add_row(struct ibve_top *t, const char *device,
			   uint32_t port)
{
	struct row *v, *r;
	size_t i;

	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;

		v = realloc(t->rows, cap * sizeof(*v));
		if (!v)
			return NULL;
		t->rows = v;
		t->cap = cap;
	}
	v = t->rows;
	i = lower_bound(t, device, port);
	memmove(&t->rows[i + 1], &t->rows[i], (t->nrows - i) * sizeof(*v));
	t->nrows++;
	r = &t->rows[i];
	memset(r, 0, sizeof(*r));
	ibve_strcpy(r->pub.device, device, sizeof(r->pub.device));
	r->pub.port = port;
	strcpy(r->pub.state, "-");
	strcpy(r->pub.phys_state, "-");
	strcpy(r->pub.link_layer, "-");
	strcpy(r->pub.rate, "-");
	strcpy(r->pub.address, "-");
	return r;
}

static void counter_dir(struct row *r, const char *dir, bool hw)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct ibve_top_counter *c;

		if (e->d_name[0] == '.' ||
		    !ibve_top_is_error_counter(e->d_name) ||
		    strlen(e->d_name) >= sizeof(c->name))
			continue;
		c = realloc(r->pub.counters,
			    (r->pub.counter_count + 1) * sizeof(*c));
		if (!c)
			break;
		r->pub.counters = c;
		c = &c[r->pub.counter_count++];
		memset(c, 0, sizeof(*c));
		ibve_strcpy(c->name, e->d_name, sizeof(c->name));
		c->hw = hw;
	}
	closedir(d);
}

static int name_order(const void *a, const void *b)
{
	const struct ibve_top_counter *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/*
 * Read every counter of R. FIRST takes the values as the base; later
 * reads give the delta since the base and the rate over DT seconds.
 */
static void read_counters(struct row *r, double dt, bool first)
{
	struct ibve_top_port *p = &r->pub;

	p->moved = 0;
	for (size_t i = 0; i < p->counter_count; i++) {
		struct ibve_top_counter *c = &p->counters[i];
		char path[512], v[64];
		uint64_t now;

		snprintf(path, sizeof(path), IBVE_SYSFS "/%s/ports/%u/%s/%s",
			 p->device, p->port, c->hw ? "hw_counters" : "counters",
			 c->name);
		if (ibve_sysfs_read(path, v, sizeof(v)) == 0) {
			now = strtoull(v, NULL, 0);
			if (first)
				r->base[i] = c->value = now;
			c->changed = now != c->value;
			c->rate = dt > 0 ? (double)(now - c->value) / dt : 0;
			c->value = now;
			c->delta = now - r->base[i];
		}
		if (c->delta)
			p->moved++;
	}
}

/* Which counters a port has: found once, when the row is made. */
static void find_counters(struct row *r)
{
	char dir[512];

	snprintf(dir, sizeof(dir), IBVE_SYSFS "/%s/ports/%u/counters",
		 r->pub.device, r->pub.port);
	counter_dir(r, dir, false);
	snprintf(dir, sizeof(dir), IBVE_SYSFS "/%s/ports/%u/hw_counters",
		 r->pub.device, r->pub.port);
	counter_dir(r, dir, true);
	if (r->pub.counter_count)
		qsort(r->pub.counters, r->pub.counter_count,
		      sizeof(*r->pub.counters), name_order);
	r->base = calloc(r->pub.counter_count + 1, sizeof(*r->base));
	if (!r->base)
		r->pub.counter_count = 0;
	read_counters(r, 0, true);
}

IBVE_EXPORT int ibve_top_add_device(struct ibve_top *t, const char *device)
{
	char dir[512];
	struct dirent *e;
	DIR *d;

	if (!(t->flags & IBVE_TOP_SYSFS))
		return 0;
	snprintf(dir, sizeof(dir), IBVE_SYSFS "/%s/ports", device);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		unsigned long port = strtoul(e->d_name, &end, 10);
		struct row *r;

		if (!isdigit((unsigned char)e->d_name[0]) || *end ||
		    find_row(t, device, (uint32_t)port))
			continue;
		r = add_row(t, device, (uint32_t)port);
		if (!r)
			break;
		find_counters(r);
	}
	closedir(d);
	return 0;
}

IBVE_EXPORT void ibve_top_remove_device(struct ibve_top *t, const char *device)
{
	size_t k = 0;

	for (size_t i = 0; i < t->nrows; i++) {
		if (strcmp(t->rows[i].pub.device, device) == 0) {
			for (size_t c = 0; c < IBVE_TOP_KIND_COUNT; c++)
				t->kind_total[c] -= t->rows[i].pub.counts[c];
			free_row(&t->rows[i]);
		} else {
			t->rows[k++] = t->rows[i];
		}
	}
	t->nrows = k;
}

static enum ibve_top_kind kind_of(const struct ibve_event *ev)
{
	static const struct {
		const char *name;
		enum ibve_top_kind kind;
	} kinds[] = {
		{ "PORT_ERR", IBVE_TOP_LINK_DOWN },
		{ "PORT_ACTIVE", IBVE_TOP_LINK_UP },
		{ "LID_CHANGE", IBVE_TOP_LID },
		{ "PKEY_CHANGE", IBVE_TOP_PKEY },
		{ "SM_CHANGE", IBVE_TOP_SM },
		{ "GID_CHANGE", IBVE_TOP_GID },
		{ "CLIENT_REREGISTER", IBVE_TOP_REREG },
		{ "DEVICE_FATAL", IBVE_TOP_FATAL },
	};

	if (ev->source == IBVE_SOURCE_VERBS && ev->desc)
		for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
			if (strcmp(ev->name, kinds[i].name) == 0)
				return kinds[i].kind;
	/* mlx5 PORT_CHANGE repeats the verbs port events: OTHER, not UP */
	if (ev->source == IBVE_SOURCE_MLX5 && ev->code == IBVE_MLX5_PORT_MODULE)
		return IBVE_TOP_MODULE;
	if (ev->source == IBVE_SOURCE_MLX5 && ev->code == IBVE_MLX5_TEMP_WARN)
		return IBVE_TOP_TEMP;
	if (ev->source == IBVE_SOURCE_MLX5 &&
	    ev->severity == IBVE_SEVERITY_FATAL)
		return IBVE_TOP_FATAL; /* INTERNAL_ERROR */
	if (ev->source == IBVE_SOURCE_SM)
		return IBVE_TOP_SUBNET; /* about other ports, seen from this one */
	return IBVE_TOP_OTHER;
}

static void count(struct ibve_top *t, struct row *r,
		  const struct ibve_event *ev, enum ibve_top_kind k,
		  bool derive_state)
{
	struct ibve_top_port *p = &r->pub;
	size_t b = (size_t)(ev->time.tv_sec % BUCKETS);

	t->kind_total[k]++;
	p->counts[k]++;
	p->total++;
	ibve_strcpy(p->last_event, ev->name, sizeof(p->last_event));
	p->last_time = ev->time;
	if (r->bucket_sec[b] != ev->time.tv_sec) {
		r->bucket_sec[b] = ev->time.tv_sec;
		r->bucket_n[b] = 0;
	}
	r->bucket_n[b]++;
	/* From a capture, port events are all we know of the state. */
	if (derive_state && p->port &&
	    (k == IBVE_TOP_LINK_DOWN || k == IBVE_TOP_LINK_UP))
		ibve_strcpy(p->state, k == IBVE_TOP_LINK_UP ? "ACTIVE" : "DOWN",
			    sizeof(p->state));
}

IBVE_EXPORT void ibve_top_event(struct ibve_top *t, const struct ibve_event *ev)
{
	bool live = t->flags & IBVE_TOP_SYSFS;
	enum ibve_top_kind k = kind_of(ev);
	bool any = false;

	t->recent[t->recent_head] = *ev;
	t->recent_head = (t->recent_head + 1) % RECENT;
	if (t->recent_n < RECENT)
		t->recent_n++;
	t->events++;
	if (!live && !t->started) {
		t->start = ev->time;
		t->started = true;
	}

	if (live && ev->source == IBVE_SOURCE_HOTPLUG) {
		if (ev->code == IBVE_HOTPLUG_DEVICE_ADDED)
			ibve_top_add_device(t, ev->device);
		else if (ev->code == IBVE_HOTPLUG_DEVICE_REMOVED)
			ibve_top_remove_device(t, ev->device);
		if (!ev->port)
			return;
	}
	if (ev->port) {
		struct row *r = find_row(t, ev->device, ev->port);

		/* A CA known by its subnet events alone (no verbs device). */
		if (!r && live && ev->source == IBVE_SOURCE_SM &&
		    ibve_top_add_device(t, ev->device) == 0)
			r = find_row(t, ev->device, ev->port);
		if (!r && !live)
			r = add_row(t, ev->device, ev->port);
		if (r)
			count(t, r, ev, k, !live);
		return;
	}
	/* About the whole device: every port of it shows it. */
	for (size_t i = lower_bound(t, ev->device, 0);
	     i < t->nrows && strcmp(t->rows[i].pub.device, ev->device) == 0;
	     i++) {
		count(t, &t->rows[i], ev, k, !live);
		any = true;
	}
	if (!any && !live) {
		struct row *r = add_row(t, ev->device, 0);

		if (r)
			count(t, r, ev, k, false);
	}
}

static void read_attributes(struct ibve_top_port *p)
{
	struct ibve_port_attrs a = { 0 };

	if (ibve_sysfs_port(p->device, p->port, &a))
		return;
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
}

IBVE_EXPORT void ibve_top_sample(struct ibve_top *t, const struct timespec *now)
{
	double dt = t->sampled ? secs(&t->prev, now) : 0;

	if (!t->started) {
		t->start = *now;
		t->started = true;
	}
	for (size_t i = 0; i < t->nrows; i++) {
		struct row *r = &t->rows[i];
		struct ibve_top_port *p = &r->pub;
		unsigned int pm = 0;

		if (t->flags & IBVE_TOP_SYSFS) {
			read_attributes(p);
			read_counters(r, dt, false);
		}
		for (size_t b = 0; b < BUCKETS; b++)
			if (r->bucket_sec[b] > now->tv_sec - BUCKETS &&
			    r->bucket_sec[b] <= now->tv_sec)
				pm += r->bucket_n[b];
		p->per_minute = pm;
		p->last_age = p->total ? secs(&p->last_time, now) : 0;
	}
	t->per_second = dt > 0 ? (double)(t->events - t->events_at_sample) / dt
			       : 0;
	t->events_at_sample = t->events;
	t->prev = *now;
	t->now = *now;
	t->sampled = true;
}

IBVE_EXPORT void ibve_top_reset(struct ibve_top *t)
{
	memset(t->kind_total, 0, sizeof(t->kind_total));
	for (size_t i = 0; i < t->nrows; i++) {
		struct row *r = &t->rows[i];
		struct ibve_top_port *p = &r->pub;

		memset(p->counts, 0, sizeof(p->counts));
		p->total = 0;
		p->per_minute = 0;
		p->last_event[0] = '\0';
		p->last_age = 0;
		memset(r->bucket_n, 0, sizeof(r->bucket_n));
		for (size_t c = 0; c < p->counter_count; c++) {
			r->base[c] = p->counters[c].value;
			p->counters[c].delta = 0;
			p->counters[c].changed = false;
		}
		p->moved = 0;
	}
	t->events = t->events_at_sample = 0;
	t->recent_n = 0;
	t->start = t->now;
}

IBVE_EXPORT size_t ibve_top_port_count(const struct ibve_top *t)
{
	return t->nrows;
}

IBVE_EXPORT const struct ibve_top_port *
ibve_top_port_at(const struct ibve_top *t, size_t i)
{
	return i < t->nrows ? &t->rows[i].pub : NULL;
}

IBVE_EXPORT const struct ibve_event *ibve_top_recent(const struct ibve_top *t,
						     size_t i)
{
	if (i >= t->recent_n)
		return NULL;
	return &t->recent[(t->recent_head + RECENT - 1 - i) % RECENT];
}

IBVE_EXPORT void ibve_top_summary(const struct ibve_top *t,
				  struct ibve_top_summary *s)
{
	memset(s, 0, sizeof(*s));
	if (t->flags & IBVE_TOP_SYSFS) {
		ibve_strcpy(s->host, t->host, sizeof(s->host));
		ibve_strcpy(s->kernel, t->kernel, sizeof(s->kernel));
	}
	for (size_t i = 0; i < t->nrows; i++)
		if (i == 0 || strcmp(t->rows[i].pub.device,
				     t->rows[i - 1].pub.device) != 0)
			s->devices++;
	s->ports = t->nrows;
	s->events = t->events;
	s->per_second = t->per_second;
	s->uptime = t->started ? secs(&t->start, &t->now) : 0;
}

static const struct {
	const char *title;
	int width; /* negative: left-aligned */
} columns[] = {
	[IBVE_TOP_COL_DEVICE] = { "DEVICE", -10 },
	[IBVE_TOP_COL_PORT] = { "PORT", 4 },
	[IBVE_TOP_COL_STATE] = { "STATE", -6 },
	[IBVE_TOP_COL_PHYS] = { "PHYS", -8 },
	[IBVE_TOP_COL_LINK] = { "LINK", -4 },
	[IBVE_TOP_COL_RATE] = { "RATE", 6 },
	[IBVE_TOP_COL_ADDRESS] = { "LID/GID", -26 },
	[IBVE_TOP_COL_DOWN] = { "DOWN", 5 },
	[IBVE_TOP_COL_UP] = { "UP", 5 },
	[IBVE_TOP_COL_LID] = { "LID", 4 },
	[IBVE_TOP_COL_PKEY] = { "PKEY", 4 },
	[IBVE_TOP_COL_SM] = { "SM", 4 },
	[IBVE_TOP_COL_GID] = { "GID", 4 },
	[IBVE_TOP_COL_REREG] = { "REREG", 5 },
	[IBVE_TOP_COL_FATAL] = { "FATAL", 5 },
	[IBVE_TOP_COL_MODULE] = { "MODULE", 6 },
	[IBVE_TOP_COL_TEMP] = { "TEMP", 4 },
	[IBVE_TOP_COL_SUBNET] = { "SUBNET", 6 },
	[IBVE_TOP_COL_OTHER] = { "OTHER", 5 },
	[IBVE_TOP_COL_TOTAL] = { "TOTAL", 6 },
	[IBVE_TOP_COL_PER_MIN] = { "EV/MIN", 6 },
	[IBVE_TOP_COL_LAST] = { "LAST EVENT", -19 },
	[IBVE_TOP_COL_AGE] = { "AGE", 6 },
	[IBVE_TOP_COL_COUNTERS] = { "ERROR COUNTERS MOVED", -20 },
};

IBVE_EXPORT const char *ibve_top_column_title(enum ibve_top_column col)
{
	return (size_t)col < ARRAY_SIZE(columns) ? columns[col].title : "";
}

IBVE_EXPORT bool ibve_top_column_visible(const struct ibve_top *t,
					 enum ibve_top_column col)
{
	enum ibve_top_kind k;

	if (col == IBVE_TOP_COL_MODULE)
		k = IBVE_TOP_MODULE;
	else if (col == IBVE_TOP_COL_TEMP)
		k = IBVE_TOP_TEMP;
	else if (col == IBVE_TOP_COL_SUBNET)
		k = IBVE_TOP_SUBNET;
	else
		return (size_t)col < ARRAY_SIZE(columns);
	return t->kind_total[k] != 0;
}

IBVE_EXPORT int ibve_top_column_width(enum ibve_top_column col)
{
	return (size_t)col < ARRAY_SIZE(columns) ? columns[col].width : 0;
}

/* 42s, 3m04s, 2h05m, 3d04h */
static void put_age(struct ibve_buf *b, double s)
{
	long v = (long)s;

	if (v < 60)
		ibve_buf_printf(b, "%lds", v);
	else if (v < 3600)
		ibve_buf_printf(b, "%ldm%02lds", v / 60, v % 60);
	else if (v < 86400)
		ibve_buf_printf(b, "%ldh%02ldm", v / 3600, v % 3600 / 60);
	else
		ibve_buf_printf(b, "%ldd%02ldh", v / 86400, v % 86400 / 3600);
}

static int by_delta(const void *a, const void *b)
{
	const struct ibve_top_counter *x =
		*(const struct ibve_top_counter *const *)a;
	const struct ibve_top_counter *y =
		*(const struct ibve_top_counter *const *)b;

	if (x->delta != y->delta)
		return x->delta < y->delta ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void put_moved(struct ibve_buf *b, const struct ibve_top_port *p)
{
	const struct ibve_top_counter **v;
	size_t n = 0;

	if (!p->moved) {
		ibve_buf_putc(b, '-');
		return;
	}
	v = calloc(p->moved, sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < p->counter_count && n < p->moved; i++)
		if (p->counters[i].delta)
			v[n++] = &p->counters[i];
	qsort(v, n, sizeof(*v), by_delta);
	for (size_t i = 0; i < n; i++)
		ibve_buf_printf(b, "%s%s+%" PRIu64, i ? " " : "", v[i]->name,
				v[i]->delta);
	free(v);
}

static const enum ibve_top_kind count_col[] = {
	[IBVE_TOP_COL_DOWN] = IBVE_TOP_LINK_DOWN,
	[IBVE_TOP_COL_UP] = IBVE_TOP_LINK_UP,
	[IBVE_TOP_COL_LID] = IBVE_TOP_LID,
	[IBVE_TOP_COL_PKEY] = IBVE_TOP_PKEY,
	[IBVE_TOP_COL_SM] = IBVE_TOP_SM,
	[IBVE_TOP_COL_GID] = IBVE_TOP_GID,
	[IBVE_TOP_COL_REREG] = IBVE_TOP_REREG,
	[IBVE_TOP_COL_FATAL] = IBVE_TOP_FATAL,
	[IBVE_TOP_COL_MODULE] = IBVE_TOP_MODULE,
	[IBVE_TOP_COL_TEMP] = IBVE_TOP_TEMP,
	[IBVE_TOP_COL_SUBNET] = IBVE_TOP_SUBNET,
	[IBVE_TOP_COL_OTHER] = IBVE_TOP_OTHER,
};

static void put_cell(struct ibve_buf *b, const struct ibve_top_port *p,
		     enum ibve_top_column col)
{
	switch (col) {
	case IBVE_TOP_COL_DEVICE:
		ibve_buf_text_str(b, p->device);
		break;
	case IBVE_TOP_COL_PORT:
		if (p->port)
			ibve_buf_printf(b, "%u", p->port);
		else
			ibve_buf_putc(b, '-');
		break;
	case IBVE_TOP_COL_STATE:
		ibve_buf_puts(b, p->state);
		break;
	case IBVE_TOP_COL_PHYS:
		ibve_buf_puts(b, p->phys_state);
		break;
	case IBVE_TOP_COL_LINK:
		ibve_buf_puts(b, strcmp(p->link_layer, "InfiniBand") == 0 ? "IB"
				 : strcmp(p->link_layer, "Ethernet") == 0
					 ? "Eth"
					 : p->link_layer);
		break;
	case IBVE_TOP_COL_RATE: {
		char *end;
		double g = strtod(p->rate, &end);

		if (end != p->rate)
			ibve_buf_printf(b, "%gG", g);
		else
			ibve_buf_puts(b, p->rate);
		break;
	}
	case IBVE_TOP_COL_ADDRESS:
		ibve_buf_puts(b, p->address);
		break;
	case IBVE_TOP_COL_TOTAL:
		ibve_buf_printf(b, "%" PRIu64, p->total);
		break;
	case IBVE_TOP_COL_PER_MIN:
		ibve_buf_printf(b, "%u", p->per_minute);
		break;
	case IBVE_TOP_COL_LAST:
		ibve_buf_text_str(b, p->last_event[0] ? p->last_event : "-");
		break;
	case IBVE_TOP_COL_AGE:
		if (p->total)
			put_age(b, p->last_age);
		else
			ibve_buf_putc(b, '-');
		break;
	case IBVE_TOP_COL_COUNTERS:
		put_moved(b, p);
		break;
	case IBVE_TOP_COL_COUNT:
		break;
	default:
		ibve_buf_printf(b, "%" PRIu64, p->counts[count_col[col]]);
		break;
	}
}

IBVE_EXPORT size_t ibve_top_cell(const struct ibve_top_port *p,
				 enum ibve_top_column col, char *buf,
				 size_t size)
{
	struct ibve_buf b = { buf, size, 0 };

	put_cell(&b, p, col);
	return ibve_buf_end(&b);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

IBVE_EXPORT int ibve_top_compare(const struct ibve_top_port *a,
				 const struct ibve_top_port *b,
				 enum ibve_top_column col)
{
	int c = 0;

	switch (col) {
	case IBVE_TOP_COL_DEVICE:
	case IBVE_TOP_COL_PORT:
		break;
	case IBVE_TOP_COL_STATE:
		c = strcmp(a->state, b->state);
		break;
	case IBVE_TOP_COL_PHYS:
		c = strcmp(a->phys_state, b->phys_state);
		break;
	case IBVE_TOP_COL_LINK:
		c = strcmp(a->link_layer, b->link_layer);
		break;
	case IBVE_TOP_COL_RATE:
		c = (strtod(a->rate, NULL) > strtod(b->rate, NULL)) -
		    (strtod(a->rate, NULL) < strtod(b->rate, NULL));
		break;
	case IBVE_TOP_COL_ADDRESS:
		c = strcmp(a->address, b->address);
		break;
	case IBVE_TOP_COL_TOTAL:
		c = cmp_u64(a->total, b->total);
		break;
	case IBVE_TOP_COL_PER_MIN:
		c = cmp_u64(a->per_minute, b->per_minute);
		break;
	case IBVE_TOP_COL_LAST:
		c = strcmp(a->last_event, b->last_event);
		break;
	case IBVE_TOP_COL_AGE:
		/* rows with no event at all come after the oldest */
		if (!a->total || !b->total)
			c = cmp_u64(!a->total, !b->total);
		else
			c = (a->last_age > b->last_age) -
			    (a->last_age < b->last_age);
		break;
	case IBVE_TOP_COL_COUNTERS:
		c = cmp_u64(a->moved, b->moved);
		break;
	case IBVE_TOP_COL_COUNT:
		break;
	default:
		c = cmp_u64(a->counts[count_col[col]],
			    b->counts[count_col[col]]);
		break;
	}
	return c ? c : row_cmp_key(a, b->device, b->port);
}

static void put_header(struct ibve_buf *b, const struct ibve_top *t)
{
	struct ibve_top_summary s;
	char when[64];
	struct tm tm;
	time_t now = t->now.tv_sec;
	long up;

	ibve_top_summary(t, &s);
	up = (long)s.uptime;
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	ibve_buf_printf(b, "ibv_eventtop - %s - ", when);
	if (s.host[0]) {
		ibve_buf_text_str(b, s.host);
		ibve_buf_puts(b, " - Linux ");
		ibve_buf_text_str(b, s.kernel);
	} else {
		ibve_buf_puts(b, "replay");
	}
	ibve_buf_printf(b, " - up %02ld:%02ld:%02ld\n", up / 3600,
			up % 3600 / 60, up % 60);
	ibve_buf_printf(b,
			"%zu device%s, %zu port%s, %" PRIu64
			" event%s, %.2f events/s\n",
			s.devices, s.devices == 1 ? "" : "s", s.ports,
			s.ports == 1 ? "" : "s", s.events,
			s.events == 1 ? "" : "s", s.per_second);
}

static void put_padded(struct ibve_buf *b, const char *s, int width)
{
	int n = (int)strlen(s), w = width < 0 ? -width : width;

	if (width > 0)
		for (int i = n; i < w; i++)
			ibve_buf_putc(b, ' ');
	ibve_buf_puts(b, s);
	if (width < 0)
		for (int i = n; i < w; i++)
			ibve_buf_putc(b, ' ');
}

IBVE_EXPORT size_t ibve_top_format_text(const struct ibve_top *t,
					const size_t *order, size_t n,
					char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };

	put_header(&b, t);
	ibve_buf_putc(&b, '\n');
	for (int c = 0; c < IBVE_TOP_COL_COUNT; c++) {
		if (!ibve_top_column_visible(t, (enum ibve_top_column)c))
			continue;
		if (c)
			ibve_buf_putc(&b, ' ');
		if (c == IBVE_TOP_COL_COUNT - 1)
			ibve_buf_puts(&b, columns[c].title);
		else
			put_padded(&b, columns[c].title, columns[c].width);
	}
	ibve_buf_putc(&b, '\n');
	for (size_t i = 0; i < n; i++) {
		const struct ibve_top_port *p =
			&t->rows[order ? order[i] : i].pub;

		for (int c = 0; c < IBVE_TOP_COL_COUNT; c++) {
			char cell[512];

			if (!ibve_top_column_visible(t,
						     (enum ibve_top_column)c))
				continue;
			if (c)
				ibve_buf_putc(&b, ' ');
			ibve_top_cell(p, (enum ibve_top_column)c, cell,
				      sizeof(cell));
			if (c == IBVE_TOP_COL_COUNT - 1)
				ibve_buf_puts(&b, cell);
			else
				put_padded(&b, cell, columns[c].width);
		}
		ibve_buf_putc(&b, '\n');
	}
	return ibve_buf_end(&b);
}

static const char *const kind_names[IBVE_TOP_KIND_COUNT] = {
	[IBVE_TOP_LINK_DOWN] = "link_down",
	[IBVE_TOP_LINK_UP] = "link_up",
	[IBVE_TOP_LID] = "lid_change",
	[IBVE_TOP_PKEY] = "pkey_change",
	[IBVE_TOP_SM] = "sm_change",
	[IBVE_TOP_GID] = "gid_change",
	[IBVE_TOP_REREG] = "client_reregister",
	[IBVE_TOP_FATAL] = "fatal",
	[IBVE_TOP_MODULE] = "module",
	[IBVE_TOP_TEMP] = "temperature",
	[IBVE_TOP_SUBNET] = "subnet",
	[IBVE_TOP_OTHER] = "other",
};

IBVE_EXPORT size_t ibve_top_format_json(const struct ibve_top *t,
					const size_t *order, size_t n,
					char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	struct ibve_top_summary s;
	char tmp[64];

	ibve_top_summary(t, &s);
	ibve_time_format(&t->now, tmp, sizeof(tmp));
	ibve_buf_printf(&b, "{\"time\":\"%s\",\"host\":", tmp);
	if (s.host[0])
		ibve_buf_json_str(&b, s.host);
	else
		ibve_buf_puts(&b, "null");
	ibve_buf_puts(&b, ",\"kernel\":");
	if (s.kernel[0])
		ibve_buf_json_str(&b, s.kernel);
	else
		ibve_buf_puts(&b, "null");
	ibve_buf_printf(&b,
			",\"devices\":%zu,\"ports\":%zu,\"events\":%" PRIu64
			",\"per_second\":%.3f,\"uptime\":%.3f,\"rows\":[",
			s.devices, s.ports, s.events, s.per_second, s.uptime);
	for (size_t i = 0; i < n; i++) {
		const struct ibve_top_port *p =
			&t->rows[order ? order[i] : i].pub;

		ibve_buf_puts(&b, i ? ",{\"device\":" : "{\"device\":");
		ibve_buf_json_str(&b, p->device);
		if (p->port)
			ibve_buf_printf(&b, ",\"port\":%u", p->port);
		else
			ibve_buf_puts(&b, ",\"port\":null");
		ibve_buf_printf(
			&b,
			",\"state\":\"%s\",\"phys_state\":\"%s\",\"link_layer\":\"%s\",\"rate\":\"%s\",\"address\":\"%s\",\"counts\":{",
			p->state, p->phys_state, p->link_layer, p->rate,
			p->address);
		for (int k = 0; k < IBVE_TOP_KIND_COUNT; k++)
			ibve_buf_printf(&b, "%s\"%s\":%" PRIu64, k ? "," : "",
					kind_names[k], p->counts[k]);
		ibve_buf_printf(&b, "},\"total\":%" PRIu64 ",\"per_minute\":%u",
				p->total, p->per_minute);
		if (p->total) {
			ibve_time_format(&p->last_time, tmp, sizeof(tmp));
			ibve_buf_puts(&b, ",\"last_event\":");
			ibve_buf_json_str(&b, p->last_event);
			ibve_buf_printf(
				&b, ",\"last_time\":\"%s\",\"last_age\":%.3f",
				tmp, p->last_age);
		} else {
			ibve_buf_puts(
				&b,
				",\"last_event\":null,\"last_time\":null,\"last_age\":null");
		}
		ibve_buf_puts(&b, ",\"counters\":[");
		for (size_t c = 0; c < p->counter_count; c++) {
			const struct ibve_top_counter *k = &p->counters[c];

			ibve_buf_printf(
				&b,
				"%s{\"name\":\"%s\",\"hw\":%s,\"value\":%" PRIu64
				",\"delta\":%" PRIu64
				",\"rate\":%.3f,\"changed\":%s}",
				c ? "," : "", k->name, k->hw ? "true" : "false",
				k->value, k->delta, k->rate,
				k->changed ? "true" : "false");
		}
		ibve_buf_puts(&b, "]}");
	}
	ibve_buf_puts(&b, "]}\n");
	return ibve_buf_end(&b);
}
