/*
 * bisect_engine.c — the engine of gcratchet bisect (bisect_engine.h): builds, cached by
 * commit and build options; the ends and the mode they decide; the steps; the store's record
 * of each, from which a stopped bisect resumes. bisect.c decides; this applies its decisions.
 */
#include <ctype.h>
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

#include "bisect_engine.h"
#include "buildinfo.h"
#include "caps.h"
#include "escape.h"
#include "gitrev.h"
#include "json.h"
#include "metrics.h"
#include "sha256.h"
#include "stats.h"

const char *const bisect_source_names[3] = {"collector", "collector-dir", "build-cmd"};

/* Sets eng->err and returns -1: every failure of the engine is reported this way. */
__attribute__((format(printf, 3, 4))) static int
bisect_fail(struct bisect_engine *c, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	c->err.code = code;
	va_start(ap, fmt);
	vsnprintf(c->err.msg, sizeof c->err.msg, fmt, ap);
	va_end(ap);
	return -1;
}

static void bisect_emit(const struct bisect_engine *c, const struct bisect_event *ev)
{
	if (c->hooks.event)
		c->hooks.event(c->hooks.ctx, c, ev);
}

void bisect_engine_init(struct bisect_engine *eng, volatile sig_atomic_t *stop,
                        const struct bisect_hooks *hooks)
{
	memset(eng, 0, sizeof *eng);
	eng->warmup = 1;
	eng->build_timeout_s = BISECT_BUILD_TIMEOUT_S;
	snprintf(eng->size, sizeof eng->size, "ci");
	eng->stop = stop;
	eng->hooks = *hooks;
}

static double bisect_seconds(int64_t since_ns)
{
	return (double)(now_mono_ns() - since_ns) / 1e9;
}

const char *bisect_engine_short(const char *hash)
{
	static char buf[4][16];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, sizeof buf[0], "%.7s", hash ? hash : "");
	return b;
}

/* ---- Running programs ------------------------------------------------------------------ */

/*
 * Runs argv in a process group of its own, stdin from /dev/null, stdout to out_path (NULL: to
 * the log) and stderr appended to log_path. *stop set (our interrupt), or timeout_s seconds passing
 * (0: no limit), ends the whole group (a build is many processes): SIGTERM, so that a build
 * script's traps remove its worktree, and SIGKILL five seconds later, and once more to what is
 * left of the group when its leader is gone. Returns the exit status, -1 with e when it could
 * not run or was killed by a signal, -2 when we interrupted it, -3 when it ran out of time.
 */
