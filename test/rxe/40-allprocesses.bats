#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# ibv_eventwatch --all-processes: the kernel source's eBPF programs on the
# real kernel (6.1 and 6.12), against ibv_eventinject in another process.
# The injector's own report (what its own async queue delivered) is the
# reference each record is held to.

load ../test_helper
load ../journald

setup() {
	ibve_setup
	require_guest
	J=$BATS_TEST_TMPDIR/report.json
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	[ ! -d "$NVMET/ports/1" ] || nvme_untarget
	[ -e /sys/module/ib_uverbs ] || insmod "$BOOT/ib_uverbs.ko" || rc=1
	[ -e /sys/module/rdma_rxe ] || insmod "$BOOT/rdma_rxe.ko" || rc=1
	ip addr flush dev dummy0 scope global 2>/dev/null || true
	restore_rxe
	chmod 600 /dev/infiniband/uverbs0 2>/dev/null || true
	return $rc
}

# inject ARGS...: the injector in the background, its report in $J, its
# pid in $IPID; returns when it has ended with status 0.
inject() {
	bg_start inject 0 ibv_eventinject -j "$@" >"$J"
	IPID=$BG_LAST
	bg_wait inject 0 120
}

field() {
	jq -r "$1" "$J"
}

# kernel JQ: the watcher's kernel records of the injector, through JQ.
kernel() {
	jq -rc "select(.source == \"kernel\" and .pid == $IPID) | $1" "$WOUT"
}

# wait_records N: until the watcher has N kernel records of the injector.
wait_records() {
	local end=$((SECONDS + ${2:-30}))
	until [ "$(kernel .event | grep -c .)" -ge "$1" ]; do
		[ $SECONDS -lt $end ] || fail "$(kernel .event | grep -c .) of $1 records after ${2:-30} s"
		sleep 0.1
	done
}

# settled: a record through the same ring buffer after everything before
# it: another injector's SRQ_LIMIT_REACHED (its pid in $MARK). The ring
# is read in order, so once the watcher has written that record, it has
# written every earlier one: a count taken then is final (nothing twice,
# nothing late).
settled() {
	bg_start mark 0 ibv_eventinject -q srq-limit >/dev/null
	MARK=$BG_LAST
	bg_wait mark 0 120
	IPID=$MARK wait_records 1 60
}

# others: the watcher's kernel records but the marker's, through JQ.
others() {
	jq -rc "select(.source == \"kernel\" and .pid != ${MARK:-0}) | $1" "$WOUT"
}

# hooks: the names of the eBPF programs the kernel has linked to a hook,
# sorted, on one line: bpftool's word, not the watcher's.
hooks() {
	local links progs
	links=$(bpftool -j link list) || fail "bpftool link list failed"
	progs=$(bpftool -j prog list) || fail "bpftool prog list failed"
	jq -rn --argjson l "$links" --argjson p "$progs" \
		'[$l[].prog_id] as $ids | [$p[] | select(.id | IN($ids[])) | .name] | sort | join(" ")'
}

# want_hooks fe|kp: what hooks should say on this kernel: the uverbs QP
# hook, or from 6.11 on the core one that serves kernel QPs too; and those
# of who sets a netdev down or removes a device.
want_hooks() {
	local qp=qp
	kernel_at_least 6.11 && qp=core_qp
	printf '%s\n' $qp cq port srq wq setdown unreg unreg_put |
		sed "s/^/$1_/" | LC_ALL=C sort | paste -sd ' '
}

@test "srq-limit: the record names the injector's SRQ, pid and name" {
	start_watch -A -j
	inject srq-limit
	wait_records 1
	settled
	run -0 kernel '[.event, .class, .handle, .comm, .affiliated, .device] | join(" ")'
	assert_output "SRQ_LIMIT_REACHED srq $(field .handle) ibv_eventinject true rxe0"
	# the process, not one of its threads; from 'rdma resource' too
	[ "$(kernel .pid)" = "$IPID" ]
	run -0 jq -r .event "$WOUT"
	refute_line EVENTS_LOST
}

