// SPDX-License-Identifier: MIT
/*
 * The field engine: every source's field rows gathered once, in their
 * order, their keys numbered after the fixed ones; JSON, text and the
 * parser walk them. A row of a simple type is written and read here; the
 * fields any record may have (an object's numbers, the device nodes, what
 * was lost, a storm's summary) are this file's own rows.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

#include "buf.h"
#include "fields.h"
#include "source.h"

int ibve_field_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

struct ibve_key_name ibve_keys[IBVE_KEYS_MAX] = {
#define KEY_ROW(id, s, f) [K_##id] = { #s, sizeof(#s) - 1 },
	IBVE_KEYS_FIXED(KEY_ROW)
#undef KEY_ROW
};
int ibve_nkeys = K_FIXED;
int ibve_identity_key = -1, ibve_identity_source = -1;

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

int ibve_get_opt_str(const struct ibve_jsrc *o, int key, char *dst, size_t size,
		     struct ibve_event *ev, uint32_t flag, char *err,
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

int ibve_hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int ibve_hex_bytes(const char *s, uint8_t *out, size_t n)
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

/* --- the rows of any record ---------------------------------------------- */

/* A QP's type: its number and name (the kernel source's, text and parse). */
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

int ibve_qp_type_parse(const char *s, uint32_t *type)
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

static void qp_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ibve_buf_printf(b, "qp 0x%06x", ev->qp_num);
	/* the kernel source's type, beside the number (its own row has no
	 * words: one object, one part of the text) */
	if (ev->fields & IBVE_FIELD_QP_TYPE)
		ibve_buf_printf(b, " %s",
				ibve_qp_type_name(ev->kernel.qp_type));
}

static void handle_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	/* "cq handle 3" where there is no number to name the object */
	if (!(ev->fields & (IBVE_FIELD_QP_NUM | IBVE_FIELD_WQ_NUM)))
		ibve_buf_printf(b, "%s ", ibve_class_name(ev->cls));
	ibve_buf_printf(b, "handle %u", ev->handle);
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
			int key, char *err, size_t errlen)
{
	uint64_t u;
	int r;

	if (ibve_get_opt_str(o, key, ev->netdev, sizeof(ev->netdev), ev,
			     IBVE_FIELD_NETDEV, err, errlen) ||
	    (r = ibve_get_uint(o, key + 1, UINT32_MAX, &u, err, errlen)) < 0)
		return -EINVAL;
	ev->netdev_index = (uint32_t)u;
	if (r)
		ev->fields |= IBVE_FIELD_NETDEV;
	return 0;
}

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
			 int key, char *err, size_t errlen)
{
	enum { COUNT, INTERVAL, LAST, TOTAL, STORM_US };
	struct ibve_summary *m = &ev->summary;
	uint64_t u;
	int r = ibve_get_uint(o, key + COUNT, UINT64_MAX, &m->count, err,
			      errlen);

	if (r <= 0)
		return r;
	ev->fields |= IBVE_FIELD_SUMMARY;
	if ((r = ibve_get_uint(o, key + INTERVAL, UINT64_MAX, &m->interval_us,
			       err, errlen)) < 0 ||
	    (r = ibve_get_uint(o, key + LAST, UINT32_MAX, &u, err, errlen)) < 0)
		return r;
	m->has_last = r > 0;
	m->last_object = (uint32_t)u;
	if ((r = ibve_get_uint(o, key + TOTAL, UINT64_MAX, &m->total, err,
			       errlen)) < 0)
		return r;
	m->end = r > 0;
	r = ibve_get_uint(o, key + STORM_US, UINT64_MAX, &m->storm_us, err,
			  errlen);
	return r < 0 ? r : 0;
}

#define OWN(k, ord, f, j, t, p)                                           \
	{                                                                 \
		.keys = k, .order = ord, .flag = f, .json = j, .text = t, \
		.parse = p                                                \
	}

/* What any record may have; the sources' rows come between by order. */
static const struct ibve_fieldspec common[] = {
	{ .keys = "qp_num",
	  .order = 10,
	  .flag = IBVE_FIELD_QP_NUM,
	  .type = FT_U32,
	  .off = offsetof(struct ibve_event, qp_num),
	  .size = 4,
	  .text = qp_text },
	IBVE_FIELD("wq_num", 30, FT_U32, wq_num, IBVE_FIELD_WQ_NUM,
		   "wq 0x%06" PRIx64, NULL),
	{ .keys = "handle",
	  .order = 40,
	  .flag = IBVE_FIELD_HANDLE,
	  .type = FT_U32,
	  .off = offsetof(struct ibve_event, handle),
	  .size = 4,
	  .text = handle_text },
	IBVE_FIELD("chardev", 80, FT_STR, chardev, IBVE_FIELD_CHARDEV, "",
		   NULL),
	OWN("netdev netdev_index", 90, IBVE_FIELD_NETDEV, netdev_json,
	    netdev_text, netdev_parse),
	IBVE_FIELD("lost", 100, FT_U64, lost, IBVE_FIELD_LOST, "lost %" PRIu64,
		   NULL),
	/* text: the summary's words stand where the event's text does */
	OWN("count interval_us last_object storm_total storm_us", 150,
	    IBVE_FIELD_SUMMARY, summary_json, NULL, summary_parse),
};

