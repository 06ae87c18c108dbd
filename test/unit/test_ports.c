// SPDX-License-Identifier: MIT
/*
 * The port table from events alone (no sysfs): rows, counts, the
 * per-minute window, ages, order, presence, reset; which counters are
 * errors.
 */
#include <errno.h>
#include <stdlib.h>

#include "ibvevent.h"
#include "ports.h"
#include "tap.h"

static struct ibve_event ev(const char *dev, uint32_t port, int code, time_t t)
{
	struct ibve_event e;

	memset(&e, 0, sizeof(e));
	snprintf(e.device, sizeof(e.device), "%s", dev);
	e.port = port;
	e.time.tv_sec = t;
	ibve_event_set_code(&e, IBVE_SOURCE_VERBS, code);
	return e;
}

static void test_error_counters(void)
{
	static const char *const yes[] = {
		"symbol_error",
		"link_error_recovery",
		"link_downed",
		"port_rcv_errors",
		"port_xmit_discards",
		"VL15_dropped",
		"local_link_integrity_errors",
		"excessive_buffer_overrun_errors",
		"rcvd_seq_err",
		"out_of_seq_request",
		"duplicate_request",
		"retry_exceeded_err",
		"rcvd_rnr_err",
		"send_err",
		"completer_retry_err",
		"local_ack_timeout_err",
		"out_of_buffer",
		"out_of_sequence",
		"req_remote_invalid_request",
	};
	static const char *const no[] = {
		"ack_deferred",	    "port_xmit_data",
		"port_rcv_packets", "rcvd_pkts",
		"sent_pkts",	    "rdma_sends",
		"lifespan",	    "unicast_xmit_packets",
		"np_cnp_sent",	    "terror_zone_x",
	};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		ok(ibve_is_error_counter(yes[i]), "%s counts errors", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ok(!ibve_is_error_counter(no[i]), "%s does not", no[i]);
}

static struct ibve_ports *table(unsigned int flags)
{
	struct ibve_ports *t = NULL;

	if (ibve_ports_new(&t, flags)) {
		printf("Bail out! ibve_ports_new: %s\n", ibve_errmsg());
		exit(1);
	}
	return t;
}

static const struct ibve_port_row *row(const struct ibve_ports *t,
				       const char *dev, uint32_t port)
{
	for (size_t i = 0; i < ibve_ports_count(t); i++) {
		const struct ibve_port_row *p = ibve_ports_at(t, i);

		if (strcmp(p->device, dev) == 0 && p->port == port)
			return p;
	}
	return NULL;
}

static void test_model(void)
{
	struct ibve_ports *t = table(IBVE_PORTS_RECENT);
	const struct ibve_ports_summary *s = ibve_ports_summary(t);
	const struct ibve_port_row *p;
	struct ibve_event e;
	struct timespec now = { 1000, 0 };

	e = ev("mlx5_1", 2, 10, 900); /* PORT_ERR */
	ibve_ports_event(t, &e);
	e = ev("mlx5_0", 1, 13, 950); /* SM_CHANGE */
	ibve_ports_event(t, &e);
	e = ev("mlx5_1", 2, 9, 990); /* PORT_ACTIVE */
	ibve_ports_event(t, &e);
	e = ev("mlx5_1", 0, 8, 995); /* DEVICE_FATAL: every port of it */
	ibve_ports_event(t, &e);
	ibve_ports_sample(t, &now);

	is_int(ibve_ports_count(t), 2, "a row per (device, port) seen");
	is_str(ibve_ports_at(t, 0)->device, "mlx5_0", "rows in device order");
	ok(!ibve_ports_at(t, 2), "no row past the last");
	p = row(t, "mlx5_1", 2);
	ok(p && p->counts[IBVE_KIND_LINK_DOWN] == 1 &&
		   p->counts[IBVE_KIND_LINK_UP] == 1 &&
		   p->counts[IBVE_KIND_FATAL] == 1 && p->total == 3,
	   "down, up and fatal counted on mlx5_1/2");
	is_str(p->state, "ACTIVE", "the state follows the last port event");
	is_str(p->last_event, "DEVICE_FATAL", "the last event");
	ok(p->last_age > 4.9 && p->last_age < 5.1, "its age: 5 s");
	is_int(p->per_minute, 2, "two in the last minute (900 s is older)");
	ok(row(t, "mlx5_0", 1)->last_age > 49.9 &&
		   row(t, "mlx5_0", 1)->last_age < 50.1,
	   "the other row's age: 50 s");

	is_str(ibve_ports_recent(t, 0)->name, "DEVICE_FATAL", "newest first");
	is_str(ibve_ports_recent(t, 3)->name, "PORT_ERR", "oldest last");
	ok(!ibve_ports_recent(t, 4), "no more than there were");

	ok(s->devices == 2 && s->ports == 2 && s->events == 4 && !s->host[0],
	   "summary: 2 devices, 2 ports, 4 events, no host for a capture");
	ok(s->uptime > 99.9 && s->uptime < 100.1,
	   "uptime runs from the capture's first event");
	ok(s->kinds[IBVE_KIND_SM] == 1 && s->kinds[IBVE_KIND_LINK_DOWN] == 1 &&
		   s->kinds[IBVE_KIND_MODULE] == 0,
	   "the summary counts each kind");

	memset(&e, 0, sizeof(e));
	strcpy(e.device, "mlx5_1");
	e.time.tv_sec = 999;
	ibve_event_set_code(&e, IBVE_SOURCE_HOTPLUG,
			    IBVE_HOTPLUG_DEVICE_REMOVED);
	ibve_ports_event(t, &e);
	p = row(t, "mlx5_1", 2);
	ok(p && strcmp(p->state, "-") == 0 && p->total == 4 &&
		   strcmp(p->last_event, "DEVICE_REMOVED") == 0,
	   "a capture's removal: the state is unknown, the rows stay and count it");

	ibve_ports_reset(t);
	p = row(t, "mlx5_1", 2);
	ok(p->total == 0 && p->counts[IBVE_KIND_LINK_DOWN] == 0 &&
		   !p->last_event[0] && !ibve_ports_recent(t, 0) &&
		   s->events == 0 && s->kinds[IBVE_KIND_SM] == 0,
	   "reset zeroes the counts, the kinds and the log");
	ibve_ports_free(t);

	t = table(0);
	e = ev("mlx5_0", 1, 10, 1000);
	ibve_ports_event(t, &e);
	ok(!ibve_ports_recent(t, 0), "without IBVE_PORTS_RECENT, no log");
	ibve_ports_free(t);
}

static void test_kinds(void)
{
	static const struct {
		enum ibve_source src;
		int code;
		enum ibve_kind kind;
		const char *name;
	} cases[] = {
		{ IBVE_SOURCE_VERBS, 10, IBVE_KIND_LINK_DOWN, "link_down" },
		{ IBVE_SOURCE_VERBS, 9, IBVE_KIND_LINK_UP, "link_up" },
		{ IBVE_SOURCE_VERBS, 17, IBVE_KIND_REREG, "client_reregister" },
		{ IBVE_SOURCE_VERBS, 8, IBVE_KIND_FATAL, "fatal" },
		{ IBVE_SOURCE_VERBS, 1, IBVE_KIND_OTHER, "other" },
		{ IBVE_SOURCE_MLX5, IBVE_MLX5_PORT_MODULE, IBVE_KIND_MODULE,
		  "module" },
		{ IBVE_SOURCE_SM, 64, IBVE_KIND_SUBNET, "subnet" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibve_event e;

		memset(&e, 0, sizeof(e));
		ibve_event_set_code(&e, cases[i].src, cases[i].code);
		ok(ibve_event_kind(&e) == cases[i].kind &&
			   strcmp(ibve_kind_name(ibve_event_kind(&e)),
				  cases[i].name) == 0,
		   "%s counts as %s", e.name, cases[i].name);
	}
	is_str(ibve_kind_name((enum ibve_kind)(IBVE_KIND_MAX - 1)), "unknown",
	       "a kind this version does not know");
}

/* Many rows in any order: found, kept in order. */
static void test_many(void)
{
	struct ibve_ports *t = table(0);
	struct ibve_event e;
	bool sorted = true;
	char dev[16];

	for (int i = 0; i < 300; i++) {
		snprintf(dev, sizeof(dev), "mlx5_%d", (i * 37) % 150);
		e = ev(dev, (uint32_t)(i / 150 + 1), 10, 1000 + i);
		ibve_ports_event(t, &e);
		ibve_ports_event(t, &e);
	}
	is_int(ibve_ports_count(t), 300, "300 rows from 300 ports");
	for (size_t i = 1; i < ibve_ports_count(t); i++)
		sorted &= strcmp(ibve_ports_at(t, i - 1)->device,
				 ibve_ports_at(t, i)->device) <= 0;
	ok(sorted, "in device order");
	ok(row(t, "mlx5_149", 2) &&
		   row(t, "mlx5_149", 2)->counts[IBVE_KIND_LINK_DOWN] == 2,
	   "each row found again: two events each");
	e = ev("mlx5_7", 0, 8, 2000); /* DEVICE_FATAL */
	ibve_ports_event(t, &e);
	ok(row(t, "mlx5_7", 1)->counts[IBVE_KIND_FATAL] == 1 &&
		   row(t, "mlx5_7", 2)->counts[IBVE_KIND_FATAL] == 1 &&
		   row(t, "mlx5_70", 1)->counts[IBVE_KIND_FATAL] == 0 &&
		   row(t, "mlx5_8", 1)->counts[IBVE_KIND_FATAL] == 0,
	   "a device-wide event reaches that device's ports only");
	e = ev("mlx5_900", 0, 8, 2001);
	ibve_ports_event(t, &e);
	ok(row(t, "mlx5_900", 0) && row(t, "mlx5_900", 0)->total == 1,
	   "a capture's device-wide event of a device without ports: row 0");
	ibve_ports_free(t);
}

/* Queue errors by workload: owners' jobs, errors only, the last 64 kept. */
static void test_workloads(void)
{
	struct ibve_ports *t = table(0);
	struct ibve_event e;
	char *text = malloc(1 << 16);
	int n = 0;

	for (int i = 0; i < 70; i++) {
		e = ev("mlx5_0", 0, 0, 1000 + i); /* CQ_ERR */
		e.fields |= IBVE_FIELD_OWNER;
		snprintf(e.kernel.cgroup, sizeof(e.kernel.cgroup),
			 "/system.slice/slurmstepd.scope/job_%d/step_0",
			 100 + i);
		ibve_ports_event(t, &e);
		if (i == 10) { /* the first seen again: not the oldest now */
			snprintf(
				e.kernel.cgroup, sizeof(e.kernel.cgroup),
				"/system.slice/slurmstepd.scope/job_100/step_0");
			ibve_ports_event(t, &e);
		}
		if (i == 1) {
			e.fields &= ~IBVE_FIELD_OWNER; /* no owner: none */
			ibve_ports_event(t, &e);
		}
	}
	e = ev("mlx5_0", 0, 4, 2000); /* COMM_EST: not an error */
	e.fields |= IBVE_FIELD_OWNER;
	snprintf(e.kernel.cgroup, sizeof(e.kernel.cgroup), "/x/job_7/step_0");
	ibve_ports_event(t, &e);
	ok(text && ibve_metrics_format(t, text, 1 << 16) < 1 << 16,
	   "the metrics fit");
	for (char *p = text;
	     text && (p = strstr(p, "\nibvevent_workload_queue_errors_total{"));
	     p++)
		n++;
	is_int(n, 64, "64 workloads kept");
	ok(text && strstr(text,
			  "{workload=\"slurm job 100\",event=\"CQ_ERR\"} 2\n"),
	   "the first job counted twice");
	ok(text && !strstr(text, "workload=\"slurm job 101\"") &&
		   !strstr(text, "workload=\"slurm job 106\"") &&
		   strstr(text, "workload=\"slurm job 107\"") &&
		   strstr(text, "workload=\"slurm job 169\""),
	   "the oldest ones forgotten, the newest kept");
	ok(text && !strstr(text, "slurm job 7\""),
	   "no series for an info event");
	free(text);
	ibve_ports_free(t);
}

/* Port health from a capture's records: since, downs, flaps, windows. */
static void test_health(void)
{
	struct ibve_ports *t = table(0);
	const struct ibve_port_row *p;
	struct ibve_event e;
	struct timespec now = { 2000, 0 };

	ibve_ports_set_flap_window(t, 60);
	e = ev("rxe0", 1, 9, 100); /* PORT_ACTIVE, nothing before */
	ibve_ports_event(t, &e);
	p = row(t, "rxe0", 1);
	ok(p && p->flaps == 0 && p->last_down == 0 && p->since.tv_sec == 100,
	   "up without a down seen: up since then, no flap");
	for (time_t k = 0; k < 3; k++) { /* three quick flaps */
		e = ev("rxe0", 1, 10, 1000 + 10 * k);
		ibve_ports_event(t, &e);
		e = ev("rxe0", 1, 9, 1002 + 10 * k);
		ibve_ports_event(t, &e);
	}
	e = ev("rxe0", 1, 10, 1100); /* down 120 s: a drop, not a flap */
	ibve_ports_event(t, &e);
	p = row(t, "rxe0", 1);
	ok(p->since.tv_sec == 1100 && !p->since_start &&
		   strcmp(p->state, "DOWN") == 0,
	   "down since its PORT_ERR");
	e = ev("rxe0", 1, 10, 1150); /* a repeat while down moves nothing */
	ibve_ports_event(t, &e);
	ok(row(t, "rxe0", 1)->since.tv_sec == 1100,
	   "a second PORT_ERR while down keeps since");
	e = ev("rxe0", 1, 9, 1220);
	ibve_ports_event(t, &e);
	p = row(t, "rxe0", 1);
	is_int((int)p->flaps, 3, "3 flaps: down and up within the window");
	ok(p->last_down == 120 && p->since.tv_sec == 1220,
	   "the last down lasted 120 s; up since 1220");
	now.tv_sec = 1040;
	ibve_ports_sample(t, &now);
	is_int((int)row(t, "rxe0", 1)->flaps_window, 3,
	       "all 3 in the last 60 s at 1040");
	now.tv_sec = 1081;
	ibve_ports_sample(t, &now);
	is_int((int)row(t, "rxe0", 1)->flaps_window, 1,
	       "one left in the window at 1081");

	/* a PORT_ACTIVE that says how long it was down, its PORT_ERR unseen */
	e = ev("rxe1", 1, 9, 500);
	e.verbs.down_us = 1500000;
	e.fields |= IBVE_FIELD_DOWN;
	ibve_ports_event(t, &e);
	p = row(t, "rxe1", 1);
	ok(p->flaps == 1 && p->last_down == 1.5,
	   "down_us of the record: a flap of 1.5 s");

	/* a speed change names its ports */
	memset(&e, 0, sizeof(e));
	e = ev("rxe1", 0, 20, 600);
	e.verbs.nrates = 1;
	e.verbs.rates[0].port = 1;
	strcpy(e.verbs.rates[0].old_rate, "200 Gb/sec (4X HDR)");
	strcpy(e.verbs.rates[0].new_rate, "100 Gb/sec (2X HDR)");
	e.fields |= IBVE_FIELD_RATES;
	ibve_ports_event(t, &e);
	p = row(t, "rxe1", 1);
	ok(p->rate_changed.tv_sec == 600 &&
		   strcmp(p->old_rate, "200 Gb/sec (4X HDR)") == 0 &&
		   strcmp(p->rate, "100 Gb/sec (2X HDR)") == 0 &&
		   p->rate_gbps == 100,
	   "DEVICE_SPEED_CHANGE: the port's old and new rate");
	ibve_ports_free(t);
}

static void test_counter_advance(void)
{
	uint64_t d = 5;

	ok(!ibve_counter_advance(10, 15, &d) && d == 10,
	   "a counter that moved on adds its move");
	ok(ibve_counter_advance(15, 3, &d) && d == 13,
	   "one that went backwards was reset: it adds what it counts now");
	ok(!ibve_counter_advance(3, 3, &d) && d == 13, "one that stood: 0");
}

static void test_check(void)
{
	struct ibve_ports *t = table(0);
	struct ibve_check *c = NULL;
	const struct ibve_check_problem *p;
	struct ibve_event e;
	struct timespec now = { 2000, 0 }, from = { 1000, 0 };
	size_t n;

	ok(ibve_check_new(&c) == 0, "a check");
	ok(ibve_check_add(c, "rxe0 rate>=x") == -EINVAL &&
		   strstr(ibve_errmsg(), "rate>="),
	   "a bad rate is refused: %s", ibve_errmsg());
	ok(ibve_check_add(c, "rxe0 speed=1") == -EINVAL,
	   "an unknown condition is refused");
	ok(ibve_check_add(c, "exclude a b") == -EINVAL,
	   "exclude takes one glob");
	e = ev("rxe0", 1, 10, 1500); /* PORT_ERR */
	ibve_ports_event(t, &e);
	e = ev("rxe1", 1, 9, 1500); /* PORT_ACTIVE */
	ibve_ports_event(t, &e);
	ibve_ports_sample(t, &now);
	n = ibve_check_run(c, t, NULL, &p);
	ok(n == 1 && strcmp(p[0].device, "rxe0") == 0 && p[0].port == 1 &&
		   strcmp(p[0].brief, "DOWN") == 0 &&
		   strcmp(p[0].what, "state DOWN, expected ACTIVE") == 0,
	   "no spec: every port ACTIVE; rxe0/1 is not (%s)",
	   n ? p[0].what : "none");
	ok(ibve_check_add(c, "  # a comment") == 0 &&
		   ibve_check_add(c, "rxe1/1 state=ACTIVE rate>=100") == 0 &&
		   ibve_check_add(c, "mlx5_*/1 link=ib") == 0 &&
		   ibve_check_add(c, "exclude rxe9") == 0,
	   "a spec");
	n = ibve_check_run(c, t, NULL, &p);
	ok(n == 2 && strcmp(p[0].device, "rxe1") == 0 &&
		   strcmp(p[0].what,
			  "rate unknown, expected at least 100 Gb/s") == 0 &&
		   strcmp(p[1].device, "mlx5_*") == 0 && p[1].port == 1 &&
		   strcmp(p[1].brief, "missing") == 0,
	   "only the spec's ports: rxe1/1's rate, mlx5_*/1 missing");
	e = ev("rxe1", 0, 8, 1600); /* DEVICE_FATAL */
	ibve_ports_event(t, &e);
	n = ibve_check_run(c, t, &from, &p);
	ok(n == 3 && strcmp(p[2].brief, "DEVICE_FATAL") == 0,
	   "a fatal event in the window fails its device");
	from.tv_sec = 1601;
	ok(ibve_check_run(c, t, &from, &p) == 2,
	   "one before the window does not");
	ibve_check_free(c);
	ibve_ports_free(t);
}

/* flaps<=N at the edge: exactly N flaps pass, N + 1 fail. */
static void test_check_flaps(void)
{
	struct ibve_ports *t = table(0);
	struct ibve_check *c = NULL;
	const struct ibve_check_problem *p;
	struct ibve_event e;
	struct timespec now = { 1040, 0 };
	size_t n;

	ibve_ports_set_flap_window(t, 60);
	for (time_t k = 0; k < 2; k++) { /* two quick flaps of rxe0/1 */
		e = ev("rxe0", 1, 10, 1000 + 10 * k);
		ibve_ports_event(t, &e);
		e = ev("rxe0", 1, 9, 1002 + 10 * k);
		ibve_ports_event(t, &e);
	}
	ibve_ports_sample(t, &now);
	is_int((int)row(t, "rxe0", 1)->flaps_window, 2,
	       "2 flaps in the window");
	ok(ibve_check_new(&c) == 0 && ibve_check_add(c, "rxe0/1 flaps<=2") == 0,
	   "flaps<=2");
	n = ibve_check_run(c, t, NULL, &p);
	ok(n == 0, "2 flaps, at most 2: healthy (%s)", n ? p[0].what : "none");
	ibve_check_free(c);
	ok(ibve_check_new(&c) == 0 && ibve_check_add(c, "rxe0/1 flaps<=1") == 0,
	   "flaps<=1");
	n = ibve_check_run(c, t, NULL, &p);
	ok(n == 1 && strcmp(p[0].brief, "2 flaps") == 0 &&
		   strcmp(p[0].what, "2 flaps in the window, at most 1") == 0,
	   "2 flaps, at most 1: unhealthy (%s)", n ? p[0].what : "none");
	ibve_check_free(c);
	ibve_ports_free(t);
}

static struct ibve_peer ib_peer(const char *name, uint64_t guid, uint32_t port)
{
	struct ibve_peer p = { .kind = IBVE_PEER_IB,
			       .state = IBVE_PEER_KNOWN,
			       .node_type = IBVE_PEER_NODE_SWITCH,
			       .guid = guid,
			       .port = port };

	snprintf(p.name, sizeof(p.name), "%s", name);
	return p;
}

/* peer= of a spec against T, whose mlx5_0/1 is known on SwitchL[5]. */
static void check_peer(const struct ibve_ports *t)
{
	static const struct {
		const char *spec, *brief;
	} v[] = {
		{ "mlx5_0/1 state=any peer=SwitchL:5", NULL },
		{ "mlx5_0/1 state=any peer=Switch*", NULL },
		{ "mlx5_0/1 state=any peer=SwitchL:[4-6]", NULL },
		{ "mlx5_0/1 state=any peer=SwitchL:2",
		  "peer SwitchL[5], expected SwitchL[2]" },
		{ "mlx5_0/1 state=any peer=SwitchR",
		  "peer SwitchL[5], expected SwitchR" },
	};
	static const char *const bad[] = { "peer=", "peer=:2", "peer=S:" };
	const struct ibve_check_problem *p;
	struct ibve_check *c;
	char line[128];
	size_t n;

	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		ok(ibve_check_new(&c) == 0 && ibve_check_add(c, v[i].spec) == 0,
		   "'%s' is a spec", v[i].spec);
		n = ibve_check_run(c, t, NULL, &p);
		if (v[i].brief)
			ok(n == 1 && strcmp(p[0].brief, v[i].brief) == 0 &&
				   strcmp(p[0].what, v[i].brief) == 0,
			   "'%s': %s (%s)", v[i].spec, v[i].brief,
			   n ? p[0].brief : "healthy");
		else
			ok(n == 0, "'%s': healthy (%s)", v[i].spec,
			   n ? p[0].what : "none");
		ibve_check_free(c);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(line, sizeof(line), "mlx5_0/1 %s", bad[i]);
		ok(ibve_check_new(&c) == 0 &&
			   ibve_check_add(c, line) == -EINVAL,
		   "'%s' refused: %s", line, ibve_errmsg());
		ibve_check_free(c);
	}
}

/* A peer's words, and "changed" only against the last known one. */
static void test_peer(void)
{
	struct ibve_peer known = { 0 }, cur = { 0 }, none = { 0 };
	struct ibve_ports *t;
	struct ibve_event e;
	struct ibve_peer a = ib_peer("SwitchL", 0x20, 2);
	struct ibve_peer b = ib_peer("SwitchL", 0x20, 5);
	struct ibve_peer l = { .kind = IBVE_PEER_LLDP,
			       .state = IBVE_PEER_KNOWN,
			       .chassis = "00:11:22:33:44:55",
			       .port_id = "Ethernet7",
			       .name = "leaf1" };
	char buf[128];

	ibve_peer_format(&a, buf, sizeof(buf));
	is_str(buf, "SwitchL[2]", "an IB peer: NAME[PORT]");
	ibve_peer_format(&l, buf, sizeof(buf));
	is_str(buf, "leaf1[Ethernet7]", "an LLDP peer: NAME[PORT ID]");
	a.name[0] = '\0';
	ibve_peer_format(&a, buf, sizeof(buf));
	is_str(buf, "0x0000000000000020[2]", "no description: its GUID");
	a = ib_peer("SwitchL", 0x20, 2);
	none.state = IBVE_PEER_NONE;
	snprintf(none.reason, sizeof(none.reason), "no SM");
	ibve_peer_format(&none, buf, sizeof(buf));
	is_str(buf, "none (no SM)", "none, with its reason");
	ibve_peer_format(&cur, buf, sizeof(buf));
	is_str(buf, "unknown", "never looked up: unknown");
	is_str(ibve_peer_node_name(IBVE_PEER_NODE_SWITCH), "switch",
	       "node type switch");
	is_str(ibve_peer_node_name(9), "unknown", "node type 9: unknown");
	is_str(ibve_peer_state_name(IBVE_PEER_NONE), "none", "state none");
	is_str(ibve_peer_kind_name(IBVE_PEER_LLDP), "lldp", "kind lldp");

	ok(!ibve_peer_take(&known, &cur, &a) && !cur.changed,
	   "the first known peer is no change");
	ok(!ibve_peer_take(&known, &cur, &a), "the same again: no change");
	ok(!ibve_peer_take(&known, &cur, &none) && cur.state == IBVE_PEER_NONE,
	   "a lookup that finds none says none, no change");
	ok(ibve_peer_take(&known, &cur, &b) && cur.changed && cur.port == 5,
	   "another switch port after a gap: changed");
	ok(!known.changed && known.port == 5, "the known one is the new one");
	ok(!ibve_peer_take(&known, &cur, &b) && !cur.changed,
	   "looked up again: no longer changed");
	ok(!ibve_peer_same(&a, &l), "IB and LLDP peers differ");
	l.port_id[0] = 'X';
	ok(ibve_peer_take(&known, &cur, &l), "an LLDP peer after an IB one");

	/* the table's row: the last known peer of the port's records */
	ok(ibve_ports_new(&t, 0) == 0, "a table");
	e = ev("mlx5_0", 1, 10, 1000);
	e.verbs.peer = b;
	e.fields |= IBVE_FIELD_PEER;
	ibve_ports_event(t, &e);
	is_int((int)row(t, "mlx5_0", 1)->peer.port, 5, "the row has the peer");
	e = ev("mlx5_0", 1, 9, 1001);
	e.verbs.peer = none;
	e.fields |= IBVE_FIELD_PEER;
	ibve_ports_event(t, &e);
	ok(row(t, "mlx5_0", 1)->peer.state == IBVE_PEER_KNOWN &&
		   row(t, "mlx5_0", 1)->peer.port == 5,
	   "none since: the row keeps the last known one");
	check_peer(t);
	ibve_ports_free(t);
}

/* The logs' metrics have room for every log sink a pipeline takes: the
 * one past is refused, not cut from them. */
static void test_log_sinks(void)
{
	struct ibve_pipeline *p;
	struct ibve_ports *t;
	struct ibve_sink *s;
	char m[65536];
	int r = 0, n = 0;

	if (ibve_pipeline_new(&p) || ibve_ports_new(&t, 0))
		return;
	ok(ibve_sink_metrics(&s, t, NULL, NULL) == 0 &&
		   ibve_pipeline_add_sink(p, s, 0) == 0,
	   "a port table's sink");
	while (!r && n < 20 && ibve_sink_syslog(&s, "test", 0) == 0)
		if (!(r = ibve_pipeline_add_sink(p, s, 0)))
			n++;
	ok(n == 8 && r == -ENOSPC &&
		   strstr(ibve_errmsg(), "syslog: more than 8 log sinks"),
	   "eight log sinks, the ninth refused: %s", ibve_errmsg());
	ibve_pipeline_add_source(p, "replay",
				 &(struct ibve_source_opts){
					 .sz = sizeof(struct ibve_source_opts),
					 .path = "/dev/null" });
	ibve_pipeline_start(p);
	ibve_pipeline_run(p, &(struct ibve_run_opts){
				     .sz = sizeof(struct ibve_run_opts) });
	ibve_metrics_format(t, m, sizeof(m));
	ok(strstr(m, "ibvevent_log_send_failures_total{sink=\"syslog\"}") &&
		   t->w.nlogs == 8,
	   "each has its series (%zu)", t->w.nlogs);
	ibve_pipeline_free(p);
	ibve_ports_free(t);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	test_log_sinks();
	test_health();
	test_counter_advance();
	test_check();
	test_check_flaps();
	test_error_counters();
	test_model();
	test_kinds();
	test_many();
	test_workloads();
	test_peer();
	return done_testing();
}
