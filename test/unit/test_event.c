// SPDX-License-Identifier: MIT
/* The event table and decoding of verbs async events. */
#include <errno.h>
#include <infiniband/verbs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "source.h"
#include "tap.h"

#define main mktables_main
int mktables_main(int argc, char **argv);
#include "../../share/mktables.c"
#undef main

struct want {
	int code;
	const char *name;
	const char *cls;
	bool affiliated;
	const char *severity;
};

/* rdma-core 44: every value of enum ibv_event_type, by number. */
static const struct want verbs[] = {
	{ 0, "CQ_ERR", "cq", true, "error" },
	{ 1, "QP_FATAL", "qp", true, "error" },
	{ 2, "QP_REQ_ERR", "qp", true, "error" },
	{ 3, "QP_ACCESS_ERR", "qp", true, "error" },
	{ 4, "COMM_EST", "qp", true, "info" },
	{ 5, "SQ_DRAINED", "qp", true, "info" },
	{ 6, "PATH_MIG", "qp", true, "warning" },
	{ 7, "PATH_MIG_ERR", "qp", true, "error" },
	{ 8, "DEVICE_FATAL", "device", false, "fatal" },
	{ 9, "PORT_ACTIVE", "port", false, "info" },
	{ 10, "PORT_ERR", "port", false, "error" },
	{ 11, "LID_CHANGE", "port", false, "warning" },
	{ 12, "PKEY_CHANGE", "port", false, "warning" },
	{ 13, "SM_CHANGE", "port", false, "warning" },
	{ 14, "SRQ_ERR", "srq", true, "error" },
	{ 15, "SRQ_LIMIT_REACHED", "srq", true, "warning" },
	{ 16, "QP_LAST_WQE_REACHED", "qp", true, "info" },
	{ 17, "CLIENT_REREGISTER", "port", false, "warning" },
	{ 18, "GID_CHANGE", "port", false, "info" },
	{ 19, "WQ_FATAL", "wq", true, "error" },
};

static void test_table(void)
{
	size_t nverbs = 0, n;

	is_int(sizeof(verbs) / sizeof(verbs[0]), IBV_EVENT_WQ_FATAL + 1,
	       "the expectations cover every rdma-core event type");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		const struct want *w = &verbs[i];
		const struct ibve_event_desc *d =
			ibve_event_desc_find(IBVE_SOURCE_VERBS, w->code);

		if (!ok(d != NULL, "verbs code %d is known", w->code))
			continue;
		is_str(d->name, w->name, "code %d is %s", w->code, w->name);
		is_str(ibve_class_name(d->cls), w->cls, "%s: class %s", w->name,
		       w->cls);
		is_int(d->affiliated, w->affiliated, "%s: affiliated %d",
		       w->name, w->affiliated);
		is_str(ibve_severity_name(d->severity), w->severity,
		       "%s: severity %s", w->name, w->severity);
		ok(d->text && strlen(d->text) > 10 && !strchr(d->text, '\n'),
		   "%s: a one-line explanation", w->name);
		ok(ibve_event_desc_lookup(w->name) == d, "%s looks up by name",
		   w->name);
	}
	ok(ibve_event_desc_lookup("port_err") ==
		   ibve_event_desc_find(IBVE_SOURCE_VERBS, 10),
	   "lookup ignores case");
	ok(ibve_event_desc_lookup("IBV_EVENT_PORT_ERR") ==
		   ibve_event_desc_find(IBVE_SOURCE_VERBS, 10),
	   "lookup accepts the IBV_EVENT_ prefix");
	ok(ibve_event_desc_lookup("ibv_event_gid_change") ==
		   ibve_event_desc_find(IBVE_SOURCE_VERBS, 18),
	   "lookup accepts the prefix in any case");
	ok(!ibve_event_desc_lookup("PORT_ERRX") &&
		   !ibve_event_desc_lookup("") &&
		   !ibve_event_desc_lookup("IBV_EVENT_"),
	   "lookup refuses names that are not in the table");
	ok(!ibve_event_desc_find(IBVE_SOURCE_VERBS, 21) &&
		   !ibve_event_desc_find(IBVE_SOURCE_VERBS, -1),
	   "codes past the table are not known");

	for (n = 0; ibve_event_desc_at(n); n++) {
		const struct ibve_event_desc *d = ibve_event_desc_at(n);

		if (d->source == IBVE_SOURCE_VERBS)
			nverbs++;
		/*
		 * Unique within a source; across sources only the loss of
		 * events, which filters match by name whichever source
		 * lost them.
		 */
		for (size_t k = 0; k < n; k++)
			if (strcmp(ibve_event_desc_at(k)->name, d->name) == 0 &&
			    (ibve_event_desc_at(k)->source == d->source ||
			     strcmp(d->name, "EVENTS_LOST") != 0))
				ok(false, "name %s is unique", d->name);
	}
	is_int(nverbs, 21,
	       "the table has the 21 verbs events (rdma-core 62's 20th too)");
	ok(ibve_event_desc_find(IBVE_SOURCE_KERNEL, IBV_EVENT_QP_FATAL) ==
		   ibve_event_desc_find(IBVE_SOURCE_VERBS, IBV_EVENT_QP_FATAL),
	   "the kernel source speaks the verbs rows");
	ok(ibve_event_desc_find(IBVE_SOURCE_KERNEL, IBVE_KERNEL_EVENTS_LOST) &&
		   ibve_event_desc_find(IBVE_SOURCE_KERNEL,
					IBVE_KERNEL_EVENTS_LOST) !=
			   ibve_event_desc_find(IBVE_SOURCE_MLX5,
						IBVE_MLX5_EVENTS_LOST),
	   "its EVENTS_LOST is a row of its own");
	ok(!ibve_event_desc_find(IBVE_SOURCE_KERNEL, 0x103),
	   "past its own codes, the kernel source knows none");
	ok(ibve_event_desc_lookup("DEVICE_ADDED") &&
		   ibve_event_desc_lookup("DEVICE_ADDED")->source ==
			   IBVE_SOURCE_HOTPLUG,
	   "hot-plug announcements are rows too");
}

