// SPDX-License-Identifier: MIT
/*
 * Health checks: which ports are expected and how (a spec), checked against
 * a port table (ports.c) as of its last sample, history included: flaps in
 * the window and fatal events. One problem per failing port, with a short
 * reason a scheduler can show (a Slurm drain reason) and a long one.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "ports.h"

struct expect {
	char dev[IBVE_NAME_MAX]; /* glob */
	char port[16];		 /* glob; "*" every port */
	int state;		 /* 0: any; else a verbs state */
	double rate;		 /* at least, Gb/s; 0: any */
	char link[16];		 /* "": any */
	long flaps;		 /* at most; -1: any */
	char peer[66];		 /* the peer's name, a glob; "": any */
	char peer_port[16];	 /* its port, a glob */
	bool matched;
};

struct ibve_check {
	struct expect *ex;
	size_t nex;
	char **exclude;
	size_t nexclude;
	struct ibve_check_problem *out;
	size_t nout;
	char history[64];    /* the first condition that needs a history */
	unsigned int ignore; /* causes of a down that is no problem, by index */
};

IBVE_EXPORT int ibve_check_new(struct ibve_check **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : ibve_error(ENOMEM, "out of memory");
}

IBVE_EXPORT void ibve_check_free(struct ibve_check *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nexclude; i++)
		free(c->exclude[i]);
	free(c->exclude);
	free(c->ex);
	free(c->out);
	free(c);
}

enum { C_STATE, C_RATE, C_LINK, C_PEER, C_FLAPS };

/* The condition words of an expectation, and what each takes. */
static const struct {
	const char *word, *usage;
} conditions[] = {
	[C_STATE] = { "state=",
		      "state is one of DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER, any" },
	[C_RATE] = { "rate>=", "rate>= takes Gb/s, e.g. rate>=200" },
	[C_LINK] = { "link=", "link is InfiniBand (ib) or Ethernet (eth)" },
	[C_PEER] = { "peer=", "peer= takes NAME[:PORT], e.g. peer=SwitchL:2" },
	[C_FLAPS] = { "flaps<=", "flaps<= takes a count, e.g. flaps<=2" },
};

/* The value V of condition C into E: false when it is not one. */
static bool condition_value(struct expect *e, int c, const char *v)
{
	const char *colon = strrchr(v, ':');
	size_t n = colon ? (size_t)(colon - v) : strlen(v);
	char *end;

	switch (c) {
	case C_STATE:
		for (e->state = 5; e->state > 0; e->state--)
			if (!strcasecmp(v, ibve_port_state_name(e->state)))
				return true;
		return !strcasecmp(v, "any");
	case C_RATE:
		e->rate = strtod(v, &end);
		return end != v && e->rate > 0 &&
		       (!*end || !strcasecmp(end, "G") ||
			!strcasecmp(end, "Gb") || !strcasecmp(end, "Gbps"));
	case C_LINK:
		if (!strcasecmp(v, "ib") || !strcasecmp(v, "infiniband"))
			ibve_strcpy(e->link, "InfiniBand", sizeof(e->link));
		else if (!strcasecmp(v, "eth") || !strcasecmp(v, "ethernet") ||
			 !strcasecmp(v, "roce"))
			ibve_strcpy(e->link, "Ethernet", sizeof(e->link));
		else
			return false;
		return true;
	case C_PEER:
		if (!n || n >= sizeof(e->peer) ||
		    (colon &&
		     (!colon[1] || strlen(colon + 1) >= sizeof(e->peer_port))))
			return false;
		memcpy(e->peer, v, n);
		e->peer[n] = '\0';
		ibve_strcpy(e->peer_port, colon ? colon + 1 : "*",
			    sizeof(e->peer_port));
		return true;
	}
	e->flaps = strtol(v, &end, 10);
	return end != v && !*end && e->flaps >= 0;
}

/* One condition word of an expectation into E. */
static int condition(struct expect *e, const char *w)
{
	for (int c = 0; c < (int)ARRAY_SIZE(conditions); c++) {
		size_t n = strlen(conditions[c].word);

		if (strncmp(w, conditions[c].word, n))
			continue;
		if (!condition_value(e, c, w + n))
			return ibve_error(EINVAL, "'%s': %s", w,
					  conditions[c].usage);
		return 0;
	}
	return ibve_error(
		EINVAL,
		"'%s': not a condition (state=, rate>=, link=, flaps<=, peer=)",
		w);
}

