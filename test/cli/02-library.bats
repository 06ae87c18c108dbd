#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# libibvevent as a library: exported symbols, header, install, pkg-config;
# the data files make install puts beside it.

load ../test_helper

LIB=$BUILD/lib/libibvevent.so.0

@test "exported symbols = the version script = the functions of the header" {
	exported=$(nm -D --defined-only "$LIB" | awk '$2 == "T" { print $3 }' |
		sed 's/@.*//' | sort -u)
	mapped=$(sed -n '/global:/,/local:/p' "$TOP/lib/libibvevent.map" |
		grep -oE 'ibve_[a-z0-9_]+' | sort -u)
	declared=$(grep -oE '\bibve_[a-z0-9_]+\(' "$TOP/include/ibvevent.h" |
		tr -d '(' | sort -u)
	[ -n "$exported" ]
	diff -u <(echo "$mapped") <(echo "$exported")
	diff -u <(echo "$declared") <(echo "$exported")
}

@test "every exported symbol has the version of its node in the script; nothing internal leaks" {
	run -0 bash -c "nm -D --defined-only '$LIB' | awk '\$2 == \"T\" { print \$3 }' | sort"
	exported=$output
	run -0 bash -c "awk '/^IBVEVENT_/ { v = \$1 } /^\t\tibve_/ { sub(/;/, \"\"); print \$1 \"@@\" v }' '$TOP/lib/libibvevent.map' | sort"
	[ -n "$output" ]
	assert_equal "$exported" "$output"
	run bash -c "nm -D --defined-only '$LIB' | grep -E ' (ibve_buf|ibve_hotplug|ibve_parse)'"
	assert_failure
}

@test "no dependency cycle among the library's objects (or the exporter's)" {
	# an edge A B: object A uses a symbol object B defines
	objs=()
	for c in "$TOP"/lib/*.c "$TOP"/cmd/web/*.c; do
		c=${c#"$TOP"/}
		objs+=("$BUILD/obj/${c%.c}.o")
	done
	[ "${#objs[@]}" -gt 10 ]
	ls "${objs[@]}" >/dev/null
	for o in "${objs[@]}"; do
		nm --defined-only -g "$o" | awk -v o="${o##*/}" 'NF == 3 { print $3, o }'
	done | sort -u >"$BATS_TEST_TMPDIR/defs"
	for o in "${objs[@]}"; do
		nm -u "$o" | awk -v o="${o##*/}" '{ print $2, o }'
	done | sort -u >"$BATS_TEST_TMPDIR/uses"
	join "$BATS_TEST_TMPDIR/uses" "$BATS_TEST_TMPDIR/defs" |
		awk '$2 != $3 { print $2, $3 }' | sort -u >"$BATS_TEST_TMPDIR/edges"
	[ -s "$BATS_TEST_TMPDIR/edges" ]
	run tsort "$BATS_TEST_TMPDIR/edges"
	assert_success
	refute_output --partial 'contains a loop'
}

# Each header of lib/ and the sources of lib/, cmd/, cmd/web/ that read it,
# directly or through other headers, found as the compiler finds a quoted
# name: in the including file's directory, then in those its object is
# compiled with (the commands': lib, cmd/web). "HEADER SOURCE..." a line.
includers() {
	(cd "$TOP" && awk '
	FNR == 1 { have[FILENAME] = 1; files[++n] = FILENAME }
	/^[ \t]*#[ \t]*include[ \t]*"/ {
		split($0, q, "\""); inc[FILENAME] = inc[FILENAME] " " q[2]
	}
	END {
		for (i = 1; i <= n; i++) {
			if (files[i] !~ /\.c$/)
				continue
			path = files[i] ~ /^cmd\/[^\/]*$/ ? "include lib cmd/web" : "include"
			delete seen; qn = 1; queue[1] = files[i]
			for (k = 1; k <= qn; k++) {
				f = queue[k]; dir = f; sub(/\/[^\/]*$/, "", dir)
				m = split(inc[f], names, " ")
				for (j = 1; j <= m; j++) {
					nd = split(dir " " path, dirs, " ")
					for (d = 1; d <= nd; d++) {
						p = dirs[d] "/" names[j]
						if (!(p in have))
							continue
						if (!(p in seen)) { seen[p] = 1; queue[++qn] = p }
						break
					}
				}
			}
			for (p in seen)
				if (p ~ /^lib\/.*\.h$/)
					users[p] = users[p] " " files[i]
		}
		for (i = 1; i <= n; i++)
			if (files[i] ~ /^lib\/.*\.h$/)
				print files[i] users[files[i]]
	}' lib/*.[ch] lib/bpf/*.[ch] include/*.h cmd/*.[ch] cmd/web/*.[ch])
}

