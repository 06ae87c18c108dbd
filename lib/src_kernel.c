// SPDX-License-Identifier: MIT
/*
 * The "kernel" source: every process's affiliated events (QP, CQ, SRQ and
 * WQ errors), which the kernel hands only to the owning process, seen by
 * eBPF programs on the kernel's event handlers (lib/bpf/events.bpf.c,
 * embedded as a skeleton). Each record names the owner: process, name and
 * cgroup, or the kernel module for kernel consumers; a port or device
 * event of the same device shortly before is named in it too.
 *
 * Port and device events themselves stay the "devices" source's: the hook
 * on them only feeds the correlation here. Who took a port down is this
 * source's too (NETDEV_SET_DOWN, DEVICE_UNREGISTER): the process that set
 * its netdev down or removed its device, for the autopsy to name.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "buf.h"
#include "devices.h"
#include "fields.h"
#include "filter.h"
#include "kernel.h"
#include "source.h"
#include "sysfs.h"

#ifdef IBVE_HAVE_BPF
#include "dl_bpf.h"
/* after dl_bpf.h: its libbpf calls go through the table too */
#include "events.skel.h"
#endif

/* Ring buffer bytes: 22,795 events waiting before any is lost. */
#define RING_BYTES (4u << 20)
/* Losses are said at most once a second, per device, with their count. */
#define LOST_EVERY_NS 1000000000ll
/* Records read per ready() call: the loop's other fds get their turn. */
#define BATCH 64
/*
 * A port or device event this close before an object's event is named in
 * it, unless the options say otherwise.
 */
#define AFTER_WINDOW_S 5

/*
 * What a watched fd is: the ring's, or a timer's: of the next loss report
 * (when one waits), of the ring's pause (one-shot), of the next read of
 * the counts (when armed).
 */
enum { C_RING, C_LOST, C_PAUSE, C_DRAIN, C_COUNT };

/*
 * With a storm threshold, the programs send the first event of each key
 * (object, owner, event) of an interval through the ring and count the
 * key's others; its counts are read from the map at most once an AGG_NS,
 * as summary records, and each read begins a new interval (the programs'
 * epoch: they read no clock for a counted event). A key quiet for two
 * AGG_NS leaves the map, and with no key left the timer rests.
 */
#define AGG_NS 1000000000ll

/*
 * In a storm the ring is read at most once a PAUSE_NS: after a read that
 * found records, the ring's fd is not watched until a one-shot timer says
 * PAUSE_NS has passed, then read again (and again while records come).
 * Read at once, a watcher as fast as the kernel would be woken, and wake
 * its one CPU's neighbour the injector or the job, for every record; a
 * record waits at most PAUSE_NS longer. A lone record is read at once.
 */
#define PAUSE_NS 1000000

#ifdef IBVE_HAVE_BPF
/* What is kept of a device events came from. */
struct dev {
	char device[64];
	uint64_t guid;
	bool guid_read;
	uint64_t lost; /* of lost_by_device, reported */
	/* its last port or device event worth naming (ns 0: none) */
	uint64_t ns;
	uint32_t event, port;
	uint64_t up_ns; /* a PORT_ERR's port active again at; 0: not yet */
};

/* A key of the programs' counts: what of its count was delivered, when. */
struct agg {
	struct ibve_kagg_key key;
	uint64_t said;
	int64_t at; /* ns of the last delivery; 0: none */
	bool quiet; /* for two intervals: to leave the map */
};

/* cgroup v2 ids (inode numbers of its directories) and their paths. */
struct cg {
	uint64_t id;
	char *path; /* from the cgroup root, "/..." */
};
#endif

struct kernel {
	struct ibve_host h;
	unsigned int flags;
	uint64_t after_ns;	 /* how far back a cause is named */
	struct ibve_names names; /* the devices asked for, if named */
#ifdef IBVE_HAVE_BPF
	struct ibve_kbpf *skel;
	struct bpf_link *links[IBVE_KHOOK_COUNT];
	struct ring_buffer *rb;
	unsigned int hooks; /* attached */
	bool kprobe;	    /* the kprobe set, not fentry */
	bool waiting;	    /* for the RDMA modules to be loaded */
	uint64_t lost_seen; /* of skel->bss->lost, reported */
	uint64_t who_lost;  /* of skel->bss->who_lost, said */
	uint32_t netns;	    /* the inode of our network namespace; 0 unknown */
	int64_t lost_said;  /* CLOCK_MONOTONIC ns of the last report */
	int fd[C_COUNT];    /* by C_*: the ring's, the timers' */
	unsigned int armed; /* the C_LOST and C_DRAIN timers set, 1u << C_* */
	bool agg;	    /* the programs count storms */
	struct agg *aggs;   /* sorted by key */
	size_t naggs;
	bool ring_watched, got;
	unsigned int batch; /* records in this ready() call */
	int64_t mono2real;  /* ns: CLOCK_REALTIME - CLOCK_MONOTONIC */
	struct dev *devs;   /* the devices seen */
	size_t ndevs;
	char cgroot[256]; /* where cgroup2 is mounted; "" none */
	struct cg *cgs;	  /* sorted by id */
	size_t ncgs;
	struct timespec cg_walked;
#endif
};

void ibve_kevent_record(struct ibve_event *ev, const struct ibve_kevent *k,
			uint64_t node_guid)
{
	ibve_utf8_copy(ev->device, k->device, sizeof(ev->device));
	ev->node_guid = node_guid;
	ibve_event_set_code(ev, IBVE_SOURCE_KERNEL, (int)k->event);
	/* the records' ports end at 65535: a larger one is none we know */
	ev->port = k->port <= UINT16_MAX ? k->port : 0;
	if (k->flags & IBVE_KF_NUM) {
		if (k->hook == IBVE_KHOOK_WQ) {
			ev->wq_num = k->num;
			ev->fields |= IBVE_FIELD_WQ_NUM;
		} else {
			ev->qp_num = k->num;
			ev->fields |= IBVE_FIELD_QP_NUM;
		}
	}
	if (k->flags & IBVE_KF_QP_TYPE) {
		ev->kernel.qp_type = k->qp_type;
		ev->fields |= IBVE_FIELD_QP_TYPE;
	}
	if (k->flags & IBVE_KF_HANDLE) {
		ev->handle = k->handle;
		ev->fields |= IBVE_FIELD_HANDLE;
	}
	if (k->flags & IBVE_KF_OWNER) {
		ev->kernel.pid = k->tgid;
		ibve_utf8_copy(ev->kernel.comm, k->comm,
			       sizeof(ev->kernel.comm));
		ev->fields |= IBVE_FIELD_OWNER;
	} else if (k->kern[0]) {
		/* the RDMA CM makes QPs for others: the PD names them */
		const char *who = k->kern;

		if (strcmp(k->kern, "rdma_cm") == 0 && k->pd_kern[0])
			who = k->pd_kern;
		ibve_utf8_copy(ev->kernel.consumer, who,
			       sizeof(ev->kernel.consumer));
		ev->fields |= IBVE_FIELD_KERNEL;
	}
}

