#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Finding the names: --list-events lists every row of the library's event
# table (text and JSON Lines, valid under event-list.schema.json), and an
# unknown event name or severity is refused with the nearest one.

load ../test_helper

setup() {
	ibve_setup
	FABRIC=$CAPTURES/ib-fabric.jsonl
}

# The rows of the sources' tables (lib/src_*.c), read from their source
# (not through the library): "SOURCE NAME", in the table's order (by the
# sources' ranks, 0 unless said, then as lib/sources.c registers them).
table_rows() {
	local f rank src
	grep -oE '^\s&ibve_source_[a-z0-9]+' "$TOP/lib/sources.c" | while read -r f; do
		f=$TOP/lib/src_${f#&ibve_source_}.c
		rank=$(grep -oE '^\s\.rank = [0-9]+' "$f" || echo 0)
		src=$(grep -oE '^\s\.called = "[a-z0-9]+"' "$f" ||
			grep -oE '^\s\.name = "[a-z0-9]+"' "$f")
		src=${src#*\"}
		sed -n '/^static const struct ibve_event_desc rows\[\] = {/,/^};/p' "$f" |
			tr '\n' ' ' | grep -oE 'ROW\([^,]+, "[A-Z0-9_]+"' |
			sed -E "s/^ROW\([^,]+, \"([A-Z0-9_]+)\"/${rank##* } ${src%\"} \1/"
	done | sort -s -n -k1,1 | cut -d' ' -f2-
}

@test "--list-events -j: every row of the event table, valid under its schema" {
	want=$(table_rows)
	[ "$(wc -l <<<"$want")" -ge 50 ] || fail "read too few rows of lib/src_*.c: $want"
	run --separate-stderr ibv_eventwatch --list-events -j
	assert_success
	assert_equal "$stderr" ''
	json=$output
	assert_equal "$(jq -r '"\(.source) \(.name)"' <<<"$json")" "$want"
	run "$TOP/test/schema-check" --kind event-list - <<<"$json"
	assert_success
	# what a record of the event says agrees with its row
	run ibv_eventwatch -r "$FABRIC" -j -e PORT_ERR -n 1
	assert_success
	rec=$output
	assert_equal "$(jq -c 'select(.name == "PORT_ERR") | [.source, .code, .class, .severity, .affiliated]' <<<"$json")" \
		"$(jq -c '[.source, .code, .class, .severity, .affiliated]' <<<"$rec")"
	# the schema refuses a row that breaks it
	run "$TOP/test/schema-check" --kind event-list - <<<"$(head -n 1 <<<"$json" | jq -c '.severity = "loud"')"
	assert_failure 1
}

@test "--list-events: a line per row with source, class, severity and meaning" {
	run --separate-stderr ibv_eventwatch --list-events
	assert_success
	assert_line --index 0 --regexp '^EVENT +SOURCE +CLASS +SEVERITY +MEANING$'
	assert_equal "$(tail -n +2 <<<"$output" | awk '{ print $2, $1 }')" "$(table_rows)"
	assert_line 'PORT_ERR             verbs    port    error    port left the active state: link down or lost'
	assert_line 'DEVICE_ADDED         hotplug  device  info     device appeared and is being watched'
	# every listed name is one -e takes (one run: a name refused is a
	# usage error, status 2, naming it)
	mapfile -t terms < <(tail -n +2 <<<"$output" | awk '{ print "-e"; print $1 }')
	[ "${#terms[@]}" -gt 40 ] || fail "only ${#terms[@]} words from the list"
	run --separate-stderr ibv_eventwatch -r "$FABRIC" "${terms[@]}"
	assert_success
	assert_equal "$stderr" ''
	# it takes -j and nothing else
	run --separate-stderr ibv_eventwatch --list-events -d mlx5_0
	assert_failure 2
	assert_equal "${stderr_lines[0]}" 'ibv_eventwatch: --list-events takes only -j'
	run --separate-stderr ibv_eventwatch -q --list-events
	assert_failure 2
}

@test "an unknown event name or severity is refused with the nearest one" {
	hint='(ibv_eventwatch --list-events lists them)'
	refused() { # TERM SUGGESTION: -e TERM is a usage error suggesting it
		run --separate-stderr ibv_eventwatch -r "$FABRIC" -e "$1"
		assert_failure 2
		assert_equal "$output" ''
		assert_equal "${stderr_lines[0]}" "ibv_eventwatch: unknown event, class or severity '$1'${2:+: did you mean $2?} $hint"
	}
	refused PORT_DOWN PORT_ERR
	refused LINK_UP PORT_ACTIVE
	refused PORT_ERRX PORT_ERR
	refused gid_chnage GID_CHANGE
	refused IBV_EVENT_PORT_AKTIVE IBV_EVENT_PORT_ACTIVE
	refused hotplg hotplug
	refused 'severity>=warn' 'severity>=warning'
	refused 'severity>=fatl' 'severity>=fatal'
	refused '<=crit' '<=fatal'
	refused 'severity>=loud' ''
	refused bogus ''
	# the same in -x, --expect and a list's later terms
	run --separate-stderr ibv_eventwatch -r "$FABRIC" -x 'qp,srqq'
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "ibv_eventwatch: unknown event, class or severity 'srqq': did you mean srq? $hint"
	run --separate-stderr ibv_eventwatch -r "$FABRIC" --expect 'PORT_DOWN'
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "ibv_eventwatch: unknown event, class or severity 'PORT_DOWN': did you mean PORT_ERR? $hint"
	# and each suggestion is a term -e takes
	ibv_eventwatch -r "$FABRIC" -e PORT_ERR,GID_CHANGE,hotplug,'severity>=warning','<=fatal',srq >/dev/null
}
