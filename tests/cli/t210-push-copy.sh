#!/bin/sh
# needs: pg
# push streams a session (COPY, issue 44): the statements a push sends to the server do not
# grow with the session's runs; pushing twice stores once; a failure in the middle of the
# stream leaves nothing of the session; and pull brings every sample back bit for bit, with
# text that COPY's text format would have to escape (tab, newline, carriage return,
# backslash, \N) intact.
. "$(dirname "$0")/lib.sh"
pg_start
export GCR_BASELINE_DIR="$T/baselines"
B="$T/scripted"
make_script_build "$B" 01_steady 02_other
PG=$(pg_url fleet)
m() { # DB ROUNDS
	expect_status 0 "$GCR" measure --build "$B" --size ci --rounds "$2" --warmup 0 \
		--meters rusage,census --db "$1"
}
statements() { # the statements the server was sent so far (log_statement = all)
	grep -cE 'LOG:  (statement|execute [^ ]*):' "$PG_DIR/server.log"
}

# The fleet's database exists before the counting starts: its creation is not a push's cost.
m "$T/first.db" 1
expect_status 0 "$GCR" push --to "$PG" --db "$T/first.db"
pg_sql postgres "ALTER SYSTEM SET log_statement = 'all'" >/dev/null
pg_sql postgres "SELECT pg_reload_conf()" >/dev/null
sleep 1

# Two sessions of one build and its probes, of 2 and of 12 rounds: their pushes cost the same
# statements (before: one per run and one per 64 samples).
m "$T/small.db" 2
m "$T/big.db" 12
before=$(statements)
expect_status 0 "$GCR" push --to "$PG" --db "$T/small.db"
small=$(($(statements) - before))
before=$(statements)
expect_status 0 "$GCR" push --to "$PG" --db "$T/big.db"
big=$(($(statements) - before))
runs_big=$(pg_sql fleet "SELECT count(*) FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.uuid = '$(sqlite3 "$T/big.db" "SELECT uuid FROM sessions")'")
expect_eq "$runs_big" 24 "the big session's runs arrived"
if [ "$small" -gt 0 ] && [ "$big" -eq "$small" ]; then pass; else
	fail "a push of 24 runs sent $big statements, one of 4 runs $small: the count grows with the runs"
fi
pg_sql postgres "ALTER SYSTEM RESET log_statement" >/dev/null
pg_sql postgres "SELECT pg_reload_conf()" >/dev/null

# Text that COPY's text format escapes, and values that need all 17 digits (or are
# denormal), planted in a new session's source as exact doubles.
m "$T/odd.db" 3
python3 - "$T/odd.db" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
ids = [r[0] for r in c.execute("SELECT id FROM runs ORDER BY id")]
c.execute("UPDATE runs SET stderr_tail = ?, detail = ? WHERE id = ?",
          ("tab\there\nnewline\\backslash\rcr \\N", "a\\tb", ids[0]))
for v, (rid, metric) in zip([0.1 + 0.2, 5e-324, 1.7976931348623157e308, 123456.789e-7],
                            c.execute("SELECT run_id, metric FROM samples WHERE metric LIKE 'census.%' ORDER BY run_id, metric LIMIT 4").fetchall()):
    c.execute("UPDATE samples SET value = ? WHERE run_id = ? AND metric = ?", (v, rid, metric))
c.commit()
EOF

# A failure in the middle of the samples' stream (a trigger of the test's server refuses one
# planted value): the push fails and nothing of the session is stored, its runs included.
count() { pg_sql fleet "SELECT (SELECT count(*) FROM sessions) || ' ' || (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM samples)"; }
stored=$(count)
pg_sql fleet "CREATE FUNCTION planted() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
	IF NEW.value = 123456.789e-7 THEN RAISE EXCEPTION 'planted failure'; END IF; RETURN NEW; END \$\$;
	CREATE TRIGGER planted BEFORE INSERT ON samples FOR EACH ROW EXECUTE FUNCTION planted()" >/dev/null
expect_status 2 "$GCR" push --to "$PG" --db "$T/odd.db"
expect_grep "planted failure" "$T/err"
expect_eq "$(count)" "$stored" "a push that failed midway stored nothing: sessions, runs, samples"
pg_sql fleet "DROP TRIGGER planted ON samples" >/dev/null

# Pushed twice: stored once.
expect_status 0 "$GCR" push --to "$PG" --db "$T/odd.db"
expect_grep "^session 1: stored as session" "$T/out"
after=$(count)
expect_status 0 "$GCR" push --to "$PG" --db "$T/odd.db"
expect_grep "^session 1: already there as session" "$T/out"
expect_eq "$(count)" "$after" "the second push stored nothing"