@test "cq-overflow --events 3000 (--storm 0): a record per CQ_ERR the owner read" {
	start_watch -A -j --storm 0
	inject cq-overflow --events 3000
	assert_equal "$(field .received)" 3000
	wait_records 3000 60
	settled
	assert_equal "$(kernel 'select(.event == "CQ_ERR")' | grep -c .)" 3000
	assert_equal "$(kernel .handle | sort -u)" "$(field .handle)"
	run -0 jq -r .event "$WOUT"
	refute_line EVENTS_LOST
}

@test "sq-drained: the injector's QP number, type and port" {
	start_watch -A -j
	inject sq-drained
	wait_records 1
	settled
	run -0 kernel '[.event, .qp_num, .qp_type, .port, .handle] | join(" ")'
	assert_output "SQ_DRAINED $(field .qp_num) RC 1 $(field .handle)"
}

@test "last-wqe: once, with the QP number (6.12: the core QP hook, not twice)" {
	start_watch -A -j
	if ! kernel_at_least 6.5; then
		# rxe raises it from 6.5 on; before, neither the owner nor we see it
		bg_start inject 1 ibv_eventinject -j -t 2 last-wqe >"$J"
		IPID=$BG_LAST
		bg_wait inject 1 60
		settled
		assert_equal "$(field .received)" 0
		assert_equal "$(kernel .event)" ""
		return
	fi
	inject last-wqe
	wait_records 1
	settled
	run -0 kernel '[.event, .qp_num] | join(" ")'
	assert_output "QP_LAST_WQE_REACHED $(field .qp_num)"
	if kernel_at_least 6.11; then
		# the uverbs QP hook is left out where the core one serves:
		# the kernel's links say so, and the watcher
		assert_equal "$(hooks)" "$(want_hooks fe)"
		[[ $(cat "$WERR") == *"(every process: 4 kernel hooks, fentry)"* ]]
	fi
}

# counted JSON: the CQ_ERR events the -A -j output JSON stands for, of
# the injector's CQ (a summary's count, else 1), and its EVENTS_LOST.
counted() {
	jq -s --argjson pid "$IPID" --argjson h "$(field .handle)" \
		'(map(select(.source == "kernel" and .pid == $pid and .event == "CQ_ERR" and .handle == $h) | .count // 1) | add // 0) + (map(select(.event == "EVENTS_LOST") | .lost) | add // 0)' "$1"
}

# text_counted: the same of the text watcher's lines in $WOUT.
text_counted() {
	local read lost
	read=$(storm_events "$(grep -E "CQ_ERR .*pid $IPID ibv_eventinject\)$" "$WOUT")")
	lost=$(grep EVENTS_LOST "$WOUT" | sed -n 's/.*lost \([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	echo $((read + lost))
}

# bss NAME: the watcher's eBPF counter NAME (sent, filtered, lost), as
# bpftool reads it from the programs' .bss map: the kernel's word.
bss() {
	local id
	id=$(bpftool -j map list | jq -r '.[] | select(.name | endswith(".bss")) | .id' | tail -n 1)
	[ -n "$id" ] || fail "bpftool: no .bss map"
	bpftool -j map dump id "$id" | jq -r "[.. | objects | .\"$1\"? // empty] | first"
}

# The storm is large; the emulator's pace sets how long it takes.
STORM=${IBVEVENT_STORM:-100000}

