// SPDX-License-Identifier: MIT
/*
 * ibv_eventwatch --check: the ports of this host against what is expected,
 * once, from sysfs alone (no device is opened, no counter read), with the
 * history of a capture or of the running watcher's state. The first line
 * is short enough for a scheduler's drain reason.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "common.h"
#include "watch.h"

/*
 * The first line: a Slurm drain reason, and with --brief the whole output,
 * a node problem detector's condition message (it keeps 80 by default).
 */
#define REASON_MAX 60

/* Selected, and not excluded by the spec either. */
static bool selected(const struct watch *w, const char *dev)
{
	const char *globs[64];
	size_t n = ibve_check_excludes(w->spec, globs, 64);
	bool want = watch_selected(dev, (void *)&w->c);

	for (size_t i = 0; i < n && i < 64; i++)
		want &= fnmatch(globs[i], dev, 0) != 0;
	return want;
}

/* The selected devices' rows, read from sysfs; how many devices. */
static int add_devices(const struct watch *w, struct ibve_ports *t)
{
	DIR *d;
	struct dirent *e;
	int n = 0;

	for (size_t i = 0; i < w->c.nnames; i++) {
		char path[512];

		snprintf(path, sizeof(path), "/sys/class/infiniband/%s",
			 w->c.names[i]);
		if (access(path, F_OK)) {
			ibve_device_unknown(w->c.names[i]);
			cmd_fail();
			return -ENODEV;
		}
	}
	d = opendir("/sys/class/infiniband");
	while (d && n >= 0 && (e = readdir(d)))
		if (e->d_name[0] != '.' && selected(w, e->d_name))
			n = ibve_ports_add_device(t, e->d_name, 0) == -ENOMEM
				    ? -ENOMEM
				    : n + 1;
	if (d)
		closedir(d);
	return n;
}

/* The capture's records into T: its history. An exit status. */
static int read_capture(const struct watch *w, struct ibve_ports *t)
{
	struct ibve_source_opts so = { .sz = sizeof(so), .path = w->c.replay };
	struct ibve_run_opts ro = { .sz = sizeof(ro) };
	struct ibve_pipeline *p = NULL;
	struct ibve_sink *s;
	int status = EXIT_OK;

	if (ibve_pipeline_new(&p))
		return cmd_fail();
	ibve_pipeline_set_notes(p, cmd_notes, NULL); /* heard while it runs */
	if (ibve_pipeline_add_source(p, "replay", &so) ||
	    cmd_exclude(p, &w->c) || ibve_sink_ports(&s, t) ||
	    ibve_pipeline_add_sink(p, s, 0) || ibve_pipeline_start(p) ||
	    ibve_pipeline_run(p, &ro) < 0)
		status = cmd_fail();
	else if (ibve_pipeline_bad_input(p))
		status = EXIT_BAD_INPUT;
	ibve_pipeline_free(p);
	return status;
}

static void port_name(char *buf, size_t size,
		      const struct ibve_check_problem *p)
{
	if (p->port)
		snprintf(buf, size, "%s/%u", p->device, p->port);
	else
		snprintf(buf, size, "%s", p->device);
}

static int report(const struct watch *w, const struct ibve_ports *t,
		  const struct ibve_check_problem *p, size_t n, int ndev)
{
	char first[REASON_MAX + 1] = "", name[IBVE_NAME_MAX + 16];
	struct ibve_buf reason = { first, sizeof(first), 0 };

	/* the first line, cut: "rxe0/1 DOWN (+2 more)" */
	if (n)
		port_name(name, sizeof(name), p);
	if (!ndev)
		ibve_buf_puts(&reason, "no RDMA devices");
	else if (n > 1)
		ibve_buf_printf(&reason, "%s %s (+%zu more)", name, p->brief,
				n - 1);
	else if (n)
		ibve_buf_printf(&reason, "%s %s", name, p->brief);
	if (w->json) {
		char out[65536];
		struct ibve_buf b = { out, sizeof(out), 0 };
		struct ibve_json j;

		ibve_json_init(&j, &b);
		ibve_json_open(&j, NULL);
		ibve_json_bool(&j, "healthy", !first[0]);
		ibve_json_str_or_null(&j, "reason", first);
		ibve_json_uint(&j, "ports", ibve_ports_count(t));
		ibve_json_open_array(&j, "problems");
		for (size_t i = 0; i < n; i++) {
			ibve_json_open(&j, NULL);
			ibve_json_str(&j, "device", p[i].device);
			ibve_json_uint_or_null(&j, "port", p[i].port);
			ibve_json_str(&j, "brief", p[i].brief);
			ibve_json_str(&j, "what", p[i].what);
			ibve_json_close(&j);
		}
		ibve_json_close_array(&j);
		ibve_json_close(&j);
		ibve_buf_putc(&b, '\n');
		fwrite(out, 1, ibve_buf_end(&b) < sizeof(out) ? b.len : 0,
		       stdout);
	} else if (first[0]) {
		printf("%s\n", first);
		for (size_t i = 0; !w->brief && i < n; i++) {
			port_name(name, sizeof(name), &p[i]);
			printf("%s: %s\n", name, p[i].what);
		}
	}
	if (fflush(stdout)) {
		cmd_error("write to standard output: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return first[0] ? EXIT_NOT_MET : EXIT_OK;
}

int watch_check(struct watch *w)
{
	struct ibve_ports *t = NULL;
	const struct ibve_check_problem *p;
	struct timespec now, from;
	double since = w->since ? w->since : 600;
	int status = EXIT_OK, ndev, r = 0;
	size_t n;

	if (ibve_ports_new(&t, IBVE_PORTS_SYSFS))
		return cmd_fail();
	/* the watcher's state first: its ports' health goes to their rows */
	if (w->state)
		r = ibve_metrics_load(t, w->state);
	if (r < 0) {
		status = cmd_fail();
		goto out;
	}
	if (r == 1) /* another boot's: said, and gone on with */
		cmd_error("%s", ibve_errmsg());
	ibve_ports_set_flap_window(t, since);
	ndev = add_devices(w, t);
	if (ndev < 0) { /* a missing device is said; say out of memory too */
		status = ndev == -ENOMEM ? cmd_fail() : EXIT_RUNTIME;
		goto out;
	}
	if (w->c.replay && (status = read_capture(w, t)) != EXIT_OK &&
	    status != EXIT_BAD_INPUT)
		goto out;
	/* --sm: the peers of peer= terms, asked of the SA */
	if (cmd_asked(&w->c, "sm") && ibve_ports_lookup_peers(t)) {
		status = cmd_fail();
		goto out;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	ibve_ports_sample(t, &now);
	from = now;
	from.tv_sec -= (time_t)since;
	n = ibve_check_run(w->spec, t, w->c.replay || w->state ? &from : NULL,
			   &p);
	r = report(w, t, p, n, ndev);
	status = status == EXIT_BAD_INPUT && r == EXIT_OK ? status : r;
out:
	ibve_ports_free(t);
	return status;
}
