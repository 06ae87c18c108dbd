#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Port health on the real soft-RoCE port: flaps against slow downs, how
# long the port was down, since when, the flap counter from 0; --check
# against the port as it is and against history (the watcher's capture
# and state); an excluded device never opened nor read, by strace.

load ../test_helper

setup() {
	ibve_setup
	require_guest
	M=$BATS_TEST_TMPDIR/rdma.prom
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	if [ -e /sys/class/infiniband/rxe1 ]; then
		timeout 60 rdma link delete rxe1 || rc=1
	fi
	ip link delete dummy1 2>/dev/null || true
	restore_rxe
	return $rc
}

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

flap() {
	local n=$1 i
	for ((i = 1; i <= n; i++)); do
		ip link set dummy0 down
		wait_port_state DOWN
		ip link set dummy0 up
		wait_port_state ACTIVE
	done
}

# epoch TIME: an RFC 3339 time as seconds with milliseconds, e.g. 12.345
epoch() {
	date -d "$1" +%s.%3N
}

@test "quick flaps count, a slow down does not; PORT_ACTIVE says how long; since; the counter from 0" {
	start_watch -j -e port --metrics-file "$M" --flap-window 20s
	# there from the start, at 0: an alert on its increase misses nothing
	wait_metric 'ibvevent_port_flaps_total{device="rxe0",port="1"}' 0
	flap 3
	wait_count "$WOUT" '"event":"PORT_ACTIVE"' 3
	wait_metric 'ibvevent_port_flaps_total{device="rxe0",port="1"}' 3
	# the slow one: 21 s down, more than the 20 s window (a quick flap
	# takes well under a second; the window is far from both)
	t0=$(date +%s.%N)
	ip link set dummy0 down
	wait_port_state DOWN
	wait_count "$WOUT" '"event":"PORT_ERR"' 4
	err_time=$(jq -r 'select(.event == "PORT_ERR") | .time' "$WOUT" | tail -n 1)
	# down since its PORT_ERR, in the metrics and in a dashboard started now
	wait_metric 'ibvevent_port_state_since_timestamp_seconds{device="rxe0",port="1"}' "$(epoch "$err_time")"
	run ibv_eventtop -b -n 1 -d rxe0
	assert_success
	assert_line --regexp '^rxe0 +1 DOWN .* +>[0-9]+s +0 '
	sleep 21
	ip link set dummy0 up
	wait_port_state ACTIVE
	t1=$(date +%s.%N)
	wait_count "$WOUT" '"event":"PORT_ACTIVE"' 4
	# each PORT_ACTIVE: down as long as from its PORT_ERR record
	run -0 jq -rs 'map(select(.event == "PORT_ERR" or .event == "PORT_ACTIVE")) | _nwise(2) |
		"\(.[1].down_us) \(((.[1].time | sub("\\.[0-9]+Z$"; "Z") | fromdate) - (.[0].time | sub("\\.[0-9]+Z$"; "Z") | fromdate)))"' "$WOUT"
	assert_equal "${#lines[@]}" 4
	for i in 0 1 2 3; do
		read -r us secs <<<"${lines[$i]}"
		# whole seconds of the two times apart: within a second of down_us
		awk -v us="$us" -v s="$secs" 'BEGIN { d = us / 1e6 - s; exit !(d > -1 && d < 1) }' ||
			fail "flap $i: down_us $us, records $secs s apart"
		if [ "$i" -lt 3 ]; then
			[ "$us" -lt 20000000 ] || fail "quick flap $i took $us us"
		else
			# at least the 21 s slept, at most what the test measured
			awk -v us="$us" -v t0="$t0" -v t1="$t1" 'BEGIN { exit !(us >= 21e6 && us / 1e6 <= t1 - t0) }' ||
				fail "slow down: $us us, the test measured $t0..$t1"
		fi
	done
	# not a flap: the counter stays at 3; the last down is the slow one's
	wait_metric 'ibvevent_events_total{device="rxe0",port="1",event="PORT_ACTIVE",severity="info"}' 4
	assert_equal "$(metric 'ibvevent_port_flaps_total{device="rxe0",port="1"}')" 3
	assert_equal "$(metric 'ibvevent_port_last_down_duration_seconds{device="rxe0",port="1"}')" \
		"$(awk -v us="$us" 'BEGIN { printf "%.3f", us / 1e6 }')"
	act_time=$(jq -r 'select(.event == "PORT_ACTIVE") | .time' "$WOUT" | tail -n 1)
	assert_equal "$(metric 'ibvevent_port_state_since_timestamp_seconds{device="rxe0",port="1"}')" "$(epoch "$act_time")"
	# the rate is the port's own
	rate=$(cut -d' ' -f1 /sys/class/infiniband/rxe0/ports/1/rate)
	assert_equal "$(metric 'ibvevent_port_rate_bytes_per_second{device="rxe0",port="1"}')" \
		"$(awk -v g="$rate" 'BEGIN { printf "%.0f", g * 1e9 / 8 }')"
	run promtool check metrics <"$M"
	assert_success
}

