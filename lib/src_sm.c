// SPDX-License-Identifier: MIT
/*
 * The "sm" source: subnet events. On every InfiniBand port it registers a
 * class 0x03 (SA) agent that accepts Reports, subscribes to traps 64-67
 * with Set(InformInfo) and answers every Report with a ReportResp.
 *
 * Each port has a receiver thread blocked in umad_recv(): the SA must get
 * its ReportResp whatever the caller's loop is doing, and libibumad's
 * stand-in for tests (ibsim's umad2sim) gives fds only its own poll() can
 * wait on, one at a time. The threads hand records to the caller's loop
 * through an eventfd; sending, retries and refreshes happen on the
 * caller's thread, paced by one timerfd.
 *
 * A subscription lives in the SM's memory: a new SM (SM_CHANGE), client
 * re-registration, a new LID or a port coming back asks for it again at
 * once (observe()), and every subscription is refreshed every REFRESH
 * seconds (the option; default 60) for the SM changes no event tells this
 * host about.
 * OpenSM treats a repeated identical Set as the same subscription.
 *
 * It also looks up the peer of each port, the far end of its link: a
 * Get(LinkRecord) from the port's LID and number, then a Get(NodeRecord)
 * of the LID at the other end, with the Sets' tries and waits. Once the
 * loop runs (after "watching"), then after the events that may mean a new
 * link, SM or LID (observe()); never otherwise: a steady fabric costs no
 * query. Port records of the other sources carry the last answer
 * (annotate()); a peer that changed is said in a note. A lookup that
 * finds the peer ends with a PMA Get(PortCounters) of the peer's port:
 * the first is a baseline, each later one of the same peer a
 * PEER_COUNTERS record of the error counters that moved since (the
 * autopsy's evidence of the far end, read when the port is back: while
 * it is down, nothing can be asked through it).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "dl_jsonc.h"
#include "dl_umad.h"
#include "fields.h"
#include "host.h"
#include "ports.h"
#include "sm.h"
#include "source.h"
#include "sysfs.h"

enum { C_QUEUE, C_TIMER };

#define TRIES	       4
#define REFRESH_S      60
#define RESP_TIME      19 /* 4.096 us * 2^19: about 2 s for the SA */
#define UNSUBSCRIBE_MS 500

struct sm_port {
	struct sm *sm;
	char ca[UMAD_CA_NAME_LEN];
	int portnum;
	uint64_t node_guid; /* host order */
	uint64_t port_guid_be;
	int fd;
	int issm_fd; /* the port's IsSM capability, held; -1 when not */
	int agent, smi_agent, dr_agent, pma_agent;
	bool thread;
	pthread_t tid;
	/* Under sm->lock from here on. */
	uint16_t sm_lid;
	uint8_t sm_sl;
	bool stopping;	/* unsubscribing: the receiver ends when answered */
	uint32_t wake;	/* low TID bits of the wake Get */
	uint32_t acked; /* bit per trap: the SA said yes */
	uint32_t pending[IBVE_SM_NTRAPS]; /* low TID bits of a Set; 0 none */
	unsigned int tries[IBVE_SM_NTRAPS];
	struct timespec due[IBVE_SM_NTRAPS];
	struct ibve_sm_seen seen;
	bool dead;	/* its receiver ended on an error ... */
	int dead_errno; /* ... this one */
	bool dead_said; /* and the loop has said so (loop's thread only) */
	/* The peer lookup, under lock: the Get under way (low TID bits; 0
	 * none), LinkRecord first, then NodeRecord of its ToLID, then the
	 * PortCounters of its port. */
	uint32_t peer_tid;
	enum { STEP_LINK, STEP_NODE, STEP_PMA } peer_step;
	bool peer_asked; /* due at peer_due, not sent yet */
	unsigned int peer_tries;
	struct timespec peer_due;
	struct ibve_sm_mad peer_link;
	struct ibve_peer peer, known;
	char peer_said[64]; /* the last reason for none said in a note */
	/* The peer's counters last read, and of which peer port; a PMA that
	 * failed is said once, until it answers. */
	bool pc_known, pc_said;
	uint64_t pc_guid;
	uint32_t pc_port;
	uint32_t pc[IBVE_PMA_NCOUNTERS];
	struct timespec pc_at;
};

/* A PEER_COUNTERS record's fields, in the per-source area. */
#define PEER_FIELD (1u << 25)
struct peer_fields {
	uint64_t sample_us; /* since the sample before */
	char peer[72];	    /* as ibve_peer_format() says it */
	uint8_t n;
	struct {
		uint32_t delta;
		uint8_t counter; /* of ibve_pma_names */
	} moved[IBVE_PMA_NCOUNTERS];
};
_Static_assert(sizeof(struct peer_fields) <= IBVE_EVENT_AREA, "area");
#define PF(ev) ((struct peer_fields *)(ev)->area)

struct sm {
	struct ibve_host h;
	bool required;
	struct ibve_names names; /* the CAs asked for; none: all */
	pthread_mutex_t lock;
	pthread_cond_t answered;
	int evfd, timer_fd;
	bool issm; /* IBVEVENT_SM_ISSM=1: claim IsSM, answer SMInfo (ibsim) */
	struct sm_port **ports; /* each its own: a receiver thread holds it */
	size_t nports;
	uint32_t next_tid;
	unsigned int refresh_s; /* the option, or REFRESH_S */
	struct timespec refresh_due;
	/* Records and notes from the threads, under lock. */
	struct ibve_event *q;
	size_t qlen, qcap;
	char **notes;
	size_t nnotes;
};

static void wake(struct sm *sm)
{
	eventfd_write(sm->evfd, 1); /* fails when full: the loop is awake */
}

__attribute__((format(printf, 2, 3))) static void
note_locked(struct sm *sm, const char *fmt, ...)
{
	va_list ap;
	bool added;

	va_start(ap, fmt);
	added = ibve_notes_addv(&sm->notes, &sm->nnotes, fmt, ap);
	va_end(ap);
	if (added)
		wake(sm);
}

static void queue_locked(struct sm *sm, const struct ibve_event *ev)
{
	if (sm->qlen == sm->qcap) {
		size_t cap = sm->qcap ? sm->qcap * 2 : 16;
		struct ibve_event *q = realloc(sm->q, cap * sizeof(*q));

		if (!q)
			return;
		sm->q = q;
		sm->qcap = cap;
	}
	sm->q[sm->qlen++] = *ev;
	wake(sm);
}

