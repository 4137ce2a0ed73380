/*
 * gcratchet explain — where the instructions moved, function by function (cachegrind's Ir, as
 * cg_diff shows it): between two arms of a session (an ab's BASE and FIX), between an arm of
 * two sessions, or between a session and the baseline it is checked against.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "cli.h"
#include "cmds.h"
#include "escape.h"
#include "fnprof.h"
#include "movers.h"
#include "store.h"

struct explain_opts {
	const char *db, *build, *base, *against_build, *profile, *collector, *baseline, *format;
	const char *probes;
	int64_t session, against; /* 0: latest / none */
	uint64_t top;             /* 0: every function that moved */
};

/* One side of the comparison: an arm of a stored session, or a baseline's pinned functions. */
struct explain_side {
	int64_t session;
	struct store_build *builds;
	size_t nbuilds;
	const struct store_build *arm; /* NULL: the baseline's side */
	struct store_run *runs;
	size_t nruns;
	struct strlist probes; /* the session's probes, as planned */
	char *size;
	char *label; /* how the tables name this side */
};

static void explain_side_release(struct explain_side *s)
{
	store_builds_release(s->builds, s->nbuilds);
	store_runs_release(s->runs, s->nruns);
	strlist_release(&s->probes);
	free(s->size);
	free(s->label);
	memset(s, 0, sizeof *s);
}

/* Loads session `id` (0: the newest stored), its arms and runs; prints why not (-1). */
static int explain_load(const char *cmd, struct store *st, int64_t id, struct explain_side *s)
{
	struct store_session si;
	struct err e;

	memset(s, 0, sizeof *s);
	if (id == 0 && store_latest_session(st, NULL, &id, &e) != 0)
		return cli_error(cmd, "%s", e.msg);
	if (id == 0)
		return cli_error(cmd, "%s holds no session", store_where(st));
	if (store_session_get(st, id, &si, &e) != 0)
		return cli_error(cmd, "%s", e.msg);
	s->session = id;
	s->size = xstrdup(si.size ? si.size : "");
	strlist_split(&s->probes, si.probes ? si.probes : "");
	store_session_release(&si);
	if (store_session_builds(st, id, &s->builds, &s->nbuilds, &e) != 0 ||
	    store_runs_load(st, id, -1, &s->runs, &s->nruns, &e) != 0) {
		explain_side_release(s);
		return cli_error(cmd, "%s", e.msg);
	}
	return 0;
}

/* The arm labelled `label`, or the `fallback`-th when label is NULL; prints why not. */
static int explain_arm(const char *cmd, struct explain_side *s, const char *label, size_t fallback,
                       const char *what)
{
	if (label)
		return cli_pick_build(cmd, s->builds, s->nbuilds, NULL, label, s->session, &s->arm);
	if (fallback >= s->nbuilds)
		return cli_error(
		    cmd, "session %lld has %zu arm%s: name %s (see gcratchet explain --help)",
		    (long long)s->session, s->nbuilds, s->nbuilds == 1 ? "" : "s", what);
	s->arm = &s->builds[fallback];
	return 0;
}

/*
 * The profile of a probe on s's arm: each function's median over the arm's ok valgrind runs of
 * it in `runs` (the runs of its session; of `size` when not NULL). 0 runs: nothing recorded.
 */
static size_t explain_profile(const struct explain_side *s, const struct explain_side *runs_of,
                              const char *probe, const char *size, struct fnprof *out)
{
	const struct fnprof **runs = xcalloc(runs_of->nruns ? runs_of->nruns : 1, sizeof *runs);
	size_t n = 0;

	for (size_t i = 0; i < runs_of->nruns; i++) {
		const struct store_run *r = &runs_of->runs[i];
		if (r->arm == s->arm->position && !r->warmup && r->kind == RUN_KIND_VALGRIND &&
		    r->status == RUN_STATUS_OK && r->functions.n && strcmp(r->probe, probe) == 0 &&
		    (!size || strcmp(r->size, size) == 0))
			runs[n++] = &r->functions;
	}
	fnprof_median(runs, n, out);
	free(runs);
	return n;
}

