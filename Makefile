# SPDX-License-Identifier: MIT
#
# ringtrace top-level Makefile, Kbuild-like:
#   make            build build/lib/libringtrace{,-consumer,-read}.*, build/bin/*
#   make V=1        show full commands;  make -s  print nothing
#   make ringbuf/ring.o   build one object
#   make O=dir      build out of tree (default: build)
#   make install    PREFIX=/usr/local DESTDIR=: libraries, headers, ringtrace.pc,
#                   the command, man pages (make man); make uninstall
#   make check      unit + integration tests, then the same tests under ASan+UBSan,
#                   then real Xen under QEMU (make check-xen; XEN_REAL=n skips it)
#   make stress     the long race tests (minutes)
#   make bench      benchmarks: prints a table, writes $(O)/bench/results.json
#   make demo       the main job: the README's tutorial, recorded and explained (< 1 min)
#   make htmldocs   Documentation/ through sphinx-build -W
#
# The libraries, each layer on the ones below it (Documentation/reader.rst):
#   libringtrace.{a,so}           the producer: what a traced program links
#   libringtrace-format.a         the CTF facts the writer and the reader share
#                                 (format/); also inside libringtrace-consumer
#   libringtrace-consumer.{a,so}  the consumer: regions to CTF traces
#   libringtrace-read.a           the read side: CTF traces to events and models
#   libringtrace-view.a           the scene: what every front end draws of a
#                                 model, and its window query (Documentation/viewer.rst)
# Programs and the test runner link the five archives (view, read, consumer,
# format, producer), taking only the objects they use.
#
# Each source directory lists its objects in a Kbuild file:
#   obj-y += x.o              into libringtrace (the producer)
#   format-y += x.o           into libringtrace-format (and libringtrace-consumer)
#   consumer-y += x.o         into libringtrace-consumer
#   read-y += x.o             into libringtrace-read
#   view-y += x.o             into libringtrace-view
#   progs-y += name           a program; name-objs := a.o b.o (paths relative to the dir)
#                             name-shared := y: linked with libringtrace.so
#   shlibs-y += libname       a shared object $(O)/lib/libname.so over libringtrace.so;
#                             libname-objs := a.o, libname-libs := -lx
#   tests-y += x.o            into the Criterion runner $(O)/bin/run_tests
#   CFLAGS_x.o := ...         extra flags for one object, named by its path in the
#                             Kbuild's directory (CFLAGS_events/x.o in tests/Kbuild is
#                             tests/events/x.o's alone, not every x.o of the tree)
# An object whose source is x.cc, not x.c, is C++ ($(CXX), RTR_CXXFLAGS), and
# a program with one links with $(CXX).

O ?= build
SAN ?=
# V from the command line only (as Kbuild): an unrelated V in the environment
# must not make the build verbose.
ifneq ($(origin V),command line)
  V := 0
endif
ifeq ($(V),1)
  Q :=
  quiet := @:
else
  Q := @
  quiet := @printf '  %-7s %s\n'
endif
# make -s: not even the short lines (Kbuild's convention).
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
  quiet := @:
endif
# Short lines name the file as the tree does: ringbuf/ring.o, bin/ringtrace.
short = $(patsubst $(O)/%,%,$(patsubst $(O)/obj/%,%,$@))

CC ?= cc
ifeq ($(origin CC),default)
  CC := gcc
endif

PKGS := liburcu-bp
RTR_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes \
	-Wstrict-prototypes -Wno-unused-parameter -Wno-format-truncation -fvisibility=hidden -fno-strict-aliasing \
	-D_GNU_SOURCE -Iinclude -I. -MMD -MP
ifeq ($(SAN),address)
  RTR_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -DRTR_SANITIZE=1
  RTR_LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(SAN),thread)
  RTR_CFLAGS += -fsanitize=thread -DRTR_SANITIZE=1 -DRTR_TSAN=1
  RTR_LDFLAGS += -fsanitize=thread
