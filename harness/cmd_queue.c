/*
 * gcratchet queue — submit measurements to the fleet's queue, see it, cancel them
 * (docs/queue.md). The workers (cmd_worker.c) run what is queued.
 */
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buildinfo.h"
#include "cli.h"
#include "cmds.h"
#include "gitrev.h"
#include "queue.h"
#include "report_sweep.h"
#include "session_opts.h"

/*
 * What queue submit reads of a verb's command line, walking it with the verb's own rows
 * (cli_scan): the builds it names (rows flagged CLI_BUILDS) and --probes, each with its place
 * among the arguments, and for a bisect its ends and repository.
 */
struct queue_scan {
	const char *cmd;
	char **argv; /* the verb's name, then its arguments */
	int argc, next;
	struct strlist kinds, values; /* each build's option and value, in order */
	struct queue_place *places;
	const char *probes;
	struct queue_place probes_at;
	/* bisect: the repository its ends are commits of, and where they are named */
	const char *repo, *repo_opt;
	char *scripts;
	struct strlist ends;
	struct queue_place *ends_at;
	const char *refused; /* bisect's --resume or --json */
	int bisect;
};

/*
 * Where val (a pointer into argv, as cli_scan hands it) is among the verb's arguments: the
 * option before it ("--build DIR", width 2), or the option it ends ("--build=DIR", width 1).
 */
static struct queue_place queue_scan_place(struct queue_scan *q, const char *val)
{
	struct queue_place at = {0, 0};

	for (int k = q->next; val && k < q->argc; k++) {
		const char *eq = strchr(q->argv[k], '=');
		if (q->argv[k] == val && k >= 2) {
			at = (struct queue_place){(size_t)k - 2, 2};
		} else if (eq && eq + 1 == val && strncmp(q->argv[k], "--", 2) == 0) {
			at = (struct queue_place){(size_t)k - 1, 1};
		} else
			continue;
		q->next = k + 1;
		break;
	}
	return at;
}

static void queue_scan_row(void *ctx, const struct cli_option *row, const char *val)
{
	struct queue_scan *q = ctx;
	struct queue_place at = queue_scan_place(q, row ? val : NULL);
	static const char *const ends[] = {"--good", "--bad", "--old", "--new"};

	if (!row)
		return;
	if (row->flags & CLI_BUILDS) {
		q->places = xrealloc(q->places, (q->kinds.n + 1) * sizeof *q->places);
		q->places[q->kinds.n] = at;
		strlist_push(&q->kinds, row->name);
		strlist_push(&q->values, val);
	}
	if (strcmp(row->name, "--probes") == 0) {
		q->probes = val;
		q->probes_at = at;
	} else if (!q->bisect) {
		return;
	} else if (strcmp(row->name, "--collector-dir") == 0) {
		q->repo = val;
	} else if (strcmp(row->name, "--collector") == 0) {
		/* bisect's collector is built from the scripts' repository */
		if (!q->scripts) {
			char *root = buildinfo_root();
			q->scripts = cli_script_path(root, "build-rev.sh");
			if (strrchr(q->scripts, '/'))
				*strrchr(q->scripts, '/') = '\0';
			free(root);
		}
		q->repo = q->scripts;
	} else if (strcmp(row->name, "--repo") == 0) {
		q->repo_opt = val;
	} else if (strcmp(row->name, "--resume") == 0 || strcmp(row->name, "--json") == 0) {
		if (!q->refused)
			q->refused = row->name;
	}
	for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++) {
		if (strcmp(row->name, ends[k]) != 0)
			continue;
		q->ends_at = xrealloc(q->ends_at, (q->ends.n + 1) * sizeof *q->ends_at);
		q->ends_at[q->ends.n] = at;
		strlist_push(&q->ends, row->name);
	}
}

/*
 * Walks the verb's arguments with its declaration: -1 after printing why (an unknown option,
 * one without its value: the verb would refuse it on the worker).
 */
static int queue_scan(struct queue_scan *q, const char *verb, const struct strlist *args)
{
	const struct cli_verb *v = cli_find_verb(verb);

	q->argc = (int)args->n + 1;
	q->argv = xcalloc(args->n + 2, sizeof *q->argv);
	q->argv[0] = (char *)verb;
	for (size_t i = 0; i < args->n; i++)
		q->argv[i + 1] = args->items[i];
	q->next = 1;
	return cli_scan(v, q->argc, q->argv, queue_scan_row, q);
}

static void queue_scan_release(struct queue_scan *q)
{
	free(q->argv);
	strlist_release(&q->kinds);
	strlist_release(&q->values);
	free(q->places);
	free(q->scripts);
	strlist_release(&q->ends);
	free(q->ends_at);
}

/* The fleet's database, opened when a submit first needs it (queue_build_known). */
struct queue_fleet {
	const char *url;
	struct store *s;
	int tried;
	struct err why; /* why s could not be opened */
};

/*
 * 1 when the fleet's database already holds a build of dir's manifest (which holds every
 * probe's sha256): its hash is then taken as it stands, without reading every probe again
 * (most of a submit's CPU went there); the worker verifies the build before it measures. 0
 * when it does not, or cannot say (a database that cannot be opened is reported by the submit).
 */
