/* SPDX-License-Identifier: MIT */
/*
 * The fields of a record, each described once, by the source whose
 * records have it (its descriptor's .fields, source.h) or, for what any
 * record may have, here: its JSON keys, how text and JSON print it, how
 * the replay parser reads it. format.c, parse.c, the journal and the
 * schema's generator go through these rows; a new field is one row.
 */
#ifndef IBVE_FIELDS_H
#define IBVE_FIELDS_H

#include "util.h"

struct ibve_buf;
struct ibve_json;

/*
 * The keys every record has, in the order the writer puts them, and the
 * form the writer gives each value: F_STR a string, F_STR_OR_NULL a string
 * or null, F_OTHER anything else. The field rows' keys follow, numbered
 * when the rows are gathered (ibve_fields_ready()), in the rows' order;
 * the replay's parser and prefilter take this order as theirs.
 */
#define IBVE_KEYS_FIXED(X)                 \
	X(TIME, time, F_STR)               \
	X(DEVICE, device, F_STR)           \
	X(PORT, port, F_OTHER)             \
	X(EVENT, event, F_STR)             \
	X(CODE, code, F_OTHER)             \
	X(CLASS, class, F_STR)             \
	X(SEVERITY, severity, F_STR)       \
	X(AFFILIATED, affiliated, F_OTHER) \
	X(SOURCE, source, F_STR)           \
	X(NODE_GUID, node_guid, F_STR_OR_NULL)

#define IBVE_KEY_ID(id, name, form) K_##id,
enum ibve_key {
	IBVE_KEYS_FIXED(IBVE_KEY_ID) K_FIXED /* the first field key */
};
#undef IBVE_KEY_ID

/* Keys in all, fixed and the rows': more is refused at registration. */
#define IBVE_KEYS_MAX 128

enum ibve_key_form { F_STR, F_STR_OR_NULL, F_OTHER };

struct ibve_key_name {
	const char *name;
	uint8_t len;
};

/* Every key, and how many there are (fixed after ibve_fields_ready()). */
extern struct ibve_key_name ibve_keys[IBVE_KEYS_MAX];
extern int ibve_nkeys;

/* A set of keys. */
struct ibve_keyset {
	uint64_t w[IBVE_KEYS_MAX / 64];
};

static inline bool ibve_keyset_has(const struct ibve_keyset *s, int k)
{
	return s->w[k / 64] >> (k % 64) & 1;
}

static inline void ibve_keyset_add(struct ibve_keyset *s, int k)
{
	s->w[k / 64] |= 1ull << (k % 64);
}

/* A JSON value as the field parsers see it, whichever reader read it. */
enum ibve_jtype { J_ABSENT, J_NULL, J_BOOL, J_INT, J_STRING, J_OTHER };

struct ibve_jval {
	enum ibve_jtype type;
	bool b;
	bool neg;      /* J_INT: below zero */
	uint64_t u;    /* J_INT: magnitude */
	const char *s; /* J_STRING, NUL-terminated */
	/* J_OTHER (an array or object) from json-c: its json_object */
	const void *obj;
};

/* A parsed line, whichever reader parsed it. */
struct ibve_jsrc {
	void (*get)(const struct ibve_jsrc *src, int key, struct ibve_jval *v);
	const void *data;
	/* the keys the line has; all when not known */
	struct ibve_keyset present;
};

/* Say why a field is refused (into ERR) and return -EINVAL. */
int ibve_field_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same from a reader that has ERR and ERRLEN. */
#define FAIL(...) return ibve_field_error(err, errlen, __VA_ARGS__)

/* The value of hex digit C, or -1. */
int ibve_hex_value(int c);
/* 2N hex digits at S, and nothing after them, into OUT; -EINVAL. */
int ibve_hex_bytes(const char *s, uint8_t *out, size_t n);

/*
 * Reading a field: 1 when set, 0 when absent or null, -EINVAL (reason in
 * ERR) when it is not what it must be. Inline: every line reads several.
 */
static inline int ibve_get_uint(const struct ibve_jsrc *o, int key,
				uint64_t max, uint64_t *out, char *err,
				size_t errlen)
{
	struct ibve_jval v;

	*out = 0;
	o->get(o, key, &v);
	if (v.type == J_ABSENT || v.type == J_NULL)
		return 0;
	if (v.type != J_INT)
		return ibve_field_error(err, errlen,
					"\"%s\" must be an integer",
					ibve_keys[key].name);
	if (v.neg || v.u > max)
		return ibve_field_error(err, errlen, "\"%s\" out of range",
					ibve_keys[key].name);
	*out = v.u;
	return 1;
}

static inline int ibve_get_str(const struct ibve_jsrc *o, int key,
			       const char **out, char *err, size_t errlen)
{
	struct ibve_jval v;

	*out = NULL;
	o->get(o, key, &v);
	if (v.type == J_ABSENT || v.type == J_NULL)
		return 0;
	if (v.type != J_STRING)
		return ibve_field_error(err, errlen, "\"%s\" must be a string",
					ibve_keys[key].name);
	*out = v.s;
	return 1;
}

