#!/bin/sh
# needs: pg
# The fleet's measurement queue (issue 30; docs/queue.md): on a real PostgreSQL, three workers
# (each its own bench lock and name) take 30 jobs; one worker is SIGKILLed in the middle of a
# job, whose lease expires and which another worker then runs: every job completes exactly
# once, its one session stored once and whole. A worker frozen past its lease (SIGSTOP) cannot
# complete the job another worker took over (fencing). A sweep of three collectors and three
# probes submitted as one request is split into three jobs, and their parts merged make the
# report a local sweep makes. The database stopped in the middle of a job makes the worker
# wait and resume: the job completes once, on its first attempt. Bad submissions are
# refused with exit 2, and the fleet's password appears in no output.
. "$(dirname "$0")/lib.sh"
pg_start
FLEET=$(pg_url fleet)
export GCR_FLEET_URL="$FLEET"
q() { pg_sql fleet "$1"; }
B="$T/quick"
make_script_build "$B" 01_steady 02_other 03_third
# Three collectors for the sweep (issue 30: "a sweep of three collectors ... split over the
# workers and merged into one report equal to a local sweep's").
SW="--collector gen --collector marksweep --collector bdwgc --size ci"
S="$T/slow"
BUILD_NAME=slow make_script_build "$S" 01_steady
# The slow build's first run sleeps long enough to be killed in; the next ones do not.
printf '30\n0\n0\n0\n' >"$S/sleep.01_steady"
M="--probes 01 --rounds 1 --warmup 0 --meters rusage,census"
cd "$T" || exit 2

# ---- Submitting -------------------------------------------------------------------------
expect_status 2 "$GCR" worker --lease 1 --once
expect_grep "at least 3 seconds" "$T/err"
expect_status 2 "$GCR" worker --once --drain
expect_grep "choose one" "$T/err"
expect_status 2 "$GCR" queue submit measure --build "$B" $M --db "$T/x.db"
expect_grep "a job names no database" "$T/err" "a job with its own --db is refused"
expect_status 2 "$GCR" queue submit frobnicate
expect_grep "not a verb the queue runs" "$T/err"
expect_status 2 env -u GCR_FLEET_URL "$GCR" queue submit measure --build "$B" $M
expect_grep "fleet URL is required" "$T/err"
expect_status 2 "$GCR" queue submit --fleet "$T/file.db" measure --build "$B" $M
expect_grep "needs the fleet's PostgreSQL database" "$T/err" "a file is not a fleet"
expect_status 2 "$GCR" queue submit measure --build "$T/missing" $M
expect_grep "missing" "$T/err" "a missing build is refused at submit"
# The verb's arguments are read with its own option rows (cli_scan): an option it does not
# take is refused at submit, not by a worker an attempt later, and nothing is queued.
expect_status 2 "$GCR" queue submit measure --build "$B" $M --no-such-option
expect_grep 'gcratchet measure: unknown option "--no-such-option"' "$T/err" \
	"a verb's unknown option is refused at submit"

# The slow job first, at a higher priority, so that a worker takes it at once.
expect_status 0 "$GCR" queue submit --priority 10 measure --build "$S" $M
expect_grep "request 1: measure, 1 job" "$T/out"
# A sweep of three collectors and three probes, one request, three jobs (a probe's builds run
# interleaved in one job: its reference minimum is the smallest of theirs). At 3 times that
# minimum, not 2: bdwgc's conservative heap exhausted 02's 14 MiB once with two workers
# running, and the merged report must equal the local one, exhausted cells and all.
expect_status 0 "$GCR" queue submit sweep $SW --probes 01,02,03 --factors 3 \
	--rounds 1 --warmup 0 --meters rusage,census
expect_grep "request 2: sweep, 3 jobs \(split by probes\)" "$T/out" "a sweep is split by probe"
# A measure of two builds, one request, two jobs.
expect_status 0 "$GCR" queue submit measure --build "$B" --build "$B" $M
expect_grep "2 jobs \(split by builds\)" "$T/out" "a measure of two builds is split by build"
i=0
while [ $i -lt 24 ]; do
	"$GCR" queue submit measure --build "$B" $M >/dev/null 2>"$T/err" || fail "submit $i: $(cat "$T/err")"
	i=$((i + 1))
done
expect_eq "$(q "SELECT count(*) FROM queue_job WHERE state = 'queued'")" 30 "30 jobs queued"

