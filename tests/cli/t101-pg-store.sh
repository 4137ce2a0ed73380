#!/bin/sh
# needs: pg
# The PostgreSQL store, against a throwaway server: measure, check, export and list work on
# postgresql:// as on a SQLite file, with the same verdicts on the same data; two runners write
# one database at once without colliding; a runner that loses the server mid-session fails
# it with exit 2 and keeps every run that had finished. baseline pin and update, ratchet,
# report, minheap and sweep read and write postgresql:// too.
. "$(dirname "$0")/lib.sh"
pg_start
export GCR_BASELINE_DIR="$T/baselines"
B="$T/scripted"
make_script_build "$B" 01_steady 02_other
PG=$(pg_url fleet)
m() { # measure into the database $1
	expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 2 --warmup 0 --meters rusage,census \
		--seed 101 --db "$1"
}

# ---- The same verdict on both backends --------------------------------------------------
m "$GCR_DB"
m "$PG" # a writer creates the missing database and its tables
expect_grep "stored in postgresql://gcr@/fleet" "$T/out"
expect_eq "$(pg_sql fleet "SELECT value FROM meta WHERE key = 'schema_version'")" \
	"$(sql "SELECT value FROM meta WHERE key = 'schema_version'")" "one schema version on both"
expect_eq "$(pg_sql fleet "SELECT count(*) FROM runs WHERE status = 'ok'")" 4 "4 runs in PostgreSQL"
expect_eq "$(pg_sql fleet "SELECT count(*) FROM samples WHERE metric = 'census.alloc_bytes' AND value = 1000")" \
	4 "their census samples"
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session latest
expect_status 0 "$GCR" check --all --profile shared_ci --collector scripted
expect_status 0 "$GCR" check --all --profile shared_ci --collector scripted --db "$PG"
expect_grep "01_steady +census.alloc_bytes" "$T/out"
echo 1100 >"$B/alloc.01_steady"
m "$GCR_DB"
m "$PG"
expect_status 1 "$GCR" check --all --profile shared_ci --collector scripted
# The columns are as wide as the widest value shown, and the two stores ran their own runs:
# the verdicts are compared, not the spacing.
grep -E 'census\.' "$T/out" | tr -s ' ' >"$T/verdict.sqlite"
expect_status 1 "$GCR" check --all --profile shared_ci --collector scripted --db "$PG"
grep -E 'census\.' "$T/out" | tr -s ' ' >"$T/verdict.pg"
expect_grep "01_steady +census.alloc_bytes .*REGRESSED" "$T/verdict.pg"
if cmp -s "$T/verdict.sqlite" "$T/verdict.pg"; then pass; else
	fail "check's census verdicts differ between SQLite and PostgreSQL"
	diff "$T/verdict.sqlite" "$T/verdict.pg" >&2
fi
# GCR_DB names a server as --db does; list, export and report read it.
expect_status 0 env GCR_DB="$PG" "$GCR" list sessions
expect_grep "^2 +[0-9T:-]+Z +complete " "$T/out"
expect_status 0 "$GCR" export --session 2 --db "$PG" --out "$T/s2.json"
got=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(len(d["runs"]), sorted(r["samples"]["census.alloc_bytes"] for r in d["runs"]))' "$T/s2.json")
expect_eq "$got" "4 [1000, 1000, 1100, 1100]" "export from PostgreSQL"
expect_status 0 "$GCR" report --session 2 --html "$T/s2.html" --db "$PG"
# ab: the same comparison whichever backend holds its session.
F="$T/fix"
BUILD_NAME=fix make_script_build "$F" 01_steady
echo 1300 >"$F/alloc.01_steady"
for db in "$GCR_DB" "$PG"; do
	"$GCR" ab "$B" "$F" --size ci --wide --probes 01 --rounds 3 --warmup 0 --meters rusage,census \
		--seed 5 --db "$db" >"$T/ab.out" 2>"$T/ab.err"
	echo "exit $?" >"$T/ab.$(basename "${db%%\?*}")"
	grep -E 'census\.alloc_bytes' "$T/ab.out" >>"$T/ab.$(basename "${db%%\?*}")"
done
expect_grep "^exit 1$" "$T/ab.fleet" "ab on PostgreSQL finds FIX's extra allocation"
expect_grep "census.alloc_bytes" "$T/ab.fleet"
if cmp -s "$T/ab.results.db" "$T/ab.fleet"; then pass; else
	fail "ab's verdict differs between SQLite and PostgreSQL"
	diff "$T/ab.results.db" "$T/ab.fleet" >&2
fi
# Messages name the database without the URL's password (libpq sends none to a trust server).
SECRET="postgresql://gcr:s3cret@/fleet$PG_HOSTQ"
expect_status 2 "$GCR" check --all --profile shared_ci --collector scripted --session 99 --db "$SECRET"
expect_grep "postgresql://gcr:\*\*\*@/fleet.*no session 99" "$T/err"
expect_no_grep "s3cret" "$T/err"
expect_status 2 "$GCR" push --to "$(pg_url empty)" --session 99 # creates an empty database
expect_status 2 "$GCR" export --db "postgresql://gcr:s3cret@/empty$PG_HOSTQ"
expect_grep "no session in postgresql://gcr:\*\*\*@/empty" "$T/err"
expect_no_grep "s3cret" "$T/err"
# Readers create nothing on the server, and say which database is missing.
expect_status 2 "$GCR" list sessions --db "$(pg_url nosuch)"
expect_grep "postgresql://gcr@/nosuch.*no such database" "$T/err"
expect_eq "$(pg_sql postgres "SELECT count(*) FROM pg_database WHERE datname = 'nosuch'")" 0 \
	"a reader created no database"

