/*
 * core/kernel/contpte.c - the project's model of arch/arm64/mm/contpte.c:
 * fold/unfold, block-wide writers and the two gathering readers, written
 * from the domain description §3-4 (docs/glossary.md) in kernel dialect on core/kcompat.h.
 *
 * CONTPTE_EARLY_EXIT=1 builds the early-exit patch's variant of the readers: stop
 * scanning once both dirty and young have been gathered from scanned (and,
 * lockless, checked) entries, asked at checkpoints (below). MUTANT(name)
 * marks the planted bugs of core/kernel/mutants.def.
 */

static inline pte_t *contpte_align_down(pte_t *ptep)
{
	return PTR_ALIGN_DOWN(ptep, sizeof(*ptep) * CONT_PTES);
}

/*
 * The planted unfold_per_entry: "flush only the page we rewrite". Gather
 * the block's access and dirty state, then break, flush and rewrite one
 * entry at a time. Each entry alone keeps break-before-make, but while it
 * runs the block holds CONT and non-CONT entries at once, which the
 * architecture does not allow while a walker may use the block.
 */
static void contpte_unfold_per_entry(struct mm_struct *mm, unsigned long start,
				     pte_t *first, pte_t pte)
{
	struct vm_area_struct vma = TLB_FLUSH_VMA(mm, 0);
	unsigned long addr;
	pte_t ent;
	int i;

	for (i = 0; i < CONT_PTES; i++) {
		ent = __ptep_get(first + i);
		if (pte_dirty(ent))
			pte = pte_mkdirty(pte);
		if (pte_young(ent))
			pte = pte_mkyoung(pte);
	}
	for (i = 0; i < CONT_PTES; i++) {
		addr = start + i * PAGE_SIZE;
		ent = __ptep_get_and_clear(mm, addr, first + i);
		__flush_tlb_range(&vma, addr, addr + PAGE_SIZE, PAGE_SIZE, true, 3);
		if (pte_dirty(ent))
			pte = pte_mkdirty(pte);
		if (pte_young(ent))
			pte = pte_mkyoung(pte);
		__set_ptes(mm, addr, first + i, pte_advance_pfn(pte, i), 1);
	}
}

/*
 * Rewrite a whole block ("break before make"): clear every entry with an
 * atomic get-and-clear, collecting access/dirty state that hardware may
 * have put in any of them, flush, then write all entries from pte (with or
 * without CONT). Clearing first is what makes the gathered state complete.
 */
static void contpte_convert(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, pte_t pte)
{
	struct vm_area_struct vma = TLB_FLUSH_VMA(mm, 0);
	pte_t *target = ptep, *first = contpte_align_down(ptep);
	unsigned long start = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	pte_t ent;
	int i;

	pte = pfn_pte(ALIGN_DOWN(pte_pfn(pte), CONT_PTES), pte_pgprot(pte));
	if (MUTANT(unfold_per_entry) && !pte_cont(pte)) {
		contpte_unfold_per_entry(mm, start, first, pte);
		return;
	}
	for (i = 0, ptep = first; i < CONT_PTES; i++, ptep++) {
		if (MUTANT(fold_no_clear) && pte_cont(pte))
			ent = __ptep_get(ptep);
		else
			ent = __ptep_get_and_clear(mm, start + i * PAGE_SIZE, ptep);
		if (MUTANT(convert_drops_bits) && ptep != target)
			continue;
		if (pte_dirty(ent))
			pte = pte_mkdirty(pte);
		if (pte_young(ent))
			pte = pte_mkyoung(pte);
	}
	if (!system_supports_bbml2_noabort() && !MUTANT(convert_no_flush)) {
		if (MUTANT(convert_no_dsb))   /* the TLBI, not the DSB that completes it */
			__flush_tlb_range_nosync(&vma, start, start + CONT_PTE_SIZE, PAGE_SIZE, true, 3);
		else
			__flush_tlb_range(&vma, start, start + CONT_PTE_SIZE, PAGE_SIZE, true, 3);
	}
	__set_ptes(mm, start, first, pte, CONT_PTES - (MUTANT(fold_leaves_last) && pte_cont(pte)));
}

/* Entries may be folded only if all are valid, map one naturally aligned
 * physically contiguous range, and agree on prot ignoring young/dirty. */