# ---- Three workers; one killed in the middle of the slow job ---------------------------
fleet_workers "$FLEET" w1 w2 w3
# wait_for SQL VALUE SECONDS: polls until the query gives VALUE.
wait_for() {
	n=0
	while [ "$(q "$1")" != "$2" ] && [ $n -lt $(($3 * 5)) ]; do
		sleep 0.2
		n=$((n + 1))
	done
	[ "$(q "$1")" = "$2" ]
}
wait_for "SELECT state FROM queue_job WHERE id = 1" running 20 || fail "the slow job never ran"
victim=$(q "SELECT worker FROM queue_job WHERE id = 1")
eval "vpid=\$PID_$victim"
kill -9 "$vpid"
wait "$vpid" 2>/dev/null
wait_for "SELECT count(*) FROM queue_job WHERE state = 'done'" 30 90 || {
	fail "not every job completed"
	"$GCR" queue status --all >&2
}
for w in w1 w2 w3; do
	[ "$w" = "$victim" ] && continue
	eval "p=\$PID_$w"
	kill -TERM "$p"
	wait "$p"
	expect_eq "$?" 0 "worker $w stopped cleanly on SIGTERM"
done
expect_eq "$(q "SELECT count(*) FROM queue_job WHERE state <> 'done'")" 0 "every job done, none failed"
expect_eq "$(q "SELECT count(*) FROM queue_job WHERE exit_status <> 0")" 0 "every verb exited 0"
expect_eq "$(q "SELECT count(*) FROM queue_session")" 30 "one session per job"
expect_eq "$(q "SELECT count(DISTINCT job_id) FROM queue_session")" 30 "every job stored its session"
expect_eq "$(q "SELECT count(*) FROM sessions")" 30 "no session stored twice: 30 in the fleet"
expect_eq "$(q "SELECT count(DISTINCT uuid) FROM sessions")" 30 "30 distinct sessions"
expect_eq "$(q "SELECT count(*) FROM sessions WHERE status <> 'complete'")" 0 "every session complete"
# Whole: every session has the runs its verb makes (measure 1, each sweep part 1 at a factor).
expect_eq "$(q "SELECT count(*) FROM sessions s WHERE (SELECT count(*) FROM runs r WHERE r.session_id = s.id) <> (SELECT count(*) FROM session_builds b WHERE b.session_id = s.id)")" 0 \
	"no session stored half: each has one run per arm"
expect_eq "$(q "SELECT attempt FROM queue_job WHERE id = 1")" 2 "the killed job ran twice"
expect_eq "$(q "SELECT outcome FROM queue_attempt WHERE job_id = 1 ORDER BY id")" "lost
done" "its first attempt was lost, its second done"
expect_eq "$(q "SELECT worker FROM queue_attempt WHERE job_id = 1 ORDER BY id LIMIT 1")" "$victim" \
	"the lost attempt was the killed worker's"
other=$(q "SELECT worker FROM queue_attempt WHERE job_id = 1 AND outcome = 'done'")
[ -n "$other" ] && [ "$other" != "$victim" ] && pass || fail "the killed job completed on another worker ($other)"
q "SELECT reasons FROM queue_job WHERE id = 1" >"$T/reasons"
expect_grep "attempt 1 on $victim: no heartbeat within its lease" "$T/reasons" "the reason is kept"
# Job 1 waits out its lease and then a free worker, which it takes first (priority 10): how
# many others end before it depends on how long the sweep's parts take on this host, but at
# least the one that freed that worker does.
expect_eq "$(q "SELECT count(*) >= 1 FROM queue_job WHERE request_id <> 1 AND finished_at < (SELECT finished_at FROM queue_job WHERE id = 1)")" t \
	"requests in progress at once all advance: others completed while request 1 was in progress"
# The sweep's parts ran on more than one worker (whether a later request's job ends
# while its last part runs is a race between the parts' lengths, which failed on a busy host).
expect_eq "$(q "SELECT count(DISTINCT a.worker) > 1 FROM queue_attempt a JOIN queue_job j ON j.id = a.job_id WHERE j.request_id = 2 AND a.outcome = 'done'")" t \
	"the sweep's request advanced on several workers"
expect_eq "$(q "SELECT count(DISTINCT worker) FROM queue_attempt WHERE outcome = 'done'")" 2 \
	"the two live workers shared the jobs"
expect_status 0 "$GCR" queue result 2
expect_grep "3 of 3 parts done" "$T/out" "the sweep's three parts are done"
expect_grep "probe 02 .*done" "$T/out"
# The sweep's three parts, merged, make the report a local sweep of the three probes makes.
expect_status 0 "$GCR" queue result 2 --md "$T/queued.md" --json "$T/queued.json"
expect_status 0 "$GCR" sweep $SW --probes 01,02,03 --factors 3 --rounds 1 --warmup 0 \
	--meters rusage,census --db "$T/local.db"
