#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Metrics and syslog from live soft-RoCE events: counters and port state
# follow link flaps, each flap's port read once for every sink (strace),
# presence follows removal, and a real rsyslogd gets one record per event
# with the mapped severity.
# One kernel, the ASan guest's (make check): the sinks write what the
# library's sources read, and those run on both kernels in the other files.

load ../test_helper

setup() {
	ibve_setup
	require_guest
	M=$BATS_TEST_TMPDIR/rdma.prom
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	restore_rxe
	return $rc
}

# metric NAME{labels}: its value in the file, or nothing.
metric() {
	grep -F "$1" "$M" 2>/dev/null | awk '{ print $NF }'
}

wait_metric() {
	local end=$((SECONDS + 30))
	until [ "$(metric "$1")" = "$2" ]; do
		[ $SECONDS -lt $end ] || fail "$1 is '$(metric "$1")', not $2"
		sleep 0.05
	done
}

@test "link flaps raise the counters; port state and info come from the port" {
	start_watch --metrics-file "$M"
	wait_metric 'ibvevent_port_state{device="rxe0",port="1"}' 4
	run grep -F 'ibvevent_port_info{device="rxe0",port="1",state="ACTIVE",link_layer="Ethernet",phys_state="LinkUp"' "$M"
	assert_success
	ip link set dummy0 down
	wait_metric 'ibvevent_events_total{device="rxe0",port="1",event="PORT_ERR",severity="error"}' 1
	[ "$(metric 'ibvevent_port_state{device="rxe0",port="1"}')" -ne 4 ]
	run grep -F 'ibvevent_port_info{device="rxe0",port="1",state="DOWN",' "$M"
	assert_success
	ip link set dummy0 up
	wait_metric 'ibvevent_events_total{device="rxe0",port="1",event="PORT_ACTIVE",severity="info"}' 1
	wait_metric 'ibvevent_port_state{device="rxe0",port="1"}' 4
	ip link set dummy0 down
	wait_metric 'ibvevent_events_total{device="rxe0",port="1",event="PORT_ERR",severity="error"}' 2
	run promtool check metrics <"$M"
	assert_success
}

@test "each port event reads its port's attributes once, for every sink (strace)" {
	# LeakSanitizer cannot run under ptrace (50-porthealth.bats)
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:detect_leaks=0}
	# JSON, and the port table behind the metrics and the port's health
	start_watch -j --metrics-file "$M"
	# the table read the port at start, and the source its rate after
	# it: from here on, what the watcher opens is the events'
	wait_metric 'ibvevent_port_state{device="rxe0",port="1"}' 4
	T=$BATS_TEST_TMPDIR/trace
	bg_start strace 0 strace -f -p "$WPID" -o "$T" -e trace=openat </dev/null
	wait_for "${BG_ERR[strace]}" 'attached'
	ip link set dummy0 down
	ip link set dummy0 up
	wait_for "$WOUT" '"event":"PORT_ACTIVE"'
	# every event it handled traced: it ends, then strace
	bg_stop watch 0
	bg_wait strace 0
	n=$(grep -c '^{"time":"[^"]*","device":"rxe0","port":1,' "$WOUT")
	[ "$n" -ge 2 ]
	# the port's files: none opened more often than there were events
	# shellcheck disable=SC2016 # awk's
	run -0 awk -F'"' -v n="$n" '
		$2 ~ "^/sys/class/infiniband/rxe0/ports/1/" { c[$2]++ }
		END { for (f in c) if (c[f] > n) print f ": " c[f] " opens, " n " events" }' "$T"
	assert_output ''
	# and every event did read it, once
	assert_equal "$(grep -c '"/sys/class/infiniband/rxe0/ports/1/state"' "$T")" "$n"
}

@test "the sources the watcher runs: verbs and hot-plug always, the kernel one with -A only, mlx5 with an mlx5 device only" {
	start_watch --metrics-file "$M"
	wait_metric 'ibvevent_source_enabled{source="verbs"}' 1
	assert_equal "$(metric 'ibvevent_source_enabled{source="hotplug"}')" 1
	assert_equal "$(metric 'ibvevent_source_enabled{source="kernel"}')" 0
	# soft-RoCE: no device gives mlx5 events
	assert_equal "$(metric 'ibvevent_source_enabled{source="mlx5"}')" 0
	assert_equal "$(metric 'ibvevent_events_lost_total{device="rxe0"}')" 0
	bg_stop watch 0
	# attaching the eBPF programs takes seconds under TCG
	bg_start watchA 0 ibv_eventwatch -A --metrics-file "$M" </dev/null >/dev/null
	wait_for "${BG_ERR[watchA]}" '^ibv_eventwatch: watching' 60
	wait_metric 'ibvevent_source_enabled{source="kernel"}' 1
	assert_equal "$(metric 'ibvevent_source_enabled{source="verbs"}')" 1
}

