/*
 * gcratchet queue — submit measurements to the fleet's queue, see it, cancel them
 * (docs/queue.md). The workers (cmd_worker.c) run what is queued.
 */
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buildinfo.h"
#include "cli.h"
#include "cmds.h"
#include "queue.h"
#include "report_sweep.h"

/* The verbs a job may run: each stores sessions (or minheap's answers) the worker copies. */
static const char *const queue_verbs[] = {"measure", "ab",     "ratchet", "sweep",
                                          "minheap", "bisect", NULL};

/* "--name value" or "--name=value" at args[*i]: the value (args advanced past it), or NULL. */
static const char *queue_opt_value(const struct strlist *args, size_t *i, const char *name)
{
	const char *a = args->items[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] == '\0' && *i + 1 < args->n) {
		(*i)++;
		return args->items[*i];
	}
	return NULL;
}

/*
 * The build `value` names (kind "--collector": a shipped collector; "--build": a folder), as
 * the submitter's gcratchet finds it, with its manifest hash. -1 after printing why.
 */
static int queue_build_resolve(const char *cmd, const char *kind, const char *value,
                               struct queue_build *out)
{
	struct buildinfo bi = {0};
	struct err e = ERR_INIT;
	char *root = buildinfo_root(), *dir;
	int rc = -1;

	dir = strcmp(kind, "--collector") == 0 ? xasprintf("%s/collectors/%s", root, value)
	                                       : xstrdup(value);
	if (buildinfo_load(dir, &bi, &e) != 0) {
		cli_error(cmd, "%s %s: %s", kind, value, e.msg);
		goto out;
	}
	out->option = xstrdup(kind);
	out->value = xstrdup(value);
	out->digest = xstrdup(bi.manifest_hash);
	rc = 0;
out:
	buildinfo_release(&bi);
	free(dir);
	free(root);
	return rc;
}

