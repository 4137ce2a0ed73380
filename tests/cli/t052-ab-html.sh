#!/bin/sh
# The HTML reports render in headless Chromium: one plot (svg) per cell, for an A/B session
# and for a one-build session, and every name on the page is escaped (build and probe names
# come from manifests and file names the harness does not control).
. "$(dirname "$0")/lib.sh"
# exported SESSION FILTER — a fact of a stored session, read back through export.
exported() { "$GCR" export --session "$1" | jq -r "$2"; }

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	fail "chromium is not installed (scripts/setup.sh --test installs it)"
	finish
fi
# One profile per call, nothing from the network, no first-run work.
chrome() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T/profile.XXXXXX")" "$@" 2>>"$T/chromium.log"
}
# plots FILE.html JSON-COUNT what: the rendered page holds exactly that many plots.
plots() {
	chrome --dump-dom "file://$1" >"$1.dom"
	got=$(grep -o '<svg class="plot"' "$1.dom" | wc -l)
	expect_eq "$got" "$2" "$3: plots in the rendered page"
	expect_eq "$([ "$got" -gt 0 ] && echo yes)" yes "$3: at least one plot"
}
shot() { # FILE.html: a screenshot that is a real image
	chrome --window-size=1280,1800 --screenshot="$1.png" "file://$1" >/dev/null
	size=$(wc -c <"$1.png" 2>/dev/null || echo 0)
	expect_eq "$([ "$size" -gt 20000 ] && echo yes)" yes "$1.png rendered ($size bytes)"
	if [ -n "${GCR_KEEP_SCREENSHOTS:-}" ]; then cp "$1.png" "$GCR_KEEP_SCREENSHOTS/"; fi
}
cells() { python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["comparison"]["cells"]))' "$1"; }

# ---- A real A/B page: marksweep against epsilon, one probe --------------------------------
# Judged as one design, so that the census (exact) makes the verdict certain: across designs
# only noisy costs would decide it, at 6 rounds.
expect_status 1 "$GCR" ab marksweep epsilon --probes 01 --rounds 6 --meters rusage,census \
	--no-across --seed 52 --html "$T/real.html" --json "$T/real.json"
n=$(cells "$T/real.json")
plots "$T/real.html" "$n" "marksweep vs epsilon"
expect_no_grep "(src|href)=[\"']?https?:|url\(|@import" "$T/real.html" "the page loads nothing from outside"
expect_no_grep "<script|<link|<img" "$T/real.html" "the page is self-contained"
shot "$T/real.html"

# ---- Names with markup in them: builds and a probe -------------------------------------
evil_build() { # dir name
	mkdir -p "$1"
	probe='01_evil<script>&x'
	printf '{"format":"gcratchet-build","version":1,"abi":1,"name":"%s","collector":"scripted","collector_version":"1.0","git_commit":"none","probes":[{"name":"%s","file":"%s","sha256":"-"}]}\n' \
		"$2" "$probe" "$probe" >"$1/manifest.json"
	cat >"$1/$probe" <<'SCRIPT'
#!/bin/sh
echo "checksum 0x00000000000000aa"
[ -n "${GCR_CENSUS_FD:-}" ] && printf '{"format":"gcr-census","version":1,"probe":"01_evil<script>&x","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":1000,"major_collections":2}}' "$1" >&3
exit 0
SCRIPT
	chmod +x "$1/$probe"
	seal_manifest "$1"
}
evil_build "$T/base" 'base & <i>co</i>'
evil_build "$T/fix" 'fix<script>alert(1)</script>'
"$GCR" ab "$T/base" "$T/fix" --rounds 6 --meters rusage,census --seed 7 \
	--html "$T/evil.html" --json "$T/evil.json" >"$T/out" 2>"$T/err"
expect_eq "$(exported 2 '[.runs[] | select((.probe | startswith("01_evil")) and .status == "ok")] | length')" 14 "the scripted probes ran (7 rounds x 2)"
n=$(cells "$T/evil.json")
plots "$T/evil.html" "$n" "names with markup"
expect_no_grep "<script" "$T/evil.html" "no script element in the page source"
expect_no_grep "<script" "$T/evil.html.dom" "no script element in the rendered page"
expect_no_grep "<i>co" "$T/evil.html.dom" "no markup from a build name"
expect_grep "fix&lt;script&gt;alert\(1\)&lt;/script&gt;" "$T/evil.html.dom" "the FIX name shown escaped"
expect_grep "base &amp; &lt;i&gt;co&lt;/i&gt;" "$T/evil.html.dom" "the BASE name shown escaped"
expect_grep "01_evil&lt;script&gt;&amp;x" "$T/evil.html.dom" "the probe name shown escaped"
# The Markdown for a PR comment escapes them too (GitHub renders inline HTML).
"$GCR" report --session 2 --md "$T/evil.md" >/dev/null 2>&1
expect_no_grep "<script|<i>" "$T/evil.md" "no markup in the Markdown"

# ---- A one-build session: report --html draws every build's samples by round ----------
expect_status 0 "$GCR" measure --collector marksweep --probes 01 --size ci --rounds 3 \
	--meters rusage,census
session=$("$GCR" export | jq -r .session.id)
expect_status 0 "$GCR" report --session "$session" --html "$T/one.html"
n=$(exported "$session" '[.runs[] | select((.warmup | not) and .status == "ok") | .probe as $p | .samples | keys[] | "\($p) \(.)"] | unique | length')
plots "$T/one.html" "$n" "one-build session"
shot "$T/one.html"
finish
