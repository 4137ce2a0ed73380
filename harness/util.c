#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int err_set(struct err *e, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		e->code = ERR_FAILED;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int err_setc(struct err *e, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		e->code = code;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void out_of_memory(size_t n)
{
	fprintf(stderr, "gcratchet: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);

	if (!p)
		out_of_memory(count * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		out_of_memory(n);
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
	struct sbuf b;
	va_list ap;
	int n;

	sbuf_init(&b);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	b.data = xrealloc(b.data, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b.data, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return b.data;
}

void sbuf_init(struct sbuf *b)
{
	b->cap = 64;
	b->len = 0;
	b->data = xmalloc(b->cap);
	b->data[0] = '\0';
}

void sbuf_release(struct sbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

static void sbuf_reserve(struct sbuf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	if (b->cap == 0)
		b->cap = 64; /* detached: a new buffer */
	while (b->len + extra + 1 > b->cap)
		b->cap *= 2;
	b->data = xrealloc(b->data, b->cap);
}

void sbuf_add(struct sbuf *b, const void *data, size_t len)
{
	sbuf_reserve(b, len);
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* Formatted once where it fits, which it mostly does; twice only to grow the buffer. */
	if (b->cap == 0)
		sbuf_reserve(b, 0);
	va_start(ap, fmt);
	n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if ((size_t)n >= b->cap - b->len) {
		sbuf_reserve(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

char *sbuf_detach(struct sbuf *b)
{
	char *s = b->data;

	b->data = NULL;
	b->len = b->cap = 0;
	return s;
}

void strlist_push(struct strlist *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->items = xrealloc(l->items, l->cap * sizeof *l->items);
	}
	l->items[l->n++] = xstrdup(s);
}

int strlist_contains(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i], s) == 0)
			return 1;
	return 0;
}

void strlist_release(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = l->cap = 0;
}

void strlist_split(struct strlist *l, const char *s)
{
	const char *p = s;

	while (*p) {
		size_t n = strcspn(p, ",");
		if (n > 0) {
			char *piece = xmalloc(n + 1);
			memcpy(piece, p, n);
			piece[n] = '\0';
			strlist_push(l, piece);
			free(piece);
		}
		p += n;
		if (*p == ',')
			p++;
	}
}

int strlist_probe_cmp(const char *a, const char *b)
{
	int na = isdigit((unsigned char)*a) != 0, nb = isdigit((unsigned char)*b) != 0;

	if (na != nb)
		return na ? -1 : 1;
	if (na) {
		/* Compared as digit strings, so that no number is too long to order. */
		const char *pa = a, *pb = b;
		size_t la = 0, lb = 0;
		int c;
		while (*pa == '0' && isdigit((unsigned char)pa[1]))
			pa++;
		while (*pb == '0' && isdigit((unsigned char)pb[1]))
			pb++;
		while (isdigit((unsigned char)pa[la]))
			la++;
		while (isdigit((unsigned char)pb[lb]))
			lb++;
		if (la != lb)
			return la < lb ? -1 : 1;
		c = memcmp(pa, pb, la);
		if (c)
			return c;
	}
	return strcmp(a, b);
}

static int strlist_probe_qsort_cmp(const void *a, const void *b)
{
	return strlist_probe_cmp(*(char *const *)a, *(char *const *)b);
}

void strlist_sort_probes(struct strlist *l)
{
	/* An empty list has no items array, and qsort's may not be NULL. */
	if (l->n > 1)
		qsort(l->items, l->n, sizeof *l->items, strlist_probe_qsort_cmp);
}

const char *strlist_find_probe(const struct strlist *names, const char *want)
{
	const char *found = NULL;
	int number = is_all_digits(want);

	for (size_t i = 0; i < names->n; i++) {
		const char *name = names->items[i];
		if (strcmp(name, want) == 0)
			return name;
		if (number && atoi(name) == atoi(want) && isdigit((unsigned char)name[0]))
			found = name;
	}
	return found;
}

size_t edit_distance(const char *a, const char *b)
{
	/* Three rows: two letters swapped ("gne" for "gen") is one edit, as a typist makes it. */
	size_t la = strlen(a), lb = strlen(b), rows[3][65];
	size_t *two = rows[0], *prev = rows[1], *cur = rows[2];

	if (la > 64 || lb > 64)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    two[j - 2] + 1 < cur[j])
				cur[j] = two[j - 2] + 1;
		}
		{
			size_t *t = two;
			two = prev;
			prev = cur;
			cur = t;
		}
	}
	return prev[lb];
}

