#!/bin/sh
# needs: valgrind
# A/A: marksweep against itself, 7 rounds, instructions and census on. No instruction or
# census cell may be reported as a difference: they are deterministic, so the comparison is
# exact, and an A/A session must show them equal. (Time cells are tested too, but may be
# flagged by chance about one session in twenty: their false-discovery rate is measured,
# not asserted; see docs/ab.md.)
. "$(dirname "$0")/lib.sh"
# exported SESSION FILTER — a fact of a stored session, read back through export.
exported() { "$GCR" export --session "$1" | jq -r "$2"; }

expect_ab_outcome "$T/aa.json" "$GCR" ab marksweep marksweep --probes 01,02 --rounds 7 --size ci \
	--meters rusage,census,valgrind --seed 50 --json "$T/aa.json" --md "$T/aa.md"
expect_grep "^gcratchet ab: session 1, size ci, rounds complete 1-7 of 7" "$T/out"
expect_grep "^identity \(checked first\)" "$T/out"
expect_grep "^  01_nursery_churn +checksum 0x[0-9a-f]{16} in both" "$T/out"
expect_grep "^  census: [0-9]+ deterministic counters compared exactly, all equal" "$T/out"
# Identity comes before the table.
first_identity=$(grep -n '^identity' "$T/out" | cut -d: -f1)
first_row=$(grep -n '^probe ' "$T/out" | cut -d: -f1)
expect_eq "$([ "${first_identity:-99}" -lt "${first_row:-0}" ] && echo yes)" yes "identity printed first"
expect_grep "A/A: BASE and FIX are one build, stored once and run as two arms, marksweep and marksweep \(2\)" "$T/err"
expect_no_grep "twin" "$T/err" "no rewritten identity"

# The deterministic cells, from the JSON report: present, exact, equal, never a difference.
python3 - "$T/aa.json" >"$T/cells" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["comparison"]
assert d["format"] == "gcratchet-ab" and d["version"] == 2
assert (c["base"], c["fix"], c["base_arm"], c["fix_arm"]) == ("marksweep", "marksweep (2)", 0, 1)
ir = [x for x in c["cells"] if x["metric"] == "valgrind.ir"]
census = [x for x in c["cells"] if x["metric"].startswith("census.") and x["role"] == "decides"]
print("ir_cells", len(ir))
# Exact comparison, within valgrind's resolution (a few instructions move with the paths).
print("ir_exact_same", sum(1 for x in ir if x["deterministic"] and x["verdict"] == "same"
                           and abs(x["delta_median"]) <= 1e-5 * x["base_median"]))
for x in ir:
    print("ir_delta", x["probe"], x["delta_median"], file=sys.stderr)
print("census_cells", len(census))
print("census_deterministic", sum(1 for x in census if x["deterministic"]))
# Counters only: the census's pause figures (pause_p99_ns, mmu_10ms) are clock readings, noisy
# cells that an A/A flags by chance, and a loaded host's stalls more often.
print("census_flagged", sum(1 for x in census if x["deterministic"] and x["verdict"] != "same"))
print("census_pairs", min(x["n"] for x in census))
print("identity_failed", c["identity"]["failed"])
print("census_differ", c["identity"]["census_differ"])
# Any cell flagged must be a noisy one (time or memory), never an exact one.
print("exact_flagged", sum(1 for x in c["cells"] if x["deterministic"] and x["verdict"] in ("worse", "better")))
print("stochastic_flagged", sum(1 for x in c["cells"] if not x["deterministic"] and x["verdict"] in ("worse", "better")))
PY
cat "$T/cells" >&2
expect_grep "^ir_cells 2$" "$T/cells" "one Ir cell per probe"
expect_grep "^ir_exact_same 2$" "$T/cells" "Ir equal in both arms (within 10 ppm)"
expect_grep "^census_cells ([5-9]|[1-9][0-9])$" "$T/cells" "census cells measured"
expect_no_grep "^census_flagged [1-9]" "$T/cells" "an A/A census counter reported as a difference"
expect_grep "^census_pairs 7$" "$T/cells" "seven pairs per census cell"
expect_grep "^identity_failed False$" "$T/cells"
expect_grep "^census_differ 0$" "$T/cells"
expect_grep "^exact_flagged 0$" "$T/cells"
# The exit status follows the cells: 0 unless a noisy cell was flagged by chance.
if grep -q "^stochastic_flagged 0$" "$T/cells"; then
	expect_eq "$(grep -c '^verdict: no difference' "$T/out")" 1 "verdict line"
fi
expect_grep "^### gcratchet ab: " "$T/aa.md"
# A same cell is no row of the comment: it is counted in the fold's summary.
expect_no_grep "^\| 01_nursery_churn \| valgrind.ir \|" "$T/aa.md" "the comment lists a same cell"
expect_grep "^<details><summary>[0-9]+ more cells \([0-9]+ info, [1-9][0-9]* same\)" "$T/aa.md"
# All samples of the session are stored as one session: one build, run as two arms.
expect_eq "$("$GCR" list sessions | tail -n +2 | wc -l)" 1 "one session"
expect_eq "$(exported 1 '.builds | length')" 1 "one build"
expect_eq "$(exported 1 '[.arms[].label] | join(",")')" "marksweep,marksweep (2)" "two arms"
expect_eq "$(exported 1 '[.runs[] | select(.kind == "timed")] | length')" 32 "8 rounds x 2 probes x 2 arms"
expect_eq "$(exported 1 '[.runs[] | select(.kind == "valgrind")] | length')" 8 "two Ir runs per probe and arm: each repeated itself, so no third"
finish
