#include "report_md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "movers.h"
#include "pauses.h"
#include "report_text.h"

static void report_md_row(const struct compare_cell *cell, struct sbuf *b)
{
	const struct paired_cell *s = &cell->stats;
	char x[48], y[48], dl[48], pct[24], ci[64], mde[24], signs[32];
	double pv, qv;
	const char *v = compare_cell_verdict_text(cell);

	metrics_format_value(cell->metric, s->base_median, x, sizeof x);
	metrics_format_value(cell->metric, s->fix_median, y, sizeof y);
	report_format_delta(cell->metric, s->delta_median, dl, sizeof dl);
	report_format_pct(s->delta_pct, pct, sizeof pct);
	report_text_interval(cell, ci, sizeof ci);
	report_text_mde(cell, mde, sizeof mde);
	compare_signs_text(cell, signs, sizeof signs);
	sbuf_addf(b, "| ");
	escape_md(b, cell->probe);
	sbuf_addf(b, " | ");
	escape_md(b, cell->metric);
	sbuf_addf(b, " | %s | %s | %s | %s | %s | %s | %s | ", x, y, dl, pct, ci, mde, signs);
	compare_cell_pq(cell, &pv, &qv);
	if (isnan(pv))
		sbuf_addf(b, "- | - | ");
	else if (!isnan(qv))
		sbuf_addf(b, "%.4f | %.4f | ", pv, qv);
	else
		sbuf_addf(b, "%.4f | - | ", pv);
	if (!cell->context && !cell->inert &&
	    (s->verdict == PAIRED_WORSE || s->verdict == PAIRED_BETTER))
		sbuf_addf(b, "**%s**", v);
	else
		escape_md(b, v);
	sbuf_addf(b, "%s |\n", s->bimodal_base || s->bimodal_fix ? " (bimodal)" : "");
}

static void report_md_table_head(struct sbuf *b)
{
	sbuf_addf(b,
	          "| probe | metric | BASE | FIX | delta | %% | 95%% CI of delta | MDE | rounds | "
	          "p | q | verdict |\n");
	sbuf_addf(b, "|---|---|---:|---:|---:|---:|---|---:|---|---:|---:|---|\n");
}

static void report_md_build(const struct store_build *sb, struct sbuf *b)
{
	char commit[13];

	snprintf(commit, sizeof commit, "%s", sb->git_commit ? sb->git_commit : "?");
	/* Escaped, not in a code span: entities would show literally inside one. */
	escape_md(b, sb->label);
	if (sb->knobs) {
		sbuf_addf(b, " with knobs ");
		escape_md(b, sb->knobs);
	}
	sbuf_addf(b, " (");
	escape_md(b, sb->collector);
	sbuf_addf(b, " ");
	escape_md(b, sb->collector_version ? sb->collector_version : "?");
	/* The commit comes from the build's manifest: escaped like every other field. */
	sbuf_addf(b, ", ");
	escape_md(b, commit);
	sbuf_addf(b, ")");
}

/*
 * "Pauses and MMU": per probe where an arm kept a pause log, its pause figures and MMU curve,
 * the arms side by side (medians over runs), and the histogram as a list of buckets. idx are
 * the arms' indexes in d->builds, names their column heads (BASE, FIX; or the build's label).
 */
