#!/bin/sh
# needs: valgrind
# Pause distributions and minimum mutator utilisation (issue 16), end to end: an A/B of gen
# against marksweep on 15_request_latency shows both arms' MMU curves and pause figures side
# by side in all three report formats (the HTML rendered in headless Chromium); every timed run
# stores the census pause figures and the probe's latencies as samples; a collector without a
# pause log (epsilon) stores none of them, never a zero; valgrind runs store none either.
# Nothing here asserts on a time: only on presence, ranges and invariants that hold whatever
# the host's speed (a metered latency is never below the service time at the same quantile).
. "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	fail "chromium is not installed (scripts/setup.sh --test installs it)"
	finish
fi
chrome() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T/profile.XXXXXX")" "$@" 2>>"$T/chromium.log"
}
count() { grep -o -- "$1" "$2" | wc -l | tr -d ' '; }

# ---- The A/B: gen against marksweep, every report format ---------------------------------
"$GCR" ab gen marksweep --probes 15 --rounds 4 --meters rusage,census,valgrind --seed 16 \
	--md "$T/ab.md" --json "$T/ab.json" --html "$T/ab.html" >"$T/out" 2>"$T/err"
st=$?
expect_eq "$([ "$st" -eq 0 ] || [ "$st" -eq 1 ] && echo judged)" judged "ab gen marksweep exits 0 or 1 (got $st)"

# JSON: comparison.pauses, one probe, both arms with every MMU window in [0, 1].
expect_eq "$(jq -r '.comparison.pauses | length' "$T/ab.json")" 1 "one probe with pause figures"
expect_eq "$(jq -r '.comparison.pauses[0].probe' "$T/ab.json")" 15_request_latency "its name"
expect_eq "$(jq -r '[.comparison.pauses[0].arms[] | .label] | join(" ")' "$T/ab.json")" \
	"gen marksweep" "BASE and FIX, in order"
expect_eq "$(jq -r '[.comparison.pauses[0].arms[] | .runs] | join(" ")' "$T/ab.json")" "4 4" \
	"every measured timed run counted, no warm-up or valgrind run"
expect_eq "$(jq -r '[.comparison.pauses[0].arms[].mmu | to_entries[] | select(.value >= 0 and .value <= 1)] | length' "$T/ab.json")" 14 \
	"seven MMU windows per arm, each a share"
expect_eq "$(jq -r '[.comparison.pauses[0].arms[] | (.histogram_log2_ns | length) > 0] | all' "$T/ab.json")" true \
	"each arm has a pause histogram"
expect_eq "$(jq -r '[.comparison.pauses[0].arms[] | .pause_p99_ns <= .pause_max_ns] | all' "$T/ab.json")" true \
	"p99 pause at most the max"
# The cells carry the figures like any metric.
expect_eq "$(jq -r '[.comparison.cells[] | select(.metric == "census.mmu_10ms")] | length' "$T/ab.json")" 1 \
	"an A/B cell for MMU at 10 ms"

# Markdown: the figures side by side.
expect_grep '^\*\*Pauses and minimum mutator utilisation\*\*' "$T/ab.md" "the Markdown pause section"
expect_grep '^\| MMU 10ms \| [01]\.[0-9]{3} \| [01]\.[0-9]{3} \|$' "$T/ab.md" "MMU at 10 ms for both arms"
expect_grep '^\| p99 pause \| [0-9.]+ (ns|us|ms|s) \| [0-9.]+ (ns|us|ms|s) \|$' "$T/ab.md" "p99 pause for both arms"
expect_grep '^\| pauses from [0-9.]+ (ns|us|ms|s) \(per run\) \|' "$T/ab.md" "the histogram buckets"

