// SPDX-License-Identifier: MIT
/*
 * /metrics over HTTP with libmicrohttpd, driven from the caller's poll
 * loop: MHD's epoll fd is polled with the rest, and MHD asks for a
 * wakeup only while connections are open, so an idle server is idle.
 *
 * libmicrohttpd is loaded when a server is first made, not when the
 * program starts: it brings GnuTLS and its kin (a dozen libraries and
 * their constructors), which every start of the watcher paid for, used or
 * not, and most starts (health checks, replays) never serve HTTP.
 *
 * A web configuration (webconfig.c) adds HTTPS through libmicrohttpd's
 * GnuTLS, still in the same loop, and basic auth for every path
 * (auth.c). The limits below keep slow clients from starving scrapes.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "internal.h"

#ifndef IBVE_MHD_SONAME
#define IBVE_MHD_SONAME "libmicrohttpd.so.12"
#endif

/*
 * Slow or idle clients must not starve the scrapes. A client may hold
 * CLIENT_LIMIT connections (Prometheus keeps one to each target; a few
 * servers behind one address, and a person with curl, stay well under
 * it): past that, its new ones are closed at once. All clients together
 * may hold CONN_LIMIT, far above one client's share and far below the
 * usual 1024 descriptors of a service. A connection that sends nothing
 * for IDLE_TIMEOUT seconds, a request's headers cut short included, is
 * closed (libmicrohttpd counts whole seconds). Measured before these
 * limits (32 connections in all, 10 s): 60 half-open connections kept
 * every scrape waiting.
 */
#define CLIENT_LIMIT 8
#define CONN_LIMIT   256
#define IDLE_TIMEOUT 5
#define REALM	     "ibvevent"

/* The functions used, resolved at the first ibve_http_new(). */
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_get_timeout) *get_timeout;
	__typeof__(MHD_run) *run;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_basic_auth_get_username_password) *basic_auth_get;
	__typeof__(MHD_queue_basic_auth_fail_response) *basic_auth_fail;
	__typeof__(MHD_free) *free;
} mhd;

static int mhd_load(void)
{
	static const char *const names[] = {
		"MHD_start_daemon",
		"MHD_stop_daemon",
		"MHD_get_daemon_info",
		"MHD_get_timeout",
		"MHD_run",
		"MHD_create_response_from_buffer",
		"MHD_add_response_header",
		"MHD_queue_response",
		"MHD_destroy_response",
		"MHD_basic_auth_get_username_password",
		"MHD_queue_basic_auth_fail_response",
		"MHD_free",
	};
	WEB_LIB(lib, mhd, names, IBVE_MHD_SONAME, "for the HTTP endpoint",
		"libmicrohttpd12");

	return web_lib_load(&lib);
}

struct ibve_http {
	struct MHD_Daemon *d;
	const struct ibve_ports *m;
	struct ibve_webconfig *w;
	int fd;
};

/* Answer STATUS with BODY (freed), 401 asking for basic auth. */
static enum MHD_Result reply(const struct ibve_http *h,
			     struct MHD_Connection *c, unsigned int status,
			     char *body, size_t len, const char *type)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(
		len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ok;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	mhd.add_response_header(r, "Content-Type", type);
	for (size_t i = 0; h->w && i < h->w->nheaders; i++)
		mhd.add_response_header(r, h->w->headers[i][0],
					h->w->headers[i][1]);
	ok = status == MHD_HTTP_UNAUTHORIZED ? mhd.basic_auth_fail(c, REALM, r)
					     : mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ok;
}

unsigned int ibve_http_status(struct ibve_webconfig *w, const char *method,
			      const char *url, const char *user,
			      const char *password)
{
	if (w && w->auth &&
	    !(user && password && ibve_auth_check(w->auth, user, password)))
		return MHD_HTTP_UNAUTHORIZED;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return MHD_HTTP_METHOD_NOT_ALLOWED;
	if (strcmp(url, "/metrics") != 0)
		return MHD_HTTP_NOT_FOUND;
	return MHD_HTTP_OK;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	struct ibve_http *h = cls;
	char *body, *user = NULL, *password = NULL;
	unsigned int status;
	size_t n;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	if (h->w && h->w->auth)
		user = mhd.basic_auth_get(c, &password);
	status = ibve_http_status(h->w, method, url, user, password);
	if (password)
		explicit_bzero(password, strlen(password));
	mhd.free(password);
	mhd.free(user);
	if (status != MHD_HTTP_OK) {
		const char *why = status == MHD_HTTP_UNAUTHORIZED
					  ? "401 Unauthorized\n"
				  : status == MHD_HTTP_NOT_FOUND
					  ? "the metrics are at /metrics\n"
					  : "only GET\n";

		return reply(h, c, status, strdup(why), strlen(why),
			     "text/plain");
	}
	n = ibve_metrics_format(h->m, NULL, 0);
	body = malloc(n + 1);
	if (!body)
		return MHD_NO;
	n = ibve_metrics_format(h->m, body, n + 1);
	return reply(h, c, MHD_HTTP_OK, body, n,
		     "text/plain; version=0.0.4; charset=utf-8");
}

