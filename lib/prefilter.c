// SPDX-License-Identifier: MIT
/*
 * The replay's prefilter: before a line is parsed, whether the filter can
 * pass its record at all, from its bytes. One pass finds the values of
 * "device", "event" and "source" (the identity every filter but the
 * port's and the owner's looks at); what the filter makes of an identity
 * is kept in a small cache keyed by those bytes, since a capture repeats
 * a few hundred identities over millions of lines.
 *
 * It may only say no when the parser would read the line into a record
 * the filter refuses; anything the pass cannot be sure of (escapes,
 * nesting, repeated keys, odd syntax, no event name, an mlx5 entry, a
 * name it does not know) is a yes, and the parser decides.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "event.h"
#include "fields.h"
#include "filter.h"
#include "parse.h"

/* What one pass found: the string values of the keys that say who. */
enum { ID_DEVICE, ID_EVENT, ID_SOURCE, ID_COUNT };
static const enum ibve_key id_keys[ID_COUNT] = { K_DEVICE, K_EVENT, K_SOURCE };

struct ident {
	const char *v[ID_COUNT]; /* NULL: not in the line */
	size_t n[ID_COUNT];
	const char *end; /* of the line */
};

/* Up to 16 bytes as two words, and the mask of the bytes that count. */
struct words {
	uint64_t w[2], m[2];
};

/*
 * The members the writer always puts first (the fixed keys), in its
 * order: what comes before each value (a literal, made from the key
 * table) and the form of the value. The literals include the closing
 * quote of the string before them.
 */
static struct lead {
	struct words lit;
	unsigned char len;
} leads[K_FIXED];
static bool no_leads; /* a literal too long: all by scan() */
#define FORM(id, name, form) form,
static const enum ibve_key_form forms[] = { IBVE_KEYS_FIXED(FORM) };
#undef FORM
static pthread_once_t lead_once = PTHREAD_ONCE_INIT;

static void make_leads(void)
{
	ibve_fields_ready(); /* the identity key */
	for (size_t i = 0; i < K_FIXED; i++) {
		unsigned char b[17] = { 0 }, m[16] = { 0 };
		int n = snprintf((char *)b, sizeof(b), "%s%s\"%s\":%s",
				 i && forms[i - 1] == F_STR ? "\"" : "",
				 i ? "," : "{", ibve_keys[i].name,
				 forms[i] == F_STR ? "\"" : "");

		if (n < 0 || n > 16) {
			no_leads = true;
			return;
		}
		memset(m, 0xff, (size_t)n);
		memcpy(leads[i].lit.w, b, 16);
		memcpy(leads[i].lit.m, m, 16);
		leads[i].len = (unsigned char)n;
	}
}

/* Whether the 16 bytes at P begin with the bytes of W. */
static bool words_at(const char *p, const struct words *w)
{
	uint64_t x[2];

	memcpy(x, p, 16);
	return ((x[0] & w->m[0]) ^ w->w[0]) == 0 &&
	       ((x[1] & w->m[1]) ^ w->w[1]) == 0;
}

/*
 * The closing quote of a string whose bytes start at P: NULL when there is
 * none, or when a backslash comes first (an escape: the parser's). Sixteen
 * bytes at a time with SSE2, then eight: a line's strings are short, and a
 * call to memchr() costs more than the search. Outside strings a line the
 * parser takes has no backslash, so this is the pass's whole check for
 * escapes.
 */
static inline const char *str_end(const char *p, const char *end)
{
#if defined(__SSE2__)
	const __m128i q16 = _mm_set1_epi8('"'), b16 = _mm_set1_epi8('\\');

	for (; end - p >= 16; p += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)p);
		unsigned int m = (unsigned int)_mm_movemask_epi8(_mm_or_si128(
			_mm_cmpeq_epi8(x, q16), _mm_cmpeq_epi8(x, b16)));

		if (m) {
			p += __builtin_ctz(m);
			return *p == '"' ? p : NULL;
		}
	}
