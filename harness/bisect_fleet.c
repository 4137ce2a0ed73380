/*
 * bisect_fleet.c — a bisect's measurements as jobs of the fleet's queue (bisect_fleet.h).
 */
#include "bisect_fleet.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buildinfo.h"
#include "cli.h"
#include "queue.h"
#include "quiet.h"
#include "session_opts.h"

/* How often the jobs are looked at while they run: a step's verdict waits for it. */
#define BISECT_FLEET_POLL_MS  500
/* How often a lost fleet database is tried again. */
#define BISECT_FLEET_RETRY_MS 2000

struct bisect_fleet {
	char *cmd, *url, *cwd, *submitter;
	const char *size;        /* the engine's (borrowed) */
	struct store *q;         /* the fleet's database, opened for the queue */
	struct store *st;        /* the bisect's store (borrowed) */
	struct strlist run_args; /* the bisect's run options, as given, for every job */
	int *lock_fd, lock_timeout_s;
	volatile sig_atomic_t *stop;
};

/* 1 when row is one of the shared session options (the bisect includes them). */
static int bisect_fleet_session_row(const struct cli_option *row)
{
	for (const struct cli_option *r = session_options; r->name; r++)
		if (r == row)
			return 1;
	return 0;
}

/*
 * The run options a job carries: every session row the bisect was given but those the engine
 * decides itself (the probes, the size: its own) or that name this host's store (--db), and
 * --seed, which a bisect's sessions never take (each draws its own, as bisect_measure does).
 */
static void bisect_fleet_scan_row(void *ctx, const struct cli_option *row, const char *val)
{
	static const char *const own[] = {"--db", "--probes", "--size", "--seed"};
	struct strlist *args = ctx;

	if (!row || !bisect_fleet_session_row(row))
		return;
	for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
		if (strcmp(row->name, own[k]) == 0)
			return;
	strlist_push(args, row->name);
	if (val)
		strlist_push(args, val);
}

int bisect_fleet_open(const struct bisect_fleet_config *cfg, struct bisect_fleet **out)
{
	struct bisect_fleet *f = xcalloc(1, sizeof *f);
	struct err e = ERR_INIT;
	char cwd[PATH_MAX];

	*out = NULL;
	f->cmd = xstrdup(cfg->cmd);
	f->url = xstrdup(cfg->url);
	f->size = cfg->size;
	f->st = cfg->st;
	f->lock_fd = cfg->lock_fd;
	f->lock_timeout_s = cfg->lock_timeout_s;
	f->stop = cfg->stop;
	f->submitter = queue_submitter();
	if (bisect_fleet_run_args(cfg->verb, cfg->argc, cfg->argv, &f->run_args) != 0)
		goto fail;
	/* The workers run each job here: the same path on every host, as for any job. */
	if (!getcwd(cwd, sizeof cwd)) {
		cli_error(cfg->cmd, "cannot read the working directory: %s", strerror(errno));
		goto fail;
	}
	f->cwd = xstrdup(cwd);
	if (queue_open(cfg->url, &f->q, &e) != 0) {
		cli_error(cfg->cmd, "--fleet: %s", e.msg);
		goto fail;
	}
	*out = f;
	return 0;
fail:
	bisect_fleet_close(f);
	return -1;
}

void bisect_fleet_close(struct bisect_fleet *f)
{
	if (!f)
		return;
	store_close(f->q);
	strlist_release(&f->run_args);
	free(f->cmd);
	free(f->url);
	free(f->cwd);
	free(f->submitter);
	free(f);
}

int bisect_fleet_run_args(const struct cli_verb *verb, int argc, char **argv, struct strlist *out)
{
	return cli_scan(verb, argc, argv, bisect_fleet_scan_row, out);
}

