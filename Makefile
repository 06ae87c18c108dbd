# SPDX-License-Identifier: MIT
#
#   make deps       install every Debian package the build and tests need
#   make            build the library and the commands into build/
#   make check      unit, fuzz-regression, CLI, subnet (ibsim) and soft-RoCE
#                   guest suites (both kernels; some files one), then
#                   sanitized and memcheck runs
#   make check-vm   only test/rxe, in the guest (KERNEL=6.1 or 6.12)
#   make check-asan / check-tsan / check-valgrind / check-fuzz   one of those
#   make fuzz       each fuzz target for FUZZ_TIME seconds (600)
#   make bench      the benchmarks, into bench/RESULTS.md
#   make soak       an hour of churn under the watcher, into bench/SOAK.md
#   make demo       ibv_eventtop live on soft-RoCE in the guest, on this
#                   terminal, with link flaps and injected events (q quits)
#   make deb        the Debian packages (debian/) into build/deb/, built
#                   by dpkg-buildpackage in a copy of the tree, then
#                   checked by lintian
#   make install    PREFIX=/usr/local DESTDIR= (uninstall likewise); the
#                   journal catalog goes to CATALOGDIR, PREFIX/lib/systemd/
#                   catalog: with PREFIX=/usr where journalctl reads it;
#                   the alerts' runbook links point at RUNBOOK_URL (an
#                   http(s) base where the site serves the installed
#                   runbook.html; by default file://DATADIR/ibvevent);
#                   an example ports spec goes to /etc/ibvevent

VERSION := 0.1.0
SOVERSION := 0

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
# journalctl reads catalogs from /usr/lib/systemd/catalog (PREFIX=/usr)
CATALOGDIR ?= $(PREFIX)/lib/systemd/catalog
DATADIR ?= $(PREFIX)/share
# Where the checks read the ports spec (/etc/ibvevent/ports.spec, whatever
# PREFIX is): an example is installed beside it
SPECDIR := /etc/ibvevent
DESTDIR ?=
# Where the alerts' runbook_url annotations point: RUNBOOK_URL/runbook.html
# #ALERT. The page is installed beside the rules; a site serves that
# directory (or a copy) at an http(s) RUNBOOK_URL a browser can open.
RUNBOOK_URL ?= file://$(DATADIR)/ibvevent

CC ?= cc
CFLAGS ?= -O2 -g
WERROR ?= 1
KERNEL ?= 6.1
VM_SUITE_TIMEOUT ?= 3600

B ?= build
ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @echo "  $(1)	$(2)"
endif
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wno-format-nonliteral
ifeq ($(WERROR),1)
WARN += -Werror
endif
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -Iinclude -I$(B)/gen $(WARN) \
	-DIBVE_VERSION='"$(VERSION)"'
# Each object's dependencies on headers, written by the compiler beside it
# ($(B)/obj/.../x.d, read below), so that a header rebuilds only what
# includes it.
DEPFLAGS = -MMD -MP
# The same for a program compiled and linked from one source file.
LINK_DEPFLAGS = -MMD -MP -MF $@.d -MT $@

# What the library is built with (LIB_PKGS, below: what it links, named
# in its .pc file).
PKGS := libibverbs libibumad json-c
# The mlx5 DEVX event source needs libmlx5's headers; MLX5=0 leaves it out.
MLX5 ?= $(shell printf '\043include <infiniband/mlx5dv.h>\n' | \
	$(CC) -E -x c - >/dev/null 2>&1 && echo 1 || echo 0)
MLX5 := $(MLX5)
ifeq ($(MLX5),1)
BASE_CFLAGS += -DIBVE_HAVE_MLX5
PKGS += libmlx5
endif

# The LLDP peers of RoCE ports need liblldpctl's header; LLDPCTL=0 leaves
# them out (every RoCE port's peer then stays unknown).
LLDPCTL ?= $(shell printf '\043include <lldpctl.h>\n' | \
	$(CC) -E -x c - >/dev/null 2>&1 && echo 1 || echo 0)
LLDPCTL := $(LLDPCTL)
ifeq ($(LLDPCTL),1)
BASE_CFLAGS += -DIBVE_HAVE_LLDPCTL
endif

# The eBPF "kernel" source (--all-processes): clang for the bpf target,
# bpftool for the skeleton, libbpf. BPF=0 leaves it out.
BPFTOOL ?= $(or $(shell command -v bpftool 2>/dev/null),/usr/sbin/bpftool)
BPF_CLANG ?= clang
BPF ?= $(shell pkg-config --exists libbpf 2>/dev/null && \
	command -v $(BPF_CLANG) >/dev/null && test -x $(BPFTOOL) && echo 1 || echo 0)
BPF := $(BPF)
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
	-I/usr/include/$(shell $(CC) -print-multiarch 2>/dev/null) -Ilib/bpf \
	-Wall -Werror
ifeq ($(BPF),1)
BASE_CFLAGS += -DIBVE_HAVE_BPF
PKGS += libbpf
BPF_SKEL := $(B)/gen/events.skel.h
endif
# Files in the tree that make writes (see $(MKTABLES) below).
MKTABLES := $(B)/gen/mktables
GENERATED := share/schema/event.schema.json completions/ibvevent man/ibv_eventwatch.1

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# The library links libibverbs alone: the others of PKGS are loaded
# (dlopen, lib/dl.c) when a source or the JSON reader first needs them,
# by the name each gives itself, so a start loads none it does not use.
LIB_PKGS := libibverbs
LIB_LIBS := $(shell pkg-config --libs $(LIB_PKGS) 2>/dev/null)
# The optional libraries' names, for the loader (lib/dl.c), and for what
# the exporter loads when it needs it (libmicrohttpd for --metrics-listen;
# libyaml, libcrypt (bcrypt) and GnuTLS for --web-config), so that a start
# loads none it does not use. $(call soname,LIB): the soname of LIB.so as
# the compiler finds it.
soname = $(shell objdump -p "$$($(CC) -print-file-name=$(1).so)" 2>/dev/null | \
	awk '$$1 == "SONAME" { print $$2 }')