bool ibve_kevent_from_ring(struct ibve_kevent *k, const void *data, size_t size)
{
	if (size < sizeof(*k))
		return false;
	memcpy(k, data, sizeof(*k));
	k->device[sizeof(k->device) - 1] = '\0';
	k->comm[sizeof(k->comm) - 1] = '\0';
	k->kern[sizeof(k->kern) - 1] = '\0';
	k->pd_kern[sizeof(k->pd_kern) - 1] = '\0';
	/*
	 * Every event is of a device: a record naming none is no event, nor
	 * one whose number no record's code holds (enum ib_event_type).
	 */
	return k->device[0] != '\0' && k->event <= INT32_MAX;
}

void ibve_kevent_lost(struct ibve_event *ev, const char *device,
		      uint64_t node_guid, uint64_t lost)
{
	ibve_strcpy(ev->device, device, sizeof(ev->device));
	ev->node_guid = node_guid;
	ibve_event_set_code(ev, IBVE_SOURCE_KERNEL, IBVE_KERNEL_EVENTS_LOST);
	ev->lost = lost;
	ev->fields |= IBVE_FIELD_LOST;
}

static int create(void **out, const struct ibve_source_opts *o,
		  const struct ibve_host *h)
{
	struct kernel *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return ibve_error(ENOMEM, "out of memory");
	s->h = *h;
	/* IBVEVENT_BPF_ATTACH=kprobe: kprobes, even where fentry works */
	s->flags = o->flags | (ibve_env_is("IBVEVENT_BPF_ATTACH", "kprobe")
				       ? IBVE_SRC_KPROBE
				       : 0);
	s->after_ns = (o->after_window ? o->after_window
		       : ibve_env_seconds("IBVEVENT_AFTER_WINDOW")
			       ?: AFTER_WINDOW_S) *
		      1000000000ull;
#ifdef IBVE_HAVE_BPF
	for (int c = 0; c < C_COUNT; c++)
		s->fd[c] = -1;
#endif
	return ibve_names_copy(&s->names, o);
}

#ifdef IBVE_HAVE_BPF

/* --- cgroups: ids to paths ------------------------------------------------ */

/*
 * A mountinfo field decoded in place: the kernel writes space, tab,
 * newline and backslash as octal escapes (\040, \011, \012, \134).
 */
static void unescape_octal(char *p)
{
	char *d = p;

	for (; *p; p++, d++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' &&
		    p[2] <= '7' && p[3] >= '0' && p[3] <= '7') {
			*d = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 |
				    (p[3] - '0'));
			p += 3;
		} else {
			*d = *p;
		}
	}
	*d = '\0';
}

/* The cgroup v2 mount point, from mountinfo; "" when there is none. */
static void find_cgroot(struct kernel *s)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char mnt[256];
		const char *sep = strstr(line, " - ");

		/* id parent major:minor root mount-point ... - type ... */
		if (!sep || strncmp(sep, " - cgroup2 ", 11) != 0 ||
		    sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1)
			continue;
		unescape_octal(mnt);
		ibve_strcpy(s->cgroot, mnt, sizeof(s->cgroot));
		break;
	}
	fclose(f);
}

/* nftw() takes no argument: the walk in progress (of this thread). */
static __thread struct {
	struct cg *v;
	size_t n, cap;
	size_t root;
	bool failed;
} walk;

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	struct cg *v = walk.v;

	(void)ftw;
	if (type != FTW_D)
		return 0;
	if (walk.n == walk.cap) {
		walk.cap = walk.cap ? walk.cap * 2 : 64;
		v = realloc(walk.v, walk.cap * sizeof(*v));
	}
	if (v)
		walk.v = v;
	path += walk.root;
	if (!v || !(v[walk.n].path = strdup(*path ? path : "/"))) {
		walk.failed = true;
		return 1;
	}
	v[walk.n++].id = st->st_ino;
	return 0;
}

