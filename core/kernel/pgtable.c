/*
 * core/kernel/pgtable.c - the project's model of the arm64 per-entry
 * primitives and arch wrappers (the kernel keeps these as static inlines in
 * arch/arm64/include/asm/pgtable.h). Kernel dialect: no #include lines,
 * built on core/kcompat.h. Written from the domain description §3 (docs/glossary.md); MUTANT(name)
 * marks the planted bugs of core/kernel/mutants.def.
 */

pte_t __ptep_get_and_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	return __pte(xchg_relaxed(&pte_val(*ptep), 0));
}

/*
 * Clear AF with a compare-and-swap loop: hardware may set AF or clear
 * RDONLY (dirty) at any moment, and a plain store would undo that.
 */
int __ptep_test_and_clear_young(struct vm_area_struct *vma, unsigned long address,
				pte_t *ptep)
{
	pte_t old, pte = __ptep_get(ptep);

	if (MUTANT(young_plain_rmw)) {
		__set_pte(ptep, pte_mkold(pte));
		return pte_young(pte);
	}
	do {
		old = pte;
		pte_val(pte) = cmpxchg_relaxed(&pte_val(*ptep), pte_val(old),
					       pte_val(pte_mkold(old)));
	} while (pte_val(pte) != pte_val(old));
	return pte_young(pte);
}

void __ptep_set_wrprotect(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	pte_t old, pte = __ptep_get(ptep);

	if (MUTANT(wrprotect_plain_rmw)) {
		__set_pte(ptep, pte_wrprotect(pte));
		return;
	}
	do {
		old = pte;
		pte_val(pte) = cmpxchg_relaxed(&pte_val(*ptep), pte_val(old),
					       pte_val(pte_wrprotect(old)));
	} while (pte_val(pte) != pte_val(old));
}

/*
 * Fault fix-up: merge AF/WRITE/DIRTY of the requested entry into the live
 * one. RDONLY ends up set only if both the live and the requested entry
 * have it: the most permissive wins, so a concurrent hardware dirtying
 * (RDONLY cleared) is never undone. Returns whether anything changed.
 */
int __ptep_set_access_flags(struct vm_area_struct *vma, unsigned long address,
			    pte_t *ptep, pte_t entry, int dirty)
{
	const pteval_t merge = PTE_AF | PTE_WRITE | PTE_DIRTY;
	pteval_t cur = pte_val(__ptep_get(ptep)), want, seen;

	if (pte_same(__pte(cur), entry))
		return 0;
	for (;;) {
		want = cur | (pte_val(entry) & merge);
		if (MUTANT(access_flags_rdonly))
			want = (want & ~PTE_RDONLY) | (pte_val(entry) & PTE_RDONLY);
		else if (!((cur & PTE_RDONLY) && (pte_val(entry) & PTE_RDONLY)))
			want &= ~PTE_RDONLY;
		if (want == cur)
			return 0;
		seen = cmpxchg_relaxed(&pte_val(*ptep), cur, want);
		if (seen == cur)
			return 1;
		cur = seen;
	}
}

void __set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte,
		unsigned int nr)
{
	for (;;) {
		__set_pte(ptep, pte);
		if (--nr == 0)
			break;
		ptep++;
		pte = pte_advance_pfn(pte, 1);
	}
}

void __clear_young_dirty_ptes(struct vm_area_struct *vma, unsigned long addr,
			      pte_t *ptep, unsigned int nr, cydp_t flags)
{
	for (; nr; nr--, ptep++) {
		pte_t old, pte = __ptep_get(ptep), want;

		do {
			old = pte;
			want = old;
			if (flags & CYDP_CLEAR_YOUNG)
				want = pte_mkold(want);
			if (flags & CYDP_CLEAR_DIRTY)
				want = pte_mkclean(want);
			pte_val(pte) = cmpxchg_relaxed(&pte_val(*ptep), pte_val(old),
						       pte_val(want));
		} while (pte_val(pte) != pte_val(old));
	}
}

/* ---- arch wrappers: contpte path when the entry is part of a block ---- */

pte_t ptep_get(pte_t *ptep)
{
	pte_t pte = __ptep_get(ptep);

	if (likely(!pte_valid_cont(pte)))
		return pte;
	return contpte_ptep_get(ptep, pte);
}

pte_t ptep_get_lockless(pte_t *ptep)
{
	pte_t pte = __ptep_get(ptep);

	if (likely(!pte_valid_cont(pte)))
		return pte;
	return contpte_ptep_get_lockless(ptep);
}

void contpte_try_fold(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	/* Only the last entry of a block completes it; cheap pre-check. */
	if (pte_valid(pte) && !pte_cont(pte))
		__contpte_try_fold(mm, addr, ptep, pte);
}

void contpte_try_unfold(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	if (pte_valid_cont(pte))
		__contpte_try_unfold(mm, addr, ptep, pte);
}

void set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte,
	      unsigned int nr)
{
	pte = pte_mknoncont(pte);
	if (likely(nr == 1)) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		__set_ptes(mm, addr, ptep, pte, 1);
		contpte_try_fold(mm, addr, ptep, pte);
	} else {
		contpte_set_ptes(mm, addr, ptep, pte, nr);
	}
}

pte_t get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			      unsigned int nr, int full)
{
	pte_t pte;

	if (likely(nr == 1)) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		pte = __ptep_get_and_clear(mm, addr, ptep);
	} else {
		pte = contpte_get_and_clear_full_ptes(mm, addr, ptep, nr, full);
	}
	return pte;
}

/* The same without the entry's old value, for a caller that does not need
 * its access and dirty state (zap of an anonymous folio). */
