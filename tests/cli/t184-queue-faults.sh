#!/bin/sh
# needs: pg
# The queue under faults (issue 41, defects 1-5, 11, 12; docs/queue.md), on a real PostgreSQL:
# - knobs and VAR=value build commands are queued, only a real connection string is refused;
# - a job row whose arguments cannot be read fails at its claim, once, and the queue goes on;
# - a host that cannot run jobs (no --scratch, its gcratchet not executable) pauses or stops
#   its worker and spends no job's attempts;
# - a worker stopped by SIGTERM records its failed attempt;
# - a worker's verb dies with the worker (kill -9) and soon after a cancel, freeing the bench
#   lock, and a killed worker's scratch folder is swept by the next worker;
# - the reap of expired leases never waits on a row another transaction holds locked, and a
#   lock wait is said to be one, not a lost database.
. "$(dirname "$0")/lib.sh"
pg_start
FLEET=$(pg_url fleet)
export GCR_FLEET_URL="$FLEET"
q() { pg_sql fleet "$1"; }
B="$T/quick"
make_script_build "$B" 01_steady
S="$T/slow"
BUILD_NAME=slow make_script_build "$S" 01_steady
M="--probes 01 --rounds 1 --warmup 0 --meters rusage,census"
cd "$T" || exit 2
# wait_for SQL VALUE SECONDS: polls until the query gives VALUE.
wait_for() {
	n=0
	while [ "$(q "$1")" != "$2" ] && [ $n -lt $(($3 * 5)) ]; do
		sleep 0.2
		n=$((n + 1))
	done
	[ "$(q "$1")" = "$2" ]
}
last_job() { q "SELECT max(id) FROM queue_job"; }
lock_free() { flock -n "$1" true; }
gone() { ! kill -0 "$1" 2>/dev/null; }

# ---- Knobs and VAR=value commands go through the queue (defect 5) --------------------------
expect_status 0 "$GCR" queue submit --no-split measure --build "$B" $M --knob GCR_HEAP_MB=64
expect_grep "request 1: measure, 1 job" "$T/out" "a knob NAME=VALUE is queued"
expect_eq "$(q "SELECT args LIKE '%\"--knob\",\"GCR_HEAP_MB=64\"%' FROM queue_job WHERE request_id = 1")" t \
	"the job keeps the knob"
expect_status 0 "$GCR" queue submit ab "$B" "$B" $M --knob-fix GCR_HEAP_MB=32 --knob-base=GCR_HEAP_MB=64
expect_grep "request 2: ab, 1 job" "$T/out" "ab's --knob-fix and --knob-base are queued"
git init -q "$T/repo" && echo a >"$T/repo/a" && git -C "$T/repo" add a &&
	git -C "$T/repo" -c user.name=t -c user.email=t@example.org commit -q -m one &&
	echo b >>"$T/repo/a" &&
	git -C "$T/repo" -c user.name=t -c user.email=t@example.org commit -q -am two || fail "git"
expect_status 0 "$GCR" queue submit bisect --build-cmd 'CC=clang sh build.sh' --repo "$T/repo" \
	--good HEAD~1 --bad HEAD --probe 01 --metric census.alloc_bytes --make OPT=-O0
expect_grep "request 3: bisect, 1 job" "$T/out" "a --build-cmd that sets a variable is queued"
expect_status 0 "$GCR" queue cancel --request 1
expect_status 0 "$GCR" queue cancel --request 2
expect_status 0 "$GCR" queue cancel --request 3
expect_status 2 "$GCR" queue submit measure --build "$B" $M --from "host=$PG_DIR dbname=fleet"
expect_grep "argument 11 is a database option" "$T/err"
expect_status 2 "$GCR" queue submit measure --build "$B" $M --name "host=$PG_DIR dbname=fleet"
expect_grep "argument 12 is a connection string" "$T/err" "a key=value connection string is refused as one"
expect_status 2 "$GCR" queue submit measure --build "$B" $M "postgresql://u:Zsecret@h/db"
expect_grep "argument 11 is a connection string" "$T/err" "a URL is refused as one"
expect_no_grep "Zsecret" "$T/err" "its password is not echoed"