endif
RTR_LIBS := -lurcu-bp -lpthread -ldl
# Xen (platform/Kbuild): the real implementation when libxen-dev is there
# (scripts/deps.sh installs it), the simulated hypervisor for the tests.
CONFIG_XEN ?= $(if $(wildcard /usr/include/xenevtchn.h),y,n)
CONFIG_XENSIM ?= y
# The Xen libraries are loaded on demand (platform/xen/xen.c), never linked:
# libringtrace must load on hosts without them.  libxenctrl's soname names
# a Xen release: take the one the headers belong to.
ifeq ($(CONFIG_XEN),y)
  RTR_XENCTRL_SONAME := $(shell objdump -p "$$($(CC) -print-file-name=libxenctrl.so)" 2>/dev/null | \
			  sed -n 's/^ *SONAME *//p')
  RTR_CFLAGS += -DRTR_HAVE_XEN=1
  ifneq ($(RTR_XENCTRL_SONAME),)
    RTR_CFLAGS += -DRTR_XENCTRL_SONAME='"$(RTR_XENCTRL_SONAME)"' \
		  -DRTR_XENCTRL_PACKAGE='"libxenmisc$(RTR_XENCTRL_SONAME:libxenctrl.so.%=%)"'
  endif
endif
ifeq ($(CONFIG_XENSIM),y)
  RTR_CFLAGS += -DRTR_HAVE_XENSIM=1
endif
# The renderer (view/render.c) draws with cairo (scripts/deps.sh installs
# libcairo2-dev); `ringtrace gui` is built when GTK 4 is there (libgtk-4-dev),
# else the command says which package to install.
CAIRO_CFLAGS := $(shell pkg-config --cflags cairo 2>/dev/null)
CAIRO_LIBS := $(shell pkg-config --libs cairo 2>/dev/null || echo -lcairo) -lm
CONFIG_GTK ?= $(shell pkg-config --exists gtk4 2>/dev/null && echo y || echo n)
ifeq ($(CONFIG_GTK),y)
  GTK_CFLAGS := $(shell pkg-config --cflags gtk4)
  GTK_LIBS := $(shell pkg-config --libs gtk4)
endif
# The consumer's write-behind queue writes through io_uring (consumer/queue.c).
CONSUMER_LIBS := -luring
# libringtrace-read's: elfutils' libdwfl names a traced process's symbols (reader/symbols.c)
READ_LIBS := -ldw -lelf
CRITERION_LIBS := -lcriterion

# The configuration a build was made with, in $(O)/config: rewritten when it
# changes (CONFIG_XEN=n after a default build, another CC or CFLAGS), and every
# object and library depends on it, so that a change rebuilds them and an
# object no longer configured leaves its library.
CONFIG_STAMP := $(O)/config
RTR_CONFIG := CC=$(CC) CXX=$(CXX) SAN=$(SAN) CONFIG_XEN=$(CONFIG_XEN) CONFIG_GTK=$(CONFIG_GTK) CONFIG_XENSIM=$(CONFIG_XENSIM) \
	RTR_CFLAGS=$(RTR_CFLAGS) CFLAGS=$(CFLAGS) CXXFLAGS=$(CXXFLAGS) RTR_LDFLAGS=$(RTR_LDFLAGS) \
	LDFLAGS=$(LDFLAGS)
ifneq ($(file < $(CONFIG_STAMP)),$(RTR_CONFIG))
  $(shell mkdir -p $(O))
  $(file > $(CONFIG_STAMP),$(RTR_CONFIG))
endif

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SUFFIXES:
# install, uninstall, man, check-install: the ---- install ---- block below
.PHONY: all check unit-tests stress bench demo htmldocs clean deps deps-check deps-bench FORCE
.PHONY: xen-images xen-progs check-xen

# ---- collect the Kbuild lists ------------------------------------------------
LIB_DIRS  := ringbuf platform format consumer events reader view
PROG_DIRS := tools examples bench
TEST_DIRS := tests

define read_kbuild
obj-y :=
format-y :=
consumer-y :=
read-y :=
view-y :=
progs-y :=
shlibs-y :=
tests-y :=
include $(1)/Kbuild
$$(foreach v,$$(filter CFLAGS_% CXXFLAGS_%,$$(.VARIABLES)),$$(eval $$(call obj_flags,$(1),$$(v))))
LIB_OBJS  += $$(addprefix $(O)/obj/$(1)/,$$(obj-y))
FORMAT_OBJS += $$(addprefix $(O)/obj/$(1)/,$$(format-y))
CONSUMER_OBJS += $$(addprefix $(O)/obj/$(1)/,$$(consumer-y))
READ_OBJS += $$(addprefix $(O)/obj/$(1)/,$$(read-y))
VIEW_OBJS += $$(addprefix $(O)/obj/$(1)/,$$(view-y))
TEST_OBJS += $$(addprefix $(O)/obj/$(1)/,$$(tests-y))
$$(foreach p,$$(progs-y),$$(eval $$(call prog_rule,$(1),$$(p))))
$$(foreach l,$$(shlibs-y),$$(eval $$(call shlib_rule,$(1),$$(l))))
endef

