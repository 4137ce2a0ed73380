#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	sbuf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *sbuf_detach(struct sbuf *b)
{
	char *s = b->data;

	sbuf_init(b);
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
 * Removes the PATH.tmp.PID siblings of path whose writer no longer runs. A writer killed
 * between creating its temporary file and renaming it (an interrupted `baseline update`)
 * leaves the file behind, and nothing else would ever remove it. A pid that still runs, or
 * that we may not signal (EPERM: it runs), keeps its file. Best effort: a folder that cannot
 * be read only means nothing is swept, and the write itself reports its own errors.
 */
static void write_file_sweep(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *dir = slash ? xasprintf("%.*s", (int)(slash - path), path) : xstrdup(".");
	size_t blen = strlen(base);
	struct dirent *ent;
	DIR *d = opendir(*dir ? dir : "/");

	if (!d)
		goto out;
	while ((ent = readdir(d))) {
		uint64_t pid;
		if (strncmp(ent->d_name, base, blen) != 0 ||
		    strncmp(ent->d_name + blen, ".tmp.", 5) != 0 ||
		    parse_u64(ent->d_name + blen + 5, &pid) != 0 || pid == 0 || pid > INT_MAX)
			continue;
		if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
			unlinkat(dirfd(d), ent->d_name, 0);
	}
	closedir(d);
out:
	free(dir);
}

int write_file_atomic(const char *path, const char *data, size_t len, struct err *e)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	size_t off = 0;
	int rc = 0, fd;

	write_file_sweep(path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = err_set(e, "%s: cannot create: %s", tmp, strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			rc = err_set(e, "%s: write failed: %s", tmp, strerror(errno));
			break;
		}
		off += (size_t)w;
	}
	if (rc == 0 && fsync(fd) != 0)
		rc = err_set(e, "%s: fsync failed: %s", tmp, strerror(errno));
	if (close(fd) != 0 && rc == 0)
		rc = err_set(e, "%s: close failed: %s", tmp, strerror(errno));
	if (rc == 0 && rename(tmp, path) != 0)
		rc = err_set(e, "%s: cannot rename into place: %s", path, strerror(errno));
	if (rc != 0)
		unlink(tmp);
out:
	free(tmp);
	return rc;
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
	int fd[2], status = 0;
	pid_t pid;
	char buf[4096];
	ssize_t n;

	if (pipe(fd) != 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			if (quiet)
				dup2(null, 2);
		}
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
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
