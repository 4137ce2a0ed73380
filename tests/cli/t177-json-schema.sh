#!/bin/sh
# needs: valgrind
# Every JSON output against its schema in docs/schema/ (issue 29 item 6), with Debian's
# python3-jsonschema: export, report's session summary, check, ab, history, minheap, sweep,
# bisect and explain, each from a real small session, failed runs and searches included. A key
# added or a required one removed fails the check. Outputs list probes by number, then metric,
# whatever the seed shuffled or --probes named first; export --format csv has one row per
# sample, quoted as RFC 4180 says.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
export GCR_BASELINE_DIR="$T/baselines"
SCHEMAS="$TOP/docs/schema"
# The python3 that has jsonschema: the one on PATH, else Debian's own.
need_jsonschema
# valid FILE...: each is to be valid against the schema its format names; check_all checks
# them all at the end, in one run of python (its start costs more than a check).
VALID=
valid() { VALID="$VALID $*"; }
# invalid FILE: the file must be refused, with errors; check_all checks these too.
INVALID=
invalid() { INVALID="$INVALID $1"; }
check_all() {
	# shellcheck disable=SC2086 # the lists are words (the paths hold no space)
	"$PY" "$TOP/tests/cli/schema-check.py" "$SCHEMAS" $VALID >"$T/schema.out" 2>&1
	got=$?
	expect_eq "$got" 0 "every output valid against docs/schema"
	[ "$got" -eq 0 ] || sed 's/^/  | /' "$T/schema.out" | grep -v ': ok ' | head -n 30 >&2
	for f in $VALID; do
		if grep -q "^$f: ok gcratchet-" "$T/schema.out"; then pass; else fail "$f is not valid (above)"; fi
	done
	# shellcheck disable=SC2086
	"$PY" "$TOP/tests/cli/schema-check.py" --invalid "$SCHEMAS" $INVALID >"$T/drift.out" 2>&1
	expect_eq "$?" 0 "every drifted output refused"
	for f in $INVALID; do
		if grep -q "^$f: ok " "$T/drift.out"; then fail "$f is not refused"; else pass; fi
	done
}

B="$T/scripted"
# A label with a comma and quotes, for the CSV's quoting.
BUILD_NAME='odd, \"quoted\" build' make_script_build "$B" 01_steady 02_other 03_third
# 01_steady honours the heap limit of gcr.h (it needs 3 MiB), for minheap and sweep.
echo 3 >"$B/heap.01_steady"
M="--size ci --warmup 1 --meters rusage,census"

# ---- Two sessions of the same probes, other seeds, other --probes order ----------------------
# shellcheck disable=SC2086 # $M is words
expect_status 0 "$GCR" measure --build "$B" --rounds 3 $M --probes 03,01,02 --seed 1
# shellcheck disable=SC2086
expect_status 0 "$GCR" measure --build "$B" --rounds 3 $M --probes 02,03,01 --seed 7
expect_status 0 "$GCR" export --session 1 --out "$T/export1.json"
expect_status 0 "$GCR" export --session 2 --out "$T/export2.json"
expect_status 0 "$GCR" report --session 1 --json "$T/summary1.json"
expect_status 0 "$GCR" report --session 2 --json "$T/summary2.json"
valid "$T/export1.json" "$T/export2.json" "$T/summary1.json" "$T/summary2.json"
# The runs by probe number, arm, kind and round; not as the seed shuffled them.
order() { jq -c "$1" "$2"; }
runs='[.runs[] | [.probe, .arm, .kind, .round, .warmup]]'
expect_eq "$(order "$runs" "$T/export1.json")" "$(order "$runs" "$T/export2.json")" \
	"export's runs in one order whatever the seed"
expect_eq "$(order '[.runs[].probe] | . == sort' "$T/export1.json")" true \
	"export's runs by probe number"
expect_eq "$(order '[.runs[] | .samples | keys_unsorted == (keys | sort)] | all' "$T/export1.json")" \
	true "each run's samples by metric name"
expect_eq "$(order '[.summary.probes[].probe]' "$T/summary2.json")" \
	'["01_steady","02_other","03_third"]' "report's summary by probe number"
expect_eq "$(order '.session.probes' "$T/summary2.json")" '["02_other","03_third","01_steady"]' \
	"the session keeps the plan's order"

# ---- CSV: one row per sample, a header, RFC 4180 quoting ------------------------------------
expect_status 0 "$GCR" export --session 1 --format csv --out "$T/s1.csv"
expect_status 0 "$GCR" export --session 2 --format csv --out "$T/s2.csv"
expect_eq "$(head -n 1 "$T/s1.csv")" \
	"session,run,seq,round,warmup,kind,status,arm,label,build,collector,probe,size,metric,unit,value" \
	"the CSV's header row"
