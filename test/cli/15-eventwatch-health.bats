#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Port health without a device: DEVICE_SPEED_CHANGE and PORT_ACTIVE's down
# time from captures, the metrics' port health and its state across
# restarts and reboots, and --check's use. Live flaps, --check against real
# ports and device exclusion are tested in the guest
# (test/rxe/50-porthealth.bats).

load ../test_helper

setup() {
	ibve_setup
	export TZ=UTC
	FABRIC=$CAPTURES/ib-fabric.jsonl
	M=$BATS_TEST_TMPDIR/m.prom
	S=$BATS_TEST_TMPDIR/state
}

# no_stdout CMD...: CMD with its standard output thrown away (for run)
no_stdout() {
	"$@" >/dev/null
}

# metric NAME LABELS: the value of one series of $M
metric() {
	sed -n "s/^$1{$2} //p" "$M"
}

@test "DEVICE_SPEED_CHANGE (20) is known by its number: the ports whose rate changed, old and new" {
	run ibv_eventwatch -r "$FABRIC" -e DEVICE_SPEED_CHANGE
	assert_success
	assert_output '2026-03-02 10:00:00.500+00:00 mlx5_1     DEVICE_SPEED_CHANGE  warning a link of the device retrained at another speed or width (port 1: 200 Gb/sec (4X HDR) -> 100 Gb/sec (2X HDR))'
	# a device event: -e device has it, -e port does not
	run -0 ibv_eventwatch -r "$FABRIC" -e device -j
	assert_equal "$(jq -r 'select(.event == "DEVICE_SPEED_CHANGE") | .rates[0] | "\(.port) \(.old) \(.new)"' <<<"$output")" \
		"1 200 Gb/sec (4X HDR) 100 Gb/sec (2X HDR)"
	run -0 ibv_eventwatch -r "$FABRIC" -e port
	refute_output --partial DEVICE_SPEED_CHANGE
	# the next number is still unknown, and said so
	run -0 ibv_eventwatch -r "$FABRIC" -e unknown
	assert_output --regexp '^2026-03-02 10:00:00.000\+00:00 mlx5_0 +UNKNOWN\(21\) +warning '
	# counted under its own name and class
	ibv_eventwatch -q -r "$FABRIC" --metrics-file "$M" >/dev/null
	assert_equal "$(metric ibvevent_events_total 'device="mlx5_1",port="",event="DEVICE_SPEED_CHANGE",severity="warning"')" 1
	# the dashboard shows the new rate of the port it names
	run -0 ibv_eventtop -b -j -r "$FABRIC"
	assert_equal "$(jq -r '.rows[] | select(.device == "mlx5_1") | "\(.rate) \(.old_rate) \(.rate_changed)"' <<<"$output")" \
		"100 Gb/sec (2X HDR) 200 Gb/sec (4X HDR) 2026-03-02T10:00:00.500000000Z"
}

@test "rates and down_us round-trip; a bad \"rates\" is named and the good lines kept" {
	cap=$BATS_TEST_TMPDIR/cap.jsonl
	not_output "$cap"
	{
		echo '{"time":"2026-05-01T10:00:00Z","device":"rxe0","port":1,"event":"PORT_ACTIVE","down_us":2500000}'
		echo '{"time":"2026-05-01T10:00:01Z","device":"rxe0","port":null,"event":"DEVICE_SPEED_CHANGE","rates":[{"port":1,"old":"a","new":"b"},{"port":2,"old":"","new":"c"}]}'
		echo '{"time":"2026-05-01T10:00:02Z","device":"rxe0","port":null,"event":"DEVICE_SPEED_CHANGE","rates":"fast"}'
		echo '{"time":"2026-05-01T10:00:03Z","device":"rxe0","port":null,"event":"DEVICE_SPEED_CHANGE","rates":[{"port":0,"old":"a","new":"b"}]}'
	} >"$cap"
	run ibv_eventwatch -r "$cap" -j
	assert_failure 4
	assert_line --partial "$cap:3: \"rates\" must be an array"
	assert_line --partial "$cap:4: \"rates\": port out of range"
	ibv_eventwatch -r "$cap" -j 2>/dev/null >"$BATS_TEST_TMPDIR/good" || true
	assert_equal "$(jq -c '[.down_us, .rates]' "$BATS_TEST_TMPDIR/good")" \
		$'[2500000,null]\n[null,[{"port":1,"old":"a","new":"b"},{"port":2,"old":"","new":"c"}]]'
	head -n 2 "$cap" | ibv_eventwatch -r - >"$BATS_TEST_TMPDIR/text"
	assert_equal "$(sed 's/  */ /g' "$BATS_TEST_TMPDIR/text" | cut -d' ' -f4-)" \
		$'PORT_ACTIVE info port is active: link up and ready for traffic (down 2.5 s)\nDEVICE_SPEED_CHANGE warning a link of the device retrained at another speed or width (port 1: a -> b, port 2: ? -> c)'
}

