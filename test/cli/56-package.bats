#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The Debian packages (debian/, make deb): built once for the file, lintian
# finds no error in them; installed, they put every file where make install
# and the man page put it, the programs run on the packaged library, the
# catalog reaches journalctl; purged, they leave nothing behind. On them,
# the README's section for operators is followed command by command
# (operator.bash), its Kubernetes DaemonSet's pod included.
#
# They are installed in a mount namespace of the test's own (unshare -m)
# whose /usr, /etc and /var are overlays with their upper layers on a tmpfs,
# and whose /run is an empty tmpfs (no systemd is seen running, so none is
# asked to reload or start anything): dpkg writes only into the overlays,
# which go when the namespace ends, and the host's system is never
# touched. The soft-RoCE guest would need the same overlays on its
# read-only view of the host's root and a qemu besides, for no more.

load ../test_helper

setup_file() {
	[ "$(id -u)" = 0 ] || skip "installing a package needs root (mount namespaces, dpkg)"
	local c
	for c in dpkg-buildpackage dh lintian unshare; do
		command -v "$c" >/dev/null || skip "$c is not installed (make deps installs it)"
	done
	DEBS=$BATS_FILE_TMPDIR/b/deb
	local start=$SECONDS
	# as many jobs as asked for, one more than the CPUs: not what
	# dpkg-buildpackage's default (-jauto) would run
	DEB_BUILD_OPTIONS=parallel=$(($(nproc) + 1)) \
		make -s -C "$BATS_TEST_DIRNAME/../.." deb B="$BATS_FILE_TMPDIR/b" \
		>"$BATS_FILE_TMPDIR/deb.log" 2>&1 ||
		fail "make deb failed: $(tail -n 20 "$BATS_FILE_TMPDIR/deb.log")"
	echo "# make deb (build and lintian): $((SECONDS - start)) s" >&3
}

setup() {
	ibve_setup
	DEBS=$BATS_FILE_TMPDIR/b/deb
	MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	# shellcheck disable=SC2016 # a make expression
	VERSION=$(make -s -C "$TOP" --eval 'version: ; @echo $(VERSION)' version)
	ARCH=$(dpkg --print-architecture)
}

@test "make deb builds the programs, the library and its -dev package with DEB_BUILD_OPTIONS's jobs; lintian reports no error" {
	# the packages' version is the Makefile's
	run -0 dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version
	assert_output "$VERSION"
	for p in ibvevent libibvevent0 libibvevent-dev; do
		[ -f "$DEBS/${p}_${VERSION}_$ARCH.deb" ] ||
			fail "no package $p in $DEBS: $(ls "$DEBS")"
	done
	# make deb ran lintian (and fails on an error): its report
	run -0 cat "$DEBS/lintian.log"
	refute_line --regexp '^E: '
	# the tree it was built from is as it was: the build was a copy's
	[ ! -e "$TOP/debian/build" ] || fail "make deb left $TOP/debian/build"
	[ ! -e "$TOP/debian/tmp" ] || fail "make deb left $TOP/debian/tmp"
	[ ! -e "$DEBS/ibvevent-$VERSION" ] || fail "make deb left its copy of the tree"
	# the build and the install ran with DEB_BUILD_OPTIONS's parallel=N
	# (setup_file), as debhelper printed them
	run -0 grep -oE '^	make -j[0-9]* ' "$BATS_FILE_TMPDIR/deb.log"
	n=$(($(nproc) + 1))
	assert_output "	make -j$n "$'\n'"	make -j$n "
}

# sandbox NS: lay the overlays over /usr, /etc and /var (their upper
# layers on a tmpfs at NS, the systems' own trees bound at NS/DIR.lower)
# and an empty tmpfs over /run, in the mount namespace this runs in.
sandbox() {
	local d
	mount -t tmpfs tmpfs "$1"
	for d in usr etc var; do
		mkdir "$1/$d.lower" "$1/$d.upper" "$1/$d.work"
		mount --bind "/$d" "$1/$d.lower"
		mount -t overlay overlay \
			-o "lowerdir=/$d,upperdir=$1/$d.upper,workdir=$1/$d.work" "/$d"
	done
	mount -t tmpfs tmpfs /run
}

