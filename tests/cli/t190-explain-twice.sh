#!/bin/sh
# needs: valgrind
# Issue 41, defect 8: a run's stored profile that lists a function twice is damaged, and every
# reader refuses it with a message naming the session, the run, the probe and the function.
# explain took the first row and dropped the other (36 M Ir vanished, the function showed as
# "only in" the other session); fnprof_check let a name through twice when the two rows were
# not side by side.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
M="--collector gen --probes 02 --size ci --rounds 1 --warmup 0 --meters census,valgrind"

expect_status 0 "$GCR" measure $M
expect_status 0 "$GCR" measure $M
expect_status 0 "$GCR" explain --session 2 --against 1
expect_grep "02_survivor_promotion" "$T/out" "explain compares the two sessions"

# Session 1's valgrind run: its third function renamed as its first (both rows stay, in order).
vg=$(sql "SELECT r.id FROM runs r WHERE r.session_id = 1 AND r.kind = 'valgrind'")
first=$(sql "SELECT name FROM run_functions WHERE run_id = $vg AND rank = 1")
sql "UPDATE run_functions SET name = (SELECT name FROM run_functions WHERE run_id = $vg AND rank = 1)
	WHERE run_id = $vg AND rank = 3"
expect_eq "$(sql "SELECT count(*) FROM run_functions WHERE run_id = $vg AND name = '$first'")" 2 \
	"the planted profile lists $first twice"
expect_status 2 "$GCR" explain --session 2 --against 1
expect_grep "session 1, run $vg \(probe 02_survivor_promotion, its valgrind run\): function $first is listed twice" \
	"$T/err" "explain names the session, the run, the probe and the function"
expect_eq "$(wc -c <"$T/out")" 0 "explain prints no table from a damaged profile"
expect_status 2 "$GCR" explain --session 1 --against 2
expect_grep "function $first is listed twice" "$T/err" "either side"
# The other readers of the same rows: export, and ab-style reports of the session.
expect_status 2 "$GCR" export --session 1
expect_grep "session 1, run $vg .*function $first is listed twice" "$T/err" "export refuses it too"
finish
