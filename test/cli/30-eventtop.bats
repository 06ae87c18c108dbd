#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# ibv_eventtop from stored captures: batch tables and JSON, --follow, and
# the interactive screen driven through tmux.

load ../test_helper

setup() {
	ibve_setup
	export TZ=UTC
	FABRIC=$CAPTURES/ib-fabric.jsonl
}

teardown() {
	local rc=0
	tm_stop || rc=1
	ibve_teardown || rc=1
	return $rc
}

# count_of DEVICE JQ-CONDITION: records of the capture of DEVICE matching.
count_of() {
	jq -s --arg d "$1" "map(select(.device == \$d and ($2))) | length" "$FABRIC"
}

@test "batch replay: the final state as the stored table" {
	run ibv_eventtop -b -r "$FABRIC"
	assert_success
	diff -u "$EXPECTED/top-fabric.txt" <(echo "$output"; echo)
	assert_line --index 1 --regexp "^2 devices, 2 ports, $(wc -l <"$FABRIC") events, "
}

@test "the header's rate: events a second over the last 10 s and the last minute" {
	cap=$BATS_TEST_TMPDIR/rate.jsonl
	not_output "$cap"
	# two minutes of a PORT_ERR a second, and 100 more in each of the
	# last five seconds
	for s in $(seq 0 119); do
		for _ in $(seq $((s < 115 ? 1 : 101))); do
			printf '{"time":"2026-03-02T08:%02d:%02dZ","device":"mlx5_0","port":1,"event":"PORT_ERR"}\n' $((s / 60)) $((s % 60))
		done
	done >"$cap"
	# the last 10 s: 10 + 500 events; the last minute: 60 + 500
	run -0 ibv_eventtop -b -r "$cap"
	assert_line --index 1 '1 device, 1 port, 620 events, 51.0/s over 10 s, 9.3/s over 1 min'
	# the same on the screen, at 80 columns the minute's too
	TM_COLS=80 tm_start "TZ=UTC ibv_eventtop -r '$cap'"
	tm_wait_line 2 '^ 1 device, 1 port, 620 events, 51.0/s over 10 s, 9.3/s over 1 min   sort: DEVICE$'
	# too narrow for both: the minute's goes first
	tm resize-window -t 0 -x 66 -y 24
	tm_wait_line 2 '^ 1 device, 1 port, 620 events, 51.0/s over 10 s   sort: DEVICE$'
}

@test "batch replay as JSON: one object, the stored one" {
	run ibv_eventtop -b -j -r "$FABRIC"
	assert_success
	diff -u "$EXPECTED/top-fabric.json" <(echo "$output")
	# independent of the stored object: each device's counts are its
	# records in the capture (each device has one port row, which counts
	# the device-wide records too)
	for d in mlx5_0 mlx5_1; do
		want="$(count_of "$d" '.event == "PORT_ERR"') $(count_of "$d" '.event == "PORT_ACTIVE"')"
		want+=" $(count_of "$d" '.event == "DEVICE_FATAL"') $(count_of "$d" true)"
		want+=" $(jq -rs --arg d "$d" 'map(select(.device == $d)) | last | .event' "$FABRIC")"
		assert_equal "$(jq -r --arg d "$d" '.rows[] | select(.device == $d) | "\(.counts.link_down) \(.counts.link_up) \(.counts.fatal) \(.total) \(.last_event)"' <<<"$output")" "$want"
	done
	assert_equal "$(jq .events <<<"$output")" "$(wc -l <"$FABRIC")"
}

@test "--follow steps through capture time, one snapshot per step" {
	run ibv_eventtop -b -r "$FABRIC" --follow -s 3600
	assert_success
	diff -u "$EXPECTED/top-fabric-follow.txt" <(echo "$output"; echo)
	assert_equal "$(grep -c '^ibv_eventtop - ' <<<"$output")" 5
	# independent of the stored file: an hour of capture time per step
	# from the first record (08:15:00) until one takes in the last
	# (11:30:12); that step counts the whole capture, as without --follow
	run bash -c "ibv_eventtop -b -r '$FABRIC' --follow -s 3600 | sed -n 's/^ibv_eventtop - \\(.*\\) - replay.*/\\1/p'"
	assert_output $'2026-03-02 08:15:00+00:00\n2026-03-02 09:15:00+00:00\n2026-03-02 10:15:00+00:00\n2026-03-02 11:15:00+00:00\n2026-03-02 12:15:00+00:00'
	counts='.rows[] | [.device, .port, .state, .counts, .total, .last_event]'
	diff -u <(ibv_eventtop -b -j -r "$FABRIC" | jq -c "$counts") \
		<(ibv_eventtop -b -j -r "$FABRIC" --follow -s 3600 | tail -n 1 | jq -c "$counts")
	run ibv_eventtop -b -r "$FABRIC" --follow -s 3600 -n 2
	assert_equal "$(grep -c '^ibv_eventtop - ' <<<"$output")" 2
}

