// SPDX-License-Identifier: MIT
/*
 * ibv_eventtop's view of the port table (cmd/top_view.c): cells, the
 * order of rows, which columns show, and the batch table and JSON.
 */
#include <stdlib.h>
#include <unistd.h>

#include "buf.h"
#include "tap.h"
#include "top.h"

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

static const struct ibve_port_row *row(const struct view *v, const char *dev,
				       uint32_t port)
{
	for (size_t i = 0; i < ibve_ports_count(v->ports); i++) {
		const struct ibve_port_row *p = ibve_ports_at(v->ports, i);

		if (strcmp(p->device, dev) == 0 && p->port == port)
			return p;
	}
	return NULL;
}

/* The devices of the rows shown, in order: "mlx5_0/1 mlx5_1/2". */
static const char *shown(struct view *v)
{
	static char s[256];
	size_t n = 0;

	top_order(v);
	s[0] = '\0';
	for (size_t i = 0; i < v->norder && n < sizeof(s); i++) {
		const struct ibve_port_row *p =
			ibve_ports_at(v->ports, v->order[i]);

		n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%s/%u",
				      i ? " " : "", p->device, p->port);
	}
	return s;
}

/* What top_print writes, from a temporary file in place of stdout. */
static const char *printed(struct view *v)
{
	static char s[8192];
	FILE *f = tmpfile();
	int saved = dup(STDOUT_FILENO);
	size_t n = 0;

	fflush(stdout);
	if (!f || saved < 0 || dup2(fileno(f), STDOUT_FILENO) < 0)
		return "";
	if (top_print(v))
		s[0] = '\0';
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(f);
	n = fread(s, 1, sizeof(s) - 1, f);
	s[n] = '\0';
	fclose(f);
	return s;
}

static const char *printed_json(struct view *v)
{
	const char *s;

	v->json = true;
	s = printed(v);
	v->json = false;
	return s;
}

static void setup(struct view *v)
{
	struct ibve_event e;
	struct timespec now = { 1000, 0 };

	memset(v, 0, sizeof(*v));
	v->psort = PCOL_AGE; /* as the command starts */
	if (ibve_ports_new(&v->ports, 0) || ibve_filter_new(&v->filter)) {
		printf("Bail out! %s\n", ibve_errmsg());
		exit(1);
	}
	e = ev("mlx5_1", 2, 10, 900); /* PORT_ERR */
	ibve_ports_event(v->ports, &e);
	e = ev("mlx5_0", 1, 13, 950); /* SM_CHANGE */
	ibve_ports_event(v->ports, &e);
	e = ev("mlx5_1", 2, 9, 990); /* PORT_ACTIVE */
	ibve_ports_event(v->ports, &e);
	e = ev("mlx5_1", 0, 8, 995); /* DEVICE_FATAL */
	ibve_ports_event(v->ports, &e);
	ibve_ports_sample(v->ports, &now);
}

static void teardown(struct view *v)
{
	ibve_ports_free(v->ports);
	ibve_filter_free(v->filter);
	free(v->events.v);
	free(v->order);
	free(v->porder);
	free(v->out);
}

static void test_cells(void)
{
	struct view v;
	char cell[128];
	const struct ibve_port_row *p;

	setup(&v);
	p = row(&v, "mlx5_1", 2);
	top_cell(p, COL_AGE, cell, sizeof(cell));
	is_str(cell, "5s", "age cell");
	top_cell(p, COL_DOWN, cell, sizeof(cell));
	is_str(cell, "1", "DOWN cell");
	top_cell(p, COL_FATAL, cell, sizeof(cell));
	is_str(cell, "1", "FATAL cell");
	top_cell(p, COL_LAST, cell, sizeof(cell));
	is_str(cell, "DEVICE_FATAL", "LAST EVENT cell");
	top_cell(row(&v, "mlx5_0", 1), COL_AGE, cell, sizeof(cell));
	is_str(cell, "50s", "age of the other row");
	top_cell(p, COL_COUNTERS, cell, sizeof(cell));
	is_str(cell, "-", "no counter moved");
	is_int(top_cell(p, COL_LAST, cell, 4), 12,
	       "a short buffer: the length needed");
	is_str(cell, "DEV", "  and what fits");
	teardown(&v);
}

