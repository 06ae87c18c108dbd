#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The link autopsy on the real kernel stack: rxe0's netdev set down by
# `ip link set` is administrative; the far end of a veth, in another
# network namespace, set down takes the carrier of our end (its rxe port
# down with it) and is the link partner's; `rdma link delete` removes the
# device: administrative. Each verdict is checked against what the test
# did, and rxe's hw_counters that moved (link_downed) are named in the
# evidence; with -A, the process that set the netdev down or removed the
# device (its pid, as the test saw it, and its job) is named too. The netdev and counters sources (issue #42) give the evidence
# of the first two: without them in the build, those skip and say so.

load ../test_helper

NS=ibve-autopsy

setup() {
	ibve_setup
	require_guest
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	rdma link delete rxev 2>/dev/null || true
	local cg=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_303/step_0/user/task_0
	while [[ $cg == */job_303* ]]; do
		rmdir "$cg" 2>/dev/null || true
		cg=${cg%/*}
	done
	ip link del auto0 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	restore_rxe || rc=1
	return $rc
}

# needs EVENT: skip unless the build has EVENT's source.
needs() {
	ibv_eventwatch --list-events | grep -q "^$1 " ||
		skip "no $1 in this build: its source (issue #42's netdev or counters) is not merged"
}

# verdict DEV: the PORT_DOWN_CAUSE of DEV/1 in the watcher's output, once
# there (the second after the down, then the timer).
verdict() {
	wait_for "$WOUT" "\"device\":\"$1\",\"port\":1,\"event\":\"PORT_DOWN_CAUSE\"" 30 "$WPID" ||
		return 1
	jq -c "select(.event == \"PORT_DOWN_CAUSE\" and .device == \"$1\")" "$WOUT"
}

# by CMD...: CMD run as the process whose pid BY is, in place of a
# subshell (CMD's pid is the subshell's), in cgroup CG when set.
by() {
	local f=$BATS_TEST_TMPDIR/by.pid
	# shellcheck disable=SC2016 # the inner shell's
	(
		set -- sh -c 'echo $$ >"$0" && exec "$@"' "$f" "$@"
		if [ -n "${CG:-}" ]; then in_cgroup "$CG" "$@"; else exec "$@"; fi
	) || return 1
	BY=$(cat "$f")
}

@test "ip link set down on rxe0's netdev: administrative, with the netdev and who set it down named; back: PORT_BACK" {
	needs NETDEV_DOWN
	needs COUNTERS_MOVED
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
	start_watch -j --autopsy -A -d rxe0
	job=system.slice/slurmstepd.scope/job_303/step_0/user/task_0
	CG=$job by ip link set dummy0 down
	wait_port_state DOWN
	run -0 verdict rxe0
	assert_equal "${#lines[@]}" 1
	v=${lines[0]}
	assert_equal "$(jq -r .cause <<<"$v")" administrative
	assert_equal "$(jq -r .severity <<<"$v")" warning
	jq -e '.evidence | index("netdev dummy0 set down (IFF_UP cleared)")' <<<"$v" >/dev/null ||
		fail "the evidence does not name dummy0: $v"
	# who: the process the test ran, in the job's cgroup it put it in
	run -0 jq -c 'select(.event == "NETDEV_SET_DOWN")' "$WOUT"
	assert_equal "${#lines[@]}" 1
	jq -e --argjson pid "$BY" --arg cg "/$job" \
		'.device == "rxe0" and .port == 1 and .netdev == "dummy0" and .pid == $pid and .comm == "ip" and .cgroup == $cg' \
		<<<"${lines[0]}" >/dev/null || fail "not the set-down the test did (pid $BY): ${lines[0]}"
	jq -e --arg e "netdev dummy0 set down by ip (pid $BY, slurm job 303)" '.evidence | index($e)' \
		<<<"$v" >/dev/null || fail "the evidence does not name pid $BY and job 303: $v"
	# the verdict came after the down's records, within 2 s of the first
	down=$(jq -r 'select(.event == "NETDEV_DOWN" or .event == "PORT_ERR") | .time' "$WOUT" | sort | head -n 1)
	[ -n "$down" ] || fail "no NETDEV_DOWN or PORT_ERR: $(cat "$WOUT")"
	secs=$(jq -rn --arg a "$down" --arg b "$(jq -r .time <<<"$v")" \
		'($b | sub("\\.[0-9]+Z$"; "Z") | fromdate) - ($a | sub("\\.[0-9]+Z$"; "Z") | fromdate)')
	[ "$secs" -le 2 ] || fail "the verdict is timed $secs s after the down"
	ip link set dummy0 up
	wait_port_state ACTIVE
	wait_for "$WOUT" '"event":"PORT_BACK"' 30 "$WPID"
	bg_stop watch 0
	run -0 jq -c 'select(.event == "PORT_BACK")' "$WOUT"
	assert_equal "${#lines[@]}" 1
	jq -e '.down_us > 0 and .rate_before != null and .rate_after != null' <<<"${lines[0]}" >/dev/null ||
		fail "PORT_BACK lacks its time down or rates: ${lines[0]}"
	# rxe counts the down in hw_counters/link_downed: before the verdict
	# or while down, whichever sample saw it first
	run -0 jq -r 'select(.source == "autopsy") | .evidence[]' "$WOUT"
	assert_line --regexp '^hw_counters/link_downed \+[0-9]+ (before|while down)$'
	assert_equal "$(cat "$WERR")" "$(head -n 1 "$WERR")"
}

@test "the far end of a veth set down in another namespace, named as ours: link_partner, and no one of ours set it down" {
	needs CARRIER_LOST
	needs COUNTERS_MOVED
	ip netns add "$NS"
	ip link add auto0 type veth peer name auto1
	# the far end has our end's name, in its namespace: with -A, who set
	# it down is no one's of ours
	ip link set auto1 netns "$NS"
	ip -n "$NS" link set auto1 name auto0
	ip -n "$NS" link set auto0 up
	ip link set auto0 up
	rdma link add rxev type rxe netdev auto0
	wait_port_state ACTIVE rxev
	start_watch -j --autopsy -A -d rxev
	ip -n "$NS" link set auto0 down
	wait_port_state DOWN rxev
	run -0 verdict rxev
	assert_equal "${#lines[@]}" 1
	v=${lines[0]}
	# our end kept IFF_UP: the carrier went, not the interface
	[ "$(cat /sys/class/net/auto0/flags)" != "" ] &&
		(($(cat /sys/class/net/auto0/flags) & 1)) ||
		fail "auto0 is not up"
	assert_equal "$(cat /sys/class/net/auto0/carrier)" 0
	assert_equal "$(jq -r .cause <<<"$v")" link_partner
	assert_equal "$(jq -r .severity <<<"$v")" error
	jq -e '(.evidence | index("netdev auto0 carrier lost, netdev up")) and
		(.evidence | index("no local error counter moved")) and
		(.action | startswith("look at the far end"))' <<<"$v" >/dev/null ||
		fail "the evidence or action is not the link partner's: $v"
	bg_stop watch 0
	run -1 grep -F '"NETDEV_SET_DOWN"' "$WOUT"
}

@test "rdma link delete: administrative, the device removed, and by whom" {
	start_watch -j --autopsy -A -d rxe0
	by rdma link delete rxe0
	run -0 verdict rxe0
	assert_equal "${#lines[@]}" 1
	v=${lines[0]}
	assert_equal "$(jq -r .cause <<<"$v")" administrative
	jq -e '.evidence | index("device rxe0 removed (rdma link delete, driver unbind)")' <<<"$v" >/dev/null ||
		fail "the evidence does not say the device went: $v"
	run -0 jq -c 'select(.event == "DEVICE_UNREGISTER")' "$WOUT"
	assert_equal "${#lines[@]}" 1
	jq -e --argjson pid "$BY" '.device == "rxe0" and .pid == $pid and .comm == "rdma"' \
		<<<"${lines[0]}" >/dev/null || fail "not the removal the test did (pid $BY): ${lines[0]}"
	run -0 jq -r '.evidence[]' <<<"$v"
	assert_line --regexp "^device rxe0 removed by rdma \\(pid $BY(, unit [^)]*)?\\)\$"
	# what the kernel did: the device is gone
	[ ! -e /sys/class/infiniband/rxe0 ] || fail "rxe0 is still there"
	bg_stop watch 0
}

@test "once a down's verdict and PORT_BACK are out, the watcher is idle again: no system call" {
	start_watch -j --autopsy -d rxe0
	ip link set dummy0 down
	wait_port_state DOWN
	ip link set dummy0 up
	wait_port_state ACTIVE
	wait_for "$WOUT" '"event":"PORT_BACK"' 30 "$WPID"
	trace=$BATS_TEST_TMPDIR/strace
	# told to detach (SIGINT), strace ends as that signal would: 130
	bg_start strace 130 strace -f -s 256 -p "$WPID" -o "$trace"
	wait_for "${BG_ERR[strace]}" "Process $WPID attached"
	# 3 s: the autopsy's windows are closed, the counters' next sample a
	# minute after the down's
	sleep 3
	cp "$trace" "$trace.idle"
	bg_stop strace 130 INT
	bg_stop watch 0
	run -1 grep -v -e 'restart_syscall' -e '^[0-9]* *+++' -e '^[0-9]* *---' "$trace.idle"
	assert_output ''
	# the down had its verdict, timed a second after the PORT_ERR
	run -0 jq -r 'select(.event == "PORT_ERR" or .event == "PORT_DOWN_CAUSE") | .event' "$WOUT"
	assert_equal "$(head -n 2 <<<"$output" | tr '\n' ' ')" "PORT_ERR PORT_DOWN_CAUSE "
}
