# SPDX-License-Identifier: MIT
# Shared by every bats suite (test/cli on the host, test/rxe in the guest).
# Variables set here are for the test files that load it.
# shellcheck disable=SC2034

bats_require_minimum_version 1.5.0

# bats-support and bats-assert, each library's src/*.bash sourced from
# the first directory of BATS_LIB_PATH (bats' default: /usr/lib/bats)
# that holds it. Their load.bash runs dirname once per file, 18 programs
# per test, which under the guest's emulation cost 1.7 s a test (about 5
# minutes of make check); sourcing adds no process. Their files only
# define functions, so the order is free.
load_bats_lib() {
	local d f
	local IFS=:
	for d in ${BATS_LIB_PATH:-/usr/lib/bats}; do
		[ -d "$d/$1/src" ] || continue
		for f in "$d/$1"/src/*.bash; do
			# shellcheck disable=SC1090 # a library's own files
			source "$f" || return 1
		done
		return 0
	done
	bats_load_library "$1" # not where expected: bats says why
}
load_bats_lib bats-support
load_bats_lib bats-assert

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
export PATH="$BUILD/bin:$PATH"
CAPTURES=$TOP/test/captures
EXPECTED=$TOP/test/expected

# wait_for FILE REGEX [SECONDS [PID]]: wait until a line of FILE matches
# REGEX (grep -E); false at once if PID, the writer, has ended first.
# Tests may poll; the tools under test never do.
# Timeouts are in real seconds: under emulation each check costs more,
# and a deadline only ends a wait that failed, so the defaults (30 s) are
# far above what a loaded CI machine takes.
wait_for() {
	local file=$1 re=$2 end=$((SECONDS + ${3:-30})) pid=${4:-}
	while ! grep -Eq -- "$re" "$file" 2>/dev/null; do
		if [ -n "$pid" ] && ! running "$pid"; then
			echo "# $pid ended before /$re/ in $file" >&3
			return 1
		fi
		if [ $SECONDS -ge $end ]; then
			echo "# timed out after ${3:-30} s waiting for /$re/ in $file:" >&3
			sed 's/^/#   /' "$file" >&3 2>/dev/null
			return 1
		fi
		sleep 0.05
	done
}

# wait_count FILE REGEX N [SECONDS]: until N lines of FILE match REGEX.
wait_count() {
	local end=$((SECONDS + ${4:-30}))
	until [ "$(count_lines "$1" "$2")" -ge "$3" ]; do
		if [ $SECONDS -ge $end ]; then
			echo "# timed out waiting for $3 lines /$2/ in $1 ($(count_lines "$1" "$2") seen)" >&3
			return 1
		fi
		sleep 0.05
	done
}

# count_lines FILE REGEX: number of lines of FILE matching REGEX.
count_lines() {
	grep -Ec -- "$2" "$1" 2>/dev/null || true
}

# Guest-only helpers. The harness (test/vm/run) makes rxe0 on dummy0.
require_guest() {
	[ "${IBVEVENT_VM:-}" = 1 ] ||
		skip "needs the soft-RoCE guest: run through make check-vm"
}

kernel_at_least() {
	local want=$1 have
	have=$(uname -r | cut -d- -f1)
	[ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n 1)" = "$want" ]
}

port_state() {
	cut -d' ' -f2 "/sys/class/infiniband/${1:-rxe0}/ports/${2:-1}/state"
}

# wait_port_state STATE [DEV]: e.g. wait_port_state ACTIVE
wait_port_state() {
	local end=$((SECONDS + 30))
	until [ "$(port_state "${2:-rxe0}")" = "$1" ]; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.05
	done
}

# in_cgroup DIR CMD...: CMD run inside cgroup DIR (under /sys/fs/cgroup),
# in place of the caller (a subshell, or bg_start's).
in_cgroup() {
	local dir=/sys/fs/cgroup/$1
	shift
	mkdir -p "$dir"
	exec bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$dir" "$@"
}

# Put the guest back as the harness made it: rxe0 on dummy0, port ACTIVE.
restore_rxe() {
	ip link set dummy0 up 2>/dev/null || true
	if [ ! -e /sys/class/infiniband/rxe0 ]; then
		rdma link add rxe0 type rxe netdev dummy0
	fi
	wait_port_state ACTIVE
}

# --- Background processes ---------------------------------------------
#
# Every program a test starts in the background goes through bg_start, so
# that it ends with the status the test expects and its standard error is
# read: bg_stop and bg_wait check both, and the teardown (ibve_teardown)
# stops whatever is still running and checks it the same way.

declare -gA BG_PID=() BG_ERR=() BG_WANT=()
# BG_GRACE[NAME]: seconds NAME may take to end once stopped (default 10),
# for a program known to take longer; the caller says why.
declare -gA BG_GRACE=()

# bg_start NAME STATUS CMD...: CMD in the background, its stderr in
# $BATS_TEST_TMPDIR/NAME.err (BG_ERR[NAME]); STATUS is the status it must
# end with when stopped (0, or e.g. 143 for a program SIGTERM kills). The
# caller redirects stdin and stdout. Sets BG_LAST to the pid.
bg_start() {
	local name=$1 want=$2
	shift 2
	BG_ERR[$name]=$BATS_TEST_TMPDIR/$name.err
	# the explicit <&0: an asynchronous command would read /dev/null
	"$@" <&0 2>"${BG_ERR[$name]}" &
	BG_PID[$name]=$!
	BG_WANT[$name]=$want
	BG_LAST=$!
}

bg_pid() {
	echo "${BG_PID[$1]:-}"
}

# Whether PID runs (a zombie, dead but not yet reaped, does not).
running() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# Reports of AddressSanitizer, LeakSanitizer, UBSan and ThreadSanitizer.
SANITIZER_RE='^==[0-9]+==ERROR: |^SUMMARY: [A-Za-z]*Sanitizer|runtime error: |^WARNING: ThreadSanitizer'

# bg_check NAME STATUS: reap NAME (already ended or signalled) within 10 s
# (BG_GRACE[NAME] if set),
# then its status must be STATUS (or one of "1|3": where the test says
# why either is right) and its stderr free of sanitizer reports. Sets
# BG_STATUS to the status.
bg_check() {
	local name=$1 want=$2 pid=${BG_PID[$1]:-} grace=${BG_GRACE[$1]:-10}
	local start=$SECONDS end status=0 err
	end=$((start + grace))
	[ -n "$pid" ] || return 0
	unset "BG_PID[$name]"
	err=${BG_ERR[$name]}
	while running "$pid"; do
		if [ $SECONDS -ge $end ]; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			echo "# $name (pid $pid) did not end within $grace s; killed" >&3
			return 1
		fi
		sleep 0.05
	done
	[ $((SECONDS - start)) -le 10 ] ||
		echo "# $name took $((SECONDS - start)) s to end (allowed: $grace s)" >&3
	wait "$pid" || status=$?
	BG_STATUS=$status
	if grep -Eq "$SANITIZER_RE" "$err" 2>/dev/null; then
		echo "# $name: a sanitizer report on its stderr:" >&3
		sed 's/^/#   /' "$err" >&3
		return 1
	fi
	if [[ "|$want|" != *"|$status|"* ]]; then
		echo "# $name ended with status $status, not $want; its stderr:" >&3
		sed 's/^/#   /' "$err" >&3
		return 1
	fi
}

# bg_stop NAME [STATUS [SIGNAL]]: send SIGNAL (TERM) and check as above
# (STATUS: the one given to bg_start).
bg_stop() {
	local pid=${BG_PID[$1]:-}
	[ -n "$pid" ] || return 0
	kill -s "${3:-TERM}" "$pid" 2>/dev/null || true
	bg_check "$1" "${2:-${BG_WANT[$1]}}"
}

# bg_wait NAME STATUS [SECONDS]: until NAME ends by itself (10 s), then
# check it; a program still running at the deadline fails.
bg_wait() {
	local pid=${BG_PID[$1]:-} end=$((SECONDS + ${3:-10}))
	[ -n "$pid" ] || return 0
	while running "$pid"; do
		if [ $SECONDS -ge $end ]; then
			echo "# $1 (pid $pid) still runs after ${3:-10} s" >&3
			bg_stop "$1" "$2" KILL
			return 1
		fi
		sleep 0.05
	done
	bg_check "$1" "$2"
}

# storm_events TEXT: the events ibv_eventwatch's text lines stand for: a
# storm summary's xN, a storm's end without its own count none, a line
# alone one.
storm_events() {
	awk '/ storm over: [0-9,]+ in / { next }
		/ storm( over)?: x/ { n = $0; sub(/.* storm( over)?: x/, "", n)
			sub(/ .*/, "", n); gsub(/,/, "", n); s += n; next }
		{ s++ } END { print s + 0 }' <<<"$1"
}

