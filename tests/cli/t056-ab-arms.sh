#!/bin/sh
# Arms: a session runs arms (a build, its knob overrides, a label), not bare builds. An A/A of
# one build is ONE build row and two arms, and stays quiet; a knob on one arm of one build is
# a real difference the comparison finds on that arm (gen with a 16 MiB nursery does fewer
# minor collections); a bad knob name is refused before anything runs; check picks an arm by
# its label.
. "$(dirname "$0")/lib.sh"
# exported SESSION FILTER — a fact of a stored session, read back through export.
exported() { "$GCR" export --session "$1" | jq -r "$2"; }
AB="$GCR ab --size ci --probes 01 --meters rusage,census --warmup 0 --seed 56"

# ---- An A/A of one build: one build row, two arms, no difference in any exact counter ----
expect_ab_outcome "$T/aa.json" $AB gen gen --rounds 3 --json "$T/aa.json"
expect_grep "A/A: BASE and FIX are one build, stored once and run as two arms, gen and gen \(2\)" "$T/err"
expect_grep "^  census: [0-9]+ deterministic counters compared exactly, all equal$" "$T/out"
expect_eq "$(sql "SELECT COUNT(*) FROM builds")" 1 "one build row"
expect_eq "$(sql "SELECT COUNT(*) FROM session_builds WHERE session_id = 1")" 2 "two arms"
expect_eq "$(exported 1 '[.arms[] | "\(.position):\(.label):\(.build)"] | join(",")')" \
	"0:gen:gen,1:gen (2):gen" "arms in the export"
expect_eq "$(exported 1 '[.runs[] | .arm] | unique | join(",")')" "0,1" "runs name their arm"
expect_eq "$(exported 1 '[.runs[] | .build_id] | unique | length')" 1 "of one build"

# ---- One build, one knob on FIX: the difference shows on the FIX arm ----------------------
expect_status 1 $AB gen gen --rounds 2 --knob-fix GCR_NURSERY_KB=16384 --json "$T/k.json"
expect_grep "FIX runs with GCR_NURSERY_KB=16384" "$T/err"
expect_grep "^FIX +gen \(2\) .*$" "$T/out"
expect_grep "^      knobs \{\"GCR_NURSERY_KB\":\"16384\"\}$" "$T/out"
expect_grep "^    01_nursery_churn +census.minor_collections +[0-9]+ -> [0-9]+ \(-[0-9]+\)$" "$T/out"
expect_eq "$(jq -r '[.arms[] | .knobs.GCR_NURSERY_KB // "-"] | join(",")' "$T/k.json")" "-,16384" "knobs per arm"
expect_eq "$(jq -r '[.comparison.cells[] | select(.metric == "census.minor_collections") | .verdict] | join(",")' "$T/k.json")" \
	"better" "fewer minor collections on the FIX arm"
expect_eq "$(sql "SELECT COUNT(*) FROM builds")" 1 "still one build row"
# check picks the arm by its label; two arms of one collector need one named.
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector gen --session 1 --build gen \
	--out "$T/gen.json"
expect_status 2 "$GCR" check --profile shared_ci --baseline "$T/gen.json" --session 2
expect_grep "measured 2 arms of collector gen: choose one with --build LABEL \(\"gen\", \"gen \(2\)\"\)" "$T/err"
"$GCR" check --profile shared_ci --baseline "$T/gen.json" --session 2 --build "gen (2)" >"$T/out" 2>&1
expect_grep "01_nursery_churn +census.minor_collections .*(improved|REGRESSED)" "$T/out"
"$GCR" check --profile shared_ci --baseline "$T/gen.json" --session 2 --build gen >"$T/out" 2>&1
expect_no_grep "census.minor_collections .*(improved|REGRESSED)" "$T/out" "the BASE arm is the pinned one"

# ---- measure --knob: every arm gets it ----------------------------------------------------
expect_status 0 "$GCR" measure --collector gen --size ci --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census --knob GCR_NURSERY_KB=16384
expect_grep "^build 1: gen .* with GCR_NURSERY_KB=16384$" "$T/out"
expect_eq "$(exported 3 '.arms[0].knobs.GCR_NURSERY_KB')" 16384 "measure's knob stored"

# ---- Bad knobs: refused with the option named, before anything runs ------------------------
expect_status 2 $AB gen gen --knob-fix gcr_nursery_kb=1
expect_grep "gcratchet ab: --knob-fix: knob name \"gcr_nursery_kb\" must match \[A-Z\]\[A-Z0-9_\]\*" "$T/err"
expect_status 2 $AB gen gen --knob-base GCR_NURSERY_KB
expect_grep "--knob-base must be NAME=VALUE" "$T/err"
expect_status 2 $AB gen gen --knob-base GCR_CENSUS_FD=9
expect_grep "GCR_CENSUS_FD is set by the harness" "$T/err"
expect_status 2 "$GCR" measure --collector gen --knob "X Y=1"
expect_grep "--knob: knob name \"X Y\" must match" "$T/err"
expect_eq "$("$GCR" list sessions | tail -n +2 | wc -l)" 3 "nothing ran"
finish
