#!/bin/sh
# needs: pg
# Issue 44, a range scan spread over the fleet: `bisect --all --fleet URL` measures each pass's
# commits side by side, one queue job each (measure with three --build: the commit between its
# measured neighbours, so each stretch is judged within one session, on one host), taken by
# whichever of three workers is idle. On a history whose figure moves three times (up at c5,
# down at c11, a small step up at c16) it names the three changes a local scan names; with a
# worker killed (kill -9) while it holds a job of a pass, the queue runs that job again on
# another worker and the answer is the same.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/cli/bisect-repo.sh"
pg_start
FLEET=$(pg_url fleet)
export GCR_BISECT_CACHE="$T/cache"
unset GCR_FLEET_URL
q() { pg_sql fleet "$1"; }
build_cpu_spin

# Every run spins 300 ms of CPU, so that a job lasts long enough to kill its worker.
S=$T/scripted
script_repo "$S"
for k in $(seq 1 20); do
	a=1000
	[ "$k" -ge 5 ] && a=1200
	[ "$k" -ge 11 ] && a=1020
	[ "$k" -ge 16 ] && a=1040
	script_commit "$S" "$k" "alloc-01_sleepy.txt=$a" spin-01_sleepy.txt=300
done
for k in 1 5 11 16 20; do eval "S$k=$(bisect_hash "$S" $k)"; done
short() { echo "$1" | cut -c1-7; }
scan() { # status db extra...
	_want=$1 _db=$2
	shift 2
	expect_status "$_want" "$GCR" bisect --all --build-cmd "sh build.sh" --repo "$S" --good "$S1" \
		--bad "$S20" --probe 01 --metric census.alloc_bytes --threshold 1% --timeout 60 \
		--db "$_db" "$@"
}
changes() { jq -r '.scan.changes | map(.commit[0:7] + " " + .direction + " " + .kind) | join(",")' "$1"; }
three="$(short "$S5") up change,$(short "$S11") down change,$(short "$S16") up change"

# ---- Locally: the answer to match ----------------------------------------------------------
scan 0 "$T/local.db" --json "$T/local.json"
expect_eq "$(changes "$T/local.json")" "$three" "locally, the three changes"

# ---- Three workers, each with a bench lock of its own (three hosts); a short lease ---------
fleet_workers "$FLEET" w1 w2 w3

# ---- On the fleet: the same three changes, a pass's commits measured side by side ----------
scan 0 "$T/fleet.db" --fleet "$FLEET" --json "$T/fleet.json"
cp "$T/err" "$T/fleet.err"
cp "$T/out" "$T/fleet.out"
expect_eq "$(jq '[.steps[] | select(.role == "step") | .figures.scan.host | select(test("^w[123]$"))] | length' "$T/fleet.json")" \
	"$(jq '[.steps[] | select(.role == "step")] | length' "$T/fleet.json")" "each step names the worker that measured it"
expect_grep "^\[1\] +[0-9a-f]{7} moved .*, measure [0-9.]+ s on w[123]  c10: " "$T/fleet.out" "and says it"
expect_eq "$(changes "$T/fleet.json")" "$three" "on the fleet, the same three changes"
expect_eq "$(jq .scan.measured "$T/fleet.json")" "$(jq .scan.measured "$T/local.json")" \
	"the same commits measured as locally"
expect_eq "$(q "SELECT count(*) FROM queue_job WHERE state <> 'done'")" 0 "every job done"
expect_eq "$(q "SELECT count(*) FROM queue_job WHERE verb = 'measure' AND args LIKE '%scan pass%' AND (length(args) - length(replace(args, '\"--build\"', ''))) / length('\"--build\"') <> 3")" 0 \
	"each of the scan's jobs measures three builds: the commit between its neighbours"
expect_eq "$(q "SELECT max(n) FROM (SELECT count(*) AS n FROM queue_job GROUP BY request_id) r" | awk '{ print ($1 >= 2) ? "several" : $1 }')" \
	several "a pass's measurements are one request of several jobs, out at once"
expect_eq "$(q "SELECT count(DISTINCT worker) FROM queue_job WHERE request_id IN (SELECT request_id FROM queue_job GROUP BY request_id HAVING count(*) >= 3)" | awk '{ print ($1 >= 2) ? "spread" : $1 }')" \
	spread "a pass of three ran on more than one worker"
expect_eq "$(sqlite3 "$T/fleet.db" "SELECT count(DISTINCT uuid) FROM sessions")" \
	"$(q "SELECT count(*) FROM queue_session")" "each job's session copied into --db once"

# ---- Noisy (CPU time, paired): the same three changes on the fleet -------------------------
# The planted CPU time of each commit: 100 ms, 160 from c5, 110 from c11, 130 from c16, as
# t213's local noisy scan (which finds these three, and no other).
N=$T/noisy
script_repo "$N"
for k in $(seq 1 20); do
	ms=100
	[ "$k" -ge 5 ] && ms=160
	[ "$k" -ge 11 ] && ms=110
	[ "$k" -ge 16 ] && ms=130
	script_commit "$N" "$k" "spin-01_sleepy.txt=$ms"
done
expect_status 0 "$GCR" bisect --all --build-cmd "sh build.sh" --repo "$N" --good "$(bisect_hash "$N" 1)" \
	--bad "$(bisect_hash "$N" 20)" --probe 01 --metric time.user_ns --threshold 10% --warmup 0 \
	--rounds 8 --max-rounds 16 --timeout 60 --db "$T/noisy.db" --fleet "$FLEET" --json "$T/noisy.json"
expect_eq "$(jq -r '[.mode, (.scan.changes | map(.subject[0:4] + .direction) | join(","))] | join(" ")' "$T/noisy.json")" \
	"paired c5: up,c11:down,c16:up" "paired on the fleet, the same three changes"

# ---- A worker killed while it holds a job of a pass: the same answer ------------------------
last=$(q "SELECT max(id) FROM queue_job")
"$GCR" bisect --all --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S20" --probe 01 \
	--metric census.alloc_bytes --threshold 1% --timeout 60 --db "$T/kill.db" --fleet "$FLEET" \
	--json "$T/kill.json" >"$T/kill.out" 2>"$T/kill.err" &
BPID=$!
victim= n=0
while [ -z "$victim" ] && [ $n -lt 600 ]; do
	victim=$(q "SELECT worker FROM queue_job WHERE id > $last AND state = 'running' AND request_id IN (SELECT request_id FROM queue_job GROUP BY request_id HAVING count(*) >= 2) ORDER BY id LIMIT 1")
	[ -n "$victim" ] || sleep 0.1
	n=$((n + 1))
done
vjob=$(q "SELECT id FROM queue_job WHERE id > $last AND state = 'running' AND worker = '$victim' ORDER BY id LIMIT 1")
[ -n "$victim" ] && pass || fail "no job of a pass of several was seen running"
eval "kill -9 \$PID_$victim"
wait $BPID
expect_eq "$?" 0 "the scan ends with its answer though a worker was killed"
expect_eq "$(changes "$T/kill.json")" "$three" "the same three changes"
expect_eq "$(q "SELECT string_agg(outcome, ',' ORDER BY attempt) FROM queue_attempt WHERE job_id = $vjob")" \
	"lost,done" "the killed worker's job: lost, then done by another"
expect_eq "$(q "SELECT worker <> '$victim' FROM queue_attempt WHERE job_id = $vjob AND outcome = 'done'")" t \
	"by another worker"
for w in w1 w2 w3; do eval "kill \$PID_$w" 2>/dev/null; done
wait 2>/dev/null
finish
