#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Faults on the real stack: rxe0 removed and re-added 20 times in a row
# under a running watcher and dashboard (no hang, no descriptor leak), and
# a full disk under the live watcher. A storm cut by SIGTERM and a reader
# that goes away are in 20-eventinject.bats and 10-eventwatch.bats.

load ../test_helper

setup() {
	require_guest
}

teardown() {
	stop_bg "${WPID:-}" "${TPID:-}"
	restore_rxe
}

fds() {
	find /proc/"$1"/fd -mindepth 1 -maxdepth 1 | wc -l
}

# end PID: SIGTERM, then it must be gone within 2 s with status 0
end() {
	local start=$SECONDS status=0
	kill -TERM "$1"
	wait "$1" || status=$?
	assert_equal "$status" 0
	[ $((SECONDS - start)) -le 2 ] || fail "$1 took $((SECONDS - start)) s to end"
}

@test "rxe0 removed and re-added 20 times under the watcher and the dashboard: no hang, no fd leak" {
	start_watch -j
	top=$BATS_TEST_TMPDIR/top.json
	ibv_eventtop -b -j -s 0.2 >"$top" &
	TPID=$!
	wait_for "$top" '"device":"rxe0"' 10
	w0=$(fds "$WPID") t0=$(fds "$TPID")
	for i in $(seq 20); do
		timeout 5 rdma link delete rxe0 || fail "cycle $i: rdma link delete blocked"
		wait_count "$WOUT" '"event":"DEVICE_REMOVED"' "$i" 10
		rdma link add rxe0 type rxe netdev dummy0
		wait_count "$WOUT" '"event":"DEVICE_ADDED"' "$i" 10
	done
	wait_port_state ACTIVE
	# both still see the device: a flap reaches the watcher, and the
	# dashboard's next snapshots have rxe0 again
	ip link set dummy0 down
	wait_port_state DOWN
	ip link set dummy0 up
	wait_port_state ACTIVE
	wait_for "$WOUT" '"event":"PORT_ACTIVE"' 10
	n=$(count_lines "$top" '"device":"rxe0"')
	wait_count "$top" '"device":"rxe0"' $((n + 2)) 10
	w1=$(fds "$WPID") t1=$(fds "$TPID")
	echo "# open descriptors: watcher $w0 -> $w1, dashboard $t0 -> $t1" >&3
	assert_equal "$w1" "$w0"
	assert_equal "$t1" "$t0"
	end "$WPID"
	end "$TPID"
	WPID='' TPID=''
}

@test "live output to /dev/full: status 3 and the cause, on the first event" {
	err=$BATS_TEST_TMPDIR/err
	ibv_eventwatch >/dev/full 2>"$err" &
	WPID=$!
	wait_for "$err" '^ibv_eventwatch: watching'
	ip link set dummy0 down
	status=0
	timeout 10 tail --pid="$WPID" -f /dev/null || fail "still running after the event"
	wait "$WPID" || status=$?
	WPID=
	assert_equal "$status" 3
	assert_equal "$(tail -n 1 "$err")" \
		"ibv_eventwatch: write to standard output: No space left on device"
}
