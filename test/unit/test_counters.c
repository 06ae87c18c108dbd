// SPDX-License-Identifier: MIT
/*
 * The counters source's parts a test can reach without a device: the
 * counter reader (lib/ports.c, the port table's too) on stored port
 * directories (test/sysfs/ib-counters: an InfiniBand port's counters/,
 * rxe-counters: soft-RoCE's hw_counters/) and on a copy whose files the
 * test rewrites; a COUNTERS_MOVED record made of moves, its eight largest
 * kept; the record's JSON, text and replay; and the CPU a port's sample
 * takes. The sampling itself runs in the guest (test/rxe/95-counters.bats).
 * Run from the top of the tree, as make check-unit does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ibvevent.h"
#include "util.h"
#include "ports.h"
#include "tap.h"

static struct ibve_counter *named(struct ibve_counter *v, size_t n,
				  const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

static void test_find(void)
{
	static const char *const ib[] = {
		"VL15_dropped",
		"excessive_buffer_overrun_errors",
		"link_downed",
		"link_error_recovery",
		"local_link_integrity_errors",
		"port_rcv_constraint_errors",
		"port_rcv_errors",
		"port_rcv_remote_physical_errors",
		"port_rcv_switch_relay_errors",
		"port_xmit_constraint_errors",
		"port_xmit_discards",
		"symbol_error",
	};
	struct ibve_counter *v;
	size_t n = ibve_counters_find("test/sysfs/ib-counters", &v), i;

	is_int(n, ARRAY_SIZE(ib), "an InfiniBand port: its 12 error counters");
	for (i = 0; i < n && i < ARRAY_SIZE(ib); i++)
		if (strcmp(v[i].name, ib[i]) || v[i].hw)
			break;
	is_int(i, ARRAY_SIZE(ib),
	       "  by name, of counters/, not the traffic "
	       "ones");
	free(v);

	n = ibve_counters_find("test/sysfs/rxe-counters", &v);
	is_int(n, 10, "soft-RoCE: 10 of its 15 hw_counters are errors");
	ok(named(v, n, "link_downed") && named(v, n, "link_downed")->hw,
	   "  link_downed among them, of hw_counters/");
	ok(!named(v, n, "sent_pkts") && !named(v, n, "lifespan") &&
		   !named(v, n, "ack_deferred"),
	   "  not sent_pkts, ack_deferred nor lifespan");
	free(v);
	is_int(ibve_counters_find("test/sysfs/ib-port1", &v), 0,
	       "a port with neither directory has none");
	ok(v == NULL, "  and nothing allocated");
}

static void put(const char *dir, const char *name, const char *value)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/counters/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", value);
		fclose(f);
	}
}

/* A copy of ib-counters to rewrite: moves, a reset, a file gone. */
static void test_read(void)
{
	char dir[] = "/tmp/test_counters.XXXXXX", cmd[600];
	struct ibve_counter *v, *sym, *led, *lnk;
	unsigned int resets = 0;
	size_t n;

	if (!mkdtemp(dir)) {
		ok(false, "a directory for the copy: %s", strerror(errno));
		return;
	}
	snprintf(cmd, sizeof(cmd), "cp -r test/sysfs/ib-counters/counters %s/",
		 dir);
	if (system(cmd)) {
		ok(false, "copy test/sysfs/ib-counters");
		return;
	}
	n = ibve_counters_find(dir, &v);
	sym = named(v, n, "symbol_error");
	led = named(v, n, "link_error_recovery");
	lnk = named(v, n, "link_downed");
	is_int(ibve_counters_read(dir, v, n, 0, true, &resets), 12,
	       "the first read reads all 12");
	ok(sym && sym->value == 12 && !sym->delta && lnk->value == 3,
	   "  their values, no delta yet");
	put(dir, "symbol_error", "40");
	put(dir, "link_downed", "1"); /* backwards: reset, counts from 0 */
	put(dir, "link_error_recovery", "abc");
	ibve_counters_read(dir, v, n, 2, false, &resets);
	is_int(sym->delta, 28, "symbol_error 12 -> 40: moved 28");
	ok(sym->changed && sym->rate == 14, "  changed, 14 a second over 2 s");
	is_int(lnk->delta, 1, "link_downed 3 -> 1: a reset, 1 since it");
	ok(led->value == 1 && !led->delta,
	   "a file that says no number is not read: its value kept (%llu)",
	   (unsigned long long)led->value);
	is_int(resets, 1, "  no reset counted for it");
	put(dir, "symbol_error", "45");
	snprintf(cmd, sizeof(cmd), "%s/counters/port_rcv_errors", dir);
	unlink(cmd);
	put(dir, "link_error_recovery", "0x10");
	is_int(ibve_counters_read(dir, v, n, 0, false, NULL), 10,
	       "a file gone, one in hex: the others read");
	ok(led->value == 1 && !led->delta, "  hex is not read as 16");
	is_int(sym->delta, 33, "  deltas add up: 28 + 5");
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	is_int(system(cmd), 0, "the copy removed");
	is_int(ibve_counters_read(dir, v, n, 0, false, NULL), 0,
	       "the port gone: none read");
	is_int(sym->delta, 33, "  and none moved");
	free(v);
}

