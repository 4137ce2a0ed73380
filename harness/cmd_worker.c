/*
 * gcratchet worker — runs the fleet queue's jobs on this host (docs/queue.md): claims one,
 * checks its builds, runs its verb as a child gcratchet into a scratch database (the child
 * takes the bench lock, as any measuring verb does), keeps the job's lease by heartbeats while
 * it runs, and completes it in the transaction that stores its sessions in the fleet's
 * database. A database that stops answering is waited for, with backoff: a job is never
 * completed twice, and one whose lease expired meanwhile is another worker's.
 *
 * The verb never outlives its worker by more than WORKER_GRACE_S: it runs in a process group
 * of its own, dies with the worker (PR_SET_PDEATHSIG, SIGKILL: a killed worker's job is
 * another's once its lease lapses, and the bench lock must be free for it), and when the job
 * is canceled, taken over or the worker is stopped it is asked to stop (SIGTERM, again a
 * second later: "stop the running probe now"), then its group is killed at the grace.
 *
 * A fault of this host (its scratch folder cannot be made, the disk is full, its gcratchet
 * cannot be executed) is not the job's: the worker looks before it claims, and one found
 * pauses it (--once and --drain: stops it, exit 2) instead of spending the attempts of every
 * job in the queue. One found only when the verb cannot be started gives the job back, its
 * attempt not counted, and stops the worker.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ftw.h>
#include <limits.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buildinfo.h"
#include "cli.h"
#include "cmds.h"
#include "hostinfo.h"
#include "queue.h"
#include "scratch.h"

#define WORKER_LEASE_S      30 /* default --lease */
#define WORKER_POLL_S       5  /* default --poll: how often an idle worker looks again */
#define WORKER_BACKOFF_MAX  8  /* seconds between attempts to reach a stopped database */
#define WORKER_OUTPUT_BYTES 4000
#define WORKER_GRACE_S      5  /* from asking the verb to stop to killing its process group */
#define WORKER_MIN_FREE_MB  32 /* free space a job's scratch folder needs, at least */

static volatile sig_atomic_t worker_stop;

static void worker_on_signal(int sig)
{
	(void)sig;
	worker_stop = 1;
}

struct worker {
	const char *cmd, *url, *scratch_root;
	struct store *s;
	struct queue_worker w;
	int64_t lease_s;
	unsigned backoff_s;
	int down;   /* the database could not be reached at the last try */
	int fatal;  /* an error retrying cannot mend: the worker stops */
	int paused; /* the host cannot run jobs (worker_host_fault): said once */
	char exe[PATH_MAX];
};

