// SPDX-License-Identifier: MIT
/*
 * The optional fields of a record, each once: JSON member, text words and
 * parser side by side, so the three cannot drift apart.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "dl_jsonc.h"

#include "fields.h"

_Static_assert(sizeof(struct ibve_verbs_fields) <= IBVE_EVENT_AREA,
	       "the verbs fields fit the per-source area");

int ibve_field_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const struct ibve_key_name ibve_keys[K_COUNT] = {
#define KEY_ROW(id, s, f) [K_##id] = { #s, sizeof(#s) - 1 },
	IBVE_KEYS(KEY_ROW)
#undef KEY_ROW
};

/*
 * Bytes that are not UTF-8 become U+FFFD here, as the writers would print
 * them, so a record read and written again reads back the same.
 */
int ibve_copy_str(char *dst, size_t size, const char *key, const char *s,
		  char *err, size_t errlen)
{
	if (!ibve_utf8_copy(dst, s, size))
		FAIL("\"%s\" longer than %zu bytes", key, size - 1);
	return 0;
}

/* An optional string field of KEY into DST, flagging FLAG when set. */
static int opt_str(const struct ibve_jsrc *o, enum ibve_key key, char *dst,
		   size_t size, struct ibve_event *ev, uint32_t flag, char *err,
		   size_t errlen)
{
	const char *s;
	int r = ibve_get_str(o, key, &s, err, errlen);

	if (r <= 0)
		return r;
	if (ibve_copy_str(dst, size, ibve_keys[key].name, s, err, errlen))
		return -EINVAL;
	ev->fields |= flag;
	return 0;
}

/*
 * The JSON member and the parser, F_json and F_parse, of a field that is
 * one integer MEMBER of the record, up to MAX; when ONLY is a source (not
 * -1), records of others have no such field (they share its room).
 */
#define UINT_FIELD(f, key, member, max, flag, only)                            \
	static void f##_json(struct ibve_json *j, const struct ibve_event *ev) \
	{                                                                      \
		ibve_json_uint(j, ibve_keys[key].name, ev->member);            \
	}                                                                      \
	static int f##_parse(const struct ibve_jsrc *o, struct ibve_event *ev, \
			     char *err, size_t errlen)                         \
	{                                                                      \
		uint64_t u;                                                    \
		int r = ibve_get_uint(o, key, max, &u, err, errlen);           \
                                                                               \
		if (r <= 0 || (only >= 0 && (int)ev->source != only))          \
			return r < 0 ? r : 0;                                  \
		ev->member = u;                                                \
		ev->fields |= flag;                                            \
		return 0;                                                      \
	}

/* The same of a string MEMBER, read only on records of ONLY (not -1). */
#define STR_FIELD(f, key, member, flag, only)                                  \
	static void f##_json(struct ibve_json *j, const struct ibve_event *ev) \
	{                                                                      \
		ibve_json_str(j, ibve_keys[key].name, ev->member);             \
	}                                                                      \
	static int f##_parse(const struct ibve_jsrc *o, struct ibve_event *ev, \
			     char *err, size_t errlen)                         \
	{                                                                      \
		if (only >= 0 && (int)ev->source != only)                      \
			return 0;                                              \
		return opt_str(o, key, ev->member, sizeof(ev->member), ev,     \
			       flag, err, errlen);                             \
	}

/* --- qp_num, wq_num, handle ------------------------------------------ */

UINT_FIELD(qp, K_QP_NUM, qp_num, UINT32_MAX, IBVE_FIELD_QP_NUM, -1)

static void qp_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ibve_buf_printf(b, "qp 0x%06x", ev->qp_num);
	if (ev->fields & IBVE_FIELD_QP_TYPE)
		ibve_buf_printf(b, " %s",
				ibve_qp_type_name(ev->kernel.qp_type));
}

/* --- the kernel source: QP type, owner, consumer, cause ------------------- */
/* Its fields share the area with others': parsed on its records only. */

