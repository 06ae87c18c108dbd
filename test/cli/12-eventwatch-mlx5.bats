#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# mlx5 DEVX events from a stored capture: decoded from their raw entries
# on any machine, filtered like every other event, counted by the
# dashboard; and the build without the mlx5 source.

load ../test_helper

setup() {
	export TZ=UTC
	MLX=$CAPTURES/mlx5.jsonl
}

@test "text replay decodes cables, temperature and firmware events from their EQE" {
	run ibv_eventwatch -r "$MLX"
	assert_success
	diff -u "$EXPECTED/mlx5.txt" <(echo "$output")
	assert_line --partial 'PORT_MODULE          error   cable or module status changed (module 2 cable error: bad or shorted cable/module)'
	assert_line --partial 'TEMP_WARN            warning temperature warning from the adapter'"'"'s sensors (sensors ASIC, 5, 70)'
}

@test "JSON replay gives the decoded fields and the raw entry; it replays to itself" {
	run ibv_eventwatch -j -r "$MLX"
	assert_success
	diff -u "$EXPECTED/mlx5.jsonl" <(echo "$output")
	run jq -r 'select(.event == "PORT_MODULE") | "\(.module) \(.module_status) \(.error_type // "-")"' "$EXPECTED/mlx5.jsonl"
	assert_output $'0 unplugged -\n0 plugged -\n2 cable error bad or shorted cable/module\n2 cable error ports powered down: insufficient PCIe slot power\n1 disabled -'
	ibv_eventwatch -j -r "$EXPECTED/mlx5.jsonl" | cmp - "$EXPECTED/mlx5.jsonl"
}

@test "filters take mlx5 names, the mlx5 source and severities" {
	run ibv_eventwatch -r "$MLX" -e port_module -x 'severity<=warning'
	assert_success
	assert_equal "${#lines[@]}" 2
	run ibv_eventwatch -j -r "$CAPTURES/ib-fabric.jsonl" -e mlx5
	assert_output ''
	run ibv_eventwatch -j -r "$MLX" -e mlx5
	assert_equal "${#lines[@]}" 17
	run ibv_eventwatch -r "$MLX" -e GENERAL,TEMP_WARN,EVENTS_LOST
	assert_equal "${#lines[@]}" 7
	run ibv_eventwatch -r "$MLX" --expect INTERNAL_ERROR -q
	assert_success
}

@test "a broken eqe is a malformed line" {
	run --separate-stderr ibv_eventwatch -r - <<<'{"time":"2026-04-07T02:00:00Z","device":"mlx5_0","port":null,"event":"PORT_MODULE","source":"mlx5","eqe":"0016"}'
	assert_failure 4
	[ "$stderr" = '<stdin>:1: "eqe" is not 64 bytes of hex' ]
}

@test "the dashboard counts module and temperature events in columns of their own" {
	run ibv_eventtop -b -r "$MLX"
	assert_success
	diff -u "$EXPECTED/top-mlx5.txt" <(echo "$output"; echo)
	assert_line --regexp '^DEVICE .* FATAL MODULE TEMP OTHER '
	# without such events the columns do not appear
	run ibv_eventtop -b -r "$CAPTURES/ib-fabric.jsonl"
	refute_output --partial MODULE
}

@test "a build without the mlx5 source (MLX5=0) still decodes captures and says so" {
	nb=$BATS_TEST_TMPDIR/nomlx5
	run make -s -C "$TOP" B="$nb" MLX5=0 all
	assert_success
	run "$nb/bin/ibv_eventwatch" -V
	assert_output --partial 'mlx5 DEVX events: no'
	run nm -D "$nb/lib/libibvevent.so.0"
	refute_output --partial mlx5dv
	run "$nb/bin/ibv_eventwatch" -r "$MLX"
	assert_success
	diff -u "$EXPECTED/mlx5.txt" <(echo "$output")
	run --separate-stderr "$nb/bin/ibv_eventwatch" --mlx5
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: --mlx5: this build has no mlx5 support (it was built with MLX5=0)" ]
	run ibv_eventwatch -V
	assert_output --partial 'mlx5 DEVX events: yes'
}

@test "--mlx5 is for live devices only" {
	run --separate-stderr ibv_eventwatch --mlx5 -r "$MLX"
	assert_failure 2
}
