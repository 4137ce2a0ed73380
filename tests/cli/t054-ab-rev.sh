#!/bin/sh
# needs: valgrind
# ab on git revisions: REV[:COLLECTOR] is built by scripts/build-rev.sh in a temporary
# worktree into build/rev/<tree hash>/collectors/<collector>, and reused while the tree is
# unchanged. The test works on a clone of this checkout (with the current collectors, probes
# and scripts committed into it), so the repository under test is never touched.
. "$(dirname "$0")/lib.sh"

REPO=$T/repo
git clone -q "$TOP" "$REPO" 2>"$T/clone.err" || { fail "git clone"; finish; }
for d in collectors probes scripts; do
	rm -rf "${REPO:?}/$d"
	cp -R "$TOP/$d" "$REPO/$d"
done
find "$REPO/collectors" -name obj -type d -exec rm -rf {} + 2>/dev/null
gitc() { git -C "$REPO" -c user.email=test@example.com -c user.name=test "$@"; }
# In a clean checkout there may be nothing to add: the base commit may be empty.
gitc add -A >/dev/null && gitc commit -q --allow-empty -m "base" || { fail "commit base"; finish; }
# The next revision plants an extra cost per allocation in marksweep.
echo 'COLLECTOR_CFLAGS += -DGCR_PLANT_ALLOC_SPIN=1' >>"$REPO/collectors/marksweep/collector.mk"
gitc commit -qam "slower marksweep" || { fail "commit fix"; finish; }
tree_base=$(git -C "$REPO" rev-parse HEAD~1^{tree})
tree_fix=$(git -C "$REPO" rev-parse HEAD^{tree})
export GCR_SCRIPTS_DIR="$REPO/scripts"

expect_status 1 "$GCR" ab --wide HEAD~1:marksweep HEAD:marksweep --probes 01 --rounds 2 \
	--meters rusage,census,valgrind --seed 54
expect_grep "BASE: building revision HEAD~1, collector marksweep" "$T/err"
expect_grep "building marksweep at HEAD~1 \(commit [0-9a-f]{40}, tree $tree_base\)" "$T/err"
expect_grep "building marksweep at HEAD \(commit [0-9a-f]{40}, tree $tree_fix\)" "$T/err"
expect_grep "^BASE +marksweep +marksweep 1.0, commit [0-9a-f]{12}, $REPO/build/rev/$tree_base/collectors/marksweep$" "$T/out"
expect_grep "^FIX +marksweep \(2\) +marksweep 1.0, commit [0-9a-f]{12}, $REPO/build/rev/$tree_fix/collectors/marksweep$" "$T/out"
expect_grep "^01_nursery_churn +valgrind\.ir .* WORSE$" "$T/out"
expect_eq "$(git -C "$REPO" worktree list | wc -l)" 1 "no worktree left behind"
expect_eq "$(sed -n 's/.*"git_commit": "\([0-9a-f]*\)".*/\1/p' "$REPO/build/rev/$tree_base/collectors/marksweep/manifest.json")" \
	"$(git -C "$REPO" rev-parse HEAD~1)" "the manifest names the revision's commit"

# The same trees again: nothing is built. A commit that changes no file keeps its tree.
gitc commit -q --allow-empty -m "message only"
expect_status 0 "$GCR" ab HEAD~2:marksweep HEAD~1:marksweep --probes 01 --rounds 1 --meters rusage,census
expect_eq "$(grep -c "reusing $REPO/build/rev/" "$T/err")" 2 "both sides reused"
expect_no_grep "building marksweep at" "$T/err"
expect_status 0 "$GCR" ab HEAD:marksweep HEAD~1:marksweep --probes 01 --rounds 1 --meters rusage,census
expect_grep "tree $tree_fix: reusing" "$T/err"
expect_grep "A/A: BASE and FIX are one build, stored once and run as two arms" "$T/err"

# A folder or a shipped collector wins over a revision; a name that is none of them is refused.
expect_status 2 "$GCR" ab no-such-rev marksweep --probes 01 --rounds 1
expect_grep 'BASE "no-such-rev" is not a build folder, a shipped collector \(.*marksweep.*\) or a git revision' "$T/err"
expect_status 2 "$GCR" ab HEAD:nosuchgc marksweep --probes 01 --rounds 1
expect_grep "revision HEAD has no collectors/nosuchgc" "$T/err"
expect_grep "BASE: building revision HEAD \(collector nosuchgc\) failed" "$T/err"
expect_eq "$("$GCR" list sessions | tail -n +2 | wc -l)" 3 "refused sides ran nothing"
finish
