#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The peer of each port, from a real OpenSM's subnet administrator on the
# simulated fabric of test/sm/fabric.net: HostWatch's port 1 is cabled to
# SwitchL's port 2.

load ../test_helper
load fabric

setup() {
	ibve_setup
	fabric_start
}

teardown() {
	local rc=0
	[ -z "${BG_PID[resub]:-}" ] || bg_stop resub 0 || rc=1
	watch_stop || rc=1
	fabric_stop || rc=1
	ibve_teardown || rc=1
	return $rc
}

# ib_peer HOST: the far end of HOST's port 1 as infiniband-diags'
# ibnetdiscover sees it: "GUID PORT NAME", the GUID in 16 hex digits.
ib_peer() {
	on HostSM ibnetdiscover -p |
		awk -v h="'$1'" '$1 == "CA" && $3 == 1 && $(NF - 3) == h {
			g = $11; sub(/^0x/, "", g); n = $(NF - 1); gsub(/\047/, "", n)
			print g, $10, n }'
}

# last_err: the last PORT_ERR record (the lookups that PORT_ACTIVE asks
# for add PEER_COUNTERS records of their own).
last_err() {
	grep '"event":"PORT_ERR"' "$R/out" | tail -n 1
}

# peer_line: the last PORT_ERR's peer as "GUID PORT NAME", like ib_peer.
peer_line() {
	last_err | jq -r '.peer | "\(.guid | gsub(":"; "")) \(.port) \(.name)"'
}

# feed_until JQ: a PORT_ERR of ibsim0 port 1 through resub's FIFO, again
# until the record's peer passes JQ (the first lookup may not be answered
# yet), for 20 s at most. PORT_ERR asks for no lookup of its own.
feed_until() {
	local end=$((SECONDS + 20)) n
	n=$(count_lines "$R/out" PORT_ERR)
	while [ $SECONDS -lt $end ]; do
		echo '{"time":"2026-11-23T10:00:00Z","device":"ibsim0","port":1,"event":"PORT_ERR"}' >&8
		n=$((n + 1))
		wait_count "$R/out" PORT_ERR "$n" 10 || return 1
		last_err | jq -e "$1" >/dev/null && return 0
		sleep 0.2
	done
	echo "# no record whose peer passes $1; the last: $(last_err)" >&3
	return 1
}

@test "a port event carries the port's peer from the SA, as ibnetdiscover sees it" {
	want=$(ib_peer HostWatch)
	[ "$want" = "0000000000200000 2 SwitchL" ] || fail "ibnetdiscover: $want"
	resub_start
	feed_until '.peer.state == "known"'
	assert_equal "$(peer_line)" "$want"
	run -0 jq -c '.peer | [.kind, .node_type, .changed]' <(last_err)
	assert_output '["ib","switch",false]'
}

@test "re-cabled to another switch port: the next lookup names the new peer, changed" {
	resub_start
	feed_until '.peer.state == "known"'
	assert_equal "$(peer_line)" "0000000000200000 2 SwitchL"
	sim 'Unlink "HostWatch"'
	sim 'Link "HostWatch"[1] "SwitchL"[5]'
	# until OpenSM's subnet has the new cable
	end=$((SECONDS + 30))
	until [ "$(ib_peer HostWatch)" = "0000000000200000 5 SwitchL" ]; do
		[ $SECONDS -lt $end ] || fail "OpenSM did not see the new cable: $(ib_peer HostWatch)"
		sleep 0.5
	done
	# what the verbs source says of a port that came back
	echo '{"time":"2026-11-23T10:00:01Z","device":"ibsim0","port":1,"event":"PORT_ACTIVE"}' >&8
	wait_for "${BG_ERR[resub]}" 'ibsim0 port 1: peer SwitchL\[5\], was SwitchL\[2\]' 20
	feed_until '.peer.port == 5'
	assert_equal "$(peer_line)" "$(ib_peer HostWatch)"
	run -0 jq -c '.peer.changed' <(last_err)
	assert_output true
}

# feed EVENT [TIME]: a record of ibsim0 port 1 through resub's FIFO, at
# TIME or the clock's now (the autopsy's windows close by the records'
# time, and the subnet source's records have the clock's).
feed() {
	echo "{\"time\":\"${2:-$(date -u +%FT%T.%3NZ)}\",\"device\":\"ibsim0\",\"port\":1,\"event\":\"$1\"}" >&8
}

# sa_linked HOST: the SA has the link from HOST's port 1 at its LID now.
sa_linked() {
	local lid
	lid=$(on "$1" ibstat | awk '/Base lid/ { print $3 }')
	[ "${lid:-0}" != 0 ] && on HostSM saquery LR "$lid/1" 2>/dev/null | grep -q ToLID
}

# perf COUNTER: the counter of SwitchL's port 2 (HostWatch's peer), as
# infiniband-diags' perfquery reads it from that switch's LID.
perf() {
	on HostSM perfquery -G 0x200000 2 | awk -F. -v c="$1:" '$1 == c { print $NF }'
}

