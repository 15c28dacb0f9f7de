/* core/tlb_s2.c - translation caches at stage 2 (see core/tlb_s2.h). */
#include "core/tlb_s2.h"

#include <string.h>

#include "core/rng.h"

void (*tlb_s2_on_complete)(const struct tlb_s2_scope *s);

static unsigned page_shift = 12;
static _Atomic uint64_t issued;

uint64_t tlb_s2_issued(void) { return atomic_load(&issued); }
static struct tlb_s2 *_Atomic agents[TLB_S2_MAX_AGENTS];

void tlb_s2_geometry(unsigned ps) { page_shift = ps; }

static inline uint64_t level_size(int level)
{
	return 1ULL << ((page_shift - 3) * (unsigned)(4 - level) + 3);
}

/* The levels a leaf can be at (blocks and pages): the hint is one of them
 * or it is no hint. */
static inline bool leaf_level(int level) { return level >= 1 && level <= 3; }

int tlb_s2_attach(struct tlb_s2 *t, unsigned cap, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	atomic_flag_clear(&t->lock);
	t->cap = cap < TLB_S2_MAX ? cap : TLB_S2_MAX;
	t->rng = seed;
	for (unsigned i = 0; i < TLB_S2_MAX_AGENTS; i++) {
		struct tlb_s2 *none = NULL;

		if (atomic_compare_exchange_strong(&agents[i], &none, t))
			return 0;
	}
	return -1;
}

void tlb_s2_detach(struct tlb_s2 *t)
{
	for (unsigned i = 0; i < TLB_S2_MAX_AGENTS; i++) {
		struct tlb_s2 *me = t;

		atomic_compare_exchange_strong(&agents[i], &me, NULL);
	}
}

void tlb_s2_detach_all(void)
{
	for (unsigned i = 0; i < TLB_S2_MAX_AGENTS; i++)
		atomic_store(&agents[i], NULL);
}

static bool covers(const struct tlb_s2_entry *e, uint16_t vmid, uint64_t ipa)
{
	return e->used && e->vmid == vmid && ipa - e->ipa < level_size(e->level);
}

struct tlb_s2_entry *tlb_s2_find_leaf(struct tlb_s2 *t, uint16_t vmid, uint64_t ipa)
{
	for (unsigned i = 0; i < t->cap; i++) {
		struct tlb_s2_entry *e = &t->e[i];

		if (e->kind == TLB_S2_LEAF && covers(e, vmid, ipa)) {
			e->last_use = ++t->clock;
			t->st.hits++;
			return e;
		}
	}
	return NULL;
}

struct tlb_s2_entry *tlb_s2_find_walk(struct tlb_s2 *t, uint16_t vmid, uint64_t ipa)
{
	struct tlb_s2_entry *best = NULL;

	for (unsigned i = 0; i < t->cap; i++) {
		struct tlb_s2_entry *e = &t->e[i];

		if (e->kind == TLB_S2_WALK && covers(e, vmid, ipa) && (!best || e->level > best->level))
			best = e;
	}
	if (best) {
		best->last_use = ++t->clock;
		t->st.walk_hits++;
	}
	return best;
}

uint64_t tlb_s2_walk_begin(struct tlb_s2 *t)
{
	atomic_fetch_add(&t->walking, 1);          /* odd: in flight */
	return atomic_load(&t->gen);
}

void tlb_s2_walk_end(struct tlb_s2 *t)
{
	atomic_fetch_add(&t->walking, 1);
}

