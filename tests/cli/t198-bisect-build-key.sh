#!/bin/sh
# Issue 44, builds the cache can trust: a build is reused only when what it reads is the
# same. A file a --build-cmd names by absolute path, a --build-input, and the environment that
# steers a compiler are part of the key: change one and the next bisect builds again. A build
# that failed is remembered with its reason (--retry-failed builds it again); a link failure
# names its undefined symbol; an end built before the search says the time it took.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/cli/bisect-repo.sh"
export GCR_LOCK_FILE="$T/bench.lock" GCR_BISECT_CACHE="$T/cache"

S=$T/scripted
script_repo "$S"
# A commit with LINKFAIL fails as a link does: the symbol on one line, collect2's summary after.
sed -i '/^out=\$GCR_BISECT_OUT$/i if [ -n "$(cat LINKFAIL 2>/dev/null)" ]; then echo "/usr/bin/ld: probe.o: in function \\`main'"'"':" >\&2; echo "/usr/bin/ld: probe.c:9: undefined reference to \\`gc_alloc_$(cat LINKFAIL)'"'"'" >\&2; echo "collect2: error: ld returned 1 exit status" >\&2; exit 1; fi' "$S/build.sh"
expect_grep 'LINKFAIL' "$S/build.sh" "the link failure is planted"
script_commit "$S" 1
script_commit "$S" 2
script_commit "$S" 3 LINKFAIL=fast
script_commit "$S" 4 LINKFAIL=
script_commit "$S" 5 alloc-02_steady.txt=2000
script_commit "$S" 6
for k in 1 2 3 4 5 6; do eval "S$k=$(bisect_hash "$S" $k)"; done

# The adapter the command reads from outside the repository sets 01's figure.
echo 1000 >"$T/adapter.txt"
CMD="sleep 0.3; sh build.sh && cat $T/adapter.txt >\"\$GCR_BISECT_OUT/alloc-01_sleepy\""
bisect() {
	expect_status "$1" "$GCR" bisect --build-cmd "$CMD" --repo "$S" --good "$S1" --bad "$S6" \
		--probe 02 --metric census.alloc_bytes "$2" ${3:+"$3"}
}
bisect 0 --json="$T/1.json"
expect_grep "^$S5 is the first bad commit$" "$T/out"
expect_grep "^gcratchet bisect: good end [0-9a-f]{7}: built \(0\.[3-9]|[1-9][0-9]*\.[0-9]\) s\)$" "$T/err" \
	"the good end, built before the plan, says how long it took"
expect_grep "skipped: does not build: /usr/bin/ld: probe\.c:9: undefined reference to \`gc_alloc_fast' \(log: " "$T/out" \
	"a link failure names the symbol, not collect2's summary"

bisect 0 --json="$T/2.json"
expect_grep "^gcratchet bisect: good end [0-9a-f]{7}: build reused" "$T/err" "the same inputs: reused"
expect_grep "^gcratchet bisect: bad end [0-9a-f]{7}: build reused" "$T/err"
expect_grep "skipped: does not build: /usr/bin/ld: probe\.c:9: undefined reference to \`gc_alloc_fast' \(log: .*\); remembered from an earlier build with the same inputs \(--retry-failed builds it again\)" "$T/out" \
	"a failed build is remembered by its key, with its reason"

# The adapter edited: both ends are built again, and the new adapter is what is measured.
echo 1500 >"$T/adapter.txt"
bisect 0 --json="$T/3.json"
expect_grep "^gcratchet bisect: good end [0-9a-f]{7}: built \(" "$T/err" "an edited adapter: the good end is built again"
expect_grep "^gcratchet bisect: bad end [0-9a-f]{7}: built \(" "$T/err" "and the bad end"
expect_eq "$(cat "$(ls -td "$T"/cache/cmd@"$(echo "$S1" | cut -c1-7)"-*/ | head -n 1)alloc-01_sleepy")" 1500 \
	"the good end's new build holds the edited adapter's figure"
expect_no_grep "remembered from an earlier build" "$T/out" "nor is the link failure remembered: its inputs changed too"

# The environment that steers a compiler is part of the key.
CFLAGS=-O1 bisect 0 --json="$T/4.json"
expect_grep "^gcratchet bisect: good end [0-9a-f]{7}: built \(" "$T/err" "CFLAGS changed: built again"
CFLAGS=-O1 bisect 0 --json="$T/5.json"
expect_grep "^gcratchet bisect: good end [0-9a-f]{7}: build reused" "$T/err" "the same CFLAGS: reused"

# A --build-input, file or folder: a change to it is another build.
mkdir "$T/inputs" && echo a >"$T/inputs/one.h"
CFLAGS=-O1 bisect 0 --json="$T/6.json" --build-input="$T/inputs"
expect_grep "^gcratchet bisect: good end [0-9a-f]{7}: built \(" "$T/err" "a declared input: another key"
echo b >"$T/inputs/one.h"
CFLAGS=-O1 bisect 0 --json="$T/7.json" --build-input="$T/inputs"
expect_grep "^gcratchet bisect: good end [0-9a-f]{7}: built \(" "$T/err" "a file of the declared folder edited: built again"
CFLAGS=-O1 bisect 0 --json="$T/8.json" --build-input="$T/inputs"
expect_grep "^gcratchet bisect: good end [0-9a-f]{7}: build reused" "$T/err" "unchanged: reused"

# --retry-failed builds the remembered failure again (it fails again, and says so fresh).
CFLAGS=-O1 bisect 0 --json="$T/9.json" --build-input="$T/inputs"
expect_grep "remembered from an earlier build" "$T/out" "remembered under this key"
CFLAGS=-O1 bisect 0 --retry-failed --build-input="$T/inputs"
expect_grep "skipped: does not build: /usr/bin/ld: probe\.c:9: undefined reference to \`gc_alloc_fast' \(log: [^)]*\)$" "$T/out" \
	"--retry-failed built it again"

expect_status 2 "$GCR" bisect --build-cmd "$CMD" --repo "$S" --good "$S1" --bad "$S6" \
	--probe 02 --metric census.alloc_bytes --build-input "$T/nothing-here"
expect_eq "$(cat "$T/err")" "gcratchet bisect: --build-input $T/nothing-here: No such file or directory" \
	"a --build-input that does not exist is refused, named"
finish
