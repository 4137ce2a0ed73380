/*
 * marksweep — a precise, non-moving mark-sweep collector.
 *
 * Heap layout:
 * - Small objects (header + payload up to MS_MAX_CELL_BYTES) live in cells of one size per
 *   page. Pages (MS_PAGE_BYTES) are carved from chunks (MS_CHUNK_BYTES) mapped with mmap;
 *   a page holds no metadata, its descriptor lives in the chunk's malloc'd record. Size classes
 *   are every multiple of MS_GRANULE, so class c holds cells of c * MS_GRANULE bytes.
 * - Larger objects get their own mapping (struct ms_large in front of the header), kept on one
 *   list. The sweep that finds one dead moves its mapping to a cache that later large requests
 *   of a close size reuse, and unmaps what the cache cannot hold (half of the bytes the policy
 *   lets the next cycle allocate): munmap and fresh page faults are dear, and a program that
 *   frees large objects usually allocates more.
 * - Every object has an 8-byte header just before slot 0: nptrs, and an info word holding the
 *   mark bit, the live bit, the large bit and (for small objects) nbytes. A free cell has
 *   info 0 and its free-list link where slot 0 would be.
 *
 * Collection: mark from the shadow stack only (precise), with an explicit, growable mark stack,
 * then sweep every page (eager), rebuilding the per-class free lists in heap order; pages
 * with no live cell return to a pool any class can take, and wholly empty chunks beyond what
 * the growth policy needs are unmapped.
 *
 * Growth policy (see docs/collectors.md): the heap may grow to
 *   limit = max(budget, live * MS_GROWTH)
 * heap bytes (cells, large mappings) before the next collection, where budget comes from
 * GCR_HEAP_MB and live is what the last collection left. An allocation that would take the
 * bytes allocated since the last collection past limit - live collects first; otherwise an
 * empty free list takes a pooled page or maps a new chunk. The policy reads only byte counts,
 * never addresses or clocks, so every census counter except the pause times is the same on
 * every run of the same program.
 *
 * Hard limit (GCR_HEAP_MAX_MB, heaplimit.h): what counts is the mapped heap, chunks plus large
 * mappings (cached ones included), the figure heap_committed_peak_bytes reports. Before a
 * request maps anything that would pass the limit, the large-object cache is dropped, then a
 * collection runs (unless the request has just had one); if the mapping still does not fit,
 * the heap is exhausted. The policy's limit is capped at the hard one, so collections come
 * before the heap reaches it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "gcr.h"
#include "heaplimit.h"
#include "knob.h"
#include "pauselog.h"
#include "plant.h"

/*
 * Under AddressSanitizer the payload of every free cell and cached large mapping is poisoned,
 * so a program that keeps a pointer across an allocation without rooting it (the bug GCR_ZEAL
 * hunts) faults at the first stale access instead of reading recycled data.
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define MS_POISON(p, n)   __asan_poison_memory_region((p), (n))
#define MS_UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define MS_POISON(p, n)   ((void)(p), (void)(n))
#define MS_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define MS_GRANULE         16u
#define MS_HEADER_BYTES    8u
#define MS_PAGE_BYTES      ((size_t)32 << 10)
#define MS_CHUNK_BYTES     ((size_t)1 << 20)
#define MS_PAGES_PER_CHUNK (MS_CHUNK_BYTES / MS_PAGE_BYTES)
#define MS_MAX_CELL_BYTES  2048u
#define MS_CLASSES         (MS_MAX_CELL_BYTES / MS_GRANULE + 1) /* class 0 is unused */
#define MS_SMALL_MAX_BYTES (MS_MAX_CELL_BYTES - MS_HEADER_BYTES)
#define MS_OS_PAGE_BYTES   ((size_t)4096)
/* The heap may grow to this multiple of the live bytes before the next collection. */
#define MS_GROWTH          2u
#define MS_DEFAULT_HEAP_MB 4u
#define MS_MAX_HEAP_MB     (UINT64_C(1) << 20)
#define MS_MARK_STACK_MIN  4096u

/* Bits of ms_header.info; the rest holds nbytes for a small object. */
#define MS_MARK         1u
#define MS_LIVE         2u
#define MS_LARGE        4u
#define MS_NBYTES_SHIFT 3

struct ms_header {
	uint32_t nptrs;
	uint32_t info;
};

