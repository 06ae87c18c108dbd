#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Smoke test of the soft-RoCE guest itself, with rdma-core's own tools:
# if these fail, nothing else in test/rxe can be trusted. Then which of
# rdma-core's providers our programs load to list the devices.

load ../test_helper

setup() {
	ibve_setup
	require_guest
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	restore_rxe
	return $rc
}

@test "ibv_devices lists rxe0" {
	run ibv_devices
	assert_success
	assert_output --regexp $'\n[[:space:]]+rxe0[[:space:]]+[0-9a-f]{16}'
}

@test "ibv_devinfo shows rxe0 port 1 PORT_ACTIVE" {
	run ibv_devinfo -d rxe0 -i 1
	assert_success
	assert_output --regexp 'state:[[:space:]]+PORT_ACTIVE \(4\)'
	assert_output --regexp 'link_layer:[[:space:]]+Ethernet'
}

@test "ibv_asyncwatch sees PORT_ERR then PORT_ACTIVE on a link flap" {
	start_asyncwatch
	ip link set dummy0 down
	wait_for "$AOUT" 'IBV_EVENT_PORT_ERR'
	ip link set dummy0 up
	wait_for "$AOUT" 'IBV_EVENT_PORT_ACTIVE'
	bg_stop asyncwatch 143
	run -0 grep -o 'IBV_EVENT_PORT_[A-Z]*' "$AOUT"
	assert_output $'IBV_EVENT_PORT_ERR\nIBV_EVENT_PORT_ACTIVE'
}

# The provider libraries (lib<name>-rdmav<N>.so) a command opened, by
# strace, one name a line, sorted: what it loaded, not what it says.
# The command's own status is returned.
providers_opened() {
	local trace=$BATS_TEST_TMPDIR/providers.trace rc=0
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:detect_leaks=0} \
		strace -f -o "$trace" -e trace=openat "$@" \
		>"$BATS_TEST_TMPDIR/providers.out" || rc=$?
	grep -o 'lib[a-z0-9_]*-rdmav[0-9]*\.so", O_RDONLY[^)]*) = [0-9]' "$trace" |
		sed 's/-rdmav.*//' | sort -u
	return $rc
}

