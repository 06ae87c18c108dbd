// SPDX-License-Identifier: MIT
/*
 * The event table: one row per event any source can deliver, giving its
 * stable name, class, affiliation, severity and an explanation. Code never
 * switches on event names: it looks rows up here.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <strings.h>

#include <infiniband/verbs.h>

#include "internal.h"

#define VERBS(c, n, cl, aff, sev, txt)                         \
	{                                                      \
		IBVE_SOURCE_VERBS, c, n, IBVE_CLASS_##cl, aff, \
			IBVE_SEVERITY_##sev, txt               \
	}
#define MLX5(c, n, cl, aff, sev, txt)                         \
	{                                                     \
		IBVE_SOURCE_MLX5, c, n, IBVE_CLASS_##cl, aff, \
			IBVE_SEVERITY_##sev, txt              \
	}
#define SM(c, n, sev, txt)                                    \
	{                                                     \
		IBVE_SOURCE_SM, c, n, IBVE_CLASS_PORT, false, \
			IBVE_SEVERITY_##sev, txt              \
	}
#define HOTPLUG(c, n, cl, sev, txt)                                \
	{                                                          \
		IBVE_SOURCE_HOTPLUG, c, n, IBVE_CLASS_##cl, false, \
			IBVE_SEVERITY_##sev, txt                   \
	}

/*
 * Verbs events carry their enum ibv_event_type number (rdma-core 44 has
 * 0..19, rdma-core 62 adds 20). Newer numbers decode as UNKNOWN(n) and are
 * still delivered.
 */
