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
	static struct ibve_dl lib = { .soname = IBVE_GNUTLS_SONAME,
				      .users = "for the TLS of --web-config",
				      .package = "libgnutls30",
				      .names = names,
				      .n = ARRAY_SIZE(names),
				      .fn = &ibve_gnutls };

	_Static_assert(sizeof(ibve_gnutls) ==
			       ARRAY_SIZE(names) * sizeof(void *),
		       "one name per function");
	return ibve_dl_load(&lib);
}