@test "-d and -i keep rows of those devices and ports" {
	run ibv_eventtop -b -r "$FABRIC" -d mlx5_1
	assert_success
	refute_line --regexp '^mlx5_0 '
	assert_line --regexp '^mlx5_1 +1 ACTIVE '
	assert_line --index 1 --regexp '^1 device, 1 port, 20 events'
	run ibv_eventtop -b -r "$FABRIC" -i 1 -d mlx5_0
	assert_success
	assert_line --regexp '^mlx5_0 +1 ACTIVE '
	# no event of the capture names port 2: no row, not even the
	# device-wide one of mlx5_1
	run ibv_eventtop -b -r "$FABRIC" -i 2
	assert_success
	refute_line --regexp '^mlx5'
	assert_line --regexp '^DEVICE +PORT '
}

@test "malformed replay lines: FILE:LINE on stderr, valid lines counted, status 4" {
	run --separate-stderr ibv_eventtop -b -j -r "$CAPTURES/malformed.jsonl"
	assert_failure 4
	[ "${#stderr_lines[@]}" -eq 7 ]
	[[ ${stderr_lines[0]} == "$CAPTURES/malformed.jsonl:2: "* ]]
	assert_equal "$(jq .events <<<"$output")" 2
}

@test "malformed replay lines under the screen: it stays whole, the ten named and the count follow it" {
	cap=$BATS_TEST_TMPDIR/bad.jsonl
	not_output "$cap"
	for i in $(seq 30); do
		echo '{"time":"2026-03-02T08:15:00Z","device":"mlx5_0","port":1,"event":"PORT_ERR"}'
		echo "not json $i"
	done >"$cap"
	tm_start "ibv_eventtop -r '$cap'"
	# at its end the replay has said all it will
	tm_wait 'of capture \(end\)'
	screen_whole
	tm send-keys q
	tm_wait '^EXIT=4$'
	assert_equal "$(tm_screen | grep -c ': not a JSON object$')" 10
	tm_screen | grep -qxF "ibv_eventtop: $cap: 20 more malformed lines" ||
		fail "no count of the rest: $(tm_screen)"
}

@test "256 ports from a synthetic capture" {
	cap=$BATS_TEST_TMPDIR/many.jsonl
	not_output "$cap"
	for d in $(seq 0 63); do
		for p in 1 2 3 4; do
			printf '{"time":"2026-03-02T08:00:%02dZ","device":"mlx5_%d","port":%d,"event":"PORT_ERR"}\n' $((p * 10)) "$d" "$p"
		done
	done >"$cap"
	run ibv_eventtop -b -j -r "$cap"
	assert_success
	assert_equal "$(jq '.ports, (.rows | length), .devices' <<<"$output" | tr '\n' ' ')" "256 256 64 "
}

@test "usage errors and a missing terminal exit with their statuses" {
	run --separate-stderr ibv_eventtop -j -r "$FABRIC"
	assert_failure 2
	[ "${stderr_lines[0]}" = "ibv_eventtop: -j needs -b (JSON is for batch mode)" ]
	run --separate-stderr ibv_eventtop -b --follow
	assert_failure 2
	run --separate-stderr ibv_eventtop -b -s 0 -r "$FABRIC"
	assert_failure 2
	run --separate-stderr ibv_eventtop -b -n x -r "$FABRIC"
	assert_failure 2
	run --separate-stderr ibv_eventtop -r "$FABRIC" </dev/null
	assert_failure 3
	[ "$stderr" = "ibv_eventtop: the screen needs a terminal; use -b for batch output" ]
	run --separate-stderr ibv_eventtop -b -r /nonexistent
	assert_failure 3
	[ "$stderr" = "ibv_eventtop: /nonexistent: No such file or directory" ]
}

@test "no RDMA device: it waits for them, as the watcher does, and says so" {
	[ "${IBVEVENT_VM:-}" != 1 ] || skip "the guest has rxe0"
	[ ! -d /sys/class/infiniband_verbs ] || skip "this host has RDMA devices"
	run --separate-stderr ibv_eventtop -b -n 2 -s 0.1
	assert_success
	[ "$stderr" = "ibv_eventtop: no RDMA devices yet: waiting for them to appear" ]
	assert_equal "$(grep -c '^0 devices, 0 ports, 0 events' <<<"$output")" 2
	# a device asked for by name is not waited for
	run --separate-stderr ibv_eventtop -b -n 1 -d mlx5_0
	assert_failure 3
	[ "$stderr" = "ibv_eventtop: no RDMA devices found: the kernel offers no RDMA to user space (is ib_uverbs loaded?)" ]
	# the screen says it where the rows would be
	TM_COLS=80 TM_LINES=24 tm_start "ibv_eventtop"
	tm_wait_line 5 '^ no RDMA devices yet: waiting for them to appear$'
	tm send-keys -t 0 q
	tm_wait '^EXIT=0$'
}

# --- the screen ---

# start_screen [CAPTURE ROW-REGEX]
start_screen() {
	tm_start "TZ=UTC ibv_eventtop -r '${1:-$FABRIC}'"
	tm_wait "${2:-^mlx5_1 +1 ACTIVE}"
}

row_order() {
	tm_screen | grep -oE '^mlx5_[0-9]' | tr '\n' ' '
}

