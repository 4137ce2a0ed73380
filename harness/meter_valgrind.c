#include "meter_valgrind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define METER_VALGRIND_FIXED_ARGS 5

int meter_valgrind_find(struct meter_valgrind *m, struct err *e)
{
	const char *path_env = getenv("PATH");
	char *paths = xstrdup(path_env ? path_env : "/usr/bin:/bin"), *save = NULL, *dir;
	FILE *p;
	char line[128] = "";
	int rc = -1;

	memset(m, 0, sizeof *m);
	for (dir = strtok_r(paths, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *cand = xasprintf("%s/valgrind", dir);
		if (access(cand, X_OK) == 0) {
			m->path = cand;
			break;
		}
		free(cand);
	}
	if (!m->path) {
		err_set(e, "valgrind is not installed (needed by the valgrind meter): apt-get "
		           "install valgrind");
		goto out;
	}
	{
		char *cmd = xasprintf("'%s' --version 2>/dev/null", m->path);
		p = popen(cmd, "r");
		free(cmd);
	}
	if (p) {
		if (!fgets(line, sizeof line, p))
			line[0] = '\0';
		pclose(p);
	}
	line[strcspn(line, "\n")] = '\0';
	m->version = xstrdup(line[0] ? line : "valgrind-unknown");
	rc = 0;
out:
	free(paths);
	return rc;
}

void meter_valgrind_release(struct meter_valgrind *m)
{
	free(m->path);
	free(m->version);
	memset(m, 0, sizeof *m);
}

char **meter_valgrind_argv(const struct meter_valgrind *m, const char *out_file,
                           char *const *probe_argv)
{
	size_t n = 0, i = 0;
	char **argv;

	while (probe_argv[n])
		n++;
	argv = xcalloc(n + METER_VALGRIND_FIXED_ARGS + 1, sizeof *argv);
	argv[i++] = xstrdup(m->path);
	argv[i++] = xstrdup("--tool=cachegrind");
	argv[i++] = xstrdup("--cache-sim=no");
	argv[i++] = xasprintf("--cachegrind-out-file=%s", out_file);
	argv[i++] = xstrdup("-q");
	for (size_t k = 0; k < n; k++)
		argv[i++] = xstrdup(probe_argv[k]);
	argv[i] = NULL;
	return argv;
}

void meter_valgrind_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

int meter_valgrind_read(const char *out_file, double *ir, struct err *e)
{
	char *text = NULL, *line;
	int rc = -1;

	if (read_file(out_file, &text, NULL, e) != 0)
		return -1;
	for (line = text; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, "summary:", 8) == 0) {
			char *end;
			*ir = strtod(line + 8, &end);
			if (end != line + 8) {
				rc = 0;
				break;
			}
		}
	}
	if (rc != 0)
		err_set(e, "%s: no \"summary:\" line with an instruction count", out_file);
	free(text);
	return rc;
}
