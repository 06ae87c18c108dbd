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

# Each test boots a guest (about 11 s under emulation): what one boot can
# show, one test shows.
@test "the command runs as root in the same directory, with rxe0 ACTIVE, stdout a pipe, stderr apart, its status" {
	cd "$TOP"
	# shellcheck disable=SC2016 # expanded in the guest
	run --separate-stderr "$VMRUN" -- sh -c \
		'echo "$(id -u) $PWD $(cat /sys/class/infiniband/rxe0/ports/1/state)"
		[ -t 1 ] && echo tty || echo not-a-tty
		echo to-stderr >&2; exit 7'
	assert_failure 7
	assert_output $'0 '"$TOP"$' 4: ACTIVE\nnot-a-tty'
	[ "$stderr" = to-stderr ]
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

@test "test/vm/run true exits 0; the boot-time line is printed unless VM_QUIET=1" {
	VM_QUIET=0 run --separate-stderr "$VMRUN" true
	assert_success
	[[ $stderr =~ vm:\ .*rxe0\ ACTIVE\ [0-9.]+\ s\ after\ boot ]]
	# with VM_QUIET=1 (setup's), the first test's stderr is the command's
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