int near_close_enough(const char *typed, size_t distance)
{
	size_t len = strlen(typed), limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;

	return distance > 0 && distance <= limit;
}

void near_offer(const char *typed, const char *candidate, struct near_name *near)
{
	size_t d = edit_distance(typed, candidate);

	if (!near->name || d < near->distance) {
		near->name = candidate;
		near->distance = d;
	}
}

const char *near_pick(const char *typed, const struct near_name *near)
{
	return near->name && near_close_enough(typed, near->distance) ? near->name : NULL;
}

const char *near_phrase(const char *guess, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", guess ? "did you mean " : "", guess ? guess : "",
	         guess ? "? " : "");
	return buf;
}

const char *strlist_near(const char *typed, const struct strlist *names)
{
	struct near_name near = {0};

	for (size_t i = 0; i < names->n; i++)
		near_offer(typed, names->items[i], &near);
	return near_pick(typed, &near);
}

const char *strlist_near_probe(const struct strlist *names, const char *typed)
{
	struct near_name near = {0};

	for (size_t i = 0; i < names->n; i++) {
		const char *name = names->items[i], *stem = name;
		size_t d = edit_distance(typed, name), words;
		while (isdigit((unsigned char)*stem))
			stem++;
		/* "nursery_chrun" is near 01_nursery_churn's words, not its whole name. */
		words = *stem == '_' && stem != name ? edit_distance(typed, stem + 1) : d;
		d = words < d ? words : d;
		if (!near.name || d < near.distance) {
			near.name = name;
			near.distance = d;
		}
	}
	return near_pick(typed, &near);
}

char *strlist_join(const struct strlist *l, const char *sep)
{
	struct sbuf b;

	sbuf_init(&b);
	for (size_t i = 0; i < l->n; i++)
		sbuf_addf(&b, "%s%s", i ? sep : "", l->items[i]);
	return b.data;
}

int read_file(const char *path, char **out, size_t *len, struct err *e)
{
	struct sbuf b;
	char chunk[65536];
	FILE *f = fopen(path, "rb");
	size_t n;
	int rc = 0;

	if (!f)
		return err_setc(e, errno == ENOENT ? ERR_NOT_FOUND : ERR_IO, "%s: cannot open: %s",
		                path, strerror(errno));
	sbuf_init(&b);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sbuf_add(&b, chunk, n);
	if (ferror(f)) {
		rc = err_set(e, "%s: read error: %s", path, strerror(errno));
		sbuf_release(&b);
		goto out;
	}
	if (len)
		*len = b.len;
	*out = b.data;
out:
	fclose(f);
	return rc;
}

/*
 * Test hook: GCR_TEST_WRITE_FAIL=N makes the Nth I/O step of this process's file writes fail
 * with EIO, counting every step of every write_file_atomic call in turn: creating the
 * temporary file, setting its mode, each write, fsync, close and rename (or opening and each
 * write for a target written through). While it is set, data goes out in pieces of at most
 * WRITE_FILE_TEST_CHUNK bytes, so that a failure can land inside a file. This is how the tests
 * show that a write that fails at any step leaves its target as it was (tests/cli/t114). The
 * writers run on the main thread only, so the counter needs no lock.
 */
#define WRITE_FILE_TEST_CHUNK 4096
static long write_file_steps;

/* GCR_TEST_WRITE_FAIL's N, read once; 0 when it is not set. */
static long write_file_fail_at(void)
{
	static long at = -1;

	if (at < 0) {
		const char *env = getenv("GCR_TEST_WRITE_FAIL");
		uint64_t n;
		at = env && parse_u64(env, &n) == 0 && n <= LONG_MAX ? (long)n : 0;
	}
	return at;
}

