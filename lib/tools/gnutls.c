// SPDX-License-Identifier: MIT
/*
 * GnuTLS, for --web-config: the functions that check a certificate
 * against its key and make the cache's HMACs. libmicrohttpd links GnuTLS,
 * so it is mapped once the HTTP server is; this table reaches it through
 * the library's loader (dl.h), like the other optional libraries.
 */
#include "internal.h"
#include "dl.h"
#include "gnutls.h"

#ifndef IBVE_GNUTLS_SONAME
#define IBVE_GNUTLS_SONAME "libgnutls.so.30"
#endif

struct ibve_gnutls ibve_gnutls;

int ibve_gnutls_load(void)
{
	static const char *const names[] = {
		"gnutls_certificate_allocate_credentials",
		"gnutls_certificate_free_credentials",
		"gnutls_certificate_set_x509_key_mem2",
		"gnutls_strerror",
		"gnutls_hmac_fast",
	};
	IBVE_DL_DEFINE(static, lib, ibve_gnutls, names, IBVE_GNUTLS_SONAME,
		       "for the TLS of --web-config", "libgnutls30");

	return ibve_dl_load(&lib);
}
