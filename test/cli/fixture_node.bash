# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# A node of a test's own for what soft-RoCE cannot show (several devices
# and ports, InfiniBand ports with their rates, names of 63 characters),
# as root: in a mount namespace, /usr/local laid out as make install fills
# it from this build (the programs, the library, share/ibvevent/slurm and
# npd), /sys/class holding only infiniband/ with ports copied from
# test/sysfs: files written by hand in the kernel's formats
# (test/sysfs/README.md), not captured from a device and not a device;
# and in /etc and /var/lib the test's directories ($R/etc/*,
# $R/varlib/*: /etc/ibvevent/ports.spec, /var/lib/ibvevent/metrics.state,
# where the shipped files look). What a real port can show is tested on
# soft-RoCE in the guest (test/rxe/node.bash).

# node_setup: $R; skips where a node cannot be made
node_setup() {
	[ "$(id -u)" = 0 ] || skip "a node of the test's own needs root (mount namespaces)"
	command -v unshare >/dev/null || skip "unshare is not installed (util-linux)"
	R=$BATS_TEST_TMPDIR/node
	mkdir -p "$R/class/infiniband" "$R/etc/ibvevent" "$R/varlib/ibvevent" "$R/work"
}

# port DEV N FIXTURE: port N of DEV in the node's sysfs, a copy of
# test/sysfs/FIXTURE (ib-port1: ACTIVE 100 Gb/s, ib-port2-down: DOWN)
port() {
	local d=$R/class/infiniband/$1
	mkdir -p "$d/ports"
	rm -rf "${d:?}/ports/$2"
	cp -r "$TOP/test/sysfs/$3" "$d/ports/$2"
	echo 0002:c903:0001:0002 >"$d/node_guid"
}

# installed CMD...: CMD on the node
installed() {
	# shellcheck disable=SC2016 # the inner shell's
	unshare -m --propagation private -- sh -c '
		set -e
		install_node=$1 b=$2 r=$3
		shift 3
		"$install_node" "$b"
		mount --bind "$r/class" /sys/class
		# the test changes its files while the node runs: bound
		# into overlays of their own, never their upper directories
		u=$(mktemp -d "$r/work/upper.XXXXXX")
		for d in etc var/lib; do
			mkdir -p "$u/$d/upper" "$u/$d/work"
			mount -t overlay overlay -o "lowerdir=/$d,upperdir=$u/$d/upper,workdir=$u/$d/work" "/$d"
		done
		for d in "$r"/etc/* "$r"/varlib/*; do
			t=/${d#"$r"/}
			t=${t#/varlib}
			case $d in "$r"/varlib/*) t=/var/lib$t ;; esac
			mkdir -p "$t"
			mount --bind "$d" "$t"
		done
		exec "$@"' sh "$TOP/test/install-node" "$BUILD" "$R" "$@"
}
