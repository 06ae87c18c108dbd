#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# ibv_eventtop live on soft-RoCE: batch snapshots, real hw counters, rows
# that come and go with the device, and the screen through tmux.
# One kernel, the ASan guest's (make check): the dashboard draws what the
# library's sources read, and those run on both kernels in the other files.

load ../test_helper

# A storm counted to its end (a few seconds under emulation).
STORM=${IBVEVENT_STORM:-100000}

setup() {
	ibve_setup
	require_guest
	export TZ=UTC
}

teardown() {
	local rc=0
	tm_stop || rc=1
	ibve_teardown || rc=1
	restore_rxe
	return $rc
}

@test "batch: rxe0 port 1 ACTIVE; a link flap counts one down, one up; link_downed moves" {
	out=$BATS_TEST_TMPDIR/top.json
	bg_start top 0 ibv_eventtop -b -j -s 0.5 >"$out"
	wait_for "$out" '"device":"rxe0"'
	before=$(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/link_downed)
	ip link set dummy0 down
	wait_for "$out" '"state":"DOWN"'
	ip link set dummy0 up
	wait_for "$out" '"link_up":1'
	# a refresh that shows the port back
	wait_for "$out" '"state":"ACTIVE".*"link_up":1'
	bg_stop top 0
	run jq -c 'select(.rows[0].counts.link_up == 1) | .rows[0] | [.device, .port, .state, .phys_state, .link_layer, .counts.link_down, .counts.link_up, .total, .last_event]' "$out"
	assert_line --index -1 '["rxe0",1,"ACTIVE","LinkUp","Ethernet",1,1,2,"PORT_ACTIVE"]'
	# the first snapshot: the port as it was, nothing counted
	run jq -c 'select(.rows | length > 0) | .rows[0] | [.state, .total]' "$out"
	assert_line --index 0 '["ACTIVE",0]'
	# the real hw counter moved by as much as sysfs says
	after=$(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/link_downed)
	[ "$after" -gt "$before" ]
	run jq -r '.rows[0].counters[] | select(.name == "link_downed") | "\(.hw) \(.delta)"' <(tail -n 1 "$out")
	assert_output "true $((after - before))"
	run jq -r '.host, .kernel' <(tail -n 1 "$out")
	assert_line --index 1 "$(uname -r)"
}

@test "batch text: the moved counter is named in its column" {
	out=$BATS_TEST_TMPDIR/top.txt
	bg_start top 0 ibv_eventtop -b -s 0.5 >"$out"
	wait_for "$out" '^rxe0 '
	ip link set dummy0 down
	wait_for "$out" '^rxe0 +1 DOWN +Disabled .* link_downed\+1$'
}

@test "no device yet: it waits; rows come and go with the device; its removal never waits for the view" {
	out=$BATS_TEST_TMPDIR/top.json
	timeout 5 rdma link delete rxe0 || fail "rdma link delete rxe0 blocked"
	bg_start top 0 ibv_eventtop -b -j -s 0.3 >"$out"
	wait_for "${BG_ERR[top]}" '^ibv_eventtop: no RDMA devices yet: waiting for them to appear$'
	wait_for "$out" '"ports":0'
	rdma link add rxe0 type rxe netdev dummy0
	wait_port_state ACTIVE
	wait_for "$out" '"device":"rxe0","port":1,"state":"ACTIVE"'
	timeout 5 rdma link delete rxe0 || fail "rdma link delete rxe0 blocked"
	wait_for "$out" '"ports":0'
	rdma link add rxe0 type rxe netdev dummy0
	wait_port_state ACTIVE
	before=$(count_lines "$out" '"device":"rxe0"')
	wait_count "$out" '"device":"rxe0"' $((before + 1))
}

