#!/bin/sh
# ab reports a change of an arm's spread as info: FIX's wall time is planted to swing
# (0.02 s and 0.18 s in turn) about the same median as BASE's steady 0.1 s. The cell's
# verdict stays "same", the exit status is what the verdicts say, and the spread change is in
# the JSON (each arm's sd, the ratio, the paired Brown-Forsythe p and q, "wider") and in a
# note of the text and Markdown; the same session read the other way round says "narrower".
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"

A=$T/steady B=$T/swing
BUILD_NAME=steady make_script_build "$A" 01_p
BUILD_NAME=swing make_script_build "$B" 01_p
printf '0.1\n' >"$A/sleep.01_p"
printf '0.02\n0.18\n' >"$B/sleep.01_p"

# 21 rounds. FIX's median is one of its two modes, so about half its rounds lie at it and their
# deviations are noise of either sign: at 11 rounds the paired p came to 0.014 (q 0.041, next
# to 0.05) and a loaded host tipped it over; at 21 it is about 0.004.
"$GCR" ab "$A" "$B" --probes 01_p --rounds 21 --warmup 0 --meters rusage,census --seed 146 \
	--json "$T/ab.json" --md "$T/ab.md" >"$T/out" 2>"$T/err"
status=$?
outcome=$(jq -r '.comparison.outcome' "$T/ab.json")
case "$outcome:$status" in
ok:0 | worse:1 | could_not_judge:2) pass ;;
*) fail "exit $status does not follow the verdicts' outcome $outcome" ;;
esac
jq -r '.comparison.cells[] | select(.metric == "time.wall_ns") |
	[.verdict, .spread.change, (.spread.ratio > 3), .spread.in_fdr_family, (.spread.q <= 0.05),
	 (.spread.fix_sd > .spread.base_sd)] | map(tostring) | join(" ")' "$T/ab.json" >"$T/j"
expect_eq "$(cat "$T/j")" "same wider true true true true" "JSON: wall time same, its spread wider"
jq -r '.comparison | [.counts.spread_changed >= 1, .fdr.spread_family_size >= 1,
	([.cells[] | select(.spread.change != null)] | length) == .counts.spread_changed] |
	map(tostring) | join(" ")' "$T/ab.json" >"$T/j"
expect_eq "$(cat "$T/j")" "true true true" "JSON: spread counts agree with the cells"
# The census of a scripted build repeats: deterministic cells have no spread to test.
jq -r '[.comparison.cells[] | select(.deterministic) | .spread.in_fdr_family] | any | tostring' \
	"$T/ab.json" >"$T/j"
expect_eq "$(cat "$T/j")" "false" "no deterministic cell in the spread family"
expect_grep "^note: 01_p time\.wall_ns: FIX's spread is wider, sd [0-9.]+ [mun]?s -> [0-9.]+ [mun]?s \(x[0-9.]+, paired Brown-Forsythe q = 0\.0[0-4][0-9]*\); info, never judged$" "$T/out"
expect_grep "^01_p +time\.wall_ns .* same( \(bimodal\))?$" "$T/out"
expect_no_grep "^verdict: .*spread" "$T/out" "the verdict line says nothing of spread"
expect_grep "^- note: 01\\\\?_p time\\\\?\.wall\\\\?_ns: FIX's spread is wider" "$T/ab.md"

# The stored session the other way round: BASE swings, FIX is steady.
session=$(sql "SELECT MAX(id) FROM sessions")
"$GCR" report --session "$session" --base swing --fix steady --json "$T/rev.json" >"$T/out" 2>"$T/err"
jq -r '.comparison.cells[] | select(.metric == "time.wall_ns") | [.verdict, .spread.change,
	(.spread.ratio < 0.34)] | map(tostring) | join(" ")' "$T/rev.json" >"$T/j"
expect_eq "$(cat "$T/j")" "same narrower true" "reversed: the spread is narrower"
expect_grep "^note: 01_p time\.wall_ns: FIX's spread is narrower, sd [0-9.]+ [mun]?s -> [0-9.]+ [mun]?s" "$T/out"
finish
