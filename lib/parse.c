// SPDX-License-Identifier: MIT
/*
 * Reading records back from JSON Lines. Only "time", "device", "port" and
 * "event" (or "code") are needed; every other field is optional and
 * unknown fields are ignored, so captures from newer versions still replay.
 *
 * What each field must be is decided once, against a small field
 * interface (struct ibve_jsrc). Two readers feed it: json-c, the reference, and
 * a scanner for flat objects that allocates nothing and hands every line
 * it is not sure of (nesting, \u surrogates or NUL, raw control bytes,
 * numbers that are not plain integers, unusual white space) to json-c. A
 * malformed line therefore always gets json-c's verdict; on the lines the
 * scanner takes, both give the same record (a fuzz target checks that).
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "dl_jsonc.h"

#include "buf.h"
#include "event.h"
#include "fields.h"
#include "parse.h"

/* "UNKNOWN(20)" -> 20; -1 when NAME is not of that form. */
static int64_t unknown_code(const char *name)
{
	char *end;
	long long v;

	if (strncmp(name, "UNKNOWN(", 8) != 0 ||
	    !isdigit((unsigned char)name[8]))
		return -1;
	errno = 0;
	v = strtoll(name + 8, &end, 10);
	if (errno || end[0] != ')' || end[1] || v > INT32_MAX)
		return -1;
	return v;
}

/*
 * The event's identity: name or code, and what it implies. A raw mlx5
 * entry ("eqe") says what it is by itself: its source is mlx5 unless the
 * line says otherwise, and it needs no name or code (parse_optional()
 * decodes it and checks a name or code the line also has).
 */
static int parse_identity(const struct ibve_jsrc *o, struct ibve_event *ev,
			  char *err, size_t errlen)
{
	const struct ibve_event_desc *d;
	const char *name = NULL, *s;
	enum ibve_source source = IBVE_SOURCE_VERBS;
	struct ibve_jval v, eqe;
	uint64_t u;
	int64_t code = -1;
	bool said;
	int r;

	/* a key that says what the record is (an mlx5 entry) */
	eqe.type = J_ABSENT;
	if (ibve_identity_key >= 0)
		o->get(o, ibve_identity_key, &eqe);
	if (eqe.type == J_STRING)
		source = (enum ibve_source)ibve_identity_source;
	r = ibve_get_str(o, K_SOURCE, &s, err, errlen);
	if (r < 0)
		return r;
	said = r;
	if (r) {
		int src = ibve_source_parse(s);

		if (src < 0)
			FAIL("unknown source \"%.40s\"", s);
		source = (enum ibve_source)src;
	}
	if (eqe.type == J_STRING && (int)source != ibve_identity_source)
		FAIL("\"%s\" is an %s entry, but \"source\" is \"%s\"",
		     ibve_keys[ibve_identity_key].name,
		     ibve_source_name((enum ibve_source)ibve_identity_source),
		     ibve_source_name(source));
	r = ibve_get_uint(o, K_CODE, INT32_MAX, &u, err, errlen);
	if (r < 0)
		return r;
	if (r)
		code = (int64_t)u;
	r = ibve_get_str(o, K_EVENT, &name, err, errlen);
	if (r < 0)
		return r;

	if (!name) {
		if (code >= 0)
			ibve_event_set_code(ev, source, (int)code);
		else if (eqe.type != J_STRING)
			FAIL("needs \"event\" or \"code\"");
		ev->source = source; /* the entry's row decodes it */
		return 0;
	}
	d = ibve_event_desc_lookup(name);
	if (d) { /* the row of the source the line names, where it has one */
		ibve_event_set_row(ev, said ? (int)source : -1, d);
		return 0;
	}
	if (unknown_code(name) >= 0) {
		ibve_event_set_code(ev, source, (int)unknown_code(name));
		return 0;
	}

	/* A name from a newer version: keep what the line says of it. */
	if (!*name)
		FAIL("\"event\" is empty");
	if (ibve_copy_str(ev->name, sizeof(ev->name), "event", name, err,
			  errlen))
		return -EINVAL;
	ibve_event_set_unknown(ev, source, (int)code);
	ibve_strcpy(ev->name, name, sizeof(ev->name));
	o->get(o, K_CLASS, &v);
	if (v.type == J_STRING && ibve_class_parse(v.s) >= 0)
		ev->cls = (enum ibve_class)ibve_class_parse(v.s);
	o->get(o, K_SEVERITY, &v);
	if (v.type == J_STRING && ibve_severity_parse(v.s) >= 0)
		ev->severity = (enum ibve_severity)ibve_severity_parse(v.s);
	o->get(o, K_AFFILIATED, &v);
	if (v.type == J_BOOL)
		ev->affiliated = v.b;
	return 0;
}

