// SPDX-License-Identifier: MIT
/*
 * The web configuration file of --web-config: the Prometheus exporters'
 * format (tls_server_config, http_server_config, basic_auth_users), the
 * part of it that applies to this server, read with libyaml (loaded on
 * first use). Every key is known: one this server cannot honour is
 * refused with the reason, never ignored, so a file written for another
 * exporter does not silently give less protection than it says.
 *
 * Errors: -EINVAL when what the file says is wrong ("FILE:LINE: key:
 * why"); another -errno when a file cannot be read, a key does not go
 * with its certificate, or a library cannot be loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "internal.h"

#ifndef IBVE_YAML_SONAME
#define IBVE_YAML_SONAME "libyaml-0.so.2"
#endif

#define FILE_MAX (1 << 20) /* a configuration, a certificate, a key */

static struct {
	__typeof__(yaml_parser_initialize) *parser_initialize;
	__typeof__(yaml_parser_set_input_string) *parser_set_input_string;
	__typeof__(yaml_parser_load) *parser_load;
	__typeof__(yaml_parser_delete) *parser_delete;
	__typeof__(yaml_document_get_root_node) *get_root_node;
	__typeof__(yaml_document_get_node) *get_node;
	__typeof__(yaml_document_delete) *document_delete;
} yaml;

static int yaml_load(void)
{
	static const char *const names[] = {
		"yaml_parser_initialize",
		"yaml_parser_set_input_string",
		"yaml_parser_load",
		"yaml_parser_delete",
		"yaml_document_get_root_node",
		"yaml_document_get_node",
		"yaml_document_delete",
	};
	WEB_LIB(lib, yaml, names, IBVE_YAML_SONAME, "for --web-config",
		"libyaml-0-2");

	return web_lib_load(&lib);
}

/* The TLS versions, as the exporters name them and as GnuTLS does. */
static const char *const versions[][2] = {
	{ "TLS10", "VERS-TLS1.0" },
	{ "TLS11", "VERS-TLS1.1" },
	{ "TLS12", "VERS-TLS1.2" },
	{ "TLS13", "VERS-TLS1.3" },
};

/* The security headers the exporters allow in http_server_config. */
static const char *const headers[] = {
	"Content-Security-Policy",   "X-Frame-Options",
	"X-Content-Type-Options",    "X-XSS-Protection",
	"Strict-Transport-Security",
};

/* What is being read. */
struct rd {
	const char *path;
	yaml_document_t *doc;
	struct ibve_webconfig *c;
	const char *cert_file, *key_file; /* as the file says */
	int min, max;			  /* indexes into versions[] */
	yaml_node_t *tls;		  /* tls_server_config, if not null */
};

/* E, a library's failure to load (or 0), said of the file that needs it. */
static int need(const char *path, int e)
{
	char why[512];

	if (!e)
		return 0;
	snprintf(why, sizeof(why), "%s", ibve_errmsg());
	return ibve_error(e, "%s: %s", path, why);
}

