// SPDX-License-Identifier: MIT
/*
 * ibv_eventwatch: watch the RDMA async events of every device, filtered,
 * as text or JSON Lines; record and replay them; answer health checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "ibvevent.h"

#define PROG "ibv_eventwatch"

enum exit_status {
	EXIT_OK = 0,
	EXIT_NOT_MET = 1,
	EXIT_USAGE = 2,
	EXIT_RUNTIME = 3,
	EXIT_BAD_INPUT = 4,
};

/* Loop results beyond "go on": why the loop stopped. */
enum stop { STOP_DONE = 1, STOP_MET, STOP_EOF, STOP_FAIL, STOP_SIGNAL };

enum opt_long {
	OPT_EXPECT = 256,
	OPT_NO_COLOR,
	OPT_MLX5,
	OPT_METRICS_FILE,
	OPT_METRICS_STATE,
	OPT_METRICS_LISTEN,
	OPT_SYSLOG,
	OPT_SM,
	OPT_SM_ISSM,
};

static const struct option long_opts[] = {
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "event", required_argument, NULL, 'e' },
	{ "exclude", required_argument, NULL, 'x' },
	{ "json", no_argument, NULL, 'j' },
	{ "count", required_argument, NULL, 'n' },
	{ "timeout", required_argument, NULL, 't' },
	{ "expect", required_argument, NULL, OPT_EXPECT },
	{ "write", required_argument, NULL, 'w' },
	{ "replay", required_argument, NULL, 'r' },
	{ "list", no_argument, NULL, 'l' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "mlx5", no_argument, NULL, OPT_MLX5 },
	{ "sm", no_argument, NULL, OPT_SM },
	{ "sm-issm", no_argument, NULL, OPT_SM_ISSM },
	{ "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
	{ "metrics-state", required_argument, NULL, OPT_METRICS_STATE },
	{ "metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN },
	{ "syslog", optional_argument, NULL, OPT_SYSLOG },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [OPTIONS]\n"
		"Watch the asynchronous events of RDMA devices.\n"
		"\n"
		"  -d, --ib-dev NAME      watch only device NAME (repeatable; default: all,\n"
		"                         and devices that appear later)\n"
		"  -i, --ib-port N        only events of port N (repeatable)\n"
		"  -e, --event LIST       only these events: names (PORT_ERR, any case, with or\n"
		"                         without IBV_EVENT_), classes (device,port,qp,cq,srq,wq),\n"
		"                         sources (verbs,hotplug,mlx5,sm) or severity>=warning\n"
		"  -x, --exclude LIST     not these events (same terms as -e)\n"
		"  -j, --json             JSON Lines: one object per event\n"
		"  -n, --count N          exit after N events that pass the filters\n"
		"  -t, --timeout SECONDS  exit after SECONDS\n"
		"      --expect LIST      exit 0 at the first such event, 1 if the timeout\n"
		"                         passes or the replay ends first\n"
		"  -w, --write FILE       also append every event to FILE as JSON Lines\n"
		"  -r, --replay FILE      read events from FILE (- for standard input)\n"
		"  -l, --list             list devices and ports, then exit\n"
		"  -q, --quiet            no \"watching\" line on standard error\n"
		"      --mlx5             require mlx5 DEVX device events (cables, temperature);\n"
		"                         without it they are used wherever a device has them\n"
		"      --sm               also the subnet's events from the subnet manager on\n"
		"                         InfiniBand ports: GID in/out of service, multicast\n"
		"                         groups created/deleted (needs the umad device)\n"
		"      --sm-issm          with --sm: claim each port's IsSM capability and\n"
		"                         answer the SM as a standby SM (ibsim needs it)\n"
		"      --metrics-file FILE  keep Prometheus metrics of every event in FILE\n"
		"      --metrics-state FILE keep the metrics' counters across restarts in FILE\n"
		"      --metrics-listen ADDR serve them at http://ADDR/metrics (:PORT: loopback)\n"
		"      --syslog[=FACILITY]  also log each event shown to syslog (default daemon)\n"
		"      --no-color         no colours (also when NO_COLOR is set)\n"
		"  -h, --help             show this help\n"
		"  -V, --version          show the version\n"
		"\n"
		"Exit status: 0 success, 1 expected event not seen, 2 usage error,\n"
		"3 runtime failure, 4 malformed replay input.\n");
}

