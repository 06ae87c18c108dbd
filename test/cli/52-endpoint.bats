#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The /metrics endpoint hardened (--web-config): HTTPS with a certificate
# made here by openssl, basic auth against a bcrypt hash made by htpasswd,
# checked with curl, openssl s_client and a real Prometheus; the limits on
# slow clients, with a half-open client on another loopback address.

load ../test_helper

setup_file() {
	local d=$BATS_FILE_TMPDIR
	# a CA, and a server certificate of it for 127.0.0.1
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$d/ca.key" -out "$d/ca.pem" -days 2 -subj /CN=ibvevent-test-ca 2>/dev/null
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$d/server.key" -out "$d/server.csr" -subj /CN=127.0.0.1 2>/dev/null
	printf 'subjectAltName=IP:127.0.0.1\n' >"$d/ext"
	openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" \
		-CAcreateserial -days 2 -extfile "$d/ext" -out "$d/server.pem" 2>/dev/null
	# a key that is not the certificate's
	openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-out "$d/other.key" 2>/dev/null
	htpasswd -nbBC 10 prom 's3cret' | cut -d: -f2- >"$d/hash"
}

setup() {
	ibve_setup
	D=$BATS_FILE_TMPDIR
	FABRIC=$CAPTURES/ib-fabric.jsonl
	# the web configuration most tests use; relative names: beside it
	cp "$D"/server.pem "$D"/server.key "$D"/other.key "$D"/ca.pem "$BATS_TEST_TMPDIR/"
	WEB=$BATS_TEST_TMPDIR/web.yml
	cat >"$WEB" <<-YML
		tls_server_config:
		  cert_file: server.pem
		  key_file: server.key
		basic_auth_users:
		  prom: '$(cat "$D/hash")'
	YML
	CA=$BATS_TEST_TMPDIR/ca.pem
}

teardown() {
	local rc=0
	ibve_teardown || rc=1
	exec 5>&- 6>&- 2>/dev/null || true
	return $rc
}

need() {
	command -v "$1" >/dev/null || skip "$1 is not installed (make deps installs it)"
}

# serve ARGS...: a watcher serving on 127.0.0.1:$PORT with ARGS, fed from
# a pipe that stays open (fd 5), listening when this returns.
serve() {
	local end=$((SECONDS + 30))
	fifo=$BATS_TEST_TMPDIR/events
	mkfifo "$fifo"
	exec 5<>"$fifo"
	PORT=$(free_port)
	bg_start watch 0 ibv_eventwatch -q -r - --metrics-listen "127.0.0.1:$PORT" "$@" \
		<"$fifo" >/dev/null 5>&-
	until ss -ltnH "sport = :$PORT" | grep -q .; do
		[ $SECONDS -lt $end ] || fail "nothing listens on $PORT: $(cat "${BG_ERR[watch]}")"
		running "$(bg_pid watch)" || fail "the watcher ended: $(cat "${BG_ERR[watch]}")"
		sleep 0.05
	done
}

# cpu PID: the CPU time PID has used, user and system, in clock ticks
# (what bcrypt costs is CPU, the same on a loaded machine; wall time not).
cpu() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# scrape [CURL ARGS...]: the status code of https://127.0.0.1:$PORT/metrics
code() {
	curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" "$@"
}

