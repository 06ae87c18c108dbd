#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The subnet source when the subnet administrator or the management
# devices fail it: an SA that does not answer, a umad ABI that cannot be
# read. Real OpenSM on ibsim (test/sm/fabric.bash).

load ../test_helper
load fabric

setup() {
	ibve_setup
	fabric_start
}

teardown() {
	local rc=0
	watch_stop || rc=1
	fabric_stop || rc=1
	ibve_teardown || rc=1
	return $rc
}

@test "no SA answers: a note per trap after four tries, subscribed once one does" {
	# the tries wait 1, 2, 4 and 8 s: the refresh (which starts them
	# again) must come later than that
	export IBVEVENT_SM_REFRESH=20
	opensm_stop
	W=$FAB/watch
	mkdir -p "$W"
	bg_start watch 0 env -C "$W" SIM_HOST=HostWatch LD_PRELOAD="$(own_preload)" \
		ibv_eventwatch --sm --sm-issm -j >"$W/out"
	wait_for "${BG_ERR[watch]}" "subnet events: 1 port" 20
	for trap in 64 65 66 67; do
		wait_for "${BG_ERR[watch]}" "^ibv_eventwatch: ibsim0 port 1: no answer from the SA at LID 1 to the subscription to trap $trap after 4 tries; trying again in 20 s\$" 90
	done
	# the next refresh subscribes at the SM that is there by then
	opensm_start
	guid=$(printf '%x' "0x$(port_guid HostWatch)")
	wait_count "$FAB/opensm.log" "Adding event subscription for port 0x$guid\$" 4 120
	# and the watcher is still watching
	sim 'Unlink "HostPeer"'
	wait_for "$W/out" '"event":"GID_OUT_OF_SERVICE"' 30
}
