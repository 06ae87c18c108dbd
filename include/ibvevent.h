/* SPDX-License-Identifier: MIT */
/*
 * libibvevent: RDMA asynchronous events as plain records.
 *
 * Every source (verbs async fds, device hot-plug, replayed captures)
 * produces the same record, struct ibve_event. Filters and formatters work
 * on records from any source. See libibvevent(3).
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
};

/* What this build of the library can do (enum ibve_feature). */
unsigned int ibve_features(void);

/* ------------------------------------------------------------------ */
/* Event descriptions                                                  */

enum ibve_source {
	IBVE_SOURCE_VERBS,   /* the verbs async event queue of a context */
	IBVE_SOURCE_HOTPLUG, /* devices appearing and going away */
	IBVE_SOURCE_MLX5,    /* mlx5 DEVX event channel */
	IBVE_SOURCE_SM,	     /* subnet manager traps (SA InformInfo) */
	IBVE_SOURCE_COUNT
};

enum ibve_class {
	IBVE_CLASS_DEVICE,
	IBVE_CLASS_PORT,
	IBVE_CLASS_QP,
	IBVE_CLASS_CQ,
	IBVE_CLASS_SRQ,
	IBVE_CLASS_WQ,
	IBVE_CLASS_UNKNOWN, /* an event this version does not know */
	IBVE_CLASS_COUNT
};