static const char *const qp_types[] = {
	[0] = "SMI",
	[1] = "GSI",
	[2] = "RC",
	[3] = "UC",
	[4] = "UD",
	[5] = "RAW_IPV6",
	[6] = "RAW_ETHERTYPE",
	[8] = "RAW_PACKET",
	[9] = "XRC_INI",
	[10] = "XRC_TGT",
};

IBVE_EXPORT const char *ibve_qp_type_name(uint32_t type)
{
	static __thread char other[20];

	if (type < ARRAY_SIZE(qp_types) && qp_types[type])
		return qp_types[type];
	if (type == 255)
		return "DRIVER";
	snprintf(other, sizeof(other), "QPT(%u)", type);
	return other;
}

static int qp_type_parse_name(const char *s, uint32_t *type)
{
	unsigned int n;
	char end;

	for (uint32_t i = 0; i < ARRAY_SIZE(qp_types); i++)
		if (qp_types[i] && strcmp(qp_types[i], s) == 0)
			return *type = i, 0;
	if (strcmp(s, "DRIVER") == 0)
		return *type = 255, 0;
	if (sscanf(s, "QPT(%u%c", &n, &end) == 2 && end == ')' &&
	    strchr(s, ')')[1] == '\0')
		return *type = n, 0;
	return -EINVAL;
}

static void qp_type_json(struct ibve_json *j, const struct ibve_event *ev)
{
	ibve_json_str(j, "qp_type", ibve_qp_type_name(ev->kernel.qp_type));
}

static int qp_type_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
			 char *err, size_t errlen)
{
	const char *s;
	int r = ibve_get_str(o, K_QP_TYPE, &s, err, errlen);

	if (r <= 0 || ev->source != IBVE_SOURCE_KERNEL)
		return r < 0 ? r : 0;
	if (qp_type_parse_name(s, &ev->kernel.qp_type))
		FAIL("unknown \"qp_type\" \"%.20s\"", s);
	ev->fields |= IBVE_FIELD_QP_TYPE;
	return 0;
}

IBVE_EXPORT size_t ibve_cgroup_job(const char *path, char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	const char *p = path, *pod = NULL;

	while (*p) {
		size_t n;

		p += *p == '/';
		n = strcspn(p, "/");
		/* Slurm: .../job_1234/step_0/... */
		if (n > 4 && strncmp(p, "job_", 4) == 0 &&
		    strspn(p + 4, "0123456789") == n - 4) {
			ibve_buf_printf(&b, "slurm job %.*s", (int)(n - 4),
					p + 4);
			return ibve_buf_end(&b);
		}
		/* Kubernetes: kubepods-besteffort-pod<uid>.slice, pod<uid> */
		for (size_t i = 0; i + 3 < n; i++)
			if (strncmp(p + i, "pod", 3) == 0 &&
			    (i == 0 || p[i - 1] == '-') &&
			    isxdigit((unsigned char)p[i + 3]))
				pod = p + i + 3;
		if (pod) {
			size_t m = strcspn(pod, "/.");

			ibve_buf_puts(&b, "pod ");
			for (size_t i = 0; i < m; i++)
				ibve_buf_putc(&b, pod[i] == '_' ? '-' : pod[i]);
			return ibve_buf_end(&b);
		}
		p += n;
	}
	return ibve_buf_end(&b);
}

static void owner_json(struct ibve_json *j, const struct ibve_event *ev)
{
	ibve_json_uint(j, "pid", ev->kernel.pid);
	ibve_json_str(j, "comm", ev->kernel.comm);
	if (ev->kernel.cgroup[0])
		ibve_json_str(j, "cgroup", ev->kernel.cgroup);
}

static void owner_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	char job[96];

	ibve_buf_printf(b, "pid %u ", ev->kernel.pid);
	ibve_buf_text_str(b, ev->kernel.comm);
	if (!ev->kernel.cgroup[0] || strcmp(ev->kernel.cgroup, "/") == 0)
		return;
	if (ibve_cgroup_job(ev->kernel.cgroup, job, sizeof(job)) &&
	    strlen(job) < sizeof(job)) {
		ibve_buf_printf(b, " [%s]", job);
		return;
	}
	ibve_buf_puts(b, " [cgroup ");
	ibve_buf_text_str(b, ev->kernel.cgroup);
	ibve_buf_putc(b, ']');
}

