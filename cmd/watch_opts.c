// SPDX-License-Identifier: MIT
/*
 * ibv_eventwatch's options: the table that drives getopt and --help, and
 * what each option sets in struct watch, with the combinations refused.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "watch.h"

/* What --check expects without --spec or --spec-file, when it exists. */
#define SPEC_FILE "/etc/ibvevent/ports.spec"

enum {
	OPT_EXPECT = CMD_OPT_OWN,
	OPT_METRICS_FILE,
	OPT_METRICS_STATE,
	OPT_METRICS_LISTEN,
	OPT_SYSLOG,
	OPT_JOURNAL,
	OPT_PID,
	OPT_COMM,
	OPT_CHECK,
	OPT_SPEC,
	OPT_SPEC_FILE,
	OPT_SINCE,
	OPT_BRIEF,
	OPT_IGNORE_CAUSE,
	OPT_WEB_CONFIG,
	OPT_LIST_EVENTS,
	OPT_STORM,
	OPT_STORM_JSON,
};

static const struct cmd_opt opts[] = {
	CMD_SHARED('d'),
	CMD_SHARED(CMD_OPT_EXCLUDE_DEVICE),
	CMD_SHARED('i'),
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
	CMD_SHARED('r'),
	{ 'l', "list", no_argument, NULL,
	  "list devices and ports (each RoCE port's peer from\nlldpd; with --sm each InfiniBand port's, from the\nsubnet administrator), then exit" },
	{ OPT_LIST_EVENTS, "list-events", no_argument, NULL,
	  "list every event: name, source, class, severity and\nmeaning (with -j: JSON Lines), then exit" },
	{ OPT_CHECK, "check", no_argument, NULL,
	  "check the ports once and exit: 0 healthy, 1 not (a\nshort reason first, then a line per failing port)" },
	{ OPT_SPEC, "spec", required_argument, "SPEC",
	  "with --check: expect 'DEVICE[/PORT] [state=S]\n[rate>=GBPS] [link=L] [flaps<=N] [peer=NAME[:PORT]]'\n(repeatable; default: /etc/ibvevent/ports.spec if it\nexists, else every port ACTIVE; flaps<= needs -r or\n--metrics-state, peer= needs --sm)" },
	{ OPT_SPEC_FILE, "spec-file", required_argument, "FILE",
	  "with --check: the expectations of FILE, one a line\n(unreadable: exit 3)" },
	{ OPT_SINCE, "since", required_argument, "DURATION",
	  "with --check: the history's window (-r or\n--metrics-state), e.g. 10m (default 10m)" },
	{ OPT_BRIEF, "brief", no_argument, NULL,
	  "with --check: only the first line, the reason (at\nmost 60 characters; a node problem detector's message)" },
	{ OPT_IGNORE_CAUSE, "ignore-cause", required_argument, "LIST",
	  "with --check: a port down for one of these causes\n(--autopsy's verdict, in the state or the capture) is\nno problem, e.g. administrative (a maintenance script)" },
	CMD_SHARED(CMD_OPT_FLAP_WINDOW),
	{ 'q', "quiet", no_argument, NULL,
	  "no \"watching\" line on standard error (without a\ndevice, it waits for one; with -n, --expect, -t or\n-d it exits 3)" },
	CMD_SHARED(CMD_OPT_SOURCES),
	{ OPT_PID, "pid", required_argument, "PID",
	  "only events of objects of process PID (repeatable;\nwith -A, filtered in the kernel unless -w or the\nmetrics take every record)" },
	{ OPT_COMM, "comm", required_argument, "NAME",
	  "only events of objects of processes called NAME\n(repeatable; filtered as --pid is)" },
	{ OPT_METRICS_FILE, "metrics-file", required_argument, "FILE",
	  "keep Prometheus metrics of every event in FILE" },
	{ OPT_METRICS_STATE, "metrics-state", required_argument, "FILE",
	  "keep the metrics' counters across restarts in FILE\n(with --metrics-file or --metrics-listen; with\n--check, the history)" },
	{ OPT_METRICS_LISTEN, "metrics-listen", required_argument, "ADDR",
	  "serve them at http://ADDR/metrics (:PORT: loopback)" },
	{ OPT_WEB_CONFIG, "web-config", required_argument, "FILE",
	  "with --metrics-listen: HTTPS and basic auth as the\nexporters' web configuration FILE says (YAML)" },
	{ OPT_SYSLOG, "syslog", optional_argument, "FACILITY",
	  "also log each event shown to syslog (default daemon;\nno syslog daemon at /dev/log: exit 3)" },
	{ OPT_JOURNAL, "journal", no_argument, NULL,
	  "also send each event shown to the systemd journal,\nwith its fields and a MESSAGE_ID" },
	{ OPT_STORM, "storm", required_argument, "N",
	  "past N events of one key (event, port, owner) in a\nsecond, text, syslog and the journal get one summary\nof it a second and one when it ends (default 10;\n0: every event); with -A above 0, the kernel counts\neach object's storm (a record with a count a second)" },
	{ OPT_STORM_JSON, "storm-json", no_argument, NULL,
	  "summarise storms in -j and -w too (a summary's\n\"count\" says how many events it stands for)" },
	CMD_SHARED(CMD_OPT_NO_COLOR),
};

