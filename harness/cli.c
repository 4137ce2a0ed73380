#include "cli.h"

#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <ctype.h>
#include <stddef.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "history.h"
#include "metrics.h"
#include "progress.h"
#include "quiet.h"

int cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL, *safe;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		msg = NULL;
	/*
	 * A message quotes what it was about: a build's name from its manifest, a lock holder's
	 * note, a server's words. None of them may drive the terminal.
	 */
	safe = escape_text(msg ? msg : fmt);
	fprintf(stderr, "gcratchet %s: %s\n", cmd, safe);
	free(safe);
	free(msg);
	return EXIT_UNJUDGED;
}

const char *cli_safe(const char *s)
{
	/* Enough for every field of one printf; each call reuses the oldest slot. */
	static char *ring[16];
	static unsigned next;
	struct sbuf b;
	char **slot = &ring[next++ % (sizeof ring / sizeof ring[0])];

	sbuf_init(&b);
	escape_line(&b, s);
	free(*slot);
	*slot = b.data;
	return *slot;
}

int cli_parse_session(const char *cmd, const char *opt, const char *val, const char *word,
                      int64_t *id)
{
	struct err e = ERR_INIT;
	int64_t v;

	if (cli_session_id(opt, val, word, &v, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		return -1;
	}
	if (v == CLI_SESSION_WORD)
		return 1;
	*id = v;
	return 0;
}

/* A connection string, checked by store_open: the cli does not know the engines. */
const char *cli_db_path(const char *opt)
{
	const char *env = getenv("GCR_DB");

	if (opt)
		return opt;
	if (env && *env)
		return env;
	return CLI_DEFAULT_DB;
}

const char *cli_fleet_url(const char *cmd, const char *opt)
{
	const char *env = getenv("GCR_FLEET_URL");

	if (opt && *opt)
		return opt;
	if (env && *env)
		return env;
	cli_error(cmd, "--fleet URL is required (or GCR_FLEET_URL): the fleet's PostgreSQL "
	               "database, postgresql://...");
	return NULL;
}

/* 1 when dir/name exists and is a folder (or, for ".git", anything: a worktree's is a file). */
static int cli_dir_has(const char *dir, const char *name, int want_dir)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct stat sb;
	int yes = stat(p, &sb) == 0 && (!want_dir || S_ISDIR(sb.st_mode));

	free(p);
	return yes;
}

const char *cli_baseline_dir(void)
{
	static char *found;
	const char *env = getenv("GCR_BASELINE_DIR");
	char *dir;

	if (env && *env)
		return env;
	if (found)
		return found;
	/*
	 * ./baselines, else the nearest baselines/ of a folder above, up to the repository's root
	 * (the first folder with a .git), as git finds its root from any subfolder.
	 */
	if (cli_dir_has(".", CLI_DEFAULT_BASELINES, 1) || cli_dir_has(".", ".git", 0) ||
	    !(dir = getcwd(NULL, 0)))
		return CLI_DEFAULT_BASELINES;
	for (;;) {
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
		if (cli_dir_has(dir, CLI_DEFAULT_BASELINES, 1)) {
			found = xasprintf("%s/%s", dir, CLI_DEFAULT_BASELINES);
			break;
		}
		if (cli_dir_has(dir, ".git", 0))
			break;
	}
	free(dir);
	return found ? found : CLI_DEFAULT_BASELINES;
}

char *cli_baseline_looked(void)
{
	const char *env = getenv("GCR_BASELINE_DIR");
	char *root, *text;

	if (env && *env)
		return xasprintf("looked in %s (GCR_BASELINE_DIR)", env);
	root = buildinfo_root();
	text = xasprintf("looked in ./baselines, the baselines/ of each folder above up to the "
	                 "repository's root, and %s/baselines",
	                 root);
	free(root);
	return text;
}

char *cli_baseline_path(const char *profile, const char *collector)
{
	return xasprintf("%s/%s/%s.json", cli_baseline_dir(), profile, collector);
}

char *cli_baseline_find(const char *profile, const char *collector)
{
	const char *env = getenv("GCR_BASELINE_DIR");
	char *own = cli_baseline_path(profile, collector), *root, *installed;

	if ((env && *env) || access(own, F_OK) == 0)
		return own;
	root = buildinfo_root();
	installed = xasprintf("%s/baselines/%s/%s.json", root, profile, collector);
	free(root);
	if (access(installed, F_OK) == 0) {
		free(own);
		return installed;
	}
	free(installed);
	return own;
}