@test "screen: the table, its header and the footer's keys" {
	TM_COLS=200 start_screen
	run tm_screen
	assert_success
	assert_line --index 0 --regexp '^ ibv_eventtop - replay of .*ib-fabric.jsonl - 03:15:12 of capture \(end\)'
	assert_line --index 1 --regexp '^ 2 devices, 2 ports, 28 events'
	# the first columns: state, how long down, flaps, the last event and
	# its age, before the counts by kind
	assert_line --regexp '^DEVICE +PORT STATE +DOWN SINCE FLAPS LAST EVENT +AGE +TOTAL EV/MIN +DOWN +UP '
	assert_line --regexp '^mlx5_0 +1 ACTIVE +- +0 UNKNOWN\(21\) +1h30m +8 '
	assert_line --regexp '^ q Quit  h Help  < > Sort  Left Right Cols'
	screen_whole
}

@test "screen at 80x24: whole lines, the important columns, the rest a key away" {
	TM_COLS=80 TM_LINES=24 start_screen "$CAPTURES/fleet-node1.jsonl" '^mlx5_2 +1 DOWN'
	screen_whole
	for t in DEVICE PORT STATE 'DOWN SINCE' FLAPS 'LAST EVENT'; do
		has_title "$t" || fail "no $t in the titles"
	done
	! has_title PHYS || fail "PHYS in the titles"
	! has_title LID/GID || fail "LID/GID in the titles"
	# no count that is 0 on every row: the capture has no PKEY change
	[ "$(jq -s 'map(select(.event == "PKEY_CHANGE")) | length' "$CAPTURES/fleet-node1.jsonl")" = 0 ]
	tm_wait_line 24 '^ q Quit  h Help  < > Sort  Left Right Cols'
	# paused: said where 80 columns show it
	tm send-keys -t 0 Space
	tm_wait_line 1 '^ ibv_eventtop \[PAUSED\] - replay of '
	screen_whole
	tm send-keys -t 0 Space
	tm_wait_line 1 '^ ibv_eventtop - replay of '
	# above the titles, the columns off the right: the 17 below with
	# DEVICE and PORT are 19, 9 show
	tm_wait_line 3 '^ {68}10 columns >$'
	# Right, a column at a time, until the last shows; device and port
	# stay, and every column of the table comes into view on the way;
	# those off the left are counted, those off the right never more
	seen=$(tm_line 4)
	right=10
	for i in $(seq 30); do
		prev=$(tm_line 4)
		[[ $prev != *LID/GID* ]] || break
		tm send-keys -t 0 Right
		tm_wait_gone "^$prev\$"
		tm_wait_line 4 '^DEVICE +PORT '
		seen+=$'\n'$(tm_line 4)
		screen_whole
		[[ $(tm_line 3) =~ ^\ {16}\<\ $i\ columns?(\ +([0-9]+)\ columns?\ \>)?$ ]] ||
			fail "after $i Right: '$(tm_line 3)'"
		[ "${BASH_REMATCH[2]:-0}" -le "$right" ] || fail "after $i Right: $right before, now '$(tm_line 3)'"
		right=${BASH_REMATCH[2]:-0}
	done
	# at the end, none off the right
	assert_equal "$right" 0
	for t in STATE 'DOWN SINCE' FLAPS 'LAST EVENT' AGE TOTAL EV/MIN DOWN UP SM \
		FATAL OTHER 'ERROR COUNTERS MOVED' PHYS LINK RATE LID/GID; do
		grep -qE "(^| )$t( |\$)" <<<"$seen" || fail "$t never came into view: $seen"
	done
	tm_wait '^DEVICE +PORT .* LINK +RATE LID/GID'
	! has_title STATE || fail "STATE in the titles"
	! has_title PKEY || fail "PKEY in the titles"
	# at the end, Right does no more
	tm send-keys -t 0 Right ^L
	sleep 0.5
	tm_wait '^DEVICE +PORT .* LINK +RATE LID/GID'
	tm_wait '^mlx5_1 +1 '
	# Left brings them back
	for _ in $(seq 30); do tm send-keys -t 0 Left; done
	tm_wait '^DEVICE +PORT STATE +DOWN SINCE FLAPS'
	# the event log keeps the owner and the job of a QP's or CQ's event
	tm send-keys -t 0 e
	tm_wait '^ Events, newest first'
	owner=$(jq -r 'select(.event == "CQ_ERR") | "\(.comm)\\[\(.pid)\\] slurm job " + (.cgroup | capture("/job_(?<n>[0-9]+)/").n)' "$CAPTURES/fleet-node1.jsonl")
	[ -n "$owner" ]
	tm_wait "^10:15:30 mlx5_0 +CQ_ERR +$owner:"
	screen_whole
}

