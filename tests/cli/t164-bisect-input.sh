#!/bin/sh
# needs: valgrind
# Issue 28: gcratchet bisect of a shipped collector (--collector: scripts/build-rev.sh builds
# it at each commit with the commit's own probes, keyed by tree and build options), and every
# refusal of bad input: exit 2 with the argument named, before anything is built or stored.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/cli/bisect-repo.sh"
export GCR_LOCK_FILE="$T/bench.lock" GCR_BISECT_CACHE="$T/cache"

# A throwaway gcratchet repository: this checkout's collectors, probes and scripts, then
# epsilon counting one major collection it never makes, then a commit that changes nothing.
REPO=$T/gcr
mkdir -p "$REPO"
for d in collectors probes scripts; do cp -R "$TOP/$d" "$REPO/$d"; done
find "$REPO/collectors" -name obj -type d -exec rm -rf {} + 2>/dev/null
gitc() { git -C "$REPO" -c user.email=test@example.com -c user.name=test "$@"; }
git -C "$REPO" init -q
gitc add -A && gitc commit -qm "base" || { fail "commit base"; finish; }
sed -i 's/gcr_census_set(c, GCR_C_MAJOR_COLLECTIONS, 0);/gcr_census_set(c, GCR_C_MAJOR_COLLECTIONS, 1);/' \
	"$REPO/collectors/epsilon/epsilon.c"
gitc commit -qam "epsilon counts a collection" || { fail "commit plant"; finish; }
echo notes >"$REPO/NOTES"
gitc add -A && gitc commit -qm "notes" || { fail "commit notes"; finish; }
PLANT=$(git -C "$REPO" rev-parse HEAD~1)
tree=$(git -C "$REPO" rev-parse HEAD~1^{tree})
export GCR_SCRIPTS_DIR="$REPO/scripts"

expect_status 0 "$GCR" bisect --collector epsilon --good HEAD~2 --bad HEAD --probe 01 \
	--metric census.major_collections --make OPT=-O0
expect_grep "^$PLANT is the first bad commit$" "$T/out"
expect_grep "^    epsilon counts a collection$" "$T/out"
expect_grep "^each commit built from --collector epsilon with OPT=-O0, cached in $REPO/build/rev$" "$T/out"
ls -d "$REPO/build/rev/$tree-"*/collectors/epsilon >"$T/folders" 2>/dev/null
expect_eq "$(wc -l <"$T/folders")" 1 "build-rev's folder, keyed by tree and the options"
expect_eq "$(jq -r '.probes | map(.name) | join(",")' "$(cat "$T/folders")/manifest.json")" \
	01_nursery_churn "only the probe bisected is built"
expect_eq "$(git -C "$REPO" worktree list | wc -l)" 1 "no worktree left behind"
# Another build option is another build of the same tree; the same again is reused.
expect_status 0 "$GCR" bisect --collector epsilon --good HEAD~2 --bad HEAD --probe 01 \
	--metric census.major_collections --make OPT=-O0 --make EXTRA_CFLAGS=-DGCR_BISECT_TEST=1
expect_eq "$(ls -d "$REPO/build/rev/$tree-"*/collectors/epsilon | wc -l)" 2 "one folder per build options"
expect_status 0 "$GCR" bisect --collector epsilon --good HEAD~2 --bad HEAD --probe 01 \
	--metric census.major_collections --make OPT=-O0 --make EXTRA_CFLAGS=-DGCR_BISECT_TEST=1
expect_grep "good end [0-9a-f]{7}: build reused" "$T/err"
expect_grep "bad end [0-9a-f]{7}: build reused" "$T/err"

# The harness's own settings are no knobs: a session does not offer them to the probes.
BUILD_NAME=plain make_script_build "$T/plain" 01_a
GCR_REV_DIR=$T/rev expect_status 0 "$GCR" measure --build "$T/plain" --rounds 1 --warmup 0 --size ci \
	--meters rusage,census
expect_no_grep "not passed to the probes" "$T/err" "GCR_REV_DIR is gcratchet's setting"

# Bad input: what is wrong, named; exit 2; nothing stored.
B="$GCR bisect --collector epsilon --probe 01 --metric census.major_collections"
refused() { # pattern command...
	pat=$1
	shift
	expect_status 2 "$@"
	expect_grep "$pat" "$T/err"
}
refused "^gcratchet bisect: --good REV is required" "$GCR" bisect --bad HEAD --probe 01 --metric valgrind.ir --collector epsilon
refused "^gcratchet bisect: --bad REV is required" "$GCR" bisect --good HEAD --probe 01 --metric valgrind.ir --collector epsilon
refused "^gcratchet bisect: --probe P is required" "$GCR" bisect --good HEAD~1 --bad HEAD --metric valgrind.ir --collector epsilon
refused "^gcratchet bisect: --metric M is required" "$GCR" bisect --good HEAD~1 --bad HEAD --probe 01 --collector epsilon
refused "^gcratchet bisect: one of --collector NAME, --collector-dir DIR and --build-cmd CMD \(what to build at each commit\) is required" \
	"$GCR" bisect --good HEAD~1 --bad HEAD --probe 01 --metric valgrind.ir