expect_status 0 "$GCR" report --session 1 --md "$T/local.md" --json "$T/local.json" --db "$T/local.db"
mask() { sed -E 's/[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?/N/g' "$1"; }
mask "$T/queued.md" >"$T/queued.masked"
mask "$T/local.md" >"$T/local.masked"
if diff "$T/local.masked" "$T/queued.masked" >"$T/md.diff"; then pass; else
	fail "the merged sweep's Markdown differs from a local sweep's beyond its figures"
	head -n 20 "$T/md.diff" >&2
fi
expect_eq "$(jq -c '[.probes[]?.probe // empty] // empty' "$T/queued.json" 2>/dev/null)" \
	"$(jq -c '[.probes[]?.probe // empty] // empty' "$T/local.json" 2>/dev/null)" "the same probes in the JSON"
# The merged sweep's JSON is a sweep's: valid against its schema (docs/schema, as t177 checks).
need_jsonschema
"$PY" "$TOP/tests/cli/schema-check.py" "$TOP/docs/schema" "$T/queued.json" >"$T/schema.out" 2>&1
expect_grep ": ok gcratchet-sweep$" "$T/schema.out" "the merged sweep's JSON is valid against its schema"
expect_status 2 "$GCR" queue result 3 --md "$T/no.md"
expect_grep "merge a sweep's parts; request 3 is a measure" "$T/err"
expect_status 0 "$GCR" queue status
expect_grep "0 queued, 0 running, 30 done, 0 failed" "$T/out"
expect_grep "^$victim .*running" "$T/out" "the killed worker is shown with its stale heartbeat"

# ---- Fencing: a worker frozen past its lease cannot complete the job -------------------
printf '4\n0\n' >"$S/sleep.01_steady"
rm -f "$S/turn.01_steady"
expect_status 0 "$GCR" queue submit measure --build "$S" $M
fleet_workers "$FLEET" f1
wait_for "SELECT state FROM queue_job WHERE id = 31" running 20 || fail "job 31 never ran"
kill -STOP "$PID_f1"
fleet_workers "$FLEET" f2
wait_for "SELECT state FROM queue_job WHERE id = 31" done 30 || fail "job 31 was not taken over"
# The frozen worker's verb ends meanwhile (it is not frozen): thawed, the worker goes straight
# to completing the job, without a heartbeat first, and the completion's fence refuses it.
sleep 4
kill -CONT "$PID_f1"
sleep 3
kill -TERM "$PID_f1" "$PID_f2"
wait "$PID_f1" "$PID_f2"
expect_eq "$(q "SELECT worker || ' ' || attempt FROM queue_job WHERE id = 31")" "f2 2" \
	"the job completed on the worker that took it over"
expect_eq "$(q "SELECT count(*) FROM queue_session WHERE job_id = 31")" 1 "its session stored once"
expect_eq "$(q "SELECT count(*) FROM sessions")" 31 "the frozen worker stored nothing"
expect_grep "job 31: its lease was taken over .*: its result is discarded, nothing stored" \
	"$T/f1.out" "the frozen worker's late completion is refused"

# ---- The database stopped in the middle of a job ---------------------------------------
printf '5\n' >"$S/sleep.01_steady"
rm -f "$S/turn.01_steady"
expect_status 0 "$GCR" queue submit measure --build "$S" $M
GCR_LOCK_FILE="$T/lock.d1" TMPDIR="$T" "$GCR" worker --name d1 --lease 30 --drain \
	>"$T/d1.out" 2>"$T/d1.err" &
PID_d1=$!
wait_for "SELECT state FROM queue_job WHERE id = 32" running 20 || fail "job 32 never ran"
pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1
sleep 3
pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
	-o "-c listen_addresses='' -k $PG_DIR -c fsync=off" start >/dev/null 2>&1 || fail "restart"
wait "$PID_d1"
expect_eq "$?" 0 "the worker drained after the database came back"
expect_grep "lost the fleet's database|waiting for the fleet's database" "$T/d1.out" \
	"the worker saw the database go"
expect_grep "answers again" "$T/d1.out" "and come back"
expect_eq "$(q "SELECT state || ' ' || attempt || ' ' || worker FROM queue_job WHERE id = 32")" \
	"done 1 d1" "the job completed once, on its first attempt"
expect_eq "$(q "SELECT count(*) FROM sessions")" 32 "its session stored once"

# ---- Cancel, and what a worker refuses ---------------------------------------------------
expect_status 0 "$GCR" queue submit measure --build "$B" $M
expect_status 0 "$GCR" queue cancel 33
expect_grep "job 33: 1 job canceled" "$T/out"
expect_status 2 "$GCR" queue cancel 33
expect_grep "nothing queued or running" "$T/err"
expect_status 0 "$GCR" queue submit measure --build "$B" $M
echo "changed" >>"$B/02_other"
seal_manifest "$B"
TMPDIR="$T" GCR_LOCK_FILE="$T/lock.r1" expect_status 0 "$GCR" worker --name r1 --drain
expect_grep "job 34: refused: --build $B: this host's copy" "$T/out" "a build that differs is refused"
expect_eq "$(q "SELECT state || ' ' || attempt FROM queue_job WHERE id = 34")" "queued 0" \
	"the refused job waits for a worker that has the build"
