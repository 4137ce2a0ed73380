#!/bin/sh
# needs: pg
# push and pull: a runner's sessions copied to a fleet's PostgreSQL database arrive whole
# (host, builds, arms, runs, samples) and are judged there as at home; pushing twice stores
# once; two runners land in one history; pull brings them back into a file.
. "$(dirname "$0")/lib.sh"
pg_start
export GCR_BASELINE_DIR="$T/baselines"
B="$T/scripted"
make_script_build "$B" 01_steady 02_other
PG=$(pg_url fleet)
m() { # measure into the database $1
	expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 2 --warmup 1 --meters rusage,census \
		--db "$1"
}
count() { # SQL on both databases: "sqlite pg"
	echo "$(sql "$1") $(pg_sql fleet "$1")"
}

m "$GCR_DB"
echo 1100 >"$B/alloc.01_steady"
m "$GCR_DB"
expect_status 0 "$GCR" push --to "$PG"
expect_grep "^session 1: stored as session 1$" "$T/out"
expect_grep "^session 2: stored as session 2$" "$T/out"
expect_grep "2 sessions copied to postgresql://gcr@/fleet.*, 0 already there" "$T/err"
expect_eq "$(count "SELECT count(*) FROM runs")" "12 12" "every run"
expect_eq "$(count "SELECT count(*) || ':' || CAST(sum(value) AS BIGINT) FROM samples WHERE metric LIKE 'census.%'")" \
	"24:12324 24:12324" "every census sample, with its value"
expect_eq "$(pg_sql fleet "SELECT string_agg(uuid, ',' ORDER BY started_at, uuid) FROM sessions")" \
	"$(sql "SELECT group_concat(uuid, ',') FROM (SELECT uuid FROM sessions ORDER BY started_at, uuid)")" \
	"the sessions keep their uuids"

# Twice: stored once.
expect_status 0 "$GCR" push --to "$PG"
expect_grep "^session 1: already there as session 1$" "$T/out"
expect_grep "0 sessions copied .*, 2 already there" "$T/err"
expect_status 0 "$GCR" push --to "$PG" --session 2
expect_grep "^session 2: already there as session 2$" "$T/out"
expect_eq "$(pg_sql fleet "SELECT count(*) FROM sessions") $(pg_sql fleet "SELECT count(*) FROM runs")" \
	"2 12" "nothing stored twice"

# The same verdict at home and in the fleet's database.
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session 1
expect_status 1 "$GCR" check --profile shared_ci --collector scripted
grep -E 'census\.' "$T/out" >"$T/home"
expect_status 1 "$GCR" check --profile shared_ci --collector scripted --db "$PG"
grep -E 'census\.' "$T/out" >"$T/fleet"
if cmp -s "$T/home" "$T/fleet"; then pass; else
	fail "check's verdicts differ between the pushed and the local session"
	diff "$T/home" "$T/fleet" >&2
fi

# A second runner with its own file: its session joins the history; host and build are shared.
echo 1000 >"$B/alloc.01_steady"
m "$T/runner2.db"
expect_status 0 "$GCR" push --to "$PG" --db "$T/runner2.db" --session all
expect_grep "^session 1: stored as session 3$" "$T/out"
expect_eq "$(pg_sql fleet "SELECT count(*) FROM sessions") $(pg_sql fleet "SELECT count(*) FROM hosts") $(pg_sql fleet "SELECT count(*) FROM builds")" \
	"3 1 1" "three sessions, one host, one build"
expect_status 0 "$GCR" list sessions --db "$PG"
expect_eq "$(grep -c ' complete ' "$T/out")" 3 "list reads the three"