refused "each name what to build: give one" $B --good HEAD~1 --bad HEAD --build-cmd true
refused "^gcratchet bisect: --repo goes with --build-cmd" $B --good HEAD~1 --bad HEAD --repo "$REPO"
refused "^gcratchet bisect: --make takes a make option VAR=VALUE .*got \"-O3\"" $B --good HEAD~1 --bad HEAD --make -O3
refused "^gcratchet bisect: --make gives options to make; a --build-cmd builds as it says" \
	"$GCR" bisect --build-cmd true --good HEAD~1 --bad HEAD --probe 01 --metric valgrind.ir --make CC=clang
refused "^gcratchet bisect: --threshold must be a percentage of the good end's figure \(2%\) or an amount in the metric's unit \(1000\), at least 0, got \"-1\"" \
	$B --good HEAD~1 --bad HEAD --threshold -1
refused "^gcratchet bisect: --rounds must be an integer from 1 to 10000, got \"0\"" $B --good HEAD~1 --bad HEAD --rounds 0
refused "^gcratchet bisect: --max-rounds 4 is fewer than --rounds 6" $B --good HEAD~1 --bad HEAD --rounds 6 --max-rounds 4
refused "^gcratchet bisect: --size must be ci, default or large, got \"huge\"" $B --good HEAD~1 --bad HEAD --size huge
refused "^gcratchet bisect: --metric: unknown metric \"valgrind\.irr\" \(did you mean valgrind\.ir\? see gcratchet list metrics\)$" "$GCR" bisect --collector epsilon --probe 01 --metric valgrind.irr --good HEAD~1 --bad HEAD
refused "^gcratchet bisect: --metric minheap\.min_heap_mib is a minimum-heap search's answer" "$GCR" bisect --collector epsilon --probe 01 --metric minheap.min_heap_mib --good HEAD~1 --bad HEAD
refused "^gcratchet bisect: --improved: census\.freed_bytes has no better side" "$GCR" bisect --collector epsilon --probe 01 --metric census.freed_bytes --improved --good HEAD~1 --bad HEAD
refused "^gcratchet bisect: --good nosuch is not a commit of $REPO$" $B --good nosuch --bad HEAD
refused "^gcratchet bisect: --bad nosuch is not a commit of $REPO$" $B --good HEAD --bad nosuch
refused "^gcratchet bisect: --good HEAD and --bad HEAD~0 are one commit \([0-9a-f]{7}\): nothing to search$" $B --good HEAD --bad HEAD~0
refused "^gcratchet bisect: --good HEAD \([0-9a-f]{7}\) is not an ancestor of --bad HEAD~2 \([0-9a-f]{7}\): the good end comes first" $B --good HEAD --bad HEAD~2
refused "^gcratchet bisect: unknown probe \"99\" \(valid: 01_nursery_churn, " "$GCR" bisect --collector epsilon --probe 99 --metric valgrind.ir --good HEAD~1 --bad HEAD
refused "^gcratchet bisect: --probe 01_nursery_churn is named twice" "$GCR" bisect --collector epsilon --probe 01,1 --metric valgrind.ir --good HEAD~1 --bad HEAD
refused "^gcratchet bisect: unexpected argument \"extra\"" $B --good HEAD~1 --bad HEAD extra
refused "^gcratchet bisect: --collector-dir $T/nowhere: no such folder" "$GCR" bisect --collector-dir "$T/nowhere" --probe 01 --metric valgrind.ir --good HEAD~1 --bad HEAD
mkdir -p "$T/notgit"
refused "^gcratchet bisect: --repo $T/notgit: not inside a git repository" "$GCR" bisect --build-cmd true --repo "$T/notgit" --probe 01 --metric valgrind.ir --good HEAD~1 --bad HEAD
# A good end off the bad end's first-parent line: on a branch merged in.
gitc checkout -q -b side HEAD~2
echo side >"$REPO/SIDE"
gitc add -A && gitc commit -qm side
gitc checkout -q -
gitc merge -q --no-ff -m merge side
refused "^gcratchet bisect: --good side is not on the first-parent line of --bad HEAD: bisect follows first parents" $B --good side --bad HEAD
refused "^gcratchet bisect: the good end [0-9a-f]{7} does not build, so nothing can be bisected: does not build: build-rev: revision [0-9a-f]{40} has no collectors/nosuch \(log: " \
	"$GCR" bisect --collector nosuch --probe 01 --metric valgrind.ir --good HEAD~1 --bad HEAD
GCR_SCRIPTS_DIR=$T/noscripts refused "^gcratchet bisect: --collector epsilon: $T/noscripts/build-rev\.sh is missing" $B --good HEAD~1 --bad HEAD
# Refusals store nothing; an end that does not build is a bisect that failed, and says why.
expect_eq "$(sql "SELECT count(*) FROM bisects")" 4 "no refusal stored a bisect"
expect_eq "$(sql "SELECT status || ' ' || substr(detail, 1, 12) FROM bisects WHERE id = 4")" \
	"failed the good end" "the collector that is not there: failed, at the good end"
expect_eq "$(git -C "$REPO" worktree list | wc -l)" 1 "no worktree left behind"
finish