static int cg_cmp(const void *a, const void *b)
{
	const struct cg *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void cg_free(struct cg *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* Find and read the cgroup tree again (at most ten times a second). */
static void cg_walk(struct kernel *s)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (s->cg_walked.tv_sec && ibve_ts_secs(&s->cg_walked, &now) < 0.1)
		return;
	s->cg_walked = now;
	if (!s->cgroot[0])
		find_cgroot(s);
	if (!s->cgroot[0])
		return;
	memset(&walk, 0, sizeof(walk));
	walk.root = strlen(s->cgroot);
	nftw(s->cgroot, walk_one, 16, FTW_PHYS | FTW_MOUNT);
	if (walk.failed) {
		cg_free(walk.v, walk.n);
		return;
	}
	qsort(walk.v, walk.n, sizeof(*walk.v), cg_cmp);
	cg_free(s->cgs, s->ncgs);
	s->cgs = walk.v;
	s->ncgs = walk.n;
}

static const char *cg_find(const struct kernel *s, uint64_t id)
{
	struct cg key = { id, NULL };
	const struct cg *c =
		s->ncgs ? bsearch(&key, s->cgs, s->ncgs, sizeof(key), cg_cmp)
			: NULL;

	return c ? c->path : NULL;
}

static void cgroup_path(struct kernel *s, uint64_t id, char *out, size_t size)
{
	const char *p;

	if (!id)
		return;
	p = cg_find(s, id);
	if (!p) { /* a cgroup made since the last walk */
		cg_walk(s);
		p = cg_find(s, id);
	}
	if (p)
		ibve_strcpy(out, p, size);
}

/* --- records -------------------------------------------------------------- */

/*
 * What is known of DEVICE, made when new; NULL: no memory. GUID: its node
 * GUID is wanted, and read once (not in a storm).
 */
static struct dev *device_of(struct kernel *s, const char *device, bool guid)
{
	struct dev *v = NULL;

	for (size_t i = 0; i < s->ndevs && !v; i++)
		if (strcmp(s->devs[i].device, device) == 0)
			v = &s->devs[i];
	if (!v) {
		v = realloc(s->devs, (s->ndevs + 1) * sizeof(*v));
		if (!v)
			return NULL;
		s->devs = v;
		v = &s->devs[s->ndevs++];
		memset(v, 0, sizeof(*v));
		ibve_strcpy(v->device, device, sizeof(v->device));
	}
	if (guid && !v->guid_read) {
		v->guid = ibve_sysfs_node_guid(device);
		v->guid_read = true;
	}
	return v;
}

/* A port or device event: remembered, to be named in what follows. */
static void port_event(struct kernel *s, const struct ibve_kevent *k)
{
	const struct ibve_event_desc *d =
		ibve_event_desc_find(IBVE_SOURCE_VERBS, (int)k->event);
	struct dev *c = device_of(s, k->device, false);

	if (!c)
		return; /* only the link to the cause is lost */
	/* the port of a PORT_ERR back: its victims after that are told so */
	if (k->event == IBV_EVENT_PORT_ACTIVE && c->ns &&
	    c->event == IBV_EVENT_PORT_ERR && c->port == k->port && !c->up_ns)
		c->up_ns = k->ns;
	if (!d || d->severity < IBVE_SEVERITY_WARNING)
		return;
	c->ns = k->ns;
	c->event = k->event;
	c->port = d->cls == IBVE_CLASS_PORT ? k->port : 0;
	c->up_ns = 0;
}

/* The port or device event of C shortly before K, named in EV. */
static void after(const struct kernel *s, const struct dev *c,
		  const struct ibve_kevent *k, struct ibve_event *ev)
{
	const struct ibve_event_desc *d;

	if (!c || !c->ns || k->ns < c->ns || k->ns - c->ns > s->after_ns)
		return;
	d = ibve_event_desc_find(IBVE_SOURCE_VERBS, (int)c->event);
	ibve_strcpy(ev->kernel.after, d->name, sizeof(ev->kernel.after));
	ev->kernel.after_port = c->port;
	ev->kernel.after_us = (k->ns - c->ns) / 1000;
	ev->kernel.recovered = c->up_ns && c->up_ns <= k->ns;
	ev->kernel.recovered_us =
		ev->kernel.recovered ? (c->up_ns - c->ns) / 1000 : 0;
	ev->fields |= IBVE_FIELD_AFTER;
}

/* K's record, of its time MONO (ns, monotonic); NULL: not wanted, no room. */
static struct ibve_event *record(struct kernel *s, const struct ibve_kevent *k,
				 int64_t mono)
{
	int64_t ns = mono + s->mono2real;
	struct ibve_event *ev;
	struct dev *g;

	if (!ibve_names_want(&s->names, &s->h, k->device))
		return NULL;
	ev = s->h.emit(s->h.ctx);
	if (!ev)
		return NULL;
	g = device_of(s, k->device, true);
	ibve_kevent_record(ev, k,
			   g ? g->guid : ibve_sysfs_node_guid(k->device));
	ev->time.tv_sec = ns / 1000000000;
	ev->time.tv_nsec = ns % 1000000000;
	if (ev->fields & IBVE_FIELD_OWNER)
		cgroup_path(s, k->cgroup, ev->kernel.cgroup,
			    sizeof(ev->kernel.cgroup));
	if (1u << k->hook & IBVE_KHOOKS_EVENTS)
		after(s, g, k, ev);
	return ev;
}

/*
 * Who did what K says: removed its device, or set its netdev down, then a
 * record for each RDMA port whose netdev it is (GID 0's, a RoCE port's
 * default GID; an InfiniBand port has none), the netdev named. The name
 * is the netdev's in its own network namespace: one of another namespace
 * is none of ours, whatever its name.
 */
static void who(struct kernel *s, const struct ibve_kevent *k)
{
	struct ibve_kevent d = *k;
	struct dirent *e;
	DIR *dir;

	if (k->hook != IBVE_KHOOK_SETDOWN &&
	    k->hook != IBVE_KHOOK_SETDOWN_NETIF) {
		d.event = IBVE_KERNEL_DEVICE_UNREGISTER;
		record(s, &d, (int64_t)k->ns);
		return;
	}
	if ((s->netns && k->netns && k->netns != s->netns) ||
	    !(dir = opendir(IBVE_SYSFS)))
		return;
	d.event = IBVE_KERNEL_NETDEV_SET_DOWN;
	while ((e = readdir(dir))) {
		char name[IBVE_IFNAME_MAX];

		for (uint32_t p = 1; e->d_name[0] != '.'; p++) {
			struct ibve_event *ev;
			int has = ibve_sysfs_port_netdev(e->d_name, p, name,
							 sizeof(name));

			if (has < 0)
				break;
			if (!has || strcmp(name, k->device))
				continue;
			ibve_strcpy(d.device, e->d_name, sizeof(d.device));
			d.port = p;
			if (!(ev = record(s, &d, (int64_t)k->ns)))
				continue;
			ibve_strcpy(ev->netdev, k->device, sizeof(ev->netdev));
			ev->netdev_index = k->num;
			ev->fields |= IBVE_FIELD_NETDEV;
		}
	}
	closedir(dir);
}

/* --- storms: the programs' counts ---------------------------------------- */

/* Timer C to go off at NS (FLAGS: timerfd_settime's), unless it is set. */
static bool arm(struct kernel *s, int c, int flags, int64_t ns)
{
	struct itimerspec t = { .it_value = { ns / 1000000000,
					      ns % 1000000000 } };

	if (s->armed & 1u << c || timerfd_settime(s->fd[c], flags, &t, NULL))
		return false;
	if (c != C_PAUSE) /* the pause's reader clears it: no need to know */
		s->armed |= 1u << c;
	return true;
}

/* The counts are read in an interval (unless that is planned already). */
static void drain_arm(struct kernel *s)
{
	if (s->agg)
		arm(s, C_DRAIN, 0, AGG_NS);
}

static int agg_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct ibve_kagg_key));
}

