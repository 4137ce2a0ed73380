/*
 * gcratchet bisect — finds the commit that moved a figure: builds a collector at the commits
 * between a good and a bad end, measures each with the current harness, and narrows down as
 * git bisect does, deciding each step from the figure (bisect.h: exact or paired). Every step
 * is stored (store.h, bisects), so an interrupted bisect resumes where it stopped and a build
 * is made once per commit and build options. docs/bisect.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bisect.h"
#include "caps.h"
#include "buildinfo.h"
#include "cli.h"
#include "cmds.h"
#include "escape.h"
#include "gitrev.h"
#include "json.h"
#include "metrics.h"
#include "progress.h"
#include "quiet.h"
#include "session_opts.h"
#include "sha256.h"
#include "stats.h"
#include "store.h"

/* ---- What is bisected ------------------------------------------------------------------ */

enum bisect_source { BISECT_SRC_COLLECTOR, BISECT_SRC_DIR, BISECT_SRC_CMD };

/*
 * A build's time limit unless --build-timeout says otherwise: a build holds the bench lock
 * (and a worker's job), so one that hangs must not hold them for ever. A whole gcratchet
 * builds in a minute on a 2-core host; thirty leave room for a slow collector.
 */
#define BISECT_BUILD_TIMEOUT_S (30 * 60)
static const char *const bisect_source_names[] = {"collector", "collector-dir", "build-cmd"};

/* One probe of the search and what its ends measured. */
struct bisect_probe {
	char *name;
	int moved; /* it moved between the ends: the steps decide on it */
	int sign;  /* the way it moved: +1 up, -1 down */
	struct bisect_ends ends;
	double *good, *bad; /* the ends' values; paired mode: pairs by index */
	size_t ngood, nbad;
	char *good_sum, *bad_sum; /* the ends' checksums, NULL when they printed none */
};

/* One commit of the first-parent line. */
struct bisect_commit {
	char *hash, *subject;
	char *dir;        /* its build folder once built */
	char *reason;     /* why it was skipped, or NULL */
	double *value;    /* per probe: its figure (a paired step's median); NAN unknown */
	int64_t build_id; /* the store's, once measured */
};

struct bisect_ctx {
	const char *cmd;
	enum bisect_source source;
	char *repo;   /* the repository whose history is searched */
	char *target; /* the collector's name, the collector's folder, or the build command */
	char *subdir; /* collector-dir: the folder within repo ("" for its top) */
	char *name;   /* collector-dir: the folder's name, which builds are named after */
	struct strlist make_vars;
	struct bisect_commit *commits;
	size_t ncommits;
	struct bisect_probe *probes;
	size_t nprobes;
	char *metric;
	char size[48];
	int improved;
	struct bisect_rule rule;
	enum run_kind kind;
	int rounds, max_rounds, warmup;
	int build_timeout_s; /* a build's limit, 0: none */
	int exact;           /* the mode: 1 exact, 0 paired */
	char *root, *checkout, *cache, *command;
	struct session_opts base; /* how runs are made: timeout, jobs, lock, cpu, db */
	struct store *st;
	int64_t id;
	int seq;
	struct bisect_search search;
	struct store_bisect_step *steps; /* every step so far, stored */
	size_t nsteps;
	double build_s, measure_s;
	FILE *out; /* the running account: stdout, or stderr when the JSON goes there */
};

static volatile sig_atomic_t bisect_stop;

static void bisect_on_signal(int sig)
{
	(void)sig;
	if (bisect_stop < SIG_ATOMIC_MAX)
		bisect_stop++;
}

static double bisect_seconds(int64_t since_ns)
{
	return (double)(now_mono_ns() - since_ns) / 1e9;
}

static const char *bisect_short(const char *hash)
{
	static char buf[4][16];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, sizeof buf[0], "%.7s", hash ? hash : "");
	return b;
}

/* The words of a decision: git's terms, or old and new when looking for an improvement. */
static const char *bisect_word(const struct bisect_ctx *c, enum bisect_mark m)
{
	if (m == BISECT_GOOD)
		return c->improved ? "old" : "good";
	if (m == BISECT_BAD)
		return c->improved ? "new" : "bad";
	return bisect_mark_name(m);
}

/* ---- Running programs ------------------------------------------------------------------ */

/*
 * Runs argv in a process group of its own, stdin from /dev/null, stdout to out_path (NULL: to
 * the log) and stderr appended to log_path. An interrupt of ours, or timeout_s seconds passing
 * (0: no limit), ends the whole group (a build is many processes): SIGTERM, so that a build
 * script's traps remove its worktree, and SIGKILL five seconds later, and once more to what is
 * left of the group when its leader is gone. Returns the exit status, -1 with e when it could
 * not run or was killed by a signal, -2 when we interrupted it, -3 when it ran out of time.
 */
static int bisect_spawn(char *const argv[], const char *out_path, const char *log_path,
                        int timeout_s, struct err *e)
{
	int log_fd = -1, out_fd = -1, status = 0, killed = 0, timed_out = 0, rc = -1;
	int64_t kill_at = 0, deadline = 0;
	pid_t pid;

	log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		err_setc(e, ERR_IO, "%s: %s", log_path, strerror(errno));
		goto out;
	}
	if (out_path) {
		out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (out_fd < 0) {
			err_setc(e, ERR_IO, "%s: %s", out_path, strerror(errno));
			goto out;
		}
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err_setc(e, ERR_FAILED, "cannot start %s: %s", argv[0], strerror(errno));
		goto out;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		setpgid(0, 0);
		if (null >= 0)
			dup2(null, 0);
		dup2(out_fd >= 0 ? out_fd : log_fd, 1);
		dup2(log_fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	/* Both sides set the group, so that a kill right after the fork reaches it. */
	setpgid(pid, pid);
	if (timeout_s > 0)
		deadline = now_mono_ns() + (int64_t)timeout_s * INT64_C(1000000000);
	for (;;) {
		struct timespec tick = {0, 20 * 1000 * 1000};
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			err_setc(e, ERR_FAILED, "waiting for %s: %s", argv[0], strerror(errno));
			goto out;
		}
		if (!killed && deadline && now_mono_ns() > deadline)
			timed_out = 1;
		if ((bisect_stop || timed_out) && !killed) {
			kill(-pid, SIGTERM);
			killed = 1;
			kill_at = now_mono_ns() + INT64_C(5000000000);
		} else if (killed == 1 && now_mono_ns() > kill_at) {
			kill(-pid, SIGKILL);
			killed = 2;
		}
		nanosleep(&tick, NULL);
	}
	if (killed) {
		/* A process of the build that ignored SIGTERM must not outlive it. */
		kill(-pid, SIGKILL);
		rc = timed_out ? -3 : -2;
	} else if (WIFEXITED(status))
		rc = WEXITSTATUS(status);
	else
		err_setc(e, ERR_FAILED, "%s was killed by signal %d", argv[0], WTERMSIG(status));
out:
	if (out_fd >= 0)
		close(out_fd);
	if (log_fd >= 0)
		close(log_fd);
	return rc;
}

/* The line of a build log that says why it failed (bisect_log_reason), newly allocated; NULL
 * for an empty or unreadable log. */
static char *bisect_log_file_reason(const char *log_path)
{
	char *text = NULL, *line, *r = NULL;
	size_t len;
	struct err e;

	if (read_file(log_path, &text, &len, &e) != 0)
		return NULL;
	line = bisect_log_reason(text);
	if (line)
		r = xstrdup(line);
	free(text);
	return r;
}

/* ---- Resolving what is searched --------------------------------------------------------- */

/* realpath, or a copy when the path does not resolve (the caller reports it). */
static char *bisect_realpath(const char *path)
{
	char buf[PATH_MAX];

	return realpath(path, buf) ? xstrdup(buf) : xstrdup(path);
}

static int bisect_is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The repository holding `dir` (its top) and dir's place in it; prints why not (-1). */
static int bisect_repo_of(struct bisect_ctx *c, const char *opt, const char *dir, char **top,
                          char **prefix)
{
	struct sbuf out;
	int rc = -1;

	sbuf_init(&out);
	*top = NULL;
	if (prefix)
		*prefix = NULL;
	if (!bisect_is_dir(dir)) {
		cli_error(c->cmd, "%s %s: no such folder", opt, dir);
		goto out;
	}
	if (gitrev_run(dir, &out, "rev-parse", "--show-toplevel", NULL) != 0 || !out.len) {
		cli_error(c->cmd,
		          "%s %s: not inside a git repository (bisect searches its history)", opt,
		          dir);
		goto out;
	}
	*top = sbuf_detach(&out);
	if (prefix) {
		sbuf_init(&out);
		if (gitrev_run(dir, &out, "rev-parse", "--show-prefix", NULL) != 0) {
			cli_error(c->cmd, "%s %s: git cannot say where it is in %s", opt, dir,
			          *top);
			goto out;
		}
		if (out.len && out.data[out.len - 1] == '/')
			out.data[--out.len] = '\0';
		*prefix = sbuf_detach(&out);
	}
	rc = 0;
out:
	sbuf_release(&out);
	return rc;
}

/* The gcratchet checkout this build came from: its make rules build an outside collector. */
static int bisect_find_checkout(struct bisect_ctx *c, const char *opt)
{
	char *dir = xasprintf("%s/..", c->root), *mk;
	int rc = -1;

	c->checkout = bisect_realpath(dir);
	mk = xasprintf("%s/collectors/build.mk", c->checkout);
	if (access(mk, R_OK) != 0) {
		cli_error(
		    c->cmd,
		    "%s builds with the make rules of the gcratchet checkout it came from, and "
		    "%s is missing",
		    opt, mk);
		goto out;
	}
	rc = 0;
out:
	free(mk);
	free(dir);
	return rc;
}

/*
 * The commits from good to bad along bad's first parents, with their subjects: c[0] = good,
 * c[n-1] = bad. Refuses (printed, -1) what is not a commit, a good end that is not on the
 * bad end's first-parent line, and two ends that are one commit.
 */