# pull: the fleet's history into a file, and into the first runner's (only what it lacks).
expect_status 0 "$GCR" pull --from "$PG" --db "$T/pulled.db"
expect_grep "3 sessions copied to $T/pulled.db, 0 already there" "$T/err"
expect_status 0 "$GCR" pull --from "$PG"
expect_grep "^session 3: stored as session 3$" "$T/out"
expect_grep "1 session copied .*, 2 already there" "$T/err"
expect_eq "$(sql "SELECT count(*) FROM sessions") $(sql "SELECT count(*) FROM runs")" "3 18" "pulled back"
expect_status 0 "$GCR" export --session 3 --db "$T/pulled.db" --out "$T/p3.json"
expect_status 0 "$GCR" export --session 1 --db "$T/runner2.db" --out "$T/r1.json"
samples() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(sorted((r["probe"], r["round"], r["seq"], r["status"], sorted(r["samples"].items())) for r in d["runs"]))' "$1"; }
expect_eq "$(samples "$T/p3.json")" "$(samples "$T/r1.json")" "a session pulled back is the session measured"
# SQLite to SQLite works as well.
expect_status 0 "$GCR" push --to "$T/copy.db" --db "$T/runner2.db"
expect_grep "1 session copied to $T/copy.db" "$T/err"

# Two pushes of the same sessions at once: both succeed, each session stored once.
for k in 1 2; do
	"$GCR" push --to "$(pg_url race)" >"$T/race.$k.out" 2>&1 &
	eval "pid$k=\$!"
done
wait "$pid1"
expect_eq "$?" 0 "the first of two concurrent pushes"
wait "$pid2"
expect_eq "$?" 0 "the second of two concurrent pushes"
cat "$T/race.1.out" "$T/race.2.out" | grep -v '^session' >&2
expect_eq "$(pg_sql race "SELECT count(*) FROM sessions") $(pg_sql race "SELECT count(*) FROM runs")" \
	"$(sql "SELECT count(*) FROM sessions") $(sql "SELECT count(*) FROM runs")" \
	"concurrent pushes store each session once"

# A minimum heap answered on the runner travels with the session: check judges a build's
# minheap.min_heap_mib cells by the answers stored for its host, and the fleet's check must
# judge them as the runner's did (the shipped epsilon baseline gates them), not say it could
# not. Pushing again stores no answer twice.
H="$T/heap.db"
expect_status 0 "$GCR" measure --collector epsilon --size ci --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census --db "$H"
expect_status 0 "$GCR" minheap --collector epsilon --size ci --probes 01 --repeats 1 --db "$H"
heapcells() { # check's min-heap cells of probe 01 on the store $1: "verdict value"
	GCR_BASELINE_DIR="$TOP/baselines" "$GCR" check --profile shared_ci --collector epsilon \
		--db "$1" --format json >"$T/heap.json" 2>"$T/err"
	jq -r '[.cells[] | select(.metric == "minheap.min_heap_mib" and .probe == "01_nursery_churn") |
		"\(.verdict) \(.current)"] | join(",")' "$T/heap.json"
}
home=$(heapcells "$H")
expect_eq "$(echo "$home" | cut -d' ' -f1)" ok "01's minimum heap judged on the runner"
expect_status 0 "$GCR" push --to "$(pg_url heapfleet)" --db "$H"
expect_eq "$(heapcells "$(pg_url heapfleet)")" "$home" "01's minimum heap judged alike in the fleet"
expect_status 0 "$GCR" push --to "$T/heapcopy.db" --db "$H"
expect_eq "$(heapcells "$T/heapcopy.db")" "$home" "... and in a SQLite copy"
expect_status 0 "$GCR" minheap --collector epsilon --size ci --probes 01 --repeats 1 --db "$H"
expect_status 0 "$GCR" measure --collector epsilon --size ci --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census --db "$H"
expect_status 0 "$GCR" push --to "$(pg_url heapfleet)" --db "$H"
expect_eq "$(pg_sql heapfleet "SELECT count(*) FROM minheap")" 2 \
	"two answers in the fleet after the second push, each once"

# Errors name what is wrong, and copy nothing.
expect_status 2 "$GCR" push
expect_grep "--to URL is required" "$T/err"
expect_status 2 "$GCR" push --to "$GCR_DB"
expect_grep "both the source and the destination" "$T/err"
expect_status 2 "$GCR" push --to "$PG" --session 9
expect_grep "no session 9" "$T/err"
expect_status 2 "$GCR" pull --from "$(pg_url nosuch)" --db "$T/none.db"
expect_grep "nosuch.*no such database" "$T/err"
expect_eq "$(ls "$T/none.db" 2>/dev/null || echo none)" none "a failed pull creates no file"
finish