enum ibve_severity {
	IBVE_SEVERITY_INFO,
	IBVE_SEVERITY_WARNING,
	IBVE_SEVERITY_ERROR,
	IBVE_SEVERITY_FATAL,
	IBVE_SEVERITY_COUNT
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
	IBVE_FIELD_QP_NUM = 1u << 0,  /* qp_num */
	IBVE_FIELD_WQ_NUM = 1u << 1,  /* wq_num */
	IBVE_FIELD_HANDLE = 1u << 2,  /* handle (QP, CQ, SRQ, WQ) */
	IBVE_FIELD_CHARDEV = 1u << 3, /* chardev */
	IBVE_FIELD_NETDEV = 1u << 4,  /* netdev, netdev_index */
	IBVE_FIELD_MLX5 = 1u << 5,    /* mlx5 */
	IBVE_FIELD_SM = 1u << 6,      /* sm */
	IBVE_FIELD_LOST = 1u << 7,    /* lost */
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

/*
 * One event. Plain data owned by the caller: no pointer into libibverbs
 * objects, so records can be copied, queued, written and compared.
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
	struct ibve_mlx5_fields mlx5;
	struct ibve_sm_fields sm;
};

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
 * Fill EV's name, class, severity, port and mlx5 fields from a 64-byte
 * mlx5 event queue entry (as mlx5dv_devx_get_event() returns it after the
 * cookie). Unknown types and sub-types decode too. -EINVAL if LEN < 64.
 */
int ibve_mlx5_decode(struct ibve_event *ev, const uint8_t *eqe, size_t len);

/* ------------------------------------------------------------------ */
/* Output                                                              */

enum ibve_format_flags {
	IBVE_FORMAT_COLOR = 1u << 0, /* text: ANSI colours by severity */
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
 * EV. "time", "device", "port" and "event" or "code" are required; unknown
 * fields are ignored. Returns 0, or -EINVAL with a reason in ERR.
 */
int ibve_event_parse_json(const char *line, size_t len, struct ibve_event *ev,
			  char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Filters                                                             */

struct ibve_filter;

struct ibve_filter *ibve_filter_new(void);
void ibve_filter_free(struct ibve_filter *f);
/*
 * Add a comma-separated list of terms to the include (EXCLUDE false) or
 * exclude set. A term is an event name (any case, IBV_EVENT_ prefix
 * optional, or UNKNOWN(N)), a class (device, port, qp, cq, srq, wq,
 * unknown), a source (verbs, hotplug, mlx5, sm) or a severity threshold
 * (severity>=warning, severity=error, severity<=info; also >=warning).
 * Returns 0, or -EINVAL with the bad term in ERR.
 */
int ibve_filter_add_terms(struct ibve_filter *f, const char *list, bool exclude,
			  char *err, size_t errlen);
/* Only events of these devices / ports (repeatable). */
int ibve_filter_add_device(struct ibve_filter *f, const char *device);
int ibve_filter_add_port(struct ibve_filter *f, uint32_t port);
/*
 * True when EV passes: device and port match (events not about one port
 * always pass the port test), some include term matches or there are none,
 * and no exclude term matches.
 */
bool ibve_filter_match(const struct ibve_filter *f,
		       const struct ibve_event *ev);
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
 * Returns the count (>= 0) or -errno; free with ibve_device_list_free().
 */
int ibve_device_list_get(struct ibve_device_info **list);
void ibve_device_list_free(struct ibve_device_info *list, size_t count);
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
/* The live source: every watched device through one pollable fd       */

struct ibve_monitor;

enum ibve_monitor_flags {
	/* Follow devices coming and going (DEVICE_ADDED, DEVICE_REMOVED). */
	IBVE_MONITOR_HOTPLUG = 1u << 0,
	/* Use uevents even where the RDMA netlink monitor exists. */
	IBVE_MONITOR_UEVENT_ONLY = 1u << 1,
	/* mlx5 devices: also their DEVX device events (cables, temperature). */
	IBVE_MONITOR_MLX5 = 1u << 2,
	/*
	 * InfiniBand ports: also the subnet's GID in/out of service and
	 * multicast group traps, subscribed to at the SA over libibumad.
	 */
	IBVE_MONITOR_SM = 1u << 3,
	/*
	 * With IBVE_MONITOR_SM: hold each port's IsSM capability and answer
	 * the SM's SMInfo queries as a standby SM of priority 0. ibsim's
	 * simulator sends Reports only to such ports; a real fabric does not
	 * need it.
	 */
	IBVE_MONITOR_SM_ISSM = 1u << 4,
};

enum ibve_hotplug_method {
	IBVE_HOTPLUG_NONE,
	IBVE_HOTPLUG_UEVENT,  /* kernel uevents of the uverbs nodes */
	IBVE_HOTPLUG_NETLINK, /* RDMA netlink monitor (kernel >= 6.12)
				 plus uevents for the earliest removal */
};

struct ibve_monitor *ibve_monitor_new(unsigned int flags);
void ibve_monitor_free(struct ibve_monitor *m);
/*
 * Watch device NAME: it must exist now (-ENODEV otherwise); with hot-plug
 * it is opened again whenever it comes back.
 */
int ibve_monitor_add_device(struct ibve_monitor *m, const char *name);
/* Watch every device, present and (with hot-plug) future. */
int ibve_monitor_add_all(struct ibve_monitor *m);
/*
 * Watch an open context of the caller (the caller keeps it and closes it
 * after ibve_monitor_free()). Its affiliated events carry qp_num/handles.
 */
int ibve_monitor_add_context(struct ibve_monitor *m, struct ibv_context *ctx,
			     const char *name);
/*
 * With IBVE_MONITOR_SM: subscribe to the subnet's traps on every
 * InfiniBand port of the watched devices that libibumad lists (RoCE ports
 * are skipped with a note); called before any device is added, on every
 * device, as ibve_monitor_add_all() then does. Returns the number
 * of ports subscribed, or -errno: -EACCES when the umad node (named in
 * PATH) may not be opened, -ENOSYS without libibumad devices.
 */
int ibve_monitor_add_sm(struct ibve_monitor *m, char *path, size_t pathlen);
/* The fd to poll for POLLIN. */
int ibve_monitor_fd(const struct ibve_monitor *m);
/*
 * Read up to MAX ready records without blocking; every verbs event is
 * acknowledged right after it is copied. Returns the count (0: nothing
 * ready) or -errno on a failure of the monitor itself.
 */
int ibve_monitor_read(struct ibve_monitor *m, struct ibve_event *evs,
		      size_t max);
/* Names of the devices open now, up to MAX; returns how many are open. */
size_t ibve_monitor_devices(const struct ibve_monitor *m, const char **names,
			    size_t max);
enum ibve_hotplug_method ibve_monitor_hotplug(const struct ibve_monitor *m);
/* The sources (1 << enum ibve_source) open for DEVICE, 0 if not open. */
unsigned int ibve_monitor_sources(const struct ibve_monitor *m,
				  const char *device);
/*
 * The next note the monitor has for people, or NULL: what it could not do
 * but went on without, e.g. DEVX events a device refused. Valid until the
 * next call.
 */
const char *ibve_monitor_note(struct ibve_monitor *m);

/* ------------------------------------------------------------------ */
/* Replay: records from a JSON Lines capture                           */

struct ibve_replay;

/* PATH "-" reads standard input. Returns NULL with errno set. */
struct ibve_replay *ibve_replay_open(const char *path);
void ibve_replay_close(struct ibve_replay *r);
/* The fd to poll (for pipes and terminals; files are always ready). */
int ibve_replay_fd(const struct ibve_replay *r);
/*
 * Next record. Returns 1 with EV filled, 0 at end of input, -EAGAIN when
 * no complete line is available yet, -EINVAL for a malformed line (reason
 * in ERR; reading may go on), or another -errno on a read error.
 */
int ibve_replay_read(struct ibve_replay *r, struct ibve_event *ev, char *err,
		     size_t errlen);
/* Number of the line last returned or rejected (from 1). */
unsigned long ibve_replay_line(const struct ibve_replay *r);

/* ------------------------------------------------------------------ */
/* Prometheus metrics of the events seen                               */

struct ibve_metrics;

enum ibve_metrics_flags {
	/* Read port state and attributes from sysfs (live). */
	IBVE_METRICS_SYSFS = 1u << 0,
};

struct ibve_metrics *ibve_metrics_new(unsigned int flags);
void ibve_metrics_free(struct ibve_metrics *m);
/* DEVICE is there (rdma_device_present 1); live, its ports are read. */
int ibve_metrics_add_device(struct ibve_metrics *m, const char *device,
			    uint64_t node_guid);
/*
 * Count EV. DEVICE_REMOVED / DEVICE_ADDED set the device's presence; a
 * port event refreshes the port (live: from sysfs; from a capture,
 * PORT_ERR and PORT_ACTIVE set the state).
 */
void ibve_metrics_event(struct ibve_metrics *m, const struct ibve_event *ev);
/* The Prometheus text exposition format (version 0.0.4). */
size_t ibve_metrics_format(const struct ibve_metrics *m, char *buf,
			   size_t size);
/* Write the exposition to PATH atomically (temporary file, rename). */
int ibve_metrics_write(const struct ibve_metrics *m, const char *path);
/* Keep the counters and last times across restarts (atomic, fsync'ed). */
int ibve_metrics_save(const struct ibve_metrics *m, const char *path);
/* Add the counters of a saved state; -EINVAL names *BAD_LINE. */
int ibve_metrics_load(struct ibve_metrics *m, const char *path,
		      unsigned long *bad_line);

/* A /metrics HTTP endpoint (libmicrohttpd) for one poll loop. */
struct ibve_http;

/*
 * Listen on ADDR ("[host]:port", "host:port" or ":port"; the host is
 * 127.0.0.1 when left out) and serve M at /metrics. 0 or -errno with a
 * reason in ERR.
 */
int ibve_http_new(struct ibve_http **h, const char *addr,
		  const struct ibve_metrics *m, char *err, size_t errlen);
void ibve_http_free(struct ibve_http *h);
/* The fd to poll for POLLIN, then call ibve_http_run(). */
int ibve_http_fd(const struct ibve_http *h);
/* Milliseconds until the server wants to run anyway (-1: not at all). */
int ibve_http_timeout(const struct ibve_http *h);
void ibve_http_run(struct ibve_http *h);

/* ------------------------------------------------------------------ */
/* The injector: provoke events on objects of our own                  */

struct ibve_scenario {
	const char *name;    /* "srq-limit" */
	const char *expects; /* the event it provokes: "SRQ_LIMIT_REACHED" */
	const char *text;    /* what it does, in a line */
};

/* Scenario I, in order; NULL past the end. */
const struct ibve_scenario *ibve_scenario_at(size_t i);
/* The scenario named NAME, or NULL. */
const struct ibve_scenario *ibve_scenario_lookup(const char *name);

struct ibve_inject_opts {
	const char *device;  /* NULL: the first device with an ACTIVE port */
	uint32_t port;	     /* 0: the device's first ACTIVE port */
	int gid_index;	     /* RoCE: -1 chooses one (RoCE v2 first) */
	double timeout;	     /* seconds each expected event may take */
	unsigned long count; /* expected events: srq-limit 1 + re-arms,
				cq-overflow the storm size; 0 means 1 */
	int cancel_fd;	     /* -1, or an fd whose readability stops the run */
};

struct ibve_inject_report {
	const struct ibve_scenario *scenario;
	char device[IBVE_NAME_MAX];
	uint64_t node_guid;
	uint32_t port;
	int link_layer; /* IBV_LINK_LAYER_* */
	int gid_index;	/* -1 on InfiniBand (LID routed) */
	uint32_t lid;
	unsigned long expected;	 /* how many scenario->expects were wanted */
	unsigned long received;	 /* how many arrived, about our object */
	unsigned long events;	 /* every async event read (and acked) */
	struct ibve_event first; /* the first expected event, if any */
	double latency_us;	 /* trigger to arrival of the first one */
	double latency_max_us;
	double seconds; /* first trigger to last expected event */
	double rate;	/* expected events per second */
	bool teardown;	/* every object destroyed */
	double teardown_ms;
	bool interrupted; /* stopped through cancel_fd */
	int status; /* 0 all arrived, 1 not delivered in time, 3 setup failed */
	char error[256]; /* status 3: the verb that failed and why; 1: what */
};

/*
 * Run scenario NAME on a device: create our own objects, drive them into
 * the condition with real traffic, wait for the event, tear down. Every
 * event read is acknowledged before teardown. Returns R->status, or
 * -EINVAL for an unknown scenario.
 */
int ibve_inject_run(const char *name, const struct ibve_inject_opts *o,
		    struct ibve_inject_report *r);
/* A report as text lines for people, or one JSON object on one line. */
size_t ibve_inject_format_text(const struct ibve_inject_report *r, char *buf,
			       size_t size);
size_t ibve_inject_format_json(const struct ibve_inject_report *r, char *buf,
			       size_t size);

/* ------------------------------------------------------------------ */
/* The dashboard's model: per-port counts, attributes, error counters  */

/* What the dashboard counts per port. */
enum ibve_top_kind {
	IBVE_TOP_LINK_DOWN, /* PORT_ERR */
	IBVE_TOP_LINK_UP,   /* PORT_ACTIVE */
	IBVE_TOP_LID,	    /* LID_CHANGE */
	IBVE_TOP_PKEY,	    /* PKEY_CHANGE */
	IBVE_TOP_SM,	    /* SM_CHANGE */
	IBVE_TOP_GID,	    /* GID_CHANGE */
	IBVE_TOP_REREG,	    /* CLIENT_REREGISTER */
	IBVE_TOP_FATAL,	    /* DEVICE_FATAL */
	IBVE_TOP_MODULE,    /* mlx5 PORT_MODULE: cables and modules */
	IBVE_TOP_TEMP,	    /* mlx5 TEMP_WARN */
	IBVE_TOP_SUBNET,    /* subnet events (source sm) */
	IBVE_TOP_OTHER,
	IBVE_TOP_KIND_COUNT
};

/* An error counter of a port (counters/ or hw_counters/ in sysfs). */
struct ibve_top_counter {
	char name[48];
	bool hw;	/* hw_counters/ (driver) rather than counters/ */
	uint64_t value; /* last read */
	uint64_t delta; /* since start (or the last reset) */
	double rate;	/* per second, over the last interval */
	bool changed;	/* moved in the last interval */
};

struct ibve_top_port {
	char device[IBVE_NAME_MAX];
	uint32_t port;	     /* 0: device-wide events of a capture */
	char state[16];	     /* ACTIVE, DOWN, ... or "-" */
	char phys_state[32]; /* LinkUp, Polling, ... or "-" */
	char link_layer[16]; /* InfiniBand, Ethernet or "-" */
	char rate[40];	     /* "100 Gb/sec (4X EDR)" or "-" */
	char address[48];    /* "LID 0x12" or the first GID, or "-" */
	uint64_t counts[IBVE_TOP_KIND_COUNT];
	uint64_t total;
	unsigned int per_minute;	      /* events in the last 60 s */
	char last_event[IBVE_EVENT_NAME_MAX]; /* "" when none */
	struct timespec last_time;
	double last_age; /* seconds, at the last sample */
	size_t counter_count;
	struct ibve_top_counter *counters;
	size_t moved; /* counters with delta > 0 */
};

struct ibve_top_summary {
	char host[64];
	char kernel[64];
	size_t devices;
	size_t ports;
	uint64_t events;   /* since start (or the last reset) */
	double per_second; /* over the last interval */
	double uptime;	   /* seconds the view has been up */
};

struct ibve_top;

enum ibve_top_flags {
	/* Read port attributes and error counters from sysfs (live). */
	IBVE_TOP_SYSFS = 1u << 0,
};

struct ibve_top *ibve_top_new(unsigned int flags);
void ibve_top_free(struct ibve_top *t);
/* Rows for every port of DEVICE (live: from sysfs). */
int ibve_top_add_device(struct ibve_top *t, const char *device);
void ibve_top_remove_device(struct ibve_top *t, const char *device);
/*
 * Count EV. Device-wide events count on every port of the device; live,
 * DEVICE_ADDED and DEVICE_REMOVED add and remove the device's rows. Without
 * sysfs, rows appear as events name them and PORT_ERR / PORT_ACTIVE set
 * the state.
 */
void ibve_top_event(struct ibve_top *t, const struct ibve_event *ev);
/* Refresh attributes, counters, rates and ages as of NOW (wall time). */
void ibve_top_sample(struct ibve_top *t, const struct timespec *now);
/* Zero the counts and take the counters' current values as the base. */
void ibve_top_reset(struct ibve_top *t);
size_t ibve_top_port_count(const struct ibve_top *t);
const struct ibve_top_port *ibve_top_port_at(const struct ibve_top *t,
					     size_t i);
/* The I-th most recent event (0: newest); NULL past what is kept. */
const struct ibve_event *ibve_top_recent(const struct ibve_top *t, size_t i);
void ibve_top_summary(const struct ibve_top *t, struct ibve_top_summary *s);

/* The table's columns, shared by the screen and batch output. */
enum ibve_top_column {
	IBVE_TOP_COL_DEVICE,
	IBVE_TOP_COL_PORT,
	IBVE_TOP_COL_STATE,
	IBVE_TOP_COL_PHYS,
	IBVE_TOP_COL_LINK,
	IBVE_TOP_COL_RATE,
	IBVE_TOP_COL_ADDRESS,
	IBVE_TOP_COL_DOWN,
	IBVE_TOP_COL_UP,
	IBVE_TOP_COL_LID,
	IBVE_TOP_COL_PKEY,
	IBVE_TOP_COL_SM,
	IBVE_TOP_COL_GID,
	IBVE_TOP_COL_REREG,
	IBVE_TOP_COL_FATAL,
	IBVE_TOP_COL_MODULE,
	IBVE_TOP_COL_TEMP,
	IBVE_TOP_COL_SUBNET,
	IBVE_TOP_COL_OTHER,
	IBVE_TOP_COL_TOTAL,
	IBVE_TOP_COL_PER_MIN,
	IBVE_TOP_COL_LAST,
	IBVE_TOP_COL_AGE,
	IBVE_TOP_COL_COUNTERS,
	IBVE_TOP_COL_COUNT
};

/* Title and width (negative: left-aligned) of column COL. */
const char *ibve_top_column_title(enum ibve_top_column col);
int ibve_top_column_width(enum ibve_top_column col);
/* Whether COL is shown: MODULE and TEMP only once such events exist. */
bool ibve_top_column_visible(const struct ibve_top *t,
			     enum ibve_top_column col);
/* The text of one cell (not padded). */
size_t ibve_top_cell(const struct ibve_top_port *p, enum ibve_top_column col,
		     char *buf, size_t size);
/* Order of two rows by COL (ties by device and port). */
int ibve_top_compare(const struct ibve_top_port *a,
		     const struct ibve_top_port *b, enum ibve_top_column col);
/*
 * One snapshot, rows in ORDER (indices into the ports; NULL: as stored):
 * a header and a table for people, or one JSON object on one line.
 */
size_t ibve_top_format_text(const struct ibve_top *t, const size_t *order,
			    size_t n, char *buf, size_t size);
size_t ibve_top_format_json(const struct ibve_top *t, const size_t *order,
			    size_t n, char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* One poll loop: fds, signals and a deadline                          */

struct ibve_loop;

/* Return 0 to go on, anything else to stop the loop with that value. */
typedef int (*ibve_loop_fd_cb)(int fd, short revents, void *arg);
typedef int (*ibve_loop_signal_cb)(int signo, void *arg);
typedef int (*ibve_loop_idle_cb)(void *arg);

struct ibve_loop *ibve_loop_new(void);
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
 * Something that wants to run at times (a server's connection timeouts):
 * before blocking the loop asks NEXT for the milliseconds until then (-1:
 * never, so an idle loop stays idle) and calls RUN once they have passed.
 */
void ibve_loop_set_wakeup(struct ibve_loop *l, int (*next)(void *arg),
			  void (*run)(void *arg), void *arg);
/* Stop with STATUS at the CLOCK_MONOTONIC time DEADLINE (NULL: none). */
void ibve_loop_set_deadline(struct ibve_loop *l,
			    const struct timespec *deadline, int status);
/*
 * Poll until a callback returns non-zero or the deadline passes; returns
 * that value, or -errno when polling itself fails.
 */
int ibve_loop_run(struct ibve_loop *l);

#ifdef __cplusplus
}
#endif

#endif /* IBVEVENT_H */
