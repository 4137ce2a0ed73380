#!/bin/sh
# needs: pg
# A sweep's cells and its minimum-heap answers travel as its runs do (COPY, issue 44 item 5):
# the statements a push sends do not grow with the cells or the answers; pushing twice stores
# once, the answers' identity rule kept (two answers of one build, probe, size and second are
# two); a failure in the middle of either leaves nothing of the session; pull brings every row
# back equal; and a queue job's completion copy sends the same statements for a sweep of one
# probe as for one of eight, and for a minheap of one probe as for one of eight.
. "$(dirname "$0")/lib.sh"
pg_start
export GCR_BASELINE_DIR="$T/baselines"
B="$T/scripted"
PROBES="01_a 02_b 03_c 04_d 05_e 06_f 07_g 08_h"
# shellcheck disable=SC2086
make_script_build "$B" $PROBES
for p in $PROBES; do echo 5 >"$B/heap.$p"; done
PG=$(pg_url fleet)
# An answer is told by its host, build, probe, size and start to the second: each sweep and job
# starts in a second of its own, or its answers would be taken for another's.
sweep() { # DB PROBES [FACTORS]: a sweep of the build, its references searched first
	sleep 1
	expect_status 0 "$GCR" sweep --build "$B" --size ci --probes "$2" --factors "${3:-2,3}" --rounds 1 \
		--warmup 0 --db "$1"
}
logged() { # PATTERN: the statements the server was sent so far (log_statement = all) matching it
	grep -E 'LOG:  (statement|execute [^ ]*):' "$PG_DIR/server.log" | grep -cE "$1"
}
log_all() {
	pg_sql postgres "ALTER SYSTEM SET log_statement = 'all'" >/dev/null
	pg_sql postgres "SELECT pg_reload_conf()" >/dev/null
	sleep 1
}

# The fleet's database exists before the counting starts: its creation is not a push's cost.
sweep "$T/first.db" 01
expect_status 0 "$GCR" push --to "$PG" --db "$T/first.db"
log_all

# A sweep of one probe at two factors (2 arms, 2 cells, 1 answer) and one of eight at four (4
# arms, 32 cells, 8 answers, and one answer planted twice: two searches that started in one
# second): their pushes send the same statements (before: one per arm, one per cell, and two
# per answer).
sweep "$T/few.db" 01
sweep "$T/many.db" 01,02,03,04,05,06,07,08 2,3,4,5
sqlite3 "$T/many.db" "INSERT INTO minheap SELECT * FROM minheap WHERE probe = '03_c'"
expect_eq "$(sqlite3 "$T/many.db" "SELECT count(*) FROM sweep_cells") $(sqlite3 "$T/many.db" "SELECT count(*) FROM minheap")" \
	"32 9" "the many-cell sweep's source: 32 cells, 9 answers"
push_counted() { # DB: "all cells answers", the statements its push sent
	a=$(logged .) c=$(logged sweep_cells) h=$(logged minheap)
	expect_status 0 "$GCR" push --to "$PG" --db "$1"
	echo "$(($(logged .) - a)) $(($(logged sweep_cells) - c)) $(($(logged minheap) - h))"
}
few=$(push_counted "$T/few.db")
many=$(push_counted "$T/many.db")
uuid() { sqlite3 "$1" "SELECT uuid FROM sessions ORDER BY id LIMIT 1"; }
expect_eq "$(pg_sql fleet "SELECT count(*) FROM sweep_cells c JOIN sessions s ON s.id = c.session_id WHERE s.uuid = '$(uuid "$T/many.db")'")" \
	32 "the many-cell sweep's cells arrived"
expect_eq "$(pg_sql fleet "SELECT count(*) FROM minheap WHERE probe <> '01_a'")" 8 \
	"its answers arrived, the one planted twice twice"
set -- $few
fall=$1 fcells=$2 fheap=$3
set -- $many
if [ "$fcells" -gt 0 ] && [ "$2" -eq "$fcells" ]; then pass; else
	fail "the sweep's cells: a push of 32 sent $2 statements naming sweep_cells, one of 2 sent $fcells"
fi
if [ "$fheap" -gt 0 ] && [ "$3" -eq "$fheap" ]; then pass; else
	fail "the answers: a push of 9 sent $3 statements naming minheap, one of 1 sent $fheap"
fi
expect_eq "$1" "$fall" "a push of 4 arms, 32 cells and 9 answers sends as many statements as one of 2, 2 and 1"