@test "metrics: flaps from 0, down time, since; flap window; kept in the state" {
	cap=$BATS_TEST_TMPDIR/cap.jsonl
	not_output "$cap"
	{
		# rxe1 never flaps: its counter still exists, at 0
		echo '{"time":"2026-05-01T09:59:00Z","device":"rxe1","port":1,"event":"PORT_ACTIVE"}'
		for s in 10 20 30; do
			echo "{\"time\":\"2026-05-01T10:00:${s}Z\",\"device\":\"rxe0\",\"port\":1,\"event\":\"PORT_ERR\"}"
			echo "{\"time\":\"2026-05-01T10:00:${s}.250Z\",\"device\":\"rxe0\",\"port\":1,\"event\":\"PORT_ACTIVE\"}"
		done
		# down 200 s: with a 60 s window a drop, not a flap
		echo '{"time":"2026-05-01T10:01:00Z","device":"rxe0","port":1,"event":"PORT_ERR"}'
		echo '{"time":"2026-05-01T10:04:20Z","device":"rxe0","port":1,"event":"PORT_ACTIVE"}'
	} >"$cap"
	ibv_eventwatch -q -r "$cap" --metrics-file "$M" --flap-window 1m >/dev/null
	assert_equal "$(metric ibvevent_port_flaps_total 'device="rxe0",port="1"')" 3
	assert_equal "$(metric ibvevent_port_flaps_total 'device="rxe1",port="1"')" 0
	assert_equal "$(metric ibvevent_port_last_down_duration_seconds 'device="rxe0",port="1"')" 200.000
	assert_equal "$(metric ibvevent_port_state_since_timestamp_seconds 'device="rxe0",port="1"')" \
		"$(date -d 2026-05-01T10:04:20Z +%s).000"
	# the default window (10 minutes) takes the long one for a flap
	ibv_eventwatch -q -r "$cap" --metrics-file "$M" >/dev/null
	assert_equal "$(metric ibvevent_port_flaps_total 'device="rxe0",port="1"')" 4
	# kept across a restart: the same capture again adds to it
	ibv_eventwatch -q -r "$cap" --metrics-file "$M" --metrics-state "$S" --flap-window 1m >/dev/null
	ibv_eventwatch -q -r "$cap" --metrics-file "$M" --metrics-state "$S" --flap-window 1m >/dev/null
	assert_equal "$(metric ibvevent_port_flaps_total 'device="rxe0",port="1"')" 6
	assert_equal "$(metric ibvevent_events_total 'device="rxe0",port="1",event="PORT_ERR",severity="error"')" 8
	run -0 jq -r 'select(.device == "rxe0" and .flaps) | "\(.flaps) \(.up) \(.since) \(.flap_times | length)"' "$S"
	assert_output '6 true 2026-05-01T10:04:20.000000000Z 6'
	assert_equal "$(head -n 1 "$S")" "{\"boot_id\":\"$(cat /proc/sys/kernel/random/boot_id)\"}"
}