static int queue_build_known(struct queue_fleet *f, const char *dir, char hash[17])
{
	struct store_sql *q = NULL;
	struct err e = ERR_INIT;
	int known = 0;

	if (buildinfo_manifest_hash(dir, hash, &e) != 0)
		return 0;
	if (!f->s && !f->tried) {
		f->tried = 1;
		if (queue_open(f->url, &f->s, &f->why) != 0)
			f->s = NULL;
	}
	if (f->s && store_sql_open(f->s, "SELECT 1 FROM builds WHERE manifest_hash = ?",
	                           "finding a build", &q, &e) == 0) {
		store_sql_text(q, hash);
		known = store_sql_step(q, &e) == 1;
	}
	store_sql_close(q);
	return known;
}

/*
 * The build `value` names (kind "--collector": a shipped collector; another CLI_BUILDS
 * option: a folder), as the submitter's gcratchet finds it, with its manifest hash: verified
 * whole (buildinfo_load) unless the fleet knows it already. -1 after printing why.
 */
static int queue_build_resolve(const char *cmd, struct queue_fleet *f, const char *kind,
                               const char *value, struct queue_build *out)
{
	struct buildinfo bi = {0};
	struct err e = ERR_INIT;
	char *root = buildinfo_root(), *dir, hash[17];
	int rc = -1;

	dir = strcmp(kind, "--collector") == 0 ? xasprintf("%s/collectors/%s", root, value)
	                                       : xstrdup(value);
	if (queue_build_known(f, dir, hash)) {
		out->digest = xstrdup(hash);
	} else if (buildinfo_load(dir, &bi, &e) != 0) {
		cli_error(cmd, "%s %s: %s", kind, value, e.msg);
		goto out;
	} else {
		out->digest = xstrdup(bi.manifest_hash);
	}
	out->option = xstrdup(kind);
	out->value = xstrdup(value);
	rc = 0;
out:
	buildinfo_release(&bi);
	free(dir);
	free(root);
	return rc;
}

/* ab's BASE or FIX: a folder, or a shipped collector's name. */
static int queue_ab_arm(const char *cmd, struct queue_fleet *f, const char *arg,
                        struct queue_build *out)
{
	struct stat sb;
	struct strlist names = {0};
	char *root = buildinfo_root();
	int rc;

	buildinfo_list(root, &names);
	if (stat(arg, &sb) == 0 || strchr(arg, '/'))
		rc = queue_build_resolve(cmd, f, "--build", arg, out);
	else if (strlist_contains(&names, arg))
		rc = queue_build_resolve(cmd, f, "--collector", arg, out);
	else {
		cli_error(cmd,
		          "ab's BASE and FIX must come first, each a build folder or a shipped "
		          "collector: \"%s\" is neither (a REV is not queued: build it first)",
		          arg);
		rc = -1;
	}
	strlist_release(&names);
	free(root);
	return rc;
}

/*
 * A bisect is one job: its steps decide each other. Its --good and --bad are resolved here to
 * full hashes in the repository the bisect searches (as the submitter's checkout sees it), so
 * that a worker bisects the commits submitted whatever its branches say; its builds are made
 * at those commits by the worker, so no build digest is recorded. --resume and --json are
 * refused: the bisect's record lives in the worker's scratch store and comes back with the
 * job (queue result). -1 after printing why.
 */
static int queue_bisect_args(const char *cmd, const struct strlist *args,
                             const struct queue_scan *q, struct strlist *out)
{
	const char *repo = q->repo ? q->repo : q->repo_opt ? q->repo_opt : ".";
	size_t k = 0;

	if (q->refused) {
		cli_error(cmd,
		          "queue submit bisect: %s is refused: the worker's bisect is stored "
		          "with the job (its answer: gcratchet queue result REQUEST [--json "
		          "FILE]; its record and steps: the fleet's bisects)",
		          q->refused);
		return -1;
	}
	for (size_t i = 0; i < args->n; i++) {
		const char *name, *v;
		struct sbuf hash;

		if (k >= q->ends.n || q->ends_at[k].at != i || !q->ends_at[k].width) {
			strlist_push(out, args->items[i]);
			continue;
		}
		name = q->ends.items[k];
		v = q->ends_at[k].width == 2 ? args->items[i + 1] : strchr(args->items[i], '=') + 1;
		i += q->ends_at[k++].width - 1;
		sbuf_init(&hash);
		if (gitrev_commit_hash(repo, v, &hash) != 0 || hash.len != 40) {
			cli_error(
			    cmd,
			    "queue submit bisect: %s %s is not a commit of the repository in %s",
			    name, v, repo);
			sbuf_release(&hash);
			return -1;
		}
		strlist_push(out, name);
		strlist_push(out, hash.data);
		sbuf_release(&hash);
	}
	return 0;
}

/*
 * The parts a request is split into (queue_split), with the builds its arguments name
 * resolved to their manifest hashes; -1 after printing why.
 */