static int bad(const struct rd *r, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(const struct rd *r, const yaml_node_t *n, const char *fmt, ...)
{
	char why[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	for (char *c = why; *c; c++) /* names from the file: one line */
		if ((unsigned char)*c < ' ' || *c == 0x7f)
			*c = '?';
	return ibve_error(EINVAL, "%s:%lu: %s", r->path,
			  (unsigned long)n->start_mark.line + 1, why);
}

static const char *kind(const yaml_node_t *n)
{
	return n->type == YAML_MAPPING_NODE    ? "a mapping"
	       : n->type == YAML_SEQUENCE_NODE ? "a list"
					       : "a string";
}

/* The text of scalar N, or NULL for null ("", ~, null) or no scalar. */
static const char *text(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;

	if (n->type != YAML_SCALAR_NODE)
		return NULL;
	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (!*s || !strcmp(s, "~") || !strcasecmp(s, "null")))
		return NULL;
	return s;
}

static bool is_null(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE && !text(n);
}

/* A string value: *OUT, or a message naming WHERE. */
static int string(const struct rd *r, const char *where, yaml_node_t *v,
		  const char **out)
{
	if (v->type != YAML_SCALAR_NODE)
		return bad(r, v, "%s: a string, not %s", where, kind(v));
	*out = text(v);
	return 0;
}

/* One key of a mapping: what it sets, or why it is refused (set NULL). */
struct key {
	const char *name;
	int (*set)(struct rd *r, const char *where, yaml_node_t *v);
	const char *refused;
};

/*
 * Mapping N, named WHERE ("" at the top), against KEYS: each key known,
 * given once, and set. A null N is an empty mapping.
 */
static int walk(struct rd *r, const char *where, yaml_node_t *n,
		const struct key *keys, size_t nkeys)
{
	unsigned long seen = 0;
	char at[128];
	int e;

	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return bad(r, n, "%s%sa mapping, not %s", where,
			   *where ? ": " : "", kind(n));
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml.get_node(r->doc, p->key),
			    *v = yaml.get_node(r->doc, p->value);
		const char *name = k ? text(k) : NULL;
		size_t i;

		if (!name || !v)
			return bad(r, k ? k : n, "%s%sa key must be a string",
				   where, *where ? ": " : "");
		for (i = 0; i < nkeys && strcmp(keys[i].name, name); i++)
			;
		snprintf(at, sizeof(at), "%s%s%s", where, *where ? "." : "",
			 name);
		if (i == nkeys)
			return bad(r, k, "unknown key %s", at);
		if (!keys[i].set)
			return bad(r, k, "%s is not supported: %s", at,
				   keys[i].refused);
		if (seen & (1UL << i))
			return bad(r, k, "%s is given twice", at);
		seen |= 1UL << i;
		if ((e = keys[i].set(r, at, v)))
			return e;
	}
	return 0;
}

static int set_cert_file(struct rd *r, const char *where, yaml_node_t *v)
{
	return string(r, where, v, &r->cert_file);
}

static int set_key_file(struct rd *r, const char *where, yaml_node_t *v)
{
	return string(r, where, v, &r->key_file);
}

static int version(struct rd *r, const char *where, yaml_node_t *v, int *out)
{
	const char *s = NULL;
	int e;

	if ((e = string(r, where, v, &s)))
		return e;
	for (size_t i = 0; s && i < ARRAY_SIZE(versions); i++)
		if (!strcmp(s, versions[i][0])) {
			*out = (int)i;
			return 0;
		}
	return bad(r, v, "%s: '%s' is not TLS10, TLS11, TLS12 or TLS13", where,
		   s ? s : "");
}

static int set_min(struct rd *r, const char *where, yaml_node_t *v)
{
	return version(r, where, v, &r->min);
}

static int set_max(struct rd *r, const char *where, yaml_node_t *v)
{
	return version(r, where, v, &r->max);
}

static int set_client_auth(struct rd *r, const char *where, yaml_node_t *v)
{
	const char *s = NULL;
	int e;

	if ((e = string(r, where, v, &s)))
		return e;
	if (s && strcmp(s, "NoClientCert"))
		return bad(
			r, v,
			"%s: '%s' is not supported: client certificates are not verified by this server (only NoClientCert)",
			where, s);
	return 0;
}

static const struct key tls_keys[] = {
	{ "cert_file", set_cert_file, NULL },
	{ "key_file", set_key_file, NULL },
	{ "min_version", set_min, NULL },
	{ "max_version", set_max, NULL },
	{ "client_auth_type", set_client_auth, NULL },
	{ "client_ca_file", NULL,
	  "client certificates are not verified by this server" },
	{ "client_ca", NULL,
	  "client certificates are not verified by this server" },
	{ "client_allowed_sans", NULL,
	  "client certificates are not verified by this server" },
	{ "cert", NULL, "give the certificate in a file: cert_file" },
	{ "key", NULL, "give the key in a file: key_file" },
	{ "cipher_suites", NULL,
	  "GnuTLS chooses the ciphers; min_version and max_version choose the versions" },
	{ "curve_preferences", NULL, "GnuTLS chooses the curves" },
	{ "prefer_server_cipher_suites", NULL, "GnuTLS chooses the ciphers" },
};

