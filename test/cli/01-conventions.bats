#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Conventions every change keeps: each command's --help, man page and bash
# completion offer the same options; man pages lint clean; scripts are
# clean for shellcheck; C follows .clang-format; every file has SPDX.

load ../test_helper

# cmd/ibv_*.c are the commands; the other files of cmd/ are their parts.
COMMANDS=()
for c in "$TOP"/cmd/ibv_*.c; do
	c=${c##*/}
	COMMANDS+=("${c%.c}")
done

# Options (short and long) a command's --help lists, one per line.
help_options() {
	"$1" --help | grep -E '^ +-' |
		grep -oE '(^|[ ,])--?[a-zA-Z0-9][-a-zA-Z0-9]*' | tr -d ' ,' | sort -u
}

# Options of the man page's OPTIONS section (.It Fl d , \-ib\-dev ...).
man_options() {
	sed -n '/^\.Sh OPTIONS/,/^\.Sh /p' "$1" | grep '^\.It Fl' |
		sed -E 's/^\.It Fl //; s/\\-/-/g; s/ , /\n/g' |
		awk '{ print "-" $1 }' | sort -u
}

# Options the completion function _CMD offers for "-" (its words, with the
# file's variables, such as the sources' options, expanded).
completion_options() {
	local words
	words=$(sed -n "/^_$1()/,/^} &&/p" "$TOP/completions/ibvevent" | tr '\n\t' '  ' |
		sed -n "s/.*compgen -W [\"']\(-[^\"']*\)[\"'].*/\1/p")
	# shellcheck disable=SC1091 # the completion's variables
	(. "$TOP/completions/ibvevent" && eval "printf '%s\n' $words") | grep . | sort -u
}

man_page() {
	ls "$TOP"/man/"$1".[0-9]
}

# The page FILE as a reader sees it: rendered by mandoc, one paragraph a
# line (wide), without the overstrikes of bold and underline.
man_rendered() {
	mandoc -Tascii -Owidth=1000 "$1" | sed 's/.\x08//g'
}

# Option spellings of text on standard input, one per line: -x, --long,
# and a lone "-" or "--"; values that look like options (-1h) are not.
shown_options() {
	grep -oE "(^|[][ (|'\`\"])(--?[a-zA-Z][-a-zA-Z0-9.]*[a-zA-Z0-9]|-[a-zA-Z]|--?)([]=[ ,;:.)'\`\"]|$)" |
		sed -E "s/^[][ (|'\`\"]//; s/[]=[ ,;:.)'\`\"]$//" | sort -u
}

# The options of each command line shown in text on standard input
# ("ibv_eventwatch -q -d mlx5_0 ..." up to a pipe, quote or bracket's end),
# as "COMMAND OPTION" lines.
invoked_options() {
	grep -oE "ibv_event(watch|top|inject) [^|;)\`'<>&]*" | while read -r cmd args; do
		for a in $args; do
			a=${a//[][]/}
			a=${a%[,.:]}
			case $a in
			-[a-zA-Z]* | --[a-zA-Z]*) echo "$cmd ${a%%=*}" ;;
			esac
		done
	done | sort -u
}

@test "every command has a man page, a completion, -h and -V" {
	for c in "${COMMANDS[@]}"; do
		[ -f "$(man_page "$c")" ] || fail "$c has no man page"
		grep -q "^complete -F _$c $c\$\|complete -F _$c $c\$" "$TOP/completions/ibvevent" ||
			fail "$c has no completion"
		"$c" -h >/dev/null || fail "$c -h failed"
		"$c" -V | grep -q "^$c [0-9]" || fail "$c -V does not print its version"
	done
}

@test "--help, man page and completion list the same options" {
	for c in "${COMMANDS[@]}"; do
		h=$(help_options "$c")
		m=$(man_options "$(man_page "$c")")
		k=$(completion_options "$c")
		[ -n "$h" ] || fail "no options found in $c --help"
		diff -u <(echo "$h") <(echo "$m") || fail "$c: --help and man page differ"
		diff -u <(echo "$h") <(echo "$k") || fail "$c: --help and completion differ"
	done
}

# The --help entry of option OPT of command CMD: its line, with the lines
# after it that continue its text.
help_entry() {
	"$1" --help | awk -v o="$2" '
		/^  -|^      --/ { on = $0 ~ "[ ,]" o "([ ,]|$)" }
		/^  -|^      --|^                         / { if (on) print; next }
		{ on = 0 }'
}

@test "an option ibv_eventwatch and ibv_eventtop share reads the same in both --help" {
	# shared: the long options both list (the table of cmd/common.c);
	# --json, which each command's output shapes, is each one's own
	shared=$(comm -12 <(help_options ibv_eventwatch | grep '^--') \
		<(help_options ibv_eventtop | grep '^--') | grep -vx -e --json -e --help -e --version)
	[ "$(wc -l <<<"$shared")" -ge 8 ]
	for o in $shared; do
		w=$(help_entry ibv_eventwatch "$o")
		t=$(help_entry ibv_eventtop "$o")
		[ -n "$w" ] || fail "no --help entry of $o"
		[ "$w" = "$t" ] || fail "$o: ibv_eventwatch says '$w', ibv_eventtop '$t'"
	done
}

@test "the option spellings a rendered man page shows are the command's (--help, completion)" {
	all=$(for c in "${COMMANDS[@]}"; do help_options "$c"; done | sort -u)
	for c in "${COMMANDS[@]}"; do
		page=$(man_rendered "$(man_page "$c")")
		[ -n "$page" ] || fail "mandoc rendered nothing of $c's page"
		h=$(help_options "$c")
		k=$(completion_options "$c")
		# SYNOPSIS and OPTIONS: this command's options; another command
		# of the suite's (ibv_eventwatch's -w in ibv_eventtop's -r); "-"
		# for standard input; the exporters' --web.config.file, quoted
		bad=$(awk '/^[A-Z]/ { s = $0 } s == "SYNOPSIS" || s == "OPTIONS"' <<<"$page" |
			shown_options | grep -vxF -e - -e --web.config.file |
			grep -vxF -f <(echo "$all") || true)
		[ -z "$bad" ] || fail "$c's page shows options no command has: $bad"
		# every command line shown, anywhere in the page
		bad=$(invoked_options <<<"$page" | grep "^$c " | cut -d' ' -f2 |
			grep -vxF -f <(echo "$h") || true)
		[ -z "$bad" ] || fail "$c's page runs $c with options its --help lacks: $bad"
		bad=$(invoked_options <<<"$page" | grep "^$c " | cut -d' ' -f2 |
			grep -vxF -f <(echo "$k") || true)
		[ -z "$bad" ] || fail "$c's page runs $c with options its completion lacks: $bad"
	done
	# and the README's command lines
	for c in "${COMMANDS[@]}"; do
		bad=$(invoked_options <"$TOP/README.md" | grep "^$c " | cut -d' ' -f2 |
			grep -vxF -f <(help_options "$c") || true)
		[ -z "$bad" ] || fail "README runs $c with options its --help lacks: $bad"
	done
}

@test "a man page's synopsis shows every option, and page and --help name the same capabilities and sections" {
	for c in "${COMMANDS[@]}"; do
		page=$(man_rendered "$(man_page "$c")")
		syn=$(awk '/^[A-Z]/ { s = $0 } s == "SYNOPSIS"' <<<"$page" | shown_options)
		# each entry of --help by one of its spellings (-h and -V aside)
		entries=$("$c" --help | grep -oE '^(  -[a-zA-Z0-9], --?|      --)[a-zA-Z0-9][-a-zA-Z0-9]*' |
			tr -d ',' | grep -vE -e '--(help|version)$')
		[ "$(wc -l <<<"$entries")" -ge 5 ] || fail "no --help entries of $c"
		while read -r short long; do
			grep -qxF -e "$short" -e "${long:-$short}" <<<"$syn" ||
				fail "$c's SYNOPSIS lacks $short $long"
		done <<<"$entries"
		h=$("$c" --help | grep -oE 'CAP_[A-Z_]+' | sort -u)
		m=$(grep -oE 'CAP_[A-Z_]+' <<<"$page" | sort -u)
		[ "$h" = "$m" ] || fail "$c: --help names the capabilities '$h', its page '$m'"
	done
	# the suite's pages are cited in their own sections, in pages, README
	# and the unit
	for f in "$TOP"/man/*.[0-9]; do
		n=${f##*/}
		bad=$(cat "$TOP"/man/*.[0-9] | grep -oE "^\.Xr ${n%.*} [0-9]" | grep -v " ${n##*.}\$" || true)
		bad+=$(cat "$TOP/README.md" "$TOP"/systemd/* | grep -oE "${n%.*}\([0-9]\)" | grep -vF "(${n##*.})" || true)
		[ -z "$bad" ] || fail "${n%.*} is cited in another section: $bad"
	done
}

@test "the completion knows every event name of the library's table" {
	names=$(grep -oE '^\s+ROW\([^,]+, "[A-Z0-9_]+"' "$TOP"/lib/*.c |
		grep -oE '"[A-Z0-9_]+"' | tr -d '"' | sort -u)
	[ "$(wc -l <<<"$names")" -ge 24 ]
	for n in $names; do
		grep -qw "$n" "$TOP/completions/ibvevent" || fail "completion lacks $n"
	done
}

# The mdoc macros (mdoc(7)), for their names left in rendered text.
MDOC='A[dnoprtq]|B[cdfkloqtx]|Br[coq]|Bs[dx]|C[dm]|D[1bcdlqtvx]|E[cdfkmnorvx]|F[acdlnot]|Fx|Hf|I[cnt]|L[bikp]|M[st]|N[dmosx]|O[cops]|Ox|P[acfopq]|Q[cloq]|R[esv]|S[chmoqstxy]|T[an]|U[dx]|V[at]|X[cor]'

# roff_residue: the lines of a rendered page (standard input) that show
# roff instead of text: a macro's name after a dot (".It", "..It"), a line
# that starts with a dot and a request ("  .br"), an escape left as text
# (\f, \(, \*, \&, \-, \e, \s), mdoc's "Ns", which no prose spells;
# numbered, bold and underline's overstrikes taken out.
roff_residue() {
	sed 's/.\x08//g' | grep -nE "(^|[^[:alnum:]])\.($MDOC)([^[:alnum:]]|$)|^[[:space:]]*\.[a-z]{1,2}([[:space:]]|$)|\\\\[fs*(&e-]|(^|[[:space:]])Ns([[:space:]]|$)" || true
}

@test "man pages lint clean, and render without roff in their text, by mandoc and by man" {
	run mandoc -Tlint -W warning "$TOP"/man/*.[0-9]
	assert_success
	assert_output ''
	# the test finds what it looks for
	run roff_residue <<<$'(exit 2)..It Cm peer= Ns Ar name\n  .br\nas \\fBbold\\fR\nfine. Itself'
	assert_output $'1:(exit 2)..It Cm peer= Ns Ar name\n2:  .br\n3:as \\fBbold\\fR'
	renderers=(mandoc)
	! command -v man >/dev/null || renderers+=(man)
	for f in "$TOP"/man/*.[0-9]; do
		for by in "${renderers[@]}"; do
			if [ "$by" = mandoc ]; then
				run --separate-stderr mandoc -Tutf8 -Owidth=80 "$f"
			else
				run --separate-stderr env MANWIDTH=80 MANPAGER=cat PAGER=cat \
					MAN_KEEP_FORMATTING= man --warnings -l "$f"
			fi
			assert_success
			assert_equal "$stderr" ''
			[ "${#lines[@]}" -ge 100 ] || fail "$by rendered ${#lines[@]} lines of $f"
			bad=$(roff_residue <<<"$output")
			[ -z "$bad" ] || fail "${f##*/} as $by renders it shows roff: $bad"
		done
	done
	[ "${#renderers[@]}" = 2 ] || skip "man (man-db) is not installed: rendered by mandoc alone"
}

