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
 *                           defines it (contpte_align_down, mm_is_user)
 */
#ifndef KERNEL_TREE_SHIM_DUP_H
#define KERNEL_TREE_SHIM_DUP_H

/* ---- linux/compiler_attributes.h, linux/bug.h -------------------------- */
#define __always_unused __attribute__((unused))
#define __pure __attribute__((pure))
#define BUG_ON(cond) do { if (unlikely(cond)) __builtin_trap(); } while (0)

/* ---- asm/pgtable.h: what the kernel keeps beside the arch wrappers ---- */
/* End of the contiguous block holding addr, or end if that comes first. */
static inline unsigned long pte_cont_addr_end(unsigned long addr, unsigned long end)
{
	unsigned long boundary = (addr + CONT_PTE_SIZE) & CONT_PTE_MASK;

	return boundary - 1 < end - 1 ? boundary : end;
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

#endif
