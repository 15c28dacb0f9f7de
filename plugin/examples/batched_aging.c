/*
 * A plug-in that replaces writers only, no reader: block aging batched as
 * seed 000 posts it (docs/glossary.md, "the batched-aging patch"): the range
 * widened to whole blocks at CONT ends, AF cleared entry by entry with the
 * per-entry compare-and-swap, one TLB flush for everything cleared.
 * Kernel dialect on the kernel-tree shim (no #include lines). A file that
 * defines only writers is a subject like any other: the project fills in
 * the readers. Expected: runs clean.
 *
 *   tools/hammer --reader-file plugin/examples/batched_aging.c
 */

static pte_t *widen_to_blocks(unsigned long *start, unsigned long *end, pte_t *ptep,
			      unsigned int nr)
{
	if (pte_cont(__ptep_get(ptep + nr - 1)))
		*end = ALIGN(*end, CONT_PTE_SIZE);
	if (pte_cont(__ptep_get(ptep))) {
		*start = ALIGN_DOWN(*start, CONT_PTE_SIZE);
		ptep = contpte_align_down(ptep);
	}
	return ptep;
}

bool contpte_test_and_clear_young_ptes(struct vm_area_struct *vma, unsigned long addr,
				       pte_t *ptep, unsigned int nr)
{
	unsigned long start = addr, end = addr + nr * PAGE_SIZE;
	bool young = false;

	ptep = widen_to_blocks(&start, &end, ptep, nr);
	for (addr = start; addr != end; addr += PAGE_SIZE, ptep++)
		young |= __ptep_test_and_clear_young(vma, addr, ptep);
	return young;
}

bool contpte_clear_flush_young_ptes(struct vm_area_struct *vma, unsigned long addr,
				    pte_t *ptep, unsigned int nr)
{
	unsigned long start = addr, end = addr + nr * PAGE_SIZE;
	bool young = contpte_test_and_clear_young_ptes(vma, addr, ptep, nr);

	if (young) {
		widen_to_blocks(&start, &end, ptep, nr);
		__flush_tlb_range(vma, start, end, PAGE_SIZE, true, 3);
	}
	return young;
}
