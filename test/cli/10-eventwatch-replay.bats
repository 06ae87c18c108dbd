#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# ibv_eventwatch on stored captures: every event type the hardware can
# raise and soft-RoCE cannot, every filter and format, through the same
# decoding and output code as live events.

load ../test_helper

setup() {
	ibve_setup
	export TZ=UTC
	FABRIC=$CAPTURES/ib-fabric.jsonl
}

@test "text replay of every verbs event type matches the stored output" {
	run ibv_eventwatch -r "$FABRIC"
	assert_success
	diff -u "$EXPECTED/ib-fabric.txt" <(echo "$output")
	# independent of the stored file: one line per record, in order, each
	# with the record's device, port and event as the capture has them
	printf '%s\n' "${lines[@]}" | awk '{ print $3, $4 }' >"$BATS_TEST_TMPDIR/seen"
	run -0 jq -r '"\(.device)\(if .port then "/\(.port)" else "" end) \(.event)"' "$FABRIC"
	diff -u <(echo "$output") "$BATS_TEST_TMPDIR/seen"
	# the objects: queue pair numbers in hex, handles as they are
	run -0 ibv_eventwatch -r "$FABRIC" -e qp
	assert_line --partial 'QP_FATAL             error   local catastrophic error on the queue pair; it moved to the error state (qp 0x00126b, handle 16)'
	run -0 ibv_eventwatch -r "$FABRIC" -e WQ_FATAL,CQ_ERR,DEVICE_FATAL
	assert_line --partial 'CQ_ERR               error   completion queue overrun: completions were lost (cq handle 5)'
	assert_line --partial 'WQ_FATAL             error   catastrophic error on the work queue; it moved to the error state (wq 0x000321, handle 3)'
	assert_line --regexp '^2026-03-02 11:30:00.000\+00:00 mlx5_1 +DEVICE_FATAL +fatal '
}

@test "text times carry their zone's offset from UTC; JSON stays in UTC" {
	# the capture's first record is 2026-03-02T08:15:00Z; POSIX zone
	# strings, so no time zone database is needed
	TZ=IST-5:30 run -0 ibv_eventwatch -r "$FABRIC" -n 1
	assert_output '2026-03-02 13:45:00.000+05:30 mlx5_0/1   PORT_ERR             error   port left the active state: link down or lost'
	TZ=NST3:30NDT,M3.2.0,M11.1.0 run -0 ibv_eventwatch -r "$FABRIC" -n 1
	assert_output --partial '2026-03-02 04:45:00.000-03:30 mlx5_0/1 '
	TZ=NST3:30NDT,M3.2.0,M11.1.0 run -0 ibv_eventwatch -r "$FABRIC" -n 1 -j
	assert_output --partial '"time":"2026-03-02T08:15:00.000000000Z"'
	# the batch table's header too
	TZ=IST-5:30 run -0 ibv_eventtop -b -r "$FABRIC"
	assert_line --index 0 --regexp '^ibv_eventtop - 2026-03-02 [0-9:]{8}\+05:30 - replay - '
}

@test "JSON Lines replay matches the stored output, one object per line" {
	run ibv_eventwatch -j -r "$FABRIC"
	assert_success
	diff -u "$EXPECTED/ib-fabric.jsonl" <(echo "$output")
	[ "$(jq -c . <<<"$output" | wc -l)" -eq "$(wc -l <"$FABRIC")" ]
	# independent of the stored file: every field the capture gives is
	# written back as it was
	facts='[.time, .device, .port, .event, .code, .qp_num, .wq_num, .handle, .chardev, .netdev, .netdev_index, .node_guid]'
	diff -u <(jq -c "$facts" "$FABRIC") <(jq -c "$facts" <<<"$output")
	# and what the table adds: classes and severities of a few
	run -0 jq -r 'select(.event == "PORT_ERR" or .event == "DEVICE_FATAL" or .event == "QP_ACCESS_ERR" or .event == "SRQ_LIMIT_REACHED") | "\(.event) \(.class) \(.severity) \(.affiliated)"' <<<"$output"
	assert_output $'PORT_ERR port error false\nQP_ACCESS_ERR qp error true\nSRQ_LIMIT_REACHED srq warning true\nDEVICE_FATAL device fatal false'
}