static int queue_parts(const char *cmd, struct queue_fleet *f, const char *verb,
                       const struct strlist *args, int split, struct queue_part **parts,
                       size_t *nparts, const char **how)
{
	struct queue_scan q = {.cmd = cmd, .bisect = strcmp(verb, "bisect") == 0};
	struct queue_split_in in = {.verb = verb, .args = args, .split = split};
	struct strlist bisect_args = {0};
	struct queue_build *builds = NULL;
	struct queue_place *places = NULL;
	size_t nb = 0;
	int ab = strcmp(verb, "ab") == 0, rc = -1;

	*parts = NULL;
	*nparts = 0;
	*how = "none";
	/* ab names its builds by position, BASE and FIX, not by option rows: they come first. */
	if (ab && (args->n < 2 || strncmp(args->items[0], "--", 2) == 0 ||
	           strncmp(args->items[1], "--", 2) == 0)) {
		cli_error(cmd, "queue submit ab BASE FIX [options]: BASE and FIX come first");
		goto out;
	}
	builds = xcalloc(args->n + 2, sizeof *builds);
	places = xcalloc(args->n + 2, sizeof *places);
	for (size_t i = 0; ab && i < 2; i++)
		if (queue_ab_arm(cmd, f, args->items[i], &builds[nb++]) != 0)
			goto out;
	if (queue_scan(&q, verb, args) != 0)
		goto out;
	if (q.bisect) {
		/* A bisect builds at commits, on the worker: no build of it has a digest here. */
		if (queue_bisect_args(cmd, args, &q, &bisect_args) != 0)
			goto out;
		in.args = &bisect_args;
		nb = 0;
	} else {
		for (size_t i = 0; i < q.kinds.n; i++) {
			places[nb] = q.places[i];
			if (queue_build_resolve(cmd, f, q.kinds.items[i], q.values.items[i],
			                        &builds[nb++]) != 0)
				goto out;
		}
		/* A verb that names no build runs the default collector: the worker checks it. */
		if (nb == 0 && !ab &&
		    queue_build_resolve(cmd, f, "--collector", CLI_DEFAULT_COLLECTOR,
		                        &builds[nb++]) != 0)
			goto out;
		in.probes = q.probes;
		in.probes_at = q.probes_at;
	}
	in.builds = builds;
	in.places = places;
	in.nbuilds = nb;
	queue_split(&in, parts, nparts, how);
	rc = 0;
out:
	for (size_t i = 0; builds && i < args->n + 2; i++) {
		free(builds[i].option);
		free(builds[i].value);
		free(builds[i].digest);
	}
	free(builds);
	free(places);
	strlist_release(&bisect_args);
	queue_scan_release(&q);
	return rc;
}

/*
 * The verb's arguments (argv[0] the verb) into args: -1 after printing why when one names a
 * database, which a job may not (the worker measures into a scratch file).
 */
static int queue_verb_args(const char *cmd, int argc, char **argv, struct strlist *args)
{
	for (int i = 1; i < argc; i++) {
		size_t n = strcspn(argv[i], "=");
		/*
		 * Only what names a server is refused: a knob's NAME=VALUE, bisect's --make
		 * VAR=VALUE or a --build-cmd "CC=clang sh build.sh" looks like key=value too.
		 */
		int server = store_names_server(argv[i]);
		if (store_db_option(argv[i], n) || server) {
			cli_error(
			    cmd,
			    "queue submit: the verb's argument %d is %s: a job names no database "
			    "(the worker measures into a scratch file and stores the session in "
			    "the fleet's)",
			    i, server ? "a connection string" : "a database option");
			return -1;
		}
		strlist_push(args, argv[i]);
	}
	return 0;
}

/* queue submit's options, as its rows land them. */
struct queue_submit_opts {
	const char *fleet, *cpu, *kernel;
	int64_t priority;
	uint64_t max_attempts;
	int quiet, no_split;
};

static int queue_priority_row(void *field, const struct cli_option *row, const char *val,
                              struct err *e)
{
	char *end;
	long long p = strtoll(val, &end, 10);

	(void)row;
	if (!*val || *end || p < -1000000 || p > 1000000)
		return err_setc(
		    e, ERR_INVALID,
		    "--priority %s: expected an integer from -1000000 to 1000000 (higher "
		    "runs first)",
		    val);
	*(int64_t *)field = p;
	return 0;
}

static int queue_attempts_row(void *field, const struct cli_option *row, const char *val,
                              struct err *e)
{
	uint64_t n;

	if (parse_u64(val, &n) != 0 || n == 0)
		return err_setc(e, ERR_INVALID, "%s must be a positive integer, got \"%s\"",
		                row->name, val);
	if (n > row->max)
		return err_setc(e, ERR_INVALID, "%s %s: at most %" PRIu64, row->name, val,
		                row->max);
	*(uint64_t *)field = n;
	return 0;
}

static const struct cli_verb *queue_sub(const char *name)
{
	return cli_find_sub(&cmd_queue, name);
}

