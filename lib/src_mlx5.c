// SPDX-License-Identifier: MIT
/*
 * The "mlx5" source: device events the verbs queue never carries (cables
 * and modules, temperature, general firmware events), through a DEVX event
 * channel of each mlx5 device's context. It opens mlx5 devices for the
 * "devices" source with a DEVX context, so one context serves both. Built
 * only with libmlx5's headers (MLX5=0 leaves the channel out: the source
 * then has nothing to give, and says so when required).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "devices.h"
#include "fields.h"
#include "mlx5.h"
#include "source.h"

#ifdef IBVE_HAVE_MLX5
#include "dl_mlx5.h"
#endif

struct chan {
	struct ibv_context *ctx; /* whose channel it is */
	struct mlx5dv_devx_event_channel *ch;
	uint64_t overflows;
};

struct mlx5 {
	struct ibve_host h;
	bool required;
	struct ibve_names names; /* the devices asked for, if named */
	struct ibve_devset *devices;
	int hook;	       /* our id with the devices source */
	struct chan **pending; /* opened, not yet attached to a slot */
	size_t npending;
	char noted[1024]; /* "dev: " of every device a note explained */
};

static int create(void **out, const struct ibve_source_opts *o,
		  const struct ibve_host *h)
{
	struct mlx5 *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return ibve_error(ENOMEM, "out of memory");
	s->h = *h;
	s->hook = -1;
	s->required = o->flags & IBVE_SRC_REQUIRED;
	return ibve_names_copy(&s->names, o);
}

static void chan_free(struct chan *c)
{
	if (!c)
		return;
#ifdef IBVE_HAVE_MLX5
	if (c->ch)
		mlx5dv_devx_destroy_event_channel(c->ch);
#endif
	free(c);
}

static struct chan *slot_chan(const struct mlx5 *s, const struct ibve_slot *d)
{
	return s->hook >= 0 ? d->hook_data[s->hook] : NULL;
}

#ifdef IBVE_HAVE_MLX5
/* A note about DEVICE, remembered so that check() can point to it. */
__attribute__((format(printf, 3, 4))) static void
note(struct mlx5 *s, const char *device, const char *fmt, ...)
{
	char text[512];
	size_t n = strlen(s->noted);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	ibve_host_note(&s->h, IBVE_NOTE, "%s", text);
	snprintf(s->noted + n, sizeof(s->noted) - n, "%s: ", device);
}

/* Unaffiliated events worth subscribing: each alone, keeping the rest. */
static const uint16_t wanted[] = {
	IBVE_MLX5_PORT_CHANGE,
	IBVE_MLX5_PORT_MODULE,
	IBVE_MLX5_TEMP_WARN,
	IBVE_MLX5_GENERAL,
};

/* A channel subscribed to what DEV allows; NULL (said why) if none. */
static struct chan *subscribe(struct mlx5 *s, const char *name,
			      struct ibv_context *ctx)
{
	struct chan *c = calloc(1, sizeof(*c));
	char refused[256] = "";
	size_t nref = 0, nok = 0;
	int fl;

	if (!c)
		return NULL;
	c->ctx = ctx;
	c->ch = mlx5dv_devx_create_event_channel(ctx, 0);
	if (!c->ch) {
		note(s, name,
		     "%s: no DEVX event channel (%s): no mlx5 device events",
		     name, strerror(errno));
		free(c);
		return NULL;
	}
	fl = fcntl(c->ch->fd, F_GETFL);
	if (fl >= 0)
		fcntl(c->ch->fd, F_SETFL, fl | O_NONBLOCK);
	for (size_t i = 0; i < ARRAY_SIZE(wanted); i++) {
		uint16_t num = wanted[i];
		/* events_sz is in bytes; the cookie says which it was */
		int r = mlx5dv_devx_subscribe_devx_event(
			c->ch, NULL, sizeof(num), &num, num);

		if (!r) {
			nok++;
			continue;
		}
		snprintf(refused + strlen(refused),
			 sizeof(refused) - strlen(refused), "%s%s (%s)",
			 nref++ ? ", " : "",
			 ibve_event_desc_find(IBVE_SOURCE_MLX5, num)->name,
			 strerror(r > 0 ? r : errno));
	}
	if (nref)
		note(s, name, "%s: DEVX events refused: %s", name, refused);
	if (!nok) {
		chan_free(c);
		return NULL;
	}
	return c;
}

/*
 * Whether DEV may be an mlx5 device, without loading libmlx5: its kernel
 * driver is mlx5_core (or mlx5_core.sf, a sub-function's). A device with
 * no driver link (soft-RoCE, siw) is not; when sysfs cannot tell at all,
 * libmlx5 decides.
 */