@test "screen at 120x40: AGE and TOTAL too; the help fits 80 columns" {
	TM_COLS=120 TM_LINES=40 start_screen "$CAPTURES/fleet-node1.jsonl" '^mlx5_2 +1 DOWN'
	screen_whole
	for t in DEVICE PORT STATE 'DOWN SINCE' FLAPS 'LAST EVENT' AGE TOTAL; do
		has_title "$t" || fail "no $t in the titles"
	done
	tm resize-window -t 0 -x 80 -y 24
	tm_wait_line 24 '^ q Quit'
	tm send-keys -t 0 h
	tm_wait 'ibv_eventtop help'
	tm_wait '^  Left Right +scroll the columns'
	screen_whole
	tm_wait 'at the last refresh\.$'
}

@test "screen: h shows help drawn from the key table; q leaves it, q quits" {
	start_screen
	tm send-keys -t 0 h
	tm_wait 'ibv_eventtop help'
	run tm_screen
	assert_success
	for k in 'q ' 'h \?' '< >' 'I' '/' 'Z space' 'r' 'e' 'Tab' 'p' 'Left Right' 'Up Down' 'PgUp PgDn' 'Home End' '\^L'; do
		assert_line --regexp "^  $k +[a-z]"
	done
	tm send-keys -t 0 q
	tm_wait '^DEVICE +PORT'
	tm send-keys -t 0 q
	tm_wait '^EXIT=0$'
}

@test "screen: < and > choose the sort column, I inverts it" {
	start_screen
	assert_equal "$(row_order)" "mlx5_0 mlx5_1 "
	tm send-keys -t 0 '>'
	tm_wait 'sort: PORT'
	tm send-keys -t 0 '<' '<'
	tm_wait 'sort: LID/GID$'
	for _ in 1 2 3 4 5 6 7 8; do tm send-keys -t 0 '>'; done
	tm_wait 'sort: TOTAL$'
	tm send-keys -t 0 I
	tm_wait 'sort: TOTAL \(inverted\)'
	assert_equal "$(row_order)" "mlx5_1 mlx5_0 "
}

@test "screen: / filters by device name, its prompt shows the text to edit, Esc clears it" {
	TM_COLS=80 TM_LINES=24 start_screen
	tm send-keys -t 0 / m l x 5 _ 1
	# typed in the prompt, not in the header
	tm_wait_line 24 '^ Filter by device name: mlx5_1_ +Enter keeps it, Esc clears'
	tm_wait_line 2 'sort: DEVICE$'
	tm send-keys -t 0 Enter
	tm_wait 'filter: mlx5_1$'
	assert_equal "$(row_order)" "mlx5_1 "
	# / again starts from the filter, shown: edit it into another
	tm send-keys -t 0 /
	tm_wait_line 24 '^ Filter by device name: mlx5_1_ '
	tm send-keys -t 0 BSpace 0
	tm_wait_line 24 '^ Filter by device name: mlx5_0_ '
	tm send-keys -t 0 Enter
	tm_wait 'filter: mlx5_0$'
	assert_equal "$(row_order)" "mlx5_0 "
	tm send-keys -t 0 / Escape
	tm_wait 'sort: DEVICE$'
	assert_equal "$(row_order)" "mlx5_0 mlx5_1 "
}

@test "screen: space pauses, r resets the counts and the flaps, e shows the event log" {
	# a day's window: mlx5_0's flap of the capture counts
	tm_start "TZ=UTC ibv_eventtop --flap-window 1d -r '$FABRIC'"
	tm_wait '^mlx5_0 +1 ACTIVE +- +1 UNKNOWN'
	tm send-keys -t 0 Space
	tm_wait '^ ibv_eventtop \[PAUSED\] - '
	tm send-keys -t 0 Z
	tm_wait 'of capture \(end\)$'
	tm_wait ' 28 events, 0\.3/s over 10 s'
	tm send-keys -t 0 r
	tm_wait ' 0 events, 0\.0/s over 10 s, 0\.0/s over 1 min '
	tm_wait '^mlx5_1 +1 ACTIVE +- +0 - +- +0 +0 '
	tm_wait '^mlx5_0 +1 ACTIVE +- +0 - +- +0 +0 '
	tm send-keys -t 0 e
	tm_wait '^ Events, newest first'
	tm send-keys -t 0 e
	tm_wait_gone 'Events, newest first'
}

