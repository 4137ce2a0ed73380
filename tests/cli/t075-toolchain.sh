#!/bin/sh
# needs: valgrind
# Toolchain identity. Ir counts what the compiler emitted: a build made by clang measured
# against a baseline pinned from gcc's is STALE on the first line, its Ir cells are "not
# comparable" (exit 2, with and without --strict), never REGRESSED, and its census is still
# judged. The manifest and a baseline pinned from the session record the toolchain. And a
# clang build whose DWARF 5 the installed valgrind (< 3.20) cannot read is found by doctor,
# with the -gdwarf-4 fix.
. "$(dirname "$0")/lib.sh"
MK="make --no-print-directory -s -C $TOP -f collectors/build.mk NAME=epsilon CC=clang"

expect_status 0 $MK OUT="$T/clang"
python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["toolchain"]
assert t["cc"] == "clang" and t["compiler"] == "clang", t
assert t["version"].split(".")[0].isdigit() and "-O2" in t["flags"], t
assert t["valgrind"] is None or t["valgrind"].startswith("valgrind-"), t
print(t["compiler"], t["version"])' "$T/clang/manifest.json" >"$T/tc" 2>&1
expect_grep "^clang [0-9]" "$T/tc" "the manifest records the toolchain"

expect_status 0 "$GCR" measure --build "$T/clang" --probes 01 --size ci --rounds 1 --warmup 0 \
	--meters rusage,census,valgrind
for strict in "" --strict; do
	expect_status 2 "$GCR" check --all --profile shared_ci --collector epsilon --build epsilon $strict
	head -n 1 "$T/out" >"$T/first"
	expect_grep "^STALE: built with clang [0-9.]+, the baseline with gcc 12\.2\.0" "$T/first" \
		"the first line says STALE and names clang ($strict)"
	expect_grep "^01_nursery_churn +valgrind\.ir .*COULD NOT JUDGE: not comparable: built with clang" \
		"$T/out" "Ir is not comparable ($strict)"
	expect_no_grep "REGRESSED" "$T/out" "no Ir cell regressed ($strict)"
	expect_grep "^01_nursery_churn +census\.alloc_bytes .* ok$" "$T/out" \
		"the census is still judged ($strict)"
done
expect_status 2 "$GCR" check --profile shared_ci --collector epsilon --format json
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["stale"][0].startswith("built with clang"), d["stale"]' "$T/out" 2>"$T/py"
expect_status 0 test ! -s "$T/py"

# A baseline pinned from the clang session says so, and the session then checks clean.
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector epsilon --session latest \
	--out "$T/clang.json"
expect_grep '^  "toolchain": \{"compiler": "clang", "version": "[0-9.]+", "flags": "[^"]*-O2' \
	"$T/clang.json" "pin records the toolchain"
expect_status 0 "$GCR" check --all --profile shared_ci --collector epsilon --baseline "$T/clang.json"
expect_no_grep "STALE" "$T/out" "one toolchain: nothing stale"

# clang's own DWARF 5 (DWARF_FLAGS= turns off build.mk's -gdwarf-4): doctor names the fix
# when the installed valgrind is older than 3.20.
vg=$(valgrind --version 2>/dev/null)
case $vg in
valgrind-3.1[0-9].* | valgrind-3.[0-9].*)
	expect_status 0 $MK OUT="$T/root/collectors/epsilon" DWARF_FLAGS=
	GCR_BUILD_ROOT="$T/root" expect_status 2 "$GCR" doctor
	expect_grep "^MISSING +debug info +epsilon: clang [0-9.]+ writes DWARF 5, which $vg cannot read" \
		"$T/out" "doctor finds the unreadable debug info"
	expect_grep "fix: rebuild with -gdwarf-4" "$T/out" "doctor names the fix"
	GCR_BUILD_ROOT="$TOP/build" "$GCR" doctor >"$T/out" 2>&1
	expect_grep "^ok +debug info " "$T/out" "the default build's debug info is read"
	;;
esac

# Every other shipped collector, built by clang from unchanged code and measured three rounds
# on two probes (a short-lived and a large live set; 06 too for the conservative ones, whose
# stack scan sees clang's frames): check says STALE, its Ir is not comparable, nothing is
# REGRESSED, and the census cells it measured are judged against the gcc baseline.
# bdwgc is also built by gcc at -O1: other flags, other stack frames for its scan. Probe 11,
# where clang and -O1 once made its RSS +12 to 18% and its committed heap +33.5% (REGRESSED on
# unchanged code), is among the conservative ones' probes.
for c in marksweep gen bdwgc bdwgc-incremental bdwgc:-O1; do
	cc=clang opt='-O2 -g'
	case $c in *:-O1) c=${c%:-O1} cc=gcc opt='-O1 -g' ;; esac
	probes="01_nursery_churn 12_large_live_set"
	case $c in bdwgc*) probes="$probes 06_fragmentation 11_collect_at_depth" ;; esac
	if ! make --no-print-directory -s -C "$TOP" -f collectors/build.mk NAME="$c" CC=$cc OPT="$opt" \
		COLLECTOR_DIR="$TOP/collectors/$c" OUT="$T/clang-$c" \
		PROBE_SRCS="$(for p in $probes; do printf '%s ' "$TOP/probes/$p.c"; done)" >"$T/build.log" 2>&1; then
		fail "building $c with clang"
		tail -n 20 "$T/build.log" >&2
		continue
	fi
	expect_eq "$(jq -r .toolchain.compiler "$T/clang-$c/manifest.json")" $cc "$c's manifest names $cc"
	# bdwgc-incremental cannot run under valgrind (libgc's dirty-page tracking): no Ir.
	meters=$(jq -r '.meters | join(",")' "$TOP/baselines/shared_ci/$c.json" | sed 's/,perf//')
	expect_status 0 "$GCR" measure --build "$T/clang-$c" --size ci --rounds 3 --warmup 0 \
		--meters "$meters" --db "$T/$c.db"
	expect_status 2 "$GCR" check --all --profile shared_ci --collector "$c" --db "$T/$c.db"
	expect_grep "^STALE: built with ($cc [0-9.]+|flags \"[^\"]*-O1)" "$T/out" "$c: STALE on the first line"
	expect_no_grep "REGRESSED" "$T/out" "$c built with $cc $opt: nothing regressed"
	# A conservative build's memory follows the compiler's frames: not comparable, and why.
	case $c in bdwgc*)
		expect_grep "^11_collect_at_depth +rss\.peak_bytes .*COULD NOT JUDGE: not comparable: built with .*retention is not exact" \
			"$T/out" "$c ($cc $opt): its RSS is not comparable"
		;;
	esac
	case $meters in *valgrind*)
		expect_grep "^01_nursery_churn +valgrind\.ir .*COULD NOT JUDGE: not comparable" "$T/out" \
			"$c: Ir not comparable"
		;;
	esac
	expect_grep "^01_nursery_churn +census\.alloc_bytes .* ok$" "$T/out" "$c: its census judged"
	grep '^verdict' "$T/out" | sed "s/^/$c ($cc $opt): /"
	rm -rf "$T/clang-$c"
done
finish