@test "a storm: text a few lines a second, the journal an entry a line, -j counts add up, the ring a record a second" {
	# the text watcher writes the journal too, a journald of the test's own
	journal_start
	# two watchers attaching at once take a while under TCG
	WOUT=$BATS_TEST_TMPDIR/watch.out
	bg_start watch 0 "${IN_NS[@]}" ibv_eventwatch -A --journal >"$WOUT"
	bg_start json 0 ibv_eventwatch -A -j >"$BATS_TEST_TMPDIR/json.out"
	wait_for "${BG_ERR[watch]}" '^ibv_eventwatch: watching' 120
	wait_for "${BG_ERR[json]}" '^ibv_eventwatch: watching' 120
	t0=$SECONDS
	inject cq-overflow --events "$STORM"
	echo "# $STORM events injected in $((SECONDS - t0)) s" >&3
	assert_equal "$(field .received)" "$STORM"
	local end=$((SECONDS + 60))
	until [ "$(counted "$BATS_TEST_TMPDIR/json.out")" -ge "$STORM" ] &&
		[ "$(text_counted)" -ge "$STORM" ]; do
		[ $SECONDS -lt $end ] || fail "$(counted "$BATS_TEST_TMPDIR/json.out") (-j), $(text_counted) (text) of $STORM counted after 60 s"
		sleep 0.5
	done
	# nothing more comes: none counted twice
	sleep 2
	bg_stop json 0
	bg_stop watch 0
	assert_equal "$(counted "$BATS_TEST_TMPDIR/json.out")" "$STORM"
	# the key's records: its first event of a second, then its count
	n=$(jq -c "select(.pid == $IPID)" "$BATS_TEST_TMPDIR/json.out" | grep -c .)
	s=$(jq -c "select(.pid == $IPID and .count)" "$BATS_TEST_TMPDIR/json.out" | grep -c .)
	echo "# -j: $n records, $s with a count" >&3
	[ "$s" -ge 1 ] || fail "no record with a count"
	# each read of the counts begins a new interval, whose first event
	# crosses the ring at once: a CQ_ERR without a count before each
	# count but the last (a key's or the watcher's end)
	p=$(jq -c "select(.pid == $IPID and .event == \"CQ_ERR\" and .count == null)" \
		"$BATS_TEST_TMPDIR/json.out" | grep -c .)
	[ "$p" -ge $((s - 1)) ] || fail "$p first events for $s counts: the intervals did not advance"
	# text: every event in a line, alone or counted; a few lines a second
	assert_equal "$(text_counted)" "$STORM"
	run -0 grep -E "CQ_ERR .*pid $IPID ibv_eventinject\)$" "$WOUT"
	printf '# %s\n' "${lines[@]:0:6}" >&3
	echo "# text: ${#lines[@]} lines" >&3
	first=$(date -d "$(cut -c1-29 <<<"${lines[0]}")" +%s)
	last=$(date -d "$(cut -c1-29 <<<"${lines[-1]}")" +%s)
	[ "${#lines[@]}" -le $((2 * (last - first + 2))) ] ||
		fail "${#lines[@]} lines in $((last - first + 1)) s"
	# the journal: an entry a line, their counts the storm's, none of
	# them suppressed by journald's rate limit (its own log says when)
	local jj=$BATS_TEST_TMPDIR/journal.json
	not_output "$jj"
	in_ns journalctl --sync
	in_ns journalctl -a -o json --no-pager SYSLOG_IDENTIFIER=ibv_eventwatch >"$jj"
	assert_equal "$(jq -c "select(.RDMA_EVENT == \"CQ_ERR\" and .RDMA_PID == \"$IPID\")" "$jj" | grep -c .)" \
		"${#lines[@]}"
	# shellcheck disable=SC2016 # jq's variable
	run -0 jq -s --arg pid "$IPID" '(map(select(.RDMA_EVENT == "CQ_ERR" and .RDMA_PID == $pid) |
		.RDMA_COUNT // "1" | tonumber) | add // 0) +
		(map(select(.RDMA_EVENT == "EVENTS_LOST") | .RDMA_LOST // "0" | tonumber) | add // 0)' "$jj"
	assert_output "$STORM"
	run -0 in_ns journalctl -a --no-pager -o cat _PID="$JPID"
	refute_output --partial Suppressed
}

@test "a watcher ended before it read a storm still writes every event: the ring's, then the kernel's counts" {
	start_watch -A -j
	# stopped, it reads nothing: the key's first event waits in the ring,
	# the others in the programs' map, and no drain is planned
	kill -STOP "$WPID"
	inject cq-overflow --events 20000
	assert_equal "$(field .received)" 20000
	local sent
	sent=$(bss sent)
	[ "$sent" -ge 1 ] || fail "the programs sent nothing through the ring"
	# the end comes first when it resumes: only its finish() reads them
	kill -TERM "$WPID"
	bg_stop watch 0 CONT
	assert_equal "$(counted "$WOUT")" 20000
	assert_equal "$(jq -c "select(.pid == $IPID and (.count | not))" "$WOUT" | grep -c .)" "$sent"
}

@test "--pid of another process: the ring carries none of its events" {
	start_watch -A -j --pid $$
	inject cq-overflow --events 1000
	# the programs' own counters: all filtered, none sent
	local end=$((SECONDS + 30))
	until [ "$(bss filtered)" -ge 1000 ]; do
		[ $SECONDS -lt $end ] || fail "$(bss filtered) filtered after 30 s"
		sleep 0.2
	done
	assert_equal "$(bss filtered)" 1000
	assert_equal "$(bss sent)" 0
	bg_stop watch 0
	run -0 jq -c "select(.pid == $IPID)" "$WOUT"
	assert_output ""
}

@test "--comm of the owner among 100 names: its events pass, counted by the ring" {
	# more names than the programs' maps held by default (64)
	# shellcheck disable=SC2046 # one word per option and name
	start_watch -A -j --storm 0 $(printf -- '--comm x%d ' $(seq 99)) --comm ibv_eventinject
	inject cq-overflow --events 100
	wait_records 100
	assert_equal "$(bss filtered)" 0
	[ "$(bss sent)" -ge 100 ]
}

@test "text: the owner and the QP at a glance" {
	start_watch -A
	inject sq-drained
	wait_for "$WOUT" SQ_DRAINED 30
	run -0 grep SQ_DRAINED "$WOUT"
	assert_output --regexp "rxe0/1 +SQ_DRAINED +info +.* \(qp 0x[0-9a-f]{6} RC, handle [0-9]+, pid $IPID ibv_eventinject\)$"
}

@test "ibv_eventtop -A: the injector's row in the process table" {
	T=$BATS_TEST_TMPDIR/top.jsonl
	bg_start top 0 ibv_eventtop -A -b -j -s 0.5 >"$T"
	wait_for "$T" '"rows"' 60
	inject srq-limit --rearm 2
	local end=$((SECONDS + 30))
	# a refresh written in part is not read yet: jq fails and we wait
	until jq -e "select(.processes) | .processes[] |
		select(.pid == $IPID and .comm == \"ibv_eventinject\" and
		.device == \"rxe0\" and .counts.srq == 3 and .total == 3 and
		.last_event == \"SRQ_LIMIT_REACHED\")" "$T" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] || fail "no row of pid $IPID after 30 s: $(tail -n 1 "$T")"
		sleep 0.2
	done
	bg_stop top 0
}

@test "kprobes instead of fentry: the same records" {
	IBVEVENT_BPF_ATTACH=kprobe start_watch -A -j
	[[ $(cat "$WERR") == *"kernel hooks, kprobe)"* ]]
	# the kernel's word: kprobe programs alone are linked
	assert_equal "$(hooks)" "$(want_hooks kp)"
	inject sq-drained
	wait_records 1
	settled
	run -0 kernel '[.event, .qp_num, .qp_type, .handle] | join(" ")'
	assert_output "SQ_DRAINED $(field .qp_num) RC $(field .handle)"
	bg_stop watch 0
	assert_equal "$(hooks)" ""
}

@test "two injectors at once in two jobs' cgroups: each event to its own" {
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
	start_watch -A -j --storm 0
	a=system.slice/slurmstepd.scope/job_101/step_0/user/task_0
	b=system.slice/slurmstepd.scope/job_202/step_0/user/task_0
	bg_start ia 0 in_cgroup "$a" ibv_eventinject -j srq-limit --rearm 9 \
		>"$BATS_TEST_TMPDIR/a.json"
	A=$BG_LAST
	bg_start ib 0 in_cgroup "$b" ibv_eventinject -j srq-limit --rearm 9 \
		>"$BATS_TEST_TMPDIR/b.json"
	B=$BG_LAST
	bg_wait ia 0 120
	bg_wait ib 0 120
	IPID=$A wait_records 10
	IPID=$B wait_records 10
	settled
	assert_equal "$(IPID=$A kernel .cgroup | sort -u)" "/$a"
	assert_equal "$(IPID=$B kernel .cgroup | sort -u)" "/$b"
	assert_equal "$(IPID=$A kernel .handle | sort -u)" "$(jq .handle "$BATS_TEST_TMPDIR/a.json")"
	assert_equal "$(others . | grep -c .)" 20
	# text names the job
	run ibv_eventwatch -r "$WOUT" --pid "$B"
	assert_success
	assert_line --partial "pid $B ibv_eventinject [slurm job 202])"
	refute_output --partial "job 101"
}

@test "cgroup2 mounted after the watcher started, at a path with a space (\040 in mountinfo): records name the cgroup" {
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
	# the watcher in a mount namespace without the hierarchy; mounted
	# there later at that path alone, with the options it has here, since
	# a cgroup2 mount in the root cgroup namespace sets them for the whole
	# of it
	local root="$BATS_TEST_TMPDIR/cg root" esc='\040' opts
	opts=$(findmnt -no FS-OPTIONS /sys/fs/cgroup) || fail "findmnt /sys/fs/cgroup failed"
	mkdir "$root"
	WOUT=$BATS_TEST_TMPDIR/watch.out
	# shellcheck disable=SC2016 # expanded by that shell
	bg_start watch 0 unshare -m --propagation private -- sh -c '
		umount /sys/fs/cgroup && exec "$@"' sh ibv_eventwatch -A -j --storm 0 >"$WOUT"
	WPID=$BG_LAST
	WERR=${BG_ERR[watch]}
	BG_GRACE[watch]=60 # its eBPF links released on a loaded machine
	wait_for "$WERR" '^ibv_eventwatch: watching' 120 "$WPID" ||
		fail "the watcher did not start: $(cat "$WERR")"
	run grep -c ' - cgroup2 ' "/proc/$WPID/mountinfo"
	assert_failure 1
	c=system.slice/slurmstepd.scope/job_303/step_0/user/task_0
	bg_start inject 0 in_cgroup "$c" ibv_eventinject -j srq-limit >"$J"
	IPID=$BG_LAST
	bg_wait inject 0 120
	wait_records 1
	assert_equal "$(kernel 'has("cgroup")')" false
	# -r: the watcher's root (the guest's tests run chrooted)
	nsenter -t "$WPID" -m -r mount -t cgroup2 -o "$opts" none "$root"
	# the kernel's word: the watcher's one cgroup2 mount, its path escaped
	# shellcheck disable=SC2016 # awk's field, not the shell's
	run -0 awk '/ - cgroup2 / { print $5 }' "/proc/$WPID/mountinfo"
	assert_output "${root// /$esc}"
	bg_start inject 0 in_cgroup "$c" ibv_eventinject -j srq-limit --rearm 2 >"$J"
	IPID=$BG_LAST
	bg_wait inject 0 120
	wait_records 3
	settled
	bg_stop watch 0
	assert_equal "$(kernel .cgroup | sort -u)" "/$c"
	assert_equal "$(kernel .handle | sort -u)" "$(field .handle)"
	# said once, at start
	assert_equal "$(grep -c cgroup2 "$WERR")" 1
	# text names the job
	run ibv_eventwatch -r "$WOUT" --pid "$IPID"
	assert_success
	assert_line --partial "pid $IPID ibv_eventinject [slurm job 303])"
}

@test "a storm larger than the ring buffer: EVENTS_LOST, and read + lost = sent" {
	start_watch -A -j --storm 0
	# the watcher cannot read while it is stopped: the ring fills
	kill -STOP "$WPID"
	inject cq-overflow --events 32000
	kill -CONT "$WPID"
	local end=$((SECONDS + 60)) read lost
	while :; do
		read=$(kernel 'select(.event == "CQ_ERR")' | grep -c .)
		lost=$(jq -s 'map(select(.event == "EVENTS_LOST") | .lost) | add // 0' "$WOUT")
		[ $((read + lost)) -lt 32000 ] || break
		[ $SECONDS -lt $end ] || fail "read $read + lost $lost of 32000 after 60 s"
		sleep 0.2
	done
	settled
	read=$(kernel 'select(.event == "CQ_ERR")' | grep -c .)
	lost=$(jq -s 'map(select(.event == "EVENTS_LOST") | .lost) | add // 0' "$WOUT")
	echo "# read $read, lost $lost" >&3
	assert_equal $((read + lost)) 32000
	[ "$lost" -gt 0 ]
	# said with the device, as a warning, at most once a second
	run -0 jq -c 'select(.event == "EVENTS_LOST") | [.device, .severity, .source]' "$WOUT"
	assert_line '["rxe0","warning","kernel"]'
}

@test "a link taken down under a running injector: what follows names it" {
	# the record names a port event up to 5 s before it, and a loaded
	# guest may take longer than that to start the next injector: the
	# window is widened, so that order decides, not time; a second
	# watcher's window of 1 s, with the injection held 2 s after the
	# link went down, must name nothing
	IBVEVENT_AFTER_WINDOW=1 bg_start narrow 0 ibv_eventwatch -A -j \
		>"$BATS_TEST_TMPDIR/narrow.out"
	wait_for "${BG_ERR[narrow]}" '^ibv_eventwatch: watching' 120
	export IBVEVENT_AFTER_WINDOW=600
	start_watch -A -j
	sent=/sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts
	before=$(cat "$sent")
	# the link going down ends the storm, one way or the other: its
	# events stop coming (1), its next round cannot connect (3), or
	# the SIGTERM below interrupts it (1)
	bg_start storm '1|3' ibv_eventinject -j -t 2 cq-overflow --events 100000000 \
		>"$BATS_TEST_TMPDIR/storm.json"
	S=$BG_LAST
	end=$((SECONDS + 30))
	until [ $(($(cat "$sent") - before)) -ge 1000 ]; do
		[ $SECONDS -lt $end ] || fail "no traffic from the injector after 30 s"
		sleep 0.05
	done
	t0=$(date +%s%N)
	ip link set dummy0 down
	wait_port_state DOWN
	# the storm is over before the link comes back, so that the next
	# injector does not share the guest's CPUs with it
	bg_stop storm '1|3'
	case $BG_STATUS in
	1) grep -Eq 'did not come within 2 s|interrupted after' "${BG_ERR[storm]}" ;;
	3) grep -q 'ibv_modify_qp(RTR): Network is unreachable' "${BG_ERR[storm]}" ;;
	esac || fail "storm: status $BG_STATUS, $(cat "${BG_ERR[storm]}")"
	ip link set dummy0 up
	wait_port_state ACTIVE
	# at least 2 s after the link went down (a loaded guest only adds)
	while [ $(($(date +%s%N) - t0)) -lt 2000000000 ]; do sleep 0.1; done
	inject srq-limit
	wait_records 1
	t1=$(date +%s%N)
	wait_for "$WOUT" PORT_ERR 30
	run -0 kernel '[.event, .after, .after_port] | join(" ")'
	assert_output "SRQ_LIMIT_REACHED PORT_ERR 1"
	WOUT=$BATS_TEST_TMPDIR/narrow.out wait_records 1
	run -0 jq -rc "select(.source == \"kernel\" and .pid == $IPID) | [.event, .after // \"-\"] | join(\" \")" \
		"$BATS_TEST_TMPDIR/narrow.out"
	assert_output "SRQ_LIMIT_REACHED -"
	bg_stop narrow 0
	# after the link went down, before the test saw the record
	us=$(kernel .after_us)
	[ "$us" -gt 0 ] && [ "$us" -le $(((t1 - t0) / 1000)) ] ||
		fail "after_us $us, the test measured $(((t1 - t0) / 1000)) us"
	# the port was ACTIVE again (in sysfs) before the injector started:
	# the record says it had recovered, and when
	up=$(kernel .recovered_us)
	[ "$up" -gt 0 ] && [ "$up" -lt "$us" ] || fail "recovered_us '$up', after_us $us"
	# the storm's events before the link went down name nothing
	[ "$(IPID=$S kernel 'select(.after == null)' | grep -c .)" -gt 0 ]
	run -0 ibv_eventwatch -r "$WOUT" -e SRQ_LIMIT_REACHED
	assert_output --regexp "[0-9.]+ ms after PORT_ERR rxe0/1, the port had recovered [0-9.]+ ms after it\)$"
}

BOOT=/run/ibvevent-modules/boot

@test "RDMA modules loaded later: it waits for them, then hooks" {
	rdma link delete rxe0
	rmmod rdma_rxe ib_uverbs
	start_watch -A -j
	assert_equal "$(grep -c 'waiting for kernel module ib_uverbs: hooked when RDMA devices appear' "$WERR")" 1
	[[ $(cat "$WERR") == *"(every process: waiting for the RDMA modules)" ]]
	# one ended while it waits has no ring to read: it ends cleanly
	bg_start waiter 0 ibv_eventwatch -A -j >/dev/null
	wait_for "${BG_ERR[waiter]}" 'waiting for the RDMA modules'
	bg_stop waiter 0
	insmod "$BOOT/ib_uverbs.ko"
	insmod "$BOOT/rdma_rxe.ko"
	rdma link add rxe0 type rxe netdev dummy0
	wait_port_state ACTIVE
	# hooked as the device is announced, before its record is written
	wait_for "$WOUT" DEVICE_ADDED
	inject srq-limit
	wait_records 1
	run -0 kernel '[.event, .handle] | join(" ")'
	assert_output "SRQ_LIMIT_REACHED $(field .handle)"
	# and while hooked, the module stays
	run rmmod ib_uverbs
	assert_failure
}

# nvme_target: NVMe over RDMA on rxe0, target (nvmet-rdma on an SRQ) and
# host (nvme-rdma) in this guest, from the modules test/vm/run ships.
NVMET=/sys/kernel/config/nvmet
nvme_target() {
	local m
	while read -r m; do
		case $m in
		nvmet-rdma.ko) set -- use_srq=1 ;;
		null_blk.ko) set -- nr_devices=1 ;;
		*) set -- ;;
		esac
		[ -e "/sys/module/$(basename "${m%.ko}" | tr - _)" ] ||
			insmod "/run/ibvevent-modules/$m" "$@" || return 1
	done </run/ibvevent-modules/order
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	ip addr add 10.77.0.1/24 dev dummy0
	mkdir "$NVMET/subsystems/ibve" "$NVMET/subsystems/ibve/namespaces/1" "$NVMET/ports/1"
	echo 1 >"$NVMET/subsystems/ibve/attr_allow_any_host"
	echo /dev/nullb0 >"$NVMET/subsystems/ibve/namespaces/1/device_path"
	echo 1 >"$NVMET/subsystems/ibve/namespaces/1/enable"
	echo rdma >"$NVMET/ports/1/addr_trtype"
	echo ipv4 >"$NVMET/ports/1/addr_adrfam"
	echo 10.77.0.1 >"$NVMET/ports/1/addr_traddr"
	echo 4420 >"$NVMET/ports/1/addr_trsvcid"
	ln -s "$NVMET/subsystems/ibve" "$NVMET/ports/1/subsystems/ibve"
}

