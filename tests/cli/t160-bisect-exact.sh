#!/bin/sh
# needs: valgrind
# Issue 28: gcratchet bisect over an out-of-tree collector's history (bisect-repo.sh: 16
# commits of examples/tinyms, a +2% Ir cost planted at c11, one more minor collection counted
# from c6, undone at c14) finds each change from the exact meters: the Ir plant in at most 5
# steps, the census change on census.minor_collections, its undoing with --improved. Each
# step is stored with its build, session, figure and decision; --json says the same; a
# second bisect over commits already built builds nothing again.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/cli/bisect-repo.sh"
export GCR_LOCK_FILE="$T/bench.lock" GCR_BISECT_CACHE="$T/cache"

bisect_repo "$T/repo" || {
	fail "cannot make the repository"
	finish
}
for k in 1 6 11 13 14 16; do eval "C$k=$(bisect_hash "$T/repo" $k)"; done
DIR=$T/repo/tinyms

# Ir, exact: each end measured twice repeats itself (within Ir's resolution), then one run
# per commit; sixteen commits take four steps, five at most.
expect_status 0 "$GCR" bisect --collector-dir "$DIR" --good "$C1" --bad "$C16" --probe 15 \
	--metric valgrind.ir --json "$T/ir.json"
cp "$T/out" "$T/ir.out"
cp "$T/err" "$T/ir.err"
expect_grep "^$C11 is the first bad commit$" "$T/ir.out"
expect_grep "^    c11: spin on every allocation$" "$T/ir.out"
expect_grep "^exact: each end repeated itself" "$T/ir.out"
expect_grep "^bisect 1: valgrind\.ir of 15_request_latency at size ci, good [0-9a-f]{7} to bad [0-9a-f]{7} in .*: 14 commits between \(roughly 4 steps\)$" "$T/ir.out"
expect_grep "^    15_request_latency valgrind\.ir: [0-9]+ at [0-9a-f]{7} -> [0-9]+ \(\+[0-9.]+%\)$" "$T/ir.out"
steps=$(grep -cE '^\[[0-9]+\] ' "$T/ir.out")
if [ "$steps" -ge 3 ] && [ "$steps" -le 5 ]; then pass; else fail "the Ir bisect took $steps steps, expected 3 to 5"; fi
expect_grep "^bisect 1: $steps steps after the ends: build [0-9.]+ s, measure [0-9.]+ s$" "$T/ir.out"
expect_grep "^Bisecting: [0-9]+ commits? left to test after this \(roughly [0-9]+ steps?\)$" "$T/ir.out"
expect_no_grep "not passed to the probes" "$T/ir.err" "the cache settings are gcratchet's, not knobs"
expect_no_grep "skip" "$T/ir.out" "no commit of this history is skipped"

# The JSON: the same answer, the figure before and after, the steps and what they cost.
expect_eq "$(jq -r '[.status, .mode, .first_bad.commit, .first_bad.subject, .cost.steps] | join(" ")' "$T/ir.json")" \
	"found exact $C11 c11: spin on every allocation $steps" "the JSON's answer"
expect_eq "$(jq '.first_bad.figures["15_request_latency"] | .delta_pct > 1.5 and .delta_pct < 3 and .after > .before' "$T/ir.json")" \
	true "the JSON's figure before and after: about +2%"
expect_eq "$(jq '[.steps[] | select(.role == "step")] | length' "$T/ir.json")" "$steps" "a JSON step per step"
expect_eq "$(jq '[.steps[] | select(.build_id == null or (.sessions | length) != 1 or .figures == null)] | length' "$T/ir.json")" \
	0 "every step names its build, its session and its figure"

# The store: the bisect's record, each step with a build and a session that exist.
expect_eq "$(sql "SELECT status || ' ' || mode || ' ' || first_bad || ' ' || source FROM bisects WHERE id = 1")" \
	"found exact $C11 collector-dir" "the stored bisect"
expect_eq "$(sql "SELECT count(*) FROM bisect_steps WHERE bisect_id = 1")" $((steps + 2)) "the ends and each step stored"
expect_eq "$(sql "SELECT count(*) FROM bisect_steps s WHERE bisect_id = 1 AND (NOT EXISTS (SELECT 1 FROM sessions WHERE id = CAST(s.sessions AS INTEGER)) OR NOT EXISTS (SELECT 1 FROM builds WHERE id = s.build_id))")" \
	0 "each step's session and build are in the store"
expect_eq "$(sql "SELECT decision FROM bisect_steps WHERE bisect_id = 1 AND commit_hash = '$C11'")" bad "c11 stored as bad"

# The census: one more minor collection from c6, on the exact census counter. A counter does
# not depend on the optimisation, and -O0 builds in half the time: a build option, so these
# are other builds than the Ir bisect's; built once, they are not built again.
expect_status 0 "$GCR" bisect --collector-dir "$DIR" --good "$C1" --bad "$C13" --probe 15 \
	--metric census.minor_collections --make OPT=-O0
cp "$T/out" "$T/census.out"
expect_grep "^$(bisect_hash "$T/repo" 6) is the first bad commit$" "$T/census.out"
expect_grep "^    15_request_latency census\.minor_collections: 0 at [0-9a-f]{7} -> 1 \(\+1\)$" "$T/census.out"
expect_grep "moved at all, the way the ends moved" "$T/census.out"

# The improvement: c14 stops counting it. Without --improved the ends moved the wrong way
# for a regression, which is said, stored as failed, and exit 2.
expect_status 0 "$GCR" bisect --collector-dir "$DIR" --old "$C6" --new "$C16" --probe 15 \
	--metric census.minor_collections --improved --make OPT=-O0
expect_grep "^$C14 is the first bad commit$" "$T/out"
expect_grep "^--improved: bad marks a commit where census\.minor_collections improved, good one where it is as it was$" "$T/out"
expect_grep "good end [0-9a-f]{7}: build reused" "$T/err"
expect_grep "^\[good\] " "$T/out"
expect_grep "^\[[0-9]+\] +[0-9a-f]{7} (good|bad) " "$T/out"
expect_status 2 "$GCR" bisect --collector-dir "$DIR" --good "$C6" --bad "$C16" --probe 15 \
	--metric census.minor_collections --make OPT=-O0
expect_grep "no search: census\.minor_collections moved the other way between the ends: 15_request_latency 1 -> 0 \(-100\.00%\): it improved, and bisect looks for a regression \(--improved looks for an improvement\)" "$T/out"
expect_eq "$(sql "SELECT status FROM bisects ORDER BY id DESC LIMIT 1")" failed "stored as failed"
finish
