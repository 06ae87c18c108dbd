// SPDX-License-Identifier: MIT
/* The dashboard's model from events alone (no sysfs): rows, counts,
 * per-minute window, ages, order, reset; and which counters are errors. */
#include <stdlib.h>

#include "ibvevent.h"
#include "internal.h"
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
		ok(ibve_top_is_error_counter(yes[i]), "%s counts errors",
		   yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ok(!ibve_top_is_error_counter(no[i]), "%s does not", no[i]);
}

static const struct ibve_top_port *row(struct ibve_top *t, const char *dev,
				       uint32_t port)
{
	for (size_t i = 0; i < ibve_top_port_count(t); i++) {
		const struct ibve_top_port *p = ibve_top_port_at(t, i);

		if (strcmp(p->device, dev) == 0 && p->port == port)
			return p;
	}
	return NULL;
}

static void test_model(void)
{
	struct ibve_top *t = ibve_top_new(0);
	struct ibve_top_summary s;
	const struct ibve_top_port *p;
	struct ibve_event e;
	struct timespec now = { 1000, 0 };
	char cell[128];

	e = ev("mlx5_1", 2, 10, 900); /* PORT_ERR */
	ibve_top_event(t, &e);
	e = ev("mlx5_0", 1, 13, 950); /* SM_CHANGE */
	ibve_top_event(t, &e);
	e = ev("mlx5_1", 2, 9, 990); /* PORT_ACTIVE */
	ibve_top_event(t, &e);
	e = ev("mlx5_1", 0, 8, 995); /* DEVICE_FATAL: every port of it */
	ibve_top_event(t, &e);
	ibve_top_sample(t, &now);

	is_int(ibve_top_port_count(t), 2, "a row per (device, port) seen");
	is_str(ibve_top_port_at(t, 0)->device, "mlx5_0",
	       "rows in device order");
	p = row(t, "mlx5_1", 2);
	ok(p && p->counts[IBVE_TOP_LINK_DOWN] == 1 &&
		   p->counts[IBVE_TOP_LINK_UP] == 1 &&
		   p->counts[IBVE_TOP_FATAL] == 1 && p->total == 3,
	   "down, up and fatal counted on mlx5_1/2");
	is_str(p->state, "ACTIVE", "the state follows the last port event");
	is_str(p->last_event, "DEVICE_FATAL", "the last event");
	ok(p->last_age > 4.9 && p->last_age < 5.1, "its age: 5 s");
	is_int(p->per_minute, 2, "two in the last minute (900 s is older)");
	ibve_top_cell(p, IBVE_TOP_COL_AGE, cell, sizeof(cell));
	is_str(cell, "5s", "age cell");
	ibve_top_cell(p, IBVE_TOP_COL_DOWN, cell, sizeof(cell));
	is_str(cell, "1", "DOWN cell");
	ibve_top_cell(row(t, "mlx5_0", 1), IBVE_TOP_COL_AGE, cell,
		      sizeof(cell));
	is_str(cell, "50s", "age of the other row");

	ok(ibve_top_compare(row(t, "mlx5_0", 1), p, IBVE_TOP_COL_TOTAL) < 0,
	   "sort by total: 1 before 3");
	ok(ibve_top_compare(row(t, "mlx5_0", 1), p, IBVE_TOP_COL_DEVICE) < 0,
	   "sort by device");
	ok(ibve_top_compare(p, row(t, "mlx5_0", 1), IBVE_TOP_COL_AGE) < 0,
	   "sort by age: the fresher first");

	is_str(ibve_top_recent(t, 0)->name, "DEVICE_FATAL", "newest first");
	is_str(ibve_top_recent(t, 3)->name, "PORT_ERR", "oldest last");
	ok(!ibve_top_recent(t, 4), "no more than there were");

	ibve_top_summary(t, &s);
	ok(s.devices == 2 && s.ports == 2 && s.events == 4 && !s.host[0],
	   "summary: 2 devices, 2 ports, 4 events, no host for a capture");
	ok(s.uptime > 99.9 && s.uptime < 100.1,
	   "uptime runs from the capture's first event");

	ibve_top_reset(t);
	p = row(t, "mlx5_1", 2);
	ok(p->total == 0 && p->counts[IBVE_TOP_LINK_DOWN] == 0 &&
		   !p->last_event[0] && !ibve_top_recent(t, 0),
	   "reset zeroes the counts and the log");
	ibve_top_free(t);
}