static int bisect_resolve_commits(struct bisect_ctx *c, const char *good_rev, const char *bad_rev)
{
	struct sbuf good, bad, list, subj;
	char *range = NULL, *save = NULL, *line;
	int rc = -1;

	sbuf_init(&good);
	sbuf_init(&bad);
	sbuf_init(&list);
	sbuf_init(&subj);
	if (gitrev_commit_hash(c->repo, good_rev, &good) != 0) {
		cli_error(c->cmd, "--good %s is not a commit of %s", good_rev, c->repo);
		goto out;
	}
	if (gitrev_commit_hash(c->repo, bad_rev, &bad) != 0) {
		cli_error(c->cmd, "--bad %s is not a commit of %s", bad_rev, c->repo);
		goto out;
	}
	if (strcmp(good.data, bad.data) == 0) {
		cli_error(c->cmd, "--good %s and --bad %s are one commit (%s): nothing to search",
		          good_rev, bad_rev, bisect_short(good.data));
		goto out;
	}
	if (gitrev_run(c->repo, &list, "merge-base", "--is-ancestor", good.data, bad.data, NULL) !=
	    0) {
		cli_error(c->cmd,
		          "--good %s (%s) is not an ancestor of --bad %s (%s): the good end comes "
		          "first in the history",
		          good_rev, bisect_short(good.data), bad_rev, bisect_short(bad.data));
		goto out;
	}
	range = xasprintf("%s..%s", good.data, bad.data);
	if (gitrev_run(c->repo, &list, "log", "--first-parent", "--reverse", "--format=%H %P",
	               range, NULL) != 0 ||
	    gitrev_run(c->repo, &subj, "log", "-1", "--format=%s", good.data, NULL) != 0) {
		cli_error(c->cmd, "git log %s failed in %s", range, c->repo);
		goto out;
	}
	c->commits = xcalloc(1, sizeof *c->commits);
	c->commits[0].hash = xstrdup(good.data);
	c->commits[0].subject = sbuf_detach(&subj);
	c->ncommits = 1;
	for (line = strtok_r(list.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *parent = strchr(line, ' ');
		if (!parent)
			continue;
		*parent++ = '\0';
		/* A first-parent line from bad that does not come down to good: good is off it. */
		if (c->ncommits == 1 && strncmp(parent, good.data, strlen(good.data)) != 0) {
			cli_error(c->cmd,
			          "--good %s is not on the first-parent line of --bad %s: bisect "
			          "follows first parents (docs/bisect.md); give a good end on it",
			          good_rev, bad_rev);
			goto out;
		}
		c->commits = xrealloc(c->commits, (c->ncommits + 1) * sizeof *c->commits);
		memset(&c->commits[c->ncommits], 0, sizeof *c->commits);
		c->commits[c->ncommits++].hash = xstrdup(line);
	}
	if (c->ncommits < 2 || strcmp(c->commits[c->ncommits - 1].hash, bad.data) != 0) {
		cli_error(c->cmd, "git log %s in %s did not end at --bad %s", range, c->repo,
		          bad_rev);
		goto out;
	}
	for (size_t i = 1; i < c->ncommits; i++) {
		c->commits[i].subject = gitrev_subject(c->repo, c->commits[i].hash);
	}
	rc = 0;
out:
	free(range);
	sbuf_release(&good);
	sbuf_release(&bad);
	sbuf_release(&list);
	sbuf_release(&subj);
	return rc;
}

/* The probe names of a folder of probes/NN_name.c, sorted. */
static void bisect_list_probes(const char *dir, struct strlist *out)
{
	DIR *d = opendir(dir);
	struct dirent *ent;

	while (d && (ent = readdir(d)) != NULL) {
		size_t n = strlen(ent->d_name);
		if (n > 4 && ent->d_name[0] >= '0' && ent->d_name[0] <= '9' &&
		    ent->d_name[1] >= '0' && ent->d_name[1] <= '9' && ent->d_name[2] == '_' &&
		    strcmp(ent->d_name + n - 2, ".c") == 0) {
			char *name = xasprintf("%.*s", (int)(n - 2), ent->d_name);
			strlist_push(out, name);
			free(name);
		}
	}
	if (d)
		closedir(d);
	for (size_t i = 1; i < out->n; i++)
		for (size_t j = i; j > 0 && strcmp(out->items[j - 1], out->items[j]) > 0; j--) {
			char *t = out->items[j];
			out->items[j] = out->items[j - 1];
			out->items[j - 1] = t;
		}
}

/* Resolves the wanted probes against `available`: 0 with ctx->probes, or -1 (printed). */
static int bisect_set_probes(struct bisect_ctx *c, const struct strlist *wanted,
                             const struct strlist *available)
{
	c->probes = xcalloc(wanted->n, sizeof *c->probes);
	for (size_t i = 0; i < wanted->n; i++) {
		const char *name = cli_resolve_probe(c->cmd, wanted->items[i], available);
		if (!name)
			return -1;
		for (size_t j = 0; j < c->nprobes; j++)
			if (strcmp(c->probes[j].name, name) == 0) {
				cli_error(c->cmd, "--probe %s is named twice", name);
				return -1;
			}
		c->probes[c->nprobes++].name = xstrdup(name);
	}
	return 0;
}

static char *bisect_probe_list(const struct bisect_ctx *c, const char *sep)
{
	struct sbuf b;

	sbuf_init(&b);
	for (size_t i = 0; i < c->nprobes; i++)
		sbuf_addf(&b, "%s%s", i ? sep : "", c->probes[i].name);
	return sbuf_detach(&b);
}

/* ---- Builds, cached by commit and build options ---------------------------------------- */

static int bisect_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Feeds a file's name and bytes to the digest; a missing file is fed as missing. */
static void bisect_digest_file(struct sha256 *h, const char *path, const char *label)
{
	char *text = NULL;
	size_t len = 0;
	struct err e;

	sha256_update(h, label, strlen(label) + 1);
	if (read_file(path, &text, &len, &e) == 0)
		sha256_update(h, text, len);
	else
		sha256_update(h, "(missing)", 9);
	free(text);
}

/* Every regular file directly in checkout/sub, in name order. */
static void bisect_digest_folder(struct sha256 *h, const char *checkout, const char *sub)
{
	char *dir = xasprintf("%s/%s", checkout, sub);
	DIR *d = opendir(dir);
	struct dirent *ent;
	struct strlist names = {0};

	while (d && (ent = readdir(d)) != NULL)
		if (ent->d_name[0] != '.')
			strlist_push(&names, ent->d_name);
	if (d)
		closedir(d);
	qsort(names.items, names.n, sizeof *names.items, bisect_cmp_str);
	for (size_t i = 0; i < names.n; i++) {
		char *path = xasprintf("%s/%s", dir, names.items[i]);
		char *label = xasprintf("%s/%s", sub, names.items[i]);
		struct stat sb;
		if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
			bisect_digest_file(h, path, label);
		free(label);
		free(path);
	}
	strlist_release(&names);
	free(dir);
}

/*
 * The key of a commit's build folder: what makes the build what it is. The commit, the
 * source and its target, the build options and, for an outside collector, the probes built
 * and every file of the gcratchet checkout its build reads (the probes, their runtime, the
 * ABI header, the common code, the make rules): a change to any of them is another build.
 */
static void bisect_build_key(const struct bisect_ctx *c, const char *commit,
                             char key[SHA256_HEX_LEN + 1])
{
	static const char *const files[] = {"collectors/build.mk", "collectors/collector-dir.mk",
	                                    "collectors/quote.mk", "scripts/manifest.sh"};
	static const char *const folders[] = {"collectors/include", "collectors/common",
	                                      "probes/runtime"};
	struct sha256 h;

	sha256_init(&h);
	sha256_update(&h, "gcratchet-bisect-build 1", 25);
	sha256_update(&h, bisect_source_names[c->source], strlen(bisect_source_names[c->source]));
	sha256_update(&h, commit, strlen(commit) + 1);
	sha256_update(&h, c->target, strlen(c->target) + 1);
	for (size_t i = 0; i < c->make_vars.n; i++)
		sha256_update(&h, c->make_vars.items[i], strlen(c->make_vars.items[i]) + 1);
	if (c->source == BISECT_SRC_DIR) {
		sha256_update(&h, c->subdir, strlen(c->subdir) + 1);
		sha256_update(&h, c->name, strlen(c->name) + 1);
		for (size_t i = 0; i < c->nprobes; i++) {
			char *rel = xasprintf("probes/%s.c", c->probes[i].name);
			char *path = xasprintf("%s/%s", c->checkout, rel);
			bisect_digest_file(&h, path, rel);
			free(path);
			free(rel);
		}
		for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
			char *path = xasprintf("%s/%s", c->checkout, files[i]);
			bisect_digest_file(&h, path, files[i]);
			free(path);
		}
		for (size_t i = 0; i < sizeof folders / sizeof *folders; i++)
			bisect_digest_folder(&h, c->checkout, folders[i]);
	}
	sha256_final_hex(&h, key);
}

/* PROBE_SRCS=...: only the probes bisected are built (a build of one probe takes a second). */
static char *bisect_probe_srcs(const struct bisect_ctx *c, const char *prefix)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_addf(&b, "PROBE_SRCS=");
	for (size_t i = 0; i < c->nprobes; i++)
		sbuf_addf(&b, "%s%s%s.c", i ? " " : "", prefix, c->probes[i].name);
	return sbuf_detach(&b);
}

/*
 * Builds commit i, or finds its build in the cache. 0 with commits[i].dir (a build folder
 * that loads) and *cached; 1 when it does not build (commits[i].reason says why and where
 * the log is); -1 when the harness failed (printed); -2 when interrupted.
 */
static int bisect_build(struct bisect_ctx *c, size_t i, int *cached, double *secs)
{
	struct bisect_commit *cm = &c->commits[i];
	char key[SHA256_HEX_LEN + 1];
	char *dir = NULL, *log = NULL, *outp = NULL, *script = NULL, *why = NULL;
	char *manifest = NULL, *logs = NULL;
	char **argv = NULL;
	size_t argc = 0;
	struct buildinfo b;
	struct err e = ERR_INIT;
	int64_t t0 = now_mono_ns();
	int rc = -1, st;

	*cached = 0;
	*secs = 0;
	if (cm->dir)
		return 0;
	bisect_build_key(c, cm->hash, key);
	logs = xasprintf("%s/logs", c->cache);
	if (mkdir(c->cache, 0755) != 0 && errno != EEXIST) {
		cli_error(c->cmd, "cannot create the build cache %s: %s", c->cache,
		          strerror(errno));
		goto out;
	}
	if (mkdir(logs, 0755) != 0 && errno != EEXIST) {
		cli_error(c->cmd, "cannot create %s: %s", logs, strerror(errno));
		goto out;
	}
	log = xasprintf("%s/%s-%.12s.log", logs, bisect_short(cm->hash), key);
	argv = xcalloc(16 + c->make_vars.n, sizeof *argv);
	argv[argc++] = xstrdup("sh");
	if (c->source == BISECT_SRC_COLLECTOR) {
		/* build-rev.sh has its cache, keyed by tree and options; it says where. */
		script = cli_script_path(c->root, "build-rev.sh");
		outp = xasprintf("%s.out", log);
		argv[argc++] = xstrdup(script);
		argv[argc++] = xstrdup(cm->hash);
		argv[argc++] = xstrdup(c->target);
		argv[argc++] = bisect_probe_srcs(c, "probes/");
	} else {
		const char *kind = c->source == BISECT_SRC_DIR ? "dir" : "cmd";
		script = cli_script_path(c->root, "bisect-build.sh");
		dir = xasprintf("%s/%s@%s-%.12s", c->cache,
		                c->source == BISECT_SRC_DIR ? c->name : "cmd",
		                bisect_short(cm->hash), key);
		manifest = xasprintf("%s/manifest.json", dir);
		if (access(manifest, F_OK) == 0) {
			*cached = 1;
			goto load;
		}
		argv[argc++] = xstrdup(script);
		argv[argc++] = xstrdup(kind);
		argv[argc++] = xstrdup(c->repo);
		argv[argc++] = xstrdup(cm->hash);
		argv[argc++] = xstrdup(dir);
		argv[argc++] = xstrdup(c->checkout);
		if (c->source == BISECT_SRC_DIR) {
			char *name = xasprintf("%s@%s", c->name, bisect_short(cm->hash));
			char *prefix = xasprintf("%s/probes/", c->checkout);
			argv[argc++] = xstrdup(c->subdir);
			argv[argc++] = name;
			argv[argc++] = bisect_probe_srcs(c, prefix);
			free(prefix);
		} else {
			argv[argc++] = xstrdup(c->target);
		}
	}
	for (size_t k = 0; c->source != BISECT_SRC_CMD && k < c->make_vars.n; k++)
		argv[argc++] = xstrdup(c->make_vars.items[k]);
	if (access(script, R_OK) != 0) {
		cli_error(c->cmd, "%s is missing: it builds each commit", script);
		goto out;
	}
	/* A fresh log for each attempt: what it says is about this build. */
	if (truncate(log, 0) != 0 && errno != ENOENT) {
		cli_error(c->cmd, "%s: %s", log, strerror(errno));
		goto out;
	}
	st = bisect_spawn(argv, outp, log, c->build_timeout_s, &e);
	if (st == -2) {
		rc = -2;
		goto out;
	}
	if (st == -3) {
		cm->reason = xasprintf("build timed out after %d s (--build-timeout; log: %s)",
		                       c->build_timeout_s, log);
		rc = 1;
		goto out;
	}
	if (st == -1) {
		cli_error(c->cmd, "building %s: %s", bisect_short(cm->hash), e.msg);
		goto out;
	}
	if (st != 0) {
		why = bisect_log_file_reason(log);
		cm->reason =
		    xasprintf("does not build: %s (log: %s)", why ? why : "no output", log);
		rc = 1;
		goto out;
	}
	if (c->source == BISECT_SRC_COLLECTOR) {
		char *text = NULL, *last;
		size_t len;
		if (read_file(outp, &text, &len, &e) != 0) {
			cli_error(c->cmd, "%s", e.msg);
			goto out;
		}
		while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
			text[--len] = '\0';
		last = strrchr(text, '\n');
		dir = xstrdup(last ? last + 1 : text);
		/* build-rev says "reusing" when it built nothing. */
		free(text);
		text = NULL;
		if (read_file(log, &text, &len, &e) == 0)
			*cached = strstr(text, ": reusing ") != NULL;
		free(text);
	}
load:
	if (buildinfo_load(dir, &b, &e) != 0) {
		cm->reason = xasprintf("its build folder cannot be used: %s", e.msg);
		rc = 1;
		goto out;
	}
	buildinfo_release(&b);
	cm->dir = dir;
	dir = NULL;
	rc = 0;
out:
	*secs = bisect_seconds(t0);
	for (size_t k = 0; k < argc; k++)
		free(argv[k]);
	free(argv);
	free(dir);
	free(log);
	free(logs);
	free(outp);
	free(script);
	free(why);
	free(manifest);
	return rc;
}

/* ---- Measuring ------------------------------------------------------------------------- */

struct bisect_progress {
	struct progress *estimate;
	struct progress_display display; /* on stderr, as all of the running account's progress */
};

static void bisect_on_progress(void *ctx, const struct session_progress *p)
{
	struct bisect_progress *pr = ctx;

	progress_report(pr->estimate, p);
	progress_display_update(&pr->display, pr->estimate, p);
}

/* The meters that measure the metric: valgrind for Ir and the cache simulation, perf for an
 * event (which it names), and always rusage and the census. */
static void bisect_meters(const struct bisect_ctx *c, struct session_opts *o)
{
	free(o->meters);
	free(o->events);
	o->events = NULL;
	if (strncmp(c->metric, "cachesim.", 9) == 0)
		o->meters = xstrdup("rusage,census,valgrind,cachesim");
	else if (c->kind == RUN_KIND_VALGRIND)
		o->meters = xstrdup("rusage,census,valgrind");
	else if (strncmp(c->metric, "perf.", 5) == 0) {
		o->meters = xstrdup("rusage,census,perf");
		o->events = xstrdup(c->metric + 5);
	} else {
		o->meters = xstrdup("rusage,census");
	}
}

