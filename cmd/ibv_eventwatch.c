// SPDX-License-Identifier: MIT
/*
 * ibv_eventwatch: watch the RDMA async events of every device, filtered,
 * as text or JSON Lines; record and replay them; answer health checks.
 * Options in, a pipeline of the library's sources and sinks, an exit
 * status out.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "common.h"
#include "tools.h"
#include "watch.h"

enum {
	OPT_EXPECT = 256,
	OPT_NO_COLOR,
	OPT_MLX5,
	OPT_METRICS_FILE,
	OPT_METRICS_STATE,
	OPT_METRICS_LISTEN,
	OPT_SYSLOG,
	OPT_SM,
	OPT_SM_ISSM,
	OPT_PID,
	OPT_COMM,
	OPT_CHECK,
	OPT_SPEC,
	OPT_SPEC_FILE,
	OPT_SINCE,
	OPT_EXCLUDE_DEVICE,
	OPT_FLAP_WINDOW,
};

static const struct cmd_opt opts[] = {
	{ 'd', "ib-dev", required_argument, "NAME",
	  "watch only device NAME (repeatable; default: all,\nand devices that appear later)" },
	{ OPT_EXCLUDE_DEVICE, "exclude-device", required_argument, "GLOB",
	  "never open nor read devices matching GLOB (repeatable)" },
	{ 'i', "ib-port", required_argument, "N",
	  "only events of port N (repeatable)" },
	{ 'e', "event", required_argument, "LIST",
	  "only these events: names (PORT_ERR, any case, with or\nwithout IBV_EVENT_), classes (device,port,qp,cq,srq,wq),\nsources (verbs,hotplug,mlx5,sm,kernel) or severity>=warning" },
	{ 'x', "exclude", required_argument, "LIST",
	  "not these events (same terms as -e)" },
	{ 'j', "json", no_argument, NULL, "JSON Lines: one object per event" },
	{ 'n', "count", required_argument, "N",
	  "exit after N events that pass the filters" },
	{ 't', "timeout", required_argument, "SECONDS", "exit after SECONDS" },
	{ OPT_EXPECT, "expect", required_argument, "LIST",
	  "exit 0 at the first such event, 1 if the timeout\npasses or the replay ends first" },
	{ 'w', "write", required_argument, "FILE",
	  "also append every event to FILE as JSON Lines" },
	{ 'r', "replay", required_argument, "FILE",
	  "read events from FILE (- for standard input)" },
	{ 'l', "list", no_argument, NULL, "list devices and ports, then exit" },
	{ OPT_CHECK, "check", no_argument, NULL,
	  "check the ports once and exit: 0 healthy, 1 not (a\nshort reason first, then a line per failing port)" },
	{ OPT_SPEC, "spec", required_argument, "SPEC",
	  "with --check: expect 'DEVICE[/PORT] [state=S]\n[rate>=GBPS] [link=L] [flaps<=N]' (repeatable;\ndefault: every port ACTIVE)" },
	{ OPT_SPEC_FILE, "spec-file", required_argument, "FILE",
	  "with --check: the expectations of FILE, one a line" },
	{ OPT_SINCE, "since", required_argument, "DURATION",
	  "with --check: the history's window (-r or\n--metrics-state), e.g. 10m (default 10m)" },
	{ OPT_FLAP_WINDOW, "flap-window", required_argument, "DURATION",
	  "a flap is a PORT_ERR then PORT_ACTIVE within it;\nmetrics count flaps (default 10m)" },
	{ 'q', "quiet", no_argument, NULL,
	  "no \"watching\" line on standard error" },
	{ 'A', "all-processes", no_argument, NULL,
	  "also every process's QP, CQ, SRQ and WQ events, with\nthe owner (eBPF in the kernel; needs root or CAP_BPF\nand CAP_PERFMON)" },
	{ OPT_PID, "pid", required_argument, "PID",
	  "only events of objects of process PID (repeatable)" },
	{ OPT_COMM, "comm", required_argument, "NAME",
	  "only events of objects of processes called NAME\n(repeatable)" },
	{ OPT_MLX5, "mlx5", no_argument, NULL,
	  "require mlx5 DEVX device events (cables, temperature);\nwithout it they are used wherever a device has them" },
	{ OPT_SM, "sm", no_argument, NULL,
	  "also the subnet's events from the subnet manager on\nInfiniBand ports: GID in/out of service, multicast\ngroups created/deleted (needs the umad device)" },
	{ OPT_SM_ISSM, "sm-issm", no_argument, NULL,
	  "with --sm: claim each port's IsSM capability and\nanswer the SM as a standby SM (ibsim needs it)" },
	{ OPT_METRICS_FILE, "metrics-file", required_argument, "FILE",
	  "keep Prometheus metrics of every event in FILE" },
	{ OPT_METRICS_STATE, "metrics-state", required_argument, "FILE",
	  "keep the metrics' counters across restarts in FILE" },
	{ OPT_METRICS_LISTEN, "metrics-listen", required_argument, "ADDR",
	  "serve them at http://ADDR/metrics (:PORT: loopback)" },
	{ OPT_SYSLOG, "syslog", optional_argument, "FACILITY",
	  "also log each event shown to syslog (default daemon)" },
	{ OPT_NO_COLOR, "no-color", no_argument, NULL,
	  "no colours (also when NO_COLOR is set)" },
};

static const char *features(void)
{
	static const char *const f[] = {
		"mlx5 DEVX events: no, all processes (eBPF): no",
		"mlx5 DEVX events: yes, all processes (eBPF): no",
		"mlx5 DEVX events: no, all processes (eBPF): yes",
		"mlx5 DEVX events: yes, all processes (eBPF): yes",
	};

	return f[ibve_features() & (IBVE_FEATURE_MLX5 | IBVE_FEATURE_KERNEL)];
}

static const struct cmd_spec spec = {
	"[OPTIONS]",
	"Watch the asynchronous events of RDMA devices.\n",
	opts,
	sizeof(opts) / sizeof(opts[0]),
	"Exit status: 0 success (--check: healthy), 1 expected event not seen\n"
	"(--check: unhealthy), 2 usage error, 3 runtime failure, 4 malformed\n"
	"replay input.\n",
	features,
};

struct watch {
	const char **names, **exclude;
	size_t nnames, nexclude;
	struct ibve_check *spec;
	double since, flap_window;
	bool check, specs, filtered; /* filtered: -e, -x, -i, --pid, --comm */
	struct ibve_filter *filter, *expect;
	struct ibve_run_opts run;
	const char *replay, *capture, *metrics, *state, *listen;
	bool json, list, quiet, no_color, mlx5, sm, sm_issm, all;
	uint32_t port;
	int facility;
};

