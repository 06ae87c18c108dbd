// SPDX-License-Identifier: MIT
/*
 * The pipeline: sources behind one epoll fd, records handed to sinks (or
 * to the caller), one poll loop, and the stop conditions. It knows no
 * source and no sink by name: sources are the table of sources.c, found by
 * the name the caller gives, and talk to the pipeline only through the
 * host interface (source.h), which offers them the device set (devices.h);
 * sinks through theirs (sink.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "buf.h"
#include "devices.h"
#include "filter.h"
#include "ports.h"
#include "sink.h"
#include "source.h"
#include "storm.h"

struct inst {
	const struct ibve_source_ops *ops;
	void *src;
	bool started, done;
};

struct watch {
	int fd;
	struct inst *in;
	uint32_t cookie;
	bool always; /* a regular file: epoll refuses it, it is always ready */
};

struct sink_at {
	struct ibve_sink *sink;
	unsigned int flags;
	struct ibve_storm *storm; /* IBVE_SINK_SUMMARY in a run with storms */
};

struct ibve_pipeline {
	struct ibve_loop *loop;
	int epfd;
	/*
	 * Readable in epfd while some watch is always ready (a capture in a
	 * regular file), so the pipeline's fd says so to the caller's poll.
	 */
	int kick;
	size_t nalways;
	struct ibve_host host;
	struct inst *in;
	size_t nin;
	struct watch **watches;
	size_t nwatches;
	struct sink_at *sinks;
	size_t nsinks;
	const struct ibve_filter *filter;
	unsigned long storm; /* the threshold; 0: none */
	ibve_note_cb note;
	void *note_arg;
	int (*clock)(const struct timespec *now, void *arg);
	void *clock_arg;
	int (*idle)(void *arg);
	void *idle_arg;
	struct timespec born; /* CLOCK_REALTIME */
	/* records emitted and not yet handed out, oldest first */
	struct ibve_event *q;
	size_t qhead, qlen, qcap;
	/* pull: the caller's array, filled first */
	struct ibve_event *out;
	size_t nout, maxout;
	unsigned long bad_input;
	/* run */
	const struct ibve_run_opts *run;
	unsigned long matched;
	int stop;	/* why the run ends (IBVE_STOP_*, a callback's); 0 */
	int err;	/* it cannot go on: -errno, the first; 0 */
	char fail[512]; /* the reason of ERR, from the source that failed */
	bool started;
	bool finished;	    /* the sources were told the input ended */
	const char *failed; /* the source start failed in */
	char **exclude;	    /* device globs */
	size_t nexclude;
};

/*
 * The pipeline's states. Set up: sources and sinks are added. Started
 * (ibve_pipeline_start): each source started in its order, then checked,
 * then the sinks. Then records flow, pulled (ibve_pipeline_read fills the
 * caller's array, then the queue) or pushed (ibve_pipeline_run: the loop
 * hands the queue to the sinks batch by batch). A run goes on while stop
 * and err are 0; it ends when stop is set, with a reason (records
 * counted or expected, the time up, a callback's own), or err, with an
 * error (a source failed, a sink could not write), which wins over a
 * reason. Every source having ended (stop END) still lets queued records
 * and the last clock step through. Each run starts with both cleared.
 */

/* What the run ends with: its error, else its reason; 0: it goes on. */
static int status(const struct ibve_pipeline *p)
{
	return p->err ? p->err : p->stop;
}

/* Whether records still flow: nothing stopped it but every source ending. */
static bool flowing(const struct ibve_pipeline *p)
{
	return !p->err && (!p->stop || p->stop == IBVE_STOP_END);
}

/* The run ends with R: an error (< 0) or a reason (> 0); R. */
static int halt(struct ibve_pipeline *p, int r)
{
	if (r < 0)
		p->err = r;
	else
		p->stop = r;
	return r;
}

/* --- the host ------------------------------------------------------------- */

static void host_fail(void *ctx, int err)
{
	struct ibve_pipeline *p = ctx;

	snprintf(p->fail, sizeof(p->fail), "%s", ibve_errmsg());
	if (!p->err)
		p->err = err;
}

