#include "meter_valgrind.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"
#include "fnprof.h"

#define METER_VALGRIND_FIXED_ARGS 10

int meter_valgrind_find(struct meter_valgrind *m, struct err *e)
{
	const char *path_env = getenv("PATH");
	char *paths = xstrdup(path_env ? path_env : "/usr/bin:/bin"), *save = NULL, *dir;
	FILE *p;
	char line[128] = "";
	int rc = -1;

	memset(m, 0, sizeof *m);
	for (dir = strtok_r(paths, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *cand = xasprintf("%s/valgrind", dir);
		if (access(cand, X_OK) == 0) {
			m->path = cand;
			break;
		}
		free(cand);
	}
	if (!m->path) {
		err_setc(e, ERR_NOT_FOUND,
		         "valgrind is not installed (needed by the valgrind meter): apt-get "
		         "install valgrind");
		goto out;
	}
	{
		char *cmd = xasprintf("'%s' --version 2>/dev/null", m->path);
		p = popen(cmd, "r");
		free(cmd);
	}
	if (p) {
		if (!fgets(line, sizeof line, p))
			line[0] = '\0';
		pclose(p);
	}
	line[strcspn(line, "\n")] = '\0';
	m->version = xstrdup(line[0] ? line : "valgrind-unknown");
	rc = 0;
out:
	free(paths);
	return rc;
}

void meter_valgrind_release(struct meter_valgrind *m)
{
	free(m->path);
	free(m->version);
	memset(m, 0, sizeof *m);
}

char **meter_valgrind_argv(const struct meter_valgrind *m, const char *out_file, int cache_sim,
                           int trace_children, char *const *probe_argv)
{
	static const char *const caches[] = {METER_VALGRIND_CACHES};
	size_t n = 0, i = 0;
	char **argv;

	while (probe_argv[n])
		n++;
	argv = xcalloc(n + METER_VALGRIND_FIXED_ARGS + 1, sizeof *argv);
	argv[i++] = xstrdup(m->path);
	argv[i++] = xstrdup("--tool=cachegrind");
	argv[i++] = xstrdup(cache_sim ? "--cache-sim=yes" : "--cache-sim=no");
	for (size_t k = 0; cache_sim && k < sizeof caches / sizeof caches[0]; k++)
		argv[i++] = xstrdup(caches[k]);
	/* Each process of the tree writes its own file, OUT_FILE.PID (%p is the pid). */
	if (trace_children) {
		argv[i++] = xstrdup("--trace-children=yes");
		argv[i++] = xasprintf("--cachegrind-out-file=%s.%%p", out_file);
	} else {
		argv[i++] = xasprintf("--cachegrind-out-file=%s", out_file);
	}
	/*
	 * Valgrind's own messages (cachegrind's "warning: L3 cache found, using its data for the
	 * LL simulation." on some hosts) go to a log of their own: the probe's stderr is what the
	 * probe printed, nothing else.
	 */
	argv[i++] = trace_children ? xasprintf("--log-file=%s.log.%%p", out_file)
	                           : xasprintf("--log-file=%s.log", out_file);
	argv[i++] = xstrdup("-q");
	for (size_t k = 0; k < n; k++)
		argv[i++] = xstrdup(probe_argv[k]);
	argv[i] = NULL;
	return argv;
}

void meter_valgrind_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* The events cachegrind counts, in the order struct meter_valgrind_counts lists them. */
static const char *const meter_valgrind_events[] = {"Ir",   "I1mr", "ILmr", "D1mr",
                                                    "DLmr", "D1mw", "DLmw"};
#define METER_VALGRIND_NEVENTS (sizeof meter_valgrind_events / sizeof meter_valgrind_events[0])

/* The value of each known event in a "summary:" line, by the columns "events:" names. */
static int meter_valgrind_columns(const char *out_file, const char *events, const char *summary,
                                  double *vals, int *seen, struct err *e)
{
	char *names = xstrdup(events), *save = NULL, *name;
	const char *p = summary;
	int rc = -1;

	for (name = strtok_r(names, " \t\r", &save); name; name = strtok_r(NULL, " \t\r", &save)) {
		char *end;
		double v = strtod(p, &end);

		if (end == p) {
			err_setc(e, ERR_INVALID,
			         "%s: the \"summary:\" line has no count for event %s", out_file,
			         name);
			goto out;
		}
		p = end;
		for (size_t k = 0; k < METER_VALGRIND_NEVENTS; k++) {
			if (strcmp(name, meter_valgrind_events[k]) == 0) {
				vals[k] = v;
				seen[k] = 1;
			}
		}
	}
	rc = 0;
out:
	free(names);
	return rc;
}

/* The column of Ir among the counts of a cost line: its place in "events:" (first by default). */
static size_t meter_valgrind_ir_column(const char *events)
{
	char *names = xstrdup(events ? events : "Ir"), *save = NULL, *name;
	size_t col = 0, k = 0;

	for (name = strtok_r(names, " \t\r", &save); name;
	     name = strtok_r(NULL, " \t\r", &save), k++)
		if (strcmp(name, "Ir") == 0) {
			col = k;
			break;
		}
	free(names);
	return col;
}

/*
 * The Ir of every fn= block of a cachegrind file into fns (one entry per block, merged by the
 * caller), and their sum into *sum. A cost line is "LINE COUNT..."; a count the line leaves
 * out is 0 (cachegrind drops trailing zeros).
 */
static int meter_valgrind_blocks(const char *out_file, const char *text, size_t ir_col,
                                 struct fnprof *fns, double *sum, struct err *e)
{
	const char *line, *file = NULL, *fn = NULL;
	size_t file_len = 0, fn_len = 0, lineno = 0;
	double block = 0;
	int in_block = 0;
	char *fname = NULL, *ffile = NULL;

	*sum = 0;
	for (line = text; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t len = strcspn(line, "\n");
		lineno++;
		if (len >= 3 && line[2] == '=' &&
		    (strncmp(line, "fl", 2) == 0 || strncmp(line, "fi", 2) == 0 ||
		     strncmp(line, "fe", 2) == 0 || strncmp(line, "fn", 2) == 0)) {
			if (in_block) {
				fname = xasprintf("%.*s", (int)fn_len, fn);
				ffile = file ? xasprintf("%.*s", (int)file_len, file) : NULL;
				fnprof_add(fns, fname, ffile, block);
				free(fname);
				free(ffile);
				in_block = 0;
			}
			if (line[1] == 'n') {
				fn = line + 3;
				fn_len = len - 3;
			} else {
				/* Code of another file (a header inlined): the same function goes on. */
				file = line + 3;
				file_len = len - 3;
			}
			in_block = fn && fn_len > 0;
			block = 0;
			continue;
		}
		if (len == 0 || line[0] < '0' || line[0] > '9')
			continue;
		{
			const char *p = line, *end = line + len;
			double v = 0;
			size_t k = 0;
			/*
			 * The line number, then the counts up to Ir's column: whole numbers, read by
			 * hand (strtod took nine tenths of the time to read a file).
			 */
			for (; k <= ir_col + 1; k++) {
				double x = 0;
				while (p < end && (*p == ' ' || *p == '\t'))
					p++;
				if (p == end || *p < '0' || *p > '9')
					break;
				for (; p < end && *p >= '0' && *p <= '9'; p++)
					x = x * 10 + (*p - '0');
				v = x;
			}
			if (k <= ir_col + 1)
				v = 0;
			if (!fn)
				return err_setc(e, ERR_INVALID,
				                "%s:%zu: a count before any \"fn=\" line", out_file,
				                lineno);
			block += v;
			*sum += v;
		}
	}
	if (in_block) {
		fname = xasprintf("%.*s", (int)fn_len, fn);
		ffile = file ? xasprintf("%.*s", (int)file_len, file) : NULL;
		fnprof_add(fns, fname, ffile, block);
		free(fname);
		free(ffile);
	}
	return 0;
}

static int meter_valgrind_read_one(const char *out_file, struct meter_valgrind_counts *c,
                                   struct fnprof *fns, struct err *e)
{
	char *text = NULL, *line, *events = NULL, *summary = NULL;
	double vals[METER_VALGRIND_NEVENTS] = {0};
	int seen[METER_VALGRIND_NEVENTS] = {0}, nmiss = 0, rc = -1;

	memset(c, 0, sizeof *c);
	if (read_file(out_file, &text, NULL, e) != 0)
		return -1;
	for (line = text; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t len = strcspn(line, "\n");
		if (strncmp(line, "events:", 7) == 0 && !events)
			events = xasprintf("%.*s", (int)(len - 7), line + 7);
		else if (strncmp(line, "summary:", 8) == 0 && !summary)
			summary = xasprintf("%.*s", (int)(len - 8), line + 8);
	}
	/* Without an "events:" line, the first column is Ir (cachegrind's default). */
	if (summary &&
	    meter_valgrind_columns(out_file, events ? events : "Ir", summary, vals, seen, e) != 0)
		goto out;
	if (!seen[0]) {
		err_setc(e, ERR_INVALID, "%s: no \"summary:\" line with an instruction count",
		         out_file);
		goto out;
	}
	for (size_t k = 1; k < METER_VALGRIND_NEVENTS; k++)
		nmiss += seen[k];
	if (nmiss != 0 && nmiss != (int)METER_VALGRIND_NEVENTS - 1) {
		err_setc(
		    e, ERR_INVALID,
		    "%s: the cache simulation counted only some of I1mr ILmr D1mr DLmr D1mw DLmw",
		    out_file);
		goto out;
	}
	c->ir = vals[0];
	c->cache_sim = nmiss != 0;
	c->i1mr = vals[1];
	c->ilmr = vals[2];
	c->d1mr = vals[3];
	c->dlmr = vals[4];
	c->d1mw = vals[5];
	c->dlmw = vals[6];
	if (fns) {
		double sum;
		if (meter_valgrind_blocks(out_file, text, meter_valgrind_ir_column(events), fns,
		                          &sum, e) != 0)
			goto out;
		/* cg_annotate refuses a file whose lines do not add up to its summary, and so do we. */
		if (sum != c->ir) {
			err_setc(
			    e, ERR_INVALID,
			    "%s: its functions count %.0f Ir in all, its \"summary:\" line %.0f",
			    out_file, sum, c->ir);
			goto out;
		}
	}
	rc = 0;
out:
	free(events);
	free(summary);
	free(text);
	return rc;
}

/*
 * Calls fn on each OUT_FILE.PID file of a process tree's run (the folder's order); stops at
 * the first that fails. The count of files is *n.
 */
static int meter_valgrind_tree(const char *out_file, size_t *n,
                               int (*fn)(const char *path, void *ctx, struct err *e), void *ctx,
                               struct err *e)
{
	char *dir = xstrdup(out_file), *slash = strrchr(dir, '/');
	const char *base = slash ? out_file + (slash - dir) + 1 : out_file;
	size_t blen = strlen(base);
	struct dirent *ent;
	DIR *d;
	int rc = -1;

	*n = 0;
	if (slash)
		*slash = '\0';
	d = opendir(slash ? dir : ".");
	if (!d) {
		err_setc(e, ERR_IO, "%s: cannot list the folder: %s", slash ? dir : ".",
		         strerror(errno));
		goto out;
	}
	while ((ent = readdir(d))) {
		const char *pid = ent->d_name + blen + 1;
		char *path;
		int r;
		if (strncmp(ent->d_name, base, blen) != 0 || ent->d_name[blen] != '.' || !*pid ||
		    strspn(pid, "0123456789") != strlen(pid))
			continue;
		path = slash ? xasprintf("%s/%s", dir, ent->d_name) : xstrdup(ent->d_name);
		r = fn(path, ctx, e);
		free(path);
		if (r != 0)
			goto out;
		(*n)++;
	}
	rc = 0;
out:
	if (d)
		closedir(d);
	free(dir);
	return rc;
}

/* What a tree's files add up to: the counts, and the functions when asked. */
struct meter_valgrind_sum {
	struct meter_valgrind_counts *counts;
	struct fnprof *fns;
};

/* Adds one process's counts to the tree's; all must agree on the cache simulation. */
static int meter_valgrind_add(const char *path, void *ctx, struct err *e)
{
	struct meter_valgrind_sum *t = ctx;
	struct meter_valgrind_counts *sum = t->counts, one;

	if (meter_valgrind_read_one(path, &one, t->fns, e) != 0)
		return -1;
	if (sum->ir > 0 && sum->cache_sim != one.cache_sim)
		return err_setc(e, ERR_INVALID,
		                "%s: counted with another cache simulation than its siblings",
		                path);
	sum->ir += one.ir;
	sum->cache_sim = one.cache_sim;
	sum->i1mr += one.i1mr;
	sum->ilmr += one.ilmr;
	sum->d1mr += one.d1mr;
	sum->dlmr += one.dlmr;
	sum->d1mw += one.d1mw;
	sum->dlmw += one.dlmw;
	return 0;
}

/*
 * Names valgrind left mangled (_Z...: C++ and the JVM's own code) through c++filt, when one is
 * on PATH; every name as it came when none is, or when it does not answer one line per name.
 */
static void meter_valgrind_demangle(struct fnprof *fns)
{
	size_t n = 0, k = 0;
	char **argv;
	struct sbuf out;
	char *line, *save = NULL;

	for (size_t i = 0; i < fns->n; i++)
		n += strncmp(fns->fns[i].name, "_Z", 2) == 0;
	if (n == 0)
		return;
	argv = xcalloc(n + 2, sizeof *argv);
	argv[k++] = (char *)"c++filt";
	for (size_t i = 0; i < fns->n; i++)
		if (strncmp(fns->fns[i].name, "_Z", 2) == 0)
			argv[k++] = fns->fns[i].name;
	sbuf_init(&out);
	if (run_capture(argv, 1, &out) == 0 && out.data) {
		size_t lines = 0;
		for (const char *p = out.data; *p; p++)
			lines += *p == '\n';
		if (lines == n) {
			line = strtok_r(out.data, "\n", &save);
			for (size_t i = 0; i < fns->n && line; i++) {
				if (strncmp(fns->fns[i].name, "_Z", 2) != 0)
					continue;
				if (*line) {
					free(fns->fns[i].name);
					fns->fns[i].name = xstrdup(line);
				}
				line = strtok_r(NULL, "\n", &save);
			}
		}
	}
	sbuf_release(&out);
	free(argv);
}

int meter_valgrind_read_profile(const char *out_file, int trace_children,
                                struct meter_valgrind_counts *c, struct fnprof *fns, struct err *e)
{
	struct meter_valgrind_sum sum = {c, fns};
	size_t n;
	int rc;

	/* valgrind writes nothing for a process that execs a program it does not follow. */
	if (!trace_children && access(out_file, F_OK) != 0)
		return err_set(e,
		               "%s: valgrind wrote no count: a probe that execs the real program "
		               "must be declared a wrapper in its manifest",
		               out_file);
	if (fns)
		fnprof_init(fns);
	if (!trace_children) {
		rc = meter_valgrind_read_one(out_file, c, fns, e);
	} else {
		memset(c, 0, sizeof *c);
		rc = meter_valgrind_tree(out_file, &n, meter_valgrind_add, &sum, e);
		if (rc == 0 && n == 0)
			rc = err_set(e,
			             "%s.PID: valgrind wrote no count for any process of the tree",
			             out_file);
	}
	if (rc != 0) {
		if (fns)
			fnprof_release(fns);
		return -1;
	}
	if (fns) {
		/* Demangled before they merge: two spellings of one function are one. */
		meter_valgrind_demangle(fns);
		fns->total_ir = c->ir;
		fnprof_keep(fns);
	}
	return 0;
}

int meter_valgrind_read(const char *out_file, int trace_children, struct meter_valgrind_counts *c,
                        struct err *e)
{
	return meter_valgrind_read_profile(out_file, trace_children, c, NULL, e);
}

static int meter_valgrind_unlink(const char *path, void *ctx, struct err *e)
{
	(void)ctx;
	(void)e;
	unlink(path);
	return 0;
}

void meter_valgrind_remove(const char *out_file)
{
	char *log = xasprintf("%s.log", out_file);
	struct err e;
	size_t n;

	unlink(out_file);
	meter_valgrind_tree(out_file, &n, meter_valgrind_unlink, NULL, &e);
	unlink(log);
	meter_valgrind_tree(log, &n, meter_valgrind_unlink, NULL, &e);
	free(log);
}

static int meter_valgrind_log_add(const char *path, void *ctx, struct err *e)
{
	struct sbuf *b = ctx;
	char *text = NULL;
	size_t len = 0;

	if (read_file(path, &text, &len, e) == 0)
		sbuf_add(b, text, len);
	free(text);
	return 0;
}

char *meter_valgrind_log(const char *out_file, int trace_children)
{
	char *log = xasprintf("%s.log", out_file), *text;
	struct sbuf b;
	struct err e;
	size_t n;

	sbuf_init(&b);
	if (trace_children)
		meter_valgrind_tree(log, &n, meter_valgrind_log_add, &b, &e);
	else
		meter_valgrind_log_add(log, &b, &e);
	free(log);
	text = b.len ? sbuf_detach(&b) : NULL;
	sbuf_release(&b);
	return text;
}

char *meter_valgrind_log_error(const char *log)
{
	const char *line = log, *last = NULL;
	size_t last_len = 0;

	/* "==PID== message" is valgrind speaking; "--PID-- warning: ..." is its chatter. */
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (len > 2 && line[0] == '=' && line[1] == '=') {
			const char *msg = memchr(line + 2, '=', len - 2);
			if (msg && (size_t)(msg - line) + 2 < len && msg[1] == '=') {
				size_t skip = (size_t)(msg - line) + 2;
				while (skip < len && line[skip] == ' ')
					skip++;
				if (skip < len) {
					last = line + skip;
					last_len = len - skip;
				}
			}
		}
		line = end ? end + 1 : NULL;
	}
	return last ? xasprintf("%.*s", (int)last_len, last) : NULL;
}

char *meter_valgrind_wrapper_suspect(double ir, double user_ns)
{
	double user_s = user_ns / 1e9;

	if (user_ns <= 0 || ir >= METER_VALGRIND_IR_FLOOR_PER_CPU_S * user_s)
		return NULL;
	return xasprintf("Ir looks like a wrapper's (%.0f Ir for %.3f s of user time): declare "
	                 "the probe a wrapper in the manifest",
	                 ir, user_s);
}

void meter_valgrind_metrics(const struct meter_valgrind_counts *c, struct metric_set *s)
{
	metric_set_add(s, "valgrind.ir", c->ir);
	if (!c->cache_sim)
		return;
	metric_set_add(s, "cachesim.d1_misses", c->d1mr + c->d1mw);
	metric_set_add(s, "cachesim.ll_misses", c->dlmr + c->dlmw + c->ilmr);
	metric_set_add(s, "cachesim.i1_misses", c->i1mr);
	metric_set_add(s, "cachesim.est_cycles",
	               c->ir + 10 * (c->i1mr + c->d1mr + c->d1mw) +
	                   100 * (c->ilmr + c->dlmr + c->dlmw));
}
