#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "escape.h"
#include "stats.h"
#include "util.h"

enum { PROGRESS_TIMED, PROGRESS_VALGRIND, PROGRESS_KINDS };

/* Wall times of finished runs, in ns. */
struct progress_times {
	double *ns;
	size_t n, cap;
};

struct progress {
	struct strlist probes;
	size_t narms;
	int jobs;
	int planned[PROGRESS_KINDS]; /* runs of each kind per probe and arm */
	/* cells[(probe * narms + arm) * PROGRESS_KINDS + kind] */
	struct progress_times *cells;
	struct progress_times kinds[PROGRESS_KINDS]; /* every run of a kind, known probe or not */
	const struct session_arm *arms;              /* only to turn a report's arm into an index */
	/* Runs of the batch the session added to its plan (session.h) not reported yet. */
	int added_left, added_kind;
};

static void progress_times_add(struct progress_times *t, double ns)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 8;
		t->ns = xrealloc(t->ns, t->cap * sizeof *t->ns);
	}
	t->ns[t->n++] = ns;
}

struct progress *progress_new(const struct session_plan *plan)
{
	struct progress *pr = xcalloc(1, sizeof *pr);
	int per_cell = plan->two_n[0] ? 2 : 1;

	for (size_t i = 0; i < plan->probes.n; i++)
		strlist_push(&pr->probes, plan->probes.items[i]);
	pr->narms = plan->narms;
	pr->arms = plan->arms;
	pr->jobs = plan->jobs > 1 ? plan->jobs : 1;
	pr->planned[PROGRESS_TIMED] = (plan->warmup + plan->rounds) * per_cell;
	pr->planned[PROGRESS_VALGRIND] = plan->meters & SESSION_METER_VALGRIND ? per_cell : 0;
	pr->cells = xcalloc(pr->probes.n * pr->narms * PROGRESS_KINDS + 1, sizeof *pr->cells);
	return pr;
}

void progress_free(struct progress *pr)
{
	if (!pr)
		return;
	for (size_t i = 0; i < pr->probes.n * pr->narms * PROGRESS_KINDS; i++)
		free(pr->cells[i].ns);
	for (int k = 0; k < PROGRESS_KINDS; k++)
		free(pr->kinds[k].ns);
	free(pr->cells);
	strlist_release(&pr->probes);
	free(pr);
}

static struct progress_times *progress_cell(const struct progress *pr, size_t probe, size_t arm,
                                            int kind)
{
	return &pr->cells[(probe * pr->narms + arm) * PROGRESS_KINDS + (size_t)kind];
}

void progress_add(struct progress *pr, const char *probe, size_t arm, int valgrind, int64_t wall_ns)
{
	int kind = valgrind ? PROGRESS_VALGRIND : PROGRESS_TIMED;
	double ns = wall_ns > 0 ? (double)wall_ns : 0;

	progress_times_add(&pr->kinds[kind], ns);
	if (arm >= pr->narms)
		return;
	for (size_t i = 0; i < pr->probes.n; i++)
		if (strcmp(pr->probes.items[i], probe) == 0) {
			progress_times_add(progress_cell(pr, i, arm, kind), ns);
			return;
		}
}

void progress_report(struct progress *pr, const struct session_progress *p)
{
	size_t arm = pr->narms;

	for (size_t b = 0; b < pr->narms; b++)
		if (p->arm == &pr->arms[b])
			arm = b;
	progress_add(pr, p->run->probe, arm, p->round == 0, p->elapsed_ns);
	pr->added_left = p->added ? p->added_total - p->added_index : 0;
	pr->added_kind = p->round == 0 ? PROGRESS_VALGRIND : PROGRESS_TIMED;
}

static double progress_median(const struct progress_times *t)
{
	return stats_median(t->ns, t->n);
}

/* The median of a probe's runs of a kind on every arm; -1 when there are none. */
static double progress_probe_median(const struct progress *pr, size_t probe, int kind)
{
	struct progress_times all = {0};
	double m = -1;

	for (size_t b = 0; b < pr->narms; b++) {
		const struct progress_times *t = progress_cell(pr, probe, b, kind);
		for (size_t i = 0; i < t->n; i++)
			progress_times_add(&all, t->ns[i]);
	}
	if (all.n)
		m = progress_median(&all);
	free(all.ns);
	return m;
}

