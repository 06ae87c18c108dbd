// SPDX-License-Identifier: MIT
/*
 * The link autopsy (lib/src_autopsy.c): its cause table on hand-made
 * sequences of records, replayed through a pipeline as a capture is
 * (every cause, their precedence, unknown when nothing decides, one
 * verdict a down, a PORT_BACK), its records read back, its window closed
 * by its timer live; and the labelled corpus of test/captures/autopsy/:
 * every verdict its label or unknown, none wrong. Run from the top of the
 * tree, as make check-unit does.
 *
 * The netdev and counters sources' records are read by their JSON keys
 * (the captures' form): where this build has no such source, a stand-in
 * of the same keys is registered here so that their lines replay.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <sys/eventfd.h>

#include "buf.h"
#include "dl_jsonc.h"
#include "fields.h"
#include "host.h"
#include "source.h"
#include "tap.h"

#define BAIL_OUT(...)                             \
	do {                                      \
		printf("Bail out! " __VA_ARGS__); \
		putchar('\n');                    \
		exit(1);                          \
	} while (0)

/* --- stand-ins of the evidence sources' records ------------------------------ */

static const struct ibve_event_desc netdev_rows[] = {
	ROW(0, "NETDEV_DOWN", PORT, false, WARNING,
	    "5c0ad6a0c3a24b0c8a58cbd0a4d0b001", "stand-in", "none"),
	ROW(1, "NETDEV_UP", PORT, false, INFO,
	    "5c0ad6a0c3a24b0c8a58cbd0a4d0b002", "stand-in", "none"),
	ROW(2, "CARRIER_LOST", PORT, false, WARNING,
	    "5c0ad6a0c3a24b0c8a58cbd0a4d0b003", "stand-in", "none"),
	ROW(3, "CARRIER_UP", PORT, false, INFO,
	    "5c0ad6a0c3a24b0c8a58cbd0a4d0b004", "stand-in", "none"),
};

static const struct ibve_fieldspec netdev_fields[] = {
	IBVE_FIELD("ext_state", 180, FT_STR, area, 1u << 27, "", NULL),
};

static const struct ibve_source_ops netdev_standin = {
	.name = "netdev",
	.records = 5,
	ROWS(netdev_rows),
	FIELDS(netdev_fields),
	.on_demand = true,
	.rank = 1,
};

struct moves {
	uint8_t n;
	bool since;
	char name[8][48];
	uint64_t delta[8];
};

static void moves_json(struct ibve_json *j, const struct ibve_event *ev)
{
	const struct moves *m = (const void *)ev->area;

	ibve_json_name(j, "phase", m->since ? "since" : "before");
	ibve_json_open(j, "counters");
	for (size_t i = 0; i < m->n; i++)
		ibve_json_uint(j, m->name[i], m->delta[i]);
	ibve_json_close(j);
}

static int moves_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
		       int key, char *err, size_t errlen)
{
	struct moves *m = (void *)ev->area;
	struct ibve_jval v;
	const char *phase;

	if (ibve_get_str(o, key, &phase, err, errlen) <= 0)
		return 0;
	m->since = !strcmp(phase, "since");
	o->get(o, key + 1, &v);
	if (v.type != J_OTHER)
		FAIL("stand-in: \"counters\" must be an object");
	json_object_object_foreach((struct json_object *)v.obj, name, d)
	{
		ibve_strcpy(m->name[m->n], name, sizeof(m->name[0]));
		m->delta[m->n++] = json_object_get_uint64(d);
	}
	ev->fields |= 1u << 28;
	return 0;
}

static const struct ibve_fieldspec counters_fields[] = {
	{ .keys = "phase counters",
	  .order = 170,
	  .flag = 1u << 28,
	  .json = moves_json,
	  .parse = moves_parse },
};

static const struct ibve_event_desc counters_rows[] = {
	ROW(0, "COUNTERS_MOVED", PORT, false, INFO,
	    "5c0ad6a0c3a24b0c8a58cbd0a4d0b005", "stand-in", "none"),
};

static const struct ibve_source_ops counters_standin = {
	.name = "counters",
	.records = 6,
	ROWS(counters_rows),
	FIELDS(counters_fields),
	.on_demand = true,
	.rank = 1,
};

/* Source NAME's stand-in, where the build has none of that name. */
static void stand_in(const struct ibve_source_ops *o)
{
	for (size_t i = 0; ibve_sources[i]; i++)
		if (!strcmp(ibve_sources[i]->name, o->name)) {
			printf("# the %s source is the build's\n", o->name);
			return;
		}
	if (ibve_register_source(o))
		BAIL_OUT("stand-in %s: %s", o->name, ibve_errmsg());
	printf("# the %s source's records parse by a stand-in\n", o->name);
}

