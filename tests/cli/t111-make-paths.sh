#!/bin/sh
# Paths through make and install.sh (issue 25, items 3 and 4). A value with a quote in it is
# one shell word in every recipe (a quote once ended the quoting and the rest ran: `make
# collector COLLECTOR_DIR="/tmp/q';id>/tmp/PWNED;'"` ran id); folders named with quotes,
# backticks or & build; a character make itself reads in a rule (';', '$', blanks) is refused
# with a message naming it. make install/uninstall take any PREFIX and DESTDIR. make
# uninstall never removes a file whose path crosses a link install did not make (a
# lib/gcratchet/baselines linked to a repository's baselines lost 11 of its 12 files), and
# says what it left. `make install` depends on `all`, up to date in the tree the tests run in.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
collector() { # folder: a copy of epsilon there
	mkdir -p "$1"
	cp "$TOP/collectors/epsilon/"* "$1/"
}
ONE=PROBE_SRCS=probes/01_nursery_churn.c

# ---- Injection through COLLECTOR_DIR, PREFIX, abi-check: nothing runs, the character named --
expect_status 2 make -s -C "$TOP" collector COLLECTOR_DIR="$T/q';id>$T/PWNED;'" $ONE
[ ! -e "$T/PWNED" ] && pass || fail "make collector ran what COLLECTOR_DIR held"
expect_grep "COLLECTOR_DIR=$T/q';id>$T/PWNED;': make cannot handle the character ';' in a path" "$T/err"
expect_status 2 make -s -C "$TOP" abi-check COLLECTOR_DIR="$T/q';id>$T/PWNED2;'"
[ ! -e "$T/PWNED2" ] && pass || fail "make abi-check ran what COLLECTOR_DIR held"
expect_grep "make cannot handle the character ';' in a path" "$T/err"

# ---- Folders with a quote, a double quote, a backtick and &: built, and measured ----------
collector "$T/it's"
expect_status 0 make -s -C "$TOP" collector COLLECTOR_DIR="$T/it's" OUT="$T/ou't" NAME="n'a" $ONE
expect_grep "^$T/ou't: 1 probes built against it's 1\.0 \($T/it's\)$" "$T/out"
expect_eq "$(jq -r '.name + " " + .collector' "$T/ou't/manifest.json")" "n'a it's" "the manifest's name and collector"
expect_status 0 "$GCR" measure --build "$T/ou't" --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_grep "^session 1: 1 run, 0 failed" "$T/out"
odd='a&b`c"d'
collector "$T/$odd"
expect_status 0 make -s -C "$TOP" collector COLLECTOR_DIR="$T/$odd" OUT="$T/o2" $ONE
[ -x "$T/o2/01_nursery_churn" ] && pass || fail "no probe built from $T/$odd"
# The ABI test on a folder with a quote (tests/abi/run.sh, as make abi-check runs it).
expect_status 0 env ABI_OUT="$T/ab'i" sh "$TOP/tests/abi/run.sh" "$T/it's"
expect_grep "^ok   it's GCR_ZEAL=7: " "$T/out"

# ---- What make cannot carry in a rule: refused, the character named ----------------------
collector "$T/semi;colon"
expect_status 2 make -s -C "$TOP" collector COLLECTOR_DIR="$T/semi;colon" OUT="$T/o3" $ONE
expect_grep "COLLECTOR_DIR=$T/semi;colon: make cannot handle the character ';' in a path" "$T/err"
collector "$T/sp ace"
expect_status 2 make -s -C "$TOP" collector COLLECTOR_DIR="$T/sp ace" OUT="$T/o3" $ONE
expect_grep "make cannot handle a path with blanks" "$T/err"
collector "$T/d\$x"
expect_status 2 make -s -C "$TOP" collector COLLECTOR_DIR="$T/d\$\$x" OUT="$T/o3" $ONE
expect_grep "COLLECTOR_DIR=$T/d\\\$x: make cannot handle the character '\\\$' in a path" "$T/err"
expect_status 2 make -s -C "$TOP" collector COLLECTOR_DIR="$T/d\$x" OUT="$T/o3" $ONE
expect_grep "COLLECTOR_DIR=$T/d: no such folder \(make read the \\\$ in $T/d\\\$x as a reference to a variable" "$T/err"
expect_status 2 make -s -C "$TOP" collector COLLECTOR_DIR="$T/it's" OUT="$T/o;3" $ONE
expect_grep "OUT=$T/o;3: make cannot handle the character ';'" "$T/err"
[ ! -e "$T/o3" ] && [ ! -e "$T/o;3" ] && pass || fail "a refused build wrote something"

