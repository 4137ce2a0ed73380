#!/bin/sh
# needs: valgrind
# Issue 26, items 3 to 5: a +3% Ir plant inside one named function of gen (GCR_PLANT_ALLOC_SPIN,
# collectors/common/plant.h: a spin inlined into gcr_alloc, the allocation path) is caught by
# ratchet, whose text, Markdown, check page and JSON name gcr_alloc first among the functions
# that moved against the pin, with its share of the change (all of it). The baseline keeps the
# pinned functions, strictly read; explain prints the same diff; the Markdown and the page lead
# with the verdict and fold no regressed row.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
export GCR_BASELINE_DIR="$T/baselines"

make -s -C "$TOP" -f collectors/build.mk NAME=gen-spin COLLECTOR_DIR=collectors/gen \
	OUT="$T/gen-spin" EXTRA_CFLAGS=-DGCR_PLANT_ALLOC_SPIN=1 >/dev/null 2>"$T/make.err" || {
	fail "cannot build the planted gen"
	cat "$T/make.err" >&2
	finish
}
expect_status 0 "$GCR" measure --collector gen --probes 02 --size ci --rounds 2 --warmup 0 \
	--meters rusage,census,valgrind
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector gen --session latest
BL="$T/baselines/shared_ci/gen.json"
expect_status 0 "$GCR" baseline validate "$BL"
expect_eq "$(jq '.functions["02_survivor_promotion"].top | length' "$BL")" 20 "the pin keeps the probe's 20 largest functions"
expect_eq "$(jq '.functions["02_survivor_promotion"].ir == ([.cells[] | select(.metric == "valgrind.ir")][0].median)' "$BL")" true \
	"with the probe's pinned Ir"
expect_eq "$(jq -r '.functions["02_survivor_promotion"].top | map(.name) | index("gcr_alloc") != null' "$BL")" true \
	"gcr_alloc is among them"

# The planted build: Ir +2.9%, all of it in gcr_alloc.
expect_status 1 "$GCR" ratchet --build "$T/gen-spin" --md "$T/r.md" --html "$T/r.html"
cp "$T/out" "$T/r.txt"
expect_grep "^02_survivor_promotion +valgrind.ir .* REGRESSED" "$T/r.txt"
expect_grep "^where the instructions moved against the pin" "$T/r.txt"
first=$(awk '/^    function +file/ { getline; print; exit }' "$T/r.txt")
echo "$first" | grep -Eq "^    gcr_alloc +gen\.c .* (9[5-9]|100)\.[0-9]%$" && pass ||
	fail "text: the first mover is not gcr_alloc with its share: $first"
expect_eq "$(tail -n 1 "$T/r.txt" | cut -c1-19)" "verdict: REGRESSION" "the verdict is still the last line"

# Markdown: the verdict first, no regressed row in the fold, gcr_alloc first with its share.
expect_eq "$(head -n 1 "$T/r.md" | cut -c1-31)" "### gcratchet check: REGRESSION" "Markdown: the verdict first"
expect_eq "$(awk '/<details>/ { fold = 1 } fold && /REGRESSED/' "$T/r.md" | wc -l)" 0 "Markdown: no regressed row folded"
first=$(awk '/^\*\*Where the instructions moved\*\*/ { getline; getline; print; exit }' "$T/r.md")
echo "$first" | grep -Eq '^- gcr_alloc \(collectors/gen/gen\.c\): \+[0-9]+ Ir, (9[5-9]|100)\.[0-9]% of the change, on 02_survivor_promotion$' &&
	pass || fail "Markdown: the first mover is not gcr_alloc with its share: $first"
# --md-full: the probe's own table, as before.
expect_status 1 "$GCR" check --profile shared_ci --collector gen --format md --md-full
first=$(awk '/^\| function \| file \|/ { getline; getline; print; exit }' "$T/out")
echo "$first" | grep -Eq '^\| gcr_alloc \| collectors/gen/gen\.c \| [0-9]+ \| [0-9]+ \| \+[0-9]+ \| \+[0-9.]+% \| (9[5-9]|100)\.[0-9]% \|  \|$' &&
	pass || fail "--md-full: the first mover is not gcr_alloc with its share: $first"
size=$(wc -c <"$T/r.md")
expect_eq "$([ "$size" -lt 60000 ] && echo under)" under "Markdown: $size bytes"

# The check page: the verdict, the baseline, the regressed row with its band and samples,
# gcr_alloc first among the movers.
expect_grep '^<div class="banner bad" id="verdict">verdict: REGRESSION ' "$T/r.html"
expect_grep "<b>baseline</b> <code>$BL</code>: profile shared_ci, collector gen 1.0, pinned " "$T/r.html"
expect_grep '<td class="l">valgrind.ir</td><td>[0-9]+</td><td>[0-9]+</td><td>\+[0-9.]+%</td><td>1%</td>.*REGRESSED.*samples: [0-9]+ \(run [0-9]+\)' "$T/r.html"
first=$(awk '/<table class="movers">/ { getline; getline; print; exit }' "$T/r.html")
echo "$first" | grep -Eq '^<tr><td class="l"><code>gcr_alloc</code></td><td class="l">collectors/gen/gen\.c</td>.*<td>(9[5-9]|100)\.[0-9]%</td>' &&
	pass || fail "page: the first mover is not gcr_alloc with its share: $first"
grep -n 'id="verdict"' "$T/r.html" | cut -d: -f1 >"$T/at.verdict"
grep -n 'class="movers"' "$T/r.html" | head -n 1 | cut -d: -f1 >"$T/at.movers"
expect_eq "$([ "$(cat "$T/at.verdict")" -lt "$(cat "$T/at.movers")" ] && echo first)" first "page: the verdict before the movers"

# JSON: the cell's where, gcr_alloc first, all of the change.
expect_status 1 "$GCR" check --profile shared_ci --collector gen --format json
expect_eq "$(jq -r '.cells[] | select(.metric == "valgrind.ir") | .where.functions[0] | .name + " " + (.share > 0.95 | tostring) + " " + .side' "$T/out")" \
	"gcr_alloc true both" "JSON: the first mover and its share"

# explain: the same diff, whatever the verdict; and against the session it was pinned from.
expect_status 0 "$GCR" explain --profile shared_ci --collector gen --top 1
expect_grep "^    gcr_alloc +collectors/gen/gen\.c " "$T/out"
expect_status 0 "$GCR" explain --session latest --against 1 --probe 02 --format json
expect_eq "$(jq -r '.probes[0].functions[0].name' "$T/out")" gcr_alloc "explain --against: gcr_alloc first"
expect_status 2 "$GCR" explain --session latest --against 1 --profile shared_ci
expect_grep "give one" "$T/err"

# The functions member is read as strictly as the rest of the file.
jq '.functions["02_survivor_promotion"].extra = 1' "$BL" >"$T/bad.json"
expect_status 2 "$GCR" check --profile shared_ci --collector gen --baseline "$T/bad.json"
expect_grep 'bad.json: functions."02_survivor_promotion".extra: unknown key' "$T/err"
jq '.functions["02_survivor_promotion"].top[0].ir = 1' "$BL" >"$T/bad.json"
expect_status 2 "$GCR" baseline validate "$T/bad.json"
expect_grep 'bad.json: functions."02_survivor_promotion": function .*: not in order' "$T/err"
finish