expect_eq "$(q "SELECT count(*) FROM queue_refusal WHERE job_id = 34 AND worker = 'r1'")" 1

expect_status 0 "$GCR" queue cancel 34

# ---- minheap: its answers (no session) reach the fleet; two builds, two jobs -------------
H2="$T/heap2"
BUILD_NAME=heap2 make_script_build "$H2" 01_steady
expect_status 0 "$GCR" queue submit minheap --build "$B" --build "$H2" --probes 01 --repeats 1
expect_grep "2 jobs \(split by builds\)" "$T/out" "a minheap of two builds is split by build"
# An ab is one job: both arms, interleaved, in one session on one host.
expect_status 0 "$GCR" queue submit ab "$H2" "$B" --probes 01 --rounds 2 --warmup 0 \
	--meters rusage,census
expect_grep "request 33: ab, 1 job$" "$T/out" "an ab is never split"
TMPDIR="$T" GCR_LOCK_FILE="$T/lock.m1" expect_status 0 "$GCR" worker --name m1 --drain
expect_grep "done, exit 0, 0 sessions stored, 1 minimum-heap answer" "$T/out"
expect_eq "$(q "SELECT j.state || ' ' || (SELECT count(*) FROM session_builds b WHERE b.session_id = s.session_id) || ' ' || (SELECT count(*) FROM runs r WHERE r.session_id = s.session_id) FROM queue_job j JOIN queue_session s ON s.job_id = j.id WHERE j.request_id = 33")" \
	"done 2 4" "the ab's two arms ran in one session, two rounds each"
expect_eq "$(q "SELECT count(*) FROM queue_job WHERE request_id = 32 AND state = 'done'")" 2 \
	"both minheap jobs done"
expect_eq "$(q "SELECT count(*) FROM minheap m JOIN builds b ON b.id = m.build_id WHERE m.command LIKE 'gcratchet minheap %' AND m.probe = '01_steady'")" 2 \
	"each build's answer is in the fleet's database, once"

# The host class: a --quiet job waits for a worker started with --quiet; a CPU no worker has
# is never taken.
expect_status 0 "$GCR" queue submit --quiet measure --build "$H2" $M
qj=$(q "SELECT max(id) FROM queue_job")
expect_status 0 "$GCR" queue submit --cpu "NoSuchCPU 9000" measure --build "$H2" $M
cj=$(q "SELECT max(id) FROM queue_job")
TMPDIR="$T" GCR_LOCK_FILE="$T/lock.c1" expect_status 0 "$GCR" worker --name c1 --drain
expect_grep "0 done, exiting" "$T/out" "a worker not declared quiet takes neither"
TMPDIR="$T" GCR_LOCK_FILE="$T/lock.c2" expect_status 0 "$GCR" worker --name c2 --drain --quiet
expect_grep "job $qj: done" "$T/out" "a quiet worker takes the quiet job"
expect_eq "$(q "SELECT state FROM queue_job WHERE id = $cj")" queued "no worker has that CPU"
expect_status 0 "$GCR" queue cancel "$cj"

# A verb that names no build runs the default collector: its digest is recorded to be checked.
expect_status 0 "$GCR" queue submit measure --probes 01 --rounds 1
last=$(q "SELECT max(id) FROM queue_job")
q "SELECT builds FROM queue_job WHERE id = $last" >"$T/builds"
expect_grep '"option":"--collector","value":"gen","digest":"[0-9a-f]{16}"' "$T/builds" \
	"the default collector is recorded with its manifest hash"
expect_status 0 "$GCR" queue cancel "$last"

# No password anywhere: a worker and a submit with one in the URL.
SECRET_URL="postgresql://gcr:Qsecret@/fleet?host=$PG_DIR"
expect_status 0 "$GCR" queue status --fleet "$SECRET_URL"
cat "$T/out" "$T/err" >"$T/all"
TMPDIR="$T" GCR_LOCK_FILE="$T/lock.s1" expect_status 0 "$GCR" worker --fleet "$SECRET_URL" --name s1 --once
cat "$T/out" "$T/err" "$T"/*.out "$T"/*.err >>"$T/all"
expect_no_grep "Qsecret" "$T/all" "the fleet's password is in no output"
q "SELECT * FROM queue_job" >"$T/rows"
q "SELECT * FROM queue_worker" >>"$T/rows"
expect_no_grep "Qsecret" "$T/rows" "nor in the queue's rows"
finish
