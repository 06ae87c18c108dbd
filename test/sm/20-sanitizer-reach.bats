#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The sanitizer suppressions for ibsim's umad2sim (test/asan.supp,
# test/tsan.supp) hide the simulator's own errors, not an overrun of or a
# race on a buffer of ours that passes through it: test/sm/overrun.c, built
# like this build's programs, does one on purpose and AddressSanitizer or
# ThreadSanitizer must report it.

load ../test_helper
load fabric

setup() {
	ibve_setup
	fabric_start
}

teardown() {
	local rc=0
	fabric_stop || rc=1
	ibve_teardown || rc=1
	return $rc
}

# asan_only: the overrunning modes run only where AddressSanitizer is
# built in (make check-asan); elsewhere they would overrun for real.
asan_only() {
	readelf -d "$BUILD/sm/overrun" | grep -q 'libasan' ||
		skip "needs the AddressSanitizer build (make check-asan)"
}

tsan_only() {
	readelf -d "$BUILD/sm/overrun" | grep -q 'libtsan' ||
		skip "needs the ThreadSanitizer build (make check-tsan)"
}

# overrun MODE: run test/sm/overrun on HostWatch, its sanitizer reports in
# this test's directory (not the suite's, where any report fails the test)
# and with the suppressions of test/asan.supp and test/tsan.supp. The last
# log_path wins, and LSAN_OPTIONS are read after ASAN_OPTIONS.
overrun() {
	REP=$BATS_TEST_TMPDIR/overrun
	mkdir -p "$REP"
	run env -C "$FAB" SIM_HOST=HostWatch LD_PRELOAD="$(own_preload)" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:suppressions=$TOP/test/asan.supp:log_path=$REP/asan" \
		LSAN_OPTIONS="${LSAN_OPTIONS:-}:log_path=$REP/asan" \
		UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:log_path=$REP/asan" \
		TSAN_OPTIONS="${TSAN_OPTIONS:-}:suppressions=$TOP/test/tsan.supp:log_path=$REP/tsan" \
		"$BUILD/sm/overrun" "$1"
}

@test "buffers of the right size through the simulator: answered, nothing reported" {
	overrun exact
	assert_success
	assert_output "status 0"
	run find "$REP" -type f -size +0
	assert_success
	assert_output ""
}

@test "a receive buffer shorter than the length given to umad_recv() is reported" {
	asan_only
	overrun recv
	assert_failure 86
	run cat "$REP"/asan.*
	assert_success
	assert_line --regexp '^==[0-9]+==ERROR: AddressSanitizer: heap-buffer-overflow'
	assert_line --regexp '^WRITE of size 320 '
	assert_line --regexp '^ +#[0-9]+ .* in umad_recv '
	assert_line --regexp '^ +#[0-9]+ .* in recv_resp .*test/sm/overrun.c'
}

@test "a send length past the buffer given to umad_send() is reported" {
	asan_only
	overrun send
	assert_failure 86
	run cat "$REP"/asan.*
	assert_success
	assert_line --regexp '^==[0-9]+==ERROR: AddressSanitizer: heap-buffer-overflow'
	assert_line --regexp '^READ of size 352 '
	assert_line --regexp '^ +#[0-9]+ .* in umad_send '
	assert_line --regexp '^ +#[0-9]+ .* in send_get .*test/sm/overrun.c'
}

@test "a path of ours read past by the simulator's own open() is reported" {
	# no interceptor of the sanitizer's looks at open()'s path: only
	# umad2sim's calls to snprintf() and strncmp() in it do, which a
	# suppression of the whole library would hide
	asan_only
	overrun open
	assert_failure 86
	run cat "$REP"/asan.*
	assert_success
	assert_line --regexp '^==[0-9]+==ERROR: AddressSanitizer: heap-buffer-overflow'
	assert_line --regexp '^ +#[0-9]+ .* in open \(.*libumad2sim.so'
	assert_line --regexp '^ +#[0-9]+ .* in open_unterminated .*test/sm/overrun.c'
}

@test "a buffer of ours written by another thread while the simulator fills it is reported" {
	# umad2sim's read() fills it with memcpy(), which the sanitizer
	# sees from a frame of the simulator's: a suppression by library
	# would hide the race
	tsan_only
	overrun race
	assert_failure 86
	run cat "$REP"/tsan.*
	assert_success
	assert_line --regexp '^WARNING: ThreadSanitizer: data race '
	assert_line --regexp '^ +#0 memcpy '
	assert_line --regexp '^ +#[0-9]+ read <null> \(libumad2sim.so\+'
	assert_line --regexp '^ +#0 scribble .*test/sm/overrun.c'
	assert_line --regexp '^ +#[0-9]+ recv_resp .*test/sm/overrun.c'
}
