#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void report_budget_init(struct report_budget *bg, struct sbuf *b)
{
	bg->b = b;
	bg->limit = REPORT_MD_CAP - REPORT_MD_TAIL;
	bg->dropped = 0;
}

int report_budget_add(struct report_budget *bg, const char *text)
{
	size_t n = strlen(text);

	if (bg->dropped == 0 && bg->b->len + n < bg->limit) {
		sbuf_add(bg->b, text, n);
		return 1;
	}
	/* Once a row is cut every later one is too: what is shown is a prefix, in order. */
	bg->dropped++;
	return 0;
}

void report_budget_note(struct report_budget *bg)
{
	if (bg->dropped)
		sbuf_addf(bg->b,
		          "\n_%zu more row%s in the artifact (the HTML and JSON reports)._\n",
		          bg->dropped, bg->dropped == 1 ? "" : "s");
	bg->dropped = 0;
}

int report_step_summary(const char *md, struct err *e)
{
	const char *path = getenv("GITHUB_STEP_SUMMARY");
	FILE *f;
	int rc = 0;

	if (!path || !*path)
		return 0;
	f = fopen(path, "a");
	if (!f)
		return err_setc(e, ERR_IO, "GITHUB_STEP_SUMMARY=%s: %s", path, strerror(errno));
	if (fputs(md, f) < 0 || fputs("\n", f) < 0)
		rc = err_setc(e, ERR_IO, "GITHUB_STEP_SUMMARY=%s: write failed", path);
	if (fclose(f) != 0 && rc == 0)
		rc = err_setc(e, ERR_IO, "GITHUB_STEP_SUMMARY=%s: %s", path, strerror(errno));
	return rc;
}

/* The metric's values over the probe's measured, successful runs of the arm. */
static size_t report_summary_values(const struct report_data *d, const char *probe, int arm,
                                    const char *metric, double *out)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nruns; i++) {
		const struct store_run *r = &d->runs[i];
		const double *v;

		if (r->arm != arm || r->warmup || r->status != RUN_STATUS_OK ||
		    strcmp(r->probe, probe) != 0 || !(v = metric_set_get(&r->metrics, metric)))
			continue;
		out[n++] = *v;
	}
	return n;
}

struct report_summary *report_summary_load(const struct report_data *d)
{
	return report_summary_load_arm(d, 0);
}

struct report_summary *report_summary_load_arm(const struct report_data *d, size_t at)
{
	struct report_summary *s = xcalloc(1, sizeof *s);
	double *vals = xcalloc(d->nruns ? d->nruns : 1, sizeof *vals);
	int arm = at < d->nbuilds ? d->builds[at].position : 0;

	s->probes = xcalloc(d->probes.n ? d->probes.n : 1, sizeof *s->probes);
	for (size_t p = 0; p < d->probes.n; p++) {
		struct report_summary_probe *sp = &s->probes[s->nprobes++];
		struct strlist seen = {0};

		sp->probe = d->probes.items[p];
		for (size_t i = 0; i < d->nruns; i++) {
			const struct store_run *r = &d->runs[i];

			if (r->arm != arm || r->warmup || strcmp(r->probe, sp->probe) != 0)
				continue;
			sp->runs++;
			if (r->status != RUN_STATUS_OK)
				continue;
			sp->ok++;
			if (!sp->checksum)
				sp->checksum = r->checksum;
			/* Metrics in the order the runs carry them, each once. */
			for (size_t m = 0; m < r->metrics.n; m++) {
				const char *name = r->metrics.items[m].name;
				struct report_summary_cell *c;
				struct stats_summary st;

				if (strlist_contains(&seen, name))
					continue;
				strlist_push(&seen, name);
				stats_summarize(
				    vals, report_summary_values(d, sp->probe, arm, name, vals),
				    &st);
				sp->cells =
				    xrealloc(sp->cells, (sp->ncells + 1) * sizeof *sp->cells);
				c = &sp->cells[sp->ncells++];
				c->metric = name;
				c->n = st.n;
				c->median = st.median;
				c->min = st.min;
				c->max = st.max;
			}
		}
		strlist_release(&seen);
	}
	free(vals);
	return s;
}

void report_summary_release(struct report_summary *s)
{
	if (!s)
		return;
	for (size_t p = 0; p < s->nprobes; p++)
		free(s->probes[p].cells);
	free(s->probes);
	free(s);
}
