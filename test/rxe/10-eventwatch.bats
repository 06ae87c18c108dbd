#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# ibv_eventwatch against the kernel's real RDMA stack (soft-RoCE rxe0),
# beside rdma-core's ibv_asyncwatch as the reference.

load ../test_helper

setup() {
	ibve_setup
	require_guest
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	ip addr flush dev dummy0 scope global 2>/dev/null || true
	restore_rxe
	return $rc
}

# mark: an event after everything a test waited for, seen by the watcher
# (and ibv_asyncwatch, when running): what came before it has come, so
# counting then is exact, and nothing late can be missed.
mark() {
	ip addr add 2001:db8::ff/64 dev dummy0 nodad
	wait_for "$WOUT" GID_CHANGE
	[ -z "${AOUT:-}" ] || wait_for "$AOUT" GID_CHANGE
}

flap() {
	local n=$1 i
	for ((i = 1; i <= n; i++)); do
		ip link set dummy0 down
		wait_port_state DOWN
		ip link set dummy0 up
		wait_port_state ACTIVE
	done
}

@test "link down/up gives PORT_ERR then PORT_ACTIVE, as many as ibv_asyncwatch sees" {
	start_asyncwatch
	start_watch -j
	flap 3
	mark
	assert_equal "$(count_lines "$WOUT" '"event":"PORT_ERR"')" 3
	assert_equal "$(count_lines "$WOUT" '"event":"PORT_ACTIVE"')" 3
	assert_equal "$(count_lines "$AOUT" IBV_EVENT_PORT_ERR)" 3
	assert_equal "$(count_lines "$AOUT" IBV_EVENT_PORT_ACTIVE)" 3
	run -0 jq -r '[.device, .port, .event, .class, .source] | join(" ")' "$WOUT"
	assert_line --index 0 'rxe0 1 PORT_ERR port verbs'
	assert_line --index 1 'rxe0 1 PORT_ACTIVE port verbs'
	# every event of the RoCE port names its netdev, with its index
	idx=$(cat /sys/class/net/dummy0/ifindex)
	run -0 jq -r '"\(.event) \(.netdev) \(.netdev_index)"' "$WOUT"
	assert_line --index 0 "PORT_ERR dummy0 $idx"
	assert_equal "$(jq -r '"\(.netdev) \(.netdev_index)"' "$WOUT" | sort -u)" "dummy0 $idx"
	# the node GUID of the record is the device's
	guid=$(jq -r .node_guid "$WOUT" | head -n 1)
	ibv_devinfo -d rxe0 | grep -q "node_guid:[[:space:]]*$guid"
}

@test "adding and removing an address gives GID_CHANGE, as many as ibv_asyncwatch sees" {
	start_asyncwatch
	start_watch -j -e GID_CHANGE,PORT_ACTIVE
	ip addr add 2001:db8::1/64 dev dummy0 nodad
	wait_for "$WOUT" GID_CHANGE
	ip addr del 2001:db8::1/64 dev dummy0
	wait_count "$AOUT" GID_CHANGE 2
	# a flap after it: once its PORT_ACTIVE is in, every GID_CHANGE is
	flap 1
	wait_for "$WOUT" PORT_ACTIVE
	wait_for "$AOUT" PORT_ACTIVE
	n=$(count_lines "$WOUT" GID_CHANGE)
	[ "$n" -ge 2 ]
	assert_equal "$n" "$(count_lines "$AOUT" GID_CHANGE)"
	run -0 jq -r '"\(.port) \(.severity)"' "$WOUT"
	assert_line --index 0 '1 info'
}

removal_cycle() {
	start_watch -j
	grep -q "hot-plug: $1)" "$WERR" || fail "watcher uses $(cat "$WERR")"
	# blocked, it would wait as long as the watcher holds the device:
	# for ever (ibv_asyncwatch does); 60 s tells the two apart
	timeout 60 rdma link delete rxe0 || fail "rdma link delete rxe0 blocked"
	wait_for "$WOUT" '"event":"DEVICE_REMOVED"' 30
	rdma link add rxe0 type rxe netdev dummy0
	wait_for "$WOUT" '"event":"DEVICE_ADDED"' 30
	wait_port_state ACTIVE
	flap 1
	wait_for "$WOUT" '"event":"PORT_ACTIVE"' 30
	run -0 jq -r '"\(.event) \(.source) \(.chardev // "-")"' "$WOUT"
	assert_line --index 0 'DEVICE_REMOVED hotplug uverbs0'
	assert_line --index 1 'DEVICE_ADDED hotplug uverbs0'
	# events still flow from the re-opened device
	assert_line 'PORT_ERR verbs -'
	assert_line 'PORT_ACTIVE verbs -'
	bg_stop watch 0
}

