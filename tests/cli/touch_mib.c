/*
 * touch_mib — a probe for the meter tests: allocates and touches $TOUCH_MIB MiB, writes a
 * census with its own VmHWM, and exits. Built by the tests that use it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long touch_status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, key, strlen(key)) == 0)
			kb = atol(line + strlen(key));
	if (f)
		fclose(f);
	return kb;
}

int main(void)
{
	const char *env = getenv("TOUCH_MIB");
	size_t n = (size_t)(env ? atol(env) : 64) << 20;
	unsigned char *p = malloc(n);
	FILE *census = fdopen(3, "w");

	if (!p)
		return 1;
	memset(p, 1, n);
	printf("checksum 0x%016zx\n", n + p[n / 2]);
	if (census) {
		fprintf(census,
		        "{\"format\":\"gcr-census\",\"version\":1,\"probe\":\"01_touch\","
		        "\"collector\":\"none\","
		        "\"checksum\":\"0x%016zx\",\"memory\":{\"vm_hwm_bytes\":%ld}}",
		        n + p[n / 2], touch_status_kb("VmHWM:") * 1024);
		fclose(census);
	}
	free(p);
	return 0;
}