@test "no header of the library is read by more than 15 sources but util.h, and buf.h only by its writers" {
	run -0 includers
	inc=$output
	awk '{ print NF - 1, $1 }' <<<"$inc" # the counts, when it fails
	# most files read util.h through another header: the count sees them
	[ "$(awk '$1 == "lib/util.h" { print NF - 1 }' <<<"$inc")" -gt 15 ]
	over=$(awk 'NF - 1 > 15 && $1 != "lib/util.h" && $1 != "lib/buf.h"' <<<"$inc")
	[ -z "$over" ] || { echo "read by more than 15: $over"; false; }
	# buf.h: the buffers and the JSON writer, linked into the commands as
	# buf.o too: read only by the files that write through it, none
	# reached through a header
	buf=$(awk '$1 == "lib/buf.h"' <<<"$inc")
	[ -n "${buf#lib/buf.h}" ]
	for f in ${buf#lib/buf.h}; do
		grep -qE 'ibve_(buf|json)_|struct ibve_(buf|json) ' "$TOP/$f" ||
			{ echo "$f reads buf.h and writes nothing through it"; false; }
	done
	run -1 grep -l '#include "buf.h"' "$TOP"/lib/*.h "$TOP"/cmd/*.h "$TOP"/cmd/web/*.h
}

@test "touching a header of the library rebuilds only the sources that include it" {
	# make's own graph of this build, with the dependency files the
	# compiler wrote (B as the build was made with)
	b=$(head -1 "$BUILD/obj/lib/buf.d")
	b=${b%%/obj/lib/buf.o:*}
	make -C "$TOP" -qp B="$b" "$b/obj/lib/buf.o" >"$BATS_TEST_TMPDIR/db" ||
		[ $? -eq 1 ] # 1: not up to date, still printed
	# what a header's change remakes, through generated files too (the
	# kernel source's skeleton): the objects of lib/, cmd/, cmd/web/
	made=$(awk -v b="$b/" '
	index($0, b) == 1 && /^[^ #%]+: / {
		t = substr($1, 1, length($1) - 1); sub(/ \|.*/, "")
		for (i = 2; i <= NF; i++) rev[$i] = rev[$i] " " t
	}
	END {
		while (("cd '"$TOP"' && ls lib/*.h lib/bpf/*.h" | getline h) > 0) {
			delete seen; qn = 1; queue[1] = h; out = h
			for (k = 1; k <= qn; k++) {
				m = split(rev[queue[k]], ts, " ")
				for (j = 1; j <= m; j++) {
					if (ts[j] in seen) continue
					seen[ts[j]] = 1; queue[++qn] = ts[j]
					o = ts[j]
					if (sub("^" b "obj/", "", o) && sub(/\.o$/, ".c", o))
						out = out " " o
				}
			}
			print out
		}
	}' "$BATS_TEST_TMPDIR/db")
	run -0 includers
	# each remade source includes the header; every file of lib/ reads
	# util.h, and make knows it (it reads the dependency files)
	while read -r h srcs; do
		inc=" $(awk -v h="$h" '$1 == h { $1 = ""; print }' <<<"$output") "
		for s in $srcs; do
			[[ $inc == *" $s "* ]] ||
				{ echo "touching $h rebuilds $s, which does not include it"; false; }
		done
	done <<<"$made"
	diff <(awk '$1 == "lib/util.h" { $1 = ""; print }' <<<"$made" | tr ' ' '\n' | sort) \
		<(awk '$1 == "lib/util.h" { $1 = ""; print }' <<<"$output" | tr ' ' '\n' | sort)
}