@test "the live screen: a flap shows at once; help, sort, filter, pause, reset, resize, quit" {
	TM_COLS=200 tm_start "ibv_eventtop -s 0.5"
	tm_wait '^rxe0 +1 ACTIVE +- +0 - +- +0 +0 .* LinkUp +Eth '
	ip link set dummy0 down
	# DOWN SINCE, FLAPS, LAST EVENT, AGE, TOTAL, EV/MIN, then the one
	# count that is not 0: DOWN
	tm_wait '^rxe0 +1 (ACTIVE|DOWN) +[^ ]+ +0 PORT_ERR +[0-9]+s +1 +1 +1 '
	tm_wait '^DEVICE +PORT STATE +DOWN SINCE FLAPS LAST EVENT +AGE +TOTAL EV/MIN +DOWN ERROR COUNTERS'
	ip link set dummy0 up
	tm_wait '^rxe0 +1 ACTIVE +- +1 PORT_ACTIVE +[0-9]+s +2 +2 +1 +1 .*link_downed\+1'
	tm_wait '^DEVICE .* EV/MIN +DOWN +UP ERROR COUNTERS'
	screen_whole
	run tm_screen
	assert_success
	assert_line --index 0 --regexp "^ ibv_eventtop - [0-9:]+ - ibvevent-vm - Linux $(uname -r | sed 's/+/\\+/g') - up "
	tm send-keys -t 0 '?'
	tm_wait 'ibv_eventtop help'
	tm send-keys -t 0 '?'
	tm_wait '^DEVICE +PORT'
	tm send-keys -t 0 '>'
	tm_wait 'sort: PORT$'
	tm send-keys -t 0 / x y z Enter
	tm_wait 'no port matches the filter'
	tm send-keys -t 0 / Escape
	tm_wait '^rxe0 +1 ACTIVE'
	tm send-keys -t 0 Space
	tm_wait 'PAUSED'
	tm send-keys -t 0 Space r
	tm_wait '^rxe0 +1 ACTIVE +- +[0-9]+ - +- +0 +0 '
	# larger: the program must learn the new size to fill it
	tm resize-window -t 0 -x 240 -y 40
	tm_wait '^DEVICE .* RATE LID/GID$'
	tm_wait_line 40 '^ q Quit  h Help'
	tm send-keys -t 0 q
	tm_wait '^EXIT=0$'
	run tm_screen
	assert_success
	refute_line --regexp '^DEVICE +PORT'
}

@test "the live screen at 80x24 and 120x40: whole lines, the columns that matter, the rest a key away" {
	TM_COLS=80 TM_LINES=24 tm_start "ibv_eventtop -s 0.5"
	tm_wait '^rxe0 +1 ACTIVE '
	ip link set dummy0 down
	tm_wait '^rxe0 +1 (ACTIVE|DOWN) .* PORT_ERR '
	ip link set dummy0 up
	tm_wait '^rxe0 +1 ACTIVE +- +1 PORT_ACTIVE '
	screen_whole
	for t in DEVICE PORT STATE FLAPS 'LAST EVENT'; do
		has_title "$t" || fail "no $t in the titles at 80 columns"
	done
	tm_wait_line 24 '^ q Quit  h Help  < > Sort  Left Right Cols'
	# the last column a key away: sorted by (< from DEVICE), it scrolls
	# into view (Right a column at a time: test/cli/30-eventtop.bats);
	# the port's address from sysfs
	gid=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0)
	tm send-keys -t 0 '<'
	tm_wait 'sort: LID/GID$'
	tm_wait '^DEVICE +PORT .* LINK +RATE LID/GID'
	# its first GID as inet_ntop(3) writes it: fe80::...:<last group>
	last=$(sed 's/.*://; s/^0*//' <<<"$gid")
	tm_wait "^rxe0 +1 .* Eth .* fe80::[0-9a-f:]*:$last\$"
	has_title 'ERROR COUNTERS MOVED' || has_title PHYS
	tm send-keys -t 0 e
	tm_wait '^ Events, newest first'
	tm_wait '^[0-9:]{8} rxe0/1 +PORT_ACTIVE '
	screen_whole
	tm resize-window -t 0 -x 120 -y 40
	tm_wait_line 40 '^ q Quit'
	for _ in $(seq 30); do tm send-keys -t 0 Left; done
	tm_wait '^DEVICE +PORT STATE +DOWN SINCE FLAPS LAST EVENT +AGE +TOTAL '
	screen_whole
	for t in DEVICE PORT STATE FLAPS 'LAST EVENT' AGE TOTAL; do
		has_title "$t" || fail "no $t in the titles at 120 columns"
	done
	tm send-keys -t 0 q
	tm_wait '^EXIT=0$'
}

# storm_lines: the event log's CQ_ERR lines (the injector's alone: 80
# columns may cut its name).
storm_lines() {
	tm_screen | grep -E '^[0-9:]{8} rxe0 +CQ_ERR '
}

