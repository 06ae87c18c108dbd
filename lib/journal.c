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
 * An entry's RDMA_* fields are the record's JSON, member by member,
 * written by the JSON writer itself in its fields mode (buf.h): the one
 * print path (format.c, fields.c) decides what a record holds, so a field
 * added there reaches the journal without a line here, and no JSON is
 * written to be read back. A member that is an object (the peer) gives a
 * field per member of its own (RDMA_PEER_NAME), so that journalctl can
 * match them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "buf.h"
#include "dl.h"
#include "fields.h"
#include "journal.h"
#include "sink.h"

#ifndef IBVE_SYSTEMD_SONAME
#define IBVE_SYSTEMD_SONAME "libsystemd.so.0"
#endif

/* --- a record as fields -------------------------------------------------- */

struct entry_of {
	const struct ibve_event *ev;
	const char *ident;
};

/* The field NAME=VALUE, after the NUL that ends the one before it. */
static void put_field(struct ibve_buf *b, const char *name, const char *value)
{
	ibve_buf_putc(b, '\0');
	ibve_buf_puts(b, name);
	ibve_buf_putc(b, '=');
	ibve_buf_puts(b, value);
}

/* What FMT writes of EV, after what B holds. */
static void put_format(struct ibve_buf *b, const struct ibve_event *ev,
		       size_t (*fmt)(const struct ibve_event *, char *, size_t))
{
	size_t room = b->len < b->size ? b->size - b->len : 0;

	b->len += fmt(ev, room ? b->p + b->len : NULL, room);
}

/* The entry's fields, one after the other, each ended by a NUL (no value
 * holds one: the record's strings are C strings). */
static size_t fmt_entry(const void *arg, char *buf, size_t size)
{
	const struct entry_of *a = arg;
	struct ibve_buf b = { buf, size, 0 };
	char prio[12];

	ibve_buf_puts(&b, "MESSAGE=");
	put_format(&b, a->ev, ibve_event_format_syslog);
	snprintf(prio, sizeof(prio), "%d",
		 ibve_severity_syslog(a->ev->severity));
	put_field(&b, "PRIORITY", prio);
	put_field(&b, "SYSLOG_IDENTIFIER", a->ident);
	put_field(&b, "MESSAGE_ID", ibve_event_message_id(a->ev));
	/* RDMA_*: the record's JSON writer, writing fields */
	put_format(&b, a->ev, ibve_event_format_fields);
	return b.len;
}

int ibve_journal_entry_build(struct ibve_journal_entry *e,
			     const struct ibve_event *ev, const char *ident)
{
	struct entry_of a = { ev, ident };
	size_t len = ibve_buf_grow(&e->text, &e->size, fmt_entry, &a);

	if (len == (size_t)-1)
		return -ENOMEM;
	e->n = 0;
	for (char *p = e->text; p < e->text + len; p++) {
		size_t n = strlen(p);

		if (e->n == e->cap) { /* room for as many iovecs, kept */
			size_t cap = e->cap ? e->cap * 2 : 32;
			struct iovec *v = realloc(e->iov, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			e->iov = v;
			e->cap = cap;
		}
		e->iov[e->n++] = (struct iovec){ p, n };
		p += n;
	}
	return 0;
}

void ibve_journal_entry_free(struct ibve_journal_entry *e)
{
	free(e->iov);
	free(e->text);
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

	if (r)
		return ibve_error(ENOMEM, "out of memory");
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
	if ((r = load_libsystemd()) || (r = journal_reachable()))
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
