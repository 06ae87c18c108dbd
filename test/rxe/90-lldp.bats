#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The LLDP peer of a RoCE port: rxel on one end of a veth pair, whose other
# end lives in a network namespace with an lldpd of its own (the "switch",
# its own control socket), and our lldpd on the default socket. What the
# watcher says of the peer must be what lldpcli says of the neighbour.
# One kernel, the ASan guest's (make check): the peer comes from lldpd over
# a veth, not from the RDMA stack.

load ../test_helper

NS=ibve-lldp
PEER_NAME=leaf-sw7
PEER_DESC='leaf-sw7 port 12'

setup() {
	ibve_setup
	require_guest
	command -v lldpd >/dev/null || skip "no lldpd (make deps installs it)"
	# where lldpd's unprivileged half can reach it (not the test's 0700
	# directory)
	PEER_SOCK=/run/ibve-lldp-peer.sock
	mkdir -p /run/lldpd # its privilege separation's chroot
	ip netns add "$NS"
	ip link add lldp0 type veth peer name lldp1
	ip link set lldp1 netns "$NS"
	ip -n "$NS" link set lldp1 up
	ip link set lldp0 up
	bg_start peer 0 ip netns exec "$NS" lldpd -d -u "$PEER_SOCK" -I lldp1
	until_ok 60 ip netns exec "$NS" lldpcli -u "$PEER_SOCK" show configuration
	peer_cli configure system hostname "$PEER_NAME"
	peer_cli configure ports lldp1 lldp portdescription "$PEER_DESC"
	peer_cli configure lldp tx-interval 1
	rdma link add rxel type rxe netdev lldp0
	wait_port_state ACTIVE rxel
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	rdma link delete rxel 2>/dev/null || true
	ip link del lldp0 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	rm -f /run/lldpd.socket "$PEER_SOCK"
	return $rc
}

peer_cli() {
	ip netns exec "$NS" lldpcli -u "$PEER_SOCK" "$@" >/dev/null
}

# until_ok SECONDS CMD...: until CMD succeeds, at most SECONDS.
until_ok() {
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		if [ $SECONDS -ge $end ]; then
			echo "# '$*' did not succeed within the deadline" >&3
			for f in "${BG_ERR[@]}"; do sed 's/^/#   /' "$f" >&3; done
			return 1
		fi
		sleep 0.1
	done
}

# Our lldpd on lldp0 (the default socket, the library's), until it heard
# the peer with its name and port description (the peer told to send
# again each time, as a loaded guest once waited past 60 s for it in
# bench/guest); then what lldpcli says of it: system name, chassis id,
# port id, port description, a line each.
start_our_lldpd() {
	bg_start lldpd 0 lldpd -d -I lldp0
	until_ok 60 lldpcli show configuration
	lldpcli configure lldp tx-interval 1 >/dev/null
	until_ok 120 heard "$PEER_NAME" "$PEER_DESC"
	NEIGHBOUR=$(lldpcli show neighbors -f json | jq -r '
		.lldp.interface.lldp0 |
		(.chassis | to_entries[0] | .key, .value.id.value),
		.port.id.value, .port.descr')
}

heard() {
	peer_cli update && neighbour_is "$@"
}

neighbour_is() {
	lldpcli show neighbors -f json | jq -e --arg n "$1" --arg d "$2" '
		.lldp.interface.lldp0 | (.chassis | has($n)) and .port.descr == $d'
}

# PEER: the peer of JSON (a record, a listed port) as four lines, the
# fields lldpcli shows, after its kind and state.
peer_of() {
	jq -r '.peer | "\(.kind) \(.state)", .name, .chassis, .port_id, .port_desc'
}

@test "-l -j names rxel's LLDP neighbour exactly as lldpcli does; -l says it in a word" {
	start_our_lldpd
	run --separate-stderr ibv_eventwatch -l -j -d rxel
	assert_success
	assert_equal "$stderr" ''
	run -0 peer_of <<<"$(jq -c '.ports[0]' <<<"$output")"
	assert_output "lldp known
$NEIGHBOUR"
	run --separate-stderr ibv_eventwatch -l -d rxel
	assert_success
	assert_line --regexp "^    port 1  .*  peer $PEER_NAME\[[0-9a-f:]+\]  netdev lldp0\$"
}

@test "the records of rxel's port events carry its LLDP peer" {
	start_our_lldpd
	start_watch -j -d rxel -e port
	# two flaps: by the second, the lookup after the start is long done
	for i in 1 2; do
		ip link set lldp0 down
		wait_for "$WOUT" '"event":"PORT_ERR"' 30
		wait_port_state DOWN rxel
		ip link set lldp0 up
		wait_count "$WOUT" '"event":"PORT_ACTIVE"' "$i" 30
	done
	bg_stop watch 0
	run -0 jq -c 'select(.event == "PORT_ERR")' "$WOUT"
	assert_equal "${#lines[@]}" 2
	run -0 peer_of <<<"${lines[1]}"
	assert_output "lldp known
$NEIGHBOUR"
	# every port record says whose peer it is
	run -0 jq -r '.peer.kind' "$WOUT"
	refute_line --regexp '^(null|ib)$'
	# the same neighbour all along: no change said
	run -0 jq -r '.peer.changed' "$WOUT"
	refute_line true
	[ "$(cat "$WERR")" = "$(head -n 1 "$WERR")" ] ||
		fail "the watcher said more than watching: $(cat "$WERR")"
}

@test "without lldpd's socket the watcher runs as before and says nothing; the peer is unknown" {
	start_watch -j -d rxel
	ip link set lldp0 down
	wait_for "$WOUT" '"event":"PORT_ERR"' 30
	bg_stop watch 0
	assert_equal "$(wc -l <"$WERR")" 1
	# the record as before: nothing known, no peer
	run -0 jq -r '.peer // "no peer"' "$WOUT"
	assert_output 'no peer'
	run --separate-stderr ibv_eventwatch -l -j -d rxel
	assert_success
	assert_equal "$stderr" ''
	assert_equal "$(jq -r '.ports[0].peer.state' <<<"$output")" unknown
}

@test "when lldpd's socket refuses, the watcher runs and says once that peers are unknown" {
	# what a dead lldpd leaves: its socket, nobody behind it
	python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' /run/lldpd.socket
	start_watch -j -d rxel
	want='ibv_eventwatch: peers of RoCE ports are unknown: lldpd at /run/lldpd.socket: Unable to connect to lldpd daemon'
	wait_for "$WERR" 'peers of RoCE ports'
	# a PORT_ACTIVE asks again, and is not said again
	ip link set lldp0 down
	wait_for "$WOUT" '"event":"PORT_ERR"' 30
	ip link set lldp0 up
	wait_for "$WOUT" '"event":"PORT_ACTIVE"' 30
	bg_stop watch 0
	run -0 grep -c 'peers of RoCE' "$WERR"
	assert_output 1
	run -0 grep 'peers of RoCE' "$WERR"
	assert_output "$want"
	run --separate-stderr ibv_eventwatch -l -d rxel
	assert_success
	assert_equal "$stderr" "$want"
}
