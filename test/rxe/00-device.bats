#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Smoke test of the soft-RoCE guest itself, with rdma-core's own tools:
# if these fail, nothing else in test/rxe can be trusted.

load ../test_helper

setup() {
	require_guest
}

teardown() {
	stop_bg "${aw:-}"
	restore_rxe
}

@test "ibv_devices lists rxe0" {
	run ibv_devices
	assert_success
	assert_output --regexp $'\n[[:space:]]+rxe0[[:space:]]+[0-9a-f]{16}'
}

@test "ibv_devinfo shows rxe0 port 1 PORT_ACTIVE" {
	run ibv_devinfo -d rxe0 -i 1
	assert_success
	assert_output --regexp 'state:[[:space:]]+PORT_ACTIVE \(4\)'
	assert_output --regexp 'link_layer:[[:space:]]+Ethernet'
}

@test "ibv_asyncwatch sees PORT_ERR then PORT_ACTIVE on a link flap" {
	log=$BATS_TEST_TMPDIR/asyncwatch
	stdbuf -oL ibv_asyncwatch -d rxe0 >"$log" 2>&1 &
	aw=$!
	wait_for "$log" 'async event FD'
	ip link set dummy0 down
	wait_for "$log" 'IBV_EVENT_PORT_ERR'
	ip link set dummy0 up
	wait_for "$log" 'IBV_EVENT_PORT_ACTIVE'
	run grep -o 'IBV_EVENT_PORT_[A-Z]*' "$log"
	assert_output $'IBV_EVENT_PORT_ERR\nIBV_EVENT_PORT_ACTIVE'
}