static int write_file_fault(void)
{
	if (write_file_fail_at() == 0 || ++write_file_steps != write_file_fail_at())
		return 0;
	errno = EIO;
	return 1;
}

/* Writes all of data to fd; -1 with errno set when a write fails. */
static int write_file_all(int fd, const char *data, size_t len)
{
	size_t off = 0;

	while (off < len) {
		size_t n = len - off;
		ssize_t w;

		if (write_file_fail_at() > 0 && n > WRITE_FILE_TEST_CHUNK)
			n = WRITE_FILE_TEST_CHUNK;
		if (write_file_fault())
			return -1;
		w = write(fd, data + off, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

/* The folder path is in ("." for a bare name), newly allocated. */
static char *write_file_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xasprintf("%.*s", (int)(slash - path), path);
}

/*
 * Whether the link at path, whose lstat is sb, may be followed: not when it sits in a sticky
 * folder anyone may write (/tmp) and belongs neither to us nor to the folder's owner, the rule
 * of the kernel's fs.protected_symlinks, which this resolution by hand would otherwise
 * bypass: another user's link planted at a report's path in /tmp must not make root write
 * the file it names.
 */
static int write_file_link_trusted(const char *path, const struct stat *sb, struct err *e)
{
	char *dir = write_file_dir(path);
	struct stat db;
	int rc = 0;

	if (stat(dir, &db) != 0) {
		rc = err_setc(e, ERR_IO, "%s: cannot read its folder %s: %s", path, dir,
		              strerror(errno));
	} else if ((db.st_mode & S_ISVTX) && (db.st_mode & S_IWOTH) && sb->st_uid != geteuid() &&
	           sb->st_uid != db.st_uid) {
		rc = err_setc(e, ERR_INVALID,
		              "%s: a link of another user's (uid %ld) in the shared folder %s: not "
		              "followed; remove it or write elsewhere",
		              path, (long)sb->st_uid, dir);
	}
	free(dir);
	return rc;
}

/*
 * The path a write to path lands on: path itself, or where its chain of links ends (a name
 * that need not exist yet), so that a link stays a link and the file it names is written.
 * Newly allocated in *out.
 */
static int write_file_resolve(const char *path, char **out, struct err *e)
{
	char *cur = xstrdup(path);

	for (int hops = 0;; hops++) {
		struct stat sb;
		char *target, *dir, *next;
		size_t cap = 256;
		ssize_t n;

		if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode)) {
			*out = cur;
			return 0;
		}
		if (hops == 40) {
			err_setc(e, ERR_INVALID, "%s: more than 40 links in a row", path);
			break;
		}
		if (write_file_link_trusted(cur, &sb, e) != 0)
			break;
		target = xmalloc(cap);
		while ((n = readlink(cur, target, cap)) >= 0 && (size_t)n == cap)
			target = xrealloc(target, cap *= 2);
		if (n < 0) {
			err_setc(e, ERR_IO, "%s: cannot read the link: %s", cur, strerror(errno));
			free(target);
			break;
		}
		target[n] = '\0';
		dir = write_file_dir(cur);
		next = target[0] == '/' ? xstrdup(target) : xasprintf("%s/%s", dir, target);
		free(dir);
		free(target);
		free(cur);
		cur = next;
	}
	free(cur);
	return -1;
}

/*
 * Removes the temporary files beside base in dir whose writer no longer runs: BASE.tmp.PID.X
 * (and BASE.tmp.PID, the name earlier versions used). A writer killed between creating its
 * temporary file and renaming it (an interrupted `baseline update`) leaves the file behind,
 * and nothing else would ever remove it. Only a regular file of our own goes: a link or
 * another user's file of that name is left alone. A pid that still runs, or that we may not
 * signal (EPERM: it runs), keeps its file. Best effort: a folder that cannot be read only
 * means nothing is swept, and the write itself reports its own errors.
 */
