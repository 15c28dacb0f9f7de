/*
 * Test tree "v6.9" for tools/hammer --kernel-tree: an
 * arch/arm64/mm/contpte.c in the API the contpte series had when it was
 * merged (Linux v6.9), written for this project in kernel style from the
 * shared domain description. It is not kernel code. What sets it apart:
 * mm_is_user and contpte_align_down defined in the file; partial blocks
 * unfolded at the ends of a range, then the batched asm/pgtable.h helpers
 * (__clear_full_ptes, __get_and_clear_full_ptes, __wrprotect_ptes);
 * contpte_wrprotect_ptes; young clearing still per entry
 * (contpte_ptep_test_and_clear_young, contpte_ptep_clear_flush_young); no
 * MADV_FREE function yet (the project fills in
 * contpte_clear_young_dirty_ptes); readers taking pte_t *; __flush_tlb_range
 * with (last_level, tlb_level), __flush_tlb_range_nosync taking the vma; no
 * BBML2_NOABORT; the fault fix-up's no-op test on the gathered value, as
 * that generation had it. testdata/patches/v6.9_mkold_clean.patch adds the
 * MADV_FREE batching posted on this tree. Expected: runs clean.
 */

#include <linux/mm.h>
#include <linux/efi.h>
#include <linux/export.h>
#include <asm/tlbflush.h>

static inline bool mm_is_user(struct mm_struct *mm)
{
	/*
	 * Only user mappings are folded: the kernel's own and EFI's cannot
	 * take the faults a fold or unfold in progress may cause.
	 */
	if (unlikely(mm_is_efi(mm)))
		return false;
	return mm != &init_mm;
}

static inline pte_t *contpte_align_down(pte_t *ptep)
{
	return PTR_ALIGN_DOWN(ptep, sizeof(*ptep) * CONT_PTES);
}

static void contpte_try_unfold_partial(struct mm_struct *mm, unsigned long addr,
				       pte_t *ptep, unsigned int nr)
{
	/*
	 * The blocks at either end that the range covers only in part are
	 * unfolded, so that their entries may come to differ.
	 */
	if (ptep != contpte_align_down(ptep) || nr < CONT_PTES)
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));

	if (ptep + nr != contpte_align_down(ptep + nr)) {
		unsigned long last_addr = addr + (nr - 1) * PAGE_SIZE;
		pte_t *last_ptep = ptep + nr - 1;

		contpte_try_unfold(mm, last_addr, last_ptep, __ptep_get(last_ptep));
	}
}

static void contpte_convert(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, pte_t pte)
{
	struct vm_area_struct vma = TLB_FLUSH_VMA(mm, 0);
	unsigned long start_addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	pte_t *start_ptep = contpte_align_down(ptep);
	int i;

	/*
	 * Break before make: empty the block with atomic get-and-clears, which
	 * collect the access and dirty state the MMU may have set in any entry,
	 * flush it, then write every entry from pte.
	 */
	pte = pfn_pte(ALIGN_DOWN(pte_pfn(pte), CONT_PTES), pte_pgprot(pte));
	for (i = 0, ptep = start_ptep, addr = start_addr; i < CONT_PTES;
	     i++, ptep++, addr += PAGE_SIZE) {
		pte_t old = __ptep_get_and_clear(mm, addr, ptep);

		if (pte_dirty(old))
			pte = pte_mkdirty(pte);
		if (pte_young(old))
			pte = pte_mkyoung(pte);
	}

	__flush_tlb_range(&vma, start_addr, addr, PAGE_SIZE, true, 3);

	__set_ptes(mm, start_addr, start_ptep, pte, CONT_PTES);
}