# New sanitizer or memcheck reports (IBVEVENT_REPORTS: the directory the
# sanitized and memcheck builds write them to) fail the test that made
# them; the report is printed.
reports_mark() {
	[ -n "${IBVEVENT_REPORTS:-}" ] || return 0
	mkdir -p "$IBVEVENT_REPORTS"
	touch "$BATS_TEST_TMPDIR/.reports-mark"
}

reports_check() {
	local f bad=0
	[ -n "${IBVEVENT_REPORTS:-}" ] && [ -e "$BATS_TEST_TMPDIR/.reports-mark" ] || return 0
	while IFS= read -r f; do
		echo "# a report in $f:" >&3
		sed 's/^/#   /' "$f" >&3
		bad=1
	done < <(find "$IBVEVENT_REPORTS" -type f -size +0 -newer "$BATS_TEST_TMPDIR/.reports-mark")
	return $bad
}

# --- JSON output, kept for the schema check ---------------------------
#
# Every line that looks like a JSON object ("{" and more) in what the
# suite's programs print is kept with where it came from, for
# test/schema-check to validate once per suite against share/schema/: the
# output of each `run` of one of them, and at the end of each test the text
# files it left under $BATS_TEST_TMPDIR. Kept in $IBVEVENT_COLLECT (the
# guest's suites: a directory of the host's, validated there), else in
# this bats run's own directory, which test/cli/99-schema.bats validates.
# Files a test writes as input (malformed lines for the replay parser, a
# hand-made capture) are not output: it names them with not_output.

