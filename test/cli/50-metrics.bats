#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Prometheus metrics from a capture, checked by the real tools: promtool,
# node_exporter's textfile collector and a Prometheus server, all on
# loopback; the systemd unit, and the paths of its files in the docs.

load ../test_helper

setup() {
	ibve_setup
	export TZ=UTC
	FABRIC=$CAPTURES/ib-fabric.jsonl
	M=$BATS_TEST_TMPDIR/rdma.prom
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	exec 5>&- 2>/dev/null || true
	return $rc
}

# sum FILE: the sum of the ibvevent_events_total series in FILE.
sum_events() {
	awk '/^ibvevent_events_total/ { s += $2 } END { print s + 0 }' "$1" 2>/dev/null
}

need() {
	command -v "$1" >/dev/null || skip "$1 is not installed (make deps installs it)"
}

@test "--metrics-file: every event counted, last times, presence; promtool accepts it" {
	need promtool
	run ibv_eventwatch -q -r "$FABRIC" -e PORT_ERR --metrics-file "$M"
	assert_success
	assert_equal "${#lines[@]}" 1 # the filter is for the output only
	# the stored file holds no build- or run-specific value: the build
	# info and the start time apart
	diff -u "$EXPECTED/ib-fabric.prom" <(grep -Ev '^ibvevent_(build_info\{|start_time_seconds )' "$M")
	version=$(ibv_eventwatch -V | awk '{ print $2 }')
	assert_equal "$(grep '^ibvevent_build_info{' "$M")" \
		"ibvevent_build_info{version=\"$version\",mlx5=\"$(ibv_eventwatch -V | sed -n 's/.*mlx5 DEVX events: \([a-z]*\)[,)].*/\1/p')\"} 1"
	# independent of the stored file: one series per device, port and
	# event of the capture, counting its records
	jq -r '"\(.device) \(.port // "-") \(.event)"' "$FABRIC" | sort | uniq -c |
		awk '{ print $2, $3, $4, $1 }' >"$BATS_TEST_TMPDIR/want"
	sed -n 's/^ibvevent_events_total{device="\([^"]*\)",port="\([^"]*\)",event="\([^"]*\)",severity="[a-z]*"} \([0-9]*\)$/\1 \2 \3 \4/p' "$M" |
		awk 'NF == 3 { print $1, "-", $2, $3; next } { print }' | sort >"$BATS_TEST_TMPDIR/got"
	diff -u <(sort "$BATS_TEST_TMPDIR/want") "$BATS_TEST_TMPDIR/got"
	run promtool check metrics <"$M"
	assert_success
	run -0 grep -c '^ibvevent_events_total{' "$M"
	assert_output 28
	assert_equal "$(sum_events "$M")" 28
	# by class: the records' own classes, counted with jq
	ibv_eventwatch -r "$FABRIC" -j |
		jq -r '"\(.device) \(.class)"' |
		sort | uniq -c | awk '{ print $2, $3, $1 }' >"$BATS_TEST_TMPDIR/want"
	sed -n 's/^ibvevent_events_by_class_total{device="\([^"]*\)",class="\([a-z]*\)"} \([0-9]*\)$/\1 \2 \3/p' "$M" |
		sort >"$BATS_TEST_TMPDIR/got"
	diff -u "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
}