static void report_md_pause_tables(const struct report_data *d, const size_t *idx,
                                   const char *const *names, int narms, struct sbuf *b)
{
	int started = 0;

	for (size_t p = 0; p < d->probes.n; p++) {
		struct report_pause_arm arm[2];
		int lo = REPORT_PAUSE_BUCKETS, hi = -1, any = 0;

		for (int a = 0; a < narms; a++)
			any |= report_pauses_arm(d, d->probes.items[p], d->builds[idx[a]].position,
			                         &arm[a]);
		if (!any)
			continue;
		if (!started)
			sbuf_addf(b, "\n**Pauses and minimum mutator utilisation** (from each "
			             "collector's pause log; medians over runs; `-`: no log)\n");
		started = 1;
		sbuf_addf(b, "\n");
		escape_md(b, d->probes.items[p]);
		sbuf_addf(b, " (");
		for (int a = 0; a < narms; a++) {
			sbuf_addf(b, "%s", a ? ", " : "");
			escape_md(b, names[a]);
			sbuf_addf(b, " %zu runs", arm[a].runs);
		}
		sbuf_addf(b, ")\n\n| figure |");
		for (int a = 0; a < narms; a++) {
			sbuf_addf(b, " ");
			escape_md(b, names[a]);
			sbuf_addf(b, " |");
		}
		sbuf_addf(b, "\n|:--|");
		for (int a = 0; a < narms; a++)
			sbuf_addf(b, "--:|");
		sbuf_addf(b, "\n");
		for (size_t r = 0; r < REPORT_PAUSE_ROWS; r++) {
			char x[48];

			report_pauses_row_label(r, x, sizeof x);
			sbuf_addf(b, "| %s |", x);
			for (int a = 0; a < narms; a++) {
				report_pauses_cell(&arm[a], r, x, sizeof x);
				sbuf_addf(b, " %s |", x);
			}
			sbuf_addf(b, "\n");
		}
		for (int a = 0; a < narms; a++) {
			lo = arm[a].hist_lo < lo ? arm[a].hist_lo : lo;
			hi = arm[a].hist_hi > hi ? arm[a].hist_hi : hi;
		}
		for (int k = lo; k <= hi; k++) {
			char edge[24];
			int nonzero = 0;

			for (int a = 0; a < narms; a++)
				nonzero |= arm[a].hist[k] != 0;
			if (!nonzero)
				continue;
			report_pauses_bucket_label(k, edge, sizeof edge);
			sbuf_addf(b, "| pauses from %s (per run) |", edge);
			for (int a = 0; a < narms; a++)
				sbuf_addf(b, " %.2f |", arm[a].hist[k]);
			sbuf_addf(b, "\n");
		}
	}
}

static void report_md_pauses(const struct compare *c, struct sbuf *b)
{
	const size_t idx[2] = {c->base, c->fix};
	const char *const names[2] = {"BASE", "FIX"};

	report_md_pause_tables(c->data, idx, names, 2, b);
}

/* A probe's identity line ("- 01_x: checksum `...` in both; ..."), and whether it is a problem. */
static int report_md_identity_line(const struct compare_probe *p, struct sbuf *b)
{
	int bad = compare_probe_doubtful(p);

	sbuf_addf(b, "- ");
	escape_md(b, p->probe);
	switch (p->sum) {
	case COMPARE_SUM_SAME:
		sbuf_addf(b, ": checksum `%s` in both", p->base_sum);
		break;
	case COMPARE_SUM_DIFFERS:
		sbuf_addf(b, ": :x: **checksum differs**: BASE `%s`, FIX `%s`", p->base_sum,
		          p->fix_sum);
		break;
	case COMPARE_SUM_UNSTABLE:
		sbuf_addf(b, ": :x: **checksum unstable** across the runs of one arm");
		break;
	case COMPARE_SUM_MISSING:
		sbuf_addf(b, ": :x: **checksum missing**: BASE `%s`, FIX `%s`",
		          p->base_sum ? p->base_sum : "none", p->fix_sum ? p->fix_sum : "none");
		break;
	case COMPARE_SUM_NONE:
		sbuf_addf(b, ": no checksum reported");
		break;
	}
	if (p->failure) {
		sbuf_addf(b, "; %s", p->fix_only_failure ? ":x: **FIX fails**: " : "failed: ");
		escape_md(b, p->failure);
	}
	for (int arm = 0; arm < 2; arm++) {
		int n = arm ? p->fix_inert : p->base_inert;
		const char *why = arm ? p->fix_premise : p->base_premise;
		if (!n)
			continue;
		sbuf_addf(b, "; :warning: **INERT in %s**: %d of %d runs did not meet the premise",
		          arm ? "FIX" : "BASE", n, arm ? p->fix_runs : p->base_runs);
		if (why && *why) {
			sbuf_addf(b, ": ");
			escape_md(b, why);
		}
	}
	sbuf_addf(b, "\n");
	return bad;
}