/* --- a source of records the test makes, live --------------------------- */

struct feeder {
	struct ibve_host h;
	int fd;
};

static struct feeder *feed;

static int feeder_create(void **out, const struct ibve_source_opts *o,
			 const struct ibve_host *h)
{
	(void)o;
	if (!(feed = calloc(1, sizeof(*feed))))
		return -ENOMEM;
	feed->h = *h;
	feed->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	*out = feed;
	return feed->fd < 0 ? -errno : 0;
}

static int feeder_start(void *arg)
{
	return feed->h.watch(feed->h.ctx, feed->fd, arg, 0);
}

/* Each write: feed0/1 PORT_ERR, now. */
static bool feeder_ready(void *arg, uint32_t cookie)
{
	struct ibve_event *ev;
	uint64_t n;

	(void)arg;
	(void)cookie;
	if (read(feed->fd, &n, sizeof(n)) != sizeof(n) ||
	    !(ev = feed->h.emit(feed->h.ctx)))
		return false;
	ibve_strcpy(ev->device, "feed0", sizeof(ev->device));
	ev->port = 1;
	ibve_event_set_code(ev, IBVE_SOURCE_VERBS, 10 /* PORT_ERR */);
	return false;
}

static void feeder_destroy(void *arg)
{
	close(feed->fd);
	free(arg);
}

static const struct ibve_source_ops feeder = {
	.name = "feeder",
	.records = 21,
	.on_demand = true,
	.order = 60,
	.create = feeder_create,
	.start = feeder_start,
	.ready = feeder_ready,
	.destroy = feeder_destroy,
};

/* --- replays ------------------------------------------------------------- */

#define GOT_MAX 96

struct got {
	struct ibve_event ev[GOT_MAX];
	size_t n;
};

static bool every; /* collect every record, not the autopsy's alone */

static int collect(const struct ibve_event *ev, void *arg)
{
	struct got *g = arg;

	if ((every || ev->source == IBVE_SOURCE_AUTOPSY) && g->n < GOT_MAX)
		g->ev[g->n++] = *ev;
	return 0;
}

/* The autopsy's records of the capture at PATH; the run's end. */
static int replay(const char *path, struct got *g)
{
	struct ibve_source_opts o = { .sz = sizeof(o), .path = path };
	struct ibve_pipeline *p = NULL;
	struct ibve_sink *s;
	int r;

	g->n = 0;
	if ((r = ibve_pipeline_new(&p)) ||
	    (r = ibve_pipeline_add_source(p, "replay", &o)) ||
	    (r = ibve_pipeline_add_source(p, "autopsy", NULL)) ||
	    (r = ibve_sink_callback(&s, collect, g)) ||
	    (r = ibve_pipeline_add_sink(p, s, IBVE_SINK_ALL)) ||
	    (r = ibve_pipeline_start(p)))
		printf("# %s: %s\n", path, ibve_errmsg());
	else
		r = ibve_pipeline_run(p, NULL);
	ibve_pipeline_free(p);
	return r;
}

/*
 * LINES, each "MS SOURCE EVENT[ MEMBERS]": a record of mlx5_0 port 1 at
 * MS milliseconds past 03:00:10, its further JSON members (",..."); their
 * autopsy's records into G.
 */
static void replay_lines(const char *const *lines, struct got *g)
{
	char path[] = "/tmp/test_autopsy.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	g->n = 0;
	if (!f)
		BAIL_OUT("a capture: %s", strerror(errno));
	for (; *lines; lines++) {
		char src[16], ev[32];
		int ms, n = 0;

		sscanf(*lines, "%d %15s %31[A-Z_]%n", &ms, src, ev, &n);
		fprintf(f,
			"{\"time\":\"2026-06-02T03:00:%02d.%03dZ\",\"device\":"
			"\"mlx5_0\",\"port\":1,\"event\":\"%s\",\"source\":"
			"\"%s\"%s}\n",
			10 + ms / 1000, ms % 1000, ev, src, *lines + n);
	}
	fclose(f);
	is_int(replay(path, g), IBVE_STOP_END,
	       "the capture replays to its end");
	unlink(path);
}

