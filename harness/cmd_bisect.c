/*
 * gcratchet bisect — finds the commit that moved a figure: builds a collector at the commits
 * between a good and a bad end, measures each with the current harness, and narrows down as
 * git bisect does, deciding each step from the figure (bisect.h: exact or paired). Every step
 * is stored (store.h, bisects), so an interrupted bisect resumes where it stopped and a build
 * is made once per commit and build options. docs/bisect.md.
 *
 * This file is the verb: it parses the options, enters a resume, sets up each session the
 * engine asks for (session_setup_begin, from the run options it parsed, copied whole) and
 * renders what the engine reports (bisect_engine.h) as the running account, the answer and
 * the JSON. The engine builds, measures, decides and stores.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect_engine.h"
#include "bisect_fleet.h"
#include "buildinfo.h"
#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "measuring.h"
#include "metrics.h"
#include "quiet.h"
#include "report_bisect.h"
#include "session_opts.h"
#include "store.h"

/* The verb's side of a bisect: the engine, the run options it was given, where it writes. */
/* What the command line asked for, beside the engine's settings and the run options. */
struct bisect_args {
	const char *good, *bad, *threshold, *repo_opt, *json_path, *cache_opt, *spec_given;
	const char *fleet; /* --fleet URL: each measurement a job of the fleet's queue */
	const char *sources[3];
	struct strlist wanted, positional;
	int resume, nsources, rounds, max_rounds;
	int all, segments; /* --all, --segments */
};

struct bisect_view {
	const char *cmd;
	struct bisect_engine eng;
	struct session_opts base; /* how runs are made: timeout, jobs, lock, cpu, db, ... */
	struct bisect_args args;  /* the rest of the command line */
	FILE *out; /* the running account: stdout, or stderr when the JSON goes there */
	struct bisect_fleet *fleet; /* --fleet: the measure hooks run jobs (bisect_fleet.h) */
};

static volatile sig_atomic_t bisect_stop;

static void bisect_on_signal(int sig)
{
	(void)sig;
	if (bisect_stop < SIG_ATOMIC_MAX)
		bisect_stop++;
}

/* ---- Measuring ------------------------------------------------------------------------- */

/*
 * The engine's measure hook: sets up the session m asks for with the run options bisect was
 * given, copied whole (so none is dropped), and what the engine decides on top (arms, probes,
 * meters, rounds), runs it under a progress line and loads its runs. bisect_engine.h.
 */
static int bisect_measure(void *ctx, const struct bisect_measure *m, int64_t *session_id,
                          struct store_run **runs, size_t *nruns, struct err *e)
{
	struct bisect_view *v = ctx;
	struct session_opts o;
	struct session_setup s;
	struct session_outcome outcome;
	struct err se = ERR_INIT;
	int rc = -1;

	*session_id = 0;
	*runs = NULL;
	*nruns = 0;
	session_setup_init(&s);
	session_opts_copy(&o, &v->base);
	snprintf(o.size, sizeof o.size, "%s", v->eng.size);
	free(o.meters);
	free(o.events);
	free(o.probes);
	o.meters = xstrdup(m->meters);
	o.events = m->events ? xstrdup(m->events) : NULL;
	o.probes = xstrdup(m->probes);
	if (m->valgrind_runs > 0) {
		o.rounds = 0;
		o.warmup = 0;
		o.valgrind_runs = o.valgrind_runs_max = m->valgrind_runs;
	} else {
		o.rounds = m->rounds;
		o.warmup = m->warmup;
	}
	o.have_seed = 0;
	o.no_aslr |= m->no_aslr;
	for (size_t a = 0; a < m->narms; a++) {
		struct buildinfo b;
		if (buildinfo_load(m->dirs[a], &b, &se) != 0) {
			err_setc(e, se.code, "%s: %s", bisect_engine_short(m->hashes[a]), se.msg);
			goto out;
		}
		session_setup_add_arm(&s, &b, NULL);
	}
	/* It prints why it could not set the session up itself. */
	if (session_setup_begin(v->cmd, &o, m->command, &s) != 0) {
		err_setc(e, ERR_FAILED, "%s", "");
		goto out;
	}
	s.plan.halt_on_failure = m->halt_on_failure;
	/* It prints why the harness failed itself, as session_setup_begin does. */
	if (measuring_run(v->cmd, &s, NULL, &outcome) != 0) {
		*session_id = outcome.session_id;
		err_setc(e, ERR_FAILED, "%s", "");
		goto out;
	}
	*session_id = outcome.session_id;
	/* Interrupted after its last run, the session is complete, but the bisect stops. */
	if (outcome.interrupted || outcome.late_interrupt) {
		rc = -2;
		goto out;
	}
	if (store_runs_load(s.st, outcome.session_id, -1, runs, nruns, e) != 0)
		goto out;
	rc = 0;
out:
	session_setup_end(&s);
	session_opts_release(&o);
	return rc;
}

/* The measure hooks with --fleet: each measurement a job of the fleet's queue. */
static int bisect_measure_fleet(void *ctx, const struct bisect_measure *m, int64_t *session_id,
                                struct store_run **runs, size_t *nruns, struct err *e)
{
	return bisect_fleet_measure(((struct bisect_view *)ctx)->fleet, m, session_id, runs, nruns,
	                            e);
}

static int bisect_measure_many_fleet(void *ctx, const struct bisect_measure *m, size_t n,
                                     struct bisect_measured *out)
{
	return bisect_fleet_measure_many(((struct bisect_view *)ctx)->fleet, m, n, out);
}

/* ---- Rendering: the running account, the answer, the JSON ------------------------------ */

/*
 * A skip's reason without what is its commit's own: the build log's path ("(log: PATH)") and
 * the note that the failure was remembered. Two commits that fail alike have the same one.
 * Newly allocated.
 */
static char *bisect_reason_core(const char *reason)
{
	char *r = xstrdup(reason ? reason : ""), *log, *end;

	if ((end = strstr(r, "; remembered from ")) != NULL)
		*end = '\0';
	/* " (log: PATH)" goes whole; "(--build-timeout; log: PATH)" keeps its first part. */
	if ((log = strstr(r, " (log: ")) != NULL && (end = strchr(log, ')')) != NULL)
		memmove(log, end + 1, strlen(end + 1) + 1);
	else if ((log = strstr(r, "; log: ")) != NULL && (end = strchr(log, ')')) != NULL)
		memmove(log, end, strlen(end) + 1);
	return r;
}

/* The first skipped step before st (in the order measured) whose reason is st's, or NULL. */
static const struct store_bisect_step *bisect_same_skip(const struct bisect_engine *c,
                                                        const struct store_bisect_step *st)
{
	const struct store_bisect_step *same = NULL;
	char *mine = bisect_reason_core(st->reason);

	for (size_t i = 0; i < c->nsteps && !same && c->steps[i].seq < st->seq; i++) {
		char *core;
		if (strcmp(c->steps[i].decision, "skip") != 0 || strcmp(c->steps[i].role, "step"))
			continue;
		core = bisect_reason_core(c->steps[i].reason);
		if (strcmp(core, mine) == 0)
			same = &c->steps[i];
		free(core);
	}
	free(mine);
	return same;
}

/* A skip's lines, the first of several alike in full and the rest short. */
static void bisect_print_skip(const struct bisect_view *view, const struct store_bisect_step *st)
{
	const struct store_bisect_step *same = bisect_same_skip(&view->eng, st);
	const char *log = strstr(st->reason, " (log: ");
	char *path = log ? xasprintf("%.*s", (int)(strcspn(log, ")") + 1), log) : NULL;

	if (same)
		fprintf(view->out, "       skipped: as %s was%s\n",
		        bisect_engine_short(same->commit), cli_safe(path));
	else
		fprintf(view->out, "       skipped: %s\n", cli_safe(st->reason));
	free(path);
}