static bool mlx5_driver(const struct ibv_device *dev)
{
	char path[sizeof(dev->ibdev_path) + 16], link[256];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/device/driver", dev->ibdev_path);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return access(dev->ibdev_path, F_OK) != 0;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	return strcmp(base, "mlx5_core") == 0 ||
	       strncmp(base, "mlx5_core.", 10) == 0;
}

/* The devices source opens an mlx5 device here: DEVX context, channel. */
static struct ibv_context *open_dev(void *arg, struct ibv_device *dev)
{
	struct mlx5dv_context_attr attr = { .flags =
						    MLX5DV_CONTEXT_FLAGS_DEVX };
	struct mlx5 *s = arg;
	const char *name = ibv_get_device_name(dev);
	struct ibv_context *ctx;
	struct chan *c, **v;

	if (!mlx5_driver(dev))
		return NULL; /* not its business */
	if (ibve_dl_load(&ibve_mlx5_dl)) {
		note(s, name, "%s: %s: no mlx5 device events", name,
		     ibve_errmsg());
		return NULL; /* opened the usual way */
	}
	if (!mlx5dv_is_supported(dev))
		return NULL;
	ctx = mlx5dv_open_device(dev, &attr);
	if (!ctx) {
		note(s, name, "%s: no DEVX context (%s): no mlx5 device events",
		     name, strerror(errno));
		return NULL; /* opened the usual way */
	}
	c = subscribe(s, name, ctx);
	v = c ? realloc(s->pending, (s->npending + 1) * sizeof(*v)) : NULL;
	if (v) {
		s->pending = v;
		v[s->npending++] = c;
	} else {
		chan_free(c);
	}
	return ctx;
}

static void attach(void *arg, int id, struct ibve_slot *d)
{
	struct mlx5 *s = arg;

	for (size_t i = 0; i < s->npending; i++) {
		if (s->pending[i]->ctx != d->ctx)
			continue;
		d->hook_data[id] = s->pending[i];
		s->pending[i] = s->pending[--s->npending];
		s->h.watch(s->h.ctx, ((struct chan *)d->hook_data[id])->ch->fd,
			   s, (uint32_t)d->index);
		return;
	}
}

static void detach(void *arg, int id, struct ibve_slot *d)
{
	struct mlx5 *s = arg;
	struct chan *c = d->hook_data[id];

	if (!c)
		return;
	s->h.unwatch(s->h.ctx, c->ch->fd);
	chan_free(c);
	d->hook_data[id] = NULL;
}

static const char *tag(void *arg, int id, const struct ibve_slot *d)
{
	(void)arg;
	return d->hook_data[id] ? "+mlx5" : NULL;
}

static int start(void *arg)
{
	struct mlx5 *s = arg;
	struct ibve_dev_hooks hooks = {
		.arg = s,
		.open = open_dev,
		.attach = attach,
		.detach = detach,
		.tag = tag,
	};

	s->devices = s->h.devset(s->h.ctx);
	if (!s->devices)
		return 0;
	s->hook = ibve_devices_hook(s->devices, &hooks);
	return s->hook < 0 ? s->hook : 0;
}
#else
/* MLX5=0: the channel is left out, which a source required cannot be. */
static int start(void *arg)
{
	const struct mlx5 *s = arg;

	return s->required ? ibve_error(ENOTSUP,
					"this build has no mlx5 support (it "
					"was built with MLX5=0)")
			   : 0;
}
#endif

/* Whether a device has its channel. */
static bool live(const void *arg)
{
	const struct mlx5 *s = arg;

	for (size_t i = 0; s->devices && i < s->devices->nslots; i++) {
		const struct ibve_slot *d = s->devices->slots[i];

		if (d->used && d->ctx && slot_chan(s, d))
			return true;
	}
	return false;
}

/* Required: every device named has its channel, or at least one has. */
static int check(void *arg)
{
	struct mlx5 *s = arg;

	if (!s->required)
		return 0;
	for (size_t i = 0; s->devices && i < s->names.n; i++) {
		const struct ibve_slot *d =
			ibve_devices_find(s->devices, s->names.v[i]);
		char key[IBVE_NAME_MAX + 3];

		if (d && slot_chan(s, d))
			continue;
		snprintf(key, sizeof(key), "%s: ", s->names.v[i]);
		return ibve_error(ENOTSUP, "%s has no mlx5 DEVX events (%s)",
				  s->names.v[i],
				  strstr(s->noted, key)
					  ? "see above"
					  : "it is not an mlx5 device");
	}
	return live(s) ? 0
		       : ibve_error(ENOTSUP, "no device with mlx5 DEVX events");
}