# A Kbuild's CFLAGS_path.o (or CXXFLAGS_): the flags of $(1)/path.o alone.
define obj_flags
OBJ_$(patsubst CXXFLAGS_%,CXXFLAGS_$(1)/%,$(patsubst CFLAGS_%,CFLAGS_$(1)/%,$(2))) := $$($(2))
undefine $(2)
endef

# A shared object that needs libringtrace.so.0, found beside it ($$ORIGIN):
# one tracer per process, shared with a program linked with -lringtrace.
define shlib_rule
SHLIBS += $(O)/lib/$(2).so
$(O)/lib/$(2).so: $$(addprefix $(O)/obj/$(1)/,$$($(2)-objs)) $(O)/lib/libringtrace.so
	$$(quiet) LD $$(short)
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$(CC) -shared $$(RTR_LDFLAGS) $$(LDFLAGS) -Wl,-soname,$(2).so -Wl,-z,defs \
		-Wl,-rpath,'$$$$ORIGIN' -o $$@ $$(filter %.o,$$^) $(O)/lib/libringtrace.so $$($(2)-libs) $$(RTR_LIBS)
endef

# name-shared := y links the shared libringtrace (../lib from the program), as
# a user's -lringtrace does: what `record --pthread`'s preload shares.
# Programs linked with the archives ask for the Xen region (RTR_XEN_LINK):
# libringtrace refers to it weakly, so that a user's static program takes
# Xen only when it asks (Documentation/install.rst); ours run as Xen guests.
RTR_XEN_LINK := -Wl,--undefined=rtr_xen_region_create
define prog_rule
PROGS += $(O)/bin/$(2)
$(O)/bin/$(2): $$(addprefix $(O)/obj/$(1)/,$$($(2)-objs)) $(LIBS_A) $(O)/lib/libringtrace.so
	$$(quiet) LD $$(short)
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$(call prog_ld,$(1),$(2)) $$(RTR_LDFLAGS) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) \
		$$(if $$($(2)-shared),$(O)/lib/libringtrace-view.a $(O)/lib/libringtrace-read.a $(O)/lib/libringtrace-consumer.a \
			$(O)/lib/libringtrace-format.a $(O)/lib/libringtrace.so -Wl$$(comma)-rpath$$(comma)'$$$$ORIGIN/../lib',$(LIBS_A) \
			$(RTR_XEN_LINK)) \
		$$(READ_LIBS) $$(CONSUMER_LIBS) $$(RTR_LIBS) $$($(2)-libs)
endef
comma := ,

# The archives in link order: each layer before the ones it uses.
LIBS_A := $(O)/lib/libringtrace-view.a $(O)/lib/libringtrace-read.a $(O)/lib/libringtrace-consumer.a \
	$(O)/lib/libringtrace-format.a $(O)/lib/libringtrace.a
LIB_OBJS :=
FORMAT_OBJS :=
CONSUMER_OBJS :=
READ_OBJS :=
VIEW_OBJS :=
TEST_OBJS :=
PROGS :=
SHLIBS :=
$(foreach d,$(LIB_DIRS) $(PROG_DIRS) $(TEST_DIRS),$(eval $(call read_kbuild,$(d))))

all: $(LIBS_A) $(O)/lib/libringtrace.so $(O)/lib/libringtrace-consumer.so $(SHLIBS) $(PROGS)

# ---- compile -----------------------------------------------------------------
# Objects are built -fPIC once and go into both the static and the shared
# library; the tracer must not trace itself, so no -pg/-finstrument-functions.
# An object also depends on its top directory's Kbuild (CFLAGS_x.o) and on
# this Makefile (RTR_CFLAGS): changing flags rebuilds what they touch.
.SECONDEXPANSION:
$(O)/obj/%.o: %.c $$(firstword $$(subst /, ,$$*))/Kbuild Makefile $(CONFIG_STAMP)
	$(quiet) CC $(short)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(RTR_CFLAGS) -fPIC $(OBJ_CFLAGS_$*.o) $(CFLAGS) -c -o $@ $<

# make ringbuf/ring.o: one object, built where the tree keeps it.
%.o: %.c FORCE
	$(Q)$(MAKE) --no-print-directory $(O)/obj/$@