COLLECT=${IBVEVENT_COLLECT:-$BATS_RUN_TMPDIR/json-lines}
declare -gA NOT_OUTPUT=()

# not_output FILE...: files this test wrote as input for a program, not
# its output: not validated.
not_output() {
	local f
	for f; do NOT_OUTPUT[$f]=1; done
}

# collect ORIGIN [FILE]: the JSON object lines of FILE (standard input
# without one), each with its line number, under the header ORIGIN.
collect() {
	local name=${BATS_TEST_FILENAME%/*}
	name=${name##*/}-${BATS_TEST_FILENAME##*/}
	[ -d "$COLLECT" ] || mkdir -p "$COLLECT"
	{
		printf '@ %s: %s\n' "$BATS_TEST_DESCRIPTION" "${1//$'\n'/ }"
		LC_ALL=C grep -an '^{.' -- "${2:--}"
	} >>"$COLLECT/$name.lines"
}

# Whether "CMD ARGS..." runs one of the suite's programs (through a shell
# too, when nothing else reads what it prints).
ours() {
	case ${1##*/} in
	ibv_event*) return 0 ;;
	bash | sh) [ "${2:-}" = -c ] && [[ ${3:-} == *ibv_event* && ${3:-} != *'|'* ]] ;;
	*) return 1 ;;
	esac
}

# bats' own run, as ibve_bats_run; run is it, then keeps what one of the
# suite's programs printed.
ibve_def=$(declare -f run)
eval "ibve_bats_run() ${ibve_def#*$'\n'}"
unset ibve_def
run() {
	local rc=0 separate='' a cmd
	ibve_bats_run "$@" || rc=$?
	while [ $# -gt 0 ]; do
		a=$1
		case $a in
		--separate-stderr) separate=1 ;;
		--) shift && break ;;
		-* | '!') ;;
		*) break ;;
		esac
		shift
	done
	# shellcheck disable=SC2154 # output and stderr: set by bats' run
	if [ $# -gt 0 ] && ours "$@"; then
		cmd="run $*"
		[[ $output != *'{'* ]] || collect "${cmd:0:200}" <<<"$output"
		[[ -z $separate || $stderr != *'{'* ]] ||
			collect "${cmd:0:200} (its stderr)" <<<"$stderr"
	fi
	return $rc
}

