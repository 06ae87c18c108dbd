// SPDX-License-Identifier: MIT
/*
 * Replay: records from a JSON Lines capture, read in chunks so that a pipe
 * never blocks the caller's loop and memory stays bounded whatever the
 * input (a line longer than IBVE_REPLAY_LINE_MAX is rejected, not kept).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"

#define CHUNK		     (64 * 1024)
#define IBVE_REPLAY_LINE_MAX (1024 * 1024)

struct ibve_replay {
	int fd;
	bool own_fd;
	bool eof;
	bool skipping; /* inside a line that was too long */
	char *buf;
	size_t cap, start, end; /* unread bytes are buf[start..end) */
	unsigned long line;
	struct json_tokener *tok;
};

IBVE_EXPORT struct ibve_replay *ibve_replay_open(const char *path)
{
	struct ibve_replay *r = calloc(1, sizeof(*r));
	struct stat st;
	int e;

	if (!r)
		return NULL;
	if (strcmp(path, "-") == 0) {
		r->fd = STDIN_FILENO;
	} else {
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
		r->own_fd = true;
	}
	if (r->fd < 0)
		goto fail;
	if (fstat(r->fd, &st))
		goto fail;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	/* Pipes and terminals must not block the loop. */
	if (!S_ISREG(st.st_mode)) {
		int fl = fcntl(r->fd, F_GETFL);

		if (fl >= 0)
			fcntl(r->fd, F_SETFL, fl | O_NONBLOCK);
	}
	r->cap = CHUNK * 2;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		errno = ENOMEM;
		goto fail;
	}
	return r;
fail:
	e = errno;
	ibve_replay_close(r);
	errno = e;
	return NULL;
}

IBVE_EXPORT void ibve_replay_close(struct ibve_replay *r)
{
	if (!r)
		return;
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	if (r->tok)
		json_tokener_free(r->tok);
	free(r->buf);
	free(r);
}

IBVE_EXPORT int ibve_replay_fd(const struct ibve_replay *r)
{
	return r->fd;
}

IBVE_EXPORT unsigned long ibve_replay_line(const struct ibve_replay *r)
{
	return r->line;
}

/* Read more input; 1 read something, 0 end of input, -errno. */
static int fill(struct ibve_replay *r)
{
	ssize_t n;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->cap - r->end < CHUNK) {
		size_t cap = r->cap * 2;
		char *p;

		if (cap > IBVE_REPLAY_LINE_MAX + 2 * CHUNK)
			cap = IBVE_REPLAY_LINE_MAX + 2 * CHUNK;
		p = cap > r->cap ? realloc(r->buf, cap) : r->buf;
		if (!p)
			return -ENOMEM;
		r->buf = p;
		r->cap = cap;
	}
	do {
		n = read(r->fd, r->buf + r->end, r->cap - r->end);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0) {
		r->eof = true;
		return 0;
	}
	r->end += (size_t)n;
	return 1;
}

IBVE_EXPORT int ibve_replay_read(struct ibve_replay *r, struct ibve_event *ev,
				 char *err, size_t errlen)
{
	for (;;) {
		char *line = r->buf + r->start;
		size_t avail = r->end - r->start;
		char *nl = memchr(line, '\n', avail);
		size_t len;
		int rc;

		if (!nl && !r->eof) {
			if (avail > IBVE_REPLAY_LINE_MAX) {
				/* Drop what we hold; skip to the newline. */
				if (!r->skipping) {
					r->skipping = true;
					r->line++;
				}
				r->start = r->end;
			}
			rc = fill(r);
			if (rc < 0)
				return rc;
			continue;
		}
		if (!nl && avail == 0 && !r->skipping)
			return 0; /* end of input */
		len = nl ? (size_t)(nl - line) : avail;
		r->start += nl ? len + 1 : len;
		if (r->skipping || len > IBVE_REPLAY_LINE_MAX) {
			/* the limit holds wherever the reads happened to end */
			if (!r->skipping)
				r->line++;
			r->skipping = false;
			snprintf(err, errlen, "line longer than %d bytes",
				 IBVE_REPLAY_LINE_MAX);
			return -EINVAL;
		}
		r->line++;
		if (len && line[len - 1] == '\r')
			len--;
		/* Blank lines separate nothing and mean nothing. */
		{
			size_t i = 0;

			while (i < len && (line[i] == ' ' || line[i] == '\t'))
				i++;
			if (i == len)
				continue;
		}
		if (memchr(line, '\0', len)) {
			snprintf(err, errlen, "NUL byte in the line");
			return -EINVAL;
		}
		return ibve_parse_line(&r->tok, line, len, ev, err, errlen)
			       ? -EINVAL
			       : 1;
	}
}
