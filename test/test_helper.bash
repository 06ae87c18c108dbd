# SPDX-License-Identifier: MIT
# Shared by every bats suite (test/cli on the host, test/rxe in the guest).
# Variables set here are for the test files that load it.
# shellcheck disable=SC2034

bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
export PATH="$BUILD/bin:$PATH"
CAPTURES=$TOP/test/captures
EXPECTED=$TOP/test/expected

# wait_for FILE REGEX [SECONDS]: wait until a line of FILE matches REGEX
# (grep -E). Tests may poll; the tools under test never do.
# Timeouts are in real seconds: under emulation each check costs more.
wait_for() {
	local file=$1 re=$2 end=$((SECONDS + ${3:-10}))
	while ! grep -Eq -- "$re" "$file" 2>/dev/null; do
		if [ $SECONDS -ge $end ]; then
			echo "# timed out after ${3:-10} s waiting for /$re/ in $file:" >&3
			sed 's/^/#   /' "$file" >&3 2>/dev/null
			return 1
		fi
		sleep 0.05
	done
}

# wait_count FILE REGEX N [SECONDS]: until N lines of FILE match REGEX.
wait_count() {
	local end=$((SECONDS + ${4:-10}))
	until [ "$(count_lines "$1" "$2")" -ge "$3" ]; do
		if [ $SECONDS -ge $end ]; then
			echo "# timed out waiting for $3 lines /$2/ in $1 ($(count_lines "$1" "$2") seen)" >&3
			return 1
		fi
		sleep 0.05
	done
}

# count_lines FILE REGEX: number of lines of FILE matching REGEX.
count_lines() {
	grep -Ec -- "$2" "$1" 2>/dev/null || true
}

# Guest-only helpers. The harness (test/vm/run) makes rxe0 on dummy0.
require_guest() {
	[ "${IBVEVENT_VM:-}" = 1 ] ||
		skip "needs the soft-RoCE guest: run through make check-vm"
}

kernel_at_least() {
	local want=$1 have
	have=$(uname -r | cut -d- -f1)
	[ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n 1)" = "$want" ]
}

port_state() {
	cut -d' ' -f2 "/sys/class/infiniband/${1:-rxe0}/ports/${2:-1}/state"
}

# wait_port_state STATE [DEV]: e.g. wait_port_state ACTIVE
wait_port_state() {
	local end=$((SECONDS + 10))
	until [ "$(port_state "${2:-rxe0}")" = "$1" ]; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.05
	done
}

# Put the guest back as the harness made it: rxe0 on dummy0, port ACTIVE.
restore_rxe() {
	ip link set dummy0 up 2>/dev/null || true
	if [ ! -e /sys/class/infiniband/rxe0 ]; then
		rdma link add rxe0 type rxe netdev dummy0
	fi
	wait_port_state ACTIVE
}

# Stop a background process started by a test, quietly.
stop_bg() {
	local pid
	for pid in "$@"; do
		[ -n "$pid" ] || continue
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}

# start_watch ARGS...: ibv_eventwatch in the background, ready to see
# events when this returns (it has printed its "watching" line).
# Sets WPID, WOUT (its stdout) and WERR (its stderr).
start_watch() {
	WOUT=$BATS_TEST_TMPDIR/watch.out
	WERR=$BATS_TEST_TMPDIR/watch.err
	ibv_eventwatch "$@" >"$WOUT" 2>"$WERR" &
	WPID=$!
	wait_for "$WERR" '^ibv_eventwatch: watching'
}

# start_asyncwatch: rdma-core's ibv_asyncwatch on rxe0 as the reference.
start_asyncwatch() {
	AOUT=$BATS_TEST_TMPDIR/asyncwatch.out
	stdbuf -oL ibv_asyncwatch -d rxe0 >"$AOUT" 2>&1 &
	APID=$!
	wait_for "$AOUT" 'async event FD'
}

# The hot-plug method the watcher should report on this kernel.
expected_hotplug() {
	if kernel_at_least 6.11; then echo netlink; else echo uevent; fi
}

# A terminal for screen tests: tmux on a socket of this test's own.
# tm_start CMD: run CMD in a 170x30 terminal; when it ends, the pane
# shows EXIT=<status>.
tm() {
	tmux -L "ibve-$$-${BATS_TEST_NUMBER:-0}" "$@"
}

tm_start() {
	tm new-session -d -x "${TM_COLS:-170}" -y "${TM_LINES:-30}" \
		"$1; echo EXIT=\$?; sleep 600"
}

tm_screen() {
	tm capture-pane -p -t 0
}

# tm_wait REGEX [SECONDS]: until a line of the screen matches.
tm_wait() {
	local end=$((SECONDS + ${2:-10}))
	until tm_screen | grep -Eq -- "$1"; do
		if [ $SECONDS -ge $end ]; then
			echo "# timed out waiting for /$1/ on the screen:" >&3
			tm_screen | sed 's/^/#   |/' >&3
			return 1
		fi
		sleep 0.05
	done
}

tm_stop() {
	tm kill-server 2>/dev/null || true
}

# free_port: a TCP port nothing listens on, on loopback.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 20000))
		ss -ltnH "sport = :$p" | grep -q . || break
	done
	echo "$p"
}

# wait_http URL [SECONDS]: until URL answers.
wait_http() {
	local end=$((SECONDS + ${2:-15}))
	until curl -fs -o /dev/null "$1"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}
