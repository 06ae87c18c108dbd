// SPDX-License-Identifier: MIT
/*
 * share/schema/event.schema.json against the code that writes records,
 * for what the schema does not take from the library's tables (its names,
 * rows, enums and the key table's properties are written from them by
 * share/mktables.c): every key the writer puts in a record (the fixed
 * keys, each optional field's and the mlx5 decoder's) is a property of the
 * schema, and every property is one of them or the key table's; the
 * decoders' enums are what they write; and every kind
 * of record the live sources make (each row of the table through the
 * source's own builder, unknown codes, every optional field, every mlx5
 * sub-type, module status and error type, every QP type) is valid under
 * the schema: Debian's validator (test/schema-check) reads them all.
 * Run from the top of the tree, as make check-unit does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <infiniband/verbs.h>
#include <json-c/json.h>

#include "devices.h"
#include "fields.h"
#include "hotplug.h"
#include "kernel.h"
#include "mlx5.h"
#include "sm.h"
#include "tap.h"

#define SCHEMA "share/schema/event.schema.json"

/* A set of strings, small: linear. */
struct set {
	char *v[512];
	size_t n;
};

static bool set_has(const struct set *s, const char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], x) == 0)
			return true;
	return false;
}

static void set_add(struct set *s, const char *x)
{
	if (!set_has(s, x) && s->n < ARRAY_SIZE(s->v))
		s->v[s->n++] = strdup(x);
}

static void set_free(struct set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	s->n = 0;
}

/* Whether A and B hold the same strings; what differs, as TAP comments. */
static bool set_same(const struct set *a, const char *an, const struct set *b,
		     const char *bn)
{
	bool same = true;

	for (size_t i = 0; i < a->n; i++)
		if (!set_has(b, a->v[i])) {
			printf("#   %s has \"%s\", %s has not\n", an, a->v[i],
			       bn);
			same = false;
		}
	for (size_t i = 0; i < b->n; i++)
		if (!set_has(a, b->v[i])) {
			printf("#   %s has \"%s\", %s has not\n", bn, b->v[i],
			       an);
			same = false;
		}
	return same;
}

/* The member at PATH ("a/b/3/c": keys and array indexes), or NULL. */
static struct json_object *at(struct json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = strtok_r(buf, "/", &save); p && o;
	     p = strtok_r(NULL, "/", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(p));
		else if (!json_object_object_get_ex(o, p, &o))
			o = NULL;
	}
	return o;
}

/* The strings of the array at PATH of O into S. */
static void strings(struct json_object *o, const char *path, struct set *s)
{
	struct json_object *a = at(o, path);

	for (size_t i = 0; a && i < json_object_array_length(a); i++)
		set_add(s, json_object_get_string(
				   json_object_array_get_idx(a, i)));
}

/* --- the records the sources make ---------------------------------------- */

static FILE *census;	 /* to the validator */
static struct set keys;	 /* every top-level key written */
static struct set rkeys; /* the keys of "rates" items */
static struct set decoded[4];
static const char *const decoded_key[4] = { "change", "module_status",
					    "error_type", "general" };
static unsigned long written;

static void base(struct ibve_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->time = (struct timespec){ 1772439300, 250000000 };
}

/* Write EV to the validator; note its keys. */
static void emit(const struct ibve_event *ev)
{
	char line[4096];
	struct json_object *o, *r;
	size_t n = ibve_event_format_json(ev, line, sizeof(line));

	if (n >= sizeof(line))
		return;
	fwrite(line, 1, n, census);
	written++;
	o = json_tokener_parse(line);
	if (!o)
		return;
	json_object_object_foreach(o, k, v)
	{
		set_add(&keys, k);
		for (size_t i = 0; i < 4; i++)
			if (strcmp(k, decoded_key[i]) == 0)
				set_add(&decoded[i], json_object_get_string(v));
	}
	r = at(o, "rates/0");
	if (r) {
		json_object_object_foreach(r, k2, v2)
		{
			(void)v2;
			set_add(&rkeys, k2);
		}
	}
	json_object_put(o);
}