/* --- the engine ------------------------------------------------------------ */

static struct ibve_frow rows[64];
const struct ibve_frow *ibve_fields = rows;
size_t ibve_nfields;
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;
static bool rows_ready;

/* Each key of F's KEYS numbered from *N into ibve_keys; its count. */
static int number_keys(const struct ibve_fieldspec *f, int *n)
{
	int k = 0;

	for (const char *p = f->keys; *p;) {
		size_t len = strcspn(p, " ");

		ibve_keys[*n + k].name = strndup(p, len);
		ibve_keys[*n + k].len = (uint8_t)len;
		k++;
		p += len + (p[len] == ' ');
	}
	*n += k;
	return k;
}

static void add_rows(const struct ibve_fieldspec *f, size_t n, int source)
{
	for (size_t i = 0; i < n; i++) {
		size_t at = ibve_nfields++;

		/* in order; equal orders as registered */
		while (at && rows[at - 1].spec->order > f[i].order) {
			rows[at] = rows[at - 1];
			at--;
		}
		rows[at] = (struct ibve_frow){ &f[i], 0, 0, source };
	}
}

static void gather(void)
{
	int n = K_FIXED;

	__atomic_store_n(&ibve_sources_sealed, true, __ATOMIC_RELEASE);
	add_rows(common, ARRAY_SIZE(common), -1);
	for (size_t i = 0; ibve_source_list[i]; i++)
		add_rows(ibve_source_list[i]->fields,
			 ibve_source_list[i]->nfields,
			 ibve_source_list[i]->records);
	for (size_t i = 0; i < ibve_nfields; i++) {
		rows[i].key = n;
		rows[i].nkeys = number_keys(rows[i].spec, &n);
		if (rows[i].spec->identity) {
			ibve_identity_key = rows[i].key;
			ibve_identity_source = rows[i].source;
		}
	}
	ibve_nkeys = n;
	__atomic_store_n(&rows_ready, true, __ATOMIC_RELEASE);
}

void ibve_fields_ready(void)
{
	if (!__atomic_load_n(&rows_ready, __ATOMIC_ACQUIRE))
		pthread_once(&rows_once, gather);
}

const struct ibve_frow *ibve_field_of_key(int key)
{
	ibve_fields_ready();
	for (size_t i = 0; i < ibve_nfields; i++)
		if (key >= rows[i].key && key < rows[i].key + rows[i].nkeys)
			return &rows[i];
	return NULL;
}

/* Whether the N bytes at K are a key of F (a row's keys). */
static bool has_key(const struct ibve_fieldspec *f, const char *k, size_t n)
{
	for (const char *p = f->keys; *p;) {
		size_t len = strcspn(p, " ");

		if (len == n && !strncmp(p, k, n))
			return true;
		p += len + (p[len] == ' ');
	}
	return false;
}

/* Whether key K of N bytes is taken: a fixed key, or a row's of SRC. */
static bool taken(const struct ibve_source_ops *const *src, const char *k,
		  size_t n)
{
	for (int i = 0; i < K_FIXED; i++)
		if (ibve_keys[i].len == n && !strncmp(ibve_keys[i].name, k, n))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(common); i++)
		if (has_key(&common[i], k, n))
			return true;
	for (; *src; src++)
		for (size_t i = 0; i < (*src)->nfields; i++)
			if (has_key(&(*src)->fields[i], k, n))
				return true;
	return false;
}

/* How many keys the N rows of F have. */
static int count_keys(const struct ibve_fieldspec *f, size_t n)
{
	int k = 0;

	for (size_t i = 0; i < n; i++)
		for (const char *p = f[i].keys; *p; k++)
			p += strcspn(p, " "), p += *p == ' ';
	return k;
}