/* Room for one more record: the caller's array first, else the queue. */
static struct ibve_event *next_slot(struct ibve_pipeline *p)
{
	if (p->nout < p->maxout)
		return &p->out[p->nout++];
	if (p->qhead + p->qlen == p->qcap) {
		if (p->qhead) {
			memmove(p->q, p->q + p->qhead, p->qlen * sizeof(*p->q));
			p->qhead = 0;
		} else {
			size_t cap = p->qcap ? p->qcap * 2 : 64;
			struct ibve_event *q = realloc(p->q, cap * sizeof(*q));

			if (!q) {
				/* a record lost is a run that cannot go on */
				ibve_error(ENOMEM,
					   "out of memory: a record was lost");
				host_fail(p, -ENOMEM);
				return NULL;
			}
			p->q = q;
			p->qcap = cap;
		}
	}
	return &p->q[p->qhead + p->qlen++];
}

static bool host_excluded(void *ctx, const char *device)
{
	const struct ibve_pipeline *p = ctx;

	for (size_t i = 0; i < p->nexclude; i++)
		if (fnmatch(p->exclude[i], device, 0) == 0)
			return true;
	return false;
}

IBVE_EXPORT int ibve_pipeline_exclude_device(struct ibve_pipeline *p,
					     const char *glob)
{
	char **v = realloc(p->exclude, (p->nexclude + 1) * sizeof(*v));

	if (!v)
		return ibve_error(ENOMEM, "out of memory");
	p->exclude = v;
	if (!(v[p->nexclude] = strdup(glob)))
		return ibve_error(ENOMEM, "out of memory");
	p->nexclude++;
	return 0;
}

/* Whether a running source observes the records. */
static bool observed(const struct ibve_pipeline *p)
{
	for (size_t i = 0; i < p->nin; i++)
		if (p->in[i].ops->observe && p->in[i].started)
			return true;
	return false;
}

/* Whether some sink takes every record, whatever the filter. */
static bool sink_all(const struct ibve_pipeline *p)
{
	for (size_t i = 0; i < p->nsinks; i++)
		if (p->sinks[i].flags & IBVE_SINK_ALL)
			return true;
	return false;
}

static const struct ibve_filter *host_needed(void *ctx)
{
	const struct ibve_pipeline *p = ctx;

	/* a caller that reads gets every record, whatever the filter */
	if (!p->run || !p->filter || !ibve_filter_has_identity(p->filter) ||
	    sink_all(p) || observed(p))
		return NULL;
	return p->filter;
}

static const struct ibve_filter *host_owners(void *ctx)
{
	const struct ibve_pipeline *p = ctx;
	const uint32_t *pids;
	const char(*comms)[16];

	if (!p->filter ||
	    (!ibve_filter_pids(p->filter, &pids) &&
	     !ibve_filter_comms(p->filter, &comms)) ||
	    sink_all(p))
		return NULL;
	return p->filter;
}

static bool host_attrs(void *ctx)
{
	const struct ibve_pipeline *p = ctx;

	for (size_t i = 0; i < p->nsinks; i++)
		if (p->sinks[i].sink->attrs)
			return true;
	return false;
}

static unsigned long host_storm(void *ctx)
{
	const struct ibve_pipeline *p = ctx;

	return p->storm;
}

static struct ibve_event *host_emit(void *ctx)
{
	struct ibve_event *ev = next_slot(ctx);

	if (ev) {
		memset(ev, 0, sizeof(*ev));
		clock_gettime(CLOCK_REALTIME, &ev->time);
	}
	return ev;
}

static bool host_full(void *ctx)
{
	const struct ibve_pipeline *p = ctx;

	return p->out && p->nout >= p->maxout;
}

static int host_put(void *ctx, const struct ibve_event *ev)
{
	struct ibve_event *slot = next_slot(ctx);

	if (!slot)
		return -ENOMEM;
	*slot = *ev;
	return 0;
}

static int host_watch(void *ctx, int fd, void *src, uint32_t cookie)
{
	struct ibve_pipeline *p = ctx;
	struct watch *w = malloc(sizeof(*w)), **v;
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = w };
	int r = 0;

	v = w ? realloc(p->watches, (p->nwatches + 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(w);
		return -ENOMEM;
	}
	p->watches = v;
	*w = (struct watch){ fd, NULL, cookie, false };
	for (size_t i = 0; i < p->nin; i++)
		if (p->in[i].src == src)
			w->in = &p->in[i];
	if (!w->in)
		r = -EINVAL;
	else if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &e))
		r = -errno;
	if (r == -EPERM) {
		/* what poll(2) says of a regular file: ready, always */
		w->always = true;
		if (!p->nalways++)
			eventfd_write(p->kick, 1);
		r = 0;
	}
	if (r)
		free(w);
	else
		v[p->nwatches++] = w;
	return r;
}