/*
 * One session of the builds of commits idx[0..narms-1] as arms, in that order: `n` measured
 * rounds, or n valgrind runs per probe and arm for a valgrind metric, of every probe
 * (all_probes: the ends) or those that moved. 0 with *session_id and the runs (released by the caller); -1 when the harness failed
 * (printed); -2 when interrupted (the session is kept).
 */
static int bisect_session(struct bisect_ctx *c, const size_t *idx, size_t narms, int n, int warmup,
                          int all_probes, const char *what, int64_t *session_id,
                          struct store_run **runs, size_t *nruns)
{
	struct session_opts o;
	struct session_setup s;
	struct session_outcome outcome;
	struct bisect_progress pr = {NULL, {0}};
	struct strlist probes = {0};
	struct err e = ERR_INIT;
	char *command = NULL;
	int rc = -1, r;

	*session_id = 0;
	*runs = NULL;
	*nruns = 0;
	session_setup_init(&s);
	/* Every run option given to bisect, whole; then what the search decides itself. */
	session_opts_copy(&o, &c->base);
	snprintf(o.size, sizeof o.size, "%s", c->size);
	bisect_meters(c, &o);
	for (size_t i = 0; i < c->nprobes; i++)
		if (all_probes || c->probes[i].moved)
			strlist_push(&probes, c->probes[i].name);
	free(o.probes);
	o.probes = strlist_join(&probes, ",");
	if (c->kind == RUN_KIND_VALGRIND) {
		o.rounds = 0;
		o.warmup = 0;
		o.valgrind_runs = o.valgrind_runs_max = n;
	} else {
		o.rounds = n;
		o.warmup = warmup;
	}
	o.have_seed = 0;
	for (size_t a = 0; a < narms; a++) {
		struct buildinfo b;
		if (buildinfo_load(c->commits[idx[a]].dir, &b, &e) != 0) {
			cli_error(c->cmd, "%s: %s", bisect_short(c->commits[idx[a]].hash), e.msg);
			goto out;
		}
		session_setup_add_arm(&s, &b, NULL);
	}
	command = xasprintf("%s (bisect %lld: %s)", c->command, (long long)c->id, what);
	if (session_setup_begin(c->cmd, &o, command, &s) != 0)
		goto out;
	pr.estimate = progress_new(&s.plan);
	progress_display_init(&pr.display, c->cmd, stderr, STDERR_FILENO, s.plan.stop);
	r = session_run(&s.plan, s.st, bisect_on_progress, &pr, &outcome, &e);
	progress_display_clear(&pr.display);
	if (r != 0) {
		cli_error(c->cmd, "%s%s", e.msg,
		          outcome.session_id ? " (runs stored so far are kept)" : "");
		goto out;
	}
	*session_id = outcome.session_id;
	if (outcome.interrupted) {
		bisect_stop = bisect_stop ? bisect_stop : 1;
		rc = -2;
		goto out;
	}
	if (store_runs_load(s.st, outcome.session_id, -1, runs, nruns, &e) != 0) {
		cli_error(c->cmd, "%s", e.msg);
		goto out;
	}
	rc = 0;
out:
	progress_free(pr.estimate);
	session_setup_end(&s);
	session_opts_release(&o);
	strlist_release(&probes);
	free(command);
	return rc;
}

/* What one arm's runs of one probe measured. */
struct bisect_values {
	double *v;
	int *key; /* the round of a timed run, the ordinal of a valgrind run: what pairs them */
	size_t n;
	char *failure;  /* the first run that was not ok, in words; NULL when none */
	char *checksum; /* the first ok run's, or NULL */
	int missing;    /* ok runs that did not report the metric */
};

static void bisect_values_release(struct bisect_values *v)
{
	free(v->v);
	free(v->key);
	free(v->failure);
	free(v->checksum);
	memset(v, 0, sizeof *v);
}

static void bisect_collect(const struct bisect_ctx *c, const struct store_run *runs, size_t n,
                           int arm, const char *probe, struct bisect_values *out)
{
	int ordinal = 0;

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < n; i++) {
		const struct store_run *r = &runs[i];
		const double *v;
		if (r->arm != arm || strcmp(r->probe, probe) != 0)
			continue;
		if (r->status != RUN_STATUS_OK) {
			if (!out->failure) {
				/* The detail says how it ended, with its stderr's words when it has any. */
				char *line =
				    r->detail ? NULL : run_stderr_first_line(r->stderr_tail);
				const char *why = r->detail ? r->detail : line;
				out->failure =
				    xasprintf("%s %s%s%s", probe, run_status_label(r->status),
				              why ? ": " : "", why ? why : "");
				free(line);
			}
			continue;
		}
		if (r->kind != c->kind || r->warmup)
			continue;
		if (!out->checksum && r->checksum)
			out->checksum = xstrdup(r->checksum);
		v = metric_set_get(&r->metrics, c->metric);
		if (!v) {
			out->missing++;
			continue;
		}
		out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
		out->key = xrealloc(out->key, (out->n + 1) * sizeof *out->key);
		out->v[out->n] = *v;
		out->key[out->n++] = c->kind == RUN_KIND_VALGRIND ? ordinal++ : r->round;
	}
}

/* Appends the pairs of a and b (matched by key) to *ga and *gb. */
static void bisect_pairs(const struct bisect_values *a, const struct bisect_values *b, double **ga,
                         double **gb, size_t *n)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			if (a->key[i] == b->key[j]) {
				*ga = xrealloc(*ga, (*n + 1) * sizeof **ga);
				*gb = xrealloc(*gb, (*n + 1) * sizeof **gb);
				(*ga)[*n] = a->v[i];
				(*gb)[*n] = b->v[j];
				(*n)++;
				break;
			}
}

/* Why an arm's values cannot be used, or NULL when they can; newly allocated. */
static char *bisect_unusable(const struct bisect_ctx *c, const struct bisect_values *v,
                             const char *probe, const struct bisect_probe *p)
{
	if (v->failure)
		return xstrdup(v->failure);
	if (v->n == 0)
		return xasprintf("%s reported no %s", probe, c->metric);
	/* A wrong result's figures say nothing of the change: it is another program's. */
	if (p && bisect_checksum_wrong(v->checksum, p->good_sum, p->bad_sum))
		return xasprintf("%s printed checksum %s, not the ends' %s: a wrong result", probe,
		                 v->checksum, p->good_sum ? p->good_sum : p->bad_sum);
	return NULL;
}

static char *bisect_session_list(const int64_t *ids, size_t n)
{
	struct sbuf b;

	sbuf_init(&b);
	for (size_t i = 0; i < n; i++)
		sbuf_addf(&b, "%s%lld", i ? " " : "", (long long)ids[i]);
	return sbuf_detach(&b);
}

/* ---- Steps: stored, applied and printed ------------------------------------------------- */

static size_t bisect_commit_index(const struct bisect_ctx *c, const char *hash)
{
	for (size_t i = 0; i < c->ncommits; i++)
		if (strcmp(c->commits[i].hash, hash) == 0)
			return i;
	return SIZE_MAX;
}

