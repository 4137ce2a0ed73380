/*
 * store_sqlite.c — the SQLite engine behind store.c: one file on this host.
 *
 * WAL with synchronous=NORMAL: a commit costs no fsync, and a crash of the harness still keeps
 * every committed transaction (only a power cut can lose the last few). A session writes its
 * short runs together (store_batch_begin), a commit a second rather than one a run.
 *
 * Prepared statements are kept for reuse (as PostgreSQL keeps its own on the server):
 * parsing the INSERT of a run and of its samples cost more than writing them.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_engine.h"

/* How long a writer waits for another writer's transaction (a round's runs) before giving up. */
#define SQLITE_BUSY_TIMEOUT_MS 10000

/* Statements kept for reuse per connection; the rest are prepared and finalized each time. */
#define SQLITE_STMT_CACHE 32

struct store_conn {
	sqlite3 *db;
	char *path;
	struct store_stmt *cache[SQLITE_STMT_CACHE];
	size_t ncache;
};

struct store_stmt {
	struct store_conn *c;
	sqlite3_stmt *st;
	int bind_rc; /* the first failed bind, reported by the next step */
	char *sql;   /* a kept statement's text; NULL: finalized when done */
	int in_use;  /* a kept statement handed out, not yet given back */
};

/*
 * Schema version 1 as it shipped; frozen (see store_engine.h). INTEGER PRIMARY KEY is the
 * rowid, samples are clustered by run (WITHOUT ROWID) because they are always read by run.
 */
static const char sqlite_base_schema[] =
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

static enum err_code sqlite_err_code(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_FORMAT:
		return ERR_CORRUPT;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return ERR_BUSY;
	case SQLITE_IOERR:
	case SQLITE_FULL:
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
		return ERR_IO;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
		return ERR_INVALID;
	default:
		return ERR_FAILED;
	}
}

/*
 * The path as one word of a POSIX shell, for a command the user can paste: as it is when it
 * needs no quoting, else in single quotes with each ' in it as '\'' (a quote left as it was
 * ended the quoting, and pasting ran the rest of the path); ./ before a relative path that
 * starts with -, which sqlite3 would take for an option. FILE when the word does not fit.
 */
static void sqlite_shell_word(const char *s, char *buf, size_t size)
{
	struct sbuf b;

	sbuf_init(&b);
	if (s[0] == '-')
		sbuf_addf(&b, "./");
	if (*s &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") ==
	        strlen(s)) {
		sbuf_addf(&b, "%s", s);
	} else {
		sbuf_addf(&b, "'");
		for (const char *p = s; *p; p++) {
			if (*p == '\'')
				sbuf_addf(&b, "'\\''");
			else
				sbuf_add(&b, p, 1);
		}
		sbuf_addf(&b, "'");
	}
	snprintf(buf, size, "%s", b.len < size ? b.data : "FILE");
	sbuf_release(&b);
}

/*
 * Turns SQLite's result code into an err. A damaged file says how to see the damage, since
 * nothing the harness read from it can be trusted and the user must decide what to keep.
 */
static int sqlite_fail(struct store_conn *c, int rc, const char *msg, struct err *e)
{
	enum err_code code = sqlite_err_code(rc);
	char word[ERR_MSG_MAX / 2];

	if (!msg)
		msg = c && c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc);
	if (code != ERR_CORRUPT)
		return err_setc(e, code, "%s", msg);
	sqlite_shell_word(c->path, word, sizeof word);
	return err_setc(
	    e, code,
	    "%s; the database is damaged: check it with sqlite3 %s 'PRAGMA integrity_check'", msg,
	    word);
}

/* Creates every missing folder on the way to path's parent. */
static int sqlite_make_parent(const char *path, struct err *e)
{
	char *dir = xstrdup(path);
	int rc = 0;

	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
			rc = err_setc(e, ERR_IO, "cannot create folder %s: %s", dir,
			              strerror(errno));
			break;
		}
		*p = '/';
	}
	free(dir);
	return rc;
}

/* "file:PATH?mode=ro..." with the characters a URI gives meaning to escaped. */
static char *sqlite_ro_uri(const char *path, int immutable)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_addf(&b, "file:");
	for (const char *p = path; *p; p++) {
		if (*p == '?' || *p == '#' || *p == '%' || *p == ' ')
			sbuf_addf(&b, "%%%02X", (unsigned char)*p);
		else
			sbuf_add(&b, p, 1);
	}
	sbuf_addf(&b, "?mode=ro%s", immutable ? "&immutable=1" : "");
	return b.data;
}

