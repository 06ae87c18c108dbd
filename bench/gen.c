// SPDX-License-Identifier: MIT
/*
 * gen: a synthetic capture in ibv_eventwatch's JSON Lines, for bench/.
 *
 *   gen EVENTS PORTS SECONDS
 *
 * EVENTS records over PORTS ports (mlx5_0 port 1, port 2, mlx5_1 ...),
 * spread evenly over SECONDS of capture time. The first record of each
 * port is its PORT_ACTIVE, all at the first instant, so the dashboard has
 * every row from the start. After that about one record in eight is a
 * PORT_ERR, and the word is in no other: `grep -c PORT_ERR` counts exactly
 * what `-e PORT_ERR` passes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "ibvevent.h"

static unsigned long arg(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || !v) {
		fprintf(stderr, "gen: invalid %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	/* the mix: port events mostly, some of the application's own */
	static const int mix[8] = {
		IBV_EVENT_PORT_ERR,    IBV_EVENT_PORT_ACTIVE,
		IBV_EVENT_GID_CHANGE,  IBV_EVENT_LID_CHANGE,
		IBV_EVENT_PKEY_CHANGE, IBV_EVENT_CLIENT_REREGISTER,
		IBV_EVENT_CQ_ERR,      IBV_EVENT_QP_LAST_WQE_REACHED,
	};
	unsigned long events, ports, seconds;
	long long step_ns, t0 = 1772409600LL * 1000000000LL; /* 2026-03-02 */
	char line[1024];

	if (argc != 4) {
		fprintf(stderr, "usage: gen EVENTS PORTS SECONDS\n");
		return 2;
	}
	events = arg(argv[1], "event count");
	ports = arg(argv[2], "port count");
	seconds = arg(argv[3], "seconds");
	step_ns = (long long)(seconds * 1000000000.0 / (double)events);
	for (unsigned long i = 0; i < events; i++) {
		unsigned long p = i % ports;
		long long t = t0 + (long long)(i < ports ? 0 : i) * step_ns;
		struct ibve_event ev;
		size_t n;

		memset(&ev, 0, sizeof(ev));
		ev.time.tv_sec = (time_t)(t / 1000000000LL);
		ev.time.tv_nsec = (long)(t % 1000000000LL);
		snprintf(ev.device, sizeof(ev.device), "mlx5_%lu", p / 2);
		ev.node_guid = 0xb8cef60300a10000ull + p / 2;
		ibve_event_set_code(&ev, IBVE_SOURCE_VERBS,
				    i < ports ? IBV_EVENT_PORT_ACTIVE
					      : mix[(i / ports + p) % 8]);
		if (ev.cls == IBVE_CLASS_PORT) {
			ev.port = (uint32_t)(p % 2 + 1);
		} else if (ev.cls == IBVE_CLASS_QP) {
			ev.qp_num = (uint32_t)(0x100 + i % 4096);
			ev.handle = (uint32_t)(i % 97);
			ev.fields = IBVE_FIELD_QP_NUM | IBVE_FIELD_HANDLE;
		} else {
			ev.handle = (uint32_t)(i % 97);
			ev.fields = IBVE_FIELD_HANDLE;
		}
		n = ibve_event_format_json(&ev, line, sizeof(line));
		if (n >= sizeof(line) || fwrite(line, 1, n, stdout) != n) {
			perror("gen: write");
			return 1;
		}
	}
	if (fflush(stdout)) {
		perror("gen: write");
		return 1;
	}
	return 0;
}
