// SPDX-License-Identifier: MIT
/* Filter terms: every kind, include and exclude, devices, ports, errors. */
#include <errno.h>
#include <stdlib.h>

#include "ibvevent.h"
#include "tap.h"

static struct ibve_event mk(const char *dev, uint32_t port,
			    enum ibve_source src, int code)
{
	struct ibve_event ev;

	memset(&ev, 0, sizeof(ev));
	snprintf(ev.device, sizeof(ev.device), "%s", dev);
	ev.port = port;
	ibve_event_set_code(&ev, src, code);
	return ev;
}

static struct ibve_filter *filter_new(void)
{
	struct ibve_filter *f = NULL;

	if (ibve_filter_new(&f)) {
		printf("Bail out! ibve_filter_new: %s\n", ibve_errmsg());
		exit(1);
	}
	return f;
}

/* Does a filter built from INC / EXC accept EV? */
static bool passes(const char *inc, const char *exc,
		   const struct ibve_event *ev)
{
	struct ibve_filter *f = filter_new();
	bool r;

	if (inc && ibve_filter_add_terms(f, inc, false))
		printf("# include '%s': %s\n", inc, ibve_errmsg());
	if (exc && ibve_filter_add_terms(f, exc, true))
		printf("# exclude '%s': %s\n", exc, ibve_errmsg());
	r = ibve_filter_match(f, ev);
	ibve_filter_free(f);
	return r;
}

static void test_terms(void)
{
	struct ibve_event perr = mk("mlx5_0", 1, IBVE_SOURCE_VERBS, 10);
	struct ibve_event pact = mk("mlx5_0", 1, IBVE_SOURCE_VERBS, 9);
	struct ibve_event cqerr = mk("mlx5_0", 0, IBVE_SOURCE_VERBS, 0);
	struct ibve_event fatal = mk("mlx5_0", 0, IBVE_SOURCE_VERBS, 8);
	struct ibve_event unk = mk("mlx5_0", 0, IBVE_SOURCE_VERBS, 21);
	struct ibve_event added = mk("mlx5_0", 0, IBVE_SOURCE_HOTPLUG, 0);

	ok(passes(NULL, NULL, &perr), "an empty filter passes everything");
	ok(passes("PORT_ERR", NULL, &perr) && !passes("PORT_ERR", NULL, &pact),
	   "an event name includes that event only");
	ok(passes("port_err", NULL, &perr) &&
		   passes("IBV_EVENT_PORT_ERR", NULL, &perr) &&
		   passes("ibv_event_port_err", NULL, &perr),
	   "names in any case, with or without IBV_EVENT_");
	ok(passes("PORT_ACTIVE,PORT_ERR", NULL, &perr) &&
		   passes("PORT_ACTIVE, PORT_ERR", NULL, &pact),
	   "a comma list includes each (spaces allowed)");
	ok(passes("port", NULL, &perr) && passes("port", NULL, &pact) &&
		   !passes("port", NULL, &cqerr),
	   "a class includes its events");
	ok(passes("cq", NULL, &cqerr) && passes("device", NULL, &fatal) &&
		   passes("device", NULL, &added) &&
		   !passes("qp", NULL, &cqerr),
	   "classes cq and device");
	ok(passes("unknown", NULL, &unk) && passes("UNKNOWN(21)", NULL, &unk) &&
		   !passes("UNKNOWN(22)", NULL, &unk),
	   "unknown events by class or by UNKNOWN(n)");
	ok(passes("hotplug", NULL, &added) && !passes("hotplug", NULL, &perr) &&
		   passes("verbs", NULL, &perr),
	   "sources");
	ok(passes("severity>=error", NULL, &perr) &&
		   passes("severity>=error", NULL, &fatal) &&
		   !passes("severity>=error", NULL, &pact),
	   "severity>=error");
	ok(passes(">=warning", NULL, &unk) && !passes(">=warning", NULL, &pact),
	   ">=warning without the word severity");
	ok(passes("severity>warning", NULL, &perr) &&
		   !passes("severity>warning", NULL, &unk),
	   "severity>warning is strict");
	ok(passes("severity<=info", NULL, &pact) &&
		   !passes("severity<=info", NULL, &perr) &&
		   passes("severity<error", NULL, &unk) &&
		   !passes("severity<error", NULL, &perr),
	   "severity<= and <");
	ok(passes("severity=fatal", NULL, &fatal) &&
		   !passes("severity=fatal", NULL, &perr) &&
		   passes("fatal", NULL, &fatal) &&
		   passes("ERROR", NULL, &perr),
	   "severity= and bare severity names");
	ok(!passes(NULL, "PORT_ERR", &perr) && passes(NULL, "PORT_ERR", &pact),
	   "exclude drops the named event only");
	ok(!passes("port", "PORT_ACTIVE", &pact) &&
		   passes("port", "PORT_ACTIVE", &perr),
	   "exclude wins over include");
	ok(!passes(NULL, "severity<=info", &pact) &&
		   passes(NULL, "severity<=info", &perr),
	   "exclude by severity");
}

