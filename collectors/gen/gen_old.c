/*
 * gen_old.c — the old generation: mark-sweep over size-class segregated blocks, and the
 * large-object space.
 *
 * Small objects (a cell of at most GEN_SMALL_MAX_BYTES, header included) live in 64 KiB
 * blocks, each holding cells of one size class; blocks are carved out of 1 MiB chunks mapped
 * on demand. Each class has one free list threaded through its free cells (the link is the
 * word after the header). Only promotion allocates here, so the list is popped during minor
 * collections alone.
 *
 * A major collection marks from the shadow stack with an explicit stack (lists a million long
 * must not recurse), then sweeps every block in the order the blocks were taken, rebuilding the
 * free lists from scratch. A block left with no live cell is returned to its chunk (and its
 * pages to the kernel); a chunk left with no block in use is unmapped. The order of blocks,
 * free lists and chunks never depends on addresses, so neither does anything counted.
 *
 * Large objects get a mapping each: a struct gen_los, the header, the object, then one card
 * byte per 128 pointer slots for the write barrier. They never move.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gen.h"

#define GEN_BLOCK_BYTES ((size_t)64 << 10)
#ifdef GCR_PLANT_HEAP_STEP_MB
/*
 * The planted growth-policy regression (plant.h): the old generation grows N MiB at a time,
 * so a probe needs more heap under a hard limit, and the census counts the same work.
 */
#define GEN_CHUNK_BLOCKS (16u * (unsigned)(GCR_PLANT_HEAP_STEP_MB))
#else
#define GEN_CHUNK_BLOCKS 16u
#endif
#define GEN_CHUNK_BYTES (GEN_BLOCK_BYTES * GEN_CHUNK_BLOCKS)

/* Cell sizes, header included: four classes per doubling keep rounding waste under 25%. */
static const uint32_t gen_class_bytes[] = {
    16,   24,   32,   40,   48,   56,   64,   80,   96,   112,  128,  160,
    192,  224,  256,  320,  384,  448,  512,  640,  768,  896,  1024, 1280,
    1536, 1792, 2048, 2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192,
};
_Static_assert(sizeof gen_class_bytes / sizeof gen_class_bytes[0] == GEN_NCLASSES,
               "GEN_NCLASSES in gen.h must count gen_class_bytes");

struct gen_free_lists gen_free_lists;

struct gen_chunk;

struct gen_block {
	struct gen_block *next; /* in the in-use list, or the pool of free blocks */
	struct gen_chunk *chunk;
	unsigned char *start;
	uint32_t cell_bytes; /* 0 while the block is free */
	uint32_t ncells;
	uint32_t cls;
	bool resident; /* its pages may be in memory: it was used since it was last released */
};

struct gen_chunk {
	struct gen_chunk *next;
	unsigned char *base;
	uint32_t nfree; /* blocks not in use */
	struct gen_block blocks[GEN_CHUNK_BLOCKS];
};

static struct {
	struct gen_block *blocks, *blocks_tail; /* in use, in the order taken */
	struct gen_block *pool;                 /* free blocks of mapped chunks */
	struct gen_chunk *chunks, *chunks_tail; /* in the order mapped */
	size_t nchunks;
	struct gen_los *los, *los_tail; /* large objects, in the order allocated */
	size_t nlos;
	size_t page_bytes;
	void **stack; /* the mark stack */
	size_t sp, cap;
	/* Address-sorted indexes for the verifier, rebuilt by gen_old_index. */
	uintptr_t *chunk_index; /* pairs (base, struct gen_chunk *), sorted by base */
	size_t chunk_index_n;
	uintptr_t *los_index; /* struct gen_los * as integers, sorted */
	size_t los_index_n;
} gen_old;

void gen_old_init(void)
{
	unsigned cls = 0;

	for (size_t w = 1; w <= GEN_SMALL_MAX_BYTES / 8; w++) {
		while (gen_class_bytes[cls] < w * 8)
			cls++;
		gen_free_lists.class_of[w] = (uint8_t)cls;
	}
	gen_free_lists.class_of[0] = 0;
	gen_old.page_bytes = (size_t)sysconf(_SC_PAGESIZE);
}

