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
};

static const struct cmd_opt opts[] = {
	{ 'd', "ib-dev", required_argument, "NAME",
	  "watch only device NAME (repeatable; default: all,\nand devices that appear later)" },
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
	"Exit status: 0 success, 1 expected event not seen, 2 usage error,\n"
	"3 runtime failure, 4 malformed replay input.\n",
	features,
};

struct watch {
	const char **names;
	size_t nnames;
	struct ibve_filter *filter, *expect;
	struct ibve_run_opts run;
	const char *replay, *capture, *metrics, *state, *listen;
	bool json, list, quiet, no_color, mlx5, sm, sm_issm, all;
	uint32_t port;
	int facility;
};

static int parse_facility(const char *name)
{
	static const struct {
		const char *name;
		int value;
	} f[] = {
		{ "daemon", LOG_DAEMON },     { "user", LOG_USER },
		{ "local0", LOG_LOCAL0 },     { "local1", LOG_LOCAL1 },
		{ "local2", LOG_LOCAL2 },     { "local3", LOG_LOCAL3 },
		{ "local4", LOG_LOCAL4 },     { "local5", LOG_LOCAL5 },
		{ "local6", LOG_LOCAL6 },     { "local7", LOG_LOCAL7 },
		{ "syslog", LOG_SYSLOG },     { "auth", LOG_AUTH },
		{ "authpriv", LOG_AUTHPRIV },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strcmp(f[i].name, name) == 0)
			return f[i].value;
	return -1;
}

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
			w->port = cmd_port(arg);
			ibve_filter_add_port(w->filter, w->port);
			break;
		case 'e':
		case 'x':
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
			w->facility = parse_facility(arg ? arg : "daemon");
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
			ibve_filter_add_pid(
				w->filter,
				(uint32_t)cmd_count(
					arg, "invalid pid '%s': a process id",
					1, 4194304));
			break;
		case OPT_COMM:
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
	if (w->state && !w->metrics && !w->listen)
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

/* -l: every device (or those named) with its ports, text or JSON. */
static int list_devices(const struct watch *w)
{
	struct ibve_device_info *list;
	int n = ibve_device_list_get(&list), status = EXIT_OK;

	if (n < 0)
		return cmd_fail();
	for (size_t k = 0; k < w->nnames; k++) {
		int i;

		for (i = 0; i < n && strcmp(list[i].name, w->names[k]); i++)
			;
		if (i == n) {
			cmd_error("device '%s': no such RDMA device",
				  w->names[k]);
			status = EXIT_RUNTIME;
		}
	}
	if (n == 0) {
		cmd_error("no RDMA devices found");
		status = EXIT_RUNTIME;
	}
	for (int i = 0; i < n && status == EXIT_OK; i++) {
		bool want = !w->nnames;
		int r;

		for (size_t k = 0; k < w->nnames; k++)
			want |= strcmp(list[i].name, w->names[k]) == 0;
		if (want && (r = ibve_device_print(stdout, &list[i], w->port,
						   w->json))) {
			if (r != -EPIPE)
				cmd_error("write to standard output: %s",
					  strerror(-r));
			status = r == -EPIPE ? EXIT_OK : EXIT_RUNTIME;
		}
	}
	ibve_device_list_free(list, (size_t)n);
	if (status == EXIT_OK && fflush(stdout) && errno != EPIPE) {
		cmd_error("write to standard output: %s", strerror(errno));
		status = EXIT_RUNTIME;
	}
	return status;
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
	r = w->state ? ibve_metrics_load(*ports, w->state) : 0;
	if (r == -EINVAL) { /* "STATE:LINE: not a metrics state line" */
		fprintf(stderr, "%s\n", ibve_errmsg());
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
		status = list_devices(&w);
		goto out;
	}
	/* signals first: the threads of sources must not take them */
	if (ibve_pipeline_new(&p) ||
	    ibve_loop_add_signal(ibve_pipeline_loop(p), SIGINT, on_signal,
				 NULL) ||
	    ibve_loop_add_signal(ibve_pipeline_loop(p), SIGTERM, on_signal,
				 NULL) ||
	    add_sources(p, &w)) {
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
	free(w.names);
	return status;
}
