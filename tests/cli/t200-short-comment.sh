#!/bin/sh
# needs: valgrind
# Issue 43, item 1: the comment a reviewer reads. An ok ratchet's Markdown is a few lines
# (under 1,500 characters: it posted 58,193, a 15-row table and a 669-row fold, for a PR that
# changed nothing); a planted +3% Ir in gcr_alloc (GCR_PLANT_ALLOC_SPIN) is under 4,000, lists
# each REGRESSED cell once (they were listed twice), names gcr_alloc as where the instructions
# went, and keeps its confirmed line short; one fold, no row in it. --md-full still writes the
# whole report. ab's Markdown of the same plant: each WORSE cell once, gcr_alloc named.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
export GCR_BASELINE_DIR="$T/baselines"

make -s -C "$TOP" -f collectors/build.mk NAME=gen-spin COLLECTOR_DIR=collectors/gen \
	OUT="$T/gen-spin" EXTRA_CFLAGS=-DGCR_PLANT_ALLOC_SPIN=1 >/dev/null 2>"$T/make.err" || {
	fail "cannot build the planted gen"
	cat "$T/make.err" >&2
	finish
}
# A baseline of two probes, pinned with their functions as the shipped ones are.
expect_status 0 "$GCR" measure --collector gen --probes 02,05 --size ci --rounds 3 --warmup 0 \
	--meters rusage,census,valgrind
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector gen --session latest
BL="$T/baselines/shared_ci/gen.json"
expect_eq "$(jq '.functions | length' "$BL")" 2 "the pin keeps each probe's functions"

# rows FILE: the table rows of a Markdown report ("| probe | metric | ..."), heads left out.
rows() { grep -E '^\| [0-9]{2}_[a-z_]+ \| ' "$1"; }
# once FILE WHAT: no row twice, and one fold with no row in it (ab's pause tables may be).
once() {
	expect_eq "$(rows "$1" | sort | uniq -d | wc -l)" 0 "$2: a row listed twice"
	expect_eq "$(grep -c '<details>' "$1")" 1 "$2: one fold"
	awk '/<details>/ { fold = 1 } fold' "$1" >"$T/fold"
	expect_eq "$(rows "$T/fold" | wc -l)" 0 "$2: a row in the fold"
}

# Unchanged code: the verdict and the fold, a few lines.
expect_status 0 "$GCR" ratchet --profile shared_ci --collector gen --md "$T/ok.md"
size=$(wc -c <"$T/ok.md")
expect_eq "$([ "$size" -lt 1500 ] && echo short)" short "ok: $size characters"
expect_eq "$(head -n 1 "$T/ok.md" | cut -c1-23)" "### gcratchet check: ok" "ok: the verdict first"
expect_eq "$(rows "$T/ok.md" | wc -l)" 0 "ok: no row"
once "$T/ok.md" "ok"

# The plant: each REGRESSED cell once, gcr_alloc named with all of the change.
expect_status 1 "$GCR" ratchet --build "$T/gen-spin" --md "$T/bad.md"
size=$(wc -c <"$T/bad.md")
expect_eq "$([ "$size" -lt 4000 ] && echo short)" short "regression: $size characters"
expect_eq "$(head -n 1 "$T/bad.md" | cut -c1-31)" "### gcratchet check: REGRESSION" "regression: the verdict first"
once "$T/bad.md" "regression"
# The terminal's table fits 120 columns too: its columns are as wide as what they hold.
expect_status 1 "$GCR" check --profile shared_ci --collector gen
cp "$T/out" "$T/bad.txt"
expect_grep "^02_survivor_promotion +valgrind\.ir .* REGRESSED" "$T/bad.txt" "the table shows the regressed Ir row"
expect_eq "$(grep -E '^[0-9]{2}_|^    ' "$T/bad.txt" | awk 'length > 120' | head -n 3)" "" \
	"no row of the table or of where the instructions moved is wider than 120 columns"
expect_grep "^    gcr_alloc +gen\.c +[0-9.]+M +[0-9.]+M +\+[0-9.]+M " "$T/bad.txt" "the function's row, its counts scaled"
expect_status 1 "$GCR" check --profile shared_ci --collector gen --format json
jq -r '.cells[] | select(.verdict != "ok" and .verdict != "info") | "| \(.probe) | \(.metric) |"' \
	"$T/out" >"$T/notok"
expect_eq "$([ -s "$T/notok" ] && echo some)" some "the plant regressed some cell"
while IFS= read -r row; do
	expect_eq "$(grep -cF -- "$row" "$T/bad.md")" 1 "regression: $row listed once"
done <"$T/notok"
expect_grep '^\*\*Where the instructions moved\*\* \(cachegrind' "$T/bad.md"
expect_grep '^- gcr\\?_alloc \(collectors/gen/gen\.c\): \+[0-9]+ Ir, (9[5-9]|100)\.[0-9]% of the change, on 2 probes$' \
	"$T/bad.md" "regression: gcr_alloc first, with its share"
expect_grep '^confirmed: [0-9]+ cells? past the allowance in every run: a change, not one rare run \(valgrind\.ir on 02, 05\)$' \
	"$T/bad.md" "regression: a short confirmed line"
# The whole report is one option away.
expect_status 1 "$GCR" check --profile shared_ci --collector gen --format md --md-full
expect_grep "^\*\*Each probe's worst row\*\*" "$T/out" "--md-full: the whole report"

# ab of the same plant: each WORSE cell once, the function named.
expect_status 1 "$GCR" ab gen "$T/gen-spin" --probes 02 --size ci --rounds 6 \
	--meters rusage,census,valgrind --seed 200 --md "$T/ab.md" --json "$T/ab.json"
size=$(wc -c <"$T/ab.md")
expect_eq "$([ "$size" -lt 4000 ] && echo short)" short "ab: $size characters"
once "$T/ab.md" "ab"
jq -r '.comparison.cells[] | select(.verdict == "worse") | "| \(.probe) | \(.metric) |"' \
	"$T/ab.json" >"$T/worse"
expect_grep 'valgrind\.ir' "$T/worse" "ab: Ir is worse"
while IFS= read -r row; do
	expect_eq "$(grep -cF -- "$row" "$T/ab.md")" 1 "ab: $row listed once"
done <"$T/worse"
expect_grep '^- gcr\\?_alloc \(collectors/gen/gen\.c\): \+[0-9]+ Ir, (9[5-9]|100)\.[0-9]% of the change, on 02_survivor_promotion$' \
	"$T/ab.md" "ab: gcr_alloc first, with its share"
finish