static void host_unwatch(void *ctx, int fd)
{
	struct ibve_pipeline *p = ctx;

	for (size_t i = 0; i < p->nwatches; i++) {
		eventfd_t n;

		if (p->watches[i]->fd != fd)
			continue;
		if (!p->watches[i]->always)
			epoll_ctl(p->epfd, EPOLL_CTL_DEL, fd, NULL);
		else if (!--p->nalways)
			eventfd_read(p->kick, &n);
		free(p->watches[i]);
		p->watches[i] = p->watches[--p->nwatches];
		return;
	}
}

static void host_note(void *ctx, enum ibve_note_kind kind, const char *text)
{
	struct ibve_pipeline *p = ctx;

	if (kind == IBVE_NOTE_INPUT)
		p->bad_input++;
	if (p->note && text)
		p->note(kind, text, p->note_arg);
}

static struct ibve_devset *host_devset(void *ctx)
{
	const struct ibve_pipeline *p = ctx;

	for (size_t i = 0; i < p->nin; i++)
		if (p->in[i].ops->devset)
			return p->in[i].src;
	return NULL;
}

IBVE_EXPORT bool ibve_pipeline_ended(const struct ibve_pipeline *p)
{
	for (size_t i = 0; i < p->nin; i++)
		if (!p->in[i].done)
			return false;
	return p->nin > 0;
}

static void host_done(void *ctx, void *src)
{
	struct ibve_pipeline *p = ctx;

	for (size_t i = 0; i < p->nin; i++)
		if (p->in[i].src == src)
			p->in[i].done = true;
	if (ibve_pipeline_ended(p) && p->run && !p->run->linger && !status(p))
		p->stop = IBVE_STOP_END;
}

static int dispatch(struct ibve_pipeline *p);
static int finish_sources(struct ibve_pipeline *p, int why);

static int host_clock(void *ctx, const struct timespec *now)
{
	struct ibve_pipeline *p = ctx;
	int r;

	/* the step's records reach the sinks before the step is told */
	if (p->run)
		dispatch(p);
	/* at the input's end, what the sources hold back (the autopsy's last
	 * verdicts) first: the last step, a dashboard's final table, has it */
	if (p->run && flowing(p) && ibve_pipeline_ended(p) &&
	    (r = finish_sources(p, 0)))
		halt(p, r);
	/* the last step is told at the end, too */
	if (flowing(p) && p->clock && (r = p->clock(now, p->clock_arg)))
		halt(p, r);
	return p->err ? p->err : p->stop == IBVE_STOP_END ? 0 : p->stop;
}

/* --- setting up ------------------------------------------------------------- */

IBVE_EXPORT int ibve_pipeline_new(struct ibve_pipeline **out)
{
	struct ibve_pipeline *p = calloc(1, sizeof(*p));
	int r;

	*out = p;
	if (!p)
		return ibve_error(ENOMEM, "out of memory");
	clock_gettime(CLOCK_REALTIME, &p->born);
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	p->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->epfd < 0 || p->kick < 0 ||
	    epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->kick,
		      &(struct epoll_event){ .events = EPOLLIN }))
		r = ibve_error(errno, "epoll: %s", strerror(errno));
	else
		r = ibve_loop_new(&p->loop);
	if (!r)
		r = ibve_event_table_check();
	if (r) {
		ibve_pipeline_free(p);
		*out = NULL;
		return r;
	}
	p->host = (struct ibve_host){
		.ctx = p,
		.emit = host_emit,
		.full = host_full,
		.put = host_put,
		.watch = host_watch,
		.unwatch = host_unwatch,
		.note = host_note,
		.devset = host_devset,
		.done = host_done,
		.fail = host_fail,
		.clock = host_clock,
		.excluded = host_excluded,
		.needed = host_needed,
		.owners = host_owners,
		.attrs = host_attrs,
		.storm = host_storm,
	};
	return 0;
}

IBVE_EXPORT void ibve_pipeline_free(struct ibve_pipeline *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nin; i++)
		if (p->in[i].src)
			p->in[i].ops->destroy(p->in[i].src);
	for (size_t i = 0; i < p->nwatches; i++)
		free(p->watches[i]);
	for (size_t i = 0; i < p->nsinks; i++) {
		p->sinks[i].sink->ops->destroy(p->sinks[i].sink);
		ibve_storm_free(p->sinks[i].storm);
	}
	free(p->watches);
	free(p->sinks);
	free(p->in);
	free(p->q);
	for (size_t i = 0; i < p->nexclude; i++)
		free(p->exclude[i]);
	free(p->exclude);
	ibve_loop_free(p->loop);
	if (p->epfd >= 0)
		close(p->epfd);
	if (p->kick >= 0)
		close(p->kick);
	free(p);
}

