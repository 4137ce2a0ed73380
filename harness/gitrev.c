/*
 * gitrev.c — git's answers about a repository's history (gitrev.h).
 */
#include <stdarg.h>
#include <stdlib.h>

#include "gitrev.h"

int gitrev_run(const char *repo, struct sbuf *out, ...)
{
	const char *argv[16];
	va_list ap;
	int n = 0, st;
	const char *a;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = repo;
	va_start(ap, out);
	while ((a = va_arg(ap, const char *)) != NULL && n < 15)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	st = run_capture((char *const *)argv, 1, out);
	while (out->len > 0 && out->data[out->len - 1] == '\n')
		out->data[--out->len] = '\0';
	return st;
}

int gitrev_commit_hash(const char *repo, const char *rev, struct sbuf *out)
{
	char *spec = xasprintf("%s^{commit}", rev);
	int st = gitrev_run(repo, out, "rev-parse", "--verify", "--quiet", spec, NULL);

	free(spec);
	return st != 0 || out->len == 0 ? -1 : 0;
}

char *gitrev_subject(const char *repo, const char *hash)
{
	struct sbuf subj;

	sbuf_init(&subj);
	gitrev_run(repo, &subj, "log", "-1", "--format=%s", hash, NULL);
	return sbuf_detach(&subj);
}
