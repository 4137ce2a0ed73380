#include "store.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "sha256.h"
#include "store_engine.h"

/* A run a batch keeps until it is written: the record, pointing into copies it owns. */
struct store_kept {
	struct run_record r;
	char *strings[7]; /* probe, size, detail, checksum, premise_text, stderr_tail, started_at */
	struct metric_set metrics;
	struct fnprof functions;
};

struct store {
	const struct store_engine *eng;
	struct store_conn *conn;
	char *where; /* the database as messages name it: a path, a URL without its password */
	enum store_mode mode;
	char boot_id[64];   /* this kernel's boot id, "" when unknown */
	char hostname[256]; /* this host's name, "" when unknown */
	int batching;       /* store_batch_begin: runs are kept in `kept` until a flush */
	struct store_kept *kept;
	size_t nkept, capkept;
};

static void store_kept_release(struct store *s)
{
	for (size_t i = 0; i < s->nkept; i++) {
		for (size_t k = 0; k < sizeof s->kept[i].strings / sizeof *s->kept[i].strings; k++)
			free(s->kept[i].strings[k]);
		metric_set_release(&s->kept[i].metrics);
		fnprof_release(&s->kept[i].functions);
	}
	s->nkept = 0;
}

/*
 * The migration ladder: step i takes a database from schema version i + 1 to i + 2. Each runs
 * in the one transaction that opens the database, after the engine's base schema (version 1),
 * so a new database is built by the same statements that migrate an old one. Statements are
 * in the SQL both engines accept; a step that needs an engine's own DDL gets a hook in
 * struct store_engine then.
 */
static const char *const store_step_v2[] = {
    /* Who ran a session, to tell a killed one from one still running. */
    "ALTER TABLE sessions ADD COLUMN pid INTEGER",
    "ALTER TABLE sessions ADD COLUMN boot_id TEXT",
    /*
     * The natural key, which a push to a shared database matches on. started_at has
     * one-second resolution and two sessions with one --seed may start within a second; they
     * are two processes. Sessions of schema 1 have no pid and so never collide.
     */
    "CREATE UNIQUE INDEX sessions_key ON sessions(host_id, started_at, seed, pid)",
    "CREATE INDEX sessions_by_start ON sessions(started_at, id)",
    /* An arm is a build, knob overrides and a label; the overrides come later. */
    "ALTER TABLE session_builds ADD COLUMN label TEXT",
    "ALTER TABLE session_builds ADD COLUMN knobs TEXT",
    "ALTER TABLE runs ADD COLUMN arm INTEGER",
    "UPDATE runs SET arm = (SELECT sb.position FROM session_builds sb"
    " WHERE sb.session_id = runs.session_id AND sb.build_id = runs.build_id)",
    NULL,
};

static const char *const store_step_v3[] = {
    /*
     * An arm is keyed by its place in the session, not by its build: one build can be two
     * arms (an A/A, or a build with and without a knob). A table cannot change its key in
     * place, so it is copied; every arm gets a label, its build's name when it had none.
     */
    "CREATE TABLE session_arms(session_id INTEGER NOT NULL REFERENCES sessions(id),"
    " position INTEGER NOT NULL, build_id INTEGER NOT NULL REFERENCES builds(id),"
    " label TEXT NOT NULL, knobs TEXT, PRIMARY KEY(session_id, position))",
    "INSERT INTO session_arms(session_id, position, build_id, label, knobs)"
    " SELECT sb.session_id, sb.position, sb.build_id, COALESCE(sb.label, b.name), sb.knobs"
    " FROM session_builds sb JOIN builds b ON b.id = sb.build_id",
    "DROP TABLE session_builds",
    "ALTER TABLE session_arms RENAME TO session_builds",
    "CREATE INDEX session_builds_by_build ON session_builds(build_id)",
    NULL,
};

static const char *const store_step_v4[] = {
    /*
     * Minimum heaps (gcratchet minheap): a search's answer per host, build, probe and size.
     * Kept apart from runs: the runs of a search are at heap limits no session chose, and a
     * check must never judge them.
     */
    "CREATE TABLE minheap(host_id INTEGER NOT NULL REFERENCES hosts(id),"
    " build_id INTEGER NOT NULL REFERENCES builds(id), probe TEXT NOT NULL,"
    " size TEXT NOT NULL, started_at TEXT NOT NULL, command TEXT,"
    " outcome TEXT NOT NULL CHECK(outcome IN ('found', 'never_fits', 'failed')),"
    " min_heap_mb INTEGER NOT NULL, lo_mb INTEGER NOT NULL, step_mb INTEGER NOT NULL,"
    " repeats INTEGER NOT NULL, runs INTEGER NOT NULL, unlimited_peak_bytes INTEGER,"
    " checksum TEXT, detail TEXT)",
    "CREATE INDEX minheap_by_cell ON minheap(build_id, probe, size, started_at)",
    NULL,
};

static const char *const store_step_v5[] = {
    /*
     * Sweeps (gcratchet sweep): the heap each probe of each arm ran at. An arm of a sweep is
     * a build at a factor; its heap limit differs per probe (a multiple of that probe's
     * reference minimum), so it is kept per arm and probe, beside the runs it explains.
     */
    "CREATE TABLE sweep_cells(session_id INTEGER NOT NULL REFERENCES sessions(id),"
    " arm INTEGER NOT NULL, probe TEXT NOT NULL, factor DOUBLE PRECISION NOT NULL,"
    " heap_mb INTEGER NOT NULL, reference_build TEXT NOT NULL,"
    " reference_mb INTEGER NOT NULL, PRIMARY KEY(session_id, arm, probe))",
    NULL,
};

static const char *const store_step_v6[] = {
    /*
     * A session's identity across databases, for push and pull: ids are local to a
     * database, and the natural key alone cannot tell two sessions of schema 1 (no pid)
     * apart. Rows migrated here get a uuid derived from their natural key and id
     * (store_fill_uuids), so a file copied and migrated twice names its sessions alike.
     */
    "ALTER TABLE sessions ADD COLUMN uuid TEXT",
    "CREATE UNIQUE INDEX sessions_uuid ON sessions(uuid)",
    NULL,
};

static const char *const store_step_v7[] = {
    /*
     * What a build says it does (its census "capabilities", or its manifest's for a build
     * that sends no census), as a JSON array of strings: the facts baseline pin and check
     * derive a rule from (precise, clock_paced), recorded with the build when a session first
     * hears them. NULL: never heard, unknown.
     */
    "ALTER TABLE builds ADD COLUMN capabilities TEXT",
    NULL,
};

static const char *const store_step_v8[] = {
    /*
     * Bisects (gcratchet bisect): what was searched, and each commit measured on the way,
     * with its build, its sessions, its figures and what they decided, so that an interrupted
     * search resumes where it stopped. Ids are given by the store (the largest plus one, in
     * the inserting transaction): no engine's own auto-increment is needed. The sessions a step
     * measured are ordinary sessions; a step names them.
     */
    "CREATE TABLE bisects(id INTEGER NOT NULL PRIMARY KEY, started_at TEXT NOT NULL,"
    " finished_at TEXT, status TEXT NOT NULL"
    " CHECK(status IN ('running', 'interrupted', 'found', 'ambiguous', 'failed')),"
    " pid INTEGER, command TEXT,"
    " source TEXT NOT NULL CHECK(source IN ('collector', 'collector-dir', 'build-cmd')),"
    " repo TEXT NOT NULL, target TEXT NOT NULL, build_options TEXT,"
    " good TEXT NOT NULL, bad TEXT NOT NULL, commits TEXT NOT NULL, probes TEXT NOT NULL,"
    " metric TEXT NOT NULL, size TEXT NOT NULL, improved INTEGER NOT NULL,"
    " threshold_pct DOUBLE PRECISION NOT NULL, threshold_abs DOUBLE PRECISION NOT NULL,"
    " rounds INTEGER NOT NULL, max_rounds INTEGER NOT NULL, warmup INTEGER NOT NULL,"
    " mode TEXT, first_bad TEXT, detail TEXT)",
    "CREATE TABLE bisect_steps(bisect_id INTEGER NOT NULL REFERENCES bisects(id),"
    " seq INTEGER NOT NULL, role TEXT NOT NULL CHECK(role IN ('good', 'bad', 'step')),"
    " commit_hash TEXT NOT NULL, subject TEXT,"
    " decision TEXT NOT NULL CHECK(decision IN ('good', 'bad', 'skip')), reason TEXT,"
    " build_id INTEGER REFERENCES builds(id), build_dir TEXT, sessions TEXT, figures TEXT,"
    " build_s DOUBLE PRECISION NOT NULL, measure_s DOUBLE PRECISION NOT NULL,"
    " started_at TEXT NOT NULL, PRIMARY KEY(bisect_id, seq))",
    NULL,
};

static const char *const store_step_v9[] = {
    /*
     * Where a valgrind run's instructions went: its Ir by function, as fnprof.h keeps it
     * (at least 0.1% of the run, and its 50 largest), rank 1 the largest. The functions not
     * kept are the run's valgrind.ir less the sum of these. Kept beside the run they belong
     * to: a diff of two sessions, of an arm against a baseline, reads them back by run.
     */
    "CREATE TABLE run_functions(run_id INTEGER NOT NULL REFERENCES runs(id),"
    " rank INTEGER NOT NULL, name TEXT NOT NULL, file TEXT,"
    " ir DOUBLE PRECISION NOT NULL, PRIMARY KEY(run_id, rank))",
    NULL,
};

static const char *const *const store_ladder[STORE_SCHEMA_VERSION - 1] = {
    store_step_v2, store_step_v3, store_step_v4, store_step_v5,
    store_step_v6, store_step_v7, store_step_v8, store_step_v9,
};

/* Puts where and what in front of the engine's message, keeping its code. */
static int store_fail(struct store *s, struct err *e, const char *what)
{
	char msg[ERR_MSG_MAX];

	if (!e)
		return -1;
	snprintf(msg, sizeof msg, "%s", e->msg);
	return err_setc(e, e->code, "%s: %s: %s", s->where, what, msg);
}

/*
 * A statement being bound and stepped. Placeholders are bound in the order they appear (the
 * rule store_engine.h sets for portable SQL), so the query keeps the next position itself.
 */
struct store_query {
	struct store *s;
	struct store_stmt *st;
	const char *what; /* "reading runs": what a failure was in the middle of */
	int next;
};

static int store_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	for (; *p; p += n)
		if ((n = utf8_len(p, SIZE_MAX)) == 0)
			return 0;
	return 1;
}

static int query_open(struct store *s, struct store_query *q, const char *sql, const char *what,
                      struct err *e)
{
	q->s = s;
	q->st = NULL;
	q->what = what;
	q->next = 1;
	if (s->eng->prepare(s->conn, sql, &q->st, e) != 0)
		return store_fail(s, e, what);
	return 0;
}

static void query_close(struct store_query *q)
{
	if (q->st)
		q->s->eng->finalize(q->st);
	q->st = NULL;
}

static void query_int64(struct store_query *q, int64_t v)
{
	q->s->eng->bind_int64(q->st, q->next++, v);
}

static void query_double(struct store_query *q, double v)
{
	q->s->eng->bind_double(q->st, q->next++, v);
}

/*
 * Every text stored, on either engine, is valid UTF-8: a probe's stderr or a knob's value may
 * hold any bytes, which SQLite stores as they are and a UTF8 PostgreSQL refuses (and with
 * them the run, or a push, for good). Invalid bytes become U+FFFD (escape_utf8), here and in
 * copy_text, the two places text is written, so both engines store it alike and a copy of an
 * older SQLite row to PostgreSQL is cleaned on its way. store_text_clean: v cleaned, newly
 * allocated, or NULL when v is clean already.
 */
static char *store_text_clean(const char *v)
{
	struct sbuf b;

	if (!v || store_utf8_valid(v))
		return NULL;
	sbuf_init(&b);
	escape_utf8(&b, v);
	return b.data;
}

static void query_text(struct store_query *q, const char *v)
{
	char *clean = store_text_clean(v);

	q->s->eng->bind_text(q->st, q->next++, clean ? clean : v);
	free(clean);
}

/* The same rule for a field of a bulk copy (store_engine.h, copy_text). */
static void copy_text(struct store *s, const char *v)
{
	char *clean = store_text_clean(v);

	s->eng->copy_text(s->conn, clean ? clean : v);
	free(clean);
}

/*
 * A command line, stored without its passwords whoever wrote it: the caller already removed
 * them (cli_command_line), an older gcratchet's row copied by push did not.
 */
static void query_command(struct store_query *q, const char *command)
{
	char *safe = store_command_redact(command);

	query_text(q, safe);
	free(safe);
}

/* 1 with a row, 0 when done, -1 on any failure. */
static int query_step(struct store_query *q, struct err *e)
{
	int r = q->s->eng->step(q->st, e);

	if (r < 0)
		return store_fail(q->s, e, q->what);
	return r;
}

static int query_reset(struct store_query *q, struct err *e)
{
	q->next = 1;
	if (q->s->eng->reset(q->st, e) != 0)
		return store_fail(q->s, e, q->what);
	return 0;
}

/* Steps a statement that must finish without a row. */
static int query_done(struct store_query *q, struct err *e)
{
	int r = query_step(q, e);

	if (r > 0)
		return err_setc(e, ERR_FAILED, "%s: %s: a row where none was expected", q->s->where,
		                q->what);
	return r;
}

/* Steps a statement that returns one id (or none: *id = 0). */
static int query_id(struct store_query *q, int64_t *id, struct err *e)
{
	int r = query_step(q, e);

	*id = 0;
	if (r < 0)
		return -1;
	if (r > 0)
		*id = q->s->eng->column_int64(q->st, 0);
	/* Finish the statement now: a RETURNING row still pending would hold the transaction. */
	return query_reset(q, e);
}

static int64_t col_int64(struct store_query *q, int i)
{
	return q->s->eng->column_int64(q->st, i);
}

static double col_double(struct store_query *q, int i)
{
	return q->s->eng->column_double(q->st, i);
}

/*
 * A sample's value, read strictly: a number (never text read as its numeric prefix or as 0)
 * that metrics_value_check accepts for its metric. Anything else is a database changed by
 * hand or damaged: ERR_CORRUPT naming the run, since no verdict may rest on it.
 */
static int col_sample(struct store_query *q, int i, int64_t run_id, enum run_kind kind,
                      const char *metric, double *v, struct err *e)
{
	const char *what = "?";
	char msg[ERR_MSG_MAX];

	if (q->s->eng->column_number(q->st, i, v, &what) != 0)
		return err_setc(e, ERR_CORRUPT,
		                "%s: %s: run %lld: %s is stored as %s, not a number", q->s->where,
		                q->what, (long long)run_id, metric, what);
	if (metrics_value_check(metric, *v, kind, e) != 0) {
		snprintf(msg, sizeof msg, "%s", e->msg);
		return err_setc(e, ERR_CORRUPT, "%s: %s: run %lld: %s", q->s->where, q->what,
		                (long long)run_id, msg);
	}
	return 0;
}