@test "HTTPS with basic auth: the right user gets the metrics; none, a wrong one or plain HTTP do not" {
	serve --web-config "$WEB"
	url=https://127.0.0.1:$PORT
	cat "$FABRIC" >&5
	end=$((SECONDS + 30))
	until curl -fs --cacert "$CA" -u prom:s3cret "$url/metrics" >"$BATS_TEST_TMPDIR/body" &&
		[ "$(awk '/^ibvevent_events_total/ { s += $2 } END { print s + 0 }' "$BATS_TEST_TMPDIR/body")" = 28 ]; do
		[ $SECONDS -lt $end ] || fail "no scrape counted the 28 events"
		sleep 0.1
	done
	run -0 grep -c '^ibvevent_events_total{' "$BATS_TEST_TMPDIR/body"
	assert_output 28
	grep -q '^ibvevent_build_info{' "$BATS_TEST_TMPDIR/body"
	run -0 curl -fsi --cacert "$CA" -u prom:s3cret "$url/metrics"
	assert_line --partial 'Content-Type: text/plain; version=0.0.4'
	# no credentials, a wrong password, an unknown user: 401 with the
	# challenge, on every path and for every method
	run -0 curl -si --cacert "$CA" "$url/metrics"
	assert_line --regexp '^HTTP/1.1 401 '
	assert_line --regexp '^WWW-Authenticate: Basic realm="ibvevent"'
	refute_output --partial 'ibvevent_'
	assert_equal "$(code -u prom:wrong "$url/metrics")" 401
	assert_equal "$(code -u prom:S3cret "$url/metrics")" 401
	assert_equal "$(code -u nobody:s3cret "$url/metrics")" 401
	assert_equal "$(code -u prom: "$url/metrics")" 401
	assert_equal "$(code "$url/")" 401
	assert_equal "$(code -X POST "$url/metrics")" 401
	assert_equal "$(code -u prom:s3cret "$url/")" 404
	# the password checked again after failures: still the right one
	assert_equal "$(code -u prom:s3cret "$url/metrics")" 200
	# the certificate is the one made here: without its CA, refused
	run curl -s -o /dev/null "$url/metrics"
	assert_failure 60
	# plain HTTP to the TLS port gets no answer
	run curl -s -o /dev/null -w '%{http_code}' -u prom:s3cret "http://127.0.0.1:$PORT/metrics"
	assert_failure
	assert_output 000
}

@test "min_version and max_version reach GnuTLS; other headers as configured" {
	need openssl
	cat >>"$WEB" <<-YML
		http_server_config:
		  http2: false
		  headers:
		    X-Frame-Options: deny
		    Strict-Transport-Security: max-age=31536000
	YML
	sed -i 's/^  key_file: server.key$/&\n  max_version: TLS12/' "$WEB"
	serve --web-config "$WEB"
	run openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$CA" -tls1_3 </dev/null
	assert_failure
	run openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$CA" -tls1_2 </dev/null
	assert_success
	assert_output --partial 'Verify return code: 0 (ok)'
	run -0 curl -si --cacert "$CA" -u prom:s3cret "https://127.0.0.1:$PORT/metrics"
	assert_line --regexp '^HTTP/1.1 200 '
	assert_line --regexp '^X-Frame-Options: deny'
	assert_line --regexp '^Strict-Transport-Security: max-age=31536000'
	bg_stop watch
	# TLS 1.3 only
	sed -i 's/^  max_version: TLS12$/  min_version: TLS13/' "$WEB"
	exec 5>&-
	rm "$fifo"
	serve --web-config "$WEB"
	run openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$CA" -tls1_2 </dev/null
	assert_failure
	run openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$CA" -tls1_3 </dev/null
	assert_success
}

@test "bcrypt is paid once per password: verified and failed pairs are remembered" {
	[ -z "${IBVEVENT_VALGRIND:-}" ] ||
		skip "it measures CPU time, which memcheck's own work swamps"
	# cost 13: one bcrypt takes about half a second of CPU here
	hash=$(htpasswd -nbBC 13 slow 'pw' | cut -d: -f2-)
	printf 'basic_auth_users:\n  slow: %s\n' "'$hash'" >"$WEB"
	serve --web-config "$WEB"
	pid=$(bg_pid watch)
	url=http://127.0.0.1:$PORT/metrics
	c=$(cpu "$pid")
	assert_equal "$(curl -s -o /dev/null -w '%{http_code}' -u slow:pw "$url")" 200
	one=$(($(cpu "$pid") - c))
	echo "# one bcrypt: $one CPU ticks of $(getconf CLK_TCK) a second" >&3
	[ "$one" -ge 15 ] || skip "bcrypt at cost 13 took only $one ticks: too little to tell"
	c=$(cpu "$pid")
	for _ in $(seq 10); do
		assert_equal "$(curl -s -o /dev/null -w '%{http_code}' -u slow:pw "$url")" 200
	done
	ten=$(($(cpu "$pid") - c))
	echo "# ten right scrapes: $ten ticks" >&3
	# remembered, ten cost less than a third of one bcrypt; else ten
	[ "$ten" -lt $((one / 3)) ] || fail "10 scrapes took $ten ticks, a bcrypt $one"
	# wrong ones a second apart, so bcrypt's budget (a quarter of the
	# time) would allow each: the first is checked, the rest remembered
	c=$(cpu "$pid")
	for _ in 1 2 3 4 5; do
		assert_equal "$(curl -s -o /dev/null -w '%{http_code}' -u slow:bad "$url")" 401
		sleep 1
	done
	five=$(($(cpu "$pid") - c))
	echo "# five wrong scrapes: $five ticks" >&3
	# one bcrypt, not five
	[ "$five" -lt $((one * 2)) ] || fail "5 wrong scrapes took $five ticks, a bcrypt $one"
}