static int owner_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
		       char *err, size_t errlen)
{
	uint64_t u;
	int r;

	if (ev->source != IBVE_SOURCE_KERNEL)
		return 0;
	r = ibve_get_uint(o, K_PID, UINT32_MAX, &u, err, errlen);
	if (r <= 0)
		return r < 0 ? r : 0;
	ev->kernel.pid = (uint32_t)u;
	ev->fields |= IBVE_FIELD_OWNER;
	/* comm and cgroup: no flag of their own */
	if (opt_str(o, K_COMM, ev->kernel.comm, sizeof(ev->kernel.comm), ev, 0,
		    err, errlen) ||
	    opt_str(o, K_CGROUP, ev->kernel.cgroup, sizeof(ev->kernel.cgroup),
		    ev, 0, err, errlen))
		return -EINVAL;
	return 0;
}

STR_FIELD(consumer, K_KERNEL, kernel.consumer, IBVE_FIELD_KERNEL,
	  IBVE_SOURCE_KERNEL)

static void consumer_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ibve_buf_puts(b, "kernel ");
	ibve_buf_text_str(b, ev->kernel.consumer);
}

static void after_json(struct ibve_json *j, const struct ibve_event *ev)
{
	ibve_json_str(j, "after", ev->kernel.after);
	if (ev->kernel.after_port)
		ibve_json_uint(j, "after_port", ev->kernel.after_port);
	ibve_json_uint(j, "after_us", ev->kernel.after_us);
	if (ev->kernel.recovered)
		ibve_json_uint(j, "recovered_us", ev->kernel.recovered_us);
}

/* A duration of US microseconds in ms: "0.8 ms", "795 ms". */
static void ms_text(struct ibve_buf *b, uint64_t us)
{
	if (us < 10000)
		ibve_buf_printf(b, "%.1f ms", (double)us / 1000);
	else
		ibve_buf_printf(b, "%" PRIu64 " ms", us / 1000);
}

static void after_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ms_text(b, ev->kernel.after_us);
	ibve_buf_puts(b, " after ");
	ibve_buf_text_str(b, ev->kernel.after);
	ibve_buf_putc(b, ' ');
	ibve_buf_text_str(b, ev->device);
	if (ev->kernel.after_port)
		ibve_buf_printf(b, "/%u", ev->kernel.after_port);
	if (ev->kernel.recovered) {
		ibve_buf_puts(b, ", the port had recovered ");
		ms_text(b, ev->kernel.recovered_us);
		ibve_buf_puts(b, " after it");
	}
}

static int after_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
		       char *err, size_t errlen)
{
	uint64_t u;
	int r;

	if (ev->source != IBVE_SOURCE_KERNEL)
		return 0;
	r = opt_str(o, K_AFTER, ev->kernel.after, sizeof(ev->kernel.after), ev,
		    IBVE_FIELD_AFTER, err, errlen);
	if (r || !(ev->fields & IBVE_FIELD_AFTER))
		return r;
	if (ibve_get_uint(o, K_AFTER_PORT, UINT32_MAX, &u, err, errlen) < 0 ||
	    ibve_get_uint(o, K_AFTER_US, UINT64_MAX, &ev->kernel.after_us, err,
			  errlen) < 0)
		return -EINVAL;
	ev->kernel.after_port = (uint32_t)u;
	r = ibve_get_uint(o, K_RECOVERED_US, UINT64_MAX,
			  &ev->kernel.recovered_us, err, errlen);
	ev->kernel.recovered = r > 0;
	return r < 0 ? r : 0;
}

UINT_FIELD(wq, K_WQ_NUM, wq_num, UINT32_MAX, IBVE_FIELD_WQ_NUM, -1)

static void wq_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ibve_buf_printf(b, "wq 0x%06x", ev->wq_num);
}

UINT_FIELD(handle, K_HANDLE, handle, UINT32_MAX, IBVE_FIELD_HANDLE, -1)