JSONC_SONAME := $(call soname,libjson-c)
UMAD_SONAME := $(call soname,libibumad)
MLX5_SONAME := $(if $(filter 1,$(MLX5)),$(call soname,libmlx5))
BPF_SONAME := $(if $(filter 1,$(BPF)),$(call soname,libbpf))
LLDPCTL_SONAME := $(if $(filter 1,$(LLDPCTL)),$(call soname,liblldpctl))
DL_CFLAGS := $(foreach l,JSONC UMAD MLX5 BPF LLDPCTL,$(if $($(l)_SONAME),-DIBVE_SONAME_$(l)='"$($(l)_SONAME)"'))
MHD_SONAME := $(call soname,libmicrohttpd)
YAML_SONAME := $(call soname,libyaml)
CRYPT_SONAME := $(call soname,libcrypt)
GNUTLS_SONAME := $(call soname,libgnutls)
TOOL_LIBS := $(shell pkg-config --libs libibverbs 2>/dev/null)

# The programs find the library beside them, in the build and in an
# installation with LIBDIR=PREFIX/lib; a package (debian/rules) sets
# RPATH= and LIBDIR to where the system looks.
RPATH ?= -Wl,-rpath,'$$ORIGIN/../lib'

CMD_LIBS_ibv_eventtop := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo)

