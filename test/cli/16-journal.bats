#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --journal: native systemd journal entries, read back from a real
# systemd-journald of the test's own (in a private mount namespace, tmpfs
# over /run/systemd, /run/log and /var/log/journal), and the catalog as a
# real journalctl shows it. Every record is checked against the capture's
# own JSON, never against the watcher's other outputs.

load ../test_helper
load ../journald

setup_file() {
	# the catalog as make install puts it (PREFIX=/usr: where journalctl reads)
	export DEST=$BATS_FILE_TMPDIR/root
	make -s -C "$TOP" install DESTDIR="$DEST" PREFIX=/usr >/dev/null
	export CATALOG=$DEST/usr/lib/systemd/catalog/ibvevent.catalog
}

setup() {
	ibve_setup
	export TZ=UTC
	FABRIC=$CAPTURES/ib-fabric.jsonl
	# journalctl's JSON and the records expected of it: not our output
	not_output "$BATS_TEST_TMPDIR"/{all,got,want,events}
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	exec 5>&- 2>/dev/null || true
	return $rc
}

# The MESSAGE_ID of each event name in the installed catalog
# ("UNKNOWN" for events this version does not know; a name two sources
# share as "NAME(source)", an autopsy's verdict as
# "PORT_DOWN_CAUSE(cause)"), as a JSON object.
catalog_ids() {
	awk '/^-- / { id = $2 }
		/^Subject: RDMA event @RDMA_EVENT@/ { print "UNKNOWN", id; next }
		/^Subject: RDMA [^ ]+ \(/ { print $3 $4, id; next }
		/^Subject: RDMA / { print $3, id }' "$CATALOG" |
		jq -Rn '[inputs | split(" ") | {(.[0]): .[1]}] | add'
}

# compare CAPTURE ENTRIES [full]: entry I against record I of CAPTURE
# (JSON Lines files): each member of the record is RDMA_<KEY>, the same
# value (strings as they are, the rest as JSON; null: no field), time
# with nine digits; MESSAGE is the syslog text's start (with the entry's
# port where the record leaves it to the mlx5 entry), PRIORITY that of
# RDMA_SEVERITY, MESSAGE_ID the catalog's for the event. "full": the
# entry has no RDMA_ field the record lacks. Prints each difference.
compare() {
	jq -rn --slurpfile c "$1" --slurpfile e "$2" --argjson ids "$(catalog_ids)" \
		--arg full "${3:-}" '
	def norm_time: if test("\\.") then
			capture("^(?<s>[^.]+)\\.(?<f>[0-9]+)Z$") | "\(.s).\((.f + "000000000")[0:9])Z"
		else sub("Z$"; ".000000000Z") end;
	def val: if type == "string" then . elif type == "array" or type == "object"
		then tojson else tostring end;
	{"info": "6", "warning": "4", "error": "3", "fatal": "2"} as $prio |
	(select(($c | length) != ($e | length)) | "\($c | length) records, \($e | length) entries"),
	(range(0; [$c, $e | length] | min) as $i | $c[$i] as $r | $e[$i] as $x |
		($r | to_entries[] | select(.value != null) |
			("RDMA_" + (.key | ascii_upcase)) as $k |
			(if .key == "time" then .value | norm_time else .value | val end) as $want |
			select($x[$k] != $want) | "\($i): \($k) is \($x[$k]), not \($want)"),
		(select($full == "full") |
			($x | keys[] | select(startswith("RDMA_"))) as $k |
			select([$r | to_entries[] | select(.value != null) |
				"RDMA_" + (.key | ascii_upcase)] | index($k) | not) |
			"\($i): \($k) is not in the record"),
		(select($x.PRIORITY != $prio[$x.RDMA_SEVERITY // ""]) |
			"\($i): PRIORITY \($x.PRIORITY) for \($x.RDMA_SEVERITY)"),
		(select($x.SYSLOG_IDENTIFIER != "ibv_eventwatch") | "\($i): SYSLOG_IDENTIFIER"),
		(($r.port // $x.RDMA_PORT | if . then " port=\(.)" else "" end) as $p |
			"device=\($r.device)\($p) event=\($r.event) severity=\($x.RDMA_SEVERITY)" as $m |
			select($x.MESSAGE | startswith($m) | not) |
			"\($i): MESSAGE \($x.MESSAGE) does not start with \($m)"),
		(($ids["\($x.RDMA_EVENT)(\($x.RDMA_CAUSE))"] //
			$ids["\($x.RDMA_EVENT)(\($x.RDMA_SOURCE))"] //
			$ids[$x.RDMA_EVENT | sub("\\(.*"; "")]) as $id |
			select($id == null or $x.MESSAGE_ID != $id) |
			"\($i): MESSAGE_ID \($x.MESSAGE_ID) for \($x.RDMA_EVENT), not \($id)"))'
}

@test "--journal: every record of a capture is one entry, with every field of its JSON" {
	journal_start
	cat "$CAPTURES/kernel.jsonl" "$CAPTURES/sm.jsonl" >"$BATS_TEST_TMPDIR/want"
	run --separate-stderr in_ns ibv_eventwatch -q -r "$CAPTURES/kernel.jsonl" --journal
	assert_success
	assert_equal "$stderr" ''
	run --separate-stderr in_ns ibv_eventwatch -q -r "$CAPTURES/sm.jsonl" --journal -j
	assert_success
	entries "$BATS_TEST_TMPDIR/got" 17
	# records of kernel.jsonl and sm.jsonl are whole: the entry has no more
	run -0 compare "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" full
	assert_output ''
	# a few, spelled out
	run -0 jq -sr '.[0] | "\(.RDMA_PID) \(.RDMA_COMM) \(.RDMA_CGROUP) \(.PRIORITY)"' "$BATS_TEST_TMPDIR/got"
	assert_output '209 ibv_eventinject /system.slice/slurmstepd.scope/job_4711/step_0/user/task_0 4'
	run -0 jq -sr '.[1] | "\(.RDMA_QP_NUM) \(.RDMA_QP_TYPE) \(.RDMA_PORT) \(.RDMA_TIME)"' "$BATS_TEST_TMPDIR/got"
	assert_output '19 RC 1 2026-11-24T00:07:55.175771542Z'
	run -0 jq -sr 'map(select(.RDMA_PORT == null)) | length' "$BATS_TEST_TMPDIR/got"
	[ "$output" -ge 1 ] # a null port is no field
	# one MESSAGE_ID per kind of event, none shared
	run -0 jq -sr '[.[] | "\(.RDMA_EVENT) \(.MESSAGE_ID)"] | unique | map(split(" ")) |
		(map(.[0]) | unique | length) == length and (map(.[1]) | unique | length) == length' \
		"$BATS_TEST_TMPDIR/got"
	assert_output true
}

@test "--journal: the filters apply; verbs severities, priorities and MESSAGE_IDs; mlx5 decoded" {
	journal_start
	# the severities of the capture's events, as the man page gives them
	sev='{"CLIENT_REREGISTER":"warning","COMM_EST":"info","CQ_ERR":"error",
		"DEVICE_ADDED":"info","DEVICE_FATAL":"fatal","DEVICE_REMOVED":"warning",
		"DEVICE_SPEED_CHANGE":"warning","GID_CHANGE":"info","LID_CHANGE":"warning",
		"NETDEV_ATTACH":"info","PATH_MIG":"warning","PATH_MIG_ERR":"error",
		"PKEY_CHANGE":"warning","PORT_ACTIVE":"info","PORT_ERR":"error",
		"QP_ACCESS_ERR":"error","QP_FATAL":"error","QP_LAST_WQE_REACHED":"info",
		"QP_REQ_ERR":"error","SM_CHANGE":"warning","SQ_DRAINED":"info",
		"SRQ_ERR":"error","SRQ_LIMIT_REACHED":"warning","UNKNOWN(21)":"warning",
		"WQ_FATAL":"error"}'
	jq -c --argjson s "$sev" 'select($s[.event] != "info")' "$FABRIC" >"$BATS_TEST_TMPDIR/want"
	n=$(grep -c . "$BATS_TEST_TMPDIR/want")
	[ "$n" -ge 10 ] || fail "only $n records above info in $FABRIC"
	[ "$n" -lt "$(grep -c . "$FABRIC")" ] || fail "the filter leaves every record"
	run --separate-stderr in_ns ibv_eventwatch -q -r "$FABRIC" -x 'severity<=info' --journal
	assert_success
	entries "$BATS_TEST_TMPDIR/got" "$n"
	run -0 compare "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	assert_output ''
	# shellcheck disable=SC2016 # jq's variables
	run -0 jq -rn --argjson s "$sev" --slurpfile e "$BATS_TEST_TMPDIR/got" \
		'$e[] | select(.RDMA_SEVERITY != $s[.RDMA_EVENT]) | .RDMA_EVENT'
	assert_output ''
	run -0 jq -sr '.[] | select(.RDMA_EVENT == "DEVICE_FATAL") | "\(.PRIORITY) \(.RDMA_CLASS) \(.RDMA_SOURCE) \(.RDMA_AFFILIATED)"' \
		"$BATS_TEST_TMPDIR/got"
	assert_output '2 device verbs false'
	run -0 jq -sr '.[] | select(.RDMA_EVENT == "UNKNOWN(21)") | "\(.RDMA_CODE) \(.RDMA_CLASS) \(.MESSAGE_ID)"' \
		"$BATS_TEST_TMPDIR/got"
	assert_output "21 unknown $(catalog_ids | jq -r .UNKNOWN)"

	# mlx5: the entry's own fields, decoded; the capture's members as they are
	run --separate-stderr in_ns ibv_eventwatch -q -r "$CAPTURES/mlx5.jsonl" --journal -e mlx5
	assert_success
	entries "$BATS_TEST_TMPDIR/all" $((n + 17))
	tail -n 17 "$BATS_TEST_TMPDIR/all" >"$BATS_TEST_TMPDIR/got"
	run -0 compare "$CAPTURES/mlx5.jsonl" "$BATS_TEST_TMPDIR/got"
	assert_output ''
	run -0 jq -sr '.[] | select(.RDMA_EVENT == "TEMP_WARN") | .RDMA_SENSORS' "$BATS_TEST_TMPDIR/got"
	assert_line --index 0 --regexp '^\[[0-9,]+\]$'
}

@test "--journal --autopsy: a verdict's entry has its cause, evidence and action, its catalog's MESSAGE_ID" {
	journal_start
	# the verdicts as JSON: what the autopsy decides is its own (no
	# capture has it); the entries must hold every field of it
	ibv_eventwatch -q -j -r "$CAPTURES/autopsy/mlx5.jsonl" --autopsy \
		-e PORT_DOWN_CAUSE,PORT_BACK >"$BATS_TEST_TMPDIR/want"
	n=$(grep -c . "$BATS_TEST_TMPDIR/want")
	run --separate-stderr in_ns ibv_eventwatch -q -r "$CAPTURES/autopsy/mlx5.jsonl" \
		--autopsy -e PORT_DOWN_CAUSE,PORT_BACK --journal
	assert_success
	assert_equal "$stderr" ''
	entries "$BATS_TEST_TMPDIR/got" "$n"
	run -0 compare "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" full
	assert_output ''
	# the first down of the capture: its module unplugged
	run -0 jq -sr '.[0] | "\(.RDMA_CAUSE) | \(.RDMA_EVIDENCE) | \(.RDMA_ACTION) | \(.PRIORITY)"' \
		"$BATS_TEST_TMPDIR/got"
	assert_output 'cable_or_module | ["mlx5 PORT_MODULE: module 0 unplugged"] | reseat or replace the cable or module | 3'
	run -0 jq -sr '[.[] | select(.RDMA_CAUSE == "administrative" or .RDMA_CAUSE == "unknown") | .PRIORITY] | unique | join(" ")' \
		"$BATS_TEST_TMPDIR/got"
	assert_output 4
	# each cause its own MESSAGE_ID (compare: the catalog's entry of it),
	# none the event's own
	# shellcheck disable=SC2016 # jq's variables
	run -0 jq -sr --arg ev "$(catalog_ids | jq -r .PORT_DOWN_CAUSE)" '[.[] |
		select(.RDMA_EVENT == "PORT_DOWN_CAUSE")] | [(map(.RDMA_CAUSE) | unique | length),
		(map(.MESSAGE_ID) | unique | length), (map(select(.MESSAGE_ID == $ev)) | length)] |
		join(" ")' "$BATS_TEST_TMPDIR/got"
	assert_output '5 5 0'
}

@test "--journal: a storm is a summary entry a second, their counts the storm's, none dropped" {
	journal_start
	"$TOP/test/captures/storm.sh" >"$BATS_TEST_TMPDIR/storm.jsonl"
	not_output "$BATS_TEST_TMPDIR/storm.jsonl"
	records=$(grep -c . "$BATS_TEST_TMPDIR/storm.jsonl")
	# what the text writes is what the journal gets: a line an entry
	run -0 ibv_eventwatch -r "$BATS_TEST_TMPDIR/storm.jsonl"
	n=${#lines[@]}
	[ "$n" -lt 30 ] || fail "$n lines of text for a storm"
	run --separate-stderr in_ns ibv_eventwatch -q -r "$BATS_TEST_TMPDIR/storm.jsonl" --journal
	assert_success
	assert_equal "$stderr" ''
	entries "$BATS_TEST_TMPDIR/got" "$n"
	# every event counted: entries alone plus the summaries' counts
	run -0 jq -s 'map(.RDMA_COUNT // "1" | tonumber) | add' "$BATS_TEST_TMPDIR/got"
	assert_output "$records"
	run -0 jq -s 'map(select(.RDMA_EVENT == "CQ_ERR" and .RDMA_PID == "217") | .RDMA_COUNT // "1" | tonumber) | add' \
		"$BATS_TEST_TMPDIR/got"
	assert_output "$(jq -c 'select(.event == "CQ_ERR" and .pid == 217)' "$BATS_TEST_TMPDIR/storm.jsonl" | grep -c .)"
	# the summaries: the text's words, their fields, the event's MESSAGE_ID
	# shellcheck disable=SC2016 # jq's variables
	run -0 jq -r 'select(.RDMA_COUNT) | "\(.RDMA_COUNT) \(.RDMA_INTERVAL_US) \(.RDMA_STORM_TOTAL // "-") \(.PRIORITY) \(.MESSAGE_ID == $id)"' \
		--arg id "$(catalog_ids | jq -r .CQ_ERR)" "$BATS_TEST_TMPDIR/got"
	assert_output '4000 1000000 - 3 true
4000 1000000 - 3 true
1990 1000000 - 3 true
0 1000000 9990 3 true'
	run -0 jq -r 'select(.RDMA_COUNT == "4000") | .MESSAGE' "$BATS_TEST_TMPDIR/got"
	assert_line --index 0 'device=rxe0 event=CQ_ERR severity=error code=0 source=kernel: storm: x4,000 in 1.0 s (cq handle 3, pid 217 ib_write_bw [slurm job 4712])'
	# journald dropped nothing: it says so in its own log when it does
	run in_ns journalctl -a --no-pager -o cat _PID="$JPID"
	refute_output --partial Suppressed
}

@test "journalctl -x shows the catalog: what happened and what to do" {
	journal_start
	[ -f "$CATALOG" ]
	cat=$BATS_TEST_TMPDIR/catalog
	mkdir "$cat"
	cp /usr/lib/systemd/catalog/*.catalog "$cat/" 2>/dev/null || true
	# the host's MESSAGE_IDs (one line each, whatever the translations)
	host=$(cat "$cat"/*.catalog 2>/dev/null | awk '/^-- / { print $2 }' | sort -u | wc -l)
	cp "$CATALOG" "$cat/"
	in_ns mount --bind "$cat" /usr/lib/systemd/catalog
	in_ns mount -t tmpfs tmpfs /var/lib/systemd/catalog
	run in_ns journalctl --update-catalog
	assert_success
	run in_ns journalctl --list-catalog
	assert_success
	ours=$(grep -c '^-- ' "$CATALOG")
	[ "$(grep -c ' ibvevent: RDMA ' <<<"$output")" -eq "$ours" ]
	[ "${#lines[@]}" -eq $((host + ours)) ]
	run --separate-stderr in_ns ibv_eventwatch -q -r "$FABRIC" -e 'PORT_ERR,UNKNOWN(21)' --journal
	assert_success
	entries "$BATS_TEST_TMPDIR/got" 2
	run in_ns journalctl -x -a --no-pager SYSLOG_IDENTIFIER=ibv_eventwatch RDMA_EVENT=PORT_ERR
	assert_success
	assert_line --partial 'device=mlx5_0 port=1 event=PORT_ERR severity=error code=10 source=verbs: port left the active state: link down or lost'
	assert_line '░░ Subject: RDMA PORT_ERR on mlx5_0'
	assert_line '░░ Defined-By: ibvevent'
	text=$(sed -n 's/^░░ //p' <<<"$output" | tr '\n' ' ')
	[[ $text == *"mlx5_0 reported PORT_ERR (class port, severity error, source verbs): port left the active state: link down or lost."* ]]
	[[ $text == *"What to do: The link is down. Check the cable"* ]]
	run -0 in_ns journalctl -x -a --no-pager SYSLOG_IDENTIFIER=ibv_eventwatch 'RDMA_EVENT=UNKNOWN(21)'
	assert_line '░░ Subject: RDMA event UNKNOWN(21) on mlx5_0, unknown to ibvevent'
	# a verdict of the autopsy: its cause's entry, with what to do
	run --separate-stderr in_ns ibv_eventwatch -q -r "$CAPTURES/autopsy/mlx5.jsonl" --autopsy \
		-e PORT_DOWN_CAUSE -d mlx5_3 --journal
	assert_success
	run -0 in_ns journalctl -x -a --no-pager SYSLOG_IDENTIFIER=ibv_eventwatch RDMA_CAUSE=administrative
	assert_line '░░ Subject: RDMA PORT_DOWN_CAUSE (administrative) on mlx5_3'
	text=$(sed -n 's/^░░ //p' <<<"$output" | tr '\n' ' ')
	[[ $text == *"Port 1 of mlx5_3 went down, and the link autopsy decided why: administrative (severity warning)."* ]]
	[[ $text == *"What to do: None for the hardware; ask who took it down."* ]]
}

@test "make install puts the catalog in CATALOGDIR, make uninstall takes it away" {
	[ -s "$CATALOG" ]
	run -0 grep -c '^-- [0-9a-f]\{32\}$' "$CATALOG"
	[ "$output" -ge 59 ]
	dest=$BATS_TEST_TMPDIR/root
	make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/opt/x CATALOGDIR=/etc/systemd/catalog >/dev/null
	cmp "$CATALOG" "$dest/etc/systemd/catalog/ibvevent.catalog"
	make -s -C "$TOP" uninstall DESTDIR="$dest" PREFIX=/opt/x CATALOGDIR=/etc/systemd/catalog >/dev/null
	[ ! -e "$dest/etc/systemd/catalog/ibvevent.catalog" ]
}

@test "no journal: one line and status 3 before watching" {
	need_ns
	# no journald at all: no socket
	run --separate-stderr unshare -m --propagation private -- sh -c \
		'mount -t tmpfs tmpfs /run/systemd && exec "$@"' sh \
		ibv_eventwatch -r "$FABRIC" --journal
	assert_failure 3
	assert_equal "$stderr" 'ibv_eventwatch: --journal: no journal at /run/systemd/journal/socket (No such file or directory)'
	assert_output '' # not one record replayed
	# a socket nobody reads (journald gone)
	command -v python3 >/dev/null || skip "python3 is not installed"
	run --separate-stderr unshare -m --propagation private -- sh -c \
		'mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/journal &&
		python3 -c "import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).bind(\"/run/systemd/journal/socket\")" &&
		exec "$@"' sh ibv_eventwatch -r "$FABRIC" --journal
	assert_failure 3
	assert_equal "$stderr" 'ibv_eventwatch: --journal: no journal at /run/systemd/journal/socket (Connection refused)'
	assert_output ''
	# libsystemd that cannot be loaded
	soname=$(ldconfig -p | awk '$1 == "libsystemd.so.0" { print $NF; exit }')
	lib=$(readlink -f "$soname")
	[ -f "$lib" ] || skip "libsystemd.so.0 is not installed"
	: >"$BATS_TEST_TMPDIR/empty"
	# shellcheck disable=SC2016 # expanded by that shell
	run --separate-stderr unshare -m --propagation private -- sh -c \
		'mount --bind "$0" "$1" && shift && exec "$@"' "$BATS_TEST_TMPDIR/empty" "$lib" \
		ibv_eventwatch -r "$FABRIC" --journal
	assert_failure 3
	assert_equal "$stderr" "ibv_eventwatch: --journal: cannot load libsystemd.so.0 (needed for the journal; Debian package libsystemd0): $soname: file too short"
	assert_output ''
}

@test "journald going away under a running watcher: one line, the entries lost counted, the rest goes on" {
	journal_start
	M=$BATS_TEST_TMPDIR/rdma.prom
	fifo=$BATS_TEST_TMPDIR/events
	mkfifo "$fifo"
	exec 5<>"$fifo"
	bg_start watch 0 "${IN_NS[@]}" ibv_eventwatch -q -r - --journal \
		--metrics-file "$M" <"$fifo" >"$BATS_TEST_TMPDIR/out" 5>&-
	head -n 1 "$FABRIC" >&5
	entries "$BATS_TEST_TMPDIR/got" 1
	wait_for "$M" '^ibvevent_log_send_failures_total\{sink="journal"\} 0$'
	bg_stop journald 0
	sed -n 2,4p "$FABRIC" >&5
	wait_for "$M" '^ibvevent_log_send_failures_total\{sink="journal"\} 3$' 30
	exec 5>&-
	bg_wait watch 0 30
	# said once, not per entry; standard output and the metrics lost nothing
	assert_equal "$(cat "${BG_ERR[watch]}")" 'ibv_eventwatch: journal: cannot send an entry (Connection refused): going on, counting the entries lost'
	assert_equal "$(wc -l <"$BATS_TEST_TMPDIR/out")" 4
	assert_equal "$(awk '/^ibvevent_events_total\{/ { s += $NF } END { print s }' "$M")" 4
}

@test "libsystemd is linked by nothing, and loaded only with --journal; json-c not for it" {
	run ldd "$BUILD/lib/libibvevent.so"
	assert_success
	refute_output --partial libsystemd
	[ "${IBVEVENT_VALGRIND:-}" != 1 ] ||
		skip "under memcheck the commands are wrappers; the plain run checks the loading"
	for c in "$BUILD"/bin/*; do
		run ldd "$c"
		assert_success
		refute_output --partial libsystemd
	done
	fifo=$BATS_TEST_TMPDIR/events
	mkfifo "$fifo"
	exec 5<>"$fifo"
	bg_start watch 0 ibv_eventwatch -q -r - -w "$BATS_TEST_TMPDIR/cap" <"$fifo" >/dev/null 5>&-
	head -n 1 "$FABRIC" >&5
	wait_for "$BATS_TEST_TMPDIR/cap" PORT_ERR 30
	run -1 grep -c '/libsystemd\.so' "/proc/$(bg_pid watch)/maps"
	assert_output 0
	exec 5>&-
	bg_wait watch 0 30
	# with --journal it is there
	journal_start
	exec 5<>"$fifo"
	bg_start watch 0 "${IN_NS[@]}" ibv_eventwatch -q -r - --journal <"$fifo" >/dev/null 5>&-
	head -n 1 "$FABRIC" >&5
	entries "$BATS_TEST_TMPDIR/got" 1
	grep -q '/libsystemd\.so\.0' "/proc/$(bg_pid watch)/maps"
	# the entry's fields come from the record's JSON writer, not from
	# reading its JSON back: no json-c (the line is one the library's own
	# scanner reads)
	run -1 grep -c '/libjson-c\.so' "/proc/$(bg_pid watch)/maps"
	assert_output 0
	exec 5>&-
	bg_wait watch 0 30
}

@test "--journal is refused with --list and --check" {
	run --separate-stderr ibv_eventwatch -l --journal
	assert_failure 2
	assert_equal "${stderr_lines[0]}" 'ibv_eventwatch: --list does not take metrics, syslog or journal options'
	run --separate-stderr ibv_eventwatch --check -r "$FABRIC" --journal
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "ibv_eventwatch: --check takes -d, --exclude-device, --spec, --spec-file, -r, --metrics-state, --since, --brief, --ignore-cause, --sm and -j"
}

@test "the service and the -A drop-in log to the journal, not to syslog" {
	unit=$DEST/usr/lib/systemd/system/ibv_eventwatch.service
	conf=$DEST/usr/share/ibvevent/all-processes.conf
	for f in "$unit" "$conf"; do
		# the command: ExecStart= and its continuation lines
		run -0 sed -n '/^ExecStart=./,/[^\\]$/p' "$f"
		assert_line --index 0 --regexp '^ExecStart=/usr/bin/ibv_eventwatch .*--journal '
		refute_output --partial -- --syslog
	done
}

@test "the man page's MESSAGE_IDs are the catalog's" {
	ids=$(catalog_ids)
	n=0
	while read -r name id; do
		assert_equal "$id" "$(jq -r --arg n "$name" '.[$n]' <<<"$ids")"
		n=$((n + 1))
	done < <(sed -n '/^\.Sh JOURNAL/,/^\.Sh /p' "$TOP/man/ibv_eventwatch.1" |
		sed -n 's/^\.It Dv \([A-Z_0-9]*\)[^ ]* Ta Li \([0-9a-f]\{32\}\)$/\1 \2/p')
	[ "$n" -ge 5 ]
}
