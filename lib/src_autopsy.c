// SPDX-License-Identifier: MIT
/*
 * The link autopsy (--autopsy): why a port went down. A source of no
 * evidence of its own: it observes every record, opens a case when a port
 * goes down (verbs PORT_ERR; the netdev source's NETDEV_DOWN or
 * CARRIER_LOST; a device removed: each of its ports), takes the records of
 * that device and port from WINDOW_MS before the down to WINDOW_MS after
 * it, then says why in one record, PORT_DOWN_CAUSE: the first cause of
 * its table the evidence decides, unknown when none does (a wrong cause is
 * worse than none). When the port is active again, PORT_BACK after as
 * long a window: how long it was down, its rate before and after, the
 * counters that moved meanwhile, and on InfiniBand the peer's error
 * counters (the subnet source's PEER_COUNTERS, read once the port is back:
 * nothing reaches the peer through a port that is down): when they moved,
 * PORT_BACK says the cause the down's verdict could not.
 *
 * Every piece of evidence is a record, so a replayed capture gets the
 * verdict the live run gave; the netdev and counters sources' records are
 * read by their JSON keys, the captures' form, not by a struct of theirs.
 * A window closes by the records' time and, live, by a one-shot timer at
 * the soonest window's end (no wake-up while none is open); a replay's
 * (no device set) at the end of its input.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "buf.h"
#include "devices.h"
#include "dl_jsonc.h"
#include "fields.h"
#include "mlx5.h"
#include "source.h"
#include "sysfs.h"

#define WINDOW_MS 1000
#define RECENT	  8 /* evidence records kept for the cases opened after */

enum { CAUSE, BACK }; /* its codes */

/* What the evidence says. */
enum {
	F_ADMIN = 1u << 0,
	F_FATAL = 1u << 1,
	F_CABLE = 1u << 2,
	F_THERMAL = 1u << 3,
	F_SIGNAL = 1u << 4,
	F_CARRIER = 1u << 5,
};

