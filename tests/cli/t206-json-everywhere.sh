#!/bin/sh
# Every verb a CI or a script reads has JSON (issue 43, item 6): ratchet --json is check's JSON of
# the session it measured, cell for cell, and --junit its JUnit, from the one judgement; measure,
# list, doctor and minheap --json each validate against their schema in docs/schema/. `--json -`
# leaves stdout to the JSON alone (the verb's account goes to stderr). The JUnit of an ok run has
# no skipped test case: a cell that is not gated is no test at all, only counted. A schema alone
# does not resolve its references (common.json), and docs/schema/README.md's script, run as
# written there, validates with the whole folder.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
export GCR_BASELINE_DIR="$T/baselines"
SCHEMAS="$TOP/docs/schema"
need_jsonschema
VALID=
valid() { VALID="$VALID $*"; }

B="$T/scripted"
make_script_build "$B" 01_steady 02_other
# 01_steady honours the heap limit of gcr.h (it needs 3 MiB), for minheap.
echo 3 >"$B/heap.01_steady"
BUILD_NAME=other make_script_build "$T/other" 01_steady 02_other
M="--size ci --warmup 1 --meters rusage,census"

# ---- measure --json: the session stored, counted and summarised per arm ------------------
# shellcheck disable=SC2086 # $M is words
expect_status 0 "$GCR" measure --build "$B" --rounds 3 $M --json "$T/measure.json"
valid "$T/measure.json"
expect_eq "$(jq -c '[.format, .session.id, .session.status, .counts]' "$T/measure.json")" \
	'["gcratchet-measure",1,"complete",{"runs":6,"warmup":2,"failed":0}]' \
	"measure's JSON: the session, its status and its runs"
expect_eq "$(jq -c '[.summary[] | [.label, [.probes[] | .probe, .runs, .ok]]]' "$T/measure.json")" \
	'[["scripted",["01_steady",3,3,"02_other",3,3]]]' "measure's summary: per arm, per probe"
expect_eq "$(jq '.summary[0].probes[0].metrics["census.alloc_bytes"].n' "$T/measure.json")" 3 \
	"each metric's median over the measured runs"
grep -q '^\[ *[0-9]*/[0-9]*\]' "$T/out" && pass || fail "measure --json FILE still prints its runs"
# Two builds (arms), JSON on stdout: nothing else there; the runs are told on stderr.
# shellcheck disable=SC2086
expect_status 0 "$GCR" measure --build "$B" --build "$T/other" --rounds 1 $M --json -
cp "$T/out" "$T/measure2.json"
valid "$T/measure2.json"
expect_eq "$(jq -c '[.session.id, [.summary[].position], .counts.runs]' "$T/measure2.json")" \
	'[2,[0,1],4]' "--json -: stdout is the JSON alone, both arms summarised"
expect_grep '^\[ *[0-9]+/[0-9]+\] ' "$T/err" "--json -: the runs go to stderr"
expect_grep '^session 2: ' "$T/err" "--json -: the outcome line goes to stderr"

# ---- ratchet --json is check --format json of its session -------------------------------
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session 1
expect_status 0 "$GCR" ratchet --build "$B" --json "$T/ratchet.json" --junit "$T/ratchet.xml"
expect_grep '^verdict: ok ' "$T/out" "ratchet --json FILE still prints its verdict"
session=$(jq .session "$T/ratchet.json")
expect_eq "$session" 3 "ratchet's JSON judges the session it measured"
expect_status 0 "$GCR" check --profile shared_ci --collector scripted --session "$session" --format json
cp "$T/out" "$T/check.json"
valid "$T/ratchet.json" "$T/check.json"
expect_eq "$(jq -S -c .cells "$T/ratchet.json")" "$(jq -S -c .cells "$T/check.json")" \
	"ratchet --json's cells are check --format json's, for the same session"
expect_eq "$(jq -c '[.format, .verdict]' "$T/ratchet.json")" '["gcratchet-check","ok"]' \
	"ratchet's JSON verdict"
# --json -: stdout holds the JSON alone, the account and the table go to stderr.
expect_status 0 "$GCR" ratchet --build "$B" --json -
expect_eq "$(jq -r '.format + " " + .verdict' "$T/out")" "gcratchet-check ok" \
	"ratchet --json -: stdout is check's JSON alone"
