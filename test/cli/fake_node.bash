# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# A node of a test's own, as root: in a mount namespace, /usr/local laid
# out as make install fills it from this build (the programs, the library,
# share/ibvevent/slurm and npd), /sys/class holding only infiniband/ with
# ports of test/sysfs, and in /etc and /var/lib the test's directories
# ($R/etc/*, $R/varlib/*: /etc/ibvevent/ports.spec,
# /var/lib/ibvevent/metrics.state, where the shipped files look).

# node_setup: $R, $STATE; skips where a node cannot be made
node_setup() {
	[ "$(id -u)" = 0 ] || skip "a node of the test's own needs root (mount namespaces)"
	command -v unshare >/dev/null || skip "unshare is not installed (util-linux)"
	R=$BATS_TEST_TMPDIR/node
	mkdir -p "$R/class/infiniband" "$R/etc/ibvevent" "$R/varlib/ibvevent" "$R/work"
	STATE=$R/varlib/ibvevent/metrics.state
}

# port DEV N FIXTURE: port N of DEV in the fake sysfs, a copy of
# test/sysfs/FIXTURE (ib-port1: ACTIVE 100 Gb/s, ib-port2-down: DOWN)
port() {
	local d=$R/class/infiniband/$1
	mkdir -p "$d/ports"
	rm -rf "${d:?}/ports/$2"
	cp -r "$TOP/test/sysfs/$3" "$d/ports/$2"
	echo 0002:c903:0001:0002 >"$d/node_guid"
}

# installed CMD...: CMD on the fake node; with NODE_LOG set (a datagram
# socket), /dev is a tmpfs of its own whose log is that socket
installed() {
	# shellcheck disable=SC2016 # the inner shell's
	${NODE_EXEC:+exec} unshare -m --propagation private -- sh -c '
		set -e
		b=$1 r=$2 l=$3
		shift 3
		mount -t tmpfs tmpfs /usr/local
		mkdir -p /usr/local/bin /usr/local/lib /usr/local/share/ibvevent
		cp "$b"/bin/ibv_event* /usr/local/bin/
		cp -P "$b"/lib/libibvevent.so* /usr/local/lib/
		cp -r "$b"/share/slurm "$b"/share/npd /usr/local/share/ibvevent/
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
		if [ -n "$l" ]; then
			mount -t tmpfs tmpfs /dev
			mknod -m 666 /dev/null c 1 3
			mknod -m 666 /dev/zero c 1 5
			mknod -m 666 /dev/random c 1 8
			mknod -m 666 /dev/urandom c 1 9
			ln -s /proc/self/fd /dev/fd
			ln -s "$l" /dev/log
		fi
		exec "$@"' sh "$BUILD" "$R" "${NODE_LOG:-}" "$@"
}

# redate CAPTURE [N]: the first N records of CAPTURE (all), moved in time so
# that the last was a minute ago
redate() {
	head -n "${2:-100000}" "$1" | jq -c -s --argjson to "$(($(date +%s) - 60))" '
		def secs: sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601;
		(.[-1].time | secs) as $last |
		.[] | .time |= (secs - $last + $to | todate)'
}

# history CAPTURE [N]: the watcher's state after it replayed the first N
# records of CAPTURE, dated to end a minute ago, in /var/lib/ibvevent
history() {
	local cap=$BATS_TEST_TMPDIR/${1##*/}
	not_output "$cap"
	redate "$1" "${2:-}" >"$cap"
	rm -f "$STATE"
	ibv_eventwatch -q -r "$cap" --metrics-file "$BATS_TEST_TMPDIR/m.prom" \
		--metrics-state "$STATE" >/dev/null
}