const struct ibve_cause ibve_causes[] = {
	{ "administrative", F_ADMIN, IBVE_SEVERITY_WARNING,
	  "the port's network device set down (IFF_UP cleared), or the device "
	  "removed (rdma link delete, a driver unbind); with -A, the process "
	  "that did it",
	  "none for the hardware; ask who took it down",
	  "0c57e45f9faf4cf587ac747da8f4e89a" },
	{ "firmware_or_driver", F_FATAL, IBVE_SEVERITY_ERROR,
	  "DEVICE_FATAL, an mlx5 INTERNAL_ERROR or GENERAL event",
	  "collect a firmware dump; reset the device",
	  "66988484c1874176a8ef248e157bc736" },
	{ "cable_or_module", F_CABLE, IBVE_SEVERITY_ERROR,
	  "an mlx5 PORT_MODULE event: the module unplugged, or a cable error "
	  "other than high temperature or power budget exceeded; the "
	  "firmware's reason no_cable, cable_issue or eeprom_issue",
	  "reseat or replace the cable or module",
	  "8a7c335ea78b47ab8091651ebb860a83" },
	{ "thermal_or_power", F_THERMAL, IBVE_SEVERITY_ERROR,
	  "an mlx5 TEMP_WARN, a PORT_MODULE cable error of high temperature or "
	  "power budget exceeded; the firmware's reason overheat or "
	  "power_budget_exceeded",
	  "check airflow and the module's rating",
	  "20f2067ea675479a8dba39de625e6774" },
	{ "signal_integrity", F_SIGNAL, IBVE_SEVERITY_ERROR,
	  "an error counter (symbol_error, link_error_recovery, "
	  "local_link_integrity_errors, port_rcv_errors, "
	  "excessive_buffer_overrun_errors) that moved before the down; the "
	  "firmware's reason bad_signal_integrity or link_training_failure",
	  "clean or reseat, then replace the cable or transceiver",
	  "2c07ef8d7cc340eca139558597ee654e" },
	{ "link_partner", F_CARRIER, IBVE_SEVERITY_ERROR,
	  "the carrier lost with the network device up, and no local error "
	  "counter moved",
	  "look at the far end of the link",
	  "08ef188e6a254dffbd1d39eb7911e88e" },
	{ "unknown", 0, IBVE_SEVERITY_WARNING, "nothing above",
	  "see the evidence", "8b7a90bdcf1b4bfd8eaf1aef10e45fea" },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

/* The firmware's reasons (ethtool's link extended states) that decide. */
static const struct {
	const char *name;
	unsigned int fact;
} reasons[] = {
	{ "no_cable", F_CABLE },
	{ "cable_issue", F_CABLE },
	{ "eeprom_issue", F_CABLE },
	{ "overheat", F_THERMAL },
	{ "power_budget_exceeded", F_THERMAL },
	{ "bad_signal_integrity", F_SIGNAL },
	{ "link_training_failure", F_SIGNAL },
};

static const char *const signal_counters[] = {
	"symbol_error",
	"link_error_recovery",
	"local_link_integrity_errors",
	"port_rcv_errors",
	"excessive_buffer_overrun_errors",
};

/* Its records' fields, in the per-source area. */
#define POOL	400
#define RESERVE 16 /* of the pool, for "+N more" read back */
#define FIELD	(1u << 24)
struct autopsy_fields {
	uint64_t down_us; /* PORT_BACK: where the verbs source's is (its row) */
	uint8_t cause; /* PORT_DOWN_CAUSE: its index in ibve_causes + 1; 0 none */
	uint8_t n;     /* evidence strings in pool, each NUL-terminated */
	uint16_t more; /* facts left out */
	char rate_before[28], rate_after[28];
	char pool[POOL];
};
_Static_assert(sizeof(struct autopsy_fields) <= IBVE_EVENT_AREA, "area");
_Static_assert(offsetof(struct ibve_event, verbs.down_us) ==
		       offsetof(struct ibve_event, area),
	       "down_us");

#define AF(ev) ((struct autopsy_fields *)(ev)->area)

/* A port, and the case it has open. */
struct port {
	char device[IBVE_NAME_MAX];
	uint32_t port;
	bool down; /* since its PORT_DOWN_CAUSE's case opened, until active */
	bool open; /* a window is open: rec is being made */
	bool peer_read, peer_moved; /* PORT_BACK: the peer's counters */
	uint8_t verdict; /* its last down's cause, as in autopsy_fields */
	unsigned int facts;
	struct timespec due, down_at;
	struct timespec up_at; /* its last PORT_ACTIVE */
	char rate[28];	       /* live: before the down */
	struct ibve_event rec;
};

struct autopsy {
	struct ibve_host h;
	struct ibve_devset *devset; /* live; NULL: a replay's records */
	int timer_fd;
	struct timespec armed; /* the timer's; 0: off */
	struct port *ports;
	size_t nports;
	struct ibve_event recent[RECENT];
	size_t nrecent;	       /* ever: recent[nrecent % RECENT] is the next */
	struct ibve_event cur; /* the record observed, while a case is open */
};

/* --- evidence ------------------------------------------------------------ */

/* S into F's pool, once, with RESERVE bytes left; false: no room. */
static bool put(struct autopsy_fields *f, const char *raw, size_t reserve)
{
	char *at = f->pool, s[POOL + 1];

	/* as it is written (a byte not UTF-8 as U+FFFD), so it reads back */
	if (!ibve_utf8_copy(s, raw, sizeof(s)))
		return false;
	for (unsigned int i = 0; i < f->n; i++, at += strlen(at) + 1)
		if (!strcmp(at, s))
			return true;
	if (at + strlen(s) + 1 + reserve > f->pool + POOL)
		return false;
	strcpy(at, s);
	f->n++;
	return true;
}

/* A fact as evidence of P's case; past the pool's room, counted. */
static void add(struct port *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add(struct port *p, const char *fmt, ...)
{
	char s[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	if (!put(AF(&p->rec), s, RESERVE))
		AF(&p->rec)->more++;
}

/* The value of "KEY": in JSON (its quotes gone) into OUT; NULL: none. */
static const char *member(const char *json, const char *key, char *out,
			  size_t size)
{
	char pat[48];
	const char *v;
	size_t n;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	if (!(v = strstr(json, pat)))
		return NULL;
	v += strlen(pat);
	n = *v == '"' ? strcspn(++v, "\"") : strcspn(v, ",}");
	snprintf(out, size, "%.*s", (int)n, v);
	return out;
}

static void netdev(struct port *p, const struct ibve_event *ev,
		   const char *json)
{
	const char *name = ev->netdev[0] ? ev->netdev : "?";
	char state[40], sub[40];

	if (ev->code == IBVE_NETDEV_DOWN) {
		p->facts |= F_ADMIN;
		add(p, "netdev %s set down (IFF_UP cleared)", name);
	}
	if (ev->code != IBVE_NETDEV_CARRIER_LOST)
		return;
	p->facts |= F_CARRIER;
	add(p, "netdev %s carrier lost, netdev up", name);
	if (!member(json, "ext_state", state, sizeof(state)))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(reasons); i++)
		if (!strcmp(state, reasons[i].name))
			p->facts |= reasons[i].fact;
	if (member(json, "ext_substate", sub, sizeof(sub)))
		add(p, "firmware: %s/%s", state, sub);
	else
		add(p, "firmware: %s", state);
}

/*
 * Who set the netdev down or removed the device (the kernel source's record,
 * its owner fields in the record's core): a process, with its job or unit
 * when its cgroup says, decides administrative; a kernel thread (a
 * driver's recovery) is named, and decides nothing.
 */
static void who(struct port *p, const struct ibve_event *ev)
{
	const char *cg = ev->kernel.cgroup, *unit = strrchr(cg, '/');
	char by[160], job[96] = "";
	size_t n = unit ? strlen(unit) : 0;

	if (ev->fields & IBVE_FIELD_OWNER) {
		p->facts |= F_ADMIN;
		if (!ibve_cgroup_job(cg, job, sizeof(job)) &&
		    ((n > 6 && !strcmp(unit + n - 6, ".scope")) ||
		     (n > 8 && !strcmp(unit + n - 8, ".service"))))
			snprintf(job, sizeof(job), "unit %.80s", unit + 1);
		snprintf(by, sizeof(by), "%s (pid %u%s%s)", ev->kernel.comm,
			 ev->kernel.pid, job[0] ? ", " : "", job);
	} else if (ev->fields & IBVE_FIELD_KERNEL) {
		snprintf(by, sizeof(by), "the kernel (%s)",
			 ev->kernel.consumer);
	} else {
		return;
	}
	if (ev->code == IBVE_KERNEL_NETDEV_SET_DOWN)
		add(p, "netdev %s set down by %s",
		    ev->netdev[0] ? ev->netdev : "?", by);
	else
		add(p, "device %s removed by %s", ev->device, by);
}

/* The next "NAME":DELTA of the JSON object at *C, past its brace; false
 * at its end. */
static bool next_move(const char **c, char *name, size_t size, char *delta,
		      size_t dsize)
{
	size_t n;

	if (**c != '"')
		return false;
	n = strcspn(++*c, "\"");
	snprintf(name, size, "%.*s", (int)n, *c);
	*c += n + 2; /* the quote, the colon */
	n = strcspn(*c, ",}");
	snprintf(delta, dsize, "%.*s", (int)n, *c);
	*c += n;
	*c += **c == ',';
	return true;
}

static bool signal_counter(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(signal_counters); i++)
		if (!strcmp(name, signal_counters[i]))
			return true;
	return false;
}

/* "counters":{NAME:DELTA,...} of the phase P's case waits for. */
static void counters(struct port *p, const char *json)
{
	bool back = p->rec.code == BACK, moved = false;
	const char *c = strstr(json, "\"counters\":{");
	char phase[16], more[24], name[64], delta[24];

	if (!c || !member(json, "phase", phase, sizeof(phase)) ||
	    strcmp(phase, back ? "since" : "before"))
		return;
	for (c += 12;
	     next_move(&c, name, sizeof(name), delta, sizeof(delta));) {
		moved |= !back && signal_counter(name);
		add(p, "%s +%s %s", name, delta,
		    back ? "while down" : "before");
	}
	if (member(json, "counters_more", more, sizeof(more)))
		add(p, "+%s more counters", more);
	if (moved)
		p->facts |= F_SIGNAL;
	else if (!back)
		add(p, "no local error counter moved");
}

/*
 * The peer's error counters, read once the port is back (PEER_COUNTERS:
 * their moves since they were read before, at the lookup before, which
 * may be days old). A signal counter that moved faster than the bit error
 * rate IBTA allows (120 symbol errors an hour: one per 30 s) decides
 * signal integrity, on the peer's side of the link; a slower move is
 * evidence alone.
 */
static void peer_counters(struct port *p, const char *json)
{
	const char *c = strstr(json, "\"peer_counters\":{");
	char peer[80], name[64], delta[24], us[24];
	uint64_t sample_us;

	if (!c || !member(json, "peer_name", peer, sizeof(peer)) ||
	    !member(json, "peer_sample_us", us, sizeof(us)))
		return;
	sample_us = strtoull(us, NULL, 10);
	p->peer_read = true;
	add(p, "peer %s", peer);
	for (c += 17;
	     next_move(&c, name, sizeof(name), delta, sizeof(delta));) {
		p->peer_moved = true;
		if (signal_counter(name) &&
		    strtoull(delta, NULL, 10) * 30000000.0 > (double)sample_us)
			p->facts |= F_SIGNAL;
		add(p, "peer's %s +%s over %.1f s", name, delta,
		    (double)sample_us / 1e6);
	}
}

static void mlx5(struct port *p, const struct ibve_event *ev)
{
	const struct ibve_mlx5_fields *m = &ev->mlx5;
	char s[128];
	struct ibve_buf b = { s, sizeof(s), 0 };

	switch (ev->code) {
	case IBVE_MLX5_PORT_MODULE: /* 2 unplugged, 3 error; 0, 6: power, heat */
		if (m->module_status == 2 ||
		    (m->module_status == 3 && m->error_type != 0 &&
		     m->error_type != 6))
			p->facts |= F_CABLE;
		else if (m->module_status == 3)
			p->facts |= F_THERMAL;
		break;
	case IBVE_MLX5_TEMP_WARN:
		p->facts |= F_THERMAL;
		break;
	case 0x08: /* INTERNAL_ERROR */
		p->facts |= F_FATAL;
		add(p, "mlx5 %s", ev->name);
		return;
	case IBVE_MLX5_GENERAL:
		p->facts |= F_FATAL;
		break;
	default:
		return;
	}
	ibve_mlx5_details(&b, ev);
	ibve_buf_end(&b);
	add(p, "mlx5 %s: %s", ev->name, s);
}

/* Whether EV is the kernel source's record of who took a port down. */
static bool by_whom(const struct ibve_event *ev)
{
	return ev->source == IBVE_SOURCE_KERNEL &&
	       (ev->code == IBVE_KERNEL_NETDEV_SET_DOWN ||
		ev->code == IBVE_KERNEL_DEVICE_UNREGISTER);
}

/* What EV says of P's case. */
static void take(struct port *p, const struct ibve_event *ev)
{
	const struct ibve_rate_change *r = ev->verbs.rates;
	char s[4096];

	if (p->rec.code == BACK) {
		if (ev->source == IBVE_SOURCE_VERBS &&
		    ev->code == IBVE_VERBS_DEVICE_SPEED_CHANGE)
			for (uint32_t i = 0; i < ev->verbs.nrates; i++)
				if (r[i].port == p->port) {
					memcpy(AF(&p->rec)->rate_before,
					       r[i].old_rate, 28);
					memcpy(AF(&p->rec)->rate_after,
					       r[i].new_rate, 28);
				}
	} else if (ev->source == IBVE_SOURCE_VERBS) {
		if (ev->code == IBV_EVENT_DEVICE_FATAL) {
			p->facts |= F_FATAL;
			add(p, "verbs DEVICE_FATAL");
		} else if (ev->code == IBV_EVENT_PORT_ERR &&
			   ev->fields & IBVE_FIELD_PEER &&
			   ev->verbs.peer.state == IBVE_PEER_KNOWN) {
			ibve_peer_format(&ev->verbs.peer, s, sizeof(s));
			add(p, "peer %s", s);
		}
	} else if (ev->source == IBVE_SOURCE_HOTPLUG &&
		   ev->code == IBVE_HOTPLUG_DEVICE_REMOVED) {
		p->facts |= F_ADMIN;
		add(p, "device %s removed (rdma link delete, driver unbind)",
		    ev->device);
	} else if (ev->source == IBVE_SOURCE_MLX5) {
		mlx5(p, ev);
	} else if (by_whom(ev) && p->rec.code == CAUSE) {
		who(p, ev);
	}
	/* the peer's counters are the port's return's: read as it came back
	 * (nothing reaches the peer through a port that is down) */
	if (ev->source != IBVE_SOURCE_NETDEV &&
	    ev->source != IBVE_SOURCE_COUNTERS &&
	    (ev->source != IBVE_SOURCE_SM ||
	     ev->code != IBVE_SM_PEER_COUNTERS || p->rec.code != BACK))
		return;
	ibve_event_format_json(ev, s, sizeof(s));
	if (ev->source == IBVE_SOURCE_NETDEV && p->rec.code == CAUSE)
		netdev(p, ev, s);
	else if (ev->source == IBVE_SOURCE_COUNTERS)
		counters(p, s);
	else if (ev->source == IBVE_SOURCE_SM)
		peer_counters(p, s);
}

/* --- cases ---------------------------------------------------------------- */

/* The port DEVICE/PORT, added when new; NULL: no memory. */
static struct port *port_of(struct autopsy *a, const char *device,
			    uint32_t port)
{
	struct port *v;

	for (size_t i = 0; i < a->nports; i++)
		if (a->ports[i].port == port &&
		    !strcmp(a->ports[i].device, device))
			return &a->ports[i];
	if (!(v = realloc(a->ports, (a->nports + 1) * sizeof(*v))))
		return NULL;
	a->ports = v;
	v += a->nports++;
	memset(v, 0, sizeof(*v));
	ibve_strcpy(v->device, device, sizeof(v->device));
	v->port = port;
	return v;
}

/* Live: the ports DEVICE has, for a removal's cases. */
static void learn(struct autopsy *a, const char *device)
{
	char dir[IBVE_NAME_MAX + 32];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), IBVE_SYSFS "/%s/ports", device);
	if (!a->devset || !(d = opendir(dir)))
		return;
	while ((e = readdir(d)))
		if (atoi(e->d_name) > 0)
			port_of(a, device, (uint32_t)atoi(e->d_name));
	closedir(d);
}

