#!/bin/sh
# make install PREFIX=DIR gives a gcratchet that runs from any directory: --version names the
# commit, measure finds the installed launcher and build folders, check the installed
# baselines (a working directory's baselines/ and GCR_BASELINE_DIR still come first), and the
# store is results/gcratchet.db under the working directory. make uninstall removes exactly
# what install wrote; DESTDIR stages an install. `make install` depends on `all`, which is up
# to date in the tree the tests run in: nothing is rebuilt here.
. "$(dirname "$0")/lib.sh"

P=$T/prefix
I=$P/bin/gcratchet
LIB=$P/lib/gcratchet
mkdir -p "$P/bin" "$T/work"
echo "not gcratchet's" >"$P/bin/keep"
find "$P" ! -type d | sort >"$T/before"

expect_status 0 make -s -C "$TOP" install PREFIX="$P"
expect_eq "$(readlink "$I")" ../lib/gcratchet/gcratchet "bin/gcratchet links to lib/gcratchet"
for f in gcratchet gcratchet-launch collectors/epsilon/manifest.json \
	collectors/epsilon/01_nursery_churn baselines/shared_ci/epsilon.json install-manifest; do
	[ -e "$LIB/$f" ] && pass || fail "make install did not write $LIB/$f"
done
expect_eq "$(find "$P" -name '*.o' | wc -l)" 0 "object files installed"
# Every file under the prefix but ours is in the manifest, and everything in it is there.
find "$P" ! -type d ! -name install-manifest | sed "s|^$P/||" | grep -v '^bin/keep$' | sort >"$T/found"
grep -v '^#' "$LIB/install-manifest" | sort >"$T/listed"
expect_eq "$(diff "$T/found" "$T/listed" && echo same)" same "the install manifest lists what install wrote"

# --version and version, from another directory: the version and the commit built from.
if commit=$(git -C "$TOP" rev-parse --verify -q HEAD 2>/dev/null); then :; else commit=unknown; fi
cd / || exit 2
expect_status 0 "$I" --version
expect_grep "^gcratchet [0-9]+\.[0-9]+\.[0-9]+ \(commit $commit(, with uncommitted changes)?\)$" "$T/out"
cp "$T/out" "$T/version"
expect_status 0 "$I" version
expect_eq "$(cat "$T/out")" "$(cat "$T/version")" "gcratchet version = gcratchet --version"
expect_status 2 "$I" version extra
expect_grep 'unexpected argument "extra"' "$T/err"
# A tree without .git (a tarball) says "commit unknown".
mkdir -p "$T/tarball/scripts"
cp "$TOP/scripts/version-stamp.sh" "$T/tarball/scripts/"
expect_status 0 sh "$T/tarball/scripts/version-stamp.sh" "$T/stamp.h"
expect_grep '^#define GCRATCHET_COMMIT "unknown"$' "$T/stamp.h"

# A real measure and check from a directory that is not the source tree, with no
# GCR_BASELINE_DIR: the installed launcher, build folders and baselines.
cd "$T/work" || exit 2
unset GCR_BASELINE_DIR
expect_status 0 "$I" list collectors
expect_grep '^epsilon +epsilon ' "$T/out"
expect_status 0 "$I" measure --collector epsilon --size ci --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census --db "$T/x.db"
expect_grep "^build 1: epsilon .* $LIB/collectors/epsilon$" "$T/out"
expect_grep "^session 1: 1 run, 0 failed" "$T/out"
# One probe of fifteen measured: could not judge as a whole, but every census cell of 01 is
# judged against the installed baseline, and is ok.
expect_status 2 "$I" check --profile shared_ci --collector epsilon --db "$T/x.db" --format json
expect_eq "$(jq -r .baseline "$T/out")" "$LIB/baselines/shared_ci/epsilon.json" "the baseline check read"
expect_eq "$(jq '[.cells[] | select(.probe == "01_nursery_churn" and (.metric | startswith("census.")) and .verdict != "ok" and .verdict != "info")] | length' "$T/out")" 0 \
	"01's census cells not ok against the installed baseline"
