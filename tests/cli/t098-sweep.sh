#!/bin/sh
# gcratchet sweep (issue 13): every probe on every build at multiples of the probe's reference
# minimum heap, the same absolute sizes for every build; a build that cannot run at a size is a
# missing point marked "heap exhausted", not a failed sweep; report renders the curves (checked
# in headless Chromium, as t052 checks the A/B page) with the same numbers in Markdown and JSON.
# Small on purpose: 2 collectors, 2 probes, 2 factors, 1 round, rusage and census only.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/lock"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
chrome() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T/profile.XXXXXX")" "$@" 2>>"$T/chromium.log"
}

# 01 needs 1 MiB on marksweep and 5 on gen (its nursery counts): at 1.25 x 1 MiB, gen runs out.
expect_status 0 "$GCR" sweep --collector marksweep --collector gen --probes 01,05 \
	--factors 2,1.25 --repeats 1 --meters rusage,census
cp "$T/out" "$T/sweep1"
expect_grep "^marksweep +01_nursery_churn +[0-9]+ " "$T/sweep1" "minheap's row for marksweep"
expect_grep "^gen +05_binary_trees +[0-9]+ " "$T/sweep1" "minheap's row for gen"
expect_grep "01_nursery_churn +gen x1.25 +heap exhausted" "$T/sweep1" "the missing point is said"
expect_grep "^session 1: 8 runs, [1-9][0-9]* out of heap, 0 failed" "$T/sweep1" "outcome line"
expect_grep "^\| 01_nursery_churn \| [0-9]+ MiB \(marksweep\) \| gen \| 1.25 \| [0-9]+ \| heap exhausted \|" \
	"$T/sweep1" "the table marks the point"

# The store: one cell per arm and probe, the limit ceil(factor x the smallest minimum).
expect_eq "$(sql "SELECT count(*) FROM sweep_cells WHERE session_id = 1")" 8 "8 sweep cells"
# A pushed sweep is still a sweep: its heap sizes travel with its runs.
expect_status 0 "$GCR" push --to "$T/fleet.db" --session 1
expect_eq "$(sqlite3 -batch -noheader "$T/fleet.db" "SELECT count(*) || ' ' || sum(heap_mb) FROM sweep_cells")" \
	"$(sql "SELECT count(*) || ' ' || sum(heap_mb) FROM sweep_cells WHERE session_id = 1")" \
	"push copies the sweep's cells"
expect_eq "$(sql "SELECT group_concat(label, ',') FROM (SELECT label FROM session_builds
	WHERE session_id = 1 ORDER BY position)")" \
	"marksweep x1.25,marksweep x2,gen x1.25,gen x2" "arms are (build, factor) pairs"
for p in 01_nursery_churn 05_binary_trees; do
	ref=$(sql "SELECT min(min_heap_mb) FROM minheap WHERE probe = '$p'")
	expect_eq "$(sql "SELECT DISTINCT reference_mb FROM sweep_cells WHERE probe = '$p'")" "$ref" \
		"$p: the reference is the smallest minimum"
	expect_eq "$(sql "SELECT group_concat(heap_mb, ',') FROM (SELECT DISTINCT factor, heap_mb
		FROM sweep_cells WHERE probe = '$p' ORDER BY factor)")" \
		"$(python3 -c "import math; print(f'{math.ceil(1.25 * $ref)},{2 * $ref}')")" \
		"$p: every build at the same absolute sizes"
done
expect_eq "$(sql "SELECT status FROM runs r JOIN session_builds b ON b.session_id = r.session_id
	AND b.position = r.arm WHERE b.label = 'gen x1.25' AND r.probe = '01_nursery_churn'")" \
	heap_exhausted "stored as heap_exhausted"
# Every run fitted or ran out of heap (gen also at 2 x 1 MiB on 01); no other outcome.
expect_eq "$(sql "SELECT group_concat(status || ':' || n, ' ') FROM (SELECT status, count(*) AS n
	FROM runs WHERE session_id = 1 GROUP BY status ORDER BY status)")" \
	"heap_exhausted:2 ok:6" "6 runs fitted, 2 ran out of heap"
# The limit reached the probe: no marksweep run committed more heap than its cell allowed.
expect_eq "$(sql "SELECT count(*) FROM runs r JOIN sweep_cells c ON c.session_id = r.session_id
	AND c.arm = r.arm AND c.probe = r.probe JOIN samples s ON s.run_id = r.id
	AND s.metric = 'census.heap_committed_peak_bytes' JOIN session_builds b
	ON b.session_id = r.session_id AND b.position = r.arm
	WHERE b.label LIKE 'marksweep%' AND s.value > c.heap_mb * 1048576")" 0 "limits honoured"

# A second sweep reuses the stored minimum heaps: no search.
expect_status 0 "$GCR" sweep --collector marksweep --collector gen --probes 01 \
	--factors 1.5 --reference gen --meters rusage,census
expect_grep "^minimum heap of 01_nursery_churn on gen: [0-9]+ MiB \(stored\)" "$T/out" "reused"
expect_no_grep "fails at" "$T/out" "no search when the store has the answer"
expect_eq "$(sql "SELECT reference_build FROM sweep_cells WHERE session_id = 2 LIMIT 1")" gen \
	"--reference names the reference"

