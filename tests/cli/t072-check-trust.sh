#!/bin/sh
# needs: asan
# Trust in check's verdict, and in every output it and ab write. Only a complete session
# judged against a baseline that gates something can pass; anything else is exit 2 with the
# reason on the first line. A probe's stderr (table pipes, markup, backticks, bytes that are
# not UTF-8) is escaped in every format, and every output stays valid UTF-8, XML and JSON.
# A session where a probe never succeeded draws its HTML page under the sanitizers. A lost
# $GITHUB_STEP_SUMMARY is said, not ignored.
. "$(dirname "$0")/lib.sh"
export GCR_BASELINE_DIR="$T/baselines"
GCR_ASAN=${GCR_ASAN:-$TOP/build-asan/gcratchet}
B="$T/scripted"
F="$T/baselines/shared_ci/scripted.json"
CHECK="$GCR check --profile shared_ci --collector scripted"
make_script_build "$B" 01_steady 02_loud
m() { # m STATUS [MEASURE-ARGS...]
	want=$1
	shift
	expect_status "$want" "$GCR" measure --build "$B" --size ci --rounds 2 --warmup 0 --meters rusage,census "$@"
}
latest() { sql "SELECT MAX(id) FROM sessions"; }

# first_line FORMAT PATTERN WHAT: the reason comes first. In JSON that is the first member
# after format and version ("verdict", then "reason"); in JUnit the comment right under the
# XML declaration, and an errored testcase.
first_line() {
	case "$1" in
	table | md) head -n 1 "$T/out" >"$T/first" ;;
	json) python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert list(d)[2:4] == ["verdict", "reason"] and d["verdict"] == "could_not_judge", list(d)
print("COULD NOT JUDGE: " + d["reason"])' "$T/out" >"$T/first" 2>&1 ;;
	junit) sed -n 2p "$T/out" >"$T/first"
		expect_grep '<testcase classname="gcratchet" name="session"><error message="COULD NOT JUDGE' "$T/out" ;;
	esac
	expect_grep "$2" "$T/first" "$3 ($1): the reason first"
}

# every_format WHAT PATTERN CHECK-ARGS...: exit 2 and the reason first in all four formats.
every_format() {
	what=$1 pattern=$2
	shift 2
	for fmt in table md json junit; do
		expect_status 2 $CHECK --format "$fmt" "$@"
		first_line "$fmt" "$pattern" "$what"
	done
	$CHECK "$@" >"$T/out" 2>&1
	expect_grep "^verdict: COULD NOT JUDGE" "$T/out" "$what: the verdict line"
	expect_no_grep "^verdict: ok" "$T/out" "$what: never ok"
}

# A baseline of 01_steady alone, then the healthy baseline of both probes.
m 0 --probes 01_steady
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session latest
mv "$F" "$T/only01.json"
m 0
healthy=$(latest)
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session latest
expect_status 0 $CHECK
expect_grep "^verdict: ok" "$T/out"

# ---- Item 3: a baseline that gates nothing, a session that measured none of its probes --
python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))
b["probes"], b["cells"] = {}, []
json.dump(b, open(sys.argv[2], "w"), indent=1)' "$F" "$T/empty.json"
expect_status 0 "$GCR" baseline validate "$T/empty.json"
every_format "empty baseline" "COULD NOT JUDGE.*the baseline gates nothing" --baseline "$T/empty.json"
expect_status 2 "$GCR" baseline update --profile shared_ci --collector scripted --session latest --out "$T/empty.json"
expect_grep "the baseline gates nothing" "$T/err"
expect_no_grep "every cell within its band" "$T/out" "update says nothing of cells it did not judge"
m 0 --probes 02_loud
every_format "no probe measured" "COULD NOT JUDGE.*measured none of the baseline.*s 1 probe at size ci" \
	--baseline "$T/only01.json" --session "$(latest)"

# ---- Item 4: only a complete session can pass -------------------------------------------
for status in interrupted incomplete running abandoned; do
	# This shell's pid: a running session whose process is alive reads as running, not abandoned.
	sql "UPDATE sessions SET status='$status', pid=$$ WHERE id=$healthy"
	every_format "$status session" "COULD NOT JUDGE.*session $healthy is $status: only a complete session can pass" \
		--session "$healthy"
	expect_status 2 "$GCR" baseline update --profile shared_ci --collector scripted --session "$healthy"
	expect_grep "session $healthy is $status" "$T/err"
done
sql "UPDATE sessions SET status='complete' WHERE id=$healthy"
expect_status 0 $CHECK --session "$healthy"