@test "a flood of wrong passwords: bcrypt keeps to its budget, a scraper still gets in" {
	[ -z "${IBVEVENT_VALGRIND:-}" ] ||
		skip "it measures CPU time, which memcheck's own work swamps"
	hash=$(htpasswd -nbBC 12 prom 'pw' | cut -d: -f2-)
	printf 'basic_auth_users:\n  prom: %s\n' "'$hash'" >"$WEB"
	serve --web-config "$WEB"
	pid=$(bg_pid watch)
	url=http://127.0.0.1:$PORT/metrics
	assert_equal "$(curl -s -o /dev/null -w '%{http_code}' -u prom:pw "$url")" 200
	# 16 clients from two other addresses (8 each, the most one may
	# hold), each a new password at once after the last answer, for 8 s:
	# without a budget the loop would do nothing but bcrypt
	t0=$(date +%s%N) c0=$(cpu "$pid")
	for c in $(seq 16); do
		# shellcheck disable=SC2016 # expanded by that shell
		bg_start "flood$c" 0 sh -c '
			end=$(($(date +%s) + 8)) i=0
			while [ "$(date +%s)" -lt "$end" ]; do
				i=$((i + 1))
				curl -s -o /dev/null --interface "127.0.0.$((2 + $1 % 2))" \
					-u "x:$1-$i" "$2" || exit 1
			done' _ "$c" "$url" </dev/null
	done
	sleep 1
	# the scraper's pair is remembered: it passes with the budget spent
	# (a pair that is not is refused unchecked then)
	for _ in 1 2 3 4 5; do
		assert_equal "$(curl -s -o /dev/null -w '%{http_code}' -m 60 -u prom:pw "$url")" 200
		sleep 0.4
	done
	for c in $(seq 16); do bg_wait "flood$c" 0 60; done
	t1=$(date +%s%N) c1=$(cpu "$pid")
	# bcrypt's CPU time is at most its wall time, which the budget holds
	# to a second and a quarter of the rest (0.41 over 8 s)
	ratio=$(awk -v c=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v ns=$((t1 - t0)) \
		'BEGIN { printf "%.2f", c / hz / (ns / 1e9) }')
	echo "# the watcher's CPU during the flood: $ratio of the time" >&3
	awk -v r="$ratio" 'BEGIN { exit !(r < 0.6) }' ||
		fail "the watcher used $ratio of a CPU during the flood"
}