/*
 * A scan's step: "[3]    1a2b3c4 moved  15_request_latency 223.6M: +20.00% from 079e38e
 * (moved), +0.00% to 9fe4723 (same) ...", or a skip with its reason.
 */
static void bisect_print_scan_step(const struct bisect_view *view,
                                   const struct store_bisect_step *st, int stored)
{
	const struct bisect_engine *c = &view->eng;
	cJSON *root = NULL, *item;
	const cJSON *scan = NULL, *host;
	struct err e;
	struct sbuf b;
	const char *word = "skip";

	sbuf_init(&b);
	if (st->figures && json_parse(st->figures, strlen(st->figures), "figures", &root, &e) == 0)
		scan = cJSON_GetObjectItemCaseSensitive(root, "scan");
	if (scan) {
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(scan, "left");
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(scan, "right");
		int moved = (cJSON_IsString(l) && strcmp(l->valuestring, "moved") == 0) ||
		            (cJSON_IsString(r) && strcmp(r->valuestring, "moved") == 0);
		word = moved ? "moved" : "same";
	}
	sbuf_addf(&b, "[%d]%*s %s %-5s", st->seq - 2, st->seq - 2 < 10 ? 3 : 2, "",
	          bisect_engine_short(st->commit), word);
	for (item = scan && root ? root->child : NULL; item; item = item->next) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, "value");
		char buf[24];
		if (strcmp(item->string, "scan") == 0)
			continue;
		sbuf_addf(&b, "  %s", cli_safe(item->string));
		if (cJSON_IsNumber(v)) {
			metrics_format_value(c->metric, v->valuedouble, buf, sizeof buf);
			sbuf_addf(&b, " %s", buf);
		}
		for (int k = 0; k < 2; k++) {
			const char *side = k ? "next" : "into";
			char key[24];
			const cJSON *pct, *link, *n, *at;
			snprintf(key, sizeof key, "%s_pct", side);
			pct = cJSON_GetObjectItemCaseSensitive(item, key);
			snprintf(key, sizeof key, "%s_link", side);
			link = cJSON_GetObjectItemCaseSensitive(item, key);
			snprintf(key, sizeof key, "%s_n", side);
			n = cJSON_GetObjectItemCaseSensitive(item, key);
			at = cJSON_GetObjectItemCaseSensitive(scan, k ? "after" : "before");
			if (!cJSON_IsNumber(pct) || !cJSON_IsString(link) || !cJSON_IsString(at))
				continue;
			/* "from" the commit before it; "to" the one after, as that one moved from it */
			sbuf_addf(&b, "%s %+.2f%% %s %s (%s", k ? "," : ":", pct->valuedouble,
			          k ? "to" : "from", bisect_engine_short(at->valuestring),
			          link->valuestring);
			if (cJSON_IsNumber(n))
				sbuf_addf(&b, ", %d pairs", n->valueint);
			sbuf_addf(&b, ")");
		}
	}
	sbuf_addf(&b, "   build %.1f s", st->build_s);
	if (st->measure_s > 0)
		sbuf_addf(&b, ", measure %.1f s", st->measure_s);
	host = cJSON_GetObjectItemCaseSensitive(scan, "host");
	if (cJSON_IsString(host))
		sbuf_addf(&b, " on %s", cli_safe(host->valuestring));
	cJSON_Delete(root);
	if (stored)
		sbuf_addf(&b, " (stored)");
	sbuf_addf(&b, "  %s", cli_safe(st->subject));
	fprintf(view->out, "%s\n", b.data);
	if (st->reason && strcmp(st->decision, "skip") == 0)
		bisect_print_skip(view, st);
	fflush(view->out);
	sbuf_release(&b);
}

/* A scan's pass: "Scanning (pass 2): 2 commits: 3c4d5e6, 9a8b7c6". */
static void bisect_print_pass(const struct bisect_view *v, const struct bisect_event *ev)
{
	const struct bisect_engine *c = &v->eng;

	fprintf(v->out, "Scanning (pass %u): %zu commit%s:", ev->steps, ev->nplans,
	        ev->nplans == 1 ? "" : "s");
	for (size_t i = 0; i < ev->nplans; i++)
		fprintf(v->out, "%s %s", i ? "," : "",
		        bisect_engine_short(c->commits[ev->plans[i].mid].hash));
	fprintf(v->out, "\n");
	fflush(v->out);
}

/* One line of the running account: "[3] 1a2b3c4 bad   01_nursery_churn 37 (+2.78%) ...". */
static void bisect_print_step(const struct bisect_view *view, const struct store_bisect_step *st,
                              int stored)
{
	const struct bisect_engine *c = &view->eng;
	enum bisect_mark m = BISECT_SKIP;
	struct sbuf b;
	cJSON *root = NULL, *item;
	struct err e;
	char *label;

	if (c->scan && strcmp(st->role, "step") == 0) {
		bisect_print_scan_step(view, st, stored);
		return;
	}
	bisect_mark_parse(st->decision, &m);
	sbuf_init(&b);
	label = strcmp(st->role, "step") == 0 ? xasprintf("[%d]", st->seq - 2)
	                                      : xasprintf("[%s]", st->role);
	sbuf_addf(&b, "%-6s %s %-5s", label, bisect_engine_short(st->commit),
	          strcmp(st->role, "step") == 0 ? bisect_mark_name(m) : "");
	free(label);
	if (st->figures && json_parse(st->figures, strlen(st->figures), "figures", &root, &e) == 0)
		cJSON_ArrayForEach(item, root)
		{
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, "value");
			const cJSON *values = cJSON_GetObjectItemCaseSensitive(item, "values");
			const cJSON *d = cJSON_GetObjectItemCaseSensitive(item, "delta_pct");
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(item, "n");
			const cJSON *x;
			char buf[24];
			int k = 0;
			if (strcmp(item->string, "scan") == 0)
				continue;
			sbuf_addf(&b, "  %s ", cli_safe(item->string));
			if (cJSON_IsNumber(v)) {
				metrics_format_value(c->metric, v->valuedouble, buf, sizeof buf);
				sbuf_addf(&b, "%s", buf);
			}
			cJSON_ArrayForEach(x, values)
			{
				if (!cJSON_IsNumber(x))
					continue;
				if (k == 3) {
					sbuf_addf(&b, " ... (%d)", cJSON_GetArraySize(values));
					break;
				}
				metrics_format_value(c->metric, x->valuedouble, buf, sizeof buf);
				sbuf_addf(&b, "%s%s", k++ ? ", " : "", buf);
			}
			if (cJSON_IsNumber(d) || cJSON_IsNumber(n)) {
				sbuf_addf(&b, " (");
				if (cJSON_IsNumber(d))
					sbuf_addf(&b, "%+.2f%%", d->valuedouble);
				if (cJSON_IsNumber(n))
					sbuf_addf(&b, "%s%d pairs", cJSON_IsNumber(d) ? ", " : "",
					          n->valueint);
				sbuf_addf(&b, ")");
			}
		}
	cJSON_Delete(root);
	sbuf_addf(&b, "   build %.1f s", st->build_s);
	if (st->measure_s > 0)
		sbuf_addf(&b, ", measure %.1f s", st->measure_s);
	if (stored)
		sbuf_addf(&b, " (stored)");
	sbuf_addf(&b, "  %s", cli_safe(st->subject));
	fprintf(view->out, "%s\n", b.data);
	/* Fifteen commits that fail alike are fifteen lines: each after the first is short. */
	if (st->reason && m == BISECT_SKIP)
		bisect_print_skip(view, st);
	fflush(view->out);
	sbuf_release(&b);
}