static void write_file_sweep(const char *dir, const char *base)
{
	size_t blen = strlen(base);
	struct dirent *ent;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((ent = readdir(d))) {
		char pidtext[24];
		const char *p = ent->d_name + blen + 5;
		size_t plen = strcspn(p, ".");
		uint64_t pid;
		struct stat sb;

		if (strncmp(ent->d_name, base, blen) != 0 ||
		    strncmp(ent->d_name + blen, ".tmp.", 5) != 0 || plen == 0 ||
		    plen >= sizeof pidtext)
			continue;
		memcpy(pidtext, p, plen);
		pidtext[plen] = '\0';
		if (parse_u64(pidtext, &pid) != 0 || pid == 0 || pid > INT_MAX)
			continue;
		if (fstatat(dirfd(d), ent->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(sb.st_mode) || sb.st_uid != geteuid())
			continue;
		if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
			unlinkat(dirfd(d), ent->d_name, 0);
	}
	closedir(d);
}

/* Six characters no one can guess, for a temporary file's name. */
static void write_file_suffix(char out[7])
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static uint64_t count;
	unsigned char r[6];

	if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		uint64_t h = hash_fnv1a(&count, sizeof count, (uint64_t)now_mono_ns());
		count++;
		for (size_t i = 0; i < sizeof r; i++, h >>= 8)
			r[i] = (unsigned char)h;
	}
	for (size_t i = 0; i < sizeof r; i++)
		out[i] = set[r[i] % (sizeof set - 1)];
	out[6] = '\0';
}

/*
 * Replaces the regular file (or new name) target: a temporary file beside it, created
 * exclusively (O_EXCL|O_NOFOLLOW: a name planted there, a link above all, is never opened
 * but skipped), then fsync and rename, so that a reader sees the old file or the new one,
 * never half of one. old: the file replaced (NULL for a new one), whose permission bits, and
 * as root its owner, the new one keeps.
 */
static int write_file_replace(const char *path, const char *target, const struct stat *old,
                              const char *data, size_t len, struct err *e)
{
	char *dir = write_file_dir(target), *tmp = NULL;
	const char *base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	int rc = -1, fd = -1;

	write_file_sweep(dir, base);
	for (int tries = 0; fd < 0; tries++) {
		char suffix[7];

		write_file_suffix(suffix);
		free(tmp);
		tmp = xasprintf("%s.tmp.%ld.%s", target, (long)getpid(), suffix);
		if (write_file_fault())
			fd = -1;
		else
			fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && (errno != EEXIST || tries == 100)) {
			err_setc(e, ERR_IO, "%s: cannot create a temporary file in %s: %s", path,
			         dir, strerror(errno));
			free(tmp);
			tmp = NULL;
			goto out;
		}
	}
	if (old) {
		if (write_file_fault() || fchmod(fd, old->st_mode & 0777) != 0) {
			err_setc(e, ERR_IO, "%s: cannot give its temporary file the old mode: %s",
			         path, strerror(errno));
			goto out;
		}
		/* Root rewriting someone's report leaves it theirs; anyone else cannot, and need not. */
		if (geteuid() == 0 && (old->st_uid != geteuid() || old->st_gid != getegid()) &&
		    fchown(fd, old->st_uid, old->st_gid) != 0) {
			/* Best effort: a file system that refuses (NFS's root squash) gets it as root's. */
		}
	}
	if (write_file_all(fd, data, len) != 0) {
		err_setc(e, ERR_IO, "%s: write failed: %s", path, strerror(errno));
		goto out;
	}
	if (write_file_fault() || fsync(fd) != 0) {
		err_setc(e, ERR_IO, "%s: fsync failed: %s", path, strerror(errno));
		goto out;
	}
	{
		int failed = write_file_fault(), closed = close(fd);
		fd = -1;
		if (failed || closed != 0) {
			err_setc(e, ERR_IO, "%s: close failed: %s", path, strerror(errno));
			goto out;
		}
	}
	if (write_file_fault() || rename(tmp, target) != 0) {
		err_setc(e, ERR_IO, "%s: cannot rename into place: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc != 0) {
		if (tmp)
			unlink(tmp);
		/* Nothing touched the target before the rename: say so, a user's first question. */
		if (e)
			snprintf(e->msg + strlen(e->msg), sizeof e->msg - strlen(e->msg),
			         " (%s is as it was)", path);
	}
	free(tmp);
	free(dir);
	return rc;
}

