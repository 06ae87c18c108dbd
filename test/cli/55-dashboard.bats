#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The Grafana dashboard (share/grafana/): its every query, run against a
# real Prometheus scraping three watchers that replay the fleet captures,
# returns series, and names only metrics a watcher exports; an import asks
# for the data source and uses the one picked.

# shellcheck disable=SC2016 # Grafana's variables, written as they are
load ../test_helper

DASH=$TOP/share/grafana/ibvevent-fleet.json

setup() {
	ibve_setup
	export TZ=UTC
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	exec 5>&- 6>&- 7>&- 2>/dev/null || true
	return $rc
}

need() {
	command -v "$1" >/dev/null || skip "$1 is not installed (make deps installs it)"
}

# queries: each query of the dashboard's panels, with Grafana's own
# variables given values Prometheus accepts.
queries() {
	jq -r '.panels[].targets[].expr' "$DASH" |
		sed -e 's/\$instance/.*/g' -e 's/\$__rate_interval/1m/g'
}

@test "the dashboard: a stable uid, a datasource variable, no id of one Grafana" {
	run -0 jq -e '.uid == "ibvevent-fleet" and .id == null' "$DASH"
	run -0 jq -e '[.templating.list[] | select(.type == "datasource" and .query == "prometheus")] | length == 1' "$DASH"
	# every panel, target and variable reads from the variable, none
	# from a datasource of one installation
	run -0 jq -r '[.. | objects | select(has("datasource")) | .datasource.uid] | unique | .[]' "$DASH"
	assert_output '${datasource}'
	run -0 jq -e '[.panels[] | select(has("id"))] | length == 0' "$DASH"
	run -0 jq -e '[.panels[] | .targets | length > 0] | all' "$DASH"
}

# What Grafana's import does with the dashboard's inputs (pkg/services/
# dashboardimport/utils/dash_template_evaluator.go): the value the user
# picked for each input in __inputs replaces its ${NAME} in every string.
@test "an import asks for the Prometheus data source (__inputs), and the one picked is the dashboard's" {
	run -0 jq -c '.__inputs' "$DASH"
	assert_output '[{"name":"DS_PROMETHEUS","label":"Prometheus","description":"The Prometheus that scrapes the watchers (node_exporter'"'"'s textfile or --metrics-listen)","type":"datasource","pluginId":"prometheus","pluginName":"Prometheus"}]'
	# imported with the data source of uid "prom-site-a"
	jq '(.. | strings) |= gsub("\\$\\{DS_PROMETHEUS\\}"; "prom-site-a") | del(.__inputs)' "$DASH" \
		>"$BATS_TEST_TMPDIR/imported.json"
	run -0 jq -r '[.. | strings | select(test("\\$\\{DS_"))] | length' "$BATS_TEST_TMPDIR/imported.json"
	assert_output 0
	# the datasource variable starts on it; every query reads the variable
	run -0 jq -r '.templating.list[] | select(.type == "datasource") | .current.value' \
		"$BATS_TEST_TMPDIR/imported.json"
	assert_output prom-site-a
	run -0 jq -r '[.. | objects | select(has("datasource")) | .datasource.uid] | unique | .[]' \
		"$BATS_TEST_TMPDIR/imported.json"
	assert_output '${datasource}'
}