static const char *col_peek(struct store_query *q, int i)
{
	return q->s->eng->column_text(q->st, i);
}

static char *col_text(struct store_query *q, int i)
{
	const char *t = col_peek(q, i);

	return t ? xstrdup(t) : NULL;
}

static int store_exec(struct store *s, const char *sql, const char *what, struct err *e)
{
	if (s->eng->exec(s->conn, sql, e) != 0)
		return store_fail(s, e, what);
	return 0;
}

static int store_begin(struct store *s, const char *what, struct err *e)
{
	if (s->eng->begin(s->conn, e) != 0)
		return store_fail(s, e, what);
	return 0;
}

static int store_commit(struct store *s, const char *what, struct err *e)
{
	if (s->eng->commit(s->conn, e) != 0)
		return store_fail(s, e, what);
	return 0;
}

/* The schema version in meta; 0 when the database has none yet. */
static int store_read_version(struct store *s, int *version, struct err *e)
{
	struct store_query q = {0};
	const char *v;
	int rc = -1, r;

	*version = 0;
	if (query_open(s, &q, "SELECT value FROM meta WHERE key = 'schema_version'",
	               "reading the schema version", e) != 0)
		goto out;
	if ((r = query_step(&q, e)) < 0)
		goto out;
	if (r > 0) {
		v = col_peek(&q, 0);
		*version = v ? atoi(v) : 0;
		if (*version <= 0) {
			err_setc(e, ERR_CORRUPT, "%s: schema_version \"%s\" is not a version",
			         s->where, v ? v : "");
			goto out;
		}
	}
	rc = 0;
out:
	query_close(&q);
	return rc;
}

static int store_newer(struct store *s, int version, struct err *e)
{
	return err_setc(e, ERR_INVALID,
	                "%s: database schema version %d is newer than this harness (%d); use a "
	                "newer gcratchet or another --db",
	                s->where, version, STORE_SCHEMA_VERSION);
}

/* 32 hex digits as a UUID of `version` (RFC 9562: its nibble, and the variant bits 10). */
static void store_uuid_format(const char hex[32], char version, char out[37])
{
	static const char digits[] = "0123456789abcdef";
	int k = 0;

	for (int i = 0; i < 32; i++) {
		char c = hex[i];
		if (i == 12)
			c = version;
		else if (i == 16)
			c = digits[8 + (strchr(digits, hex[i]) - digits) % 4];
		if (i == 8 || i == 12 || i == 16 || i == 20)
			out[k++] = '-';
		out[k++] = c;
	}
	out[k] = '\0';
}

/* A random (version 4) UUID for a new session, from the kernel's generator. */
static int store_uuid_random(char out[37], struct err *e)
{
	unsigned char raw[16];
	char hex[33];
	FILE *f = fopen("/dev/urandom", "rb");
	size_t got = f ? fread(raw, 1, sizeof raw, f) : 0;

	if (f)
		fclose(f);
	if (got != sizeof raw)
		return err_setc(e, ERR_IO, "cannot read /dev/urandom for the session's uuid");
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	store_uuid_format(hex, '4', out);
	return 0;
}

/*
 * The uuid of a session stored before schema 6: a hash of its natural key and its id
 * (version 8, "custom"), so the same rows give the same uuid wherever they are migrated.
 */
static void store_uuid_derived(const char *fingerprint, const char *started_at, int64_t seed,
                               int64_t pid, int64_t id, char out[37])
{
	char hex[SHA256_HEX_LEN + 1];
	char *key =
	    xasprintf("gcratchet-session\n%s\n%s\n%lld\n%lld\n%lld", fingerprint ? fingerprint : "",
	              started_at ? started_at : "", (long long)seed, (long long)pid, (long long)id);

	sha256_hex(key, strlen(key), hex);
	free(key);
	store_uuid_format(hex, '8', out);
}

/* Gives every session without a uuid its derived one; inside the migration's transaction. */
static int store_fill_uuids(struct store *s, struct err *e)
{
	struct store_query q = {0}, set = {0};
	char uuid[37];
	int rc = -1, r;

	if (query_open(s, &q,
	               "SELECT s.id, h.fingerprint, s.started_at, s.seed, s.pid FROM sessions s"
	               " JOIN hosts h ON h.id = s.host_id WHERE s.uuid IS NULL",
	               "migrating schema 5 to 6", e) != 0 ||
	    query_open(s, &set, "UPDATE sessions SET uuid = ? WHERE id = ?",
	               "migrating schema 5 to 6", e) != 0)
		goto out;
	while ((r = query_step(&q, e)) > 0) {
		int64_t id = col_int64(&q, 0);
		store_uuid_derived(col_peek(&q, 1), col_peek(&q, 2), col_int64(&q, 3),
		                   col_int64(&q, 4), id, uuid);
		if (query_reset(&set, e) != 0)
			goto out;
		query_text(&set, uuid);
		query_int64(&set, id);
		if (query_done(&set, e) != 0)
			goto out;
	}
	if (r < 0)
		goto out;
	rc = 0;
out:
	query_close(&set);
	query_close(&q);
	return rc;
}

/* Climbs the ladder from `from` to STORE_SCHEMA_VERSION; inside the caller's transaction. */
static int store_migrate(struct store *s, int from, struct err *e)
{
	struct store_query q = {0};
	char what[64], version[16];
	int rc = -1;

	for (int v = from; v < STORE_SCHEMA_VERSION; v++) {
		snprintf(what, sizeof what, "migrating schema %d to %d", v, v + 1);
		for (const char *const *sql = store_ladder[v - 1]; *sql; sql++)
			if (store_exec(s, *sql, what, e) != 0)
				goto out;
		/* The one step whose rows need computing that portable SQL cannot do. */
		if (v + 1 == 6 && store_fill_uuids(s, e) != 0)
			goto out;
	}
	snprintf(version, sizeof version, "%d", STORE_SCHEMA_VERSION);
	if (query_open(s, &q,
	               "INSERT INTO meta(key, value) VALUES('schema_version', ?)"
	               " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
	               "recording the schema version", e) != 0)
		goto out;
	query_text(&q, version);
	if (query_done(&q, e) != 0)
		goto out;
	rc = 0;
out:
	query_close(&q);
	return rc;
}

/* Creates or migrates the schema in one transaction, so no one sees it half built. */
static int store_prepare_schema(struct store *s, struct err *e)
{
	int version;

	if (store_begin(s, "opening", e) != 0)
		return -1;
	if (s->eng->create_base(s->conn, e) != 0) {
		store_fail(s, e, "creating the tables");
		goto fail;
	}
	if (store_read_version(s, &version, e) != 0)
		goto fail;
	if (version > STORE_SCHEMA_VERSION) {
		store_newer(s, version, e);
		goto fail;
	}
	/* A new database has the base schema now: version 1. */
	if (version < STORE_SCHEMA_VERSION && store_migrate(s, version ? version : 1, e) != 0)
		goto fail;
	return store_commit(s, "opening", e);
fail:
	s->eng->rollback(s->conn);
	return -1;
}

static int store_check_schema(struct store *s, struct err *e)
{
	int version;

	if (store_read_version(s, &version, e) != 0)
		return -1;
	if (version == 0)
		return err_setc(e, ERR_INVALID, "%s: not a gcratchet database (no schema version)",
		                s->where);
	if (version > STORE_SCHEMA_VERSION)
		return store_newer(s, version, e);
	if (version < STORE_SCHEMA_VERSION)
		return err_setc(
		    e, ERR_INVALID,
		    "%s: database schema version %d predates this harness (%d), and "
		    "reading it does not migrate it: a measure, ab or baseline pin with "
		    "this --db does",
		    s->where, version, STORE_SCHEMA_VERSION);
	return 0;
}

/* This host's boot and name, to tell whether a running session's process can be probed. */
static void store_identify_host(struct store *s)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	if (f) {
		if (!fgets(s->boot_id, sizeof s->boot_id, f))
			s->boot_id[0] = '\0';
		s->boot_id[strcspn(s->boot_id, "\n")] = '\0';
		fclose(f);
	}
	if (gethostname(s->hostname, sizeof s->hostname) != 0)
		s->hostname[0] = '\0';
	s->hostname[sizeof s->hostname - 1] = '\0';
}

char *store_url_redact(const char *url)
{
	return store_pg_is_conninfo(url) ? store_pg_redact(url) : xstrdup(url);
}

int store_is_conninfo(const char *target)
{
	return store_pg_is_conninfo(target);
}

int store_names_server(const char *arg)
{
	return store_pg_names_server(arg);
}

int store_db_option(const char *arg, size_t len)
{
	static const char *const opts[] = {"--db", "--to", "--from", "--fleet"};

	for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
		if (strlen(opts[i]) == len && strncmp(arg, opts[i], len) == 0)
			return 1;
	return 0;
}

char *store_command_redact(const char *command)
{
	struct sbuf b;
	const char *p = command;
	int after_db = 0;

	if (!command)
		return NULL;
	sbuf_init(&b);
	/*
	 * Word by word: the line was argv joined by blanks, so a key=value connection string
	 * given as one argument is several words here, and its password= word is itself one.
	 */
	while (*p) {
		size_t blanks = strspn(p, " "), len;
		const char *eq;
		char *word, *shown = NULL;

		sbuf_add(&b, p, blanks);
		p += blanks;
		len = strcspn(p, " ");
		if (len == 0)
			break;
		word = xmalloc(len + 1);
		memcpy(word, p, len);
		word[len] = '\0';
		eq = strchr(word, '=');
		if (after_db || store_pg_is_conninfo(word)) {
			shown = store_url_redact(word);
		} else if (strncmp(word, "--", 2) == 0 && eq &&
		           store_db_option(word, (size_t)(eq - word))) {
			char *rest = store_url_redact(eq + 1);
			shown = xasprintf("%.*s%s", (int)(eq + 1 - word), word, rest);
			free(rest);
		}
		sbuf_addf(&b, "%s", shown ? shown : word);
		after_db = store_db_option(word, len);
		free(shown);
		free(word);
		p += len;
	}
	return b.data;
}

int store_open(const char *target, enum store_mode mode, struct store **out, struct err *e)
{
	struct store *s = xcalloc(1, sizeof *s);
	const char *rest = target;
	int rc = -1;

	s->mode = mode;
	store_identify_host(s);
	if (store_pg_is_conninfo(target)) {
		/* libpq reads the whole string; messages name it without its password. */
		s->eng = &store_engine_pg;
		s->where = store_url_redact(target);
	} else if (strstr(target, "://") && strcspn(target, ":/") == strcspn(target, ":")) {
		err_setc(e, ERR_INVALID,
		         "%s: unknown kind of database (a path, sqlite:PATH or postgresql://...)",
		         target);
		goto out;
	} else {
		if (strncmp(target, "sqlite:", 7) == 0)
			rest = target + 7;
		if (*rest == '\0') {
			err_setc(e, ERR_INVALID, "\"%s\": the database path is empty", target);
			goto out;
		}
		s->eng = &store_engine_sqlite;
		s->where = xstrdup(rest);
	}
#ifdef GCR_TEST_HOOKS
	/* Test builds only: the engine that fails the Nth operation on request. */
	if (store_fault_engine(s->eng, &s->eng, e) != 0)
		goto out;
#endif
	if (s->eng->open(rest, mode, &s->conn, e) != 0) {
		store_fail(s, e, "cannot open");
		if (e && e->code == ERR_NOT_FOUND)
			snprintf(e->msg + strlen(e->msg), sizeof e->msg - strlen(e->msg),
			         " (measure creates one; --db or GCR_DB name another)");
		goto out;
	}
	if (mode == STORE_WRITE ? store_prepare_schema(s, e) : store_check_schema(s, e))
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
	store_kept_release(s);
	free(s->kept);
	if (s->conn)
		s->eng->close(s->conn);
	free(s->where);
	free(s);
}

int store_host(struct store *s, const char *fingerprint, const char *hostname,
               const char *facts_json, int64_t *id, struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	if (query_open(s, &q,
	               "INSERT INTO hosts(fingerprint, hostname, facts) VALUES(?, ?, ?)"
	               " ON CONFLICT(fingerprint) DO UPDATE SET hostname = excluded.hostname,"
	               " facts = excluded.facts RETURNING id",
	               "recording the host", e) != 0)
		goto out;
	query_text(&q, fingerprint);
	query_text(&q, hostname);
	query_text(&q, facts_json);
	rc = query_id(&q, id, e);
out:
	query_close(&q);
	return rc;
}

int store_build_upsert(struct store *s, const struct store_build *b, const char *manifest_text,
                       int64_t *id, struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	if (query_open(s, &q,
	               "INSERT INTO builds(name, collector, collector_version, git_commit, dir,"
	               " manifest, manifest_hash) VALUES(?, ?, ?, ?, ?, ?, ?)"
	               " ON CONFLICT(manifest_hash) DO UPDATE SET dir = excluded.dir"
	               " WHERE builds.manifest = excluded.manifest RETURNING id",
	               "recording a build", e) != 0)
		goto out;
	query_text(&q, b->name);
	query_text(&q, b->collector);
	query_text(&q, b->collector_version);
	query_text(&q, b->git_commit);
	query_text(&q, b->dir);
	query_text(&q, manifest_text);
	query_text(&q, b->manifest_hash);
	rc = query_id(&q, id, e);
	/*
	 * No row: a build of this id whose manifest, and so its probes' sha256s, differ. One
	 * build id is one set of bytes; the stored build's runs keep theirs.
	 */
	if (rc == 0 && *id == 0)
		rc = err_setc(
		    e, ERR_INVALID,
		    "%s: the store already has build %s with another manifest (other probe "
		    "sha256s): refusing to record these bytes under its id",
		    b->dir, b->manifest_hash);
out:
	query_close(&q);
	return rc;
}

int store_build_capabilities(struct store *s, int64_t build_id, const char *capabilities,
                             char **recorded, struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	*recorded = NULL;
	if (query_open(s, &q,
	               "UPDATE builds SET capabilities = COALESCE(capabilities, ?) WHERE id = ?"
	               " RETURNING capabilities",
	               "recording a build's capabilities", e) != 0)
		goto out;
	query_text(&q, capabilities);
	query_int64(&q, build_id);
	if ((rc = query_step(&q, e)) > 0) {
		*recorded = col_text(&q, 0);
		/* Finish the statement now: a RETURNING row still pending would hold the transaction. */
		rc = query_reset(&q, e);
	} else if (rc == 0) {
		rc = err_setc(e, ERR_NOT_FOUND, "%s: no build %lld", s->where, (long long)build_id);
	}
out:
	query_close(&q);
	if (rc != 0) {
		free(*recorded);
		*recorded = NULL;
	}
	return rc;
}