static int parse_optional(const struct ibve_jsrc *o, struct ibve_event *ev,
			  char *err, size_t errlen)
{
	const char *s;
	int r;

	r = ibve_get_str(o, K_NODE_GUID, &s, err, errlen);
	if (r < 0)
		return r;
	if (r && ibve_guid_parse(s, &ev->node_guid))
		FAIL("\"node_guid\" is not a GUID");
	return ibve_fields_parse(o, ev, err, errlen);
}

static int parse_fields(const struct ibve_jsrc *o, struct ibve_event *ev,
			char *err, size_t errlen)
{
	struct ibve_jval v;
	const char *s;
	uint64_t u;
	int r;

	memset(ev, 0, sizeof(*ev));
	*err = '\0';
	ibve_fields_ready();
	r = ibve_get_str(o, K_TIME, &s, err, errlen);
	if (r < 0) /* err says why */
		return r;
	if (!r)
		FAIL("missing \"time\"");
	if (ibve_time_parse(s, &ev->time)) {
		/* shown as text shows names: escaped, and cut short */
		char cut[41], shown[41 * 4];
		struct ibve_buf b = { shown, sizeof(shown), 0 };

		ibve_strcpy(cut, s, sizeof(cut));
		ibve_buf_text_str(&b, cut);
		ibve_buf_end(&b);
		FAIL("\"time\" is not an RFC 3339 time: \"%s\"", shown);
	}

	r = ibve_get_str(o, K_DEVICE, &s, err, errlen);
	if (r < 0) /* err says why */
		return r;
	if (!r)
		FAIL("missing \"device\"");
	if (!*s)
		FAIL("\"device\" is empty");
	if (ibve_copy_str(ev->device, sizeof(ev->device), "device", s, err,
			  errlen))
		return -EINVAL;

	o->get(o, K_PORT, &v);
	if (v.type == J_ABSENT)
		FAIL("missing \"port\"");
	r = ibve_get_uint(o, K_PORT, UINT16_MAX, &u, err, errlen);
	if (r < 0)
		FAIL("\"port\" must be a port number or null");
	ev->port = r ? (uint32_t)u : 0;

	if (parse_identity(o, ev, err, errlen))
		return -EINVAL;
	return parse_optional(o, ev, err, errlen);
}

/* ------------------------------------------------------------------ */
/* json-c: the reference reader                                        */

static void jc_get(const struct ibve_jsrc *src, int key, struct ibve_jval *v)
{
	struct json_object *x;

	memset(v, 0, sizeof(*v)); /* J_ABSENT */
	if (!json_object_object_get_ex((struct json_object *)src->data,
				       ibve_keys[key].name, &x))
		return;
	switch (json_object_get_type(x)) { /* a null is a NULL x */
	case json_type_null:
		v->type = J_NULL;
		break;
	case json_type_boolean:
		v->type = J_BOOL;
		v->b = json_object_get_boolean(x);
		break;
	case json_type_int: {
		int64_t i = json_object_get_int64(x);

		v->type = J_INT;
		if (i == INT64_MAX) /* beyond int64: json-c keeps a uint64 */
			v->u = json_object_get_uint64(x);
		else if (i < 0)
			v->neg = true, v->u = (uint64_t)0 - (uint64_t)i;
		else
			v->u = (uint64_t)i;
		break;
	}
	case json_type_string:
		v->type = J_STRING;
		v->s = json_object_get_string(x);
		break;
	default:
		v->type = J_OTHER;
		v->obj = x;
		break;
	}
}

