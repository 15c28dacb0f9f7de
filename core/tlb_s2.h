/*
 * core/tlb_s2.h - translation caches at stage 2 (docs/tlb.md's model,
 * extended to a guest's stage-2 tables; stage2/ uses it).
 *
 * Each vCPU's TLB holds, tagged with the VMID:
 *   leaf entries   a block or page descriptor of some level: the IPA range
 *                  it maps translates without reading the tables;
 *   walk entries   a table descriptor of some level (the walk cache): a
 *                  walk of an IPA under it starts from the table it points
 *                  to, without reading the levels above.
 * A walk fills both. Invalidations (the TLBI the code under test issues)
 * remove entries with the scope the architecture gives them:
 *   by IPA with a level hint h   leaf entries of level h covering the IPA,
 *                                and walk entries of the levels above h
 *                                (the walk to such a leaf went through
 *                                them); a hint that is not a leaf level (or
 *                                none: TLBI_TTL_UNKNOWN) is no hint: every
 *                                entry covering the IPA, leaf or walk
 *   by IPA range                 every entry overlapping the range
 *   by VMID                      every entry of the VMID
 *   local (non-broadcast)        only the issuing vCPU's TLB
 * So a level hint that names a table's level when a table entry is zapped
 * leaves the walk-cache entry of that table (and the leaves below it) in
 * place: a later walk reads the table it points to, freed by then.
 *
 * A broadcast invalidation completes (the DSB after it) only when no walk
 * that began before it is still in flight: a walk holds the TLB's walking
 * count odd from its first read to its fill, and the invalidation waits
 * for each TLB's count to move on. A walk racing with an invalidation of
 * its TLB does not fill (the TLB's generation changed under it).
 */
#ifndef CORE_TLB_S2_H
#define CORE_TLB_S2_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define TLB_S2_MAX 64
#define TLB_S2_MAX_AGENTS 16
#define TLB_S2_NO_HINT (-100)

enum tlb_s2_kind { TLB_S2_LEAF, TLB_S2_WALK };

struct tlb_s2_entry {
	bool used;
	uint8_t kind;               /* enum tlb_s2_kind */
	int8_t level;
	uint16_t vmid;
	uint64_t ipa;               /* aligned to the level's size */
	uint64_t desc;              /* the descriptor as the walk read it */
	int page, idx;              /* where it was read: a table page and index */
	uint32_t inc;               /* that page's incarnation then */
	int child;                  /* walk entry: the table page it points to */
	uint32_t child_inc;
	uint64_t filled, last_use;  /* clock of the fill and of the last use */
};

struct tlb_s2_stats {
	uint64_t hits, walk_hits, misses, fills, discarded, invalidated;
};

struct tlb_s2 {
	struct tlb_s2_entry e[TLB_S2_MAX];
	unsigned cap;               /* 0: no TLB (every access walks from the root) */
	atomic_flag lock;
	_Atomic uint64_t gen;       /* bumped by every invalidation reaching it */
	_Atomic uint64_t walking;   /* odd while a walk is in flight */
	uint64_t clock, rng;
	struct tlb_s2_stats st;
};

/* The geometry: level L's entries map 1 << (page_shift - 3) * (4 - L) + 3. */
void tlb_s2_geometry(unsigned page_shift);

/* Attach a TLB of cap entries (at most TLB_S2_MAX) so that broadcast
 * invalidations reach it; -1 if TLB_S2_MAX_AGENTS are attached. */
int tlb_s2_attach(struct tlb_s2 *t, unsigned cap, uint64_t seed);
void tlb_s2_detach(struct tlb_s2 *t);
void tlb_s2_detach_all(void);

static inline void tlb_s2_lock(struct tlb_s2 *t)
{
	while (atomic_flag_test_and_set_explicit(&t->lock, memory_order_acquire))
		;
}
static inline void tlb_s2_unlock(struct tlb_s2 *t) { atomic_flag_clear_explicit(&t->lock, memory_order_release); }

/* Under the TLB's lock: the leaf entry translating ipa, or the deepest
 * walk entry covering it; NULL if none. */
struct tlb_s2_entry *tlb_s2_find_leaf(struct tlb_s2 *t, uint16_t vmid, uint64_t ipa);
struct tlb_s2_entry *tlb_s2_find_walk(struct tlb_s2 *t, uint16_t vmid, uint64_t ipa);

/* A walk: begin (returns the TLB's generation), fill what it read (not if
 * an invalidation reached the TLB since begin), end. */
uint64_t tlb_s2_walk_begin(struct tlb_s2 *t);
void tlb_s2_fill(struct tlb_s2 *t, uint64_t gen, const struct tlb_s2_entry *e);
void tlb_s2_walk_end(struct tlb_s2 *t);

/* Invalidations. local: only that TLB, and the completion is not
 * broadcast. Each calls on_complete (when set) once the entries are gone
 * and the walks in flight before it are over. */
void tlb_s2_inv_ipa(uint16_t vmid, uint64_t ipa, int hint, struct tlb_s2 *local);
void tlb_s2_inv_range(uint16_t vmid, uint64_t start, uint64_t size);
void tlb_s2_inv_vmid(uint16_t vmid);

/* What an invalidation covered, for the break-before-make monitor: the
 * IPA range and which levels of leaf and walk entries it removed (a bit
 * per level + 1, so level -1 is bit 0). */
struct tlb_s2_scope {
	uint64_t seq;               /* its number: invalidations issued before it and it */
	uint16_t vmid;
	uint64_t start, end;        /* end exclusive; all of the VMID: 0, ~0 */
	unsigned leaf_levels, walk_levels;
};
extern void (*tlb_s2_on_complete)(const struct tlb_s2_scope *s);
/* Broadcast invalidations issued so far: a change made when this was n is
 * covered only by an invalidation numbered above n (one issued after it;
 * one issued before it removed nothing the change left behind). */
uint64_t tlb_s2_issued(void);

#endif