# changes NS: what the overlays hold that the system did not, but dpkg's
# own records, logs and caches (and man-db's switch, turned off below): "left: PATH" for a path that was not
# there, "gone: PATH" for one removed (a whiteout).
changes() {
	local d p
	for d in usr etc var; do
		(cd "$1/$d.upper" && find . -mindepth 1) | while read -r p; do
			p=${p#./}
			case /$d/$p in
			/var/lib/dpkg/* | /var/log/* | /var/cache/* | /var/lib/man-db/auto-update) continue ;;
			esac
			if [ -c "$1/$d.upper/$p" ] && [ "$(stat -c %t:%T "$1/$d.upper/$p")" = 0:0 ]; then
				echo "gone: /$d/$p"
			elif [ ! -e "$1/$d.lower/$p" ] && [ ! -L "$1/$d.lower/$p" ]; then
				echo "left: /$d/$p"
			fi
		done
	done
}

# in_sandbox WORK EXPECTED ID DEB...: install the DEBs, report, purge them,
# report (WORK/ns: the overlays' tmpfs). EXPECTED: the files make install
# writes (paths, one a line; a manual page may be compressed); ID: a
# MESSAGE_ID of the catalog. Each finding is one line: "missing: PATH" (a
# file of EXPECTED not installed, or not by a package), "run: ...",
# "catalog: ...", "status: ...", and after the purge what changes says.
in_sandbox() {
	local work=$1 expected=$2 id=$3 p f
	shift 3
	mkdir "$work/ns"
	sandbox "$work/ns" || { echo "sandbox: cannot lay the overlays"; return 1; }
	# man-db's trigger re-indexes every manual page (seconds, and nothing
	# this test reads): off, as its documented switch allows
	rm -f /var/lib/man-db/auto-update
	journalctl --list-catalog 2>/dev/null | grep -ci "^$id" >"$work/catalog.before"
	dpkg -i "$@" >"$work/dpkg.log" 2>&1 || { echo "dpkg -i failed:"; cat "$work/dpkg.log"; return 1; }
	for p in ibvevent libibvevent0 libibvevent-dev; do
		echo "status: $p $(dpkg-query -W -f '${db:Status-Abbrev}' "$p")"
		dpkg -L "$p" >>"$work/owned"
		dpkg-query -W -f '${Conffiles}\n' "$p" | awk 'NF { print "conffile: " $1 }'
	done
	# what make install writes, each on disk and in a package (/lib is
	# /usr/lib: merged /usr)
	while read -r f; do
		case $f in /usr/share/man/*) [ -e "$f" ] || f=$f.gz ;; esac
		[ -e "$f" ] || [ -L "$f" ] || { echo "missing: $f"; continue; }
		grep -qxF -e "$f" -e "${f#/usr}" "$work/owned" || echo "missing: $f (in no package)"
	done <"$expected"
	echo "run: $(env -i /usr/bin/ibv_eventwatch -V 2>&1 | head -n 1)"
	echo "run: $(realpath "$(ldd /usr/bin/ibv_eventwatch | awk '$1 == "libibvevent.so.0" { print $3 }')")"
	echo "run: $(readelf -d /usr/bin/ibv_eventwatch | grep -cE 'RPATH|RUNPATH') rpath"
	# the optional libraries it loads by name: LLDP peers built in
	echo "run: loads $(grep -ao 'liblldpctl\.so\.[0-9]*' "$(realpath /usr/lib/*/libibvevent.so.0)" | head -n 1)"
	echo "run: pkg-config $(pkg-config --modversion libibvevent 2>&1)"
	# shellcheck disable=SC2046 # pkg-config's words
	echo "run: $(printf '#include <ibvevent.h>\n' |
		cc -fsyntax-only -x c - $(pkg-config --cflags libibvevent) 2>&1 && echo header compiles)"
	echo "run: enabled $(readlink /etc/systemd/system/multi-user.target.wants/ibv_eventwatch.service)"
	echo "catalog: $(journalctl --list-catalog 2>/dev/null | grep -ci "^$id") after install, $(cat "$work/catalog.before") before"
	# the service's state, as systemd keeps it for a DynamicUser
	mkdir -p /var/lib/private/ibvevent
	echo '{}' >/var/lib/private/ibvevent/metrics.state
	ln -s private/ibvevent /var/lib/ibvevent
	dpkg --purge libibvevent-dev ibvevent libibvevent0 >>"$work/dpkg.log" 2>&1 ||
		{ echo "dpkg --purge failed:"; cat "$work/dpkg.log"; return 1; }
	for p in ibvevent libibvevent0 libibvevent-dev; do
		echo "status: $p $(dpkg-query -W -f '${db:Status-Abbrev}' "$p" 2>/dev/null)after purge"
	done
	echo "catalog: $(journalctl --list-catalog 2>/dev/null | grep -ci "^$id") after purge"
	changes "$work/ns"
}