int ibve_parse_line_jsonc(struct json_tokener **tokp, const char *line,
			  size_t len, struct ibve_event *ev, char *err,
			  size_t errlen)
{
	struct json_tokener *tok = *tokp;
	struct json_object *o;
	struct ibve_jsrc s = { jc_get, NULL, { { 0 } } };
	enum json_tokener_error jerr;
	size_t used;
	int r;

	if (len > INT32_MAX)
		FAIL("line too long");
	for (used = 0; used < len && isspace((unsigned char)line[used]); used++)
		;
	if (used == len || line[used] != '{')
		FAIL("not a JSON object");
	if (!tok && (r = ibve_dl_load(&ibve_jsonc_dl))) {
		/* not the line's fault: -ELIBACC, and why */
		snprintf(err, errlen, "%s", ibve_errmsg());
		return r;
	}
	if (!tok && !(tok = *tokp = json_tokener_new())) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, line, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!o) {
		/*
		 * json_tokener_reset() keeps a \u escape's half-read
		 * surrogate, which would then corrupt the next line's first
		 * \u escape: after a failure, a fresh tokener.
		 */
		json_tokener_free(tok);
		*tokp = NULL;
		if (jerr == json_tokener_continue)
			FAIL("incomplete JSON");
		FAIL("invalid JSON: %s", json_tokener_error_desc(jerr));
	}
	used = json_tokener_get_parse_end(tok);
	for (; used < len; used++)
		if (!isspace((unsigned char)line[used])) {
			json_object_put(o);
			FAIL("text after the JSON object");
		}
	/* an object: the line begins with '{' */
	s.data = o;
	memset(&s.present, 0xff, sizeof(s.present));
	r = parse_fields(&s, ev, err, errlen);
	json_object_put(o);
	return r;
}

/* ------------------------------------------------------------------ */
/* The scanner: flat objects of our own format, nothing allocated      */

#define FAST_STRINGS 2048 /* bytes of decoded strings per line */

struct fast {
	struct ibve_jval v[IBVE_KEYS_MAX]; /* only those in present are set */
	struct ibve_keyset present;	   /* each key read */
	bool clean; /* no backslash, no control byte in the line */
	char str[FAST_STRINGS];
	size_t used;
};

static void fast_get(const struct ibve_jsrc *src, int key, struct ibve_jval *v)
{
	const struct fast *f = src->data;

	if (ibve_keyset_has(&f->present, key))
		*v = f->v[key];
	else
		*v = (struct ibve_jval){ .type = J_ABSENT };
}

#if defined(__SSE2__)
/* The mask of the backslashes and control bytes of the 16 at P. */
static inline int bad16(const char *p)
{
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)p);

	return _mm_movemask_epi8(_mm_or_si128(
		_mm_cmpeq_epi8(b, _mm_set1_epi8('\\')),
		_mm_cmpeq_epi8(_mm_min_epu8(b, _mm_set1_epi8(0x1f)), b)));
}
#endif

/*
 * Whether LINE has no backslash and no control byte: then a string is the
 * bytes up to the next quote, found by memchr(). SSE2 where there is one.
 */
static bool clean_line(const char *line, size_t len)
{
	size_t i = 0;

#if defined(__SSE2__)
	for (; i + 16 <= len; i += 16)
		if (bad16(line + i))
			return false;
	if (i < len && len >= 16) /* the last 16 bytes, again in part */
		return !bad16(line + len - 16);
#endif
	for (; i < len; i++)
		if (line[i] == '\\' || (unsigned char)line[i] < 0x20)
			return false;
	return true;
}