static ssize_t bisect_probe_index(const struct bisect_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->nprobes; i++)
		if (strcmp(c->probes[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

/* "1% (at least 1000)", "10% (at least 2 ms)", "3", "any change". */
static void bisect_threshold_text(const struct bisect_ctx *c, char *buf, size_t size)
{
	char pct[16], abs[24];

	metrics_format_pct(c->rule.pct, pct, sizeof pct);
	metrics_format_value(c->metric, c->rule.abs, abs, sizeof abs);
	if (c->rule.pct > 0 && c->rule.abs > 0)
		snprintf(buf, size, "%s%% (at least %s)", pct, abs);
	else if (c->rule.pct > 0)
		snprintf(buf, size, "%s%%", pct);
	else if (c->rule.abs > 0)
		snprintf(buf, size, "%s", abs);
	else
		snprintf(buf, size, "any change");
}

static double bisect_pct(double v, double base)
{
	return base != 0 ? 100 * (v - base) / fabs(base) : NAN;
}

/* "+2.20%", or "+1" from a figure of 0, where no percentage exists. */
static void bisect_change_text(const struct bisect_ctx *c, double before, double after, char *buf,
                               size_t size)
{
	char v[24];
	double pct = bisect_pct(after, before);

	if (isfinite(pct)) {
		snprintf(buf, size, "%+.2f%%", pct);
		return;
	}
	metrics_format_value(c->metric, fabs(after - before), v, sizeof v);
	snprintf(buf, size, "%s%s", after < before ? "-" : "+", v);
}

static void bisect_add_number(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* The figures of one probe of a step, as a member of `figures` (created when NULL). */
static cJSON *bisect_figure(cJSON **figures, const char *probe)
{
	cJSON *o = cJSON_CreateObject();

	if (!*figures)
		*figures = cJSON_CreateObject();
	cJSON_AddItemToObject(*figures, probe, o);
	return o;
}

/*
 * Takes a step into the search: its mark, its commit's build and figures (the figure of each
 * probe: "value", or an end's "median"), and for the ends what each probe measured there.
 * The same for a step just measured and one read back by --resume.
 */
static void bisect_apply(struct bisect_ctx *c, const struct store_bisect_step *st)
{
	size_t i = bisect_commit_index(c, st->commit);
	enum bisect_mark m = BISECT_SKIP;
	cJSON *root = NULL, *item;
	struct err e;

	if (i == SIZE_MAX)
		return;
	bisect_mark_parse(st->decision, &m);
	if (strcmp(st->role, "step") == 0)
		bisect_search_mark(&c->search, i, m);
	/* A build folder the cache has lost since is built again when it is needed. */
	if (st->build_dir && !c->commits[i].dir) {
		char *manifest = xasprintf("%s/manifest.json", st->build_dir);
		if (access(manifest, R_OK) == 0)
			c->commits[i].dir = xstrdup(st->build_dir);
		free(manifest);
	}
	c->commits[i].build_id = st->build_id;
	if (st->reason && !c->commits[i].reason)
		c->commits[i].reason = xstrdup(st->reason);
	if (!st->figures || json_parse(st->figures, strlen(st->figures), "figures", &root, &e) != 0)
		return;
	cJSON_ArrayForEach(item, root)
	{
		ssize_t p = bisect_probe_index(c, item->string);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, "value");
		const cJSON *values = cJSON_GetObjectItemCaseSensitive(item, "values");
		const cJSON *sum = cJSON_GetObjectItemCaseSensitive(item, "checksum");
		struct bisect_probe *pr;
		const cJSON *x;
		double **dst;
		size_t *ndst;
		if (p < 0)
			continue;
		pr = &c->probes[p];
		if (!v)
			v = cJSON_GetObjectItemCaseSensitive(item, "median");
		if (cJSON_IsNumber(v))
			c->commits[i].value[p] = v->valuedouble;
		if (strcmp(st->role, "step") == 0)
			continue;
		dst = strcmp(st->role, "good") == 0 ? &pr->good : &pr->bad;
		ndst = strcmp(st->role, "good") == 0 ? &pr->ngood : &pr->nbad;
		free(*dst);
		*dst = NULL;
		*ndst = 0;
		cJSON_ArrayForEach(x, values)
		{
			if (!cJSON_IsNumber(x))
				continue;
			*dst = xrealloc(*dst, (*ndst + 1) * sizeof **dst);
			(*dst)[(*ndst)++] = x->valuedouble;
		}
		if (cJSON_IsString(sum)) {
			char **s = strcmp(st->role, "good") == 0 ? &pr->good_sum : &pr->bad_sum;
			free(*s);
			*s = xstrdup(sum->valuestring);
		}
		if (strcmp(st->role, "bad") == 0) {
			const cJSON *moved = cJSON_GetObjectItemCaseSensitive(item, "moved");
			const cJSON *sign = cJSON_GetObjectItemCaseSensitive(item, "sign");
			pr->moved = cJSON_IsTrue(moved);
			pr->sign = cJSON_IsNumber(sign) && sign->valuedouble < 0 ? -1 : 1;
		}
	}
	cJSON_Delete(root);
}

/* One line of the running account: "[3] 1a2b3c4 bad   01_nursery_churn 37 (+2.78%) ...". */
static void bisect_print_step(const struct bisect_ctx *c, const struct store_bisect_step *st,
                              int stored)
{
	enum bisect_mark m = BISECT_SKIP;
	struct sbuf b;
	cJSON *root = NULL, *item;
	struct err e;
	char *label;

	bisect_mark_parse(st->decision, &m);
	sbuf_init(&b);
	label = strcmp(st->role, "step") == 0
	            ? xasprintf("[%d]", st->seq - 2)
	            : xasprintf("[%s]", bisect_word(c, strcmp(st->role, "good") == 0 ? BISECT_GOOD
	                                                                             : BISECT_BAD));
	sbuf_addf(&b, "%-6s %s %-5s", label, bisect_short(st->commit),
	          strcmp(st->role, "step") == 0 ? bisect_word(c, m) : "");
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
	fprintf(c->out, "%s\n", b.data);
	if (st->reason && m == BISECT_SKIP)
		fprintf(c->out, "       skipped: %s\n", cli_safe(st->reason));
	fflush(c->out);
	sbuf_release(&b);
}

/*
 * Stores a step (the ends too), keeps it, takes it into the search and prints it. The
 * figures (a JSON object, NULL for none) are consumed. -1 (printed) when the store failed.
 */
static int bisect_record(struct bisect_ctx *c, const char *role, size_t i, enum bisect_mark m,
                         const char *reason, const int64_t *sessions, size_t nsessions,
                         cJSON *figures, double build_s, double measure_s, const char *started)
{
	struct store_bisect_step st, *keep;
	struct buildinfo b;
	struct err e = ERR_INIT;
	int rc = -1;

	memset(&st, 0, sizeof st);
	st.bisect_id = c->id;
	st.seq = ++c->seq;
	st.role = xstrdup(role);
	st.commit = xstrdup(c->commits[i].hash);
	st.subject = c->commits[i].subject ? xstrdup(c->commits[i].subject) : NULL;
	st.decision = xstrdup(bisect_mark_name(m));
	st.reason = reason ? xstrdup(reason) : NULL;
	st.build_dir = c->commits[i].dir ? xstrdup(c->commits[i].dir) : NULL;
	st.sessions = nsessions ? bisect_session_list(sessions, nsessions) : NULL;
	st.figures = figures ? cJSON_PrintUnformatted(figures) : NULL;
	st.build_s = build_s;
	st.measure_s = measure_s;
	st.started_at = xstrdup(started);
	/* The build as the store knows it: the sessions stored it by its manifest. */
	st.build_id = c->commits[i].build_id;
	if (!st.build_id && nsessions && c->commits[i].dir &&
	    buildinfo_load(c->commits[i].dir, &b, &e) == 0) {
		struct store_build *builds = NULL;
		size_t nb = 0;
		if (store_session_builds(c->st, sessions[nsessions - 1], &builds, &nb, &e) == 0)
			for (size_t k = 0; k < nb; k++)
				if (strcmp(builds[k].manifest_hash, b.manifest_hash) == 0)
					st.build_id = builds[k].id;
		store_builds_release(builds, nb);
		buildinfo_release(&b);
	}
	if (store_bisect_step_insert(c->st, &st, &e) != 0) {
		cli_error(c->cmd, "%s", e.msg);
		goto out;
	}
	c->steps = xrealloc(c->steps, (c->nsteps + 1) * sizeof *c->steps);
	keep = &c->steps[c->nsteps++];
	*keep = st;
	bisect_apply(c, keep);
	bisect_print_step(c, keep, 0);
	if (strcmp(role, "step") == 0) {
		c->build_s += build_s;
		c->measure_s += measure_s;
	}
	rc = 0;
out:
	if (rc != 0) {
		free(st.role);
		free(st.commit);
		free(st.subject);
		free(st.decision);
		free(st.reason);
		free(st.build_dir);
		free(st.sessions);
		free(st.figures);
		free(st.started_at);
	}
	cJSON_Delete(figures);
	return rc;
}

/* ---- The ends -------------------------------------------------------------------------- */

/* Builds commit i for an end, which must build: 0, or the exit status (printed). */
static int bisect_build_end(struct bisect_ctx *c, size_t i, const char *role, double *secs)
{
	int cached, r = bisect_build(c, i, &cached, secs);

	if (r == 0) {
		fprintf(stderr, "gcratchet %s: %s end %s: %s (%.1f s)\n", c->cmd,
		        bisect_word(c, strcmp(role, "good") == 0 ? BISECT_GOOD : BISECT_BAD),
		        bisect_short(c->commits[i].hash), cached ? "build reused" : "built", *secs);
		return EXIT_OK;
	}
	if (r == 1)
		cli_error(c->cmd, "the %s end %s does not build, so nothing can be bisected: %s",
		          bisect_word(c, strcmp(role, "good") == 0 ? BISECT_GOOD : BISECT_BAD),
		          bisect_short(c->commits[i].hash), c->commits[i].reason);
	if (r == -2)
		cli_error(c->cmd, "interrupted while building the %s end", role);
	return EXIT_UNJUDGED;
}

/* Fills one end's figure of probe p: its values, median and checksum. */
static void bisect_end_figure(cJSON *o, const double *v, size_t n, const char *sum)
{
	cJSON_AddItemToObject(o, "values", cJSON_CreateDoubleArray(v, (int)n));
	bisect_add_number(o, "median", n ? stats_median(v, n) : NAN);
	cJSON_AddItemToObject(o, "checksum", escape_json_string(sum));
}

/*
 * Why the ends do not make a search: for each probe what it did. Newly allocated; the caller
 * has found that no probe moved.
 */
static char *bisect_unmoved_text(const struct bisect_ctx *c, const struct bisect_paired *paired)
{
	struct sbuf b;
	char thr[64];

	bisect_threshold_text(c, thr, sizeof thr);
	sbuf_init(&b);
	for (size_t i = 0; i < c->nprobes; i++) {
		const struct bisect_probe *p = &c->probes[i];
		double g = p->ngood ? stats_median(p->good, p->ngood) : NAN;
		double bad = p->nbad ? stats_median(p->bad, p->nbad) : NAN;
		char gs[24], bs[24], ch[32];
		metrics_format_value(c->metric, g, gs, sizeof gs);
		metrics_format_value(c->metric, bad, bs, sizeof bs);
		bisect_change_text(c, g, bad, ch, sizeof ch);
		sbuf_addf(&b, "%s%s %s -> %s (%s)", i ? "; " : "", p->name, gs, bs, ch);
		if (paired && paired[i].answer == BISECT_ANSWER_CANNOT_TELL)
			sbuf_addf(&b, ": cannot tell after %zu rounds whether it moved beyond %s",
			          paired[i].cell.n, thr);
		else if (c->rule.want && (bad - g) * c->rule.want < 0 &&
		         fabs(bad - g) > bisect_allowance(&c->rule, g))
			sbuf_addf(&b, ": it moved the other way%s",
			          c->improved ? " (without --improved bisect "
			                        "looks for that)"
			                      : " (--improved looks for that)");
		else
			sbuf_addf(&b, ": within the threshold %s", thr);
	}
	return sbuf_detach(&b);
}

/*
 * Builds and measures the two ends and decides the mode: exact when the metric's class is
 * and each end, measured twice, repeated itself; paired otherwise, the ends measured in
 * batches until each probe is decided or the budget is spent. 0 with the ends recorded and
 * the probes that moved known; 1 when they do not make a search (*detail says why); -1 when
 * the harness failed; -2 when interrupted.
 */
/*
 * "the bad end's census says clock_paced" when a census metric is bisected and a build of the
 * ends' session says its census varies (caps.h): its counters are then judged by paired runs,
 * never compared exactly. NULL otherwise; static storage.
 */
static const char *bisect_census_varies(struct bisect_ctx *c, int64_t sid)
{
	struct store_build *builds = NULL;
	size_t nb = 0;
	const char *says = NULL;
	struct err e = {0};

	if (!sid || !metrics_is_census(c->metric) ||
	    store_session_builds(c->st, sid, &builds, &nb, &e) != 0)
		return NULL;
	for (size_t i = 0; i < nb && !says; i++) {
		struct caps caps;
		struct err pe = {0};
		if (caps_parse_text(builds[i].capabilities, "capabilities", &caps, &pe) == 0 &&
		    caps_census_varies(&caps))
			says = caps_clock_paced(&caps) ? "the build says clock_paced"
			                               : "the build says it is not precise";
	}
	store_builds_release(builds, nb);
	return says;
}

static int bisect_ends(struct bisect_ctx *c, char **detail)
{
	size_t ends[2] = {0, c->ncommits - 1};
	int64_t *sessions = NULL;
	size_t nsessions = 0;
	struct bisect_paired *paired = xcalloc(c->nprobes, sizeof *paired);
	double bsecs[2] = {0, 0}, msecs = 0;
	char started[32], thr[64];
	cJSON *fig[2] = {NULL, NULL};
	struct err e = ERR_INIT;
	int rc = -1, r, nmoved = 0, total = 0, unsure = 0;

	*detail = NULL;
	format_utc(now_real_ns(), started, sizeof started);
	for (int k = 0; k < 2; k++) {
		if (bisect_build_end(c, ends[k], k ? "bad" : "good", &bsecs[k]) != EXIT_OK) {
			rc = c->commits[ends[k]].reason ? 1 : bisect_stop ? -2 : -1;
			if (rc == 1)
				*detail = xasprintf("the %s end %s does not build: %s",
				                    k ? "bad" : "good",
				                    bisect_short(c->commits[ends[k]].hash),
				                    c->commits[ends[k]].reason);
			goto out;
		}
	}
	bisect_threshold_text(c, thr, sizeof thr);
	c->exact = c->rule.pol.exact;
	/* Exact only if each end repeats itself: measured twice, the same twice. */
	while (1) {
		int n = c->exact ? 2 : bisect_batch(c->rounds, c->max_rounds, total);
		int64_t t0 = now_mono_ns(), sid = 0;
		struct store_run *runs = NULL;
		size_t nruns = 0;
		int more = 0;

		r = bisect_session(c, ends, 2, n, c->exact ? 0 : c->warmup, 1,
		                   c->exact ? "the ends, twice each" : "the ends, paired", &sid,
		                   &runs, &nruns);
		msecs += bisect_seconds(t0);
		if (sid) {
			sessions = xrealloc(sessions, (nsessions + 1) * sizeof *sessions);
			sessions[nsessions++] = sid;
		}
		if (r != 0) {
			store_runs_release(runs, nruns);
			rc = r;
			goto out;
		}
		total += n;
		for (size_t i = 0; i < c->nprobes && !*detail; i++) {
			struct bisect_probe *p = &c->probes[i];
			struct bisect_values v[2];
			char *why[2];
			bisect_collect(c, runs, nruns, 0, p->name, &v[0]);
			bisect_collect(c, runs, nruns, 1, p->name, &v[1]);
			for (int k = 0; k < 2; k++) {
				why[k] = bisect_unusable(c, &v[k], p->name, NULL);
				if (why[k] && !*detail)
					*detail = xasprintf("the %s end %s cannot be measured: %s",
					                    k ? "bad" : "good",
					                    bisect_short(c->commits[ends[k]].hash),
					                    why[k]);
				free(why[k]);
			}
			if (!*detail) {
				if (!p->good_sum && v[0].checksum)
					p->good_sum = xstrdup(v[0].checksum);
				if (!p->bad_sum && v[1].checksum)
					p->bad_sum = xstrdup(v[1].checksum);
				if (c->exact) {
					free(p->good);
					free(p->bad);
					p->good = p->bad = NULL;
					p->ngood = p->nbad = 0;
				}
				bisect_pairs(&v[0], &v[1], &p->good, &p->bad, &p->ngood);
				p->nbad = p->ngood;
			}
			bisect_values_release(&v[0]);
			bisect_values_release(&v[1]);
		}
		store_runs_release(runs, nruns);
		if (*detail) {
			rc = 1;
			goto out;
		}
		if (c->exact) {
			const char *says = bisect_census_varies(c, sid);
			struct bisect_ends *ends_of = xcalloc(c->nprobes, sizeof *ends_of);
			int repeats;
			for (size_t i = 0; i < c->nprobes; i++) {
				struct bisect_probe *p = &c->probes[i];
				bisect_ends_exact(&c->rule, p->good, p->ngood, p->bad, p->nbad,
				                  &p->ends);
				ends_of[i] = p->ends;
			}
			repeats = bisect_exact_holds(ends_of, c->nprobes, says != NULL);
			free(ends_of);
			if (says) {
				fprintf(
				    c->out,
				    "%s: %s, so its counters are never exact: deciding by paired "
				    "runs\n",
				    c->metric, says);
				c->rule.pol.varies = 1;
			}
			if (repeats)
				break;
			/* Not exact after all: a conservative collector's Ir, a JIT's counts. */
			for (size_t i = 0; i < c->nprobes; i++) {
				struct bisect_probe *p = &c->probes[i];
				if (!p->ends.repeats && !says)
					fprintf(c->out,
					        "%s of %s did not repeat itself at %s: deciding by "
					        "paired "
					        "runs\n",
					        c->metric, p->name,
					        p->ngood >= 2 && p->good[0] != p->good[1]
					            ? "the good end"
					            : "the bad end");
				free(p->good);
				free(p->bad);
				p->good = p->bad = NULL;
				p->ngood = p->nbad = 0;
			}
			c->exact = 0;
			total = 0;
			continue;
		}
		/* Paired: decide each probe at this look; another batch while any needs one. */
		for (size_t i = 0; i < c->nprobes; i++) {
			struct bisect_probe *p = &c->probes[i];
			int sign;
			double alpha = bisect_look_side(
			    &c->rule, bisect_look_alpha(c->rounds, c->max_rounds, c->nprobes),
			    p->good, p->bad, p->ngood, &sign);
			bisect_decide_paired(&c->rule, sign, p->good, p->bad, p->ngood, alpha,
			                     total >= c->max_rounds, &paired[i]);
			p->sign = sign;
			more |= paired[i].answer == BISECT_ANSWER_MORE;
		}
		if (!more)
			break;
	}
	for (size_t i = 0; i < c->nprobes; i++) {
		struct bisect_probe *p = &c->probes[i];
		cJSON *g, *b;
		if (c->exact) {
			p->moved = p->ends.moved;
			p->sign = p->ends.sign;
		} else {
			p->moved = paired[i].answer == BISECT_ANSWER_BAD;
			unsure |= paired[i].answer == BISECT_ANSWER_CANNOT_TELL;
		}
		nmoved += p->moved;
		g = bisect_figure(&fig[0], p->name);
		b = bisect_figure(&fig[1], p->name);
		bisect_end_figure(g, p->good, p->ngood, p->good_sum);
		bisect_end_figure(b, p->bad, p->nbad, p->bad_sum);
		bisect_add_number(
		    b, "delta_pct",
		    bisect_pct(stats_median(p->bad, p->nbad), stats_median(p->good, p->ngood)));
		cJSON_AddBoolToObject(b, "moved", p->moved);
		cJSON_AddNumberToObject(b, "sign", p->sign < 0 ? -1 : 1);
		if (!c->exact)
			cJSON_AddNumberToObject(b, "n", (double)p->ngood);
	}
	r = bisect_record(c, "good", ends[0], BISECT_GOOD, NULL, sessions, nsessions, fig[0],
	                  bsecs[0], msecs, started);
	fig[0] = NULL;
	if (r != 0)
		goto out;
	r = bisect_record(c, "bad", ends[1], BISECT_BAD, NULL, sessions, nsessions, fig[1],
	                  bsecs[1], 0, started);
	fig[1] = NULL;
	if (r != 0)
		goto out;
	if (nmoved == 0) {
		char *why = bisect_unmoved_text(c, c->exact ? NULL : paired);
		*detail = xasprintf("%s %s between the ends: %s", c->metric,
		                    unsure ? "cannot be told to have moved" : "did not move", why);
		free(why);
		rc = 1;
		goto out;
	}
	if (c->exact)
		fprintf(
		    c->out,
		    "exact: each end repeated itself; one run of each commit decides: %s when %s "
		    "moved %s%s, the way the ends moved\n",
		    bisect_word(c, BISECT_BAD), c->metric,
		    c->rule.pct > 0 || c->rule.abs > 0 ? "by more than " : "at all",
		    c->rule.pct > 0 || c->rule.abs > 0 ? thr : "");
	else
		fprintf(
		    c->out,
		    "paired: each commit runs interleaved with the %s end, %d rounds at a time up "
		    "to %d; %s when %s moved beyond %s, shown at %.3g a look; otherwise \"cannot "
		    "tell\" (skipped)\n",
		    bisect_word(c, BISECT_GOOD), c->rounds, c->max_rounds,
		    bisect_word(c, BISECT_BAD), c->metric, thr,
		    bisect_look_alpha(c->rounds, c->max_rounds, (size_t)nmoved));
	for (size_t i = 0; i < c->nprobes; i++)
		if (!c->probes[i].moved)
			fprintf(c->out, "%s did not move between the ends: left out\n",
			        c->probes[i].name);
	/* The mode is what the steps are judged by: a resume must judge them alike. */
	if (store_bisect_update(c->st, c->id, "running", c->exact ? "exact" : "paired", NULL, NULL,
	                        &e) != 0) {
		cli_error(c->cmd, "%s", e.msg);
		goto out;
	}
	rc = 0;
out:
	cJSON_Delete(fig[0]);
	cJSON_Delete(fig[1]);
	free(sessions);
	free(paired);
	return rc;
}

/* ---- A step ---------------------------------------------------------------------------- */

/* How many of the moved probes there are: the family a paired step's level is shared by. */
static size_t bisect_nmoved(const struct bisect_ctx *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nprobes; i++)
		n += c->probes[i].moved != 0;
	return n;
}

/* Exact mode: one run of commit i decides. 0 with *m and the figures; see bisect_step. */
static int bisect_step_exact(struct bisect_ctx *c, size_t i, enum bisect_mark *m, char **reason,
                             cJSON **figures, int64_t *sid)
{
	struct store_run *runs = NULL;
	size_t nruns = 0, idx[1] = {i};
	char what[64];
	int r;

	snprintf(what, sizeof what, "step %d, %s", c->seq - 1, bisect_short(c->commits[i].hash));
	r = bisect_session(c, idx, 1, 1, 0, 0, what, sid, &runs, &nruns);
	if (r != 0)
		return r;
	*m = BISECT_GOOD;
	for (size_t p = 0; p < c->nprobes && !*reason; p++) {
		struct bisect_probe *pr = &c->probes[p];
		struct bisect_values v;
		cJSON *o;
		if (!pr->moved)
			continue;
		bisect_collect(c, runs, nruns, 0, pr->name, &v);
		*reason = bisect_unusable(c, &v, pr->name, pr);
		if (!*reason) {
			o = bisect_figure(figures, pr->name);
			bisect_add_number(o, "value", v.v[0]);
			bisect_add_number(o, "delta_pct", bisect_pct(v.v[0], pr->ends.good));
			if (bisect_decide_exact(&pr->ends, v.v[0]) == BISECT_BAD)
				*m = BISECT_BAD;
		}
		bisect_values_release(&v);
	}
	if (*reason)
		*m = BISECT_SKIP;
	store_runs_release(runs, nruns);
	return 0;
}

/*
 * Paired mode: batches of commit i interleaved with the good end until every moved probe is
 * decided, one is bad, or the budget is spent ("cannot tell": a skip). Sessions go to *sids.
 */
static int bisect_step_paired(struct bisect_ctx *c, size_t i, enum bisect_mark *m, char **reason,
                              cJSON **figures, int64_t **sids, size_t *nsids)
{
	size_t np = c->nprobes, idx[2] = {0, i};
	double **g = xcalloc(np, sizeof *g), **v = xcalloc(np, sizeof *v);
	size_t *n = xcalloc(np, sizeof *n);
	struct bisect_paired *paired = xcalloc(np, sizeof *paired);
	enum bisect_answer *answers = xcalloc(np, sizeof *answers), step = BISECT_ANSWER_MORE;
	double alpha = bisect_look_alpha(c->rounds, c->max_rounds, bisect_nmoved(c));
	int total = 0, rc = -1, k = 0;
	char thr[64];

	bisect_threshold_text(c, thr, sizeof thr);
	while (step == BISECT_ANSWER_MORE && !*reason) {
		int batch = bisect_batch(c->rounds, c->max_rounds, total);
		struct store_run *runs = NULL;
		size_t nruns = 0, na = 0;
		int64_t sid = 0;
		char what[64];
		int r;

		snprintf(what, sizeof what, "step %d, %s, rounds %d-%d", c->seq - 1,
		         bisect_short(c->commits[i].hash), total + 1, total + batch);
		r = bisect_session(c, idx, 2, batch, c->warmup, 0, what, &sid, &runs, &nruns);
		if (sid) {
			*sids = xrealloc(*sids, (*nsids + 1) * sizeof **sids);
			(*sids)[(*nsids)++] = sid;
		}
		if (r != 0) {
			store_runs_release(runs, nruns);
			rc = r;
			goto out;
		}
		total += batch;
		for (size_t p = 0; p < np && !*reason; p++) {
			struct bisect_probe *pr = &c->probes[p];
			struct bisect_values good, mine;
			char *why;
			if (!pr->moved)
				continue;
			bisect_collect(c, runs, nruns, 0, pr->name, &good);
			bisect_collect(c, runs, nruns, 1, pr->name, &mine);
			*reason = bisect_unusable(c, &mine, pr->name, pr);
			if (!*reason && (why = bisect_unusable(c, &good, pr->name, pr)) != NULL) {
				*reason = xasprintf("the good end's run failed beside it: %s", why);
				free(why);
			}
			if (!*reason) {
				bisect_pairs(&good, &mine, &g[p], &v[p], &n[p]);
				bisect_decide_paired(&c->rule, pr->sign, g[p], v[p], n[p], alpha,
				                     total >= c->max_rounds, &paired[p]);
				answers[na++] = paired[p].answer;
			}
			bisect_values_release(&good);
			bisect_values_release(&mine);
		}
		store_runs_release(runs, nruns);
		if (!*reason)
			step = bisect_combine(answers, na);
	}
	for (size_t p = 0; p < np; p++) {
		const struct bisect_paired *pp = &paired[p];
		cJSON *o;
		if (!c->probes[p].moved || n[p] == 0)
			continue;
		o = bisect_figure(figures, c->probes[p].name);
		bisect_add_number(o, "value", pp->cell.fix_median);
		bisect_add_number(o, "good", pp->cell.base_median);
		bisect_add_number(o, "delta_pct", pp->cell.delta_pct);
		cJSON_AddNumberToObject(o, "n", (double)n[p]);
		bisect_add_number(o, "ci_lo", pp->cell.ci.lo);
		bisect_add_number(o, "ci_hi", pp->cell.ci.hi);
		bisect_add_number(o, "p", pp->p);
		cJSON_AddStringToObject(o, "answer", bisect_answer_name(pp->answer));
	}
	*m = *reason ? BISECT_SKIP : bisect_answer_mark(step);
	if (!*reason && *m == BISECT_SKIP) {
		struct sbuf b;
		sbuf_init(&b);
		sbuf_addf(&b, "cannot tell after %d rounds whether it moved beyond %s:", total,
		          thr);
		for (size_t p = 0; p < np; p++) {
			const struct bisect_paired *pp = &paired[p];
			char lo[24], hi[24];
			if (!c->probes[p].moved || pp->answer != BISECT_ANSWER_CANNOT_TELL)
				continue;
			metrics_format_value(c->metric, pp->cell.ci.lo, lo, sizeof lo);
			metrics_format_value(c->metric, pp->cell.ci.hi, hi, sizeof hi);
			sbuf_addf(&b,
			          "%s %s %+.2f%%, its median delta %s to %s at %.0f%% confidence",
			          k++ ? ";" : "", c->probes[p].name, pp->cell.delta_pct, lo, hi,
			          100 * pp->cell.ci.level);
		}
		*reason = sbuf_detach(&b);
	}
	rc = 0;
out:
	for (size_t p = 0; p < np; p++) {
		free(g[p]);
		free(v[p]);
	}
	free(g);
	free(v);
	free(n);
	free(paired);
	free(answers);
	return rc;
}

/*
 * Builds and measures commit i and records what it showed: bad, good or skip (did not build,
 * its probe failed, cannot tell). 0, or -1 when the harness failed (printed), -2 when
 * interrupted (nothing of this step is recorded; its sessions are kept).
 */
static int bisect_step(struct bisect_ctx *c, size_t i)
{
	enum bisect_mark m = BISECT_SKIP;
	char *reason = NULL, started[32];
	const char *why;
	cJSON *figures = NULL;
	int64_t *sids = NULL, t0;
	size_t nsids = 0;
	double build_s = 0, measure_s = 0;
	int cached = 0, r, rc = -1;

	format_utc(now_real_ns(), started, sizeof started);
	r = bisect_build(c, i, &cached, &build_s);
	if (r < 0) {
		rc = r;
		goto out;
	}
	if (r == 0) {
		t0 = now_mono_ns();
		if (c->exact) {
			int64_t sid = 0;
			r = bisect_step_exact(c, i, &m, &reason, &figures, &sid);
			if (sid) {
				sids = xmalloc(sizeof *sids);
				sids[nsids++] = sid;
			}
		} else {
			r = bisect_step_paired(c, i, &m, &reason, &figures, &sids, &nsids);
		}
		measure_s = bisect_seconds(t0);
		if (r != 0) {
			rc = r;
			goto out;
		}
	}
	why = reason ? reason : m == BISECT_SKIP ? c->commits[i].reason : NULL;
	rc = bisect_record(c, "step", i, m, why, sids, nsids, figures, build_s, measure_s, started);
	figures = NULL;
out:
	cJSON_Delete(figures);
	free(reason);
	free(sids);
	return rc;
}

/* ---- The answer ------------------------------------------------------------------------ */

/* The figure of probe p at commit i, NAN when unknown. */
static double bisect_value(const struct bisect_ctx *c, size_t i, size_t p)
{
	return c->commits[i].value ? c->commits[i].value[p] : NAN;
}

static cJSON *bisect_json_ids(const char *list)
{
	cJSON *a = cJSON_CreateArray();
	char *copy = xstrdup(list ? list : ""), *save = NULL;

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		cJSON_AddItemToArray(a, cJSON_CreateNumber(strtod(t, NULL)));
	free(copy);
	return a;
}

static cJSON *bisect_json_commit(const struct bisect_commit *cm)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "commit", escape_json_string(cm->hash));
	cJSON_AddItemToObject(o, "subject", escape_json_string(cm->subject));
	return o;
}

