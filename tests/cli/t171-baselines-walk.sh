#!/bin/sh
# Baselines are found from any subfolder of a checkout (issue 29, item 8): without
# GCR_BASELINE_DIR, ./baselines, else the nearest baselines/ of a folder above, up to the
# repository's root (the first folder with a .git) and no further; pin from a subfolder writes
# there, check from another reads it; a miss says where it looked.
. "$(dirname "$0")/lib.sh"
unset GCR_BASELINE_DIR
export GCR_LOCK_FILE="$T/bench.lock"
R=$T/repo
mkdir -p "$R/.git" "$R/baselines" "$R/docs/deep/er" "$R/src"
expect_status 0 "$GCR" measure --collector epsilon --probes 03,01,02 --size ci --rounds 2 \
	--warmup 0 --meters rusage,census --seed 171
cd "$R/docs/deep/er" || exit 2
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector epsilon --session latest
[ -f "$R/baselines/shared_ci/epsilon.json" ] && pass ||
	fail "pin from a subfolder did not write the checkout's baselines/ ($(ls -R "$R" | head -n 20))"
[ ! -e "$R/docs/deep/er/baselines" ] && pass || fail "pin wrote a baselines/ in the subfolder"
cd "$R/src" || exit 2
expect_status 0 "$GCR" check --profile shared_ci --collector epsilon
expect_grep "^verdict: ok" "$T/out"
# Every format lists the cells by probe, whatever order pin wrote the probes in.
expect_status 0 "$GCR" check --profile shared_ci --collector epsilon --format json
jq -r '[.cells[].probe] | unique | join(" ")' "$T/out" >"$T/probes"
expect_eq "$(jq -r '[.cells[].probe] | reduce .[] as $p ([]; if (.[-1] // "") == $p then . else . + [$p] end) | join(" ")' "$T/out")" \
	"$(cat "$T/probes")" "check's JSON cells in probe order"
expect_eq "$(cat "$T/probes")" "01_nursery_churn 02_survivor_promotion 03_cross_gen_writes" "the three probes"

# The walk stops at the repository's root: a baselines/ above it is another project's.
mkdir -p "$T/outer/baselines/shared_ci" "$T/outer/repo2/.git" "$T/outer/repo2/sub"
cp "$R/baselines/shared_ci/epsilon.json" "$T/outer/baselines/shared_ci/"
cd "$T/outer/repo2/sub" || exit 2
expect_status 2 "$GCR" check --profile shared_ci --collector epsilon
expect_grep "looked in \./baselines, the baselines/ of each folder above up to the repository's root, and .*/baselines" "$T/err"
expect_grep "pin one with: gcratchet baseline pin --profile shared_ci --collector epsilon" "$T/err"
# GCR_BASELINE_DIR still wins, and the message names it.
GCR_BASELINE_DIR=$T/none expect_status 2 "$GCR" check --profile shared_ci --collector epsilon
expect_grep "looked in $T/none \(GCR_BASELINE_DIR\)" "$T/err"
finish
