# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# The README's section "For operators", followed on the packages of
# 56-package.bats: its fenced blocks, in order, as root in that test's
# sandbox (a mount namespace whose /usr, /etc and /var are throwaway
# overlays; a PID namespace, so that nothing started outlives the walk),
# on a node whose ports are test/sysfs's files (written in the
# kernel's formats, not a device) bound over /sys/class: mlx5_0 port 1
# ACTIVE InfiniBand at 100 Gb/s, port 2 DOWN. A "sh" block runs as a
# script; a "console" block's "# " lines are commands whose output must
# be the lines after them; an "ini" block's paths must be there (its
# HealthCheckProgram runnable); a "yaml" block is a prometheus.yml that
# promtool checks. Where the sandbox has no such thing, a stand-in named
# here does the command's part:
#   make deb        setup_file ran it (build/ is that build);
#   systemctl enable --now
#                   the real systemctl enables (it works without a running
#                   systemd), then the unit's ExecStart is started as
#                   systemd starts it (its state and runtime directories
#                   made as for a DynamicUser);
#   kubectl apply -f the DaemonSet's pod: npd_pod below;
# and the system's journald is a real one started in the sandbox, its
# journal holding a stored capture replayed by the tree's watcher (the
# node's past events). Findings go to $REPORT, one a line: "ok: ..." or
# "FAIL: ...", and the node problem detector's "npd: ..." lines.

OP_PATH=/usr/sbin:/usr/bin:/sbin:/bin