void __contpte_try_fold(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	pte_t *first = contpte_align_down(ptep);
	unsigned long pfn = pte_pfn(pte) - (ptep - first);
	pgprot_t prot = pte_pgprot(pte_mkold(pte_mkclean(pte)));
	int i;

	if (!IS_ALIGNED(pfn, CONT_PTES))
		return;
	for (i = 0; i < CONT_PTES; i++, pfn++) {
		pte_t ent = __ptep_get(first + i);

		if (!pte_valid(ent) || pte_cont(ent) || pte_pfn(ent) != pfn ||
		    pgprot_val(pte_pgprot(pte_mkold(pte_mkclean(ent)))) != pgprot_val(prot))
			return;
	}
	contpte_convert(mm, addr, ptep, pte_mkcont(pte));
}

void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	contpte_convert(mm, addr, ptep, pte_mknoncont(pte));
}

/* Unfold the blocks at either end that [addr, addr + nr pages) only
 * partly covers, before entries of those blocks start to differ. */
static void contpte_try_unfold_partial(struct mm_struct *mm, unsigned long addr,
				       pte_t *ptep, unsigned int nr)
{
	if (MUTANT(unmap_no_unfold))
		return;
	if (ptep != contpte_align_down(ptep) || nr < CONT_PTES)
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
	if (ptep + nr != contpte_align_down(ptep + nr)) {
		unsigned long last_addr = addr + PAGE_SIZE * (nr - 1);
		pte_t *last_ptep = ptep + nr - 1;

		contpte_try_unfold(mm, last_addr, last_ptep, __ptep_get(last_ptep));
	}
}

/* ---- readers ----------------------------------------------------------- */

/*
 * The early exit (the early-exit patch, docs/glossary.md) stops scanning once
 * both dirty and young are known, but asks only at checkpoints, each four
 * times the last and the last at CONT_PTES: after 1 and 4 entries at 4K, 2
 * and 8 at 64K, 2, 8 and 32 at 16K. Between checkpoints it gathers exactly
 * as the baseline does, with no test per entry: where it cannot exit (no
 * entry dirty, or none young) it costs the baseline's instructions plus 2-3
 * tests per read; where it can, it reads fewer than four times the entries
 * a test per entry would, and one or two when the first entry is dirty and
 * young. The checkpoint loop is unrolled, so each stretch is a loop with a
 * constant trip count, as the baseline's is. A test per entry (the seed's
 * shape) costs a compare and a branch on every entry: 20-35% more
 * instructions than clang's unrolled branch-free baseline when it cannot
 * exit (docs/results.md, seed 002).
 */
#define CONTPTE_EE_FIRST_CHECK (__builtin_ctz(CONT_PTES) % 2 ? 2 : 1)
#define CONTPTE_EE_GROWTH 4
#define contpte_ee_checkpoints _Pragma("GCC unroll 8")

/* Under the PTL: nothing but hardware changes the block, and hardware only
 * sets bits, so OR-ing the block's access/dirty state is all there is. */
pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte)
{
	bool dirty = false, young = false;
	pte_t pte;
	int i, check;

	ptep = contpte_align_down(ptep);
	if (CONTPTE_EARLY_EXIT) {
		contpte_ee_checkpoints
		for (i = 0, check = CONTPTE_EE_FIRST_CHECK; check <= CONT_PTES;
		     check *= CONTPTE_EE_GROWTH) {
			for (; i < check; i++, ptep++) {
				pte = __ptep_get(ptep);
				dirty |= pte_dirty(pte);
				young |= pte_young(pte);
				if (MUTANT(ee_stop_on_first) && (dirty || young))
					goto gathered;
			}
			if (dirty & young)
				break;
		}
		goto gathered;
	}
	for (i = 0; i < CONT_PTES; i++, ptep++) {
		pte = __ptep_get(ptep);
		dirty |= pte_dirty(pte);
		young |= pte_young(pte);
	}
gathered:
	if (dirty)
		orig_pte = pte_mkdirty(orig_pte);
	if (young)
		orig_pte = pte_mkyoung(orig_pte);
	return orig_pte;
}

static inline bool contpte_is_consistent(pte_t pte, unsigned long pfn, pgprot_t orig_prot)
{
	pgprot_t prot = pte_pgprot(pte_mkold(pte_mkclean(pte)));

	if (MUTANT(raw_prot_compare))
		prot = pte_pgprot(pte);
	if (MUTANT(no_consistency_check))
		return true;
	return pte_valid_cont(pte) &&
	       (MUTANT(no_pfn_check) || pte_pfn(pte) == pfn) &&
	       (MUTANT(no_prot_check) || pgprot_val(prot) == pgprot_val(orig_prot));
}

