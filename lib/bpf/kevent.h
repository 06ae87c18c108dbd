/* SPDX-License-Identifier: MIT */
/*
 * What the kernel side of the "kernel" source hands user space through its
 * ring buffer: one struct per event, as the BPF program saw it. Shared by
 * events.bpf.c and src_kernel.c; plain fixed-size types only.
 */
#ifndef IBVE_KEVENT_H
#define IBVE_KEVENT_H

/*
 * The hooks, X(name, NAME, module, function): FUNCTION of MODULE, hooked
 * by the programs fe_NAME and kp_NAME; IBVE_KHOOK_NAME says it saw the
 * event.
 */
#define IBVE_KHOOKS(X)                                                  \
	X(qp, QP, ib_uverbs, ib_uverbs_qp_event_handler) /* user QPs */ \
	X(cq, CQ, ib_uverbs, ib_uverbs_cq_event_handler)                \
	X(srq, SRQ, ib_uverbs, ib_uverbs_srq_event_handler)             \
	X(wq, WQ, ib_uverbs, ib_uverbs_wq_event_handler)                \
	/* >= 6.11: every QP */                                         \
	X(core_qp, CORE_QP, ib_core, __ib_qp_event_handler)             \
	/* port and device events */                                    \
	X(port, PORT, ib_core, ib_dispatch_event_clients)

/*
 * Who took a port down (the autopsy's administrative cause): the process
 * that set a netdev down (ioctl and rtnetlink both reach dev_change_flags;
 * from Linux 6.15 rtnetlink calls netif_change_flags, which the other
 * calls too: hooked instead where it is) or removed an RDMA device (rdma
 * link delete; a driver's removal, as by an unbind). Their records name
 * the current task as their owner.
 */
#define IBVE_KHOOKS_WHO(X)                                           \
	X(setdown, SETDOWN, vmlinux, dev_change_flags)               \
	X(setdown_netif, SETDOWN_NETIF, vmlinux, netif_change_flags) \
	X(unreg, UNREG, ib_core, ib_unregister_device)               \
	X(unreg_put, UNREG_PUT, ib_core, ib_unregister_device_and_put)

#define IBVE_KHOOK_ENUM(name, NAME, module, function) IBVE_KHOOK_##NAME,
enum ibve_khook {
	IBVE_KHOOKS(IBVE_KHOOK_ENUM) IBVE_KHOOKS_WHO(IBVE_KHOOK_ENUM)
		IBVE_KHOOK_COUNT
};
/* The hooks of events (the rest: of who did something). */
#define IBVE_KHOOKS_EVENTS ((1u << IBVE_KHOOK_SETDOWN) - 1)

enum ibve_kflag {
	IBVE_KF_HANDLE = 1u << 0, /* handle: the owner's verbs handle */
	IBVE_KF_OWNER = 1u << 1,  /* tgid, comm, cgroup: a user process */
	IBVE_KF_NUM = 1u << 2,	  /* num: QP or WQ number */
	IBVE_KF_QP_TYPE = 1u << 3,
};

#define IBVE_KNAME 24

struct ibve_kevent {
	__u64 ns;     /* CLOCK_MONOTONIC, when the handler ran */
	__u64 cgroup; /* the owner's cgroup v2 id (kernfs node id) */
	__u32 event;  /* enum ib_event_type */
	__u32 hook;   /* enum ibve_khook */
	__u32 flags;  /* enum ibve_kflag */
	__u32 num;    /* qp_num or wq_num; SETDOWN: the netdev's ifindex */
	__u32 handle;
	__u32 port; /* the QP's port, or the port event's; 0: none */
	__u32 tgid;
	__u32 qp_type;		  /* enum ib_qp_type */
	char comm[16];		  /* the process (thread group leader) */
	char kern[IBVE_KNAME];	  /* kernel owner: restrack kern_name */
	char pd_kern[IBVE_KNAME]; /* ... and its PD's (the RDMA CM's user) */
	char device[64];	  /* SETDOWN: the netdev's name */
	__u32 netns; /* SETDOWN: its network namespace's inode; 0 unknown */
	__u32 pad;
};

/*
 * Storms (a threshold above 0): events are counted per key in a map, the
 * first of each key's interval sent through the ring at once. The key is
 * the object and its owner (their kernel addresses), the event and the hook.
 */
struct ibve_kagg_key {
	__u64 obj;
	__u64 task; /* the owner's task_struct (its address), 0: none */
	__u32 event;
	__u32 hook;
};

struct ibve_kagg {
	__u64 made;  /* ns of the key's first event */
	__u64 start; /* ns of the interval's first event, which was sent */
	__u64 count; /* the key's events not sent, since it was made */
	__u64 epoch; /* the interval of start (the programs' epoch) */
	struct ibve_kevent k; /* the interval's first event */
};

#endif
