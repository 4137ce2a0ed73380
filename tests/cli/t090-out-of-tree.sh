#!/bin/sh
# needs: asan
# Issue 12, item 2's "done when": a collector written outside the tree from
# docs/out-of-tree.md alone (the doc's worked example, examples/tinyms/, copied to a folder
# outside the checkout) builds with `make collector`, passes `make abi-check` (plainly, under
# zeal, under the sanitizers), and runs every probe through `measure --build` with the
# checksums the shipped baselines carry, each premise met or not applicable. A relative
# --build path works too.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/src"
cp -R "$TOP/examples/tinyms" "$T/src/"
SRC=$T/src/tinyms OUT=$T/tinyms-build
MK="make --no-print-directory -C $TOP"
BASE=$TOP/baselines/shared_ci/marksweep.json
NPROBES=$(ls "$TOP"/probes/[0-9][0-9]_*.c | wc -l)

# The build, as the doc's first command; the example is clean under our warnings.
expect_status 0 $MK collector COLLECTOR_DIR="$SRC" OUT="$OUT"
expect_grep "^$OUT: $NPROBES probes built against tinyms 0\.1 \($SRC\)$" "$T/out" \
	"make collector ends saying what it built"
expect_grep "^measure it: gcratchet measure --build $OUT --size ci$" "$T/out"
cat "$T/out" "$T/err" >"$T/build.log"
expect_no_grep 'warning:' "$T/build.log" "the example builds without a warning"
expect_eq "$(jq -r '[.format, .abi, .name, .collector, .collector_version] | join(" ")' \
	"$OUT/manifest.json")" "gcratchet-build 1 tinyms tinyms 0.1" "the manifest's identity"
expect_eq "$(jq '.probes | length' "$OUT/manifest.json")" "$NPROBES" "one probe per probes/*.c"

# The ABI conformance test: plain and GCR_ZEAL=7, then both under the sanitizers.
expect_status 0 $MK abi-check COLLECTOR_DIR="$SRC"
expect_eq "$(grep -c '^ok   tinyms' "$T/out")" 4 "four conformance runs pass"
expect_grep '^ok   tinyms \(sanitizers\) GCR_ZEAL=7: abi_conformance: tinyms: ok' "$T/out"

# Every probe, with the shipped checksums.
expect_status 0 "$GCR" measure --build "$OUT" --size ci --rounds 1 --warmup 0 \
	--meters rusage,census
expect_no_grep 'INERT' "$T/out" "no probe is inert on tinyms"
"$GCR" export >"$T/s.json"
jq -r '.runs[] | select(.kind == "timed") | "\(.probe) \(.status) \(.checksum)"' "$T/s.json" |
	sort >"$T/got"
jq -r '.probes | to_entries[] | "\(.key) ok \(.value.checksum)"' "$BASE" | sort >"$T/want"
expect_eq "$(wc -l <"$T/want")" "$NPROBES" "the shipped baseline has a checksum per probe"
if cmp -s "$T/got" "$T/want"; then pass; else
	fail "tinyms's checksums differ from $BASE's"
	diff "$T/want" "$T/got" | sed 's/^/  /' >&2
fi
expect_eq "$(jq '[.runs[] | select(.premise != null and (.premise | startswith("met") or startswith("n/a") | not))] | length' \
	"$T/s.json")" 0 "every premise is met or not applicable"

# A relative --build, from where it was given (the probe's link once dangled: exec_failed).
expect_status 0 "$GCR" measure --build tinyms-build --probes 01 --size ci --rounds 1 \
	--warmup 0 --meters rusage,census
expect_grep '01_nursery_churn +tinyms +ok ' "$T/out" "a relative --build runs"
finish