@test "--check: healthy with the port up, unhealthy down, with the reason first; a rate above rxe's fails" {
	run ibv_eventwatch --check
	assert_success
	assert_output ''
	rate=$(cat /sys/class/infiniband/rxe0/ports/1/rate)
	gbps=${rate%% *}
	run ibv_eventwatch --check --spec "rxe0/1 rate>=$gbps link=eth state=ACTIVE"
	assert_success
	run ibv_eventwatch --check --spec 'rxe*/1 rate>=100'
	assert_failure 1
	assert_output "rxe0/1 rate $gbps<100 Gb/s
rxe0/1: rate $rate, expected at least 100 Gb/s"
	run ibv_eventwatch --check --spec 'rxe0 link=ib' --spec 'rxe0/2'
	assert_failure 1
	assert_output 'rxe0/1 link Ethernet (+1 more)
rxe0/1: link layer Ethernet, expected InfiniBand
rxe0/2: expected, not found'
	ip link set dummy0 down
	wait_port_state DOWN
	run ibv_eventwatch --check
	assert_failure 1
	assert_output $'rxe0/1 DOWN\nrxe0/1: state DOWN, expected ACTIVE'
	run ibv_eventwatch --check -j
	assert_failure 1
	assert_equal "$(jq -c '[.healthy, .reason, .ports, .problems[0].brief]' <<<"$output")" \
		'[false,"rxe0/1 DOWN",1,"DOWN"]'
	run ibv_eventwatch --check --spec 'rxe0 state=any'
	assert_success
	ip link set dummy0 up
	wait_port_state ACTIVE
	run ibv_eventwatch --check
	assert_success
}

@test "--check with history: flaps from a capture or the watcher's state, in the window; a fatal event" {
	C=$BATS_TEST_TMPDIR/cap.jsonl
	S=$BATS_TEST_TMPDIR/state
	start_watch -w "$C" --metrics-file "$M" --metrics-state "$S"
	flap 3
	wait_count "$C" '"event":"PORT_ACTIVE"' 3
	wait_metric 'ibvevent_port_flaps_total{device="rxe0",port="1"}' 3
	for history in "-r $C" "--metrics-state $S"; do
		# shellcheck disable=SC2086 # two words each
		run ibv_eventwatch --check $history --spec 'rxe0/1 flaps<=2'
		assert_failure 1
		assert_output $'rxe0/1 3 flaps\nrxe0/1: 3 flaps in the window, at most 2'
		# shellcheck disable=SC2086
		run ibv_eventwatch --check $history --spec 'rxe0/1 flaps<=3'
		assert_success
	done
	# flaps before the window do not count
	last=$(jq -r 'select(.event == "PORT_ACTIVE") | .time' "$C" | tail -n 1)
	until [ "$(date +%s)" -gt "$(($(date -d "$last" +%s) + 2))" ]; do sleep 0.2; done
	run ibv_eventwatch --check -r "$C" --since 2s --spec 'rxe0/1 flaps<=0'
	assert_success
	bg_stop watch
	# the state of another boot: said, and its flaps not held against it
	sed '1s/.*/{"boot_id":"00000000-0000-0000-0000-000000000000"}/' "$S" >"$S.old"
	not_output "$S.old" "$BATS_TEST_TMPDIR/fatal.jsonl"
	run ibv_eventwatch --check --metrics-state "$S.old" --spec 'rxe0/1 flaps<=2'
	assert_success
	assert_output --partial "was saved in another boot (boot id 00000000-0000-0000-0000-000000000000)"
	# soft-RoCE cannot raise DEVICE_FATAL: a stored record, dated now
	printf '{"time":"%s","device":"rxe0","port":null,"event":"DEVICE_FATAL"}\n' \
		"$(date -u +%FT%TZ)" >"$BATS_TEST_TMPDIR/fatal.jsonl"
	run ibv_eventwatch --check -r "$BATS_TEST_TMPDIR/fatal.jsonl"
	assert_failure 1
	assert_line --index 0 'rxe0 DEVICE_FATAL'
	assert_line --index 1 --regexp '^rxe0: DEVICE_FATAL at [0-9T:.-]+Z$'
	printf '{"time":"%s","device":"rxe0","port":null,"event":"DEVICE_FATAL"}\n' \
		"$(date -u -d '1 hour ago' +%FT%TZ)" >"$BATS_TEST_TMPDIR/fatal.jsonl"
	run ibv_eventwatch --check -r "$BATS_TEST_TMPDIR/fatal.jsonl" --since 10m
	assert_success
}