# A command prefix: a mount namespace whose libibverbs configuration
# (/etc/libibverbs.d) is one file, $IBVE_CONF_FILE, holding $IBVE_CONF.
# shellcheck disable=SC2016 # expanded by that sh
WITH_CONF=(unshare -m sh -c 'mount -t tmpfs ibve-conf /etc/libibverbs.d &&
	printf "%s\n" "$IBVE_CONF" >"/etc/libibverbs.d/$IBVE_CONF_FILE" &&
	exec "$@"' sh)

@test "the watcher loads only the provider its devices need (rxe), where ibv_devinfo loads them all" {
	run providers_opened ibv_eventwatch -l
	assert_success
	assert_output librxe
	run -0 grep -c '^rxe0 ' "$BATS_TEST_TMPDIR/providers.out"
	assert_output 1
	run providers_opened ibv_eventwatch -t 0.1 -q
	assert_success
	assert_output librxe
	run providers_opened ibv_eventtop -b -n 1
	assert_success
	assert_output librxe
	# the reference: libibverbs left to itself opens every provider
	run -0 providers_opened ibv_devinfo -l
	[ "${#lines[@]}" -gt 5 ]
	assert_line librxe
}

@test "a provider the configuration names, blanks and comments around, is still the only one loaded" {
	export IBVE_CONF_FILE=rxe.driver IBVE_CONF=$'# soft-RoCE\n\n  driver\trxe  '
	run providers_opened "${WITH_CONF[@]}" ibv_eventwatch -l
	assert_success
	assert_output librxe
	run -0 grep -c '^rxe0 ' "$BATS_TEST_TMPDIR/providers.out"
	assert_output 1
	# loaded before libibverbs looked: it never read its configuration
	run -1 grep -c '"/etc/libibverbs.d", O_RDONLY' "$BATS_TEST_TMPDIR/providers.trace"
	assert_output 0
}

@test "a provider libibverbs' configuration leaves out is not loaded either" {
	export IBVE_CONF_FILE=mlx5.driver IBVE_CONF="driver mlx5"
	# the reference: so configured, libibverbs has no provider for rxe0
	run "${WITH_CONF[@]}" ibv_devices
	assert_success
	refute_output --partial rxe0
	run providers_opened "${WITH_CONF[@]}" ibv_eventwatch -l
	assert_failure 3
	assert_line 'ibv_eventwatch: no RDMA devices found'
	refute_line librxe
	assert_line libmlx5
}

@test "a provider the configuration names by path is loaded from that path alone" {
	local own=$BATS_TEST_TMPDIR/vendor sys
	# where libibverbs is, and its providers beside it
	sys=$(ldd "$(command -v ibv_devices)" |
		sed -n 's/.*libibverbs\.so\.1 => \(.*\) (0x.*/\1/p')
	mkdir -p "$own"
	cp "$(dirname "$sys")"/libibverbs/librxe-rdmav*.so "$own/"
	export IBVE_CONF_FILE=rxe.driver IBVE_CONF="driver $own/librxe"
	run providers_opened "${WITH_CONF[@]}" ibv_eventwatch -l
	assert_success
	run -0 grep -c '^rxe0 ' "$BATS_TEST_TMPDIR/providers.out"
	assert_output 1
	# opened from the configured path, never from libibverbs' directory
	run -0 grep -c "\"$own/librxe-rdmav[0-9]*\\.so\", O_RDONLY[^)]*) = [0-9]" \
		"$BATS_TEST_TMPDIR/providers.trace"
	assert_output 1
	run -1 grep -c '/libibverbs/librxe-rdmav[0-9]*\.so", O_RDONLY[^)]*) = [0-9]' \
		"$BATS_TEST_TMPDIR/providers.trace"
	assert_output 0
}

@test "with RDMAV_DRIVERS set, libibverbs loads the providers itself" {
	RDMAV_DRIVERS=rxe run providers_opened ibv_eventwatch -l
	assert_success
	[ "${#lines[@]}" -gt 5 ]
	run -0 grep -c '^rxe0 ' "$BATS_TEST_TMPDIR/providers.out"
	assert_output 1
}

@test "where the providers are not beside libibverbs, libibverbs loads them itself" {
	local own=$BATS_TEST_TMPDIR/lib sys
	# the system's libibverbs, copied alone: the preload looks for the
	# providers beside it, finds none, and leaves all to libibverbs
	sys=$(ldd "$(command -v ibv_devices)" |
		sed -n 's/.*libibverbs\.so\.1 => \(.*\) (0x.*/\1/p')
	mkdir -p "$own"
	cp "$sys" "$own/libibverbs.so.1"
	LD_LIBRARY_PATH=$own run providers_opened ibv_eventwatch -l
	assert_success
	[ "${#lines[@]}" -gt 5 ]
	assert_line librxe
	run -0 grep -c '^rxe0 ' "$BATS_TEST_TMPDIR/providers.out"
	assert_output 1
	# it was the copy that was used, and the preload tried beside it
	run -0 grep -c "\"$own/libibverbs\.so\.1\", O_RDONLY[^)]*) = [0-9]" \
		"$BATS_TEST_TMPDIR/providers.trace"
	run -0 grep -c "\"$own/libibverbs/librxe-rdmav[0-9]*\.so\", O_RDONLY[^)]*) = -1 ENOENT" \
		"$BATS_TEST_TMPDIR/providers.trace"
}

@test "with 40 devices: every one listed, the rxe provider alone loaded" {
	local i want
	for i in $(seq 1 39); do
		ip link add "pdum$i" type dummy
		rdma link add "prxe$i" type rxe netdev "pdum$i"
	done
	want=$(ibv_devices | awk 'NR > 2 { print $1 }' | sort)
	run providers_opened ibv_eventwatch -l
	for i in $(seq 1 39); do
		rdma link delete "prxe$i"
		ip link delete "pdum$i"
	done
	assert_success
	assert_output librxe
	run -0 sh -c "sed -n 's/^\([a-z0-9]\{1,\}\) .*/\1/p' '$BATS_TEST_TMPDIR/providers.out' | sort"
	assert_output "$want"
	[ "${#lines[@]}" -eq 40 ]
}
