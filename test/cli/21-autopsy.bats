#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --autopsy on the labelled captures of test/captures/autopsy/: every down
# gets the cause its record is labelled with, in JSON (as stored) and in
# text, through the same code as live records; -r takes --autopsy, and no
# other source's option. The labels are the captures', not the watcher's.

load ../test_helper

setup() {
	ibve_setup
	export TZ=UTC
	MLX5=$CAPTURES/autopsy/mlx5.jsonl
	NETDEV=$CAPTURES/autopsy/netdev.jsonl
}

# causes CAPTURE: "DEVICE CAUSE" of each labelled down, sorted
labels() {
	jq -r 'select(.label) | "\(.device) \(.label)"' "$1" | sort
}

# verdicts: "DEVICE CAUSE" of each PORT_DOWN_CAUSE of the JSON on stdin
verdicts() {
	jq -r 'select(.event == "PORT_DOWN_CAUSE") | "\(.device) \(.cause)"' | sort
}

@test "--autopsy -r: each down of the mlx5 capture its labelled cause; JSON as stored" {
	run --separate-stderr ibv_eventwatch -j -r "$MLX5" --autopsy
	assert_success
	assert_equal "$stderr" ''
	json=$output
	diff -u "$EXPECTED/autopsy-mlx5.jsonl" <(echo "$json")
	diff -u <(labels "$MLX5") <(verdicts <<<"$json")
	# every record of the capture is written back, the verdicts besides
	assert_equal "$(jq -c 'select(.source != "autopsy")' <<<"$json" | wc -l)" \
		"$(wc -l <"$MLX5")"
	# a verdict's severity is its cause's, its time the window's end
	run -0 jq -r 'select(.event == "PORT_DOWN_CAUSE" and .device == "mlx5_0") |
		"\(.time) \(.severity) \(.cause) \(.evidence | join("; "))"' <<<"$json"
	assert_line --index 0 '2026-06-02T03:01:01.004000000Z error cable_or_module mlx5 PORT_MODULE: module 0 unplugged'
	run -0 jq -r 'select(.event == "PORT_DOWN_CAUSE" and .device == "mlx5_3") |
		"\(.port) \(.severity) \(.action)"' <<<"$json"
	assert_output '1 warning none for the hardware; ask who took it down'
	# each port back: how long it was down, by the capture's clock
	run -0 jq -r 'select(.event == "PORT_BACK" and .device == "mlx5_1" and .port == 2) | .down_us' <<<"$json"
	assert_output 39999000
}

@test "--autopsy -r in text: the cause and its evidence in the record's words" {
	run -0 ibv_eventwatch -r "$MLX5" --autopsy -e PORT_DOWN_CAUSE
	assert_equal "${#lines[@]}" "$(labels "$MLX5" | wc -l)"
	assert_line '2026-06-02 03:05:01.200+00:00 mlx5_0/1   PORT_DOWN_CAUSE      error   why the port went down, from the evidence around it (cause cable_or_module: mlx5 PORT_MODULE: module 0 cable error: bad or shorted cable/module; mlx5 TEMP_WARN: sensors 5)'
	assert_line '2026-06-02 03:06:06.000+00:00 mlx5_2/1   PORT_DOWN_CAUSE      warning why the port went down, from the evidence around it (cause unknown)'
	run -0 ibv_eventwatch -r "$MLX5" --autopsy -e PORT_BACK -d mlx5_1 -i 1
	assert_output '2026-06-02 03:03:31.000+00:00 mlx5_1/1   PORT_BACK            info    the port is back after a down the autopsy explained (down 29.7 s, rate unknown)
2026-06-02 03:04:41.000+00:00 mlx5_1/1   PORT_BACK            info    the port is back after a down the autopsy explained (down 40.0 s, rate unknown)'
}

@test "the netdev and counters records' capture: each down its labelled cause" {
	ibv_eventwatch --list-events | grep -q '^CARRIER_LOST ' &&
		ibv_eventwatch --list-events | grep -q '^COUNTERS_MOVED ' ||
		skip "no netdev or counters source in this build (issue #42): test/unit/test_autopsy.c reads the capture through stand-ins"
	run --separate-stderr ibv_eventwatch -j -r "$NETDEV" --autopsy
	assert_success
	assert_equal "$stderr" ''
	diff -u <(labels "$NETDEV") <(verdicts <<<"$output")
	run -0 jq -r 'select(.event == "PORT_DOWN_CAUSE" and .cause == "link_partner") | .action' <<<"$output"
	assert_output 'look at the far end of the link: leaf1[Ethernet7]'
}

@test "-r takes --autopsy, no other source's option; a capture's verdicts are not evidence" {
	run ibv_eventwatch -r "$MLX5" --sm
	assert_failure 2
	assert_line --index 0 'ibv_eventwatch: --sm is for watching devices, not with --replay'
	# a capture of the verdicts replayed with --autopsy: the same verdicts
	# again beside them, decided from the records, not from the old ones
	run -0 ibv_eventwatch -j -r "$EXPECTED/autopsy-mlx5.jsonl" --autopsy -e PORT_DOWN_CAUSE
	diff -u <(labels "$MLX5" | sed p) <(verdicts <<<"$output")
	# without --autopsy, a replay has none of its own
	run -0 ibv_eventwatch -j -r "$MLX5" -e PORT_DOWN_CAUSE,PORT_BACK
	assert_output ''
	run -0 ibv_eventtop -b -j -r "$MLX5" --autopsy
	jq -e '.rows[] | select(.device == "mlx5_3" and .port == 1) | .last_event == "PORT_DOWN_CAUSE"' <<<"$output" >/dev/null ||
		fail "ibv_eventtop: mlx5_3/1's last event is not its verdict: $output"
}

@test "ibv_eventtop -r --autopsy: a CAUSE column, each port's last verdict; down_cause in JSON" {
	run -0 ibv_eventwatch -j -r "$MLX5" --autopsy -e PORT_DOWN_CAUSE
	want=$(jq -sc 'group_by([.device, .port]) | map({device: .[0].device,
		port: .[0].port, cause: (last | .cause)})' <<<"$output")
	run -0 ibv_eventtop -b -j -r "$MLX5" --autopsy
	"$TOP/test/schema-check" --kind top-report - <<<"$output"
	got=$(jq -c '[.rows[] | select(.down_cause) | {device, port, cause: .down_cause}]' <<<"$output")
	assert_equal "$got" "$want"
	# a port never down for a cause: null
	assert_equal "$(jq -c '[.rows[] | select(.device == "mlx5_1" and .port == null) | .down_cause]' <<<"$output")" '[null]'
	# the table: CAUSE before the error counters, each port's last cause
	run -0 ibv_eventtop -b -r "$MLX5" --autopsy
	assert_line --regexp '^DEVICE +PORT .* AGE +CAUSE +ERROR COUNTERS MOVED$'
	assert_line --regexp '^mlx5_0 +1 +ACTIVE .* cable_or_module +-$'
	assert_line --regexp '^mlx5_1 +- .* +- +-$'
	# without the autopsy, no verdict and no such column
	run -0 ibv_eventtop -b -r "$MLX5"
	refute_output --partial CAUSE
}