/*
 * No lock: writers may fold, unfold, unmap or remap the block while we scan.
 * Read the target; if it heads no block, it is the answer. Otherwise every
 * scanned entry must still belong to the same block (valid, CONT, the
 * expected pfn, the target's prot); on any mismatch start again. Only then
 * may its access/dirty state be gathered into the result. Early exit
 * (the early-exit patch, docs/glossary.md): as in contpte_ptep_get, the scan
 * stops at the first checkpoint by which both bits are known; every entry it
 * reads is still checked.
 */
pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)
{
	bool dirty = false, young = false;
	unsigned long pfn;
	pgprot_t orig_prot;
	pte_t orig_pte, pte = __pte(0);
	pte_t *ptep;
	int i, check;

retry:
	orig_pte = __ptep_get(orig_ptep);
	if (!pte_valid_cont(orig_pte))
		return orig_pte;
	orig_prot = pte_pgprot(pte_mkold(pte_mkclean(orig_pte)));
	if (MUTANT(raw_prot_compare))
		orig_prot = pte_pgprot(orig_pte);
	if (!MUTANT(ee_sticky_flags))
		dirty = young = false;
rescan:
	ptep = contpte_align_down(orig_ptep);
	pfn = pte_pfn(orig_pte) - (orig_ptep - ptep);
	if (CONTPTE_EARLY_EXIT) {
		contpte_ee_checkpoints
		for (i = 0, check = CONTPTE_EE_FIRST_CHECK; check <= CONT_PTES;
		     check *= CONTPTE_EE_GROWTH) {
			for (; i < check; i++, ptep++, pfn++) {
				pte = __ptep_get(ptep);
				if (MUTANT(ee_check_after_gather) && !(dirty || young) &&
				    (pte_dirty(pte) || pte_young(pte))) {
					dirty |= pte_dirty(pte);
					young |= pte_young(pte);
					if (dirty && young)
						goto gathered;
					continue;
				}
				if (!(MUTANT(ee_unchecked_tail) && (dirty || young)) &&
				    !contpte_is_consistent(pte, pfn, orig_prot))
					goto retry;
				/* pte_dirty() without its ||: the same bit,
				 * with no branch for gcc to lay out on the
				 * clean entries' path */
				dirty |= pte_sw_dirty(pte);
				dirty |= pte_hw_dirty(pte);
				young |= pte_young(pte);
				if (MUTANT(ee_stop_on_first) && (dirty || young))
					goto gathered;
			}
			if (dirty & young)
				break;
		}
		goto gathered;
	}
	for (i = 0; i < CONT_PTES; i++, ptep++, pfn++) {
		pte = __ptep_get(ptep);
		if (!contpte_is_consistent(pte, pfn, orig_prot)) {
			if (MUTANT(stale_target_on_retry))
				goto rescan;
			goto retry;
		}
		dirty |= pte_dirty(pte);
		young |= pte_young(pte);
	}
gathered:
	if (MUTANT(returns_last_scanned))
		orig_pte = pte;
	if (dirty)
		orig_pte = pte_mkdirty(orig_pte);
	if (young)
		orig_pte = pte_mkyoung(orig_pte);
	return orig_pte;
}

/* ---- block-wide writers ---------------------------------------------- */

/* Map from not-present entries; a naturally aligned, fully covered block
 * gets CONT written directly into each entry. */
void contpte_set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		      pte_t pte, unsigned int nr)
{
	unsigned long end = addr + nr * PAGE_SIZE, next;
	unsigned long pfn = pte_pfn(pte);
	pgprot_t prot = pte_pgprot(pte);

	do {
		next = min(ALIGN_DOWN(addr + CONT_PTE_SIZE, CONT_PTE_SIZE), end);
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

void contpte_clear_full_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			     unsigned int nr, int full)
{
	if (!MUTANT(clear_full_no_unfold))
		contpte_try_unfold_partial(mm, addr, ptep, nr);
	__clear_full_ptes(mm, addr, ptep, nr, full);
}

/* Returns the first entry with the dirty/young state of all of them: the
 * caller must not lose the dirtiness of what it unmaps. */
pte_t contpte_get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				      pte_t *ptep, unsigned int nr, int full)
{
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	if (MUTANT(teardown_no_gather) && full) {
		/* "at teardown the folio learns the rest from the other
		 * calls": the first entry alone, the others cleared unread */
		pte_t pte = __ptep_get_and_clear(mm, addr, ptep);

		__clear_full_ptes(mm, addr + PAGE_SIZE, ptep + 1, nr - 1, full);
		return pte;
	}
	return __get_and_clear_full_ptes(mm, addr, ptep, nr, full);
}

