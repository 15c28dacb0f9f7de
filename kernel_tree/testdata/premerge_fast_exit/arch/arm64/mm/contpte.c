/*
 * Test tree "premerge_fast_exit" for tools/hammer --kernel-tree: an
 * arch/arm64/mm/contpte.c of the contpte series as first posted, before
 * its merge (late 2023), written for this project in kernel style from the
 * shared domain description (domain.md sections 3 and 6). It is not kernel
 * code.
 *
 * The generation: core-mm still zapped one entry at a time, so process
 * exit reached the arch through ptep_get_and_clear_full(), and the series
 * gave it a fast path: with 'full' set (exit_mmap tears the whole address
 * space down), a CONT entry is taken out alone, without unfolding its
 * block, on the promise that the zap clears the rest of the block before
 * anyone looks (contpte_ptep_get_and_clear_full below, called by the
 * header's wrapper). Meanwhile the block is half none, half CONT, so the
 * locked gather skips the cleared entries. The promise does not hold when
 * a VMA ends inside the block: the zap of that VMA releases the PTL with
 * the block mixed (domain.md section 6: replaced by unfolding partial
 * blocks before the merge). Also of the time: young clearing per entry,
 * contpte_set_wrprotects(mm, addr, ptep, nr), contpte_align_down from the
 * header, (last_level, tlb_level) flushes, no batched clearing.
 * Expected: mixed_block, from a teardown one entry at a time over part of
 * a block (testdata/patches/premerge_unfold_on_exit.patch: clean).
 */

#include <linux/mm.h>
#include <linux/export.h>
#include <asm/tlbflush.h>

static void contpte_convert(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, pte_t pte)
{
	struct vm_area_struct vma = TLB_FLUSH_VMA(mm, 0);
	unsigned long start_addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	pte_t *start_ptep = contpte_align_down(ptep);
	int i;

	/*
	 * Break before make: take every entry out atomically, keeping what
	 * the MMU recorded in any of them, invalidate the range, then write
	 * the block again in its new form.
	 */
	pte = pfn_pte(ALIGN_DOWN(pte_pfn(pte), CONT_PTES), pte_pgprot(pte));
	ptep = start_ptep;
	for (i = 0, addr = start_addr; i < CONT_PTES; i++, ptep++, addr += PAGE_SIZE) {
		pte_t old = __ptep_get_and_clear(mm, addr, ptep);

		if (pte_young(old))
			pte = pte_mkyoung(pte);
		if (pte_dirty(old))
			pte = pte_mkdirty(pte);
	}

	__flush_tlb_range(&vma, start_addr, addr, PAGE_SIZE, true, 3);

	__set_ptes(mm, start_addr, start_ptep, pte, CONT_PTES);
}