@test "rdma link delete finishes at once while the watcher runs; removal and return are reported" {
	removal_cycle "$(expected_hotplug)"
}

@test "the same through uevents alone (IBVEVENT_HOTPLUG=uevent)" {
	export IBVEVENT_HOTPLUG=uevent
	removal_cycle uevent
}

@test "on kernels with the RDMA monitor, a new device's netdev attach is reported" {
	kernel_at_least 6.11 || skip "no RDMA netlink monitor before Linux 6.11 ($(uname -r))"
	start_watch -j -e hotplug
	timeout 60 rdma link delete rxe0
	rdma link add rxe0 type rxe netdev dummy0
	wait_for "$WOUT" NETDEV_ATTACH 30
	run -0 jq -r 'select(.event == "NETDEV_ATTACH") | "\(.device) \(.port) \(.netdev)"' "$WOUT"
	assert_output 'rxe0 1 dummy0'
}

@test "-d rxe0 follows rxe0 by name across its removal" {
	start_watch -d rxe0 -e hotplug,PORT_ERR
	timeout 60 rdma link delete rxe0
	rdma link add rxe0 type rxe netdev dummy0
	wait_for "$WOUT" DEVICE_ADDED 30
	flap 1
	wait_for "$WOUT" PORT_ERR 30
}

@test "--expect PORT_ERR -t 120 exits 0 when the link drops" {
	# the status tells the event (0) from the timeout (1); the timeout
	# far above what a loaded guest takes to see the link drop
	start_watch --expect PORT_ERR -t 120
	ip link set dummy0 down
	bg_wait watch 0 60
	run -0 cat "$WOUT"
	assert_output --regexp '^[-0-9]+ [:.0-9]+[+-][0-9]{2}:[0-9]{2} rxe0/1 +PORT_ERR +error .* \(netdev dummy0\)$'
}

@test "--expect PORT_ERR -t 2 exits 1 when nothing happens" {
	run ibv_eventwatch -q --expect PORT_ERR -t 2
	assert_failure 1
	assert_output ''
}

@test "--list shows rxe0 port 1 ACTIVE with its GIDs; -j is JSON" {
	run ibv_eventwatch -l -d rxe0
	assert_success
	assert_line --index 0 --regexp '^rxe0  uverbs[0-9]+  node_guid [0-9a-f:]{19}  CA  InfiniBand  fw '
	assert_line --index 1 --regexp '^    port 1  ACTIVE  LinkUp  Ethernet  .*  netdev dummy0$'
	assert_line --regexp '^        gid 0 +fe80:'
	run ibv_eventwatch -l -j
	assert_success
	run -0 jq -r '.device, .ports[0].state, .ports[0].link_layer, .ports[0].gids[0].type, .ports[0].peer.state' <<<"$output"
	assert_output $'rxe0\nACTIVE\nEthernet\nRoCE v2\nunknown'
	run ibv_eventwatch -l -d nosuchdev
	assert_failure 3
	assert_output "ibv_eventwatch: device 'nosuchdev': no such RDMA device (there are rxe0)"
}

@test "-d with a device that does not exist exits 3, naming those that do" {
	# the kernel's word on which exist
	assert_equal "$(ls /sys/class/infiniband)" rxe0
	run ibv_eventwatch -d nosuchdev
	assert_failure 3
	assert_output "ibv_eventwatch: device 'nosuchdev': no such RDMA device (there are rxe0)"
	run ibv_eventwatch --check -d nosuchdev
	assert_failure 3
	assert_output "ibv_eventwatch: device 'nosuchdev': no such RDMA device (there are rxe0)"
	run ibv_eventtop -b -d nosuchdev
	assert_failure 3
	assert_output "ibv_eventtop: device 'nosuchdev': no such RDMA device (there are rxe0)"
}

