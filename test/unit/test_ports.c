// SPDX-License-Identifier: MIT
/*
 * The port table from events alone (no sysfs): rows, counts, the
 * per-minute window, ages, order, presence, reset; which counters are
 * errors.
 */
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

int main(void)
{
	setenv("TZ", "UTC", 1);
	test_error_counters();
	test_model();
	test_kinds();
	test_many();
	return done_testing();
}
