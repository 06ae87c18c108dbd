#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make bench's code, once at a small size: every figure is measured and
# written beside its anchor. The figures themselves are bench/RESULTS.md.

load ../test_helper

@test "bench/run --smoke writes every figure beside its anchor, every goal judged" {
	[ "${IBVEVENT_VALGRIND:-}" != 1 ] ||
		skip "the benchmarks measure the plain build, not memcheck's"
	[ "${IBVEVENT_SANITIZED:-}" != 1 ] ||
		skip "the benchmarks measure the plain build, not the sanitized one"
	out=$BATS_TEST_TMPDIR/RESULTS.md
	run "$TOP"/bench/run --smoke -o "$out"
	# a retry the guest made is said, and counted (.ci/run)
	grep '^bench/guest: .* restarting both lldpds once$' <<<"$output" | sed 's/^/# retry: /' >&3 || true
	assert_success
	num='[0-9]+(\.[0-9]+)?'
	run -0 cat "$out"
	assert_line --regexp "^Guest: Debian kernel 6\.12\.[0-9]+.* under qemu \((TCG|KVM)\)"
	assert_line --regexp "^\| ibv_eventwatch \(every device, hot-plug on\) \| $num \| $num \|$"
	assert_line --regexp "^\| ibv_asyncwatch -d rxe0 \(anchor\) \| $num \| $num \|$"
	assert_line --regexp "^\| libibvevent \(ibv_eventinject\) \| $num \| $num-$num \|$"
	assert_line --regexp "^\| read-and-ack floor \(anchor\) \| $num \| $num-$num \|$"
	assert_line --regexp "^\| libibvevent \(ibv_eventinject\) \| [0-9]+ \|$"
	assert_line --regexp "^\| read-and-ack floor \(anchor\) \| [0-9]+ \|$"
	assert_line --regexp "^\| ibv_eventwatch \| $num \| $num \| $num \|$"
	assert_line --regexp "^\| grep -c \(anchor\) \| $num \| $num \| $num \|$"
	assert_line --regexp "^\| jq \(anchor\) \| $num \| $num \| $num \|$"
	assert_line --regexp "^- $num instructions per event"
	assert_line --regexp "^\| 16 \| 16 \| $num \| $num \|$"
	assert_line --regexp "^\| 256 \| 256 \| $num \| $num \|$"
	assert_line --regexp "^\| 1 \| $num \| $num \| $num \|$"
	assert_line --regexp "^\| 4 \| $num \| $num \| $num \|$"
	# the storms' rates: in a guest of one CPU (its own nproc)
	assert_line "The rates of 2 and 6 come from a guest of their own: 1 CPU, whose"
	assert_line --regexp "^\| no watcher \(anchor\) \| $num \| $num-$num \|$"
	assert_line --regexp "^\| ibv_eventwatch -A attached \| $num \| $num-$num \|$"
	assert_line --regexp "^\| hooks held, the watcher stopped \(nothing read from the kernel\) \| $num \| $num-$num \|$"
	assert_line --regexp "^\| system calls over [0-9]+ idle seconds \| $num \|$"
	assert_line --regexp "^\| start-up to \"watching\" \(BPF load and attach\), ms \| $num \|$"
	assert_line --regexp "^\| CPU seconds per 100,000 storm events \(attached, median\) \| $num \|$"
	assert_line --regexp "^\| the programs' time per event \(the kernel's bpf_stats\), ns \| [0-9]+ \|$"
	assert_line --regexp "^\| the injector's time per event, no watcher \(median\), ns \| [0-9]+ \|$"
	assert_line --regexp "^\| a lone event, the kernel's handler to its line, ms \(median\) \| $num \|$"
	# the start-up's profile: what loading costs, ours and the anchor's
	assert_line --regexp "^[0-9]+ instructions \(ibv_eventwatch -V\) against [0-9]+\$"
	# and the providers each loaded: the watcher, rxe's alone
	assert_line --regexp "^\(([2-9]|[1-9][0-9]+) libraries opened, strace\); the watcher asks the kernel which\$"
	assert_line --regexp "^loads no other \(1 opened\)\. With one device the watcher makes\$"
	# the peers: start-up with an LLDP neighbour known, and its lookup
	assert_line --regexp "^\| [0-9]+, one with an LLDP peer \| $num \| $num \| $num \|$"
	assert_line --regexp "^\| lldpd's socket, connect to close, ms \| $num \|$"
	assert_line '| requests to lldpd | 2 |'
	# a lone verbs event, ours beside ibv_asyncwatch's, and the calls made
	assert_line --regexp "^\| ibv_eventwatch -d rxe0 \| [0-9]+ \| [0-9]+-[0-9]+ \| [0-9]+ \|$"
	assert_line --regexp "^\| ibv_asyncwatch -d rxe0 \(anchor\) \| [0-9]+ \| [0-9]+-[0-9]+ \| [0-9]+ \|$"
	assert_line --regexp "^([a-z_0-9]+, )*write\.$"
	assert_line --regexp "^\| set down to the verdict's line, ms \(lowest-highest\) \| $num \($num-$num\) \| 2000 \|$"
	assert_line --regexp "^\| CPU per port's counter sample, ms, at most \| $num \| 1 \|$"
	assert_line --regexp "^\| start-up to \"watching\", ms, against ibv_devinfo's \| $num / $num \| 1\.0x \|$"
	assert_line --regexp "^Their causes: administrative\. Goals: "
	# every goal is judged, one way or the other
	[ "$(grep -cE ': (met|\*\*not met\*\*)\.$' "$out")" -eq 10 ]
	# and the figures above are numbers, not empty cells
	run grep -E '[^|] \|  *\|' "$out"
	assert_failure
}