/* The counters cell, the table's and the screen's: resets, most first. */
static void test_moved(void)
{
	struct ibve_counter k[] = {
		{ .name = "link_downed", .delta = 1 },
		{ .name = "send_err", .delta = 5 },
		{ .name = "symbol_error" },
	};
	struct ibve_port_row p = { .counter_count = 3,
				   .counters = k,
				   .moved = 2,
				   .counter_resets = 2 };
	const struct ibve_counter **v;
	char cell[128];
	struct ibve_buf b = { cell, sizeof(cell), 0 };
	size_t n;

	v = top_moved(&p, &b, &n);
	ibve_buf_end(&b);
	is_str(cell, "[2 resets] ", "the resets first");
	is_int(n, 2, "the two that moved");
	ok(n == 2 && v[0] == &k[1] && v[1] == &k[0], "  most first");
	free(v);
	top_cell(&p, COL_COUNTERS, cell, sizeof(cell));
	is_str(cell, "[2 resets] send_err+5 link_downed+1", "the cell");
	p.moved = 0;
	p.counter_resets = 1;
	top_cell(&p, COL_COUNTERS, cell, sizeof(cell));
	is_str(cell, "[1 reset] -", "a reset, none moved since");
}

static void test_order(void)
{
	struct view v;

	setup(&v);
	v.sort = COL_DEVICE;
	is_str(shown(&v), "mlx5_0/1 mlx5_1/2", "sort by device");
	v.sort = COL_TOTAL;
	v.invert = true;
	is_str(shown(&v), "mlx5_1/2 mlx5_0/1", "by total, inverted: 3 first");
	v.invert = false;
	v.sort = COL_AGE;
	is_str(shown(&v), "mlx5_1/2 mlx5_0/1", "by age: the fresher first");
	v.sort = COL_SM;
	is_str(shown(&v), "mlx5_1/2 mlx5_0/1", "by a kind's count");
	strcpy(v.name_filter, "5_0");
	is_str(shown(&v), "mlx5_0/1", "/ keeps names that contain it");
	v.name_filter[0] = '\0';
	ibve_filter_add_port(v.filter, 2);
	is_str(shown(&v), "mlx5_1/2", "-i keeps that port");
	teardown(&v);
}

/* A speed change of DEV to RATE at T: the row's rate. */
static void set_rate(struct view *v, const char *dev, const char *rate,
		     time_t t)
{
	struct ibve_event e = ev(dev, 0, 20, t); /* DEVICE_SPEED_CHANGE */

	e.verbs.nrates = 1;
	e.verbs.rates[0].port = 1;
	strcpy(e.verbs.rates[0].old_rate, "-");
	snprintf(e.verbs.rates[0].new_rate, sizeof(e.verbs.rates[0].new_rate),
		 "%s", rate);
	e.fields |= IBVE_FIELD_RATES;
	ibve_ports_event(v->ports, &e);
}

/* RATE sorts by the number, though "100G" < "10G" < "2.5G" as text. */
static void test_order_rate(void)
{
	struct view v;
	char cell[32];

	setup(&v);
	set_rate(&v, "mlx5_0", "100 Gb/sec (4X EDR)", 960);
	set_rate(&v, "mlx5_2", "2.5 Gb/sec (1X SDR)", 970);
	set_rate(&v, "mlx5_3", "10 Gb/sec (4X SDR)", 980);
	top_cell(row(&v, "mlx5_2", 1), COL_RATE, cell, sizeof(cell));
	is_str(cell, "2.5G", "RATE cell");
	v.sort = COL_RATE;
	is_str(shown(&v), "mlx5_1/2 mlx5_2/1 mlx5_3/1 mlx5_0/1",
	       "by rate: none, then 2.5, 10 and 100 Gb/s");
	v.invert = true;
	is_str(shown(&v), "mlx5_0/1 mlx5_3/1 mlx5_2/1 mlx5_1/2",
	       "by rate, inverted");
	teardown(&v);
}

