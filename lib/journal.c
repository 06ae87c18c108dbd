// SPDX-License-Identifier: MIT
/*
 * The systemd journal: each record as one native entry, sent with
 * libsystemd's sd_journal_sendv(); share/mktables.c writes the catalog
 * that explains each kind of entry (journalctl -x).
 *
 * libsystemd is loaded when a journal sink is made, not linked: programs
 * on the library, and every start of the watcher without --journal, load
 * nothing more, and a host without systemd needs none of it.
 *
 * An entry's RDMA_* fields are the record's JSON, member by member: the
 * one print path (format.c, fields.c) decides what a record holds, so a
 * field added there reaches the journal without a line here. A member
 * that is an object (the peer) gives a field per member of its own
 * (RDMA_PEER_NAME), so that journalctl can match them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "dl_jsonc.h"
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "journal.h"
#include "sink.h"

#ifndef IBVE_SYSTEMD_SONAME
#define IBVE_SYSTEMD_SONAME "libsystemd.so.0"
#endif

/* --- a record as fields -------------------------------------------------- */

static int put(struct ibve_journal_entry *e, const char *s, size_t n)
{
	if (e->len + n > e->size) {
		size_t size = (e->len + n) * 2 + 256;
		char *p = realloc(e->text, size);

		if (!p)
			return -ENOMEM;
		e->text = p;
		e->size = size;
	}
	memcpy(e->text + e->len, s, n);
	e->len += n;
	return 0;
}

/* The field NAME=VALUE (VALUE of N bytes, any bytes). */
static int add(struct ibve_journal_entry *e, const char *name,
	       const char *value, size_t n)
{
	size_t start = e->len;

	if (e->n == e->cap) { /* room for as many iovecs, kept */
		size_t cap = e->cap ? e->cap * 2 : 32;
		struct iovec *v = realloc(e->iov, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		e->iov = v;
		e->cap = cap;
	}
	if (put(e, name, strlen(name)) || put(e, "=", 1) || put(e, value, n))
		return -ENOMEM;
	/* the base once the text is whole: realloc() may move it */
	e->iov[e->n++].iov_len = e->len - start;
	return 0;
}

static int add_str(struct ibve_journal_entry *e, const char *name,
		   const char *value)
{
	return add(e, name, value, strlen(value));
}

/* RDMA_ and KEY upper-cased: a journal field name (A-Z, 0-9, _). */
static void field_name(char *name, size_t size, const char *key)
{
	size_t i = 5;

	memcpy(name, "RDMA_", 5);
	for (; *key && i + 1 < size; key++) {
		char c = *key;

		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			c = '_';
		name[i++] = c;
	}
	name[i] = '\0';
}

/* One member of the record's JSON: a string as it is, the rest as JSON. */
static int add_member(struct ibve_journal_entry *e, const char *key,
		      struct json_object *v)
{
	char name[65]; /* journald takes names of 64 bytes at most */
	const char *s;
	size_t n;

	if (!v) /* null: not known, no field */
		return 0;
	if (json_object_is_type(v, json_type_object)) {
		char sub[64];
		int r = 0;

		json_object_object_foreach(v, k, m)
		{
			snprintf(sub, sizeof(sub), "%s_%s", key, k);
			if ((r = add_member(e, sub, m)))
				break;
		}
		return r;
	}
	field_name(name, sizeof(name), key);
	if (json_object_is_type(v, json_type_string)) {
		s = json_object_get_string(v);
		n = (size_t)json_object_get_string_len(v);
	} else {
		s = json_object_to_json_string_length(
			v,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
			&n);
	}
	return s ? add(e, name, s, n) : -ENOMEM;
}

static size_t fmt_syslog(const void *arg, char *buf, size_t size)
{
	return ibve_event_format_syslog(*(const struct ibve_event *const *)arg,
					buf, size);
}

static size_t fmt_json(const void *arg, char *buf, size_t size)
{
	return ibve_event_format_json(*(const struct ibve_event *const *)arg,
				      buf, size);
}

static int add_json(struct ibve_journal_entry *e, const struct ibve_event *ev)
{
	size_t n = ibve_buf_grow(&e->tmp, &e->tmp_size, fmt_json, &ev);
	struct json_object *o;
	int r = 0;

	if (n == (size_t)-1)
		return -ENOMEM;
	if ((r = ibve_dl_load(&ibve_jsonc_dl))) /* once; then one load */
		return r;
	if (!e->tok && !(e->tok = json_tokener_new()))
		return -ENOMEM;
	json_tokener_reset(e->tok);
	o = json_tokener_parse_ex(e->tok, e->tmp, (int)n);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return -ENOMEM; /* the writer's own JSON: only memory fails */
	}
	json_object_object_foreach(o, key, v)
	{
		if ((r = add_member(e, key, v)))
			break;
	}
	json_object_put(o);
	return r;
}