# The report: Markdown and JSON carry the numbers, HTML the curves.
expect_status 0 "$GCR" report --session 1 --html "$T/s.html" --md "$T/s.md" --json "$T/s.json"
expect_grep "### Geometric mean over 2 probes" "$T/s.md" "Markdown: geometric mean"
expect_grep "### Lower-bound overhead of wall time" "$T/s.md" "Markdown: LBO table"
# Issue 29 item 7: a dashed 1.0 line on every normalised panel, and the floor of a 0 ns time said.
expect_eq "$(grep -o '<line class="unity"' "$T/s.html" | wc -l)" 12 "a 1.0 line on each of the 12 panels"
expect_grep "taken as 1 us in every ratio and geometric mean" "$T/s.md" "Markdown: the clock's floor"
expect_grep "taken as 1 us in every ratio and geometric mean" "$T/s.html" "HTML: the clock's floor"
python3 -c 'import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "gcratchet-sweep" and d["factors"] == [1.25, 2], d["factors"]
assert [b["name"] for b in d["builds"]] == ["marksweep", "gen"]
# Both collect (every run counts its final full collection): neither is a no-GC bound.
assert [b["never_collects"] for b in d["builds"]] == [False, False], d["builds"]
for p in d["probes"]:
    assert len(p["points"]) == 4, p
    for q in p["points"]:
        if q["status"] == "heap exhausted":
            assert q["median"]["time.wall_ns"] is None and q["lbo"]["time.wall_ns"] is None
            continue
        assert q["status"] == "ok", q
        n = q["median"]["time.wall_ns"] / p["best"]["time.wall_ns"]
        assert math.isclose(n, q["normalised"]["time.wall_ns"]), (n, q)
        l = q["median"]["time.wall_ns"] / p["lower_bound"]["time.wall_ns"]
        assert math.isclose(l, q["lbo"]["time.wall_ns"]) and l >= 1, (l, q)
g = {(x["build"], x["factor"]): x for x in d["geomean"]}
assert g[("gen", 1.25)]["normalised"]["time.wall_ns"] is None
assert g[("marksweep", 2)]["normalised"]["time.wall_ns"] > 0
print("ok")' "$T/s.json" >"$T/py" 2>&1
expect_eq "$(cat "$T/py")" ok "JSON: normalisation and LBO agree with the medians"
if [ -z "$CHROMIUM" ]; then
	fail "chromium is not installed (scripts/setup.sh --test installs it)"
else
	chrome --dump-dom "file://$T/s.html" >"$T/s.dom"
	# (geometric mean + 2 probes) x (wall, user, RSS, LBO wall)
	expect_eq "$(grep -o '<svg class="plot curve"' "$T/s.dom" | wc -l)" 12 "12 curve panels"
	expect_grep "<polyline" "$T/s.dom" "curves are drawn"
	expect_grep 'class="exhausted"' "$T/s.dom" "the exhausted point is marked"
	chrome --window-size=1280,1800 --screenshot="$T/s.png" "file://$T/s.html" >/dev/null
	size=$(wc -c <"$T/s.png" 2>/dev/null || echo 0)
	expect_eq "$([ "$size" -gt 20000 ] && echo yes)" yes "s.png rendered ($size bytes)"
	if [ -n "${GCR_KEEP_SCREENSHOTS:-}" ]; then cp "$T/s.png" "$GCR_KEEP_SCREENSHOTS/sweep.png"; fi
fi
expect_status 2 "$GCR" report --session 1 --base gen --md "$T/x.md"
expect_grep "session 1 is a sweep" "$T/err" "--base means nothing to a sweep"

# Bad input names what was wrong; nothing runs.
expect_status 2 "$GCR" sweep --collector marksweep --factors 0.5
expect_grep 'sweep: --factors: factor "0.5" must be a decimal from 1 to 1000' "$T/err" "factor < 1"
expect_status 2 "$GCR" sweep --collector marksweep --factors 2,2
expect_grep "factor 2 is given twice" "$T/err" "factor twice"
expect_status 2 "$GCR" sweep --collector marksweep --reference gen --probes 01
expect_grep "--reference gen is not one of the builds swept" "$T/err" "unknown reference"
expect_status 2 "$GCR" sweep --collector marksweep --knob GCR_HEAP_MAX_MB=5
expect_grep "the sweep sets the heap size itself" "$T/err" "no heap knob of one's own"
expect_eq "$(sql "SELECT count(*) FROM sessions")" 2 "no session from bad input"

# check and ratchet's latest session is never a sweep's (its arms ran at heap limits no
# baseline was pinned at): with only sweeps stored, check says so; after a measure it skips
# the newer sweep and names it (issue 29).
expect_status 2 "$GCR" check --profile shared_ci --collector marksweep
expect_grep "no complete session in .* measured collector marksweep outside a sweep \(skipped: 2 \(a sweep\), 1 \(a sweep\)\)" "$T/err"
expect_status 0 "$GCR" measure --collector marksweep --probes 01 --size ci --rounds 1 \
	--warmup 0 --meters rusage,census
expect_status 0 "$GCR" sweep --collector marksweep --probes 01 --factors 2 --repeats 1 \
	--size ci --rounds 1 --warmup 0 --meters rusage,census
"$GCR" check --profile shared_ci --collector marksweep >"$T/out" 2>"$T/err"
expect_grep "skipping session 4 \(a sweep\), using session 3" "$T/err"
expect_no_grep "choose one with --build" "$T/err"
finish
