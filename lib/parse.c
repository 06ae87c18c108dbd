// SPDX-License-Identifier: MIT
/*
 * Reading records back from JSON Lines, with json-c. Only "time",
 * "device", "port" and "event" (or "code") are needed; every other field
 * is optional and unknown fields are ignored, so captures from newer
 * versions still replay.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "internal.h"
#include "parse.h"

#define FAIL(...)                                   \
	do {                                        \
		snprintf(err, errlen, __VA_ARGS__); \
		return -EINVAL;                     \
	} while (0)

static bool get(struct json_object *o, const char *key, struct json_object **v)
{
	return json_object_object_get_ex(o, key, v) && *v;
}

/* An unsigned integer field in [0, MAX]; 1 if set, 0 if absent or null. */
static int get_uint(struct json_object *o, const char *key, uint64_t max,
		    uint64_t *out, char *err, size_t errlen)
{
	struct json_object *v;
	int64_t i;

	if (!get(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int))
		FAIL("\"%s\" must be an integer", key);
	i = json_object_get_int64(v);
	if (i < 0)
		FAIL("\"%s\" out of range", key);
	if (i == INT64_MAX) {
		/* Beyond int64: json-c keeps it as a uint64. */
		uint64_t u = json_object_get_uint64(v);

		if (u > max)
			FAIL("\"%s\" out of range", key);
		*out = u;
		return 1;
	}
	if ((uint64_t)i > max)
		FAIL("\"%s\" out of range", key);
	*out = (uint64_t)i;
	return 1;
}