/* Send the Set for trap index T of P (subscribe or not). Under lock. */
static void send_set(struct sm_port *p, int t)
{
	struct sm *sm = p->sm;
	uint8_t buf[sizeof(struct ib_user_mad) + IBVE_MAD_SIZE] = { 0 };
	uint32_t tid = ++sm->next_tid ? sm->next_tid : ++sm->next_tid;
	long wait = (long)IBVE_SA_TRY_MS << p->tries[t];

	ibve_sm_inform_encode(umad_get_mad(buf), tid,
			      (uint16_t)(IBVE_SM_TRAP_FIRST + t), !p->stopping,
			      RESP_TIME);
	umad_set_addr(buf, p->sm_lid, 1, p->sm_sl, IBVE_SA_QKEY);
	p->pending[t] = tid;
	clock_gettime(CLOCK_MONOTONIC, &p->due[t]);
	ibve_ts_add_ms(&p->due[t], wait);
	/* No SM known yet, or a failed send: the timer tries again. */
	if (p->sm_lid)
		umad_send(p->fd, p->agent, buf, IBVE_MAD_SIZE, (int)wait, 0);
}

/* Read P's port again (the SM may have moved) and send every Set. */
static void subscribe_all(struct sm_port *p)
{
	umad_port_t up;

	if (umad_get_port(p->ca, p->portnum, &up) == 0) {
		p->sm_lid = (uint16_t)up.sm_lid;
		p->sm_sl = (uint8_t)up.sm_sl;
		umad_release_port(&up);
	}
	for (int t = 0; t < IBVE_SM_NTRAPS; t++) {
		p->tries[t] = 0;
		send_set(p, t);
	}
}

/* The lookup's end: NEXT is P's peer now. Under lock. */
static void peer_set(struct sm_port *p, const struct ibve_peer *next)
{
	char now[160], was[160];

	p->peer_tid = 0;
	ibve_peer_format(&p->known, was, sizeof(was));
	if (ibve_peer_take(&p->known, &p->peer, next)) {
		ibve_peer_format(&p->peer, now, sizeof(now));
		note_locked(p->sm, "%s port %d: peer %s, was %s", p->ca,
			    p->portnum, now, was);
	}
	if (next->state == IBVE_PEER_KNOWN) {
		p->peer_said[0] = '\0';
	} else if (strcmp(p->peer_said, next->reason) != 0) {
		/* said once, until a lookup finds one or another reason */
		ibve_strcpy(p->peer_said, next->reason, sizeof(p->peer_said));
		note_locked(p->sm, "%s port %d: no peer known: %s", p->ca,
			    p->portnum, next->reason);
	}
}

/* Send the Get of the peer lookup's step (our port read again first).
 * Under lock. */
static void peer_send(struct sm_port *p)
{
	struct sm *sm = p->sm;
	uint8_t buf[sizeof(struct ib_user_mad) + IBVE_MAD_SIZE] = { 0 };
	uint32_t tid = ++sm->next_tid ? sm->next_tid : ++sm->next_tid;
	long wait = (long)IBVE_SA_TRY_MS << p->peer_tries;
	const char *none = NULL;
	struct ibve_peer next;
	umad_port_t up;

	if (p->peer_step == STEP_PMA) {
		ibve_sm_pma_encode(umad_get_mad(buf), tid,
				   p->peer_link.to_port);
	} else if (p->peer_step == STEP_NODE) {
		ibve_sm_node_encode(umad_get_mad(buf), tid,
				    p->peer_link.to_lid);
	} else if (umad_get_port(p->ca, p->portnum, &up) == 0) {
		p->sm_lid = (uint16_t)up.sm_lid;
		p->sm_sl = (uint8_t)up.sm_sl;
		if (up.state != 4 || !p->sm_lid) /* 4: IB_PORT_ACTIVE */
			none = up.state != 4 ? "port not active" : "no SM";
		ibve_sm_link_encode(umad_get_mad(buf), tid,
				    (uint16_t)up.base_lid, (uint8_t)p->portnum);
		umad_release_port(&up);
	} else {
		none = "cannot read the port";
	}
	p->peer_asked = false;
	if (none) {
		peer_set(p, ibve_sm_peer_none(&next, none));
		return;
	}
	p->peer_tid = tid;
	clock_gettime(CLOCK_MONOTONIC, &p->peer_due);
	ibve_ts_add_ms(&p->peer_due, wait);
	/* the SA's Gets to the SM, the PMA's to the peer (its QP1) */
	if (p->peer_step == STEP_PMA)
		umad_set_addr(buf, p->peer_link.to_lid, 1, 0, IBVE_SA_QKEY);
	else
		umad_set_addr(buf, p->sm_lid, 1, p->sm_sl, IBVE_SA_QKEY);
	umad_send(p->fd, p->peer_step == STEP_PMA ? p->pma_agent : p->agent,
		  buf, IBVE_MAD_SIZE, (int)wait, 0);
}

/* The peer's PMA failed, for WHY: said once, until it answers. The lookup
 * ends: the peer stays as found. Under lock. */
static void pma_failed(struct sm_port *p, const char *why)
{
	p->peer_tid = 0;
	if (!p->pc_said)
		note_locked(p->sm,
			    "%s port %d: the PMA of the peer at LID %u: %s",
			    p->ca, p->portnum, p->peer_link.to_lid, why);
	p->pc_said = true;
}

/* A lookup of P's peer is due now (sent by the next tick). Under lock. */
static void peer_ask(struct sm_port *p)
{
	p->peer_asked = true;
	p->peer_tid = 0;
	p->peer_step = STEP_LINK;
	p->peer_tries = 0;
	clock_gettime(CLOCK_MONOTONIC, &p->peer_due);
}

/* The peer's counters D: a record of those that moved since the last
 * sample of the same peer port, none for the first. Under lock. */