/*
 * "4 steps: build 3.6 s, measure 4.1 s; skipped 1:", then each skip: a commit with its reason,
 * or for several that were skipped alike (bisect_reason_core) one line, "15 commits do not
 * build: REASON (first X, last Y)" in the history's order. The JSON keeps each.
 */
static void bisect_print_cost(const struct bisect_view *v)
{
	const struct bisect_engine *c = &v->eng;
	size_t steps = c->nsteps >= 2 ? c->nsteps - 2 : 0, skipped = 0, n = c->nsteps;
	char **core = xcalloc(n ? n : 1, sizeof *core);
	unsigned char *said = xcalloc(n ? n : 1, 1);

	for (size_t i = 0; i < n; i++) {
		skipped += strcmp(c->steps[i].decision, "skip") == 0;
		core[i] = bisect_reason_core(c->steps[i].reason);
	}
	fprintf(v->out, "bisect %lld: %zu step%s after the ends: build %.1f s, measure %.1f s",
	        (long long)c->id, steps, steps == 1 ? "" : "s", c->build_s, c->measure_s);
	if (skipped)
		fprintf(v->out, "; skipped %zu:", skipped);
	fprintf(v->out, "\n");
	for (size_t i = 0; i < n; i++) {
		const struct store_bisect_step *st = &c->steps[i];
		size_t alike = 0, first = SIZE_MAX, last = 0;
		if (said[i] || strcmp(st->decision, "skip") != 0)
			continue;
		for (size_t j = i; j < n; j++) {
			size_t k;
			if (said[j] || strcmp(c->steps[j].decision, "skip") != 0 ||
			    strcmp(core[j], core[i]) != 0)
				continue;
			said[j] = 1;
			alike++;
			for (k = 0; k < c->ncommits; k++)
				if (strcmp(c->commits[k].hash, c->steps[j].commit) == 0)
					break;
			first = k < first ? k : first;
			last = k < c->ncommits && k > last ? k : last;
		}
		if (alike == 1 || first >= c->ncommits)
			fprintf(v->out, "  skipped %s %s: %s\n", bisect_engine_short(st->commit),
			        cli_safe(st->subject), cli_safe(st->reason));
		else if (strncmp(core[i], "does not build: ", 16) == 0)
			fprintf(v->out, "  %zu commits do not build: %s (first %s, last %s)\n",
			        alike, cli_safe(core[i] + 16),
			        bisect_engine_short(c->commits[first].hash),
			        bisect_engine_short(c->commits[last].hash));
		else
			fprintf(v->out, "  %zu commits skipped: %s (first %s, last %s)\n", alike,
			        cli_safe(core[i]), bisect_engine_short(c->commits[first].hash),
			        bisect_engine_short(c->commits[last].hash));
	}
	for (size_t i = 0; i < n; i++)
		free(core[i]);
	free(core);
	free(said);
}

/* " (3 stretches)": how many neighbouring stretches one cannot-tell line covers, in a static
 * buffer. */
static const char *bisect_stretches_text(size_t n)
{
	static char buf[32];

	snprintf(buf, sizeof buf, " (%zu stretches)", n);
	return buf;
}

/* "+37.3M (+20.00%)", or "186.3M -> 223.6M (+20.00%)" where the figures before and after are
 * known (exact mode: paired mode's figures are medians of different sessions). */
static void bisect_scan_move_text(const struct bisect_engine *c, size_t from, size_t hi, size_t p,
                                  char *buf, size_t size)
{
	double pct, d = bisect_engine_into(c, hi, p, &pct);
	char x[24], y[24];

	if (c->exact) {
		metrics_format_value(c->metric, bisect_engine_value(c, from, p), x, sizeof x);
		metrics_format_value(c->metric, bisect_engine_value(c, hi, p), y, sizeof y);
		snprintf(buf, size, "%s -> %s (%+.2f%%)", x, y, pct);
	} else {
		metrics_format_value(c->metric, fabs(d), x, sizeof x);
		snprintf(buf, size, "%s%s median delta (%+.2f%%)", d < 0 ? "-" : "+", x, pct);
	}
}

/*
 * A finished scan's answer: each change (its commit, subject, way and size per probe), the
 * stretches it could not narrow or tell, how much of the ends' move the changes explain, and
 * what it cost; records the status and writes the JSON. 0 when every change was narrowed to
 * one commit (none at all included); 2 when a stretch was left.
 */
static int bisect_finish_scan(struct bisect_view *v, const char *json_path, int record)
{
	struct bisect_engine *c = &v->eng;
	size_t n, narrowed = 0;
	struct bisect_change *ch = bisect_engine_changes(c, &n);
	struct err e = ERR_INIT;
	const char *status;
	char *json, buf[96];
	int rc;

	for (size_t i = 0; i < n; i++)
		narrowed +=
		    ch[i].find.link == BISECT_LINK_MOVED && ch[i].find.from + 1 == ch[i].find.hi;
	fprintf(v->out, "%s between %s and %s: %zu change%s found%s\n", c->metric,
	        bisect_engine_short(c->commits[0].hash),
	        bisect_engine_short(c->commits[c->ncommits - 1].hash), narrowed,
	        narrowed == 1 ? "" : "s",
	        n > narrowed ? ", and stretches it could not narrow" : "");
	for (size_t i = 0; i < n; i++) {
		const struct bisect_scan_find *f = &ch[i].find;
		size_t last = i;
		/* Neighbouring stretches it cannot tell are one line, their moves summed. */
		while (f->link == BISECT_LINK_CANNOT_TELL && last + 1 < n &&
		       ch[last + 1].find.link == BISECT_LINK_CANNOT_TELL &&
		       ch[last + 1].find.from == ch[last].find.hi)
			last++;
		if (f->link == BISECT_LINK_CANNOT_TELL) {
			fprintf(v->out,
			        "  cannot tell %s %s..%s%s: it may have moved; its runs could not "
			        "say\n",
			        last > i || f->from + 1 < f->hi ? "in" : "between",
			        bisect_engine_short(c->commits[f->from].hash),
			        bisect_engine_short(c->commits[ch[last].find.hi].hash),
			        last > i ? bisect_stretches_text(last - i + 1) : "");
			for (size_t p = 0; p < c->nprobes; p++) {
				double sum = 0, pct;
				char x[24];
				for (size_t k = i; k <= last; k++)
					sum += bisect_engine_into(c, ch[k].find.hi, p, &pct);
				metrics_format_value(c->metric, fabs(sum), x, sizeof x);
				fprintf(v->out, "       %s %s: %s%s net\n", c->probes[p].name,
				        c->metric, sum < 0 ? "-" : "+", x);
			}
			i = last;
			continue;
		}
		if (f->from + 1 < f->hi)
			fprintf(v->out, "  moved in %s..%s: every commit between was skipped\n",
			        bisect_engine_short(c->commits[f->from].hash),
			        bisect_engine_short(c->commits[f->hi].hash));
		else
			fprintf(v->out, "  %-4s %s %s\n", ch[i].sign < 0 ? "down" : "up",
			        c->commits[f->hi].hash, cli_safe(c->commits[f->hi].subject));
		for (size_t p = 0; p < c->nprobes; p++) {
			bisect_scan_move_text(c, f->from, f->hi, p, buf, sizeof buf);
			fprintf(v->out, "       %s %s: %s\n", c->probes[p].name, c->metric, buf);
		}
	}
	for (size_t p = 0; p < c->nprobes; p++) {
		double ends, found;
		char a[24], b[24];
		bisect_engine_explained(c, p, &ends, &found);
		metrics_format_value(c->metric, fabs(ends), a, sizeof a);
		metrics_format_value(c->metric, fabs(found), b, sizeof b);
		if (fabs(ends) > bisect_allowance(&c->rule, bisect_engine_value(c, 0, p)))
			fprintf(
			    v->out,
			    "  %s: the changes found add up to %s%s of the ends' %s%s (%.0f%% of "
			    "the move)\n",
			    c->probes[p].name, found < 0 ? "-" : "+", b, ends < 0 ? "-" : "+", a,
			    100 * found / ends);
		else
			fprintf(v->out,
			        "  %s: the ends differ by %s%s, within the threshold; the changes "
			        "found "
			        "net %s%s\n",
			        c->probes[p].name, ends < 0 ? "-" : "+", a, found < 0 ? "-" : "+",
			        b);
	}
	fprintf(v->out,
	        "bisect %lld: %zu of %zu commits measured (the ends included), %zu skipped, in %u "
	        "pass%s: build %.1f s, measure %.1f s\n",
	        (long long)c->id, bisect_scan_count(&c->scanner, 1), c->ncommits,
	        bisect_scan_count(&c->scanner, 2), c->passes, c->passes == 1 ? "" : "es",
	        c->build_s, c->measure_s);
	fflush(v->out);
	status = narrowed == n ? "found" : "ambiguous";
	rc = narrowed == n ? EXIT_OK : EXIT_UNJUDGED;
	snprintf(buf, sizeof buf, "%zu change%s", narrowed, narrowed == 1 ? "" : "s");
	if (record &&
	    store_bisect_update(c->st, c->id, status, c->exact ? "exact" : "paired",
	                        narrowed ? c->commits[ch[0].find.hi].hash : NULL, buf, &e) != 0)
		rc = cli_error(v->cmd, "%s", e.msg);
	if (json_path) {
		json = report_bisect_json(c, status, buf);
		if (write_file_atomic(json_path, json, strlen(json), &e) != 0)
			rc = cli_error(v->cmd, "%s", e.msg);
		free(json);
	}
	free(ch);
	return rc;
}