struct watch {
	struct ibve_metrics *metrics;
	const char *metrics_path, *state_path;
	struct ibve_http *http;
	bool metrics_dirty;
	bool syslog;
	struct ibve_filter *filter;
	struct ibve_filter *expect;
	struct ibve_monitor *mon;
	struct ibve_replay *replay;
	const char *replay_path;
	FILE *out;
	FILE *capture;
	const char *capture_path;
	bool json;
	unsigned int text_flags;
	unsigned long count_limit; /* 0: none */
	unsigned long matched;
	bool bad_input;
	int error; /* errno of a failed write */
	const char *error_what;
	char *line;
	size_t line_size;
};

static void fail_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
	exit(EXIT_USAGE);
}

static unsigned long parse_count(const char *s, const char *what,
				 unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || *s == '-' || v == 0 || v > max)
		fail_usage(what, s);
	return v;
}

/* Write BUF to F; false (with w->error) on failure. */
static bool put(struct watch *w, FILE *f, const char *what, const char *buf,
		size_t len)
{
	if (fwrite(buf, 1, len, f) == len)
		return true;
	w->error = errno ? errno : EIO;
	w->error_what = what;
	return false;
}

/* Format EV for F into w->line, growing it as needed. */
static size_t format(struct watch *w, const struct ibve_event *ev, bool json)
{
	for (;;) {
		size_t n =
			json ? ibve_event_format_json(ev, w->line, w->line_size)
			     : ibve_event_format_text(ev, w->line, w->line_size,
						      w->text_flags);

		if (n < w->line_size)
			return n;
		w->line_size = n + 1;
		w->line = realloc(w->line, w->line_size);
		if (!w->line) {
			fprintf(stderr, PROG ": out of memory\n");
			exit(EXIT_RUNTIME);
		}
	}
}

/* One record through capture, filters, output and expectations. */
static int handle(struct watch *w, const struct ibve_event *ev)
{
	size_t n;

	if (w->capture) {
		n = format(w, ev, true);
		if (!put(w, w->capture, w->capture_path, w->line, n))
			return STOP_FAIL;
	}
	/* Metrics count everything; dashboards choose with PromQL. */
	if (w->metrics) {
		ibve_metrics_event(w->metrics, ev);
		w->metrics_dirty = true;
	}
	if (!ibve_filter_match(w->filter, ev))
		return 0;
	if (w->syslog) {
		char msg[1024];

		ibve_event_format_syslog(ev, msg, sizeof(msg));
		syslog(ibve_severity_syslog(ev->severity), "%s", msg);
	}
	n = format(w, ev, w->json);
	if (!put(w, w->out, "standard output", w->line, n))
		return STOP_FAIL;
	w->matched++;
	if (w->expect && ibve_filter_match(w->expect, ev))
		return STOP_MET;
	if (w->count_limit && w->matched >= w->count_limit)
		return STOP_DONE;
	return 0;
}

static int on_monitor(int fd, short revents, void *arg)
{
	struct watch *w = arg;
	struct ibve_event evs[32];
	int n;

	(void)fd;
	(void)revents;
	n = ibve_monitor_read(w->mon, evs, 32);
	if (n < 0) {
		fprintf(stderr, PROG ": reading events: %s\n", strerror(-n));
		return STOP_FAIL;
	}
	for (const char *note; (note = ibve_monitor_note(w->mon));)
		fprintf(stderr, PROG ": %s\n", note);
	for (int i = 0; i < n; i++) {
		int r = handle(w, &evs[i]);

		if (r)
			return r;
	}
	return 0;
}

