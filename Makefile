# gcratchet — build everything, run the ratchet, run the tests.
#
#   make            the CLI (build/gcratchet), its launcher, and every probe built against
#                   every shipped collector (build/collectors/<name>/)
#   make ratchet    install missing dependencies, build, and run `gcratchet ratchet` on the
#                   default collector: measure what baselines/shared_ci/<collector>.json
#                   needs and check it (exit 0 ok, 1 regression, 2 could not judge)
#   make test       install missing dependencies, check formatting, build, run the whole
#                   suite (also under AddressSanitizer and UBSan, a set of CLI tests
#                   under LeakSanitizer too, and each fuzzer for FUZZ_TEST_SECONDS=5);
#                   ends with "N passed, N failed, N skipped"
#   make test-quick the developer's loop (under 2 minutes on a 2-core VM): build, then the
#                   unit tests and the CLI tests whose "# needs:" line names none of valgrind,
#                   jvm, node, pg and asan (tests/README.md); no dependency step, sanitizer
#                   build, ABI test or fuzzer; ends with "N passed, N failed, N skipped"
#   make bench-overhead   the harness's cost per run above a bare fork/exec/wait4 of the
#                   same probe (tests/bench/overhead.sh, docs/overhead.md): a benchmark
#   make fuzz       the libFuzzer harnesses (tests/fuzz/) for FUZZ_SECONDS=300 each
#   make check      the ratchet without the dependency step
#   make install    PREFIX=/usr/local (DESTDIR too); make uninstall PREFIX=... removes it
#   make format-check   clang-format on project code, changing nothing
#   make collector COLLECTOR_DIR=DIR [NAME=N] [OUT=DIR]
#                   every probe against the collector in DIR, anywhere (default NAME: DIR's
#                   name, OUT: build/collectors/NAME); docs/out-of-tree.md. DIR's optional
#                   collector.mk may set COLLECTOR_NAME, COLLECTOR_VERSION, COLLECTOR_SRCS,
#                   COLLECTOR_CFLAGS, COLLECTOR_LIBS and COLLECTOR_WERROR
#                   (collectors/collector-dir.mk)
#   make abi-check COLLECTOR_DIR=DIR
#                   the ABI conformance test (tests/abi/) against it: plainly, under
#                   GCR_ZEAL=7, then both again under clang's sanitizers

COLLECTORS ?= epsilon marksweep gen bdwgc bdwgc-incremental
DEFAULT_COLLECTOR ?= gen
PREFIX ?= /usr/local

CC ?= cc
OPT ?= -O2 -g
WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wwrite-strings -Wformat=2 -Wvla -Werror
PKGS := libcjson sqlite3 libpq nettle
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libpq is opened when a PostgreSQL store is first used (store_pg.c), so it is not linked.
# nettle is SHA-256 (harness/sha256.c), its fat build using the CPU's SHA instructions.
PKG_LIBS = $(shell pkg-config --libs libcjson sqlite3 nettle 2>/dev/null)
CFLAGS_H = -std=c17 $(OPT) $(WARN) -D_GNU_SOURCE -Iharness -Ireports -Icollectors/include $(PKG_CFLAGS)
# libpfm4 ships no pkg-config file on Debian; use it when a later one does.
PFM_LIBS = $(shell pkg-config --libs libpfm 2>/dev/null || echo -lpfm)
LIBS_H = $(PKG_LIBS) $(PFM_LIBS) -lm