@test "shell scripts pass shellcheck" {
	cd "$TOP"
	run shellcheck test/vm/run test/vm/init test/vm/demo test/fuzz/seeds \
		test/alerts/promtool-test test/captures/storm.sh bench/run bench/guest .ci/run \
		share/runbook
	assert_success
	run shellcheck -s bash test/*.bash test/sm/*.bash test/cli/*.bash test/rxe/*.bash completions/ibvevent \
		share/slurm/ibvevent.nhc.in
	assert_success
	run shellcheck -s sh share/slurm/ibvevent-healthcheck.in debian/ibvevent.postrm
	assert_success
	run shellcheck -s bash -e SC2030,SC2031,SC2034,SC2153,SC2154,SC2164 test/*/*.bats
	assert_success
}

@test "the completion completes options, devices, events and lists" {
	[ -f /usr/share/bash-completion/bash_completion ] ||
		skip "bash-completion is not installed (make deps installs it)"
	comp() {
		bash -c 'source /usr/share/bash-completion/bash_completion
			source "$1"; shift
			COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
			COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
			"_$1"; printf "%s\n" "${COMPREPLY[@]}"' _ "$TOP/completions/ibvevent" "$@"
	}
	run -0 comp ibv_eventwatch --exp
	assert_equal "$output" --expect
	run -0 comp ibv_eventwatch --exc
	assert_output $'--exclude\n--exclude-device'
	run -0 comp ibv_eventwatch -e PORT_A
	assert_output PORT_ACTIVE
	run -0 comp ibv_eventwatch -x PORT_ERR,sever
	assert_line 'PORT_ERR,severity>=warning'
}