# ---- Two runners at once into one new database: both complete, every run stored ----------
RACE=$(pg_url race)
for k in 1 2; do
	GCR_LOCK_FILE="$T/lock.$k" "$GCR" measure --build "$B" --size ci --rounds 3 --warmup 1 \
		--meters rusage,census --seed "$k" --db "$RACE" >"$T/race.$k.out" 2>&1 &
	eval "pid$k=\$!"
done
wait "$pid1"
expect_eq "$?" 0 "the first concurrent measure"
wait "$pid2"
expect_eq "$?" 0 "the second concurrent measure"
cat "$T/race.1.out" "$T/race.2.out" | grep -v "^\[" >&2
expect_eq "$(pg_sql race "SELECT count(DISTINCT id) || ' ' || string_agg(status, ',') FROM sessions")" \
	"2 complete,complete" "two sessions"
expect_eq "$(pg_sql race "SELECT count(*) FROM runs")" 16 "2 x 4 rounds x 2 probes"
expect_eq "$(pg_sql race "SELECT count(DISTINCT session_id) FROM runs GROUP BY probe, round, seq LIMIT 1")" 2 \
	"every run belongs to its own session"

# ---- The other verbs that take --db: pin, update, ratchet, minheap, sweep, report -----------
V=$(pg_url verbs)
echo 1000 >"$B/alloc.01_steady"
expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 2 --warmup 0 --meters rusage,census \
	--db "$V"
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session latest \
	--db "$V" --out "$T/verbs.json"
expect_eq "$(jq -r '[.cells[] | select(.metric == "census.alloc_bytes")] | map(.median) | join(",")' "$T/verbs.json")" \
	"1000,1000" "pin from PostgreSQL"
mkdir -p "$T/vb/shared_ci"
cp "$T/verbs.json" "$T/vb/shared_ci/scripted.json"
expect_status 0 env GCR_BASELINE_DIR="$T/vb" "$GCR" ratchet --build "$B" --db "$V"
expect_grep "^verdict: ok" "$T/out" "ratchet on PostgreSQL"
expect_eq "$(pg_sql verbs "SELECT count(*) FROM sessions")" 2 "ratchet stored its session there"
echo 900 >"$B/alloc.01_steady"
expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 2 --warmup 0 --meters rusage,census \
	--db "$V"
expect_status 0 env GCR_BASELINE_DIR="$T/vb" "$GCR" baseline update --profile shared_ci \
	--collector scripted --session latest --db "$V"
expect_eq "$(jq -r '.cells[] | select(.metric == "census.alloc_bytes" and .probe == "01_steady") | .median' "$T/vb/shared_ci/scripted.json")" \
	900 "update from PostgreSQL tightens the improved cell"
expect_status 0 "$GCR" report --session latest --html "$T/verbs.html" --db "$V"
expect_grep "01_steady" "$T/verbs.html" "report from PostgreSQL"
expect_status 0 "$GCR" minheap --collector marksweep --probes 01 --size ci --repeats 1 --db "$V"
expect_eq "$(pg_sql verbs "SELECT outcome FROM minheap")" found "minheap stores its answer there"
expect_status 0 "$GCR" sweep --collector marksweep --probes 01 --factors 2 --size ci \
	--meters rusage,census --db "$V"
expect_eq "$(pg_sql verbs "SELECT count(*) FROM sweep_cells")" 1 "sweep stores its heaps there"

# ---- A lost connection fails the session (exit 2) and keeps its finished runs -------------
LOST=$(pg_url lost)
printf '1\n' >"$B/sleep.01_steady"
printf '1\n' >"$B/sleep.02_other"
"$GCR" measure --build "$B" --size ci --rounds 20 --warmup 0 --meters rusage,census --db "$LOST" \
	>"$T/lost.out" 2>"$T/lost.err" &
pid=$!
n=0
for _ in $(seq 1 100); do
	n=$(pg_sql lost "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
	[ "${n:-0}" -ge 2 ] && break
	sleep 0.2
done
pg_sql lost "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
	WHERE datname = 'lost' AND pid <> pg_backend_pid()" >/dev/null
kept=$(pg_sql lost "SELECT count(*) FROM runs")
wait "$pid"
expect_eq "$?" 2 "measure after losing its server"
expect_grep "lost the connection to the server" "$T/lost.err"
expect_eq "$([ "$kept" -ge 2 ] && pg_sql lost "SELECT count(*) FROM runs")" "$kept" \
	"the runs stored before the loss are kept"
expect_eq "$(pg_sql lost "SELECT count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM samples s WHERE s.run_id = r.id)")" \
	0 "no run without its samples"
finish
