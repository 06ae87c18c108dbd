#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The subnet source when the subnet administrator or the management
# devices fail it: an SA that does not answer or refuses, a umad ABI that
# cannot be read, a receiver whose umad_recv() fails. Real OpenSM on ibsim
# (test/sm/fabric.bash).

load ../test_helper
load fabric

setup() {
	ibve_setup
	fabric_start
}

teardown() {
	local rc=0
	watch_stop || rc=1
	[ -z "${BG_PID[mcg]:-}" ] || bg_stop mcg 143 || rc=1
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
		IBVEVENT_SM_ISSM=1 ibv_eventwatch --sm -j >"$W/out"
	wait_for "${BG_ERR[watch]}" "subnet events: 1 port" 20
	for trap in 64 65 66 67; do
		wait_for "${BG_ERR[watch]}" "^ibv_eventwatch: ibsim0 port 1: no answer from the SA at LID 1 to the subscription to trap $trap after 4 tries; trying again in 20 s\$" 90
	done
	# the next refresh subscribes at the SM that is there by then
	opensm_start_apart HostWatch
	guid=$(printf '%x' "0x$(port_guid HostWatch)")
	wait_count "$FAB/opensm.log" "Adding event subscription for port 0x$guid\$" 4 120
	# and the watcher is still watching
	sim 'Unlink "HostPeer"'
	wait_for "$W/out" '"event":"GID_OUT_OF_SERVICE"' 30
}

@test "the simulator gone under a watcher: a note per trap" {
	# ibsim killed: umad2sim's sends fail. Its receiver then waits for
	# ever, and so do the watcher's receiver threads in umad_recv(): the
	# cancel that ends them at exit leaves umad2sim's queue mutex locked
	# (ThreadSanitizer: destroy of a locked mutex, and the exit may hang),
	# so this watcher is killed, not stopped. On a kernel's umad device
	# the sends time out and the receivers end by themselves.
	export IBVEVENT_SM_REFRESH=20
	watch_start
	bg_stop ibsim 137 KILL
	# the next refresh (20 s) starts the tries again: 1 + 2 + 4 + 8 s
	for trap in 64 65 66 67; do
		wait_for "${BG_ERR[watch]}" "^ibv_eventwatch: ibsim0 port 1: no answer from the SA at LID 1 to the subscription to trap $trap after 4 tries; trying again in 20 s\$" 180
	done
	bg_stop watch 137 KILL
}

# OpenSM refuses no Set(InformInfo) of the watcher's own (any port, traps
# 64-67, Subscribe 0 or 1): its refusals are for a requester LID it does
# not know (whose answer cannot be routed back), a Subscribe above 1,
# security traps without an SM_Key, and a GID or LID range outside the
# requester's partitions. So gdb, stopped in umad_send() at the refresh's
# Set for trap 64, makes its Subscribe 2 on the way out, and OpenSM
# refuses it for real (ERR 430A, status 0x0200). The watcher must name it
# with the status decoded and go on (the next refresh subscribes again).
@test "an SA that refuses a subscription: named with its status, the watcher goes on" {
	export IBVEVENT_SM_REFRESH=5
	watch_start
	# umad_send(fd, agent, umad, ...): the MAD at umad + 64, its SA data
	# at + 56: method Set, attribute InformInfo, Subscribe 1, trap 64
	cat >"$BATS_TEST_TMPDIR/refuse.gdb" <<-'GDB'
		set pagination off
		set confirm off
		break umad_send if *(unsigned char *)($rdx + 67) == 2 && *(unsigned short *)($rdx + 80) == 0x0300 && *(unsigned char *)($rdx + 143) == 1 && *(unsigned short *)($rdx + 146) == 0x4000
		echo READY\n
		continue
		set *(unsigned char *)($rdx + 143) = 2
		printf "SUBSCRIBE %u\n", *(unsigned char *)($rdx + 143)
		detach
		quit
	GDB
	gout=$BATS_TEST_TMPDIR/gdb.out
	bg_start gdb 0 gdb -nx -batch -iex 'set debuginfod enabled off' \
		-p "$WPID" -x "$BATS_TEST_TMPDIR/refuse.gdb" </dev/null >"$gout"
	wait_for "$gout" '^READY' 120
	bg_wait gdb 0 60
	grep -q '^SUBSCRIBE 2$' "$gout" || fail "gdb did not change the Set"
	wait_for "${BG_ERR[watch]}" '^ibv_eventwatch: ibsim0 port 1: the SA refused the subscription to trap 64: request invalid \(status 0x0200\)$' 30
	grep -q 'ERR 430A: Invalid subscribe: 2' "$FAB/opensm.log" ||
		fail "OpenSM did not refuse the Set"
	# a note, not an end: events still come
	sim 'Unlink "HostPeer"'
	wait_for "$W/out" '"event":"GID_OUT_OF_SERVICE"' 30
	assert_equal "$(count_lines "${BG_ERR[watch]}" 'refused')" 1
	running "$WPID" || fail "the watcher ended"
}

