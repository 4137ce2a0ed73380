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
 * A memo of files already hashed, so that a file hashed again and again (a probe after each
 * of its runs, a JVM build's lib/ folder) is read only when it may have changed.
 *
 * A file is not read again while its stamp (device, inode, size, modification and change
 * times, to the nanosecond) is the one taken just before it was last read, and both its
 * times were then more than SHA256_MEMO_RACY_NS old. Whatever writes, truncates, renames over
 * or re-creates the file changes its stamp: the change time is the kernel's to set, and no
 * call sets it back. The margin is for times that are coarse (the kernel's tick; FAT's two
 * seconds): a write within the same tick as the last one could keep both times, so a file
 * changed less than that before it was read is read again at each lookup until it is older
 * (make, git's index and ccache trust the same stamp, git with the same care for "racy" ones).
 * Owns copies of the paths; a memo is used by one thread at a time.
 */
#define SHA256_MEMO_RACY_NS (3 * 1000000000LL)
struct sha256_memo;
struct sha256_memo *sha256_memo_new(void);
void sha256_memo_free(struct sha256_memo *m);
/*
 * sha256_file, through the memo (NULL: no memo, every call reads the file). *read_again, when
 * given, is 1 when the file's bytes were read this time, 0 when its stamp vouched for them.
 */
int sha256_file_memo(struct sha256_memo *m, const char *path, char hex[SHA256_HEX_LEN + 1],
                     int *read_again, struct err *e);
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
