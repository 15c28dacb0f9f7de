/*
 * Test tree "oldest" for tools/hammer --kernel-tree: an
 * arch/arm64/mm/contpte.c in the API of the pre-merge postings (the contpte
 * series before it was merged for v6.9, and the MADV_FREE batching posted
 * on v6.9 before clear_young_dirty_ptes), written for this project in
 * kernel style from the shared domain description. It is not kernel code.
 * What sets it apart from a current tree: young clearing per entry
 * (contpte_ptep_test_and_clear_young, contpte_ptep_clear_flush_young),
 * contpte_set_wrprotects with a 'full' argument, contpte_mkold_clean_ptes
 * taking an mm, readers taking pte_t *, contpte_align_down expected from a
 * header, __flush_tlb_range with (last_level, tlb_level),
 * __flush_tlb_range_nosync taking the vma, no BBML2_NOABORT, and the
 * asm/pgtable.h helpers of that time: __pte_clear (mapping over live
 * entries clears and flushes them first), __ptep_set_wrprotects and
 * __mkold_clean_ptes, beside __clear_full_ptes and __get_and_clear_full_ptes.
 * Expected: runs clean.
 */

#include <linux/mm.h>
#include <linux/export.h>
#include <asm/tlbflush.h>

static void contpte_try_unfold_partial(struct mm_struct *mm, unsigned long addr,
				       pte_t *ptep, unsigned int nr)
{
	/*
	 * Entries of one block must stay alike: before a range that starts or
	 * ends in the middle of a block changes, that block is unfolded.
	 */
	if (ptep != contpte_align_down(ptep) || nr < CONT_PTES)
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));

	if (ptep + nr != contpte_align_down(ptep + nr)) {
		unsigned long last_addr = addr + (nr - 1) * PAGE_SIZE;
		pte_t *last = ptep + nr - 1;

		contpte_try_unfold(mm, last_addr, last, __ptep_get(last));
	}
}

/*
 * Entries about to be replaced while the TLB may hold them: clear them and
 * flush before anything new is written. (The harness maps only over entries
 * that are not present, so it never takes this path.)
 */
static void contpte_clear_flush_range(struct mm_struct *mm, unsigned long addr,
				      pte_t *ptep, unsigned int nr)
{
	struct vm_area_struct vma = TLB_FLUSH_VMA(mm, 0);
	unsigned long start_addr = addr;
	unsigned int i;

	for (i = 0; i < nr; i++, ptep++, addr += PAGE_SIZE)
		__pte_clear(mm, addr, ptep);
	__flush_tlb_range(&vma, start_addr, addr, PAGE_SIZE, true, 3);
}

static bool contpte_any_valid(pte_t *ptep, unsigned int nr)
{
	for (; nr; nr--, ptep++)
		if (pte_valid(__ptep_get(ptep)))
			return true;
	return false;
}

static void contpte_convert(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, pte_t pte)
{
	struct vm_area_struct vma = TLB_FLUSH_VMA(mm, 0);
	unsigned long start_addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	pte_t *start_ptep = contpte_align_down(ptep);
	int i;

	/*
	 * Break: clear every entry atomically, keeping the access and dirty
	 * state the MMU left in any of them. Flush. Make: write the block anew.
	 */
	pte = pfn_pte(ALIGN_DOWN(pte_pfn(pte), CONT_PTES), pte_pgprot(pte));
	ptep = start_ptep;
	for (i = 0, addr = start_addr; i < CONT_PTES; i++, ptep++, addr += PAGE_SIZE) {
		pte_t ptent = __ptep_get_and_clear(mm, addr, ptep);

		if (pte_dirty(ptent))
			pte = pte_mkdirty(pte);
		if (pte_young(ptent))
			pte = pte_mkyoung(pte);
	}

	__flush_tlb_range(&vma, start_addr, addr, PAGE_SIZE, true, 3);

	__set_ptes(mm, start_addr, start_ptep, pte, CONT_PTES);
}

