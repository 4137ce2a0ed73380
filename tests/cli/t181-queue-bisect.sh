#!/bin/sh
# needs: pg
# A bisect through the fleet's queue (issue 30: "a bisect runs its steps on the workers";
# docs/queue.md): a bisect request is one job, its --good and --bad resolved to full hashes at
# submission; a worker runs it into its scratch store and the completion stores, in one
# transaction, the sessions its steps measured, the bisect's record and steps (under the
# fleet's own ids), and its answer with the job, which queue result shows and --json carries.
# A bisect whose answer is exit 2 (the ends did not move) is a result too: done, not retried.
# Every --json it writes (queued, found, failed) is valid against docs/schema.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/cli/bisect-repo.sh"
pg_start
FLEET=$(pg_url fleet)
export GCR_FLEET_URL="$FLEET" GCR_LOCK_FILE="$T/bench.lock"
q() { pg_sql fleet "$1"; }
bisect_repo "$T/repo" || {
	fail "cannot make the repository"
	finish
}
C3=$(bisect_hash "$T/repo" 3)
C6=$(bisect_hash "$T/repo" 6)
C9=$(bisect_hash "$T/repo" 9)
cd "$T" || exit 2
# A census counter is exact, and -O0 builds fast: c6 counts one more minor collection.
BI="--collector-dir repo/tinyms --probe 15 --metric census.minor_collections --make OPT=-O0 --cache $T/cache"

# ---- Submitting ---------------------------------------------------------------------------
expect_status 2 "$GCR" queue submit bisect $BI --resume
expect_grep "resume is refused" "$T/err" "a bisect's --resume is not queued"
expect_status 2 "$GCR" queue submit bisect $BI --good "$C3" --bad "$C9" --json x.json
expect_grep "json is refused" "$T/err" "a bisect's --json is queue result's"
expect_status 2 "$GCR" queue submit bisect $BI --good nosuchrev --bad "$C9"
expect_grep "\-\-good nosuchrev is not a commit of the repository in repo/tinyms" "$T/err"
# HEAD~7 is c9: the job names the commit, not what HEAD will be on a worker.
expect_status 0 "$GCR" queue submit bisect $BI --good "$C3" --bad HEAD~7
expect_grep "request 1: bisect, 1 job$" "$T/out" "a bisect is one job"
expect_eq "$(q "SELECT args LIKE '%\"--bad\",\"$C9\"%' FROM queue_job WHERE id = 1")" t \
	"the job's --bad is the full hash HEAD~7 named at submission"
expect_eq "$(q "SELECT builds FROM queue_job WHERE id = 1")" "[]" \
	"a bisect names no build: the worker builds each commit"
# The ends of this range did not move: the bisect's answer is exit 2, and a result.
expect_status 0 "$GCR" queue submit bisect $BI --good "$C6" --bad "$C9"
# Before any worker ran it: no answer yet (exit 2), a document all the same.
expect_status 2 "$GCR" queue result 1 --json "$T/r0.json"
expect_eq "$(jq -c '[.state, .answer]' "$T/r0.json")" '["queued",null]' "a queued bisect's JSON"

# ---- One worker drains the queue --------------------------------------------------------
TMPDIR="$T" "$GCR" worker --name wb --lease 5 --poll 1 --drain >"$T/wb.out" 2>"$T/wb.err"
expect_eq "$?" 0 "the worker drained the queue"
expect_grep "job 1: done, exit 0, [0-9]+ sessions stored" "$T/wb.out"
expect_grep "job 1: bisect answer .*\"first_bad\":\"$C6\"" "$T/wb.out" "the worker says the answer"
expect_eq "$(q "SELECT state || ' ' || attempt || ' ' || exit_status FROM queue_job WHERE id = 1")" \
	"done 1 0" "the bisect job done, on its first attempt"
expect_eq "$(q "SELECT count(*) FROM queue_attempt WHERE job_id = 1")" 1 "one attempt: done exactly once"
expect_eq "$(q "SELECT outcome FROM queue_attempt WHERE job_id = 1")" done

# queue result names the planted commit; --json carries it.
expect_status 0 "$GCR" queue result 1
expect_grep "^job 1: bisect [0-9]+ in the fleet, found after [0-9]+ steps: $C6 is the first bad commit c6: count a minor collection$" \
	"$T/out" "queue result names the first bad commit"