# Pushed twice: stored once. A new session of the same build pushed later carries the same
# answers again, and stores none of them twice.
stored() { pg_sql fleet "SELECT (SELECT count(*) FROM sessions) || ' ' || (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM sweep_cells) || ' ' || (SELECT count(*) FROM minheap)"; }
before=$(stored)
expect_status 0 "$GCR" push --to "$PG" --db "$T/many.db"
expect_grep "already there" "$T/out"
expect_eq "$(stored)" "$before" "the second push stored nothing"
expect_status 0 "$GCR" measure --build "$B" --size ci --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census --db "$T/many.db"
expect_status 0 "$GCR" push --to "$PG" --db "$T/many.db"
expect_eq "$(pg_sql fleet "SELECT count(*) FROM sessions") $(pg_sql fleet "SELECT count(*) FROM minheap")" \
	"$(($(echo "$before" | cut -d' ' -f1) + 1)) $(echo "$before" | cut -d' ' -f4)" \
	"a new session's answers already in the fleet are not stored again"

# A failure in the middle of the cells' stream, and then of the answers' statement (a trigger
# of the test's server refuses a planted row): the push fails and nothing of the session is
# stored, its runs and its other rows included.
sweep "$T/odd.db" 01,02,03
before=$(stored)
for table in sweep_cells minheap; do
	pg_sql fleet "CREATE FUNCTION planted() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
		IF NEW.probe = '02_b' THEN RAISE EXCEPTION 'planted failure in $table'; END IF; RETURN NEW; END \$\$;
		CREATE TRIGGER planted BEFORE INSERT ON $table FOR EACH ROW EXECUTE FUNCTION planted()" >/dev/null
	expect_status 2 "$GCR" push --to "$PG" --db "$T/odd.db"
	expect_grep "planted failure in $table" "$T/err"
	expect_eq "$(stored)" "$before" "a push that failed in $table stored nothing: sessions, runs, cells, answers"
	pg_sql fleet "DROP TRIGGER planted ON $table; DROP FUNCTION planted()" >/dev/null
done
expect_status 0 "$GCR" push --to "$PG" --db "$T/odd.db"

# Pulled back into a new file: every cell and every answer equal, factors bit for bit.
expect_status 0 "$GCR" pull --from "$PG" --db "$T/pulled.db"
cells() { # DB UUID
	python3 - "$1" "$2" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for row in c.execute("""SELECT c.arm, c.probe, c.factor, c.heap_mb, c.reference_build,
  c.reference_mb FROM sweep_cells c JOIN sessions s ON s.id = c.session_id WHERE s.uuid = ?
  ORDER BY c.arm, c.probe""", (sys.argv[2],)):
    print(repr(row[:2]), float(row[2]).hex(), repr(row[3:]))
EOF
}
answers() { # DB: every answer with its host's fingerprint and its build's manifest hash
	sqlite3 "$1" "SELECT h.fingerprint, b.manifest_hash, m.probe, m.size, m.started_at, m.command,
		m.outcome, m.min_heap_mb, m.lo_mb, m.step_mb, m.repeats, m.runs,
		quote(m.unlimited_peak_bytes), quote(m.checksum), quote(m.detail) FROM minheap m
		JOIN hosts h ON h.id = m.host_id JOIN builds b ON b.id = m.build_id ORDER BY 1, 2, 3, 4, 5"
}
for db in few many odd; do
	cells "$T/$db.db" "$(uuid "$T/$db.db")" >"$T/cells.src"
	cells "$T/pulled.db" "$(uuid "$T/$db.db")" >"$T/cells.pulled"
	if [ -s "$T/cells.src" ] && cmp -s "$T/cells.src" "$T/cells.pulled"; then pass; else
		fail "$db's cells pulled back differ (or are none)"
		diff "$T/cells.src" "$T/cells.pulled" | head -n 5 >&2
	fi
done
for db in first few many odd; do answers "$T/$db.db"; done | sort >"$T/answers.src"
answers "$T/pulled.db" | sort >"$T/answers.pulled"
expect_eq "$(wc -l <"$T/answers.pulled")" 14 "the pulled answers: 1 + 1 + 9 + 3"
if cmp -s "$T/answers.src" "$T/answers.pulled"; then pass; else
	fail "the answers pulled back differ from those pushed"
	diff "$T/answers.src" "$T/answers.pulled" | head -n 5 >&2
fi

