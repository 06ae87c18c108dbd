/* SPDX-License-Identifier: MIT */
/*
 * Shared inside the web archive only: the loader of the libraries it
 * needs when first used (libmicrohttpd, libyaml, libcrypt, GnuTLS), the
 * GnuTLS functions, basic auth.
 */
#ifndef IBVE_WEB_INTERNAL_H
#define IBVE_WEB_INTERNAL_H

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "web.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A library opened with dlopen() by its soname when first needed, its
 * functions NAMES (in the order of the table FN, N pointers) with dlsym().
 */
struct web_lib {
	const char *soname;
	const char *users;   /* what needs it, for messages */
	const char *package; /* the Debian package that has it */
	const char *const *names;
	size_t n;
	void *fn;
	bool loaded;
};

/* The web_lib VAR for the table FN_ named by the array NAMES_. */
#define WEB_LIB(var, fn_, names_, soname_, users_, package_)               \
	_Static_assert(sizeof(fn_) == ARRAY_SIZE(names_) * sizeof(void *), \
		       "one name per function");                           \
	static struct web_lib var = { .soname = soname_,                   \
				      .users = users_,                     \
				      .package = package_,                 \
				      .names = names_,                     \
				      .n = ARRAY_SIZE(names_),             \
				      .fn = &(fn_) }

/*
 * 0 when L's functions can be called; else -ELIBACC with the library and
 * what is missing in ibve_errmsg().
 */
int web_lib_load(struct web_lib *l);

/* GnuTLS: mapped already by libmicrohttpd, which links it. */
struct ibve_gnutls {
	__typeof__(gnutls_certificate_allocate_credentials) *alloc_creds;
	__typeof__(gnutls_certificate_free_credentials) *free_creds;
	__typeof__(gnutls_certificate_set_x509_key_mem2) *set_key_mem2;
	__typeof__(gnutls_strerror) *strerror;
	__typeof__(gnutls_hmac_fast) *hmac_fast;
};

extern struct ibve_gnutls ibve_gnutls;

/* 0, or -ELIBACC with the reason in ibve_errmsg(). */
int ibve_gnutls_load(void);

/* Users and their bcrypt hashes (libcrypt loaded by ibve_auth_new). */
int ibve_auth_new(struct ibve_auth **a);
void ibve_auth_free(struct ibve_auth *a);
/* The highest bcrypt cost a user may have: about a second a check. */
#define IBVE_AUTH_COST_MAX 14
/*
 * 0, -EEXIST when NAME is a user already, -EINVAL when HASH is no bcrypt
 * hash, -E2BIG when its cost is above IBVE_AUTH_COST_MAX, or -ENOMEM.
 */
int ibve_auth_add_user(struct ibve_auth *a, const char *name, const char *hash);
/*
 * Whether USER is known and PASSWORD is hers (verified pairs cached).
 * A pair not cached is refused unchecked while bcrypt is over its budget.
 */
bool ibve_auth_check(struct ibve_auth *a, const char *user,
		     const char *password);

#endif
