#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The Prometheus rules (share/prometheus/ibvevent.rules.yml.in): promtool
# checks them and tests the alerts on series that ibv_eventwatch wrote while
# captures were replayed (test/alerts/); a real Prometheus loads them; the
# man page has a runbook for each alert, which make install renders to
# HTML beside the rules, their links pointing at it under RUNBOOK_URL
# (the install of every data file: 02-library.bats).

load ../test_helper

# The rules as an install writes them, with an https base of a site's.
export RUNBOOK_URL=https://runbooks.example.org/rdma

setup_file() {
	make -s -C "$BATS_TEST_DIRNAME/../.." install DESTDIR="$BATS_FILE_TMPDIR/root" \
		PREFIX=/usr RUNBOOK_URL="$RUNBOOK_URL" >/dev/null
}

setup() {
	ibve_setup
	INSTALLED=$BATS_FILE_TMPDIR/root/usr/share/ibvevent
	RULES=$INSTALLED/ibvevent.rules.yml
	[ -s "$RULES" ] || fail "make install wrote no $RULES"
}

need() {
	command -v "$1" >/dev/null || skip "$1 is not installed (make deps installs it)"
}

# generate: $T, the promtool test with its series from the replays, made
# once for the file (a minute of replays).
generate() {
	T=$BATS_FILE_TMPDIR/ibvevent.rules.test.yml
	[ -s "$T" ] && return 0
	run --separate-stderr "$TOP/test/alerts/promtool-test" \
		"$TOP/test/alerts/ibvevent.rules.test.yml" "$RULES"
	assert_success
	[ -z "$stderr" ] || fail "promtool-test said: $stderr"
	printf '%s\n' "$output" >"$T"
}

# The alerts' names, from the rules file.
alert_names() {
	sed -n 's/^ *- alert: *\([A-Za-z]*\) *$/\1/p' "$RULES"
}

# ids: the anchors of an HTML page, one a line.
ids() {
	grep -o ' id="[^"]*"' "$1" | sed 's/^ id="\(.*\)"$/\1/'
}

@test "promtool check rules accepts the rules file" {
	need promtool
	run promtool check rules "$RULES"
	assert_success
	assert_output --partial 'SUCCESS: 17 rules found'
}

@test "promtool test rules: each alert fires when its cause is in the replayed series, and not otherwise" {
	need promtool
	generate
	# every alert of the file is asserted firing somewhere
	for a in $(alert_names); do
		grep -A 3 "alertname: $a\$" "$T" | grep -q 'exp_labels' ||
			fail "$a is never asserted firing"
	done
	run promtool test rules "$T"
	assert_success
	assert_output --partial SUCCESS
}

@test "RdmaPortDownHardware: every cause of the autopsy's table but those whose verdict is a warning, and its runbook names each" {
	# the table's causes by severity, as the man page's generated table
	# (test/cli/03-generated.bats) has them
	table() {
		sed -n '/^\.Sh LINK AUTOPSY$/,/^\.Sh /s/^\.It Cm \([a-z_]*\) Pq \([a-z]*\)$/\2 \1/p' \
			"$TOP/man/ibv_eventwatch.1"
	}
	[ "$(table | wc -l)" -ge 7 ] || fail "no table of causes: $(table)"
	warnings=$(table | awk '$1 == "warning" { print $2 }' | paste -sd '|')
	assert_equal "$warnings" "administrative|unknown"
	# each selector of the alert leaves out exactly those
	run -0 sed -n '/- alert: RdmaPortDownHardware$/,/- alert:/{/labels:/q;p}' "$RULES"
	grep -o 'ibvevent_port_down_total{[^}]*}' <<<"$output" | sort -u >"$BATS_TEST_TMPDIR/sel"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/sel")" "ibvevent_port_down_total{cause!~\"$warnings\"}"
	# its runbook has a line for each other cause, in the table's order
	assert_equal "$(sed -n '/^\.Ss RdmaPortDownHardware$/,/^\.Ss /s/^\.It Cm \([a-z_]*\)$/\1/p' "$TOP/man/ibv_eventwatch.1")" \
		"$(table | awk '$1 != "warning" { print $2 }')"
}

