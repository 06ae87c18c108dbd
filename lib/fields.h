/* SPDX-License-Identifier: MIT */
/*
 * The fields of a record, each described once: its JSON key, how text and
 * JSON print it, how the replay parser reads it. format.c and parse.c go
 * through this table; a new optional field is one row of it.
 */
#ifndef IBVE_FIELDS_H
#define IBVE_FIELDS_H

#include "internal.h"

/* The JSON keys a record has, in the order the writer puts them. */
enum ibve_key {
	K_TIME,
	K_DEVICE,
	K_PORT,
	K_EVENT,
	K_CODE,
	K_CLASS,
	K_SEVERITY,
	K_AFFILIATED,
	K_SOURCE,
	K_NODE_GUID,
	K_QP_NUM,
	K_QP_TYPE,
	K_WQ_NUM,
	K_HANDLE,
	K_PID,
	K_COMM,
	K_CGROUP,
	K_KERNEL,
	K_AFTER,
	K_AFTER_PORT,
	K_AFTER_US,
	K_RECOVERED_US,
	K_CHARDEV,
	K_NETDEV,
	K_NETDEV_INDEX,
	K_LOST,
	K_DOWN_US,
	K_RATES,
	K_GID,
	K_ISSUER_LID,
	K_PRODUCER_TYPE,
	K_EQE,
	K_COUNT
};

extern const struct ibve_key_name {
	const char *name;
	uint8_t len;
} ibve_keys[K_COUNT];

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
	/* KEY_BIT() of the keys the line has; all ones when not known */
	uint32_t present;
};

#define KEY_BIT(k) (1u << (k))
_Static_assert(K_COUNT <= 32, "a key is a bit of ibve_jsrc.present");

/* Say why a field is refused (into ERR) and return -EINVAL. */
int ibve_field_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

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

/* One optional field (or group of fields) of a record. */
struct ibve_fieldspec {
	uint32_t flag; /* enum ibve_field; 0: read only (no output) */
	uint32_t keys; /* KEY_BIT()s parse reads: it runs if the line has one */
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