static void handle_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	/* "cq handle 3" where there is no number to name the object */
	if (!(ev->fields & (IBVE_FIELD_QP_NUM | IBVE_FIELD_WQ_NUM)))
		ibve_buf_printf(b, "%s ", ibve_class_name(ev->cls));
	ibve_buf_printf(b, "handle %u", ev->handle);
}

/* --- chardev, netdev --------------------------------------------------- */

STR_FIELD(chardev, K_CHARDEV, chardev, IBVE_FIELD_CHARDEV, -1)

static void chardev_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ibve_buf_text_str(b, ev->chardev);
}

static void netdev_json(struct ibve_json *j, const struct ibve_event *ev)
{
	ibve_json_str(j, "netdev", ev->netdev);
	ibve_json_uint(j, "netdev_index", ev->netdev_index);
}

static void netdev_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ibve_buf_puts(b, "netdev ");
	ibve_buf_text_str(b, ev->netdev[0] ? ev->netdev : "?");
}

static int netdev_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
			char *err, size_t errlen)
{
	uint64_t u;
	int r;

	if (opt_str(o, K_NETDEV, ev->netdev, sizeof(ev->netdev), ev,
		    IBVE_FIELD_NETDEV, err, errlen) ||
	    (r = ibve_get_uint(o, K_NETDEV_INDEX, UINT32_MAX, &u, err,
			       errlen)) < 0)
		return -EINVAL;
	ev->netdev_index = (uint32_t)u;
	if (r)
		ev->fields |= IBVE_FIELD_NETDEV;
	return 0;
}

/* --- lost ------------------------------------------------------------ */

UINT_FIELD(lost, K_LOST, lost, UINT64_MAX, IBVE_FIELD_LOST, -1)

static void lost_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ibve_buf_printf(b, "lost %" PRIu64, ev->lost);
}

/* --- verbs: down time, rate changes --------------------------------------- */
/* Its fields share the area with others': parsed on its records only. */

UINT_FIELD(down, K_DOWN_US, verbs.down_us, UINT64_MAX, IBVE_FIELD_DOWN,
	   IBVE_SOURCE_VERBS)

/* A duration for people: "850 ms", "12.3 s", "4m05s", "2h10m". */
static void put_duration(struct ibve_buf *b, uint64_t us)
{
	uint64_t s = us / 1000000;

	if (us < 1000000)
		ibve_buf_printf(b, "%" PRIu64 " ms", us / 1000);
	else if (s < 60)
		ibve_buf_printf(b, "%.1f s", (double)us / 1e6);
	else if (s < 3600)
		ibve_buf_printf(b, "%" PRIu64 "m%02" PRIu64 "s", s / 60,
				s % 60);
	else
		ibve_buf_printf(b, "%" PRIu64 "h%02" PRIu64 "m", s / 3600,
				s / 60 % 60);
}

static void down_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ibve_buf_puts(b, "down ");
	put_duration(b, ev->verbs.down_us);
}

static void rates_json(struct ibve_json *j, const struct ibve_event *ev)
{
	ibve_json_open_array(j, "rates");
	for (uint32_t i = 0; i < ev->verbs.nrates; i++) {
		const struct ibve_rate_change *c = &ev->verbs.rates[i];

		ibve_json_open(j, NULL);
		ibve_json_uint(j, "port", c->port);
		ibve_json_str(j, "old", c->old_rate);
		ibve_json_str(j, "new", c->new_rate);
		ibve_json_close(j);
	}
	ibve_json_close_array(j);
}

static void rates_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	for (uint32_t i = 0; i < ev->verbs.nrates; i++) {
		const struct ibve_rate_change *c = &ev->verbs.rates[i];

		ibve_buf_printf(b, "%sport %u: ", i ? ", " : "", c->port);
		ibve_buf_text_str(b, c->old_rate[0] ? c->old_rate : "?");
		ibve_buf_puts(b, " -> ");
		ibve_buf_text_str(b, c->new_rate[0] ? c->new_rate : "?");
	}
}

