#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# libibvevent as a library: exported symbols, header, install, pkg-config.

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

@test "every exported symbol is versioned IBVEVENT_0.1; nothing internal leaks" {
	run bash -c "nm -D --defined-only '$LIB' | awk '\$2 == \"T\" && \$3 !~ /@@IBVEVENT_0\\.1\$/'"
	assert_output ''
	run bash -c "nm -D --defined-only '$LIB' | grep -E ' (ibve_buf|ibve_hotplug|ibve_parse)'"
	assert_failure
}

@test "soname is libibvevent.so.0" {
	run readelf -d "$LIB"
	assert_output --partial 'Library soname: [libibvevent.so.0]'
}

@test "the header compiles alone, as C11 and as C++" {
	echo '#include <ibvevent.h>' >"$BATS_TEST_TMPDIR/h.c"
	gcc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only \
		-I"$TOP/include" "$BATS_TEST_TMPDIR/h.c"
	g++ -x c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only \
		-I"$TOP/include" "$BATS_TEST_TMPDIR/h.c"
}

@test "the man page's example builds against the installed library" {
	dest=$BATS_TEST_TMPDIR/root
	make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/usr >/dev/null
	sed -n '/^#include <poll.h>/,/^}/p' "$TOP/man/libibvevent.3" |
		sed 's/\\e/\\/g' >"$BATS_TEST_TMPDIR/ex.c"
	export PKG_CONFIG_SYSROOT_DIR=$dest
	export PKG_CONFIG_LIBDIR=$dest/usr/lib/pkgconfig:/usr/lib/x86_64-linux-gnu/pkgconfig:/usr/share/pkgconfig
	run pkg-config --modversion libibvevent
	assert_output "$(sed -n 's/^VERSION := //p' "$TOP/Makefile")"
	# shellcheck disable=SC2046
	gcc -std=c11 -Wall -Werror "$BATS_TEST_TMPDIR/ex.c" -o "$BATS_TEST_TMPDIR/ex" \
		$(pkg-config --cflags --libs libibvevent)
	LD_LIBRARY_PATH=$dest/usr/lib ldd "$BATS_TEST_TMPDIR/ex" | grep -q "$dest/usr/lib/libibvevent.so.0"
}

@test "make install puts everything under DESTDIR and PREFIX; make uninstall takes it all back" {
	dest=$BATS_TEST_TMPDIR/root
	make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/opt/ibve >/dev/null
	for c in "$TOP"/cmd/*.c; do
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
	grep -qx 'prefix=/opt/ibve' "$dest/opt/ibve/lib/pkgconfig/libibvevent.pc"
	"$dest/opt/ibve/bin/ibv_eventwatch" -V # finds its library through $ORIGIN
	[ -z "$(find "$dest" -path "$dest/opt/ibve" -prune -o -type f -print)" ]
	make -s -C "$TOP" uninstall DESTDIR="$dest" PREFIX=/opt/ibve >/dev/null
	run find "$dest" -type f -o -type l
	assert_output ''
}