/* A string field; 1 if set, 0 if absent or null. */
static int get_str(struct json_object *o, const char *key, const char **out,
		   char *err, size_t errlen)
{
	struct json_object *v;

	if (!get(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		FAIL("\"%s\" must be a string", key);
	*out = json_object_get_string(v);
	return 1;
}

static int copy_str(char *dst, size_t size, const char *key, const char *s,
		    char *err, size_t errlen)
{
	size_t n = strlen(s);

	if (n >= size)
		FAIL("\"%s\" longer than %zu bytes", key, size - 1);
	memcpy(dst, s, n + 1);
	return 0;
}

static int hex_bytes(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int v;

		if (!isxdigit((unsigned char)s[2 * i]) ||
		    !isxdigit((unsigned char)s[2 * i + 1]))
			return -EINVAL;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		out[i] = (uint8_t)v;
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

/* The event's identity: name or code, and what it implies. */
static int parse_identity(struct json_object *o, struct ibve_event *ev,
			  char *err, size_t errlen)
{
	const struct ibve_event_desc *d;
	const char *name = NULL, *s;
	enum ibve_source source = IBVE_SOURCE_VERBS;
	uint64_t u;
	int64_t code = -1;
	int r, n = 0;

	if (get_str(o, "source", &s, err, errlen) > 0) {
		int v = ibve_source_parse(s);

		if (v < 0)
			FAIL("unknown source \"%.40s\"", s);
		source = (enum ibve_source)v;
	} else if (*err) {
		return -EINVAL;
	}
	r = get_uint(o, "code", INT32_MAX, &u, err, errlen);
	if (r < 0)
		return r;
	if (r)
		code = (int64_t)u;
	r = get_str(o, "event", &name, err, errlen);
	if (r < 0)
		return r;

	if (!name) {
		if (code < 0)
			FAIL("needs \"event\" or \"code\"");
		ibve_event_set_code(ev, source, (int)code);
		return 0;
	}
	d = ibve_event_desc_lookup(name);
	if (d) {
		ibve_event_set_code(ev, d->source, d->code);
		return 0;
	}
	if (sscanf(name, "UNKNOWN(%" SCNd64 ")%n", &code, &n) == 1 &&
	    name[n] == '\0' && code >= 0 && code <= INT32_MAX) {
		ibve_event_set_code(ev, source, (int)code);
		return 0;
	}

	/* A name from a newer version: keep what the line says of it. */
	if (!*name)
		FAIL("\"event\" is empty");
	if (copy_str(ev->name, sizeof(ev->name), "event", name, err, errlen))
		return -EINVAL;
	ibve_event_set_unknown(ev, source, (int)code);
	ibve_strcpy(ev->name, name, sizeof(ev->name));
	if (get_str(o, "class", &s, err, errlen) > 0 &&
	    ibve_class_parse(s) >= 0)
		ev->cls = (enum ibve_class)ibve_class_parse(s);
	if (get_str(o, "severity", &s, err, errlen) > 0 &&
	    ibve_severity_parse(s) >= 0)
		ev->severity = (enum ibve_severity)ibve_severity_parse(s);
	{
		struct json_object *v;

		if (get(o, "affiliated", &v) &&
		    json_object_is_type(v, json_type_boolean))
			ev->affiliated = json_object_get_boolean(v);
	}
	*err = '\0';
	return 0;
}

static int parse_optional(struct json_object *o, struct ibve_event *ev,
			  char *err, size_t errlen)
{
	const char *s;
	uint64_t u;
	int r;

	if ((r = get_str(o, "node_guid", &s, err, errlen)) > 0) {
		if (ibve_guid_parse(s, &ev->node_guid))
			FAIL("\"node_guid\" is not a GUID");
	} else if (r < 0) {
		return r;
	}
	if ((r = get_uint(o, "qp_num", UINT32_MAX, &u, err, errlen)) > 0) {
		ev->qp_num = (uint32_t)u;
		ev->fields |= IBVE_FIELD_QP_NUM;
	} else if (r < 0) {
		return r;
	}
	if ((r = get_uint(o, "wq_num", UINT32_MAX, &u, err, errlen)) > 0) {
		ev->wq_num = (uint32_t)u;
		ev->fields |= IBVE_FIELD_WQ_NUM;
	} else if (r < 0) {
		return r;
	}
	if ((r = get_uint(o, "handle", UINT32_MAX, &u, err, errlen)) > 0) {
		ev->handle = (uint32_t)u;
		ev->fields |= IBVE_FIELD_HANDLE;
	} else if (r < 0) {
		return r;
	}
	if ((r = get_str(o, "chardev", &s, err, errlen)) > 0) {
		if (copy_str(ev->chardev, sizeof(ev->chardev), "chardev", s,
			     err, errlen))
			return -EINVAL;
		ev->fields |= IBVE_FIELD_CHARDEV;
	} else if (r < 0) {
		return r;
	}
	if ((r = get_str(o, "netdev", &s, err, errlen)) > 0) {
		if (copy_str(ev->netdev, sizeof(ev->netdev), "netdev", s, err,
			     errlen))
			return -EINVAL;
		ev->fields |= IBVE_FIELD_NETDEV;
	} else if (r < 0) {
		return r;
	}
	if ((r = get_uint(o, "netdev_index", UINT32_MAX, &u, err, errlen)) >
	    0) {
		ev->netdev_index = (uint32_t)u;
		ev->fields |= IBVE_FIELD_NETDEV;
	} else if (r < 0) {
		return r;
	}
	if ((r = get_uint(o, "lost", UINT64_MAX, &u, err, errlen)) > 0) {
		ev->lost = u;
		ev->fields |= IBVE_FIELD_LOST;
	} else if (r < 0) {
		return r;
	}
	if ((r = get_str(o, "gid", &s, err, errlen)) > 0) {
		if (parse_gid(s, ev->sm.gid))
			FAIL("\"gid\" is not a GID");
		ev->fields |= IBVE_FIELD_SM;
		if ((r = get_uint(o, "issuer_lid", UINT16_MAX, &u, err,
				  errlen)) > 0)
			ev->sm.issuer_lid = (uint16_t)u;
		else if (r < 0)
			return r;
		if ((r = get_uint(o, "producer_type", 0xffffff, &u, err,
				  errlen)) > 0)
			ev->sm.producer_type = (uint32_t)u;
		else if (r < 0)
			return r;
	} else if (r < 0) {
		return r;
	}
	if ((r = get_str(o, "eqe", &s, err, errlen)) > 0) {
		uint8_t eqe[64];

		/* The entry itself says what happened: decode it here. */
		if (hex_bytes(s, eqe, sizeof(eqe)))
			FAIL("\"eqe\" is not 64 bytes of hex");
		ibve_mlx5_decode(ev, eqe, sizeof(eqe));
	} else if (r < 0) {
		return r;
	}
	return 0;
}

int ibve_parse_object(struct json_object *o, struct ibve_event *ev, char *err,
		      size_t errlen)
{
	const char *s;
	uint64_t u;
	int r;

	memset(ev, 0, sizeof(*ev));
	*err = '\0';
	if (!json_object_is_type(o, json_type_object))
		FAIL("not a JSON object");

	r = get_str(o, "time", &s, err, errlen);
	if (r <= 0)
		FAIL("%s", r < 0 ? err : "missing \"time\"");
	if (ibve_time_parse(s, &ev->time))
		FAIL("\"time\" is not an RFC 3339 time: \"%.40s\"", s);

	r = get_str(o, "device", &s, err, errlen);
	if (r <= 0)
		FAIL("%s", r < 0 ? err : "missing \"device\"");
	if (!*s)
		FAIL("\"device\" is empty");
	if (copy_str(ev->device, sizeof(ev->device), "device", s, err, errlen))
		return -EINVAL;

	{
		struct json_object *v;

		if (!json_object_object_get_ex(o, "port", &v))
			FAIL("missing \"port\"");
	}
	r = get_uint(o, "port", UINT16_MAX, &u, err, errlen);
	if (r < 0)
		FAIL("\"port\" must be a port number or null");
	ev->port = r ? (uint32_t)u : 0;

	if (parse_identity(o, ev, err, errlen))
		return -EINVAL;
	return parse_optional(o, ev, err, errlen);
}

int ibve_parse_line(struct json_tokener *tok, const char *line, size_t len,
		    struct ibve_event *ev, char *err, size_t errlen)
{
	struct json_object *o;
	enum json_tokener_error jerr;
	size_t used;
	int r;

	if (len > INT32_MAX)
		FAIL("line too long");
	for (used = 0; used < len && isspace((unsigned char)line[used]); used++)
		;
	if (used == len || line[used] != '{')
		FAIL("not a JSON object");
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, line, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!o) {
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
	r = ibve_parse_object(o, ev, err, errlen);
	json_object_put(o);
	return r;
}

IBVE_EXPORT int ibve_event_parse_json(const char *line, size_t len,
				      struct ibve_event *ev, char *err,
				      size_t errlen)
{
	struct json_tokener *tok = json_tokener_new();
	int r;

	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = ibve_parse_line(tok, line, len, ev, err, errlen);
	json_tokener_free(tok);
	return r;
}
