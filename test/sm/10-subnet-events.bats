#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Subnet events from a real OpenSM on a simulated fabric (test/sm/fabric.bash).

load ../test_helper
load fabric

# A fabric of its own for every test.
setup() {
	ibve_setup
	fabric_start
}

teardown() {
	local rc=0
	# a test that stopped OpenSM and failed before it went on
	[ -z "${BG_PID[opensm]:-}" ] || kill -CONT "${BG_PID[opensm]}" 2>/dev/null || true
	watch_stop || rc=1
	fabric_stop || rc=1
	ibve_teardown || rc=1
	return $rc
}

@test "a host leaving and rejoining: GID_OUT_OF_SERVICE, then GID_IN_SERVICE, with its GID" {
	gid=$(port_gid HostPeer)
	watch_start
	sim 'Unlink "HostPeer"'
	wait_for "$W/out" '"event":"GID_OUT_OF_SERVICE"' 30
	sim 'ReLink "HostPeer"'
	wait_for "$W/out" '"event":"GID_IN_SERVICE"' 30
	run jq -r 'select(.source == "sm") | [.event, .gid, .device, .port] | @tsv' "$W/out"
	assert_success
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
	assert_success
	assert_output "MCG_CREATED	ff12:e017:0000:0000:0000:0000:0000:4242
MCG_DELETED	ff12:e017:0000:0000:0000:0000:0000:4242"
}

@test "filters and text output work on subnet events like any other" {
	watch_start -e sm -x MCG_CREATED
	on HostMcast "$BUILD/sm/mcg" ff12:e017::4343 1
	wait_for "$W/out" 'MCG_DELETED' 30
	run jq -r .event "$W/out"
	assert_success
	assert_output "MCG_DELETED"
}

@test "a host out, in and out again within two seconds: all three are shown" {
	# the de-duplication once took the second GID_OUT_OF_SERVICE for a
	# repeat of the first (7481d57)
	gid=$(port_gid HostPeer)
	watch_start
	sim 'Unlink "HostPeer"'
	wait_for "$W/out" '"event":"GID_OUT_OF_SERVICE"' 30
	sim 'ReLink "HostPeer"'
	wait_for "$W/out" '"event":"GID_IN_SERVICE"' 30
	sim 'Unlink "HostPeer"'
	wait_count "$W/out" '"event":"GID_OUT_OF_SERVICE"' 2 30
	run jq -r '"\(.event) \(.gid)"' "$W/out"
	assert_success
	assert_output "GID_OUT_OF_SERVICE $gid
GID_IN_SERVICE $gid
GID_OUT_OF_SERVICE $gid"
	# within the two seconds a repeat would be taken for: else this test
	# would not test what it says
	first=$(jq -rs '.[0].time | sub("\\.[0-9]+Z$"; "Z") | fromdate' "$W/out")
	last=$(jq -rs '.[2].time | sub("\\.[0-9]+Z$"; "Z") | fromdate' "$W/out")
	[ $((last - first)) -le 1 ] || fail "the three notices took $((last - first)) s"
}

@test "OpenSM restarted while watching: subscribed again, the next trap still arrives" {
	# A new SM knows no subscription; nothing tells this host about it
	# under ibsim, so the periodic refresh has to.
	export IBVEVENT_SM_REFRESH=2
	watch_start
	opensm_stop
	opensm_start_apart HostWatch
	# the new OpenSM's own log: it took the four subscriptions again
	wait_subscribed
	sim 'Unlink "HostPeer"'
	wait_for "$W/out" '"event":"GID_OUT_OF_SERVICE"' 30
	sim 'ReLink "HostPeer"'
	wait_for "$W/out" '"event":"GID_IN_SERVICE"' 30
}

@test "another device's SM_CHANGE is not this port's: nothing is sent" {
	# ibsim raises no verbs events: a replay source of the same pipeline
	# feeds them through a FIFO (test/sm/resub.c, its own refresh an hour
	# away). A restarted OpenSM knows no subscription and logs each new one.
	resub_start
	opensm_stop
	opensm_start
	echo '{"time":"2026-11-23T10:00:00Z","device":"mlx5_9","port":1,"event":"SM_CHANGE"}' >&8
	wait_for "$R/out" '"device":"mlx5_9"'
	# The record was seen, so any Set it caused was sent. Then resub takes
	# back the four subscriptions it holds, after it on the same way to
	# OpenSM, whose SA handles Sets one at a time in the order they come
	# (its single-threaded "subnadmin_set" dispatcher): once OpenSM has
	# answered all four, a Set sent before them would show.
	bg_stop resub 0
	exec 8>&-
	wait_count "$FAB/opensm.log" "Failed to UnSubscribe to non existing inform object|$REMOVED" 4 20
	assert_equal "$(count_lines "$FAB/opensm.log" "$ADDED")" 0
	assert_equal "$(count_lines "$FAB/opensm.log" "$REMOVED")" 0
	run jq -r '"\(.device) \(.event)"' "$R/out"
	assert_success
	assert_output "mlx5_9 SM_CHANGE"
}

