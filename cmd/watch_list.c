// SPDX-License-Identifier: MIT
/*
 * ibv_eventwatch's smaller parts: -l, --list-events, and syslog's
 * facilities by name and its socket.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "buf.h"
#include "common.h"
#include "watch.h"

bool watch_selected(const char *dev, void *arg)
{
	const struct cmd_shared *s = arg;
	bool want = !s->nnames;

	for (size_t i = 0; i < s->nnames; i++)
		want |= strcmp(s->names[i], dev) == 0;
	for (size_t i = 0; i < s->nexclude; i++)
		want &= fnmatch(s->exclude[i], dev, 0) != 0;
	return want;
}

/*
 * -l: every device (or those named) with its ports, text or JSON; with
 * --sm each InfiniBand port's peer, asked of the subnet administrator, and
 * the devices only libibumad offers (a simulator's); each RoCE port's LLDP
 * neighbour, asked of lldpd.
 */
int watch_list(const struct cmd_shared *sel, bool json)
{
	struct ibve_device_info *list;
	int n = ibve_device_list_select(&list, watch_selected, (void *)sel);
	int status = EXIT_OK, lldp;

	/* no verbs at all, but management devices (a simulator's) */
	if (n == -ENOSYS && cmd_asked(sel, "sm")) {
		list = NULL;
		n = 0;
	}
	if (n >= 0 && cmd_asked(sel, "sm")) {
		int m = ibve_device_list_peers(&list, (size_t)n, watch_selected,
					       (void *)sel);

		if (m < 0) {
			ibve_device_list_free(list, (size_t)n);
			return cmd_fail();
		}
		n = m;
	}
	if (n < 0)
		return cmd_fail();
	/* each RoCE port's LLDP neighbour, when lldpd can say it */
	lldp = ibve_device_list_lldp(list, (size_t)n);
	if (lldp && lldp != -ELIBACC && lldp != -ENOTSUP && lldp != -ENOENT)
		cmd_error("peers of RoCE ports are unknown: %s", ibve_errmsg());
	for (size_t k = 0; k < sel->nnames; k++) {
		int i;

		for (i = 0; i < n && strcmp(list[i].name, sel->names[k]); i++)
			;
		if (i == n) {
			ibve_device_unknown(sel->names[k]);
			status = cmd_fail();
		}
	}
	if (n == 0 && status == EXIT_OK) {
		cmd_error("no RDMA devices found");
		status = EXIT_RUNTIME;
	}
	for (int i = 0; i < n && status == EXIT_OK; i++) {
		int r = ibve_device_print(stdout, &list[i], sel->port, json);

		if (r && r != -EPIPE) { /* the reader gone: no failure */
			cmd_error("write to standard output: %s", strerror(-r));
			status = EXIT_RUNTIME;
		}
	}
	ibve_device_list_free(list, (size_t)n);
	if (status == EXIT_OK && fflush(stdout) && errno != EPIPE) {
		cmd_error("write to standard output: %s", strerror(errno));
		status = EXIT_RUNTIME;
	}
	return status;
}

/* One row of the table as a JSON object on a line. */
static void event_json(const struct ibve_event_desc *d)
{
	char out[1024];
	struct ibve_buf b = { out, sizeof(out), 0 };
	struct ibve_json j;

	ibve_json_init(&j, &b);
	ibve_json_open(&j, NULL);
	ibve_json_str(&j, "name", d->name);
	ibve_json_str(&j, "source", ibve_source_name(d->source));
	ibve_json_int(&j, "code", d->code);
	ibve_json_str(&j, "class", ibve_class_name(d->cls));
	ibve_json_str(&j, "severity", ibve_severity_name(d->severity));
	ibve_json_bool(&j, "affiliated", d->affiliated);
	ibve_json_str(&j, "meaning", d->text);
	ibve_json_str(&j, "message_id", d->message_id);
	ibve_json_close(&j);
	ibve_buf_putc(&b, '\n');
	fwrite(out, 1, ibve_buf_end(&b) < sizeof(out) ? b.len : 0, stdout);
}

int watch_list_events(bool json)
{
	const struct ibve_event_desc *d;

	if (!json)
		printf("%-20s %-8s %-7s %-8s %s\n", "EVENT", "SOURCE", "CLASS",
		       "SEVERITY", "MEANING");
	for (size_t i = 0; (d = ibve_event_desc_at(i)); i++) {
		if (json)
			event_json(d);
		else
			printf("%-20s %-8s %-7s %-8s %s\n", d->name,
			       ibve_source_name(d->source),
			       ibve_class_name(d->cls),
			       ibve_severity_name(d->severity), d->text);
	}
	if (fflush(stdout) && errno != EPIPE) {
		cmd_error("write to standard output: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
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

int watch_syslog_ready(void)
{
	static const int types[] = { SOCK_DGRAM, SOCK_STREAM };
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int err = 0;

	/* where syslog(3) sends: a daemon must be there to take it */
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", _PATH_LOG);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		int fd = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -errno;
		err = connect(fd, (struct sockaddr *)&a, sizeof(a)) ? errno : 0;
		close(fd);
		if (err != EPROTOTYPE)
			break;
	}
	if (err)
		cmd_error("--syslog: no syslog daemon at %s (%s)", _PATH_LOG,
			  strerror(err));
	return -err;
}