/*
 * When the commit found is only part of probe p's move between the ends: how much of it, and
 * where else the steps saw the figure move beyond the threshold, each with the bisect that
 * would find it ("bisect again with --good X --bad Y"), or --all for every change.
 */
static void bisect_print_elsewhere(const struct bisect_view *v, const struct bisect_state *st,
                                   size_t p)
{
	const struct bisect_engine *c = &v->eng;
	size_t from[8], to[8], k;
	double share;
	int part;

	k = bisect_engine_elsewhere(c, st->lo, st->hi, p, &share, &part, from, to, 8);
	if (k == 0 && !part)
		return;
	if (isfinite(share))
		fprintf(v->out, "    it is %.0f%% of %s's move between the ends", 100 * share,
		        c->probes[p].name);
	else
		fprintf(v->out, "    %s did not move between the ends beyond the threshold",
		        c->probes[p].name);
	fprintf(v->out, "%s\n", k ? "; the steps saw it move elsewhere too:" : "");
	for (size_t i = 0; i < k && i < 8; i++) {
		double a = bisect_engine_figure(c, from[i], p),
		       b = bisect_engine_figure(c, to[i], p);
		/* A move the other way than this bisect seeks is found with --improved flipped. */
		int flip = c->rule.want != 0 && (b > a ? 1 : -1) != c->rule.want;
		char ch[32];
		bisect_engine_change_text(c, a, b, ch, sizeof ch);
		fprintf(v->out, "      %s..%s: %s: bisect again with --good %s --bad %s%s\n",
		        bisect_engine_short(c->commits[from[i]].hash),
		        bisect_engine_short(c->commits[to[i]].hash), ch,
		        bisect_engine_short(c->commits[from[i]].hash),
		        bisect_engine_short(c->commits[to[i]].hash),
		        !flip         ? ""
		        : c->improved ? " without --improved"
		                      : " --improved");
	}
	if (k > 8)
		fprintf(v->out, "      and %zu more\n", k - 8);
	fprintf(v->out, "    every change of the range: the same bisect with --all\n");
}

/*
 * Prints what the search found, as git does, records the status (unless `record` is 0: a
 * finished bisect shown again) and writes the JSON: 0 when one commit is named, 2 when skips
 * leave several (or the ends gave no search: `failed_detail`).
 */
static int bisect_finish(struct bisect_view *v, const char *failed_detail, const char *json_path,
                         int record)
{
	struct bisect_engine *c = &v->eng;
	struct bisect_state st;
	struct err e = ERR_INIT;
	const char *status;
	char *detail = failed_detail ? xstrdup(failed_detail) : NULL, *json;
	int rc = EXIT_UNJUDGED;

	bisect_search_state(&c->search, &st);
	if (c->scan && !failed_detail)
		return bisect_finish_scan(v, json_path, record);
	if (failed_detail) {
		status = "failed";
		fprintf(v->out, "bisect %lld: no search: %s\n", (long long)c->id,
		        cli_safe(failed_detail));
	} else if (st.found) {
		status = "found";
		fprintf(v->out, "%s is the first bad commit\ncommit %s\n    %s\n\n",
		        c->commits[st.hi].hash, c->commits[st.hi].hash,
		        cli_safe(c->commits[st.hi].subject));
		for (size_t p = 0; p < c->nprobes; p++) {
			double before = bisect_engine_value(c, st.lo, p),
			       after = bisect_engine_value(c, st.hi, p);
			char b[24], a[24], ch[32];
			if (!c->probes[p].moved)
				continue;
			metrics_format_value(c->metric, before, b, sizeof b);
			metrics_format_value(c->metric, after, a, sizeof a);
			bisect_engine_change_text(c, before, after, ch, sizeof ch);
			fprintf(v->out, "    %s %s: %s at %s -> %s (%s)\n", c->probes[p].name,
			        c->metric, b, bisect_engine_short(c->commits[st.lo].hash), a, ch);
		}
		for (size_t p = 0; p < c->nprobes; p++)
			if (c->probes[p].moved)
				bisect_print_elsewhere(v, &st, p);
		rc = EXIT_OK;
	} else {
		struct sbuf b;
		status = "ambiguous";
		sbuf_init(&b);
		fprintf(v->out,
		        "There are only skipped commits left to test.\nThe first bad commit "
		        "could be any of:\n");
		for (size_t i = st.lo + 1; i <= st.hi; i++) {
			fprintf(v->out, "%s %s\n", c->commits[i].hash,
			        cli_safe(c->commits[i].subject));
			sbuf_addf(&b, "%s%s", i > st.lo + 1 ? " " : "", c->commits[i].hash);
		}
		fprintf(v->out, "We cannot bisect more!\n");
		detail = sbuf_detach(&b);
	}
	bisect_print_cost(v);
	fflush(v->out);
	if (record &&
	    store_bisect_update(
	        c->st, c->id, status, c->nsteps >= 2 ? (c->exact ? "exact" : "paired") : NULL,
	        st.found && !failed_detail ? c->commits[st.hi].hash : NULL, detail, &e) != 0)
		rc = cli_error(v->cmd, "%s", e.msg);
	if (json_path) {
		json = report_bisect_json(c, status, detail);
		if (write_file_atomic(json_path, json, strlen(json), &e) != 0)
			rc = cli_error(v->cmd, "%s", e.msg);
		free(json);
	}
	free(detail);
	return rc;
}