# ---- Items 13 and 14: a probe's stderr in every format -----------------------------------
cat >"$B/02_loud" <<'SCRIPT'
#!/bin/sh
printf '| <script>alert(1)</script> `x` \377\376 ** [l](u)\n' >&2
exit 3
SCRIPT
seal_manifest "$B"
m 2
loud=$(latest)
expect_eq "$(sql "SELECT COUNT(*) FROM runs WHERE session_id=$loud AND probe='02_loud' AND detail LIKE '%<script>%'")" 2 "the reason reached the store"

# valid_md FILE WHAT: no markup, every table row exactly eight cells (UTF-8 is checked apart).
valid_md() {
	python3 -c 'import re, sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
assert "<script" not in text, "raw markup"
rows = [l for l in text.splitlines() if l.startswith("|")]
assert rows, "no table"
for l in rows:
    cells = re.split(r"(?<!\\)\|", l)[1:-1]
    assert len(cells) == 8, (len(cells), l)
    assert "`" not in l.replace("\\`", ""), l
print(len(rows), "rows")' "$1" >"$T/py" 2>&1
	expect_eq "$?" 0 "$2: $(tail -n 1 "$T/py")"
}
expect_status 2 $CHECK --format md
valid_md "$T/out" "check --format md"
iconv -f UTF-8 -t UTF-8 "$T/out" >/dev/null 2>&1
expect_eq "$?" 0 "check --format md is valid UTF-8"
expect_grep '02_loud .*COULD NOT JUDGE: 2 of 2 timed runs failed \(exited 3: \\\| &lt;script&gt;alert\(1\)&lt;/script&gt; \\`x\\`' "$T/out"
GITHUB_STEP_SUMMARY="$T/summary.md" expect_status 2 $CHECK
valid_md "$T/summary.md" "\$GITHUB_STEP_SUMMARY"
iconv -f UTF-8 -t UTF-8 "$T/summary.md" >/dev/null 2>&1
expect_eq "$?" 0 "\$GITHUB_STEP_SUMMARY is valid UTF-8"

expect_status 2 $CHECK --format junit
xmllint --noout "$T/out" 2>"$T/xml"
expect_eq "$?" 0 "check --format junit is valid XML: $(head -n 1 "$T/xml")"
expect_status 2 $CHECK --format json
python3 -m json.tool "$T/out" >/dev/null 2>"$T/py"
expect_eq "$?" 0 "check --format json is valid JSON: $(tail -n 1 "$T/py")"
expect_status 2 $CHECK
iconv -f UTF-8 -t UTF-8 "$T/out" >/dev/null 2>&1
expect_eq "$?" 0 "the check table is valid UTF-8"
expect_status 0 "$GCR" export --session "$loud" --out "$T/export.json"
python3 -m json.tool "$T/export.json" >/dev/null 2>"$T/py"
expect_eq "$?" 0 "export is valid JSON: $(tail -n 1 "$T/py")"

# ab's Markdown: the manifest's git commit is escaped like every other field.
E="$T/evil"
BUILD_NAME=evil make_script_build "$E" 01_steady
sed -i 's/"git_commit":"none"/"git_commit":"<b>|`x`<\/b>"/' "$E/manifest.json"
expect_status 0 "$GCR" measure --build "$B" --build "$E" --probes 01_steady --size ci --rounds 2 --warmup 0 --meters rusage,census
expect_status 0 "$GCR" report --session "$(latest)" --md "$T/ab.md"
expect_no_grep "<b>" "$T/ab.md" "no markup from the git commit"
expect_grep 'evil \(scripted 1\.0, &lt;b&gt;\\\|\\`x\\`&lt;/b&gt;\)' "$T/ab.md"

# ---- Item 15: the HTML page of a session where a probe never succeeded, sanitized --------
if [ -x "$GCR_ASAN" ]; then
	expect_status 0 "$GCR_ASAN" report --session "$loud" --html "$T/loud.html"
	expect_no_grep "runtime error|AddressSanitizer" "$T/err" "no sanitizer report"
	xmllint --html --noout "$T/loud.html" 2>/dev/null
	expect_grep "02_loud" "$T/loud.html"
else
	fail "$GCR_ASAN is missing: make asan"
fi

# ---- $GITHUB_STEP_SUMMARY that cannot be written is an output lost, said as ab says it ---
GITHUB_STEP_SUMMARY="$T/no/such/folder/summary.md" expect_status 2 $CHECK --session "$healthy"
expect_grep "GITHUB_STEP_SUMMARY=$T/no/such/folder/summary.md: No such file or directory" "$T/err"
finish
