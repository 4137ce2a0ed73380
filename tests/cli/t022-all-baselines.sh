#!/bin/sh
# Every shipped collector's committed shared_ci baseline passes check on this machine (the
# default collector's is t020's).
. "$(dirname "$0")/lib.sh"

for f in "$TOP"/baselines/shared_ci/*.json; do
	c=$(basename "$f" .json)
	[ "$c" = gen ] && continue
	expect_status 0 sh "$TOP/scripts/ratchet.sh" "$GCR" "$c" 1
	expect_grep "^verdict: ok" "$T/out" "$c passes its baseline"
	grep -E "^verdict|REGRESSED|COULD NOT JUDGE" "$T/out" | sed "s/^/$c: /"
done
finish