@test "the capture covers all 20 verbs event types of rdma-core 44" {
	run -0 jq -r 'select(.source == "verbs" and .code < 20) | .event' \
		"$EXPECTED/ib-fabric.jsonl"
	[ "$(sort -u <<<"$output" | wc -l)" -eq 20 ]
}

@test "round trip: --json output replayed gives identical output, text and JSON" {
	ibv_eventwatch -j -r "$FABRIC" >"$BATS_TEST_TMPDIR/once.jsonl"
	ibv_eventwatch -j -r "$BATS_TEST_TMPDIR/once.jsonl" >"$BATS_TEST_TMPDIR/twice.jsonl"
	cmp "$BATS_TEST_TMPDIR/once.jsonl" "$BATS_TEST_TMPDIR/twice.jsonl"
	diff -u "$EXPECTED/ib-fabric.txt" <(ibv_eventwatch -r "$BATS_TEST_TMPDIR/once.jsonl")
}

@test "standard input replays with -r -" {
	run ibv_eventwatch -j -r - <"$FABRIC"
	assert_success
	diff -u "$EXPECTED/ib-fabric.jsonl" <(echo "$output")
}

@test "-e by name, any case, with or without IBV_EVENT_" {
	run ibv_eventwatch -r "$FABRIC" -e ibv_event_sm_change,Port_Err
	assert_success
	assert_equal "$(grep -c . <<<"$output")" 3
	refute_output --regexp 'PORT_ACTIVE|LID_CHANGE'
}

@test "-e by class" {
	run ibv_eventwatch -j -r "$FABRIC" -e qp
	assert_success
	run -0 jq -r .class <<<"$output"
	assert_equal "$(sort -u <<<"$output")" qp
	assert_equal "${#lines[@]}" 8
}

@test "-e by severity threshold, and -x to take some back" {
	run ibv_eventwatch -j -r "$FABRIC" -e 'severity>=error'
	assert_success
	run -0 jq -r .severity <<<"$output"
	assert_equal "$(sort -u <<<"$output" | tr '\n' ' ')" "error fatal "
	run ibv_eventwatch -r "$FABRIC" -e 'severity>=error' -x qp,cq
	assert_success
	assert_equal "$(grep -c . <<<"$output")" 4
	refute_output --partial QP_
}

@test "-e by source, and unknown events by UNKNOWN(n) or class" {
	run -0 ibv_eventwatch -r "$FABRIC" -e hotplug
	assert_equal "$(grep -c . <<<"$output")" 3
	run -0 ibv_eventwatch -r "$FABRIC" -e 'UNKNOWN(21)'
	assert_equal "$(grep -c . <<<"$output")" 1
	run -0 ibv_eventwatch -r "$FABRIC" -e unknown
	assert_output --partial 'UNKNOWN(21)'
	refute_output --partial DEVICE_SPEED_CHANGE # known now: class device
}

@test "-d and -i select devices and ports; device-wide events pass -i" {
	run -0 ibv_eventwatch -j -r "$FABRIC" -d mlx5_0
	run -0 jq -r .device <<<"$output"
	assert_equal "$(sort -u <<<"$output")" mlx5_0
	run ibv_eventwatch -r "$FABRIC" -d mlx5_1 -i 2
	assert_success
	refute_output --regexp 'mlx5_1/1'
	assert_output --partial DEVICE_FATAL
}

@test "-n stops after N events that pass the filters" {
	run ibv_eventwatch -r "$FABRIC" -n 3 -e port
	assert_success
	assert_equal "${#lines[@]}" 3
	assert_line --index 2 --partial LID_CHANGE
}

