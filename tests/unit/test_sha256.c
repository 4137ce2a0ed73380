/*
 * SHA-256 against the FIPS 180-4 / NIST CAVP example vectors, across block boundaries, fed
 * whole and in pieces (nettle computes it: whichever code its fat build picked, these hold).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sha256.h"
#include "unit.h"

static void check_hex(const char *msg, const char *want)
{
	char hex[SHA256_HEX_LEN + 1];

	sha256_hex(msg, strlen(msg), hex);
	CHECK_STR(hex, want);
}

/*
 * Every length from 0 to 300 bytes and a few large ones, each split in two at every 7th byte:
 * the digest fed in two pieces is the digest of the whole.
 */
static void check_pieces_agree(void)
{
	static uint8_t data[70000];
	char split[SHA256_HEX_LEN + 1], whole[SHA256_HEX_LEN + 1];
	size_t lens[] = {1000, 4095, 4096, 65536, 65599, sizeof data};
	int same = 1;

	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 2654435761u >> 13);
	for (size_t len = 0; len < 300 + sizeof lens / sizeof *lens; len++) {
		size_t n = len < 300 ? len : lens[len - 300];
		for (size_t cut = 0; cut <= n; cut += 7) {
			struct sha256 s;
			sha256_init(&s);
			sha256_update(&s, data, cut);
			sha256_update(&s, data + cut, n - cut);
			sha256_final_hex(&s, split);
			sha256_hex(data, n, whole);
			same &= strcmp(split, whole) == 0;
			if (n > 300)
				cut += n / 3;
		}
	}
	CHECK(same);
}

static void check_vectors(void)
{
	char hex[SHA256_HEX_LEN + 1], path[] = "/tmp/test_sha256.XXXXXX", *big;
	struct sha256 s;
	struct err e;
	int fd;

	/* FIPS 180-4 examples: one block, the empty message, two blocks. */
	check_hex("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_hex("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
	          "klmnopqrlmnopqrsmnopqrstnopqrstu",
	          "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	/* 55, 56 and 64 bytes: the padding's edge cases (length fits, does not, a full block). */
	check_hex("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	          "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	check_hex("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	          "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	check_hex("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	          "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
	/* One million 'a', fed in uneven pieces: the long-message vector. */
	big = malloc(1000000);
	memset(big, 'a', 1000000);
	sha256_init(&s);
	for (size_t off = 0, step = 1; off < 1000000; off += step, step = step * 3 % 1000 + 1)
		sha256_update(&s, big + off, off + step > 1000000 ? 1000000 - off : step);
	sha256_final_hex(&s, hex);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* A file gives the digest of its bytes; a missing one names itself. */
	fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, big, 1000000) == 1000000);
	close(fd);
	CHECK(sha256_file(path, hex, &e) == 0);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	unlink(path);
	CHECK(sha256_file(path, hex, &e) != 0 && strstr(e.msg, path));
	free(big);
	CHECK(sha256_hex_valid("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
	CHECK(
	    !sha256_hex_valid("CDC76E5C9914FB9281A1C7E284D73E67F1809A48A497200E046D39CCC7112CD0"));
	CHECK(!sha256_hex_valid("-"));
	CHECK(!sha256_hex_valid("cdc76e5c"));
}

/* Writes text to path whole, with both its times set to `age_s` seconds ago. */
static void write_aged(const char *path, const char *text, int age_s)
{
	struct timespec t[2];
	FILE *f = fopen(path, "w");

	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age_s;
	t[1] = t[0];
	/* The change time cannot be set back: it is the reason the memo trusts it. */
	CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
}

/*
 * The memo reads a file again when its stamp moved (a rewrite, one of the same size, a file
 * renamed over it) and while it is too recent for its times to tell (sha256.h), not otherwise;
 * its digests are those of the bytes. The file's change time is always recent here (set by
 * the write), so a file whose stamp the memo can trust is made by waiting out the margin in
 * the one case that needs it.
 */
static void check_memo(void)
{
	char dir[] = "/tmp/test_sha256.XXXXXX", path[64], other[64];
	char hex[SHA256_HEX_LEN + 1], want[SHA256_HEX_LEN + 1];
	struct sha256_memo *m = sha256_memo_new();
	struct err e = ERR_INIT;
	int again = -1;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/probe", dir);
	snprintf(other, sizeof other, "%s/other", dir);
	write_aged(path, "one", 60);
	sha256_hex("one", 3, want);
	CHECK(sha256_file_memo(m, path, hex, &again, &e) == 0 && again == 1);
	CHECK_STR(hex, want);
	/* Just written (its change time is now): read again, and again. */
	CHECK(sha256_file_memo(m, path, hex, &again, &e) == 0 && again == 1);
	CHECK_STR(hex, want);
	/* Once both times are older than the margin, its stamp vouches for it. */
	sleep((unsigned)(SHA256_MEMO_RACY_NS / 1000000000LL) + 1);
	CHECK(sha256_file_memo(m, path, hex, &again, &e) == 0 && again == 1);
	CHECK(sha256_file_memo(m, path, hex, &again, &e) == 0 && again == 0);
	CHECK_STR(hex, want);
	/* Rewritten with bytes of the same length and its old times put back: read again. */
	write_aged(path, "two", 60);
	sha256_hex("two", 3, want);
	CHECK(sha256_file_memo(m, path, hex, &again, &e) == 0 && again == 1);
	CHECK_STR(hex, want);
	/* Another file renamed over it: read again. */
	write_aged(other, "three", 60);
	CHECK(rename(other, path) == 0);
	sha256_hex("three", 5, want);
	CHECK(sha256_file_memo(m, path, hex, &again, &e) == 0 && again == 1);
	CHECK_STR(hex, want);
	/* Gone: an error naming it, whatever the memo holds. */
	CHECK(unlink(path) == 0);
	CHECK(sha256_file_memo(m, path, hex, &again, &e) != 0 && strstr(e.msg, path));
	/* Without a memo, every call reads. */
	write_aged(path, "one", 60);
	sha256_hex("one", 3, want);
	CHECK(sha256_file_memo(NULL, path, hex, &again, &e) == 0 && again == 1);
	CHECK_STR(hex, want);
	unlink(path);
	rmdir(dir);
	sha256_memo_free(m);
}

int main(void)
{
	check_vectors();
	check_pieces_agree();
	check_memo();
	return unit_done("test_sha256");
}
