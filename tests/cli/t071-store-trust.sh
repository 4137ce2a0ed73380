#!/bin/sh
# The store is trusted in both directions. Reading verbs (list, export, check, report) create
# and write nothing, and read a database they may not write; a missing one is an error. A
# damaged page in samples is an error for every verb that reads it, never fewer samples and
# exit 0. A measure killed with SIGKILL reads as abandoned, and check skips it out loud. A
# database of schema 1 is migrated by the next writer and keeps its runs; a newer one is
# refused.
. "$(dirname "$0")/lib.sh"

B="$T/scripted"
make_script_build "$B" 01_steady 02_other
export GCR_BASELINE_DIR="$T/baselines"

# ---- A missing database is an error naming it, and reading it creates nothing -------------
expect_status 2 "$GCR" list sessions --db "$T/typo/x.db"
expect_grep "$T/typo/x.db: .*no such database" "$T/err"
expect_status 2 "$GCR" export --db "$T/typo/x.db"
expect_grep "$T/typo/x.db" "$T/err"
expect_status 2 "$GCR" report --session 1 --html "$T/r.html" --db "$T/typo/x.db"
expect_grep "$T/typo/x.db" "$T/err"
expect_eq "$(ls -d "$T/typo" 2>/dev/null || echo none)" none "no folder or database created"
# Connection strings: a PostgreSQL server that cannot be reached is an error that names it
# without echoing its password.
expect_status 2 "$GCR" list sessions --db "postgresql://gcr:s3cret@/gcr?host=$T/nosocket"
expect_grep "postgresql://gcr:\*\*\*@/gcr.*cannot connect" "$T/err"
expect_no_grep "s3cret" "$T/err"
expect_status 2 "$GCR" list sessions --db "mysql://db.example/gcr"
expect_grep "unknown kind of database" "$T/err"

# ---- A session and a baseline; sqlite:PATH names the same database -------------------------
expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 2 --warmup 0 --meters rusage,census \
	--seed 71
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session latest
expect_status 0 "$GCR" check --profile shared_ci --collector scripted
expect_status 0 "$GCR" list sessions --db "sqlite:$GCR_DB"
expect_grep "^1 +[0-9T:-]+Z +complete " "$T/out"

# ---- Read-only: a database and folder the reader may not write -----------------------------
RO="$T/ro"
mkdir -p "$RO" "$T/html"
cp "$GCR_DB" "$RO/r.db"
chmod 755 "$T" "$RO"
chmod 644 "$RO/r.db"
chmod -R a+rX "$T/baselines" "$B"
chmod 777 "$T/html"
# Root may write anything: read as nobody to prove nothing needs to be written.
if [ "$(id -u)" = 0 ]; then
	as_reader() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
	chmod 555 "$RO"
	chmod 444 "$RO/r.db"
	as_reader() { "$@"; }
fi
sum=$(cksum <"$RO/r.db")
expect_status 0 as_reader "$GCR" list sessions --db "$RO/r.db"
expect_grep "^1 .* complete " "$T/out"
expect_status 0 as_reader "$GCR" export --session 1 --db "$RO/r.db" --out "$T/html/s1.json"
expect_status 0 as_reader "$GCR" check --profile shared_ci --collector scripted --db "$RO/r.db"
expect_status 0 as_reader "$GCR" report --session 1 --html "$T/html/s1.html" --db "$RO/r.db"
expect_eq "$(ls "$RO")" r.db "no journal, WAL or shm file left beside it"
expect_eq "$(cksum <"$RO/r.db")" "$sum" "the database is unchanged"

# ---- A measure killed with SIGKILL is abandoned; check skips it ----------------------------
K="$T/sleepy"
make_script_build "$K" 01_steady
cat >"$K/01_steady" <<EOF
#!/bin/sh
echo \$\$ >"$T/sleepy.pid"
exec sleep 60
EOF
seal_manifest "$K"
"$GCR" measure --build "$K" --size ci --rounds 1 --warmup 0 --meters rusage,census \
	--timeout 120 >"$T/killed.out" 2>&1 &
