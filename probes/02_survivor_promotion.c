/*
 * 02_survivor_promotion — objects of medium lifetime: a FIFO queue of records that each
 * survive SURVIVOR_WINDOW iterations (several nursery-fulls of allocation) before dying.
 *
 * Stresses: promotion. A generational collector sees each record survive minor collections
 * and must copy it out of the nursery (and later reclaim it from the old generation, where it
 * dies); a non-generational one traces a steady medium live set. Each iteration allocates a
 * record (2 pointers + 24 bytes: next, payload; sequence, value, check), its payload (32
 * bytes) and two short-lived temporaries (1 pointer + 24 bytes each), enqueues the record at
 * the tail (a store into the previous record, which may be old by now: a barrier store), and
 * once the queue holds SURVIVOR_WINDOW records dequeues the oldest and verifies it.
 * 136 bytes of payload per iteration (~170 with an 8-byte header per object), so a record
 * lives through ~9-11 MB of allocation (SURVIVOR_WINDOW iterations: 2-3 nurseries of 4 MiB),
 * and the live queue is ~4.7 MB of payload.
 *
 * Premise: a generational collector must promote (promoted_objects > 0); one that collects but
 * is not generational must at least collect during the run (minor + major > 1); otherwise n/a.
 *
 * Sizes (iterations): ci 300 000 (41 MB), default 6 000 000 (816 MB),
 *   large 60 000 000 (8.2 GB). The window is fixed so that a size only scales the run length;
 *   define SURVIVOR_WINDOW at build time for a short run under GCR_ZEAL.
 *
 * Checksum: every dequeued record's sequence, value and payload words, in queue order, then
 * the records still queued at the end, head to tail. A record that comes back with the wrong
 * contents aborts the probe with a message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#ifndef SURVIVOR_WINDOW
#define SURVIVOR_WINDOW 65536u
#endif

/* Record: slot 0 = next (towards the tail), 1 = payload; raw = sequence, value, check. */
#define REC_PTRS      2u
#define REC_BYTES     24u
#define PAYLOAD_WORDS 4u
#define PAYLOAD_BYTES (PAYLOAD_WORDS * 8u)
/* Temporary: slot 0 = the record it describes; raw = three words of scratch. */
#define TEMP_PTRS     1u
#define TEMP_BYTES    24u

#define SURVIVOR_CHECK_MUL UINT64_C(0x9e3779b97f4a7c15)

static uint64_t survivor_payload_word(uint64_t value, uint64_t seq, uint32_t k)
{
	return value * (k + 3) + seq * (UINT64_C(0x100000001b3) + k);
}

/* Checks a dequeued or drained record and folds it into h; aborts if it was corrupted. */
static uint64_t survivor_take(uint64_t h, void *rec, uint64_t expect_seq)
{
	uint64_t seq = probe_get_u64(rec, REC_PTRS, 0);
	uint64_t value = probe_get_u64(rec, REC_PTRS, 8);
	uint64_t check = probe_get_u64(rec, REC_PTRS, 16);
	void *payload = gcr_read(rec, 1);

	if (seq != expect_seq || check != (value ^ (seq * SURVIVOR_CHECK_MUL)) || !payload) {
		fprintf(stderr,
		        "02_survivor_promotion: record %" PRIu64 " corrupted: sequence %" PRIu64
		        ", check %s, payload %s\n",
		        expect_seq, seq,
		        check == (value ^ (seq * SURVIVOR_CHECK_MUL)) ? "ok" : "wrong",
		        payload ? "present" : "missing");
		abort();
	}
	h = probe_mix(h, seq);
	h = probe_mix(h, value);
	for (uint32_t k = 0; k < PAYLOAD_WORDS; k++) {
		uint64_t w = probe_get_u64(payload, 0, k * 8u);

		if (w != survivor_payload_word(value, seq, k)) {
			fprintf(stderr,
			        "02_survivor_promotion: record %" PRIu64 " payload word %" PRIu32
			        " is 0x%016" PRIx64 ", expected 0x%016" PRIx64 "\n",
			        seq, k, w, survivor_payload_word(value, seq, k));
			abort();
		}
		h = probe_mix(h, w);
	}
	return h;
}

