/*
 * store_engine.h — what store.c needs from a database engine, and nothing more.
 *
 * store.c holds every query and the migration ladder, in SQL that SQLite and PostgreSQL both
 * accept: `?` placeholders, each bound once and in the order they appear (an engine that
 * numbers its placeholders rewrites them); INSERT ... ON CONFLICT and RETURNING; plain types in
 * ALTER TABLE. An engine owns everything else: its connection string, what read-only means
 * for it, transactions and locking, its own settings (PRAGMAs), the dialect of the base schema
 * (ids, floating point, clustered tables), and turning its failures into err codes: a damaged
 * database is ERR_CORRUPT, a lock held too long ERR_BUSY, a missing database ERR_NOT_FOUND.
 *
 * Two engines: SQLite (store_sqlite.c) and PostgreSQL through libpq (store_pg.c). Another is
 * one more struct store_engine and a scheme in store_open; no caller of store.h changes.
 * In the portable SQL, INTEGER means a 64-bit integer (SQLite's); an engine whose INTEGER is
 * narrower reads it as its 64-bit type in exec'd DDL.
 *
 * Invariants:
 * - The base schema is schema version 1 exactly as it shipped, and never changes: every later
 *   change is a step of the ladder in store.c, so a new database and a migrated one are built
 *   by the same statements.
 * - Messages name the database (the engine knows its file or server) and never the query.
 * - A failed bind is remembered by the statement and reported by the next step, so that a
 *   query cannot run with a parameter silently missing.
 */
#ifndef STORE_ENGINE_H
#define STORE_ENGINE_H

#include <stdint.h>

#include "store.h"
#include "util.h"

struct store_conn;
struct store_stmt;

struct store_engine {
	const char *name; /* "sqlite", "postgresql" */
	/*
	 * Opens the database the connection string names (SQLite: the path, its scheme removed;
	 * PostgreSQL: the whole URL, which libpq reads). STORE_READ
	 * creates and writes nothing, and a database that does not exist is ERR_NOT_FOUND;
	 * STORE_WRITE creates it (and its folder) when missing.
	 */
	int (*open)(const char *target, enum store_mode mode, struct store_conn **out,
	            struct err *e);
	void (*close)(struct store_conn *c);
	/* Creates the tables of schema version 1 that do not exist yet; inside a transaction. */
	int (*create_base)(struct store_conn *c, struct err *e);
	/* A transaction that will write: it holds the write lock from its start. */
	int (*begin)(struct store_conn *c, struct err *e);
	int (*commit)(struct store_conn *c, struct err *e);
	/* Never fails in a way a caller could act on; the error that led here is the one to tell. */
	void (*rollback)(struct store_conn *c);
	/* One statement without parameters or rows. */
	int (*exec)(struct store_conn *c, const char *sql, struct err *e);

	int (*prepare)(struct store_conn *c, const char *sql, struct store_stmt **out,
	               struct err *e);
	/* i is the placeholder's 1-based position; a NULL text binds SQL NULL. */
	void (*bind_int64)(struct store_stmt *st, int i, int64_t v);
	void (*bind_double)(struct store_stmt *st, int i, double v);
	void (*bind_text)(struct store_stmt *st, int i, const char *v);
	/* 1 with a row to read, 0 when done, -1 on any failure (a bind's included). */
	int (*step)(struct store_stmt *st, struct err *e);
	/* Makes the statement ready to be bound and stepped again. */
	int (*reset)(struct store_stmt *st, struct err *e);
	/* Columns of the current row, 0-based; text is NULL for SQL NULL, valid until the next step. */
	int (*column_null)(struct store_stmt *st, int i);
	int64_t (*column_int64)(struct store_stmt *st, int i);
	double (*column_double)(struct store_stmt *st, int i);
	/*
	 * A column that must hold a number (a sample's value): 0 with it in *out when it holds
	 * an integer or a floating-point value, NaN and infinities included (the caller judges
	 * the value); -1 when it holds anything else, with *what naming it ("text", "a blob",
	 * "NULL"). Never a number made of text: '1000 garbage' is text, not 1000.
	 */
	int (*column_number)(struct store_stmt *st, int i, double *out, const char **what);
	const char *(*column_text)(struct store_stmt *st, int i);
	void (*finalize)(struct store_stmt *st);

	/*
	 * Bulk writing, for an engine to which each statement is a round trip (PostgreSQL's
	 * COPY FROM STDIN); NULL in an engine without it, and store.c then inserts row by row.
	 * Inside the caller's transaction:
	 * - reserve_ids: n ids of `table`'s id column that no other writer will take, into ids[],
	 *   for rows the caller then writes with their id given (so a copy of runs knows each
	 *   run's id before its samples are written);
	 * - copy_begin opens one stream of rows into `table`'s `columns` (a comma-separated list
	 *   of store.c's constants, never a value); copy_int64/double/text add the next field of
	 *   the current row (a NULL text is SQL NULL; text is valid UTF-8, store.c's rule);
	 *   copy_row ends the row; copy_end ends the stream and reports what the server made of
	 *   it, or with `abort` non-NULL discards every row of it (the caller's own failure).
	 * A failure is remembered by the stream and reported by copy_row or copy_end: the caller
	 * need check only those.
	 */
	int (*reserve_ids)(struct store_conn *c, const char *table, size_t n, int64_t *ids,
	                   struct err *e);
	int (*copy_begin)(struct store_conn *c, const char *table, const char *columns,
	                  struct err *e);
	void (*copy_int64)(struct store_conn *c, int64_t v);
	void (*copy_double)(struct store_conn *c, double v);
	void (*copy_text)(struct store_conn *c, const char *v);
	int (*copy_row)(struct store_conn *c, struct err *e);
	int (*copy_end)(struct store_conn *c, const char *abort, struct err *e);
};

extern const struct store_engine store_engine_sqlite;
extern const struct store_engine store_engine_pg;

/*
 * For tests (store_fault.c): *out is an engine in front of `inner` that fails the operation
 * GCR_TEST_STORE_FAULT names, or `inner` itself when the variable is not set. -1 with e
 * (ERR_INVALID) for a value it cannot read. store_open asks for it only in a build with
 * GCR_TEST_HOOKS (make asan); nothing else may.
 */
int store_fault_engine(const struct store_engine *inner, const struct store_engine **out,
                       struct err *e);

/*
 * libpq's connection strings, which only the PostgreSQL engine can read (store_pg.c):
 * - store_pg_is_conninfo: 1 for a URL (postgresql://, postgres://) or a key=value string
 *   (it starts with a keyword and '=');
 * - store_pg_names_server: 1 for a URL, or a key=value string that libpq parses whole (each
 *   key one of its keywords: "CC=clang sh build.sh" and "GCR_HEAP_MB=64" are not); without
 *   libpq, only a URL;
 * - store_pg_redact: the string as a message may show it, each password (user:password@,
 *   password=, sslpassword=, their keys percent-encoded or not) as "***", by libpq's own
 *   parsing; newly allocated;
 * - store_pg_redact_in: text (a message of libpq's, which may quote the string or a token of
 *   it) with the string's secrets replaced, as written and as decoded; newly allocated.
 */
int store_pg_is_conninfo(const char *s);
int store_pg_names_server(const char *s);
char *store_pg_redact(const char *target);
char *store_pg_redact_in(const char *target, const char *text);

#endif /* STORE_ENGINE_H */