@test "the exporter's archive sees the public API alone, and defines none of the library's symbols" {
	web=("$BUILD"/obj/cmd/web/*.o)
	[ "${#web[@]}" -ge 4 ]
	# the headers it was compiled with (the compiler's record): its own and
	# the public one, none of the library's private ones
	run -0 bash -c "sed 's/[:\\\\]/ /g' '$BUILD'/obj/cmd/web/*.d | tr ' ' '\\n' |
		grep '\\.h\$' | grep -v '^/' | sort -u"
	assert_output --partial include/ibvevent.h
	refute_output --regexp '(^|/)lib/'
	# the library's functions it calls are all exported; it defines none
	nm -D --defined-only "$LIB" | awk '{ sub(/@.*/, "", $3); print $3 }' |
		sort -u >"$BATS_TEST_TMPDIR/exported"
	nm -g --defined-only "$BUILD"/obj/lib/*.o | awk 'NF == 3 { print $3 }' |
		sort -u >"$BATS_TEST_TMPDIR/lib"
	nm -g --defined-only "${web[@]}" | awk 'NF == 3 { print $3 }' |
		sort -u >"$BATS_TEST_TMPDIR/own"
	run -0 bash -c "nm -u ${web[*]} | awk '\$2 ~ /^ibve_/ { print \$2 }' | sort -u |
		comm -23 - '$BATS_TEST_TMPDIR/own' | comm -23 - '$BATS_TEST_TMPDIR/exported'"
	assert_output ''
	run -0 comm -12 "$BATS_TEST_TMPDIR/own" "$BATS_TEST_TMPDIR/lib"
	assert_output ''
}

@test "the library pulls neither libmicrohttpd nor ncurses; the tools are not in it" {
	run ldd "$LIB"
	assert_success
	refute_output --partial microhttpd
	refute_output --partial curses
	run bash -c "nm -D --defined-only '$LIB' | grep -E ' (ibve_http|ibve_inject|ibve_scenario)'"
	assert_failure
}

@test "soname is libibvevent.so.0" {
	run -0 readelf -d "$LIB"
	assert_output --partial 'Library soname: [libibvevent.so.0]'
}

@test "the header compiles alone, as C11 and as C++" {
	echo '#include <ibvevent.h>' >"$BATS_TEST_TMPDIR/h.c"
	gcc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only \
		-I"$TOP/include" "$BATS_TEST_TMPDIR/h.c"
	g++ -x c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only \
		-I"$TOP/include" "$BATS_TEST_TMPDIR/h.c"
}

@test "the man page's examples build against the installed library, and run" {
	dest=$BATS_TEST_TMPDIR/root
	make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/usr >/dev/null
	# each literal block that starts with #include is a program
	awk -v dir="$BATS_TEST_TMPDIR" '
		/^\.Bd -literal/ { n++; f = dir "/ex" n ".c"; inblock = 1; started = 0; next }
		/^\.Ed/ { inblock = 0; next }
		inblock && /^#include/ { started = 1 }
		inblock && started { gsub(/\\e/, "\\"); print > f }
	' "$TOP/man/libibvevent.3"
	[ -f "$BATS_TEST_TMPDIR/ex1.c" ] && [ -f "$BATS_TEST_TMPDIR/ex2.c" ]
	export PKG_CONFIG_SYSROOT_DIR=$dest
	export PKG_CONFIG_LIBDIR=$dest/usr/lib/pkgconfig:/usr/lib/x86_64-linux-gnu/pkgconfig:/usr/share/pkgconfig
	run -0 pkg-config --modversion libibvevent
	assert_output "$(sed -n 's/^VERSION := //p' "$TOP/Makefile")"
	# a sanitized library wants its runtime in the program, first
	san=()
	[ "${IBVEVENT_SANITIZED:-}" != 1 ] || san=("-fsanitize=address,undefined")
	for x in ex1 ex2; do
		# shellcheck disable=SC2046
		gcc -std=c11 -Wall -Wextra -Werror "${san[@]}" "$BATS_TEST_TMPDIR/$x.c" \
			-o "$BATS_TEST_TMPDIR/$x" $(pkg-config --cflags --libs libibvevent)
		LD_LIBRARY_PATH=$dest/usr/lib ldd "$BATS_TEST_TMPDIR/$x" | grep -q "$dest/usr/lib/libibvevent.so.0"
	done
	# the second replays a capture: its port errors, and nothing else
	LD_LIBRARY_PATH=$dest/usr/lib run "$BATS_TEST_TMPDIR/ex2" "$TOP/test/captures/ib-fabric.jsonl"
	assert_success
	assert_equal "${#lines[@]}" "$(grep -c '"event":"PORT_ERR"' "$TOP/test/captures/ib-fabric.jsonl")"
	for l in "${lines[@]}"; do [[ $l == *" PORT_ERR "* ]] || fail "not a PORT_ERR line: $l"; done
	# the first, without RDMA devices, says why in one line
	if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
		LD_LIBRARY_PATH=$dest/usr/lib run "$BATS_TEST_TMPDIR/ex1"
		assert_failure 1
		assert_output --regexp '^example: no RDMA devices found'
	fi
}

@test "make install puts everything under DESTDIR and PREFIX; make uninstall takes it all back" {
	dest=$BATS_TEST_TMPDIR/root
	make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/opt/ibve >/dev/null
	for c in "$TOP"/cmd/ibv_*.c; do
		c=${c##*/}
		c=${c%.c}
		[ -x "$dest/opt/ibve/bin/$c" ]
		[ -L "$dest/opt/ibve/share/bash-completion/completions/$c" ]
		ls "$dest"/opt/ibve/share/man/man*/"$c".[0-9]
	done
	[ -f "$dest/opt/ibve/lib/libibvevent.so.0" ]
	[ -L "$dest/opt/ibve/lib/libibvevent.so" ]
	[ -f "$dest/opt/ibve/include/ibvevent.h" ]
	[ -f "$dest/opt/ibve/share/man/man3/libibvevent.3" ]
	[ -z "$(find "$dest" -name '*.a')" ] # the exporter's archive is the build's own
	grep -qx 'prefix=/opt/ibve' "$dest/opt/ibve/lib/pkgconfig/libibvevent.pc"
	"$dest/opt/ibve/bin/ibv_eventwatch" -V # finds its library through $ORIGIN
	# outside PREFIX only the example of the spec the checks read from /etc
	run -0 find "$dest" -path "$dest/opt/ibve" -prune -o -type f -print
	assert_output "$dest/etc/ibvevent/ports.spec.example"
	make -s -C "$TOP" uninstall DESTDIR="$dest" PREFIX=/opt/ibve >/dev/null
	run -0 find "$dest" -type f -o -type l
	assert_output ''
	[ ! -e "$dest/etc/ibvevent" ] || fail "make uninstall left $dest/etc/ibvevent"
}