static void terms(struct ibve_filter **f, const char *list, bool exclude)
{
	if (!*f)
		*f = cmd_filter();
	if (ibve_filter_add_terms(*f, list, exclude))
		cmd_usage_error("%s", ibve_errmsg());
}

static void parse(struct watch *w, int argc, char **argv)
{
	const char *arg;
	int c;

	w->facility = -1;
	w->run.sz = sizeof(w->run);
	w->filter = cmd_filter();
	while ((c = cmd_getopt(&spec, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'd':
			cmd_device(arg, &w->names, &w->nnames);
			ibve_filter_add_device(w->filter, arg);
			break;
		case 'i':
			w->filtered = true;
			w->port = cmd_port(arg);
			ibve_filter_add_port(w->filter, w->port);
			break;
		case 'e':
		case 'x':
			w->filtered = true;
			terms(&w->filter, arg, c == 'x');
			break;
		case OPT_EXPECT:
			terms(&w->expect, arg, false);
			w->run.expect = w->expect;
			break;
		case 'n':
			w->run.count = cmd_count(
				arg, "invalid count '%s': a positive number", 1,
				ULONG_MAX);
			break;
		case 't':
			w->run.timeout = cmd_seconds(
				arg,
				"invalid timeout '%s': seconds, more than 0",
				1e-9, 1e9);
			break;
		case OPT_SYSLOG:
			w->facility = watch_facility(arg ? arg : "daemon");
			if (w->facility < 0)
				cmd_usage_error("unknown syslog facility '%s'",
						arg);
			break;
		/* the options that only take their argument or say yes */
		case 'j':
			w->json = true;
			break;
		case 'w':
			w->capture = arg;
			break;
		case 'r':
			w->replay = arg;
			break;
		case 'l':
			w->list = true;
			break;
		case 'q':
			w->quiet = true;
			break;
		case OPT_NO_COLOR:
			w->no_color = true;
			break;
		case OPT_MLX5:
			w->mlx5 = true;
			break;
		case OPT_SM:
			w->sm = true;
			break;
		case OPT_SM_ISSM:
			w->sm_issm = true;
			break;
		case 'A':
			w->all = true;
			break;
		case OPT_PID:
			w->filtered = true;
			ibve_filter_add_pid(
				w->filter,
				(uint32_t)cmd_count(
					arg, "invalid pid '%s': a process id",
					1, 4194304));
			break;
		case OPT_COMM:
			w->filtered = true;
			if (ibve_filter_add_comm(w->filter, arg))
				cmd_usage_error("--comm: %s", ibve_errmsg());
			break;
		case OPT_METRICS_FILE:
			w->metrics = arg;
			break;
		case OPT_METRICS_STATE:
			w->state = arg;
			break;
		case OPT_METRICS_LISTEN:
			w->listen = arg;
			break;
		case OPT_EXCLUDE_DEVICE:
			cmd_device(arg, &w->exclude, &w->nexclude);
			break;
		case OPT_CHECK:
			w->check = true;
			break;
		case OPT_SPEC:
		case OPT_SPEC_FILE:
			w->specs = true;
			if ((!w->spec && ibve_check_new(&w->spec)) ||
			    (c == OPT_SPEC ? ibve_check_add(w->spec, arg)
					   : ibve_check_load(w->spec, arg)))
				cmd_usage_error("--%s: %s",
						c == OPT_SPEC ? "spec"
							      : "spec-file",
						ibve_errmsg());
			break;
		case OPT_SINCE:
			w->since = cmd_duration(
				arg,
				"invalid duration '%s': e.g. 90s, 10m, 2h");
			break;
		case OPT_FLAP_WINDOW:
			w->flap_window = cmd_duration(
				arg,
				"invalid duration '%s': e.g. 90s, 10m, 2h");
			break;
		}
	}
	if (optind < argc)
		cmd_usage_error("unexpected argument '%s'", argv[optind]);
	if (w->list && (w->replay || w->capture || w->expect))
		cmd_usage_error(
			"--list cannot be combined with --replay, --write or --expect");
	if (w->list &&
	    (w->metrics || w->state || w->listen || w->facility >= 0))
		cmd_usage_error(
			"--list does not take metrics or syslog options");
	if ((w->specs || w->since) && !w->check)
		cmd_usage_error(
			"--spec, --spec-file and --since go with --check");
	if (w->check &&
	    (w->list || w->capture || w->expect || w->run.count ||
	     w->run.timeout || w->metrics || w->listen || w->facility >= 0 ||
	     w->all || w->sm || w->mlx5 || w->filtered))
		cmd_usage_error(
			"--check takes -d, --exclude-device, --spec, --spec-file, -r, --metrics-state, --since and -j");
	if (w->state && !w->metrics && !w->listen && !w->check)
		cmd_usage_error(
			"--metrics-state keeps the counters of --metrics-file or --metrics-listen");
	if (w->mlx5 && (w->list || w->replay))
		cmd_usage_error(
			"--mlx5 is for watching devices, not with --list or --replay");
	if (w->sm_issm && !w->sm)
		cmd_usage_error("--sm-issm goes with --sm");
	if (w->sm && (w->list || w->replay))
		cmd_usage_error(
			"--sm is for watching devices, not with --list or --replay");
	if (w->all && (w->list || w->replay))
		cmd_usage_error(
			"--all-processes is for watching devices, not with --list or --replay");
}

static int exclude(struct ibve_pipeline *p, const struct watch *w)
{
	for (size_t i = 0; i < w->nexclude; i++)
		if (ibve_pipeline_exclude_device(p, w->exclude[i]))
			return -1;
	return 0;
}

/* The sources: a capture, or every device and what goes with them. */
static int add_sources(struct ibve_pipeline *p, const struct watch *w)
{
	const char *env = getenv("IBVEVENT_HOTPLUG");
	struct ibve_source_opts o = { .sz = sizeof(o),
				      .devices = w->names,
				      .ndevices = w->nnames };
	int r;

	if (w->replay) {
		o.path = w->replay;
		return ibve_pipeline_add_source(p, "replay", &o);
	}
	o.refresh = cmd_sm_refresh();
	o.flags = IBVE_SRC_REQUIRED | (w->sm_issm ? IBVE_SRC_SM_ISSM : 0);
	if (w->sm && (r = ibve_pipeline_add_source(p, "sm", &o)))
		return r;
	o.flags = w->mlx5 ? IBVE_SRC_REQUIRED : 0;
	if ((r = ibve_pipeline_add_source(p, "mlx5", &o)))
		return r;
	o.flags = env && strcmp(env, "uevent") == 0 ? IBVE_SRC_UEVENT_ONLY : 0;
	if ((r = ibve_pipeline_add_source(p, "hotplug", &o)))
		return r;
	o.flags = cmd_bpf_flags();
	if (w->all && (r = ibve_pipeline_add_source(p, "kernel", &o)))
		return r;
	return ibve_pipeline_add_source(p, "devices", &o);
}

/*
 * Metrics: the saved counters, a sink that keeps the file and the state,
 * and the HTTP endpoint. An exit status.
 */
static int add_metrics(struct ibve_pipeline *p, const struct watch *w,
		       struct ibve_ports **ports, struct ibve_http **http)
{
	struct ibve_sink *s;
	int r;

	if (ibve_ports_new(ports, w->replay ? 0 : IBVE_PORTS_SYSFS))
		return cmd_fail();
	ibve_ports_set_flap_window(*ports, w->flap_window);
	r = w->state ? ibve_metrics_load(*ports, w->state) : 0;
	if (r == 1) { /* another boot's: said, and gone on with */
		cmd_error("%s", ibve_errmsg());
		r = 0;
	}
	if (r == -EINVAL) { /* "STATE:LINE: not a metrics state line" */
		cmd_error("%s", ibve_errmsg());
		return EXIT_RUNTIME;
	}
	if ((r && r != -ENOENT) ||
	    ibve_sink_metrics(&s, *ports, w->metrics, w->state) ||
	    ibve_pipeline_add_sink(p, s, IBVE_SINK_ALL))
		return cmd_fail();
	if (w->listen && (ibve_http_new(http, w->listen, *ports) ||
			  ibve_http_attach(*http, ibve_pipeline_loop(p)))) {
		cmd_error("--metrics-listen %s", ibve_errmsg());
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* The sinks, in order: capture and metrics see all, the rest what passes. */
static int add_sinks(struct ibve_pipeline *p, const struct watch *w,
		     struct ibve_ports **ports, struct ibve_http **http)
{
	struct ibve_sink *s;
	int status;

	if (w->capture && (ibve_sink_capture(&s, w->capture) ||
			   ibve_pipeline_add_sink(p, s, IBVE_SINK_ALL)))
		return cmd_fail();
	if ((w->metrics || w->listen) &&
	    (status = add_metrics(p, w, ports, http)))
		return status;
	if (w->facility >= 0 && (ibve_sink_syslog(&s, cmd_prog, w->facility) ||
				 ibve_pipeline_add_sink(p, s, 0)))
		return cmd_fail();
	if (ibve_sink_stream(&s, stdout, "standard output",
			     (w->json ? IBVE_FORMAT_JSON : 0) |
				     (cmd_color(w->no_color, true)
					      ? IBVE_FORMAT_COLOR
					      : 0)) ||
	    ibve_pipeline_add_sink(p, s, 0))
		return cmd_fail();
	return EXIT_OK;
}

static int check(struct watch *w)
{
	struct check_opts o = {
		.sel = { w->names, w->nnames, w->exclude, w->nexclude },
		.replay = w->replay,
		.state = w->state,
		.since = w->since ? w->since : 600,
		.json = w->json,
	};

	/* no spec: every port ACTIVE */
	if (!w->spec && ibve_check_new(&w->spec))
		return cmd_fail();
	o.spec = w->spec;
	return watch_check(&o);
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

int main(int argc, char **argv)
{
	struct watch w = { 0 };
	struct ibve_pipeline *p = NULL;
	struct ibve_ports *ports = NULL;
	struct ibve_http *http = NULL;
	char what[4096];
	int status;

	cmd_prog = "ibv_eventwatch";
	parse(&w, argc, argv);
	signal(SIGPIPE, SIG_IGN); /* a closed pipe is the reader's choice */
	if (w.list) {
		struct selection sel = { w.names, w.nnames, w.exclude,
					 w.nexclude };

		status = watch_list(&sel, w.port, w.json);
		goto out;
	}
	if (w.check) {
		status = check(&w);
		goto out;
	}
	/* signals first: the threads of sources must not take them */
	if (ibve_pipeline_new(&p) ||
	    ibve_loop_add_signal(ibve_pipeline_loop(p), SIGINT, on_signal,
				 NULL) ||
	    ibve_loop_add_signal(ibve_pipeline_loop(p), SIGTERM, on_signal,
				 NULL) ||
	    exclude(p, &w) || add_sources(p, &w)) {
		status = cmd_fail();
		goto out;
	}
	ibve_pipeline_set_filter(p, w.filter);
	ibve_pipeline_set_notes(p, cmd_notes, NULL);
	if ((status = add_sinks(p, &w, &ports, &http)))
		goto out;
	if (ibve_pipeline_start(p)) {
		status = cmd_start_failed(p);
		goto out;
	}
	if (!w.quiet && !w.replay) {
		ibve_pipeline_describe(p, what, sizeof(what));
		cmd_error("watching %s", what);
	}
	status = outcome(&w, p, ibve_pipeline_run(p, &w.run));
out:
	ibve_pipeline_free(p);
	ibve_http_free(http);
	ibve_ports_free(ports);
	ibve_filter_free(w.filter);
	ibve_filter_free(w.expect);
	ibve_check_free(w.spec);
	free(w.names);
	free(w.exclude);
	return status;
}