static double worker_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleeps `s` seconds, or less when the worker is asked to stop. */
static void worker_sleep(double s)
{
	double end = worker_now() + s;

	while (!worker_stop && worker_now() < end) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

static void worker_say(const struct worker *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void worker_say(const struct worker *k, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	printf("worker %s: %s\n", cli_safe(k->w.name), cli_safe(buf));
	fflush(stdout);
}

/*
 * After a store error: a connection lost or a server not answering is waited out (the
 * connection is dropped and opened again); a lock held too long by another transaction
 * (ERR_BUSY: lock_timeout, a serialization failure) is waited out on the same connection, and
 * said to be one; anything else stops the worker.
 */
static void worker_drop(struct worker *k, const struct err *e)
{
	if (e->code == ERR_BUSY) {
		worker_say(k,
		           "the fleet's database is busy (a lock held by another transaction): %s; "
		           "retrying",
		           e->msg);
		worker_sleep(1);
		return;
	}
	if (e->code == ERR_IO) {
		if (!k->down)
			worker_say(k, "lost the fleet's database: %s; retrying", e->msg);
		k->down = 1;
	} else {
		cli_error(k->cmd, "%s", e->msg);
		k->fatal = 1;
	}
	store_close(k->s);
	k->s = NULL;
}

/* 0 with k->s open and the worker registered; -1 when the database cannot be had now. */
static int worker_connect(struct worker *k)
{
	struct err e = ERR_INIT;

	if (k->s)
		return 0;
	if (queue_open(k->url, &k->s, &e) != 0 || queue_worker_register(k->s, &k->w, &e) != 0) {
		if (e.code != ERR_IO && e.code != ERR_BUSY) {
			cli_error(k->cmd, "%s", e.msg);
			k->fatal = 1;
		} else if (!k->down && e.code == ERR_BUSY) {
			worker_say(k,
			           "waiting for the fleet's database, busy (a lock held by another "
			           "transaction): %s",
			           e.msg);
		} else if (!k->down) {
			worker_say(k, "waiting for the fleet's database: %s", e.msg);
		}
		k->down = 1;
		store_close(k->s);
		k->s = NULL;
		return -1;
	}
	if (k->down)
		worker_say(k, "the fleet's database answers again");
	k->down = 0;
	k->backoff_s = 1;
	return 0;
}

/*
 * Waits for the database with backoff; -1 when the worker must stop instead. A worker asked to
 * stop tries once, without waiting: what it still has to record (its failed attempt) is
 * recorded when the database answers.
 */
static int worker_reconnect(struct worker *k)
{
	while (!k->fatal) {
		if (worker_connect(k) == 0)
			return 0;
		if (k->fatal || worker_stop)
			break;
		worker_sleep(k->backoff_s);
		if (k->backoff_s < WORKER_BACKOFF_MAX)
			k->backoff_s *= 2;
	}
	return -1;
}

static int worker_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Removes a job's scratch folder and all in it (kept with GCR_WORKER_KEEP, for debugging). */
static void worker_rmdir(const char *dir)
{
	if (dir && !getenv("GCR_WORKER_KEEP"))
		nftw(dir, worker_rm, 8, FTW_DEPTH | FTW_PHYS);
}

/*
 * NULL when this host can run a job now, with *dir the job's scratch folder made
 * (--scratch/gcratchet-worker.XXXXXX with its owner file, scratch.h); else why not
 * (allocated), *dir NULL: its gcratchet cannot be executed, the folder cannot be made or
 * written (no --scratch, no permission, a full disk), or less than WORKER_MIN_FREE_MB is free.
 */
static char *worker_host_fault(const struct worker *k, char **dir)
{
	struct statvfs sv;
	struct err e = ERR_INIT;
	char *why = NULL;

	*dir = NULL;
	if (access(k->exe, X_OK) != 0)
		return xasprintf("cannot execute %s: %s", k->exe, strerror(errno));
	if (scratch_create(k->scratch_root, SCRATCH_WORKER_PREFIX, dir, &e) != 0)
		return xasprintf("--scratch %s: %s", k->scratch_root, e.msg);
	if (statvfs(*dir, &sv) == 0 &&
	    (uint64_t)sv.f_bavail * sv.f_frsize < (uint64_t)WORKER_MIN_FREE_MB << 20) {
		why = xasprintf("--scratch %s: %llu KiB free, less than the %d MiB a job's scratch "
		                "folder needs",
		                k->scratch_root,
		                (unsigned long long)((uint64_t)sv.f_bavail * sv.f_frsize >> 10),
		                WORKER_MIN_FREE_MB);
		worker_rmdir(*dir);
		free(*dir);
		*dir = NULL;
	}
	return why;
}

/* The last WORKER_OUTPUT_BYTES of the verb's output (NULL when it wrote none). */
static char *worker_output(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long size;
	size_t n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0) {
		long from = size > WORKER_OUTPUT_BYTES ? size - WORKER_OUTPUT_BYTES : 0;
		buf = xmalloc((size_t)(size - from) + 1);
		fseek(f, from, SEEK_SET);
		n = fread(buf, 1, (size_t)(size - from), f);
		buf[n] = '\0';
	}
	fclose(f);
	return buf;
}

/* The last non-empty line of text, for a reason; a static buffer. */
static const char *worker_last_line(const char *text)
{
	static char line[512];
	const char *end, *start;

	line[0] = '\0';
	if (!text)
		return line;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	snprintf(line, sizeof line, "%.*s", (int)(end - start), start);
	return line;
}

/*
 * NULL when every build of the job is here with the job's digest, else why not (allocated):
 * the worker refuses a job it would measure on another build than the one submitted.
 */
static char *worker_check_builds(const struct queue_job *j)
{
	char *root = buildinfo_root(), *why = NULL;

	for (size_t i = 0; i < j->nbuilds && !why; i++) {
		const struct queue_build *b = &j->builds[i];
		struct buildinfo bi = {0};
		struct err e = ERR_INIT;
		char *dir = strcmp(b->option, "--collector") == 0
		                ? xasprintf("%s/collectors/%s", root, b->value)
		            : b->value[0] == '/' ? xstrdup(b->value)
		                                 : xasprintf("%s/%s", j->cwd, b->value);
		if (buildinfo_load(dir, &bi, &e) != 0)
			why = xasprintf("%s %s: %s", b->option, b->value, e.msg);
		else if (strcmp(bi.manifest_hash, b->digest) != 0)
			why = xasprintf(
			    "%s %s: this host's copy (%s) has manifest hash %s, the job's "
			    "build has %s",
			    b->option, b->value, dir, bi.manifest_hash, b->digest);
		buildinfo_release(&bi);
		free(dir);
	}
	free(root);
	return why;
}

/*
 * Starts `exe verb args... --db db` in cwd with its output in log, in a process group of its
 * own that dies with the worker: the child's pid, or -1 with *why (allocated) and *host 1 when
 * the fault is this host's (the log cannot be made, the executable cannot be run), 0 when it
 * is the job's (its working directory).
 */
static pid_t worker_spawn(const struct worker *k, const struct queue_job *j, const char *db,
                          const char *log, char **why, int *host)
{
	char **argv = xcalloc(j->args.n + 5, sizeof *argv);
	pid_t parent = getpid(), pid;
	int report[2], failed[2] = {0, 0};
	size_t n = 0;
	ssize_t got;

	*why = NULL;
	*host = 1;
	argv[n++] = (char *)k->exe;
	argv[n++] = j->verb;
	for (size_t i = 0; i < j->args.n; i++)
		argv[n++] = j->args.items[i];
	argv[n++] = (char *)"--db";
	argv[n++] = (char *)db;
	argv[n] = NULL;
	/* The child says on this pipe where it failed before its exec; a clean exec closes it. */
	if (pipe2(report, O_CLOEXEC) != 0) {
		*why = xasprintf("cannot start %s: %s", k->exe, strerror(errno));
		free(argv);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int fd;
		/*
		 * The verb must not outlive its worker: the lease lapses, another host takes the
		 * job, and this one would go on holding the bench lock. SIGKILL, not SIGTERM, on
		 * which a session finishes its running probe first; its launcher then kills the
		 * probe (launch.c).
		 */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(126);
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(report[0]);
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
			failed[0] = 1;
		} else if (chdir(j->cwd) != 0) {
			failed[0] = 2;
		} else {
			fd = open("/dev/null", O_RDONLY);
			if (fd >= 0)
				dup2(fd, 0);
			unsetenv("GCR_FLEET_URL");
			unsetenv("GCR_DB");
			execv(k->exe, argv);
			failed[0] = 3;
		}
		failed[1] = errno;
		got = write(report[1], failed, sizeof failed);
		(void)got;
		_exit(127);
	}
	close(report[1]);
	if (pid < 0) {
		*why = xasprintf("cannot start %s: %s", k->exe, strerror(errno));
		goto out;
	}
	/* Both sides set the group, so that a signal right after the fork reaches it. */
	setpgid(pid, pid);
	while ((got = read(report[0], failed, sizeof failed)) < 0 && errno == EINTR)
		;
	if (got == (ssize_t)sizeof failed) {
		waitpid(pid, NULL, 0);
		*host = failed[0] != 2;
		*why = failed[0] == 1 ? xasprintf("cannot write %s: %s", log, strerror(failed[1]))
		       : failed[0] == 2
		           ? xasprintf("cannot enter its working directory %s: %s", j->cwd,
		                       strerror(failed[1]))
		           : xasprintf("cannot execute %s: %s", k->exe, strerror(failed[1]));
		pid = -1;
	}
out:
	close(report[0]);
	free(argv);
	return pid;
}

