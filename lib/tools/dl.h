/* SPDX-License-Identifier: MIT */
/*
 * Inside the tools archive: the loader of the libraries one option needs
 * (dl.c), and the GnuTLS functions the web configuration uses.
 */
#ifndef IBVE_TOOLS_DL_H
#define IBVE_TOOLS_DL_H

#include <stddef.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#define IBVE_DL_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A library loaded on first use: its SONAME, the Debian package that has
 * it (for the message when it is missing), and the N functions whose
 * addresses fill a table of N pointers, in that order.
 */
struct ibve_dl {
	const char *soname;
	const char *package;
	const char *const *names;
	size_t n;
};

/* Fill TABLE (left as it is when its first entry is set). 0 or -ENOENT. */
int ibve_dl_load(const struct ibve_dl *lib, void *table);

/* GnuTLS: mapped already by libmicrohttpd, which links it. */
struct ibve_gnutls {
	__typeof__(gnutls_certificate_allocate_credentials) *alloc_creds;
	__typeof__(gnutls_certificate_free_credentials) *free_creds;
	__typeof__(gnutls_certificate_set_x509_key_mem2) *set_key_mem2;
	__typeof__(gnutls_strerror) *strerror;
	__typeof__(gnutls_hmac_fast) *hmac_fast;
};

extern struct ibve_gnutls ibve_gnutls;

int ibve_gnutls_load(void);

#endif