/* The JSON of EV. */
static const char *json_of(const struct ibve_event *ev)
{
	static char buf[2048];

	ibve_event_format_json(ev, buf, sizeof(buf));
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* G's only PORT_DOWN_CAUSE, else NULL. */
static const struct ibve_event *verdict(const struct got *g)
{
	const struct ibve_event *v = NULL;

	for (size_t i = 0; i < g->n; i++)
		if (g->ev[i].code == 0) {
			if (v)
				return NULL;
			v = &g->ev[i];
		}
	return v;
}

/* --- the cause table ------------------------------------------------------- */

#define NETDEV(nd) ",\"netdev\":\"" nd "\",\"netdev_index\":4"
/* mlx5 entries: 4 bytes, 28 of zeros, the data's 32 (test/captures/mlx5.jsonl) */
#define Z8 "00000000"
#define EQE(t, data) \
	",\"port\":null,\"eqe\":\"00" t "0000" Z8 Z8 Z8 Z8 Z8 Z8 Z8 data "\""
#define MODULE(st, err) EQE("16", "000000" st "0000" err "00" Z8 Z8 Z8 Z8 Z8 Z8)
#define TEMP_WARN	EQE("17", Z8 Z8 "0000000000000001" Z8 Z8 Z8 Z8)
#define EQE_TYPE(t)	EQE(t, Z8 Z8 Z8 Z8 Z8 Z8 Z8 Z8)
/* The firmware's reason STATE (NAME): the LINKSTATE_GET reply of eth0, and
 * its name as the netdev source writes it */
#define LINKSTATE(state, name)                                              \
	",\"linkstate\":\"060100001800018008000100040000000900020065746830" \
	"00000000050002000000000005000500" state                            \
	"000000\",\"ext_state\":\"" name "\""
/* The kernel source's who-record (-A): process COMM, pid 4242, cgroup CG */
#define WHO(comm, cg) \
	",\"pid\":4242,\"comm\":\"" comm "\",\"cgroup\":\"" cg "\""
#define JOB		"/system.slice/slurmstepd.scope/job_303/step_0/user/task_0"
#define MOVED(phase, c) ",\"phase\":\"" phase "\",\"counters\":{" c "}"
#define PEER                                                         \
	",\"peer\":{\"kind\":\"lldp\",\"state\":\"known\",\"name\":" \
	"\"leaf1\",\"port_id\":\"Ethernet7\",\"changed\":false}"

static const struct {
	const char *what, *lines[8], *cause, *evidence;
} cases[] = {
	{ "the netdev set down",
	  { "0 netdev NETDEV_DOWN" NETDEV("eth0"), "2 verbs PORT_ERR",
	    "3 counters COUNTERS_MOVED" MOVED(
		    "before", "\"hw_counters/link_downed\":1") },
	  "administrative",
	  "netdev eth0 set down (IFF_UP cleared)" },
	{ "a process set the netdev down (-A), read before the down",
	  { "0 kernel NETDEV_SET_DOWN" WHO("ip", JOB) NETDEV("eth0"),
	    "2 netdev NETDEV_DOWN" NETDEV("eth0"), "3 verbs PORT_ERR" },
	  "administrative",
	  "netdev eth0 set down by ip (pid 4242, slurm job 303)" },
	{ "a process set the netdev down, read after the down: its unit",
	  { "0 verbs PORT_ERR",
	    "20 kernel NETDEV_SET_DOWN" WHO("sh", "/system.slice/nm.service")
		    NETDEV("eth0") },
	  "administrative",
	  "netdev eth0 set down by sh (pid 4242, unit nm.service)" },
	{ "a kernel thread set the netdev down: named, deciding nothing",
	  { "0 verbs PORT_ERR",
	    "20 kernel NETDEV_SET_DOWN,\"kernel\":\"kworker/u8:1\"" NETDEV(
		    "eth0") },
	  "unknown",
	  "netdev eth0 set down by the kernel (kworker/u8:1)" },
	{ "a process removed the device",
	  { "0 verbs PORT_ACTIVE",
	    "800 kernel DEVICE_UNREGISTER,\"port\":null" WHO("rdma", "/"),
	    "900 hotplug DEVICE_REMOVED,\"port\":null" },
	  "administrative",
	  "device mlx5_0 removed by rdma (pid 4242)\"" },
	{ "set down while symbol errors rose: administrative first",
	  { "0 netdev NETDEV_DOWN" NETDEV("eth0"), "2 verbs PORT_ERR",
	    "3 counters COUNTERS_MOVED" MOVED("before", "\"symbol_error\":40") },
	  "administrative",
	  "symbol_error +40 before" },
	{ "the device removed, its port known",
	  { "0 verbs PORT_ACTIVE", "900 hotplug DEVICE_REMOVED,\"port\":null" },
	  "administrative",
	  "device mlx5_0 removed (rdma link delete, driver unbind)" },
	{ "an internal error after the down",
	  { "0 verbs PORT_ERR", "300 mlx5 INTERNAL_ERROR" EQE_TYPE("08") },
	  "firmware_or_driver",
	  "mlx5 INTERNAL_ERROR" },
	{ "DEVICE_FATAL with a module unplugged: firmware first",
	  { "0 mlx5 PORT_MODULE" MODULE("02", "00"),
	    "10 verbs DEVICE_FATAL,\"port\":null", "20 verbs PORT_ERR" },
	  "firmware_or_driver",
	  "verbs DEVICE_FATAL" },
	{ "a module unplugged just before the down",
	  { "0 mlx5 PORT_MODULE" MODULE("02", "00"), "4 verbs PORT_ERR" },
	  "cable_or_module",
	  "mlx5 PORT_MODULE: module 0 unplugged" },
	{ "a bad cable and a temperature warning: the cable first",
	  { "0 mlx5 TEMP_WARN" TEMP_WARN,
	    "10 mlx5 PORT_MODULE" MODULE("03", "07"), "20 verbs PORT_ERR" },
	  "cable_or_module",
	  "mlx5 TEMP_WARN: sensors ASIC" },
	{ "the firmware's reason no_cable",
	  { "0 netdev CARRIER_LOST" NETDEV("eth0") LINKSTATE("04", "no_cable"),
	    "1 verbs PORT_ERR",
	    "2 counters COUNTERS_MOVED" MOVED("before", "") },
	  "cable_or_module",
	  "firmware: no_cable" },
	{ "a module too hot",
	  { "0 verbs PORT_ERR", "150 mlx5 PORT_MODULE" MODULE("03", "06") },
	  "thermal_or_power",
	  "mlx5 PORT_MODULE: module 0 cable error: high temperature" },
	{ "overheat, with symbol errors: thermal first",
	  { "0 netdev CARRIER_LOST" NETDEV("eth0") LINKSTATE("09", "overheat"),
	    "2 counters COUNTERS_MOVED" MOVED("before", "\"symbol_error\":5") },
	  "thermal_or_power",
	  "firmware: overheat" },
	{ "symbol errors before the down",
	  { "0 verbs PORT_ERR",
	    "1 counters COUNTERS_MOVED" MOVED(
		    "before", "\"symbol_error\":12,\"link_error_recovery\":1") },
	  "signal_integrity",
	  "link_error_recovery +1 before" },
	{ "the carrier lost with symbol errors: signal first",
	  { "0 netdev CARRIER_LOST" NETDEV("eth0"), "1 verbs PORT_ERR",
	    "2 counters COUNTERS_MOVED" MOVED(
		    "before", "\"local_link_integrity_errors\":2") },
	  "signal_integrity",
	  "netdev eth0 carrier lost, netdev up" },
	{ "the firmware's reason bad_signal_integrity",
	  { "0 netdev CARRIER_LOST" NETDEV("eth0")
		    LINKSTATE("03", "bad_signal_integrity") },
	  "signal_integrity",
	  "firmware: bad_signal_integrity" },
	{ "the carrier lost, no error counter moved",
	  { "0 netdev CARRIER_LOST" NETDEV("eth0"), "1 verbs PORT_ERR" PEER,
	    "2 counters COUNTERS_MOVED" MOVED(
		    "before", "\"hw_counters/link_downed\":1") },
	  "link_partner",
	  "no local error counter moved" },
	{ "a port error alone",
	  { "0 verbs PORT_ERR",
	    "5 counters COUNTERS_MOVED" MOVED("since", "\"symbol_error\":9") },
	  "unknown",
	  NULL },
	{ "a module unplugged two seconds before",
	  { "0 mlx5 PORT_MODULE" MODULE("02", "00"), "2000 verbs PORT_ERR" },
	  "unknown",
	  NULL },
	{ "a temperature warning two seconds after",
	  { "0 verbs PORT_ERR", "2000 mlx5 TEMP_WARN" TEMP_WARN },
	  "unknown",
	  NULL },
};

/* The lines of the case WHAT. */
static const char *const *case_of(const char *what)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (!strcmp(cases[i].what, what))
			return cases[i].lines;
	BAIL_OUT("no case \"%s\"", what);
}

