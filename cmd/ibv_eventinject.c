// SPDX-License-Identifier: MIT
/*
 * ibv_eventinject: provoke real SRQ-limit, CQ-overflow and QP events on
 * objects of our own, and report whether the device delivered them.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "common.h"
#include "tools.h"

enum { OPT_REARM = 256, OPT_EVENTS, OPT_HOLD };

static const struct cmd_opt opts[] = {
	{ 'd', "ib-dev", required_argument, "NAME",
	  "device (default: the first with an ACTIVE port)" },
	{ 'i', "ib-port", required_argument, "N",
	  "port (default: the first ACTIVE one)" },
	{ 'g', "gid-idx", required_argument, "N",
	  "RoCE GID index (default: chosen, RoCE v2 first)" },
	{ 't', "timeout", required_argument, "SECONDS",
	  "how long each expected event may take (default 5)" },
	{ 'j', "json", no_argument, NULL, "the report as one JSON object" },
	{ 'q', "quiet", no_argument, NULL,
	  "no report; the exit status says it all" },
	{ OPT_REARM, "rearm", required_argument, "K",
	  "srq-limit: re-arm and trigger K more times" },
	{ OPT_EVENTS, "events", required_argument, "N",
	  "cq-overflow: go on until N CQ_ERR events came" },
	{ OPT_HOLD, "hold", no_argument, NULL,
	  "after the report, stay until SIGTERM or SIGINT, so\nother tools can check that nothing was left behind" },
};

static char usage[1024];

static struct cmd_spec spec = {
	"[OPTIONS] SCENARIO\n       ibv_eventinject list",
	usage,
	opts,
	sizeof(opts) / sizeof(opts[0]),
	"Exit status: 0 every expected event arrived, 1 one did not arrive in\n"
	"time, 2 usage error, 3 setup failure.\n",
	NULL,
	NULL,
};

struct inject {
	struct ibve_inject_opts o;
	unsigned long rearm, events;
	bool json, quiet, hold, has_rearm, has_events;
	const char *scenario;
};

static void parse(struct inject *in, int argc, char **argv)
{
	const char *arg;
	int c;

	in->o.gid_index = -1;
	in->o.timeout = 5;
	in->o.cancel_fd = -1;
	while ((c = cmd_getopt(&spec, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'd':
			if (!*arg || strlen(arg) >= IBVE_NAME_MAX)
				cmd_usage_error("invalid device name '%s'",
						arg);
			in->o.device = arg;
			break;
		case 'i':
			in->o.port = cmd_port(arg);
			break;
		case 'g':
			in->o.gid_index = (int)cmd_count(
				arg, "invalid GID index '%s'", 0, 65535);
			break;
		case 't':
			in->o.timeout = cmd_seconds(
				arg,
				"invalid timeout '%s': seconds, more than 0",
				1e-9, 86400);
			break;
		case OPT_REARM:
			in->rearm = cmd_count(arg, "invalid --rearm '%s'", 0,
					      1000000);
			in->has_rearm = true;
			break;
		case OPT_EVENTS:
			in->events = cmd_count(
				arg, "invalid --events '%s': a positive number",
				1, 100000000);
			in->has_events = true;
			break;
		case 'j':
			in->json = true;
			break;
		case 'q':
			in->quiet = true;
			break;
		case OPT_HOLD:
			in->hold = true;
			break;
		}
	}
	if (optind >= argc)
		cmd_usage_error(
			"no scenario given (ibv_eventinject list shows them)");
	in->scenario = argv[optind++];
	if (optind < argc)
		cmd_usage_error("unexpected argument '%s'", argv[optind]);
}

/* list: every scenario, text or JSON Lines. */
static int list(bool json)
{
	char out[4096];
	size_t n = ibve_scenario_format(out, sizeof(out), json);

	return fwrite(out, 1, n, stdout) != n || fflush(stdout) ? EXIT_RUNTIME
								: EXIT_OK;
}

static int report(const struct inject *in, const struct ibve_inject_report *r,
		  int status)
{
	char out[4096];
	size_t n;

	if (status)
		cmd_error("%s", r->error);
	if (in->quiet || (!in->json && status == EXIT_RUNTIME))
		return status;
	n = ibve_inject_format(r, out, sizeof(out), in->json);
	if ((fwrite(out, 1, n, stdout) != n || fflush(stdout)) &&
	    errno != EPIPE) {
		cmd_error("write to standard output: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct inject in = { 0 };
	struct ibve_inject_report r;
	sigset_t mask;
	int status;

	cmd_prog = "ibv_eventinject";
	snprintf(
		usage, sizeof(usage),
		"Provoke an RDMA async event on objects of our own and report it.\n\nScenarios:\n");
	for (size_t i = 0; ibve_scenario_at(i); i++)
		snprintf(usage + strlen(usage), sizeof(usage) - strlen(usage),
			 "  %-12s expects %s\n", ibve_scenario_at(i)->name,
			 ibve_scenario_at(i)->expects);
	parse(&in, argc, argv);
	if (strcmp(in.scenario, "list") == 0)
		return list(in.json);
	if (!ibve_scenario_lookup(in.scenario))
		cmd_usage_error(
			"unknown scenario '%s' (ibv_eventinject list shows them)",
			in.scenario);
	if (in.has_rearm && strcmp(in.scenario, "srq-limit") != 0)
		cmd_usage_error("--rearm applies to srq-limit only");
	if (in.has_events && strcmp(in.scenario, "cq-overflow") != 0)
		cmd_usage_error("--events applies to cq-overflow only");
	in.o.count = in.has_events ? in.events : in.rearm + 1;

	/* SIGINT and SIGTERM stop the run; teardown still completes. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	in.o.cancel_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);

	status = report(&in, &r, ibve_inject_run(in.scenario, &in.o, &r));
	/* Held: the objects are gone, the process is not (a run SIGTERM
	 * interrupted is not held: its signal is still pending). */
	if (in.hold && in.o.cancel_fd >= 0) {
		struct pollfd p = { in.o.cancel_fd, POLLIN, 0 };

		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
	}
	if (in.o.cancel_fd >= 0)
		close(in.o.cancel_fd);
	return status;
}
