# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# A systemd-journald of the test's own, for what --journal writes: in a
# mount namespace of its own (tmpfs over /run/systemd, /run/log and
# /var/log/journal; cgroup2 where none is mounted, as in the guest, since
# journald needs one), read back with journalctl there. Loaded by
# test/cli/16-journal.bats on the host and test/rxe/40-allprocesses.bats
# in the guest.

JOURNALD=/lib/systemd/systemd-journald

need_ns() {
	[ "$(id -u)" = 0 ] || skip "a journald of the test's own needs root (mount namespaces)"
	if ! command -v unshare >/dev/null || ! command -v nsenter >/dev/null; then
		skip "unshare and nsenter are not installed (util-linux)"
	fi
}

need_journald() {
	need_ns
	[ -x "$JOURNALD" ] || skip "systemd-journald is not installed (make deps installs systemd)"
	command -v journalctl >/dev/null || skip "journalctl is not installed (make deps installs systemd)"
}

# Run a command in the journal's mount namespace, with journald's root and
# working directory (entering a mount namespace would put it at the
# namespace's root: in the guest, the harness's, not the host's that the
# guest chroots to). For bg_start, "${IN_NS[@]}" CMD: nsenter execs CMD,
# so the pid is CMD's (a function would be a subshell's).
in_ns() {
	"${IN_NS[@]}" "$@"
}

# journal_start: systemd-journald in a mount namespace of its own (JPID);
# ready when its socket is there. bg_stop journald stops it (status 0).
journal_start() {
	local end=$((SECONDS + 30))
	need_journald
	# shellcheck disable=SC2016 # expanded by that shell
	bg_start journald 0 unshare -m --propagation private -- sh -c '
		mkdir -p /run/systemd && mount -t tmpfs tmpfs /run/systemd &&
		mkdir -p /run/log && mount -t tmpfs tmpfs /run/log &&
		{ [ ! -d /var/log/journal ] || mount -t tmpfs tmpfs /var/log/journal; } &&
		{ mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup; } &&
		exec "$0"' "$JOURNALD" </dev/null >/dev/null
	JPID=$BG_LAST
	IN_NS=(nsenter -t "$JPID" -m --root --wd --)
	# journald itself (the mounts are made) with its socket
	until [ "$(cat "/proc/$JPID/comm" 2>/dev/null)" = systemd-journal ] &&
		in_ns test -S /run/systemd/journal/socket; do
		running "$JPID" || fail "journald ended: $(cat "${BG_ERR[journald]}")"
		[ $SECONDS -lt $end ] || fail "journald made no socket in 30 s"
		sleep 0.05
	done
}

# entries FILE N: the watcher's entries, as JSON Lines, into FILE once
# there are N of them (30 s).
entries() {
	local end=$((SECONDS + 30)) n
	while :; do
		in_ns journalctl --sync 2>/dev/null || true
		in_ns journalctl -a -o json --no-pager SYSLOG_IDENTIFIER=ibv_eventwatch >"$1"
		n=$(grep -c . "$1" || true)
		[ "$n" -lt "$2" ] || break
		[ $SECONDS -lt $end ] || fail "$n journal entries in 30 s, not $2"
		sleep 0.1
	done
	assert_equal "$n" "$2"
}
