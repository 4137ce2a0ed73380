/*
 * 13_memory_return — a peak of small objects, dropped: does the memory come back?
 *
 * Stresses: what a collector does with memory after the live set shrinks: whether a full
 * collection frees a dropped peak, and whether the pages it held are returned to the system
 * or at least reused by what comes next, or whether the process's resident size stacks up.
 * Three phases, the iteration count being the set's size in MiB:
 *   1. build a set of small objects: a directory of chunks (CHUNK_SLOTS slots each), every
 *      slot the head of a list of LIST_LEN nodes (1 pointer + 120 bytes: next; id, check and
 *      fill words), NODES_PER_MIB nodes per MiB, with one short-lived temporary (1 pointer + 24
 *      bytes) per TEMP_EVERY nodes; then walk and check it;
 *   2. drop it and call gcr_collect(GCR_FULL), reading the census before and after;
 *   3. allocate as many bytes again as large buffers: one BUFFER_BYTES raw buffer (1 MiB) per
 *      MiB of the set, all kept live in one array, every page touched; then check them.
 * The probe reads RssAnon from /proc/self/status after each phase, and VmHWM at the end, and
 * reports them in the premise text: a collector that returns the dropped pages (or reuses them
 * for the buffers) peaks near one set's worth; one that keeps them and maps fresh memory for
 * the buffers peaks near two.
 *
 * Premise: "must drop a peak": a collector that collects must free, in the full collection of
 * phase 2, at least the set's requested bytes (freed_bytes grows by that much across it).
 *
 * Sizes (MiB of small objects; ~2.1 x that allocated in all): ci 16 (34 MB), default 128
 *   (273 MB), large 1 280 (2.7 GB; needs ~3 GB of memory where nothing is returned). Most of
 *   the time is page faults, so the sizes are smaller than the volume alone would allow.
 *
 * Checksum: the set walked list by list (ids and fill words), each temporary's value, then the
 * buffers' touched words. A wrong node, list length or buffer word aborts the probe.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#define CHUNK_SLOTS   128u
#define LIST_LEN      16u
#define NODES_PER_MIB 8192u
#define TEMP_EVERY    8u
#define BUFFER_BYTES  (1u << 20)
#define TOUCH_STRIDE  4096u
#define MAX_MIB       (1u << 20)

/* Node: slot 0 = next; raw = id, check, then fill words (15 words in all). */
#define NODE_PTRS  1u
#define NODE_BYTES 120u
#define NODE_WORDS (NODE_BYTES / 8u)
#define TEMP_PTRS  1u
#define TEMP_BYTES 24u

#define MEM_CHECK_MUL UINT64_C(0x9e6c63d0676a9a99)

/* What the premise check reads. */
static uint64_t mem_set_bytes;
static uint64_t mem_freed_by_full;
static int mem_freed_known;
static uint64_t mem_rss_set, mem_rss_dropped, mem_rss_buffers;
static int mem_rss_known;

/* RssAnon (or VmHWM) from /proc/self/status, in bytes; 0 if the kernel does not say. */
static uint64_t mem_status_bytes(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	uint64_t kb = 0;
	size_t n = 0;

	if (!f)
		return 0;
	while (field[n])
		n++;
	while (fgets(line, sizeof line, f)) {
		size_t i = 0;

		while (i < n && line[i] == field[i])
			i++;
		if (i == n && line[n] == ':') {
			if (sscanf(line + n + 1, " %" SCNu64, &kb) != 1)
				kb = 0;
			break;
		}
	}
	fclose(f);
	return kb * 1024;
}

static _Noreturn void mem_fail(const char *what, uint64_t where, uint64_t found, uint64_t expected)
{
	fprintf(stderr,
	        "13_memory_return: %s %" PRIu64 " is 0x%016" PRIx64 ", expected 0x%016" PRIx64 "\n",
	        what, where, found, expected);
	abort();
}

static uint64_t mem_word(uint64_t id, uint32_t k)
{
	return (id * NODE_WORDS + k) * MEM_CHECK_MUL >> 3;
}

