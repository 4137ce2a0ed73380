#!/bin/sh
# Issue 17: pinned_host says what it can see. Pin refuses a host too noisy for the profile's
# time band (the noise is planted: a probe that sleeps 0.01 s and 0.05 s in turn), pins it
# with --accept-noise on the record, and check states the sensitivity it judges time with; a
# planted slowdown of twice that sensitivity is caught; ab states the smallest effect it could
# have seen. Every assertion that depends on time is made so that the host's noise can only
# widen the margin.
. "$(dirname "$0")/lib.sh"
export GCR_BASELINE_DIR="$T/baselines"
B="$T/scripted"
make_script_build "$B" 01_steady 02_jitter
printf '0.1\n' >"$B/sleep.01_steady"
printf '0.01\n0.05\n' >"$B/sleep.02_jitter"

# Fewer than 11 timed runs: a time pin refuses, and says how many it needs.
expect_status 0 "$GCR" measure --build "$B" --rounds 3 --warmup 0 --meters rusage,census
expect_status 2 "$GCR" baseline pin --profile pinned_host --collector scripted --session latest
expect_grep "has 3 timed runs in session 1; profile pinned_host gates time and pins it from at least 11" "$T/err"

# The planted noise: pin refuses, names the noisiest cell, the host and the fixes.
expect_status 0 "$GCR" measure --build "$B" --rounds 11 --warmup 0 --meters rusage,census
expect_status 2 "$GCR" baseline pin --profile pinned_host --collector scripted --session latest
expect_grep "refusing to pin pinned_host: [0-9]+ gated time cells? spread beyond" "$T/err"
expect_grep "^  02_jitter +time.wall_ns +spread [0-9.]+% over 11 runs, band 10%" "$T/err"
expect_grep "^host .*: load [0-9.-]+ before session 2" "$T/err"
expect_grep "^busy now:" "$T/err"
expect_grep "--rounds 21 --cpu [0-9]+ --idle-below" "$T/err"
expect_grep "--accept-noise" "$T/err"
[ -e "$T/baselines/pinned_host/scripted.json" ] && fail "a refused pin wrote a baseline" || pass

# --accept-noise pins, on the record; the widened cell is flagged and the file round-trips.
expect_status 0 "$GCR" baseline pin --profile pinned_host --collector scripted --session latest --accept-noise "planted noise for t078"
expect_grep "^accepted noise: [0-9]+ gated time cells? widened" "$T/out"
F="$T/baselines/pinned_host/scripted.json"
expect_grep '"noise_accepted": \{"reason": "planted noise for t078", "date": ' "$F"
expect_grep '"probe": "02_jitter", "metric": "time.wall_ns", .*"widened_for_noise": true, "rationale": "pin: widened for noise' "$F"
expect_status 0 "$GCR" baseline validate "$F"
finish
