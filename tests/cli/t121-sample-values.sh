#!/bin/sh
# needs: pg
# Sample values (issue 25, item 15). A stored value that is no number a metric can hold (text,
# a blob, NaN or an infinity, a negative count) used to pass: text read as its numeric prefix
# ('1000 garbage' was 1000, ok), 9e999 as an infinity, -1 allocations as "improved". Now
# reading it back is an error naming the run and the metric, exit 2, in check, baseline pin
# and update (which judge the same runs), export, report and history; on SQLite and on
# PostgreSQL (NaN, Infinity). The store refuses to insert one (tests/unit/test_store.c: the
# census reader already refuses them, so no probe can get one this far).
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
export GCR_BASELINE_DIR="$T/baselines"
B="$T/scripted"
make_script_build "$B" 01_steady
CHECK="$GCR check --profile shared_ci --collector scripted"

expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 3 --warmup 0 --meters rusage,census
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session 1
cp "$T/baselines/shared_ci/scripted.json" "$T/pinned.json"
run=$(sql "SELECT MIN(id) FROM runs WHERE session_id = 1")
cell="run_id = $run AND metric = 'census.alloc_bytes'"

# refused DB SAYS: every verb that reads the session's values refuses it, naming the run.
refused() {
	db=$1 says=$2
	# shellcheck disable=SC2086 # $CHECK is words
	expect_status 2 $CHECK --db "$db"
	expect_grep "run $run: census.alloc_bytes $says" "$T/err" "check names the run ($says)"
	expect_no_grep "^verdict: ok" "$T/out"
	expect_status 2 "$GCR" baseline update --profile shared_ci --collector scripted --session 1 --db "$db"
	expect_grep "run $run: census.alloc_bytes $says" "$T/err" "update names the run"
	expect_status 2 "$GCR" baseline pin --profile shared_ci --collector scripted --session 1 \
		--db "$db" --out "$T/repin.json"
	expect_grep "run $run: census.alloc_bytes $says" "$T/err" "pin names the run"
	[ -e "$T/repin.json" ] && fail "pin wrote a baseline from a bad value"
	expect_status 2 "$GCR" export --session 1 --db "$db" --out "$T/x.json"
	expect_grep "run $run: census.alloc_bytes $says" "$T/err" "export names the run"
	expect_status 2 "$GCR" report --session 1 --db "$db" --md "$T/x.md"
	expect_status 2 "$GCR" history --collector scripted --probe 01_steady --metric census.alloc_bytes --db "$db"
	expect_grep "run $run: census.alloc_bytes $says" "$T/err" "history names the run"
	# The baseline is as it was pinned.
	if cmp -s "$T/pinned.json" "$T/baselines/shared_ci/scripted.json"; then pass; else
		fail "the baseline changed after a bad value ($says)"
	fi
}

# ---- SQLite: written behind the store's back, as sqlite3 would ---------------------------
for v in "'1000 garbage'|is stored as text, not a number" \
	"'1000'|-" \
	"x'e803'|is stored as a blob, not a number" \
	"9e999|is \\+infinity, not a finite number" \
	"-9e999|is -infinity, not a finite number" \
	"-1|is -1, but a size in bytes is never negative"; do
	sql "UPDATE samples SET value = ${v%%|*} WHERE $cell"
	if [ "${v#*|}" = - ]; then
		# Text that is a whole number is a number to a REAL column: SQLite stores 1000.
		# shellcheck disable=SC2086
		expect_status 0 $CHECK
	else
		refused "$GCR_DB" "${v#*|}"
	fi
	sql "UPDATE samples SET value = 1000 WHERE $cell"
done
# A negative collection count, and a ratio above 1, likewise.
sql "UPDATE samples SET value = -2 WHERE run_id = $run AND metric = 'census.major_collections'"
# shellcheck disable=SC2086
expect_status 2 $CHECK
expect_grep "run $run: census.major_collections is -2, but a count is never negative" "$T/err"
sql "UPDATE samples SET value = 2 WHERE run_id = $run AND metric = 'census.major_collections'"
sql "INSERT INTO samples(run_id, metric, value) VALUES($run, 'census.mmu_10ms', 1.5)"
expect_status 2 "$GCR" export --session 1
expect_grep "run $run: census.mmu_10ms is 1.5, but a ratio is from 0 to 1" "$T/err"
sql "DELETE FROM samples WHERE run_id = $run AND metric = 'census.mmu_10ms'"
# Restored: the same session passes again.
# shellcheck disable=SC2086
expect_status 0 $CHECK

# ---- PostgreSQL: its NaN and Infinity are numbers to it, not to a metric -----------------
pg_start
PG=$(pg_url fleet)
expect_status 0 "$GCR" push --to "$PG" --session 1
pgrun=$(pg_sql fleet "SELECT MIN(id) FROM runs")
run=$pgrun
cell="run_id = $run AND metric = 'census.alloc_bytes'"
# shellcheck disable=SC2086
expect_status 0 $CHECK --db "$PG"
for v in "'NaN'|is NaN, not a finite number" "'Infinity'|is \\+infinity, not a finite number" \
	"'-Infinity'|is -infinity" "-1|is -1, but a size in bytes is never negative"; do
	pg_sql fleet "UPDATE samples SET value = ${v%%|*} WHERE $cell" >/dev/null
	refused "$PG" "${v#*|}"
	pg_sql fleet "UPDATE samples SET value = 1000 WHERE $cell" >/dev/null
done
# A bad value in the source stops its push: the fleet never gets it.
run=$(sql "SELECT MIN(id) FROM runs WHERE session_id = 1")
sql "UPDATE samples SET value = 9e999 WHERE run_id = $run AND metric = 'census.alloc_bytes'"
expect_status 2 "$GCR" push --to "$(pg_url other)" --session 1
expect_grep "run $run: census.alloc_bytes is \\+infinity" "$T/err"
finish