/*
 * Records a failed attempt, waiting for the database when it is away; a worker asked to stop
 * tries a few times, then says that the lease will lapse instead.
 */
static void worker_fail(struct worker *k, const struct queue_job *j, const char *reason)
{
	struct err e = ERR_INIT;
	char state[16];
	int tries = 0;

	while (worker_reconnect(k) == 0 && !(worker_stop && tries++ >= 3)) {
		if (queue_fail(k->s, k->w.name, j, reason, state, &e) == 0) {
			if (!*state)
				worker_say(
				    k,
				    "job %lld: attempt %lld failed (%s); the job was no longer "
				    "this worker's",
				    (long long)j->id, (long long)j->attempt, reason);
			else
				worker_say(k, "job %lld: attempt %lld failed: %s; the job is %s",
				           (long long)j->id, (long long)j->attempt, reason, state);
			return;
		}
		worker_drop(k, &e);
	}
	worker_say(k,
	           "job %lld: its failed attempt (%s) could not be recorded: the job is reclaimed "
	           "when its lease lapses",
	           (long long)j->id, reason);
}

/* Completes the job with its sessions, waiting for the database when it is away. */
static void worker_complete(struct worker *k, const struct queue_job *j, const char *db, int status,
                            const char *output)
{
	struct store *scratch = NULL;
	struct err e = ERR_INIT;
	int64_t ids[8];
	size_t n = 0, answers = 0;
	enum queue_completion how;
	char *answer = NULL;

	if (access(db, F_OK) == 0 && store_open(db, STORE_READ, &scratch, &e) != 0) {
		char *why = xasprintf("its scratch database: %s", e.msg);
		worker_fail(k, j, why);
		free(why);
		return;
	}
	while (worker_reconnect(k) == 0) {
		if (queue_complete(k->s, scratch, k->w.name, j, status, output, &how, ids,
		                   sizeof ids / sizeof ids[0], &n, &answers, &answer, &e) == 0) {
			if (how == QUEUE_FENCED) {
				worker_say(
				    k,
				    "job %lld: its lease was taken over (the job was reclaimed or "
				    "canceled): its result is discarded, nothing stored",
				    (long long)j->id);
			} else if (how == QUEUE_COMPLETED_LATE) {
				worker_say(k,
				           "job %lld: done (completed before the database's answer "
				           "was lost)",
				           (long long)j->id);
			} else {
				char list[256] = "";
				size_t len = 0;
				for (size_t i = 0; i < n && i < sizeof ids / sizeof ids[0]; i++)
					len += (size_t)snprintf(list + len, sizeof list - len,
					                        "%s%lld", i ? ", " : "",
					                        (long long)ids[i]);
				char heaps[64] = "";
				if (answers)
					snprintf(heaps, sizeof heaps, ", %zu minimum-heap answer%s",
					         answers, answers == 1 ? "" : "s");
				worker_say(k, "job %lld: done, exit %d, %zu session%s stored%s%s%s",
				           (long long)j->id, status, n, n == 1 ? "" : "s",
				           n ? ": " : "", list, heaps);
				if (answer)
					worker_say(k, "job %lld: bisect answer %s",
					           (long long)j->id, answer);
			}
			break;
		}
		if (e.code == ERR_IO || e.code == ERR_BUSY) {
			worker_drop(k, &e);
			continue;
		}
		/* The fleet refused the sessions (a build with another manifest, bad data). */
		{
			char *why = xasprintf("storing its sessions: %s", e.msg);
			worker_fail(k, j, why);
			free(why);
		}
		break;
	}
	free(answer);
	store_close(scratch);
}

