/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test tree "premerge_fast_exit" for tools/hammer --kernel-tree: the part
 * of arch/arm64/include/asm/pgtable.h that the contpte series as first
 * posted leans on, written for this project in kernel style from the
 * shared domain description (domain.md sections 2, 3 and 6). It is not
 * kernel code.
 *
 * The generation: ptep_get_and_clear_full() is the arch's own
 * (__HAVE_ARCH_PTEP_GET_AND_CLEAR_FULL) and sends a CONT entry at process
 * exit to contpte.c's fast path, contpte_ptep_get_and_clear_full(), which
 * is declared here with the file's other functions; young clearing per
 * page; batched write-protect as ptep_set_wrprotects(mm, addr, ptep, nr);
 * contpte_align_down() here; (last_level, tlb_level) flushes.
 */
#ifndef __ASM_PGTABLE_H
#define __ASM_PGTABLE_H

#include <asm/bug.h>
#include <asm/pgtable-hwdef.h>
#include <asm/pgtable-prot.h>
#include <asm/tlbflush.h>

#ifndef __ASSEMBLY__

#include <asm/cmpxchg.h>
#include <linux/mmdebug.h>
#include <linux/mm_types.h>
#include <linux/sched.h>

#define pte_none(pte)		(!pte_val(pte))
#define pte_valid(pte)		(!!(pte_val(pte) & PTE_VALID))
#define pte_young(pte)		(!!(pte_val(pte) & PTE_AF))
#define pte_special(pte)	(!!(pte_val(pte) & PTE_SPECIAL))
#define pte_write(pte)		(!!(pte_val(pte) & PTE_WRITE))
#define pte_rdonly(pte)		(!!(pte_val(pte) & PTE_RDONLY))
#define pte_cont(pte)		(!!(pte_val(pte) & PTE_CONT))

/* Written by hardware: writable by DBM and RDONLY already cleared. */
#define pte_hw_dirty(pte)	(pte_write(pte) && !pte_rdonly(pte))
#define pte_sw_dirty(pte)	(!!(pte_val(pte) & PTE_DIRTY))
#define pte_dirty(pte)		(pte_sw_dirty(pte) || pte_hw_dirty(pte))

#define pte_valid_cont(pte)	(pte_valid(pte) && pte_cont(pte))

static inline pte_t clear_pte_bit(pte_t pte, pgprot_t prot)
{
	pte_val(pte) &= ~pgprot_val(prot);
	return pte;
}

static inline pte_t set_pte_bit(pte_t pte, pgprot_t prot)
{
	pte_val(pte) |= pgprot_val(prot);
	return pte;
}

static inline pte_t pte_mkclean(pte_t pte)
{
	return set_pte_bit(clear_pte_bit(pte, __pgprot(PTE_DIRTY)), __pgprot(PTE_RDONLY));
}

static inline pte_t pte_mkdirty(pte_t pte)
{
	pte = set_pte_bit(pte, __pgprot(PTE_DIRTY));
	if (pte_write(pte))
		pte = clear_pte_bit(pte, __pgprot(PTE_RDONLY));
	return pte;
}

static inline pte_t pte_wrprotect(pte_t pte)
{
	/* Move a hardware-dirty state to the software bit before RDONLY hides it. */
	if (pte_hw_dirty(pte))
		pte = set_pte_bit(pte, __pgprot(PTE_DIRTY));
	pte = clear_pte_bit(pte, __pgprot(PTE_WRITE));
	return set_pte_bit(pte, __pgprot(PTE_RDONLY));
}

static inline pte_t pte_mkold(pte_t pte)
{
	return clear_pte_bit(pte, __pgprot(PTE_AF));
}

static inline pte_t pte_mkyoung(pte_t pte)
{
	return set_pte_bit(pte, __pgprot(PTE_AF));
}

static inline pte_t pte_mkcont(pte_t pte)
{
	return set_pte_bit(pte, __pgprot(PTE_CONT));
}

static inline pte_t pte_mknoncont(pte_t pte)
{
	return clear_pte_bit(pte, __pgprot(PTE_CONT));
}

/* ---- the per-entry primitives ------------------------------------------ */

static inline pte_t __ptep_get(pte_t *ptep)
{
	return READ_ONCE(*ptep);
}

static inline void __set_pte(pte_t *ptep, pte_t pte)
{
	WRITE_ONCE(*ptep, pte);
}

static inline void __set_ptes(struct mm_struct *mm, unsigned long addr,
			      pte_t *ptep, pte_t pte, unsigned int nr)
{
	for (;;) {
		__set_pte(ptep, pte);
		if (--nr == 0)
			break;
		ptep++;
		pte = pfn_pte(pte_pfn(pte) + 1, pte_pgprot(pte));
	}
}

static inline void __pte_clear(struct mm_struct *mm, unsigned long addr,
			       pte_t *ptep)
{
	__set_pte(ptep, __pte(0));
}