# Pulled back into a new file: every run's text and every sample, bit for bit.
expect_status 0 "$GCR" pull --from "$PG" --db "$T/pulled.db"
uuid=$(sqlite3 "$T/odd.db" "SELECT uuid FROM sessions")
dump() { # DB: the session's runs and samples, doubles as their exact hex
	python3 - "$1" "$uuid" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
q = """SELECT r.probe, r.round, r.seq, r.arm, r.kind, r.status, r.detail, r.stderr_tail,
  r.checksum, x.metric, x.value FROM runs r JOIN sessions s ON s.id = r.session_id
  JOIN samples x ON x.run_id = r.id WHERE s.uuid = ?
  ORDER BY r.round, r.seq, r.arm, x.metric"""
for row in c.execute(q, (sys.argv[2],)):
    print(repr(row[:-1]), float(row[-1]).hex())
EOF
}
dump "$T/odd.db" >"$T/source.txt"
dump "$T/pulled.db" >"$T/pulled.txt"
expect_eq "$(wc -l <"$T/source.txt")" "$(sqlite3 "$T/odd.db" "SELECT count(*) FROM samples")" "every sample dumped"
if cmp -s "$T/source.txt" "$T/pulled.txt"; then pass; else
	fail "the pulled session differs from the pushed one"
	diff "$T/source.txt" "$T/pulled.txt" | head -n 10 >&2
fi
expect_grep "0x0.0000000000001p-1022" "$T/pulled.txt"
expect_grep "tab.there.nnewline" "$T/pulled.txt"
# queue submit takes a build the fleet knows by its manifest, without reading every probe
# again; a build it does not know is verified whole (its probes read).
if command -v strace >/dev/null 2>&1; then
	opened() { # BUILD: 1 when the submit of a measure of BUILD read its probe 01_steady
		strace -f -e trace=open,openat -o "$T/strace" "$GCR" queue submit --fleet "$PG" measure \
			--build "$1" --size ci >"$T/out" 2>"$T/err" || { fail "queue submit failed: $(cat "$T/err")"; return; }
		grep -c "$1/01_steady\"" "$T/strace"
	}
	expect_eq "$(opened "$B")" 0 "submit of a build the fleet knows reads none of its probes"
	cp -r "$B" "$T/unknown"
	echo "# another build" >>"$T/unknown/01_steady"
	seal_manifest "$T/unknown"
	if [ "$(opened "$T/unknown")" -gt 0 ]; then pass; else fail "submit of an unknown build did not verify its probes"; fi
else
	skip "strace is not installed: which files queue submit reads is not checked"
fi
# Every store operation of a push into PostgreSQL failed in turn (the sanitizer build's fault
# engine, harness/store_fault.c: reserve_ids, copy_begin and copy_end among them), each into a
# fresh database: the session is there whole or not at all, and a push that failed says so.
GCRA=${GCR_ASAN:-$TOP/build-asan/gcratchet}
if [ -x "$GCRA" ]; then
	whole="$(sqlite3 "$T/odd.db" "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM samples)")"
	GCR_TEST_STORE_FAULT=0 GCR_TEST_STORE_OPS="$T/ops" GCR_BUILD_ROOT="$TOP/build" "$GCRA" push \
		--to "$(pg_url f0)" --db "$T/odd.db" >/dev/null 2>&1
	total=$(cat "$T/ops" 2>/dev/null || echo 0)
	n=1 bad=0 failed=0 copies=0
	while [ "$n" -le "$total" ]; do
		GCR_TEST_STORE_FAULT=$n GCR_BUILD_ROOT="$TOP/build" "$GCRA" push --to "$(pg_url "f$n")" \
			--db "$T/odd.db" >"$T/out" 2>"$T/err"
		got=$?
		[ "$got" -ne 0 ] && failed=$((failed + 1))
		grep -q "copy_begin\|copy_end\|reserve_ids" "$T/err" && copies=$((copies + 1))
		held=$(pg_sql "f$n" "SELECT (SELECT count(*) FROM sessions) || ' ' || (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM samples)" 2>/dev/null)
		case "$held" in
		"" | "0 0 0" | "1 $whole") ;;
		*) bad=$((bad + 1)); fail "push with operation $n of $total failing left '$held' (whole: 1 $whole)" ;;
		esac
		if [ "$got" -ne 0 ] && ! grep -q "injected fault: operation $n " "$T/err"; then
			bad=$((bad + 1)); fail "push with operation $n failing: exit $got without naming the fault"
		fi
		n=$((n + 1))
	done
	[ "$bad" -eq 0 ] && [ "$total" -gt 5 ] && pass
	[ "$failed" -gt 0 ] && [ "$copies" -ge 3 ] && pass ||
		fail "of $total operations, $failed failed the push and $copies were a copy's (expected 3 at least)"
else
	skip "$GCRA is missing (make asan): a push's failures at each store operation are not checked"
fi
finish