static uint64_t mem_census_freed(int *known)
{
	struct gcr_census c = {0};

	gcr_census(&c);
	*known = (c.known >> GCR_C_FREED_BYTES) & 1;
	return c.value[GCR_C_FREED_BYTES];
}

/* Builds the set under *dir: nchunks chunks of lists, node ids in allocation order. */
static uint64_t mem_build(void **dir, void **chunk, void **node, void **temp, uint64_t nchunks,
                          uint64_t h)
{
	uint64_t id = 0;

	*dir = gcr_alloc((uint32_t)nchunks, 0);
	for (uint64_t c = 0; c < nchunks; c++) {
		*chunk = gcr_alloc(CHUNK_SLOTS, 0);
		gcr_write(*dir, (uint32_t)c, *chunk);
		for (uint32_t s = 0; s < CHUNK_SLOTS; s++) {
			for (uint32_t i = 0; i < LIST_LEN; i++, id++) {
				*node = gcr_alloc(NODE_PTRS, NODE_BYTES);
				probe_put_u64(*node, NODE_PTRS, 0, id);
				for (uint32_t k = 1; k < NODE_WORDS; k++)
					probe_put_u64(*node, NODE_PTRS, k * 8u, mem_word(id, k));
				gcr_write(*node, 0, gcr_read(*chunk, s));
				gcr_write(*chunk, s, *node);
				if (id % TEMP_EVERY == 0) {
					*temp = gcr_alloc(TEMP_PTRS, TEMP_BYTES);
					gcr_write(*temp, 0, *node);
					probe_put_u64(*temp, TEMP_PTRS, 0, id ^ c);
					h = probe_mix(h, probe_get_u64(*temp, TEMP_PTRS, 0));
				}
			}
		}
	}
	*chunk = *node = *temp = NULL;
	return h;
}

/* Walks the set: each list holds LIST_LEN nodes, newest first. No allocation. */
static uint64_t mem_check_set(void *dir, uint64_t nchunks, uint64_t h)
{
	uint64_t first = 0;

	for (uint64_t c = 0; c < nchunks; c++) {
		void *chunk = gcr_read(dir, (uint32_t)c);

		for (uint32_t s = 0; s < CHUNK_SLOTS; s++, first += LIST_LEN) {
			uint64_t id = first + LIST_LEN;
			void *n;

			for (n = gcr_read(chunk, s); n; n = gcr_read(n, 0)) {
				id--;
				if (probe_get_u64(n, NODE_PTRS, 0) != id)
					mem_fail("node id at", id, probe_get_u64(n, NODE_PTRS, 0),
					         id);
				for (uint32_t k = 1; k < NODE_WORDS; k++)
					if (probe_get_u64(n, NODE_PTRS, k * 8u) != mem_word(id, k))
						mem_fail("fill word of node", id,
						         probe_get_u64(n, NODE_PTRS, k * 8u),
						         mem_word(id, k));
				h = probe_mix(h, probe_get_u64(n, NODE_PTRS, 8));
			}
			if (id != first)
				mem_fail("list length of the list starting at", first, id - first,
				         0);
		}
	}
	return h;
}

/*
 * Phase 1: the set lives only in this function's roots, so that once it returns no frame of
 * the probe holds it, not even in a register a conservative collector would scan.
 */
static __attribute__((noinline)) uint64_t mem_peak(uint64_t nchunks, uint64_t h)
{
	void *dir = NULL, *chunk = NULL, *node = NULL, *temp = NULL;

	GCR_ROOTS(&dir, &chunk, &node, &temp);
	h = mem_build(&dir, &chunk, &node, &temp, nchunks, h);
	h = mem_check_set(dir, nchunks, h);
	mem_rss_set = mem_status_bytes("RssAnon");
	dir = NULL;
	GCR_POP();
	return h;
}

