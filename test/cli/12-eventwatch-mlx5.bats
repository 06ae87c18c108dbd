#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# mlx5 DEVX events from a stored capture: decoded from their raw entries
# on any machine, filtered like every other event, counted by the
# dashboard; and the build without the mlx5 source.

load ../test_helper

setup() {
	ibve_setup
	export TZ=UTC
	MLX=$CAPTURES/mlx5.jsonl
}

# The event of each entry of the capture, from its type byte (byte 1) as
# DOMAIN.md lists the numbers: independent of the library's table.
eqe_events() {
	jq -r '.eqe // "lost"' "$MLX" | while read -r e; do
		case $e in
		lost) echo EVENTS_LOST ;;
		??08*) echo INTERNAL_ERROR ;;
		??09*) echo PORT_CHANGE ;;
		??16*) echo PORT_MODULE ;;
		??17*) echo TEMP_WARN ;;
		??22*) echo GENERAL ;;
		*) echo "UNKNOWN($((16#${e:2:2})))" ;;
		esac
	done
}

@test "text replay decodes cables, temperature and firmware events from their EQE" {
	run ibv_eventwatch -r "$MLX"
	assert_success
	diff -u "$EXPECTED/mlx5.txt" <(echo "$output")
	diff -u <(eqe_events) <(printf '%s\n' "${lines[@]}" | awk '{ print $4 }')
	assert_line --partial 'PORT_MODULE          error   cable or module status changed (module 2 cable error: bad or shorted cable/module)'
	assert_line --partial 'TEMP_WARN            warning temperature warning from the adapter'"'"'s sensors (sensors ASIC, 5, 70)'
}

@test "JSON replay gives the decoded fields and the raw entry; it replays to itself" {
	run ibv_eventwatch -j -r "$MLX"
	assert_success
	diff -u "$EXPECTED/mlx5.jsonl" <(echo "$output")
	run -0 jq -r 'select(.event == "PORT_MODULE") | "\(.module) \(.module_status) \(.error_type // "-")"' "$EXPECTED/mlx5.jsonl"
	assert_output $'0 unplugged -\n0 plugged -\n2 cable error bad or shorted cable/module\n2 cable error ports powered down: insufficient PCIe slot power\n1 disabled -'
	ibv_eventwatch -j -r "$EXPECTED/mlx5.jsonl" | cmp - "$EXPECTED/mlx5.jsonl"
}

@test "filters take mlx5 names, the mlx5 source and severities" {
	run ibv_eventwatch -r "$MLX" -e port_module -x 'severity<=warning'
	assert_success
	assert_equal "${#lines[@]}" 2
	run -0 ibv_eventwatch -j -r "$CAPTURES/ib-fabric.jsonl" -e mlx5
	assert_output ''
	run -0 ibv_eventwatch -j -r "$MLX" -e mlx5
	assert_equal "${#lines[@]}" 17
	run -0 ibv_eventwatch -r "$MLX" -e GENERAL,TEMP_WARN,EVENTS_LOST
	assert_equal "${#lines[@]}" 7
	run ibv_eventwatch -r "$MLX" --expect INTERNAL_ERROR -q
	assert_success
}

@test "a broken eqe is a malformed line" {
	run --separate-stderr ibv_eventwatch -r - <<<'{"time":"2026-04-07T02:00:00Z","device":"mlx5_0","port":null,"event":"PORT_MODULE","source":"mlx5","eqe":"0016"}'
	assert_failure 4
	[ "$stderr" = '<stdin>:1: "eqe" is not 64 bytes of hex' ]
}

# The module-unplugged entry of the capture, alone, as another tool dumps it.
RAW='"eqe":"00160000000000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000"'
raw_line() { # raw_line EXTRA-FIELDS: a line with the raw entry and EXTRA
	echo "{\"time\":\"2026-04-07T02:00:04Z\",\"device\":\"mlx5_0\",\"port\":null,$1$RAW}"
}