@test "the series are the watcher's: counts per minute as in the capture, stale when the watcher stops" {
	generate
	# the first test's (the fleet's) series of that name
	values() {
		grep -A 1 -F -- "- series: '$1'" "$T" | sed -n "s/^ *values: '\(.*\)'$/\1/p" | head -n 1
	}
	# node1's PORT_ERR on mlx5_0/1, counted with jq minute by minute
	# from 10:00 to 12:00; none before the first
	origin=$(date -u -d 2026-05-04T10:00:00Z +%s)
	want=$(jq -r 'select(.device == "mlx5_0" and .port == 1 and .event == "PORT_ERR") |
		.time | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601' \
		"$CAPTURES/fleet-node1.jsonl" |
		awk -v o="$origin" '{ t[NR] = $1 } END {
			for (i = 0; i <= 120; i++) {
				n = 0
				for (j = 1; j <= NR; j++) if (t[j] <= o + 60 * i) n++
				printf "%s%s", i ? " " : "", n ? n : "_"
			}
		}')
	assert_equal "$(values 'ibvevent_events_total{instance="node1",job="node",device="mlx5_0",port="1",event="PORT_ERR",severity="error"}')" "$want"
	# its state: ACTIVE, then DOWN from 10:21 to 10:40 and from 11:31
	got=$(values 'ibvevent_port_state{instance="node1",job="node",device="mlx5_0",port="1"}')
	read -ra v <<<"$got"
	assert_equal "${#v[@]}" 121
	assert_equal "${v[0]} ${v[1]} ${v[20]} ${v[21]} ${v[40]} ${v[41]} ${v[90]} ${v[91]} ${v[120]}" \
		"_ 4 4 1 1 4 4 1 1"
	# times count from the origin: the SM_CHANGE of 10:50:30 is at 3030 s
	got=$(values 'ibvevent_last_event_timestamp_seconds{instance="node1",job="node",device="mlx5_0",port="1",event="SM_CHANGE"}')
	assert_equal "$(cut -d' ' -f 51-52 <<<"$got")" "_ 3030.000"
	# node3's watcher stops at 11:05 and starts again at 11:20
	got=$(values 'ibvevent_build_info{instance="node3",job="node",version="'"$(ibv_eventwatch -V | awk '{ print $2 }')"'",mlx5="'"$(ibv_eventwatch -V | sed -n 's/.*mlx5 DEVX events: \([a-z]*\)[,)].*/\1/p')"'"}')
	assert_equal "$(cut -d' ' -f 65-68,80-82 <<<"$got")" "1 stale _ _ _ 1 1"
}

@test "a real Prometheus loads the rules; each alert has a severity, a summary, a description and its runbook in the man page" {
	need prometheus
	port=$(free_port)
	cat >"$BATS_TEST_TMPDIR/prometheus.yml" <<YML
global:
  evaluation_interval: 1s
rule_files: ['$RULES']
YML
	bg_start prometheus 0 prometheus --config.file="$BATS_TEST_TMPDIR/prometheus.yml" \
		--storage.tsdb.path="$BATS_TEST_TMPDIR/tsdb" \
		--web.listen-address="127.0.0.1:$port" </dev/null >/dev/null
	wait_http "http://127.0.0.1:$port/-/ready" 60 ||
		fail "Prometheus never got ready: $(tail -n 3 "${BG_ERR[prometheus]}")"
	rules() {
		curl -fs "http://127.0.0.1:$port/api/v1/rules" | jq -c '.data.groups[].rules[]'
	}
	# every rule evaluated without error
	end=$((SECONDS + 60))
	until [ "$(rules | jq -r .health | sort -u)" = ok ]; do
		[ $SECONDS -lt $end ] || fail "rules not healthy: $(rules | jq -c 'select(.health != "ok") | {name, health, lastError}')"
		sleep 0.2
	done
	output=$(rules)
	assert_equal "$(jq -s length <<<"$output")" 17
	alerts=$(jq -r 'select(.type == "alerting") | .name' <<<"$output" | sort)
	assert_equal "$(wc -l <<<"$alerts")" 10
	assert_equal "$alerts" "$(alert_names | sort)"
	jq -e -s 'map(select(.type == "alerting")) | all(
		(.labels.severity == "critical" or .labels.severity == "warning") and
		(.annotations.summary | length > 0) and
		(.annotations.description | test("\\$labels")) and
		.annotations.runbook_url == "'"$RUNBOOK_URL"'/runbook.html#" + .name)' <<<"$output" ||
		fail "an alert lacks a field: $(jq -c 'select(.type == "alerting") | {name, labels, annotations}' <<<"$output")"
	# the runbooks: the subsections of ALERTS, one per alert, in order
	subs=$(sed -n '/^\.Sh ALERTS$/,/^\.Sh /s/^\.Ss //p' "$TOP/man/ibv_eventwatch.1")
	assert_equal "$subs" "$(alert_names)"
	# and each is named in the README's list
	for a in $(alert_names); do
		grep -q "^| \`$a\` |" "$TOP/README.md" || fail "README.md does not list $a"
	done
}