static void report_md_census_line(const struct compare *c, struct sbuf *b)
{
	char line[256];

	if (compare_census_varies_text(c, line, sizeof line)) {
		sbuf_addf(b, "- %s\n", line);
		return;
	}
	sbuf_addf(b, "- census: %d deterministic counter%s compared exactly, ", c->census_exact,
	          c->census_exact == 1 ? "" : "s");
	if (c->census_differ == 0)
		sbuf_addf(b, "all equal\n");
	else if (c->across)
		sbuf_addf(b, "%d differ between the designs (context, not judged)\n",
		          c->census_differ);
	else
		sbuf_addf(b, "**%d differ** (marked below)\n", c->census_differ);
}

/* Adds one row through the budget. */
static void report_md_budget_row(struct report_budget *bg, const struct compare_cell *cell)
{
	struct sbuf row;

	sbuf_init(&row);
	report_md_row(cell, &row);
	report_budget_add(bg, row.data);
	sbuf_release(&row);
}

/* Flagged cells of one kind (WORSE; better; not judged), through the budget. */
static void report_md_flagged(const struct compare *c, struct report_budget *bg, int kind)
{
	for (size_t i = 0; i < c->ncells; i++) {
		const struct compare_cell *cell = &c->cells[i];
		enum paired_verdict v = cell->stats.verdict;
		int k;
		if (!compare_cell_flagged(cell))
			continue;
		k = cell->inert ? 2 : v == PAIRED_WORSE ? 0 : v == PAIRED_BETTER ? 1 : 2;
		if (k == kind)
			report_md_budget_row(bg, cell);
	}
}

/*
 * The A/B as a pull request shows it, short: what moved first, the builds, the probes whose
 * identity is in doubt, each cell that is not ok once (never folded, never repeated), where
 * the instructions moved (summed over the probes: movers_md_sum), the notes; behind one fold
 * the identity of the other probes, the census line, the pauses and where every cell is (the
 * page and the JSON). An A/A is its headline and the fold. Below REPORT_MD_CAP bytes: rows that do not fit
 * are counted, and are in the artifact.
 */