static const struct ibve_event_desc event_table[] = {
	VERBS(IBV_EVENT_CQ_ERR, "CQ_ERR", CQ, true, ERROR,
	      "completion queue overrun: completions were lost"),
	VERBS(IBV_EVENT_QP_FATAL, "QP_FATAL", QP, true, ERROR,
	      "local catastrophic error on the queue pair; it moved to the error state"),
	VERBS(IBV_EVENT_QP_REQ_ERR, "QP_REQ_ERR", QP, true, ERROR,
	      "invalid request from the peer (transport error); queue pair moved to error"),
	VERBS(IBV_EVENT_QP_ACCESS_ERR, "QP_ACCESS_ERR", QP, true, ERROR,
	      "remote access violation (bad key or permissions); queue pair moved to error"),
	VERBS(IBV_EVENT_COMM_EST, "COMM_EST", QP, true, INFO,
	      "first packet received in RTR: communication established"),
	VERBS(IBV_EVENT_SQ_DRAINED, "SQ_DRAINED", QP, true, INFO,
	      "send queue drained after the move to SQD"),
	VERBS(IBV_EVENT_PATH_MIG, "PATH_MIG", QP, true, WARNING,
	      "connection migrated to its alternate path"),
	VERBS(IBV_EVENT_PATH_MIG_ERR, "PATH_MIG_ERR", QP, true, ERROR,
	      "migration to the alternate path failed"),
	VERBS(IBV_EVENT_DEVICE_FATAL, "DEVICE_FATAL", DEVICE, false, FATAL,
	      "device failed or is being removed; it is unusable until reset"),
	VERBS(IBV_EVENT_PORT_ACTIVE, "PORT_ACTIVE", PORT, false, INFO,
	      "port is active: link up and ready for traffic"),
	VERBS(IBV_EVENT_PORT_ERR, "PORT_ERR", PORT, false, ERROR,
	      "port left the active state: link down or lost"),
	VERBS(IBV_EVENT_LID_CHANGE, "LID_CHANGE", PORT, false, WARNING,
	      "subnet manager assigned the port a new LID"),
	VERBS(IBV_EVENT_PKEY_CHANGE, "PKEY_CHANGE", PORT, false, WARNING,
	      "P_Key table of the port changed"),
	VERBS(IBV_EVENT_SM_CHANGE, "SM_CHANGE", PORT, false, WARNING,
	      "the subnet manager serving the port changed"),
	VERBS(IBV_EVENT_SRQ_ERR, "SRQ_ERR", SRQ, true, ERROR,
	      "shared receive queue failed; its queue pairs moved to error"),
	VERBS(IBV_EVENT_SRQ_LIMIT_REACHED, "SRQ_LIMIT_REACHED", SRQ, true,
	      WARNING, "shared receive queue fell below its armed limit"),
	VERBS(IBV_EVENT_QP_LAST_WQE_REACHED, "QP_LAST_WQE_REACHED", QP, true,
	      INFO,
	      "queue pair on an SRQ is in error and will take no more receive buffers"),
	VERBS(IBV_EVENT_CLIENT_REREGISTER, "CLIENT_REREGISTER", PORT, false,
	      WARNING,
	      "subnet manager asks clients to register again (multicast, subscriptions)"),
	VERBS(IBV_EVENT_GID_CHANGE, "GID_CHANGE", PORT, false, INFO,
	      "GID table of the port changed (address added or removed)"),
	VERBS(IBV_EVENT_WQ_FATAL, "WQ_FATAL", WQ, true, ERROR,
	      "catastrophic error on the work queue; it moved to the error state"),
	/* rdma-core 62's IBV_EVENT_DEVICE_SPEED_CHANGE; its port means nothing */
	VERBS(IBVE_VERBS_DEVICE_SPEED_CHANGE, "DEVICE_SPEED_CHANGE", DEVICE,
	      false, WARNING,
	      "a link of the device retrained at another speed or width"),

	/*
	 * mlx5 event queue entry types (include/linux/mlx5/device.h). The
	 * severity of PORT_CHANGE, PORT_MODULE and GENERAL depends on the
	 * sub-type: see mlx5.c. Types 0x00-0x03 (completion, path migration,
	 * communication established, SQ drained) are QP events the verbs
	 * queue already carries; they decode as UNKNOWN(n) if ever seen.
	 */
	MLX5(0x04, "CQ_ERROR", CQ, true, ERROR,
	     "completion queue error (overrun or access)"),
	MLX5(0x05, "WQ_CATAS_ERROR", QP, true, ERROR,
	     "catastrophic error on a work queue"),
	MLX5(0x07, "PATH_MIG_FAILED", QP, true, ERROR, "path migration failed"),
	MLX5(0x08, "INTERNAL_ERROR", DEVICE, false, FATAL,
	     "the adapter reported an internal error"),
	MLX5(0x09, "PORT_CHANGE", PORT, false, INFO, "port state changed"),
	MLX5(0x0d, "NIC_VPORT_CHANGE", DEVICE, false, INFO,
	     "a NIC vport's context changed"),
	MLX5(0x10, "WQ_INVAL_REQ_ERROR", QP, true, ERROR,
	     "invalid request on a work queue"),
	MLX5(0x11, "WQ_ACCESS_ERROR", QP, true, ERROR,
	     "access error on a work queue"),
	MLX5(0x12, "SRQ_CATAS_ERROR", SRQ, true, ERROR,
	     "catastrophic error on a shared receive queue"),
	MLX5(0x13, "SRQ_LAST_WQE", QP, true, INFO,
	     "last WQE reached on an SRQ-attached queue"),
	MLX5(0x14, "SRQ_RQ_LIMIT", SRQ, true, WARNING,
	     "shared receive queue below its limit"),
	MLX5(0x15, "GPIO", DEVICE, false, INFO,
	     "a GPIO pin of the adapter changed"),
	MLX5(0x16, "PORT_MODULE", DEVICE, false, WARNING,
	     "cable or module status changed"),
	MLX5(0x17, "TEMP_WARN", DEVICE, false, WARNING,
	     "temperature warning from the adapter's sensors"),
	MLX5(0x18, "XRQ_ERROR", SRQ, true, ERROR, "error on an XRQ"),
	MLX5(0x19, "REMOTE_CONFIG", DEVICE, false, INFO,
	     "configuration changed remotely"),
	MLX5(0x1a, "DB_BF_CONGESTION", DEVICE, false, WARNING,
	     "doorbell/BlueFlame congestion"),
	MLX5(0x1b, "STALL", DEVICE, false, WARNING,
	     "the adapter reports a stall"),
	MLX5(0x1c, "DCT_DRAINED", QP, true, INFO, "DC target drained"),
	MLX5(0x1d, "DCT_KEY_VIOLATION", QP, true, WARNING,
	     "DC target key violation"),
	MLX5(0x20, "FPGA_ERROR", DEVICE, false, ERROR, "FPGA error"),
	MLX5(0x21, "FPGA_QP_ERROR", QP, true, ERROR, "FPGA queue pair error"),
	MLX5(0x22, "GENERAL", DEVICE, false, INFO, "general adapter event"),
	MLX5(0x24, "MONITOR_COUNTER", DEVICE, false, INFO,
	     "a monitored counter changed"),
	MLX5(0x25, "PPS", DEVICE, false, INFO, "pulse-per-second clock event"),
	MLX5(0x26, "DEVICE_TRACER", DEVICE, false, INFO,
	     "firmware tracer event"),
	MLX5(0x27, "OBJECT_CHANGE", DEVICE, false, INFO,
	     "a device object changed"),
	MLX5(IBVE_MLX5_EVENTS_LOST, "EVENTS_LOST", DEVICE, false, WARNING,
	     "the DEVX event channel overflowed: events were lost"),

	HOTPLUG(IBVE_HOTPLUG_DEVICE_ADDED, "DEVICE_ADDED", DEVICE, INFO,
		"device appeared and is being watched"),
	HOTPLUG(IBVE_HOTPLUG_DEVICE_REMOVED, "DEVICE_REMOVED", DEVICE, WARNING,
		"device went away; it was closed at once so its removal can finish"),
	HOTPLUG(IBVE_HOTPLUG_NETDEV_ATTACH, "NETDEV_ATTACH", PORT, INFO,
		"network device attached to the port"),
	HOTPLUG(IBVE_HOTPLUG_NETDEV_DETACH, "NETDEV_DETACH", PORT, WARNING,
		"network device detached from the port"),

	/*
	 * The kernel source's records carry the verbs rows above (what the
	 * owner's own queue would say); this row is its own.
	 */
	{ IBVE_SOURCE_KERNEL, IBVE_KERNEL_EVENTS_LOST, "EVENTS_LOST",
	  IBVE_CLASS_DEVICE, false, IBVE_SEVERITY_WARNING,
	  "the kernel source's ring buffer was full: events were lost" },

	SM(IBVE_SM_GID_IN_SERVICE, "GID_IN_SERVICE", INFO,
	   "a port of the subnet came into service (SM trap 64)"),
	SM(IBVE_SM_GID_OUT_OF_SERVICE, "GID_OUT_OF_SERVICE", WARNING,
	   "a port of the subnet went out of service (SM trap 65)"),
	SM(IBVE_SM_MCG_CREATED, "MCG_CREATED", INFO,
	   "a multicast group was created (SM trap 66)"),
	SM(IBVE_SM_MCG_DELETED, "MCG_DELETED", INFO,
	   "a multicast group was deleted (SM trap 67)"),
};

