#include "heapgate.h"

#include <string.h>

/* The newest found answer for the build, probe and size on the host; NULL when none. */
static const struct store_minheap *heapgate_find(const struct store_minheap *m, size_t n,
                                                 int64_t host_id, int64_t build_id,
                                                 const char *probe, const char *size)
{
	const struct store_minheap *found = NULL;

	/* store_minheap_list is oldest first: the last match is the newest. */
	for (size_t i = 0; i < n; i++)
		if (m[i].host_id == host_id && m[i].build_id == build_id &&
		    strcmp(m[i].probe, probe) == 0 && strcmp(m[i].size, size) == 0)
			found = &m[i];
	return found && strcmp(found->outcome, "found") == 0 ? found : NULL;
}

int heapgate_annotate(struct store *st, const struct store_session *si,
                      const struct store_build *build, struct store_run *runs, size_t n,
                      struct heapgate_info *info, struct err *e)
{
	struct store_minheap *m = NULL;
	struct strlist seen = {0};
	size_t nm = 0;

	memset(info, 0, sizeof *info);
	if (store_minheap_list(st, &m, &nm, e) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct store_minheap *a;
		int first = !strlist_contains(&seen, runs[i].probe);

		if (first)
			strlist_push(&seen, runs[i].probe);
		a = heapgate_find(m, nm, si->host_id, build->id, runs[i].probe, runs[i].size);
		if (first) {
			info->missing += !a;
			info->probes += a != NULL;
			/* The confirmation moved up: repeats at the boundary disagreed. */
			if (a && a->min_heap_mb - a->lo_mb > a->step_mb) {
				info->unsteady++;
				if ((double)(a->min_heap_mb - a->lo_mb) > info->widest_mib) {
					info->widest_mib = (double)(a->min_heap_mb - a->lo_mb);
					info->widest_runs = a->runs;
				}
			}
		}
		if (!a || runs[i].warmup || runs[i].kind != RUN_KIND_TIMED ||
		    runs[i].status != RUN_STATUS_OK ||
		    metric_set_get(&runs[i].metrics, HEAPGATE_METRIC))
			continue;
		metric_set_add(&runs[i].metrics, HEAPGATE_METRIC, (double)a->min_heap_mb);
	}
	strlist_release(&seen);
	store_minheaps_release(m, nm);
	return 0;
}

int heapgate_widen(struct baseline_rule *rules, size_t n, const struct heapgate_info *info)
{
	if (!info->unsteady)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(rules[i].metric, HEAPGATE_METRIC) == 0) {
			double band = info->widest_mib > 1 ? info->widest_mib : 1;
			if (rules[i].band_abs < band)
				rules[i].band_abs = band;
			return 1;
		}
	return 0;
}