/* KEY's entry, made when new; NULL: no memory. */
static struct agg *agg_of(struct kernel *s, const struct ibve_kagg_key *key)
{
	struct agg *a =
		s->naggs ? bsearch(key, s->aggs, s->naggs, sizeof(*a), agg_cmp)
			 : NULL;
	size_t i = 0;

	if (a)
		return a;
	a = realloc(s->aggs, (s->naggs + 1) * sizeof(*a));
	if (!a)
		return NULL;
	s->aggs = a;
	while (i < s->naggs && agg_cmp(&a[i].key, key) < 0)
		i++;
	memmove(&a[i + 1], &a[i], (s->naggs++ - i) * sizeof(*a));
	a[i] = (struct agg){ .key = *key };
	return &a[i];
}

/* What V counted since A's last delivery, as a summary record at NOW. */
static void deliver(struct kernel *s, struct agg *a, struct ibve_kagg *v,
		    int64_t now)
{
	/* since the last count, or the key's first event */
	int64_t from = a->at ? a->at : (int64_t)v->made;
	struct ibve_kevent k;
	struct ibve_event *ev;

	if (v->count == a->said)
		return;
	/* the map's copy of the key's first event, read as the ring's are */
	if (ibve_kevent_from_ring(&k, &v->k, sizeof(v->k)) &&
	    (ev = record(s, &k, now))) {
		ev->fields |= IBVE_FIELD_SUMMARY;
		ev->summary.count = v->count - a->said;
		ev->summary.interval_us =
			now > from ? (uint64_t)(now - from) / 1000 : 0;
	}
	a->said = v->count;
	a->at = now;
}

/*
 * Every key's events counted since the last read, as summaries. A key
 * quiet for two intervals leaves the map, its last count taken as it
 * goes; a late event of it finds no key and is sent, not counted.
 */
static void drain(struct kernel *s, int64_t now)
{
	const struct bpf_map *m = s->skel->maps.agg;
	const struct ibve_kagg_key *prev = NULL;
	struct ibve_kagg_key key;
	struct ibve_kagg v;
	size_t n = 0;
	bool kept = false;

	/* a new interval: each key's next event is sent, not counted */
	__atomic_add_fetch(&s->skel->bss->epoch, 1, __ATOMIC_RELAXED);
	for (; !bpf_map__get_next_key(m, prev, &key, sizeof(key));
	     prev = &key) {
		uint64_t said;
		struct agg *a;

		if (bpf_map__lookup_elem(m, &key, sizeof(key), &v, sizeof(v),
					 0) ||
		    !(a = agg_of(s, &key))) {
			kept = true;
			continue;
		}
		said = a->said;
		deliver(s, a, &v, now);
		a->quiet = v.count == said &&
			   now - (int64_t)v.start >= 2 * AGG_NS;
	}
	/* after the walk: a key deleted under it would restart it */
	for (size_t i = 0; i < s->naggs; i++) {
		struct agg *a = &s->aggs[i];

		if (a->quiet &&
		    !bpf_map__lookup_and_delete_elem(m, &a->key, sizeof(a->key),
						     &v, sizeof(v), 0)) {
			/* what came since the walk (its interval began again) */
			deliver(s, a, &v, now);
			continue;
		}
		a->quiet = false;
		s->aggs[n++] = *a;
		kept = true;
	}
	s->naggs = n;
	if (kept)
		drain_arm(s);
}

/* libbpf's ring buffer callback: one event; < 0 stops for this batch. */
static int sample(void *ctx, void *data, size_t size)
{
	struct kernel *s = ctx;
	struct ibve_kevent k;

	if (!ibve_kevent_from_ring(&k, data, size))
		return 0;
	if (k.hook == IBVE_KHOOK_PORT) {
		port_event(s, &k);
	} else if (!(1u << k.hook & IBVE_KHOOKS_EVENTS)) {
		who(s, &k);
	} else {
		record(s, &k, (int64_t)k.ns);
		drain_arm(s);
	}
	s->got = true;
	return ++s->batch < BATCH ? 0 : -EAGAIN;
}

/* An EVENTS_LOST record for each device that lost events since the last. */
static void lost_say(struct kernel *s)
{
	const struct bpf_map *m = s->skel->maps.lost_by_device;
	const char *prev = NULL;
	char key[64]; /* ended: count_lost() reads the name into 64 zeroes */

	for (; !bpf_map__get_next_key(m, prev, key, sizeof(key)); prev = key) {
		struct dev *g;
		struct ibve_event *ev;
		uint64_t n;

		if (bpf_map__lookup_elem(m, key, sizeof(key), &n, sizeof(n),
					 0) ||
		    !ibve_names_want(&s->names, &s->h, key) ||
		    !(g = device_of(s, key, true)) || n == g->lost)
			continue;
		ev = s->h.emit(s->h.ctx);
		if (!ev)
			return;
		ibve_kevent_lost(ev, key, g->guid, n - g->lost);
		g->lost = n;
	}
}

/* Losses since the last look: said now, or when a second has passed. */
static void lost_check(struct kernel *s, int64_t now)
{
	uint64_t lost = __atomic_load_n(&s->skel->bss->lost, __ATOMIC_ACQUIRE),
		 who = __atomic_load_n(&s->skel->bss->who_lost,
				       __ATOMIC_RELAXED);

	if (who != s->who_lost) {
		ibve_host_note(
			&s->h, IBVE_NOTE,
			"eBPF: the ring buffer was full: %" PRIu64
			" records of who set a netdev down or removed a device were lost",
			who - s->who_lost);
		s->who_lost = who;
	}

	if (lost == s->lost_seen)
		return;
	if (s->lost_said && now - s->lost_said < LOST_EVERY_NS) {
		arm(s, C_LOST, TFD_TIMER_ABSTIME, s->lost_said + LOST_EVERY_NS);
		return;
	}
	s->lost_seen = lost;
	s->lost_said = now;
	lost_say(s);
	drain_arm(s); /* a key whose first event was lost counts the rest */
}

/* Now on CLOCK_MONOTONIC, and the offset to wall time. */
static int64_t set_clock(struct kernel *s)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	s->mono2real =
		(r.tv_sec - m.tv_sec) * 1000000000ll + (r.tv_nsec - m.tv_nsec);
	return m.tv_sec * 1000000000ll + m.tv_nsec;
}

