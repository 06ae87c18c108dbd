#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# ibv_eventinject against soft-RoCE: real traffic, real events, on 6.1 and
# 6.12. Affiliated events reach only the injector; a watcher beside it sees
# the port events.

load ../test_helper

setup() {
	ibve_setup
	require_guest
	J=$BATS_TEST_TMPDIR/report.json
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	ip addr flush dev dummy0 scope global 2>/dev/null || true
	restore_rxe
	return $rc
}

field() {
	jq -r "$1" "$J"
}

# objects PID: the objects of process PID the kernel knows, by kind
# ("qp 2 cq 2 srq 1 pd 1 mr 1"), from rdma resource show.
objects() {
	local kind n out=""
	for kind in qp cq srq pd mr; do
		n=$(rdma resource show "$kind" pid "$1") ||
			fail "rdma resource show $kind pid $1 failed"
		out+="$kind $(grep -c . <<<"$n") "
	done
	echo "${out% }"
}

# wait_objects PID: until the process has its queue pairs (30 s).
wait_objects() {
	local end=$((SECONDS + 30))
	until rdma resource show qp pid "$1" | grep -q .; do
		running "$1" || fail "process $1 ended before its objects were seen"
		[ $SECONDS -lt $end ] || fail "no queue pair of process $1 after 30 s"
		sleep 0.02
	done
}

# inject ARGS...: the injector with -j and --hold; once its report is out
# (every object destroyed, it says) the kernel must know none of its
# objects while the process still lives; then SIGTERM ends it with the
# run's status, which is in $status, the report in $J.
inject() {
	local want
	bg_start inject 0 ibv_eventinject -j --hold "$@" >"$J"
	IPID=$BG_LAST
	wait_for "$J" '^\{' 60 || return 1
	running "$IPID" || fail "the injector did not hold"
	assert_equal "$(objects "$IPID")" "qp 0 cq 0 srq 0 pd 0 mr 0"
	want=$(field .status)
	bg_stop inject "$want"
	status=$want
	output=$(cat "$J")
	stderr=$(cat "${BG_ERR[inject]}")
}

@test "srq-limit: SRQ_LIMIT_REACHED for our SRQ, acked, torn down" {
	inject srq-limit
	assert_success
	assert_equal "$(field '[.event, .class, .affiliated, .expected, .received] | join(" ")')" \
		"SRQ_LIMIT_REACHED srq true 1 1"
	assert_equal "$(field '.device, .port, .link_layer' | tr '\n' ' ')" "rxe0 1 Ethernet "
	[ "$(field '.handle | type')" = number ]
	[ "$(field '.qp_num')" = null ] # an SRQ event names no QP
	[ "$(field '.latency_us > 0')" = true ]
	[ "$(field '.teardown')" = true ]
	[ "$(field '.events')" -ge 1 ]
}

@test "the teardown check sees a run's objects while they exist" {
	bg_start inject 0 ibv_eventinject -q --hold cq-overflow --events 100000000
	IPID=$BG_LAST
	wait_objects "$IPID"
	assert_equal "$(objects "$IPID")" "qp 2 cq 2 srq 1 pd 1 mr 1"
	# SIGTERM interrupts the run (status 1), which then tears down
	bg_stop inject 1
}

@test "srq-limit --rearm 3: four one-shot events from re-arming" {
	inject srq-limit --rearm 3
	assert_success
	assert_equal "$(field '"\(.expected) \(.received)"')" "4 4"
}

@test "cq-overflow: CQ_ERR for our CQ" {
	inject cq-overflow
	assert_success
	assert_equal "$(field '[.event, .class, .received] | join(" ")')" "CQ_ERR cq 1"
	[ "$(field '.handle | type')" = number ]
}

@test "sq-drained: SQ_DRAINED naming our queue pair" {
	inject sq-drained
	assert_success
	assert_equal "$(field '[.event, .class, .received] | join(" ")')" "SQ_DRAINED qp 1"
	[ "$(field '.qp_num')" -gt 1 ] # not QP0/QP1: one of ours
}

@test "last-wqe: delivered from Linux 6.5 on; before, status 1 and why" {
	if kernel_at_least 6.5; then
		inject last-wqe
		assert_success
		assert_equal "$(field '[.event, .class, .received] | join(" ")')" \
			"QP_LAST_WQE_REACHED qp 1"
		[ "$(field '.qp_num')" -gt 1 ]
	else
		inject -t 2 last-wqe
		assert_equal "$status" 1
		[ "$stderr" = "ibv_eventinject: rxe0 did not deliver QP_LAST_WQE_REACHED within 2 s" ]
		assert_equal "$(field '"\(.received) \(.status) \(.teardown)"')" "0 1 true"
		run ibv_eventinject -t 2 last-wqe
		assert_failure 1
		assert_line 'result     NOT DELIVERED: rxe0 did not deliver QP_LAST_WQE_REACHED within 2 s'
	fi
}

@test "the text report reads at a glance" {
	run ibv_eventinject srq-limit
	assert_success
	assert_line --index 0 'scenario   srq-limit'
	assert_line --index 1 --regexp '^device     rxe0 port 1 \(RoCE, GID index [0-9]+\)$'
	assert_line --index 2 'expected   SRQ_LIMIT_REACHED x1'
	assert_line --index 3 --regexp '^received   SRQ_LIMIT_REACHED x1 \(srq handle [0-9]+\)$'
	assert_line --index 4 --regexp '^latency    [0-9]+ us from trigger to arrival$'
	assert_line --regexp '^teardown   complete in [0-9.]+ ms$'
	assert_line --index -1 'result     OK'
}