/* git's line before each step: what is left after it, at worst, and roughly how long. */
static void bisect_print_left(const struct bisect_view *v, size_t left, unsigned steps)
{
	fprintf(v->out, "Bisecting: %zu commit%s left to test after this (roughly %u step%s)\n",
	        left, left == 1 ? "" : "s", steps, steps == 1 ? "" : "s");
	fflush(v->out);
}

static void bisect_print_header(const struct bisect_view *v)
{
	const struct bisect_engine *c = &v->eng;
	struct bisect_state st;
	char *probes = bisect_engine_probe_list(c, ", "), *vars, *rev;

	bisect_search_state(&c->search, &st);
	if (c->scan)
		fprintf(
		    v->out,
		    "bisect %lld: every change of %s of %s at size %s, from %s to %s in %s: %zu "
		    "commit%s between, first split in %d stretch%s\n",
		    (long long)c->id, c->metric, probes, c->size,
		    bisect_engine_short(c->commits[0].hash),
		    bisect_engine_short(c->commits[c->ncommits - 1].hash), cli_safe(c->repo),
		    st.untested, st.untested == 1 ? "" : "s", c->scan, c->scan == 1 ? "" : "es");
	else
		fprintf(v->out,
		        "bisect %lld: %s of %s at size %s, good %s to bad %s in %s: %zu commit%s "
		        "between "
		        "(roughly %u step%s)\n",
		        (long long)c->id, c->metric, probes, c->size,
		        bisect_engine_short(c->commits[0].hash),
		        bisect_engine_short(c->commits[c->ncommits - 1].hash), cli_safe(c->repo),
		        st.untested, st.untested == 1 ? "" : "s", st.steps,
		        st.steps == 1 ? "" : "s");
	/*
	 * One pair of words, in text as in the JSON and the store: "good" is the figure as it
	 * was, "bad" where it changed, as git bisect says, whichever way is sought.
	 */
	if (c->improved)
		fprintf(v->out,
		        "--improved: bad marks a commit where %s improved, good one where it is as "
		        "it was\n",
		        c->metric);
	vars = strlist_join(&c->make_vars, " ");
	/* build-rev.sh keeps its builds itself, as it does for ab; the logs are in the cache. */
	rev = c->source != BISECT_SRC_COLLECTOR ? xstrdup(c->cache)
	      : getenv("GCR_REV_DIR") && *getenv("GCR_REV_DIR")
	          ? xstrdup(getenv("GCR_REV_DIR"))
	          : xasprintf("%s/build/rev", c->repo);
	fprintf(v->out, "each commit built from --%s %s%s%s, cached in %s\n",
	        bisect_source_names[c->source], cli_safe(c->target), c->make_vars.n ? " with " : "",
	        cli_safe(vars), cli_safe(rev));
	fflush(v->out);
	free(rev);
	free(vars);
	free(probes);
}

/* How the ends will decide each step, and the probes they leave out. */
static void bisect_print_mode(const struct bisect_view *v, size_t nmoved)
{
	const struct bisect_engine *c = &v->eng;
	char thr[64];

	bisect_engine_threshold_text(c, thr, sizeof thr);
	if (c->scan && c->exact)
		fprintf(v->out,
		        "exact: each end repeated itself; one run of each commit; a stretch moved "
		        "when %s moved %s%s between its ends, either way\n",
		        c->metric, c->rule.pct > 0 || c->rule.abs > 0 ? "by more than " : "at all",
		        c->rule.pct > 0 || c->rule.abs > 0 ? thr : "");
	else if (c->scan)
		fprintf(v->out,
		        "paired: each commit runs interleaved with the measured commits before and "
		        "after it, %d rounds at a time up to %d; a stretch moved when %s moved "
		        "beyond %s either way, shown at %.3g a look\n",
		        c->rounds, c->max_rounds, c->metric, thr,
		        bisect_look_alpha(c->rounds, c->max_rounds, c->nprobes));
	else if (c->exact)
		fprintf(
		    v->out,
		    "exact: each end repeated itself; one run of each commit decides: bad when %s "
		    "moved %s%s, the way the ends moved\n",
		    c->metric, c->rule.pct > 0 || c->rule.abs > 0 ? "by more than " : "at all",
		    c->rule.pct > 0 || c->rule.abs > 0 ? thr : "");
	else
		fprintf(
		    v->out,
		    "paired: each commit runs interleaved with the good end, %d rounds at a time "
		    "up "
		    "to %d; bad when %s moved beyond %s, shown at %.3g a look; otherwise \"cannot "
		    "tell\" (skipped)\n",
		    c->rounds, c->max_rounds, c->metric, thr,
		    bisect_look_alpha(c->rounds, c->max_rounds, nmoved));
	for (size_t i = 0; i < c->nprobes && !c->scan; i++)
		if (!c->probes[i].moved)
			fprintf(v->out, "%s did not move between the ends: left out\n",
			        c->probes[i].name);
}

/* The engine's events, rendered: the running account on v->out, the ends' builds on stderr. */
static void bisect_on_event(void *ctx, const struct bisect_engine *c, const struct bisect_event *ev)
{
	const struct bisect_view *v = ctx;
	const char *end = ev->role;

	switch (ev->kind) {
	case BISECT_EV_END_BUILT:
		fprintf(stderr, "gcratchet %s: %s end %s: %s (%.1f s)\n", v->cmd, end,
		        bisect_engine_short(c->commits[ev->commit].hash),
		        ev->cached ? "build reused" : "built", ev->secs);
		break;
	case BISECT_EV_END_BROKEN:
		if (ev->interrupted)
			cli_error(v->cmd, "interrupted while building the %s end", ev->role);
		else
			cli_error(v->cmd,
			          "the %s end %s does not build, so nothing can be bisected: %s",
			          end, bisect_engine_short(c->commits[ev->commit].hash),
			          c->commits[ev->commit].reason);
		break;
	case BISECT_EV_CENSUS_VARIES:
		fprintf(v->out,
		        "%s: %s, so its counters are never exact: deciding by paired runs\n",
		        c->metric, ev->text);
		break;
	case BISECT_EV_NOT_REPEATED:
		fprintf(v->out, "%s of %s did not repeat itself at %s: deciding by paired runs\n",
		        c->metric, ev->probe, ev->text);
		break;
	case BISECT_EV_MODE:
		bisect_print_mode(v, ev->nmoved);
		break;
	case BISECT_EV_STEP:
		bisect_print_step(v, ev->step, 0);
		break;
	case BISECT_EV_NEXT:
		bisect_print_left(v, ev->left, ev->steps);
		break;
	case BISECT_EV_PASS:
		bisect_print_pass(v, ev);
		break;
	}
}

/* ---- The command ----------------------------------------------------------------------- */

/* A make option: VAR=VALUE with VAR a make variable name. */
static int bisect_make_var_ok(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");

	return n > 0 && s[n] == '=' && !(s[0] >= '0' && s[0] <= '9');
}

/* --rounds, --max-rounds, --warmup: within the session's bounds. */

/*
 * Parses the options into v (the engine's settings and the run options) and a: 0 to go on,
 * or 1 with *rc the exit status (--help, or an error printed).
 */
/* A spec row: what says what is searched, which a resumed bisect has stored. */
enum { BISECT_OPT_SPEC = 1u << 0 };

/* --collector, --collector-dir, --build-cmd: what to build at each commit (row->min). */
static int bisect_source_row(void *field, const struct cli_option *row, const char *val,
                             struct err *e)
{
	struct bisect_view *v = field;
	int k = (int)row->min;

