#!/bin/sh
# Issue 41, defect 6: a bisect build has a time limit. A build that hangs held the bench lock
# (and a queue worker's job) for ever: --timeout bounds probe runs only. Past --build-timeout
# the build's whole process group is killed, its worktree removed, and its commit skipped with
# the reason, and the search goes on. The hanging child ignores SIGTERM, as a stuck compiler
# may: it must not outlive the build either.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/cli/bisect-repo.sh"
export GCR_LOCK_FILE="$T/bench.lock" GCR_BISECT_CACHE="$T/cache"

# 02's allocation moves at c5; c4's build hangs for 300 s (a build of these takes well under
# one): c4 is the only commit between the last good and the first bad one, so it is built.
S=$T/scripted
script_repo "$S"
script_commit "$S" 1
script_commit "$S" 2
script_commit "$S" 3
script_commit "$S" 4 HANG=300
script_commit "$S" 5 HANG= alloc-02_steady.txt=2000
script_commit "$S" 6
for k in 1 4 5 6; do eval "S$k=$(bisect_hash "$S" $k)"; done

expect_status 2 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S6" \
	--probe 02 --metric census.alloc_bytes --build-timeout 20 --json "$T/hang.json"
cp "$T/out" "$T/hang.out"
expect_grep "^\[[0-9]\] +$(echo "$S4" | cut -c1-7) skip .*c4: HANG=300$" "$T/hang.out" "c4 is skipped"
expect_grep "^       skipped: build timed out after 20 s \(--build-timeout; log: $T/cache/logs/[0-9a-f]{7}-[0-9a-f]{12}\.log\)$" \
	"$T/hang.out" "the skip says the build timed out, and where its log is"
expect_grep "^$S4 c4: HANG=300$" "$T/hang.out" "c4 is a candidate"
expect_grep "^$S5 c5: HANG= alloc-02_steady\.txt=2000$" "$T/hang.out" "c5 is a candidate"
expect_eq "$(jq -r '.skipped[0] | [.commit, (.reason | startswith("build timed out after 20 s"))] | join(" ")' "$T/hang.json")" \
	"$S4 true" "the JSON names the commit and why"
expect_eq "$(sql "SELECT decision || ' ' || (reason LIKE 'build timed out after 20 s%') FROM bisect_steps WHERE commit_hash = '$S4'")" \
	"skip 1" "stored as a skip with the reason"
# Killed, the whole group: the child that ignored SIGTERM too.
if [ -s "$T/cache/hang.pid" ]; then
	pid=$(cat "$T/cache/hang.pid")
	if kill -0 "$pid" 2>/dev/null; then
		fail "the hanging build's child $pid still runs"
		kill -9 "$pid"
	else pass; fi
else
	fail "the hanging build did not start"
fi
expect_eq "$(ls "$T/cache" | grep -c worktree)" 0 "no worktree is left in the cache"
expect_eq "$(git -C "$S" worktree list | wc -l)" 1 "no worktree is left registered"

# The option is checked like the verb's others.
expect_status 2 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S6" \
	--probe 02 --metric census.alloc_bytes --build-timeout soon
expect_grep "^gcratchet bisect: --build-timeout must be an integer from 0 to 2592000, got \"soon\"$" "$T/err"
expect_status 0 "$GCR" bisect --help
expect_grep "^  --build-timeout SEC$" "$T/out"
expect_grep "^ {22}a build still running after SEC seconds \(default 1800" "$T/out" \
	"--help names the default"
finish