static inline pte_t __ptep_get_and_clear(struct mm_struct *mm,
					 unsigned long address, pte_t *ptep)
{
	/* One exchange: whatever the MMU recorded up to now comes back. */
	return __pte(xchg_relaxed(&pte_val(*ptep), 0));
}

static inline int __ptep_test_and_clear_young(struct vm_area_struct *vma,
					      unsigned long address, pte_t *ptep)
{
	pte_t old_pte, pte;

	pte = __ptep_get(ptep);
	do {
		old_pte = pte;
		pte = pte_mkold(pte);
		pte_val(pte) = cmpxchg_relaxed(&pte_val(*ptep),
					       pte_val(old_pte), pte_val(pte));
	} while (pte_val(pte) != pte_val(old_pte));

	return pte_young(pte);
}

static inline int __ptep_clear_flush_young(struct vm_area_struct *vma,
					   unsigned long address, pte_t *ptep)
{
	int young = __ptep_test_and_clear_young(vma, address, ptep);

	if (young)
		__flush_tlb_range(vma, address, address + PAGE_SIZE, PAGE_SIZE,
				  true, 3);
	return young;
}

static inline void __ptep_set_wrprotect(struct mm_struct *mm,
					unsigned long address, pte_t *ptep)
{
	pte_t old_pte, pte;

	pte = __ptep_get(ptep);
	do {
		old_pte = pte;
		pte = pte_wrprotect(pte);
		pte_val(pte) = cmpxchg_relaxed(&pte_val(*ptep),
					       pte_val(old_pte), pte_val(pte));
	} while (pte_val(pte) != pte_val(old_pte));
}

static inline void __ptep_set_wrprotects(struct mm_struct *mm,
					 unsigned long address, pte_t *ptep,
					 unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++, address += PAGE_SIZE, ptep++)
		__ptep_set_wrprotect(mm, address, ptep);
}

extern int __ptep_set_access_flags(struct vm_area_struct *vma,
				   unsigned long address, pte_t *ptep,
				   pte_t entry, int dirty);

#ifdef CONFIG_ARM64_CONTPTE

/*
 * The contpte API: arch/arm64/mm/contpte.c keeps the entries of a
 * contiguous block alike; the wrappers below send it what belongs to one.
 */
extern void __contpte_try_fold(struct mm_struct *mm, unsigned long addr,
			       pte_t *ptep, pte_t pte);
extern void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
				 pte_t *ptep, pte_t pte);
extern pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte);
extern pte_t contpte_ptep_get_lockless(pte_t *orig_ptep);
extern void contpte_set_ptes(struct mm_struct *mm, unsigned long addr,
			     pte_t *ptep, pte_t pte, unsigned int nr);
extern pte_t contpte_ptep_get_and_clear_full(struct mm_struct *mm,
					     unsigned long addr, pte_t *ptep);
extern int contpte_ptep_test_and_clear_young(struct vm_area_struct *vma,
					     unsigned long addr, pte_t *ptep);
extern int contpte_ptep_clear_flush_young(struct vm_area_struct *vma,
					  unsigned long addr, pte_t *ptep);
extern void contpte_set_wrprotects(struct mm_struct *mm, unsigned long addr,
				   pte_t *ptep, unsigned int nr);
extern int contpte_ptep_set_access_flags(struct vm_area_struct *vma,
					 unsigned long addr, pte_t *ptep,
					 pte_t entry, int dirty);

static inline pte_t *contpte_align_down(pte_t *ptep)
{
	return (pte_t *)((unsigned long)ptep & ~(CONT_PTES * sizeof(pte_t) - 1));
}

static inline void contpte_try_fold(struct mm_struct *mm, unsigned long addr,
				    pte_t *ptep, pte_t pte)
{
	/* Only the last entry of a block, on the last page of a run, can complete it. */
	bool valign = ((addr >> PAGE_SHIFT) % CONT_PTES) == CONT_PTES - 1;
	bool palign = (pte_pfn(pte) % CONT_PTES) == CONT_PTES - 1;

	if (valign && palign && pte_valid(pte) && !pte_cont(pte) && !pte_special(pte))
		__contpte_try_fold(mm, addr, ptep, pte);
}

static inline void contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
				      pte_t *ptep, pte_t pte)
{
	if (pte_valid_cont(pte))
		__contpte_try_unfold(mm, addr, ptep, pte);
}

#define ptep_get ptep_get
static inline pte_t ptep_get(pte_t *ptep)
{
	pte_t pte = __ptep_get(ptep);

	if (!pte_valid_cont(pte))
		return pte;

	return contpte_ptep_get(ptep, pte);
}

#define ptep_get_lockless ptep_get_lockless
static inline pte_t ptep_get_lockless(pte_t *ptep)
{
	pte_t pte = __ptep_get(ptep);

	if (!pte_valid_cont(pte))
		return pte;

	return contpte_ptep_get_lockless(ptep);
}