int ibve_journal_entry_build(struct ibve_journal_entry *e,
			     const struct ibve_event *ev, const char *ident)
{
	char prio[12];
	size_t n, start = 0;
	int r;

	e->n = e->len = 0;
	n = ibve_buf_grow(&e->tmp, &e->tmp_size, fmt_syslog, &ev);
	if (n == (size_t)-1 || add(e, "MESSAGE", e->tmp, n))
		return -ENOMEM;
	snprintf(prio, sizeof(prio), "%d", ibve_severity_syslog(ev->severity));
	if (add_str(e, "PRIORITY", prio) ||
	    add_str(e, "SYSLOG_IDENTIFIER", ident) ||
	    add_str(e, "MESSAGE_ID", ibve_event_message_id(ev)))
		return -ENOMEM;
	if ((r = add_json(e, ev)))
		return r;
	for (size_t i = 0; i < e->n; i++) {
		e->iov[i].iov_base = e->text + start;
		start += e->iov[i].iov_len;
	}
	return 0;
}

void ibve_journal_entry_free(struct ibve_journal_entry *e)
{
	free(e->iov);
	free(e->text);
	free(e->tmp);
	if (e->tok)
		json_tokener_free(e->tok);
	memset(e, 0, sizeof(*e));
}

/* --- the sink -------------------------------------------------------------- */

/* libsystemd's function, resolved when the first journal sink is made. */
static struct {
	__typeof__(sd_journal_sendv) *sendv;
} sd;

static int load_libsystemd(void)
{
	static const char *const names[] = { "sd_journal_sendv" };
	IBVE_DL_DEFINE(static, lib, sd, names, IBVE_SYSTEMD_SONAME,
		       "for the journal", "libsystemd0");

	return ibve_dl_load(&lib);
}

/*
 * Whether journald takes entries: sd_journal_sendv() drops them without a
 * word when its socket is missing, so ask the socket first.
 */
static int journal_reachable(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX,
				 .sun_path = IBVE_JOURNAL_SOCKET };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), e;

	if (fd < 0)
		return ibve_error(errno, "socket (%s)", strerror(errno));
	e = connect(fd, (struct sockaddr *)&a, sizeof(a)) ? errno : 0;
	close(fd);
	return e ? ibve_error(e, "no journal at %s (%s)", IBVE_JOURNAL_SOCKET,
			      strerror(e))
		 : 0;
}

struct journal {
	struct ibve_sink base;
	char *ident;
	struct ibve_journal_entry e;
};

static int journal_write(struct ibve_sink *base, const struct ibve_event *ev)
{
	struct journal *s = (struct journal *)base;
	int r = ibve_journal_entry_build(&s->e, ev, s->ident);

	if (r == -ENOMEM)
		return ibve_error(ENOMEM, "out of memory");
	if (r)
		return r; /* json-c could not be loaded: said */
	r = sd.sendv(s->e.iov, (int)s->e.n);
	/* journald away for a while (restarted): the entry is lost, counted,
	 * and the watcher goes on, its metrics and output unharmed */
	if (r < 0)
		ibve_sink_log_failed(base, -r);
	else
		ibve_sink_log_sent(base);
	return 0;
}

static void journal_destroy(struct ibve_sink *base)
{
	struct journal *s = (struct journal *)base;

	ibve_journal_entry_free(&s->e);
	free(s->ident);
	free(s);
}

static const struct ibve_sink_ops journal_ops = {
	.write = journal_write,
	.destroy = journal_destroy,
};

IBVE_EXPORT int ibve_sink_journal(struct ibve_sink **out, const char *ident)
{
	struct journal *s;
	int r;

	*out = NULL;
	if ((r = load_libsystemd()) || (r = ibve_dl_load(&ibve_jsonc_dl)) ||
	    (r = journal_reachable()))
		return r;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->ident = strdup(ident))) {
		free(s);
		return ibve_error(ENOMEM, "out of memory");
	}
	s->base.ops = &journal_ops;
	s->base.log = "journal";
	*out = &s->base;
	return 0;
}