static void test_causes(void)
{
	struct got g;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct ibve_event *v;
		const char *json;

		replay_lines(cases[i].lines, &g);
		v = verdict(&g);
		json = v ? json_of(v) : "";
		ok(v && strstr(json, "\"source\":\"autopsy\"") &&
			   v->port == 1 &&
			   strstr(json, cases[i].cause) ==
				   strstr(json, "\"cause\":\"") + 9 &&
			   (!cases[i].evidence ||
			    strstr(json, cases[i].evidence)),
		   "%s: %s", cases[i].what, json);
	}
}

/* One verdict a down, whichever records say it; a device with no known
 * port has one, of the device. */
static void test_one_a_down(void)
{
	static const char *const both[] = {
		"0 netdev NETDEV_DOWN" NETDEV("eth0"), "1 verbs PORT_ERR",
		"2 netdev CARRIER_LOST" NETDEV("eth0"), "1500 verbs PORT_ERR",
		NULL
	};
	static const char *const gone[] = {
		"0 hotplug DEVICE_REMOVED,\"port\":null", NULL
	};
	static const char *const stale[] = {
		"0 kernel NETDEV_SET_DOWN" WHO("ip", JOB) NETDEV("eth0"),
		"2 netdev NETDEV_DOWN" NETDEV("eth0"),
		"3 verbs PORT_ERR",
		"300 netdev NETDEV_UP" NETDEV("eth0"),
		"301 verbs PORT_ACTIVE",
		"800 netdev CARRIER_LOST" NETDEV("eth0"),
		"801 verbs PORT_ERR",
		NULL
	};
	struct got g;

	replay_lines(both, &g);
	ok(g.n == 1 && verdict(&g) &&
		   strstr(json_of(&g.ev[0]), "\"cause\":\"administrative\""),
	   "the netdev and the port down, twice: one verdict (%zu)", g.n);
	replay_lines(stale, &g);
	ok(g.n == 3 && strstr(json_of(&g.ev[2]), "\"cause\":\"link_partner\""),
	   "set down, up, then the carrier lost within the second: who set "
	   "the last down down is not this one's: %s",
	   g.n == 3 ? json_of(&g.ev[2]) : "");
	replay_lines(gone, &g);
	ok(g.n == 1 && g.ev[0].port == 0 &&
		   strstr(json_of(&g.ev[0]), "\"cause\":\"administrative\""),
	   "a device removed, no port of it known: the device's (%zu)", g.n);
}

