#!/bin/sh
# Every shipped collector's committed shared_ci baseline passes check on this machine (the
# default collector's is t020's, the JVM builds' t096's), run as `make ratchet` runs it:
# `gcratchet ratchet`, three rounds. check compares medians, and a conservative collector's
# heap figures (bdwgc) move by a page now and then with the stack addresses ASLR gives a timed
# run (seen once in ~60 runs of 06_fragmentation), which one run alone would make a regression.
. "$(dirname "$0")/lib.sh"

for f in "$TOP"/baselines/shared_ci/*.json; do
	c=$(basename "$f" .json)
	# The JVM builds (baselines/shared_ci/jvm-*.json) need `make jvm` and a JVM: t096 builds
	# them and checks jvm-serial and jvm-g1 against theirs.
	case $c in gen | jvm-*) continue ;; esac
	expect_status 0 "$GCR" ratchet --collector "$c"
	expect_grep "^verdict: ok" "$T/out" "$c passes its baseline"
	grep -E "^verdict|REGRESSED|COULD NOT JUDGE" "$T/out" | sed "s/^/$c: /"
done
finish
