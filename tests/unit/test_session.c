/* The per-round shuffle: a permutation, reproducible from the seed, different across rounds. */
#include <stdlib.h>

#include "session.h"
#include "unit.h"

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 12345;
	size_t a[14], b[14], c[14];
	int differs = 0, first_differs = 0;

	printf("test_session: seed %llu (pass a seed as the first argument to repeat)\n",
	       (unsigned long long)seed);
	for (int round = 0; round < 50; round++) {
		int seen[14] = {0}, ok = 1;
		session_shuffle(seed, round, 14, a);
		session_shuffle(seed, round, 14, b);
		session_shuffle(seed, round + 1, 14, c);
		for (int i = 0; i < 14; i++) {
			ok &= a[i] < 14 && !seen[a[i]]++;
			ok &= a[i] == b[i];
			differs |= a[i] != c[i];
		}
		CHECK(ok);
		first_differs |= a[0] != 0;
	}
	CHECK(differs);
	CHECK(first_differs);
	session_shuffle(seed, 0, 1, a);
	CHECK(a[0] == 0);
	session_shuffle(seed, 0, 0, a);
	return unit_done("test_session");
}
