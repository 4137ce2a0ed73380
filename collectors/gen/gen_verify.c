/*
 * gen_verify.c — GCR_VERIFY=1: after every collection, walk the whole heap and abort with a
 * message at the first broken invariant (gen.h lists them). Slow by design: it exists to
 * catch a collector bug at the collection that caused it, not three collections later.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

struct gen_vctx {
	const char *when;
	uint64_t objects, requested; /* everything found in the heap */
	uint64_t remembered;         /* objects carrying the REMEMBERED bit */
	uint8_t *young_starts;       /* one bit per 8 bytes of the young mapping: a live object */
	uintptr_t young_lo;
};

static bool gen_v_young_start(const struct gen_vctx *v, const void *p)
{
	uintptr_t k = ((uintptr_t)p - v->young_lo) / 8;

	return ((uintptr_t)p & 7) == 0 && (v->young_starts[k / 8] >> (k % 8) & 1);
}

/* What is wrong with p as a pointer held in a slot or a root, or NULL if nothing. */
static const char *gen_v_pointer(const struct gen_vctx *v, const void *p)
{
	if (!p)
		return NULL;
	if (gen_is_young(p)) {
		if ((uintptr_t)p <= gen_fast.eden_hi)
			return "points into eden, which a collection leaves empty";
		if (!gen_v_young_start(v, p))
			return "points into the survivor space but not at a live survivor";
		return NULL;
	}
	return gen_old_check_pointer(p);
}

static void gen_v_slots(struct gen_vctx *v, void *obj, const char *kind)
{
	uint64_t h = *gen_hdr(obj);
	uint32_t n = gen_h_nptrs(h);
	void **slots = obj;

	for (uint32_t i = 0; i < n; i++) {
		const char *why = gen_v_pointer(v, slots[i]);

		if (why)
			gen_fatal("GCR_VERIFY failed after %s: %s object %p slot %" PRIu32
			          " (of %" PRIu32 ") = %p %s",
			          v->when, kind, obj, i, n, slots[i], why);
		if (!gen_is_young(slots[i]) || gen_is_young(obj))
			continue;
		/* An old-to-young pointer: the barrier (or the last minor) must have recorded it. */
		if (!(h & GEN_H_REMEMBERED))
			gen_fatal("GCR_VERIFY failed after %s: %s object %p slot %" PRIu32
			          " points into the young generation (%p) but the object is not in "
			          "the remembered set",
			          v->when, kind, obj, i, slots[i]);
		if ((h & GEN_H_LARGE) && !gen_los_of(obj)->cards[i >> GEN_CARD_SHIFT])
			gen_fatal("GCR_VERIFY failed after %s: large object %p slot %" PRIu32
			          " points into the young generation (%p) but its card is clean",
			          v->when, obj, i, slots[i]);
	}
}

static void gen_v_old_header(void *obj, size_t cell_bytes, void *ctx)
{
	struct gen_vctx *v = ctx;
	uint64_t h = *gen_hdr(obj);
	uint64_t requested;
	const char *why = NULL;

	if (h & (GEN_H_FORWARDED | GEN_H_MARK | GEN_H_FREE | GEN_H_AGE_MASK))
		why = "carries a forwarding, mark, free or age bit";
	else if ((cell_bytes == 0) != ((h & GEN_H_LARGE) != 0))
		why = "has a LARGE bit that disagrees with where it lives";
	else if (cell_bytes && gen_old_cell_bytes(gen_cell_need(
	                           gen_requested(gen_h_nptrs(h), gen_h_nbytes(h)))) != cell_bytes)
		why = "has a size that does not match its cell's size class";
	else if (!cell_bytes && gen_h_nbytes(h) != 0)
		why = "is large but has raw bytes in its header";
	if (why)
		gen_fatal("GCR_VERIFY failed after %s: old object %p header 0x%016" PRIx64 " %s",
		          v->when, obj, h, why);
	requested =
	    gen_requested(gen_h_nptrs(h), cell_bytes ? gen_h_nbytes(h) : gen_los_of(obj)->nbytes);
	v->objects++;
	v->requested += requested;
	v->remembered += (h & GEN_H_REMEMBERED) != 0;
}

static void gen_v_old_slots(void *obj, size_t cell_bytes, void *ctx)
{
	gen_v_slots(ctx, obj, cell_bytes ? "old" : "large");
}

