/*
 * Test tree "current" for tools/hammer --kernel-tree: an
 * arch/arm64/mm/contpte.c in the current arm64 API, written for this
 * project in kernel style from the shared domain description (domain.md
 * sections 3 and 4). It is not kernel code. It has what a recent tree has:
 * batched young clearing, contpte_wrprotect_ptes, contpte_clear_young_dirty_ptes,
 * readers taking const pte_t *, BBML2_NOABORT checks, TLBF_* flush flags,
 * __flush_tlb_range_nosync taking an mm, and kernel #include lines.
 * Expected: runs clean. testdata/patches/ holds mutated versions.
 */

#include <linux/mm.h>
#include <linux/efi.h>
#include <linux/export.h>
#include <asm/tlbflush.h>

static inline bool mm_is_user(struct mm_struct *mm)
{
	/* Neither the kernel's own mappings nor EFI's are ever folded. */
	if (unlikely(mm_is_efi(mm)))
		return false;
	return mm != &init_mm;
}

static inline pte_t *contpte_align_down(const pte_t *ptep)
{
	return (pte_t *)PTR_ALIGN_DOWN(ptep, sizeof(*ptep) * CONT_PTES);
}

/*
 * A range that starts or ends inside a block would leave that block's
 * entries unlike each other: unfold the blocks at the ends first.
 */
static void contpte_unfold_range_ends(struct mm_struct *mm, unsigned long addr,
				      pte_t *ptep, unsigned int nr)
{
	unsigned long end = addr + nr * PAGE_SIZE;

	if (!IS_ALIGNED(addr, CONT_PTE_SIZE))
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
	if (!IS_ALIGNED(end, CONT_PTE_SIZE))
		contpte_try_unfold(mm, end - PAGE_SIZE, ptep + nr - 1,
				   __ptep_get(ptep + nr - 1));
}

/*
 * Rewrite the block around ptep from pte, with or without CONT. Each old
 * entry is taken out with an atomic get-and-clear, so access or dirty state
 * the MMU set in any of them up to that moment ends up in the new entries.
 * Without BBML2_NOABORT the block must be seen invalid, and flushed, before
 * the new entries are written (break-before-make).
 */
static void contpte_convert(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, pte_t pte)
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

void __contpte_try_fold(struct mm_struct *mm, unsigned long addr,
			pte_t *ptep, pte_t pte)
{
	struct page *page = pte_page(pte);
	struct folio *folio = page_folio(page);
	unsigned long block = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	unsigned long folio_start, folio_end;
	pte_t expected, *first;
	unsigned int i;

	/*
	 * Fold only a block that a single folio covers completely and whose
	 * entries map consecutive pfns from an aligned start with one prot,
	 * access and dirty state set aside.
	 */
	folio_start = addr - (page - &folio->page) * PAGE_SIZE;
	folio_end = folio_start + folio_nr_pages(folio) * PAGE_SIZE;
	if (folio_start > block || folio_end < block + CONT_PTE_SIZE)
		return;

	first = contpte_align_down(ptep);
	expected = pfn_pte(ALIGN_DOWN(pte_pfn(pte), CONT_PTES),
			   pte_pgprot(pte_mkold(pte_mkclean(pte))));
	for (i = 0; i < CONT_PTES; i++) {
		pte_t cur = pte_mkold(pte_mkclean(__ptep_get(first + i)));

		if (!pte_same(cur, expected))
			return;
		expected = pte_advance_pfn(expected, 1);
	}

	contpte_convert(mm, addr, ptep, pte_mkcont(pte));
}
EXPORT_SYMBOL_GPL(__contpte_try_fold);

void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
			  pte_t *ptep, pte_t pte)
{
	/* The caller saw a valid CONT entry: rewrite the block without CONT. */
	contpte_convert(mm, addr, ptep, pte_mknoncont(pte));
}
EXPORT_SYMBOL_GPL(__contpte_try_unfold);