# Every store operation of a sweep's push into PostgreSQL failed in turn (the sanitizer build's
# fault engine, harness/store_fault.c: the cells' and arms' streams, the answers' table, its
# stream, the statement that takes them and its drop among them), each into a fresh database:
# the session is there whole, cells and answers included, or not at all, a failed push says
# which operation failed, and no failure path leaks (LeakSanitizer) or trips a sanitizer.
GCRA=${GCR_ASAN:-$TOP/build-asan/gcratchet}
if [ -x "$GCRA" ]; then
	src="$T/few.db"
	sqlite3 "$src" "INSERT INTO minheap SELECT * FROM minheap"
	whole="1 $(sqlite3 "$src" "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM sweep_cells) || ' ' || (SELECT count(*) FROM minheap)")"
	held() { pg_sql "$1" "SELECT (SELECT count(*) FROM sessions) || ' ' || (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM sweep_cells) || ' ' || (SELECT count(*) FROM minheap)" 2>/dev/null; }
	GCR_TEST_STORE_FAULT=0 GCR_TEST_STORE_OPS="$T/ops" GCR_BUILD_ROOT="$TOP/build" "$GCRA" push \
		--to "$(pg_url f0)" --db "$src" >/dev/null 2>&1
	expect_eq "$(held f0)" "$whole" "the sanitizer build's push stores the sweep whole"
	total=$(cat "$T/ops" 2>/dev/null || echo 0)
	n=1 bad=0 copies=0
	while [ "$n" -le "$total" ]; do
		GCR_TEST_STORE_FAULT=$n GCR_BUILD_ROOT="$TOP/build" "$GCRA" push --to "$(pg_url "f$n")" \
			--db "$src" >"$T/out" 2>"$T/err"
		got=$?
		grep -q "copy_begin\|copy_end" "$T/err" && copies=$((copies + 1))
		case "$(held "f$n")" in
		"" | "0 0 0 0" | "$whole") ;;
		*) bad=$((bad + 1)); fail "push with operation $n of $total failing left '$(held "f$n")' (whole: $whole)" ;;
		esac
		if [ "$got" -ne 0 ] && ! grep -q "injected fault: operation $n " "$T/err"; then
			bad=$((bad + 1)); fail "push with operation $n failing: exit $got without naming the fault"
		fi
		if grep -q "Sanitizer" "$T/err"; then
			bad=$((bad + 1)); fail "push with operation $n failing: a sanitizer's report"; head -n 20 "$T/err" >&2
		fi
		pg_sql postgres "DROP DATABASE IF EXISTS f$n" >/dev/null 2>&1
		n=$((n + 1))
	done
	[ "$bad" -eq 0 ] && [ "$total" -gt 5 ] && pass
	# Streams: runs, samples, arms, cells, answers: a begin and an end each.
	[ "$copies" -ge 10 ] && pass || fail "of $total operations, $copies were a stream's (expected 10 at least)"
else
	skip "$GCRA is missing (make asan): a sweep's push failing at each store operation is not checked"
fi

# A queue job's completion copy: a sweep of eight probes at four factors (one job: --no-split)
# and a minheap of eight send the statements one of a single probe sends, counted by the tables
# they name (the worker's own polling and lease renewals vary with time, and name neither).
Q=$(pg_url queue)
cd "$T" || exit 2
job() { # VERB ARGS...: "cells answers arms", the statements naming each while a worker ran the job
	c=$(logged sweep_cells) h=$(logged minheap) a=$(logged session_builds)
	sleep 1
	expect_status 0 "$GCR" queue submit --fleet "$Q" --no-split "$@"
	GCR_LOCK_FILE="$T/lock.w" TMPDIR="$T" expect_status 0 "$GCR" worker --fleet "$Q" --name w --once
	echo "$(($(logged sweep_cells) - c)) $(($(logged minheap) - h)) $(($(logged session_builds) - a))"
}
# The queue's tables and the fleet's schema exist before the counting (a first job).
job minheap --build "$B" --size ci --probes 01 --repeats 1 >/dev/null
one=$(job sweep --build "$B" --size ci --probes 01 --factors 2,3 --rounds 1 --warmup 0)
eight=$(job sweep --build "$B" --size ci --probes 01,02,03,04,05,06,07,08 --factors 2,3,4,5 --rounds 1 --warmup 0)
expect_eq "$(pg_sql queue "SELECT count(*) FROM sweep_cells")" 34 "the queued sweeps' cells arrived: 2 + 32"
case "$one" in "0 "* | *" 0 "* | *" 0") fail "a queued sweep's completion named no sweep_cells or minheap ($one)" ;; *) pass ;; esac
expect_eq "$eight" "$one" "a queued sweep of 32 cells, 8 answers and 4 arms: statements naming sweep_cells, minheap and session_builds, as one of 2, 1 and 2"
one=$(job minheap --build "$B" --size ci --probes 02 --repeats 1)
eight=$(job minheap --build "$B" --size ci --probes 01,02,03,04,05,06,07,08 --repeats 1)
expect_eq "$(pg_sql queue "SELECT count(*) FROM minheap")" 19 "the queued answers arrived: 1 + 1 + 8 + 1 + 8"
expect_eq "$eight" "$one" "a queued minheap of 8 answers: statements naming minheap, as one of 1"
finish