@test "screen: a storm is one line of the event log, with its count; the port's lines stay" {
	STORM=$BATS_TEST_TMPDIR/storm.jsonl
	"$TOP/test/captures/storm.sh" >"$STORM"
	# the capture: the storm's events, the other process's, the port's
	n=$(jq -s 'map(select(.pid == 217 and .event == "CQ_ERR")) | length' "$STORM")
	assert_equal "$n" 10000
	assert_equal "$(jq -s 'map(select(.pid == 301)) | length' "$STORM")" 3
	TM_COLS=80 TM_LINES=24 tm_start "TZ=UTC ibv_eventtop -r '$STORM'"
	tm_wait '^rxe0 +1 DOWN'
	tm send-keys -t 0 e
	tm_wait '^ Events, newest first'
	for size in 80x24 120x40; do
		tm resize-window -t 0 -x "${size%x*}" -y "${size#*x}"
		tm_wait_line "${size#*x}" '^ q Quit'
		screen_whole
		run -0 grep -A8 '^ Events, newest first' <<<"$(tm_screen)"
		# newest first: the port going down, the storm's one line with
		# every event of it, the other process's a line each, the SRQ
		# limit and the port coming up
		assert_line --index 1 --regexp '^00:10:05 rxe0/1 +PORT_ERR +port left'
		assert_line --index 2 --regexp '^00:10:04 rxe0 +CQ_ERR +storm over: 10,000 in [0-9.]+ s ib_write_bw'
		for i in 3 4 5; do
			assert_line --index $i --regexp '^00:10:01 rxe0 +CQ_ERR +ibv_rc_pingpong\[301\] '
		done
		assert_line --index 6 --regexp '^00:10:00 rxe0 +SRQ_LIMIT_REACHED +ib_write_bw\[217\] '
		assert_line --index 7 --regexp '^00:09:59 rxe0/1 +PORT_ACTIVE +port is active'
		assert_equal "$(grep -c 'CQ_ERR .*ib_write_bw' <<<"$output")" 1
	done
	# selected, the storm's line whole at 80 columns: its owner and job,
	# as the watcher's
	tm_resized 80x24
	tm send-keys -t 0 Tab Down
	tm_wait '4712\])$'
	screen_whole
	got=$(tm_screen | sed -n '/^00:10:04 rxe0 /,/^00:10:01 /p' | sed '$d; s/^  / /' | tr -d '\n')
	assert_equal "$got" '00:10:04 rxe0       CQ_ERR               storm over: 10,000 in 4.0 s ib_write_bw[217] slurm job 4712: (cq handle 3, pid 217 ib_write_bw [slurm job 4712])'
	# wide enough for the whole line, unselected
	tm send-keys -t 0 Tab
	tm resize-window -t 0 -x 200 -y 40
	tm_wait '^00:10:04 rxe0 +CQ_ERR +storm over: 10,000 in 4\.0 s ib_write_bw\[217\] slurm job 4712: \(cq handle 3, pid 217 ib_write_bw \[slurm job 4712\]\)$'
}

@test "screen: Tab selects in the event log, the selected event whole" {
	F=$CAPTURES/fleet-node1.jsonl
	TM_COLS=80 TM_LINES=24 start_screen "$F" '^mlx5_2 +1 DOWN'
	tm send-keys -t 0 Tab
	tm_wait '^ Events, newest first - Up, Down: the selected one whole'
	# the newest first: selected, all of it on two lines
	tm_wait '^11:30:30 mlx5_0/1 +PORT_ERR +port left the active state: link down$'
	tm_wait '^  or lost$'
	screen_whole
	# Down to the CQ_ERR, the oldest line the log shows at 80x24: it
	# scrolls into view, its owner, its job, its description and details
	# whole, as the watcher writes them
	n=$(jq -c .event "$F" | sed -n '/"CQ_ERR"/,$p' | grep -c .)
	for _ in $(seq $((n - 1))); do tm send-keys -t 0 Down; done
	tm_wait '^  all_reduce_perf \[slurm job 90210\]\)$'
	screen_whole
	words=$(ibv_eventwatch -r <(jq -c 'select(.event == "CQ_ERR")' "$F") | sed -E 's/^.* error +//')
	[ -n "$words" ]
	# from its first line to the footer, a continuation line a space
	got=$(tm_screen | sed -n '/^ Events, newest first/,/^ q Quit/p' | sed '1d;$d' | sed -n '/^10:15:30 mlx5_0 /,$p' | sed 's/^  / /' | tr -d '\n')
	assert_equal "$got" "10:15:30 mlx5_0     CQ_ERR               all_reduce_perf[48213] slurm job 90210: $words"
	# Tab again: the rows, the log as it was
	tm send-keys -t 0 Tab
	tm_wait '^ Events, newest first$'
	tm_wait_gone '^  all_reduce_perf'
}

@test "screen: the event log lists the newest first" {
	start_screen
	tm send-keys -t 0 e
	tm_wait '^ Events, newest first'
	run grep -A2 'Events, newest first' <<<"$(tm_screen)"
	assert_success
	assert_line --index 1 --regexp '^11:30:12 mlx5_1/1 +PORT_ACTIVE'
	assert_line --index 2 --regexp '^11:30:09 mlx5_1/1 +NETDEV_ATTACH'
}

@test "screen: a resize redraws to the new size; Ctrl-L redraws" {
	start_screen
	# smaller: the footer moves to the new last line, drawn by the program
	tm resize-window -t 0 -x 90 -y 20
	tm_wait_line 20 '^ q Quit  h Help'
	tm_wait_line 4 '^DEVICE +PORT STATE'
	# larger: the program must learn the new size to fill it
	tm resize-window -t 0 -x 240 -y 40
	tm_wait_line 40 '^ q Quit  h Help'
	tm_wait_line 4 '^DEVICE .* RATE LID/GID$'
	# the screen cleared behind the program's back stays blank (a replay
	# at its end draws nothing new) until Ctrl-L redraws all of it
	printf '\033[H\033[2J' >"$(tm display-message -p -t 0 '#{pane_tty}')"
	sleep 1.5 # more than a refresh
	[ -z "$(tm_screen | tr -d ' \n')" ] || fail "the screen was not blank: $(tm_screen)"
	tm send-keys -t 0 C-l
	tm_wait '^mlx5_1 +1 ACTIVE'
	tm_wait_line 1 '^ ibv_eventtop - replay of'
}