@test "installed: every file where make install and the man page put it; ibv_eventwatch -V runs; purged: nothing left" {
	work=$BATS_TEST_TMPDIR/work
	mkdir -p "$work"
	# what make install writes for a system installation
	make -s -C "$TOP" install DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/usr \
		LIBDIR="/usr/lib/$MULTIARCH" >/dev/null
	(cd "$BATS_TEST_TMPDIR/root" && find . ! -type d | sed 's/^\.//' | sort) >"$work/expected"
	[ "$(wc -l <"$work/expected")" -ge 30 ] || fail "make install wrote: $(cat "$work/expected")"
	# and the paths the man page names (FILES; the schemas under the data
	# directory), as a package installs them: PREFIX=/usr
	sed -n '/^\.Sh FILES$/,/^\.Sh /s/^\.It Pa \(\/[^ ]*\).*/\1/p' "$TOP/man/ibv_eventwatch.1" |
		sed 's|^/usr/local/|/usr/|' | grep -v '^/run/' >"$work/man"
	sed -n '/^\.Sh FILES$/,/^\.Sh /s/^\.It Pa \([a-z-]*\.schema\.json\)$/\/usr\/share\/ibvevent\/schema\/\1/p' \
		"$TOP/man/ibv_eventwatch.1" >>"$work/man"
	[ "$(wc -l <"$work/man")" -ge 6 ] || fail "the man page's FILES: $(cat "$work/man")"
	sort -u "$work/man" "$work/expected" -o "$work/expected"
	id=$(sed -n 's/^-- \([0-9a-f]\{32\}\)$/\1/p' "$BUILD/ibvevent.catalog" | head -n 1)
	[ -n "$id" ] || fail "no MESSAGE_ID in $BUILD/ibvevent.catalog"
	debs=()
	for p in ibvevent libibvevent0 libibvevent-dev; do
		debs+=("$DEBS/${p}_${VERSION}_$ARCH.deb")
	done
	run -0 unshare -m --propagation private bash -c \
		"set -u; $(declare -f sandbox changes in_sandbox); in_sandbox \"\$@\"" _ \
		"$work" "$work/expected" "$id" "${debs[@]}"
	refute_line --partial 'missing: '
	# the one file in /etc, the example spec, is the administrator's
	assert_equal "$(grep '^conffile: ' <<<"$output")" 'conffile: /etc/ibvevent/ports.spec.example'
	for p in ibvevent libibvevent0 libibvevent-dev; do
		assert_line "status: $p ii "
		assert_line "status: $p after purge"
	done
	# every source built in, on the packaged library
	assert_line "run: ibv_eventwatch $VERSION (libibvevent $VERSION; mlx5 DEVX events: yes, all processes (eBPF): yes)"
	assert_line "run: /usr/lib/$MULTIARCH/libibvevent.so.0"
	assert_line "run: 0 rpath"
	assert_line "run: loads liblldpctl.so.4"
	assert_line "run: pkg-config $VERSION"
	assert_line "run: header compiles"
	assert_line "run: enabled /lib/systemd/system/ibv_eventwatch.service"
	# systemd's trigger ran journalctl --update-catalog, on install and purge
	assert_line "catalog: 1 after install, 0 before" ||
		fail "(a host whose catalog has ibvevent's entries already cannot tell the package's)"
	assert_line "catalog: 0 after purge"
	refute_line --partial 'left: '
	refute_line --partial 'gone: '
}