static void pma_answer(struct sm_port *p, const struct ibve_sm_mad *d)
{
	bool same = p->pc_known && p->pc_guid == p->peer.guid &&
		    p->pc_port == p->peer.port;
	struct ibve_event ev = { 0 };
	struct peer_fields *f = PF(&ev);
	struct timespec now;
	char st[96];

	p->peer_tid = 0;
	if (!d->status && d->pma_port != p->peer.port)
		return; /* not what was asked: no reading */
	if (d->status) {
		pma_failed(p, ibve_sm_status_str(d->status, st, sizeof(st)));
		return;
	}
	p->pc_said = false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (same) {
		clock_gettime(CLOCK_REALTIME, &ev.time);
		ibve_strcpy(ev.device, p->ca, sizeof(ev.device));
		ev.node_guid = p->node_guid;
		ev.port = (uint32_t)p->portnum;
		ibve_event_set_code(&ev, IBVE_SOURCE_SM, IBVE_SM_PEER_COUNTERS);
		ev.fields = PEER_FIELD;
		f->sample_us = (uint64_t)(ibve_ts_secs(&p->pc_at, &now) * 1e6);
		ibve_peer_format(&p->peer, f->peer, sizeof(f->peer));
		/* counters saturate: one lower was cleared, and moved by
		 * what it says now */
		for (uint8_t i = 0; i < IBVE_PMA_NCOUNTERS; i++)
			if (d->pma[i] != p->pc[i] && d->pma[i]) {
				f->moved[f->n].counter = i;
				f->moved[f->n++].delta =
					d->pma[i] > p->pc[i]
						? d->pma[i] - p->pc[i]
						: d->pma[i];
			}
		queue_locked(p->sm, &ev);
	}
	p->pc_known = true;
	p->pc_guid = p->peer.guid;
	p->pc_port = p->peer.port;
	p->pc_at = now;
	memcpy(p->pc, d->pma, sizeof(p->pc));
}

/* An answer to the lookup's Get. Under lock. */
static void peer_answer(struct sm_port *p, const struct ibve_sm_mad *d)
{
	static const enum ibve_sm_mad_type want[] = {
		[STEP_LINK] = IBVE_SM_MAD_LINK_RESP,
		[STEP_NODE] = IBVE_SM_MAD_NODE_RESP,
		[STEP_PMA] = IBVE_SM_MAD_PMA_RESP,
	};
	struct ibve_peer next;
	char st[96];

	if (!p->peer_tid || p->peer_tid != (uint32_t)d->tid ||
	    d->what != want[p->peer_step])
		return;
	if (p->peer_step == STEP_PMA) {
		pma_answer(p, d);
	} else if (d->status) {
		ibve_sm_status_str(d->status, st, sizeof(st));
		peer_set(p, ibve_sm_peer_none(&next, st));
	} else if (p->peer_step == STEP_LINK) {
		p->peer_link = *d;
		p->peer_step = STEP_NODE;
		p->peer_tries = 0;
		peer_send(p);
	} else {
		ibve_sm_peer_from(&next, &p->peer_link, d);
		peer_set(p, &next);
		if (p->pma_agent >= 0 && p->peer.state == IBVE_PEER_KNOWN) {
			p->peer_step = STEP_PMA;
			p->peer_tries = 0;
			peer_send(p);
		}
	}
}

static void handle(struct sm_port *p, uint8_t *buf, int len)
{
	struct sm *sm = p->sm;
	uint8_t *mad = umad_get_mad(buf);
	ib_mad_addr_t *a = umad_get_mad_addr(buf);
	struct ibve_sm_mad d;
	struct ibve_event ev;
	struct timespec now;
	char st[96];
	bool dr;
	int t;

	if (umad_status(buf) || !ibve_sm_mad_decode(mad, (size_t)len, &d))
		return; /* a Set the kernel gave up on: the timer resends */
	switch (d.what) {
	case IBVE_SM_MAD_SMP_GET:
		if (p->smi_agent < 0)
			return;
		dr = mad[IBVE_MAD_OFF_CLASS] == IBVE_MAD_CLASS_SMI_DR;
		ibve_sm_smp_answer(mad, p->port_guid_be);
		umad_set_addr(buf, dr ? 0xffff : be16toh(a->lid), 0, 0, 0);
		umad_send(p->fd, dr ? p->dr_agent : p->smi_agent, buf,
			  IBVE_MAD_SIZE, 0, 0);
		return;
	case IBVE_SM_MAD_REPORT:
		/* Answer first: the SA resends until it hears back. */
		ibve_sm_report_resp(mad);
		umad_set_addr(buf, be16toh(a->lid), (int)be32toh(a->qpn), a->sl,
			      IBVE_SA_QKEY);
		umad_send(p->fd, p->agent, buf, IBVE_MAD_SIZE, 0, 0);
		if (d.trap < IBVE_SM_TRAP_FIRST || d.trap > IBVE_SM_TRAP_LAST)
			return;
		pthread_mutex_lock(&sm->lock);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!ibve_sm_seen_before(&p->seen, &d, &now)) {
			ibve_sm_event_from_report(&ev, &d, p->ca, p->node_guid,
						  (uint32_t)p->portnum);
			queue_locked(sm, &ev);
		}
		pthread_mutex_unlock(&sm->lock);
		return;
	case IBVE_SM_MAD_INFORM_RESP:
		t = d.trap - IBVE_SM_TRAP_FIRST;
		if (t < 0 || t >= IBVE_SM_NTRAPS)
			return;
		pthread_mutex_lock(&sm->lock);
		/* The kernel owns the upper 32 bits of the TID. */
		if (p->pending[t] && p->pending[t] == (uint32_t)d.tid) {
			p->pending[t] = 0;
			if (!d.status && d.subscribe)
				p->acked |= 1u << t;
			else
				p->acked &= ~(1u << t);
			/* when leaving, a refusal is nothing to do about */
			if (d.status && !p->stopping)
				note_locked(sm,
					    "%s port %d: the SA refused the "
					    "subscription to trap %u: %s",
					    p->ca, p->portnum, d.trap,
					    ibve_sm_status_str(d.status, st,
							       sizeof(st)));
			pthread_cond_broadcast(&sm->answered);
		}
		pthread_mutex_unlock(&sm->lock);
		return;
	case IBVE_SM_MAD_LINK_RESP:
	case IBVE_SM_MAD_NODE_RESP:
	case IBVE_SM_MAD_PMA_RESP:
		pthread_mutex_lock(&sm->lock);
		peer_answer(p, &d);
		pthread_mutex_unlock(&sm->lock);
		return;
	case IBVE_SM_MAD_OTHER:
		return;
	}
}