expect_grep '^verdict: ok ' "$T/err" "ratchet --json -: the verdict table goes to stderr"

# ---- JUnit of an ok run: no skipped test cases ------------------------------------------
gated=$(jq '[.cells[] | select(.verdict != "info")] | length' "$T/ratchet.json")
info=$(jq '[.cells[] | select(.verdict == "info")] | length' "$T/ratchet.json")
expect_eq "$([ "$info" -gt 0 ] && echo some)" some "the baseline has cells that are not gated ($info)"
if xmllint --noout "$T/ratchet.xml" 2>"$T/xmllint.err"; then pass; else
	fail "ratchet --junit is not valid XML: $(head -n 3 "$T/xmllint.err")"
fi
expect_eq "$(xmllint --xpath 'count(//skipped)' "$T/ratchet.xml")" 0 "no skipped test case in an ok run"
expect_eq "$(xmllint --xpath 'string(//testsuite/@skipped)' "$T/ratchet.xml")" 0 'skipped="0"'
expect_eq "$(xmllint --xpath 'count(//testcase)' "$T/ratchet.xml")" "$gated" \
	"a test case per gated cell"
expect_eq "$(xmllint --xpath 'string(//testsuite/@tests)' "$T/ratchet.xml")" "$gated" \
	"tests= counts the gated cells"
expect_eq "$(xmllint --xpath 'string(//property[@name="not_gated"]/@value)' "$T/ratchet.xml")" \
	"$info" "the cells that are not gated are counted as a property"
expect_status 0 "$GCR" check --profile shared_ci --collector scripted --session "$session" --format junit
expect_eq "$(xmllint --xpath 'count(//skipped)' "$T/out")" 0 "check --format junit: no skipped test case"
expect_eq "$(xmllint --xpath 'count(//testcase)' "$T/out")" "$gated" \
	"check --format junit has ratchet --junit's test cases"

# ---- list --json -------------------------------------------------------------------------
for what in probes collectors sessions metrics; do
	expect_status 0 "$GCR" list "$what" --json "$T/list-$what.json"
	valid "$T/list-$what.json"
	expect_eq "$(jq -r .list "$T/list-$what.json")" "$what" "list $what --json names its listing"
done
expect_eq "$(jq '[.items[].id]' -c "$T/list-sessions.json")" "[1,2,3,4]" "list sessions: every session"
expect_eq "$(jq -r '.items[1].builds | join(",")' "$T/list-sessions.json")" "scripted,other" \
	"list sessions: each session's builds"
expect_eq "$(jq -r '[.items[].metric] | index("census.alloc_bytes") != null' "$T/list-metrics.json")" \
	true "list metrics: census.alloc_bytes is a metric"
expect_eq "$(jq -r '.items[] | select(.metric == "census.alloc_bytes") | .bands.shared_ci.rule' \
	"$T/list-metrics.json")" exact "list metrics: a rule's class"
rows=$("$GCR" list metrics | awk 'NR > 1 && NF == 0 { exit } NR > 1' | wc -l)
expect_eq "$(jq '.items | length' "$T/list-metrics.json")" "$rows" "list metrics: a JSON item per row"
expect_status 0 "$GCR" list probes --json -
cp "$T/out" "$T/list-stdout.json"
valid "$T/list-stdout.json"
expect_grep '^probe +built for$' "$T/err" "list --json -: the table goes to stderr"
expect_status 2 "$GCR" list nosuch --json "$T/list-nosuch.json"
[ ! -e "$T/list-nosuch.json" ] && pass || fail "an unknown listing wrote JSON"

# ---- doctor --json -----------------------------------------------------------------------
# Whether this host can measure shared_ci is the host's; the exit status must be what the JSON
# says, and the same with the JSON on stdout.
"$GCR" doctor --json "$T/doctor.json" >"$T/doctor.out" 2>&1
st=$?
valid "$T/doctor.json"
can=$(jq -r .can_measure "$T/doctor.json")
if [ "$can" = true ]; then want=0; else want=2; fi
expect_eq "$st" "$want" "doctor exits as its JSON's can_measure says ($can)"
"$GCR" doctor --json - >"$T/doctor-stdout.json" 2>"$T/doctor.err"
expect_eq "$?" "$want" "doctor --json - exits as its JSON's can_measure says ($can)"
valid "$T/doctor-stdout.json"
expect_eq "$(jq '[.checks[] | select(.state == "missing")] | length' "$T/doctor.json")" \
	"$(jq .missing "$T/doctor.json")" "doctor's missing count is its missing checks"
