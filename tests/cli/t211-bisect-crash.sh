#!/bin/sh
# Issue 44, crashes cost what they must. A paired step whose run crashes stops measuring at
# that run (it is a skip whatever the runs after it say), and the crashing probe is run once
# more with address randomisation off: a crash that depends on the address layout says so and
# suggests --no-aslr, with which the history bisects. A bare repository bisects (its builds
# are worktrees of it). The words: good and bad in text as in the JSON, with --improved too;
# ends that moved the other way say so without "did not move"; identical build errors are
# one line of the summary. The probes are bisect-repo.sh's scripted ones.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/cli/bisect-repo.sh"
export GCR_LOCK_FILE="$T/bench.lock" GCR_BISECT_CACHE="$T/cache"

build_cpu_spin
# 01's CPU time moves 50 -> 70 ms at c4; c3 and c4 crash (SIGSEGV) only with ASLR on; 02's
# census.alloc_bytes falls 1000 -> 500 at c6 (an improvement).
S=$T/scripted
script_repo "$S"
script_commit "$S" 1 spin-01_sleepy.txt=50
script_commit "$S" 2
script_commit "$S" 3 crash-01_sleepy.txt=aslr
script_commit "$S" 4 spin-01_sleepy.txt=70
script_commit "$S" 5 crash-01_sleepy.txt=0
script_commit "$S" 6 alloc-02_steady.txt=500
script_commit "$S" 7
script_commit "$S" 8
for k in 1 2 3 4 5 6 7 8; do eval "S$k=$(bisect_hash "$S" $k)"; done
s3=$(echo "$S3" | cut -c1-7) s4=$(echo "$S4" | cut -c1-7)
paired() {
	expect_status "$1" "$GCR" bisect --build-cmd "sh build.sh" --repo "$2" --good "$S1" \
		--bad "$S8" --probe 01 --metric time.user_ns --threshold 20% --max-rounds 12 "$3" ${4:+"$4"}
}

# ASLR on: c3 and c4 crash, each step stops at its crash, and the skip says why and what to do.
paired 2 "$S" --json="$T/aslr.json"
cp "$T/out" "$T/aslr.out"
expect_grep "^       skipped: 01_sleepy crashed: .*SIGSEGV.*; run once more with address randomisation off, it did not crash: the crash depends on the address layout, and --no-aslr runs every probe so$" \
	"$T/aslr.out" "a layout-dependent crash says so and names --no-aslr"
expect_grep "^$S3 c3: crash-01_sleepy\.txt=aslr$" "$T/aslr.out" "c3 is a candidate"
expect_grep "^$S4 c4: spin-01_sleepy\.txt=70$" "$T/aslr.out" "c4 is a candidate"
expect_grep "^  2 commits skipped: 01_sleepy crashed: .*--no-aslr runs every probe so \(first $s3, last $s4\)$" \
	"$T/aslr.out" "the summary says the two crashes once"
# The plan of a step's first batch is 7 rounds (1 warm-up) x 2 arms = 14 runs.
for c in "$S3" "$S4"; do
	first=$(jq -r --arg c "$c" '.steps[] | select(.role == "step" and .commit == $c) | .sessions[0]' "$T/aslr.json")
	runs=$(sql "SELECT count(*) FROM runs WHERE session_id = $first")
	expect_eq "$([ -n "$runs" ] && [ "$runs" -lt 14 ] && echo fewer)" fewer \
		"the step at $(echo "$c" | cut -c1-7) stopped at the crash ($runs of 14 runs stored)"
	expect_eq "$(sql "SELECT count(*) FROM runs WHERE session_id = $first AND status = 'crashed'")" 1 \
		"one crashed run, and none after it"
	expect_eq "$(sql "SELECT status FROM sessions WHERE id = $first")" incomplete \
		"the stopped session is stored as incomplete"
done

# --no-aslr: nothing crashes, and the history bisects.
paired 0 "$S" --no-aslr --json="$T/noaslr.json"
expect_grep "^$S4 is the first bad commit$" "$T/out" "with --no-aslr the change is found"
expect_no_grep "^       skipped:" "$T/out" "no step is skipped"

# A bare clone bisects: each build is a worktree of it.
git clone -q --bare "$S" "$T/bare.git"
paired 0 "$T/bare.git" --no-aslr
expect_grep "^$S4 is the first bad commit$" "$T/out" "a bare repository bisects"
expect_no_grep "not inside a git repository" "$T/err"
# Ends that moved the other way say so, not "did not move ...: it moved the other way".
expect_status 2 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S8" \
	--probe 02 --metric census.alloc_bytes
expect_grep "^bisect [0-9]+: no search: census\.alloc_bytes moved the other way between the ends: 02_steady 1000 -> 500 \(-50\.00%\): it improved, and bisect looks for a regression \(--improved looks for an improvement\)$" \
	"$T/out" "the other way, said once"
expect_no_grep "did not move" "$T/out" "and not that it did not move"

# --improved: text says good and bad, as the JSON of the same bisect does.
expect_status 0 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --old "$S1" --new "$S8" \
	--probe 02 --metric census.alloc_bytes --improved --json "$T/improved.json"
expect_grep "^$S6 is the first bad commit$" "$T/out"
expect_grep "^--improved: bad marks a commit where census\.alloc_bytes improved, good one where it is as it was$" "$T/out"
expect_grep "^\[good\] +[0-9a-f]{7} " "$T/out" "the good end is [good]"
expect_grep "^\[bad\] +[0-9a-f]{7} " "$T/out" "the bad end is [bad]"
expect_eq "$(sed -n 's/^\[[0-9]*\] *[0-9a-f]\{7\} \([a-z]*\) .*/\1/p' "$T/out" | tr '\n' ' ')" \
	"$(jq -r '[.steps[] | select(.role == "step") | .decision] | join(" ")' "$T/improved.json") " \
	"each step's word in text is its decision in the JSON"
expect_no_grep "\b(old|new)\b" "$T/out" "no old or new in the text"

# Four commits that do not build alike: one line of the summary, and short lines as they go.
B=$T/broken
script_repo "$B"
script_commit "$B" 1
for k in 2 3 4 5; do script_commit "$B" $k BROKEN=1; done
script_commit "$B" 6 BROKEN=0 alloc-02_steady.txt=2000
script_commit "$B" 7
for k in 1 2 5 7; do eval "B$k=$(bisect_hash "$B" $k)"; done
expect_status 2 "$GCR" bisect --build-cmd "sh build.sh" --repo "$B" --good "$B1" --bad "$B7" \
	--probe 02 --metric census.alloc_bytes --json "$T/broken.json"
expect_grep "^  4 commits do not build: build\.sh:1: error: BROKEN says this commit does not build \(first $(echo "$B2" | cut -c1-7), last $(echo "$B5" | cut -c1-7)\)$" \
	"$T/out" "identical build errors are one line of the summary"
expect_no_grep "^  skipped " "$T/out" "not a line each"
expect_eq "$(grep -c "^       skipped: does not build: " "$T/out")" 1 "the error is quoted once as it goes"
expect_eq "$(grep -cE "^       skipped: as [0-9a-f]{7} was \(log: [^)]*\)$" "$T/out")" 3 "the others say whose it was, and their log"
expect_eq "$(jq '[.skipped[] | select(.reason | startswith("does not build: build.sh:1: error: BROKEN"))] | length' "$T/broken.json")" 4 \
	"the JSON keeps each"
finish
