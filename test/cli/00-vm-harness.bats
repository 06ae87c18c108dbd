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

@test "test/vm/run true exits 0" {
	run "$VMRUN" true
	assert_success
}

@test "test/vm/run false exits 1" {
	run "$VMRUN" false
	assert_failure 1
}

@test "the command runs as root in the same directory, with rxe0 ACTIVE, stdout and stderr apart" {
	cd "$TOP"
	# shellcheck disable=SC2016 # expanded in the guest
	run --separate-stderr "$VMRUN" -- sh -c \
		'echo "$(id -u) $PWD $(cat /sys/class/infiniband/rxe0/ports/1/state)"; echo to-stderr >&2; exit 7'
	assert_failure 7
	assert_output "0 $TOP 4: ACTIVE"
	[ "$stderr" = to-stderr ]
}

@test "stdout in the guest is a pipe, not the serial tty" {
	run "$VMRUN" -- sh -c '[ -t 1 ] && echo tty || echo not-a-tty'
	assert_success
	assert_output not-a-tty
}

@test "the host root is read-only in the guest, the results share is writable" {
	dir=$BATS_TEST_TMPDIR/results
	mkdir -p "$dir"
	VM_RESULTS=$dir run "$VMRUN" -- sh -c \
		"touch '$TOP/.vm-write-test' 2>/dev/null && echo wrote-root; echo ok >'$dir/out'"
	assert_success
	refute_output wrote-root
	[ ! -e "$TOP/.vm-write-test" ]
	[ "$(cat "$dir/out")" = ok ]
}

@test "a working directory under /tmp stays visible; /tmp itself is the guest's own" {
	dir=$(mktemp -d /tmp/ibvevent-cwd.XXXXXX)
	echo here >"$dir/mark"
	cd "$dir"
	run "$VMRUN" -- sh -c 'cat mark; [ ! -e /tmp/ibvevent-cwd-host-only ] && touch /tmp/t && echo tmp-ok'
	rm -rf "$dir"
	assert_success
	assert_output $'here\ntmp-ok'
}

@test "a guest that does not finish is killed after VM_TIMEOUT with a clear message" {
	VM_TIMEOUT=20 run "$VMRUN" sleep 600
	assert_failure 124
	assert_output --partial 'guest did not finish within 20 s (VM_TIMEOUT); killed'
}

@test "the boot-time line is printed unless VM_QUIET=1" {
	VM_QUIET=0 run --separate-stderr "$VMRUN" true
	assert_success
	[[ $stderr =~ vm:\ .*rxe0\ ACTIVE\ [0-9.]+\ s\ after\ boot ]]
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
