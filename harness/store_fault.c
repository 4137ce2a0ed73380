/*
 * store_fault.c — an engine in front of another that fails its Nth operation, for tests: the
 * SQLite habit of testing failure paths as first-class (a failing VFS), at the seam every
 * engine plugs into (store_engine.h).
 *
 * Only a test build asks for it: store_open puts it in front of the chosen engine when built
 * with GCR_TEST_HOOKS (make asan) and GCR_TEST_STORE_FAULT is set:
 *   GCR_TEST_STORE_FAULT=N    operation N (from 1) fails, and only it;
 *   GCR_TEST_STORE_FAULT=N+   operation N and every later one fail (a disk that is gone);
 *   GCR_TEST_STORE_FAULT=0    nothing fails: the operations are only counted.
 * An operation is an open, a create_base, a begin, a commit, an exec, a prepare, a step, or
 * (PostgreSQL's bulk writing) a reserve_ids, a copy_begin or a copy_end,
 * counted over the whole process (a push's two databases share the count). With
 * GCR_TEST_STORE_OPS=FILE, every close writes the count so far to FILE, so a test knows how
 * many operations a verb has and can fail each in turn (tests/cli/t124-store-faults.sh).
 *
 * A failed operation does nothing: the engine under it is not called, so a failed commit
 * leaves its transaction open, as SQLite's SQLITE_BUSY on COMMIT does, and a failed step has
 * not run. The error is ERR_IO, "injected fault: operation N (step)".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_engine.h"

/* A connection and a statement of the engine underneath, and which engine that is. */
struct store_conn {
	const struct store_engine *eng;
	struct store_conn *c; /* the inner engine's (opaque here, as everywhere but its file) */
};

struct store_stmt {
	const struct store_engine *eng;
	struct store_stmt *st; /* the inner engine's */
};

static struct {
	int parsed;
	unsigned long at;  /* the operation that fails; 0: none */
	int sticky;        /* 1: every one from `at` on */
	unsigned long ops; /* operations so far */
	const char *count_file;
} fault;

/* 0 when the operation may go ahead; -1 with e when it is the one that fails. */
static int fault_op(const char *what, struct err *e)
{
	fault.ops++;
	if (fault.at == 0 || fault.ops < fault.at || (fault.ops > fault.at && !fault.sticky))
		return 0;
	return err_setc(e, ERR_IO, "injected fault: operation %lu (%s)", fault.ops, what);
}

static int fault_open(const struct store_engine *inner, const char *target, enum store_mode mode,
                      struct store_conn **out, struct err *e)
{
	struct store_conn *c;

	*out = NULL;
	if (fault_op("open", e) != 0)
		return -1;
	c = xcalloc(1, sizeof *c);
	c->eng = inner;
	if (inner->open(target, mode, &c->c, e) != 0) {
		free(c);
		return -1;
	}
	*out = c;
	return 0;
}

static int fault_open_sqlite(const char *target, enum store_mode mode, struct store_conn **out,
                             struct err *e)
{
	return fault_open(&store_engine_sqlite, target, mode, out, e);
}

static int fault_open_pg(const char *target, enum store_mode mode, struct store_conn **out,
                         struct err *e)
{
	return fault_open(&store_engine_pg, target, mode, out, e);
}

static void fault_close(struct store_conn *c)
{
	FILE *f;

	if (!c)
		return;
	c->eng->close(c->c);
	free(c);
	if (fault.count_file && (f = fopen(fault.count_file, "w"))) {
		fprintf(f, "%lu\n", fault.ops);
		fclose(f);
	}
}

static int fault_create_base(struct store_conn *c, struct err *e)
{
	return fault_op("create_base", e) != 0 ? -1 : c->eng->create_base(c->c, e);
}

static int fault_begin(struct store_conn *c, struct err *e)
{
	return fault_op("begin", e) != 0 ? -1 : c->eng->begin(c->c, e);
}

static int fault_commit(struct store_conn *c, struct err *e)
{
	return fault_op("commit", e) != 0 ? -1 : c->eng->commit(c->c, e);
}

static void fault_rollback(struct store_conn *c)
{
	c->eng->rollback(c->c);
}

static int fault_exec(struct store_conn *c, const char *sql, struct err *e)
{
	return fault_op("exec", e) != 0 ? -1 : c->eng->exec(c->c, sql, e);
}

static int fault_prepare(struct store_conn *c, const char *sql, struct store_stmt **out,
                         struct err *e)
{
	struct store_stmt *st;

	*out = NULL;
	if (fault_op("prepare", e) != 0)
		return -1;
	st = xcalloc(1, sizeof *st);
	st->eng = c->eng;
	if (c->eng->prepare(c->c, sql, &st->st, e) != 0) {
		free(st);
		return -1;
	}
	*out = st;
	return 0;
}

static void fault_bind_int64(struct store_stmt *st, int i, int64_t v)
{
	st->eng->bind_int64(st->st, i, v);
}

static void fault_bind_double(struct store_stmt *st, int i, double v)
{
	st->eng->bind_double(st->st, i, v);
}