static void verbs_rows(void)
{
	const struct ibve_event_desc *d;

	for (size_t i = 0; (d = ibve_event_desc_at(i)); i++) {
		struct ibv_async_event ae = {
			.event_type = (enum ibv_event_type)d->code
		};
		struct ibv_qp qp = { .qp_num = 0x126b, .handle = 16 };
		struct ibv_cq cq = { .handle = 5 };
		struct ibv_srq srq = { .handle = 2 };
		struct ibv_wq wq = { .wq_num = 0x321, .handle = 3 };
		struct ibve_event ev;

		if (d->source != IBVE_SOURCE_VERBS)
			continue;
		switch (d->cls) {
		case IBVE_CLASS_PORT:
			ae.element.port_num = 1;
			break;
		case IBVE_CLASS_QP:
			ae.element.qp = &qp;
			break;
		case IBVE_CLASS_CQ:
			ae.element.cq = &cq;
			break;
		case IBVE_CLASS_SRQ:
			ae.element.srq = &srq;
			break;
		case IBVE_CLASS_WQ:
			ae.element.wq = &wq;
			break;
		default:
			break;
		}
		ibve_event_from_verbs(&ev, &ae, "mlx5_0", 0xb8cef60300a10b10);
		emit(&ev);
		if (d->code == IBV_EVENT_PORT_ACTIVE) {
			struct timespec down = ev.time;

			down.tv_sec -= 3;
			ibve_event_set_down(&ev, &down);
			emit(&ev);
		} else if (d->code == IBVE_VERBS_DEVICE_SPEED_CHANGE) {
			const char old[2][28] = { "200 Gb/sec (4X HDR)",
						  "200 Gb/sec (4X HDR)" };
			const char now[2][28] = { "100 Gb/sec (2X HDR)", "" };

			ibve_rates_diff(&ev, old, now, 2);
			emit(&ev);
		}
	}
	/* numbers this version has no row for; a watcher's QP event without
	 * its object (another process's) */
	for (int c = 21; c < 24; c++) {
		struct ibv_async_event ae = { .event_type =
						      (enum ibv_event_type)c };
		struct ibve_event ev;

		ibve_event_from_verbs(&ev, &ae, "rxe0", 0);
		emit(&ev);
	}
	{
		struct ibv_async_event ae = { .event_type =
						      IBV_EVENT_QP_FATAL };
		struct ibve_event ev;

		ibve_event_from_verbs(&ev, &ae, "rxe0", 0);
		emit(&ev);
	}
}

static void hotplug_rows(void)
{
	struct ibve_event ev;

	for (int c = IBVE_HOTPLUG_DEVICE_ADDED;
	     c <= IBVE_HOTPLUG_DEVICE_REMOVED; c++) {
		base(&ev);
		ibve_hp_event_device(&ev, "rxe0", 0xf8d24cfffed49ed8, "uverbs0",
				     c);
		emit(&ev);
		base(&ev);
		ibve_hp_event_device(&ev, "rxe0", 0, NULL, c);
		emit(&ev);
	}
	for (int attach = 0; attach < 2; attach++) {
		base(&ev);
		ibve_hp_event_netdev(&ev, "mlx5_bond_0", 0x1070fd0300c59a40, 1,
				     9, "bond0", attach);
		emit(&ev);
		base(&ev);
		ibve_hp_event_netdev(&ev, "mlx5_bond_0", 0x1070fd0300c59a40, 1,
				     0, "", attach);
		emit(&ev);
	}
	/* a newer kernel's announcement is not read; a capture may say one */
	base(&ev);
	ibve_strcpy(ev.device, "rxe0", sizeof(ev.device));
	ibve_event_set_code(&ev, IBVE_SOURCE_HOTPLUG, 7);
	emit(&ev);
}

static void sm_rows(void)
{
	for (uint16_t trap = 63; trap <= 68; trap++) {
		struct ibve_sm_mad r = { .what = IBVE_SM_MAD_REPORT,
					 .trap = trap,
					 .producer = 4,
					 .issuer_lid = 2,
					 .gid = { 0xfe, 0x80, [15] = 7 } };
		struct ibve_event ev;

		ibve_sm_event_from_report(&ev, &r, "ibsim0", 0x100003, 1);
		emit(&ev);
	}
}