# ---- A job whose stored arguments cannot be read fails at its claim (defect 1) -------------
for k in 1 2 3 4; do
	"$GCR" queue submit measure --build "$B" $M >/dev/null 2>"$T/err" || fail "submit: $(cat "$T/err")"
done
j=$(last_job)
b1=$((j - 3)) b2=$((j - 2)) b3=$((j - 1))
q "UPDATE queue_job SET args = 'not json' WHERE id = $b1" >/dev/null
q "UPDATE queue_job SET args = '[\"--probes\", 1]' WHERE id = $b2" >/dev/null
q "UPDATE queue_job SET builds = '[{\"option\":\"--build\",\"digest\":\"0123456789abcdef\"}]' WHERE id = $b3" >/dev/null
TMPDIR="$T" GCR_LOCK_FILE="$T/lock.m1" expect_status 0 "$GCR" worker --name m1 --drain
expect_eq "$(q "SELECT string_agg(state || ' ' || attempt, ',' ORDER BY id) FROM queue_job WHERE id >= $b1")" \
	"failed 1,failed 1,failed 1,done 1" "the three unreadable jobs failed once each; the next one ran"
expect_eq "$(q "SELECT reasons FROM queue_job WHERE id = $b1")" \
	"attempt 1 on m1: its stored arguments are not a JSON array: it cannot be run" "why, once"
expect_eq "$(q "SELECT reasons FROM queue_job WHERE id = $b2")" \
	"attempt 1 on m1: its stored argument 2 is not a string: it cannot be run" "a non-string argument"
expect_eq "$(q "SELECT reasons FROM queue_job WHERE id = $b3")" \
	"attempt 1 on m1: its stored build 1 lacks its option, value or digest (a string each): it cannot be run" \
	"a build without its value"
expect_eq "$(q "SELECT string_agg(outcome, ',') FROM queue_attempt WHERE job_id = $b2")" failed \
	"its one attempt recorded as failed"
expect_grep "job $b1 \(request [0-9]+\): failed: its stored arguments are not a JSON array" "$T/out" \
	"the worker says so"
# (Without the fix the three stay first in line: out of the way of the checks below.)
q "UPDATE queue_job SET state = 'canceled' WHERE id >= $b1 AND state = 'queued'" >/dev/null

# ---- A host that cannot run jobs spends no attempt (defect 12) ------------------------------
for k in 1 2 3; do
	"$GCR" queue submit measure --build "$B" $M >/dev/null 2>"$T/err" || fail "submit: $(cat "$T/err")"
done
h3=$(last_job)
h1=$((h3 - 2))
GCR_LOCK_FILE="$T/lock.h1" expect_status 2 "$GCR" worker --name h1 --drain --scratch "$T/no/such/dir"
expect_grep "this host cannot run jobs: --scratch $T/no/such/dir: .*No such file" "$T/err" \
	"a missing --scratch stops a draining worker, saying why"
expect_eq "$(q "SELECT string_agg(state || ' ' || attempt, ',') FROM queue_job WHERE id >= $h1")" \
	"queued 0,queued 0,queued 0" "and spends no job's attempt"
# A gcratchet that cannot be executed: a waiting worker pauses, and resumes once it can.
# The worker starts from a copy (its running image stays), which then loses its x bits. The
# jobs wait meanwhile for a CPU no host has.
mkdir "$T/bin"
cp "$GCR" "$TOP/build/gcratchet-launch" "$T/bin/"
q "UPDATE queue_job SET req_cpu = 'NoSuchCPU' WHERE id >= $h1" >/dev/null
TMPDIR="$T" GCR_LOCK_FILE="$T/lock.x1" "$T/bin/gcratchet" worker --name x1 --poll 1 \
	>"$T/x1.out" 2>"$T/x1.err" &
PID_x1=$!
await 20 grep -q "lease 30 s" "$T/x1.out" || fail "worker x1 did not start"
chmod a-x "$T/bin/gcratchet"
q "UPDATE queue_job SET req_cpu = NULL WHERE id >= $h1" >/dev/null
await 20 grep -q "cannot run jobs" "$T/x1.out" || fail "worker x1 did not pause"
wait_for "SELECT state FROM queue_worker WHERE name = 'x1'" paused 10 || fail "x1 is not shown paused"
sleep 2
expect_grep "this host cannot run jobs: cannot execute $T/bin/gcratchet: Permission denied; paused" \
	"$T/x1.out" "a gcratchet that cannot be executed pauses the worker"