static void fault_bind_text(struct store_stmt *st, int i, const char *v)
{
	st->eng->bind_text(st->st, i, v);
}

static int fault_step(struct store_stmt *st, struct err *e)
{
	return fault_op("step", e) != 0 ? -1 : st->eng->step(st->st, e);
}

static int fault_reset(struct store_stmt *st, struct err *e)
{
	return st->eng->reset(st->st, e);
}

static int fault_column_null(struct store_stmt *st, int i)
{
	return st->eng->column_null(st->st, i);
}

static int64_t fault_column_int64(struct store_stmt *st, int i)
{
	return st->eng->column_int64(st->st, i);
}

static double fault_column_double(struct store_stmt *st, int i)
{
	return st->eng->column_double(st->st, i);
}

static int fault_column_number(struct store_stmt *st, int i, double *out, const char **what)
{
	return st->eng->column_number(st->st, i, out, what);
}

static const char *fault_column_text(struct store_stmt *st, int i)
{
	return st->eng->column_text(st->st, i);
}

static void fault_finalize(struct store_stmt *st)
{
	if (!st)
		return;
	st->eng->finalize(st->st);
	free(st);
}

static int fault_reserve_ids(struct store_conn *c, const char *table, size_t n, int64_t *ids,
                             struct err *e)
{
	return fault_op("reserve_ids", e) != 0 ? -1 : c->eng->reserve_ids(c->c, table, n, ids, e);
}

static int fault_copy_begin(struct store_conn *c, const char *table, const char *columns,
                            struct err *e)
{
	return fault_op("copy_begin", e) != 0 ? -1 : c->eng->copy_begin(c->c, table, columns, e);
}

static void fault_copy_int64(struct store_conn *c, int64_t v)
{
	c->eng->copy_int64(c->c, v);
}

static void fault_copy_double(struct store_conn *c, double v)
{
	c->eng->copy_double(c->c, v);
}

static void fault_copy_text(struct store_conn *c, const char *v)
{
	c->eng->copy_text(c->c, v);
}

static int fault_copy_row(struct store_conn *c, struct err *e)
{
	return c->eng->copy_row(c->c, e);
}

/* A failed end discards the stream underneath, as the server would: nothing of it is stored. */
static int fault_copy_end(struct store_conn *c, const char *abort, struct err *e)
{
	struct err ignored;

	if (fault_op("copy_end", e) != 0) {
		c->eng->copy_end(c->c, "injected fault", &ignored);
		return -1;
	}
	return c->eng->copy_end(c->c, abort, e);
}

/* One wrapper per engine underneath, told apart by their open; the rest is shared. */
#define FAULT_COMMON                                                                        \
	.close = fault_close, .create_base = fault_create_base, .begin = fault_begin,       \
	.commit = fault_commit, .rollback = fault_rollback, .exec = fault_exec,             \
	.prepare = fault_prepare, .bind_int64 = fault_bind_int64,                           \
	.bind_double = fault_bind_double, .bind_text = fault_bind_text, .step = fault_step, \
	.reset = fault_reset, .column_null = fault_column_null,                             \
	.column_int64 = fault_column_int64, .column_double = fault_column_double,           \
	.column_number = fault_column_number, .column_text = fault_column_text,             \
	.finalize = fault_finalize

static const struct store_engine store_fault_sqlite = {
    .name = "sqlite",
    .open = fault_open_sqlite,
    FAULT_COMMON,
};
/* Bulk writing is offered where the engine underneath offers it (PostgreSQL only). */
static const struct store_engine store_fault_pg = {
    .name = "postgresql",
    .open = fault_open_pg,
    FAULT_COMMON,
    .reserve_ids = fault_reserve_ids,
    .copy_begin = fault_copy_begin,
    .copy_int64 = fault_copy_int64,
    .copy_double = fault_copy_double,
    .copy_text = fault_copy_text,
    .copy_row = fault_copy_row,
    .copy_end = fault_copy_end,
};

int store_fault_engine(const struct store_engine *inner, const struct store_engine **out,
                       struct err *e)
{
	const char *spec = getenv("GCR_TEST_STORE_FAULT");

	*out = inner;
	if (!spec || !*spec)
		return 0;
	if (!fault.parsed) {
		size_t len = strlen(spec);
		uint64_t at;
		char *digits = xstrdup(spec);
		int sticky = len > 1 && spec[len - 1] == '+';

		if (sticky)
			digits[len - 1] = '\0';
		if (parse_u64(digits, &at) != 0 || at > 1000000000) {
			free(digits);
			return err_setc(
			    e, ERR_INVALID,
			    "GCR_TEST_STORE_FAULT must be N or N+ (N from 0), got \"%s\"", spec);
		}
		free(digits);
		fault.at = (unsigned long)at;
		fault.sticky = sticky;
		fault.count_file = getenv("GCR_TEST_STORE_OPS");
		fault.parsed = 1;
	}
	if (inner == &store_engine_pg)
		*out = &store_fault_pg;
	else if (inner == &store_engine_sqlite)
		*out = &store_fault_sqlite;
	return 0;
}