	(void)e;
	v->args.nsources += v->args.sources[k] == NULL;
	v->args.sources[k] = val;
	v->eng.source = (enum bisect_source)k;
	return 0;
}

static int bisect_make_row(void *field, const struct cli_option *row, const char *val,
                           struct err *e)
{
	(void)row;
	if (!bisect_make_var_ok(val))
		return err_setc(
		    e, ERR_INVALID,
		    "--make takes a make option VAR=VALUE (CC=clang, EXTRA_CFLAGS=-O3), "
		    "got \"%s\"",
		    val);
	strlist_push(field, val);
	return 0;
}

/* --build-input PATH: a file or folder that exists, kept as its real path. */
static int bisect_input_row(void *field, const struct cli_option *row, const char *val,
                            struct err *e)
{
	char buf[PATH_MAX];

	(void)row;
	if (!realpath(val, buf))
		return err_setc(e, ERR_INVALID, "--build-input %s: %s", val, strerror(errno));
	strlist_push(field, buf);
	return 0;
}

/* An int from row->min to row->max, refused in bisect's words. */
static int bisect_int_row(void *field, const struct cli_option *row, const char *val, struct err *e)
{
	uint64_t n;

	if (parse_u64(val, &n) != 0 || n < row->min || n > row->max)
		return err_setc(e, ERR_INVALID, "%s must be an integer from %d to %d, got \"%s\"",
		                row->name, (int)row->min, (int)row->max, val);
	*(int *)field = (int)n;
	return 0;
}

static int bisect_size_row(void *field, const struct cli_option *row, const char *val,
                           struct err *e)
{
	struct bisect_view *v = field;

	(void)row;
	if (session_opts_set_size(&v->base, val, e) != 0)
		return -1;
	snprintf(v->eng.size, sizeof v->eng.size, "%s", val);
	return 0;
}

#define BV(f) offsetof(struct bisect_view, f)
static const struct cli_option bisect_options[] = {
    {"--good", "REV", CLI_STRING, BV(args.good), .group = BISECT_OPT_SPEC, .flags = CLI_REQUIRED,
     .help = "a commit where the figure is as it should be"},
    {"--old", "REV", CLI_STRING, BV(args.good), .group = BISECT_OPT_SPEC, .flags = CLI_HIDDEN,
     .help = "--good's other name"},
    {"--bad", "REV", CLI_STRING, BV(args.bad), .group = BISECT_OPT_SPEC, .flags = CLI_REQUIRED,
     .help = "a later commit where it moved"},
    {"--new", "REV", CLI_STRING, BV(args.bad), .group = BISECT_OPT_SPEC, .flags = CLI_HIDDEN,
     .help = "--bad's other name"},
    {"--probe", "P[,P...]", CLI_LIST, BV(args.wanted), .group = BISECT_OPT_SPEC,
     .flags = CLI_REQUIRED | CLI_COMMAS, .help = "the probes whose figure is followed"},
    {"--probes", "P[,P...]", CLI_LIST, BV(args.wanted), .group = BISECT_OPT_SPEC,
     .flags = CLI_HIDDEN | CLI_COMMAS, .help = "--probe's other name"},
    {"--metric", "M", CLI_OWNED, BV(eng.metric), .group = BISECT_OPT_SPEC, .flags = CLI_REQUIRED,
     .help = "the figure (gcratchet list metrics)"},
    {"--collector", "NAME", CLI_CALL, 0, BISECT_SRC_COLLECTOR, .call = bisect_source_row,
     .group = BISECT_OPT_SPEC,
     .help = "a shipped collector of this repository, built at each commit by "
             "scripts/build-rev.sh (the commit's probes and build rules)"},
    {"--collector-dir", "DIR", CLI_CALL, 0, BISECT_SRC_DIR, .call = bisect_source_row,
     .group = BISECT_OPT_SPEC,
     .help = "an out-of-tree collector in a git repository: DIR at each commit, built with "
             "this checkout's make rules and probes (make collector)"},
    {"--build-cmd", "CMD", CLI_CALL, 0, BISECT_SRC_CMD, .call = bisect_source_row,
     .group = BISECT_OPT_SPEC,
     .help = "anything else: sh -c CMD in a worktree of --repo at each commit; it must leave "
             "a build folder with a manifest in $GCR_BISECT_OUT"},
    {"--repo", "DIR", CLI_STRING, BV(args.repo_opt), .group = BISECT_OPT_SPEC,
     .help = "--build-cmd's repository (default: the current directory's)"},
    {"--make", "VAR=VALUE", CLI_CALL, BV(eng.make_vars), .call = bisect_make_row,
     .group = BISECT_OPT_SPEC, .flags = CLI_REPEAT,
     .help = "a make option for each build (CC=clang, EXTRA_CFLAGS=-O3)"},
    {"--build-input", "PATH", CLI_CALL, BV(eng.build_inputs), .call = bisect_input_row,
     .group = BISECT_OPT_SPEC, .flags = CLI_REPEAT,
     .help = "a file or folder the build reads that its commit does not hold: a change to it "
             "is another build (the files a --build-cmd names by absolute path are read "
             "already)"},
    {"--retry-failed", NULL, CLI_FLAG, BV(eng.retry_failed), .group = BISECT_OPT_SPEC,
     .help = "build again the commits whose build failed before with the same inputs"},
    {"--threshold", "N|N%", CLI_STRING, BV(args.threshold), .group = BISECT_OPT_SPEC,
     .help = "what counts as moved: an amount in M's unit or a percentage of the good end's "
             "figure (default: M's band in the baseline profiles)"},
    {"--improved", NULL, CLI_FLAG, BV(eng.improved), .group = BISECT_OPT_SPEC,
     .help = "find the commit that made it better (--old and --new are --good's and --bad's "
             "other names, --probes --probe's)"},
    {"--all", NULL, CLI_FLAG, BV(args.all), .group = BISECT_OPT_SPEC,
     .help = "a range scan: every commit that moved the figure, up or down, each with its size, "
             "and how much of the ends' move they explain (not only the first bad commit)"},
    {"--segments", "N", CLI_CALL, BV(args.segments), 1, 100000, .call = bisect_int_row,
     .group = BISECT_OPT_SPEC,
     .help = "--all: its first pass measures the commits that split the range into N "
             "stretches whatever their ends show (default 4; a move and its reversal inside "
             "one stretch whose ends agree go unseen); as many as commits measures each"},
    {"--size", "ci|default|large", CLI_CALL, 0, .call = bisect_size_row, .group = BISECT_OPT_SPEC,
     .help = "the probes' size (default ci)"},
    {"--rounds", "N", CLI_CALL, BV(args.rounds), 1, SESSION_OPTS_ROUNDS_MAX, .call = bisect_int_row,
     .group = BISECT_OPT_SPEC,
     .help = "paired mode: rounds per batch (default: 6 or more with several probes; 3 "
             "valgrind runs for an Ir that does not repeat)"},
    {"--max-rounds", "N", CLI_CALL, BV(args.max_rounds), 1, SESSION_OPTS_ROUNDS_MAX,
     .call = bisect_int_row, .group = BISECT_OPT_SPEC,
     .help = "paired mode: the budget per commit (default 3 batches); a commit still "
             "undecided then is \"cannot tell\" and skipped"},
    {"--warmup", "N", CLI_CALL, BV(eng.warmup), 0, SESSION_OPTS_WARMUP_MAX, .call = bisect_int_row,
     .group = BISECT_OPT_SPEC, .help = "paired mode: warm-up rounds per batch (default 1)"},
    {"--json", "FILE", CLI_STRING, BV(args.json_path),
     .help = "the whole bisect as JSON (- for stdout; the account goes to stderr)"},
    {"--cache", "DIR", CLI_STRING, BV(args.cache_opt),
     .help = "build folders, by commit and build options (default $GCR_BISECT_CACHE or "
             "results/bisect-builds)"},
    {"--build-timeout", "SEC", CLI_CALL, BV(eng.build_timeout_s), 0, SESSION_OPTS_WAIT_MAX_S,
     .call = bisect_int_row,
     .help = "a build still running after SEC seconds (default 1800; 0: no limit) is killed, "
             "its process group whole, and its commit skipped (\"build timed out after SEC "
             "s\"); --timeout bounds runs"},
    {"--fleet", "URL", CLI_STRING, BV(args.fleet),
     .help = "measure on the fleet: each session a job of its queue (a PostgreSQL URL, as "
             "queue submit's), run by any idle worker; the sessions are copied into --db"},
    {"--resume", NULL, CLI_FLAG, BV(args.resume),
     .help = "continue an interrupted bisect (ID, default the newest), or print a finished "
             "one's answer again; what it measured is not measured again"},
    {.name = "how the runs are made",
     .kind = CLI_INCLUDE,
     .rows = session_options,
     .off = BV(base),
     .group = SESSION_OPT_HOW | SESSION_OPT_PROBES},
    {0},
};
#undef BV

