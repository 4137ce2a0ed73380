/*
 * test_store.c — the store reads back what it was given, migrates schema 1 and keeps its
 * runs, refuses a newer schema, creates nothing when reading, orders sessions by start, and
 * tells an abandoned session from a running one.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"
#include "store.h"
#include "store_engine.h"
#include "unit.h"
#include "util.h"

static char dir[] = "/tmp/gcratchet-test-store.XXXXXX";

static char *test_path(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

/* Runs SQL on a database behind the store's back, as the sqlite3 tool would. */
static int test_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open(path, &db) == SQLITE_OK &&
	                 sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
	             ? 0
	             : -1;

	sqlite3_close(db);
	return rc;
}

/* The integer the first column of the first row holds; -1 when there is none. */
static int64_t test_sql_int(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	if (sqlite3_open(path, &db) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static int64_t test_session(struct store *st, int64_t host, const char *started_at, int64_t seed)
{
	struct store_session si;
	struct err e = ERR_INIT;
	int64_t id = 0;

	memset(&si, 0, sizeof si);
	si.host_id = host;
	si.command = (char *)"gcratchet measure";
	si.started_at = (char *)started_at;
	si.seed = seed;
	si.size = (char *)"ci";
	si.rounds = 1;
	si.probes = (char *)"01_a";
	si.meters = (char *)"rusage,census";
	CHECK(store_session_begin(st, &si, &id, &e) == 0);
	return id;
}

/* Every kind, status and premise goes in and comes back as it was, with its samples and arm. */
/*
 * Minimum heaps: stored and read back whole, oldest first; the unknown peak stays unknown;
 * an outcome the table does not know is refused by the database.
 */
static void test_minheap_rows(struct store *st, int64_t host, int64_t build)
{
	struct store_minheap_record m = {
	    .host_id = host,
	    .build_id = build,
	    .probe = "12_large_live_set",
	    .size = "ci",
	    .started_at = "2026-12-01T06:00:00Z",
	    .command = "gcratchet minheap --size ci",
	    .outcome = "found",
	    .min_heap_mb = 37,
	    .lo_mb = 36,
	    .step_mb = 1,
	    .repeats = 3,
	    .runs = 9,
	    .unlimited_peak_bytes = 41943040,
	    .checksum = "0x8c476e2a351ece4a",
	};
	struct store_minheap *rows = NULL;
	struct err e = ERR_INIT;
	size_t n = 0;

	CHECK(store_minheap_insert(st, &m, &e) == 0);
	m.started_at = "2026-11-30T06:00:00Z";
	m.outcome = "failed";
	m.min_heap_mb = 0;
	m.unlimited_peak_bytes = -1;
	m.detail = "crashed (SIGSEGV) at 4 MiB";
	CHECK(store_minheap_insert(st, &m, &e) == 0);
	m.outcome = "lost";
	CHECK(store_minheap_insert(st, &m, &e) != 0);
	CHECK(store_minheap_list(st, &rows, &n, &e) == 0);
	CHECK(n == 2);
	if (n == 2) {
		CHECK_STR(rows[0].outcome, "failed");
		CHECK(rows[0].unlimited_peak_bytes == -1 && rows[0].min_heap_mb == 0);
		CHECK_STR(rows[0].detail, "crashed (SIGSEGV) at 4 MiB");
		CHECK_STR(rows[1].outcome, "found");
		CHECK(rows[1].min_heap_mb == 37 && rows[1].lo_mb == 36 && rows[1].step_mb == 1);
		CHECK(rows[1].repeats == 3 && rows[1].runs == 9);
		CHECK(rows[1].unlimited_peak_bytes == 41943040);
		CHECK(rows[1].build_id == build && rows[1].host_id == host);
		CHECK(rows[1].build != NULL && rows[1].detail == NULL);
		CHECK_STR(rows[1].probe, "12_large_live_set");
		CHECK_STR(rows[1].checksum, "0x8c476e2a351ece4a");
	}
	store_minheaps_release(rows, n);
}

static void test_round_trip(void)
{
	char *path = test_path("round.db");
	struct store *st = NULL;
	struct store_build b = {0}, *builds = NULL;
	struct store_run *runs = NULL;
	struct store_session si;
	struct err e = ERR_INIT;
	int64_t host, build, session, id;
	size_t nruns = 0, nbuilds = 0, k = 0;
	static const char *const premise_text[] = {NULL, "", "0 minor collections", "no weak refs"};

	CHECK(store_open(path, STORE_WRITE, &st, &e) == 0);
	CHECK(store_host(st, "00000000000000aa", "testhost", "{}", &host, &e) == 0);
	b.name = (char *)"base";
	b.collector = (char *)"gen";
	b.manifest_hash = (char *)"h1";
	CHECK(store_build_upsert(st, &b, "{}", &build, &e) == 0);
	session = test_session(st, host, "2026-01-01T00:00:00Z", 1);
	CHECK(store_session_add_arm(st, session, 0, build, "base", NULL, &e) == 0);
	/* One build twice, with a knob: two arms of one build row. */
	CHECK(store_session_add_arm(st, session, 1, build, "base (2)",
	                            "{\"GCR_NURSERY_KB\":\"16384\"}", &e) == 0);
	CHECK(store_session_add_arm(st, session, 1, build, "again", NULL, &e) != 0);
	for (int kind = 0; kind < RUN_KIND_COUNT; kind++)
		for (int status = 0; status < RUN_STATUS_COUNT; status++) {
			struct metric_set m = {0};
			struct run_record r;
			enum run_premise p = (enum run_premise)((kind + status) % 4);
			memset(&r, 0, sizeof r);
			metric_set_add(&m, "census.alloc_bytes", 1000.0 + kind * 100 + status);
			metric_set_add(&m, "time.wall_ns", 0.5);
			r.session_id = session;
			r.build_id = build;
			r.probe = "01_a";
			r.size = "ci";
			r.round = status;
			r.seq = kind * RUN_STATUS_COUNT + status + 1;
			r.arm = 0;
			r.kind = (enum run_kind)kind;
			r.status = (enum run_status)status;
			r.detail = status ? "why not" : NULL;
			r.checksum = "0x00000000000000aa";
			r.premise = p;
			r.premise_text = premise_text[p];
			r.stderr_tail = "";
			r.started_at = "2026-01-01T00:00:01Z";
			r.metrics = status == RUN_STATUS_LOST ? NULL : &m;
			CHECK(store_run_insert(st, &r, &id, &e) == 0);
			metric_set_release(&m);
		}
	CHECK(store_session_end(st, session, "complete", 0.25, &e) == 0);
	test_minheap_rows(st, host, build);
	store_close(st);

	/* Read back through a read-only open, as export and check do. */
	CHECK(store_open(path, STORE_READ, &st, &e) == 0);
	CHECK(store_session_get(st, session, &si, &e) == 0);
	CHECK_STR(si.status, "complete");
	CHECK(si.pid == (int64_t)getpid());
	CHECK(si.boot_id != NULL);
	CHECK(!si.elsewhere);
	store_session_release(&si);
	CHECK(store_session_builds(st, session, &builds, &nbuilds, &e) == 0);
	CHECK(nbuilds == 2);
	if (nbuilds == 2) {
		CHECK(builds[0].id == build && builds[1].id == build);
		CHECK(builds[0].position == 0 && builds[1].position == 1);
		CHECK_STR(builds[0].label, "base");
		CHECK(builds[0].knobs == NULL);
		CHECK_STR(builds[1].label, "base (2)");
		CHECK_STR(builds[1].knobs, "{\"GCR_NURSERY_KB\":\"16384\"}");
	}
	store_builds_release(builds, nbuilds);
	/* Runs are selected by arm: arm 1 has none. */
	CHECK(store_runs_load(st, session, 1, &runs, &nruns, &e) == 0);
	CHECK(nruns == 0);
	store_runs_release(runs, nruns);
	CHECK(store_runs_load(st, session, 0, &runs, &nruns, &e) == 0);
	CHECK(nruns == (size_t)RUN_KIND_COUNT * RUN_STATUS_COUNT);
	for (int kind = 0; kind < RUN_KIND_COUNT && k < nruns; kind++)
		for (int status = 0; status < RUN_STATUS_COUNT && k < nruns; status++, k++) {
			const struct store_run *r = &runs[k];
			enum run_premise p = (enum run_premise)((kind + status) % 4);
			const double *v = metric_set_get(&r->metrics, "census.alloc_bytes");
			CHECK(r->kind == (enum run_kind)kind);
			CHECK(r->status == (enum run_status)status);
			CHECK(r->premise == p);
			CHECK(p == RUN_PREMISE_NONE || p == RUN_PREMISE_MET ||
			      (r->premise_text && strcmp(r->premise_text, premise_text[p]) == 0));
			CHECK(r->arm == 0);
			CHECK(r->round == status);
			CHECK((r->detail != NULL) == (status != 0));
			if (status == RUN_STATUS_LOST)
				CHECK(r->metrics.n == 0);
			else
				CHECK(v && *v == 1000.0 + kind * 100 + status);
		}
	store_runs_release(runs, nruns);
	store_close(st);
	free(path);
}

/* Schema version 1 as it shipped (e276ab9), made without the store, as an old gcratchet did. */
static const char test_v1[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE hosts(id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, hostname TEXT,"
    " facts TEXT);"
    "CREATE TABLE builds(id INTEGER PRIMARY KEY, name TEXT NOT NULL, collector TEXT NOT NULL,"
    " collector_version TEXT, git_commit TEXT, dir TEXT, manifest TEXT NOT NULL,"
    " manifest_hash TEXT NOT NULL UNIQUE);"
    "CREATE TABLE sessions(id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES hosts(id),"
    " command TEXT, started_at TEXT NOT NULL, finished_at TEXT, status TEXT NOT NULL,"
    " seed INTEGER NOT NULL, size TEXT NOT NULL, rounds INTEGER NOT NULL,"
    " warmup INTEGER NOT NULL, probes TEXT NOT NULL, meters TEXT NOT NULL,"
    " load_before REAL, load_after REAL, harness_version TEXT, facts TEXT);"
    "CREATE TABLE session_builds(session_id INTEGER NOT NULL REFERENCES sessions(id),"
    " build_id INTEGER NOT NULL REFERENCES builds(id), position INTEGER NOT NULL,"
    " PRIMARY KEY(session_id, build_id));"
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES"
    " sessions(id), build_id INTEGER NOT NULL REFERENCES builds(id), probe TEXT NOT NULL,"
    " size TEXT NOT NULL, round INTEGER NOT NULL, seq INTEGER NOT NULL,"
    " warmup INTEGER NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, detail TEXT,"
    " checksum TEXT, premise TEXT, stderr_tail TEXT, started_at TEXT NOT NULL);"
    "CREATE INDEX runs_by_session ON runs(session_id, build_id);"
    "CREATE TABLE samples(run_id INTEGER NOT NULL REFERENCES runs(id), metric TEXT NOT NULL,"
    " value REAL NOT NULL, PRIMARY KEY(run_id, metric)) WITHOUT ROWID;"
    "INSERT INTO meta VALUES('schema_version', '1');"
    "INSERT INTO hosts VALUES(1, '00000000000000aa', 'oldhost', '{}');"
    "INSERT INTO builds VALUES(1, 'base', 'gen', '1', 'x', '/b', '{}', 'h1');"
    "INSERT INTO builds VALUES(2, 'fix', 'gen', '1', 'x', '/f', '{}', 'h2');"
    /* Two sessions with one start and one seed: schema 1 allowed it, the migration must too. */
    "INSERT INTO sessions VALUES(1, 1, 'ab', '2025-01-01T00:00:00Z', NULL, 'complete', 7, 'ci',"
    " 1, 0, '01_a', 'rusage', 0, 0, 'gcratchet 0.1.0', '{}');"
    "INSERT INTO sessions VALUES(2, 1, 'ab', '2025-01-01T00:00:00Z', NULL, 'running', 7, 'ci',"
    " 1, 0, '01_a', 'rusage', 0, 0, 'gcratchet 0.1.0', '{}');"
    "INSERT INTO session_builds VALUES(1, 1, 0), (1, 2, 1);"
    "INSERT INTO runs VALUES(1, 1, 2, '01_a', 'ci', 1, 1, 0, 'timed', 'ok', NULL, NULL, NULL,"
    " '', '2025-01-01T00:00:01Z');"
    "INSERT INTO runs VALUES(2, 1, 1, '01_a', 'ci', 1, 2, 0, 'valgrind', 'crashed', 'SIGSEGV',"
    " NULL, 'met', '', '2025-01-01T00:00:02Z');"
    "INSERT INTO samples VALUES(1, 'census.alloc_bytes', 42), (2, 'time.wall_ns', 9);";

static void test_migration(void)
{
	char *path = test_path("v1.db");
	struct store *st = NULL;
	struct store_run *runs = NULL;
	struct store_build *builds = NULL;
	struct store_session si;
	struct err e = ERR_INIT;
	size_t n = 0, nb = 0;

	CHECK(test_sql(path, test_v1) == 0);
	/* Reading never migrates: an older gcratchet still writing this file must still read it. */
	CHECK(store_open(path, STORE_READ, &st, &e) != 0);
	CHECK(e.code == ERR_INVALID && strstr(e.msg, "schema version 1 predates") != NULL);
	CHECK(store_open(path, STORE_WRITE, &st, &e) == 0);
	CHECK(store_runs_load(st, 1, -1, &runs, &n, &e) == 0);
	CHECK(n == 2);
	if (n == 2) {
		CHECK(runs[0].arm == 1 && runs[1].arm == 0);
		CHECK(runs[1].kind == RUN_KIND_VALGRIND && runs[1].status == RUN_STATUS_CRASHED);
		CHECK(runs[1].premise == RUN_PREMISE_MET);
		CHECK(metric_set_get(&runs[0].metrics, "census.alloc_bytes") &&
		      *metric_set_get(&runs[0].metrics, "census.alloc_bytes") == 42);
	}
	store_runs_release(runs, n);
	/* A running session of schema 1 kept no pid: it cannot be probed, so it is not dead. */
	CHECK(store_session_get(st, 2, &si, &e) == 0);
	CHECK_STR(si.status, "running");
	CHECK(si.elsewhere && si.pid == 0);
	store_session_release(&si);
	/* The arms keep their builds and positions, and are labelled by their build's name. */
	CHECK(store_session_builds(st, 1, &builds, &nb, &e) == 0);
	CHECK(nb == 2);
	if (nb == 2) {
		CHECK(builds[0].id == 1 && builds[0].position == 0);
		CHECK(builds[1].id == 2 && builds[1].position == 1);
		CHECK_STR(builds[0].label, "base");
		CHECK_STR(builds[1].label, "fix");
		CHECK(builds[1].knobs == NULL);
	}
	store_builds_release(builds, nb);
	store_close(st);
	/* Opening again finds the current version and leaves it. */
	CHECK(store_open(path, STORE_READ, &st, &e) == 0);
	store_close(st);
	/* Schema 6: every old session got a uuid, its own, derived (version 8) from its row. */
	CHECK(test_sql_int(path, "SELECT count(DISTINCT uuid) FROM sessions WHERE length(uuid) = 36"
	                         " AND substr(uuid, 15, 1) = '8'") ==
	      test_sql_int(path, "SELECT count(*) FROM sessions"));
	CHECK(test_sql_int(path, "SELECT value FROM meta WHERE key = 'schema_version'") ==
	      STORE_SCHEMA_VERSION);
	free(path);
}

/* Schema version 2 as it shipped (5a5f63f): schema 1 and its step, a label already set on one arm. */
static const char test_v2_step[] =
    "ALTER TABLE sessions ADD COLUMN pid INTEGER;"
    "ALTER TABLE sessions ADD COLUMN boot_id TEXT;"
    "CREATE UNIQUE INDEX sessions_key ON sessions(host_id, started_at, seed, pid);"
    "CREATE INDEX sessions_by_start ON sessions(started_at, id);"
    "ALTER TABLE session_builds ADD COLUMN label TEXT;"
    "ALTER TABLE session_builds ADD COLUMN knobs TEXT;"
    "ALTER TABLE runs ADD COLUMN arm INTEGER;"
    "UPDATE runs SET arm = (SELECT sb.position FROM session_builds sb"
    " WHERE sb.session_id = runs.session_id AND sb.build_id = runs.build_id);"
    "UPDATE session_builds SET label = 'the fix' WHERE build_id = 2;"
    "UPDATE meta SET value = '2' WHERE key = 'schema_version';";

/* v2 -> v3 re-keys the arms by position and keeps every row: arms, runs, their arm, samples. */
static void test_migration_v2(void)
{
	char *path = test_path("v2.db"), *sql = xasprintf("%s%s", test_v1, test_v2_step);
	struct store *st = NULL;
	struct store_run *runs = NULL;
	struct store_build *builds = NULL;
	struct err e = ERR_INIT;
	size_t n = 0, nb = 0;
	int64_t s3 = 0;

	CHECK(test_sql(path, sql) == 0);
	CHECK(store_open(path, STORE_READ, &st, &e) != 0);
	CHECK(e.code == ERR_INVALID && strstr(e.msg, "schema version 2 predates") != NULL);
	CHECK(store_open(path, STORE_WRITE, &st, &e) == 0);
	CHECK(store_session_builds(st, 1, &builds, &nb, &e) == 0);
	CHECK(nb == 2);
	if (nb == 2) {
		CHECK(builds[0].id == 1 && builds[0].position == 0);
		CHECK_STR(builds[0].label, "base");
		CHECK(builds[1].id == 2 && builds[1].position == 1);
		CHECK_STR(builds[1].label, "the fix");
	}
	store_builds_release(builds, nb);
	CHECK(store_runs_load(st, 1, 1, &runs, &n, &e) == 0);
	CHECK(n == 1 && runs[0].id == 1 && runs[0].build_id == 2);
	CHECK(n == 1 && metric_set_get(&runs[0].metrics, "census.alloc_bytes"));
	store_runs_release(runs, n);
	CHECK(store_runs_load(st, 1, -1, &runs, &n, &e) == 0);
	CHECK(n == 2);
	store_runs_release(runs, n);
	/* The new key: one build can now be two arms of a session. */
	{
		struct store_session si;
		memset(&si, 0, sizeof si);
		si.host_id = 1;
		si.started_at = (char *)"2026-01-01T00:00:00Z";
		si.size = (char *)"ci";
		si.probes = (char *)"01_a";
		si.meters = (char *)"rusage";
		CHECK(store_session_begin(st, &si, &s3, &e) == 0);
	}
	CHECK(store_session_add_arm(st, s3, 0, 1, "base", NULL, &e) == 0);
	CHECK(store_session_add_arm(st, s3, 1, 1, "base (2)", NULL, &e) == 0);
	CHECK(store_latest_session(st, "gen", &s3, &e) == 0 && s3 > 2);
	/* v3 -> v4 adds the minheap table to a database that has runs. */
	test_minheap_rows(st, 1, 2);
	store_close(st);
	CHECK(test_sql_int(path, "SELECT value FROM meta WHERE key = 'schema_version'") ==
	      STORE_SCHEMA_VERSION);
	CHECK(test_sql_int(path, "SELECT count(*) FROM samples") == 2);
	free(sql);
	free(path);
}

static void test_newer_refused(void)
{
	char *path = test_path("newer.db");
	struct store *st = NULL;
	struct err e = ERR_INIT;

	CHECK(store_open(path, STORE_WRITE, &st, &e) == 0);
	store_close(st);
	{
		char *sql = xasprintf("UPDATE meta SET value = '%d' WHERE key = 'schema_version'",
		                      STORE_SCHEMA_VERSION + 1);
		char *want = xasprintf("schema version %d is newer", STORE_SCHEMA_VERSION + 1);
		CHECK(test_sql(path, sql) == 0);
		CHECK(store_open(path, STORE_WRITE, &st, &e) != 0 && st == NULL);
		CHECK(e.code == ERR_INVALID && strstr(e.msg, want) != NULL);
		free(want);
		free(sql);
	}
	CHECK(store_open(path, STORE_READ, &st, &e) != 0);
	CHECK(e.code == ERR_INVALID);
	free(path);
}

static void test_read_missing(void)
{
	char *path = test_path("nowhere/x.db");
	char *folder = test_path("nowhere");
	struct store *st = NULL;
	struct stat sb;
	struct err e = ERR_INIT;

	CHECK(store_open(path, STORE_READ, &st, &e) != 0 && st == NULL);
	CHECK(e.code == ERR_NOT_FOUND);
	CHECK(strstr(e.msg, path) != NULL);
	CHECK(stat(folder, &sb) != 0);
	/* A server that is not there: an error naming the URL without its password. */
	CHECK(store_open("postgresql://u:secret@/db?host=/nonexistent-gcratchet", STORE_READ, &st,
	                 &e) != 0);
	CHECK(e.code == ERR_IO && strstr(e.msg, "cannot connect") != NULL);
	CHECK(strstr(e.msg, "postgresql://u:***@/db") != NULL && strstr(e.msg, "secret") == NULL);
	free(folder);
	free(path);
}

/* Newest means newest by start: a database merged from others has ids out of time order. */
static void test_latest_and_liveness(void)
{
	char *path = test_path("latest.db"), *sql;
	struct store *st = NULL;
	struct store_build b = {0};
	struct store_session *all = NULL, si;
	struct err e = ERR_INIT;
	int64_t host, build, s1, s2, s3, latest = 0;
	size_t n = 0;
	pid_t gone;

	char self[256] = "";

	/* Only a session of this host can be probed, and the host is known by its name. */
	CHECK(gethostname(self, sizeof self - 1) == 0);
	CHECK(store_open(path, STORE_WRITE, &st, &e) == 0);
	CHECK(store_host(st, "00000000000000bb", self, "{}", &host, &e) == 0);
	b.name = (char *)"g";
	b.collector = (char *)"gen";
	b.manifest_hash = (char *)"hg";
	CHECK(store_build_upsert(st, &b, "{}", &build, &e) == 0);
	s1 = test_session(st, host, "2026-03-01T00:00:00Z", 1);
	s2 = test_session(st, host, "2026-05-01T00:00:00Z", 1);
	s3 = test_session(st, host, "2026-04-01T00:00:00Z", 1);
	for (int64_t s = s1; s <= s3; s++)
		CHECK(store_session_add_arm(st, s, 0, build, "g", NULL, &e) == 0);
	CHECK(store_latest_session(st, "gen", &latest, &e) == 0);
	CHECK(latest == s2);
	CHECK(store_latest_session(st, "marksweep", &latest, &e) == 0);
	CHECK(latest == 0);
	CHECK(store_list_sessions(st, "gen", &all, &n, &e) == 0);
	CHECK(n == 3 && all[0].id == s1 && all[1].id == s3 && all[2].id == s2);
	/* This process is alive: its sessions still run. */
	CHECK(all[2].status && strcmp(all[2].status, "running") == 0 && !all[2].elsewhere);
	store_sessions_release(all, n);
	/* The natural key: the same start and seed from the same process is one session. */
	{
		struct store_session dup;
		int64_t id;
		memset(&dup, 0, sizeof dup);
		dup.host_id = host;
		dup.started_at = (char *)"2026-03-01T00:00:00Z";
		dup.seed = 1;
		dup.size = (char *)"ci";
		dup.probes = (char *)"01_a";
		dup.meters = (char *)"rusage";
		CHECK(store_session_begin(st, &dup, &id, &e) != 0);
	}
	store_close(st);

	/* A process that has exited: its running session is abandoned; another boot's is unknown. */
	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	sql = xasprintf("UPDATE sessions SET pid = %d WHERE id = %lld;"
	                "UPDATE sessions SET boot_id = 'another-boot' WHERE id = %lld",
	                (int)gone, (long long)s2, (long long)s3);
	CHECK(test_sql(path, sql) == 0);
	CHECK(store_open(path, STORE_READ, &st, &e) == 0);
	CHECK(store_session_get(st, s2, &si, &e) == 0);
	CHECK_STR(si.status, "abandoned");
	store_session_release(&si);
	CHECK(store_session_get(st, s3, &si, &e) == 0);
	CHECK_STR(si.status, "running");
	CHECK(si.elsewhere);
	store_session_release(&si);
	CHECK(store_session_get(st, 99, &si, &e) != 0 && e.code == ERR_NOT_FOUND);
	store_close(st);
	free(sql);
	/* Computed, never written: the row still says running. */
	sql = xasprintf("SELECT COUNT(*) FROM sessions WHERE status = 'running' AND id = %lld",
	                (long long)s2);
	CHECK(test_sql_int(path, sql) == 1);
	free(sql);
	free(path);
}

/* Redaction: the password of the user part and of a password= parameter, nothing else. */
static void test_url_redact(void)
{
	static const char *const cases[][2] = {
	    {"postgresql://u:pw@h:5432/db", "postgresql://u:***@h:5432/db"},
	    {"postgresql://u@h/db", "postgresql://u@h/db"},
	    {"postgresql:///db?host=/tmp/x&password=pw&user=u",
	     "postgresql:///db?host=/tmp/x&password=***&user=u"},
	    {"postgres://h/db?password=pw", "postgres://h/db?password=***"},
	    {"postgresql://h/db?oldpassword=x", "postgresql://h/db?oldpassword=x"},
	    {"postgresql://u:p@ss@h/db", "postgresql://u:***@ss@h/db"},
	};

	/*
	 * Every form libpq takes a password in (issue 25, item 11): percent-encoded keys, an
	 * sslpassword, a key=value string with quotes and escapes, and strings libpq refuses.
	 */
	static const char *const more[][2] = {
	    {"postgresql://u:pw@h/db?pass%77ord=x&sslpassword=y",
	     "postgresql://u:***@h/db?pass%77ord=***&sslpassword=***"},
	    {"postgresql://h/db?%70assword=x&sslmode=require",
	     "postgresql://h/db?%70assword=***&sslmode=require"},
	    {"postgresql://u:p%40w@h/db", "postgresql://u:***@h/db"},
	    {"postgresql://u:p%zzw@h/db", "postgresql://u:***@h/db"},
	    {"postgresql://h/db?password=p%zzsecret", "postgresql://h/db?password=***"},
	    {"postgresql://h/db?%zz=secret", "postgresql://h/db?%zz=***"},
	    {"postgresql://h/db?password=a=b", "postgresql://h/db?password=***"},
	    {"postgresql://[::1/db?password=secret", "postgresql://[::1/db?password=***"},
	    {"host=/tmp/x dbname=gcr password=secret", "host=/tmp/x dbname=gcr password=***"},
	    {"host=x password = 'se cr\\'et' dbname=y sslpassword=k",
	     "host=x password = '***' dbname=y sslpassword=***"},
	    {"pass%77ord=secret host=x", "pass%77ord=*** host=x"},
	    {"host=x dbname=y", "host=x dbname=y"},
	    {"results/gcratchet.db", "results/gcratchet.db"},
	};
	/* Where a secret is found, libpq must read the shown string without it. */
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = store_url_redact(cases[i][0]);
		CHECK_STR(got, cases[i][1]);
		free(got);
	}
	for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
		char *got = store_url_redact(more[i][0]);
		CHECK_STR(got, more[i][1]);
		CHECK(!strstr(got, "secret") && !strstr(got, "pw@"));
		free(got);
	}
	CHECK(store_is_conninfo("host=x dbname=y") && store_is_conninfo("postgres://h/db"));
	CHECK(!store_is_conninfo("results/x.db") && !store_is_conninfo("/abs/a=b.db") &&
	      !store_is_conninfo("sqlite:x.db"));
}

/* A stored command line names no password, whichever option or form carried it. */
static void test_command_redact(void)
{
	static const char *const cases[][2] = {
	    {"gcratchet measure --db postgresql://u:pw@h/db --rounds 1",
	     "gcratchet measure --db postgresql://u:***@h/db --rounds 1"},
	    {"gcratchet measure --db=postgres://u:pw@h/db",
	     "gcratchet measure --db=postgres://u:***@h/db"},
	    {"gcratchet push --to postgresql://h/db?password=pw --db x.db",
	     "gcratchet push --to postgresql://h/db?password=*** --db x.db"},
	    {"gcratchet pull --from host=/tmp dbname=gcr password=pw",
	     "gcratchet pull --from host=/tmp dbname=gcr password=***"},
	    {"gcratchet measure --fleet=host=h sslpassword=pw",
	     "gcratchet measure --fleet=host=h sslpassword=***"},
	    {"gcratchet measure --knob GCR_NURSERY_KB=16 --probes 01",
	     "gcratchet measure --knob GCR_NURSERY_KB=16 --probes 01"},
	};
	struct store *st = NULL;
	struct err e = ERR_INIT;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = store_command_redact(cases[i][0]);
		CHECK_STR(got, cases[i][1]);
		free(got);
	}
	CHECK(store_command_redact(NULL) == NULL);
	/* An empty string holds no secret, and a message is left as it is (it once looped). */
	{
		char *same = store_pg_redact_in("", "a message");
		CHECK_STR(same, "a message");
		free(same);
		same = store_pg_redact_in("host=h password=pw", "quoting host=h password=pw: pw");
		CHECK_STR(same, "quoting host=h password=***: ***");
		free(same);
	}
	/* libpq's own message about a bad %-token quotes the token: not this one. */
	CHECK(store_open("postgresql://u:p%zzsecret@/db?host=/nonexistent-gcratchet", STORE_READ,
	                 &st, &e) != 0);
	CHECK(e.code == ERR_INVALID && strstr(e.msg, "not a valid connection string") != NULL);
	CHECK(strstr(e.msg, "secret") == NULL && strstr(e.msg, "postgresql://u:***@/db") != NULL);
	CHECK(store_open("postgresql://[::1/db?password=secret", STORE_READ, &st, &e) != 0);
	CHECK(e.code == ERR_INVALID && strstr(e.msg, "secret") == NULL);
	CHECK(store_open("host=/nonexistent-gcratchet password=secret dbname", STORE_READ, &st,
	                 &e) != 0);
	CHECK(e.code == ERR_INVALID && strstr(e.msg, "secret") == NULL);
}

/*
 * Text that is not UTF-8 (a probe's stderr, a knob) is stored with U+FFFD for each bad byte,
 * on SQLite as on PostgreSQL, which refuses such bytes; valid text is stored as it is.
 */
static void test_text_utf8(void)
{
	char *path = test_path("utf8.db");
	struct store *st = NULL;
	struct store_build b = {0}, *arms = NULL;
	struct store_run *runs = NULL;
	struct run_record r;
	struct err e = ERR_INIT;
	int64_t host, build, session, id;
	size_t n = 0, na = 0;

	CHECK(store_open(path, STORE_WRITE, &st, &e) == 0);
	CHECK(store_host(st, "00000000000000dd", "h\377", "{}", &host, &e) == 0);
	b.name = (char *)"g\xc3\xa9";
	b.collector = (char *)"gen";
	b.manifest_hash = (char *)"hutf";
	CHECK(store_build_upsert(st, &b, "{}", &build, &e) == 0);
	session = test_session(st, host, "2026-06-01T00:00:00Z", 1);
	CHECK(store_session_add_arm(st, session, 0, build, "a\xe2\x82", "{\"K\":\"\377\"}", &e) ==
	      0);
	memset(&r, 0, sizeof r);
	r.session_id = session;
	r.build_id = build;
	r.probe = "01_a";
	r.size = "ci";
	r.stderr_tail = "x\377y\xc0\xafz";
	r.started_at = "2026-06-01T00:00:01Z";
	CHECK(store_run_insert(st, &r, &id, &e) == 0);
	CHECK(store_runs_load(st, session, -1, &runs, &n, &e) == 0 && n == 1);
	if (n == 1)
		CHECK_STR(runs[0].stderr_tail,
		          "x" ESCAPE_REPLACEMENT "y" ESCAPE_REPLACEMENT ESCAPE_REPLACEMENT "z");
	CHECK(store_session_builds(st, session, &arms, &na, &e) == 0 && na == 1);
	if (na == 1) {
		CHECK_STR(arms[0].name, "g\xc3\xa9");
		CHECK_STR(arms[0].label, "a" ESCAPE_REPLACEMENT ESCAPE_REPLACEMENT);
		CHECK_STR(arms[0].knobs, "{\"K\":\"" ESCAPE_REPLACEMENT "\"}");
	}
	store_builds_release(arms, na);
	store_runs_release(runs, n);
	store_close(st);
	free(path);
}

/*
 * push and pull: a session copied into another database arrives whole (host, build, arms,
 * runs, samples) under a new id with its uuid, and a second copy stores nothing.
 */
static void test_copy(void)
{
	char *a = test_path("copy-a.db"), *b = test_path("copy-b.db");
	struct store *from = NULL, *to = NULL;
	struct store_build bu = {0}, *arms = NULL;
	struct store_run *runs = NULL;
	struct store_session s1, s2;
	struct err e = ERR_INIT;
	int64_t host, build, session, other, id, to_id = 0, again = 0;
	size_t n = 0, na = 0;
	int copied = -1;
	char here[256] = "";

	/* This host's name, so that the running session below is known to be this process's. */
	CHECK(gethostname(here, sizeof here - 1) == 0);
	CHECK(store_open(a, STORE_WRITE, &from, &e) == 0);
	CHECK(store_host(from, "00000000000000cc", here, "{\"cores\":2}", &host, &e) == 0);
	bu.name = (char *)"gen";
	bu.collector = (char *)"gen";
	bu.manifest_hash = (char *)"hcopy";
	CHECK(store_build_upsert(from, &bu, "{\"m\":1}", &build, &e) == 0);
	session = test_session(from, host, "2026-02-01T00:00:00Z", 7);
	other = test_session(from, host, "2026-02-02T00:00:00Z", 8);
	CHECK(store_session_add_arm(from, session, 0, build, "gen", NULL, &e) == 0);
	CHECK(store_session_add_arm(from, session, 1, build, "gen (2)", "{\"K\":\"1\"}", &e) == 0);
	for (int k = 0; k < 4; k++) {
		struct metric_set m = {0};
		struct run_record r;
		memset(&r, 0, sizeof r);
		metric_set_add(&m, "census.alloc_bytes", 1000.0 + k);
		metric_set_add(&m, "time.wall_ns", 0.1 * k);
		r.session_id = session;
		r.build_id = build;
		r.probe = "01_a";
		r.size = "ci";
		r.round = k / 2;
		r.seq = k + 1;
		r.arm = k % 2;
		r.status = k == 3 ? RUN_STATUS_CRASHED : RUN_STATUS_OK;
		r.detail = k == 3 ? "SIGSEGV" : NULL;
		r.checksum = "0x01";
		r.stderr_tail = "";
		r.started_at = "2026-02-01T00:00:01Z";
		r.metrics = &m;
		CHECK(store_run_insert(from, &r, &id, &e) == 0);
		metric_set_release(&m);
	}
	CHECK(store_session_end(from, session, "complete", 0.5, &e) == 0);
	/* Two minimum-heap searches that started in one second: both travel with the session. */
	for (int k = 0; k < 2; k++) {
		struct store_minheap_record mh = {
		    .host_id = host,
		    .build_id = build,
		    .probe = "01_a",
		    .size = "ci",
		    .started_at = "2026-02-01T00:00:09Z",
		    .outcome = "found",
		    .min_heap_mb = 5 + k,
		    .lo_mb = 4,
		    .step_mb = 1,
		    .repeats = 1,
		    .runs = 3,
		    .unlimited_peak_bytes = -1,
		};
		CHECK(store_minheap_insert(from, &mh, &e) == 0);
	}
	/* The other session is this process's own, still running: not copied half done. */
	CHECK(store_open(b, STORE_WRITE, &to, &e) == 0);
	CHECK(store_session_copy(from, other, to, &to_id, &copied, &e) != 0);
	CHECK(e.code == ERR_BUSY && strstr(e.msg, "still running") != NULL);
	CHECK(store_session_end(from, other, "interrupted", 0.5, &e) == 0);
	/* The destination's ids are its own: a session there first shifts them. */
	CHECK(store_session_copy(from, other, to, &to_id, &copied, &e) == 0);
	CHECK(copied == 1 && to_id == 1);
	CHECK(store_session_copy(from, session, to, &to_id, &copied, &e) == 0);
	CHECK(copied == 1 && to_id == 2);
	CHECK(store_session_copy(from, session, to, &again, &copied, &e) == 0);
	CHECK(copied == 0 && again == to_id);
	{
		struct store_minheap *mh = NULL;
		size_t nmh = 0;
		CHECK(store_minheap_list(to, &mh, &nmh, &e) == 0);
		CHECK(nmh == 2);
		if (nmh == 2)
			CHECK(mh[0].min_heap_mb + mh[1].min_heap_mb == 11);
		store_minheaps_release(mh, nmh);
	}
	CHECK(store_session_get(from, session, &s1, &e) == 0);
	CHECK(store_session_get(to, to_id, &s2, &e) == 0);
	CHECK(s1.uuid && strlen(s1.uuid) == 36 && s1.uuid[14] == '4');
	CHECK_STR(s2.uuid, s1.uuid);
	CHECK_STR(s2.status, "complete");
	CHECK_STR(s2.hostname, here);
	CHECK_STR(s2.started_at, s1.started_at);
	CHECK_STR(s2.finished_at, s1.finished_at);
	CHECK(s2.seed == 7 && s2.pid == s1.pid && s2.load_after == 0.5);
	store_session_release(&s1);
	store_session_release(&s2);
	CHECK(store_session_builds(to, to_id, &arms, &na, &e) == 0);
	CHECK(na == 2);
	if (na == 2) {
		CHECK(arms[0].id == arms[1].id && arms[1].position == 1);
		CHECK_STR(arms[1].label, "gen (2)");
		CHECK_STR(arms[1].knobs, "{\"K\":\"1\"}");
		CHECK_STR(arms[0].manifest_hash, "hcopy");
	}
	store_builds_release(arms, na);
	CHECK(store_runs_load(to, to_id, -1, &runs, &n, &e) == 0);
	CHECK(n == 4);
	for (size_t k = 0; k < n && n == 4; k++) {
		const double *v = metric_set_get(&runs[k].metrics, "census.alloc_bytes");
		CHECK(v && *v == 1000.0 + (double)k);
		CHECK(runs[k].arm == (int)(k % 2) && runs[k].seq == (int)k + 1);
	}
	if (n == 4) {
		CHECK(runs[3].status == RUN_STATUS_CRASHED);
		CHECK_STR(runs[3].detail, "SIGSEGV");
	}
	store_runs_release(runs, n);
	store_close(to);
	store_close(from);
	CHECK(test_sql_int(b, "SELECT count(*) FROM samples") == 8);
	CHECK(test_sql_int(b, "SELECT count(*) FROM sessions") == 2);
	free(b);
	free(a);
}

/*
 * Sample values (issue 25, item 15): a value no metric can hold is refused on insert, and one
 * put there behind the store's back (text, a blob, an infinity, a negative count) fails the
 * load and the history naming the run, never read as 0 or as its numeric prefix.
 */
static void test_sample_values(void)
{
	char *path = test_path("values.db");
	static const double bad[] = {NAN, INFINITY, -INFINITY, -1};
	static const struct {
		const char *sql, *says;
	} planted[] = {
	    {"UPDATE samples SET value = '1000 garbage'", "census.alloc_bytes is stored as text"},
	    {"UPDATE samples SET value = x'e803'", "census.alloc_bytes is stored as a blob"},
	    {"UPDATE samples SET value = 9e999", "census.alloc_bytes is +infinity, not a finite"},
	    {"UPDATE samples SET value = -9e999", "census.alloc_bytes is -infinity"},
	    {"UPDATE samples SET value = -1", "census.alloc_bytes is -1, but a size in bytes"},
	};
	struct store *st = NULL;
	struct store_build b = {0};
	struct store_run *runs = NULL;
	struct store_history_point *pts = NULL;
	struct metric_set m = {0};
	struct run_record r;
	struct err e = ERR_INIT;
	int64_t host, build, session, id = 0;
	size_t n = 0;

	CHECK(store_open(path, STORE_WRITE, &st, &e) == 0);
	CHECK(store_host(st, "00000000000000aa", "testhost", "{}", &host, &e) == 0);
	b.name = (char *)"base";
	b.collector = (char *)"gen";
	b.manifest_hash = (char *)"hv";
	CHECK(store_build_upsert(st, &b, "{}", &build, &e) == 0);
	session = test_session(st, host, "2026-03-01T00:00:00Z", 1);
	CHECK(store_session_add_arm(st, session, 0, build, "base", NULL, &e) == 0);
	memset(&r, 0, sizeof r);
	r.session_id = session;
	r.build_id = build;
	r.probe = "01_a";
	r.size = "ci";
	r.round = 1;
	r.seq = 1;
	r.kind = RUN_KIND_TIMED;
	r.status = RUN_STATUS_OK;
	r.stderr_tail = "";
	r.started_at = "2026-03-01T00:00:01Z";
	r.metrics = &m;
	metric_set_add(&m, "time.wall_ns", 5);
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		metric_set_add(&m, "census.alloc_bytes", bad[k]);
		CHECK(store_run_insert(st, &r, &id, &e) != 0);
		CHECK(e.code == ERR_INVALID);
		CHECK(strstr(e.msg,
		             "storing a run of 01_a (round 1, seq 1): census.alloc_bytes is") !=
		      NULL);
	}
	metric_set_add(&m, "census.mmu_10ms", 1.25);
	metric_set_add(&m, "census.alloc_bytes", 1000);
	CHECK(store_run_insert(st, &r, &id, &e) != 0);
	CHECK(strstr(e.msg, "census.mmu_10ms is 1.25, but a ratio is from 0 to 1") != NULL);
	/* A per-iteration run is a difference of two: a negative time is noise, and is stored. */
	r.kind = RUN_KIND_PER_ITERATION;
	r.seq = 2;
	metric_set_add(&m, "time.wall_ns", -11830.6);
	CHECK(store_run_insert(st, &r, &id, &e) == 0);
	r.kind = RUN_KIND_TIMED;
	r.seq = 1;
	metric_set_add(&m, "time.wall_ns", 5);
	metric_set_add(&m, "census.mmu_10ms", 0.75);
	CHECK(store_run_insert(st, &r, &id, &e) == 0);
	metric_set_release(&m);
	CHECK(store_session_end(st, session, "complete", 0, &e) == 0);
	store_close(st);
	/* The refused runs left nothing behind. */
	CHECK(test_sql_int(path, "SELECT count(*) FROM runs") == 2);
	CHECK(test_sql_int(path, "SELECT count(*) FROM samples") == 6);

	/* An integer is a number: as sqlite3 would store a hand-typed 1000. */
	CHECK(test_sql(path, "UPDATE samples SET value = CAST(1000 AS INTEGER) WHERE metric ="
	                     " 'census.alloc_bytes'") == 0);
	CHECK(store_open(path, STORE_READ, &st, &e) == 0);
	CHECK(store_runs_load(st, session, -1, &runs, &n, &e) == 0);
	CHECK(n == 2 && runs[0].metrics.n == 3 && runs[1].metrics.n == 3);
	CHECK(n == 2 && *metric_set_get(&runs[0].metrics, "time.wall_ns") == -11830.6);
	store_runs_release(runs, n);
	store_close(st);

	for (size_t k = 0; k < sizeof planted / sizeof planted[0]; k++) {
		char *sql = xasprintf("%s WHERE run_id = %lld AND metric = 'census.alloc_bytes'",
		                      planted[k].sql, (long long)id);
		char *want = xasprintf("run %lld: %s", (long long)id, planted[k].says);
		CHECK(test_sql(path, sql) == 0);
		CHECK(store_open(path, STORE_READ, &st, &e) == 0);
		CHECK(store_runs_load(st, session, -1, &runs, &n, &e) != 0);
		CHECK(runs == NULL && n == 0);
		CHECK(e.code == ERR_CORRUPT);
		CHECK(strstr(e.msg, want) != NULL);
		if (!strstr(e.msg, want))
			fprintf(stderr, "  got: %s\n  want: %s\n", e.msg, want);
		CHECK(store_history(st, "gen", "01_a", "census.alloc_bytes", NULL, NULL, &pts, &n,
		                    &e) != 0);
		CHECK(pts == NULL && strstr(e.msg, want) != NULL);
		/* Another metric of the run is still read in the history. */
		CHECK(store_history(st, "gen", "01_a", "time.wall_ns", NULL, NULL, &pts, &n, &e) ==
		      0);
		CHECK(n == 1 && pts[0].n == 1 && pts[0].values[0] == 5);
		store_history_release(pts, n);
		store_close(st);
		free(want);
		free(sql);
	}
	free(path);
}

