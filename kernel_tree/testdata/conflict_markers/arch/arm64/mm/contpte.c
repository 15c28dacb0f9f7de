/*
 * Test tree "conflict_markers" for tools/hammer --kernel-tree (written for
 * this project, not kernel code): a contpte.c left in the middle of a merge,
 * with git's conflict markers around two versions of one statement, as a
 * tree pushed unresolved is found in the wild. It is not one version of the
 * code but two, so it is not a mainline-derived tree the harness can run.
 * Expected: tools/hammer exits 2 before building, naming the markers at
 * this file's line 28 and at the header's line 14.
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
	struct vm_area_struct vma = TLB_FLUSH_VMA(mm, 0);
	unsigned long start = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	pte_t *first = contpte_align_down(ptep);
	int i;

<<<<<<< HEAD
	for (i = 0; i < CONT_PTES; i++)
		__set_pte(first + i, pte_mknoncont(__ptep_get_and_clear(mm, start, first + i)));
=======
	for (i = 0; i < CONT_PTES; i++, start += PAGE_SIZE)
		__set_pte(first + i, pte_mknoncont(__ptep_get_and_clear(mm, start, first + i)));
>>>>>>> 0123456789ab (arm64/mm: step the address per entry)
	__flush_tlb_range(&vma, ALIGN_DOWN(addr, CONT_PTE_SIZE),
			  ALIGN_DOWN(addr, CONT_PTE_SIZE) + CONT_PTE_SIZE, PAGE_SIZE, true, 3);
}
EXPORT_SYMBOL_GPL(__contpte_try_unfold);