static int on_replay(int fd, short revents, void *arg)
{
	struct watch *w = arg;
	struct ibve_event ev;
	char err[256];

	(void)fd;
	(void)revents;
	for (;;) {
		int r = ibve_replay_read(w->replay, &ev, err, sizeof(err));

		if (r == -EAGAIN)
			return 0;
		if (r == 0)
			return STOP_EOF;
		if (r == -EINVAL) {
			fprintf(stderr, "%s:%lu: %s\n", w->replay_path,
				ibve_replay_line(w->replay), err);
			w->bad_input = true;
			continue;
		}
		if (r < 0) {
			fprintf(stderr, PROG ": %s: %s\n", w->replay_path,
				strerror(-r));
			return STOP_FAIL;
		}
		r = handle(w, &ev);
		if (r)
			return r;
	}
}

static int on_signal(int signo, void *arg)
{
	(void)signo;
	(void)arg;
	return STOP_SIGNAL;
}

/* The metrics file and state, when events changed them. */
static int write_metrics(struct watch *w)
{
	int r;

	if (!w->metrics_dirty)
		return 0;
	w->metrics_dirty = false;
	if (w->metrics_path) {
		r = ibve_metrics_write(w->metrics, w->metrics_path);
		if (r) {
			w->error = -r;
			w->error_what = w->metrics_path;
			return STOP_FAIL;
		}
	}
	if (w->state_path) {
		r = ibve_metrics_save(w->metrics, w->state_path);
		if (r) {
			w->error = -r;
			w->error_what = w->state_path;
			return STOP_FAIL;
		}
	}
	return 0;
}

static int on_http(int fd, short revents, void *arg)
{
	(void)fd;
	(void)revents;
	ibve_http_run(arg);
	return 0;
}

static int http_next(void *arg)
{
	return ibve_http_timeout(arg);
}

static void http_run(void *arg)
{
	ibve_http_run(arg);
}

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

/*
 * Metrics: the saved counters, the devices there now, the first file;
 * then the HTTP endpoint in the loop.
 */
static int start_metrics(struct watch *w, struct ibve_loop *loop,
			 const char *listen)
{
	const char *open[64];
	unsigned long bad;
	char err[256];
	size_t n;
	int r;

	w->metrics = ibve_metrics_new(w->mon ? IBVE_METRICS_SYSFS : 0);
	if (!w->metrics)
		return EXIT_RUNTIME;
	if (w->state_path) {
		r = ibve_metrics_load(w->metrics, w->state_path, &bad);
		if (r == -EINVAL) {
			fprintf(stderr, "%s:%lu: not a metrics state line\n",
				w->state_path, bad);
			return EXIT_RUNTIME;
		}
		if (r && r != -ENOENT) {
			fprintf(stderr, PROG ": %s: %s\n", w->state_path,
				strerror(-r));
			return EXIT_RUNTIME;
		}
	}
	n = w->mon ? ibve_monitor_devices(w->mon, open, 64) : 0;
	for (size_t i = 0; i < n && i < 64; i++)
		ibve_metrics_add_device(w->metrics, open[i], 0);
	w->metrics_dirty = true;
	if (write_metrics(w)) {
		fprintf(stderr, PROG ": write to %s: %s\n", w->error_what,
			strerror(w->error));
		return EXIT_RUNTIME;
	}
	if (!listen)
		return EXIT_OK;
	r = ibve_http_new(&w->http, listen, w->metrics, err, sizeof(err));
	if (r) {
		fprintf(stderr, PROG ": --metrics-listen %s\n", err);
		return EXIT_RUNTIME;
	}
	ibve_loop_add_fd(loop, ibve_http_fd(w->http), POLLIN, on_http, w->http);
	ibve_loop_set_wakeup(loop, http_next, http_run, w->http);
	return EXIT_OK;
}

/* Before the loop blocks: nothing may wait in a buffer. */
static int on_idle(void *arg)
{
	struct watch *w = arg;

	if (fflush(w->out)) {
		w->error = errno;
		w->error_what = "standard output";
		return STOP_FAIL;
	}
	if (w->capture && fflush(w->capture)) {
		w->error = errno;
		w->error_what = w->capture_path;
		return STOP_FAIL;
	}
	return write_metrics(w);
}

static bool want_color(bool no_color)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	return !no_color && !(nc && *nc) && isatty(STDOUT_FILENO) && term &&
	       strcmp(term, "dumb") != 0;
}