@test "a state from another boot: counts kept, since times and recent flaps dropped, and said" {
	cap=$BATS_TEST_TMPDIR/cap.jsonl
	not_output "$cap"
	echo '{"time":"2026-05-01T10:00:00Z","device":"rxe0","port":1,"event":"GID_CHANGE"}' >"$cap"
	for boot in other this; do
		id=00000000-0000-0000-0000-000000000000
		[ $boot = this ] && id=$(cat /proc/sys/kernel/random/boot_id)
		{
			echo "{\"boot_id\":\"$id\"}"
			echo '{"device":"rxe0","port":1,"flaps":5,"up":true,"since":"2026-05-01T09:00:00Z","last_down":1.5,"flap_times":["2026-05-01T09:00:00Z","2026-05-01T09:30:00Z"]}'
			echo '{"device":"rxe0","port":1,"event":"PORT_ERR","severity":"error","count":7,"last":"2026-05-01T09:30:00Z"}'
		} >"$S.$boot"
		run no_stdout ibv_eventwatch -q -r "$cap" --metrics-file "$M" --metrics-state "$S.$boot"
		assert_success
		assert_equal "$(metric ibvevent_port_flaps_total 'device="rxe0",port="1"')" 5
		assert_equal "$(metric ibvevent_events_total 'device="rxe0",port="1",event="PORT_ERR",severity="error"')" 7
		assert_equal "$(metric ibvevent_port_last_down_duration_seconds 'device="rxe0",port="1"')" 1.500
		if [ $boot = other ]; then
			assert_output "ibv_eventwatch: $S.other was saved in another boot (boot id $id): counts kept, the ports' since times and recent flaps start anew"
			assert_equal "$(jq -r 'select(.flaps) | .flap_times | length' "$S.other")" 0
		else
			assert_output ''
			assert_equal "$(jq -r 'select(.flaps) | .flap_times | length' "$S.this")" 2
		fi
	done
	# a port line that is not one: the line is named, nothing is written
	printf '{"boot_id":"x"}\n{"device":"rxe0","port":0,"flaps":1}\n' >"$S.bad"
	not_output "$S.bad"
	run no_stdout ibv_eventwatch -q -r "$cap" --metrics-file "$M.bad" --metrics-state "$S.bad"
	assert_failure 3
	assert_output "ibv_eventwatch: $S.bad:2: not a metrics state line"
	[ ! -e "$M.bad" ]
}

@test "--check: its options, and spec lines refused with the reason" {
	run ibv_eventwatch --spec 'rxe0/1'
	assert_failure 2
	assert_line --index 0 'ibv_eventwatch: --spec, --spec-file, --since, --brief and --ignore-cause go with --check'
	run ibv_eventwatch --check -e PORT_ERR
	assert_failure 2
	assert_line --index 0 --partial 'ibv_eventwatch: --check takes -d, --exclude-device'
	run ibv_eventwatch --check --spec 'rxe0/1 rate>=fast'
	assert_failure 2
	assert_line --index 0 "ibv_eventwatch: --spec: 'rate>=fast': rate>= takes Gb/s, e.g. rate>=200"
	run ibv_eventwatch --check --spec 'rxe0 state=UP'
	assert_failure 2
	assert_line --index 0 --partial "'state=UP': state is one of DOWN, INIT, ARMED, ACTIVE"
	printf '# ports of a GPU node\nmlx5_*/1 rate>=200 link=ib\nexclude mlx5_4 mlx5_5\n' >"$BATS_TEST_TMPDIR/spec"
	run ibv_eventwatch --check --spec-file "$BATS_TEST_TMPDIR/spec"
	assert_failure 2
	assert_line --index 0 "ibv_eventwatch: --spec-file: $BATS_TEST_TMPDIR/spec:3: exclude takes one device glob"
	run ibv_eventwatch --check --since 10q
	assert_failure 2
	assert_line --index 0 "ibv_eventwatch: invalid duration '10q': e.g. 90s, 10m, 2h"
	# the causes are the autopsy's: a word that is none is named, with them
	run --separate-stderr ibv_eventwatch --check --ignore-cause administrative,maintenance
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "ibv_eventwatch: --ignore-cause: 'maintenance': not a cause (administrative, firmware_or_driver, cable_or_module, thermal_or_power, signal_integrity, link_partner, unknown)"
	run ibv_eventwatch --ignore-cause administrative
	assert_failure 2
	assert_line --index 0 'ibv_eventwatch: --spec, --spec-file, --since, --brief and --ignore-cause go with --check'
}