expect_eq "$(q "SELECT count(*) FROM queue_job WHERE id >= $h1 AND (state <> 'queued' OR attempt <> 0)")" 0 \
	"the paused worker claimed nothing"
chmod a+x "$T/bin/gcratchet"
wait_for "SELECT count(*) FROM queue_job WHERE id >= $h1 AND state = 'done'" 3 40 || fail "x1 did not resume"
kill -TERM "$PID_x1"
wait "$PID_x1"
expect_grep "this host can run jobs again" "$T/x1.out"
expect_eq "$(q "SELECT string_agg(state || ' ' || attempt, ',') FROM queue_job WHERE id >= $h1")" \
	"done 1,done 1,done 1" "each job done on its first attempt"

# ---- SIGTERM records the failed attempt (defect 11) -----------------------------------------
printf '60\n0\n' >"$S/sleep.01_steady"
rm -f "$S/turn.01_steady"
expect_status 0 "$GCR" queue submit measure --build "$S" $M
jt=$(last_job)
TMPDIR="$T" GCR_LOCK_FILE="$T/lock.t1" "$GCR" worker --name t1 --poll 1 >"$T/t1.out" 2>"$T/t1.err" &
PID_t1=$!
wait_for "SELECT state FROM queue_job WHERE id = $jt" running 20 || fail "job $jt never ran"
kill -TERM "$PID_t1"
wait "$PID_t1"
expect_eq "$?" 0 "the worker stopped on SIGTERM"
expect_eq "$(q "SELECT state || ' ' || attempt FROM queue_job WHERE id = $jt")" "queued 1" \
	"the job is back in the queue, not left running"
expect_eq "$(q "SELECT outcome || ': ' || detail FROM queue_attempt WHERE job_id = $jt")" \
	"failed: the worker was stopped" "its attempt recorded as failed, with the reason"
lock_free "$T/lock.t1" && pass || fail "the bench lock is free once the worker stopped"

# ---- kill -9: the verb dies with its worker; the next worker sweeps its folder (3, 4) -------
printf '60\n0\n' >"$S/sleep.01_steady"
rm -f "$S/turn.01_steady"
mkdir "$T/ws"
TMPDIR="$T/ws" GCR_LOCK_FILE="$T/lock.k" "$GCR" worker --name k1 --lease 3 --poll 1 \
	>"$T/k1.out" 2>"$T/k1.err" &
PID_k1=$!
wait_for "SELECT state || ' ' || worker FROM queue_job WHERE id = $jt" "running k1" 20 || fail "k1 never ran job $jt"
await 20 sh -c "! flock -n '$T/lock.k' true" || fail "the verb never took the bench lock"
verb=$(pgrep -P "$PID_k1")
kill -9 "$PID_k1"
wait "$PID_k1" 2>/dev/null
await 20 gone "$verb" && pass || fail "the verb ($verb) outlived its killed worker"
await 20 lock_free "$T/lock.k" && pass || fail "the bench lock is held after the worker was killed"
ls -d "$T"/ws/gcratchet-worker.* >/dev/null 2>&1 && pass || fail "the killed worker left no folder to sweep"
TMPDIR="$T/ws" GCR_LOCK_FILE="$T/lock.k" expect_status 0 "$GCR" worker --name k2 --lease 3 --drain
expect_eq "$(q "SELECT state || ' ' || worker FROM queue_job WHERE id = $jt")" "done k2" \
	"the killed worker's job done by the next"
ls -d "$T"/ws/gcratchet-worker.* >"$T/left" 2>/dev/null
expect_eq "$(cat "$T/left")" "" "the killed worker's scratch folder was swept"

# ---- A canceled job's verb ends within the grace, freeing the lock (defect 3) --------------
printf '60\n' >"$S/sleep.01_steady"
expect_status 0 "$GCR" queue submit measure --build "$S" $M
jc=$(last_job)
TMPDIR="$T" GCR_LOCK_FILE="$T/lock.c" "$GCR" worker --name c1 --lease 3 --poll 1 \
	>"$T/c1.out" 2>"$T/c1.err" &
