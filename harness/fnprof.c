#include "fnprof.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* The sum of kept doubles may exceed the run's total by rounding, never by more. */
#define FNPROF_SLACK 1e-9

void fnprof_init(struct fnprof *p)
{
	memset(p, 0, sizeof *p);
}

void fnprof_release(struct fnprof *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->fns[i].name);
		free(p->fns[i].file);
	}
	free(p->fns);
	memset(p, 0, sizeof *p);
}

void fnprof_add(struct fnprof *p, const char *name, const char *file, double ir)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->fns = xrealloc(p->fns, p->cap * sizeof *p->fns);
	}
	p->fns[p->n].name = xstrdup(name);
	p->fns[p->n].file = file ? xstrdup(file) : NULL;
	p->fns[p->n].ir = ir;
	p->n++;
}

static int fnprof_by_name(const void *a, const void *b)
{
	const struct fnprof_fn *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	/* Within a name, the largest part first: its file is the function's. */
	if (c != 0)
		return c;
	return x->ir < y->ir ? 1 : x->ir > y->ir ? -1 : 0;
}

static int fnprof_by_ir(const void *a, const void *b)
{
	const struct fnprof_fn *x = a, *y = b;

	if (x->ir != y->ir)
		return x->ir < y->ir ? 1 : -1;
	return strcmp(x->name, y->name);
}

void fnprof_merge(struct fnprof *p)
{
	size_t k = 0;

	if (p->n > 1)
		qsort(p->fns, p->n, sizeof *p->fns, fnprof_by_name);
	for (size_t i = 0; i < p->n; i++) {
		if (k > 0 && strcmp(p->fns[k - 1].name, p->fns[i].name) == 0) {
			p->fns[k - 1].ir += p->fns[i].ir;
			free(p->fns[i].name);
			free(p->fns[i].file);
			continue;
		}
		p->fns[k++] = p->fns[i];
	}
	p->n = k;
	if (p->n > 1)
		qsort(p->fns, p->n, sizeof *p->fns, fnprof_by_ir);
}

void fnprof_truncate(struct fnprof *p, size_t top)
{
	for (size_t i = top; i < p->n; i++) {
		free(p->fns[i].name);
		free(p->fns[i].file);
	}
	if (p->n > top)
		p->n = top;
}

void fnprof_keep(struct fnprof *p)
{
	size_t k = 0;

	fnprof_merge(p);
	while (k < p->n && (k < FNPROF_KEEP_MIN || p->fns[k].ir >= FNPROF_KEEP_SHARE * p->total_ir))
		k++;
	fnprof_truncate(p, k);
}

double fnprof_kept(const struct fnprof *p)
{
	double sum = 0;

	for (size_t i = 0; i < p->n; i++)
		sum += p->fns[i].ir;
	return sum;
}

int fnprof_cut(const struct fnprof *p)
{
	return fnprof_kept(p) < p->total_ir * (1 - FNPROF_SLACK);
}

double fnprof_floor(const struct fnprof *p)
{
	return fnprof_cut(p) && p->n ? p->fns[p->n - 1].ir : 0;
}

/* "a/./b/../c" -> "a/c"; a leading "/" and leading ".." of a relative path are kept. */
static char *fnprof_normalise(const char *path)
{
	char *copy = xstrdup(path), *save = NULL, *part;
	char **parts = xcalloc(strlen(path) + 1, sizeof *parts);
	size_t n = 0;
	int abs = path[0] == '/';
	struct sbuf b;

	for (part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		if (strcmp(part, ".") == 0)
			continue;
		if (strcmp(part, "..") == 0 && n > 0 && strcmp(parts[n - 1], "..") != 0) {
			n--;
			continue;
		}
		if (strcmp(part, "..") == 0 && abs)
			continue;
		parts[n++] = part;
	}
	sbuf_init(&b);
	sbuf_addf(&b, "%s", abs ? "/" : "");
	for (size_t i = 0; i < n; i++)
		sbuf_addf(&b, "%s%s", i ? "/" : "", parts[i]);
	if (!b.data || !*b.data)
		sbuf_addf(&b, ".");
	free(parts);
	free(copy);
	return b.data;
}

void fnprof_files_relative(struct fnprof *p, const char *root)
{
	size_t rlen = root ? strlen(root) : 0;

	for (size_t i = 0; i < p->n; i++) {
		char *norm;
		if (!p->fns[i].file || strcmp(p->fns[i].file, "???") == 0)
			continue;
		norm = fnprof_normalise(p->fns[i].file);
		free(p->fns[i].file);
		if (rlen && strncmp(norm, root, rlen) == 0 && norm[rlen] == '/') {
			p->fns[i].file = xstrdup(norm + rlen + 1);
			free(norm);
		} else {
			p->fns[i].file = norm;
		}
	}
}

const struct fnprof_fn *fnprof_find(const struct fnprof *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->fns[i].name, name) == 0)
			return &p->fns[i];
	return NULL;
}

static int fnprof_name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * A name listed twice, at any two places: in order by Ir only neighbours of equal Ir are
 * next to each other, and every reader (fnprof_find) takes the first and loses the other.
 */
static const char *fnprof_name_twice(const struct fnprof *p)
{
	const char **names = xcalloc(p->n ? p->n : 1, sizeof *names);
	const char *twice = NULL;

	for (size_t i = 0; i < p->n; i++)
		names[i] = p->fns[i].name;
	if (p->n > 1)
		qsort(names, p->n, sizeof *names, fnprof_name_cmp);
	for (size_t i = 1; i < p->n && !twice; i++)
		if (strcmp(names[i - 1], names[i]) == 0)
			twice = names[i];
	free(names);
	return twice;
}