static void test_columns(void)
{
	struct view v;
	struct ibve_event e;

	setup(&v);
	ok(top_col_visible(&v, COL_DOWN) && !top_col_visible(&v, COL_MODULE) &&
		   !top_col_visible(&v, COL_TEMP) &&
		   !top_col_visible(&v, COL_SUBNET),
	   "no module, temperature or subnet event: no such column");
	memset(&e, 0, sizeof(e));
	strcpy(e.device, "mlx5_3");
	e.port = 1;
	e.time.tv_sec = 1001;
	ibve_event_set_code(&e, IBVE_SOURCE_MLX5, IBVE_MLX5_PORT_MODULE);
	ibve_ports_event(v.ports, &e);
	ok(top_col_visible(&v, COL_MODULE), "a module event: MODULE shows");
	ibve_ports_reset(v.ports);
	ok(!top_col_visible(&v, COL_MODULE), "after a reset, it goes");
	ok(!top_col_visible(&v, COL_COUNT), "no column past the last");
	is_str(top_columns[COL_ADDRESS].title, "LID/GID", "a title");
	is_str(top_column(COL_MODULE)->title, "MODULE",
	       "a kind's title, from the library's kinds");
	ok(top_column(COL_OTHER)->width ==
			   ibve_kind_info(IBVE_KIND_OTHER)->width &&
		   top_column(COL_DOWN)->f.off ==
			   offsetof(struct ibve_port_row, counts),
	   "its width, and its count the kind's");
	teardown(&v);
}

/* r: every count goes, the flaps too. */
static void test_reset(void)
{
	struct view v;
	struct timespec later = { 1001, 0 };
	const struct ibve_port_row *p;
	char cell[16];

	setup(&v);
	p = row(&v, "mlx5_1", 2);
	ok(p->flaps == 1 && p->flaps_window == 1, "down 90 s, then up: a flap");
	ibve_ports_reset(v.ports);
	ibve_ports_sample(v.ports, &later);
	top_cell(p, COL_FLAPS, cell, sizeof(cell));
	is_str(cell, "0", "after a reset, FLAPS 0");
	ok(!p->flaps && !p->total, "  the flaps and the counts alike");
	teardown(&v);
}

static void test_print(void)
{
	struct view v;
	const char *s;

	setup(&v);
	s = printed(&v);
	ok(strstr(s, "replay - up 00:01:40\n2 devices, 2 ports, 4 events") &&
		   strstr(s, "\nDEVICE     PORT STATE  PHYS") &&
		   strstr(s, "\nmlx5_1        2 ACTIVE ") &&
		   strstr(s, "\nmlx5_0        1 -      "),
	   "text: header, titles and rows");
	v.json = true;
	s = printed(&v);
	ok(strstr(s, "\"host\":null") && strstr(s, "\"events\":4") &&
		   strstr(s, "\"counts\":{\"link_down\":1,") &&
		   strstr(s, "\"last_event\":\"DEVICE_FATAL\"") &&
		   s[strlen(s) - 1] == '\n' && !strchr(s, '\n')[1],
	   "JSON: one line, summary, counts and the last event");
	teardown(&v);
}

/* A record of the kernel source: PID's (0: MODULE's) object of class CODE. */
static struct ibve_event owned(uint32_t pid, const char *who, int code,
			       time_t t)
{
	struct ibve_event e = ev("rxe0", 1, code, t);

	e.source = IBVE_SOURCE_KERNEL;
	if (pid) {
		e.kernel.pid = pid;
		snprintf(e.kernel.comm, sizeof(e.kernel.comm), "%s", who);
		snprintf(e.kernel.cgroup, sizeof(e.kernel.cgroup),
			 "/system.slice/slurmstepd.scope/job_%u/step_0", pid);
		e.fields |= IBVE_FIELD_OWNER;
	} else {
		snprintf(e.kernel.consumer, sizeof(e.kernel.consumer), "%s",
			 who);
		e.fields |= IBVE_FIELD_KERNEL;
	}
	return e;
}