void __contpte_try_fold(struct mm_struct *mm, unsigned long addr,
			pte_t *ptep, pte_t pte)
{
	unsigned long folio_start, folio_end, cont_start, cont_end;
	pte_t expected, *p;
	struct folio *folio;
	struct page *page;
	int i;

	if (!mm_is_user(mm))
		return;

	/* One folio must cover the whole block ... */
	page = pte_page(pte);
	folio = page_folio(page);
	folio_start = addr - (page - &folio->page) * PAGE_SIZE;
	folio_end = folio_start + folio_nr_pages(folio) * PAGE_SIZE;
	cont_start = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	cont_end = cont_start + CONT_PTE_SIZE;
	if (folio_start > cont_start || folio_end < cont_end)
		return;

	/* ... and its entries map consecutive pfns with one prot, access and
	 * dirty state set aside. */
	expected = pfn_pte(ALIGN_DOWN(pte_pfn(pte), CONT_PTES),
			   pte_pgprot(pte_mkold(pte_mkclean(pte))));
	for (i = 0, p = contpte_align_down(ptep); i < CONT_PTES; i++, p++) {
		if (!pte_same(pte_mkold(pte_mkclean(__ptep_get(p))), expected))
			return;
		expected = pte_advance_pfn(expected, 1);
	}

	contpte_convert(mm, addr, ptep, pte_mkcont(pte));
}
EXPORT_SYMBOL_GPL(__contpte_try_fold);

void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
			  pte_t *ptep, pte_t pte)
{
	/* The caller saw a valid CONT entry; only a user mm is ever folded. */
	if (!mm_is_user(mm))
		return;

	contpte_convert(mm, addr, ptep, pte_mknoncont(pte));
}
EXPORT_SYMBOL_GPL(__contpte_try_unfold);

pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte)
{
	int i;

	/* PTL held: only the MMU changes the block, and it only sets bits. */
	ptep = contpte_align_down(ptep);
	for (i = 0; i < CONT_PTES; i++, ptep++) {
		pte_t pte = __ptep_get(ptep);

		if (pte_dirty(pte))
			orig_pte = pte_mkdirty(orig_pte);
		if (pte_young(pte))
			orig_pte = pte_mkyoung(orig_pte);
	}

	return orig_pte;
}
EXPORT_SYMBOL_GPL(contpte_ptep_get);

pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)
{
	pgprot_t orig_prot;
	unsigned long pfn;
	pte_t orig_pte, pte;
	pte_t *ptep;
	int i;

	/*
	 * No PTL: the block may be unfolded, unmapped or remapped under us.
	 * Every entry scanned must be valid with CONT, carry the pfn that
	 * follows from the target's and the target's prot (access and dirty
	 * set aside); otherwise a writer was in the middle of something, and
	 * the whole read starts again.
	 */
retry:
	orig_pte = __ptep_get(orig_ptep);
	if (!pte_valid_cont(orig_pte))
		return orig_pte;

	orig_prot = pte_pgprot(pte_mkold(pte_mkclean(orig_pte)));
	ptep = contpte_align_down(orig_ptep);
	pfn = pte_pfn(orig_pte) - (orig_ptep - ptep);

	for (i = 0; i < CONT_PTES; i++, ptep++, pfn++) {
		pte = __ptep_get(ptep);

		if (!pte_valid_cont(pte) || pte_pfn(pte) != pfn ||
		    pgprot_val(pte_pgprot(pte_mkold(pte_mkclean(pte)))) !=
		    pgprot_val(orig_prot))
			goto retry;

		if (pte_dirty(pte))
			orig_pte = pte_mkdirty(orig_pte);
		if (pte_young(pte))
			orig_pte = pte_mkyoung(orig_pte);
	}

	return orig_pte;
}
EXPORT_SYMBOL_GPL(contpte_ptep_get_lockless);

void contpte_set_ptes(struct mm_struct *mm, unsigned long addr,
		      pte_t *ptep, pte_t pte, unsigned int nr)
{
	unsigned long next, end, pfn;
	pgprot_t prot;

	/* nr > 1 and every entry not present: nothing to unfold or flush. */
	VM_WARN_ON(nr == 1);

	if (!mm_is_user(mm)) {
		__set_ptes(mm, addr, ptep, pte, nr);
		return;
	}

	end = addr + (nr << PAGE_SHIFT);
	pfn = pte_pfn(pte);
	prot = pte_pgprot(pte);

	do {
		next = pte_cont_addr_end(addr, end);
		nr = (next - addr) >> PAGE_SHIFT;
		pte = pfn_pte(pfn, prot);

		if (((addr | next | (pfn << PAGE_SHIFT)) & ~CONT_PTE_MASK) == 0)
			pte = pte_mkcont(pte);
		else
			pte = pte_mknoncont(pte);

		__set_ptes(mm, addr, ptep, pte, nr);

		addr = next;
		ptep += nr;
		pfn += nr;
	} while (addr != end);
}
EXPORT_SYMBOL_GPL(contpte_set_ptes);

