#!/bin/sh
# ab reports a change of an arm's spread as info: FIX's CPU time is planted to swing (6 ms and
# 54 ms in turn) about the same median as BASE's steady 30 ms. The cell's verdict stays
# "same", the exit status is what the verdicts say, and the spread change is in the JSON (each
# arm's sd, the ratio, the paired Brown-Forsythe p and q, "wider") and in a note of the text
# and Markdown; the same session read the other way round says "narrower". The plant is CPU
# time, judged on time.user_ns: a planted sleep's wall time, judged on time.wall_ns, was
# stretched by tens of milliseconds a run on a loaded host (load 10-16 on 2 cores), which made
# BASE's spread as wide as FIX's and the change unseen; the load moves a run's CPU time by a
# few milliseconds at most.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"

A=$T/steady B=$T/swing
BUILD_NAME=steady make_script_build "$A" 01_p
BUILD_NAME=swing make_script_build "$B" 01_p
spin_plant "$A" 01_p 30
spin_plant "$B" 01_p 6 54

# An even number of rounds, so FIX's median lies between its two modes and every one of its
# runs deviates from it by 24 ms, against BASE's noise of a millisecond or so: the paired p is
# then below 0.0001 on any host. (With an odd number its median is one of its modes, half its
# deviations are noise of either sign, and the p wandered from 0.004 to 0.05 with the noise.)
"$GCR" ab --wide "$A" "$B" --probes 01_p --rounds 16 --warmup 0 --meters rusage,census --seed 146 \
	--json "$T/ab.json" --md "$T/ab.md" >"$T/out" 2>"$T/err"
status=$?
outcome=$(jq -r '.comparison.outcome' "$T/ab.json")
case "$outcome:$status" in
ok:0 | worse:1 | could_not_judge:2) pass ;;
*) fail "exit $status does not follow the verdicts' outcome $outcome" ;;
esac
jq -r '.comparison.cells[] | select(.metric == "time.user_ns") |
	[.verdict, .spread.change, (.spread.ratio > 3), .spread.in_fdr_family, (.spread.q <= 0.05),
	 (.spread.fix_sd > .spread.base_sd)] | map(tostring) | join(" ")' "$T/ab.json" >"$T/j"
expect_eq "$(cat "$T/j")" "same wider true true true true" "JSON: CPU time same, its spread wider"
jq -r '.comparison | [.counts.spread_changed >= 1, .fdr.spread_family_size >= 1,
	([.cells[] | select(.spread.change != null)] | length) == .counts.spread_changed] |
	map(tostring) | join(" ")' "$T/ab.json" >"$T/j"
expect_eq "$(cat "$T/j")" "true true true" "JSON: spread counts agree with the cells"
# The census of a scripted build repeats: deterministic cells have no spread to test.
jq -r '[.comparison.cells[] | select(.deterministic) | .spread.in_fdr_family] | any | tostring' \
	"$T/ab.json" >"$T/j"
expect_eq "$(cat "$T/j")" "false" "no deterministic cell in the spread family"
expect_grep "^note: 01_p time\.user_ns: FIX's spread is wider, sd [0-9.]+ [mun]?s -> [0-9.]+ [mun]?s \(x[0-9.]+, paired Brown-Forsythe q = 0\.0[0-4][0-9]*\); info, never judged$" "$T/out"
expect_grep "^01_p +time\.user_ns .* same( \(bimodal\))?$" "$T/out"
expect_no_grep "^verdict: .*spread" "$T/out" "the verdict line says nothing of spread"
expect_grep "^- note: 01\\\\?_p time\\\\?\.user\\\\?_ns: FIX's spread is wider" "$T/ab.md"

# The stored session the other way round: BASE swings, FIX is steady.
session=$(sql "SELECT MAX(id) FROM sessions")
"$GCR" report --session "$session" --base swing --fix steady --json "$T/rev.json" >"$T/out" 2>"$T/err"
jq -r '.comparison.cells[] | select(.metric == "time.user_ns") | [.verdict, .spread.change,
	(.spread.ratio < 0.34)] | map(tostring) | join(" ")' "$T/rev.json" >"$T/j"
expect_eq "$(cat "$T/j")" "same narrower true" "reversed: the spread is narrower"
expect_grep "^note: 01_p time\.user_ns: FIX's spread is narrower, sd [0-9.]+ [mun]?s -> [0-9.]+ [mun]?s" "$T/out"
finish
