#!/bin/sh
# needs: pg
# report --site (issue 43, item 4): the whole store as a static site — an index of every
# collector x probe x gated metric, regressions first, each row linking to its trend page and
# its collector's check page — and trend plots that show a +5% step: the axis spans the data
# and the band, not zero; the points beyond the band are the ones marked; a planted build of a
# commit has a label of its own. Checked in headless Chromium when it is installed.
. "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
chrome() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T/profile.XXXXXX")" "$@" 2>>"$T/chromium.log"
}
# 3 collectors x 5 probes x 8 commits: beta's 05 allocates 5% more from commit 6 on; alpha's 01
# has a planted build of commit 7 that allocates 5% more.
STEP=6 expect_status 0 sh "$TOP/tests/bench/site-store.sh" "$T/fleet" 3 5 8
export GCR_DB="$T/fleet/results.db" GCR_BASELINE_DIR="$T/fleet/baselines"
S="$T/site"
expect_status 0 "$GCR" report --site "$S"
expect_grep "site of 3 collectors, 45 rows \(45 trend pages, 3 check pages\): $S/index.html" "$T/out" \
	"the outcome line"

# The files, and every link between them resolves to one of them (relative, nothing fetched).
for f in index.html check-alpha.html check-beta.html check-gamma.html \
	trend-beta--05_probe05--census.alloc_bytes.html trend-alpha--01_probe01--census.alloc_bytes.html; do
	expect_eq "$([ -s "$S/$f" ] && echo yes)" yes "$f written"
done
expect_eq "$(ls "$S" | wc -l)" 49 "index, 3 check pages and 45 trend pages"
grep -oh 'href="[^"]*"' "$S"/index.html "$S"/trend-*.html | sort -u | sed 's/^href="//; s/"$//' >"$T/links"
expect_eq "$(grep -c . "$T/links")" 49 "the index links every trend page and check page; trend pages link back"
missing=$(while IFS= read -r l; do [ -f "$S/$l" ] || echo "$l"; done <"$T/links")
expect_eq "$missing" "" "every link resolves to a file of the site"
expect_no_grep '(src|href)="(https?:)?//' "$S/index.html" "nothing fetched from the network"

# Regressions first: the one regressed cell leads, and no regressed row follows another.
grep -o '<tr class="cell [a-z]*"><td class="l [a-z]*">[^<]*</td><td class="l">[^<]*</td><td class="l">[^<]*</td><td class="l">[^<]*<' \
	"$S/index.html" | sed 's/<$//; s/<[^>]*>/ /g; s/  */ /g; s/^ //; s/ $//' >"$T/rows"
expect_eq "$(head -n 1 "$T/rows")" "REGRESSED beta 05_probe05 census.alloc_bytes" "the regression leads"
expect_eq "$(grep -c '^REGRESSED' "$T/rows")" 1 "one regressed row"
expect_eq "$(grep -c '^ok' "$T/rows")" 44 "the rest ok"
expect_grep 'class="l bad"><a class="check" href="check-beta.html">REGRESSED</a>' "$S/index.html" \
	"beta's check is REGRESSED, linked"
expect_grep 'id="verdict">verdict: REGRESSION' "$S/check-beta.html" "beta's check page says so"

# The trend of the step: the axis starts near the data, not at 0; the points beyond the band
# are exactly the sessions whose figure moved.
TR="$S/trend-beta--05_probe05--census.alloc_bytes.html"
first_tick=$(grep -o '<text class="tick"[^>]*>[^<]*</text>' "$TR" | head -n 1 | sed 's/<[^>]*>//g')
expect_eq "$(case $first_tick in 0 | 0%) echo zero ;; *) echo data ;; esac)" data \
	"the step's axis starts at the data ($first_tick), not at 0"
moved() { # collector probe: the sessions whose census.alloc_bytes differs from the first one's
	sql "SELECT DISTINCT r.session_id FROM runs r JOIN samples x ON x.run_id = r.id
	JOIN builds b ON b.id = r.build_id WHERE b.collector = '$1' AND r.probe = '$2'
	AND x.metric = 'census.alloc_bytes' AND x.value != (SELECT x2.value FROM runs r2
	JOIN samples x2 ON x2.run_id = r2.id JOIN builds b2 ON b2.id = r2.build_id
	WHERE b2.collector = '$1' AND r2.probe = '$2' AND x2.metric = 'census.alloc_bytes'
	ORDER BY r2.session_id LIMIT 1) ORDER BY 1"
}
marked() { grep -o '<circle class="oob bad" data-session="[0-9]*"' "$1" | grep -o '[0-9]*' | sort -n; }
expect_eq "$(marked "$TR" | tr '\n' ' ')" "$(moved beta 05_probe05 | tr '\n' ' ')" \
	"the ringed points are the sessions after the step"
expect_eq "$(marked "$TR" | wc -l)" 3 "three commits after the step"
expect_grep '3 points beyond the band' "$TR" "and listed in words"
expect_grep '\(\+5\.00% of the baseline\): beyond the allowance on the side check fails' "$TR" \
	"each with its percent"
# The planted build: one point of alpha's 01 beyond the band, labelled apart from its commit's
# other build.
TA="$S/trend-alpha--01_probe01--census.alloc_bytes.html"
expect_eq "$(marked "$TA" | tr '\n' ' ')" "$(moved alpha 01_probe01 | tr '\n' ' ')" \
	"the planted build's point is the one marked"