void bisect_fleet_job_args(const char *size, const struct strlist *run_args,
                           const struct bisect_measure *m, struct strlist *args)
{
	char n[32];

	for (size_t a = 0; a < m->narms; a++) {
		strlist_push(args, "--build");
		strlist_push(args, m->dirs[a]);
	}
	strlist_push(args, "--probes");
	strlist_push(args, m->probes);
	strlist_push(args, "--meters");
	strlist_push(args, m->meters);
	if (m->events) {
		strlist_push(args, "--events");
		strlist_push(args, m->events);
	}
	strlist_push(args, "--size");
	strlist_push(args, size);
	if (m->valgrind_runs > 0) {
		snprintf(n, sizeof n, "%d", m->valgrind_runs);
		strlist_push(args, "--valgrind-only");
		strlist_push(args, "--valgrind-runs");
		strlist_push(args, n);
	} else {
		snprintf(n, sizeof n, "%d", m->rounds);
		strlist_push(args, "--rounds");
		strlist_push(args, n);
		snprintf(n, sizeof n, "%d", m->warmup);
		strlist_push(args, "--warmup");
		strlist_push(args, n);
	}
	if (m->halt_on_failure)
		strlist_push(args, "--halt-on-failure");
	if (m->no_aslr)
		strlist_push(args, "--no-aslr");
	if (m->command) {
		strlist_push(args, "--session-command");
		strlist_push(args, m->command);
	}
	for (size_t i = 0; i < run_args->n; i++)
		strlist_push(args, run_args->items[i]);
}

/* Sleeps ms milliseconds, waking early when the bisect is asked to stop. */
static void bisect_fleet_nap(const struct bisect_fleet *f, int ms)
{
	for (int slept = 0; slept < ms && !*f->stop; slept += 100) {
		struct timespec ts = {0, 100 * 1000000L};
		nanosleep(&ts, NULL);
	}
}

/* One job of the batch as the wait sees it. */
struct bisect_fleet_job {
	int64_t id;      /* 0: not submitted (out[i] says why) */
	int64_t attempt; /* the last attempt said */
	size_t said;     /* how much of its reasons was said */
	int collected;   /* out[i] is final */
};

/*
 * The job's part: one --build per arm with its manifest hash (verified here, as the local
 * hook's buildinfo_load does, so a broken folder is named now, by its commit). -1 with e.
 */
static int bisect_fleet_part(const struct bisect_fleet *f, const struct bisect_measure *m,
                             struct queue_part *p, struct err *e)
{
	struct sbuf label;

	memset(p, 0, sizeof *p);
	p->builds = xcalloc(m->narms ? m->narms : 1, sizeof *p->builds);
	sbuf_init(&label);
	sbuf_addf(&label, "bisect");
	for (size_t a = 0; a < m->narms; a++) {
		struct buildinfo b;
		struct err be = ERR_INIT;
		if (buildinfo_load(m->dirs[a], &b, &be) != 0) {
			sbuf_release(&label);
			return err_setc(e, be.code, "%s: %s", bisect_engine_short(m->hashes[a]),
			                be.msg);
		}
		p->builds[a].option = xstrdup("--build");
		p->builds[a].value = xstrdup(m->dirs[a]);
		p->builds[a].digest = xstrdup(b.manifest_hash);
		p->nbuilds++;
		buildinfo_release(&b);
		sbuf_addf(&label, "%s%s", a ? " vs " : " ", bisect_engine_short(m->hashes[a]));
	}
	p->label = sbuf_detach(&label);
	bisect_fleet_job_args(f->size, &f->run_args, m, &p->args);
	return 0;
}

/* The last line of a job's reasons (one line per failed or lost attempt); newly allocated. */
static char *bisect_fleet_last_reason(const char *reasons)
{
	const char *end, *start;

	if (!reasons || !*reasons)
		return xstrdup("no reason recorded");
	end = reasons + strlen(reasons);
	while (end > reasons && end[-1] == '\n')
		end--;
	start = end;
	while (start > reasons && start[-1] != '\n')
		start--;
	return xasprintf("%.*s", (int)(end - start), start);
}

/*
 * What happened to a job since the last look, said once on stderr: another attempt (a worker
 * lost it or failed it), or a worker that refused it (its copy of a build differs, a folder
 * it cannot see: the job waits for another worker).
 */
static void bisect_fleet_news(const struct queue_job_row *j, struct bisect_fleet_job *k)
{
	size_t len = j->reasons ? strlen(j->reasons) : 0;
	char *why;

	if (len > k->said && strcmp(j->state, "queued") != 0 && strcmp(j->state, "running") != 0)
		k->said = len; /* an end: the collection says it */
	if (len <= k->said && j->attempt <= k->attempt)
		return;
	why = bisect_fleet_last_reason(j->reasons);
	if (j->attempt > 1 && j->attempt > k->attempt)
		fprintf(stderr, "fleet: job %lld (%s) runs again, attempt %lld: %s\n",
		        (long long)j->id, cli_safe(j->label), (long long)j->attempt, cli_safe(why));
	else if (len > k->said)
		fprintf(stderr, "fleet: job %lld (%s) %s: %s\n", (long long)j->id,
		        cli_safe(j->label), j->state, cli_safe(why));
	free(why);
	if (j->attempt > k->attempt)
		k->attempt = j->attempt;
	k->said = len;
}