@test "C sources follow the repository's .clang-format" {
	command -v clang-format >/dev/null || skip "clang-format is not installed (make deps installs it)"
	cd "$TOP"
	run clang-format --dry-run -Werror include/*.h lib/*.[ch] cmd/*.[ch] cmd/web/*.[ch] test/unit/*.[ch] test/fuzz/*.c test/sm/*.c bench/*.c share/*.c
	assert_success
}

@test "commands stay thin: each main fits on a screen, no file of cmd/ is long" {
	cd "$TOP"
	for f in cmd/ibv_*.c; do
		n=$(awk '/^int main\(/ { s = NR } s && /^}/ { print NR - s + 1; exit }' "$f")
		[ -n "$n" ] || fail "$f has no main"
		[ "$n" -le 80 ] || fail "$f: main is $n lines (80 at most)"
	done
	for f in cmd/*.[ch]; do
		n=$(wc -l <"$f")
		[ "$n" -le 500 ] || fail "$f is $n lines (500 at most)"
	done
}

@test "every source file carries an SPDX licence line" {
	cd "$TOP"
	run -0 bash -c "git ls-files 2>/dev/null | grep -E '\.(c|h|bash|bats|[0-9])$|^(Makefile|completions/|share/prometheus/|share/runbook|share/slurm/|test/alerts/|test/install-node|test/vm/|test/fuzz/seeds|bench/run|bench/guest|\.ci/|debian/rules$|debian/.*\.post)' |
		while read -r f; do head -n 3 \"\$f\" | grep -q SPDX-License-Identifier || echo \"\$f\"; done"
	assert_output ''
}

@test "no file git tracks holds a merge's conflict markers" {
	cd "$TOP"
	git rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
	# a merge left one in the promtool tests once, and YAML took it
	run -1 git grep -nE '^(<{7}|>{7})( |$)|^={7}$' -- ':!*.md'
	assert_output ''
}

@test "tests start background programs through bg_start and tear down through the helper" {
	cd "$TOP"
	# a bare "CMD &" would escape the status and stderr checks; the walk
	# through the README (test/cli/operator.bash) has its own, bg and stop,
	# in a PID namespace that nothing outlives: its two are bg's
	run -1 grep -nE '[^&]&[[:space:]]*$' --exclude=operator.bash test/*/*.bats test/*/*.bash
	assert_output ''
	run -0 grep -cE '[^&]&[[:space:]]*$' test/cli/operator.bash
	assert_output 2
	for f in test/*/*.bats; do
		if grep -q '^setup()' "$f"; then
			sed -n '/^setup()/,/^}/p' "$f" | grep -q ibve_setup ||
				fail "$f: setup does not call ibve_setup"
		fi
		if grep -q '^teardown()' "$f"; then
			sed -n '/^teardown()/,/^}/p' "$f" | grep -q ibve_teardown ||
				fail "$f: teardown does not call ibve_teardown"
		fi
	done
}