@test "an idle watcher makes no system calls" {
	start_watch
	trace=$BATS_TEST_TMPDIR/strace
	# told to detach (SIGINT), strace ends as that signal would: 130
	bg_start strace 130 strace -f -s 256 -p "$WPID" -o "$trace"
	# the window starts once strace has attached to every thread
	wait_for "${BG_ERR[strace]}" "Process $WPID attached"
	sleep 3
	cp "$trace" "$trace.idle"
	# then one event, to prove strace was attached and seeing
	flap 1
	wait_for "$WOUT" PORT_ACTIVE 30
	wait_for "$trace" '^[0-9]* *write\(1, .*PORT_ACTIVE' 30
	bg_stop strace 130 INT
	# strace's own attach shows the poll being resumed; nothing else ran
	run -1 grep -v -e 'restart_syscall' -e '^[0-9]* *+++' -e '^[0-9]* *---' "$trace.idle"
	assert_output ''
}

@test "before its \"watching\" line the watcher opens each device once: peers are asked after it" {
	trace=$BATS_TEST_TMPDIR/start.trace
	# the LLDP source lists the devices' ports again, at its first tick
	# (LeakSanitizer cannot run under ptrace: ASan's leak check off)
	run -0 env ${ASAN_OPTIONS:+"ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0"} \
		strace -f -o "$trace" -e trace=openat,write ibv_eventwatch -t 0.1
	run -0 grep -c 'write(2, .*watching' "$trace"
	assert_output 1
	run -0 awk '/write\(2, .*watching/ { exit }
		/openat\(.*"\/dev\/infiniband\/uverbs0"/ { n++ } END { print n + 0 }' "$trace"
	assert_output 1
}

@test "SIGTERM and SIGINT end the watcher at once with status 0" {
	# Nothing happens in the guest meanwhile: a watcher that noticed a
	# signal only at its next event, or never, would not end at all.
	# Ending within 60 s (a loaded CI guest took 1.4 s, 3 s under ASan)
	# tells "at once" from that; how fast is make bench's to measure.
	BG_GRACE[watch]=60
	for sig in TERM INT; do
		start_watch
		bg_stop watch 0 "$sig"
	done
}

@test "a reader that goes away ends the live watcher quietly with status 0" {
	fifo=$BATS_TEST_TMPDIR/fifo
	mkfifo "$fifo"
	exec 8<>"$fifo" # holds the pipe open until head reads it
	bg_start watch 0 ibv_eventwatch >"$fifo" 8>&-
	wait_for "${BG_ERR[watch]}" '^ibv_eventwatch: watching'
	bg_start head 0 head -n 1 <"$fifo" >"$BATS_TEST_TMPDIR/first" 8>&-
	exec 8>&-
	flap 1
	bg_wait head 0
	flap 1 # the next write finds the pipe closed
	bg_wait watch 0
	run -0 cat "$BATS_TEST_TMPDIR/first"
	assert_output --regexp ' rxe0/1 +PORT_ERR '
	# nothing but its "watching" line
	assert_equal "$(wc -l <"${BG_ERR[watch]}")" 1
}

@test "--mlx5 on rxe0, which is not mlx5: one line, status 3" {
	run --separate-stderr ibv_eventwatch --mlx5 -d rxe0 -t 1
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: --mlx5: rxe0 has no mlx5 DEVX events (it is not an mlx5 device)" ]
	run --separate-stderr ibv_eventwatch --mlx5 -t 1
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: --mlx5: no device with mlx5 DEVX events" ]
}

@test "without --mlx5 the mlx5 source is silently not used on rxe0; verbs events flow" {
	start_watch -j
	assert_equal "$(cat "$WERR")" "ibv_eventwatch: watching 1 device: rxe0 (hot-plug: $(expected_hotplug))"
	ip link set dummy0 down
	wait_for "$WOUT" '"event":"PORT_ERR"'
	run -0 jq -r .source "$WOUT"
	refute_output --partial mlx5
}
