// SPDX-License-Identifier: MIT
/*
 * Storm summaries. Each key (event, device, port and, for affiliated
 * events, the owner) counts its events in windows of a second; past the
 * threshold it storms: its events are counted into an interval of a
 * second, written as one summary record when the interval ends, and the
 * first interval with no more than the threshold ends the storm, its
 * summary saying so. Time is the records' own (a replay's is the
 * capture's); live, the pipeline's clock ends intervals no event ends.
 * Every event goes out once, alone or counted in exactly one summary.
 */
#include <errno.h>
#include <stdlib.h>

#include "storm.h"

struct slot {
	bool storming;
	struct timespec win; /* the counting window's start */
	unsigned long n;     /* events in it */
	/* storming: the interval [from, from + 1 s) */
	struct timespec from, last;
	uint64_t count, total;
	struct timespec since;	 /* the storm's first event */
	struct ibve_event first; /* the interval's first event (or the last) */
	uint32_t last_object;
	bool has_last;
};

struct ibve_storm {
	unsigned long threshold;
	struct slot *v;
	size_t n;
	struct timespec due; /* the soonest interval's end; 0: none */
};

int ibve_storm_new(struct ibve_storm **out, unsigned long threshold)
{
	struct ibve_storm *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return ibve_error(ENOMEM, "out of memory");
	s->threshold = threshold;
	return 0;
}

void ibve_storm_free(struct ibve_storm *s)
{
	if (s)
		free(s->v);
	free(s);
}

/* Whether A and B are events of one key. */
static bool same_key(const struct ibve_event *a, const struct ibve_event *b)
{
	const uint32_t owner = IBVE_FIELD_OWNER | IBVE_FIELD_KERNEL;

	if (a->source != b->source || a->code != b->code ||
	    a->port != b->port || a->affiliated != b->affiliated ||
	    strcmp(a->name, b->name) || strcmp(a->device, b->device))
		return false;
	if (!a->affiliated)
		return true;
	if ((a->fields & owner) != (b->fields & owner))
		return false;
	if (a->fields & IBVE_FIELD_OWNER &&
	    (a->kernel.pid != b->kernel.pid ||
	     strcmp(a->kernel.comm, b->kernel.comm)))
		return false;
	return !(a->fields & IBVE_FIELD_KERNEL) ||
	       !strcmp(a->kernel.consumer, b->kernel.consumer);
}

/* The object EV is about: its QP, WQ or handle number. */
static bool object_of(const struct ibve_event *ev, uint32_t *obj)
{
	if (ev->fields & IBVE_FIELD_QP_NUM)
		*obj = ev->qp_num;
	else if (ev->fields & IBVE_FIELD_WQ_NUM)
		*obj = ev->wq_num;
	else if (ev->fields & IBVE_FIELD_HANDLE)
		*obj = ev->handle;
	else
		return false;
	return true;
}

static uint64_t us_between(const struct timespec *a, const struct timespec *b)
{
	double s = ibve_ts_secs(a, b);

	return s > 0 ? (uint64_t)(s * 1e6 + 0.5) : 0;
}

/* The soonest end of a storming slot's interval. */
static void set_due(struct ibve_storm *s)
{
	s->due = (struct timespec){ 0 };
	for (size_t i = 0; i < s->n; i++) {
		struct timespec end = s->v[i].from;

		if (!s->v[i].storming)
			continue;
		ibve_ts_add(&end, 1);
		if (!s->due.tv_sec || ibve_ts_before(&end, &s->due))
			s->due = end;
	}
}

/*
 * The summary of K's interval, which ended at END (NULL: at its last
 * event, the run ending): the storm goes on when it had more than the
 * threshold, else it ends (and so does every storm when END is NULL).
 */