#endif
	const uint64_t ones = 0x0101010101010101ull, high = ones << 7;

	for (; end - p >= 8; p += 8) {
		uint64_t w, q, b, hit;

		memcpy(&w, p, 8);
		q = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		hit = ((q - ones) & ~q) | ((b - ones) & ~b);
		if ((hit &= high)) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			p += __builtin_clzll(hit) / 8;
#else
			p += __builtin_ctzll(hit) / 8;
#endif
			return *p == '"' ? p : NULL;
		}
	}
	for (; p < end; p++)
		if (*p == '"' || *p == '\\')
			return *p == '"' ? p : NULL;
	return NULL;
}

static bool is_key(const char *k, size_t klen, int key)
{
	return klen == ibve_keys[key].len && *k == *ibve_keys[key].name &&
	       memcmp(k, ibve_keys[key].name, klen) == 0;
}

/* Which of ours the key K (KLEN bytes) is: ID_*, -1 none, -2 give up. */
static int key_kind(const char *k, size_t klen)
{
	for (int i = 0; i < ID_COUNT; i++)
		if (is_key(k, klen, id_keys[i]))
			return i;
	/* an entry that says what it is (mlx5's): the parser's */
	return ibve_identity_key >= 0 && is_key(k, klen, ibve_identity_key)
		       ? -2
		       : -1;
}

/*
 * One pass over a line, from P at a key: the
 * top-level keys and the string values of ours. False when the pass
 * cannot tell what the parser would make of it (nesting, a key of ours
 * twice or not a string, an mlx5 entry, odd syntax).
 */
static bool members(const char *p, const char *end, struct ident *id)
{
	for (;;) {
		const char *k, *ke, *v = NULL, *ve = NULL;
		int kind;

		if (p < end && *p != '"')
			p = ibve_skip_ws(p, end);
		if (p >= end || *p != '"')
			return false;
		k = p + 1;
		ke = str_end(k, end);
		if (!ke || (kind = key_kind(k, (size_t)(ke - k))) == -2)
			return false;
		p = ibve_skip_ws(ke + 1, end);
		if (p >= end || *p++ != ':')
			return false;
		if (p < end && *p != '"')
			p = ibve_skip_ws(p, end);
		if (p >= end)
			return false;
		if (*p == '"') {
			v = p + 1;
			ve = str_end(v, end);
			if (!ve)
				return false;
			p = ve + 1;
		} else if (*p == '{' || *p == '[') {
			return false; /* "rates" and the like: the parser's */
		} else {
			while (p < end && *p != ',' && *p != '}')
				p++;
		}
		if (kind >= 0) {
			if (id->v[kind] || !v)
				return false; /* twice, or not a string */
			id->v[kind] = v;
			id->n[kind] = (size_t)(ve - v);
		}
		if (p < end && *p != ',' && *p != '}')
			p = ibve_skip_ws(p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		return p < end && *p == '}' && ibve_skip_ws(p + 1, end) == end;
	}
}

/*
 * One pass over LINE into ID; false when it is the parser's (an escape,
 * nesting, a key of ours twice...). A line as the writer lays it out (no
 * white space) has its leading members read in order, each value's end
 * found by one search; any other layout, and the members after those,
 * by members().
 */
static bool scan(const char *line, const char *end, struct ident *id)
{
	const char *p = line;

	memset(id, 0, sizeof(*id));
	id->end = end;
	if (no_leads)
		goto other;
#pragma GCC unroll 16
	for (size_t l = 0; l < K_FIXED; l++) {
		const char *v;
		bool str = forms[l] == F_STR;

		if (end - p < 17 || !words_at(p, &leads[l].lit))
			goto other;
		v = p + leads[l].len;
		if (forms[l] == F_STR_OR_NULL && *v != 'n') {
			if (*v++ != '"')
				goto other;
			str = true;
		}
		if (!str) {
			while (v < end && *v != ',' && *v != '}')
				v++;
			p = v;
			continue;
		}
		/* at the closing quote: the next lead begins with it */
		p = str_end(v, end);
		if (!p)
			return false; /* an escape, or no end */
		for (int i = 0; i < ID_COUNT; i++)
			if (id_keys[i] == l) {
				id->v[i] = v;
				id->n[i] = (size_t)(p - v);
			}
		if (forms[l] != F_STR)
			p++; /* a string where null could be */
	}
	if (p < end && *p == '}')
		return p + 1 == end;
	/* the other members: none of ours again, no nesting, no eqe */
	return p < end && *p == ',' && members(p + 1, end, id);
other: /* laid out otherwise: from the start again */
	memset(id, 0, sizeof(*id));
	id->end = end;
	p = ibve_skip_ws(line, end);
	return p < end && *p++ == '{' && members(p, end, id);
}

/* V (N bytes) as a C string in BUF of SIZE; false when it cannot be. */
static bool copy_plain(char *buf, size_t size, const char *v, size_t n)
{
	if (n >= size)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] >= 0x80)
			return false; /* the parser would refuse or rewrite it */
	memcpy(buf, v, n);
	buf[n] = '\0';
	return true;
}