void __contpte_try_fold(struct mm_struct *mm, unsigned long addr,
			pte_t *ptep, pte_t pte)
{
	pte_t *p = contpte_align_down(ptep);
	unsigned long pfn = pte_pfn(pte) - (ptep - p);
	pgprot_t prot = pte_pgprot(pte_mkold(pte_mkclean(pte)));
	int i;

	/* All present, one aligned run of pfns, one prot (AF and dirty aside). */
	if (!IS_ALIGNED(pfn, CONT_PTES))
		return;

	for (i = 0; i < CONT_PTES; i++, p++, pfn++) {
		pte_t sub = __ptep_get(p);

		if (!pte_valid(sub) || pte_cont(sub) || pte_pfn(sub) != pfn ||
		    pgprot_val(pte_pgprot(pte_mkold(pte_mkclean(sub)))) != pgprot_val(prot))
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

	/*
	 * PTL held: OR in what the MMU recorded anywhere in the block. An
	 * entry that is none was taken out by the exit fast path below while
	 * the rest of its block still waits: it has nothing to add.
	 */
	ptep = contpte_align_down(ptep);
	for (i = 0; i < CONT_PTES; i++, ptep++) {
		pte_t pte = __ptep_get(ptep);

		if (pte_none(pte))
			continue;
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
	 * No PTL: every entry must be what the target implies for it (access
	 * and dirty aside), or the block changed under us and we start over.
	 */
again:
	orig_pte = __ptep_get(orig_ptep);
	if (!pte_valid_cont(orig_pte))
		return orig_pte;

	ptep = contpte_align_down(orig_ptep);
	expect = pte_mkold(pte_mkclean(orig_pte));
	expect = pfn_pte(pte_pfn(expect) - (orig_ptep - ptep), pte_pgprot(expect));

	for (i = 0; i < CONT_PTES; i++, ptep++) {
		pte = __ptep_get(ptep);
		if (!pte_same(pte_mkold(pte_mkclean(pte)), expect))
			goto again;

		if (pte_young(pte))
			orig_pte = pte_mkyoung(orig_pte);
		if (pte_dirty(pte))
			orig_pte = pte_mkdirty(orig_pte);
		expect = pfn_pte(pte_pfn(expect) + 1, pte_pgprot(expect));
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
		count = (next - addr) >> PAGE_SHIFT;

		/* a whole aligned block is written contiguous from the start */
		if (((addr | next | (pte_pfn(pte) << PAGE_SHIFT)) & ~CONT_PTE_MASK) == 0)
			pte = pte_mkcont(pte);
		else
			pte = pte_mknoncont(pte);

		/* a block only partly rewritten is unfolded first */
		if (count != CONT_PTES)
			contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));

		__set_ptes(mm, addr, ptep, pte, count);
		pte = pfn_pte(pte_pfn(pte) + count, pte_pgprot(pte));
		ptep += count;
		addr = next;
	} while (addr != end);
}
EXPORT_SYMBOL(contpte_set_ptes);

pte_t contpte_ptep_get_and_clear_full(struct mm_struct *mm,
				      unsigned long addr, pte_t *ptep)
{
	/*
	 * Process exit: the zap will call us for every entry of the block
	 * before its TLB flush, so skip the unfold and its invalidation and
	 * take this entry out alone. The access and dirty state of the others
	 * reaches the folio through their own calls.
	 */
	return __ptep_get_and_clear(mm, addr, ptep);
}
EXPORT_SYMBOL(contpte_ptep_get_and_clear_full);

int contpte_ptep_test_and_clear_young(struct vm_area_struct *vma,
				      unsigned long addr, pte_t *ptep)
{
	unsigned long start = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	int young = 0;
	int i;

	/* The block maps one folio, aged as one: clear AF in every entry. */
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
			    pte_t *ptep, unsigned int nr)
{
	unsigned long end = addr + nr * PAGE_SIZE;
	unsigned long next;

	/*
	 * A block the range covers is write-protected in place (the caller's
	 * flush follows); one it only touches is unfolded first.
	 */
	do {
		next = pte_cont_addr_end(addr, end);
		nr = (next - addr) >> PAGE_SHIFT;

		if (nr != CONT_PTES)
			contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		__ptep_set_wrprotects(mm, addr, ptep, nr);

		addr = next;
		ptep += nr;
	} while (addr != end);
}
EXPORT_SYMBOL(contpte_set_wrprotects);

int contpte_ptep_set_access_flags(struct vm_area_struct *vma,
				  unsigned long addr, pte_t *ptep,
				  pte_t entry, int dirty)
{
	unsigned long start_addr;
	pte_t orig_pte;
	int i, changed = 0;

	orig_pte = pte_mknoncont(ptep_get(ptep));

	/*
	 * The write permission stays: every entry of the block gets the flags
	 * (entry by entry, the MMU may update any of them). It changes: unfold
	 * and change the one entry.
	 */
	if (pte_write(orig_pte) == pte_write(entry)) {
		start_addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
		entry = pfn_pte(pte_pfn(entry) - (ptep - contpte_align_down(ptep)), pte_pgprot(entry));
		ptep = contpte_align_down(ptep);

		for (i = 0; i < CONT_PTES; i++, ptep++) {
			changed |= __ptep_set_access_flags(vma, start_addr + i * PAGE_SIZE,
							   ptep, entry, 0);
			entry = pfn_pte(pte_pfn(entry) + 1, pte_pgprot(entry));
		}

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