IBVE_EXPORT void ibve_pipeline_set_notes(struct ibve_pipeline *p,
					 ibve_note_cb cb, void *arg)
{
	p->note = cb;
	p->note_arg = arg;
}

IBVE_EXPORT void ibve_pipeline_set_clock(struct ibve_pipeline *p,
					 int (*cb)(const struct timespec *now,
						   void *arg),
					 void *arg)
{
	p->clock = cb;
	p->clock_arg = arg;
}

IBVE_EXPORT void ibve_pipeline_set_storm(struct ibve_pipeline *p,
					 unsigned long threshold)
{
	p->storm = threshold;
}

IBVE_EXPORT void ibve_pipeline_set_filter(struct ibve_pipeline *p,
					  const struct ibve_filter *f)
{
	p->filter = f;
}

IBVE_EXPORT struct ibve_loop *ibve_pipeline_loop(struct ibve_pipeline *p)
{
	return p->loop;
}

IBVE_EXPORT unsigned long ibve_pipeline_bad_input(const struct ibve_pipeline *p)
{
	return p->bad_input;
}

/* The instance of OPS, or NULL. */
static struct inst *registered(const struct ibve_pipeline *p,
			       const struct ibve_source_ops *ops)
{
	for (size_t i = 0; i < p->nin; i++)
		if (p->in[i].ops == ops)
			return &p->in[i];
	return NULL;
}

IBVE_EXPORT int ibve_pipeline_add_source(struct ibve_pipeline *p,
					 const char *name,
					 const struct ibve_source_opts *o)
{
	struct ibve_source_opts opts = { .sz = sizeof(opts) };
	const struct ibve_source_ops *ops = NULL;
	struct inst *v;
	int r;

	for (size_t i = 0; ibve_sources[i]; i++)
		if (strcmp(ibve_sources[i]->name, name) == 0)
			ops = ibve_sources[i];
	if (!ops)
		return ibve_error(ENOENT, "no source called '%s'", name);
	if (registered(p, ops))
		return ibve_error(EEXIST, "source '%s' added twice", name);
	if (p->started)
		return ibve_error(EBUSY, "the pipeline has started");
	/* what an older caller's smaller options leave out stays zero */
	if (o)
		memcpy(&opts, o, o->sz < sizeof(opts) ? o->sz : sizeof(opts));
	opts.sz = sizeof(opts);
	v = realloc(p->in, (p->nin + 1) * sizeof(*v));
	if (!v)
		return ibve_error(ENOMEM, "out of memory");
	p->in = v;
	/* watches point into p->in: none exist before start */
	p->in[p->nin] = (struct inst){ ops, NULL, false, false };
	r = ops->create(&p->in[p->nin].src, &opts, &p->host);
	if (r) { /* not added: what it made goes */
		if (p->in[p->nin].src)
			ops->destroy(p->in[p->nin].src);
		return r;
	}
	p->nin++;
	return 0;
}

IBVE_EXPORT const struct ibve_source_option *
ibve_source_option_at(size_t i, const char **source)
{
	for (size_t k = 0; ibve_sources[k]; i -= ibve_sources[k++]->noptions)
		if (i < ibve_sources[k]->noptions) {
			*source = ibve_sources[k]->name;
			return &ibve_sources[k]->options[i];
		}
	return NULL;
}

/* Whether source K is on: it needs no asking, or ASKED has one of its
 * options (bit I: option I); the flags those add to *FLAGS. */
static bool asked_for(size_t k, uint64_t asked, unsigned int *flags)
{
	const struct ibve_source_ops *s = ibve_sources[k];
	bool on = !s->on_demand;
	size_t at = 0;

	for (size_t i = 0; i < k; i++)
		at += ibve_sources[i]->noptions;
	for (size_t i = 0; i < s->noptions; i++, at++)
		if (at < 64 && asked >> at & 1) {
			*flags |= s->options[i].flags;
			on = true;
		}
	return on;
}

