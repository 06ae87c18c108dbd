# SPDX-License-Identifier: MIT
# A real subnet manager without InfiniBand hardware: ibsim simulates the
# fabric of test/sm/fabric.net and OpenSM manages it; every libibumad
# program runs with ibsim's umad2sim preloaded and SIM_HOST naming the
# simulated host it sits on. Loaded by the test/sm suites.
# shellcheck disable=SC2034

UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}

# fabric_start: ibsim (console on a FIFO) and OpenSM, until the subnet is up.
fabric_start() {
	if ! command -v ibsim >/dev/null || ! command -v opensm >/dev/null ||
		[ ! -r "$UMAD2SIM" ]; then
		skip "needs ibsim-utils and opensm (make deps)"
	fi
	FAB=$BATS_TEST_TMPDIR/fabric
	mkdir -p "$FAB"
	# ibsim's sockets are abstract: a name of our own, per run
	export IBSIM_SOCKNAME="ibvevent-$$-$RANDOM"
	rm -f "$FAB/console"
	mkfifo "$FAB/console"
	# the test holds the console open (fd 7): at its end ibsim would spin
	exec 7<>"$FAB/console"
	# ibsim has no handler for SIGTERM: it dies of it
	bg_start ibsim 143 env -C "$FAB" ibsim -s "$TOP/test/sm/fabric.net" \
		<"$FAB/console" >"$FAB/ibsim.log"
	opensm_start
}

# opensm_start: OpenSM on HostSM, until its first sweep is done, with
# the P_Key index of what it receives set as the kernel would
# (test/sm/pkey0.c): else it may refuse an unsubscribe of ours. One
# fault of the simulator's is tried again, and said: OpenSM's umad2sim
# dying of a MAD that reaches it before OpenSM has registered its agents
# (see opensm_start_apart), a SIGSEGV as OpenSM starts.
opensm_start() {
	local try
	for try in 1 2; do
		# keep the log of an earlier OpenSM, for the record
		[ ! -s "$FAB/opensm.log" ] || mv "$FAB/opensm.log" "$FAB/opensm.log.$SECONDS"
		: >"$FAB/opensm.log"
		bg_start opensm 0 env -C "$FAB" SIM_HOST=HostSM \
			LD_PRELOAD="$UMAD2SIM $BUILD/sm/pkey0.so" \
			opensm -d2 -D 0x07 -f "$FAB/opensm.log" >"$FAB/opensm.out"
		wait_for "$FAB/opensm.log" "SUBNET UP" 60 "${BG_PID[opensm]}" && return 0
		[ "$try" = 1 ] && ! running "${BG_PID[opensm]}" && bg_check opensm 139 ||
			return 1
		echo "# retry: OpenSM died of SIGSEGV as it started (umad2sim, a MAD before its agents)" >&3
	done
}

# opensm_start_apart HOST: OpenSM started with HOST out of the fabric,
# put back once the subnet is up. OpenSM's umad2sim takes requests as soon
# as OpenSM claims IsSM, before it registers its SA agent, and dies of one
# that comes in between (its receiver looks up the queue of a class nobody
# registered): a watcher on HOST that keeps subscribing must not reach it
# before. HOST is back when OpenSM's sweep has found it again.
opensm_start_apart() {
	sim "Unlink \"$1\""
	opensm_start
	sim "ReLink \"$1\""
}

# OpenSM ends with status 0 on SIGTERM, but not always within 10 s: its
# main thread checks for the signal, then dwells 10 s
# (osm_manager_loop(): cl_thread_suspend(10000)), so a SIGTERM landing
# between the two waits for the dwell; and its sweeper first ends the
# sweep under way. 30 s, and bg_check says when it took over 10.
BG_GRACE["opensm"]=30
opensm_stop() {
	bg_stop opensm 0
}

fabric_stop() {
	[ -n "${FAB:-}" ] || return 0
	local rc=0
	opensm_stop || rc=1
	bg_stop ibsim || rc=1
	exec 7>&-
	FAB=
	return $rc
}