@test "--check: a spec file that cannot be read is status 3, said in one line naming it" {
	run --separate-stderr ibv_eventwatch --check --spec-file "$BATS_TEST_TMPDIR/none"
	assert_failure 3
	assert_output ''
	assert_equal "$stderr" "ibv_eventwatch: --spec-file: $BATS_TEST_TMPDIR/none: No such file or directory"
	# a directory opens but reads nothing: not an empty spec (every port
	# ACTIVE)
	run --separate-stderr ibv_eventwatch --check --spec-file "$BATS_TEST_TMPDIR" -j
	assert_failure 3
	assert_output ''
	assert_equal "$stderr" "ibv_eventwatch: --spec-file: $BATS_TEST_TMPDIR: Is a directory"
	# with a spec that reads, the same is a check
	echo 'X/1' >"$BATS_TEST_TMPDIR/spec"
	run --separate-stderr ibv_eventwatch --check --spec-file "$BATS_TEST_TMPDIR/spec" --brief
	assert_failure 1
	assert_equal "$stderr" ''
}

@test "--check: a condition that needs a history is refused without one, naming what to add" {
	want="ibv_eventwatch: --check: 'flaps<=2' needs a history: add --metrics-state FILE (the running watcher's state) or -r FILE (a capture)"
	run --separate-stderr ibv_eventwatch --check --spec 'X/1 flaps<=2'
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "$want"
	assert_equal "$output" ''
	# from a spec file too, after conditions that need none
	printf 'X/1 rate>=100\nY/* state=any flaps<=2\n' >"$BATS_TEST_TMPDIR/spec"
	run --separate-stderr ibv_eventwatch --check --spec-file "$BATS_TEST_TMPDIR/spec" -j
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "$want"
	# with a history it is evaluated: unhealthy (X has no port here), not refused
	cap=$BATS_TEST_TMPDIR/cap.jsonl
	not_output "$cap"
	echo '{"time":"2026-05-01T10:00:00Z","device":"X","port":1,"event":"PORT_ACTIVE"}' >"$cap"
	run --separate-stderr ibv_eventwatch --check -r "$cap" --spec 'X/1 flaps<=2'
	assert_failure 1
	assert_equal "$stderr" ''
	# conditions that need no history are still checked without one
	run --separate-stderr ibv_eventwatch --check --spec 'X/1 rate>=100'
	assert_failure 1
	assert_equal "$stderr" ''
}

@test "--check without any RDMA device is unhealthy, and says so" {
	[ -z "$(ls /sys/class/infiniband 2>/dev/null)" ] ||
		skip "this host has RDMA devices: the guest tests cover them"
	run ibv_eventwatch --check
	assert_failure 1
	assert_output 'no RDMA devices'
	run ibv_eventwatch --check -j
	assert_failure 1
	assert_equal "$(jq -c . <<<"$output")" '{"healthy":false,"reason":"no RDMA devices","ports":0,"problems":[]}'
	run ibv_eventwatch --check -d mlx5_0
	assert_failure 3
	assert_output "ibv_eventwatch: device 'mlx5_0': no such RDMA device (there are none)"
	# the watcher, before it looks for a name, finds no RDMA at all
	run ibv_eventwatch -d mlx5_0
	assert_failure 3
	assert_output "ibv_eventwatch: no RDMA devices found: the kernel offers no RDMA to user space (is ib_uverbs loaded?)"
}