# ---- C++ (examples/cpp/) ------------------------------------------------------
# A .cc source compiles with $(CXX) and the C flags that C++ shares; a
# program with a .cc source links with $(CXX) (prog_rule's prog_ld).
RTR_CXXFLAGS = -std=c++17 $(filter-out -std=% -Wmissing-prototypes -Wstrict-prototypes,$(RTR_CFLAGS))
prog_ld = $(if $(wildcard $(patsubst %.o,$(1)/%.cc,$($(2)-objs))),$(CXX),$(CC))

$(O)/obj/%.o: %.cc $$(firstword $$(subst /, ,$$*))/Kbuild Makefile $(CONFIG_STAMP)
	$(quiet) CXX $(short)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) $(RTR_CXXFLAGS) -fPIC $(OBJ_CXXFLAGS_$*.o) $(CXXFLAGS) -c -o $@ $<

%.o: %.cc FORCE
	$(Q)$(MAKE) --no-print-directory $(O)/obj/$@
# ---- end of C++ ------------------------------------------------------------------

# The pages of `ringtrace view` and `view --serve`: tools/viewer/ embedded as a generated C source.
VIEWER_SRCS := tools/viewer/viewer.html tools/viewer/viewer.css tools/viewer/viewer.js \
	tools/viewer/serve.html tools/viewer/serve.js
$(O)/gen/tools/viewer_assets.c: $(VIEWER_SRCS) scripts/embed.sh
	$(quiet) GEN $(short)
	$(Q)mkdir -p $(@D)
	$(Q)scripts/embed.sh $@ $(VIEWER_SRCS)

$(O)/obj/tools/viewer_assets.o: $(O)/gen/tools/viewer_assets.c Makefile $(CONFIG_STAMP)
	$(quiet) CC $(short)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(RTR_CFLAGS) -fPIC $(CFLAGS) -c -o $@ $<

# `export --format perfetto`: Perfetto's messages (the subset in tools/perfetto_trace.proto)
# as C by protoc-c; the generated source is compiled without our warnings.
$(O)/gen/tools/perfetto_trace.pb-c.c: tools/perfetto_trace.proto
	$(quiet) GEN $(short)
	$(Q)mkdir -p $(@D)
	$(Q)protoc-c --proto_path=tools --c_out=$(@D) tools/perfetto_trace.proto
$(O)/gen/tools/perfetto_trace.pb-c.h: $(O)/gen/tools/perfetto_trace.pb-c.c

$(O)/obj/tools/perfetto_trace.pb-c.o: $(O)/gen/tools/perfetto_trace.pb-c.c Makefile $(CONFIG_STAMP)
	$(quiet) CC $(short)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(filter-out -W%,$(RTR_CFLAGS)) -w -fPIC $(CFLAGS) -c -o $@ $<
$(O)/obj/tools/export_perfetto.o: $(O)/gen/tools/perfetto_trace.pb-c.h

$(O)/lib/libringtrace.a: $(LIB_OBJS) $(CONFIG_STAMP)
	$(quiet) AR $(short)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $(filter %.o,$^)

$(O)/lib/libringtrace.so: $(LIB_OBJS) libringtrace.map $(CONFIG_STAMP)
	$(quiet) LD $(short)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared $(RTR_LDFLAGS) $(LDFLAGS) -Wl,--version-script=libringtrace.map \
		-Wl,-soname,libringtrace.so.0 -o $@ $(LIB_OBJS) $(RTR_LIBS)
	$(Q)ln -sf libringtrace.so $(@D)/libringtrace.so.0

$(O)/lib/libringtrace-format.a: $(FORMAT_OBJS) $(CONFIG_STAMP)
	$(quiet) AR $(short)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $(filter %.o,$^)

$(O)/lib/libringtrace-consumer.a: $(CONSUMER_OBJS) $(FORMAT_OBJS) $(CONFIG_STAMP)
	$(quiet) AR $(short)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $(filter %.o,$^)

