#!/bin/sh
# pinned_host: a baseline pinned here gates time and tight RSS, and passes check right after
# it was pinned; the shipped shared_ci baselines validate. A noisy host (t078) would refuse
# the pin: this one accepts the noise, which a quiet host never records.
. "$(dirname "$0")/lib.sh"
export GCR_BASELINE_DIR="$T/baselines"

expect_status 0 "$GCR" measure --collector marksweep --probes 01,02 --size ci --rounds 11 --warmup 1 --meters rusage,census
expect_status 0 "$GCR" baseline pin --profile pinned_host --collector marksweep --session latest --accept-noise "t062 runs on any host"
expect_grep '"time.wall_ns": \{"gated": true' "$T/baselines/pinned_host/marksweep.json"
expect_status 0 "$GCR" check --all --profile pinned_host --collector marksweep
expect_grep "^01_nursery_churn +time.wall_ns .* ok(: band [0-9.]+% widened for noise at pin)?$" "$T/out"
expect_grep "^sensitivity: " "$T/out"
expect_grep "^verdict: ok" "$T/out"
expect_no_grep "^STALE" "$T/out"

for f in "$TOP"/baselines/shared_ci/*.json; do
	expect_status 0 "$GCR" baseline validate --profile shared_ci "$f"
done
finish
