#!/bin/sh
# needs: valgrind
# A planted regression: marksweep built with GCR_PLANT_ALLOC_SPIN=1 (collectors/common/plant.h:
# one extra step of dependent arithmetic, about 5 instructions, per allocation; about 2.8% of
# 01_nursery_churn's instructions at the ci size) must be reported as worse on that probe's
# instruction cell, with the right sign and about the right size; the census's counters,
# which count the collector's bookkeeping and not its cost, must show no difference; and the
# same pair the other way round is "better".
. "$(dirname "$0")/lib.sh"

SPIN=1
if ! make -s -C "$TOP" -f collectors/build.mk NAME=marksweep-slow COLLECTOR_DIR=collectors/marksweep \
	OUT="$T/ms-slow" EXTRA_CFLAGS=-DGCR_PLANT_ALLOC_SPIN=$SPIN >"$T/build.log" 2>&1; then
	fail "building the planted variant"
	tail -n 20 "$T/build.log" >&2
	finish
fi

expect_status 1 "$GCR" ab --wide marksweep "$T/ms-slow" --probes 01 --rounds 7 --size ci \
	--meters rusage,census,valgrind --seed 51 --json "$T/ab.json" --md "$T/ab.md" --html "$T/ab.html"
expect_grep "^01_nursery_churn +valgrind\.ir +[0-9]+ +[0-9]+ +\+[0-9]+ +\+[0-9.]+% +exact +- +exact \([0-9]+\) +- +- +WORSE$" "$T/out"
expect_grep "^  01_nursery_churn +checksum 0x[0-9a-f]{16} in both" "$T/out"
expect_grep "^  census: [0-9]+ deterministic counters compared exactly, all equal" "$T/out"
expect_grep "^verdict: FIX is WORSE on [0-9]+ cell" "$T/out"
expect_grep "\*\*WORSE\*\*" "$T/ab.md"

python3 - "$T/ab.json" >"$T/cells" 2>&1 <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["comparison"]
cell = lambda m: next(x for x in c["cells"] if x["probe"] == "01_nursery_churn" and x["metric"] == m)
ir, allocs = cell("valgrind.ir"), cell("census.alloc_objects")
print("ir_verdict", ir["verdict"])
print("ir_sign", "+" if ir["delta_median"] > 0 else "-")
print("ir_pct_ok", 1.5 <= ir["delta_median_pct"] <= 4.0, ir["delta_median_pct"])
# The cost per allocation: what the planted loop costs, whatever the probe's size.
per = ir["delta_median"] / allocs["base_median"]
print("ir_per_alloc_ok", 3 <= per <= 8, per)
# The census's counters, not its pause times and MMU: those are clock readings of a mutator
# that now does more work, judged as noisy cells (a sign test flags one by chance, or the
# spin moves MMU for real).
counters = [x for x in c["cells"] if x["metric"].startswith("census.") and x["role"] == "decides"
            and x["deterministic"]]
print("census_same", len(counters) >= 8 and all(x["verdict"] == "same" for x in counters))
print("outcome", c["outcome"])
PY
cat "$T/cells" >&2
expect_grep "^ir_verdict worse$" "$T/cells"
expect_grep "^ir_sign \+$" "$T/cells" "FIX costs more instructions"
expect_grep "^ir_pct_ok True" "$T/cells" "Ir delta about 2.8%"
expect_grep "^ir_per_alloc_ok True" "$T/cells" "3 to 8 instructions per allocation"
expect_grep "^census_same True$" "$T/cells" "the census does not change"
expect_grep "^outcome worse$" "$T/cells"

# The other way round the same change is an improvement, never a regression of Ir.
"$GCR" ab "$T/ms-slow" marksweep --probes 01 --rounds 7 --meters rusage,census,valgrind \
	--seed 52 --json "$T/ba.json" >"$T/out" 2>"$T/err"
python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["comparison"]
print(next(x["verdict"] for x in c["cells"] if x["metric"] == "valgrind.ir"))' "$T/ba.json" >"$T/v"
expect_grep "^better$" "$T/v" "Ir better the other way round"
finish
