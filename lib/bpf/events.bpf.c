// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The kernel side of the "kernel" source: every process's affiliated RDMA
 * events, from the handlers the kernel calls for them, with the owner from
 * the kernel's resource tracking (shared/DOMAIN.md has the facts).
 *
 * The structs below are the few kernel fields read, declared with
 * preserve_access_index: libbpf relocates each to the running kernel's
 * layout (CO-RE), so one object serves 6.1 and 6.12 without vmlinux.h.
 * The uverbs types live in ib_uverbs' BTF, the rest in ib_core's and the
 * kernel's; libbpf finds each where it is.
 *
 * Every program comes twice, fentry and kprobe, around one body: user
 * space loads one set. The kernel calls every hooked handler through a
 * function pointer, so none is inlined away.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "kevent.h"

#define __pai __attribute__((preserve_access_index))

struct kernfs_node {
	__u64 id;
} __pai;

struct cgroup {
	struct kernfs_node *kn;
} __pai;

struct css_set {
	struct cgroup *dfl_cgrp;
} __pai;

struct task_struct {
	unsigned int flags;
	int tgid;
	struct task_struct *group_leader;
	char comm[16];
	struct css_set *cgroups;
} __pai;

struct rdma_restrack_entry {
	struct task_struct *task;
	const char *kern_name;
} __pai;

struct ib_device {
	char name[64];
} __pai;

struct ns_common {
	unsigned int inum;
} __pai;

struct net {
	struct ns_common ns;
} __pai;

typedef struct {
	struct net *net;
} __pai possible_net_t;

struct net_device {
	char name[16];
	unsigned int flags;
	int ifindex;
	possible_net_t nd_net;
} __pai;

#define IFF_UP	   0x1
#define PF_KTHREAD 0x00200000

struct ib_pd {
	struct rdma_restrack_entry res;
} __pai;

struct ib_uobject {
	int id;
} __pai;

struct ib_uevent_object {
	struct ib_uobject uobject;
} __pai;

struct ib_uqp_object {
	struct ib_uevent_object uevent;
} __pai;

struct ib_ucq_object {
	struct ib_uevent_object uevent;
} __pai;

struct ib_usrq_object {
	struct ib_uevent_object uevent;
} __pai;

struct ib_uwq_object {
	struct ib_uevent_object uevent;
} __pai;

enum ib_qp_type { IB_QPT_SMI };

struct ib_qp {
	struct ib_pd *pd;
	struct ib_uqp_object *uobject;
	__u32 qp_num;
	enum ib_qp_type qp_type;
	__u32 port;
	struct rdma_restrack_entry res;
} __pai;

struct ib_cq {
	struct ib_ucq_object *uobject;
	struct rdma_restrack_entry res;
} __pai;

struct ib_srq {
	struct ib_pd *pd;
	struct ib_usrq_object *uobject;
	struct rdma_restrack_entry res;
} __pai;

struct ib_wq {
	struct ib_pd *pd;
	struct ib_uwq_object *uobject;
	__u32 wq_num;
} __pai;

/* The field's type must be an enum for CO-RE to match the kernel's. */
enum ib_event_type { IB_EVENT_CQ_ERR };

struct ib_event {
	struct ib_device *device;
	union {
		struct ib_cq *cq;
		struct ib_qp *qp;
		struct ib_srq *srq;
		struct ib_wq *wq;
		__u32 port_num;
	} element;
	enum ib_event_type event;
} __pai;

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Sized by user space before loading (bpf_map__set_max_entries). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/* Events the ring buffer had no room for, in all and by device. */
__u64 lost = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, char[64]);
	__type(value, __u64);
} lost_by_device SEC(".maps");

/*
 * Storms: the interval user space reads the counts at, in ns, set before
 * loading (0: every event through the ring). The first event of a key's
 * interval goes through the ring, the key's others are counted in its
 * entry. An event is sent or counted, never both. The programs keep no
 * time of their own: the epoch below says which interval it is.
 */
const volatile __u64 agg_ns = 0;
const struct ibve_kagg agg_empty = {};

/*
 * The interval now: user space advances it each time it reads the counts
 * (at most once an agg_ns, and while any key is in the map). A key counts
 * while its entry's epoch is this one, so a storm's event reads no clock.
 */
__u64 epoch = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct ibve_kagg_key);
	__type(value, struct ibve_kagg);
} agg SEC(".maps");