/* Live: the rate the devices source last read of P (its PORT_ACTIVE's). */
static void rate(struct autopsy *a, const struct port *p, char *dst)
{
	struct ibve_slot *s =
		a->devset ? ibve_devices_find(a->devset, p->device) : NULL;

	if (s && p->port && p->port <= s->nports)
		memcpy(dst, s->ports[p->port - 1].rate, 28);
}

/* Live: the timer at the soonest window's end, or off; set when it moves. */
static void arm(struct autopsy *a)
{
	struct itimerspec its = { 0 };

	for (size_t i = 0; i < a->nports; i++)
		if (a->ports[i].open &&
		    (!its.it_value.tv_sec ||
		     ibve_ts_before(&a->ports[i].due, &its.it_value)))
			its.it_value = a->ports[i].due;
	if (a->timer_fd >= 0 &&
	    memcmp(&its.it_value, &a->armed, sizeof(a->armed))) {
		a->armed = its.it_value;
		timerfd_settime(a->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
	}
}

/* P's window closes at WHEN: its record, decided. */
static void close_case(struct autopsy *a, struct port *p,
		       const struct timespec *when)
{
	struct autopsy_fields *f = AF(&p->rec);
	uint8_t c = 0;

	p->open = false;
	while (ibve_causes[c].facts && !(ibve_causes[c].facts & p->facts))
		c++;
	if (p->rec.code == CAUSE) {
		f->cause = p->verdict = c + 1;
		p->rec.severity = ibve_causes[c].severity;
	} else {
		/* a cause found once the port is back (the peer's counters)
		 * when the down's verdict found none; the record stays
		 * informational: the down's verdict was said */
		if (ibve_causes[c].facts && p->verdict &&
		    !ibve_causes[p->verdict - 1].facts)
			f->cause = c + 1;
		if (p->peer_read && !p->peer_moved)
			add(p, "no error counter of the peer's moved");
		if (!f->rate_after[0])
			rate(a, p, f->rate_after);
	}
	p->rec.time = *when;
	a->h.put(a->h.ctx, &p->rec);
}

/* The windows that ended by NOW, at their end; NOW NULL: every one, at
 * its end or the clock's now, the sooner. */
static void close_due(struct autopsy *a, const struct timespec *now)
{
	struct timespec clock;

	clock_gettime(CLOCK_REALTIME, &clock);
	for (size_t i = 0; i < a->nports; i++) {
		struct port *p = &a->ports[i];

		if (!p->open || (now && ibve_ts_before(now, &p->due)))
			continue;
		close_case(a, p,
			   !now && ibve_ts_before(&clock, &p->due) ? &clock
								   : &p->due);
	}
}

/* A window of CODE opens on P at EV; a cause's takes the recent evidence. */
static void open_case(struct autopsy *a, struct port *p,
		      const struct ibve_event *ev, int code)
{
	struct ibve_event *rec = &p->rec;
	struct timespec from = ev->time;

	memset(rec, 0, sizeof(*rec));
	ibve_strcpy(rec->device, p->device, sizeof(rec->device));
	rec->port = p->port;
	rec->node_guid = ev->node_guid;
	ibve_event_set_code(rec, IBVE_SOURCE_AUTOPSY, code);
	rec->fields = FIELD;
	p->open = true;
	p->facts = 0;
	p->peer_read = p->peer_moved = false;
	p->due = ev->time;
	ibve_ts_add_ms(&p->due, WINDOW_MS);
	if (code == BACK) {
		AF(rec)->down_us =
			(uint64_t)(ibve_ts_secs(&p->down_at, &ev->time) * 1e6);
		memcpy(AF(rec)->rate_before, p->rate, sizeof(p->rate));
		rec->fields |= IBVE_FIELD_DOWN;
		return;
	}
	p->down = true;
	p->down_at = ev->time;
	rate(a, p, p->rate);
	ibve_ts_add_ms(&from, -WINDOW_MS);
	for (size_t i = 0; i < RECENT && i < a->nrecent; i++) {
		const struct ibve_event *r = &a->recent[i];

		/* who set it down before it was last up is the last down's */
		if (!strcmp(r->device, p->device) &&
		    (!r->port || r->port == p->port) &&
		    !ibve_ts_before(&r->time, &from) &&
		    !(by_whom(r) && ibve_ts_before(&r->time, &p->up_at)))
			take(p, r);
	}
}

/* Whether EV takes its port down (PORT_ERR, NETDEV_DOWN, CARRIER_LOST). */
static bool downs(const struct ibve_event *ev)
{
	return (ev->source == IBVE_SOURCE_VERBS &&
		ev->code == IBV_EVENT_PORT_ERR) ||
	       (ev->source == IBVE_SOURCE_NETDEV &&
		(ev->code == IBVE_NETDEV_DOWN ||
		 ev->code == IBVE_NETDEV_CARRIER_LOST));
}

/* Whether EV may be evidence of a case that opens after it. */
static bool kept(const struct ibve_event *ev)
{
	return (ev->source == IBVE_SOURCE_MLX5 &&
		ev->code != IBVE_MLX5_PORT_CHANGE) ||
	       (ev->source == IBVE_SOURCE_VERBS &&
		ev->code == IBV_EVENT_DEVICE_FATAL) ||
	       ev->source == IBVE_SOURCE_COUNTERS || by_whom(ev);
}

/* A port's event: its case opens, or closes as it comes back. */
static void port_event(struct autopsy *a, struct port *p,
		       const struct ibve_event *ev)
{
	bool active = ev->source == IBVE_SOURCE_VERBS &&
		      ev->code == IBV_EVENT_PORT_ACTIVE;

	if (p->open && (active || (downs(ev) && !p->down)))
		close_case(a, p, &ev->time);
	if (downs(ev) && !p->down)
		open_case(a, p, ev, CAUSE);
	else if (active && p->down)
		open_case(a, p, ev, BACK);
	p->down &= !active;
	if (active)
		p->up_at = ev->time;
}

/* A device removed: a case for each of its ports (the device's, when
 * none is known). */
static void removed(struct autopsy *a, const struct ibve_event *ev)
{
	size_t n = 0;
	struct port *p;

	for (size_t i = 0; i < a->nports; i++) {
		p = &a->ports[i];
		if (!p->port || strcmp(p->device, ev->device))
			continue;
		n++;
		if (!p->down)
			open_case(a, p, ev, CAUSE);
	}
	if (!n && (p = port_of(a, ev->device, 0)) && !p->down)
		open_case(a, p, ev, CAUSE);
}

static void observe(void *arg, const struct ibve_event *ev)
{
	struct autopsy *a = arg;
	struct port *p;

	if (ev->source == IBVE_SOURCE_AUTOPSY)
		return;
	/*
	 * A verdict put while a case is open may land in the pipeline's slot
	 * of EV (its queue emptied by EV): the record of a set-down that
	 * closed a PORT_BACK then read as that PORT_BACK, and opened no case.
	 * Read a copy whenever a put may come.
	 */
	for (size_t i = 0; i < a->nports; i++)
		if (a->ports[i].open) {
			a->cur = *ev;
			ev = &a->cur;
			break;
		}
	close_due(a, &ev->time);
	if (ev->source == IBVE_SOURCE_HOTPLUG &&
	    ev->code == IBVE_HOTPLUG_DEVICE_ADDED)
		learn(a, ev->device);
	else if (ev->source == IBVE_SOURCE_HOTPLUG &&
		 ev->code == IBVE_HOTPLUG_DEVICE_REMOVED)
		removed(a, ev);
	else if (ev->port && ev->cls == IBVE_CLASS_PORT &&
		 (p = port_of(a, ev->device, ev->port)))
		port_event(a, p, ev);
	for (size_t i = 0; i < a->nports; i++) {
		p = &a->ports[i];
		if (p->open && !strcmp(p->device, ev->device) &&
		    (!ev->port || ev->port == p->port))
			take(p, ev);
	}
	if (kept(ev))
		a->recent[a->nrecent++ % RECENT] = *ev;
	arm(a);
}

static bool ready(void *arg, uint32_t cookie)
{
	struct autopsy *a = arg;
	struct timespec now;
	uint64_t ticks;

	(void)cookie;
	if (read(a->timer_fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return false;
	clock_gettime(CLOCK_REALTIME, &now);
	close_due(a, &now);
	memset(&a->armed, 0, sizeof(a->armed));
	arm(a);
	return false;
}

/* The run ends: every open window closes. */
static void finish(void *arg)
{
	close_due(arg, NULL);
}

static int create(void **out, const struct ibve_source_opts *o,
		  const struct ibve_host *h)
{
	struct autopsy *a = calloc(1, sizeof(*a));

	(void)o;
	*out = a;
	if (!a)
		return ibve_error(ENOMEM, "out of memory");
	a->h = *h;
	a->timer_fd = -1;
	return 0;
}

/*
 * Live (a device set), a timer and the ports of the open devices; else
 * its records are a replay's, whose windows close by their time and at
 * their end: it has nothing to wait for.
 */
static int start(void *arg)
{
	struct autopsy *a = arg;
	const char *names[64];
	size_t n;

	if (!(a->devset = a->h.devset(a->h.ctx))) {
		a->h.done(a->h.ctx, a);
		return 0;
	}
	a->timer_fd =
		timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	if (a->timer_fd < 0)
		return ibve_error(errno, "autopsy: timerfd: %s",
				  strerror(errno));
	n = ibve_devices_names(a->devset, names, ARRAY_SIZE(names));
	for (size_t i = 0; i < n && i < ARRAY_SIZE(names); i++)
		learn(a, names[i]);
	return a->h.watch(a->h.ctx, a->timer_fd, a, 0);
}

static void destroy(void *arg)
{
	struct autopsy *a = arg;

	if (a->timer_fd >= 0)
		close(a->timer_fd);
	free(a->ports);
	free(a);
}

/* --- its records ------------------------------------------------------------ */

static const struct ibve_event_desc rows[] = {
	ROW(CAUSE, "PORT_DOWN_CAUSE", PORT, false, ERROR,
	    "39ea23f139454548997b86ef4c6a80c5",
	    "why the port went down, from the evidence around it",
	    "RDMA_CAUSE says why the link went down and RDMA_ACTION what to do "
	    "(ibv_eventwatch(1), LINK AUTOPSY); RDMA_EVIDENCE lists what was "
	    "seen within a second of the down. administrative is no hardware "
	    "fault; unknown means nothing seen decided: read the evidence."),
	ROW(BACK, "PORT_BACK", PORT, false, INFO,
	    "ee349c96d771489eb57e01e52b5721d6",
	    "the port is back after a down the autopsy explained",
	    "Informational: RDMA_DOWN_US says how long the port was down. A "
	    "RDMA_RATE_AFTER below RDMA_RATE_BEFORE means the link came back "
	    "slower: check the cable; RDMA_EVIDENCE lists the error counters "
	    "that moved while it was down, and the peer's. RDMA_CAUSE, when "
	    "set, is signal_integrity found at the peer after a down whose "
	    "cause was unknown: RDMA_ACTION names the peer's port."),
};

/* The cause a record says, or NULL: none said (a replayed record's, a
 * PORT_BACK's when its evidence decides none). */
static const struct ibve_cause *cause_of(const struct ibve_event *ev)
{
	return AF(ev)->cause ? &ibve_causes[AF(ev)->cause - 1] : NULL;
}

/* The name of a verdict's cause, for the port table; NULL: none said.
 * A PORT_BACK's is not another down's. */
static const char *down_cause(const struct ibve_event *ev)
{
	const struct ibve_cause *c = ev->code == CAUSE ? cause_of(ev) : NULL;

	return c ? c->name : NULL;
}

/* A verdict's MESSAGE_ID: its cause's, for the catalog's entry of it. */
static const char *message_id(const struct ibve_event *ev)
{
	const struct ibve_cause *c = ev->code == CAUSE ? cause_of(ev) : NULL;

	return c ? c->message_id : NULL;
}

/* What action cause C asks, into BUF: the far end named. */
static const char *action(const struct ibve_event *ev,
			  const struct ibve_cause *c, char *buf, size_t size)
{
	const struct autopsy_fields *f = AF(ev);
	const char *s = f->pool, *peer = NULL;
	bool moved = false; /* a counter of the peer's */

	for (unsigned int i = 0; i < f->n; i++, s += strlen(s) + 1)
		if (!strncmp(s, "peer ", 5))
			peer = s + 5;
		else if (!strncmp(s, "peer's ", 7))
			moved = true;
	if (peer && c->facts == F_CARRIER)
		snprintf(buf, size, "%s: %s", c->action, peer);
	else if (peer && moved && c->facts == F_SIGNAL)
		snprintf(buf, size, "%s: on the peer's side, %s", c->action,
			 peer);
	else
		snprintf(buf, size, "%s", c->action);
	return buf;
}

static void fields_json(struct ibve_json *j, const struct ibve_event *ev)
{
	const struct autopsy_fields *f = AF(ev);
	const struct ibve_cause *c = cause_of(ev);
	const char *s = f->pool;
	char buf[160];

	if (c)
		ibve_json_name(j, "cause", c->name);
	ibve_json_open_array(j, "evidence");
	for (unsigned int i = 0; i < f->n; i++, s += strlen(s) + 1)
		ibve_json_str(j, NULL, s);
	if (f->more) {
		snprintf(buf, sizeof(buf), "+%u more", f->more);
		ibve_json_str(j, NULL, buf);
	}
	ibve_json_close_array(j);
	if (c)
		ibve_json_str(j, "action", action(ev, c, buf, sizeof(buf)));
	if (f->rate_before[0])
		ibve_json_str(j, "rate_before", f->rate_before);
	if (f->rate_after[0])
		ibve_json_str(j, "rate_after", f->rate_after);
}

/* "cause link_partner: EVIDENCE; ...", "rate A -> B; EVIDENCE; ..."; a
 * rate not known: "?", neither: "rate unknown". */
static void fields_text(struct ibve_buf *b, const struct ibve_event *ev)
{
	const struct autopsy_fields *f = AF(ev);
	const struct ibve_cause *c = cause_of(ev);
	const char *s = f->pool;

	if (ev->code == CAUSE) {
		ibve_buf_printf(b, "cause %s", c ? c->name : "not said");
	} else if (!f->rate_before[0] && !f->rate_after[0]) {
		ibve_buf_puts(b, "rate unknown");
	} else {
		ibve_buf_puts(b, "rate ");
		ibve_buf_text_str(b, f->rate_before[0] ? f->rate_before : "?");
		ibve_buf_puts(b, " -> ");
		ibve_buf_text_str(b, f->rate_after[0] ? f->rate_after : "?");
	}
	if (ev->code == BACK && c)
		ibve_buf_printf(b, "; cause %s", c->name);
	for (unsigned int i = 0; i < f->n; i++, s += strlen(s) + 1) {
		ibve_buf_puts(b, i ? "; " : ev->code == CAUSE ? ": " : "; ");
		ibve_buf_text_str(b, s);
	}
	if (f->more)
		ibve_buf_printf(b, "; +%u more", f->more);
}

static int fields_parse(const struct ibve_jsrc *o, struct ibve_event *ev,
			int key, char *err, size_t errlen)
{
	enum { K_CAUSE, K_EVIDENCE, K_ACTION, K_BEFORE, K_AFTER };
	struct autopsy_fields *f = AF(ev);
	static int down_key;
	struct json_object *a;
	struct ibve_jval v;
	const char *s;
	uint64_t us;
	int said, r, own = 0;

	/* the fields are read when a key of its own is in the line, as the
	 * scanner calls this (json-c's reader calls it for every line): a
	 * down_us alone, the verbs source's key, is not the autopsy's */
	for (int k = K_CAUSE; k <= K_AFTER; k++) {
		o->get(o, key + k, &v);
		own |= v.type != J_ABSENT;
	}
	if (!own)
		return 0;
	/* a cause: a verdict's says its severity; a PORT_BACK's, found
	 * once the port was back, leaves it informational */
	if ((said = ibve_get_str(o, key + K_CAUSE, &s, err, errlen)) < 0)
		return -EINVAL;
	said &= ev->code == CAUSE || ev->code == BACK;
	for (f->cause = 0; said && ibve_causes[f->cause].name &&
			   strcmp(ibve_causes[f->cause].name, s);)
		f->cause++;
	if (said && !ibve_causes[f->cause].name)
		FAIL("unknown cause \"%.40s\"", s);
	/* a return's cause can only be the peer's counters' */
	if (said && ev->code == BACK && ibve_causes[f->cause].facts != F_SIGNAL)
		FAIL("a PORT_BACK's cause can only be signal_integrity");
	if (said && ev->code == CAUSE)
		ev->severity = ibve_causes[f->cause].severity;
	f->cause = said ? f->cause + 1 : 0;
	o->get(o, key + K_EVIDENCE, &v);
	a = (struct json_object *)v.obj;
	if (v.type != J_ABSENT && v.type != J_NULL &&
	    (v.type != J_OTHER || !a ||
	     !json_object_is_type(a, json_type_array)))
		FAIL("\"evidence\" must be an array of strings");
	for (size_t i = 0; v.type == J_OTHER && i < json_object_array_length(a);
	     i++) {
		struct json_object *x = json_object_array_get_idx(a, i);

		if (!json_object_is_type(x, json_type_string))
			FAIL("\"evidence\" must be an array of strings");
		if (!put(f, json_object_get_string(x), 0))
			FAIL("\"evidence\" longer than %d bytes", POOL);
	}
	if (ibve_get_opt_str(o, key + K_BEFORE, f->rate_before,
			     sizeof(f->rate_before), ev, FIELD, err, errlen) ||
	    ibve_get_opt_str(o, key + K_AFTER, f->rate_after,
			     sizeof(f->rate_after), ev, FIELD, err, errlen))
		return -EINVAL;
	/* PORT_BACK's time down: the verbs source's key, read here */
	while (!down_key || strcmp(ibve_keys[down_key].name, "down_us"))
		down_key++;
	if ((r = ibve_get_uint(o, down_key, UINT64_MAX, &us, err, errlen)) < 0)
		return r;
	f->down_us = us;
	ev->fields |= (r ? IBVE_FIELD_DOWN : 0) |
		      (said || v.type == J_OTHER || r ? FIELD : 0);
	return 0;
}

/* After the verbs source's peer (130): its keys in this order. */
static const struct ibve_fieldspec fields[] = {
	{ .keys = "cause evidence action rate_before rate_after",
	  .order = 135,
	  .flag = FIELD,
	  .json = fields_json,
	  .text = fields_text,
	  .parse = fields_parse },
};

static const struct ibve_source_option options[] = {
	{ "autopsy", 0,
	  "also why each port went down: a cause from what the\n"
	  "netdev state, the error counters and the device said\n"
	  "around it, and a record when it is back",
	  0 },
};

const struct ibve_source_ops ibve_source_autopsy = {
	.name = "autopsy",
	.records = IBVE_SOURCE_AUTOPSY,
	ROWS(rows),
	FIELDS(fields),
	OPTIONS(options),
	/* a verdict of administrative or unknown: a warning */
	.severities = 1u << IBVE_SEVERITY_WARNING,
	.on_demand = true,
	.down_cause = down_cause,
	.message_id = message_id,
	.rank = 1,
	.order = 40, /* after the devices' */
	.create = create,
	.start = start,
	.ready = ready,
	.observe = observe,
	.finish = finish,
	.destroy = destroy,
};