@test "every query of the dashboard has series from watchers replaying the fleet, and names only their metrics" {
	need prometheus
	cfg=$BATS_TEST_TMPDIR/prometheus.yml
	printf 'global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: ibvevent\n    static_configs:\n      - targets:\n' >"$cfg"
	fd=5
	for n in 1 2 3; do
		fifo=$BATS_TEST_TMPDIR/node$n
		mkfifo "$fifo"
		eval "exec $fd<>\"\$fifo\""
		p=$(free_port)
		bg_start "node$n" 0 ibv_eventwatch -q -r - --metrics-listen ":$p" <"$fifo" >/dev/null
		cat "$CAPTURES/fleet-node$n.jsonl" >&"$fd"
		echo "          - 127.0.0.1:$p" >>"$cfg"
		ports[n]=$p
		fd=$((fd + 1))
	done
	# what the watchers export: the names of their families
	for n in 1 2 3; do
		wait_http "http://127.0.0.1:${ports[n]}/metrics" 60
		curl -fs "http://127.0.0.1:${ports[n]}/metrics" | awk '$1 == "#" && $2 == "TYPE" { print $3 }'
	done | sort -u >"$BATS_TEST_TMPDIR/exported"
	pp=$(free_port)
	prometheus_start "$pp" "$cfg"
	# three watchers, and two scrapes of each for rate() and increase()
	end=$((SECONDS + 120))
	until [ "$(prom_query "$pp" 'count(ibvevent_build_info)')" = 3 ] &&
		[ "$(prom_query "$pp" 'min(count_over_time(ibvevent_build_info[1m]))')" -ge 3 ] 2>/dev/null; do
		[ $SECONDS -lt $end ] || fail "Prometheus never scraped the three watchers: $(tail -n 3 "${BG_ERR[prometheus]}")"
		sleep 0.5
	done
	n=0
	while IFS= read -r q; do
		n=$((n + 1))
		got=$(curl -fsG "http://127.0.0.1:$pp/api/v1/query" --data-urlencode "query=$q" |
			jq '.data.result | length') || fail "Prometheus refused: $q"
		echo "# $got series: $q" >&3
		[ "$got" -ge 1 ] || fail "no series: $q"
		# what is left once strings, label matchers, label lists and
		# ranges are gone: PromQL's words and metric names
		for w in $(sed -E -e 's/"[^"]*"//g' -e 's/\{[^}]*\}//g' -e 's/\[[^]]*\]//g' \
			-e 's/(by|without|on|ignoring|group_left|group_right) *\([^)]*\)//g' <<<"$q" |
			grep -oE '[a-zA-Z_:][a-zA-Z0-9_:]*' || true); do
			case $w in
			count | sum | max | min | count_over_time | max_over_time | increase | rate | time | vector | and | or | unless) ;;
			*) grep -qx "$w" "$BATS_TEST_TMPDIR/exported" || fail "$w is no metric a watcher exports: $q" ;;
			esac
		done
	done < <(queries)
	[ "$n" -ge 10 ] || fail "only $n queries"
	# the variables: Grafana's label_values(METRIC, LABEL), which asks
	# Prometheus for LABEL's values on METRIC's series
	jq -r '.templating.list[] | select(.type == "query") | .definition' "$DASH" >"$BATS_TEST_TMPDIR/vars"
	[ -s "$BATS_TEST_TMPDIR/vars" ] || fail "the dashboard has no query variable"
	while IFS= read -r v; do
		[[ $v =~ ^label_values\(([a-z_]+),\ *([a-z_]+)\)$ ]] || fail "not label_values(METRIC, LABEL): $v"
		grep -qx "${BASH_REMATCH[1]}" "$BATS_TEST_TMPDIR/exported" || fail "${BASH_REMATCH[1]} is no metric a watcher exports"
		got=$(curl -fsG "http://127.0.0.1:$pp/api/v1/label/${BASH_REMATCH[2]}/values" \
			--data-urlencode "match[]=${BASH_REMATCH[1]}" | jq '.data | length')
		echo "# $got values: $v" >&3
		[ "$got" = 3 ] || fail "$got values, not the 3 watchers: $v"
	done <"$BATS_TEST_TMPDIR/vars"
	# the ports not ACTIVE, by name: the ports whose last link event in
	# the captures is PORT_ERR, counted from the captures themselves
	down=$(for n in 1 2 3; do
		jq -r 'select(.event == "PORT_ERR" or .event == "PORT_ACTIVE") | "\(.device)/\(.port) \(.event)"' \
			"$CAPTURES/fleet-node$n.jsonl" | awk -v n="$n" '{ last[$1] = $2 } END { for (p in last) if (last[p] == "PORT_ERR") print n, p }'
	done | wc -l)
	[ "$down" -ge 1 ] || fail "the fleet captures have no port left down"
	q=$(jq -r '.panels[] | select(.title == "Ports not ACTIVE" and .type == "stat") | .targets[0].expr' "$DASH" | sed 's/\$instance/.*/g')
	assert_equal "$(prom_query "$pp" "$q")" "$down"
	assert_equal "$(prom_query "$pp" 'count(ibvevent_port_info{state="DOWN"})')" "$down"
	for n in 1 2 3; do bg_stop "node$n" 0; done
	bg_stop prometheus 0
}
