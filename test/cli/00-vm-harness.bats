#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The contract of test/vm/run, which every guest test depends on.

load ../test_helper

setup() {
	ibve_setup
	[ "${IBVEVENT_VM:-}" != 1 ] || skip "runs on the host, not inside the guest"
	VMRUN=$TOP/test/vm/run
	export VM_QUIET=1
}

# Each boot costs about 11 s under emulation: one boot shows all that one
# boot can, and a guest has one CPU (as make check's).
@test "one guest: root, same directory (under /tmp), rxe0 ACTIVE, stdout a pipe, stderr apart, its status; host root read-only, results share writable, /tmp its own" {
	dir=$(mktemp -d /tmp/ibvevent-cwd.XXXXXX)
	hostonly=$(mktemp /tmp/ibvevent-host-only.XXXXXX)
	echo here >"$dir/mark"
	mkdir "$dir/results"
	cd "$dir"
	# shellcheck disable=SC2016 # expanded in the guest
	VM_CPUS=1 VM_RESULTS=$dir/results run --separate-stderr "$VMRUN" -- sh -c \
		'echo "$(id -u) $PWD $(cat /sys/class/infiniband/rxe0/ports/1/state)"
		[ -t 1 ] && echo tty || echo not-a-tty
		cat mark
		touch "$1/.vm-write-test" 2>/dev/null && echo wrote-root
		echo ok >"$VM_RESULTS/out"
		[ ! -e "$2" ] && touch /tmp/t && echo tmp-ok
		echo to-stderr >&2; exit 7' sh "$TOP" "$hostonly"
	results=$(cat "$dir/results/out" 2>/dev/null) || true
	rm -rf "$dir" "$hostonly"
	assert_failure 7
	assert_output $'0 '"$dir"$' 4: ACTIVE\nnot-a-tty\nhere\ntmp-ok'
	[ ! -e "$TOP/.vm-write-test" ]
	[ "$results" = ok ]
	# with VM_QUIET=1 (setup's), stderr is the command's alone
	[ "$stderr" = to-stderr ]
}

@test "test/vm/run true exits 0; the boot-time line is printed unless VM_QUIET=1" {
	VM_QUIET=0 VM_CPUS=1 run --separate-stderr "$VMRUN" true
	assert_success
	[[ $stderr =~ ^vm:\ .*rxe0\ ACTIVE\ [0-9.]+\ s\ after\ boot ]]
}

@test "a guest that does not finish is killed after VM_TIMEOUT with a clear message" {
	VM_TIMEOUT=20 VM_CPUS=1 run --separate-stderr "$VMRUN" sleep 600
	assert_failure 124
	[ -z "$output" ]
	[[ $stderr == *'test/vm/run: guest did not finish within 20 s (VM_TIMEOUT); killed'* ]]
}

@test "usage errors exit 2" {
	run "$VMRUN"
	assert_failure 2
	run "$VMRUN" --kernel 5.10 true
	assert_failure 2
	assert_output --partial "unknown kernel series '5.10'"
	run "$VMRUN" --bogus true
	assert_failure 2
}
