#!/bin/sh
# A probe that crashes, hangs, fails or sends a bad census: its run is stored with what
# happened, the session goes on with the other runs, and check cannot judge those cells.
. "$(dirname "$0")/lib.sh"
# exported SESSION FILTER — a fact of a stored session, read back through export.
exported() { "$GCR" export --session "$1" | jq -r "$2"; }

B="$T/scripted"
make_script_build "$B" 01_steady 02_flaky
export GCR_BASELINE_DIR="$T/baselines"

# A healthy session, pinned as the baseline.
expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 2 --warmup 0 --meters rusage,census
expect_eq "$(exported 1 '[.runs[] | select(.status == "ok")] | length')" 4 "ok runs"
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session latest
expect_status 0 "$GCR" check --all --profile shared_ci --collector scripted
expect_grep "^verdict: ok" "$T/out"

# A crash: stored as crashed with its signal; the other probe still ran; check says exit 2.
echo crash >"$B/mode.02_flaky"
expect_status 2 "$GCR" measure --build "$B" --size ci --rounds 2 --warmup 0 --meters rusage,census
expect_grep "02_flaky .* crashed +SIGSEGV" "$T/out"
expect_grep "01_steady .* ok" "$T/out"
expect_eq "$(exported 2 '[.runs[] | select(.status == "crashed" and .detail == "SIGSEGV" and .probe == "02_flaky")] | length')" 2 "crashed runs stored"
expect_eq "$(exported 2 '[.runs[] | select(.status == "ok" and .probe == "01_steady")] | length')" 2 "the session went on"
expect_status 2 "$GCR" check --all --profile shared_ci --collector scripted
expect_grep "02_flaky .*COULD NOT JUDGE: 2 of 2 timed runs crashed \(SIGSEGV\)" "$T/out"
expect_grep "01_steady .*census.alloc_bytes .* ok" "$T/out"
expect_grep "^verdict: COULD NOT JUDGE" "$T/out"
expect_no_grep "02_flaky .* ok$" "$T/out" "a crashed probe's cells are never ok"

# A hang: killed at the time limit, stored as timeout.
echo hang >"$B/mode.02_flaky"
expect_status 2 "$GCR" measure --build "$B" --probes 02 --size ci --rounds 1 --warmup 0 --meters rusage,census --timeout 1
expect_eq "$(exported 3 '.runs[].status')" timeout "hung run"
expect_status 2 "$GCR" check --all --profile shared_ci --collector scripted
expect_grep "COULD NOT JUDGE: 1 of 1 timed runs timeout" "$T/out"

# A non-zero exit keeps the last line of stderr as the reason.
echo fail >"$B/mode.02_flaky"
expect_status 2 "$GCR" measure --build "$B" --probes 02_flaky --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_eq "$(exported 4 '.runs[] | "\(.status) \(.detail)"')" "failed exited 3: out of cheese" "failed run"

# A malformed census object: the run fails with the field named.
echo badcensus >"$B/mode.02_flaky"
expect_status 2 "$GCR" measure --build "$B" --probes 02_flaky --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_eq "$(exported 5 '.runs[].status')" bad_census "bad census run"
expect_grep "census.alloc_bytes: must be a non-negative integer" "$T/out"

# No census at all: still measured by the external meters, checksum taken from stdout.
echo nocensus >"$B/mode.02_flaky"
expect_status 0 "$GCR" measure --build "$B" --probes 02_flaky --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_eq "$(exported 6 '.runs[] | "\(.status) \(.checksum)"')" "ok 0x00000000000000aa" "census-less run"
expect_eq "$(exported 6 '[.runs[].samples | select(has("rss.peak_bytes"))] | length')" 1 "external meters"
expect_eq "$(exported 6 '[.runs[].samples | keys[] | select(startswith("census."))] | length')" 0 "no fake census"
finish