/*
 * --pid, --comm: how many of each, set before loading, the values in the
 * maps (user space fills them before attaching). A process not asked for
 * costs no ring record.
 */
const volatile __u32 want_pids = 0, want_comms = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, char[16]);
	__type(value, __u8);
} comms SEC(".maps");

/* Records sent through the ring; events of processes not asked for. */
__u64 sent = 0, filtered = 0;
/* Records of who set a netdev down or removed a device, lost (apart from
 * the events': none of the RDMA events whose counts user space checks) */
__u64 who_lost = 0;

static __always_inline void count_lost(struct ib_event *e)
{
	struct ib_device *dev = BPF_CORE_READ(e, device);
	char name[64] = {};
	__u64 one = 1, *n;

	if (dev)
		BPF_CORE_READ_STR_INTO(&name, dev, name);
	n = bpf_map_lookup_elem(&lost_by_device, name);
	if (!n && bpf_map_update_elem(&lost_by_device, name, &one, BPF_NOEXIST))
		n = bpf_map_lookup_elem(&lost_by_device, name); /* a race */
	if (n)
		__sync_fetch_and_add(n, 1);
	/* after the map: user space reads this first, then the map */
	__sync_fetch_and_add(&lost, 1);
}

/*
 * R(direct, p, field): a field through kernel pointer P. DIRECT (fentry,
 * P typed by the kernel's BTF): a plain load, far cheaper than the helper
 * call of BPF_CORE_READ (kprobe). Both are relocated to the running
 * kernel's layout.
 */
#define R(direct, p, field)                                     \
	((direct) ? __builtin_preserve_access_index((p)->field) \
		  : BPF_CORE_READ(p, field))

/*
 * The restrack entry naming the owner of OBJ, the object of an event HOOK
 * saw, and in *TASK its task (NULL: a kernel consumer's, or none). An SRQ's
 * own entry may name no task: its PD's does; a WQ has no entry of its own.
 * The verifier types a pointer read from ib_event's union as its first
 * member, the CQ: only a CQ's fields can be plain loads (DIRECT).
 */
static __always_inline struct rdma_restrack_entry *
owner_of(void *obj, __u32 hook, const int direct, struct task_struct **task)
{
	struct rdma_restrack_entry *res = NULL;
	struct ib_pd *pd = NULL;

	switch (hook) {
	case IBVE_KHOOK_QP:
	case IBVE_KHOOK_CORE_QP:
		res = &((struct ib_qp *)obj)->res;
		break;
	case IBVE_KHOOK_CQ:
		*task = R(direct, (struct ib_cq *)obj, res.task);
		return &((struct ib_cq *)obj)->res;
	case IBVE_KHOOK_SRQ:
		res = &((struct ib_srq *)obj)->res;
		if (!BPF_CORE_READ(res, task))
			pd = BPF_CORE_READ((struct ib_srq *)obj, pd);
		break;
	case IBVE_KHOOK_WQ:
		pd = BPF_CORE_READ((struct ib_wq *)obj, pd);
		break;
	}
	if (pd)
		res = &pd->res;
	*task = res ? BPF_CORE_READ(res, task) : NULL;
	return res;
}

/* The events' part of user object UO, a struct ib_u*_object; NULL: none. */
#define UEVENT(uo)                         \
	({                                 \
		__typeof__(uo) uo_ = (uo); \
		uo_ ? &uo_->uevent : NULL; \
	})

/*
 * K: what E is, seen by HOOK, of object OBJ (NULL: a port or device event)
 * owned as owner_of() says: by RES and its TASK.
 */
static __always_inline void fill(struct ibve_kevent *k, struct ib_event *e,
				 __u32 hook, void *obj,
				 struct rdma_restrack_entry *res,
				 struct task_struct *t)
{
	struct ib_device *dev = BPF_CORE_READ(e, device);
	const char *kern = res ? BPF_CORE_READ(res, kern_name) : NULL;
	struct ib_uevent_object *ue = NULL;

	__builtin_memset(k, 0, sizeof(*k));
	k->ns = bpf_ktime_get_ns();
	k->hook = hook;
	k->event = BPF_CORE_READ(e, event);
	if (dev)
		BPF_CORE_READ_STR_INTO(&k->device, dev, name);
	if (hook == IBVE_KHOOK_PORT)
		k->port = BPF_CORE_READ(e, element.port_num);
	if (!obj)
		return;
	if (t) {
		k->tgid = BPF_CORE_READ(t, tgid);
		BPF_CORE_READ_STR_INTO(&k->comm, t, group_leader, comm);
		k->cgroup = BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
		k->flags |= IBVE_KF_OWNER;
	}
	if (kern)
		bpf_probe_read_kernel_str(k->kern, sizeof(k->kern), kern);