size_t gen_old_cell_bytes(size_t need)
{
	return gen_class_bytes[gen_free_lists.class_of[need / 8]];
}

/* ---- Blocks and cells ----------------------------------------------------------------- */

static struct gen_block *gen_block_take(void)
{
	struct gen_block *b = gen_old.pool;
	struct gen_chunk *c;

	if (b) {
		gen_old.pool = b->next;
		b->chunk->nfree--;
		return b;
	}
	c = gen_xmalloc(sizeof *c);
	memset(c, 0, sizeof *c);
	c->base = gen_map(GEN_CHUNK_BYTES, "old-generation blocks");
	c->nfree = GEN_CHUNK_BLOCKS;
	for (unsigned i = GEN_CHUNK_BLOCKS; i-- > 0;) {
		c->blocks[i].chunk = c;
		c->blocks[i].start = c->base + i * GEN_BLOCK_BYTES;
		if (i > 0) {
			c->blocks[i].next = gen_old.pool;
			gen_old.pool = &c->blocks[i];
		}
	}
	if (gen_old.chunks_tail)
		gen_old.chunks_tail->next = c;
	else
		gen_old.chunks = c;
	gen_old.chunks_tail = c;
	gen_old.nchunks++;
	c->nfree--;
	return &c->blocks[0];
}

unsigned char *gen_old_refill(unsigned cls)
{
	struct gen_block *b = gen_block_take();
	uint32_t cb = gen_class_bytes[cls];
	unsigned char *cell;

	b->cell_bytes = cb;
	b->resident = true;
	b->ncells = (uint32_t)(GEN_BLOCK_BYTES / cb);
	b->cls = cls;
	b->next = NULL;
#ifdef GCR_PLANT_SCATTER
	/*
	 * The planted locality regression (plant.h): the cells in GCR_PLANT_SCATTER interleaved
	 * passes, so that survivors promoted one after another land that many cells apart.
	 */
	{
		const uint32_t s = (uint32_t)(GCR_PLANT_SCATTER), n = b->ncells;

		for (uint32_t j = 0; j < s && j < n; j++) {
			for (uint32_t k = j; k < n; k += s) {
				cell = b->start + (size_t)k * cb;
				*(uint64_t *)cell = GEN_H_FREE;
				*gen_cell_link(cell) = k + s < n ? cell + (size_t)s * cb
				                       : j + 1 < s && j + 1 < n
				                           ? b->start + (size_t)(j + 1) * cb
				                           : NULL;
			}
		}
	}
#else
	for (uint32_t k = 0; k < b->ncells; k++) {
		cell = b->start + (size_t)k * cb;
		*(uint64_t *)cell = GEN_H_FREE;
		*gen_cell_link(cell) = k + 1 < b->ncells ? cell + cb : NULL;
	}
#endif
	if (gen_old.blocks_tail)
		gen_old.blocks_tail->next = b;
	else
		gen_old.blocks = b;
	gen_old.blocks_tail = b;
	gen_free_lists.head[cls] = b->start;
	return b->start;
}

/* ---- Large objects -------------------------------------------------------------------- */

/* Bytes a large object's mapping takes. */
static size_t gen_los_map_bytes(uint32_t nptrs, uint32_t nbytes)
{
	uint64_t payload = (gen_requested(nptrs, nbytes) + 7) & ~UINT64_C(7);
	uint64_t ncards = ((uint64_t)nptrs + (UINT64_C(1) << GEN_CARD_SHIFT) - 1) >> GEN_CARD_SHIFT;
	uint64_t len = sizeof(struct gen_los) + GEN_HDR_BYTES + payload + ncards;

	return (size_t)((len + gen_old.page_bytes - 1) & ~(uint64_t)(gen_old.page_bytes - 1));
}