static int set_tls(struct rd *r, const char *where, yaml_node_t *v)
{
	r->tls = is_null(v) ? NULL : v;
	return walk(r, where, v, tls_keys, ARRAY_SIZE(tls_keys));
}

static int set_http2(struct rd *r, const char *where, yaml_node_t *v)
{
	static const char *const words[] = { "true", "false", "yes",
					     "no",   "on",    "off" };
	const char *s = v->type == YAML_SCALAR_NODE ? text(v) : NULL;

	for (size_t i = 0; s && i < ARRAY_SIZE(words); i++)
		if (!strcasecmp(s, words[i]))
			return 0; /* HTTP/1.1 is served either way */
	return bad(r, v, "%s: true or false, not %s", where, s ? s : kind(v));
}

static int set_headers(struct rd *r, const char *where, yaml_node_t *v)
{
	struct ibve_webconfig *c = r->c;

	if (is_null(v))
		return 0;
	if (v->type != YAML_MAPPING_NODE)
		return bad(r, v, "%s: a mapping, not %s", where, kind(v));
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml.get_node(r->doc, p->key),
			    *x = yaml.get_node(r->doc, p->value);
		const char *name = k ? text(k) : NULL, *value = NULL;
		size_t i;
		int e;

		for (i = 0; name && i < ARRAY_SIZE(headers) &&
			    strcasecmp(name, headers[i]);
		     i++)
			;
		if (!name || !x || i == ARRAY_SIZE(headers))
			return bad(
				r, k ? k : v,
				"%s: '%s' is not one of the headers that may be set (Content-Security-Policy, X-Frame-Options, X-Content-Type-Options, X-XSS-Protection, Strict-Transport-Security)",
				where, name ? name : "");
		if ((e = string(r, where, x, &value)))
			return e;
		if (!value || strpbrk(value, "\r\n"))
			return bad(r, x, "%s.%s: a one-line value", where,
				   name);
		for (size_t j = 0; j < c->nheaders; j++)
			if (c->headers[j][0] == headers[i])
				return bad(r, k, "%s.%s is given twice", where,
					   name);
		if (!(c->headers[c->nheaders][1] = strdup(value)))
			return ibve_error(ENOMEM, "out of memory");
		c->headers[c->nheaders++][0] = headers[i];
	}
	return 0;
}

static const struct key http_keys[] = {
	{ "http2", set_http2, NULL },
	{ "headers", set_headers, NULL },
};

static int set_http(struct rd *r, const char *where, yaml_node_t *v)
{
	return walk(r, where, v, http_keys, ARRAY_SIZE(http_keys));
}

static int set_users(struct rd *r, const char *where, yaml_node_t *v)
{
	int e;

	if (is_null(v))
		return 0;
	if (v->type != YAML_MAPPING_NODE)
		return bad(r, v,
			   "%s: a mapping of users to bcrypt hashes, not %s",
			   where, kind(v));
	if (v->data.mapping.pairs.top == v->data.mapping.pairs.start)
		return 0;
	if (!r->c->auth && (e = need(r->path, ibve_auth_new(&r->c->auth))))
		return e;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml.get_node(r->doc, p->key),
			    *x = yaml.get_node(r->doc, p->value);
		const char *user = k ? text(k) : NULL, *hash = NULL;

		if (!user || !*user || strchr(user, ':') || !x)
			return bad(r, k ? k : v, "%s: a user name, without ':'",
				   where);
		if ((e = string(r, where, x, &hash)))
			return e;
		e = ibve_auth_add_user(r->c->auth, user, hash ? hash : "");
		if (e == -EEXIST)
			return bad(r, k, "%s.%s is given twice", where, user);
		if (e == -EINVAL)
			return bad(
				r, x,
				"%s.%s: not a bcrypt hash ($2y$, $2b$ or $2a$: htpasswd -nBC 10 %s)",
				where, user, user);
		if (e == -E2BIG)
			return bad(
				r, x,
				"%s.%s: a bcrypt cost above %d would stop the watcher for seconds at each check (htpasswd -nBC 10 %s)",
				where, user, IBVE_AUTH_COST_MAX, user);
		if (e)
			return e;
	}
	return 0;
}

