// SPDX-License-Identifier: MIT
/*
 * A port's attributes as the port table reads them from sysfs, on stored
 * port directories (test/sysfs/): on InfiniBand the address is the port's
 * LID, elsewhere its first GID. The guest suite reads soft-RoCE's real
 * ports (Ethernet) through the same function; no InfiniBand port exists
 * here to read live.
 */
#include <errno.h>

#include "sysfs.h"
#include "tap.h"

static void test_ib_active(void)
{
	struct ibve_port_attrs a = { 0 };

	is_int(ibve_sysfs_port_dir("test/sysfs/ib-port1", &a), 0,
	       "ib-port1 is read");
	is_int(a.state, 4, "  state number 4");
	is_str(a.state_name, "ACTIVE", "  state ACTIVE");
	is_str(a.phys_state, "LinkUp", "  physical state LinkUp");
	is_str(a.link_layer, "InfiniBand", "  InfiniBand");
	is_str(a.rate, "100 Gb/sec (4X EDR)", "  its rate, newline gone");
	is_str(a.address, "LID 0x1a", "  its address is its LID, not a GID");
}

static void test_ib_down(void)
{
	struct ibve_port_attrs a = { 0 };

	is_int(ibve_sysfs_port_dir("test/sysfs/ib-port2-down", &a), 0,
	       "ib-port2-down is read");
	is_int(a.state, 1, "  state number 1");
	is_str(a.state_name, "DOWN", "  state DOWN");
	is_str(a.phys_state, "Polling", "  physical state Polling");
	is_str(a.address, "LID 0xffff", "  no LID assigned yet: 0xffff");
}

static void test_roce(void)
{
	struct ibve_port_attrs a = { 0 };

	is_int(ibve_sysfs_port_dir("test/sysfs/roce-port1", &a), 0,
	       "roce-port1 is read");
	is_str(a.link_layer, "Ethernet", "  Ethernet");
	is_str(a.address, "fe80::e42:a1ff:fe65:b0e4",
	       "  its address is its first GID, as IPv6, not its LID");
}

static void test_missing(void)
{
	struct ibve_port_attrs a = { 0 };

	is_int(ibve_sysfs_port_dir("test/sysfs/no-such-port", &a), -ENOENT,
	       "a port that is not there: ENOENT");
	is_str(a.address, "", "  and nothing is made up");
}

int main(void)
{
	test_ib_active();
	test_ib_down();
	test_roce();
	test_missing();
	return done_testing();
}
