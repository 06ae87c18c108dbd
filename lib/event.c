// SPDX-License-Identifier: MIT
/*
 * The event table's engine: each source declares the rows of the events it
 * raises (stable name, class, affiliation, severity, MESSAGE_ID,
 * explanation, advice) in its descriptor (source.h); this looks them up
 * through the registered sources. Code never switches on event names.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <strings.h>

#include "event.h"
#include "source.h"

static const char *const class_names[] = {
	[IBVE_CLASS_DEVICE] = "device",	  [IBVE_CLASS_PORT] = "port",
	[IBVE_CLASS_QP] = "qp",		  [IBVE_CLASS_CQ] = "cq",
	[IBVE_CLASS_SRQ] = "srq",	  [IBVE_CLASS_WQ] = "wq",
	[IBVE_CLASS_UNKNOWN] = "unknown",
};

static const char *const severity_names[] = {
	[IBVE_SEVERITY_INFO] = "info",
	[IBVE_SEVERITY_WARNING] = "warning",
	[IBVE_SEVERITY_ERROR] = "error",
	[IBVE_SEVERITY_FATAL] = "fatal",
};

IBVE_EXPORT const char *ibve_version(void)
{
	return IBVE_VERSION;
}

IBVE_EXPORT unsigned int ibve_features(void)
{
	unsigned int f = 0;

#ifdef IBVE_HAVE_MLX5
	f |= IBVE_FEATURE_MLX5;
#endif
#ifdef IBVE_HAVE_BPF
	f |= IBVE_FEATURE_KERNEL;
#endif
	return f;
}

/*
 * The sources' rows, copied once into one table with their source set (a
 * row's place is its index: format.c), indexed by (source, code), past the
 * index searched, and by the hash of the upper-cased name (replays). What
 * does not fit is refused whole (ibve_event_table_check()), never cut.
 */
#define ROWS_MAX   255 /* an index fits a byte */
#define RANKS	   16
#define SOURCE_MAX 64 /* source numbers, as ibve_term_suggest() and mktables */
#define NSOURCES   8  /* those with a code index; the others are searched */
#define CODE_SLOTS (IBVE_KERNEL_EVENTS_LOST + 1)
#define NAME_SLOTS 512 /* a power of two, over twice the rows */

static struct ibve_event_desc table[ROWS_MAX];
static size_t nrows;
/* each row's kind, each source's for the rest; the kinds, sources' last */
static uint8_t row_kind[ROWS_MAX];
/* the first source of each number: whose records they are */
static const struct ibve_source_ops *source_by[SOURCE_MAX];
static uint8_t source_kind[SOURCE_MAX] = { [0 ... SOURCE_MAX - 1] =
						   IBVE_KIND_OTHER };
static struct ibve_kind_info kinds[IBVE_KIND_MAX] = {
#define KIND_ROW(id, n, t, w) { n, t, w },
	IBVE_KINDS(KIND_ROW)
#undef KIND_ROW
};
static unsigned int nkinds = IBVE_KIND_OTHER + 1;
static uint8_t code_index[NSOURCES][CODE_SLOTS]; /* row + 1; 0: none */
static uint8_t name_index[NAME_SLOTS];		 /* row + 1; 0: empty */
/* each row's name as a record holds it, zeros after: copied whole */
static char row_name[ROWS_MAX][IBVE_EVENT_NAME_MAX];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static bool table_ready; /* read first: no call once it is built */
/* sources.c's list, handed over at load: what every source uses (this
 * file) uses none of them, so the objects make no cycle */
const struct ibve_source_ops *const *ibve_source_list =
	(const struct ibve_source_ops *const[]){ NULL };
bool ibve_sources_sealed;
static char table_fault[128]; /* why the sources' rows made no table */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	/* | 0x20: a letter hashes the same in either case */
	for (; *s; s++)
		h = (h ^ ((uint32_t)(unsigned char)*s | 0x20)) * 16777619u;
	return h;
}