static void test_procs(void)
{
	struct view v;
	struct ibve_event e;
	char text[2048];

	setup(&v);
	e = owned(0, "nvmet_rdma", 16, 960); /* QP_LAST_WQE_REACHED */
	top_procs_add(&v.procs, &e);
	e = owned(0, "nvmet_rdma", 16, 961);
	top_procs_add(&v.procs, &e);
	e = owned(42, "nccl-tests", 0, 970); /* CQ_ERR */
	top_procs_add(&v.procs, &e);
	e = owned(42, "nccl-tests", 1, 980); /* QP_FATAL */
	top_procs_add(&v.procs, &e);
	e = ev("rxe0", 1, 10, 985); /* PORT_ERR: no owner */
	top_procs_add(&v.procs, &e);
	is_int(v.procs.n, 2, "one row per owner and device: a module by name");
	top_procs_format(&v, text, sizeof(text));
	ok(strstr(text, "\n     42 nccl-tests      slurm job 42") != NULL &&
		   strstr(text, "     - [nvmet_rdma]") > strstr(text, " 42 "),
	   "newest first, the job named, a module in brackets");
	ok(strstr(text, "QP_FATAL             20s\n") != NULL,
	   "the last event and its age at the sample");
	if (!strstr(text, "QP_FATAL             20s\n"))
		printf("#   %s", text);
	top_procs_order(&v);
	is_int(v.nporder, 2, "both rows shown");
	ok(strstr(text, "    JOB          DEVICE") != NULL,
	   "JOB as wide as its widest cell, not 40");
	v.psort = PCOL_PID;
	top_procs_order(&v);
	ok(v.procs.v[v.porder[0]].pid == 0 && v.procs.v[v.porder[1]].pid == 42,
	   "sorted by PID: the module (no pid) first");
	v.pinvert = true;
	top_procs_order(&v);
	ok(v.procs.v[v.porder[0]].pid == 42, "  inverted");
	v.pinvert = false;
	v.psort = PCOL_TOTAL;
	strcpy(v.name_filter, "nvmet");
	top_procs_order(&v);
	ok(v.nporder == 1 && v.procs.v[v.porder[0]].pid == 0,
	   "the filter keeps the command that contains it");
	strcpy(v.name_filter, "job 42");
	top_procs_order(&v);
	ok(v.nporder == 1 && v.procs.v[v.porder[0]].pid == 42, "  or the job");
	strcpy(v.name_filter, "mlx5");
	top_procs_order(&v);
	is_int(v.nporder, 0, "  and nothing else");
	v.name_filter[0] = '\0';
	top_procs_reset(&v.procs);
	is_int(v.procs.n, 0, "r clears them");
	top_procs_free(&v.procs);
	teardown(&v);
}

/* A storm of one key (CQ_ERR of one CQ of one process): one row, its
 * events counted and its rate the same whether its records were one per
 * event or summaries. */
static void test_procs_storm(void)
{
	struct view v[2];
	struct timespec t0 = { 1000, 0 }, t1 = { 1002, 0 };
	char cell[64];

	for (int k = 0; k < 2; k++) {
		struct ibve_event e = owned(217, "ib_write_bw", 0, 999);

		setup(&v[k]);
		top_procs_add(&v[k].procs, &e); /* the first, alone */
		top_procs_sample(&v[k].procs, &t0);
		e.time.tv_sec = 1001;
		if (k) { /* a summary a second */
			e.fields |= IBVE_FIELD_SUMMARY;
			e.summary.count = 4000;
			e.summary.interval_us = 1000000;
			top_procs_add(&v[k].procs, &e);
			e.time.tv_sec = 1002;
			e.summary.count = 2000;
			top_procs_add(&v[k].procs, &e);
		} else {
			for (int i = 0; i < 6000; i++)
				top_procs_add(&v[k].procs, &e);
		}
		top_procs_sample(&v[k].procs, &t1);
	}
	for (int k = 0; k < 2; k++) {
		const struct top_proc *p = &v[k].procs.v[0];

		ok(v[k].procs.n == 1 && p->by_class[IBVE_CLASS_CQ] == 6001 &&
			   p->total == 6001,
		   "%s: one row, every event counted",
		   k ? "summaries" : "a record per event");
		top_proc_cell(&v[k], p, PCOL_RATE, cell, sizeof(cell));
		is_str(cell, "3000", "  its rate over the last interval");
	}
	top_procs_sample(&v[0].procs, &(struct timespec){ 1004, 0 });
	top_proc_cell(&v[0], &v[0].procs.v[0], PCOL_RATE, cell, sizeof(cell));
	is_str(cell, "0.0", "the storm over: 0.0 at the next interval");
	v[1].procs.v[0].per_second = 2.5;
	top_proc_cell(&v[1], &v[1].procs.v[0], PCOL_RATE, cell, sizeof(cell));
	is_str(cell, "2.5", "a slow rate with its tenths");
	top_procs_sample(&v[1].procs, &t1); /* no time passed: no rate */
	ok(v[1].procs.v[0].per_second == 0, "  and none over no time");
	v[1].procs.v[0].per_second = 3000;
	ok(strstr(printed_json(&v[1]),
		  "\"total\":6001,\"per_second\":3000.000,") != NULL,
	   "JSON: its rate after its total");
	/* another process's three events in the next interval */
	for (int i = 0; i < 3; i++) {
		struct ibve_event e = owned(301, "ibv_rc_pingpong", 0, 1004);

		top_procs_add(&v[0].procs, &e);
	}
	top_procs_sample(&v[0].procs, &(struct timespec){ 1005, 0 });
	v[0].psort = PCOL_RATE;
	top_procs_order(&v[0]);
	ok(v[0].nporder == 2 && v[0].procs.v[v[0].porder[0]].pid == 217 &&
		   v[0].procs.v[v[0].porder[1]].pid == 301,
	   "sorted by EV/S: the storm over (0/s) before 3/s");
	for (int k = 0; k < 2; k++) {
		top_procs_free(&v[k].procs);
		teardown(&v[k]);
	}
}