int store_session_begin(struct store *s, const struct store_session *si, int64_t *id, struct err *e)
{
	struct store_query q = {0};
	char uuid[37];
	int rc = -1;

	if (store_uuid_random(uuid, e) != 0) {
		store_fail(s, e, "recording the session");
		goto out;
	}
	if (query_open(
	        s, &q,
	        "INSERT INTO sessions(host_id, command, started_at, status, seed, size,"
	        " rounds, warmup, probes, meters, load_before, harness_version, facts,"
	        " pid, boot_id, uuid)"
	        " VALUES(?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
	        "recording the session", e) != 0)
		goto out;
	query_int64(&q, si->host_id);
	query_command(&q, si->command);
	query_text(&q, si->started_at);
	query_int64(&q, si->seed);
	query_text(&q, si->size);
	query_int64(&q, si->rounds);
	query_int64(&q, si->warmup);
	query_text(&q, si->probes);
	query_text(&q, si->meters);
	query_double(&q, si->load_before);
	query_text(&q, si->harness_version);
	query_text(&q, si->facts);
	query_int64(&q, (int64_t)getpid());
	query_text(&q, s->boot_id[0] ? s->boot_id : NULL);
	query_text(&q, uuid);
	rc = query_id(&q, id, e);
out:
	query_close(&q);
	return rc;
}

int store_session_add_arm(struct store *s, int64_t session_id, int position, int64_t build_id,
                          const char *label, const char *knobs, struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	if (query_open(s, &q,
	               "INSERT INTO session_builds(session_id, position, build_id, label, knobs)"
	               " VALUES(?, ?, ?, ?, ?)",
	               "recording the session's arms", e) != 0)
		goto out;
	query_int64(&q, session_id);
	query_int64(&q, position);
	query_int64(&q, build_id);
	query_text(&q, label);
	query_text(&q, knobs);
	rc = query_done(&q, e);
out:
	query_close(&q);
	return rc;
}

int store_session_end(struct store *s, int64_t session_id, const char *status, double load_after,
                      struct err *e)
{
	struct store_query q = {0};
	char when[32];
	int rc = -1;

	format_utc(now_real_ns(), when, sizeof when);
	if (query_open(
	        s, &q,
	        "UPDATE sessions SET status = ?, finished_at = ?, load_after = ? WHERE id = ?",
	        "closing the session", e) != 0)
		goto out;
	query_text(&q, status);
	query_text(&q, when);
	query_double(&q, load_after);
	query_int64(&q, session_id);
	rc = query_done(&q, e);
out:
	query_close(&q);
	return rc;
}

#define STORE_SESSION_COLUMNS                                                               \
	"s.id, s.host_id, h.fingerprint, s.command, s.started_at, s.finished_at, s.status," \
	" s.seed, s.size, s.rounds, s.warmup, s.probes, s.meters, s.load_before,"           \
	" s.load_after, s.harness_version, h.hostname, s.facts, s.pid, s.boot_id, s.uuid"   \
	" FROM sessions s JOIN hosts h ON h.id = s.host_id"

/* Sessions that measured a build of the collector bound next. */
#define STORE_SESSION_OF_COLLECTOR                                                     \
	" EXISTS (SELECT 1 FROM session_builds sb JOIN builds b ON b.id = sb.build_id" \
	" WHERE sb.session_id = s.id AND b.collector = ?)"

/*
 * A session stored as running is abandoned when its process is gone. Only a process of this
 * boot of this host can be probed: another host's pids, or this host's before a reboot, say
 * nothing (and a container with the host's boot id but its own name has its own pids).
 */
static void store_session_liveness(const struct store *s, struct store_session *o)
{
	if (!o->status || strcmp(o->status, "running") != 0)
		return;
	if (o->pid <= 0 || !o->boot_id || !s->boot_id[0] || strcmp(o->boot_id, s->boot_id) != 0 ||
	    !o->hostname || strcmp(o->hostname, s->hostname) != 0) {
		o->elsewhere = 1;
		return;
	}
	/* EPERM: alive, another user's. */
	if (kill((pid_t)o->pid, 0) == 0 || errno == EPERM)
		return;
	free(o->status);
	o->status = xstrdup("abandoned");
}

static void store_session_row(struct store_query *q, struct store_session *o)
{
	memset(o, 0, sizeof *o);
	o->id = col_int64(q, 0);
	o->host_id = col_int64(q, 1);
	o->host_fingerprint = col_text(q, 2);
	/* Rows stored by an older gcratchet may hold a password; none is ever shown. */
	o->command = store_command_redact(col_peek(q, 3));
	o->started_at = col_text(q, 4);
	o->finished_at = col_text(q, 5);
	o->status = col_text(q, 6);
	o->seed = col_int64(q, 7);
	o->size = col_text(q, 8);
	o->rounds = col_int64(q, 9);
	o->warmup = col_int64(q, 10);
	o->probes = col_text(q, 11);
	o->meters = col_text(q, 12);
	o->load_before = col_double(q, 13);
	o->load_after = col_double(q, 14);
	o->harness_version = col_text(q, 15);
	o->hostname = col_text(q, 16);
	o->facts = col_text(q, 17);
	o->pid = col_int64(q, 18);
	o->boot_id = col_text(q, 19);
	o->uuid = col_text(q, 20);
	store_session_liveness(q->s, o);
}

int store_session_get(struct store *s, int64_t session_id, struct store_session *out, struct err *e)
{
	struct store_query q = {0};
	int rc = -1, r;

	memset(out, 0, sizeof *out);
	if (query_open(s, &q, "SELECT " STORE_SESSION_COLUMNS " WHERE s.id = ?",
	               "reading a session", e) != 0)
		goto out;
	query_int64(&q, session_id);
	if ((r = query_step(&q, e)) < 0)
		goto out;
	if (r == 0) {
		err_setc(e, ERR_NOT_FOUND, "%s: no session %lld (see `gcratchet list sessions`)",
		         s->where, (long long)session_id);
		goto out;
	}
	store_session_row(&q, out);
	rc = 0;
out:
	query_close(&q);
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
	free(si->boot_id);
	free(si->uuid);
	memset(si, 0, sizeof *si);
}

void store_sessions_release(struct store_session *si, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_session_release(&si[i]);
	free(si);
}

int store_latest_session(struct store *s, const char *collector, int64_t *id, struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	/* Newest by when it started: ids of a database merged from others say nothing of time. */
	if (query_open(s, &q,
	               collector ? "SELECT s.id FROM sessions s WHERE" STORE_SESSION_OF_COLLECTOR
	                           " ORDER BY s.started_at DESC, s.id DESC LIMIT 1"
	                         : "SELECT s.id FROM sessions s WHERE EXISTS (SELECT 1 FROM"
	                           " session_builds sb WHERE sb.session_id = s.id)"
	                           " ORDER BY s.started_at DESC, s.id DESC LIMIT 1",
	               "finding the latest session", e) != 0)
		goto out;
	if (collector)
		query_text(&q, collector);
	rc = query_id(&q, id, e);
out:
	query_close(&q);
	return rc;
}

int store_list_sessions(struct store *s, const char *collector, struct store_session **out,
                        size_t *n, struct err *e)
{
	struct store_query q = {0};
	size_t cap = 0;
	int rc = -1, r;

	*out = NULL;
	*n = 0;
	if (query_open(s, &q,
	               collector ? "SELECT " STORE_SESSION_COLUMNS
	                           " WHERE" STORE_SESSION_OF_COLLECTOR
	                           " ORDER BY s.started_at, s.id"
	                         : "SELECT " STORE_SESSION_COLUMNS " ORDER BY s.started_at, s.id",
	               "listing sessions", e) != 0)
		goto out;
	if (collector)
		query_text(&q, collector);
	while ((r = query_step(&q, e)) > 0) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		store_session_row(&q, &(*out)[(*n)++]);
	}
	if (r < 0)
		goto out;
	rc = 0;
