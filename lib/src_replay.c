// SPDX-License-Identifier: MIT
/*
 * The "replay" source: records from a JSON Lines capture, read in chunks
 * so that a pipe never blocks the loop and memory stays bounded whatever
 * the input (a line longer than IBVE_REPLAY_LINE_MAX is rejected, not
 * kept); handed out a batch at a time.
 *
 * With a step, it follows the capture's clock: from the first record's
 * time, in steps of STEP seconds of capture time, as fast as it reads or,
 * paced, one step per STEP seconds of real time (a timerfd); at each step
 * the records before it have been emitted and the host is told the time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/timerfd.h>

#include "host.h"
#include "parse.h"
#include "source.h"

#define CHUNK		     (64 * 1024)
#define IBVE_REPLAY_LINE_MAX (1024 * 1024)

#define BATCH 64 /* records per ready() */
#define NAMED 10 /* malformed lines named; the rest only counted */

enum { C_INPUT, C_PACE };

struct replay {
	struct ibve_host h;
	char *path;
	const char *shown; /* in messages: the path, or <stdin> */
	double step;
	bool paced;
	int fd;
	bool own_fd;
	bool eof;
	bool skipping; /* inside a line that was too long */
	char *buf;
	size_t cap, start, end;		  /* unread bytes are buf[start..end) */
	unsigned long line, bad;	  /* lines read, malformed lines */
	const struct ibve_filter *needed; /* for this batch, or NULL */
	struct ibve_prefilter *pf;	  /* made when a filter first asks */
	struct json_tokener *tok;
	/* the capture's clock (with a step) */
	bool clock_set, held, ended;
	bool stepped; /* paced: the clock moved, the host not yet told */
	struct timespec clock, last;
	struct ibve_event next; /* read, after the clock: held */
	int pace_fd;
};

static int create(void **out, const struct ibve_source_opts *o,
		  const struct ibve_host *h)
{
	struct replay *r = calloc(1, sizeof(*r));

	*out = r;
	if (!r)
		return ibve_error(ENOMEM, "out of memory");
	r->h = *h;
	r->fd = r->pace_fd = -1;
	r->step = o->step > 0 ? o->step : 0;
	r->paced = r->step > 0 && (o->flags & IBVE_SRC_PACED);
	r->path = strdup(o->path ? o->path : "-");
	if (!r->path)
		return ibve_error(ENOMEM, "out of memory");
	r->shown = strcmp(r->path, "-") == 0 ? "<stdin>" : r->path;
	return 0;
}

static int start(void *arg)
{
	struct replay *r = arg;
	struct stat st;
	int e;

	if (strcmp(r->path, "-") == 0) {
		r->fd = STDIN_FILENO;
	} else {
		r->fd = open(r->path, O_RDONLY | O_CLOEXEC);
		r->own_fd = true;
	}
	if (r->fd < 0 || fstat(r->fd, &st))
		return ibve_error(errno, "%s: %s", r->path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return ibve_error(EISDIR, "%s: %s", r->path, strerror(EISDIR));
	/* Pipes and terminals must not block the loop. */
	if (!S_ISREG(st.st_mode)) {
		int fl = fcntl(r->fd, F_GETFL);

		if (fl >= 0)
			fcntl(r->fd, F_SETFL, fl | O_NONBLOCK);
	}
	r->cap = CHUNK * 2;
	r->buf = malloc(r->cap);
	if (!r->buf)
		return ibve_error(ENOMEM, "out of memory");
	if (r->paced) {
		struct itimerspec its = { 0 };

		r->pace_fd = timerfd_create(CLOCK_MONOTONIC,
					    TFD_CLOEXEC | TFD_NONBLOCK);
		if (r->pace_fd < 0)
			return ibve_error(errno, "timerfd: %s",
					  strerror(errno));
		ibve_ts_add(&its.it_interval, r->step);
		its.it_value = its.it_interval;
		timerfd_settime(r->pace_fd, 0, &its, NULL);
	}
	/* Regular files are always readable: poll says so at once. */
	if ((r->pace_fd >= 0 &&
	     (e = r->h.watch(r->h.ctx, r->pace_fd, r, C_PACE))) ||
	    (e = r->h.watch(r->h.ctx, r->fd, r, C_INPUT)))
		return ibve_error(e, "%s: %s", r->shown, strerror(-e));
	return 0;
}

static void destroy(void *arg)
{
	struct replay *r = arg;

	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	if (r->pace_fd >= 0)
		close(r->pace_fd);
	if (r->tok)
		json_tokener_free(r->tok);
	ibve_prefilter_free(r->pf);
	free(r->buf);
	free(r->path);
	free(r);
}

/* Read more input; 1 read something, 0 end of input, -errno. */
static int fill(struct replay *r)
{
	ssize_t n;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->cap - r->end < CHUNK) {
		size_t cap = r->cap * 2;
		char *p;

		if (cap > IBVE_REPLAY_LINE_MAX + 2 * CHUNK)
			cap = IBVE_REPLAY_LINE_MAX + 2 * CHUNK;
		p = cap > r->cap ? realloc(r->buf, cap) : r->buf;
		if (!p)
			return -ENOMEM;
		r->buf = p;
		r->cap = cap;
	}
	do {
		n = read(r->fd, r->buf + r->end, r->cap - r->end);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0) {
		r->eof = true;
		return 0;
	}
	r->end += (size_t)n;
	return 1;
}