/*
 * A stopping port's receiver ends once every unsubscribe and the wake Get
 * are answered (a send that timed out comes back with its status), so
 * that nothing it asked for arrives after it. Under lock.
 */
static bool stopped(struct sm_port *p, uint8_t *buf)
{
	uint32_t tid = 0; /* the low 32 bits: the kernel owns the rest */
	bool pending = false;

	if (buf) {
		memcpy(&tid,
		       (uint8_t *)umad_get_mad(buf) + IBVE_MAD_OFF_TID + 4,
		       sizeof(tid));
		tid = be32toh(tid);
		if (tid == p->wake)
			p->wake = 0;
	}
	for (int t = 0; t < IBVE_SM_NTRAPS; t++) {
		if (buf && umad_status(buf) && p->pending[t] == tid)
			p->pending[t] = 0;
		pending |= p->pending[t] != 0;
	}
	return !p->wake && !pending;
}

static void *receiver(void *arg)
{
	struct sm_port *p = arg;
	uint8_t buf[sizeof(struct ib_user_mad) + IBVE_MAD_SIZE];
	int old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	for (bool end = false; !end;) {
		int len = IBVE_MAD_SIZE, r;

		memset(buf, 0, sizeof(buf));
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
		r = umad_recv(p->fd, buf, &len, -1);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
		if (r >= 0)
			handle(p, buf, len);
		pthread_mutex_lock(&p->sm->lock);
		end = p->stopping && stopped(p, r >= 0 ? buf : NULL);
		if (!end && r < 0 && errno != EINTR && errno != EAGAIN &&
		    errno != ETIMEDOUT && errno != ENOSPC) {
			/* drain() says it, on the loop's thread */
			p->dead = end = true;
			p->dead_errno = errno ? errno : EIO;
			wake(p->sm);
		}
		pthread_mutex_unlock(&p->sm->lock);
	}
	return NULL;
}

/* "/dev/infiniband/umadN" of CA/PORT, for a clear permission error. */
static void umad_path(const char *ca, int port, char *path, size_t len)
{
	char f[256], v[64];

	snprintf(path, len, "/dev/infiniband/umad* of %s port %d", ca, port);
	for (int n = 0; n < 256; n++) {
		snprintf(f, sizeof(f), "/sys/class/infiniband_mad/umad%d/ibdev",
			 n);
		if (ibve_sysfs_read(f, v, sizeof(v)) < 0 || strcmp(v, ca) != 0)
			continue;
		snprintf(f, sizeof(f), "/sys/class/infiniband_mad/umad%d/port",
			 n);
		if (ibve_sysfs_read(f, v, sizeof(v)) == 0 && atoi(v) == port) {
			snprintf(path, len, "/dev/infiniband/umad%d", n);
			return;
		}
	}
}