/*
 * A job that ended: its session copied into the bisect's store and its runs loaded (done),
 * or why not (failed, canceled). out->rc as the measure hook returns.
 */
static void bisect_fleet_collect(struct bisect_fleet *f, const struct queue_job_row *j,
                                 struct bisect_measured *out)
{
	struct err e = ERR_INIT;
	int64_t fleet_id = 0, local_id = 0;
	char *end = NULL;
	int copied = 0;

	free(out->host);
	out->host = j->worker ? xstrdup(j->worker) : NULL;
	if (strcmp(j->state, "failed") == 0) {
		/* Its reasons say each attempt's end (a worker's words: made safe to print). */
		struct sbuf why;
		sbuf_init(&why);
		for (const char *p = j->reasons ? j->reasons : ""; *p;) {
			size_t k = strcspn(p, "\n");
			sbuf_addf(&why, "%s%.*s", why.len ? "; " : "", (int)k, p);
			p += k + (p[k] == '\n');
		}
		out->rc = -1;
		err_setc(&out->err, ERR_FAILED,
		         "fleet job %lld (%s) failed after %lld attempt%s: %s", (long long)j->id,
		         cli_safe(j->label), (long long)j->attempt, j->attempt == 1 ? "" : "s",
		         why.len ? cli_safe(why.data) : "no reason recorded");
		sbuf_release(&why);
		return;
	}
	if (strcmp(j->state, "canceled") == 0) {
		out->rc = -2;
		return;
	}
	if (!j->sessions || (fleet_id = strtoll(j->sessions, &end, 10)) <= 0 || *end) {
		out->rc = -1;
		err_setc(&out->err, ERR_FAILED,
		         "fleet job %lld (%s) is done but stored %s session%s, not one: %s",
		         (long long)j->id, cli_safe(j->label), j->sessions ? "several" : "no",
		         j->sessions ? "s" : "", j->sessions ? j->sessions : "-");
		return;
	}
	/* pull's copy: idempotent by uuid, so a store that is the fleet's itself keeps its id */
	if (store_session_copy(f->q, fleet_id, f->st, &local_id, &copied, &e) != 0 ||
	    store_runs_load(f->st, local_id, -1, &out->runs, &out->nruns, &e) != 0) {
		out->rc = -1;
		out->session_id = local_id;
		err_setc(&out->err, e.code, "fleet job %lld: session %lld of %s: %s",
		         (long long)j->id, (long long)fleet_id, store_where(f->q), e.msg);
		return;
	}
	out->session_id = local_id;
	out->rc = 0;
}

/*
 * "fleet: 2 of 5 jobs done, 3 running on w1, w2, w3" (the request's n jobs as st read them),
 * printed when it changes.
 */
static void bisect_fleet_progress(const struct queue_status *st, size_t n, char **last)
{
	struct sbuf b;
	struct strlist on = {0};
	size_t running = 0, queued = 0, done = 0, failed = 0;

	for (size_t i = 0; i < st->njobs; i++) {
		const struct queue_job_row *j = &st->jobs[i];
		if (strcmp(j->state, "done") == 0)
			done++;
		else if (strcmp(j->state, "failed") == 0)
			failed++;
		else if (strcmp(j->state, "running") == 0) {
			running++;
			if (j->worker && !strlist_contains(&on, j->worker))
				strlist_push(&on, j->worker);
		} else if (strcmp(j->state, "queued") == 0)
			queued++;
	}
	sbuf_init(&b);
	sbuf_addf(&b, "fleet: %zu of %zu job%s done", done, n, n == 1 ? "" : "s");
	if (running) {
		char *names = strlist_join(&on, ", ");
		sbuf_addf(&b, ", %zu running on %s", running, cli_safe(names));
		free(names);
	}
	if (queued)
		sbuf_addf(&b, ", %zu queued", queued);
	if (failed)
		sbuf_addf(&b, ", %zu failed", failed);
	if (!*last || strcmp(*last, b.data) != 0) {
		fprintf(stderr, "%s\n", b.data);
		free(*last);
		*last = xstrdup(b.data);
	}
	strlist_release(&on);
	sbuf_release(&b);
}