@test "screen: quitting, or SIGTERM, gives the terminal back" {
	start_screen
	tm send-keys -t 0 q
	tm_wait '^EXIT=0$'
	run tm_screen
	assert_success
	refute_line --regexp '^DEVICE +PORT'
	tm_stop
	start_screen
	kill -TERM "$(pgrep -P "$(tm display-message -p -t 0 '#{pane_pid}')" -f ibv_eventtop)"
	tm_wait '^EXIT=0$'
	run tm_screen
	assert_success
	refute_line --regexp '^DEVICE +PORT'
}

@test "subnet events replayed: a SUBNET column counts them; --sm is not for -r" {
	run ibv_eventtop -b -r "$CAPTURES/sm.jsonl"
	assert_success
	assert_line --regexp '^DEVICE .* FATAL SUBNET OTHER '
	assert_line --regexp '^ibsim0 +1 .* 4 +MCG_DELETED '
	run ibv_eventtop -b -j -r "$CAPTURES/sm.jsonl"
	assert_equal "$(jq '.rows[0].counts.subnet' <<<"$output")" 4
	run ibv_eventtop -b -r "$CAPTURES/ib-fabric.jsonl"
	assert_success
	refute_output --partial SUBNET
	run ibv_eventtop --sm -r "$CAPTURES/sm.jsonl"
	assert_failure 2
	assert_output --partial "--sm is for watching devices"
}

# --- the far end of each port (peer), from a capture that has it ---

@test "peers replayed: a PEER column in the watcher's words, a changed one marked" {
	P=$CAPTURES/peers.jsonl
	run -0 ibv_eventtop -b -r "$P"
	assert_line --regexp '^DEVICE +PORT .* LID/GID +PEER +DOWN SINCE '
	# each port's last known peer, as the watcher writes it; "now" where
	# the port's last record says it changed
	for k in $(jq -r 'select(.peer.state == "known") | "\(.device)/\(.port)"' "$P" | sort -u); do
		d=${k%/*} p=${k#*/}
		words=$(ibv_eventwatch -r - <<<"$(jq -c "select(.device == \"$d\" and .port == $p and .peer.state == \"known\")" "$P" | tail -n 1)" |
			sed -nE 's/.*\(peer (now )?(.*)\)$/\1\2/p')
		[ -n "$words" ] || fail "no peer in the watcher's text of $k"
		assert_line --regexp "^$d +$p .* ${words//[/\\[} "
	done
	assert_line --regexp '^mlx5_0 +1 .* now SwitchL\[5\] '
	assert_line --regexp '^rxe0 +1 .* leaf1\[Ethernet7\] '
	# a port whose lookup found none has no peer: -
	assert_line --regexp '^mlx5_0 +2 +DOWN +- +- +- +- +- +[0-9]'
	# without a known peer, no such column (the stored tables keep theirs)
	run -0 ibv_eventtop -b -r "$FABRIC"
	refute_output --partial PEER
}