expect_eq "$(jq -r '[.checks[].check] | index("valgrind Ir") != null' "$T/doctor.json")" true \
	"doctor's checks include the instruction meter"
expect_grep '^verdict: shared_ci can(not)? be measured here' "$T/doctor.err" \
	"doctor --json -: the lines go to stderr"

# ---- minheap --json ----------------------------------------------------------------------
expect_status 0 "$GCR" minheap --build "$B" --probes 01 --size ci --repeats 1 --json -
cp "$T/out" "$T/minheap.json"
valid "$T/minheap.json"
expect_eq "$(jq -c '[.results[] | .probe, .outcome, .min_heap_mb]' "$T/minheap.json")" \
	'["01_steady","found",3]' "minheap --json -: stdout is the search's answer alone"
expect_grep '^done in ' "$T/err" "minheap --json -: the table goes to stderr"
expect_status 0 "$GCR" minheap --build "$B" --probes 01 --size ci --repeats 1 --out "$T/mh-out.json"
valid "$T/mh-out.json"

# ---- every output against its schema, and drift refused ----------------------------------
# shellcheck disable=SC2086 # the list is words (the paths hold no space)
"$PY" "$TOP/tests/cli/schema-check.py" "$SCHEMAS" $VALID >"$T/schema.out" 2>&1
expect_eq "$?" 0 "every output valid against docs/schema"
for f in $VALID; do
	if grep -q "^$f: ok gcratchet-" "$T/schema.out"; then pass; else
		fail "$f is not valid: $(grep "^$f: " "$T/schema.out" | head -n 3)"
	fi
done
jq '.counts.extra = 1' "$T/measure.json" >"$T/drift-measure.json"
jq '.checks[0].state = "fine"' "$T/doctor.json" >"$T/drift-doctor.json"
jq '.items[0].builds = "all"' "$T/list-probes.json" >"$T/drift-list.json"
jq 'del(.items[0].bands)' "$T/list-metrics.json" >"$T/drift-metrics.json"
"$PY" "$TOP/tests/cli/schema-check.py" --invalid "$SCHEMAS" "$T/drift-measure.json" \
	"$T/drift-doctor.json" "$T/drift-list.json" "$T/drift-metrics.json" >"$T/drift.out" 2>&1
expect_eq "$?" 0 "every drifted output refused: $(grep ': ok ' "$T/drift.out")"

# ---- docs/schema/README.md: a schema alone does not resolve; its script does -------------
"$PY" - "$SCHEMAS/gcratchet-doctor.json" "$T/doctor.json" >"$T/alone.out" 2>&1 <<'PY'
import json, sys
import jsonschema
schema, doc = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
try:
    jsonschema.Draft202012Validator(schema).validate(doc)
    print("resolved alone")
except Exception as e:  # the error's type differs between releases
    print("unresolved:", e)
PY
expect_grep '^unresolved:.*common\.json' "$T/alone.out" "a schema alone does not resolve common.json"
awk '$0 == "<!-- snippet: validate.py -->" { found = 1; next }
	found == 1 && /^```python$/ { found = 2; next }
	found == 2 && /^```$/ { exit }
	found == 2 { print }' "$SCHEMAS/README.md" >"$T/validate.py"
[ -s "$T/validate.py" ] && pass || fail "docs/schema/README.md has no validate.py snippet"
for f in "$T/doctor.json" "$T/measure.json" "$T/ratchet.json" "$T/list-metrics.json"; do
	"$PY" "$T/validate.py" "$SCHEMAS" "$f" >"$T/snippet.out" 2>&1
	expect_eq "$?" 0 "README's script validates $(basename "$f"): $(tail -n 1 "$T/snippet.out")"
done
"$PY" "$T/validate.py" "$SCHEMAS" "$T/drift-doctor.json" >"$T/snippet.out" 2>&1
expect_eq "$?" 1 "README's script refuses a drifted file"
expect_grep "ValidationError: 'fine' is not one of" "$T/snippet.out"
finish