static void test_back(void)
{
	static const char *const flap[] = {
		"0 verbs PORT_ERR",
		"1 counters COUNTERS_MOVED" MOVED("before", ""),
		"3000 verbs PORT_ACTIVE",
		"3001 counters COUNTERS_MOVED" MOVED(
			"since",
			"\"symbol_error\":3,\"hw_counters/link_downed\":1"),
		"3002 verbs DEVICE_SPEED_CHANGE,\"port\":null,\"rates\":[{\"port\":"
		"1,\"old\":\"100 Gb/sec (4X EDR)\",\"new\":\"50 Gb/sec (2X EDR)\"}]",
		"9000 verbs PORT_ERR",
		NULL
	};
	struct got g;
	const char *json;
	char text[1024];

	replay_lines(flap, &g);
	if (!ok(g.n == 3 && g.ev[1].code == 1,
		"a down, back, down: %zu records", g.n))
		return;
	json = json_of(&g.ev[1]);
	ok(strstr(json, "\"event\":\"PORT_BACK\"") &&
		   strstr(json, "\"severity\":\"info\"") &&
		   strstr(json, "\"down_us\":3000000,") &&
		   strstr(json, "\"evidence\":[\"symbol_error +3 while down\","
				"\"hw_counters/link_downed +1 while down\"]") &&
		   strstr(json, "\"rate_before\":\"100 Gb/sec (4X EDR)\","
				"\"rate_after\":\"50 Gb/sec (2X EDR)\""),
	   "PORT_BACK: how long it was down, the counters since, the rates: %s",
	   json);
	ibve_event_format_text(&g.ev[1], text, sizeof(text), 0);
	ok(strstr(text, "(down 3.0 s, rate 100 Gb/sec (4X EDR) -> 50 Gb/sec "
			"(2X EDR); symbol_error +3 while down;"),
	   "and in text: %.*s", (int)strcspn(text, "\n"), text);
	json = json_of(&g.ev[0]);
	ok(strstr(json, "\"cause\":\"unknown\"") &&
		   strstr(json, "\"evidence\":[\"no local error counter "
				"moved\"]") &&
		   strstr(json, "\"time\":\"2026-06-02T03:00:11.000000000Z\""),
	   "its down's verdict at the window's end: %s", json);
}

