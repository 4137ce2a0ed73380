#!/bin/sh
# export writes the JSON census report of any session: it parses, and it holds every run and
# every sample the database holds for that session, its builds and its host.
. "$(dirname "$0")/lib.sh"

expect_status 0 "$GCR" measure --collector epsilon,marksweep --probes 01,02 --size ci \
	--rounds 2 --warmup 1 --meters rusage,census --seed 53
expect_status 0 "$GCR" measure --collector marksweep --probes 01 --size ci --rounds 1 \
	--meters rusage,census --seed 54

expect_status 0 "$GCR" export --session 1
cp "$T/out" "$T/stdout.json"
expect_status 0 "$GCR" export --session 1 --format json --out "$T/s1.json"
expect_grep "session 1 \([0-9]+ runs\) written to $T/s1.json" "$T/err"
expect_eq "$(cmp -s "$T/stdout.json" "$T/s1.json" && echo same)" same "stdout and --out agree"
expect_status 0 python3 -m json.tool "$T/s1.json"

python3 - "$T/s1.json" >"$T/summary" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("format", d["format"], d["version"])
print("session", d["session"]["id"], d["session"]["status"], d["session"]["seed"], ",".join(d["session"]["probes"]))
print("host", bool(d["host"]["fingerprint"]), isinstance(d["host"]["facts"], dict))
print("builds", len(d["builds"]), ",".join(b["name"] for b in d["builds"]),
      all(b["manifest"]["format"] == "gcratchet-build" for b in d["builds"]))
print("runs", len(d["runs"]))
print("samples", sum(len(r["samples"]) for r in d["runs"]))
for r in sorted(d["runs"], key=lambda r: r["id"]):
    print("run", r["id"], len(r["samples"]))
PY
expect_grep "^format gcratchet-session 2$" "$T/summary"
expect_grep "^session 1 complete 53 01_nursery_churn,02_survivor_promotion$" "$T/summary"
expect_grep "^host True True$" "$T/summary"
expect_grep "^builds 2 epsilon,marksweep True$" "$T/summary"
expect_eq "$(sed -n 's/^runs //p' "$T/summary")" "$(sql "SELECT COUNT(*) FROM runs WHERE session_id=1")" "every run"
expect_eq "$(sed -n 's/^samples //p' "$T/summary")" \
	"$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id=s.run_id WHERE r.session_id=1")" "every sample"
# Run by run, not just in total.
grep '^run ' "$T/summary" >"$T/per_run"
sql "SELECT 'run ' || r.id || ' ' || COUNT(s.metric) FROM runs r LEFT JOIN samples s ON s.run_id=r.id WHERE r.session_id=1 GROUP BY r.id ORDER BY r.id" >"$T/per_run_db"
expect_eq "$(cmp -s "$T/per_run" "$T/per_run_db" && echo same)" same "samples of each run"
# Values are the stored ones, not rounded.
want=$(sql "SELECT CAST(s.value AS INTEGER) FROM samples s JOIN runs r ON r.id=s.run_id WHERE r.session_id=1 AND s.metric='census.alloc_bytes' ORDER BY r.id LIMIT 1")
got=$(python3 -c 'import json, sys; print(int(sorted(json.load(open(sys.argv[1]))["runs"], key=lambda r: r["id"])[0]["samples"]["census.alloc_bytes"]))' "$T/s1.json")
expect_eq "$got" "$want" "a sample's value"

# CSV: a header and a row per stored sample, each value as stored (every double's digits).
expect_status 0 "$GCR" export --session 1 --format csv --out "$T/s1.csv"
expect_eq "$(($(wc -l <"$T/s1.csv") - 1))" \
	"$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id=s.run_id WHERE r.session_id=1")" \
	"a CSV row per sample"
expect_eq "$(python3 -c 'import csv, sys
print(sorted((int(r["run"]), r["metric"], float(r["value"])) for r in csv.DictReader(open(sys.argv[1]))) == sorted((r["id"], m, v) for r in __import__("json").load(open(sys.argv[2]))["runs"] for m, v in r["samples"].items()))' "$T/s1.csv" "$T/s1.json")" \
	True "the CSV's samples are the JSON's"

# Default: the newest session.
expect_status 0 "$GCR" export
expect_eq "$(python3 -c 'import json, sys; print(json.load(sys.stdin)["session"]["id"])' <"$T/out")" 2 "newest session by default"

expect_status 2 "$GCR" export --session 99
expect_grep "no session 99" "$T/err"
expect_status 2 "$GCR" export --session 1 --format yaml
expect_grep '--format must be json or csv, got "yaml"' "$T/err"
finish