@test "the file is replaced whole: a reader during a storm only ever sees complete files" {
	fifo=$BATS_TEST_TMPDIR/events
	mkfifo "$fifo"
	exec 5<>"$fifo"
	bg_start watch 0 ibv_eventwatch -q -r - --metrics-file "$M" <"$fifo" >/dev/null 5>&-
	# a reader that keeps every version it sees (not holding the pipe)
	# shellcheck disable=SC2016 # expanded by that bash
	bg_start reader 0 bash -c '
		n=0
		while [ ! -e "$1/stop" ] && [ $SECONDS -lt 300 ]; do
			n=$((n + 1))
			cat "$2" >"$1/seen.$n" 2>/dev/null || true
		done' _ "$BATS_TEST_TMPDIR" "$M" 5>&-
	for i in $(seq 100); do
		for _ in 1 2 3 4 5; do
			echo "{\"time\":\"2026-03-02T08:00:00Z\",\"device\":\"mlx5_$((i % 4))\",\"port\":1,\"event\":\"PORT_ERR\"}"
		done >&5
		# each chunk makes a new version of the file before the next
		end=$((SECONDS + 30))
		until [ "$(sum_events "$M")" = $((i * 5)) ]; do
			[ $SECONDS -lt $end ] || fail "chunk $i: the file says $(sum_events "$M") events"
			sleep 0.001
		done
	done
	exec 5>&-
	bg_wait watch 0
	touch "$BATS_TEST_TMPDIR/stop"
	bg_wait reader 0
	versions=$(cat "$BATS_TEST_TMPDIR"/seen.* | grep -c '^# HELP ibvevent_events_total')
	[ "$versions" -ge 20 ] || fail "the reader saw only $versions versions"
	for f in "$BATS_TEST_TMPDIR"/seen.*; do
		[ -s "$f" ] || continue
		tail -n 1 "$f" | grep -q '^ibvevent_build_info{' || fail "$f is cut short"
	done
	assert_equal "$(sum_events "$M")" 500
}

# metric NAME{LABELS} FILE: the value of that series in FILE ("" when none).
metric() {
	awk -v s="$1" '$1 == s { print $2 }' "$2"
}

@test "the watcher's own series: start time, the sources it runs, events lost" {
	need promtool
	# a live watcher (no RDMA device on the host: it waits for them, with
	# its hot-plug and mlx5 sources running, the latter with no device to
	# give its events) started between t0 and t1
	port=$(free_port)
	t0=$(date +%s)
	bg_start watch 0 ibv_eventwatch -q --metrics-listen ":$port"
	wait_http "http://127.0.0.1:$port/metrics"
	t1=$(date +%s)
	curl -fs "http://127.0.0.1:$port/metrics" >"$M"
	bg_stop watch 0
	run -0 promtool check metrics <"$M"
	start=$(metric ibvevent_start_time_seconds "$M")
	awk -v s="$start" -v a="$t0" -v b="$t1" 'BEGIN { exit !(s != "" && s >= a && s <= b + 1) }' ||
		fail "start time '$start' is not within [$t0, $t1]"
	# one series per source the records name (-e's source words), from
	# the generated list; only -A runs the kernel one, --sm the subnet one,
	# and mlx5 is 1 only with a device that has its events
	mapfile -t words < <(sed -n 's/^\.Pq Cm \(verbs.*\) ,$/\1/p' "$TOP/man/ibv_eventwatch.1" | head -n 1 | tr -d ' ' | tr , '\n')
	[ "${#words[@]}" -ge 5 ] || fail "no source list in the man page: ${words[*]}"
	assert_equal "$(grep -c '^ibvevent_source_enabled{' "$M")" "${#words[@]}"
	for w in "${words[@]}"; do
		case $w in
		verbs | hotplug) want=1 ;;
		*) want=0 ;;
		esac
		assert_equal "$(metric "ibvevent_source_enabled{source=\"$w\"}" "$M")" "$want"
	done
	# no log: no log series
	run -1 grep -c '^ibvevent_log_send_failures_total' "$M"
	# a replay runs none of them, and counts what the records say was lost:
	# the kernel source's 4096 events, an mlx5 channel's overflow as one
	ibv_eventwatch -q -r "$CAPTURES/fleet-node1.jsonl" --metrics-file "$M" >/dev/null
	assert_equal "$(grep '^ibvevent_source_enabled{' "$M" | awk '{ s += $2 } END { print s }')" 0
	assert_equal "$(metric 'ibvevent_events_lost_total{device="mlx5_0"}' "$M")" 4096
	assert_equal "$(metric 'ibvevent_events_lost_total{device="mlx5_1"}' "$M")" 0
	run -0 grep '^# TYPE ibvevent_events_lost_total ' "$M"
	assert_output '# TYPE ibvevent_events_lost_total counter'
	ibv_eventwatch -q -r "$CAPTURES/mlx5.jsonl" --metrics-file "$M" >/dev/null
	assert_equal "$(metric 'ibvevent_events_lost_total{device="mlx5_1"}' "$M")" \
		"$(jq -s 'map(select(.event == "EVENTS_LOST" and .device == "mlx5_1") | .lost) | add' "$CAPTURES/mlx5.jsonl")"
}