/* The first option given that says what is searched. */
static void bisect_spec_seen(void *ctx, const struct cli_option *row, const char *val)
{
	const char **first = ctx;

	(void)val;
	/* bisect's own rows: an included session row's group bits mean something else */
	if (row && !*first && row >= bisect_options &&
	    row < bisect_options + sizeof bisect_options / sizeof bisect_options[0] &&
	    (row->group & BISECT_OPT_SPEC))
		*first = row->name;
}

/*
 * Parses the options into v (the engine's settings, the run options and the rest): 0 to go
 * on, or 1 with *rc the exit status (--help, or an error printed).
 */
static int bisect_parse(int argc, char **argv, struct bisect_view *v, int *rc)
{
	struct bisect_args *a = &v->args;
	struct bisect_engine *c = &v->eng;
	const char *cmd = v->cmd;
	int r;

	*rc = EXIT_UNJUDGED;
	r = cli_parse(&cmd_bisect, argc, argv, v, &a->positional);
	if (r != 0) {
		*rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	cli_scan(&cmd_bisect, argc, argv, bisect_spec_seen, &a->spec_given);
	if (a->resume && a->spec_given) {
		*rc =
		    cli_error(cmd,
		              "--resume continues a bisect as it was started: %s cannot change it "
		              "(start a new bisect instead)",
		              a->spec_given);
		goto out;
	}
	if (a->positional.n > (a->resume ? 1u : 0u)) {
		*rc = cli_error(cmd, "unexpected argument \"%s\"%s", a->positional.items[a->resume],
		                a->resume ? "" : " (see gcratchet bisect --help)");
		goto out;
	}
	if (!a->resume) {
		const char *missing = !a->good       ? "--good REV"
		                      : !a->bad      ? "--bad REV"
		                      : !a->wanted.n ? "--probe P"
		                      : !c->metric   ? "--metric M"
		                      : !a->nsources
		                          ? "one of --collector NAME, --collector-dir DIR "
		                            "and --build-cmd CMD (what to build at each "
		                            "commit)"
		                          : NULL;
		if (missing) {
			*rc =
			    cli_error(cmd, "%s is required (see gcratchet bisect --help)", missing);
			goto out;
		}
		if (a->nsources > 1) {
			*rc = cli_error(
			    cmd, "--collector, --collector-dir and --build-cmd each name what to "
			         "build: give one");
			goto out;
		}
		if (a->repo_opt && c->source != BISECT_SRC_CMD) {
			*rc =
			    cli_error(cmd, "--repo goes with --build-cmd: the other sources have a "
			                   "repository of their own");
			goto out;
		}
		if (c->make_vars.n && c->source == BISECT_SRC_CMD) {
			*rc = cli_error(cmd,
			                "--make gives options to make; a --build-cmd builds as it "
			                "says: put them in the command");
			goto out;
		}
		if (a->segments && !a->all) {
			*rc = cli_error(cmd, "--segments shapes a range scan: give --all with it");
			goto out;
		}
		if (a->all && c->improved) {
			*rc = cli_error(cmd, "--all finds every change, up and down: --improved "
			                     "chooses one way, so it goes without --all");
			goto out;
		}
		if (a->all)
			c->scan = a->segments ? a->segments : 4;
		if (a->max_rounds && a->rounds && a->max_rounds < a->rounds) {
			*rc = cli_error(cmd, "--max-rounds %d is fewer than --rounds %d",
			                a->max_rounds, a->rounds);
			goto out;
		}
	}
	return 0;
out:
	return 1;
}

/* The engine's last error, unless a hook has printed it already; EXIT_UNJUDGED. */
static int bisect_error(const struct bisect_view *v)
{
	if (v->eng.err.msg[0])
		return cli_error(v->cmd, "%s", v->eng.err.msg);
	return EXIT_UNJUDGED;
}

/*
 * --resume [ID]: loads the bisect (the latest open one without an ID) and replays its stored
 * steps. 0 to go on searching; 1 with *rc when it is done: a finished bisect shown again, or
 * one that cannot be resumed (printed). *detail: a failed bisect's stored reason.
 */
static int bisect_resume(struct bisect_view *v, const struct bisect_args *a, char **detail, int *rc)
{
	struct bisect_engine *c = &v->eng;
	const char *cmd = v->cmd;
	struct store_bisect b;
	struct err e = ERR_INIT;
	int64_t id = 0;
	int finished;

	*rc = EXIT_UNJUDGED;
	if (a->positional.n &&
	    cli_parse_session(cmd, "--resume", a->positional.items[0], NULL, &id) != 0)
		return 1;
	if (!id && store_bisect_latest_open(c->st, &id, &e) != 0)
		return *rc = cli_error(cmd, "%s", e.msg), 1;
	if (!id)
		return *rc = cli_error(cmd,
		                       "%s holds no bisect to resume (none running or interrupted)",
		                       cli_safe(store_where(c->st))),
		       1;
	if (store_bisect_get(c->st, id, &b, &e) != 0)
		return *rc = cli_error(cmd, "%s", e.msg), 1;
	finished = strcmp(b.status, "running") && strcmp(b.status, "interrupted");
	if (!finished && b.pid > 0 && b.pid != getpid() &&
	    (kill((pid_t)b.pid, 0) == 0 || errno == EPERM) && strcmp(b.status, "running") == 0) {
		*rc = cli_error(cmd,
		                "bisect %lld is still running (pid %lld): let it finish or stop it "
		                "first",
		                (long long)id, (long long)b.pid);
		store_bisect_release(&b);
		return 1;
	}
	*detail = b.detail && strcmp(b.status, "failed") == 0 ? xstrdup(b.detail) : NULL;
	store_bisect_release(&b);
	if (bisect_engine_load(c, id) != 0)
		return *rc = bisect_error(v), 1;
	fprintf(v->out, "bisect %lld: %s: %zu step%s stored\n", (long long)id,
	        finished ? "finished" : "resuming", c->nsteps, c->nsteps == 1 ? "" : "s");
	for (size_t i = 0; i < c->nsteps; i++)
		bisect_print_step(v, &c->steps[i], 1);
	if (finished)
		return *rc = bisect_finish(v, *detail, a->json_path, 0), 1;
	if (store_bisect_update(c->st, id, "running", NULL, NULL, NULL, &e) != 0)
		return *rc = cli_error(cmd, "%s", e.msg), 1;
	return 0;
}

/*
 * A new bisect: what it searches (the metric, the source, the commits, the probes) resolved
 * and stored, and its header printed. 0, or -1 after printing why.
 */
static int bisect_start(struct bisect_view *v, const struct bisect_args *a)
{
	struct bisect_engine *c = &v->eng;
	struct strlist available = {0};
	int rc = -1, r;

	bisect_engine_set_target(c, a->sources[c->source]);
	if (bisect_engine_setup_metric(c, a->threshold) != 0 ||
	    bisect_engine_setup_source(c, a->repo_opt) != 0 ||
	    bisect_engine_resolve_commits(c, a->good, a->bad) != 0) {
		bisect_error(v);
		goto out;
	}
	r = bisect_engine_available_probes(c, &available);
	if (r == 1)
		cli_error(v->cmd, "the good end %s does not build: %s",
		          bisect_engine_short(c->commits[0].hash), c->commits[0].reason);
	else if (r == -1)
		bisect_error(v);
	if (r != 0)
		goto out;
	for (size_t i = 0; i < a->wanted.n; i++) {
		const char *name = cli_resolve_probe(v->cmd, a->wanted.items[i], &available);
		if (!name)
			goto out;
		if (bisect_engine_add_probe(c, name) != 0) {
			bisect_error(v);
			goto out;
		}
	}
	if (bisect_engine_begin(c, a->rounds, a->max_rounds) != 0) {
		bisect_error(v);
		goto out;
	}
	bisect_print_header(v);
	rc = 0;
out:
	strlist_release(&available);
	return rc;
}

/* Why the search stopped before its end, and how to go on: EXIT_UNJUDGED. */
static int bisect_stopped(struct bisect_view *v)
{
	struct bisect_engine *c = &v->eng;
	size_t steps = c->nsteps >= 2 ? c->nsteps - 2 : 0;
	char *db = v->base.db ? store_url_redact(v->base.db) : NULL;
	struct err e = ERR_INIT;
	int rc;

	if (store_bisect_update(c->st, c->id, "interrupted", NULL, NULL, NULL, &e) != 0)
		cli_error(v->cmd, "%s", e.msg);
	rc = cli_error(v->cmd,
	               "bisect %lld %s after %zu step%s (what was measured is stored); "
	               "continue with: gcratchet bisect --resume %lld%s%s",
	               (long long)c->id, bisect_stop ? "interrupted" : "stopped", steps,
	               steps == 1 ? "" : "s", (long long)c->id, db ? " --db " : "", db ? db : "");
	free(db);
	return rc;
}

static int bisect_main(int argc, char **argv)
{
	static const struct bisect_hooks hooks = {bisect_on_event, bisect_measure, NULL, NULL};
	struct bisect_view v;
	struct bisect_engine *c = &v.eng;
	struct err e = ERR_INIT;
	struct sigaction sa, old_int, old_term;
	char *detail = NULL;
	int rc = EXIT_UNJUDGED, r, lock_fd = -1, handlers = 0;

	memset(&v, 0, sizeof v);
	v.cmd = "bisect";
	v.out = stdout;
	bisect_engine_init(c, &bisect_stop, &hooks);
	c->hooks.ctx = &v;
	session_opts_init(&v.base, SESSION_VERB_MEASURE);
	if (bisect_parse(argc, argv, &v, &rc) != 0)
		goto out;
	rc = EXIT_UNJUDGED;
	c->no_aslr = v.base.no_aslr;
	if (v.args.json_path && write_file_is_stdout(v.args.json_path))
		v.out = stderr;
	c->root = buildinfo_root();
	c->command = cli_command_line(argc, argv);
	c->build_rev_script = cli_script_path(c->root, "build-rev.sh");
	c->bisect_build_script = cli_script_path(c->root, "bisect-build.sh");
	if (bisect_engine_setup_cache(c, v.args.cache_opt) != 0) {
		rc = bisect_error(&v);
		goto out;
	}
	if (store_open(cli_db_path(v.base.db), STORE_WRITE, &c->st, &e) != 0) {
		rc = cli_error(v.cmd, "%s", e.msg);
		goto out;
	}
	if (quiet_lock(v.base.lock_timeout_s, cli_waiting, (void *)v.cmd, &lock_fd, &e) != 0) {
		rc = cli_error(v.cmd, "%s", e.msg);
		goto out;
	}
	if (v.args.fleet) {
		struct bisect_fleet_config fc = {.cmd = v.cmd,
		                                 .url = v.args.fleet,
		                                 .verb = &cmd_bisect,
		                                 .argc = argc,
		                                 .argv = argv,
		                                 .size = c->size,
		                                 .st = c->st,
		                                 .lock_fd = &lock_fd,
		                                 .lock_timeout_s = v.base.lock_timeout_s,
		                                 .stop = &bisect_stop};
		if (bisect_fleet_open(&fc, &v.fleet) != 0)
			goto out;
		c->hooks.measure = bisect_measure_fleet;
		c->hooks.measure_many = bisect_measure_many_fleet;
	}
	bisect_stop = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = bisect_on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	handlers = 1;

	if (v.args.resume ? bisect_resume(&v, &v.args, &detail, &rc) != 0
	                  : bisect_start(&v, &v.args) != 0)
		goto out;
	free(detail);
	detail = NULL;
	r = bisect_engine_run(c, &detail);
	if (r == 1)
		rc = bisect_finish(&v, detail, v.args.json_path, 1);
	else if (r != 0 || bisect_stop) {
		if (r == -1)
			bisect_error(&v);
		rc = bisect_stopped(&v);
	} else
		rc = bisect_finish(&v, NULL, v.args.json_path, 1);
out:
	if (handlers) {
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGINT, &old_int, NULL);
	}
	quiet_unlock(lock_fd);
	bisect_fleet_close(v.fleet);
	free(detail);
	strlist_release(&v.args.wanted);
	strlist_release(&v.args.positional);
	bisect_engine_release(c);
	session_opts_release(&v.base);
	return rc;
}

