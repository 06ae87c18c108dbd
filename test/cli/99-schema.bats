#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The JSON the tools write against the schemas of share/schema/, by
# Debian's validator (test/schema-check): every JSON line the suite's
# programs printed or wrote in this run (test/test_helper.bash kept them),
# the stored expected outputs and captures; and records that break the
# schema are refused, with the reason. Last of test/cli: it validates what
# the files before it collected.

load ../test_helper

CHECK=$TOP/test/schema-check

# A record as ibv_eventwatch -j writes it, to break in one place.
GOOD='{"time":"2026-03-02T08:15:00.000000000Z","device":"mlx5_0","port":1,"event":"PORT_ERR","code":10,"class":"port","severity":"error","affiliated":false,"source":"verbs","node_guid":"b8ce:f603:00a1:0b10"}'

# refused JQ REASON: GOOD changed by the jq program JQ is refused by the
# validator, which names the line and says REASON (a part of its message).
refused() {
	local f=$BATS_TEST_TMPDIR/broken.jsonl
	jq -c "$1" <<<"$GOOD" >"$f"
	not_output "$f"
	run "$CHECK" "$f"
	assert_failure 1
	assert_output --partial "$f:1: event: "
	assert_output --partial "$2"
}

@test "every JSON line the suite's programs printed or wrote in this run is valid" {
	ls "$COLLECT"/*.lines >/dev/null 2>&1 ||
		skip "nothing collected: run with the other files of test/cli"
	run "$CHECK" --tap --collected "$COLLECT"
	grep -E '^(not ok|#)' <<<"$output" | sed 's/^/# /' >&3 || true
	assert_success
	# both ways of collecting worked: what runs printed, the files left
	f=$COLLECT/cli-10-eventwatch-replay.bats.lines
	if [ -e "$f" ]; then
		grep -q '^@ .*: run ibv_eventwatch -j -r ' "$f"
		grep -q '^@ .*: file once.jsonl$' "$f"
	fi
}

@test "the stored expected outputs and recorded captures are valid; every capture replays valid" {
	run "$CHECK" "$EXPECTED"/*.jsonl "$EXPECTED"/top-fabric.json
	assert_success
	# recorded by the tools (test/captures/README.md): valid as they are
	run "$CHECK" --kind event "$CAPTURES/sm.jsonl" "$CAPTURES/kernel.jsonl"
	assert_success
	# written by hand with the reader's required fields only: valid once
	# the watcher writes them (malformed.jsonl's good lines too)
	for c in "$CAPTURES"/*.jsonl; do
		ibv_eventwatch -j -r "$c" 2>/dev/null >"$BATS_TEST_TMPDIR/out.jsonl" || true
		[ -s "$BATS_TEST_TMPDIR/out.jsonl" ] || fail "$c: nothing written"
		run "$CHECK" --kind event "$BATS_TEST_TMPDIR/out.jsonl"
		assert_success
	done
}

@test "a record that breaks the schema is refused with the reason" {
	run "$CHECK" - <<<"$GOOD"
	assert_success
	assert_output ''
	refused '.port = "1"' "'1' is not of type 'integer', 'null' (at /port)"
	refused '.event = "PORT_ERRR"' "'PORT_ERRR' is not valid under any of the given schemas (at /event) [The names of source verbs"
	refused '.event = "UNKNOWN(x)"' "'UNKNOWN(x)' does not match '^([A-Z][A-Z0-9_]*|UNKNOWN"
	refused 'del(.device)' "'device' is a required property (at /)"
	refused '.time = "2026-03-02T08:15:00Z"' "does not match"
	refused '.code = 11' "10 was expected (at /code) [verbs/kernel PORT_ERR (10).]"
	refused '.severity = "info"' "'error' was expected (at /severity)"
	refused '.extra = 1' "Additional properties are not allowed ('extra' was unexpected)"
	refused '.down_us = 5' "is not valid under any of the given schemas (at /) [down_us: PORT_ACTIVE of source verbs and PORT_BACK of source autopsy only.]"
	# a storm's summary: its count with its interval, its end with its count
	refused '.count = 5' "'interval_us' is a dependency of 'count' (at /) [A storm's summary"
	refused '.storm_total = 5' "'count' is a dependency of 'storm_total' (at /)"
	run "$CHECK" - <<<"$(jq -c '.count = 0 | .interval_us = 1000000 | .storm_total = 12 | .storm_us = 3000000' <<<"$GOOD")"
	assert_success
	# UNKNOWN(n) only for a code without a row: 10 is PORT_ERR's
	refused '.event = "UNKNOWN(10)" | .class = "unknown" | .severity = "warning"' \
		"'UNKNOWN(10)' is not valid under any of the given schemas (at /event) [The names of source verbs"
	refused '.source = "mlx5"' "(at /event) [The names of source mlx5"
	refused '.node_guid = "0000:0000:0000:0000"' "is not valid under any of the given schemas (at /node_guid)"
	# a RoCE port's event names its netdev, with its index; no other
	# verbs event does
	run "$CHECK" - <<<"$(jq -c '.netdev = "enp65s0f0" | .netdev_index = 4' <<<"$GOOD")"
	assert_success
	refused '.netdev = "enp65s0f0"' "'netdev_index' is a dependency of 'netdev'"
	refused '.event = "SRQ_LIMIT_REACHED" | .code = 11 | .class = "srq" | .severity = "warning" | .affiliated = true | .port = null | .netdev = "enp65s0f0" | .netdev_index = 4' \
		"[netdev and netdev_index: NETDEV_ATTACH and NETDEV_DETACH of source hotplug, the port events of source verbs"
}

@test "a JSON line no schema claims fails, and so does one that is not JSON" {
	printf '%s\n' '{"tool":"other"}' '[1,2]' '{"time":' "${GOOD%\}},\"port\":2}" \
		"${GOOD%\}},\"lost\":NaN}" >"$BATS_TEST_TMPDIR/odd.jsonl"
	not_output "$BATS_TEST_TMPDIR/odd.jsonl"
	run "$CHECK" "$BATS_TEST_TMPDIR/odd.jsonl"
	assert_failure 1
	assert_line --partial ':1: ?: no schema claims this line (keys: tool)'
	assert_line --partial ':2: ?: not a JSON object'
	assert_line --partial ':3: ?: not JSON: '
	assert_line --partial ":4: ?: not JSON: the key 'port' twice in an object"
	assert_line --partial ':5: ?: not JSON: NaN is not JSON'
}

@test "the reports of the other tools refuse what their writers never write" {
	top=$(ibv_eventtop -b -j -r "$CAPTURES/ib-fabric.jsonl")
	run "$CHECK" - <<<"$top"
	assert_success
	run "$CHECK" - <<<"$(jq -c '.rows[0].counts.fatal = -1' <<<"$top")"
	assert_failure 1
	assert_output --partial 'top-report: -1 is less than the minimum of 0 (at /rows/0/counts/fatal)'
	run "$CHECK" - <<<"$(jq -c '.rows[0].total = 0' <<<"$top")"
	assert_failure 1
	assert_output --partial "is not of type 'null' (at /rows/0/last_event)"
	run "$CHECK" - <<<'{"healthy":true,"reason":"rxe0/1 DOWN","ports":1,"problems":[]}'
	assert_failure 1
	assert_output --partial "check-report: 'rxe0/1 DOWN' is not of type 'null' (at /reason)"
	list=$(ibv_eventinject -j list | head -n 1)
	run "$CHECK" - <<<"$(jq -c '.event = "CQ_ERR"' <<<"$list")"
	assert_failure 1
	assert_output --partial "inject-scenarios: 'SRQ_LIMIT_REACHED' was expected (at /event)"
}

@test "each schema: draft 2020-12, a stable \$id, a description for every property" {
	for f in "$TOP"/share/schema/*.schema.json; do
		name=${f##*/}
		name=${name%.schema.json}
		[ "$(jq -r '."$schema"' "$f")" = https://json-schema.org/draft/2020-12/schema ] ||
			fail "$f: not draft 2020-12"
		[ "$(jq -r '."$id"' "$f")" = "urn:ibvevent:schema:$name:1" ] || fail "$f: \$id"
		[ "$(jq -r '."$comment"' "$f")" = "SPDX-License-Identifier: MIT" ] || fail "$f: SPDX"
		# the properties of each object the output has (not those of the
		# rules that only constrain them)
		# shellcheck disable=SC2016 # jq's variables
		run -0 jq -r '[paths(objects) | select(.[-1] == "properties" and
			(map(tostring) | any(. == "allOf" or . == "anyOf" or . == "oneOf" or
				. == "not" or . == "if" or . == "then" or . == "else") | not))] as $ps |
			$ps[] as $p | getpath($p) | to_entries[] |
			select(.value.description == null) | "\($p | map(tostring) | join("/"))/\(.key)"' "$f"
		assert_output ''
	done
	# one per kind of output the validator claims lines for
	run -0 ls "$TOP"/share/schema
	assert_output "$(printf '%s.schema.json\n' check-report device-list event-list event inject-report \
		inject-scenarios metrics-state top-report)"
}
