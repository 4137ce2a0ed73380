/*
 * gen_young.c — the young generation and minor collections.
 *
 * One mapping holds eden (bump allocation, gcr_alloc's fast path) and, when GCR_GEN_TENURE
 * is above 1, two survivor semispaces of eden/8 each. A minor collection evacuates what the
 * roots (shadow stack + remembered set) reach: an object that has now survived `tenure` minor
 * collections, or that no longer fits in the survivor to-space, or every object when the
 * caller asks to promote all, goes to the old generation; the rest is copied into the
 * survivor to-space with its age incremented.
 *
 * The scan is Cheney's breadth-first one. Because promoted copies land in free-list cells
 * scattered over the old generation, not in one contiguous to-space, the grey objects are not
 * found by a scan pointer but by a FIFO threaded through the dead from-space copies: once an
 * object is forwarded its header holds the new address and its slot 0 is free, so slot 0
 * links it to the next object to scan (objects without slots need no scan and are not
 * queued). The queue costs no memory and keeps Cheney's order.
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"

struct gen_young {
	unsigned char *map;
	size_t map_bytes;
	size_t surv_bytes; /* each survivor semispace; 0 when tenure is 1 */
	uintptr_t surv_lo[2];
	unsigned from;         /* the semispace holding the current survivors */
	uintptr_t surv_top;    /* end of the current survivors */
	uint64_t surv_objects; /* requested size and count of the current survivors */
	uint64_t surv_requested;
	/* Counters at the end of the last minor: eden's objects are those allocated since. */
	uint64_t mark_alloc_bytes, mark_alloc_objects;
	uint64_t mark_los_bytes, mark_los_objects;
};

static struct gen_young gen_young;

/* State of one minor collection. */
struct gen_minor {
	bool promote_all;
	uintptr_t to_top, to_hi;         /* survivor to-space bump */
	void **queue_head, **queue_tail; /* from-space objects to scan, linked through slot 0 */
	uint64_t surv_objects, surv_requested;
	struct gen_remset old_remset; /* the set as the barrier left it, being drained */
};

void gen_young_init(void)
{
	size_t eden = gen_knobs.nursery_bytes;

	gen_young.surv_bytes = gen_knobs.tenure > 1 ? eden / 8 : 0;
	gen_young.map_bytes = eden + 2 * gen_young.surv_bytes;
	gen_young.map = gen_map(gen_young.map_bytes, "the young generation");
	gen_young.surv_lo[0] = (uintptr_t)gen_young.map + eden;
	gen_young.surv_lo[1] = gen_young.surv_lo[0] + gen_young.surv_bytes;
	gen_young.from = 0;
	gen_young.surv_top = gen_young.surv_lo[0];

	gen_fast.eden_lo = (uintptr_t)gen_young.map;
	gen_fast.eden_hi = gen_fast.eden_lo + eden;
	gen_fast.eden_end = gen_fast.eden_hi - GEN_EDEN_SLACK;
	gen_fast.cursor = gen_fast.eden_lo;
	gen_fast.limit = gen_knobs.zeal ? 0 : gen_fast.eden_end;
	gen_fast.young_base = (uintptr_t)gen_young.map + 1;
	gen_fast.young_bytes = gen_young.map_bytes;
}

void gen_young_survivors(uintptr_t *lo, uintptr_t *top)
{
	*lo = gen_young.surv_lo[gen_young.from];
	*top = gen_young.surv_top;
}

/* Copies young object p (header h, not forwarded) out of from-space; returns the copy. */
static void *gen_copy(struct gen_minor *m, void *p, uint64_t h)
{
	uint64_t *hp = gen_hdr(p);
	uint32_t nptrs, nbytes;
	uint64_t requested, payload, age;
	uint64_t *dst;

	nptrs = gen_h_nptrs(h);
	nbytes = gen_h_nbytes(h);
	requested = gen_requested(nptrs, nbytes);
	payload = (requested + 7) & ~UINT64_C(7);
	age = ((h & GEN_H_AGE_MASK) >> GEN_H_AGE_SHIFT) + 1;

	if (!m->promote_all && age < gen_knobs.tenure &&
	    GEN_HDR_BYTES + payload <= m->to_hi - m->to_top) {
		dst = (uint64_t *)m->to_top;
		m->to_top += GEN_HDR_BYTES + payload;
		*dst = gen_h_make(nptrs, nbytes) | (age << GEN_H_AGE_SHIFT);
		m->surv_objects++;
		m->surv_requested += requested;
	} else {
		dst = gen_old_alloc_cell(gen_cell_need(requested));
		*dst = gen_h_make(nptrs, nbytes);
		gen_stats.promoted_objects++;
		gen_stats.promoted_bytes += requested;
	}
	memcpy(dst + 1, p, (size_t)payload);
	gen_stats.copied_objects++;
	gen_stats.copied_bytes += requested;
	*hp = (uint64_t)(uintptr_t)(dst + 1) | GEN_H_FORWARDED;
	if (nptrs) {
		void **q = p;

		q[0] = NULL;
		if (m->queue_tail)
			m->queue_tail[0] = q;
		else
			m->queue_head = q;
		m->queue_tail = q;
	}
	return dst + 1;
}