# readme_blocks README DIR: the fenced blocks of README's section "For
# operators" into DIR, one file a block, NN.LANG, in order.
readme_blocks() {
	awk -v dir="$2" '
		/^## / { sec = ($0 == "## For operators") }
		!sec { next }
		/^```/ {
			if (f == "") {
				lang = substr($0, 4)
				f = sprintf("%s/%02d.%s", dir, ++n, lang == "" ? "text" : lang)
				printf "" >f
			} else {
				close(f)
				f = ""
			}
			next
		}
		f != "" { print >f }' "$1"
}

say() {
	echo "$*" >>"$REPORT"
}

# node_port N FIXTURE: port N of the node's mlx5_0, test/sysfs/FIXTURE
node_port() {
	local d=$OP_WORK/class/infiniband/mlx5_0
	mkdir -p "$d/ports"
	rm -rf "${d:?}/ports/$1"
	cp -r "$OP_TOP/test/sysfs/$2" "$d/ports/$1"
	echo 0002:c903:0001:0002 >"$d/node_guid"
}

# bg NAME CMD...: CMD in the background, its stderr in WORK/NAME.err,
# its pid in WORK/NAME.pid and, once it ends, its status in
# WORK/NAME.status (whoever started it: a block's shell ends first)
bg() {
	local name=$1 end=$((SECONDS + 30))
	shift
	(
		"$@" </dev/null >/dev/null 2>"$OP_WORK/$name.err" &
		echo $! >"$OP_WORK/$name.pid.new"
		mv "$OP_WORK/$name.pid.new" "$OP_WORK/$name.pid"
		wait $!
		echo $? >"$OP_WORK/$name.status"
	) </dev/null >/dev/null 2>&1 &
	until [ -s "$OP_WORK/$name.pid" ]; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.05
	done
}

# standins: the stand-ins (see the top of the file), defined for the
# walk's shell alone: sourced by the test, "make" would be this one
# shellcheck disable=SC2317 # called by the blocks
standins() {
	make() {
		if [ "$*" != deb ] || [ ! -s build/deb/lintian.log ]; then
			echo "make stand-in: make $*: not the build setup_file made" >&2
			return 1
		fi
	}

	systemctl() {
		local unit=/lib/systemd/system/ibv_eventwatch.service exec
		[ "$*" = "enable --now ibv_eventwatch" ] ||
			{ echo "systemctl stand-in: systemctl $*: not one it knows" >&2; return 1; }
		command systemctl enable ibv_eventwatch || return
		if ! grep -qx 'DynamicUser=yes' "$unit" || ! grep -qx 'StateDirectory=ibvevent' "$unit" ||
			! grep -qx 'RuntimeDirectory=ibvevent' "$unit"; then
			echo "systemctl stand-in: $unit: not the directories it makes" >&2
			return 1
		fi
		mkdir -p /var/lib/private/ibvevent /run/ibvevent
		[ -L /var/lib/ibvevent ] || ln -s private/ibvevent /var/lib/ibvevent
		exec=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$unit" | sed 's/^ExecStart=//' | tr -d '\\\n')
		# shellcheck disable=SC2086 # the unit's words, no quoting in them
		bg service $exec || return
		# started: its metrics and its state written
		local end=$((SECONDS + 30))
		until [ -s /run/ibvevent/rdma.prom ] && [ -s /var/lib/ibvevent/metrics.state ]; do
			[ "$SECONDS" -lt "$end" ] || { echo "systemctl stand-in: the service wrote nothing in 30 s" >&2; return 1; }
			sleep 0.1
		done
	}

	kubectl() {
		if [ $# != 3 ] || [ "$1 $2" != "apply -f" ]; then
			echo "kubectl stand-in: kubectl $*: not one it knows" >&2
			return 1
		fi
		npd_pod "$3"
	}
}

# npd_plan MANIFEST DIR: the DaemonSet's pod, as lines for npd_pod: "cmd
# ARG" (its container's command), "mount HOST PATH ro|rw" (a hostPath
# volume), "file FILE PATH" (a ConfigMap key, written to DIR with the
# volume's mode); and "kinds ..." and "role ..." for the report.
npd_plan() {
	python3 - "$1" "$2" <<'PY'
import os, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
print("kinds", " ".join(sorted(d["kind"] for d in docs)))
by = {(d["kind"], d["metadata"]["name"]): d for d in docs}
ds = next(d for d in docs if d["kind"] == "DaemonSet")
pod = ds["spec"]["template"]["spec"]
sa = pod["serviceAccountName"]
crb = next(d for d in docs if d["kind"] == "ClusterRoleBinding")
subjects = [s["name"] for s in crb["subjects"] if s["kind"] == "ServiceAccount"]
print("role", crb["roleRef"]["name"], "for", sa,
      "bound" if sa in subjects and ("ServiceAccount", sa) in by else "unbound")
c, = pod["containers"]
for a in c["command"] + c.get("args", []):
    print("cmd", a)
vols = {v["name"]: v for v in pod["volumes"]}
for m in sorted(c["volumeMounts"], key=lambda m: m["mountPath"]):
    v = vols[m["name"]]
    if "hostPath" in v:
        print("mount", v["hostPath"]["path"], m["mountPath"], "ro" if m.get("readOnly") else "rw")
    else:
        cm = by[("ConfigMap", v["configMap"]["name"])]
        key = m["subPath"]
        f = os.path.join(sys.argv[2], key)
        with open(f, "w") as out:
            out.write(cm["data"][key])
        os.chmod(f, v["configMap"].get("defaultMode", 0o644))
        print("file", f, m["mountPath"])
PY
}

# npd_rules CONFIG: each rule of the custom plugin monitor CONFIG (a path
# in the pod), run as the detector runs it in the pod: its path and args,
# within its timeout, in the pod's file system; "npd: CONDITION status S
# output 'OUT'" (standard output: the condition's message).
npd_rules() {
	local cfg=$OP_POD$1 i n cond path t out st
	local -a args
	n=$(jq '.rules | length' "$cfg") || { say "FAIL: npd: $1: not in the pod"; return; }
	for ((i = 0; i < n; i++)); do
		cond=$(jq -r ".rules[$i].condition" "$cfg")
		path=$(jq -r ".rules[$i].path" "$cfg")
		t=$(jq -r ".rules[$i].timeout" "$cfg")
		mapfile -t args < <(jq -r ".rules[$i].args[]" "$cfg")
		st=0
		out=$(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			timeout -k 1 "${t%s}" chroot "$OP_POD" "$path" "${args[@]}" 2>"$OP_WORK/npd.err") || st=$?
		say "npd: $cond status $st output '$out'"
		[ ! -s "$OP_WORK/npd.err" ] || say "npd: $cond stderr: $(cat "$OP_WORK/npd.err")"
	done
}

# npd_pod MANIFEST: the pod of the DaemonSet on this node. Its image is
# busybox's sh and chroot (the detector's image is Debian's, whose shell
# and chroot these stand for), the volumes mounted as the manifest says;
# the custom plugin monitor's rules are run (npd_rules) with the node
# healthy and with its port 1 down, and the journal monitor's log is read
# for the entries of its source.
npd_pod() {
	local plan=$OP_WORK/npd.plan k a b c
	OP_POD=$OP_WORK/pod
	mkdir -p "$OP_POD" "$OP_WORK/cm"
	npd_plan "$1" "$OP_WORK/cm" >"$plan" || { say "FAIL: npd: $1 does not parse"; return 1; }
	grep -E '^(kinds|role) ' "$plan" | sed 's/^/npd: /' >>"$REPORT"
	mount -t tmpfs tmpfs "$OP_POD"
	mkdir -p "$OP_POD/bin" "$OP_POD/usr/sbin"
	cp /bin/busybox "$OP_POD/bin/"
	ln -s busybox "$OP_POD/bin/sh"
	ln -s ../../bin/busybox "$OP_POD/usr/sbin/chroot"
	while read -r k a b c; do
		case $k in
		mount)
			mkdir -p "$OP_POD$b"
			mount --rbind "$a" "$OP_POD$b"
			[ "$c" != ro ] || mount -o remount,bind,ro "$OP_POD$b"
			;;
		file)
			mkdir -p "$(dirname "$OP_POD$b")"
			: >"$OP_POD$b"
			mount --bind "$a" "$OP_POD$b"
			;;
		esac
	done <"$plan"
	local custom log src
	custom=$(sed -n 's/^cmd --config\.custom-plugin-monitor=//p' "$plan")
	log=$(sed -n 's/^cmd --config\.system-log-monitor=//p' "$plan")
	say "npd: healthy"
	npd_rules "$custom"
	node_port 1 ib-port2-down
	say "npd: port 1 down"
	npd_rules "$custom"
	node_port 1 ib-port1
	# the journal monitor: its log, in the pod, holds its source's entries
	src=$(jq -r .pluginConfig.source "$OP_POD$log")
	say "npd: journal $(journalctl -D "$OP_POD$(jq -r .logPath "$OP_POD$log")" -o cat \
		"SYSLOG_IDENTIFIER=$src" 2>&1 | grep -c ' event=PORT_ERR ') PORT_ERR entries of $src"
	umount -R "$OP_POD"
}

# run_block FILE: one block, as the section's header says
run_block() {
	local f=$1 name out st cmd want got
	name=$(basename "$f")
	out=$OP_WORK/out/$name
	case $f in
	*.sh)
		st=0
		(cd "$OP_WORK/tree" && yes | bash -e -o pipefail "$f") >"$out" 2>&1 || st=$?
		if [ $st = 0 ]; then say "ok: $name"; else say "FAIL: $name: status $st: $(tr '\n' '|' <"$out")"; fi
		;;
	*.console)
		cmd='' want=''
		while IFS= read -r l; do
			if [[ $l == "# "* ]] || [ -z "$l" ]; then
				if [ -n "$cmd" ]; then
					got=$(cd "$OP_WORK/tree" && bash -o pipefail -c "$cmd" 2>&1 </dev/null)
					if [ "$got" = "${want%$'\n'}" ]; then say "ok: $name: $cmd"
					else say "FAIL: $name: $cmd: printed '$got', not '${want%$'\n'}'"; fi
				fi
				[ -n "$l" ] || break
				cmd=${l#"# "} want=''
			else
				want+=$l$'\n'
			fi
		done < <(cat "$f"; echo)
		;;
	*.ini)
		while IFS='=' read -r k a; do
			case $a in /*) [ -e "$a" ] || say "FAIL: $name: $k=$a: no such file" ;; esac
			[ "$k" != HealthCheckProgram ] || [ -x "$a" ] || say "FAIL: $name: $a: not executable"
		done <"$f"
		say "ok: $name"
		;;
	*.yaml)
		cp "$f" "$OP_WORK/prometheus.yml"
		st=0
		promtool check config "$OP_WORK/prometheus.yml" >"$out" 2>&1 || st=$?
		say "$( [ $st = 0 ] && echo ok || echo FAIL): $name: promtool: $(grep -oE '(SUCCESS|FAILED).*' "$out" | tr '\n' '|')"
		;;
	*) say "FAIL: $name: a block of no kind the walk knows" ;;
	esac
}

# stop NAME STATUS: SIGTERM to NAME (bg), which must end within 10 s
# with STATUS; "ended: NAME STATUS"
stop() {
	local pid st end=$((SECONDS + 10))
	pid=$(cat "$OP_WORK/$1.pid") || { say "FAIL: $1 never started"; return; }
	kill "$pid" 2>/dev/null
	until [ -s "$OP_WORK/$1.status" ]; do
		if [ $SECONDS -ge $end ]; then
			kill -KILL "$pid"
			say "FAIL: $1 did not end within 10 s"
			return
		fi
		sleep 0.05
	done
	st=$(cat "$OP_WORK/$1.status")
	if [ "$st" = "$2" ]; then say "ended: $1 $st"
	else say "FAIL: $1 ended with status $st, not $2: $(tr '\n' '|' <"$OP_WORK/$1.err")"; fi
}

# walk WORK TOP BUILD NEPORT: the section's blocks (WORK/blocks) on the
# packages (WORK/tree/build/deb) in the sandbox (WORK/ns), and what the
# text says of them checked after; node_exporter on port NEPORT.
walk() {
	OP_WORK=$1 OP_TOP=$2
	local build=$3 neport=$4 f
	REPORT=$OP_WORK/report
	export OP_WORK OP_TOP REPORT PATH=$OP_PATH
	standins
	export -f say bg node_port make systemctl kubectl npd_plan npd_rules npd_pod
	mkdir -p "$OP_WORK/ns" "$OP_WORK/out"
	sandbox "$OP_WORK/ns" || { say "FAIL: the sandbox"; return 1; }
	# man-db's trigger re-indexes every page (seconds, read by nothing here)
	rm -f /var/lib/man-db/auto-update
	node_port 1 ib-port1
	node_port 2 ib-port2-down
	mount --bind "$OP_WORK/class" /sys/class
	# the system's journald, with the node's past events
	mkdir -p /run/systemd /run/log
	bg journald /lib/systemd/systemd-journald
	local end=$((SECONDS + 30))
	until [ -S /run/systemd/journal/socket ]; do
		[ $SECONDS -lt $end ] || { say "FAIL: journald made no socket in 30 s"; return 1; }
		sleep 0.05
	done
	# to /var/log/journal, as systemd-journal-flush.service has it at boot
	journalctl --flush
	"$build/bin/ibv_eventwatch" -q -r "$OP_TOP/test/captures/ib-fabric.jsonl" --journal >/dev/null ||
		say "FAIL: the capture's replay into the journal"
	journalctl --sync
	# the tree the operator builds in, and NHC's directory as its
	# package makes it
	mkdir -p "$OP_WORK/tree" /etc/nhc/scripts
	ln -s "$OP_WORK/b" "$OP_WORK/tree/build"
	for f in "$OP_WORK"/blocks/*; do
		run_block "$f"
	done
	after_walk "$neport"
	stop service 0
	say "service stderr: $(tr '\n' '|' <"$OP_WORK/service.err")"
	stop journald 0
}

# after_walk NEPORT: what the text says the commands did
after_walk() {
	local p st
	# every path of the install the section names is there
	while read -r p; do
		[ -e "$p" ] || say "FAIL: the section names $p, which is not there"
	done < <(grep -oE '/(usr|etc/ibvevent|run/ibvevent|var/lib/ibvevent)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' \
		"$OP_WORK/section" | sort -u)
	say "service: $(tr '\0' ' ' <"/proc/$(cat "$OP_WORK/service.pid")/cmdline" 2>/dev/null | sed 's/ $//')"
	say "service: $(readlink /etc/systemd/system/multi-user.target.wants/ibv_eventwatch.service)"
	# NHC runs the nhc.conf line's check with its die (NHC's contract)
	st=0
	p=$(sed -n 's/^\* || //p' /etc/nhc/nhc.conf)
	(
		# shellcheck disable=SC2317 # called by the check
		die() { say "nhc: die $*"; }
		# shellcheck disable=SC1091 # installed by the walk
		. /etc/nhc/scripts/ibvevent.nhc
		eval "$p"
	) 2>>"$REPORT" || st=$?
	say "nhc: $p returned $st"
	# node_exporter as Debian's package runs it (its default textfile
	# directory), only its textfile collector, on a port of the test's
	bg node_exporter prometheus-node-exporter --web.listen-address="127.0.0.1:$1" \
		--collector.disable-defaults --collector.textfile
	local end=$((SECONDS + 30))
	until curl -fs -o "$OP_WORK/metrics" "http://127.0.0.1:$1/metrics"; do
		[ $SECONDS -lt $end ] || { say "FAIL: node_exporter did not answer in 30 s"; break; }
		sleep 0.1
	done
	say "node_exporter: $(grep -cE '^ibvevent_build_info\{' "$OP_WORK/metrics") build_info, $(grep '^node_textfile_scrape_error' "$OP_WORK/metrics")"
	stop node_exporter 143
}