# sim COMMAND...: one line to ibsim's console, e.g. sim 'Unlink "HostPeer"'
sim() {
	echo "$*" >&7
}

# on HOST COMMAND...: run a libibumad program on a simulated host.
on() {
	local host=$1
	shift
	env -C "$FAB" SIM_HOST="$host" LD_PRELOAD="$UMAD2SIM" "$@"
}

# The preload for programs of this build: umad2sim, and for a sanitized
# build its runtime: AddressSanitizer's must come first
# (IBVEVENT_PRELOAD_BEFORE); ThreadSanitizer's after umad2sim
# (IBVEVENT_PRELOAD_AFTER), or its report writer would open files through
# umad2sim's open(), which takes a lock the reporting thread may hold.
own_preload() {
	echo "${IBVEVENT_PRELOAD_BEFORE:+$IBVEVENT_PRELOAD_BEFORE }$UMAD2SIM${IBVEVENT_PRELOAD_AFTER:+ $IBVEVENT_PRELOAD_AFTER}"
}

# port_gid HOST: the port GID of HOST's port 1, as ibv_eventwatch writes it.
port_gid() {
	local guid
	guid=$(port_guid "$1")
	echo "fe80:0000:0000:0000:${guid:0:4}:${guid:4:4}:${guid:8:4}:${guid:12:4}"
}

# watch_start [OPTION...]: ibv_eventwatch --sm -j on HostWatch, until its
# four subscriptions are answered. Under ibsim a subscriber must hold its
# port's IsSM capability (IBVEVENT_SM_ISSM=1) for the SM's Reports to
# reach it.
watch_start() {
	W=$FAB/watch
	mkdir -p "$W"
	bg_start watch 0 env -C "$W" SIM_HOST=HostWatch LD_PRELOAD="$(own_preload)" \
		IBVEVENT_SM_ISSM=1 ibv_eventwatch --sm -j "$@" >"$W/out"
	WPID=$BG_LAST
	wait_for "${BG_ERR[watch]}" "subnet events: 1 port" 20 || return 1
	wait_subscribed
}

# wait_subscribed: the running OpenSM has added the four subscriptions
# (one per trap) of the watcher on HostWatch; its log (-D 0x07) says so.
wait_subscribed() {
	local end=$((SECONDS + 20)) guid re
	guid=$(port_guid HostWatch)
	re="Adding event subscription for port 0x$(printf '%x' "0x$guid")\$"
	until [ "$(count_lines "$FAB/opensm.log" "$re")" -ge 4 ]; do
		if [ $SECONDS -ge $end ]; then
			echo "# OpenSM did not add 4 subscriptions for HostWatch:" >&3
			grep 'event subscription' "$FAB/opensm.log" | sed 's/^/#   /' >&3
			return 1
		fi
		sleep 0.05
	done
}

# port_guid HOST: the port GUID of HOST's port 1 (16 hex digits).
port_guid() {
	printf '%016x' "$(on "$1" ibstat -p | head -n 1)"
}

# resub_start [-a]: test/sm/resub on HostWatch (-a: with the autopsy),
# fed through the FIFO on fd 8, until OpenSM has its four subscriptions.
# Sets R and ADDED (the line OpenSM logs for each new subscription of
# HostWatch).
resub_start() {
	R=$FAB/resub
	mkdir -p "$R"
	mkfifo "$R/feed"
	exec 8<>"$R/feed"
	bg_start resub 0 env -C "$R" SIM_HOST=HostWatch LD_PRELOAD="$(own_preload)" \
		IBVEVENT_SM_ISSM=1 "$BUILD/sm/resub" "$@" "$R/feed" >"$R/out"
	wait_subscribed
	guid=$(printf '%x' "0x$(port_guid HostWatch)")
	ADDED="Adding event subscription for port 0x$guid\$"
	REMOVED="Removing event subscription for port 0x$guid\$"
}

watch_stop() {
	bg_stop watch 0
}
