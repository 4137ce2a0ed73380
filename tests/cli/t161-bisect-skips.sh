#!/bin/sh
# Issue 28: a commit that does not build, or whose probe fails, is skipped and named, and the
# search goes on around it: the answer stays right when the skip is not next to the change,
# and is "one of these" (exit 2) when it is. Several probes at once: the first commit where
# any of them moves. The build command of any other runtime (--build-cmd): bisect-repo.sh's
# script_repo, whose probes do what each commit's files say.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/cli/bisect-repo.sh"
export GCR_LOCK_FILE="$T/bench.lock" GCR_BISECT_CACHE="$T/cache"

# tinyms with c7 not compiling (c8 mends it): the first pick of c1..c13 is c7.
bisect_repo "$T/repo" 7 || {
	fail "cannot make the repository"
	finish
}
C6=$(bisect_hash "$T/repo" 6) C7=$(bisect_hash "$T/repo" 7)
expect_status 0 "$GCR" bisect --collector-dir "$T/repo/tinyms" --good "$(bisect_hash "$T/repo" 1)" \
	--bad "$(bisect_hash "$T/repo" 13)" --probe 15 --metric census.minor_collections --make OPT=-O0 \
	--json "$T/brk.json"
cp "$T/out" "$T/brk.out"
expect_grep "^$C6 is the first bad commit$" "$T/brk.out"
expect_grep "^\[1\] +$(echo "$C7" | cut -c1-7) skip .*c7: notes, and a typo$" "$T/brk.out"
expect_grep "^       skipped: does not build: .*tinyms\.c:[0-9]+:[0-9]+: error: .*\(log: $T/cache/logs/[0-9a-f]{7}-[0-9a-f]{12}\.log\)$" "$T/brk.out"
expect_grep "^  skipped [0-9a-f]{7} c7: notes, and a typo: does not build: " "$T/brk.out"
expect_eq "$(jq -r '[.status, (.skipped | length), .skipped[0].commit, (.skipped[0].reason | startswith("does not build: "))] | join(" ")' "$T/brk.json")" \
	"found 1 $C7 true" "the JSON names the skipped commit and why"
expect_eq "$(sql "SELECT decision || ' ' || (build_id IS NULL) || ' ' || (sessions IS NULL) FROM bisect_steps WHERE commit_hash = '$C7'")" \
	"skip 1 1" "a commit that does not build is stored without a build or a session"
expect_eq "$(ls "$T/cache" | grep -c worktree)" 0 "no worktree is left in the cache"
expect_eq "$(git -C "$T/repo" worktree list | wc -l)" 1 "no worktree is left registered"

# Scripted probes: 02 moves at c3 and again at c7, 01 at c5; 01 fails at c4; c6 does not
# build.
S=$T/scripted
script_repo "$S"
script_commit "$S" 1
script_commit "$S" 2
script_commit "$S" 3 alloc-02_steady.txt=2000
script_commit "$S" 4 fail-01_sleepy.txt=1
script_commit "$S" 5 fail-01_sleepy.txt=0 alloc-01_sleepy.txt=3000
script_commit "$S" 6 BROKEN=1
script_commit "$S" 7 BROKEN=0 alloc-02_steady.txt=4000
script_commit "$S" 8
for k in 1 2 3 4 5 6 7 8; do eval "S$k=$(bisect_hash "$S" $k)"; done

# Both probes: the first commit where either moves is c3 (the failing c4 is skipped).
expect_status 0 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S8" \
	--probe 01,02 --metric census.alloc_bytes
cp "$T/out" "$T/both.out"
expect_grep "^$S3 is the first bad commit$" "$T/both.out"
expect_grep "^    02_steady census\.alloc_bytes: 1000 at [0-9a-f]{7} -> 2000 \(\+100\.00%\)$" "$T/both.out"
expect_grep "^       skipped: 01_sleepy failed: exited 3: 01_sleepy: out of cheese$" "$T/both.out"
expect_grep "each commit built from --build-cmd sh build\.sh" "$T/both.out"

# 01 alone: its change is at c5, and the commit before it was skipped: c4 or c5.
expect_status 2 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S8" \
	--probe 01 --metric census.alloc_bytes --json "$T/amb.json"
