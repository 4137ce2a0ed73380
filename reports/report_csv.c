#include "report_csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "escape.h"
#include "metrics.h"
#include "report_json.h"

/* The shortest of %.15g and %.17g that reads back as v: every double survives the trip. */
static void report_csv_value(struct sbuf *b, double v)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof buf, "%.17g", v);
	sbuf_addf(b, "%s", buf);
}

static void report_csv_field(struct sbuf *b, const char *s)
{
	sbuf_add(b, ",", 1);
	escape_csv(b, s);
}

char *report_csv_samples(const struct report_data *d)
{
	const struct store_run **order = report_json_run_order(d);
	struct sbuf b;

	sbuf_init(&b);
	sbuf_addf(&b, "%s\n", REPORT_CSV_HEADER);
	for (size_t i = 0; i < d->nruns; i++) {
		const struct store_run *r = order[i];
		long ai = report_data_arm_index(d, r->arm);
		const struct store_build *arm = ai >= 0 ? &d->builds[ai] : NULL;

		for (size_t m = 0; m < r->metrics.n; m++) {
			const struct metric *s = &r->metrics.items[m];
			const struct metric_info *info = metrics_lookup(s->name);

			sbuf_addf(&b, "%lld,%lld,%d,%d,%s", (long long)d->session.id,
			          (long long)r->id, r->seq, r->round, r->warmup ? "true" : "false");
			report_csv_field(&b, run_kind_name(r->kind));
			report_csv_field(&b, run_status_name(r->status));
			if (r->arm >= 0)
				sbuf_addf(&b, ",%d", r->arm);
			else
				sbuf_add(&b, ",", 1);
			report_csv_field(&b, arm ? arm->label : NULL);
			report_csv_field(&b, arm ? arm->name : NULL);
			report_csv_field(&b, arm ? arm->collector : NULL);
			report_csv_field(&b, r->probe);
			report_csv_field(&b, r->size);
			report_csv_field(&b, s->name);
			report_csv_field(&b, info ? metrics_unit_name(info->unit) : NULL);
			sbuf_add(&b, ",", 1);
			/* The store keeps only finite values (metrics_value_check); none is empty. */
			if (isfinite(s->value))
				report_csv_value(&b, s->value);
			sbuf_add(&b, "\n", 1);
		}
	}
	free(order);
	return b.data;
}