static uint64_t survivor_run(uint64_t iterations)
{
	void *head = NULL, *tail = NULL, *rec = NULL, *payload = NULL, *temp = NULL;
	uint64_t rng = UINT64_C(0x2545f4914f6cdd1d);
	uint64_t h = 2, queued = 0, next_out = 0;

	GCR_ROOTS(&head, &tail, &rec, &payload, &temp);
	for (uint64_t seq = 0; seq < iterations; seq++) {
		uint64_t value = probe_rand(&rng);

		rec = gcr_alloc(REC_PTRS, REC_BYTES);
		probe_put_u64(rec, REC_PTRS, 0, seq);
		probe_put_u64(rec, REC_PTRS, 8, value);
		probe_put_u64(rec, REC_PTRS, 16, value ^ (seq * SURVIVOR_CHECK_MUL));
		payload = gcr_alloc(0, PAYLOAD_BYTES);
		for (uint32_t k = 0; k < PAYLOAD_WORDS; k++)
			probe_put_u64(payload, 0, k * 8u, survivor_payload_word(value, seq, k));
		gcr_write(rec, 1, payload);

		/* Short-lived work on the side: a message about the record, and its reply. */
		temp = gcr_alloc(TEMP_PTRS, TEMP_BYTES);
		gcr_write(temp, 0, rec);
		probe_put_u64(temp, TEMP_PTRS, 0, value >> 3);
		probe_put_u64(temp, TEMP_PTRS, 8, seq);
		probe_put_u64(temp, TEMP_PTRS, 16, queued);
		temp = gcr_alloc(TEMP_PTRS, TEMP_BYTES);
		gcr_write(temp, 0, gcr_read(rec, 1));
		probe_put_u64(temp, TEMP_PTRS, 0, value << 3);
		probe_put_u64(temp, TEMP_PTRS, 8, ~seq);
		probe_put_u64(temp, TEMP_PTRS, 16, queued);
		h = probe_mix(h, probe_get_u64(gcr_read(temp, 0), 0, 0));

		if (tail)
			gcr_write(tail, 0, rec);
		else
			head = rec;
		tail = rec;
		queued++;
		if (queued > SURVIVOR_WINDOW) {
			h = survivor_take(h, head, next_out++);
			head = gcr_read(head, 0);
			queued--;
		}
		rec = payload = temp = NULL;
	}
	/* Drain: nothing allocates from here on. */
	for (void *p = head; p; p = gcr_read(p, 0))
		h = survivor_take(h, p, next_out++);
	if (next_out != iterations) {
		fprintf(stderr,
		        "02_survivor_promotion: the queue held %" PRIu64
		        " records, expected %" PRIu64 "\n",
		        next_out, iterations);
		abort();
	}
	GCR_POP();
	return h;
}

static int survivor_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	const uint64_t counts =
	    (UINT64_C(1) << GCR_C_MINOR_COLLECTIONS) | (UINT64_C(1) << GCR_C_MAJOR_COLLECTIONS);
	uint64_t collections;

	if (caps & GCR_CAP_GENERATIONAL) {
		if (!(c->known & (UINT64_C(1) << GCR_C_PROMOTED_OBJECTS))) {
			snprintf(why, why_size,
			         "generational collector, but the census lacks promoted_objects");
			return -1;
		}
		if (c->value[GCR_C_PROMOTED_OBJECTS] == 0) {
			snprintf(why, why_size,
			         "generational collector promoted nothing (promoted_objects 0)");
			return 0;
		}
		snprintf(why, why_size, "promoted %" PRIu64 " objects",
		         c->value[GCR_C_PROMOTED_OBJECTS]);
		return 1;
	}
	if (!(caps & GCR_CAP_COLLECTS)) {
		snprintf(why, why_size, "the collector does not collect");
		return -1;
	}
	if ((c->known & counts) != counts) {
		snprintf(why, why_size, "the census lacks minor/major collection counts");
		return -1;
	}
	collections = c->value[GCR_C_MINOR_COLLECTIONS] + c->value[GCR_C_MAJOR_COLLECTIONS];
	if (collections <= 1) {
		snprintf(why, why_size,
		         "not generational, judged on collections instead of promotion: none "
		         "during the run (%" PRIu64 " in all, with the final full one)",
		         collections);
		return 0;
	}
	snprintf(why, why_size,
	         "not generational, judged on collections instead of promotion: %" PRIu64
	         " collections traced the queue",
	         collections);
	return 1;
}

static const struct probe_spec spec = {
    .name = "02_survivor_promotion",
    .premise = "queued records survive several nursery-fulls: a generational collector must "
               "promote them",
    .iterations = {300000, 6000000, 60000000},
    .run = survivor_run,
    .premise_met = survivor_premise,
};

PROBE_MAIN(spec)
