// SPDX-License-Identifier: MIT
/*
 * The one poll loop of a program: its fds, its signals (through a
 * signalfd) and an optional deadline. Nothing here sleeps or spins: the
 * loop blocks in poll() until something happens.
 */
#include <errno.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "util.h"

struct fd_entry {
	int fd;
	short events;
	ibve_loop_fd_cb cb;
	void *arg;
};

struct sig_entry {
	int signo;
	ibve_loop_signal_cb cb;
	void *arg;
};

struct ibve_loop {
	struct fd_entry *fds;
	size_t nfds;
	struct pollfd *pfd;
	struct sig_entry sigs[16];
	size_t nsigs;
	sigset_t mask;
	int sigfd;
	ibve_loop_idle_cb idle;
	void *idle_arg;
	struct wake_entry {
		int (*next)(void *arg);
		void (*run)(void *arg);
		void *arg;
		long long due; /* CLOCK_MONOTONIC ms, as NEXT said; -1: none */
	} wakes[4];
	size_t nwakes;
	bool has_deadline;
	struct timespec deadline;
	int deadline_status;
};

IBVE_EXPORT int ibve_loop_new(struct ibve_loop **out)
{
	struct ibve_loop *l = calloc(1, sizeof(*l));

	*out = l;
	if (!l)
		return ibve_error(ENOMEM, "out of memory");
	l->sigfd = -1;
	sigemptyset(&l->mask);
	return 0;
}

IBVE_EXPORT void ibve_loop_free(struct ibve_loop *l)
{
	if (!l)
		return;
	if (l->sigfd >= 0)
		close(l->sigfd);
	free(l->fds);
	free(l->pfd);
	free(l);
}

IBVE_EXPORT int ibve_loop_add_fd(struct ibve_loop *l, int fd, short events,
				 ibve_loop_fd_cb cb, void *arg)
{
	struct fd_entry *v = realloc(l->fds, (l->nfds + 2) * sizeof(*v));
	struct pollfd *p;

	if (!v)
		return ibve_error(ENOMEM, "out of memory");
	l->fds = v;
	p = realloc(l->pfd, (l->nfds + 2) * sizeof(*p));
	if (!p)
		return ibve_error(ENOMEM, "out of memory");
	l->pfd = p;
	l->fds[l->nfds++] = (struct fd_entry){ fd, events, cb, arg };
	return 0;
}

IBVE_EXPORT int ibve_loop_remove_fd(struct ibve_loop *l, int fd)
{
	for (size_t i = 0; i < l->nfds; i++)
		if (l->fds[i].fd == fd) {
			memmove(&l->fds[i], &l->fds[i + 1],
				(l->nfds - i - 1) * sizeof(l->fds[0]));
			l->nfds--;
			return 0;
		}
	return ibve_error(ENOENT, "fd %d is not in the loop", fd);
}

IBVE_EXPORT int ibve_loop_add_signal(struct ibve_loop *l, int signo,
				     ibve_loop_signal_cb cb, void *arg)
{
	int fd;

	if (l->nsigs == ARRAY_SIZE(l->sigs))
		return ibve_error(ENOSPC, "too many signals in the loop");
	sigaddset(&l->mask, signo);
	if (sigprocmask(SIG_BLOCK, &l->mask, NULL))
		return ibve_error(errno, "sigprocmask: %s", strerror(errno));
	fd = signalfd(l->sigfd, &l->mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		return ibve_error(errno, "signalfd: %s", strerror(errno));
	l->sigfd = fd;
	l->sigs[l->nsigs++] = (struct sig_entry){ signo, cb, arg };
	return 0;
}

IBVE_EXPORT void ibve_loop_set_idle(struct ibve_loop *l, ibve_loop_idle_cb cb,
				    void *arg)
{
	l->idle = cb;
	l->idle_arg = arg;
}

IBVE_EXPORT int ibve_loop_set_wakeup(struct ibve_loop *l,
				     int (*next)(void *arg),
				     void (*run)(void *arg), void *arg)
{
	size_t i = 0;

	/* one per ARG: set again, it is replaced; NEXT NULL, removed */
	while (i < l->nwakes && l->wakes[i].arg != arg)
		i++;
	if (!next) {
		if (i < l->nwakes)
			l->wakes[i] = l->wakes[--l->nwakes];
		return 0;
	}
	if (i == ARRAY_SIZE(l->wakes))
		return ibve_error(ENOSPC, "too many wakeups in the loop (%zu)",
				  ARRAY_SIZE(l->wakes));
	/* not due before its NEXT is asked, on the loop's next turn */
	l->wakes[i] = (struct wake_entry){ next, run, arg, -1 };
	if (i == l->nwakes)
		l->nwakes++;
	return 0;
}

static long long now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec * 1000LL + now.tv_nsec / 1000000;
}