/* Source O's kind K (IBVE_KIND_OWN(I): its own I-th, from BASE). */
static uint8_t kind_at(int k, unsigned int base)
{
	return (uint8_t)(k >= IBVE_KIND_MAX
				 ? base + (unsigned int)k - IBVE_KIND_MAX
				 : (unsigned int)k);
}

/* What source O's records count as when no row says (0: other). */
static uint8_t else_kind(const struct ibve_source_ops *o, unsigned int base)
{
	return o->kind ? kind_at(o->kind, base) : IBVE_KIND_OTHER;
}

/* What row D of source O counts as. */
static uint8_t row_kind_of(const struct ibve_source_ops *o,
			   const struct ibve_event_desc *d, unsigned int base)
{
	for (size_t i = 0; i < o->nkind_of; i++)
		if (o->kind_of[i].code == d->code)
			return kind_at(o->kind_of[i].kind, base);
	return else_kind(o, base);
}

/* Whether SRC's rows fit the table; else why, in table_fault. */
static bool table_fits(const struct ibve_source_ops *const *src)
{
	size_t rows = 0;

	for (size_t i = 0; src[i]; i++) {
		rows += src[i]->nrows;
		if (src[i]->records >= SOURCE_MAX ||
		    (unsigned int)src[i]->rank >= RANKS)
			snprintf(table_fault, sizeof(table_fault),
				 "event table: source %s: records %d, rank %d "
				 "(records below %d, rank 0 to %d)",
				 src[i]->name, src[i]->records, src[i]->rank,
				 SOURCE_MAX, RANKS - 1);
	}
	if (rows > ROWS_MAX)
		snprintf(
			table_fault, sizeof(table_fault),
			"event table: the sources declare %zu rows, it holds %d",
			rows, ROWS_MAX);
	return !table_fault[0];
}

static void build_table(void)
{
	const struct ibve_source_ops *const *src = ibve_source_list;
	bool fits = table_fits(src);

	unsigned int base[IBVE_SOURCES_MAX];

	__atomic_store_n(&ibve_sources_sealed, true, __ATOMIC_RELEASE);
	/* the sources' own kinds after the library's, in their order */
	for (size_t i = 0; src[i]; i++) {
		base[i] = nkinds;
		if ((unsigned int)src[i]->records < SOURCE_MAX &&
		    !source_by[src[i]->records])
			source_by[src[i]->records] = src[i];
		for (size_t k = 0; k < src[i]->nkinds; k++)
			kinds[nkinds++] = src[i]->kinds[k];
		if ((unsigned int)src[i]->records < SOURCE_MAX)
			source_kind[src[i]->records] =
				else_kind(src[i], base[i]);
	}
	/* lower ranks first, equal ones in the order of registration */
	for (int rank = 0; fits && rank < RANKS; rank++)
		for (size_t i = 0; src[i]; i++)
			for (size_t r = 0;
			     src[i]->rank == rank && r < src[i]->nrows; r++) {
				table[nrows] = src[i]->rows[r];
				table[nrows].source =
					(enum ibve_source)src[i]->records;
				row_kind[nrows++] = row_kind_of(
					src[i], &src[i]->rows[r], base[i]);
			}
	for (size_t i = 0; i < nrows; i++) {
		const struct ibve_event_desc *d = &table[i];
		uint32_t h = name_hash(d->name);

		/* the first row of a (source, code) wins */
		if ((unsigned int)d->source < NSOURCES && d->code >= 0 &&
		    d->code < CODE_SLOTS && !code_index[d->source][d->code])
			code_index[d->source][d->code] = (uint8_t)(i + 1);
		ibve_strcpy(row_name[i], d->name, sizeof(row_name[i]));
		while (name_index[h % NAME_SLOTS])
			h++;
		name_index[h % NAME_SLOTS] = (uint8_t)(i + 1);
	}
	__atomic_store_n(&table_ready, true, __ATOMIC_RELEASE);
}

static void table_build(void)
{
	if (!__atomic_load_n(&table_ready, __ATOMIC_ACQUIRE))
		pthread_once(&table_once, build_table);
}

int ibve_event_table_check(void)
{
	table_build();
	return table_fault[0] ? ibve_error(E2BIG, "%s", table_fault) : 0;
}

