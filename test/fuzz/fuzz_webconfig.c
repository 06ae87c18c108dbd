// SPDX-License-Identifier: MIT
/*
 * Any bytes as a --web-config file: read into a configuration, or
 * refused with one line (-EINVAL: "PATH:LINE: ..." naming the file);
 * nothing leaks either way. The file's directory does not exist, so a
 * certificate it names is not found, unless by an absolute name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PATH "/nonexistent/ibvevent-fuzz/web.yml"

static void fail(const char *why, const char *a)
{
	fprintf(stderr, "fuzz_webconfig: %s\n  %s\n", why, a);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibve_webconfig *c = (void *)1;
	const char *msg;
	int e;

	e = ibve_webconfig_parse(&c, PATH, (const char *)data, size);
	msg = ibve_errmsg();
	if (!e) {
		if (!c)
			fail("read, and no configuration", "");
		if (!c->cert_pem != !c->key_pem)
			fail("a certificate and its key, or neither", "");
		if (c->nheaders > 5)
			fail("at most 5 headers", "");
		for (size_t i = 0; i < c->nheaders; i++)
			if (strpbrk(c->headers[i][1], "\r\n"))
				fail("a header's value is one line",
				     c->headers[i][1]);
		ibve_webconfig_free(c);
		return 0;
	}
	if (c)
		fail("refused, and a configuration", msg);
	if (e > 0 || !msg[0] || strchr(msg, '\n'))
		fail("an error is one line", msg);
	if (e == -EINVAL && strncmp(msg, PATH ":", sizeof(PATH)) != 0)
		fail("what the file says wrong names the file and line", msg);
	return 0;
}