IBVE_EXPORT int ibve_check_add(struct ibve_check *c, const char *line)
{
	char buf[1024], *save = NULL, *w, *slash;
	struct expect e = { .state = 4, .flaps = -1 }, *v;

	if (strlen(line) >= sizeof(buf))
		return ibve_error(EINVAL, "line too long");
	ibve_strcpy(buf, line, sizeof(buf));
	if ((w = strchr(buf, '#')))
		*w = '\0';
	w = strtok_r(buf, " \t\r\n", &save);
	if (!w)
		return 0; /* blank or a comment */
	if (strcmp(w, "exclude") == 0) {
		char **x;

		if (!(w = strtok_r(NULL, " \t\r\n", &save)) ||
		    strtok_r(NULL, " \t\r\n", &save))
			return ibve_error(EINVAL,
					  "exclude takes one device glob");
		x = realloc(c->exclude, (c->nexclude + 1) * sizeof(*x));
		if (!x)
			return ibve_error(ENOMEM, "out of memory");
		c->exclude = x;
		if (!(x[c->nexclude] = strdup(w)))
			return ibve_error(ENOMEM, "out of memory");
		c->nexclude++;
		return 0;
	}
	slash = strchr(w, '/');
	if (slash)
		*slash++ = '\0';
	if (!*w || strlen(w) >= sizeof(e.dev) ||
	    (slash && (!*slash || strlen(slash) >= sizeof(e.port))))
		return ibve_error(EINVAL, "'%s': not DEVICE[/PORT]", line);
	ibve_strcpy(e.dev, w, sizeof(e.dev));
	ibve_strcpy(e.port, slash ? slash : "*", sizeof(e.port));
	while ((w = strtok_r(NULL, " \t\r\n", &save))) {
		if (condition(&e, w))
			return -EINVAL;
		/* flaps are counted in a window of events: none without */
		if (e.flaps >= 0 && !c->history[0])
			ibve_strcpy(c->history, w, sizeof(c->history));
	}
	v = realloc(c->ex, (c->nex + 1) * sizeof(*v));
	if (!v)
		return ibve_error(ENOMEM, "out of memory");
	c->ex = v;
	c->ex[c->nex++] = e;
	return 0;
}

IBVE_EXPORT int ibve_check_load(struct ibve_check *c, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	unsigned long n = 0;
	int r = 0;

	if (!f)
		return ibve_error(errno, "%s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		n++;
		if ((r = ibve_check_add(c, line))) {
			char why[512];

			ibve_strcpy(why, ibve_errmsg(), sizeof(why));
			r = ibve_error(-r, "%s:%lu: %s", path, n, why);
			break;
		}
	}
	if (!r && ferror(f)) /* a directory: EISDIR, not an empty spec */
		r = ibve_error(errno, "%s: %s", path, strerror(errno));
	free(line);
	fclose(f);
	return r;
}

IBVE_EXPORT int ibve_check_ignore_cause(struct ibve_check *c, const char *cause)
{
	char names[256];
	int i = ibve_cause_index(cause, names, sizeof(names));

	if (i < 0)
		return ibve_error(EINVAL, "'%s': not a cause (%s)", cause,
				  names);
	c->ignore |= 1u << i;
	return 0;
}

IBVE_EXPORT const char *ibve_check_needs_history(const struct ibve_check *c)
{
	return c->history[0] ? c->history : NULL;
}

IBVE_EXPORT size_t ibve_check_excludes(const struct ibve_check *c,
				       const char **globs, size_t max)
{
	for (size_t i = 0; i < c->nexclude && i < max; i++)
		globs[i] = c->exclude[i];
	return c->nexclude;
}

static struct ibve_check_problem *problem(struct ibve_check *c,
					  const char *device, uint32_t port)
{
	struct ibve_check_problem *p;

	for (size_t i = 0; i < c->nout; i++)
		if (strcmp(c->out[i].device, device) == 0 &&
		    c->out[i].port == port)
			return &c->out[i];
	p = realloc(c->out, (c->nout + 1) * sizeof(*p));
	if (!p)
		return NULL;
	c->out = p;
	p = &c->out[c->nout++];
	memset(p, 0, sizeof(*p));
	ibve_strcpy(p->device, device, sizeof(p->device));
	p->port = port;
	return p;
}