/*
 * Next record. Returns 1 with EV filled, 0 at end of input, -EAGAIN when
 * no complete line is available yet, -EBUSY after many lines no one needs,
 * -EINVAL for a malformed line (reason in ERR; reading may go on),
 * -ELIBACC when json-c cannot be loaded (reason in ERR), or another
 * -errno on a read error.
 */
static int next_record(struct replay *r, struct ibve_event *ev, char *err,
		       size_t errlen)
{
	unsigned int skips = 0;

	for (;;) {
		char *line = r->buf + r->start;
		size_t avail = r->end - r->start;
		char *nl = memchr(line, '\n', avail);
		size_t len, sp = 0;
		int rc;

		if (!nl && !r->eof) {
			if (avail > IBVE_REPLAY_LINE_MAX) {
				/* Drop what we hold; skip to the newline. */
				if (!r->skipping) {
					r->skipping = true;
					r->line++;
				}
				r->start = r->end;
			}
			rc = fill(r);
			if (rc < 0)
				return rc;
			continue;
		}
		if (!nl && avail == 0 && !r->skipping)
			return 0; /* end of input */
		len = nl ? (size_t)(nl - line) : avail;
		r->start += nl ? len + 1 : len;
		if (r->skipping || len > IBVE_REPLAY_LINE_MAX) {
			/* the limit holds wherever the reads happened to end */
			if (!r->skipping)
				r->line++;
			r->skipping = false;
			snprintf(err, errlen, "line longer than %d bytes",
				 IBVE_REPLAY_LINE_MAX);
			return -EINVAL;
		}
		r->line++;
		if (len && line[len - 1] == '\r')
			len--;
		/* Blank lines separate nothing and mean nothing. */
		while (sp < len && (line[sp] == ' ' || line[sp] == '\t'))
			sp++;
		if (sp == len)
			continue;
		/* a record no one would take: not parsed at all */
		if (r->needed && (r->pf || !ibve_prefilter_new(&r->pf)) &&
		    !ibve_prefilter_line(r->pf, r->needed, line, len)) {
			/* a batch's worth: the loop gets its turn */
			if (++skips == 256)
				return -EBUSY;
			continue;
		}
		if (memchr(line, '\0', len)) {
			snprintf(err, errlen, "NUL byte in the line");
			return -EINVAL;
		}
		rc = ibve_parse_line(&r->tok, line, len, ev, err, errlen);
		/* json-c could not be loaded: not the line's fault */
		return rc == -ELIBACC ? rc : rc ? -EINVAL : 1;
	}
}

