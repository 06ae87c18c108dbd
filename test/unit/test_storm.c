// SPDX-License-Identifier: MIT
/* The storm summariser, and the loop's wakeups that end its intervals. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "storm.h"
#include "tap.h"

/* What the summariser wrote: events alone, summaries, what they count. */
struct got {
	int alone, summaries, ends;
	uint64_t events;
	struct ibve_event last;
};

static int out(const struct ibve_event *ev, void *arg)
{
	struct got *g = arg;

	if (ev->fields & IBVE_FIELD_SUMMARY) {
		g->summaries++;
		g->ends += ev->summary.end;
	} else {
		g->alone++;
	}
	g->events += ibve_event_count(ev);
	g->last = *ev;
	return 0;
}

/* A CQ_ERR of pid PID's CQ HANDLE at MS milliseconds. */
static struct ibve_event cq_err(long ms, uint32_t pid, uint32_t handle)
{
	struct ibve_event ev = { .code = -1 };

	ibve_event_set_code(&ev, IBVE_SOURCE_KERNEL, 0);
	snprintf(ev.device, sizeof(ev.device), "rxe0");
	ev.time = (struct timespec){ 1000 + ms / 1000, ms % 1000 * 1000000 };
	ev.fields = IBVE_FIELD_HANDLE | IBVE_FIELD_OWNER;
	ev.handle = handle;
	ev.kernel.pid = pid;
	snprintf(ev.kernel.comm, sizeof(ev.kernel.comm), "job%u", pid);
	return ev;
}

static void test_storm(void)
{
	struct ibve_storm *s;
	struct got g = { 0 };
	struct timespec now;
	struct ibve_event ev;
	int ms;

	ibve_storm_new(&s, 3);
	/* 100 events in 0.99 s, of two CQs of one owner: one key */
	for (long i = 0; i < 100; i++) {
		ev = cq_err(i * 10, 7, i < 50 ? 1 : 2);
		ibve_storm_feed(s, &ev, out, &g);
	}
	/* another owner's events are another key: alone */
	ev = cq_err(500, 8, 1);
	ibve_storm_feed(s, &ev, out, &g);
	is_int(g.alone, 4, "the threshold's 3 alone, and another owner's one");
	is_int(g.summaries, 0, "no summary before the interval ends");
	now = (struct timespec){ 1000, 500000000 };
	ms = ibve_storm_next(s, &now);
	ok(ms >= 530 && ms <= 531,
	   "the interval ends 1 s after the storm's first event (%d ms)", ms);
	now.tv_sec = 1001;
	now.tv_nsec = 30000000;
	ibve_storm_tick(s, &now, out, &g);
	is_int(g.summaries, 1, "its end: a summary");
	is_int(g.last.summary.count, 97, "of the 97 events past the threshold");
	is_int(g.last.summary.interval_us, 1000000, "over a second");
	is_int(g.last.handle, 1, "named by its first event's object");
	ok(g.last.summary.has_last && g.last.summary.last_object == 2,
	   "and the last event's, another");
	ok(!g.last.summary.end, "a second past the threshold: it goes on");
	/* a quiet second: the storm ends */
	now.tv_sec = 1002;
	ibve_storm_tick(s, &now, out, &g);
	is_int(g.ends, 1, "a quiet interval ends the storm");
	is_int(g.last.summary.total, 97, "its last summary counts the storm");
	is_int(g.events, 101, "every event written once, alone or counted");
	now.tv_sec = 1003;
	is_int(ibve_storm_next(s, &now), -1, "no storm: no wakeup");
	/* a storm the run ends: its events are not kept back */
	for (long i = 0; i < 10; i++) {
		ev = cq_err(5000 + i, 7, 1);
		ibve_storm_feed(s, &ev, out, &g);
	}
	ibve_storm_tick(s, NULL, out, &g);
	is_int(g.ends, 2, "the run's end ends a storm");
	is_int(g.last.summary.count, 7, "with what it had");
	is_int(g.events, 111, "and every event is counted");
	ibve_storm_free(s);
}

/*
 * The boundary, both sides: a storm's second with the threshold's count
 * plus one goes on, one with exactly the threshold's count ends it.
 */
static void test_storm_boundary(void)
{
	struct ibve_storm *s;
	struct got g = { 0 };
	struct timespec now = { 1003, 3000000 };
	struct ibve_event ev;
	/* 3 alone, then a storm's 4 from 3 ms, then 3 in its next second */
	const long ms[] = { 0, 1, 2, 3, 4, 5, 6, 1500, 1600, 1700 };

	ibve_storm_new(&s, 3);
	for (size_t i = 0; i < ARRAY_SIZE(ms); i++) {
		ev = cq_err(ms[i], 7, 1);
		ibve_storm_feed(s, &ev, out, &g);
	}
	is_int(g.summaries, 1, "the storm's first second is summarised");
	is_int(g.last.summary.count, 4, "its 4 events, the threshold and one");
	ok(!g.last.summary.end, "so the storm goes on");
	ibve_storm_tick(s, &now, out, &g);
	is_int(g.summaries, 2, "its next second is summarised");
	is_int(g.last.summary.count, 3, "its 3 events, the threshold's count");
	ok(g.last.summary.end, "so the storm is over");
	is_int(g.last.summary.total, 7, "its last summary counts the storm");
	is_int(g.events, 10, "every event written once, alone or counted");
	ibve_storm_free(s);
}