static void test_names(void)
{
	for (int c = 0; c <= IBVE_CLASS_UNKNOWN; c++)
		is_int(ibve_class_parse(ibve_class_name((enum ibve_class)c)), c,
		       "class %s round-trips",
		       ibve_class_name((enum ibve_class)c));
	for (int s = 0; s <= IBVE_SEVERITY_FATAL; s++)
		is_int(ibve_severity_parse(
			       ibve_severity_name((enum ibve_severity)s)),
		       s, "severity %s round-trips",
		       ibve_severity_name((enum ibve_severity)s));
	for (int s = 0; s <= IBVE_SOURCE_SM; s++)
		is_int(ibve_source_parse(ibve_source_name((enum ibve_source)s)),
		       s, "source %s round-trips",
		       ibve_source_name((enum ibve_source)s));
	is_int(ibve_class_parse("QP"), IBVE_CLASS_QP,
	       "class names ignore case");
	is_int(ibve_class_parse("port_err"), -1, "an event is not a class");
	is_str(ibve_class_name((enum ibve_class)99), "unknown",
	       "out-of-range class prints as unknown");
}

static void test_from_verbs(void)
{
	struct ibv_async_event ae;
	struct ibv_qp qp = { .qp_num = 0x11, .handle = 3 };
	struct ibv_cq cq = { .handle = 7 };
	struct ibv_srq srq = { .handle = 9 };
	struct ibv_wq wq = { .wq_num = 0x22, .handle = 4 };
	struct ibve_event ev;

	memset(&ae, 0, sizeof(ae));
	ae.event_type = IBV_EVENT_PORT_ERR;
	ae.element.port_num = 2;
	ibve_event_from_verbs(&ev, &ae, "mlx5_0", 0x1122334455667788ull);
	is_int(ev.port, 2, "a port event reads port_num");
	is_str(ev.name, "PORT_ERR", "PORT_ERR decoded");
	is_str(ev.device, "mlx5_0", "device copied");
	ok(ev.node_guid == 0x1122334455667788ull, "node GUID copied");
	ok(ev.time.tv_sec > 0, "timestamped");
	is_int(ev.fields, 0, "no object fields on a port event");

	ae.event_type = IBV_EVENT_QP_LAST_WQE_REACHED;
	ae.element.qp = &qp;
	ibve_event_from_verbs(&ev, &ae, "rxe0", 0);
	is_int(ev.port, 0,
	       "a QP event has no port (the union holds a pointer)");
	ok(ev.fields == (IBVE_FIELD_QP_NUM | IBVE_FIELD_HANDLE) &&
		   ev.qp_num == 0x11 && ev.handle == 3,
	   "a QP event carries qp_num and handle");

	ae.event_type = IBV_EVENT_CQ_ERR;
	ae.element.cq = &cq;
	ibve_event_from_verbs(&ev, &ae, "rxe0", 0);
	ok(ev.fields == IBVE_FIELD_HANDLE && ev.handle == 7 && ev.port == 0,
	   "a CQ event carries the CQ handle");

	ae.event_type = IBV_EVENT_SRQ_LIMIT_REACHED;
	ae.element.srq = &srq;
	ibve_event_from_verbs(&ev, &ae, "rxe0", 0);
	ok(ev.fields == IBVE_FIELD_HANDLE && ev.handle == 9,
	   "an SRQ event carries the SRQ handle");

	ae.event_type = IBV_EVENT_WQ_FATAL;
	ae.element.wq = &wq;
	ibve_event_from_verbs(&ev, &ae, "rxe0", 0);
	ok(ev.fields == (IBVE_FIELD_WQ_NUM | IBVE_FIELD_HANDLE) &&
		   ev.wq_num == 0x22 && ev.handle == 4,
	   "a WQ event carries wq_num and handle");

	ae.event_type = IBV_EVENT_DEVICE_FATAL;
	ae.element.port_num = 1;
	ibve_event_from_verbs(&ev, &ae, "rxe0", 0);
	ok(ev.port == 0 && ev.fields == 0 && ev.severity == IBVE_SEVERITY_FATAL,
	   "DEVICE_FATAL is about the device, not a port");

	ae.event_type = (enum ibv_event_type)20; /* rdma-core 62's */
	ae.element.port_num = 1;
	ibve_event_from_verbs(&ev, &ae, "rxe0", 0);
	ok(strcmp(ev.name, "DEVICE_SPEED_CHANGE") == 0 && ev.code == 20 &&
		   ev.cls == IBVE_CLASS_DEVICE && ev.port == 0 &&
		   ev.severity == IBVE_SEVERITY_WARNING,
	   "20 decodes as DEVICE_SPEED_CHANGE without Debian's header knowing it; its port means nothing");

	ae.event_type = (enum ibv_event_type)21;
	ae.element.port_num = 1;
	ibve_event_from_verbs(&ev, &ae, "rxe0", 0);
	is_str(ev.name, "UNKNOWN(21)",
	       "an unknown code decodes as UNKNOWN(21)");
	ok(ev.code == 21 && ev.cls == IBVE_CLASS_UNKNOWN && !ev.desc &&
		   ev.severity == IBVE_SEVERITY_WARNING && ev.port == 0,
	   "unknown: code kept, class unknown, severity warning, union unread");
	ok(strlen(ibve_event_text(&ev)) > 0,
	   "unknown events still explain themselves");

	ae.event_type = (enum ibv_event_type) - 5;
	ibve_event_from_verbs(&ev, &ae, "rxe0", 0);
	is_str(ev.name, "UNKNOWN(-5)",
	       "negative codes are printed, not dropped");

	memset(&ev, 0, sizeof(ev));
	ibve_event_set_code(&ev, IBVE_SOURCE_HOTPLUG,
			    IBVE_HOTPLUG_DEVICE_REMOVED);
	ok(strcmp(ev.name, "DEVICE_REMOVED") == 0 &&
		   ev.cls == IBVE_CLASS_DEVICE &&
		   ev.source == IBVE_SOURCE_HOTPLUG,
	   "hot-plug codes decode");
}