int cli_check_profile(const char *cmd, const char *profile)
{
	static const char *const profiles[] = {"shared_ci", "pinned_host"};
	struct strlist names = {0};
	enum metric_profile p;
	const char *near;
	char phrase[NEAR_PHRASE_MAX];

	if (metrics_profile_parse(profile, &p) == 0)
		return 0;
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
		strlist_push(&names, profiles[i]);
	near = strlist_near(profile, &names);
	cli_error(cmd, "unknown profile \"%s\" (%svalid: shared_ci, pinned_host)", profile,
	          near_phrase(near, phrase, sizeof phrase));
	strlist_release(&names);
	return -1;
}

/* The collectors a name may mean here: the shipped builds, and those with a baseline. */
static void cli_known_collectors(struct strlist *names)
{
	char *root = buildinfo_root();
	const char *const profiles[] = {"shared_ci", "pinned_host"};

	buildinfo_list(root, names);
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
		char *dir = xasprintf("%s/%s", cli_baseline_dir(), profiles[i]);
		DIR *d = opendir(dir);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			size_t n = strlen(de->d_name);
			char *name;
			if (n <= 5 || strcmp(de->d_name + n - 5, ".json") != 0)
				continue;
			name = xasprintf("%.*s", (int)(n - 5), de->d_name);
			if (!strlist_contains(names, name))
				strlist_push(names, name);
			free(name);
		}
		if (d)
			closedir(d);
		free(dir);
	}
	free(root);
}

int cli_unknown_collector(const char *cmd, const char *collector)
{
	struct strlist names = {0};
	const char *near = NULL;
	char *valid;

	cli_known_collectors(&names);
	/* An unknown name with none near may be an out-of-tree collector's: the caller's advice
	 * (pin one) stands for it. */
	if (!strlist_contains(&names, collector))
		near = strlist_near(collector, &names);
	if (near) {
		valid = strlist_join(&names, ", ");
		cli_error(cmd,
		          "unknown collector \"%s\": no shipped build or baseline has that name "
		          "(did you mean %s? valid: %s)",
		          collector, near, valid);
		free(valid);
	}
	strlist_release(&names);
	return near != NULL;
}

const char *cli_resolve_probe(const char *cmd, const char *want, const struct strlist *available)
{
	const char *found = strlist_find_probe(available, want), *near;
	char phrase[NEAR_PHRASE_MAX], *valid;

	if (found)
		return found;
	valid = strlist_join(available, ", ");
	near = strlist_near_probe(available, want);
	cli_error(cmd, "unknown probe \"%s\" (%svalid: %s)", want,
	          near_phrase(near, phrase, sizeof phrase), valid);
	free(valid);
	return NULL;
}

/* Picks the session's build of the baseline's collector; prints and returns -1 if ambiguous. */
int cli_pick_build(const char *cmd, struct store_build *builds, size_t n, const char *collector,
                   const char *want_name, int64_t session, const struct store_build **out)
{
	const struct store_build *found = NULL;
	int count = 0;

	for (size_t i = 0; i < n; i++) {
		if (collector && strcmp(builds[i].collector, collector) != 0)
			continue;
		if (want_name &&
		    strcmp(builds[i].label ? builds[i].label : builds[i].name, want_name) != 0)
			continue;
		found = &builds[i];
		count++;
	}
	if (count == 1) {
		*out = found;
		return 0;
	}
	if (count == 0) {
		cli_error(cmd, "session %lld measured no build%s%s%s%s", (long long)session,
		          want_name ? " labelled " : "", want_name ? want_name : "",
		          collector ? " of collector " : "", collector ? collector : "");
	} else {
		struct sbuf labels;
		sbuf_init(&labels);
		for (size_t i = 0; i < n; i++)
			if (!collector || strcmp(builds[i].collector, collector) == 0)
				sbuf_addf(&labels, "%s\"%s\"", labels.len ? ", " : "",
				          builds[i].label ? builds[i].label : builds[i].name);
		cli_error(cmd,
		          "session %lld measured %d arms of collector %s: choose one with --build "
		          "LABEL (%s)",
		          (long long)session, count, collector ? collector : "any", labels.data);
		sbuf_release(&labels);
	}
	return -1;
}