/* The whole bisect as JSON (docs/bisect.md, "JSON"); newly allocated. */
static char *bisect_json(const struct bisect_ctx *c, const char *status, const char *detail)
{
	cJSON *root = cJSON_CreateObject(), *a, *o;
	struct bisect_state st;
	struct err e;
	char *text;

	bisect_search_state(&c->search, &st);
	cJSON_AddStringToObject(root, "format", "gcratchet-bisect");
	cJSON_AddNumberToObject(root, "version", 1);
	cJSON_AddNumberToObject(root, "id", (double)c->id);
	cJSON_AddStringToObject(root, "status", status);
	cJSON_AddItemToObject(root, "detail", escape_json_string(detail));
	cJSON_AddStringToObject(root, "source", bisect_source_names[c->source]);
	cJSON_AddItemToObject(root, "repo", escape_json_string(c->repo));
	cJSON_AddItemToObject(root, "target", escape_json_string(c->target));
	a = cJSON_AddArrayToObject(root, "build_options");
	for (size_t i = 0; i < c->make_vars.n; i++)
		cJSON_AddItemToArray(a, escape_json_string(c->make_vars.items[i]));
	cJSON_AddItemToObject(root, "metric", escape_json_string(c->metric));
	a = cJSON_AddArrayToObject(root, "probes");
	for (size_t i = 0; i < c->nprobes; i++)
		cJSON_AddItemToArray(a, escape_json_string(c->probes[i].name));
	a = cJSON_AddArrayToObject(root, "moved");
	for (size_t i = 0; i < c->nprobes; i++)
		if (c->probes[i].moved)
			cJSON_AddItemToArray(a, escape_json_string(c->probes[i].name));
	cJSON_AddItemToObject(root, "size", escape_json_string(c->size));
	cJSON_AddBoolToObject(root, "improved", c->improved);
	o = cJSON_AddObjectToObject(root, "threshold");
	cJSON_AddNumberToObject(o, "pct", c->rule.pct);
	cJSON_AddNumberToObject(o, "abs", c->rule.abs);
	cJSON_AddStringToObject(root, "mode",
	                        c->nsteps >= 2 ? (c->exact ? "exact" : "paired") : "unknown");
	cJSON_AddNumberToObject(root, "rounds", c->rounds);
	cJSON_AddNumberToObject(root, "max_rounds", c->max_rounds);
	cJSON_AddItemToObject(root, "good", bisect_json_commit(&c->commits[0]));
	cJSON_AddItemToObject(root, "bad", bisect_json_commit(&c->commits[c->ncommits - 1]));
	cJSON_AddNumberToObject(root, "commits", (double)c->ncommits);
	if (strcmp(status, "found") == 0) {
		cJSON *fb = bisect_json_commit(&c->commits[st.hi]), *figs;
		cJSON_AddItemToObject(fb, "last_good", escape_json_string(c->commits[st.lo].hash));
		figs = cJSON_AddObjectToObject(fb, "figures");
		for (size_t p = 0; p < c->nprobes; p++) {
			double before = bisect_value(c, st.lo, p),
			       after = bisect_value(c, st.hi, p);
			if (!c->probes[p].moved)
				continue;
			o = cJSON_AddObjectToObject(figs, c->probes[p].name);
			bisect_add_number(o, "before", before);
			bisect_add_number(o, "after", after);
			bisect_add_number(o, "delta_pct", bisect_pct(after, before));
		}
		cJSON_AddItemToObject(root, "first_bad", fb);
	} else {
		cJSON_AddNullToObject(root, "first_bad");
	}
	a = cJSON_AddArrayToObject(root, "candidates");
	if (strcmp(status, "ambiguous") == 0)
		for (size_t i = st.lo + 1; i <= st.hi; i++)
			cJSON_AddItemToArray(a, bisect_json_commit(&c->commits[i]));
	a = cJSON_AddArrayToObject(root, "skipped");
	for (size_t i = 0; i < c->nsteps; i++)
		if (strcmp(c->steps[i].decision, "skip") == 0) {
			o = cJSON_CreateObject();
			cJSON_AddItemToObject(o, "commit", escape_json_string(c->steps[i].commit));
			cJSON_AddItemToObject(o, "subject",
			                      escape_json_string(c->steps[i].subject));
			cJSON_AddItemToObject(o, "reason", escape_json_string(c->steps[i].reason));
			cJSON_AddItemToArray(a, o);
		}
	a = cJSON_AddArrayToObject(root, "steps");
	for (size_t i = 0; i < c->nsteps; i++) {
		const struct store_bisect_step *s = &c->steps[i];
		cJSON *figs = NULL;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "seq", s->seq);
		cJSON_AddStringToObject(o, "role", s->role);
		cJSON_AddItemToObject(o, "commit", escape_json_string(s->commit));
		cJSON_AddItemToObject(o, "subject", escape_json_string(s->subject));
		cJSON_AddStringToObject(o, "decision", s->decision);
		cJSON_AddItemToObject(o, "reason", escape_json_string(s->reason));
		if (s->build_id)
			cJSON_AddNumberToObject(o, "build_id", (double)s->build_id);
		else
			cJSON_AddNullToObject(o, "build_id");
		cJSON_AddItemToObject(o, "build_dir", escape_json_string(s->build_dir));
		cJSON_AddItemToObject(o, "sessions", bisect_json_ids(s->sessions));
		if (s->figures &&
		    json_parse(s->figures, strlen(s->figures), "figures", &figs, &e) == 0)
			cJSON_AddItemToObject(o, "figures", figs);
		else
			cJSON_AddNullToObject(o, "figures");
		cJSON_AddNumberToObject(o, "build_s", s->build_s);
		cJSON_AddNumberToObject(o, "measure_s", s->measure_s);
		cJSON_AddItemToObject(o, "started_at", escape_json_string(s->started_at));
		cJSON_AddItemToArray(a, o);
	}
	o = cJSON_AddObjectToObject(root, "cost");
	cJSON_AddNumberToObject(o, "steps", c->nsteps >= 2 ? (double)(c->nsteps - 2) : 0);
	cJSON_AddNumberToObject(o, "build_s", c->build_s);
	cJSON_AddNumberToObject(o, "measure_s", c->measure_s);
	text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

