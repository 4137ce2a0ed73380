/*
 * store_pg.c — the PostgreSQL engine behind store.c, through libpq: one database for a fleet.
 *
 * Ids come from the server (identity columns), so runners writing at once never collide; a
 * run is one transaction as on SQLite, and rows of other runners' transactions never block
 * it. Every statement that carries values is prepared once per connection (PQprepare) and
 * executed with parameters (PQexecPrepared): no value is ever spliced into SQL text.
 *
 * What the portable SQL of store.c says differently here:
 * - `?` placeholders become `$1`, `$2`, ... (outside quoted strings);
 * - INTEGER, 64 bits on SQLite and 32 on PostgreSQL, is read as BIGINT in the statements of
 *   the migration ladder, so a pid, an id or a byte count fits as it does on SQLite.
 * A statement's values travel as text both ways; a double is printed with 17 significant
 * digits and read back from PostgreSQL's shortest exact form, so it round-trips exactly. The
 * bulk copy of a session's runs (copy_begin) goes in COPY's binary format instead: no value
 * printed or parsed, every one sent as its bits.
 *
 * A server that stops answering must not hang a verb (nor a measure holding the bench lock):
 * connecting gives up after connect_timeout (PG_CONNECT_TIMEOUT_S unless the connection
 * string sets it), and every statement after statement_timeout (PG_STATEMENT_TIMEOUT_MS unless
 * the string's options set it): the server cancels a slow statement itself, and a server that
 * does not answer at all is given up by the client, which waits on the socket with a deadline
 * (the connection is then closed, and every later use of it fails at once).
 *
 * A connection string can hold a password (user:password@ in a URL, password= and
 * sslpassword= in either form, their keys percent-encoded in a URL), and libpq's own messages
 * about a malformed one quote it. store_pg_redact and store_pg_redact_in find the secrets by
 * libpq's parsing rules and replace them; every message of pg_open goes through the latter.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_engine.h"

/*
 * Taken by every writer while it creates or migrates the schema, so two runners opening a
 * new database at once build it once (CREATE TABLE IF NOT EXISTS alone races).
 */
#define PG_SCHEMA_LOCK_KEY 0x67637261 /* "gcra" */

/* The defaults when the connection string sets none (docs/storage.md, "Timeouts"). */
#define PG_CONNECT_TIMEOUT_S    "10"
#define PG_STATEMENT_TIMEOUT_MS 60000
/* The client waits this much longer than the server's statement_timeout for its answer. */
#define PG_CLIENT_GRACE_MS      2000

struct pg_prepared {
	char *sql; /* store.c's text, the cache key */
	char name[24];
};

struct store_conn {
	PGconn *pg;                   /* NULL once given up on (the server stopped answering) */
	struct pg_prepared *prepared; /* every statement prepared on this connection */
	size_t n_prepared;
	int64_t wait_ms; /* how long to wait for a statement's answer; 0: no limit */
	int64_t statement_timeout_ms;
	/* A COPY FROM STDIN under way (copy_begin to copy_end): rows not sent yet, and the
	 * first failure, which the stream keeps until copy_row or copy_end reports it. */
	struct sbuf copy;
	int copy_fields;    /* fields of the current row so far */
	size_t copy_row_at; /* where the current row starts in `copy` */
	int copying;        /* 1 from copy_begin's success to copy_end */
	struct err copy_err;
};

struct store_stmt {
	struct store_conn *c;
	char name[24]; /* the prepared statement's (the connection's array moves as it grows) */
	int n_params;
	char **values;  /* n_params, NULL for SQL NULL */
	int bind_error; /* the position of the first bind out of range, 0 when none */
	PGresult *res;  /* the result of the last execution, NULL before the first step */
	int row;
};

/*
 * libpq is opened the first time a PostgreSQL store is used, not linked: it brings twenty
 * libraries (TLS, Kerberos, LDAP, SASL) whose loading and relocation were most of the 8 ms
 * every start of the harness took, a session on SQLite included (docs/overhead.md). Every
 * call goes through `pq`, filled by pg_load; the header still gives the types.
 */
#define PG_LIBPQ "libpq.so.5"
#define PG_API(F)               \
	F(PQclear)              \
	F(PQconnectdbParams)    \
	F(PQconninfoFree)       \
	F(PQconninfoParse)      \
	F(PQconsumeInput)       \
	F(PQerrorMessage)       \
	F(PQescapeIdentifier)   \
	F(PQfinish)             \
	F(PQflush)              \
	F(PQfreemem)            \
	F(PQgetResult)          \
	F(PQgetisnull)          \
	F(PQgetvalue)           \
	F(PQisBusy)             \
	F(PQntuples)            \
	F(PQputCopyData)        \
	F(PQputCopyEnd)         \
	F(PQresultErrorField)   \
	F(PQresultStatus)       \
	F(PQsendPrepare)        \
	F(PQsendQuery)          \
	F(PQsendQueryPrepared)  \
	F(PQsetNoticeProcessor) \
	F(PQsetnonblocking)     \
	F(PQsocket)             \
	F(PQstatus)             \
	F(PQtransactionStatus)

static struct {
#define PG_FIELD(name) __typeof__(name) *name;
	PG_API(PG_FIELD)
#undef PG_FIELD
	int state; /* 0: not tried yet, 1: loaded, -1: cannot be (why says why) */
	char why[ERR_MSG_MAX / 2];
} pq;