/* How the bisect the verb stored in its scratch database ended (queue_bisect_end). */
static enum queue_bisect_end worker_bisect_end(const char *db)
{
	struct store *scratch = NULL;
	struct err e = ERR_INIT;
	enum queue_bisect_end end;

	if (access(db, F_OK) != 0 || store_open(db, STORE_READ, &scratch, &e) != 0)
		return QUEUE_BISECT_NONE;
	end = queue_bisect_end(scratch);
	store_close(scratch);
	return end;
}

/*
 * Runs the claimed job in dir, the scratch folder worker_host_fault made for it (removed
 * here). 1 when the host failed it (the verb could not be started: the job was given back and
 * the worker must stop), else 0.
 */
static int worker_run(struct worker *k, const struct queue_job *j, char *dir)
{
	char *why, *db = NULL, *log = NULL, *output = NULL;
	double hb_every = k->lease_s / 3.0 < 1 ? 1 : (double)k->lease_s / 3.0, next_hb, stop_at = 0;
	struct stat sb;
	struct err e = ERR_INIT;
	int status = 0, lost = 0, stopped = 0, signals = 0, host = 0, rc = 0;
	pid_t pid;

	worker_say(k, "job %lld (request %lld, %s, %s): attempt %lld of %lld", (long long)j->id,
	           (long long)j->request_id, j->verb, j->label, (long long)j->attempt,
	           (long long)j->max_attempts);
	why = stat(j->cwd, &sb) != 0 || !S_ISDIR(sb.st_mode)
	          ? xasprintf("its working directory %s is not a folder here", j->cwd)
	          : worker_check_builds(j);
	if (why) {
		if (queue_refuse(k->s, k->w.name, j, why, &e) != 0)
			worker_drop(k, &e);
		else
			worker_say(k, "job %lld: refused: %s", (long long)j->id, why);
		free(why);
		goto out;
	}
	db = xasprintf("%s/job.db", dir);
	log = xasprintf("%s/output.log", dir);
	if ((pid = worker_spawn(k, j, db, log, &why, &host)) < 0) {
		if (!host) {
			worker_fail(k, j, why);
		} else if (queue_release(k->s, k->w.name, j, why, &e) != 0) {
			worker_drop(k, &e);
			rc = 1;
		} else {
			worker_say(
			    k,
			    "job %lld: given back, its attempt not counted: this host cannot "
			    "run it: %s",
			    (long long)j->id, why);
			rc = 1;
		}
		free(why);
		goto out;
	}
	next_hb = worker_now() + hb_every;
	for (;;) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		pid_t w = waitpid(pid, &status, WNOHANG);
		double now = worker_now();
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		/*
		 * Stopping: SIGTERM (a session finishes its running probe), again a second later
		 * (it stops that probe now), and at the grace SIGKILL to the verb's group.
		 */
		if ((worker_stop || lost) && signals == 0) {
			kill(pid, SIGTERM);
			stopped = !lost;
			stop_at = now;
			signals = 1;
		} else if (signals == 1 && now >= stop_at + 1) {
			kill(pid, SIGTERM);
			signals = 2;
		} else if (signals == 2 && now >= stop_at + WORKER_GRACE_S) {
			worker_say(k, "job %lld: gcratchet %s did not stop within %d s: killed",
			           (long long)j->id, j->verb, WORKER_GRACE_S);
			kill(-pid, SIGKILL);
			signals = 3;
		}
		if (now >= next_hb && !lost) {
			int ours = 1;
			if (k->s || worker_connect(k) == 0) {
				if (queue_heartbeat(k->s, k->w.name, j, k->lease_s, &ours, &e) != 0)
					worker_drop(k, &e);
				else if (!ours) {
					worker_say(
					    k,
					    "job %lld: no longer this worker's (its lease "
					    "was taken over, or it was canceled): stopping it",
					    (long long)j->id);
					lost = 1;
				}
			}
			next_hb = worker_now() + hb_every;
		}
		nanosleep(&ts, NULL);
	}
	if (lost)
		goto out;
	output = worker_output(log);
	/* Which exit is a result is the queue's contract (queue_exit_outcome); a bisect's record
	 * is read only for the exit that needs it. */
	if (!stopped && WIFEXITED(status) &&
	    queue_exit_outcome(WEXITSTATUS(status), WEXITSTATUS(status) == EXIT_UNJUDGED
	                                                ? worker_bisect_end(db)
	                                                : QUEUE_BISECT_NONE) ==
	        QUEUE_OUTCOME_RESULT) {
		worker_complete(k, j, db, WEXITSTATUS(status), output);
		goto out;
	}
	if (stopped)
		why = xasprintf("the worker was stopped");
	else if (WIFEXITED(status))
		why = xasprintf("gcratchet %s exited %d: %s", j->verb, WEXITSTATUS(status),
		                worker_last_line(output));
	else
		why = xasprintf("gcratchet %s was killed by signal %d", j->verb,
		                WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	worker_fail(k, j, why);
	free(why);
out:
	worker_rmdir(dir);
	/* A killed worker's folder (its verb died with it) is this host's to sweep. */
	scratch_sweep(k->scratch_root, SCRATCH_WORKER_PREFIX);
	free(output);
	free(log);
	free(db);
	return rc;
}