IBVE_EXPORT int ibve_pipeline_add_live(struct ibve_pipeline *p,
				       const struct ibve_source_opts *o,
				       uint64_t asked)
{
	struct ibve_source_opts opts = *o;
	unsigned int none = 0;
	int r = 0;

	for (size_t k = 0; !r && ibve_sources[k]; k++) {
		const char *with = ibve_sources[k]->with;
		bool on;

		opts.flags = o->flags;
		on = asked_for(k, asked, &opts.flags);
		for (size_t i = 0; with && !on && ibve_sources[i]; i++)
			on = !strcmp(ibve_sources[i]->name, with) &&
			     asked_for(i, asked, &none);
		if (on)
			r = ibve_pipeline_add_source(p, ibve_sources[k]->name,
						     &opts);
	}
	return r;
}

static int by_order(const void *a, const void *b)
{
	const struct inst *x = a, *y = b;

	return (x->ops->order > y->ops->order) -
	       (x->ops->order < y->ops->order);
}

IBVE_EXPORT const char *ibve_pipeline_failed(const struct ibve_pipeline *p)
{
	return p->failed;
}

/* 0 when some source watches something; else the first one's reason. */
static int nothing_watched(struct ibve_pipeline *p)
{
	struct inst *first = NULL;

	for (size_t k = 0; ibve_sources[k]; k++) {
		struct inst *in = registered(p, ibve_sources[k]);

		if (!in || !in->ops->empty)
			continue;
		if (!in->ops->empty(in->src))
			return 0;
		if (!first)
			first = in;
	}
	if (!first)
		return 0;
	p->failed = first->ops->name;
	return first->ops->empty(first->src); /* its reason, said last */
}

/*
 * What the watcher's own metrics say of P, into W (ports.h): when it was
 * made (CLOCK_REALTIME), which sources of records run, its logs' failures.
 */
static void watcher_of(const struct ibve_pipeline *p, struct ibve_watcher *w)
{
	w->known = true;
	w->born = p->born;
	w->nsources = 0;
	for (size_t i = 0; ibve_sources[i]; i++) {
		const struct inst *in = registered(p, ibve_sources[i]);

		if (ibve_sources[i]->records < 0 || !ibve_sources[i]->nrows)
			continue; /* a replay: its records say whose they are;
				   * lldp: it adds to verbs records */
		w->sources[w->nsources].records = ibve_sources[i]->records;
		w->sources[w->nsources++].runs =
			in && in->started &&
			(!in->ops->live || in->ops->live(in->src));
	}
	w->nlogs = 0; /* as many as ibve_pipeline_add_sink() took */
	for (size_t i = 0; i < p->nsinks; i++) {
		if (!p->sinks[i].sink->log)
			continue;
		w->logs[w->nlogs].name = p->sinks[i].sink->log;
		w->logs[w->nlogs++].failures = p->sinks[i].sink->failures;
	}
}

/* Sinks learn which devices are open (the port table adds their rows). */
static int start_sinks(struct ibve_pipeline *p)
{
	size_t n = ibve_pipeline_devices(p, NULL, 0);
	const char **names = calloc(n + 1, sizeof(*names));
	int r = 0;

	if (!names)
		return ibve_error(ENOMEM, "out of memory");
	n = ibve_pipeline_devices(p, names, n);
	for (size_t i = 0; i < p->nsinks && !r; i++)
		if (p->sinks[i].sink->watcher)
			watcher_of(p, p->sinks[i].sink->watcher);
	for (size_t i = 0; i < p->nsinks && !r; i++)
		if (p->sinks[i].sink->ops->start)
			r = p->sinks[i].sink->ops->start(p->sinks[i].sink,
							 names, n);
	free(names);
	return r;
}

IBVE_EXPORT int ibve_pipeline_start(struct ibve_pipeline *p)
{
	int r = 0;

	qsort(p->in, p->nin, sizeof(*p->in), by_order);
	p->started = true;
	for (size_t i = 0; i < p->nin && !r; i++) {
		r = p->in[i].ops->start(p->in[i].src);
		p->in[i].started = !r;
		if (r)
			p->failed = p->in[i].ops->name;
	}
	for (size_t i = 0; i < p->nin && !r; i++)
		if (p->in[i].ops->check &&
		    (r = p->in[i].ops->check(p->in[i].src)))
			p->failed = p->in[i].ops->name;
	if (!r)
		r = nothing_watched(p);
	return r ? r : start_sinks(p);
}