/*
 * Writes into what is not a regular file (a character device such as /dev/null, a FIFO, a
 * terminal) as `>` in a shell does: opened as it is, never created, replaced or truncated.
 * Neither atomic nor undone on failure, which only a regular file can be.
 */
static int write_file_through(const char *path, const char *target, const char *data, size_t len,
                              struct err *e)
{
	struct stat sb;
	int rc = -1, fd;

	if (write_file_fault())
		fd = -1;
	else
		fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return err_setc(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	/* Swapped for a regular file since it was looked at: opened without O_TRUNC, so stop. */
	if (fstat(fd, &sb) != 0 || S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)) {
		err_setc(e, ERR_IO, "%s: changed while it was being opened: try again", path);
		goto out;
	}
	if (write_file_all(fd, data, len) != 0) {
		err_setc(e, ERR_IO, "%s: write failed: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (close(fd) != 0 && rc == 0)
		rc = err_setc(e, ERR_IO, "%s: close failed: %s", path, strerror(errno));
	return rc;
}

int write_file_is_stdout(const char *path)
{
	return strcmp(path, "-") == 0;
}

int write_file_atomic(const char *path, const char *data, size_t len, struct err *e)
{
	char *target = NULL;
	struct stat sb;
	int rc;

	if (write_file_is_stdout(path)) {
		/* After whatever stdio holds, in order. */
		if (fflush(stdout) != 0 || write_file_all(STDOUT_FILENO, data, len) != 0)
			return err_setc(e, ERR_IO, "writing to stdout failed: %s", strerror(errno));
		return 0;
	}
	if (!*path)
		return err_setc(e, ERR_INVALID, "an empty file name");
	if (write_file_resolve(path, &target, e) != 0)
		return -1;
	if (stat(target, &sb) != 0) {
		if (errno == ENOENT)
			rc = write_file_replace(path, target, NULL, data, len, e);
		else
			rc = err_setc(e, ERR_IO, "%s: %s", path, strerror(errno));
	} else if (S_ISDIR(sb.st_mode)) {
		rc = err_setc(e, ERR_INVALID, "%s: is a folder: give a file name", path);
	} else if (S_ISREG(sb.st_mode)) {
		rc = write_file_replace(path, target, &sb, data, len, e);
	} else {
		rc = write_file_through(path, target, data, len, e);
	}
	free(target);
	return rc;
}

int is_all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -1;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

int parse_pos_double(const char *s, double *out)
{
	char *end = NULL;
	double v = NAN;

	/* strtod takes "nan", "inf" and leading blanks; none of them is a figure here. */
	if (s && *s && !isspace((unsigned char)*s))
		v = strtod(s, &end);
	if (!end || *end || !isfinite(v) || v <= 0)
		return -1;
	*out = v;
	return 0;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t now_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int64_t now_real_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

void format_utc(int64_t real_ns, char *buf, size_t size)
{
	time_t t = (time_t)(real_ns / 1000000000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

UTIL_WRAPS_ON_PURPOSE
uint64_t hash_fnv1a(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

size_t utf8_len(const unsigned char *p, size_t avail)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0; /* overlong */
	else if (p[0] == 0xed)
		hi = 0x9f; /* UTF-16 surrogates */
	else if (p[0] == 0xf0)
		lo = 0x90; /* overlong */
	else if (p[0] == 0xf4)
		hi = 0x8f; /* beyond U+10FFFF */
	if (avail < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

int run_capture(char *const argv[], int quiet, struct sbuf *out)
{
	posix_spawn_file_actions_t fa;
	int fd[2], status = 0, r;
	pid_t pid;
	char buf[4096];
	ssize_t n;

	if (pipe2(fd, O_CLOEXEC) != 0)
		return -1;
	/* Spawned, not forked: a harness holding a large heap pays nothing to copy it. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	if (quiet)
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (r != 0) {
		close(fd[0]);
		/* The program could not be run (not found, not executable): as a shell says it. */
		return r == ENOMEM || r == EAGAIN ? -1 : 127;
	}
	while ((n = read(fd[0], buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		sbuf_add(out, buf, (size_t)n);
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