static int sqlite_exec(struct store_conn *c, const char *sql, struct err *e)
{
	char *msg = NULL;
	int rc = sqlite3_exec(c->db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		sqlite_fail(c, rc, msg, e);
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int sqlite_open_ro(struct store_conn *c, struct err *e)
{
	struct stat sb;
	char *uri = NULL, *wal = NULL;
	int rc = -1, r;

	if (stat(c->path, &sb) != 0) {
		if (errno == ENOENT)
			err_setc(e, ERR_NOT_FOUND, "no such database");
		else
			err_setc(e, ERR_IO, "%s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		err_setc(e, ERR_INVALID, "not a database file");
		goto out;
	}
	uri = sqlite_ro_uri(c->path, 0);
	r = sqlite3_open_v2(uri, &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	if (r == SQLITE_OK) {
		sqlite3_busy_timeout(c->db, SQLITE_BUSY_TIMEOUT_MS);
		r = sqlite3_exec(c->db, "SELECT 1 FROM sqlite_master LIMIT 1", NULL, NULL, NULL);
	}
	wal = xasprintf("%s-wal", c->path);
	/*
	 * A WAL database needs its -shm file, and a reader that may not create one (a read-only
	 * folder, another user's results) cannot open it. With no -wal file there is no pending
	 * write to read either, so the file alone is the whole database: read it as immutable.
	 */
	if (((r & 0xff) == SQLITE_READONLY || (r & 0xff) == SQLITE_CANTOPEN) &&
	    access(wal, F_OK) != 0) {
		sqlite3_close(c->db);
		c->db = NULL;
		free(uri);
		uri = sqlite_ro_uri(c->path, 1);
		r = sqlite3_open_v2(uri, &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
		if (r == SQLITE_OK) {
			sqlite3_busy_timeout(c->db, SQLITE_BUSY_TIMEOUT_MS);
			r = sqlite3_exec(c->db, "SELECT 1 FROM sqlite_master LIMIT 1", NULL, NULL,
			                 NULL);
		}
	}
	if (r != SQLITE_OK) {
		sqlite_fail(c, r, NULL, e);
		goto out;
	}
	rc = 0;
out:
	free(wal);
	free(uri);
	return rc;
}

static int sqlite_open_rw(struct store_conn *c, struct err *e)
{
	int r;

	if (sqlite_make_parent(c->path, e) != 0)
		return -1;
	r = sqlite3_open_v2(c->path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (r != SQLITE_OK)
		return sqlite_fail(c, r, NULL, e);
	/*
	 * Waits from the first statement on: two processes opening one file at once (two pushes
	 * from one runner's store) met "database is locked" on switching it to WAL or reading it.
	 */
	sqlite3_busy_timeout(c->db, SQLITE_BUSY_TIMEOUT_MS);
	return sqlite_exec(c,
	                   "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
	                   "PRAGMA foreign_keys=ON;",
	                   e);
}

static void sqlite_close(struct store_conn *c)
{
	if (!c)
		return;
	/* Every statement goes first: sqlite3_close refuses a connection that still has one. */
	for (size_t i = 0; i < c->ncache; i++) {
		sqlite3_finalize(c->cache[i]->st);
		free(c->cache[i]->sql);
		free(c->cache[i]);
	}
	c->ncache = 0;
	sqlite3_close(c->db);
	free(c->path);
	free(c);
}

static int sqlite_open(const char *target, enum store_mode mode, struct store_conn **out,
                       struct err *e)
{
	struct store_conn *c = xcalloc(1, sizeof *c);
	int rc;

	c->path = xstrdup(target);
	rc = mode == STORE_READ ? sqlite_open_ro(c, e) : sqlite_open_rw(c, e);
	if (rc != 0) {
		sqlite_close(c);
		c = NULL;
	}
	*out = c;
	return rc;
}

static int sqlite_create_base(struct store_conn *c, struct err *e)
{
	return sqlite_exec(c, sqlite_base_schema, e);
}

static int sqlite_begin(struct store_conn *c, struct err *e)
{
	/* IMMEDIATE: take the write lock now, not at the first write, so two writers queue. */
	return sqlite_exec(c, "BEGIN IMMEDIATE", e);
}

static int sqlite_commit(struct store_conn *c, struct err *e)
{
	return sqlite_exec(c, "COMMIT", e);
}

static void sqlite_rollback(struct store_conn *c)
{
	if (!sqlite3_get_autocommit(c->db))
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
}

static int sqlite_prepare(struct store_conn *c, const char *sql, struct store_stmt **out,
                          struct err *e)
{
	sqlite3_stmt *st = NULL;
	int r, keep = c->ncache < SQLITE_STMT_CACHE;

	*out = NULL;
	/* A kept one not in use: it was reset and its bindings cleared when given back. */
	for (size_t i = 0; i < c->ncache; i++) {
		if (!c->cache[i]->in_use && strcmp(c->cache[i]->sql, sql) == 0) {
			c->cache[i]->in_use = 1;
			*out = c->cache[i];
			return 0;
		}
	}
	r = sqlite3_prepare_v3(c->db, sql, -1, keep ? SQLITE_PREPARE_PERSISTENT : 0, &st, NULL);
	if (r != SQLITE_OK) {
		sqlite3_finalize(st);
		return sqlite_fail(c, r, NULL, e);
	}
	*out = xcalloc(1, sizeof **out);
	(*out)->c = c;
	(*out)->st = st;
	if (keep) {
		(*out)->sql = xstrdup(sql);
		(*out)->in_use = 1;
		c->cache[c->ncache++] = *out;
	}
	return 0;
}

static void sqlite_bound(struct store_stmt *st, int r)
{
	if (r != SQLITE_OK && st->bind_rc == SQLITE_OK)
		st->bind_rc = r;
}

static void sqlite_bind_int64(struct store_stmt *st, int i, int64_t v)
{
	sqlite_bound(st, sqlite3_bind_int64(st->st, i, v));
}

static void sqlite_bind_double(struct store_stmt *st, int i, double v)
{
	sqlite_bound(st, sqlite3_bind_double(st->st, i, v));
}

static void sqlite_bind_text(struct store_stmt *st, int i, const char *v)
{
	sqlite_bound(st, v ? sqlite3_bind_text(st->st, i, v, -1, SQLITE_TRANSIENT)
	                   : sqlite3_bind_null(st->st, i));
}

static int sqlite_step(struct store_stmt *st, struct err *e)
{
	int r;

	if (st->bind_rc != SQLITE_OK)
		return sqlite_fail(st->c, st->bind_rc, sqlite3_errstr(st->bind_rc), e);
	r = sqlite3_step(st->st);
	if (r == SQLITE_ROW)
		return 1;
	if (r == SQLITE_DONE)
		return 0;
	return sqlite_fail(st->c, r, NULL, e);
}

static int sqlite_reset(struct store_stmt *st, struct err *e)
{
	int r = sqlite3_reset(st->st);

	st->bind_rc = SQLITE_OK;
	if (r != SQLITE_OK)
		return sqlite_fail(st->c, r, NULL, e);
	/* No value of the last use may leak into the next: a missed bind reads as NULL. */
	sqlite_bound(st, sqlite3_clear_bindings(st->st));
	return 0;
}

static int sqlite_column_null(struct store_stmt *st, int i)
{
	return sqlite3_column_type(st->st, i) == SQLITE_NULL;
}

static int64_t sqlite_column_int64(struct store_stmt *st, int i)
{
	return sqlite3_column_int64(st->st, i);
}

static double sqlite_column_double(struct store_stmt *st, int i)
{
	return sqlite3_column_double(st->st, i);
}

static int sqlite_column_number(struct store_stmt *st, int i, double *out, const char **what)
{
	/* The type as stored, asked before any conversion (a REAL column keeps text as text). */
	switch (sqlite3_column_type(st->st, i)) {
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		*out = sqlite3_column_double(st->st, i);
		return 0;
	case SQLITE_TEXT:
		*what = "text";
		return -1;
	case SQLITE_BLOB:
		*what = "a blob";
		return -1;
	default:
		*what = "NULL";
		return -1;
	}
}

static const char *sqlite_column_text(struct store_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st->st, i);
}

static void sqlite_finalize(struct store_stmt *st)
{
	if (!st)
		return;
	if (st->sql) {
		/* Kept: finished (a pending row would hold the transaction) and given back. */
		sqlite3_reset(st->st);
		sqlite3_clear_bindings(st->st);
		st->bind_rc = SQLITE_OK;
		st->in_use = 0;
		return;
	}
	sqlite3_finalize(st->st);
	free(st);
}

const struct store_engine store_engine_sqlite = {
    .name = "sqlite",
    .open = sqlite_open,
    .close = sqlite_close,
    .create_base = sqlite_create_base,
    .begin = sqlite_begin,
    .commit = sqlite_commit,
    .rollback = sqlite_rollback,
    .exec = sqlite_exec,
    .prepare = sqlite_prepare,
    .bind_int64 = sqlite_bind_int64,
    .bind_double = sqlite_bind_double,
    .bind_text = sqlite_bind_text,
    .step = sqlite_step,
    .reset = sqlite_reset,
    .column_null = sqlite_column_null,
    .column_int64 = sqlite_column_int64,
    .column_double = sqlite_column_double,
    .column_number = sqlite_column_number,
    .column_text = sqlite_column_text,
    .finalize = sqlite_finalize,
};