@test "the port back: the peer's symbol errors, read from its PMA as perfquery reads them, say signal integrity on its side" {
	resub_start -a
	# the first lookup's counters are a baseline; a lookup after it says
	# what moved since (PORT_ACTIVE asks for one; none was down)
	end=$((SECONDS + 20))
	until grep -q PEER_COUNTERS "$R/out"; do
		[ $SECONDS -lt $end ] || fail "no PEER_COUNTERS: $(cat "$R/out")"
		feed PORT_ACTIVE
		sleep 1
	done
	run -0 jq -c 'select(.event == "PEER_COUNTERS") | [.peer_name, .peer_counters]' "$R/out"
	assert_line --index 0 '["SwitchL[2]",{}]'

	sim 'PerformanceSet "SwitchL"[2] PortCounters.SymbolErrorCounter=50'
	sim 'Unlink "HostWatch"'
	feed PORT_ERR
	sim 'ReLink "HostWatch"'
	end=$((SECONDS + 30))
	until sa_linked HostWatch; do
		[ $SECONDS -lt $end ] || fail "OpenSM did not take HostWatch back"
		sleep 0.5
	done
	n=$(count_lines "$R/out" PEER_COUNTERS)
	feed PORT_ACTIVE
	wait_count "$R/out" PEER_COUNTERS $((n + 1)) 20
	# a record past the back's window closes it (no lookup of its own)
	feed PKEY_CHANGE "$(date -u -d '+5 sec' +%FT%T.%3NZ)"
	wait_for "$R/out" PORT_BACK 20

	want=$(perf SymbolErrorCounter)
	assert_equal "$want" 50
	run -0 jq -r 'select(.event == "PEER_COUNTERS") | .peer_counters.symbol_error // 0' "$R/out"
	assert_line --index 1 "$want"
	# the down: nothing here decides (the peer cannot be read through a
	# port that is down); its peer named
	run -0 jq -c 'select(.event == "PORT_DOWN_CAUSE") | [.cause, .evidence]' "$R/out"
	assert_output '["unknown",["peer SwitchL[2]"]]'
	run -0 jq -r 'select(.event == "PORT_BACK") | .cause, .severity, .action, .evidence[]' "$R/out"
	assert_line --index 0 signal_integrity
	assert_line --index 1 info
	assert_line --index 2 "clean or reseat, then replace the cable or transceiver: on the peer's side, SwitchL[2]"
	assert_line --regexp "^peer's symbol_error \+$want over [0-9]+\.[0-9] s\$"
	# the records without the verdicts, replayed: the same verdicts
	bg_stop resub 0
	exec 8>&-
	grep -v '"source":"autopsy"' "$R/out" >"$R/in"
	run -0 ibv_eventwatch --autopsy -r "$R/in" -j -e PORT_DOWN_CAUSE,PORT_BACK
	assert_equal "$output" "$(grep '"source":"autopsy"' "$R/out")"
}

@test "-l --sm lists each port's peer as ibnetdiscover sees it, in JSON and text" {
	want=$(ib_peer HostWatch)
	[ -n "$want" ] || fail "ibnetdiscover names no peer of HostWatch"
	run --separate-stderr env -C "$FAB" SIM_HOST=HostWatch LD_PRELOAD="$(own_preload)" \
		ibv_eventwatch -l -j --sm
	assert_success
	assert_equal "$stderr" ''
	run -0 jq -r 'select(.device == "ibsim0") | .ports[] | select(.port == 1) |
		.peer | "\(.guid | gsub(":"; "")) \(.port) \(.name)"' <<<"$output"
	assert_output "$want"
	run --separate-stderr env -C "$FAB" SIM_HOST=HostWatch LD_PRELOAD="$(own_preload)" \
		ibv_eventwatch -l --sm
	assert_success
	assert_line --regexp '^    port 1  ACTIVE  .*  peer SwitchL\[2\]$'
}

# check SPEC: ibv_eventwatch --check --sm on HostWatch with SPEC (bats' run).
check() {
	run --separate-stderr env -C "$FAB" SIM_HOST=HostWatch LD_PRELOAD="$(own_preload)" \
		ibv_eventwatch --check --sm --brief --spec "$1"
}

@test "--check --sm: peer= against the SA's answer; the wrong peer fails with one line naming both" {
	# under ibsim sysfs shows no port state: state=any
	check 'ibsim0/1 state=any peer=SwitchL:3'
	assert_failure 1
	assert_equal "$stderr" ''
	assert_output 'ibsim0/1 peer SwitchL[2], expected SwitchL[3]'
	check 'ibsim0/1 state=any peer=SwitchR'
	assert_failure 1
	assert_output 'ibsim0/1 peer SwitchL[2], expected SwitchR'
	check 'ibsim0/1 state=any peer=Switch?:2'
	assert_success
	assert_output ''
	check 'ibsim0/1 state=any peer=SwitchL'
	assert_success
}