@test "a scrape is answered while another client holds 200 half-open connections" {
	serve
	# it holds them until its standard input (fd 6 here) closes, and
	# keeps them busy until a line arrives there
	mkfifo "$BATS_TEST_TMPDIR/hold"
	exec 6<>"$BATS_TEST_TMPDIR/hold"
	bg_start slow 0 python3 "$BATS_TEST_DIRNAME/halfopen.py" 127.0.0.2 127.0.0.1 "$PORT" 200 120 \
		<"$BATS_TEST_TMPDIR/hold" >"$BATS_TEST_TMPDIR/slow.out" 6>&-
	wait_for "$BATS_TEST_TMPDIR/slow.out" '^open 200$' 60
	# the kernel made them all; the server has taken every one from its
	# listen queue (its Recv-Q) when that queue is empty
	end=$((SECONDS + 60))
	while [ "$(ss -tlnH "( sport = :$PORT )" | awk '{ print $2 }')" != 0 ]; do
		[ $SECONDS -lt $end ] || fail "the server left connections in its listen queue"
		sleep 0.2
	done
	# the slow client holds no more than its share of the server
	held=$(ss -tnH state established "( sport = :$PORT and dst 127.0.0.2 )" | awk '{ print $NF }' | sort)
	echo "# the server holds $(grep -c . <<<"$held") of the slow client's connections" >&3
	[ "$(grep -c . <<<"$held")" -ge 1 ] && [ "$(grep -c . <<<"$held")" -le 8 ] ||
		fail "the server holds $held"
	run -0 curl -s -o "$BATS_TEST_TMPDIR/body" -w '%{http_code}' --max-time 60 \
		"http://127.0.0.1:$PORT/metrics"
	assert_output 200
	grep -q '^ibvevent_build_info{' "$BATS_TEST_TMPDIR/body"
	# answered while every one of them was still held: the scrape did
	# not wait for the server to close them
	assert_equal "$(ss -tnH state established "( sport = :$PORT and dst 127.0.0.2 )" | awk '{ print $NF }' | sort)" "$held"
	# once they go quiet they are closed (after 5 s), the client still
	# holding them
	echo quiet >&6
	end=$((SECONDS + 60))
	while [ "$(ss -tnH state established "( sport = :$PORT and dst 127.0.0.2 )" | wc -l)" != 0 ]; do
		[ $SECONDS -lt $end ] || fail "the half-open connections are still open"
		sleep 0.2
	done
	running "$(bg_pid slow)"
	exec 6>&-
	bg_wait slow 0 30
	exec 5>&-
	bg_wait watch 0 30
}

@test "a real Prometheus scrapes over HTTPS with basic auth: up is 1, the counts are there" {
	need prometheus
	serve --web-config "$WEB"
	cat "$FABRIC" >&5
	pp=$(free_port)
	cat >"$BATS_TEST_TMPDIR/prometheus.yml" <<-YML
		global:
		  scrape_interval: 1s
		scrape_configs:
		  - job_name: tls
		    scheme: https
		    tls_config: { ca_file: '$CA' }
		    basic_auth: { username: prom, password: s3cret }
		    static_configs: [{ targets: ['127.0.0.1:$PORT'] }]
		  - job_name: nopassword
		    scheme: https
		    tls_config: { ca_file: '$CA' }
		    static_configs: [{ targets: ['127.0.0.1:$PORT'] }]
	YML
	prometheus_start "$pp" "$BATS_TEST_TMPDIR/prometheus.yml"
	end=$((SECONDS + 90))
	until [ "$(prom_query "$pp" 'up{job="tls"}')" = 1 ] &&
		[ "$(prom_query "$pp" 'sum(ibvevent_events_total{job="tls"})')" = 28 ] &&
		[ -n "$(prom_query "$pp" 'up{job="nopassword"}')" ]; do
		[ $SECONDS -lt $end ] || fail "Prometheus never had the counts: $(tail -n 3 "${BG_ERR[prometheus]}")"
		sleep 0.5
	done
	assert_equal "$(prom_query "$pp" 'ibvevent_port_state{job="tls",device="mlx5_1",port="1"}')" 4
	# the job without the password is refused
	assert_equal "$(prom_query "$pp" 'up{job="nopassword"}')" 0
	run -0 curl -fsG "http://127.0.0.1:$pp/api/v1/targets"
	assert_output --partial '401 Unauthorized'
}