/* The registered source whose records are SOURCE's, or NULL. */
const struct ibve_source_ops *ibve_source_of(int source)
{
	table_build();
	return (unsigned int)source < SOURCE_MAX ? source_by[source] : NULL;
}

/* EV's owner, where its source keeps it (filter.c: --pid, --comm). */
bool ibve_event_owner(const struct ibve_event *ev, const void **pid,
		      const char **comm)
{
	const struct ibve_source_ops *o = ibve_source_of(ev->source);

	if (!o || !(ev->fields & o->owner_flag))
		return false;
	*pid = (const char *)ev + o->owner_pid;
	*comm = (const char *)ev + o->owner_comm;
	return true;
}

IBVE_EXPORT const struct ibve_event_desc *ibve_event_desc_at(size_t i)
{
	table_build();
	return i < nrows ? &table[i] : NULL;
}

/* Whether (SOURCE, CODE) has a place in the index. */
static bool indexable(enum ibve_source source, int code)
{
	return (unsigned int)source < NSOURCES &&
	       (unsigned int)code < CODE_SLOTS;
}

/*
 * The row of (SOURCE, CODE) in the index, or NULL: every record's way,
 * inline where a record is made (no call, no frame).
 */
static inline const struct ibve_event_desc *indexed(enum ibve_source source,
						    int code)
{
	uint8_t row;

	table_build();
	row = indexable(source, code) ? code_index[source][code] : 0;
	return row ? &table[row - 1] : NULL;
}

IBVE_EXPORT const struct ibve_event_desc *
ibve_event_desc_find(enum ibve_source source, int code)
{
	const struct ibve_event_desc *d = indexed(source, code);
	const struct ibve_source_ops *o;

	if (d)
		return d;
	for (size_t i = 0; !indexable(source, code) && i < nrows; i++)
		if (table[i].source == source && table[i].code == code)
			return &table[i];
	/* a source whose records carry another's rows (the kernel: verbs) */
	o = ibve_source_of(source);
	return o && o->also ? ibve_event_desc_find(o->also->records, code)
			    : NULL;
}

void ibve_event_set_row(struct ibve_event *ev, int source,
			const struct ibve_event_desc *d)
{
	const struct ibve_source_ops *o = ibve_source_of(source);

	if ((int)d->source == source ||
	    (o && o->also && (int)d->source == o->also->records)) {
		ibve_event_set_code(ev, (enum ibve_source)source, d->code);
		return;
	}
	/* a name two sources share (EVENTS_LOST): the line's own */
	for (size_t i = 0; o && i < nrows && (int)d->source != source; i++)
		if ((int)table[i].source == source &&
		    strcmp(table[i].name, d->name) == 0)
			d = &table[i];
	ibve_event_set_code(ev, d->source, d->code);
}

static int upper(int c)
{
	return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/* ASCII only, whatever the locale: names are ASCII. Inline: the table's
 * own spelling (most lines) costs a byte compare a byte. */
static bool same_name(const char *a, const char *b)
{
	for (; *a; a++, b++)
		if (*a != *b &&
		    upper((unsigned char)*a) != upper((unsigned char)*b))
			return false;
	return !*b;
}

IBVE_EXPORT const struct ibve_event_desc *
ibve_event_desc_lookup(const char *name)
{
	uint32_t h;

	if ((name[0] == 'I' || name[0] == 'i') &&
	    strncasecmp(name, "IBV_EVENT_", 10) == 0)
		name += 10;
	table_build();
	for (h = name_hash(name); name_index[h % NAME_SLOTS]; h++) {
		const struct ibve_event_desc *d =
			&table[name_index[h % NAME_SLOTS] - 1];

		if (same_name(d->name, name))
			return d;
	}
	return NULL;
}

static const char *name_of(const char *const *names, size_t n, int i)
{
	return i >= 0 && (size_t)i < n && names[i] ? names[i] : "unknown";
}

static int parse_name(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && same_name(names[i], s))
			return (int)i;
	return -1;
}

