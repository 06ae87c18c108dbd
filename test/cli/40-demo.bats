#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make demo, as a newcomer without RDMA hardware runs it: the guest on
# this terminal, ibv_eventtop live, link flaps arriving; q ends it all.

load ../test_helper

setup() {
	ibve_setup
	[ "${IBVEVENT_VM:-}" != 1 ] || skip "boots the guest itself: runs on the host"
}

teardown() {
	local rc=0
	tm_stop || rc=1
	ibve_teardown || rc=1
	return $rc
}

@test "make demo: link flaps arrive live on the screen, q quits and the guest powers off" {
	# an ordinary terminal: 80x24
	TM_COLS=80 TM_LINES=24 tm_start "cd '$TOP' && make -s demo"
	tm_wait '^rxe0 +1 ACTIVE ' 300
	run tm_screen
	assert_success
	assert_line --index 0 --regexp '^ ibv_eventtop - [0-9:]+ - ibvevent-vm - Linux '
	# the demo's script flaps the link within seconds: FLAPS 1 or more
	tm_wait '^rxe0 +1 [A-Z]+ +[^ ]+ +[1-9][0-9]* [A-Z_]+ ' 120
	# no line wrapped at the edge; the columns that matter first
	screen_whole
	for t in DEVICE PORT STATE 'DOWN SINCE' FLAPS 'LAST EVENT' AGE TOTAL; do
		has_title "$t" || fail "no $t in the titles"
	done
	# the link's counts by kind, a key away
	tm send-keys -t 0 Right Right Right Right Right Right Right
	tm_wait '^DEVICE +PORT +DOWN +UP '
	tm_wait '^rxe0 +1 +[1-9][0-9]* +[1-9][0-9]* '
	screen_whole

	tm send-keys -t 0 q
	tm_wait '^EXIT=0$' 120
	# the runner's last line is longer than 80 columns: joined
	run tm capture-pane -p -J -t 0
	assert_success
	assert_line --regexp '^vm: .*status 0'
}
