// SPDX-License-Identifier: MIT
/*
 * The replay's prefilter against the full path: a line the parser reads
 * and a filter passes must never be refused by the prefilter (which sees
 * only bytes). What it refuses of malformed lines is its own business:
 * those are not named (man ibv_eventwatch).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibvevent.h"
#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	const char *inc, *exc, *device;
} filters[] = {
	{ "PORT_ERR", NULL, NULL },
	{ "ibv_event_port_active", NULL, "rxe0" },
	{ "qp,cq", NULL, NULL },
	{ "severity>=error", NULL, NULL },
	{ "severity<info", NULL, NULL },
	{ "verbs", NULL, NULL },
	{ "kernel", NULL, NULL },
	{ "mlx5,hotplug", NULL, NULL },
	{ "device", "DEVICE_FATAL", NULL },
	{ "UNKNOWN(21)", NULL, NULL },
	{ "EVENTS_LOST", NULL, NULL },
	{ NULL, "port", NULL },
	{ NULL, NULL, "mlx5_0" },
	{ "sm", NULL, "mlx5_1" },
};

static struct ibve_filter *made[sizeof(filters) / sizeof(filters[0])];
/* with what each made of the identities seen before: the cache too */
static struct ibve_prefilter *pf[sizeof(filters) / sizeof(filters[0])];

static void make_filters(void)
{
	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		if (ibve_filter_new(&made[i]) ||
		    (filters[i].inc &&
		     ibve_filter_add_terms(made[i], filters[i].inc, false)) ||
		    (filters[i].exc &&
		     ibve_filter_add_terms(made[i], filters[i].exc, true)) ||
		    (filters[i].device &&
		     ibve_filter_add_device(made[i], filters[i].device)) ||
		    ibve_prefilter_new(&pf[i]))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct json_tokener *tok;
	const char *line = (const char *)data;
	struct ibve_event ev;
	char err[256];

	if (!made[0])
		make_filters();
	/* the reader hands out lines: no newline, no NUL inside */
	if (memchr(data, '\n', size) || memchr(data, '\0', size))
		return 0;
	if (ibve_parse_line(&tok, line, size, &ev, err, sizeof(err)))
		return 0;
	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++)
		if (ibve_filter_match(made[i], &ev) &&
		    !ibve_prefilter_line(pf[i], made[i], line, size)) {
			fprintf(stderr,
				"fuzz_prefilter: refused a line filter %zu passes: %.*s\n",
				i, (int)size, line);
			abort();
		}
	return 0;
}
