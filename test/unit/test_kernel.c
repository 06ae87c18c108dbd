// SPDX-License-Identifier: MIT
/*
 * The kernel source's record fields: jobs named from cgroup paths, QP
 * types, the fields in text and JSON and back, and the owner filters.
 */
#include <errno.h>
#include <stdlib.h>

#include "tap.h"
#include "util.h"

static const char *job(const char *path)
{
	static char buf[128];

	ibve_cgroup_job(path, buf, sizeof(buf));
	return buf;
}

static void test_jobs(void)
{
	is_str(job("/system.slice/slurmstepd.scope/job_4711/step_0/user/task_0"),
	       "slurm job 4711", "Slurm (cgroup v2): the job of a step");
	is_str(job("/slurm/uid_1000/job_12/step_batch"), "slurm job 12",
	       "Slurm's older layout too");
	is_str(job("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1f2e3d4c_5b6a_4789_8abc_def012345678.slice/cri-containerd-0123.scope"),
	       "pod 1f2e3d4c-5b6a-4789-8abc-def012345678",
	       "Kubernetes, systemd driver: the pod's UID with dashes");
	is_str(job("/kubepods/burstable/pod8d1e0c2a-1111-2222-3333-444455556666/abc"),
	       "pod 8d1e0c2a-1111-2222-3333-444455556666",
	       "Kubernetes, cgroupfs driver");
	is_str(job("/user.slice/user-1000.slice/session-3.scope"), "",
	       "a login session is no job");
	is_str(job("/job_x12/step_0"), "", "job_ needs a number");
	is_str(job("/system.slice/podman.service"), "",
	       "a service named pod... is no pod");
	is_str(job("/"), "", "the root cgroup");
	is_str(job(""), "", "no cgroup");
	is_int(ibve_cgroup_job("/job_123456", (char[8]){ 0 }, 8), 16,
	       "the length needed, like snprintf");
}

static void test_qp_types(void)
{
	is_str(ibve_qp_type_name(2), "RC", "2 is RC");
	is_str(ibve_qp_type_name(4), "UD", "4 is UD");
	is_str(ibve_qp_type_name(10), "XRC_TGT", "10 is XRC_TGT");
	is_str(ibve_qp_type_name(255), "DRIVER", "255 is a driver's own");
	is_str(ibve_qp_type_name(7), "QPT(7)", "7 has no name: its number");
}

#define KLINE                                                               \
	"{\"time\":\"2026-11-24T00:07:55.175771542Z\",\"device\":\"rxe0\"," \
	"\"port\":1,\"event\":\"QP_FATAL\",\"source\":\"kernel\","          \
	"\"qp_num\":19,\"qp_type\":\"QPT(7)\",\"handle\":4,\"pid\":210,"    \
	"\"comm\":\"nccl-tests\",\"cgroup\":\"/job_7/step_0\","             \
	"\"after\":\"PORT_ERR\",\"after_port\":1,\"after_us\":40000}"

static int parse(const char *line, struct ibve_event *ev)
{
	return ibve_event_parse_json(line, strlen(line), ev);
}

