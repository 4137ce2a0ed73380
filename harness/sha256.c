#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void sha256_init(struct sha256 *s)
{
	nettle_sha256_init(&s->ctx);
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	nettle_sha256_update(&s->ctx, len, data);
}

void sha256_final_hex(struct sha256 *s, char hex[SHA256_HEX_LEN + 1])
{
	uint8_t digest[SHA256_DIGEST_SIZE];

	nettle_sha256_digest(&s->ctx, sizeof digest, digest);
	for (size_t i = 0; i < sizeof digest; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final_hex(&s, hex);
}

/* The digest of what is left to read at fd; -1 with a message naming path. */
static int sha256_fd(int fd, const char *path, char hex[SHA256_HEX_LEN + 1], struct err *e)
{
	struct sha256 s;
	char buf[65536];
	ssize_t n;

	sha256_init(&s);
	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(e, "%s: cannot read: %s", path, strerror(errno));
		sha256_update(&s, buf, (size_t)n);
	}
	sha256_final_hex(&s, hex);
	return 0;
}

int sha256_file(const char *path, char hex[SHA256_HEX_LEN + 1], struct err *e)
{
	return sha256_file_memo(NULL, path, hex, NULL, e);
}

/* What sha256.h calls a file's stamp. */
struct sha256_stamp {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
};

struct sha256_memo_entry {
	char *path;
	struct sha256_stamp stamp;
	int trusted; /* both times were SHA256_MEMO_RACY_NS old when the file was read */
	char hex[SHA256_HEX_LEN + 1];
};

struct sha256_memo {
	struct sha256_memo_entry *items;
	size_t n, cap;
};

static void sha256_stamp_of(const struct stat *st, struct sha256_stamp *out)
{
	memset(out, 0, sizeof *out);
	out->dev = st->st_dev;
	out->ino = st->st_ino;
	out->size = st->st_size;
	out->mtime = st->st_mtim;
	out->ctime = st->st_ctim;
}

static int sha256_stamp_same(const struct sha256_stamp *a, const struct sha256_stamp *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

static int64_t sha256_ns(struct timespec t)
{
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

struct sha256_memo *sha256_memo_new(void)
{
	return xcalloc(1, sizeof(struct sha256_memo));
}

void sha256_memo_free(struct sha256_memo *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->items[i].path);
	free(m->items);
	free(m);
}

int sha256_file_memo(struct sha256_memo *m, const char *path, char hex[SHA256_HEX_LEN + 1],
                     int *read_again, struct err *e)
{
	struct sha256_memo_entry *hit = NULL;
	struct sha256_stamp now_stamp;
	struct timespec now;
	struct stat st;
	int fd, rc;

	if (read_again)
		*read_again = 1;
	for (size_t i = 0; m && i < m->n && !hit; i++)
		if (strcmp(m->items[i].path, path) == 0)
			hit = &m->items[i];
	if (hit && hit->trusted && stat(path, &st) == 0) {
		sha256_stamp_of(&st, &now_stamp);
		if (sha256_stamp_same(&now_stamp, &hit->stamp)) {
			memcpy(hex, hit->hex, sizeof hit->hex);
			if (read_again)
				*read_again = 0;
			return 0;
		}
	}
	/* The clock before the stamp: a change after the stamp is taken is at this time or later. */
	clock_gettime(CLOCK_REALTIME, &now);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, "%s: cannot read: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = err_set(e, "%s: cannot read: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	rc = sha256_fd(fd, path, hex, e);
	close(fd);
	if (rc != 0 || !m)
		return rc;
	if (!hit) {
		if (m->n == m->cap) {
			m->cap = m->cap ? 2 * m->cap : 16;
			m->items = xrealloc(m->items, m->cap * sizeof *m->items);
		}
		hit = &m->items[m->n++];
		memset(hit, 0, sizeof *hit);
		hit->path = xstrdup(path);
	}
	sha256_stamp_of(&st, &hit->stamp);
	hit->trusted = sha256_ns(now) - sha256_ns(st.st_mtim) > SHA256_MEMO_RACY_NS &&
	               sha256_ns(now) - sha256_ns(st.st_ctim) > SHA256_MEMO_RACY_NS;
	memcpy(hit->hex, hex, sizeof hit->hex);
	return 0;
}

int sha256_hex_valid(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return 0;
	return n == SHA256_HEX_LEN;
}