# HTML, as Chromium renders it: one pause figure with both arms' curves and bars.
chrome --dump-dom "file://$T/ab.html" >"$T/ab.dom"
expect_eq "$(count '<svg class="pauseplot"' "$T/ab.dom")" 1 "one pause plot in the rendered page"
sed -n '/<svg class="pauseplot"/,/<\/svg>/p' "$T/ab.dom" >"$T/pause.svg"
expect_eq "$(count '<polyline' "$T/pause.svg")" 2 "two MMU curves (BASE and FIX)"
expect_grep 'BASE: MMU\(10ms\) = [01]\.[0-9]{3}' "$T/pause.svg" "BASE's MMU points are labelled"
expect_grep 'FIX: MMU\(10ms\) = [01]\.[0-9]{3}' "$T/pause.svg" "FIX's MMU points are labelled"
expect_grep 'FIX: [0-9.]+ pauses per run from' "$T/pause.svg" "FIX's histogram bars"
expect_grep '<td class="l">MMU 10ms</td><td>[01]\.[0-9]{3}</td><td>[01]\.[0-9]{3}</td>' "$T/ab.dom" \
	"the figures beside the plot"
chrome --window-size=1280,1800 --screenshot="$T/ab.png" "file://$T/ab.html" >/dev/null
size=$(wc -c <"$T/ab.png" 2>/dev/null || echo 0)
expect_eq "$([ "$size" -gt 20000 ] && echo yes)" yes "the page rendered ($size bytes)"

