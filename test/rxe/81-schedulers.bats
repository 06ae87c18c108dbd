#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# What schedulers run around --check, as installed, on the guest's real
# port rxe0/1 (the node of node.bash): each rule of the node problem
# detector's plugin monitor (share/npd) run as the detector runs it; the
# NHC check (share/slurm) in a harness of NHC's documented contract; the
# man page's cron line. Port down, below its rate and flapping, from the
# port and the state of a real watcher started as the packaged service
# starts it, on a node with no spec file; a spec file named that is not
# there. The configurations' keys and what the
# journal monitor matches: test/cli/53-schedulers.bats; the Slurm program
# under a real Slurm: 80-slurm.bats.
# One kernel, the ASan guest's (make check): the checks read a port that
# went down; the kernels' ways to take it down run on both in the other
# files.

load ../test_helper
load node

setup() {
	ibve_setup
	node_setup
	PORTS=$BUILD/share/npd/ibvevent-ports.json
	npd_load "$PORTS"
	[ "${RULE_PATH[0]}" = /usr/local/bin/ibv_eventwatch ] ||
		skip "built for another prefix than /usr/local: the node holds /usr/local"
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	restore_rxe
	rm -rf "$S" /run/ibvevent
	return $rc
}

# start_service: ibv_eventwatch on the node as the packaged service starts
# it (ExecStart= of systemd/ibv_eventwatch.service.in, in /usr/local/bin),
# but for --journal: no journald here (40-allprocesses.bats and
# test/cli/16-journal.bats test it); its runtime directory made as
# systemd's RuntimeDirectory= would. Started once its state is written.
start_service() {
	local words w cmd=() end
	read -r -a words < <(sed -n '/^ExecStart=./,/[^\\]$/p' "$TOP/systemd/ibv_eventwatch.service.in" |
		sed 's/\\$//; s|^ExecStart=@BINDIR@/|/usr/local/bin/|' | tr '\n' ' ' && echo)
	for w in "${words[@]}"; do
		[ "$w" = --journal ] || cmd+=("$w")
	done
	assert_equal "${cmd[0]}" /usr/local/bin/ibv_eventwatch
	[[ " ${cmd[*]} " == *" --metrics-state /var/lib/ibvevent/metrics.state "* ]] ||
		fail "the service keeps no state where the rules read it: ${cmd[*]}"
	mkdir -p /run/ibvevent
	NODE_EXEC=1 bg_start watch 0 node "${cmd[@]}" >/dev/null
	end=$((SECONDS + 60)) # install-node's copies first, under emulation
	until [ -e "$STATE" ]; do
		[ $SECONDS -lt $end ] || fail "no $STATE after 60 s: $(cat "${BG_ERR[watch]}")"
		sleep 0.1
	done
}