void __contpte_try_fold(struct mm_struct *mm, unsigned long addr,
			pte_t *ptep, pte_t pte)
{
	unsigned long pfn = pte_pfn(pte) - (ptep - contpte_align_down(ptep));
	pgprot_t prot = pte_pgprot(pte_mkold(pte_mkclean(pte)));
	pte_t *p = contpte_align_down(ptep);
	int i;

	/* Every entry present, consecutive pfns from an aligned one, one prot. */
	if (!IS_ALIGNED(pfn, CONT_PTES))
		return;

	for (i = 0; i < CONT_PTES; i++, p++, pfn++) {
		pte_t subpte = __ptep_get(p);

		if (!pte_valid(subpte) || pte_cont(subpte) || pte_pfn(subpte) != pfn)
			return;
		if (pgprot_val(pte_pgprot(pte_mkold(pte_mkclean(subpte)))) != pgprot_val(prot))
			return;
	}

	contpte_convert(mm, addr, ptep, pte_mkcont(pte));
}
EXPORT_SYMBOL(__contpte_try_fold);

void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
			  pte_t *ptep, pte_t pte)
{
	contpte_convert(mm, addr, ptep, pte_mknoncont(pte));
}
EXPORT_SYMBOL(__contpte_try_unfold);

pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte)
{
	int i;

	/* PTL held: OR in the access and dirty state of the whole block. */
	ptep = contpte_align_down(ptep);
	for (i = 0; i < CONT_PTES; i++, ptep++) {
		pte_t pte = __ptep_get(ptep);

		if (pte_young(pte))
			orig_pte = pte_mkyoung(orig_pte);
		if (pte_dirty(pte))
			orig_pte = pte_mkdirty(orig_pte);
	}

	return orig_pte;
}
EXPORT_SYMBOL(contpte_ptep_get);

pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)
{
	pte_t orig_pte, expect, pte;
	pte_t *ptep;
	int i;

	/*
	 * No PTL. Compare each entry, access and dirty set aside, with what
	 * the target implies for it; any difference means the block changed
	 * under us, so read everything again.
	 */
retry:
	orig_pte = __ptep_get(orig_ptep);
	if (!pte_valid_cont(orig_pte))
		return orig_pte;

	ptep = contpte_align_down(orig_ptep);
	expect = pte_mkold(pte_mkclean(orig_pte));
	expect = pfn_pte(pte_pfn(expect) - (orig_ptep - ptep), pte_pgprot(expect));

	for (i = 0; i < CONT_PTES; i++, ptep++) {
		pte = __ptep_get(ptep);
		if (!pte_same(pte_mkold(pte_mkclean(pte)), expect))
			goto retry;

		if (pte_young(pte))
			orig_pte = pte_mkyoung(orig_pte);
		if (pte_dirty(pte))
			orig_pte = pte_mkdirty(orig_pte);
		expect = pte_advance_pfn(expect, 1);
	}

	return orig_pte;
}
EXPORT_SYMBOL(contpte_ptep_get_lockless);

void contpte_set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		      pte_t pte, unsigned int nr)
{
	unsigned long end = addr + nr * PAGE_SIZE;
	unsigned long next;
	unsigned int count;

	do {
		next = pte_cont_addr_end(addr, end);
		count = (next - addr) / PAGE_SIZE;

		/* whole block, aligned pfns: map it contiguous from the start */
		if (((addr | next | (pte_pfn(pte) << PAGE_SHIFT)) & ~CONT_PTE_MASK) == 0)
			pte = pte_mkcont(pte);
		else
			pte = pte_mknoncont(pte);

		/*
		 * A block only partly rewritten is unfolded first; live entries
		 * that a contiguous mapping replaces, or that were contiguous,
		 * are cleared and flushed before the new ones are written.
		 */
		if (count != CONT_PTES)
			contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		if (pte_valid_cont(__ptep_get(ptep)) ||
		    (pte_cont(pte) && contpte_any_valid(ptep, count)))
			contpte_clear_flush_range(mm, addr, ptep, count);

		__set_ptes(mm, addr, ptep, pte, count);
		pte = pte_advance_pfn(pte, count);
		ptep += count;
		addr = next;
	} while (addr != end);
}
EXPORT_SYMBOL(contpte_set_ptes);

void contpte_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
			     pte_t *ptep, unsigned int nr, int full)
{
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	__clear_full_ptes(mm, addr, ptep, nr, full);
}
EXPORT_SYMBOL(contpte_clear_full_ptes);