/*
 * A read of the ring is over: after records, the ring rests for PAUSE_NS
 * (not watched, the pause timer armed); after none, it is watched again.
 */
static void pause_or_watch(struct kernel *s)
{
	if (s->got && arm(s, C_PAUSE, 0, PAUSE_NS)) {
		if (s->ring_watched)
			s->h.unwatch(s->h.ctx, s->fd[C_RING]);
		s->ring_watched = false;
	} else if (!s->ring_watched) {
		/* level-triggered: what came meanwhile wakes the loop at once */
		s->ring_watched =
			!s->h.watch(s->h.ctx, s->fd[C_RING], s, C_RING);
	}
	s->got = false;
}

/*
 * The run ends: what the ring holds (at most a full ring's records, not a
 * storm that goes on), the losses, then every count the programs kept.
 * Nothing, while it waits for the RDMA modules: no programs, no ring.
 */
static void finish(void *arg)
{
	struct kernel *s = arg;
	size_t rounds = RING_BYTES / sizeof(struct ibve_kevent) / BATCH + 1;
	int64_t now;

	if (!s->rb)
		return;
	do
		s->batch = 0;
	while (ring_buffer__consume(s->rb) == -EAGAIN && --rounds);
	now = set_clock(s);
	s->lost_said = 0; /* the last word is not held back a second */
	lost_check(s, now);
	if (s->agg)
		drain(s, now);
}

static bool ready(void *arg, uint32_t cookie)
{
	struct kernel *s = arg;
	int64_t now = set_clock(s);
	uint64_t ticks;
	int r = 0;

	if (cookie == C_LOST || cookie == C_DRAIN) {
		if (read(s->fd[cookie], &ticks, sizeof(ticks)) < 0)
			return false;
		s->armed &= ~(1u << cookie);
		if (cookie == C_DRAIN)
			drain(s, now);
	} else {
		/*
		 * The pause is over: clear its timer. A drain's later calls
		 * (after a full batch) find it cleared already; they read on.
		 */
		if (cookie == C_PAUSE &&
		    read(s->fd[C_PAUSE], &ticks, sizeof(ticks)) < 0 &&
		    errno != EAGAIN)
			return false;
		s->batch = 0;
		r = ring_buffer__consume(s->rb);
		if (r != -EAGAIN)
			pause_or_watch(s);
	}
	lost_check(s, now);
	return r == -EAGAIN;
}

/* --- loading and attaching ------------------------------------------------ */

/* What libbpf says while loading: the last line, for the error. */
static __thread char libbpf_said[256];

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	n = (size_t)vsnprintf(libbpf_said, sizeof(libbpf_said), fmt, ap);
	if (n && n < sizeof(libbpf_said) && libbpf_said[n - 1] == '\n')
		libbpf_said[n - 1] = '\0';
	return 0;
}

/* Whether the kernel has FUNC, by the BTF of MODULE (split on VMLINUX's). */
static bool has_func(struct btf *vmlinux, const char *module, const char *func)
{
	char path[128];
	struct btf *btf;
	bool found;

	if (!strcmp(module, "vmlinux"))
		return btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC) >=
		       0;
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", module);
	btf = btf__parse_split(path, vmlinux);
	found = btf && btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) >= 0;
	btf__free(btf);
	return found;
}

struct hook {
	const char *module, *func;
	size_t fentry, kprobe; /* offsets of the programs in progs */
};

#define PROG(name) offsetof(struct ibve_kbpf, progs.name)
/* in the order of enum ibve_khook, made from the same list */
#define HOOK(name, NAME, module, func) \
	{ #module, #func, PROG(fe_##name), PROG(kp_##name) },

static const struct hook hooks[IBVE_KHOOK_COUNT] = { IBVE_KHOOKS(
	HOOK) IBVE_KHOOKS_WHO(HOOK) };

static struct bpf_program *prog_of(struct ibve_kbpf *skel, size_t off)
{
	return *(struct bpf_program **)((char *)skel + off);
}

/* Which hooks this kernel has; kprobe: whether fentry cannot serve. */
static unsigned int plan(struct kernel *s, bool *kprobe)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	unsigned int want = 0;
	bool btf;

	*kprobe = s->flags & IBVE_SRC_KPROBE;
	for (int i = 0; i < IBVE_KHOOK_COUNT; i++)
		if (vmlinux &&
		    has_func(vmlinux, hooks[i].module, hooks[i].func))
			want |= 1u << i;
		else if (i != IBVE_KHOOK_CORE_QP &&
			 1u << i & IBVE_KHOOKS_EVENTS)
			*kprobe = true; /* no BTF for it: no trampoline */
	btf = vmlinux != NULL;
	btf__free(vmlinux);
	/* the core handler sees every QP: the uverbs one would count twice */
	if (want & 1u << IBVE_KHOOK_CORE_QP)
		want &= ~(1u << IBVE_KHOOK_QP);
	else if (*kprobe)
		/* the events' all but the core one; who's, where BTF has them */
		want |= IBVE_KHOOKS_EVENTS & ~(1u << IBVE_KHOOK_CORE_QP);
	/* the one rtnetlink and ioctl reach alike, where it is (>= 6.15) */
	if (want & 1u << IBVE_KHOOK_SETDOWN_NETIF)
		want &= ~(1u << IBVE_KHOOK_SETDOWN);
	for (int i = IBVE_KHOOK_SETDOWN_NETIF; btf && i < IBVE_KHOOK_COUNT; i++)
		if (!(want & 1u << i) && (i != IBVE_KHOOK_SETDOWN_NETIF ||
					  !(want & 1u << IBVE_KHOOK_SETDOWN)))
			ibve_host_note(
				&s->h, IBVE_NOTE,
				"eBPF: the kernel has no %s (%s): who %s is not said",
				hooks[i].func, hooks[i].module,
				i == IBVE_KHOOK_SETDOWN_NETIF
					? "sets a netdev down"
					: "removes a device that way");
	return want;
}

static int load_failed(int err)
{
	if (err == EPERM || err == EACCES)
		/*
		 * CAP_SYS_ADMIN too: the RDMA types and handlers live in
		 * modules, whose BTF libbpf can only get through bpf(2)'s
		 * BTF_GET_FD_BY_ID, which the kernel keeps for it.
		 */
		return ibve_error(
			EPERM,
			"loading eBPF programs needs root, or CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (the RDMA modules' BTF): %s",
			strerror(err));
	return ibve_error(err, "cannot load the eBPF programs: %s%s%s",
			  strerror(err), libbpf_said[0] ? " (libbpf: " : "",
			  libbpf_said[0] ? libbpf_said : "");
}

