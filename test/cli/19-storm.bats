#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Storm summaries (--storm, --storm-json) on the storm capture
# (test/captures/storm.sh: 10,000 CQ_ERR of one CQ in 2.5 s among events
# that are no storm). Counts are checked against the capture itself: the
# events written alone plus every summary's count is what it holds.

load ../test_helper

setup_file() {
	export STORM=$BATS_FILE_TMPDIR/storm.jsonl
	"$TOP/test/captures/storm.sh" >"$STORM"
}

setup() {
	ibve_setup
	export TZ=UTC
	not_output "$STORM"
	# the storming key's records in the capture, and all of them
	KEY='select(.event == "CQ_ERR" and .pid == 217)'
	STORMING=$(jq -c "$KEY" "$STORM" | grep -c .)
	RECORDS=$(grep -c . "$STORM")
}

@test "a storm is a summary a second and one when it ends; every event is counted once" {
	run --separate-stderr ibv_eventwatch -r "$STORM"
	assert_success
	assert_equal "$stderr" ''
	diff -u "$EXPECTED/storm.txt" <(echo "$output")
	# not the stored file alone: the capture decides
	[ "$STORMING" -eq 10000 ] || fail "the capture has $STORMING storming records"
	assert_equal "$(storm_events "$output")" "$RECORDS"
	assert_equal "$(storm_events "$(grep 'pid 217 ib_write_bw' <<<"$output" | grep CQ_ERR)")" "$STORMING"
	# the first ten of the second alone (the threshold), then summaries
	assert_equal "$(grep -c 'completion queue overrun.*pid 217' <<<"$output")" 10
	assert_line --index 13 --regexp '^2026-11-24 00:10:01\.002\+00:00 rxe0 +CQ_ERR +error +storm: x4,000 in 1\.0 s \(cq handle 3, pid 217 ib_write_bw \[slurm job 4712\]\)$'
	assert_line --index 18 --partial 'storm over: 9,990 in 4.0 s (cq handle 3, pid 217 ib_write_bw [slurm job 4712])'
	# what is no storm is written alone, in its place: another process's
	# CQ errors, the same process's SRQ event, the port
	assert_equal "$(grep -c 'pid 301 ibv_rc_pingpong' <<<"$output")" 3
	assert_line --index 11 --partial 'SRQ_LIMIT_REACHED'
	assert_line --index 19 --partial 'PORT_ERR'
	# a storm the replay's end ends: its last summary says what it had
	run -0 ibv_eventwatch -r "$STORM" --comm ib_write_bw -e CQ_ERR
	assert_equal "$(storm_events "$output")" "$STORMING"
	assert_line --index -1 --partial 'storm over: x1,990 in 0.5 s, 9,990 in 2.5 s in all (cq handle 3'
}

@test "--storm N is the threshold; --storm 0 writes every event as before" {
	run -0 ibv_eventwatch -r "$STORM" --storm 0
	assert_equal "${#lines[@]}" "$RECORDS"
	refute_output --partial storm
	# each line is its record's: the same as the text of the JSON
	diff -u <(echo "$output") <(ibv_eventwatch -r - --storm 0 < <(jq -c . "$STORM"))
	# the stored outputs are today's, with --storm 0 and by default
	diff -u "$EXPECTED/ib-fabric.txt" <(ibv_eventwatch -r "$CAPTURES/ib-fabric.jsonl" --storm 0)
	diff -u "$EXPECTED/ib-fabric.txt" <(ibv_eventwatch -r "$CAPTURES/ib-fabric.jsonl")
	diff -u "$EXPECTED/kernel.txt" <(ibv_eventwatch -r "$CAPTURES/kernel.jsonl" --storm 0)
	diff -u "$EXPECTED/kernel.txt" <(ibv_eventwatch -r "$CAPTURES/kernel.jsonl")
	diff -u "$EXPECTED/mlx5.txt" <(ibv_eventwatch -r "$CAPTURES/mlx5.jsonl" --storm 0)
	# kernel.jsonl's five CQ_ERR in a second: a storm past 4
	run -0 ibv_eventwatch -r "$CAPTURES/kernel.jsonl" --storm 4 -e CQ_ERR
	assert_line --index 4 --partial 'storm over: x1 in 0.0 s, 1 in 0.0 s in all (cq handle 0, pid 212'
	assert_equal "${#lines[@]}" 5
	run -0 ibv_eventwatch -r "$STORM" --storm 100 --comm ib_write_bw -e CQ_ERR
	assert_equal "$(grep -c 'completion queue overrun' <<<"$output")" 100
	assert_equal "$(storm_events "$output")" "$STORMING"
	run -2 ibv_eventwatch -r "$STORM" --storm x
	assert_output --partial "invalid storm threshold 'x'"
	run -2 ibv_eventwatch -r "$STORM" --storm 0 --storm-json
	assert_output --partial '--storm-json needs a --storm threshold above 0'
}

