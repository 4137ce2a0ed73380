#include "store.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct store {
	sqlite3 *db;
	char *path;
};

static const char store_schema[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS hosts("
    " id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, hostname TEXT,"
    " facts TEXT);"
    "CREATE TABLE IF NOT EXISTS builds("
    " id INTEGER PRIMARY KEY, name TEXT NOT NULL, collector TEXT NOT NULL,"
    " collector_version TEXT, git_commit TEXT, dir TEXT, manifest TEXT NOT NULL,"
    " manifest_hash TEXT NOT NULL UNIQUE);"
    "CREATE TABLE IF NOT EXISTS sessions("
    " id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES hosts(id),"
    " command TEXT, started_at TEXT NOT NULL, finished_at TEXT, status TEXT NOT NULL,"
    " seed INTEGER NOT NULL, size TEXT NOT NULL, rounds INTEGER NOT NULL,"
    " warmup INTEGER NOT NULL, probes TEXT NOT NULL, meters TEXT NOT NULL,"
    " load_before REAL, load_after REAL, harness_version TEXT, facts TEXT);"
    "CREATE TABLE IF NOT EXISTS session_builds("
    " session_id INTEGER NOT NULL REFERENCES sessions(id),"
    " build_id INTEGER NOT NULL REFERENCES builds(id), position INTEGER NOT NULL,"
    " PRIMARY KEY(session_id, build_id));"
    "CREATE TABLE IF NOT EXISTS runs("
    " id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES sessions(id),"
    " build_id INTEGER NOT NULL REFERENCES builds(id), probe TEXT NOT NULL,"
    " size TEXT NOT NULL, round INTEGER NOT NULL, seq INTEGER NOT NULL,"
    " warmup INTEGER NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, detail TEXT,"
    " checksum TEXT, premise TEXT, stderr_tail TEXT, started_at TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS runs_by_session ON runs(session_id, build_id);"
    "CREATE TABLE IF NOT EXISTS samples("
    " run_id INTEGER NOT NULL REFERENCES runs(id), metric TEXT NOT NULL,"
    " value REAL NOT NULL, PRIMARY KEY(run_id, metric)) WITHOUT ROWID;";

static int store_fail(struct store *s, struct err *e, const char *what)
{
	return err_set(e, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

static int store_exec(struct store *s, const char *sql, struct err *e)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(e, "%s: %s", s->path, msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int store_prepare(struct store *s, const char *sql, sqlite3_stmt **st, struct err *e)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return store_fail(s, e, "prepare");
	return 0;
}

static void store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static char *store_col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? xstrdup((const char *)t) : NULL;
}

/* Creates every missing folder on the way to path's parent. */
static int store_make_parent(const char *path, struct err *e)
{
	char *dir = xstrdup(path);
	int rc = 0;

	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
			rc = err_set(e, "%s: cannot create folder: %s", dir, strerror(errno));
			break;
		}
		*p = '/';
	}
	free(dir);
	return rc;
}

int store_open(const char *path, struct store **out, struct err *e)
{
	struct store *s = xcalloc(1, sizeof *s);
	sqlite3_stmt *st = NULL;
	int rc = -1, version = 0;

	s->path = xstrdup(path);
	if (store_make_parent(path, e) != 0)
		goto out;
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		store_fail(s, e, "cannot open database");
		goto out;
	}
	sqlite3_busy_timeout(s->db, 10000);
	/*
	 * WAL with synchronous=NORMAL: a commit per run costs no fsync, and a crash of the
	 * harness still keeps every committed run.
	 */
	if (store_exec(s,
	               "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
	               "PRAGMA foreign_keys=ON;",
	               e) != 0)
		goto out;
	if (store_exec(s, "BEGIN IMMEDIATE;", e) != 0)
		goto out;
	if (store_exec(s, store_schema, e) != 0 ||
	    store_prepare(s, "SELECT value FROM meta WHERE key='schema_version'", &st, e) != 0) {
		store_exec(s, "ROLLBACK;", NULL);
		goto out;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (version > STORE_SCHEMA_VERSION) {
		store_exec(s, "ROLLBACK;", NULL);
		err_set(e,
		        "%s: database schema version %d is newer than this harness (%d); use a "
		        "newer gcratchet or another --db",
		        path, version, STORE_SCHEMA_VERSION);
		goto out;
	}
	if (version == 0 &&
	    store_exec(s, "INSERT INTO meta(key, value) VALUES('schema_version', '1');", e) != 0) {
		store_exec(s, "ROLLBACK;", NULL);
		goto out;
	}
	if (store_exec(s, "COMMIT;", e) != 0)
		goto out;
	rc = 0;
out:
	if (rc != 0) {
		store_close(s);
		s = NULL;
	}
	*out = s;
	return rc;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

/* Runs a statement that returns one id (or none); *id = 0 when no row. */
static int store_step_id(struct store *s, sqlite3_stmt *st, int64_t *id, struct err *e)
{
	int r = sqlite3_step(st);

	*id = 0;
	if (r == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else if (r != SQLITE_DONE)
		return store_fail(s, e, "query");
	/* Finish the statement now: a RETURNING row still pending would hold the transaction. */
	sqlite3_reset(st);
	return 0;
}

int store_host(struct store *s, const char *fingerprint, const char *hostname,
               const char *facts_json, int64_t *id, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (store_prepare(s,
	                  "INSERT INTO hosts(fingerprint, hostname, facts) VALUES(?1, ?2, ?3) "
	                  "ON CONFLICT(fingerprint) DO UPDATE SET hostname=?2, facts=?3 "
	                  "RETURNING id",
	                  &st, e) != 0)
		goto out;
	store_bind_text(st, 1, fingerprint);
	store_bind_text(st, 2, hostname);
	store_bind_text(st, 3, facts_json);
	rc = store_step_id(s, st, id, e);
out:
	sqlite3_finalize(st);
	return rc;
}

int store_build_upsert(struct store *s, const struct store_build *b, const char *manifest_text,
                       int64_t *id, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (store_prepare(s,
	                  "INSERT INTO builds(name, collector, collector_version, git_commit, dir,"
	                  " manifest, manifest_hash) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7) "
	                  "ON CONFLICT(manifest_hash) DO UPDATE SET dir=?5 RETURNING id",
	                  &st, e) != 0)
		goto out;
	store_bind_text(st, 1, b->name);
	store_bind_text(st, 2, b->collector);
	store_bind_text(st, 3, b->collector_version);
	store_bind_text(st, 4, b->git_commit);
	store_bind_text(st, 5, b->dir);
	store_bind_text(st, 6, manifest_text);
	store_bind_text(st, 7, b->manifest_hash);
	rc = store_step_id(s, st, id, e);
out:
	sqlite3_finalize(st);
	return rc;
}

int store_session_begin(struct store *s, const struct store_session *si, int64_t *id, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (store_prepare(s,
	                  "INSERT INTO sessions(host_id, command, started_at, status, seed, size,"
	                  " rounds, warmup, probes, meters, load_before, harness_version, facts)"
	                  " VALUES(?1, ?2, ?3, 'running', ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
	                  " RETURNING id",
	                  &st, e) != 0)
		goto out;
	sqlite3_bind_int64(st, 1, si->host_id);
	store_bind_text(st, 2, si->command);
	store_bind_text(st, 3, si->started_at);
	sqlite3_bind_int64(st, 4, si->seed);
	store_bind_text(st, 5, si->size);
	sqlite3_bind_int64(st, 6, si->rounds);
	sqlite3_bind_int64(st, 7, si->warmup);
	store_bind_text(st, 8, si->probes);
	store_bind_text(st, 9, si->meters);
	sqlite3_bind_double(st, 10, si->load_before);
	store_bind_text(st, 11, si->harness_version);
	store_bind_text(st, 12, si->facts);
	rc = store_step_id(s, st, id, e);
out:
	sqlite3_finalize(st);
	return rc;
}

int store_session_add_build(struct store *s, int64_t session_id, int64_t build_id, int position,
                            struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (store_prepare(s,
	                  "INSERT OR IGNORE INTO session_builds(session_id, build_id, position)"
	                  " VALUES(?1, ?2, ?3)",
	                  &st, e) != 0)
		goto out;
	sqlite3_bind_int64(st, 1, session_id);
	sqlite3_bind_int64(st, 2, build_id);
	sqlite3_bind_int(st, 3, position);
	if (sqlite3_step(st) != SQLITE_DONE) {
		store_fail(s, e, "recording the session's builds");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

int store_session_end(struct store *s, int64_t session_id, const char *status, double load_after,
                      struct err *e)
{
	sqlite3_stmt *st = NULL;
	char when[32];
	int rc = -1;

	format_utc(now_real_ns(), when, sizeof when);
	if (store_prepare(
	        s, "UPDATE sessions SET status=?2, finished_at=?3, load_after=?4 WHERE id=?1", &st,
	        e) != 0)
		goto out;
	sqlite3_bind_int64(st, 1, session_id);
	store_bind_text(st, 2, status);
	store_bind_text(st, 3, when);
	sqlite3_bind_double(st, 4, load_after);
	if (sqlite3_step(st) != SQLITE_DONE) {
		store_fail(s, e, "closing the session");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

#define STORE_SESSION_COLUMNS                                                               \
	"s.id, s.host_id, h.fingerprint, s.command, s.started_at, s.finished_at, s.status," \
	" s.seed, s.size, s.rounds, s.warmup, s.probes, s.meters, s.load_before,"           \
	" s.load_after, s.harness_version, h.hostname, s.facts"                             \
	" FROM sessions s JOIN hosts h ON h.id = s.host_id"

static void store_session_row(sqlite3_stmt *st, struct store_session *o)
{
	o->id = sqlite3_column_int64(st, 0);
	o->host_id = sqlite3_column_int64(st, 1);
	o->host_fingerprint = store_col_text(st, 2);
	o->command = store_col_text(st, 3);
	o->started_at = store_col_text(st, 4);
	o->finished_at = store_col_text(st, 5);
	o->status = store_col_text(st, 6);
	o->seed = sqlite3_column_int64(st, 7);
	o->size = store_col_text(st, 8);
	o->rounds = sqlite3_column_int64(st, 9);
	o->warmup = sqlite3_column_int64(st, 10);
	o->probes = store_col_text(st, 11);
	o->meters = store_col_text(st, 12);
	o->load_before = sqlite3_column_double(st, 13);
	o->load_after = sqlite3_column_double(st, 14);
	o->harness_version = store_col_text(st, 15);
	o->hostname = store_col_text(st, 16);
	o->facts = store_col_text(st, 17);
}

int store_session_get(struct store *s, int64_t session_id, struct store_session *out, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = -1, r;

	memset(out, 0, sizeof *out);
	if (store_prepare(s, "SELECT " STORE_SESSION_COLUMNS " WHERE s.id = ?1", &st, e) != 0)
		goto out;
	sqlite3_bind_int64(st, 1, session_id);
	r = sqlite3_step(st);
	if (r == SQLITE_DONE) {
		err_set(e, "%s: no session %lld (see `gcratchet list sessions`)", s->path,
		        (long long)session_id);
		goto out;
	}
	if (r != SQLITE_ROW) {
		store_fail(s, e, "reading a session");
		goto out;
	}
	store_session_row(st, out);
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

void store_session_release(struct store_session *si)
{
	free(si->host_fingerprint);
	free(si->hostname);
	free(si->facts);
	free(si->command);
	free(si->started_at);
	free(si->finished_at);
	free(si->status);
	free(si->size);
	free(si->probes);
	free(si->meters);
	free(si->harness_version);
	memset(si, 0, sizeof *si);
}

int store_latest_session(struct store *s, const char *collector, int64_t *id, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (store_prepare(
	        s,
	        "SELECT MAX(sb.session_id) FROM session_builds sb"
	        " JOIN builds b ON b.id = sb.build_id WHERE ?1 IS NULL OR b.collector = ?1",
	        &st, e) != 0)
		goto out;
	store_bind_text(st, 1, collector);
	rc = store_step_id(s, st, id, e);
out:
	sqlite3_finalize(st);
	return rc;
}

int store_list_sessions(struct store *s, struct store_session **out, size_t *n, struct err *e)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = -1, r;

	*out = NULL;
	*n = 0;
	if (store_prepare(s, "SELECT " STORE_SESSION_COLUMNS " ORDER BY s.id", &st, e) != 0)
		goto out;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		store_session_row(st, &(*out)[(*n)++]);
	}
	if (r != SQLITE_DONE) {
		store_fail(s, e, "listing sessions");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

int store_session_builds(struct store *s, int64_t session_id, struct store_build **out, size_t *n,
                         struct err *e)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = -1, r;

	*out = NULL;
	*n = 0;
	if (store_prepare(
	        s,
	        "SELECT b.id, b.name, b.collector, b.collector_version, b.git_commit, b.dir,"
	        " b.manifest_hash FROM session_builds sb JOIN builds b ON b.id = sb.build_id"
	        " WHERE sb.session_id = ?1 ORDER BY sb.position",
	        &st, e) != 0)
		goto out;
	sqlite3_bind_int64(st, 1, session_id);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_build *b;
		if (*n == cap) {
			cap = cap ? cap * 2 : 4;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		b = &(*out)[(*n)++];
		b->id = sqlite3_column_int64(st, 0);
		b->name = store_col_text(st, 1);
		b->collector = store_col_text(st, 2);
		b->collector_version = store_col_text(st, 3);
		b->git_commit = store_col_text(st, 4);
		b->dir = store_col_text(st, 5);
		b->manifest_hash = store_col_text(st, 6);
	}
	if (r != SQLITE_DONE) {
		store_fail(s, e, "reading a session's builds");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

void store_builds_release(struct store_build *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(b[i].name);
		free(b[i].collector);
		free(b[i].collector_version);
		free(b[i].git_commit);
		free(b[i].dir);
		free(b[i].manifest_hash);
	}
	free(b);
}

int store_run_insert(struct store *s, const struct run_record *r, int64_t *id, struct err *e)
{
	sqlite3_stmt *st = NULL, *sample = NULL;
	char *premise = run_premise_join(r->premise, r->premise_text);
	int rc = -1;

	if (store_exec(s, "BEGIN IMMEDIATE;", e) != 0) {
		free(premise);
		return -1;
	}
	if (store_prepare(s,
	                  "INSERT INTO runs(session_id, build_id, probe, size, round, seq, warmup,"
	                  " kind, status, detail, checksum, premise, stderr_tail, started_at)"
	                  " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
	                  " RETURNING id",
	                  &st, e) != 0)
		goto out;
	sqlite3_bind_int64(st, 1, r->session_id);
	sqlite3_bind_int64(st, 2, r->build_id);
	store_bind_text(st, 3, r->probe);
	store_bind_text(st, 4, r->size);
	sqlite3_bind_int(st, 5, r->round);
	sqlite3_bind_int(st, 6, r->seq);
	sqlite3_bind_int(st, 7, r->warmup);
	store_bind_text(st, 8, run_kind_name(r->kind));
	store_bind_text(st, 9, run_status_name(r->status));
	store_bind_text(st, 10, r->detail);
	store_bind_text(st, 11, r->checksum);
	store_bind_text(st, 12, premise);
	store_bind_text(st, 13, r->stderr_tail);
	store_bind_text(st, 14, r->started_at);
	if (store_step_id(s, st, id, e) != 0)
		goto out;
	if (store_prepare(s, "INSERT INTO samples(run_id, metric, value) VALUES(?1, ?2, ?3)",
	                  &sample, e) != 0)
		goto out;
	for (size_t i = 0; r->metrics && i < r->metrics->n; i++) {
		sqlite3_reset(sample);
		sqlite3_bind_int64(sample, 1, *id);
		store_bind_text(sample, 2, r->metrics->items[i].name);
		sqlite3_bind_double(sample, 3, r->metrics->items[i].value);
		if (sqlite3_step(sample) != SQLITE_DONE) {
			store_fail(s, e, "storing a sample");
			goto out;
		}
	}
	rc = store_exec(s, "COMMIT;", e);
out:
	sqlite3_finalize(sample);
	sqlite3_finalize(st);
	if (rc != 0)
		store_exec(s, "ROLLBACK;", NULL);
	free(premise);
	return rc;
}

int store_runs_load(struct store *s, int64_t session_id, int64_t build_id, struct store_run **out,
                    size_t *n, struct err *e)
{
	sqlite3_stmt *st = NULL, *sample = NULL;
	size_t cap = 0;
	int rc = -1, r;

	*out = NULL;
	*n = 0;
	if (store_prepare(s,
	                  "SELECT id, session_id, build_id, probe, size, round, seq, warmup, kind,"
	                  " status, detail, checksum, premise, stderr_tail, started_at FROM runs"
	                  " WHERE session_id = ?1 AND (?2 <= 0 OR build_id = ?2) ORDER BY id",
	                  &st, e) != 0 ||
	    store_prepare(s, "SELECT metric, value FROM samples WHERE run_id = ?1", &sample, e) !=
	        0)
		goto out;
	sqlite3_bind_int64(st, 1, session_id);
	sqlite3_bind_int64(st, 2, build_id);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_run *o;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		o = &(*out)[(*n)++];
		memset(o, 0, sizeof *o);
		o->id = sqlite3_column_int64(st, 0);
		o->session_id = sqlite3_column_int64(st, 1);
		o->build_id = sqlite3_column_int64(st, 2);
		o->probe = store_col_text(st, 3);
		o->size = store_col_text(st, 4);
		o->round = sqlite3_column_int(st, 5);
		o->seq = sqlite3_column_int(st, 6);
		o->warmup = sqlite3_column_int(st, 7);
		if (run_kind_parse((const char *)sqlite3_column_text(st, 8), &o->kind) != 0 ||
		    run_status_parse((const char *)sqlite3_column_text(st, 9), &o->status) != 0) {
			err_set(e,
			        "%s: run %lld has kind \"%s\" and status \"%s\", which this "
			        "gcratchet does not know (written by a newer one?)",
			        s->path, (long long)o->id, sqlite3_column_text(st, 8),
			        sqlite3_column_text(st, 9));
			goto out;
		}
		o->detail = store_col_text(st, 10);
		o->checksum = store_col_text(st, 11);
		{
			const char *text, *stored = (const char *)sqlite3_column_text(st, 12);
			o->premise = run_premise_split(stored, &text);
			o->premise_text = stored && *text ? xstrdup(text) : NULL;
		}
		o->stderr_tail = store_col_text(st, 13);
		o->started_at = store_col_text(st, 14);
		sqlite3_reset(sample);
		sqlite3_bind_int64(sample, 1, o->id);
		while (sqlite3_step(sample) == SQLITE_ROW)
			metric_set_add(&o->metrics, (const char *)sqlite3_column_text(sample, 0),
			               sqlite3_column_double(sample, 1));
	}
	if (r != SQLITE_DONE) {
		store_fail(s, e, "reading runs");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(sample);
	sqlite3_finalize(st);
	if (rc != 0) {
		store_runs_release(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

void store_runs_release(struct store_run *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].probe);
		free(r[i].size);
		free(r[i].detail);
		free(r[i].checksum);
		free(r[i].premise_text);
		free(r[i].stderr_tail);
		free(r[i].started_at);
		metric_set_release(&r[i].metrics);
	}
	free(r);
}

/* One text column of one row by id; *out NULL when the column is NULL, -1 when no row. */
static int store_text_by_id(struct store *s, const char *sql, int64_t id, const char *what,
                            char **out, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = -1, r;

	*out = NULL;
	if (store_prepare(s, sql, &st, e) != 0)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	r = sqlite3_step(st);
	if (r == SQLITE_DONE) {
		err_set(e, "%s: no %s %lld", s->path, what, (long long)id);
		goto out;
	}
	if (r != SQLITE_ROW) {
		store_fail(s, e, what);
		goto out;
	}
	*out = store_col_text(st, 0);
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

int store_host_facts(struct store *s, int64_t host_id, char **facts, struct err *e)
{
	return store_text_by_id(s, "SELECT facts FROM hosts WHERE id = ?1", host_id, "host", facts,
	                        e);
}

int store_build_manifest(struct store *s, int64_t build_id, char **manifest, struct err *e)
{
	return store_text_by_id(s, "SELECT manifest FROM builds WHERE id = ?1", build_id, "build",
	                        manifest, e);
}