static int bisect_spawn(char *const argv[], const char *out_path, const char *log_path,
                        int timeout_s, volatile sig_atomic_t *stop, struct err *e)
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
		if ((*stop || timed_out) && !killed) {
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

/* ---- Resolving what is searched -------------------------------------------------------- */

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

/* The repository holding `dir` (its top) and dir's place in it; -1 with why not. */
static int bisect_repo_of(struct bisect_engine *c, const char *opt, const char *dir, char **top,
                          char **prefix)
{
	struct sbuf out;
	int rc = -1;

	sbuf_init(&out);
	*top = NULL;
	if (prefix)
		*prefix = NULL;
	if (!bisect_is_dir(dir)) {
		bisect_fail(c, ERR_NOT_FOUND, "%s %s: no such folder", opt, dir);
		goto out;
	}
	/* A bare repository is its git folder: bisect-build.sh builds in worktrees of it. */
	if (gitrev_run(dir, &out, "rev-parse", "--is-bare-repository", NULL) == 0 &&
	    strcmp(out.data, "true") == 0) {
		sbuf_release(&out);
		sbuf_init(&out);
		if (prefix) {
			bisect_fail(c, ERR_INVALID,
			            "%s %s: a bare repository has no folders to build: give the "
			            "folder in a checkout of it",
			            opt, dir);
			goto out;
		}
		if (gitrev_run(dir, &out, "rev-parse", "--absolute-git-dir", NULL) == 0 &&
		    out.len) {
			*top = sbuf_detach(&out);
			rc = 0;
			goto out;
		}
	}
	sbuf_release(&out);
	sbuf_init(&out);
	if (gitrev_run(dir, &out, "rev-parse", "--show-toplevel", NULL) != 0 || !out.len) {
		bisect_fail(c, ERR_INVALID,
		            "%s %s: not inside a git repository (bisect searches its history)", opt,
		            dir);
		goto out;
	}
	*top = sbuf_detach(&out);
	if (prefix) {
		sbuf_init(&out);
		if (gitrev_run(dir, &out, "rev-parse", "--show-prefix", NULL) != 0) {
			bisect_fail(c, ERR_INVALID, "%s %s: git cannot say where it is in %s", opt,
			            dir, *top);
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
static int bisect_find_checkout(struct bisect_engine *c, const char *opt)
{
	char *dir = xasprintf("%s/..", c->root), *mk;
	int rc = -1;

	c->checkout = bisect_realpath(dir);
	mk = xasprintf("%s/collectors/build.mk", c->checkout);
	if (access(mk, R_OK) != 0) {
		bisect_fail(
		    c, ERR_INVALID,
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
 * c[n-1] = bad. Refuses (-1) what is not a commit, a good end that is not on the
 * bad end's first-parent line, and two ends that are one commit.
 */
int bisect_engine_resolve_commits(struct bisect_engine *c, const char *good_rev,
                                  const char *bad_rev)
{
	struct sbuf good, bad, list, subj;
	char *range = NULL, *save = NULL, *line;
	int rc = -1;

	sbuf_init(&good);
	sbuf_init(&bad);
	sbuf_init(&list);
	sbuf_init(&subj);
	if (gitrev_commit_hash(c->repo, good_rev, &good) != 0) {
		bisect_fail(c, ERR_INVALID, "--good %s is not a commit of %s", good_rev, c->repo);
		goto out;
	}
	if (gitrev_commit_hash(c->repo, bad_rev, &bad) != 0) {
		bisect_fail(c, ERR_INVALID, "--bad %s is not a commit of %s", bad_rev, c->repo);
		goto out;
	}
	if (strcmp(good.data, bad.data) == 0) {
		bisect_fail(c, ERR_INVALID,
		            "--good %s and --bad %s are one commit (%s): nothing to search",
		            good_rev, bad_rev, bisect_engine_short(good.data));
		goto out;
	}
	if (gitrev_run(c->repo, &list, "merge-base", "--is-ancestor", good.data, bad.data, NULL) !=
	    0) {
		bisect_fail(
		    c, ERR_INVALID,
		    "--good %s (%s) is not an ancestor of --bad %s (%s): the good end comes "
		    "first in the history",
		    good_rev, bisect_engine_short(good.data), bad_rev,
		    bisect_engine_short(bad.data));
		goto out;
	}
	range = xasprintf("%s..%s", good.data, bad.data);
	if (gitrev_run(c->repo, &list, "log", "--first-parent", "--reverse", "--format=%H %P",
	               range, NULL) != 0 ||
	    gitrev_run(c->repo, &subj, "log", "-1", "--format=%s", good.data, NULL) != 0) {
		bisect_fail(c, ERR_FAILED, "git log %s failed in %s", range, c->repo);
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
			bisect_fail(c, ERR_INVALID,
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
		bisect_fail(c, ERR_FAILED, "git log %s in %s did not end at --bad %s", range,
		            c->repo, bad_rev);
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

int bisect_engine_add_probe(struct bisect_engine *c, const char *name)
{
	for (size_t j = 0; j < c->nprobes; j++)
		if (strcmp(c->probes[j].name, name) == 0)
			return bisect_fail(c, ERR_INVALID, "--probe %s is named twice", name);
	c->probes = xrealloc(c->probes, (c->nprobes + 1) * sizeof *c->probes);
	memset(&c->probes[c->nprobes], 0, sizeof *c->probes);
	c->probes[c->nprobes++].name = xstrdup(name);
	return 0;
}

char *bisect_engine_probe_list(const struct bisect_engine *c, const char *sep)
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

/* A file's bytes, or each regular file of a folder (one level), under its own name. */
static void bisect_digest_path(struct sha256 *h, const char *path)
{
	if (bisect_is_dir(path))
		bisect_digest_folder(h, path, ".");
	else
		bisect_digest_file(h, path, path);
}

/*
 * The environment a build reads without being told: the compiler and its flags, as make and
 * most build scripts take them from the environment. A build command's own $NAME references
 * are added by bisect_digest_command.
 */
static const char *const bisect_build_env[] = {"CC",
                                               "CXX",
                                               "CPP",
                                               "CFLAGS",
                                               "CPPFLAGS",
                                               "CXXFLAGS",
                                               "LDFLAGS",
                                               "LDLIBS",
                                               "LIBS",
                                               "AR",
                                               "LD",
                                               "MAKEFLAGS",
                                               "CPATH",
                                               "LIBRARY_PATH",
                                               "C_INCLUDE_PATH",
                                               "PKG_CONFIG_PATH",
                                               "GCR_BISECT_ENV"};

static void bisect_digest_env(struct sha256 *h, const char *name)
{
	const char *v = getenv(name);

	sha256_update(h, name, strlen(name) + 1);
	if (v)
		sha256_update(h, v, strlen(v) + 1);
	else
		sha256_update(h, "(unset)", 7);
}

/*
 * What a build command names beyond its commit: every word that is an absolute path to a
 * file (after a VAR= or -I-style prefix is taken off and $GCR_BISECT_CHECKOUT is put for this
 * checkout) is read; every $NAME or ${NAME} it uses is an environment variable the
 * build is given. Edit the adapter a command compiles and the next bisect builds again.
 */
static void bisect_digest_command(struct sha256 *h, const struct bisect_engine *c)
{
	const char *s = c->target;

	for (const char *d = strchr(s, '$'); d; d = strchr(d + 1, '$')) {
		const char *n = d + 1 + (d[1] == '{');
		size_t len = 0;
		char name[128];
		while (n[len] == '_' || isalnum((unsigned char)n[len]))
			len++;
		if (len == 0 || len >= sizeof name || isdigit((unsigned char)n[0]))
			continue;
		memcpy(name, n, len);
		name[len] = '\0';
		if (strncmp(name, "GCR_BISECT_", 11) != 0)
			bisect_digest_env(h, name);
	}
	while (*s) {
		size_t len = strcspn(s, " \t\n;&|<>()'\"`");
		char *word = xasprintf("%.*s", (int)len, s), *path;
		struct stat sb;
		const char *w = word, *eq = strchr(word, '=');
		/* -I/x/include, ADAPTER=/x/a.c: the path is what follows the prefix. */
		if (eq && (eq[1] == '/' || eq[1] == '$'))
			w = eq + 1;
		else if (w[0] == '-' && isalpha((unsigned char)w[1]) &&
		         (w[2] == '/' || w[2] == '$'))
			w += 2;
		if (strncmp(w, "$GCR_BISECT_CHECKOUT", 20) == 0)
			path = xasprintf("%s%s", c->checkout, w + 20);
		else if (strncmp(w, "${GCR_BISECT_CHECKOUT}", 22) == 0)
			path = xasprintf("%s%s", c->checkout, w + 22);
		else
			path = xstrdup(w);
		/* Files only: a folder named (cd /tmp, -C /usr/src) may be anything; a folder
		 * the build reads is declared with --build-input. */
		if (path[0] == '/' && stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
			bisect_digest_file(h, path, path);
		free(path);
		free(word);
		s += len;
		s += strspn(s, " \t\n;&|<>()'\"`");
	}
}

/*
 * What every build of this bisect reads beyond its commit, as one digest made once: the
 * compiler (the first line of `${CC:-cc} --version`), the environment that steers it,
 * --build-input's files, and for a build command the files and variables it names. Each
 * commit's key takes it whole, so none of it is read again per commit.
 */
static const char *bisect_inputs(struct bisect_engine *c)
{
	const char *const argv[] = {"sh", "-c", "${CC:-cc} --version 2>&1 | head -n 1", NULL};
	char hex[SHA256_HEX_LEN + 1];
	struct sbuf cc;
	struct sha256 h;

	if (c->inputs)
		return c->inputs;
	sbuf_init(&cc);
	if (run_capture((char *const *)argv, 1, &cc) != 0 || !cc.len)
		sbuf_addf(&cc, "(no compiler answers)");
	sha256_init(&h);
	sha256_update(&h, cc.data, cc.len + 1);
	for (size_t i = 0; i < sizeof bisect_build_env / sizeof *bisect_build_env; i++)
		bisect_digest_env(&h, bisect_build_env[i]);
	for (size_t i = 0; i < c->build_inputs.n; i++)
		bisect_digest_path(&h, c->build_inputs.items[i]);
	if (c->source == BISECT_SRC_CMD)
		bisect_digest_command(&h, c);
	sha256_final_hex(&h, hex);
	sbuf_release(&cc);
	c->inputs = xstrdup(hex);
	return c->inputs;
}

/*
 * The key of a commit's build folder: what makes the build what it is. The commit, the
 * source and its target, the build options and, for an outside collector, the probes built
 * and every file of the gcratchet checkout its build reads (the probes, their runtime, the
 * ABI header, the common code, the make rules): a change to any of them is another build.
 * Also the compiler, the environment that steers it, --build-input's files, and for a build
 * command the files and variables it names, as one digest (bisect_inputs). (build-rev.sh
 * keys its own cache of a shipped collector's builds; this key names its log and remembered
 * failure.)
 */
static void bisect_build_key(struct bisect_engine *c, const char *commit,
                             char key[SHA256_HEX_LEN + 1])
{
	static const char *const files[] = {"collectors/build.mk", "collectors/collector-dir.mk",
	                                    "collectors/quote.mk", "scripts/manifest.sh"};
	static const char *const folders[] = {"collectors/include", "collectors/common",
	                                      "probes/runtime"};
	struct sha256 h;

	sha256_init(&h);
	sha256_update(&h, "gcratchet-bisect-build 2", 25);
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
	sha256_update(&h, bisect_inputs(c), SHA256_HEX_LEN);
	sha256_final_hex(&h, key);
}

/* PROBE_SRCS=...: only the probes bisected are built (a build of one probe takes a second). */
static char *bisect_probe_srcs(const struct bisect_engine *c, const char *prefix)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_addf(&b, "PROBE_SRCS=");
	for (size_t i = 0; i < c->nprobes; i++)
		sbuf_addf(&b, "%s%s%s.c", i ? " " : "", prefix, c->probes[i].name);
	return sbuf_detach(&b);
}

/*
 * The command that builds commit cm: scripts/build-rev.sh for a shipped collector (it says
 * where it built), scripts/bisect-build.sh into dir for the others; NULL-terminated, *argc
 * its length, newly allocated.
 */
static char **bisect_build_argv(const struct bisect_engine *c, const struct bisect_commit *cm,
                                const char *script, const char *dir, size_t *argc)
{
	char **argv = xcalloc(16 + c->make_vars.n, sizeof *argv);
	size_t n = 0;

	argv[n++] = xstrdup("sh");
	argv[n++] = xstrdup(script);
	if (c->source == BISECT_SRC_COLLECTOR) {
		argv[n++] = xstrdup(cm->hash);
		argv[n++] = xstrdup(c->target);
		argv[n++] = bisect_probe_srcs(c, "probes/");
	} else {
		argv[n++] = xstrdup(c->source == BISECT_SRC_DIR ? "dir" : "cmd");
		argv[n++] = xstrdup(c->repo);
		argv[n++] = xstrdup(cm->hash);
		argv[n++] = xstrdup(dir);
		argv[n++] = xstrdup(c->checkout);
		if (c->source == BISECT_SRC_DIR) {
			char *prefix = xasprintf("%s/probes/", c->checkout);
			argv[n++] = xstrdup(c->subdir);
			argv[n++] = xasprintf("%s@%s", c->name, bisect_engine_short(cm->hash));
			argv[n++] = bisect_probe_srcs(c, prefix);
			free(prefix);
		} else {
			argv[n++] = xstrdup(c->target);
		}
	}
	for (size_t k = 0; c->source != BISECT_SRC_CMD && k < c->make_vars.n; k++)
		argv[n++] = xstrdup(c->make_vars.items[k]);
	*argc = n;
	return argv;
}

/*
 * Where build-rev.sh built: the last line of its output (outp) in *dir, and *cached when its
 * log says it was "reusing" a build. -1 when its output cannot be read.
 */
static int bisect_rev_dir(struct bisect_engine *c, const char *outp, const char *log, char **dir,
                          int *cached)
{
	char *text = NULL, *last;
	size_t len;
	struct err e = ERR_INIT;

	if (read_file(outp, &text, &len, &e) != 0)
		return bisect_fail(c, e.code, "%s", e.msg);
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	last = strrchr(text, '\n');
	*dir = xstrdup(last ? last + 1 : text);
	free(text);
	text = NULL;
	if (read_file(log, &text, &len, &e) == 0)
		*cached = strstr(text, ": reusing ") != NULL;
	free(text);
	return 0;
}

/*
 * What a build's exit status st (bisect_spawn's; e its error) says of commit cm: 0 built; 1
 * it does not build or ran out of time (cm->reason says so and where the log is); -1 the
 * harness failed; -2 interrupted.
 */
static int bisect_build_status(struct bisect_engine *c, struct bisect_commit *cm, int st,
                               const char *log, const struct err *e)
{
	char *why;

	if (st == -2)
		return -2;
	if (st == -3) {
		cm->reason = xasprintf("build timed out after %d s (--build-timeout; log: %s)",
		                       c->build_timeout_s, log);
		return 1;
	}
	if (st == -1)
		return bisect_fail(c, ERR_FAILED, "building %s: %s", bisect_engine_short(cm->hash),
		                   e->msg);
	if (st == 0)
		return 0;
	why = bisect_log_file_reason(log);
	cm->reason = xasprintf("does not build: %s (log: %s)", why ? why : "no output", log);
	free(why);
	return 1;
}

/*
 * A build that failed is remembered by its key (beside its log, as FAILED), with its reason:
 * the same commit with the same inputs fails the same way, so it is not built again unless
 * --retry-failed says so. A build that ran out of time is not remembered: the next may not.
 * 1 with cm->reason when a failure is remembered, else 0.
 */
static int bisect_remembered_failure(const struct bisect_engine *c, struct bisect_commit *cm,
                                     const char *failed)
{
	char *text = NULL;
	size_t len;
	struct err e;

	if (c->retry_failed || read_file(failed, &text, &len, &e) != 0)
		return 0;
	while (len > 0 && text[len - 1] == '\n')
		text[--len] = '\0';
	cm->reason = xasprintf("%s; remembered from an earlier build with the same inputs "
	                       "(--retry-failed builds it again)",
	                       text);
	free(text);
	return 1;
}

/*
 * Builds commit i, or finds its build in the cache. 0 with commits[i].dir (a build folder
 * that loads) and *cached; 1 when it does not build (commits[i].reason says why and where
 * the log is); -1 when the harness failed; -2 when interrupted. Asked again for a commit it
 * has, it says what it said the first time: a build is "built (N s)" once and every time.
 */
static int bisect_build(struct bisect_engine *c, size_t i, int *cached, double *secs)
{
	struct bisect_commit *cm = &c->commits[i];
	char key[SHA256_HEX_LEN + 1];
	char *dir = NULL, *log = NULL, *outp = NULL, *script = NULL;
	char *manifest = NULL, *logs = NULL, *failed = NULL;
	char **argv = NULL;
	size_t argc = 0;
	struct buildinfo b;
	struct err e = ERR_INIT;
	int64_t t0 = now_mono_ns();
	int rc = -1, st = 0;

	*cached = cm->reused;
	*secs = cm->build_s;
	if (cm->dir)
		return 0;
	bisect_build_key(c, cm->hash, key);
	logs = xasprintf("%s/logs", c->cache);
	if (mkdir(c->cache, 0755) != 0 && errno != EEXIST) {
		bisect_fail(c, ERR_IO, "cannot create the build cache %s: %s", c->cache,
		            strerror(errno));
		goto out;
	}
	if (mkdir(logs, 0755) != 0 && errno != EEXIST) {
		bisect_fail(c, ERR_IO, "cannot create %s: %s", logs, strerror(errno));
		goto out;
	}
	log = xasprintf("%s/%s-%.12s.log", logs, bisect_engine_short(cm->hash), key);
	failed = xasprintf("%s/%s-%.12s.FAILED", logs, bisect_engine_short(cm->hash), key);
	if (bisect_remembered_failure(c, cm, failed)) {
		rc = 1;
		goto out;
	}
	if (c->source == BISECT_SRC_COLLECTOR) {
		/* build-rev.sh has its cache, keyed by tree and options; it says where. */
		outp = xasprintf("%s.out", log);
	} else {
		dir = xasprintf("%s/%s@%s-%.12s", c->cache,
		                c->source == BISECT_SRC_DIR ? c->name : "cmd",
		                bisect_engine_short(cm->hash), key);
		manifest = xasprintf("%s/manifest.json", dir);
		if (access(manifest, F_OK) == 0) {
			*cached = 1;
			goto load;
		}
	}
	script = xstrdup(c->source == BISECT_SRC_COLLECTOR ? c->build_rev_script
	                                                   : c->bisect_build_script);
	argv = bisect_build_argv(c, cm, script, dir, &argc);
	if (access(script, R_OK) != 0) {
		bisect_fail(c, ERR_NOT_FOUND, "%s is missing: it builds each commit", script);
		goto out;
	}
	/* A fresh log for each attempt: what it says is about this build. */
	if (truncate(log, 0) != 0 && errno != ENOENT) {
		bisect_fail(c, ERR_IO, "%s: %s", log, strerror(errno));
		goto out;
	}
	st = bisect_spawn(argv, outp, log, c->build_timeout_s, c->stop, &e);
	if ((rc = bisect_build_status(c, cm, st, log, &e)) != 0)
		goto out;
	rc = -1;
	if (c->source == BISECT_SRC_COLLECTOR && bisect_rev_dir(c, outp, log, &dir, cached) != 0)
		goto out;
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
	if (rc == 0) {
		cm->reused = *cached;
		cm->build_s = *secs;
		unlink(failed);
	} else if (rc == 1 && st != -3 && !strstr(cm->reason, "; remembered from")) {
		/* Kept only when it can be written: a cache that cannot is not worth failing for. */
		int fd = open(failed, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			if (write(fd, cm->reason, strlen(cm->reason)) < 0)
				unlink(failed);
			close(fd);
		}
	}
	for (size_t k = 0; k < argc; k++)
		free(argv[k]);
	free(argv);
	free(dir);
	free(log);
	free(logs);
	free(outp);
	free(script);
	free(manifest);
	free(failed);
	return rc;
}

int bisect_engine_available_probes(struct bisect_engine *c, struct strlist *out)
{
	struct buildinfo bi;
	struct err e = ERR_INIT;
	double secs;
	int cached, r;

	if (c->source != BISECT_SRC_CMD) {
		char *dir = xasprintf("%s/probes", c->checkout);
		bisect_list_probes(dir, out);
		free(dir);
		return 0;
	}
	/* A build command says what its probes are: the good end's manifest. */
	if ((r = bisect_build(c, 0, &cached, &secs)) != 0)
		return r;
	if (buildinfo_load(c->commits[0].dir, &bi, &e) != 0)
		return bisect_fail(c, e.code, "%s", e.msg);
	for (size_t i = 0; i < bi.probes.n; i++)
		strlist_push(out, bi.probes.items[i]);
	buildinfo_release(&bi);
	return 0;
}

/* ---- Measuring ------------------------------------------------------------------------- */

/* The meters that measure the metric: valgrind for Ir and the cache simulation, perf for an
 * event (which it names in *events), and always rusage and the census. Newly allocated. */
static void bisect_meters(const struct bisect_engine *c, char **meters, char **events)
{
	*events = NULL;
	if (strncmp(c->metric, "cachesim.", 9) == 0)
		*meters = xstrdup("rusage,census,valgrind,cachesim");
	else if (c->kind == RUN_KIND_VALGRIND)
		*meters = xstrdup("rusage,census,valgrind");
	else if (strncmp(c->metric, "perf.", 5) == 0) {
		*meters = xstrdup("rusage,census,perf");
		*events = xstrdup(c->metric + 5);
	} else {
		*meters = xstrdup("rusage,census");
	}
}

/* What measure_many was given: m's owned strings, released by bisect_plan_release. */
struct bisect_plan {
	struct bisect_measure m;
	const char *dirs[BISECT_MAX_ARMS], *hashes[BISECT_MAX_ARMS];
	char *probes, *command, *meters, *events;
};

/*
 * The measurement of the builds of commits idx[0..narms-1] (narms <= BISECT_MAX_ARMS) as
 * arms, in that order: `n` measured rounds, or n valgrind runs per probe and arm for a
 * valgrind metric, of every probe (all_probes: the ends) or those that moved, or probe `only`
 * when not NULL (no_aslr: with address randomisation off, whatever the options say).
 */
static void bisect_plan_of(const struct bisect_engine *c, const size_t *idx, size_t narms, int n,
                           int warmup, int all_probes, const char *only, int no_aslr,
                           const char *what, struct bisect_plan *p)
{
	struct bisect_measure *m = &p->m;
	struct strlist probes = {0};

	memset(p, 0, sizeof *p);
	for (size_t a = 0; a < narms && a < BISECT_MAX_ARMS; a++) {
		p->dirs[a] = c->commits[idx[a]].dir;
		p->hashes[a] = c->commits[idx[a]].hash;
	}
	for (size_t i = 0; i < c->nprobes; i++)
		if (only ? strcmp(only, c->probes[i].name) == 0 : all_probes || c->probes[i].moved)
			strlist_push(&probes, c->probes[i].name);
	p->probes = strlist_join(&probes, ",");
	strlist_release(&probes);
	bisect_meters(c, &p->meters, &p->events);
	p->command = xasprintf("%s (bisect %lld: %s)", c->command, (long long)c->id, what);
	m->dirs = p->dirs;
	m->hashes = p->hashes;
	m->narms = narms < BISECT_MAX_ARMS ? narms : BISECT_MAX_ARMS;
	m->probes = p->probes;
	m->meters = p->meters;
	m->events = p->events;
	if (c->kind == RUN_KIND_VALGRIND) {
		m->valgrind_runs = n;
	} else {
		m->rounds = n;
		m->warmup = warmup;
	}
	m->command = p->command;
	m->halt_on_failure = 1;
	m->no_aslr = no_aslr;
}

static void bisect_plan_release(struct bisect_plan *p)
{
	free(p->probes);
	free(p->command);
	free(p->meters);
	free(p->events);
}

/*
 * Runs the n plans, independent of one another: by hooks.measure_many when there is one (a
 * fleet runs them at once), else one by one with hooks.measure, stopping at the first that is
 * interrupted. out[i] is zeroed first. Returns 0 when each ran or failed on its own, -2 when
 * interrupted (*c->stop set).
 */
static int bisect_measure_plans(struct bisect_engine *c, const struct bisect_plan *plans, size_t n,
                                struct bisect_measured *out)
{
	int r = 0;

	memset(out, 0, n * sizeof *out);
	for (size_t i = 0; i < n; i++)
		out[i].err = (struct err)ERR_INIT;
	if (c->hooks.measure_many) {
		struct bisect_measure *ms = xcalloc(n ? n : 1, sizeof *ms);
		for (size_t i = 0; i < n; i++)
			ms[i] = plans[i].m;
		r = c->hooks.measure_many(c->hooks.ctx, ms, n, out);
		free(ms);
	} else {
		for (size_t i = 0; i < n && r == 0; i++) {
			struct bisect_measured *o = &out[i];
			o->rc = c->hooks.measure(c->hooks.ctx, &plans[i].m, &o->session_id,
			                         &o->runs, &o->nruns, &o->err);
			if (o->rc == -2)
				r = -2;
		}
		for (size_t i = 0; i < n; i++)
			if (r == -2 && out[i].rc == 0 && !out[i].session_id && !out[i].runs)
				out[i].rc = -2;
	}
	if (r == -2 && !*c->stop)
		*c->stop = 1;
	return r;
}

/*
 * One session of bisect_plan_of's measurement, run by the hooks. 0 with *session_id and the
 * runs (released by the caller); -1 when the harness failed (c->err); -2 when interrupted
 * (the session is kept).
 */
static int bisect_session_of(struct bisect_engine *c, const size_t *idx, size_t narms, int n,
                             int warmup, int all_probes, const char *only, int no_aslr,
                             const char *what, int64_t *session_id, struct store_run **runs,
                             size_t *nruns)
{
	struct bisect_plan p;
	struct bisect_measured o;
	int r;

	bisect_plan_of(c, idx, narms, n, warmup, all_probes, only, no_aslr, what, &p);
	bisect_measure_plans(c, &p, 1, &o);
	r = o.rc;
	*session_id = o.session_id;
	*runs = o.runs;
	*nruns = o.nruns;
	c->err = o.err;
	if (r == -2 && !*c->stop)
		*c->stop = 1;
	free(o.host);
	bisect_plan_release(&p);
	return r;
}

/* bisect_session_of with every probe (all_probes) or those that moved, as the options say. */
static int bisect_session(struct bisect_engine *c, const size_t *idx, size_t narms, int n,
                          int warmup, int all_probes, const char *what, int64_t *session_id,
                          struct store_run **runs, size_t *nruns)
{
	return bisect_session_of(c, idx, narms, n, warmup, all_probes, NULL, 0, what, session_id,
	                         runs, nruns);
}

/* What one arm's runs of one probe measured. */
struct bisect_values {
	double *v;
	int *key; /* the round of a timed run, the ordinal of a valgrind run: what pairs them */
	size_t n;
	char *failure;               /* the first run that was not ok, in words; NULL when none */
	enum run_status fail_status; /* ... and its status */
	char *checksum;              /* the first ok run's, or NULL */
	int missing;                 /* ok runs that did not report the metric */
};

static void bisect_values_release(struct bisect_values *v)
{
	free(v->v);
	free(v->key);
	free(v->failure);
	free(v->checksum);
	memset(v, 0, sizeof *v);
}

static void bisect_collect(const struct bisect_engine *c, const struct store_run *runs, size_t n,
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
				out->fail_status = r->status;
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
static char *bisect_unusable(const struct bisect_engine *c, const struct bisect_values *v,
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

/* The run that made a step a skip (or the ends no search) when it crashed: which probe, where. */
struct bisect_crash {
	const char *probe; /* NULL: it did not crash */
	size_t commit;
};

/* Notes the crash of v (the values of `probe` at commit i that were unusable), the first. */
static void bisect_crash_seen(const struct bisect_values *v, size_t i, const char *probe,
                              struct bisect_crash *cr)
{
	if (!cr->probe && v->failure && v->fail_status == RUN_STATUS_CRASHED) {
		cr->probe = probe;
		cr->commit = i;
	}
}

/*
 * A run of cr->probe at cr->commit crashed: runs it once more with address randomisation off,
 * to tell a crash of the code from one of the address layout (on a real history, 5 of 8 runs
 * of one commit crashed with it on, none of 18 with it off, and --no-aslr made the history
 * bisectable). *note says what that run showed, for the skip's reason (newly allocated), or
 * NULL when no check was made: nothing crashed, or the runs have it off already (--no-aslr,
 * and valgrind's always). Its session goes to sids. 0; -1 and -2 as bisect_session.
 */
static int bisect_layout_check(struct bisect_engine *c, const struct bisect_crash *cr, char **note,
                               int64_t **sids, size_t *nsids)
{
	struct store_run *runs = NULL;
	size_t nruns = 0, idx[1];
	struct bisect_values v;
	int64_t sid = 0;
	char what[160];
	int r;

	*note = NULL;
	if (!cr->probe || c->no_aslr || c->kind == RUN_KIND_VALGRIND)
		return 0;
	idx[0] = cr->commit;
	snprintf(what, sizeof what, "%s crashed at %s: once more with address randomisation off",
	         cr->probe, bisect_engine_short(c->commits[cr->commit].hash));
	r = bisect_session_of(c, idx, 1, 1, 0, 0, cr->probe, 1, what, &sid, &runs, &nruns);
	if (sid) {
		*sids = xrealloc(*sids, (*nsids + 1) * sizeof **sids);
		(*sids)[(*nsids)++] = sid;
	}
	if (r != 0) {
		store_runs_release(runs, nruns);
		return r;
	}
	bisect_collect(c, runs, nruns, 0, cr->probe, &v);
	if (!v.failure && v.n)
		*note =
		    xstrdup("run once more with address randomisation off, it did not crash: the "
		            "crash depends on the address layout, and --no-aslr runs every probe "
		            "so");
	else if (v.failure && v.fail_status == RUN_STATUS_CRASHED)
		*note = xstrdup("it crashed with address randomisation off too");
	bisect_values_release(&v);
	store_runs_release(runs, nruns);
	return 0;
}

static char *bisect_session_list(const int64_t *ids, size_t n)
{
	struct sbuf b;

	sbuf_init(&b);
	for (size_t i = 0; i < n; i++)
		sbuf_addf(&b, "%s%lld", i ? " " : "", (long long)ids[i]);
	return sbuf_detach(&b);
}

/* ---- Steps: stored, applied and sent --------------------------------------------------- */

static size_t bisect_commit_index(const struct bisect_engine *c, const char *hash)
{
	for (size_t i = 0; i < c->ncommits; i++)
		if (strcmp(c->commits[i].hash, hash) == 0)
			return i;
	return SIZE_MAX;
}

static ssize_t bisect_probe_index(const struct bisect_engine *c, const char *name)
{
	for (size_t i = 0; i < c->nprobes; i++)
		if (strcmp(c->probes[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

/* "1% (at least 1000)", "10% (at least 2 ms)", "3", "any change". */
void bisect_engine_threshold_text(const struct bisect_engine *c, char *buf, size_t size)
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

double bisect_engine_pct(double v, double base)
{
	return base != 0 ? 100 * (v - base) / fabs(base) : NAN;
}

/* "+2.20%", or "+1" from a figure of 0, where no percentage exists. */
void bisect_engine_change_text(const struct bisect_engine *c, double before, double after,
                               char *buf, size_t size)
{
	char v[24];
	double pct = bisect_engine_pct(after, before);

	if (isfinite(pct)) {
		snprintf(buf, size, "%+.2f%%", pct);
		return;
	}
	metrics_format_value(c->metric, fabs(after - before), v, sizeof v);
	snprintf(buf, size, "%s%s", after < before ? "-" : "+", v);
}

void bisect_engine_json_number(cJSON *o, const char *key, double v)
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
 * A scan's step (or bad end), probe p's member of its figures: how far the figure moved into
 * commit i ("into", "into_pct") and, for a step, into the measured commit after it ("next",
 * "next_pct"), which bisect_scan_apply finds.
 */
static void bisect_scan_apply_probe(struct bisect_engine *c, size_t i, size_t p, const cJSON *item)
{
	const cJSON *into = cJSON_GetObjectItemCaseSensitive(item, "into");
	const cJSON *pct = cJSON_GetObjectItemCaseSensitive(item, "into_pct");

	if (cJSON_IsNumber(into))
		c->into[i * c->nprobes + p] = into->valuedouble;
	if (cJSON_IsNumber(pct))
		c->into_pct[i * c->nprobes + p] = pct->valuedouble;
}

/* A link as a scan step stored it ("same" when missing: nothing to split). */
static enum bisect_link bisect_scan_link_of(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	enum bisect_link l = BISECT_LINK_SAME;

	if (cJSON_IsString(x))
		bisect_link_parse(x->valuestring, &l);
	return l;
}

/*
 * Takes a scan's step into the scanner: the bad end's link to the good end, a measured
 * commit's links to its neighbours (its figures' "scan" member) with what moved into the one
 * after it, or a skip.
 */
static void bisect_scan_apply(struct bisect_engine *c, const struct store_bisect_step *st, size_t i,
                              const cJSON *root)
{
	const cJSON *scan = root ? cJSON_GetObjectItemCaseSensitive(root, "scan") : NULL, *pass;
	size_t right = i;

	if (strcmp(st->role, "bad") == 0) {
		c->scanner.link[i] = bisect_scan_link_of(scan, "link");
		return;
	}
	if (strcmp(st->role, "step") != 0)
		return;
	if (strcmp(st->decision, "skip") == 0 || !scan) {
		bisect_scan_skipped(&c->scanner, i);
		return;
	}
	bisect_scan_measured(&c->scanner, i, bisect_scan_link_of(scan, "left"),
	                     bisect_scan_link_of(scan, "right"));
	pass = cJSON_GetObjectItemCaseSensitive(scan, "pass");
	if (cJSON_IsNumber(pass) && pass->valuedouble > c->passes)
		c->passes = (unsigned)pass->valuedouble;
	for (size_t k = i + 1; k < c->ncommits; k++)
		if (c->scanner.state[k] == 1) {
			right = k;
			break;
		}
	if (right == i)
		return;
	for (size_t p = 0; p < c->nprobes; p++) {
		const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, c->probes[p].name);
		const cJSON *next = cJSON_GetObjectItemCaseSensitive(item, "next");
		const cJSON *pct = cJSON_GetObjectItemCaseSensitive(item, "next_pct");
		if (cJSON_IsNumber(next))
			c->into[right * c->nprobes + p] = next->valuedouble;
		if (cJSON_IsNumber(pct))
			c->into_pct[right * c->nprobes + p] = pct->valuedouble;
	}
}

/*
 * Takes a step into the search: its mark, its commit's build and figures (the figure of each
 * probe: "value", or an end's "median"), and for the ends what each probe measured there.
 * The same for a step just measured and one read back by --resume.
 */
static void bisect_apply(struct bisect_engine *c, const struct store_bisect_step *st)
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
	if (!st->figures ||
	    json_parse(st->figures, strlen(st->figures), "figures", &root, &e) != 0) {
		if (c->scan)
			bisect_scan_apply(c, st, i, NULL);
		return;
	}
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
		if (strcmp(st->role, "step") == 0) {
			if (c->scan)
				bisect_scan_apply_probe(c, i, (size_t)p, item);
			continue;
		}
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
	if (c->scan)
		bisect_scan_apply(c, st, i, root);
	cJSON_Delete(root);
}

/*
 * Stores a step (the ends too), keeps it, takes it into the search and sends it as an event.
 * The figures (a JSON object, NULL for none) are consumed. -1 when the store failed.
 */
static int bisect_record(struct bisect_engine *c, const char *role, size_t i, enum bisect_mark m,
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
		bisect_fail(c, e.code, "%s", e.msg);
		goto out;
	}
	c->steps = xrealloc(c->steps, (c->nsteps + 1) * sizeof *c->steps);
	keep = &c->steps[c->nsteps++];
	*keep = st;
	bisect_apply(c, keep);
	{
		struct bisect_event ev = {.kind = BISECT_EV_STEP, .step = keep};
		bisect_emit(c, &ev);
	}
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

/*
 * Builds commit i for an end, which must build: bisect_build's return, with the outcome sent
 * as an event (END_BUILT, or END_BROKEN when it does not build or was interrupted).
 */
static int bisect_build_end(struct bisect_engine *c, size_t i, const char *role, double *secs)
{
	struct bisect_event ev = {.role = role, .commit = i};
	int r = bisect_build(c, i, &ev.cached, secs);

	ev.secs = *secs;
	ev.interrupted = r == -2;
	ev.kind = r == 0 ? BISECT_EV_END_BUILT : BISECT_EV_END_BROKEN;
	if (r >= 0 || r == -2)
		bisect_emit(c, &ev);
	return r;
}

/* Fills one end's figure of probe p: its values, median and checksum. */
static void bisect_end_figure(cJSON *o, const double *v, size_t n, const char *sum)
{
	cJSON_AddItemToObject(o, "values", cJSON_CreateDoubleArray(v, (int)n));
	bisect_engine_json_number(o, "median", n ? stats_median(v, n) : NAN);
	cJSON_AddItemToObject(o, "checksum", escape_json_string(sum));
}

/*
 * Why the ends do not make a search: for each probe what it did, *other_way of them moved
 * beyond the threshold the other way. Newly allocated; the caller has found that no probe moved
 * the way sought.
 */
static char *bisect_unmoved_text(const struct bisect_engine *c, const struct bisect_paired *paired,
                                 size_t *other_way)
{
	struct sbuf b;
	char thr[64];

	bisect_engine_threshold_text(c, thr, sizeof thr);
	sbuf_init(&b);
	for (size_t i = 0; i < c->nprobes; i++) {
		const struct bisect_probe *p = &c->probes[i];
		double g = p->ngood ? stats_median(p->good, p->ngood) : NAN;
		double bad = p->nbad ? stats_median(p->bad, p->nbad) : NAN;
		char gs[24], bs[24], ch[32];
		metrics_format_value(c->metric, g, gs, sizeof gs);
		metrics_format_value(c->metric, bad, bs, sizeof bs);
		bisect_engine_change_text(c, g, bad, ch, sizeof ch);
		sbuf_addf(&b, "%s%s %s -> %s (%s)", i ? "; " : "", p->name, gs, bs, ch);
		if (paired && paired[i].answer == BISECT_ANSWER_CANNOT_TELL)
			sbuf_addf(&b, ": cannot tell after %zu rounds whether it moved beyond %s",
			          paired[i].cell.n, thr);
		else if (c->rule.want && (bad - g) * c->rule.want < 0 &&
		         fabs(bad - g) > bisect_allowance(&c->rule, g)) {
			sbuf_addf(&b, "%s",
			          c->improved
			              ? ": it regressed, and --improved looks for an "
			                "improvement (without it bisect looks for a regression)"
			              : ": it improved, and bisect looks for a regression "
			                "(--improved looks for an improvement)");
			++*other_way;
		} else
			sbuf_addf(&b, ": within the threshold %s", thr);
	}
	return sbuf_detach(&b);
}

/*
 * "the bad end's census says clock_paced" when a census metric is bisected and a build of the
 * ends' session says its census varies (caps.h): its counters are then judged by paired runs,
 * never compared exactly. NULL otherwise; static storage.
 */
static const char *bisect_census_varies(struct bisect_engine *c, int64_t sid)
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

/*
 * Takes one session of the ends into each probe's values (exact mode: the values of this
 * session only; paired: added to the pairs so far) and its checksums. 1 with *detail when an
 * end cannot be measured.
 */
static int bisect_ends_take(struct bisect_engine *c, const size_t ends[2],
                            const struct store_run *runs, size_t nruns, char **detail,
                            struct bisect_crash *cr)
{
	for (size_t i = 0; i < c->nprobes && !*detail; i++) {
		struct bisect_probe *p = &c->probes[i];
		struct bisect_values v[2];
		char *why[2];
		bisect_collect(c, runs, nruns, 0, p->name, &v[0]);
		bisect_collect(c, runs, nruns, 1, p->name, &v[1]);
		for (int k = 0; k < 2; k++) {
			why[k] = bisect_unusable(c, &v[k], p->name, NULL);
			if (why[k] && !*detail) {
				*detail = xasprintf(
				    "the %s end %s cannot be measured: %s", k ? "bad" : "good",
				    bisect_engine_short(c->commits[ends[k]].hash), why[k]);
				bisect_crash_seen(&v[k], ends[k], p->name, cr);
			}
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
	return *detail ? 1 : 0;
}

/*
 * Exact mode, after each end was measured twice (session sid): 1 when it holds
 * (bisect_exact_holds); 0 when the search falls back to paired runs, the probes' values
 * dropped and an event saying why.
 */
static int bisect_ends_exact_check(struct bisect_engine *c, int64_t sid)
{
	const char *says = bisect_census_varies(c, sid);
	struct bisect_ends *ends_of = xcalloc(c->nprobes ? c->nprobes : 1, sizeof *ends_of);
	int repeats;

	for (size_t i = 0; i < c->nprobes; i++) {
		struct bisect_probe *p = &c->probes[i];
		bisect_ends_exact(&c->rule, p->good, p->ngood, p->bad, p->nbad, &p->ends);
		ends_of[i] = p->ends;
	}
	repeats = bisect_exact_holds(ends_of, c->nprobes, says != NULL);
	free(ends_of);
	if (says) {
		struct bisect_event ev = {.kind = BISECT_EV_CENSUS_VARIES, .text = says};
		bisect_emit(c, &ev);
		c->rule.pol.varies = 1;
	}
	if (repeats)
		return 1;
	/* Not exact after all: a conservative collector's Ir, a JIT's counts. */
	for (size_t i = 0; i < c->nprobes; i++) {
		struct bisect_probe *p = &c->probes[i];
		if (!p->ends.repeats && !says) {
			struct bisect_event ev = {.kind = BISECT_EV_NOT_REPEATED, .probe = p->name};
			ev.text = p->ngood >= 2 && p->good[0] != p->good[1] ? "the good end"
			                                                    : "the bad end";
			bisect_emit(c, &ev);
		}
		free(p->good);
		free(p->bad);
		p->good = p->bad = NULL;
		p->ngood = p->nbad = 0;
	}
	return 0;
}

/* Paired: each probe decided at this look, after `total` rounds; 1 when any needs more. */
static int bisect_ends_look(struct bisect_engine *c, struct bisect_paired *paired, int total)
{
	int more = 0;

	for (size_t i = 0; i < c->nprobes; i++) {
		struct bisect_probe *p = &c->probes[i];
		int sign;
		double alpha = bisect_look_side(
		    &c->rule, bisect_look_alpha(c->rounds, c->max_rounds, c->nprobes), p->good,
		    p->bad, p->ngood, &sign);
		bisect_decide_paired(&c->rule, sign, p->good, p->bad, p->ngood, alpha,
		                     total >= c->max_rounds, &paired[i]);
		p->sign = sign;
		more |= paired[i].answer == BISECT_ANSWER_MORE;
	}
	return more;
}

/*
 * Measures the built ends until the mode is known and, paired, each probe is decided or the
 * budget spent: exact when the metric's class is and each end, measured twice, repeated
 * itself. The sessions go to *sessions, their time to *msecs. 0; 1 with *detail; -1; -2.
 */
static int bisect_ends_measure(struct bisect_engine *c, const size_t ends[2],
                               struct bisect_paired *paired, int64_t **sessions, size_t *nsessions,
                               double *msecs, char **detail, struct bisect_crash *cr)
{
	int total = 0;

	c->exact = c->rule.pol.exact;
	for (;;) {
		int n = c->exact ? 2 : bisect_batch(c->rounds, c->max_rounds, total);
		int64_t t0 = now_mono_ns(), sid = 0;
		struct store_run *runs = NULL;
		size_t nruns = 0;
		int r;

		r = bisect_session(c, ends, 2, n, c->exact ? 0 : c->warmup, 1,
		                   c->exact ? "the ends, twice each" : "the ends, paired", &sid,
		                   &runs, &nruns);
		*msecs += bisect_seconds(t0);
		if (sid) {
			*sessions = xrealloc(*sessions, (*nsessions + 1) * sizeof **sessions);
			(*sessions)[(*nsessions)++] = sid;
		}
		if (r != 0) {
			store_runs_release(runs, nruns);
			return r;
		}
		total += n;
		r = bisect_ends_take(c, ends, runs, nruns, detail, cr);
		store_runs_release(runs, nruns);
		if (r != 0)
			return r;
		if (c->exact) {
			if (bisect_ends_exact_check(c, sid))
				return 0;
			c->exact = 0;
			total = 0;
			continue;
		}
		if (!bisect_ends_look(c, paired, total))
			return 0;
	}
}

/*
 * Records the ends, with what each probe measured there and whether it moved (*nmoved of
 * them; *unsure when a paired probe could not be told). -1 when the store failed.
 */
static int bisect_ends_record(struct bisect_engine *c, const size_t ends[2],
                              const struct bisect_paired *paired, const int64_t *sessions,
                              size_t nsessions, const double bsecs[2], double msecs,
                              const char *started, int *nmoved, int *unsure)
{
	cJSON *fig[2] = {NULL, NULL};
	int r;

	for (size_t i = 0; i < c->nprobes; i++) {
		struct bisect_probe *p = &c->probes[i];
		cJSON *g, *b;
		if (c->exact) {
			p->moved = p->ends.moved;
			p->sign = p->ends.sign;
		} else {
			p->moved = paired[i].answer == BISECT_ANSWER_BAD;
			*unsure |= paired[i].answer == BISECT_ANSWER_CANNOT_TELL;
		}
		*nmoved += p->moved;
		g = bisect_figure(&fig[0], p->name);
		b = bisect_figure(&fig[1], p->name);
		bisect_end_figure(g, p->good, p->ngood, p->good_sum);
		bisect_end_figure(b, p->bad, p->nbad, p->bad_sum);
		bisect_engine_json_number(b, "delta_pct",
		                          bisect_engine_pct(stats_median(p->bad, p->nbad),
		                                            stats_median(p->good, p->ngood)));
		cJSON_AddBoolToObject(b, "moved", p->moved);
		cJSON_AddNumberToObject(b, "sign", p->sign < 0 ? -1 : 1);
		if (!c->exact)
			cJSON_AddNumberToObject(b, "n", (double)p->ngood);
	}
	if (c->scan) {
		cJSON *scan = cJSON_CreateObject();
		int moved = 0;
		for (size_t i = 0; i < c->nprobes; i++)
			moved |= c->probes[i].moved;
		cJSON_AddStringToObject(scan, "link",
		                        bisect_link_name(moved     ? BISECT_LINK_MOVED
		                                         : *unsure ? BISECT_LINK_CANNOT_TELL
		                                                   : BISECT_LINK_SAME));
		if (!fig[1])
			fig[1] = cJSON_CreateObject();
		cJSON_AddItemToObject(fig[1], "scan", scan);
	}
	r = bisect_record(c, "good", ends[0], BISECT_GOOD, NULL, sessions, nsessions, fig[0],
	                  bsecs[0], msecs, started);
	if (r == 0)
		r = bisect_record(c, "bad", ends[1], BISECT_BAD, NULL, sessions, nsessions, fig[1],
		                  bsecs[1], 0, started);
	else
		cJSON_Delete(fig[1]);
	return r;
}

/*
 * Builds and measures the two ends and decides the mode (bisect_ends_measure). 0 with the
 * ends recorded and the probes that moved known; 1 when they do not make a search (*detail
 * says why); -1 when the harness failed; -2 when interrupted.
 */
static int bisect_ends(struct bisect_engine *c, char **detail)
{
	size_t ends[2] = {0, c->ncommits - 1};
	int64_t *sessions = NULL;
	size_t nsessions = 0;
	struct bisect_paired *paired = xcalloc(c->nprobes ? c->nprobes : 1, sizeof *paired);
	double bsecs[2] = {0, 0}, msecs = 0;
	char started[32];
	struct err e = ERR_INIT;
	struct bisect_crash cr = {NULL, 0};
	int rc = -1, r, nmoved = 0, unsure = 0;

	*detail = NULL;
	format_utc(now_real_ns(), started, sizeof started);
	for (int k = 0; k < 2; k++) {
		r = bisect_build_end(c, ends[k], k ? "bad" : "good", &bsecs[k]);
		if (r != 0) {
			rc = c->commits[ends[k]].reason ? 1 : *c->stop ? -2 : -1;
			if (rc == 1)
				*detail = xasprintf("the %s end %s does not build: %s",
				                    k ? "bad" : "good",
				                    bisect_engine_short(c->commits[ends[k]].hash),
				                    c->commits[ends[k]].reason);
			goto out;
		}
	}
	r = bisect_ends_measure(c, ends, paired, &sessions, &nsessions, &msecs, detail, &cr);
	if (r == 1 && cr.probe) {
		char *note = NULL, *was = *detail;
		r = bisect_layout_check(c, &cr, &note, &sessions, &nsessions);
		if (note) {
			*detail = xasprintf("%s; %s", was, note);
			free(was);
			free(note);
		}
		if (r == 0)
			r = 1;
	}
	if (r != 0) {
		rc = r;
		goto out;
	}
	if (bisect_ends_record(c, ends, paired, sessions, nsessions, bsecs, msecs, started, &nmoved,
	                       &unsure) != 0)
		goto out;
	if (nmoved == 0 && !c->scan) {
		size_t other = 0;
		char *why = bisect_unmoved_text(c, c->exact ? NULL : paired, &other);
		/* "did not move ...: it moved the other way" said one thing and its opposite. */
		*detail = xasprintf("%s %s between the ends: %s", c->metric,
		                    other == c->nprobes ? "moved the other way"
		                    : other             ? "did not move the way sought"
		                    : unsure            ? "cannot be told to have moved"
		                                        : "did not move",
		                    why);
		free(why);
		rc = 1;
		goto out;
	}
	{
		struct bisect_event ev = {.kind = BISECT_EV_MODE, .nmoved = (size_t)nmoved};
		bisect_emit(c, &ev);
	}
	/* The mode is what the steps are judged by: a resume must judge them alike. */
	if (store_bisect_update(c->st, c->id, "running", c->exact ? "exact" : "paired", NULL, NULL,
	                        &e) != 0) {
		bisect_fail(c, e.code, "%s", e.msg);
		goto out;
	}
	rc = 0;
out:
	free(sessions);
	free(paired);
	return rc;
}

/* ---- A step ---------------------------------------------------------------------------- */

/* How many of the moved probes there are: the family a paired step's level is shared by. */
static size_t bisect_nmoved(const struct bisect_engine *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nprobes; i++)
		n += c->probes[i].moved != 0;
	return n;
}

/* Exact mode: one run of commit i decides. 0 with *m and the figures; see bisect_step. */
static int bisect_step_exact(struct bisect_engine *c, size_t i, enum bisect_mark *m, char **reason,
                             cJSON **figures, int64_t *sid, struct bisect_crash *cr)
{
	struct store_run *runs = NULL;
	size_t nruns = 0, idx[1] = {i};
	char what[64];
	int r;

	snprintf(what, sizeof what, "step %d, %s", c->seq - 1,
	         bisect_engine_short(c->commits[i].hash));
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
		if (*reason)
			bisect_crash_seen(&v, i, pr->name, cr);
		if (!*reason) {
			o = bisect_figure(figures, pr->name);
			bisect_engine_json_number(o, "value", v.v[0]);
			bisect_engine_json_number(o, "delta_pct",
			                          bisect_engine_pct(v.v[0], pr->ends.good));
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

/* A paired step's figures: per moved probe with pairs (n[p]), its medians, delta, interval,
 * p and answer. */
static void bisect_paired_figures(const struct bisect_engine *c, const struct bisect_paired *paired,
                                  const size_t *n, cJSON **figures)
{
	for (size_t p = 0; p < c->nprobes; p++) {
		const struct bisect_paired *pp = &paired[p];
		cJSON *o;
		if (!c->probes[p].moved || n[p] == 0)
			continue;
		o = bisect_figure(figures, c->probes[p].name);
		bisect_engine_json_number(o, "value", pp->cell.fix_median);
		bisect_engine_json_number(o, "good", pp->cell.base_median);
		bisect_engine_json_number(o, "delta_pct", pp->cell.delta_pct);
		cJSON_AddNumberToObject(o, "n", (double)n[p]);
		bisect_engine_json_number(o, "ci_lo", pp->cell.ci.lo);
		bisect_engine_json_number(o, "ci_hi", pp->cell.ci.hi);
		bisect_engine_json_number(o, "p", pp->p);
		cJSON_AddStringToObject(o, "answer", bisect_answer_name(pp->answer));
	}
}

/* Why a paired step is skipped at its budget (`total` rounds), each probe that could not be
 * told with its interval; newly allocated. */
static char *bisect_cannot_tell_text(const struct bisect_engine *c,
                                     const struct bisect_paired *paired, int total)
{
	struct sbuf b;
	char thr[64];
	int k = 0;

	bisect_engine_threshold_text(c, thr, sizeof thr);
	sbuf_init(&b);
	sbuf_addf(&b, "cannot tell after %d rounds whether it moved beyond %s:", total, thr);
	for (size_t p = 0; p < c->nprobes; p++) {
		const struct bisect_paired *pp = &paired[p];
		char lo[24], hi[24];
		if (!c->probes[p].moved || pp->answer != BISECT_ANSWER_CANNOT_TELL)
			continue;
		metrics_format_value(c->metric, pp->cell.ci.lo, lo, sizeof lo);
		metrics_format_value(c->metric, pp->cell.ci.hi, hi, sizeof hi);
		sbuf_addf(&b, "%s %s %+.2f%%, its median delta %s to %s at %.0f%% confidence",
		          k++ ? ";" : "", c->probes[p].name, pp->cell.delta_pct, lo, hi,
		          100 * pp->cell.ci.level);
	}
	return sbuf_detach(&b);
}

/*
 * Paired mode: batches of commit i interleaved with the good end until every moved probe is
 * decided, one is bad, or the budget is spent ("cannot tell": a skip). Sessions go to *sids.
 */
static int bisect_step_paired(struct bisect_engine *c, size_t i, enum bisect_mark *m, char **reason,
                              cJSON **figures, int64_t **sids, size_t *nsids,
                              struct bisect_crash *cr)
{
	size_t np = c->nprobes, idx[2] = {0, i};
	double **g = xcalloc(np, sizeof *g), **v = xcalloc(np, sizeof *v);
	size_t *n = xcalloc(np, sizeof *n);
	struct bisect_paired *paired = xcalloc(np, sizeof *paired);
	enum bisect_answer *answers = xcalloc(np, sizeof *answers), step = BISECT_ANSWER_MORE;
	double alpha = bisect_look_alpha(c->rounds, c->max_rounds, bisect_nmoved(c));
	int total = 0, rc = -1;

	while (step == BISECT_ANSWER_MORE && !*reason) {
		int batch = bisect_batch(c->rounds, c->max_rounds, total);
		struct store_run *runs = NULL;
		size_t nruns = 0, na = 0;
		int64_t sid = 0;
		char what[64];
		int r;

		snprintf(what, sizeof what, "step %d, %s, rounds %d-%d", c->seq - 1,
		         bisect_engine_short(c->commits[i].hash), total + 1, total + batch);
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
			if (*reason)
				bisect_crash_seen(&mine, i, pr->name, cr);
			if (!*reason && (why = bisect_unusable(c, &good, pr->name, pr)) != NULL) {
				*reason = xasprintf("the good end's run failed beside it: %s", why);
				bisect_crash_seen(&good, 0, pr->name, cr);
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
	bisect_paired_figures(c, paired, n, figures);
	*m = *reason ? BISECT_SKIP : bisect_answer_mark(step);
	if (!*reason && *m == BISECT_SKIP)
		*reason = bisect_cannot_tell_text(c, paired, total);
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
 * its probe failed, cannot tell). 0, or -1 when the harness failed, -2 when
 * interrupted (nothing of this step is recorded; its sessions are kept).
 */
static int bisect_step(struct bisect_engine *c, size_t i)
{
	enum bisect_mark m = BISECT_SKIP;
	char *reason = NULL, started[32];
	const char *why;
	cJSON *figures = NULL;
	int64_t *sids = NULL, t0;
	size_t nsids = 0;
	double build_s = 0, measure_s = 0;
	struct bisect_crash cr = {NULL, 0};
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
			r = bisect_step_exact(c, i, &m, &reason, &figures, &sid, &cr);
			if (sid) {
				sids = xmalloc(sizeof *sids);
				sids[nsids++] = sid;
			}
		} else {
			r = bisect_step_paired(c, i, &m, &reason, &figures, &sids, &nsids, &cr);
		}
		if (r == 0 && m == BISECT_SKIP && reason && cr.probe) {
			char *note = NULL, *was = reason;
			r = bisect_layout_check(c, &cr, &note, &sids, &nsids);
			if (note) {
				reason = xasprintf("%s; %s", was, note);
				free(was);
				free(note);
			}
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

/* The figure of probe p at commit i, NAN when unknown. */
double bisect_engine_value(const struct bisect_engine *c, size_t i, size_t p)
{
	return c->commits[i].value ? c->commits[i].value[p] : NAN;
}

/* ---- Setting up: a new bisect or a stored one ------------------------------------------ */

void bisect_engine_set_target(struct bisect_engine *c, const char *target)
{
	free(c->target);
	c->target = c->source == BISECT_SRC_DIR ? bisect_realpath(target) : xstrdup(target);
}

/*
 * Finds what the source needs: the repository (the collector-dir's, the gcratchet checkout's
 * for --collector, --repo's for --build-cmd), the collector folder's place in it, and the
 * checkout whose make rules build an outside collector. -1 with why not.
 */
int bisect_engine_setup_source(struct bisect_engine *c, const char *repo_opt)
{
	char *script = NULL, *here = NULL, *top = NULL;
	int rc = -1;

	if (c->source == BISECT_SRC_COLLECTOR) {
		script = xstrdup(c->build_rev_script);
		if (access(script, R_OK) != 0) {
			bisect_fail(c, ERR_NOT_FOUND,
			            "--collector %s: %s is missing: it builds each commit",
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

/* The rule, kind and run shape of the metric; -1 with why a metric cannot be bisected. */
int bisect_engine_setup_metric(struct bisect_engine *c, const char *threshold)
{
	struct err e = ERR_INIT;

	if (bisect_rule_for(c->metric, threshold, c->improved, &c->rule, &e) != 0)
		return bisect_fail(c, e.code, "%s", e.msg);
	if (strcmp(c->metric, "minheap.min_heap_mib") == 0) {
		bisect_fail(
		    c, ERR_INVALID,
		    "--metric %s is a minimum-heap search's answer, not a session's figure: "
		    "bisect measures sessions (run gcratchet minheap at the two ends instead)",
		    c->metric);
		return -1;
	}
	if (metrics_is_bucket(c->metric) ||
	    (strncmp(c->metric, "perf.", 5) == 0 && strlen(c->metric) > 6 &&
	     strcmp(c->metric + strlen(c->metric) - 6, ".scale") == 0)) {
		bisect_fail(c, ERR_INVALID,
		            "--metric %s is part of another figure, never judged on its own",
		            c->metric);
		return -1;
	}
	c->kind = metrics_run_kind(c->metric);
	/* A scan looks for a move either way, whatever the metric's better side. */
	if (c->scan)
		c->rule.want = 0;
	return 0;
}

/* The build cache: --cache, $GCR_BISECT_CACHE, or results/bisect-builds; made if missing. */
int bisect_engine_setup_cache(struct bisect_engine *c, const char *opt)
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
		bisect_fail(c, ERR_IO, "cannot create the build cache %s: %s", path,
		            strerror(errno));
		free(path);
		return -1;
	}
	c->cache = bisect_realpath(path);
	free(path);
	return 0;
}

static void bisect_alloc_values(struct bisect_engine *c)
{
	size_t cells = c->ncommits * (c->nprobes ? c->nprobes : 1);

	for (size_t i = 0; i < c->ncommits; i++) {
		c->commits[i].value = xmalloc((c->nprobes ? c->nprobes : 1) * sizeof(double));
		for (size_t p = 0; p < c->nprobes; p++)
			c->commits[i].value[p] = NAN;
	}
	if (!c->scan)
		return;
	bisect_scan_init(&c->scanner, c->ncommits, (size_t)c->scan);
	c->into = xmalloc(cells * sizeof *c->into);
	c->into_pct = xmalloc(cells * sizeof *c->into_pct);
	for (size_t k = 0; k < cells; k++)
		c->into[k] = c->into_pct[k] = NAN;
}

/* The make options as stored: a JSON array of strings, NULL for none. */
/* The build options a resumed bisect needs: --make's VAR=VALUE, then "input:PATH" for each
 * --build-input (no make variable starts so); NULL when there are none. */
static char *bisect_options_json(const struct bisect_engine *c)
{
	cJSON *a;
	char *text;

	if (!c->make_vars.n && !c->build_inputs.n && !c->scan)
		return NULL;
	a = cJSON_CreateArray();
	if (c->scan) {
		char item[32];
		snprintf(item, sizeof item, "scan:%d", c->scan);
		cJSON_AddItemToArray(a, cJSON_CreateString(item));
	}
	for (size_t i = 0; i < c->make_vars.n; i++)
		cJSON_AddItemToArray(a, escape_json_string(c->make_vars.items[i]));
	for (size_t i = 0; i < c->build_inputs.n; i++) {
		char *item = xasprintf("input:%s", c->build_inputs.items[i]);
		cJSON_AddItemToArray(a, escape_json_string(item));
		free(item);
	}
	text = cJSON_PrintUnformatted(a);
	cJSON_Delete(a);
	return text;
}

int bisect_engine_begin(struct bisect_engine *c, int rounds_opt, int max_rounds_opt)
{
	struct store_bisect_record r;
	struct sbuf commits;
	struct err e = ERR_INIT;
	char when[32], *probes = bisect_engine_probe_list(c, ","),
	               *options = bisect_options_json(c);
	int rc;

	bisect_budget(rounds_opt, max_rounds_opt, c->kind == RUN_KIND_VALGRIND, c->nprobes,
	              &c->rounds, &c->max_rounds);
	bisect_alloc_values(c);
	bisect_search_init(&c->search, c->ncommits);
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
		bisect_fail(c, e.code, "%s", e.msg);
	sbuf_release(&commits);
	free(probes);
	free(options);
	return rc;
}

/*
 * Takes a stored bisect's steps (their contents taken over) into the search, in order, and
 * the mode (stored as "exact" or "paired"; NULL when the ends had not decided it) with what
 * each probe's ends measured, so that the steps left are judged as the first ones were.
 */
static void bisect_replay(struct bisect_engine *c, struct store_bisect_step *steps, size_t nsteps,
                          const char *mode)
{
	c->exact = mode && strcmp(mode, "exact") == 0;
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
	if (c->nsteps < 2)
		return;
	if (!mode)
		c->exact = c->rule.pol.exact;
	for (size_t p = 0; p < c->nprobes; p++) {
		struct bisect_probe *pr = &c->probes[p];
		int moved = pr->moved, sign = pr->sign;
		bisect_ends_exact(&c->rule, pr->good, pr->ngood, pr->bad, pr->nbad, &pr->ends);
		/* What the ends decided is what the steps were judged by. */
		pr->moved = moved;
		pr->sign = sign;
		pr->ends.sign = sign;
	}
}

/*
 * Loads bisect `id` to continue it: what it searches, from its row, and where it stands,
 * from its steps (bisect_apply). -1 with why not.
 */
int bisect_engine_load(struct bisect_engine *c, int64_t id)
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
		bisect_fail(c, e.code, "%s", e.msg);
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
		cJSON_ArrayForEach(x, opts)
		{
			if (!cJSON_IsString(x))
				continue;
			if (strncmp(x->valuestring, "scan:", 5) == 0)
				c->scan =
				    atoi(x->valuestring + 5) > 0 ? atoi(x->valuestring + 5) : 1;
			else if (strncmp(x->valuestring, "input:", 6) == 0)
				strlist_push(&c->build_inputs, x->valuestring + 6);
			else
				strlist_push(&c->make_vars, x->valuestring);
		}
	if (bisect_engine_setup_metric(c, NULL) != 0)
		goto out;
	c->rule.pct = b.threshold_pct;
	c->rule.abs = b.threshold_abs;
	if (bisect_engine_setup_source(c, c->source == BISECT_SRC_CMD ? b.repo : NULL) != 0)
		goto out;
	if (strcmp(c->repo, b.repo) != 0) {
		bisect_fail(c, ERR_INVALID, "bisect %lld searched %s, and its source is now in %s",
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
		bisect_fail(c, ERR_CORRUPT, "bisect %lld: its stored commits are damaged",
		            (long long)id);
		goto out;
	}
	bisect_alloc_values(c);
	bisect_search_init(&c->search, c->ncommits);
	bisect_replay(c, steps, nsteps, b.mode);
	rc = 0;
out:
	cJSON_Delete(opts);
	store_bisect_steps_release(steps, nsteps);
	store_bisect_release(&b);
	return rc;
}

void bisect_engine_release(struct bisect_engine *c)
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
	if (c->scan)
		bisect_scan_release(&c->scanner);
	free(c->into);
	free(c->into_pct);
	strlist_release(&c->make_vars);
	store_close(c->st);
	free(c->repo);
	free(c->target);
	free(c->subdir);
	free(c->name);
	free(c->metric);
	free(c->root);
	free(c->checkout);
	free(c->cache);
	free(c->inputs);
	strlist_release(&c->build_inputs);
	free(c->command);
	free(c->build_rev_script);
	free(c->bisect_build_script);
}

/* ---- A range scan ---------------------------------------------------------------------- */

/* One measurement of a scan's pass in progress: commit plan.mid between its neighbours. */
struct bisect_scan_job {
	struct bisect_scan_plan plan;
	size_t idx[BISECT_MAX_ARMS], narms, mid_arm; /* alone (exact, here) or between them */
	double **x[2], **y[2]; /* per stretch (0 before mid, 1 after) and probe: its pairs */
	size_t *n[2];
	enum bisect_link link[2];
	char *reason;  /* a skip's */
	int total;     /* rounds (or runs) so far */
	int64_t *sids; /* its sessions */
	size_t nsids;
	double build_s, measure_s;
	char started[32];
	int done;
	cJSON *figures;
	char *host;             /* where its last session ran (a fleet's worker), or NULL */
	struct bisect_crash cr; /* its commit's run crashed: checked with ASLR off after */
};

static void bisect_scan_job_release(struct bisect_scan_job *j, size_t np)
{
	for (int k = 0; k < 2; k++) {
		for (size_t p = 0; p < np && j->x[k]; p++) {
			free(j->x[k][p]);
			free(j->y[k][p]);
		}
		free(j->x[k]);
		free(j->y[k]);
		free(j->n[k]);
	}
	free(j->reason);
	free(j->sids);
	free(j->host);
	cJSON_Delete(j->figures);
}

/*
 * The arms of a scan's measurement: the commit alone when the figure is exact and measured
 * here (its neighbours' figures were measured on this host), else between its neighbours,
 * so that each stretch is judged within one session, on one host.
 */
static void bisect_scan_job_init(struct bisect_engine *c, struct bisect_scan_job *j,
                                 const struct bisect_scan_plan *plan)
{
	size_t np = c->nprobes ? c->nprobes : 1;

	memset(j, 0, sizeof *j);
	j->plan = *plan;
	if (c->exact && !c->hooks.measure_many) {
		j->idx[0] = plan->mid;
		j->narms = 1;
		j->mid_arm = 0;
	} else {
		j->idx[0] = plan->left;
		j->idx[1] = plan->mid;
		j->idx[2] = plan->right;
		j->narms = 3;
		j->mid_arm = 1;
	}
	for (int k = 0; k < 2; k++) {
		j->x[k] = xcalloc(np, sizeof *j->x[k]);
		j->y[k] = xcalloc(np, sizeof *j->y[k]);
		j->n[k] = xcalloc(np, sizeof *j->n[k]);
	}
	format_utc(now_real_ns(), j->started, sizeof j->started);
}

/* Builds what job j measures: its commit, and its neighbours when they are arms (a resumed
 * scan may have lost their builds). 0; 1 when its commit does not build (j->reason); -1; -2. */
static int bisect_scan_job_build(struct bisect_engine *c, struct bisect_scan_job *j)
{
	for (size_t a = 0; a < j->narms; a++) {
		size_t i = j->idx[a];
		double secs = 0;
		int cached = 0, r;
		if (c->commits[i].dir)
			continue;
		r = bisect_build(c, i, &cached, &secs);
		j->build_s += secs;
		if (r == 1 && i == j->plan.mid) {
			j->reason = xstrdup(c->commits[i].reason ? c->commits[i].reason
			                                         : "it does not build");
			return 1;
		}
		if (r == 1) {
			bisect_fail(c, ERR_FAILED, "%s does not build now: %s",
			            bisect_engine_short(c->commits[i].hash), c->commits[i].reason);
			return -1;
		}
		if (r != 0)
			return r;
	}
	return 0;
}

/* Both ways of one probe's stretch k of job j: its link, and what moved into figures o. */
static enum bisect_link bisect_scan_judge(struct bisect_engine *c, struct bisect_scan_job *j, int k,
                                          size_t p, double alpha, cJSON *o)
{
	struct bisect_paired two[2];
	const char *side = k ? "next" : "into";
	char key[24];
	enum bisect_link l;
	double before, after;

	if (c->exact) {
		if (j->narms == 1) {
			size_t other = k ? j->plan.right : j->plan.left;
			double v = c->commits[j->plan.mid].value[p], w = c->commits[other].value[p];
			before = k ? v : w;
			after = k ? w : v;
		} else {
			before = j->n[k][p] ? j->x[k][p][0] : NAN;
			after = j->n[k][p] ? j->y[k][p][0] : NAN;
		}
		l = bisect_link_exact(&c->rule, before, after);
		bisect_engine_json_number(o, side, after - before);
		snprintf(key, sizeof key, "%s_pct", side);
		bisect_engine_json_number(o, key, bisect_engine_pct(after, before));
	} else {
		l = bisect_link_paired(&c->rule, j->x[k][p], j->y[k][p], j->n[k][p], alpha,
		                       j->total >= c->max_rounds, two);
		bisect_engine_json_number(o, side, two[0].cell.delta_median);
		snprintf(key, sizeof key, "%s_pct", side);
		bisect_engine_json_number(o, key, two[0].cell.delta_pct);
		snprintf(key, sizeof key, "%s_n", side);
		cJSON_AddNumberToObject(o, key, (double)j->n[k][p]);
	}
	snprintf(key, sizeof key, "%s_link", side);
	cJSON_AddStringToObject(o, key, bisect_link_name(l));
	return l;
}

/* Several probes' links as one: moved when any moved, else more, else cannot tell, else same. */
static enum bisect_link bisect_scan_combine(enum bisect_link a, enum bisect_link b)
{
	static const int rank[] = {[BISECT_LINK_UNKNOWN] = 0,
	                           [BISECT_LINK_SAME] = 1,
	                           [BISECT_LINK_CANNOT_TELL] = 2,
	                           [BISECT_LINK_MORE] = 3,
	                           [BISECT_LINK_MOVED] = 4};
	return rank[b] > rank[a] ? b : a;
}

/*
 * Takes one session's runs into job j: its commit's figures, its pairs with its neighbours,
 * and each stretch's link; j->done when both links are decided or it is a skip.
 */
static void bisect_scan_take(struct bisect_engine *c, struct bisect_scan_job *j,
                             const struct store_run *runs, size_t nruns, int batch)
{
	double alpha = bisect_look_alpha(c->rounds, c->max_rounds, c->nprobes);

	j->total += batch;
	cJSON_Delete(j->figures);
	j->figures = NULL;
	j->link[0] = j->link[1] = BISECT_LINK_UNKNOWN;
	for (size_t p = 0; p < c->nprobes && !j->reason; p++) {
		struct bisect_probe *pr = &c->probes[p];
		struct bisect_values v[BISECT_MAX_ARMS];
		cJSON *o;
		memset(v, 0, sizeof v);
		for (size_t a = 0; a < j->narms; a++)
			bisect_collect(c, runs, nruns, (int)a, pr->name, &v[a]);
		for (size_t a = 0; a < j->narms && !j->reason; a++) {
			char *why = bisect_unusable(c, &v[a], pr->name, pr);
			if (why && a == j->mid_arm) {
				j->reason = why;
				bisect_crash_seen(&v[a], j->plan.mid, pr->name, &j->cr);
			} else if (why)
				j->reason =
				    xasprintf("the run of %s beside it failed: %s",
				              bisect_engine_short(c->commits[j->idx[a]].hash), why),
				free(why);
		}
		if (!j->reason) {
			double med;
			if (j->narms == 3) {
				bisect_pairs(&v[0], &v[1], &j->x[0][p], &j->y[0][p], &j->n[0][p]);
				bisect_pairs(&v[1], &v[2], &j->x[1][p], &j->y[1][p], &j->n[1][p]);
			}
			/* Paired: the median of every round it ran so far. */
			med = j->narms == 3 && !c->exact
			          ? stats_median(j->y[0][p], j->n[0][p])
			          : stats_median(v[j->mid_arm].v, v[j->mid_arm].n);
			c->commits[j->plan.mid].value[p] = med;
			o = bisect_figure(&j->figures, pr->name);
			bisect_engine_json_number(o, "value", med);
			if (c->exact)
				bisect_engine_json_number(o, "delta_pct",
				                          bisect_engine_pct(med, pr->ends.good));
			for (int k = 0; k < 2; k++)
				j->link[k] = bisect_scan_combine(
				    j->link[k], bisect_scan_judge(c, j, k, p, alpha, o));
		}
		for (size_t a = 0; a < j->narms; a++)
			bisect_values_release(&v[a]);
	}
	j->done = j->reason || (j->link[0] != BISECT_LINK_MORE && j->link[1] != BISECT_LINK_MORE);
}

/* Records job j as a step: a skip, or its figures with its links (which bisect_apply takes
 * into the scanner). -1 when the store failed. */
static int bisect_scan_job_record(struct bisect_engine *c, struct bisect_scan_job *j)
{
	cJSON *fig = NULL;
	int r;

	if (!j->reason) {
		cJSON *scan = cJSON_CreateObject();
		cJSON_AddStringToObject(scan, "left", bisect_link_name(j->link[0]));
		cJSON_AddStringToObject(scan, "right", bisect_link_name(j->link[1]));
		cJSON_AddStringToObject(scan, "before", c->commits[j->plan.left].hash);
		cJSON_AddStringToObject(scan, "after", c->commits[j->plan.right].hash);
		if (j->host)
			cJSON_AddItemToObject(scan, "host", escape_json_string(j->host));
		cJSON_AddNumberToObject(scan, "pass", c->passes);
		fig = j->figures ? j->figures : cJSON_CreateObject();
		j->figures = NULL;
		cJSON_AddItemToObject(fig, "scan", scan);
	}
	r = bisect_record(c, "step", j->plan.mid, j->reason ? BISECT_SKIP : BISECT_GOOD, j->reason,
	                  j->sids, j->nsids, fig, j->build_s, j->measure_s, j->started);
	return r;
}

/*
 * Measures one pass's jobs: a batch of each that is not done, all at once (a fleet runs them
 * side by side), until every one is done. 0; -1; -2.
 */
static int bisect_scan_measure(struct bisect_engine *c, struct bisect_scan_job *jobs, size_t n)
{
	for (;;) {
		struct bisect_plan *plans = xcalloc(n, sizeof *plans);
		struct bisect_measured *out = xcalloc(n, sizeof *out);
		size_t *of = xcalloc(n, sizeof *of), k = 0;
		int *batch = xcalloc(n, sizeof *batch), r, rc = 0;
		int64_t t0 = now_mono_ns();
		double secs;

		for (size_t i = 0; i < n; i++) {
			struct bisect_scan_job *j = &jobs[i];
			char what[96];
			int b = c->exact ? 1 : bisect_batch(c->rounds, c->max_rounds, j->total);
			if (j->done)
				continue;
			batch[k] = b;
			snprintf(what, sizeof what, "scan pass %u, %s, %s %d-%d", c->passes,
			         bisect_engine_short(c->commits[j->plan.mid].hash),
			         c->exact ? "run" : "rounds", j->total + 1, j->total + b);
			bisect_plan_of(c, j->idx, j->narms, b, c->exact ? 0 : c->warmup, 1, NULL, 0,
			               what, &plans[k]);
			of[k++] = i;
		}
		if (k == 0) {
			free(plans);
			free(out);
			free(of);
			free(batch);
			return 0;
		}
		r = bisect_measure_plans(c, plans, k, out);
		secs = bisect_seconds(t0);
		for (size_t q = 0; q < k; q++) {
			struct bisect_scan_job *j = &jobs[of[q]];
			struct bisect_measured *o = &out[q];
			/* Side by side, each measurement's share of the wall time is the pass's. */
			j->measure_s += secs / (double)k;
			if (o->session_id) {
				j->sids = xrealloc(j->sids, (j->nsids + 1) * sizeof *j->sids);
				j->sids[j->nsids++] = o->session_id;
			}
			if (o->host) {
				free(j->host);
				j->host = o->host;
				o->host = NULL;
			}
			if (o->rc == 0)
				bisect_scan_take(c, j, o->runs, o->nruns, batch[q]);
			else if (o->rc == -1 && rc == 0) {
				c->err = o->err;
				rc = -1;
			} else if (o->rc == -2) {
				rc = -2;
			}
			store_runs_release(o->runs, o->nruns);
			free(o->host);
			bisect_plan_release(&plans[q]);
		}
		free(plans);
		free(out);
		free(of);
		free(batch);
		if (r == -2 || *c->stop)
			return -2;
		if (rc != 0)
			return rc;
	}
}

/*
 * The scan after its ends: pass after pass, the scanner's stretches to split measured side
 * by side, each recorded as a step as it is done, until nothing is left. 0; -1; -2.
 */
static int bisect_scan_run(struct bisect_engine *c)
{
	size_t np = c->nprobes;

	while (!*c->stop) {
		size_t n = bisect_scan_pending(&c->scanner), k;
		struct bisect_scan_plan *plans;
		struct bisect_scan_job *jobs;
		int rc = 0;

		if (n == 0)
			break;
		plans = xcalloc(n, sizeof *plans);
		n = bisect_scan_next(&c->scanner, plans, n);
		jobs = xcalloc(n, sizeof *jobs);
		c->passes++;
		{
			struct bisect_event ev = {
			    .kind = BISECT_EV_PASS, .plans = plans, .nplans = n};
			ev.steps = c->passes;
			bisect_emit(c, &ev);
		}
		for (k = 0; k < n; k++)
			bisect_scan_job_init(c, &jobs[k], &plans[k]);
		for (k = 0; k < n && rc == 0; k++) {
			int r = bisect_scan_job_build(c, &jobs[k]);
			if (r == 1)
				jobs[k].done = 1;
			else if (r != 0)
				rc = r;
		}
		if (rc == 0)
			rc = bisect_scan_measure(c, jobs, n);
		/* A commit whose run crashed is run once more with ASLR off, as a bisect's step is. */
		for (k = 0; k < n && rc == 0; k++)
			if (jobs[k].done && jobs[k].reason && jobs[k].cr.probe) {
				char *note = NULL, *was = jobs[k].reason;
				rc = bisect_layout_check(c, &jobs[k].cr, &note, &jobs[k].sids,
				                         &jobs[k].nsids);
				if (note) {
					jobs[k].reason = xasprintf("%s; %s", was, note);
					free(was);
					free(note);
				}
			}
		/* What is done is recorded, in commit order; an interrupted pass's unfinished
		 * measurements are measured again on resume. */
		for (k = 0; k < n && rc != -1; k++)
			if (jobs[k].done && bisect_scan_job_record(c, &jobs[k]) != 0)
				rc = -1;
		for (k = 0; k < n; k++)
			bisect_scan_job_release(&jobs[k], np);
		free(jobs);
		free(plans);
		if (rc != 0)
			return rc;
	}
	return *c->stop ? -2 : 0;
}

struct bisect_change *bisect_engine_changes(const struct bisect_engine *c, size_t *n)
{
	size_t k = c->scan ? bisect_scan_found(&c->scanner, NULL, 0) : 0;
	struct bisect_scan_find *f = xcalloc(k ? k : 1, sizeof *f);
	struct bisect_change *out = xcalloc(k ? k : 1, sizeof *out);

	if (k)
		bisect_scan_found(&c->scanner, f, k);
	for (size_t i = 0; i < k; i++) {
		double most = 0;
		out[i].find = f[i];
		out[i].sign = 1;
		for (size_t p = 0; p < c->nprobes; p++) {
			double pct, d = bisect_engine_into(c, f[i].hi, p, &pct);
			if (isfinite(pct) && fabs(pct) > most) {
				most = fabs(pct);
				out[i].sign = d < 0 ? -1 : 1;
			}
		}
	}
	free(f);
	*n = k;
	return out;
}

double bisect_engine_into(const struct bisect_engine *c, size_t i, size_t p, double *pct)
{
	if (!c->scan || i >= c->ncommits || p >= c->nprobes) {
		*pct = NAN;
		return NAN;
	}
	*pct = c->into_pct[i * c->nprobes + p];
	return c->into[i * c->nprobes + p];
}

void bisect_engine_explained(const struct bisect_engine *c, size_t p, double *ends, double *found)
{
	size_t n;
	struct bisect_change *ch = bisect_engine_changes(c, &n);
	double pct;

	/* The ends' own runs: a step's link into the bad end is of the commit before it. */
	*ends = bisect_engine_figure(c, c->ncommits - 1, p) - bisect_engine_figure(c, 0, p);
	*found = 0;
	for (size_t i = 0; i < n; i++) {
		double d;
		if (ch[i].find.link != BISECT_LINK_MOVED || ch[i].find.from + 1 != ch[i].find.hi)
			continue;
		d = bisect_engine_into(c, ch[i].find.hi, p, &pct);
		/* A probe the change did not move beyond the threshold adds nothing. */
		if (isfinite(d) && isfinite(pct) &&
		    fabs(d) >
		        bisect_allowance(&c->rule, bisect_engine_value(c, ch[i].find.from, p)))
			*found += d;
	}
	free(ch);
}

double bisect_engine_figure(const struct bisect_engine *c, size_t i, size_t p)
{
	const struct bisect_probe *pr = &c->probes[p];

	if (i == 0 && pr->ngood)
		return stats_median(pr->good, pr->ngood);
	if (i == c->ncommits - 1 && pr->nbad)
		return stats_median(pr->bad, pr->nbad);
	return bisect_engine_value(c, i, p);
}

size_t bisect_engine_elsewhere(const struct bisect_engine *c, size_t lo, size_t hi, size_t p,
                               double *share, int *part, size_t *from, size_t *to, size_t max)
{
	double g = bisect_engine_figure(c, 0, p), b = bisect_engine_figure(c, c->ncommits - 1, p);
	double d = bisect_engine_figure(c, hi, p) - bisect_engine_figure(c, lo, p);
	size_t k = 0, prev = SIZE_MAX;

	*share = fabs(b - g) > bisect_allowance(&c->rule, g) ? d / (b - g) : NAN;
	/* Only part: what it leaves of the ends' move would count as moved itself. */
	*part = isfinite(d) && isfinite(b - g) && fabs((b - g) - d) > bisect_allowance(&c->rule, g);
	for (size_t i = 0; i < c->ncommits; i++) {
		double v = bisect_engine_figure(c, i, p);
		/* A skip's figure (cannot tell, a crash beside) is not one to compare. */
		if (!isfinite(v) ||
		    (i > 0 && i < c->ncommits - 1 && c->search.marks[i] == BISECT_SKIP))
			continue;
		/* The change found is between lo and hi: each side is looked at on its own. */
		if (prev != SIZE_MAX && !(prev == lo && i == hi) &&
		    bisect_link_exact(&c->rule, bisect_engine_figure(c, prev, p), v) ==
		        BISECT_LINK_MOVED) {
			if (k < max) {
				from[k] = prev;
				to[k] = i;
			}
			k++;
		}
		prev = i;
	}
	return k;
}

/* ---- The search ------------------------------------------------------------------------ */

int bisect_engine_run(struct bisect_engine *c, char **detail)
{
	size_t next;
	int r;

	*detail = NULL;
	if (c->nsteps < 2 && (r = bisect_ends(c, detail)) != 0)
		return r;
	/* Paired steps run beside the good end: its build, which a resume may have lost. */
	if (!c->exact && !c->commits[0].dir) {
		double secs;
		int cached;
		r = bisect_build(c, 0, &cached, &secs);
		if (r == 1)
			bisect_fail(c, ERR_FAILED, "the good end %s does not build now: %s",
			            bisect_engine_short(c->commits[0].hash), c->commits[0].reason);
		if (r != 0)
			return r == -2 ? -2 : -1;
	}
	if (c->scan)
		return bisect_scan_run(c);
	while (!*c->stop && bisect_search_next(&c->search, &next)) {
		struct bisect_event ev = {.kind = BISECT_EV_NEXT, .commit = next};
		ev.steps = bisect_search_left(&c->search, next, &ev.left);
		bisect_emit(c, &ev);
		if ((r = bisect_step(c, next)) != 0)
			return r;
	}
	return *c->stop ? -2 : 0;
}