measure_pid=$!
i=0
while [ ! -s "$T/sleepy.pid" ] && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -KILL "$measure_pid"
wait "$measure_pid" 2>/dev/null
[ -s "$T/sleepy.pid" ] && kill "$(cat "$T/sleepy.pid")" 2>/dev/null
expect_status 0 "$GCR" list sessions
expect_grep "^2 .* abandoned " "$T/out" "the killed session reads as abandoned"
expect_status 0 "$GCR" check --profile shared_ci --collector scripted
expect_grep "skipping session 2 \(abandoned\), using session 1" "$T/err"
expect_grep "session 1" "$T/out"
# A running session of another boot (or host) cannot be probed: it is neither alive nor dead.
sql "UPDATE sessions SET boot_id = 'another-boot' WHERE id = 2"
expect_status 0 "$GCR" list sessions
expect_grep "^2 .* running \(elsewhere\) " "$T/out"
expect_status 0 "$GCR" check --profile shared_ci --collector scripted
expect_grep "skipping session 2 \(running, elsewhere\), using session 1" "$T/err"

# ---- A damaged page in samples: every reader exits 2 and names the file --------------------
cp "$GCR_DB" "$T/damaged.db"
D="$T/damaged.db"
page=$(sqlite3 "$D" "PRAGMA page_size")
root=$(sqlite3 "$D" "SELECT rootpage FROM sqlite_master WHERE name = 'samples'")
head -c "$page" /dev/zero | tr '\0' 'U' |
	dd of="$D" bs="$page" seek=$((root - 1)) conv=notrunc 2>/dev/null
expect_status 2 "$GCR" export --session 1 --db "$D"
expect_grep "damaged.db: .*sqlite3 $D 'PRAGMA integrity_check'" "$T/err"
expect_eq "$(wc -c <"$T/out")" 0 "no partial export"
expect_status 2 "$GCR" check --profile shared_ci --collector scripted --session 1 --db "$D"
expect_grep "damaged.db: .*integrity_check" "$T/err"
expect_status 2 "$GCR" baseline pin --profile shared_ci --collector scripted --session 1 \
	--out "$T/partial.json" --db "$D"
expect_grep "damaged.db: .*integrity_check" "$T/err"
expect_eq "$(ls "$T/partial.json" 2>/dev/null || echo none)" none "no baseline from partial data"

# ---- Schema 1, made with the sqlite3 tool, migrates on the next write and keeps its runs ---
V1="$T/v1.db"
sqlite3 "$V1" <<'SQL'
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE hosts(id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, hostname TEXT,
 facts TEXT);
CREATE TABLE builds(id INTEGER PRIMARY KEY, name TEXT NOT NULL, collector TEXT NOT NULL,
 collector_version TEXT, git_commit TEXT, dir TEXT, manifest TEXT NOT NULL,
 manifest_hash TEXT NOT NULL UNIQUE);
CREATE TABLE sessions(id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES hosts(id),
 command TEXT, started_at TEXT NOT NULL, finished_at TEXT, status TEXT NOT NULL,
 seed INTEGER NOT NULL, size TEXT NOT NULL, rounds INTEGER NOT NULL,
 warmup INTEGER NOT NULL, probes TEXT NOT NULL, meters TEXT NOT NULL,
 load_before REAL, load_after REAL, harness_version TEXT, facts TEXT);
CREATE TABLE session_builds(session_id INTEGER NOT NULL REFERENCES sessions(id),
 build_id INTEGER NOT NULL REFERENCES builds(id), position INTEGER NOT NULL,
 PRIMARY KEY(session_id, build_id));