out:
	query_close(&q);
	if (rc != 0) {
		store_sessions_release(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

int store_session_builds(struct store *s, int64_t session_id, struct store_build **out, size_t *n,
                         struct err *e)
{
	struct store_query q = {0};
	size_t cap = 0;
	int rc = -1, r;

	*out = NULL;
	*n = 0;
	if (query_open(s, &q,
	               "SELECT b.id, b.name, b.collector, b.collector_version, b.git_commit, b.dir,"
	               " b.manifest_hash, sb.label, sb.knobs, sb.position, b.capabilities"
	               " FROM session_builds sb"
	               " JOIN builds b ON b.id = sb.build_id WHERE sb.session_id = ?"
	               " ORDER BY sb.position",
	               "reading a session's builds", e) != 0)
		goto out;
	query_int64(&q, session_id);
	while ((r = query_step(&q, e)) > 0) {
		struct store_build *b;
		if (*n == cap) {
			cap = cap ? cap * 2 : 4;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		b = &(*out)[(*n)++];
		b->id = col_int64(&q, 0);
		b->name = col_text(&q, 1);
		b->collector = col_text(&q, 2);
		b->collector_version = col_text(&q, 3);
		b->git_commit = col_text(&q, 4);
		b->dir = col_text(&q, 5);
		b->manifest_hash = col_text(&q, 6);
		b->label = col_text(&q, 7);
		b->knobs = col_text(&q, 8);
		b->position = (int)col_int64(&q, 9);
		b->capabilities = col_text(&q, 10);
	}
	if (r < 0)
		goto out;
	rc = 0;
out:
	query_close(&q);
	if (rc != 0) {
		store_builds_release(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

/* What one build holds; the struct itself is the caller's. */
static void store_build_release(struct store_build *b)
{
	free(b->name);
	free(b->collector);
	free(b->collector_version);
	free(b->git_commit);
	free(b->dir);
	free(b->manifest_hash);
	free(b->label);
	free(b->knobs);
	free(b->capabilities);
}

void store_builds_release(struct store_build *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_build_release(&b[i]);
	free(b);
}

#define STORE_SAMPLES_PER_INSERT   64
#define STORE_FUNCTIONS_PER_INSERT 64

/* "INSERT INTO samples ... VALUES(?, ?, ?), ..." for `rows` rows; newly allocated. */
static char *store_samples_insert_sql(size_t rows)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_addf(&b, "INSERT INTO samples(run_id, metric, value) VALUES(?, ?, ?)");
	for (size_t i = 1; i < rows; i++)
		sbuf_add(&b, ", (?, ?, ?)", 11);
	return b.data;
}

/* "INSERT INTO run_functions ... VALUES(?, ?, ?, ?, ?), ..." for `rows` rows; newly allocated. */
static char *store_functions_insert_sql(size_t rows)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_addf(&b, "INSERT INTO run_functions(run_id, rank, name, file, ir)"
	              " VALUES(?, ?, ?, ?, ?)");
	for (size_t i = 1; i < rows; i++)
		sbuf_addf(&b, ", (?, ?, ?, ?, ?)");
	return b.data;
}

/* A run's functions, inside the caller's transaction, in statements of up to 64 rows. */
static int store_functions_write(struct store *s, int64_t run_id, const struct fnprof *p,
                                 struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	for (size_t i = 0; i < p->n;) {
		size_t rows =
		    p->n - i < STORE_FUNCTIONS_PER_INSERT ? p->n - i : STORE_FUNCTIONS_PER_INSERT;
		char *sql = store_functions_insert_sql(rows);
		int opened = query_open(s, &q, sql, "storing a run's functions", e);
		free(sql);
		if (opened != 0)
			goto out;
		for (size_t k = 0; k < rows; k++, i++) {
			query_int64(&q, run_id);
			query_int64(&q, (int64_t)i + 1);
			query_text(&q, p->fns[i].name);
			query_text(&q, p->fns[i].file);
			query_double(&q, p->fns[i].ir);
		}
		if (query_done(&q, e) != 0)
			goto out;
		query_close(&q);
	}
	rc = 0;
out:
	query_close(&q);
	return rc;
}

/* A value no verdict could rest on is never stored: checked before anything is written. */
static int store_run_check(struct store *s, const struct run_record *r, struct err *e)
{
	char msg[ERR_MSG_MAX];

	for (size_t i = 0, n = r->metrics ? r->metrics->n : 0; i < n; i++) {
		if (metrics_value_check(r->metrics->items[i].name, r->metrics->items[i].value,
		                        r->kind, e) == 0)
			continue;
		snprintf(msg, sizeof msg, "%s", e->msg);
		return err_setc(e, ERR_INVALID, "%s: storing a run of %s (round %d, seq %d): %s",
		                s->where, r->probe, r->round, r->seq, msg);
	}
	if (r->functions && fnprof_check(r->functions, e) != 0) {
		snprintf(msg, sizeof msg, "%s", e->msg);
		return err_setc(e, ERR_INVALID, "%s: storing a run of %s (round %d, seq %d): %s",
		                s->where, r->probe, r->round, r->seq, msg);
	}
	return 0;
}

/* A run and its samples, inside the caller's transaction. */
static int store_run_write(struct store *s, const struct run_record *r, int64_t *id, struct err *e)
{
	struct store_query q = {0}, sample = {0};
	char *premise = run_premise_join(r->premise, r->premise_text);
	int rc = -1;

	if (store_run_check(s, r, e) != 0)
		goto out;
	if (query_open(s, &q,
	               "INSERT INTO runs(session_id, build_id, probe, size, round, seq, warmup,"
	               " kind, status, detail, checksum, premise, stderr_tail, started_at, arm)"
	               " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
	               "storing a run", e) != 0)
		goto out;
	query_int64(&q, r->session_id);
	query_int64(&q, r->build_id);
	query_text(&q, r->probe);
	query_text(&q, r->size);
	query_int64(&q, r->round);
	query_int64(&q, r->seq);
	query_int64(&q, r->warmup);
	query_text(&q, run_kind_name(r->kind));
	query_text(&q, run_status_name(r->status));
	query_text(&q, r->detail);
	query_text(&q, r->checksum);
	query_text(&q, premise);
	query_text(&q, r->stderr_tail);
	query_text(&q, r->started_at);
	query_int64(&q, r->arm);
	if (query_id(&q, id, e) != 0)
		goto out;
	/*
	 * A run's samples in statements of up to STORE_SAMPLES_PER_INSERT rows: to a server, each
	 * statement is a round trip, and a push copies a million samples.
	 */
	for (size_t i = 0, n = r->metrics ? r->metrics->n : 0; i < n;) {
		size_t rows = n - i < STORE_SAMPLES_PER_INSERT ? n - i : STORE_SAMPLES_PER_INSERT;
		char *sql = store_samples_insert_sql(rows);
		int opened = query_open(s, &sample, sql, "storing a sample", e);
		free(sql);
		if (opened != 0)
			goto out;
		for (size_t k = 0; k < rows; k++, i++) {
			query_int64(&sample, *id);
			query_text(&sample, r->metrics->items[i].name);
			query_double(&sample, r->metrics->items[i].value);
		}
		if (query_done(&sample, e) != 0)
			goto out;
		query_close(&sample);
	}
	if (r->functions && store_functions_write(s, *id, r->functions, e) != 0)
		goto out;
	rc = 0;
out:
	query_close(&sample);
	query_close(&q);
	free(premise);
	return rc;
}

/* Keeps a copy of r for the batch's next flush. */
static void store_keep(struct store *s, const struct run_record *r)
{
	struct store_kept *k;
	const char *from[7] = {r->probe,        r->size,        r->detail,    r->checksum,
	                       r->premise_text, r->stderr_tail, r->started_at};

	if (s->nkept == s->capkept) {
		s->capkept = s->capkept ? 2 * s->capkept : 64;
		s->kept = xrealloc(s->kept, s->capkept * sizeof *s->kept);
		/* The kept runs point at their own metrics and functions, which moved with them. */
		for (size_t i = 0; i < s->nkept; i++) {
			if (s->kept[i].r.metrics)
				s->kept[i].r.metrics = &s->kept[i].metrics;
			if (s->kept[i].r.functions)
				s->kept[i].r.functions = &s->kept[i].functions;
		}
	}
	k = &s->kept[s->nkept++];
	memset(k, 0, sizeof *k);
	k->r = *r;
	for (size_t i = 0; i < 7; i++)
		k->strings[i] = from[i] ? xstrdup(from[i]) : NULL;
	k->r.probe = k->strings[0];
	k->r.size = k->strings[1];
	k->r.detail = k->strings[2];
	k->r.checksum = k->strings[3];
	k->r.premise_text = k->strings[4];
	k->r.stderr_tail = k->strings[5];
	k->r.started_at = k->strings[6];
	for (size_t i = 0; r->metrics && i < r->metrics->n; i++)
		metric_set_add(&k->metrics, r->metrics->items[i].name, r->metrics->items[i].value);
	k->r.metrics = r->metrics ? &k->metrics : NULL;
	fnprof_init(&k->functions);
	if (r->functions)
		fnprof_copy(r->functions, &k->functions);
	k->r.functions = r->functions ? &k->functions : NULL;
}

void store_batch_begin(struct store *s)
{
	s->batching = 1;
}

size_t store_batch_pending(const struct store *s)
{
	return s->batching ? s->nkept : 0;
}

int store_batch_flush(struct store *s, struct err *e)
{
	int64_t id;
	int rc = -1;

	if (s->nkept == 0)
		return 0;
	if (store_begin(s, "storing runs", e) != 0)
		goto out;
	for (size_t i = 0; i < s->nkept; i++)
		if (store_run_write(s, &s->kept[i].r, &id, e) != 0)
			goto out;
	if (store_commit(s, "storing runs", e) != 0)
		goto out;
	rc = 0;
out:
	if (rc != 0) {
		char msg[ERR_MSG_MAX];
		s->eng->rollback(s->conn);
		snprintf(msg, sizeof msg, "%s", e->msg);
		err_setc(e, e->code, "%s (%zu finished run%s not stored)", msg, s->nkept,
		         s->nkept == 1 ? "" : "s");
	}
	store_kept_release(s);
	return rc;
}

int store_batch_end(struct store *s, struct err *e)
{
	int rc = store_batch_flush(s, e);

	s->batching = 0;
	return rc;
}

int store_run_insert(struct store *s, const struct run_record *r, int64_t *id, struct err *e)
{
	if (s->batching) {
		*id = 0;
		if (store_run_check(s, r, e) != 0)
			return -1;
		store_keep(s, r);
		return 0;
	}
	if (store_begin(s, "storing a run", e) != 0)
		return -1;
	if (store_run_write(s, r, id, e) != 0 || store_commit(s, "storing a run", e) != 0) {
		s->eng->rollback(s->conn);
		return -1;
	}
	return 0;
}

/* Reads the current row of a runs query into o; -1 for a kind or status not known here. */
static int store_run_row(struct store_query *q, struct store_run *o, struct err *e)
{
	const char *kind = col_peek(q, 8), *status = col_peek(q, 9), *text, *stored;

	memset(o, 0, sizeof *o);
	o->id = col_int64(q, 0);
	o->session_id = col_int64(q, 1);
	o->build_id = col_int64(q, 2);
	if (run_kind_parse(kind, &o->kind) != 0 || run_status_parse(status, &o->status) != 0)
		return err_setc(e, ERR_INVALID,
		                "%s: run %lld has kind \"%s\" and status \"%s\", which this "
		                "gcratchet does not know (written by a newer one?)",
		                q->s->where, (long long)o->id, kind ? kind : "",
		                status ? status : "");
	o->probe = col_text(q, 3);
	o->size = col_text(q, 4);
	o->round = (int)col_int64(q, 5);
	o->seq = (int)col_int64(q, 6);
	o->warmup = (int)col_int64(q, 7);
	o->detail = col_text(q, 10);
	o->checksum = col_text(q, 11);
	stored = col_peek(q, 12);
	o->premise = run_premise_split(stored, &text);
	o->premise_text = stored && *text ? xstrdup(text) : NULL;
	o->stderr_tail = col_text(q, 13);
	o->started_at = col_text(q, 14);
	o->arm = q->s->eng->column_null(q->st, 15) ? -1 : (int)col_int64(q, 15);
	return 0;
}

/*
 * The functions of the runs just read (ordered by id), in one query: read strictly, a count
 * that is no number, a name missing or a list out of order is a damaged database. A run's
 * total is its valgrind.ir sample (the functions not kept make up the rest).
 */
static int store_functions_load(struct store *s, int64_t session_id, int arm,
                                struct store_run *runs, size_t n, struct err *e)
{
	struct store_query q = {0};
	size_t k = 0;
	int rc = -1, r;

	if (query_open(
	        s, &q,
	        "SELECT f.run_id, f.rank, f.name, f.file, f.ir FROM run_functions f JOIN runs r"
	        " ON r.id = f.run_id WHERE r.session_id = ? AND (? < 0 OR r.arm = ?)"
	        " ORDER BY f.run_id, f.rank",
	        "reading the runs' functions", e) != 0)
		goto out;
	query_int64(&q, session_id);
	query_int64(&q, arm);
	query_int64(&q, arm);
	while ((r = query_step(&q, e)) > 0) {
		int64_t run_id = col_int64(&q, 0), rank = col_int64(&q, 1);
		const char *name = col_peek(&q, 2), *what = "?";
		double ir;
		while (k < n && runs[k].id < run_id)
			k++;
		if (k == n || runs[k].id != run_id) {
			err_setc(e, ERR_FAILED,
			         "%s: reading functions: run %lld is not among the runs read",
			         s->where, (long long)run_id);
			goto out;
		}
		if (!name || !*name || rank != (int64_t)runs[k].functions.n + 1 ||
		    s->eng->column_number(q.st, 4, &ir, &what) != 0 || !isfinite(ir) || ir < 0) {
			err_setc(
			    e, ERR_CORRUPT,
			    "%s: reading functions: run %lld: function %lld is damaged (a name, "
			    "its rank in order, an Ir >= 0)",
			    s->where, (long long)run_id, (long long)rank);
			goto out;
		}
		fnprof_add(&runs[k].functions, name, col_peek(&q, 3), ir);
	}
	if (r < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const double *v = metric_set_get(&runs[i].metrics, "valgrind.ir");
		char msg[ERR_MSG_MAX];
		if (!runs[i].functions.n)
			continue;
		runs[i].functions.total_ir = v ? *v : fnprof_kept(&runs[i].functions);
		if (fnprof_check(&runs[i].functions, e) != 0) {
			snprintf(msg, sizeof msg, "%s", e->msg);
			err_setc(e, ERR_CORRUPT,
			         "%s: reading functions: session %lld, run %lld (probe %s, its "
			         "valgrind run): %s",
			         s->where, (long long)session_id, (long long)runs[i].id,
			         runs[i].probe ? runs[i].probe : "?", msg);
			goto out;
		}
	}
	rc = 0;
out:
	query_close(&q);
	return rc;
}

int store_runs_load(struct store *s, int64_t session_id, int arm, struct store_run **out, size_t *n,
                    struct err *e)
{
	struct store_query q = {0}, sample = {0};
	size_t cap = 0, k = 0;
	int rc = -1, r;

	*out = NULL;
	*n = 0;
	/*
	 * The runs, then all their samples in one query in run order: one round trip to a
	 * server for the samples of a whole session, not one per run.
	 */
	if (query_open(s, &q,
	               "SELECT id, session_id, build_id, probe, size, round, seq, warmup, kind,"
	               " status, detail, checksum, premise, stderr_tail, started_at, arm FROM runs"
	               " WHERE session_id = ? AND (? < 0 OR arm = ?) ORDER BY id",
	               "reading runs", e) != 0 ||
	    query_open(s, &sample,
	               "SELECT x.run_id, x.metric, x.value FROM samples x JOIN runs r"
	               " ON r.id = x.run_id WHERE r.session_id = ? AND (? < 0 OR r.arm = ?)"
	               " ORDER BY x.run_id, x.metric",
	               "reading samples", e) != 0)
		goto out;
	query_int64(&q, session_id);
	query_int64(&q, arm);
	query_int64(&q, arm);
	while ((r = query_step(&q, e)) > 0) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		if (store_run_row(&q, &(*out)[(*n)++], e) != 0)
			goto out;
	}
	if (r < 0)
		goto out;
	query_int64(&sample, session_id);
	query_int64(&sample, arm);
	query_int64(&sample, arm);
	/*
	 * A sample that cannot be read fails the load, and so does one that is no valid value:
	 * a verdict on fewer, or on a NaN, is no verdict.
	 */
	while ((r = query_step(&sample, e)) > 0) {
		int64_t run_id = col_int64(&sample, 0);
		double v;
		while (k < *n && (*out)[k].id < run_id)
			k++;
		if (k == *n || (*out)[k].id != run_id) {
			err_setc(e, ERR_FAILED,
			         "%s: reading samples: run %lld is not among the runs read",
			         s->where, (long long)run_id);
			goto out;
		}
		if (col_sample(&sample, 2, run_id, (*out)[k].kind, col_peek(&sample, 1), &v, e) !=
		    0)
			goto out;
		metric_set_add(&(*out)[k].metrics, col_peek(&sample, 1), v);
	}
	if (r < 0 || store_functions_load(s, session_id, arm, *out, *n, e) != 0)
		goto out;
	rc = 0;
out:
	query_close(&sample);
	query_close(&q);
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
		fnprof_release(&r[i].functions);
	}
	free(r);
}

/* One text column of one row by id; *out NULL when the column is NULL, -1 when no row. */
static int store_text_by_id(struct store *s, const char *sql, int64_t id, const char *what,
                            char **out, struct err *e)
{
	struct store_query q = {0};
	int rc = -1, r;

	*out = NULL;
	if (query_open(s, &q, sql, what, e) != 0)
		goto out;
	query_int64(&q, id);
	if ((r = query_step(&q, e)) < 0)
		goto out;
	if (r == 0) {
		err_setc(e, ERR_NOT_FOUND, "%s: no %s %lld", s->where, what, (long long)id);
		goto out;
	}
	*out = col_text(&q, 0);
	rc = 0;
out:
	query_close(&q);
	return rc;
}

int store_host_facts(struct store *s, int64_t host_id, char **facts, struct err *e)
{
	return store_text_by_id(s, "SELECT facts FROM hosts WHERE id = ?", host_id, "host", facts,
	                        e);
}

int store_build_manifest(struct store *s, int64_t build_id, char **manifest, struct err *e)
{
	return store_text_by_id(s, "SELECT manifest FROM builds WHERE id = ?", build_id, "build",
	                        manifest, e);
}

/* ---- Copying sessions between databases (push, pull) ----------------------------------------- */

const char *store_where(const struct store *s)
{
	return s->where;
}

/* The id of the session with this uuid in s; 0 when none. */
static int store_session_by_uuid(struct store *s, const char *uuid, int64_t *id, struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	if (query_open(s, &q, "SELECT id FROM sessions WHERE uuid = ?", "finding a session", e) ==
	    0) {
		query_text(&q, uuid);
		rc = query_id(&q, id, e);
	}
	query_close(&q);
	return rc;
}

/* The session row itself, as stored in the source; *id 0 when another copy won the race. */
static int store_session_write_copy(struct store *s, const struct store_session *si,
                                    int64_t host_id, int64_t *id, struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	if (query_open(s, &q,
	               "INSERT INTO sessions(host_id, command, started_at, finished_at, status,"
	               " seed, size, rounds, warmup, probes, meters, load_before, load_after,"
	               " harness_version, facts, pid, boot_id, uuid)"
	               " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	               " ON CONFLICT(uuid) DO NOTHING RETURNING id",
	               "copying a session", e) != 0)
		goto out;
	query_int64(&q, host_id);
	query_command(&q, si->command);
	query_text(&q, si->started_at);
	query_text(&q, si->finished_at);
	/* "abandoned" is computed at every read from a stored "running", never stored. */
	query_text(&q, strcmp(si->status, "abandoned") == 0 ? "running" : si->status);
	query_int64(&q, si->seed);
	query_text(&q, si->size);
	query_int64(&q, si->rounds);
	query_int64(&q, si->warmup);
	query_text(&q, si->probes);
	query_text(&q, si->meters);
	query_double(&q, si->load_before);
	query_double(&q, si->load_after);
	query_text(&q, si->harness_version);
	query_text(&q, si->facts);
	if (si->pid > 0)
		query_int64(&q, si->pid);
	else
		query_text(&q, NULL);
	query_text(&q, si->boot_id);
	query_text(&q, si->uuid);
	rc = query_id(&q, id, e);
out:
	query_close(&q);
	return rc;
}

/* The host row, added when missing; an existing one keeps its newer name and facts. */
static int store_host_copy(struct store *s, const struct store_session *si, const char *facts,
                           int64_t *id, struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	if (query_open(s, &q,
	               "INSERT INTO hosts(fingerprint, hostname, facts) VALUES(?, ?, ?)"
	               " ON CONFLICT(fingerprint) DO UPDATE SET fingerprint = excluded.fingerprint"
	               " RETURNING id",
	               "copying the host", e) == 0) {
		query_text(&q, si->host_fingerprint);
		query_text(&q, si->hostname);
		query_text(&q, facts);
		rc = query_id(&q, id, e);
	}
	query_close(&q);
	return rc;
}

static int store_sweep_write(struct store *s, int64_t session_id, const struct store_sweep_cell *c,
                             size_t n, struct err *e);

/* An answer of another store to copy, with its host's and build's ids in this one. */
struct store_minheap_out {
	const struct store_minheap *m;
	int64_t host_id, build_id;
	int64_t ordinal; /* store_minheap_ordinal in the list m was read with */
};

static int store_minheaps_write_copy(struct store *s, const struct store_minheap_out *a, size_t n,
                                     struct err *e);
static int store_minheap_copy(struct store *s, const struct store_minheap *m, int64_t host_id,
                              int64_t build_id, int64_t ordinal, struct err *e);

/*
 * How many answers before list[k] have its host, build, probe, size and start: answers are
 * told apart by when they started, to the second, and two searches can start in one second
 * (tests/cli/t102). A copy brings the destination up to the source's count of each, so the
 * second of such a pair is copied once, not taken for the first.
 */
static int64_t store_minheap_ordinal(const struct store_minheap *list, size_t k)
{
	int64_t n = 0;

	for (size_t j = 0; j < k; j++)
		n += list[j].host_id == list[k].host_id && list[j].build_id == list[k].build_id &&
		     strcmp(list[j].probe, list[k].probe) == 0 &&
		     strcmp(list[j].size, list[k].size) == 0 &&
		     strcmp(list[j].started_at, list[k].started_at) == 0;
	return n;
}

/* What a copy reads from its source before it writes anything. */
struct store_copy {
	struct store *from;
	int64_t session_id;
	struct store_session si;
	struct store_build *builds;
	size_t nb;
	struct store_run *runs;
	size_t nr;
	struct store_sweep_cell *sweep; /* a sweep's heap per arm and probe; none: not a sweep */
	size_t nsweep;
	/* The source's minimum-heap answers; those for this host and an arm's build go along */
	struct store_minheap *minheap;
	size_t nminheap;
	char *facts;
	/*
	 * The destination holds a copy taken while the session still ran, and the source has
	 * more of it now: the copy is replaced, under its id.
	 */
	int refresh;
};

/*
 * The destination's copy of a session (by uuid) as stored: its id (0: none), its stored
 * status and how many runs it holds.
 */
static int store_copy_state(struct store *s, const char *uuid, int64_t *id, char **status,
                            int64_t *runs, struct err *e)
{
	struct store_query q = {0};
	int rc = -1, r;

	*id = 0;
	*status = NULL;
	*runs = 0;
	if (query_open(s, &q,
	               "SELECT s.id, s.status, (SELECT count(*) FROM runs r WHERE"
	               " r.session_id = s.id) FROM sessions s WHERE s.uuid = ?",
	               "finding a session", e) != 0)
		goto out;
	query_text(&q, uuid);
	if ((r = query_step(&q, e)) < 0)
		goto out;
	if (r > 0) {
		*id = col_int64(&q, 0);
		*status = col_text(&q, 1);
		*runs = col_int64(&q, 2);
	}
	rc = 0;
out:
	query_close(&q);
	return rc;
}

static int store_run_count(struct store *s, int64_t session_id, int64_t *n, struct err *e)
{
	struct store_query q = {0};
	int rc = -1, r;

	*n = 0;
	if (query_open(s, &q, "SELECT count(*) FROM runs WHERE session_id = ?", "counting runs",
	               e) != 0)
		goto out;
	query_int64(&q, session_id);
	if ((r = query_step(&q, e)) < 0)
		goto out;
	if (r > 0)
		*n = col_int64(&q, 0);
	rc = 0;
out:
	query_close(&q);
	return rc;
}

/*
 * Takes the destination's incomplete copy for replacing, inside the caller's transaction: its
 * row gets the source's end, and its arms, runs, samples and sweep cells go. *claimed 0 when
 * another copy completed it first (it is no longer stored as running).
 */
static int store_copy_reopen(struct store *s, int64_t id, const struct store_session *si,
                             int *claimed, struct err *e)
{
	static const char *const clear[] = {
	    "DELETE FROM samples WHERE run_id IN (SELECT id FROM runs WHERE session_id = ?)",
	    "DELETE FROM run_functions WHERE run_id IN (SELECT id FROM runs WHERE session_id = ?)",
	    "DELETE FROM runs WHERE session_id = ?",
	    "DELETE FROM session_builds WHERE session_id = ?",
	    "DELETE FROM sweep_cells WHERE session_id = ?",
	};
	struct store_query q = {0};
	int64_t got = 0;
	int rc = -1;

	*claimed = 0;
	if (query_open(s, &q,
	               "UPDATE sessions SET finished_at = ?, status = ?, load_after = ?"
	               " WHERE id = ? AND status = 'running' RETURNING id",
	               "completing a session's copy", e) != 0)
		goto out;
	query_text(&q, si->finished_at);
	query_text(&q, strcmp(si->status, "abandoned") == 0 ? "running" : si->status);
	query_double(&q, si->load_after);
	query_int64(&q, id);
	if (query_id(&q, &got, e) != 0)
		goto out;
	query_close(&q);
	if (got == 0) {
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < sizeof clear / sizeof clear[0]; i++) {
		if (query_open(s, &q, clear[i], "completing a session's copy", e) != 0)
			goto out;
		query_int64(&q, id);
		if (query_done(&q, e) != 0)
			goto out;
		query_close(&q);
	}
	*claimed = 1;
	rc = 0;
out:
	query_close(&q);
	return rc;
}

/*
 * Ends a stream that failed midway, its rows discarded (the caller's rollback discards the
 * rest): the failure that ended it is the one told, not this.
 */
static void store_copy_abort(struct store *s)
{
	struct err ignored = ERR_INIT;

	s->eng->copy_end(s->conn, "the copy failed", &ignored);
}

/*
 * A copy's runs with their samples and functions into an engine with bulk writing
 * (store_engine.h): one stream per table, so a session of any size costs the same few round
 * trips to a server. Run ids are reserved first, so that each sample names its run's id.
 * build_ids[k] is run k's build in `to`. Every run is checked as store_run_write checks it,
 * before anything is written.
 */
static int store_copy_runs_bulk(struct store *to, const struct store_copy *c, int64_t session_id,
                                const int64_t *build_ids, struct err *e)
{
	const struct store_engine *g = to->eng;
	int64_t *ids = xcalloc(c->nr + 1, sizeof *ids);
	const char *what = "copying runs";
	size_t nfunctions = 0;
	int rc = -1, streaming = 0;

	for (size_t k = 0; k < c->nr; k++) {
		const struct store_run *o = &c->runs[k];
		struct run_record r = {.probe = o->probe,
		                       .round = o->round,
		                       .seq = o->seq,
		                       .kind = o->kind,
		                       .metrics = &o->metrics,
		                       .functions = o->functions.n ? &o->functions : NULL};
		if (store_run_check(to, &r, e) != 0)
			goto out;
		nfunctions += o->functions.n;
	}
	if (c->nr == 0) {
		rc = 0;
		goto out;
	}
	if (g->reserve_ids(to->conn, "runs", c->nr, ids, e) != 0 ||
	    g->copy_begin(to->conn, "runs",
	                  "id, session_id, build_id, probe, size, round, seq, warmup, kind,"
	                  " status, detail, checksum, premise, stderr_tail, started_at, arm",
	                  e) != 0)
		goto fail;
	streaming = 1;
	for (size_t k = 0; k < c->nr; k++) {
		const struct store_run *o = &c->runs[k];
		char *premise = run_premise_join(o->premise, o->premise_text);
		g->copy_int64(to->conn, ids[k]);
		g->copy_int64(to->conn, session_id);
		g->copy_int64(to->conn, build_ids[k]);
		copy_text(to, o->probe);
		copy_text(to, o->size);
		g->copy_int64(to->conn, o->round);
		g->copy_int64(to->conn, o->seq);
		g->copy_int64(to->conn, o->warmup);
		copy_text(to, run_kind_name(o->kind));
		copy_text(to, run_status_name(o->status));
		copy_text(to, o->detail);
		copy_text(to, o->checksum);
		copy_text(to, premise);
		copy_text(to, o->stderr_tail);
		copy_text(to, o->started_at);
		g->copy_int64(to->conn, o->arm);
		free(premise);
		if (g->copy_row(to->conn, e) != 0)
			goto fail;
	}
	streaming = 0;
	if (g->copy_end(to->conn, NULL, e) != 0 ||
	    g->copy_begin(to->conn, "samples", "run_id, metric, value", e) != 0)
		goto fail;
	streaming = 1;
	for (size_t k = 0; k < c->nr; k++) {
		const struct metric_set *m = &c->runs[k].metrics;
		for (size_t i = 0; i < m->n; i++) {
			g->copy_int64(to->conn, ids[k]);
			copy_text(to, m->items[i].name);
			g->copy_double(to->conn, m->items[i].value);
			if (g->copy_row(to->conn, e) != 0)
				goto fail;
		}
	}
	streaming = 0;
	if (g->copy_end(to->conn, NULL, e) != 0)
		goto fail;
	if (nfunctions) {
		if (g->copy_begin(to->conn, "run_functions", "run_id, rank, name, file, ir", e) !=
		    0)
			goto fail;
		streaming = 1;
		for (size_t k = 0; k < c->nr; k++) {
			const struct fnprof *p = &c->runs[k].functions;
			for (size_t i = 0; i < p->n; i++) {
				g->copy_int64(to->conn, ids[k]);
				g->copy_int64(to->conn, (int64_t)i + 1);
				copy_text(to, p->fns[i].name);
				copy_text(to, p->fns[i].file);
				g->copy_double(to->conn, p->fns[i].ir);
				if (g->copy_row(to->conn, e) != 0)
					goto fail;
			}
		}
		streaming = 0;
		if (g->copy_end(to->conn, NULL, e) != 0)
			goto fail;
	}
	rc = 0;
	goto out;
fail:
	if (streaming)
		store_copy_abort(to);
	store_fail(to, e, what);
out:
	free(ids);
	return rc;
}

/*
 * A copy's arms, build_ids[i] arm i's build in `to`: one stream in an engine with bulk writing
 * (a sweep has an arm per build and factor), else a row each.
 */
static int store_copy_arms(struct store *to, int64_t session_id, const struct store_build *arms,
                           const int64_t *build_ids, size_t n, struct err *e)
{
	const struct store_engine *g = to->eng;
	const char *what = "recording the session's arms";

	if (!g->copy_begin || n == 0) {
		for (size_t i = 0; i < n; i++)
			if (store_session_add_arm(to, session_id, arms[i].position, build_ids[i],
			                          arms[i].label, arms[i].knobs, e) != 0)
				return -1;
		return 0;
	}
	if (g->copy_begin(to->conn, "session_builds",
	                  "session_id, position, build_id, label, knobs", e) != 0)
		return store_fail(to, e, what);
	for (size_t i = 0; i < n; i++) {
		g->copy_int64(to->conn, session_id);
		g->copy_int64(to->conn, arms[i].position);
		g->copy_int64(to->conn, build_ids[i]);
		copy_text(to, arms[i].label);
		copy_text(to, arms[i].knobs);
		if (g->copy_row(to->conn, e) != 0) {
			store_copy_abort(to);
			return store_fail(to, e, what);
		}
	}
	if (g->copy_end(to->conn, NULL, e) != 0)
		return store_fail(to, e, what);
	return 0;
}

/*
 * Writes c's session into `to`, inside the caller's transaction, unless `to` holds it already
 * (*copied 0, and nothing written).
 */
static int store_copy_into(struct store *to, const struct store_copy *c, int64_t *to_id,
                           int *copied, struct err *e)
{
	int64_t *build_ids = xcalloc(c->nb + 1, sizeof *build_ids), host_id, run_id;
	int64_t *run_builds = xcalloc(c->nr + 1, sizeof *run_builds);
	struct store_minheap_out *answers = NULL;
	size_t nanswers = 0;
	int rc = -1, reopened = 0;

	/*
	 * A copy that is no refresh found no session of this uuid before reading
	 * (store_session_copy_txn); one committed since is found by the session's insert (ON
	 * CONFLICT(uuid)), so it is not looked for again: a round trip fewer per session.
	 */
	*to_id = 0;
	if (c->refresh && store_session_by_uuid(to, c->si.uuid, to_id, e) != 0)
		goto out;
	if (*to_id != 0 && !c->refresh) {
		rc = 0;
		goto out;
	}
	if (*to_id != 0) {
		if (store_copy_reopen(to, *to_id, &c->si, &reopened, e) != 0)
			goto out;
		if (!reopened) {
			rc = 0;
			goto out;
		}
	}
	if (store_host_copy(to, &c->si, c->facts, &host_id, e) != 0)
		goto out;
	for (size_t i = 0; i < c->nb; i++) {
		char *manifest = NULL;
		int r;

		/* A build that is several arms (a sweep's factors, an A/A) is recorded once. */
		for (size_t j = 0; j < i && !build_ids[i]; j++)
			if (c->builds[j].id == c->builds[i].id)
				build_ids[i] = build_ids[j];
		if (build_ids[i])
			continue;
		r = store_build_manifest(c->from, c->builds[i].id, &manifest, e);
		if (r == 0)
			r = store_build_upsert(to, &c->builds[i], manifest, &build_ids[i], e);
		free(manifest);
		/* What the build said of itself goes with it, where the target has not heard it. */
		if (r == 0 && c->builds[i].capabilities) {
			char *recorded = NULL;
			r = store_build_capabilities(to, build_ids[i], c->builds[i].capabilities,
			                             &recorded, e);
			free(recorded);
		}
		if (r != 0)
			goto out;
	}
	if (!reopened && store_session_write_copy(to, &c->si, host_id, to_id, e) != 0)
		goto out;
	/* No row: another copy of this session committed while this one waited on it. */
	if (*to_id == 0) {
		rc = store_session_by_uuid(to, c->si.uuid, to_id, e);
		goto out;
	}
	if (store_copy_arms(to, *to_id, c->builds, build_ids, c->nb, e) != 0)
		goto out;
	for (size_t k = 0; k < c->nr; k++) {
		for (size_t i = 0; i < c->nb; i++)
			if (c->builds[i].id == c->runs[k].build_id)
				run_builds[k] = build_ids[i];
		if (run_builds[k] == 0) {
			err_setc(
			    e, ERR_CORRUPT, "%s: run %lld's build is not an arm of session %lld",
			    c->from->where, (long long)c->runs[k].id, (long long)c->session_id);
			goto out;
		}
	}
	/* A server's engine streams them; SQLite's writes them one by one, with no round trip. */
	if (to->eng->copy_begin && store_copy_runs_bulk(to, c, *to_id, run_builds, e) != 0)
		goto out;
	for (size_t k = 0; k < c->nr && !to->eng->copy_begin; k++) {
		const struct store_run *o = &c->runs[k];
		struct run_record r = {0};
		r.build_id = run_builds[k];
		r.session_id = *to_id;
		r.probe = o->probe;
		r.size = o->size;
		r.round = o->round;
		r.seq = o->seq;
		r.arm = o->arm;
		r.warmup = o->warmup;
		r.kind = o->kind;
		r.status = o->status;
		r.detail = o->detail;
		r.checksum = o->checksum;
		r.premise = o->premise;
		r.premise_text = o->premise_text;
		r.stderr_tail = o->stderr_tail;
		r.started_at = o->started_at;
		r.metrics = &o->metrics;
		r.functions = o->functions.n ? &o->functions : NULL;
		if (store_run_write(to, &r, &run_id, e) != 0)
			goto out;
	}
	if (store_sweep_write(to, *to_id, c->sweep, c->nsweep, e) != 0)
		goto out;
	/*
	 * check judges a build's minimum heap by the newest answer stored for its host (heapgate),
	 * so the answers travel with the session, or the fleet's check could not judge the cells
	 * the runner's judged.
	 */
	answers = xcalloc(c->nminheap + 1, sizeof *answers);
	for (size_t k = 0; k < c->nminheap; k++) {
		const struct store_minheap *m = &c->minheap[k];
		/* A build that is two arms (an A/A) has its answers copied once. */
		for (size_t i = 0; i < c->nb; i++)
			if (m->host_id == c->si.host_id && m->build_id == c->builds[i].id) {
				answers[nanswers++] = (struct store_minheap_out){
				    m, host_id, build_ids[i], store_minheap_ordinal(c->minheap, k)};
				break;
			}
	}
	if (store_minheaps_write_copy(to, answers, nanswers, e) != 0)
		goto out;
	*copied = reopened ? 2 : 1;
	rc = 0;
out:
	free(answers);
	free(run_builds);
	free(build_ids);
	return rc;
}

/*
 * store_session_copy and store_session_copy_in: own_txn 1 opens and commits the destination's
 * transaction here; 0 writes inside the one the caller opened (and rolls back on failure).
 */
static int store_session_copy_txn(struct store *from, int64_t session_id, struct store *to,
                                  int own_txn, int64_t *to_id, int *copied, struct err *e)
{
	struct store_copy c = {.from = from, .session_id = session_id};
	int rc = -1;

	*to_id = 0;
	*copied = 0;
	if (store_session_get(from, session_id, &c.si, e) != 0)
		goto out;
	if (strcmp(c.si.status, "running") == 0 && !c.si.elsewhere) {
		err_setc(e, ERR_BUSY,
		         "%s: session %lld is still running (pid %lld): copy it once it ends",
		         from->where, (long long)session_id, (long long)c.si.pid);
		goto out;
	}
	if (!c.si.uuid) {
		err_setc(e, ERR_CORRUPT, "%s: session %lld has no uuid", from->where,
		         (long long)session_id);
		goto out;
	}
	/*
	 * Already there: nothing to read, unless the copy there was taken while the session ran
	 * (on another host: one running here is refused above) and the source has more of it
	 * now, its end or more runs. Checked again in the transaction, against a race.
	 */
	{
		char *status = NULL;
		int64_t there = 0, here = 0;
		int r = store_copy_state(to, c.si.uuid, to_id, &status, &there, e);
		if (r == 0 && *to_id != 0 && status && strcmp(status, "running") == 0) {
			int ended = strcmp(c.si.status, "running") != 0 &&
			            strcmp(c.si.status, "abandoned") != 0;
			r = store_run_count(from, session_id, &here, e);
			c.refresh = ended || here > there;
		}
		free(status);
		if (r != 0)
			goto out;
	}
	if (*to_id != 0 && !c.refresh) {
		rc = 0;
		goto out;
	}
	/* Everything is read before the destination's transaction opens, to keep it short. */
	if (store_session_builds(from, session_id, &c.builds, &c.nb, e) != 0 ||
	    store_runs_load(from, session_id, -1, &c.runs, &c.nr, e) != 0 ||
	    store_sweep_load(from, session_id, &c.sweep, &c.nsweep, e) != 0 ||
	    store_minheap_list(from, &c.minheap, &c.nminheap, e) != 0 ||
	    store_host_facts(from, c.si.host_id, &c.facts, e) != 0)
		goto out;
	if (!own_txn) {
		if (store_copy_into(to, &c, to_id, copied, e) != 0) {
			*copied = 0;
			goto out;
		}
		rc = 0;
		goto out;
	}
	if (store_begin(to, "copying a session", e) != 0)
		goto out;
	/* A session lands whole or not at all, and one already there is left as it is. */
	if (store_copy_into(to, &c, to_id, copied, e) != 0 ||
	    (*copied && store_commit(to, "copying a session", e) != 0)) {
		*copied = 0;
		to->eng->rollback(to->conn);
		goto out;
	}
	if (!*copied)
		to->eng->rollback(to->conn);
	rc = 0;
out:
	free(c.facts);
	store_minheaps_release(c.minheap, c.nminheap);
	store_sweep_release(c.sweep, c.nsweep);
	store_runs_release(c.runs, c.nr);
	store_builds_release(c.builds, c.nb);
	store_session_release(&c.si);
	return rc;
}

int store_session_copy(struct store *from, int64_t session_id, struct store *to, int64_t *to_id,
                       int *copied, struct err *e)
{
	return store_session_copy_txn(from, session_id, to, 1, to_id, copied, e);
}

int store_session_copy_in(struct store *from, int64_t session_id, struct store *to, int64_t *to_id,
                          int *copied, struct err *e)
{
	return store_session_copy_txn(from, session_id, to, 0, to_id, copied, e);
}

/* A host of `from` by id, as store_host_copy takes it. */
static int store_host_read(struct store *from, int64_t host_id, struct store_session *si,
                           char **facts, struct err *e)
{
	struct store_query q = {0};
	int rc = -1, r;

	if (query_open(from, &q, "SELECT fingerprint, hostname, facts FROM hosts WHERE id = ?",
	               "reading a host", e) != 0)
		goto out;
	query_int64(&q, host_id);
	if ((r = query_step(&q, e)) < 0)
		goto out;
	if (r == 0) {
		err_setc(e, ERR_CORRUPT, "%s: no host %lld", from->where, (long long)host_id);
		goto out;
	}
	si->host_fingerprint = col_text(&q, 0);
	si->hostname = col_text(&q, 1);
	*facts = col_text(&q, 2);
	rc = 0;
out:
	query_close(&q);
	return rc;
}

/* A build of `from` by id, with its manifest, as store_build_upsert takes it. */
static int store_build_read(struct store *from, int64_t build_id, struct store_build *b,
                            char **manifest, struct err *e)
{
	struct store_query q = {0};
	int rc = -1, r;

	if (query_open(from, &q,
	               "SELECT name, collector, collector_version, git_commit, dir, manifest_hash,"
	               " manifest, capabilities FROM builds WHERE id = ?",
	               "reading a build", e) != 0)
		goto out;
	query_int64(&q, build_id);
	if ((r = query_step(&q, e)) < 0)
		goto out;
	if (r == 0) {
		err_setc(e, ERR_CORRUPT, "%s: no build %lld", from->where, (long long)build_id);
		goto out;
	}
	b->id = build_id;
	b->name = col_text(&q, 0);
	b->collector = col_text(&q, 1);
	b->collector_version = col_text(&q, 2);
	b->git_commit = col_text(&q, 3);
	b->dir = col_text(&q, 4);
	b->manifest_hash = col_text(&q, 5);
	*manifest = col_text(&q, 6);
	b->capabilities = col_text(&q, 7);
	rc = 0;
out:
	query_close(&q);
	return rc;
}

/* Build build_id of `from`, found or added in `to` (store_build_upsert); *to_id its id there. */
static int store_build_copy(struct store *from, int64_t build_id, struct store *to, int64_t *to_id,
                            struct err *e)
{
	struct store_build b = {0};
	char *manifest = NULL;
	int r = store_build_read(from, build_id, &b, &manifest, e);

	if (r == 0)
		r = store_build_upsert(to, &b, manifest, to_id, e);
	store_build_release(&b);
	free(manifest);
	return r;
}

/*
 * Each host and build of the answers is read and recorded once, however many answers name it,
 * and the answers go together (store_minheaps_write_copy).
 */
int store_minheaps_copy_in(struct store *from, struct store *to, size_t *n, struct err *e)
{
	struct store_minheap *m = NULL;
	struct store_minheap_out *out = NULL;
	size_t nm = 0;
	int rc = -1;

	*n = 0;
	if (store_minheap_list(from, &m, &nm, e) != 0)
		return -1;
	out = xcalloc(nm + 1, sizeof *out);
	for (size_t k = 0; k < nm; k++) {
		int r = 0;

		out[k].m = &m[k];
		out[k].ordinal = store_minheap_ordinal(m, k);
		for (size_t j = 0; j < k && !out[k].host_id; j++)
			if (m[j].host_id == m[k].host_id)
				out[k].host_id = out[j].host_id;
		for (size_t j = 0; j < k && !out[k].build_id; j++)
			if (m[j].build_id == m[k].build_id)
				out[k].build_id = out[j].build_id;
		if (!out[k].host_id) {
			struct store_session si = {0};
			char *facts = NULL;

			r = store_host_read(from, m[k].host_id, &si, &facts, e);
			if (r == 0)
				r = store_host_copy(to, &si, facts, &out[k].host_id, e);
			free(facts);
			free(si.host_fingerprint);
			free(si.hostname);
		}
		if (r == 0 && !out[k].build_id)
			r = store_build_copy(from, m[k].build_id, to, &out[k].build_id, e);
		if (r != 0)
			goto out;
	}
	if (store_minheaps_write_copy(to, out, nm, e) != 0)
		goto out;
	*n = nm;
	rc = 0;
out:
	free(out);
	store_minheaps_release(m, nm);
	return rc;
}

/* ---- Tables of other modules in a store's database (store_sql) -------------------------- */

struct store_sql {
	struct store_query q;
};

const char *store_engine_name(const struct store *s)
{
	return s->eng->name;
}

int store_sql_exec(struct store *s, const char *sql, const char *what, struct err *e)
{
	return store_exec(s, sql, what, e);
}

int store_sql_begin(struct store *s, const char *what, struct err *e)
{
	return store_begin(s, what, e);
}

int store_sql_commit(struct store *s, const char *what, struct err *e)
{
	return store_commit(s, what, e);
}

void store_sql_rollback(struct store *s)
{
	s->eng->rollback(s->conn);
}

int store_sql_open(struct store *s, const char *sql, const char *what, struct store_sql **out,
                   struct err *e)
{
	struct store_sql *q = xcalloc(1, sizeof *q);

	*out = NULL;
	if (query_open(s, &q->q, sql, what, e) != 0) {
		free(q);
		return -1;
	}
	*out = q;
	return 0;
}

void store_sql_int64(struct store_sql *q, int64_t v)
{
	query_int64(&q->q, v);
}

void store_sql_text(struct store_sql *q, const char *v)
{
	query_text(&q->q, v);
}

int store_sql_step(struct store_sql *q, struct err *e)
{
	return query_step(&q->q, e);
}

int store_sql_reset(struct store_sql *q, struct err *e)
{
	return query_reset(&q->q, e);
}

int store_sql_null(struct store_sql *q, int i)
{
	return q->q.s->eng->column_null(q->q.st, i);
}

int64_t store_sql_col_int64(struct store_sql *q, int i)
{
	return col_int64(&q->q, i);
}

const char *store_sql_col_text(struct store_sql *q, int i)
{
	return col_peek(&q->q, i);
}

void store_sql_close(struct store_sql *q)
{
	if (!q)
		return;
	query_close(&q->q);
	free(q);
}

/* ---- History ------------------------------------------------------------------------------ */

static void store_history_point_release(struct store_history_point *p)
{
	free(p->started_at);
	free(p->hostname);
	free(p->size);
	free(p->build);
	free(p->label);
	free(p->git_commit);
	free(p->collector_version);
	free(p->manifest_hash);
	free(p->values);
}

/* The arms a history may draw from: FROM ... JOIN ... ARMS_JOIN ... ARMS_WHERE. */
#define STORE_HISTORY_FROM                                            \
	" FROM builds b JOIN session_builds sb ON sb.build_id = b.id" \
	" JOIN sessions s ON s.id = sb.session_id"
#define STORE_HISTORY_WHERE                                                         \
	" WHERE b.collector = ? AND (CAST(? AS TEXT) IS NULL OR s.started_at >= ?)" \
	" AND (CAST(? AS TEXT) IS NULL OR s.size = ?)"
#define STORE_HISTORY_ORDER " ORDER BY s.started_at, s.id, sb.position"

static void store_history_bind(struct store_query *q, const char *collector, const char *since,
                               const char *size)
{
	query_text(q, collector);
	query_text(q, since);
	query_text(q, since);
	query_text(q, size);
	query_text(q, size);
}

/* Each name of q's first column not in out yet, appended; q is closed. */
static int store_distinct_names(struct store_query *q, struct strlist *out, struct err *e)
{
	int r;

	while ((r = query_step(q, e)) > 0) {
		const char *name = col_peek(q, 0);
		if (name && !strlist_contains(out, name))
			strlist_push(out, name);
	}
	query_close(q);
	return r == 0 ? 0 : -1;
}

int store_history_probes(struct store *s, const char *collector, struct strlist *out, struct err *e)
{
	struct store_query q = {0};

	if (query_open(s, &q,
	               "SELECT DISTINCT r.probe" STORE_HISTORY_FROM
	               " JOIN runs r ON r.session_id = s.id AND r.arm = sb.position"
	               " WHERE b.collector = ? ORDER BY r.probe",
	               "reading the history's probes", e) != 0)
		return -1;
	query_text(&q, collector);
	return store_distinct_names(&q, out, e);
}

int store_history_collectors(struct store *s, struct strlist *out, struct err *e)
{
	struct store_query q = {0};

	if (query_open(s, &q,
	               "SELECT DISTINCT b.collector FROM builds b"
	               " JOIN session_builds sb ON sb.build_id = b.id ORDER BY b.collector",
	               "reading the collectors", e) != 0)
		return -1;
	return store_distinct_names(&q, out, e);
}

int store_history(struct store *s, const char *collector, const char *probe, const char *metric,
                  const char *since, const char *size, struct store_history_point **out, size_t *n,
                  struct err *e)
{
	struct store_query arms = {0}, vals = {0};
	struct store_history_point *pts = NULL;
	int64_t *keys = NULL; /* each point's session id and arm position, in pairs */
	size_t count = 0, cap = 0, k = 0, kept = 0;
	int rc = -1, r;

	*out = NULL;
	*n = 0;
	/*
	 * Two queries in one order (session start, id, arm): the arms with what the table says
	 * of them, then the values alone, so the many samples of a long history carry no text.
	 */
	if (query_open(
	        s, &arms,
	        "SELECT s.id, sb.position, s.started_at, h.hostname, s.size, b.name,"
	        " sb.label, b.git_commit, b.collector_version, b.manifest_hash" STORE_HISTORY_FROM
	        " JOIN hosts h ON h.id = s.host_id" STORE_HISTORY_WHERE STORE_HISTORY_ORDER,
	        "reading the history", e) != 0 ||
	    query_open(s, &vals,
	               "SELECT s.id, sb.position, x.value, r.id" STORE_HISTORY_FROM
	               " JOIN runs r ON r.session_id = s.id AND r.arm = sb.position"
	               " JOIN samples x ON x.run_id = r.id" STORE_HISTORY_WHERE
	               " AND r.probe = ? AND x.metric = ? AND r.status = 'ok' AND r.warmup = 0"
	               " AND r.kind IN ('timed', 'valgrind')" STORE_HISTORY_ORDER ", r.id",
	               "reading the history", e) != 0)
		goto out;
	store_history_bind(&arms, collector, since, size);
	while ((r = query_step(&arms, e)) > 0) {
		struct store_history_point *p;
		if (count == cap) {
			cap = cap ? cap * 2 : 32;
			pts = xrealloc(pts, cap * sizeof *pts);
			keys = xrealloc(keys, 2 * cap * sizeof *keys);
		}
		p = &pts[count];
		memset(p, 0, sizeof *p);
		keys[2 * count] = col_int64(&arms, 0);
		keys[2 * count + 1] = col_int64(&arms, 1);
		p->session_id = keys[2 * count];
		p->started_at = col_text(&arms, 2);
		p->hostname = col_text(&arms, 3);
		p->size = col_text(&arms, 4);
		p->build = col_text(&arms, 5);
		p->label = col_text(&arms, 6);
		p->git_commit = col_text(&arms, 7);
		p->collector_version = col_text(&arms, 8);
		p->manifest_hash = col_text(&arms, 9);
		count++;
	}
	if (r < 0)
		goto out;
	store_history_bind(&vals, collector, since, size);
	query_text(&vals, probe);
	query_text(&vals, metric);
	while ((r = query_step(&vals, e)) > 0) {
		int64_t session = col_int64(&vals, 0), arm = col_int64(&vals, 1);
		struct store_history_point *p;
		double v;
		/* The same order: a value's arm is this point or a later one. */
		while (k < count && (keys[2 * k] != session || keys[2 * k + 1] != arm))
			k++;
		if (k == count) {
			err_setc(e, ERR_FAILED,
			         "%s: reading the history: session %lld arm %lld out of order",
			         s->where, (long long)session, (long long)arm);
			goto out;
		}
		if (col_sample(&vals, 2, col_int64(&vals, 3), RUN_KIND_TIMED, metric, &v, e) != 0)
			goto out;
		p = &pts[k];
		p->values = xrealloc(p->values, (p->n + 1) * sizeof *p->values);
		p->values[p->n++] = v;
	}
	if (r < 0)
		goto out;
	/* Arms that never measured the probe's metric are not points. */
	for (size_t i = 0; i < count; i++) {
		if (pts[i].n == 0)
			store_history_point_release(&pts[i]);
		else
			pts[kept++] = pts[i];
	}
	*out = pts;
	*n = kept;
	pts = NULL;
	count = 0;
	rc = 0;
out:
	query_close(&vals);
	query_close(&arms);
	store_history_release(pts, count);
	free(keys);
	return rc;
}

void store_history_release(struct store_history_point *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_history_point_release(&p[i]);
	free(p);
}

/* ---- Minimum heaps ------------------------------------------------------------------------- */

/* Writes one search's answer, inside the caller's transaction. */
static int store_minheap_write(struct store *s, const struct store_minheap_record *m, struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	if (query_open(s, &q,
	               "INSERT INTO minheap(host_id, build_id, probe, size, started_at, command,"
	               " outcome, min_heap_mb, lo_mb, step_mb, repeats, runs, unlimited_peak_bytes,"
	               " checksum, detail) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	               "storing a minimum heap", e) != 0)
		goto out;
	query_int64(&q, m->host_id);
	query_int64(&q, m->build_id);
	query_text(&q, m->probe);
	query_text(&q, m->size);
	query_text(&q, m->started_at);
	query_command(&q, m->command);
	query_text(&q, m->outcome);
	query_int64(&q, m->min_heap_mb);
	query_int64(&q, m->lo_mb);
	query_int64(&q, m->step_mb);
	query_int64(&q, m->repeats);
	query_int64(&q, m->runs);
	if (m->unlimited_peak_bytes >= 0)
		query_int64(&q, m->unlimited_peak_bytes);
	else
		query_text(&q, NULL);
	query_text(&q, m->checksum);
	query_text(&q, m->detail);
	rc = query_done(&q, e);
out:
	query_close(&q);
	return rc;
}

int store_minheap_insert(struct store *s, const struct store_minheap_record *m, struct err *e)
{
	if (store_begin(s, "storing a minimum heap", e) != 0)
		return -1;
	if (store_minheap_write(s, m, e) != 0 ||
	    store_commit(s, "storing a minimum heap", e) != 0) {
		s->eng->rollback(s->conn);
		return -1;
	}
	return 0;
}

/*
 * Copies a search's answer read from another store, for the host and build ids it has here,
 * inside the caller's transaction, unless this store holds it already (the same host, build,
 * probe, size and start): pushing twice stores it once.
 */
static int store_minheap_copy(struct store *s, const struct store_minheap *m, int64_t host_id,
                              int64_t build_id, int64_t ordinal, struct err *e)
{
	struct store_query q = {0};
	struct store_minheap_record r = {
	    .host_id = host_id,
	    .build_id = build_id,
	    .probe = m->probe,
	    .size = m->size,
	    .started_at = m->started_at,
	    .command = m->command,
	    .outcome = m->outcome,
	    .min_heap_mb = m->min_heap_mb,
	    .lo_mb = m->lo_mb,
	    .step_mb = m->step_mb,
	    .repeats = m->repeats,
	    .runs = m->runs,
	    .unlimited_peak_bytes = m->unlimited_peak_bytes,
	    .checksum = m->checksum,
	    .detail = m->detail,
	};
	int64_t there = 0;
	int rc = -1;

	if (query_open(s, &q,
	               "SELECT count(*) FROM minheap WHERE host_id = ? AND build_id = ?"
	               " AND probe = ? AND size = ? AND started_at = ?",
	               "copying a minimum heap", e) != 0)
		goto out;
	query_int64(&q, host_id);
	query_int64(&q, build_id);
	query_text(&q, m->probe);
	query_text(&q, m->size);
	query_text(&q, m->started_at);
	if (query_id(&q, &there, e) != 0)
		goto out;
	rc = there > ordinal ? 0 : store_minheap_write(s, &r, e);
out:
	query_close(&q);
	return rc;
}

/*
 * Copies answers read from another store, each by store_minheap_copy's rule, inside the
 * caller's transaction. An engine with bulk writing (store_engine.h) gets them in one stream
 * into a table of this transaction's own, from which one statement takes those this store
 * lacks (the same count against the same ordinal, for all of them at once): answers of any
 * number cost a server the same four round trips, where each was two.
 */
static int store_minheaps_write_copy(struct store *s, const struct store_minheap_out *a, size_t n,
                                     struct err *e)
{
	const struct store_engine *g = s->eng;
	const char *what = "copying minimum heaps";
	int streaming = 0;

	if (n == 0)
		return 0;
	if (!g->copy_begin) {
		for (size_t k = 0; k < n; k++)
			if (store_minheap_copy(s, a[k].m, a[k].host_id, a[k].build_id, a[k].ordinal,
			                       e) != 0)
				return -1;
		return 0;
	}
	if (store_exec(
	        s,
	        "CREATE TEMP TABLE minheap_copy(ordinal INTEGER NOT NULL,"
	        " host_id INTEGER NOT NULL, build_id INTEGER NOT NULL, probe TEXT NOT NULL,"
	        " size TEXT NOT NULL, started_at TEXT NOT NULL, command TEXT,"
	        " outcome TEXT NOT NULL, min_heap_mb INTEGER NOT NULL, lo_mb INTEGER NOT NULL,"
	        " step_mb INTEGER NOT NULL, repeats INTEGER NOT NULL, runs INTEGER NOT NULL,"
	        " unlimited_peak_bytes INTEGER, checksum TEXT, detail TEXT)",
	        what, e) != 0)
		return -1;
	if (g->copy_begin(s->conn, "minheap_copy",
	                  "ordinal, host_id, build_id, probe, size, started_at, command, outcome,"
	                  " min_heap_mb, lo_mb, step_mb, repeats, runs, unlimited_peak_bytes,"
	                  " checksum, detail",
	                  e) != 0)
		goto fail;
	streaming = 1;
	for (size_t k = 0; k < n; k++) {
		const struct store_minheap *m = a[k].m;
		char *command = store_command_redact(m->command);

		g->copy_int64(s->conn, a[k].ordinal);
		g->copy_int64(s->conn, a[k].host_id);
		g->copy_int64(s->conn, a[k].build_id);
		copy_text(s, m->probe);
		copy_text(s, m->size);
		copy_text(s, m->started_at);
		copy_text(s, command);
		copy_text(s, m->outcome);
		g->copy_int64(s->conn, m->min_heap_mb);
		g->copy_int64(s->conn, m->lo_mb);
		g->copy_int64(s->conn, m->step_mb);
		g->copy_int64(s->conn, m->repeats);
		g->copy_int64(s->conn, m->runs);
		if (m->unlimited_peak_bytes >= 0)
			g->copy_int64(s->conn, m->unlimited_peak_bytes);
		else
			copy_text(s, NULL);
		copy_text(s, m->checksum);
		copy_text(s, m->detail);
		free(command);
		if (g->copy_row(s->conn, e) != 0)
			goto fail;
	}
	streaming = 0;
	if (g->copy_end(s->conn, NULL, e) != 0)
		goto fail;
	/*
	 * One statement sees the counts from before it, as each row's ordinal assumes: the second
	 * of two identical answers is taken where the destination holds one.
	 */
	if (store_exec(s,
	               "INSERT INTO minheap(host_id, build_id, probe, size, started_at, command,"
	               " outcome, min_heap_mb, lo_mb, step_mb, repeats, runs,"
	               " unlimited_peak_bytes, checksum, detail)"
	               " SELECT c.host_id, c.build_id, c.probe, c.size, c.started_at, c.command,"
	               " c.outcome, c.min_heap_mb, c.lo_mb, c.step_mb, c.repeats, c.runs,"
	               " c.unlimited_peak_bytes, c.checksum, c.detail FROM minheap_copy c"
	               " WHERE c.ordinal >= (SELECT count(*) FROM minheap m"
	               " WHERE m.host_id = c.host_id AND m.build_id = c.build_id"
	               " AND m.probe = c.probe AND m.size = c.size"
	               " AND m.started_at = c.started_at)",
	               what, e) != 0 ||
	    store_exec(s, "DROP TABLE minheap_copy", what, e) != 0)
		return -1;
	return 0;
fail:
	if (streaming)
		store_copy_abort(s);
	return store_fail(s, e, what);
}

int store_minheap_list(struct store *s, struct store_minheap **out, size_t *n, struct err *e)
{
	struct store_query q = {0};
	struct store_minheap *rows = NULL;
	size_t count = 0;
	int r, rc = -1;

	*out = NULL;
	*n = 0;
	if (query_open(s, &q,
	               "SELECT m.host_id, m.build_id, b.name, m.probe, m.size, m.started_at,"
	               " m.command, m.outcome, m.checksum, m.detail, m.min_heap_mb, m.lo_mb,"
	               " m.step_mb, m.repeats, m.runs, m.unlimited_peak_bytes"
	               " FROM minheap m JOIN builds b ON b.id = m.build_id"
	               " ORDER BY m.started_at, b.name, m.probe, m.size",
	               "reading minimum heaps", e) != 0)
		goto out;
	while ((r = query_step(&q, e)) == 1) {
		struct store_minheap *m;

		rows = xrealloc(rows, (count + 1) * sizeof *rows);
		m = &rows[count++];
		m->host_id = col_int64(&q, 0);
		m->build_id = col_int64(&q, 1);
		m->build = col_text(&q, 2);
		m->probe = col_text(&q, 3);
		m->size = col_text(&q, 4);
		m->started_at = col_text(&q, 5);
		m->command = store_command_redact(col_peek(&q, 6));
		m->outcome = col_text(&q, 7);
		m->checksum = col_text(&q, 8);
		m->detail = col_text(&q, 9);
		m->min_heap_mb = col_int64(&q, 10);
		m->lo_mb = col_int64(&q, 11);
		m->step_mb = col_int64(&q, 12);
		m->repeats = col_int64(&q, 13);
		m->runs = col_int64(&q, 14);
		m->unlimited_peak_bytes = col_peek(&q, 15) ? col_int64(&q, 15) : -1;
	}
	if (r < 0)
		goto out;
	*out = rows;
	*n = count;
	rows = NULL;
	count = 0;
	rc = 0;
out:
	query_close(&q);
	store_minheaps_release(rows, count);
	return rc;
}

void store_minheaps_release(struct store_minheap *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].build);
		free(m[i].probe);
		free(m[i].size);
		free(m[i].started_at);
		free(m[i].command);
		free(m[i].outcome);
		free(m[i].checksum);
		free(m[i].detail);
	}
	free(m);
}

/* ---- Sweeps -------------------------------------------------------------------------------- */

/*
 * A sweep's cells in one stream, for an engine with bulk writing (store_engine.h): a sweep of
 * any number of arms and probes costs a server the same two round trips.
 */
static int store_sweep_write_bulk(struct store *s, int64_t session_id,
                                  const struct store_sweep_cell *c, size_t n, struct err *e)
{
	const struct store_engine *g = s->eng;

	if (g->copy_begin(s->conn, "sweep_cells",
	                  "session_id, arm, probe, factor, heap_mb, reference_build, reference_mb",
	                  e) != 0)
		return store_fail(s, e, "storing a sweep's heap sizes");
	for (size_t i = 0; i < n; i++) {
		g->copy_int64(s->conn, session_id);
		g->copy_int64(s->conn, c[i].arm);
		copy_text(s, c[i].probe);
		g->copy_double(s->conn, c[i].factor);
		g->copy_int64(s->conn, c[i].heap_mb);
		copy_text(s, c[i].reference_build);
		g->copy_int64(s->conn, c[i].reference_mb);
		if (g->copy_row(s->conn, e) != 0) {
			store_copy_abort(s);
			return store_fail(s, e, "storing a sweep's heap sizes");
		}
	}
	if (g->copy_end(s->conn, NULL, e) != 0)
		return store_fail(s, e, "storing a sweep's heap sizes");
	return 0;
}

/* Writes a sweep's cells for a session, inside the caller's transaction. */
static int store_sweep_write(struct store *s, int64_t session_id, const struct store_sweep_cell *c,
                             size_t n, struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	if (n > 0 && s->eng->copy_begin)
		return store_sweep_write_bulk(s, session_id, c, n, e);
	for (size_t i = 0; i < n; i++) {
		if (query_open(s, &q,
		               "INSERT INTO sweep_cells(session_id, arm, probe, factor, heap_mb,"
		               " reference_build, reference_mb) VALUES(?, ?, ?, ?, ?, ?, ?)",
		               "storing a sweep's heap sizes", e) != 0)
			goto out;
		query_int64(&q, session_id);
		query_int64(&q, c[i].arm);
		query_text(&q, c[i].probe);
		query_double(&q, c[i].factor);
		query_int64(&q, c[i].heap_mb);
		query_text(&q, c[i].reference_build);
		query_int64(&q, c[i].reference_mb);
		if (query_done(&q, e) != 0)
			goto out;
		query_close(&q);
	}
	rc = 0;
out:
	query_close(&q);
	return rc;
}

int store_sweep_insert(struct store *s, int64_t session_id, const struct store_sweep_cell *c,
                       size_t n, struct err *e)
{
	if (store_begin(s, "storing a sweep's heap sizes", e) != 0)
		return -1;
	if (store_sweep_write(s, session_id, c, n, e) != 0 ||
	    store_commit(s, "storing a sweep's heap sizes", e) != 0) {
		s->eng->rollback(s->conn);
		return -1;
	}
	return 0;
}

int store_sweep_load(struct store *s, int64_t session_id, struct store_sweep_cell **out, size_t *n,
                     struct err *e)
{
	struct store_query q = {0};
	struct store_sweep_cell *rows = NULL;
	size_t count = 0;
	int r, rc = -1;

	*out = NULL;
	*n = 0;
	if (query_open(s, &q,
	               "SELECT arm, probe, factor, heap_mb, reference_build, reference_mb"
	               " FROM sweep_cells WHERE session_id = ? ORDER BY arm, probe",
	               "reading a sweep's heap sizes", e) != 0)
		goto out;
	query_int64(&q, session_id);
	while ((r = query_step(&q, e)) == 1) {
		struct store_sweep_cell *c;

		rows = xrealloc(rows, (count + 1) * sizeof *rows);
		c = &rows[count++];
		c->arm = (int)col_int64(&q, 0);
		c->probe = col_text(&q, 1);
		c->factor = col_double(&q, 2);
		c->heap_mb = col_int64(&q, 3);
		c->reference_build = col_text(&q, 4);
		c->reference_mb = col_int64(&q, 5);
	}
	if (r < 0)
		goto out;
	*out = rows;
	*n = count;
	rows = NULL;
	count = 0;
	rc = 0;
out:
	query_close(&q);
	store_sweep_release(rows, count);
	return rc;
}

void store_sweep_release(struct store_sweep_cell *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].probe);
		free(c[i].reference_build);
	}
	free(c);
}

