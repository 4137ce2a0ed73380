#include "run.h"

#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "util.h"

static const char *const run_kind_names[RUN_KIND_COUNT] = {
    [RUN_KIND_TIMED] = "timed",
    [RUN_KIND_VALGRIND] = "valgrind",
    [RUN_KIND_PER_ITERATION] = "per_iteration",
    [RUN_KIND_VALGRIND_PER_ITERATION] = "valgrind_per_iteration",
};

static const char *const run_status_names[RUN_STATUS_COUNT] = {
    [RUN_STATUS_OK] = "ok",
    [RUN_STATUS_FAILED] = "failed",
    [RUN_STATUS_CRASHED] = "crashed",
    [RUN_STATUS_TIMEOUT] = "timeout",
    [RUN_STATUS_BAD_CENSUS] = "bad_census",
    [RUN_STATUS_EXEC_FAILED] = "exec_failed",
    [RUN_STATUS_LOST] = "lost",
    [RUN_STATUS_INTERRUPTED] = "interrupted",
    [RUN_STATUS_HEAP_EXHAUSTED] = "heap_exhausted",
};

const char *run_status_label(enum run_status s)
{
	return s == RUN_STATUS_HEAP_EXHAUSTED ? "heap exhausted" : run_status_name(s);
}

const char *run_kind_name(enum run_kind k)
{
	return (unsigned)k < RUN_KIND_COUNT ? run_kind_names[k] : "?";
}

const char *run_status_name(enum run_status s)
{
	return (unsigned)s < RUN_STATUS_COUNT ? run_status_names[s] : "?";
}

const char *run_premise_name(enum run_premise p)
{
	switch (p) {
	case RUN_PREMISE_MET:
		return "met";
	case RUN_PREMISE_NOT_MET:
		return "not met";
	case RUN_PREMISE_NA:
		return "n/a";
	case RUN_PREMISE_NONE:
		break;
	}
	return "none";
}

static int run_lookup(const char *const *names, int n, const char *name)
{
	for (int i = 0; name && i < n; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

int run_kind_parse(const char *name, enum run_kind *out)
{
	int i = run_lookup(run_kind_names, RUN_KIND_COUNT, name);

	if (i < 0)
		return -1;
	*out = (enum run_kind)i;
	return 0;
}

int run_status_parse(const char *name, enum run_status *out)
{
	int i = run_lookup(run_status_names, RUN_STATUS_COUNT, name);

	if (i < 0)
		return -1;
	*out = (enum run_status)i;
	return 0;
}

int run_kind_is_valgrind(enum run_kind k)
{
	return k == RUN_KIND_VALGRIND || k == RUN_KIND_VALGRIND_PER_ITERATION;
}

char *run_premise_join(enum run_premise p, const char *text)
{
	if (p == RUN_PREMISE_NONE)
		return NULL;
	return xasprintf("%s%s%s", run_premise_name(p), text && *text ? ": " : "",
	                 text ? text : "");
}

enum run_premise run_premise_split(const char *stored, const char **text)
{
	static const struct {
		const char *name;
		enum run_premise p;
	} forms[] = {
	    {"not met", RUN_PREMISE_NOT_MET}, {"met", RUN_PREMISE_MET}, {"n/a", RUN_PREMISE_NA}};

	*text = "";
	if (!stored)
		return RUN_PREMISE_NONE;
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		size_t len = strlen(forms[i].name);
		if (strncmp(stored, forms[i].name, len) != 0)
			continue;
		if (stored[len] == '\0') {
			return forms[i].p;
		} else if (strncmp(stored + len, ": ", 2) == 0) {
			*text = stored + len + 2;
			return forms[i].p;
		}
	}
	/* A premise this harness does not know how to read is shown whole, never judged met. */
	*text = stored;
	return RUN_PREMISE_NA;
}

char *run_stderr_first_line(const char *stderr_tail)
{
	const char *p = stderr_tail, *end;
	size_t len;

	if (!p)
		return NULL;
	/* A full tail was cut from a longer stderr: its first line is a fragment. */
	if (strlen(p) >= RUNNER_STDERR_TAIL) {
		const char *nl = strchr(p, '\n');
		p = nl ? nl + 1 : p + strlen(p);
	}
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (*p != '\n')
			break;
		p++;
	}
	end = strchr(p, '\n');
	len = end ? (size_t)(end - p) : strlen(p);
	while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
		len--;
	if (len == 0)
		return NULL;
	if (len > RUN_STDERR_LINE_MAX)
		return xasprintf("%.*s...", RUN_STDERR_LINE_MAX, p);
	return xasprintf("%.*s", (int)len, p);
}

void run_stderr_lines(const char *stderr_tail, size_t max, struct strlist *out)
{
	struct strlist all = {0};
	const char *p = stderr_tail;

	if (!p)
		return;
	if (strlen(p) >= RUNNER_STDERR_TAIL) {
		const char *nl = strchr(p, '\n');
		p = nl ? nl + 1 : p + strlen(p);
	}
	while (*p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p), skip = 0;

		while (skip < len && (p[skip] == ' ' || p[skip] == '\t' || p[skip] == '\r'))
			skip++;
		while (len > skip &&
		       (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
			len--;
		if (len > skip) {
			char *line = len - skip > RUN_STDERR_LINE_MAX
			                 ? xasprintf("%.*s...", RUN_STDERR_LINE_MAX, p + skip)
			                 : xasprintf("%.*s", (int)(len - skip), p + skip);
			strlist_push(&all, line);
			free(line);
		}
		p = end ? end + 1 : p + strlen(p);
	}
	if (max < 3)
		max = 3;
	for (size_t i = 0; i < all.n; i++) {
		if (all.n > max && i == 1) {
			char *gap = xasprintf("... (%zu more lines: gcratchet export has them)",
			                      all.n - max + 1);
			strlist_push(out, gap);
			free(gap);
			i = all.n - (max - 2) - 1;
			continue;
		}
		strlist_push(out, all.items[i]);
	}
	strlist_release(&all);
}