plant_commit=$(sql "SELECT substr(git_commit, 1, 7) FROM builds b JOIN session_builds sb ON sb.build_id = b.id
	WHERE sb.session_id = $(moved alpha 01_probe01)")
grep -o ">$plant_commit <tspan class=\"build\"[^>]*>[^<]*<" "$TA" | sed 's/.*>//; s/<$//' | sort -u >"$T/labels"
expect_eq "$(wc -l <"$T/labels")" 2 "two builds of commit $plant_commit, two labels"
expect_eq "$(grep -c '^alpha@[0-9a-f]\{6\}$' "$T/labels")" 2 "each labelled by name and manifest hash"
# A sparkline per row; the regressed row's marks its points beyond the band.
expect_eq "$(grep -o '<svg class="spark"' "$S/index.html" | wc -l)" 45 "a sparkline per row"
expect_eq "$(grep '<tr class="cell bad">' "$S/index.html" | grep -o '<circle class="oob bad"' | wc -l)" 3 \
	"the regressed row's sparkline marks the step"

# --history draws the same page; --zero-axis draws it from 0.
H="$GCR report --history --collector beta --probe 05 --metric census.alloc_bytes"
expect_status 0 $H --out "$T/h.html"
expect_eq "$(marked "$T/h.html" | tr '\n' ' ')" "$(marked "$TR" | tr '\n' ' ')" "report --history marks the same points"
expect_status 0 $H --zero-axis --out "$T/zero.html"
expect_eq "$(grep -o '<text class="tick"[^>]*>[^<]*</text>' "$T/zero.html" | head -n 1 | sed 's/<[^>]*>//g')" 0 \
	"--zero-axis starts at 0"

# The fleet's PostgreSQL gives the same site.
pg_start
expect_status 0 "$GCR" push --to "$(pg_url fleet)"
expect_status 0 "$GCR" report --site "$T/pgsite" --db "$(pg_url fleet)"
grep -o '<tr class="cell [a-z]*"><td class="l [a-z]*">[^<]*</td><td class="l">[^<]*</td><td class="l">[^<]*</td><td class="l">[^<]*<' \
	"$T/pgsite/index.html" | sed 's/<$//; s/<[^>]*>/ /g; s/  */ /g; s/^ //; s/ $//' >"$T/pgrows"
expect_eq "$(cmp -s "$T/rows" "$T/pgrows" && echo same)" same "the same rows, in the same order"
expect_grep "from postgresql://gcr@/fleet" "$T/pgsite/index.html" "the index names the store, no password"

# A collector without a baseline is one row that says so; one whose file does not load could
# not be judged, and sorts before the cells that are ok.
cp -r "$T/fleet/baselines" "$T/partial"
rm "$T/partial/shared_ci/gamma.json"
echo '{"format":' >"$T/partial/shared_ci/alpha.json"
expect_status 0 env GCR_BASELINE_DIR="$T/partial" "$GCR" report --site "$T/psite"
grep -o '<tr class="cell [a-z]*"><td class="l [a-z]*">[^<]*</td><td class="l">[^<]*<' "$T/psite/index.html" |
	sed 's/<$//; s/<[^>]*>/ /g; s/  */ /g; s/^ //; s/ $//' >"$T/prows"
expect_eq "$(head -n 3 "$T/prows" | tr '\n' ,)" "REGRESSED beta,could not judge alpha,no baseline gamma," \
	"regressed, then a baseline that does not load, then none"
expect_grep 'alpha.json:[0-9]+:[0-9]+: .*not valid JSON' "$T/psite/index.html" "the broken file is named"
expect_grep 'pin one with gcratchet baseline pin --profile shared_ci --collector gamma' "$T/psite/index.html" \
	"the missing one says how to pin it"

# Errors name what is wrong.
: >"$T/afile"
expect_status 2 "$GCR" report --site "$T/afile"
expect_grep "report: --site $T/afile: not a directory" "$T/err" "a file is no site directory"
expect_status 2 "$GCR" report --site "$T/afile/sub"
expect_grep "report: --site $T/afile/sub: cannot make the directory" "$T/err" "a directory that cannot be made"
sqlite3 "$GCR_DB" .schema | grep -v '^CREATE TABLE sqlite_' | sqlite3 "$T/empty.db"
sqlite3 "$T/empty.db" "ATTACH '$GCR_DB' AS f; INSERT INTO meta SELECT * FROM f.meta"
expect_status 2 "$GCR" report --site "$T/emptysite" --db "$T/empty.db"
expect_grep "$T/empty.db: no session stored, nothing to publish" "$T/err" "an empty store, named"
expect_status 2 "$GCR" report --site "$T/x" --collector beta
expect_grep "--collector does not apply" "$T/err" "a cell's option with --site"
expect_status 2 "$GCR" report --site "$T/x" --profile shared_cl
expect_grep "shared_ci" "$T/err" "a mistyped profile, with the nearest"

if [ -z "$CHROMIUM" ]; then
	skip "chromium is not installed (scripts/setup.sh --test installs it): the site is not looked at"
else
	chrome --dump-dom "file://$S/index.html" >"$T/index.dom"
	expect_eq "$(grep -o '<svg class="spark"' "$T/index.dom" | wc -l)" 45 "the sparklines in the DOM"
	chrome --dump-dom "file://$TR" >"$T/trend.dom"
	expect_eq "$(grep -o '<circle class="oob bad"' "$T/trend.dom" | wc -l)" 3 "the rings in the DOM"
	for page in index trend; do
		f=$S/index.html
		[ $page = trend ] && f=$TR
		chrome --window-size=1100,900 --screenshot="$T/$page.png" "file://$f" >/dev/null
		size=$(wc -c <"$T/$page.png" 2>/dev/null || echo 0)
		expect_eq "$([ "$size" -gt 15000 ] && echo yes)" yes "$page.png rendered ($size bytes)"
		if [ -n "${GCR_KEEP_SCREENSHOTS:-}" ]; then cp "$T/$page.png" "$GCR_KEEP_SCREENSHOTS/site-$page.png"; fi
	done
fi
finish