/*
 * Milliseconds to the soonest wakeup; -1: none. Each NEXT is asked once a
 * turn; the time it names is kept for wake_run().
 */
static int wake_next(struct ibve_loop *l)
{
	long long now = l->nwakes ? now_ms() : 0;
	int soonest = -1;

	for (size_t i = 0; i < l->nwakes; i++) {
		struct wake_entry *w = &l->wakes[i];
		int ms = w->next(w->arg);

		w->due = ms >= 0 ? now + ms : -1;
		if (ms >= 0 && (soonest < 0 || ms < soonest))
			soonest = ms;
	}
	return soonest;
}

/*
 * Each wakeup whose time, as its NEXT said before the loop blocked, has
 * come (poll() waits its timeout at least: the soonest has).
 */
static void wake_run(struct ibve_loop *l)
{
	long long now = now_ms();

	for (size_t i = 0; i < l->nwakes; i++) {
		struct wake_entry *w = &l->wakes[i];

		if (w->due >= 0 && w->due <= now) {
			w->due = -1;
			w->run(w->arg);
		}
	}
}

IBVE_EXPORT void ibve_loop_set_deadline(struct ibve_loop *l,
					const struct timespec *deadline,
					int status)
{
	l->has_deadline = deadline != NULL;
	if (deadline)
		l->deadline = *deadline;
	l->deadline_status = status;
}

/* Milliseconds to the deadline, rounded up; 0 once it has passed. */
static int ms_left(const struct ibve_loop *l)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (l->deadline.tv_sec - now.tv_sec) * 1000LL +
	     (l->deadline.tv_nsec - now.tv_nsec + 999999) / 1000000;
	if (ms <= 0)
		return 0;
	return ms > 86400000 ? 86400000 : (int)ms;
}

static int handle_signals(struct ibve_loop *l)
{
	struct signalfd_siginfo si;
	int r;

	while (read(l->sigfd, &si, sizeof(si)) == sizeof(si))
		for (size_t i = 0; i < l->nsigs; i++)
			if (l->sigs[i].signo == (int)si.ssi_signo &&
			    (r = l->sigs[i].cb((int)si.ssi_signo,
					       l->sigs[i].arg)))
				return r;
	return 0;
}

IBVE_EXPORT int ibve_loop_run(struct ibve_loop *l)
{
	for (;;) {
		size_t n = l->nfds;
		int timeout = -1, wake, r;

		if (l->idle && (r = l->idle(l->idle_arg)))
			return r;
		if (l->has_deadline && (timeout = ms_left(l)) == 0)
			return l->deadline_status;
		wake = wake_next(l);
		if (wake >= 0 && (timeout < 0 || wake < timeout))
			timeout = wake;
		for (size_t i = 0; i < n; i++)
			l->pfd[i] = (struct pollfd){ l->fds[i].fd,
						     l->fds[i].events, 0 };
		if (l->sigfd >= 0)
			l->pfd[n++] = (struct pollfd){ l->sigfd, POLLIN, 0 };
		r = poll(l->pfd, n, timeout);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return ibve_error(errno, "poll: %s", strerror(errno));
		}
		/* the wakeups due, also while fds keep the loop busy */
		if (wake >= 0)
			wake_run(l);
		if (r == 0)
			continue; /* the deadline check above ends it */
		if (l->sigfd >= 0 && l->pfd[n - 1].revents &&
		    (r = handle_signals(l)))
			return r;
		for (size_t i = 0; i < l->nfds && i < n; i++)
			if (l->pfd[i].revents && l->pfd[i].fd == l->fds[i].fd &&
			    (r = l->fds[i].cb(l->fds[i].fd, l->pfd[i].revents,
					      l->fds[i].arg)))
				return r;
	}
}
