#!/bin/sh
# needs: pg
# The fleet store takes what a runner stored (issue 25, items 12 and 14).
# - Text is stored alike on both engines: bytes that are not UTF-8 (a probe's stderr, a knob's
#   value) become U+FFFD on insert, so a UTF8 PostgreSQL takes the session, and a push copies
#   an older SQLite row holding a raw 0xff cleaned.
# - A session that cannot be pushed is reported and skipped; the others go on, and the exit
#   status says one failed.
# - A session copied while it still ran on another host is said so, and completed by a later
#   push or pull instead of being "already there" forever.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
pg_start
FFFD=$(printf '\357\277\275')
B="$T/scripted"
make_script_build "$B" 01_steady 02_bytes
# A probe that succeeds, saying on stderr something that is not UTF-8.
cat >"$B/02_bytes" <<'EOF'
#!/bin/sh
printf 'note \377 here\n' >&2
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"02_bytes","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":1000,"major_collections":2}}' "$1" >&3
EOF
seal_manifest "$B"
m() { "$GCR" measure --build "$B" --rounds 1 --warmup 0 --meters rusage,census "$@"; }
KNOB="GCR_NOTE=a$(printf '\377')b"

# Straight into PostgreSQL: the session completes, its text stored as U+FFFD.
expect_status 0 m --knob "$KNOB" --db "$(pg_url direct)"
expect_eq "$(pg_sql direct "SELECT status FROM sessions")" complete "a measure into PostgreSQL completes"
expect_eq "$(pg_sql direct "SELECT stderr_tail FROM runs WHERE probe = '02_bytes'")" \
	"note $FFFD here" "the stderr stored with U+FFFD"
pg_sql direct "SELECT knobs FROM session_builds" >"$T/knobs"
expect_grep "a${FFFD}b" "$T/knobs" "the knob stored with U+FFFD"

# SQLite stores the same text.
expect_status 0 m --knob "$KNOB"
expect_eq "$(sql "SELECT hex(stderr_tail) FROM runs WHERE probe = '02_bytes'")" \
	"$(printf 'note %s here\n' "$FFFD" | od -An -tx1 | tr -d ' \n' | tr a-f A-F)" \
	"SQLite stores U+FFFD, not the byte"

# Four sessions to push: 2 holds raw 0xff as an older gcratchet stored it, 3 is damaged.
for i in 2 3 4; do expect_status 0 m; done
sqlite3 "$GCR_DB" "UPDATE runs SET stderr_tail = CAST(X'6F6F7073FF0A' AS TEXT) WHERE session_id = 2;
	UPDATE session_builds SET knobs = CAST(X'7B22474352223A2261FF62227D' AS TEXT) WHERE session_id = 2;
	UPDATE sessions SET command = CAST(X'676372617463686574FF' AS TEXT) WHERE id = 2;
	UPDATE runs SET build_id = 999 WHERE session_id = 3"
expect_status 2 "$GCR" push --to "$(pg_url fleet)"
expect_grep "^session 1: stored as session 1$" "$T/out"
expect_grep "^session 2: stored as session 2$" "$T/out" "the session with raw 0xff is pushed"
expect_grep "^session 4: stored as session [0-9]+$" "$T/out" "the sessions after the one that failed go on"
expect_grep "session 3 not copied: .*run [0-9]+'s build is not an arm of session 3" "$T/err"
expect_grep "3 sessions copied to .*, 0 already there, 1 could not be copied" "$T/err"
expect_eq "$(pg_sql fleet "SELECT stderr_tail FROM runs r JOIN sessions s ON s.id = r.session_id
	WHERE s.id = 2 AND r.probe = '01_steady'")" "oops$FFFD" "the old row's stderr, cleaned on its way"
expect_eq "$(pg_sql fleet "SELECT command FROM sessions WHERE id = 2")" "gcratchet$FFFD" "and its command"
# Pushed again, what is there is there, and the damaged one is said again.
expect_status 2 "$GCR" push --to "$(pg_url fleet)"
expect_grep "0 sessions copied .*, 3 already there, 1 could not be copied" "$T/err"

# A session still running on another host, copied as far as it got: the copy says so, and a
# later copy completes it, in PostgreSQL and in a file pulled from it.
H="$T/home.db"
expect_status 0 m --probes 01 --rounds 2 --db "$H"
cp "$H" "$T/part.db"
sqlite3 "$T/part.db" "DELETE FROM samples WHERE run_id IN (SELECT id FROM runs WHERE round = 2);
	DELETE FROM runs WHERE round = 2;
	UPDATE sessions SET status = 'running', finished_at = NULL, boot_id = 'another-boot'"
sqlite3 "$T/part.db" "UPDATE hosts SET hostname = 'elsewhere'"
expect_status 0 "$GCR" push --db "$T/part.db" --to "$(pg_url ran)"
expect_grep "^session 1: stored as session 1 \(still running on elsewhere when copied: a later copy completes it\)$" "$T/out"
expect_status 0 "$GCR" pull --from "$(pg_url ran)" --db "$T/pulled.db"
expect_grep "^session 1: stored as session 1 \(still running" "$T/out" "pull copies it, saying so"
expect_eq "$(sqlite3 "$T/pulled.db" "SELECT status || ' ' || (SELECT count(*) FROM runs) FROM sessions")" \
	"running 1" "the pulled copy is the running session, as far as it got"
# The session ends on its host and is pushed again: the fleet's copy is completed.
expect_status 0 "$GCR" push --db "$H" --to "$(pg_url ran)"
expect_grep "^session 1: completed as session 1 \(copied before while it ran; now complete, ended\)$" "$T/out"
expect_eq "$(pg_sql ran "SELECT status || ' ' || (SELECT count(*) FROM runs) FROM sessions")" \
	"complete 2" "the fleet's copy is whole"
expect_eq "$(pg_sql ran "SELECT count(*) FROM samples")" "$(sqlite3 "$H" "SELECT count(*) FROM samples")" \
	"every sample, once"
# ... and the next pull completes the pulled file, instead of saying "already there".
expect_status 0 "$GCR" pull --from "$(pg_url ran)" --db "$T/pulled.db"
expect_grep "^session 1: completed as session 1" "$T/out"
expect_grep "0 sessions copied .*, 0 already there, 1 completed" "$T/err"
expect_eq "$(sqlite3 "$T/pulled.db" "SELECT status || ' ' || (SELECT count(*) FROM runs) FROM sessions")" \
	"complete 2" "the pulled copy is whole"
expect_status 0 "$GCR" pull --from "$(pg_url ran)" --db "$T/pulled.db"
expect_grep "^session 1: already there as session 1$" "$T/out" "then it is there"
finish