void *gen_los_alloc(uint32_t nptrs, uint32_t nbytes)
{
	size_t map_bytes = gen_los_map_bytes(nptrs, nbytes);
	uint64_t requested = gen_requested(nptrs, nbytes);
	struct gen_los *l;
	unsigned char *obj;

	if (gen_knobs.max_bytes != 0)
		gen_limit_room(requested, map_bytes);
	l = gen_map(map_bytes, "a large object");
	obj = (unsigned char *)(l + 1) + GEN_HDR_BYTES;

	/* The mapping is fresh, so the slots and cards are already zero. */
	l->map_bytes = map_bytes;
	l->nbytes = nbytes;
	l->cards = obj + ((requested + 7) & ~UINT64_C(7));
	l->ncards = ((uint64_t)nptrs + (UINT64_C(1) << GEN_CARD_SHIFT) - 1) >> GEN_CARD_SHIFT;
	*gen_hdr(obj) = gen_h_make(nptrs, 0) | GEN_H_LARGE;
	l->prev = gen_old.los_tail;
	l->next = NULL;
	if (gen_old.los_tail)
		gen_old.los_tail->next = l;
	else
		gen_old.los = l;
	gen_old.los_tail = l;
	gen_old.nlos++;

	gen_fast.alloc_bytes += requested;
	gen_fast.alloc_objects++;
	gen_stats.los_alloc_bytes += requested;
	gen_stats.los_alloc_objects++;
	return obj;
}

static inline void *gen_los_object(struct gen_los *l)
{
	return (unsigned char *)(l + 1) + GEN_HDR_BYTES;
}

/* ---- Major collection ----------------------------------------------------------------- */

static inline void gen_mark(void *p)
{
	uint64_t *h = gen_hdr(p);

	if (*h & GEN_H_MARK)
		return;
	*h |= GEN_H_MARK;
	if (gen_h_nptrs(*h) == 0)
		return;
	if (gen_old.sp == gen_old.cap) {
		gen_old.cap = gen_old.cap ? gen_old.cap * 2 : 4096;
		gen_old.stack = gen_xrealloc(gen_old.stack, gen_old.cap * sizeof(void *));
	}
	gen_old.stack[gen_old.sp++] = p;
}

static void gen_mark_all(void)
{
	for (struct gcr_frame *f = gcr_roots_top; f; f = f->prev) {
		for (uint32_t i = 0; i < f->nslots; i++) {
			void *p = *f->slots[i];

			if (p)
				gen_mark(p);
		}
	}
	while (gen_old.sp > 0) {
		void **obj = gen_old.stack[--gen_old.sp];
		uint32_t n = gen_h_nptrs(*gen_hdr(obj));

		for (uint32_t i = 0; i < n; i++) {
			if (obj[i])
				gen_mark(obj[i]);
		}
	}
}

/* Live totals found by a sweep. */
struct gen_sweep {
	uint64_t live_requested;
	unsigned char *tail[GEN_NCLASSES]; /* last cell of each rebuilt free list */
};

static void gen_free_append(struct gen_sweep *s, unsigned cls, unsigned char *head,
                            unsigned char *tail)
{
	if (s->tail[cls])
		*gen_cell_link(s->tail[cls]) = head;
	else
		gen_free_lists.head[cls] = head;
	s->tail[cls] = tail;
}

/* Sweeps one block; returns its live cell count. */
static uint32_t gen_sweep_block(struct gen_sweep *s, struct gen_block *b)
{
	unsigned char *head = NULL, *tail = NULL;
	uint32_t live = 0;

	for (uint32_t k = 0; k < b->ncells; k++) {
		unsigned char *cell = b->start + (size_t)k * b->cell_bytes;
		uint64_t *h = (uint64_t *)cell;

		if (*h & GEN_H_MARK) {
			*h &= ~GEN_H_MARK;
			live++;
			s->live_requested += gen_requested(gen_h_nptrs(*h), gen_h_nbytes(*h));
			continue;
		}
		if (!(*h & GEN_H_FREE)) {
			gen_stats.freed_objects++;
			gen_stats.freed_bytes += gen_requested(gen_h_nptrs(*h), gen_h_nbytes(*h));
			*h = GEN_H_FREE;
		}
		*gen_cell_link(cell) = NULL;
		if (tail)
			*gen_cell_link(tail) = cell;
		else
			head = cell;
		tail = cell;
	}
	if (live > 0 && head)
		gen_free_append(s, b->cls, head, tail);
	return live;
}