int ibve_fields_admit(const struct ibve_source_ops *o)
{
	size_t nrows = ARRAY_SIZE(common) + o->nfields;
	int nkeys = K_FIXED + count_keys(common, ARRAY_SIZE(common)) +
		    count_keys(o->fields, o->nfields);

	for (size_t s = 0; ibve_source_list[s]; s++) {
		nrows += ibve_source_list[s]->nfields;
		nkeys += count_keys(ibve_source_list[s]->fields,
				    ibve_source_list[s]->nfields);
	}
	if (nrows > ARRAY_SIZE(rows) || nkeys > IBVE_KEYS_MAX)
		return ibve_error(
			ENOSPC,
			"source '%s': more than %zu field rows or %d keys in all",
			o->name, ARRAY_SIZE(rows), IBVE_KEYS_MAX);
	for (size_t i = 0; i < o->nfields; i++)
		for (const char *p = o->fields[i].keys; *p;) {
			size_t len = strcspn(p, " ");

			if (taken(ibve_source_list, p, len))
				return ibve_error(
					EEXIST,
					"source '%s': key \"%.*s\" is another field's",
					o->name, (int)len, p);
			p += len + (p[len] == ' ');
		}
	return 0;
}

static uint64_t value(const struct ibve_fieldspec *f,
		      const struct ibve_event *ev)
{
	const void *p = (const char *)ev + f->off;

	return f->type == FT_U32 ? *(const uint32_t *)p : *(const uint64_t *)p;
}

static void row_json(struct ibve_json *j, const struct ibve_frow *r,
		     const struct ibve_event *ev)
{
	const struct ibve_fieldspec *f = r->spec;

	if (f->type == FT_STR)
		ibve_json_str(j, ibve_keys[r->key].name,
			      (const char *)ev + f->off);
	else if (f->type != FT_OWN)
		ibve_json_uint(j, ibve_keys[r->key].name, value(f, ev));
	else
		f->json(j, ev);
}

static void row_text(struct ibve_buf *b, const struct ibve_fieldspec *f,
		     const struct ibve_event *ev)
{
	if (f->text) {
		f->text(b, ev);
	} else if (f->type == FT_STR) {
		ibve_buf_puts(b, f->words);
		ibve_buf_text_str(b, (const char *)ev + f->off);
	} else {
		ibve_buf_printf(b, f->words, value(f, ev));
	}
}

static int row_parse(const struct ibve_jsrc *o, const struct ibve_frow *r,
		     struct ibve_event *ev, char *err, size_t errlen)
{
	const struct ibve_fieldspec *f = r->spec;
	void *p = (char *)ev + f->off;
	uint64_t u;
	int rc;

	/* a source's fields share the record's room with others' */
	if (r->source >= 0 && (int)ev->source != r->source)
		return 0;
	if (f->type == FT_OWN)
		return f->parse(o, ev, r->key, err, errlen);
	if (f->type == FT_STR)
		return ibve_get_opt_str(o, r->key, p, f->size, ev, f->flag, err,
					errlen);
	rc = ibve_get_uint(o, r->key,
			   f->type == FT_U32 ? UINT32_MAX : UINT64_MAX, &u, err,
			   errlen);
	if (rc <= 0)
		return rc;
	if (f->type == FT_U32)
		*(uint32_t *)p = (uint32_t)u;
	else
		*(uint64_t *)p = u;
	ev->fields |= f->flag;
	return 0;
}

int ibve_fields_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
		      char *err, size_t errlen)
{
	size_t i = 0, ran = SIZE_MAX;

	/* each row that has a key in the line, once, in order */
	for (int w = K_FIXED / 64; w < (int)ARRAY_SIZE(o->present.w); w++) {
		uint64_t m = o->present.w[w];

		if (w == K_FIXED / 64) /* a port's event, most lines: none */
			m &= ~0ull << (K_FIXED % 64);
		for (; m; m &= m - 1) {
			int k = w * 64 + __builtin_ctzll(m);

			if (k >= ibve_nkeys)
				return 0; /* json-c's line: all set */
			while (i + 1 < ibve_nfields && rows[i + 1].key <= k)
				i++;
			if (i == ran)
				continue; /* the row of the key before */
			ran = i;
			if (row_parse(o, &rows[i], ev, err, errlen))
				return -EINVAL;
		}
	}
	return 0;
}

void ibve_buf_event_details(struct ibve_buf *b, const struct ibve_event *ev)
{
	size_t start = b->len;

	if (!ev->fields)
		return;
	ibve_fields_ready();
	for (size_t i = 0; i < ibve_nfields; i++) {
		const struct ibve_fieldspec *f = rows[i].spec;

		if (!(ev->fields & f->flag) || (!f->text && !f->words))
			continue;
		ibve_buf_puts(b, b->len == start ? " (" : ", ");
		row_text(b, f, ev);
	}
	if (b->len != start)
		ibve_buf_putc(b, ')');
}

void ibve_json_event_fields(struct ibve_json *j, const struct ibve_event *ev)
{
	if (!ev->fields)
		return; /* a port's event: most records */
	ibve_fields_ready();
	for (size_t i = 0; i < ibve_nfields; i++)
		if (ev->fields & rows[i].spec->flag)
			row_json(j, &rows[i], ev);
}
