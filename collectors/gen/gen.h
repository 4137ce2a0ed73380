/*
 * gen.h — private to the gen collector: the object header, the heap's parts and the calls
 * between its modules (gen.c: ABI, knobs, policy; gen_young.c: nursery and minor collection;
 * gen_old.c: old generation, large objects, major collection; gen_verify.c: GCR_VERIFY).
 * docs/gen.md describes the design; this header states what the code relies on.
 *
 * Invariants:
 * - Every object is preceded by one 64-bit header word (GEN_HDR_BYTES). Object pointers are
 *   8-aligned and point at slot 0; the header is at obj - 8.
 * - The young generation is one mapping [young_lo, young_hi): eden, then (when survivors age,
 *   GCR_GEN_TENURE > 1) two survivor semispaces. An object pointer p is young iff
 *   young_lo < p <= young_hi (a zero-size object at the very end points at young_hi).
 * - Young objects never carry MARK or REMEMBERED; old and large objects never carry
 *   FORWARDED. A young object's header is either a normal header or (during a minor
 *   collection only) its forwarding address | GEN_H_FORWARDED.
 * - Outside a collection, every old or large object holding a pointer to a young object is in
 *   the remembered set (REMEMBERED bit set) and, if large, the card covering that slot is
 *   dirty. The remembered set holds each object at most once (the bit dedupes).
 * - A major collection only runs right after a minor collection that promoted everything, so
 *   it never sees a young object and leaves the remembered set empty.
 * - Byte counters in the census (heap_committed_peak_bytes aside) are requested sizes,
 *   nptrs * 8 + nbytes, as in epsilon, and so is the policy's arithmetic. Outside a
 *   collection: alloc_bytes - freed_bytes == requested bytes of every object in the heap
 *   (checked by GCR_VERIFY).
 * - Nothing that decides when to collect depends on an address, a time or the environment
 *   beyond the knobs: census counters other than pauses are reproducible bit for bit.
 * - Every minor and major collection is counted once in gen_stats.triggers, under what
 *   started it: the triggers sum to minor_collections + major_collections (tests/abi).
 */
#ifndef GEN_H
#define GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcr.h"

/* ---- Object header ------------------------------------------------------------------ */

#define GEN_HDR_BYTES      8u
/*
 * Layout: nptrs in bits 0-31 and raw bytes in bits 32-55 (small objects; a large object's
 * are in its gen_los), so that the allocation fast path builds a header with one shift and
 * one or; flags in the top byte. A forwarded header is the new address | GEN_H_FORWARDED.
 */
#define GEN_H_NBYTES_SHIFT 32
#define GEN_H_NBYTES_MASK  UINT64_C(0xffffff)
#define GEN_H_AGE_SHIFT    56 /* young: minor collections survived (3 bits) */
#define GEN_H_AGE_MASK     (UINT64_C(7) << GEN_H_AGE_SHIFT)
#define GEN_H_FREE         (UINT64_C(1) << 59) /* an old-generation cell on a free list */
#define GEN_H_LARGE        (UINT64_C(1) << 60) /* lives in the large-object space */
#define GEN_H_REMEMBERED   (UINT64_C(1) << 61) /* old or large: in the remembered set */
#define GEN_H_MARK         (UINT64_C(1) << 62) /* old or large: reached in the current major */
#define GEN_H_FORWARDED    (UINT64_C(1) << 63) /* young, mid-minor: the rest is the new address */

/* Largest cell (header included) of the small-object heap; anything bigger is large. */
#define GEN_SMALL_MAX_BYTES 8192u

static inline uint64_t *gen_hdr(void *obj)
{
	return (uint64_t *)((unsigned char *)obj - GEN_HDR_BYTES);
}

static inline uint64_t gen_h_make(uint32_t nptrs, uint32_t nbytes)
{
	return (uint64_t)nptrs | ((uint64_t)nbytes << GEN_H_NBYTES_SHIFT);
}

static inline uint32_t gen_h_nptrs(uint64_t h)
{
	return (uint32_t)h;
}

static inline uint32_t gen_h_nbytes(uint64_t h)
{
	return (uint32_t)((h >> GEN_H_NBYTES_SHIFT) & GEN_H_NBYTES_MASK);
}

