// SPDX-License-Identifier: MIT
/*
 * What the hot-plug source reads from the kernel's sockets. The first
 * byte says which: odd, the rest is one NETLINK_KOBJECT_UEVENT message
 * ("ACTION@DEVPATH\0KEY=VALUE\0..."); even, one datagram of the RDMA
 * netlink monitor (netlink messages one after another). Neither reader
 * may read past the bytes received; what they accept names a uverbs node
 * or an RDMA device's index, and its record prints and replays the same.
 */
#include <linux/netlink.h>
#include <string.h>

#include "hotplug.h"

#define FUZZ_NAME "fuzz_hotplug"
#include "roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void uevent(const uint8_t *data, size_t len)
{
	/* as read_uevents() has it: the bytes received, then a '\0' */
	char *buf = malloc(len + 1);
	struct ibve_hp_msg m = { 0 };
	struct ibve_event ev = { 0 };

	if (!buf)
		abort();
	memcpy(buf, data, len);
	buf[len] = '\0';
	if (ibve_hp_uevent_parse(buf, len, &m)) {
		if (m.what != IBVE_HP_ADDED && m.what != IBVE_HP_REMOVED)
			fail("a uevent adds or removes", m.chardev, "");
		if (strncmp(m.chardev, "uverbs", 6) != 0 ||
		    !memchr(m.chardev, '\0', sizeof(m.chardev)))
			fail("a uevent names a uverbs node", m.chardev, "");
		ibve_hp_event_device(&ev, "rxe0", 0xf8d24cfffed49ed8ull,
				     m.chardev,
				     m.what == IBVE_HP_ADDED
					     ? IBVE_HOTPLUG_DEVICE_ADDED
					     : IBVE_HOTPLUG_DEVICE_REMOVED);
		round_trip(&ev, NULL);
	}
	free(buf);
}

static void monitor(const uint8_t *data, size_t len)
{
	/* a copy of its own, the size received: ASan sees a read past it */
	void *buf = malloc(len ? len : 1);
	struct ibve_hp_mon mon[16];
	size_t n;

	if (!buf)
		abort();
	memcpy(buf, data, len);
	n = ibve_hp_monitor_split(buf, len, mon, 16);
	if (n > 16)
		fail("no more messages than room", "", "");
	for (size_t i = 0; i < n; i++) {
		struct ibve_event ev = { 0 };

		if (!mon[i].has_dev)
			fail("a monitor message names a device", "", "");
		switch (mon[i].what) {
		case IBVE_HP_ADDED:
		case IBVE_HP_REMOVED:
			ibve_hp_event_device(
				&ev, "rxe0", 0, "",
				mon[i].what == IBVE_HP_ADDED
					? IBVE_HOTPLUG_DEVICE_ADDED
					: IBVE_HOTPLUG_DEVICE_REMOVED);
			break;
		case IBVE_HP_NETDEV_ATTACH:
		case IBVE_HP_NETDEV_DETACH:
			ibve_hp_event_netdev(
				&ev, "rxe0", 0, mon[i].port, mon[i].ndev_index,
				"", mon[i].what == IBVE_HP_NETDEV_ATTACH);
			break;
		default:
			fail("a monitor message's event", "", "");
		}
		round_trip(&ev, NULL);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		uevent(data + 1, size - 1);
	else
		monitor(data + 1, size - 1);
	return 0;
}
