#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# ibv_eventwatch: usage errors, runtime failures and their exit statuses,
# and the host's real libibverbs, which finds no RDMA device here.

load ../test_helper

setup() {
	ibve_setup
	FABRIC=$CAPTURES/ib-fabric.jsonl
}

no_rdma_here() {
	[ "${IBVEVENT_VM:-}" != 1 ] || skip "the guest has rxe0; this needs a host without RDMA"
	[ ! -d /sys/class/infiniband_verbs ] || skip "this host has RDMA devices"
}

@test "-h prints usage and exits 0; -V prints the version" {
	run ibv_eventwatch -h
	assert_success
	assert_line --index 0 'Usage: ibv_eventwatch [OPTIONS]'
	run ibv_eventwatch --version
	assert_success
	assert_output --regexp '^ibv_eventwatch [0-9]+\.[0-9]+\.[0-9]+ \(libibvevent [0-9.]+; mlx5 DEVX events: (yes|no), all processes \(eBPF\): (yes|no)\)$'
}

@test "usage errors exit 2 with one clear line" {
	run --separate-stderr ibv_eventwatch --bogus
	assert_failure 2
	run --separate-stderr ibv_eventwatch -e PORT_ERRX -r "$FABRIC"
	assert_failure 2
	[ "${stderr_lines[0]}" = "ibv_eventwatch: unknown event, class or severity 'PORT_ERRX': did you mean PORT_ERR? (ibv_eventwatch --list-events lists them)" ]
	run --separate-stderr ibv_eventwatch -x 'severity>=loud' -r "$FABRIC"
	assert_failure 2
	run --separate-stderr ibv_eventwatch --expect '' -r "$FABRIC"
	assert_failure 2
	run --separate-stderr ibv_eventwatch -n 0 -r "$FABRIC"
	assert_failure 2
	[ "${stderr_lines[0]}" = "ibv_eventwatch: invalid count '0': a positive number" ]
	run --separate-stderr ibv_eventwatch -n -3 -r "$FABRIC"
	assert_failure 2
	run --separate-stderr ibv_eventwatch -t 0 -r "$FABRIC"
	assert_failure 2
	[ "${stderr_lines[0]}" = "ibv_eventwatch: invalid timeout '0': seconds, more than 0" ]
	run --separate-stderr ibv_eventwatch -t soon -r "$FABRIC"
	assert_failure 2
	run --separate-stderr ibv_eventwatch -i 0 -r "$FABRIC"
	assert_failure 2
	run --separate-stderr ibv_eventwatch -r "$FABRIC" extra
	assert_failure 2
	[ "${stderr_lines[0]}" = "ibv_eventwatch: unexpected argument 'extra'" ]
	run --separate-stderr ibv_eventwatch -l -r "$FABRIC"
	assert_failure 2
}

@test "a missing or unreadable replay file exits 3 naming it" {
	run --separate-stderr ibv_eventwatch -r /nonexistent/cap.jsonl
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: /nonexistent/cap.jsonl: No such file or directory" ]
	run --separate-stderr ibv_eventwatch -r /
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: /: Is a directory" ]
}

@test "-w to a file that cannot be opened exits 3 before reading anything" {
	run --separate-stderr ibv_eventwatch -r "$FABRIC" -w /nonexistent/out.jsonl
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: /nonexistent/out.jsonl: No such file or directory" ]
	assert_output ''
}

@test "a full disk on standard output or on -w exits 3 with the cause" {
	run --separate-stderr bash -c "ibv_eventwatch -r '$FABRIC' >/dev/full"
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: write to standard output: No space left on device" ]
	run --separate-stderr ibv_eventwatch -r "$FABRIC" -w /dev/full
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: write to /dev/full: No space left on device" ]
}

@test "a reader that goes away (| head -1) ends the watcher quietly with 0" {
	big=$BATS_TEST_TMPDIR/big.jsonl
	not_output "$big"
	for _ in $(seq 200); do cat "$FABRIC"; done >"$big"
	run --separate-stderr bash -c "set -o pipefail; ibv_eventwatch -r '$big' | head -n 1"
	assert_success
	assert_output --partial PORT_ERR
	[ -z "$stderr" ]
}