const struct cli_verb cmd_bisect = {
    .name = "bisect",
    .summary = "find the commit that moved a figure, building and measuring each step",
    .description =
        "Finds the first commit between a good and a bad end (along the bad end's first parents)\n"
        "where the figure M of any of the probes moved: each commit is built, measured with this\n"
        "gcratchet, and the range halved as git bisect does. What to build at each commit is one\n"
        "of --collector, --collector-dir and --build-cmd.\n"
        "\n"
        "gcratchet bisect --resume [ID] [--json FILE] [--db FILE] continues an interrupted bisect\n"
        "as it was started (the options that say what is searched cannot change it).\n"
        "\n"
        "Deciding a commit: an exact metric (Ir, census counters) whose ends each repeat\n"
        "themselves when measured twice is measured once per commit and compared with the ends;\n"
        "any other is measured in paired, interleaved runs against the good end and judged with\n"
        "ab's statistics, up to --max-rounds. A commit that does not build, whose probe fails or\n"
        "that cannot be told is skipped and named. Every step is stored (docs/bisect.md).\n",
    .exit_status = "0 the first bad commit (with --improved: where it improved) is named; 2 "
                   "skips leave several "
                   "candidates, the ends did not move, a step was interrupted (--resume "
                   "continues), or bad arguments.",
    .options = bisect_options,
    .run = bisect_main,
};