/* A cell on a free list: info is 0 and the link sits where slot 0 would. */
struct ms_cell {
	struct ms_header hdr;
	struct ms_cell *next;
};

struct ms_page {
	unsigned char *start;
	struct ms_page *next_free; /* link in the page pool */
	uint32_t cell_bytes;       /* 0: the page is in the pool */
};

struct ms_chunk {
	struct ms_chunk *next; /* chunks in the order they were mapped */
	unsigned char *base;
	struct ms_page pages[MS_PAGES_PER_CHUNK];
};

/* A large object's mapping starts with this record; the object's slot 0 follows hdr. */
struct ms_large {
	struct ms_large *next;
	size_t map_bytes;
	uint32_t nbytes;
	uint32_t unused;
	struct ms_header hdr;
};
_Static_assert(sizeof(struct ms_large) % MS_GRANULE == 0, "large payload must stay aligned");
_Static_assert(offsetof(struct ms_large, hdr) + sizeof(struct ms_header) == sizeof(struct ms_large),
               "hdr must sit just before the payload");

/* Knobs. */
static uint64_t ms_budget_bytes;
static uint64_t ms_zeal;
/* GCR_HEAP_MAX_MB in bytes; 0: no limit. */
static uint64_t ms_max_bytes;

/* Allocation state. ms_room is what the fast path may still take before the slow path looks. */
static struct ms_cell *ms_free[MS_CLASSES];
static int64_t ms_room;
/* In zeal mode every allocation takes the slow path (ms_room stays 0); this is the real room. */
static int64_t ms_zeal_room;
static uint64_t ms_zeal_count;

static struct ms_chunk *ms_chunks;
static struct ms_chunk **ms_chunks_tail = &ms_chunks;
static struct ms_page *ms_pool;
static struct ms_large *ms_large_list;
/* Dead large mappings kept for reuse, oldest first; ms_large_bytes counts them too. */
static struct ms_large *ms_large_cache;
static struct ms_large **ms_large_cache_tail = &ms_large_cache;
static uint64_t ms_large_cache_bytes;

static void **ms_stack;
static size_t ms_stack_top;
static size_t ms_stack_cap;

/* Heap bytes mapped: chunks plus large mappings. */
static uint64_t ms_chunk_bytes;
static uint64_t ms_large_bytes;

/* Census. Object counts and byte counts in requested sizes (nptrs * 8 + nbytes). */
static uint64_t ms_collections;
/* Collections by what started them (gcr.h, GCR_TRIGGERS): they sum to ms_collections. */
static uint64_t ms_triggers[GCR_T_COUNT];
static uint64_t ms_alloc_bytes;
static uint64_t ms_alloc_objects;
static uint64_t ms_freed_bytes;
static uint64_t ms_freed_objects;
static uint64_t ms_committed_peak_bytes;
static uint64_t ms_used_after_full_bytes;
static uint64_t ms_pause_total_ns;
static uint64_t ms_pause_max_ns;

static _Noreturn void ms_die(const char *what, size_t bytes)
{
	fprintf(stderr, "marksweep: out of memory %s (%zu bytes)\n", what, bytes);
	abort();
}

static void ms_note_committed(void)
{
	uint64_t committed = ms_chunk_bytes + ms_large_bytes;

	if (committed > ms_committed_peak_bytes)
		ms_committed_peak_bytes = committed;
}

static inline struct ms_header *ms_header_of(void *obj)
{
	return (struct ms_header *)obj - 1;
}

/* The size class of a small object of `size` bytes: its cell holds the header too. */
static inline unsigned ms_class_of(size_t size)
{
	return (unsigned)((size + MS_HEADER_BYTES + MS_GRANULE - 1) / MS_GRANULE);
}

/* ---- Pages and chunks --------------------------------------------------------------------- */