nvme_untarget() {
	rm -f "$NVMET/ports/1/subsystems/ibve"
	rmdir "$NVMET/ports/1" "$NVMET/subsystems/ibve/namespaces/1" \
		"$NVMET/subsystems/ibve" 2>/dev/null || true
	rmmod nvme_rdma nvmet_rdma 2>/dev/null || true
}

@test "a kernel consumer (NVMe over RDMA): its QPs' events name the module" {
	nvme_target || fail "cannot set up the NVMe over RDMA target"
	start_watch -A -j
	echo "transport=rdma,traddr=10.77.0.1,trsvcid=4420,nqn=ibve" >/dev/nvme-fabrics
	ctrl=$(basename "$(ls -d /sys/class/nvme/nvme*)")
	# the kernel's own QPs, made through the RDMA CM, from restrack
	qps=$(rdma resource show qp | awk '/comm \[rdma_cm\]/ { print $4 }' | sort)
	# the admin queue and an I/O queue a CPU, each a QP on either side
	[ "$(wc -l <<<"$qps")" -ge $((2 * (1 + $(nproc)))) ] || fail "QPs: $qps"
	# a disconnect: the target's QPs on its SRQ go to error
	echo 1 >"/sys/class/nvme/$ctrl/delete_controller"
	if ! kernel_at_least 6.11; then
		# before 6.11 the driver calls the consumer's own handler
		# directly: no hook sees kernel QPs, and nothing is made up
		settled
		nvme_untarget
		assert_equal "$(others .)" ""
		return
	fi
	wait_for "$WOUT" QP_LAST_WQE_REACHED 30
	settled
	nvme_untarget
	run -0 others '"\(.event) \(.kernel) \(.pid) \(.qp_type)"'
	assert_output --regexp '^(QP_LAST_WQE_REACHED nvmet_rdma null RC
?)+$'
	# each queue (admin and I/O) has a QP on either side: the target's
	# half, each one of the kernel's QPs
	got=$(others .qp_num | sort -u)
	assert_equal "$(wc -l <<<"$got")" $(($(wc -l <<<"$qps") / 2))
	assert_equal "$(comm -23 <(echo "$got") <(echo "$qps"))" ""
	run -0 ibv_eventwatch -r "$WOUT" -e kernel
	assert_line --partial "RC, kernel nvmet_rdma)"
}