char *report_md_ab(const struct compare *c)
{
	const struct report_data *d = c->data;
	struct sbuf b, part;
	struct report_budget bg;
	char *rounds = compare_rounds_text(c), counts[128], *across, *moved;
	int flagged = 0, problems = 0;
	size_t same = 0;

	sbuf_init(&b);
	sbuf_init(&part);
	report_budget_init(&bg, &b);
	moved = compare_headline_moved(c);
	/* Two stored results (compare) are no one session: each side says where it came from. */
	sbuf_addf(&b, "### gcratchet %s: ", d->origin ? "compare" : "ab");
	escape_md(&b, moved);
	free(moved);
	report_text_counts(c, counts, sizeof counts);
	sbuf_addf(&b, "\n\n**%s**\n\n**BASE** ", counts);
	report_md_build(&d->builds[c->base], &b);
	sbuf_addf(&b, " vs **FIX** ");
	report_md_build(&d->builds[c->fix], &b);
	if (d->origin) {
		sbuf_addf(&b, "  \n");
		for (const char *l = d->origin; *l;) {
			size_t n = strcspn(l, "\n");
			char *line = xasprintf("%.*s", (int)n, l);
			escape_md(&b, line);
			sbuf_addf(&b, "  \n");
			free(line);
			l += n + (l[n] == '\n');
		}
		sbuf_addf(&b, "rounds paired: %s (round k of one with round k of the other)\n\n",
		          rounds);
	} else {
		sbuf_addf(&b, "  \nsession %lld on ", (long long)d->session.id);
		escape_md(&b, d->session.hostname ? d->session.hostname : "?");
		sbuf_addf(&b, ", size ");
		escape_md(&b, d->session.size);
		sbuf_addf(&b, ", rounds complete %s (interleaved ABBA), seed %lld\n\n", rounds,
		          (long long)d->session.seed);
	}
	if ((across = compare_across_text(c))) {
		sbuf_addf(&b, "Judged ");
		escape_md(&b, across);
		sbuf_addf(&b, ".\n\n");
		free(across);
	}

	/* Identity comes first: a wrong result outweighs any cost. Only the probes in doubt. */
	for (size_t i = 0; i < c->nprobes; i++) {
		sbuf_release(&part);
		sbuf_init(&part);
		if (report_md_identity_line(&c->probes[i], &part)) {
			if (!problems++)
				sbuf_addf(&b, "**Identity**\n\n");
			report_budget_add(&bg, part.data);
		}
	}
	if (!c->across && c->census_differ) {
		if (!problems++)
			sbuf_addf(&b, "**Identity**\n\n");
		report_md_census_line(c, &b);
	}
	if (problems)
		sbuf_addf(&b, "\n");

	for (size_t i = 0; i < c->ncells; i++)
		flagged += compare_cell_flagged(&c->cells[i]);
	if (flagged) {
		report_md_table_head(&b);
		for (int kind = 0; kind < 3; kind++)
			report_md_flagged(c, &bg, kind);
		report_budget_note(&bg);
	}
	if (c->nwhere) {
		const struct fnprof_diff **diffs = xcalloc(c->nwhere, sizeof *diffs);
		const char **probes = xcalloc(c->nwhere, sizeof *probes);
		for (size_t i = 0; i < c->nwhere; i++) {
			diffs[i] = &c->where[i].diff;
			probes[i] = c->where[i].probe;
		}
		sbuf_addf(&b,
		          "\n**Where the instructions moved** (cachegrind's Ir by function, FIX - "
		          "BASE, summed over %zu probe%s; each probe's: `gcratchet explain "
		          "--session %lld`)\n\n",
		          c->nwhere, c->nwhere == 1 ? "" : "s", (long long)d->session.id);
		movers_md_sum(&b, diffs, probes, c->nwhere, MOVERS_MD_MAX);
		free(probes);
		free(diffs);
	}
	sbuf_release(&part);
	sbuf_init(&part);
	sbuf_addf(&part, "\n");
	report_text_warnings(c, &part, "- ", escape_md);
	report_budget_add(&bg, part.data);

	/* The one fold: the probes not in doubt, the census, and where everything else is. */
	sbuf_addf(&b, "\n<details><summary>%zu more cell%s (%d info, %d same", c->ncells - flagged,
	          c->ncells - flagged == 1 ? "" : "s", c->info, c->same);
	if (c->across)
		sbuf_addf(&b, ", %d context", c->context);
	sbuf_addf(&b, "), each probe's identity and the pauses</summary>\n\n");
	for (size_t i = 0; i < c->nprobes; i++) {
		const struct compare_probe *p = &c->probes[i];
		if (compare_probe_doubtful(p))
			continue;
		if (p->sum == COMPARE_SUM_SAME && !p->base_inert && !p->fix_inert && !p->failure) {
			same++;
			continue;
		}
		sbuf_release(&part);
		sbuf_init(&part);
		report_md_identity_line(p, &part);
		report_budget_add(&bg, part.data);
	}
	if (same)
		sbuf_addf(&b, "- %zu probe%s printed the same checksum in both arms\n", same,
		          same == 1 ? "" : "s");
	sbuf_release(&part);
	sbuf_init(&part);
	report_md_census_line(c, &part);
	report_budget_add(&bg, part.data);
	sbuf_release(&part);
	sbuf_init(&part);
	report_md_pauses(c, &part);
	if (part.len)
		report_budget_add(&bg, part.data);
	report_budget_note(&bg);
	sbuf_addf(&b,
	          "\nEvery cell and the samples: ab's `--html FILE` and `--json FILE`, "
	          "or later `gcratchet report --session %lld --html FILE`.\n\n</details>\n",
	          (long long)d->session.id);
	sbuf_release(&part);
	free(rounds);
	return b.data;
}

