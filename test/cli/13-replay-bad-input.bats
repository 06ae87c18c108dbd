#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Replay input no tool wrote: hostile names, huge and binary lines, empty
# files, a million lines. A bad line is skipped (the first ten named, the
# rest counted); every good line is kept; memory does not grow with the
# input.

load ../test_helper

GOOD='{"time":"2026-03-02T08:15:00Z","device":"mlx5_0","port":1,"event":"PORT_ERR"}'

setup() {
	ibve_setup
	F=$BATS_TEST_TMPDIR/capture.jsonl
	not_output "$F"
}

# record DEVICE: a good line for a device named DEVICE (JSON-escaped)
record() {
	printf '{"time":"2026-03-02T08:15:00Z","device":"%s","port":1,"event":"PORT_ACTIVE"}\n' "$1"
}

@test "a 63-byte name of control characters prints escaped; 64 bytes is refused, named" {
	name63=$(printf '\\u001b%.0s' $(seq 63))
	name64=$(printf 'x%.0s' $(seq 64))
	{ record "$name63"; record "$name64"; echo "$GOOD"; } >"$F"
	run --separate-stderr ibv_eventwatch -r "$F"
	assert_failure 4
	assert_equal "${#lines[@]}" 2
	[[ ${lines[0]} == *"$(printf '\\x1b%.0s' $(seq 63))/1 "* ]]
	[[ $output != *$'\e'* ]]
	assert_equal "$stderr" "$F:2: \"device\" longer than 63 bytes"
	run --separate-stderr ibv_eventtop -b -j -r "$F"
	assert_failure 4
	assert_equal "$(jq .events <<<"$output")" 2
}

@test "a value that is not a time is quoted escaped and cut short" {
	printf '%s\n' '{"time":"\u001b[2J\u001b]0;owned\u0007 and then some more text to cut","device":"d","port":1,"event":"PORT_ERR"}' >"$F"
	run --separate-stderr ibv_eventwatch -r "$F"
	assert_failure 4
	assert_equal "$stderr" "$F:1: \"time\" is not an RFC 3339 time: \"\\x1b[2J\\x1b]0;owned\\x07 and then some more text t\""
}

@test "a line of 1 MiB is read; one byte more is named and skipped, the next kept" {
	pad() { # a record padded by an unknown field to $1 bytes
		local n=$(($1 - ${#GOOD} - 7))
		printf '%s,"x":"%s"}\n' "${GOOD%\}}" "$(head -c "$n" /dev/zero | tr '\0' a)"
	}
	{ pad 1048576; pad 1048577; echo "$GOOD"; } >"$F"
	[ "$(head -n 1 "$F" | tr -d '\n' | wc -c)" -eq 1048576 ]
	run --separate-stderr ibv_eventwatch -r "$F" -j
	assert_failure 4
	assert_equal "${#lines[@]}" 2
	assert_equal "$stderr" "$F:2: line longer than 1048576 bytes"
}

@test "binary garbage between good lines: each bad line named, the good ones kept" {
	{
		echo "$GOOD"
		# 64 KiB of the same noise on every run: a fixed seed
		awk 'BEGIN { srand(7); for (i = 0; i < 65536; i++) printf "%c", int(rand() * 256) }'
		echo
		echo "$GOOD"
	} >"$F"
	run --separate-stderr ibv_eventwatch -r "$F" -j
	assert_failure 4
	assert_equal "${#lines[@]}" 2
	# ten named, then how many more (64 KiB of noise holds about 256)
	assert_equal "${#stderr_lines[@]}" 11
	for l in "${stderr_lines[@]:0:10}"; do
		[[ $l =~ ^$F:[0-9]+:\ [a-zA-Z\"] ]] || fail "not FILE:LINE: reason: $l"
	done
	[[ ${stderr_lines[10]} =~ ^ibv_eventwatch:\ $F:\ [0-9]+\ more\ malformed\ lines$ ]]
	[[ $stderr != *$'\e'* ]]
	run --separate-stderr ibv_eventtop -b -j -r "$F"
	assert_failure 4
	assert_equal "$(jq .events <<<"$output")" 2
}

@test "a file that is not a capture: ten bad lines named, then a count; no good line lost" {
	# 30 bad lines, each between two good ones
	for i in $(seq 30); do
		echo "$GOOD"
		echo "root:x:0:0:root:/root:/bin/bash $i"
	done >"$F"
	echo "$GOOD" >>"$F"
	run --separate-stderr ibv_eventwatch -r "$F" -j
	assert_failure 4
	assert_equal "${#lines[@]}" 31
	assert_equal "${#stderr_lines[@]}" 11
	for i in $(seq 10); do
		assert_equal "${stderr_lines[i - 1]}" "$F:$((2 * i)): not a JSON object"
	done
	assert_equal "${stderr_lines[10]}" "ibv_eventwatch: $F: 20 more malformed lines"
	# the screen's batch mode says it the same way
	run --separate-stderr ibv_eventtop -b -j -r "$F"
	assert_failure 4
	assert_equal "$(jq .events <<<"$output")" 31
	assert_equal "${#stderr_lines[@]}" 11
	assert_equal "${stderr_lines[10]}" "ibv_eventtop: $F: 20 more malformed lines"
	# exactly ten: no count
	head -n 20 "$F" >"$F.10"
	not_output "$F.10"
	run --separate-stderr ibv_eventwatch -r "$F.10" -j
	assert_failure 4
	assert_equal "${#lines[@]}" 10
	assert_equal "${#stderr_lines[@]}" 10
}

@test "empty files, blank lines and a last line without a newline" {
	: >"$F"
	run ibv_eventwatch -r "$F"
	assert_success
	assert_output ''
	printf '\n  \n\t\n\r\n' >"$F"
	run ibv_eventwatch -r "$F"
	assert_success
	assert_output ''
	run ibv_eventtop -b -j -r "$F"
	assert_success
	assert_equal "$(jq .events <<<"$output")" 0
	printf '%s' "$GOOD" >"$F"
	run ibv_eventwatch -r "$F" -j
	assert_success
	assert_output --partial '"event":"PORT_ERR"'
}

@test "a replay of 1,000,000 lines runs in the memory of 1,000" {
	[ "${IBVEVENT_VALGRIND:-}" != 1 ] ||
		skip "under memcheck a million lines take minutes; the plain and ASan runs cover it"
	# ASan's fake stacks for use-after-return grow as frames are first
	# used (1.7 MiB here): not the replay's memory, so off for this one.
	[ "${IBVEVENT_SANITIZED:-}" != 1 ] ||
		export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_stack_use_after_return=0"
	rss() { # peak RSS in KiB of a replay of $1 lines from a pipe
		yes "$GOOD" | head -n "$1" |
			/usr/bin/time -f %M ibv_eventwatch -r - -j 2>&1 >/dev/null | tail -n 1
	}
	small=$(rss 1000)
	big=$(rss 1000000)
	echo "# peak RSS: $small KiB for 1,000 lines, $big KiB for 1,000,000" >&3
	[ "$big" -le $((small + 1024)) ] || fail "grew from $small to $big KiB"
}