@test "each alert's runbook_url is RUNBOOK_URL/runbook.html#ALERT, an anchor of the installed page, over its runbook" {
	html=$INSTALLED/runbook.html
	[ -s "$html" ] || fail "make install wrote no $html"
	ids "$html" >"$BATS_TEST_TMPDIR/ids"
	n=0
	while read -r url; do
		n=$((n + 1))
		case $url in
		"$RUNBOOK_URL/runbook.html#"?*) ;;
		*) fail "runbook_url $url is not under $RUNBOOK_URL/runbook.html#" ;;
		esac
		grep -qxF "${url#*#}" "$BATS_TEST_TMPDIR/ids" || fail "$url: no such anchor in $html"
	done < <(sed -n 's/^ *runbook_url: "\(.*\)"$/\1/p' "$RULES")
	assert_equal "$n" "$(alert_names | wc -l)"
	# the anchor heads the alert's own runbook: the man page's subsection
	for a in $(alert_names); do
		grep -q "<h2 class=\"Ss\" id=\"$a\">" "$html" || fail "$a is not a subsection of $html"
	done
	first=$(sed -n '/^\.Ss RdmaPortDown$/{n;p;q}' "$TOP/man/ibv_eventwatch.1")
	grep -qF "$first" "$html" || fail "the runbook of RdmaPortDown lacks: $first"
	# the paths it names are the installation's (PREFIX=/usr), not the
	# manual page's default
	run -0 grep -o '<span class="Pa">[^<]*/share/ibvevent/*</span>' "$html"
	assert_output '<span class="Pa">/usr/share/ibvevent/</span>'$'\n''<span class="Pa">file:///usr/share/ibvevent</span>'
	run -1 grep -n /usr/local "$html"
	# each section the runbook refers to is on the page
	grep -o 'href="#[^"]*"' "$html" | sed 's/^href="#\(.*\)"$/\1/' | sort -u |
		while read -r id; do
			grep -qxF "$id" "$BATS_TEST_TMPDIR/ids" || fail "$html links to #$id, not on the page"
		done
}

@test "by default the rules point at the installed page; RUNBOOK_URL must be an http(s) or file URL" {
	env -u RUNBOOK_URL make -s -C "$TOP" install DESTDIR="$BATS_TEST_TMPDIR/root" \
		PREFIX=/opt/ibve >/dev/null
	run -0 sed -n 's/^ *runbook_url: "\(.*\)#RdmaPortDown"$/\1/p' \
		"$BATS_TEST_TMPDIR/root/opt/ibve/share/ibvevent/ibvevent.rules.yml"
	assert_output "file:///opt/ibve/share/ibvevent/runbook.html"
	# and the page says so
	run -0 grep -c '<span class="Pa">file:///opt/ibve/share/ibvevent</span>' \
		"$BATS_TEST_TMPDIR/root/opt/ibve/share/ibvevent/runbook.html"
	for bad in ftp://x.example/rb https://x.example/rb/ 'https://x.example/a b' \
		'https://x.example/a|b' runbooks; do
		run --separate-stderr make -s -C "$TOP" install DESTDIR="$BATS_TEST_TMPDIR/bad" \
			PREFIX=/usr RUNBOOK_URL="$bad"
		assert_failure
		assert_equal "${stderr%%$'\n'*}" "make: RUNBOOK_URL=$bad: not an http://, https:// or file:// URL without a trailing slash"
		[ ! -e "$BATS_TEST_TMPDIR/bad" ] || fail "RUNBOOK_URL=$bad: installed $(find "$BATS_TEST_TMPDIR/bad" -type f)"
	done
}