@test "device removal sets ibvevent_device_present to 0, its return to 1" {
	start_watch --metrics-file "$M"
	wait_metric 'ibvevent_device_present{device="rxe0"}' 1
	timeout 60 rdma link delete rxe0
	wait_metric 'ibvevent_device_present{device="rxe0"}' 0
	run -1 grep -c '^ibvevent_port_state{device="rxe0"' "$M"
	assert_output 0
	rdma link add rxe0 type rxe netdev dummy0
	wait_metric 'ibvevent_device_present{device="rxe0"}' 1
	wait_metric 'ibvevent_port_state{device="rxe0",port="1"}' 4
}

@test "during a run of flaps a reader only ever sees whole files" {
	start_watch --metrics-file "$M"
	# a reader that keeps every version it sees, until told to stop
	# shellcheck disable=SC2016 # expanded by that bash
	bg_start reader 0 bash -c '
		n=0
		while [ ! -e "$1/stop" ] && [ $SECONDS -lt 300 ]; do
			n=$((n + 1))
			cat "$2" >"$1/seen.$n" 2>/dev/null || true
		done' _ "$BATS_TEST_TMPDIR" "$M"
	for _ in $(seq 15); do
		ip link set dummy0 down
		ip link set dummy0 up
	done
	wait_port_state ACTIVE
	wait_metric 'ibvevent_events_total{device="rxe0",port="1",event="PORT_ERR",severity="error"}' 15
	touch "$BATS_TEST_TMPDIR/stop"
	bg_wait reader 0
	for f in "$BATS_TEST_TMPDIR"/seen.*; do
		[ -s "$f" ] || continue
		tail -n 1 "$f" | grep -q '^ibvevent_build_info{' || fail "$f is cut short"
	done
	[ "$(grep -l 'event="PORT_ERR"' "$BATS_TEST_TMPDIR"/seen.* | wc -l)" -ge 2 ]
}

@test "--syslog: a real rsyslogd gets one record per event shown, severity mapped" {
	command -v rsyslogd >/dev/null || skip "rsyslog is not installed (make deps installs it)"
	log=$BATS_TEST_TMPDIR/syslog
	cat >"$BATS_TEST_TMPDIR/rsyslog.conf" <<CONF
global(workDirectory="$BATS_TEST_TMPDIR")
module(load="imuxsock" SysSock.Name="/dev/log")
template(name="t" type="string" string="%syslogfacility-text%.%syslogseverity-text% %programname%:%msg%\n")
*.* action(type="omfile" file="$log" template="t")
CONF
	# rsyslogd ends with status 0 on SIGTERM
	bg_start rsyslogd 0 rsyslogd -n -f "$BATS_TEST_TMPDIR/rsyslog.conf" \
		-i "$BATS_TEST_TMPDIR/rsyslog.pid"
	end=$((SECONDS + 30))
	until [ -S /dev/log ]; do
		[ $SECONDS -lt $end ] || fail "rsyslogd made no /dev/log in 30 s"
		sleep 0.05
	done
	all=$BATS_TEST_TMPDIR/all.jsonl
	start_watch --syslog=local3 -x GID_CHANGE -w "$all"
	ip link set dummy0 down
	ip link set dummy0 up
	ip addr add 2001:db8::9/64 dev dummy0 nodad
	# the recording has every event: once the GID_CHANGE the filter
	# drops is in it, a later PORT_ERR logged means it was not logged
	wait_for "$all" GID_CHANGE
	ip link set dummy0 down
	wait_count "$log" 'event=PORT_ERR' 2
	run -0 grep ibv_eventwatch "$log"
	assert_line 'local3.err ibv_eventwatch: device=rxe0 port=1 event=PORT_ERR severity=error code=10 source=verbs: port left the active state: link down or lost (netdev dummy0)'
	# how long the port was down, as the record says it
	down=$(jq -r 'select(.event == "PORT_ACTIVE") | .down_us |
		if . < 1000000 then "\(. / 1000 | floor) ms"
		else ((. / 100000 | round) / 10) as $s |
			if ($s | floor) == $s then "\($s).0 s" else "\($s) s" end end' "$all")
	assert_line "local3.info ibv_eventwatch: device=rxe0 port=1 event=PORT_ACTIVE severity=info code=9 source=verbs: port is active: link up and ready for traffic (netdev dummy0, down $down)"
	refute_output --partial GID_CHANGE # what the filters drop is not logged
	assert_equal "${#lines[@]}" 3
	ip addr flush dev dummy0 scope global
}