# ---- Samples: every timed run of a collector with a log, none from valgrind ---------------
"$GCR" export --session 1 >"$T/s1.json"
timed='[.runs[] | select(.kind == "timed" and .status == "ok")]'
expect_eq "$(jq -r "$timed | map(.samples | has(\"census.mmu_10ms\") and has(\"census.pause_p99_ns\") and has(\"census.pause_count\") and has(\"latency.metered_p99_ns\")) | all" "$T/s1.json")" true \
	"every timed run stores the pause figures and the latencies"
expect_eq "$(jq -r "$timed | map(.samples | .[\"latency.metered_p99_ns\"] >= .[\"latency.simple_p99_ns\"] and .[\"latency.metered_max_ns\"] >= .[\"latency.simple_max_ns\"]) | all" "$T/s1.json")" true \
	"metered latency is never below the service time at the same quantile"
expect_eq "$(jq -r "$timed | map(.premise | startswith(\"met\")) | all" "$T/s1.json")" true \
	"collections happened while requests were in flight"
expect_eq "$(jq -r '[.runs[] | select(.kind == "valgrind") | .samples | keys[] | select(startswith("census.") or startswith("latency."))] | length' "$T/s1.json")" 0 \
	"valgrind runs store no clock figures"

# ---- A collector without a pause log: the figures are absent, never zero -------------------
expect_status 0 "$GCR" measure --collector epsilon --collector gen --probes 15 --size ci \
	--rounds 2 --meters rusage,census
"$GCR" export --session 2 >"$T/s2.json"
expect_eq "$(jq -r '[.runs[] | select(.build == "epsilon" and .kind == "timed") | .samples | keys[] | select(startswith("census.pause_") and . != "census.pause_total_ns" and . != "census.pause_max_ns" or startswith("census.mmu_"))] | length' "$T/s2.json")" 0 \
	"epsilon (no pause log) stores no pause figure"
expect_eq "$(jq -r '[.runs[] | select(.build == "epsilon" and .kind == "timed") | .samples | has("latency.simple_p99_ns")] | all' "$T/s2.json")" true \
	"epsilon still stores the probe's latencies (the probe measures them)"
# Two builds: report draws the A/B page; the arm without a log has no curve.
expect_status 0 "$GCR" report --session 2 --html "$T/s2.html"
chrome --dump-dom "file://$T/s2.html" >"$T/s2.dom"
expect_eq "$(count '<svg class="pauseplot"' "$T/s2.dom")" 1 "the pause plot, for gen's runs"
sed -n '/<svg class="pauseplot"/,/<\/svg>/p' "$T/s2.dom" >"$T/s2.svg"
expect_eq "$(count '<polyline' "$T/s2.svg")" 1 "one curve: gen's (epsilon has no log)"
expect_grep 'BASE 0 runs, FIX 2 runs' "$T/s2.dom" "the caption says which arm had no figures"
expect_grep '<td class="l">MMU 10ms</td><td>-</td><td>[01]\.[0-9]{3}</td>' "$T/s2.dom" \
	"epsilon's MMU is shown absent, not zero"

# One build: the session page draws the same figure, labelled with the build.
expect_status 0 "$GCR" measure --collector gen --probes 15 --size ci --rounds 2 \
	--meters rusage,census
expect_status 0 "$GCR" report --session 3 --html "$T/s3.html"
chrome --dump-dom "file://$T/s3.html" >"$T/s3.dom"
expect_eq "$(count '<svg class="pauseplot"' "$T/s3.dom")" 1 "the session page draws the pause plot"
expect_grep 'gen: MMU\(100ms\) = [01]\.[0-9]{3}' "$T/s3.dom" "its curve is gen's"
# ... and its Markdown and JSON carry the numbers: each metric's median over the runs, the
# pause figures and the MMU curve, as the store has them.
expect_status 0 "$GCR" report --session 3 --md "$T/s3.md" --json "$T/s3.json"
mmu10=$("$GCR" export --session 3 | jq '[.runs[] | select(.warmup == false and .kind == "timed" and .status == "ok") | .samples["census.mmu_10ms"]] | sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end')
expect_eq "$(jq --argjson m "$mmu10" '(.summary.pauses[0].arms[0].mmu["10ms"] - $m) | fabs < 1e-6' "$T/s3.json")" true \
	"the JSON's MMU 10 ms is the median of the runs' ($mmu10)"
expect_eq "$(jq '.summary.probes[0].metrics["census.pause_count"].n' "$T/s3.json")" 2 \
	"the JSON counts the runs behind each median"
expect_eq "$(jq '.runs | length' "$T/s3.json")" "$("$GCR" export --session 3 | jq '.runs | length')" \
	"the JSON keeps every run, as export's"
expect_grep '^\| MMU 10ms \| [01]\.[0-9]{3} \|$' "$T/s3.md" "the Markdown's MMU row"
expect_grep '^\| census\.pause_p99_ns \| [0-9.]+ [mu]?s \| ' "$T/s3.md" "the Markdown's p99 pause row"
expect_status 2 "$GCR" report --session 3
expect_grep "nothing to write: give --html, --md or --json FILE" "$T/err"
expect_status 2 "$GCR" report --session 3 --md "$T/x.md" --base gen
expect_grep "measured one build: --base, --fix and --across compare two" "$T/err"

# ---- check against a baseline pinned before probe 15 existed: it says so -----------------
# A baseline of probe 14 alone, pinned here (not the shipped ones), stands for one pinned
# before 15 was added; the pause figures are pinned as info cells like any metric.
export GCR_BASELINE_DIR="$T/baselines"
expect_status 0 "$GCR" measure --collector gen --probes 14 --size ci --rounds 2 --meters rusage,census
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector gen --session latest
expect_eq "$(jq -r '[.cells[] | select(.metric == "census.mmu_10ms" or .metric == "census.pause_p99_ns")] | length' "$T/baselines/shared_ci/gen.json")" 2 \
	"pin writes the pause cells"
expect_eq "$(jq -r '.rules["census.mmu_10ms"].direction' "$T/baselines/shared_ci/gen.json")" decrease \
	"MMU's rule: a decrease is the regression"
expect_status 0 "$GCR" measure --collector gen --probes 14,15 --size ci --rounds 2 --meters rusage,census
expect_status 0 "$GCR" check --profile shared_ci --collector gen
expect_grep '^note: 15_request_latency was measured, but the baseline pins no cell of it: not judged' "$T/out" \
	"check names the probe the baseline lacks"
"$GCR" check --profile shared_ci --collector gen --format json >"$T/check.json"
expect_eq "$(jq -r '.unpinned_probes | join(",")' "$T/check.json")" 15_request_latency "and so does its JSON"
finish