@test "ibvevent_port_peer_info: each port's last known peer, exactly these labels; promtool accepts it" {
	need promtool
	ibv_eventwatch -q -r "$CAPTURES/peers.jsonl" --metrics-file "$M" >/dev/null
	run -0 grep '^ibvevent_port_peer_info' "$M"
	# mlx5_0/1 re-cabled: the new port; mlx5_0/2 never known: no series
	assert_output 'ibvevent_port_peer_info{device="mlx5_0",port="1",peer_guid="0002:c903:0000:00a1",peer_port="5",peer_name="SwitchL"} 1
ibvevent_port_peer_info{device="rxe0",port="1",peer_guid="00:11:22:33:44:55",peer_port="Ethernet7",peer_name="leaf1"} 1'
	run promtool check metrics <"$M"
	assert_success
}

# labelled_downs CAPTURE: "DEVICE CAUSE COUNT" of the capture's labelled downs.
labelled_downs() {
	jq -r 'select(.label) | "\(.device) \(.label)"' "$1" | sort | uniq -c |
		awk '{ print $2, $3, $1 }'
}

# metric_downs FILE: "DEVICE CAUSE COUNT" of FILE's ibvevent_port_down_total,
# summed over the ports.
metric_downs() {
	sed -n 's/^ibvevent_port_down_total{device="\([^"]*\)",port="[0-9]*",cause="\([a-z_]*\)"} \([0-9]*\)$/\1 \2 \3/p' "$1" |
		awk '{ n[$1 " " $2] += $3 } END { for (k in n) print k, n[k] }' | sort
}