	switch (hook) {
	case IBVE_KHOOK_QP:
	case IBVE_KHOOK_CORE_QP: {
		struct ib_qp *qp = obj;
		struct ib_pd *pd = k->kern[0] ? BPF_CORE_READ(qp, pd) : NULL;

		k->num = BPF_CORE_READ(qp, qp_num);
		k->port = BPF_CORE_READ(qp, port);
		k->qp_type = BPF_CORE_READ(qp, qp_type);
		k->flags |= IBVE_KF_NUM | IBVE_KF_QP_TYPE;
		ue = UEVENT(BPF_CORE_READ(qp, uobject));
		/* the RDMA CM's QPs: their PD names the real consumer */
		kern = pd ? BPF_CORE_READ(&pd->res, kern_name) : NULL;
		if (kern)
			bpf_probe_read_kernel_str(k->pd_kern,
						  sizeof(k->pd_kern), kern);
		break;
	}
	case IBVE_KHOOK_CQ:
		ue = UEVENT(BPF_CORE_READ((struct ib_cq *)obj, uobject));
		break;
	case IBVE_KHOOK_SRQ:
		ue = UEVENT(BPF_CORE_READ((struct ib_srq *)obj, uobject));
		break;
	case IBVE_KHOOK_WQ:
		k->num = BPF_CORE_READ((struct ib_wq *)obj, wq_num);
		k->flags |= IBVE_KF_NUM;
		ue = UEVENT(BPF_CORE_READ((struct ib_wq *)obj, uobject));
		break;
	}
	if (ue) {
		k->handle = BPF_CORE_READ(ue, uobject.id);
		k->flags |= IBVE_KF_HANDLE;
	}
}

/* Whether TASK, the owner, is one asked for (--pid, --comm). */
static __always_inline int wanted(struct task_struct *task)
{
	char comm[16] = {};
	__u32 tgid;

	if (!want_pids && !want_comms)
		return 1;
	if (!task)
		return 0;
	tgid = BPF_CORE_READ(task, tgid);
	if (want_pids && !bpf_map_lookup_elem(&pids, &tgid))
		return 0;
	if (!want_comms)
		return 1;
	BPF_CORE_READ_STR_INTO(&comm, task, group_leader, comm);
	return bpf_map_lookup_elem(&comms, comm) != NULL;
}

/*
 * An event of a storm costs the reads its key needs (the object, its
 * owner's task, the event) and one lookup: no clock (the epoch says the
 * interval), and the record is filled only when it goes through the ring.
 * DIRECT: those reads are plain loads (fentry).
 */
static __always_inline int seen(struct ib_event *e, __u32 hook,
				const int direct)
{
	struct rdma_restrack_entry *res = NULL;
	struct task_struct *task = NULL;
	struct ibve_kagg *v = NULL;
	struct ibve_kevent k;
	void *obj = NULL;
	__u64 now;

	if (hook != IBVE_KHOOK_PORT) {
		obj = R(direct, e, element.cq);
		if (obj)
			res = owner_of(obj, hook, direct, &task);
		if (!wanted(task)) {
			__sync_fetch_and_add(&filtered, 1);
			return 0;
		}
	}
	if (hook != IBVE_KHOOK_PORT && agg_ns) {
		struct ibve_kagg_key key = {
			.obj = (__u64)obj,
			.task = (__u64)task,
			.event = R(direct, e, event),
			.hook = hook,
		};

		now = epoch;
		v = bpf_map_lookup_elem(&agg, &key);
		if (v && v->epoch == now) {
			__sync_fetch_and_add(&v->count, 1);
			return 0;
		}
		if (!v &&
		    !bpf_map_update_elem(&agg, &key, &agg_empty, BPF_NOEXIST)) {
			/* a key of its own: this event starts its interval */
			v = bpf_map_lookup_elem(&agg, &key);
		} else if (!v) {
			/* made meanwhile on another CPU, or the map is full */
			v = bpf_map_lookup_elem(&agg, &key);
			if (v && v->epoch == now) {
				__sync_fetch_and_add(&v->count, 1);
				return 0;
			}
		}
	}
	fill(&k, e, hook, obj, res, task);
	if (v) {
		if (!v->made)
			v->made = k.ns;
		v->start = k.ns;
		v->epoch = now;
		__builtin_memcpy(&v->k, &k, sizeof(k));
	}
	if (!bpf_ringbuf_output(&events, &k, sizeof(k), 0))
		__sync_fetch_and_add(&sent, 1);
	else if (hook != IBVE_KHOOK_PORT)
		count_lost(e);
	return 0;
}