/* What F makes of an identity: whether its record may pass. */
static bool decide(const struct ibve_filter *f, const struct ident *id)
{
	const struct ibve_event_desc *d;
	char name[IBVE_EVENT_NAME_MAX + 16], src[16];
	struct ibve_event ev;
	int src_id = IBVE_SOURCE_VERBS;

	if (!copy_plain(ev.device, sizeof(ev.device), id->v[ID_DEVICE],
			id->n[ID_DEVICE]) ||
	    !copy_plain(name, sizeof(name), id->v[ID_EVENT], id->n[ID_EVENT]))
		return true;
	if (id->v[ID_SOURCE] && (!copy_plain(src, sizeof(src), id->v[ID_SOURCE],
					     id->n[ID_SOURCE]) ||
				 (src_id = ibve_source_parse(src)) < 0))
		return true;
	d = ibve_event_desc_lookup(name);
	if (!d || strcmp(d->name, "EVENTS_LOST") == 0)
		return true; /* a newer name, UNKNOWN(n): what the line says */
	/* what the parser makes of a known name */
	ibve_event_set_row(&ev, id->v[ID_SOURCE] ? src_id : -1, d);
	return ibve_filter_match_identity(f, &ev);
}

/*
 * The cache: the identity's bytes (device, event, source, each after its
 * length; a source that is absent differs from an empty one) to what the
 * filter made of them. Open addressing over a table of entries whose keys
 * live in an arena; when either fills, it starts again.
 */
#define PF_SLOTS 4096 /* a power of two; at most 3/4 used */
#define PF_ARENA (64 * 1024)
#define PF_FIELD 48 /* longer values are decided each time */

struct entry {
	uint32_t fp;  /* the hash; 0: empty */
	uint16_t off; /* of the key in the arena */
	bool pass;
};

struct ibve_prefilter {
	const struct ibve_filter *f; /* the one the cache is of */
	size_t used, nentries;
	struct entry slot[PF_SLOTS];
	char arena[PF_ARENA + 16]; /* 16: a word read past a key */
};

int ibve_prefilter_new(struct ibve_prefilter **pf)
{
	pthread_once(&lead_once, make_leads);
	*pf = calloc(1, sizeof(**pf));
	return *pf ? 0 : -1;
}

void ibve_prefilter_free(struct ibve_prefilter *pf)
{
	free(pf);
}

static void forget(struct ibve_prefilter *pf)
{
	memset(pf->slot, 0, sizeof(pf->slot));
	pf->used = pf->nentries = 0;
}

/* The first N (<= 8) bytes at S as a word, the rest zero. */
static uint64_t load(const char *s, size_t n, const char *end)
{
	uint64_t w = 0;

	if (end - s < 8) {
		memcpy(&w, s, n);
		return w;
	}
	memcpy(&w, s, 8); /* one load; then only the N bytes kept */
	if (n == 8)
		return w;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return n ? w & ~0ull << (64 - 8 * n) : 0;
#else
	return w & ((1ull << (8 * n)) - 1);
#endif
}