/* Phase 3: as many bytes again as 1 MiB buffers, all live at once, every page touched. */
static __attribute__((noinline)) uint64_t mem_buffers(uint64_t count, uint64_t h)
{
	void *buffers = NULL, *buf = NULL;

	GCR_ROOTS(&buffers, &buf);
	buffers = gcr_alloc((uint32_t)count, 0);
	for (uint64_t b = 0; b < count; b++) {
		buf = gcr_alloc(0, BUFFER_BYTES);
		for (uint32_t off = 0; off < BUFFER_BYTES; off += TOUCH_STRIDE)
			probe_put_u64(buf, 0, off, mem_word(b, off / TOUCH_STRIDE));
		gcr_write(buffers, (uint32_t)b, buf);
	}
	buf = NULL;
	mem_rss_buffers = mem_status_bytes("RssAnon");
	for (uint64_t b = 0; b < count; b++) {
		void *p = gcr_read(buffers, (uint32_t)b);

		for (uint32_t off = 0; off < BUFFER_BYTES; off += TOUCH_STRIDE) {
			uint64_t w = probe_get_u64(p, 0, off);

			if (w != mem_word(b, off / TOUCH_STRIDE))
				mem_fail("word of buffer", b, w, mem_word(b, off / TOUCH_STRIDE));
			h = probe_mix(h, w);
		}
	}
	buffers = NULL;
	GCR_POP();
	return h;
}

static uint64_t mem_run(uint64_t iterations)
{
	uint64_t nchunks, freed_before, freed_after;
	int known_before, known_after;
	uint64_t h = 13;

	if (iterations > MAX_MIB) {
		fprintf(stderr, "13_memory_return: %" PRIu64 " MiB is too many (at most %u)\n",
		        iterations, MAX_MIB);
		abort();
	}
	nchunks = iterations * NODES_PER_MIB / (CHUNK_SLOTS * LIST_LEN);
	mem_set_bytes = nchunks * CHUNK_SLOTS * LIST_LEN * (NODE_PTRS * 8u + NODE_BYTES) +
	                nchunks * CHUNK_SLOTS * 8u + nchunks * 8u;

	h = mem_peak(nchunks, h);
	/* Phase 2: the set is garbage now. */
	freed_before = mem_census_freed(&known_before);
	gcr_collect(GCR_FULL);
	freed_after = mem_census_freed(&known_after);
	mem_freed_known = known_before && known_after;
	mem_freed_by_full = freed_after - freed_before;
	mem_rss_dropped = mem_status_bytes("RssAnon");

	h = mem_buffers(iterations, h);
	mem_rss_known = mem_rss_set && mem_rss_buffers;
	return h;
}

static int mem_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	char rss[256] = "";

	(void)c;
	if (mem_rss_known)
		snprintf(rss, sizeof rss,
		         "; RssAnon %.1f MiB with the set, %.1f MiB after the drop and full "
		         "collection, %.1f MiB with the buffers; VmHWM %.1f MiB",
		         (double)mem_rss_set / 1048576.0, (double)mem_rss_dropped / 1048576.0,
		         (double)mem_rss_buffers / 1048576.0,
		         (double)mem_status_bytes("VmHWM") / 1048576.0);
	if (!(caps & GCR_CAP_COLLECTS)) {
		snprintf(why, why_size, "the collector does not collect%s", rss);
		return -1;
	}
	if (!mem_freed_known) {
		snprintf(why, why_size, "the census lacks freed_bytes%s", rss);
		return -1;
	}
	if (mem_freed_by_full < mem_set_bytes) {
		snprintf(why, why_size,
		         "the full collection after the drop freed %" PRIu64
		         " bytes, less than the set's %" PRIu64 "%s",
		         mem_freed_by_full, mem_set_bytes, rss);
		return 0;
	}
	snprintf(why, why_size,
	         "the full collection after the drop freed %" PRIu64 " bytes (the set: %" PRIu64
	         ")%s",
	         mem_freed_by_full, mem_set_bytes, rss);
	return 1;
}

static const struct probe_spec spec = {
    .name = "13_memory_return",
    .premise = "a peak of small objects is dropped: a full collection must free it before "
               "large buffers take its place",
    .iterations = {16, 128, 1280},
    .run = mem_run,
    .premise_met = mem_premise,
};

PROBE_MAIN(spec)
