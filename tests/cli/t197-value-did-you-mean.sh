#!/bin/sh
# Values get the care options get (issue 43, item 7): a mistyped collector or profile is named
# with the nearest that exists, before anything else is said, and check does not advise
# pinning a baseline for a misspelt one. Two letters swapped count as one edit,
# for verbs and options too.
. "$(dirname "$0")/lib.sh"

expect_status 2 "$GCR" measure --collector gne
expect_eq "$(head -n 1 "$T/err")" 'gcratchet measure: unknown collector "gne" (did you mean gen? valid: bdwgc, bdwgc-incremental, epsilon, gen, marksweep); a build folder elsewhere is --build DIR' \
	"measure names the collector first, with the nearest"
expect_eq "$(wc -l <"$T/err" | tr -d ' ')" 1 "and says nothing about the meters before it"
expect_status 2 "$GCR" measure --collector nosuchgc
expect_grep 'unknown collector "nosuchgc" \(valid: ' "$T/err" "no guess when none is near"

expect_status 2 "$GCR" check --profile shared_ci --collector gne
expect_grep '^gcratchet check: unknown collector "gne": no shipped build or baseline has that name \(did you mean gen\? valid: .*jvm-serial' "$T/err"
expect_no_grep 'pin one with' "$T/err" "check advises pinning a collector that does not exist"
# A name near none may be an out-of-tree collector's, and one that exists but has no baseline
# of this profile: both still get the advice.
expect_status 2 "$GCR" check --profile shared_ci --collector mygc
expect_grep 'pin one with: gcratchet baseline pin --profile shared_ci --collector mygc' "$T/err"
expect_status 2 "$GCR" check --profile pinned_host --collector jvm-zgc
expect_grep 'pin one with: gcratchet baseline pin --profile pinned_host --collector jvm-zgc' "$T/err"

for v in check ratchet; do
	expect_status 2 "$GCR" $v --profile shared_cl
	expect_eq "$(cat "$T/err")" "gcratchet $v: unknown profile \"shared_cl\" (did you mean shared_ci? valid: shared_ci, pinned_host)" "$v --profile shared_cl"
done
expect_status 2 "$GCR" doctor --profile pinned_hst
expect_grep '^gcratchet doctor: unknown profile "pinned_hst" \(did you mean pinned_host\? valid: shared_ci, pinned_host\)$' "$T/err"
expect_status 2 "$GCR" doctor --profile nightly
expect_grep '^gcratchet doctor: unknown profile "nightly" \(valid: shared_ci, pinned_host\)$' "$T/err"

# Swapped letters: one edit.
expect_status 2 "$GCR" measure --rodnus 3
expect_grep 'unknown option "--rodnus" \(did you mean --rounds\?' "$T/err"
expect_status 2 "$GCR" mesaure
expect_grep 'unknown command "mesaure" \(did you mean measure\?\)' "$T/err"
# Probes by their words, and metrics: the nearest is named, and the probe before the meters.
expect_status 2 "$GCR" measure --probes 1,bianry_trees
expect_eq "$(head -n 1 "$T/err")" "$(printf '%s' 'gcratchet measure: unknown probe "bianry_trees" (did you mean 05_binary_trees? valid: 01_nursery_churn, ')$(sed -n 's/.*valid: 01_nursery_churn, //p' "$T/err" | head -n 1)" \
	"measure names the probe by its words, first"
expect_eq "$(wc -l <"$T/err" | tr -d ' ')" 1 "and nothing about the meters before it"
expect_status 2 "$GCR" measure --probes zzz
expect_grep '^gcratchet measure: unknown probe "zzz" \(valid: 01_nursery_churn' "$T/err" "no guess when none is near"
expect_status 2 "$GCR" history --collector gen --probe 01 --metric valgrind.irr
expect_grep '^gcratchet history: --metric: unknown metric "valgrind.irr" \(did you mean valgrind.ir\? see gcratchet list metrics\)$' "$T/err"
expect_status 2 "$GCR" history --collector gen --probe 01 --metric census.no_such_thing_at_all
expect_grep 'unknown metric "census.no_such_thing_at_all" \(see gcratchet list metrics\)$' "$T/err"
finish
