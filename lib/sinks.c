// SPDX-License-Identifier: MIT
/*
 * The sinks records go to: text or JSON Lines on a stream, a capture file,
 * syslog, the port table (and its Prometheus metrics), a caller's function.
 * Each is small; the pipeline decides which records each one sees.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <paths.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "ports.h"
#include "sink.h"

/* --- streams and captures ------------------------------------------------ */

struct stream {
	struct ibve_sink base;
	FILE *f;
	bool own; /* a capture: opened and closed here */
	char *what;
	unsigned int flags;
	char *line;
	size_t size;
};

/* The record being written and its stream's flags. */
struct line {
	const struct ibve_event *ev;
	unsigned int flags;
};

static size_t fmt_line(const void *arg, char *buf, size_t size)
{
	const struct line *l = arg;

	if (l->flags & IBVE_FORMAT_JSON)
		return ibve_event_format_json(l->ev, buf, size);
	return ibve_event_format_text(l->ev, buf, size,
				      l->flags & IBVE_FORMAT_COLOR);
}

static int failed(struct stream *s, int err)
{
	return ibve_error(err, "write to %s: %s", s->what, strerror(err));
}

static int stream_write(struct ibve_sink *base, const struct ibve_event *ev)
{
	struct stream *s = (struct stream *)base;
	struct line l = { ev, s->flags };
	size_t n = ibve_buf_grow(&s->line, &s->size, fmt_line, &l);

	if (n == (size_t)-1)
		return ibve_error(ENOMEM, "out of memory");
	if (fwrite(s->line, 1, n, s->f) != n)
		return failed(s, errno ? errno : EIO);
	return 0;
}

static int stream_flush(struct ibve_sink *base)
{
	struct stream *s = (struct stream *)base;

	return fflush(s->f) ? failed(s, errno ? errno : EIO) : 0;
}

static void stream_destroy(struct ibve_sink *base)
{
	struct stream *s = (struct stream *)base;

	if (s->own)
		fclose(s->f);
	free(s->what);
	free(s->line);
	free(s);
}

static const struct ibve_sink_ops stream_ops = {
	.write = stream_write,
	.flush = stream_flush,
	.destroy = stream_destroy,
};

IBVE_EXPORT int ibve_sink_stream(struct ibve_sink **out, FILE *f,
				 const char *what, unsigned int flags)
{
	struct stream *s = calloc(1, sizeof(*s));

	*out = s ? &s->base : NULL;
	if (!s || !(s->what = strdup(what))) {
		free(s);
		*out = NULL;
		return ibve_error(ENOMEM, "out of memory");
	}
	s->base.ops = &stream_ops;
	s->f = f;
	s->flags = flags;
	return 0;
}

IBVE_EXPORT int ibve_sink_capture(struct ibve_sink **s, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "a");
	int r;

	*s = NULL;
	if (!f) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return ibve_error(e, "%s: %s", path, strerror(e));
	}
	if ((r = ibve_sink_stream(s, f, path, IBVE_FORMAT_JSON)))
		fclose(f);
	else
		((struct stream *)*s)->own = true;
	return r;
}

/* --- syslog -------------------------------------------------------------- */

/*
 * syslog(3) says nothing of a message it could not send: the sink sends
 * its own, in the same form ("<PRI>Mmm dd hh:mm:ss IDENT[PID]: TEXT"), to
 * the same socket, so that a lost one is counted.
 */
struct slog {
	struct ibve_sink base;
	char *ident;
	int facility;
	int fd; /* -1: not connected */
	int type;
};

static int slog_connect(struct slog *s)
{
	static const int types[] = { SOCK_DGRAM, SOCK_STREAM };
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int e = EPROTOTYPE;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", _PATH_LOG);
	for (size_t i = 0; i < ARRAY_SIZE(types) && e == EPROTOTYPE; i++) {
		int fd = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -errno;
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
			s->fd = fd;
			s->type = types[i];
			return 0;
		}
		e = errno;
		close(fd);
	}
	return -e;
}

/* LINE (N bytes and its NUL) to the daemon; -errno. */
static int slog_send(struct slog *s, const char *line, size_t n)
{
	int e;

	if (s->fd < 0 && (e = slog_connect(s)))
		return e;
	/* a stream's messages end in their NUL, as syslog(3) sends them */
	if (send(s->fd, line, n + (s->type == SOCK_STREAM), MSG_NOSIGNAL) >= 0)
		return 0;
	e = errno;
	close(s->fd);
	s->fd = -1;
	return -e;
}

static int syslog_write(struct ibve_sink *base, const struct ibve_event *ev)
{
	struct slog *s = (struct slog *)base;
	char msg[1024], line[1280], when[32];
	time_t now = time(NULL);
	struct tm tm;
	int n, r;

	ibve_event_format_syslog(ev, msg, sizeof(msg));
	strftime(when, sizeof(when), "%b %e %T", localtime_r(&now, &tm));
	n = snprintf(line, sizeof(line), "<%d>%s %s[%d]: %s",
		     s->facility | ibve_severity_syslog(ev->severity), when,
		     s->ident, (int)getpid(), msg);
	if (n >= (int)sizeof(line))
		n = sizeof(line) - 1;
	/* once more on a new connection: the daemon may have restarted */
	r = slog_send(s, line, (size_t)n);
	if (r && r != -ENOENT)
		r = slog_send(s, line, (size_t)n);
	if (r)
		ibve_sink_log_failed(base, -r);
	else
		ibve_sink_log_sent(base);
	return 0;
}

