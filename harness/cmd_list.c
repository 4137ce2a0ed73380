/*
 * gcratchet list — what there is to measure and what was measured. Each listing prints its
 * table on `out` and, with --json, adds one object per row to `items` (format gcratchet-list,
 * docs/schema/gcratchet-list.json).
 */
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"
#include "cli.h"
#include "cmds.h"
#include "baseline.h"
#include "escape.h"
#include "metrics.h"
#include "pin.h"
#include "store.h"

/* What --json lands in: the file, and the listing's rows as they are listed. */
struct list_opts {
	const char *db;
	const char *json; /* --json FILE, "-" for stdout; NULL: none */
};

static void list_str(cJSON *o, const char *key, const char *v)
{
	cJSON_AddItemToObject(o, key, escape_json_string(v));
}

/* Names as a JSON array. */
static cJSON *list_array(const struct strlist *l)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < l->n; i++)
		cJSON_AddItemToArray(a, escape_json_string(l->items[i]));
	return a;
}

static int list_collectors(const char *cmd, const char *root, FILE *out, cJSON *items)
{
	struct strlist names = {0};
	int rc = EXIT_OK;

	buildinfo_list(root, &names);
	if (names.n == 0)
		fprintf(stderr, "gcratchet %s: no collector builds under %s/collectors: run make\n",
		        cmd, root);
	fprintf(out, "%-22s %-18s %-14s %-12s %s\n", "build", "collector", "version", "commit",
	        "probes");
	for (size_t i = 0; i < names.n; i++) {
		struct buildinfo b;
		struct err e;
		char *dir = xasprintf("%s/collectors/%s", root, names.items[i]);
		cJSON *o = items ? cJSON_CreateObject() : NULL;
		if (buildinfo_load(dir, &b, &e) != 0) {
			fprintf(out, "%-22s (unusable: %s)\n", cli_safe(names.items[i]),
			        cli_safe(e.msg));
			rc = EXIT_UNJUDGED;
			if (o) {
				list_str(o, "build", names.items[i]);
				list_str(o, "unusable", e.msg);
			}
		} else {
			fprintf(out, "%-22s %-18s %-14s %-12.12s %zu\n", cli_safe(b.name),
			        cli_safe(b.collector), cli_safe(b.version), cli_safe(b.git_commit),
			        b.probes.n);
			if (o) {
				list_str(o, "build", b.name);
				list_str(o, "collector", b.collector);
				list_str(o, "version", b.version);
				list_str(o, "git_commit", b.git_commit);
				list_str(o, "dir", dir);
				cJSON_AddItemToObject(o, "probes", list_array(&b.probes));
			}
			buildinfo_release(&b);
		}
		if (o)
			cJSON_AddItemToArray(items, o);
		free(dir);
	}
	strlist_release(&names);
	return rc;
}

static int list_probes(const char *cmd, const char *root, FILE *out, cJSON *items)
{
	struct strlist names = {0}, probes = {0}, where = {0};
	int rc = EXIT_OK;

	buildinfo_list(root, &names);
	for (size_t i = 0; i < names.n; i++) {
		struct buildinfo b;
		struct err e;
		char *dir = xasprintf("%s/collectors/%s", root, names.items[i]);
		if (buildinfo_load(dir, &b, &e) == 0) {
			for (size_t p = 0; p < b.probes.n; p++)
				if (!strlist_contains(&probes, b.probes.items[p]))
					strlist_push(&probes, b.probes.items[p]);
			buildinfo_release(&b);
		}
		free(dir);
	}
	if (probes.n == 0) {
		rc = cli_error(cmd, "no probes built under %s/collectors: run make", root);
		goto out;
	}
	fprintf(out, "%-28s %s\n", "probe", "built for");
	for (size_t p = 0; p < probes.n; p++) {
		char *joined;
		strlist_release(&where);
		for (size_t i = 0; i < names.n; i++) {
			char *exe =
			    xasprintf("%s/collectors/%s/%s", root, names.items[i], probes.items[p]);
			FILE *f = fopen(exe, "r");
			if (f) {
				strlist_push(&where, names.items[i]);
				fclose(f);
			}
			free(exe);
		}
		joined = strlist_join(&where, ", ");
		fprintf(out, "%-28s %s\n", cli_safe(probes.items[p]), cli_safe(joined));
		free(joined);
		if (items) {
			cJSON *o = cJSON_CreateObject();
			list_str(o, "probe", probes.items[p]);
			cJSON_AddItemToObject(o, "builds", list_array(&where));
			cJSON_AddItemToArray(items, o);
		}
	}
out:
	strlist_release(&where);
	strlist_release(&probes);
	strlist_release(&names);
	return rc;
}

