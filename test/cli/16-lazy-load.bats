#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Start-up: libibvevent links libibverbs alone; libbpf, libmlx5, libibumad
# and json-c are loaded when a source or the JSON reader first needs them
# (lib/dl.c). What a process loaded is read from the kernel's
# /proc/PID/maps and from the dynamic loader's own report (LD_DEBUG), not
# from the program. A library that cannot be loaded is hidden for real: in
# a mount namespace of the test, /dev/null is bound over its file.

load ../test_helper

LIB=$BUILD/lib/libibvevent.so.0
# the optional libraries, and those libbpf brings
LAZY_RE='/lib(bpf|mlx5|ibumad|json-c|elf|z)\.so'

setup() {
	ibve_setup
	export TZ=UTC
	FABRIC=$CAPTURES/ib-fabric.jsonl
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	exec 5>&- 2>/dev/null || true
	return $rc
}

# hidden "PKG:LIB..." CMD...: CMD where each library LIB of pkg-config's
# PKG (its file, whatever its names) reads as empty: the dynamic loader
# finds it and cannot load it.
hidden() {
	local files=() pl file
	for pl in $1; do
		file=$(readlink -f "$(pkg-config --variable=libdir "${pl%%:*}")/${pl#*:}.so")
		[ -f "$file" ] || fail "no ${pl#*:}.so of ${pl%%:*} to hide"
		files+=("$file")
	done
	shift
	# shellcheck disable=SC2016 # expanded by that sh
	unshare -m sh -c 'while [ "$1" != -- ]; do mount --bind /dev/null "$1" || exit 99; shift; done; shift; exec "$@"' \
		sh "${files[@]}" -- "$@"
}

need_unshare() {
	if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
		skip "hiding a library needs root and a mount namespace (unshare -m)"
	fi
}

@test "the library's dynamic section names libibverbs, none of the optional libraries" {
	run readelf -d "$LIB"
	assert_success
	assert_output --partial 'Shared library: [libibverbs.so.1]'
	refute_output --regexp 'Shared library: \[lib(bpf|mlx5|ibumad|json-c|elf|z)\.so'
	run ldd "$LIB"
	assert_success
	refute_output --regexp 'lib(bpf|mlx5|ibumad|json-c|elf|z)\.so'
	# nor does its pkg-config file ask for them
	make -s -C "$TOP" B="$BATS_TEST_TMPDIR/pc" "$BATS_TEST_TMPDIR/pc/libibvevent.pc"
	run -0 grep '^Requires' "$BATS_TEST_TMPDIR/pc/libibvevent.pc"
	assert_output 'Requires.private: libibverbs'
}

@test "-V and a live start load none of them (the dynamic loader's report)" {
	LD_DEBUG=files run --separate-stderr ibv_eventwatch -V
	assert_success
	grep -q 'file=libibverbs\.so' <<<"$stderr" # the report is there
	run grep -E 'file=lib(bpf|mlx5|ibumad|json-c|elf|z)\.so' <<<"$stderr"
	assert_failure
	# without devices the host's start ends early (3); with some it runs
	LD_DEBUG=files run --separate-stderr ibv_eventwatch -q -t 0.001
	[ "$status" = 0 ] || [ "$status" = 3 ]
	grep -q 'file=libibverbs\.so' <<<"$stderr"
	run grep -E 'file=lib(bpf|mlx5|ibumad|json-c|elf|z)\.so' <<<"$stderr"
	assert_failure
}