/* ab's BASE or FIX: a folder, or a shipped collector's name. */
static int queue_ab_arm(const char *cmd, const char *arg, struct queue_build *out)
{
	struct stat sb;
	struct strlist names = {0};
	char *root = buildinfo_root();
	int rc;

	buildinfo_list(root, &names);
	if (stat(arg, &sb) == 0 || strchr(arg, '/'))
		rc = queue_build_resolve(cmd, "--build", arg, out);
	else if (strlist_contains(&names, arg))
		rc = queue_build_resolve(cmd, "--collector", arg, out);
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
static int queue_bisect_args(const char *cmd, const struct strlist *args, struct strlist *out)
{
	const char *repo = NULL, *repo_opt = NULL;
	char *scripts = NULL, *root = buildinfo_root();
	int rc = -1;

	for (size_t i = 0; i < args->n; i++) {
		const char *v, *a = args->items[i];
		if (strcmp(a, "--resume") == 0 || strncmp(a, "--json", 6) == 0) {
			cli_error(
			    cmd,
			    "queue submit bisect: %s is refused: the worker's bisect is stored "
			    "with the job (its answer: gcratchet queue result REQUEST [--json "
			    "FILE]; its record and steps: the fleet's bisects)",
			    strncmp(a, "--json", 6) == 0 ? "--json" : "--resume");
			goto out;
		}
		if ((v = queue_opt_value(args, &i, "--collector-dir")) != NULL) {
			repo = v;
		} else if (queue_opt_value(args, &i, "--collector") != NULL) {
			scripts = cli_script_path(root, "build-rev.sh");
			if (strrchr(scripts, '/'))
				*strrchr(scripts, '/') = '\0';
			repo = scripts;
		} else if ((v = queue_opt_value(args, &i, "--repo")) != NULL) {
			repo_opt = v;
		}
	}
	if (!repo)
		repo = repo_opt ? repo_opt : ".";
	for (size_t i = 0; i < args->n; i++) {
		static const char *const ends[] = {"--good", "--bad", "--old", "--new"};
		const char *v = NULL, *name = NULL;
		struct sbuf hash;

		for (size_t k = 0; !v && k < sizeof ends / sizeof ends[0]; k++)
			if ((v = queue_opt_value(args, &i, ends[k])) != NULL)
				name = ends[k];
		if (!v) {
			strlist_push(out, args->items[i]);
			continue;
		}
		sbuf_init(&hash);
		if (bisect_commit_hash(repo, v, &hash) != 0 || hash.len != 40) {
			cli_error(
			    cmd,
			    "queue submit bisect: %s %s is not a commit of the repository in %s",
			    name, v, repo);
			sbuf_release(&hash);
			goto out;
		}
		strlist_push(out, name);
		strlist_push(out, hash.data);
		sbuf_release(&hash);
	}
	rc = 0;
out:
	free(scripts);
	free(root);
	return rc;
}

/* The parts a request is split into (docs/queue.md, "Splitting"); -1 after printing why. */
static int queue_split(const char *cmd, const char *verb, const struct strlist *args, int split,
                       struct queue_part **parts, size_t *nparts, const char **how)
{
	struct queue_build *builds = NULL;
	size_t nb = 0, *bpos = NULL, probes_at = (size_t)-1;
	const char *probes = NULL;
	int rc = -1;

	*parts = NULL;
	*nparts = 0;
	*how = "none";
	builds = xcalloc(args->n + 2, sizeof *builds);
	bpos = xcalloc(args->n + 2, sizeof *bpos);
	if (strcmp(verb, "bisect") == 0) {
		struct queue_part *p;
		*parts = xcalloc(1, sizeof **parts);
		p = &(*parts)[(*nparts)++];
		p->label = xstrdup("whole");
		rc = queue_bisect_args(cmd, args, &p->args);
		goto out;
	}
	if (strcmp(verb, "ab") == 0) {
		if (args->n < 2 || strncmp(args->items[0], "--", 2) == 0 ||
		    strncmp(args->items[1], "--", 2) == 0) {
			cli_error(cmd,
			          "queue submit ab BASE FIX [options]: BASE and FIX come first");
			goto out;
		}
		for (size_t i = 0; i < 2; i++)
			if (queue_ab_arm(cmd, args->items[i], &builds[nb++]) != 0)
				goto out;
	}
	for (size_t i = 0; i < args->n; i++) {
		size_t at = i;
		const char *v;
		if ((v = queue_opt_value(args, &i, "--collector")) != NULL ||
		    (at = i, v = queue_opt_value(args, &i, "--build")) != NULL) {
			const char *kind = strncmp(args->items[at], "--collector", 11) == 0
			                       ? "--collector"
			                       : "--build";
			bpos[nb] = at;
			if (queue_build_resolve(cmd, kind, v, &builds[nb++]) != 0)
				goto out;
		} else if ((v = queue_opt_value(args, &i, "--probes")) != NULL) {
			probes = v;
			probes_at = at;
		}
	}
	/* A verb that names no build runs the default collector: the worker checks that too. */
	if (nb == 0 && strcmp(verb, "ab") != 0 &&
	    queue_build_resolve(cmd, "--collector", CLI_DEFAULT_COLLECTOR, &builds[nb++]) != 0)
		goto out;
	if (split && strcmp(verb, "sweep") == 0 && probes && strchr(probes, ',')) {
		struct strlist list = {0};
		strlist_split(&list, probes);
		*how = "probes";
		*parts = xcalloc(list.n, sizeof **parts);
		for (size_t k = 0; k < list.n; k++) {
			struct queue_part *p = &(*parts)[(*nparts)++];
			p->label = xasprintf("probe %s", list.items[k]);
			for (size_t i = 0; i < args->n; i++) {
				if (i == probes_at) {
					strlist_push(&p->args, "--probes");
					strlist_push(&p->args, list.items[k]);
					if (strchr(args->items[i], '=') == NULL)
						i++;
					continue;
				}
				strlist_push(&p->args, args->items[i]);
			}
			p->builds = xcalloc(nb + 1, sizeof *p->builds);
			for (size_t b = 0; b < nb; b++) {
				p->builds[b].option = xstrdup(builds[b].option);
				p->builds[b].value = xstrdup(builds[b].value);
				p->builds[b].digest = xstrdup(builds[b].digest);
			}
			p->nbuilds = nb;
		}
		strlist_release(&list);
	} else if (split && strcmp(verb, "ab") != 0 && strcmp(verb, "sweep") != 0 && nb >= 2) {
		/* One job per build: each measures on whichever worker takes it. */
		*how = "builds";
		*parts = xcalloc(nb, sizeof **parts);
		for (size_t k = 0; k < nb; k++) {
			struct queue_part *p = &(*parts)[(*nparts)++];
			p->label = xasprintf(
			    "%s %s",
			    strcmp(builds[k].option, "--collector") == 0 ? "collector" : "build",
			    builds[k].value);
			for (size_t i = 0; i < args->n; i++) {
				int other = 0;
				for (size_t b = 0; b < nb; b++)
					other |= b != k && bpos[b] == i;
				if (other) {
					if (strchr(args->items[i], '=') == NULL)
						i++;
					continue;
				}
				strlist_push(&p->args, args->items[i]);
			}
			p->builds = xcalloc(2, sizeof *p->builds);
			p->builds[0].option = xstrdup(builds[k].option);
			p->builds[0].value = xstrdup(builds[k].value);
			p->builds[0].digest = xstrdup(builds[k].digest);
			p->nbuilds = 1;
		}
	} else {
		struct queue_part *p;
		*parts = xcalloc(1, sizeof **parts);
		p = &(*parts)[(*nparts)++];
		p->label = xstrdup("whole");
		for (size_t i = 0; i < args->n; i++)
			strlist_push(&p->args, args->items[i]);
		p->builds = builds;
		p->nbuilds = nb;
		builds = NULL;
		nb = 0;
	}
	rc = 0;
out:
	if (builds) {
		for (size_t i = 0; i < nb; i++) {
			free(builds[i].option);
			free(builds[i].value);
			free(builds[i].digest);
		}
		free(builds);
	}
	free(bpos);
	return rc;
}

static char *queue_submitter(void)
{
	char host[256] = "unknown";
	const char *user = getenv("USER");
	struct passwd *pw = getpwuid(getuid());

	if (pw && pw->pw_name)
		user = pw->pw_name;
	if (gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "unknown");
	return xasprintf("%s@%s", user && *user ? user : "unknown", host);
}

static int queue_submit_cmd(const char *cmd, int argc, char **argv)
{
	static const struct cli_opt opts[] = {
	    {"--fleet", 1},        {"--priority", 1}, {"--cpu", 1},      {"--kernel", 1},
	    {"--max-attempts", 1}, {"--quiet", 0},    {"--no-split", 0}, {NULL, 0},
	};
	struct queue_request req = {.priority = 0, .max_attempts = QUEUE_MAX_ATTEMPTS};
	struct queue_part *parts = NULL;
	struct strlist args = {0};
	struct cli_iter it;
	struct store *s = NULL;
	struct err e = ERR_INIT;
	const char *opt, *val, *fleet_opt = NULL, *url;
	char cwd[PATH_MAX], *submitter = NULL;
	size_t nparts = 0;
	int64_t request_id = 0, *job_ids = NULL;
	int rc = EXIT_UNJUDGED, r, verb_at = argc, split = 1;

	/* Options of submit come before VERB; everything from VERB on is the verb's. */
	for (int i = 1; i < argc; i++) {
		const struct cli_opt *o = NULL;
		if (strncmp(argv[i], "--", 2) != 0) {
			verb_at = i;
			break;
		}
		for (const struct cli_opt *k = opts; k->name; k++)
			if (strcmp(argv[i], k->name) == 0)
				o = k;
		if (o && o->has_arg)
			i++;
	}
	cli_iter_init(&it, cmd, verb_at, argv, opts);
	while ((r = cli_next(&it, &opt, &val, NULL)) == 1) {
		uint64_t n;
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_verb("queue"), 0);
			goto out;
		} else if (strcmp(opt, "--fleet") == 0) {
			fleet_opt = val;
		} else if (strcmp(opt, "--priority") == 0) {
			char *end;
			long long p = strtoll(val, &end, 10);
			if (!*val || *end || p < -1000000 || p > 1000000) {
				rc =
				    cli_error(cmd,
				              "--priority %s: expected an integer from -1000000 to "
				              "1000000 (higher runs first)",
				              val);
				goto out;
			}
			req.priority = p;
		} else if (strcmp(opt, "--max-attempts") == 0) {
			if (cli_parse_count(cmd, opt, val, 0, &n) != 0)
				goto out;
			if (n > 100) {
				rc = cli_error(cmd, "--max-attempts %s: at most 100", val);
				goto out;
			}
			req.max_attempts = (int64_t)n;
		} else if (strcmp(opt, "--cpu") == 0) {
			req.cpu = val;
		} else if (strcmp(opt, "--kernel") == 0) {
			req.kernel = val;
		} else if (strcmp(opt, "--quiet") == 0) {
			req.quiet = 1;
		} else if (strcmp(opt, "--no-split") == 0) {
			split = 0;
		}
	}
	if (r < 0)
		goto out;
	if (verb_at >= argc) {
		rc = cli_error(cmd, "queue submit needs a VERB to run (measure, ab, ratchet, "
		                    "sweep, minheap, bisect)");
		goto out;
	}
	req.verb = argv[verb_at];
	{
		int known = 0;
		for (const char *const *v = queue_verbs; *v; v++)
			known |= strcmp(*v, req.verb) == 0;
		if (!known) {
			rc = cli_error(
			    cmd,
			    "queue submit %s: not a verb the queue runs (measure, ab, ratchet, "
			    "sweep, minheap, bisect)",
			    req.verb);
			goto out;
		}
	}
	for (int i = verb_at + 1; i < argc; i++) {
		size_t n = strcspn(argv[i], "=");
		/*
		 * Only what names a server is refused: a knob's NAME=VALUE, bisect's --make
		 * VAR=VALUE or a --build-cmd "CC=clang sh build.sh" looks like key=value too.
		 */
		int server = store_names_server(argv[i]);
		if (store_db_option(argv[i], n) || server) {
			rc = cli_error(
			    cmd,
			    "queue submit: the verb's argument %d is %s: a job names no "
			    "database (the worker measures into a scratch file and stores the "
			    "session in the fleet's)",
			    i - verb_at, server ? "a connection string" : "a database option");
			goto out;
		}
		strlist_push(&args, argv[i]);
	}
	if (!(url = cli_fleet_url(cmd, fleet_opt)))
		goto out;
	if (!getcwd(cwd, sizeof cwd)) {
		rc = cli_error(cmd, "cannot read the working directory");
		goto out;
	}
	if (queue_split(cmd, req.verb, &args, split, &parts, &nparts, &req.split) != 0)
		goto out;
	submitter = queue_submitter();
	req.cwd = cwd;
	req.submitter = submitter;
	req.args = args;
	req.parts = parts;
	req.nparts = nparts;
	job_ids = xcalloc(nparts + 1, sizeof *job_ids);
	if (queue_open(url, &s, &e) != 0 || queue_submit(s, &req, &request_id, job_ids, &e) != 0) {
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

static int queue_status_cmd(const char *cmd, int argc, char **argv, int result)
{
	static const struct cli_opt opts[] = {{"--fleet", 1}, {"--all", 0},  {"--md", 1},
	                                      {"--json", 1},  {"--html", 1}, {NULL, 0}};
	const char *md = NULL, *json = NULL, *html = NULL;
	struct queue_status st = {0};
	struct strlist pos = {0};
	struct cli_iter it;
	struct store *s = NULL;
	struct err e = ERR_INIT;
	const char *opt, *val, *fleet_opt = NULL, *url;
	int64_t request = 0;
	int rc = EXIT_UNJUDGED, r, all = 0;

	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, &pos)) == 1) {
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_verb("queue"), 0);
			goto out;
		} else if (strcmp(opt, "--fleet") == 0) {
			fleet_opt = val;
		} else if (strcmp(opt, "--all") == 0) {
			all = 1;
		} else if (strcmp(opt, "--md") == 0) {
			md = val;
		} else if (strcmp(opt, "--json") == 0) {
			json = val;
		} else if (strcmp(opt, "--html") == 0) {
			html = val;
		}
	}
	if (r < 0)
		goto out;
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
	if (!(url = cli_fleet_url(cmd, fleet_opt)))
		goto out;
	if (queue_open(url, &s, &e) != 0 || queue_status_read(s, all, request, &st, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (result) {
		size_t done = 0;
		if (st.njobs == 0) {
			rc = cli_error(cmd, "%s: no request %lld", store_where(s),
			               (long long)request);
			goto out;
		}
		printf("request %lld: %s by %s, %zu part%s\n", (long long)request,
		       cli_safe(st.jobs[0].verb), cli_safe(st.jobs[0].submitter), st.njobs,
		       st.njobs == 1 ? "" : "s");
		printf("%-6s %-22s %-9s %-12s %-20s %-5s %s\n", "JOB", "PART", "STATE", "WORKER",
		       "HOST", "EXIT", "SESSIONS");
		for (size_t i = 0; i < st.njobs; i++) {
			const struct queue_job_row *j = &st.jobs[i];
			char exitbuf[16];
			snprintf(exitbuf, sizeof exitbuf, "%lld", (long long)j->exit_status);
			printf("%-6lld %-22s %-9s %-12s %-20s %-5s %s\n", (long long)j->id,
			       cli_safe(j->label), cli_safe(j->state),
			       j->worker ? cli_safe(j->worker) : "-",
			       j->host ? cli_safe(j->host) : "-",
			       j->exit_status >= 0 ? exitbuf : "-",
			       j->sessions ? cli_safe(j->sessions) : "-");
			done += strcmp(j->state, "done") == 0;
		}
		printf("%zu of %zu parts done; the sessions are in %s\n", done, st.njobs,
		       cli_safe(store_where(s)));
		for (size_t i = 0; i < st.njobs; i++)
			if (st.jobs[i].answer)
				queue_print_answer(&st.jobs[i]);
		if (fflush(stdout) != 0) {
			rc = cli_error(cmd, "writing to stdout failed");
			goto out;
		}
		if (strcmp(st.jobs[0].verb, "bisect") == 0 && (md || html)) {
			rc = cli_error(cmd, "a bisect's answer is written with --json FILE");
		} else if (strcmp(st.jobs[0].verb, "bisect") == 0 && json) {
			rc = queue_bisect_json(cmd, &st, json);
			if (rc == EXIT_OK && done != st.njobs)
				rc = EXIT_UNJUDGED;
		} else if (md || json || html)
			rc = queue_merge_sweep(cmd, s, &st, md, json, html);
		else
			rc = done == st.njobs ? EXIT_OK : EXIT_UNJUDGED;
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

static int queue_cancel_cmd(const char *cmd, int argc, char **argv)
{
	static const struct cli_opt opts[] = {{"--fleet", 1}, {"--request", 0}, {NULL, 0}};
	struct strlist pos = {0};
	struct cli_iter it;
	struct store *s = NULL;
	struct err e = ERR_INIT;
	const char *opt, *val, *fleet_opt = NULL, *url;
	int64_t id = 0;
	size_t n = 0;
	int rc = EXIT_UNJUDGED, r, by_request = 0;

	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, &pos)) == 1) {
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_verb("queue"), 0);
			goto out;
		} else if (strcmp(opt, "--fleet") == 0) {
			fleet_opt = val;
		} else if (strcmp(opt, "--request") == 0) {
			by_request = 1;
		}
	}
	if (r < 0)
		goto out;
	if (pos.n != 1) {
		rc = cli_error(cmd, "queue cancel [--request] ID: one job id (with --request, a "
		                    "request's)");
		goto out;
	}
	if (cli_parse_session(cmd, by_request ? "REQUEST" : "JOB", pos.items[0], NULL, &id) != 0)
		goto out;
	if (!(url = cli_fleet_url(cmd, fleet_opt)))
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
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (!sub)
		return cli_usage(cli_find_verb("queue"), 1);
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
		return cli_usage(cli_find_verb("queue"), 0);
	if (strcmp(sub, "submit") == 0)
		return queue_submit_cmd("queue", argc - 1, argv + 1);
	if (strcmp(sub, "status") == 0)
		return queue_status_cmd("queue", argc - 1, argv + 1, 0);
	if (strcmp(sub, "result") == 0)
		return queue_status_cmd("queue", argc - 1, argv + 1, 1);
	if (strcmp(sub, "cancel") == 0)
		return queue_cancel_cmd("queue", argc - 1, argv + 1);
	return cli_error("queue", "unknown subcommand \"%s\" (submit, status, result, cancel)",
	                 sub);
}

const struct cli_verb cmd_queue = {
    .name = "queue",
    .summary = "queue measurements for the fleet's workers; see and cancel them",
    .run = queue_main,
    .usage =
        "usage: gcratchet queue submit [--fleet URL] [--priority N] [--cpu TEXT] [--kernel TEXT]\n"
        "                              [--quiet] [--max-attempts N] [--no-split] VERB ARGS...\n"
        "       gcratchet queue status [--fleet URL] [--all]\n"
        "       gcratchet queue result [--fleet URL] REQUEST [--md FILE] [--json FILE] [--html "
        "FILE]\n"
        "       gcratchet queue cancel [--fleet URL] [--request] ID\n"
        "\n"
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
        "worker stops it at its next heartbeat and stores nothing.\n"
        "\n"
        "Exit status: 0 queued, shown or canceled (result: every part done); 2 bad arguments, the\n"
        "database could not be reached, nothing to cancel, or (result) a part not done.\n",
};