/* One {"port":N,"old":"...","new":"..."} of "rates" into C. */
static int rate_parse(struct json_object *x, struct ibve_rate_change *c,
		      char *err, size_t errlen)
{
	struct json_object *p, *o, *n;
	int64_t port;

	if (!json_object_is_type(x, json_type_object) ||
	    !json_object_object_get_ex(x, "port", &p) ||
	    !json_object_is_type(p, json_type_int) ||
	    !json_object_object_get_ex(x, "old", &o) ||
	    !json_object_is_type(o, json_type_string) ||
	    !json_object_object_get_ex(x, "new", &n) ||
	    !json_object_is_type(n, json_type_string))
		FAIL("\"rates\" holds {\"port\":N,\"old\":\"...\",\"new\":\"...\"}");
	port = json_object_get_int64(p);
	if (port < 1 || port > UINT16_MAX)
		FAIL("\"rates\": port out of range");
	c->port = (uint32_t)port;
	if (ibve_copy_str(c->old_rate, sizeof(c->old_rate), "old",
			  json_object_get_string(o), err, errlen) ||
	    ibve_copy_str(c->new_rate, sizeof(c->new_rate), "new",
			  json_object_get_string(n), err, errlen))
		return -EINVAL;
	return 0;
}

static int rates_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
		       char *err, size_t errlen)
{
	struct json_object *a;
	struct ibve_jval v;
	size_t n;

	o->get(o, K_RATES, &v);
	if (v.type == J_ABSENT || v.type == J_NULL ||
	    ev->source != IBVE_SOURCE_VERBS)
		return 0;
	a = (struct json_object *)v.obj;
	if (v.type != J_OTHER || !a || !json_object_is_type(a, json_type_array))
		FAIL("\"rates\" must be an array");
	n = json_object_array_length(a);
	if (n > IBVE_RATES_MAX)
		FAIL("\"rates\" holds more than %d ports", IBVE_RATES_MAX);
	for (size_t i = 0; i < n; i++)
		if (rate_parse(json_object_array_get_idx(a, i),
			       &ev->verbs.rates[i], err, errlen))
			return -EINVAL;
	ev->verbs.nrates = (uint32_t)n;
	if (n)
		ev->fields |= IBVE_FIELD_RATES;
	return 0;
}

/* --- verbs: a port's peer ------------------------------------------------ */

static void peer_json(struct ibve_json *j, const struct ibve_event *ev)
{
	ibve_json_peer(j, "peer", &ev->verbs.peer);
}

static void peer_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	char words[256];

	ibve_peer_format(&ev->verbs.peer, words, sizeof(words));
	ibve_buf_puts(b, ev->verbs.peer.changed ? "peer now " : "peer ");
	ibve_buf_text_str(b, words);
}