/* worker's options, as its rows land them. */
struct worker_opts {
	const char *fleet, *name, *scratch;
	uint64_t lease_s, poll_s;
	int once, drain, quiet;
};

static int worker_name_row(void *field, const struct cli_option *row, const char *val,
                           struct err *e)
{
	(void)row;
	if (!*val || strlen(val) > 64)
		return err_setc(e, ERR_INVALID, "--name \"%s\": from 1 to 64 characters", val);
	*(const char **)field = val;
	return 0;
}

/* --lease and --poll: whole seconds, at most a day; a lease of at least 3 (a heartbeat every
 * third of it). */
static int worker_seconds_row(void *field, const struct cli_option *row, const char *val,
                              struct err *e)
{
	uint64_t n;

	if (parse_u64(val, &n) != 0 || n == 0)
		return err_setc(e, ERR_INVALID, "%s must be a positive integer, got \"%s\"",
		                row->name, val);
	if (n > 86400)
		return err_setc(e, ERR_INVALID, "%s %s: at most 86400 seconds", row->name, val);
	if (n < row->min)
		return err_setc(e, ERR_INVALID,
		                "%s %s: at least %" PRIu64
		                " seconds (a heartbeat every third of it)",
		                row->name, val, row->min);
	*(uint64_t *)field = n;
	return 0;
}

