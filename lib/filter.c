// SPDX-License-Identifier: MIT
/*
 * Filters are data, compiled once from the command line: sets of event
 * names, classes, sources and severity bounds to include or exclude, plus
 * device, port and owner (pid, comm) sets. Records from any source go
 * through the same test.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "event.h"
#include "filter.h"

enum term_type { T_EVENT, T_NAME, T_CLASS, T_SOURCE, T_SEVERITY };

struct term {
	enum term_type type;
	const struct ibve_event_desc *desc; /* T_EVENT */
	char name[IBVE_EVENT_NAME_MAX];	    /* T_NAME: e.g. UNKNOWN(20) */
	int value;			    /* class, source */
	int sev_min, sev_max;		    /* T_SEVERITY, inclusive */
};

struct term_set {
	struct term *v;
	size_t n;
};

struct ibve_filter {
	struct term_set inc, exc;
	char (*devices)[IBVE_NAME_MAX];
	size_t ndevices;
	uint32_t *ports;
	size_t nports;
	uint32_t *pids;
	size_t npids;
	char (*comms)[16];
	size_t ncomms;
};

IBVE_EXPORT int ibve_filter_new(struct ibve_filter **f)
{
	*f = calloc(1, sizeof(struct ibve_filter));
	return *f ? 0 : ibve_error(ENOMEM, "out of memory");
}

IBVE_EXPORT void ibve_filter_free(struct ibve_filter *f)
{
	if (!f)
		return;
	free(f->inc.v);
	free(f->exc.v);
	free(f->devices);
	free(f->ports);
	free(f->pids);
	free(f->comms);
	free(f);
}

IBVE_EXPORT bool ibve_filter_is_empty(const struct ibve_filter *f)
{
	return !f->inc.n && !f->exc.n && !f->ndevices && !f->nports &&
	       !f->npids && !f->ncomms;
}

/* severity>=warning, severity=error, >=warning, fatal, ... */
static bool parse_severity(const char *s, struct term *t)
{
	const char *op;
	size_t n;
	int sev, strict;

	if (strncasecmp(s, "severity", 8) == 0)
		s += 8;
	op = s;
	while (*s == '<' || *s == '>' || *s == '=')
		s++;
	sev = ibve_severity_parse(s);
	n = (size_t)(s - op);
	/* none, =, <, >, <= or >= */
	if (sev < 0 || n > 2 || (n == 2 && (op[0] == '=' || op[1] != '=')))
		return false;
	strict = n == 1 && op[0] != '=';
	t->type = T_SEVERITY;
	t->sev_min = op[0] == '<' ? 0 : sev + strict;
	t->sev_max = op[0] == '>' ? IBVE_SEVERITY_COUNT - 1 : sev - strict;
	return true;
}

static int parse_term(const char *s, struct term *t)
{
	char *end;
	long code;

	memset(t, 0, sizeof(*t));
	t->type = T_EVENT;
	if ((t->desc = ibve_event_desc_lookup(s)))
		return 0;
	t->type = T_CLASS;
	if ((t->value = ibve_class_parse(s)) >= 0)
		return 0;
	t->type = T_SOURCE;
	if ((t->value = ibve_source_parse(s)) >= 0)
		return 0;
	if (parse_severity(s, t))
		return 0;
	if (strncasecmp(s, "IBV_EVENT_", 10) == 0)
		s += 10;
	if (strncasecmp(s, "UNKNOWN(", 8) || !isdigit((unsigned char)s[8]))
		return -EINVAL;
	errno = 0;
	code = strtol(s + 8, &end, 10);
	if (errno || end[0] != ')' || end[1] != '\0' || code > INT32_MAX)
		return -EINVAL;
	t->type = T_NAME;
	snprintf(t->name, sizeof(t->name), "UNKNOWN(%ld)", code);
	return 0;
}

/* The term P[0..LEN) names nothing: said, with the nearest name. */
static int unknown_term(const char *p, size_t len)
{
	char word[64], near[96];

	snprintf(word, sizeof(word), "%.*s", (int)len, p);
	if (len < sizeof(word) && ibve_term_suggest(word, near, sizeof(near)))
		return ibve_error(
			EINVAL,
			"unknown event, class or severity '%s': did you mean %s? (ibv_eventwatch --list-events lists them)",
			word, near);
	return ibve_error(
		EINVAL,
		"unknown event, class or severity '%.*s' (ibv_eventwatch --list-events lists them)",
		(int)len, p);
}

IBVE_EXPORT int ibve_filter_add_terms(struct ibve_filter *f, const char *list,
				      bool exclude)
{
	struct term_set *set = exclude ? &f->exc : &f->inc;
	size_t added = 0;

	/* All or nothing: a bad term leaves the filter as it was. */
	for (const char *p = list, *end; p; p = end ? end + 1 : NULL) {
		struct term *v =
			realloc(set->v, (set->n + added + 1) * sizeof(*v));
		char word[64];
		size_t len;

		if (!v)
			return ibve_error(ENOMEM, "out of memory");
		set->v = v;
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		while (len && isspace((unsigned char)*p)) {
			p++;
			len--;
		}
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		if (!len)
			return ibve_error(EINVAL, "empty term in '%s'", list);
		snprintf(word, sizeof(word), "%.*s", (int)len, p);
		if (len >= sizeof(word) || parse_term(word, &v[set->n + added]))
			return unknown_term(p, len);
		added++;
	}
	set->n += added;
	return 0;
}