/* "4 steps: build 3.6 s, measure 4.1 s; skipped 1: 8c7b6a5 (does not build: ...)". */
static void bisect_print_cost(const struct bisect_ctx *c)
{
	size_t steps = c->nsteps >= 2 ? c->nsteps - 2 : 0, skipped = 0;

	for (size_t i = 0; i < c->nsteps; i++)
		skipped += strcmp(c->steps[i].decision, "skip") == 0;
	fprintf(c->out, "bisect %lld: %zu step%s after the ends: build %.1f s, measure %.1f s",
	        (long long)c->id, steps, steps == 1 ? "" : "s", c->build_s, c->measure_s);
	if (skipped)
		fprintf(c->out, "; skipped %zu:", skipped);
	fprintf(c->out, "\n");
	for (size_t i = 0; i < c->nsteps; i++)
		if (strcmp(c->steps[i].decision, "skip") == 0)
			fprintf(c->out, "  skipped %s %s: %s\n", bisect_short(c->steps[i].commit),
			        cli_safe(c->steps[i].subject), cli_safe(c->steps[i].reason));
}

/*
 * Prints what the search found, as git does, records the status (unless `record` is 0: a
 * finished bisect shown again) and writes the JSON: 0 when one commit is named, 2 when skips
 * leave several (or the ends gave no search: `failed_detail`).
 */
static int bisect_finish(struct bisect_ctx *c, const char *failed_detail, const char *json_path,
                         int record)
{
	struct bisect_state st;
	struct err e = ERR_INIT;
	const char *status;
	char *detail = failed_detail ? xstrdup(failed_detail) : NULL, *json;
	int rc = EXIT_UNJUDGED;

	bisect_search_state(&c->search, &st);
	if (failed_detail) {
		status = "failed";
		fprintf(c->out, "bisect %lld: no search: %s\n", (long long)c->id,
		        cli_safe(failed_detail));
	} else if (st.found) {
		status = "found";
		fprintf(c->out, "%s is the first %s commit\ncommit %s\n    %s\n\n",
		        c->commits[st.hi].hash, c->improved ? "improved" : "bad",
		        c->commits[st.hi].hash, cli_safe(c->commits[st.hi].subject));
		for (size_t p = 0; p < c->nprobes; p++) {
			double before = bisect_value(c, st.lo, p),
			       after = bisect_value(c, st.hi, p);
			char b[24], a[24], ch[32];
			if (!c->probes[p].moved)
				continue;
			metrics_format_value(c->metric, before, b, sizeof b);
			metrics_format_value(c->metric, after, a, sizeof a);
			bisect_change_text(c, before, after, ch, sizeof ch);
			fprintf(c->out, "    %s %s: %s at %s -> %s (%s)\n", c->probes[p].name,
			        c->metric, b, bisect_short(c->commits[st.lo].hash), a, ch);
		}
		rc = EXIT_OK;
	} else {
		struct sbuf b;
		status = "ambiguous";
		sbuf_init(&b);
		fprintf(c->out,
		        "There are only skipped commits left to test.\nThe first %s commit "
		        "could be any of:\n",
		        c->improved ? "improved" : "bad");
		for (size_t i = st.lo + 1; i <= st.hi; i++) {
			fprintf(c->out, "%s %s\n", c->commits[i].hash,
			        cli_safe(c->commits[i].subject));
			sbuf_addf(&b, "%s%s", i > st.lo + 1 ? " " : "", c->commits[i].hash);
		}
		fprintf(c->out, "We cannot bisect more!\n");
		detail = sbuf_detach(&b);
	}
	bisect_print_cost(c);
	fflush(c->out);
	if (record &&
	    store_bisect_update(
	        c->st, c->id, status, c->nsteps >= 2 ? (c->exact ? "exact" : "paired") : NULL,
	        st.found && !failed_detail ? c->commits[st.hi].hash : NULL, detail, &e) != 0)
		rc = cli_error(c->cmd, "%s", e.msg);
	if (json_path) {
		json = bisect_json(c, status, detail);
		if (write_file_atomic(json_path, json, strlen(json), &e) != 0)
			rc = cli_error(c->cmd, "%s", e.msg);
		free(json);
	}
	free(detail);
	return rc;
}

/* ---- Setting up: a new bisect or a stored one ------------------------------------------ */

/*
 * Finds what the source needs: the repository (the collector-dir's, the gcratchet checkout's
 * for --collector, --repo's for --build-cmd), the collector folder's place in it, and the
 * checkout whose make rules build an outside collector. Prints why not (-1).
 */
static int bisect_setup_source(struct bisect_ctx *c, const char *repo_opt)
{
	char *script = NULL, *here = NULL, *top = NULL;
	int rc = -1;

	if (c->source == BISECT_SRC_COLLECTOR) {
		script = cli_script_path(c->root, "build-rev.sh");
		if (access(script, R_OK) != 0) {
			cli_error(c->cmd, "--collector %s: %s is missing: it builds each commit",
			          c->target, script);
			goto out;
		}
		/* The repository is the one build-rev.sh builds from: its own checkout. */
		here = xstrdup(script);
		if (strrchr(here, '/'))
			*strrchr(here, '/') = '\0';
		else
			strcpy(here, ".");
		if (bisect_repo_of(c, "--collector", *here ? here : "/", &c->repo, NULL) != 0)
			goto out;
		c->checkout = xstrdup(c->repo);
	} else if (c->source == BISECT_SRC_DIR) {
		const char *slash;
		if (bisect_repo_of(c, "--collector-dir", c->target, &c->repo, &c->subdir) != 0 ||
		    bisect_find_checkout(c, "--collector-dir") != 0)
			goto out;
		slash = strrchr(c->target, '/');
		c->name = xstrdup(slash && slash[1] ? slash + 1 : c->target);
	} else {
		if (bisect_repo_of(c, "--repo", repo_opt ? repo_opt : ".", &c->repo, NULL) != 0)
			goto out;
		/* A build command may use the checkout's rules; it gets its path when there is one. */
		if (bisect_find_checkout(c, "--build-cmd") != 0) {
			free(c->checkout);
			c->checkout = bisect_realpath(c->root);
		}
	}
	rc = 0;
out:
	free(script);
	free(here);
	free(top);
	return rc;
}