/*
 * Claims and runs jobs until the worker is stopped, --once has run one, --drain finds none
 * left, or k->fatal; a host that cannot run jobs pauses it (--once, --drain: stops it).
 */
static void worker_serve(struct worker *k, const struct worker_opts *o)
{
	struct err e = ERR_INIT;
	size_t jobs = 0;

	while (!worker_stop) {
		struct queue_job j;
		char *dir = NULL, *fault;
		int got = 0;
		if (worker_reconnect(k) != 0)
			break;
		/* The host first: a fault of its own must not spend the queue's attempts. */
		if ((fault = worker_host_fault(k, &dir)) != NULL) {
			if (o->once || o->drain) {
				cli_error(k->cmd,
				          "this host cannot run jobs: %s; no job was claimed",
				          fault);
				k->fatal = 1;
			} else if (!k->paused) {
				worker_say(
				    k,
				    "this host cannot run jobs: %s; paused (no job is claimed "
				    "until it can, looked at every %llu s)",
				    fault, (unsigned long long)(o->poll_s ? o->poll_s : 1));
			}
			k->paused = 1;
			free(fault);
			if (k->fatal)
				break;
			if (queue_worker_seen(k->s, k->w.name, "paused", 0, &e) != 0)
				worker_drop(k, &e);
			worker_sleep((double)(o->poll_s ? o->poll_s : 1));
			continue;
		}
		if (k->paused)
			worker_say(k, "this host can run jobs again");
		k->paused = 0;
		if (queue_reap(k->s, NULL, &e) != 0 ||
		    queue_claim(k->s, &k->w, k->lease_s, &j, &got, &e) != 0) {
			worker_rmdir(dir);
			free(dir);
			worker_drop(k, &e);
			continue;
		}
		if (got && j.broken) {
			/* Failed by the claim: the next job is claimed at once. */
			worker_say(k, "job %lld (request %lld): failed: %s", (long long)j.id,
			           (long long)j.request_id, j.broken);
			worker_rmdir(dir);
			free(dir);
			queue_job_release(&j);
			continue;
		}
		if (!got) {
			int64_t running = 0;
			worker_rmdir(dir);
			free(dir);
			/* A running job may yet lose its lease and come back: --drain waits for it. */
			if (o->drain && queue_running(k->s, &running, &e) != 0) {
				worker_drop(k, &e);
				continue;
			}
			if (o->drain && running > 0) {
				if (queue_worker_seen(k->s, k->w.name, "idle", 0, &e) != 0)
					worker_drop(k, &e);
				worker_sleep(1);
				continue;
			}
			if (o->once || o->drain) {
				worker_say(
				    k, "no job queued that this worker can run; %zu done, exiting",
				    jobs);
				break;
			}
			if (queue_worker_seen(k->s, k->w.name, "idle", 0, &e) != 0)
				worker_drop(k, &e);
			worker_sleep((double)o->poll_s);
			continue;
		}
		if (worker_run(k, &j, dir) != 0) {
			cli_error(k->cmd,
			          "this host cannot run jobs: job %lld was given back; stopping",
			          (long long)j.id);
			k->fatal = 1;
		}
		free(dir);
		queue_job_release(&j);
		jobs++;
		if (o->once || k->fatal)
			break;
	}
}