/* One more element of SIZE bytes onto the list *V of *N: X's LEN, zeros. */
static int push(void *v, size_t *n, size_t size, const void *x, size_t len)
{
	char *p = realloc(*(void **)v, (*n + 1) * size);

	if (!p)
		return ibve_error(ENOMEM, "out of memory");
	*(void **)v = p;
	p += (*n)++ * size;
	memset(p, 0, size);
	memcpy(p, x, len);
	return 0;
}

IBVE_EXPORT int ibve_filter_add_device(struct ibve_filter *f,
				       const char *device)
{
	if (strlen(device) >= IBVE_NAME_MAX)
		return ibve_error(ENAMETOOLONG, "device name '%s' too long",
				  device);
	return push(&f->devices, &f->ndevices, IBVE_NAME_MAX, device,
		    strlen(device));
}

IBVE_EXPORT int ibve_filter_add_port(struct ibve_filter *f, uint32_t port)
{
	return push(&f->ports, &f->nports, sizeof(port), &port, sizeof(port));
}

IBVE_EXPORT int ibve_filter_add_pid(struct ibve_filter *f, uint32_t pid)
{
	return push(&f->pids, &f->npids, sizeof(pid), &pid, sizeof(pid));
}

IBVE_EXPORT int ibve_filter_add_comm(struct ibve_filter *f, const char *comm)
{
	/* the kernel keeps 15 bytes of a name */
	if (!*comm || strlen(comm) >= sizeof(*f->comms))
		return ibve_error(
			EINVAL,
			"process name '%s': 1 to 15 bytes, as the kernel keeps it",
			comm);
	return push(&f->comms, &f->ncomms, sizeof(*f->comms), comm,
		    strlen(comm));
}

static bool term_match(const struct term *t, const struct ibve_event *ev)
{
	switch (t->type) {
	case T_EVENT:
		/* the kernel's EVENTS_LOST is mlx5's by name */
		if (ev->desc)
			return ev->desc == t->desc ||
			       (ev->desc->code == t->desc->code &&
				strcmp(ev->desc->name, t->desc->name) == 0);
		return strcasecmp(ev->name, t->desc->name) == 0;
	case T_NAME:
		return strcasecmp(ev->name, t->name) == 0;
	case T_CLASS:
		return (int)ev->cls == t->value;
	case T_SOURCE:
		return (int)ev->source == t->value;
	case T_SEVERITY:
		return (int)ev->severity >= t->sev_min &&
		       (int)ev->severity <= t->sev_max;
	}
	return false;
}

static bool set_match(const struct term_set *s, const struct ibve_event *ev)
{
	for (size_t i = 0; i < s->n; i++)
		if (term_match(&s->v[i], ev))
			return true;
	return false;
}

static bool device_match(const struct ibve_filter *f, const char *device)
{
	for (size_t i = 0; i < f->ndevices; i++)
		if (strcmp(f->devices[i], device) == 0)
			return true;
	return !f->ndevices;
}

static bool port_match(const struct ibve_filter *f, uint32_t port)
{
	for (size_t i = 0; i < f->nports; i++)
		if (f->ports[i] == port)
			return true;
	return !f->nports;
}

/*
 * The owner sets: a record without an owner (its source says where its
 * owner is, and whether it has one) passes only when there are none.
 */
static bool owner_match(const struct ibve_filter *f,
			const struct ibve_event *ev)
{
	bool pid = !f->npids, comm = !f->ncomms;
	const void *owner_pid;
	const char *owner_comm;

	if (pid && comm)
		return true;
	if (!ibve_event_owner(ev, &owner_pid, &owner_comm))
		return false;
	for (size_t i = 0; i < f->npids && !pid; i++)
		pid = !memcmp(&f->pids[i], owner_pid, sizeof(f->pids[i]));
	for (size_t i = 0; i < f->ncomms && !comm; i++)
		comm = strcmp(f->comms[i], owner_comm) == 0;
	return pid && comm;
}

bool ibve_filter_match_identity(const struct ibve_filter *f,
				const struct ibve_event *ev)
{
	if (!device_match(f, ev->device))
		return false;
	if (f->inc.n && !set_match(&f->inc, ev))
		return false;
	return !set_match(&f->exc, ev);
}

bool ibve_filter_has_identity(const struct ibve_filter *f)
{
	return f->inc.n || f->exc.n || f->ndevices;
}

size_t ibve_filter_pids(const struct ibve_filter *f, const uint32_t **v)
{
	*v = f->pids;
	return f->npids;
}

size_t ibve_filter_comms(const struct ibve_filter *f, const char (**v)[16])
{
	*v = f->comms;
	return f->ncomms;
}

IBVE_EXPORT bool ibve_filter_match_port(const struct ibve_filter *f,
					const char *device, uint32_t port)
{
	/* a capture's device-wide row is not one of the ports named */
	return device_match(f, device) &&
	       (port ? port_match(f, port) : !f->nports);
}

IBVE_EXPORT bool ibve_filter_match(const struct ibve_filter *f,
				   const struct ibve_event *ev)
{
	return (!ev->port || port_match(f, ev->port)) && owner_match(f, ev) &&
	       ibve_filter_match_identity(f, ev);
}