static void gen_sweep_blocks(struct gen_sweep *s)
{
	struct gen_block *b = gen_old.blocks, *keep_tail = NULL, *next;

	memset(gen_free_lists.head, 0, sizeof gen_free_lists.head);
	gen_old.blocks = NULL;
	for (; b; b = next) {
		next = b->next;
		b->next = NULL;
		if (gen_sweep_block(s, b) > 0) {
			if (keep_tail)
				keep_tail->next = b;
			else
				gen_old.blocks = b;
			keep_tail = b;
			continue;
		}
		/* Empty: back to its chunk; gen_trim decides whether its pages stay. */
		b->cell_bytes = 0;
		b->ncells = 0;
		b->chunk->nfree++;
	}
	gen_old.blocks_tail = keep_tail;
}

/* Gives pages [lo, hi) back to the kernel; the mapping stays. No run: lo is NULL. */
static void gen_release_pages(unsigned char *lo, unsigned char *hi)
{
	if (lo && lo < hi && madvise(lo, (size_t)(hi - lo), MADV_DONTNEED) != 0)
		gen_fatal("madvise(MADV_DONTNEED) of %zu bytes failed: %s", (size_t)(hi - lo),
		          strerror(errno));
}

static void gen_pool_append(struct gen_block **tail, struct gen_block *b)
{
	b->next = NULL;
	if (*tail)
		(*tail)->next = b;
	else
		gen_old.pool = b;
	*tail = b;
}

/*
 * After a sweep: keep up to keep_bytes of free blocks resident (the old generation will grow
 * by about that much before the next major, and faulting pages back in costs more than
 * keeping them), give the pages of the other free blocks back to the kernel (one madvise per
 * run of blocks: each call flushes TLBs), and unmap chunks left with nothing worth keeping.
 * The pool is rebuilt resident blocks first, in chunk order: no address decides anything.
 */
static void gen_trim(uint64_t keep_bytes)
{
	struct gen_chunk **link = &gen_old.chunks, *c;
	struct gen_block *pool_tail = NULL;
	uint64_t kept = 0;

	gen_old.chunks_tail = NULL;
	gen_old.pool = NULL;
	while ((c = *link) != NULL) {
		unsigned char *run = NULL;
		unsigned resident = 0;

		for (unsigned i = 0; i < GEN_CHUNK_BLOCKS; i++)
			resident += c->blocks[i].resident;
		if (c->nfree == GEN_CHUNK_BLOCKS &&
		    (resident == 0 || kept + GEN_BLOCK_BYTES > keep_bytes)) {
			*link = c->next;
			gen_unmap(c->base, GEN_CHUNK_BYTES);
			free(c);
			gen_old.nchunks--;
			continue;
		}
		for (unsigned i = 0; i < GEN_CHUNK_BLOCKS; i++) {
			struct gen_block *b = &c->blocks[i];

			if (!b->cell_bytes && b->resident) {
				if (kept + GEN_BLOCK_BYTES <= keep_bytes) {
					kept += GEN_BLOCK_BYTES;
				} else {
					b->resident = false;
					if (!run)
						run = b->start;
					continue;
				}
			}
			gen_release_pages(run, b->start);
			run = NULL;
		}
		gen_release_pages(run, c->base + GEN_CHUNK_BYTES);
		gen_old.chunks_tail = c;
		link = &c->next;
	}
	for (int want = 1; want >= 0; want--) {
		for (c = gen_old.chunks; c; c = c->next) {
			for (unsigned i = 0; i < GEN_CHUNK_BLOCKS; i++) {
				struct gen_block *b = &c->blocks[i];

				if (!b->cell_bytes && b->resident == (want == 1))
					gen_pool_append(&pool_tail, b);
			}
		}
	}
}

