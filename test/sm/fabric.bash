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
	# holds the console open, so ibsim never reads end of file
	sleep 100000 >"$FAB/console" &
	echo $! >"$FAB/console.pid"
	(cd "$FAB" && exec ibsim -s "$TOP/test/sm/fabric.net" \
		<"$FAB/console" >"$FAB/ibsim.log" 2>&1) &
	echo $! >"$FAB/ibsim.pid"
	opensm_start
}

# opensm_start: OpenSM on HostSM, until its first sweep is done.
opensm_start() {
	# keep the log of an earlier OpenSM, for the record
	[ ! -s "$FAB/opensm.log" ] || mv "$FAB/opensm.log" "$FAB/opensm.log.$SECONDS"
	: >"$FAB/opensm.log"
	(cd "$FAB" && SIM_HOST=HostSM LD_PRELOAD=$UMAD2SIM exec opensm \
		-d2 -f "$FAB/opensm.log" >"$FAB/opensm.out" 2>&1) &
	echo $! >"$FAB/opensm.pid"
	wait_for "$FAB/opensm.log" "SUBNET UP" 60
}

opensm_stop() {
	kill "$(cat "$FAB/opensm.pid")" 2>/dev/null || true
	wait_gone "$(cat "$FAB/opensm.pid")"
}

# wait_gone PID: until the process has ended (10 s at most).
wait_gone() {
	local end=$((SECONDS + 10))
	while kill -0 "$1" 2>/dev/null && [ $SECONDS -lt $end ]; do
		sleep 0.05
	done
}

fabric_stop() {
	[ -n "${FAB:-}" ] || return 0
	opensm_stop
	for p in ibsim console; do
		kill "$(cat "$FAB/$p.pid" 2>/dev/null)" 2>/dev/null || true
	done
	FAB=
}

# sim COMMAND...: one line to ibsim's console, e.g. sim 'Unlink "HostPeer"'
sim() {
	echo "$*" >"$FAB/console"
}

# on HOST COMMAND...: run a libibumad program on a simulated host.
on() {
	local host=$1
	shift
	(cd "$FAB" && SIM_HOST=$host LD_PRELOAD=$UMAD2SIM "$@")
}

# port_gid HOST: the port GID of HOST's port 1, as ibv_eventwatch writes it.
port_gid() {
	local guid
	guid=$(on "$1" ibstat -p | head -n 1)
	guid=$(printf '%016x' "$guid")
	echo "fe80:0000:0000:0000:${guid:0:4}:${guid:4:4}:${guid:8:4}:${guid:12:4}"
}

# watch_start [OPTION...]: ibv_eventwatch --sm -j on HostWatch, until
# subscribed. A subscriber under ibsim must be an SM-capable port
# (SIM_SET_ISSM) for the SM's Reports to reach it.
#
# When a port becomes SM-capable, ibsim tells the SM (trap 144) and the SM
# at once asks the port about itself. umad2sim's receiver thread takes a
# NULL queue's lock when a MAD reaches a client before the client
# registered that class, and an SMP answered too late stalls OpenSM's
# sweeps: the watcher registers its agents first thing, but a start still
# loses that race now and then. A watcher that died at its start is
# started again here (its slot freed with the console's "X n"), saying
# so; a stalled SM fails the test, which bats tries again on a new fabric.
watch_start() {
	local try end n
	W=$FAB/watch
	mkdir -p "$W"
	for try in 1 2 3; do
		: >"$W/out"
		: >"$W/err"
		(cd "$W" && SIM_HOST=HostWatch SIM_SET_ISSM=1 \
			LD_PRELOAD=$UMAD2SIM \
			exec ibv_eventwatch --sm -j "$@" >"$W/out" 2>"$W/err") &
		WPID=$!
		end=$((SECONDS + 20))
		while kill -0 "$WPID" 2>/dev/null && [ $SECONDS -lt $end ]; do
			if grep -q "subnet events: 1 port" "$W/err"; then
				sleep 1 # the SA has the four subscriptions
				return 0
			fi
			sleep 0.05
		done
		if kill -0 "$WPID" 2>/dev/null; then
			echo "# the watcher did not subscribe:" >&3
			sed 's/^/#   /' "$W/err" >&3
			return 1
		fi
		wait "$WPID" 2>/dev/null || true
		echo "# start $try: the watcher died (umad2sim race); starting it again" >&3
		sim Attached
		sleep 0.3
		n=$(sed -n "s/.*Client \([0-9]*\): pid $WPID .*/\1/p" \
			"$FAB/ibsim.log" | tail -n 1)
		[ -z "$n" ] || sim "X $n"
		sleep 0.3
	done
	return 1
}

watch_stop() {
	kill -TERM "$WPID" 2>/dev/null || true
	wait "$WPID" 2>/dev/null || true
}