static void test_long_device_name(void)
{
	struct ibv_async_event ae = { .event_type = IBV_EVENT_PORT_ACTIVE };
	struct ibve_event ev;
	char name[200];

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	ae.element.port_num = 1;
	ibve_event_from_verbs(&ev, &ae, name, 0);
	is_int(strlen(ev.device), IBVE_NAME_MAX - 1,
	       "a device name is truncated to the record, terminated");
}

/*
 * In a child (the table is built once a process), LIST's rows as the
 * table: what ibve_pipeline_new() says, the rows' count, the generator's
 * words of them and the row of (SOURCE, CODE), then what the generator
 * says when it refuses, in OUT.
 */
static void table_of(const struct ibve_source_ops *const *list, int source,
		     int code, char *out, size_t size)
{
	int fd[2], status = -1;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	fflush(stdout); /* the child's, if it writes, has only its own */
	if (pipe(fd) || (pid = fork()) < 0) {
		snprintf(out, size, "no child: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		struct ibve_pipeline *p;
		const struct ibve_event_desc *d;
		size_t rows = 0;
		int r;

		size_t k = 0;

		for (; list[k]; k++) /* the list as the registered one */
			ibve_sources[k] = list[k];
		ibve_sources[k] = NULL;
		r = ibve_pipeline_new(&p);
		while (ibve_event_desc_at(rows))
			rows++;
		d = ibve_event_desc_find((enum ibve_source)source, code);
		fill("names", 5);
		dprintf(fd[1], "%s %s; %zu rows, %zu words, %s\n",
			r ? strerrorname_np(-r) : "0", r ? ibve_errmsg() : "",
			rows, nitems, d ? d->name : "none");
		/* refused, the generator writes only why, on standard error */
		dup2(fd[1], STDERR_FILENO);
		if (r && mktables_main(2, (char *[]){ "mktables", "catalog",
						      NULL }) != 1)
			_exit(1);
		ibve_pipeline_free(p);
		_exit(0);
	}
	close(fd[1]);
	while (len < size - 1 &&
	       (n = read(fd[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	ok(status == 0, "the child ends with status 0");
}

/* Rows past what the table holds, or out of its ranks and source numbers,
 * are refused whole with the reason: never cut. */
static void test_caps(void)
{
	static char name[256][16];
	static struct ibve_event_desc rows[256];
	/* 127 rows of a source with a code index, 128 of one past them */
	struct ibve_source_ops o[] = {
		{ .name = "a", .records = 7, .rows = rows, .nrows = 127 },
		{ .name = "b", .records = 20, .rows = rows + 127, .nrows = 128 },
		{ .name = "c", .records = 21, .rows = rows + 255, .nrows = 1 },
	};
	const struct ibve_source_ops *const list[] = { &o[0], &o[1], NULL };
	const struct ibve_source_ops *const more[] = { &o[0], &o[1], &o[2],
						       NULL };
	char out[512], want[512];

	for (int i = 0; i < 256; i++) {
		snprintf(name[i], sizeof(name[i]), "ROW_%d", i);
		rows[i] =
			(struct ibve_event_desc){ .code = i, .name = name[i] };
	}
	table_of(list, 20, 254, out, sizeof(out));
	is_str(out, "0 ; 255 rows, 255 words, ROW_254\n",
	       "255 rows fit, a source numbered past the code index's too, "
	       "and the generator lists them all");
	for (int t = 0; t < 3; t++) {
		const char *why[] = {
			"the sources declare 256 rows, it holds 255",
			"source b: records 20, rank 16 (records below 64, rank 0 to 15)",
			"source b: records 64, rank 0 (records below 64, rank 0 to 15)",
		};

		o[1].nrows = t ? 1 : 128;
		o[1].rank = t == 1 ? 16 : 0;
		o[1].records = t == 2 ? 64 : 20;
		table_of(t ? list : more, o[1].records, 127, out, sizeof(out));
		snprintf(want, sizeof(want),
			 "E2BIG event table: %s; 0 rows, 0 words, none\n"
			 "mktables: event table: %s\n",
			 why[t], why[t]);
		is_str(out, want,
		       "refused whole, said by the pipeline and "
		       "the generator: %s",
		       why[t]);
	}
}

int main(void)
{
	/* first: the table of the library's sources is not built yet */
	test_caps();
	test_table();
	test_names();
	test_from_verbs();
	test_long_device_name();
	ok(strlen(ibve_version()) > 0, "ibve_version() is set");
	return done_testing();
}