static void gen_sweep_los(struct gen_sweep *s)
{
	struct gen_los *l, *next;

	for (l = gen_old.los; l; l = next) {
		uint64_t *h = gen_hdr(gen_los_object(l));
		uint64_t requested = gen_requested(gen_h_nptrs(*h), l->nbytes);

		next = l->next;
		if (*h & GEN_H_MARK) {
			*h &= ~GEN_H_MARK;
			s->live_requested += requested;
			continue;
		}
		gen_stats.freed_objects++;
		gen_stats.freed_bytes += requested;
		if (l->prev)
			l->prev->next = l->next;
		else
			gen_old.los = l->next;
		if (l->next)
			l->next->prev = l->prev;
		else
			gen_old.los_tail = l->prev;
		gen_old.nlos--;
		gen_unmap(l, l->map_bytes);
	}
}

void gen_old_collect(void)
{
	struct gen_sweep s;
	uint64_t keep;

	memset(&s, 0, sizeof s);
	gen_mark_all();
	gen_sweep_blocks(&s);
	gen_sweep_los(&s);
	gen_stats.used_after_full_bytes = s.live_requested;
	keep = gen_growth_trigger();
	/* Under a hard limit, free chunks are kept only within the room left under it. */
	if (gen_knobs.max_bytes != 0) {
		uint64_t room = gen_knobs.max_bytes > gen_stats.committed_bytes
		                    ? gen_knobs.max_bytes - gen_stats.committed_bytes
		                    : 0;

		keep = keep < room ? keep : room;
	}
	gen_trim(keep);
	/* The stack's high-water mark is a big live structure's width; give it back. */
	free(gen_old.stack);
	gen_old.stack = NULL;
	gen_old.cap = 0;

	gen_stats.major_collections++;
	gen_stats.have_full = true;
	gen_stats.old_bytes_at_major = gen_stats.promoted_bytes + gen_stats.los_alloc_bytes;
}

/* ---- Verifier support ----------------------------------------------------------------- */

void gen_old_each_object(gen_obj_fn *fn, void *ctx)
{
	for (struct gen_block *b = gen_old.blocks; b; b = b->next) {
		for (uint32_t k = 0; k < b->ncells; k++) {
			unsigned char *cell = b->start + (size_t)k * b->cell_bytes;

			if (!(*(uint64_t *)cell & GEN_H_FREE))
				fn(cell + GEN_HDR_BYTES, b->cell_bytes, ctx);
		}
	}
	for (struct gen_los *l = gen_old.los; l; l = l->next)
		fn(gen_los_object(l), 0, ctx);
}

static int gen_cmp_addr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return (x > y) - (x < y);
}

/* Sorting by address is fine here: the verifier decides nothing the census counts. */
void gen_old_index(void)
{
	size_t n = 0;

	free(gen_old.chunk_index);
	free(gen_old.los_index);
	gen_old.chunk_index = gen_xmalloc(gen_old.nchunks * 2 * sizeof(uintptr_t));
	for (struct gen_chunk *c = gen_old.chunks; c; c = c->next) {
		gen_old.chunk_index[2 * n] = (uintptr_t)c->base;
		gen_old.chunk_index[2 * n + 1] = (uintptr_t)c;
		n++;
	}
	gen_old.chunk_index_n = n;
	qsort(gen_old.chunk_index, n, 2 * sizeof(uintptr_t), gen_cmp_addr);
	n = 0;
	gen_old.los_index = gen_xmalloc(gen_old.nlos * sizeof(uintptr_t));
	for (struct gen_los *l = gen_old.los; l; l = l->next)
		gen_old.los_index[n++] = (uintptr_t)l;
	gen_old.los_index_n = n;
	qsort(gen_old.los_index, n, sizeof(uintptr_t), gen_cmp_addr);
}