/*
 * Bisects: a record and its steps read back as stored, ids given in order, the newest open
 * one found, a status that is no status refused by the database, the pid replaced on resume.
 */
static void test_bisects(void)
{
	char *path = test_path("bisect.db");
	struct store *st = NULL;
	struct store_bisect b;
	struct store_bisect_step step, *steps = NULL;
	struct store_bisect_record r;
	struct err e = ERR_INIT;
	size_t n = 0;
	int64_t id1 = 0, id2 = 0, open = -1;

	CHECK(store_open(path, STORE_WRITE, &st, &e) == 0);
	CHECK(store_bisect_latest_open(st, &open, &e) == 0 && open == 0);
	memset(&r, 0, sizeof r);
	r.started_at = "2026-12-01T10:00:00Z";
	r.command = "gcratchet bisect --db postgresql://u:secret@h/db";
	r.source = "collector-dir";
	r.repo = "/src/repo";
	r.target = "/src/repo/tinyms";
	r.build_options = "[\"CC=clang\"]";
	r.good = "aaaa";
	r.bad = "cccc";
	r.commits = "aaaa bbbb cccc";
	r.probes = "01_nursery_churn,15_request_latency";
	r.metric = "valgrind.ir";
	r.size = "ci";
	r.improved = 1;
	r.threshold_pct = 1;
	r.threshold_abs = 1000;
	r.rounds = 6;
	r.max_rounds = 18;
	r.warmup = 1;
	CHECK(store_bisect_begin(st, &r, &id1, &e) == 0 && id1 == 1);
	CHECK(store_bisect_begin(st, &r, &id2, &e) == 0 && id2 == 2);
	CHECK(store_bisect_latest_open(st, &open, &e) == 0 && open == 2);
	CHECK(store_bisect_get(st, 1, &b, &e) == 0);
	CHECK_STR(b.status, "running");
	CHECK(b.pid == (int64_t)getpid());
	CHECK(strstr(b.command, "secret") == NULL && strstr(b.command, "***") != NULL);
	CHECK_STR(b.commits, "aaaa bbbb cccc");
	CHECK_STR(b.build_options, "[\"CC=clang\"]");
	CHECK(b.improved == 1 && b.threshold_pct == 1 && b.threshold_abs == 1000);
	CHECK(b.rounds == 6 && b.max_rounds == 18 && b.warmup == 1);
	CHECK(b.mode == NULL && b.first_bad == NULL && b.finished_at == NULL);
	store_bisect_release(&b);

	memset(&step, 0, sizeof step);
	step.bisect_id = 1;
	step.seq = 1;
	step.role = (char *)"good";
	step.commit = (char *)"aaaa";
	step.subject = (char *)"c1";
	step.decision = (char *)"good";
	step.sessions = (char *)"3 4";
	step.figures = (char *)"{\"01_nursery_churn\":{\"values\":[1,1]}}";
	step.build_s = 1.5;
	step.measure_s = 2.5;
	step.started_at = (char *)"2026-12-01T10:00:01Z";
	CHECK(store_bisect_step_insert(st, &step, &e) == 0);
	step.seq = 2;
	step.role = (char *)"step";
	step.commit = (char *)"bbbb";
	step.decision = (char *)"skip";
	step.reason = (char *)"does not build: tinyms.c:3: error";
	step.sessions = NULL;
	step.figures = NULL;
	CHECK(store_bisect_step_insert(st, &step, &e) == 0);
	/* One seq once; a decision that is none of good, bad and skip. */
	CHECK(store_bisect_step_insert(st, &step, &e) != 0);
	step.seq = 3;
	step.decision = (char *)"maybe";
	CHECK(store_bisect_step_insert(st, &step, &e) != 0);
	CHECK(store_bisect_steps(st, 1, &steps, &n, &e) == 0 && n == 2);
	if (n == 2) {
		CHECK(steps[0].seq == 1 && steps[1].seq == 2);
		CHECK_STR(steps[0].sessions, "3 4");
		CHECK(steps[0].build_id == 0 && steps[0].build_s == 1.5 &&
		      steps[0].measure_s == 2.5);
		CHECK_STR(steps[1].reason, "does not build: tinyms.c:3: error");
		CHECK(steps[1].figures == NULL && steps[1].sessions == NULL);
	}
	store_bisect_steps_release(steps, n);

	CHECK(store_bisect_update(st, 2, "found", "exact", "cccc", NULL, &e) == 0);
	CHECK(store_bisect_latest_open(st, &open, &e) == 0 && open == 1);
	CHECK(store_bisect_get(st, 2, &b, &e) == 0);
	CHECK_STR(b.status, "found");
	CHECK_STR(b.mode, "exact");
	CHECK_STR(b.first_bad, "cccc");
	CHECK(b.finished_at != NULL);
	store_bisect_release(&b);
	/* Running again (a resume): its pid is this process's, its mode kept. */
	CHECK(test_sql(path, "UPDATE bisects SET pid = 1 WHERE id = 2") == 0);
	CHECK(store_bisect_update(st, 2, "running", NULL, NULL, NULL, &e) == 0);
	CHECK(store_bisect_get(st, 2, &b, &e) == 0);
	CHECK(b.pid == (int64_t)getpid() && b.finished_at == NULL);
	CHECK_STR(b.mode, "exact");
	store_bisect_release(&b);
	CHECK(store_bisect_update(st, 2, "done", NULL, NULL, NULL, &e) != 0);
	CHECK(store_bisect_get(st, 9, &b, &e) != 0 && e.code == ERR_NOT_FOUND);
	store_close(st);
	free(path);
}