@test "peers in JSON: each row's last known peer, as its records have it; null when none" {
	P=$CAPTURES/peers.jsonl
	run -0 ibv_eventtop -b -j -r "$P"
	got=$(jq -c '[.rows[] | {device, port, peer}]' <<<"$output")
	want=$(jq -sc 'map(select(.port)) | group_by([.device, .port]) |
		map({device: .[0].device, port: .[0].port,
			peer: (map(select(.peer.state == "known")) | last | .peer // null)})' "$P")
	assert_equal "$got" "$want"
	# not only nulls: a changed IB peer and an LLDP one
	assert_equal "$(jq -c '[.rows[].peer | select(.) | [.kind, .name, .changed]]' <<<"$output")" \
		'[["ib","SwitchL",true],["lldp","leaf1",false]]'
	"$TOP/test/schema-check" --kind top-report - <<<"$output"
	run -0 ibv_eventtop -b -j -r "$FABRIC"
	assert_equal "$(jq -c '[.rows[].peer] | unique' <<<"$output")" '[null]'
}

@test "screen: PEER a Right away at 80 columns, shown on a wider one" {
	P=$CAPTURES/peers.jsonl
	TM_COLS=80 TM_LINES=24 start_screen "$P" '^rxe0 +1 DOWN'
	screen_whole
	tm_wait '^DEVICE +PORT STATE +DOWN SINCE FLAPS LAST EVENT +AGE +TOTAL EV/MIN *$'
	! has_title PEER || fail "PEER on 80 columns"
	# Right, a column at a time, until it shows
	for _ in $(seq 10); do
		! has_title PEER || break
		prev=$(tm_line 4)
		tm send-keys -t 0 Right
		tm_wait_gone "^$prev\$"
	done
	tm_wait '^DEVICE +PORT .* PEER'
	tm_wait '^mlx5_0 +1 .* now SwitchL\[5\]'
	screen_whole
	for _ in $(seq 10); do tm send-keys -t 0 Left; done
	tm resize-window -t 0 -x 120 -y 24
	tm_wait '^DEVICE +PORT STATE +DOWN SINCE FLAPS LAST EVENT +AGE +TOTAL EV/MIN PEER +DOWN '
	tm_wait '^mlx5_0 +1 .* 2 +2 now SwitchL\[5\] '
	tm_wait '^rxe0 +1 .* leaf1\[Ethernet7\] '
	screen_whole
}

# --- every process's events (-A), from a capture recorded with it ---

@test "processes: a table of the owners after the ports, one row per process and device" {
	K=$CAPTURES/kernel.jsonl
	run ibv_eventtop -b -r "$K"
	assert_success
	assert_line --regexp '^ +PID COMM +JOB +DEVICE +QP +CQ +SRQ +WQ +TOTAL +EV/S LAST +AGE$'
	# independent of the program: each owner's records counted by class
	for pid in $(jq -r 'select(.pid) | .pid' "$K" | sort -u); do
		c() { jq -s "map(select(.pid == $pid and .class == \"$1\")) | length" "$K"; }
		# the job, by hand: Slurm's job_N, a pod's UID with dashes
		job=$(jq -r "select(.pid == $pid) | .cgroup |
			(capture(\"/job_(?<n>[0-9]+)/\") | \"slurm job \" + .n) //
			(capture(\"-pod(?<u>[0-9a-f_]+)[.]slice\") | \"pod \" + (.u | gsub(\"_\"; \"-\"))) //
			\"-\"" "$K" | head -n 1)
		last=$(jq -r "select(.pid == $pid) | .event" "$K" | tail -n 1)
		assert_line --regexp "^ +$pid ibv_eventinject +$job +rxe0 +$(c qp) +$(c cq) +$(c srq) +$(c wq) +$(jq -s "map(select(.pid == $pid)) | length" "$K") +0\\.0 $last +[0-9]+s$"
	done
	# newest first
	assert_equal "$(grep -oE '^ +[0-9]+ ibv_eventinject' <<<"$output" | awk '{ print $1 }' | paste -sd' ')" \
		"$(jq -r 'select(.pid) | .pid' "$K" | tac | awk '!seen[$0]++' | paste -sd' ')"
	# a capture without them has no such table
	run ibv_eventtop -b -r "$FABRIC"
	refute_output --partial ' PID COMM '
}

@test "processes in JSON: pid, name, job, device, counts, last event" {
	K=$CAPTURES/kernel.jsonl
	run ibv_eventtop -b -j -r "$K"
	assert_success
	assert_equal "$(jq -c '.processes[] | select(.pid == 212) | [.comm, .job, .device, .counts, .total, .last_event]' <<<"$output")" \
		'["ibv_eventinject","slurm job 4711","rxe0",{"qp":0,"cq":5,"srq":0,"wq":0},5,"CQ_ERR"]'
	assert_equal "$(jq '.processes | length' <<<"$output")" "$(jq -r 'select(.pid) | .pid' "$K" | sort -u | wc -l)"
	assert_equal "$(jq -r '.processes[] | select(.pid == 219) | .job' <<<"$output")" null
	run ibv_eventtop -b -j -r "$FABRIC"
	assert_equal "$(jq 'has("processes")' <<<"$output")" false
}

# storm_steps CAPTURE: ib_write_bw's row at each one-second step of
# ibv_eventtop -b -j --follow: "TIME TOTAL PER_SECOND" per line (0 0
# before it has one).
storm_steps() {
	ibv_eventtop -b -j -r "$1" --follow -s 1 |
		jq -r '.time as $t | .processes // [] | map(select(.pid == 217)) |
			if length > 1 then error("\(length) rows of pid 217")
			else .[0] // {total: 0, per_second: 0} end |
			"\($t) \(.total) \(.per_second)"'
}

# captured_steps CAPTURE STEPS: the events of pid 217 the capture holds in
# each step of STEPS (after the time of the step before, up to its own;
# a summary stands for its count), and their sum so far.
captured_steps() {
	jq -rn --slurpfile c "$1" --rawfile s "$2" '
		($s | split("\n") | map(select(. != "") | split(" ")[0])) as $t |
		reduce range(0; $t | length) as $i ({n: 0, out: []};
			($c | map(select(.pid == 217 and .time <= $t[$i] and
				($i == 0 or .time > $t[$i - 1])) | .count // 1) | add // 0) as $k |
			.n += $k | .out += ["\($t[$i]) \(.n) \(if $i == 0 then 0 else $k end)"]) |
		.out[]'
}

@test "a storm: one row with its rate, the same counts from its summaries" {
	STORM=$BATS_TEST_TMPDIR/storm.jsonl SUM=$BATS_TEST_TMPDIR/sum.jsonl
	"$TOP/test/captures/storm.sh" >"$STORM"
	ibv_eventwatch -r "$STORM" -j --storm-json >"$SUM"
	# the storm and its summaries: records of one key, and their events
	storming=$(jq -c 'select(.event == "CQ_ERR" and .pid == 217)' "$STORM" | grep -c .)
	[ "$storming" -eq 10000 ] || fail "the capture has $storming storming records"
	[ "$(jq -s 'map(select(.pid == 217)) | length' "$SUM")" -lt 20 ] || fail "no summaries in $SUM"
	events=$(jq -s 'map(select(.pid == 217)) | length' "$STORM")
	for c in "$STORM" "$SUM"; do
		# the batch table: one row, its events (not its records)
		run -0 ibv_eventtop -b -r "$c"
		run -0 grep -E '^ +217 ' <<<"$output"
		assert_equal "${#lines[@]}" 1
		assert_output --regexp "^ +217 ib_write_bw +slurm job 4712 +rxe0 +0 +$storming +1 +0 +$events +0\\.0 CQ_ERR "
		# its rate at each step: the events the capture has in that
		# second, however its records stand for them
		storm_steps "$c" >"$BATS_TEST_TMPDIR/steps"
		diff -u <(captured_steps "$c" "$BATS_TEST_TMPDIR/steps") "$BATS_TEST_TMPDIR/steps"
		assert_equal "$(tail -n 1 "$BATS_TEST_TMPDIR/steps" | cut -d' ' -f2)" "$events"
		# a whole second of the storm: its 4,000 events a second
		grep -q ' 4000$' "$BATS_TEST_TMPDIR/steps" || fail "no step of 4000/s: $(cat "$BATS_TEST_TMPDIR/steps")"
	done
}

@test "screen: p switches to the processes and back" {
	tm_start "TZ=UTC ibv_eventtop -r '$CAPTURES/kernel.jsonl'"
	tm_wait '^rxe0 +1 '
	tm_wait 'p Procs'
	tm send-keys -t 0 p
	tm_wait '^ +PID COMM +JOB'
	tm_wait '^ +212 ibv_eventinject slurm job 4711 +rxe0 +0 +5 +0 +0 +5 +[0-9.]+ CQ_ERR'
	tm send-keys -t 0 p
	tm_wait '^DEVICE +PORT STATE'
	tm_wait_gone 'PID COMM'
}

# pids: the process rows' pids, in the order shown.
pids() {
	tm_screen | grep -oE '^ +[0-9]+ ibv_eventinject' | awk '{ print $1 }' | paste -sd' '
}

@test "screen: the process view at 80x24 sorts and filters its own rows" {
	K=$CAPTURES/kernel.jsonl
	TM_COLS=80 TM_LINES=24 tm_start "TZ=UTC ibv_eventtop -r '$K'"
	tm_wait '^rxe0 +1 '
	tm send-keys -t 0 p
	tm_wait '^ +PID COMM +JOB'
	tm_wait 'sort: AGE$'
	screen_whole
	# JOB as wide as its widest job (a pod's UID), not 40 blanks
	widest=$(jq -r '.cgroup // empty' "$K" | sed -nE 's/.*-pod([0-9a-f_]+)[.]slice.*/pod \1/p' | awk '{ print length }' | sort -n | tail -n 1)
	[ -n "$widest" ]
	tm_wait "^ +PID COMM +JOB {$((widest - 2))}DEVICE"
	# newest first, as the capture has them
	want=$(jq -r 'select(.pid) | .pid' "$K" | tac | awk '!seen[$0]++' | paste -sd' ')
	assert_equal "$(pids)" "$want"
	# < and > sort the processes, not the ports behind them
	tm send-keys -t 0 '<'
	tm_wait 'sort: LAST$'
	tm_wait '^ +PID COMM .* LAST'
	screen_whole
	by_last=$(jq -rs 'map(select(.pid)) | group_by(.pid) | map({pid: .[0].pid, last: .[-1].event, t: .[-1].time}) | sort_by(.last, .t) | reverse | sort_by(.last) | map(.pid) | join(" ")' "$K")
	assert_equal "$(pids)" "$by_last"
	tm send-keys -t 0 '>' '>'
	tm_wait 'sort: PID$'
	assert_equal "$(pids)" "$(jq -r 'select(.pid) | .pid' "$K" | sort -un | paste -sd' ')"
	tm send-keys -t 0 I
	tm_wait 'sort: PID \(inverted\)'
	assert_equal "$(pids)" "$(jq -r 'select(.pid) | .pid' "$K" | sort -unr | paste -sd' ')"
	# / keeps the processes whose command, job or device has the text
	tm send-keys -t 0 / 'job 4712' Enter
	tm_wait 'filter: job 4712$'
	assert_equal "$(pids)" "$(jq -r 'select(.cgroup // "" | test("/job_4712/")) | .pid' "$K" | sort -unr | paste -sd' ')"
	tm send-keys -t 0 / Escape
	tm send-keys -t 0 p
	tm_wait '^DEVICE +PORT STATE'
}

@test "-A is for watching devices, not with -r" {
	run --separate-stderr ibv_eventtop -A -b -r "$FABRIC"
	assert_failure 2
	[ "$(head -n 1 <<<"$stderr")" = "ibv_eventtop: --all-processes is for watching devices, not with -r" ]
}