PID_c1=$!
wait_for "SELECT state FROM queue_job WHERE id = $jc" running 20 || fail "job $jc never ran"
await 20 sh -c "! flock -n '$T/lock.c' true" || fail "the verb never took the bench lock"
verb=$(pgrep -P "$PID_c1")
expect_status 0 "$GCR" queue cancel "$jc"
await 30 gone "$verb" && pass || fail "the canceled job's verb runs on"
await 10 lock_free "$T/lock.c" && pass || fail "the canceled job's verb holds the bench lock"
wait_for "SELECT state FROM queue_worker WHERE name = 'c1'" idle 10 || fail "c1 is not idle again"
kill -TERM "$PID_c1"
wait "$PID_c1"
expect_grep "job $jc: no longer this worker's" "$T/c1.out"

# ---- The reap never waits on a locked row; a lock wait is said to be one (defect 2) --------
expect_status 0 "$GCR" queue submit measure --build "$B" $M
jg=$(last_job)
expect_status 0 "$GCR" queue submit measure --build "$B" $M
jq_=$(last_job)
# A job whose lease has lapsed, its row held by a transaction that does not end (a worker
# frozen inside its completion).
q "UPDATE queue_job SET state = 'running', attempt = 1, worker = 'frozen', token = 'x',
	lease_until = clock_timestamp() - interval '1 minute' WHERE id = $jg" >/dev/null
PGAPPNAME=locker "$PG_BIN/psql" -X -q -h "$PG_DIR" -U gcr -d fleet \
	-c "BEGIN; SELECT id FROM queue_job WHERE id = $jg FOR UPDATE; SELECT pg_sleep(300); COMMIT;" \
	>/dev/null 2>&1 &
PID_lock=$!
wait_for "SELECT count(*) FROM (SELECT id FROM queue_job WHERE id = $jg FOR UPDATE SKIP LOCKED) x" 0 20 ||
	fail "the row was never locked"
# statement_timeout 10 s: a statement waiting on the row would end within the wait below.
TMPDIR="$T" GCR_LOCK_FILE="$T/lock.r" "$GCR" worker --name r1 --lease 6 --poll 1 --drain \
	--fleet "$FLEET&options=-cstatement_timeout%3D10000" >"$T/r1.out" 2>"$T/r1.err" &
PID_r1=$!
wait_for "SELECT state FROM queue_job WHERE id = $jq_" done 40 || fail "the next job did not run while a row was locked"
expect_eq "$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'locker'")" 1 \
	"it ran while the lapsed job's row was still locked"
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'locker'" >/dev/null
wait "$PID_lock" 2>/dev/null
wait "$PID_r1"
expect_eq "$?" 0 "the worker drained"
expect_eq "$(q "SELECT state || ' ' || attempt || ' ' || worker FROM queue_job WHERE id = $jg")" "done 2 r1" \
	"the lapsed job reaped once its row was free, and run"
expect_no_grep "lost the fleet's database" "$T/r1.out" "a lock is not a lost database"
# A heartbeat that waits on a lock ends at lock_timeout and says it is a lock.
printf '20\n' >"$S/sleep.01_steady"
expect_status 0 "$GCR" queue submit measure --build "$S" $M
jh=$(last_job)
TMPDIR="$T" GCR_LOCK_FILE="$T/lock.b" "$GCR" worker --name b1 --lease 6 --poll 1 --drain \
	>"$T/b1.out" 2>"$T/b1.err" &
PID_b1=$!
wait_for "SELECT state FROM queue_job WHERE id = $jh" running 20 || fail "job $jh never ran"
# Held 8 s: a heartbeat (every 2 s) starts in its first 2 s and waits past lock_timeout (5 s).
q "BEGIN; SELECT id FROM queue_job WHERE id = $jh FOR UPDATE; SELECT pg_sleep(8); COMMIT;" >/dev/null
wait "$PID_b1"
expect_eq "$?" 0 "the worker drained"
expect_grep "the fleet's database is busy \(a lock held by another transaction\): .*lock timeout; retrying" \
	"$T/b1.out" "a heartbeat's lock wait is said to be one"
expect_no_grep "lost the fleet's database" "$T/b1.out"
expect_eq "$(q "SELECT state || ' ' || attempt FROM queue_job WHERE id = $jh")" "done 1" \
	"the job completed on its first attempt"
finish