@test "privilege: a user without it gets status 3 and what is needed" {
	chmod 666 /dev/infiniband/uverbs0
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		ibv_eventwatch -A -t 1
	assert_failure 3
	[ "$stderr" = "ibv_eventwatch: --all-processes: loading eBPF programs needs root, or CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (the RDMA modules' BTF): Operation not permitted" ]
	# CAP_BPF and CAP_PERFMON alone are not enough: said the same way
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon \
		ibv_eventwatch -A -t 1
	assert_failure 3
	# the verbs source alone needs none of it
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		ibv_eventwatch -t 1
	assert_success
	[ "$stderr" = "ibv_eventwatch: watching 1 device: rxe0 (hot-plug: $(expected_hotplug))" ]
}

@test "privilege: the three capabilities of the documented drop-in suffice" {
	chmod 666 /dev/infiniband/uverbs0
	caps=$(sed -n 's/^AmbientCapabilities=//p' "$BATS_TEST_DIRNAME/../../systemd/all-processes.conf.in")
	assert_equal "$caps" "CAP_BPF CAP_PERFMON CAP_SYS_ADMIN"
	set=$(echo "$caps" | tr '[:upper:]' '[:lower:]' | sed -e 's/cap_/+/g' -e 's/ /,/g')
	# the kernel's word too: its hooks are linked while it runs
	bg_start capped 0 setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps="$set" --ambient-caps="$set" ibv_eventwatch -A >/dev/null
	wait_for "${BG_ERR[capped]}" '^ibv_eventwatch: watching' 60
	[[ $(cat "${BG_ERR[capped]}") == *"(every process: 4 kernel hooks, fentry)" ]]
	assert_equal "$(hooks)" "$(want_hooks fe)"
	bg_stop capped 0
	assert_equal "$(hooks)" ""
}

@test "the hooks are released when the watcher ends" {
	start_watch -A
	assert_equal "$(hooks)" "$(want_hooks fe)"
	bg_stop watch 0
	run -0 bpftool -j link list
	[ "$(jq 'length' <<<"$output")" = 0 ]
	run -0 bpftool -j prog list
	refute_output --partial '"name":"fe_cq"'
}
