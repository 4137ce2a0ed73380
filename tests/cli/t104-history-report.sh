#!/bin/sh
# needs: pg
# report --history (issue 14): the series history prints as an HTML page, one SVG trend line per
# host in commit order, the pinned baseline's value and band drawn across; a missing baseline
# or cell is said on the page and draws no band, never an error. Checked in headless Chromium
# as t098 checks the sweep page.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/lock" GCR_BASELINE_DIR="$T/baselines"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
chrome() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T/profile.XXXXXX")" "$@" 2>>"$T/chromium.log"
}
B="$T/scripted"
make_script_build "$B" 01_steady
commit() { # the build as if made from commit $1: another manifest, so another build
	jq -c --arg c "$1" '.git_commit = $c' "$B/manifest.json" >"$B/m.json" && mv "$B/m.json" "$B/manifest.json"
}
m() { # alloc_bytes $1, into database $2
	echo "$1" >"$B/alloc.01_steady"
	expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 2 --meters rusage,census --db "$2"
	sleep 1 # sessions are ordered by their start, which has one-second resolution
}
R="$GCR report --history --collector scripted --probe 01_steady --metric census.alloc_bytes"

# Two commits on this host, a third on another host (pushed in, as a fleet's database would).
commit aaaaaaaaaaaaaaaa
m 1000 "$GCR_DB"
commit bbbbbbbbbbbbbbbb
m 1100 "$GCR_DB"
commit cccccccccccccccc
m 1200 "$T/runner.db"
sqlite3 "$T/runner.db" "UPDATE hosts SET hostname = 'ci-<runner>-7', fingerprint = '00000000000000ff'"
expect_status 0 "$GCR" push --to "$GCR_DB" --db "$T/runner.db"

# No baseline pinned yet: the page says so and draws no band.
expect_status 0 $R --out "$T/none.html"
expect_grep "history of census.alloc_bytes of 01_steady on scripted \(3 sessions, no baseline band\)" \
	"$T/out" "the outcome line"
expect_grep "No shared_ci baseline of scripted is pinned" "$T/none.html" "the missing baseline is said"
expect_no_grep 'class="band"' "$T/none.html" "no band without a baseline"
expect_eq "$(grep -c '<polyline class="host"' "$T/none.html")" 2 "one line per host"
# Issue 30: each point says which host measured it, in its tooltip and in the table.
expect_grep '<title>cccccccccccc scripted@[0-9a-f]{6} session 3 on ci-&lt;runner&gt;-7: 1200 ' "$T/none.html" \
	"the pushed-in point's tooltip names its host"
expect_grep "<title>aaaaaaaaaaaa scripted@[0-9a-f]{6} session 1 on $(uname -n): 1000 " "$T/none.html" \
	"this host's point's tooltip names this host"
expect_grep '<tr><td class="l"><code>cccccccccccc</code></td><td>3</td><td class="l">[^<]*</td><td class="l">ci-&lt;runner&gt;-7</td>' \
	"$T/none.html" "the table's row names the point's host"

# Pinned from session 1 (1000): its value and band drawn across. alloc_bytes is exact (a band
# of 0, drawn as a line); the peak RSS band is 2% or 512 KiB, whichever is wider.
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session 1
BL="$GCR_BASELINE_DIR/shared_ci/scripted.json"
expect_status 0 $R --out "$T/exact.html"
expect_grep "3 sessions, baseline band" "$T/out" "the outcome line says the band is drawn"
expect_grep "Baseline $BL: 1000 &#177; 0 " "$T/exact.html" "the value and its allowance, formatted"
expect_grep '<rect class="band"' "$T/exact.html" "an exact cell's band"
expect_grep 'data-host="ci-&lt;runner&gt;-7"' "$T/exact.html" "the host's name escaped"
# Issue 43: each label names the build too (a planted build of one commit is another label).
expect_grep '>aaaaaaa <tspan class="build"[^>]*>scripted@[0-9a-f]{6}</tspan></text>.*>bbbbbbb <tspan.*>ccccccc <tspan' \
	"$T/exact.html" "commits labelled in order, each with its build"
