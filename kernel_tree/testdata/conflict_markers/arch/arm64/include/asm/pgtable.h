/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test tree "conflict_markers": its asm/pgtable.h, also mid-merge (written
 * for this project, not kernel code). Expected: named by tools/hammer's
 * refusal at line 14.
 */
#ifndef __ASM_PGTABLE_H
#define __ASM_PGTABLE_H

static inline pte_t __ptep_get(pte_t *ptep)
{
	return READ_ONCE(*ptep);
}
<<<<<<< HEAD
#define pte_valid_cont(pte)	(pte_valid(pte) && pte_cont(pte))
=======
static inline bool pte_valid_cont(pte_t pte)
{
	return pte_valid(pte) && pte_cont(pte);
}
>>>>>>> 0123456789ab (arm64/mm: pte_valid_cont as a function)

#endif /* __ASM_PGTABLE_H */
