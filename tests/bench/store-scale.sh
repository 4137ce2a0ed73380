#!/bin/sh
# store-scale — a benchmark, not a test: the store at a fleet's size. Builds a SQLite
# database of SESSIONS x RUNS runs of SAMPLES samples (default 100 x 1000 x 10 = 1,000,000
# samples) from one real session, starts a throwaway PostgreSQL server (tests/cli/lib.sh),
# and times push (SQLite to PostgreSQL), check and history on both backends.
# Usage: sh tests/bench/store-scale.sh [SESSIONS [RUNS]]    (docs/storage.md has the figures)
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/../cli/lib.sh"
SESSIONS=${1:-100}
RUNS=${2:-1000}
export GCR_LOCK_FILE="$T/bench.lock" GCR_BASELINE_DIR="$T/baselines"
pg_start
. "$BENCH/store-scale-data.sh"

PG=$(pg_url fleet)
timed() { # what, command...
	what=$1
	shift
	start=$(date +%s.%N)
	"$@" >"$T/bench.out" 2>&1
	rc=$?
	printf '%-40s %6.2f s  (exit %d)\n' "$what" "$(echo "$(date +%s.%N) - $start" | bc)" "$rc"
	[ "$rc" -le 1 ] || sed 's/^/    /' "$T/bench.out" | tail -n 5
}
timed "push (SQLite -> PostgreSQL)" "$GCR" push --to "$PG"
timed "push again (every session already there)" "$GCR" push --to "$PG"
timed "check, SQLite" "$GCR" check --profile shared_ci --collector scripted
timed "check, PostgreSQL" "$GCR" check --profile shared_ci --collector scripted --db "$PG"
H="history --collector scripted --probe 01_steady --metric census.alloc_bytes"
timed "history, SQLite" "$GCR" $H
timed "history, PostgreSQL" "$GCR" $H --db "$PG"
timed "pull (PostgreSQL -> a new SQLite file)" "$GCR" pull --from "$PG" --db "$T/pulled.db"
echo "store-scale: PostgreSQL holds $(pg_sql fleet "SELECT count(*) FROM samples") samples"