/* Counter I of V: NAME (of hw_counters/ when HW) moved DELTA. */
static void moved(struct ibve_counter *c, const char *name, bool hw,
		  uint64_t delta)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->hw = hw;
	c->delta = delta;
}

static const char line[] =
	"{\"time\":\"2026-05-04T03:02:01.000000000Z\",\"device\":\"mlx5_0\","
	"\"port\":1,\"event\":\"COUNTERS_MOVED\",\"code\":0,\"class\":\"port\","
	"\"severity\":\"warning\",\"affiliated\":false,\"source\":\"counters\","
	"\"node_guid\":null,\"phase\":\"before\",\"counters\":{"
	"\"symbol_error\":900,\"hw_counters/h\":600,\"port_rcv_errors\":500,"
	"\"link_error_recovery\":400,\"a\":300,\"b\":300,\"c\":200,"
	"\"hw_counters/link_downed\":1},\"counters_more\":4,"
	"\"sample_us\":41200000}\n";

static void test_record(void)
{
	struct ibve_counter v[13];
	struct ibve_event ev = { .port = 1 }, back;
	char buf[2048], again[2048];

	moved(&v[0], "a", false, 300);
	moved(&v[1], "link_downed", true, 1);
	moved(&v[2], "b", false, 300);
	moved(&v[3], "symbol_error", false, 900);
	moved(&v[4], "c", false, 200);
	moved(&v[5], "d", false, 1); /* as the last kept, later: out */
	moved(&v[6], "link_error_recovery", false, 400);
	moved(&v[7], "e", false, 0); /* stood still */
	moved(&v[8], "port_rcv_errors", false, 500);
	moved(&v[9], "f", false, 1);
	moved(&v[10], "h", true, 600);
	moved(&v[11], "g", false, 1);
	moved(&v[12], "x\"y", false, 5000); /* not for JSON: out */
	snprintf(ev.device, sizeof(ev.device), "mlx5_0");
	ev.time.tv_sec = 1777863721;
	ibve_counters_moved(&ev, v, ARRAY_SIZE(v), false, 41200000);
	is_str(ev.name, "COUNTERS_MOVED", "a record of moves: COUNTERS_MOVED");
	is_int(ev.counters.n, 8, "  the 8 largest kept");
	is_int(ev.counters.more, 4,
	       "  4 more: three as small as the last kept, one odd name");
	is_int(ev.severity, IBVE_SEVERITY_WARNING, "  a warning: errors moved");
	ibve_event_format_json(&ev, buf, sizeof(buf));
	is_str(buf, line, "  its JSON: largest first, equal ones as they came");
	ibve_event_format_text(&ev, buf, sizeof(buf), 0);
	ok(strstr(buf, "(before the down: symbol_error +900, hw_counters/h "
		       "+600, port_rcv_errors +500, link_error_recovery +400, "
		       "a +300, b +300, c +200, hw_counters/link_downed +1 and "
		       "4 more, over 41.2 s)\n") != NULL,
	   "  its text names them with their moves");
	printf("# %s", buf);

	is_int(ibve_event_parse_json(line, strlen(line), &back), 0,
	       "its JSON replays");
	ibve_event_format_json(&back, again, sizeof(again));
	is_str(again, line, "  and writes back the same");
	is_int(back.severity, IBVE_SEVERITY_WARNING, "  a warning again");
	ok(back.counters.moved[7].hw &&
		   strcmp(back.counters.moved[7].name, "link_downed") == 0 &&
		   back.counters.moved[7].delta == 1 && !back.counters.since,
	   "  read back as moves, hw_counters/ a flag");

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		v[i].delta = 0;
	ibve_counters_moved(&ev, v, ARRAY_SIZE(v), true, 2500);
	is_int(ev.severity, IBVE_SEVERITY_INFO, "none moved: info");
	ibve_event_format_json(&ev, buf, sizeof(buf));
	ok(strstr(buf,
		  "\"phase\":\"since\",\"counters\":{},\"sample_us\":2500}") !=
		   NULL,
	   "  an empty object, no counters_more");
	ibve_event_format_text(&ev, buf, sizeof(buf), 0);
	ok(strstr(buf, "(since the down: none moved, over 0.0 s)") != NULL,
	   "  its text says none moved");
	is_int(ibve_event_parse_json(buf, strlen(buf), &back), -EINVAL,
	       "(text is not JSON)");
	ibve_event_format_json(&ev, buf, sizeof(buf));
	is_int(ibve_event_parse_json(buf, strlen(buf), &back), 0,
	       "  it replays");
	ok(back.fields & IBVE_FIELD_COUNTERS && back.counters.since &&
		   !back.counters.n,
	   "  as a record of no moves, since");
}