static const char *const source_names[] = {
	[IBVE_SOURCE_VERBS] = "verbs",	 [IBVE_SOURCE_HOTPLUG] = "hotplug",
	[IBVE_SOURCE_MLX5] = "mlx5",	 [IBVE_SOURCE_SM] = "sm",
	[IBVE_SOURCE_KERNEL] = "kernel",
};

static const char *const class_names[] = {
	[IBVE_CLASS_DEVICE] = "device",	  [IBVE_CLASS_PORT] = "port",
	[IBVE_CLASS_QP] = "qp",		  [IBVE_CLASS_CQ] = "cq",
	[IBVE_CLASS_SRQ] = "srq",	  [IBVE_CLASS_WQ] = "wq",
	[IBVE_CLASS_UNKNOWN] = "unknown",
};

static const char *const severity_names[] = {
	[IBVE_SEVERITY_INFO] = "info",
	[IBVE_SEVERITY_WARNING] = "warning",
	[IBVE_SEVERITY_ERROR] = "error",
	[IBVE_SEVERITY_FATAL] = "fatal",
};

IBVE_EXPORT const char *ibve_version(void)
{
	return IBVE_VERSION;
}

IBVE_EXPORT unsigned int ibve_features(void)
{
	unsigned int f = 0;

#ifdef IBVE_HAVE_MLX5
	f |= IBVE_FEATURE_MLX5;
#endif
#ifdef IBVE_HAVE_BPF
	f |= IBVE_FEATURE_KERNEL;
#endif
	return f;
}

IBVE_EXPORT const struct ibve_event_desc *ibve_event_desc_at(size_t i)
{
	return i < ARRAY_SIZE(event_table) ? &event_table[i] : NULL;
}

/*
 * Every record looks its row up by (source, code): an index of the codes
 * up to CODE_SLOTS - 1 of each source, built once; others are searched.
 */
#define NSOURCES   (IBVE_SOURCE_KERNEL + 1)
#define CODE_SLOTS (IBVE_KERNEL_EVENTS_LOST + 1)

static uint8_t code_index[NSOURCES][CODE_SLOTS]; /* row + 1; 0: none */
static pthread_once_t code_index_once = PTHREAD_ONCE_INIT;

static void build_code_index(void)
{
	_Static_assert(ARRAY_SIZE(event_table) < 255, "rows fit a byte");
	for (size_t i = ARRAY_SIZE(event_table); i-- > 0;) {
		const struct ibve_event_desc *d = &event_table[i];

		/* backwards: the first row of a (source, code) wins */
		if ((unsigned int)d->source < NSOURCES && d->code >= 0 &&
		    d->code < CODE_SLOTS)
			code_index[d->source][d->code] = (uint8_t)(i + 1);
	}
}