"$PY" - "$T/s1.csv" "$T/export1.json" >"$T/csv.out" 2>&1 <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
doc = json.load(open(sys.argv[2], encoding="utf-8"))
want = [(r["id"], r["probe"], m, v) for r in doc["runs"] for m, v in r["samples"].items()]
got = [(int(r["run"]), r["probe"], r["metric"], float(r["value"])) for r in rows]
print("rows", len(rows), "samples", len(want))
print("same", got == [(i, p, m, float(v)) for i, p, m, v in want])
print("label", rows[0]["label"])
print("warmup", sorted({r["warmup"] for r in rows}))
print("units", sorted({r["unit"] for r in rows}))
PY
expect_grep '^rows ([0-9]+) samples \1$' "$T/csv.out" "a CSV row per sample of the JSON export"
expect_grep '^same True$' "$T/csv.out" "the CSV's rows are the JSON's samples, in its order"
expect_grep '^label odd, "quoted" build$' "$T/csv.out" "a label with a comma and quotes reads back whole"
expect_grep "^warmup \['false', 'true'\]$" "$T/csv.out" "warm-up runs are flagged"
expect_grep "^units \['bytes', 'count', 'ns'\]$" "$T/csv.out" "each metric's unit"
expect_grep '^1,[0-9]+,[0-9]+,[0-9]+,(true|false),timed,ok,0,"odd, ""quoted"" build",' "$T/s1.csv" \
	"quoted as RFC 4180 says"
