#!/bin/sh
# The overhead benchmark (tests/bench/overhead.sh, docs/overhead.md) runs and prints its line: a
# smoke test of the script, not a measurement (no figure is asserted). Bad arguments exit 2.
. "$(dirname "$0")/lib.sh"
expect_status 0 cc -std=c17 -O2 -D_GNU_SOURCE -o "$T/overhead" "$TOP/tests/bench/overhead.c"
export GCR_BENCH_BARE="$T/overhead"
expect_status 0 sh "$TOP/tests/bench/overhead.sh" -k 2 -n 4
expect_grep "^session 2: measure [0-9.]+ ms \(cpu [0-9.]+\), bare [0-9.]+ ms" "$T/out"
expect_grep "^overhead: [-+][0-9.]+ ms per run above a bare fork/exec/wait4 \([0-9.]+ ms a run\), cpu [-+][0-9.]+ ms, ratio [0-9.]+: median of 2 paired sessions of 4 runs \(epsilon, probe 01\); load [0-9.]+ before, [0-9.]+ after$" "$T/out"
expect_status 2 sh "$TOP/tests/bench/overhead.sh" -n 5
expect_grep "even number" "$T/err"
expect_status 2 sh "$TOP/tests/bench/overhead.sh" -p 99
expect_grep "has no probe 99" "$T/err"
# The bare loop counts a run that fails.
expect_status 1 "$T/overhead" 2 /bin/false
expect_grep "2 of 2 runs of /bin/false failed" "$T/err"
finish