@test "a start without --web-config maps neither libyaml nor libcrypt; with it, both" {
	[ "${IBVEVENT_VALGRIND:-}" != 1 ] ||
		skip "under memcheck the commands are wrappers; the plain run checks the loading"
	run -0 ldd "$BUILD/bin/ibv_eventwatch"
	refute_output --regexp 'libyaml|libcrypt\.'
	serve
	curl -fs -o /dev/null "http://127.0.0.1:$PORT/metrics"
	run -1 grep -cE '/lib(yaml|crypt)[.-]' "/proc/$(bg_pid watch)/maps"
	assert_output 0
	grep -q '/libmicrohttpd\.so' "/proc/$(bg_pid watch)/maps"
	bg_stop watch
	exec 5>&-
	rm "$fifo"
	serve --web-config "$WEB"
	grep -q '/libyaml-0\.so' "/proc/$(bg_pid watch)/maps"
	grep -q '/libcrypt\.so' "/proc/$(bg_pid watch)/maps"
}

@test "an idle HTTPS server makes no system call" {
	need strace
	[ -z "${IBVEVENT_VALGRIND:-}" ] || skip "memcheck's own threads make system calls"
	serve --web-config "$WEB"
	assert_equal "$(code -u prom:s3cret "https://127.0.0.1:$PORT/metrics")" 200
	# the connection closed and seen so: the server closed its end too
	# (no socket of its port left but the listening one)
	end=$((SECONDS + 30))
	while ss -tanH "sport = :$PORT" | grep -qv '^LISTEN'; do
		[ $SECONDS -lt $end ] || fail "the server still has: $(ss -tanH "sport = :$PORT")"
		sleep 0.05
	done
	timeout -s INT 2 strace -p "$(bg_pid watch)" -o "$BATS_TEST_TMPDIR/strace" \
		2>"$BATS_TEST_TMPDIR/strace.err" || true
	# an strace that could not attach writes an empty trace
	grep -q "Process $(bg_pid watch) attached" "$BATS_TEST_TMPDIR/strace.err" ||
		fail "strace did not attach: $(cat "$BATS_TEST_TMPDIR/strace.err")"
	# at most the wait it was in when strace came
	run -1 grep -cv -e '^restart_syscall' -e 'resumed>' -e '<detached' "$BATS_TEST_TMPDIR/strace"
	assert_output 0
}

# fails STATUS MESSAGE ARGS...: ibv_eventwatch ARGS exits STATUS saying MESSAGE
fails() {
	local want=$1 msg=$2
	shift 2
	run --separate-stderr ibv_eventwatch -q -r "$FABRIC" --metrics-listen "127.0.0.1:$(free_port)" "$@"
	assert_failure "$want"
	assert_equal "$stderr" "ibv_eventwatch: $msg"
}

