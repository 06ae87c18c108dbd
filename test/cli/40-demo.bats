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
	TM_COLS=200 TM_LINES=30 tm_start "cd '$TOP' && make -s demo"
	tm_wait '^rxe0 +1 ACTIVE +LinkUp' 90
	run tm_screen
	assert_line --index 0 --regexp '^ ibv_eventtop - [0-9:]+ - ibvevent-vm - Linux '
	# the demo's script flaps the link within seconds: DOWN 1, UP 1
	tm_wait '^rxe0 +1 [A-Z]+ .* +[1-9] +[1-9] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ ' 60
	# the terminal is the caller's, 200 columns: the last column shows
	run tm_screen
	assert_line --regexp '^DEVICE .* AGE ERROR COUNTERS MOVED$'

	tm send-keys -t 0 q
	tm_wait '^EXIT=0$' 60
	run tm_screen
	assert_line --regexp '^vm: .*status 0'
}