@test "a raw mlx5 entry alone replays: the entry says what it is" {
	run ibv_eventwatch -j -r - <<<"$(raw_line '"source":"mlx5",')"
	assert_success
	run -0 jq -r '"\(.event) \(.source) \(.code) \(.module) \(.module_status) \(.severity)"' <<<"$output"
	assert_output 'PORT_MODULE mlx5 22 0 unplugged warning'
	# without "source" too: an entry is an mlx5 entry
	run ibv_eventwatch -r - <<<"$(raw_line '')"
	assert_success
	assert_output --partial 'PORT_MODULE          warning cable or module status changed (module 0 unplugged)'
}

@test "an event or code that disagrees with its entry is named; the good lines are kept" {
	{
		raw_line '"event":"TEMP_WARN",'
		raw_line '"code":23,'
		raw_line '"event":"PORT_MODULE","code":22,'
		raw_line '"event":"UNKNOWN(66)",'
		raw_line '"source":"verbs",'
		raw_line '"event":"FROM_A_NEWER_VERSION",'
	} >"$BATS_TEST_TMPDIR/raw.jsonl"
	not_output "$BATS_TEST_TMPDIR/raw.jsonl"
	run --separate-stderr ibv_eventwatch -j -r "$BATS_TEST_TMPDIR/raw.jsonl"
	assert_failure 4
	f=$BATS_TEST_TMPDIR/raw.jsonl
	[ "$stderr" = "$f:1: \"event\" TEMP_WARN disagrees with its \"eqe\" (PORT_MODULE)
$f:2: \"code\" 23 disagrees with its \"eqe\" (PORT_MODULE)
$f:4: \"event\" UNKNOWN(66) disagrees with its \"eqe\" (PORT_MODULE)
$f:5: \"eqe\" is an mlx5 entry, but \"source\" is \"verbs\"" ]
	# the agreeing line, and the name this version cannot check: the entry decides
	run -0 jq -r .event <<<"$output"
	assert_output $'PORT_MODULE\nPORT_MODULE'
}

@test "the dashboard counts module and temperature events in columns of their own" {
	run ibv_eventtop -b -r "$MLX"
	assert_success
	diff -u "$EXPECTED/top-mlx5.txt" <(echo "$output"; echo)
	assert_line --regexp '^DEVICE .* FATAL MODULE TEMP OTHER '
	# independent of the stored table: MODULE and TEMP count the entries
	# of type 0x16 and 0x17 of each device
	for d in mlx5_0 mlx5_1; do
		module=$(jq -r --arg d "$d" 'select(.device == $d) | .eqe // ""' "$MLX" | grep -c '^..16' || true)
		temp=$(jq -r --arg d "$d" 'select(.device == $d) | .eqe // ""' "$MLX" | grep -c '^..17' || true)
		run -0 bash -o pipefail -c "ibv_eventtop -b -j -r '$MLX' | jq -r '.rows[] | select(.device == \"$d\") | \"\\(.counts.module) \\(.counts.temperature)\"'"
		assert_output "$module $temp"
	done
	# without such events the columns do not appear
	run -0 ibv_eventtop -b -r "$CAPTURES/ib-fabric.jsonl"
	refute_output --partial MODULE
}

@test "a build without the mlx5 source (MLX5=0) still decodes captures and says so" {
	[ "${IBVEVENT_VALGRIND:-}" != 1 ] ||
		skip "it runs a build of its own, never memcheck's wrappers"
	nb=$BATS_TEST_TMPDIR/nomlx5
	run make -s -C "$TOP" B="$nb" MLX5=0 all
	assert_success
	run -0 "$nb/bin/ibv_eventwatch" -V
	assert_output --partial 'mlx5 DEVX events: no'
	run -0 nm -D "$nb/lib/libibvevent.so.0"
	refute_output --partial mlx5dv
	run "$nb/bin/ibv_eventwatch" -r "$MLX"
	assert_success
	diff -u "$EXPECTED/mlx5.txt" <(echo "$output")
	run --separate-stderr "$nb/bin/ibv_eventwatch" --mlx5
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: --mlx5: this build has no mlx5 support (it was built with MLX5=0)" ]
	run -0 ibv_eventwatch -V
	assert_output --partial 'mlx5 DEVX events: yes'
}

@test "--mlx5 is for live devices only" {
	run --separate-stderr ibv_eventwatch --mlx5 -r "$MLX"
	assert_failure 2
}