static int list_sessions(const char *cmd, const char *db, FILE *out, cJSON *items)
{
	struct store *st = NULL;
	struct store_session *s = NULL;
	size_t n = 0;
	struct err e;
	int rc = EXIT_UNJUDGED;

	if (store_open(cli_db_path(db), STORE_READ, &st, &e) != 0 ||
	    store_list_sessions(st, NULL, &s, &n, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	fprintf(out, "%-6s %-21s %-20s %-8s %-7s %-40s %s\n", "id", "started", "status", "size",
	        "rounds", "builds", "host");
	for (size_t i = 0; i < n; i++) {
		struct store_build *b = NULL;
		size_t nb = 0;
		struct strlist names = {0};
		char *joined, status[64];
		if (store_session_builds(st, s[i].id, &b, &nb, &e) != 0) {
			cli_error(cmd, "%s", e.msg);
			goto out;
		}
		for (size_t k = 0; k < nb; k++)
			strlist_push(&names, b[k].name);
		joined = strlist_join(&names, ",");
		/* A running session this host cannot probe may be alive or dead: say which it is. */
		snprintf(status, sizeof status, "%s%s", s[i].status,
		         s[i].elsewhere ? " (elsewhere)" : "");
		/* A database may come from another host (push, a copy): every text in it is
		 * outside's, a build's name above all. */
		fprintf(out, "%-6lld %-21s %-20s %-8s %-7lld %-40s %s\n", (long long)s[i].id,
		        cli_safe(s[i].started_at), cli_safe(status), cli_safe(s[i].size),
		        (long long)s[i].rounds, cli_safe(joined),
		        s[i].hostname ? cli_safe(s[i].hostname) : "?");
		free(joined);
		if (items) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "id", (double)s[i].id);
			list_str(o, "started_at", s[i].started_at);
			list_str(o, "finished_at", s[i].finished_at);
			list_str(o, "status", s[i].status);
			cJSON_AddBoolToObject(o, "elsewhere", s[i].elsewhere);
			list_str(o, "size", s[i].size);
			cJSON_AddNumberToObject(o, "rounds", (double)s[i].rounds);
			cJSON_AddNumberToObject(o, "warmup", (double)s[i].warmup);
			cJSON_AddItemToObject(o, "builds", list_array(&names));
			list_str(o, "host", s[i].hostname);
			cJSON_AddItemToArray(items, o);
		}
		strlist_release(&names);
		store_builds_release(b, nb);
	}
	rc = EXIT_OK;
out:
	store_sessions_release(s, n);
	store_close(st);
	return rc;
}

/*
 * A default rule as `baseline pin` writes it, its class first: "banded max(2%, 512.0 KiB, 10%
 * live)", "exact 0%" (any rise regresses), "info 10%" (recorded, never decides).
 */
/* The class the rule gets (baseline_class_derive): info, exact with no band, banded. */
static const char *list_band_role(const struct metric_band *b)
{
	return !b->gated ? "info" : b->pct == 0 && b->abs == 0 && !b->live_pct ? "exact" : "banded";
}