/* The new address of young object p, copying it the first time it is reached. */
static inline void *gen_evacuate(struct gen_minor *m, void *p)
{
	uint64_t h = *gen_hdr(p);

	if (h & GEN_H_FORWARDED)
		return (void *)(uintptr_t)(h & ~GEN_H_FORWARDED);
	return gen_copy(m, p, h);
}

/* Evacuates the targets of slots [lo, hi) of obj; returns whether any is still young. */
static bool gen_scan_slots(struct gen_minor *m, void **slots, uint64_t lo, uint64_t hi)
{
	bool young_left = false;

	for (uint64_t i = lo; i < hi; i++) {
		void *p = slots[i];

		if (gen_is_young(p)) {
			p = gen_evacuate(m, p);
			slots[i] = p;
			young_left |= gen_is_young(p);
		}
	}
	return young_left;
}

static void gen_remember(void *obj)
{
	*gen_hdr(obj) |= GEN_H_REMEMBERED;
	gen_remset_push(obj);
}

/*
 * An object from the remembered set: a small one is scanned whole, a large one card by card.
 * It stays remembered (and a card stays dirty) while it still points at a survivor.
 */
static void gen_scan_remembered(struct gen_minor *m, void *obj)
{
	uint64_t *h = gen_hdr(obj);
	uint32_t nptrs = gen_h_nptrs(*h);
	bool young_left = false;

	*h &= ~GEN_H_REMEMBERED;
	if (*h & GEN_H_LARGE) {
		struct gen_los *l = gen_los_of(obj);

		for (uint64_t c = 0; c < l->ncards; c++) {
			uint64_t lo = c << GEN_CARD_SHIFT,
			         hi = lo + (UINT64_C(1) << GEN_CARD_SHIFT);

			if (!l->cards[c])
				continue;
			if (hi > nptrs)
				hi = nptrs;
			l->cards[c] = gen_scan_slots(m, obj, lo, hi);
			young_left |= l->cards[c];
		}
	} else {
		young_left = gen_scan_slots(m, obj, 0, nptrs);
	}
	if (young_left)
		gen_remember(obj);
}

/*
 * A grey object's new copy. A promoted copy that still points at a survivor must be
 * remembered; copies are small (large objects never move), so a whole-object entry does.
 */
static void gen_scan_copy(struct gen_minor *m, void *obj)
{
	bool young_left = gen_scan_slots(m, obj, 0, gen_h_nptrs(*gen_hdr(obj)));

	if (young_left && !gen_is_young(obj))
		gen_remember(obj);
}

void gen_young_collect(bool promote_all)
{
	struct gen_minor m;
	unsigned to = gen_young.from ^ 1u;
	uint64_t eden_objects, eden_requested, before_objects, before_requested;
	uint64_t copied_objects0 = gen_stats.copied_objects;
	uint64_t copied_bytes0 = gen_stats.copied_bytes;

	memset(&m, 0, sizeof m);
	m.promote_all = promote_all;
	m.to_top = gen_young.surv_lo[to];
	m.to_hi = m.to_top + gen_young.surv_bytes;
	m.old_remset = gen_remset;
	memset(&gen_remset, 0, sizeof gen_remset);

	for (struct gcr_frame *f = gcr_roots_top; f; f = f->prev) {
		for (uint32_t i = 0; i < f->nslots; i++) {
			void **slot = f->slots[i];

			if (gen_is_young(*slot))
				*slot = gen_evacuate(&m, *slot);
		}
	}
	for (size_t i = 0; i < m.old_remset.count; i++)
		gen_scan_remembered(&m, m.old_remset.objs[i]);
	while (m.queue_head) {
		void **q = m.queue_head;

		m.queue_head = q[0];
		if (!m.queue_head)
			m.queue_tail = NULL;
		gen_scan_copy(&m, (void *)(uintptr_t)(*gen_hdr(q) & ~GEN_H_FORWARDED));
	}
	/* Keep the larger array for the next cycle; the set rarely shrinks for long. */
	if (m.old_remset.cap > gen_remset.cap && gen_remset.count == 0) {
		free(gen_remset.objs);
		gen_remset = m.old_remset;
		gen_remset.count = 0;
	} else {
		free(m.old_remset.objs);
	}

	/* Whatever was young and was not copied died here. */
	eden_objects = gen_fast.alloc_objects - gen_young.mark_alloc_objects -
	               (gen_stats.los_alloc_objects - gen_young.mark_los_objects);
	eden_requested = gen_fast.alloc_bytes - gen_young.mark_alloc_bytes -
	                 (gen_stats.los_alloc_bytes - gen_young.mark_los_bytes);
	before_objects = eden_objects + gen_young.surv_objects;
	before_requested = eden_requested + gen_young.surv_requested;
	gen_stats.freed_objects += before_objects - (gen_stats.copied_objects - copied_objects0);
	gen_stats.freed_bytes += before_requested - (gen_stats.copied_bytes - copied_bytes0);

	gen_young.from = to;
	gen_young.surv_top = m.to_top;
	gen_young.surv_objects = m.surv_objects;
	gen_young.surv_requested = m.surv_requested;
	gen_young.mark_alloc_bytes = gen_fast.alloc_bytes;
	gen_young.mark_alloc_objects = gen_fast.alloc_objects;
	gen_young.mark_los_bytes = gen_stats.los_alloc_bytes;
	gen_young.mark_los_objects = gen_stats.los_alloc_objects;
	gen_fast.cursor = gen_fast.eden_lo;
	gen_stats.minor_collections++;
}