B := build
# gcr_shq: a value quoted for a recipe's shell; gcr_path_check: a path make cannot carry refused.
include collectors/quote.mk
# gcr_say: a step's one line, "  CC      build/obj/cli.o" (V=1: the command whole).
include collectors/quiet.mk
# Core modules: every harness/*.c but the subcommands, main and the launcher; renderers
# from reports/ link in like core modules.
CORE := $(filter-out main launch cmd_%,$(patsubst harness/%.c,%,$(wildcard harness/*.c)))
REPORTS := $(patsubst reports/%.c,%,$(wildcard reports/*.c))
CMDS := $(patsubst harness/%.c,%,$(wildcard harness/cmd_*.c))
HARNESS_HDRS := $(wildcard harness/*.h reports/*.h) collectors/include/gcr.h
CORE_OBJS := $(addprefix $(B)/obj/,$(addsuffix .o,$(CORE))) \
             $(addprefix $(B)/obj/report_,$(addsuffix .o,$(REPORTS)))
CLI_OBJS := $(CORE_OBJS) $(addprefix $(B)/obj/,$(addsuffix .o,$(CMDS) main))
UNIT_TESTS := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c))

.PHONY: all harness collectors collector-% ratchet check test test-quick test-build deps test-deps install readme-synopsis \
        uninstall format-check clean asan fuzz fuzz-build FORCE
# `make` alone builds everything, whatever rule comes first.
.DEFAULT_GOAL := all
FORCE:
all: harness collectors

harness: $(B)/gcratchet $(B)/gcratchet-launch

# Objects are rebuilt when the compiler or its flags change, not only when a source does:
# build-asan/ once held gcc's objects, and clang's sanitizers will not link with them.
$(B)/obj/.flags: FORCE
	@mkdir -p $(B)/obj
	@echo '$(CC) $(CFLAGS_H)' | cmp -s - $@ || echo '$(CC) $(CFLAGS_H)' >$@

$(B)/obj/%.o: harness/%.c $(HARNESS_HDRS) $(B)/obj/.flags
	@mkdir -p $(B)/obj
	$(call gcr_say,CC,$@)$(CC) $(CFLAGS_H) -c $< -o $@
$(B)/obj/report_%.o: reports/%.c $(HARNESS_HDRS) $(B)/obj/.flags
	@mkdir -p $(B)/obj
	$(call gcr_say,CC,$@)$(CC) $(CFLAGS_H) -Ireports -c $< -o $@

# The commit the harness is built from, for `gcratchet --version`: the stamp is rewritten only
# when it changes (scripts/version-stamp.sh), so only cmd_version.o follows a new commit.
$(B)/obj/commit.h: FORCE
	@mkdir -p $(B)/obj
	@sh scripts/version-stamp.sh $@
$(B)/obj/cmd_version.o: harness/cmd_version.c $(HARNESS_HDRS) $(B)/obj/.flags $(B)/obj/commit.h
	$(call gcr_say,CC,$@)$(CC) $(CFLAGS_H) -include $(B)/obj/commit.h -c $< -o $@

$(B)/gcratchet: $(CLI_OBJS)
	$(call gcr_say_product,LD,$@)$(CC) $(OPT) -o $@ $^ $(LIBS_H)

# The launcher links nothing of ours: its small address space is what a probe's peak RSS
# starts from.
$(B)/gcratchet-launch: harness/launch.c harness/launch.h
	@mkdir -p $(B)
	$(call gcr_say_product,CC,$@)$(CC) -std=c17 $(OPT) $(WARN) -D_GNU_SOURCE -Iharness -o $@ $<

collectors: $(addprefix collector-,$(COLLECTORS))
collector-%: FORCE
	@$(MAKE) --no-print-directory -f collectors/build.mk NAME=$* OUT=$(B)/collectors/$* BUILD_BRIEF=$(BUILD_BRIEF)

# An outside collector (docs/out-of-tree.md). NAME, OUT and the rest reach build.mk from the
# command line by themselves; build.mk and tests/abi/ check the folder and name what is wrong.
.PHONY: collector abi-check
collector:
	@$(MAKE) --no-print-directory -f collectors/build.mk COLLECTOR_DIR=$(call gcr_shq,$(value COLLECTOR_DIR)) summary
abi-check:
	@test -n $(call gcr_shq,$(COLLECTOR_DIR)) || { echo 'make abi-check: COLLECTOR_DIR is not set:' \
	   'make abi-check COLLECTOR_DIR=<folder holding your collector>' >&2; exit 2; }
	@: $(call gcr_path_check,COLLECTOR_DIR)
	@sh tests/abi/run.sh $(call gcr_shq,$(abspath $(COLLECTOR_DIR))) && \
	 sh tests/abi/run.sh --sanitize $(call gcr_shq,$(abspath $(COLLECTOR_DIR)))

# ---- Unit tests: each tests/unit/test_<module>.c links the core objects ------------------
$(B)/tests/%: tests/unit/%.c tests/unit/unit.h $(CORE_OBJS)
	@mkdir -p $(B)/tests
	$(call gcr_say,CC,$@)$(CC) $(CFLAGS_H) -Itests/unit -o $@ $< $(CORE_OBJS) $(LIBS_H)

# The pause figures' arithmetic lives with the collectors (the probe runtime computes the
# census from it) and is tested here with the harness's tests.
$(B)/tests/test_pausestats: tests/unit/test_pausestats.c tests/unit/unit.h $(CORE_OBJS) \
                            collectors/common/pausestats.c collectors/common/pausestats.h \
                            collectors/common/pauselog.h
	@mkdir -p $(B)/tests
	$(call gcr_say,CC,$@)$(CC) $(CFLAGS_H) -Itests/unit -Icollectors/common -o $@ $< collectors/common/pausestats.c \
	   $(CORE_OBJS) $(LIBS_H)

test-build: all $(addprefix $(B)/tests/,$(UNIT_TESTS))

# ---- Benchmarks, run by hand (not by the suite) -------------------------------------------
$(B)/bench/overhead: tests/bench/overhead.c
	@mkdir -p $(B)/bench
	$(call gcr_say,CC,$@)$(CC) -std=c17 $(OPT) $(WARN) -D_GNU_SOURCE -o $@ $<

.PHONY: bench-overhead
bench-overhead: all $(B)/bench/overhead
	@sh tests/bench/overhead.sh

# ---- The sanitizer build of the harness and unit tests ------------------------------------
# clang, because its UBSan also checks float-to-integer casts and, with -fsanitize=integer,
# unsigned overflow and implicit narrowing conversions: gcc's missed a double->int64 cast
# overflow. Arithmetic that wraps on purpose says so (UTIL_WRAPS_ON_PURPOSE in util.h).
SAN_CC ?= clang
SAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow,integer -fno-sanitize-recover=all \
             -fno-omit-frame-pointer
# It also has the test hooks compiled in (GCR_TEST_HOOKS): the store engine that fails the
# Nth operation on request (harness/store_fault.c), which only tests ask for. Its objects carry
# libFuzzer's coverage instrumentation too (fuzzer-no-link: counters, no libFuzzer), so that the
# fuzzers link them instead of compiling the core a third time (40 of make test's 200 CPU
# seconds of building). SAN_BUILD is that build's variables, for a sub-make (whose recipe must
# name $(MAKE) itself to share -j's jobs).
# SAN_OPT is -O0 for the build make test makes: the sanitizers check as much at -O0 as at -O1
# (no access is optimised away before its check), and asan with fuzz-build takes 23 s and 45
# CPU seconds instead of 47-49 s and 90-96 on a 2-core VM; what the suite runs on it (the unit
# tests, the lsan set of CLI tests, each fuzzer for a fixed time) costs 12 CPU seconds more
# (60 against 48), and its 5-second fuzz runs try 1.5-4.3 times fewer inputs after the seed
# corpus (json 10,379 in 3 s against 44,551; the corpus, 6 to 45 files, is replayed whole
# either way). `make fuzz`, which hunts and gains by every execution a second, builds at -O1
# (the flags stamp rebuilds the lot).
SAN_OPT ?= -O0
SAN_BUILD = B=build-asan CC=$(SAN_CC) \
            OPT='$(SAN_OPT) -g -fsanitize=fuzzer-no-link $(SAN_FLAGS) -DGCR_TEST_HOOKS'
asan:
	@$(MAKE) --no-print-directory $(SAN_BUILD) harness $(addprefix build-asan/tests/,$(UNIT_TESTS))

# ---- libFuzzer harnesses: every tests/fuzz/fuzz_<target>.c, built by clang into build-fuzz/ --
# Each links the sanitizer build's core objects (make asan, above: clang, the sanitizers and
# coverage instrumentation), never the gcc build's; a new harness needs no edit here.
# tests/fuzz/README.md says how to run one, and what to do with a crash. The suite runs each
# for FUZZ_TEST_SECONDS, its committed corpus first: a regression check, not a hunt (make fuzz
# hunts, and keeps what it finds).
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 300
FUZZ_TEST_SECONDS ?= 5
build-fuzz/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(CORE_OBJS)
	@mkdir -p build-fuzz/fuzz
	$(call gcr_say,CC,$@)$(CC) $(CFLAGS_H) -fsanitize=fuzzer -o $@ $< $(CORE_OBJS) $(LIBS_H)

# After asan, whose objects it links: one make never builds build-asan/ twice at once (-j).
fuzz-build: asan
	@$(MAKE) --no-print-directory $(SAN_BUILD) $(addprefix build-fuzz/fuzz/,$(FUZZ_TARGETS))

# Longer runs that keep what they find in build-fuzz/corpus/<target>/ from one run to the next.
fuzz:
	@$(MAKE) --no-print-directory SAN_OPT=-O1 fuzz-build
	@sh tests/fuzz/run.sh -t $(FUZZ_SECONDS) -o build-fuzz/corpus

# ---- The JVM's six collectors as census-protocol build folders (docs/jvm.md) ---------------
# build/collectors/jvm-<collector>/: Java probes (jvm/probes/) run by wrapper scripts with
# each collector's flags. Not part of `all`: it needs OpenJDK 17 and a javac run.
JVM_COLLECTORS ?= serial parallel g1 zgc shenandoah epsilon
.PHONY: jvm
jvm:
	@sh jvm/build.sh $(B) $(JVM_COLLECTORS)

# ---- V8's collector settings as census-protocol build folders (docs/js.md) -----------------
# build/collectors/js-<build>/: JS probes (js/probes/) run by node through wrapper scripts with
# each build's flags. Not part of `all`: it needs node.
JS_BUILDS ?= default single-threaded semi-1mb semi-16mb
.PHONY: js
js:
	@sh js/build.sh $(B) $(JS_BUILDS)

# What the main job needs (make ratchet); test-deps adds what the suite, make jvm and make js
# need (chromium, the JDK, PostgreSQL, node and the rest: scripts/setup.sh says which).
deps:
	@sh scripts/setup.sh
test-deps:
	@sh scripts/setup.sh --test

# The build the main job and the suite wait for uses every core (26 s instead of 36 s for
# `all` on this 2-core VM).
NPROC := $(shell nproc 2>/dev/null || echo 1)

# The main job builds with a line per product (the CLI, its launcher, each collector's
# folder), not per step, so that its whole screen, the verdict last, fits on one
# (collectors/quiet.mk); V=1 shows every command.
ifneq ($(filter ratchet check,$(MAKECMDGOALS)),)
BUILD_BRIEF ?= 1
endif

ratchet: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all BUILD_BRIEF=$(BUILD_BRIEF)
	@$(MAKE) --no-print-directory check

check: all
	@$(B)/gcratchet ratchet --profile shared_ci --collector $(DEFAULT_COLLECTOR)

test: test-deps
	@$(MAKE) --no-print-directory format-check
	@$(MAKE) --no-print-directory -j$(NPROC) test-build asan fuzz-build
	@GCR_FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) sh tests/run.sh

test-quick:
	@$(MAKE) --no-print-directory -j$(NPROC) test-build
	@sh tests/run.sh --quick

# PREFIX/lib/gcratchet/ gets the CLI, its launcher, the build folders and the committed
# baselines, PREFIX/bin/gcratchet a link to it, PREFIX/share/ the bash completion and the man
# pages (gcratchet completion bash and man: from the verbs' declarations), and
# lib/gcratchet/install-manifest the list of every file written, which uninstall removes
# (scripts/install.sh). DESTDIR stages a package.
install: all
	@sh scripts/install.sh install $(call gcr_shq,$(B)) $(call gcr_shq,$(DESTDIR)) $(call gcr_shq,$(PREFIX))
uninstall:
	@sh scripts/install.sh uninstall $(call gcr_shq,$(DESTDIR)) $(call gcr_shq,$(PREFIX))

FORMAT_FILES = $(wildcard harness/*.[ch] collectors/include/*.h collectors/common/*.[ch] \
               collectors/*/*.[ch] probes/*.c probes/runtime/*.[ch] tests/unit/*.[ch] \
               tests/abi/*.c reports/*.[ch] tests/bench/*.c tests/cli/*.c tests/fuzz/*.[ch] \
               examples/*/*.[ch])
# README.md's Commands block, from every verb's usage lines (tests/cli/t174 checks it).
readme-synopsis: harness
	@sh scripts/readme-synopsis.sh $(B)/gcratchet README.md

# Which part of the harness may include which (scripts/layers.sh; tests/cli/t192 runs it).
.PHONY: layers
layers:
	@sh scripts/layers.sh

format-check:
	@clang-format --dry-run --Werror $(FORMAT_FILES) && echo "format-check: $(words $(FORMAT_FILES)) files formatted as .clang-format says"

clean:
	rm -rf build build-asan build-fuzz
