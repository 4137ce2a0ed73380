#!/bin/sh
# push-sweep — a benchmark, not a test: the time to push one sweep session with many cells and
# many minimum-heap answers, by two gcratchet binaries side by side and paired (issue 44, item
# 5: a sweep's cells and answers went one statement each). A small real sweep of a scripted
# build is made, then given ARMS arms (a build at a factor each) of PROBES probes' cells and
# ANSWERS answers of its build, as a large sweep of many factors would have; then, ROUNDS
# times, each binary pushes it into a fresh database of gcratchet's schema, the order
# alternating each round. Prints both times and their ratio per round, and the median ratio.
# Usage: sh tests/bench/push-sweep.sh OTHER_GCRATCHET [ARMS [PROBES [ANSWERS [ROUNDS]]]]
#   OTHER_GCRATCHET: the binary to compare with this tree's build/gcratchet (say, a build of the
#   commit before, made in a `git worktree` of it; its build/gcratchet-launch beside it).
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/../cli/lib.sh"
. "$BENCH/paired.sh"
OTHER=${1:?usage: push-sweep.sh OTHER_GCRATCHET [ARMS [PROBES [ANSWERS [ROUNDS]]]]}
ARMS=${2:-24}
PROBES=${3:-14}
ANSWERS=${4:-42}
ROUNDS=${5:-6}
export GCR_LOCK_FILE="$T/bench.lock" GCR_BASELINE_DIR="$T/baselines"
pg_start
B="$T/scripted"
make_script_build "$B" 01_a
echo 5 >"$B/heap.01_a"
"$GCR" sweep --build "$B" --size ci --probes 01 --factors 2 --rounds 1 --warmup 0 \
	--db "$T/src.db" >/dev/null 2>&1 || { echo "push-sweep: the sweep failed" >&2; exit 2; }
python3 - "$T/src.db" "$ARMS" "$PROBES" "$ANSWERS" <<'EOF' || { echo "push-sweep: planting failed" >&2; exit 2; }
import sqlite3, sys
db, arms, probes, answers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
c = sqlite3.connect(db)
sid, build, host = c.execute("SELECT s.id, b.build_id, s.host_id FROM sessions s"
                             " JOIN session_builds b ON b.session_id = s.id").fetchone()
c.execute("DELETE FROM sweep_cells")
for a in range(arms):
    if a > 0:
        c.execute("INSERT INTO session_builds(session_id, position, build_id, label, knobs)"
                  " VALUES(?, ?, ?, ?, NULL)", (sid, a, build, f"scripted@{a + 1}"))
    c.executemany("INSERT INTO sweep_cells(session_id, arm, probe, factor, heap_mb,"
                  " reference_build, reference_mb) VALUES(?, ?, ?, ?, ?, 'scripted', 5)",
                  [(sid, a, f"p{p:04d}", 1.0 + a / 7.0, 5 * (a + 1)) for p in range(probes)])
c.executemany("INSERT INTO minheap(host_id, build_id, probe, size, started_at, command, outcome,"
              " min_heap_mb, lo_mb, step_mb, repeats, runs, unlimited_peak_bytes, checksum,"
              " detail) VALUES(?, ?, ?, 'ci', ?, 'gcratchet minheap', 'found', 5, 4, 1, 3, 8,"
              " 2097152, '0x00000000000000aa', NULL)",
              [(host, build, f"p{k % 1000:04d}", f"2026-01-01T00:{k // 1000 % 60:02d}:00Z")
               for k in range(answers)])
c.commit()
EOF
cells=$(sqlite3 "$T/src.db" "SELECT count(*) FROM sweep_cells")
answers=$(sqlite3 "$T/src.db" "SELECT count(*) FROM minheap")

# The template: gcratchet's schema, made by this tree's gcratchet (an empty sweep session
# pushed, then emptied), copied by CREATE DATABASE ... TEMPLATE for each push.
"$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage --db "$T/empty.db" >/dev/null 2>&1
"$GCR" push --to "$(pg_url tmpl)" --db "$T/empty.db" >/dev/null 2>&1 ||
	{ echo "push-sweep: making the template failed" >&2; exit 2; }
pg_sql tmpl "TRUNCATE hosts, builds, sessions, minheap CASCADE" >/dev/null 2>&1

now() { date +%s.%N; }
side() { # BINARY NAME: seconds on stdout
	pg_sql postgres "DROP DATABASE IF EXISTS $2" >/dev/null 2>&1
	pg_sql postgres "CREATE DATABASE $2 TEMPLATE tmpl" >/dev/null
	s=$(now)
	"$1" push --to "$(pg_url "$2")" --db "$T/src.db" >"$T/$2.out" 2>&1 ||
		{ echo "push-sweep: $1 push failed" >&2; tail -3 "$T/$2.out" >&2; exit 2; }
	echo "$(now) - $s" | bc
}

echo "push-sweep: one sweep session of $ARMS arms, $cells cells and $answers answers; $ROUNDS rounds, paired"
echo "  old: $OTHER"
echo "  new: $GCR"
printf '%-6s %10s %10s %8s\n' round old_s new_s old/new
paired_rounds "$ROUNDS" %10.3f 'side "$OTHER" o' 'side "$GCR" n' || exit 2
# Both stored the same rows.
for t in session_builds sweep_cells minheap; do
	a=$(pg_sql o "SELECT count(*) FROM $t") b=$(pg_sql n "SELECT count(*) FROM $t")
	[ "$a" = "$b" ] || echo "push-sweep: $t differ: old stored $a, new $b" >&2
done
echo "push-sweep: median old/new ratio $PAIRED_MEDIAN"
