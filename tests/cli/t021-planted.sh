#!/bin/sh
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
expect_grep "^01_nursery_churn +valgrind.ir .* REGRESSED$" "$T/slow"
expect_grep "^12_large_live_set +valgrind.ir .* REGRESSED$" "$T/slow"
expect_no_grep "census\..* REGRESSED" "$T/slow" "a CPU-only plant moves no census counter"
expect_no_grep "(rss|memory)\..* REGRESSED" "$T/slow" "nor any memory figure"
expect_grep "^verdict: REGRESSION" "$T/slow"

# Retained memory: the heap after the final collection and both peak-RSS figures regress.
expect_status 1 "$GCR" check --profile shared_ci --collector marksweep --build marksweep-retain
cp "$T/out" "$T/retain"
for p in 01_nursery_churn 12_large_live_set; do
	expect_grep "^$p +census.heap_used_after_full_bytes .* REGRESSED$" "$T/retain"
	expect_grep "^$p +rss.peak_bytes .* REGRESSED$" "$T/retain"
	expect_grep "^$p +memory.vm_hwm_bytes .* REGRESSED$" "$T/retain"
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
finish