int fnprof_check(const struct fnprof *p, struct err *e)
{
	const char *twice;

	if (!isfinite(p->total_ir) || p->total_ir < 0)
		return err_setc(e, ERR_INVALID, "the run's Ir %g is not a count", p->total_ir);
	for (size_t i = 0; i < p->n; i++) {
		const struct fnprof_fn *f = &p->fns[i];
		if (!f->name || !*f->name)
			return err_setc(e, ERR_INVALID, "function %zu has no name", i + 1);
		if (!isfinite(f->ir) || f->ir < 0)
			return err_setc(e, ERR_INVALID, "function %s: Ir %g is not a count",
			                f->name, f->ir);
		if (i > 0 && fnprof_by_ir(&p->fns[i - 1], f) >= 0)
			return err_setc(e, ERR_INVALID,
			                "function %s: not in order (by Ir, largest first, then by "
			                "name, each once)",
			                f->name);
	}
	if ((twice = fnprof_name_twice(p)) != NULL)
		return err_setc(e, ERR_INVALID,
		                "function %s is listed twice (each function is one entry, its Ir "
		                "summed): one of them would be lost",
		                twice);
	if (fnprof_kept(p) > p->total_ir * (1 + FNPROF_SLACK))
		return err_setc(e, ERR_INVALID,
		                "the functions' Ir (%.0f) is more than the run's (%.0f)",
		                fnprof_kept(p), p->total_ir);
	return 0;
}

void fnprof_copy(const struct fnprof *from, struct fnprof *to)
{
	fnprof_init(to);
	for (size_t i = 0; i < from->n; i++)
		fnprof_add(to, from->fns[i].name, from->fns[i].file, from->fns[i].ir);
	to->total_ir = from->total_ir;
}

void fnprof_median(const struct fnprof *const *runs, size_t n, struct fnprof *out)
{
	struct fnprof all;
	double *vals = xcalloc(n ? n : 1, sizeof *vals);

	fnprof_init(out);
	fnprof_init(&all);
	/* Every name any run kept, each once, with the file of its largest part. */
	for (size_t r = 0; r < n; r++)
		for (size_t i = 0; i < runs[r]->n; i++)
			fnprof_add(&all, runs[r]->fns[i].name, runs[r]->fns[i].file,
			           runs[r]->fns[i].ir);
	fnprof_merge(&all);
	for (size_t i = 0; i < all.n; i++) {
		for (size_t r = 0; r < n; r++) {
			const struct fnprof_fn *f = fnprof_find(runs[r], all.fns[i].name);
			vals[r] = f ? f->ir : 0;
		}
		fnprof_add(out, all.fns[i].name, all.fns[i].file, stats_median(vals, n));
	}
	for (size_t r = 0; r < n; r++)
		vals[r] = runs[r]->total_ir;
	out->total_ir = n ? stats_median(vals, n) : 0;
	fnprof_merge(out);
	/* A median of zeros (kept by fewer than half the runs) says nothing: not a function. */
	while (out->n && out->fns[out->n - 1].ir == 0)
		fnprof_truncate(out, out->n - 1);
	fnprof_release(&all);
	free(vals);
}

static int fnprof_mover_cmp(const void *a, const void *b)
{
	const struct fnprof_mover *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

void fnprof_diff(const struct fnprof *base, const struct fnprof *fix, struct fnprof_diff *out)
{
	size_t cap = base->n + fix->n;

	memset(out, 0, sizeof *out);
	out->base_total = base->total_ir;
	out->fix_total = fix->total_ir;
	out->delta = fix->total_ir - base->total_ir;
	out->movers = xcalloc(cap ? cap : 1, sizeof *out->movers);
	for (int side = 0; side < 2; side++) {
		const struct fnprof *here = side ? fix : base, *there = side ? base : fix;
		for (size_t i = 0; i < here->n; i++) {
			const struct fnprof_fn *f = &here->fns[i], *g = fnprof_find(there, f->name);
			struct fnprof_mover *m;
			/* A function both kept is counted once, from BASE's side. */
			if (side == 1 && g)
				continue;
			/*
			 * Absent from a cut list, at or below its floor: it may have run as often
			 * there and not been kept. No move can be told, so none is said.
			 */
			if (!g && fnprof_cut(there) && f->ir <= fnprof_floor(there))
				continue;
			m = &out->movers[out->n];
			m->name = f->name;
			m->file = f->file ? f->file : g ? g->file : NULL;
			m->base_ir = side ? (g ? g->ir : 0) : f->ir;
			m->fix_ir = side ? f->ir : (g ? g->ir : 0);
			m->delta = m->fix_ir - m->base_ir;
			m->side = g ? FNPROF_BOTH : side ? FNPROF_FIX_ONLY : FNPROF_BASE_ONLY;
			if (!g && fnprof_cut(there)) {
				m->under = 1;
				m->under_ir = fnprof_floor(there);
			}
			m->share = out->delta != 0 ? m->delta / out->delta : NAN;
			if (m->delta != 0)
				out->n++;
		}
	}
	if (out->n > 1)
		qsort(out->movers, out->n, sizeof *out->movers, fnprof_mover_cmp);
}

void fnprof_diff_release(struct fnprof_diff *d)
{
	free(d->movers);
	memset(d, 0, sizeof *d);
}

void fnprof_mover_note(const struct fnprof_mover *m, const char *base_label, const char *fix_label,
                       char *buf, size_t size)
{
	if (m->side == FNPROF_BOTH)
		snprintf(buf, size, "%s", "");
	else
		snprintf(buf, size, "only in %s",
		         m->side == FNPROF_FIX_ONLY ? fix_label : base_label);
}