static int worker_main(int argc, char **argv)
{
	const char *cmd = "worker", *tmp = getenv("TMPDIR");
	struct worker_opts o = {.lease_s = WORKER_LEASE_S, .poll_s = WORKER_POLL_S};
	struct worker k = {.cmd = cmd, .backoff_s = 1};
	struct hostinfo h;
	struct err e = ERR_INIT;
	struct sigaction sa;
	char *facts = NULL;
	int rc = EXIT_UNJUDGED, r;
	ssize_t len;

	o.scratch = tmp && *tmp ? tmp : "/tmp";
	r = cli_parse(&cmd_worker, argc, argv, &o, NULL);
	if (r != 0)
		return r > 0 ? EXIT_OK : EXIT_UNJUDGED;
	k.w.name = o.name;
	k.w.quiet = o.quiet;
	k.lease_s = (int64_t)o.lease_s;
	k.scratch_root = o.scratch;
	if (o.once && o.drain) {
		rc = cli_error(cmd, "--once and --drain: choose one");
		goto out;
	}
	if (!(k.url = cli_fleet_url(cmd, o.fleet)))
		goto out;
	if (!store_is_conninfo(k.url)) {
		rc = cli_error(cmd, "the queue needs the fleet's PostgreSQL database "
		                    "(postgresql://...), not a file");
		goto out;
	}
	len = readlink("/proc/self/exe", k.exe, sizeof k.exe - 1);
	if (len <= 0) {
		rc = cli_error(cmd, "cannot find its own executable (/proc/self/exe)");
		goto out;
	}
	k.exe[len] = '\0';
	hostinfo_read(&h);
	facts = hostinfo_json(&h);
	if (!k.w.name)
		k.w.name = h.hostname;
	k.w.hostname = h.hostname;
	k.w.cpu_model = h.cpu_model;
	k.w.kernel = h.kernel;
	k.w.facts = facts;
	k.w.pid = (int64_t)getpid();
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = worker_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	{
		char *safe = store_url_redact(k.url);
		worker_say(&k, "on %s (%s, kernel %s%s), lease %lld s, fleet %s", h.hostname,
		           h.cpu_model, h.kernel, k.w.quiet ? ", quiet" : "", (long long)k.lease_s,
		           safe);
		free(safe);
	}
	/* What killed workers of this host left in its scratch root. */
	scratch_sweep(k.scratch_root, SCRATCH_WORKER_PREFIX);
	worker_serve(&k, &o);
	if (k.s && queue_worker_seen(k.s, k.w.name, "stopped", 0, &e) != 0)
		e.code = ERR_NONE;
	rc = k.fatal ? EXIT_UNJUDGED : EXIT_OK;
out:
	store_close(k.s);
	free(facts);
	return rc;
}