/*
 * A valgrind run's functions (schema 9): stored with the run in its transaction, read back in
 * order with the run's Ir as their total, copied by push with the session; a profile that
 * breaks its invariants is refused with the run, and a row damaged behind the store's back
 * fails the load naming the run.
 */
static void test_functions(void)
{
	char *a = test_path("fn-a.db"), *b = test_path("fn-b.db");
	struct store *st = NULL, *to = NULL;
	struct store_build bu = {0};
	struct store_run *runs = NULL;
	struct err e = ERR_INIT;
	int64_t host, build, session, id, to_id = 0;
	size_t n = 0;
	int copied = 0;
	struct metric_set m = {0};
	struct fnprof p;
	struct run_record r;

	CHECK(store_open(a, STORE_WRITE, &st, &e) == 0);
	CHECK(store_host(st, "00000000000000fa", "h", NULL, &host, &e) == 0);
	bu.name = (char *)"gen";
	bu.collector = (char *)"gen";
	bu.manifest_hash = (char *)"hfn";
	CHECK(store_build_upsert(st, &bu, "{}", &build, &e) == 0);
	session = test_session(st, host, "2026-03-01T00:00:00Z", 3);
	CHECK(store_session_add_arm(st, session, 0, build, "gen", NULL, &e) == 0);
	fnprof_init(&p);
	fnprof_add(&p, "gcr_alloc", "collectors/gen/gen.c", 600);
	fnprof_add(&p, "main", NULL, 300);
	p.total_ir = 1000;
	metric_set_add(&m, "valgrind.ir", 1000);
	memset(&r, 0, sizeof r);
	r.session_id = session;
	r.build_id = build;
	r.probe = "01_a";
	r.size = "ci";
	r.kind = RUN_KIND_VALGRIND;
	r.status = RUN_STATUS_OK;
	r.stderr_tail = "";
	r.started_at = "2026-03-01T00:00:01Z";
	r.metrics = &m;
	r.functions = &p;
	CHECK(store_run_insert(st, &r, &id, &e) == 0);
	/* More Ir in the functions than in the run: refused, and nothing of the run stored. */
	p.fns[1].ir = 500;
	p.total_ir = 1000;
	r.seq = 2;
	CHECK(store_run_insert(st, &r, &id, &e) != 0 && e.code == ERR_INVALID);
	CHECK(strstr(e.msg, "the functions' Ir (1100) is more than the run's (1000)") != NULL);
	fnprof_release(&p);
	metric_set_release(&m);
	CHECK(store_session_end(st, session, "complete", 0, &e) == 0);
	CHECK(store_runs_load(st, session, -1, &runs, &n, &e) == 0);
	CHECK(n == 1);
	if (n == 1) {
		CHECK(runs[0].functions.n == 2 && runs[0].functions.total_ir == 1000);
		CHECK_STR(runs[0].functions.fns[0].name, "gcr_alloc");
		CHECK_STR(runs[0].functions.fns[0].file, "collectors/gen/gen.c");
		CHECK(runs[0].functions.fns[1].file == NULL && runs[0].functions.fns[1].ir == 300);
		CHECK(fnprof_cut(&runs[0].functions));
	}
	store_runs_release(runs, n);
	CHECK(store_open(b, STORE_WRITE, &to, &e) == 0);
	CHECK(store_session_copy(st, session, to, &to_id, &copied, &e) == 0 && copied == 1);
	CHECK(store_runs_load(to, to_id, -1, &runs, &n, &e) == 0);
	CHECK(n == 1 && runs[0].functions.n == 2 && runs[0].functions.fns[0].ir == 600);
	store_runs_release(runs, n);
	store_close(to);
	store_close(st);
	CHECK(test_sql_int(b, "SELECT count(*) FROM run_functions") == 2);
	/* Damaged behind the store's back: a count as text, then a rank out of order. */
	CHECK(test_sql(a, "UPDATE run_functions SET ir = 'many' WHERE rank = 2") == 0);
	CHECK(store_open(a, STORE_READ, &st, &e) == 0);
	CHECK(store_runs_load(st, session, -1, &runs, &n, &e) != 0 && e.code == ERR_CORRUPT);
	CHECK(strstr(e.msg, "function 2 is damaged") != NULL);
	store_close(st);
	CHECK(test_sql(a, "UPDATE run_functions SET ir = 300, rank = 3 WHERE rank = 2") == 0);
	CHECK(store_open(a, STORE_READ, &st, &e) == 0);
	CHECK(store_runs_load(st, session, -1, &runs, &n, &e) != 0 && e.code == ERR_CORRUPT);
	store_close(st);
	free(a);
	free(b);
}

