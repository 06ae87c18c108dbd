// SPDX-License-Identifier: MIT
/* ibv_eventwatch's smaller parts: -l, and the syslog facilities by name. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "common.h"
#include "watch.h"

bool watch_selected(const char *dev, void *arg)
{
	const struct selection *s = arg;
	bool want = !s->nnames;

	for (size_t i = 0; i < s->nnames; i++)
		want |= strcmp(s->names[i], dev) == 0;
	for (size_t i = 0; i < s->nexclude; i++)
		want &= fnmatch(s->exclude[i], dev, 0) != 0;
	return want;
}

/* -l: every device (or those named) with its ports, text or JSON. */
int watch_list(const struct selection *sel, uint32_t port, bool json)
{
	const char *const *names = sel->names;
	size_t nnames = sel->nnames;
	struct ibve_device_info *list;
	int n = ibve_device_list_select(&list, watch_selected, (void *)sel);
	int status = EXIT_OK;

	if (n < 0)
		return cmd_fail();
	for (size_t k = 0; k < nnames; k++) {
		int i;

		for (i = 0; i < n && strcmp(list[i].name, names[k]); i++)
			;
		if (i == n) {
			cmd_error("device '%s': no such RDMA device", names[k]);
			status = EXIT_RUNTIME;
		}
	}
	if (n == 0 && status == EXIT_OK) {
		cmd_error("no RDMA devices found");
		status = EXIT_RUNTIME;
	}
	for (int i = 0; i < n && status == EXIT_OK; i++) {
		int r = ibve_device_print(stdout, &list[i], port, json);

		if (r) {
			if (r != -EPIPE)
				cmd_error("write to standard output: %s",
					  strerror(-r));
			status = r == -EPIPE ? EXIT_OK : EXIT_RUNTIME;
		}
	}
	ibve_device_list_free(list, (size_t)n);
	if (status == EXIT_OK && fflush(stdout) && errno != EPIPE) {
		cmd_error("write to standard output: %s", strerror(errno));
		status = EXIT_RUNTIME;
	}
	return status;
}

int watch_facility(const char *name)
{
	static const struct {
		const char *name;
		int value;
	} f[] = {
		{ "daemon", LOG_DAEMON },     { "user", LOG_USER },
		{ "local0", LOG_LOCAL0 },     { "local1", LOG_LOCAL1 },
		{ "local2", LOG_LOCAL2 },     { "local3", LOG_LOCAL3 },
		{ "local4", LOG_LOCAL4 },     { "local5", LOG_LOCAL5 },
		{ "local6", LOG_LOCAL6 },     { "local7", LOG_LOCAL7 },
		{ "syslog", LOG_SYSLOG },     { "auth", LOG_AUTH },
		{ "authpriv", LOG_AUTHPRIV },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strcmp(f[i].name, name) == 0)
			return f[i].value;
	return -1;
}