static const char *features(void)
{
	static char f[64];
	unsigned int has = ibve_features();

	snprintf(f, sizeof(f), "mlx5 DEVX events: %s, all processes (eBPF): %s",
		 has & IBVE_FEATURE_MLX5 ? "yes" : "no",
		 has & IBVE_FEATURE_KERNEL ? "yes" : "no");
	return f;
}

static struct cmd_spec spec = {
	"[OPTIONS]",
	"Watch the asynchronous events of RDMA devices.\n",
	opts,
	sizeof(opts) / sizeof(opts[0]),
	"Exit status: 0 success (--check: healthy), 1 expected event not seen\n"
	"(--check: unhealthy), 2 usage error, 3 runtime failure, 4 malformed\n"
	"replay input.\n",
	features,
	NULL,
};

static void terms(struct ibve_filter **f, const char *list, bool exclude)
{
	if (!*f)
		*f = cmd_filter();
	if (ibve_filter_add_terms(*f, list, exclude))
		cmd_usage_error("%s", ibve_errmsg());
}

/*
 * The expectations of the spec file PATH, given with the option OPT ("--x:
 * "), or the default ("": absent, none): a line that is not one is a usage
 * error, a file that cannot be read a runtime failure.
 */
static void spec_file(struct watch *w, const char *path, const char *opt)
{
	int r = ibve_check_load(w->spec, path);

	if (!r || (r == -ENOENT && !*opt))
		return;
	if (r == -EINVAL)
		cmd_usage_error("%s%s", opt, ibve_errmsg());
	cmd_error("%s%s", opt, ibve_errmsg());
	exit(EXIT_RUNTIME);
}

/* --ignore-cause LIST: each cause of the comma-separated LIST. */
static void ignore_causes(struct watch *w, const char *list)
{
	char buf[256], *save = NULL, *one;

	w->ignore = true;
	if (!*list || strlen(list) >= sizeof(buf))
		cmd_usage_error("--ignore-cause: '%s': a list of causes", list);
	strcpy(buf, list);
	for (one = strtok_r(buf, ",", &save); one;
	     one = strtok_r(NULL, ",", &save))
		if (ibve_check_ignore_cause(w->spec, one))
			cmd_usage_error("--ignore-cause: %s", ibve_errmsg());
}