/* KEY of the peer object X: a string (NULL: absent) into DST. */
static int peer_str(struct json_object *x, const char *key, char *dst,
		    size_t size, char *err, size_t errlen)
{
	struct json_object *v;

	if (!json_object_object_get_ex(x, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		FAIL("\"peer\": \"%s\" must be a string", key);
	return ibve_copy_str(dst, size, key, json_object_get_string(v), err,
			     errlen);
}

/* The index of NAME among N names of LOOKUP, or -1. */
static int peer_enum(const char *name, const char *(*lookup)(int), int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(lookup(i), name) == 0)
			return i;
	return -1;
}

static int peer_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
		      char *err, size_t errlen)
{
	struct ibve_peer *p = &ev->verbs.peer;
	struct json_object *x, *v;
	struct ibve_jval jv;
	char kind[8] = "", state[8] = "", type[8] = "", guid[32] = "";
	int k, st, nt = 0;

	o->get(o, K_PEER, &jv);
	if (jv.type == J_ABSENT || jv.type == J_NULL ||
	    ev->source != IBVE_SOURCE_VERBS)
		return 0;
	x = (struct json_object *)jv.obj;
	if (jv.type != J_OTHER || !x ||
	    !json_object_is_type(x, json_type_object))
		FAIL("\"peer\" must be an object");
	memset(p, 0, sizeof(*p));
	if (peer_str(x, "kind", kind, sizeof(kind), err, errlen) ||
	    peer_str(x, "state", state, sizeof(state), err, errlen) ||
	    peer_str(x, "node_type", type, sizeof(type), err, errlen) ||
	    peer_str(x, "guid", guid, sizeof(guid), err, errlen) ||
	    peer_str(x, "reason", p->reason, sizeof(p->reason), err, errlen) ||
	    peer_str(x, "chassis", p->chassis, sizeof(p->chassis), err,
		     errlen) ||
	    peer_str(x, "port_id", p->port_id, sizeof(p->port_id), err,
		     errlen) ||
	    peer_str(x, "name", p->name, sizeof(p->name), err, errlen) ||
	    peer_str(x, "port_desc", p->port_desc, sizeof(p->port_desc), err,
		     errlen))
		return -EINVAL;
	k = peer_enum(kind, ibve_peer_kind_name, 2);
	st = peer_enum(state, ibve_peer_state_name, 3);
	if (type[0])
		nt = peer_enum(type, ibve_peer_node_name, 4);
	if (k < 0 || st < 0 || nt < 0)
		FAIL("\"peer\": kind ib or lldp, state unknown, none or known, "
		     "node_type CA, switch or router");
	if (guid[0] && ibve_guid_parse(guid, &p->guid))
		FAIL("\"peer\": \"guid\" must be a GUID (0002:c903:0011:2233)");
	if (json_object_object_get_ex(x, "port", &v)) {
		int64_t port = json_object_get_int64(v);

		if (!json_object_is_type(v, json_type_int) || port < 0 ||
		    port > 255)
			FAIL("\"peer\": \"port\" must be a port number");
		p->port = (uint32_t)port;
	}
	if (json_object_object_get_ex(x, "changed", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			FAIL("\"peer\": \"changed\" must be true or false");
		p->changed = json_object_get_boolean(v);
	}
	p->kind = (uint8_t)k;
	p->state = (uint8_t)st;
	p->node_type = (uint8_t)nt;
	ev->fields |= IBVE_FIELD_PEER;
	return 0;
}

/* --- sm: the notice's GID, issuer and producer --------------------------- */

static void put_gid(struct ibve_buf *b, const uint8_t *gid)
{
	for (int i = 0; i < 16; i += 2)
		ibve_buf_printf(b, "%s%02x%02x", i ? ":" : "", gid[i],
				gid[i + 1]);
}

static void sm_json(struct ibve_json *j, const struct ibve_event *ev)
{
	char gid[40];
	struct ibve_buf g = { gid, sizeof(gid), 0 };

	put_gid(&g, ev->sm.gid);
	ibve_json_name_n(j, "gid", gid, g.len);
	ibve_json_uint(j, "issuer_lid", ev->sm.issuer_lid);
	ibve_json_uint(j, "producer_type", ev->sm.producer_type);
}

static void sm_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ibve_buf_puts(b, "gid ");
	put_gid(b, ev->sm.gid);
	ibve_buf_printf(b, ", issuer lid %u", ev->sm.issuer_lid);
}

