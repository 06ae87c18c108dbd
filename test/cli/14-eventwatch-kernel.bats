#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# ibv_eventwatch on a capture recorded with --all-processes in the 6.12
# guest (test/captures/kernel.jsonl): the kernel source's records through
# the same reader, filters, formats and metrics as live ones. The live
# source itself is tested in the guest (test/rxe/40-allprocesses.bats).

load ../test_helper

setup() {
	ibve_setup
	export TZ=UTC
	K=$CAPTURES/kernel.jsonl
}

# jqk FILTER: the capture's kernel records through jq
jqk() {
	jq -r "select(.source == \"kernel\") | $1" "$K"
}

@test "text: each record with its object, owner, job and cause" {
	run ibv_eventwatch -r "$K" --no-color
	assert_success
	diff -u "$EXPECTED/kernel.txt" <(echo "$output")
	# independent of the stored file: one line per record, and for each
	# kernel record its pid and name as the capture has them
	assert_equal "${#lines[@]}" "$(wc -l <"$K")"
	for pid in $(jqk .pid | sort -u); do
		comm=$(jqk "select(.pid == $pid) | .comm" | sort -u)
		[ "$(grep -c "pid $pid $comm" <<<"$output")" = "$(jqk "select(.pid == $pid) | .pid" | wc -l)" ]
	done
	# jobs named from the cgroup: Slurm and Kubernetes
	assert_line --partial "(srq handle 3, pid 209 ibv_eventinject [slurm job 4711])"
	assert_line --partial "(qp 0x000016 RC, handle 5, pid 211 ibv_eventinject [pod 1f2e3d4c-5b6a-4789-8abc-def012345678])"
	# the root cgroup names no job
	assert_line --regexp "\(qp 0x00001b RC, handle 4, pid 219 ibv_eventinject, 951 ms after PORT_ERR rxe0/1\)$"
	# as many causes named as the capture has
	[ "$(grep -c ' ms after PORT_ERR rxe0/1)$' <<<"$output")" = "$(jqk 'select(.after) | .after' | wc -l)" ]
}

@test "JSON: what was recorded reads back and is written the same" {
	run ibv_eventwatch -r "$K" -j
	assert_success
	diff -u "$K" <(echo "$output")
}

@test "filters: by owner, by source, by class, device and port" {
	run ibv_eventwatch -r "$K" -j --pid 217
	assert_success
	assert_equal "${#lines[@]}" "$(jqk 'select(.pid == 217) | .pid' | wc -l)"
	[ "${#lines[@]}" -gt 1 ]
	run -0 ibv_eventwatch -r "$K" -j --comm ibv_eventinject
	assert_equal "${#lines[@]}" "$(jqk .pid | wc -l)"
	refute_output --partial '"source":"verbs"' # no owner: never passes
	run ibv_eventwatch -r "$K" -j --pid 217 --comm nosuch
	assert_success
	assert_output ''
	run -0 ibv_eventwatch -r "$K" -j --pid 209 --pid 210
	assert_equal "$(jq -r .pid <<<"$output" | sort -u | paste -sd' ')" "209 210"
	run -0 ibv_eventwatch -r "$K" -j -e kernel
	assert_equal "${#lines[@]}" "$(jqk .pid | wc -l)"
	run -0 ibv_eventwatch -r "$K" -j -x kernel
	assert_equal "$(jq -r .event <<<"$output" | paste -sd' ')" "PORT_ERR PORT_ACTIVE"
	run -0 ibv_eventwatch -r "$K" -j -e srq
	assert_equal "${#lines[@]}" "$(jq -c 'select(.class == "srq")' "$K" | wc -l)"
	# QP records carry their port: -i 2 keeps only what concerns no port
	run -0 ibv_eventwatch -r "$K" -j -i 2
	assert_equal "$(jq -r .event <<<"$output" | sort -u | paste -sd' ')" "CQ_ERR SRQ_LIMIT_REACHED"
	run -0 ibv_eventwatch -r "$K" -j -d mlx5_0
	assert_output ''
}

@test "owner filters and -A: bad use is status 2, named" {
	run --separate-stderr ibv_eventwatch -r "$K" --comm 0123456789abcdef
	assert_failure 2
	[ "$(head -n 1 <<<"$stderr")" = "ibv_eventwatch: --comm: process name '0123456789abcdef': 1 to 15 bytes, as the kernel keeps it" ]
	run --separate-stderr ibv_eventwatch -r "$K" --pid 0
	assert_failure 2
	[ "$(head -n 1 <<<"$stderr")" = "ibv_eventwatch: invalid pid '0': a process id" ]
	run --separate-stderr ibv_eventwatch -r "$K" --pid 12x
	assert_failure 2
	run --separate-stderr ibv_eventwatch -A -r "$K"
	assert_failure 2
	[ "$(head -n 1 <<<"$stderr")" = "ibv_eventwatch: --all-processes is for watching devices, not with --replay" ]
	run --separate-stderr ibv_eventwatch -A -l
	assert_failure 2
	[ "$(head -n 1 <<<"$stderr")" = "ibv_eventwatch: --all-processes is for watching devices, not with --list" ]
}

@test "metrics of the kernel records: per event and class, no process labels" {
	M=$BATS_TEST_TMPDIR/m.prom
	run ibv_eventwatch -q -r "$K" --metrics-file "$M"
	assert_success
	run grep -E 'pid=|comm=|cgroup=' "$M"
	assert_failure
	for c in qp cq srq; do
		assert_equal "$(sed -n "s/^ibvevent_events_by_class_total{device=\"rxe0\",class=\"$c\"} //p" "$M")" \
			"$(jq -c "select(.class == \"$c\")" "$K" | wc -l)"
	done
	assert_equal "$(grep -c '^ibvevent_events_total{device="rxe0",port="",event="CQ_ERR",severity="error"} 5$' "$M")" 1
}

@test "-V says whether this build has the eBPF source" {
	run ibv_eventwatch -V
	assert_success
	assert_output --regexp '; mlx5 DEVX events: (yes|no), all processes \(eBPF\): (yes|no)\)$'
	if pkg-config --exists libbpf && command -v bpftool >/dev/null; then
		assert_output --partial 'all processes (eBPF): yes'
	fi
}
