#!/bin/sh
# needs: valgrind
# The ratchet catches planted regressions: a marksweep variant with a deliberate extra cost
# per allocation, and one that retains an extra 32 MiB, measured in the same session as the
# real marksweep; check against a baseline pinned from the real one exits 1 naming the right
# cells, and leaves the cells the plant does not touch alone.
. "$(dirname "$0")/lib.sh"
export GCR_BASELINE_DIR="$T/baselines"

plant() { # name cflags
	make -s -C "$TOP" -f collectors/build.mk NAME="$1" COLLECTOR_DIR=collectors/marksweep \
		OUT="$T/$1" EXTRA_CFLAGS="$2" >/dev/null 2>"$T/make.err" || {
		fail "cannot build $1"
		cat "$T/make.err" >&2
	}
}
plant marksweep-slow -DGCR_PLANT_ALLOC_SPIN=20
plant marksweep-retain -DGCR_PLANT_RETAIN_KB=32768

expect_status 0 "$GCR" measure --collector marksweep --build "$T/marksweep-slow" \
	--build "$T/marksweep-retain" --probes 01,12 --size ci --rounds 2 --warmup 0 \
	--meters rusage,census,valgrind
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector marksweep --session latest --build marksweep
expect_status 0 "$GCR" check --profile shared_ci --collector marksweep --build marksweep
expect_grep "^verdict: ok" "$T/out"

# Extra cost per allocation: Ir regresses on both probes; the census does not move.
expect_status 1 "$GCR" check --profile shared_ci --collector marksweep --build marksweep-slow
cp "$T/out" "$T/slow"
expect_grep "^01_nursery_churn +valgrind.ir .* REGRESSED: [0-9][^;]* past the allowance$" "$T/slow"
expect_grep "^12_large_live_set +valgrind.ir .* REGRESSED: [0-9][^;]* past the allowance$" "$T/slow"
expect_no_grep "census\..* REGRESSED" "$T/slow" "a CPU-only plant moves no census counter"
expect_no_grep "(rss|memory)\..* REGRESSED" "$T/slow" "nor any memory figure"
expect_grep "^verdict: REGRESSION" "$T/slow"
# The short table: only the rows that are not ok, one line per probe with its counts (those
# of the full table), and how to see the rest.
expect_no_grep "^[0-9]{2}_[a-z_]+ +[a-z0-9_.:]+ .* (ok|info)(: .*)?$" "$T/slow" "an ok row in the short table"
"$GCR" check --profile shared_ci --collector marksweep --build marksweep-slow --all >"$T/slow-all"
oks=$(grep -cE "^01_nursery_churn +[a-z0-9_.:]+ .* ok(: .*)?$" "$T/slow-all")
infos=$(grep -cE "^01_nursery_churn +[a-z0-9_.:]+ .* info(: .*)?$" "$T/slow-all")
expect_grep "^01_nursery_churn +$oks +1 +0 +0 +$infos$" "$T/slow"
expect_grep "^[0-9]+ of [0-9]+ cells shown; every cell: the same command with --all" "$T/slow"
expect_grep "^01_nursery_churn +valgrind.ir .* REGRESSED: [0-9][^;]* past the allowance$" "$T/slow-all"

# Retained memory: the heap after the final collection and both peak-RSS figures regress.
expect_status 1 "$GCR" check --profile shared_ci --collector marksweep --build marksweep-retain
cp "$T/out" "$T/retain"
for p in 01_nursery_churn 12_large_live_set; do
	expect_grep "^$p +census.heap_used_after_full_bytes .* REGRESSED: [0-9][^;]* past the allowance$" "$T/retain"
	expect_grep "^$p +rss.peak_bytes .* REGRESSED: [0-9][^;]* past the allowance$" "$T/retain"
	expect_grep "^$p +memory.vm_hwm_bytes .* REGRESSED: [0-9][^;]* past the allowance$" "$T/retain"
done

# The JSON form carries the same verdicts.
expect_status 1 "$GCR" check --profile shared_ci --collector marksweep --build marksweep-slow --format json
python3 - "$T/out" >"$T/py" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = sorted({(c["probe"], c["metric"]) for c in r["cells"] if c["verdict"] == "regressed"})
print(r["verdict"], bad)
assert r["verdict"] == "regression"
assert ("01_nursery_churn", "valgrind.ir") in bad
PY
expect_eq "$?" 0 "check --format json"
cat "$T/py"
# How far past: the regressed Ir cell's delta less its allowance, whole and scaled as a terminal
# shows counts (issue 43: "17364019.4 past the allowance" is 17.4M; no run counts half).
past=$(jq -r '.cells[] | select(.probe == "01_nursery_churn" and .metric == "valgrind.ir") | .delta - .allowance' "$T/out" |
	awk '{ v = $1 < 0 ? -$1 : $1; v = int(v + 0.5); s = $1 < 0 ? "-" : ""
		if (v >= 999995000) printf "%s%.2fG", s, v / 1e9
		else if (v >= 999950) printf "%s%.1fM", s, v / 1e6
		else if (v >= 100000) printf "%s%.1fk", s, v / 1e3
		else printf "%s%d", s, v }')
expect_grep "^01_nursery_churn +valgrind.ir .* REGRESSED: $past past the allowance$" "$T/slow"
finish