/*
 * The peer's counters, read once the port is back (the subnet source's
 * PEER_COUNTERS), after a down whose verdict was unknown: a signal counter
 * that moved there faster than IBTA's bit error rate (one symbol error in
 * 30 s) says signal integrity on the peer's side in PORT_BACK, which stays
 * informational. Nothing else says a cause: another counter, a slow move,
 * a down whose verdict found a cause; and a down's own verdict never
 * takes them (read while it is down, they are another port's lookup's). Evidence says none moved only when
 * none did.
 */
static void test_peer_back(void)
{
#define READ(c, us)                                              \
	" sm PEER_COUNTERS,\"peer_name\":\"SwitchL[2]\",\"peer_" \
	"counters\":{" c "},\"peer_sample_us\":" us
	static const char *const flaps[] = {
		"0 verbs PORT_ERR",
		"3000 verbs PORT_ACTIVE",
		"3010" READ("\"symbol_error\":50,\"port_xmit_discards\":1",
			    "9000000"),
		"9000 verbs PORT_ERR",
		"12000 verbs PORT_ACTIVE",
		"12010" READ("\"link_downed\":1", "9000000"),
		"12020" READ("", "10000"),
		"18000 verbs PORT_ERR",
		"21000 verbs PORT_ACTIVE",
		"21010" READ("", "9000000"),
		"27000 verbs PORT_ERR",
		"30000 verbs PORT_ACTIVE",
		"30010" READ("\"symbol_error\":50", "3600000000"),
		"36000 verbs DEVICE_FATAL,\"port\":null",
		"36001 verbs PORT_ERR",
		"39000 verbs PORT_ACTIVE",
		"39010" READ("\"symbol_error\":50", "9000000"),
		"45000 verbs PORT_ERR",
		"45010" READ("\"symbol_error\":50", "9000000"),
		NULL
	};
#undef READ
	struct got g;
	const char *back[5];
	char text[1024];

	every = false;
	replay_lines(flaps, &g);
	if (!ok(g.n == 11, "five downs and backs, a down: %zu records", g.n))
		return;
	for (size_t i = 0; i < 5; i++)
		back[i] = strdup(json_of(&g.ev[2 * i + 1]));
	ok(strstr(back[0], "\"event\":\"PORT_BACK\"") &&
		   strstr(back[0], "\"severity\":\"info\"") &&
		   strstr(back[0],
			  "\"cause\":\"signal_integrity\",\"evidence\":["
			  "\"peer SwitchL[2]\",\"peer's symbol_error +50 "
			  "over 9.0 s\",\"peer's port_xmit_discards +1 over "
			  "9.0 s\"],\"action\":\"clean or reseat, then "
			  "replace the cable or transceiver: on the peer's "
			  "side, SwitchL[2]\""),
	   "the peer's symbol errors: signal integrity, its side: %s", back[0]);
	ibve_event_format_text(&g.ev[1], text, sizeof(text), 0);
	ok(strstr(text, "(down 3.0 s, rate unknown; cause signal_integrity; "
			"peer SwitchL[2]; peer's symbol_error +50"),
	   "and in text: %.*s", (int)strcspn(text, "\n"), text);
	ok(!strstr(back[1], "\"cause\"") && !strstr(back[1], "\"action\"") &&
		   strstr(back[1], "\"evidence\":[\"peer SwitchL[2]\",\"peer's "
				   "link_downed +1 over 9.0 s\"]"),
	   "the peer's link_downed alone: no cause; a reading after with "
	   "none moved says nothing against it: %s",
	   back[1]);
	ok(!strstr(back[2], "\"cause\"") &&
		   strstr(back[2], "\"evidence\":[\"peer SwitchL[2]\",\"no "
				   "error counter of the peer's moved\"]"),
	   "none moved at the peer: said, no cause: %s", back[2]);
	ok(!strstr(back[3], "\"cause\"") &&
		   strstr(back[3], "\"peer's symbol_error +50 over 3600.0 s\""),
	   "50 symbol errors in an hour (IBTA allows 120): no cause: %s",
	   back[3]);
	ok(!strstr(back[4], "\"cause\"") &&
		   strstr(json_of(&g.ev[8]),
			  "\"cause\":\"firmware_or_driver\""),
	   "after a down of another cause: the peer's moves no cause: %s",
	   back[4]);
	ok(strstr(json_of(&g.ev[0]), "\"cause\":\"unknown\"") &&
		   strstr(json_of(&g.ev[2]), "\"cause\":\"unknown\""),
	   "the downs' verdicts: unknown, as they were");
	ok(strstr(json_of(&g.ev[10]), "\"cause\":\"unknown\",\"evidence\":[]"),
	   "the peer's counters within a down's window: not the down's "
	   "evidence: %s",
	   json_of(&g.ev[10]));
	for (size_t i = 0; i < 5; i++)
		free((void *)back[i]);
}