/*
 * The keys by a hash of length, first and last byte (id + 1; 0 ends a
 * list), built once: mostly one candidate to compare.
 */
#define KEY_HASH 64
static uint8_t by_hash[KEY_HASH][IBVE_KEYS_MAX + 1];
static bool fast_ok = true; /* false: a key the table cannot hold */
static pthread_once_t by_hash_once = PTHREAD_ONCE_INIT;

static unsigned int key_hash(const char *k, size_t len)
{
	return ((unsigned int)len * 31u + (unsigned char)k[0] * 7u +
		(unsigned char)k[len - 1]) &
	       (KEY_HASH - 1);
}

/* Each key and its closing quote as two words and masks (key_is()). */
static struct {
	uint64_t w[2], m[2];
} key_words[IBVE_KEYS_MAX];

static void build_by_hash(void)
{
	ibve_fields_ready();
	for (int k = 0; k < ibve_nkeys; k++) {
		unsigned char b[16] = { 0 }, m[16] = { 0 };
		uint8_t *c;

		if (!ibve_keys[k].len || ibve_keys[k].len > 15) {
			fast_ok = false; /* it would be missed: json-c only */
			return;
		}
		memcpy(b, ibve_keys[k].name, ibve_keys[k].len);
		b[ibve_keys[k].len] = '"';
		memset(m, 0xff, ibve_keys[k].len + 1u);
		memcpy(key_words[k].w, b, 16);
		memcpy(key_words[k].m, m, 16);
		c = by_hash[key_hash(ibve_keys[k].name, ibve_keys[k].len)];
		while (*c)
			c++;
		*c = (uint8_t)(k + 1);
	}
}

/* The id of the key of LEN bytes at K, or IBVE_KEYS_MAX for any other. */
static int key_id(const char *k, size_t len)
{
	if (!len)
		return IBVE_KEYS_MAX;
	for (const uint8_t *c = by_hash[key_hash(k, len)]; *c; c++) {
		const char *name = ibve_keys[*c - 1].name;
		size_t i = 0;

		if (ibve_keys[*c - 1].len != len)
			continue;
		/* inline: a call per candidate cost more than the compare */
		while (i < len && k[i] == name[i])
			i++;
		if (i == len)
			return *c - 1;
	}
	return IBVE_KEYS_MAX;
}

/* Whether the key at K (after its quote) is key W, closed by a quote. */
static bool key_is(const char *k, const char *end, int w)
{
	size_t len = ibve_keys[w].len;

	if (end - k >= 16) { /* two words: most lines */
		uint64_t x[2];

		memcpy(x, k, 16);
		return ((x[0] & key_words[w].m[0]) ^ key_words[w].w[0]) == 0 &&
		       ((x[1] & key_words[w].m[1]) ^ key_words[w].w[1]) == 0;
	}
	if ((size_t)(end - k) <= len || k[len] != '"')
		return false;
	for (size_t i = 0; i < len; i++)
		if (k[i] != ibve_keys[w].name[i])
			return false;
	return true;
}

/* Bytes that end a plain run inside a string: quote, backslash, controls. */
static const bool stops_string[256] = {
	[0x00 ... 0x1f] = true,
	['"'] = true,
	['\\'] = true,
};

/* N bytes at S after F's strings; false when they do not fit. */
static inline bool put(struct fast *f, const char *s, size_t n)
{
	if (f->used + n >= sizeof(f->str))
		return false;
	memcpy(f->str + f->used, s, n);
	f->used += n;
	return true;
}

/*
 * Put UTF-8 for code point C (not a surrogate, not 0) into F: the last N
 * bytes of its three-byte form, the first of them made a lead byte.
 */