IBVE_EXPORT const struct ibve_event_desc *
ibve_event_desc_find(enum ibve_source source, int code)
{
	if ((unsigned int)source < NSOURCES && code >= 0 && code < CODE_SLOTS) {
		uint8_t row;

		pthread_once(&code_index_once, build_code_index);
		row = code_index[source][code];
		if (row)
			return &event_table[row - 1];
		if (source == IBVE_SOURCE_KERNEL &&
		    code < IBVE_KERNEL_EVENTS_LOST)
			return ibve_event_desc_find(IBVE_SOURCE_VERBS, code);
		return NULL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(event_table); i++)
		if (event_table[i].source == source &&
		    event_table[i].code == code)
			return &event_table[i];
	/* the kernel source speaks the verbs codes */
	if (source == IBVE_SOURCE_KERNEL && code < IBVE_KERNEL_EVENTS_LOST)
		return ibve_event_desc_find(IBVE_SOURCE_VERBS, code);
	return NULL;
}

const struct ibve_event_desc *
ibve_event_desc_of(enum ibve_source source, const struct ibve_event_desc *d)
{
	if (d->source == source ||
	    (source == IBVE_SOURCE_KERNEL && d->source == IBVE_SOURCE_VERBS))
		return d;
	/* a name two sources share (EVENTS_LOST): the line's own */
	for (size_t i = 0; i < ARRAY_SIZE(event_table); i++)
		if (event_table[i].source == source &&
		    strcmp(event_table[i].name, d->name) == 0)
			return &event_table[i];
	return NULL;
}

/*
 * Names are looked up for every replayed line: a hash of the upper-cased
 * name into an open-addressed index, built once.
 */
#define NAME_SLOTS 128 /* a power of two, over twice the rows */

static uint8_t name_index[NAME_SLOTS]; /* row + 1; 0: empty */
static pthread_once_t name_index_once = PTHREAD_ONCE_INIT;