CREATE TABLE runs(id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES sessions(id),
 build_id INTEGER NOT NULL REFERENCES builds(id), probe TEXT NOT NULL,
 size TEXT NOT NULL, round INTEGER NOT NULL, seq INTEGER NOT NULL,
 warmup INTEGER NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, detail TEXT,
 checksum TEXT, premise TEXT, stderr_tail TEXT, started_at TEXT NOT NULL);
CREATE INDEX runs_by_session ON runs(session_id, build_id);
CREATE TABLE samples(run_id INTEGER NOT NULL REFERENCES runs(id), metric TEXT NOT NULL,
 value REAL NOT NULL, PRIMARY KEY(run_id, metric)) WITHOUT ROWID;
INSERT INTO meta VALUES('schema_version', '1');
INSERT INTO hosts VALUES(1, '00000000000000aa', 'oldhost', '{}');
INSERT INTO builds VALUES(1, 'base', 'scripted', '1.0', 'none', '/nowhere/base', '{}', 'h1');
INSERT INTO builds VALUES(2, 'fix', 'scripted', '1.0', 'none', '/nowhere/fix', '{}', 'h2');
INSERT INTO sessions VALUES(1, 1, 'gcratchet ab base fix', '2025-01-02T03:04:05Z',
 '2025-01-02T03:05:00Z', 'complete', 7, 'ci', 1, 0, '01_steady', 'rusage,census', 0.5, 0.5,
 'gcratchet 0.1.0', '{}');
INSERT INTO session_builds VALUES(1, 1, 0);
INSERT INTO session_builds VALUES(1, 2, 1);
INSERT INTO runs VALUES(1, 1, 1, '01_steady', 'ci', 1, 1, 0, 'timed', 'ok', NULL, '0xaa', 'met',
 '', '2025-01-02T03:04:06Z');
INSERT INTO runs VALUES(2, 1, 2, '01_steady', 'ci', 1, 2, 0, 'timed', 'ok', NULL, '0xaa', NULL,
 '', '2025-01-02T03:04:07Z');
INSERT INTO samples VALUES(1, 'census.alloc_bytes', 1234);
INSERT INTO samples VALUES(2, 'census.alloc_bytes', 5678);
SQL
# Reading does not migrate: the file stays as the older gcratchet that writes it expects.
expect_status 2 "$GCR" list sessions --db "$V1"
expect_grep "schema version 1 predates this harness \(9\)" "$T/err"
expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census \
	--db "$V1"
expect_status 0 "$GCR" export --session 1 --db "$V1" --out "$T/v1.json"
expect_eq "$(jq -r '[.session.status, .host.hostname, (.runs | length),
	(.runs[] | "\(.build):\(.samples["census.alloc_bytes"])")] | join(" ")' "$T/v1.json")" \
	"complete oldhost 2 base:1234 fix:5678" "the old session's runs and samples"
# The schema itself: version 2, each old run's arm taken from its build's position.
expect_eq "$(sqlite3 "$V1" "SELECT value FROM meta WHERE key = 'schema_version'")" 9 "migrated"
expect_eq "$(sqlite3 "$V1" "SELECT group_concat(arm) FROM (SELECT arm FROM runs WHERE session_id = 1 ORDER BY id)")" \
	"0,1" "arms from positions"
expect_status 0 "$GCR" list sessions --db "$V1"
expect_grep "^2 .* complete " "$T/out"

# A newer schema is refused by readers and writers alike, and left as it is.
sqlite3 "$V1" "UPDATE meta SET value = '99' WHERE key = 'schema_version'"
expect_status 2 "$GCR" list sessions --db "$V1"
expect_grep "schema version 99 is newer than this harness" "$T/err"
expect_status 2 "$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 \
	--meters rusage,census --db "$V1"
expect_grep "schema version 99 is newer" "$T/err"
expect_eq "$(sqlite3 "$V1" "SELECT value FROM meta WHERE key = 'schema_version'")" 99 "untouched"
finish