static void kernel_rows(void)
{
	static const struct {
		int event;
		enum ibve_khook hook;
		unsigned int flags;
	} k[] = {
		{ IBV_EVENT_SRQ_LIMIT_REACHED, IBVE_KHOOK_SRQ,
		  IBVE_KF_HANDLE | IBVE_KF_OWNER },
		{ IBV_EVENT_SQ_DRAINED, IBVE_KHOOK_QP,
		  IBVE_KF_HANDLE | IBVE_KF_OWNER | IBVE_KF_NUM |
			  IBVE_KF_QP_TYPE },
		{ IBV_EVENT_QP_FATAL, IBVE_KHOOK_CORE_QP,
		  IBVE_KF_NUM | IBVE_KF_QP_TYPE },
		{ IBV_EVENT_CQ_ERR, IBVE_KHOOK_CQ, IBVE_KF_HANDLE },
		{ IBV_EVENT_WQ_FATAL, IBVE_KHOOK_WQ,
		  IBVE_KF_HANDLE | IBVE_KF_OWNER | IBVE_KF_NUM },
		{ 21, IBVE_KHOOK_CORE_QP, IBVE_KF_NUM | IBVE_KF_OWNER },
	};

	for (size_t i = 0; i < ARRAY_SIZE(k); i++) {
		for (int variant = 0; variant < 2; variant++) {
			struct ibve_kevent e = { .event = (__u32)k[i].event,
						 .hook = k[i].hook,
						 .flags = k[i].flags,
						 .num = 0x16,
						 .handle = 5,
						 .port = 1,
						 .tgid = 211,
						 .qp_type = 2,
						 .comm = "ibv_eventinject",
						 .kern = "nvme_rdma",
						 .device = "rxe0" };
			struct ibve_event ev;

			if (k[i].hook == IBVE_KHOOK_CQ ||
			    k[i].hook == IBVE_KHOOK_SRQ)
				e.port = 0;
			base(&ev);
			ibve_kevent_record(&ev, &e, 0xf8d24cfffed49ed8);
			if (variant && (ev.fields & IBVE_FIELD_OWNER))
				snprintf(
					ev.kernel.cgroup,
					sizeof(ev.kernel.cgroup),
					"/system.slice/slurmstepd.scope/job_4711/step_0");
			if (variant) {
				/* what the source adds: the cause before */
				snprintf(ev.kernel.after,
					 sizeof(ev.kernel.after), "%s",
					 i % 2 ? "PORT_ERR" : "DEVICE_FATAL");
				ev.kernel.after_port = i % 2;
				ev.kernel.after_us = 951000;
				ev.fields |= IBVE_FIELD_AFTER;
			}
			emit(&ev);
		}
	}
	/* every QP type, named or not */
	for (uint32_t t = 0; t < 300; t += t < 12 ? 1 : 61) {
		struct ibve_kevent e = { .event = IBV_EVENT_QP_FATAL,
					 .hook = IBVE_KHOOK_CORE_QP,
					 .flags = IBVE_KF_NUM | IBVE_KF_QP_TYPE,
					 .num = 7,
					 .qp_type = t,
					 .device = "rxe0" };
		struct ibve_event ev;

		if (t == 244)
			e.qp_type = 255;
		base(&ev);
		ibve_kevent_record(&ev, &e, 0);
		emit(&ev);
	}
	{
		struct ibve_event ev;

		base(&ev);
		ibve_strcpy(ev.device, "rxe0", sizeof(ev.device));
		ibve_event_set_code(&ev, IBVE_SOURCE_KERNEL,
				    IBVE_KERNEL_EVENTS_LOST);
		ev.lost = 31000;
		ev.fields |= IBVE_FIELD_LOST;
		emit(&ev);
	}
}

/* An mlx5 entry of TYPE and SUB, with data bytes D (offset from 32). */
static void mlx5_entry(uint8_t type, uint8_t sub, const uint8_t *d, size_t n)
{
	uint8_t eqe[64] = { 0 };
	struct ibve_event ev;

	eqe[1] = type;
	eqe[3] = sub;
	if (n)
		memcpy(eqe + 32, d, n);
	base(&ev);
	ibve_strcpy(ev.device, "mlx5_0", sizeof(ev.device));
	ibve_mlx5_decode(&ev, eqe, sizeof(eqe));
	emit(&ev);
}