static void no_devices(int err)
{
	if (err == ENOSYS)
		fprintf(stderr, PROG
			": no RDMA devices found: the kernel offers no RDMA to user space (is ib_uverbs loaded?)\n");
	else if (err)
		fprintf(stderr, PROG ": listing RDMA devices: %s\n",
			strerror(err));
	else
		fprintf(stderr, PROG ": no RDMA devices found\n");
}

static int list_devices(char **names, size_t nnames, uint32_t port, bool json)
{
	struct ibve_device_info *list;
	int n = ibve_device_list_get(&list), status = EXIT_OK;

	if (n < 0) {
		no_devices(-n);
		return EXIT_RUNTIME;
	}
	for (size_t k = 0; k < nnames; k++) {
		int i;

		for (i = 0; i < n; i++)
			if (strcmp(list[i].name, names[k]) == 0)
				break;
		if (i == n) {
			fprintf(stderr,
				PROG ": device '%s': no such RDMA device\n",
				names[k]);
			status = EXIT_RUNTIME;
		}
	}
	for (int i = 0; i < n && status == EXIT_OK; i++) {
		bool want = nnames == 0;
		int r;

		for (size_t k = 0; k < nnames; k++)
			want = want || strcmp(list[i].name, names[k]) == 0;
		if (!want)
			continue;
		r = ibve_device_print(stdout, &list[i], port, json);
		if (r) {
			if (r != -EPIPE)
				fprintf(stderr,
					PROG ": write to standard output: %s\n",
					strerror(-r));
			status = r == -EPIPE ? EXIT_OK : EXIT_RUNTIME;
			break;
		}
	}
	if (n == 0) {
		no_devices(0);
		status = EXIT_RUNTIME;
	}
	ibve_device_list_free(list, (size_t)n);
	if (status == EXIT_OK && fflush(stdout) && errno != EPIPE) {
		fprintf(stderr, PROG ": write to standard output: %s\n",
			strerror(errno));
		status = EXIT_RUNTIME;
	}
	return status;
}

/*
 * With --mlx5 every device named with -d (or, without -d, at least one
 * device) must have its DEVX event channel. NOTED lists the devices a
 * note already explained.
 */