/* Widen [addr, addr + nr pages) to whole blocks at a CONT start or end. */
static pte_t *contpte_widen(unsigned long *addr, pte_t *ptep, unsigned int *nr)
{
	unsigned long start = *addr, end = start + *nr * PAGE_SIZE;

	if (pte_cont(__ptep_get(ptep + *nr - 1)))
		end = ALIGN(end, CONT_PTE_SIZE);
	if (pte_cont(__ptep_get(ptep))) {
		start = ALIGN_DOWN(start, CONT_PTE_SIZE);
		ptep = contpte_align_down(ptep);
	}
	*addr = start;
	*nr = (end - start) >> PAGE_SHIFT;
	return ptep;
}

/* core-mm tracks young per folio: clear AF on whole blocks. */
bool contpte_test_and_clear_young_ptes(struct vm_area_struct *vma, unsigned long addr,
				       pte_t *ptep, unsigned int nr)
{
	bool young = false;

	ptep = contpte_widen(&addr, ptep, &nr);
	for (; nr; nr--, ptep++, addr += PAGE_SIZE) {
		if (MUTANT(young_no_clear))
			young |= pte_young(__ptep_get(ptep));
		else if (MUTANT(young_last_only))
			young = __ptep_test_and_clear_young(vma, addr, ptep);
		else
			young |= __ptep_test_and_clear_young(vma, addr, ptep);
	}
	return young;
}

bool contpte_clear_flush_young_ptes(struct vm_area_struct *vma, unsigned long addr,
				    pte_t *ptep, unsigned int nr)
{
	unsigned long start = addr;
	pte_t *first = contpte_widen(&start, ptep, &nr);
	bool young = contpte_test_and_clear_young_ptes(vma, start, first, nr);

	if (young)
		__flush_tlb_range(vma, start, start + nr * PAGE_SIZE, PAGE_SIZE, true, 3);
	return young;
}

/* A fully covered block is write-protected entry by entry without an
 * unfold (entries differ in WRITE meanwhile); partial ends are unfolded. */
void contpte_wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			    unsigned int nr)
{
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	if (MUTANT(wrprotect_skips_block) && ptep == contpte_align_down(ptep) && nr >= CONT_PTES) {
		/* the loop over whole blocks starts one block late */
		ptep += CONT_PTES;
		addr += CONT_PTE_SIZE;
		nr -= CONT_PTES;
		if (!nr)
			return;
	}
	__wrprotect_ptes(mm, addr, ptep, nr);
}

void contpte_clear_young_dirty_ptes(struct vm_area_struct *vma, unsigned long addr,
				    pte_t *ptep, unsigned int nr, cydp_t flags)
{
	ptep = contpte_widen(&addr, ptep, &nr);
	if (MUTANT(cyd_byte_span))
		nr *= PAGE_SIZE;        /* the span in bytes where a count of entries is due */
	__clear_young_dirty_ptes(vma, addr, ptep, nr, flags);
}

/*
 * If the write permission stays, apply the access flags to every entry of
 * the block (no unfold); the no-op test looks at each entry itself, not at
 * the gathered value, or a young/dirty sibling would hide that this entry
 * still faults. If the write permission changes, unfold first.
 */
int contpte_ptep_set_access_flags(struct vm_area_struct *vma, unsigned long addr,
				  pte_t *ptep, pte_t entry, int dirty)
{
	pte_t orig_pte = pte_mknoncont(ptep_get(ptep));
	pte_t *first;
	unsigned long start;
	int i, changed = 0;

	/* the no-op test of the 2026 fix's parent: the gathered value */
	if (MUTANT(access_flags_gathered_noop) && pte_val(orig_pte) == pte_val(entry))
		return 0;
	if (pte_write(orig_pte) != pte_write(entry)) {
		__contpte_try_unfold(vma->vm_mm, addr, ptep, orig_pte);
		return __ptep_set_access_flags(vma, addr, ptep, entry, dirty);
	}
	first = contpte_align_down(ptep);
	start = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	entry = pte_advance_pfn(entry, -(unsigned long)(ptep - first));
	for (i = 0; i < CONT_PTES; i++)
		changed |= __ptep_set_access_flags(vma, start + i * PAGE_SIZE, first + i,
						   pte_advance_pfn(entry, i), dirty);
	if (changed)
		__flush_tlb_range(vma, start, start + CONT_PTE_SIZE, PAGE_SIZE, true, 3);
	return changed;
}
