#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The shipped Slurm HealthCheckProgram (share/slurm/ibvevent-healthcheck),
# as the man page's example configures it, run by a real slurmctld and slurmd (Debian's slurm-wlm, with munge) on a
# node of the test's own (fake_node.bash): a port down drains the node with
# the check's reason, back up it returns to service; a node an operator
# drained stays drained; a check that cannot run drains nothing and says so
# to syslog (a socket of the test's, as /dev/log of the node).

load ../test_helper
load fake_node

setup() {
	ibve_setup
	node_setup
	grep -qx 'HealthCheckProgram=/usr/local/share/ibvevent/slurm/ibvevent-healthcheck' \
		"$TOP/man/ibv_eventwatch.1" || fail "the man page's example is not the shipped program"
	for c in slurmctld slurmd scontrol munged; do
		command -v "$c" >/dev/null ||
			skip "$c is not installed (make deps: slurmctld slurmd slurm-client munge)"
	done
	port mlx5_0 1 ib-port1
	port mlx5_1 1 ib-port1
	echo 'mlx5_*/1 rate>=100 flaps<=2' >"$R/etc/ibvevent/ports.spec"
	history "$CAPTURES/fleet-node3.jsonl"
	S=$BATS_TEST_TMPDIR/slurm
	mkdir -p "$S/state" "$S/spool" "$R/etc/slurm"
	export SLURM_CONF=$R/etc/slurm/slurm.conf
	p=$(free_port)
	cat >"$SLURM_CONF" <<EOF
ClusterName=ibvevent
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$p
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$S/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
SlurmdDebug=debug2
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
HealthCheckInterval=5
$(grep "^HealthCheckProgram=" "$TOP/man/ibv_eventwatch.1")
NodeName=node1 NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=p Nodes=node1 Default=YES State=UP
EOF
	dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 2>/dev/null
	chmod 600 "$S/munge.key"
	# what the program says to syslog, one datagram a line
	export NODE_LOG=$S/log.sock
	bg_start syslog 143 python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as f:
    while True:
        f.write(s.recv(65536).decode() + "\n")
        f.flush()' "$NODE_LOG" "$S/syslog"
	bg_start munged 0 munged -F --force --key-file="$S/munge.key" \
		--socket="$S/munge.sock" --pid-file="$S/munged.pid" \
		--log-file="$S/munged.log" --seed-file="$S/munged.seed"
	wait_for_file "$NODE_LOG"
	wait_for_file "$S/munge.sock"
	bg_start slurmctld 0 slurmctld -D -f "$SLURM_CONF"
	NODE_EXEC=1 bg_start slurmd 0 installed slurmd -D -N node1
	wait_node '^State=IDLE$'
}

teardown() {
	ibve_teardown
}

# wait_for_file PATH: PATH exists, within 30 s
wait_for_file() {
	local i
	for ((i = 0; i < 300; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	fail "no $1 after 30 s"
}

# node: what scontrol says of the node: its State= and Reason= words
node() {
	scontrol show node node1 | grep -oE '(State|Reason)=.*' | sed 's/ [A-Z][a-zA-Z]*=.*//'
}

# wait_node REGEX: until what node says matches REGEX (ERE), within 60 s
# (health checks every 5 s)
wait_node() {
	local i
	for ((i = 0; i < 600; i++)); do
		node 2>/dev/null | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	fail "the node never matched '$1': $(node 2>&1)"
}

# checks: how many times slurmd ran the health check program to its end
# (its log, at debug2)
checks() {
	grep -c 'health_check success rc:0' "$S/slurmd.log" || true
}

# wait_checks N: until slurmd has run the program N more times than $1
wait_checks() {
	local i
	for ((i = 0; i < 600; i++)); do
		[ "$(checks)" -ge $(($1 + $2)) ] && return 0
		sleep 0.1
	done
	fail "slurmd ran the health check $(checks) times, not $1 + $2"
}

@test "Slurm: a port down drains the node with the reason, back up it resumes; an operator's drain stays; exit 3 drains nothing" {
	run -0 node
	assert_output 'State=IDLE'
	# a port down: drained, with the check's first line
	port mlx5_1 1 ib-port2-down
	wait_node '^Reason=ibvevent: mlx5_1/1 DOWN \[root@'
	run -0 node
	assert_line --index 0 --regexp '^State=IDLE\+DRAIN$'
	# back up: returned to service, the reason gone
	port mlx5_1 1 ib-port1
	wait_node '^State=IDLE$'
	run -0 node
	assert_output 'State=IDLE'
	# flapping, from the watcher's state: drained for it
	port mlx5_2 1 ib-port1
	history "$CAPTURES/fleet-node1.jsonl" 9
	wait_node '^Reason=ibvevent: mlx5_0/1 3 flaps \[root@'
	history "$CAPTURES/fleet-node3.jsonl"
	wait_node '^State=IDLE$'
	# drained by an operator: stays, with the operator's reason, while the
	# port goes down and comes back
	scontrol update NodeName=node1 State=DRAIN Reason=maintenance
	port mlx5_1 1 ib-port2-down
	n=$(checks)
	wait_checks "$n" 2
	run -0 node
	assert_line --index 0 'State=IDLE+DRAIN'
	assert_line --index 1 --regexp '^Reason=maintenance \[root@'
	port mlx5_1 1 ib-port1
	n=$(checks)
	wait_checks "$n" 2
	run -0 node
	assert_line --index 0 'State=IDLE+DRAIN'
	assert_line --index 1 --regexp '^Reason=maintenance \[root@'
	scontrol update NodeName=node1 State=RESUME
	wait_node '^State=IDLE$'
	# cannot check (the watcher's state unreadable): said, nothing drained,
	# the port down notwithstanding
	port mlx5_1 1 ib-port2-down
	echo garbage >"$STATE"
	: >"$S/syslog"
	n=$(checks)
	wait_checks "$n" 2
	run -0 grep -c 'ibvevent-healthcheck.*: node1: cannot check the RDMA ports (status 3): ibv_eventwatch: /var/lib/ibvevent/metrics.state:1: not a metrics state line' "$S/syslog"
	[ "$output" -ge 1 ]
	run -0 node
	assert_output 'State=IDLE'
}