static bool put_utf8(struct fast *f, unsigned int c)
{
	size_t n = 1 + (c >= 0x80) + (c >= 0x800);
	char b[3] = { (char)(0xe0 | c >> 12), (char)(0x80 | (c >> 6 & 0x3f)),
		      (char)(0x80 | (c & 0x3f)) };

	if (n == 1)
		b[2] = (char)c;
	else if (n == 2)
		b[1] = (char)(0xc0 | c >> 6);
	return put(f, b + 3 - n, n);
}

/*
 * The first quote from P, or NULL. Names are short: SSE2 sixteen bytes at
 * a time where there is SSE2, before a call to memchr() for the rest.
 */
static inline const char *quote_in(const char *p, const char *end)
{
#if defined(__SSE2__)
	const __m128i q = _mm_set1_epi8('"');

	for (int i = 0; i < 2 && end - p >= 16; i++, p += 16) {
		unsigned int m = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_loadu_si128((const __m128i *)(const void *)p), q));

		if (m)
			return p + __builtin_ctz(m);
	}
#endif
	return memchr(p, '"', (size_t)(end - p));
}

/*
 * A string from P (after its opening quote); decoded into F's buffer when
 * OUT, else only checked. The position after the closing quote, or NULL
 * to let json-c decide.
 */
static const char *fast_string(struct fast *f, const char *p, const char *end,
			       const char **out)
{
	size_t start = f->used;

	if (f->clean) { /* no escape: up to the quote */
		const char *q = quote_in(p, end);

		if (!q)
			return NULL;
		if (out) {
			if (!put(f, p, (size_t)(q - p)))
				return NULL;
			f->str[f->used++] = '\0';
			*out = f->str + start;
		}
		return q + 1;
	}
	while (p < end) {
		const char *run = p;
		unsigned char c;

		while (p < end && !stops_string[(unsigned char)*p])
			p++;
		if (p > run && out && !put(f, run, (size_t)(p - run)))
			return NULL;
		if (p >= end)
			return NULL;
		c = (unsigned char)*p;
		if (c == '"') {
			if (out) {
				f->str[f->used++] = '\0';
				*out = f->str + start;
			}
			return p + 1;
		}
		if (c < 0x20)
			return NULL; /* raw control byte */
		/* an escape */
		if (++p >= end)
			return NULL;
		if (*p == 'u') {
			unsigned int cp = 0;

			if (end - p < 5)
				return NULL;
			for (int i = 1; i <= 4; i++) {
				int h = ibve_hex_value((unsigned char)p[i]);

				if (h < 0)
					return NULL;
				cp = cp << 4 | (unsigned int)h;
			}
			if (!cp || (cp >= 0xd800 && cp <= 0xdfff))
				return NULL;
			if (out && !put_utf8(f, cp))
				return NULL;
			p += 5;
			continue;
		}
		{
			static const char from[] = "\"\\/bfnrt",
					  to[] = "\"\\/\b\f\n\r\t";
			const char *e = memchr(from, *p, sizeof(from) - 1);

			if (!e || (out && !put(f, &to[e - from], 1)))
				return NULL;
			p++;
		}
	}
	return NULL;
}

/* A value into V (V NULL: read and ignore). The position after it. */
static const char *fast_value(struct fast *f, const char *p, const char *end,
			      struct ibve_jval *v)
{
	struct ibve_jval tmp;

	if (!v)
		v = &tmp;
	memset(v, 0, sizeof(*v));
	if (p >= end)
		return NULL;
	switch (*p) {
	case '"':
		v->type = J_STRING;
		return fast_string(f, p + 1, end, v == &tmp ? NULL : &v->s);
	case 't':
		v->type = J_BOOL;
		v->b = true;
		return end - p >= 4 && memcmp(p, "true", 4) == 0 ? p + 4 : NULL;
	case 'f':
		v->type = J_BOOL;
		return end - p >= 5 && memcmp(p, "false", 5) == 0 ? p + 5
								  : NULL;
	case 'n':
		v->type = J_NULL;
		return end - p >= 4 && memcmp(p, "null", 4) == 0 ? p + 4 : NULL;
	default: {
		/* only plain integers: -?(0|[1-9][0-9]*), at most 18 digits */
		const char *d;
		int n = 0;

		v->type = J_INT;
		if (*p == '-') {
			v->neg = true;
			p++;
		}
		d = p;
		while (p < end && *p >= '0' && *p <= '9' && n <= 18) {
			v->u = v->u * 10 + (uint64_t)(*p - '0');
			p++;
			n++;
		}
		if (!n || n > 18 || (d[0] == '0' && n > 1) ||
		    (v->neg && v->u == 0))
			return NULL;
		if (p < end && !ibve_json_ws(*p) && *p != ',' && *p != '}')
			return NULL; /* a fraction, an exponent, ... */
		return p;
	}
	}
}