static void list_band(const struct metric_info *m, const struct metric_band *b, char *buf,
                      size_t size)
{
	const char *role = list_band_role(b);
	char abs[24], live[24] = "";

	metrics_format_value(m->name, b->abs, abs, sizeof abs);
	if (b->live_pct > 0)
		snprintf(live, sizeof live, ", %g%% live", b->live_pct);
	if (b->pct > 0 && b->abs > 0)
		snprintf(buf, size, "%s max(%g%%, %s%s)", role, b->pct, abs, live);
	else if (b->abs > 0)
		snprintf(buf, size, "%s %s%s", role, abs, live);
	else
		snprintf(buf, size, "%s %g%%%s", role, b->pct, live);
}

/* A default rule as JSON: its class, whether it is gated, and its band's terms. */
static cJSON *list_band_json(const struct metric_band *b)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "rule", list_band_role(b));
	cJSON_AddBoolToObject(o, "gated", b->gated);
	cJSON_AddNumberToObject(o, "pct", b->pct);
	cJSON_AddNumberToObject(o, "abs", b->abs);
	cJSON_AddNumberToObject(o, "live_pct", b->live_pct);
	return o;
}

static int list_metrics(FILE *out, cJSON *items)
{
	const char *const *profiles = metrics_profiles();
	size_t n;
	const struct metric_info *t = metrics_table(&n);

	fprintf(out, "%-34s %-13s %-9s %-8s %-9s %-10s %-8s %-37s %s\n", "metric", "unit", "run",
	        "better", "class", "is", "ab", profiles[METRIC_PROFILE_SHARED_CI],
	        profiles[METRIC_PROFILE_PINNED_HOST]);
	for (size_t i = 0; i < n; i++) {
		char shared[64], pinned[64];
		list_band(&t[i], &t[i].band[METRIC_PROFILE_SHARED_CI], shared, sizeof shared);
		list_band(&t[i], &t[i].band[METRIC_PROFILE_PINNED_HOST], pinned, sizeof pinned);
		fprintf(out, "%-34s %-13s %-9s %-8s %-9s %-10s %-8s %-37s %s\n", t[i].name,
		        metrics_unit_name(t[i].unit), run_kind_name(t[i].kind),
		        metrics_direction_name(t[i].better), metrics_class_name(t[i].cls),
		        metrics_nature_name(t[i].nature), t[i].ab_decides ? "decides" : "info",
		        shared, pinned);
		if (items) {
			cJSON *o = cJSON_CreateObject(), *bands;
			cJSON_AddStringToObject(o, "metric", t[i].name);
			cJSON_AddStringToObject(o, "unit", metrics_unit_name(t[i].unit));
			cJSON_AddStringToObject(o, "run", run_kind_name(t[i].kind));
			cJSON_AddStringToObject(o, "better", metrics_direction_name(t[i].better));
			cJSON_AddStringToObject(o, "class", metrics_class_name(t[i].cls));
			cJSON_AddStringToObject(o, "is", metrics_nature_name(t[i].nature));
			cJSON_AddBoolToObject(o, "ab_decides", t[i].ab_decides);
			bands = cJSON_AddObjectToObject(o, "bands");
			for (int p = 0; p < METRIC_PROFILE_COUNT; p++)
				cJSON_AddItemToObject(bands, profiles[p],
				                      list_band_json(&t[i].band[p]));
			cJSON_AddItemToArray(items, o);
		}
	}
	/* The same rules baseline pin writes, changed by what a build says it does. */
	fprintf(out,
	        "\nThe bands above are those of a build that is precise and repeats itself. What "
	        "a build says\nit does (its census's capabilities) changes them, whatever it is "
	        "called:\n");
	for (size_t i = 0; i < baseline_fact_rules_count(); i++) {
		const char *fact, *which, *cls, *why;
		baseline_fact_rule_text(i, &fact, &which, &cls, &why);
		fprintf(out, "  %s: %s -> %s (%s)\n", fact, which, cls, why);
	}
	fprintf(out,
	        "Then baseline pin widens every gated cell whose pinning runs spread: its band "
	        "holds %g times\ntheir max - min (an exact one becomes banded), and the file "
	        "keeps the evidence.\n",
	        PIN_WIDEN_K);
	return EXIT_OK;
}

