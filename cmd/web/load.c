// SPDX-License-Identifier: MIT
/*
 * The libraries the exporter loads when first needed (internal.h), and
 * GnuTLS for --web-config: the functions that check a certificate against
 * its key and make the auth cache's HMACs. libmicrohttpd links GnuTLS, so
 * it is mapped once the HTTP server is. Called from one thread, the
 * command's poll loop.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "internal.h"

#ifndef IBVE_GNUTLS_SONAME
#define IBVE_GNUTLS_SONAME "libgnutls.so.30"
#endif

int web_lib_load(struct web_lib *l)
{
	void *h, *f;

	if (l->loaded) /* kept loaded for the rest of the run */
		return 0;
	if (!(h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL)))
		return ibve_error(
			ELIBACC,
			"cannot load %s (needed %s; Debian package %s): %s",
			l->soname, l->users, l->package, dlerror());
	for (size_t i = 0; i < l->n; i++) {
		if (!(f = dlsym(h, l->names[i]))) {
			dlclose(h);
			return ibve_error(ELIBACC,
					  "%s has no function %s (needed %s)",
					  l->soname, l->names[i], l->users);
		}
		memcpy((char *)l->fn + i * sizeof(f), &f, sizeof(f));
	}
	l->loaded = true;
	return 0;
}

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
	WEB_LIB(lib, ibve_gnutls, names, IBVE_GNUTLS_SONAME,
		"for the TLS of --web-config", "libgnutls30");

	return web_lib_load(&lib);
}
