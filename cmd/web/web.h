/* SPDX-License-Identifier: MIT */
/*
 * The exporter of ibv_eventwatch: /metrics over HTTP(S), its web
 * configuration file and basic auth. An archive of its own
 * (build/lib/libibvevent-web.a, not installed) on the public API alone, so
 * that a program linking libibvevent pulls in no libmicrohttpd.
 */
#ifndef IBVE_WEB_H
#define IBVE_WEB_H

#include "ibvevent.h"

/* ------------------------------------------------------------------ */
/* A /metrics HTTP endpoint (libmicrohttpd) for one poll loop           */

struct ibve_http;
struct ibve_webconfig;

/*
 * Listen on ADDR ("[host]:port", "host:port" or ":port"; the host is
 * 127.0.0.1 when left out) and serve the metrics of T at /metrics from
 * loop L (its fd polled, its timeouts as a wakeup), over HTTPS and behind
 * basic auth as web configuration W says (NULL: plain HTTP to anyone). W
 * is the server's from then on, freed with it, and also when this fails.
 * 0 or -errno with the reason in ibve_errmsg().
 */
int ibve_http_new(struct ibve_http **h, const char *addr,
		  const struct ibve_ports *t, struct ibve_webconfig *w,
		  struct ibve_loop *l);
void ibve_http_free(struct ibve_http *h);
/*
 * What a request for URL by METHOD gets, with the basic-auth USER and
 * PASSWORD it sent (NULL: none), under web configuration W (NULL: none):
 * 401 (no user of W's, or a wrong password), 405 (not GET or HEAD), 404
 * (not /metrics) or 200.
 */
unsigned int ibve_http_status(struct ibve_webconfig *w, const char *method,
			      const char *url, const char *user,
			      const char *password);

/* ------------------------------------------------------------------ */
/* The web configuration file (webconfig.c)                            */

struct ibve_auth;

/* What a web configuration file asks of the server. */
struct ibve_webconfig {
	char *cert_pem, *key_pem;  /* both, or neither: plain HTTP */
	char priorities[128];	   /* GnuTLS's, from min/max_version */
	struct ibve_auth *auth;	   /* NULL: no basic auth */
	const char *headers[5][2]; /* name (static), value: on every answer */
	size_t nheaders;
};

/*
 * Read the exporters' web configuration file PATH (YAML, libyaml loaded
 * now): 0; -EINVAL when what it says is wrong ("PATH:LINE: key: why"),
 * another -errno when it, its certificate or its key cannot be read, the
 * key does not go with the certificate, or a library cannot be loaded.
 */
int ibve_webconfig_load(struct ibve_webconfig **c, const char *path);
/* The same from the LEN bytes at DATA, read from PATH (for messages, and
 * the certificate's and key's files, relative to it). */
int ibve_webconfig_parse(struct ibve_webconfig **c, const char *path,
			 const char *data, size_t len);
void ibve_webconfig_free(struct ibve_webconfig *c);

#endif