/* The probes to explain, by number: --probe's (resolved against the FIX side's), else all. */
static int explain_probes(const char *cmd, const char *list, const struct strlist *available,
                          struct strlist *out)
{
	struct strlist want = {0};
	int rc = 0;

	if (!list) {
		for (size_t i = 0; i < available->n; i++)
			strlist_push(out, available->items[i]);
	} else {
		strlist_split(&want, list);
		for (size_t i = 0; i < want.n && rc == 0; i++) {
			const char *p = cli_resolve_probe(cmd, want.items[i], available);
			if (!p)
				rc = -1;
			else if (!strlist_contains(out, p))
				strlist_push(out, p);
		}
		strlist_release(&want);
	}
	/* By probe number, as every output lists them. */
	strlist_sort_probes(out);
	return rc;
}

static int explain_parse(const char *cmd, int argc, char **argv, struct explain_opts *o)
{
	int r = cli_parse(&cmd_explain, argc, argv, o, NULL);

	if (r != 0)
		return r;
	if (o->session == CLI_SESSION_WORD)
		o->session = 0;
	if ((o->profile || o->baseline) + (o->against != 0) + (o->base != NULL) > 1) {
		cli_error(cmd,
		          "--profile/--baseline, --against and --base each name what to compare "
		          "against: give one");
		return -1;
	}
	if (o->against_build && !o->against) {
		cli_error(cmd, "--against-build needs --against SESSION");
		return -1;
	}
	return 0;
}