@test "no RDMA device at all: one line, status 3 for scripts; a plain watcher waits (the host's real libibverbs)" {
	no_rdma_here
	for opt in '-n 1' '-t 600' '--expect PORT_ERR' '-q -n 1'; do
		# shellcheck disable=SC2086
		run --separate-stderr ibv_eventwatch $opt
		assert_failure 3
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ ${stderr_lines[0]} == "ibv_eventwatch: no RDMA devices found"* ]]
	done
	# a plain watcher (the service's) says it waits, and runs until stopped
	bg_start w 0 ibv_eventwatch
	wait_for "${BG_ERR[w]}" 'watching' 30
	run cat "${BG_ERR[w]}"
	assert_success
	assert_output --regexp '^ibv_eventwatch: watching 0 devices \(hot-plug: (netlink|uevent)\)$'
	running "$(bg_pid w)"
	bg_stop w 0
	bg_start q 0 ibv_eventwatch -q --metrics-file "$BATS_TEST_TMPDIR/m.prom"
	wait_for "${BG_ERR[q]}" 'waiting' 30
	assert_equal "$(cat "${BG_ERR[q]}")" "ibv_eventwatch: no RDMA devices yet: waiting for them to appear"
	bg_stop q 0
	run --separate-stderr ibv_eventwatch -l
	assert_failure 3
	[[ ${stderr_lines[0]} == "ibv_eventwatch: no RDMA devices found"* ]]
	run --separate-stderr ibv_eventwatch -d mlx5_0 --expect PORT_ERR -t 1
	assert_failure 3
}

@test "--pid and --comm without -A: said once at start that they match nothing" {
	note="ibv_eventwatch: --pid and --comm match events of processes' own objects, which only -A sees: without it they match nothing"
	# 3 here without a device; 0 at the timeout where there is one
	run --separate-stderr ibv_eventwatch --pid 1 --comm sshd -n 1 -t 1
	[ "$status" -eq 3 ] || [ "$status" -eq 0 ] || fail "status $status: $stderr"
	assert_equal "${stderr_lines[0]}" "$note"
	assert_equal "$(grep -c 'match nothing' <<<"$stderr")" 1
	# a capture may hold -A's records: no note
	run --separate-stderr ibv_eventwatch -r "$FABRIC" --comm sshd
	assert_success
	assert_equal "$stderr" ''
	# with -A, whatever else happens here, no note either
	run --separate-stderr ibv_eventwatch -A --pid 1 -t 1
	[ "$status" -eq 3 ] || [ "$status" -eq 0 ] || fail "status $status: $stderr"
	[[ $stderr != *'match nothing'* ]] || fail "noted with -A: $stderr"
}

# in_ns CMD...: CMD in a mount namespace of its own where /dev is a new,
# empty tmpfs (no /dev/log), as root.
in_ns() {
	unshare -m --propagation private -- sh -c 'mount -t tmpfs tmpfs /dev && exec "$@"' sh "$@"
}

@test "--syslog with no syslog daemon: one line and status 3 before anything; with one, it logs" {
	[ "$(id -u)" = 0 ] || skip "a /dev/log of the test's own needs root (mount namespaces)"
	command -v unshare >/dev/null || skip "unshare is not installed (util-linux)"
	run --separate-stderr in_ns ibv_eventwatch -r "$FABRIC" --syslog
	assert_failure 3
	assert_equal "$stderr" 'ibv_eventwatch: --syslog: no syslog daemon at /dev/log (No such file or directory)'
	assert_output '' # not one record replayed
	# a socket at /dev/log: the records reach it, read there (not by the watcher)
	# shellcheck disable=SC2016 # python's text
	run --separate-stderr in_ns python3 -c '
import socket, subprocess, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
s.settimeout(0.2)
n = 0
while True:  # read while it writes: a full socket would block it
    try:
        n += " event=" in s.recv(65536).decode()
    except socket.timeout:  # nothing queued: done once it has ended
        if p.poll() is not None:
            break
print(p.returncode, n)' ibv_eventwatch -r "$FABRIC" --syslog
	assert_success
	assert_output "0 $(ibv_eventwatch -r "$FABRIC" | wc -l)"
	assert_equal "$stderr" ''
}