cp "$T/out" "$T/amb.out"
expect_grep "^There are only skipped commits left to test\.$" "$T/amb.out"
expect_grep "^The first bad commit could be any of:$" "$T/amb.out"
expect_grep "^$S4 c4: fail-01_sleepy\.txt=1$" "$T/amb.out"
expect_grep "^$S5 c5: fail-01_sleepy\.txt=0 alloc-01_sleepy\.txt=3000$" "$T/amb.out"
expect_grep "^We cannot bisect more!$" "$T/amb.out"
expect_eq "$(jq -r '[.status, (.candidates | map(.commit) | join(","))] | join(" ")' "$T/amb.json")" \
	"ambiguous $S4,$S5" "the JSON's candidates"
expect_eq "$(sql "SELECT status || ' ' || detail FROM bisects ORDER BY id DESC LIMIT 1")" \
	"ambiguous $S4 $S5" "stored as ambiguous, with its candidates"

# What counts as moved: 02's +100% at c3 is beyond 10%, not beyond 150%; then the change is
# c7's, and c6 before it does not build: c6 or c7.
expect_status 0 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good "$S2" --bad "$S8" \
	--probe 02 --metric census.alloc_bytes --threshold 10%
expect_grep "^$S3 is the first bad commit$" "$T/out"
expect_grep "bad when census\.alloc_bytes moved by more than 10%, the way the ends moved" "$T/out"
expect_status 2 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good "$S2" --bad "$S8" \
	--probe 02 --metric census.alloc_bytes --threshold 150%
expect_grep "^       skipped: does not build: build\.sh:1: error: BROKEN says this commit does not build \(log: " "$T/out"
expect_grep "^$S6 c6: BROKEN=1$" "$T/out"
expect_grep "^$S7 c7: BROKEN=0 alloc-02_steady\.txt=4000$" "$T/out"
# Issue 42: every step's session is made from the run options bisect was given, whole. Probes
# that fail unless the caller's BISECT_PASS_CHECK reaches them (a run's environment is fixed:
# only --pass-env lets it in): without --pass-env the ends cannot be measured; with it, no
# step is skipped and the change is found, so the option reached the ends' session and every
# step's.
P=$T/passenv
script_repo "$P"
sed -i '/^d=\\\$(dirname/i [ -n "\\$BISECT_PASS_CHECK" ] || { echo "$p: BISECT_PASS_CHECK did not reach me" >\&2; exit 3; }' "$P/build.sh"
expect_grep 'BISECT_PASS_CHECK did not reach me' "$P/build.sh"
script_commit "$P" 1
script_commit "$P" 2
script_commit "$P" 3
script_commit "$P" 4 alloc-02_steady.txt=2000
script_commit "$P" 5
script_commit "$P" 6
P1=$(bisect_hash "$P" 1) P4=$(bisect_hash "$P" 4) P6=$(bisect_hash "$P" 6)
export BISECT_PASS_CHECK=1
expect_status 2 "$GCR" bisect --build-cmd "sh build.sh" --repo "$P" --good "$P1" --bad "$P6" \
	--probe 02 --metric census.alloc_bytes
expect_grep "no search: the good end [0-9a-f]{7} cannot be measured: 02_steady failed: exited 3: 02_steady: BISECT_PASS_CHECK did not reach me" "$T/out"
expect_status 0 "$GCR" bisect --build-cmd "sh build.sh" --repo "$P" --good "$P1" --bad "$P6" \
	--probe 02 --metric census.alloc_bytes --pass-env BISECT_PASS_CHECK
expect_grep "^$P4 is the first bad commit$" "$T/out"
expect_eq "$(sql "SELECT count(*) FROM bisect_steps WHERE bisect_id = (SELECT max(id) FROM bisects) AND role = 'step' AND decision <> 'skip'")" \
	"$(sql "SELECT count(*) FROM bisect_steps WHERE bisect_id = (SELECT max(id) FROM bisects) AND role = 'step'")" \
	"no step was skipped: --pass-env reached every step's session"
expect_eq "$(sql "SELECT count(*) > 0 FROM bisect_steps WHERE bisect_id = (SELECT max(id) FROM bisects) AND role = 'step'")" 1 \
	"the search took steps"
unset BISECT_PASS_CHECK
finish
