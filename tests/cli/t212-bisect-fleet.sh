#!/bin/sh
# needs: pg
# Issue 44, spread over the fleet (docs/bisect.md, "On the fleet"): `bisect --fleet URL` runs
# each of its measurements as a job of the fleet's queue, `gcratchet measure` with one --build
# per arm (a commit's arms paired on the one host that runs the job) and the bisect's plan and
# run options, taken by any idle worker; each job's session is copied into the bisect's own
# store. On bisect-repo.sh's scripted history with three workers the fleet names the commit a
# local bisect names; with a worker killed (kill -9) while it holds a job, the queue runs the
# job again on another worker and the answer is the same; Ctrl-C cancels the jobs it queued.
# A step whose probe crashes is a job done (measure --halt-on-failure exits 1, a result), not
# one retried.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/cli/bisect-repo.sh"
pg_start
FLEET=$(pg_url fleet)
# The server trusts the socket: a password in the URL is ignored, and must appear nowhere.
FLEETPW=$(echo "$FLEET" | sed 's#^postgresql://gcr@#postgresql://gcr:Zsecret@#')
export GCR_BISECT_CACHE="$T/cache"
unset GCR_FLEET_URL
q() { pg_sql fleet "$1"; }
build_cpu_spin

# 01's census.alloc_bytes rises 1000 -> 2000 at c6; every run spins 400 ms of CPU, so that a
# job lasts long enough to kill its worker. c4, the first step, crashes (SIGSEGV) with ASLR on
# only.
S=$T/scripted
script_repo "$S"
script_commit "$S" 1 spin-01_sleepy.txt=400
script_commit "$S" 2
script_commit "$S" 3
script_commit "$S" 4 crash-01_sleepy.txt=aslr
script_commit "$S" 5 crash-01_sleepy.txt=0
script_commit "$S" 6 alloc-01_sleepy.txt=2000
script_commit "$S" 7
script_commit "$S" 8
for k in 1 2 3 4 5 6 7 8; do eval "S$k=$(bisect_hash "$S" $k)"; done
B="--build-cmd 'sh build.sh' --repo $S --good $S1 --bad $S8 --probe 01 --metric census.alloc_bytes"
bisect() { # status db extra...
	_want=$1 _db=$2
	shift 2
	expect_status "$_want" "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good "$S1" \
		--bad "$S8" --probe 01 --metric census.alloc_bytes --timeout 60 --db "$_db" "$@"
}
first_bad() { sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$1"; }

# ---- Locally: the answer to match ----------------------------------------------------------
bisect 0 "$T/local.db" --json "$T/local.json"
cp "$T/out" "$T/local.out"
expect_eq "$(first_bad "$T/local.out")" "$S6" "locally, c6 is the first bad commit"

# --fleet is the queue's PostgreSQL database: a file is refused, saying so.
bisect 2 "$T/nofleet.db" --fleet "$T/file.db"
expect_grep "^gcratchet bisect: --fleet: .*file.db: the queue needs the fleet's PostgreSQL database" \
	"$T/err" "a file as the fleet is refused"

# ---- Workers -------------------------------------------------------------------------------
# Each with a bench lock of its own, as on three hosts; a short lease, so a killed worker's
# job comes back soon.
fleet_workers "$FLEET" w1 w2 w3

# ---- On the fleet: the same answer, every step a job ---------------------------------------
bisect 0 "$T/fleet.db" --fleet "$FLEETPW" --json "$T/fleet.json"
cp "$T/out" "$T/fleet.out"
cp "$T/err" "$T/fleet.err"
expect_eq "$(first_bad "$T/fleet.out")" "$S6" "on the fleet, the same first bad commit"
njobs=$(q "SELECT count(*) FROM queue_job")
nsess=$(jq '[.steps[].sessions[]] | unique | length' "$T/fleet.json")
expect_eq "$njobs" "$nsess" "one job per session the bisect measured ($nsess)"
expect_eq "$(q "SELECT count(*) FROM queue_job WHERE state = 'done' AND verb = 'measure'")" "$njobs" \
	"every job a measure, done"
expect_eq "$(q "SELECT count(*) FROM queue_job WHERE attempt = 1")" "$njobs" \
	"each done on its first attempt: a crashed step is a result (exit 1), not retried"
expect_eq "$(q "SELECT count(*) FROM queue_job WHERE exit_status = 1") $(q "SELECT count(*) FROM queue_job WHERE args LIKE '%--no-aslr%'")" \
	"1 1" "the crashed step's job exits 1, and the run again with ASLR off is a job of its own"
expect_grep "skipped: 01_sleepy crashed: .*SIGSEGV.*the crash depends on the address layout" \
	"$T/fleet.out" "the crash at c4 is told as locally"
# The steps' sessions are in the bisect's store (--db), copied from the fleet's.
for id in $(jq '[.steps[].sessions[]] | unique | .[]' "$T/fleet.json"); do
	expect_eq "$(sqlite3 "$T/fleet.db" "SELECT status IN ('complete', 'incomplete') FROM sessions WHERE id = $id")" 1 \
		"the step's session $id is in --db"
done
expect_eq "$(sqlite3 "$T/fleet.db" "SELECT count(DISTINCT uuid) FROM sessions")" \
	"$(q "SELECT count(*) FROM sessions s JOIN queue_session qs ON qs.session_id = s.id")" \
	"--db holds each job's session, once"
expect_status 0 "$GCR" export --db "$T/fleet.db" --session "$(jq '.steps[-1].sessions[0]' "$T/fleet.json")"
# A job is measure with one --build per arm, the engine's plan, the bisect's run options.
expect_eq "$(q "SELECT args FROM queue_job ORDER BY id LIMIT 1" | jq -r '[.[0], .[2], .[4], .[6], .[8], .[10], .[12], .[14]] | join(" ")')" \
	"--build --build --probes --meters --size --rounds --warmup --halt-on-failure" \
	"the ends' job: two arms, the plan, halt-on-failure"
expect_eq "$(q "SELECT count(*) FROM queue_job WHERE args NOT LIKE '%\"--timeout\",\"60\"%'")" 0 \
	"the bisect's run options (--timeout 60) in every job"
expect_grep "^fleet: [0-9]+ of [0-9]+ jobs? done" "$T/fleet.err" "progress on stderr"

expect_eq "$(q "SELECT count(*) FROM queue_job WHERE args LIKE '%Zsecret%'") $(q "SELECT count(*) FROM queue_request WHERE args LIKE '%Zsecret%'")" \
	"0 0" "the fleet's password is in no job (the session's command has it redacted)"
expect_no_grep "Zsecret" "$T/fleet.err" "nor in what the bisect says"

# ---- A worker killed while it holds a job: the queue runs it again, the same answer ---------
last=$(q "SELECT max(id) FROM queue_job")
"$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S8" --probe 01 \
	--metric census.alloc_bytes --timeout 60 --db "$T/kill.db" --fleet "$FLEET" \
	>"$T/kill.out" 2>"$T/kill.err" &
BPID=$!
victim= n=0
while [ -z "$victim" ] && [ $n -lt 300 ]; do
	victim=$(q "SELECT worker FROM queue_job WHERE id > $last AND state = 'running' ORDER BY id LIMIT 1")
	[ -n "$victim" ] || sleep 0.1
	n=$((n + 1))
done
vjob=$(q "SELECT id FROM queue_job WHERE id > $last AND state = 'running' ORDER BY id LIMIT 1")
[ -n "$victim" ] && pass || fail "no job of the bisect was seen running"
eval "kill -9 \$PID_$victim"
wait $BPID
expect_eq "$?" 0 "the bisect ends with its answer though a worker was killed"
expect_eq "$(first_bad "$T/kill.out")" "$S6" "the same first bad commit"
expect_eq "$(q "SELECT string_agg(outcome || ' ' || worker, ',' ORDER BY attempt) FROM queue_attempt WHERE job_id = $vjob" | sed "s/ $victim\(,\|$\)/ KILLED\1/")" \
	"lost KILLED,done $(q "SELECT worker FROM queue_attempt WHERE job_id = $vjob AND outcome = 'done'")" \
	"the killed worker's job: lost by it, then done by another"
expect_eq "$(q "SELECT worker <> '$victim' FROM queue_attempt WHERE job_id = $vjob AND outcome = 'done'")" t \
	"so the bisect's sessions ran on more than one worker"
expect_grep "^fleet: job $vjob \(bisect .*\) runs again, attempt 2: attempt 1 on $victim: .*heartbeat" \
	"$T/kill.err" "the bisect says the job runs again, and why"
expect_eq "$(sqlite3 "$T/kill.db" "SELECT count(*) FROM sessions")" \
	"$(q "SELECT count(*) FROM queue_session WHERE job_id > $last")" \
	"each job's session in --db once, none of the killed attempt's"

# ---- Ctrl-C: the jobs it queued are canceled; --resume goes on on the fleet ----------------
for w in w1 w2 w3; do eval "kill \$PID_$w" 2>/dev/null; done
wait 2>/dev/null
last=$(q "SELECT max(id) FROM queue_job")
"$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S8" --probe 01 \
	--metric census.alloc_bytes --timeout 60 --db "$T/int.db" --fleet "$FLEET" \
	>"$T/int.out" 2>"$T/int.err" &
BPID=$!
n=0
while [ "$(q "SELECT count(*) FROM queue_job WHERE id > $last AND state = 'queued'")" = 0 ] && [ $n -lt 300 ]; do
	sleep 0.1
	n=$((n + 1))
done
# The job's first build changes (its manifest, one byte more) after it was queued: a worker
# refuses it, and the bisect says why while the job waits.
dir=$(q "SELECT args FROM queue_job WHERE id > $last" | jq -r '.[1]')
cp "$dir/manifest.json" "$T/manifest.keep"
printf ' ' >>"$dir/manifest.json"
TMPDIR="$T" GCR_LOCK_FILE="$T/lock.w5" "$GCR" worker --fleet "$FLEET" --name w5 --lease 3 \
	--poll 1 >"$T/w5.out" 2>"$T/w5.err" &
PID_w5=$!
n=0
while ! grep -q "refused" "$T/int.err" && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
expect_grep "^fleet: job [0-9]+ \(bisect [0-9a-f]+ vs [0-9a-f]+\) queued: .*refused by w5.*manifest hash" \
	"$T/int.err" "a worker's refusal is said, with its reason"
kill -INT $BPID
wait $BPID
expect_eq "$?" 2 "Ctrl-C stops the bisect (exit 2)"
kill $PID_w5 2>/dev/null
wait $PID_w5 2>/dev/null
cp "$T/manifest.keep" "$dir/manifest.json"
expect_grep "bisect 1 interrupted after 0 steps .*continue with: gcratchet bisect --resume 1" \
	"$T/int.err" "it says how to go on"
expect_grep "^fleet: request [0-9]+: 1 job canceled$" "$T/int.err" "and that it canceled its job"
expect_eq "$(q "SELECT string_agg(state, ',') FROM queue_job WHERE id > $last")" canceled \
	"the job it queued is canceled, not left for a worker"
# A job canceled in the queue by someone else stops the bisect too, resumable.
last=$(q "SELECT max(id) FROM queue_job")
"$GCR" bisect --resume --db "$T/int.db" --fleet "$FLEET" >"$T/cancel.out" 2>"$T/cancel.err" &
BPID=$!
n=0
while [ "$(q "SELECT count(*) FROM queue_job WHERE id > $last AND state = 'queued'")" = 0 ] && [ $n -lt 300 ]; do
	sleep 0.1
	n=$((n + 1))
done
expect_status 0 "$GCR" queue cancel --fleet "$FLEET" "$(q "SELECT max(id) FROM queue_job")"
wait $BPID
expect_eq "$?" 2 "a job canceled in the queue stops the bisect (exit 2)"
expect_grep "fleet job [0-9]+ \(bisect .*\) was canceled in the queue" "$T/cancel.err" "it says why"
expect_grep "continue with: gcratchet bisect --resume 1" "$T/cancel.err" "and how to go on"
# One worker, sharing this host's bench lock with the bisect: the bisect lets it go while its
# jobs are out (else the worker's measure would wait for it, --lock-timeout 5, and fail).
TMPDIR="$T" "$GCR" worker --fleet "$FLEET" --name w4 --lease 3 --poll 1 >"$T/w4.out" 2>"$T/w4.err" &
PID_w4=$!
expect_status 0 "$GCR" bisect --resume --db "$T/int.db" --fleet "$FLEET" --lock-timeout 5
expect_eq "$(first_bad "$T/out")" "$S6" "resumed on the fleet, the same first bad commit"
expect_eq "$(q "SELECT string_agg(DISTINCT state || ' ' || attempt || ' ' || worker, ',') FROM queue_job WHERE id > $last AND state <> 'canceled'")" \
	"done 1 w4" "each job of the resumed bisect done by w4 on its first attempt"
kill $PID_w4 2>/dev/null
wait 2>/dev/null
finish