/* Requested size: what alloc_bytes, copied_bytes, freed_bytes... count. */
static inline uint64_t gen_requested(uint32_t nptrs, uint64_t nbytes)
{
	return (uint64_t)nptrs * sizeof(void *) + nbytes;
}

/*
 * Bytes a small object needs: header plus payload rounded up to 8. (In the old generation the
 * smallest class, 16, gives even a zero-size object the link word a free cell needs.)
 */
static inline size_t gen_cell_need(uint64_t requested)
{
	return GEN_HDR_BYTES + (size_t)((requested + 7) & ~UINT64_C(7));
}

/* ---- Shared state --------------------------------------------------------------------- */

/* The few words the allocation and barrier fast paths touch, kept together. */
struct gen_fast {
	uintptr_t cursor;           /* next free byte of eden */
	uintptr_t limit;            /* eden_end; 0 while zeal sends every allocation slow */
	uintptr_t young_base;       /* young_lo + 1: p is young iff p - young_base < young_bytes */
	uintptr_t young_bytes;      /* length of the young mapping */
	uint64_t alloc_bytes;       /* census alloc_bytes */
	uint64_t alloc_objects;     /* census alloc_objects */
	uintptr_t eden_lo, eden_hi; /* eden's part of the young mapping */
	uintptr_t eden_end;         /* where allocation stops: eden_hi - GEN_EDEN_SLACK */
};
/* gcr_alloc zeroes slot 0 of every object, even one without slots: room for that word. */
#define GEN_EDEN_SLACK 8u
extern struct gen_fast gen_fast;

static inline bool gen_is_young(const void *p)
{
	return (uintptr_t)p - gen_fast.young_base < gen_fast.young_bytes;
}

/* Knobs, read once by gcr_init. */
struct gen_knobs {
	size_t nursery_bytes;     /* GCR_NURSERY_KB: eden */
	size_t heap_budget_bytes; /* GCR_HEAP_MB: least old-gen growth between majors */
	uint64_t zeal;            /* GCR_ZEAL: 0 off, else collect every N allocations */
	uint64_t verify;          /* GCR_VERIFY: 0 off, else verify every Nth collection */
	unsigned tenure;          /* GCR_GEN_TENURE: minors survived before promotion, 1..7 */
	uint64_t max_bytes;       /* GCR_HEAP_MAX_MB: mapped heap never kept past it; 0 off */
};
extern struct gen_knobs gen_knobs;

/* Counters behind the census (those not in gen_fast). */
struct gen_stats {
	uint64_t minor_collections, major_collections;
	uint64_t copied_bytes, copied_objects;
	uint64_t promoted_bytes, promoted_objects;
	uint64_t freed_bytes, freed_objects;
	uint64_t committed_bytes, committed_peak_bytes; /* mapped heap memory */
	uint64_t used_after_full_bytes;
	bool have_full;
	uint64_t barrier_recorded;
	uint64_t pause_total_ns, pause_max_ns;
	/* Large objects allocated so far (they bypass the nursery). */
	uint64_t los_alloc_bytes, los_alloc_objects;
	/* promoted_bytes + los_alloc_bytes at the end of the last major (policy). */
	uint64_t old_bytes_at_major;
	/* Collections by what started them (gcr.h, GCR_TRIGGERS): minor + major in all. */
	uint64_t triggers[GCR_T_COUNT];
};
extern struct gen_stats gen_stats;

/* The remembered set: old and large objects that may hold young pointers. */
struct gen_remset {
	void **objs;
	size_t count, cap;
};
extern struct gen_remset gen_remset;

/* ---- gen.c ------------------------------------------------------------------------------ */

/* Allocation failure and broken invariants end here: message on stderr, then abort. */
_Noreturn void gen_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *gen_xmalloc(size_t n);
void *gen_xrealloc(void *p, size_t n);
/* mmap / munmap of heap memory, keeping committed_bytes and its peak. */
void *gen_map(size_t len, const char *what);
void gen_unmap(void *p, size_t len);
/*
 * The policy: how many bytes (requested sizes, promoted or allocated large) the old generation
 * may take after a major before the next one: max(GCR_HEAP_MB, 50% of the live bytes the last
 * major found).
 */