static void syslog_destroy(struct ibve_sink *base)
{
	struct slog *s = (struct slog *)base;

	if (s->fd >= 0)
		close(s->fd);
	free(s->ident);
	free(s);
}

static const struct ibve_sink_ops syslog_ops = {
	.write = syslog_write,
	.destroy = syslog_destroy,
};

IBVE_EXPORT int ibve_sink_syslog(struct ibve_sink **out, const char *ident,
				 int facility)
{
	struct slog *s = calloc(1, sizeof(*s));

	*out = s ? &s->base : NULL;
	if (!s || !(s->ident = strdup(ident))) {
		free(s);
		*out = NULL;
		return ibve_error(ENOMEM, "out of memory");
	}
	s->base.ops = &syslog_ops;
	s->base.log = "syslog";
	s->facility = facility;
	s->fd = -1;
	slog_connect(s); /* now, as LOG_NDELAY did: a chroot may follow */
	return 0;
}

/* --- the port table and its metrics ------------------------------------------ */

struct ports {
	struct ibve_sink base;
	struct ibve_ports *t;
	char *file, *state;
	bool dirty;
};

static int ports_write(struct ibve_sink *base, const struct ibve_event *ev)
{
	struct ports *s = (struct ports *)base;

	ibve_ports_event(s->t, ev);
	s->dirty = true;
	return 0;
}

/* The devices the pipeline opened are there, with their ports. */
static int ports_start(struct ibve_sink *base, const char *const *names,
		       size_t n)
{
	struct ports *s = (struct ports *)base;
	int r;

	for (size_t i = 0; i < n; i++)
		if ((r = ibve_ports_add_device(s->t, names[i], 0)) == -ENOMEM)
			return r;
	s->dirty = true;
	return 0;
}

/* The metrics file and state (if any), when records changed them. */
static int metrics_flush(struct ibve_sink *base)
{
	struct ports *s = (struct ports *)base;
	int r;

	if (!s->dirty)
		return 0;
	s->dirty = false;
	if (s->file && (r = ibve_metrics_write(s->t, s->file)))
		return r;
	if (s->state && (r = ibve_metrics_save(s->t, s->state)))
		return r;
	return 0;
}

static void ports_destroy(struct ibve_sink *base)
{
	struct ports *s = (struct ports *)base;

	free(s->file);
	free(s->state);
	free(s);
}

static const struct ibve_sink_ops metrics_ops = {
	.write = ports_write,
	.flush = metrics_flush,
	.start = ports_start,
	.destroy = ports_destroy,
};

IBVE_EXPORT int ibve_sink_ports(struct ibve_sink **out, struct ibve_ports *t)
{
	return ibve_sink_metrics(out, t, NULL, NULL);
}

IBVE_EXPORT int ibve_sink_metrics(struct ibve_sink **out, struct ibve_ports *t,
				  const char *file, const char *state)
{
	struct ports *s = calloc(1, sizeof(*s));

	*out = s ? &s->base : NULL;
	if (!s)
		return ibve_error(ENOMEM, "out of memory");
	s->base.ops = &metrics_ops;
	s->base.attrs = t->flags & IBVE_PORTS_SYSFS;
	s->base.watcher = &t->w; /* the watcher's own series */
	s->t = t;
	if ((file && !(s->file = strdup(file))) ||
	    (state && !(s->state = strdup(state)))) {
		ports_destroy(&s->base);
		*out = NULL;
		return ibve_error(ENOMEM, "out of memory");
	}
	return 0;
}

/* --- a caller's function --------------------------------------------------- */

struct call {
	struct ibve_sink base;
	int (*fn)(const struct ibve_event *ev, void *arg);
	void *arg;
};

static int call_write(struct ibve_sink *base, const struct ibve_event *ev)
{
	struct call *s = (struct call *)base;

	return s->fn(ev, s->arg);
}

static void call_destroy(struct ibve_sink *base)
{
	free(base);
}

static const struct ibve_sink_ops call_ops = {
	.write = call_write,
	.destroy = call_destroy,
};

IBVE_EXPORT int
ibve_sink_callback(struct ibve_sink **out,
		   int (*fn)(const struct ibve_event *ev, void *arg), void *arg)
{
	struct call *s = calloc(1, sizeof(*s));

	*out = s ? &s->base : NULL;
	if (!s)
		return ibve_error(ENOMEM, "out of memory");
	s->base.ops = &call_ops;
	s->fn = fn;
	s->arg = arg;
	return 0;
}

IBVE_EXPORT void ibve_sink_free(struct ibve_sink *s)
{
	if (s)
		s->ops->destroy(s);
}
