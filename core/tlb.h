/*
 * core/tlb.h - the translation caches of the hardware agents, and
 * break-before-make (the domain description §8, docs/tlb.md).
 *
 * Each hardware agent (a CPU or an SMMU touching pages) may have a TLB. An
 * access looks its address up there first. On a miss (or a write through a
 * cached clean translation: a permission upgrade) the agent walks the table:
 * the FEAT_HAFDBS update of AF and dirty happens in the table then (core/hw.c)
 * and the resulting descriptor is cached, a valid CONT entry as one
 * translation for its whole block. A read through a cached translation
 * writes nothing: that is why clearing AF without a flush makes aging
 * imprecise. Capacity and eviction (LRU or random) are parameters.
 *
 * Software writers invalidate through the kernel's flush helpers
 * (core/kcompat.h: __flush_tlb_range, flush_tlb_page, _nosync variants,
 * flush_tlb_mm), which reach kc_tlb_flush (core/mm.c): a flush removes the
 * range from every agent's TLB and completes at once. A _nosync one
 * (kc_tlb_flush_nosync) completes at the issuing thread's next DSB
 * (kc_dsb, or the DSB of its next synchronous flush). A walk racing with a
 * completing invalidation does not fill.
 *
 * The checks:
 *   tlb_conflict      a TLB holds two translations of one address (a CONT
 *                     block and a page of it), which arm64 may abort on,
 *                     unless the CPU has BBML2_NOABORT (--bbml2=noabort):
 *                     without BBML2 when the second is filled, on a BBML2
 *                     CPU that may abort (--bbml2=abort) when a lookup
 *                     matches both;
 *   stale_tlb_access  an access through a cached translation that grants
 *                     what the table no longer does (another output
 *                     address, an entry that is gone - its page freed -,
 *                     hardware write access taken away), after the writer
 *                     op that took it away returned: the op's change and
 *                     the flushes it (or its caller) owed are complete, so
 *                     the translation survived them (tlb_op_done marks it);
 *   cont_mismatch     a walk of a valid CONT entry whose block's valid
 *                     entries disagree on the output address, the memory
 *                     attributes, or (unless BBML2_NOABORT) the CONT bit:
 *                     the TLB may then return any of their translations or
 *                     raise a TLB conflict abort; the model picks one (its
 *                     RNG) and reports the abort, or the access that the
 *                     translation it took sends to another page;
 *   bbm_violation     (core/bbm.h, on software's stores)
 *                     a valid entry's output address, size or CONT bit
 *                     changed without first making it invalid and
 *                     completing a TLB invalidation for it (BBML2 of
 *                     either kind allows a change of the CONT bit alone).
 */
#ifndef CORE_TLB_H
#define CORE_TLB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/mm.h"
#include "core/violation.h"

#define TLB_MAX_ENTRIES 256
#define TLB_MAX_AGENTS HMM_MAX_TLBS

enum tlb_evict { TLB_EVICT_LRU, TLB_EVICT_RANDOM };

struct tlb_entry {
	bool used;
	unsigned lt;                /* the logical table walked */
	unsigned first, npages;     /* table indices covered: one, or a block */
	unsigned walked;            /* the index whose descriptor was walked */
	uint64_t pte;               /* that descriptor, as the walk left it */
	uint64_t last_use;          /* LRU */
	uint64_t fill_seq;          /* m->tlb_seq when its walk began */
	/* entries (bit i: first + i) whose table entry a completed writer op
	 * changed so that this translation grants what the table no longer
	 * does, to any access (stale_r) or to a write (stale_w): set by
	 * tlb_op_done, reported by the access that uses them */
	uint64_t stale_r[MAX_CONT_PTES / 64], stale_w[MAX_CONT_PTES / 64];
	/* entries (bit i: first + i) whose own descriptor mapped another page
	 * than this translation gives them when it was walked: the block's
	 * entries disagreed, and the TLB took this one for all of them
	 * (core/tlb.c, "the contiguous bit"); an access through it to such
	 * an entry is cont_mismatch */
	uint64_t wrong[MAX_CONT_PTES / 64];
	/* the function (core/finding.h) of the last writer op that returned
	 * leaving this translation stale or of another size than the table:
	 * what a stale_tlb_access or tlb_conflict through it names */
	const char *by_fn;
};

