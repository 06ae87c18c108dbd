#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# What schedulers run around --check, as installed, where soft-RoCE cannot
# make the ports: --brief's one line over several devices and ports with
# names of 63 characters; the node problem detector's configurations
# (share/npd): their keys, and its journal monitor's patterns against the
# watcher's syslog entries of stored captures; a check that hangs. The
# ports are test/sysfs's files, written by hand in the kernel's formats
# (fixture_node.bash), not a device. On the guest's real port
# (test/rxe): each rule of the plugin monitor, the NHC check and the cron
# line (81-schedulers.bats), the Slurm program under a real Slurm
# (80-slurm.bats).

load ../test_helper
load fixture_node

setup() {
	ibve_setup
	node_setup
	PORTS=$BUILD/share/npd/ibvevent-ports.json
	JOURNAL=$BUILD/share/npd/ibvevent-journal.json
	[ "$(jq -r '.rules[0].path' "$PORTS")" = /usr/local/bin/ibv_eventwatch ] ||
		skip "built for another prefix than /usr/local: the node holds /usr/local"
}

# one_line MAX: what the last run printed is one line of MAX characters at
# most (a node problem detector's message: it keeps max_output_length)
one_line() {
	[[ $output != *$'\n'* ]] || fail "more than one line: $output"
	[ -n "$output" ] || fail "no line"
	[ "${#output}" -le "$1" ] || fail "${#output} characters, more than $1: $output"
}