static void test_errors(void)
{
	static const char *const bad[] = {
		"PORT_ERRX",
		"",
		"PORT_ERR,",
		",PORT_ERR",
		"severity>=loud",
		"severity=>error",
		"UNKNOWN(x)",
		"UNKNOWN(-1)",
		"UNKNOWN(1",
		"severity",
		">=",
		"a,,b",
	};
	struct ibve_filter *f = filter_new();

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ibve_error(EINVAL, "%s", "");
		is_int(ibve_filter_add_terms(f, bad[i], false), -EINVAL,
		       "'%s' is refused", bad[i]);
		ok(ibve_errmsg()[0] != '\0', "  with a reason: %s",
		   ibve_errmsg());
	}
	ok(ibve_filter_add_terms(f, "PORT_ERRX", false) == -EINVAL &&
		   strstr(ibve_errmsg(), "'PORT_ERRX'"),
	   "the reason names the bad term");
	ok(ibve_filter_is_empty(f), "refused terms leave the filter as it was");
	ibve_filter_free(f);
}

static void test_devices_ports(void)
{
	struct ibve_filter *f = filter_new();
	struct ibve_event a1 = mk("mlx5_0", 1, IBVE_SOURCE_VERBS, 10);
	struct ibve_event a2 = mk("mlx5_0", 2, IBVE_SOURCE_VERBS, 10);
	struct ibve_event b1 = mk("mlx5_1", 1, IBVE_SOURCE_VERBS, 10);
	struct ibve_event adev = mk("mlx5_0", 0, IBVE_SOURCE_VERBS, 8);

	ibve_filter_add_device(f, "mlx5_0");
	ok(ibve_filter_match(f, &a1) && !ibve_filter_match(f, &b1),
	   "a device set keeps that device only");
	ibve_filter_add_port(f, 1);
	ok(ibve_filter_match(f, &a1) && !ibve_filter_match(f, &a2),
	   "a port set keeps that port only");
	ok(ibve_filter_match(f, &adev),
	   "events about no single port pass the port test");
	ibve_filter_add_port(f, 2);
	ok(ibve_filter_match(f, &a2), "ports add up");
	ibve_filter_add_device(f, "mlx5_1");
	ok(ibve_filter_match(f, &b1), "devices add up");
	ok(!ibve_filter_is_empty(f), "a filter with devices is not empty");
	ok(ibve_filter_add_device(f,
				  "0123456789012345678901234567890123456789"
				  "0123456789012345678901234") == -ENAMETOOLONG,
	   "a device name longer than the record holds is refused");
	ibve_filter_free(f);
}

int main(void)
{
	test_terms();
	test_errors();
	test_devices_ports();
	return done_testing();
}