@test "ibvevent_port_down_total: the autopsy's verdicts by device, port and cause, as labelled; kept by --metrics-state" {
	need promtool
	S=$BATS_TEST_TMPDIR/state
	run -0 ibv_eventwatch -q -r "$CAPTURES/autopsy/mlx5.jsonl" --autopsy \
		--metrics-file "$M" --metrics-state "$S"
	run -0 grep '^ibvevent_port_down_total' "$M"
	assert_output 'ibvevent_port_down_total{device="mlx5_0",port="1",cause="cable_or_module"} 2
ibvevent_port_down_total{device="mlx5_0",port="1",cause="thermal_or_power"} 1
ibvevent_port_down_total{device="mlx5_1",port="1",cause="firmware_or_driver"} 1
ibvevent_port_down_total{device="mlx5_1",port="1",cause="thermal_or_power"} 1
ibvevent_port_down_total{device="mlx5_1",port="2",cause="firmware_or_driver"} 1
ibvevent_port_down_total{device="mlx5_2",port="1",cause="firmware_or_driver"} 2
ibvevent_port_down_total{device="mlx5_2",port="1",cause="thermal_or_power"} 1
ibvevent_port_down_total{device="mlx5_2",port="1",cause="unknown"} 1
ibvevent_port_down_total{device="mlx5_3",port="1",cause="administrative"} 1'
	run -0 grep '^# TYPE ibvevent_port_down_total ' "$M"
	assert_output '# TYPE ibvevent_port_down_total counter'
	run -0 promtool check metrics <"$M"
	# independent of the list above: the capture's labels, counted
	diff -u <(labelled_downs "$CAPTURES/autopsy/mlx5.jsonl") <(metric_downs "$M")
	# without --autopsy no verdict, no series; the family is still there
	ibv_eventwatch -q -r "$CAPTURES/autopsy/mlx5.jsonl" --metrics-file "$M" >/dev/null
	run -1 grep '^ibvevent_port_down_total{' "$M"
	# the state keeps them: the netdev capture's verdicts added to them
	if ibv_eventwatch --list-events | grep -q '^CARRIER_LOST '; then
		ibv_eventwatch -q -r "$CAPTURES/autopsy/netdev.jsonl" --autopsy \
			--metrics-file "$M" --metrics-state "$S" >/dev/null
		diff -u <(cat "$CAPTURES"/autopsy/{mlx5,netdev}.jsonl | labelled_downs /dev/stdin) \
			<(metric_downs "$M")
		assert_equal "$(metric 'ibvevent_port_down_total{device="mlx5_1",port="1",cause="link_partner"}' "$M")" 1
	fi
	run -0 grep -c '"cause":"administrative"' "$S"
	run -0 "$TOP/test/schema-check" --kind metrics-state "$S"
	# a state file of before this counter (none of its lines) is read,
	# and its other counters too
	grep -v '"cause"' "$S" >"$S.old"
	mv "$S.old" "$S"
	ibv_eventwatch -q -r "$CAPTURES/autopsy/mlx5.jsonl" --autopsy \
		--metrics-file "$M" --metrics-state "$S" >/dev/null
	diff -u <(labelled_downs "$CAPTURES/autopsy/mlx5.jsonl") <(metric_downs "$M")
	# a cause this version does not know (a newer one's) is kept as it is,
	# a device's own (port 0) has an empty port; a line with an empty
	# cause, one longer than a name can be or not of the names' form, a
	# count below 1 or port 65536 is no state line
	printf '%s\n' '{"device":"mlx5_9","port":0,"cause":"cosmic_rays","count":4,"last":"2026-06-02T03:00:00.000000000Z"}' >"$S"
	ibv_eventwatch -q -r /dev/null --metrics-file "$M" --metrics-state "$S" >/dev/null
	run -0 grep '^ibvevent_port_down_total' "$M"
	assert_output 'ibvevent_port_down_total{device="mlx5_9",port="",cause="cosmic_rays"} 4'
	for bad in '{"device":"mlx5_0","port":1,"cause":"","count":1}' \
		'{"device":"mlx5_0","port":1,"cause":"unknown","count":-1}' \
		'{"device":"mlx5_0","port":1,"cause":"unknown","count":0}' \
		'{"device":"mlx5_0","port":1,"cause":"a_cause_of_thirty_two_characters","count":1}' \
		'{"device":"mlx5_0","port":1,"cause":"Unknown","count":1}' \
		'{"device":"mlx5_0","port":1,"cause":7,"count":1}' \
		'{"device":"mlx5_0","port":65536,"cause":"unknown","count":1}'; do
		not_output "$S.bad"
		echo "$bad" >"$S.bad"
		run --separate-stderr ibv_eventwatch -q -r /dev/null --metrics-file "$M" --metrics-state "$S.bad"
		assert_failure 3
		assert_equal "$stderr" "ibv_eventwatch: $S.bad:1: not a metrics state line"
	done
}

