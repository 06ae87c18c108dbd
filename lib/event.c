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

/*
 * A row: code, name, class, affiliation, severity, the MESSAGE_ID of its
 * journal entries (written down once, never computed: see journal.c), the
 * explanation and what an operator should do.
 */
#define VERBS(c, n, cl, aff, sev, id, txt, todo)               \
	{                                                      \
		IBVE_SOURCE_VERBS, c, n, IBVE_CLASS_##cl, aff, \
			IBVE_SEVERITY_##sev, txt, id, todo     \
	}
#define MLX5(c, n, cl, aff, sev, id, txt, todo)               \
	{                                                     \
		IBVE_SOURCE_MLX5, c, n, IBVE_CLASS_##cl, aff, \
			IBVE_SEVERITY_##sev, txt, id, todo    \
	}
#define SM(c, n, sev, id, txt, todo)                          \
	{                                                     \
		IBVE_SOURCE_SM, c, n, IBVE_CLASS_PORT, false, \
			IBVE_SEVERITY_##sev, txt, id, todo    \
	}
#define HOTPLUG(c, n, cl, sev, id, txt, todo)                      \
	{                                                          \
		IBVE_SOURCE_HOTPLUG, c, n, IBVE_CLASS_##cl, false, \
			IBVE_SEVERITY_##sev, txt, id, todo         \
	}

/*
 * Verbs events carry their enum ibv_event_type number (rdma-core 44 has
 * 0..19, rdma-core 62 adds 20). Newer numbers decode as UNKNOWN(n) and are
 * still delivered.
 */