# The consumer's shared library carries the producer objects it uses (the
# region's checks, the clock, the registry), hidden by its version script.
$(O)/lib/libringtrace-consumer.so: $(CONSUMER_OBJS) $(FORMAT_OBJS) $(O)/lib/libringtrace.a \
		libringtrace-consumer.map
	$(quiet) LD $(short)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared $(RTR_LDFLAGS) $(LDFLAGS) -Wl,--version-script=libringtrace-consumer.map \
		-Wl,-soname,libringtrace-consumer.so.0 -o $@ $(CONSUMER_OBJS) $(FORMAT_OBJS) $(O)/lib/libringtrace.a \
		$(CONSUMER_LIBS) $(RTR_LIBS)
	$(Q)ln -sf libringtrace-consumer.so $(@D)/libringtrace-consumer.so.0

$(O)/lib/libringtrace-read.a: $(READ_OBJS) $(CONFIG_STAMP)
	$(quiet) AR $(short)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $(filter %.o,$^)

$(O)/lib/libringtrace-view.a: $(VIEW_OBJS)
	$(quiet) AR $(short)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^

# The read side linked with its own layers alone (tests/format/read_alone.c):
# libringtrace-read needs no consumer object and no liburing, and if it came
# to, this link would fail.  The tests run the program (format_layers).
READ_ALONE := $(O)/bin/rtr-read-alone
$(READ_ALONE): $(O)/obj/tests/format/read_alone.o $(O)/lib/libringtrace-read.a \
		$(O)/lib/libringtrace-format.a $(O)/lib/libringtrace.a
	$(quiet) LD $(short)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(RTR_LDFLAGS) $(LDFLAGS) -o $@ $^ $(READ_LIBS) $(RTR_LIBS)

$(O)/bin/run_tests: $(TEST_OBJS) $(LIBS_A) | $(READ_ALONE)
	$(quiet) LD $(short)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(RTR_LDFLAGS) $(LDFLAGS) -o $@ $(TEST_OBJS) $(LIBS_A) $(RTR_XEN_LINK) $(READ_LIBS) $(CONSUMER_LIBS) $(RTR_LIBS) $(CRITERION_LIBS) \
		$(CAIRO_LIBS)

# The LTTng-UST program the interop tests and the benchmark record
# (tests/interop/lttng/): it links Debian's liblttng-ust, which `make check`
# and `make bench` install (scripts/deps.sh), so `make` alone does not build it.
LTTNG_APP := $(O)/bin/rtr-lttng-app
$(LTTNG_APP): tests/interop/lttng/app.c tests/interop/lttng/tp.h Makefile
	$(quiet) LD $(short)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I. $(CFLAGS) -o $@ $< \
		-llttng-ust -ldl -lpthread

# ---- top-level jobs ------------------------------------------------------------
deps:
	$(Q)scripts/deps.sh build

deps-check:
	$(Q)scripts/deps.sh check

# The README's test command: plain build + tests, then the ASan+UBSan build of
# the same tests, then the ring stress harness under TSan (portable atomics
# path, discard mode: Criterion's runner cannot start under TSan, so the
# harness runs as ringtrace-stress, which exits non-zero on any finding), and
# `ringtrace diff` under TSan (it loads its two traces in two threads).
check: deps-check
	$(Q)rm -f $(O)/check-tally && mkdir -p $(O)
	$(Q)$(MAKE) --no-print-directory all $(O)/bin/run_tests $(LTTNG_APP)
	$(Q)scripts/run-tests.sh $(O)/check-tally plain $(O)/bin/run_tests
	$(Q)scripts/deps.sh viewer
	$(Q)scripts/run-tests.sh $(O)/check-tally "viewer: render tests in headless Chromium" \
		tests/viewer/run.sh $(O)
	$(Q)$(MAKE) --no-print-directory check-install TALLY=$(O)/check-tally
	$(Q)scripts/run-tests.sh $(O)/check-tally "headers: each public header in C and C++, gcc and clang" \
		tests/headers/run.sh $(O)
	$(Q)$(MAKE) --no-print-directory O=$(O)/asan SAN=address all $(O)/asan/bin/run_tests \
		$(O)/asan/bin/rtr-lttng-app
	$(Q)scripts/run-tests.sh $(O)/check-tally "ASan+UBSan" $(O)/asan/bin/run_tests
	$(Q)$(MAKE) --no-print-directory O=$(O)/tsan SAN=thread $(O)/tsan/bin/ringtrace-stress
	$(Q)scripts/run-tests.sh $(O)/check-tally "TSan: stress harness, portable path, discard mode" \
		$(O)/tsan/bin/ringtrace-stress --portable --mode discard --seconds 2 --writers 4 \
		--packet-size 16384
	$(Q)$(MAKE) --no-print-directory O=$(O)/tsan SAN=thread $(O)/tsan/bin/ringtrace
	$(Q)scripts/run-tests.sh $(O)/check-tally "TSan: ringtrace diff, its two traces loaded at once" \
		tests/tools/tsan_diff.sh $(O)