@test "a new SM announced by SM_CHANGE or CLIENT_REREGISTER: subscribed again at once" {
	# The subnet source's own refresh is an hour away, and a restarted
	# OpenSM knows no subscription: only those events can make it
	# subscribe again (OpenSM logs new ones alone).
	resub_start
	opensm_stop
	opensm_start
	echo '{"time":"2026-11-23T10:00:01Z","device":"ibsim0","port":1,"event":"SM_CHANGE"}' >&8
	wait_count "$FAB/opensm.log" "$ADDED" 4 20

	opensm_stop
	opensm_start
	echo '{"time":"2026-11-23T10:00:02Z","device":"ibsim0","port":1,"event":"CLIENT_REREGISTER"}' >&8
	wait_count "$FAB/opensm.log" "$ADDED" 4 20

	bg_stop resub 0
	exec 8>&-
	# the replayed records (each asked for a peer lookup, whose
	# PEER_COUNTERS 40-peers tests)
	run jq -r 'select(.source == "verbs") | "\(.device) \(.event)"' "$R/out"
	assert_success
	assert_output "ibsim0 SM_CHANGE
ibsim0 CLIENT_REREGISTER"
}

@test "ending the watcher takes its subscriptions back" {
	watch_start
	watch_stop
	# OpenSM removed all four (and none it could not match): the watcher
	# waits only so long for the answers, so OpenSM may log them after it
	# has ended
	guid=$(printf '%x' "0x$(port_guid HostWatch)")
	removed="Removing event subscription for port 0x$guid\$"
	wait_count "$FAB/opensm.log" "$removed|Failed to UnSubscribe" 4 20
	assert_equal "$(count_lines "$FAB/opensm.log" "$removed")" 4
	run ! grep "Failed to UnSubscribe" "$FAB/opensm.log"
}

@test "a watcher that ends before the SA answered still takes its subscriptions back" {
	# OpenSM stopped: the four Sets reach it (ibsim queues them) but stay
	# unanswered; the watcher ends, then OpenSM goes on. A watcher that
	# took back only what the SA had answered would leave all four behind
	# (on a loaded machine, some answers are simply not read yet).
	# The watcher then cancels its receiver, waiting in the simulator's
	# receive, which leaves the simulator's mutex locked (libibumad's own
	# receive holds none): ThreadSanitizer reports it as ours.
	! readelf -d "$BUILD/bin/ibv_eventwatch" | grep -q libtsan ||
		skip "ibsim's umad2sim leaves a mutex locked when the receiver is cancelled in it"
	kill -STOP "${BG_PID[opensm]}"
	W=$FAB/watch
	mkdir -p "$W"
	bg_start watch 0 env -C "$W" SIM_HOST=HostWatch LD_PRELOAD="$(own_preload)" \
		IBVEVENT_SM_ISSM=1 ibv_eventwatch --sm -j >"$W/out"
	wait_for "${BG_ERR[watch]}" "subnet events: 1 port" 60
	watch_stop
	kill -CONT "${BG_PID[opensm]}"
	guid=$(printf '%x' "0x$(port_guid HostWatch)")
	wait_count "$FAB/opensm.log" "Removing event subscription for port 0x$guid\$" 4 120
	assert_equal "$(count_lines "$FAB/opensm.log" "Adding event subscription for port 0x$guid\$")" 4
	run ! grep "Failed to UnSubscribe" "$FAB/opensm.log"
}

@test "--sm with --replay is a usage error" {
	fabric_stop
	run ibv_eventwatch --sm -r /dev/null
	assert_failure 2
	assert_line --index 0 "ibv_eventwatch: --sm is for watching devices, not with --replay"
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
	bg_start top 0 env -C "$T" SIM_HOST=HostWatch LD_PRELOAD="$(own_preload)" \
		IBVEVENT_SM_ISSM=1 ibv_eventtop --sm -b -j -s 0.5 >"$T/out"
	wait_subscribed
	sim 'Unlink "HostPeer"'
	wait_for "$T/out" '"subnet":[1-9]' 30
	bg_stop top 0
	run jq -s 'map(.rows[] | select(.device == "ibsim0") | .counts.subnet) | max' "$T/out"
	assert_success
	assert_output 1
}
