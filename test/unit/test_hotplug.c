// SPDX-License-Identifier: MIT
/*
 * Messages of the kernel's RDMA netlink monitor (6.11 and later), byte by
 * byte as nldev.c sends them: the event type as a u8, the device index, a
 * port and a netdev index as u32, names beside them. Soft-RoCE raises no
 * NETDEV_DETACH; these bytes stand in for it, and the same decoder reads
 * the REGISTER and NETDEV_ATTACH the guest suite sees for real.
 */
#include <linux/netlink.h>
#include <stdint.h>

#include "hotplug.h"
#include "tap.h"

/* RDMA_NL_NLDEV << 10 | RDMA_NLDEV_CMD_MONITOR; attribute numbers */
#define MONITOR	      ((5 << 10) + 28)
#define A_DEV_INDEX   1
#define A_DEV_NAME    2
#define A_PORT_INDEX  3
#define A_NDEV_INDEX  50
#define A_NDEV_NAME   51
#define A_EVENT_TYPE  102
#define EV_REGISTER   0
#define EV_UNREGISTER 1
#define EV_NETDEV_ATT 2
#define EV_NETDEV_DET 3

struct msg {
	union {
		struct nlmsghdr h;
		uint8_t bytes[512];
	};
};

static void start(struct msg *m, uint16_t type)
{
	memset(m, 0, sizeof(*m));
	m->h.nlmsg_type = type;
	m->h.nlmsg_len = NLMSG_HDRLEN;
}

static void attr(struct msg *m, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)(m->bytes + m->h.nlmsg_len);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((uint8_t *)a + NLA_HDRLEN, data, len);
	m->h.nlmsg_len += NLA_ALIGN(a->nla_len);
}

static void u8_attr(struct msg *m, uint16_t type, uint8_t v)
{
	attr(m, type, &v, 1);
}

static void u32_attr(struct msg *m, uint16_t type, uint32_t v)
{
	attr(m, type, &v, 4);
}

/* A netdev message as nldev.c's fill_mon_netdev_association() makes it. */
static void netdev_msg(struct msg *m, uint8_t event)
{
	start(m, MONITOR);
	u8_attr(m, A_EVENT_TYPE, event);
	u32_attr(m, A_DEV_INDEX, 7);
	attr(m, A_DEV_NAME, "rxe0", 5);
	u32_attr(m, A_PORT_INDEX, 1);
	u32_attr(m, A_NDEV_INDEX, 42);
	attr(m, A_NDEV_NAME, "dummy0", 7);
}

static void test_netdev(void)
{
	struct ibve_hp_mon mon;
	struct msg m;

	netdev_msg(&m, EV_NETDEV_DET);
	ok(ibve_hp_monitor_parse(&m.h, &mon), "NETDEV_DETACH is read");
	ok(mon.what == IBVE_HP_NETDEV_DETACH && mon.dev_index == 7 &&
		   mon.port == 1 && mon.ndev_index == 42,
	   "  a detach of netdev 42 from port 1 of device 7");
	netdev_msg(&m, EV_NETDEV_ATT);
	ok(ibve_hp_monitor_parse(&m.h, &mon) &&
		   mon.what == IBVE_HP_NETDEV_ATTACH && mon.ndev_index == 42,
	   "NETDEV_ATTACH likewise");
}

static void test_device(void)
{
	struct ibve_hp_mon mon;
	struct msg m;

	start(&m, MONITOR);
	u8_attr(&m, A_EVENT_TYPE, EV_REGISTER);
	u32_attr(&m, A_DEV_INDEX, 3);
	attr(&m, A_DEV_NAME, "mlx5_0", 7);
	ok(ibve_hp_monitor_parse(&m.h, &mon) && mon.what == IBVE_HP_ADDED &&
		   mon.dev_index == 3,
	   "REGISTER: device 3 was added");
	start(&m, MONITOR);
	u32_attr(&m, A_EVENT_TYPE, EV_UNREGISTER); /* as a u32, too */
	u32_attr(&m, A_DEV_INDEX, 3);
	ok(ibve_hp_monitor_parse(&m.h, &mon) && mon.what == IBVE_HP_REMOVED,
	   "UNREGISTER, its type as a u32");
}

static void test_refused(void)
{
	struct ibve_hp_mon mon;
	struct msg m;

	start(&m, MONITOR);
	u8_attr(&m, A_EVENT_TYPE, 4); /* RENAME, from 6.13 */
	u32_attr(&m, A_DEV_INDEX, 3);
	ok(!ibve_hp_monitor_parse(&m.h, &mon),
	   "a newer kernel's event: not read");
	start(&m, MONITOR);
	u8_attr(&m, A_EVENT_TYPE, EV_NETDEV_DET);
	ok(!ibve_hp_monitor_parse(&m.h, &mon), "no device index: not read");
	netdev_msg(&m, EV_NETDEV_DET);
	m.h.nlmsg_type = (5 << 10) + 1; /* RDMA_NLDEV_CMD_GET */
	ok(!ibve_hp_monitor_parse(&m.h, &mon), "another command: not read");
	netdev_msg(&m, EV_NETDEV_DET);
	/* an attribute that claims more than the message holds ends the walk */
	((struct nlattr *)(m.bytes + NLMSG_HDRLEN))->nla_len = 400;
	ok(!ibve_hp_monitor_parse(&m.h, &mon),
	   "an attribute longer than its message: not read");
	m.h.nlmsg_len = 8;
	ok(!ibve_hp_monitor_parse(&m.h, &mon),
	   "a message shorter than its header");
}

int main(void)
{
	test_netdev();
	test_device();
	test_refused();
	return done_testing();
}
