/* SPDX-License-Identifier: MIT */
/*
 * The tools archive: what the commands need beyond libibvevent, kept out
 * of it so that a program linking the library pulls neither libmicrohttpd
 * nor a test tool. Built into build/lib/libibvevent-tools.a, not installed.
 */
#ifndef IBVE_TOOLS_H
#define IBVE_TOOLS_H

#include "ibvevent.h"

/* ------------------------------------------------------------------ */
/* A /metrics HTTP endpoint (libmicrohttpd) for one poll loop           */

struct ibve_http;
struct ibve_webconfig;

/*
 * Listen on ADDR ("[host]:port", "host:port" or ":port"; the host is
 * 127.0.0.1 when left out) and serve the metrics of T at /metrics, over
 * HTTPS and behind basic auth as web configuration W says (NULL: plain
 * HTTP to anyone). W is the server's from then on, freed with it, and
 * also when this fails. 0 or -errno with the reason in ibve_errmsg().
 */
int ibve_http_new(struct ibve_http **h, const char *addr,
		  const struct ibve_ports *t, struct ibve_webconfig *w);
void ibve_http_free(struct ibve_http *h);
/* Serve from L: its fd polled, its timeouts as a wakeup. */
int ibve_http_attach(struct ibve_http *h, struct ibve_loop *l);
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
/* The web configuration file (webconfig.c) and basic auth (auth.c)     */

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

/* Users and their bcrypt hashes (libcrypt loaded by ibve_auth_new). */
int ibve_auth_new(struct ibve_auth **a);
void ibve_auth_free(struct ibve_auth *a);
/* Whether HASH is a bcrypt hash: "$2y$", "$2b$" or "$2a$", 60 long. */
bool ibve_auth_is_bcrypt(const char *hash);
/* The highest bcrypt cost a user may have (ibve_auth_add_user: -E2BIG). */
int ibve_auth_cost_max(void);
/*
 * 0, -EINVAL when HASH is no bcrypt hash, -E2BIG when its cost is above
 * ibve_auth_cost_max(), or -ENOMEM.
 */
int ibve_auth_add_user(struct ibve_auth *a, const char *name, const char *hash);
bool ibve_auth_has_user(const struct ibve_auth *a, const char *name);
/*
 * Whether USER is known and PASSWORD is hers (verified pairs cached).
 * A pair not cached is refused unchecked while bcrypt is over its budget.
 */
bool ibve_auth_check(struct ibve_auth *a, const char *user,
		     const char *password);

/* ------------------------------------------------------------------ */
/* The injector: provoke events on objects of our own                  */

struct ibve_scenario {
	const char *name;    /* "srq-limit" */
	const char *expects; /* the event it provokes: "SRQ_LIMIT_REACHED" */
	const char *text;    /* what it does, in a line */
};

/* Scenario I, in order; NULL past the end. */
const struct ibve_scenario *ibve_scenario_at(size_t i);
/* The scenario named NAME, or NULL. */
const struct ibve_scenario *ibve_scenario_lookup(const char *name);
/* Every scenario, one line each: text columns or JSON Lines. */
size_t ibve_scenario_format(char *buf, size_t size, bool json);

struct ibve_inject_opts {
	const char *device;  /* NULL: the first device with an ACTIVE port */
	uint32_t port;	     /* 0: the device's first ACTIVE port */
	int gid_index;	     /* RoCE: -1 chooses one (RoCE v2 first) */
	double timeout;	     /* seconds each expected event may take */
	unsigned long count; /* expected events: srq-limit 1 + re-arms,
				cq-overflow the storm size; 0 means 1 */
	int cancel_fd;	     /* -1, or an fd whose readability stops the run */
	bool raw;	     /* verbs alone read the events (bench/'s floor) */
};

struct ibve_inject_report {
	const struct ibve_scenario *scenario;
	char device[IBVE_NAME_MAX];
	uint64_t node_guid;
	uint32_t port;
	int link_layer; /* IBV_LINK_LAYER_* */
	int gid_index;	/* -1 on InfiniBand (LID routed) */
	uint32_t lid;
	unsigned long expected;	 /* how many scenario->expects were wanted */
	unsigned long received;	 /* how many arrived, about our object */
	unsigned long events;	 /* every async event read (and acked) */
	struct ibve_event first; /* the first expected event, if any */
	double latency_us;	 /* trigger to arrival of the first one */
	double latency_max_us;
	double seconds; /* first trigger to last expected event */
	double rate;	/* expected events per second */
	bool teardown;	/* every object destroyed */
	double teardown_ms;
	bool interrupted; /* stopped through cancel_fd */
	int status; /* 0 all arrived, 1 not delivered in time, 3 setup failed */
	char error[256]; /* status 3: the verb that failed and why; 1: what */
};

/*
 * Run scenario NAME on a device: create our own objects, drive them into
 * the condition with real traffic, wait for the event, tear down. Every
 * event read is acknowledged before teardown. Returns R->status, or
 * -EINVAL for an unknown scenario.
 */
int ibve_inject_run(const char *name, const struct ibve_inject_opts *o,
		    struct ibve_inject_report *r);
/* A report as text lines for people, or one JSON object on one line. */
size_t ibve_inject_format(const struct ibve_inject_report *r, char *buf,
			  size_t size, bool json);

#endif