# The text files with JSON object lines this test left, but its inputs.
collect_files() {
	local f
	[ -d "${BATS_TEST_TMPDIR:-}" ] || return 0
	while IFS= read -r f; do
		[ -z "${NOT_OUTPUT[$f]:-}" ] || continue
		case ${f##*/} in separate-stderr-*) continue ;; esac
		collect "file ${f#"$BATS_TEST_TMPDIR"/}" "$f"
	done < <(LC_ALL=C grep -rIl -D skip '^{.' "$BATS_TEST_TMPDIR" 2>/dev/null)
}

# What every test's teardown does last: stop the background programs still
# running (each must end as bg_start said), then look for reports, and
# keep the JSON the test's programs wrote.
ibve_teardown() {
	local name rc=0
	for name in "${!BG_PID[@]}"; do
		bg_stop "$name" || rc=1
	done
	reports_check || rc=1
	collect_files || rc=1
	return $rc
}

# What every test's setup does first.
ibve_setup() {
	reports_mark
}

setup() {
	ibve_setup
}

teardown() {
	ibve_teardown
}

# start_watch ARGS...: ibv_eventwatch in the background, ready to see
# events when this returns (it has printed its "watching" line).
# Sets WPID, WOUT (its stdout) and WERR (its stderr); SIGTERM must end it
# with status 0.
start_watch() {
	WOUT=$BATS_TEST_TMPDIR/watch.out
	bg_start watch 0 ibv_eventwatch "$@" >"$WOUT"
	WPID=$BG_LAST
	WERR=${BG_ERR[watch]}
	# -A loads and attaches eBPF programs: under ASan, emulation and a
	# loaded host that took over 10 s
	wait_for "$WERR" '^ibv_eventwatch: watching' 120
}

# start_asyncwatch: rdma-core's ibv_asyncwatch on rxe0 as the reference
# (SIGTERM kills it: status 143).
start_asyncwatch() {
	AOUT=$BATS_TEST_TMPDIR/asyncwatch.out
	bg_start asyncwatch 143 stdbuf -oL ibv_asyncwatch -d rxe0 >"$AOUT"
	APID=$BG_LAST
	wait_for "$AOUT" 'async event FD'
}

# The hot-plug method the watcher should report on this kernel.
expected_hotplug() {
	if kernel_at_least 6.11; then echo netlink; else echo uevent; fi
}

# A terminal for screen tests: tmux on a socket of this test's own, a
# fresh one for each start (a server that is stopping may still hold the
# last one).
# tm_start CMD: run CMD in a 170x30 terminal; when it ends, the pane
# shows EXIT=<status>.
tm() {
	tmux -L "ibve-$$-${BATS_TEST_NUMBER:-0}-${TM_N:-0}" "$@"
}

tm_start() {
	TM_N=$((${TM_N:-0} + 1))
	tm new-session -d -x "${TM_COLS:-170}" -y "${TM_LINES:-30}" \
		"$1; echo EXIT=\$?; sleep 600"
}

tm_screen() {
	tm capture-pane -p -t 0
}

# tm_wait REGEX [SECONDS]: until a line of the screen matches. The default
# deadline (60 s) is far beyond a redraw on a loaded machine (the guest
# suites run beside the host's): it is only reached when something broke.
tm_wait() {
	local end=$((SECONDS + ${2:-60}))
	until tm_screen | grep -Eq -- "$1"; do
		if [ $SECONDS -ge $end ]; then
			echo "# timed out waiting for /$1/ on the screen:" >&3
			tm_screen | sed 's/^/#   |/' >&3
			return 1
		fi
		sleep 0.05
	done
}

# tm_wait_gone REGEX [SECONDS]: until no line of the screen matches.
tm_wait_gone() {
	local end=$((SECONDS + ${2:-60}))
	while tm_screen | grep -Eq -- "$1"; do
		if [ $SECONDS -ge $end ]; then
			echo "# /$1/ still on the screen after ${2:-60} s:" >&3
			tm_screen | sed 's/^/#   |/' >&3
			return 1
		fi
		sleep 0.05
	done
}

# tm_line N: line N (from 1) of the screen.
tm_line() {
	tm_screen | sed -n "${1}p"
}

# tm_wait_line N REGEX [SECONDS]: until line N of the screen matches.
tm_wait_line() {
	local end=$((SECONDS + ${3:-10}))
	until tm_line "$1" | grep -Eq -- "$2"; do
		if [ $SECONDS -ge $end ]; then
			echo "# timed out waiting for /$2/ on line $1 of the screen:" >&3
			tm_screen | sed 's/^/#   |/' >&3
			return 1
		fi
		sleep 0.05
	done
}

# screen_whole: every line of ibv_eventtop's screen is one it drew as
# a line: the header, the columns off either edge, the titles, a row, the
# event log, the footer, the help. A piece of a longer line wrapped at the
# edge is none of these.
screen_bad() {
	tm_screen | grep -Ev -- '^( ibv_eventtop( \[PAUSED\])? - | ibv_eventtop help | [0-9]+ devices?, |DEVICE +PORT |[a-z][a-z0-9_]* +([0-9]+|-) | +PID COMM | +([0-9]+|-) [^ ]| q Quit  h Help| Events, newest first|( *< [0-9]+ columns?)?( +[0-9]+ columns? >)?$|[0-9]{2}:[0-9]{2}:[0-9]{2} [a-z]|  [^ ]|$)' || true
}
screen_whole() {
	local bad
	bad=$(screen_bad)
	[ -z "$bad" ] || fail "lines that are no line the program drew: $(printf '\n%s' "$bad")$(printf '\n--- the screen:\n%s' "$(tm_screen)")"
}

# tm_resized COLSxLINES: the window resized, and ibv_eventtop's redraw at
# that size waited for (10 s at most): until then tmux shows the old
# lines rewrapped, which screen_whole would take for the program's.
tm_resized() {
	local end=$((SECONDS + 10))
	tm resize-window -t 0 -x "${1%x*}" -y "${1#*x}"
	until [ -z "$(screen_bad)" ]; do
		[ $SECONDS -lt $end ] || break # screen_whole says what is wrong
		sleep 0.05
	done
}

# has_title TITLE: the table's title line has TITLE, whole.
has_title() {
	tm_screen | grep -E '^(DEVICE +PORT| +PID COMM)' | grep -qE "(^| )$1( |\$)"
}

# tm_stop: end the server, and wait (30 s at most) until it has.
tm_stop() {
	local pid end=$((SECONDS + 30))
	pid=$(tm display-message -p '#{pid}' 2>/dev/null) || return 0
	tm kill-server 2>/dev/null || true
	while kill -0 "$pid" 2>/dev/null; do
		if [ $SECONDS -ge $end ]; then
			echo "# the tmux server $pid still runs 30 s after kill-server" >&3
			return 1
		fi
		sleep 0.05
	done
}

# free_port: a TCP port no socket uses, on loopback, below the kernel's
# ephemeral range: a port in that range may become a client's local port
# (any connect() on the machine) between this choice and the bind.
free_port() {
	local p low
	read -r low _ </proc/sys/net/ipv4/ip_local_port_range
	[ "$low" -gt 12000 ] || low=61000
	while :; do
		p=$((10000 + RANDOM % (low - 10000)))
		ss -tanH "sport = :$p" | grep -q . || break
	done
	echo "$p"
}

# prometheus_start PORT CONFIG: a real Prometheus (Debian's) with CONFIG,
# on 127.0.0.1:PORT, its data in this test's directory; SIGTERM ends it.
prometheus_start() {
	bg_start prometheus 0 prometheus --config.file="$2" \
		--storage.tsdb.path="$BATS_TEST_TMPDIR/tsdb" \
		--web.listen-address="127.0.0.1:$1"
}

# prom_query PORT EXPR: the first value the Prometheus on PORT has for EXPR
# ("" when it has none yet).
prom_query() {
	curl -fsG "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2" |
		jq -r '.data.result[0].value[1] // empty'
}

# wait_http URL [SECONDS]: until URL answers.
wait_http() {
	local end=$((SECONDS + ${2:-15}))
	until curl -fs -o /dev/null "$1"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}