# storm_count [PID]: the events the CQ_ERR line counts (of PID's).
storm_count() {
	storm_lines | grep -F "${1:+ibv_eventinject[$1]}" |
		sed -nE 's/.* storm: x([0-9,]+) in .*/\1/p' | tr -d ,
}

@test "the live screen in a storm at 80x24 and 120x40: the storm one line with its count, the flap stays, the rate, the selected event whole" {
	TM_COLS=80 TM_LINES=24 tm_start "ibv_eventtop -A -s 0.5"
	# -A loads and attaches eBPF programs: slow under emulation
	tm_wait '^rxe0 +1 ACTIVE ' 120
	ip link set dummy0 down
	tm_wait '^rxe0 +1 (ACTIVE|DOWN) .* PORT_ERR '
	ip link set dummy0 up
	tm_wait '^rxe0 +1 ACTIVE +- +1 PORT_ACTIVE '
	tm send-keys -t 0 e
	tm_wait '^[0-9:]{8} rxe0/1 +PORT_ACTIVE '
	# a storm held while the screen is looked at (SIGTERM ends it: 1)
	bg_start inject 1 ibv_eventinject -q cq-overflow --events 100000000
	IPID=$BG_LAST
	for size in 80x24 120x40; do
		tm resize-window -t 0 -x "${size%x*}" -y "${size#*x}"
		tm_wait_line "${size#*x}" '^ q Quit'
		# the storm: one line that counts its events, and counts on
		tm_wait '^[0-9:]{8} rxe0 +CQ_ERR +storm: x[0-9,]+ in [0-9.]+ s' 60
		n=$(storm_count)
		local end=$((SECONDS + 30))
		until [ "$(storm_count)" -gt "$n" ]; do
			[ $SECONDS -lt $end ] || fail "the storm's line still counts $n after 30 s"
			sleep 0.2
		done
		run -0 storm_lines
		assert_equal "${#lines[@]}" 1
		# the flap that came before it stays in view
		tm_wait '^[0-9:]{8} rxe0/1 +PORT_ACTIVE +port is active'
		tm_wait '^[0-9:]{8} rxe0/1 +PORT_ERR +port left'
		# the header's rate is not 0 while the events come
		rate=$(tm_line 2 | sed -nE 's/.* events, ([0-9.]+)\/s over 10 s.*/\1/p')
		[ -n "$rate" ] && awk "BEGIN { exit !($rate > 0) }" ||
			fail "the header's rate in a storm: '$(tm_line 2)'"
		screen_whole
	done
	# the storm's line selected (the newest), whole: its owner, its
	# object and the injector's pid, to the details' end
	tm send-keys -t 0 Tab Home
	tm_wait '^ Events, newest first - Up, Down'
	tm_wait 'ibv_eventinject\)$'
	got=$(tm_screen | awk '/^ Events, newest first/ { on = 1; next }
		on && (/^ q Quit/ || (/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] / && seen++)) { exit }
		on { sub(/^  /, " "); printf "%s", $0 }')
	[[ $got =~ ^[0-9:]{8}\ rxe0\ +CQ_ERR\ +storm:\ x[0-9,]+\ in\ [0-9.]+\ s\ ibv_eventinject\[$IPID\]\ .*\(.*pid\ $IPID\ ibv_eventinject\)$ ]] ||
		fail "the selected line: '$got'"
	screen_whole
	bg_stop inject 1
	tm send-keys -t 0 Tab
	tm_wait '^ Events, newest first$'
	# a storm of its own, to its end: every event the injector received
	# counted on its line
	t0=$SECONDS
	bg_start storm 0 ibv_eventinject -j cq-overflow --events "$STORM" >"$BATS_TEST_TMPDIR/report.json"
	IPID=$BG_LAST
	bg_wait storm 0 600
	echo "# $STORM events in $((SECONDS - t0)) s" >&3
	want=$(jq .received "$BATS_TEST_TMPDIR/report.json")
	assert_equal "$want" "$STORM"
	end=$((SECONDS + 30))
	until [ "$(storm_count "$IPID")" = "$want" ]; do
		[ $SECONDS -lt $end ] || fail "the storm's line counts $(storm_count "$IPID"), the injector received $want"
		sleep 0.2
	done
	tm send-keys -t 0 q
	tm_wait '^EXIT=0$'
}
