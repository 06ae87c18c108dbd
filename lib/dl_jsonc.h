/* SPDX-License-Identifier: MIT */
/*
 * json-c, loaded (dl.h) for the JSON the library's own scanner leaves to
 * it: unusual layouts, arrays such as "rates", a metrics state file; and
 * by the journal sink, which reads a record's JSON back member by member.
 */
#ifndef IBVE_DL_JSONC_H
#define IBVE_DL_JSONC_H

#include <json-c/json.h>

#include "dl.h"

#define IBVE_JSONC_FUNCS(X)                  \
	X(json_object_array_get_idx)         \
	X(json_object_array_length)          \
	X(json_object_get_boolean)           \
	X(json_object_get_double)            \
	X(json_object_get_int64)             \
	X(json_object_get_object)            \
	X(json_object_get_string_len)        \
	X(json_object_get_string)            \
	X(json_object_get_type)              \
	X(json_object_get_uint64)            \
	X(json_object_is_type)               \
	X(json_object_object_get_ex)         \
	X(json_object_put)                   \
	X(json_object_to_json_string_length) \
	X(json_tokener_error_desc)           \
	X(json_tokener_free)                 \
	X(json_tokener_get_error)            \
	X(json_tokener_get_parse_end)        \
	X(json_tokener_new)                  \
	X(json_tokener_parse)                \
	X(json_tokener_parse_ex)             \
	X(json_tokener_reset)

struct ibve_jsonc {
	IBVE_JSONC_FUNCS(IBVE_DL_MEMBER)
};
extern struct ibve_jsonc ibve_jsonc_fn;
extern struct ibve_dl ibve_jsonc_dl;

/* Every json-c call goes through the table. */
#define json_object_array_get_idx  (*ibve_jsonc_fn.json_object_array_get_idx)
#define json_object_array_length   (*ibve_jsonc_fn.json_object_array_length)
#define json_object_get_boolean	   (*ibve_jsonc_fn.json_object_get_boolean)
#define json_object_get_double	   (*ibve_jsonc_fn.json_object_get_double)
#define json_object_get_int64	   (*ibve_jsonc_fn.json_object_get_int64)
#define json_object_get_object	   (*ibve_jsonc_fn.json_object_get_object)
#define json_object_get_string_len (*ibve_jsonc_fn.json_object_get_string_len)
#define json_object_get_string	   (*ibve_jsonc_fn.json_object_get_string)
#define json_object_get_type	   (*ibve_jsonc_fn.json_object_get_type)
#define json_object_get_uint64	   (*ibve_jsonc_fn.json_object_get_uint64)
#define json_object_is_type	   (*ibve_jsonc_fn.json_object_is_type)
#define json_object_object_get_ex  (*ibve_jsonc_fn.json_object_object_get_ex)
#define json_object_put		   (*ibve_jsonc_fn.json_object_put)
#define json_object_to_json_string_length \
	(*ibve_jsonc_fn.json_object_to_json_string_length)
#define json_tokener_error_desc	   (*ibve_jsonc_fn.json_tokener_error_desc)
#define json_tokener_free	   (*ibve_jsonc_fn.json_tokener_free)
#define json_tokener_get_error	   (*ibve_jsonc_fn.json_tokener_get_error)
#define json_tokener_get_parse_end (*ibve_jsonc_fn.json_tokener_get_parse_end)
#define json_tokener_new	   (*ibve_jsonc_fn.json_tokener_new)
#define json_tokener_parse	   (*ibve_jsonc_fn.json_tokener_parse)
#define json_tokener_parse_ex	   (*ibve_jsonc_fn.json_tokener_parse_ex)
#define json_tokener_reset	   (*ibve_jsonc_fn.json_tokener_reset)

#endif