static void test_formats(void)
{
	struct ibve_top *t = ibve_top_new(0);
	struct ibve_event e = ev("mlx5_0", 1, 10, 1000);
	struct timespec now = { 1010, 0 };
	char buf[4096];

	ibve_top_event(t, &e);
	ibve_top_sample(t, &now);
	ibve_top_format_text(t, NULL, ibve_top_port_count(t), buf, sizeof(buf));
	ok(strstr(buf, "\nDEVICE     PORT STATE  PHYS") &&
		   strstr(buf, "\nmlx5_0        1 DOWN "),
	   "text: titles and a row");
	ibve_top_format_json(t, NULL, ibve_top_port_count(t), buf, sizeof(buf));
	ok(strstr(buf, "\"counts\":{\"link_down\":1,") &&
		   strstr(buf, "\"last_event\":\"PORT_ERR\"") &&
		   strstr(buf, "\"host\":null"),
	   "JSON: counts, last event, no host");
	ok(ibve_top_format_json(t, NULL, 1, buf, 10) > 10 && strlen(buf) == 9,
	   "a short buffer gives the length needed");
	ibve_top_free(t);
}

/* Many rows in any order: found, kept in order; columns come and go. */
static void test_many(void)
{
	struct ibve_top *t = ibve_top_new(0);
	struct ibve_event e;
	bool sorted = true;
	char dev[16];

	for (int i = 0; i < 300; i++) {
		snprintf(dev, sizeof(dev), "mlx5_%d", (i * 37) % 150);
		e = ev(dev, (uint32_t)(i / 150 + 1), 10, 1000 + i);
		ibve_top_event(t, &e);
		ibve_top_event(t, &e);
	}
	is_int(ibve_top_port_count(t), 300, "300 rows from 300 ports");
	for (size_t i = 1; i < ibve_top_port_count(t); i++)
		sorted &= strcmp(ibve_top_port_at(t, i - 1)->device,
				 ibve_top_port_at(t, i)->device) <= 0;
	ok(sorted, "in device order");
	ok(row(t, "mlx5_149", 2) &&
		   row(t, "mlx5_149", 2)->counts[IBVE_TOP_LINK_DOWN] == 2,
	   "each row found again: two events each");
	e = ev("mlx5_7", 0, 8, 2000); /* DEVICE_FATAL */
	ibve_top_event(t, &e);
	ok(row(t, "mlx5_7", 1)->counts[IBVE_TOP_FATAL] == 1 &&
		   row(t, "mlx5_7", 2)->counts[IBVE_TOP_FATAL] == 1 &&
		   row(t, "mlx5_70", 1)->counts[IBVE_TOP_FATAL] == 0 &&
		   row(t, "mlx5_8", 1)->counts[IBVE_TOP_FATAL] == 0,
	   "a device-wide event reaches that device's ports only");

	ok(!ibve_top_column_visible(t, IBVE_TOP_COL_MODULE),
	   "no module event: no MODULE column");
	memset(&e, 0, sizeof(e));
	strcpy(e.device, "mlx5_3");
	e.port = 1;
	e.time.tv_sec = 2001;
	ibve_event_set_code(&e, IBVE_SOURCE_MLX5, IBVE_MLX5_PORT_MODULE);
	ibve_top_event(t, &e);
	ok(ibve_top_column_visible(t, IBVE_TOP_COL_MODULE),
	   "a module event: the MODULE column");
	ibve_top_remove_device(t, "mlx5_3");
	ok(!ibve_top_column_visible(t, IBVE_TOP_COL_MODULE) &&
		   ibve_top_port_count(t) == 298,
	   "its device gone, the column goes too");
	e.port = 2;
	strcpy(e.device, "mlx5_4");
	ibve_top_event(t, &e);
	ibve_top_reset(t);
	ok(!ibve_top_column_visible(t, IBVE_TOP_COL_MODULE),
	   "after a reset, too");
	ibve_top_free(t);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	test_error_counters();
	test_model();
	test_formats();
	test_many();
	return done_testing();
}