pte_t contpte_ptep_get(const pte_t *ptep, pte_t orig_pte)
{
	/*
	 * Under the PTL only the MMU changes the block, and it only sets
	 * access and dirty, on any entry of it: report their union, since the
	 * whole block maps one folio.
	 */
	const pte_t *p = contpte_align_down(ptep);
	unsigned int i;

	for (i = 0; i < CONT_PTES; i++, p++) {
		pte_t pte = __ptep_get(p);

		if (pte_dirty(pte))
			orig_pte = pte_mkdirty(orig_pte);
		if (pte_young(pte))
			orig_pte = pte_mkyoung(orig_pte);
	}

	return orig_pte;
}
EXPORT_SYMBOL_GPL(contpte_ptep_get);

static inline bool contpte_entry_matches(pte_t pte, unsigned long pfn, pgprot_t prot)
{
	return pte_valid_cont(pte) && pte_pfn(pte) == pfn &&
	       pgprot_val(pte_pgprot(pte_mkold(pte_mkclean(pte)))) == pgprot_val(prot);
}

pte_t contpte_ptep_get_lockless(const pte_t *orig_ptep)
{
	/*
	 * Without the PTL the block may be unfolded, unmapped or remapped
	 * while we look. Gather from a scan in which every entry still belongs
	 * to the block the target heads: valid with CONT, the pfn that follows
	 * from the target's, the target's prot with access and dirty set
	 * aside. Anything else means a writer got in the way: start again.
	 */
	const pte_t *first;
	pte_t orig_pte, pte;
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
		if (!contpte_entry_matches(pte, pfn + i, prot))
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
EXPORT_SYMBOL_GPL(contpte_ptep_get_lockless);

void contpte_set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		      pte_t pte, unsigned int nr)
{
	unsigned long end = addr + nr * PAGE_SIZE;
	unsigned long pfn = pte_pfn(pte);
	pgprot_t prot = pte_pgprot(pte);

	if (!mm_is_user(mm)) {
		__set_ptes(mm, addr, ptep, pte, nr);
		return;
	}

	/*
	 * Write the range block by block; a block the range covers end to end
	 * that maps an aligned run of pfns gets CONT straight away.
	 */
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
EXPORT_SYMBOL_GPL(contpte_set_ptes);

void contpte_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
			     pte_t *ptep, unsigned int nr, int full)
{
	contpte_unfold_range_ends(mm, addr, ptep, nr);
	__clear_full_ptes(mm, addr, ptep, nr, full);
}
EXPORT_SYMBOL_GPL(contpte_clear_full_ptes);

pte_t contpte_get_and_clear_full_ptes(struct mm_struct *mm,
				      unsigned long addr, pte_t *ptep,
				      unsigned int nr, int full)
{
	/* The caller needs the dirtiness of everything it takes down. */
	contpte_unfold_range_ends(mm, addr, ptep, nr);
	return __get_and_clear_full_ptes(mm, addr, ptep, nr, full);
}
EXPORT_SYMBOL_GPL(contpte_get_and_clear_full_ptes);

/*
 * Access and dirty state are kept per folio, so clearing them for part of a
 * block clears them for all of it: widen [*start, *end) to whole blocks at
 * an end whose entry is CONT. Returns the entry for the new start.
 */
static pte_t *contpte_widen_to_blocks(unsigned long *start, unsigned long *end,
				      pte_t *ptep, unsigned int nr)
{
	if (pte_cont(__ptep_get(ptep + nr - 1)))
		*end = ALIGN(*end, CONT_PTE_SIZE);
	if (pte_cont(__ptep_get(ptep))) {
		*start = ALIGN_DOWN(*start, CONT_PTE_SIZE);
		ptep = contpte_align_down(ptep);
	}
	return ptep;
}

