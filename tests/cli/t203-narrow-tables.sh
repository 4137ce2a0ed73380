#!/bin/sh
# needs: valgrind
# ab's text fits a terminal (issue 43, item 9): no line of `ab gen marksweep --probes 01,05`
# over 120 columns, instruction counts whole and scaled (363.5M, never 3635321.6), the first
# line short with what was worse and what was better each in a clause of its own; --wide (ab's
# and report's) gives back the full rows, every column and digit.
. "$(dirname "$0")/lib.sh"

expect_status 1 "$GCR" ab gen marksweep --probes 01,05 --rounds 7 --size ci --seed 203
cp "$T/out" "$T/narrow"
long=$(awk 'length($0) > 120' "$T/narrow" | wc -l)
expect_eq "$long" 0 "lines of ab's text over 120 columns"
awk 'length($0) > 120' "$T/narrow" | head -n 3 | cut -c1-160 >&2
# The first line: the outcome, the two builds and the rounds; no metric, neither clause.
head -n 1 "$T/narrow" >"$T/first"
expect_grep "^gcratchet ab: FIX is WORSE on [0-9]+ cells: marksweep vs gen \(7 of 7 rounds\)$" "$T/first"
expect_no_grep "better|Ir " "$T/first" "the first line names no metric and no better"
expect_grep "^  worse: Ir \+[0-9.]+% on 2 probes" "$T/narrow"
expect_grep "^  better: peak RSS -[0-9.]+%" "$T/narrow"
expect_no_grep "^  worse: .*better" "$T/narrow" "better and worse share a clause"
# One heading per probe, its cells under it; Ir whole and scaled.
expect_grep "^01_nursery_churn$" "$T/narrow"
expect_grep "^  valgrind\.ir +[0-9]+\.[0-9]M +[0-9]+\.[0-9]M +\+[0-9]+\.[0-9]M +\+[0-9.]+% .*WORSE$" "$T/narrow"
expect_no_grep "[0-9]{5,}\.[0-9]" "$T/narrow" "a count printed with a fraction"
expect_no_grep "^  valgrind\.ir +[0-9]{7,}" "$T/narrow" "Ir printed with every digit by default"
# Where the instructions moved: the same short counts.
expect_grep "^  01_nursery_churn: Ir [0-9.]+M -> [0-9.]+M \(\+[0-9.]+M, \+[0-9.]+%\)" "$T/narrow"

# --wide: the full row, every column and every digit, as ab printed it before.
session=$(sql "SELECT MAX(id) FROM sessions")
expect_status 1 "$GCR" report --session "$session" --wide
expect_grep "^01_nursery_churn +valgrind\.ir +[0-9]+ +[0-9]+ +\+[0-9]+ +\+[0-9.]+% +exact +- +exact \([0-9]+\) +- +- +WORSE$" "$T/out"
expect_grep "^probe +metric +BASE +FIX +delta +% +95% CI of delta +MDE +rounds +p +q +verdict$" "$T/out"
long=$(awk 'length($0) > 120' "$T/out" | wc -l)
[ "$long" -gt 0 ] && pass || fail "--wide printed no line over 120 columns"
# report without --wide is ab's narrow text again, from the store.
expect_status 1 "$GCR" report --session "$session"
expect_eq "$(awk 'length($0) > 120' "$T/out" | wc -l)" 0 "report's lines over 120 columns"
expect_status 2 "$GCR" report --history --collector gen --probe 01 --metric valgrind.ir --wide
expect_grep "not a session's options" "$T/err"
finish