uint64_t gen_growth_trigger(void);
/*
 * Under GCR_HEAP_MAX_MB: makes room for a mapping of map_bytes outside a collection (a large
 * object), by a full collection if it would pass the limit, or ends the run as exhausted.
 */
void gen_limit_room(uint64_t request_bytes, uint64_t map_bytes);
/* Appends obj (already marked REMEMBERED) to the remembered set. */
void gen_remset_push(void *obj);

/* ---- gen_young.c ---------------------------------------------------------------------- */

void gen_young_init(void);
/* A minor collection; promote_all empties the young generation (before a major). */
void gen_young_collect(bool promote_all);
/* The occupied part of the survivor space holding aged objects (empty when tenure is 1). */
void gen_young_survivors(uintptr_t *lo, uintptr_t *top);

/* ---- gen_old.c ------------------------------------------------------------------------ */

/* Large-object header, just before the object's own header in its mapping. */
struct gen_los {
	struct gen_los *prev, *next;
	size_t map_bytes;
	uint64_t nbytes; /* raw bytes (the header field is too narrow) */
	uint8_t *cards;  /* a byte per 1 << GEN_CARD_SHIFT slots; 1 = may hold a young pointer */
	uint64_t ncards;
};
#define GEN_CARD_SHIFT 7 /* 128 slots (1 KiB) per card */

static inline struct gen_los *gen_los_of(void *obj)
{
	return (struct gen_los *)((unsigned char *)obj - GEN_HDR_BYTES - sizeof(struct gen_los));
}

void gen_old_init(void);
/* Cell size of the class that holds `need` bytes (8 <= need <= GEN_SMALL_MAX_BYTES). */
size_t gen_old_cell_bytes(size_t need);

/*
 * The old generation's free lists, one per size class, threaded through the free cells (the
 * link is the word after the header). Owned by gen_old.c; here so that promotion, which is
 * the only small-object allocation in the old generation, can pop a cell inline.
 */
#define GEN_NCLASSES 35
struct gen_free_lists {
	unsigned char *head[GEN_NCLASSES];
	uint8_t class_of[GEN_SMALL_MAX_BYTES / 8 + 1]; /* cell need / 8 -> class */
};
extern struct gen_free_lists gen_free_lists;

static inline unsigned char **gen_cell_link(unsigned char *cell)
{
	return (unsigned char **)(cell + GEN_HDR_BYTES);
}

/* Threads a fresh block's cells onto class cls's (empty) free list; returns the list. */
unsigned char *gen_old_refill(unsigned cls);

/* A free cell of at least `need` bytes (header included, <= GEN_SMALL_MAX_BYTES). */
static inline void *gen_old_alloc_cell(size_t need)
{
	unsigned cls = gen_free_lists.class_of[need / 8];
	unsigned char *cell = gen_free_lists.head[cls];

	if (__builtin_expect(!cell, 0))
		cell = gen_old_refill(cls);
	gen_free_lists.head[cls] = *gen_cell_link(cell);
	return cell;
}

/* A large object, slots zeroed, header written, counted in alloc_* and los_alloc_*. */
void *gen_los_alloc(uint32_t nptrs, uint32_t nbytes);
/* Mark from the shadow stack, sweep small and large objects; young gen must be empty. */
void gen_old_collect(void);

/* Verifier support: calls fn for every allocated old cell's object, then every large one. */
typedef void gen_obj_fn(void *obj, size_t cell_bytes, void *ctx); /* cell_bytes 0: large */
void gen_old_each_object(gen_obj_fn *fn, void *ctx);
/*
 * Classifies p, a would-be pointer to an old or large object: returns NULL when it is the
 * address of slot 0 of an allocated object, else a static string saying what is wrong.
 */
const char *gen_old_check_pointer(const void *p);
/* Rebuilds the address index gen_old_check_pointer uses; call before a verification. */
void gen_old_index(void);
/* Checks the free lists and block bookkeeping; returns NULL or what is wrong. */
const char *gen_old_check_free_lists(void);

/* ---- gen_verify.c --------------------------------------------------------------------- */

/* Aborts with a message if a heap invariant fails; `when` names the collection. */
void gen_verify(const char *when);

#endif /* GEN_H */