void watch_parse(struct watch *w, int argc, char **argv)
{
	/* The options that only say yes, and those that keep their argument. */
	const struct {
		int id;
		bool *to;
	} yes[] = {
		{ 'j', &w->json },
		{ 'l', &w->list },
		{ OPT_LIST_EVENTS, &w->list_events },
		{ 'q', &w->quiet },
		{ OPT_JOURNAL, &w->journal },
		{ OPT_CHECK, &w->check },
		{ OPT_BRIEF, &w->brief },
		{ OPT_STORM_JSON, &w->storm_json },
	};
	const struct {
		int id;
		const char **to;
	} keep[] = {
		{ 'w', &w->capture },
		{ OPT_METRICS_FILE, &w->metrics },
		{ OPT_METRICS_STATE, &w->state },
		{ OPT_METRICS_LISTEN, &w->listen },
		{ OPT_WEB_CONFIG, &w->web_config },
	};
	const char *arg;
	int c;

	w->facility = -1;
	w->storm = WATCH_STORM_DEFAULT;
	if (ibve_check_new(&w->spec)) /* empty: every port ACTIVE */
		exit(cmd_fail());
	w->run.sz = sizeof(w->run);
	spec.shared = &w->c;
	while ((c = cmd_getopt(&spec, argc, argv, &arg)) != -1) {
		for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
			if (yes[i].id == c)
				*yes[i].to = true;
		for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
			if (keep[i].id == c)
				*keep[i].to = arg;
		switch (c) {
		case 'e':
		case 'x':
			w->filtered = true;
			terms(&w->c.filter, arg, c == 'x');
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
		case OPT_PID:
			w->filtered = w->owners = true;
			ibve_filter_add_pid(
				w->c.filter,
				(uint32_t)cmd_count(
					arg, "invalid pid '%s': a process id",
					1, 4194304));
			break;
		case OPT_COMM:
			w->filtered = w->owners = true;
			if (ibve_filter_add_comm(w->c.filter, arg))
				cmd_usage_error("--comm: %s", ibve_errmsg());
			break;
		case OPT_SPEC:
			w->specs = true;
			if (ibve_check_add(w->spec, arg))
				cmd_usage_error("--spec: %s", ibve_errmsg());
			break;
		case OPT_SPEC_FILE:
			w->specs = true;
			spec_file(w, arg, "--spec-file: ");
			break;
		case OPT_STORM:
			w->storm = cmd_count(
				arg,
				"invalid storm threshold '%s': events a second, 0 for none",
				0, ULONG_MAX);
			break;
		case OPT_SINCE:
			w->since = cmd_duration(arg);
			break;
		case OPT_IGNORE_CAUSE:
			ignore_causes(w, arg);
			break;
		}
	}
	if (optind < argc)
		cmd_usage_error("unexpected argument '%s'", argv[optind]);
	w->filtered |= w->c.port != 0;
	for (int i = 1; w->list_events && i < argc; i++)
		if (strcmp(argv[i], "--list-events") && strcmp(argv[i], "-j") &&
		    strcmp(argv[i], "--json"))
			cmd_usage_error("--list-events takes only -j");
	if (w->list && (w->c.replay || w->capture || w->expect))
		cmd_usage_error(
			"--list cannot be combined with --replay, --write or --expect");
	if (w->list && (w->metrics || w->state || w->listen ||
			w->facility >= 0 || w->journal))
		cmd_usage_error(
			"--list does not take metrics, syslog or journal options");
	if ((w->specs || w->since || w->brief || w->ignore) && !w->check)
		cmd_usage_error(
			"--spec, --spec-file, --since, --brief and --ignore-cause go with --check");
	if (w->brief && w->json)
		cmd_usage_error("--brief is one line of text: not with -j");
	if (w->check && (w->list || w->capture || w->expect || w->run.count ||
			 w->run.timeout || w->metrics || w->listen ||
			 w->facility >= 0 || w->journal ||
			 (w->c.asked & ~cmd_asked(&w->c, "sm")) || w->filtered))
		cmd_usage_error(
			"--check takes -d, --exclude-device, --spec, --spec-file, -r, --metrics-state, --since, --brief, --ignore-cause, --sm and -j");
	if (w->check && !w->specs)
		spec_file(w, SPEC_FILE, "");
	if (w->check && !w->c.replay && !w->state &&
	    ibve_check_needs_history(w->spec))
		cmd_usage_error(
			"--check: '%s'%s needs a history: add --metrics-state FILE (the running watcher's state) or -r FILE (a capture)",
			ibve_check_needs_history(w->spec),
			w->specs ? "" : " (" SPEC_FILE ")");
	if (w->state && !w->metrics && !w->listen && !w->check)
		cmd_usage_error(
			"--metrics-state keeps the counters of --metrics-file or --metrics-listen");
	if (w->storm_json && !w->storm)
		cmd_usage_error(
			"--storm-json needs a --storm threshold above 0");
	if (w->web_config && !w->listen)
		cmd_usage_error("--web-config goes with --metrics-listen");
	/* --list --sm: each port's peer too */
	cmd_shared_check(&w->c, w->c.replay, "--replay", "autopsy");
	cmd_shared_check(&w->c, w->list, "--list", "sm");
	/* not an error: a filter may be kept for when -A is added */
	if (w->owners && !cmd_asked(&w->c, "kernel") && !w->c.replay &&
	    !w->check)
		cmd_error(
			"--pid and --comm match events of processes' own objects, which only -A sees: without it they match nothing");
}