@test "-n and --expect count events, not records; the storm -n stops still ends with its summary" {
	for n in 100 5000 10001; do
		run -0 ibv_eventwatch -r "$STORM" -n "$n"
		assert_equal "$(storm_events "$output")" "$n"
	done
	run -0 ibv_eventwatch -r "$STORM" -n 100
	assert_line --index -1 --partial 'storm over: x89 in 0.0 s, 89 in 0.0 s in all (cq handle 3'
	run -0 ibv_eventwatch -r "$STORM" --expect PORT_ERR
	assert_line --index -1 --partial PORT_ERR
	assert_equal "$(storm_events "$output")" "$RECORDS"
	# a capture of summaries: -n counts what they stand for
	ibv_eventwatch -r "$STORM" -j --storm-json >"$BATS_TEST_TMPDIR/sum.jsonl"
	run -0 ibv_eventwatch -r "$BATS_TEST_TMPDIR/sum.jsonl" -j --storm 0 -n 5000
	run -0 jq -s 'map(.count // 1) | [add, (.[:-1] | add)]' -c <<<"$output"
	run -0 jq -e '.[0] >= 5000 and .[1] < 5000' <<<"$output"
}

@test "JSON keeps a record per event; --storm-json summarises -j and -w, which replay to the same counts" {
	# one record per event by default
	ibv_eventwatch -r "$STORM" -j -w "$BATS_TEST_TMPDIR/cap.jsonl" >"$BATS_TEST_TMPDIR/all.jsonl"
	not_output "$BATS_TEST_TMPDIR/all.jsonl" "$BATS_TEST_TMPDIR/cap.jsonl"
	assert_equal "$(grep -c . "$BATS_TEST_TMPDIR/all.jsonl")" "$RECORDS"
	assert_equal "$(grep -c . "$BATS_TEST_TMPDIR/cap.jsonl")" "$RECORDS"
	run -1 grep -c '"count"' "$BATS_TEST_TMPDIR/all.jsonl"
	assert_output 0
	# summaries: counts add up to the capture, per key too
	run -0 ibv_eventwatch -r "$STORM" -j --storm-json -w "$BATS_TEST_TMPDIR/sum.jsonl"
	diff -u <(echo "$output") "$BATS_TEST_TMPDIR/sum.jsonl"
	assert_equal "${#lines[@]}" 20
	run -0 jq -s 'map(.count // 1) | add' "$BATS_TEST_TMPDIR/sum.jsonl"
	assert_output "$RECORDS"
	run -0 jq -s "map($KEY | .count // 1) | add" "$BATS_TEST_TMPDIR/sum.jsonl"
	assert_output "$STORMING"
	run -0 jq -c 'select(.count) | [.count, .interval_us, .storm_total, .storm_us, .handle, .pid]' \
		"$BATS_TEST_TMPDIR/sum.jsonl"
	assert_output '[4000,1000000,null,null,3,217]
[4000,1000000,null,null,3,217]
[1990,1000000,null,null,3,217]
[0,1000000,9990,4000000,3,217]'
	# a summary is a record: the replay writes the same text, filters
	# select it, and the metrics count its events
	diff -u "$EXPECTED/storm.txt" <(ibv_eventwatch -r "$BATS_TEST_TMPDIR/sum.jsonl")
	run -0 ibv_eventwatch -r "$BATS_TEST_TMPDIR/sum.jsonl" -e CQ_ERR --comm ib_write_bw -j
	run -0 jq -s 'map(.count // 1) | add' <<<"$output"
	assert_output "$STORMING"
	for c in "$STORM" "$BATS_TEST_TMPDIR/sum.jsonl"; do
		ibv_eventwatch -q -r "$c" --metrics-file "$BATS_TEST_TMPDIR/m.prom" >/dev/null
		grep -E '^ibvevent_(events|events_by_class|workload_queue_errors)_total' "$BATS_TEST_TMPDIR/m.prom" \
			>"$BATS_TEST_TMPDIR/${c##*/}.prom"
	done
	run -0 grep -c . "$BATS_TEST_TMPDIR/storm.jsonl.prom"
	[ "$output" -ge 2 ] || fail "no event counters in the metrics"
	grep -q ' 10000$' "$BATS_TEST_TMPDIR/storm.jsonl.prom" ||
		fail "no counter of the storm's 10,000: $(cat "$BATS_TEST_TMPDIR/storm.jsonl.prom")"
	diff -u "$BATS_TEST_TMPDIR/storm.jsonl.prom" "$BATS_TEST_TMPDIR/sum.jsonl.prom"
	# ibv_eventtop -b: the same counts of ports and processes
	for c in "$STORM" "$BATS_TEST_TMPDIR/sum.jsonl"; do
		ibv_eventtop -r "$c" -b -j | tail -1 |
			jq -c '[.events, (.rows[] | [.device, .port, .total, .counts]),
				(.processes[] | [.pid, .comm, .total, .counts])]'
	done >"$BATS_TEST_TMPDIR/top"
	run -0 jq -c '.[2]' "$BATS_TEST_TMPDIR/top"
	assert_line --index 0 '[217,"ib_write_bw",10001,{"qp":0,"cq":10000,"srq":1,"wq":0}]'
	assert_equal "$(sed -n 1p "$BATS_TEST_TMPDIR/top")" "$(sed -n 2p "$BATS_TEST_TMPDIR/top")"
}

