#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The counters source on soft-RoCE: what rxe0/1's error counters did
# around a link down, as its records say it, against what the test reads of
# sysfs itself. No option of the commands asks for the source yet (the
# autopsy's will): build/helpers/sources adds it by name, beside the
# sources named, and no other.

load ../test_helper

P=/sys/class/infiniband/rxe0/ports/1/hw_counters

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

# start_sources NAME...: the helper with those sources, ready; SOUT its
# records, SPID its pid.
start_sources() {
	SOUT=$BATS_TEST_TMPDIR/sources.out
	bg_start sources 0 "$BUILD/helpers/sources" "$@" >"$SOUT"
	SPID=$BG_LAST
	wait_for "${BG_ERR[sources]}" '^sources: watching' 60
}

# snapshot: every file of rxe0/1's hw_counters, read now, as a JSON object
# keyed as the records key them (no process per file: under emulation
# each costs a second).
snapshot() {
	local f v json=
	for f in "$P"/*; do
		read -r v <"$f"
		json+=${json:+,}\"hw_counters/${f##*/}\":$v
	done
	echo "{$json}"
}

# agrees RECORD A B: a record's counters against snapshots A then B: each
# counter it names moved that much, and link_downed is in it when it moved.
agrees() {
	local bad
	bad=$(jq -nc --argjson r "$1" --argjson a "$2" --argjson b "$3" '
		[($r | to_entries[] | select($b[.key] - $a[.key] != .value) |
			"\(.key) +\(.value), sysfs +\($b[.key] - $a[.key])"),
		 ("hw_counters/link_downed" | select($b[.] - $a[.] > 0 and
			$r[.] != $b[.] - $a[.]) | "\(.) moved, not said")]')
	[ "$bad" = '[]' ] || fail "the record $1 against sysfs: $bad"
}

# downup: dummy0 down, the "before" record N, up, the "since" record N.
downup() {
	ip link set dummy0 down
	wait_port_state DOWN
	wait_count "$SOUT" '"phase":"before"' "$1"
	ip link set dummy0 up
	wait_port_state ACTIVE
	wait_count "$SOUT" '"phase":"since"' "$1"
}

@test "a link down: COUNTERS_MOVED before with what moved (link_downed), since at PORT_ACTIVE; a device removed and back" {
	start_sources devices hotplug counters
	s0=$(snapshot)
	ip link set dummy0 down
	wait_port_state DOWN
	wait_for "$SOUT" '"phase":"before"'
	s1=$(snapshot)
	ip link set dummy0 up
	wait_port_state ACTIVE
	wait_for "$SOUT" '"phase":"since"'
	s2=$(snapshot)
	# soft-RoCE counts each down in link_downed (6.1 and 6.12), once
	assert_equal "$(jq -nc --argjson a "$s0" --argjson b "$s1" \
		'$b["hw_counters/link_downed"] - $a["hw_counters/link_downed"]')" 1
	before=$(jq -c 'select(.phase == "before") | .counters' "$SOUT")
	since=$(jq -c 'select(.phase == "since") | .counters' "$SOUT")
	agrees "$before" "$s0" "$s1"
	agrees "$since" "$s1" "$s2"
	assert_equal "$before" '{"hw_counters/link_downed":1}'
	# (nothing moved while it was down: the down's move is not told twice)
	assert_equal "$since" '{}'
	run jq -c 'select(.source == "counters") | [.device, .port, .severity]' "$SOUT"
	assert_output $'["rxe0",1,"warning"]\n["rxe0",1,"info"]'
	# the device removed: its sysfs was still there, nothing had moved
	rdma link delete rxe0
	wait_count "$SOUT" '"event":"COUNTERS_MOVED"' 3
	rdma link add rxe0 type rxe netdev dummy0
	wait_port_state ACTIVE
	wait_for "$SOUT" '"event":"DEVICE_ADDED"'
	# the device that came is sampled as it comes: its first down is told
	s3=$(snapshot)
	downup 2
	s4=$(snapshot)
	bg_stop sources
	collect "helpers/sources devices hotplug counters" "$SOUT"
	agrees "$(jq -c 'select(.phase == "before") | .counters' "$SOUT" | tail -n 1)" "$s3" "$s4"
	# (NETDEV_ATTACH where hot-plug is netlink's, 6.12)
	run jq -r 'select(.event != "NETDEV_ATTACH") |
		[.event, .phase // empty] | join(" ")' "$SOUT"
	assert_output "PORT_ERR
COUNTERS_MOVED before
PORT_ACTIVE
COUNTERS_MOVED since
DEVICE_REMOVED
COUNTERS_MOVED before
DEVICE_ADDED
PORT_ERR
COUNTERS_MOVED before
PORT_ACTIVE
COUNTERS_MOVED since"
	run jq -c 'select(.event == "COUNTERS_MOVED") | .counters' "$SOUT"
	assert_line --index 2 '{}'
	assert_line --index 3 '{"hw_counters/link_downed":1}'
	# sample_us: the down's sample to the port's return, within the wall time
	run jq -r 'select(.phase == "since") | .sample_us' "$SOUT"
	for us in "${lines[@]}"; do
		[ "$us" -gt 0 ] && [ "$us" -lt 60000000 ] || fail "since: sample_us $us"
	done
}

@test "an idle counters source makes no system call over 10 s; its timer ticks once a minute" {
	start_sources devices counters
	# records made put the timer a minute away again
	downup 1
	fd=$(grep -l '^it_interval: (60, 0)' /proc/"$SPID"/fdinfo/* | sed 's|.*/||')
	[ "$(wc -w <<<"$fd")" = 1 ] || fail "timerfds of 60 s: '$fd'"
	run grep '^it_value' /proc/"$SPID"/fdinfo/"$fd"
	[[ $output =~ ^it_value:\ \(([0-9]+), ]] && [ "${BASH_REMATCH[1]}" -lt 60 ] &&
		[ "$output" != 'it_value: (0, 0)' ] || fail "the timer's next tick: $output"
	trace=$BATS_TEST_TMPDIR/strace
	bg_start strace 130 strace -f -s 256 -p "$SPID" -o "$trace"
	wait_for "${BG_ERR[strace]}" "Process $SPID attached"
	sleep 10
	cp "$trace" "$trace.idle"
	# then a down, to prove strace was attached and seeing: its record
	# written, the port's counters read
	ip link set dummy0 down
	wait_port_state DOWN
	wait_for "$trace" '^[0-9]* *write\(1, .*COUNTERS_MOVED' 30
	bg_stop strace 130 INT
	grep -q "openat(.*$P/link_downed" "$trace" || fail "no read of link_downed traced"
	# strace's own attach shows the poll being resumed; nothing else ran
	run -1 grep -v -e 'restart_syscall' -e '^[0-9]* *+++' -e '^[0-9]* *---' "$trace.idle"
	assert_output ''
	bg_stop sources
	collect "helpers/sources devices counters" "$SOUT"
}