/*
 * A verdict made while a full batch of the replay's records passes (the
 * case closed by a record's time) moves the pipeline's queue: every
 * record still reaches the sinks as it was, once, in order.
 */
static void test_batch(void)
{
	static char lines[80][64];
	const char *v[81] = { "0 verbs PORT_ERR" };
	struct got g;
	bool same = true;

	for (int i = 1; i < 80; i++) {
		snprintf(lines[i], sizeof(lines[i]), "%d verbs GID_CHANGE",
			 2000 + i);
		v[i] = lines[i];
	}
	every = true;
	replay_lines(v, &g);
	every = false;
	for (long i = 0, k = 0; i < (long)g.n; i++) {
		const struct timespec *t = &g.ev[i].time;

		if (g.ev[i].source == IBVE_SOURCE_AUTOPSY)
			continue;
		same &= t->tv_sec * 1000 + t->tv_nsec / 1000000 ==
			1780369210000 + (k ? 2000 + k : 0);
		k++;
	}
	ok(g.n == 81 && same,
	   "a verdict made as a full batch passes: the 80 records as they were, "
	   "and the verdict (%zu)",
	   g.n);
}

/* The verdict in text, JSON and read back. */
static void test_record(void)
{
	static const char bad[] =
		"{\"time\":\"2026-06-02T03:00:00Z\",\"device\":\"x\",\"port\":1,"
		"\"event\":\"PORT_DOWN_CAUSE\",\"source\":\"autopsy\","
		"\"cause\":\"gremlins\"}";
	struct got g;
	struct ibve_event back;
	char text[1024], json[2048];

	replay_lines(case_of("the carrier lost, no error counter moved"), &g);
	if (!ok(g.n == 1, "a verdict"))
		return;
	snprintf(json, sizeof(json), "%s", json_of(&g.ev[0]));
	ibve_event_format_text(&g.ev[0], text, sizeof(text), 0);
	ok(strstr(text, "PORT_DOWN_CAUSE      error   why the port went down, "
			"from the evidence around it (cause link_partner: "
			"netdev eth0 carrier lost, netdev up; peer "
			"leaf1[Ethernet7]; hw_counters/link_downed +1 before; "
			"no local error counter moved)"),
	   "text: the cause and the evidence in its words: %.*s",
	   (int)strcspn(text, "\n"), text);
	ok(strstr(json, ",\"action\":\"look at the far end of the link: "
			"leaf1[Ethernet7]\"}"),
	   "the action names the far end");
	ok(ibve_event_parse_json(json, strlen(json), &back) == 0 &&
		   !strcmp(json_of(&back), json),
	   "a replay reads it back as it was");
	replay_lines(case_of("the netdev set down"), &g);
	ok(g.n == 1 && g.ev[0].severity == IBVE_SEVERITY_WARNING &&
		   ibve_event_parse_json(json_of(&g.ev[0]),
					 strlen(json_of(&g.ev[0])),
					 &back) == 0 &&
		   back.severity == IBVE_SEVERITY_WARNING,
	   "administrative is a warning, read back too");
	ok(ibve_event_parse_json(bad, strlen(bad), &back) == -EINVAL &&
		   strstr(ibve_errmsg(), "unknown cause \"gremlins\""),
	   "a cause not in the table is refused: %s", ibve_errmsg());
}