IBVE_EXPORT size_t ibve_pipeline_describe(const struct ibve_pipeline *p,
					  char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };

	for (size_t k = 0; ibve_sources[k]; k++) {
		const struct inst *in = registered(p, ibve_sources[k]);
		char part[1024];

		if (!in || !in->started || !in->ops->describe ||
		    !in->ops->describe(in->src, part, sizeof(part)))
			continue;
		if (b.len)
			ibve_buf_putc(&b, ' ');
		ibve_buf_puts(&b, part);
	}
	return ibve_buf_end(&b);
}

IBVE_EXPORT size_t ibve_pipeline_devices(const struct ibve_pipeline *p,
					 const char **names, size_t max)
{
	const struct ibve_devset *d = host_devset((void *)p);

	return d ? ibve_devices_names(d, names, max) : 0;
}

IBVE_EXPORT int ibve_pipeline_add_sink(struct ibve_pipeline *p,
				       struct ibve_sink *s, unsigned int flags)
{
	struct sink_at *v;
	size_t logs = 0;

	for (size_t i = 0; s->log && i < p->nsinks; i++)
		logs += !!p->sinks[i].sink->log;
	if (logs == IBVE_WATCHER_LOGS) { /* their metrics would be cut */
		int r = ibve_error(ENOSPC, "%s: more than %d log sinks", s->log,
				   IBVE_WATCHER_LOGS);

		s->ops->destroy(s); /* after its name is said */
		return r;
	}
	v = realloc(p->sinks, (p->nsinks + 1) * sizeof(*v));

	if (!v) {
		s->ops->destroy(s);
		return ibve_error(ENOMEM, "out of memory");
	}
	p->sinks = v;
	v[p->nsinks++] = (struct sink_at){ s, flags, NULL };
	s->pipeline = p;
	return 0;
}

void ibve_sink_log_failed(struct ibve_sink *s, int err)
{
	s->failures++;
	if (s->failing || !s->pipeline)
		return;
	s->failing = true;
	ibve_host_note(
		&s->pipeline->host, IBVE_NOTE,
		"%s: cannot send an entry (%s): going on, counting the entries lost",
		s->log, strerror(err));
}

void ibve_sink_log_sent(struct ibve_sink *s)
{
	s->failing = false;
}

IBVE_EXPORT int ibve_pipeline_fd(const struct ibve_pipeline *p)
{
	return p->epfd;
}

/* --- records ----------------------------------------------------------- */

/*
 * Let W's source give what it has. Pulling, until the caller's array is
 * full; running, batch after batch through the sinks, so memory stays
 * bounded however much a replay has.
 */
static int drain(struct ibve_pipeline *p, struct watch *w)
{
	struct inst *in = w->in;
	uint32_t cookie = w->cookie;
	bool more;
	int r = 0;

	do {
		more = in->ops->ready(in->src, cookie);
		if (p->run && (r = dispatch(p)))
			return r;
	} while (more && !status(p) && !host_full(p));
	return status(p);
}

/*
 * Every fd that is ready, once (with one fd there is no need to ask
 * epoll which: a system call less per wake-up, what storms measure); the
 * loop's callback for the pipeline's fd.
 */
static int poll_sources(int fd, short revents, void *arg)
{
	struct ibve_pipeline *p = arg;
	struct epoll_event ready[16];
	int n, r = 0;

	(void)fd;
	(void)revents;
	if (p->nwatches == 1)
		return drain(p, p->watches[0]);
	n = epoll_wait(p->epfd, ready, ARRAY_SIZE(ready), 0);
	for (int k = 0; k < n && !r; k++) {
		struct watch *w = ready[k].data.ptr;
		bool still = false;

		if (!w) { /* the kick: every watch that is always ready */
			for (size_t i = 0; i < p->nwatches && !r; i++)
				if (p->watches[i]->always)
					r = drain(p, p->watches[i]);
			continue;
		}
		/* a source may have dropped this watch while handling another */
		for (size_t i = 0; i < p->nwatches && !still; i++)
			still = p->watches[i] == w;
		if (still)
			r = drain(p, w);
	}
	return r;
}

static int sink_out(const struct ibve_event *ev, void *arg)
{
	struct ibve_sink *s = arg;

	return s->ops->write(s, ev);
}

/*
 * One record through the sinks and the stop conditions, then to the
 * sources that observe it: one may emit (the autopsy) and so move the
 * queue EV is in; EV is not read after them.
 */