# in_ns CMD...: CMD in a mount namespace of its own where /dev is a new,
# empty tmpfs (no /dev/log), as root.
in_ns() {
	unshare -m --propagation private -- sh -c 'mount -t tmpfs tmpfs /dev && exec "$@"' sh "$@"
}

@test "--syslog: the same summaries as the text, every event counted" {
	[ "$(id -u)" = 0 ] || skip "a /dev/log of the test's own needs root (mount namespaces)"
	command -v unshare >/dev/null || skip "unshare is not installed (util-linux)"
	# a socket at /dev/log; each message's text after "IDENT[PID]: "
	# shellcheck disable=SC2016 # python's text
	run --separate-stderr in_ns python3 -c '
import socket, subprocess, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
s.settimeout(0.2)
while True:  # read while it writes: a full socket would block it
    try:
        print(s.recv(65536).decode().split("]: ", 1)[1])
    except socket.timeout:  # nothing queued: done once it has ended
        if p.poll() is not None:
            break
print("status", p.returncode)' ibv_eventwatch -r "$STORM" --syslog
	assert_success
	assert_equal "$stderr" ''
	assert_line --index -1 'status 0'
	text=$(ibv_eventwatch -r "$STORM")
	assert_equal "$((${#lines[@]} - 1))" "$(wc -l <<<"$text")"
	assert_line 'device=rxe0 event=CQ_ERR severity=error code=0 source=kernel: storm: x4,000 in 1.0 s (cq handle 3, pid 217 ib_write_bw [slurm job 4712])'
	assert_line 'device=rxe0 event=CQ_ERR severity=error code=0 source=kernel: storm over: 9,990 in 4.0 s (cq handle 3, pid 217 ib_write_bw [slurm job 4712])'
	assert_equal "$(storm_events "$(grep -v '^status ' <<<"$output")")" "$RECORDS"
}