/* What one more run of a kind should take, whatever its probe: rules 3 and 4 in progress.h. */
static double progress_kind_guess(const struct progress *pr, int kind)
{
	double m;

	if (pr->kinds[kind].n)
		return progress_median(&pr->kinds[kind]);
	m = progress_median(&pr->kinds[1 - kind]);
	return kind == PROGRESS_VALGRIND ? m * PROGRESS_VALGRIND_GUESS : m;
}

/* What one more run of the cell should take, by the rules in progress.h. */
static double progress_guess(const struct progress *pr, size_t probe, size_t arm, int kind)
{
	const struct progress_times *t = progress_cell(pr, probe, arm, kind);
	double m;

	if (t->n)
		return progress_median(t);
	if ((m = progress_probe_median(pr, probe, kind)) >= 0)
		return m;
	return progress_kind_guess(pr, kind);
}

int64_t progress_left_ns(const struct progress *pr)
{
	double left[PROGRESS_KINDS] = {0, 0};
	int count[PROGRESS_KINDS] = {0, 0}, lanes;
	double total;

	if (pr->kinds[PROGRESS_TIMED].n + pr->kinds[PROGRESS_VALGRIND].n == 0)
		return -1;
	for (size_t p = 0; p < pr->probes.n; p++)
		for (size_t b = 0; b < pr->narms; b++)
			for (int k = 0; k < PROGRESS_KINDS; k++) {
				int done = (int)progress_cell(pr, p, b, k)->n;
				int todo = pr->planned[k] - done;
				if (todo <= 0)
					continue;
				left[k] += todo * progress_guess(pr, p, b, k);
				count[k] += todo;
			}
	/* An added batch's runs are of probes judged to need them: any run of the kind guesses. */
	if (pr->added_left > 0) {
		left[pr->added_kind] += pr->added_left * progress_kind_guess(pr, pr->added_kind);
		count[pr->added_kind] += pr->added_left;
	}
	/* The valgrind runs go jobs at once: the batch takes about its sum over the lanes. */
	lanes = count[PROGRESS_VALGRIND] < pr->jobs ? count[PROGRESS_VALGRIND] : pr->jobs;
	total = left[PROGRESS_TIMED] + (lanes > 0 ? left[PROGRESS_VALGRIND] / lanes : 0);
	return total < 9e18 ? (int64_t)total : INT64_MAX;
}

void progress_format_duration(int64_t ns, char *buf, size_t size)
{
	long long s;

	if (ns < 0) {
		snprintf(buf, size, "?");
		return;
	}
	s = (long long)((ns + 500000000) / 1000000000);
	if (s < 60)
		snprintf(buf, size, "%llds", s);
	else if (s < 3600)
		snprintf(buf, size, "%lldm%02llds", s / 60, s % 60);
	else
		snprintf(buf, size, "%lldh%02lldm", s / 3600, s / 60 % 60);
}

void progress_left_text(const struct progress *pr, char *buf, size_t size)
{
	int64_t left = progress_left_ns(pr);
	char d[32];

	if (left <= 0) {
		snprintf(buf, size, "%s", "");
		return;
	}
	if (left < 500000000) {
		snprintf(buf, size, "<1s left");
		return;
	}
	progress_format_duration(left, d, sizeof d);
	snprintf(buf, size, "~%s left", d);
}

void progress_where(const struct session_progress *p, char *buf, size_t size)
{
	if (p->added == SESSION_ADDED_CONFIRM)
		snprintf(buf, size, "confirming");
	else if (p->added == SESSION_ADDED_SPREAD)
		snprintf(buf, size, "valgrind again");
	else if (p->round == 0)
		snprintf(buf, size, "valgrind");
	else if (p->warmup)
		snprintf(buf, size, "warm-up %d/%d", p->round, p->warmups);
	else if (p->round > p->rounds)
		/* The runs a verb asked for after the planned rounds (session.h, more_timed). */
		snprintf(buf, size, "again %d", p->round - p->rounds);
	else
		snprintf(buf, size, "round %d/%d", p->round - p->warmups, p->rounds - p->warmups);
}