#define WO(field) offsetof(struct worker_opts, field)
static const struct cli_option worker_options[] = {
    {"--fleet", "URL", CLI_STRING, WO(fleet),
     .help = "the fleet's PostgreSQL database (default $GCR_FLEET_URL)"},
    {"--name", "NAME", CLI_CALL, WO(name), .call = worker_name_row,
     .help = "the worker's name, 1 to 64 characters (default: the host name)"},
    {"--lease", "SEC", CLI_CALL, WO(lease_s), 3, .call = worker_seconds_row,
     .help = "the job's lease, extended every third of it (default 30, at least 3)"},
    {"--poll", "SEC", CLI_CALL, WO(poll_s), 1, .call = worker_seconds_row,
     .help = "how often an idle worker looks again (default 5)"},
    {"--once", NULL, CLI_FLAG, WO(once), .help = "one job, then exit"},
    {"--drain", NULL, CLI_FLAG, WO(drain),
     .help = "until no job is left that it can run and none runs on any worker"},
    {"--quiet", NULL, CLI_FLAG, WO(quiet),
     .help = "declares this host quiet (for jobs submitted with --quiet)"},
    {"--scratch", "DIR", CLI_STRING, WO(scratch),
     .help = "where each job's scratch folder is made (default: $TMPDIR or /tmp)"},
    {0},
};
#undef WO

const struct cli_verb cmd_worker = {
    .name = "worker",
    .summary = "run the fleet queue's jobs on this host",
    .description =
        "Runs the fleet queue's jobs on this host (--fleet, or GCR_FLEET_URL). Registers itself\n"
        "as NAME (default: the host name) with the host's facts as doctor reads them, claims the\n"
        "next job its host matches (highest priority, then oldest), checks that each build of\n"
        "the job has the submitted manifest hash here (else refuses it, with the reason, and is\n"
        "never offered it again), and runs `gcratchet VERB ARGS --db SCRATCH` in the job's\n"
        "working directory under the bench lock (GCR_LOCK_FILE), SCRATCH a fresh database under\n"
        "--scratch (default: $TMPDIR or /tmp). While it runs the worker extends the job's lease\n"
        "(--lease, default 30 s, at least 3) every third of it; a job whose lease expires goes\n"
        "back to the queue for another worker, and this one's late result is then discarded.\n"
        "When the verb exits 0 or 1, its sessions (and minheap's answers) are stored in the\n"
        "fleet's database and the job marked done in one transaction; another exit is a failed\n"
        "attempt. A database that stops answering is waited for (retried with backoff up to\n"
        "8 s). --once: one job, then exit; --drain: until no job is left that it can run and\n"
        "none runs on any worker (a running job may come back); default: wait, looking every\n"
        "--poll seconds (default 5). --quiet declares this host quiet (for jobs submitted with\n"
        "--quiet).\n"
        "SIGINT or SIGTERM stops the running verb, records the attempt as failed, and exits.\n"
        "The verb runs in a process group of its own and dies with the worker; when its job is\n"
        "canceled or taken over, or the worker is stopped, it is asked to stop and its group\n"
        "killed 5 s later. Before each claim the worker checks its host (a scratch folder can be\n"
        "made under --scratch with 32 MiB free, its gcratchet can be executed): a host that\n"
        "cannot run jobs pauses the worker (--once, --drain: stops it, exit 2) and spends no\n"
        "job's attempts; a job whose stored arguments cannot be read fails at its claim.\n",
    .exit_status = "0 stopped, drained or done with --once (whatever became of the jobs); 2 bad "
                   "arguments, a database error that waiting cannot mend (a newer queue schema), "
                   "or a host that cannot run jobs (--once, --drain; or a verb that could not be "
                   "started).",
    .options = worker_options,
    .run = worker_main,
};
