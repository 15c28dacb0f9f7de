/*
 * A plug-in written as code from a kernel tree's arch/arm64/mm/contpte.c is
 * written (the fold, the lockless reader, mapping, unmapping and
 * write-protecting whole ranges), calling the helpers such a file gets from
 * its kernel headers without defining any of them: contpte_align_down and
 * mm_is_user (which older trees took from asm/pgtable.h), pte_cont_addr_end,
 * pte_page, page_folio, folio_nr_pages, TLB_FLUSH_VMA, __flush_tlb_range
 * with TLBF_* flags, system_supports_bbml2_noabort, __get_and_clear_full_ptes
 * and __wrprotect_ptes. A plug-in file sees what a kernel tree's contpte.c
 * sees (the kernel-tree shim), so code taken from a tree builds as it is.
 * Written for this project from the shared domain description; not kernel
 * code. Expected: runs clean.
 *
 *   tools/hammer --reader-file plugin/examples/kernel_helpers.c
 */

/*
 * Rewrite the block around ptep from pte, with or without CONT: take every
 * entry out with an atomic get-and-clear (keeping the access and dirty
 * state the MMU left in any of them), flush unless the CPU may change CONT
 * in place (BBML2_NOABORT), then write the block anew.
 */
static void convert_block(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	struct vm_area_struct vma = TLB_FLUSH_VMA(mm, 0);
	unsigned long start = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	pte_t *first = contpte_align_down(ptep);
	unsigned int i;

	pte = pfn_pte(ALIGN_DOWN(pte_pfn(pte), CONT_PTES), pte_pgprot(pte));
	for (i = 0; i < CONT_PTES; i++) {
		pte_t old = __ptep_get_and_clear(mm, start + i * PAGE_SIZE, first + i);

		if (pte_young(old))
			pte = pte_mkyoung(pte);
		if (pte_dirty(old))
			pte = pte_mkdirty(pte);
	}
	if (!system_supports_bbml2_noabort())
		__flush_tlb_range(&vma, start, start + CONT_PTE_SIZE, PAGE_SIZE, 3,
				  TLBF_NOWALKCACHE);
	__set_ptes(mm, start, first, pte, CONT_PTES);
}

void __contpte_try_fold(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	struct page *page = pte_page(pte);
	struct folio *folio = page_folio(page);
	unsigned long block = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	unsigned long folio_start = addr - (page - &folio->page) * PAGE_SIZE;
	pte_t expected, *first = contpte_align_down(ptep);
	unsigned int i;

	/* One folio covers the block; consecutive pfns from an aligned one,
	 * one prot with access and dirty set aside. */
	if (!mm_is_user(mm) || folio_start > block ||
	    folio_start + folio_nr_pages(folio) * PAGE_SIZE < block + CONT_PTE_SIZE)
		return;
	expected = pfn_pte(ALIGN_DOWN(pte_pfn(pte), CONT_PTES),
			   pte_pgprot(pte_mkold(pte_mkclean(pte))));
	for (i = 0; i < CONT_PTES; i++, expected = pte_advance_pfn(expected, 1))
		if (!pte_same(pte_mkold(pte_mkclean(__ptep_get(first + i))), expected))
			return;
	convert_block(mm, addr, ptep, pte_mkcont(pte));
}

void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	if (mm_is_user(mm))
		convert_block(mm, addr, ptep, pte_mknoncont(pte));
}

/* Gather only from a scan in which every entry still belongs to the block
 * the target heads; anything else means a writer got in the way. */
pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)
{
	pte_t orig_pte, pte, *first;
	unsigned long pfn;
	pgprot_t prot;
	bool young, dirty;
	unsigned int i;

again:
	orig_pte = __ptep_get(orig_ptep);
	if (!pte_valid_cont(orig_pte))
		return orig_pte;
	first = contpte_align_down(orig_ptep);
	prot = pte_pgprot(pte_mkold(pte_mkclean(orig_pte)));
	pfn = pte_pfn(orig_pte) - (orig_ptep - first);
	young = dirty = false;
	for (i = 0; i < CONT_PTES; i++) {
		pte = __ptep_get(first + i);
		if (!pte_valid_cont(pte) || pte_pfn(pte) != pfn + i ||
		    pgprot_val(pte_pgprot(pte_mkold(pte_mkclean(pte)))) != pgprot_val(prot))
			goto again;
		young |= pte_young(pte);
		dirty |= pte_dirty(pte);
	}
	if (young)
		orig_pte = pte_mkyoung(orig_pte);
	if (dirty)
		orig_pte = pte_mkdirty(orig_pte);
	return orig_pte;
}

/* From not-present entries: a block the range covers end to end, on an
 * aligned run of pfns, gets CONT straight away. */
void contpte_set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte,
		      unsigned int nr)
{
	unsigned long end = addr + nr * PAGE_SIZE, pfn = pte_pfn(pte);
	pgprot_t prot = pte_pgprot(pte);

	if (!mm_is_user(mm)) {
		__set_ptes(mm, addr, ptep, pte, nr);
		return;
	}
	while (addr != end) {
		unsigned long next = pte_cont_addr_end(addr, end);
		unsigned int n = (next - addr) >> PAGE_SHIFT;
		pte_t run = pfn_pte(pfn, prot);

		if (IS_ALIGNED(addr | next | (pfn << PAGE_SHIFT), CONT_PTE_SIZE))
			run = pte_mkcont(run);
		else
			run = pte_mknoncont(run);
		__set_ptes(mm, addr, ptep, run, n);
		addr = next;
		ptep += n;
		pfn += n;
	}
}

/* A block the range only partly covers is unfolded before its entries
 * start to differ; blocks it covers whole are changed in place. */
static void unfold_range_ends(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			      unsigned int nr)
{
	if (ptep != contpte_align_down(ptep) || nr < CONT_PTES)
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
	if (ptep + nr != contpte_align_down(ptep + nr))
		contpte_try_unfold(mm, addr + (nr - 1) * PAGE_SIZE, ptep + nr - 1,
				   __ptep_get(ptep + nr - 1));
}

pte_t contpte_get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
				      unsigned int nr, int full)
{
	unfold_range_ends(mm, addr, ptep, nr);
	return __get_and_clear_full_ptes(mm, addr, ptep, nr, full);
}

void contpte_wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			    unsigned int nr)
{
	unfold_range_ends(mm, addr, ptep, nr);
	__wrprotect_ptes(mm, addr, ptep, nr);
}