static int check_mlx5(struct watch *w, size_t nnames, const char *const *open,
		      size_t nopen, const char *noted)
{
	size_t with = 0;

	if (!(ibve_features() & IBVE_FEATURE_MLX5)) {
		fprintf(stderr, PROG
			": --mlx5: this build has no mlx5 support (it was built with MLX5=0)\n");
		return EXIT_RUNTIME;
	}
	for (size_t i = 0; i < nopen; i++) {
		bool has = ibve_monitor_sources(w->mon, open[i]) &
			   1u << IBVE_SOURCE_MLX5;
		char key[IBVE_NAME_MAX + 2];

		with += has;
		if (has || !nnames)
			continue;
		snprintf(key, sizeof(key), "%s:", open[i]);
		fprintf(stderr,
			PROG ": --mlx5: %s has no mlx5 DEVX events (%s)\n",
			open[i],
			strstr(noted, key) ? "see above"
					   : "it is not an mlx5 device");
		return EXIT_RUNTIME;
	}
	if (!with) {
		fprintf(stderr,
			PROG ": --mlx5: no device with mlx5 DEVX events\n");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* --sm: subscribe on the InfiniBand ports; the number of them, or -1. */
static int open_sm(struct watch *w)
{
	char path[128];
	int r = ibve_monitor_add_sm(w->mon, path, sizeof(path));

	if (r == -EACCES) {
		fprintf(stderr,
			PROG ": --sm: cannot open %s: %s (subnet events need "
			     "read-write access to it: root by default)\n",
			path, strerror(EACCES));
		return -1;
	}
	if (r == -ENOSYS) {
		fprintf(stderr, PROG ": --sm: no InfiniBand management "
				     "devices (is ib_umad loaded?)\n");
		return -1;
	}
	if (r < 0) {
		fprintf(stderr,
			PROG ": --sm: cannot subscribe to subnet events: %s\n",
			strerror(-r));
		return -1;
	}
	return r;
}

static int open_monitor(struct watch *w, char **names, size_t nnames,
			bool quiet, bool need_mlx5, int sm)
{
	const char *env = getenv("IBVEVENT_HOTPLUG");
	unsigned int flags = IBVE_MONITOR_HOTPLUG | IBVE_MONITOR_MLX5;
	char noted[1024] = "";
	const char *open[64];
	size_t nopen;
	int r, nsm = 0;

	if (env && strcmp(env, "uevent") == 0)
		flags |= IBVE_MONITOR_UEVENT_ONLY;
	if (sm)
		flags |= IBVE_MONITOR_SM;
	if (sm > 1)
		flags |= IBVE_MONITOR_SM_ISSM;
	w->mon = ibve_monitor_new(flags);
	if (!w->mon) {
		fprintf(stderr, PROG ": cannot watch for devices: %s\n",
			strerror(errno));
		return EXIT_RUNTIME;
	}
	/*
	 * Subnet events first when watching everything: the SM may ask a
	 * port about itself as soon as its process appears (a simulator's),
	 * and the agents that answer should exist by then.
	 */
	if (sm && !nnames && (nsm = open_sm(w)) < 0)
		return EXIT_RUNTIME;
	for (size_t k = 0; k < nnames; k++) {
		r = ibve_monitor_add_device(w->mon, names[k]);
		if (r == -ENOSYS) {
			no_devices(-r);
			return EXIT_RUNTIME;
		}
		if (r == -ENODEV) {
			fprintf(stderr,
				PROG ": device '%s': no such RDMA device\n",
				names[k]);
			return EXIT_RUNTIME;
		}
		if (r) {
			fprintf(stderr, PROG ": device '%s': %s\n", names[k],
				strerror(-r));
			return EXIT_RUNTIME;
		}
	}
	if (!nnames) {
		r = ibve_monitor_add_all(w->mon);
		/* --sm on a host with umad devices and no verbs: go on */
		if (r && !(sm && r == -ENOSYS)) {
			no_devices(-r);
			return EXIT_RUNTIME;
		}
	}
	if (sm && nnames && (nsm = open_sm(w)) < 0)
		return EXIT_RUNTIME;
	for (const char *note; (note = ibve_monitor_note(w->mon));) {
		fprintf(stderr, PROG ": %s\n", note);
		snprintf(noted + strlen(noted), sizeof(noted) - strlen(noted),
			 "%.*s ", (int)strcspn(note, " "), note);
	}
	nopen = ibve_monitor_devices(w->mon, open, 64);
	if (sm && !nsm) {
		fprintf(stderr,
			PROG ": --sm: no InfiniBand port to subscribe on\n");
		return EXIT_RUNTIME;
	}
	if (!nopen && !nsm) {
		no_devices(0);
		return EXIT_RUNTIME;
	}
	if (need_mlx5 && check_mlx5(w, nnames, open, nopen, noted))
		return EXIT_RUNTIME;
	if (!quiet) {
		static const char *const hp[] = { "none", "uevent", "netlink" };

		fprintf(stderr, PROG ": watching %zu device%s:", nopen,
			nopen == 1 ? "" : "s");
		for (size_t i = 0; i < nopen && i < 64; i++)
			fprintf(stderr, " %s%s", open[i],
				ibve_monitor_sources(w->mon, open[i]) &
						1u << IBVE_SOURCE_MLX5
					? "(+mlx5)"
					: "");
		if (nsm)
			fprintf(stderr, " (subnet events: %d port%s)", nsm,
				nsm == 1 ? "" : "s");
		fprintf(stderr, " (hot-plug: %s)\n",
			hp[ibve_monitor_hotplug(w->mon)]);
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct watch w = { .out = stdout };
	struct ibve_loop *loop = NULL;
	struct timespec deadline;
	char err[256], **names = NULL;
	size_t nnames = 0;
	uint32_t list_port = 0;
	double timeout = 0;
	bool list = false, quiet = false, no_color = false, need_mlx5 = false;
	bool sm = false, sm_issm = false;
	const char *listen = NULL;
	int facility = -1;
	int opt, status = EXIT_OK, r;

	w.filter = ibve_filter_new();
	if (!w.filter) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_RUNTIME;
	}
	while ((opt = getopt_long(argc, argv, "d:i:e:x:jn:t:w:r:lqhV",
				  long_opts, NULL)) != -1) {
		switch (opt) {
		case 'd': {
			void *more;

			if (strlen(optarg) >= IBVE_NAME_MAX || !*optarg)
				fail_usage("invalid device name '%s'", optarg);
			more = realloc(names, (nnames + 1) * sizeof(*names));
			if (!more) {
				fprintf(stderr, PROG ": out of memory\n");
				status = EXIT_RUNTIME;
				goto out;
			}
			names = more;
			names[nnames++] = optarg;
			ibve_filter_add_device(w.filter, optarg);
			break;
		}
		case 'i':
			list_port = (uint32_t)parse_count(
				optarg, "invalid port number '%s'", 65535);
			ibve_filter_add_port(w.filter, list_port);
			break;
		case 'e':
		case 'x':
			if (ibve_filter_add_terms(w.filter, optarg, opt == 'x',
						  err, sizeof(err)))
				fail_usage("%s", err);
			break;
		case OPT_EXPECT:
			if (!w.expect)
				w.expect = ibve_filter_new();
			if (!w.expect ||
			    ibve_filter_add_terms(w.expect, optarg, false, err,
						  sizeof(err)))
				fail_usage("%s",
					   w.expect ? err : "out of memory");
			break;
		case 'j':
			w.json = true;
			break;
		case 'n':
			w.count_limit = parse_count(
				optarg, "invalid count '%s': a positive number",
				ULONG_MAX);
			break;
		case 't': {
			char *end;

			errno = 0;
			timeout = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !isfinite(timeout) || timeout <= 0 || timeout > 1e9)
				fail_usage(
					"invalid timeout '%s': seconds, more than 0",
					optarg);
			break;
		}
		case 'w':
			w.capture_path = optarg;
			break;
		case 'r':
			w.replay_path = optarg;
			break;
		case 'l':
			list = true;
			break;
		case 'q':
			quiet = true;
			break;
		case OPT_NO_COLOR:
			no_color = true;
			break;
		case OPT_MLX5:
			need_mlx5 = true;
			break;
		case OPT_SM:
			sm = true;
			break;
		case OPT_SM_ISSM:
			sm_issm = true;
			break;
		case OPT_METRICS_FILE:
			w.metrics_path = optarg;
			break;
		case OPT_METRICS_STATE:
			w.state_path = optarg;
			break;
		case OPT_METRICS_LISTEN:
			listen = optarg;
			break;
		case OPT_SYSLOG:
			facility = parse_facility(optarg ? optarg : "daemon");
			if (facility < 0)
				fail_usage("unknown syslog facility '%s'",
					   optarg);
			break;
		case 'h':
			usage(stdout);
			goto out;
		case 'V':
			printf(PROG
			       " %s (libibvevent %s; mlx5 DEVX events: %s)\n",
			       IBVE_VERSION, ibve_version(),
			       ibve_features() & IBVE_FEATURE_MLX5 ? "yes"
								   : "no");
			goto out;
		default:
			fprintf(stderr, "Try '" PROG
					" --help' for more information.\n");
			status = EXIT_USAGE;
			goto out;
		}
	}
	if (optind < argc)
		fail_usage("unexpected argument '%s'", argv[optind]);
	if (list && (w.replay_path || w.capture_path || w.expect))
		fail_usage(
			"%s",
			"--list cannot be combined with --replay, --write or --expect");
	if (list && (w.metrics_path || w.state_path || listen || facility >= 0))
		fail_usage("%s",
			   "--list does not take metrics or syslog options");
	if (w.state_path && !w.metrics_path && !listen)
		fail_usage(
			"%s",
			"--metrics-state keeps the counters of --metrics-file or --metrics-listen");
	if (need_mlx5 && (list || w.replay_path))
		fail_usage(
			"%s",
			"--mlx5 is for watching devices, not with --list or --replay");
	if (sm_issm && !sm)
		fail_usage("%s", "--sm-issm goes with --sm");
	if (sm && (list || w.replay_path))
		fail_usage(
			"%s",
			"--sm is for watching devices, not with --list or --replay");

	if (need_mlx5 && !(ibve_features() & IBVE_FEATURE_MLX5)) {
		fprintf(stderr, PROG
			": --mlx5: this build has no mlx5 support (it was built with MLX5=0)\n");
		status = EXIT_RUNTIME;
		goto out;
	}

	/* A closed pipe is the reader's choice: end quietly. */
	signal(SIGPIPE, SIG_IGN);
	if (list) {
		status = list_devices(names, nnames, list_port, w.json);
		goto out;
	}
	if (want_color(no_color))
		w.text_flags |= IBVE_FORMAT_COLOR;

	if (w.capture_path) {
		int fd = open(w.capture_path,
			      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		w.capture = fd < 0 ? NULL : fdopen(fd, "a");
		if (!w.capture) {
			fprintf(stderr, PROG ": %s: %s\n", w.capture_path,
				strerror(errno));
			status = EXIT_RUNTIME;
			goto out;
		}
	}

	loop = ibve_loop_new();
	if (!loop || ibve_loop_add_signal(loop, SIGINT, on_signal, NULL) ||
	    ibve_loop_add_signal(loop, SIGTERM, on_signal, NULL)) {
		fprintf(stderr, PROG ": cannot set up the event loop\n");
		status = EXIT_RUNTIME;
		goto out;
	}
	ibve_loop_set_idle(loop, on_idle, &w);
	if (timeout > 0) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += (time_t)timeout;
		deadline.tv_nsec +=
			(long)((timeout - (double)(time_t)timeout) * 1e9);
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
		ibve_loop_set_deadline(loop, &deadline, STOP_DONE);
	}

	if (w.replay_path) {
		w.replay = ibve_replay_open(w.replay_path);
		if (!w.replay) {
			fprintf(stderr, PROG ": %s: %s\n", w.replay_path,
				strerror(errno));
			status = EXIT_RUNTIME;
			goto out;
		}
		if (strcmp(w.replay_path, "-") == 0)
			w.replay_path = "<stdin>";
		/* Regular files are always readable: poll says so at once. */
		ibve_loop_add_fd(loop, ibve_replay_fd(w.replay), POLLIN,
				 on_replay, &w);
	} else {
		status = open_monitor(&w, names, nnames, quiet, need_mlx5,
				      sm ? (sm_issm ? 2 : 1) : 0);
		if (status)
			goto out;
		ibve_loop_add_fd(loop, ibve_monitor_fd(w.mon), POLLIN,
				 on_monitor, &w);
	}

	if (w.metrics_path || listen) {
		status = start_metrics(&w, loop, listen);
		if (status)
			goto out;
	}
	if (facility >= 0) {
		openlog(PROG, LOG_PID | LOG_NDELAY, facility);
		w.syslog = true;
	}

	r = ibve_loop_run(loop);
	if (r < 0) {
		fprintf(stderr, PROG ": waiting for events: %s\n",
			strerror(-r));
		status = EXIT_RUNTIME;
		goto out;
	}
	if (r != STOP_FAIL && on_idle(&w))
		r = STOP_FAIL;
	if (r == STOP_FAIL) {
		if (w.error == EPIPE && w.error_what &&
		    strcmp(w.error_what, "standard output") == 0) {
			status = EXIT_OK; /* e.g. | head -1 */
		} else {
			if (w.error)
				fprintf(stderr, PROG ": write to %s: %s\n",
					w.error_what, strerror(w.error));
			status = EXIT_RUNTIME;
		}
	} else if (w.bad_input) {
		status = EXIT_BAD_INPUT;
	} else if (w.expect && r != STOP_MET) {
		status = EXIT_NOT_MET;
	}
out:
	if (w.capture && fclose(w.capture) && status == EXIT_OK) {
		fprintf(stderr, PROG ": write to %s: %s\n", w.capture_path,
			strerror(errno));
		status = EXIT_RUNTIME;
	}
	if (w.syslog)
		closelog();
	ibve_http_free(w.http);
	ibve_metrics_free(w.metrics);
	ibve_loop_free(loop);
	ibve_monitor_free(w.mon);
	ibve_replay_close(w.replay);
	ibve_filter_free(w.filter);
	ibve_filter_free(w.expect);
	free(w.line);
	free(names);
	return status;
}