int cli_find_session(const char *cmd, struct store *st, const char *db_path, const char *collector,
                     const char *size, int64_t *session)
{
	struct store_session *s = NULL;
	struct sbuf skipped;
	size_t n = 0, i;
	struct err e;
	int rc = -1;

	sbuf_init(&skipped);
	if (*session != 0) {
		rc = 0;
		goto out;
	}
	if (store_list_sessions(st, collector, &s, &n, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	/*
	 * Only a complete session measured everything it set out to: a newer one still running,
	 * killed or cut short must not stand in for it, and the user must hear that it did not.
	 */
	for (i = n; i-- > 0;) {
		struct store_sweep_cell *cells = NULL;
		size_t ncells = 0;
		if (strcmp(s[i].status, "complete") == 0) {
			/* A sweep ran its arms at heap limits no baseline was pinned at. */
			if (store_sweep_load(st, s[i].id, &cells, &ncells, &e) != 0) {
				cli_error(cmd, "%s", e.msg);
				goto out;
			}
			store_sweep_release(cells, ncells);
			if (ncells == 0)
				break;
			sbuf_addf(&skipped, "%s%lld (a sweep)", skipped.len ? ", " : "",
			          (long long)s[i].id);
			continue;
		}
		sbuf_addf(&skipped, "%s%lld (%s%s)", skipped.len ? ", " : "", (long long)s[i].id,
		          s[i].status, s[i].elsewhere ? ", elsewhere" : "");
	}
	if (i == (size_t)-1) {
		if (n == 0)
			cli_error(cmd,
			          "no session in %s measured collector %s: run gcratchet measure "
			          "--collector %s --size %s",
			          db_path, collector, collector, size);
		else
			cli_error(cmd,
			          "no complete session in %s measured collector %s outside a sweep "
			          "(skipped: %s): run gcratchet measure --collector %s --size %s",
			          db_path, collector, skipped.data, collector, size);
		goto out;
	}
	*session = s[i].id;
	if (skipped.len)
		fprintf(stderr, "gcratchet %s: skipping session%s %s, using session %lld\n", cmd,
		        i + 2 < n ? "s" : "", skipped.data, (long long)*session);
	rc = 0;
out:
	sbuf_release(&skipped);
	store_sessions_release(s, n);
	return rc;
}

int cli_plan_meters(const char *cmd, const char *meters_arg, const char *events_arg,
                    struct session_plan *plan, struct meter_valgrind *vg, struct meter_perf *perf)
{
	struct err e;

	if (meters_arg) {
		struct strlist l = {0};
		int rc = 0;
		plan->meters = SESSION_METER_RUSAGE | SESSION_METER_CENSUS;
		strlist_split(&l, meters_arg);
		for (size_t i = 0; i < l.n && rc == 0; i++) {
			if (strcmp(l.items[i], "rusage") == 0 || strcmp(l.items[i], "census") == 0)
				continue;
			if (strcmp(l.items[i], "valgrind") == 0)
				plan->meters |= SESSION_METER_VALGRIND;
			/* Simulating caches costs time, not Ir: the same runs give both. */
			else if (strcmp(l.items[i], "cachesim") == 0)
				plan->meters |= SESSION_METER_VALGRIND | SESSION_METER_CACHESIM;
			else if (strcmp(l.items[i], "perf") == 0)
				plan->meters |= SESSION_METER_PERF;
			else
				rc = cli_error(cmd,
				               "unknown meter \"%s\" in --meters (valid: rusage, "
				               "census, perf, valgrind, cachesim)",
				               l.items[i]);
		}
		strlist_release(&l);
		if (rc != 0)
			return -1;
		if ((plan->meters & SESSION_METER_VALGRIND) && meter_valgrind_find(vg, &e) != 0) {
			cli_error(cmd, "%s", e.msg);
			return -1;
		}
		if (events_arg && !(plan->meters & SESSION_METER_PERF)) {
			cli_error(cmd, "--events needs the perf meter (--meters ...,perf)");
			return -1;
		}
	} else {
		/* The default is every meter this host has; the caller says which. */
		plan->meters = SESSION_METER_RUSAGE | SESSION_METER_CENSUS | SESSION_METER_PERF;
		if (meter_valgrind_find(vg, &e) == 0)
			plan->meters |= SESSION_METER_VALGRIND;
		else
			fprintf(stderr, "gcratchet %s: valgrind meter off: %s\n", cmd, e.msg);
	}
	if (plan->meters & SESSION_METER_PERF) {
		if (meter_perf_setup(events_arg ? events_arg : METER_PERF_DEFAULT_EVENTS, perf,
		                     &e) != 0) {
			cli_error(cmd, "%s", e.msg);
			return -1;
		}
		/* Said once per session; the session carries on with what can count. */
		for (size_t i = 0; i < perf->n; i++)
			if (!perf->events[i].available)
				fprintf(stderr, "gcratchet %s: perf event %s unavailable: %s\n",
				        cmd, perf->events[i].name, perf->events[i].why);
		if (meter_perf_available(perf) == 0)
			plan->meters &= ~(unsigned)SESSION_METER_PERF;
	}
	plan->valgrind = vg;
	plan->perf = perf;
	return 0;
}

void cli_describe_meters(const struct session_plan *plan, struct sbuf *out)
{
	sbuf_addf(out, "rusage, census");
	if (plan->meters & SESSION_METER_PERF) {
		sbuf_addf(out, ", perf (");
		for (size_t i = 0, k = 0; i < plan->perf->n; i++)
			if (plan->perf->events[i].available)
				sbuf_addf(out, "%s%s", k++ ? ", " : "", plan->perf->events[i].name);
		sbuf_addf(out, ")");
	}
	if (plan->meters & SESSION_METER_CACHESIM)
		sbuf_addf(out, ", valgrind Ir and cache simulation (%s)", plan->valgrind->version);
	else if (plan->meters & SESSION_METER_VALGRIND)
		sbuf_addf(out, ", valgrind Ir (%s)", plan->valgrind->version);
}

int cli_plan_probes(const char *cmd, const struct buildinfo *builds, size_t n,
                    const char *probes_arg, struct session_plan *plan)
{
	struct strlist available = {0}, want = {0};
	int rc = -1;

	for (size_t i = 0; i < builds[0].probes.n; i++) {
		const char *p = builds[0].probes.items[i];
		int everywhere = 1;
		for (size_t b = 1; b < n; b++)
			everywhere &= strlist_contains(&builds[b].probes, p);
		if (everywhere)
			strlist_push(&available, p);
	}
	if (available.n == 0) {
		cli_error(cmd, "the chosen builds have no probe in common");
		goto out;
	}
	if (!probes_arg) {
		for (size_t i = 0; i < available.n; i++)
			strlist_push(&plan->probes, available.items[i]);
		rc = 0;
		goto out;
	}
	strlist_split(&want, probes_arg);
	for (size_t i = 0; i < want.n; i++) {
		const char *p = cli_resolve_probe(cmd, want.items[i], &available);
		if (!p)
			goto out;
		if (!strlist_contains(&plan->probes, p))
			strlist_push(&plan->probes, p);
	}
	if (plan->probes.n == 0) {
		cli_error(cmd, "--probes names no probe");
		goto out;
	}
	rc = 0;
out:
	strlist_release(&want);
	strlist_release(&available);
	return rc;
}

char *cli_command_line(int argc, char **argv)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_addf(&b, "gcratchet");
	/*
	 * The line is stored with the session, pushed to the fleet, exported and shown on its
	 * page: a connection string's password goes nowhere. Argument by argument, where a
	 * key=value string is still whole.
	 */
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '=');
		char *shown = NULL;
		if ((i > 0 && store_db_option(argv[i - 1], strlen(argv[i - 1]))) ||
		    store_is_conninfo(arg)) {
			shown = store_url_redact(arg);
		} else if (strncmp(arg, "--", 2) == 0 && eq &&
		           store_db_option(arg, (size_t)(eq - arg))) {
			char *value = store_url_redact(eq + 1);
			shown = xasprintf("%.*s%s", (int)(eq + 1 - arg), arg, value);
			free(value);
		}
		sbuf_addf(&b, " %s", shown ? shown : arg);
		free(shown);
	}
	return b.data;
}