/* Processes coming and going for hours: the table keeps the newest. */
/* The log's I-th line as the screen's words: "count|watcher's text". */
static const char *log_text(struct view *v, size_t i)
{
	static char s[1024];
	const struct top_line *l = top_log_at(&v->events, i);
	struct ibve_event e;
	int n;

	if (!l)
		return "none";
	top_log_record(l, &e);
	n = snprintf(s, sizeof(s), "%llu|", (unsigned long long)l->count);
	ibve_event_format_text(&e, s + n, sizeof(s) - (size_t)n, 0);
	s[strcspn(s, "\n")] = '\0';
	return s;
}

static void test_log(void)
{
	struct view v;
	struct ibve_event up = ev("rxe0", 1, 9, 100), e;
	char line[512];
	uint64_t id;

	setup(&v);
	top_log_add(&v.events, &up); /* PORT_ACTIVE */
	/* a storm's first events, alone, another process's among them */
	for (int i = 0; i < 10; i++) {
		e = owned(217, "ib_write_bw", 0, 101);
		e.time.tv_nsec = i * 10000000;
		top_log_add(&v.events, &e);
	}
	e = owned(301, "ibv_rc_pingpong", 0, 101);
	e.time.tv_nsec = 500000000;
	top_log_add(&v.events, &e);
	top_log_add(&v.events, &e);
	is_int((int)v.events.n, 13, "records below a storm: a line each");
	id = top_log_at(&v.events, 2)->id;
	/* its first second's summary takes in its first events */
	e = owned(217, "ib_write_bw", 0, 102);
	e.fields |= IBVE_FIELD_SUMMARY;
	e.summary.count = 4000;
	e.summary.interval_us = 1000000;
	top_log_add(&v.events, &e);
	is_int((int)v.events.n, 4, "a summary: its storm one line");
	ok(strstr(log_text(&v, 0), "4010|") &&
		   strstr(log_text(&v, 0), "CQ_ERR               error   "
					   "storm: x4,010 in 1.0 s (pid 217"),
	   "  on top, the events of its records and summary");
	is_int((int)top_log_at(&v.events, 0)->id, (int)id,
	       "  the line its newest record had");
	is_int(top_log_find(&v.events, id, 2), 0, "  found where it went");
	top_log_record(top_log_at(&v.events, 0), &e);
	top_log_line(&e, line, sizeof(line));
	is_str(line,
	       "00:01:42 rxe0/1     CQ_ERR               storm: x4,010 in 1.0 s "
	       "ib_write_bw[217] slurm job 217: (pid 217 ib_write_bw "
	       "[slurm job 217])",
	       "  its line: the count first, then the owner and the details");
	is_int(top_log_find(&v.events, 9999, 2), 2, "a line gone: the place");
	is_int(top_log_find(&v.events, 9999, 7), 3, "  within the lines");
	ok(strstr(log_text(&v, 1), "1|") && strstr(log_text(&v, 2), "1|") &&
		   strstr(log_text(&v, 1), "pid 301") &&
		   strstr(log_text(&v, 3), "PORT_ACTIVE"),
	   "  below it the other process's, then the port's");
	/* a record of the storm joins its line; the storm ends */
	e = owned(217, "ib_write_bw", 0, 102);
	e.time.tv_nsec = 100000000;
	top_log_add(&v.events, &e);
	e = owned(217, "ib_write_bw", 0, 103);
	e.fields |= IBVE_FIELD_SUMMARY;
	e.summary.interval_us = 1000000;
	e.summary.end = true;
	top_log_add(&v.events, &e);
	is_int((int)v.events.n, 4, "the storm's records and its end: its line");
	ok(strstr(log_text(&v, 0), "4011|") &&
		   strstr(log_text(&v, 0), "storm over: 4,011 in 2.0 s"),
	   "  over: every event, from the first to its end");
	/* after it, a record of the key is alone again */
	e = owned(217, "ib_write_bw", 0, 103);
	top_log_add(&v.events, &e);
	is_int((int)v.events.n, 5, "a record after a storm ended: a line");
	/* a summary a second later: no earlier line of its key is near */
	e = owned(217, "ib_write_bw", 0, 106);
	e.fields |= IBVE_FIELD_SUMMARY;
	e.summary.count = 50;
	e.summary.interval_us = 1000000;
	top_log_add(&v.events, &e);
	is_int((int)v.events.n, 6, "a storm seconds after: a line of its own");
	/* the ring keeps the newest */
	for (int i = 0; i < TOP_LOG_MAX + 10; i++) {
		e = ev("rxe0", 1, i % 2 ? 9 : 10, 200 + i);
		top_log_add(&v.events, &e);
	}
	ok(v.events.n == TOP_LOG_MAX &&
		   top_log_at(&v.events, 0)->ev.time.tv_sec ==
			   200 + TOP_LOG_MAX + 9 &&
		   top_log_at(&v.events, TOP_LOG_MAX - 1)->ev.time.tv_sec ==
			   210 &&
		   !top_log_at(&v.events, TOP_LOG_MAX),
	   "the last TOP_LOG_MAX lines");
	top_log_reset(&v.events);
	ok(!top_log_at(&v.events, 0) && !top_log_find(&v.events, id, 3),
	   "reset: none");
	teardown(&v);
}