# A kernel's umad device fails a read once the device is gone; umad2sim's
# never does, and closing one of its descriptors under a waiting reader
# frees what the reader waits on. So gdb, stopped where the receiver
# next calls umad_recv() (after whatever MAD comes next: at the latest
# the Report of HostPeer leaving), gives it
# a umad2sim descriptor that is not open (1024 + 8 * 31: device slot 31,
# unused): umad2sim's poll() and read() and libibumad then fail it as
# they fail a closed one, with EIO. The watcher must say so in one line
# and end with status 3, not go on without subnet events.
@test "a receiver whose umad_recv() fails ends the watcher: one line, status 3" {
	watch_start
	cat >"$BATS_TEST_TMPDIR/recv.gdb" <<-GDB
		set pagination off
		set confirm off
		break umad_recv
		echo READY\\n
		continue
		set \$rdi = 1272
		printf "BROKE %d\\n", \$rdi
		detach
		quit
	GDB
	not_output "$BATS_TEST_TMPDIR/recv.gdb"
	gout=$BATS_TEST_TMPDIR/gdb.out
	bg_start gdb 0 gdb -nx -batch -iex 'set debuginfod enabled off' \
		-p "$WPID" -x "$BATS_TEST_TMPDIR/recv.gdb" </dev/null >"$gout"
	wait_for "$gout" '^READY' 120
	# One MAD wakes the receiver: the Report of the group's creation, which
	# it answers before its next umad_recv(). No other comes after it. A
	# MAD that comes for a port once it is closed crashes umad2sim's own
	# receiver thread (a NULL queue, a SIGSEGV no sanitizer sees), as one
	# did when an Unlink here made OpenSM send several Reports: the
	# receiver died after the first, and the others came as it closed.
	bg_start mcg 143 env -C "$FAB" SIM_HOST=HostMcast LD_PRELOAD="$UMAD2SIM" \
		"$BUILD/sm/mcg" ff12:e017::4545 600 </dev/null >"$BATS_TEST_TMPDIR/mcg.out"
	bg_wait gdb 0 120
	grep -q '^BROKE 1272$' "$gout" || fail "gdb did not give umad_recv() the descriptor"
	bg_wait watch 3 60
	grep -q '^join status 0$' "$BATS_TEST_TMPDIR/mcg.out" || fail "mcg did not create the group"
	bg_stop mcg 143
	run cat "${BG_ERR[watch]}"
	assert_success
	assert_line "ibv_eventwatch: ibsim0 port 1: subnet events stopped: cannot receive: Input/output error"
	assert_equal "$(count_lines "${BG_ERR[watch]}" 'stopped')" 1
}

# sim_sysfs SCRIPT COMMAND...: run COMMAND on HostWatch under umad2sim,
# claiming IsSM as the suite's watchers do, after SCRIPT (sh) has
# prepared the tree umad2sim writes the management devices' sysfs files
# in (./sys-PID/sys/...: the shell's PID, which exec gives COMMAND). What
# umad2sim cannot write there keeps what SCRIPT put.
sim_sysfs() {
	local script=$1
	shift
	run env -C "$FAB" sh -c "d=sys-\$\$/sys/class/infiniband_mad && $script && exec env SIM_HOST=HostWatch LD_PRELOAD='$(own_preload)' IBVEVENT_SM_ISSM=1 \"\$@\"" sh "$@"
}

@test "no umad ABI (no ib_umad): one line naming the port, status 3" {
	# without ib_umad there is no abi_version for libibumad to read
	# shellcheck disable=SC2016 # expanded by sim_sysfs's shell
	sim_sysfs 'mkdir -p "$d/abi_version"' ibv_eventwatch --sm -t 5
	assert_failure 3
	assert_line "ibv_eventwatch: --sm: cannot open the management device of ibsim0 port 1: Operation not supported (is ib_umad loaded?)"
}

@test "a umad device the user may not open: one line naming it, status 3" {
	# libibumad finds ibsim0 port 1 at umad1, a device umad2sim does not
	# stand in for (its umad0 is made unreadable), so the open reaches the
	# kernel, where a seccomp filter refuses it as a device node's mode
	# would (test/sm/deny.c)
	# shellcheck disable=SC2016 # expanded by sim_sysfs's shell
	sim_sysfs 'mkdir -p "$d/umad0/ibdev" "$d/umad1" && echo ibsim0 >"$d/umad1/ibdev" && echo 1 >"$d/umad1/port"' \
		"$BUILD/sm/deny" ibv_eventwatch --sm -t 5
	assert_failure 3
	assert_line "ibv_eventwatch: --sm: cannot open /dev/infiniband/umad1: Permission denied (subnet events need read-write access to it: root by default)"
}