@test "the example ports spec: where the checks look for the spec, named in the docs, and valid once uncommented" {
	dest=$BATS_TEST_TMPDIR/root
	make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/usr >/dev/null
	ex=$dest/etc/ibvevent/ports.spec.example
	cmp "$ex" "$TOP/share/ports.spec.example"
	run -0 stat -c %a "$ex"
	assert_output 644
	# beside the spec file that every shipped check reads
	run -0 grep -rhoE '/etc/ibvevent/[a-z.]+' "$dest/usr/share/ibvevent/slurm" \
		"$dest/usr/share/ibvevent/npd"
	assert_equal "$(sort -u <<<"$output")" /etc/ibvevent/ports.spec
	grep -qF /etc/ibvevent/ports.spec.example "$TOP/README.md" || fail "the README does not name it"
	# its lines are commented out: as it is, it is no spec (every port
	# ACTIVE); each line uncommented is one --check takes (status 0 or
	# 1 with the ports of this host, 2 for a spec it refuses)
	run -1 grep -cvE '^(#|$)' "$ex"
	assert_output 0
	sed -n 's/^#\([a-z*]\)/\1/p' "$ex" >"$BATS_TEST_TMPDIR/spec"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/spec")" -ge 3 ] || fail "$(cat "$BATS_TEST_TMPDIR/spec")"
	run --separate-stderr ibv_eventwatch --check --spec-file "$BATS_TEST_TMPDIR/spec"
	[ "$status" -le 1 ] || fail "status $status: $stderr"
	assert_equal "$stderr" ''
}