@test "the man page's METRICS lists every series the writer has; the docs and rules name no other" {
	# the writer's families, from lib/metrics.c itself
	grep -o 'family([&]*b, "[a-z_]*"' "$TOP/lib/metrics.c" | sed 's/.*"\(.*\)"/\1/' |
		sort -u >"$BATS_TEST_TMPDIR/have"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/have")" -ge 15 ] || fail "$(cat "$BATS_TEST_TMPDIR/have")"
	sed -n '/^\.Sh METRICS/,/^\.Sh /p' "$TOP/man/ibv_eventwatch.1" |
		sed -n 's/^\.It Cm \(ibvevent_[a-z_]*\).*/\1/p' | sort -u >"$BATS_TEST_TMPDIR/listed"
	diff -u "$BATS_TEST_TMPDIR/have" "$BATS_TEST_TMPDIR/listed"
	# a series name in the README, the man pages or the rules (recording
	# rules, with their colons, apart) is one of them
	grep -ohE '[a-z_:]*ibvevent_[a-z_:]*[a-z]' "$TOP/README.md" "$TOP"/man/*.[0-9] \
		"$TOP/share/prometheus/ibvevent.rules.yml.in" | grep -v : | grep "^ibvevent_" | sort -u |
		comm -23 - "$BATS_TEST_TMPDIR/have" >"$BATS_TEST_TMPDIR/unknown"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/unknown")" ''
}

@test "a syslog daemon that goes away: the records it did not take are counted, said once, and the watcher goes on" {
	[ "$(id -u)" = 0 ] || skip "a /dev/log of the test's own needs root (mount namespaces)"
	command -v unshare >/dev/null || skip "unshare is not installed (util-linux)"
	# in a mount namespace whose /dev is its own: a daemon at /dev/log that
	# takes the first record, then closes; three more records follow
	# shellcheck disable=SC2016 # python's text
	run --separate-stderr unshare -m --propagation private -- sh -c 'mount -t tmpfs tmpfs /dev && exec "$@"' sh python3 -c '
import socket, subprocess, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
p = subprocess.Popen(sys.argv[1:-1], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
lines = open(sys.argv[-1]).read().splitlines(True)
p.stdin.write(lines[0].encode()); p.stdin.flush()
s.settimeout(10)
got = s.recv(65536).decode()
s.close()
for l in lines[1:4]:
    p.stdin.write(l.encode())
p.stdin.close()
print(p.wait(timeout=30), " event=" in got)' ibv_eventwatch -q -r - --syslog --metrics-file "$M" "$FABRIC"
	assert_success
	assert_output '0 True'
	assert_equal "$stderr" 'ibv_eventwatch: syslog: cannot send an entry (Connection refused): going on, counting the entries lost'
	assert_equal "$(metric 'ibvevent_log_send_failures_total{sink="syslog"}' "$M")" 3
	assert_equal "$(sum_events "$M")" 4
	run -0 grep '^# TYPE ibvevent_log_send_failures_total ' "$M"
	assert_output '# TYPE ibvevent_log_send_failures_total counter'
}

@test "--metrics-state keeps the counters across a restart; without it they start from zero" {
	S=$BATS_TEST_TMPDIR/state
	ibv_eventwatch -q -r "$FABRIC" --metrics-file "$M" --metrics-state "$S" >/dev/null
	ibv_eventwatch -q -r "$FABRIC" --metrics-file "$M" --metrics-state "$S" >/dev/null
	run -0 grep -F 'ibvevent_events_total{device="mlx5_0",port="1",event="PORT_ERR",severity="error"}' "$M"
	assert_output --regexp ' 2$'
	ibv_eventwatch -q -r "$FABRIC" --metrics-file "$M" >/dev/null
	run -0 grep -F 'ibvevent_events_total{device="mlx5_0",port="1",event="PORT_ERR",severity="error"}' "$M"
	assert_output --regexp ' 1$'
	echo 'not json' >"$S"
	run --separate-stderr ibv_eventwatch -q -r "$FABRIC" --metrics-file "$M" --metrics-state "$S"
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: $S:1: not a metrics state line" ]
}

@test "a --metrics-state file of 0.1.0 (series then named rdma_*) is read: it holds no series names" {
	S=$BATS_TEST_TMPDIR/state
	# as 0.1.0 wrote it (another boot: its counts are kept)
	cat >"$S" <<'JSON'
{"boot_id":"00000000-0000-0000-0000-000000000000"}
{"device":"mlx5_0","port":1,"flaps":3,"up":false,"since":"2026-05-04T11:30:30.000000000Z","last_down":1200.000000,"flap_times":["2026-05-04T10:06:30.000000000Z"]}
{"device":"mlx5_0","port":1,"event":"PORT_ERR","severity":"error","count":4,"last":"2026-05-04T11:10:30.000000000Z"}
{"device":"mlx5_0","port":0,"event":"EVENTS_LOST","severity":"warning","count":1,"last":"2026-05-04T10:15:31.000000000Z"}
JSON
	run --separate-stderr ibv_eventwatch -q -r "$FABRIC" --metrics-file "$M" --metrics-state "$S"
	assert_success
	assert_equal "$(metric 'ibvevent_events_total{device="mlx5_0",port="1",event="PORT_ERR",severity="error"}' "$M")" 5
	assert_equal "$(metric 'ibvevent_events_total{device="mlx5_0",port="",event="EVENTS_LOST",severity="warning"}' "$M")" 1
	flaps=$(metric 'ibvevent_port_flaps_total{device="mlx5_0",port="1"}' "$M")
	ibv_eventwatch -q -r "$FABRIC" --metrics-file "$M" >/dev/null
	assert_equal "$flaps" $(($(metric 'ibvevent_port_flaps_total{device="mlx5_0",port="1"}' "$M") + 3))
	run -1 grep -c rdma_ "$S"
}

@test "node_exporter's textfile collector publishes the file" {
	need prometheus-node-exporter
	dir=$BATS_TEST_TMPDIR/textfile
	mkdir -p "$dir"
	ibv_eventwatch -q -r "$FABRIC" --metrics-file "$dir/rdma.prom" >/dev/null
	port=$(free_port)
	bg_start node_exporter 143 prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$dir"
	wait_http "http://127.0.0.1:$port/metrics"
	run -0 curl -fs "http://127.0.0.1:$port/metrics"
	assert_line 'ibvevent_events_total{device="mlx5_1",event="DEVICE_FATAL",port="",severity="fatal"} 1'
	assert_line 'ibvevent_device_present{device="mlx5_1"} 1'
	assert_line 'node_textfile_scrape_error 0'
}

@test "a device name with a quote, a backslash and a newline: escaped in its labels, read back as itself" {
	need promtool
	need prometheus-node-exporter
	dir=$BATS_TEST_TMPDIR/textfile
	mkdir -p "$dir"
	cap=$BATS_TEST_TMPDIR/odd.jsonl
	not_output "$cap"
	printf '%s\n' '{"time":"2026-03-02T08:00:00Z","device":"a\"b\\c\nd","port":1,"event":"PORT_ERR"}' >"$cap"
	run -0 ibv_eventwatch -q -r "$cap" --metrics-file "$dir/rdma.prom"
	# Prometheus' text format: \" \\ and \n in a label value
	run -0 grep -F 'ibvevent_events_total{' "$dir/rdma.prom"
	assert_output 'ibvevent_events_total{device="a\"b\\c\nd",port="1",event="PORT_ERR",severity="error"} 1'
	run -0 promtool check metrics <"$dir/rdma.prom"
	# a real parser reads it back: node_exporter's textfile collector
	# parses the file and serves what it read, escaped its own way
	port=$(free_port)
	bg_start node_exporter 143 prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$dir"
	wait_http "http://127.0.0.1:$port/metrics"
	run -0 curl -fs "http://127.0.0.1:$port/metrics"
	assert_line 'node_textfile_scrape_error 0'
	assert_line 'ibvevent_events_total{device="a\"b\\c\nd",event="PORT_ERR",port="1",severity="error"} 1'
	assert_line 'ibvevent_device_present{device="a\"b\\c\nd"} 1'
}

@test "a real Prometheus server scrapes node_exporter and --metrics-listen; its API has the counts" {
	need prometheus
	need prometheus-node-exporter
	dir=$BATS_TEST_TMPDIR/textfile
	mkdir -p "$dir"
	ibv_eventwatch -q -r "$FABRIC" --metrics-file "$dir/rdma.prom" >/dev/null
	ne=$(free_port)
	bg_start node_exporter 143 prometheus-node-exporter --web.listen-address="127.0.0.1:$ne" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$dir"
	# a live watcher serving /metrics, fed from a pipe that stays open
	fifo=$BATS_TEST_TMPDIR/events
	mkfifo "$fifo"
	exec 5<>"$fifo"
	ml=$(free_port)
	bg_start watch 0 ibv_eventwatch -q -r - --metrics-listen ":$ml" <"$fifo" >/dev/null
	cat "$FABRIC" >&5
	pp=$(free_port)
	cat >"$BATS_TEST_TMPDIR/prometheus.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: textfile
    static_configs: [{ targets: ['127.0.0.1:$ne'] }]
  - job_name: listen
    static_configs: [{ targets: ['127.0.0.1:$ml'] }]
YML
	prometheus_start "$pp" "$BATS_TEST_TMPDIR/prometheus.yml"
	end=$((SECONDS + 60))
	until [ "$(prom_query "$pp" 'sum(ibvevent_events_total{job="textfile"})')" = 28 ] &&
		[ "$(prom_query "$pp" 'sum(ibvevent_events_total{job="listen"})')" = 28 ]; do
		[ $SECONDS -lt $end ] || fail "Prometheus never had the counts: $(tail -n 3 "${BG_ERR[prometheus]}")"
		sleep 0.5
	done
	assert_equal "$(prom_query "$pp" 'ibvevent_events_total{job="textfile",device="mlx5_0",event="PORT_ERR"}')" 1
	assert_equal "$(prom_query "$pp" 'ibvevent_port_state{job="listen",device="mlx5_1",port="1"}')" 4
	assert_equal "$(prom_query "$pp" 'count(ibvevent_build_info)')" 2
}

@test "--metrics-listen: /metrics only, GET only, loopback when no host is given" {
	fifo=$BATS_TEST_TMPDIR/events
	mkfifo "$fifo"
	exec 5<>"$fifo"
	port=$(free_port)
	bg_start watch 0 ibv_eventwatch -q -r - --metrics-listen ":$port" <"$fifo" >/dev/null
	wait_http "http://127.0.0.1:$port/metrics"
	run -0 ss -ltnH "sport = :$port"
	assert_output --regexp "127\.0\.0\.1:$port "
	run -0 curl -fsi "http://127.0.0.1:$port/metrics"
	assert_line --partial 'Content-Type: text/plain; version=0.0.4'
	assert_output --partial 'ibvevent_build_info{'
	run -0 curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/"
	assert_output 404
	run -0 curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/metrics"
	assert_output 405
	head -n 2 "$FABRIC" >&5
	end=$((SECONDS + 30))
	until curl -fs "http://127.0.0.1:$port/metrics" | grep -q 'event="PORT_ACTIVE"'; do
		[ $SECONDS -lt $end ] || fail "the endpoint never counted the lines"
		sleep 0.05
	done
	run -0 curl -fs "http://127.0.0.1:$port/metrics"
	assert_line 'ibvevent_events_total{device="mlx5_0",port="1",event="PORT_ACTIVE",severity="info"} 1'
	# libmicrohttpd (and GnuTLS with it) is loaded now, for serving...
	grep -q '/libmicrohttpd\.so' "/proc/$(bg_pid watch)/maps"
}

@test "a watcher that serves no HTTP loads neither libmicrohttpd nor GnuTLS" {
	[ "${IBVEVENT_VALGRIND:-}" != 1 ] ||
		skip "under memcheck the commands are wrappers; the plain run checks the loading"
	run ldd "$BUILD/bin/ibv_eventwatch"
	assert_success
	refute_output --partial microhttpd
	refute_output --partial gnutls
	fifo=$BATS_TEST_TMPDIR/events
	mkfifo "$fifo"
	exec 5<>"$fifo"
	bg_start watch 0 ibv_eventwatch -q -r - --metrics-file "$M" <"$fifo" >/dev/null 5>&-
	head -n 1 "$FABRIC" >&5
	wait_for "$M" 'ibvevent_events_total' 10
	run -1 grep -cE '/lib(microhttpd|gnutls)\.so' "/proc/$(bg_pid watch)/maps"
	assert_output 0
	exec 5>&-
	bg_wait watch 0
}

@test "metrics and syslog usage errors" {
	run --separate-stderr ibv_eventwatch -r "$FABRIC" --metrics-state x
	assert_failure 2
	run --separate-stderr ibv_eventwatch -r "$FABRIC" --syslog=nowhere
	assert_failure 2
	[ "${stderr_lines[0]}" = "ibv_eventwatch: unknown syslog facility 'nowhere'" ]
	run --separate-stderr ibv_eventwatch -l --metrics-file "$M"
	assert_failure 2
	run --separate-stderr ibv_eventwatch -r "$FABRIC" --metrics-listen nonsense
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: --metrics-listen 'nonsense' is not HOST:PORT, [HOST]:PORT or :PORT" ]
	run --separate-stderr ibv_eventwatch -r "$FABRIC" --metrics-file /nonexistent/dir/m.prom
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: write to /nonexistent/dir/m.prom: No such file or directory" ]
	# a directory is no state, not an empty one
	run --separate-stderr ibv_eventwatch -r "$FABRIC" --metrics-file "$M" --metrics-state "$BATS_TEST_TMPDIR"
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: $BATS_TEST_TMPDIR: Is a directory" ]
}

@test "the systemd unit verifies, runs the installed watcher, and is hardened" {
	need systemd-analyze
	dest=$BATS_TEST_TMPDIR/root
	make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/usr >/dev/null
	unit=$BATS_TEST_TMPDIR/ibv_eventwatch.service
	sed "s|/usr/bin/ibv_eventwatch|$dest/usr/bin/ibv_eventwatch|" \
		"$dest/usr/lib/systemd/system/ibv_eventwatch.service" >"$unit"
	run systemd-analyze verify --man=no "$unit"
	assert_success
	assert_output ''
	run -0 systemd-analyze security --offline=yes "$unit"
	level=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p' <<<"$output")
	echo "# exposure level $level" >&3
	awk -v l="$level" 'BEGIN { exit !(l != "" && l < 3.0) }'
	grep -q '^CapabilityBoundingSet=$' "$unit"
	grep -q '^DynamicUser=yes$' "$unit"
	# the --all-processes drop-in is installed, not enabled
	conf=$dest/usr/share/ibvevent/all-processes.conf
	[ -f "$conf" ]
	[ ! -e "$dest/usr/lib/systemd/system/ibv_eventwatch.service.d" ]
	# beside the unit it verifies, adds -A and exactly three capabilities
	mkdir "$unit.d"
	sed "s|/usr/bin/ibv_eventwatch|$dest/usr/bin/ibv_eventwatch|" "$conf" \
		>"$unit.d/all-processes.conf"
	run systemd-analyze verify --man=no "$unit"
	assert_success
	assert_output ''
	run -0 systemd-analyze security --offline=yes "$unit"
	assert_line --regexp '^✗ CapabilityBoundingSet=~CAP_BPF '
	assert_line --regexp '^✗ CapabilityBoundingSet=~CAP_SYS_ADMIN '
	assert_line --regexp '^✓ CapabilityBoundingSet=~CAP_NET_ADMIN '
	level=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p' <<<"$output")
	echo "# exposure level with --all-processes $level" >&3
	awk -v l="$level" 'BEGIN { exit !(l != "" && l < 3.0) }'
	grep -q -- '^ExecStart=.* --all-processes ' "$unit.d/all-processes.conf"
}

@test "the docs name the service's files as its unit writes them, and node_exporter's directory as Debian's has it" {
	# the unit's ExecStart, its continuation lines joined
	exec=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$TOP/systemd/ibv_eventwatch.service.in" | tr -d '\\\n')
	read -r file state < <(sed -n 's/.*--metrics-file \([^ ]*\).*--metrics-state \([^ ]*\).*/\1 \2/p' <<<"$exec")
	assert_equal "$file $state" "/run/ibvevent/rdma.prom /var/lib/ibvevent/metrics.state"
	# every file under the service's directories that the docs and the
	# shipped files name is one of them
	cd "$TOP"
	run -0 bash -c "grep -rhoE '/(var/lib|run)/ibvevent/[A-Za-z0-9_.-]*[A-Za-z0-9]' README.md man share systemd | sort -u"
	assert_output "$(printf '%s\n' "$file" "$state" | sort -u)"
	# an example's other --metrics-file is in node_exporter's textfile
	# directory, as Debian's package runs it (its default)
	need prometheus-node-exporter
	dir=$(prometheus-node-exporter --help 2>&1 |
		sed -n 's/.*--collector\.textfile\.directory="\([^"]*\)".*/\1/p')
	[ -n "$dir" ] || fail "prometheus-node-exporter --help names no textfile directory"
	run -0 bash -c "grep -rhoE -- '--metrics-file /[^ ]*' README.md man share systemd | sort -u"
	assert_output "$(printf -- '--metrics-file %s\n' "$file" "$dir/rdma.prom" | sort -u)"
}