static const struct ibve_event_desc event_table[] = {
	VERBS(IBV_EVENT_CQ_ERR, "CQ_ERR", CQ, true, ERROR,
	      "35f1a4cff56c4103b5a57fc746ce0756",
	      "completion queue overrun: completions were lost",
	      "The owning process polls its completion queue too slowly or made it "
	      "too small; the queue pairs on it are in error. Restart the job; if "
	      "it recurs, raise the queue sizes of its communication library or "
	      "report it to its developers."),
	VERBS(IBV_EVENT_QP_FATAL, "QP_FATAL", QP, true, ERROR,
	      "c3cc782684984620962dd79bd046dcd0",
	      "local catastrophic error on the queue pair; it moved to the error state",
	      "The adapter met an error it could not recover from on this queue "
	      "pair; the connection is lost. If several queue pairs or nodes see "
	      "it, read the kernel log (dmesg) and check the adapter's firmware; "
	      "otherwise restart the job."),
	VERBS(IBV_EVENT_QP_REQ_ERR, "QP_REQ_ERR", QP, true, ERROR,
	      "e5d6c1fc600b4a5fb2c237f830ce6a4a",
	      "invalid request from the peer (transport error); queue pair moved to error",
	      "The peer sent a request this queue pair could not accept. Look at "
	      "the peer process and its node: a peer that crashed mid-transfer or a "
	      "mismatch between the two sides' software are the usual causes."),
	VERBS(IBV_EVENT_QP_ACCESS_ERR, "QP_ACCESS_ERR", QP, true, ERROR,
	      "61c0e4a9f6504d45afc93cfb3c14182b",
	      "remote access violation (bad key or permissions); queue pair moved to error",
	      "A remote access used a bad key, address or permission: usually an "
	      "application bug, or a peer using memory already released. Report it "
	      "to the application's developers with the job's logs."),
	VERBS(IBV_EVENT_COMM_EST, "COMM_EST", QP, true, INFO,
	      "6ea3bcf9f1634f5e8675b9dcadc52ef7",
	      "first packet received in RTR: communication established",
	      "Informational: the first packet arrived on a connection still in "
	      "RTR. Nothing to do."),
	VERBS(IBV_EVENT_SQ_DRAINED, "SQ_DRAINED", QP, true, INFO,
	      "7dce90e2b125415abb15e06fe70ebbfe",
	      "send queue drained after the move to SQD",
	      "Informational: the owning application asked for it. Nothing to do."),
	VERBS(IBV_EVENT_PATH_MIG, "PATH_MIG", QP, true, WARNING,
	      "c699f4d005a94b46ab693527124efd28",
	      "connection migrated to its alternate path",
	      "Traffic moved to the alternate path because the primary path has a "
	      "problem. Check the links and switch ports of the primary path (port "
	      "counters, the fabric's error reports)."),
	VERBS(IBV_EVENT_PATH_MIG_ERR, "PATH_MIG_ERR", QP, true, ERROR,
	      "95078ee2ccb04c7b9e99028aff7f6b15",
	      "migration to the alternate path failed",
	      "Neither path works for this connection. Check the links and switches "
	      "of both paths and the subnet manager's log."),
	VERBS(IBV_EVENT_DEVICE_FATAL, "DEVICE_FATAL", DEVICE, false, FATAL,
	      "0866f6ffc09647189dd7128af228b600",
	      "device failed or is being removed; it is unusable until reset",
	      "The adapter is unusable and every job using it has failed. Read the "
	      "kernel log (dmesg) for the driver's reason; a reset or reboot may "
	      "bring it back, a repeat points at the hardware. Drain the node until "
	      "it is fixed."),
	VERBS(IBV_EVENT_PORT_ACTIVE, "PORT_ACTIVE", PORT, false, INFO,
	      "cdd83400705b4cfe8b7072304283852c",
	      "port is active: link up and ready for traffic",
	      "Informational: the link is up. After a PORT_ERR it means the link "
	      "flapped: watch for repeats (ibvevent_port_flaps_total, ibv_eventwatch "
	      "--check)."),
	VERBS(IBV_EVENT_PORT_ERR, "PORT_ERR", PORT, false, ERROR,
	      "b660206d9ee048e69747f696ec0d638e",
	      "port left the active state: link down or lost",
	      "The link is down. Check the cable, the module and the switch port "
	      "(ibv_eventwatch -l, ibstat, the port counters, the switch's log); "
	      "jobs using the port lose their connections."),
	VERBS(IBV_EVENT_LID_CHANGE, "LID_CHANGE", PORT, false, WARNING,
	      "2ae79d5f0c524d9fb34e456446120045",
	      "subnet manager assigned the port a new LID",
	      "The subnet manager gave the port a new address, usually after a "
	      "fabric change or an SM restart; connections to the old LID must be "
	      "made again. Repeated changes point at an unstable subnet manager or "
	      "fabric."),
	VERBS(IBV_EVENT_PKEY_CHANGE, "PKEY_CHANGE", PORT, false, WARNING,
	      "9da1eb9738504e58af7fb7882d56fa8c",
	      "P_Key table of the port changed",
	      "The port's partition membership changed. Check that the subnet "
	      "manager's partition configuration is what was meant; jobs in a "
	      "partition the port left lose access."),
	VERBS(IBV_EVENT_SM_CHANGE, "SM_CHANGE", PORT, false, WARNING,
	      "0fb6e6156bd24e51afba91ef0f892014",
	      "the subnet manager serving the port changed",
	      "Another subnet manager took over. Find out why the previous one "
	      "stopped (its host and log); every node of the subnet sees this at "
	      "once."),
	VERBS(IBV_EVENT_SRQ_ERR, "SRQ_ERR", SRQ, true, ERROR,
	      "28f12f5546b2434e8b99e32ea6657263",
	      "shared receive queue failed; its queue pairs moved to error",
	      "The shared receive queue failed and took its queue pairs with it. "
	      "Restart the job; if it recurs, read the kernel log and check the "
	      "adapter's firmware."),
	VERBS(IBV_EVENT_SRQ_LIMIT_REACHED, "SRQ_LIMIT_REACHED", SRQ, true,
	      WARNING, "8bb07330c42e43da817c995492ff3f68",
	      "shared receive queue fell below its armed limit",
	      "The owning process is running low on receive buffers and armed this "
	      "limit to be told. Usually handled by the application; frequent "
	      "events mean it posts buffers too slowly."),
	VERBS(IBV_EVENT_QP_LAST_WQE_REACHED, "QP_LAST_WQE_REACHED", QP, true,
	      INFO, "48ce312655f4402e9b1c080933c521bb",
	      "queue pair on an SRQ is in error and will take no more receive buffers",
	      "Informational: part of tearing down a queue pair attached to a "
	      "shared receive queue. Nothing to do unless errors come with it."),
	VERBS(IBV_EVENT_CLIENT_REREGISTER, "CLIENT_REREGISTER", PORT, false,
	      WARNING, "ad2de981204a47b4a5c2d3cf27dd9494",
	      "subnet manager asks clients to register again (multicast, subscriptions)",
	      "The subnet manager asks clients to register their multicast groups "
	      "and subscriptions again, e.g. after it restarted. Nothing to do if "
	      "services recover; repeats point at an unstable subnet manager."),
	VERBS(IBV_EVENT_GID_CHANGE, "GID_CHANGE", PORT, false, INFO,
	      "73a1fd59363843749ca05f50b0326f11",
	      "GID table of the port changed (address added or removed)",
	      "An address was added to or removed from the port (RoCE: an IP "
	      "address of its network device). Expected when the network is "
	      "reconfigured; otherwise find out who changed it."),
	VERBS(IBV_EVENT_WQ_FATAL, "WQ_FATAL", WQ, true, ERROR,
	      "d655b311c50c4b5f95b5a2dc07e0039a",
	      "catastrophic error on the work queue; it moved to the error state",
	      "The work queue failed and traffic on it stopped. Restart the "
	      "application; if it recurs, read the kernel log and check the "
	      "adapter's firmware."),
	/* rdma-core 62's IBV_EVENT_DEVICE_SPEED_CHANGE; its port means nothing */
	VERBS(IBVE_VERBS_DEVICE_SPEED_CHANGE, "DEVICE_SPEED_CHANGE", DEVICE,
	      false, WARNING, "2e178c9433d74d28bd178a0134a0d619",
	      "a link of the device retrained at another speed or width",
	      "A link trained again at another speed or width; a worn cable, module "
	      "or switch port is the usual cause. Compare the rates (RDMA_RATES, "
	      "ibv_eventwatch -l) with what the port should run at and check the "
	      "cable."),

	/*
	 * mlx5 event queue entry types (include/linux/mlx5/device.h). The
	 * severity of PORT_CHANGE, PORT_MODULE and GENERAL depends on the
	 * sub-type: see mlx5.c. Types 0x00-0x03 (completion, path migration,
	 * communication established, SQ drained) are QP events the verbs
	 * queue already carries; they decode as UNKNOWN(n) if ever seen.
	 */
	MLX5(0x04, "CQ_ERROR", CQ, true, ERROR,
	     "ee77be7ca5b14140b7f5b839502daa84",
	     "completion queue error (overrun or access)",
	     "A completion queue of the device overran or was misused. Look at the "
	     "owning process; if several processes see it, check the firmware."),
	MLX5(0x05, "WQ_CATAS_ERROR", QP, true, ERROR,
	     "ae21621b24e44b4ca48e07c441686c8d",
	     "catastrophic error on a work queue",
	     "A work queue met an error it could not recover from. Read the kernel "
	     "log and restart the owning process; a repeat across processes points "
	     "at firmware or hardware."),
	MLX5(0x07, "PATH_MIG_FAILED", QP, true, ERROR,
	     "ea61a74aebd045b19a7e8184e18b3d54", "path migration failed",
	     "Migration to the alternate path failed. Check the links and switches "
	     "of both paths."),
	MLX5(0x08, "INTERNAL_ERROR", DEVICE, false, FATAL,
	     "1b8472894e264291b01884d1afdf8b8c",
	     "the adapter reported an internal error",
	     "The adapter failed. Read the kernel log (dmesg) and the firmware's "
	     "health reports (devlink health); reset or reboot, and drain the node "
	     "until it is fixed."),
	MLX5(0x09, "PORT_CHANGE", PORT, false, INFO,
	     "b8e7e4ff8f9d4a21a06e1d02cb066743", "port state changed",
	     "The port changed state; RDMA_CHANGE says how. If it went down, check "
	     "the cable, the module and the switch port."),
	MLX5(0x0d, "NIC_VPORT_CHANGE", DEVICE, false, INFO,
	     "2d14b4eadf6341eababd8afaadfffcd1",
	     "a NIC vport's context changed",
	     "Informational: a virtual port's settings changed (SR-IOV or switch "
	     "configuration). Nothing to do if it was meant."),
	MLX5(0x10, "WQ_INVAL_REQ_ERROR", QP, true, ERROR,
	     "82d5dc6a24084bff8148f8a4f9196e01",
	     "invalid request on a work queue",
	     "A work queue received an invalid request. Look at the owning process "
	     "and its peer."),
	MLX5(0x11, "WQ_ACCESS_ERROR", QP, true, ERROR,
	     "e1c1c408f65749d898a4d633b491d9d8", "access error on a work queue",
	     "A work queue met an access violation (bad key or permission), "
	     "usually an application bug. Report it with the job's logs."),
	MLX5(0x12, "SRQ_CATAS_ERROR", SRQ, true, ERROR,
	     "8b30e7942c3a4cb7b749e00a11582827",
	     "catastrophic error on a shared receive queue",
	     "A shared receive queue failed. Restart the owning process; a repeat "
	     "points at firmware or hardware."),
	MLX5(0x13, "SRQ_LAST_WQE", QP, true, INFO,
	     "cd95243008634765bdc135add2c23cd0",
	     "last WQE reached on an SRQ-attached queue",
	     "Informational: part of tearing down a queue attached to a shared "
	     "receive queue. Nothing to do."),
	MLX5(0x14, "SRQ_RQ_LIMIT", SRQ, true, WARNING,
	     "a43c12f947c9458597bf98cb39e4ee67",
	     "shared receive queue below its limit",
	     "A shared receive queue fell below its armed limit: the owning "
	     "process is short of receive buffers. Frequent events mean it posts "
	     "them too slowly."),
	MLX5(0x15, "GPIO", DEVICE, false, INFO,
	     "d21c8c93ce2d4b57996d302d6b1880b7",
	     "a GPIO pin of the adapter changed",
	     "Informational: a GPIO pin of the adapter changed. Nothing to do "
	     "unless the vendor asks."),
	MLX5(0x16, "PORT_MODULE", DEVICE, false, WARNING,
	     "5cb57c130d8046499c0bd01e6cc2e2df",
	     "cable or module status changed",
	     "A cable or module was plugged, unplugged or failed "
	     "(RDMA_MODULE_STATUS, RDMA_ERROR_TYPE). On an error reseat or replace "
	     "it; ethtool -m shows the module's own data."),
	MLX5(0x17, "TEMP_WARN", DEVICE, false, WARNING,
	     "01998a25234143859559d1144e4a650d",
	     "temperature warning from the adapter's sensors",
	     "The adapter is too hot (RDMA_SENSORS: 0 is the chip). Check the "
	     "host's cooling and airflow; sustained heat shortens the adapter's "
	     "life and can shut it down."),
	MLX5(0x18, "XRQ_ERROR", SRQ, true, ERROR,
	     "82c16f8d449e45d990adc54842f5a4c7", "error on an XRQ",
	     "An extended receive queue failed. Restart the owning process; a "
	     "repeat points at firmware."),
	MLX5(0x19, "REMOTE_CONFIG", DEVICE, false, INFO,
	     "64b449c1e65b4ae08e192060e27fa5fb",
	     "configuration changed remotely",
	     "Informational: the adapter's configuration was changed from outside "
	     "the host (e.g. a management controller). Check that it was meant."),
	MLX5(0x1a, "DB_BF_CONGESTION", DEVICE, false, WARNING,
	     "674d1a2c248d41eca0a6ba497be0f5cc",
	     "doorbell/BlueFlame congestion",
	     "Doorbells are congested: too many queues ring at once. A performance "
	     "matter; look at the workload if it persists."),
	MLX5(0x1b, "STALL", DEVICE, false, WARNING,
	     "3096d04b31ad471796a72b4876d0a823", "the adapter reports a stall",
	     "The adapter reports a stall. Read the kernel log and the firmware's "
	     "health reports; a repeat needs the vendor."),
	MLX5(0x1c, "DCT_DRAINED", QP, true, INFO,
	     "51d542fa55b140eaa9db357648611308", "DC target drained",
	     "Informational: a DC target finished draining. Nothing to do."),
	MLX5(0x1d, "DCT_KEY_VIOLATION", QP, true, WARNING,
	     "3ddebc362a974cb08de544cf79556f4b", "DC target key violation",
	     "A DC initiator used a wrong access key: a misconfigured or hostile "
	     "peer. Find the sender."),
	MLX5(0x20, "FPGA_ERROR", DEVICE, false, ERROR,
	     "9367ce51948843008004d87c11b75df2", "FPGA error",
	     "The adapter's FPGA reported an error. Read the kernel log and use "
	     "the vendor's tools."),
	MLX5(0x21, "FPGA_QP_ERROR", QP, true, ERROR,
	     "b8499444c94646529452603e947e2a98", "FPGA queue pair error",
	     "A queue pair of the adapter's FPGA failed. Read the kernel log and "
	     "use the vendor's tools."),
	MLX5(0x22, "GENERAL", DEVICE, false, INFO,
	     "102b22491aff4d9590fac486520dfc1f", "general adapter event",
	     "A general adapter event; RDMA_GENERAL says which (e.g. a firmware "
	     "live patch, a PCIe power change). Read the kernel log when it was "
	     "not expected."),
	MLX5(0x24, "MONITOR_COUNTER", DEVICE, false, INFO,
	     "dc4438fb0f45431f854bd6853cd871c5", "a monitored counter changed",
	     "Informational: a counter the firmware monitors changed. Look at the "
	     "adapter's counters."),
	MLX5(0x25, "PPS", DEVICE, false, INFO,
	     "c5b3b023461c45b9bff835e2dbb2eb4f", "pulse-per-second clock event",
	     "Informational: a pulse-per-second clock event. Nothing to do."),
	MLX5(0x26, "DEVICE_TRACER", DEVICE, false, INFO,
	     "348b4e58c1024e21bcc29892c1401faf", "firmware tracer event",
	     "Informational: the firmware tracer has data. Nothing to do unless "
	     "the vendor asks."),
	MLX5(0x27, "OBJECT_CHANGE", DEVICE, false, INFO,
	     "0913334c9b5e42ca8d0c0856432b1c6e", "a device object changed",
	     "Informational: a device object changed. Nothing to do."),
	MLX5(IBVE_MLX5_EVENTS_LOST, "EVENTS_LOST", DEVICE, false, WARNING,
	     "ed793fab7ab4426bbfedeb9471886f72",
	     "the DEVX event channel overflowed: events were lost",
	     "Device events came faster than the watcher read them and some were "
	     "lost; counts and metrics are low by as many. Look at what caused the "
	     "storm and at the watcher's load."),

	HOTPLUG(IBVE_HOTPLUG_DEVICE_ADDED, "DEVICE_ADDED", DEVICE, INFO,
		"0040c9057e4b4d49bf7a841d30b5bd25",
		"device appeared and is being watched",
		"Informational: a device appeared (driver loaded, adapter reset or "
		"plugged in). After an unplanned DEVICE_REMOVED, read the kernel log "
		"for the reason of the reset."),
	HOTPLUG(IBVE_HOTPLUG_DEVICE_REMOVED, "DEVICE_REMOVED", DEVICE, WARNING,
		"d88c22bb7eef4093968614442e5e9c7d",
		"device went away; it was closed at once so its removal can finish",
		"The device went away: driver unloaded, adapter reset or failed. If "
		"it was not planned, read the kernel log (dmesg); jobs that used it "
		"have failed."),
	HOTPLUG(IBVE_HOTPLUG_NETDEV_ATTACH, "NETDEV_ATTACH", PORT, INFO,
		"6f0f767e8b9d452ca4c6ef2f5f18b795",
		"network device attached to the port",
		"Informational: a network device was bound to the port (RoCE). "
		"Nothing to do if it was meant."),
	HOTPLUG(IBVE_HOTPLUG_NETDEV_DETACH, "NETDEV_DETACH", PORT, WARNING,
		"399b704943164ce3af85d1202917b315",
		"network device detached from the port",
		"The port lost its network device (RoCE) and carries no traffic until "
		"one is attached again. Check the network configuration (bonding, "
		"SR-IOV) if it was not meant."),

	/*
	 * The kernel source's records carry the verbs rows above (what the
	 * owner's own queue would say); this row is its own.
	 */
	{ IBVE_SOURCE_KERNEL, IBVE_KERNEL_EVENTS_LOST, "EVENTS_LOST",
	  IBVE_CLASS_DEVICE, false, IBVE_SEVERITY_WARNING,
	  "the kernel source's ring buffer was full: events were lost",
	  "33fca5a787b94b37aa905a5d4ba5ffdd",
	  "The kernel's ring buffer was full and events of a storm were dropped "
	  "(RDMA_LOST says how many); counts and metrics are low by as many. "
	  "Look at the records before it for the storm's cause." },

	SM(IBVE_SM_GID_IN_SERVICE, "GID_IN_SERVICE", INFO,
	   "298129dec1184429a26859de3e8000f9",
	   "a port of the subnet came into service (SM trap 64)",
	   "Informational: a port joined the subnet. After a GID_OUT_OF_SERVICE "
	   "for the same GID, that node's link came back."),
	SM(IBVE_SM_GID_OUT_OF_SERVICE, "GID_OUT_OF_SERVICE", WARNING,
	   "80a653977a264372affcdd36c9c82ae2",
	   "a port of the subnet went out of service (SM trap 65)",
	   "A port left the subnet: a node went down or lost its link. Check the "
	   "node the GID (RDMA_GID) belongs to."),
	SM(IBVE_SM_MCG_CREATED, "MCG_CREATED", INFO,
	   "bde8121a8c724f66a3b189e8539a7c40",
	   "a multicast group was created (SM trap 66)",
	   "Informational: a multicast group was created. Nothing to do."),
	SM(IBVE_SM_MCG_DELETED, "MCG_DELETED", INFO,
	   "2d6f8e58d0ed49aba02b7eb2add15d74",
	   "a multicast group was deleted (SM trap 67)",
	   "Informational: a multicast group was deleted when its last member "
	   "left. An unexpected deletion breaks IPoIB and other users of the "
	   "group."),
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
/* each row's name as a record holds it, zeros after: copied whole */
static char row_name[ARRAY_SIZE(event_table)][IBVE_EVENT_NAME_MAX];
static pthread_once_t code_index_once = PTHREAD_ONCE_INIT;
static bool code_index_ready; /* read first: no call once it is built */

static void build_code_index(void)
{
	_Static_assert(ARRAY_SIZE(event_table) < 255, "rows fit a byte");
	for (size_t i = ARRAY_SIZE(event_table); i-- > 0;) {
		const struct ibve_event_desc *d = &event_table[i];

		/* backwards: the first row of a (source, code) wins */
		if ((unsigned int)d->source < NSOURCES && d->code >= 0 &&
		    d->code < CODE_SLOTS)
			code_index[d->source][d->code] = (uint8_t)(i + 1);
		ibve_strcpy(row_name[i], d->name, sizeof(row_name[i]));
	}
	__atomic_store_n(&code_index_ready, true, __ATOMIC_RELEASE);
}

static void code_index_build(void)
{
	if (!__atomic_load_n(&code_index_ready, __ATOMIC_ACQUIRE))
		pthread_once(&code_index_once, build_code_index);
}

/* What the code index does not hold: codes past it, the kernel's rows. */
static const struct ibve_event_desc *desc_find_rest(enum ibve_source source,
						    int code, bool indexed)
{
	if (!indexed)
		for (size_t i = 0; i < ARRAY_SIZE(event_table); i++)
			if (event_table[i].source == source &&
			    event_table[i].code == code)
				return &event_table[i];
	/* the kernel source speaks the verbs codes */
	if (source == IBVE_SOURCE_KERNEL && code < IBVE_KERNEL_EVENTS_LOST)
		return ibve_event_desc_find(IBVE_SOURCE_VERBS, code);
	return NULL;
}

IBVE_EXPORT const struct ibve_event_desc *
ibve_event_desc_find(enum ibve_source source, int code)
{
	bool indexed = (unsigned int)source < NSOURCES && code >= 0 &&
		       code < CODE_SLOTS;

	if (indexed) { /* every record: nothing else on this path */
		uint8_t row;

		code_index_build();
		row = code_index[source][code];
		if (row)
			return &event_table[row - 1];
	}
	return desc_find_rest(source, code, indexed);
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

/* ASCII only, whatever the locale: names are ASCII. Inline: the table's
 * own spelling (most lines) costs a byte compare a byte. */
static bool same_name(const char *a, const char *b)
{
	for (; *a; a++, b++)
		if (*a != *b &&
		    upper((unsigned char)*a) != upper((unsigned char)*b))
			return false;
	return !*b;
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
		if (names[i] && same_name(names[i], s))
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

/* The edit distance of A and B, case-insensitive; SIZE_MAX when long. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64], prev, cur;

	if (la >= ARRAY_SIZE(row) || lb >= ARRAY_SIZE(row))
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev + (tolower((unsigned char)a[i - 1]) !=
					     tolower((unsigned char)b[j - 1]));

			cur = row[j];
			row[j] = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1
							     : row[j - 1] + 1;
			if (sub < row[j])
				row[j] = sub;
			prev = cur;
		}
	}
	return row[lb];
}

/*
 * NAMES[0..N) against WORD: the nearest so far in *BEST, *D; a name WORD
 * begins (3 letters at least) is at distance 2 at most.
 */
static void nearest(const char *word, const char *const *names, size_t n,
		    const char **best, size_t *d)
{
	size_t len = strlen(word);

	for (size_t i = 0; i < n; i++) {
		size_t k = SIZE_MAX;

		if (names[i])
			k = distance(word, names[i]);
		if (k > 2 && len >= 3 && strncasecmp(word, names[i], len) == 0)
			k = 2;
		if (k < *d) {
			*d = k;
			*best = names[i];
		}
	}
}

/* What people call some events and levels, and the table's names. */
static const char *synonym(const char *word, bool severity)
{
	static const struct {
		const char *word, *name;
	} v[] = {
		{ "DOWN", "PORT_ERR" },	      { "PORT_DOWN", "PORT_ERR" },
		{ "LINK_DOWN", "PORT_ERR" },  { "UP", "PORT_ACTIVE" },
		{ "PORT_UP", "PORT_ACTIVE" }, { "LINK_UP", "PORT_ACTIVE" },
		{ "crit", "fatal" },	      { "critical", "fatal" },
		{ "err", "error" },	      { "warn", "warning" },
		{ "notice", "info" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		if (strcasecmp(word, v[i].word) == 0 &&
		    (!severity || ibve_severity_parse(v[i].name) >= 0))
			return v[i].name;
	return NULL;
}

bool ibve_term_suggest(const char *word, char *out, size_t size)
{
	const char *s = word, *best;
	size_t d = SIZE_MAX, len;
	bool severity;

	if (strncasecmp(s, "severity", 8) == 0)
		s += 8;
	while (*s == '<' || *s == '>' || *s == '=')
		s++;
	severity = s != word; /* a bound: only a level completes it */
	if (!severity && strncasecmp(s, "IBV_EVENT_", 10) == 0)
		s += 10;
	len = strlen(s);
	if ((best = synonym(s, severity))) {
		d = 1;
	} else if (severity) {
		nearest(s, severity_names, ARRAY_SIZE(severity_names), &best,
			&d);
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(event_table); i++)
			nearest(s, &event_table[i].name, 1, &best, &d);
		nearest(s, class_names, ARRAY_SIZE(class_names), &best, &d);
		nearest(s, source_names, ARRAY_SIZE(source_names), &best, &d);
		nearest(s, severity_names, ARRAY_SIZE(severity_names), &best,
			&d);
	}
	/* near enough: a third of the word changed at most */
	if (!best || d == 0 || d > (len >= 6 ? len / 3 : 1))
		return false;
	snprintf(out, size, "%.*s%s", (int)(s - word), word, best);
	return true;
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
	/* a row of the table; its name made with the index (a row found
	 * past the index, by search, may come first) */
	_Static_assert(sizeof(ev->name) == sizeof(row_name[0]), "one size");
	code_index_build();
	memcpy(ev->name, row_name[d - event_table], sizeof(ev->name));
	ev->cls = d->cls;
	ev->affiliated = d->affiliated;
	ev->severity = d->severity;
}

/* What events this version does not know share: a row of no table. */
const struct ibve_event_desc ibve_unknown_desc = {
	IBVE_SOURCE_VERBS,
	-1,
	"UNKNOWN",
	IBVE_CLASS_UNKNOWN,
	false,
	IBVE_SEVERITY_WARNING,
	"event not known to this version of libibvevent",
	"04cdceb5e107491fada7422baede157b",
	"A newer kernel, driver, rdma-core or firmware raised an event this "
	"version of ibvevent has no name for; RDMA_SOURCE and RDMA_CODE say "
	"which. Look the number up in that source's documentation, and "
	"update ibvevent.",
};

IBVE_EXPORT const char *ibve_event_text(const struct ibve_event *ev)
{
	return (ev->desc ? ev->desc : &ibve_unknown_desc)->text;
}

IBVE_EXPORT uint64_t ibve_event_count(const struct ibve_event *ev)
{
	return ev->fields & IBVE_FIELD_SUMMARY ? ev->summary.count : 1;
}

IBVE_EXPORT const char *ibve_event_message_id(const struct ibve_event *ev)
{
	return (ev->desc ? ev->desc : &ibve_unknown_desc)->message_id;
}

IBVE_EXPORT void ibve_event_from_verbs(struct ibve_event *ev,
				       const struct ibv_async_event *ae,
				       const char *device, uint64_t node_guid)
{
	memset(ev, 0, sizeof(*ev));
	clock_gettime(CLOCK_REALTIME, &ev->time);
	ibve_strcpy(ev->device, device, sizeof(ev->device));
	ibve_event_fill_verbs(ev, ae, node_guid);
}

void ibve_event_fill_verbs(struct ibve_event *ev,
			   const struct ibv_async_event *ae, uint64_t node_guid)
{
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
