// SPDX-License-Identifier: MIT
/*
 * ibv_eventinject: provoke real SRQ-limit, CQ-overflow and QP events on
 * objects of our own, and report whether the device delivered them.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "ibvevent.h"

#define PROG "ibv_eventinject"

enum { OPT_REARM = 256, OPT_EVENTS, OPT_HOLD };

static const struct option long_opts[] = {
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "gid-idx", required_argument, NULL, 'g' },
	{ "timeout", required_argument, NULL, 't' },
	{ "json", no_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "rearm", required_argument, NULL, OPT_REARM },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "hold", no_argument, NULL, OPT_HOLD },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [OPTIONS] SCENARIO\n"
		"       " PROG " list\n"
		"Provoke an RDMA async event on objects of our own and report it.\n"
		"\n"
		"Scenarios:\n");
	for (size_t i = 0; ibve_scenario_at(i); i++)
		fprintf(f, "  %-12s expects %s\n", ibve_scenario_at(i)->name,
			ibve_scenario_at(i)->expects);
	fprintf(f,
		"\n"
		"  -d, --ib-dev NAME      device (default: the first with an ACTIVE port)\n"
		"  -i, --ib-port N        port (default: the first ACTIVE one)\n"
		"  -g, --gid-idx N        RoCE GID index (default: chosen, RoCE v2 first)\n"
		"  -t, --timeout SECONDS  how long each expected event may take (default 5)\n"
		"  -j, --json             the report as one JSON object\n"
		"  -q, --quiet            no report; the exit status says it all\n"
		"      --rearm K          srq-limit: re-arm and trigger K more times\n"
		"      --events N         cq-overflow: go on until N CQ_ERR events came\n"
		"      --hold             after the report, stay until SIGTERM or SIGINT, so\n"
		"                         other tools can check that nothing was left behind\n"
		"  -h, --help             show this help\n"
		"  -V, --version          show the version\n"
		"\n"
		"Exit status: 0 every expected event arrived, 1 one did not arrive in\n"
		"time, 2 usage error, 3 setup failure.\n");
}

static void fail_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
	exit(2);
}

static unsigned long parse_num(const char *s, const char *what,
			       unsigned long min, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || *s == '-' || v < min || v > max)
		fail_usage(what, s);
	return v;
}

static int list(bool json)
{
	for (size_t i = 0; ibve_scenario_at(i); i++) {
		const struct ibve_scenario *s = ibve_scenario_at(i);

		if (json)
			printf("{\"scenario\":\"%s\",\"event\":\"%s\",\"description\":\"%s\"}\n",
			       s->name, s->expects, s->text);
		else
			printf("%-12s %-20s %s\n", s->name, s->expects,
			       s->text);
	}
	return fflush(stdout) ? 3 : 0;
}

int main(int argc, char **argv)
{
	struct ibve_inject_opts o = { .gid_index = -1,
				      .timeout = 5,
				      .cancel_fd = -1 };
	struct ibve_inject_report r;
	unsigned long rearm = 0, events = 0;
	bool json = false, quiet = false, has_rearm = false, has_events = false;
	bool hold = false;
	const char *scenario;
	char out[4096];
	sigset_t mask;
	int opt, status;

	while ((opt = getopt_long(argc, argv, "d:i:g:t:jqhV", long_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (!*optarg || strlen(optarg) >= IBVE_NAME_MAX)
				fail_usage("invalid device name '%s'", optarg);
			o.device = optarg;
			break;
		case 'i':
			o.port = (uint32_t)parse_num(
				optarg, "invalid port number '%s'", 1, 255);
			break;
		case 'g':
			o.gid_index = (int)parse_num(
				optarg, "invalid GID index '%s'", 0, 65535);
			break;
		case 't': {
			char *end;

			errno = 0;
			o.timeout = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !isfinite(o.timeout) || o.timeout <= 0 ||
			    o.timeout > 86400)
				fail_usage(
					"invalid timeout '%s': seconds, more than 0",
					optarg);
			break;
		}
		case 'j':
			json = true;
			break;
		case 'q':
			quiet = true;
			break;
		case OPT_REARM:
			rearm = parse_num(optarg, "invalid --rearm '%s'", 0,
					  1000000);
			has_rearm = true;
			break;
		case OPT_EVENTS:
			events = parse_num(
				optarg,
				"invalid --events '%s': a positive number", 1,
				100000000);
			has_events = true;
			break;
		case OPT_HOLD:
			hold = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf(PROG " %s (libibvevent %s)\n", IBVE_VERSION,
			       ibve_version());
			return 0;
		default:
			fprintf(stderr, "Try '" PROG
					" --help' for more information.\n");
			return 2;
		}
	}
	if (optind >= argc)
		fail_usage(
			"%s",
			"no scenario given (ibv_eventinject list shows them)");
	scenario = argv[optind++];
	if (optind < argc)
		fail_usage("unexpected argument '%s'", argv[optind]);
	if (strcmp(scenario, "list") == 0)
		return list(json);
	if (!ibve_scenario_lookup(scenario))
		fail_usage(
			"unknown scenario '%s' (ibv_eventinject list shows them)",
			scenario);
	if (has_rearm && strcmp(scenario, "srq-limit") != 0)
		fail_usage("%s", "--rearm applies to srq-limit only");
	if (has_events && strcmp(scenario, "cq-overflow") != 0)
		fail_usage("%s", "--events applies to cq-overflow only");
	o.count = has_events ? events : rearm + 1;

	/* SIGINT and SIGTERM stop the run; teardown still completes. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	o.cancel_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);

	status = ibve_inject_run(scenario, &o, &r);
	if (status)
		fprintf(stderr, PROG ": %s\n", r.error);
	if (!quiet && (json || status != 3)) {
		size_t n = json ? ibve_inject_format_json(&r, out, sizeof(out))
				: ibve_inject_format_text(&r, out, sizeof(out));

		if (fwrite(out, 1, n, stdout) != n || fflush(stdout)) {
			if (errno != EPIPE) {
				fprintf(stderr,
					PROG ": write to standard output: %s\n",
					strerror(errno));
				status = 3;
			}
		}
	}
	/* Held: the objects are gone, the process is not (a run SIGTERM
	 * interrupted is not held: its signal is still pending). */
	if (hold && o.cancel_fd >= 0) {
		struct pollfd p = { o.cancel_fd, POLLIN, 0 };

		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
	}
	if (o.cancel_fd >= 0)
		close(o.cancel_fd);
	return status;
}