# open_lines TRACE DEV UVERBS: the opens and accesses of DEV's sysfs
# directory or its uverbs node in an strace output. One is not ours:
# libibverbs' device list (ibv_get_device_list) looks at every device's
# device/modalias to find its driver (on 6.12; on 6.1 the netlink answer
# names the driver). A static attribute of the parent device, no firmware
# access; the man page says so.
open_lines() {
	grep -E "(open|openat|access)\(.*(/infiniband/$2/|/infiniband/$2\"|/dev/infiniband/$3\")" "$1" |
		grep -v "\"/sys/class/infiniband/$2/device/modalias\"" || true
}

# traced OUT CMD...: CMD under strace, its opens and accesses in OUT.
# LeakSanitizer cannot run under ptrace and ends an ASan program with
# status 86 (seen on CI), so these runs check no leaks: the rest of the
# sanitized suite does.
traced() {
	local out=$1
	shift
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:detect_leaks=0} \
		strace -f -o "$out" -e trace=open,openat,access "$@"
}

@test "an excluded device is never opened nor read: watcher, dashboard, --check, -l (strace)" {
	ip link add dummy1 type dummy
	ip link set dummy1 up
	rdma link add rxe1 type rxe netdev dummy1
	wait_port_state ACTIVE rxe1
	u0="" u1=""
	for u in /sys/class/infiniband_verbs/uverbs*; do
		case $(cat "$u/ibdev") in
		rxe0) u0=${u##*/} ;;
		rxe1) u1=${u##*/} ;;
		esac
	done
	[ -n "$u0" ] && [ -n "$u1" ]
	T=$BATS_TEST_TMPDIR/trace
	printf 'rxe*/1\nexclude rxe1\n' >"$BATS_TEST_TMPDIR/spec"
	# each command traced twice: without exclusion it does touch rxe1
	# (so the trace can see it), with it, never
	for excl in no yes; do
		x=()
		[ $excl = yes ] && x=(--exclude-device 'rxe[1-9]')
		traced "$T.watch.$excl" \
			ibv_eventwatch -q -t 2 --metrics-file "$M" "${x[@]}" >/dev/null
		traced "$T.top.$excl" \
			ibv_eventtop -b -n 2 -s 0.5 "${x[@]}" >/dev/null
		traced "$T.check.$excl" ibv_eventwatch --check "${x[@]}"
		traced "$T.list.$excl" \
			ibv_eventwatch -l "${x[@]}" >"$BATS_TEST_TMPDIR/list.$excl"
	done
	# -l lists what it may: rxe1 only when not excluded
	grep -q '^rxe1' "$BATS_TEST_TMPDIR/list.no"
	run -0 grep -c '^rxe' "$BATS_TEST_TMPDIR/list.yes"
	assert_output 1
	traced "$T.spec.yes" \
		ibv_eventwatch --check --spec-file "$BATS_TEST_TMPDIR/spec"
	for cmd in watch top check list; do
		[ -n "$(open_lines "$T.$cmd.no" rxe1 "$u1")" ] ||
			fail "$cmd without --exclude-device: no open of rxe1 in the trace"
	done
	for cmd in watch top check spec list; do
		run -0 open_lines "$T.$cmd.yes" rxe1 "$u1"
		assert_output ''
		# and rxe0 is read as before
		[ -n "$(open_lines "$T.$cmd.yes" rxe0 "$u0")" ] ||
			fail "$cmd: rxe0 not opened or read"
	done
	# the watcher and the dashboard opened rxe0's uverbs node, --check none
	grep -q "/dev/infiniband/$u0\"" "$T.watch.yes"
	grep -q "/dev/infiniband/$u0\"" "$T.top.yes"
	run -1 grep -c '/dev/infiniband/uverbs' "$T.check.yes"
	assert_output 0
	# the metrics have no series of it either
	run -1 grep -c 'device="rxe1"' "$M"
	assert_output 0
}
