#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Smoke test of the soft-RoCE guest itself, with rdma-core's own tools:
# if these fail, nothing else in test/rxe can be trusted.

load ../test_helper

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
	start_asyncwatch
	ip link set dummy0 down
	wait_for "$AOUT" 'IBV_EVENT_PORT_ERR'
	ip link set dummy0 up
	wait_for "$AOUT" 'IBV_EVENT_PORT_ACTIVE'
	bg_stop asyncwatch 143
	run grep -o 'IBV_EVENT_PORT_[A-Z]*' "$AOUT"
	assert_output $'IBV_EVENT_PORT_ERR\nIBV_EVENT_PORT_ACTIVE'
}