static int close_interval(struct ibve_storm *s, struct slot *k,
			  const struct timespec *end, ibve_storm_out out,
			  void *arg)
{
	struct timespec at = end ? *end : k->count ? k->last : k->from;
	bool over = !end || k->count <= s->threshold;
	struct ibve_event rec = k->first;
	uint32_t obj = 0;

	k->total += k->count;
	rec.time = at;
	rec.fields |= IBVE_FIELD_SUMMARY;
	rec.summary = (struct ibve_summary){
		.count = k->count,
		.interval_us = us_between(&k->from, &at),
		.last_object = k->last_object,
		/* named when it is not the first's */
		.has_last = k->count > 1 && k->has_last &&
			    (!object_of(&rec, &obj) || obj != k->last_object),
		.end = over,
		.total = over ? k->total : 0,
		.storm_us = over ? us_between(&k->since, &at) : 0,
	};
	k->count = 0;
	k->has_last = false;
	k->from = at;
	if (over) {
		k->storming = false;
		k->win = at;
		k->n = 0;
	}
	return out(&rec, arg);
}

int ibve_storm_tick(struct ibve_storm *s, const struct timespec *now,
		    ibve_storm_out out, void *arg)
{
	int r = 0;

	if (now && (!s->due.tv_sec || ibve_ts_before(now, &s->due)))
		return 0;
	for (size_t i = 0; i < s->n && !r; i++) {
		struct slot *k = &s->v[i];
		struct timespec end;

		/* an interval at a time: a quiet one ends the storm */
		while (!r && k->storming) {
			end = k->from;
			ibve_ts_add(&end, 1);
			if (now && ibve_ts_before(now, &end))
				break;
			r = close_interval(s, k, now ? &end : NULL, out, arg);
		}
	}
	set_due(s);
	return r;
}

int ibve_storm_next(const struct ibve_storm *s, const struct timespec *now)
{
	double left;

	if (!s->due.tv_sec)
		return -1;
	left = ibve_ts_secs(now, &s->due);
	/* rounded up: due when it returns */
	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* The slot of EV's key: found, or a free one (a quiet key's); NULL. */
static struct slot *slot_of(struct ibve_storm *s, const struct ibve_event *ev)
{
	struct slot *spare = NULL, *v;

	for (size_t i = 0; i < s->n; i++) {
		struct slot *k = &s->v[i];

		if (same_key(&k->first, ev))
			return k;
		/* a key whose window has passed counts nothing any more */
		if (!spare && !k->storming &&
		    ibve_ts_secs(&k->win, &ev->time) >= 1)
			spare = k;
	}
	if (!spare) {
		v = realloc(s->v, (s->n + 1) * sizeof(*v));
		if (!v)
			return NULL;
		s->v = v;
		spare = &v[s->n++];
	}
	*spare = (struct slot){ .win = ev->time };
	spare->first = *ev;
	return spare;
}

int ibve_storm_feed(struct ibve_storm *s, const struct ibve_event *ev,
		    ibve_storm_out out, void *arg)
{
	struct slot *k;
	uint32_t obj = 0;
	int r;

	/* the intervals this record's time ended go out before it */
	if ((r = ibve_storm_tick(s, &ev->time, out, arg)))
		return r;
	/* a summary (a replay's) is not summarised again */
	if (ev->fields & IBVE_FIELD_SUMMARY)
		return out(ev, arg);
	if (!(k = slot_of(s, ev))) {
		ibve_error(ENOMEM, "out of memory: an event written alone");
		return out(ev, arg);
	}
	if (!k->storming) {
		if (ibve_ts_secs(&k->win, &ev->time) >= 1) {
			k->win = ev->time;
			k->n = 0;
		}
		if (++k->n <= s->threshold) {
			k->first = *ev;
			return out(ev, arg);
		}
		/* past the threshold: the storm starts with this event */
		k->storming = true;
		k->since = k->from = ev->time;
		k->total = 0;
		set_due(s);
	}
	if (!k->count)
		k->first = *ev;
	k->count++;
	k->last = ev->time;
	k->has_last = object_of(ev, &obj);
	k->last_object = obj;
	return 0;
}