/* ---- Bisects ------------------------------------------------------------------------------- */

int store_bisect_begin(struct store *s, const struct store_bisect_record *b, int64_t *id,
                       struct err *e)
{
	struct store_query q = {0};
	int64_t last = 0;
	int rc = -1;

	*id = 0;
	if (store_begin(s, "storing a bisect", e) != 0)
		return -1;
	/* The id is given here, inside the write transaction, so two writers cannot share one. */
	if (query_open(s, &q, "SELECT COALESCE(MAX(id), 0) FROM bisects", "storing a bisect", e) !=
	        0 ||
	    query_id(&q, &last, e) != 0)
		goto out;
	query_close(&q);
	if (query_open(s, &q,
	               "INSERT INTO bisects(id, started_at, status, pid, command, source, repo,"
	               " target, build_options, good, bad, commits, probes, metric, size,"
	               " improved, threshold_pct, threshold_abs, rounds, max_rounds, warmup)"
	               " VALUES(?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
	               " ?, ?)",
	               "storing a bisect", e) != 0)
		goto out;
	query_int64(&q, last + 1);
	query_text(&q, b->started_at);
	query_int64(&q, (int64_t)getpid());
	query_command(&q, b->command);
	query_text(&q, b->source);
	query_text(&q, b->repo);
	query_text(&q, b->target);
	query_text(&q, b->build_options);
	query_text(&q, b->good);
	query_text(&q, b->bad);
	query_text(&q, b->commits);
	query_text(&q, b->probes);
	query_text(&q, b->metric);
	query_text(&q, b->size);
	query_int64(&q, b->improved ? 1 : 0);
	query_double(&q, b->threshold_pct);
	query_double(&q, b->threshold_abs);
	query_int64(&q, b->rounds);
	query_int64(&q, b->max_rounds);
	query_int64(&q, b->warmup);
	if (query_done(&q, e) != 0 || store_commit(s, "storing a bisect", e) != 0)
		goto out;
	*id = last + 1;
	rc = 0;
out:
	query_close(&q);
	if (rc != 0)
		s->eng->rollback(s->conn);
	return rc;
}