void tlb_s2_fill(struct tlb_s2 *t, uint64_t gen, const struct tlb_s2_entry *n)
{
	struct tlb_s2_entry *slot = NULL;

	if (!t->cap)
		return;
	tlb_s2_lock(t);
	if (atomic_load(&t->gen) != gen) {
		t->st.discarded++;      /* an invalidation ran during the walk */
		tlb_s2_unlock(t);
		return;
	}
	for (unsigned i = 0; i < t->cap && !slot; i++) {
		struct tlb_s2_entry *e = &t->e[i];

		/* the same translation again replaces the one cached */
		if (e->used && e->kind == n->kind && e->vmid == n->vmid && e->level == n->level &&
		    e->ipa == n->ipa)
			slot = e;
	}
	for (unsigned i = 0; i < t->cap && !slot; i++)
		if (!t->e[i].used)
			slot = &t->e[i];
	if (!slot) {                /* evict: least recently used, or at random */
		slot = &t->e[0];
		if (rng_next(&t->rng) & 1) {
			slot = &t->e[rng_below(&t->rng, t->cap)];
		} else {
			for (unsigned i = 1; i < t->cap; i++)
				if (t->e[i].last_use < slot->last_use)
					slot = &t->e[i];
		}
	}
	*slot = *n;
	slot->used = true;
	slot->filled = slot->last_use = ++t->clock;
	t->st.fills++;
	tlb_s2_unlock(t);
}

/* Remove from t what the scope covers. */
static void drop(struct tlb_s2 *t, const struct tlb_s2_scope *s)
{
	tlb_s2_lock(t);
	atomic_fetch_add(&t->gen, 1);
	for (unsigned i = 0; i < t->cap; i++) {
		struct tlb_s2_entry *e = &t->e[i];
		unsigned levels = e->kind == TLB_S2_LEAF ? s->leaf_levels : s->walk_levels;

		if (e->used && e->vmid == s->vmid && (levels >> (e->level + 1) & 1) &&
		    e->ipa < s->end && s->start < e->ipa + level_size(e->level)) {
			e->used = false;
			t->st.invalidated++;
		}
	}
	tlb_s2_unlock(t);
}

/* The DSB after a broadcast TLBI: the walks in flight when it was issued
 * are over (each TLB's walking count has moved on from an odd value). */
static void wait_walks(void)
{
	uint64_t snap[TLB_S2_MAX_AGENTS];

	for (unsigned i = 0; i < TLB_S2_MAX_AGENTS; i++) {
		struct tlb_s2 *t = atomic_load(&agents[i]);

		snap[i] = t ? atomic_load(&t->walking) : 0;
	}
	for (unsigned i = 0; i < TLB_S2_MAX_AGENTS; i++) {
		struct tlb_s2 *t = atomic_load(&agents[i]);

		if (t && (snap[i] & 1))
			while (atomic_load(&t->walking) == snap[i])
				;
	}
}

static void invalidate(struct tlb_s2_scope *s, struct tlb_s2 *local)
{
	if (local) {
		drop(local, s);
		return;
	}
	s->seq = atomic_fetch_add(&issued, 1) + 1;
	for (unsigned i = 0; i < TLB_S2_MAX_AGENTS; i++) {
		struct tlb_s2 *t = atomic_load(&agents[i]);

		if (t)
			drop(t, s);
	}
	wait_walks();
	if (tlb_s2_on_complete)
		tlb_s2_on_complete(s);
}

#define ALL_LEVELS 0x1fu        /* levels -1..3 */

void tlb_s2_inv_ipa(uint16_t vmid, uint64_t ipa, int hint, struct tlb_s2 *local)
{
	struct tlb_s2_scope s = { .vmid = vmid, .start = ipa, .end = ipa + 1 };

	if (leaf_level(hint)) {
		s.leaf_levels = 1u << (hint + 1);
		s.walk_levels = (1u << (hint + 1)) - 1;     /* the levels above it */
	} else {
		s.leaf_levels = s.walk_levels = ALL_LEVELS;
	}
	invalidate(&s, local);
}

void tlb_s2_inv_range(uint16_t vmid, uint64_t start, uint64_t size)
{
	struct tlb_s2_scope s = { .vmid = vmid, .start = start, .end = start + size,
				  .leaf_levels = ALL_LEVELS, .walk_levels = ALL_LEVELS };

	invalidate(&s, NULL);
}

void tlb_s2_inv_vmid(uint16_t vmid)
{
	struct tlb_s2_scope s = { .vmid = vmid, .start = 0, .end = ~0ULL,
				  .leaf_levels = ALL_LEVELS, .walk_levels = ALL_LEVELS };

	invalidate(&s, NULL);
}