/* The end: the clock's last time (or the last record's) to the host. */
static void end(struct replay *r)
{
	struct timespec now;

	r->ended = true;
	if (r->bad > NAMED)
		ibve_host_note(&r->h, IBVE_NOTE, "%s: %lu more malformed lines",
			       r->shown, r->bad - NAMED);
	r->h.unwatch(r->h.ctx, r->fd);
	if (r->pace_fd >= 0)
		r->h.unwatch(r->h.ctx, r->pace_fd);
	if (r->step && r->clock_set)
		now = r->clock;
	else if (r->clock_set)
		now = r->last;
	else
		clock_gettime(CLOCK_REALTIME, &now);
	r->h.done(r->h.ctx, r);
	r->h.clock(r->h.ctx, &now);
}

/*
 * EV was read: emit it, unless the clock has not reached it. As fast as it
 * reads, the clock then steps on (each step told to the host); paced, EV
 * is held until the timer moves the clock. False: EV is held.
 */
static bool place(struct replay *r, const struct ibve_event *ev)
{
	if (r->step) {
		if (!r->clock_set) {
			r->clock = ev->time;
			r->clock_set = true;
		}
		while (ibve_ts_before(&r->clock, &ev->time)) {
			if (r->paced) {
				/* nothing to read until the clock gets there */
				r->next = *ev;
				r->held = true;
				r->h.unwatch(r->h.ctx, r->fd);
				return false;
			}
			if (r->h.clock(r->h.ctx, &r->clock))
				return false; /* the run stops here */
			ibve_ts_add(&r->clock, r->step);
		}
	}
	r->last = ev->time;
	r->clock_set = true;
	r->h.put(r->h.ctx, ev);
	return true;
}

static bool read_batch(struct replay *r)
{
	struct ibve_event ev;
	char err[256], note[512];

	/* the capture's clock steps on records: every one counts then */
	r->needed = r->step ? NULL : r->h.needed(r->h.ctx);
	for (int n = 0; n < BATCH && !r->held && !r->ended; n++) {
		int rc = next_record(r, &ev, err, sizeof(err));

		if (rc == -EAGAIN)
			return false;
		if (rc == -EBUSY)
			continue;
		if (rc == 0) {
			end(r);
			return false;
		}
		if (rc == -EINVAL) {
			snprintf(note, sizeof(note), "%s:%lu: %s", r->shown,
				 r->line, err);
			r->h.note(r->h.ctx, IBVE_NOTE_INPUT,
				  ++r->bad <= NAMED ? note : NULL);
			continue;
		}
		if (rc < 0) {
			r->h.fail(r->h.ctx,
				  ibve_error(rc, "%s: %s", r->shown,
					     rc == -ELIBACC ? err
							    : strerror(-rc)));
			r->ended = true;
			return false;
		}
		if (!place(r, &ev))
			return false;
	}
	return !r->held && !r->ended;
}

/* Paced: the timer moved the clock a step; what it reached goes out. */
static void pace(struct replay *r)
{
	uint64_t ticks;

	if (read(r->pace_fd, &ticks, sizeof(ticks)) != sizeof(ticks) ||
	    !r->clock_set)
		return;
	ibve_ts_add(&r->clock, r->step);
	r->stepped = true;
	if (r->held && !ibve_ts_before(&r->clock, &r->next.time)) {
		r->held = false;
		r->h.watch(r->h.ctx, r->fd, r, C_INPUT);
		place(r, &r->next);
	}
}

static bool ready(void *arg, uint32_t cookie)
{
	struct replay *r = arg;
	bool more;

	if (r->ended)
		return false;
	if (cookie == C_PACE)
		pace(r);
	more = !r->held && read_batch(r);
	/* once what the new time reached is out, tell it the time */
	if (!more && r->stepped && !r->ended) {
		r->stepped = false;
		r->h.clock(r->h.ctx, &r->clock);
	}
	return more;
}

static int empty(const void *arg)
{
	(void)arg;
	return 0;
}

const struct ibve_source_ops ibve_source_replay = {
	.name = "replay",
	.records = -1,
	.on_demand = true, /* a command's -r, never a live source */
	.order = 50,
	.create = create,
	.start = start,
	.empty = empty,
	.ready = ready,
	.destroy = destroy,
};