static bool ready(void *arg, uint32_t cookie)
{
	struct mlx5 *s = arg;
	struct ibve_slot *d =
		cookie < s->devices->nslots ? s->devices->slots[cookie] : NULL;
	struct chan *c = d && d->used ? slot_chan(s, d) : NULL;

	if (!c)
		return false;
#ifdef IBVE_HAVE_MLX5
	for (;;) {
		union {
			struct mlx5dv_devx_async_event_hdr hdr;
			uint8_t raw[sizeof(uint64_t) + 64];
		} buf;
		ssize_t len =
			mlx5dv_devx_get_event(c->ch, &buf.hdr, sizeof(buf));
		enum ibve_mlx5_got got = ibve_mlx5_got(len, errno, sizeof(buf));
		struct ibve_event *ev;

		if (got == IBVE_MLX5_GOT_DRAINED)
			break;
		if (got == IBVE_MLX5_GOT_GONE) {
			ibve_devices_close(s->devices, d);
			break;
		}
		if (got == IBVE_MLX5_GOT_SHORT)
			continue; /* OMIT_EV_DATA was not asked for */
		ev = s->h.emit(s->h.ctx);
		if (!ev)
			continue;
		ibve_strcpy(ev->device, d->name, sizeof(ev->device));
		ev->node_guid = d->guid;
		if (got == IBVE_MLX5_GOT_LOST) /* once per overflow */
			ibve_mlx5_event_lost(ev, ++c->overflows);
		else
			ibve_mlx5_decode(ev, buf.hdr.out_data, 64);
	}
#endif
	return false;
}

static void destroy(void *arg)
{
	struct mlx5 *s = arg;

	for (size_t i = 0; i < s->npending; i++)
		chan_free(s->pending[i]);
	free(s->pending);
	free(s->names.v);
	free(s);
}

/*
 * mlx5 event queue entry types (include/linux/mlx5/device.h). The
 * severity of PORT_CHANGE, PORT_MODULE and GENERAL depends on the
 * sub-type: see mlx5.c. Types 0x00-0x03 (completion, path migration,
 * communication established, SQ drained) are QP events the verbs
 * queue already carries; they decode as UNKNOWN(n) if ever seen.
 */