bool contpte_test_and_clear_young_ptes(struct vm_area_struct *vma,
				       unsigned long addr, pte_t *ptep,
				       unsigned int nr)
{
	unsigned long start = addr, end = addr + nr * PAGE_SIZE;
	bool young = false;

	ptep = contpte_widen_to_blocks(&start, &end, ptep, nr);
	for (addr = start; addr != end; addr += PAGE_SIZE, ptep++)
		young |= __ptep_test_and_clear_young(vma, addr, ptep);

	return young;
}
EXPORT_SYMBOL_GPL(contpte_test_and_clear_young_ptes);

bool contpte_clear_flush_young_ptes(struct vm_area_struct *vma,
				    unsigned long addr, pte_t *ptep,
				    unsigned int nr)
{
	unsigned long start = addr, end = addr + nr * PAGE_SIZE;
	bool young;

	young = contpte_test_and_clear_young_ptes(vma, addr, ptep, nr);
	if (young) {
		/* One flush for everything cleared, whole blocks at the ends. */
		contpte_widen_to_blocks(&start, &end, ptep, nr);
		__flush_tlb_range_nosync(vma->vm_mm, start, end, PAGE_SIZE, 3,
					 TLBF_NOWALKCACHE);
	}

	return young;
}
EXPORT_SYMBOL_GPL(contpte_clear_flush_young_ptes);

void contpte_wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, unsigned int nr)
{
	/*
	 * A block the range covers end to end is write-protected in place:
	 * its entries differ in the write bit only while we go through them.
	 * A block the range only touches is unfolded first.
	 */
	contpte_unfold_range_ends(mm, addr, ptep, nr);
	__wrprotect_ptes(mm, addr, ptep, nr);
}
EXPORT_SYMBOL_GPL(contpte_wrprotect_ptes);

void contpte_clear_young_dirty_ptes(struct vm_area_struct *vma,
				    unsigned long addr, pte_t *ptep,
				    unsigned int nr, cydp_t flags)
{
	unsigned long start = addr, end = addr + nr * PAGE_SIZE;

	/* MADV_FREE / MADV_COLD: whole blocks, no unfold needed. */
	ptep = contpte_widen_to_blocks(&start, &end, ptep, nr);
	__clear_young_dirty_ptes(vma, start, ptep, (end - start) >> PAGE_SHIFT, flags);
}
EXPORT_SYMBOL_GPL(contpte_clear_young_dirty_ptes);

int contpte_ptep_set_access_flags(struct vm_area_struct *vma,
				  unsigned long addr, pte_t *ptep,
				  pte_t entry, int dirty)
{
	unsigned long start = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	pte_t *first = contpte_align_down(ptep);
	pte_t orig_pte = pte_mknoncont(ptep_get(ptep));
	pte_t want;
	int changed = 0;
	unsigned int i;

	/*
	 * A change of the write permission would make the block's entries
	 * differ: unfold, then fix up the one entry.
	 */
	if (pte_write(orig_pte) != pte_write(entry)) {
		__contpte_try_unfold(vma->vm_mm, addr, ptep, __ptep_get(ptep));
		return __ptep_set_access_flags(vma, addr, ptep, entry, dirty);
	}

	/*
	 * Otherwise apply the request to every entry of the block, and decide
	 * whether anything changed entry by entry: the gathered value may look
	 * up to date while this very entry still lacks AF or is read-only.
	 */
	want = pfn_pte(pte_pfn(entry) - (ptep - first), pte_pgprot(entry));
	for (i = 0; i < CONT_PTES; i++, want = pte_advance_pfn(want, 1))
		changed |= __ptep_set_access_flags(vma, start + i * PAGE_SIZE,
						   first + i, want, dirty);

	if (changed)
		__flush_tlb_range(vma, start, start + CONT_PTE_SIZE, PAGE_SIZE, 3,
				  TLBF_NOWALKCACHE);
	return changed;
}
EXPORT_SYMBOL_GPL(contpte_ptep_set_access_flags);
