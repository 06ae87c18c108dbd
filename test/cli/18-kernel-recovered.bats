#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# An -A record that names the PORT_ERR before it also says whether the
# port had come back before it (recovered_us): written, read back, shown,
# and held to the schema. The live case (a link down and up, then an
# event) is in test/rxe/40-allprocesses.bats.

load ../test_helper

setup() {
	ibve_setup
	export TZ=UTC
	CAP=$BATS_TEST_TMPDIR/cap.jsonl
	not_output "$CAP"
	{
		echo '{"time":"2026-05-01T10:00:00Z","device":"rxe0","port":1,"event":"PORT_ERR"}'
		echo '{"time":"2026-05-01T10:00:01Z","device":"rxe0","port":null,"event":"SRQ_LIMIT_REACHED","source":"kernel","pid":217,"comm":"ibv_eventinject","after":"PORT_ERR","after_port":1,"after_us":795000,"recovered_us":300000}'
		echo '{"time":"2026-05-01T10:00:02Z","device":"rxe0","port":null,"event":"SRQ_LIMIT_REACHED","source":"kernel","pid":217,"comm":"ibv_eventinject","after":"PORT_ERR","after_port":1,"after_us":4200}'
	} >"$CAP"
}

@test "recovered_us: the text says the port had recovered, and when; not without it" {
	run --separate-stderr ibv_eventwatch -r "$CAP" -e SRQ_LIMIT_REACHED
	assert_success
	assert_line --index 0 --partial '(pid 217 ibv_eventinject, 795 ms after PORT_ERR rxe0/1, the port had recovered 300 ms after it)'
	assert_line --index 1 --partial '(pid 217 ibv_eventinject, 4.2 ms after PORT_ERR rxe0/1)'
	refute_line --index 1 --partial recovered
}

@test "recovered_us round-trips through -j and -w, and is valid under the schema" {
	run --separate-stderr ibv_eventwatch -r "$CAP" -j
	assert_success
	json=$output
	assert_equal "$(jq -c 'select(.source == "kernel") | [.after_us, .recovered_us]' <<<"$json")" \
		$'[795000,300000]\n[4200,null]'
	ibv_eventwatch -r "$CAP" -w "$BATS_TEST_TMPDIR/again.jsonl" >/dev/null
	assert_equal "$(ibv_eventwatch -r "$BATS_TEST_TMPDIR/again.jsonl" -j)" "$json"
	run "$TOP/test/schema-check" --kind event - <<<"$json"
	assert_success
	# only with the port of a PORT_ERR, and within the widest window (a day)
	run "$TOP/test/schema-check" --kind event - <<<"$(sed -n 2p <<<"$json" | jq -c 'del(.after_port)')"
	assert_failure 1
	run "$TOP/test/schema-check" --kind event - <<<"$(sed -n 2p <<<"$json" | jq -c '.recovered_us = 86400000000')"
	assert_success
	run "$TOP/test/schema-check" --kind event - <<<"$(sed -n 2p <<<"$json" | jq -c '.recovered_us = 86400000001')"
	assert_failure 1
}