struct tlb_stats {
	uint64_t hits, misses, upgrades, fills, evictions, invalidated, discarded;
};

struct tlb {
	struct tlb_entry e[TLB_MAX_ENTRIES];
	unsigned cap;               /* entries; 0: no TLB (every access walks) */
	enum tlb_evict evict;
	uint64_t rng, clock;
	atomic_flag lock;           /* invalidations come from writer threads */
	_Atomic uint64_t gen;       /* bumped by every invalidation of this TLB */
	struct tlb_stats st;
};

/* What an access did. */
enum tlb_outcome {
	TLB_HIT,        /* through a cached translation: the table untouched */
	TLB_WALKED,     /* walked the table (and filled, unless raced) */
	TLB_FAULT,      /* the entry is not valid (or a write to read-only) */
	TLB_BAD,        /* a violation: *out says which */
};

/* A TLB of cap entries (at most TLB_MAX_ENTRIES), attached to m so that
 * invalidations reach it. -1 if m has TLB_MAX_AGENTS already. */
int tlb_attach(struct harness_mm *m, struct tlb *t, unsigned cap, enum tlb_evict evict,
	       uint64_t seed);
void tlb_detach(struct harness_mm *m, struct tlb *t);

/* One hardware access (write or read) to entry j of block b of logical
 * table lt, through t. */
enum tlb_outcome tlb_access(struct harness_mm *m, struct tlb *t, unsigned lt, unsigned b,
			    unsigned j, bool write, struct violation *out);

/* Remove [start, end) (virtual addresses of m) from every attached TLB
 * and complete the invalidation for break-before-make (core/bbm.h): a
 * synchronous flush (TLBI + DSB). */
void tlb_invalidate(struct harness_mm *m, unsigned long start, unsigned long end);

/* A local flush of [start, end) (local_flush_tlb_contpte, a flush with
 * TLBF_NOBROADCAST): removed from the calling thread's own TLB
 * (acc_self.tlb_local; a thread whose CPU has none in the model removes
 * nothing) and complete there, but not for break-before-make: every other
 * agent may still hold the old translations, so the entries it covers stay
 * broken-not-invalidated and what the other TLBs keep is judged as ever
 * (stale_tlb_access when it grants what the table no longer does, nothing
 * when it grants less: that costs a spurious fault). */
void tlb_invalidate_local(struct harness_mm *m, unsigned long start, unsigned long end);
/* A _nosync flush of [start, end): the TLBI issued, not completed. It is
 * recorded for the calling thread (acc_self.tlb_pend); until that thread's
 * next DSB (tlb_sync) the agents may still use the translations cached
 * before it and the break-before-make monitor keeps the entries broken
 * before it invalid-not-yet-invalidated. */
void tlb_invalidate_nosync(struct harness_mm *m, unsigned long start, unsigned long end);

/* The calling thread's DSB: completes every _nosync invalidation it
 * issued (removes from every TLB the translations cached before each, and
 * moves the entries broken before each to invalid-and-invalidated). */
void tlb_sync(void);
/* An mm is reset or freed (hmm_reset, hmm_destroy): every thread's
 * pending _nosync invalidations are forgotten. */
void tlb_forget_pending(void);

/* A writer op on entries [lo, hi) of table lt returned (under its PTL,
 * with the flushes it owes issued): every cached translation of them
 * that grants what the table no longer does survived a completed change,
 * and an access through it will be stale_tlb_access. */
void tlb_op_done(struct harness_mm *m, unsigned lt, unsigned lo, unsigned hi);

/* The modelled CPU's BBML2 kind (kc_bbml2, core/cpu.h) decides what
 * tlb_conflict and bbm_violation allow. */

#endif
