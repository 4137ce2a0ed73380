/*
 * 15_request_latency — a request loop over a long-lived session cache, timing every request:
 * what a service's users see of the collector.
 *
 * Stresses: pause times as the mutator feels them. A server holds SESSIONS sessions (each a
 * session object, 1 pointer + 24 bytes: id, hits, sum, and a ring of HISTORY recent entries);
 * each request picks a session, builds a small object graph (a parsed request of FIELDS
 * fields, 1 + FIELDS objects), reads the fields back, updates the session, keeps one request
 * in KEEP_EVERY as a history entry in the session's ring (the entry it replaces dies: a
 * middle-aged object that a generational collector promotes), and answers with a reply.
 * Everything else the request allocated is garbage when it returns. About 200 bytes and 6.25
 * objects per request; the sessions and their rings are ~4.7 MB live once the rings fill.
 *
 * Every request's service time is taken with CLOCK_MONOTONIC around it and handed to the
 * runtime (probe_latency_record), which reports p50, p99, p99.9 and max, simple (the service
 * time) and metered (arrivals on a uniform schedule over the loop's span, one server: a pause
 * delays the requests queued behind it, as DaCapo Chopin's metered latency does) in the
 * census's "latency" section. The times are only stored during the loop: nothing branches on
 * a clock value, so valgrind's Ir does not depend on them. The service-time array (8 bytes a
 * request, malloc'd) is part of the probe's resident memory.
 *
 * Premise: collections happened while requests were in flight: the probe reads the census
 * before and after the loop (the sessions are built before it), and a collector that collects
 * must have collected at least once between the two.
 *
 * Sizes (requests): ci 50 000 (12 MB allocated), default 500 000 (101 MB), large 2 000 000
 *   (398 MB).
 *
 * Checksum: every reply (a sum of the request's fields read back and the session's hit count),
 * then every session's id, hits, sum and history ring. A field or session that reads back
 * wrong aborts the probe.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#define SESSIONS    16384u
#define CHUNK_SLOTS 256u
#define HISTORY     8u
#define FIELDS      4u
#define FIELD_WORDS 4u
#define KEEP_EVERY  4u

/* Session: slot 0 = history ring; raw = id, hits, sum. Ring: HISTORY slots. */
#define SESSION_PTRS  1u
#define SESSION_BYTES 24u
/* Request: FIELDS slots (the fields); raw = session id, sequence. Field: raw words. */
#define REQ_BYTES     16u
#define FIELD_BYTES   (FIELD_WORDS * 8u)
/* History entry: raw = sequence, value, session id. Reply: raw = value, hits. */
#define ENTRY_BYTES   24u
#define REPLY_BYTES   16u

/* Collections before and after the loop, for the premise. */
static uint64_t req_collections_before, req_collections_after;
static int req_counts_known = 1;

static uint64_t req_collections(void)
{
	const uint64_t counts =
	    (UINT64_C(1) << GCR_C_MINOR_COLLECTIONS) | (UINT64_C(1) << GCR_C_MAJOR_COLLECTIONS);
	struct gcr_census c = {0};

	gcr_census(&c);
	if ((c.known & counts) != counts)
		req_counts_known = 0;
	return c.value[GCR_C_MINOR_COLLECTIONS] + c.value[GCR_C_MAJOR_COLLECTIONS];
}

static _Noreturn void req_fail(uint64_t seq, const char *what, uint64_t found, uint64_t expected)
{
	fprintf(stderr,
	        "15_request_latency: request %" PRIu64 ": %s is 0x%016" PRIx64
	        ", expected 0x%016" PRIx64 "\n",
	        seq, what, found, expected);
	abort();
}

static uint64_t req_field_word(uint64_t seq, uint32_t f, uint32_t k)
{
	return (seq * FIELDS + f) * UINT64_C(0x9e3779b97f4a7c15) + k;
}

static void *req_session(void *dir, uint64_t sid)
{
	return gcr_read(gcr_read(dir, (uint32_t)(sid / CHUNK_SLOTS)),
	                (uint32_t)(sid % CHUNK_SLOTS));
}

/* The sessions, before the loop: a directory of chunks, each session with an empty ring. */
static void req_build(void **dir, void **obj, void **ring)
{
	*dir = gcr_alloc(SESSIONS / CHUNK_SLOTS, 0);
	for (uint32_t c = 0; c < SESSIONS / CHUNK_SLOTS; c++) {
		*obj = gcr_alloc(CHUNK_SLOTS, 0);
		gcr_write(*dir, c, *obj);
	}
	for (uint64_t sid = 0; sid < SESSIONS; sid++) {
		*ring = gcr_alloc(HISTORY, 0);
		*obj = gcr_alloc(SESSION_PTRS, SESSION_BYTES);
		probe_put_u64(*obj, SESSION_PTRS, 0, sid);
		gcr_write(*obj, 0, *ring);
		gcr_write(gcr_read(*dir, (uint32_t)(sid / CHUNK_SLOTS)),
		          (uint32_t)(sid % CHUNK_SLOTS), *obj);
	}
	*obj = *ring = NULL;
}

/*
 * One request: parse (the request graph), read it back, update the session, maybe keep a
 * history entry, reply. Returns the reply's value. The roots are the caller's.
 */