#define set_ptes set_ptes
static inline void set_ptes(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, pte_t pte, unsigned int nr)
{
	pte = pte_mknoncont(pte);

	if (nr == 1) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		__set_ptes(mm, addr, ptep, pte, 1);
		contpte_try_fold(mm, addr, ptep, pte);
	} else {
		contpte_set_ptes(mm, addr, ptep, pte, nr);
	}
}

static inline void pte_clear(struct mm_struct *mm, unsigned long addr,
			     pte_t *ptep)
{
	contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
	__pte_clear(mm, addr, ptep);
}

#define __HAVE_ARCH_PTEP_GET_AND_CLEAR_FULL
static inline pte_t ptep_get_and_clear_full(struct mm_struct *mm,
					    unsigned long addr, pte_t *ptep,
					    int full)
{
	pte_t orig_pte = __ptep_get(ptep);

	/*
	 * Tearing down the whole address space: contpte.c takes a CONT entry
	 * out without unfolding its block. Anything else is unfolded first.
	 */
	if (full && pte_valid_cont(orig_pte))
		return contpte_ptep_get_and_clear_full(mm, addr, ptep);

	contpte_try_unfold(mm, addr, ptep, orig_pte);
	return __ptep_get_and_clear(mm, addr, ptep);
}

#define __HAVE_ARCH_PTEP_GET_AND_CLEAR
static inline pte_t ptep_get_and_clear(struct mm_struct *mm,
				       unsigned long addr, pte_t *ptep)
{
	return ptep_get_and_clear_full(mm, addr, ptep, 0);
}

#define __HAVE_ARCH_PTEP_TEST_AND_CLEAR_YOUNG
static inline int ptep_test_and_clear_young(struct vm_area_struct *vma,
					    unsigned long addr, pte_t *ptep)
{
	if (!pte_valid_cont(__ptep_get(ptep)))
		return __ptep_test_and_clear_young(vma, addr, ptep);

	return contpte_ptep_test_and_clear_young(vma, addr, ptep);
}

#define __HAVE_ARCH_PTEP_CLEAR_YOUNG_FLUSH
static inline int ptep_clear_flush_young(struct vm_area_struct *vma,
					 unsigned long addr, pte_t *ptep)
{
	if (!pte_valid_cont(__ptep_get(ptep)))
		return __ptep_clear_flush_young(vma, addr, ptep);

	return contpte_ptep_clear_flush_young(vma, addr, ptep);
}

#define ptep_set_wrprotects ptep_set_wrprotects
static inline void ptep_set_wrprotects(struct mm_struct *mm, unsigned long addr,
				       pte_t *ptep, unsigned int nr)
{
	if (nr == 1) {
		/* one entry of a block cannot differ from the rest: unfold first */
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		__ptep_set_wrprotects(mm, addr, ptep, 1);
	} else {
		contpte_set_wrprotects(mm, addr, ptep, nr);
	}
}

#define __HAVE_ARCH_PTEP_SET_WRPROTECT
static inline void ptep_set_wrprotect(struct mm_struct *mm,
				      unsigned long addr, pte_t *ptep)
{
	ptep_set_wrprotects(mm, addr, ptep, 1);
}

#define __HAVE_ARCH_PTEP_SET_ACCESS_FLAGS
static inline int ptep_set_access_flags(struct vm_area_struct *vma,
					unsigned long addr, pte_t *ptep,
					pte_t entry, int dirty)
{
	if (!pte_valid_cont(__ptep_get(ptep)))
		return __ptep_set_access_flags(vma, addr, ptep, entry, dirty);

	return contpte_ptep_set_access_flags(vma, addr, ptep, entry, dirty);
}

#else /* CONFIG_ARM64_CONTPTE */

#define ptep_get			__ptep_get
#define set_ptes			__set_ptes
#define pte_clear			__pte_clear
#define __HAVE_ARCH_PTEP_GET_AND_CLEAR
#define ptep_get_and_clear		__ptep_get_and_clear
#define __HAVE_ARCH_PTEP_TEST_AND_CLEAR_YOUNG
#define ptep_test_and_clear_young	__ptep_test_and_clear_young
#define __HAVE_ARCH_PTEP_CLEAR_YOUNG_FLUSH
#define ptep_clear_flush_young		__ptep_clear_flush_young
#define __HAVE_ARCH_PTEP_SET_WRPROTECT
#define ptep_set_wrprotect		__ptep_set_wrprotect
#define __HAVE_ARCH_PTEP_SET_ACCESS_FLAGS
#define ptep_set_access_flags		__ptep_set_access_flags

#endif /* CONFIG_ARM64_CONTPTE */

#endif /* !__ASSEMBLY__ */

#endif /* __ASM_PGTABLE_H */