@test "the README's section for operators, followed on the packages: every command runs and does what it says" {
	for c in apt-get promtool prometheus-node-exporter busybox journalctl curl jq; do
		command -v "$c" >/dev/null || skip "$c is not installed (make deps installs it)"
	done
	python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed (make deps installs it)"
	[ -x /lib/systemd/systemd-journald ] || skip "systemd-journald is not installed (make deps installs systemd)"
	load operator
	work=$BATS_TEST_TMPDIR/op
	mkdir -p "$work/blocks"
	awk '/^## / { s = ($0 == "## For operators") } s' "$TOP/README.md" >"$work/section"
	readme_blocks "$TOP/README.md" "$work/blocks"
	run -0 ls "$work/blocks"
	assert_output "$(printf '%s\n' 01.sh 02.sh 03.console 04.ini 05.console 06.sh 07.sh 08.sh \
		09.yaml 10.sh)"
	# the packages the build needs: Build-Depends (debhelper-compat is
	# debhelper's), build-essential, and what make deb runs besides
	sed -n '/^Build-Depends:/,/^[A-Z][a-z-]*: /{ /^Build-Depends:/b; /^[A-Z]/d; p; }' \
		"$TOP/debian/control" >"$work/bd"
	sed -n 's/^Build-Depends: *//p' "$TOP/debian/control" >>"$work/bd"
	tr ',' '\n' <"$work/bd" | sed 's/([^)]*)//; s/ //g; /^$/d; s/^debhelper-compat$/debhelper/' |
		{ cat; printf '%s\n' build-essential dpkg-dev lintian; } | sort -u >"$work/needed"
	[ "$(wc -l <"$work/needed")" -ge 15 ] || fail "$(cat "$work/needed")"
	sed -n '1,/[^\\]$/p' "$work/blocks/01.sh" | tr -d '\\\n' |
		sed 's/^apt-get install --no-upgrade //' | tr -s ' ' '\n' | sort -u >"$work/named"
	diff -u "$work/needed" "$work/named"
	ln -s "$BATS_FILE_TMPDIR/b" "$work/b"
	run -0 unshare -m --propagation private --pid --fork --mount-proc --kill-child bash -c \
		"set -u; $(declare -f sandbox); source '$BATS_TEST_DIRNAME/operator.bash'; walk \"\$@\"" _ \
		"$work" "$TOP" "$BUILD" "$(free_port)"
	assert_output ''
	run -0 cat "$work/report"
	refute_line --partial 'FAIL'
	# each block ran
	for b in 01.sh 02.sh 04.ini 06.sh 07.sh 08.sh 10.sh; do assert_line "ok: $b"; done
	assert_line 'ok: 03.console: ibv_eventwatch --check || echo "status $?"'
	assert_line 'ok: 03.console: ibv_eventwatch --check --spec-file /etc/ibvevent/ports.spec && echo fit'
	assert_line 'ok: 05.console: /usr/share/ibvevent/slurm/ibvevent-healthcheck --check-only && echo fit'
	assert_line --regexp '^ok: 09.yaml: promtool: SUCCESS: 1 rule files found\|.*\|SUCCESS: [1-9][0-9]* rules found\|$'
	# the service runs the unit's command, enabled
	assert_line 'service: /usr/bin/ibv_eventwatch --quiet --journal --autopsy --metrics-file /run/ibvevent/rdma.prom --metrics-state /var/lib/ibvevent/metrics.state'
	assert_line 'service: /lib/systemd/system/ibv_eventwatch.service'
	# NHC's check passes on the healthy node
	assert_line 'nhc: check_ibvevent_ports /etc/ibvevent/ports.spec returned 0'
	refute_line --partial 'nhc: die'
	# the DaemonSet's pod: each rule 0 on the healthy node, 1 with one line
	# of 80 characters at most when a port is down; its journal monitor
	# sees the watcher's entries
	assert_line 'npd: kinds ClusterRoleBinding ConfigMap DaemonSet ServiceAccount'
	assert_line 'npd: role system:node-problem-detector for ibvevent-npd bound'
	# shellcheck disable=SC2016 # sed's
	run -0 sed -n '/^npd: healthy$/,$p' "$work/report"
	assert_equal "$(sed -n '2,3p' <<<"$output")" \
		"npd: RdmaPortProblem status 0 output ''"$'\n'"npd: RdmaPortFlapping status 0 output ''"
	assert_equal "$(sed -n '4,6p' <<<"$output")" \
		"npd: port 1 down"$'\n'"npd: RdmaPortProblem status 1 output 'mlx5_0/1 DOWN'"$'\n'"npd: RdmaPortFlapping status 0 output ''"
	assert_line --regexp '^npd: journal [1-9][0-9]* PORT_ERR entries of ibv_eventwatch$'
	refute_line --partial 'npd: RdmaPort.* stderr'
	# node_exporter publishes the service's metrics
	assert_line 'node_exporter: 1 build_info, node_textfile_scrape_error 0'
	# what each one left running ended as it should
	assert_line 'ended: node_exporter 143'
	assert_line 'ended: service 0'
	# with no device yet (none here: no verbs device), it waits for them
	assert_line 'service stderr: ibv_eventwatch: no RDMA devices yet: waiting for them to appear|'
	assert_line 'ended: journald 0'
	# the journal, explained
	run -0 cat "$work/out/10.sh"
	assert_line --regexp ' ibv_eventwatch\[[0-9]+\]: device=mlx5_0 port=1 event=PORT_ERR severity=error '
	assert_line --partial 'What to do: The link is down.'
}
