// SPDX-License-Identifier: MIT
/*
 * What the endpoint makes of a request, past libmicrohttpd: the method,
 * the URL and the basic-auth user and password it sent. The input is
 * "METHOD\0URL\0USER\0PASSWORD", fewer parts leaving the rest unsent;
 * its first byte, odd, serves under the users of test/cli/52-endpoint's
 * web.yml (prom, password s3cret), even, under a configuration with no
 * users. Only GET or HEAD of /metrics with, where there are users, one of
 * them and her password is answered 200; nothing else is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* htpasswd -nbBC 4 prom s3cret: the cost kept low, for speed */
static const char web_yml[] =
	"basic_auth_users:\n"
	"  prom: '$2y$04$v7JBxf6OoN6Tc4Srp/JgFObJxKtt7Wa52Fe5mTSqqAmcoLSyaCqkW'\n"
	"http_server_config:\n"
	"  headers:\n"
	"    X-Frame-Options: deny\n";
static const char open_yml[] = "http_server_config:\n  http2: false\n";

static void fail(const char *why, unsigned int status, const char *what)
{
	fprintf(stderr, "fuzz_http: %s: %u\n  %s\n", why, status, what);
	abort();
}

static struct ibve_webconfig *config(const char *yml)
{
	struct ibve_webconfig *w;

	if (ibve_webconfig_parse(&w, "web.yml", yml, strlen(yml))) {
		fprintf(stderr, "fuzz_http: %s\n", ibve_errmsg());
		abort();
	}
	return w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ibve_webconfig *users, *none;
	const char *part[4] = { NULL, NULL, NULL, NULL };
	struct ibve_webconfig *w;
	unsigned int status;
	bool get, metrics, who;
	char *buf;
	size_t n = 0;

	if (!users) {
		users = config(web_yml);
		none = config(open_yml);
		if (!users->auth || none->auth)
			abort();
	}
	if (size < 1)
		return 0;
	w = data[0] & 1 ? users : none;
	/* the parts, each '\0' ended as libmicrohttpd hands them over */
	buf = malloc(size);
	if (!buf)
		abort();
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	for (char *p = buf; n < 4 && p <= buf + size - 1; p += strlen(p) + 1)
		part[n++] = p;
	if (n < 2) {
		free(buf);
		return 0; /* every request has a method and a URL */
	}
	status = ibve_http_status(w, part[0], part[1], part[2], part[3]);
	get = !strcmp(part[0], "GET") || !strcmp(part[0], "HEAD");
	metrics = !strcmp(part[1], "/metrics");
	who = w == none || (part[2] && part[3] && !strcmp(part[2], "prom") &&
			    !strcmp(part[3], "s3cret"));
	if ((status == 200) != (get && metrics && who))
		fail("200 only for GET of /metrics by a user", status, part[1]);
	if (w == users && !who && status != 401)
		fail("no user or a wrong password: 401", status, part[1]);
	if (who && !get && status != 405)
		fail("not GET or HEAD: 405", status, part[0]);
	if (who && get && !metrics && status != 404)
		fail("not /metrics: 404", status, part[1]);
	free(buf);
	return 0;
}