/* A hash of the identity: the first and last 8 bytes of each value. */
static uint32_t hash(const struct ident *id)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < ID_COUNT; i++) {
		const char *v = id->v[i];
		size_t n = id->n[i];
		uint64_t a, b = 0;

		if (!v) {
			h = (h ^ 0xff) * 0xff51afd7ed558ccdull;
			continue;
		}
		if (n > 8) {
			memcpy(&a, v, 8);
			memcpy(&b, v + n - 8, 8);
		} else {
			a = load(v, n, id->end);
		}
		h = (h ^ a ^ n) * 0xff51afd7ed558ccdull;
		h = (h ^ b ^ (h >> 29)) * 0xc4ceb9fe1a85ec53ull;
	}
	h ^= h >> 32;
	return (uint32_t)h | 1; /* never 0: that is an empty slot */
}

/* Whether the N bytes at A (in the arena) and B (in the line) agree. */
static bool same_bytes(const char *a, const char *b, size_t n, const char *end)
{
	if (n > 16)
		return memcmp(a, b, n) == 0;
	if (n > 8)
		return load(a, 8, a + 8) == load(b, 8, end) &&
		       load(a + 8, n - 8, a + 16) == load(b + 8, n - 8, end);
	return load(a, n, a + 8) == load(b, n, end);
}

/* Whether entry E's key is the identity's. */
static bool same(const struct ibve_prefilter *pf, const struct entry *e,
		 const struct ident *id)
{
	const char *k = pf->arena + e->off;

	for (int i = 0; i < ID_COUNT; i++) {
		size_t n = id->v[i] ? id->n[i] + 1 : 0;

		if ((unsigned char)*k != n)
			return false;
		if (n > 1 && !same_bytes(k + 1, id->v[i], n - 1, id->end))
			return false;
		k += n ? n : 1;
	}
	return true;
}

/*
 * Keep what was decided for the identity, unless a value is longer than
 * PF_FIELD: the caller made room for three that long.
 */
static void keep(struct ibve_prefilter *pf, struct entry *e, uint32_t fp,
		 const struct ident *id, bool pass)
{
	size_t len = 0;
	char *k;

	for (int i = 0; i < ID_COUNT; i++) {
		if (id->n[i] > PF_FIELD)
			return;
		len += 1 + (id->v[i] ? id->n[i] : 0);
	}
	k = pf->arena + pf->used;
	e->fp = fp;
	e->off = (uint16_t)pf->used;
	e->pass = pass;
	for (int i = 0; i < ID_COUNT; i++) {
		size_t n = id->v[i] ? id->n[i] : 0;

		*k++ = (char)(id->v[i] ? n + 1 : 0);
		memcpy(k, id->v[i] ? id->v[i] : "", n);
		k += n;
	}
	pf->used += len;
	pf->nentries++;
}

bool ibve_prefilter_line(struct ibve_prefilter *pf, const struct ibve_filter *f,
			 const char *line, size_t len)
{
	struct ident id;
	uint32_t fp;
	bool pass;

	/* escapes and anything the one pass cannot read: the parser's */
	if (!scan(line, line + len, &id) || !id.v[ID_DEVICE] || !id.v[ID_EVENT])
		return true;
	if (pf->f != f) { /* another filter: nothing known */
		forget(pf);
		pf->f = f;
	}
	fp = hash(&id);
	for (uint32_t i = fp;; i++) {
		struct entry *e = &pf->slot[i & (PF_SLOTS - 1)];

		if (!e->fp) {
			pass = decide(f, &id);
			if (pf->used + 3 * (PF_FIELD + 1) > PF_ARENA ||
			    pf->nentries >= PF_SLOTS / 4 * 3) {
				forget(pf); /* full: start again */
				e = &pf->slot[fp & (PF_SLOTS - 1)];
			}
			keep(pf, e, fp, &id, pass);
			return pass;
		}
		if (e->fp == fp && same(pf, e, &id))
			return e->pass;
	}
}