/* The owners asked for, into the programs' maps. */
static int want_owners(struct kernel *s, const uint32_t *pids, size_t npids,
		       const char (*comms)[16], size_t ncomms)
{
	uint8_t one = 1;

	for (size_t i = 0; i < npids; i++)
		if (bpf_map__update_elem(s->skel->maps.pids, &pids[i],
					 sizeof(pids[i]), &one, sizeof(one), 0))
			return ibve_error(errno, "eBPF: --pid %u: %s", pids[i],
					  strerror(errno));
	for (size_t i = 0; i < ncomms; i++) {
		char key[16] = { 0 };

		ibve_strcpy(key, comms[i], sizeof(key));
		if (bpf_map__update_elem(s->skel->maps.comms, key, sizeof(key),
					 &one, sizeof(one), 0))
			return ibve_error(errno, "eBPF: --comm %s: %s", key,
					  strerror(errno));
	}
	return 0;
}

static int attach(struct kernel *s)
{
	libbpf_print_fn_t old = libbpf_set_print(libbpf_print);
	unsigned int want = plan(s, &s->kprobe);
	const struct ibve_filter *owners;
	const uint32_t *pids = NULL;
	const char(*comms)[16] = NULL;
	int r = 0;

	libbpf_said[0] = '\0';
	s->skel = ibve_kbpf__open();
	if (!s->skel) {
		r = load_failed(errno);
		goto out;
	}
	for (int i = 0; i < IBVE_KHOOK_COUNT; i++) {
		bpf_program__set_autoload(prog_of(s->skel, hooks[i].fentry),
					  !s->kprobe && want & 1u << i);
		bpf_program__set_autoload(prog_of(s->skel, hooks[i].kprobe),
					  s->kprobe && want & 1u << i);
	}
	bpf_map__set_max_entries(s->skel->maps.events, RING_BYTES);
	owners = s->h.owners(s->h.ctx);
	if (owners) {
		s->skel->rodata->want_pids =
			(uint32_t)ibve_filter_pids(owners, &pids);
		s->skel->rodata->want_comms =
			(uint32_t)ibve_filter_comms(owners, &comms);
		/* room for every one asked for (a map holds at least one) */
		bpf_map__set_max_entries(s->skel->maps.pids,
					 s->skel->rodata->want_pids + 1);
		bpf_map__set_max_entries(s->skel->maps.comms,
					 s->skel->rodata->want_comms + 1);
	}
	s->agg = s->h.storm(s->h.ctx) > 0;
	s->skel->rodata->agg_ns = s->agg ? AGG_NS : 0;
	if ((r = ibve_kbpf__load(s->skel))) {
		r = load_failed(-r);
		goto out;
	}
	if ((r = want_owners(s, pids, s->skel->rodata->want_pids, comms,
			     s->skel->rodata->want_comms)))
		goto out;
	for (int i = 0; i < IBVE_KHOOK_COUNT; i++) {
		struct bpf_program *p = prog_of(
			s->skel, s->kprobe ? hooks[i].kprobe : hooks[i].fentry);
		struct bpf_link *l;

		if (!(want & 1u << i))
			continue;
		l = bpf_program__attach(p);
		if (!l) {
			ibve_host_note(
				&s->h, IBVE_NOTE,
				"eBPF: cannot hook %s (%s): %s; the other hooks go on",
				hooks[i].func, hooks[i].module,
				strerror(errno));
			continue;
		}
		s->links[i] = l;
		s->hooks |= 1u << i;
	}
	if (!(s->hooks & IBVE_KHOOKS_EVENTS & ~(1u << IBVE_KHOOK_PORT))) {
		r = ibve_error(ENOTSUP,
			       "cannot hook any event handler of the kernel");
		goto out;
	}
	s->fd[C_RING] = bpf_map__fd(s->skel->maps.events);
	s->rb = ring_buffer__new(s->fd[C_RING], sample, s, NULL);
	if (!s->rb) {
		r = ibve_error(errno, "BPF ring buffer: %s", strerror(errno));
		goto out;
	}
	for (int c = C_LOST; c < C_COUNT; c++) {
		s->fd[c] = timerfd_create(CLOCK_MONOTONIC,
					  TFD_NONBLOCK | TFD_CLOEXEC);
		if (s->fd[c] < 0) {
			r = ibve_error(errno, "timerfd: %s", strerror(errno));
			goto out;
		}
	}
	for (int c = 0; c < C_COUNT; c++)
		if ((r = s->h.watch(s->h.ctx, s->fd[c], s, (uint32_t)c))) {
			r = ibve_error(r, "eBPF ring: %s", strerror(-r));
			goto out;
		}
	s->ring_watched = true;
	s->waiting = false;
out:
	libbpf_set_print(old);
	return r;
}

/* The RDMA modules whose handlers are hooked: loaded, with BTF? */
static const char *missing_module(void)
{
	if (access("/sys/module/ib_core", F_OK))
		return "ib_core";
	return access("/sys/module/ib_uverbs", F_OK) ? "ib_uverbs" : NULL;
}

static int start(void *arg)
{
	struct kernel *s = arg;
	const struct ibve_devset *devs = s->h.devset(s->h.ctx);
	const char *mod;
	struct stat st;
	int r = ibve_dl_load(&ibve_bpf_dl);

	if (r)
		return r;
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return ibve_error(
			ENOTSUP,
			"the kernel offers no BTF (/sys/kernel/btf/vmlinux: %s): the eBPF programs need a kernel built with CONFIG_DEBUG_INFO_BTF",
			strerror(errno));
	find_cgroot(s);
	if (!stat("/proc/self/ns/net", &st))
		s->netns = (uint32_t)st.st_ino;
	mod = missing_module();
	if (mod) {
		/* hot-plug sees the devices that come with the module */
		if (!devs || !devs->followed)
			return ibve_error(
				ENODEV,
				"kernel module %s is not loaded: there are no RDMA event handlers to hook yet",
				mod);
		ibve_host_note(
			&s->h, IBVE_NOTE,
			"eBPF: waiting for kernel module %s: hooked when RDMA devices appear",
			mod);
		s->waiting = true;
	} else if ((r = attach(s))) {
		return r;
	}
	if (!s->cgroot[0]) /* said once: records lack cgroup, and so job */
		ibve_host_note(
			&s->h, IBVE_NOTE,
			"eBPF: no cgroup2 file system is mounted: records name no cgroup (nor job) until one is");
	return 0;
}

