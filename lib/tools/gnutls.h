/* SPDX-License-Identifier: MIT */
/* Inside the tools archive: the GnuTLS functions --web-config uses. */
#ifndef IBVE_TOOLS_GNUTLS_H
#define IBVE_TOOLS_GNUTLS_H

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

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

#endif