static void ms_map_chunk(void)
{
	struct ms_chunk *chunk = malloc(sizeof *chunk);
	void *base;

	if (chunk == NULL)
		ms_die("for a chunk record", sizeof *chunk);
	base =
	    mmap(NULL, MS_CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		ms_die("mapping a chunk", MS_CHUNK_BYTES);
	chunk->next = NULL;
	chunk->base = base;
	/* Pushed in reverse so the pool hands out the chunk's pages in address order. */
	for (size_t i = MS_PAGES_PER_CHUNK; i-- > 0;) {
		struct ms_page *pg = &chunk->pages[i];

		pg->start = chunk->base + i * MS_PAGE_BYTES;
		pg->cell_bytes = 0;
		pg->next_free = ms_pool;
		ms_pool = pg;
	}
	*ms_chunks_tail = chunk;
	ms_chunks_tail = &chunk->next;
	ms_chunk_bytes += MS_CHUNK_BYTES;
	ms_note_committed();
}

/* Gives an empty class a page of free cells: from the pool, or from a newly mapped chunk. */
static void ms_refill(unsigned cls)
{
	const uint32_t cell_bytes = cls * MS_GRANULE;
	const size_t ncells = MS_PAGE_BYTES / cell_bytes;
	struct ms_page *pg;
	struct ms_cell *cell;

	if (ms_pool == NULL)
		ms_map_chunk();
	pg = ms_pool;
	ms_pool = pg->next_free;
	pg->next_free = NULL;
	pg->cell_bytes = cell_bytes;
	/* The page may have served another class: its old cell boundaries are poisoned. */
	MS_UNPOISON(pg->start, MS_PAGE_BYTES);

	cell = (struct ms_cell *)pg->start;
	for (size_t i = 0; i + 1 < ncells; i++) {
		struct ms_cell *next = (struct ms_cell *)((unsigned char *)cell + cell_bytes);

		cell->hdr.info = 0;
		cell->next = next;
		MS_POISON(cell + 1, cell_bytes - sizeof *cell);
		cell = next;
	}
	cell->hdr.info = 0;
	cell->next = NULL;
	MS_POISON(cell + 1, cell_bytes - sizeof *cell);
	ms_free[cls] = (struct ms_cell *)pg->start;
}

/* ---- Marking ------------------------------------------------------------------------------ */

static void ms_stack_grow(void)
{
	size_t cap = ms_stack_cap ? ms_stack_cap * 2 : MS_MARK_STACK_MIN;
	void **s = realloc(ms_stack, cap * sizeof *s);

	if (s == NULL)
		ms_die("growing the mark stack", cap * sizeof *s);
	ms_stack = s;
	ms_stack_cap = cap;
}

static _Noreturn void ms_bad_reference(const void *ref)
{
	fprintf(stderr,
	        "marksweep: reference %p leads to a free cell (a pointer kept across an allocation "
	        "without a root?)\n",
	        ref);
	abort();
}

static inline void ms_push(void *ref)
{
	if (ms_stack_top == ms_stack_cap)
		ms_stack_grow();
	ms_stack[ms_stack_top++] = ref;
}

/*
 * Marking is bound by cache misses on the headers of objects it reaches. References popped from
 * the mark stack therefore wait in a small FIFO after their header is prefetched, and are marked
 * and scanned only when they leave it (Cher, Hosking and Vijaykumar's prefetch-on-grey). The
 * mark bit is tested on leaving, so a reference may be pushed more than once; the stack holds at
 * most one entry per pointer slot scanned.
 */
#define MS_FIFO 8u

static void ms_mark(void)
{
	void *fifo[MS_FIFO];
	unsigned fifo_head = 0, fifo_count = 0;

	for (struct gcr_frame *f = gcr_roots_top; f != NULL; f = f->prev) {
		for (uint32_t i = 0; i < f->nslots; i++) {
			void *v = *f->slots[i];

			if (v != NULL)
				ms_push(v);
		}
	}
	for (;;) {
		void **obj;
		struct ms_header *h;
		uint32_t info, n;

		while (fifo_count < MS_FIFO && ms_stack_top > 0) {
			void *ref = ms_stack[--ms_stack_top];

			__builtin_prefetch(ms_header_of(ref), 1);
			fifo[(fifo_head + fifo_count++) % MS_FIFO] = ref;
		}
		if (fifo_count == 0)
			break;
		obj = fifo[fifo_head];
		fifo_head = (fifo_head + 1) % MS_FIFO;
		fifo_count--;

		h = ms_header_of(obj);
		info = h->info;
		if ((info & (MS_MARK | MS_LIVE)) != MS_LIVE) {
			if (info & MS_MARK)
				continue;
			ms_bad_reference(obj);
		}
		h->info = info | MS_MARK;
		n = h->nptrs;
		for (uint32_t i = 0; i < n; i++) {
			if (obj[i] != NULL)
				ms_push(obj[i]);
		}
	}
}

/* ---- Sweeping ----------------------------------------------------------------------------- */

/* What a sweep found alive, in heap bytes (what the policy reads) and requested bytes. */
struct ms_live {
	uint64_t heap_bytes;
	uint64_t requested_bytes;
};

static inline uint64_t ms_small_requested(const struct ms_header *h)
{
	return (uint64_t)h->nptrs * sizeof(void *) + (h->info >> MS_NBYTES_SHIFT);
}

#ifdef GCR_MS_CHECK
/* A freed cell's payload is scribbled over: a stale reference reads garbage, not old data. */
static void ms_scribble(struct ms_cell *cell, uint32_t cell_bytes)
{
	MS_UNPOISON(cell + 1, cell_bytes - sizeof *cell);
	memset((unsigned char *)cell + sizeof *cell, 0xdb, cell_bytes - sizeof *cell);
}
#else
static inline void ms_scribble(struct ms_cell *cell, uint32_t cell_bytes)
{
	(void)cell;
	(void)cell_bytes;
}
#endif

/*
 * Sweeps one page: unmarks survivors and links every other cell into a list in address order.
 * Returns the number of live cells; *head and *tail receive the free list (tail NULL if empty).
 */
static size_t ms_sweep_page(struct ms_page *pg, struct ms_cell **head, struct ms_cell **tail,
                            struct ms_live *live)
{
	const uint32_t cell_bytes = pg->cell_bytes;
	unsigned char *p = pg->start;
	unsigned char *end = p + (MS_PAGE_BYTES / cell_bytes) * cell_bytes;
	struct ms_cell *first = NULL;
	struct ms_cell *last = NULL;
	size_t nlive = 0;

	for (; p < end; p += cell_bytes) {
		struct ms_cell *cell = (struct ms_cell *)p;
		uint32_t info = cell->hdr.info;

		if (info & MS_MARK) {
			cell->hdr.info = info & ~MS_MARK;
			live->requested_bytes += ms_small_requested(&cell->hdr);
			nlive++;
			continue;
		}
		if (info & MS_LIVE) {
			ms_freed_bytes += ms_small_requested(&cell->hdr);
			ms_freed_objects++;
			cell->hdr.info = 0;
			ms_scribble(cell, cell_bytes);
			MS_POISON(cell + 1, cell_bytes - sizeof *cell);
		}
		if (last != NULL)
			last->next = cell;
		else
			first = cell;
		last = cell;
	}
	if (last != NULL)
		last->next = NULL;
	live->heap_bytes += (uint64_t)nlive * cell_bytes;
	*head = first;
	*tail = last;
	return nlive;
}

static void ms_sweep_large(struct ms_live *live)
{
	struct ms_large **pp = &ms_large_list;
	struct ms_large *l;

	while ((l = *pp) != NULL) {
		uint64_t requested = (uint64_t)l->hdr.nptrs * sizeof(void *) + l->nbytes;

		if (l->hdr.info & MS_MARK) {
			l->hdr.info &= ~MS_MARK;
			live->heap_bytes += l->map_bytes;
			live->requested_bytes += requested;
			pp = &l->next;
			continue;
		}
		*pp = l->next;
		ms_freed_bytes += requested;
		ms_freed_objects++;
		l->hdr.info = 0;
		l->next = NULL;
		MS_POISON(l + 1, l->map_bytes - sizeof *l);
		*ms_large_cache_tail = l;
		ms_large_cache_tail = &l->next;
		ms_large_cache_bytes += l->map_bytes;
	}
}

/* Unmaps the oldest cached large mappings until the cache holds at most cap_bytes. */
static void ms_trim_large_cache(uint64_t cap_bytes)
{
	while (ms_large_cache_bytes > cap_bytes) {
		struct ms_large *l = ms_large_cache;

		ms_large_cache = l->next;
		if (ms_large_cache == NULL)
			ms_large_cache_tail = &ms_large_cache;
		ms_large_cache_bytes -= l->map_bytes;
		ms_large_bytes -= l->map_bytes;
		MS_UNPOISON(l, l->map_bytes);
		if (munmap(l, l->map_bytes) != 0) {
			fprintf(stderr, "marksweep: munmap of a large object failed: %s\n",
			        strerror(errno));
			abort();
		}
	}
}

/*
 * Rebuilds the page pool in chunk order, unmapping wholly empty chunks while what stays mapped
 * still covers the next cycle's limit: memory goes back to the system after a peak, but a
 * steady heap does not map and unmap a chunk every cycle.
 */
static void ms_rebuild_pool(uint64_t limit_bytes)
{
	struct ms_page *pool = NULL;
	struct ms_page **pool_tail = &pool;
	struct ms_chunk **pp = &ms_chunks;
	struct ms_chunk *chunk;

	ms_chunks_tail = &ms_chunks;
	while ((chunk = *pp) != NULL) {
		size_t nfree = 0;

		for (size_t i = 0; i < MS_PAGES_PER_CHUNK; i++)
			nfree += chunk->pages[i].cell_bytes == 0;
		if (nfree == MS_PAGES_PER_CHUNK && ms_chunk_bytes - MS_CHUNK_BYTES >= limit_bytes) {
			*pp = chunk->next;
			ms_chunk_bytes -= MS_CHUNK_BYTES;
			/* The shadow outlives the mapping: a later mmap may get these addresses. */
			MS_UNPOISON(chunk->base, MS_CHUNK_BYTES);
			if (munmap(chunk->base, MS_CHUNK_BYTES) != 0) {
				fprintf(stderr, "marksweep: munmap of a chunk failed: %s\n",
				        strerror(errno));
				abort();
			}
			free(chunk);
			continue;
		}
		for (size_t i = 0; i < MS_PAGES_PER_CHUNK; i++) {
			struct ms_page *pg = &chunk->pages[i];

			if (pg->cell_bytes == 0) {
				*pool_tail = pg;
				pool_tail = &pg->next_free;
			}
		}
		ms_chunks_tail = &chunk->next;
		pp = &chunk->next;
	}
	*pool_tail = NULL;
	ms_pool = pool;
}

static void ms_sweep(struct ms_live *live)
{
	struct ms_cell *head[MS_CLASSES];
	struct ms_cell *tail[MS_CLASSES];

	memset(head, 0, sizeof head);
	memset(tail, 0, sizeof tail);
	for (struct ms_chunk *chunk = ms_chunks; chunk != NULL; chunk = chunk->next) {
		for (size_t i = 0; i < MS_PAGES_PER_CHUNK; i++) {
			struct ms_page *pg = &chunk->pages[i];
			struct ms_cell *first, *last;
			unsigned cls;

			if (pg->cell_bytes == 0)
				continue;
			cls = pg->cell_bytes / MS_GRANULE;
			if (ms_sweep_page(pg, &first, &last, live) == 0) {
				pg->cell_bytes = 0;
				continue;
			}
			if (first == NULL)
				continue;
			if (tail[cls] != NULL)
				tail[cls]->next = first;
			else
				head[cls] = first;
			tail[cls] = last;
		}
	}
	memcpy(ms_free, head, sizeof head);
	ms_sweep_large(live);
}

#ifdef GCR_MS_CHECK
/* Checks the heap's invariants after a collection; aborts with a message on the first breach. */
static void ms_heap_check(void)
{
	for (unsigned cls = 1; cls < MS_CLASSES; cls++) {
		for (struct ms_cell *c = ms_free[cls]; c != NULL; c = c->next) {
			if (c->hdr.info != 0) {
				fprintf(stderr, "marksweep: check: free cell %p has info %#x\n",
				        (void *)c, c->hdr.info);
				abort();
			}
		}
	}
	for (struct ms_chunk *chunk = ms_chunks; chunk != NULL; chunk = chunk->next) {
		for (size_t i = 0; i < MS_PAGES_PER_CHUNK; i++) {
			const struct ms_page *pg = &chunk->pages[i];

			if (pg->cell_bytes == 0)
				continue;
			for (size_t off = 0; off + pg->cell_bytes <= MS_PAGE_BYTES;
			     off += pg->cell_bytes) {
				const struct ms_header *h = (const void *)(pg->start + off);

				if ((h->info & MS_MARK) || (h->info & MS_LARGE) ||
				    (h->info != 0 && !(h->info & MS_LIVE)) ||
				    (h->info != 0 &&
				     ms_small_requested(h) + MS_HEADER_BYTES > pg->cell_bytes)) {
					fprintf(stderr, "marksweep: check: bad cell header at %p\n",
					        (const void *)h);
					abort();
				}
			}
		}
	}
	for (const struct ms_large *l = ms_large_list; l != NULL; l = l->next) {
		if (l->hdr.info != (MS_LIVE | MS_LARGE)) {
			fprintf(stderr, "marksweep: check: bad large object header at %p\n",
			        (const void *)l);
			abort();
		}
	}
	for (const struct ms_large *l = ms_large_cache; l != NULL; l = l->next) {
		if (l->hdr.info != 0 || (l->next == NULL && ms_large_cache_tail != &l->next)) {
			fprintf(stderr, "marksweep: check: bad cached large mapping at %p\n",
			        (const void *)l);
			abort();
		}
	}
}
#else
static inline void ms_heap_check(void)
{
}
#endif

/* ---- Collection and policy ---------------------------------------------------------------- */

static void ms_collect(enum gcr_trigger trigger)
{
	struct ms_live live = {0, 0};
	uint64_t limit, room, pause;

	/*
	 * Counted first, so that `trigger` is dead before the mark loop: kept live across it, it
	 * cost 05_binary_trees 0.35% more Ir.
	 */
	ms_triggers[trigger]++;
	gcr_plant_settle(ms_alloc_objects);
	gcr_pause_begin();
	ms_mark();
	ms_sweep(&live);
	limit = live.heap_bytes * MS_GROWTH;
	if (limit < ms_budget_bytes)
		limit = ms_budget_bytes;
	room = limit - live.heap_bytes;
	if (ms_max_bytes != 0 && limit > ms_max_bytes) {
		limit = ms_max_bytes > live.heap_bytes ? ms_max_bytes : live.heap_bytes;
		/*
		 * Close to the hard limit the policy would collect on every allocation; at least
		 * an eighth of the limit between collections bounds that, and the mapping check in
		 * ms_alloc_slow still keeps the heap within the limit.
		 */
		room = limit - live.heap_bytes;
		if (room < ms_max_bytes / 8)
			room = ms_max_bytes / 8;
	}
	ms_rebuild_pool(limit);
	ms_trim_large_cache((limit - live.heap_bytes) / 2);
	ms_heap_check();

	if (ms_zeal != 0) {
		ms_zeal_room = (int64_t)room;
		ms_room = 0;
	} else {
		ms_room = (int64_t)room;
	}
	ms_collections++;
	ms_used_after_full_bytes = live.requested_bytes;

	/* Every collection is full here, and one pause. */
	pause = gcr_pause_end(0, 1);
	ms_pause_total_ns += pause;
	/*
	 * A store on every collection, not a branch on the clock: the valgrind meter's Ir must
	 * not depend on how long a pause took.
	 */
	ms_pause_max_ns = pause > ms_pause_max_ns ? pause : ms_pause_max_ns;
}

static size_t ms_large_map_bytes(size_t size)
{
	return (sizeof(struct ms_large) + size + MS_OS_PAGE_BYTES - 1) & ~(MS_OS_PAGE_BYTES - 1);
}

/* Takes the oldest cached mapping of map_bytes to 5/4 of it, or returns NULL. */
static struct ms_large *ms_reuse_large(size_t map_bytes)
{
	struct ms_large **pp = &ms_large_cache;
	struct ms_large *l;

	for (; (l = *pp) != NULL; pp = &l->next) {
		if (l->map_bytes < map_bytes || l->map_bytes > map_bytes + map_bytes / 4)
			continue;
		*pp = l->next;
		if (ms_large_cache_tail == &l->next)
			ms_large_cache_tail = pp;
		ms_large_cache_bytes -= l->map_bytes;
		return l;
	}
	return NULL;
}

static void *ms_alloc_large(uint32_t nptrs, uint32_t nbytes, size_t map_bytes)
{
	struct ms_large *l = ms_reuse_large(map_bytes);

	if (l != NULL) {
		MS_UNPOISON(l + 1, (size_t)nptrs * sizeof(void *) + nbytes);
		memset(l + 1, 0, (size_t)nptrs * sizeof(void *));
	} else {
		l = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		         0);
		if (l == MAP_FAILED)
			ms_die("mapping a large object", map_bytes);
		/* Fresh anonymous pages are zero, so the pointer slots already are. */
		l->map_bytes = map_bytes;
		ms_large_bytes += map_bytes;
		ms_note_committed();
	}
	l->nbytes = nbytes;
	l->hdr.nptrs = nptrs;
	l->hdr.info = MS_LIVE | MS_LARGE;
	l->next = ms_large_list;
	ms_large_list = l;
	return l + 1;
}

