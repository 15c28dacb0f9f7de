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
 * if INV_PENDING), or whose CONT bit differs unless BBML2_NOABORT
 * (kc_bbml2_noabort), is a bbm_violation. Only the translation matters:
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

struct bbm_entry {
	_Atomic uint32_t state;      /* enum bbm_state */
	uint64_t cur;                /* software's last value (under the PTL) */
	uint64_t old;                /* INV_PENDING: the valid value before the break */
};

/* Software stored v to entry gi (lt * ept + index) of m, under the PTL.
 * False, with out filled, on a violation. */
bool bbm_store(struct harness_mm *m, unsigned long gi, uint64_t v, struct violation *out);
/* An invalidation of entries [lo, hi) completed. */
void bbm_invalidated(struct harness_mm *m, unsigned long lo, unsigned long hi);
/* Every entry none and invalidated (hmm_create, hmm_reset). */
void bbm_reset(struct harness_mm *m);

#endif
