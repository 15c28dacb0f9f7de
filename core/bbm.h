/*
 * core/bbm.h - the break-before-make monitor (docs/tlb.md, domain §8).
 *
 * Judged on software's stores (the writers' history hook, core/oracle/
 * history.c), one state per entry (by virtual address, so a table move
 * keeps it):
 *   VALID          the entry is valid; a TLB may hold its translation
 *   INV_PENDING    made invalid; the old translation may still be cached
 *                  (no TLB invalidation of it has completed since)
 *   INV_DONE       invalid, and an invalidation covering it has completed
 * Storing a valid entry whose output address differs from the translation
 * a TLB may still hold (the current one if VALID, the one before the break
 * if INV_PENDING), or whose CONT bit differs unless the CPU has BBML2
 * of either kind (kc_bbml2, core/cpu.h), is a bbm_violation. Only the translation matters:
 * AF, dirty and permission changes do not need the break.
 */
#ifndef CORE_BBM_H
#define CORE_BBM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/mm.h"
#include "core/violation.h"

enum bbm_state { BBM_INV_DONE, BBM_VALID, BBM_INV_PENDING };

/* state: enum bbm_state in the low 2 bits; above them, for
 * BBM_INV_PENDING, m->tlb_seq at the break (a _nosync invalidation issued
 * later does not cover it: core/tlb.c) */
#define BBM_ST(x) ((unsigned)((x) & 3))
#define BBM_BRK(x) ((x) >> 2)

struct bbm_entry {
	_Atomic uint64_t state;
	uint64_t cur;                /* software's last value (under the PTL) */
	uint64_t old;                /* INV_PENDING: the valid value before the break */
};

/* Software stored v to entry gi (lt * ept + index) of m, under the PTL.
 * False, with out filled, on a violation. */
bool bbm_store(struct harness_mm *m, unsigned long gi, uint64_t v, struct violation *out);
/* An invalidation of entries [lo, hi) completed. */
void bbm_invalidated(struct harness_mm *m, unsigned long lo, unsigned long hi);
/* A _nosync invalidation of entries [lo, hi), issued as number seq
 * (m->tlb_seq after it), completed: it covers the breaks made before it. */
void bbm_invalidated_before(struct harness_mm *m, unsigned long lo, unsigned long hi,
			    uint64_t seq);
/* Every entry none and invalidated (hmm_create, hmm_reset). */
void bbm_reset(struct harness_mm *m);

#endif
