#!/bin/sh
# needs: valgrind pg
# Issue 26, item 1: each valgrind run keeps its Ir by function (cachegrind's fn= totals) in the
# store: every function with 0.1% of the run and at least the 50 largest, largest first, their
# sum within the run's Ir, source files named relative to the tree; exported with the run,
# copied by push to SQLite and to PostgreSQL, and a session's timed runs keep none.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"

expect_status 0 "$GCR" measure --collector gen --probes 02 --size ci --rounds 1 --warmup 0 \
	--meters rusage,census,valgrind
vg=$(sql "SELECT id FROM runs WHERE kind = 'valgrind'")
ir=$(sql "SELECT CAST(value AS INTEGER) FROM samples WHERE run_id = $vg AND metric = 'valgrind.ir'")
expect_eq "$(sql "SELECT count(*) FROM run_functions f JOIN runs r ON r.id = f.run_id WHERE r.kind = 'timed'")" 0 \
	"timed runs keep no functions"
n=$(sql "SELECT count(*) FROM run_functions WHERE run_id = $vg")
expect_eq "$([ "$n" -ge 50 ] && echo enough)" enough "the run keeps at least the 50 largest ($n)"
# The ranks run 1..n by Ir, largest first; each beyond the 50th has 0.1% of the run at least.
expect_eq "$(sql "SELECT count(*) FROM run_functions a JOIN run_functions b ON b.run_id = a.run_id
	AND b.rank = a.rank + 1 WHERE a.run_id = $vg AND b.ir > a.ir")" 0 "ordered by Ir"
expect_eq "$(sql "SELECT min(rank) || ' ' || max(rank) || ' ' || count(DISTINCT name) FROM run_functions WHERE run_id = $vg")" \
	"1 $n $n" "ranks 1..$n, each name once"
expect_eq "$(sql "SELECT count(*) FROM run_functions WHERE run_id = $vg AND rank > 50 AND ir < 0.001 * $ir")" 0 \
	"beyond the 50th, only functions with 0.1% of the run"
expect_eq "$(sql "SELECT CAST(sum(ir) AS INTEGER) <= $ir FROM run_functions WHERE run_id = $vg")" 1 \
	"the kept functions count no more than the run's Ir"
# Probe 02's own loop, the collector's allocator: named, with their files in the tree.
expect_eq "$(sql "SELECT file FROM run_functions WHERE run_id = $vg AND name = 'survivor_run'")" \
	"probes/02_survivor_promotion.c" "a probe's function, its file relative to the tree"
expect_eq "$(sql "SELECT file FROM run_functions WHERE run_id = $vg AND name = 'gcr_alloc'")" \
	"collectors/gen/gen.c" "the collector's allocator"
expect_eq "$(sql "SELECT count(*) FROM run_functions WHERE file LIKE '%/../%' OR file LIKE '$TOP/%'")" 0 \
	"no file keeps the checkout's path or a .. segment"

# Exported with the run, as stored.
expect_status 0 "$GCR" export --session 1 --out "$T/s.json"
expect_eq "$(jq "[.runs[] | select(.kind == \"valgrind\") | .functions | length] | .[0]" "$T/s.json")" "$n" \
	"export: the run's functions"
expect_eq "$(jq -r '[.runs[] | select(.kind == "valgrind") | .functions[0] | .name, .file, (.ir | tostring)] | join(" ")' "$T/s.json")" \
	"$(sql "SELECT name || ' ' || file || ' ' || CAST(ir AS INTEGER) FROM run_functions WHERE run_id = $vg AND rank = 1")" \
	"export: the largest first"
expect_eq "$(jq '[.runs[] | select(.kind == "timed") | has("functions")] | any' "$T/s.json")" false \
	"export: a timed run has none"

# push and pull copy them with the session; a second push stores nothing twice.
expect_status 0 "$GCR" push --to "$T/fleet.db"
expect_status 0 "$GCR" push --to "$T/fleet.db"
expect_eq "$(sqlite3 "$T/fleet.db" "SELECT count(*) || ' ' || CAST(sum(ir) AS INTEGER) FROM run_functions")" \
	"$(sql "SELECT count(*) || ' ' || CAST(sum(ir) AS INTEGER) FROM run_functions")" "push: every function, once"
expect_status 0 "$GCR" pull --from "$T/fleet.db" --db "$T/back.db"
expect_eq "$(sqlite3 "$T/back.db" "SELECT group_concat(name || ':' || rank, ',') FROM (SELECT * FROM run_functions ORDER BY run_id, rank)")" \
	"$(sql "SELECT group_concat(name || ':' || rank, ',') FROM (SELECT * FROM run_functions ORDER BY run_id, rank)")" \
	"pull: the same functions in the same order"
pg_start
PG=$(pg_url fleet)
expect_status 0 "$GCR" push --to "$PG"
expect_eq "$(pg_sql fleet "SELECT count(*) || ' ' || CAST(sum(ir) AS BIGINT) FROM run_functions")" \
	"$(sql "SELECT count(*) || ' ' || CAST(sum(ir) AS INTEGER) FROM run_functions")" "push to PostgreSQL"
expect_status 0 "$GCR" export --session 1 --db "$PG" --out "$T/pg.json"
expect_eq "$(jq -c '[.runs[] | select(.kind == "valgrind") | .functions[0:3]]' "$T/pg.json")" \
	"$(jq -c '[.runs[] | select(.kind == "valgrind") | .functions[0:3]]' "$T/s.json")" \
	"PostgreSQL exports the same functions"
finish