static void test_procs_bounded(void)
{
	struct top_procs t = { 0 };
	struct ibve_event e;
	bool first = false, last = false, again = false;

	for (uint32_t pid = 1; pid <= TOP_PROCS_MAX + 100; pid++) {
		e = owned(pid, "churn", 1, 1000 + pid);
		top_procs_add(&t, &e);
	}
	/* an owner still in the table counts on its own row */
	e = owned(TOP_PROCS_MAX + 100, "churn", 1, 5000);
	top_procs_add(&t, &e);
	for (size_t i = 0; i < t.n; i++) {
		first |= t.v[i].pid == 100;
		last |= t.v[i].pid == TOP_PROCS_MAX + 100;
		again |= t.v[i].pid == TOP_PROCS_MAX + 100 && t.v[i].total == 2;
	}
	is_int(t.n, TOP_PROCS_MAX, "at most TOP_PROCS_MAX rows");
	ok(!first && last, "the oldest made room for the newest");
	ok(again, "  and a row still there is counted on");
	top_procs_free(&t);
}

/* The titles of the columns laid out on WIDTH columns: "DEVICE PORT". */
static const char *laid_out(struct view *v, int width, int *more)
{
	static char s[512];
	struct top_span sp[TOP_MAX_COLS];
	size_t k, n = 0;

	top_order(v);
	k = top_layout(v, width, sp, more);
	s[0] = '\0';
	for (size_t i = 0; i < k && n < sizeof(s); i++) {
		if (sp[i].x + sp[i].w > width)
			return "a column past the edge";
		n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%.*s",
				      i ? "|" : "", sp[i].w,
				      top_table_title(v, sp[i].col));
	}
	return s;
}

