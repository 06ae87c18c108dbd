// SPDX-License-Identifier: MIT
/*
 * What came, as the dashboard tells it: the event log, where a storm is
 * one line that counts its events, and the rate of events over the last
 * seconds, for the header.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "top.h"

void top_rate_add(struct top_rate *r, const struct ibve_event *ev)
{
	size_t b = (size_t)(ev->time.tv_sec % TOP_RATE_SECS);

	if (r->sec[b] != ev->time.tv_sec) {
		r->sec[b] = ev->time.tv_sec;
		r->n[b] = 0;
	}
	r->n[b] += ibve_event_count(ev);
}

void top_log_line(const struct ibve_event *ev, char *line, size_t size)
{
	struct ibve_buf b = { line, size, 0 };
	char where[IBVE_NAME_MAX + 16], job[96], text[1024], *d;
	bool storm = ev->fields & IBVE_FIELD_SUMMARY;
	struct tm tm;
	time_t t = ev->time.tv_sec;
	size_t n;

	localtime_r(&t, &tm);
	snprintf(where, sizeof(where), ev->port ? "%s/%u" : "%s", ev->device,
		 ev->port);
	ibve_buf_printf(&b, "%02d:%02d:%02d %-10s %-20s ", tm.tm_hour,
			tm.tm_min, tm.tm_sec, where, ev->name);
	/* the watcher's words after syslog's "source=NAME: ": the
	 * description (or a storm's count), then N bytes of details */
	ibve_event_format_syslog(ev, text, sizeof(text));
	d = strstr(text, " source=");
	d = d && strstr(d, ": ") ? strstr(d, ": ") + 2 : text;
	n = strlen(d) - ibve_event_format_details(ev, NULL, 0);
	if (storm)
		ibve_buf_printf(&b, "%.*s ", (int)n, d);
	if (ev->fields & IBVE_FIELD_KERNEL) {
		ibve_buf_printf(&b, "[%s] ", ev->kernel.consumer);
	} else if (ev->fields & IBVE_FIELD_OWNER) {
		ibve_buf_printf(&b, "%s[%u] ", ev->kernel.comm, ev->kernel.pid);
		if (ibve_cgroup_job(ev->kernel.cgroup, job, sizeof(job)))
			ibve_buf_printf(&b, "%s: ", job);
	}
	ibve_buf_puts(&b, storm ? d + n + (d[n] == ' ') : d);
	ibve_buf_end(&b);
}

/* Events a second over the last WINDOW seconds, as of the last sample. */
static double rate(const struct view *v, int window)
{
	const struct ibve_ports_summary *s = ibve_ports_summary(v->ports);
	int64_t now = s->now.tv_sec;
	/* a view up for less than the window: over its time */
	double up = s->uptime < window ? s->uptime : window;
	uint64_t n = 0;

	for (size_t i = 0; i < TOP_RATE_SECS; i++)
		if (v->rate.sec[i] > now - window && v->rate.sec[i] <= now)
			n += v->rate.n[i];
	return (double)n / (up < 1 ? 1 : up);
}

void top_put_counts(struct ibve_buf *b, const struct view *v, bool minute)
{
	const struct ibve_ports_summary *s = ibve_ports_summary(v->ports);

	ibve_buf_printf(b, "%zu device%s, %zu port%s, %llu event%s", s->devices,
			s->devices == 1 ? "" : "s", s->ports,
			s->ports == 1 ? "" : "s", (unsigned long long)s->events,
			s->events == 1 ? "" : "s");
	ibve_buf_printf(b, ", %.1f/s over 10 s", rate(v, 10));
	if (minute)
		ibve_buf_printf(b, ", %.1f/s over 1 min", rate(v, 60));
}

static double secs(const struct ibve_event *ev)
{
	return (double)ev->time.tv_sec + (double)ev->time.tv_nsec / 1e9;
}

/* Records of one key: event, device, port and owner, as storms have it. */
static bool same_key(const struct ibve_event *a, const struct ibve_event *b)
{
	const uint32_t owner = IBVE_FIELD_OWNER | IBVE_FIELD_KERNEL;

	if (a->source != b->source || a->code != b->code ||
	    a->port != b->port || strcmp(a->name, b->name) ||
	    strcmp(a->device, b->device) ||
	    (a->fields & owner) != (b->fields & owner))
		return false;
	if (a->fields & IBVE_FIELD_OWNER)
		return a->kernel.pid == b->kernel.pid &&
		       !strcmp(a->kernel.comm, b->kernel.comm);
	return !(a->fields & IBVE_FIELD_KERNEL) ||
	       !strcmp(a->kernel.consumer, b->kernel.consumer);
}

static struct top_line *line_at(const struct top_log *l, size_t i)
{
	return &l->v[(l->head + TOP_LOG_MAX - 1 - i) % TOP_LOG_MAX];
}

const struct top_line *top_log_at(const struct top_log *l, size_t i)
{
	return i < l->n ? line_at(l, i) : NULL;
}

/*
 * A summary takes in the lines of its key from a second before its
 * interval on (the events before the storm, its earlier seconds); a
 * record joins the line of a storm of its key that has not ended. The
 * line goes on top.
 */
int top_log_add(struct top_log *l, const struct ibve_event *ev)
{
	bool sum = ev->fields & IBVE_FIELD_SUMMARY;
	double span = sum ? (double)ev->summary.interval_us / 1e6 : 0;
	/* a summary's interval ends at its time */
	struct top_line line = { *ev, ibve_event_count(ev),  secs(ev) - span, 0,
				 sum, sum && ev->summary.end };

	if (!l->v && !(l->v = calloc(TOP_LOG_MAX, sizeof(*l->v))))
		return ibve_error(ENOMEM, "the event log: out of memory");
	for (size_t i = 0; i < l->n;) {
		struct top_line *k = line_at(l, i);

		if (top_secs(&k->ev.time, &ev->time) > 1 + span)
			break; /* the rest are older */
		if (!same_key(&k->ev, ev) || (!sum && (!k->storm || k->over))) {
			i++;
			continue;
		}
		line.count += k->count;
		if (k->first < line.first)
			line.first = k->first;
		line.id = line.id ? line.id : k->id;
		line.storm = true;
		/* out of the ring: the newer lines move down a place */
		for (; i > 0; i--)
			*line_at(l, i) = *line_at(l, i - 1);
		l->head = (l->head + TOP_LOG_MAX - 1) % TOP_LOG_MAX;
		l->n--;
	}
	if (!line.id)
		line.id = ++l->ids;
	l->head = (l->head + 1) % TOP_LOG_MAX;
	l->n += l->n < TOP_LOG_MAX;
	*line_at(l, 0) = line;
	return 0;
}

void top_log_record(const struct top_line *l, struct ibve_event *ev)
{
	double s = secs(&l->ev) - l->first;
	uint64_t us = s > 0 ? (uint64_t)(s * 1e6 + 0.5) : 0;

	*ev = l->ev;
	if (!l->storm)
		return;
	ev->fields |= IBVE_FIELD_SUMMARY;
	ev->summary = (struct ibve_summary){
		.count = l->over ? 0 : l->count,
		.interval_us = us,
		.end = l->over,
		.total = l->count,
		.storm_us = us,
	};
}

int top_log_find(const struct top_log *l, uint64_t id, int at)
{
	for (size_t i = 0; i < l->n; i++)
		if (line_at(l, i)->id == id)
			return (int)i;
	if (at >= (int)l->n)
		at = (int)l->n - 1;
	return at > 0 ? at : 0;
}

void top_log_reset(struct top_log *l)
{
	l->n = 0;
}