/* An optional string of KEY into DST of SIZE, flagging FLAG when set. */
int ibve_get_opt_str(const struct ibve_jsrc *o, int key, char *dst, size_t size,
		     struct ibve_event *ev, uint32_t flag, char *err,
		     size_t errlen);

/* The enum ib_qp_type ibve_qp_type_name() names S; -EINVAL when none. */
int ibve_qp_type_parse(const char *s, uint32_t *type);

/* Copy S into DST (bytes not UTF-8 become U+FFFD); -EINVAL if too long. */
int ibve_copy_str(char *dst, size_t size, const char *key, const char *s,
		  char *err, size_t errlen);

/* The type of a field the engine writes and reads itself. */
enum ibve_ftype { FT_OWN, FT_U32, FT_U64, FT_STR };

/*
 * One optional field (or group of fields) of a record: a row of a
 * source's descriptor, parsed on that source's records only, or of this
 * file's, for any record. A row of a simple type (FT_U32, FT_U64, FT_STR:
 * one key, a member at OFF of struct ibve_event) needs nothing more; any
 * other gives its own JSON, text and parser.
 */
struct ibve_fieldspec {
	/* its JSON keys, in the order the writer puts them, space-separated */
	const char *keys;
	/* the place of its keys among every row's (JSON and text order) */
	int order;
	uint32_t flag; /* enum ibve_field: set when the record has it */
	enum ibve_ftype type;
	size_t off, size; /* FT_*: where the value lives, and its room */
	/*
	 * FT_U32, FT_U64: text's words, a printf format of the value as a
	 * uint64_t ("lost %" PRIu64); FT_STR: the words before the string.
	 * NULL: no words in text.
	 */
	const char *words;
	/* one line for people: the schema's description, without a line of
	 * its own in share/event.keys */
	const char *doc;
	/* its key alone says what the record is (an mlx5 entry): the line's
	 * source is the row's unless it says otherwise, and it needs no name
	 * or code */
	bool identity;
	/* FT_OWN: JSON members, after the fixed ones */
	void (*json)(struct ibve_json *j, const struct ibve_event *ev);
	/* FT_OWN: the words of text's " (...)", e.g. "qp 0x000011"; NULL:
	 * none */
	void (*text)(struct ibve_buf *b, const struct ibve_event *ev);
	/* FT_OWN: from a parsed line into EV, its keys from KEY on; 0 or
	 * -EINVAL (reason in ERR) */
	int (*parse)(const struct ibve_jsrc *o, struct ibve_event *ev, int key,
		     char *err, size_t errlen);
};

/* A row of a simple type: "key", FT_U32..., member, flag, words, doc. */
#define IBVE_FIELD(k, ord, t, member, f, w, d)                                \
	{                                                                     \
		.keys = k, .order = ord, .flag = f, .type = t,                \
		.off = offsetof(struct ibve_event, member),                   \
		.size = sizeof(((struct ibve_event *)0)->member), .words = w, \
		.doc = d                                                      \
	}
#define FIELDS(f) .fields = (f), .nfields = ARRAY_SIZE(f)

/* A row as the engine has it, every source's, in order. */
struct ibve_frow {
	const struct ibve_fieldspec *spec;
	int key;    /* the id of its first key; the others follow */
	int nkeys;  /* how many it has */
	int source; /* the records it is read on; -1: any */
};

/* The rows, gathered once from the registered sources. */
extern const struct ibve_frow *ibve_fields;
extern size_t ibve_nfields;
/* The key whose row says what a record is (identity), and its source;
 * -1 when none. */
extern int ibve_identity_key, ibve_identity_source;
/* Gather the rows and number their keys, once; later calls return. */
void ibve_fields_ready(void);
/* A line's optional fields (o->present's) into EV: 0 or -EINVAL. */
int ibve_fields_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
		      char *err, size_t errlen);
/* Whether source O's rows may join the others' (keys of their own, room
 * for them): 0, or -errno and why (sources.c). */
struct ibve_source_ops;
int ibve_fields_admit(const struct ibve_source_ops *o);
/* The row of key id KEY, or NULL (a fixed key). */
const struct ibve_frow *ibve_field_of_key(int key);

/* The object or detail of EV, as text shows it: " (qp 0x000011, ...)". */
void ibve_buf_event_details(struct ibve_buf *b, const struct ibve_event *ev);
/* A summary's words, "storm: x12,345 in 1.0 s", for text and syslog. */
void ibve_buf_summary(struct ibve_buf *b, const struct ibve_event *ev);
/* The text of EV: its summary's words, else its explanation (format.c). */
void ibve_buf_event_text(struct ibve_buf *b, const struct ibve_event *ev);
/* Its optional fields as JSON members. */
void ibve_json_event_fields(struct ibve_json *j, const struct ibve_event *ev);
/* EV's members as the journal's fields, each after a NUL (buf.h;
 * format.c). */
size_t ibve_event_format_fields(const struct ibve_event *ev, char *buf,
				size_t size);

#endif
