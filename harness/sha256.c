#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * x86's SHA extensions (SHA-NI: Intel since Goldmont and Ice Lake, AMD since Zen) do a block in
 * about a tenth of the portable code's time. The harness hashes each probe after every run
 * (buildinfo_unchanged), a 93 KB probe took 0.6 ms of a 1 ms run in portable code, so where
 * the processor has them they are used; the digest is the same either way (test_sha256).
 */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define SHA256_SHANI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

/* SHA-256 is arithmetic modulo 2^32: its additions and rotations wrap by definition. */
UTIL_WRAPS_ON_PURPOSE
static uint32_t sha256_ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

UTIL_WRAPS_ON_PURPOSE
static void sha256_block(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 =
		    sha256_ror(w[i - 15], 7) ^ sha256_ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 =
		    sha256_ror(w[i - 2], 17) ^ sha256_ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (sha256_ror(e, 6) ^ sha256_ror(e, 11) ^ sha256_ror(e, 25)) +
		              ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		uint32_t t2 = (sha256_ror(a, 2) ^ sha256_ror(a, 13) ^ sha256_ror(a, 22)) +
		              ((a & b) ^ (a & c) ^ (b & c));
		h = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
	s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

#ifdef SHA256_SHANI
/*
 * n blocks at p with the SHA instructions. The state lives in two registers as ABEF and CDGH;
 * each group of four rounds adds four words of the schedule to four constants, and the
 * schedule's next words are made from the last four groups (sha256msg1, sha256msg2).
 */
UTIL_WRAPS_ON_PURPOSE
__attribute__((target("sha,ssse3,sse4.1"))) static void
sha256_blocks_shani(uint32_t h[8], const uint8_t *p, size_t n)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i tmp, state0, state1;

	tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)&h[0]), 0xb1);
	state1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)&h[4]), 0x1b);
	state0 = _mm_alignr_epi8(tmp, state1, 8);    /* ABEF */
	state1 = _mm_blend_epi16(state1, tmp, 0xf0); /* CDGH */
	for (; n > 0; n--, p += 64) {
		__m128i abef = state0, cdgh = state1, m[4], msg;
#pragma GCC unroll 16
		for (int g = 0; g < 16; g++) {
			if (g < 4)
				m[g] = _mm_shuffle_epi8(
				    _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * g)),
				    bswap);
			msg = _mm_add_epi32(
			    m[g & 3],
			    _mm_loadu_si128((const __m128i *)(const void *)&sha256_k[4 * g]));
			state1 = _mm_sha256rnds2_epu32(state1, state0, msg);
			if (g >= 3 && g <= 14) {
				tmp = _mm_alignr_epi8(m[g & 3], m[(g + 3) & 3], 4);
				m[(g + 1) & 3] = _mm_sha256msg2_epu32(
				    _mm_add_epi32(m[(g + 1) & 3], tmp), m[g & 3]);
			}
			state0 =
			    _mm_sha256rnds2_epu32(state0, state1, _mm_shuffle_epi32(msg, 0x0e));
			if (g >= 1 && g <= 12)
				m[(g + 3) & 3] = _mm_sha256msg1_epu32(m[(g + 3) & 3], m[g & 3]);
		}
		state0 = _mm_add_epi32(state0, abef);
		state1 = _mm_add_epi32(state1, cdgh);
	}
	tmp = _mm_shuffle_epi32(state0, 0x1b);       /* FEBA */
	state1 = _mm_shuffle_epi32(state1, 0xb1);    /* DCHG */
	state0 = _mm_blend_epi16(tmp, state1, 0xf0); /* DCBA */
	state1 = _mm_alignr_epi8(state1, tmp, 8);    /* HGFE */
	_mm_storeu_si128((__m128i *)(void *)&h[0], state0);
	_mm_storeu_si128((__m128i *)(void *)&h[4], state1);
}

/* 1 when the processor has SHA-NI and the SSE it needs; asked once (cpuid traps in a VM). */
static int sha256_shani_present(void)
{
	static int known = -1;
	unsigned a, b, c, d;
	int v = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (v < 0) {
		v = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) && (c & bit_SSE4_1) &&
		    __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
		__atomic_store_n(&known, v, __ATOMIC_RELAXED);
	}
	return v;
}
#endif

/* -1: not decided yet (use the SHA instructions where present); 0: portable; 1: accelerated. */
static int sha256_mode = -1;

int sha256_accelerated(void)
{
#ifdef SHA256_SHANI
	return sha256_mode != 0 && sha256_shani_present();
#else
	return 0;
#endif
}

void sha256_set_portable(int portable)
{
	sha256_mode = portable ? 0 : -1;
}

/* n whole blocks at p. */
static void sha256_blocks(struct sha256 *s, const uint8_t *p, size_t n)
{
#ifdef SHA256_SHANI
	if (sha256_accelerated()) {
		sha256_blocks_shani(s->h, p, n);
		return;
	}
#endif
	for (; n > 0; n--, p += 64)
		sha256_block(s, p);
}

void sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memcpy(s->h, h0, sizeof h0);
	s->bytes = 0;
	s->nbuf = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (len == 0)
		return;
	s->bytes += len;
	if (s->nbuf > 0) {
		size_t take = 64 - s->nbuf < len ? 64 - s->nbuf : len;
		memcpy(s->buf + s->nbuf, p, take);
		s->nbuf += take;
		p += take;
		len -= take;
		if (s->nbuf < 64)
			return;
		sha256_blocks(s, s->buf, 1);
		s->nbuf = 0;
	}
	/* Whole blocks straight from the caller's bytes, the rest kept for later. */
	if (len >= 64) {
		sha256_blocks(s, p, len / 64);
		p += len / 64 * 64;
		len %= 64;
	}
	memcpy(s->buf, p, len);
	s->nbuf = len;
}

void sha256_final_hex(struct sha256 *s, char hex[SHA256_HEX_LEN + 1])
{
	uint64_t bits = s->bytes * 8;
	uint8_t pad[72] = {0x80};
	size_t npad = (s->nbuf < 56 ? 56 : 120) - s->nbuf;

	for (int i = 0; i < 8; i++)
		pad[npad + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, pad, npad + 8);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", s->h[i]);
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