@test "cq-overflow --events 10000: exactly 10000, a rate, nothing left behind" {
	inject cq-overflow --events 10000
	assert_success
	assert_equal "$(field '"\(.expected) \(.received) \(.events)"')" "10000 10000 10000"
	echo "# $(field '"\(.rate | floor) CQ_ERR/s over \(.seconds) s"')" >&3
	[ "$(field '.rate > 0')" = true ]
	[ "$(field '.teardown')" = true ]
}

@test "a watcher beside the injector sees none of its events, but sees port events" {
	start_watch -j
	bg_start inject 0 ibv_eventinject -j cq-overflow --events 300000 >"$J"
	IPID=$BG_LAST
	# once the injector's queue pairs exist, change the port's GIDs
	wait_objects "$IPID"
	ip addr add 2001:db8::7/64 dev dummy0 nodad
	bg_wait inject 0 120
	wait_for "$WOUT" GID_CHANGE 30
	# a flap after it all: its PORT_ACTIVE closes the watcher's record
	ip link set dummy0 down
	wait_port_state DOWN
	ip link set dummy0 up
	wait_for "$WOUT" PORT_ACTIVE
	run -0 jq -r .event "$WOUT"
	refute_output --regexp 'CQ_ERR|SRQ_LIMIT|SQ_DRAINED|QP_'
	assert_line GID_CHANGE
	# the injector, too, read the port event (unaffiliated: every context)
	[ "$(field .events)" -gt 300000 ] || fail "injector events: $(field .events)"
	assert_equal "$(field .received)" 300000
}

# at_exit PID: until PID, stopped by strace, waits to enter exit_group
# (the kernel's /proc/PID/syscall: its number, 231 on x86_64, and status).
at_exit() {
	local end=$((SECONDS + 60)) nr
	case $(uname -m) in
	x86_64) nr=231 ;;
	aarch64) nr=94 ;;
	*) skip "exit_group's number on $(uname -m) is not known here" ;;
	esac
	until [[ $(cat "/proc/$1/syscall" 2>/dev/null) == "$nr "* ]]; do
		running "$1" || fail "process $1 ended before its exit was held"
		[ $SECONDS -lt $end ] || fail "process $1 did not exit within 60 s"
		sleep 0.05
	done
}

@test "SIGTERM during a storm: prompt exit, status 1, nothing left in the kernel at its exit" {
	sent=/sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts
	before=$(cat "$sent")
	# LeakSanitizer cannot work under ptrace (strace below): in the
	# sanitized build, this run's leak check is left to the other tests
	bg_start inject 1 env ${ASAN_OPTIONS:+"ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0"} \
		ibv_eventinject -j cq-overflow --events 100000000 >"$J"
	IPID=$BG_LAST
	wait_objects "$IPID"
	# until the storm runs: a minimal CQ overflows from its second write
	end=$((SECONDS + 30))
	until [ $(($(cat "$sent") - before)) -ge 1000 ]; do
		[ $SECONDS -lt $end ] || fail "no traffic from the injector after 30 s"
		sleep 0.05
	done
	# strace holds the injector at its exit_group (for 10 min): what the
	# kernel still has of it then, the injector left; the process ending
	# would free it all whatever the program did
	BG_GRACE[strace]=30
	bg_start strace 130 strace -p "$IPID" -o "$BATS_TEST_TMPDIR/strace" \
		-e trace=exit_group -e inject=exit_group:delay_enter=600000000
	wait_for "${BG_ERR[strace]}" "Process $IPID attached" 30
	kill -TERM "$IPID"
	# 100000000 events take it 20 min and more (bench: 91000/s at best),
	# so at its exit within 60 s the signal ended the storm
	at_exit "$IPID"
	assert_equal "$(objects "$IPID")" "qp 0 cq 0 srq 0 pd 0 mr 0"
	# let go, it ends as it would have
	bg_stop strace 130 INT
	bg_wait inject 1 30
	assert_equal "$(field '"\(.interrupted) \(.teardown)"')" "true true"
	[ "$(field .received)" -gt 0 ]
}

@test "bad use: no such device, no such port, bad GID index" {
	run --separate-stderr ibv_eventinject -d nosuch srq-limit
	assert_failure 3
	[ "$stderr" = "ibv_eventinject: device 'nosuch': no such RDMA device (there are rxe0)" ]
	run --separate-stderr ibv_eventinject -d rxe0 -i 2 srq-limit
	assert_failure 3
	[ "$stderr" = "ibv_eventinject: rxe0: no port 2 (it has 1)" ]
	run --separate-stderr ibv_eventinject -g 200 srq-limit
	assert_failure 3
	[ "$stderr" = "ibv_eventinject: rxe0 port 1: no valid GID at index 200" ]
	run --separate-stderr ibv_eventinject -t 0 srq-limit
	assert_failure 2
}

@test "a port that is down is a setup failure, named" {
	ip link set dummy0 down
	wait_port_state DOWN
	run --separate-stderr ibv_eventinject -d rxe0 -i 1 srq-limit
	assert_failure 3
	[ "$stderr" = "ibv_eventinject: rxe0 port 1 is DOWN, not ACTIVE" ]
	run --separate-stderr ibv_eventinject srq-limit
	assert_failure 3
	[ "$stderr" = "ibv_eventinject: no RDMA device with an ACTIVE port" ]
}