/* "[::1]:9100", "host:9100", ":9100" -> HOST and PORT. */
static int split(const char *addr, char *host, size_t hsize, char *port,
		 size_t psize)
{
	const char *colon;

	if (addr[0] == '[') {
		const char *end = strchr(addr, ']');

		if (!end || end[1] != ':')
			return -EINVAL;
		snprintf(host, hsize, "%.*s", (int)(end - addr - 1), addr + 1);
		colon = end + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon)
			return -EINVAL;
		snprintf(host, hsize, "%.*s", (int)(colon - addr), addr);
	}
	if (!colon[1] || strlen(colon + 1) >= psize)
		return -EINVAL;
	snprintf(port, psize, "%s", colon + 1);
	if (!host[0])
		snprintf(host, hsize, "127.0.0.1");
	return 0;
}

/* The daemon of H on AI: HTTPS when H's configuration has a certificate. */
static struct MHD_Daemon *start(struct ibve_http *h, const struct addrinfo *ai)
{
	struct ibve_webconfig *w = h->w;
	bool tls = w && w->cert_pem;
	struct MHD_OptionItem o[] = {
		{ MHD_OPTION_SOCK_ADDR, 0, ai->ai_addr },
		{ MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT, NULL },
		{ MHD_OPTION_CONNECTION_LIMIT, CONN_LIMIT, NULL },
		{ MHD_OPTION_PER_IP_CONNECTION_LIMIT, CLIENT_LIMIT, NULL },
		/* HTTPS: the rest; plain HTTP: the end */
		{ tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0,
		  tls ? w->cert_pem : NULL },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, tls ? w->key_pem : NULL },
		{ MHD_OPTION_HTTPS_PRIORITIES, 0, tls ? w->priorities : NULL },
		{ MHD_OPTION_END, 0, NULL },
	};

	errno = 0;
	return mhd.start_daemon(
		MHD_USE_EPOLL | (tls ? MHD_USE_TLS : 0) |
			(ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0),
		0, NULL, NULL, handle, h, MHD_OPTION_ARRAY, o, MHD_OPTION_END);
}

static int http_timeout(void *arg)
{
	struct ibve_http *h = arg;
	MHD_UNSIGNED_LONG_LONG ms;

	if (mhd.get_timeout(h->d, &ms) != MHD_YES)
		return -1;
	return ms > 86400000 ? 86400000 : (int)ms;
}

static void http_run(void *arg)
{
	struct ibve_http *h = arg;

	mhd.run(h->d);
}

static int on_http(int fd, short revents, void *arg)
{
	(void)fd;
	(void)revents;
	http_run(arg);
	return 0;
}

int ibve_http_new(struct ibve_http **out, const char *addr,
		  const struct ibve_ports *m, struct ibve_webconfig *w,
		  struct ibve_loop *l)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV },
			*ai;
	const union MHD_DaemonInfo *info;
	char host[256], port[16];
	bool tls = w && w->cert_pem;
	struct ibve_http *h = NULL;
	int r;

	*out = NULL;
	if (split(addr, host, sizeof(host), port, sizeof(port)))
		r = ibve_error(EINVAL,
			       "'%s' is not HOST:PORT, [HOST]:PORT or :PORT",
			       addr);
	else if (!(r = mhd_load()) &&
		 (r = getaddrinfo(host, port, &hints, &ai)))
		r = ibve_error(EINVAL, "%s: %s", addr, gai_strerror(r));
	else if (!r && !(h = calloc(1, sizeof(*h)))) {
		freeaddrinfo(ai);
		r = ibve_error(ENOMEM, "out of memory");
	}
	if (r) {
		ibve_webconfig_free(w);
		return r;
	}
	h->m = m;
	h->w = w;
	h->d = start(h, ai);
	freeaddrinfo(ai);
	if (!h->d) {
		r = errno ? errno : EADDRINUSE;
		ibve_webconfig_free(w);
		free(h);
		return ibve_error(r, "%s: cannot listen%s: %s", addr,
				  tls ? " with TLS" : "", strerror(r));
	}
	info = mhd.get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	h->fd = info ? info->epoll_fd : -1;
	if (h->fd < 0) {
		ibve_http_free(h);
		return ibve_error(EIO, "%s: no epoll fd from libmicrohttpd",
				  addr);
	}
	if ((r = ibve_loop_add_fd(l, h->fd, POLLIN, on_http, h))) {
		ibve_http_free(h);
		return r;
	}
	if ((r = ibve_loop_set_wakeup(l, http_timeout, http_run, h))) {
		ibve_loop_remove_fd(l, h->fd);
		ibve_http_free(h);
		return r;
	}
	*out = h;
	return 0;
}

void ibve_http_free(struct ibve_http *h)
{
	if (!h)
		return;
	if (h->d)
		mhd.stop_daemon(h->d);
	ibve_webconfig_free(h->w);
	free(h);
}