char *cli_script_path(const char *root, const char *name)
{
	const char *env = getenv("GCR_SCRIPTS_DIR");

	if (env && *env)
		return xasprintf("%s/%s", env, name);
	return xasprintf("%s/../scripts/%s", root, name);
}

/*
 * From the clock to the nanosecond and the pid, mixed: one process may start several sessions
 * within a second (pin measures three), and a session's natural key holds its seed.
 */
UTIL_WRAPS_ON_PURPOSE
uint64_t cli_default_seed(void)
{
	uint64_t x = (uint64_t)now_real_ns() ^ ((uint64_t)getpid() << 32);

	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x & INT64_MAX;
}

/* A line of the wait that stays on screen; the reason may quote the holder's note, which any
 * user of the host can write. */
static void cli_wait_say(const char *cmd, const char *why, const char *so_far)
{
	char *safe = escape_text(why);

	fprintf(stderr, "gcratchet %s: %s%s%s\n", cmd, safe, so_far ? "; " : "",
	        so_far ? so_far : "");
	free(safe);
}

int cli_json_stdout_begin(const char *json_path)
{
	int saved;

	if (!json_path || !write_file_is_stdout(json_path))
		return -1;
	fflush(stdout);
	saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (saved >= 0 && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		close(saved);
		saved = -1;
	}
	return saved;
}

