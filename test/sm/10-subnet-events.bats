#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Subnet events from a real OpenSM on a simulated fabric (test/sm/fabric.bash).

load ../test_helper
load fabric

# A fabric of its own for every test, so that a try the simulator spoiled
# (see fabric.bash) leaves nothing behind for the next.
BATS_TEST_RETRIES=2

setup() {
	fabric_start
}

teardown() {
	watch_stop
	fabric_stop
}

@test "a host leaving and rejoining: GID_OUT_OF_SERVICE, then GID_IN_SERVICE, with its GID" {
	gid=$(port_gid HostPeer)
	watch_start
	sim 'Unlink "HostPeer"'
	wait_for "$W/out" '"event":"GID_OUT_OF_SERVICE"' 30
	sim 'ReLink "HostPeer"'
	wait_for "$W/out" '"event":"GID_IN_SERVICE"' 30
	run jq -r 'select(.source == "sm") | [.event, .gid, .device, .port] | @tsv' "$W/out"
	assert_line --index 0 "GID_OUT_OF_SERVICE	$gid	ibsim0	1"
	assert_line --index 1 "GID_IN_SERVICE	$gid	ibsim0	1"
	jq -e 'select(.source == "sm") | .issuer_lid > 0' "$W/out" >/dev/null
}

@test "a multicast group created and deleted: MCG_CREATED, MCG_DELETED with the MGID" {
	watch_start
	run on HostMcast "$BUILD/sm/mcg" ff12:e017::4242 1
	assert_success
	assert_line "join status 0"
	assert_line "leave status 0"
	wait_for "$W/out" '"event":"MCG_DELETED"' 30
	run jq -r '[.event, .gid] | @tsv' "$W/out"
	assert_output "MCG_CREATED	ff12:e017:0000:0000:0000:0000:0000:4242
MCG_DELETED	ff12:e017:0000:0000:0000:0000:0000:4242"
}

@test "filters and text output work on subnet events like any other" {
	watch_start -e sm -x MCG_CREATED
	on HostMcast "$BUILD/sm/mcg" ff12:e017::4343 1
	wait_for "$W/out" 'MCG_DELETED' 30
	run jq -r .event "$W/out"
	assert_output "MCG_DELETED"
}

@test "OpenSM restarted while watching: subscribed again, the next trap still arrives" {
	# A new SM knows no subscription; nothing tells this host about it
	# under ibsim, so the periodic refresh has to.
	export IBVEVENT_SM_REFRESH=2
	watch_start
	opensm_stop
	opensm_start
	sleep 3 # one refresh after the new SM is up
	sim 'Unlink "HostPeer"'
	wait_for "$W/out" '"event":"GID_OUT_OF_SERVICE"' 30
	sim 'ReLink "HostPeer"'
	wait_for "$W/out" '"event":"GID_IN_SERVICE"' 30
}

@test "ending the watcher takes its subscriptions back" {
	watch_start
	watch_stop
	# OpenSM logs an unsubscribe it cannot match; none should be
	run ! grep "Failed to UnSubscribe" "$FAB/opensm.log"
	# and a Report for a subscriber that left would time out
	on HostMcast "$BUILD/sm/mcg" ff12:e017::4444 1
	sleep 2
	run ! grep "IB_TIMEOUT): SubnAdmReport" "$FAB/opensm.log"
}

@test "--sm with --replay or --list is a usage error" {
	fabric_stop
	run ibv_eventwatch --sm -r /dev/null
	assert_failure 2
	assert_output --partial "--sm is for watching devices"
}

@test "--sm on a host without InfiniBand ports: one line, status 3" {
	fabric_stop
	[ -z "$(ls /sys/class/infiniband_mad 2>/dev/null)" ] ||
		skip "this host has umad devices"
	run ibv_eventwatch --sm -t 1
	assert_failure 3
	assert_output "ibv_eventwatch: --sm: no InfiniBand port to subscribe on"
}

@test "ibv_eventtop --sm counts the subnet's events in its SUBNET column" {
	T=$FAB/top
	mkdir -p "$T"
	(cd "$T" && SIM_HOST=HostWatch SIM_SET_ISSM=1 LD_PRELOAD=$UMAD2SIM \
		exec ibv_eventtop --sm -b -j -s 1 -n 12 >"$T/out" 2>"$T/err") &
	TPID=$!
	sleep 3 # subscribed (the dashboard prints nothing until its refresh)
	sim 'Unlink "HostPeer"'
	wait_for "$T/out" '"subnet":[1-9]' 30
	kill "$TPID" 2>/dev/null || true
	wait "$TPID" || true
	run jq -s 'map(.rows[] | select(.device == "ibsim0") | .counts.subnet) | max' "$T/out"
	assert [ "$output" -ge 1 ]
}