int store_bisect_update(struct store *s, int64_t id, const char *status, const char *mode,
                        const char *first_bad, const char *detail, struct err *e)
{
	struct store_query q = {0};
	char when[32];
	int rc = -1, running = strcmp(status, "running") == 0;

	format_utc(now_real_ns(), when, sizeof when);
	if (query_open(s, &q,
	               "UPDATE bisects SET status = ?, finished_at = ?, pid = COALESCE(?, pid),"
	               " mode = COALESCE(?, mode), first_bad = COALESCE(?, first_bad),"
	               " detail = COALESCE(?, detail) WHERE id = ?",
	               "updating a bisect", e) != 0)
		goto out;
	query_text(&q, status);
	query_text(&q, running ? NULL : when);
	if (running)
		query_int64(&q, (int64_t)getpid());
	else
		query_text(&q, NULL);
	query_text(&q, mode);
	query_text(&q, first_bad);
	query_text(&q, detail);
	query_int64(&q, id);
	rc = query_done(&q, e);
out:
	query_close(&q);
	return rc;
}

#define STORE_BISECT_COLUMNS                                                                      \
	"id, pid, started_at, finished_at, status, command, source, repo, target, build_options," \
	" good, bad, commits, probes, metric, size, improved, threshold_pct, threshold_abs,"      \
	" rounds, max_rounds, warmup, mode, first_bad, detail"