/* 1 parsed into F, 0: let json-c read it. */
static int fast_object(struct fast *f, const char *p, const char *end)
{
	f->used = 0;
	memset(&f->present, 0, sizeof(f->present));
	f->clean = clean_line(p, (size_t)(end - p));
	p = ibve_skip_ws(p, end);
	if (p >= end || *p++ != '{')
		return 0;
	p = ibve_skip_ws(p, end);
	if (p < end && *p == '}')
		return ibve_skip_ws(p + 1, end) == end;
	for (int prev = -1;;) {
		const char *key = p + 1, *kend;
		int slot;

		if (p >= end || *p != '"')
			return 0;
		/* the key the writer puts next, most often the next here */
		if (prev + 1 < ibve_nkeys && key_is(key, end, prev + 1)) {
			slot = prev + 1;
			kend = key + ibve_keys[slot].len;
		} else {
			for (kend = key;
			     kend < end && !stops_string[(unsigned char)*kend];)
				kend++;
			if (kend >= end || *kend != '"')
				return 0; /* escaped or odd keys: json-c's */
			slot = key_id(key, (size_t)(kend - key));
		}
		prev = slot;
		if (slot < IBVE_KEYS_MAX)
			ibve_keyset_add(&f->present, slot);

		p = ibve_skip_ws(kend + 1, end);
		if (p >= end || *p++ != ':')
			return 0;
		p = ibve_skip_ws(p, end);
		/* the last of repeated keys wins, as with json-c */
		p = fast_value(f, p, end,
			       slot < IBVE_KEYS_MAX ? &f->v[slot] : NULL);
		if (!p)
			return 0;
		p = ibve_skip_ws(p, end);
		if (p < end && *p == ',') {
			p = ibve_skip_ws(p + 1, end);
			continue;
		}
		return p < end && *p == '}' && ibve_skip_ws(p + 1, end) == end;
	}
}

/* ------------------------------------------------------------------ */

/* Whether the scanner reads LINE, into F. */
static bool fast_read(struct fast *f, const char *line, size_t len)
{
	pthread_once(&by_hash_once, build_by_hash);
	return fast_ok && fast_object(f, line, line + len);
}

/* LINE by the scanner when it can, else by json-c, which says what is wrong. */
int ibve_parse_line(struct json_tokener **tok, const char *line, size_t len,
		    struct ibve_event *ev, char *err, size_t errlen)
{
	struct fast f;

	if (len <= INT32_MAX && fast_read(&f, line, len)) {
		struct ibve_jsrc s = { fast_get, &f, f.present };

		return parse_fields(&s, ev, err, errlen);
	}
	return ibve_parse_line_jsonc(tok, line, len, ev, err, errlen);
}

IBVE_EXPORT int ibve_event_parse_json(const char *line, size_t len,
				      struct ibve_event *ev)
{
	struct json_tokener *tok = NULL;
	char err[256];
	int r;

	r = ibve_parse_line(&tok, line, len, ev, err, sizeof(err));
	if (tok)
		json_tokener_free(tok);
	return r ? ibve_error(-r, "%s", err) : 0;
}

bool ibve_parse_fast_takes(const char *line, size_t len)
{
	struct fast f;

	return fast_read(&f, line, len);
}
