/*
 * Test tree "per_mm_page_size" for tools/hammer --kernel-tree (written for
 * this project, not kernel code): a contpte.c of a tree that changed the
 * model itself. Each mm has its own page size and block length
 * (mm_page_size(mm), cont_ptes_mm(mm)), and the MMU's page may differ from
 * the kernel's (MMUPAGE_SIZE), as some research and vendor trees do. The
 * harness has one page size, the base granule, for every mm; no shim
 * definition can stand in for these.
 * Expected: tools/hammer exits 2 naming mm_page_size and cont_ptes_mm as a
 * page size per mm and MMUPAGE_SIZE as another page size, and nothing else
 * as missing (phys_addr_t and __pte_to_phys are the shim's).
 */

#include <linux/mm.h>
#include <linux/export.h>
#include <asm/tlbflush.h>

static inline pte_t *contpte_align_down(struct mm_struct *mm, pte_t *ptep)
{
	return PTR_ALIGN_DOWN(ptep, sizeof(*ptep) * cont_ptes_mm(mm));
}

void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
			  pte_t *ptep, pte_t pte)
{
	struct vm_area_struct vma = TLB_FLUSH_VMA(mm, 0);
	unsigned long size = mm_page_size(mm) * cont_ptes_mm(mm);
	unsigned long start = ALIGN_DOWN(addr, size);
	pte_t *first = contpte_align_down(mm, ptep);
	int i;

	for (i = 0; i < cont_ptes_mm(mm); i++, start += mm_page_size(mm))
		__set_pte(first + i, pte_mknoncont(__ptep_get_and_clear(mm, start, first + i)));
	__flush_tlb_range(&vma, ALIGN_DOWN(addr, size), ALIGN_DOWN(addr, size) + size,
			  PAGE_SIZE, true, 3);
}
EXPORT_SYMBOL_GPL(__contpte_try_unfold);

/* The physical address of the entry's page as the MMU sees it. */
phys_addr_t contpte_mmu_page_phys(pte_t pte, unsigned long addr)
{
	return __pte_to_phys(pte) + (addr & (PAGE_SIZE - 1) & ~(MMUPAGE_SIZE - 1));
}