/* Walks the survivors: headers first (and the map of where they start), then their slots. */
static void gen_v_survivors(struct gen_vctx *v, bool slots)
{
	uintptr_t lo, top, a;

	gen_young_survivors(&lo, &top);
	for (a = lo; a < top;) {
		uint64_t h = *(uint64_t *)a;
		uint64_t age = (h & GEN_H_AGE_MASK) >> GEN_H_AGE_SHIFT;
		uint64_t requested = gen_requested(gen_h_nptrs(h), gen_h_nbytes(h));
		void *obj = (void *)(a + GEN_HDR_BYTES);
		uintptr_t k = ((uintptr_t)obj - v->young_lo) / 8;

		if ((h & (GEN_H_FORWARDED | GEN_H_MARK | GEN_H_REMEMBERED | GEN_H_LARGE |
		          GEN_H_FREE)) ||
		    age < 1 || age >= gen_knobs.tenure ||
		    gen_cell_need(requested) > GEN_SMALL_MAX_BYTES ||
		    a + GEN_HDR_BYTES + ((requested + 7) & ~UINT64_C(7)) > top)
			gen_fatal("GCR_VERIFY failed after %s: survivor at %p has a malformed "
			          "header 0x%016" PRIx64,
			          v->when, obj, h);
		if (slots) {
			gen_v_slots(v, obj, "survivor");
		} else {
			v->young_starts[k / 8] |= (uint8_t)(1u << (k % 8));
			v->objects++;
			v->requested += requested;
		}
		a += GEN_HDR_BYTES + ((requested + 7) & ~UINT64_C(7));
	}
}

static void gen_v_remset(struct gen_vctx *v)
{
	if (gen_remset.count != v->remembered)
		gen_fatal("GCR_VERIFY failed after %s: the remembered set holds %zu objects but "
		          "%" PRIu64 " carry the REMEMBERED bit",
		          v->when, gen_remset.count, v->remembered);
	/* Clearing each entry's bit on the way exposes an entry listed twice. */
	for (size_t i = 0; i < gen_remset.count; i++) {
		void *obj = gen_remset.objs[i];
		const char *why = gen_is_young(obj) ? "is young" : gen_old_check_pointer(obj);

		if (!why && !(*gen_hdr(obj) & GEN_H_REMEMBERED))
			why = "is listed twice or lacks the REMEMBERED bit";
		if (why)
			gen_fatal("GCR_VERIFY failed after %s: remembered-set entry %zu (%p) %s",
			          v->when, i, obj, why);
		*gen_hdr(obj) &= ~GEN_H_REMEMBERED;
	}
	for (size_t i = 0; i < gen_remset.count; i++)
		*gen_hdr(gen_remset.objs[i]) |= GEN_H_REMEMBERED;
}

/* Kept between verifications, all zero outside one: zeal verifies thousands of times. */
static uint8_t *gen_v_bitmap;

void gen_verify(const char *when)
{
	struct gen_vctx v;
	uintptr_t surv_lo, surv_top;
	const char *why;

	if (!gen_v_bitmap) {
		gen_v_bitmap = gen_xmalloc(gen_fast.young_bytes / 64 + 1);
		memset(gen_v_bitmap, 0, gen_fast.young_bytes / 64 + 1);
	}
	memset(&v, 0, sizeof v);
	v.when = when;
	v.young_lo = gen_fast.young_base - 1;
	v.young_starts = gen_v_bitmap;
	gen_old_index();

	if (gen_fast.cursor != gen_fast.eden_lo)
		gen_fatal("GCR_VERIFY failed after %s: eden is not empty", when);
	gen_v_survivors(&v, false);
	gen_old_each_object(gen_v_old_header, &v);
	gen_v_survivors(&v, true);
	gen_old_each_object(gen_v_old_slots, &v);
	gen_v_remset(&v);

	for (struct gcr_frame *f = gcr_roots_top; f; f = f->prev) {
		for (uint32_t i = 0; i < f->nslots; i++) {
			why = gen_v_pointer(&v, *f->slots[i]);
			if (why)
				gen_fatal("GCR_VERIFY failed after %s: root %p (slot %" PRIu32
				          " of a frame) = %p %s",
				          when, (void *)f->slots[i], i, *f->slots[i], why);
		}
	}
	why = gen_old_check_free_lists();
	if (why)
		gen_fatal("GCR_VERIFY failed after %s: %s", when, why);

	/* The census must add up: what was allocated and not freed is exactly what is here. */
	if (v.objects != gen_fast.alloc_objects - gen_stats.freed_objects ||
	    v.requested != gen_fast.alloc_bytes - gen_stats.freed_bytes)
		gen_fatal("GCR_VERIFY failed after %s: the heap holds %" PRIu64 " objects, %" PRIu64
		          " bytes, but the census says %" PRIu64 " allocated - %" PRIu64
		          " freed objects, %" PRIu64 " - %" PRIu64 " bytes",
		          when, v.objects, v.requested, gen_fast.alloc_objects,
		          gen_stats.freed_objects, gen_fast.alloc_bytes, gen_stats.freed_bytes);
	if (gen_stats.promoted_objects > gen_stats.copied_objects ||
	    gen_stats.committed_bytes > gen_stats.committed_peak_bytes)
		gen_fatal("GCR_VERIFY failed after %s: census counters disagree (promoted > copied "
		          "or committed > its peak)",
		          when);
	/* Clear the bits the survivors set: object pointers lie in (surv_lo, surv_top]. */
	gen_young_survivors(&surv_lo, &surv_top);
	if (surv_top > surv_lo)
		memset(gen_v_bitmap + (surv_lo - v.young_lo) / 64, 0,
		       (surv_top - v.young_lo) / 64 - (surv_lo - v.young_lo) / 64 + 1);
}
