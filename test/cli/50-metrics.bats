#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Prometheus metrics from a capture, checked by the real tools: promtool,
# node_exporter's textfile collector and a Prometheus server, all on
# loopback; the systemd unit.

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
	# the stored file holds no build-specific value: the build info apart
	diff -u "$EXPECTED/ib-fabric.prom" <(grep -v '^ibvevent_build_info{' "$M")
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
		end=$((SECONDS + 10))
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
	end=$((SECONDS + 10))
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
