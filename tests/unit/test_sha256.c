/* SHA-256 against the FIPS 180-4 / NIST CAVP example vectors, across block boundaries. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sha256.h"
#include "unit.h"

static void check_hex(const char *msg, const char *want)
{
	char hex[SHA256_HEX_LEN + 1];

	sha256_hex(msg, strlen(msg), hex);
	CHECK_STR(hex, want);
}

int main(void)
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
	return unit_done("test_sha256");
}