int store_bisect_get(struct store *s, int64_t id, struct store_bisect *out, struct err *e)
{
	struct store_query q = {0};
	int r, rc = -1;

	memset(out, 0, sizeof *out);
	if (query_open(s, &q, "SELECT " STORE_BISECT_COLUMNS " FROM bisects WHERE id = ?",
	               "reading a bisect", e) != 0)
		goto out;
	query_int64(&q, id);
	if ((r = query_step(&q, e)) < 0)
		goto out;
	if (r == 0) {
		rc = err_setc(e, ERR_NOT_FOUND, "%s: no bisect %lld", s->where, (long long)id);
		goto out;
	}
	out->id = col_int64(&q, 0);
	out->pid = q.s->eng->column_null(q.st, 1) ? 0 : col_int64(&q, 1);
	out->started_at = col_text(&q, 2);
	out->finished_at = col_text(&q, 3);
	out->status = col_text(&q, 4);
	out->command = store_command_redact(col_peek(&q, 5));
	out->source = col_text(&q, 6);
	out->repo = col_text(&q, 7);
	out->target = col_text(&q, 8);
	out->build_options = col_text(&q, 9);
	out->good = col_text(&q, 10);
	out->bad = col_text(&q, 11);
	out->commits = col_text(&q, 12);
	out->probes = col_text(&q, 13);
	out->metric = col_text(&q, 14);
	out->size = col_text(&q, 15);
	out->improved = col_int64(&q, 16) != 0;
	out->threshold_pct = col_double(&q, 17);
	out->threshold_abs = col_double(&q, 18);
	out->rounds = col_int64(&q, 19);
	out->max_rounds = col_int64(&q, 20);
	out->warmup = col_int64(&q, 21);
	out->mode = col_text(&q, 22);
	out->first_bad = col_text(&q, 23);
	out->detail = col_text(&q, 24);
	rc = 0;
out:
	query_close(&q);
	if (rc != 0)
		store_bisect_release(out);
	return rc;
}

