/*
 * sha256.h — SHA-256 (FIPS 180-4), so a build folder's manifest can pin each probe's bytes
 * without a crypto library: a build id is one set of executables (docs/manifest.md).
 *
 * Digests are written as 64 lowercase hex digits, the form sha256sum prints and manifests hold.
 */
#ifndef SHA256_H
#define SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define SHA256_HEX_LEN 64

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;  /* message length so far */
	uint8_t buf[64]; /* a partial block */
	size_t nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Finishes the digest into hex (SHA256_HEX_LEN digits and a NUL); s must be init'd again to reuse. */
void sha256_final_hex(struct sha256 *s, char hex[SHA256_HEX_LEN + 1]);
/* The digest of `len` bytes at `data`, as hex. */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);
/* The digest of a file's bytes, as hex; -1 with a message naming the file when it cannot be read. */
int sha256_file(const char *path, char hex[SHA256_HEX_LEN + 1], struct err *e);
/*
 * 1 when digests are computed with the processor's SHA instructions (x86 SHA-NI), 0 with the
 * portable code; the digests are the same. sha256_set_portable(1) makes every later digest
 * use the portable code (the tests compare the two), sha256_set_portable(0) undoes it.
 */
int sha256_accelerated(void);
void sha256_set_portable(int portable);
/* 1 when s is exactly SHA256_HEX_LEN lowercase hex digits. */
int sha256_hex_valid(const char *s);

#endif /* SHA256_H */
