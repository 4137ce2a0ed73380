#!/bin/sh
# The main job, as `make check` runs it: `gcratchet ratchet` measures the default collector
# (gen) with exactly what its committed shared_ci baseline needs and passes it, in fewer than
# 40 lines that end with the verdict.
. "$(dirname "$0")/lib.sh"

expect_status 0 "$GCR" ratchet
expect_grep "^verdict: ok" "$T/out"
expect_eq "$(tail -n 1 "$T/out" | cut -c1-12)" "verdict: ok " "the verdict is the last line"
expect_no_grep "REGRESSED|COULD NOT JUDGE" "$T/out"
lines=$(wc -l <"$T/out")
expect_eq "$([ "$lines" -lt 40 ] && echo fewer)" fewer "ratchet printed $lines lines when everything is ok"
# It measured what the baseline pins, nothing else: its probes, size and meters.
B="$TOP/baselines/shared_ci/gen.json"
expect_eq "$(sql "SELECT group_concat(probe, ',') FROM (SELECT DISTINCT probe FROM runs ORDER BY probe)")" \
	"$(jq -r '[.cells[].probe] | unique | join(",")' "$B")" "the probes measured"
expect_eq "$(sql "SELECT DISTINCT size FROM runs")" "$(jq -r .size "$B")" "the size measured"
expect_eq "$(sql "SELECT count(*) FROM runs WHERE kind = 'valgrind'")" \
	"$(jq -r '[.cells[].probe] | unique | length' "$B")" "one valgrind run per probe"
expect_status 0 "$GCR" baseline validate --profile shared_ci --collector gen
# The markdown form is a table a PR comment can hold.
expect_status 0 "$GCR" check --profile shared_ci --format md
expect_grep "^\| probe \| metric \| baseline \| current \| delta \| allowance \| used \| verdict \|$" "$T/out"
finish