/* Opens libpq once; 0, or an error saying what is missing (every later call says the same). */
static int pg_load(struct err *e)
{
	void *lib;

	if (pq.state == 0) {
		pq.state = -1;
		dlerror();
		lib = dlopen(PG_LIBPQ, RTLD_NOW | RTLD_LOCAL);
		if (!lib)
			snprintf(pq.why, sizeof pq.why, "%s", dlerror());
#define PG_SYM(name)                                                        \
	if (lib && !pq.why[0] && !(*(void **)&pq.name = dlsym(lib, #name))) \
		snprintf(pq.why, sizeof pq.why, "%s has no %s", PG_LIBPQ, #name);
		PG_API(PG_SYM)
#undef PG_SYM
		if (lib && !pq.why[0])
			pq.state = 1;
	}
	if (pq.state == 1)
		return 0;
	return err_setc(e, ERR_FAILED,
	                "a PostgreSQL store needs libpq, which cannot be loaded (%s): install "
	                "libpq5 (Debian's package), or use a SQLite file",
	                pq.why);
}

/* libpq's parse of a connection string; NULL when it cannot parse it or is not there. */
static PQconninfoOption *pg_parse(const char *target, char **parse_error)
{
	if (parse_error)
		*parse_error = NULL;
	return pg_load(NULL) == 0 ? pq.PQconninfoParse(target, parse_error) : NULL;
}

static void pg_conninfo_free(PQconninfoOption *opts)
{
	if (opts)
		pq.PQconninfoFree(opts);
}

/*
 * Schema version 1 in PostgreSQL's words: the tables and columns of store_sqlite.c's, ids
 * from identity columns, integers 64 bits, floating point DOUBLE PRECISION.
 */
static const char pg_base_schema[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS hosts("
    " id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    " fingerprint TEXT NOT NULL UNIQUE, hostname TEXT, facts TEXT);"
    "CREATE TABLE IF NOT EXISTS builds("
    " id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name TEXT NOT NULL,"
    " collector TEXT NOT NULL, collector_version TEXT, git_commit TEXT, dir TEXT,"
    " manifest TEXT NOT NULL, manifest_hash TEXT NOT NULL UNIQUE);"
    "CREATE TABLE IF NOT EXISTS sessions("
    " id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    " host_id BIGINT NOT NULL REFERENCES hosts(id), command TEXT, started_at TEXT NOT NULL,"
    " finished_at TEXT, status TEXT NOT NULL, seed BIGINT NOT NULL, size TEXT NOT NULL,"
    " rounds BIGINT NOT NULL, warmup BIGINT NOT NULL, probes TEXT NOT NULL,"
    " meters TEXT NOT NULL, load_before DOUBLE PRECISION, load_after DOUBLE PRECISION,"
    " harness_version TEXT, facts TEXT);"
    "CREATE TABLE IF NOT EXISTS session_builds("
    " session_id BIGINT NOT NULL REFERENCES sessions(id),"
    " build_id BIGINT NOT NULL REFERENCES builds(id), position BIGINT NOT NULL,"
    " PRIMARY KEY(session_id, build_id));"
    "CREATE TABLE IF NOT EXISTS runs("
    " id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    " session_id BIGINT NOT NULL REFERENCES sessions(id),"
    " build_id BIGINT NOT NULL REFERENCES builds(id), probe TEXT NOT NULL,"
    " size TEXT NOT NULL, round BIGINT NOT NULL, seq BIGINT NOT NULL,"
    " warmup BIGINT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, detail TEXT,"
    " checksum TEXT, premise TEXT, stderr_tail TEXT, started_at TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS runs_by_session ON runs(session_id, build_id);"
    "CREATE TABLE IF NOT EXISTS samples("
    " run_id BIGINT NOT NULL REFERENCES runs(id), metric TEXT NOT NULL,"
    " value DOUBLE PRECISION NOT NULL, PRIMARY KEY(run_id, metric));";

/* libpq prints NOTICEs ("relation already exists, skipping") to stderr; a core module never. */
static void pg_quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* A message without libpq's trailing newline and severity prefix. */
static void pg_message(const char *msg, char *buf, size_t size)
{
	size_t n;

	if (!msg || !*msg)
		msg = "unknown error";
	if (strncmp(msg, "FATAL:  ", 8) == 0 || strncmp(msg, "ERROR:  ", 8) == 0)
		msg += 8;
	snprintf(buf, size, "%s", msg);
	n = strlen(buf);
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	/* libpq's detail lines, indented with tabs, joined into one line. */
	for (char *r = buf, *w = buf;; r++) {
		if (isspace((unsigned char)*r)) {
			if (w > buf && w[-1] != ' ')
				*w++ = ' ';
			continue;
		}
		*w++ = *r;
		if (!*r)
			break;
	}
}

/* The class of an SQLSTATE as an err code (PostgreSQL's appendix A). */
static enum err_code pg_err_code(const char *sqlstate)
{
	if (!sqlstate)
		return ERR_FAILED;
	if (strncmp(sqlstate, "08", 2) == 0 || strncmp(sqlstate, "53", 2) == 0 ||
	    strncmp(sqlstate, "57", 2) == 0 || strncmp(sqlstate, "58", 2) == 0 ||
	    strcmp(sqlstate, "25006") == 0 /* read-only transaction */)
		return ERR_IO;
	if (strcmp(sqlstate, "XX001") == 0 || strcmp(sqlstate, "XX002") == 0)
		return ERR_CORRUPT;
	if (strncmp(sqlstate, "40", 2) == 0 || strcmp(sqlstate, "55P03") == 0)
		return ERR_BUSY;
	if (strncmp(sqlstate, "23", 2) == 0 || strncmp(sqlstate, "22", 2) == 0)
		return ERR_INVALID;
	if (strcmp(sqlstate, "3D000") == 0)
		return ERR_NOT_FOUND;
	return ERR_FAILED;
}

/* ---- Connection strings and their secrets --------------------------------------------- */

/* The keywords whose values are secrets; libpq has these two. */
static int pg_secret_key(const char *key)
{
	return strcmp(key, "password") == 0 || strcmp(key, "sslpassword") == 0;
}

static int pg_hex(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1;
}

/*
 * n bytes at p percent-decoded as libpq decodes a URL's parts; NULL when a %-token is not two
 * hex digits (libpq refuses the string then). Newly allocated.
 */
static char *pg_decode(const char *p, size_t n)
{
	char *out = xmalloc(n + 1), *w = out;

	for (size_t i = 0; i < n; i++) {
		if (p[i] != '%') {
			*w++ = p[i];
			continue;
		}
		if (i + 2 >= n || pg_hex((unsigned char)p[i + 1]) < 0 ||
		    pg_hex((unsigned char)p[i + 2]) < 0) {
			free(out);
			return NULL;
		}
		*w++ =
		    (char)(pg_hex((unsigned char)p[i + 1]) * 16 + pg_hex((unsigned char)p[i + 2]));
		i += 2;
	}
	*w = '\0';
	return out;
}

/* A span of the connection string that holds a secret. */
struct pg_span {
	size_t at, len;
};

static void pg_span_add(struct pg_span **spans, size_t *n, size_t at, size_t len)
{
	if (len == 0)
		return;
	*spans = xrealloc(*spans, (*n + 1) * sizeof **spans);
	(*spans)[(*n)++] = (struct pg_span){at, len};
}

static int pg_is_url(const char *s)
{
	return strncmp(s, "postgresql://", 13) == 0 || strncmp(s, "postgres://", 11) == 0;
}

/*
 * The secrets of a URL by libpq's rules (conninfo_uri_parse_options): the credentials run to
 * the first '@' before any '/', the password after their first ':'; the query starts at the
 * first '?' after them, its parameters split at '&', each key percent-decoded. A key that
 * cannot be decoded hides its value too: libpq would refuse it, and quote it.
 */
static void pg_url_spans(const char *s, struct pg_span **spans, size_t *n)
{
	const char *start = s + (strncmp(s, "postgresql://", 13) == 0 ? 13 : 11), *p = start;
	const char *cred_end = p + strcspn(p, "@/");

	if (*cred_end == '@') {
		const char *colon = memchr(p, ':', (size_t)(cred_end - p));
		if (colon)
			pg_span_add(spans, n, (size_t)(colon + 1 - s),
			            (size_t)(cred_end - colon - 1));
		p = cred_end + 1;
	}
	p = strchr(p, '?');
	while (p && *p) {
		const char *param = p + 1, *end = param + strcspn(param, "&");
		const char *eq = memchr(param, '=', (size_t)(end - param));
		if (eq) {
			char *key = pg_decode(param, (size_t)(eq - param));
			if (!key || pg_secret_key(key))
				pg_span_add(spans, n, (size_t)(eq + 1 - s), (size_t)(end - eq - 1));
			free(key);
		}
		p = *end ? end : NULL;
	}
}

/*
 * The secrets of a key=value string by libpq's rules (conninfo_parse): key, '=', a value
 * quoted with '...' or running to a blank, backslash escaping the next character in both.
 * Keys are not decoded there; one that decodes to a secret's name hides its value anyway.
 */
static void pg_kv_spans(const char *s, struct pg_span **spans, size_t *n)
{
	const char *p = s;

	while (*p) {
		const char *key, *value;
		size_t keylen;
		char *decoded;
		int secret;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		key = p;
		while (*p && *p != '=' && !isspace((unsigned char)*p))
			p++;
		keylen = (size_t)(p - key);
		while (isspace((unsigned char)*p))
			p++;
		if (*p != '=')
			break;
		p++;
		while (isspace((unsigned char)*p))
			p++;
		decoded = pg_decode(key, keylen);
		secret = (decoded && pg_secret_key(decoded)) ||
		         (keylen == 8 && strncmp(key, "password", 8) == 0) ||
		         (keylen == 11 && strncmp(key, "sslpassword", 11) == 0);
		free(decoded);
		if (*p == '\'') {
			value = ++p;
			while (*p && *p != '\'') {
				if (*p == '\\' && p[1])
					p++;
				p++;
			}
			if (secret)
				pg_span_add(spans, n, (size_t)(value - s), (size_t)(p - value));
			if (*p)
				p++;
		} else {
			value = p;
			while (*p && !isspace((unsigned char)*p)) {
				if (*p == '\\' && p[1])
					p++;
				p++;
			}
			if (secret)
				pg_span_add(spans, n, (size_t)(value - s), (size_t)(p - value));
		}
	}
}

int store_pg_is_conninfo(const char *s)
{
	const char *p = s;

	if (pg_is_url(s))
		return 1;
	/* key=value: a keyword (letters, digits, _, and % for a misspelt one), then '='. */
	while (isspace((unsigned char)*p))
		p++;
	if (!isalpha((unsigned char)*p))
		return 0;
	while (isalnum((unsigned char)*p) || *p == '_' || *p == '%')
		p++;
	while (isspace((unsigned char)*p))
		p++;
	return *p == '=';
}

int store_pg_names_server(const char *s)
{
	PQconninfoOption *opts;
	char *why = NULL;

	if (pg_is_url(s))
		return 1;
	if (!store_pg_is_conninfo(s))
		return 0;
	/* libpq's own parse: only its keywords, as key=value pairs, to the end. */
	opts = pg_parse(s, &why);
	if (why)
		pq.PQfreemem(why);
	pg_conninfo_free(opts);
	return opts != NULL;
}

/* s with the spans replaced by "***". Newly allocated. */
static char *pg_masked(const char *s, const struct pg_span *spans, size_t n)
{
	struct sbuf b;
	size_t at = 0;

	sbuf_init(&b);
	for (size_t i = 0; i < n; i++) {
		/* Spans come in the order they were found, which is the string's. */
		if (spans[i].at < at)
			continue;
		sbuf_add(&b, s + at, spans[i].at - at);
		sbuf_addf(&b, "***");
		at = spans[i].at + spans[i].len;
	}
	sbuf_addf(&b, "%s", s + at);
	return b.data;
}

static const char *pg_option(const PQconninfoOption *opts, const char *key)
{
	for (const PQconninfoOption *o = opts; o && o->keyword; o++)
		if (strcmp(o->keyword, key) == 0)
			return o->val;
	return NULL;
}

/*
 * 1 when shown says what target says with every secret "***": libpq reads both alike but
 * for the secrets. Then masking hid what libpq would use, and nothing more.
 */
static int pg_masked_faithfully(const PQconninfoOption *target, const char *shown)
{
	PQconninfoOption *got = pg_parse(shown, NULL);
	int same = got != NULL;

	for (const PQconninfoOption *o = target; same && o->keyword; o++) {
		const char *v = pg_option(got, o->keyword);
		if (pg_secret_key(o->keyword))
			same = o->val ? v && strcmp(v, "***") == 0 : !v || strcmp(v, "***") == 0;
		else
			same = o->val ? v && strcmp(v, o->val) == 0 : v == NULL;
	}
	pg_conninfo_free(got);
	return same;
}

/* The parsed options as key='value' ..., secrets as ***: what is shown when masking fails. */
static char *pg_rebuilt(const PQconninfoOption *opts)
{
	struct sbuf b;

	sbuf_init(&b);
	for (const PQconninfoOption *o = opts; o && o->keyword; o++) {
		if (!o->val)
			continue;
		sbuf_addf(&b, "%s%s=", b.len ? " " : "", o->keyword);
		if (pg_secret_key(o->keyword)) {
			sbuf_addf(&b, "***");
			continue;
		}
		sbuf_addf(&b, "'");
		for (const char *c = o->val; *c; c++)
			sbuf_addf(&b, "%s%c", *c == '\'' || *c == '\\' ? "\\" : "", *c);
		sbuf_addf(&b, "'");
	}
	return b.data;
}

char *store_pg_redact(const char *target)
{
	struct pg_span *spans = NULL;
	size_t n = 0;
	PQconninfoOption *opts;
	char *shown;

	if (pg_is_url(target))
		pg_url_spans(target, &spans, &n);
	else
		pg_kv_spans(target, &spans, &n);
	shown = pg_masked(target, spans, n);
	free(spans);
	/*
	 * libpq's parse is the judge: when it reads the masked string otherwise than the
	 * original (a form the spans above do not foresee), show the options it parsed instead.
	 * A string it cannot parse at all is shown masked; it is refused before any use.
	 */
	opts = pg_parse(target, NULL);
	if (opts && !pg_masked_faithfully(opts, shown)) {
		free(shown);
		shown = pg_rebuilt(opts);
	}
	pg_conninfo_free(opts);
	return shown;
}

/* Replaces every occurrence of `find` in *text by `with`; an empty `find` is no secret. */
static void pg_replace(char **text, const char *find, const char *with)
{
	struct sbuf b;
	const char *p = *text, *hit;
	size_t len = strlen(find);

	if (len == 0 || !strstr(*text, find))
		return;
	sbuf_init(&b);
	while ((hit = strstr(p, find))) {
		sbuf_add(&b, p, (size_t)(hit - p));
		sbuf_addf(&b, "%s", with);
		p = hit + len;
	}
	sbuf_addf(&b, "%s", p);
	free(*text);
	*text = b.data;
}

char *store_pg_redact_in(const char *target, const char *text)
{
	struct pg_span *spans = NULL;
	size_t n = 0;
	PQconninfoOption *opts = pg_parse(target, NULL);
	char *out = xstrdup(text), *raw, *shown = store_pg_redact(target);

	/* The whole string first: some of libpq's messages quote it all. */
	pg_replace(&out, target, shown);
	free(shown);
	/* Then each secret as written (libpq quotes a bad %-token as it is) and as decoded. */
	if (pg_is_url(target))
		pg_url_spans(target, &spans, &n);
	else
		pg_kv_spans(target, &spans, &n);
	for (size_t i = 0; i < n; i++) {
		raw = xstrdup(target + spans[i].at);
		raw[spans[i].len] = '\0';
		pg_replace(&out, raw, "***");
		free(raw);
	}
	for (const PQconninfoOption *o = opts; o && o->keyword; o++)
		if (pg_secret_key(o->keyword) && o->val)
			pg_replace(&out, o->val, "***");
	free(spans);
	pg_conninfo_free(opts);
	return out;
}

/* ---- Talking to the server, with deadlines ----------------------------------------------- */

static int pg_gone(struct err *e)
{
	return err_setc(e, ERR_IO,
	                "lost the connection to the server: it had stopped answering, and the "
	                "connection was closed");
}

/*
 * Turns a failed result (or none) into an err. A connection that broke is said so: the server
 * went away or the network did, and the session that was writing must end.
 */
static int pg_fail(struct store_conn *c, const PGresult *res, struct err *e)
{
	char msg[ERR_MSG_MAX / 2];
	const char *state = res ? pq.PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *primary = res ? pq.PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	if (!c->pg)
		return pg_gone(e);
	pg_message(primary ? primary : pq.PQerrorMessage(c->pg), msg, sizeof msg);
	if (pq.PQstatus(c->pg) == CONNECTION_BAD)
		return err_setc(e, ERR_IO, "lost the connection to the server: %s", msg);
	if (state && strcmp(state, "57014") == 0)
		return err_setc(
		    e, ERR_IO,
		    "%s: the statement ran past statement_timeout (%lld ms; "
		    "options=-c statement_timeout=... in the connection string sets it)",
		    msg, (long long)c->statement_timeout_ms);
	return err_setc(e, pg_err_code(state), "%s", msg);
}

/*
 * Waits until the socket is ready for `events` or the deadline (0: none) passes; 0 when
 * ready, 1 at the deadline, -1 on a failure of poll itself.
 */
static int pg_poll(struct store_conn *c, short events, int64_t deadline)
{
	struct pollfd pfd = {pq.PQsocket(c->pg), events, 0};

	for (;;) {
		int64_t left = deadline ? (deadline - now_mono_ns()) / 1000000 : -1;
		int r;
		if (deadline && left <= 0)
			return 1;
		r = poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

/*
 * The server did not answer by the deadline (w 1) or poll failed (w -1): the connection is
 * closed, since nothing more can be sent or read on it (closing does not wait for the server).
 */
static int pg_give_up(struct store_conn *c, int w, struct err *e)
{
	pq.PQfinish(c->pg);
	c->pg = NULL;
	if (w < 0)
		return err_setc(e, ERR_IO, "waiting for the server: %s", strerror(errno));
	return err_setc(e, ERR_IO,
	                "the server did not answer within %lld s (statement_timeout %lld ms and "
	                "%d s more; options=-c statement_timeout=... in the connection string "
	                "sets it): gave up on the connection",
	                (long long)(c->wait_ms / 1000), (long long)c->statement_timeout_ms,
	                PG_CLIENT_GRACE_MS / 1000);
}

/*
 * The result of the query just sent: flushed and waited for by the connection's deadline.
 * Several statements give several results: the first failed one is returned, else the last.
 * NULL with e when the server did not answer in time (the connection is then closed) or the
 * connection broke.
 */
static PGresult *pg_result(struct store_conn *c, struct err *e)
{
	int64_t deadline = c->wait_ms ? now_mono_ns() + c->wait_ms * 1000000 : 0;
	PGresult *last = NULL, *failed = NULL, *r;
	int f, w;

	while ((f = pq.PQflush(c->pg)) > 0) {
		if ((w = pg_poll(c, POLLOUT | POLLIN, deadline)) != 0)
			goto timeout;
		if (!pq.PQconsumeInput(c->pg))
			goto broken;
	}
	if (f < 0)
		goto broken;
	for (;;) {
		while (pq.PQisBusy(c->pg)) {
			if ((w = pg_poll(c, POLLIN, deadline)) != 0)
				goto timeout;
			if (!pq.PQconsumeInput(c->pg))
				goto broken;
		}
		if (!(r = pq.PQgetResult(c->pg)))
			break;
		if (failed) {
			pq.PQclear(r);
		} else if (pq.PQresultStatus(r) == PGRES_FATAL_ERROR) {
			failed = r;
		} else {
			pq.PQclear(last);
			last = r;
		}
	}
	if (failed) {
		pq.PQclear(last);
		return failed;
	}
	if (!last)
		goto broken;
	return last;
timeout:
	pq.PQclear(last);
	pq.PQclear(failed);
	pg_give_up(c, w, e);
	return NULL;
broken:
	pq.PQclear(last);
	pq.PQclear(failed);
	pg_fail(c, NULL, e);
	return NULL;
}

/* Runs SQL without parameters; a result with rows (SELECT pg_advisory_xact_lock) is fine. */
static int pg_run(struct store_conn *c, const char *sql, struct err *e)
{
	PGresult *res;
	ExecStatusType st;
	int rc = 0;

	if (!c->pg)
		return pg_gone(e);
	if (!pq.PQsendQuery(c->pg, sql))
		return pg_fail(c, NULL, e);
	if (!(res = pg_result(c, e)))
		return -1;
	st = pq.PQresultStatus(res);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		rc = pg_fail(c, res, e);
	pq.PQclear(res);
	return rc;
}

/*
 * The ladder's portable DDL with INTEGER read as BIGINT: a whole word, outside quotes. Only
 * statements without parameters come here (exec), so no value is ever rewritten.
 */
static char *pg_widen_integers(const char *sql)
{
	struct sbuf b;
	int quoted = 0;

	sbuf_init(&b);
	for (const char *p = sql; *p; p++) {
		if (*p == '\'')
			quoted = !quoted;
		if (!quoted && strncmp(p, "INTEGER", 7) == 0 &&
		    (p == sql || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
		    !(isalnum((unsigned char)p[7]) || p[7] == '_')) {
			sbuf_addf(&b, "BIGINT");
			p += 6;
			continue;
		}
		sbuf_add(&b, p, 1);
	}
	return b.data;
}

static int pg_exec(struct store_conn *c, const char *sql, struct err *e)
{
	char *wide = pg_widen_integers(sql);
	int rc = pg_run(c, wide, e);

	free(wide);
	return rc;
}

/* The name of the database a connection string names, or NULL. Newly allocated. */
static char *pg_dbname(const char *target)
{
	PQconninfoOption *opts = pg_parse(target, NULL);
	char *name = NULL;

	for (PQconninfoOption *o = opts; o && o->keyword; o++)
		if (strcmp(o->keyword, "dbname") == 0 && o->val && *o->val)
			name = xstrdup(o->val);
	pg_conninfo_free(opts);
	return name;
}

/*
 * statement_timeout in libpq's options ("-c statement_timeout=5s", "-cstatement_timeout=5s",
 * "--statement-timeout=5s"), in milliseconds as the server reads it (a bare number is ms;
 * us, ms, s, min, h, d); -1 when the options do not set it or it cannot be read (the server
 * then says why, at connect).
 */
static int64_t pg_statement_timeout(const char *options)
{
	static const struct {
		const char *unit;
		double ms;
	} units[] = {{"", 1},        {"us", 0.001},  {"ms", 1},      {"s", 1000},
	             {"min", 60000}, {"h", 3600000}, {"d", 86400000}};
	char *copy = xstrdup(options ? options : ""), *save = NULL, *tok, *value = NULL;
	int64_t ms = -1;

	for (tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		char *setting = NULL;
		if (strcmp(tok, "-c") == 0)
			setting = strtok_r(NULL, " \t\n", &save);
		else if (strncmp(tok, "-c", 2) == 0)
			setting = tok + 2;
		else if (strncmp(tok, "--", 2) == 0)
			setting = tok + 2;
		if (!setting)
			continue;
		for (char *c = setting; *c && *c != '='; c++)
			if (*c == '-')
				*c = '_';
		if (strncmp(setting, "statement_timeout=", 18) == 0)
			value = setting + 18; /* the last one wins, as on the server */
	}
	if (value) {
		char *end = NULL;
		double v = strtod(value, &end);
		for (size_t i = 0;
		     end && end != value && v >= 0 && i < sizeof units / sizeof *units; i++)
			if (strcmp(end, units[i].unit) == 0) {
				double got = ceil(v * units[i].ms);
				/* The server's own bound; and no double out of range is converted. */
				ms = got < INT32_MAX ? (int64_t)got : INT32_MAX;
			}
	}
	free(copy);
	return ms;
}

/*
 * Connects with the defaults this engine needs under whatever the connection string says:
 * connect_timeout first, so the string's own wins; then the string (expanded, a URL or
 * key=value); then dbname (to reach another database of the same server), client_encoding
 * UTF8 (store.c's text is UTF-8) and the options with statement_timeout, which win.
 */
static PGconn *pg_connectdb(const char *target, const char *dbname, const char *options)
{
	const char *keys[6], *vals[6];
	int n = 0;

	keys[n] = "connect_timeout", vals[n++] = PG_CONNECT_TIMEOUT_S;
	keys[n] = "dbname", vals[n++] = target;
	if (dbname)
		keys[n] = "dbname", vals[n++] = dbname;
	keys[n] = "client_encoding", vals[n++] = "UTF8";
	if (options)
		keys[n] = "options", vals[n++] = options;
	keys[n] = vals[n] = NULL;
	return pq.PQconnectdbParams(keys, vals, 1);
}

/*
 * How long this connection's statements may take: the string's statement_timeout, else the
 * default, which then goes to the server in the options (*options, newly allocated). The
 * client waits PG_CLIENT_GRACE_MS longer, for a server too stopped to cancel anything.
 */
static void pg_timeouts(struct store_conn *c, const PQconninfoOption *opts, char **options)
{
	const char *given = pg_option(opts, "options");
	int64_t ms = pg_statement_timeout(given);

	*options = NULL;
	if (ms < 0) {
		ms = PG_STATEMENT_TIMEOUT_MS;
		*options = xasprintf("%s%s-c statement_timeout=%lld", given ? given : "",
		                     given && *given ? " " : "", (long long)ms);
	}
	c->statement_timeout_ms = ms;
	c->wait_ms = ms ? ms + PG_CLIENT_GRACE_MS : 0;
}

/* The message of a connection that failed, saying which timeout expired if one did. */
static int pg_connect_fail(PGconn *pg, const PQconninfoOption *opts, struct err *e)
{
	char msg[ERR_MSG_MAX / 2];
	const char *timeout = pg_option(opts, "connect_timeout");

	pg_message(pq.PQerrorMessage(pg), msg, sizeof msg);
	if (strstr(msg, "database \"") && strstr(msg, "\" does not exist"))
		return err_setc(e, ERR_NOT_FOUND, "no such database");
	if (strstr(msg, "timeout expired"))
		return err_setc(e, ERR_IO,
		                "cannot connect: the server did not answer within connect_timeout "
		                "(%s s; connect_timeout=N in the connection string sets it): %s",
		                timeout ? timeout : PG_CONNECT_TIMEOUT_S, msg);
	return err_setc(e, ERR_IO, "cannot connect: %s", msg);
}

/*
 * A writer creates a missing database, as it creates a missing SQLite file: through the
 * server's maintenance database, with the same host, user and password. CREATE DATABASE
 * takes no parameters; the name goes in as a quoted identifier (PQescapeIdentifier).
 */
static int pg_create_database(const char *target, const PQconninfoOption *opts, struct err *e)
{
	char *name = pg_dbname(target), *ident = NULL, *sql = NULL, *options = NULL;
	struct store_conn admin = {0};
	PGresult *res = NULL;
	int rc = -1;

	if (!name) {
		err_setc(e, ERR_NOT_FOUND, "no such database, and the URL names none to create");
		goto out;
	}
	pg_timeouts(&admin, opts, &options);
	admin.pg = pg_connectdb(target, "postgres", options);
	if (pq.PQstatus(admin.pg) != CONNECTION_OK) {
		pg_connect_fail(admin.pg, opts, e);
		goto out;
	}
	pq.PQsetNoticeProcessor(admin.pg, pg_quiet, NULL);
	pq.PQsetnonblocking(admin.pg, 1);
	ident = pq.PQescapeIdentifier(admin.pg, name, strlen(name));
	if (!ident) {
		pg_fail(&admin, NULL, e);
		goto out;
	}
	sql = xasprintf("CREATE DATABASE %s", ident);
	if (!pq.PQsendQuery(admin.pg, sql)) {
		pg_fail(&admin, NULL, e);
		goto out;
	}
	if (!(res = pg_result(&admin, e)))
		goto out;
	/*
	 * Another runner created it first, which is as good: 42P04 when its transaction had
	 * committed, 23505 on the catalog's unique index when both were at it at once.
	 */
	if (pq.PQresultStatus(res) != PGRES_COMMAND_OK) {
		const char *state = pq.PQresultErrorField(res, PG_DIAG_SQLSTATE);
		if (!state || (strcmp(state, "42P04") != 0 && strcmp(state, "23505") != 0)) {
			pg_fail(&admin, res, e);
			goto out;
		}
	}
	rc = 0;
out:
	pq.PQclear(res);
	free(sql);
	free(options);
	pq.PQfreemem(ident);
	pq.PQfinish(admin.pg);
	free(name);
	return rc;
}

static int pg_connect(struct store_conn *c, const char *target, const PQconninfoOption *opts,
                      struct err *e)
{
	char *options = NULL;

	pg_timeouts(c, opts, &options);
	c->pg = pg_connectdb(target, NULL, options);
	free(options);
	if (pq.PQstatus(c->pg) != CONNECTION_OK)
		return pg_connect_fail(c->pg, opts, e);
	/* Sends never block: pg_result flushes and waits with the deadline. */
	if (pq.PQsetnonblocking(c->pg, 1) != 0)
		return pg_fail(c, NULL, e);
	return 0;
}

static void pg_close(struct store_conn *c)
{
	if (!c)
		return;
	if (c->pg)
		pq.PQfinish(c->pg);
	for (size_t i = 0; i < c->n_prepared; i++)
		free(c->prepared[i].sql);
	free(c->prepared);
	sbuf_release(&c->copy);
	free(c);
}

static int pg_open(const char *target, enum store_mode mode, struct store_conn **out, struct err *e)
{
	struct store_conn *c = xcalloc(1, sizeof *c);
	struct err first = ERR_INIT;
	char *parse_error = NULL;
	PQconninfoOption *opts = NULL;
	int rc = -1;

	if (pg_load(e) != 0)
		goto out;
	opts = pg_parse(target, &parse_error);
	/* Refused before any use: libpq would only say the same, later. */
	if (!opts) {
		char msg[ERR_MSG_MAX / 2];
		pg_message(parse_error ? parse_error : "cannot be parsed", msg, sizeof msg);
		err_setc(e, ERR_INVALID, "not a valid connection string: %s", msg);
		goto out;
	}
	if (pg_connect(c, target, opts, &first) != 0) {
		if (first.code != ERR_NOT_FOUND || mode == STORE_READ) {
			err_setc(e, first.code, "%s", first.msg);
			goto out;
		}
		pq.PQfinish(c->pg);
		c->pg = NULL;
		if (pg_create_database(target, opts, e) != 0 || pg_connect(c, target, opts, e) != 0)
			goto out;
	}
	pq.PQsetNoticeProcessor(c->pg, pg_quiet, NULL);
	/* A reader writes nothing: the server refuses any write of this connection. */
	if (mode == STORE_READ && pg_run(c, "SET default_transaction_read_only = on", e) != 0)
		goto out;
	rc = 0;
out:
	if (rc != 0) {
		/* libpq's messages about a malformed string quote it, password and all. */
		if (e) {
			char *safe = store_pg_redact_in(target, e->msg);
			snprintf(e->msg, sizeof e->msg, "%s", safe);
			free(safe);
		}
		pg_close(c);
		c = NULL;
	}
	if (parse_error)
		pq.PQfreemem(parse_error);
	pg_conninfo_free(opts);
	*out = c;
	return rc;
}

static int pg_create_base(struct store_conn *c, struct err *e)
{
	char lock[64];

	snprintf(lock, sizeof lock, "SELECT pg_advisory_xact_lock(%d)", PG_SCHEMA_LOCK_KEY);
	if (pg_run(c, lock, e) != 0)
		return -1;
	return pg_run(c, pg_base_schema, e);
}

static int pg_begin(struct store_conn *c, struct err *e)
{
	return pg_run(c, "BEGIN", e);
}

static int pg_commit(struct store_conn *c, struct err *e)
{
	return pg_run(c, "COMMIT", e);
}

static void pg_rollback(struct store_conn *c)
{
	struct err ignored;

	if (c->pg && pq.PQstatus(c->pg) == CONNECTION_OK &&
	    pq.PQtransactionStatus(c->pg) != PQTRANS_IDLE && pq.PQsendQuery(c->pg, "ROLLBACK"))
		pq.PQclear(pg_result(c, &ignored));
}

/* store.c's `?` as `$n`, outside quoted strings; *n the number of placeholders. */
static char *pg_number_placeholders(const char *sql, int *n)
{
	struct sbuf b;
	int quoted = 0;

	*n = 0;
	sbuf_init(&b);
	for (const char *p = sql; *p; p++) {
		if (*p == '\'')
			quoted = !quoted;
		if (*p == '?' && !quoted)
			sbuf_addf(&b, "$%d", ++*n);
		else
			sbuf_add(&b, p, 1);
	}
	return b.data;
}

static int pg_prepare(struct store_conn *c, const char *sql, struct store_stmt **out, struct err *e)
{
	struct pg_prepared *p = NULL;
	char *numbered;
	int n;

	*out = NULL;
	numbered = pg_number_placeholders(sql, &n);
	for (size_t i = 0; i < c->n_prepared && !p; i++)
		if (strcmp(c->prepared[i].sql, sql) == 0)
			p = &c->prepared[i];
	if (!p) {
		char name[24];
		PGresult *res;

		snprintf(name, sizeof name, "gcr_%zu", c->n_prepared + 1);
		/* The server infers each parameter's type from where it stands. */
		if (!c->pg || !pq.PQsendPrepare(c->pg, name, numbered, n, NULL)) {
			pg_fail(c, NULL, e);
			free(numbered);
			return -1;
		}
		if (!(res = pg_result(c, e))) {
			free(numbered);
			return -1;
		}
		if (pq.PQresultStatus(res) != PGRES_COMMAND_OK) {
			pg_fail(c, res, e);
			pq.PQclear(res);
			free(numbered);
			return -1;
		}
		pq.PQclear(res);
		c->prepared = xrealloc(c->prepared, (c->n_prepared + 1) * sizeof *c->prepared);
		p = &c->prepared[c->n_prepared++];
		p->sql = xstrdup(sql);
		snprintf(p->name, sizeof p->name, "%s", name);
	}
	free(numbered);
	*out = xcalloc(1, sizeof **out);
	(*out)->c = c;
	snprintf((*out)->name, sizeof(*out)->name, "%s", p->name);
	(*out)->n_params = n;
	(*out)->values = xcalloc(n ? (size_t)n : 1, sizeof(char *));
	return 0;
}

static void pg_bind(struct store_stmt *st, int i, char *v)
{
	if (i < 1 || i > st->n_params) {
		if (!st->bind_error)
			st->bind_error = i;
		free(v);
		return;
	}
	free(st->values[i - 1]);
	st->values[i - 1] = v;
}

static void pg_bind_int64(struct store_stmt *st, int i, int64_t v)
{
	pg_bind(st, i, xasprintf("%" PRId64, v));
}

static void pg_bind_double(struct store_stmt *st, int i, double v)
{
	if (isnan(v))
		pg_bind(st, i, xstrdup("NaN"));
	else if (isinf(v))
		pg_bind(st, i, xstrdup(v > 0 ? "Infinity" : "-Infinity"));
	else
		pg_bind(st, i, xasprintf("%.17g", v));
}

static void pg_bind_text(struct store_stmt *st, int i, const char *v)
{
	pg_bind(st, i, v ? xstrdup(v) : NULL);
}

static int pg_step(struct store_stmt *st, struct err *e)
{
	if (st->bind_error)
		return err_setc(e, ERR_FAILED, "parameter %d is out of range (the query has %d)",
		                st->bind_error, st->n_params);
	if (!st->res) {
		PGresult *res;
		ExecStatusType status;

		if (!st->c->pg ||
		    !pq.PQsendQueryPrepared(st->c->pg, st->name, st->n_params,
		                            (const char *const *)st->values, NULL, NULL, 0))
			return pg_fail(st->c, NULL, e);
		if (!(res = pg_result(st->c, e)))
			return -1;
		status = pq.PQresultStatus(res);

		if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
			pg_fail(st->c, res, e);
			pq.PQclear(res);
			return -1;
		}
		st->res = res;
		st->row = -1;
	}
	if (st->row < pq.PQntuples(st->res))
		st->row++;
	return st->row < pq.PQntuples(st->res) ? 1 : 0;
}

static int pg_reset(struct store_stmt *st, struct err *e)
{
	(void)e;
	pq.PQclear(st->res);
	st->res = NULL;
	st->bind_error = 0;
	/* No value of the last use may leak into the next: a missed bind reads as NULL. */
	for (int i = 0; i < st->n_params; i++) {
		free(st->values[i]);
		st->values[i] = NULL;
	}
	return 0;
}

static int pg_column_null(struct store_stmt *st, int i)
{
	return pq.PQgetisnull(st->res, st->row, i);
}

static int64_t pg_column_int64(struct store_stmt *st, int i)
{
	return pq.PQgetisnull(st->res, st->row, i)
	           ? 0
	           : strtoll(pq.PQgetvalue(st->res, st->row, i), NULL, 10);
}

static double pg_column_double(struct store_stmt *st, int i)
{
	return pq.PQgetisnull(st->res, st->row, i)
	           ? 0.0
	           : strtod(pq.PQgetvalue(st->res, st->row, i), NULL);
}

static int pg_column_number(struct store_stmt *st, int i, double *out, const char **what)
{
	const char *t;
	char *end;

	if (pq.PQgetisnull(st->res, st->row, i)) {
		*what = "NULL";
		return -1;
	}
	/* A DOUBLE PRECISION column's text: digits, or NaN, Infinity and -Infinity. */
	t = pq.PQgetvalue(st->res, st->row, i);
	*out = strtod(t, &end);
	if (end == t || *end) {
		*what = "text";
		return -1;
	}
	return 0;
}

static const char *pg_column_text(struct store_stmt *st, int i)
{
	return pq.PQgetisnull(st->res, st->row, i) ? NULL : pq.PQgetvalue(st->res, st->row, i);
}

static void pg_finalize(struct store_stmt *st)
{
	if (!st)
		return;
	pg_reset(st, NULL);
	free(st->values);
	free(st);
}

/* ---- Bulk writing: COPY FROM STDIN ------------------------------------------------------ */

/*
 * Rows are sent in chunks of this much text: one round trip starts a COPY and one ends it,
 * and in between the rows stream without waiting for the server.
 */
#define PG_COPY_CHUNK (256 * 1024)

static int pg_reserve_ids(struct store_conn *c, const char *table, size_t n, int64_t *ids,
                          struct err *e)
{
	struct store_stmt *st = NULL;
	size_t k = 0;
	int rc = -1, r;

	if (n == 0)
		return 0;
	/* An identity column's sequence: ids no other writer is given, in one round trip. */
	if (pg_prepare(c,
	               "SELECT nextval(pg_get_serial_sequence(?, 'id'))"
	               " FROM generate_series(1, CAST(? AS BIGINT))",
	               &st, e) != 0)
		return -1;
	pg_bind_text(st, 1, table);
	pg_bind_int64(st, 2, (int64_t)n);
	while ((r = pg_step(st, e)) > 0 && k < n)
		ids[k++] = pg_column_int64(st, 0);
	if (r < 0)
		goto out;
	if (k != n) {
		err_setc(e, ERR_FAILED, "reserving %zu ids of %s: the server gave %zu", n, table,
		         k);
		goto out;
	}
	rc = 0;
out:
	pg_finalize(st);
	return rc;
}

/* The stream's first failure, kept for copy_row or copy_end to report; always -1. */
static int pg_copy_fail(struct store_conn *c, const struct err *why)
{
	if (c->copy_err.code == ERR_NONE)
		c->copy_err = *why;
	return -1;
}

/* Hands the rows buffered so far to libpq, waiting for the socket by the deadline when full. */
static int pg_copy_send(struct store_conn *c)
{
	int64_t deadline = c->wait_ms ? now_mono_ns() + c->wait_ms * 1000000 : 0;
	struct err e = ERR_INIT;
	int r, w;

	if (c->copy_err.code != ERR_NONE)
		return -1;
	if (!c->pg)
		return pg_gone(&e), pg_copy_fail(c, &e);
	while (c->copy.len > 0 &&
	       (r = pq.PQputCopyData(c->pg, c->copy.data, (int)c->copy.len)) == 0) {
		/* libpq's buffer is full (a nonblocking connection): wait until the server reads. */
		if ((w = pg_poll(c, POLLOUT | POLLIN, deadline)) != 0)
			return pg_give_up(c, w, &e), pg_copy_fail(c, &e);
		if (pq.PQflush(c->pg) < 0 || !pq.PQconsumeInput(c->pg))
			return pg_fail(c, NULL, &e), pg_copy_fail(c, &e);
	}
	if (c->copy.len > 0 && r < 0)
		return pg_fail(c, NULL, &e), pg_copy_fail(c, &e);
	c->copy.len = 0;
	/*
	 * Sent before more rows are made: the server parses one chunk while the next is built,
	 * rather than the whole table waiting in libpq's buffer until the end.
	 */
	while ((r = pq.PQflush(c->pg)) > 0) {
		if ((w = pg_poll(c, POLLOUT | POLLIN, deadline)) != 0)
			return pg_give_up(c, w, &e), pg_copy_fail(c, &e);
		if (!pq.PQconsumeInput(c->pg))
			return pg_fail(c, NULL, &e), pg_copy_fail(c, &e);
	}
	if (r < 0)
		return pg_fail(c, NULL, &e), pg_copy_fail(c, &e);
	return 0;
}

/*
 * COPY's binary format: a row is its count of fields (16 bits), then each field as its length
 * (32 bits; -1 for NULL) and its bytes, every number big-endian; a BIGINT is 8 bytes, a DOUBLE
 * PRECISION its IEEE 754 bits, a TEXT its UTF-8. No value is printed or parsed on either side
 * (printing doubles with 17 digits was a fifth of a push's CPU), and every value arrives with
 * the very bits it left with. The columns store.c copies are BIGINT, DOUBLE PRECISION and
 * TEXT (its INTEGER is read as BIGINT here, pg_widen_integers).
 */
static void pg_copy_be(struct store_conn *c, uint64_t v, int bytes)
{
	unsigned char b[8];

	for (int i = 0; i < bytes; i++)
		b[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
	sbuf_add(&c->copy, b, (size_t)bytes);
}

static int pg_copy_begin(struct store_conn *c, const char *table, const char *columns,
                         struct err *e)
{
	int64_t deadline = c->wait_ms ? now_mono_ns() + c->wait_ms * 1000000 : 0;
	PGresult *res = NULL;
	char *sql;
	int rc = -1, w, f;

	c->copy.len = 0;
	c->copy_fields = 0;
	c->copying = 0;
	c->copy_err = (struct err)ERR_INIT;
	if (!c->pg)
		return pg_gone(e);
	/* table and columns are store.c's constants, never a value. */
	sql = xasprintf("COPY %s(%s) FROM STDIN (FORMAT binary)", table, columns);
	if (!pq.PQsendQuery(c->pg, sql)) {
		pg_fail(c, NULL, e);
		goto out;
	}
	/*
	 * The server answers CopyInResponse, or an error (and then the query is over). The
	 * socket is waited on for writing only while the query is not all sent: a socket is
	 * nearly always writable, and waiting on it then would spin.
	 */
	while ((f = pq.PQflush(c->pg)) > 0 || (f == 0 && pq.PQisBusy(c->pg))) {
		if ((w = pg_poll(c, f > 0 ? POLLIN | POLLOUT : POLLIN, deadline)) != 0) {
			pg_give_up(c, w, e);
			goto out;
		}
		if (!pq.PQconsumeInput(c->pg)) {
			pg_fail(c, NULL, e);
			goto out;
		}
	}
	if (f < 0) {
		pg_fail(c, NULL, e);
		goto out;
	}
	res = pq.PQgetResult(c->pg);
	if (res && pq.PQresultStatus(res) == PGRES_COPY_IN) {
		/* The binary format's header: its signature, no flags, no extension. */
		sbuf_add(&c->copy, "PGCOPY\n\377\r\n", 11);
		pg_copy_be(c, 0, 4);
		pg_copy_be(c, 0, 4);
		c->copying = 1;
		rc = 0;
		goto out;
	}
	pg_fail(c, res, e);
	pq.PQclear(res);
	/* Whatever else the failed query left is read and dropped. */
	while ((res = pq.PQgetResult(c->pg)))
		pq.PQclear(res);
out:
	pq.PQclear(res);
	free(sql);
	return rc;
}

/* The start of a field: a row's first also reserves the row's count, set by copy_row. */
static void pg_copy_field(struct store_conn *c)
{
	if (c->copy_fields++ == 0) {
		c->copy_row_at = c->copy.len;
		pg_copy_be(c, 0, 2);
	}
}

static void pg_copy_int64(struct store_conn *c, int64_t v)
{
	pg_copy_field(c);
	pg_copy_be(c, 8, 4);
	pg_copy_be(c, (uint64_t)v, 8);
}

static void pg_copy_double(struct store_conn *c, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof bits);
	pg_copy_field(c);
	pg_copy_be(c, 8, 4);
	pg_copy_be(c, bits, 8);
}

static void pg_copy_text(struct store_conn *c, const char *v)
{
	size_t n = v ? strlen(v) : 0;

	pg_copy_field(c);
	if (!v) {
		pg_copy_be(c, UINT32_MAX, 4);
		return;
	}
	pg_copy_be(c, n, 4);
	sbuf_add(&c->copy, v, n);
}

static int pg_copy_row(struct store_conn *c, struct err *e)
{
	c->copy.data[c->copy_row_at] = (char)(c->copy_fields >> 8);
	c->copy.data[c->copy_row_at + 1] = (char)(c->copy_fields & 0xff);
	c->copy_fields = 0;
	if (c->copy.len >= PG_COPY_CHUNK)
		pg_copy_send(c);
	if (c->copy_err.code != ERR_NONE) {
		*e = c->copy_err;
		return -1;
	}
	return 0;
}

static int pg_copy_end(struct store_conn *c, const char *abort, struct err *e)
{
	int64_t deadline = c->wait_ms ? now_mono_ns() + c->wait_ms * 1000000 : 0;
	PGresult *res;
	int r, w, rc = -1;

	if (!c->copying)
		return err_setc(e, ERR_FAILED, "no copy under way");
	c->copying = 0;
	if (!abort) {
		pg_copy_be(c, UINT16_MAX, 2); /* the trailer: a count of -1 */
		pg_copy_send(c);
	}
	c->copy.len = 0;
	if (!c->pg) {
		pg_gone(e);
		goto failed;
	}
	/* A stream that failed is ended as aborted: the server then discards every row of it. */
	if (c->copy_err.code != ERR_NONE && !abort)
		abort = "the client's copy failed";
	while ((r = pq.PQputCopyEnd(c->pg, abort)) == 0) {
		if ((w = pg_poll(c, POLLOUT | POLLIN, deadline)) != 0) {
			pg_give_up(c, w, e);
			goto failed;
		}
		if (pq.PQflush(c->pg) < 0 || !pq.PQconsumeInput(c->pg))
			break;
	}
	if (r <= 0) {
		pg_fail(c, NULL, e);
		goto failed;
	}
	if (!(res = pg_result(c, e)))
		goto failed;
	if (pq.PQresultStatus(res) == PGRES_COMMAND_OK && c->copy_err.code == ERR_NONE && !abort)
		rc = 0;
	else if (c->copy_err.code == ERR_NONE)
		pg_fail(c, res, e);
	pq.PQclear(res);
failed:
	if (rc != 0 && c->copy_err.code != ERR_NONE)
		*e = c->copy_err;
	return rc;
}

const struct store_engine store_engine_pg = {
    .name = "postgresql",
    .open = pg_open,
    .close = pg_close,
    .create_base = pg_create_base,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .exec = pg_exec,
    .prepare = pg_prepare,
    .bind_int64 = pg_bind_int64,
    .bind_double = pg_bind_double,
    .bind_text = pg_bind_text,
    .step = pg_step,
    .reset = pg_reset,
    .column_null = pg_column_null,
    .column_int64 = pg_column_int64,
    .column_double = pg_column_double,
    .column_number = pg_column_number,
    .column_text = pg_column_text,
    .finalize = pg_finalize,
    .reserve_ids = pg_reserve_ids,
    .copy_begin = pg_copy_begin,
    .copy_int64 = pg_copy_int64,
    .copy_double = pg_copy_double,
    .copy_text = pg_copy_text,
    .copy_row = pg_copy_row,
    .copy_end = pg_copy_end,
};
