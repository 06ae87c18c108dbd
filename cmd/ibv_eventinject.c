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

#include "buf.h"
#include "common.h"
#include "inject.h"

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
	bool json, quiet, hold, has_rearm;
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

static void report_text(struct ibve_buf *b, const struct ibve_inject_report *r)
{
	const char *ll = r->link_layer == IBV_LINK_LAYER_ETHERNET
				 ? "RoCE"
				 : "InfiniBand";

	ibve_buf_printf(b, "scenario   %s\n",
			r->scenario ? r->scenario->name : "?");
	if (r->device[0]) {
		ibve_buf_puts(b, "device     ");
		ibve_buf_text_str(b, r->device);
		ibve_buf_printf(b, " port %u", r->port);
		if (r->gid_index >= 0)
			ibve_buf_printf(b, " (%s, GID index %d)\n", ll,
					r->gid_index);
		else if (r->lid)
			ibve_buf_printf(b, " (%s, LID %u)\n", ll, r->lid);
		else
			ibve_buf_putc(b, '\n');
	}
	if (r->scenario)
		ibve_buf_printf(b, "expected   %s x%lu\n", r->scenario->expects,
				r->expected);
	if (r->status != 3 || r->received) {
		ibve_buf_printf(b, "received   %s x%lu", r->scenario->expects,
				r->received);
		if (r->received) {
			char d[256];

			ibve_event_format_details(&r->first, d, sizeof(d));
			ibve_buf_puts(b, d);
		}
		ibve_buf_putc(b, '\n');
	}
	if (r->received) {
		ibve_buf_printf(b, "latency    %.0f us from trigger to arrival",
				r->latency_us);
		if (r->received > 1)
			ibve_buf_printf(b, " (max %.0f us)", r->latency_max_us);
		ibve_buf_putc(b, '\n');
		if (r->received > 1)
			ibve_buf_printf(
				b, "rate       %.0f events/s over %.3f s\n",
				r->rate, r->seconds);
	}
	ibve_buf_printf(b, "events     %lu read, every one acknowledged\n",
			r->events);
	ibve_buf_printf(b, "teardown   %s in %.1f ms\n",
			r->teardown ? "complete" : "FAILED", r->teardown_ms);
	if (r->status == 0)
		ibve_buf_puts(b, "result     OK\n");
	else
		ibve_buf_printf(b, "result     %s: %s\n",
				r->status == 1 ? "NOT DELIVERED"
					       : "SETUP FAILED",
				r->error);
}

static void report_json(struct ibve_buf *b, const struct ibve_inject_report *r)
{
	struct ibve_json j;
	char tmp[64];

	ibve_json_init(&j, b);
	ibve_json_open(&j, NULL);
	ibve_json_str(&j, "scenario", r->scenario ? r->scenario->name : "");
	ibve_json_str(&j, "device", r->device);
	ibve_json_uint_or_null(&j, "port", r->port);
	tmp[0] = '\0';
	if (r->node_guid)
		ibve_guid_format(r->node_guid, tmp, sizeof(tmp));
	ibve_json_str_or_null(&j, "node_guid", tmp);
	ibve_json_str(&j, "link_layer", ibve_link_layer_name(r->link_layer));
	if (r->gid_index >= 0)
		ibve_json_int(&j, "gid_index", r->gid_index);
	else
		ibve_json_null(&j, "gid_index");
	ibve_json_uint(&j, "lid", r->lid);
	ibve_json_str(&j, "event", r->scenario ? r->scenario->expects : "");
	ibve_json_uint(&j, "expected", r->expected);
	ibve_json_uint(&j, "received", r->received);
	if (r->received) {
		const struct ibve_event *e = &r->first;

		ibve_time_format(&e->time, tmp, sizeof(tmp));
		ibve_json_str(&j, "time", tmp);
		ibve_json_int(&j, "code", e->code);
		ibve_json_str(&j, "class", ibve_class_name(e->cls));
		ibve_json_str(&j, "severity", ibve_severity_name(e->severity));
		ibve_json_bool(&j, "affiliated", e->affiliated);
		if (e->fields & IBVE_FIELD_QP_NUM)
			ibve_json_uint(&j, "qp_num", e->qp_num);
		if (e->fields & IBVE_FIELD_HANDLE)
			ibve_json_uint(&j, "handle", e->handle);
		ibve_json_double(&j, "latency_us", "%.1f", r->latency_us);
		ibve_json_double(&j, "latency_max_us", "%.1f",
				 r->latency_max_us);
		ibve_json_double(&j, "seconds", "%.6f", r->seconds);
		ibve_json_double(&j, "rate", "%.1f", r->rate);
	}
	ibve_json_uint(&j, "events", r->events);
	ibve_json_bool(&j, "teardown", r->teardown);
	ibve_json_double(&j, "teardown_ms", "%.3f", r->teardown_ms);
	ibve_json_bool(&j, "interrupted", r->interrupted);
	ibve_json_int(&j, "status", r->status);
	ibve_json_str_or_null(&j, "error", r->status ? r->error : NULL);
	ibve_json_close(&j);
	ibve_buf_putc(b, '\n');
}

/* list: every scenario, text or JSON Lines. */
static int list(bool json)
{
	char out[4096];
	struct ibve_buf b = { out, sizeof(out), 0 };
	size_t n;

	for (const struct ibve_scenario *s = ibve_scenarios; s->name; s++) {
		struct ibve_json j;

		if (!json) {
			ibve_buf_printf(&b, "%-12s %-20s %s\n", s->name,
					s->expects, s->text);
			continue;
		}
		ibve_json_init(&j, &b);
		ibve_json_open(&j, NULL);
		ibve_json_str(&j, "scenario", s->name);
		ibve_json_str(&j, "event", s->expects);
		ibve_json_str(&j, "description", s->text);
		ibve_json_close(&j);
		ibve_buf_putc(&b, '\n');
	}
	n = ibve_buf_end(&b);
	return fwrite(out, 1, n, stdout) != n || fflush(stdout) ? EXIT_RUNTIME
								: EXIT_OK;
}

static int report(const struct inject *in, const struct ibve_inject_report *r,
		  int status)
{
	char out[4096];
	struct ibve_buf b = { out, sizeof(out), 0 };
	size_t n;

	if (status)
		cmd_error("%s", r->error);
	if (in->quiet || (!in->json && status == EXIT_RUNTIME))
		return status;
	(in->json ? report_json : report_text)(&b, r);
	n = ibve_buf_end(&b);
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
	for (const struct ibve_scenario *s = ibve_scenarios; s->name; s++)
		snprintf(usage + strlen(usage), sizeof(usage) - strlen(usage),
			 "  %-12s expects %s\n", s->name, s->expects);
	parse(&in, argc, argv);
	if (strcmp(in.scenario, "list") == 0)
		return list(in.json);
	if (!ibve_scenario_lookup(in.scenario))
		cmd_usage_error(
			"unknown scenario '%s' (ibv_eventinject list shows them)",
			in.scenario);
	if (in.has_rearm && strcmp(in.scenario, "srq-limit") != 0)
		cmd_usage_error("--rearm applies to srq-limit only");
	if (in.events && strcmp(in.scenario, "cq-overflow") != 0)
		cmd_usage_error("--events applies to cq-overflow only");
	in.o.count = in.events ? in.events : in.rearm + 1;

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