/* Live: the window closes by the timer, a second after the down. */
static void test_live(void)
{
	struct ibve_source_opts o = { .sz = sizeof(o), .flags = IBVE_SRC_WAIT };
	struct ibve_pipeline *p = NULL;
	struct ibve_event evs[4];
	struct timespec t0, t1;
	int n = 0, r = 0;

	if (!ok(ibve_pipeline_new(&p) == 0 &&
			ibve_pipeline_add_source(p, "devices", &o) == 0 &&
			ibve_pipeline_add_source(p, "feeder", NULL) == 0 &&
			ibve_pipeline_add_source(p, "autopsy", NULL) == 0 &&
			ibve_pipeline_start(p) == 0,
		"a live pipeline: no device yet, the feeder, the autopsy")) {
		printf("#   %s\n", ibve_errmsg());
		ibve_pipeline_free(p);
		return;
	}
	eventfd_write(feed->fd, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* a deadline: ten seconds of polls at most */
	for (int i = 0; i < 100 && n < 2 && r >= 0; i++) {
		struct pollfd pfd = { ibve_pipeline_fd(p), POLLIN, 0 };

		if (poll(&pfd, 1, 100) > 0 &&
		    (r = ibve_pipeline_read(p, evs + n, 2 - (size_t)n)) > 0)
			n += r;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ok(n == 2 && !strcmp(evs[1].name, "PORT_DOWN_CAUSE") &&
		   ibve_ts_secs(&evs[0].time, &evs[1].time) == 1.0,
	   "the port's error, then its verdict, timed at the window's end "
	   "(%.2f s later)",
	   ibve_ts_secs(&t0, &t1));
	ok(n == 2 && ibve_ts_secs(&t0, &t1) >= 0.9,
	   "not before it: the timer waited");
	ibve_pipeline_free(p);
}

/* --- the corpus ----------------------------------------------------------- */

struct label {
	char device[IBVE_NAME_MAX];
	uint32_t port;
	char cause[32];
	bool used;
};

static void test_corpus(void)
{
	static const char *const files[] = {
		"test/captures/autopsy/mlx5.jsonl",
		"test/captures/autopsy/netdev.jsonl"
	};
	size_t right = 0, unknown = 0, wrong = 0, nlabels = 0, kinds = 0;
	struct label labels[64];
	char seen[512] = " ";
	struct got g;

	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		FILE *in = fopen(files[f], "r");
		char line[4096];
		size_t first = nlabels;

		while (in && fgets(line, sizeof(line), in)) {
			struct ibve_event ev;
			struct label *l = &labels[nlabels];
			const char *at = strstr(line, "\"label\":\"");

			if (!at || nlabels == ARRAY_SIZE(labels) ||
			    ibve_event_parse_json(line, strlen(line), &ev))
				continue;
			ibve_strcpy(l->device, ev.device, sizeof(l->device));
			l->port = ev.port;
			snprintf(l->cause, sizeof(l->cause), "%.*s",
				 (int)strcspn(at + 9, "\""), at + 9);
			l->used = false;
			nlabels++;
		}
		if (in)
			fclose(in);
		is_int(replay(files[f], &g), IBVE_STOP_END, "%s replays",
		       files[f]);
		for (size_t i = 0; i < g.n; i++) {
			const struct ibve_event *v = &g.ev[i];
			const char *cause = strstr(json_of(v), "\"cause\":\"");
			struct label *l = NULL;
			char name[32];

			if (v->code != 0)
				continue;
			for (size_t k = first; !l && k < nlabels; k++)
				if (!labels[k].used &&
				    !strcmp(labels[k].device, v->device) &&
				    (!labels[k].port ||
				     labels[k].port == v->port))
					l = &labels[k];
			snprintf(name, sizeof(name), "%.*s",
				 (int)strcspn(cause + 9, "\""), cause + 9);
			if (!l) {
				printf("# %s: a verdict of no labelled down: "
				       "%s\n",
				       files[f], json_of(v));
				wrong++;
				continue;
			}
			l->used = true;
			if (!strcmp(name, l->cause)) {
				right++;
			} else if (!strcmp(name, "unknown")) {
				unknown++;
				printf("# unknown, labelled %s: %s\n", l->cause,
				       json_of(v));
			} else {
				wrong++;
				printf("# WRONG, labelled %s: %s\n", l->cause,
				       json_of(v));
			}
		}
	}
	for (size_t k = 0; k < nlabels; k++) {
		char word[40];

		snprintf(word, sizeof(word), " %s ", labels[k].cause);
		if (!strstr(seen, word)) {
			strcat(seen, word + 1);
			kinds++;
		}
		if (!labels[k].used)
			printf("# no verdict for %s/%u, labelled %s\n",
			       labels[k].device, labels[k].port,
			       labels[k].cause);
	}
	is_int(wrong, 0, "the corpus: no verdict wrong");
	is_int(right + unknown, nlabels, "every labelled down has its verdict");
	ok(nlabels >= 8 && kinds == 7,
	   "%zu labelled downs, of %zu causes (every one):%s", nlabels, kinds,
	   seen);
	is_int(right, nlabels, "each its label, none unknown (%zu right)",
	       right);
}

int main(void)
{
	stand_in(&netdev_standin);
	stand_in(&counters_standin);
	if (ibve_register_source(&feeder))
		BAIL_OUT("the feeder: %s", ibve_errmsg());
	test_causes();
	test_one_a_down();
	test_back();
	test_peer_back();
	test_batch();
	test_record();
	test_live();
	test_corpus();
	return done_testing();
}