/*
 * Each hook's program pair: fentry where the kernel's BTF allows a
 * trampoline, kprobe where it does not.
 */
#define HOOK(name, NAME, module, function)            \
	SEC("fentry/" #function)                      \
	int BPF_PROG(fe_##name, struct ib_event *e)   \
	{                                             \
		return seen(e, IBVE_KHOOK_##NAME, 1); \
	}                                             \
	SEC("kprobe/" #function)                      \
	int BPF_KPROBE(kp_##name, struct ib_event *e) \
	{                                             \
		return seen(e, IBVE_KHOOK_##NAME, 0); \
	}

IBVE_KHOOKS(HOOK)

/*
 * Who did it: the current task, in a record of HOOK (K's device, num and
 * netns set; user space knows the event by the hook), sent unless --pid
 * or --comm leave it out: a process as the owner, a kernel thread (a
 * driver's recovery, a workqueue) by its name as a kernel consumer's.
 */
static __always_inline int who(struct ibve_kevent *k, __u32 hook)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();

	if (!wanted(t))
		return 0;
	k->ns = bpf_ktime_get_ns();
	k->hook = hook;
	if (BPF_CORE_READ(t, flags) & PF_KTHREAD) {
		BPF_CORE_READ_STR_INTO(&k->kern, t, comm);
	} else {
		k->tgid = BPF_CORE_READ(t, tgid);
		BPF_CORE_READ_STR_INTO(&k->comm, t, group_leader, comm);
		k->cgroup = BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
		k->flags |= IBVE_KF_OWNER;
	}
	if (bpf_ringbuf_output(&events, k, sizeof(*k), 0))
		__sync_fetch_and_add(&who_lost, 1);
	return 0;
}

/* DEV's flags becoming FLAGS: a record when IFF_UP is cleared. */
static __always_inline int set_down(struct net_device *dev, unsigned int flags,
				    __u32 hook)
{
	struct ibve_kevent k;

	if (!(BPF_CORE_READ(dev, flags) & IFF_UP) || flags & IFF_UP)
		return 0;
	__builtin_memset(&k, 0, sizeof(k));
	k.num = BPF_CORE_READ(dev, ifindex);
	if (bpf_core_field_exists(dev->nd_net.net))
		k.netns = BPF_CORE_READ(dev, nd_net.net, ns.inum);
	BPF_CORE_READ_STR_INTO(&k.device, dev, name);
	return who(&k, hook);
}

static __always_inline int unregister(struct ib_device *dev, __u32 hook)
{
	struct ibve_kevent k;

	__builtin_memset(&k, 0, sizeof(k));
	BPF_CORE_READ_STR_INTO(&k.device, dev, name);
	return who(&k, hook);
}

#define SETDOWN(name, NAME, function)                                   \
	SEC("fentry/" #function)                                        \
	int BPF_PROG(fe_##name, struct net_device *d, unsigned int f)   \
	{                                                               \
		return set_down(d, f, IBVE_KHOOK_##NAME);               \
	}                                                               \
	SEC("kprobe/" #function)                                        \
	int BPF_KPROBE(kp_##name, struct net_device *d, unsigned int f) \
	{                                                               \
		return set_down(d, f, IBVE_KHOOK_##NAME);               \
	}

SETDOWN(setdown, SETDOWN, dev_change_flags)
SETDOWN(setdown_netif, SETDOWN_NETIF, netif_change_flags)

#define UNREG(name, NAME, function)                      \
	SEC("fentry/" #function)                         \
	int BPF_PROG(fe_##name, struct ib_device *d)     \
	{                                                \
		return unregister(d, IBVE_KHOOK_##NAME); \
	}                                                \
	SEC("kprobe/" #function)                         \
	int BPF_KPROBE(kp_##name, struct ib_device *d)   \
	{                                                \
		return unregister(d, IBVE_KHOOK_##NAME); \
	}

UNREG(unreg, UNREG, ib_unregister_device)
UNREG(unreg_put, UNREG_PUT, ib_unregister_device_and_put)