/* The chunk, or large object, whose memory holds address a: binary searches. */
static struct gen_chunk *gen_find_chunk(uintptr_t a)
{
	const uintptr_t *pairs = gen_old.chunk_index;
	size_t lo = 0, hi = gen_old.chunk_index_n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a < pairs[2 * mid])
			hi = mid;
		else if (a >= pairs[2 * mid] + GEN_CHUNK_BYTES)
			lo = mid + 1;
		else
			return (struct gen_chunk *)pairs[2 * mid + 1];
	}
	return NULL;
}

static struct gen_los *gen_find_los(uintptr_t a)
{
	const uintptr_t *maps = gen_old.los_index;
	size_t lo = 0, hi = gen_old.los_index_n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct gen_los *l = (const struct gen_los *)maps[mid];

		if (a < maps[mid])
			hi = mid;
		else if (a >= maps[mid] + l->map_bytes)
			lo = mid + 1;
		else
			return (struct gen_los *)maps[mid];
	}
	return NULL;
}

const char *gen_old_check_pointer(const void *p)
{
	uintptr_t a = (uintptr_t)p, cell, off;
	struct gen_chunk *c;
	struct gen_block *b;
	struct gen_los *l;

	if (a & 7)
		return "is not 8-byte aligned";
	c = gen_find_chunk(a - GEN_HDR_BYTES);
	if (c) {
		b = &c->blocks[(a - GEN_HDR_BYTES - (uintptr_t)c->base) / GEN_BLOCK_BYTES];
		if (!b->cell_bytes)
			return "points into a free old-generation block";
		off = a - GEN_HDR_BYTES - (uintptr_t)b->start;
		if (off % b->cell_bytes)
			return "points into the middle of an old-generation cell";
		if (off / b->cell_bytes >= b->ncells)
			return "points past the last cell of an old-generation block";
		cell = (uintptr_t)b->start + off;
		if (*(const uint64_t *)cell & GEN_H_FREE)
			return "points to a freed old-generation cell";
		return NULL;
	}
	l = gen_find_los(a);
	if (l) {
		if (p != gen_los_object(l))
			return "points inside a large object's mapping, not at the object";
		return NULL;
	}
	return "points outside the heap";
}

const char *gen_old_check_free_lists(void)
{
	uint64_t listed[GEN_NCLASSES] = {0}, free_cells[GEN_NCLASSES] = {0}, total = 0;

	for (struct gen_block *b = gen_old.blocks; b; b = b->next) {
		if (!b->cell_bytes || b->cell_bytes != gen_class_bytes[b->cls])
			return "a block in use has no or the wrong cell size";
		for (uint32_t k = 0; k < b->ncells; k++) {
			if (*(uint64_t *)(b->start + (size_t)k * b->cell_bytes) & GEN_H_FREE)
				free_cells[b->cls]++;
		}
		total += b->ncells;
	}
	for (unsigned cls = 0; cls < GEN_NCLASSES; cls++) {
		for (unsigned char *cell = gen_free_lists.head[cls]; cell;
		     cell = *gen_cell_link(cell)) {
			const char *why = gen_old_check_pointer(cell + GEN_HDR_BYTES);
			struct gen_chunk *c;

			/* A free cell is meant to fail the check as "freed"; anything else is bad. */
			if (!why || strcmp(why, "points to a freed old-generation cell") != 0)
				return "a free list holds a cell that is not a free cell";
			c = gen_find_chunk((uintptr_t)cell);
			if (c->blocks[(cell - c->base) / GEN_BLOCK_BYTES].cls != cls)
				return "a free list holds a cell of another size class";
			if (++listed[cls] > total)
				return "a free list has a cycle";
		}
		if (listed[cls] != free_cells[cls])
			return "a free list does not hold exactly the free cells of its class";
	}
	for (struct gen_chunk *c = gen_old.chunks; c; c = c->next) {
		uint32_t nfree = 0;

		for (unsigned i = 0; i < GEN_CHUNK_BLOCKS; i++)
			nfree += c->blocks[i].cell_bytes == 0;
		if (nfree != c->nfree)
			return "a chunk's count of free blocks is wrong";
	}
	return NULL;
}