@test "a replay maps none of them; a line only json-c reads loads json-c, then replays" {
	fifo=$BATS_TEST_TMPDIR/events
	out=$BATS_TEST_TMPDIR/out
	mkfifo "$fifo"
	exec 5<>"$fifo"
	bg_start watch 0 ibv_eventwatch -r - <"$fifo" >"$out" 5>&-
	grep -m 1 '"event":"PORT_ERR"' "$FABRIC" >&5
	wait_for "$out" ' PORT_ERR ' 60
	maps=/proc/$(bg_pid watch)/maps
	grep -q '/libibvevent\.so' "$maps" # the right process, mapped
	run -1 grep -cE "$LAZY_RE" "$maps"
	assert_output 0
	# "rates" is an array: the library's scanner leaves the line to json-c
	grep -m 1 '"rates"' "$FABRIC" >&5
	wait_for "$out" 'DEVICE_SPEED_CHANGE .*port 1: 200 Gb/sec \(4X HDR\) -> 100 Gb/sec' 60
	grep -q '/libjson-c\.so' "$maps"
	run -1 grep -cE '/lib(bpf|mlx5|ibumad|elf|z)\.so' "$maps"
	assert_output 0
	exec 5>&-
	bg_wait watch 0 60
}

@test "a required source whose library cannot be loaded: one line naming it, status 3" {
	need_unshare
	run --separate-stderr hidden libibumad:libibumad ibv_eventwatch --sm -t 1
	assert_failure 3
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr =~ ^ibv_eventwatch:\ --sm:\ cannot\ load\ libibumad\.so\.[0-9]+\ \(needed\ for\ subnet\ events\;\ Debian\ package\ libibumad3\):\ .*libibumad.*$ ]] ||
		fail "not the line expected: $stderr"
	if ibv_eventwatch -V | grep -q 'all processes (eBPF): yes'; then
		run --separate-stderr hidden libbpf:libbpf ibv_eventwatch -A -t 1
		assert_failure 3
		assert_equal "${#stderr_lines[@]}" 1
		[[ $stderr =~ ^ibv_eventwatch:\ --all-processes:\ cannot\ load\ libbpf\.so\.[0-9]+\ \(needed\ for\ the\ eBPF\ programs\;\ Debian\ package\ libbpf1\):\ .*libbpf.*$ ]] ||
			fail "not the line expected: $stderr"
	fi
}

@test "without json-c: the library's own lines replay; a line that needs it ends the replay, 3" {
	need_unshare
	flat=$BATS_TEST_TMPDIR/flat.jsonl
	grep -v '"rates"' "$FABRIC" >"$flat"
	not_output "$flat" # a hand-written capture's lines: input
	run --separate-stderr hidden json-c:libjson-c ibv_eventwatch -r "$flat"
	assert_success
	assert_equal "$stderr" ''
	diff -u <(ibv_eventwatch -r "$flat") <(echo "$output")
	run --separate-stderr hidden json-c:libjson-c ibv_eventwatch -r "$FABRIC"
	assert_failure 3
	[ "${#stderr_lines[@]}" = 1 ] && [[ $stderr == "ibv_eventwatch: $FABRIC: cannot load libjson-c.so."[0-9]*" (needed to read JSON; Debian package libjson-c5): "*libjson-c* ]] ||
		fail "not the line expected: $stderr"
}

@test "with all four hidden: -V, a live start and replays of every source go as they do with them" {
	need_unshare
	all="json-c:libjson-c libibumad:libibumad libmlx5:libmlx5 libbpf:libbpf"
	run hidden "$all" ibv_eventwatch -V
	assert_success
	assert_output "$(ibv_eventwatch -V)"
	# without devices the host's start ends early, the same either way
	run --separate-stderr ibv_eventwatch -q -t 0.001
	want_status=$status want_err=$stderr
	run --separate-stderr hidden "$all" ibv_eventwatch -q -t 0.001
	assert_equal "$status" "$want_status"
	assert_equal "$stderr" "$want_err"
	# mlx5 entries decode without libmlx5
	run --separate-stderr hidden "$all" ibv_eventwatch -r "$CAPTURES/mlx5.jsonl"
	assert_success
	diff -u "$EXPECTED/mlx5.txt" <(echo "$output")
	for c in kernel sm hotplug; do
		run --separate-stderr hidden "$all" ibv_eventwatch -j -r "$CAPTURES/$c.jsonl"
		assert_success
		assert_equal "$stderr" ''
		diff -u <(ibv_eventwatch -j -r "$CAPTURES/$c.jsonl") <(echo "$output")
	done
}
