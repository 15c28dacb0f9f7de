/*
 * Test tree "needs_more_shim" for tools/hammer --kernel-tree (written for
 * this project, not kernel code): a contpte.c that uses a helper and a
 * constant the shim does not provide, as a tree newer than the shim might.
 * Expected: tools/hammer exits 2 and names contpte_flush_pending and
 * CONT_PTE_FLUSH_LEVEL as missing, with the compiler's message pointing at
 * this file (not at a temporary copy).
 */

#include <linux/mm.h>
#include <linux/export.h>
#include <asm/tlbflush.h>

static inline pte_t *contpte_align_down(pte_t *ptep)
{
	return PTR_ALIGN_DOWN(ptep, sizeof(*ptep) * CONT_PTES);
}

void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
			  pte_t *ptep, pte_t pte)
{
	pte_t *first = contpte_align_down(ptep);
	int i;

	for (i = 0; i < CONT_PTES; i++)
		__set_pte(first + i, pte_mknoncont(__ptep_get(first + i)));
	contpte_flush_pending(mm, ALIGN_DOWN(addr, CONT_PTE_SIZE), CONT_PTE_FLUSH_LEVEL);
}
EXPORT_SYMBOL_GPL(__contpte_try_unfold);