/* Whether the oldest cached large mapping that ms_reuse_large would take exists. */
static int ms_large_cached(size_t map_bytes)
{
	for (const struct ms_large *l = ms_large_cache; l != NULL; l = l->next) {
		if (l->map_bytes >= map_bytes && l->map_bytes <= map_bytes + map_bytes / 4)
			return 1;
	}
	return 0;
}

/*
 * Under a hard limit: makes sure the request can be met without mapping past the limit, first
 * by dropping the large-object cache, then by a collection (unless `collected` says the
 * request has just had one), or ends the run as exhausted.
 */
static __attribute__((noinline, cold)) void ms_within_limit(size_t size, unsigned cls,
                                                            size_t heap_bytes, int collected)
{
	for (;;) {
		uint64_t committed = ms_chunk_bytes + ms_large_bytes;
		uint64_t need;

		if (cls != 0)
			need = ms_free[cls] != NULL || ms_pool != NULL ? 0 : MS_CHUNK_BYTES;
		else
			need = ms_large_cached(heap_bytes) ? 0 : heap_bytes;
		if (committed + need <= ms_max_bytes)
			return;
		if (ms_large_cache_bytes != 0) {
			ms_trim_large_cache(0);
		} else if (!collected) {
			ms_collect(GCR_T_HEAP_LIMIT);
			collected = 1;
		} else {
			gcr_heap_exhausted("marksweep", size, committed, ms_max_bytes);
		}
	}
}