void clear_full_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		     unsigned int nr, int full)
{
	if (likely(nr == 1)) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		__clear_full_ptes(mm, addr, ptep, nr, full);
	} else {
		contpte_clear_full_ptes(mm, addr, ptep, nr, full);
	}
}

/* One entry, taken out of its block first: after the unfold every entry of
 * the block carries the block's access and dirty state, so the value
 * returned is the entry as ptep_get() gathers it. */
pte_t ptep_get_and_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	pte_t orig = __ptep_get(ptep), pte;

	contpte_try_unfold(mm, addr, ptep, orig);
	pte = __ptep_get_and_clear(mm, addr, ptep);
	if (MUTANT(get_and_clear_stale))
		return orig;    /* the value read before the unfold gathered the block */
	return pte;
}

/* core-mm's generic version: full (process teardown) changes nothing. */
pte_t ptep_get_and_clear_full(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			      int full)
{
	/* The fast path the series had before its merge: with full, clear a
	 * CONT entry alone, trusting the caller to clear the rest of the
	 * block before anyone looks (not so at a VMA boundary). */
	if (MUTANT(teardown_fast_path) && full && pte_valid_cont(__ptep_get(ptep)))
		return __ptep_get_and_clear(mm, addr, ptep);
	return ptep_get_and_clear(mm, addr, ptep);
}

int test_and_clear_young_ptes(struct vm_area_struct *vma, unsigned long addr,
			      pte_t *ptep, unsigned int nr)
{
	if (likely(nr == 1 && !pte_cont(__ptep_get(ptep))))
		return __ptep_test_and_clear_young(vma, addr, ptep);
	return contpte_test_and_clear_young_ptes(vma, addr, ptep, nr);
}

int ptep_test_and_clear_young(struct vm_area_struct *vma, unsigned long addr,
			      pte_t *ptep)
{
	pte_t orig_pte = __ptep_get(ptep);

	if (likely(!pte_valid_cont(orig_pte)))
		return __ptep_test_and_clear_young(vma, addr, ptep);
	return contpte_test_and_clear_young_ptes(vma, addr, ptep, 1);
}

int clear_flush_young_ptes(struct vm_area_struct *vma, unsigned long addr,
			   pte_t *ptep, unsigned int nr)
{
	if (likely(nr == 1 && !pte_cont(__ptep_get(ptep)))) {
		int young = __ptep_test_and_clear_young(vma, addr, ptep);

		if (young)
			__flush_tlb_range(vma, addr, addr + PAGE_SIZE, PAGE_SIZE, true, 3);
		return young;
	}
	return contpte_clear_flush_young_ptes(vma, addr, ptep, nr);
}

int ptep_clear_flush_young(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep)
{
	return clear_flush_young_ptes(vma, addr, ptep, 1);
}

/* How many entries from ptep on core-mm may take as one batch without
 * looking at them (folio_pte_batch): the rest of a CONT block. */
unsigned int pte_batch_hint(pte_t *ptep, pte_t pte)
{
	if (!pte_valid_cont(pte))
		return 1;
	return CONT_PTES - (((unsigned long)ptep / sizeof(pte_t)) & (CONT_PTES - 1));
}

void wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		    unsigned int nr)
{
	if (likely(nr == 1)) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		__ptep_set_wrprotect(mm, addr, ptep);
	} else {
		contpte_wrprotect_ptes(mm, addr, ptep, nr);
	}
}

void ptep_set_wrprotect(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	wrprotect_ptes(mm, addr, ptep, 1);
}

void clear_young_dirty_ptes(struct vm_area_struct *vma, unsigned long addr,
			    pte_t *ptep, unsigned int nr, cydp_t flags)
{
	if (likely(nr == 1 && !pte_cont(__ptep_get(ptep))))
		__clear_young_dirty_ptes(vma, addr, ptep, nr, flags);
	else
		contpte_clear_young_dirty_ptes(vma, addr, ptep, nr, flags);
}

int ptep_set_access_flags(struct vm_area_struct *vma, unsigned long addr,
			  pte_t *ptep, pte_t entry, int dirty)
{
	pte_t orig_pte = __ptep_get(ptep);

	entry = pte_mknoncont(entry);
	if (likely(!pte_cont(orig_pte)))
		return __ptep_set_access_flags(vma, addr, ptep, entry, dirty);
	return contpte_ptep_set_access_flags(vma, addr, ptep, entry, dirty);
}

/* ---- core-mm: page-table lifetime --------------------------------------- */

/* Move entries to a new table (mremap/khugepaged style): get-and-clear
 * keeps hardware's last access/dirty state with the entry it moves. */
void move_ptes(struct mm_struct *mm, unsigned long addr, pte_t *old_ptep,
	       pte_t *new_ptep, unsigned int nr)
{
	for (; nr; nr--, old_ptep++, new_ptep++, addr += PAGE_SIZE)
		__set_pte(new_ptep, __ptep_get_and_clear(mm, addr, old_ptep));
}

/*
 * Publish a new page table (core-mm's pmd_install): everything written to
 * it so far (its clearing, the entries moved into it) must be visible
 * before the pointer to it is, because a lockless walker that finds the
 * pointer reads the entries through it with no barrier of its own (an
 * address dependency orders its loads, nothing orders our stores).
 */
void pte_install(struct mm_struct *mm, pgtable_t *slot, pgtable_t table)
{
	if (!MUTANT(publish_no_wmb))
		smp_wmb();
	kc_set_table(mm, slot, table);
}

/* Lockless walkers may still be reading the table: free it only after an
 * RCU grace period. */
void pte_free_defer(struct mm_struct *mm, pgtable_t pgtable)
{
	if (MUTANT(rcu_no_grace))
		kc_pte_free_now(mm, pgtable);
	else
		kc_pte_free_rcu(mm, pgtable);
}