/*
 * A one-build session (no verdict to lead with): what ran and how each probe's runs came out,
 * one line per probe, then each probe's figures and the pauses in one fold; below
 * REPORT_MD_CAP bytes like every report a pull request may show.
 */
char *report_md_session(const struct report_data *d)
{
	const size_t idx[1] = {0};
	const char *const names[1] = {d->builds[0].label};
	struct report_summary *sum = report_summary_load(d);
	struct report_budget bg;
	struct sbuf b, part;
	size_t failed = 0;

	sbuf_init(&b);
	sbuf_init(&part);
	report_budget_init(&bg, &b);
	for (size_t p = 0; p < sum->nprobes; p++)
		failed += sum->probes[p].ok < sum->probes[p].runs;
	sbuf_addf(&b, "### gcratchet session %lld: ", (long long)d->session.id);
	report_md_build(&d->builds[0], &b);
	sbuf_addf(&b, ": %zu probe%s, %s\n\non ", sum->nprobes, sum->nprobes == 1 ? "" : "s",
	          failed ? "some runs failed" : "every run ok");
	escape_md(&b, d->session.hostname ? d->session.hostname : "?");
	sbuf_addf(&b, ", size ");
	escape_md(&b, d->session.size);
	sbuf_addf(&b, ", %lld rounds + %lld warm-up, seed %lld, status ",
	          (long long)d->session.rounds, (long long)d->session.warmup,
	          (long long)d->session.seed);
	escape_md(&b, d->session.status);
	sbuf_addf(&b, "; medians over the measured runs that succeeded\n\n"
	              "| probe | checksum | runs ok |\n|---|---|--:|\n");
	for (size_t p = 0; p < sum->nprobes; p++) {
		const struct report_summary_probe *sp = &sum->probes[p];
		sbuf_release(&part);
		sbuf_init(&part);
		sbuf_addf(&part, "| ");
		escape_md(&part, sp->probe);
		sbuf_addf(&part, " | `%s` | %s%zu of %zu%s |\n", sp->checksum ? sp->checksum : "-",
		          sp->ok < sp->runs ? "**" : "", sp->ok, sp->runs,
		          sp->ok < sp->runs ? "**" : "");
		report_budget_add(&bg, part.data);
	}
	report_budget_note(&bg);
	sbuf_addf(&b, "\n<details><summary>Each probe's figures (median, min, max) and the "
	              "pauses</summary>\n");
	for (size_t p = 0; p < sum->nprobes; p++) {
		const struct report_summary_probe *sp = &sum->probes[p];

		sbuf_release(&part);
		sbuf_init(&part);
		sbuf_addf(&part, "\n");
		escape_md(&part, sp->probe);
		sbuf_addf(&part, ": checksum `%s`, %zu runs ok of %zu\n\n",
		          sp->checksum ? sp->checksum : "-", sp->ok, sp->runs);
		if (sp->ncells)
			sbuf_addf(
			    &part,
			    "| metric | median | min | max | runs |\n|---|--:|--:|--:|--:|\n");
		report_budget_add(&bg, part.data);
		for (size_t k = 0; k < sp->ncells; k++) {
			const struct report_summary_cell *c = &sp->cells[k];
			char med[48], lo[48], hi[48];

			metrics_format_value(c->metric, c->median, med, sizeof med);
			metrics_format_value(c->metric, c->min, lo, sizeof lo);
			metrics_format_value(c->metric, c->max, hi, sizeof hi);
			sbuf_release(&part);
			sbuf_init(&part);
			sbuf_addf(&part, "| ");
			escape_md(&part, c->metric);
			sbuf_addf(&part, " | %s | %s | %s | %zu |\n", med, lo, hi, c->n);
			report_budget_add(&bg, part.data);
		}
	}
	sbuf_release(&part);
	sbuf_init(&part);
	report_md_pause_tables(d, idx, names, 1, &part);
	if (part.len)
		report_budget_add(&bg, part.data);
	report_budget_note(&bg);
	sbuf_addf(&b, "\n</details>\n");
	sbuf_release(&part);
	report_summary_release(sum);
	return b.data;
}
