#!/bin/sh
# Issue 29 item 7: every plot's value axis has round-number ticks (a step of 1, 2 or 5 x 10^k in
# the unit of its labels, every tick a multiple of it), and a count or a size is drawn from 0:
# the session page and the A/B page, read back from the SVG they hold. (The sweep's 1.0 line is
# checked in t098, the tick arithmetic in tests/unit/test_axis.c.)
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"

B="$T/scripted"
make_script_build "$B" 01_p 02_q
echo 349000000 >"$B/alloc.01_p"
echo 5 >"$B/gcs.02_q"
M="--build $B --size ci --rounds 4 --warmup 0 --meters rusage,census"
expect_status 0 "$GCR" measure $M
expect_status 0 "$GCR" report --session 1 --html "$T/s.html"
# A FIX that allocates 20% more: its flagged cell gets the full plot, samples and deltas.
BUILD_NAME=fix make_script_build "$T/fix" 01_p 02_q
echo 418800000 >"$T/fix/alloc.01_p"
expect_status 1 "$GCR" ab "$B" "$T/fix" --size ci --rounds 4 --meters rusage,census --html "$T/ab.html"

# axes FILE — one line per plot: "PROBE METRIC|first tick|verdict", where the verdict is "round"
# or why the ticks are not.
axes() {
	python3 - "$1" <<'PY'
import math, re, sys
units = {"": 1, "%": 1, "k": 1e3, "M": 1e6, "G": 1e9, " B": 1, " KiB": 1024, " MiB": 1024**2,
         " GiB": 1024**3, " ns": 1, " us": 1e3, " ms": 1e6, " s": 1e9}
def check(name, labels):
    why = "round"
    values, scale = [], None
    for l in labels:
        m = re.fullmatch(r'([+-]?\d+(?:\.\d+)?)( ?[A-Za-z%]*)', l)
        if not m or m.group(2) not in units:
            why = "unreadable label %r" % l
            break
        values.append(float(m.group(1)) * units[m.group(2)])
        if l != "0" and l != "0%":
            scale = units[m.group(2)]
    if why == "round":
        steps = [b - a for a, b in zip(values, values[1:])]
        step = steps[0] if steps else 0
        if len(values) < 2 or step <= 0:
            why = "fewer than two ticks"
        elif any(abs(s - step) > 1e-6 * step for s in steps):
            why = "uneven ticks %s" % labels
        else:
            mant = step / scale / 10 ** math.floor(math.log10(step / scale) + 1e-9)
            if not any(abs(mant - n) < 1e-6 for n in (1, 2, 5)):
                why = "step %g is not 1, 2 or 5 x 10^k: %s" % (step / scale, labels)
            elif any(abs(v / step - round(v / step)) > 1e-6 for v in values):
                why = "a tick off the step: %s" % labels
    print("%s|%s|%s" % (name, labels[0], why))

page = open(sys.argv[1]).read()
for svg in re.findall(r'<svg class="plot[^"]*".*?</svg>', page, re.S):
    name = re.search(r'aria-label="([^"]*)"', svg).group(1)
    panels = {}
    for x, l in re.findall(r'<text class="tick" x="([^"]*)"[^>]*>([^<]*)</text>', svg):
        panels.setdefault(x, []).append(l)
    for labels in panels.values():
        check(name, labels)
PY
}
axes "$T/s.html" >"$T/s.axes"
axes "$T/ab.html" >"$T/ab.axes"
expect_grep "^01_p census.alloc_bytes\|" "$T/s.axes" "the session page has its plots"
expect_no_grep "\|[^|]*\|[^r]|\|[^|]*\|r[^o]" "$T/s.axes" "every axis of the session page is round"
expect_no_grep "\|[^|]*\|[^r]|\|[^|]*\|r[^o]" "$T/ab.axes" "every axis of the A/B page is round"
# A size and a count start at zero; time does not have to.
expect_grep "^01_p rss\.peak_bytes\|0\|round$" "$T/s.axes"
expect_grep "^01_p census\.alloc_bytes\|0\|round$" "$T/s.axes"
expect_grep "^02_q census\.major_collections\|0\|round$" "$T/s.axes"
expect_grep "^01_p census\.alloc_bytes\|0\|round$" "$T/ab.axes"
expect_eq "$(grep -c '^01_p census.alloc_bytes|' "$T/ab.axes")" 2 "the A/B cell's two panels"
expect_grep '<text class="tick"[^>]*>\+20%</text>' "$T/ab.html" "the deltas' axis in round percentages"
# The issue's axis: 349M of allocation had three ticks 349M/453M/557M; now 0 to a round top.
expect_grep '<text class="tick"[^>]*>400M</text>' "$T/s.html" "round ticks on the alloc_bytes axis"
finish
