#!/bin/sh
# needs: pg
# No PostgreSQL password goes anywhere (issue 25, item 11): for every form libpq takes one in
# (a URL's user:password@, ?password=, a percent-encoded key, sslpassword=, a key=value string
# with and without quotes; given as --db VALUE, --db=VALUE, GCR_DB, push --to and pull
# --from), neither stdout nor stderr of measure, sweep, minheap, ab, list, export, report,
# push and pull shows it, and no row of either database, no export and no HTML page holds it.
# A malformed string's error (libpq quotes a bad %-token) says what is wrong without it, and
# a command line stored by an older gcratchet with a password in it is shown and pushed
# without it. The test server trusts every local user, so the passwords are never checked.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
pg_start
B="$T/scripted"
make_script_build "$B" 01_steady
H="host=$PG_DIR"
SECRETS='S1secret|S2secret|S3secret|S4 secret|S4ssl|S5secret|S5ssl|S6secret|S7secret|S8secret|S9secret|OLDsecret'
: >"$T/all"
keep() { cat "$T/out" "$T/err" >>"$T/all"; }
m() { "$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 --meters rusage,census "$@"; }

# measure, in each form.
expect_status 0 m --db "postgresql://gcr:S1secret@/one?$H"
keep
expect_grep "stored in postgresql://gcr:\*\*\*@/one\?host=" "$T/out" "the stored-in line names the URL without its password"
expect_status 0 m --db "postgresql://gcr@/two?$H&password=S2secret"
keep
expect_grep "stored in postgresql://gcr@/two\?host=.*&password=\*\*\*$" "$T/out"
expect_status 0 m --db "$H user=gcr dbname=three password=S3secret"
keep
expect_grep "stored in host=.* user=gcr dbname=three password=\*\*\*$" "$T/out" "a key=value string is PostgreSQL"
expect_status 0 m --db "$H user=gcr dbname=four password='S4 secret' sslpassword=S4ssl"
keep
expect_status 0 m --db "postgresql://gcr@/five?$H&pass%77ord=S5secret&%73slpassword=S5ssl"
keep
expect_grep "pass%77ord=\*\*\*&%73slpassword=\*\*\*" "$T/out" "percent-encoded keys"
expect_status 0 m --db="postgresql://gcr:S6secret@/six?$H"
keep
GCR_DB="postgresql://gcr:S7secret@/seven?$H" expect_status 0 m
keep
expect_eq "$(pg_sql one "SELECT count(*) FROM runs") $(pg_sql five "SELECT count(*) FROM runs")" \
	"1 1" "the sessions were stored on the server"
# The command line as stored: the option and the form kept, the password not.
expect_eq "$(pg_sql one "SELECT command FROM sessions")" \
	"gcratchet measure --build $B --probes 01 --rounds 1 --warmup 0 --meters rusage,census --db postgresql://gcr:***@/one?$H" \
	"the stored command"
pg_sql three "SELECT command FROM sessions" >"$T/cmd3"
expect_grep "dbname=three password=\*\*\*$" "$T/cmd3" "a key=value --db, stored"

# sweep, minheap and ab say where they stored, without the password.
expect_status 0 "$GCR" minheap --build "$B" --probes 01 --repeats 1 --db "postgresql://gcr:S8secret@/eight?$H"
keep
expect_grep "stored in postgresql://gcr:\*\*\*@/eight" "$T/out"
expect_status 0 "$GCR" sweep --build "$B" --probes 01 --factors 2 --meters rusage,census \
	--db "postgresql://gcr:S8secret@/eight?$H"
keep
expect_grep "stored in postgresql://gcr:\*\*\*@/eight" "$T/out"
expect_status 0 "$GCR" ab "$B" "$B" --probes 01 --rounds 1 --warmup 0 --meters rusage,census \
	--db "$H user=gcr dbname=eight password=S9secret" --html "$T/ab.html" --json "$T/ab.json"
keep
expect_grep "stored in host=.* password=\*\*\*$" "$T/err"

# The readers: list, export, report; and every page and file they write.
expect_status 0 "$GCR" list sessions --db "postgresql://gcr:S1secret@/one?$H"
keep
expect_status 0 "$GCR" export --session 1 --db "postgresql://gcr:S1secret@/one?$H" --out "$T/one.json"
keep
expect_grep "postgresql://gcr:\*\*\*@/one" "$T/one.json" "export carries the command, redacted"
expect_status 0 "$GCR" report --session 1 --db "$H user=gcr dbname=three password=S3secret" --html "$T/three.html"
keep
expect_status 0 "$GCR" report --session 1 --db "postgresql://gcr@/eight?$H&password=S8secret" --html "$T/eight.html"
keep

# push and pull, both ways, with the password in the destination and in the source.
expect_status 0 "$GCR" pull --from "postgresql://gcr:S1secret@/one?$H" --db "$T/home.db"
keep
expect_status 0 "$GCR" push --db "$T/home.db" --to "$H user=gcr dbname=fleet password=S3secret"
keep
expect_grep "copied to host=.* password=\*\*\*" "$T/err"
# A session an older gcratchet stored with the password in its command line: shown and
# pushed without it.
sqlite3 "$T/home.db" "UPDATE sessions SET
	command = 'gcratchet measure --db postgresql://gcr:OLDsecret@h/db --db=host=h password=OLDsecret'"
expect_status 0 "$GCR" push --db "$T/home.db" --to "postgresql://gcr@/fleet2?$H&password=S2secret"
keep
expect_status 0 "$GCR" export --session 1 --db "$T/home.db" --out "$T/home.json"
keep
expect_status 0 "$GCR" report --session 1 --db "$T/home.db" --html "$T/home.html"
keep
expect_grep "postgresql://gcr:\*\*\*@h/db --db=host=h password=\*\*\*" "$T/home.json" "an old row's command, redacted"

# A malformed string: a clear error, and libpq's quote of the bad token without the secret.
expect_status 2 "$GCR" list sessions --db "postgresql://gcr:S1secret%zz@/one?$H"
keep
expect_grep "not a valid connection string: invalid percent-encoded token" "$T/err"
expect_status 2 "$GCR" list sessions --db "postgresql://gcr@/one?$H&password=S2secret%g0"
keep
expect_grep "invalid percent-encoded token: \"\*\*\*\"" "$T/err"
expect_status 2 "$GCR" list sessions --db "postgresql://[::1/one?password=S2secret"
keep
expect_status 2 "$GCR" list sessions --db "$H password=S3secret dbname"
keep
expect_status 2 "$GCR" list sessions --db "$H pass%77ord=S3secret dbname=one"
keep
expect_grep "invalid connection option" "$T/err"

# Nowhere: outputs, files written, and every row of every database.
for f in "$T/all" "$T/ab.html" "$T/ab.json" "$T/one.json" "$T/three.html" "$T/eight.html" \
	"$T/home.json" "$T/home.html"; do
	expect_no_grep "$SECRETS" "$f" "a password in $(basename "$f")"
done
for d in one two three four five six seven eight fleet fleet2; do
	"$PG_BIN/pg_dump" -h "$PG_DIR" -U gcr -d "$d" >"$T/dump-$d.sql" 2>"$T/dump.err" ||
		fail "pg_dump $d: $(cat "$T/dump.err")"
	expect_no_grep "$SECRETS" "$T/dump-$d.sql" "a password in database $d"
done
sqlite3 "$T/home.db" .dump >"$T/home.sql"
expect_no_grep "S1secret" "$T/home.sql" "a password in the pulled file"
finish