/*
 * Everything the fast path in gcr_alloc does not handle: zeal, a collection the policy asks
 * for, an empty free list, a large object.
 */
static void *ms_alloc_slow(uint32_t nptrs, uint32_t nbytes)
{
	const size_t size = (size_t)nptrs * sizeof(void *) + nbytes;
	const int small = size <= MS_SMALL_MAX_BYTES;
	const unsigned cls = small ? ms_class_of(size) : 0;
	const size_t heap_bytes = small ? (size_t)cls * MS_GRANULE : ms_large_map_bytes(size);
	int64_t *room = ms_zeal != 0 ? &ms_zeal_room : &ms_room;
	struct ms_cell *cell;
	void *obj;
	int collected = 0;

	if (ms_zeal != 0 && ++ms_zeal_count >= ms_zeal) {
		ms_zeal_count = 0;
		ms_collect(GCR_T_ZEAL);
		collected = 1;
	} else if (*room < (int64_t)heap_bytes) {
		ms_collect(GCR_T_ALLOCATION);
		collected = 1;
	}
	if (ms_max_bytes != 0)
		ms_within_limit(size, cls, heap_bytes, collected);
	/*
	 * After at most one collection the request is granted, even past the policy's limit
	 * (never past a hard one: ms_within_limit).
	 */
	*room -= (int64_t)heap_bytes;
	ms_alloc_bytes += size;
	ms_alloc_objects++;
	if (!small)
		return ms_alloc_large(nptrs, nbytes, heap_bytes);

	if (ms_free[cls] == NULL)
		ms_refill(cls);
	cell = ms_free[cls];
	ms_free[cls] = cell->next;
	MS_UNPOISON(cell + 1, size > sizeof(void *) ? size - sizeof(void *) : 0);
	cell->hdr.nptrs = nptrs;
	cell->hdr.info = MS_LIVE | (nbytes << MS_NBYTES_SHIFT);
	obj = &cell->next;
	memset(obj, 0, (size_t)nptrs * sizeof(void *));
	return obj;
}