static int list_main(int argc, char **argv)
{
	const char *cmd = cmd_list.name, *what = "probes";
	struct list_opts lo = {0};
	struct strlist pos = {0};
	char *root = buildinfo_root(), *text = NULL;
	cJSON *json = NULL, *items = NULL;
	FILE *out = stdout;
	struct err e;
	int rc = EXIT_UNJUDGED, r;

	if ((r = cli_parse(&cmd_list, argc, argv, &lo, &pos)) != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	if (pos.n > 1) {
		rc = cli_error(cmd, "unexpected argument \"%s\"", pos.items[1]);
		goto out;
	}
	if (pos.n == 1)
		what = pos.items[0];
	if (lo.json) {
		json = cJSON_CreateObject();
		cJSON_AddStringToObject(json, "format", "gcratchet-list");
		cJSON_AddNumberToObject(json, "version", 1);
		/* --json -: stdout holds the JSON alone; the table goes to stderr. */
		out = write_file_is_stdout(lo.json) ? stderr : stdout;
	}
	if (strcmp(what, "probes") != 0 && strcmp(what, "collectors") != 0 &&
	    strcmp(what, "sessions") != 0 && strcmp(what, "metrics") != 0) {
		rc = cli_error(cmd,
		               "unknown list \"%s\" (valid: probes, collectors, sessions, metrics)",
		               what);
		goto out;
	}
	if (json) {
		cJSON_AddStringToObject(json, "list", what);
		items = cJSON_AddArrayToObject(json, "items");
	}
	rc = strcmp(what, "probes") == 0       ? list_probes(cmd, root, out, items)
	     : strcmp(what, "collectors") == 0 ? list_collectors(cmd, root, out, items)
	     : strcmp(what, "sessions") == 0   ? list_sessions(cmd, lo.db, out, items)
	                                       : list_metrics(out, items);
	if (fflush(out) != 0)
		rc = cli_error(cmd, "writing to %s failed", out == stdout ? "stdout" : "stderr");
	/* A listing that could not be read at all writes no JSON; one with an unusable build
	 * writes what it listed, that build with why. */
	if (json && (rc == EXIT_OK || cJSON_GetArraySize(items) > 0)) {
		char *printed = cJSON_Print(json);
		text = xasprintf("%s\n", printed);
		cJSON_free(printed);
		if (write_file_atomic(lo.json, text, strlen(text), &e) != 0)
			rc = cli_error(cmd, "%s", e.msg);
	}
out:
	cJSON_Delete(json);
	free(text);
	strlist_release(&pos);
	free(root);
	return rc;
}

#define LO(field) offsetof(struct list_opts, field)
static const struct cli_option list_options[] = {
    {"--db", "FILE", CLI_STRING, LO(db),
     .help = "the database of list sessions (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {"--json", "FILE", CLI_STRING, LO(json),
     .help = "the listing as JSON (format gcratchet-list) written there (- for stdout; the "
             "table then goes to stderr)"},
    {0},
};
#undef LO

const struct cli_verb cmd_list = {
    .name = "list",
    .summary = "list probes, collector builds, sessions or metrics",
    .args = "[probes|collectors|sessions|metrics]",
    .description =
        "probes: the probes built, and for which builds; collectors: the build folders under\n"
        "build/collectors with collector, version and commit; sessions: the sessions in the\n"
        "database; metrics: every metric name a baseline rule may use. --json FILE writes the\n"
        "listing's rows as JSON (format gcratchet-list), one object per row.\n",
    .exit_status = "0 listed; 2 an unreadable database or build folder, or bad arguments "
                   "(--json still writes a listing with an unusable build, saying why).",
    .options = list_options,
    .run = list_main,
};