static int pass(struct ibve_pipeline *p, struct ibve_event *ev)
{
	bool shown = !p->filter || ibve_filter_match(p->filter, ev);
	int r = 0;

	if (p->nexclude && host_excluded(p, ev->device))
		return 0; /* a replay's, or a source's that sees every device */
	for (size_t i = 0; i < p->nin; i++)
		if (p->in[i].ops->annotate && p->in[i].started)
			p->in[i].ops->annotate(p->in[i].src, ev);
	for (size_t i = 0; i < p->nsinks && !r; i++) {
		if (!shown && !(p->sinks[i].flags & IBVE_SINK_ALL))
			continue;
		/* in a run, a sink of summaries gets them from its summariser */
		if (p->sinks[i].storm && p->run)
			r = ibve_storm_feed(p->sinks[i].storm, ev, sink_out,
					    p->sinks[i].sink);
		else
			r = p->sinks[i].sink->ops->write(p->sinks[i].sink, ev);
	}
	if (r)
		return r;
	/* events, not records: a replayed summary counts what it stands for */
	if (shown && p->run) {
		p->matched += ibve_event_count(ev);
		if (p->run->expect && ibve_filter_match(p->run->expect, ev))
			r = IBVE_STOP_EXPECT;
		else if (p->run->count && p->matched >= p->run->count)
			r = IBVE_STOP_COUNT;
	}
	for (size_t i = 0; i < p->nin; i++)
		if (p->in[i].ops->observe && p->in[i].started)
			p->in[i].ops->observe(p->in[i].src, ev);
	return r;
}

/* The oldest queued record, taken out of the queue (which must have one). */
static struct ibve_event *pop(struct ibve_pipeline *p)
{
	struct ibve_event *ev = &p->q[p->qhead++];

	if (!--p->qlen)
		p->qhead = 0;
	return ev;
}

/* The queue's records through the filter to the sinks: 0, or why not. */
static int pass_queue(struct ibve_pipeline *p)
{
	int r = 0;

	while (p->qlen && !r)
		r = pass(p, pop(p));
	return r;
}

/*
 * The queued records to the sinks, until one stops the run: the stop is
 * kept, so that no other path hands out what is left. Every source having
 * ended is no reason to keep records back.
 */
static int dispatch(struct ibve_pipeline *p)
{
	int r;

	if (!flowing(p))
		return status(p);
	r = pass_queue(p);
	return r ? halt(p, r) : 0;
}

/*
 * The run ended with WHY: what the sources hold back reaches the sinks
 * (the kernel's counts not read yet), whatever stopped it but a count or
 * an expected record, which nothing may follow. 0 or -errno.
 */
static int finish_sources(struct ibve_pipeline *p, int why)
{
	int r = 0;

	if (why == IBVE_STOP_COUNT || why == IBVE_STOP_EXPECT || p->finished)
		return 0;
	p->finished = true;
	for (size_t i = 0; i < p->nin && !r; i++)
		if (p->in[i].ops->finish && p->in[i].started) {
			p->in[i].ops->finish(p->in[i].src);
			r = pass_queue(p);
		}
	p->qlen = p->qhead = 0; /* past a count: not written */
	return r < 0 ? r : 0;
}

IBVE_EXPORT int ibve_pipeline_read(struct ibve_pipeline *p,
				   struct ibve_event *evs, size_t max)
{
	size_t n = 0;
	int r;

	/* first what is queued */
	while (n < max && p->qlen)
		evs[n++] = *pop(p);
	if (n < max) {
		p->out = evs;
		p->nout = n;
		p->maxout = max;
		(void)poll_sources(p->epfd, POLLIN, p);
		n = p->nout;
		p->out = NULL;
		p->nout = p->maxout = 0;
	}
	/* the records to the sinks and the sources that observe them; with
	 * neither (an injector's storm), nothing to pass them to */
	for (size_t i = 0, to = p->nsinks || observed(p) ? n : 0; i < to; i++)
		if ((r = pass(p, &evs[i])) < 0)
			return r;
	if (p->err)
		return ibve_error(p->err, "%s", p->fail);
	return (int)n;
}

/* --- the loop --------------------------------------------------------- */

static int flush_sinks(struct ibve_pipeline *p)
{
	int r = 0;

	for (size_t i = 0; i < p->nsinks && !r; i++) {
		if (p->sinks[i].sink->watcher)
			watcher_of(p, p->sinks[i].sink->watcher);
		if (p->sinks[i].sink->ops->flush)
			r = p->sinks[i].sink->ops->flush(p->sinks[i].sink);
	}
	return r;
}

/* Before the loop waits: nothing may wait in a buffer, and sources with
 * more buffered (a replay) go on at once. */