/* ---- The ABI ------------------------------------------------------------------------------ */

void gcr_init(void)
{
	ms_budget_bytes =
	    gcr_knob("marksweep", "GCR_HEAP_MB", MS_DEFAULT_HEAP_MB, 1, MS_MAX_HEAP_MB) << 20;
	ms_zeal = gcr_knob("marksweep", "GCR_ZEAL", 0, 0, UINT32_MAX);
	ms_max_bytes = gcr_heap_max_bytes("marksweep");
	/* A budget above the hard limit is capped to it: the limit is the stronger promise. */
	if (ms_max_bytes != 0 && ms_budget_bytes > ms_max_bytes)
		ms_budget_bytes = ms_max_bytes;
	if (ms_zeal != 0)
		ms_zeal_room = (int64_t)ms_budget_bytes;
	else
		ms_room = (int64_t)ms_budget_bytes;
	gcr_plant_init();
}

const char *gcr_name(void)
{
	return "marksweep";
}

const char *gcr_version(void)
{
	return GCR_COLLECTOR_VERSION;
}

unsigned gcr_capabilities(void)
{
	return GCR_CAP_COLLECTS | GCR_CAP_PRECISE | GCR_CAP_PAUSE_LOG;
}

void *gcr_alloc(uint32_t nptrs, uint32_t nbytes)
{
	const size_t size = (size_t)nptrs * sizeof(void *) + nbytes;

	gcr_plant_on_alloc();
	if (size <= MS_SMALL_MAX_BYTES) {
		const unsigned cls = ms_class_of(size);
		const int64_t cell_bytes = (int64_t)cls * MS_GRANULE;
		struct ms_cell *cell = ms_free[cls];

		if (cell != NULL && ms_room >= cell_bytes) {
			void **slots = (void **)&cell->next;

			ms_free[cls] = cell->next;
			/* The next allocation of this class reads that link: start the miss now. */
			__builtin_prefetch(cell->next, 1);
			MS_UNPOISON(cell + 1, size > sizeof(void *) ? size - sizeof(void *) : 0);
			ms_room -= cell_bytes;
			ms_alloc_bytes += size;
			ms_alloc_objects++;
			cell->hdr.nptrs = nptrs;
			cell->hdr.info = MS_LIVE | (nbytes << MS_NBYTES_SHIFT);
			for (uint32_t i = 0; i < nptrs; i++)
				slots[i] = NULL;
			return slots;
		}
	}
	return ms_alloc_slow(nptrs, nbytes);
}