ifeq ($(XEN_REAL),n)
	$(Q)echo "  SKIP    real Xen under QEMU (XEN_REAL=n; make check-xen runs it alone)"
else
	$(Q)$(MAKE) --no-print-directory check-xen TALLY=$(O)/check-tally
endif
	$(Q)awk '{p += $$1; f += $$2} END {printf "check: %d passed, %d failed\n", p, f; exit f != 0}' \
		$(O)/check-tally

unit-tests: $(O)/bin/run_tests
	$(Q)scripts/run-tests.sh "" $(if $(SAN),$(SAN),plain) $(O)/bin/run_tests

stress: deps all $(O)/bin/run_tests
	$(Q)RTR_STRESS_SECONDS=$${RTR_STRESS_SECONDS:-120} scripts/run-tests.sh "" stress \
		$(O)/bin/run_tests --filter='stress/*'

bench: deps-bench all $(LTTNG_APP)
	$(Q)mkdir -p $(O)/bench
	$(Q)scripts/bench.sh $(O)

# Built with every core: on a fresh machine the build is most of the minute.
demo: deps
	$(Q)$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) all
	$(Q)scripts/demo.sh $(O)

deps-bench:
	$(Q)scripts/deps.sh bench

htmldocs:
	$(Q)scripts/deps.sh docs
	$(Q)sphinx-build -W -q -b html Documentation $(O)/htmldocs

clean:
	$(Q)rm -rf $(O)

