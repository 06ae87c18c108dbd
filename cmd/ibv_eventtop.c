// SPDX-License-Identifier: MIT
/*
 * ibv_eventtop: a live, top-like view of every RDMA port, its async events
 * and its error counters. The model is the library's port table, fed by
 * its pipeline; this file parses options and wires the refreshes, the view
 * draws (top_view.c, top_screen.c) and the keys act (top_keys.c).
 */
#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "common.h"
#include "top.h"

enum { OPT_FOLLOW = CMD_OPT_OWN };
enum { STOP_QUIT = IBVE_STOP_USER, STOP_FAIL };

static const struct cmd_opt opts[] = {
	CMD_SHARED('d'),
	CMD_SHARED(CMD_OPT_EXCLUDE_DEVICE),
	CMD_SHARED('i'),
	{ 's', "delay", required_argument, "SECONDS",
	  "refresh every SECONDS (default 1)" },
	{ 'n', "iterations", required_argument, "N", "exit after N refreshes" },
	{ 'b', "batch", no_argument, NULL,
	  "no screen: print a table every refresh" },
	{ 'j', "json", no_argument, NULL,
	  "with -b: one JSON object per refresh" },
	CMD_SHARED('r'),
	{ OPT_FOLLOW, "follow", no_argument, NULL,
	  "with -r: step through the capture, SECONDS of\ncapture time per refresh" },
	CMD_SHARED(CMD_OPT_SOURCES),
	CMD_SHARED(CMD_OPT_FLAP_WINDOW),
	CMD_SHARED(CMD_OPT_NO_COLOR),
};

static struct cmd_spec spec = {
	"[OPTIONS]",
	"A live view of every RDMA port: state, async events by kind, the last\n"
	"event and its age, and the error counters that moved.\n",
	opts,
	sizeof(opts) / sizeof(opts[0]),
	"Keys: q quit, h or ? help, < > sort column, I invert, / filter, space or Z\n"
	"pause, r reset, e event log, Tab select in the event log (the selected\n"
	"event whole) or the rows, p processes or ports, Left and Right scroll the\n"
	"columns sideways, Up, Down, PgUp and PgDn the rows (or events), Ctrl-L\n"
	"redraw.\n"
	"Exit status: 0 success, 2 usage error, 3 runtime failure, 4 malformed\n"
	"replay input.\n",
	NULL,
	NULL,
};

struct top {
	struct view v;
	struct cmd_shared c; /* -d, -i, -r, -A, ... (common.h) */
	bool dirty;
	int timerfd, error;
};

static void parse(struct top *t, int argc, char **argv)
{
	struct view *v = &t->v;
	const char *arg;
	int c;

	v->delay = 1;
	v->psort = PCOL_AGE; /* the processes newest first */
	spec.shared = &t->c;
	while ((c = cmd_getopt(&spec, argc, argv, &arg)) != -1) {
		switch (c) {
		case 's':
			v->delay = cmd_seconds(
				arg,
				"invalid delay '%s': seconds, at least 0.01",
				0.01, 86400);
			break;
		case 'n':
			v->iterations = cmd_count(
				arg,
				"invalid iterations '%s': a positive number", 1,
				ULONG_MAX);
			break;
		case 'b':
			v->batch = true;
			break;
		case 'j':
			v->json = true;
			break;
		case OPT_FOLLOW:
			v->follow = true;
			break;
		}
	}
	if (optind < argc)
		cmd_usage_error("unexpected argument '%s'", argv[optind]);
	v->filter = t->c.filter;
	v->replay_path = t->c.replay;
	if (v->json && !v->batch)
		cmd_usage_error("-j needs -b (JSON is for batch mode)");
	if (v->follow && !v->replay_path)
		cmd_usage_error("--follow needs -r");
	cmd_shared_check(&t->c, v->replay_path, "-r", "autopsy");
	v->color = cmd_color(t->c.no_color, false);
}

/* One refresh as of AT: sample the model, then show it. */
static int refresh_view(struct top *t, const struct timespec *at)
{
	struct view *v = &t->v;

	ibve_ports_sample(v->ports, at);
	top_procs_sample(&v->procs, at);
	v->refreshes++;
	if (v->batch && (t->error = -top_print(v)))
		return STOP_FAIL;
	if (!v->batch && !v->paused)
		top_draw(v);
	return v->iterations && v->refreshes >= v->iterations ? STOP_QUIT : 0;
}