static void observe(void *arg, const struct ibve_event *ev)
{
	struct kernel *s = arg;
	int r;

	if (!s->waiting || ev->source != IBVE_SOURCE_HOTPLUG ||
	    ev->code != IBVE_HOTPLUG_DEVICE_ADDED || missing_module())
		return;
	r = attach(s);
	if (r) {
		s->waiting = false;
		s->h.fail(s->h.ctx, r);
	}
}

static int empty(const void *arg)
{
	(void)arg;
	return 0;
}

static size_t describe(const void *arg, char *buf, size_t size)
{
	const struct kernel *s = arg;
	unsigned int n = (unsigned int)__builtin_popcount(
		s->hooks & IBVE_KHOOKS_EVENTS & ~(1u << IBVE_KHOOK_PORT));

	if (s->waiting)
		return (size_t)snprintf(
			buf, size,
			"(every process: waiting for the RDMA modules)");
	return (size_t)snprintf(buf, size,
				"(every process: %u kernel hook%s, %s)", n,
				n == 1 ? "" : "s",
				s->kprobe ? "kprobe" : "fentry");
}

#else /* !IBVE_HAVE_BPF */

static int start(void *arg)
{
	(void)arg;
	return ibve_error(
		ENOTSUP,
		"this build of libibvevent has no eBPF support (built without libbpf)");
}

#endif

static void destroy(void *arg)
{
	struct kernel *s = arg;

#ifdef IBVE_HAVE_BPF
	/* the hooks go first: a module being removed waits for them */
	for (int i = 0; i < IBVE_KHOOK_COUNT; i++)
		if (s->links[i])
			bpf_link__destroy(s->links[i]);
	/* none of it was made when libbpf was not loaded */
	if (s->rb)
		ring_buffer__free(s->rb);
	ibve_kbpf__destroy(s->skel);
	for (int c = C_LOST; c < C_COUNT; c++)
		if (s->fd[c] >= 0)
			close(s->fd[c]);
	free(s->aggs);
	free(s->devs);
	cg_free(s->cgs, s->ncgs);
#endif
	free(s->names.v);
	free(s);
}

/* --- its records' fields: QP type, owner, consumer, cause ----------------- */

static void qp_type_json(struct ibve_json *j, const struct ibve_event *ev)
{
	ibve_json_str(j, "qp_type", ibve_qp_type_name(ev->kernel.qp_type));
}

static int qp_type_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
			 int key, char *err, size_t errlen)
{
	const char *s;
	int r = ibve_get_str(o, key, &s, err, errlen);

	if (r <= 0)
		return r;
	if (ibve_qp_type_parse(s, &ev->kernel.qp_type))
		FAIL("unknown \"qp_type\" \"%.20s\"", s);
	ev->fields |= IBVE_FIELD_QP_TYPE;
	return 0;
}

IBVE_EXPORT size_t ibve_cgroup_job(const char *path, char *buf, size_t size)
{
	struct ibve_buf b = { buf, size, 0 };
	const char *p = path, *pod = NULL;

	while (*p) {
		size_t n;

		p += *p == '/';
		n = strcspn(p, "/");
		/* Slurm: .../job_1234/step_0/... */
		if (n > 4 && strncmp(p, "job_", 4) == 0 &&
		    strspn(p + 4, "0123456789") == n - 4) {
			ibve_buf_printf(&b, "slurm job %.*s", (int)(n - 4),
					p + 4);
			return ibve_buf_end(&b);
		}
		/* Kubernetes: kubepods-besteffort-pod<uid>.slice, pod<uid> */
		for (size_t i = 0; i + 3 < n; i++)
			if (strncmp(p + i, "pod", 3) == 0 &&
			    (i == 0 || p[i - 1] == '-') &&
			    isxdigit((unsigned char)p[i + 3]))
				pod = p + i + 3;
		if (pod) {
			size_t m = strcspn(pod, "/.");

			ibve_buf_puts(&b, "pod ");
			for (size_t i = 0; i < m; i++)
				ibve_buf_putc(&b, pod[i] == '_' ? '-' : pod[i]);
			return ibve_buf_end(&b);
		}
		p += n;
	}
	return ibve_buf_end(&b);
}

static void owner_json(struct ibve_json *j, const struct ibve_event *ev)
{
	ibve_json_uint(j, "pid", ev->kernel.pid);
	ibve_json_str(j, "comm", ev->kernel.comm);
	if (ev->kernel.cgroup[0])
		ibve_json_str(j, "cgroup", ev->kernel.cgroup);
}

static void owner_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	char job[96];

	ibve_buf_printf(b, "pid %u ", ev->kernel.pid);
	ibve_buf_text_str(b, ev->kernel.comm);
	if (!ev->kernel.cgroup[0] || strcmp(ev->kernel.cgroup, "/") == 0)
		return;
	if (ibve_cgroup_job(ev->kernel.cgroup, job, sizeof(job)) &&
	    strlen(job) < sizeof(job)) {
		ibve_buf_printf(b, " [%s]", job);
		return;
	}
	ibve_buf_puts(b, " [cgroup ");
	ibve_buf_text_str(b, ev->kernel.cgroup);
	ibve_buf_putc(b, ']');
}

static int owner_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
		       int key, char *err, size_t errlen)
{
	enum { PID, COMM, CGROUP };
	uint64_t u;
	int r = ibve_get_uint(o, key + PID, UINT32_MAX, &u, err, errlen);

	if (r <= 0)
		return r < 0 ? r : 0;
	ev->kernel.pid = (uint32_t)u;
	ev->fields |= IBVE_FIELD_OWNER;
	/* comm and cgroup: no flag of their own */
	if (ibve_get_opt_str(o, key + COMM, ev->kernel.comm,
			     sizeof(ev->kernel.comm), ev, 0, err, errlen) ||
	    ibve_get_opt_str(o, key + CGROUP, ev->kernel.cgroup,
			     sizeof(ev->kernel.cgroup), ev, 0, err, errlen))
		return -EINVAL;
	return 0;
}