/* The loop: wakeups run while an fd keeps it busy, one per argument. */
static int busy_calls;

static int busy(int fd, short revents, void *arg)
{
	(void)fd;
	(void)revents;
	(void)arg;
	return ++busy_calls == 1000 ? 1 : 0;
}

static int due_asked;

static int due(void *arg)
{
	(void)arg;
	due_asked++;
	return 0;
}

static void ran(void *arg)
{
	++*(int *)arg;
}

static void test_loop(void)
{
	struct ibve_loop *l;
	int fds[2], a = 0, b = 0;

	if (pipe(fds) || write(fds[1], "x", 1) != 1) {
		ok(false, "a pipe");
		return;
	}
	ibve_loop_new(&l);
	ibve_loop_add_fd(l, fds[0], POLLIN, busy, NULL);
	ibve_loop_set_wakeup(l, due, ran, &a);
	ibve_loop_set_wakeup(l, due, ran, &b);
	ibve_loop_set_wakeup(l, NULL, NULL, &b); /* removed */
	is_int(ibve_loop_run(l), 1, "the fd stops the loop");
	ok(a >= 999, "a due wakeup runs while an fd keeps the loop busy (%d)",
	   a);
	is_int(b, 0, "a wakeup removed does not run");
	is_int(due_asked, busy_calls, "its NEXT is asked once a turn");
	ibve_loop_free(l);
	close(fds[0]);
	close(fds[1]);
}

/*
 * A wakeup 5 ms ahead, by the clock as a real NEXT reads it: the poll
 * times out, RUN runs in that turn without NEXT being asked again, and
 * ends the loop through a pipe.
 */
struct timed {
	struct timespec at;
	int asked, ran, fd;
};

static int timed_next(void *arg)
{
	struct timed *t = arg;
	struct timespec now;
	long long ms;

	t->asked++;
	if (t->ran)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (t->at.tv_sec - now.tv_sec) * 1000LL +
	     (t->at.tv_nsec - now.tv_nsec + 999999) / 1000000;
	return ms > 0 ? (int)ms : 0;
}

static void timed_run(void *arg)
{
	struct timed *t = arg;

	t->ran++;
	if (write(t->fd, "x", 1) != 1)
		t->ran = -1000;
}

static int stop(int fd, short revents, void *arg)
{
	(void)fd;
	(void)revents;
	(void)arg;
	return 1;
}

static int never(void *arg)
{
	(void)arg;
	return -1;
}

static void test_loop_wakeups(void)
{
	struct ibve_loop *l;
	struct timed t = { 0 };
	int fds[2], other[4];

	if (pipe(fds)) {
		ok(false, "a pipe");
		return;
	}
	t.fd = fds[1];
	clock_gettime(CLOCK_MONOTONIC, &t.at);
	t.at.tv_nsec += 5000000;
	if (t.at.tv_nsec >= 1000000000) {
		t.at.tv_sec++;
		t.at.tv_nsec -= 1000000000;
	}
	ibve_loop_new(&l);
	ibve_loop_add_fd(l, fds[0], POLLIN, stop, NULL);
	is_int(ibve_loop_set_wakeup(l, timed_next, timed_run, &t), 0,
	       "a wakeup is set");
	is_int(ibve_loop_run(l), 1, "its RUN stops the loop");
	is_int(t.ran, 1, "a wakeup runs once its time has passed");
	is_int(t.asked, 2,
	       "its NEXT asked once before each poll, not again after it");
	/* the loop keeps four: a fifth is refused, the others stay */
	for (int i = 0; i < 3; i++)
		is_int(ibve_loop_set_wakeup(l, never, timed_run, &other[i]), 0,
		       "wakeup %d of 4 is set", i + 2);
	is_int(ibve_loop_set_wakeup(l, never, timed_run, &other[3]), -ENOSPC,
	       "a fifth is refused");
	is_str(ibve_errmsg(), "too many wakeups in the loop (4)",
	       "and says why");
	is_int(ibve_loop_set_wakeup(l, due, ran, &t), 0,
	       "one of the four set again is replaced");
	is_int(ibve_loop_set_wakeup(l, NULL, NULL, &other[0]), 0,
	       "one removed");
	is_int(ibve_loop_set_wakeup(l, never, timed_run, &other[3]), 0,
	       "makes room for another");
	ibve_loop_free(l);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	test_storm();
	test_storm_boundary();
	test_loop();
	test_loop_wakeups();
	return done_testing();
}