static const struct key top_keys[] = {
	{ "tls_server_config", set_tls, NULL },
	{ "http_server_config", set_http, NULL },
	{ "basic_auth_users", set_users, NULL },
};

/* What slurp()'s -errno E means. */
static const char *why(int e)
{
	return e == -ENOTSUP ? "not a regular file" : strerror(-e);
}

/*
 * The whole of file PATH (at most FILE_MAX bytes), '\0' ended; -ENOTSUP
 * when it is not a regular file (a FIFO, a device).
 */
static int slurp(const char *path, char **out, size_t *len)
{
	/* O_NONBLOCK: a FIFO would block the open; fstat() refuses it */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), e = 0;
	size_t n = 0;
	char *buf = NULL;
	struct stat st;
	ssize_t got;

	if (fd < 0 || fstat(fd, &st))
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = S_ISDIR(st.st_mode) ? EISDIR : ENOTSUP;
	else if (st.st_size > FILE_MAX)
		e = EFBIG;
	else if (!(buf = malloc((size_t)st.st_size + 1)))
		e = ENOMEM;
	while (!e && n < (size_t)st.st_size) {
		got = read(fd, buf + n, (size_t)st.st_size - n);
		if (got < 0 && errno != EINTR)
			e = errno;
		else if (got == 0)
			break;
		else if (got > 0)
			n += (size_t)got;
	}
	if (fd >= 0)
		close(fd);
	if (e) {
		free(buf);
		return -e;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

/* FILE of the configuration at CONF: relative to CONF's directory. */
static int read_named(const struct rd *r, const char *key, const char *file,
		      char **out)
{
	const char *slash = strrchr(r->path, '/');
	char *path;
	int e;

	if (file[0] == '/' || !slash)
		path = strdup(file);
	else if (asprintf(&path, "%.*s/%s", (int)(slash - r->path), r->path,
			  file) < 0)
		path = NULL;
	if (!path)
		return ibve_error(ENOMEM, "out of memory");
	e = slurp(path, out, NULL);
	if (e)
		ibve_error(e, "%s: tls_server_config.%s: read %s: %s", r->path,
			   key, path, why(e));
	free(path);
	return e;
}

/* The certificate and its key, read, and checked to go together. */
static int load_tls(struct rd *r)
{
	struct ibve_webconfig *c = r->c;
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t cert, key;
	char *p;
	int e;

	if (!r->cert_file || !r->key_file)
		return bad(r, r->tls, "tls_server_config: %s is missing",
			   r->cert_file ? "key_file" : "cert_file");
	if (r->min > r->max)
		return bad(
			r, r->tls,
			"tls_server_config: min_version %s is above max_version %s",
			versions[r->min][0], versions[r->max][0]);
	if ((e = read_named(r, "cert_file", r->cert_file, &c->cert_pem)) ||
	    (e = read_named(r, "key_file", r->key_file, &c->key_pem)))
		return e;
	p = c->priorities;
	p += sprintf(p, "NORMAL:-VERS-ALL");
	for (int i = r->min; i <= r->max; i++)
		p += sprintf(p, ":+%s", versions[i][1]);
	if ((e = need(r->path, ibve_gnutls_load())))
		return e;
	if ((e = ibve_gnutls.alloc_creds(&cred)))
		return ibve_error(ENOMEM, "GnuTLS: %s",
				  ibve_gnutls.strerror(e));
	cert = (gnutls_datum_t){ (unsigned char *)c->cert_pem,
				 (unsigned int)strlen(c->cert_pem) };
	key = (gnutls_datum_t){ (unsigned char *)c->key_pem,
				(unsigned int)strlen(c->key_pem) };
	e = ibve_gnutls.set_key_mem2(cred, &cert, &key, GNUTLS_X509_FMT_PEM,
				     NULL, 0);
	ibve_gnutls.free_creds(cred);
	if (e < 0)
		return ibve_error(
			EKEYREJECTED,
			"%s: tls_server_config: cert_file %s with key_file %s: %s",
			r->path, r->cert_file, r->key_file,
			ibve_gnutls.strerror(e));
	return 0;
}

static int not_yaml(const struct rd *r, const yaml_parser_t *parser)
{
	return ibve_error(EINVAL, "%s:%lu: not YAML: %s", r->path,
			  (unsigned long)parser->problem_mark.line + 1,
			  parser->problem ? parser->problem : "?");
}

static int parse(struct rd *r, const char *data, size_t len)
{
	yaml_parser_t parser;
	yaml_document_t doc, next;
	yaml_node_t *root;
	int e = 0;

	if (!yaml.parser_initialize(&parser))
		return ibve_error(ENOMEM, "out of memory");
	yaml.parser_set_input_string(&parser, (const unsigned char *)data, len);
	if (!yaml.parser_load(&parser, &doc)) {
		e = not_yaml(r, &parser);
		yaml.parser_delete(&parser);
		return e;
	}
	r->doc = &doc;
	root = yaml.get_root_node(&doc);
	/*
	 * The configuration is one document: one after it (after an empty
	 * one too: "---" then "---") would be read by no one. Refused.
	 */
	if (!yaml.parser_load(&parser, &next)) {
		e = not_yaml(r, &parser);
	} else {
		yaml_node_t *more = yaml.get_root_node(&next);

		if (more)
			e = bad(r, more,
				"a second YAML document: the configuration is one");
		yaml.document_delete(&next);
	}
	if (!e && root && root->type != YAML_MAPPING_NODE && !is_null(root))
		e = bad(r, root,
			"a mapping of tls_server_config, http_server_config and basic_auth_users, not %s",
			kind(root));
	else if (!e && root)
		e = walk(r, "", root, top_keys, ARRAY_SIZE(top_keys));
	if (!e && r->tls)
		e = load_tls(r);
	yaml.document_delete(&doc);
	yaml.parser_delete(&parser);
	return e;
}

int ibve_webconfig_parse(struct ibve_webconfig **out, const char *path,
			 const char *data, size_t len)
{
	struct ibve_webconfig *c;
	struct rd r = { .path = path, .min = 2, .max = 3 };
	int e;

	*out = NULL;
	if ((e = need(path, yaml_load())))
		return e;
	if (!(c = calloc(1, sizeof(*c))))
		return ibve_error(ENOMEM, "out of memory");
	r.c = c;
	e = parse(&r, data, len);
	if (e) {
		ibve_webconfig_free(c);
		return e;
	}
	*out = c;
	return 0;
}

int ibve_webconfig_load(struct ibve_webconfig **out, const char *path)
{
	size_t len;
	char *data;
	int e;

	*out = NULL;
	if ((e = need(path, yaml_load())))
		return e;
	if ((e = slurp(path, &data, &len)))
		return ibve_error(e, "read %s: %s", path, why(e));
	e = ibve_webconfig_parse(out, path, data, len);
	free(data);
	return e;
}

void ibve_webconfig_free(struct ibve_webconfig *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nheaders; i++)
		free((char *)c->headers[i][1]);
	if (c->key_pem)
		explicit_bzero(c->key_pem, strlen(c->key_pem));
	free(c->key_pem);
	free(c->cert_pem);
	ibve_auth_free(c->auth);
	free(c);
}