static void mlx5_rows(void)
{
	struct ibve_event ev;

	/* every type, known or not */
	for (int t = 0; t < 256; t++)
		mlx5_entry((uint8_t)t, 0, NULL, 0);
	for (int sub = 0; sub < 16; sub++) {
		uint8_t port[9] = { [8] = (uint8_t)((sub % 3) << 4) };

		mlx5_entry(IBVE_MLX5_PORT_CHANGE, (uint8_t)sub, port,
			   sizeof(port));
		mlx5_entry(IBVE_MLX5_GENERAL, (uint8_t)sub, NULL, 0);
	}
	for (int status = 0; status < 16; status++)
		for (int err = 0; err < 16; err++) {
			uint8_t m[7] = { 0, 2, 0,	    (uint8_t)status,
					 0, 0, (uint8_t)err };

			if (status != 3 && err)
				continue;
			mlx5_entry(IBVE_MLX5_PORT_MODULE, 0, m, sizeof(m));
		}
	for (int s = 0; s < 3; s++) {
		uint8_t map[16] = {
			[0] = s == 2 ? 0x80 : 0, [13] = 0x40, [15] = s ? 0x21 : 0
		};

		mlx5_entry(IBVE_MLX5_TEMP_WARN, 0, map, s ? sizeof(map) : 0);
	}
	base(&ev);
	ibve_strcpy(ev.device, "mlx5_1", sizeof(ev.device));
	ibve_mlx5_event_lost(&ev, 1);
	emit(&ev);
}

/* Every record to the validator; whether it took them all. */
static void test_census(void)
{
	int st;

	census = popen(
		"bash -c 'set -o pipefail; test/schema-check --kind event - |"
		" sed \"s/^/#   /\"'",
		"w");
	if (!ok(census != NULL, "the validator starts"))
		return;
	verbs_rows();
	hotplug_rows();
	sm_rows();
	kernel_rows();
	mlx5_rows();
	fflush(stdout);
	st = pclose(census);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "%lu records of every source, row, field and decoded value are valid under " SCHEMA,
	   written);
}

/* --- keys ---------------------------------------------------------------- */

static void test_keys(struct json_object *schema)
{
	struct json_object *props = at(schema, "properties");
	struct set p = { 0 }, known = { 0 }, items = { 0 };

	json_object_object_foreach(props, k, v)
	{
		(void)v;
		set_add(&p, k);
	}
	ibve_fields_ready();
	for (int i = 0; i < ibve_nkeys; i++)
		set_add(&known, ibve_keys[i].name);
	for (size_t i = 0; i < keys.n; i++)
		set_add(&known, keys.v[i]);
	ok(keys.n >= 30 && set_same(&known, "the code", &p, "the schema"),
	   "the schema's properties are the keys the code writes and reads (%zu written)",
	   keys.n);
	json_object_object_foreach(
		at(schema, "properties/rates/items/properties"), k2, v2)
	{
		(void)v2;
		set_add(&items, k2);
	}
	ok(rkeys.n == 3 && set_same(&rkeys, "rates as written", &items,
				    "the schema's rates items"),
	   "the keys of \"rates\" items are the schema's");
	set_free(&p);
	set_free(&known);
	set_free(&items);
}

/* --- enums -------------------------------------------------------------- */

/* The enum at PATH of SCHEMA against WANT. */
static void same_enum(struct json_object *schema, const char *path,
		      const struct set *want, const char *what)
{
	struct set got = { 0 };

	strings(schema, path, &got);
	ok(got.n && set_same(want, what, &got, path), "%s: the schema's %s",
	   path, what);
	set_free(&got);
}

/* What the mlx5 decoder wrote: its tables are not the library's lists. */
static void test_enums(struct json_object *schema)
{
	for (size_t i = 0; i < 4; i++) {
		char path[64];

		snprintf(path, sizeof(path), "properties/%s/enum",
			 decoded_key[i]);
		same_enum(schema, path, &decoded[i],
			  "values the mlx5 decoder wrote");
	}
}

int main(void)
{
	struct json_object *schema = json_object_from_file(SCHEMA);

	if (!ok(schema != NULL, "%s reads", SCHEMA))
		return done_testing();
	test_census();
	test_keys(schema);
	test_enums(schema);
	json_object_put(schema);
	set_free(&keys);
	set_free(&rkeys);
	for (size_t i = 0; i < 4; i++)
		set_free(&decoded[i]);
	return done_testing();
}
