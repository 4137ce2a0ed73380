#!/bin/sh
# push-copy — a benchmark, not a test: push against a plain COPY of the same rows into the same
# schema, side by side and paired (issue 44). Builds store-scale's SQLite store (SESSIONS x RUNS
# runs, default 1,000,000 samples), writes the rows a push stores (hosts, builds, sessions,
# arms, runs, samples) as COPY text files, and then, ROUNDS times, into two empty databases
# made from one template of gcratchet's schema: `gcratchet push` of every session, and psql's
# \copy of the files in one transaction. The order alternates each round (push first, then
# COPY first). Prints both times and their ratio per round, and the median ratio.
# Usage: sh tests/bench/push-copy.sh [SESSIONS [RUNS [ROUNDS]]]   (docs/storage.md has the figures)
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/../cli/lib.sh"
SESSIONS=${1:-100}
RUNS=${2:-1000}
ROUNDS=${3:-6}
export GCR_LOCK_FILE="$T/bench.lock" GCR_BASELINE_DIR="$T/baselines"
pg_start
. "$BENCH/store-scale-data.sh"
. "$BENCH/paired.sh"

# The rows, in COPY's text format, as the SQLite file holds them (ids included: a plain COPY
# maps nothing). Written before any timing.
mkdir -p "$T/rows"
python3 - "$GCR_DB" "$T/rows" <<'EOF' || { echo "push-copy: exporting the rows failed" >&2; exit 2; }
import sqlite3, sys
db, out = sys.argv[1], sys.argv[2]
tables = {
    "hosts": "id, fingerprint, hostname, facts",
    "builds": "id, name, collector, collector_version, git_commit, dir, manifest, manifest_hash, capabilities",
    "sessions": "id, host_id, command, started_at, finished_at, status, seed, size, rounds, warmup,"
                " probes, meters, load_before, load_after, harness_version, facts, pid, boot_id, uuid",
    "session_builds": "session_id, position, build_id, label, knobs",
    "runs": "id, session_id, build_id, probe, size, round, seq, warmup, kind, status, detail,"
            " checksum, premise, stderr_tail, started_at, arm",
    "samples": "run_id, metric, value",
}
def field(v):
    if v is None:
        return "\\N"
    if isinstance(v, float):
        return repr(v)
    return str(v).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
c = sqlite3.connect(db)
with open(out + "/load.sql", "w") as load:
    load.write("\\set ON_ERROR_STOP 1\nBEGIN;\n")
    for t, cols in tables.items():
        with open(f"{out}/{t}.tsv", "w") as f:
            for row in c.execute(f"SELECT {cols} FROM {t}"):
                f.write("\t".join(field(v) for v in row) + "\n")
        load.write(f"\\copy {t}({cols}) FROM '{out}/{t}.tsv'\n")
    load.write("COMMIT;\n")
EOF

# The template: gcratchet's schema, made by gcratchet (a small session pushed, then emptied),
# copied by CREATE DATABASE ... TEMPLATE for each side of each round.
"$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage --probes 01 --db "$T/empty.db" >/dev/null 2>&1
"$GCR" push --to "$(pg_url tmpl)" --db "$T/empty.db" >/dev/null 2>&1 ||
	{ echo "push-copy: making the template failed" >&2; exit 2; }
pg_sql tmpl "TRUNCATE hosts, builds, sessions CASCADE" >/dev/null 2>&1
PSQL="$PG_BIN/psql -X -q -h $PG_DIR -U gcr"

now() { date +%s.%N; }
fresh() { # NAME: an empty database of the template
	pg_sql postgres "DROP DATABASE IF EXISTS $1" >/dev/null 2>&1
	pg_sql postgres "CREATE DATABASE $1 TEMPLATE tmpl" >/dev/null
}
push_side() { # seconds on stdout
	fresh p
	s=$(now)
	"$GCR" push --to "$(pg_url p)" >"$T/push.out" 2>&1 || { echo "push-copy: push failed" >&2; tail -3 "$T/push.out" >&2; exit 2; }
	echo "$(now) - $s" | bc
}
copy_side() {
	fresh c
	s=$(now)
	$PSQL -d c -f "$T/rows/load.sql" >"$T/copy.out" 2>&1 || { echo "push-copy: COPY failed" >&2; tail -3 "$T/copy.out" >&2; exit 2; }
	echo "$(now) - $s" | bc
}

echo "push-copy: $ROUNDS rounds, paired; each side into a fresh database of gcratchet's schema"
printf '%-6s %10s %10s %8s\n' round push_s copy_s ratio
paired_rounds "$ROUNDS" %10.2f push_side copy_side || exit 2
# Both sides stored the same rows.
for t in sessions runs samples; do
	a=$(pg_sql p "SELECT count(*) FROM $t") b=$(pg_sql c "SELECT count(*) FROM $t")
	[ "$a" = "$b" ] || echo "push-copy: $t differ: push stored $a, COPY $b" >&2
done
echo "push-copy: $(pg_sql p "SELECT count(*) FROM samples") samples each side; median push/COPY ratio $PAIRED_MEDIAN"