static uint64_t req_serve(void **dir, void **req, void **tmp, uint64_t seq, uint64_t sid)
{
	uint64_t value = 0, hits, expect;
	void *session;

	*req = gcr_alloc(FIELDS, REQ_BYTES);
	probe_put_u64(*req, FIELDS, 0, sid);
	probe_put_u64(*req, FIELDS, 8, seq);
	for (uint32_t f = 0; f < FIELDS; f++) {
		*tmp = gcr_alloc(0, FIELD_BYTES);
		for (uint32_t k = 0; k < FIELD_WORDS; k++)
			probe_put_u64(*tmp, 0, k * 8u, req_field_word(seq, f, k));
		gcr_write(*req, f, *tmp);
	}
	for (uint32_t f = 0; f < FIELDS; f++) {
		void *field = gcr_read(*req, f);

		for (uint32_t k = 0; k < FIELD_WORDS; k++) {
			uint64_t w = probe_get_u64(field, 0, k * 8u);

			if (w != req_field_word(seq, f, k))
				req_fail(seq, "a field word", w, req_field_word(seq, f, k));
			value += w;
		}
	}

	session = req_session(*dir, sid);
	if (probe_get_u64(session, SESSION_PTRS, 0) != sid)
		req_fail(seq, "the session id", probe_get_u64(session, SESSION_PTRS, 0), sid);
	hits = probe_get_u64(session, SESSION_PTRS, 8) + 1;
	probe_put_u64(session, SESSION_PTRS, 8, hits);
	probe_put_u64(session, SESSION_PTRS, 16, probe_get_u64(session, SESSION_PTRS, 16) ^ value);
	if (seq % KEEP_EVERY == 0) {
		*tmp = gcr_alloc(0, ENTRY_BYTES);
		probe_put_u64(*tmp, 0, 0, seq);
		probe_put_u64(*tmp, 0, 8, value);
		probe_put_u64(*tmp, 0, 16, sid);
		/* The allocation may have moved the session: read it again. */
		session = req_session(*dir, sid);
		gcr_write(gcr_read(session, 0), (uint32_t)(hits % HISTORY), *tmp);
	}

	*tmp = gcr_alloc(0, REPLY_BYTES);
	probe_put_u64(*tmp, 0, 0, value);
	probe_put_u64(*tmp, 0, 8, hits);
	expect = value;
	value = probe_get_u64(*tmp, 0, 0) ^ (probe_get_u64(*tmp, 0, 8) << 32);
	if (probe_get_u64(*tmp, 0, 0) != expect)
		req_fail(seq, "the reply", probe_get_u64(*tmp, 0, 0), expect);
	*req = *tmp = NULL;
	return value;
}

static uint64_t req_run(uint64_t iterations)
{
	void *dir = NULL, *obj = NULL, *ring = NULL, *req = NULL, *tmp = NULL;
	uint64_t rng = UINT64_C(0x6a09e667f3bcc909);
	uint64_t *service, first, last = 0, h = 15;

	if (iterations > SIZE_MAX / sizeof *service) {
		fprintf(stderr, "15_request_latency: %" PRIu64 " requests is too many\n",
		        iterations);
		abort();
	}
	service = malloc((size_t)iterations * sizeof *service);
	if (!service) {
		fprintf(stderr, "15_request_latency: out of memory for %" PRIu64 " timings\n",
		        iterations);
		abort();
	}
	GCR_ROOTS(&dir, &obj, &ring, &req, &tmp);
	req_build(&dir, &obj, &ring);

	req_collections_before = req_collections();
	first = probe_now_ns();
	for (uint64_t seq = 0; seq < iterations; seq++) {
		uint64_t sid = probe_rand(&rng) % SESSIONS;
		uint64_t t0 = probe_now_ns();

		h = probe_mix(h, req_serve(&dir, &req, &tmp, seq, sid));
		last = probe_now_ns();
		service[seq] = last - t0;
	}
	req_collections_after = req_collections();
	probe_latency_record(service, (size_t)iterations, last - first);

	for (uint64_t sid = 0; sid < SESSIONS; sid++) {
		void *session = req_session(dir, sid);
		void *hist = gcr_read(session, 0);

		for (uint32_t k = 0; k < 3; k++)
			h = probe_mix(h, probe_get_u64(session, SESSION_PTRS, k * 8u));
		for (uint32_t k = 0; k < HISTORY; k++) {
			void *e = gcr_read(hist, k);

			h = probe_mix(h, e ? probe_get_u64(e, 0, 0) ^ probe_get_u64(e, 0, 8) : 0);
			if (e && probe_get_u64(e, 0, 16) != sid)
				req_fail(probe_get_u64(e, 0, 0), "a history entry's session",
				         probe_get_u64(e, 0, 16), sid);
		}
	}
	GCR_POP();
	return h;
}

static int req_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	uint64_t during = req_collections_after - req_collections_before;

	(void)c;
	if (!(caps & GCR_CAP_COLLECTS)) {
		snprintf(why, why_size, "the collector does not collect");
		return -1;
	}
	if (!req_counts_known) {
		snprintf(why, why_size, "the census lacks minor/major collection counts");
		return -1;
	}
	if (during == 0) {
		snprintf(why, why_size, "no collection while requests were in flight");
		return 0;
	}
	snprintf(why, why_size, "%" PRIu64 " collections while requests were in flight", during);
	return 1;
}

static const struct probe_spec spec = {
    .name = "15_request_latency",
    .premise = "a request loop over a session cache: a collector that collects must collect "
               "while requests are in flight",
    .iterations = {50000, 500000, 2000000},
    .run = req_run,
    .premise_met = req_premise,
};

PROBE_MAIN(spec)