@test "make install puts every data file where the docs say, its paths substituted; make uninstall removes them" {
	dest=$BATS_TEST_TMPDIR/root
	data=$dest/opt/ibve/share/ibvevent
	make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/opt/ibve >/dev/null
	docs=("$TOP/README.md" "$TOP"/man/*.[0-9])
	# the shipped data: share/'s folders (rules, dashboard, Slurm, node
	# problem detector, schemas), the --all-processes drop-in and the
	# alerts' runbook (rendered from the man page by share/runbook)
	{ find "$TOP"/share/*/ "$TOP/systemd/all-processes.conf.in" -type f
	  echo runbook.html; } | sed 's|.*/||; s|\.in$||' | sort >"$BATS_TEST_TMPDIR/shipped"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/shipped")" -ge 15 ] || fail "$(cat "$BATS_TEST_TMPDIR/shipped")"
	(cd "$data" && find . -type f | sed 's|^\./||' | sort) >"$BATS_TEST_TMPDIR/installed"
	# each installed once, nothing else
	diff -u "$BATS_TEST_TMPDIR/shipped" <(sed 's|.*/||' "$BATS_TEST_TMPDIR/installed" | sort)
	while read -r f; do
		i=$data/$f n=${f##*/}
		src=$(find "$TOP"/share/*/ "$TOP/systemd" -type f \( -name "$n" -o -name "$n.in" \))
		# the runbook: the build's, rendered for the default data
		# directory; mandoc fills its lines, whose breaks then differ
		fill=(cat)
		if [ "$n" = runbook.html ]; then
			src=$BATS_TEST_TMPDIR/runbook.html fill=(tr -s '[:space:]' ' ')
			sed -e 's|file:///usr/local/share/ibvevent|@RUNBOOK_URL@|g' \
				-e 's|/usr/local/share|@DATADIR@|g' \
				"$BUILD/share/prometheus/runbook.html" | "${fill[@]}" >"$src"
		fi
		# where the docs say: DATADIR/ibvevent/F, or F in the README's
		# list under it; a schema in share/ibvevent/schema/ by its name
		case $f in
		schema/*.schema.json)
			grep -qF 'share/ibvevent/schema/' "${docs[@]}" &&
				grep -qF -e "$n" -e "\`${n%.schema.json}\`" "${docs[@]}" ||
				fail "the docs do not name $f"
			;;
		*) grep -qF -e "ibvevent/$f" -e "\`$f\`" "${docs[@]}" || fail "the docs do not name $f" ;;
		esac
		# substituted: no @VAR@ left, the paths the install's own, and
		# what they name installed; otherwise as in the tree
		! grep -nE '@[A-Z_]+@' "$i" || fail "$f: left unsubstituted"
		while read -r p; do
			[ -e "$dest$p" ] || fail "$f names $p, which is not installed"
		done < <(grep -oE '/opt/ibve/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$i")
		if [[ $src == *.in ]]; then
			grep -q /opt/ibve/ "$i" || fail "$f: not substituted for PREFIX=/opt/ibve"
		fi
		sed -e 's|file:///opt/ibve/share/ibvevent|@RUNBOOK_URL@|g' \
			-e 's|/opt/ibve/bin|@BINDIR@|g' -e 's|/opt/ibve/share|@DATADIR@|g' "$i" |
			"${fill[@]}" | cmp - "$src" || fail "$f differs from $src"
		run -0 stat -c %a "$i"
		if [ -x "$src" ]; then assert_output 755; else assert_output 644; fi
	done <"$BATS_TEST_TMPDIR/installed"
	make -s -C "$TOP" uninstall DESTDIR="$dest" PREFIX=/opt/ibve >/dev/null
	[ ! -e "$data" ] || fail "left: $(find "$data")"
}
