#!/bin/sh
# needs: pg
# Issue 41, defect 13: a variable passed to the probes (--pass-env NAME) is recorded by its
# name alone. `queue submit ... --pass-env PGPASSWORD` stored the worker's fleet password in
# the session's facts, and so in the fleet's sessions row, readable by every fleet reader and
# written by `export`; a plain `measure --pass-env SECRET` did the same in SQLite. The probe
# still gets the value. The fleet half also checks that queue status and a worker's lines
# print a build's name from a job escaped (issue 41, defect 7).
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
ESC=$(printf '\033')
B="$T/b"
make_script_build "$B" 01_steady
# The probe writes down what it got, to show the value still reaches it.
sed -i "2i echo \"\${SECRET:-unset} \${PGPASSWORD:-unset}\" >>\"$T/seen\"" "$B/01_steady"
seal_manifest "$B"
M="--probes 01 --rounds 1 --warmup 0 --meters rusage,census"

# SQLite: measure.
SECRET=Zs3cret-local expect_status 0 "$GCR" measure --build "$B" $M --pass-env SECRET
expect_grep "^Zs3cret-local unset$" "$T/seen" "the probe got the passed variable"
"$GCR" export >"$T/export.json"
"$GCR" export --format csv >"$T/export.csv"
expect_eq "$(jq -c '[.session.facts.probe_env[] | select(startswith("SECRET"))]' "$T/export.json")" '["SECRET"]' \
	"the session's facts name the passed variable, without its value"
expect_eq "$(jq -r '.session.facts.probe_env[] | select(startswith("TZ="))' "$T/export.json")" "TZ=UTC" \
	"the fixed variables keep their values"
expect_no_grep "Zs3cret" "$T/export.json" "the secret in the JSON export"
expect_no_grep "Zs3cret" "$T/export.csv" "the secret in the CSV export"
sqlite3 "$GCR_DB" .dump >"$T/dump.sql"
expect_no_grep "Zs3cret" "$T/dump.sql" "the secret in the SQLite store"
expect_eq "$(grep -c -a Zs3cret "$GCR_DB")" 0 "the secret in the database file's bytes"

# The fleet: a worker with its password in PGPASSWORD runs a job that passes PGPASSWORD.
pg_start
FLEET=$(pg_url fleet)
export GCR_FLEET_URL="$FLEET"
E="$T/e"
BUILD_NAME='ev\u001b[31mil' make_script_build "$E" 01_steady
# Its probe fails saying something with an escape sequence: the job's reason quotes it.
printf '#!/bin/sh\nprintf "no \\033[2Jluck\\n" >&2\nexit 3\n' >"$E/01_steady"
seal_manifest "$E"
expect_status 0 "$GCR" queue submit measure --build "$B" $M --pass-env PGPASSWORD
expect_status 0 "$GCR" queue submit measure --build "$E" $M
PGPASSWORD=Qfleet-pw TMPDIR="$T" GCR_LOCK_FILE="$T/lock.w" expect_status 0 "$GCR" worker --name w1 --drain
cp "$T/out" "$T/worker.out"
cat "$T/err" >>"$T/worker.out"
expect_grep "^unset Qfleet-pw$" "$T/seen" "the job's probe got the worker's PGPASSWORD"
expect_eq "$(pg_sql fleet "SELECT state FROM queue_job ORDER BY id" | tr '\n' ' ')" "done failed " \
	"the secret's job done, the failing probe's job failed"
"$PG_BIN/pg_dump" -h "$PG_DIR" -U gcr fleet >"$T/fleet.sql" 2>"$T/pg_dump.err" ||
	fail "pg_dump failed: $(cat "$T/pg_dump.err")"
expect_grep "probe_env" "$T/fleet.sql" "the dump holds the sessions' facts"
expect_grep '"probe_env":\[[^]]*"PGPASSWORD"[],]' "$T/fleet.sql" "the fleet's session names the passed variable"
expect_no_grep "Qfleet-pw" "$T/fleet.sql" "the worker's password in the fleet's database"
sid=$(pg_sql fleet "SELECT min(id) FROM sessions")
expect_status 0 "$GCR" export --db "$FLEET" --session "$sid"
expect_no_grep "Qfleet-pw" "$T/out" "the worker's password in an export of the fleet"
expect_no_grep "Qfleet-pw" "$T/worker.out" "the worker's password in its output"

# What the fleet holds reaches a terminal escaped: any fleet writer's words, in queue status
# (another worker's host, an attempt's detail) and in a worker's lines.
pg_sql fleet "UPDATE queue_worker SET hostname = 'far' || chr(27) || '[5m'" >/dev/null
pg_sql fleet "UPDATE queue_job SET reasons = 'attempt 1 on w1: no ' || chr(27) || '[2Jluck' WHERE state = 'failed'" >/dev/null
expect_status 0 "$GCR" queue status --all
expect_grep "^w1 +far.+\[5m +stopped" "$T/out" "queue status names the worker's host"
expect_grep "attempt 1 on w1: no .+\[2Jluck$" "$T/out" "queue status quotes the attempt"
expect_no_grep "$ESC" "$T/out" "an escape sequence in queue status"
expect_status 2 "$GCR" queue result 2
expect_grep "^2 +whole +failed" "$T/out" "queue result shows the failed job"
expect_no_grep "$ESC" "$T/out" "an escape sequence in a request's result"
expect_no_grep "$ESC" "$T/worker.out" "an escape sequence in the worker's lines"
finish