void cli_json_stdout_end(int saved)
{
	if (saved < 0)
		return;
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
}

void cli_waiting(void *ctx, const struct quiet_wait *w)
{
	/* One wait at a time in a process (the lock, then the load), so its display is one too. */
	static struct progress_display d;
	static int64_t last_ns;
	const char *cmd = ctx;
	int64_t now = now_mono_ns();
	char so_far[48], line[400];

	snprintf(so_far, sizeof so_far, "waited ");
	progress_format_duration(w->waited_ns, so_far + 7, sizeof so_far - 7);
	switch (w->state) {
	case QUIET_WAIT_BEGIN:
		progress_display_init(&d, cmd, stderr, STDERR_FILENO, NULL);
		cli_wait_say(cmd, w->why, NULL);
		last_ns = now;
		break;
	case QUIET_WAIT_STILL:
		if (w->changed) {
			progress_display_clear(&d);
			cli_wait_say(cmd, w->why, so_far);
			last_ns = now;
		} else if (now - last_ns >=
		           (d.redraw ? 1 : CLI_WAIT_PLAIN_EVERY_S) * INT64_C(1000000000)) {
			snprintf(line, sizeof line, "%s; %s", w->why, so_far);
			progress_display_text(&d, line, 1);
			last_ns = now;
		}
		break;
	case QUIET_WAIT_DONE:
		progress_display_clear(&d);
		cli_wait_say(cmd, w->why, NULL);
		break;
	}
}

/* ---- Rows several verbs take ----------------------------------------------------------- */

#define HQ(field) offsetof(struct history_query, field)
const struct cli_option history_options[] = {
    {"--collector", "C", CLI_STRING, HQ(collector), .group = HISTORY_OPT_QUERY,
     .flags = CLI_REQUIRED, .help = "the collector whose builds measured it (required)"},
    {"--probe", "P", CLI_STRING, HQ(probe), .group = HISTORY_OPT_QUERY, .flags = CLI_REQUIRED,
     .help = "the probe, by name or number (required)"},
    {"--metric", "M", CLI_STRING, HQ(metric), .group = HISTORY_OPT_QUERY, .flags = CLI_REQUIRED,
     .help = "the metric (required; see gcratchet list metrics)"},
    {"--since", "DATE", CLI_STRING, HQ(since), .group = HISTORY_OPT_QUERY,
     .help = "sessions started on or after DATE (2026-11-01 or 2026-11-01T12:00:00Z, UTC)"},
    {"--size", "S", CLI_STRING, HQ(size), .group = HISTORY_OPT_QUERY,
     .help = "one size's sessions only"},
    {"--git", "DIR", CLI_STRING, HQ(git), .group = HISTORY_OPT_QUERY,
     .help = "the repository whose history orders the commits (default: the current "
             "directory's)"},
    {"--db", "FILE", CLI_STRING, HQ(db), .group = HISTORY_OPT_DB,
     .help = "the database (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {0},
};
#undef HQ
