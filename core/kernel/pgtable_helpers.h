/*
 * core/kernel/pgtable_helpers.h - the inline helpers of arm64's
 * asm/pgtable.h that are built on the per-entry primitives (which
 * core/kernel/pgtable.c defines): the batched __*_ptes the contpte code
 * calls on a range once it has dealt with the blocks at its ends, and
 * __pte_clear. Kernel dialect, on core/kcompat.h.
 *
 * One definition for both users: the project's core/kernel/contpte.c (its
 * translation unit, core/variant_tu.c, includes this after kcompat.h) and a
 * kernel tree's contpte.c, which reaches it through the kernel-tree shim's
 * <asm/pgtable.h> (kernel_tree/shim/kt_shim.h). Kept out of kcompat.h
 * because these call functions of pgtable.c, which is itself built on
 * kcompat.h.
 */
#ifndef CORE_KERNEL_PGTABLE_HELPERS_H
#define CORE_KERNEL_PGTABLE_HELPERS_H

#include "core/kcompat.h"

/* A plain store of 0: for an entry no agent updates any more, or one whose
 * access and dirty state the caller does not need (then it flushes). */
static inline void __pte_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	(void)mm;
	(void)addr;
	__set_pte(ptep, __pte(0));
}

static inline void __clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				     pte_t *ptep, unsigned int nr, int full)
{
	(void)full;
	for (; nr; nr--, ptep++, addr += PAGE_SIZE)
		__ptep_get_and_clear(mm, addr, ptep);
}

/* The first entry, with the access/dirty state of all nr OR-ed in: the
 * caller must not lose the dirtiness of what it unmaps. */
static inline pte_t __get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
					      pte_t *ptep, unsigned int nr, int full)
{
	pte_t pte = __ptep_get_and_clear(mm, addr, ptep), ent;

	(void)full;
	while (--nr) {
		ptep++;
		addr += PAGE_SIZE;
		ent = __ptep_get_and_clear(mm, addr, ptep);
		if (pte_dirty(ent))
			pte = pte_mkdirty(pte);
		if (pte_young(ent))
			pte = pte_mkyoung(pte);
	}
	return pte;
}

static inline void __wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
				    pte_t *ptep, unsigned int nr)
{
	for (; nr; nr--, ptep++, addr += PAGE_SIZE)
		__ptep_set_wrprotect(mm, addr, ptep);
}

#endif
