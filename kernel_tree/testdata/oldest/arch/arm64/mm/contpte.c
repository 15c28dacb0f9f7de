/*
 * Test tree "oldest" for tools/hammer --kernel-tree: an
 * arch/arm64/mm/contpte.c in the oldest arm64 contpte API (the pre-merge
 * series), written for this project in kernel style from the shared domain
 * description. It is not kernel code. What sets it apart from a current
 * tree: young clearing per entry (contpte_ptep_test_and_clear_young,
 * contpte_ptep_clear_flush_young), contpte_set_wrprotects with a 'full'
 * argument, contpte_mkold_clean_ptes taking an mm, readers taking pte_t *,
 * contpte_align_down expected from a header, __flush_tlb_range with
 * (last_level, tlb_level), __flush_tlb_range_nosync taking the vma, and no
 * BBML2_NOABORT. Expected: runs clean.
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
		next = min(ALIGN(addr + 1, CONT_PTE_SIZE), end);
		count = (next - addr) / PAGE_SIZE;

		/* whole block, aligned pfns: map it contiguous from the start */
		if (((addr | next | (pte_pfn(pte) << PAGE_SHIFT)) & ~CONT_PTE_MASK) == 0)
			pte = pte_mkcont(pte);
		else
			pte = pte_mknoncont(pte);

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
	for (; nr; nr--, ptep++, addr += PAGE_SIZE)
		__ptep_get_and_clear(mm, addr, ptep);
}
EXPORT_SYMBOL(contpte_clear_full_ptes);

pte_t contpte_get_and_clear_full_ptes(struct mm_struct *mm,
				      unsigned long addr, pte_t *ptep,
				      unsigned int nr, int full)
{
	pte_t pte, tmp;

	contpte_try_unfold_partial(mm, addr, ptep, nr);
	pte = __ptep_get_and_clear(mm, addr, ptep);
	while (--nr) {
		tmp = __ptep_get_and_clear(mm, addr += PAGE_SIZE, ++ptep);
		if (pte_dirty(tmp))
			pte = pte_mkdirty(pte);
		if (pte_young(tmp))
			pte = pte_mkyoung(pte);
	}
	return pte;
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
	/*
	 * Blocks the range covers are write-protected in place; the ones it
	 * only touches are unfolded first. 'full' (fork of the whole mm) does
	 * not change what has to happen to a block.
	 */
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	for (; nr; nr--, ptep++, addr += PAGE_SIZE)
		__ptep_set_wrprotect(mm, addr, ptep);
}
EXPORT_SYMBOL(contpte_set_wrprotects);

void contpte_mkold_clean_ptes(struct mm_struct *mm, unsigned long addr,
			      pte_t *ptep, unsigned int nr)
{
	unsigned long start = addr, end = addr + nr * PAGE_SIZE;
	pte_t old, pte;

	/*
	 * MADV_FREE: access and dirty are per folio, so a block is cleaned
	 * whole. Compare-and-swap each entry: the MMU may set access or dirty
	 * at any time, and a plain store could undo that.
	 */
	if (pte_cont(__ptep_get(ptep + nr - 1)))
		end = ALIGN(end, CONT_PTE_SIZE);
	if (pte_cont(__ptep_get(ptep))) {
		start = ALIGN_DOWN(start, CONT_PTE_SIZE);
		ptep = contpte_align_down(ptep);
	}

	for (addr = start; addr != end; addr += PAGE_SIZE, ptep++) {
		pte = __ptep_get(ptep);
		do {
			old = pte;
			pte = pte_mkclean(pte_mkold(old));
			pte_val(pte) = cmpxchg_relaxed(&pte_val(*ptep), pte_val(old),
						       pte_val(pte));
		} while (pte_val(pte) != pte_val(old));
	}
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