static const struct ibve_event_desc rows[] = {
	ROW(0x04, "CQ_ERROR", CQ, true, ERROR,
	    "ee77be7ca5b14140b7f5b839502daa84",
	    "completion queue error (overrun or access)",
	    "A completion queue of the device overran or was misused. Look at the "
	    "owning process; if several processes see it, check the firmware."),
	ROW(0x05, "WQ_CATAS_ERROR", QP, true, ERROR,
	    "ae21621b24e44b4ca48e07c441686c8d",
	    "catastrophic error on a work queue",
	    "A work queue met an error it could not recover from. Read the kernel "
	    "log and restart the owning process; a repeat across processes points "
	    "at firmware or hardware."),
	ROW(0x07, "PATH_MIG_FAILED", QP, true, ERROR,
	    "ea61a74aebd045b19a7e8184e18b3d54", "path migration failed",
	    "Migration to the alternate path failed. Check the links and switches "
	    "of both paths."),
	ROW(0x08, "INTERNAL_ERROR", DEVICE, false, FATAL,
	    "1b8472894e264291b01884d1afdf8b8c",
	    "the adapter reported an internal error",
	    "The adapter failed. Read the kernel log (dmesg) and the firmware's "
	    "health reports (devlink health); reset or reboot, and drain the node "
	    "until it is fixed."),
	ROW(0x09, "PORT_CHANGE", PORT, false, INFO,
	    "b8e7e4ff8f9d4a21a06e1d02cb066743", "port state changed",
	    "The port changed state; RDMA_CHANGE says how. If it went down, check "
	    "the cable, the module and the switch port."),
	ROW(0x0d, "NIC_VPORT_CHANGE", DEVICE, false, INFO,
	    "2d14b4eadf6341eababd8afaadfffcd1", "a NIC vport's context changed",
	    "Informational: a virtual port's settings changed (SR-IOV or switch "
	    "configuration). Nothing to do if it was meant."),
	ROW(0x10, "WQ_INVAL_REQ_ERROR", QP, true, ERROR,
	    "82d5dc6a24084bff8148f8a4f9196e01",
	    "invalid request on a work queue",
	    "A work queue received an invalid request. Look at the owning process "
	    "and its peer."),
	ROW(0x11, "WQ_ACCESS_ERROR", QP, true, ERROR,
	    "e1c1c408f65749d898a4d633b491d9d8", "access error on a work queue",
	    "A work queue met an access violation (bad key or permission), "
	    "usually an application bug. Report it with the job's logs."),
	ROW(0x12, "SRQ_CATAS_ERROR", SRQ, true, ERROR,
	    "8b30e7942c3a4cb7b749e00a11582827",
	    "catastrophic error on a shared receive queue",
	    "A shared receive queue failed. Restart the owning process; a repeat "
	    "points at firmware or hardware."),
	ROW(0x13, "SRQ_LAST_WQE", QP, true, INFO,
	    "cd95243008634765bdc135add2c23cd0",
	    "last WQE reached on an SRQ-attached queue",
	    "Informational: part of tearing down a queue attached to a shared "
	    "receive queue. Nothing to do."),
	ROW(0x14, "SRQ_RQ_LIMIT", SRQ, true, WARNING,
	    "a43c12f947c9458597bf98cb39e4ee67",
	    "shared receive queue below its limit",
	    "A shared receive queue fell below its armed limit: the owning "
	    "process is short of receive buffers. Frequent events mean it posts "
	    "them too slowly."),
	ROW(0x15, "GPIO", DEVICE, false, INFO,
	    "d21c8c93ce2d4b57996d302d6b1880b7",
	    "a GPIO pin of the adapter changed",
	    "Informational: a GPIO pin of the adapter changed. Nothing to do "
	    "unless the vendor asks."),
	ROW(0x16, "PORT_MODULE", DEVICE, false, WARNING,
	    "5cb57c130d8046499c0bd01e6cc2e2df",
	    "cable or module status changed",
	    "A cable or module was plugged, unplugged or failed "
	    "(RDMA_MODULE_STATUS, RDMA_ERROR_TYPE). On an error reseat or replace "
	    "it; ethtool -m shows the module's own data."),
	ROW(0x17, "TEMP_WARN", DEVICE, false, WARNING,
	    "01998a25234143859559d1144e4a650d",
	    "temperature warning from the adapter's sensors",
	    "The adapter is too hot (RDMA_SENSORS: 0 is the chip). Check the "
	    "host's cooling and airflow; sustained heat shortens the adapter's "
	    "life and can shut it down."),
	ROW(0x18, "XRQ_ERROR", SRQ, true, ERROR,
	    "82c16f8d449e45d990adc54842f5a4c7", "error on an XRQ",
	    "An extended receive queue failed. Restart the owning process; a "
	    "repeat points at firmware."),
	ROW(0x19, "REMOTE_CONFIG", DEVICE, false, INFO,
	    "64b449c1e65b4ae08e192060e27fa5fb",
	    "configuration changed remotely",
	    "Informational: the adapter's configuration was changed from outside "
	    "the host (e.g. a management controller). Check that it was meant."),
	ROW(0x1a, "DB_BF_CONGESTION", DEVICE, false, WARNING,
	    "674d1a2c248d41eca0a6ba497be0f5cc", "doorbell/BlueFlame congestion",
	    "Doorbells are congested: too many queues ring at once. A performance "
	    "matter; look at the workload if it persists."),
	ROW(0x1b, "STALL", DEVICE, false, WARNING,
	    "3096d04b31ad471796a72b4876d0a823", "the adapter reports a stall",
	    "The adapter reports a stall. Read the kernel log and the firmware's "
	    "health reports; a repeat needs the vendor."),
	ROW(0x1c, "DCT_DRAINED", QP, true, INFO,
	    "51d542fa55b140eaa9db357648611308", "DC target drained",
	    "Informational: a DC target finished draining. Nothing to do."),
	ROW(0x1d, "DCT_KEY_VIOLATION", QP, true, WARNING,
	    "3ddebc362a974cb08de544cf79556f4b", "DC target key violation",
	    "A DC initiator used a wrong access key: a misconfigured or hostile "
	    "peer. Find the sender."),
	ROW(0x20, "FPGA_ERROR", DEVICE, false, ERROR,
	    "9367ce51948843008004d87c11b75df2", "FPGA error",
	    "The adapter's FPGA reported an error. Read the kernel log and use "
	    "the vendor's tools."),
	ROW(0x21, "FPGA_QP_ERROR", QP, true, ERROR,
	    "b8499444c94646529452603e947e2a98", "FPGA queue pair error",
	    "A queue pair of the adapter's FPGA failed. Read the kernel log and "
	    "use the vendor's tools."),
	ROW(0x22, "GENERAL", DEVICE, false, INFO,
	    "102b22491aff4d9590fac486520dfc1f", "general adapter event",
	    "A general adapter event; RDMA_GENERAL says which (e.g. a firmware "
	    "live patch, a PCIe power change). Read the kernel log when it was "
	    "not expected."),
	ROW(0x24, "MONITOR_COUNTER", DEVICE, false, INFO,
	    "dc4438fb0f45431f854bd6853cd871c5", "a monitored counter changed",
	    "Informational: a counter the firmware monitors changed. Look at the "
	    "adapter's counters."),
	ROW(0x25, "PPS", DEVICE, false, INFO,
	    "c5b3b023461c45b9bff835e2dbb2eb4f", "pulse-per-second clock event",
	    "Informational: a pulse-per-second clock event. Nothing to do."),
	ROW(0x26, "DEVICE_TRACER", DEVICE, false, INFO,
	    "348b4e58c1024e21bcc29892c1401faf", "firmware tracer event",
	    "Informational: the firmware tracer has data. Nothing to do unless "
	    "the vendor asks."),
	ROW(0x27, "OBJECT_CHANGE", DEVICE, false, INFO,
	    "0913334c9b5e42ca8d0c0856432b1c6e", "a device object changed",
	    "Informational: a device object changed. Nothing to do."),
	ROW(IBVE_MLX5_EVENTS_LOST, "EVENTS_LOST", DEVICE, false, WARNING,
	    "ed793fab7ab4426bbfedeb9471886f72",
	    "the DEVX event channel overflowed: events were lost",
	    "Device events came faster than the watcher read them and some were "
	    "lost; counts and metrics are low by as many. Look at what caused the "
	    "storm and at the watcher's load."),
};