static int explain_main(int argc, char **argv)
{
	const char *cmd = "explain";
	struct explain_opts o = {0};
	struct explain_side fix = {0}, base = {0};
	struct baseline b = {0};
	struct store *st = NULL;
	struct strlist probes = {0};
	struct sbuf out;
	struct err e;
	char *path = NULL, *how = NULL;
	cJSON *json = NULL;
	const char *format;
	int rc = EXIT_UNJUDGED, r, pinned = 0, have_base = 0;
	size_t shown = 0;

	sbuf_init(&out);
	if ((r = explain_parse(cmd, argc, argv, &o)) != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	format = o.format ? o.format : "text";
	if (store_open(cli_db_path(o.db), STORE_READ, &st, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (explain_load(cmd, st, o.session, &fix) != 0)
		goto out;
	pinned = o.profile || o.baseline;
	if (pinned) {
		if (explain_arm(cmd, &fix, o.build, 0, "the arm with --build LABEL") != 0)
			goto out;
		if (!o.build && fix.nbuilds > 1) {
			cli_error(cmd,
			          "session %lld has %zu arms: name the one to explain with --build",
			          (long long)fix.session, fix.nbuilds);
			goto out;
		}
		path = o.baseline ? xstrdup(o.baseline)
		                  : cli_baseline_find(o.profile, o.collector ? o.collector
		                                                             : fix.arm->collector);
		if (baseline_load(path, &b, &e) != 0) {
			cli_error(cmd, "%s", e.msg);
			goto out;
		}
		if (!b.nfunctions) {
			cli_error(
			    cmd,
			    "%s keeps no functions (pinned before they were recorded, or from "
			    "runs without valgrind): pin it again to explain against it",
			    path);
			goto out;
		}
		base.label = xstrdup("pin");
		fix.label = xasprintf("session %lld", (long long)fix.session);
	} else if (o.against) {
		if (explain_load(cmd, st, o.against, &base) != 0)
			goto out;
		have_base = 1;
		if (explain_arm(cmd, &fix, o.build, 0, "the arm with --build LABEL") != 0 ||
		    explain_arm(cmd, &base, o.against_build ? o.against_build : NULL, 0,
		                "the arm with --against-build LABEL") != 0)
			goto out;
		base.label = xasprintf("session %lld", (long long)base.session);
		fix.label = xasprintf("session %lld", (long long)fix.session);
	} else {
		/* Two arms of one session: BASE and FIX of an ab unless named; base borrows. */
		base.session = fix.session;
		base.builds = fix.builds;
		base.nbuilds = fix.nbuilds;
		if (explain_arm(cmd, &base, o.base, 0, "BASE with --base LABEL") != 0 ||
		    explain_arm(
		        cmd, &fix, o.build, 1,
		        "what to compare with --against SESSION, --profile P or --base LABEL") != 0)
			goto out;
		if (base.arm->position == fix.arm->position) {
			cli_error(cmd, "--base and --build name the same arm");
			goto out;
		}
		base.label = xstrdup(base.arm->label);
		fix.label = xstrdup(fix.arm->label);
	}
	if (explain_probes(cmd, o.probes, &fix.probes, &probes) != 0)
		goto out;

	if (strcmp(format, "json") == 0) {
		json = cJSON_CreateObject();
		cJSON_AddStringToObject(json, "format", "gcratchet-explain");
		cJSON_AddNumberToObject(json, "version", 1);
		cJSON_AddItemToObject(json, "base", escape_json_string(base.label));
		cJSON_AddItemToObject(json, "fix", escape_json_string(fix.label));
		cJSON_AddArrayToObject(json, "probes");
	} else if (strcmp(format, "md") == 0) {
		sbuf_addf(&out, "### gcratchet explain: where the instructions moved, ");
		escape_md(&out, base.label);
		sbuf_addf(&out, " to ");
		escape_md(&out, fix.label);
		sbuf_addf(&out, "\n");
	} else {
		struct sbuf t;
		sbuf_init(&t);
		escape_line(&t, base.label);
		sbuf_addf(&out, "gcratchet explain: where the instructions moved, %s to ", t.data);
		sbuf_release(&t);
		sbuf_init(&t);
		escape_line(&t, fix.label);
		sbuf_addf(&out, "%s (cachegrind's Ir by function)\n", t.data);
		sbuf_release(&t);
	}
	for (size_t p = 0; p < probes.n; p++) {
		const char *probe = probes.items[p];
		struct fnprof fp = {0}, bp = {0};
		const struct fnprof *basep;
		struct fnprof_diff d;
		struct movers_view v;
		size_t nf, nb = 0;

		nf = explain_profile(&fix, &fix, probe, pinned ? b.size : NULL, &fp);
		if (pinned) {
			basep = baseline_functions_of(&b, probe);
		} else {
			/* Two arms of one session read the same runs. */
			nb = explain_profile(&base, have_base ? &base : &fix, probe, NULL, &bp);
			basep = nb ? &bp : NULL;
		}
		if (!nf || !basep) {
			if (strcmp(format, "text") == 0)
				sbuf_addf(&out, "  %s: no functions recorded %s\n", probe,
				          !nf ? "for this side (no valgrind run of it kept them)"
				              : "on the other side");
			fnprof_release(&fp);
			fnprof_release(&bp);
			continue;
		}
		fnprof_diff(basep, &fp, &d);
		free(how);
		how = pinned ? xasprintf("the pin's %zu largest functions against each function's "
		                         "median over %zu valgrind run%s",
		                         basep->n, nf, nf == 1 ? "" : "s")
		             : xasprintf("each function's median over %zu and %zu valgrind run%s",
		                         nb, nf, nb == 1 && nf == 1 ? "" : "s");
		v = (struct movers_view){probe, &d, base.label, fix.label, how};
		if (json)
			cJSON_AddItemToArray(cJSON_GetObjectItem(json, "probes"),
			                     movers_json(&v, o.top ? (size_t)o.top : d.n));
		else if (strcmp(format, "md") == 0)
			movers_md(&out, &v, o.top ? (size_t)o.top : d.n);
		else
			movers_text(&out, &v, o.top ? (size_t)o.top : d.n, "  ");
		shown++;
		fnprof_diff_release(&d);
		fnprof_release(&fp);
		fnprof_release(&bp);
	}
	if (json) {
		char *text = cJSON_Print(json);
		sbuf_addf(&out, "%s\n", text);
		cJSON_free(text);
	}
	if (shown == 0) {
		cli_error(
		    cmd,
		    "no probe has functions on both sides (they are recorded by valgrind runs, "
		    "schema 9 and later)");
		goto out;
	}
	{
		char *text =
		    strcmp(format, "text") == 0 ? escape_text(out.data) : xstrdup(out.data);
		rc = fputs(text, stdout) < 0 || fflush(stdout) != 0
		         ? cli_error(cmd, "writing to stdout failed")
		         : EXIT_OK;
		free(text);
	}
out:
	if (json)
		cJSON_Delete(json);
	free(how);
	free(path);
	strlist_release(&probes);
	sbuf_release(&out);
	baseline_release(&b);
	if (have_base)
		explain_side_release(&base);
	else {
		free(base.label);
	}
	explain_side_release(&fix);
	store_close(st);
	return rc;
}

/* --against: a session by its id; "latest" is --session's word only. */
static int explain_against(void *field, const struct cli_option *row, const char *val,
                           struct err *e)
{
	if (cli_session_id(row->name, val, "latest", field, e) != 0)
		return -1;
	if (*(int64_t *)field == CLI_SESSION_WORD)
		return err_setc(e, ERR_INVALID, "--against names a session by its id");
	return 0;
}

#define XO(field) offsetof(struct explain_opts, field)
static const struct cli_option explain_options[] = {
    {"--session", "N|latest", CLI_SESSION, XO(session), .values = "latest",
     .help = "the session explained (default: the newest stored)"},
    {"--build", "LABEL", CLI_STRING, XO(build), .help = "its arm, by label (default: FIX)"},
    {"--probe", "LIST", CLI_STRING, XO(probes),
     .help = "comma list of probe names or numbers (default: every probe)"},
    {"--probes", "LIST", CLI_STRING, XO(probes), .flags = CLI_HIDDEN, .help = "as --probe"},
    {"--base", "LABEL", CLI_STRING, XO(base),
     .help = "against another arm of the session (default: BASE of an ab)"},
    {"--against", "M", CLI_CALL, XO(against), .call = explain_against,
     .help = "against the same probes in session M"},
    {"--against-build", "LABEL", CLI_STRING, XO(against_build),
     .help = "session M's arm (default: its first)"},
    {"--profile", "P", CLI_STRING, XO(profile),
     .help = "against the functions the baseline baselines/<P>/<collector>.json keeps"},
    {"--collector", "C", CLI_STRING, XO(collector), .help = "the baseline's collector"},
    {"--baseline", "FILE", CLI_STRING, XO(baseline), .help = "against this baseline file"},
    {"--top", "N", CLI_U64, XO(top),
     .help = "N functions per probe (default: every one that moved)"},
    {"--format", NULL, CLI_ENUM, XO(format), .values = "text|md|json",
     .help = "text (default), md for a pull request or json for a script"},
    {"--db", "FILE", CLI_STRING, XO(db),
     .help = "the database (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {0},
};
#undef XO

const struct cli_verb cmd_explain = {
    .name = "explain",
    .summary =
        "where the instructions moved between two sessions, arms, or a session and its baseline",
    .description =
        "Where the instructions moved, function by function, as cg_diff shows it: cachegrind's\n"
        "Ir of every function each valgrind run kept (0.1% of the run and its 50 largest), per\n"
        "side each function's median over its runs. For every probe (or --probe LIST), the\n"
        "functions that moved, largest move first: both counts, the move, its part of the\n"
        "probe's Ir and its share of the probe's whole change, and the functions one side alone\n"
        "kept. Against what:\n"
        "  (default)        two arms of the session: BASE and FIX of an ab, or --base LABEL and\n"
        "                   --build LABEL\n"
        "  --against M      the same probes in session M (its arm --against-build, else its "
        "first)\n"
        "  --profile P      the functions the baseline baselines/<P>/<collector>.json keeps\n"
        "                   (its 20 largest per probe, pinned with it), or --baseline FILE's\n"
        "--session defaults to the newest stored; --top N lists N functions per probe (default:\n"
        "every one that moved); --format md and json for a pull request or a script.\n",
    .exit_status = "0 printed; 2 nothing to compare (no functions on both sides), bad "
                   "arguments, a missing session or baseline.",
    .options = explain_options,
    .run = explain_main,
};