/* Add one reason to the port's problem: BRIEF for the first line. */
static void say(struct ibve_check *c, const char *device, uint32_t port,
		const char *brief, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void say(struct ibve_check *c, const char *device, uint32_t port,
		const char *brief, const char *fmt, ...)
{
	struct ibve_check_problem *p = problem(c, device, port);
	size_t n;
	va_list ap;

	if (!p)
		return;
	if (!p->brief[0])
		ibve_strcpy(p->brief, brief, sizeof(p->brief));
	n = strlen(p->what);
	if (n && n + 2 < sizeof(p->what)) {
		strcpy(p->what + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(p->what + n, sizeof(p->what) - n, fmt, ap);
	va_end(ap);
}

/* The peer E expects against R's: "peer SwitchR[3], expected SwitchL[2]". */
static void check_peer(struct ibve_check *c, const struct expect *e,
		       const struct ibve_port_row *r)
{
	const struct ibve_peer *q = &r->peer;
	char want[96], found[160], port[64], line[300];
	const char *name = q->name[0] ? q->name : q->chassis;

	if (strcmp(e->peer_port, "*") == 0)
		snprintf(want, sizeof(want), "%s", e->peer);
	else
		snprintf(want, sizeof(want), "%s[%s]", e->peer, e->peer_port);
	if (q->kind == IBVE_PEER_LLDP)
		snprintf(port, sizeof(port), "%s", q->port_id);
	else
		snprintf(port, sizeof(port), "%u", q->port);
	if (q->state == IBVE_PEER_KNOWN && !fnmatch(e->peer, name, 0) &&
	    !fnmatch(e->peer_port, port, 0))
		return;
	ibve_peer_format(q, found, sizeof(found));
	snprintf(line, sizeof(line), "peer %s, expected %s", found, want);
	say(c, r->device, r->port, line, "%s", line); /* brief: cut short */
}

/*
 * The cause of R's down, when the autopsy decided one since the port last
 * changed (a down from before the table's start has none); NULL: none.
 */
static const char *down_cause(const struct ibve_ports *t,
			      const struct ibve_port_row *r)
{
	if (ibve_state_up(r->state_num) != 0 || r->since_start ||
	    !r->since.tv_sec)
		return NULL;
	return ibve_ports_down_cause(t, r->device, r->port, &r->since);
}

static bool ignored(const struct ibve_check *c, const char *cause)
{
	int i = cause ? ibve_cause_index(cause, NULL, 0) : -1;

	return i >= 0 && (c->ignore & (1u << i));
}

static void check_port(struct ibve_check *c, const struct expect *e,
		       const struct ibve_ports *t,
		       const struct ibve_port_row *r)
{
	const char *cause = down_cause(t, r);
	char brief[64];

	if (e->peer[0])
		check_peer(c, e, r);

	if (e->state && r->state_num != e->state && !ignored(c, cause)) {
		snprintf(brief, sizeof(brief), "%s%s%s%s", r->state,
			 cause ? " (" : "", cause ? cause : "",
			 cause ? ")" : "");
		say(c, r->device, r->port, brief, "state %s, expected %s%s%s",
		    r->state, ibve_port_state_name(e->state),
		    cause ? ", down: " : "", cause ? cause : "");
	}
	if (e->rate > 0 && r->rate_gbps < e->rate) {
		snprintf(brief, sizeof(brief), "rate %g<%g Gb/s", r->rate_gbps,
			 e->rate);
		say(c, r->device, r->port, brief,
		    "rate %s, expected at least %g Gb/s",
		    r->rate_gbps > 0 ? r->rate : "unknown", e->rate);
	}
	if (e->link[0] && strcmp(r->link_layer, e->link)) {
		snprintf(brief, sizeof(brief), "link %s", r->link_layer);
		say(c, r->device, r->port, brief, "link layer %s, expected %s",
		    r->link_layer, e->link);
	}
	if (e->flaps >= 0 && r->flaps_window > (unsigned long)e->flaps) {
		snprintf(brief, sizeof(brief), "%u flaps", r->flaps_window);
		say(c, r->device, r->port, brief,
		    "%u flaps in the window, at most %ld", r->flaps_window,
		    e->flaps);
	}
}

IBVE_EXPORT size_t ibve_check_run(struct ibve_check *c,
				  const struct ibve_ports *t,
				  const struct timespec *from,
				  const struct ibve_check_problem **out)
{
	static const struct expect every = { "*", "*", 4,  0,	 "",
					     -1,  "",  "", false };
	const struct expect *ex = c->nex ? c->ex : &every;
	size_t nex = c->nex ? c->nex : 1;

	c->nout = 0;
	for (size_t k = 0; k < c->nex; k++)
		c->ex[k].matched = false;
	for (size_t i = 0; i < t->nrows; i++) {
		const struct ibve_port_row *r = &t->rows[i].pub;
		char port[16];

		if (!r->port)
			continue;
		snprintf(port, sizeof(port), "%u", r->port);
		for (size_t k = 0; k < nex; k++) {
			if (fnmatch(ex[k].dev, r->device, 0) ||
			    fnmatch(ex[k].port, port, 0))
				continue;
			if (c->nex)
				c->ex[k].matched = true;
			check_port(c, &ex[k], t, r);
		}
	}
	/* expected ports that are not there */
	for (size_t k = 0; k < c->nex; k++) {
		const struct expect *e = &c->ex[k];
		bool number = strspn(e->port, "0123456789") == strlen(e->port);

		if (!e->matched)
			say(c, e->dev,
			    number ? (uint32_t)strtoul(e->port, NULL, 10) : 0,
			    "missing", "expected, not found");
	}
	/* fatal events in the window */
	for (size_t i = 0; from && i < t->nseries; i++) {
		const struct ibve_series *s = &t->series[i];
		char when[64];

		if (s->severity != IBVE_SEVERITY_FATAL || !s->count ||
		    ibve_ts_before(&s->last, from))
			continue;
		ibve_time_format(&s->last, when, sizeof(when));
		say(c, s->device, s->port, s->event, "%s at %s", s->event,
		    when);
	}
	*out = c->out;
	return c->nout;
}