static int upper(int c)
{
	return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/* ASCII only, whatever the locale: names are ASCII. */
static bool same_name(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return true; /* the spelling of the table: most lines */
	for (; *a && *b; a++, b++)
		if (upper((unsigned char)*a) != upper((unsigned char)*b))
			return false;
	return *a == *b;
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	/* | 0x20: a letter hashes the same in either case */
	for (; *s; s++)
		h = (h ^ ((uint32_t)(unsigned char)*s | 0x20)) * 16777619u;
	return h;
}

static void build_name_index(void)
{
	_Static_assert(ARRAY_SIZE(event_table) * 2 < NAME_SLOTS,
		       "the name index needs room");
	for (size_t i = 0; i < ARRAY_SIZE(event_table); i++) {
		uint32_t h = name_hash(event_table[i].name);

		while (name_index[h % NAME_SLOTS])
			h++;
		name_index[h % NAME_SLOTS] = (uint8_t)(i + 1);
	}
}

IBVE_EXPORT const struct ibve_event_desc *
ibve_event_desc_lookup(const char *name)
{
	uint32_t h;

	if ((name[0] == 'I' || name[0] == 'i') &&
	    strncasecmp(name, "IBV_EVENT_", 10) == 0)
		name += 10;
	pthread_once(&name_index_once, build_name_index);
	for (h = name_hash(name); name_index[h % NAME_SLOTS]; h++) {
		const struct ibve_event_desc *d =
			&event_table[name_index[h % NAME_SLOTS] - 1];

		if (same_name(d->name, name))
			return d;
	}
	return NULL;
}

static const char *name_of(const char *const *names, size_t n, int i)
{
	return i >= 0 && (size_t)i < n && names[i] ? names[i] : "unknown";
}

static int parse_name(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && strcasecmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

IBVE_EXPORT const char *ibve_source_name(enum ibve_source source)
{
	return name_of(source_names, ARRAY_SIZE(source_names), source);
}

IBVE_EXPORT const char *ibve_class_name(enum ibve_class cls)
{
	return name_of(class_names, ARRAY_SIZE(class_names), cls);
}

IBVE_EXPORT const char *ibve_severity_name(enum ibve_severity severity)
{
	return name_of(severity_names, ARRAY_SIZE(severity_names), severity);
}

IBVE_EXPORT int ibve_source_parse(const char *name)
{
	return parse_name(source_names, ARRAY_SIZE(source_names), name);
}

IBVE_EXPORT int ibve_class_parse(const char *name)
{
	return parse_name(class_names, ARRAY_SIZE(class_names), name);
}

IBVE_EXPORT int ibve_severity_parse(const char *name)
{
	return parse_name(severity_names, ARRAY_SIZE(severity_names), name);
}

void ibve_event_set_unknown(struct ibve_event *ev, enum ibve_source source,
			    int code)
{
	ev->desc = NULL;
	ev->source = source;
	ev->code = code;
	snprintf(ev->name, sizeof(ev->name), "UNKNOWN(%d)", code);
	ev->cls = IBVE_CLASS_UNKNOWN;
	ev->affiliated = false;
	/* Something this version cannot explain deserves a look. */
	ev->severity = IBVE_SEVERITY_WARNING;
}

IBVE_EXPORT void ibve_event_set_code(struct ibve_event *ev,
				     enum ibve_source source, int code)
{
	const struct ibve_event_desc *d = ibve_event_desc_find(source, code);

	if (!d) {
		ibve_event_set_unknown(ev, source, code);
		return;
	}
	ev->desc = d;
	ev->source = source;
	ev->code = code;
	ibve_strcpy(ev->name, d->name, sizeof(ev->name));
	ev->cls = d->cls;
	ev->affiliated = d->affiliated;
	ev->severity = d->severity;
}

IBVE_EXPORT const char *ibve_event_text(const struct ibve_event *ev)
{
	if (ev->desc)
		return ev->desc->text;
	return "event not known to this version of libibvevent";
}

IBVE_EXPORT void ibve_event_from_verbs(struct ibve_event *ev,
				       const struct ibv_async_event *ae,
				       const char *device, uint64_t node_guid)
{
	memset(ev, 0, sizeof(*ev));
	clock_gettime(CLOCK_REALTIME, &ev->time);
	ibve_event_fill_verbs(ev, ae, device, node_guid);
}

void ibve_event_fill_verbs(struct ibve_event *ev,
			   const struct ibv_async_event *ae, const char *device,
			   uint64_t node_guid)
{
	ibve_strcpy(ev->device, device, sizeof(ev->device));
	ev->node_guid = node_guid;
	ibve_event_set_code(ev, IBVE_SOURCE_VERBS, (int)ae->event_type);

	/* element is a union: read only the member of the event's class. */
	switch (ev->cls) {
	case IBVE_CLASS_PORT:
		ev->port = (uint32_t)ae->element.port_num;
		break;
	case IBVE_CLASS_QP:
		if (ae->element.qp) {
			ev->qp_num = ae->element.qp->qp_num;
			ev->handle = ae->element.qp->handle;
			ev->fields |= IBVE_FIELD_QP_NUM | IBVE_FIELD_HANDLE;
		}
		break;
	case IBVE_CLASS_CQ:
		if (ae->element.cq) {
			ev->handle = ae->element.cq->handle;
			ev->fields |= IBVE_FIELD_HANDLE;
		}
		break;
	case IBVE_CLASS_SRQ:
		if (ae->element.srq) {
			ev->handle = ae->element.srq->handle;
			ev->fields |= IBVE_FIELD_HANDLE;
		}
		break;
	case IBVE_CLASS_WQ:
		if (ae->element.wq) {
			ev->wq_num = ae->element.wq->wq_num;
			ev->handle = ae->element.wq->handle;
			ev->fields |= IBVE_FIELD_WQ_NUM | IBVE_FIELD_HANDLE;
		}
		break;
	case IBVE_CLASS_DEVICE:
	case IBVE_CLASS_UNKNOWN:
		/* Unknown: the union's meaning is unknown, read none of it. */
		break;
	}
}

void ibve_rates_diff(struct ibve_event *ev, const char (*old)[28],
		     const char (*now)[28], uint32_t n)
{
	struct ibve_verbs_fields *v = &ev->verbs;

	v->nrates = 0;
	for (uint32_t i = 0; i < n && v->nrates < IBVE_RATES_MAX; i++) {
		struct ibve_rate_change *c = &v->rates[v->nrates];

		if (strcmp(old[i], now[i]) == 0)
			continue;
		c->port = i + 1;
		ibve_strcpy(c->old_rate, old[i], sizeof(c->old_rate));
		ibve_strcpy(c->new_rate, now[i], sizeof(c->new_rate));
		v->nrates++;
	}
	if (v->nrates)
		ev->fields |= IBVE_FIELD_RATES;
}

void ibve_event_set_down(struct ibve_event *ev, const struct timespec *down_at)
{
	double s;

	if (!down_at->tv_sec && !down_at->tv_nsec)
		return;
	s = ibve_ts_secs(down_at, &ev->time);
	ev->verbs.down_us = s > 0 ? (uint64_t)(s * 1e6 + 0.5) : 0;
	ev->fields |= IBVE_FIELD_DOWN;
}
