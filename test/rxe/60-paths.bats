#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Paths of the device and hot-plug sources that a device's ordinary life
# does not take, each reached on the real stack. Where rxe cannot fail as
# hardware does, the kernel is made to: a seccomp filter (test/seccomp-
# errno.c) fails one read with EIO; a receive buffer made small loses
# uevents (ENOBUFS); a /dev/infiniband without the new node keeps
# libibverbs from listing a device; gdb turns the type of one event the
# kernel delivered into DEVICE_FATAL as the watcher reads it.

load ../test_helper

SECCOMP=$BUILD/helpers/seccomp-errno
RMEM_MAX=/proc/sys/net/core/rmem_max

setup() {
	ibve_setup
	require_guest
	STOPPED='' RMEM_OLD='' OVERLAY='' FLOOD=0
}

# The watcher first (a stopped one let go), so that nothing it holds
# keeps a removal waiting; then what a test changed, then rxe0 as it was.
teardown() {
	local rc=0 i
	[ -z "$STOPPED" ] || kill -CONT "$STOPPED" 2>/dev/null || true
	bg_stop watch || rc=1
	ibve_teardown || rc=1
	[ -z "$RMEM_OLD" ] || echo "$RMEM_OLD" >"$RMEM_MAX"
	for i in $(seq "$FLOOD"); do ip link del "ibvefl$i" 2>/dev/null || true; done
	if [ -e /sys/class/infiniband/rxe1 ]; then
		timeout 30 rdma link delete rxe1 || rc=1
	fi
	[ -z "$OVERLAY" ] || umount /dev/infiniband || rc=1
	ip link del dummy1 2>/dev/null || true
	restore_rxe
	return $rc
}

# uverbs_of DEVICE: its uverbs node's name (uverbs0), from sysfs.
uverbs_of() {
	local f
	for f in /sys/class/infiniband_verbs/uverbs*/ibdev; do
		[ "$(cat "$f" 2>/dev/null)" = "$1" ] || continue
		f=${f%/ibdev}
		echo "${f##*/}"
		return 0
	done
	return 1
}

# event_fds PID: PID's descriptors of device event queues, one a line.
event_fds() {
	local f
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = 'anon_inode:[infinibandevent]' ] &&
			echo "${f##*/}"
	done
	return 0
}