/* The width of COL laid out on WIDTH columns; -1: not laid out. */
static int span_width(struct view *v, int width, int col)
{
	struct top_span sp[TOP_MAX_COLS];
	int more;
	size_t k;

	top_order(v);
	k = top_layout(v, width, sp, &more);
	for (size_t i = 0; i < k; i++)
		if (sp[i].col == col)
			return sp[i].w;
	return -1;
}

static void test_layout(void)
{
	struct ibve_event e;
	struct view v;
	int more;

	setup(&v);
	is_str(laid_out(&v, 80, &more),
	       "DEVICE|PORT|STATE|DOWN SINCE|FLAPS|LAST EVENT|AGE|TOTAL|EV/MIN",
	       "80 columns: what went wrong and when first");
	/* DOWN UP SM FATAL, ERROR COUNTERS MOVED, PHYS LINK RATE LID/GID */
	is_int(more, 9, "  9 more off to the right");
	is_str(laid_out(&v, 120, &more),
	       "DEVICE|PORT|STATE|DOWN SINCE|FLAPS|LAST EVENT|AGE|TOTAL|EV/MIN|"
	       "DOWN|UP|SM|FATAL",
	       "120: the counts that are not all 0 (no LID, PKEY, GID...)");
	is_int(more, 5, "  5 more off to the right");
	v.hscroll = 7;
	is_str(laid_out(&v, 80, &more),
	       "DEVICE|PORT|DOWN|UP|SM|FATAL|ERROR COUNTERS MOVED|PHYS|LINK|RATE",
	       "scrolled: device and port stay, the rest move");
	is_int(more, 1, "  LID/GID still to the right");
	v.hscroll = 100;
	is_str(laid_out(&v, 80, &more), "DEVICE|PORT|LID/GID",
	       "scrolled past the end: the last column stays");
	is_int(more, 0, "  nothing more");
	v.hscroll = 0;
	is_str(laid_out(&v, 30, &more), "DEVICE|PORT|STATE",
	       "narrow: whole columns only");
	is_str(laid_out(&v, 20, &more), "DEVICE|PORT|STAT",
	       "  but the first that scrolls, cut");
	is_int(more, 16,
	       "  which is off the right in part, and the 15 after it");
	v.sort = COL_RATE;
	v.sort_follow = true;
	top_show_sort(&v, 80);
	ok(strstr(laid_out(&v, 80, &more), "|RATE") && !v.sort_follow,
	   "the sort column scrolled into view");
	v.sort = COL_STATE;
	top_show_sort(&v, 80);
	is_int(v.hscroll, 0, "  and back");
	v.procs_view = true;
	v.hscroll = 0;
	is_str(laid_out(&v, 200, &more),
	       "PID|COMM|JOB|DEVICE|QP|CQ|SRQ|WQ|TOTAL|EV/S|LAST|AGE",
	       "the process view's own columns");
	v.procs_view = false;
	is_int(span_width(&v, 200, COL_TOTAL), 6, "TOTAL: its width");
	e = ev("mlx5_0", 1, 13, 999);
	e.fields |= IBVE_FIELD_SUMMARY; /* a storm's */
	e.summary.count = 1234567;
	ibve_ports_event(v.ports, &e);
	is_int(span_width(&v, 200, COL_TOTAL), 7, "  a cell wider: its width");
	is_int(span_width(&v, 200, COL_SM), 7, "  the count's too");
	teardown(&v);
}

/* A port event of DEV/PORT whose record names its peer NAME[PEER_PORT]. */
static struct ibve_event peered(const char *dev, uint32_t port,
				const char *name, uint32_t peer_port,
				bool changed, time_t t)
{
	struct ibve_event e = ev(dev, port, 9, t); /* PORT_ACTIVE */

	e.fields |= IBVE_FIELD_PEER;
	e.verbs.peer.kind = IBVE_PEER_IB;
	e.verbs.peer.state = IBVE_PEER_KNOWN;
	e.verbs.peer.node_type = IBVE_PEER_NODE_SWITCH;
	e.verbs.peer.guid = 0x0002c903000000a1ull;
	e.verbs.peer.port = peer_port;
	e.verbs.peer.changed = changed;
	snprintf(e.verbs.peer.name, sizeof(e.verbs.peer.name), "%s", name);
	return e;
}