/*
 * A batch keeps its runs (copies: the caller's strings and metrics may go) until a flush
 * writes them all, in order, in one transaction; a bad value is refused when it comes, not at
 * the flush; a flush that fails drops the batch and says how many runs; a store closed with
 * runs kept writes none of them. Kept statements (store_sqlite.c) serve many runs.
 */
static void test_batch(void)
{
	char *path = test_path("batch.db");
	struct store *st = NULL;
	struct store_build b = {0};
	struct store_run *runs = NULL;
	struct run_record r;
	struct err e = ERR_INIT;
	int64_t host, build, session, id = -1;
	size_t n = 0;

	CHECK(store_open(path, STORE_WRITE, &st, &e) == 0);
	CHECK(store_host(st, "00000000000000aa", "testhost", "{}", &host, &e) == 0);
	b.name = (char *)"base";
	b.collector = (char *)"gen";
	b.manifest_hash = (char *)"hb";
	CHECK(store_build_upsert(st, &b, "{}", &build, &e) == 0);
	session = test_session(st, host, "2026-03-02T00:00:00Z", 1);
	CHECK(store_session_add_arm(st, session, 0, build, "base", NULL, &e) == 0);
	CHECK(store_batch_pending(st) == 0);
	store_batch_begin(st);
	/* 200 runs: the batch grows past its first 64 and moves its copies. */
	for (int i = 1; i <= 200; i++) {
		struct metric_set m = {0};
		char *probe = xasprintf("%02d_p", i % 3 + 1), *detail = xasprintf("run %d", i);
		memset(&r, 0, sizeof r);
		r.session_id = session;
		r.build_id = build;
		r.probe = probe;
		r.size = "ci";
		r.round = (i - 1) / 10 + 1;
		r.seq = i;
		r.kind = RUN_KIND_TIMED;
		r.status = RUN_STATUS_OK;
		r.detail = detail;
		r.stderr_tail = "";
		r.started_at = "2026-03-02T00:00:01Z";
		r.metrics = &m;
		metric_set_add(&m, "time.wall_ns", 1000 + i);
		metric_set_add(&m, "census.alloc_bytes", 10 * i);
		CHECK(store_run_insert(st, &r, &id, &e) == 0);
		CHECK(id == 0);
		/* Gone before the flush: the batch holds its own copies. */
		metric_set_release(&m);
		free(probe);
		free(detail);
		if (i == 25) {
			CHECK(store_batch_pending(st) == 25);
			CHECK(test_sql_int(path, "SELECT count(*) FROM runs") == 0);
			CHECK(store_batch_flush(st, &e) == 0);
			CHECK(store_batch_pending(st) == 0);
			CHECK(test_sql_int(path, "SELECT count(*) FROM runs") == 25);
		}
	}
	/* Refused when it comes, and not kept. */
	{
		struct metric_set m = {0};
		r.seq = 201;
		r.probe = "01_p";
		r.detail = NULL;
		r.metrics = &m;
		metric_set_add(&m, "census.alloc_bytes", -5);
		CHECK(store_run_insert(st, &r, &id, &e) != 0 && e.code == ERR_INVALID);
		metric_set_release(&m);
	}
	CHECK(store_batch_pending(st) == 175);
	CHECK(store_batch_end(st, &e) == 0);
	CHECK(store_batch_pending(st) == 0);
	/* Out of a batch, a run is written at once again. */
	r.seq = 202;
	r.metrics = NULL;
	CHECK(store_run_insert(st, &r, &id, &e) == 0 && id > 0);
	CHECK(store_runs_load(st, session, -1, &runs, &n, &e) == 0);
	CHECK(n == 201);
	for (size_t i = 0; i < n && i < 200; i++) {
		char want[32];
		const double *v = metric_set_get(&runs[i].metrics, "census.alloc_bytes");
		snprintf(want, sizeof want, "run %zu", i + 1);
		CHECK(runs[i].seq == (int)i + 1 && runs[i].round == (int)i / 10 + 1);
		CHECK(runs[i].detail && strcmp(runs[i].detail, want) == 0);
		CHECK(v && *v == 10.0 * (double)(i + 1) && runs[i].metrics.n == 2);
		CHECK(i == 0 || runs[i].id > runs[i - 1].id);
	}
	store_runs_release(runs, n);
	/* A flush that fails writes none of its runs and says how many were lost. */
	store_batch_begin(st);
	r.seq = 43;
	r.build_id = 999999; /* no such build: the foreign key fails at the flush */
	CHECK(store_run_insert(st, &r, &id, &e) == 0);
	r.seq = 44;
	r.build_id = build;
	CHECK(store_run_insert(st, &r, &id, &e) == 0);
	CHECK(store_batch_flush(st, &e) != 0);
	CHECK(strstr(e.msg, "(2 finished runs not stored)") != NULL);
	CHECK(store_batch_pending(st) == 0);
	CHECK(test_sql_int(path, "SELECT count(*) FROM runs") == 201);
	/* Closed with runs kept: nothing is written, nothing leaks (the sanitizer build says). */
	r.seq = 45;
	CHECK(store_run_insert(st, &r, &id, &e) == 0);
	store_close(st);
	CHECK(test_sql_int(path, "SELECT count(*) FROM runs") == 201);
	free(path);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_round_trip();
	test_migration();
	test_migration_v2();
	test_newer_refused();
	test_read_missing();
	test_latest_and_liveness();
	test_url_redact();
	test_command_redact();
	test_text_utf8();
	test_copy();
	test_sample_values();
	test_bisects();
	test_functions();
	test_batch();
	{
		char *cmd = xasprintf("rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "test_store: could not remove %s\n", dir);
		free(cmd);
	}
	return unit_done("test_store");
}