# Without the columns that differ by session (session, run, seq, value): the same rows in order.
strip() { "$PY" -c 'import csv,sys
for r in csv.reader(open(sys.argv[1], newline="")): print(r[3:-1])' "$1"; }
expect_eq "$(strip "$T/s1.csv")" "$(strip "$T/s2.csv")" "the CSV's rows in one order whatever the seed"
expect_status 2 "$GCR" export --format xml
expect_grep 'must be json or csv, got "xml"' "$T/err"

# ---- check, ab, history ----------------------------------------------------------------------
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session 1
expect_status 0 "$GCR" check --profile shared_ci --collector scripted --session 1 --format json
cp "$T/out" "$T/check-ok.json"
echo 1100 >"$B/alloc.02_other"
# shellcheck disable=SC2086
expect_status 0 "$GCR" measure --build "$B" --rounds 2 $M --seed 3
rm "$B/alloc.02_other"
expect_status 1 "$GCR" check --profile shared_ci --collector scripted --format json --all
cp "$T/out" "$T/check-regressed.json"
valid "$T/check-ok.json" "$T/check-regressed.json"
expect_eq "$(jq -c '[.cells[].probe] == ([.cells[].probe] | sort)' "$T/check-regressed.json")" \
	true "check's cells by probe number"
# Two A/B sessions, other seeds and --probes orders: their cells in one order.
# shellcheck disable=SC2086
expect_ab_outcome "$T/ab1.json" "$GCR" ab "$B" "$B" --probes 03,01,02 --rounds 3 $M --seed 11 \
	--json "$T/ab1.json"
# shellcheck disable=SC2086
expect_ab_outcome "$T/ab2.json" "$GCR" ab "$B" "$B" --probes 02,03,01 --rounds 3 $M --seed 12 \
	--json "$T/ab2.json"
valid "$T/ab1.json" "$T/ab2.json"
cells='[.comparison.cells[] | [.probe, .metric]]'
expect_eq "$(order "$cells" "$T/ab1.json")" "$(order "$cells" "$T/ab2.json")" \
	"ab's cells in one order whatever the seed and --probes"
expect_eq "$(order '[.comparison.cells[].probe] | . == sort' "$T/ab2.json")" true \
	"ab's cells by probe number"
expect_eq "$(order '[.comparison.identity.probes[].probe]' "$T/ab2.json")" \
	'["01_steady","02_other","03_third"]' "ab's identity by probe number"
expect_status 0 "$GCR" history --collector scripted --probe 02 --metric census.alloc_bytes \
	--format json
cp "$T/out" "$T/history.json"
valid "$T/history.json"

# ---- minheap and sweep, probes named out of order ------------------------------------------
expect_status 0 "$GCR" minheap --build "$B" --probes 02,01 --size ci --repeats 1 --out "$T/mh.json"
valid "$T/mh.json"
expect_eq "$(order '[.results[].probe]' "$T/mh.json")" '["01_steady","02_other"]' \
	"minheap's results by probe number"
expect_status 0 "$GCR" sweep --build "$B" --probes 02,01 --factors 1,2 --repeats 1 \
	--size ci --meters rusage,census --rounds 1
expect_status 0 "$GCR" report --session latest --json "$T/sweep.json"
valid "$T/sweep.json"
expect_eq "$(order '[.probes[].probe]' "$T/sweep.json")" '["01_steady","02_other"]' \
	"sweep's probes by probe number"

# ---- bisect over a scripted history (bisect-repo.sh) -----------------------------------------
. "$TOP/tests/cli/bisect-repo.sh"
S="$T/bisect-repo"
script_repo "$S"
script_commit "$S" 1
script_commit "$S" 2
script_commit "$S" 3 alloc-02_steady.txt=2000
script_commit "$S" 4
expect_status 0 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good HEAD~3 --bad HEAD \
	--probe 01,02 --metric census.alloc_bytes --cache "$T/bisect-cache" --json "$T/bisect.json"
valid "$T/bisect.json"

# ---- Failures are outputs too: a crash, a bad census, a search that found nothing ------------
F="$T/failing"
make_script_build "$F" 01_steady 02_other
M1="--size ci --warmup 0 --meters rusage,census --rounds 2"
# shellcheck disable=SC2086
expect_status 0 "$GCR" measure --build "$F" $M1 --db "$T/fail.db"
FB="env GCR_BASELINE_DIR=$T/fail-baselines GCR_DB=$T/fail.db"
# shellcheck disable=SC2086 # $FB is words
expect_status 0 $FB "$GCR" baseline pin --profile shared_ci --collector scripted --session 1
echo crash >"$F/mode.02_other"
# shellcheck disable=SC2086
expect_status 2 "$GCR" ab "$F" "$F" $M1 --db "$T/fail.db" --json "$T/ab-crash.json"
echo badcensus >"$F/mode.02_other"
# shellcheck disable=SC2086
expect_status 2 "$GCR" measure --build "$F" $M1 --db "$T/fail.db"
# shellcheck disable=SC2086
expect_status 2 $FB "$GCR" check --profile shared_ci --collector scripted --format json
cp "$T/out" "$T/check-unjudged.json"
expect_status 0 "$GCR" export --db "$T/fail.db" --out "$T/export-failed.json"
expect_status 2 "$GCR" minheap --build "$F" --probes 02 --size ci --repeats 1 --db "$T/fail.db" \
	--out "$T/mh-failed.json"
valid "$T/ab-crash.json" "$T/check-unjudged.json" "$T/export-failed.json" "$T/mh-failed.json"
expect_eq "$(jq -r '.verdict' "$T/check-unjudged.json")" could_not_judge "check's unjudged JSON"
expect_eq "$(jq -r '[.runs[].status] | unique | join(",")' "$T/export-failed.json")" \
	"bad_census,ok" "the export's failed runs were checked"
expect_eq "$(jq -r '.results[0].outcome' "$T/mh-failed.json")" failed "minheap's failed search"

# ---- A real collector's pause log, Ir by function, and explain -------------------------------
export GCR_DB="$T/real.db"
# Two designs, judged on their exact Ir: better or worse, never "could not judge", and the exit
# status is the one the outcome says.
expect_ab_outcome "$T/ab-real.json" "$GCR" ab marksweep gen --probes 01 --rounds 1 --warmup 0 \
	--size ci --meters census,valgrind --json "$T/ab-real.json"
expect_status 0 "$GCR" export --out "$T/export-real.json"
expect_status 0 "$GCR" explain --session 1 --format json
cp "$T/out" "$T/explain.json"
valid "$T/ab-real.json" "$T/export-real.json" "$T/explain.json"
expect_eq "$(jq '[.comparison.pauses[].arms[]] | length' "$T/ab-real.json")" 2 \
	"the pause figures of both arms were checked"
expect_eq "$(jq '[.runs[] | select(.functions)] | length > 0' "$T/export-real.json")" true \
	"runs with functions were checked"

# ---- The schemas catch drift ------------------------------------------------------------------
drift() { # NAME FILTER FILE: FILE changed by the jq FILTER, as $T/drift-NAME.json, to refuse
	jq "$2" "$3" >"$T/drift-$1.json"
	invalid "$T/drift-$1.json"
}
drift new-key '.runs[0].new_key = 1' "$T/export1.json"
drift no-verdict 'del(.comparison.cells[0].verdict)' "$T/ab1.json"
drift version '.version = 3' "$T/check-ok.json"
drift no-outcome 'del(.results[0].outcome)' "$T/mh.json"
drift median-text '.points[0].median = "1000"' "$T/history.json"
drift sweep-extra '.probes[0].points[0].extra = null' "$T/sweep.json"
drift summary-extra '.summary.probes[0].metrics["time.wall_ns"].mean = 1' "$T/summary1.json"
drift bisect-status '.status = "maybe"' "$T/bisect.json"
drift explain-side '.probes[0].functions[0].side = "neither"' "$T/explain.json"
drift no-format 'del(.format)' "$T/sweep.json"
drift other-format '.format = "gcratchet-nosuch"' "$T/sweep.json"
check_all
expect_grep "drift-new-key.json: .runs\\[0\\]: Additional properties are not allowed \\('new_key'" \
	"$T/drift.out" "the unknown key is named where it is"
expect_grep "drift-no-verdict.json: .comparison.cells\\[0\\]: 'verdict' is a required property" \
	"$T/drift.out" "the missing key is named where it was"
finish