/* 1 when a job waits and no worker that could take it has been seen for a minute. */
static int bisect_fleet_unattended(const struct queue_status *st)
{
	int queued = 0;

	for (size_t i = 0; i < st->njobs; i++)
		queued |= strcmp(st->jobs[i].state, "queued") == 0;
	for (size_t i = 0; queued && i < st->nworkers; i++) {
		const struct queue_worker_row *w = &st->workers[i];
		if (strcmp(w->state, "stopped") != 0 && w->seen_s >= 0 && w->seen_s <= 60)
			return 0;
	}
	return queued;
}

/*
 * Lets the bench lock go while jobs are out (a worker on this host takes it for its measure),
 * or takes it again; -1 with e when it cannot be had again.
 */
static int bisect_fleet_lock(struct bisect_fleet *f, int take, struct err *e)
{
	if (!f->lock_fd)
		return 0;
	if (!take) {
		if (*f->lock_fd >= 0)
			quiet_unlock(*f->lock_fd);
		*f->lock_fd = -1;
		return 0;
	}
	return quiet_lock(f->lock_timeout_s, cli_waiting, f->cmd, f->lock_fd, e);
}

/*
 * Waits for the request's jobs, collecting each as it ends: 0, or -2 when the bisect was asked
 * to stop (the jobs still queued or running canceled) or a job was canceled in the queue.
 */
static int bisect_fleet_wait(struct bisect_fleet *f, int64_t request, struct bisect_fleet_job *jobs,
                             size_t n, size_t submitted, struct bisect_measured *out)
{
	struct err e = ERR_INIT;
	char *last = NULL;
	size_t done = 0;
	int rc = 0, lost = 0, alone = 0;

	for (size_t i = 0; i < n; i++)
		done += jobs[i].collected;
	while (done < n) {
		struct queue_status st = {0};
		if (*f->stop)
			break;
		if (!f->q && queue_open(f->url, &f->q, &e) != 0) {
			f->q = NULL;
			bisect_fleet_nap(f, BISECT_FLEET_RETRY_MS);
			continue;
		}
		if (queue_status_read(f->q, 1, request, &st, &e) != 0) {
			queue_status_release(&st);
			if (e.code != ERR_IO && e.code != ERR_BUSY) {
				cli_error(f->cmd, "--fleet: %s", e.msg);
				for (size_t i = 0; i < n; i++)
					if (!jobs[i].collected) {
						out[i].rc = -1;
						err_setc(&out[i].err, e.code, "%s", "");
						jobs[i].collected = 1;
					}
				break;
			}
			/* A database away is waited for, as a worker does: the jobs go on. */
			if (!lost)
				fprintf(
				    stderr,
				    "gcratchet %s: lost the fleet's database (%s): trying again "
				    "every %d s\n",
				    f->cmd, cli_safe(e.msg), BISECT_FLEET_RETRY_MS / 1000);
			lost = 1;
			store_close(f->q);
			f->q = NULL;
			bisect_fleet_nap(f, BISECT_FLEET_RETRY_MS);
			continue;
		}
		if (lost)
			fprintf(stderr, "gcratchet %s: the fleet's database is back\n", f->cmd);
		lost = 0;
		for (size_t r = 0; r < st.njobs; r++) {
			const struct queue_job_row *j = &st.jobs[r];
			size_t i = 0;
			while (i < n && jobs[i].id != j->id)
				i++;
			if (i == n || jobs[i].collected)
				continue;
			bisect_fleet_news(j, &jobs[i]);
			if (strcmp(j->state, "queued") == 0 || strcmp(j->state, "running") == 0)
				continue;
			bisect_fleet_collect(f, j, &out[i]);
			jobs[i].collected = 1;
			done++;
			if (out[i].rc == -2) {
				cli_error(f->cmd, "fleet job %lld (%s) was canceled in the queue",
				          (long long)j->id, cli_safe(j->label));
				rc = -2;
			}
		}
		bisect_fleet_progress(&st, submitted, &last);
		if (!alone && bisect_fleet_unattended(&st)) {
			fprintf(
			    stderr,
			    "fleet: no worker has been seen in the last minute: the jobs wait for "
			    "one (gcratchet worker --fleet URL, on a host that sees this "
			    "folder and the builds at the same paths)\n");
			alone = 1;
		}
		queue_status_release(&st);
		if (rc == -2)
			break;
		if (done < n)
			bisect_fleet_nap(f, BISECT_FLEET_POLL_MS);
	}
	free(last);
	if (done < n) {
		size_t canceled = 0;
		rc = -2;
		if (f->q && queue_cancel(f->q, request, 1, &canceled, &e) != 0)
			cli_error(f->cmd, "--fleet: cancelling request %lld: %s",
			          (long long)request, e.msg);
		else if (!f->q)
			cli_error(f->cmd,
			          "--fleet: the fleet's database is away: request %lld's jobs are "
			          "not canceled (gcratchet queue cancel --request %lld)",
			          (long long)request, (long long)request);
		else
			fprintf(stderr, "fleet: request %lld: %zu job%s canceled\n",
			        (long long)request, canceled, canceled == 1 ? "" : "s");
		for (size_t i = 0; i < n; i++)
			if (!jobs[i].collected)
				out[i].rc = -2;
	}
	return rc;
}