# ---- install -------------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=]: what a user builds against and
# runs (Documentation/install.rst lists where each file goes); make uninstall
# removes exactly those files.  make man: ringtrace(1), one page with every
# command (ringtrace-COMMAND(1) point to it), ringtrace(3) the tracing API and
# ringtrace-consumer(3), from Documentation/ with sphinx-build -b man
# (Debian's python3-sphinx; MAN=n installs without them).
# Installed: libringtrace.{so,a} (the producer a program links) with its
# pkg-config file ringtrace.pc, libringtrace-consumer.{so,a} with
# ringtrace-consumer.pc (its header ringtrace/consumer.h is public), the
# preload libringtrace-pthread.so beside them (record --pthread looks in
# ../lib from its own path), and the ringtrace command.  libringtrace-read.a
# has no public header: it stays in the build tree.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
# the messages `ringtrace export --format perfetto` writes, for protoc --decode
DATADIR ?= $(PREFIX)/share/ringtrace
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MAN ?= y
RTR_VERSION := $(shell sed -n 's/^\#define VERSION "\(.*\)"$$/\1/p' tools/ringtrace.c)
# libringtrace.so.0.1.0: the soname's major, then the version in three parts.
RTR_SOVERSION := $(RTR_VERSION)$(if $(word 3,$(subst ., ,$(RTR_VERSION))),,.0)
RTR_HEADERS := $(wildcard include/ringtrace/*.h)
RTR_COMMANDS := $(filter-out help,$(shell sed -n 's/^\t{ "\([a-z]*\)",.*/\1/p' tools/ringtrace.c))
MAN_PAGES := $(O)/man/ringtrace.1 $(O)/man/ringtrace.3 $(O)/man/ringtrace-consumer.3
.PHONY: install uninstall man

man: $(MAN_PAGES)

$(MAN_PAGES) &: Documentation/conf.py $(wildcard Documentation/*.rst) examples/api/tour.c
	$(quiet) MAN "$(patsubst $(O)/%,%,$(MAN_PAGES))"
	$(Q)if ! command -v sphinx-build >/dev/null 2>&1; then \
		echo "make man: sphinx-build is missing: apt-get install python3-sphinx" \
			"(or scripts/deps.sh man as root); make install MAN=n installs without man pages" >&2; \
		exit 1; \
	fi
	$(Q)rm -rf $(O)/man && sphinx-build -W -q -b man Documentation $(O)/man

# ringtrace.pc, ringtrace-consumer.pc: made for this PREFIX at each install.
# In the usual layout (PREFIX/lib/pkgconfig) the prefix is found from where the
# file is (${pcfiledir}, pkg-config 0.27 and pkgconf): a tree staged with
# DESTDIR, or moved, is used with PKG_CONFIG_PATH alone (README).
RTR_PC_PREFIX = $(if $(filter $(PREFIX)/lib/pkgconfig,$(PKGCONFIGDIR)),$${pcfiledir}/../..,$(PREFIX))
define rtr_pc
# installed for PREFIX=$(PREFIX)
prefix=$(RTR_PC_PREFIX)
libdir=$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
includedir=$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))

Name: $(1)
Description: $(2)
Version: $(RTR_VERSION)
Requires.private: $(3)
Libs: -L$${libdir} -l$(1)
Libs.private: $(4)
Cflags: -I$${includedir}
endef
export RTR_PC_PRODUCER := $(call rtr_pc,ringtrace,a low-overhead event tracer for C and C++ programs,liburcu-bp,-lpthread -ldl)
export RTR_PC_CONSUMER := $(call rtr_pc,ringtrace-consumer,reads ringtrace regions: attach and take packets,ringtrace liburing,)

# $(call install_so,name): lib/name.so as name.so.VERSION, with name.so.0 and name.so.
install_so = install -m 755 $(O)/lib/$(1).so $(DESTDIR)$(LIBDIR)/$(1).so.$(RTR_SOVERSION) && \
	ln -sfn $(1).so.$(RTR_SOVERSION) $(DESTDIR)$(LIBDIR)/$(1).so.0 && \
	ln -sfn $(1).so.0 $(DESTDIR)$(LIBDIR)/$(1).so

install: $(O)/bin/ringtrace $(O)/lib/libringtrace.a $(O)/lib/libringtrace.so \
		$(O)/lib/libringtrace-consumer.a $(O)/lib/libringtrace-consumer.so \
		$(O)/lib/libringtrace-pthread.so $(if $(filter y,$(MAN)),$(MAN_PAGES))
	$(quiet) INSTALL $(DESTDIR)$(PREFIX)
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR)/ringtrace
	$(Q)install -m 755 $(O)/bin/ringtrace $(DESTDIR)$(BINDIR)/ringtrace
	$(Q)$(call install_so,libringtrace)
	$(Q)$(call install_so,libringtrace-consumer)
	$(Q)install -m 644 $(O)/lib/libringtrace.a $(O)/lib/libringtrace-consumer.a $(DESTDIR)$(LIBDIR)/
	$(Q)install -m 755 $(O)/lib/libringtrace-pthread.so $(DESTDIR)$(LIBDIR)/
	$(Q)install -m 644 $(RTR_HEADERS) $(DESTDIR)$(INCLUDEDIR)/ringtrace/
	$(Q)install -d $(DESTDIR)$(DATADIR)
	$(Q)install -m 644 tools/perfetto_trace.proto $(DESTDIR)$(DATADIR)/
	$(Q)printf '%s\n' "$$RTR_PC_PRODUCER" > $(DESTDIR)$(PKGCONFIGDIR)/ringtrace.pc
	$(Q)printf '%s\n' "$$RTR_PC_CONSUMER" > $(DESTDIR)$(PKGCONFIGDIR)/ringtrace-consumer.pc
	$(Q)chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/ringtrace.pc $(DESTDIR)$(PKGCONFIGDIR)/ringtrace-consumer.pc
ifeq ($(MAN),y)
	$(Q)install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	$(Q)install -m 644 $(O)/man/ringtrace.1 $(DESTDIR)$(MANDIR)/man1/
	$(Q)install -m 644 $(O)/man/ringtrace.3 $(O)/man/ringtrace-consumer.3 $(DESTDIR)$(MANDIR)/man3/
	$(Q)for c in $(RTR_COMMANDS); do \
		echo '.so man1/ringtrace.1' > $(DESTDIR)$(MANDIR)/man1/ringtrace-$$c.1 && \
		chmod 644 $(DESTDIR)$(MANDIR)/man1/ringtrace-$$c.1 || exit 1; \
	done
endif

uninstall:
	$(quiet) UNINST $(DESTDIR)$(PREFIX)
	$(Q)rm -f $(DESTDIR)$(BINDIR)/ringtrace \
		$(foreach l,libringtrace libringtrace-consumer,$(DESTDIR)$(LIBDIR)/$(l).so.$(RTR_SOVERSION) \
			$(DESTDIR)$(LIBDIR)/$(l).so.0 $(DESTDIR)$(LIBDIR)/$(l).so $(DESTDIR)$(LIBDIR)/$(l).a) \
		$(DESTDIR)$(LIBDIR)/libringtrace-pthread.so $(DESTDIR)$(DATADIR)/perfetto_trace.proto \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/ringtrace/,$(notdir $(RTR_HEADERS))) \
		$(DESTDIR)$(PKGCONFIGDIR)/ringtrace.pc $(DESTDIR)$(PKGCONFIGDIR)/ringtrace-consumer.pc \
		$(DESTDIR)$(MANDIR)/man1/ringtrace.1 $(DESTDIR)$(MANDIR)/man3/ringtrace.3 \
		$(DESTDIR)$(MANDIR)/man3/ringtrace-consumer.3 \
		$(foreach c,$(RTR_COMMANDS),$(DESTDIR)$(MANDIR)/man1/ringtrace-$(c).1)
	$(Q)rmdir $(DESTDIR)$(INCLUDEDIR)/ringtrace $(DESTDIR)$(DATADIR) 2>/dev/null || true

# make check's part: the ABI test and the installed-tree test (tests/install/).
.PHONY: check-install
check-install: all
	$(Q)scripts/run-tests.sh "$(TALLY)" "abi: libringtrace{,-consumer}.so export the documented API" \
		tests/install/abi.sh $(O)
	$(Q)scripts/run-tests.sh "$(TALLY)" "install: make install DESTDIR=..., C and C++ built with pkg-config, recorded" \
		tests/install/installed.sh $(O)
# ---- end of install --------------------------------------------------------------

# ---- real Xen under QEMU (scripts/xen/, tests/xen/real/, Documentation/xen-testbed.rst) ----
# make xen-images: Xen, Linux and busybox from Debian packages (downloaded
# once into $(O)/xen/debs), dom0's and the domU's initramfs with the programs
# below; make check-xen: boot them and run the tests, QEMU under a hard timeout.
#   XEN_REAL=n     make check skips the real-Xen part (landing checks of
#                  changes that touch nothing Xen-related; CI runs it)
#   XEN_TESTS      the tests of the boot, in order (tests/xen/real/TEST.sh;
#                  trace last: it ends by crashing the guest)
#   XEN_TIMEOUT    seconds before QEMU is killed and the run fails
XEN_REAL ?= y
XEN_LIBS := -lxenstore -lxenevtchn -lxengnttab
XEN_TESTS ?= smoke hostile follow trace
XEN_TIMEOUT ?= 600
XEN_DOM0_BINS := $(O)/bin/ringtrace $(O)/bin/rtr-xen-smoke-dom0 $(O)/bin/rtr-xen-http-get
XEN_DOMU_BINS := $(O)/bin/rtr-xen-smoke-guest $(O)/bin/ringtrace-stress $(O)/bin/ringtrace-test-emit \
	$(O)/bin/ringtrace-xen-hostile
XEN_OBJS := $(O)/obj/tests/xen/real/smoke_dom0.o $(O)/obj/tests/xen/real/smoke_guest.o \
	$(O)/obj/tests/xen/real/http_get.o
.SECONDARY: $(XEN_OBJS)
$(O)/bin/rtr-xen-smoke-%: $(O)/obj/tests/xen/real/smoke_%.o
	$(quiet) LD $(short)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(RTR_LDFLAGS) $(LDFLAGS) -o $@ $^ $(XEN_LIBS)
# (follow.sh's HTTP client: dom0's static busybox wget crashes)
$(O)/bin/rtr-xen-http-get: $(O)/obj/tests/xen/real/http_get.o
	$(quiet) LD $(short)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(RTR_LDFLAGS) $(LDFLAGS) -o $@ $^

xen-progs: $(XEN_DOM0_BINS) $(XEN_DOMU_BINS)

xen-images:
	$(Q)scripts/deps.sh xen
	$(Q)$(MAKE) --no-print-directory all xen-progs
	$(Q)XEN_DOM0_BINS="$(XEN_DOM0_BINS)" XEN_DOMU_BINS="$(XEN_DOMU_BINS)" scripts/xen/images.sh $(O)

check-xen: xen-images
	$(Q)scripts/run-tests.sh "$(TALLY)" "xen: real Xen 4.17 under QEMU ($(XEN_TESTS))" \
		scripts/xen/boot.sh $(O) "$(XEN_TESTS)" $(XEN_TIMEOUT)

-include $(shell find $(O)/obj -name '*.d' 2>/dev/null)
