/* SPDX-License-Identifier: MIT */
/*
 * Libraries loaded when first needed. libibvevent links libibverbs alone:
 * libbpf (with libelf and zlib), libmlx5, libibumad and json-c each cost
 * every start its loading and relocation, and most starts use none of
 * them. Each is opened with dlopen() by the name it gives itself (its
 * soname, found at build time) the first time a source or the JSON reader
 * needs it, and its functions are reached through a table of pointers
 * that dlsym() fills.
 *
 * A header per library (dl_jsonc.h, dl_bpf.h, dl_mlx5.h, dl_umad.h) lists
 * the functions used, declares the table and maps each name to it, so a
 * call site reads as a plain call; dl_tables.c has the tables. Types,
 * macros and inline functions of the library's own headers are used as
 * they are. The same loader serves the journal sink (libsystemd).
 */
#ifndef IBVE_DL_H
#define IBVE_DL_H

#include "util.h"

struct ibve_dl {
	const char *soname;
	const char *users;	  /* what needs it, for messages */
	const char *package;	  /* the Debian package that has it, or NULL */
	const char *const *names; /* its functions, in the order of fn */
	size_t n;
	void *fn;  /* the table: N function pointers */
	int state; /* 0 not tried, 1 loaded, < 0 failed (-errno) */
	char why[384];
};

/* A member of a table: a pointer to function F, of F's own type. */
#define IBVE_DL_MEMBER(f) __typeof__(f) *f;

/*
 * VAR (of storage class CLASS: static, or nothing), the loader of table
 * FN (a struct of function pointers) whose functions NAMES names in FN's
 * order, checked to name one per pointer.
 */
#define IBVE_DL_DEFINE(class, var, fn_, names_, soname_, users_, package_) \
	_Static_assert(sizeof(fn_) == ARRAY_SIZE(names_) * sizeof(void *), \
		       "one name per function");                           \
	class struct ibve_dl var = { .soname = soname_,                    \
				     .users = users_,                      \
				     .package = package_,                  \
				     .names = names_,                      \
				     .n = ARRAY_SIZE(names_),              \
				     .fn = &(fn_) }

/*
 * Load L, once for all threads: 0 when its functions can be called; else
 * -ELIBACC with the library and what is missing in ibve_errmsg(), the
 * same on every later call.
 */
int ibve_dl_load(struct ibve_dl *l);

#endif