expect_status 0 "$GCR" queue result 1 --json "$T/r1.json"
expect_eq "$(jq -r '[.format, .state, .worker, .answer.status, .answer.first_bad, .answer.subject] | join(" ")' "$T/r1.json")" \
	"gcratchet-queue-bisect done wb found $C6 c6: count a minor collection" "the JSON's answer"
expect_status 2 "$GCR" queue result 1 --md "$T/no.md"
expect_grep "written with --json" "$T/err"

# The sessions the steps measured are in the fleet, each once, recorded as the job's.
nsess=$(q "SELECT count(*) FROM queue_session WHERE job_id = 1")
[ "$nsess" -ge 3 ] && pass || fail "the bisect job stored $nsess sessions, expected the ends' and each step's"
expect_eq "$(q "SELECT count(*) FROM sessions s JOIN queue_session qs ON qs.session_id = s.id WHERE qs.job_id = 1 AND s.status = 'complete'")" \
	"$nsess" "every session of the bisect is in the fleet, complete"
expect_eq "$(jq '.answer.sessions | length' "$T/r1.json")" "$nsess" "the answer lists the job's sessions"
expect_eq "$(jq -c '.answer.sessions | sort' "$T/r1.json")" \
	"[$(q "SELECT string_agg(CAST(session_id AS TEXT), ',' ORDER BY session_id) FROM queue_session WHERE job_id = 1")]" \
	"the answer's sessions are the fleet's ids"
# The bisect's record and its steps, with the fleet's session and build ids.
bid=$(jq -r .answer.bisect "$T/r1.json")
expect_eq "$(q "SELECT status || ' ' || mode || ' ' || first_bad || ' ' || (pid IS NULL) FROM bisects WHERE id = $bid")" \
	"found exact $C6 true" "the bisect's record is in the fleet"
steps=$(jq .answer.steps "$T/r1.json")
expect_eq "$(q "SELECT count(*) FROM bisect_steps WHERE bisect_id = $bid")" $((steps + 2)) \
	"the ends and each step are in the fleet"
expect_eq "$(q "SELECT count(*) FROM bisect_steps s WHERE bisect_id = $bid AND (NOT EXISTS (SELECT 1 FROM queue_session qs WHERE qs.job_id = 1 AND qs.session_id = CAST(s.sessions AS BIGINT)) OR NOT EXISTS (SELECT 1 FROM builds b WHERE b.id = s.build_id))")" \
	0 "each step names its session and build by the fleet's ids"
expect_eq "$(q "SELECT decision FROM bisect_steps WHERE bisect_id = $bid AND commit_hash = '$C6'")" bad \
	"c6 stored as bad in the fleet"

# The second bisect: its ends did not move, exit 2, an answer all the same: done once.
expect_eq "$(q "SELECT state || ' ' || attempt || ' ' || exit_status FROM queue_job WHERE id = 2")" \
	"done 1 2" "a bisect's exit-2 answer completes the job, not retried"
expect_status 0 "$GCR" queue result 2
expect_grep "^job 2: bisect [0-9]+ in the fleet, failed after 0 steps: .*did not move" "$T/out" \
	"why the second bisect has no first bad commit"
expect_eq "$(q "SELECT count(*) FROM bisects")" 2 "two bisects in the fleet, one per job"
expect_status 0 "$GCR" queue result 2 --json "$T/r2.json"
expect_eq "$(jq -c '[.answer.status, .answer.first_bad]' "$T/r2.json")" '["failed",null]' \
	"the failed bisect's JSON"

# ---- Every JSON written is valid against its schema (docs/schema, as t177 checks) ----------
need_jsonschema
jq '.answer.status = "maybe"' "$T/r1.json" >"$T/drift.json"
"$PY" "$TOP/tests/cli/schema-check.py" "$TOP/docs/schema" "$T/r0.json" "$T/r1.json" "$T/r2.json" \
	>"$T/schema.out" 2>&1
expect_eq "$?" 0 "queue result --json is valid against docs/schema/gcratchet-queue-bisect.json"
expect_eq "$(grep -c ': ok gcratchet-queue-bisect$' "$T/schema.out")" 3 "each of the three checked"
"$PY" "$TOP/tests/cli/schema-check.py" --invalid "$TOP/docs/schema" "$T/drift.json" >"$T/drift.out" 2>&1
expect_eq "$?" 0 "an answer of another status is refused"
finish
