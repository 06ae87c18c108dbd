#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The netdev source (--netdev): the link changes of the RoCE ports'
# network devices, from rtnetlink. rxe0 on dummy0 for a netdev set down
# and up; rxen on one end of a veth pair whose far end lives in a network
# namespace for a carrier lost with the netdev up. What the records say is
# checked against what the kernel says (sysfs, ip, /proc/net/netlink).

load ../test_helper

NS=ibve-nd

setup() {
	ibve_setup
	require_guest
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	rdma link delete rxen 2>/dev/null || true
	ip link del nd0 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	restore_rxe
	return $rc
}

# rxen on nd0, a veth whose far end nd1 is up in namespace $NS.
veth_rxe() {
	ip netns add "$NS"
	ip link add nd0 type veth peer name nd1
	ip link set nd1 netns "$NS"
	ip -n "$NS" link set nd1 up
	ip link set nd0 up
	rdma link add rxen type rxe netdev nd0
	wait_port_state ACTIVE rxen
}

# The netdev records of FILE: "EVENT DEVICE/PORT NETDEV INDEX FLAGS" a line.
netdev_records() {
	jq -r 'select(.source == "netdev") |
		"\(.event) \(.device)/\(.port) \(.netdev) \(.netdev_index) \(.ifflags)"' "$1"
}

# The watcher's NETLINK_ROUTE sockets (protocol 0 of /proc/net/netlink).
route_sockets() {
	local inodes
	inodes=$(find "/proc/$1/fd" -lname 'socket:*' -printf '%l\n' | tr -dc '0-9\n')
	awk 'NR > 1 && $2 == 0 { print $NF }' /proc/net/netlink | grep -cxF "$inodes" || true
}

@test "dummy0 set down gives NETDEV_DOWN for rxe0/1, set up NETDEV_UP, in JSON and text; without --netdev none" {
	start_watch -j --netdev
	TOUT=$BATS_TEST_TMPDIR/text.out POUT=$BATS_TEST_TMPDIR/plain.out
	bg_start text 0 ibv_eventwatch --netdev -e netdev >"$TOUT"
	bg_start plain 0 ibv_eventwatch -j >"$POUT"
	wait_for "${BG_ERR[text]}" '^ibv_eventwatch: watching'
	wait_for "${BG_ERR[plain]}" '^ibv_eventwatch: watching'
	# one rtnetlink socket with the source, none without
	assert_equal "$(route_sockets "$WPID")" 1
	assert_equal "$(route_sockets "$(bg_pid plain)")" 0
	idx=$(cat /sys/class/net/dummy0/ifindex)
	ip link set dummy0 down
	wait_for "$WOUT" '"event":"NETDEV_DOWN"'
	wait_port_state DOWN
	down=$(cat /sys/class/net/dummy0/flags)
	ip link set dummy0 up
	wait_for "$WOUT" '"event":"NETDEV_UP"'
	wait_port_state ACTIVE
	up=$(cat /sys/class/net/dummy0/flags)
	wait_for "$TOUT" NETDEV_UP
	wait_for "$POUT" PORT_ACTIVE
	bg_stop watch 0
	bg_stop text 0
	bg_stop plain 0
	run -0 netdev_records "$WOUT"
	assert_output "NETDEV_DOWN rxe0/1 dummy0 $idx $((down))
NETDEV_UP rxe0/1 dummy0 $idx $((up | 0x10040))"
	# the kernel's flags (sysfs: IFF_UP 0x1 cleared, then set) and the
	# carrier and running bits the kernel adds for an up link
	[ $((down & 1)) = 0 ] && [ $((up & 1)) = 1 ]
	run -0 jq -r 'select(.source == "netdev") |
		"\(.class) \(.severity) \(.node_guid) \(.linkstate // "no reply")"' "$WOUT"
	guid=$(ibv_devinfo -d rxe0 | awk '/node_guid/ { print $2 }')
	assert_output "port warning $guid no reply
port info $guid no reply"
	run -0 grep -E 'rxe0/1 +NETDEV_(DOWN|UP)' "$TOUT"
	assert_line --index 0 --regexp "rxe0/1 +NETDEV_DOWN +warning the port's network device was set down \(IFF_UP cleared\) \(netdev dummy0\)$"
	assert_line --index 1 --regexp "rxe0/1 +NETDEV_UP +info +the port's network device was set up \(netdev dummy0\)$"
	assert_equal "${#lines[@]}" 2
	# without the source: the verbs records as before, nothing new
	run -0 jq -r '"\(.source) \(.event)"' "$POUT"
	assert_line 'verbs PORT_ERR'
	assert_line 'verbs PORT_ACTIVE'
	refute_line --regexp '^netdev '
}

@test "the far end of a veth set down: CARRIER_LOST on our end with the netdev up and the kernel's ethtool reply; CARRIER_UP after" {
	veth_rxe
	start_watch -j --netdev -d rxen
	idx=$(cat /sys/class/net/nd0/ifindex)
	ip -n "$NS" link set nd1 down
	wait_for "$WOUT" '"event":"CARRIER_LOST"'
	# the kernel's word: our end up, its carrier gone
	flags=$(cat /sys/class/net/nd0/flags)
	assert_equal "$(cat /sys/class/net/nd0/carrier)" 0
	[ $((flags & 1)) = 1 ]
	ip -n "$NS" link set nd1 up
	wait_for "$WOUT" '"event":"CARRIER_UP"'
	bg_stop watch 0
	run -0 netdev_records "$WOUT"
	assert_output "CARRIER_LOST rxen/1 nd0 $idx $((flags))
CARRIER_UP rxen/1 nd0 $idx $((flags | 0x10040))"
	# the reply names nd0 (index, name) and says its link is down
	# (LINK 0); a veth has no firmware: no reason
	le=$(printf '%08x' "$idx" | sed -E 's/(..)(..)(..)(..)/\4\3\2\1/')
	run -0 jq -r 'select(.event == "CARRIER_LOST") |
		"\(.linkstate) \(.ext_state // "none")"' "$WOUT"
	assert_output --regexp "^06010000..00018008000100${le}080002006e6430000500020000000000 none\$"
	run -0 jq -r 'select(.event == "CARRIER_UP") | .linkstate // "no reply"' "$WOUT"
	assert_output 'no reply'
}

@test "an idle watcher with --netdev makes no system calls (strace, 10 s)" {
	start_watch --netdev
	trace=$BATS_TEST_TMPDIR/strace
	bg_start strace 130 strace -f -s 256 -p "$WPID" -o "$trace"
	wait_for "${BG_ERR[strace]}" "Process $WPID attached"
	sleep 10
	cp "$trace" "$trace.idle"
	# then one change, to prove strace was attached and seeing
	ip link set dummy0 down
	wait_for "$WOUT" NETDEV_DOWN
	wait_for "$trace" '^[0-9]* *write\(1, .*NETDEV_DOWN' 30
	bg_stop strace 130 INT
	run -1 grep -v -e 'restart_syscall' -e '^[0-9]* *+++' -e '^[0-9]* *---' "$trace.idle"
	assert_output ''
}