/* The rule, kind and run shape of the metric; prints why a metric cannot be bisected (-1). */
static int bisect_setup_metric(struct bisect_ctx *c, const char *threshold)
{
	struct err e = ERR_INIT;

	if (bisect_rule_for(c->metric, threshold, c->improved, &c->rule, &e) != 0)
		return cli_error(c->cmd, "%s", e.msg), -1;
	if (strcmp(c->metric, "minheap.min_heap_mib") == 0) {
		cli_error(
		    c->cmd,
		    "--metric %s is a minimum-heap search's answer, not a session's figure: "
		    "bisect measures sessions (run gcratchet minheap at the two ends instead)",
		    c->metric);
		return -1;
	}
	if (metrics_is_bucket(c->metric) ||
	    (strncmp(c->metric, "perf.", 5) == 0 && strlen(c->metric) > 6 &&
	     strcmp(c->metric + strlen(c->metric) - 6, ".scale") == 0)) {
		cli_error(c->cmd, "--metric %s is part of another figure, never judged on its own",
		          c->metric);
		return -1;
	}
	c->kind = metrics_run_kind(c->metric);
	return 0;
}

/* The build cache: --cache, $GCR_BISECT_CACHE, or results/bisect-builds; made if missing. */
static int bisect_setup_cache(struct bisect_ctx *c, const char *opt)
{
	const char *env = getenv("GCR_BISECT_CACHE");
	const char *dir = opt ? opt : env && *env ? env : "results/bisect-builds";
	char *path = xstrdup(dir);

	for (char *p = path + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(path, 0755) != 0 && errno != EEXIST)
				break;
			*p = '/';
		}
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		cli_error(c->cmd, "cannot create the build cache %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	c->cache = bisect_realpath(path);
	free(path);
	return 0;
}

static void bisect_alloc_values(struct bisect_ctx *c)
{
	for (size_t i = 0; i < c->ncommits; i++) {
		c->commits[i].value = xmalloc((c->nprobes ? c->nprobes : 1) * sizeof(double));
		for (size_t p = 0; p < c->nprobes; p++)
			c->commits[i].value[p] = NAN;
	}
}

/* The make options as stored: a JSON array of strings, NULL for none. */
static char *bisect_options_json(const struct strlist *vars)
{
	cJSON *a;
	char *text;

	if (!vars->n)
		return NULL;
	a = cJSON_CreateArray();
	for (size_t i = 0; i < vars->n; i++)
		cJSON_AddItemToArray(a, escape_json_string(vars->items[i]));
	text = cJSON_PrintUnformatted(a);
	cJSON_Delete(a);
	return text;
}

/* Records the new bisect in the store. */
static int bisect_store_begin(struct bisect_ctx *c)
{
	struct store_bisect_record r;
	struct sbuf commits;
	struct err e = ERR_INIT;
	char when[32], *probes = bisect_probe_list(c, ","),
	               *options = bisect_options_json(&c->make_vars);
	int rc;

	sbuf_init(&commits);
	for (size_t i = 0; i < c->ncommits; i++)
		sbuf_addf(&commits, "%s%s", i ? " " : "", c->commits[i].hash);
	format_utc(now_real_ns(), when, sizeof when);
	memset(&r, 0, sizeof r);
	r.started_at = when;
	r.command = c->command;
	r.source = bisect_source_names[c->source];
	r.repo = c->repo;
	r.target = c->target;
	r.build_options = options;
	r.good = c->commits[0].hash;
	r.bad = c->commits[c->ncommits - 1].hash;
	r.commits = commits.data;
	r.probes = probes;
	r.metric = c->metric;
	r.size = c->size;
	r.improved = c->improved;
	r.threshold_pct = c->rule.pct;
	r.threshold_abs = c->rule.abs;
	r.rounds = c->rounds;
	r.max_rounds = c->max_rounds;
	r.warmup = c->warmup;
	rc = store_bisect_begin(c->st, &r, &c->id, &e);
	if (rc != 0)
		cli_error(c->cmd, "%s", e.msg);
	sbuf_release(&commits);
	free(probes);
	free(options);
	return rc;
}

/*
 * Loads bisect `id` to continue it: what it searches, from its row, and where it stands,
 * from its steps (bisect_apply). Prints why not (-1).
 */
static int bisect_load(struct bisect_ctx *c, int64_t id)
{
	struct store_bisect b;
	struct store_bisect_step *steps = NULL;
	size_t nsteps = 0;
	struct err e = ERR_INIT;
	struct strlist list = {0};
	cJSON *opts = NULL, *x;
	int rc = -1;

	memset(&b, 0, sizeof b);
	if (store_bisect_get(c->st, id, &b, &e) != 0 ||
	    store_bisect_steps(c->st, id, &steps, &nsteps, &e) != 0) {
		cli_error(c->cmd, "%s", e.msg);
		goto out;
	}
	c->id = id;
	for (int s = 0; s < 3; s++)
		if (strcmp(b.source, bisect_source_names[s]) == 0)
			c->source = (enum bisect_source)s;
	c->target = xstrdup(b.target);
	c->metric = xstrdup(b.metric);
	snprintf(c->size, sizeof c->size, "%s", b.size);
	c->improved = b.improved;
	c->rounds = (int)b.rounds;
	c->max_rounds = (int)b.max_rounds;
	c->warmup = (int)b.warmup;
	if (b.build_options &&
	    json_parse(b.build_options, strlen(b.build_options), "build_options", &opts, &e) == 0)
		cJSON_ArrayForEach(x, opts) if (cJSON_IsString(x))
		    strlist_push(&c->make_vars, x->valuestring);
	if (bisect_setup_metric(c, NULL) != 0)
		goto out;
	c->rule.pct = b.threshold_pct;
	c->rule.abs = b.threshold_abs;
	if (bisect_setup_source(c, c->source == BISECT_SRC_CMD ? b.repo : NULL) != 0)
		goto out;
	if (strcmp(c->repo, b.repo) != 0) {
		cli_error(c->cmd, "bisect %lld searched %s, and its source is now in %s",
		          (long long)id, b.repo, c->repo);
		goto out;
	}
	strlist_split(&list, b.probes);
	c->probes = xcalloc(list.n ? list.n : 1, sizeof *c->probes);
	for (size_t i = 0; i < list.n; i++)
		c->probes[c->nprobes++].name = xstrdup(list.items[i]);
	strlist_release(&list);
	{
		char *copy = xstrdup(b.commits), *save = NULL;
		for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
			c->commits = xrealloc(c->commits, (c->ncommits + 1) * sizeof *c->commits);
			memset(&c->commits[c->ncommits], 0, sizeof *c->commits);
			c->commits[c->ncommits].hash = xstrdup(t);
			c->commits[c->ncommits++].subject = gitrev_subject(c->repo, t);
		}
		free(copy);
	}
	if (c->ncommits < 2) {
		cli_error(c->cmd, "bisect %lld: its stored commits are damaged", (long long)id);
		goto out;
	}
	bisect_alloc_values(c);
	bisect_search_init(&c->search, c->ncommits);
	c->exact = b.mode && strcmp(b.mode, "exact") == 0;
	for (size_t i = 0; i < nsteps; i++) {
		c->steps = xrealloc(c->steps, (c->nsteps + 1) * sizeof *c->steps);
		c->steps[c->nsteps] = steps[i];
		memset(&steps[i], 0, sizeof steps[i]);
		bisect_apply(c, &c->steps[c->nsteps]);
		if (c->seq < c->steps[c->nsteps].seq)
			c->seq = c->steps[c->nsteps].seq;
		if (strcmp(c->steps[c->nsteps].role, "step") == 0) {
			c->build_s += c->steps[c->nsteps].build_s;
			c->measure_s += c->steps[c->nsteps].measure_s;
		}
		c->nsteps++;
	}
	if (c->nsteps >= 2) {
		if (!b.mode)
			c->exact = c->rule.pol.exact;
		for (size_t p = 0; p < c->nprobes; p++) {
			struct bisect_probe *pr = &c->probes[p];
			int moved = pr->moved, sign = pr->sign;
			bisect_ends_exact(&c->rule, pr->good, pr->ngood, pr->bad, pr->nbad,
			                  &pr->ends);
			/* What the ends decided is what the steps were judged by. */
			pr->moved = moved;
			pr->sign = sign;
			pr->ends.sign = sign;
		}
	}
	rc = 0;
out:
	cJSON_Delete(opts);
	store_bisect_steps_release(steps, nsteps);
	store_bisect_release(&b);
	return rc;
}

/* ---- The command ----------------------------------------------------------------------- */

/* git's line before each step: what is left after it, at worst, and roughly how long. */
static void bisect_print_left(const struct bisect_ctx *c, size_t next)
{
	size_t left;
	unsigned steps = bisect_search_left(&c->search, next, &left);

	fprintf(c->out, "Bisecting: %zu commit%s left to test after this (roughly %u step%s)\n",
	        left, left == 1 ? "" : "s", steps, steps == 1 ? "" : "s");
	fflush(c->out);
}

static void bisect_print_header(const struct bisect_ctx *c)
{
	struct bisect_state st;
	char *probes = bisect_probe_list(c, ", "), *vars, *rev;

	bisect_search_state(&c->search, &st);
	fprintf(c->out,
	        "bisect %lld: %s of %s at size %s, %s %s to %s %s in %s: %zu commit%s between "
	        "(roughly %u step%s)\n",
	        (long long)c->id, c->metric, probes, c->size, bisect_word(c, BISECT_GOOD),
	        bisect_short(c->commits[0].hash), bisect_word(c, BISECT_BAD),
	        bisect_short(c->commits[c->ncommits - 1].hash), cli_safe(c->repo), st.untested,
	        st.untested == 1 ? "" : "s", st.steps, st.steps == 1 ? "" : "s");
	vars = strlist_join(&c->make_vars, " ");
	/* build-rev.sh keeps its builds itself, as it does for ab; the logs are in the cache. */
	rev = c->source != BISECT_SRC_COLLECTOR ? xstrdup(c->cache)
	      : getenv("GCR_REV_DIR") && *getenv("GCR_REV_DIR")
	          ? xstrdup(getenv("GCR_REV_DIR"))
	          : xasprintf("%s/build/rev", c->repo);
	fprintf(c->out, "each commit built from --%s %s%s%s, cached in %s\n",
	        bisect_source_names[c->source], cli_safe(c->target), c->make_vars.n ? " with " : "",
	        cli_safe(vars), cli_safe(rev));
	fflush(c->out);
	free(rev);
	free(vars);
	free(probes);
}

static void bisect_release(struct bisect_ctx *c)
{
	for (size_t i = 0; i < c->ncommits; i++) {
		free(c->commits[i].hash);
		free(c->commits[i].subject);
		free(c->commits[i].dir);
		free(c->commits[i].reason);
		free(c->commits[i].value);
	}
	free(c->commits);
	for (size_t i = 0; i < c->nprobes; i++) {
		free(c->probes[i].name);
		free(c->probes[i].good);
		free(c->probes[i].bad);
		free(c->probes[i].good_sum);
		free(c->probes[i].bad_sum);
	}
	free(c->probes);
	store_bisect_steps_release(c->steps, c->nsteps);
	bisect_search_release(&c->search);
	strlist_release(&c->make_vars);
	session_opts_release(&c->base);
	store_close(c->st);
	free(c->repo);
	free(c->target);
	free(c->subdir);
	free(c->name);
	free(c->metric);
	free(c->root);
	free(c->checkout);
	free(c->cache);
	free(c->command);
}

/* The options that say what is searched: a resumed bisect has them stored. */
static const char *const bisect_spec_opts[] = {
    "--good",      "--old",       "--bad",           "--new",        "--probe",  "--probes",
    "--metric",    "--collector", "--collector-dir", "--build-cmd",  "--repo",   "--make",
    "--threshold", "--improved",  "--rounds",        "--max-rounds", "--warmup", "--size",
    NULL,
};

static int bisect_is_spec_opt(const char *opt)
{
	for (size_t i = 0; bisect_spec_opts[i]; i++)
		if (strcmp(bisect_spec_opts[i], opt) == 0)
			return 1;
	return 0;
}

/* A make option: VAR=VALUE with VAR a make variable name. */
static int bisect_make_var_ok(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");

	return n > 0 && s[n] == '=' && !(s[0] >= '0' && s[0] <= '9');
}

/* --rounds, --max-rounds, --warmup: within the session's bounds. */
static int bisect_parse_int(const char *cmd, const char *opt, const char *val, int min, int max,
                            int *out)
{
	uint64_t v;

	if (parse_u64(val, &v) != 0 || v < (uint64_t)min || v > (uint64_t)max)
		return cli_error(cmd, "%s must be an integer from %d to %d, got \"%s\"", opt, min,
		                 max, val),
		       -1;
	*out = (int)v;
	return 0;
}

