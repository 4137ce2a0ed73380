#!/bin/sh
# pinned_host: a baseline pinned here gates time and tight RSS, and passes check right after
# it was pinned; the shipped shared_ci baselines validate.
. "$(dirname "$0")/lib.sh"
export GCR_BASELINE_DIR="$T/baselines"

expect_status 0 "$GCR" measure --collector marksweep --probes 01,02 --size ci --rounds 3 --warmup 1 --meters rusage,census
expect_status 0 "$GCR" baseline pin --profile pinned_host --collector marksweep --session latest
expect_grep '"time.wall_ns": \{"gated": true' "$T/baselines/pinned_host/marksweep.json"
expect_status 0 "$GCR" check --profile pinned_host --collector marksweep
expect_grep "^01_nursery_churn +time.wall_ns .* ok$" "$T/out"
expect_grep "^verdict: ok" "$T/out"
expect_no_grep "^STALE" "$T/out"

for f in "$TOP"/baselines/shared_ci/*.json; do
	expect_status 0 "$GCR" baseline validate --profile shared_ci "$f"
done
finish