@test "--check --brief: the reason alone, one line of 80 characters at most, however many ports fail" {
	# names as long as the kernel allows (63 characters), every port slow
	long=mlx5_a_device_name_as_long_as_the_kernel_allows_63_characters
	for d in "${long}0" "${long}1"; do
		for p in 1 2 3; do port "$d" "$p" ib-port1; done
	done
	run --separate-stderr installed ibv_eventwatch --check --spec 'mlx5_*/* rate>=200'
	assert_failure 1
	assert_equal "${#lines[@]}" 7 # without --brief: the reason, then each port
	assert_line --index 0 "${long:0:60}" # the reason: 60 at most
	run --separate-stderr installed ibv_eventwatch --check --brief --spec 'mlx5_*/* rate>=200'
	assert_failure 1
	one_line 80
	assert_output "${long:0:60}"
	assert_equal "$stderr" ''
	# a shorter one whole
	rm -rf "$R/class/infiniband"/*
	for p in 1 2; do port mlx5_0 "$p" ib-port2-down; done
	run --separate-stderr installed ibv_eventwatch --check --brief
	assert_failure 1
	assert_output 'mlx5_0/1 DOWN (+1 more)'
	# no device at all: its one line too
	rm -rf "$R/class/infiniband"/*
	run --separate-stderr installed ibv_eventwatch --check --brief --spec X/1 --spec Y/1
	assert_failure 1
	assert_output 'no RDMA devices'
	# healthy: nothing
	port mlx5_0 1 ib-port1
	run --separate-stderr installed ibv_eventwatch --check --brief
	assert_success
	assert_output ''
	# cannot check: nothing on standard output, status 3
	run --separate-stderr installed ibv_eventwatch --check --brief --metrics-state /nonexistent
	assert_failure 3
	assert_output ''
	assert_equal "$stderr" 'ibv_eventwatch: /nonexistent: No such file or directory'
	run --separate-stderr ibv_eventwatch --check --brief -j
	assert_failure 2
	assert_equal "${stderr_lines[0]}" 'ibv_eventwatch: --brief is one line of text: not with -j'
	run --separate-stderr ibv_eventwatch --brief
	assert_failure 2
	assert_equal "${stderr_lines[0]}" 'ibv_eventwatch: --spec, --spec-file, --since, --brief and --ignore-cause go with --check'
}

SLURM=/usr/local/share/ibvevent/slurm/ibvevent-healthcheck

# rule I: rule I of the plugin monitor on the node, run as the detector
# runs it: its path with its args, killed at its timeout
rule() {
	local path t args
	path=$(jq -r ".rules[$1].path" "$PORTS")
	t=$(jq -r ".rules[$1].timeout" "$PORTS")
	mapfile -t args < <(jq -r ".rules[$1].args[]" "$PORTS")
	installed timeout -k 1 "$t" "$path" "${args[@]}"
}

# nhc CHECK...: the line of nhc.conf CHECK on the node, in a harness of
# what NHC documents for a check (a die function, the check called by its
# name), as test/rxe/81-schedulers.bats has it; NHC is not packaged in
# Debian: this is not NHC
nhc() {
	# shellcheck disable=SC2016 # the harness's
	installed bash -c '
		die() {
			printf "die %s %s\n" "$1" "$2"
			return 1
		}
		. /usr/local/share/ibvevent/slurm/ibvevent.nhc
		eval "$1"
		echo "returned $?"' bash "$*"
}

@test "with no spec file, each shipped check expects every port ACTIVE; the default file when there" {
	port mlx5_0 1 ib-port1
	port mlx5_0 2 ib-port1
	# the service's state as it writes it at its start: no event yet
	ibv_eventwatch -q -r /dev/null --metrics-file "$BATS_TEST_TMPDIR/m.prom" \
		--metrics-state "$R/varlib/ibvevent/metrics.state"
	for i in 0 1; do
		run --separate-stderr rule $i
		assert_success
		assert_output ''
		assert_equal "$stderr" ''
	done
	run --separate-stderr installed "$SLURM" --check-only
	assert_success
	assert_output ''
	run -0 nhc check_ibvevent_ports
	assert_output 'returned 0'
	# a port down: the ports rule's one line, the Slurm program's, NHC's
	port mlx5_0 2 ib-port2-down
	run --separate-stderr rule 0
	assert_failure 1
	one_line 80
	assert_output 'mlx5_0/2 DOWN'
	assert_equal "$stderr" ''
	run -0 rule 1
	run --separate-stderr installed "$SLURM" --check-only
	assert_failure 1
	assert_output 'mlx5_0/2 DOWN'
	run -0 nhc check_ibvevent_ports
	assert_output $'die 1 mlx5_0/2 DOWN\nreturned 1'
	# the default spec file, there: its ports alone are expected
	echo 'mlx5_0/1' >"$R/etc/ibvevent/ports.spec"
	run -0 rule 0
	assert_output ''
	run -0 installed ibv_eventwatch --check
	run -0 installed "$SLURM" --check-only
	run -0 nhc check_ibvevent_ports
	assert_output 'returned 0'
	echo 'mlx5_0/2' >"$R/etc/ibvevent/ports.spec"
	run -1 installed ibv_eventwatch --check --brief
	assert_output 'mlx5_0/2 DOWN'
	# flaps<= there needs the history: the refusal names the file
	echo 'mlx5_0/1 flaps<=2' >"$R/etc/ibvevent/ports.spec"
	run --separate-stderr installed ibv_eventwatch --check
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "ibv_eventwatch: --check: 'flaps<=2' (/etc/ibvevent/ports.spec) needs a history: add --metrics-state FILE (the running watcher's state) or -r FILE (a capture)"
	run -0 installed ibv_eventwatch --check --metrics-state /var/lib/ibvevent/metrics.state
	# there but not readable: cannot check, said (not every port ACTIVE)
	rm "$R/etc/ibvevent/ports.spec"
	mkdir "$R/etc/ibvevent/ports.spec"
	run --separate-stderr rule 0
	assert_failure 3
	assert_output ''
	assert_equal "$stderr" 'ibv_eventwatch: /etc/ibvevent/ports.spec: Is a directory'
}

@test "a spec file named that is not there is status 3, said in one line, in --check, the Slurm program and the NHC check" {
	port mlx5_0 1 ib-port1
	typo=/etc/ibvevent/port.spec
	echo 'mlx5_0/1' >"$R/etc/ibvevent/ports.spec"
	want="ibv_eventwatch: --spec-file: $typo: No such file or directory"
	run --separate-stderr installed ibv_eventwatch --check --brief --spec-file "$typo"
	assert_failure 3
	assert_output ''
	assert_equal "$stderr" "$want"
	run --separate-stderr installed "$SLURM" --check-only "$typo"
	assert_failure 3
	assert_output ''
	assert_equal "$stderr" "$want"
	# NHC: said on one line, the node not failed (a check that cannot run)
	run --separate-stderr nhc check_ibvevent_ports "$typo"
	assert_success
	assert_output 'returned 0'
	assert_equal "$stderr" "check_ibvevent_ports: cannot check the RDMA ports (status 3): $want"
	# the file named right: checked
	run --separate-stderr nhc check_ibvevent_ports /etc/ibvevent/ports.spec
	assert_output 'returned 0'
	assert_equal "$stderr" ''
}

# The keys each configuration may hold, as node-problem-detector documents
# them (github.com/kubernetes/node-problem-detector):
# docs/custom_plugin_monitor.md ("Plugin Config" and its annotated example)
# and pkg/custompluginmonitor/types/{config,types}.go for the custom plugin
# monitor; pkg/systemlogmonitor/README.md, pkg/systemlogmonitor/config.go,
# pkg/systemlogmonitor/logwatchers/types/log_watcher.go and
# pkg/systemlogmonitor/types/types.go for the system log monitor; the
# journald watcher reads one pluginConfig key, "source", matched against
# SYSLOG_IDENTIFIER (pkg/systemlogmonitor/logwatchers/journald). The
# detector's Go decoder ignores a key it does not know: a misspelt one is
# silently a default, so this test refuses it.
CUSTOM_KEYS='plugin pluginConfig source metricsReporting conditions rules'
CUSTOM_PLUGIN_KEYS='invoke_interval timeout max_output_length concurrency'
CUSTOM_PLUGIN_KEYS+=' enable_message_change_based_condition_update skip_initial_status'
CUSTOM_RULE_KEYS='type condition reason path args timeout invoke_interval'
LOG_KEYS='plugin pluginConfig skipList logPath lookback delay bufferSize source'
LOG_KEYS+=' conditions rules'
LOG_PLUGIN_KEYS='source'
LOG_RULE_KEYS='type condition reason pattern'
CONDITION_KEYS='type reason message'

# unknown_keys FILE PATH KEYS: the keys of the objects at PATH (jq) of FILE
# that KEYS does not list
unknown_keys() {
	jq -r --arg ok "$3" "$2"' | keys[] | select(. as $k | $ok | split(" ") | index($k) | not)' \
		"$1" | sed "s|^|$2: |"
}

# unknown_config_keys FILE TOP PLUGIN RULE: the keys of FILE that the
# lists of its top level, its pluginConfig and its rules do not hold
unknown_config_keys() {
	unknown_keys "$1" . "$2"
	unknown_keys "$1" .pluginConfig "$3"
	unknown_keys "$1" '.conditions[]' "$CONDITION_KEYS"
	unknown_keys "$1" '.rules[]' "$4"
}

@test "the detector's configurations hold only its documented keys, and what it checks at load holds" {
	run -0 unknown_config_keys "$PORTS" "$CUSTOM_KEYS" "$CUSTOM_PLUGIN_KEYS" "$CUSTOM_RULE_KEYS"
	assert_output ''
	run -0 unknown_config_keys "$JOURNAL" "$LOG_KEYS" "$LOG_PLUGIN_KEYS" "$LOG_RULE_KEYS"
	assert_output ''
	# the test fails on a key it does not know
	jq '.rules[0].timeut = "5s" | .pluginConfig.max_output = 80' "$PORTS" >"$BATS_TEST_TMPDIR/bad"
	run -0 unknown_config_keys "$BATS_TEST_TMPDIR/bad" "$CUSTOM_KEYS" "$CUSTOM_PLUGIN_KEYS" "$CUSTOM_RULE_KEYS"
	assert_output $'.pluginConfig: max_output\n.rules[]: timeut'
	# what the custom plugin monitor validates: plugin "custom", no rule's
	# timeout above the plugin's, a permanent rule's condition among the
	# conditions, its path there; one rule per condition; the message fits
	run -0 jq -r '.plugin, (.rules[] | .type, .condition), (.conditions | length),
		(.rules | length), .pluginConfig.max_output_length' "$PORTS"
	assert_output $'custom\npermanent\nRdmaPortProblem\npermanent\nRdmaPortFlapping\n2\n2\n80'
	# shellcheck disable=SC2016 # jq's
	run -0 jq -r '(.pluginConfig.timeout | rtrimstr("s") | tonumber) as $t |
		.rules[] | select((.timeout | rtrimstr("s") | tonumber) > $t) | .reason' "$PORTS"
	assert_output ''
	# shellcheck disable=SC2016 # jq's
	run -0 jq -r '.conditions[].type as $c | [.rules[] | select(.condition == $c)] | length' "$PORTS"
	assert_output $'1\n1'
	run installed test -x "$(jq -r '.rules[0].path' "$PORTS")"
	assert_success
	# the journal monitor: temporary events only, matched on the watcher's
	# identifier (what its journal entries carry)
	run -0 jq -r '.plugin, .pluginConfig.source, (.rules[] | .type, .reason), (.conditions | length)' "$JOURNAL"
	assert_output $'journald\nibv_eventwatch\ntemporary\nRdmaPortError\ntemporary\nRdmaDeviceFatal\n0'
}

# syslog_messages CMD...: the MESSAGE of each entry CMD sends to /dev/log,
# one a line, with its identifier first ("ibv_eventwatch MESSAGE"), in a
# mount namespace where /dev/log is this test's socket
syslog_messages() {
	# shellcheck disable=SC2016 # python's text
	unshare -m --propagation private -- sh -c 'mount -t tmpfs tmpfs /dev && exec "$@"' sh python3 -c '
import re, socket, subprocess, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
s.settimeout(0.2)
while True:
    try:
        m = re.match(r"<\d+>\w+ +\d+ [\d:]+ ([^[:]+)\[\d+\]: (.*)", s.recv(65536).decode())
        print(m.group(1), m.group(2))
    except socket.timeout:
        if p.poll() is not None:
            break
sys.exit(p.returncode)' "$@"
}

@test "the journal monitor's rules match the watcher's PORT_ERR and DEVICE_FATAL entries, and no other" {
	for cap in ib-fabric fleet-node1; do
		run --separate-stderr syslog_messages ibv_eventwatch -r "$CAPTURES/$cap.jsonl" --syslog
		assert_success
		assert_equal "$stderr" ''
		printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/$cap.log"
		# the detector's matching: the whole message (Go's regexp, which
		# these patterns' syntax shares with Python's), under the
		# identifier of the journald plugin's "source"
		run -0 python3 -c '
import json, re, sys
cfg = json.load(open(sys.argv[1]))
for line in open(sys.argv[2]):
    ident, msg = line.rstrip("\n").split(" ", 1)
    hits = [r["reason"] for r in cfg["rules"]
            if ident == cfg["pluginConfig"]["source"] and re.fullmatch(r["pattern"], msg)]
    event = re.search(r" event=(\S+) ", msg).group(1)
    print(event, ",".join(hits) or "-")' "$JOURNAL" "$BATS_TEST_TMPDIR/$cap.log"
		# every PORT_ERR and DEVICE_FATAL has its rule; nothing else has one
		refute_line --regexp '^PORT_ERR (-|.*,.*|RdmaDeviceFatal)$'
		refute_line --regexp '^DEVICE_FATAL (-|.*,.*|RdmaPortError)$'
		refute_line --regexp '^([^PD]|P[^O]|D[^E]|PORT_[^E]|DEVICE_[^F])[^ ]* [^-]'
		assert_line 'PORT_ERR RdmaPortError'
		assert_line 'DEVICE_FATAL RdmaDeviceFatal'
	done
}

@test "a check that hangs is stopped after 20 s, well within Slurm's 60, and counts as cannot check" {
	port mlx5_0 1 ib-port1
	# a spec file nobody writes: reading it blocks
	mkfifo "$R/etc/ibvevent/hang.spec"
	start=$SECONDS
	run --separate-stderr installed /usr/local/share/ibvevent/slurm/ibvevent-healthcheck \
		--check-only /etc/ibvevent/hang.spec
	assert_failure 124 # timeout's
	assert_output ''
	[ $((SECONDS - start)) -lt 45 ] || fail "took $((SECONDS - start)) s"
}