static int on_idle(void *arg)
{
	struct ibve_pipeline *p = arg;
	int r = status(p) ? status(p) : flush_sinks(p);

	if (!r && p->idle)
		r = p->idle(p->idle_arg);
	return r;
}

/* --- storms ----------------------------------------------------------- */

/* Milliseconds to the soonest end of a storm's interval; -1: none. */
static int storm_next(void *arg)
{
	const struct ibve_pipeline *p = arg;
	struct timespec now;
	int soonest = -1;

	clock_gettime(CLOCK_REALTIME, &now);
	for (size_t i = 0; i < p->nsinks; i++) {
		int ms = p->sinks[i].storm
				 ? ibve_storm_next(p->sinks[i].storm, &now)
				 : -1;

		if (ms >= 0 && (soonest < 0 || ms < soonest))
			soonest = ms;
	}
	return soonest;
}

/* Every storm's summaries as of NOW (NULL: the storms end); 0 or a stop. */
static int storm_tick(struct ibve_pipeline *p, const struct timespec *now)
{
	int r = 0;

	for (size_t i = 0; i < p->nsinks && !r; i++)
		if (p->sinks[i].storm)
			r = ibve_storm_tick(p->sinks[i].storm, now, sink_out,
					    p->sinks[i].sink);
	return r;
}

/* Live, an interval no event ended ends by the clock. */
static void storm_run(void *arg)
{
	struct ibve_pipeline *p = arg;
	struct timespec now;
	int r;

	clock_gettime(CLOCK_REALTIME, &now);
	if (flowing(p) && (r = storm_tick(p, &now)))
		halt(p, r);
}

/*
 * The summarisers of the sinks that want summaries; live, the loop's
 * wakeup ends intervals (a replay's time is its records'). 0, -ENOMEM, or
 * -ENOSPC from a loop whose wakeups are all taken.
 */
static int storms_start(struct ibve_pipeline *p)
{
	bool live = true, any = false;

	for (size_t i = 0; i < p->nsinks; i++) {
		struct sink_at *k = &p->sinks[i];

		if (p->storm && k->flags & IBVE_SINK_SUMMARY && !k->storm &&
		    ibve_storm_new(&k->storm, p->storm))
			return ibve_error(ENOMEM, "out of memory");
		any |= k->storm != NULL;
	}
	for (size_t i = 0; i < p->nin; i++)
		live &= p->in[i].ops->records >= 0;
	return ibve_loop_set_wakeup(p->loop, any && live ? storm_next : NULL,
				    storm_run, p);
}

IBVE_EXPORT void ibve_pipeline_set_idle(struct ibve_pipeline *p,
					int (*cb)(void *arg), void *arg)
{
	p->idle = cb;
	p->idle_arg = arg;
}

IBVE_EXPORT int ibve_pipeline_run(struct ibve_pipeline *p,
				  const struct ibve_run_opts *o)
{
	struct ibve_run_opts opts = { .sz = sizeof(opts) };
	struct timespec deadline;
	int r;

	if (o)
		memcpy(&opts, o, o->sz < sizeof(opts) ? o->sz : sizeof(opts));
	p->run = &opts;
	p->stop = p->err = 0;
	p->finished = false;
	ibve_loop_remove_fd(p->loop, p->epfd);
	if ((r = ibve_loop_add_fd(p->loop, p->epfd, POLLIN, poll_sources, p)))
		return r;
	ibve_loop_set_idle(p->loop, on_idle, p);
	if ((r = storms_start(p)))
		return r;
	if (opts.timeout > 0) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		ibve_ts_add(&deadline, opts.timeout);
	}
	ibve_loop_set_deadline(p->loop, opts.timeout > 0 ? &deadline : NULL,
			       IBVE_STOP_TIMEOUT);
	if (ibve_pipeline_ended(p) && !opts.linger)
		r = IBVE_STOP_END;
	else
		r = ibve_loop_run(p->loop);
	/* a failing source's reason, said again: others may have spoken */
	if (r < 0 && r == p->err && p->fail[0])
		ibve_error(r, "%s", p->fail);
	/* what is buffered is written, whatever stopped the run: what the
	 * sources held back, then every storm ends with its summary */
	if (r >= 0 || r == p->err) {
		int f = finish_sources(p, r);

		if (!f)
			f = storm_tick(p, NULL);
		if (!f)
			f = flush_sinks(p);
		if (f && r >= 0)
			r = f;
	}
	p->run = NULL;
	return r;
}