void progress_counter(const struct session_progress *p, char *buf, size_t size)
{
	if (p->added)
		snprintf(buf, size, "[%3d/%d] + [%3d/%d]", p->run_index, p->run_total,
		         p->added_index, p->added_total);
	else
		snprintf(buf, size, "[%3d/%d]", p->run_index, p->run_total);
}

void progress_status_line(const struct progress *pr, const struct session_progress *p, int width,
                          char *buf, size_t size)
{
	progress_status_text(pr, p, 1, width, buf, size);
}

void progress_status_text(const struct progress *pr, const struct session_progress *p,
                          int with_left, int width, char *buf, size_t size)
{
	const struct run_record *r = p->run;
	char left[48] = "", where[40], counter[48];
	size_t len;

	if (with_left)
		progress_left_text(pr, left, sizeof left);
	progress_counter(p, counter, sizeof counter);
	progress_where(p, where, sizeof where);
	snprintf(buf, size, "%s %s  %s%s%s%s%s%s%s", counter, where, r->probe,
	         p->arm && p->arm->label ? " on " : "",
	         p->arm && p->arm->label ? p->arm->label : "",
	         r->status != RUN_STATUS_OK ? "  " : "",
	         r->status != RUN_STATUS_OK ? run_status_label(r->status) : "", left[0] ? "  " : "",
	         left);
	/* One column short of the edge: some terminals wrap a line that fills the last one. */
	len = strlen(buf);
	if (width > 1 && len > (size_t)width - 1)
		buf[width - 1] = '\0';
}

int progress_term_width(int fd)
{
	struct winsize ws;

	if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &ws) != 0)
		return 0;
	return ws.ws_col;
}

int progress_redraw_ok(int fd)
{
	const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");

	return isatty(fd) && !(no_color && *no_color) && !(term && strcmp(term, "dumb") == 0);
}

void progress_display_init(struct progress_display *d, const char *cmd, FILE *out, int fd,
                           volatile sig_atomic_t *stop)
{
	memset(d, 0, sizeof *d);
	d->out = out;
	d->cmd = cmd;
	d->stop = stop;
	d->redraw = progress_redraw_ok(fd);
	d->width = d->redraw ? progress_term_width(fd) : 0;
}

void progress_display_text(struct progress_display *d, const char *text, int force)
{
	int64_t now = now_mono_ns();
	char line[256];
	char *safe;

	if (d->redraw) {
		snprintf(line, sizeof line, "%s", text);
		/* One column short of the edge: some terminals wrap a line that fills the last one. */
		if (d->width > 1 && strlen(line) > (size_t)d->width - 1)
			line[d->width - 1] = '\0';
		safe = escape_text(line);
		fprintf(d->out, "\r%s" PROGRESS_CLEAR_EOL, safe);
		d->shown = 1;
	} else {
		if (!force && d->last_ns &&
		    now - d->last_ns < PROGRESS_PLAIN_EVERY_S * INT64_C(1000000000))
			return;
		safe = escape_text(text);
		fprintf(d->out, "gcratchet %s: %s\n", d->cmd, safe);
		d->last_ns = now;
	}
	free(safe);
	fflush(d->out);
}

void progress_display_update(struct progress_display *d, const struct progress *pr,
                             const struct session_progress *p)
{
	int with_left = !(d->stop && *d->stop);
	/* The first and last of the plan's runs, and of a batch added to it, always get a line. */
	int edge = p->added ? p->added_index == 1 || p->added_index == p->added_total
	                    : p->run_index == 1 || p->run_index == p->run_total;
	char line[256];

	/* "gcratchet measure: " would crowd a narrow terminal; the command is on screen. */
	progress_status_text(pr, p, with_left, 0, line, sizeof line);
	progress_display_text(d, line, edge);
}

void progress_display_clear(struct progress_display *d)
{
	if (!d->shown)
		return;
	fprintf(d->out, "\r" PROGRESS_CLEAR_EOL);
	fflush(d->out);
	d->shown = 0;
}
