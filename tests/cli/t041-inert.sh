#!/bin/sh
# A premise the configuration defeats makes the run inert: measure says INERT loudly and check
# fails the probe, even though every cost went down. A 4 GiB heap budget means marksweep never
# needs to collect during 04, which exists to leave garbage under a deep stack for a collector.
. "$(dirname "$0")/lib.sh"
export GCR_BASELINE_DIR="$T/baselines"
# exported SESSION FILTER — a fact of a stored session, read back through export.
exported() { "$GCR" export --session "$1" | jq -r "$2"; }

expect_status 0 "$GCR" measure --collector marksweep --probes 04 --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_no_grep "INERT" "$T/out"
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector marksweep --session latest

GCR_HEAP_MB=4096 expect_status 0 "$GCR" measure --collector marksweep --probes 04 --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_grep "INERT: premise not met" "$T/out"
expect_grep "^INERT: 1 run did not meet" "$T/out"
expect_eq "$(exported 2 '[.runs[] | select(.premise // "" | startswith("not met"))] | length')" 1 "premise stored with the run"
# Against the baseline pinned without the knob, check cannot judge the session at all (issue 24:
# the knob is named), yet still shows the probe inert.
expect_status 2 "$GCR" check --profile shared_ci --collector marksweep
expect_grep "^COULD NOT JUDGE: the probes ran with other knobs than the baseline was pinned with: GCR_HEAP_MB=4096 \(pinned without it\)" "$T/out"
expect_grep "^04_deep_stack_garbage +premise .* INERT: premise not met" "$T/out"
# A baseline that says it was pinned with the knob judges it, and the inert probe fails.
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector marksweep --session 1 --out "$T/knob.json"
jq '.knobs = {"GCR_HEAP_MB": "4096"}' "$T/knob.json" >"$T/k.json"
expect_status 1 "$GCR" check --profile shared_ci --collector marksweep --baseline "$T/k.json" --session 2
expect_grep "^04_deep_stack_garbage +premise .* INERT: premise not met" "$T/out"
expect_grep "census.major_collections .* (improved|REGRESSED)" "$T/out"
expect_grep "^verdict: REGRESSION" "$T/out"
finish
