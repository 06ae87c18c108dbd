#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Smoke test of the soft-RoCE guest itself, with rdma-core's own tools:
# if these fail, nothing else in test/rxe can be trusted. Then which of
# rdma-core's providers our programs load to list the devices.

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

# The provider libraries (lib<name>-rdmav<N>.so) a command opened, by
# strace, one name a line, sorted: what it loaded, not what it says.
providers_opened() {
	local trace=$BATS_TEST_TMPDIR/providers.trace
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:detect_leaks=0} \
		strace -f -o "$trace" -e trace=openat "$@" >"$BATS_TEST_TMPDIR/providers.out"
	grep -o 'lib[a-z0-9_]*-rdmav[0-9]*\.so", O_RDONLY[^)]*) = [0-9]' "$trace" |
		sed 's/-rdmav.*//' | sort -u
}

@test "the watcher loads only the provider its devices need (rxe), where ibv_devinfo loads them all" {
	run providers_opened ibv_eventwatch -l
	assert_success
	assert_output librxe
	run grep -c '^rxe0 ' "$BATS_TEST_TMPDIR/providers.out"
	assert_output 1
	run providers_opened ibv_eventwatch -t 0.1 -q
	assert_output librxe
	# the reference: libibverbs left to itself opens every provider
	run providers_opened ibv_devinfo -l
	[ "${#lines[@]}" -gt 5 ]
	assert_line librxe
}

@test "with RDMAV_DRIVERS set, libibverbs loads the providers itself" {
	RDMAV_DRIVERS=rxe run providers_opened ibv_eventwatch -l
	assert_success
	[ "${#lines[@]}" -gt 5 ]
	run grep -c '^rxe0 ' "$BATS_TEST_TMPDIR/providers.out"
	assert_output 1
}

@test "with 40 devices: every one listed, the rxe provider alone loaded" {
	local i want
	for i in $(seq 1 39); do
		ip link add "pdum$i" type dummy
		rdma link add "prxe$i" type rxe netdev "pdum$i"
	done
	want=$(ibv_devices | awk 'NR > 2 { print $1 }' | sort)
	run providers_opened ibv_eventwatch -l
	for i in $(seq 1 39); do
		rdma link delete "prxe$i"
		ip link delete "pdum$i"
	done
	assert_success
	assert_output librxe
	run sh -c "sed -n 's/^\([a-z0-9]\{1,\}\) .*/\1/p' '$BATS_TEST_TMPDIR/providers.out' | sort"
	assert_output "$want"
	[ "${#lines[@]}" -eq 40 ]
}