void contpte_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
			     pte_t *ptep, unsigned int nr, int full)
{
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	__clear_full_ptes(mm, addr, ptep, nr, full);
}
EXPORT_SYMBOL_GPL(contpte_clear_full_ptes);

pte_t contpte_get_and_clear_full_ptes(struct mm_struct *mm,
				      unsigned long addr, pte_t *ptep,
				      unsigned int nr, int full)
{
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	return __get_and_clear_full_ptes(mm, addr, ptep, nr, full);
}
EXPORT_SYMBOL_GPL(contpte_get_and_clear_full_ptes);

int contpte_ptep_test_and_clear_young(struct vm_area_struct *vma,
				      unsigned long addr, pte_t *ptep)
{
	int young = 0;
	int i;

	/*
	 * Asked about one page, answer for the block: core-mm ages the folio,
	 * and a block never spans two folios, so clearing the access flag of
	 * every entry saves an unfold.
	 */
	ptep = contpte_align_down(ptep);
	addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	for (i = 0; i < CONT_PTES; i++, ptep++, addr += PAGE_SIZE)
		young |= __ptep_test_and_clear_young(vma, addr, ptep);

	return young;
}
EXPORT_SYMBOL_GPL(contpte_ptep_test_and_clear_young);

int contpte_ptep_clear_flush_young(struct vm_area_struct *vma,
				   unsigned long addr, pte_t *ptep)
{
	int young = contpte_ptep_test_and_clear_young(vma, addr, ptep);

	if (young) {
		/* No wait for the flush: aging may be imprecise, never wrong. */
		addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
		__flush_tlb_range_nosync(vma, addr, addr + CONT_PTE_SIZE,
					 PAGE_SIZE, true, 3);
	}

	return young;
}
EXPORT_SYMBOL_GPL(contpte_ptep_clear_flush_young);

void contpte_wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, unsigned int nr)
{
	/*
	 * Blocks the range covers are write-protected in place, their entries
	 * differing in the write bit only until the caller's flush; a block it
	 * covers in part must be unfolded first, or it would stay half
	 * writable behind one TLB entry.
	 */
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	__wrprotect_ptes(mm, addr, ptep, nr);
}
EXPORT_SYMBOL_GPL(contpte_wrprotect_ptes);

int contpte_ptep_set_access_flags(struct vm_area_struct *vma,
				  unsigned long addr, pte_t *ptep,
				  pte_t entry, int dirty)
{
	unsigned long start_addr;
	pte_t orig_pte;
	int i;

	/*
	 * Nothing to do when the block's gathered state already is what is
	 * asked for. (This generation compared the gathered value; later
	 * trees look at each entry, since a young or dirty sibling can hide
	 * that this very entry still lacks the access flag.)
	 */
	orig_pte = pte_mknoncont(ptep_get(ptep));
	if (pte_val(orig_pte) == pte_val(entry))
		return 0;

	if (pte_write(orig_pte) == pte_write(entry)) {
		/*
		 * Same write permission: update every entry of the block, so
		 * that they stay alike, and flush the block once.
		 */
		ptep = contpte_align_down(ptep);
		start_addr = addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);

		for (i = 0; i < CONT_PTES; i++, ptep++, addr += PAGE_SIZE)
			__ptep_set_access_flags(vma, addr, ptep, entry, 0);

		if (dirty)
			__flush_tlb_range(vma, start_addr, addr, PAGE_SIZE, true, 3);
	} else {
		/* The write bit changes: unfold, then fix up the one entry. */
		__contpte_try_unfold(vma->vm_mm, addr, ptep, orig_pte);
		__ptep_set_access_flags(vma, addr, ptep, entry, dirty);
	}

	return 1;
}
EXPORT_SYMBOL_GPL(contpte_ptep_set_access_flags);
