#!/bin/sh
# `make collector` and `make abi-check` on bad input (docs/out-of-tree.md, "When it says no"):
# each refusal names the folder or file and what is wrong, exits 2, and builds nothing; an
# outside collector's warnings show without stopping its build unless it asks for -Werror;
# and abi-check fails a collector that breaks the ABI's promises.
. "$(dirname "$0")/lib.sh"

MK="make --no-print-directory -C $TOP"
ONE="PROBE_SRCS=$TOP/probes/01_nursery_churn.c"

expect_status 2 $MK collector
expect_grep 'COLLECTOR_DIR is not set: make collector COLLECTOR_DIR=' "$T/err"
expect_status 2 $MK collector COLLECTOR_DIR="$T/nowhere"
expect_grep "COLLECTOR_DIR=$T/nowhere: no such folder" "$T/err"
mkdir "$T/empty"
expect_status 2 $MK collector COLLECTOR_DIR="$T/empty"
expect_grep "$T/empty: no collector sources: no \*\.c file there" "$T/err"
mkdir "$T/badsrc"
echo 'COLLECTOR_SRCS := $(COLLECTOR_DIR)/gc.c' >"$T/badsrc/collector.mk"
expect_status 2 $MK collector COLLECTOR_DIR="$T/badsrc"
expect_grep "$T/badsrc/gc\.c: no such file \(COLLECTOR_SRCS, in $T/badsrc/collector\.mk\)" "$T/err"
mkdir "$T/noabi"
printf '#include <stdint.h>\nvoid *gcr_alloc(uint32_t n, uint32_t b);\n' >"$T/noabi/gc.c"
expect_status 2 $MK collector COLLECTOR_DIR="$T/noabi"
expect_grep "$T/noabi: no source includes \"gcr\.h\": a collector implements the ABI declared in $TOP/collectors/include/gcr\.h" \
	"$T/err"
mkdir "$T/with space"
expect_status 2 $MK collector "COLLECTOR_DIR=$T/with space"
expect_grep "make cannot handle a path with blanks" "$T/err"
expect_status 0 test ! -e "$T/noabi/obj" -a ! -e "$TOP/build/collectors/noabi"

# A shipped collector's name would replace its build folder: refused, the folder untouched.
cp -R "$TOP/examples/tinyms" "$T/"
before=$(sha256sum "$TOP/build/collectors/marksweep/manifest.json")
expect_status 2 $MK collector COLLECTOR_DIR="$T/tinyms" NAME=marksweep
expect_grep "NAME=marksweep is a shipped collector: build/collectors/marksweep would then hold $T/tinyms instead; give another NAME= or an OUT=" \
	"$T/err"
expect_eq "$(sha256sum "$TOP/build/collectors/marksweep/manifest.json")" "$before" \
	"build/collectors/marksweep is untouched"

# Warnings: shown, not fatal, for an outside collector; fatal when it sets COLLECTOR_WERROR.
echo 'static int tms_unused;' >>"$T/tinyms/tinyms.c"
expect_status 0 $MK collector COLLECTOR_DIR="$T/tinyms" OUT="$T/warn" "$ONE"
expect_grep "tinyms\.c:[0-9]+:[0-9]+: warning: .tms_unused. defined but not used" "$T/err"
expect_status 0 test -x "$T/warn/01_nursery_churn"
expect_status 2 $MK collector COLLECTOR_DIR="$T/tinyms" OUT="$T/werror" "$ONE" \
	COLLECTOR_WERROR=-Werror
expect_grep "tinyms\.c:[0-9]+:[0-9]+: error: .tms_unused. defined but not used" "$T/err"

# abi-check: the same refusals, and a collector that breaks a promise fails it.
expect_status 2 $MK abi-check
expect_grep 'make abi-check: COLLECTOR_DIR is not set' "$T/err"
expect_status 2 $MK abi-check COLLECTOR_DIR="$T/nowhere"
expect_grep "^FAIL $T/nowhere: no such folder" "$T/out"
expect_status 2 $MK abi-check COLLECTOR_DIR="$T/noabi"
expect_grep "^FAIL noabi: build .*" "$T/out"
expect_grep "$T/noabi: no source includes \"gcr\.h\"" "$T/out"
# tinyms that forgets to trace an object's slots: its children are freed while reachable.
mkdir "$T/broken"
sed 's/tms_push(obj\[i\]);/(void)0;/' "$TOP/examples/tinyms/tinyms.c" >"$T/broken/tinyms.c"
expect_status 0 test "$(grep -c 'tms_push(' "$T/broken/tinyms.c")" -eq 2
cp "$TOP/examples/tinyms/collector.mk" "$T/broken/"
expect_status 2 $MK abi-check COLLECTOR_DIR="$T/broken"
expect_grep '^FAIL broken:$' "$T/out"
expect_grep 'abi_conformance: tinyms: FAIL in ' "$T/out"
expect_grep '^0 passed, 2 failed$' "$T/out"
finish
