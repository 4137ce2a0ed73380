#!/bin/sh
# needs: valgrind
# Unknown probe, collector, size, meter or build folder: exit 2 naming the valid choices,
# before anything runs.
. "$(dirname "$0")/lib.sh"

expect_status 2 "$GCR" measure --collector marksweep --probes 99
expect_grep 'unknown probe "99" \(valid: 01_nursery_churn, ' "$T/err"
expect_status 2 "$GCR" measure --collector marksweep --probes nursery
expect_grep 'unknown probe "nursery"' "$T/err"
expect_status 2 "$GCR" measure --collector nosuchgc
expect_grep 'unknown collector "nosuchgc" \(valid: .*marksweep' "$T/err"
expect_status 2 "$GCR" measure --size huge
expect_grep '--size must be ci, default or large, got "huge"' "$T/err"
expect_status 2 "$GCR" measure --meters rusage,cycles
expect_grep 'unknown meter "cycles" in --meters \(valid: rusage, census, perf, valgrind, cachesim\)' "$T/err"
expect_status 2 "$GCR" measure --build "$T/nowhere"
expect_grep "nowhere: no such build folder" "$T/err"
mkdir "$T/empty"
expect_status 2 "$GCR" measure --build "$T/empty"
expect_grep "empty: not a build folder" "$T/err"
# A build made for another ABI version is refused before any run.
cp -r "$TOP/build/collectors/epsilon" "$T/oldabi"
sed 's/"abi": [0-9]*/"abi": 0/' "$TOP/build/collectors/epsilon/manifest.json" >"$T/oldabi/manifest.json"
expect_status 2 "$GCR" measure --build "$T/oldabi"
expect_grep "built for collector ABI 0, this harness speaks ABI 1" "$T/err"
expect_eq "$("$GCR" list sessions 2>/dev/null | tail -n +2 | wc -l)" 0 "nothing ran"
expect_status 2 "$GCR" check --profile shared_ci --collector nosuchgc
expect_grep "nosuchgc.json: cannot open" "$T/err"
expect_grep "gcratchet baseline pin --profile shared_ci --collector nosuchgc" "$T/err"
finish