/* What records of source S are called; NULL: no source has them. */
static const char *called(int s)
{
	const struct ibve_source_ops *o = ibve_source_of(s);

	return !o ? NULL : o->called ? o->called : o->name;
}

IBVE_EXPORT const char *ibve_source_name(enum ibve_source source)
{
	return called(source) ? called(source) : "unknown";
}

IBVE_EXPORT const char *ibve_class_name(enum ibve_class cls)
{
	return name_of(class_names, ARRAY_SIZE(class_names), cls);
}

IBVE_EXPORT const char *ibve_severity_name(enum ibve_severity severity)
{
	return name_of(severity_names, ARRAY_SIZE(severity_names), severity);
}

IBVE_EXPORT int ibve_source_parse(const char *name)
{
	const struct ibve_source_ops *const *src = ibve_source_list;

	for (size_t i = 0; src[i]; i++)
		if (src[i]->records >= 0 &&
		    same_name(called(src[i]->records), name))
			return src[i]->records;
	return -1;
}

IBVE_EXPORT int ibve_class_parse(const char *name)
{
	return parse_name(class_names, ARRAY_SIZE(class_names), name);
}

IBVE_EXPORT int ibve_severity_parse(const char *name)
{
	return parse_name(severity_names, ARRAY_SIZE(severity_names), name);
}

/* The edit distance of A and B, case-insensitive; SIZE_MAX when long. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64], prev;

	if (la >= ARRAY_SIZE(row) || lb >= ARRAY_SIZE(row))
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev + (tolower((unsigned char)a[i - 1]) !=
					     tolower((unsigned char)b[j - 1]));
			size_t add = row[j] < row[j - 1] ? row[j] : row[j - 1];

			prev = row[j];
			row[j] = sub < add + 1 ? sub : add + 1;
		}
	}
	return row[lb];
}

/*
 * NAMES[0..N) against WORD: the nearest so far in *BEST, *D; a name WORD
 * begins (3 letters at least) is at distance 2 at most.
 */
static void nearest(const char *word, const char *const *names, size_t n,
		    const char **best, size_t *d)
{
	size_t len = strlen(word);

	for (size_t i = 0; i < n; i++) {
		size_t k = SIZE_MAX;

		if (names[i])
			k = distance(word, names[i]);
		if (k > 2 && len >= 3 && strncasecmp(word, names[i], len) == 0)
			k = 2;
		if (k < *d) {
			*d = k;
			*best = names[i];
		}
	}
}