int ibve_hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int hex_bytes(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = ibve_hex_value((unsigned char)s[2 * i]);
		int lo = hi < 0 ? -1
				: ibve_hex_value((unsigned char)s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return s[2 * n] ? -EINVAL : 0;
}

static int parse_gid(const char *s, uint8_t *gid)
{
	char hex[33];
	size_t n = 0;

	for (; *s && n < 32; s++)
		if (*s != ':')
			hex[n++] = *s;
	if (*s || n != 32)
		return -EINVAL;
	hex[n] = '\0';
	return hex_bytes(hex, gid, 16);
}

static int sm_parse(const struct ibve_jsrc *o, struct ibve_event *ev, char *err,
		    size_t errlen)
{
	const char *s;
	uint64_t u;
	int r = ibve_get_str(o, K_GID, &s, err, errlen);

	/* the subnet's records only: the fields share the record's room
	 * with other sources' (an mlx5 entry decoded over them was written
	 * back as a notice with the entry's bytes for its producer) */
	if (r <= 0 || ev->source != IBVE_SOURCE_SM)
		return r < 0 ? r : 0;
	if (parse_gid(s, ev->sm.gid))
		FAIL("\"gid\" is not a GID");
	ev->fields |= IBVE_FIELD_SM;
	/* absent: 0, as the parser found the record */
	if (ibve_get_uint(o, K_ISSUER_LID, UINT16_MAX, &u, err, errlen) < 0)
		return -EINVAL;
	ev->sm.issuer_lid = (uint16_t)u;
	r = ibve_get_uint(o, K_PRODUCER_TYPE, 0xffffff, &u, err, errlen);
	ev->sm.producer_type = (uint32_t)u;
	return r < 0 ? r : 0;
}

/* --- storm summaries ----------------------------------------------------- */

static void summary_json(struct ibve_json *j, const struct ibve_event *ev)
{
	const struct ibve_summary *m = &ev->summary;

	ibve_json_uint(j, "count", m->count);
	ibve_json_uint(j, "interval_us", m->interval_us);
	if (m->has_last)
		ibve_json_uint(j, "last_object", m->last_object);
	if (!m->end)
		return;
	ibve_json_uint(j, "storm_total", m->total);
	ibve_json_uint(j, "storm_us", m->storm_us);
}

/* N events in US microseconds: "12,345 in 1.0 s", commas by thousands. */
static void count_in(struct ibve_buf *b, uint64_t n, uint64_t us)
{
	char d[24];
	int len = snprintf(d, sizeof(d), "%" PRIu64, n);

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			ibve_buf_putc(b, ',');
		ibve_buf_putc(b, d[i]);
	}
	ibve_buf_printf(b, " in %.1f s", (double)us / 1e6);
}

void ibve_buf_summary(struct ibve_buf *b, const struct ibve_event *ev)
{
	const struct ibve_summary *m = &ev->summary;

	ibve_buf_puts(b, m->end ? "storm over: " : "storm: ");
	if (m->end && !m->count) { /* its last second had none */
		count_in(b, m->total, m->storm_us);
		return;
	}
	ibve_buf_putc(b, 'x');
	count_in(b, m->count, m->interval_us);
	if (m->has_last) {
		ibve_buf_puts(b, ", last ");
		if (ev->fields & IBVE_FIELD_QP_NUM)
			ibve_buf_printf(b, "qp 0x%06x", m->last_object);
		else if (ev->fields & IBVE_FIELD_WQ_NUM)
			ibve_buf_printf(b, "wq 0x%06x", m->last_object);
		else
			ibve_buf_printf(b, "handle %u", m->last_object);
	}
	if (!m->end)
		return;
	ibve_buf_puts(b, ", ");
	count_in(b, m->total, m->storm_us);
	ibve_buf_puts(b, " in all");
}

static int summary_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
			 char *err, size_t errlen)
{
	struct ibve_summary *m = &ev->summary;
	uint64_t u;
	int r = ibve_get_uint(o, K_STORM_COUNT, UINT64_MAX, &m->count, err,
			      errlen);

	if (r <= 0)
		return r;
	ev->fields |= IBVE_FIELD_SUMMARY;
	if ((r = ibve_get_uint(o, K_INTERVAL_US, UINT64_MAX, &m->interval_us,
			       err, errlen)) < 0 ||
	    (r = ibve_get_uint(o, K_LAST_OBJECT, UINT32_MAX, &u, err, errlen)) <
		    0)
		return r;
	m->has_last = r > 0;
	m->last_object = (uint32_t)u;
	if ((r = ibve_get_uint(o, K_STORM_TOTAL, UINT64_MAX, &m->total, err,
			       errlen)) < 0)
		return r;
	m->end = r > 0;
	r = ibve_get_uint(o, K_STORM_US, UINT64_MAX, &m->storm_us, err, errlen);
	return r < 0 ? r : 0;
}

/* --- mlx5: the raw entry, decoded ------------------------------------------ */