static void test_peer(void)
{
	struct view v;
	struct ibve_event e;
	struct timespec now = { 1000, 0 };
	char cell[128], want[128];
	const char *s;
	int more;

	setup(&v);
	ok(!top_col_visible(&v, COL_PEER) && !strstr(printed(&v), "PEER"),
	   "no peer known: no PEER column");
	s = printed_json(&v);
	ok(strstr(s, "\"address\":\"-\",\"peer\":null,") != NULL,
	   "JSON: peer null while none is known");
	e = peered("mlx5_1", 2, "SwitchL", 2, false, 996);
	ibve_ports_event(v.ports, &e);
	e = peered("mlx5_2", 1, "", 7, false, 997); /* no NodeDescription */
	ibve_ports_event(v.ports, &e);
	e = peered("mlx5_0", 1, "", 0, false, 997);
	e.verbs.peer.state = IBVE_PEER_NONE; /* looked up: no SM */
	ibve_ports_event(v.ports, &e);
	ibve_ports_sample(v.ports, &now);
	ok(top_col_visible(&v, COL_PEER), "a peer known: PEER shows");
	top_cell(row(&v, "mlx5_1", 2), COL_PEER, cell, sizeof(cell));
	is_str(cell, "SwitchL[2]", "the peer in the watcher's words");
	top_cell(row(&v, "mlx5_2", 1), COL_PEER, cell, sizeof(cell));
	is_str(cell, "0x0002c903000000a1[7]", "  its GUID without a name");
	top_cell(row(&v, "mlx5_0", 1), COL_PEER, cell, sizeof(cell));
	is_str(cell, "-", "  none known: -");
	/* the port comes back on another switch port */
	e = peered("mlx5_1", 2, "SwitchL", 5, true, 998);
	ibve_ports_event(v.ports, &e);
	ibve_ports_sample(v.ports, &now);
	top_cell(row(&v, "mlx5_1", 2), COL_PEER, cell, sizeof(cell));
	is_str(cell, "now SwitchL[5]", "a changed peer is marked");
	s = printed(&v);
	snprintf(want, sizeof(want), " %-26s %-22s %10s ", "LID/GID", "PEER",
		 "DOWN SINCE");
	snprintf(cell, sizeof(cell), " %-26s %-22s %10s ", "-",
		 "now SwitchL[5]", "-");
	ok(strstr(s, want) && strstr(s, cell),
	   "batch text: PEER after LID/GID");
	s = printed_json(&v);
	ok(strstr(s, "\"peer\":{\"kind\":\"ib\",\"state\":\"known\","
		     "\"guid\":\"0002:c903:0000:00a1\",\"port\":5,"
		     "\"name\":\"SwitchL\",\"node_type\":\"switch\","
		     "\"changed\":true}") != NULL,
	   "JSON: the peer as records have it");
	is_str(laid_out(&v, 80, &more),
	       "DEVICE|PORT|STATE|DOWN SINCE|FLAPS|LAST EVENT|AGE|TOTAL|EV/MIN",
	       "80 columns: PEER is off to the right");
	ok(more, "  a Right away");
	is_str(laid_out(&v, 120, &more),
	       "DEVICE|PORT|STATE|DOWN SINCE|FLAPS|LAST EVENT|AGE|TOTAL|EV/MIN|"
	       "PEER|DOWN|UP|SM",
	       "120: PEER after EV/MIN");
	is_int(span_width(&v, 120, COL_PEER), 21,
	       "  as wide as its widest cell (a GUID's)");
	v.sort = COL_PEER;
	top_order(&v);
	is_str(shown(&v), "mlx5_2/1 mlx5_1/2 mlx5_0/1",
	       "sorted by peer: ports with none last");
	e = peered("mlx5_1", 2, "SwitchL", 5, false, 999);
	ibve_ports_event(v.ports, &e);
	top_cell(row(&v, "mlx5_1", 2), COL_PEER, cell, sizeof(cell));
	is_str(cell, "SwitchL[5]",
	       "the next record with the same peer: no mark");
	teardown(&v);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	test_cells();
	test_moved();
	test_order();
	test_order_rate();
	test_columns();
	test_reset();
	test_print();
	test_procs();
	test_procs_storm();
	test_procs_bounded();
	test_log();
	test_layout();
	test_peer();
	return done_testing();
}
