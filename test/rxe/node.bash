# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# The guest as a node where ibvevent is installed, for what runs the
# shipped scheduler files (share/slurm, share/npd): its port is the real
# soft-RoCE one (rxe0); only the files a test writes are its own. The
# guest's root is the host's, read-only: they lie under $S, in /run.

# node_setup: $S (its directories) and $STATE (the watcher's state file, as
# the node sees it at /var/lib/ibvevent/metrics.state)
node_setup() {
	require_guest
	S=/run/ibvevent-node
	rm -rf "$S"
	mkdir -p "$S/etc/slurm" "$S/etc/ibvevent" "$S/varlib/ibvevent" "$S/ovl"
	# shellcheck disable=SC2034 # for the test files
	STATE=$S/varlib/ibvevent/metrics.state
}

# node CMD...: CMD on the node, in a mount namespace of its own:
# /usr/local a tmpfs holding what make install puts there from this build
# (test/install-node, as on the host's nodes), over /etc and
# /var/lib overlays where /etc/slurm, /etc/ibvevent (the spec file) and
# /var/lib/ibvevent (the watcher's state) are $S/etc/slurm,
# $S/etc/ibvevent and $S/varlib/ibvevent, and cgroup2 on /sys/fs/cgroup
# for slurmd's cgroup/v2 plugin (without systemd: system.slice made, the
# controllers enabled; IgnoreSystemd=yes in cgroup.conf). The device, its
# sysfs and the rest of the guest are the guest's own. With NODE_EXEC
# set, CMD replaces the caller (for bg_start: its pid is CMD's).
node() {
	# shellcheck disable=SC2016 # the inner shell's
	${NODE_EXEC:+exec} unshare -m --propagation private -- sh -c '
		set -e
		install_node=$1 b=$2 s=$3
		shift 3
		"$install_node" "$b"
		# the test changes its files while the node runs: bound
		# into overlays of their own, never their upper directories
		for d in etc var/lib; do
			mkdir -p "$s/ovl/$d/upper" "$s/ovl/$d/work"
			mount -t overlay overlay \
				-o "lowerdir=/$d,upperdir=$s/ovl/$d/upper,workdir=$s/ovl/$d/work" "/$d"
		done
		mkdir -p /etc/slurm /etc/ibvevent /var/lib/ibvevent
		mount --bind "$s/etc/slurm" /etc/slurm
		mount --bind "$s/etc/ibvevent" /etc/ibvevent
		mount --bind "$s/varlib/ibvevent" /var/lib/ibvevent
		mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup
		mkdir -p /sys/fs/cgroup/system.slice
		echo "+cpu +memory +pids" >/sys/fs/cgroup/cgroup.subtree_control
		exec "$@"' sh "$TOP/test/install-node" "$BUILD" "$S" "$@"
}

# flap N: rxe0/1 down and back up N times (its netdev's link), each
# state seen
flap() {
	local i
	for ((i = 0; i < $1; i++)); do
		ip link set dummy0 down
		wait_port_state DOWN || fail "rxe0/1 not DOWN"
		ip link set dummy0 up
		wait_port_state ACTIVE || fail "rxe0/1 not ACTIVE"
	done
}
