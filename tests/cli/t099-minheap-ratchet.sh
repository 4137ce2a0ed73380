#!/bin/sh
# The min-heap ratchet (issue 13): baseline pin --minheap pins each probe's minimum heap for
# the build (minheap.min_heap_mib, from gcratchet minheap's stored answers); check judges it
# like any pinned cell. A gen variant whose old generation grows 4 MiB at a time
# (GCR_PLANT_HEAP_STEP_MB, a growth-policy change) needs more heap for binary_trees: REGRESSED.
# Without a stored answer the cell cannot be judged, never passed.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/lock"
export GCR_BASELINE_DIR="$T/baselines"

build_variant gen-step4 "$TOP/collectors/gen" "$T/gen-step4" -DGCR_PLANT_HEAP_STEP_MB=4 \
	05_binary_trees
expect_status 0 "$GCR" measure --collector gen --build "$T/gen-step4" --probes 05 --size ci \
	--rounds 2 --warmup 0 --meters rusage,census

# Pinning the min heap needs the answers first, and says how to get them.
expect_status 2 "$GCR" baseline pin --profile shared_ci --collector gen --session 1 --build gen \
	--minheap
expect_grep "--minheap: 1 probe of session 1 has no minimum heap stored for build gen at size ci" \
	"$T/err" "pin --minheap without answers"
expect_grep "run gcratchet minheap --build .*/gen --size ci first" "$T/err" "the fix is named"

expect_status 0 "$GCR" minheap --collector gen --build "$T/gen-step4" --probes 05 --size ci \
	--repeats 1
gen_mb=$(sql "SELECT min_heap_mb FROM minheap m JOIN builds b ON b.id = m.build_id
	WHERE b.name = 'gen'")
step_mb=$(sql "SELECT min_heap_mb FROM minheap m JOIN builds b ON b.id = m.build_id
	WHERE b.name = 'gen-step4'")
expect_eq "$([ "$step_mb" -gt "$gen_mb" ] && echo more)" more \
	"the plant needs more heap ($step_mb MiB against $gen_mb)"

expect_status 0 "$GCR" baseline pin --profile shared_ci --collector gen --session 1 --build gen \
	--minheap
expect_eq "$(jq -r '.cells[] | select(.metric == "minheap.min_heap_mib") |
	"\(.probe) \(.median) \(.n)"' "$T/baselines/shared_ci/gen.json")" "05_binary_trees $gen_mb 2" \
	"the cell is the stored answer"
expect_eq "$(jq -r '.rules["minheap.min_heap_mib"] |
	"\(.gated) \(.band_pct) \(.band_abs)"' "$T/baselines/shared_ci/gen.json")" "true 0 0" \
	"exact for a precise collector"

expect_status 0 "$GCR" check --all --profile shared_ci --collector gen --build gen
expect_grep "^05_binary_trees +minheap.min_heap_mib .* ok$" "$T/out" "the real gen passes"
expect_status 1 "$GCR" check --all --profile shared_ci --collector gen --build gen-step4
expect_grep "^05_binary_trees +minheap.min_heap_mib +$gen_mb +$step_mb .* REGRESSED: [0-9][^;]* past the allowance$" "$T/out" \
	"the growth-policy change is REGRESSED on its minimum heap"

# No stored answer for the build: the pinned cell cannot be judged, and neither can the check.
sqlite3 "$GCR_DB" "DELETE FROM minheap"
expect_status 2 "$GCR" check --all --profile shared_ci --collector gen --build gen
expect_grep "^05_binary_trees +minheap.min_heap_mib .*COULD NOT JUDGE" "$T/out" "unjudged"

expect_status 2 "$GCR" baseline update --profile shared_ci --collector gen --minheap
expect_grep "--minheap goes with pin" "$T/err" "update refuses --minheap"
finish