/* A record of LINE with its fields replaced by FIELDS: refused, why. */
static void refused(const char *fields, const char *why)
{
	char l[1024];
	struct ibve_event ev;

	snprintf(l, sizeof(l),
		 "{\"time\":\"2026-05-04T03:02:01Z\",\"device\":\"rxe0\","
		 "\"port\":1,\"event\":\"COUNTERS_MOVED\",\"source\":"
		 "\"counters\",%s}",
		 fields);
	is_int(ibve_event_parse_json(l, strlen(l), &ev), -EINVAL, "%s: %s",
	       fields, why);
	if (!strstr(ibve_errmsg(), why))
		printf("#   said: %s\n", ibve_errmsg());
}

static void test_refused(void)
{
	char nine[512] = "\"phase\":\"before\",\"counters\":{";

	for (int i = 0; i < 9; i++)
		snprintf(nine + strlen(nine), sizeof(nine) - strlen(nine),
			 "%s\"c%d\":%d", i ? "," : "", i, 9 - i);
	strcat(nine, "}");
	refused("\"phase\":\"after\",\"counters\":{}", "before or since");
	refused("\"phase\":\"before\",\"counters\":[]", "must be an object");
	refused("\"phase\":\"before\"", "must be an object");
	refused("\"phase\":\"before\",\"counters\":{\"a\":0}", "1 or more");
	refused("\"phase\":\"before\",\"counters\":{\"a\":-1}", "1 or more");
	refused("\"phase\":\"before\",\"counters\":{\"a\":\"1\"}", "1 or more");
	refused("\"phase\":\"before\",\"counters\":{\"a b\":1}", "at most 8");
	refused("\"phase\":\"before\",\"counters\":{\"hw_counters/\":1}",
		"at most 8");
	refused(nine, "at most 8 names");
	refused("\"phase\":\"since\",\"counters\":{},\"sample_us\":-1",
		"out of range");
}

/*
 * The CPU a sample of one port takes (the goal: at most 1 ms),
 * on the stored trees: soft-RoCE's (10 error counters of 15 files) and an
 * InfiniBand port's counters/ (12 of 21).
 */
static void test_cost(const char *dir)
{
	struct ibve_counter *v;
	size_t n = ibve_counters_find(dir, &v);
	struct timespec a, b;
	const int rounds = 2000;
	double us;

	ibve_counters_read(dir, v, n, 0, true, NULL);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (int i = 0; i < rounds; i++)
		ibve_counters_read(dir, v, n, 0, false, NULL);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	us = ibve_ts_secs(&a, &b) * 1e6 / rounds;
	ok(us < 1000, "a sample of %s's %zu counters: %.1f us of CPU (< 1 ms)",
	   dir, n, us);
	free(v);
}

int main(void)
{
	test_find();
	test_read();
	test_record();
	test_refused();
	test_cost("test/sysfs/rxe-counters");
	test_cost("test/sysfs/ib-counters");
	return done_testing();
}