/* --- its records' field: the raw entry, decoded --------------------------- */

static int mlx5_parse(const struct ibve_jsrc *o, struct ibve_event *ev, int key,
		      char *err, size_t errlen)
{
	struct ibve_event line;
	struct ibve_jval v;
	uint8_t eqe[64];
	const char *s;
	bool same;
	int r = ibve_get_str(o, key, &s, err, errlen);

	if (r <= 0)
		return r;
	/* The entry itself says what happened: decode it here. */
	if (ibve_hex_bytes(s, eqe, sizeof(eqe)))
		FAIL("\"eqe\" is not 64 bytes of hex");
	memcpy(&line, ev, sizeof(line));
	ibve_mlx5_decode(ev, eqe, sizeof(eqe));
	/*
	 * The event the entry says, against what the line says beside it
	 * (LINE, its identity as parsed; no name: nothing said). A name this
	 * version does not know cannot be compared: the entry decides.
	 */
	if (!line.name[0])
		return 0;
	if (line.desc)
		same = line.desc->source == IBVE_SOURCE_MLX5 &&
		       line.desc->code == ev->code;
	else if (strncmp(line.name, "UNKNOWN(", 8) == 0)
		same = line.code == ev->code;
	else
		return 0;
	if (same)
		return 0;
	o->get(o, K_EVENT, &v);
	if (v.type == J_STRING)
		FAIL("\"event\" %s disagrees with its \"eqe\" (%s)", line.name,
		     ev->name);
	FAIL("\"code\" %d disagrees with its \"eqe\" (%s)", line.code,
	     ev->name);
}

/* The raw entry last, among every source's rows; it says what it is. */
static const struct ibve_fieldspec fields[] = {
	{ .keys = "eqe",
	  .order = 160,
	  .flag = IBVE_FIELD_MLX5,
	  .identity = true,
	  .json = ibve_mlx5_json,
	  .text = ibve_mlx5_details,
	  .parse = mlx5_parse },
};

/* PORT_CHANGE repeats the verbs port events: other, not link up. */
static const struct ibve_kind_of kind_of[] = {
	{ 0x08, IBVE_KIND_FATAL }, /* INTERNAL_ERROR */
	{ IBVE_MLX5_PORT_MODULE, IBVE_KIND_MODULE },
	{ IBVE_MLX5_TEMP_WARN, IBVE_KIND_TEMP },
};

/* Without it, DEVX events are used where a device has them, silently
 * not elsewhere. */
static const struct ibve_source_option options[] = {
	{ "mlx5", 0,
	  "require mlx5 DEVX device events (cables, temperature);\nwithout it they are used wherever a device has them",
	  IBVE_SRC_REQUIRED },
};

const struct ibve_source_ops ibve_source_mlx5 = {
	.name = "mlx5",
	.records = IBVE_SOURCE_MLX5,
	OPTIONS(options),
	ROWS(rows),
	KINDS(kind_of),
	FIELDS(fields),
	.order = 12,
	.create = create,
	.start = start,
	.check = check,
	.live = live,
	.ready = ready,
	.destroy = destroy,
};