@test "--expect: 0 when the event is in the replay, 1 when the replay ends first" {
	run ibv_eventwatch -r "$FABRIC" --expect DEVICE_FATAL -q
	assert_success
	assert_line --index -1 --partial DEVICE_FATAL
	run ibv_eventwatch -r "$FABRIC" --expect PORT_ERR -d mlx5_1
	assert_failure 1
	run ibv_eventwatch -r "$FABRIC" --expect 'severity>=fatal' -e port
	assert_failure 1
}

# A pipe that stays open and says nothing, as a quiet live source would.
quiet_pipe() {
	mkfifo "$BATS_TEST_TMPDIR/quiet"
	exec 5<>"$BATS_TEST_TMPDIR/quiet"
}

@test "--expect with --timeout on a live pipe: 1 when nothing comes in time" {
	quiet_pipe
	# the pipe never ends: without its -t 1 the watch would not either
	# (timeout ends it with 124)
	run timeout 60 ibv_eventwatch -r - --expect PORT_ERR -t 1 <"$BATS_TEST_TMPDIR/quiet"
	assert_failure 1
	exec 5>&-
}

@test "--timeout alone ends a quiet watch with status 0" {
	quiet_pipe
	run timeout 60 ibv_eventwatch -r - -t 0.5 <"$BATS_TEST_TMPDIR/quiet"
	assert_success
	assert_output ''
	exec 5>&-
}

@test "events arrive as they are written to a pipe, not when the pipe closes" {
	fifo=$BATS_TEST_TMPDIR/fifo
	mkfifo "$fifo"
	exec 5<>"$fifo"
	bg_start watch 0 ibv_eventwatch -j -r - <"$fifo" >"$BATS_TEST_TMPDIR/out" 5>&-
	head -n 1 "$FABRIC" >&5
	wait_for "$BATS_TEST_TMPDIR/out" PORT_ERR 30
	sed -n 2p "$FABRIC" >&5
	wait_for "$BATS_TEST_TMPDIR/out" PORT_ACTIVE 30
	exec 5>&-
	# the end of the pipe ends the replay, with status 0
	bg_wait watch 0
	assert_equal "$(wc -l <"$BATS_TEST_TMPDIR/out")" 2
}

@test "-w records every event, filtered or not, while printing the filtered ones" {
	cap=$BATS_TEST_TMPDIR/cap.jsonl
	run ibv_eventwatch -r "$FABRIC" -e PORT_ERR -w "$cap"
	assert_success
	assert_equal "${#lines[@]}" 1
	diff -u "$EXPECTED/ib-fabric.jsonl" "$cap"
	ibv_eventwatch -r "$FABRIC" -e PORT_ERR -w "$cap" >/dev/null
	[ "$(wc -l <"$cap")" -eq $((2 * $(wc -l <"$FABRIC"))) ] # appends
}

# both ARGS...: ibv_eventwatch ARGS with every line parsed (-w takes every
# record: the prefilter is off) and with the prefilter: the same records,
# status and stderr; but malformed lines the prefilter skipped unread are
# not named, and where it names none, its status is 0.
both() {
	local d=$BATS_TEST_TMPDIR/both fs=0 ps=0
	ibv_eventwatch "$@" -w /dev/null >"$d.full" 2>"$d.full.err" || fs=$?
	ibv_eventwatch "$@" >"$d.pre" 2>"$d.pre.err" || ps=$?
	diff -u "$d.full" "$d.pre" || return 1
	case $fs in
	0) [ "$ps" = 0 ] && diff -u "$d.full.err" "$d.pre.err" ;;
	4)
		# every line it names, the full parse names
		diff -u <(comm -13 <(sort "$d.full.err") <(sort "$d.pre.err")) /dev/null &&
			if [ -s "$d.pre.err" ]; then [ "$ps" = 4 ]; else [ "$ps" = 0 ]; fi
		;;
	*) false ;;
	esac || {
		echo "# status $fs / $ps; stderr:" >&3
		cat "$d.full.err" "$d.pre.err" | sed 's/^/#   /' >&3
		return 1
	}
}

