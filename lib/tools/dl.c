// SPDX-License-Identifier: MIT
/*
 * The libraries one option needs, loaded when that option is used: the
 * HTTP server (libmicrohttpd, with GnuTLS), the YAML reader and the
 * password hashes of --web-config. A plain start of a command maps none
 * of them. One loader: a table of names filled with their addresses.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "dl.h"

int ibve_dl_load(const struct ibve_dl *lib, void *table)
{
	void **fn = table;
	void *h;

	if (fn[0])
		return 0; /* loaded before */
	h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return ibve_error(ENOENT,
				  "cannot load %s (Debian package %s): %s",
				  lib->soname, lib->package, dlerror());
	for (size_t i = 0; i < lib->n; i++) {
		void *f = dlsym(h, lib->names[i]);

		if (!f) {
			dlclose(h);
			memset(table, 0, lib->n * sizeof(void *));
			return ibve_error(ENOENT, "%s has no %s", lib->soname,
					  lib->names[i]);
		}
		memcpy(&fn[i], &f, sizeof(f));
	}
	return 0; /* kept loaded: what it made may outlive its first user */
}

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
	static const struct ibve_dl lib = { IBVE_GNUTLS_SONAME, "libgnutls30",
					    names, IBVE_DL_COUNT(names) };

	_Static_assert(sizeof(ibve_gnutls) ==
			       IBVE_DL_COUNT(names) * sizeof(void *),
		       "one name per function");
	return ibve_dl_load(&lib, &ibve_gnutls);
}