static int queue_submit_cmd(int argc, char **argv)
{
	const struct cli_verb *v = queue_sub("submit");
	const char *cmd = cmd_queue.name, *url;
	struct queue_submit_opts o = {.max_attempts = QUEUE_MAX_ATTEMPTS};
	struct queue_fleet fleet = {0};
	struct queue_request req = {0};
	struct queue_part *parts = NULL;
	struct strlist args = {0};
	struct store *s = NULL;
	struct err e = ERR_INIT;
	char cwd[PATH_MAX], *submitter = NULL;
	size_t nparts = 0;
	int64_t request_id = 0, *job_ids = NULL;
	int rc = EXIT_UNJUDGED, r, verb_at = argc;

	/* Options of submit come before VERB; everything from VERB on is the verb's. */
	for (int i = 1; i < argc; i++) {
		size_t off = 0, len = strcspn(argv[i], "=");
		char *name = xasprintf("%.*s", (int)len, argv[i]);
		const struct cli_option *row = cli_find_option(v->options, name, &off);
		free(name);
		if (strncmp(argv[i], "--", 2) != 0) {
			verb_at = i;
			break;
		}
		if (row && cli_option_metavar(row) && !argv[i][len])
			i++;
	}
	r = cli_parse(v, verb_at, argv, &o, NULL);
	if (r != 0)
		return r > 0 ? EXIT_OK : EXIT_UNJUDGED;
	req.priority = o.priority;
	req.max_attempts = (int64_t)o.max_attempts;
	req.cpu = o.cpu;
	req.kernel = o.kernel;
	req.quiet = o.quiet;
	if (verb_at >= argc) {
		rc = cli_error(cmd, "queue submit needs a VERB to run (measure, ab, ratchet, "
		                    "sweep, minheap, bisect)");
		goto out;
	}
	req.verb = argv[verb_at];
	if (!queue_runs_verb(req.verb)) {
		rc = cli_error(cmd,
		               "queue submit %s: not a verb the queue runs (measure, ab, ratchet, "
		               "sweep, minheap, bisect)",
		               req.verb);
		goto out;
	}
	if (queue_verb_args(cmd, argc - verb_at, argv + verb_at, &args) != 0)
		goto out;
	if (!(url = cli_fleet_url(cmd, o.fleet)))
		goto out;
	if (!getcwd(cwd, sizeof cwd)) {
		rc = cli_error(cmd, "cannot read the working directory");
		goto out;
	}
	fleet.url = url;
	r = queue_parts(cmd, &fleet, req.verb, &args, !o.no_split, &parts, &nparts, &req.split);
	s = fleet.s;
	if (r != 0)
		goto out;
	submitter = queue_submitter();
	req.cwd = cwd;
	req.submitter = submitter;
	req.args = args;
	req.parts = parts;
	req.nparts = nparts;
	job_ids = xcalloc(nparts + 1, sizeof *job_ids);
	/* A database that could not be opened for a build's lookup is not tried twice. */
	if (!s && fleet.tried)
		e = fleet.why;
	if (!s && (fleet.tried || queue_open(url, &s, &e) != 0)) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (queue_submit(s, &req, &request_id, job_ids, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	printf("request %lld: %s, %zu job%s%s%s%s\n", (long long)request_id, req.verb, nparts,
	       nparts == 1 ? "" : "s", strcmp(req.split, "none") ? " (split by " : "",
	       strcmp(req.split, "none") ? req.split : "", strcmp(req.split, "none") ? ")" : "");
	for (size_t i = 0; i < nparts; i++)
		printf("  job %lld: %s\n", (long long)job_ids[i], cli_safe(parts[i].label));
	fprintf(stderr, "gcratchet %s: queued in %s by %s\n", cmd, cli_safe(store_where(s)),
	        cli_safe(submitter));
	rc = fflush(stdout) != 0 ? cli_error(cmd, "writing to stdout failed") : EXIT_OK;
out:
	store_close(s);
	for (size_t i = 0; i < nparts; i++)
		queue_part_release(&parts[i]);
	free(parts);
	free(job_ids);
	free(submitter);
	strlist_release(&args);
	return rc;
}

static void queue_print_jobs(const struct queue_status *st)
{
	printf("%-6s %-5s %-8s %-22s %-9s %-7s %-12s %-7s %s\n", "JOB", "REQ", "VERB", "PART",
	       "STATE", "ATTEMPT", "WORKER", "WAITED", "SESSIONS");
	for (size_t i = 0; i < st->njobs; i++) {
		const struct queue_job_row *j = &st->jobs[i];
		char attempt[32], waited[32];
		snprintf(attempt, sizeof attempt, "%lld/%lld", (long long)j->attempt,
		         (long long)j->max_attempts);
		if (j->waited_s >= 0)
			snprintf(waited, sizeof waited, "%llds", (long long)j->waited_s);
		else
			snprintf(waited, sizeof waited, "-");
		printf("%-6lld %-5lld %-8s %-22s %-9s %-7s %-12s %-7s %s\n", (long long)j->id,
		       (long long)j->request_id, cli_safe(j->verb), cli_safe(j->label),
		       cli_safe(j->state), attempt, j->worker ? cli_safe(j->worker) : "-", waited,
		       j->sessions ? cli_safe(j->sessions) : "-");
		if (j->reasons &&
		    (strcmp(j->state, "failed") == 0 || strcmp(j->state, "queued") == 0)) {
			struct strlist lines = {0};
			const char *p = j->reasons;
			while (*p) {
				size_t n = strcspn(p, "\n");
				char *line = xasprintf("%.*s", (int)n, p);
				printf("         %s\n", cli_safe(line));
				free(line);
				p += n + (p[n] == '\n');
			}
			strlist_release(&lines);
		}
	}
}

/*
 * A sweep request's parts, every one done, as one sweep (report_sweep_load_parts) written to
 * the files named (NULL: not). EXIT_OK, or EXIT_UNJUDGED with the message printed.
 */
static int queue_merge_sweep(const char *cmd, struct store *s, const struct queue_status *st,
                             const char *md, const char *json, const char *html)
{
	const char *paths[3] = {md, json, html};
	struct report_sweep r;
	struct err e = ERR_INIT;
	int64_t *ids = xcalloc(st->njobs + 1, sizeof *ids);
	int rc = EXIT_UNJUDGED;

	if (strcmp(st->jobs[0].verb, "sweep") != 0) {
		rc = cli_error(cmd,
		               "--md, --json and --html merge a sweep's parts; request %lld is "
		               "a %s (each part's session has its own report: gcratchet report "
		               "--session N)",
		               (long long)st->jobs[0].request_id, st->jobs[0].verb);
		goto out;
	}
	for (size_t i = 0; i < st->njobs; i++) {
		const struct queue_job_row *j = &st->jobs[i];
		char *end = NULL;
		if (strcmp(j->state, "done") != 0 || !j->sessions ||
		    (ids[i] = strtoll(j->sessions, &end, 10)) <= 0 || *end) {
			rc = cli_error(cmd,
			               "job %lld (%s) is %s%s: a sweep merges once every part is "
			               "done with its one session",
			               (long long)j->id, j->label, j->state,
			               strcmp(j->state, "done") == 0 ? " without one session" : "");
			goto out;
		}
	}
	if (report_sweep_load_parts(s, ids, st->njobs, &r, &e) != 0) {
		rc = cli_error(cmd, "%s: %s", store_where(s), e.msg);
		goto out;
	}
	rc = EXIT_OK;
	for (int k = 0; k < 3 && rc == EXIT_OK; k++) {
		char *text;
		if (!paths[k])
			continue;
		text = k == 0   ? report_sweep_md(&r)
		       : k == 1 ? report_sweep_json(&r)
		                : report_sweep_html(&r);
		if (write_file_atomic(paths[k], text, strlen(text), &e) != 0)
			rc = cli_error(cmd, "%s", e.msg);
		else if (!write_file_is_stdout(paths[k]))
			fprintf(stderr,
			        "gcratchet %s: the %zu parts' sweep (%zu probes) written to %s\n",
			        cmd, st->njobs, r.t.nprobes, paths[k]);
		free(text);
	}
	report_sweep_release(&r);
out:
	free(ids);
	return rc;
}

/* A bisect job's answer (queue_complete's JSON), as the bisect itself says it. */
static void queue_print_answer(const struct queue_job_row *j)
{
	cJSON *o = cJSON_Parse(j->answer);
	const cJSON *status = cJSON_GetObjectItemCaseSensitive(o, "status"),
	            *first = cJSON_GetObjectItemCaseSensitive(o, "first_bad"),
	            *subject = cJSON_GetObjectItemCaseSensitive(o, "subject"),
	            *detail = cJSON_GetObjectItemCaseSensitive(o, "detail"),
	            *id = cJSON_GetObjectItemCaseSensitive(o, "bisect"),
	            *steps = cJSON_GetObjectItemCaseSensitive(o, "steps");

	if (!cJSON_IsString(status)) {
		printf("job %lld: its answer is not the queue's JSON\n", (long long)j->id);
		cJSON_Delete(o);
		return;
	}
	printf("job %lld: bisect %lld in the fleet, %s after %lld steps", (long long)j->id,
	       cJSON_IsNumber(id) ? (long long)id->valuedouble : 0LL, cli_safe(status->valuestring),
	       cJSON_IsNumber(steps) ? (long long)steps->valuedouble : 0LL);
	if (cJSON_IsString(first))
		printf(": %s is the first bad commit%s%s", cli_safe(first->valuestring),
		       cJSON_IsString(subject) ? " " : "",
		       cJSON_IsString(subject) ? cli_safe(subject->valuestring) : "");
	if (cJSON_IsString(detail))
		printf(": %s", cli_safe(detail->valuestring));
	printf("\n");
	cJSON_Delete(o);
}

/* The bisect request's job, its worker and answer as one JSON document, to `path`. */
static int queue_bisect_json(const char *cmd, const struct queue_status *st, const char *path)
{
	const struct queue_job_row *j = &st->jobs[0];
	struct err e = ERR_INIT;
	cJSON *o = cJSON_CreateObject(), *answer = j->answer ? cJSON_Parse(j->answer) : NULL;
	char *text, *out;
	int rc = EXIT_OK;

	cJSON_AddStringToObject(o, "format", "gcratchet-queue-bisect");
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddNumberToObject(o, "request", (double)j->request_id);
	cJSON_AddNumberToObject(o, "job", (double)j->id);
	cJSON_AddStringToObject(o, "state", j->state);
	cJSON_AddNumberToObject(o, "attempt", (double)j->attempt);
	if (j->worker)
		cJSON_AddStringToObject(o, "worker", j->worker);
	else
		cJSON_AddNullToObject(o, "worker");
	if (j->host)
		cJSON_AddStringToObject(o, "host", j->host);
	else
		cJSON_AddNullToObject(o, "host");
	if (j->exit_status >= 0)
		cJSON_AddNumberToObject(o, "exit", (double)j->exit_status);
	else
		cJSON_AddNullToObject(o, "exit");
	if (answer)
		cJSON_AddItemToObject(o, "answer", answer);
	else
		cJSON_AddNullToObject(o, "answer");
	text = cJSON_Print(o);
	cJSON_Delete(o);
	out = xasprintf("%s\n", text);
	cJSON_free(text);
	if (write_file_atomic(path, out, strlen(out), &e) != 0)
		rc = cli_error(cmd, "%s", e.msg);
	free(out);
	return rc;
}

/* queue status', result's and cancel's options, as their rows land them. */
struct queue_look_opts {
	const char *fleet, *md, *json, *html;
	int all, request;
};

/* result: one request's parts, its bisect's answer, and the files asked for. */
static int queue_show_result(const char *cmd, struct store *s, const struct queue_status *st,
                             int64_t request, const struct queue_look_opts *o)
{
	const char *md = o->md, *json = o->json, *html = o->html;
	size_t done = 0;
	int rc = EXIT_UNJUDGED;

	if (st->njobs == 0) {
		rc = cli_error(cmd, "%s: no request %lld", store_where(s), (long long)request);
		return rc;
	}
	printf("request %lld: %s by %s, %zu part%s\n", (long long)request,
	       cli_safe(st->jobs[0].verb), cli_safe(st->jobs[0].submitter), st->njobs,
	       st->njobs == 1 ? "" : "s");
	printf("%-6s %-22s %-9s %-12s %-20s %-5s %s\n", "JOB", "PART", "STATE", "WORKER", "HOST",
	       "EXIT", "SESSIONS");
	for (size_t i = 0; i < st->njobs; i++) {
		const struct queue_job_row *j = &st->jobs[i];
		char exitbuf[16];
		snprintf(exitbuf, sizeof exitbuf, "%lld", (long long)j->exit_status);
		printf("%-6lld %-22s %-9s %-12s %-20s %-5s %s\n", (long long)j->id,
		       cli_safe(j->label), cli_safe(j->state),
		       j->worker ? cli_safe(j->worker) : "-", j->host ? cli_safe(j->host) : "-",
		       j->exit_status >= 0 ? exitbuf : "-",
		       j->sessions ? cli_safe(j->sessions) : "-");
		done += strcmp(j->state, "done") == 0;
	}
	printf("%zu of %zu parts done; the sessions are in %s\n", done, st->njobs,
	       cli_safe(store_where(s)));
	for (size_t i = 0; i < st->njobs; i++)
		if (st->jobs[i].answer)
			queue_print_answer(&st->jobs[i]);
	if (fflush(stdout) != 0) {
		rc = cli_error(cmd, "writing to stdout failed");
		return rc;
	}
	if (strcmp(st->jobs[0].verb, "bisect") == 0 && (md || html)) {
		rc = cli_error(cmd, "a bisect's answer is written with --json FILE");
	} else if (strcmp(st->jobs[0].verb, "bisect") == 0 && json) {
		rc = queue_bisect_json(cmd, st, json);
		if (rc == EXIT_OK && done != st->njobs)
			rc = EXIT_UNJUDGED;
	} else if (md || json || html)
		rc = queue_merge_sweep(cmd, s, st, md, json, html);
	else
		rc = done == st->njobs ? EXIT_OK : EXIT_UNJUDGED;
	return rc;
}

/* status and result: the jobs by state and the workers, or one request's parts. */
static int queue_look(int argc, char **argv, int result)
{
	const struct cli_verb *v = queue_sub(result ? "result" : "status");
	const char *cmd = cmd_queue.name, *url;
	struct queue_look_opts o = {0};
	struct queue_status st = {0};
	struct strlist pos = {0};
	struct store *s = NULL;
	struct err e = ERR_INIT;
	int64_t request = 0;
	int rc = EXIT_UNJUDGED, r = cli_parse(v, argc, argv, &o, &pos);
	const char *md = o.md, *json = o.json, *html = o.html;
	int all = o.all;

	if (r != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	if (!result && (md || json || html)) {
		rc = cli_error(cmd, "--md, --json and --html are queue result's");
		goto out;
	}
	if (result) {
		if (pos.n != 1 ||
		    cli_parse_session(cmd, "REQUEST", pos.items[0], NULL, &request) != 0) {
			if (pos.n != 1)
				cli_error(cmd, "queue result REQUEST: one request id");
			goto out;
		}
	} else if (pos.n) {
		rc = cli_error(cmd, "queue status: unexpected argument \"%s\"", pos.items[0]);
		goto out;
	}
	if (!(url = cli_fleet_url(cmd, o.fleet)))
		goto out;
	if (queue_open(url, &s, &e) != 0 || queue_status_read(s, all, request, &st, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (result) {
		rc = queue_show_result(cmd, s, &st, request, &o);
		goto out;
	}
	printf("jobs:");
	for (int k = 0; k < 5; k++)
		printf("%s %lld %s", k ? "," : "", (long long)st.by_state[k], queue_states[k]);
	printf("\n\nworkers:\n%-16s %-20s %-8s %-6s %-5s %s\n", "NAME", "HOST", "STATE", "JOB",
	       "QUIET", "LAST HEARTBEAT");
	for (size_t i = 0; i < st.nworkers; i++) {
		const struct queue_worker_row *w = &st.workers[i];
		char job[32];
		snprintf(job, sizeof job, "%lld", (long long)w->job_id);
		printf("%-16s %-20s %-8s %-6s %-5s %llds ago\n", cli_safe(w->name),
		       cli_safe(w->hostname), cli_safe(w->state), w->job_id ? job : "-",
		       w->quiet ? "yes" : "no", (long long)w->seen_s);
	}
	printf("\n%s:\n", all ? "every job" : "jobs queued or running");
	queue_print_jobs(&st);
	rc = fflush(stdout) != 0 ? cli_error(cmd, "writing to stdout failed") : EXIT_OK;
out:
	queue_status_release(&st);
	strlist_release(&pos);
	store_close(s);
	return rc;
}

static int queue_status_cmd(int argc, char **argv)
{
	return queue_look(argc, argv, 0);
}

static int queue_result_cmd(int argc, char **argv)
{
	return queue_look(argc, argv, 1);
}

static int queue_cancel_cmd(int argc, char **argv)
{
	const char *cmd = cmd_queue.name, *url;
	struct queue_look_opts o = {0};
	struct strlist pos = {0};
	struct store *s = NULL;
	struct err e = ERR_INIT;
	int64_t id = 0;
	size_t n = 0;
	int rc = EXIT_UNJUDGED, r = cli_parse(queue_sub("cancel"), argc, argv, &o, &pos),
	    by_request = o.request;

	if (r != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	if (pos.n != 1) {
		rc = cli_error(cmd, "queue cancel [--request] ID: one job id (with --request, a "
		                    "request's)");
		goto out;
	}
	if (cli_parse_session(cmd, by_request ? "REQUEST" : "JOB", pos.items[0], NULL, &id) != 0)
		goto out;
	if (!(url = cli_fleet_url(cmd, o.fleet)))
		goto out;
	if (queue_open(url, &s, &e) != 0 || queue_cancel(s, id, by_request, &n, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (n == 0) {
		rc = cli_error(cmd, "%s %lld: nothing queued or running to cancel",
		               by_request ? "request" : "job", (long long)id);
		goto out;
	}
	printf("%s %lld: %zu job%s canceled\n", by_request ? "request" : "job", (long long)id, n,
	       n == 1 ? "" : "s");
	rc = fflush(stdout) != 0 ? cli_error(cmd, "writing to stdout failed") : EXIT_OK;
out:
	strlist_release(&pos);
	store_close(s);
	return rc;
}

static int queue_main(int argc, char **argv)
{
	const struct cli_verb *sub;

	if (argc < 2)
		return cli_usage(&cmd_queue, 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cli_usage(&cmd_queue, 0);
	if (!(sub = queue_sub(argv[1])))
		return cli_error(cmd_queue.name,
		                 "unknown subcommand \"%s\" (submit, status, result, cancel)",
		                 argv[1]);
	return sub->run(argc - 1, argv + 1);
}

#define QS(field) offsetof(struct queue_submit_opts, field)
static const struct cli_option queue_submit_options[] = {
    {"--fleet", "URL", CLI_STRING, QS(fleet),
     .help = "the fleet's PostgreSQL database (default $GCR_FLEET_URL)"},
    {"--priority", "N", CLI_CALL, QS(priority), .call = queue_priority_row,
     .help = "from -1000000 to 1000000; higher runs first (default 0)"},
    {"--cpu", "TEXT", CLI_STRING, QS(cpu), .help = "only a worker whose CPU model contains TEXT"},
    {"--kernel", "TEXT", CLI_STRING, QS(kernel),
     .help = "only a worker whose kernel release starts with TEXT"},
    {"--quiet", NULL, CLI_FLAG, QS(quiet), .help = "only a worker started with --quiet"},
    {"--max-attempts", "N", CLI_CALL, QS(max_attempts), 1, 100, .call = queue_attempts_row,
     .help = "claims of a job before it fails (default 3, at most 100)"},
    {"--no-split", NULL, CLI_FLAG, QS(no_split), .help = "one job for the whole request"},
    {0},
};
#undef QS

#define QL(field) offsetof(struct queue_look_opts, field)
#define QUEUE_FLEET_ROW                                                                \
	{                                                                              \
		"--fleet", "URL", CLI_STRING, QL(fleet),                               \
		    .help = "the fleet's PostgreSQL database (default $GCR_FLEET_URL)" \
	}
static const struct cli_option queue_status_options[] = {
    QUEUE_FLEET_ROW,
    {"--all", NULL, CLI_FLAG, QL(all), .help = "every job, not only those queued or running"},
    /* result's, refused with a word on where they belong */
    {"--md", "FILE", CLI_STRING, QL(md), .flags = CLI_HIDDEN},
    {"--json", "FILE", CLI_STRING, QL(json), .flags = CLI_HIDDEN},
    {"--html", "FILE", CLI_STRING, QL(html), .flags = CLI_HIDDEN},
    {0},
};
static const struct cli_option queue_result_options[] = {
    QUEUE_FLEET_ROW,
    {"--md", "FILE", CLI_STRING, QL(md),
     .help = "a sweep split by probe: its parts merged into one sweep's Markdown report"},
    {"--json", "FILE", CLI_STRING, QL(json),
     .help = "the same as JSON; a bisect's job, worker and answer"},
    {"--html", "FILE", CLI_STRING, QL(html), .help = "the same as an HTML page"},
    {"--all", NULL, CLI_FLAG, QL(all), .flags = CLI_HIDDEN},
    {0},
};
static const struct cli_option queue_cancel_options[] = {
    QUEUE_FLEET_ROW,
    {"--request", NULL, CLI_FLAG, QL(request), .help = "ID is a request's: every job of it"},
    {0},
};
#undef QUEUE_FLEET_ROW
#undef QL

static const struct cli_verb queue_subs[] = {
    {.name = "queue submit",
     .summary = "queue `gcratchet VERB ARGS...` as a request",
     .args = "VERB ARGS...",
     .description =
         "Queues `gcratchet VERB ARGS...` (VERB is measure, ab, ratchet, sweep, minheap or\n"
         "bisect; ab's BASE and FIX come first) as a request, split into jobs (gcratchet queue\n"
         "--help says how). The options of submit come before VERB: everything from VERB on is\n"
         "the verb's.\n",
     .options = queue_submit_options,
     .run = queue_submit_cmd,
     .parent = &cmd_queue},
    {.name = "queue status",
     .summary = "jobs by state, the workers, and the jobs queued or running",
     .description = "Jobs by state, the workers with their last heartbeat and current job, and\n"
                    "every job queued or running (--all: every job) with how long it waited.\n",
     .options = queue_status_options,
     .run = queue_status_cmd,
     .parent = &cmd_queue},
    {.name = "queue result",
     .summary = "each part of a request, who ran it and what it stored",
     .args = "REQUEST",
     .description =
         "Each part of a request, the worker and host that ran it and the fleet's sessions it\n"
         "stored, and a bisect's answer; for a sweep split by probe, --md, --json and --html\n"
         "write its parts merged into one sweep's report (what gcratchet report writes for a\n"
         "sweep's session); for a bisect, --json writes its answer.\n",
     .options = queue_result_options,
     .run = queue_result_cmd,
     .parent = &cmd_queue},
    {.name = "queue cancel",
     .summary = "cancel a queued or running job, or every such job of a request",
     .args = "ID",
     .description = "Cancels a queued or running job (--request: every such job of a request);\n"
                    "a running one's worker stops it at its next heartbeat and stores nothing.\n",
     .options = queue_cancel_options,
     .run = queue_cancel_cmd,
     .parent = &cmd_queue},
    {0},
};

const struct cli_verb cmd_queue = {
    .name = "queue",
    .summary = "queue measurements for the fleet's workers; see and cancel them",
    .description =
        "A measurement queue in the fleet's PostgreSQL database (--fleet, or GCR_FLEET_URL);\n"
        "gcratchet worker on each host runs it. submit queues `gcratchet VERB ARGS...` (VERB is\n"
        "measure, ab, ratchet, sweep, minheap or bisect; ab's BASE and FIX come first) as a\n"
        "request: each build it names is recorded with its manifest hash, and a worker whose copy\n"
        "differs refuses the job. A measure, ratchet or minheap of several builds is split into\n"
        "one job per build, a sweep of several --probes into one job per probe (the builds of a\n"
        "job run interleaved on one host; an ab is one job); --no-split keeps it whole. The job\n"
        "runs in this working directory, which must be the same path on the workers. --cpu: only\n"
        "a worker whose CPU model contains TEXT; --kernel: whose kernel release starts with TEXT;\n"
        "--quiet: only a worker started with --quiet. Higher --priority runs first (default 0); a\n"
        "job whose attempts (--max-attempts, default 3) all fail or lose their lease fails with\n"
        "the reasons. The verb's arguments may name no database: the sessions (and minheap's\n"
        "answers) go to the fleet's. A bisect is one job: --good and --bad are resolved to full\n"
        "hashes here, the worker builds each commit (the repository must be at the same path on\n"
        "the workers), and the steps' sessions, the bisect's record and its answer go to the\n"
        "fleet's database; result shows the answer, and --json FILE writes it. --resume and\n"
        "--json are refused.\n"
        "\n"
        "status: jobs by state, the workers with their last heartbeat and current job, and every\n"
        "job queued or running (--all: every job) with how long it waited. result: each part of\n"
        "a request, the worker and host that ran it and the fleet's sessions it stored; for a\n"
        "sweep split by probe, --md, --json and --html write its parts merged into one sweep's\n"
        "report (what gcratchet report writes for a sweep's session). cancel:\n"
        "a queued or running job (--request: every such job of a request); a running one's\n"
        "worker stops it at its next heartbeat and stores nothing.\n",
    .exit_status = "0 queued, shown or canceled (result: every part done); 2 bad arguments, the "
                   "database could not be reached, nothing to cancel, or (result) a part not "
                   "done.",
    .subs = queue_subs,
    .run = queue_main,
};