# holds PID NODE: whether PID has /dev/infiniband/NODE open (or had it
# open when the node was deleted: "... (deleted)").
holds() {
	local f l
	for f in /proc/"$1"/fd/*; do
		l=$(readlink "$f" 2>/dev/null) || continue
		[[ $l == "/dev/infiniband/$2" || $l == "/dev/infiniband/$2 (deleted)" ]] &&
			return 0
	done
	return 1
}

# wait_gone PATH [SECONDS]: until PATH does not exist.
wait_gone() {
	local end=$((SECONDS + ${2:-30}))
	while [ -e "$1" ]; do
		[ $SECONDS -lt $end ] || {
			echo "# $1 still there after ${2:-30} s" >&3
			return 1
		}
		sleep 0.05
	done
}

require_helper() {
	[ -x "$SECCOMP" ] || fail "$SECCOMP is not built (make $SECCOMP)"
}

@test "EIO from rxe0's event queue: the watcher closes rxe0 at once, says DEVICE_REMOVED, and its removal finishes" {
	require_helper
	start_watch -j
	fd=$(event_fds "$WPID")
	[ -n "$fd" ] || fail "the watcher has no [infinibandevent] descriptor"
	bg_stop watch 0
	# The same start, but read(fd, buf, 16) fails with EIO: 16 bytes is
	# one struct ib_uverbs_async_event_desc, so only that read fails.
	WOUT=$BATS_TEST_TMPDIR/eio.out
	bg_start watch 0 "$SECCOMP" read EIO 0="$fd" 2=16 -- \
		ibv_eventwatch -j >"$WOUT"
	WPID=$BG_LAST
	wait_for "${BG_ERR[watch]}" '^ibv_eventwatch: watching 1 device: rxe0' 30
	assert_equal "$(event_fds "$WPID")" "$fd"
	node=$(uverbs_of rxe0)
	holds "$WPID" "$node" || fail "the watcher does not hold $node"
	# a real event queued: the read of it fails
	ip link set dummy0 down
	wait_for "$WOUT" '"event":"DEVICE_REMOVED"' 30
	line=$(grep '"event":"DEVICE_REMOVED"' "$WOUT")
	[[ $line == *'"device":"rxe0"'* && $line == *"\"chardev\":\"$node\""* ]] ||
		fail "not rxe0's removal: $line"
	# the event whose read failed is not made up
	assert_equal "$(count_lines "$WOUT" '"event":"PORT_ERR"')" 0
	# closed, as the kernel sees it: no queue, no node held
	assert_equal "$(event_fds "$WPID")" ""
	! holds "$WPID" "$node" || fail "the watcher still holds $node"
	# so nothing keeps rxe0's removal waiting (it waits for every holder)
	run timeout 60 rdma link delete rxe0
	assert_success
	wait_gone /sys/class/infiniband/rxe0
	assert_equal "$(grep -c . "${BG_ERR[watch]}")" 1
	bg_stop watch 0
}

@test "a uverbs node libibverbs cannot list (no /dev node): nothing is opened, and after the retries one note names it" {
	node0=$(uverbs_of rxe0)
	# /dev/infiniband as a system without udev rules for new nodes has
	# it: rxe0's node (its real numbers), no other.
	mkdir -p "$BATS_TEST_TMPDIR/devib"
	mount -t tmpfs tmpfs "$BATS_TEST_TMPDIR/devib"
	# shellcheck disable=SC2046 # MAJOR MINOR, two words
	mknod "$BATS_TEST_TMPDIR/devib/$node0" c \
		$(tr : ' ' <"/sys/class/infiniband_verbs/$node0/dev")
	chmod 666 "$BATS_TEST_TMPDIR/devib/$node0"
	mount --bind "$BATS_TEST_TMPDIR/devib" /dev/infiniband
	OVERLAY=1
	umount "$BATS_TEST_TMPDIR/devib"
	ip link add dummy1 type dummy
	ip link set dummy1 up
	start_watch -j
	rdma link add rxe1 type rxe netdev dummy1
	node1=$(uverbs_of rxe1)
	[ -n "$node1" ] || fail "rxe1 has no uverbs node"
	# what the arrival names: the monitor's REGISTER names the device,
	# the node's uevent the node
	if [ "$(expected_hotplug)" = netlink ]; then want=rxe1; else want=$node1; fi
	wait_for "$WERR" "^ibv_eventwatch: $want appeared but libibverbs did not list it\$" 30
	# independently: the kernel has rxe1, libibverbs does not list it,
	# the watcher opened nothing of it and did not say it did (the
	# monitor's NETDEV_ATTACH of rxe1, on 6.12, is said: it happened)
	[ -e "/sys/class/infiniband_verbs/$node1" ]
	run ibv_devices
	assert_success
	refute_output --partial rxe1
	! holds "$WPID" "$node1" || fail "the watcher holds $node1"
	assert_equal "$(count_lines "$WOUT" '"event":"DEVICE_ADDED"')" 0
	assert_equal "$(count_lines "$WOUT" '"device":"rxe1".*"source":"verbs"')" 0
	assert_equal "$(event_fds "$WPID" | wc -l)" 1
	assert_equal "$(grep -c . "$WERR")" 2
	bg_stop watch 0
}

# uevent_socket PID: the inode of PID's NETLINK_KOBJECT_UEVENT socket.
uevent_socket() {
	local f l inodes=' '
	for f in /proc/"$1"/fd/*; do
		l=$(readlink "$f" 2>/dev/null) || continue
		[[ $l == socket:* ]] || continue
		l=${l#socket:[}
		inodes+="${l%]} "
	done
	# /proc/net/netlink: Eth (protocol) is column 2, Inode column 10
	awk -v s="$inodes" 'NR > 1 && $2 == 15 && index(s, " " $10 " ") { print $10 }' \
		/proc/net/netlink
}

# drops INODE: what the kernel dropped for that netlink socket.
drops() {
	awk -v i="$1" 'NR > 1 && $10 == i { print $9 }' /proc/net/netlink
}

@test "uevents lost (ENOBUFS) while rxe0 is removed: the rescan closes rxe0 and its removal finishes" {
	node=$(uverbs_of rxe0)
	# The watcher asks for a 1 MiB receive buffer for uevents; the
	# kernel gives no more than rmem_max (doubled): 8 KiB, a few messages.
	RMEM_OLD=$(cat "$RMEM_MAX")
	echo 4096 >"$RMEM_MAX"
	start_watch -j
	echo "$RMEM_OLD" >"$RMEM_MAX"
	RMEM_OLD=''
	sock=$(uevent_socket "$WPID")
	[ -n "$sock" ] || fail "the watcher has no uevent socket"
	assert_equal "$(drops "$sock")" 0
	# The watcher stopped, other devices' uevents fill its buffer...
	kill -STOP "$WPID"
	STOPPED=$WPID
	FLOOD=16
	for i in $(seq "$FLOOD"); do ip link add "ibvefl$i" type dummy; done
	d0=$(drops "$sock")
	[ "$d0" -gt 0 ] || fail "no uevent was dropped: the buffer is not full"
	# ...so the removal's uevent (its node goes first) is dropped too
	bg_start del 0 rdma link delete rxe0 </dev/null
	wait_gone "/sys/class/infiniband_verbs/$node" 30
	d1=$(drops "$sock")
	[ "$d1" -gt "$d0" ] || fail "the removal's uevent was not dropped ($d0, $d1)"
	assert_equal "$(count_lines "$WOUT" '"event":"DEVICE_REMOVED"')" 0
	holds "$WPID" "$node" && [ -n "$(event_fds "$WPID")" ] ||
		fail "the watcher let go of rxe0 before it ran"
	# Let go: the first read says ENOBUFS; only a rescan can tell.
	kill -CONT "$WPID"
	STOPPED=''
	wait_for "$WOUT" '"event":"DEVICE_REMOVED"' 30
	line=$(grep '"event":"DEVICE_REMOVED"' "$WOUT")
	[[ $line == *'"device":"rxe0"'* ]] || fail "not rxe0's removal: $line"
	bg_wait del 0 60
	wait_gone /sys/class/infiniband/rxe0
	! holds "$WPID" "$node" || fail "the watcher still holds $node"
	assert_equal "$(grep -c . "$WERR")" 1
	bg_stop watch 0
}

# Soft-RoCE never raises DEVICE_FATAL. The kernel delivers a real
# PORT_ERR; gdb, stopped at the return of the read(2) that brings it to
# the watcher (rxe0's event queue, 16 bytes), writes IB_EVENT_DEVICE_FATAL
# (8) over its type in the watcher's buffer. From there on everything is
# the watcher's own handling of a real context and the real devices.
@test "DEVICE_FATAL ends rxe0's events until a new instance of rxe0 appears" {
	ip link add dummy1 type dummy
	ip link set dummy1 up
	start_watch -j
	fd=$(event_fds "$WPID")
	node=$(uverbs_of rxe0)
	[ -n "$fd" ] || fail "the watcher has no [infinibandevent] descriptor"
	cat >"$BATS_TEST_TMPDIR/fatal.gdb" <<-GDB
		set pagination off
		set confirm off
		catch syscall read
		condition 1 \$rdi == $fd && \$rdx == 16 && \$rax == 16
		echo READY\\n
		continue
		set *(unsigned int *)(\$rsi + 8) = 8
		printf "REWROTE %u\\n", *(unsigned int *)(\$rsi + 8)
		detach
		quit
	GDB
	not_output "$BATS_TEST_TMPDIR/fatal.gdb"
	gout=$BATS_TEST_TMPDIR/gdb.out
	bg_start gdb 0 gdb -nx -batch -iex 'set debuginfod enabled off' \
		-p "$WPID" -x "$BATS_TEST_TMPDIR/fatal.gdb" </dev/null >"$gout"
	wait_for "$gout" '^READY' 120
	ip link set dummy0 down
	bg_wait gdb 0 120
	grep -q '^REWROTE 8$' "$gout" || fail "gdb did not rewrite the event"
	wait_for "$WOUT" '"event":"DEVICE_FATAL"' 30
	line=$(grep '"event":"DEVICE_FATAL"' "$WOUT")
	[[ $line == *'"device":"rxe0"'* ]] || fail "not rxe0's: $line"
	# the stream ended: rxe0's context is closed
	assert_equal "$(event_fds "$WPID")" ""
	! holds "$WPID" "$node" || fail "the watcher still holds $node"
	ip link set dummy0 up
	wait_port_state ACTIVE
	# another device's arrival rescans: rxe0, the same instance, stays shut
	rdma link add rxe1 type rxe netdev dummy1
	wait_for "$WOUT" '"event":"DEVICE_ADDED".*"device":"rxe1"|"device":"rxe1".*"event":"DEVICE_ADDED"' 30
	assert_equal "$(count_lines "$WOUT" '"event":"DEVICE_ADDED"')" 1
	assert_equal "$(count_lines "$WOUT" '"event":"PORT_ACTIVE"')" 0
	assert_equal "$(event_fds "$WPID" | wc -l)" 1
	! holds "$WPID" "$node" || fail "rxe0 was opened again"
	# rxe0 goes (nothing holds it) and a new instance comes: watched again
	run timeout 60 rdma link delete rxe0
	assert_success
	wait_for "$WOUT" '"event":"DEVICE_REMOVED".*"device":"rxe0"|"device":"rxe0".*"event":"DEVICE_REMOVED"' 30
	rdma link add rxe0 type rxe netdev dummy0
	wait_port_state ACTIVE
	wait_for "$WOUT" '"event":"DEVICE_ADDED".*"device":"rxe0"|"device":"rxe0".*"event":"DEVICE_ADDED"' 30
	assert_equal "$(event_fds "$WPID" | wc -l)" 2
	ip link set dummy0 down
	wait_for "$WOUT" '"event":"PORT_ERR"' 30
	line=$(grep '"event":"PORT_ERR"' "$WOUT")
	[[ $line == *'"device":"rxe0"'* ]] || fail "not rxe0's: $line"
	assert_equal "$(grep -c . "$WERR")" 1
	bg_stop watch 0
}