expect_eq "$(jq '[.cells[] | select(.probe == "01_nursery_churn" and .metric == "census.alloc_bytes" and .verdict == "ok")] | length' "$T/out")" 1 \
	"01's census.alloc_bytes judged ok"
# GCR_BASELINE_DIR overrides; so does a baselines/ in the working directory.
expect_status 2 env GCR_BASELINE_DIR="$T/nowhere" "$I" check --profile shared_ci --collector epsilon --db "$T/x.db"
expect_grep "$T/nowhere/shared_ci/epsilon.json" "$T/err"
mkdir -p baselines/shared_ci
cp "$TOP/baselines/shared_ci/epsilon.json" baselines/shared_ci/
expect_status 2 "$I" check --profile shared_ci --collector epsilon --db "$T/x.db" --format json
expect_eq "$(jq -r .baseline "$T/out")" baselines/shared_ci/epsilon.json "the working directory's baseline first"
rm -r baselines
expect_status 0 "$I" baseline validate --profile shared_ci --collector gen
expect_grep "^ok: $LIB/baselines/shared_ci/gen.json" "$T/out"
# The store: results/gcratchet.db under the working directory.
expect_status 0 env -u GCR_DB "$I" measure --collector epsilon --size ci --probes 01 --rounds 1 \
	--warmup 0 --meters rusage,census
[ -f "$T/work/results/gcratchet.db" ] && pass || fail "no results/gcratchet.db under the working directory"
cd "$T" || exit 2

# An install over an earlier one first removes what that one wrote.
mkdir -p "$LIB/collectors/gone"
echo stale >"$LIB/collectors/gone/01_p"
echo lib/gcratchet/collectors/gone/01_p >>"$LIB/install-manifest"
expect_status 0 make -s -C "$TOP" install PREFIX="$P"
[ ! -e "$LIB/collectors/gone" ] && pass || fail "a reinstall left the earlier install's collectors/gone"

# DESTDIR: staged under it, relocatable, and removed from it.
expect_status 0 make -s -C "$TOP" install DESTDIR="$T/stage" PREFIX=/opt/gcr
expect_status 0 "$T/stage/opt/gcr/bin/gcratchet" --version
expect_grep "^lib/gcratchet/gcratchet$" "$T/stage/opt/gcr/lib/gcratchet/install-manifest"
expect_status 0 make -s -C "$TOP" uninstall DESTDIR="$T/stage" PREFIX=/opt/gcr
expect_eq "$(find "$T/stage" ! -type d | wc -l)" 0 "files left in DESTDIR after uninstall"

# uninstall: every installed file gone, lib/gcratchet too, the unrelated file and PREFIX stay.
expect_status 0 make -s -C "$TOP" uninstall PREFIX="$P"
find "$P" ! -type d | sort >"$T/after"
expect_eq "$(diff "$T/before" "$T/after" && echo same)" same "files under PREFIX after uninstall"
[ ! -e "$LIB" ] && pass || fail "$LIB is still there after uninstall"
expect_eq "$(cat "$P/bin/keep")" "not gcratchet's" "the unrelated file"
# Nothing installed: uninstall says so and exits 2.
expect_status 2 make -s -C "$TOP" uninstall PREFIX="$P"
expect_grep "nothing to uninstall at $P" "$T/err"
# A file of someone else's in lib/gcratchet stays, and is named.
expect_status 0 make -s -C "$TOP" install PREFIX="$P"
echo mine >"$LIB/notes.txt"
expect_status 0 make -s -C "$TOP" uninstall PREFIX="$P"
expect_eq "$(find "$P" ! -type d | sed "s|^$P/||" | sort | tr '\n' ' ')" "bin/keep lib/gcratchet/notes.txt " \
	"files left by uninstall"
expect_grep "notes.txt" "$T/err"

finish