static int mlx5_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
		      char *err, size_t errlen)
{
	struct ibve_event line;
	struct ibve_jval v;
	uint8_t eqe[64];
	const char *s;
	bool same;
	int r = ibve_get_str(o, K_EQE, &s, err, errlen);

	if (r <= 0)
		return r;
	/* The entry itself says what happened: decode it here. */
	if (hex_bytes(s, eqe, sizeof(eqe)))
		FAIL("\"eqe\" is not 64 bytes of hex");
	memcpy(&line, ev, sizeof(line));
	ibve_mlx5_decode(ev, eqe, sizeof(eqe));
	/*
	 * The event the entry says, against what the line says beside it
	 * (LINE, its identity as parsed; no name: nothing said). A name this
	 * version does not know cannot be compared: the entry decides.
	 */
	if (!line.name[0])
		return 0;
	if (line.desc)
		same = line.desc->source == IBVE_SOURCE_MLX5 &&
		       line.desc->code == ev->code;
	else if (strncmp(line.name, "UNKNOWN(", 8) == 0)
		same = line.code == ev->code;
	else
		return 0;
	if (same)
		return 0;
	o->get(o, K_EVENT, &v);
	if (v.type == J_STRING)
		FAIL("\"event\" %s disagrees with its \"eqe\" (%s)", line.name,
		     ev->name);
	FAIL("\"code\" %d disagrees with its \"eqe\" (%s)", line.code,
	     ev->name);
}

/* In the order of JSON and text output; the raw mlx5 entry last. */
const struct ibve_fieldspec ibve_fields[] = {
	{ IBVE_FIELD_QP_NUM, K_QP_NUM, qp_json, qp_text, qp_parse },
	/* text: beside the QP number */
	{ IBVE_FIELD_QP_TYPE, K_QP_TYPE, qp_type_json, NULL, qp_type_parse },
	{ IBVE_FIELD_WQ_NUM, K_WQ_NUM, wq_json, wq_text, wq_parse },
	{ IBVE_FIELD_HANDLE, K_HANDLE, handle_json, handle_text, handle_parse },
	/* comm and cgroup mean nothing without a pid */
	{ IBVE_FIELD_OWNER, K_PID, owner_json, owner_text, owner_parse },
	{ IBVE_FIELD_KERNEL, K_KERNEL, consumer_json, consumer_text,
	  consumer_parse },
	{ IBVE_FIELD_AFTER, K_AFTER, after_json, after_text, after_parse },
	{ IBVE_FIELD_CHARDEV, K_CHARDEV, chardev_json, chardev_text,
	  chardev_parse },
	{ IBVE_FIELD_NETDEV, K_NETDEV, netdev_json, netdev_text, netdev_parse },
	{ IBVE_FIELD_LOST, K_LOST, lost_json, lost_text, lost_parse },
	{ IBVE_FIELD_DOWN, K_DOWN_US, down_json, down_text, down_parse },
	{ IBVE_FIELD_RATES, K_RATES, rates_json, rates_text, rates_parse },
	{ IBVE_FIELD_PEER, K_PEER, peer_json, peer_text, peer_parse },
	/* issuer_lid and producer_type mean nothing without a gid */
	{ IBVE_FIELD_SM, K_GID, sm_json, sm_text, sm_parse },
	/* text: the summary's words stand where the event's text does */
	{ IBVE_FIELD_SUMMARY, K_STORM_COUNT, summary_json, NULL,
	  summary_parse },
	{ IBVE_FIELD_MLX5, K_EQE, ibve_mlx5_json, ibve_mlx5_details,
	  mlx5_parse },
};

const size_t ibve_nfields = ARRAY_SIZE(ibve_fields);

void ibve_buf_event_details(struct ibve_buf *b, const struct ibve_event *ev)
{
	size_t start = b->len;

	for (size_t i = 0; i < ibve_nfields; i++) {
		if (!(ev->fields & ibve_fields[i].flag) || !ibve_fields[i].text)
			continue;
		ibve_buf_puts(b, b->len == start ? " (" : ", ");
		ibve_fields[i].text(b, ev);
	}
	if (b->len != start)
		ibve_buf_putc(b, ')');
}

void ibve_json_event_fields(struct ibve_json *j, const struct ibve_event *ev)
{
	if (!ev->fields)
		return; /* a port's event: most records */
	for (size_t i = 0; i < ibve_nfields; i++)
		if (ev->fields & ibve_fields[i].flag)
			ibve_fields[i].json(j, ev);
}