pte_t contpte_get_and_clear_full_ptes(struct mm_struct *mm,
				      unsigned long addr, pte_t *ptep,
				      unsigned int nr, int full)
{
	/* The caller needs the dirtiness of everything it takes down. */
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	return __get_and_clear_full_ptes(mm, addr, ptep, nr, full);
}
EXPORT_SYMBOL(contpte_get_and_clear_full_ptes);

int contpte_ptep_test_and_clear_young(struct vm_area_struct *vma,
				      unsigned long addr, pte_t *ptep)
{
	unsigned long start = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	int young = 0;
	int i;

	/*
	 * Young is tracked per folio, and the block maps one folio: clear the
	 * access flag of every entry, report whether any was set.
	 */
	ptep = contpte_align_down(ptep);
	for (i = 0; i < CONT_PTES; i++, ptep++, start += PAGE_SIZE)
		young |= __ptep_test_and_clear_young(vma, start, ptep);

	return young;
}
EXPORT_SYMBOL(contpte_ptep_test_and_clear_young);

int contpte_ptep_clear_flush_young(struct vm_area_struct *vma,
				   unsigned long addr, pte_t *ptep)
{
	int young = contpte_ptep_test_and_clear_young(vma, addr, ptep);

	if (young) {
		addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
		__flush_tlb_range_nosync(vma, addr, addr + CONT_PTE_SIZE,
					 PAGE_SIZE, true, 3);
	}

	return young;
}
EXPORT_SYMBOL(contpte_ptep_clear_flush_young);

void contpte_set_wrprotects(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, unsigned int nr, int full)
{
	unsigned long end = addr + nr * PAGE_SIZE;
	unsigned long next;

	/*
	 * Block by block: one the range covers is write-protected in place,
	 * one it only touches is unfolded first. 'full' (fork of the whole
	 * mm) does not change what has to happen to a block.
	 */
	do {
		next = pte_cont_addr_end(addr, end);
		nr = (next - addr) >> PAGE_SHIFT;

		if (nr != CONT_PTES)
			contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		__ptep_set_wrprotects(mm, addr, ptep, nr, full);

		addr = next;
		ptep += nr;
	} while (addr != end);
}
EXPORT_SYMBOL(contpte_set_wrprotects);

void contpte_mkold_clean_ptes(struct mm_struct *mm, unsigned long addr,
			      pte_t *ptep, unsigned int nr)
{
	/*
	 * MADV_FREE: blocks the range covers are made old and clean in place
	 * (entry by entry, by compare-and-swap: the MMU may set access or
	 * dirty at any time); a block it only touches is unfolded first.
	 */
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	__mkold_clean_ptes(mm, addr, ptep, nr);
}
EXPORT_SYMBOL(contpte_mkold_clean_ptes);

int contpte_ptep_set_access_flags(struct vm_area_struct *vma,
				  unsigned long addr, pte_t *ptep,
				  pte_t entry, int dirty)
{
	unsigned long start_addr;
	pte_t orig_pte;
	int i, changed = 0;

	orig_pte = pte_mknoncont(ptep_get(ptep));

	/*
	 * Same write permission: apply the flags to all entries of the block,
	 * so they stay alike. Otherwise unfold and change the one entry.
	 */
	if (pte_write(orig_pte) == pte_write(entry)) {
		start_addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
		entry = pte_advance_pfn(entry, -(unsigned long)(ptep - contpte_align_down(ptep)));
		ptep = contpte_align_down(ptep);

		for (i = 0; i < CONT_PTES; i++, ptep++, entry = pte_advance_pfn(entry, 1))
			changed |= __ptep_set_access_flags(vma, start_addr + i * PAGE_SIZE,
							   ptep, entry, 0);

		if (changed && dirty)
			__flush_tlb_range(vma, start_addr, start_addr + CONT_PTE_SIZE,
					  PAGE_SIZE, true, 3);
	} else {
		__contpte_try_unfold(vma->vm_mm, addr, ptep, orig_pte);
		changed = __ptep_set_access_flags(vma, addr, ptep, entry, dirty);
	}

	return changed;
}
EXPORT_SYMBOL(contpte_ptep_set_access_flags);
