/*
 * kernel_tree/shim/dup.h - the part of the kernel-tree shim duplicated from
 * the kernel: definitions that behave as the kernel's do and must be kept
 * in step with them when the kernel changes them. Written for this project
 * from the shared domain description, not copied kernel code.
 * Included by kernel_tree/shim/kt_shim.h after core/kcompat.h.
 *
 * Knobs, set by the generated translation unit (kernel_tree/probe.sh):
 *   KT_SHIM_PROVIDE_<name>  the file uses <name> without defining it: older
 *                           trees took it from a header, so the shim
 *                           defines it (contpte_align_down, mm_is_user,
 *                           __clear_ptes, __ptep_set_wrprotects,
 *                           __mkold_clean_ptes)
 */
#ifndef KERNEL_TREE_SHIM_DUP_H
#define KERNEL_TREE_SHIM_DUP_H

/* ---- linux/compiler_attributes.h, linux/bug.h -------------------------- */
#define __always_unused __attribute__((unused))
#define __pure __attribute__((pure))
#define BUG_ON(cond) do { if (unlikely(cond)) __builtin_trap(); } while (0)

/* ---- asm/pgtable-types.h, asm/pgtable-hwdef.h: the upper levels -------- */
/*
 * Newer headers share their primitives between the levels (the *_anysz
 * helpers switch on the size of the entry: PAGE_SIZE, PMD_SIZE, PUD_SIZE)
 * and convert between level types. The harness has last-level tables only,
 * so these are the types and sizes such code needs to compile, with the
 * kernel's values for a four-level table at the build's granule: a level
 * resolves PAGE_SHIFT - 3 bits of address.
 */
typedef struct { pteval_t pmd; } pmd_t;
typedef struct { pteval_t pud; } pud_t;
#define pmd_val(x) ((x).pmd)
#define pud_val(x) ((x).pud)
#define __pmd(x) ((pmd_t){ (x) })
#define __pud(x) ((pud_t){ (x) })
#define PMD_SHIFT ((PAGE_SHIFT - 3) * 2 + 3)
#define PUD_SHIFT ((PAGE_SHIFT - 3) * 3 + 3)
#define PMD_SIZE (1UL << PMD_SHIFT)
#define PUD_SIZE (1UL << PUD_SHIFT)
#define PMD_MASK (~(PMD_SIZE - 1))
#define PUD_MASK (~(PUD_SIZE - 1))

/* ---- asm/pgtable.h: what the kernel keeps beside the arch wrappers ---- */
/* End of the contiguous block holding addr, or end if that comes first
 * (a macro, end evaluated twice, as the kernel's). */
#define pte_cont_addr_end(addr, end)                                           \
	({ unsigned long __boundary = ((addr) + CONT_PTE_SIZE) & CONT_PTE_MASK; \
	   (__boundary - 1 < (end) - 1) ? __boundary : (end); })

/* The barriers after a store to a valid kernel entry (asm/pgtable.h keeps
 * them out of line of lazy MMU mode; the harness has no lazy mode, so they
 * are issued at once, as outside it). */
static inline void emit_pte_barriers(void)
{
	dsb(ishst);
	isb();
}
#define queue_pte_barriers() emit_pte_barriers()

/* ---- arch/arm64/mm/fault.c: the access-flag fix-up at any entry size --- */
/*
 * The newest trees made fault.c's fix-up generic over the entry size and
 * asm/pgtable.h's __ptep_set_access_flags calls it with PAGE_SIZE. The
 * harness's entries are all pages: the fix-up is the project's
 * (core/kernel/pgtable.c, which plays fault.c); any other size is a bug of
 * the caller.
 */
static inline int __ptep_set_access_flags_anysz(struct vm_area_struct *vma, unsigned long address,
						pte_t *ptep, pte_t entry, int dirty,
						unsigned long pgsize)
{
	BUG_ON(pgsize != PAGE_SIZE);
	return __ptep_set_access_flags(vma, address, ptep, entry, dirty);
}

/* ---- helpers older trees expected from a header ------------------------ */
#ifdef KT_SHIM_PROVIDE_contpte_align_down
static inline pte_t *contpte_align_down(pte_t *ptep)
{
	return PTR_ALIGN_DOWN(ptep, sizeof(*ptep) * CONT_PTES);
}
#endif
#ifdef KT_SHIM_PROVIDE_mm_is_user
static inline bool mm_is_user(struct mm_struct *mm)
{
	return mm != &init_mm && !mm_is_efi(mm);
}
#endif

/* ---- asm/pgtable.h helpers of older generations ------------------------ */
/*
 * Trees from before the batched helpers of core/kernel/pgtable_helpers.h
 * called the helpers of their time. Those are frozen (the kernel will not
 * change them again) and each is defined here on today's equivalent, only
 * for a file that calls it:
 *
 *   __clear_ptes(mm, addr, ptep, nr, full)  the contpte series as first
 *       posted with batched clearing: get-and-clear nr entries, returning
 *       the first with the access and dirty state of all. Today
 *       __get_and_clear_full_ptes.
 *   __ptep_set_wrprotects(mm, addr, ptep, nr[, full])  the contpte series
 *       before its merge: write-protect nr entries, each by compare-and-swap
 *       (the later postings added 'full', which changes nothing for a
 *       block). Today __wrprotect_ptes.
 *   __mkold_clean_ptes(mm or vma, addr, ptep, nr)  the MADV_FREE batching
 *       posted on v6.9: clear access and dirty of nr entries, each by
 *       compare-and-swap. Today __clear_young_dirty_ptes with both flags.
 *
 * The argument count picks the form (KT_ARG6); any other count, or an
 * argument of the wrong type, is a compile error naming the form tried.
 */
#define KT_ARG6(a1, a2, a3, a4, a5, a6, ...) a6

#ifdef KT_SHIM_PROVIDE___clear_ptes
static inline pte_t __clear_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
				 unsigned int nr, int full)
{
	return __get_and_clear_full_ptes(mm, addr, ptep, nr, full);
}
#endif

#ifdef KT_SHIM_PROVIDE___ptep_set_wrprotects
static inline void kt_ptep_set_wrprotects_nr(struct mm_struct *mm, unsigned long addr,
					     pte_t *ptep, unsigned int nr)
{
	__wrprotect_ptes(mm, addr, ptep, nr);
}
static inline void kt_ptep_set_wrprotects_nr_full(struct mm_struct *mm, unsigned long addr,
						  pte_t *ptep, unsigned int nr, int full)
{
	(void)full;
	__wrprotect_ptes(mm, addr, ptep, nr);
}
#define __ptep_set_wrprotects(...)                                             \
	KT_ARG6(__VA_ARGS__, kt_ptep_set_wrprotects_nr_full, kt_ptep_set_wrprotects_nr, \
		kt_ptep_set_wrprotects_takes_4_or_5_arguments)(__VA_ARGS__)
#endif

#ifdef KT_SHIM_PROVIDE___mkold_clean_ptes
static inline void kt_mkold_clean_ptes(struct mm_struct *mm, unsigned long addr,
				       pte_t *ptep, unsigned int nr)
{
	struct vm_area_struct vma = TLB_FLUSH_VMA(mm, 0);

	__clear_young_dirty_ptes(&vma, addr, ptep, nr, CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
}
#define __mkold_clean_ptes(mm_or_vma, addr, ptep, nr)                          \
	kt_mkold_clean_ptes(KC_MM_OF(mm_or_vma), (addr), (ptep), (nr))
#endif

#endif
