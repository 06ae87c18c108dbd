/* SPDX-License-Identifier: MIT */
/*
 * libibvevent: RDMA asynchronous events as plain records.
 *
 * Every source (the verbs async queues of devices, hot-plug, mlx5 DEVX
 * channels, the subnet administrator, replayed captures) produces the same
 * record, struct ibve_event. A pipeline multiplexes sources in one poll
 * loop and hands their records to sinks (text or JSON streams, captures,
 * syslog, a per-port table for metrics and dashboards), or to the caller.
 * Filters and formats work on records from any source. See libibvevent(3).
 *
 * Errors: functions returning int return 0 (or a count) on success and a
 * negative errno on failure; constructors return the object through their
 * first argument. ibve_errmsg() then says more, in one line.
 */
#ifndef IBVEVENT_H
#define IBVEVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ibv_context;
struct ibv_async_event;

/* Version of the library, e.g. "0.1.0". */
const char *ibve_version(void);

enum ibve_feature {
	IBVE_FEATURE_MLX5 = 1u << 0, /* built with the mlx5 DEVX event source */
	IBVE_FEATURE_KERNEL = 1u << 1, /* built with the eBPF "kernel" source */
};

/* What this build of the library can do (enum ibve_feature). */
unsigned int ibve_features(void);

/*
 * The last failure of this thread, in one line for people (without the
 * program's name): what failed and why. Valid until the next failure.
 */
const char *ibve_errmsg(void);
/*
 * Say why a call fails (FMT, for ibve_errmsg()) and return -ERR: the
 * idiom of the library, for code built on it too (sinks of its own).
 */
