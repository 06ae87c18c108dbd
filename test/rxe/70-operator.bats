#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# What an operator meets first: a watcher started before its device (a
# service started before the driver) waits for it and reports it when it
# comes, while scripts that count on an event are told at once.

load ../test_helper

setup() {
	ibve_setup
	require_guest
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	restore_rxe
	return $rc
}

# no_device: rxe0 deleted, and no RDMA device left.
no_device() {
	timeout 30 rdma link delete rxe0 || fail "rdma link delete rxe0 did not finish"
	[ -z "$(ls /sys/class/infiniband 2>/dev/null)" ] ||
		fail "devices left: $(ls /sys/class/infiniband)"
}

# uverbs_open PID: whether PID holds a uverbs character device open.
uverbs_open() {
	find "/proc/$1/fd" -lname '/dev/infiniband/uverbs*' 2>/dev/null | grep -q .
}

@test "a plain watcher started with no device waits, then watches the device added" {
	no_device
	start_watch -j
	run cat "$WERR"
	assert_success
	assert_output "ibv_eventwatch: watching 0 devices (hot-plug: $(expected_hotplug))"
	running "$WPID" || fail "the watcher ended with no device"
	if uverbs_open "$WPID"; then fail "a uverbs device is open with no device"; fi
	rdma link add rxe0 type rxe netdev dummy0
	wait_for "$WOUT" '"event":"DEVICE_ADDED"' 60
	wait_port_state ACTIVE
	# it opened the device (seen in /proc, not in its own output) ...
	uverbs_open "$WPID" || fail "the watcher holds no uverbs device open"
	# ... and its events come: the link flaps once
	ip link set dummy0 down
	wait_port_state DOWN
	ip link set dummy0 up
	wait_port_state ACTIVE
	wait_for "$WOUT" '"event":"PORT_ACTIVE"' 60
	run jq -r '"\(.device) \(.event)"' "$WOUT"
	assert_success
	assert_line --index 0 'rxe0 DEVICE_ADDED'
	assert_line 'rxe0 PORT_ERR'
	assert_line 'rxe0 PORT_ACTIVE'
	bg_stop watch 0
}

@test "with -q it still says it waits; the service's options work with no device" {
	no_device
	M=$BATS_TEST_TMPDIR/rdma.prom
	bg_start watch 0 ibv_eventwatch -q --metrics-file "$M" \
		--metrics-state "$BATS_TEST_TMPDIR/state" >/dev/null
	wait_for "${BG_ERR[watch]}" waiting 60
	assert_equal "$(cat "${BG_ERR[watch]}")" 'ibv_eventwatch: no RDMA devices yet: waiting for them to appear'
	rdma link add rxe0 type rxe netdev dummy0
	# counted in the metrics file once it is there
	wait_for "$M" '^ibvevent_events_total\{device="rxe0",port="",event="DEVICE_ADDED",severity="info"\} 1$' 60
	bg_stop watch 0
}

@test "scripts are told at once: -n, --expect, -t and -d exit 3 with no device" {
	no_device
	for opt in '-n 1' '--expect DEVICE_ADDED' '-t 600' '-d rxe0'; do
		# shellcheck disable=SC2086
		run --separate-stderr ibv_eventwatch $opt
		assert_failure 3
		assert_equal "${#stderr_lines[@]}" 1
		[[ ${stderr_lines[0]} == "ibv_eventwatch: "*"no"*"device"* ]] ||
			fail "$opt: ${stderr_lines[0]}"
	done
}

# watch_ns SETUP ARGS...: the watcher (as start_watch) in a mount namespace
# of its own, after the shell commands SETUP ran there.
watch_ns() {
	local setup=$1
	shift
	WOUT=$BATS_TEST_TMPDIR/watch.out
	bg_start watch 0 unshare -m --propagation private -- \
		sh -c "$setup"' && exec "$@"' sh ibv_eventwatch "$@" >"$WOUT"
	WPID=$BG_LAST
	WERR=${BG_ERR[watch]}
	BG_GRACE[watch]=60 # its eBPF links released on a loaded machine
	wait_for "$WERR" '^ibv_eventwatch: watching' 60
}

# srq_record: inject srq-limit; the watcher's kernel record of it (JSON).
srq_record() {
	local j=$BATS_TEST_TMPDIR/inject.json end=$((SECONDS + 60)) pid
	bg_start inject 0 ibv_eventinject -j srq-limit >"$j"
	pid=$BG_LAST
	bg_wait inject 0 120
	until jq -ec "select(.source == \"kernel\" and .pid == $pid)" "$WOUT" 2>/dev/null; do
		[ $SECONDS -lt $end ] || fail "no kernel record of the injector (pid $pid)"
		sleep 0.1
	done
}

NOTE_CG='ibv_eventwatch: eBPF: no cgroup2 file system is mounted: records name no cgroup (nor job) until one is'

@test "-A without a cgroup2 mount says so once; its records have no cgroup" {
	ibv_eventwatch -V | grep -q 'all processes (eBPF): yes' || skip "built without eBPF (BPF=0)"
	# every cgroup2 mount gone from the watcher's namespace
	watch_ns "awk '/ - cgroup2 / { print \$5 }' /proc/self/mountinfo | xargs -r -n 1 umount -l" -A -j
	run srq_record
	assert_success
	assert_equal "$(jq -r '.event, has("cgroup")' <<<"$output")" $'SRQ_LIMIT_REACHED\nfalse'
	assert_equal "$(grep -cxF "$NOTE_CG" "$WERR")" 1
	bg_stop watch 0
	# with one mounted: no such line, and the record has its cgroup
	watch_ns "mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup" -A -j
	run srq_record
	assert_success
	assert_equal "$(jq -r '.event, has("cgroup")' <<<"$output")" $'SRQ_LIMIT_REACHED\ntrue'
	bg_stop watch 0
	run grep -c 'cgroup2' "$WERR"
	assert_failure 1
	assert_output 0
}