void gcr_write(void *obj, uint32_t i, void *val)
{
	/* Non-moving and non-generational: no barrier. */
	((void **)obj)[i] = val;
}

void *gcr_read(void *obj, uint32_t i)
{
	return ((void **)obj)[i];
}

void gcr_collect(int kind)
{
	/* No nursery: a minor collection is a full one. */
	(void)kind;
	ms_collect(GCR_T_EXPLICIT);
}

void gcr_census(struct gcr_census *c)
{
	memset(c, 0, sizeof *c);
	/* Known zero: this collector has no minor collections. */
	gcr_census_set(c, GCR_C_MINOR_COLLECTIONS, 0);
	gcr_census_set(c, GCR_C_MAJOR_COLLECTIONS, ms_collections);
	gcr_census_set(c, GCR_C_ALLOC_BYTES, ms_alloc_bytes);
	gcr_census_set(c, GCR_C_ALLOC_OBJECTS, ms_alloc_objects);
	gcr_census_set(c, GCR_C_FREED_BYTES, ms_freed_bytes);
	gcr_census_set(c, GCR_C_FREED_OBJECTS, ms_freed_objects);
	gcr_census_set(c, GCR_C_HEAP_COMMITTED_PEAK_BYTES, ms_committed_peak_bytes);
	if (ms_collections != 0)
		gcr_census_set(c, GCR_C_HEAP_USED_AFTER_FULL_BYTES, ms_used_after_full_bytes);
	gcr_census_set(c, GCR_C_PAUSE_TOTAL_NS, ms_pause_total_ns);
	gcr_census_set(c, GCR_C_PAUSE_MAX_NS, ms_pause_max_ns);
	/* Every trigger this collector can start a collection by, its zeros too. */
	gcr_census_set_trigger(c, GCR_T_ALLOCATION, ms_triggers[GCR_T_ALLOCATION]);
	gcr_census_set_trigger(c, GCR_T_HEAP_LIMIT, ms_triggers[GCR_T_HEAP_LIMIT]);
	gcr_census_set_trigger(c, GCR_T_EXPLICIT, ms_triggers[GCR_T_EXPLICIT]);
	gcr_census_set_trigger(c, GCR_T_ZEAL, ms_triggers[GCR_T_ZEAL]);
}