/* A step of the capture's clock (and its end): a refresh at that time. */
static int on_clock(const struct timespec *now, void *arg)
{
	struct top *t = arg;

	t->v.clock = *now;
	t->v.clock_set = true;
	t->v.replay_eof = ibve_pipeline_ended(t->v.pl);
	if (t->v.follow || t->v.replay_eof)
		return refresh_view(t, now);
	return 0;
}

static int on_timer(int fd, short revents, void *arg)
{
	struct top *t = arg;
	struct timespec now;
	uint64_t ticks;

	(void)revents;
	if (read(fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return 0;
	if (!t->v.replay_path) {
		clock_gettime(CLOCK_REALTIME, &now);
		return refresh_view(t, &now);
	}
	/* a capture's clock stopped at its end: only keys change things */
	if (!t->v.replay_eof)
		return 0;
	return ++t->v.refreshes >= t->v.iterations && t->v.iterations
		       ? STOP_QUIT
		       : 0;
}

/* A record came: an operator sees a flap at once, not at the refresh. */
static int on_record(const struct ibve_event *ev, void *arg)
{
	struct top *t = arg;

	top_procs_add(&t->v.procs, ev);
	top_rate_add(&t->v.rate, ev);
	t->dirty = true;
	return 0;
}

/* The event log's, a storm's summarised. */
static int on_log(const struct ibve_event *ev, void *arg)
{
	struct top *t = arg;

	t->dirty = true;
	return top_log_add(&t->v.events, ev);
}

static int on_idle(void *arg)
{
	struct top *t = arg;

	if (t->dirty && t->v.curses && !t->v.paused && !t->v.help &&
	    !t->v.replay_path)
		top_draw(&t->v);
	t->dirty = false;
	return 0;
}

static int on_stdin(int fd, short revents, void *arg)
{
	struct top *t = arg;
	struct timespec now, *at;
	int ch, want = K_NONE;

	(void)fd;
	(void)revents;
	while ((ch = getch()) != ERR)
		want |= top_key(&t->v, ch);
	if (want & K_QUIT)
		return STOP_QUIT;
	if (want & K_RESAMPLE) {
		clock_gettime(CLOCK_REALTIME, &now);
		at = t->v.clock_set ? &t->v.clock : &now;
		ibve_ports_sample(t->v.ports, at);
		top_procs_sample(&t->v.procs, at);
	}
	if (want & K_REDRAW)
		top_draw(&t->v);
	return 0;
}

static int on_signal(int signo, void *arg)
{
	struct top *t = arg;
	struct winsize ws;

	if (signo != SIGWINCH)
		return STOP_QUIT;
	if (t->v.curses && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
		resizeterm(ws.ws_row, ws.ws_col);
		top_draw(&t->v);
	}
	return 0;
}

/* The pipeline into the port table, the keys, signals and the timer. */
static int setup(struct top *t)
{
	struct view *v = &t->v;
	struct ibve_loop *l;
	struct ibve_sink *s;
	struct itimerspec its = { 0 };
	unsigned int sysfs = IBVE_PORTS_SYSFS | IBVE_PORTS_COUNTERS;
	/* a capture, stepped and paced on the screen; or every device,
	 * waiting for them as the watcher does */
	struct ibve_source_opts o = {
		.step = v->follow ? v->delay : 0,
		.flags = (v->batch ? 0 : IBVE_SRC_PACED) | IBVE_SRC_WAIT,
	};

	if (ibve_ports_new(&v->ports, v->replay_path ? 0 : sysfs) ||
	    ibve_pipeline_new(&v->pl) || cmd_exclude(v->pl, &t->c))
		return cmd_fail();
	ibve_ports_set_flap_window(v->ports, t->c.flap_window);
	l = ibve_pipeline_loop(v->pl);
	if (ibve_loop_add_signal(l, SIGINT, on_signal, t) ||
	    ibve_loop_add_signal(l, SIGTERM, on_signal, t) ||
	    cmd_add_sources(v->pl, &t->c, o) || ibve_sink_ports(&s, v->ports) ||
	    ibve_pipeline_add_sink(v->pl, s, 0) ||
	    ibve_sink_callback(&s, on_record, t) ||
	    ibve_pipeline_add_sink(v->pl, s, 0))
		return cmd_fail();
	/* the screen's log: a storm a line, past as many events a second
	 * as the watcher writes alone (with -A, counted in the kernel) */
	if (!v->batch && (ibve_sink_callback(&s, on_log, t) ||
			  ibve_pipeline_add_sink(v->pl, s, IBVE_SINK_SUMMARY)))
		return cmd_fail();
	ibve_pipeline_set_storm(v->pl, v->batch ? 0 : TOP_STORM);
	ibve_pipeline_set_filter(v->pl, v->filter);
	ibve_pipeline_set_notes(v->pl, top_screen_note, v);
	ibve_pipeline_set_clock(v->pl, on_clock, t);
	ibve_pipeline_set_idle(v->pl, on_idle, t);
	if (ibve_pipeline_start(v->pl))
		return cmd_start_failed(v->pl);
	/* as the watcher: devices that appear get rows (the screen says it) */
	if (v->batch && !v->replay_path &&
	    !ibve_pipeline_devices(v->pl, NULL, 0))
		cmd_error("no RDMA devices yet: waiting for them to appear");
	/* Batch replay has no clock of its own: its refreshes are its steps. */
	if (!(v->batch && v->replay_path)) {
		t->timerfd = timerfd_create(CLOCK_MONOTONIC,
					    TFD_CLOEXEC | TFD_NONBLOCK);
		if (t->timerfd < 0) {
			cmd_error("timerfd: %s", strerror(errno));
			return EXIT_RUNTIME;
		}
		its.it_interval.tv_sec = (time_t)v->delay;
		its.it_interval.tv_nsec =
			(long)((v->delay - (double)(time_t)v->delay) * 1e9);
		its.it_value = its.it_interval;
		timerfd_settime(t->timerfd, 0, &its, NULL);
		ibve_loop_add_fd(l, t->timerfd, POLLIN, on_timer, t);
	}
	if (!v->batch) {
		top_screen_start(v);
		ibve_loop_add_signal(l, SIGWINCH, on_signal, t);
		ibve_loop_add_fd(l, STDIN_FILENO, POLLIN, on_stdin, t);
	}
	return EXIT_OK;
}

static int run(struct top *t)
{
	struct ibve_run_opts o = { .sz = sizeof(o), .linger = !t->v.batch };
	struct timespec now;
	int r = 0;

	/* Live: the first refresh at once, as top does. */
	if (!t->v.replay_path) {
		clock_gettime(CLOCK_REALTIME, &now);
		r = refresh_view(t, &now);
	}
	if (!r)
		r = ibve_pipeline_run(t->v.pl, &o);
	top_screen_end(&t->v);
	if (r == STOP_FAIL && t->error != EPIPE) {
		cmd_error("%s%s",
			  t->v.batch ? "write to standard output: " : "",
			  strerror(t->error ? t->error : EIO));
		return EXIT_RUNTIME;
	}
	if (r < 0 && r != -EPIPE)
		return cmd_fail();
	return ibve_pipeline_bad_input(t->v.pl) ? EXIT_BAD_INPUT : EXIT_OK;
}

int main(int argc, char **argv)
{
	struct top t = { .timerfd = -1 };
	int status;

	cmd_prog = "ibv_eventtop";
	parse(&t, argc, argv);
	ibve_providers_preload(); /* only the providers the devices need */
	signal(SIGPIPE, SIG_IGN);
	if (!t.v.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		cmd_error(
			"the screen needs a terminal; use -b for batch output");
		status = EXIT_RUNTIME;
	} else if (!(status = setup(&t))) {
		status = run(&t);
	}
	top_screen_end(&t.v);
	if (t.timerfd >= 0)
		close(t.timerfd);
	ibve_pipeline_free(t.v.pl);
	ibve_ports_free(t.v.ports);
	ibve_filter_free(t.v.filter);
	top_procs_free(&t.v.procs);
	free(t.v.events.v);
	free(t.v.order);
	free(t.v.porder);
	free(t.v.out);
	free(t.c.names);
	free(t.c.exclude);
	return status;
}
