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
 */
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "internal.h"
#include "tools.h"

#ifndef IBVE_MHD_SONAME
#define IBVE_MHD_SONAME "libmicrohttpd.so.12"
#endif

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
	};
	void **fn = (void **)&mhd;
	void *h;

	_Static_assert(sizeof(mhd) == sizeof(names) / sizeof(names[0]) *
					      sizeof(void *),
		       "one name per function");
	if (mhd.start_daemon)
		return 0;
	h = dlopen(IBVE_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return ibve_error(ENOENT, "cannot load %s: %s", IBVE_MHD_SONAME,
				  dlerror());
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *f = dlsym(h, names[i]);

		if (!f) {
			dlclose(h);
			memset(&mhd, 0, sizeof(mhd));
			return ibve_error(ENOENT, "%s has no %s",
					  IBVE_MHD_SONAME, names[i]);
		}
		memcpy(&fn[i], &f, sizeof(f));
	}
	return 0; /* kept loaded: its daemons may outlive one server */
}

struct ibve_http {
	struct MHD_Daemon *d;
	const struct ibve_ports *m;
	int fd;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
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
	ok = mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ok;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	struct ibve_http *h = cls;
	size_t n;
	char *body;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			     strdup("only GET\n"), 9, "text/plain");
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND,
			     strdup("the metrics are at /metrics\n"), 28,
			     "text/plain");
	n = ibve_metrics_format(h->m, NULL, 0);
	body = malloc(n + 1);
	if (!body)
		return MHD_NO;
	n = ibve_metrics_format(h->m, body, n + 1);
	return reply(c, MHD_HTTP_OK, body, n,
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

int ibve_http_new(struct ibve_http **out, const char *addr,
		  const struct ibve_ports *m)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV },
			*ai;
	const union MHD_DaemonInfo *info;
	char host[256], port[16];
	struct ibve_http *h;
	int r;

	*out = NULL;
	if (split(addr, host, sizeof(host), port, sizeof(port)))
		return ibve_error(EINVAL,
				  "'%s' is not HOST:PORT, [HOST]:PORT or :PORT",
				  addr);
	if ((r = mhd_load()))
		return r;
	r = getaddrinfo(host, port, &hints, &ai);
	if (r)
		return ibve_error(EINVAL, "%s: %s", addr, gai_strerror(r));
	h = calloc(1, sizeof(*h));
	if (!h) {
		freeaddrinfo(ai);
		return ibve_error(ENOMEM, "out of memory");
	}
	h->m = m;
	errno = 0;
	h->d = mhd.start_daemon(
		MHD_USE_EPOLL | (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0),
		0, NULL, NULL, handle, h, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)32, MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!h->d) {
		r = errno ? errno : EADDRINUSE;
		free(h);
		return ibve_error(r, "%s: cannot listen: %s", addr,
				  strerror(r));
	}
	info = mhd.get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	h->fd = info ? info->epoll_fd : -1;
	if (h->fd < 0) {
		ibve_http_free(h);
		return ibve_error(EIO, "%s: no epoll fd from libmicrohttpd",
				  addr);
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
	free(h);
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

int ibve_http_attach(struct ibve_http *h, struct ibve_loop *l)
{
	ibve_loop_set_wakeup(l, http_timeout, http_run, h);
	return ibve_loop_add_fd(l, h->fd, POLLIN, on_http, h);
}