LIB_SRCS := $(wildcard lib/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/obj/%.o)
LIB_SO := $(B)/lib/libibvevent.so.$(SOVERSION)
# The exporter of ibv_eventwatch (cmd/web: /metrics, its web configuration,
# basic auth): an archive of its own, not installed, that sees the public
# header alone. The commands link the library's output buffers, the one
# object lib/buf.c makes.
WEB_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(wildcard cmd/web/*.c))
WEB_A := $(B)/lib/libibvevent-web.a
# cmd/ibv_*.c are the commands; the other files are their shared layer
# (common.c) and the parts of one command (top_*.c: ibv_eventtop).
CMDS := $(patsubst cmd/%.c,%,$(wildcard cmd/ibv_*.c))
CMD_BINS := $(CMDS:%=$(B)/bin/%)
CMD_COMMON := $(B)/obj/cmd/common.o $(B)/obj/lib/buf.o
CMD_PARTS_ibv_eventinject := $(patsubst %.c,$(B)/obj/%.o,$(wildcard cmd/inject*.c))
CMD_PARTS_ibv_eventtop := $(patsubst %.c,$(B)/obj/%.o,$(wildcard cmd/top_*.c))
CMD_PARTS_ibv_eventwatch := $(patsubst %.c,$(B)/obj/%.o,$(wildcard cmd/watch_*.c)) $(WEB_A)
UNIT_SRCS := $(wildcard test/unit/*.c)
UNIT_BINS := $(UNIT_SRCS:test/unit/%.c=$(B)/test/%)

# Debian 12 packages for the build, the tests and the soft-RoCE guest.
DEB_PACKAGES := build-essential pkg-config libibverbs-dev ibverbs-providers \
	rdma-core ibverbs-utils libjson-c-dev libncurses-dev \
	bats bats-support bats-assert qemu-system-x86 busybox-static cpio kmod \
	xz-utils iproute2 tmux mandoc shellcheck clang-format bash-completion \
	libbpf-dev bpftool \
	jq strace libmicrohttpd-dev prometheus prometheus-node-exporter \
	rsyslog curl clang libclang-rt-14-dev valgrind time \
	libibumad-dev ibsim-utils opensm infiniband-diags lldpd liblldpctl-dev \
	systemd libsystemd-dev libyaml-dev libcrypt-dev openssl apache2-utils \
	python3-jsonschema python3-yaml slurmctld slurmd slurm-client munge \
	debhelper dpkg-dev lintian libgnutls28-dev

.PHONY: all deb deps check check-unit check-cli check-sm check-vm demo \
	check-format lint install uninstall clean fuzz check-fuzz check-asan check-tsan \
	check-asan-host check-asan-vm \
	check-valgrind \
	bench soak

# What schedulers run (share/slurm, share/npd), with the paths of this
# installation: Slurm's HealthCheckProgram and an NHC check, a node problem
# detector's plugin monitor and its journal monitor, and the detector's
# DaemonSet for Kubernetes.
SCHED := $(B)/share/slurm/ibvevent-healthcheck $(B)/share/slurm/ibvevent.nhc \
	$(B)/share/npd/ibvevent-ports.json $(B)/share/npd/ibvevent-journal.json \
	$(B)/share/npd/ibvevent-daemonset.yaml
# The Prometheus rules with their runbook links, and the runbook they
# point at: the ALERTS section of ibv_eventwatch(1) as HTML.
ALERTING := $(B)/share/prometheus/ibvevent.rules.yml $(B)/share/prometheus/runbook.html

ifneq ($(LIB_SRCS),)
all: $(LIB_SO) $(CMD_BINS) $(B)/ibvevent.catalog $(GENERATED) $(SCHED) $(ALERTING)
else
all:
endif

$(B)/obj/lib/%.o: lib/%.c | $(B)/gen/ibvevent_config.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)
	$(Q)$(CC) $(DEPFLAGS) $(BASE_CFLAGS) $(PKG_CFLAGS) $(DL_CFLAGS) -fPIC -fvisibility=hidden $(CFLAGS) -c $< -o $@

$(B)/obj/cmd/web/%.o: cmd/web/%.c | $(B)/gen/ibvevent_config.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)
	$(Q)$(CC) $(DEPFLAGS) $(BASE_CFLAGS) $(PKG_CFLAGS) \
		$(if $(MHD_SONAME),-DIBVE_MHD_SONAME='"$(MHD_SONAME)"') \
		$(if $(YAML_SONAME),-DIBVE_YAML_SONAME='"$(YAML_SONAME)"') \
		$(if $(CRYPT_SONAME),-DIBVE_CRYPT_SONAME='"$(CRYPT_SONAME)"') \
		$(if $(GNUTLS_SONAME),-DIBVE_GNUTLS_SONAME='"$(GNUTLS_SONAME)"') \
		$(CFLAGS) -c $< -o $@

$(WEB_A): $(WEB_OBJS)
	@mkdir -p $(dir $@)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/obj/cmd/%.o: cmd/%.c | $(B)/gen/ibvevent_config.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)
	$(Q)$(CC) $(DEPFLAGS) $(BASE_CFLAGS) $(PKG_CFLAGS) -Ilib -Icmd/web $(CFLAGS) -c $< -o $@

$(B)/gen/ibvevent_config.h:
	@mkdir -p $(dir $@)
	@echo '/* generated by make */' >$@

# The kernel source's BPF object, embedded in the library as a skeleton.
$(B)/gen/events.bpf.o: lib/bpf/events.bpf.c lib/bpf/kevent.h
	@mkdir -p $(dir $@)
	$(call quiet,BPF,$<)
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/gen/events.skel.h: $(B)/gen/events.bpf.o
	$(call quiet,GEN,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name ibve_kbpf >$@.tmp && mv $@.tmp $@

$(B)/obj/lib/src_kernel.o: $(BPF_SKEL)

$(LIB_SO): $(LIB_OBJS) lib/libibvevent.map
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,libibvevent.so.$(SOVERSION) \
		-Wl,--version-script=lib/libibvevent.map -Wl,-z,defs \
		$(CFLAGS) $(LDFLAGS) $(LIB_OBJS) -o $@ $(LIB_LIBS)
	$(Q)ln -sf libibvevent.so.$(SOVERSION) $(B)/lib/libibvevent.so

# What is derived from the library's tables, written by one program on the
# library's objects (it reads what only the library knows), so that none
# of it can drift: the journal catalog (built), and, kept in the tree and
# made again in place when their inputs change, the JSON schema of a
# record (from its template), the completion's word lists and the man
# pages' tables (between "@gen" and "@end"). test/cli/03-generated.bats
# fails when one of them was edited by hand.
$(MKTABLES): share/mktables.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(LINK_DEPFLAGS) $(BASE_CFLAGS) $(PKG_CFLAGS) -Ilib $(CFLAGS) $(LDFLAGS) $< \
		$(LIB_OBJS) -o $@ $(LIB_LIBS)

$(B)/ibvevent.catalog: $(MKTABLES)
	$(call quiet,GEN,$@)
	$(Q)$< catalog >$@.tmp && mv $@.tmp $@

# Written only when it changes; touched either way, to be newer than its
# inputs.
share/schema/event.schema.json: share/event.schema.in share/event.keys
completions/ibvevent man/ibv_eventwatch.1 share/schema/event.schema.json: $(MKTABLES)
	$(call quiet,GEN,$@)
	$(Q)$(MKTABLES) $(or $(filter %.in,$^),$@) >$@.tmp && \
		{ cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@; } && touch $@

# Objects of the commands are kept (the unit tests link some).
CMD_OBJS := $(patsubst cmd/%.c,$(B)/obj/cmd/%.o,$(wildcard cmd/*.c))
.SECONDARY: $(CMD_OBJS)

.SECONDEXPANSION:
$(B)/bin/%: $(B)/obj/cmd/%.o $$(CMD_PARTS_$$*) $(CMD_COMMON) $(LIB_SO)
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(filter %.o %.a,$^) -o $@ \
		-L$(B)/lib -libvevent $(RPATH) $(TOOL_LIBS) $(CMD_LIBS_$*)

# Unit tests link the library's objects, so internals can be tested too;
# test_top_view, ibv_eventtop's view (ports and processes) as well.
# test_journal reads the entries' JSON with json-c itself, apart from the
# library's table: an independent reading.
UNIT_LIBS_test_journal := -ljson-c
# test_journal reads the catalog the generator wrote.
$(B)/test/test_journal: $(B)/ibvevent.catalog
UNIT_LIBS_test_schema := -ljson-c
# test_source's synthetic source's option in a command's --help.
UNIT_OBJS_test_source := $(B)/obj/cmd/common.o
UNIT_OBJS_test_top_view := $(B)/obj/cmd/top_view.o $(B)/obj/cmd/top_procs.o \
	$(B)/obj/cmd/top_json.o $(B)/obj/cmd/top_layout.o $(B)/obj/cmd/top_log.o
$(B)/test/%: test/unit/%.c $(LIB_OBJS) $$(UNIT_OBJS_$$*)
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(LINK_DEPFLAGS) $(BASE_CFLAGS) $(PKG_CFLAGS) -Ilib -Icmd $(CFLAGS) $(LDFLAGS) $< \
		$(UNIT_OBJS_$*) $(LIB_OBJS) -o $@ $(LIB_LIBS) $(UNIT_LIBS_$*)

deps:
	@if [ "$$(id -u)" != 0 ]; then \
		echo "make deps installs Debian packages: run it as root" >&2; exit 1; fi
	DEBIAN_FRONTEND=noninteractive apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -q -y --no-install-recommends \
		$(DEB_PACKAGES)
	test/vm/run --kernel 6.1 --prepare
	test/vm/run --kernel 6.12 --prepare

# Each suite writes a TAP report under build/tap/ (build/asan/tap/ for
# the sanitized build); .ci/run sums them. Every suite runs, whatever
# failed before it. The guest suites run one after another beside the
# host suites, their output kept in build/guest.log and shown when they
# end: on two CPUs the run takes about the longer of the two chains
# rather than their sum (each about 40 minutes here). What both
# chains use is built first. A guest has one CPU: with MTTCG's second a
# file took 19% more CPU time, and no less wall time. The guest suite
# runs on both kernels: the plain build on 6.1, the ASan build on 6.12
# (no test of it skips under ASan, so one run covers both builds). The
# files that say "One kernel" in their header, whose subject lies above
# the RDMA stack (the dashboard, the sinks, Slurm, the schedulers' checks,
# LLDP), run only on 6.12: the stack under them runs on both kernels in
# the other files. Without the ASan build, the plain build runs on 6.12
# instead. The guest chain is the longer (44 minutes to the host's 40 on
# the last measure): 6.1's files of RXE_LATE (about two minutes) run after
# the host suites instead, in a guest of their own (build/tap/rxe-6.1-late),
# so that the two chains end together.
RXE_ALL := $(sort $(wildcard test/rxe/*.bats))
RXE_ONE_KERNEL := $(shell grep -l '^\# One kernel' $(RXE_ALL))
RXE_EACH_KERNEL := $(filter-out $(RXE_ONE_KERNEL),$(RXE_ALL))
RXE_LATE := test/rxe/70-operator.bats test/rxe/91-autopsy.bats \
	test/rxe/95-counters.bats
check: all
	@rm -rf $(B)/tap $(B)/asan/tap $(ASAN_REPORTS) $(ASAN_GUEST_REPORTS); rc=0; \
	$(MAKE) --no-print-directory $(UNIT_BINS) $(BENCH_BINS) $(B)/helpers/seccomp-errno || rc=1; \
	asan=1; $(ASAN_MAKE) all $(B)/asan/helpers/seccomp-errno || { rc=1; asan=0; }; \
	echo "check: the guest suites run beside the others; their output: $(B)/guest.log"; \
	( grc=0; \
	  $(MAKE) --no-print-directory check-vm KERNEL=6.1 \
		RXE_TESTS="$(filter-out $(RXE_LATE),$(RXE_EACH_KERNEL))" || grc=1; \
	  if [ $$asan = 1 ]; then $(MAKE) --no-print-directory check-asan-vm || grc=1; \
	  else $(MAKE) --no-print-directory check-vm KERNEL=6.12 || grc=1; fi; \
	  exit $$grc ) >$(B)/guest.log 2>&1 </dev/null & guest=$$!; \
	$(MAKE) --no-print-directory check-unit || rc=1; \
	$(MAKE) --no-print-directory check-fuzz || rc=1; \
	$(MAKE) --no-print-directory check-cli || rc=1; \
	$(MAKE) --no-print-directory check-sm || rc=1; \
	$(MAKE) --no-print-directory check-asan-host || rc=1; \
	$(MAKE) --no-print-directory check-tsan || rc=1; \
	$(MAKE) --no-print-directory check-valgrind || rc=1; \
	$(MAKE) --no-print-directory check-vm KERNEL=6.1 RXE_TESTS="$(RXE_LATE)" \
		VM_TAP=$(abspath $(B)/tap/rxe-6.1-late) || rc=1; \
	wait $$guest || rc=1; \
	echo "check: the guest suites' output ($(B)/guest.log):"; cat $(B)/guest.log; \
	$(call reports_tap,$(B)/asan/tap/reports/reports.tap,$(ASAN_REPORTS) $(ASAN_GUEST_REPORTS),ASan and UBSan); \
	exit $$rc

check-unit: $(UNIT_BINS)
	@mkdir -p $(B)/tap/unit
	@rc=0; for t in $(UNIT_BINS); do \
		echo "# $$t"; \
		$$t >$(B)/tap/unit/$$(basename $$t).tap || rc=1; \
		cat $(B)/tap/unit/$$(basename $$t).tap; \
	done; exit $$rc

# bench/: the generator links the library like any program; the floor
# the injector too, for its verbs-only mode.
BENCH_BINS := $(B)/bench/gen $(B)/bench/floor

$(B)/bench/gen: bench/gen.c $(LIB_SO) include/ibvevent.h
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@ \
		-L$(B)/lib -libvevent -Wl,-rpath,'$$ORIGIN/../lib' $(LIB_LIBS)

FLOOR_OBJS := $(CMD_PARTS_ibv_eventinject)
$(B)/bench/floor: bench/floor.c $(FLOOR_OBJS) $(LIB_SO) include/ibvevent.h \
		cmd/inject.h
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(PKG_CFLAGS) -Icmd $(CFLAGS) $(LDFLAGS) $< \
		$(FLOOR_OBJS) -o $@ -L$(B)/lib -libvevent \
		-Wl,-rpath,'$$ORIGIN/../lib' $(TOOL_LIBS)

# The figures: bench/RESULTS.md, at full size, the guest on BENCH_KERNEL.
BENCH_KERNEL ?= 6.12
bench: all $(BENCH_BINS)
	BUILD=$(abspath $(B)) bench/run --kernel $(BENCH_KERNEL) -o bench/RESULTS.md

# Growth of the watcher under churn: bench/SOAK.md (not part of check).
SOAK_MINUTES ?= 60
soak: all
	BUILD=$(abspath $(B)) bench/soak --minutes $(SOAK_MINUTES) \
		--kernel $(BENCH_KERNEL) -o bench/SOAK.md

# BUILD tells the suites which build to test (test/test_helper.bash).
# The sanitizer and memcheck runs leave out the suites that test the
# harness, the demo and the Debian package, which run no command of this
# build, those that check the tree (conventions, the generated files),
# whose commands run only their --help and -V paths (over a minute under
# memcheck), and the alert rules' (a minute of promtool and Prometheus;
# the replays that make their series run in the metrics suite).
# memcheck leaves out the library's suite too: its examples build their
# own programs, which it cannot wrap (ASan builds them sanitized); and,
# for make check's time (3 of its 11 minutes), the suites of the
# dashboard and the schedulers, which ASan runs: memcheck's own finds,
# reads of memory never written, are not looked for in the dashboard's
# screen.
CLI_TESTS ?= test/cli
CLI_OWN := $(filter-out test/cli/00-vm-harness.bats test/cli/40-demo.bats \
	test/cli/56-package.bats test/cli/01-conventions.bats \
	test/cli/03-generated.bats test/cli/51-alerts.bats, \
	$(wildcard test/cli/*.bats))
CLI_MEMCHECK := $(filter-out test/cli/02-library.bats test/cli/30-eventtop.bats \
	test/cli/53-schedulers.bats, $(CLI_OWN))
# test/sm: subnet events from OpenSM on an ibsim fabric, on the host.
# A test client, never sanitized: it runs under ibsim's preload alone.
$(B)/sm/mcg: test/sm/mcg.c
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) -O2 -g $< -o $@ -libumad

# Preloaded into OpenSM after umad2sim: the P_Key index umad2sim leaves
# unset in a MAD it delivers (test/sm/pkey0.c). Never sanitized.
$(B)/sm/pkey0.so: test/sm/pkey0.c
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) -O2 -g -shared -fPIC $< -o $@ -libumad -ldl

# A test helper: runs a command with a seccomp filter that fails its opens
# of a umad device with EACCES. Never sanitized.
$(B)/sm/deny: test/sm/deny.c
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) -O2 -g $< -o $@

# A test client built like this build's programs (sanitized in build/asan
# and build/tsan): passes buffers of its own through ibsim's preload, the
# right size or, on purpose, not, or written by another thread while the
# simulator copies them, for the sanitizer suppressions to be tested on.
$(B)/sm/overrun: test/sm/overrun.c
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@ -libumad -lpthread

# A program of this build, on the library like any: the subnet source with
# a replay source beside it, for the port events ibsim cannot raise.
$(B)/sm/resub: test/sm/resub.c $(LIB_SO) include/ibvevent.h
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@ \
		-L$(B)/lib -libvevent -Wl,-rpath,'$$ORIGIN/../lib' $(LIB_LIBS)

# Every JSON line a suite's programs print or write is kept (IBVEVENT_COLLECT,
# test/test_helper.bash) and validated against share/schema/ once the suite
# has run, into the suite's schema.tap; test/cli does it in its last file.
# $(call schema_tap,DIR): validate what was collected in DIR/json-lines.
define schema_tap
	test/schema-check --tap --collected $(1)/json-lines >$(1)/schema.tap || rc=1; \
	cat $(1)/schema.tap
endef

check-sm: all $(B)/sm/mcg $(B)/sm/resub $(B)/sm/overrun $(B)/sm/deny \
	$(B)/sm/pkey0.so
	@rm -rf $(B)/tap/sm/json-lines && mkdir -p $(B)/tap/sm
	@rc=0; BUILD=$(abspath $(B)) IBVEVENT_COLLECT=$(abspath $(B)/tap/sm/json-lines) \
		bats --timing --report-formatter tap -o $(B)/tap/sm test/sm || rc=1; \
	$(call schema_tap,$(B)/tap/sm); exit $$rc

check-cli: all $(BENCH_BINS)
	@mkdir -p $(B)/tap/cli
	BUILD=$(abspath $(B)) bats --timing --report-formatter tap -o $(B)/tap/cli $(CLI_TESTS)

# A helper of test/rxe: a command run with one system call failing.
$(B)/helpers/seccomp-errno: test/seccomp-errno.c
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@

# A helper of test/rxe: the sources named, and no other, on the library
# (for a source no option asks for yet).
$(B)/helpers/sources: test/sources.c $(LIB_SO) include/ibvevent.h
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@ \
		-L$(B)/lib -libvevent -Wl,-rpath,'$$ORIGIN/../lib' $(LIB_LIBS)

# The guest collects into the results directory; the host validates.
# RXE_TESTS: the files to run (all of test/rxe). The guest has one CPU
# unless VM_CPUS says otherwise (make check's reason, above).
RXE_TESTS ?= test/rxe
VM_TAP = $(abspath $(B)/tap/rxe-$(KERNEL))
check-vm: all $(B)/helpers/seccomp-errno $(B)/helpers/sources
	@rm -rf $(VM_TAP)/json-lines && mkdir -p $(VM_TAP)
	@rc=0; BUILD=$(abspath $(B)) IBVEVENT_COLLECT=$(VM_TAP)/json-lines \
		VM_ENV="BUILD IBVEVENT_COLLECT $(VM_ENV)" VM_TIMEOUT=$(VM_SUITE_TIMEOUT) \
		VM_RESULTS=$(VM_TAP) VM_CPUS=$${VM_CPUS:-1} \
		test/vm/run --kernel $(KERNEL) -- \
		bats --timing --report-formatter tap -o $(VM_TAP) $(RXE_TESTS) || rc=1; \
	$(call schema_tap,$(VM_TAP)); exit $$rc

# The same suites with AddressSanitizer and UBSan built in (build/asan),
# the guest suite on ASAN_KERNEL, and the subnet suite (whose source runs
# threads) with ThreadSanitizer too (build/tsan). The sanitizers end a
# program with status 86 and write each report to a file of the suite's
# reports directory (IBVEVENT_REPORTS): the test during which a report
# appeared fails (test/test_helper.bash), and a last test lists them all.
ASAN_KERNEL ?= 6.12
SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
TSAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
# $(call san_env,DIR): the environment of a sanitized suite reporting to DIR
san_env = ASAN_OPTIONS=exitcode=86:detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:suppressions=$(abspath test/asan.supp):log_path=$(1)/asan \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86:log_path=$(1)/ubsan \
	LSAN_OPTIONS=exitcode=86:suppressions=$(abspath test/lsan.supp):print_suppressions=0:log_path=$(1)/lsan \
	TSAN_OPTIONS=exitcode=86:halt_on_error=0:suppressions=$(abspath test/tsan.supp):log_path=$(1)/tsan \
	IBVEVENT_SANITIZED=1 IBVEVENT_REPORTS=$(1)
SAN_VARS := ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS \
	IBVEVENT_SANITIZED IBVEVENT_REPORTS
ASAN_MAKE = $(MAKE) --no-print-directory B=$(B)/asan CFLAGS="$(SAN_FLAGS)" \
	LDFLAGS="$(SAN_FLAGS)"
TSAN_MAKE = $(MAKE) --no-print-directory B=$(B)/tsan CFLAGS="$(TSAN_FLAGS)" \
	LDFLAGS="$(TSAN_FLAGS)"
ASAN_REPORTS := $(abspath $(B)/asan/reports)
# under the guest's results share (VM_TAP), the only place it may write
ASAN_GUEST_REPORTS := $(abspath $(B)/asan/tap/rxe-$(ASAN_KERNEL)/reports)
TSAN_REPORTS := $(abspath $(B)/tsan/reports)
# Programs run under ibsim's LD_PRELOAD need the sanitizer's runtime too
# (test/sm/fabric.bash says where in the list).
ASAN_RUNTIME = $(shell $(CC) -print-file-name=libasan.so)
TSAN_RUNTIME = $(shell $(CC) -print-file-name=libtsan.so)

# $(call reports_tap,NAME,DIRS...): one TAP test: no report in DIRS.
define reports_tap
	mkdir -p $(dir $(1)); \
	bad=$$(find $(2) -type f -size +0 2>/dev/null | sort); \
	if [ -z "$$bad" ]; then echo "ok 1 $(3): no report in any run" >$(1); \
	else echo "not ok 1 $(3): reports in $$(echo "$$bad" | wc -l) runs" >$(1); \
		for f in $$bad; do echo "# $$f:"; sed 's/^/# /' $$f; done >>$(1); rc=1; fi; \
	echo 1..1 >>$(1); cat $(1)
endef

# check-asan: all of it; check-asan-host and check-asan-vm: its parts on
# the host and in the guest (make check runs them apart), on an ASan build
# made beforehand.
check-asan:
	@rc=0; rm -rf $(ASAN_REPORTS) $(ASAN_GUEST_REPORTS); \
	$(ASAN_MAKE) all || exit 1; \
	$(MAKE) --no-print-directory check-asan-host || rc=1; \
	$(MAKE) --no-print-directory check-asan-vm || rc=1; \
	$(call reports_tap,$(B)/asan/tap/reports/reports.tap,$(ASAN_REPORTS) $(ASAN_GUEST_REPORTS),ASan and UBSan); \
	exit $$rc

check-asan-host:
	@rc=0; mkdir -p $(ASAN_REPORTS)/unit $(ASAN_REPORTS)/fuzz $(ASAN_REPORTS)/cli $(ASAN_REPORTS)/sm; \
	env $(call san_env,$(ASAN_REPORTS)/unit) $(ASAN_MAKE) check-unit || rc=1; \
	env $(call san_env,$(ASAN_REPORTS)/fuzz) $(ASAN_MAKE) FUZZ_CHECK_TIME=0 check-fuzz || rc=1; \
	env $(call san_env,$(ASAN_REPORTS)/cli) $(ASAN_MAKE) CLI_TESTS="$(CLI_OWN)" check-cli || rc=1; \
	env $(call san_env,$(ASAN_REPORTS)/sm) IBVEVENT_PRELOAD_BEFORE=$(ASAN_RUNTIME) \
		$(ASAN_MAKE) check-sm || rc=1; \
	exit $$rc

check-asan-vm:
	@env $(call san_env,$(ASAN_GUEST_REPORTS)) $(ASAN_MAKE) KERNEL=$(ASAN_KERNEL) \
		VM_ENV="$(SAN_VARS)" check-vm

# ThreadSanitizer on the subnet source's receiver threads, under ibsim,
# and on the loader of optional libraries, which threads may call at once.
check-tsan:
	@rc=0; rm -rf $(TSAN_REPORTS); mkdir -p $(TSAN_REPORTS); \
	$(TSAN_MAKE) all || exit 1; \
	env $(call san_env,$(TSAN_REPORTS)) $(TSAN_MAKE) \
		UNIT_SRCS=test/unit/test_dl.c check-unit || rc=1; \
	env $(call san_env,$(TSAN_REPORTS)) IBVEVENT_PRELOAD_AFTER=$(TSAN_RUNTIME) \
		$(TSAN_MAKE) check-sm || rc=1; \
	$(call reports_tap,$(B)/tsan/tap/reports/reports.tap,$(TSAN_REPORTS),ThreadSanitizer); \
	exit $$rc

# The CLI suite with every command run under valgrind's memcheck
# (test/memcheck says how).
check-valgrind: all
	@test/memcheck $(B) $(CLI_MEMCHECK)


# Always rewritten: PREFIX and LIBDIR may differ from the last run.
$(B)/libibvevent.pc: lib/libibvevent.pc.in FORCE
	@mkdir -p $(dir $@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		-e 's|@REQUIRES@|$(LIB_PKGS)|' $< >$@

MANPAGES := $(wildcard man/*.[0-9])
# The JSON Schemas of what the tools print (share/schema/).
SCHEMAS := $(wildcard share/schema/*.schema.json)

$(B)/ibv_eventwatch.service: systemd/ibv_eventwatch.service.in FORCE
	@mkdir -p $(dir $@)
	$(Q)sed -e 's|@BINDIR@|$(BINDIR)|' $< >$@

# The build's copies have the paths of the build's PREFIX; an install
# writes its own (below), so that "make install PREFIX=/usr" (as the tests
# do, into a DESTDIR) leaves the copies the tests run as they were.
# RUNBOOK_URL is checked first: an http(s) or file URL, with no character
# that sed, YAML or a shell would take for its own, no trailing slash.
check_runbook_url = case '$(RUNBOOK_URL)' in \
	http://?*|https://?*|file:///*) ;; *) false ;; esac && \
	case '$(RUNBOOK_URL)' in *[!A-Za-z0-9._~:/%@+=,-]*|*/) false ;; esac || \
	{ echo "make: RUNBOOK_URL=$(RUNBOOK_URL): not an http://, https:// or file:// URL without a trailing slash" >&2; exit 1; }
sched_subst = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DATADIR@|$(DATADIR)|g' \
	-e 's|@RUNBOOK_URL@|$(RUNBOOK_URL)|g'
$(B)/share/%: share/%.in
	@mkdir -p $(dir $@)
	@$(check_runbook_url)
	$(Q)$(sched_subst) $< >$@.tmp
	$(Q)if [ -x $< ]; then chmod 755 $@.tmp; fi; mv $@.tmp $@

# The build's runbook names the man page's default data directory; an
# install renders its own.
$(B)/share/prometheus/runbook.html: share/runbook man/ibv_eventwatch.1
	@mkdir -p $(dir $@)
	$(call quiet,GEN,$@)
	$(Q)share/runbook man/ibv_eventwatch.1 >$@.tmp && mv $@.tmp $@

$(B)/share/npd/ibvevent-journal.json: share/npd/ibvevent-journal.json
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

# The --all-processes drop-in: installed as an example, not enabled.
$(B)/all-processes.conf: systemd/all-processes.conf.in FORCE
	@mkdir -p $(dir $@)
	$(Q)sed -e 's|@BINDIR@|$(BINDIR)|' -e 's|@DATADIR@|$(DATADIR)|' $< >$@

install: all $(B)/libibvevent.pc $(B)/ibv_eventwatch.service $(B)/all-processes.conf
	@$(check_runbook_url)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(DATADIR)/ibvevent/schema \
		$(DESTDIR)$(DATADIR)/ibvevent/grafana $(DESTDIR)$(CATALOGDIR)
	install -m 644 $(B)/ibv_eventwatch.service $(DESTDIR)$(SYSTEMDUNITDIR)/
	install -m 644 $(B)/ibvevent.catalog $(DESTDIR)$(CATALOGDIR)/
	install -m 644 $(B)/all-processes.conf $(DESTDIR)$(DATADIR)/ibvevent/
	$(sched_subst) share/prometheus/ibvevent.rules.yml.in \
		>$(DESTDIR)$(DATADIR)/ibvevent/ibvevent.rules.yml
	chmod 644 $(DESTDIR)$(DATADIR)/ibvevent/ibvevent.rules.yml
	share/runbook man/ibv_eventwatch.1 $(DATADIR) >$(DESTDIR)$(DATADIR)/ibvevent/runbook.html
	chmod 644 $(DESTDIR)$(DATADIR)/ibvevent/runbook.html
	install -m 644 share/grafana/ibvevent-fleet.json $(DESTDIR)$(DATADIR)/ibvevent/grafana/
	install -d $(DESTDIR)$(DATADIR)/ibvevent/slurm $(DESTDIR)$(DATADIR)/ibvevent/npd
	for f in slurm/ibvevent-healthcheck slurm/ibvevent.nhc npd/ibvevent-ports.json \
		npd/ibvevent-daemonset.yaml; do \
		$(sched_subst) share/$$f.in >$(DESTDIR)$(DATADIR)/ibvevent/$$f && \
		chmod $$(if [ -x share/$$f.in ]; then echo 755; else echo 644; fi) \
			$(DESTDIR)$(DATADIR)/ibvevent/$$f || exit 1; done
	install -m 644 share/npd/ibvevent-journal.json $(DESTDIR)$(DATADIR)/ibvevent/npd/
	install -d $(DESTDIR)$(SPECDIR)
	install -m 644 share/ports.spec.example $(DESTDIR)$(SPECDIR)/
	install -m 644 $(SCHEMAS) $(DESTDIR)$(DATADIR)/ibvevent/schema/
	install -m 755 $(CMD_BINS) $(DESTDIR)$(BINDIR)/
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libibvevent.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libibvevent.so
	install -m 644 include/ibvevent.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(B)/libibvevent.pc $(DESTDIR)$(PKGCONFIGDIR)/
	for m in $(MANPAGES); do \
		s=$${m##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
		install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	install -m 644 completions/ibvevent $(DESTDIR)$(BASHCOMPDIR)/ibvevent
	for c in $(CMDS); do ln -sf ibvevent $(DESTDIR)$(BASHCOMPDIR)/$$c; done

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(CMDS))
	rm -f $(DESTDIR)$(LIBDIR)/libibvevent.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libibvevent.so
	rm -f $(DESTDIR)$(INCLUDEDIR)/ibvevent.h $(DESTDIR)$(PKGCONFIGDIR)/libibvevent.pc
	for m in $(MANPAGES); do \
		rm -f $(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/}; done
	rm -f $(DESTDIR)$(BASHCOMPDIR)/ibvevent $(addprefix $(DESTDIR)$(BASHCOMPDIR)/,$(CMDS))
	rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/ibv_eventwatch.service
	rm -f $(DESTDIR)$(CATALOGDIR)/ibvevent.catalog
	rm -f $(DESTDIR)$(DATADIR)/ibvevent/all-processes.conf
	rm -f $(DESTDIR)$(DATADIR)/ibvevent/ibvevent.rules.yml $(DESTDIR)$(DATADIR)/ibvevent/runbook.html
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/ibvevent/,slurm/ibvevent-healthcheck \
		slurm/ibvevent.nhc npd/ibvevent-ports.json npd/ibvevent-journal.json \
		npd/ibvevent-daemonset.yaml)
	-rmdir $(DESTDIR)$(DATADIR)/ibvevent/slurm $(DESTDIR)$(DATADIR)/ibvevent/npd 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/ibvevent/schema/,$(notdir $(SCHEMAS)))
	-rmdir $(DESTDIR)$(DATADIR)/ibvevent/schema 2>/dev/null
	rm -f $(DESTDIR)$(DATADIR)/ibvevent/grafana/ibvevent-fleet.json
	-rmdir $(DESTDIR)$(DATADIR)/ibvevent/grafana 2>/dev/null
	-rmdir $(DESTDIR)$(DATADIR)/ibvevent 2>/dev/null
	rm -f $(DESTDIR)$(SPECDIR)/ports.spec.example
	-rmdir $(DESTDIR)$(SPECDIR) 2>/dev/null

# The Debian packages, built in a copy of the tree (dpkg-buildpackage
# writes beside the tree it builds), with none of this make's variables:
# debian/rules says how it builds (make install into debian/tmp). As
# many jobs as CPUs, or DEB_BUILD_OPTIONS=parallel=N (dpkg-buildpackage's
# own default: a -j here would override it).
DEB_DIR := $(B)/deb
DEB_SRC := $(DEB_DIR)/ibvevent-$(VERSION)
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	tar -cf - --exclude-vcs --exclude=./build --exclude='./build-*' --exclude=./$(B) \
		--exclude=./debian/build . | \
		tar -C $(DEB_SRC) -xf -
	cd $(DEB_SRC) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u LDFLAGS \
		dpkg-buildpackage -us -uc -b
	rm -rf $(DEB_SRC)
	lintian -I --fail-on error $(DEB_DIR)/*.changes >$(DEB_DIR)/lintian.log 2>&1 || \
		{ cat $(DEB_DIR)/lintian.log; exit 1; }
	grep -v '^I: ' $(DEB_DIR)/lintian.log || true

demo: all
	@VM_TIMEOUT=$${VM_TIMEOUT:-86400} test/vm/run --kernel $(KERNEL) --tty -- test/vm/demo

# Fuzzing. Each test/fuzz/fuzz_NAME.c is one libFuzzer target, built with
# clang over the library's sources; the same file linked with driver.c is a
# plain program that make check runs over the seeds and the regressions
# (inputs that once crashed, test/fuzz/regressions/NAME/).
FUZZ_TARGETS := $(patsubst test/fuzz/fuzz_%.c,%,$(wildcard test/fuzz/fuzz_*.c))
FUZZ_CC ?= clang
FUZZ_TIME ?= 600
FUZZ_CHECK_TIME ?= 10
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

# The targets of the exporter's code (cmd/web) link those files of it.
FUZZ_TOOLS_webconfig := cmd/web/webconfig.c cmd/web/auth.c cmd/web/load.c
FUZZ_TOOLS_http := $(FUZZ_TOOLS_webconfig) cmd/web/http.c
FUZZ_TOOLS := $(FUZZ_TOOLS_http)
FUZZ_TOOLS_CFLAGS := $(foreach l,MHD YAML CRYPT GNUTLS,$(if $($(l)_SONAME),-DIBVE_$(l)_SONAME='"$($(l)_SONAME)"'))

# The library and the exporter's files are compiled once for all the
# targets (fuzzer-no-link: instrumented, no main); each target links them.
# One clang run a target over every source took 4 of make check's minutes.
FUZZ_OBJ := $(B)/fuzz/obj
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(FUZZ_OBJ)/%.o)
$(FUZZ_OBJ)/%.o: %.c | $(B)/gen/ibvevent_config.h
	@mkdir -p $(dir $@)
	$(call quiet,FUZZCC,$<)
	$(Q)$(FUZZ_CC) $(DEPFLAGS) $(BASE_CFLAGS) $(PKG_CFLAGS) $(DL_CFLAGS) $(FUZZ_TOOLS_CFLAGS) \
		-Ilib -Icmd/web $(subst fuzzer,fuzzer-no-link,$(FUZZ_FLAGS)) -c $< -o $@

$(FUZZ_OBJ)/lib/src_kernel.o: $(BPF_SKEL)

$(B)/fuzz/fuzz_%: test/fuzz/fuzz_%.c $(wildcard test/fuzz/*.h) $(FUZZ_LIB_OBJS) \
		$(FUZZ_TOOLS:%.c=$(FUZZ_OBJ)/%.o) | $(B)/gen/ibvevent_config.h
	@mkdir -p $(dir $@)
	$(call quiet,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(LINK_DEPFLAGS) $(BASE_CFLAGS) $(PKG_CFLAGS) $(DL_CFLAGS) $(FUZZ_TOOLS_CFLAGS) \
		-Ilib -Icmd/web $(FUZZ_FLAGS) $< $(FUZZ_LIB_OBJS) \
		$(FUZZ_TOOLS_$*:%.c=$(FUZZ_OBJ)/%.o) -o $@ $(LIB_LIBS)

$(B)/fuzz-run/fuzz_%: test/fuzz/fuzz_%.c test/fuzz/driver.c $(wildcard test/fuzz/*.h) $(LIB_OBJS) \
		$(FUZZ_TOOLS:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(PKG_CFLAGS) -Ilib -Icmd/web $(CFLAGS) $(LDFLAGS) $< \
		test/fuzz/driver.c $(LIB_OBJS) $(FUZZ_TOOLS_$*:%.c=$(B)/obj/%.o) \
		-o $@ $(LIB_LIBS)

$(B)/fuzz-seeds/.done: test/fuzz/seeds $(wildcard test/captures/*.jsonl test/expected/*.jsonl test/fuzz/inputs/*)
	$(Q)rm -rf $(dir $@) && test/fuzz/seeds $(dir $@) && touch $@

# make fuzz: every target for FUZZ_TIME seconds (FUZZ=NAME for one); the
# corpus grows in build/fuzz/corpus, crashes land in build/fuzz/crashes.
fuzz: SHELL := /bin/bash
fuzz: $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%) $(B)/fuzz-seeds/.done
	@for t in $(or $(FUZZ),$(FUZZ_TARGETS)); do \
		mkdir -p $(B)/fuzz/corpus/$$t $(B)/fuzz/crashes/$$t test/fuzz/regressions/$$t; \
		echo "fuzz: $$t for $(FUZZ_TIME) s"; \
		$(B)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_TIME) -print_final_stats=1 \
			-artifact_prefix=$(B)/fuzz/crashes/$$t/ $(B)/fuzz/corpus/$$t \
			$(B)/fuzz-seeds/$$t test/fuzz/regressions/$$t 2>&1 | \
			grep -E '^(stat::|INFO: (seed|Running)|==|SUMMARY|Done|#[0-9]+ *DONE|fuzz_[a-z0-9_]+: )' ; \
		[ "$${PIPESTATUS[0]}" = 0 ] || exit 1; \
	done

# make check: the seeds and the regressions through every target, then a
# short libFuzzer run of each (FUZZ_CHECK_TIME=0 skips it; so does a
# machine without clang or its fuzzer runtime, saying so; a target that
# does not build fails).
FUZZ_RUNTIME = $(shell $(FUZZ_CC) -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
check-fuzz: $(FUZZ_TARGETS:%=$(B)/fuzz-run/fuzz_%) $(B)/fuzz-seeds/.done
	@FUZZ_CC=$(FUZZ_CC) FUZZ_RUNTIME=$(FUZZ_RUNTIME) MAKE="$(MAKE)" \
		test/fuzz/check $(B) $(FUZZ_CHECK_TIME) $(FUZZ_TARGETS)

lint:
	shellcheck test/vm/run test/vm/init test/vm/demo test/fuzz/seeds test/fuzz/check test/memcheck \
		test/alerts/promtool-test test/install-node test/captures/storm.sh bench/run bench/guest bench/soak \
		bench/soak-guest .ci/run share/runbook
	shellcheck -s bash test/*.bash test/cli/*.bash test/rxe/*.bash completions/ibvevent share/slurm/ibvevent.nhc.in
	shellcheck -s sh share/slurm/ibvevent-healthcheck.in debian/ibvevent.postrm
	mandoc -Tlint -W warning $(MANPAGES)

check-format:
	clang-format --dry-run -Werror $(wildcard include/*.h lib/*.[ch] lib/bpf/*.[ch] cmd/*.[ch] cmd/web/*.[ch] test/unit/*.[ch] test/fuzz/*.c test/sm/*.c bench/*.c share/*.c)

clean:
	rm -rf $(B)

FORCE:

-include $(wildcard $(B)/obj/*/*.d $(B)/obj/*/*/*.d $(B)/obj/*/*/*/*.d \
	$(B)/test/*.d $(B)/gen/*.d $(FUZZ_OBJ)/*/*.d $(FUZZ_OBJ)/*/*/*.d $(B)/fuzz/*.d)