int store_bisect_latest_open(struct store *s, int64_t *id, struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	*id = 0;
	if (query_open(s, &q,
	               "SELECT id FROM bisects WHERE status IN ('running', 'interrupted')"
	               " ORDER BY id DESC LIMIT 1",
	               "reading bisects", e) != 0)
		goto out;
	rc = query_id(&q, id, e);
out:
	query_close(&q);
	return rc;
}

void store_bisect_release(struct store_bisect *b)
{
	free(b->started_at);
	free(b->finished_at);
	free(b->status);
	free(b->command);
	free(b->source);
	free(b->repo);
	free(b->target);
	free(b->build_options);
	free(b->good);
	free(b->bad);
	free(b->commits);
	free(b->probes);
	free(b->metric);
	free(b->size);
	free(b->mode);
	free(b->first_bad);
	free(b->detail);
	memset(b, 0, sizeof *b);
}

int store_bisect_step_insert(struct store *s, const struct store_bisect_step *st, struct err *e)
{
	struct store_query q = {0};
	int rc = -1;

	if (query_open(s, &q,
	               "INSERT INTO bisect_steps(bisect_id, seq, role, commit_hash, subject,"
	               " decision, reason, build_id, build_dir, sessions, figures, build_s,"
	               " measure_s, started_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	               "storing a bisect step", e) != 0)
		goto out;
	query_int64(&q, st->bisect_id);
	query_int64(&q, st->seq);
	query_text(&q, st->role);
	query_text(&q, st->commit);
	query_text(&q, st->subject);
	query_text(&q, st->decision);
	query_text(&q, st->reason);
	if (st->build_id > 0)
		query_int64(&q, st->build_id);
	else
		query_text(&q, NULL);
	query_text(&q, st->build_dir);
	query_text(&q, st->sessions);
	query_text(&q, st->figures);
	query_double(&q, st->build_s);
	query_double(&q, st->measure_s);
	query_text(&q, st->started_at);
	rc = query_done(&q, e);
out:
	query_close(&q);
	return rc;
}

int store_bisect_steps(struct store *s, int64_t bisect_id, struct store_bisect_step **out,
                       size_t *n, struct err *e)
{
	struct store_query q = {0};
	struct store_bisect_step *rows = NULL;
	size_t count = 0;
	int r, rc = -1;

	*out = NULL;
	*n = 0;
	if (query_open(s, &q,
	               "SELECT seq, role, commit_hash, subject, decision, reason, build_id,"
	               " build_dir, sessions, figures, build_s, measure_s, started_at"
	               " FROM bisect_steps WHERE bisect_id = ? ORDER BY seq",
	               "reading a bisect's steps", e) != 0)
		goto out;
	query_int64(&q, bisect_id);
	while ((r = query_step(&q, e)) == 1) {
		struct store_bisect_step *st;

		rows = xrealloc(rows, (count + 1) * sizeof *rows);
		st = &rows[count++];
		memset(st, 0, sizeof *st);
		st->bisect_id = bisect_id;
		st->seq = (int)col_int64(&q, 0);
		st->role = col_text(&q, 1);
		st->commit = col_text(&q, 2);
		st->subject = col_text(&q, 3);
		st->decision = col_text(&q, 4);
		st->reason = col_text(&q, 5);
		st->build_id = q.s->eng->column_null(q.st, 6) ? 0 : col_int64(&q, 6);
		st->build_dir = col_text(&q, 7);
		st->sessions = col_text(&q, 8);
		st->figures = col_text(&q, 9);
		st->build_s = col_double(&q, 10);
		st->measure_s = col_double(&q, 11);
		st->started_at = col_text(&q, 12);
	}
	if (r < 0)
		goto out;
	*out = rows;
	*n = count;
	rows = NULL;
	count = 0;
	rc = 0;
out:
	query_close(&q);
	store_bisect_steps_release(rows, count);
	return rc;
}

/* A scratch session id of a step's list ("3 4") as the destination's, by the caller's map. */
static char *store_bisect_map_sessions(const char *list, const int64_t *from_ids,
                                       const int64_t *to_ids, size_t n, int *ok)
{
	struct sbuf b;
	const char *p = list;
	char *text;

	sbuf_init(&b);
	*ok = 1;
	while (p && *p) {
		char *end;
		long long v = strtoll(p, &end, 10);
		size_t k = 0;
		if (end == p)
			break;
		while (k < n && from_ids[k] != v)
			k++;
		if (k == n)
			*ok = 0;
		else
			sbuf_addf(&b, "%s%lld", b.len ? " " : "", (long long)to_ids[k]);
		p = end;
		while (*p == ' ')
			p++;
	}
	text = b.len ? sbuf_detach(&b) : NULL;
	sbuf_release(&b);
	return text;
}

int store_bisect_copy_in(struct store *from, int64_t id, struct store *to,
                         const int64_t *from_sessions, const int64_t *to_sessions, size_t n,
                         int64_t *to_id, struct err *e)
{
	struct store_bisect b = {0};
	struct store_bisect_step *steps = NULL;
	struct store_query q = {0};
	size_t nsteps = 0;
	int64_t last = 0;
	int rc = -1;

	*to_id = 0;
	if (store_bisect_get(from, id, &b, e) != 0 ||
	    store_bisect_steps(from, id, &steps, &nsteps, e) != 0)
		goto out;
	if (query_open(to, &q, "SELECT COALESCE(MAX(id), 0) FROM bisects", "copying a bisect", e) !=
	        0 ||
	    query_id(&q, &last, e) != 0)
		goto out;
	query_close(&q);
	if (query_open(to, &q,
	               "INSERT INTO bisects(id, started_at, finished_at, status, pid, command,"
	               " source, repo, target, build_options, good, bad, commits, probes, metric,"
	               " size, improved, threshold_pct, threshold_abs, rounds, max_rounds, warmup,"
	               " mode, first_bad, detail)"
	               " VALUES(?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
	               " ?, ?, ?, ?)",
	               "copying a bisect", e) != 0)
		goto out;
	query_int64(&q, last + 1);
	query_text(&q, b.started_at);
	query_text(&q, b.finished_at);
	query_text(&q, b.status);
	query_text(&q, b.command);
	query_text(&q, b.source);
	query_text(&q, b.repo);
	query_text(&q, b.target);
	query_text(&q, b.build_options);
	query_text(&q, b.good);
	query_text(&q, b.bad);
	query_text(&q, b.commits);
	query_text(&q, b.probes);
	query_text(&q, b.metric);
	query_text(&q, b.size);
	query_int64(&q, b.improved ? 1 : 0);
	query_double(&q, b.threshold_pct);
	query_double(&q, b.threshold_abs);
	query_int64(&q, b.rounds);
	query_int64(&q, b.max_rounds);
	query_int64(&q, b.warmup);
	query_text(&q, b.mode);
	query_text(&q, b.first_bad);
	query_text(&q, b.detail);
	if (query_done(&q, e) != 0)
		goto out;
	query_close(&q);
	for (size_t i = 0; i < nsteps; i++) {
		struct store_bisect_step st = steps[i];
		char *sessions = NULL;
		int ok = 1, r = 0;
		st.bisect_id = last + 1;
		/* A step's build and sessions by the destination's ids. */
		if (steps[i].build_id > 0) {
			int64_t build_id = 0;
			r = store_build_copy(from, steps[i].build_id, to, &build_id, e);
			st.build_id = build_id;
		}
		if (r == 0) {
			sessions = store_bisect_map_sessions(steps[i].sessions, from_sessions,
			                                     to_sessions, n, &ok);
			if (!ok)
				r = err_setc(e, ERR_CORRUPT,
				             "%s: bisect %lld step %d names session(s) %s, not all "
				             "copied with it",
				             from->where, (long long)id, steps[i].seq,
				             steps[i].sessions);
		}
		st.sessions = sessions;
		if (r == 0)
			r = store_bisect_step_insert(to, &st, e);
		free(sessions);
		if (r != 0)
			goto out;
	}
	*to_id = last + 1;
	rc = 0;
out:
	query_close(&q);
	store_bisect_steps_release(steps, nsteps);
	store_bisect_release(&b);
	return rc;
}

void store_bisect_steps_release(struct store_bisect_step *st, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(st[i].role);
		free(st[i].commit);
		free(st[i].subject);
		free(st[i].decision);
		free(st[i].reason);
		free(st[i].build_dir);
		free(st[i].sessions);
		free(st[i].figures);
		free(st[i].started_at);
	}
	free(st);
}
