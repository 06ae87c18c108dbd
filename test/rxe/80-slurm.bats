#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The shipped Slurm HealthCheckProgram (share/slurm/ibvevent-healthcheck),
# configured as the man page's example says, run by a real slurmctld and
# slurmd (Debian's slurm-wlm, with munge) on the guest, whose port is the
# soft-RoCE device's: rxe0/1 down (its netdev taken down) drains the node
# with the check's reason, back up the node returns to service; a node an
# operator drained stays drained; a check that cannot run drains nothing
# and says so to syslog (a real rsyslogd); flaps of the port that a real
# ibv_eventwatch kept in its state drain it too.
# The guest's root is the host's, read-only: Slurm's and munge's files lie
# under /run; slurmd runs on the node of node.bash, where /usr/local holds
# what make install puts there from this build (the path of the man page's
# example).
# One kernel, the ASan guest's (make check): Slurm sees a port that went
# down; the kernels' ways to take it down run on both in the other files.

load ../test_helper
load node

setup() {
	ibve_setup
	node_setup
	for c in slurmctld slurmd scontrol munged rsyslogd; do
		command -v "$c" >/dev/null ||
			skip "$c is not installed (make deps: slurmctld slurmd slurm-client munge rsyslog)"
	done
	HCP=$(grep '^HealthCheckProgram=' "$TOP/man/ibv_eventwatch.1")
	[ "$HCP" = HealthCheckProgram=/usr/local/share/ibvevent/slurm/ibvevent-healthcheck ] ||
		fail "the man page's example is not the shipped program: $HCP"
	grep -qx 'PATH=/usr/local/bin:.*' "$BUILD/share/slurm/ibvevent-healthcheck" ||
		skip "built for another prefix than /usr/local, the man page's"
	NODE=$(hostname -s)
	mkdir -p "$S/state" "$S/spool"
	# Slurm resolves its hosts with AI_ADDRCONFIG: an address besides lo's
	# (a documentation one; nothing is sent to it)
	ip addr add 192.0.2.1/24 dev dummy0
	# the node's /etc/slurm (node.bash): where scontrol finds it in the
	# program, which slurmd runs with an almost empty environment
	export SLURM_CONF=$S/etc/slurm/slurm.conf
	cat >"$SLURM_CONF" <<EOF
ClusterName=ibvevent
SlurmctldHost=$NODE(127.0.0.1)
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
$HCP
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=p Nodes=$NODE Default=YES State=UP
EOF
	printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' >"$S/etc/slurm/cgroup.conf"
	dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 2>/dev/null
	chmod 600 "$S/munge.key"
	# what the program says to syslog
	cat >"$S/rsyslog.conf" <<EOF
global(workDirectory="$S")
module(load="imuxsock" SysSock.Name="/dev/log")
template(name="t" type="string" string="%programname%:%msg%\n")
*.* action(type="omfile" file="$S/syslog" template="t")
EOF
	bg_start rsyslogd 0 rsyslogd -n -f "$S/rsyslog.conf" -i "$S/rsyslog.pid"
	bg_start munged 0 munged -F --force --key-file="$S/munge.key" \
		--socket="$S/munge.sock" --pid-file="$S/munged.pid" \
		--log-file="$S/munged.log" --seed-file="$S/munged.seed"
	wait_file /dev/log
	wait_file "$S/munge.sock"
	bg_start slurmctld 0 slurmctld -D -f "$SLURM_CONF"
	NODE_EXEC=1 bg_start slurmd 0 node slurmd -D -N "$NODE" -f /etc/slurm/slurm.conf
	wait_node '^State=IDLE$'
}

teardown() {
	local rc=0 name
	# each ends with status 0 on SIGTERM, slurmd before what it talks to
	for name in slurmd slurmctld munged rsyslogd; do
		bg_stop "$name" || rc=1
	done
	ibve_teardown || rc=1
	# what Slurm logged: no fatal error (its errors at a first start, of
	# state files not yet saved and of the PMIx library, are not)
	if grep -q 'fatal:' "$S/slurmctld.log" "$S/slurmd.log" 2>/dev/null; then
		echo "# Slurm logged fatal errors:" >&3
		grep 'fatal:' "$S/slurmctld.log" "$S/slurmd.log" | sed 's/^/#   /' >&3
		rc=1
	fi
	ip addr del 192.0.2.1/24 dev dummy0 2>/dev/null
	restore_rxe
	rm -rf "$S"
	return $rc
}

# wait_file PATH: PATH exists, within 30 s
wait_file() {
	local end=$((SECONDS + 30))
	until [ -e "$1" ]; do
		[ $SECONDS -lt $end ] || fail "no $1 after 30 s"
		sleep 0.1
	done
}

