// SPDX-License-Identifier: MIT
/*
 * ibv_eventwatch: watch the RDMA async events of every device, filtered,
 * as text or JSON Lines; record and replay them; answer health checks.
 * A pipeline of the library's sources and sinks from the options
 * (watch_opts.c), an exit status out.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "web.h"
#include "watch.h"

/* The sources: a capture, or every device and what goes with them. */
static int add_sources(struct ibve_pipeline *p, const struct watch *w)
{
	/* a service started before the driver waits for its devices; a
	 * script that counts on an event (-n, --expect, -t) is told at once */
	struct ibve_source_opts o = {
		.flags = w->run.count || w->expect || w->run.timeout
				 ? 0
				 : IBVE_SRC_WAIT,
	};

	return cmd_add_sources(p, &w->c, o);
}

/*
 * Metrics: the saved counters, a sink that keeps the file and the state,
 * and the HTTP endpoint with its web configuration. An exit status.
 */
static int add_metrics(struct ibve_pipeline *p, const struct watch *w,
		       struct ibve_ports **ports, struct ibve_http **http)
{
	struct ibve_webconfig *c = NULL;
	struct ibve_sink *s;
	int r;

	if (ibve_ports_new(ports, w->c.replay ? 0 : IBVE_PORTS_SYSFS))
		return cmd_fail();
	ibve_ports_set_flap_window(*ports, w->c.flap_window);
	r = w->state ? ibve_metrics_load(*ports, w->state) : 0;
	if (r == 1) { /* another boot's: said, and gone on with */
		cmd_error("%s", ibve_errmsg());
		r = 0;
	}
	/* -EINVAL: "STATE:LINE: not a metrics state line"; no file: a start */
	if ((r && r != -ENOENT) ||
	    ibve_sink_metrics(&s, *ports, w->metrics, w->state) ||
	    ibve_pipeline_add_sink(p, s, IBVE_SINK_ALL))
		return cmd_fail();
	if (!w->listen)
		return EXIT_OK;
	/* the web configuration: what the file says wrong is a usage error,
	 * what it names that cannot be had a runtime failure */
	r = w->web_config ? ibve_webconfig_load(&c, w->web_config) : 0;
	if (r) {
		cmd_error("%s", ibve_errmsg());
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	/* the server keeps the configuration */
	if (ibve_http_new(http, w->listen, *ports, c, ibve_pipeline_loop(p))) {
		cmd_error("--metrics-listen %s", ibve_errmsg());
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/*
 * The sinks, in order: capture and metrics see all, the rest (syslog, the
 * journal, standard output) what passes.
 */
static int add_sinks(struct ibve_pipeline *p, const struct watch *w,
		     struct ibve_ports **ports, struct ibve_http **http)
{
	/* what people read gets summaries; JSON with --storm-json */
	unsigned int sum = IBVE_SINK_SUMMARY,
		     jsum = w->storm_json ? IBVE_SINK_SUMMARY : 0;
	struct ibve_sink *s;
	int status;

	if (w->capture && (ibve_sink_capture(&s, w->capture) ||
			   ibve_pipeline_add_sink(p, s, IBVE_SINK_ALL | jsum)))
		return cmd_fail();
	if ((w->metrics || w->listen) &&
	    (status = add_metrics(p, w, ports, http)))
		return status;
	/* no syslog daemon, like no journal, is a failure now */
	if (w->facility >= 0 && watch_syslog_ready())
		return EXIT_RUNTIME;
	if (w->facility >= 0 && (ibve_sink_syslog(&s, cmd_prog, w->facility) ||
				 ibve_pipeline_add_sink(p, s, sum)))
		return cmd_fail();
	/* no journal is a failure now, not entries lost later */
	if (w->journal && (ibve_sink_journal(&s, cmd_prog) ||
			   ibve_pipeline_add_sink(p, s, sum))) {
		cmd_error("--journal: %s", ibve_errmsg());
		return EXIT_RUNTIME;
	}
	if (ibve_sink_stream(&s, stdout, "standard output",
			     (w->json ? IBVE_FORMAT_JSON : 0) |
				     (cmd_color(w->c.no_color, true)
					      ? IBVE_FORMAT_COLOR
					      : 0)) ||
	    ibve_pipeline_add_sink(p, s, w->json ? jsum : sum))
		return cmd_fail();
	return EXIT_OK;
}

static int on_signal(int signo, void *arg)
{
	(void)signo;
	(void)arg;
	return IBVE_STOP_USER;
}

/* What the run's end means for the exit status. */
static int outcome(const struct watch *w, const struct ibve_pipeline *p, int r)
{
	if (r == -EPIPE)
		return EXIT_OK; /* the reader went away: e.g. | head -1 */
	if (r < 0)
		return cmd_fail();
	if (ibve_pipeline_bad_input(p))
		return EXIT_BAD_INPUT;
	return w->expect && r != IBVE_STOP_EXPECT ? EXIT_NOT_MET : EXIT_OK;
}

/* glibc sizes a buffer it allocates by st_blksize whatever it is asked */
static char out_buf[1 << 16];

int main(int argc, char **argv)
{
	struct watch w = { 0 };
	struct ibve_pipeline *p = NULL;
	struct ibve_ports *ports = NULL;
	struct ibve_http *http = NULL;
	char what[4096];
	int status;

	cmd_prog = "ibv_eventwatch";
	watch_parse(&w, argc, argv);
	ibve_providers_preload(); /* only the providers the devices need */
	/* Not a terminal: written 64 KiB at a time, not 4 (a replay writes
	 * megabytes); whatever is buffered goes out when the loop waits. */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, out_buf, _IOFBF, sizeof(out_buf));
	signal(SIGPIPE, SIG_IGN); /* a closed pipe is the reader's choice */
	if (w.list || w.list_events || w.check) {
		status = w.list		 ? watch_list(&w.c, w.json)
			 : w.list_events ? watch_list_events(w.json)
					 : watch_check(&w);
		goto out;
	}
	/* signals first: the threads of sources must not take them */
	if (ibve_pipeline_new(&p) ||
	    ibve_loop_add_signal(ibve_pipeline_loop(p), SIGINT, on_signal,
				 NULL) ||
	    ibve_loop_add_signal(ibve_pipeline_loop(p), SIGTERM, on_signal,
				 NULL) ||
	    cmd_exclude(p, &w.c) || add_sources(p, &w)) {
		status = cmd_fail();
		goto out;
	}
	ibve_pipeline_set_filter(p, w.c.filter);
	ibve_pipeline_set_storm(p, w.storm);
	ibve_pipeline_set_notes(p, cmd_notes, NULL);
	if ((status = add_sinks(p, &w, &ports, &http)))
		goto out;
	if (ibve_pipeline_start(p)) {
		status = cmd_start_failed(p);
		goto out;
	}
	/* "watching 0 devices (hot-plug: netlink)", unless -q; none yet is
	 * said either way */
	ibve_pipeline_describe(p, what, sizeof(what));
	if (!w.c.replay && !w.quiet)
		cmd_error("watching %s", what);
	else if (!w.c.replay && !ibve_pipeline_devices(p, NULL, 0))
		cmd_error("no RDMA devices yet: waiting for them to appear");
	status = outcome(&w, p, ibve_pipeline_run(p, &w.run));
out:
	ibve_pipeline_free(p);
	ibve_http_free(http);
	ibve_ports_free(ports);
	ibve_filter_free(w.c.filter);
	ibve_filter_free(w.expect);
	ibve_check_free(w.spec);
	free(w.c.names);
	free(w.c.exclude);
	return status;
}
