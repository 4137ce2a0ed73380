#include "hostinfo.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util.h"

/* Copies the value of the first "key<spaces>: value" line of a /proc file. */
static void hostinfo_proc_field(const char *path, const char *key, char *out, size_t size)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t klen = strlen(key);

	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *colon;
		if (strncmp(line, key, klen) != 0 || !(colon = strchr(line, ':')))
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, size, "%s", colon);
		break;
	}
	fclose(f);
}

void hostinfo_read(struct hostinfo *h)
{
	struct utsname u;
	char mem[64] = "";
	uint64_t hash = HASH_FNV1A_SEED;

	memset(h, 0, sizeof *h);
	snprintf(h->hostname, sizeof h->hostname, "unknown");
	snprintf(h->kernel, sizeof h->kernel, "unknown");
	snprintf(h->cpu_model, sizeof h->cpu_model, "unknown");
	if (uname(&u) == 0) {
		snprintf(h->hostname, sizeof h->hostname, "%s", u.nodename);
		snprintf(h->kernel, sizeof h->kernel, "%s %s %s", u.sysname, u.release, u.machine);
	}
	hostinfo_proc_field("/proc/cpuinfo", "model name", h->cpu_model, sizeof h->cpu_model);
	h->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	hostinfo_proc_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
	h->mem_total_bytes = strtoull(mem, NULL, 10) * 1024;

	hash = hash_fnv1a(h->hostname, strlen(h->hostname) + 1, hash);
	hash = hash_fnv1a(h->cpu_model, strlen(h->cpu_model) + 1, hash);
	hash = hash_fnv1a(&h->ncpu, sizeof h->ncpu, hash);
	/* Rounded to GiB: the kernel's own reservations move MemTotal a little between boots. */
	uint64_t mem_gib = (h->mem_total_bytes + (UINT64_C(1) << 29)) >> 30;
	hash = hash_fnv1a(&mem_gib, sizeof mem_gib, hash);
	snprintf(h->fingerprint, sizeof h->fingerprint, "%016llx", (unsigned long long)hash);
}

char *hostinfo_json(const struct hostinfo *h)
{
	cJSON *o = cJSON_CreateObject();
	char *text, *copy;

	cJSON_AddStringToObject(o, "hostname", h->hostname);
	cJSON_AddStringToObject(o, "kernel", h->kernel);
	cJSON_AddStringToObject(o, "cpu_model", h->cpu_model);
	cJSON_AddNumberToObject(o, "ncpu", (double)h->ncpu);
	cJSON_AddNumberToObject(o, "mem_total_bytes", (double)h->mem_total_bytes);
	cJSON_AddStringToObject(o, "fingerprint", h->fingerprint);
	text = cJSON_PrintUnformatted(o);
	copy = xstrdup(text);
	cJSON_free(text);
	cJSON_Delete(o);
	return copy;
}

double hostinfo_load1(void)
{
	double l[1];

	return getloadavg(l, 1) == 1 ? l[0] : -1;
}