# ---- make install and uninstall with any PREFIX and DESTDIR ------------------------------
P="$T/pre fix';touch $T/PWNED3;'\$\$x"
D="$T/de'st"
expect_status 0 make -s -C "$TOP" install PREFIX="$P" DESTDIR="$D"
[ ! -e "$T/PWNED3" ] && pass || fail "make install ran what PREFIX held"
real="$D$T/pre fix';touch $T/PWNED3;'\$x"
[ -x "$real/lib/gcratchet/gcratchet" ] && [ -L "$real/bin/gcratchet" ] && pass ||
	fail "make install did not install under $real"
expect_status 0 "$real/bin/gcratchet" --version
expect_status 0 make -s -C "$TOP" uninstall PREFIX="$P" DESTDIR="$D"
expect_eq "$(find "$D" ! -type d | wc -l)" 0 "files left in DESTDIR after uninstall"

# ---- uninstall and links it did not make ---------------------------------------------------
P=$T/prefix
LIB=$P/lib/gcratchet
expect_status 0 make -s -C "$TOP" install PREFIX="$P"
# A repository's baselines linked in place of the installed copy, with one file of its own.
mkdir -p "$T/repo"
cp -R "$LIB/baselines" "$T/repo/"
echo mine >"$T/repo/baselines/shared_ci/notes.txt"
(cd "$T/repo" && find . -type f | sort) >"$T/repo.before"
rm -rf "$LIB/baselines"
ln -s "$T/repo/baselines" "$LIB/baselines"
# And a build folder of someone's linked over the installed one.
mkdir -p "$T/mine"
cp -R "$LIB/collectors/epsilon" "$T/mine/"
rm -rf "$LIB/collectors/epsilon"
ln -s "$T/mine/epsilon" "$LIB/collectors/epsilon"
nbase=$(grep -c '^lib/gcratchet/baselines/' "$LIB/install-manifest")
neps=$(grep -c '^lib/gcratchet/collectors/epsilon/' "$LIB/install-manifest")
expect_status 0 make -s -C "$TOP" uninstall PREFIX="$P"
expect_eq "$(cd "$T/repo" && find . -type f | sort | diff - "$T/repo.before" && echo same)" same \
	"the repository's baselines after uninstall"
expect_eq "$(find "$T/mine/epsilon" -type f | wc -l)" "$neps" "files of the linked build folder after uninstall"
expect_grep "left $((nbase + neps)) installed files in place: their paths cross a link make install did not make" "$T/err"
expect_grep "^    $LIB/baselines -> $T/repo/baselines \($nbase files\)$" "$T/err"
expect_grep "^    $LIB/collectors/epsilon -> $T/mine/epsilon \($neps files\)$" "$T/err"
[ ! -e "$LIB/gcratchet" ] && [ ! -e "$LIB/collectors/gen" ] && [ ! -e "$P/bin/gcratchet" ] && pass ||
	fail "uninstall left what it should remove: $(ls "$LIB" "$LIB/collectors")"
[ -L "$LIB/baselines" ] && [ -L "$LIB/collectors/epsilon" ] && pass || fail "uninstall removed a link it did not make"
rm -rf "$LIB"
# lib/gcratchet itself a link: nothing beyond it is removed, the manifest stays.
expect_status 0 make -s -C "$TOP" install PREFIX="$P"
mv "$LIB" "$T/elsewhere"
ln -s "$T/elsewhere" "$LIB"
n=$(find "$T/elsewhere" ! -type d | wc -l)
expect_status 0 make -s -C "$TOP" uninstall PREFIX="$P"
expect_eq "$(find "$T/elsewhere" ! -type d | wc -l)" "$n" "files beyond a linked lib/gcratchet after uninstall"
expect_grep "install-manifest is beyond a link too: left in place" "$T/err"
finish
