#!/bin/sh
# The main job, as `make check` runs it: the default collector (gen), measured at the ci
# size, passes check against its committed shared_ci baseline.
. "$(dirname "$0")/lib.sh"

expect_status 0 sh "$TOP/scripts/ratchet.sh" "$GCR" gen 2
expect_grep "^verdict: ok" "$T/out"
expect_no_grep "REGRESSED|COULD NOT JUDGE" "$T/out"
expect_status 0 "$GCR" baseline validate --profile shared_ci --collector gen
# The markdown form is a table a PR comment can hold.
expect_status 0 "$GCR" check --profile shared_ci --format md
expect_grep "^\| probe \| metric \| baseline \| current \| delta \| allowance \| used \| verdict \|$" "$T/out"
finish