int ibve_error(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------ */
/* Event descriptions                                                  */

/* New sources and classes may be added: do not size arrays by them. */
enum ibve_source {
	IBVE_SOURCE_VERBS,   /* the verbs async event queue of a context */
	IBVE_SOURCE_HOTPLUG, /* devices appearing and going away */
	IBVE_SOURCE_MLX5,    /* mlx5 DEVX event channel */
	IBVE_SOURCE_SM,	     /* subnet manager traps (SA InformInfo) */
	/*
	 * Every process's affiliated events, seen in the kernel (eBPF). Its
	 * records carry the verbs event codes and names, plus the owner.
	 */
	IBVE_SOURCE_KERNEL,
	/* the link changes of the network devices of RoCE and iWARP ports */
	IBVE_SOURCE_NETDEV = 5,
	/* A port's error counters around its downs (with the autopsy). */
	IBVE_SOURCE_COUNTERS = 6,
	/*
	 * Why a port went down (--autopsy): a verdict from the records of
	 * the other sources around the down, and a record when it is back.
	 */
	IBVE_SOURCE_AUTOPSY = 7,
};

enum ibve_class {
	IBVE_CLASS_DEVICE,
	IBVE_CLASS_PORT,
	IBVE_CLASS_QP,
	IBVE_CLASS_CQ,
	IBVE_CLASS_SRQ,
	IBVE_CLASS_WQ,
	IBVE_CLASS_UNKNOWN, /* an event this version does not know */
};

enum ibve_severity {
	IBVE_SEVERITY_INFO,
	IBVE_SEVERITY_WARNING,
	IBVE_SEVERITY_ERROR,
	IBVE_SEVERITY_FATAL,
};

/* mlx5 codes are EQE types; past the 8-bit type space, our own. */
enum ibve_mlx5_code {
	IBVE_MLX5_PORT_CHANGE = 0x09,
	IBVE_MLX5_PORT_MODULE = 0x16,
	IBVE_MLX5_TEMP_WARN = 0x17,
	IBVE_MLX5_GENERAL = 0x22,
	IBVE_MLX5_EVENTS_LOST = 0x100, /* the channel overflowed */
};

/* Hot-plug codes are those of the kernel's RDMA netlink monitor. */
enum ibve_hotplug_code {
	IBVE_HOTPLUG_DEVICE_ADDED = 0,
	IBVE_HOTPLUG_DEVICE_REMOVED = 1,
	IBVE_HOTPLUG_NETDEV_ATTACH = 2,
	IBVE_HOTPLUG_NETDEV_DETACH = 3,
};

/* IBVE_SOURCE_SM codes: the SM trap numbers. */
enum ibve_sm_code {
	IBVE_SM_GID_IN_SERVICE = 64,
	IBVE_SM_GID_OUT_OF_SERVICE = 65,
	IBVE_SM_MCG_CREATED = 66,
	IBVE_SM_MCG_DELETED = 67,
	/* not a trap: the peer port's PMA counters, looked up with the peer */
	IBVE_SM_PEER_COUNTERS = 256,
};

/* IBVE_SOURCE_NETDEV codes (the port's netdev: IFF_UP, IFF_LOWER_UP). */
enum ibve_netdev_code {
	IBVE_NETDEV_DOWN = 0,	      /* set down (IFF_UP cleared) */
	IBVE_NETDEV_UP = 1,	      /* set up */
	IBVE_NETDEV_CARRIER_LOST = 2, /* up, its carrier lost */
	IBVE_NETDEV_CARRIER_UP = 3,
};

/* IBVE_SOURCE_KERNEL codes: the verbs ones, and past them our own. */
enum ibve_kernel_code {
	IBVE_KERNEL_EVENTS_LOST = 0x100,       /* the ring buffer was full */
	IBVE_KERNEL_NETDEV_SET_DOWN = 0x101,   /* a process set it down */
	IBVE_KERNEL_DEVICE_UNREGISTER = 0x102, /* a process removed it */
};

/* One row of the event table. */
struct ibve_event_desc {
	enum ibve_source source;
	int code;	  /* e.g. enum ibv_event_type for IBVE_SOURCE_VERBS */
	const char *name; /* stable name: the verbs name without IBV_EVENT_ */
	enum ibve_class cls;
	bool affiliated; /* about one object of the owning process */
	enum ibve_severity severity;
	const char *text; /* one line a person understands */
	/*
	 * The MESSAGE_ID of its journal entries: 32 lowercase hex digits,
	 * the same in every version (journalctl MESSAGE_ID=...).
	 */
	const char *message_id;
	/* What an operator should do about it, in a few sentences. */
	const char *advice;
};

/* The row for (source, code), or NULL when this version does not know it. */
const struct ibve_event_desc *ibve_event_desc_find(enum ibve_source source,
						   int code);
/*
 * The row named NAME: case-insensitive, with or without "IBV_EVENT_".
 * NULL when there is none.
 */
const struct ibve_event_desc *ibve_event_desc_lookup(const char *name);
/* Row I of the table, in order; NULL past the end. */
const struct ibve_event_desc *ibve_event_desc_at(size_t i);

const char *ibve_source_name(enum ibve_source source);
const char *ibve_class_name(enum ibve_class cls);
const char *ibve_severity_name(enum ibve_severity severity);
/* Case-insensitive; -1 when NAME is not one. */
int ibve_source_parse(const char *name);
int ibve_class_parse(const char *name);
int ibve_severity_parse(const char *name);

/* ------------------------------------------------------------------ */
/* The record                                                          */

#define IBVE_NAME_MAX	    64 /* device names (IB_DEVICE_NAME_MAX) */
#define IBVE_EVENT_NAME_MAX 32
#define IBVE_IFNAME_MAX	    16

/* Which optional fields of a record are set. */
enum ibve_field {
	IBVE_FIELD_QP_NUM = 1u << 0,   /* qp_num */
	IBVE_FIELD_WQ_NUM = 1u << 1,   /* wq_num */
	IBVE_FIELD_HANDLE = 1u << 2,   /* handle (QP, CQ, SRQ, WQ) */
	IBVE_FIELD_CHARDEV = 1u << 3,  /* chardev */
	IBVE_FIELD_NETDEV = 1u << 4,   /* netdev, netdev_index */
	IBVE_FIELD_MLX5 = 1u << 5,     /* mlx5 */
	IBVE_FIELD_SM = 1u << 6,       /* sm */
	IBVE_FIELD_LOST = 1u << 7,     /* lost */
	IBVE_FIELD_QP_TYPE = 1u << 8,  /* kernel.qp_type */
	IBVE_FIELD_OWNER = 1u << 9,    /* kernel.pid, comm, cgroup */
	IBVE_FIELD_KERNEL = 1u << 10,  /* kernel.consumer */
	IBVE_FIELD_AFTER = 1u << 11,   /* kernel.after, after_port, after_us */
	IBVE_FIELD_DOWN = 1u << 12,    /* verbs.down_us */
	IBVE_FIELD_RATES = 1u << 13,   /* verbs.nrates, verbs.rates */
	IBVE_FIELD_SUMMARY = 1u << 14, /* summary: a storm's summary */
	IBVE_FIELD_PEER = 1u << 15,    /* verbs.peer */
	IBVE_FIELD_ATTRS = 1u << 16,   /* verbs.attrs (not written out) */
	/* counters: phase, counters, counters_more, sample_us */
	IBVE_FIELD_COUNTERS = 1u << 17,
	IBVE_FIELD_IFFLAGS = 1u << 18,	 /* netdev source: ifflags */
	IBVE_FIELD_LINKSTATE = 1u << 19, /* netdev source: linkstate */
};

struct ibve_mlx5_fields {
	uint8_t eqe[64]; /* the raw event queue entry (big-endian fields) */
	uint8_t sub_type;
	uint8_t module;		/* PORT_MODULE */
	uint8_t module_status;	/* PORT_MODULE: 1 plugged ... 4 disabled */
	uint8_t error_type;	/* PORT_MODULE, status error */
	uint64_t sensor_map[2]; /* TEMP_WARN: [0] msb, [1] lsb (bit 0: ASIC) */
};

struct ibve_sm_fields {
	uint8_t gid[16];
	uint16_t issuer_lid;
	uint32_t producer_type;
};

/* The kernel source's: who owns the object, and what came just before. */
struct ibve_kernel_fields {
	uint32_t pid;	   /* the owning process (thread group id) */
	uint32_t qp_type;  /* enum ib_qp_type: 2 RC, 3 UC, 4 UD, ... */
	char comm[16];	   /* its name (the process, not the thread) */
	char consumer[32]; /* a kernel owner: the module, e.g. "nvme_rdma" */
	char cgroup[256];  /* the owner's cgroup v2 path; "" unknown */
	/*
	 * A port or device event of the same device shortly before this
	 * one (IBVE_FIELD_AFTER): its name, port and how long before.
	 */
	char after[IBVE_EVENT_NAME_MAX];
	uint32_t after_port;
	uint64_t after_us;
	/*
	 * With a PORT_ERR: whether its port was active again before this
	 * event, and how long after the PORT_ERR it came back.
	 */
	bool recovered;
	uint64_t recovered_us;
};

/*
 * The far end of a port's link, as the fabric says it: for InfiniBand the
 * subnet administrator (a LinkRecord from our LID and port, then the
 * peer's NodeRecord), for RoCE the LLDP neighbour of the port's netdev. A
 * peer is never guessed: where nobody could say, the state says so.
 */
enum ibve_peer_kind {
	IBVE_PEER_IB,	/* from the SA: guid, port, name, node_type */
	IBVE_PEER_LLDP, /* from lldpd: chassis, port_id, name, port_desc */
};

enum ibve_peer_state {
	IBVE_PEER_UNKNOWN, /* not looked up (yet) */
	IBVE_PEER_NONE,	   /* looked up: none; reason says why */
	IBVE_PEER_KNOWN,
};

/* Node types as NodeInfo says them. */
enum ibve_peer_node {
	IBVE_PEER_NODE_UNKNOWN = 0,
	IBVE_PEER_NODE_CA = 1,
	IBVE_PEER_NODE_SWITCH = 2,
	IBVE_PEER_NODE_ROUTER = 3,
};

struct ibve_peer {
	uint8_t kind;	   /* enum ibve_peer_kind */
	uint8_t state;	   /* enum ibve_peer_state */
	uint8_t node_type; /* enum ibve_peer_node */
	/* known, and not the known one before it: a re-cable or bad patch */
	bool changed;
	uint32_t port;	  /* IB: the peer's port number; 0 unknown */
	uint64_t guid;	  /* IB: the peer's node GUID, host order */
	char chassis[64]; /* LLDP: chassis id */
	char port_id[64]; /* LLDP: port id */
	char name[65];	  /* IB NodeDescription, LLDP system name */
	char port_desc[64];
	char reason[64]; /* NONE: "no SM", the SA's status, ... */
};

/* "ib", "lldp"; "unknown", "none", "known"; "CA", "switch", "router". */
const char *ibve_peer_kind_name(int kind);
const char *ibve_peer_state_name(int state);
const char *ibve_peer_node_name(int node_type);
/*
 * The peer in a few words: "SwitchL[2]" (NAME[PORT], LLDP's port id for
 * its port), "none (no SM)", "unknown". The length, like snprintf.
 */
size_t ibve_peer_format(const struct ibve_peer *p, char *buf, size_t size);
/* Whether A and B are the same far end (kind, identity and port). */
bool ibve_peer_same(const struct ibve_peer *a, const struct ibve_peer *b);

/* A port whose rate changed (DEVICE_SPEED_CHANGE): before and after. */
struct ibve_rate_change {
	uint32_t port;
	char old_rate[28]; /* as sysfs says it: "100 Gb/sec (4X EDR)" */
	char new_rate[28];
};

#define IBVE_RATES_MAX 8

/* A port's attributes as sysfs says them; "" what could not be read. */
struct ibve_port_attrs {
	int state; /* enum ibv_port_state; 0 when unknown */
	char state_name[16];
	char phys_state[32];
	char link_layer[16];
	char rate[40];
	char address[48]; /* "LID 0x12" or the first GID as IPv6 */
};

/* The verbs source's port and device records. */
struct ibve_verbs_fields {
	/* PORT_ACTIVE: how long the port was down (IBVE_FIELD_DOWN) */
	uint64_t down_us;
	union {
		/* DEVICE_SPEED_CHANGE: the ports whose rate changed (RATES) */
		struct {
			uint32_t nrates;
			struct ibve_rate_change rates[IBVE_RATES_MAX];
		};
		/*
		 * a port's events: its peer, as last known (PEER); its
		 * attributes, read for the event (ATTRS): the port table's
		 */
		struct {
			struct ibve_peer peer;
			struct ibve_port_attrs attrs;
		};
	};
};

/*
 * A counters record's: the port's error counters (sysfs counters/ and
 * hw_counters/) that moved between two samples, the largest moves first.
 */
#define IBVE_COUNTERS_KEPT 8

struct ibve_counters_fields {
	uint64_t sample_us; /* between the two samples */
	uint32_t more;	    /* counters that moved beyond those kept */
	uint8_t n;	    /* those kept */
	/* false, "before": from the last sample to the port's down; true,
	 * "since": from the down to its PORT_ACTIVE */
	bool since;
	struct ibve_counter_move {
		uint64_t delta;
		char name[47]; /* "symbol_error" */
		bool hw;       /* of hw_counters/ */
	} moved[IBVE_COUNTERS_KEPT];
};

/*
 * A summary record (IBVE_FIELD_SUMMARY) stands for COUNT events of one
 * key (event, device, port and, for affiliated events, the owner) that
 * came in a storm: the record is the first of them, its time the end of
 * the interval they came in.
 */
struct ibve_summary {
	uint64_t count;	      /* the events it stands for (0: none came) */
	uint64_t interval_us; /* the interval, ending at the record's time */
	/* the last event's object (qp_num, wq_num or handle) */
	uint32_t last_object;
	bool has_last;
	/* the storm's last summary: every event of the storm, over how long */
	bool end;
	uint64_t total;
	uint64_t storm_us;
};

/* Bytes of a record's per-source area: room for the fields of sources to come. */
#define IBVE_EVENT_AREA 512

/*
 * One event. Plain data owned by the caller: no pointer into libibverbs
 * objects, so records can be copied, queued, written and compared. Its size
 * does not change when a source is added: a source's own fields live in the
 * per-source area, and fields says which are set.
 */
struct ibve_event {
	struct timespec time; /* CLOCK_REALTIME when the event was read */
	char device[IBVE_NAME_MAX];
	char name[IBVE_EVENT_NAME_MAX]; /* desc name, or e.g. "UNKNOWN(20)" */
	const struct ibve_event_desc *desc; /* NULL when unknown */
	uint64_t node_guid;		    /* host byte order; 0 unknown */
	uint32_t port;			    /* 0: not about one port */
	int32_t code;			    /* -1: none */
	enum ibve_source source;
	enum ibve_class cls;
	enum ibve_severity severity;
	bool affiliated;
	uint32_t fields; /* enum ibve_field */
	uint32_t qp_num;
	uint32_t wq_num;
	uint32_t handle;
	uint64_t lost; /* events the source lost before this one */
	char chardev[IBVE_IFNAME_MAX]; /* e.g. "uverbs0" */
	char netdev[IBVE_IFNAME_MAX];
	uint32_t netdev_index;
	union {
		struct ibve_mlx5_fields mlx5;	  /* IBVE_FIELD_MLX5 */
		struct ibve_sm_fields sm;	  /* IBVE_FIELD_SM */
		struct ibve_kernel_fields kernel; /* OWNER, KERNEL, AFTER... */
		struct ibve_verbs_fields verbs;	  /* DOWN, RATES */
		struct ibve_counters_fields counters; /* COUNTERS */
		unsigned char area[IBVE_EVENT_AREA];
	};
	struct ibve_summary summary; /* IBVE_FIELD_SUMMARY */
};

/* How many events EV stands for: a summary's count, else 1. */
uint64_t ibve_event_count(const struct ibve_event *ev);

/* "RC", "UD", ... of an enum ib_qp_type; "QPT(N)" for others. */
const char *ibve_qp_type_name(uint32_t type);
/*
 * The job a cgroup v2 PATH belongs to, for people: "slurm job 1234",
 * "pod 8d1e..." (Kubernetes); "" when it names none. The length, like
 * snprintf.
 */
size_t ibve_cgroup_job(const char *path, char *buf, size_t size);

/*
 * Fill EV from a verbs async event read from DEVICE's context, reading
 * the union member that belongs to the event's class (port number only for
 * port events; qp_num and handles for the caller's own objects).
 */
void ibve_event_from_verbs(struct ibve_event *ev,
			   const struct ibv_async_event *ae, const char *device,
			   uint64_t node_guid);
/* Set name, class, severity, affiliation and desc from (source, code). */
void ibve_event_set_code(struct ibve_event *ev, enum ibve_source source,
			 int code);
/* The explanation of EV: its desc's text, or a generic one. */
const char *ibve_event_text(const struct ibve_event *ev);
/*
 * The MESSAGE_ID of EV's journal entry: its desc's (a link autopsy's
 * verdict: its cause's), or the one of every event this version does not
 * know (UNKNOWN(n)).
 */
const char *ibve_event_message_id(const struct ibve_event *ev);
/*
 * Fill EV's name, class, severity, port and mlx5 fields from a 64-byte
 * mlx5 event queue entry (as mlx5dv_devx_get_event() returns it after the
 * cookie). Unknown types and sub-types decode too. -EINVAL if LEN < 64.
 */
int ibve_mlx5_decode(struct ibve_event *ev, const uint8_t *eqe, size_t len);

/* ------------------------------------------------------------------ */
/* Output                                                              */

enum ibve_format_flags {
	IBVE_FORMAT_COLOR = 1u << 0, /* text: ANSI colours by severity */
	IBVE_FORMAT_JSON = 1u << 1,  /* streams: JSON Lines, not text */
};

/*
 * Write EV as one line (with '\n') into BUF: text in local time (TZ),
 * JSON with UTC. Return the length written, or the length needed (like
 * snprintf) when SIZE is too small.
 */
size_t ibve_event_format_text(const struct ibve_event *ev, char *buf,
			      size_t size, unsigned int flags);
size_t ibve_event_format_json(const struct ibve_event *ev, char *buf,
			      size_t size);
/* The object or detail words of text, e.g. " (qp 0x00126b, handle 16)". */
size_t ibve_event_format_details(const struct ibve_event *ev, char *buf,
				 size_t size);
/*
 * EV as one syslog message, no newline: "device=rxe0 port=1
 * event=PORT_ERR severity=error code=10 source=verbs: port left ...".
 */
size_t ibve_event_format_syslog(const struct ibve_event *ev, char *buf,
				size_t size);
/* The syslog(3) level of a severity: LOG_INFO ... LOG_CRIT. */
int ibve_severity_syslog(enum ibve_severity severity);
/* RFC 3339 UTC with nanoseconds: 2026-01-02T03:04:05.123456789Z. */
size_t ibve_time_format(const struct timespec *ts, char *buf, size_t size);
/* Parse what ibve_time_format writes (any fraction, Z or +hh:mm). */
int ibve_time_parse(const char *s, struct timespec *ts);
/* GUID as in ibv_devinfo: 0002:c903:0011:2233. */
size_t ibve_guid_format(uint64_t guid, char *buf, size_t size);
int ibve_guid_parse(const char *s, uint64_t *guid);

/*
 * Parse one JSON Lines record (what ibve_event_format_json writes) into
 * EV. "time", "device", "port" and "event" or "code" (or an mlx5 "eqe")
 * are required; unknown fields are ignored. Returns 0, or -EINVAL with the
 * reason in ibve_errmsg().
 */
int ibve_event_parse_json(const char *line, size_t len, struct ibve_event *ev);

/* ------------------------------------------------------------------ */
/* Filters                                                             */

struct ibve_filter;

int ibve_filter_new(struct ibve_filter **f);
void ibve_filter_free(struct ibve_filter *f);
/*
 * Add a comma-separated list of terms to the include (EXCLUDE false) or
 * exclude set, all or nothing. A term is an event name (any case,
 * IBV_EVENT_ prefix optional, or UNKNOWN(N)), a class (device, port, qp,
 * cq, srq, wq, unknown), a source (ibve_source_name(): verbs, ...) or a
 * severity threshold (severity>=warning, severity=error, severity<=info;
 * also >=warning). -EINVAL names the bad term in ibve_errmsg().
 */
int ibve_filter_add_terms(struct ibve_filter *f, const char *list,
			  bool exclude);
/* Only events of these devices / ports (repeatable). */
int ibve_filter_add_device(struct ibve_filter *f, const char *device);
int ibve_filter_add_port(struct ibve_filter *f, uint32_t port);
/*
 * Only events of objects owned by process PID, or by processes called
 * COMM (the kernel source's owner; repeatable). Records with no owner
 * never pass such a filter.
 */
int ibve_filter_add_pid(struct ibve_filter *f, uint32_t pid);
int ibve_filter_add_comm(struct ibve_filter *f, const char *comm);
/*
 * True when EV passes: device and port match (events not about one port
 * always pass the port test), some include term matches or there are none,
 * and no exclude term matches.
 */
bool ibve_filter_match(const struct ibve_filter *f,
		       const struct ibve_event *ev);
/* Whether a row of DEVICE/PORT (0: device-wide) is one the filter keeps. */
bool ibve_filter_match_port(const struct ibve_filter *f, const char *device,
			    uint32_t port);
/* True when the filter has no terms, devices or ports. */
bool ibve_filter_is_empty(const struct ibve_filter *f);

/* ------------------------------------------------------------------ */
/* Devices and ports                                                   */

struct ibve_gid {
	uint8_t raw[16];
	uint32_t index;
	char type[16]; /* "IB", "RoCE v1", "RoCE v2" */
	char netdev[IBVE_IFNAME_MAX];
};

struct ibve_port_info {
	uint32_t num;
	int state;	/* enum ibv_port_state */
	int phys_state; /* 5 = LinkUp */
	int link_layer; /* IBV_LINK_LAYER_* */
	double rate_gbps;
	char rate[32]; /* e.g. "100 Gb/sec (4X EDR)" */
	uint32_t lid;
	uint32_t sm_lid;
	uint8_t lmc;
	uint32_t pkey_tbl_len;
	uint32_t gid_tbl_len;
	size_t gid_count;
	struct ibve_gid *gids;
	char netdev[IBVE_IFNAME_MAX];
	struct ibve_peer peer; /* ibve_device_list_peers(); else unknown */
};

struct ibve_device_info {
	char name[IBVE_NAME_MAX];
	char chardev[IBVE_IFNAME_MAX]; /* uverbs0 */
	uint64_t node_guid;
	uint64_t sys_image_guid;
	int node_type;	    /* enum ibv_node_type */
	int transport_type; /* enum ibv_transport_type */
	char fw_ver[64];
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	size_t port_count;
	struct ibve_port_info *ports;
	int error; /* errno when the device could not be opened or queried */
};

/*
 * Every RDMA device of the host (in the order libibverbs lists them) with
 * every port. A device that cannot be opened is listed with error set.
 * Returns the count (>= 0) or -errno (-ENOSYS: the kernel offers no RDMA
 * to user space); free with ibve_device_list_free().
 */
int ibve_device_list_get(struct ibve_device_info **list);
/*
 * The same, of the devices WANT says yes to (by name): the others are not
 * opened nor read.
 */
int ibve_device_list_select(struct ibve_device_info **list,
			    bool (*want)(const char *name, void *arg),
			    void *arg);
void ibve_device_list_free(struct ibve_device_info *list, size_t count);
/*
 * The error for a device NAME that does not exist, naming those that do
 * (/sys/class/infiniband) in ibve_errmsg(); returns -ENODEV.
 */
int ibve_device_unknown(const char *name);
/*
 * Ask the subnet administrator, through libibumad, the peer of every
 * InfiniBand port of *LIST (COUNT devices), in turn; a port nobody could
 * say it of has a peer that says none and why. Devices libibumad offers
 * that *LIST lacks (a fabric simulator's; WANT says which) are added with
 * what it says of them (*LIST reallocated). The new count or -errno.
 */
int ibve_device_list_peers(struct ibve_device_info **list, size_t count,
			   bool (*want)(const char *name, void *arg),
			   void *arg);
/*
 * Ask lldpd (through liblldpctl, loaded now) the LLDP neighbour of the
 * netdev of every RoCE port of LIST (COUNT devices): known, or none and
 * why. 0 (also with no RoCE port); else -errno, why in ibve_errmsg()
 * (-ELIBACC: no liblldpctl; -ENOTSUP: built without it; -ENOENT: no lldpd
 * socket, lldpd not started; -ECONNREFUSED: its socket refuses), the peers
 * left unknown.
 */
int ibve_device_list_lldp(struct ibve_device_info *list, size_t count);
/*
 * From now on, before the library lists devices, load only the libibverbs
 * providers the present devices need (the kernel names each device's), not
 * every one libibverbs knows of. It relies on libibverbs' private ABI:
 * where that cannot be found, a provider does not load, or RDMAV_DRIVERS
 * or IBV_DRIVERS is set, libibverbs loads the providers itself. A program
 * that does not call it gets libibverbs' own loading.
 */
void ibve_providers_preload(void);
/*
 * Write D to F: text for people, or one JSON object on one line; PORT 0
 * shows every port. Returns 0 or -errno.
 */
int ibve_device_print(FILE *f, const struct ibve_device_info *d, uint32_t port,
		      bool json);
/* "ACTIVE", "DOWN", ...; "LinkUp", "Polling", ...; "InfiniBand", ... */
const char *ibve_port_state_name(int state);
const char *ibve_port_phys_state_name(int phys_state);
const char *ibve_link_layer_name(int link_layer);
const char *ibve_node_type_name(int node_type);
const char *ibve_transport_name(int transport_type);

/* ------------------------------------------------------------------ */
/* One poll loop: fds, signals and a deadline                          */

struct ibve_loop;

/* Return 0 to go on, anything else to stop the loop with that value. */
typedef int (*ibve_loop_fd_cb)(int fd, short revents, void *arg);
typedef int (*ibve_loop_signal_cb)(int signo, void *arg);
typedef int (*ibve_loop_idle_cb)(void *arg);

int ibve_loop_new(struct ibve_loop **l);
void ibve_loop_free(struct ibve_loop *l);
int ibve_loop_add_fd(struct ibve_loop *l, int fd, short events,
		     ibve_loop_fd_cb cb, void *arg);
int ibve_loop_remove_fd(struct ibve_loop *l, int fd);
/* Blocks SIGNO and delivers it through a signalfd. */
int ibve_loop_add_signal(struct ibve_loop *l, int signo, ibve_loop_signal_cb cb,
			 void *arg);
/* Called every time before the loop blocks (e.g. to flush output). */
void ibve_loop_set_idle(struct ibve_loop *l, ibve_loop_idle_cb cb, void *arg);
/*
 * Something that wants to run at times (a server's connection timeouts,
 * storm summaries): before blocking the loop asks NEXT for the
 * milliseconds until then (-1: never, so an idle loop stays idle) and
 * calls RUN once they have passed (0); NEXT is asked once each time the
 * loop blocks. One wakeup per ARG: set again, it is replaced; NEXT NULL
 * removes it. A loop keeps four at most: a fifth is -ENOSPC (0 otherwise).
 */
int ibve_loop_set_wakeup(struct ibve_loop *l, int (*next)(void *arg),
			 void (*run)(void *arg), void *arg);
/* Stop with STATUS at the CLOCK_MONOTONIC time DEADLINE (NULL: none). */
void ibve_loop_set_deadline(struct ibve_loop *l,
			    const struct timespec *deadline, int status);
/*
 * Poll until a callback returns non-zero or the deadline passes; returns
 * that value, or -errno when polling itself fails.
 */
int ibve_loop_run(struct ibve_loop *l);

/* ------------------------------------------------------------------ */
/* The pipeline: sources, one loop, sinks                              */

struct ibve_pipeline;
struct ibve_sink;

int ibve_pipeline_new(struct ibve_pipeline **p);
/* Stops every source (at once: devices are released) and frees sinks. */
void ibve_pipeline_free(struct ibve_pipeline *p);

/*
 * What the sources have to tell people while they run: what one could not
 * do but went on without (IBVE_NOTE), and malformed input lines of a
 * replay, as "FILE:LINE: reason" (IBVE_NOTE_INPUT).
 */
enum ibve_note_kind { IBVE_NOTE, IBVE_NOTE_INPUT };
typedef void (*ibve_note_cb)(enum ibve_note_kind kind, const char *text,
			     void *arg);
/* Where notes go (by default nowhere). */
void ibve_pipeline_set_notes(struct ibve_pipeline *p, ibve_note_cb cb,
			     void *arg);

enum ibve_source_flags {
	/*
	 * "mlx5": at least one device (each named one) must have its DEVX
	 * events; "sm": at least one InfiniBand port must be subscribed.
	 */
	IBVE_SRC_REQUIRED = 1u << 0,
	/* "hotplug": uevents even where the RDMA netlink monitor exists. */
	IBVE_SRC_UEVENT_ONLY = 1u << 1,
	/* 1u << 2: retired, never to be reused (ABI); was ibsim's, see src_sm.c */
	/* "replay" with a step: take STEP seconds of real time per step. */
	IBVE_SRC_PACED = 1u << 3,
	/* "kernel": kprobes, not fentry, even where fentry works. */
	IBVE_SRC_KPROBE = 1u << 4,
	/*
	 * "devices" over every device: none yet (or no RDMA in the kernel
	 * yet) is not a failure; with "hotplug", those that appear are
	 * watched.
	 */
	IBVE_SRC_WAIT = 1u << 5,
};

/* Options of a source; set sz, leave what does not apply zero. */
struct ibve_source_opts {
	size_t sz;	    /* sizeof(struct ibve_source_opts) */
	unsigned int flags; /* enum ibve_source_flags */
	/*
	 * "devices", "mlx5", "sm": these devices only (NULL: every device,
	 * present and, with "hotplug", future).
	 */
	const char *const *devices;
	size_t ndevices;
	/* "devices": watch this context of the caller's, named DEVICE, alone
	 * (its affiliated events carry qp_num and handles); never closed. */
	struct ibv_context *context;
	/* "replay": the capture ("-": standard input). */
	const char *path;
	/*
	 * "replay": follow the capture's clock in steps of STEP seconds of
	 * capture time, as fast as records can be read or, with
	 * IBVE_SRC_PACED, one step per STEP seconds; 0: no clock.
	 */
	double step;
	/* "sm": renew every subscription every REFRESH seconds (0: 60). */
	unsigned int refresh;
	/*
	 * "kernel": an object's event names the port or device event of its
	 * device that came at most AFTER_WINDOW seconds before (0: 5).
	 */
	unsigned int after_window;
};

/*
 * Add the source called NAME: "devices" (the verbs async events of
 * devices), "hotplug" (devices coming and going), "mlx5" (DEVX device
 * events of mlx5 devices), "sm" (subnet events from the subnet
 * administrator), "kernel" (every process's affiliated events, from eBPF
 * programs on the kernel's event handlers; needs CAP_BPF and CAP_PERFMON),
 * "netdev" (the link changes of the network devices of the RoCE and
 * iWARP ports the "devices" source watches, from rtnetlink),
 * "replay" (a JSON Lines capture). -ENOENT for a name
 * this version does not know. Nothing is opened before ibve_pipeline_start().
 */
int ibve_pipeline_add_source(struct ibve_pipeline *p, const char *name,
			     const struct ibve_source_opts *o);
/*
 * An option by which people ask for a source (a command's -A, --sm, --mlx5):
 * each source says its own, and commands offer them as they are.
 */
struct ibve_source_option {
	const char *name;   /* its long option: "all-processes" */
	int letter;	    /* its short option, 'A'; 0: none */
	const char *help;   /* its lines of --help, '\n' between */
	unsigned int flags; /* enum ibve_source_flags it sets on its source */
};

/*
 * The I-th option of every source (in the order sources are known), and
 * the name of the source it asks for in *SOURCE; NULL past the last.
 */
const struct ibve_source_option *ibve_source_option_at(size_t i,
						       const char **source);
/*
 * Add the sources of live devices: every source that needs no asking, and
 * the sources of the options ASKED has (bit I: option I) with those that
 * come with them (the autopsy's evidence), each with O and the flags of
 * its options asked for. 0 or -errno.
 */
int ibve_pipeline_add_live(struct ibve_pipeline *p,
			   const struct ibve_source_opts *o, uint64_t asked);
/*
 * Open every source, each in the order it needs (subnet agents before the
 * devices whose ports they serve). -errno with the reason in
 * ibve_errmsg(): -ENOSYS no RDMA at all, -ENODEV a named device that does
 * not exist, -EACCES a device node that may not be opened, -ENOTSUP a
 * source IBVE_SRC_REQUIRED that found nothing to open.
 */
int ibve_pipeline_start(struct ibve_pipeline *p);
/* The name of the source ibve_pipeline_start() failed in, or NULL. */
const char *ibve_pipeline_failed(const struct ibve_pipeline *p);
/*
 * One line for people of what is watched, e.g. "1 device: rxe0
 * (hot-plug: netlink)", into BUF; the length, like snprintf.
 */
size_t ibve_pipeline_describe(const struct ibve_pipeline *p, char *buf,
			      size_t size);
/* Names of the devices open now, up to MAX; returns how many are open. */
size_t ibve_pipeline_devices(const struct ibve_pipeline *p, const char **names,
			     size_t max);

/*
 * Never open nor read devices matching GLOB (fnmatch(3)), in any source;
 * records of them (a replay's) reach no sink and no stop condition (a
 * caller that reads still gets them). Before ibve_pipeline_start().
 */
int ibve_pipeline_exclude_device(struct ibve_pipeline *p, const char *glob);

/* The filter records pass to reach filtered sinks, --count and --expect. */
void ibve_pipeline_set_filter(struct ibve_pipeline *p,
			      const struct ibve_filter *f);

enum ibve_sink_flags {
	/* Every record, not only those that pass the pipeline's filter. */
	IBVE_SINK_ALL = 1u << 0,
	/* A storm's records as summaries (ibve_pipeline_set_storm()). */
	IBVE_SINK_SUMMARY = 1u << 1,
};

/*
 * Storms: in a run, once more than THRESHOLD events of one key (event,
 * device, port and, for affiliated events, the owner: pid, comm or kernel
 * consumer) come within a second, sinks added with IBVE_SINK_SUMMARY get
 * one summary record of that key a second while it lasts and one when it
 * ends (summary.end), instead of each event; 0 (the default): every event.
 * Intervals end by the records' time and, live, by the clock; every storm
 * ends when the run does. Counts (--count, --expect, metrics) are of
 * events, before summaries. Set before ibve_pipeline_start(), a threshold
 * above 0 also has the "kernel" source count each object's storm in the
 * kernel: its first event of a second is a record, the rest of that second
 * one summary record (count) read at most once a second, for every sink.
 */
void ibve_pipeline_set_storm(struct ibve_pipeline *p, unsigned long threshold);

/* Hand sink S (now the pipeline's) the records. */
int ibve_pipeline_add_sink(struct ibve_pipeline *p, struct ibve_sink *s,
			   unsigned int flags);

/*
 * Pull: the fd to poll for POLLIN, and up to MAX ready records without
 * blocking (sinks see them too); the count, or -errno. Every verbs event
 * is acknowledged right after it is copied.
 */
int ibve_pipeline_fd(const struct ibve_pipeline *p);
int ibve_pipeline_read(struct ibve_pipeline *p, struct ibve_event *evs,
		       size_t max);

/* Why ibve_pipeline_run() returned. */
enum ibve_stop {
	IBVE_STOP_END = 1,   /* every source ended (the replay was read) */
	IBVE_STOP_COUNT,     /* COUNT records passed the filter */
	IBVE_STOP_EXPECT,    /* an expected record came */
	IBVE_STOP_TIMEOUT,   /* the time was up */
	IBVE_STOP_USER = 64, /* from here on: the caller's own callbacks */
};

struct ibve_run_opts {
	size_t sz;
	unsigned long count; /* stop after COUNT filtered records (0: no) */
	/* stop at the first filtered record this matches (NULL: no) */
	const struct ibve_filter *expect;
	double timeout; /* seconds (0: none) */
	/* go on after every source ended (a screen that still takes keys) */
	bool linger;
};

/*
 * Push: the loop (with the caller's own fds and signals, added to
 * ibve_pipeline_loop()) until a stop; returns enum ibve_stop, a
 * callback's own value, or -errno (a sink that could not write: reason
 * in ibve_errmsg(); -EPIPE when a stream's reader went away).
 */
int ibve_pipeline_run(struct ibve_pipeline *p, const struct ibve_run_opts *o);
struct ibve_loop *ibve_pipeline_loop(struct ibve_pipeline *p);
/* Whether every source has ended (a replay that was read). */
bool ibve_pipeline_ended(const struct ibve_pipeline *p);
/* Called in run each time before the loop waits (sinks flushed). */
void ibve_pipeline_set_idle(struct ibve_pipeline *p, int (*cb)(void *arg),
			    void *arg);
/* Malformed input lines seen so far (replay). */
unsigned long ibve_pipeline_bad_input(const struct ibve_pipeline *p);
/*
 * Called, in run, at each step of a replay's clock (IBVE_SOURCE_OPTS.step)
 * once the step's records went to the sinks, and once at the end; returns
 * 0 or a stop value.
 */
void ibve_pipeline_set_clock(struct ibve_pipeline *p,
			     int (*cb)(const struct timespec *now, void *arg),
			     void *arg);

/* ------------------------------------------------------------------ */
/* Sinks                                                               */

/*
 * Records as lines on F (IBVE_FORMAT_JSON: JSON Lines; COLOR: text in
 * colour), flushed before the loop waits; WHAT names F in errors
 * ("standard output").
 */
int ibve_sink_stream(struct ibve_sink **s, FILE *f, const char *what,
		     unsigned int flags);
/* JSON Lines appended to PATH, opened now. */
int ibve_sink_capture(struct ibve_sink **s, const char *path);
/*
 * One syslog message per record, as syslog(3) with openlog(IDENT, LOG_PID,
 * FACILITY) would send it, to the same socket; a message the daemon does
 * not take is lost, said once in a note and counted, and the run goes on.
 */
int ibve_sink_syslog(struct ibve_sink **s, const char *ident, int facility);
/*
 * One native systemd journal entry per record, SYSLOG_IDENTIFIER=IDENT:
 * MESSAGE (the syslog text), PRIORITY, MESSAGE_ID, and RDMA_<KEY> for each
 * member of the record's JSON. libsystemd.so.0 is loaded now; -ENOENT when
 * it cannot be, and -errno when journald's socket cannot be reached. An
 * entry journald refuses later is lost, said once in a note and counted.
 */
int ibve_sink_journal(struct ibve_sink **s, const char *ident);
/* Records counted into the port table T (the caller's). */
struct ibve_ports;
int ibve_sink_ports(struct ibve_sink **s, struct ibve_ports *t);
/*
 * The Prometheus metrics of T (the caller's) written to FILE (NULL: no
 * file) and its counters kept in STATE (NULL: none) when records changed
 * them, before the loop waits.
 */
int ibve_sink_metrics(struct ibve_sink **s, struct ibve_ports *t,
		      const char *file, const char *state);
/* FN for each record; a non-zero return stops the run with that value. */
int ibve_sink_callback(struct ibve_sink **s,
		       int (*fn)(const struct ibve_event *ev, void *arg),
		       void *arg);
/* A sink not handed to a pipeline. */
void ibve_sink_free(struct ibve_sink *s);

/* ------------------------------------------------------------------ */
/* The port table: what metrics and dashboards show of every port      */

/*
 * What a port's events are counted as: one table, each kind's name (the
 * JSON of dashboards), its column's title and width in ibv_eventtop. Each
 * source says which of its events count as which (other: none).
 */
#define IBVE_KINDS(X)                                                 \
	X(LINK_DOWN, "link_down", "DOWN", 5) /* PORT_ERR */           \
	X(LINK_UP, "link_up", "UP", 5)	     /* PORT_ACTIVE */        \
	X(LID, "lid_change", "LID", 4)                                \
	X(PKEY, "pkey_change", "PKEY", 4)                             \
	X(SM, "sm_change", "SM", 4)                                   \
	X(GID, "gid_change", "GID", 4)                                \
	X(REREG, "client_reregister", "REREG", 5)                     \
	X(FATAL, "fatal", "FATAL", 5)	  /* DEVICE_FATAL, mlx5's */  \
	X(MODULE, "module", "MODULE", 6)  /* mlx5: cables, modules */ \
	X(TEMP, "temperature", "TEMP", 4) /* mlx5 TEMP_WARN */        \
	X(SUBNET, "subnet", "SUBNET", 6)  /* subnet events (sm) */    \
	X(OTHER, "other", "OTHER", 5)

#define IBVE_KIND_ID(id, name, title, width) IBVE_KIND_##id,
enum ibve_kind {
	IBVE_KINDS(IBVE_KIND_ID)
	/* kinds may be added after OTHER, and sources add their own */
	IBVE_KIND_MAX = 32
};
#undef IBVE_KIND_ID

struct ibve_kind_info {
	const char *name;  /* "link_down" */
	const char *title; /* its column in ibv_eventtop: "DOWN" */
	int width;
};

/* Kind KIND, or NULL past the last one (sources' kinds follow OTHER). */
const struct ibve_kind_info *ibve_kind_info(unsigned int kind);
/* Name of a kind as the JSON of dashboards has it ("link_down"). */
const char *ibve_kind_name(enum ibve_kind kind);
/* The kind EV is counted as. */
enum ibve_kind ibve_event_kind(const struct ibve_event *ev);

/* An error counter of a port (counters/ or hw_counters/ in sysfs). */
struct ibve_counter {
	char name[48];
	bool hw;	/* hw_counters/ (driver) rather than counters/ */
	uint64_t value; /* last read */
	uint64_t delta; /* since start (or the last reset) */
	double rate;	/* per second, over the last interval */
	bool changed;	/* moved in the last interval */
};

/* A row of the table: one port (port 0: a capture's device-wide events). */
struct ibve_port_row {
	char device[IBVE_NAME_MAX];
	uint32_t port;
	char state[16];	     /* ACTIVE, DOWN, ... or "-" */
	int state_num;	     /* enum ibv_port_state; 0: unknown */
	char phys_state[32]; /* LinkUp, Polling, ... or "-" */
	char link_layer[16]; /* InfiniBand, Ethernet or "-" */
	char rate[40];	     /* "100 Gb/sec (4X EDR)" or "-" */
	char address[48];    /* "LID 0x12" or the first GID, or "-" */
	bool live;	     /* attributes read from sysfs */
	uint64_t counts[IBVE_KIND_MAX];
	uint64_t total;
	unsigned int per_minute;	      /* events in the last 60 s */
	char last_event[IBVE_EVENT_NAME_MAX]; /* "" when none */
	struct timespec last_time;
	double last_age; /* seconds, at the last sample */
	size_t counter_count;
	const struct ibve_counter *counters;
	size_t moved; /* counters with delta > 0 */
	/* health (rows are the table's: fields are added at the end) */
	struct timespec since; /* up or down since then; 0: not known */
	bool since_start;      /* since is the table's start: no change seen */
	double since_age;      /* seconds since then, at the last sample */
	double last_down; /* seconds the port was last down; 0: none seen */
	uint64_t flaps;	  /* since start, or across restarts (state) */
	unsigned int flaps_window; /* in the flap window, at the last sample */
	double rate_gbps;	   /* the rate's number; 0 unknown */
	struct timespec rate_changed; /* the last speed/width change; 0 none */
	char old_rate[40];	      /* the rate before it */
	unsigned int counter_resets;  /* counters seen going backwards */
	struct ibve_peer peer;	      /* the last known far end */
	char down_cause[32]; /* the autopsy's cause of its last down; "" none */
};

struct ibve_ports_summary {
	char host[64];	 /* "" from a capture */
	char kernel[64]; /* "" from a capture */
	size_t devices;
	size_t ports;
	uint64_t events;     /* since start (or the last reset) */
	double per_second;   /* over the last interval */
	double uptime;	     /* seconds the table has been up (capture time) */
	struct timespec now; /* of the last sample */
	uint64_t kinds[IBVE_KIND_MAX]; /* events of each kind, every row */
};

enum ibve_ports_flags {
	/* Live: ports of devices that are there, attributes from sysfs. */
	IBVE_PORTS_SYSFS = 1u << 0,
	/* Live: the error counters of every port, read at each sample. */
	IBVE_PORTS_COUNTERS = 1u << 1,
	/* Keep the last 512 records (ibve_ports_recent()). */
	IBVE_PORTS_RECENT = 1u << 2,
};

struct ibve_ports;

int ibve_ports_new(struct ibve_ports **t, unsigned int flags);
void ibve_ports_free(struct ibve_ports *t);
/*
 * DEVICE is there (NODE_GUID 0: read it from sysfs); live, its ports get
 * rows. Rows of devices a pipeline opens are added when it starts.
 */
int ibve_ports_add_device(struct ibve_ports *t, const char *device,
			  uint64_t node_guid);
/*
 * Count EV. DEVICE_ADDED and DEVICE_REMOVED set the device's presence
 * (live: add and drop its rows); a port event refreshes the port (live:
 * from sysfs; from a capture, PORT_ERR and PORT_ACTIVE set the state);
 * events of the whole device count on each of its rows.
 */
void ibve_ports_event(struct ibve_ports *t, const struct ibve_event *ev);
/* Refresh attributes, counters, rates and ages as of NOW (wall time). */
void ibve_ports_sample(struct ibve_ports *t, const struct timespec *now);
/* Zero the counts and flaps; the counters' current values are the base. */
void ibve_ports_reset(struct ibve_ports *t);
/*
 * A flap is a PORT_ERR followed by PORT_ACTIVE within SECONDS (default
 * 600); flaps_window counts those of the last SECONDS.
 */
void ibve_ports_set_flap_window(struct ibve_ports *t, double seconds);
/*
 * Ask the subnet administrator, through libibumad, the peer of every
 * InfiniBand port of T, a port at a time (ibve_device_list_peers()), into
 * its row's peer. 0 or -errno (no management devices).
 */
int ibve_ports_lookup_peers(struct ibve_ports *t);
/* Rows in (device, port) order. */
size_t ibve_ports_count(const struct ibve_ports *t);
const struct ibve_port_row *ibve_ports_at(const struct ibve_ports *t, size_t i);
/* The I-th most recent record (0: newest); NULL past what is kept. */
const struct ibve_event *ibve_ports_recent(const struct ibve_ports *t,
					   size_t i);
/* The whole table, as of the last sample. */
const struct ibve_ports_summary *ibve_ports_summary(const struct ibve_ports *t);

/* Prometheus text exposition (version 0.0.4) of T's counters and ports. */
size_t ibve_metrics_format(const struct ibve_ports *t, char *buf, size_t size);
/* Write the exposition to PATH atomically (temporary file, rename). */
int ibve_metrics_write(const struct ibve_ports *t, const char *path);
/*
 * Keep the counters, last times and each port's health (since when, flaps)
 * across restarts, with the boot they belong to (atomic, fsync'ed).
 */
int ibve_metrics_save(const struct ibve_ports *t, const char *path);
/*
 * Add the counters of a saved state, and the ports' health to rows as they
 * come. 0; 1 when it was saved in another boot: counters are kept, the
 * ports' since times and recent flaps are not (why in ibve_errmsg());
 * -EINVAL: "PATH:LINE: not a metrics state line" in ibve_errmsg().
 */
int ibve_metrics_load(struct ibve_ports *t, const char *path);

/* ------------------------------------------------------------------ */
/* Health checks: expected ports against a port table                  */

struct ibve_check;

/* A port that fails its expectations (port 0: the device). */
struct ibve_check_problem {
	char device[IBVE_NAME_MAX];
	uint32_t port;
	char brief[64]; /* its first reason, short: "DOWN", "rate 25<100 Gb/s" */
	char what[448]; /* every reason, for people */
};

int ibve_check_new(struct ibve_check **c);
void ibve_check_free(struct ibve_check *c);
/*
 * One line of a spec: "DEVICE[/PORT] [state=S] [rate>=GBPS] [link=L]
 * [flaps<=N] [peer=NAME[:PORT]]" (DEVICE and PORT are globs; state ACTIVE
 * unless said, "any" for none; the peer's name and port globs against the
 * row's peer), or "exclude DEVICE" (a glob); '#' starts a comment. -EINVAL
 * with the reason in ibve_errmsg().
 */
int ibve_check_add(struct ibve_check *c, const char *line);
/* Every line of file PATH; -EINVAL "PATH:LINE: why", -errno "PATH: cause". */
int ibve_check_load(struct ibve_check *c, const char *path);
/*
 * A port down for CAUSE (an autopsy cause's name: the verdict of its last
 * down, from the state or a capture) is no problem of its state; e.g.
 * "administrative", a maintenance script's. -EINVAL, the causes named in
 * ibve_errmsg(), when CAUSE is none of them.
 */
int ibve_check_ignore_cause(struct ibve_check *c, const char *cause);
/*
 * The first condition of the spec that cannot be evaluated without a
 * history of events (e.g. "flaps<=2"), or NULL when every one can.
 */
const char *ibve_check_needs_history(const struct ibve_check *c);
/* The spec's exclude globs, up to MAX; how many there are. */
size_t ibve_check_excludes(const struct ibve_check *c, const char **globs,
			   size_t max);
/*
 * Check T's ports as of its last sample (ibve_ports_sample(), with the flap
 * window set to the history's) against the spec (none: every port of T
 * ACTIVE): state (a port down says the cause the autopsy gave it), rate,
 * link layer, flaps in the window, expected ports that are missing, and
 * fatal events at or after FROM (NULL: none). The
 * problems, valid until the next run or ibve_check_free(); how many.
 */
size_t ibve_check_run(struct ibve_check *c, const struct ibve_ports *t,
		      const struct timespec *from,
		      const struct ibve_check_problem **problems);

#ifdef __cplusplus
}
#endif

#endif /* IBVEVENT_H */