# npd_load CONFIG: the plugin monitor's rules, read with one jq (each jq
# costs most of a second under the guest's emulation): for rule I,
# RULE_REASON[I], RULE_TIMEOUT[I] (its own or the plugin's), RULE_PATH[I]
# and RULE_ARGS[I] (its args, a line each); MAX_OUTPUT, the plugin's
# max_output_length
npd_load() {
	local reason t path n a k args
	RULE_REASON=() RULE_TIMEOUT=() RULE_PATH=() RULE_ARGS=()
	{
		IFS= read -r MAX_OUTPUT
		while IFS= read -r reason && IFS= read -r t && IFS= read -r path &&
			IFS= read -r n; do
			args=''
			for ((k = 0; k < n; k++)); do
				IFS= read -r a
				args+=$a$'\n'
			done
			RULE_REASON+=("$reason") RULE_TIMEOUT+=("$t")
			RULE_PATH+=("$path") RULE_ARGS+=("$args")
		done
	} < <(jq -r '.pluginConfig as $p | $p.max_output_length,
		(.rules[] | .reason, (.timeout // $p.timeout), .path, (.args | length),
			(.args[] | if test("\n") then error("an argument holds a newline") else . end))' "$1")
	[ "${#RULE_REASON[@]}" -gt 0 ] || fail "$1: no rules read"
}

# npd_rule I: rule I run as the node problem detector runs it: its path
# with its args, killed at its timeout
npd_rule() {
	local t=${RULE_TIMEOUT[$1]} argv
	[[ $t =~ ^[0-9]+s$ ]] || fail "rule $1: timeout '$t' is not whole seconds"
	argv=()
	[ -z "${RULE_ARGS[$1]}" ] || mapfile -t argv <<<"${RULE_ARGS[$1]%$'\n'}"
	node timeout -k 1 "$t" "${RULE_PATH[$1]}" "${argv[@]}"
}

# rules_ok WANT...: each rule, by reason, exits as WANT says (REASON=0:
# healthy, nothing printed; REASON=1: one line of max_output_length
# characters at most, matching the ERE after a colon if given)
rules_ok() {
	local ri w reason want msg
	for ((ri = 0; ri < ${#RULE_REASON[@]}; ri++)); do # not i: bats' run changes it
		reason=${RULE_REASON[ri]}
		want='' msg=''
		for w; do
			if [ "${w%%=*}" = "$reason" ]; then
				want=${w#*=}
				want=${want%%:*}
				[[ $w != *:* ]] || msg=${w#*:}
			fi
		done
		[ -n "$want" ] || fail "rule $reason: no expectation"
		run --separate-stderr npd_rule "$ri"
		[ "$status" -eq "$want" ] ||
			fail "rule $reason: status $status, expected $want: $output $stderr"
		assert_equal "$stderr" ''
		if [ "$want" = 0 ]; then
			assert_equal "$output" ''
		else
			[[ $output != *$'\n'* ]] || fail "more than one line: $output"
			[ "${#output}" -le "$MAX_OUTPUT" ] || fail "more than $MAX_OUTPUT characters: $output"
			[ -z "$msg" ] || assert_output --regexp "^$msg\$"
		fi
	done
}

# wait_cause CAUSE: the service's state holds a down of rxe0/1 for CAUSE
# (the autopsy's verdict, a second after the down)
wait_cause() {
	wait_for "$STATE" "^\\{\"device\":\"rxe0\",\"port\":1,\"cause\":\"$1\"" 30 "$(bg_pid watch)"
}

@test "each rule run as the detector runs it, no spec file, the service just started: healthy, rxe0/1 down (its cause), an administrative down ignored, below its rate, flapping" {
	# no /etc/ibvevent/ports.spec: every port ACTIVE
	start_service
	rules_ok RdmaPortDownOrSlow=0 RdmaPortFlapping=0
	# down, its carrier lost with its netdev up (the link partner's, to
	# the service's autopsy): that condition alone, with the cause
	ip link set dummy0 carrier off
	wait_port_state DOWN
	wait_cause link_partner
	rules_ok 'RdmaPortDownOrSlow=1:rxe0/1 DOWN \(link_partner\)' RdmaPortFlapping=0
	ip link set dummy0 carrier on
	wait_port_state ACTIVE
	# its netdev set down, as a maintenance script does (administrative):
	# no problem to the rule, which ignores that cause; --check without
	# --ignore-cause still fails it and names the cause
	ip link set dummy0 down
	wait_port_state DOWN
	wait_cause administrative
	rules_ok RdmaPortDownOrSlow=0 RdmaPortFlapping=0
	run --separate-stderr node ibv_eventwatch --check --brief \
		--metrics-state /var/lib/ibvevent/metrics.state
	assert_failure 1
	assert_output 'rxe0/1 DOWN (administrative)'
	ip link set dummy0 up
	wait_port_state ACTIVE
	# below its rate (a spec file, above what soft-RoCE reports)
	echo 'rxe0/1 rate>=1000' >"$S/etc/ibvevent/ports.spec"
	rules_ok 'RdmaPortDownOrSlow=1:rxe0/1 rate [0-9.]+<1000 Gb/s' RdmaPortFlapping=0
	echo 'rxe0/1' >"$S/etc/ibvevent/ports.spec"
	# two flaps so far (the two downs), within the limit; a third: the
	# flapping condition alone
	rules_ok RdmaPortDownOrSlow=0 RdmaPortFlapping=0
	flap 1
	end=$((SECONDS + 30))
	until grep -q '3 flaps' <(node ibv_eventwatch --check --brief --spec 'rxe0/1 flaps<=2' \
		--metrics-state /var/lib/ibvevent/metrics.state 2>&1); do
		[ $SECONDS -lt $end ] || fail "the watcher's state never held 3 flaps"
		sleep 0.1
	done
	rules_ok RdmaPortDownOrSlow=0 'RdmaPortFlapping=1:rxe0/1 3 flaps'
	# the watcher's state cannot be read: unknown (neither 0 nor 1)
	bg_stop watch 0
	echo garbage >"$STATE"
	run --separate-stderr npd_rule 0
	assert_failure 3
	assert_output ''
	run --separate-stderr npd_rule 1
	assert_failure 3
	assert_output ''
}

# nhc CHECK...: CHECK (a line of nhc.conf: a function and its arguments)
# run on the node with the shipped check file loaded into a harness that
# provides only what NHC documents for a check (LBNL NHC's README,
# "Writing checks"): a die function, "die STATUS MESSAGE", and the check
# called by its name. NHC is not packaged in Debian: this is not NHC.
nhc() {
	# shellcheck disable=SC2016 # the harness's
	node bash -c '
		die() { # NHC: die STATUS MESSAGE (the check then returns)
			printf "die %s %s\n" "$1" "$2"
			return 1
		}
		. /usr/local/share/ibvevent/slurm/ibvevent.nhc
		eval "$1"
		echo "returned $?"' bash "$*"
}

@test "the NHC check: die 1 with the first line when rxe0/1 is down, nothing when healthy or unknown" {
	echo 'rxe0/1' >"$S/etc/ibvevent/ports.spec"
	run --separate-stderr nhc check_ibvevent_ports /etc/ibvevent/ports.spec
	assert_success
	assert_output 'returned 0'
	ip link set dummy0 down
	wait_port_state DOWN
	run --separate-stderr nhc check_ibvevent_ports /etc/ibvevent/ports.spec
	assert_output $'die 1 rxe0/1 DOWN\nreturned 1'
	assert_equal "$stderr" ''
	# without an argument: the default spec file
	run --separate-stderr nhc check_ibvevent_ports
	assert_output $'die 1 rxe0/1 DOWN\nreturned 1'
	# a spec file named that is not there: status 3 with one line naming
	# it, in NHC, the Slurm program and --check, never every port ACTIVE
	# (rxe0/1 is down)
	typo=/etc/ibvevent/port.spec
	want="ibv_eventwatch: --spec-file: $typo: No such file or directory"
	run --separate-stderr nhc check_ibvevent_ports "$typo"
	assert_output 'returned 0'
	assert_equal "$stderr" "check_ibvevent_ports: cannot check the RDMA ports (status 3): $want"
	for cmd in "/usr/local/share/ibvevent/slurm/ibvevent-healthcheck --check-only" \
		'ibv_eventwatch --check --spec-file'; do
		# shellcheck disable=SC2086 # the command's words
		run --separate-stderr node $cmd "$typo"
		assert_failure 3
		assert_output ''
		assert_equal "$stderr" "$want"
	done
	# a check that cannot run fails nothing: said on standard error, in
	# one line
	printf 'rxe0/1 speed>=1\n' >"$S/etc/ibvevent/bad.spec"
	run --separate-stderr nhc check_ibvevent_ports /etc/ibvevent/bad.spec
	assert_output 'returned 0'
	assert_equal "$stderr" "check_ibvevent_ports: cannot check the RDMA ports (status 2): ibv_eventwatch: --spec-file: /etc/ibvevent/bad.spec:1: 'speed>=1': not a condition (state=, rate>=, link=, flaps<=, peer=)"
	# the command is the Slurm program's own
	run -0 grep -c '/ibvevent/slurm/ibvevent-healthcheck --check-only' "$BUILD/share/slurm/ibvevent.nhc"
	assert_output 1
}

@test "the man page's cron line runs the shipped check: silent when healthy, the reason when not" {
	line=$(grep '^\*/5 \* \* \* \* ' "$TOP/man/ibv_eventwatch.1")
	read -r -a cmd <<<"${line#*/5 \* \* \* \* }"
	assert_equal "${cmd[0]}" /usr/local/share/ibvevent/slurm/ibvevent-healthcheck
	echo 'rxe0/1' >"$S/etc/ibvevent/ports.spec"
	run --separate-stderr node "${cmd[@]}"
	assert_success
	assert_output ''
	assert_equal "$stderr" ''
	ip link set dummy0 down
	wait_port_state DOWN
	run --separate-stderr node "${cmd[@]}"
	assert_failure 1
	assert_output 'rxe0/1 DOWN'
	# what it cannot check, cron mails too
	echo garbage >"$STATE"
	run --separate-stderr node "${cmd[@]}"
	assert_failure 3
	assert_equal "$stderr" 'ibv_eventwatch: /var/lib/ibvevent/metrics.state:1: not a metrics state line'
}
