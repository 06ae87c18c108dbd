#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# What make writes into the tree from the library's tables (share/
# mktables.c): the JSON schema of a record, the completion's word lists,
# the man pages' tables. What is shipped must be what the generator writes
# now: a hand edit of a generated part, or a table changed without
# running make, fails here.

load ../test_helper

MKTABLES=$BUILD/gen/mktables

# regenerated SOURCE SHIPPED: the generator's output of SOURCE is SHIPPED.
regenerated() {
	not_output "$BATS_TEST_TMPDIR/made"
	"$MKTABLES" "$TOP/$1" >"$BATS_TEST_TMPDIR/made" ||
		fail "$MKTABLES $1 failed"
	diff -u "$TOP/$2" "$BATS_TEST_TMPDIR/made" ||
		fail "$2 is not what $MKTABLES makes of $1: edit the tables, the template or outside @gen ... @end, and run make"
}

@test "the event schema is what the generator makes of its template and the tables" {
	regenerated share/event.schema.in share/schema/event.schema.json
}

@test "the generated parts of the completion and man pages are the tables'" {
	local f n=0
	while read -r f; do
		regenerated "$f" "$f"
		n=$((n + 1))
	done < <(cd "$TOP" && grep -l '@gen ' completions/* man/*)
	[ "$n" -ge 2 ] || fail "only $n files with generated parts"
}

@test "the generator refuses a template that names no list of its own" {
	not_output "$BATS_TEST_TMPDIR/x.in"
	printf '{"enum": @no_such_list@}\n' >"$BATS_TEST_TMPDIR/x.in"
	run -1 "$MKTABLES" "$BATS_TEST_TMPDIR/x.in"
	assert_output --partial "no list no_such_list"
}

@test "without eBPF (BPF=0) the generator still makes the catalog and the tree's tables" {
	b=$BATS_TEST_TMPDIR/b
	run -0 make -n -C "$TOP" B="$b" BPF=0 "$b/ibvevent.catalog" share/schema/event.schema.json
	assert_line --regexp "^$b/gen/mktables catalog >"
	assert_line --partial "gen/mktables share/event.schema.in >share/schema/event.schema.json.tmp"
}