@test "the prefilter: the same records as the full parse; a malformed line it skips is not named" {
	local terms=(PORT_ERR qp 'severity>=error' kernel mlx5 'UNKNOWN(21)' device) i=0 f
	for cap in "$FABRIC" "$CAPTURES"/*.jsonl; do
		for f in "${terms[@]}"; do
			# under memcheck (a second a run) each capture with two of
			# the terms, each term still on several captures: the
			# paths, not every pair again
			if [ "${IBVEVENT_VALGRIND:-}" = 1 ]; then
				case $f in "${terms[i % 7]}" | "${terms[(i + 3) % 7]}") ;; *) continue ;; esac
			fi
			both -r "$cap" -j -e "$f" || fail "$cap -e $f: not the same"
		done
		i=$((i + 1))
		both -r "$cap" -j -d mlx5_1 -x port || fail "$cap -d mlx5_1 -x port: not the same"
	done
	bad=$BATS_TEST_TMPDIR/bad.jsonl
	not_output "$bad"
	{
		echo '{"time":"yesterday","device":"rxe0","port":1,"event":"PORT_ACTIVE"}'
		echo '{"time":"2026-05-01T10:00:00Z","device":"rxe0","port":1,"event":"PORT_ERR"}'
	} >"$bad"
	# the bad line is a PORT_ACTIVE: -e PORT_ERR skips it unread
	run ibv_eventwatch -r "$bad" -e PORT_ERR
	assert_success
	assert_output --partial 'rxe0/1     PORT_ERR'
	refute_output --partial 'yesterday'
	# when it may be wanted, it is read, and named
	run ibv_eventwatch -r "$bad" -e port
	assert_failure 4
	assert_line --index 0 "$bad:1: \"time\" is not an RFC 3339 time: \"yesterday\""
	run ibv_eventwatch -r "$bad" -e PORT_ERR -w /dev/null
	assert_failure 4
}

@test "malformed lines: FILE:LINE: reason on stderr, good lines kept, status 4" {
	run --separate-stderr ibv_eventwatch -r "$CAPTURES/malformed.jsonl" -j
	assert_failure 4
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --partial '"event":"PORT_ERR"'
	assert_line --index 1 --partial '"time":"2026-03-02T08:15:05.000000000Z"'
	f=$CAPTURES/malformed.jsonl
	[ "$stderr" = "$f:2: not a JSON object
$f:3: needs \"event\" or \"code\"
$f:4: \"time\" is not an RFC 3339 time: \"yesterday\"
$f:6: \"port\" must be a port number or null
$f:7: missing \"port\"
$f:8: text after the JSON object
$f:9: not a JSON object" ]
}

@test "a malformed line on standard input is named <stdin>" {
	run --separate-stderr ibv_eventwatch -r - <<<'{"time":'
	assert_failure 4
	[ "$stderr" = '<stdin>:1: incomplete JSON' ]
}

@test "an empty capture prints nothing and succeeds" {
	run ibv_eventwatch -r /dev/null
	assert_success
	assert_output ''
}

@test "names with control characters print escaped in text, valid in JSON" {
	line='{"time":"2026-03-02T08:15:00Z","device":"ev\u001b[2Jil","port":1,"event":"PORT_ERR"}'
	run ibv_eventwatch -r - <<<"$line"
	assert_success
	assert_output --partial 'ev\x1b[2Jil/1'
	[[ $output != *$'\e'* ]]
	run -0 ibv_eventwatch -j -r - <<<"$line"
	assert_output --partial '"device":"ev\u001b[2Jil"'
}

@test "colour only on a terminal, and never with --no-color or NO_COLOR" {
	run -0 script -qec "ibv_eventwatch -r '$FABRIC' -n 1" /dev/null
	assert_output --partial $'\e[31merror'
	run -0 script -qec "ibv_eventwatch --no-color -r '$FABRIC' -n 1" /dev/null
	refute_output --partial $'\e['
	run -0 script -qec "NO_COLOR=1 ibv_eventwatch -r '$FABRIC' -n 1" /dev/null
	refute_output --partial $'\e['
	run -0 ibv_eventwatch -r "$FABRIC" -n 1
	refute_output --partial $'\e['
}

@test "NETDEV_DETACH, which soft-RoCE never raises, replays, filters and counts" {
	cap=$CAPTURES/hotplug.jsonl
	run ibv_eventwatch -r "$cap" -e hotplug
	assert_success
	assert_line --index 0 '2026-05-11 14:02:00.000+00:00 mlx5_bond_0/1 NETDEV_DETACH        warning network device detached from the port'
	assert_line --index 1 '2026-05-11 14:02:01.250+00:00 mlx5_bond_0/1 NETDEV_ATTACH        info    network device attached to the port (netdev bond0)'
	assert_equal "${#lines[@]}" 2
	run -0 ibv_eventwatch -j -r "$cap" -e NETDEV_DETACH
	assert_equal "$(jq -r '[.device, .port, .source, .class, .netdev // "-"] | @tsv' <<<"$output")" $'mlx5_bond_0\t1\thotplug\tport\t-'
	run -0 ibv_eventtop -b -j -r "$cap"
	assert_equal "$(jq -r '.rows[] | "\(.device) \(.port) \(.counts.other) \(.counts.link_down) \(.state)"' <<<"$output")" 'mlx5_bond_0 1 2 1 ACTIVE'
	ibv_eventwatch -q -r "$cap" --metrics-file "$BATS_TEST_TMPDIR/m.prom" >/dev/null
	run -0 grep -F 'event="NETDEV_DETACH"' "$BATS_TEST_TMPDIR/m.prom"
	assert_line 'ibvevent_events_total{device="mlx5_bond_0",port="1",event="NETDEV_DETACH",severity="warning"} 1'
}

@test "a RoCE port's event names its netdev, in text and JSON, and replays" {
	# as the watcher writes a PORT_ERR of a RoCE port (the guest's suite
	# checks the live one)
	rec='{"time":"2026-05-11T14:02:00.000000000Z","device":"mlx5_2","port":1,"event":"PORT_ERR","code":10,"class":"port","severity":"error","affiliated":false,"source":"verbs","node_guid":"1070:fd03:00c5:9a42","netdev":"enp65s0f0","netdev_index":4}'
	run -0 ibv_eventwatch -r - <<<"$rec"
	assert_output '2026-05-11 14:02:00.000+00:00 mlx5_2/1   PORT_ERR             error   port left the active state: link down or lost (netdev enp65s0f0)'
	run -0 ibv_eventwatch -j -r - <<<"$rec"
	assert_output "$rec"
}

@test "a port's peer replays as recorded: JSON byte for byte, text compact, a capture of it the same" {
	F=$CAPTURES/peers.jsonl
	run -0 ibv_eventwatch -r "$F" -j
	diff -u "$F" <(echo "$output")
	run -0 ibv_eventwatch -r "$F"
	assert_line --index 0 --partial 'link down or lost (peer SwitchL[2])'
	assert_line --index 1 --partial 'ready for traffic (peer now SwitchL[5])'
	assert_line --index 2 --partial '(peer none (no SM))'
	assert_line --index 3 --partial '(peer leaf1[Ethernet7])'
	# a capture of the replay keeps them
	run -0 ibv_eventwatch -r "$F" -w "$BATS_TEST_TMPDIR/again.jsonl"
	diff -u "$F" "$BATS_TEST_TMPDIR/again.jsonl"
	# what is not a peer is refused, named
	not_output "$BATS_TEST_TMPDIR/bad.jsonl" # invalid on purpose
	sed 's/"state":"known"/"state":"maybe"/' "$F" >"$BATS_TEST_TMPDIR/bad.jsonl"
	run --separate-stderr ibv_eventwatch -r "$BATS_TEST_TMPDIR/bad.jsonl"
	assert_failure 4
	[[ $stderr == *'"peer": kind ib or lldp, state unknown, none or known'* ]]
}