expect_status 0 $R --metric rss.peak_bytes --out "$T/h.html"
expect_grep '<line class="baseline"' "$T/h.html" "the baseline's value"
band=$(sed -n 's/.*<rect class="band"[^>]* height="\([0-9.]*\)".*/\1/p' "$T/h.html")
expect_eq "$(awk -v h="${band:-0}" 'BEGIN { print (h > 5) ? "wide" : "thin " h }')" wide \
	"the RSS band has the height of its allowance"
# The page is the same on stdout.
expect_status 0 $R --metric rss.peak_bytes
expect_eq "$(cmp "$T/out" "$T/h.html" && echo same)" same "without --out the page goes to stdout"
# An ungated metric: its value drawn, no band, and why.
expect_status 0 $R --metric time.wall_ns --out "$T/info.html"
expect_grep "time.wall_ns is not gated \(info\): no band drawn" "$T/info.html" "an ungated cell"
expect_no_grep '<rect class="band"' "$T/info.html" "no band for it"
# A cell the file does not pin: said, no band, still a page.
jq '.cells |= map(select(.metric != "census.alloc_bytes"))' "$BL" >"$T/bl" && mv "$T/bl" "$BL"
expect_status 0 $R --out "$T/nocell.html"
expect_grep "$BL pins no cell for census.alloc_bytes of 01_steady: no band drawn" "$T/nocell.html" \
	"the missing cell is said"
expect_no_grep '<rect class="band"' "$T/nocell.html" "no band without a cell"
expect_status 0 $R --profile pinned_host --out "$T/other.html"
expect_grep "No pinned_host baseline of scripted is pinned" "$T/other.html" "--profile picks the file"

# A fleet's PostgreSQL database draws the same lines, and the page names it without a password.
pg_start
expect_status 0 "$GCR" push --to "$(pg_url fleet)"
expect_status 0 $R --metric rss.peak_bytes --db "$(pg_url fleet)" --out "$T/pg.html"
expect_grep "from postgresql://gcr@/fleet" "$T/pg.html" "the page names the store"
expect_eq "$(grep -o '<polyline class="host"[^>]*>' "$T/pg.html")" \
	"$(grep -o '<polyline class="host"[^>]*>' "$T/h.html")" "the same lines as from the SQLite file"

if [ -z "$CHROMIUM" ]; then
	fail "chromium is not installed (scripts/setup.sh --test installs it)"
else
	for page in h none; do
		chrome --dump-dom "file://$T/$page.html" >"$T/$page.dom"
		expect_eq "$(grep -o '<svg class="plot history"' "$T/$page.dom" | wc -l)" 1 "$page: one trend plot"
		expect_eq "$(grep -o '<polyline class="host"' "$T/$page.dom" | wc -l)" 2 "$page: a line per host in the DOM"
	done
	expect_grep '<rect class="band"' "$T/h.dom" "the band in the DOM"
	expect_grep "no band drawn" "$T/none.dom" "the missing baseline in the DOM"
	chrome --window-size=1000,700 --screenshot="$T/h.png" "file://$T/h.html" >/dev/null
	size=$(wc -c <"$T/h.png" 2>/dev/null || echo 0)
	expect_eq "$([ "$size" -gt 15000 ] && echo yes)" yes "h.png rendered ($size bytes)"
	if [ -n "${GCR_KEEP_SCREENSHOTS:-}" ]; then cp "$T/h.png" "$GCR_KEEP_SCREENSHOTS/history.png"; fi
fi

# Bad input names what was wrong.
expect_status 2 $R --size large
expect_grep "no session measured census.alloc_bytes of probe 01_steady" "$T/err" "nothing to draw"
expect_status 2 "$GCR" report --history --collector scripted --probe 01_steady
expect_grep "--probe and --metric are required" "$T/err" "required arguments"
expect_status 2 $R --session 1
expect_grep "not a session's options" "$T/err" "--history with --session"
expect_status 2 "$GCR" report --session 1 --metric census.alloc_bytes --html "$T/x.html"
expect_grep "--metric applies to --history only" "$T/err" "a history option without --history"
finish