static void test_fields(void)
{
	struct ibve_event ev, back;
	char json[2048], text[1024];
	int r = ibve_event_parse_json(KLINE, strlen(KLINE), &ev);

	if (!ok(r == 0, "a kernel record reads"))
		printf("#   %s\n", ibve_errmsg());
	is_int(ev.source, IBVE_SOURCE_KERNEL, "its source is kernel");
	ok(ev.desc == ibve_event_desc_find(IBVE_SOURCE_VERBS,
					   1 /* IBV_EVENT_QP_FATAL */),
	   "with the verbs row of its event");
	is_int(ev.fields & (IBVE_FIELD_OWNER | IBVE_FIELD_QP_TYPE |
			    IBVE_FIELD_AFTER),
	       IBVE_FIELD_OWNER | IBVE_FIELD_QP_TYPE | IBVE_FIELD_AFTER,
	       "owner, QP type and cause are set");
	is_int(ev.kernel.qp_type, 7, "QPT(7) reads as 7");
	ibve_event_format_text(&ev, text, sizeof(text), 0);
	ok(strstr(text,
		  "(qp 0x000013 QPT(7), handle 4, pid 210 nccl-tests [slurm job 7], 40 ms after PORT_ERR rxe0/1)\n") !=
		   NULL,
	   "text: object, owner, job and cause at a glance");
	if (!strstr(text, "pid 210"))
		printf("#   %s", text);
	ibve_event_format_json(&ev, json, sizeof(json));
	ok(ibve_event_parse_json(json, strlen(json), &back) == 0 &&
		   memcmp(&back.kernel, &ev.kernel, sizeof(ev.kernel)) == 0 &&
		   back.fields == ev.fields,
	   "JSON out and in again: the same fields");

	r = parse(
		"{\"time\":\"2026-11-24T00:07:55Z\",\"device\":\"rxe0\",\"port\":1,"
		"\"event\":\"QP_FATAL\",\"source\":\"kernel\",\"qp_type\":\"XX\"}",
		&ev);
	ok(r == -EINVAL && strstr(ibve_errmsg(), "qp_type"),
	   "an unknown QP type is refused, and named");
	r = parse(
		"{\"time\":\"2026-11-24T00:07:55Z\",\"device\":\"rxe0\",\"port\":1,"
		"\"event\":\"PORT_ERR\",\"pid\":5,\"comm\":\"x\"}",
		&ev);
	ok(r == 0 && !(ev.fields & IBVE_FIELD_OWNER),
	   "an owner on a verbs line is not the kernel source's: ignored");
	r = parse(
		"{\"time\":\"2026-11-24T00:07:55Z\",\"device\":\"rxe0\",\"port\":1,"
		"\"event\":\"CQ_ERR\",\"source\":\"kernel\",\"pid\":5,\"comm\":\"x\","
		"\"gid\":\"fe80:0000:0000:0000:0000:0000:0000:0001\"}",
		&ev);
	ok(r == 0 && !(ev.fields & IBVE_FIELD_SM) &&
		   strcmp(ev.kernel.comm, "x") == 0,
	   "a gid on a kernel line does not overwrite its owner");
	r = parse(
		"{\"time\":\"2026-11-24T00:07:55Z\",\"device\":\"rxe0\",\"port\":0,"
		"\"event\":\"EVENTS_LOST\",\"source\":\"kernel\",\"lost\":9}",
		&ev);
	ok(r == 0 && ev.source == IBVE_SOURCE_KERNEL && ev.desc &&
		   ev.desc->source == IBVE_SOURCE_KERNEL && ev.lost == 9,
	   "the kernel's EVENTS_LOST reads as its own, not mlx5's");
}

static void test_filters(void)
{
	struct ibve_filter *f;
	struct ibve_event ev;

	ibve_event_parse_json(KLINE, strlen(KLINE), &ev);
	ibve_filter_new(&f);
	ibve_filter_add_pid(f, 210);
	ok(ibve_filter_match(f, &ev), "--pid 210 keeps pid 210");
	ibve_filter_add_comm(f, "other");
	ok(!ibve_filter_match(f, &ev), "and --comm other does not");
	ibve_filter_add_comm(f, "nccl-tests");
	ok(ibve_filter_match(f, &ev), "one of the names is enough");
	ev.fields &= ~IBVE_FIELD_OWNER;
	ok(!ibve_filter_match(f, &ev),
	   "a record without an owner never passes");
	ibve_filter_free(f);

	ibve_filter_new(&f);
	ok(ibve_filter_add_comm(f, "0123456789abcdef") == -EINVAL,
	   "a name longer than the kernel keeps is refused");
	ok(ibve_filter_add_terms(f, "EVENTS_LOST", false) == 0,
	   "EVENTS_LOST is a term");
	ibve_event_set_code(&ev, IBVE_SOURCE_KERNEL, IBVE_KERNEL_EVENTS_LOST);
	ok(ibve_filter_match(f, &ev), "it matches the kernel's");
	ibve_event_set_code(&ev, IBVE_SOURCE_MLX5, IBVE_MLX5_EVENTS_LOST);
	ok(ibve_filter_match(f, &ev), "and mlx5's");
	ibve_filter_free(f);
}

int main(void)
{
	test_jobs();
	test_qp_types();
	test_fields();
	test_filters();
	return done_testing();
}