# state: what scontrol says of the node: its State= and Reason= words
state() {
	scontrol show node "$NODE" | grep -oE '(State|Reason)=.*' | sed 's/ [A-Z][a-zA-Z]*=.*//'
}

# wait_node REGEX: until what state says matches REGEX (ERE), within 60 s
# (a health check every 5 s)
wait_node() {
	local end=$((SECONDS + 60))
	until state 2>/dev/null | grep -qE -- "$1"; do
		[ $SECONDS -lt $end ] || fail "the node never matched '$1': $(state 2>&1)"
		sleep 0.1
	done
}

# checks: how many times slurmd ran the health check program to its end
# (its log, at debug2)
checks() {
	grep -c 'health_check success rc:0' "$S/slurmd.log" || true
}

# wait_checks N M: until slurmd has run the program M more times than N,
# within 60 s
wait_checks() {
	local end=$((SECONDS + 60))
	until [ "$(checks)" -ge $(($1 + $2)) ]; do
		[ $SECONDS -lt $end ] || fail "slurmd ran the health check $(checks) times, not $1 + $2"
		sleep 0.1
	done
}

@test "Slurm: rxe0 down drains the node with the reason, back up it resumes; an operator's drain stays; exit 3 drains nothing" {
	run -0 state
	assert_output 'State=IDLE'
	n=$(checks)
	wait_checks "$n" 1
	run -0 state
	assert_output 'State=IDLE'
	# the port down: drained, with the check's first line
	ip link set dummy0 down
	wait_port_state DOWN
	wait_node '^Reason=ibvevent: rxe0/1 DOWN \[root@'
	run -0 state
	assert_line --index 0 --regexp '^State=IDLE\+DRAIN$'
	# back up: returned to service, the reason gone
	ip link set dummy0 up
	wait_port_state ACTIVE
	wait_node '^State=IDLE$'
	run -0 state
	assert_output 'State=IDLE'
	# drained by an operator: stays, with the operator's reason, while the
	# port goes down and comes back
	scontrol update NodeName="$NODE" State=DRAIN Reason=maintenance
	ip link set dummy0 down
	wait_port_state DOWN
	n=$(checks)
	wait_checks "$n" 2
	run -0 state
	assert_line --index 0 'State=IDLE+DRAIN'
	assert_line --index 1 --regexp '^Reason=maintenance \[root@'
	ip link set dummy0 up
	wait_port_state ACTIVE
	n=$(checks)
	wait_checks "$n" 2
	run -0 state
	assert_line --index 0 'State=IDLE+DRAIN'
	assert_line --index 1 --regexp '^Reason=maintenance \[root@'
	scontrol update NodeName="$NODE" State=RESUME
	wait_node '^State=IDLE$'
	# cannot check (the watcher's state unreadable): said, nothing
	# drained, the port down notwithstanding. A check that began before
	# the garbage (no state, so none asked for) may read the port after it
	# went down, and drain: two whole checks run first, the second begun
	# after the garbage, and every one after it.
	echo garbage >"$STATE"
	n=$(checks)
	wait_checks "$n" 2
	ip link set dummy0 down
	wait_port_state DOWN
	n=$(checks)
	wait_checks "$n" 2
	run -0 grep -c "^ibvevent-healthcheck: $NODE: cannot check the RDMA ports (status 3): ibv_eventwatch: /var/lib/ibvevent/metrics.state:1: not a metrics state line\$" "$S/syslog"
	[ "$output" -ge 1 ]
	run -0 state
	assert_output 'State=IDLE'
	# the state readable again: the port down drains
	rm "$STATE"
	wait_node '^Reason=ibvevent: rxe0/1 DOWN \[root@'
}

@test "Slurm: three flaps of rxe0 in the watcher's state drain the node, with the spec file's flaps<=2" {
	echo 'rxe0/1 flaps<=2' >"$S/etc/ibvevent/ports.spec"
	start_watch --metrics-file "$S/rdma.prom" --metrics-state "$STATE"
	wait_file "$STATE"
	n=$(checks)
	wait_checks "$n" 1
	run -0 state
	assert_output 'State=IDLE'
	flap 3
	wait_node '^Reason=ibvevent: rxe0/1 3 flaps \[root@'
	run -0 state
	assert_line --index 0 --regexp '^State=IDLE\+DRAIN$'
	# the operator lifts the limit: healthy, returned to service
	echo 'rxe0/1' >"$S/etc/ibvevent/ports.spec"
	wait_node '^State=IDLE$'
}
