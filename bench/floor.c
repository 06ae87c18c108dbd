// SPDX-License-Identifier: MIT
/*
 * floor: the storm benchmark's anchor. The same cq-overflow run as
 * `ibv_eventinject cq-overflow --events N`, same objects, same rounds,
 * but every event read with ibv_get_async_event() and acked, nothing
 * decoded: what the device and the kernel allow.
 *
 *   floor [-d DEVICE] EVENTS      prints: rate=R received=N seconds=S
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

int main(int argc, char **argv)
{
	struct ibve_inject_opts o = {
		.gid_index = -1, .timeout = 30, .cancel_fd = -1, .raw = true
	};
	struct ibve_inject_report r;
	char *end;
	int i = 1, status;

	if (argc == 4 && strcmp(argv[1], "-d") == 0) {
		o.device = argv[2];
		i = 3;
	}
	if (argc != i + 1) {
		fprintf(stderr, "usage: floor [-d DEVICE] EVENTS\n");
		return 2;
	}
	errno = 0;
	o.count = strtoul(argv[i], &end, 10);
	if (errno || *end || !o.count) {
		fprintf(stderr, "floor: invalid event count '%s'\n", argv[i]);
		return 2;
	}
	status = ibve_inject_run("cq-overflow", &o, &r);
	if (status) {
		fprintf(stderr, "floor: %s\n", r.error);
		return status;
	}
	printf("rate=%.1f received=%lu seconds=%.6f teardown=%s\n", r.rate,
	       r.received, r.seconds, r.teardown ? "ok" : "failed");
	return r.teardown ? 0 : 1;
}