/* What people call some events and levels, and the table's names. */
static const char *synonym(const char *word, bool severity)
{
	static const struct {
		const char *word, *name;
	} v[] = {
		{ "DOWN", "PORT_ERR" },	      { "PORT_DOWN", "PORT_ERR" },
		{ "LINK_DOWN", "PORT_ERR" },  { "UP", "PORT_ACTIVE" },
		{ "PORT_UP", "PORT_ACTIVE" }, { "LINK_UP", "PORT_ACTIVE" },
		{ "crit", "fatal" },	      { "critical", "fatal" },
		{ "err", "error" },	      { "warn", "warning" },
		{ "notice", "info" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		if (strcasecmp(word, v[i].word) == 0 &&
		    (!severity || ibve_severity_parse(v[i].name) >= 0))
			return v[i].name;
	return NULL;
}

bool ibve_term_suggest(const char *word, char *out, size_t size)
{
	const char *s = word, *best;
	size_t d = SIZE_MAX, len;
	bool severity;

	if (strncasecmp(s, "severity", 8) == 0)
		s += 8;
	while (*s == '<' || *s == '>' || *s == '=')
		s++;
	severity = s != word; /* a bound: only a level completes it */
	if (!severity && strncasecmp(s, "IBV_EVENT_", 10) == 0)
		s += 10;
	len = strlen(s);
	if ((best = synonym(s, severity))) {
		d = 1;
	} else if (severity) {
		nearest(s, severity_names, ARRAY_SIZE(severity_names), &best,
			&d);
	} else {
		table_build();
		for (size_t i = 0; i < nrows; i++)
			nearest(s, &table[i].name, 1, &best, &d);
		nearest(s, class_names, ARRAY_SIZE(class_names), &best, &d);
		for (int i = 0; i < SOURCE_MAX; i++) /* as the generator */
			if (called(i))
				nearest(s, (const char *[]){ called(i) }, 1,
					&best, &d);
		nearest(s, severity_names, ARRAY_SIZE(severity_names), &best,
			&d);
	}
	/* near enough: a third of the word changed at most */
	if (!best || d == 0 || d > (len >= 6 ? len / 3 : 1))
		return false;
	snprintf(out, size, "%.*s%s", (int)(s - word), word, best);
	return true;
}

void ibve_event_set_unknown(struct ibve_event *ev, enum ibve_source source,
			    int code)
{
	ev->desc = NULL;
	ev->source = source;
	ev->code = code;
	snprintf(ev->name, sizeof(ev->name), "UNKNOWN(%d)", code);
	ev->cls = IBVE_CLASS_UNKNOWN;
	ev->affiliated = false;
	/* Something this version cannot explain deserves a look. */
	ev->severity = IBVE_SEVERITY_WARNING;
}

IBVE_EXPORT void ibve_event_set_code(struct ibve_event *ev,
				     enum ibve_source source, int code)
{
	const struct ibve_event_desc *d = indexed(source, code);

	if (!d && !(d = ibve_event_desc_find(source, code))) {
		ibve_event_set_unknown(ev, source, code);
		return;
	}
	ev->desc = d;
	ev->source = source;
	ev->code = code;
	/* a row of the table: its name as a record holds it, copied whole */
	_Static_assert(sizeof(ev->name) == sizeof(row_name[0]), "one size");
	memcpy(ev->name, row_name[d - table], sizeof(ev->name));
	ev->cls = d->cls;
	ev->affiliated = d->affiliated;
	ev->severity = d->severity;
}

/* What events this version does not know share: a row of no table. */
const struct ibve_event_desc ibve_unknown_desc = ROW(
	-1, "UNKNOWN", UNKNOWN, false, WARNING,
	"04cdceb5e107491fada7422baede157b",
	"event not known to this version of libibvevent",
	"A newer kernel, driver, rdma-core or firmware raised an event this "
	"version of ibvevent has no name for; RDMA_SOURCE and RDMA_CODE say "
	"which. Look the number up in that source's documentation, and "
	"update ibvevent.");

IBVE_EXPORT const char *ibve_event_text(const struct ibve_event *ev)
{
	return (ev->desc ? ev->desc : &ibve_unknown_desc)->text;
}

IBVE_EXPORT uint64_t ibve_event_count(const struct ibve_event *ev)
{
	return ev->fields & IBVE_FIELD_SUMMARY ? ev->summary.count : 1;
}

IBVE_EXPORT const char *ibve_event_message_id(const struct ibve_event *ev)
{
	const struct ibve_source_ops *o = ibve_source_of(ev->source);
	const char *id = o && o->message_id ? o->message_id(ev) : NULL;

	return id ? id : (ev->desc ? ev->desc : &ibve_unknown_desc)->message_id;
}

IBVE_EXPORT const struct ibve_kind_info *ibve_kind_info(unsigned int kind)
{
	table_build();
	return kind < nkinds ? &kinds[kind] : NULL;
}

IBVE_EXPORT const char *ibve_kind_name(enum ibve_kind kind)
{
	const struct ibve_kind_info *k = ibve_kind_info(kind);

	return k ? k->name : "unknown";
}

IBVE_EXPORT enum ibve_kind ibve_event_kind(const struct ibve_event *ev)
{
	const struct ibve_event_desc *d = ev->desc;

	table_build();
	/* a row of its own source's (the kernel's records carry verbs rows,
	 * and count as its own) */
	if (d >= table && d < table + nrows && d->source == ev->source)
		return (enum ibve_kind)row_kind[d - table];
	return (unsigned int)ev->source < SOURCE_MAX
		       ? (enum ibve_kind)source_kind[ev->source]
		       : IBVE_KIND_OTHER;
}