int cmd_bisect(int argc, char **argv)
{
	static const struct cli_opt opts[] = {{"--good", 1},
	                                      {"--old", 1 | CLI_OPT_HIDDEN},
	                                      {"--bad", 1},
	                                      {"--new", 1 | CLI_OPT_HIDDEN},
	                                      {"--probe", 1},
	                                      {"--probes", 1 | CLI_OPT_HIDDEN},
	                                      {"--metric", 1},
	                                      {"--collector", 1},
	                                      {"--collector-dir", 1},
	                                      {"--build-cmd", 1},
	                                      {"--repo", 1},
	                                      {"--make", 1},
	                                      {"--threshold", 1},
	                                      {"--improved", 0},
	                                      {"--resume", 0},
	                                      {"--rounds", 1},
	                                      {"--max-rounds", 1},
	                                      {"--warmup", 1},
	                                      {"--size", 1},
	                                      {"--json", 1},
	                                      {"--cache", 1},
	                                      {"--db", 1},
	                                      {"--timeout", 1},
	                                      {"--jobs", 1},
	                                      {"--lock-timeout", 1},
	                                      {"--cpu", 1},
	                                      {"--no-aslr", 0},
	                                      {"--pass-env", 1},
	                                      {"--thp", 1},
	                                      {"--build-timeout", 1},
	                                      {NULL, 0}};
	const char *cmd = "bisect", *opt, *val, *good = NULL, *bad = NULL, *threshold = NULL;
	const char *repo_opt = NULL, *json_path = NULL, *cache_opt = NULL, *spec_given = NULL;
	const char *sources[3] = {NULL, NULL, NULL};
	struct bisect_ctx c;
	struct strlist wanted = {0}, positional = {0}, available = {0};
	struct cli_iter it;
	struct err e = ERR_INIT;
	struct sigaction sa, old_int, old_term;
	char *detail = NULL;
	int rc = EXIT_UNJUDGED, r, resume = 0, lock_fd = -1, handlers = 0, nsources = 0;
	int rounds = 0, max_rounds = 0, interrupted = 0;
	size_t next;

	memset(&c, 0, sizeof c);
	c.cmd = cmd;
	c.warmup = 1;
	c.build_timeout_s = BISECT_BUILD_TIMEOUT_S;
	c.out = stdout;
	snprintf(c.size, sizeof c.size, "ci");
	session_opts_init(&c.base, SESSION_VERB_MEASURE);
	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, &positional)) == 1) {
		if (!spec_given && bisect_is_spec_opt(opt))
			spec_given = opt;
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_command(cmd), 0);
			goto out;
		} else if (strcmp(opt, "--good") == 0 || strcmp(opt, "--old") == 0) {
			good = val;
		} else if (strcmp(opt, "--bad") == 0 || strcmp(opt, "--new") == 0) {
			bad = val;
		} else if (strcmp(opt, "--probe") == 0 || strcmp(opt, "--probes") == 0) {
			strlist_split(&wanted, val);
		} else if (strcmp(opt, "--metric") == 0) {
			free(c.metric);
			c.metric = xstrdup(val);
		} else if (strcmp(opt, "--collector") == 0 || strcmp(opt, "--collector-dir") == 0 ||
		           strcmp(opt, "--build-cmd") == 0) {
			int k = strcmp(opt, "--collector") == 0       ? BISECT_SRC_COLLECTOR
			        : strcmp(opt, "--collector-dir") == 0 ? BISECT_SRC_DIR
			                                              : BISECT_SRC_CMD;
			nsources += sources[k] == NULL;
			sources[k] = val;
			c.source = (enum bisect_source)k;
		} else if (strcmp(opt, "--repo") == 0) {
			repo_opt = val;
		} else if (strcmp(opt, "--make") == 0) {
			if (!bisect_make_var_ok(val)) {
				rc = cli_error(cmd,
				               "--make takes a make option VAR=VALUE (CC=clang, "
				               "EXTRA_CFLAGS=-O3), got \"%s\"",
				               val);
				goto out;
			}
			strlist_push(&c.make_vars, val);
		} else if (strcmp(opt, "--threshold") == 0) {
			threshold = val;
		} else if (strcmp(opt, "--improved") == 0) {
			c.improved = 1;
		} else if (strcmp(opt, "--resume") == 0) {
			resume = 1;
		} else if (strcmp(opt, "--rounds") == 0) {
			if (bisect_parse_int(cmd, opt, val, 1, SESSION_OPTS_ROUNDS_MAX, &rounds) !=
			    0)
				goto out;
		} else if (strcmp(opt, "--max-rounds") == 0) {
			if (bisect_parse_int(cmd, opt, val, 1, SESSION_OPTS_ROUNDS_MAX,
			                     &max_rounds) != 0)
				goto out;
		} else if (strcmp(opt, "--warmup") == 0) {
			if (bisect_parse_int(cmd, opt, val, 0, SESSION_OPTS_WARMUP_MAX,
			                     &c.warmup) != 0)
				goto out;
		} else if (strcmp(opt, "--size") == 0) {
			if (session_opts_set_size(&c.base, val, &e) != 0) {
				rc = cli_error(cmd, "%s", e.msg);
				goto out;
			}
			snprintf(c.size, sizeof c.size, "%s", val);
		} else if (strcmp(opt, "--build-timeout") == 0) {
			if (bisect_parse_int(cmd, opt, val, 0, SESSION_OPTS_WAIT_MAX_S,
			                     &c.build_timeout_s) != 0)
				goto out;
		} else if (strcmp(opt, "--json") == 0) {
			json_path = val;
		} else if (strcmp(opt, "--cache") == 0) {
			cache_opt = val;
		} else if (session_opts_parse(&c.base, opt, val, &e) < 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
	}
	if (r < 0)
		goto out;
	if (resume && spec_given) {
		rc = cli_error(cmd,
		               "--resume continues a bisect as it was started: %s cannot change it "
		               "(start a new bisect instead)",
		               spec_given);
		goto out;
	}
	if (positional.n > (resume ? 1u : 0u)) {
		rc = cli_error(cmd, "unexpected argument \"%s\"%s", positional.items[resume],
		               resume ? "" : " (see gcratchet bisect --help)");
		goto out;
	}
	if (!resume) {
		const char *missing = !good       ? "--good REV"
		                      : !bad      ? "--bad REV"
		                      : !wanted.n ? "--probe P"
		                      : !c.metric ? "--metric M"
		                      : !nsources ? "one of --collector NAME, --collector-dir DIR "
		                                    "and --build-cmd CMD (what to build at each "
		                                    "commit)"
		                                  : NULL;
		if (missing) {
			rc =
			    cli_error(cmd, "%s is required (see gcratchet bisect --help)", missing);
			goto out;
		}
		if (nsources > 1) {
			rc = cli_error(
			    cmd, "--collector, --collector-dir and --build-cmd each name what to "
			         "build: give one");
			goto out;
		}
		if (repo_opt && c.source != BISECT_SRC_CMD) {
			rc =
			    cli_error(cmd, "--repo goes with --build-cmd: the other sources have a "
			                   "repository of their own");
			goto out;
		}
		if (c.make_vars.n && c.source == BISECT_SRC_CMD) {
			rc = cli_error(cmd,
			               "--make gives options to make; a --build-cmd builds as it "
			               "says: put them in the command");
			goto out;
		}
		if (max_rounds && rounds && max_rounds < rounds) {
			rc = cli_error(cmd, "--max-rounds %d is fewer than --rounds %d", max_rounds,
			               rounds);
			goto out;
		}
	}
	if (json_path && write_file_is_stdout(json_path))
		c.out = stderr;
	c.root = buildinfo_root();
	c.command = cli_command_line(argc, argv);
	if (bisect_setup_cache(&c, cache_opt) != 0)
		goto out;
	if (store_open(cli_db_path(c.base.db), STORE_WRITE, &c.st, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (quiet_lock(c.base.lock_timeout_s, cli_waiting, (void *)cmd, &lock_fd, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	bisect_stop = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = bisect_on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	handlers = 1;

	if (resume) {
		struct store_bisect b;
		int64_t id = 0;
		int finished;
		if (positional.n &&
		    cli_parse_session(cmd, "--resume", positional.items[0], NULL, &id) != 0)
			goto out;
		if (!id && store_bisect_latest_open(c.st, &id, &e) != 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
		if (!id) {
			rc = cli_error(cmd,
			               "%s holds no bisect to resume (none running or interrupted)",
			               cli_safe(store_where(c.st)));
			goto out;
		}
		if (store_bisect_get(c.st, id, &b, &e) != 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
		finished = strcmp(b.status, "running") && strcmp(b.status, "interrupted");
		if (!finished && b.pid > 0 && b.pid != getpid() &&
		    (kill((pid_t)b.pid, 0) == 0 || errno == EPERM) &&
		    strcmp(b.status, "running") == 0) {
			rc = cli_error(cmd,
			               "bisect %lld is still running (pid %lld): let it finish or "
			               "stop it first",
			               (long long)id, (long long)b.pid);
			store_bisect_release(&b);
			goto out;
		}
		detail = b.detail && strcmp(b.status, "failed") == 0 ? xstrdup(b.detail) : NULL;
		store_bisect_release(&b);
		if (bisect_load(&c, id) != 0)
			goto out;
		fprintf(c.out, "bisect %lld: %s: %zu step%s stored\n", (long long)id,
		        finished ? "finished" : "resuming", c.nsteps, c.nsteps == 1 ? "" : "s");
		for (size_t i = 0; i < c.nsteps; i++)
			bisect_print_step(&c, &c.steps[i], 1);
		if (finished) {
			rc = bisect_finish(&c, detail, json_path, 0);
			goto out;
		}
		if (store_bisect_update(c.st, id, "running", NULL, NULL, NULL, &e) != 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
	} else {
		double secs;
		int cached;
		c.target = c.source == BISECT_SRC_DIR ? bisect_realpath(sources[c.source])
		                                      : xstrdup(sources[c.source]);
		if (bisect_setup_metric(&c, threshold) != 0 ||
		    bisect_setup_source(&c, repo_opt) != 0 ||
		    bisect_resolve_commits(&c, good, bad) != 0)
			goto out;
		if (c.source != BISECT_SRC_CMD) {
			char *dir = xasprintf("%s/probes", c.checkout);
			bisect_list_probes(dir, &available);
			free(dir);
		} else {
			/* A build command says what its probes are: the good end's manifest. */
			struct buildinfo bi;
			r = bisect_build(&c, 0, &cached, &secs);
			if (r != 0) {
				if (r == 1)
					cli_error(cmd, "the good end %s does not build: %s",
					          bisect_short(c.commits[0].hash),
					          c.commits[0].reason);
				goto out;
			}
			if (buildinfo_load(c.commits[0].dir, &bi, &e) != 0) {
				rc = cli_error(cmd, "%s", e.msg);
				goto out;
			}
			for (size_t i = 0; i < bi.probes.n; i++)
				strlist_push(&available, bi.probes.items[i]);
			buildinfo_release(&bi);
		}
		if (bisect_set_probes(&c, &wanted, &available) != 0)
			goto out;
		bisect_budget(rounds, max_rounds, c.kind == RUN_KIND_VALGRIND, c.nprobes, &c.rounds,
		              &c.max_rounds);
		bisect_alloc_values(&c);
		bisect_search_init(&c.search, c.ncommits);
		if (bisect_store_begin(&c) != 0)
			goto out;
		bisect_print_header(&c);
	}

	if (c.nsteps < 2) {
		r = bisect_ends(&c, &detail);
		if (r == 1) {
			rc = bisect_finish(&c, detail, json_path, 1);
			goto out;
		}
		if (r != 0) {
			interrupted = 1;
			goto stopped;
		}
	}
	/* Paired steps run beside the good end: its build, which a resume may have lost. */
	if (!c.exact && !c.commits[0].dir) {
		double secs;
		int cached;
		if ((r = bisect_build(&c, 0, &cached, &secs)) != 0) {
			if (r == 1)
				cli_error(cmd, "the good end %s does not build now: %s",
				          bisect_short(c.commits[0].hash), c.commits[0].reason);
			interrupted = 1;
		}
	}
	while (!interrupted && !bisect_stop && bisect_search_next(&c.search, &next)) {
		bisect_print_left(&c, next);
		if ((r = bisect_step(&c, next)) != 0) {
			interrupted = 1;
			break;
		}
	}
	if (bisect_stop)
		interrupted = 1;
stopped:
	if (interrupted) {
		size_t steps = c.nsteps >= 2 ? c.nsteps - 2 : 0;
		char *db = c.base.db ? store_url_redact(c.base.db) : NULL;
		if (store_bisect_update(c.st, c.id, "interrupted", NULL, NULL, NULL, &e) != 0)
			cli_error(cmd, "%s", e.msg);
		rc = cli_error(cmd,
		               "bisect %lld %s after %zu step%s (what was measured is stored); "
		               "continue with: gcratchet bisect --resume %lld%s%s",
		               (long long)c.id, bisect_stop ? "interrupted" : "stopped", steps,
		               steps == 1 ? "" : "s", (long long)c.id, db ? " --db " : "",
		               db ? db : "");
		free(db);
		goto out;
	}
	rc = bisect_finish(&c, NULL, json_path, 1);
out:
	if (handlers) {
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGINT, &old_int, NULL);
	}
	quiet_unlock(lock_fd);
	free(detail);
	strlist_release(&wanted);
	strlist_release(&positional);
	strlist_release(&available);
	bisect_release(&c);
	return rc;
}