int bisect_fleet_measure_many(struct bisect_fleet *f, const struct bisect_measure *m, size_t n,
                              struct bisect_measured *out)
{
	struct queue_part *parts = xcalloc(n ? n : 1, sizeof *parts);
	struct bisect_fleet_job *jobs = xcalloc(n ? n : 1, sizeof *jobs);
	int64_t *ids = xcalloc(n ? n : 1, sizeof *ids), request = 0;
	size_t *of = xcalloc(n ? n : 1, sizeof *of), np = 0;
	struct queue_request req = {0};
	struct err e = ERR_INIT;
	int rc = 0, unlocked = 0;

	for (size_t i = 0; i < n; i++) {
		if (bisect_fleet_part(f, &m[i], &parts[np], &out[i].err) != 0) {
			out[i].rc = -1;
			jobs[i].collected = 1;
			queue_part_release(&parts[np]);
			continue;
		}
		of[np++] = i;
	}
	if (np == 0)
		goto out;
	req.verb = "measure";
	req.cwd = f->cwd;
	req.submitter = f->submitter;
	req.args = parts[0].args;
	req.split = "bisect";
	req.max_attempts = QUEUE_MAX_ATTEMPTS;
	req.parts = parts;
	req.nparts = np;
	if (!f->q && queue_open(f->url, &f->q, &e) != 0)
		f->q = NULL;
	if (!f->q || queue_submit(f->q, &req, &request, ids, &e) != 0) {
		for (size_t k = 0; k < np; k++) {
			out[of[k]].rc = -1;
			err_setc(&out[of[k]].err, e.code, "--fleet: %s", e.msg);
			jobs[of[k]].collected = 1;
		}
		goto out;
	}
	for (size_t k = 0; k < np; k++)
		jobs[of[k]].id = ids[k];
	fprintf(stderr, "fleet: request %lld, %zu job%s queued in %s\n", (long long)request, np,
	        np == 1 ? "" : "s", cli_safe(store_where(f->q)));
	bisect_fleet_lock(f, 0, &e);
	unlocked = 1;
	rc = bisect_fleet_wait(f, request, jobs, n, np, out);
out:
	if (unlocked && bisect_fleet_lock(f, 1, &e) != 0) {
		/* The bisect builds on this host next: without the lock it must not. */
		for (size_t i = 0; i < n; i++)
			if (out[i].rc == 0) {
				out[i].rc = -1;
				err_setc(&out[i].err, e.code, "%s", e.msg);
			}
	}
	for (size_t k = 0; k < np; k++)
		queue_part_release(&parts[k]);
	free(parts);
	free(jobs);
	free(ids);
	free(of);
	return rc;
}

int bisect_fleet_measure(struct bisect_fleet *f, const struct bisect_measure *m,
                         int64_t *session_id, struct store_run **runs, size_t *nruns, struct err *e)
{
	struct bisect_measured o;

	memset(&o, 0, sizeof o);
	o.err = (struct err)ERR_INIT;
	bisect_fleet_measure_many(f, m, 1, &o);
	*session_id = o.session_id;
	*runs = o.runs;
	*nruns = o.nruns;
	*e = o.err;
	free(o.host);
	return o.rc;
}