@test "what the file says wrong is a usage error (2); what it names that cannot be had, 3" {
	W=$BATS_TEST_TMPDIR/w.yml
	run --separate-stderr ibv_eventwatch -r "$FABRIC" --web-config "$WEB"
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "ibv_eventwatch: --web-config goes with --metrics-listen"
	printf 'tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  cert_fiel: x\n' >"$W"
	fails 2 "$W:4: unknown key tls_server_config.cert_fiel" --web-config "$W"
	printf '"two\\nlines": 1\n' >"$W"
	fails 2 "$W:1: unknown key two?lines" --web-config "$W"
	printf 'tls_server_config:\n  cert_file: [a, b]\n' >"$W"
	fails 2 "$W:2: tls_server_config.cert_file: a string, not a list" --web-config "$W"
	printf 'tls_server_config:\n  client_ca_file: ca.pem\n' >"$W"
	fails 2 "$W:2: tls_server_config.client_ca_file is not supported: client certificates are not verified by this server" --web-config "$W"
	printf 'tls_server_config:\n  key_file: server.key\n' >"$W"
	fails 2 "$W:2: tls_server_config: cert_file is missing" --web-config "$W"
	printf 'tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  min_version: TLS9\n' >"$W"
	fails 2 "$W:4: tls_server_config.min_version: 'TLS9' is not TLS10, TLS11, TLS12 or TLS13" --web-config "$W"
	printf 'basic_auth_users:\n  prom: s3cret\n' >"$W"
	fails 2 "$W:2: basic_auth_users.prom: not a bcrypt hash (\$2y\$, \$2b\$ or \$2a\$: htpasswd -nBC 10 prom)" --web-config "$W"
	printf "basic_auth_users:\n  prom: '%s'\n  prom: '%s'\n" "$(cat "$D/hash")" "$(cat "$D/hash")" >"$W"
	fails 2 "$W:3: basic_auth_users.prom is given twice" --web-config "$W"
	printf 'tls_server_config: {cert_file: a\n' >"$W"
	fails 2 "$W:2: not YAML: did not find expected ',' or '}'" --web-config "$W"
	printf -- '- tls_server_config\n' >"$W"
	fails 2 "$W:1: a mapping of tls_server_config, http_server_config and basic_auth_users, not a list" --web-config "$W"
	# a second document would be read by no one: the users after an
	# empty first one would otherwise be dropped without a word
	printf -- "---\n---\nbasic_auth_users:\n  prom: '%s'\n" "$(cat "$D/hash")" >"$W"
	fails 2 "$W:3: a second YAML document: the configuration is one" --web-config "$W"
	printf "basic_auth_users:\n  prom: '%s'\n  slow: '%s'\n" "$(cat "$D/hash")" \
		"$(htpasswd -nbBC 15 slow pw | cut -d: -f2-)" >"$W"
	fails 2 "$W:3: basic_auth_users.slow: a bcrypt cost above 14 would stop the watcher for seconds at each check (htpasswd -nBC 10 slow)" --web-config "$W"
	# runtime: files that cannot be read, a key that is not the certificate's
	fails 3 "read $BATS_TEST_TMPDIR/none.yml: No such file or directory" \
		--web-config "$BATS_TEST_TMPDIR/none.yml"
	printf 'tls_server_config:\n  cert_file: nothere.pem\n  key_file: server.key\n' >"$W"
	fails 3 "$W: tls_server_config.cert_file: read $BATS_TEST_TMPDIR/nothere.pem: No such file or directory" --web-config "$W"
	printf 'tls_server_config:\n  cert_file: server.pem\n  key_file: other.key\n' >"$W"
	fails 3 "$W: tls_server_config: cert_file server.pem with key_file other.key: The certificate and the given key do not match." --web-config "$W"
	# a FIFO is not waited on (its open would block, signals and all)
	mkfifo "$BATS_TEST_TMPDIR/fifo.yml"
	run --separate-stderr timeout 60 ibv_eventwatch -q -r "$FABRIC" \
		--metrics-listen "127.0.0.1:$(free_port)" --web-config "$BATS_TEST_TMPDIR/fifo.yml"
	assert_failure 3
	assert_equal "$stderr" "ibv_eventwatch: read $BATS_TEST_TMPDIR/fifo.yml: not a regular file"
	printf 'tls_server_config:\n  cert_file: /dev/null\n  key_file: server.key\n' >"$W"
	fails 3 "$W: tls_server_config.cert_file: read /dev/null: not a regular file" --web-config "$W"
	# an empty file asks for nothing: plain HTTP as without it
	: >"$W"
	serve --web-config "$W"
	run curl -fs "http://127.0.0.1:$PORT/metrics"
	assert_success
	assert_output --partial 'ibvevent_build_info{'
}

@test "a library --web-config needs that cannot be loaded: one line saying which, status 3" {
	[ "$(id -u)" = 0 ] || skip "hiding a library takes a mount namespace (root)"
	lib=$(ldconfig -p | awk '/libyaml-0\.so\.2 .*x86-64/ { print $NF; exit }')
	[ -n "$lib" ] || skip "libyaml-0.so.2 is not installed"
	unshare -m true 2>/dev/null || skip "no mount namespace can be made here"
	# shellcheck disable=SC2016 # expanded by that shell
	run --separate-stderr unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' _ \
		"$lib" ibv_eventwatch -q -r "$FABRIC" --metrics-listen "127.0.0.1:$(free_port)" \
		--web-config "$WEB"
	assert_failure 3
	assert_equal "${#stderr_lines[@]}" 1
	assert_output ''
	[[ "$stderr" == "ibv_eventwatch: $WEB: cannot load libyaml-0.so.2 (needed for --web-config; Debian package libyaml-0-2): "* ]] ||
		fail "$stderr"
}
