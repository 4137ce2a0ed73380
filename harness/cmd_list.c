/* gcratchet list — what there is to measure and what was measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"
#include "cli.h"
#include "cmds.h"
#include "baseline.h"
#include "metrics.h"
#include "pin.h"
#include "store.h"

static int list_collectors(const char *cmd, const char *root)
{
	struct strlist names = {0};
	int rc = EXIT_OK;

	buildinfo_list(root, &names);
	if (names.n == 0)
		fprintf(stderr, "gcratchet %s: no collector builds under %s/collectors: run make\n",
		        cmd, root);
	printf("%-22s %-18s %-14s %-12s %s\n", "build", "collector", "version", "commit", "probes");
	for (size_t i = 0; i < names.n; i++) {
		struct buildinfo b;
		struct err e;
		char *dir = xasprintf("%s/collectors/%s", root, names.items[i]);
		if (buildinfo_load(dir, &b, &e) != 0) {
			printf("%-22s (unusable: %s)\n", cli_safe(names.items[i]), cli_safe(e.msg));
			rc = EXIT_UNJUDGED;
		} else {
			printf("%-22s %-18s %-14s %-12.12s %zu\n", cli_safe(b.name),
			       cli_safe(b.collector), cli_safe(b.version), cli_safe(b.git_commit),
			       b.probes.n);
			buildinfo_release(&b);
		}
		free(dir);
	}
	strlist_release(&names);
	return rc;
}

static int list_probes(const char *cmd, const char *root)
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
	printf("%-28s %s\n", "probe", "built for");
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
		printf("%-28s %s\n", cli_safe(probes.items[p]), cli_safe(joined));
		free(joined);
	}
out:
	strlist_release(&where);
	strlist_release(&probes);
	strlist_release(&names);
	return rc;
}

static int list_sessions(const char *cmd, const char *db)
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
	printf("%-6s %-21s %-20s %-8s %-7s %-40s %s\n", "id", "started", "status", "size", "rounds",
	       "builds", "host");
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
		printf("%-6lld %-21s %-20s %-8s %-7lld %-40s %s\n", (long long)s[i].id,
		       cli_safe(s[i].started_at), cli_safe(status), cli_safe(s[i].size),
		       (long long)s[i].rounds, cli_safe(joined),
		       s[i].hostname ? cli_safe(s[i].hostname) : "?");
		free(joined);
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
static void list_band(const struct metric_info *m, const struct metric_band *b, char *buf,
                      size_t size)
{
	/* The class the rule gets (baseline_class_derive): info, exact with no band, banded. */
	const char *role = !b->gated                                    ? "info"
	                   : b->pct == 0 && b->abs == 0 && !b->live_pct ? "exact"
	                                                                : "banded";
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

static int list_metrics(void)
{
	const char *const *profiles = metrics_profiles();
	size_t n;
	const struct metric_info *t = metrics_table(&n);

	printf("%-34s %-13s %-9s %-8s %-9s %-10s %-8s %-37s %s\n", "metric", "unit", "run",
	       "better", "class", "is", "ab", profiles[METRIC_PROFILE_SHARED_CI],
	       profiles[METRIC_PROFILE_PINNED_HOST]);
	for (size_t i = 0; i < n; i++) {
		char shared[64], pinned[64];
		list_band(&t[i], &t[i].band[METRIC_PROFILE_SHARED_CI], shared, sizeof shared);
		list_band(&t[i], &t[i].band[METRIC_PROFILE_PINNED_HOST], pinned, sizeof pinned);
		printf("%-34s %-13s %-9s %-8s %-9s %-10s %-8s %-37s %s\n", t[i].name,
		       metrics_unit_name(t[i].unit), run_kind_name(t[i].kind),
		       metrics_direction_name(t[i].better), metrics_class_name(t[i].cls),
		       metrics_nature_name(t[i].nature), t[i].ab_decides ? "decides" : "info",
		       shared, pinned);
	}
	/* The same rules baseline pin writes, changed by what a build says it does. */
	printf("\nThe bands above are those of a build that is precise and repeats itself. What a "
	       "build says\nit does (its census's capabilities) changes them, whatever it is "
	       "called:\n");
	for (size_t i = 0; i < baseline_fact_rules_count(); i++) {
		const char *fact, *which, *cls, *why;
		baseline_fact_rule_text(i, &fact, &which, &cls, &why);
		printf("  %s: %s -> %s (%s)\n", fact, which, cls, why);
	}
	printf("Then baseline pin widens every gated cell whose pinning runs spread: its band "
	       "holds %g times\ntheir max - min (an exact one becomes banded), and the file "
	       "keeps the evidence.\n",
	       PIN_WIDEN_K);
	return EXIT_OK;
}

static int list_main(int argc, char **argv)
{
	const char *cmd = cmd_list.name, *db = NULL, *what = "probes";
	struct strlist pos = {0};
	char *root = buildinfo_root();
	int rc = EXIT_UNJUDGED, r;

	if ((r = cli_parse(&cmd_list, argc, argv, &db, &pos)) != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	if (pos.n > 1) {
		rc = cli_error(cmd, "unexpected argument \"%s\"", pos.items[1]);
		goto out;
	}
	if (pos.n == 1)
		what = pos.items[0];
	if (strcmp(what, "probes") == 0)
		rc = list_probes(cmd, root);
	else if (strcmp(what, "collectors") == 0)
		rc = list_collectors(cmd, root);
	else if (strcmp(what, "sessions") == 0)
		rc = list_sessions(cmd, db);
	else if (strcmp(what, "metrics") == 0)
		rc = list_metrics();
	else
		rc = cli_error(cmd,
		               "unknown list \"%s\" (valid: probes, collectors, sessions, metrics)",
		               what);
out:
	strlist_release(&pos);
	free(root);
	return rc;
}

/* Its one option lands in a const char *: the database sessions are listed from. */
static const struct cli_option list_options[] = {
    {"--db", "FILE", CLI_STRING, 0,
     .help = "the database of list sessions (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {0},
};

const struct cli_verb cmd_list = {
    .name = "list",
    .summary = "list probes, collector builds, sessions or metrics",
    .args = "[probes|collectors|sessions|metrics]",
    .description =
        "probes: the probes built, and for which builds; collectors: the build folders under\n"
        "build/collectors with collector, version and commit; sessions: the sessions in the\n"
        "database; metrics: every metric name a baseline rule may use.\n",
    .exit_status = "0 listed; 2 an unreadable database or build folder, or bad arguments.",
    .options = list_options,
    .run = list_main,
};