static void after_json(struct ibve_json *j, const struct ibve_event *ev)
{
	ibve_json_str(j, "after", ev->kernel.after);
	if (ev->kernel.after_port)
		ibve_json_uint(j, "after_port", ev->kernel.after_port);
	ibve_json_uint(j, "after_us", ev->kernel.after_us);
	if (ev->kernel.recovered)
		ibve_json_uint(j, "recovered_us", ev->kernel.recovered_us);
}

/* A duration of US microseconds in ms: "0.8 ms", "795 ms". */
static void ms_text(struct ibve_buf *b, uint64_t us)
{
	if (us < 10000)
		ibve_buf_printf(b, "%.1f ms", (double)us / 1000);
	else
		ibve_buf_printf(b, "%" PRIu64 " ms", us / 1000);
}

static void after_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	ms_text(b, ev->kernel.after_us);
	ibve_buf_puts(b, " after ");
	ibve_buf_text_str(b, ev->kernel.after);
	ibve_buf_putc(b, ' ');
	ibve_buf_text_str(b, ev->device);
	if (ev->kernel.after_port)
		ibve_buf_printf(b, "/%u", ev->kernel.after_port);
	if (ev->kernel.recovered) {
		ibve_buf_puts(b, ", the port had recovered ");
		ms_text(b, ev->kernel.recovered_us);
		ibve_buf_puts(b, " after it");
	}
}

static int after_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
		       int key, char *err, size_t errlen)
{
	enum { AFTER, PORT, US, RECOVERED };
	uint64_t u;
	int r = ibve_get_opt_str(o, key + AFTER, ev->kernel.after,
				 sizeof(ev->kernel.after), ev, IBVE_FIELD_AFTER,
				 err, errlen);

	if (r || !(ev->fields & IBVE_FIELD_AFTER))
		return r;
	if (ibve_get_uint(o, key + PORT, UINT32_MAX, &u, err, errlen) < 0 ||
	    ibve_get_uint(o, key + US, UINT64_MAX, &ev->kernel.after_us, err,
			  errlen) < 0)
		return -EINVAL;
	ev->kernel.after_port = (uint32_t)u;
	r = ibve_get_uint(o, key + RECOVERED, UINT64_MAX,
			  &ev->kernel.recovered_us, err, errlen);
	ev->kernel.recovered = r > 0;
	return r < 0 ? r : 0;
}

/* In the record's order, among every source's rows. */
static const struct ibve_fieldspec fields[] = {
	/* text: beside the QP number (the common qp_num row) */
	{ .keys = "qp_type",
	  .order = 20,
	  .flag = IBVE_FIELD_QP_TYPE,
	  .json = qp_type_json,
	  .parse = qp_type_parse },
	/* comm and cgroup mean nothing without a pid */
	{ .keys = "pid comm cgroup",
	  .order = 50,
	  .flag = IBVE_FIELD_OWNER,
	  .json = owner_json,
	  .text = owner_text,
	  .parse = owner_parse },
	IBVE_FIELD("kernel", 60, FT_STR, kernel.consumer, IBVE_FIELD_KERNEL,
		   "kernel ", NULL),
	{ .keys = "after after_port after_us recovered_us",
	  .order = 70,
	  .flag = IBVE_FIELD_AFTER,
	  .json = after_json,
	  .text = after_text,
	  .parse = after_parse },
};

/*
 * The kernel source's records carry the verbs rows (.also: what the
 * owner's own queue would say); this row is its own.
 */
static const struct ibve_event_desc rows[] = {
	ROW(IBVE_KERNEL_EVENTS_LOST, "EVENTS_LOST", DEVICE, false, WARNING,
	    "33fca5a787b94b37aa905a5d4ba5ffdd",
	    "the kernel source's ring buffer was full: events were lost",
	    "The kernel's ring buffer was full and events of a storm were dropped "
	    "(RDMA_LOST says how many); counts and metrics are low by as many. "
	    "Look at the records before it for the storm's cause."),
	ROW(IBVE_KERNEL_NETDEV_SET_DOWN, "NETDEV_SET_DOWN", PORT, false, INFO,
	    "1c83be5a93c74df09b0e0b0ac8a93d58",
	    "the port's network device was set down: by whom",
	    "The port's network device (RDMA_NETDEV) was set down, as `ip link set "
	    "down` does, and the port goes down with it: by a process (RDMA_PID, "
	    "RDMA_COMM; its job or unit by RDMA_CGROUP), which no hardware fault "
	    "made: ask its owner; or by a kernel thread (RDMA_KERNEL, a driver's "
	    "recovery): look in the kernel's log for why."),
	ROW(IBVE_KERNEL_DEVICE_UNREGISTER, "DEVICE_UNREGISTER", DEVICE, false,
	    INFO, "db46bcda60424e1cae74ca66dadeb88a",
	    "the RDMA device is being removed: by whom",
	    "The device is being removed, as `rdma link delete` or a driver's "
	    "unbind does, and its ports go with it: by a process (RDMA_PID, "
	    "RDMA_COMM; its job or unit by RDMA_CGROUP), which no hardware fault "
	    "made: ask its owner; or by a kernel thread (RDMA_KERNEL, a driver's "
	    "recovery): look in the kernel's log for why."),
};

static const struct ibve_source_option options[] = {
	{ "all-processes", 'A',
	  "also every process's QP, CQ, SRQ and WQ events, with\nthe owner (eBPF in the kernel; needs root or CAP_BPF,\nCAP_PERFMON and CAP_SYS_ADMIN)",
	  0 },
};

const struct ibve_source_ops ibve_source_kernel = {
	.name = "kernel",
	.records = IBVE_SOURCE_KERNEL,
	OPTIONS(options),
	.on_demand = true,
	ROWS(rows),
	.owner_flag = IBVE_FIELD_OWNER,
	.owner_pid = offsetof(struct ibve_event, kernel.pid),
	.owner_comm = offsetof(struct ibve_event, kernel.comm),
	FIELDS(fields),
	.also = &ibve_source_devices,
	.order = 25,
	.create = create,
	.start = start,
	.destroy = destroy,
#ifdef IBVE_HAVE_BPF
	.empty = empty,
	.ready = ready,
	.observe = observe,
	.finish = finish,
	.describe = describe,
#endif
};