static int open_port(struct sm_port *p, char *path, size_t pathlen)
{
	long mask[16 / sizeof(long)] = { 0 };

	errno = 0;
	p->fd = umad_open_port(p->ca, p->portnum);
	if (p->fd < 0) {
		int e = p->fd < -1 ? -p->fd : errno;

		/* libibumad says EIO for a device it could not open, leaving
		 * open()'s errno */
		if (e == EIO && errno && errno != EIO)
			e = errno;
		if (e == EACCES || e == EPERM) {
			umad_path(p->ca, p->portnum, path, pathlen);
			return -EACCES;
		}
		return -(e ? e : EIO);
	}
	mask[0] = 1L << IBVE_MAD_REPORT;
	p->agent = umad_register(p->fd, IBVE_MAD_CLASS_SA, 2, 0, mask);
	if (p->agent < 0)
		return p->agent < -1 ? p->agent : -EIO;
	/* the peer's counters: answers only (none: no PEER_COUNTERS) */
	p->pma_agent = umad_register(p->fd, IBVE_MAD_CLASS_PERF, 1, 0, NULL);
	/*
	 * Under ibsim, a subscriber must be an SM-capable port for the
	 * Reports to reach it, and the SM then asks that port about itself:
	 * answer as an SM that is not active, so the real SM's sweep never
	 * waits for us. The capability is claimed (the issm device opened,
	 * as an SM does) only once the agents that answer exist: a query
	 * for a class nobody registered crashes ibsim's umad2sim.
	 */
	if (p->sm->issm) {
		mask[0] = 1L << IBVE_MAD_GET;
		p->smi_agent =
			umad_register(p->fd, IBVE_MAD_CLASS_SMI, 1, 0, mask);
		p->dr_agent =
			umad_register(p->fd, IBVE_MAD_CLASS_SMI_DR, 1, 0, mask);
		if (p->smi_agent < 0 || p->dr_agent < 0)
			return -EIO;
	}
	if (pthread_create(&p->tid, NULL, receiver, p))
		return -EAGAIN;
	p->thread = true;
	if (p->sm->issm) {
		char issm[256];

		if (umad_get_issm_path(p->ca, p->portnum, issm, sizeof(issm)) <
		    0)
			return -ENODEV;
		p->issm_fd = open(issm, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (p->issm_fd < 0) {
			if (errno == EACCES || errno == EPERM) {
				ibve_strcpy(path, issm, pathlen);
				return -EACCES;
			}
			return -errno;
		}
	}
	return 0;
}

static void arm(struct sm *sm)
{
	struct timespec next = sm->refresh_due;
	struct itimerspec its = { 0 };

	for (size_t i = 0; i < sm->nports; i++) {
		const struct sm_port *p = sm->ports[i];

		for (int t = 0; t < IBVE_SM_NTRAPS; t++)
			if (p->pending[t] && ibve_ts_before(&p->due[t], &next))
				next = p->due[t];
		if ((p->peer_tid || p->peer_asked) &&
		    ibve_ts_before(&p->peer_due, &next))
			next = p->peer_due;
	}
	its.it_value = next;
	if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;
	timerfd_settime(sm->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static int sm_open(struct sm *sm)
{
	char names[32][UMAD_CA_NAME_LEN], path[128] = "";
	int n, r = ibve_dl_load(&ibve_umad_dl);

	if (r)
		return r;
	sm->next_tid = (uint32_t)getpid() << 12;
	sm->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	sm->timer_fd =
		timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sm->evfd < 0 || sm->timer_fd < 0)
		return ibve_error(errno,
				  "cannot subscribe to subnet events: %s",
				  strerror(errno));
	if ((r = sm->h.watch(sm->h.ctx, sm->evfd, sm, C_QUEUE)) ||
	    (r = sm->h.watch(sm->h.ctx, sm->timer_fd, sm, C_TIMER)))
		return ibve_error(r, "cannot subscribe to subnet events: %s",
				  strerror(-r));
	if (umad_init() < 0)
		return ibve_error(ENOSYS, "no InfiniBand management devices "
					  "(is ib_umad loaded?)");
	n = umad_get_cas_names(names, 32);
	for (int c = 0; c < n; c++) {
		umad_ca_t ca;

		if (!ibve_names_want(&sm->names, &sm->h, names[c]))
			continue;
		if (umad_get_ca(names[c], &ca) < 0)
			continue;
		for (int i = 1; i <= ca.numports && i < UMAD_CA_MAX_PORTS;
		     i++) {
			umad_port_t *up = ca.ports[i];
			struct sm_port *v, **vv;

			if (!up)
				continue;
			if (strcmp(up->link_layer, "InfiniBand") != 0 &&
			    strcmp(up->link_layer, "IB") != 0) {
				ibve_host_note(
					&sm->h, IBVE_NOTE,
					"%s port %d: link layer %s has no "
					"subnet manager: no subnet events there",
					names[c], i, up->link_layer);
				continue;
			}
			vv = realloc(sm->ports, (sm->nports + 1) * sizeof(*vv));
			if (vv)
				sm->ports = vv;
			if (!vv || !(v = calloc(1, sizeof(*v)))) {
				umad_release_ca(&ca);
				return ibve_error(ENOMEM, "out of memory");
			}
			sm->ports[sm->nports++] = v;
			v->sm = sm;
			v->fd = v->issm_fd = v->agent = v->smi_agent =
				v->dr_agent = v->pma_agent = -1;
			v->portnum = i;
			v->node_guid = be64toh(ca.node_guid);
			v->port_guid_be = up->port_guid;
			ibve_strcpy(v->ca, names[c], sizeof(v->ca));
			r = open_port(v, path, sizeof(path));
			if (r == -EACCES)
				r = ibve_error(EACCES,
					       "cannot open %s: %s (subnet "
					       "events need read-write access "
					       "to it: root by default)",
					       path, strerror(EACCES));
			else if (r == -EOPNOTSUPP) /* no umad ABI: no ib_umad */
				r = ibve_error(ENOSYS,
					       "cannot open the management "
					       "device of %s port %d: %s "
					       "(is ib_umad loaded?)",
					       names[c], i, strerror(-r));
			else if (r)
				r = ibve_error(r,
					       "cannot subscribe to subnet "
					       "events on %s port %d: %s",
					       names[c], i, strerror(-r));
			if (r) {
				umad_release_ca(&ca);
				return r;
			}
		}
		umad_release_ca(&ca);
	}
	pthread_mutex_lock(&sm->lock);
	for (size_t i = 0; i < sm->nports; i++) {
		subscribe_all(sm->ports[i]);
		peer_ask(sm->ports[i]);
	}
	clock_gettime(CLOCK_MONOTONIC, &sm->refresh_due);
	sm->refresh_due.tv_sec += sm->refresh_s;
	arm(sm);
	pthread_mutex_unlock(&sm->lock);
	return 0;
}

static int create(void **out, const struct ibve_source_opts *o,
		  const struct ibve_host *h)
{
	struct sm *sm = calloc(1, sizeof(*sm));
	const char *issm = getenv("IBVEVENT_SM_ISSM");

	*out = sm;
	if (!sm)
		return ibve_error(ENOMEM, "out of memory");
	sm->h = *h;
	sm->evfd = sm->timer_fd = -1;
	pthread_mutex_init(&sm->lock, NULL);
	pthread_cond_init(&sm->answered, NULL);
	sm->issm = issm && strcmp(issm, "1") == 0;
	sm->required = o->flags & IBVE_SRC_REQUIRED;
	sm->refresh_s = o->refresh ? o->refresh
		       : ibve_env_seconds("IBVEVENT_SM_REFRESH") ?: REFRESH_S;
	return ibve_names_copy(&sm->names, o);
}

/*
 * The threads made here, ours and those of libibumad's stand-ins (ibsim's
 * umad2sim starts one when first called), must take no signal: a SIGTERM
 * they did not block would end the process before the caller's loop saw
 * it.
 */
static int start(void *arg)
{
	struct sm *sm = arg;
	sigset_t all, old;
	int r;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = sm_open(sm);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

static int check(void *arg)
{
	struct sm *sm = arg;

	if (sm->required && !sm->nports)
		return ibve_error(ENOTSUP,
				  "no InfiniBand port to subscribe on");
	return 0;
}

static int empty(const void *arg)
{
	const struct sm *sm = arg;

	return sm->nports ? 0
			  : ibve_error(ENODEV,
				       "no InfiniBand port to subscribe on");
}

/*
 * Each receiver ends once its stopping port has the answers to its
 * unsubscribes, or to a Get(ClassPortInfo) sent to wake it (or the
 * kernel's timeouts for them). Cancelling a thread inside
 * umad_recv() would leave the locks of libibumad's stand-ins held; it is
 * done only for a receiver that did not end by UNTIL. False: cancelled.
 */
static bool stop_thread(struct sm_port *p, const struct timespec *until)
{
	bool ended = !p->thread || !pthread_timedjoin_np(p->tid, NULL, until);

	if (!ended) {
		pthread_cancel(p->tid);
		pthread_join(p->tid, NULL);
	}
	p->thread = false;
	return ended;
}

/* A request the SA answers at once, without a trace: wakes a receiver. */
static void send_wake(struct sm_port *p)
{
	uint8_t buf[sizeof(struct ib_user_mad) + IBVE_MAD_SIZE] = { 0 };
	uint32_t tid = ++p->sm->next_tid ? p->sm->next_tid : ++p->sm->next_tid;

	ibve_sm_get_encode(umad_get_mad(buf), tid,
			   IBVE_MAD_ATTR_CLASS_PORT_INFO);
	umad_set_addr(buf, p->sm_lid, 1, p->sm_sl, IBVE_SA_QKEY);
	p->wake = tid;
	umad_send(p->fd, p->agent, buf, IBVE_MAD_SIZE, UNSUBSCRIBE_MS / 2, 0);
}

/*
 * What came for port P after its receiver ended (a Report the SA sent as
 * we unsubscribed) is read before the port closes: the kernel would drop
 * it, but ibsim's umad2sim frees a closed port's queue under its own
 * receiver thread (test/tsan.supp), and that queue must be empty then.
 */
static void drain_port(struct sm_port *p)
{
	uint8_t buf[sizeof(struct ib_user_mad) + IBVE_MAD_SIZE];

	for (int n = 0; n < 64; n++) {
		int len = IBVE_MAD_SIZE;

		if (umad_recv(p->fd, buf, &len, 0) < 0)
			break;
	}
}

static void destroy(void *arg)
{
	struct sm *sm = arg;
	struct timespec until;
	bool waiting;

	/*
	 * Unsubscribe what the SA took or may have taken (a Set it has not
	 * answered, or whose answer is not read yet), waiting a little for
	 * its answers. The SA handles a port's MADs in order: a Set still on
	 * its way is taken back by the one that follows it.
	 */
	pthread_mutex_lock(&sm->lock);
	for (size_t i = 0; i < sm->nports; i++) {
		struct sm_port *p = sm->ports[i];
		bool sent = false;

		p->stopping = true;
		for (int t = 0; t < IBVE_SM_NTRAPS; t++) {
			bool taken = p->acked & 1u << t || p->pending[t];

			p->pending[t] = 0;
			if (p->thread && !p->dead && taken) {
				p->tries[t] = 0;
				send_set(p, t);
				sent = true;
			}
		}
		if (p->thread && !p->dead && !sent)
			send_wake(p);
	}
	clock_gettime(CLOCK_REALTIME, &until);
	ibve_ts_add_ms(&until, UNSUBSCRIBE_MS);
	do {
		waiting = false;
		for (size_t i = 0; i < sm->nports; i++)
			for (int t = 0; t < IBVE_SM_NTRAPS; t++)
				waiting |= sm->ports[i]->pending[t] != 0;
	} while (waiting &&
		 pthread_cond_timedwait(&sm->answered, &sm->lock, &until) == 0);
	pthread_mutex_unlock(&sm->lock);

	ibve_ts_add_ms(&until, UNSUBSCRIBE_MS);
	for (size_t i = 0; i < sm->nports; i++) {
		struct sm_port *p = sm->ports[i];
		bool ended = stop_thread(p, &until);

		if (p->issm_fd >= 0)
			close(p->issm_fd);
		if (p->fd >= 0) {
			/* not after a cancel: umad2sim's lock may be held */
			if (ended)
				drain_port(p);
			if (p->agent >= 0)
				umad_unregister(p->fd, p->agent);
			if (p->smi_agent >= 0)
				umad_unregister(p->fd, p->smi_agent);
			if (p->dr_agent >= 0)
				umad_unregister(p->fd, p->dr_agent);
			if (p->pma_agent >= 0)
				umad_unregister(p->fd, p->pma_agent);
			umad_close_port(p->fd);
		}
		free(p);
	}
	for (size_t i = 0; i < sm->nnotes; i++)
		free(sm->notes[i]);
	free(sm->notes);
	free(sm->q);
	free(sm->ports);
	if (sm->evfd >= 0)
		close(sm->evfd);
	if (sm->timer_fd >= 0)
		close(sm->timer_fd);
	pthread_cond_destroy(&sm->answered);
	pthread_mutex_destroy(&sm->lock);
	free(sm->names.v);
	free(sm);
}

/*
 * Records and notes the threads queued: to the pipeline. A port whose
 * receiver died gives no more subnet events: when they were asked for
 * (--sm), the run ends with that reason; else it is a note and the other
 * ports go on.
 */
static void drain(struct sm *sm)
{
	eventfd_t v;

	pthread_mutex_lock(&sm->lock);
	for (size_t i = 0; i < sm->nnotes; i++) {
		ibve_host_note(&sm->h, IBVE_NOTE, "%s", sm->notes[i]);
		free(sm->notes[i]);
	}
	sm->nnotes = 0;
	for (size_t i = 0; i < sm->qlen; i++) {
		struct ibve_event *ev = sm->h.emit(sm->h.ctx);

		if (ev)
			*ev = sm->q[i];
	}
	sm->qlen = 0;
	for (size_t i = 0; i < sm->nports; i++) {
		struct sm_port *p = sm->ports[i];
		char why[256];

		if (!p->dead || p->dead_said)
			continue;
		p->dead_said = true;
		snprintf(
			why, sizeof(why),
			"%s port %d: subnet events stopped: cannot receive: %s",
			p->ca, p->portnum, strerror(p->dead_errno));
		if (sm->required)
			sm->h.fail(sm->h.ctx,
				   ibve_error(p->dead_errno, "%s", why));
		else
			ibve_host_note(&sm->h, IBVE_NOTE, "%s", why);
	}
	eventfd_read(sm->evfd, &v); /* fails when nothing was counted: fine */
	pthread_mutex_unlock(&sm->lock);
}

/* The timer fired: resend what is unanswered, refresh what is due. */
static void tick(struct sm *sm)
{
	struct timespec now;
	uint64_t v;

	if (read(sm->timer_fd, &v, sizeof(v)) < 0) {
		/* not expired yet (a spurious wake-up): look anyway */
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&sm->lock);
	if (!ibve_ts_before(&now, &sm->refresh_due)) {
		for (size_t i = 0; i < sm->nports; i++)
			if (!sm->ports[i]->dead)
				subscribe_all(sm->ports[i]);
		sm->refresh_due = now;
		sm->refresh_due.tv_sec += sm->refresh_s;
	}
	for (size_t i = 0; i < sm->nports; i++) {
		struct sm_port *p = sm->ports[i];
		struct ibve_peer none;

		for (int t = 0; t < IBVE_SM_NTRAPS; t++) {
			if (!p->pending[t] || ibve_ts_before(&now, &p->due[t]))
				continue;
			if (++p->tries[t] < TRIES) {
				send_set(p, t);
				continue;
			}
			p->pending[t] = 0;
			note_locked(sm,
				    "%s port %d: no answer from the SA at LID "
				    "%u to the subscription to trap %d after "
				    "%d tries; trying again in %u s",
				    p->ca, p->portnum, p->sm_lid,
				    IBVE_SM_TRAP_FIRST + t, TRIES,
				    sm->refresh_s);
		}
		if (p->dead || (!p->peer_tid && !p->peer_asked) ||
		    ibve_ts_before(&now, &p->peer_due))
			continue;
		if (p->peer_asked || ++p->peer_tries < TRIES) {
			peer_send(p);
		} else if (p->peer_step == STEP_PMA) {
			char why[40];

			snprintf(why, sizeof(why), "no answer after %d tries",
				 TRIES);
			pma_failed(p, why);
		} else {
			peer_set(p, ibve_sm_peer_none(
					    &none,
					    p->sm_lid ? "no answer from the SA"
						      : "no SM"));
		}
	}
	arm(sm);
	pthread_mutex_unlock(&sm->lock);
}

static bool ready(void *arg, uint32_t cookie)
{
	struct sm *sm = arg;

	if (cookie == C_QUEUE)
		drain(sm);
	else
		tick(sm);
	return false;
}

/*
 * After SM_CHANGE, CLIENT_REREGISTER, LID_CHANGE or PORT_ACTIVE of one
 * of our ports (from the devices source) the SM may have forgotten our
 * subscriptions: subscribe again now.
 */
static void observe(void *arg, const struct ibve_event *ev)
{
	struct sm *sm = arg;

	if (ev->source != IBVE_SOURCE_VERBS || !ev->desc ||
	    (strcmp(ev->name, "SM_CHANGE") != 0 &&
	     strcmp(ev->name, "CLIENT_REREGISTER") != 0 &&
	     strcmp(ev->name, "LID_CHANGE") != 0 &&
	     strcmp(ev->name, "PORT_ACTIVE") != 0))
		return;
	pthread_mutex_lock(&sm->lock);
	for (size_t i = 0; i < sm->nports; i++) {
		struct sm_port *p = sm->ports[i];

		if (!p->dead && strcmp(p->ca, ev->device) == 0 &&
		    (!ev->port || (uint32_t)p->portnum == ev->port)) {
			subscribe_all(p);
			peer_ask(p); /* sent by the next tick, after EV */
		}
	}
	arm(sm);
	pthread_mutex_unlock(&sm->lock);
}

/*
 * A port event of one of our ports carries the port's peer as last
 * looked up (unknown before the first answer); a replayed record keeps
 * its own.
 */
static void annotate(void *arg, struct ibve_event *ev)
{
	struct sm *sm = arg;

	if (ev->source != IBVE_SOURCE_VERBS || ev->cls != IBVE_CLASS_PORT ||
	    !ev->port || (ev->fields & (IBVE_FIELD_PEER | IBVE_FIELD_RATES)))
		return;
	pthread_mutex_lock(&sm->lock);
	for (size_t i = 0; i < sm->nports; i++) {
		struct sm_port *p = sm->ports[i];

		if ((uint32_t)p->portnum == ev->port &&
		    strcmp(p->ca, ev->device) == 0) {
			ev->verbs.peer = p->peer;
			ev->fields |= IBVE_FIELD_PEER;
			break;
		}
	}
	pthread_mutex_unlock(&sm->lock);
}

static size_t describe(const void *arg, char *buf, size_t size)
{
	const struct sm *sm = arg;

	return (size_t)snprintf(buf, size, "(subnet events: %zu port%s)",
				sm->nports, sm->nports == 1 ? "" : "s");
}

/* The subnet manager's traps, by their numbers. */
static const struct ibve_event_desc rows[] = {
	ROW(IBVE_SM_GID_IN_SERVICE, "GID_IN_SERVICE", PORT, false, INFO,
	    "298129dec1184429a26859de3e8000f9",
	    "a port of the subnet came into service (SM trap 64)",
	    "Informational: a port joined the subnet. After a GID_OUT_OF_SERVICE "
	    "for the same GID, that node's link came back."),
	ROW(IBVE_SM_GID_OUT_OF_SERVICE, "GID_OUT_OF_SERVICE", PORT, false,
	    WARNING, "80a653977a264372affcdd36c9c82ae2",
	    "a port of the subnet went out of service (SM trap 65)",
	    "A port left the subnet: a node went down or lost its link. Check the "
	    "node the GID (RDMA_GID) belongs to."),
	ROW(IBVE_SM_MCG_CREATED, "MCG_CREATED", PORT, false, INFO,
	    "bde8121a8c724f66a3b189e8539a7c40",
	    "a multicast group was created (SM trap 66)",
	    "Informational: a multicast group was created. Nothing to do."),
	ROW(IBVE_SM_MCG_DELETED, "MCG_DELETED", PORT, false, INFO,
	    "2d6f8e58d0ed49aba02b7eb2add15d74",
	    "a multicast group was deleted (SM trap 67)",
	    "Informational: a multicast group was deleted when its last member "
	    "left. An unexpected deletion breaks IPoIB and other users of the "
	    "group."),
	ROW(IBVE_SM_PEER_COUNTERS, "PEER_COUNTERS", PORT, false, INFO,
	    "c19203bb47044a4fa734a77492cc9dea",
	    "the error counters of the port's peer that moved since last read",
	    "The far end of the link, read through its PMA when the port came "
	    "back (or the SM or LID changed): RDMA_PEER_COUNTERS are the error "
	    "counters that moved there since the sample before. Symbol errors "
	    "or link error recovery at the peer point at the cable or the "
	    "switch port named in RDMA_PEER_NAME."),
};

/* A PEER_COUNTERS record counts as no kind of the port table's. */
static const struct ibve_kind_of kind_of[] = {
	{ IBVE_SM_PEER_COUNTERS, IBVE_KIND_OTHER },
};

/* --- its records' fields: the notice's GID, issuer and producer ---------- */

static void put_gid(struct ibve_buf *b, const uint8_t *gid)
{
	for (int i = 0; i < 16; i += 2)
		ibve_buf_printf(b, "%s%02x%02x", i ? ":" : "", gid[i],
				gid[i + 1]);
}

static void sm_json(struct ibve_json *j, const struct ibve_event *ev)
{
	char gid[40];
	struct ibve_buf g = { gid, sizeof(gid), 0 };

	/* a name of its own making, through the writer (the journal's too) */
	put_gid(&g, ev->sm.gid);
	ibve_json_name_n(j, "gid", gid, g.len);
	ibve_json_uint(j, "issuer_lid", ev->sm.issuer_lid);
	ibve_json_uint(j, "producer_type", ev->sm.producer_type);
}

static void sm_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ibve_buf_puts(b, "gid ");
	put_gid(b, ev->sm.gid);
	ibve_buf_printf(b, ", issuer lid %u", ev->sm.issuer_lid);
}

static int parse_gid(const char *s, uint8_t *gid)
{
	char hex[33];
	size_t n = 0;

	for (; *s && n < 32; s++)
		if (*s != ':')
			hex[n++] = *s;
	if (*s || n != 32)
		return -EINVAL;
	hex[n] = '\0';
	return ibve_hex_bytes(hex, gid, 16);
}

static int sm_parse(const struct ibve_jsrc *o, struct ibve_event *ev, int key,
		    char *err, size_t errlen)
{
	enum { GID, ISSUER, PRODUCER };
	const char *s;
	uint64_t u;
	int r = ibve_get_str(o, key + GID, &s, err, errlen);

	if (r <= 0)
		return r;
	if (parse_gid(s, ev->sm.gid))
		FAIL("\"gid\" is not a GID");
	ev->fields |= IBVE_FIELD_SM;
	/* absent: 0, as the parser found the record */
	if (ibve_get_uint(o, key + ISSUER, UINT16_MAX, &u, err, errlen) < 0)
		return -EINVAL;
	ev->sm.issuer_lid = (uint16_t)u;
	r = ibve_get_uint(o, key + PRODUCER, 0xffffff, &u, err, errlen);
	ev->sm.producer_type = (uint32_t)u;
	return r < 0 ? r : 0;
}

static void peer_json(struct ibve_json *j, const struct ibve_event *ev)
{
	const struct peer_fields *f = PF(ev);

	ibve_json_str(j, "peer_name", f->peer);
	ibve_json_open(j, "peer_counters");
	for (size_t i = 0; i < f->n && i < IBVE_PMA_NCOUNTERS; i++)
		ibve_json_uint(
			j,
			ibve_pma_names[f->moved[i].counter % IBVE_PMA_NCOUNTERS],
			f->moved[i].delta);
	ibve_json_close(j);
	ibve_json_uint(j, "peer_sample_us", f->sample_us);
}

static void peer_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	const struct peer_fields *f = PF(ev);

	ibve_buf_puts(b, "peer ");
	ibve_buf_text_str(b, f->peer);
	ibve_buf_puts(b, ": ");
	if (!f->n)
		ibve_buf_puts(b, "none moved");
	for (size_t i = 0; i < f->n && i < IBVE_PMA_NCOUNTERS; i++)
		ibve_buf_printf(
			b, "%s%s +%u", i ? ", " : "",
			ibve_pma_names[f->moved[i].counter % IBVE_PMA_NCOUNTERS],
			f->moved[i].delta);
	ibve_buf_printf(b, ", over %.1f s", (double)f->sample_us / 1e6);
}

static int peer_parse(const struct ibve_jsrc *o, struct ibve_event *ev, int key,
		      char *err, size_t errlen)
{
	enum { NAME, COUNTERS, SAMPLE_US };
	struct peer_fields *f = PF(ev);
	struct json_object *x;
	struct ibve_jval v;

	o->get(o, key + COUNTERS, &v);
	if (v.type == J_ABSENT || v.type == J_NULL)
		return 0;
	memset(f, 0, sizeof(*f));
	x = (struct json_object *)v.obj;
	if (v.type != J_OTHER || !x ||
	    !json_object_is_type(x, json_type_object))
		FAIL("\"peer_counters\" must be an object");
	json_object_object_foreach(x, name, d)
	{
		uint8_t i = 0;

		while (i < IBVE_PMA_NCOUNTERS &&
		       strcmp(ibve_pma_names[i], name))
			i++;
		if (i == IBVE_PMA_NCOUNTERS)
			FAIL("\"peer_counters\": \"%.64s\" is no PMA error "
			     "counter",
			     name);
		if (!json_object_is_type(d, json_type_int) ||
		    json_object_get_int64(d) < 1 ||
		    json_object_get_int64(d) > UINT32_MAX ||
		    f->n == IBVE_PMA_NCOUNTERS)
			FAIL("\"peer_counters\" holds moves: {\"NAME\": 1 or more}");
		f->moved[f->n].counter = i;
		f->moved[f->n++].delta = (uint32_t)json_object_get_int64(d);
	}
	if (ibve_get_opt_str(o, key + NAME, f->peer, sizeof(f->peer), ev,
			     PEER_FIELD, err, errlen) ||
	    ibve_get_uint(o, key + SAMPLE_US, UINT64_MAX, &f->sample_us, err,
			  errlen) < 0)
		return -EINVAL;
	ev->fields |= PEER_FIELD;
	return 0;
}

/* In the record's order, among every source's rows. */
static const struct ibve_fieldspec fields[] = {
	/* issuer_lid and producer_type mean nothing without a gid */
	{ .keys = "gid issuer_lid producer_type",
	  .order = 140,
	  .flag = IBVE_FIELD_SM,
	  .json = sm_json,
	  .text = sm_text,
	  .parse = sm_parse },
	{ .keys = "peer_name peer_counters peer_sample_us",
	  .order = 141,
	  .flag = PEER_FIELD,
	  .json = peer_json,
	  .text = peer_text,
	  .parse = peer_parse },
};

static const struct ibve_source_option options[] = {
	{ "sm", 0,
	  "also the subnet's events from the subnet manager on\nInfiniBand ports: GID in/out of service, multicast\ngroups created/deleted (needs the umad device)",
	  IBVE_SRC_REQUIRED },
};

const struct ibve_source_ops ibve_source_sm = {
	.name = "sm",
	.records = IBVE_SOURCE_SM,
	OPTIONS(options),
	.on_demand = true,
	ROWS(rows),
	FIELDS(fields),
	/* about other ports, seen from this one; the peer's counters none */
	.kind = IBVE_KIND_SUBNET,
	KINDS(kind_of),
	.names_devices = true, /* ibsim's umad devices have no verbs one */
	.rank = 1,	       /* its rows after the others */
	.order = 10,
	.create = create,
	.start = start,
	.check = check,
	.empty = empty,
	.ready = ready,
	.observe = observe,
	.annotate = annotate,
	.describe = describe,
	.destroy = destroy,
};
