/* SPDX-License-Identifier: MIT */
/*
 * The fields of a record, each described once: its JSON key, how text and
 * JSON print it, how the replay parser reads it. format.c and parse.c go
 * through this table; a new optional field is one row of it.
 */
#ifndef IBVE_FIELDS_H
#define IBVE_FIELDS_H

#include "internal.h"

/*
 * The JSON keys a record has, in the order the writer puts them, and the
 * form the writer gives each value: F_STR a string, F_STR_OR_NULL a string
 * or null, F_OTHER anything else. The fixed keys are in every record; of
 * the others, each field row (ibve_fields[]) owns its key up to the next
 * row's. The replay's parser and prefilter take this order as theirs.
 */
#define IBVE_KEYS(X) IBVE_KEYS_FIXED(X) IBVE_KEYS_FIELDS(X)
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
#define IBVE_KEYS_FIELDS(X)                      \
	X(QP_NUM, qp_num, F_OTHER)               \
	X(QP_TYPE, qp_type, F_STR)               \
	X(WQ_NUM, wq_num, F_OTHER)               \
	X(HANDLE, handle, F_OTHER)               \
	X(PID, pid, F_OTHER)                     \
	X(COMM, comm, F_STR)                     \
	X(CGROUP, cgroup, F_STR)                 \
	X(KERNEL, kernel, F_STR)                 \
	X(AFTER, after, F_STR)                   \
	X(AFTER_PORT, after_port, F_OTHER)       \
	X(AFTER_US, after_us, F_OTHER)           \
	X(RECOVERED_US, recovered_us, F_OTHER)   \
	X(CHARDEV, chardev, F_STR)               \
	X(NETDEV, netdev, F_STR)                 \
	X(NETDEV_INDEX, netdev_index, F_OTHER)   \
	X(LOST, lost, F_OTHER)                   \
	X(DOWN_US, down_us, F_OTHER)             \
	X(RATES, rates, F_OTHER)                 \
	X(PEER, peer, F_OTHER)                   \
	X(GID, gid, F_STR)                       \
	X(ISSUER_LID, issuer_lid, F_OTHER)       \
	X(PRODUCER_TYPE, producer_type, F_OTHER) \
	X(STORM_COUNT, count, F_OTHER)           \
	X(INTERVAL_US, interval_us, F_OTHER)     \
	X(LAST_OBJECT, last_object, F_OTHER)     \
	X(STORM_TOTAL, storm_total, F_OTHER)     \
	X(STORM_US, storm_us, F_OTHER)           \
	X(EQE, eqe, F_STR)

#define IBVE_KEY_ID(id, name, form) K_##id,
enum ibve_key { IBVE_KEYS(IBVE_KEY_ID) K_COUNT };
#undef IBVE_KEY_ID
#define IBVE_KEY_ONE(id, name, form) +1
enum { K_FIXED = 0 IBVE_KEYS_FIXED(IBVE_KEY_ONE) }; /* the first field key */
#undef IBVE_KEY_ONE

enum ibve_key_form { F_STR, F_STR_OR_NULL, F_OTHER };

extern const struct ibve_key_name {
	const char *name;
	uint8_t len;
} ibve_keys[K_COUNT];

/* A set of keys, as many words as K_COUNT takes. */
struct ibve_keyset {
	uint64_t w[(K_COUNT + 63) / 64];
};

static inline bool ibve_keyset_has(const struct ibve_keyset *s, enum ibve_key k)
{
	return s->w[k / 64] >> (k % 64) & 1;
}

static inline void ibve_keyset_add(struct ibve_keyset *s, enum ibve_key k)
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
	void (*get)(const struct ibve_jsrc *src, enum ibve_key key,
		    struct ibve_jval *v);
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

/*
 * Reading a field: 1 when set, 0 when absent or null, -EINVAL (reason in
 * ERR) when it is not what it must be. Inline: every line reads several.
 */
static inline int ibve_get_uint(const struct ibve_jsrc *o, enum ibve_key key,
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

static inline int ibve_get_str(const struct ibve_jsrc *o, enum ibve_key key,
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

/* Copy S into DST (bytes not UTF-8 become U+FFFD); -EINVAL if too long. */
int ibve_copy_str(char *dst, size_t size, const char *key, const char *s,
		  char *err, size_t errlen);

/*
 * One optional field (or group of fields) of a record. Rows are in the
 * order of the keys, the first at K_FIXED; a row's keys are KEY up to the
 * next row's KEY, and PARSE runs when the line has any of them.
 */
struct ibve_fieldspec {
	uint32_t flag; /* enum ibve_field */
	enum ibve_key key;
	/* JSON members, after the fixed ones */
	void (*json)(struct ibve_json *j, const struct ibve_event *ev);
	/* the words of text's " (...)", e.g. "qp 0x000011"; NULL: none */
	void (*text)(struct ibve_buf *b, const struct ibve_event *ev);
	/* from a parsed line into EV; 0 or -EINVAL (reason in ERR) */
	int (*parse)(const struct ibve_jsrc *o, struct ibve_event *ev,
		     char *err, size_t errlen);
};

extern const struct ibve_fieldspec ibve_fields[];
extern const size_t ibve_nfields;

#endif
