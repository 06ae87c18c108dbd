#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# ibv_eventinject on the host: scenarios, usage errors, and the real
# libibverbs with no device. The scenarios themselves run in the guest
# (test/rxe/20-eventinject.bats).

load ../test_helper

@test "list names every scenario and the event it expects, text and JSON" {
	run ibv_eventinject list
	assert_success
	assert_line --regexp '^srq-limit +SRQ_LIMIT_REACHED +'
	assert_line --regexp '^cq-overflow +CQ_ERR +'
	assert_line --regexp '^sq-drained +SQ_DRAINED +'
	assert_line --regexp '^last-wqe +QP_LAST_WQE_REACHED +'
	assert_equal "${#lines[@]}" 4
	ibv_eventinject -j list >"$BATS_TEST_TMPDIR/list"
	run -0 jq -r '"\(.scenario) \(.event)"' "$BATS_TEST_TMPDIR/list"
	assert_output $'srq-limit SRQ_LIMIT_REACHED\ncq-overflow CQ_ERR\nsq-drained SQ_DRAINED\nlast-wqe QP_LAST_WQE_REACHED'
}

@test "--help lists the scenarios; -V the version" {
	run ibv_eventinject --help
	assert_success
	assert_line '  srq-limit    expects SRQ_LIMIT_REACHED'
	run -0 ibv_eventinject -V
	assert_output --regexp '^ibv_eventinject [0-9.]+ \(libibvevent [0-9.]+\)$'
}

@test "usage errors exit 2 with one clear line" {
	run --separate-stderr ibv_eventinject
	assert_failure 2
	[ "${stderr_lines[0]}" = "ibv_eventinject: no scenario given (ibv_eventinject list shows them)" ]
	run --separate-stderr ibv_eventinject srq-overflow
	assert_failure 2
	[ "${stderr_lines[0]}" = "ibv_eventinject: unknown scenario 'srq-overflow' (ibv_eventinject list shows them)" ]
	run --separate-stderr ibv_eventinject -t 0 srq-limit
	assert_failure 2
	[ "${stderr_lines[0]}" = "ibv_eventinject: invalid timeout '0': seconds, more than 0" ]
	run --separate-stderr ibv_eventinject --rearm 2 cq-overflow
	assert_failure 2
	[ "${stderr_lines[0]}" = "ibv_eventinject: --rearm applies to srq-limit only" ]
	run --separate-stderr ibv_eventinject --events 0 cq-overflow
	assert_failure 2
	run --separate-stderr ibv_eventinject -i 0 srq-limit
	assert_failure 2
	run --separate-stderr ibv_eventinject srq-limit extra
	assert_failure 2
	run --separate-stderr ibv_eventinject --bogus srq-limit
	assert_failure 2
}

@test "no RDMA device: one line naming the cause, status 3, no report" {
	[ "${IBVEVENT_VM:-}" != 1 ] || skip "the guest has rxe0"
	[ ! -d /sys/class/infiniband_verbs ] || skip "this host has RDMA devices"
	run --separate-stderr ibv_eventinject srq-limit
	assert_failure 3
	[ "$stderr" = "ibv_eventinject: no RDMA devices found: the kernel offers no RDMA to user space (is ib_uverbs loaded?)" ]
	assert_output ''
	run --separate-stderr ibv_eventinject -j srq-limit
	assert_failure 3
	run -0 jq -r '"\(.status) \(.error)"' <<<"$output"
	assert_output '3 no RDMA devices found: the kernel offers no RDMA to user space (is ib_uverbs loaded?)'
}
