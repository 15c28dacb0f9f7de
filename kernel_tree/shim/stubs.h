/*
 * kernel_tree/shim/stubs.h - the part of the kernel-tree shim that is
 * stubbed: names a kernel file uses that mean nothing in the harness
 * (debug checks compiled out, section and config markers, the EFI mm).
 * Each one does nothing, or gives the answer a user process's mm gives.
 * Included by kernel_tree/shim/kt_shim.h after core/kcompat.h.
 */
#ifndef KERNEL_TREE_SHIM_STUBS_H
#define KERNEL_TREE_SHIM_STUBS_H

/* ---- linux/mmdebug.h: CONFIG_DEBUG_VM off: compiled, not evaluated ---- */
#define VM_BUG_ON(cond) BUILD_BUG_ON_INVALID(cond)
#define VM_WARN_ON_ONCE_FOLIO(cond, folio) BUILD_BUG_ON_INVALID(cond)

/* ---- linux/init.h, linux/kconfig.h ---------------------------------- */
#define __init
#define IS_ENABLED(opt) 0

/* ---- asm/pgtable.h's debug checks (CONFIG_DEBUG_VM), the cache and tag
 * maintenance of a new mapping, linux/page_table_check.h: all off ------ */
#define __check_racy_pte_update(mm, ptep, pte) ((void)(mm), (void)(ptep), (void)(pte))
#define __check_safe_pte_update(mm, ptep, pte) ((void)(mm), (void)(ptep), (void)(pte))
#define __sync_cache_and_tags(pte, nr) ((void)(pte), (void)(nr))
/* empty static inlines in the kernel: each argument evaluated once, and
 * their lists differ between generations */
static inline void kt_args_unused(int none, ...) { (void)none; }
#define page_table_check_pte_clear(...) kt_args_unused(0, __VA_ARGS__)
#define page_table_check_ptes_set(...) kt_args_unused(0, __VA_ARGS__)
#define page_table_check_pmd_clear(...) kt_args_unused(0, __VA_ARGS__)
#define page_table_check_pud_clear(...) kt_args_unused(0, __VA_ARGS__)
#define page_table_check_pmds_set(...) kt_args_unused(0, __VA_ARGS__)
#define page_table_check_puds_set(...) kt_args_unused(0, __VA_ARGS__)
/* ---- linux/efi.h: the EFI runtime mm is never the harness's ----------- */
static inline bool mm_is_efi(struct mm_struct *mm) { (void)mm; return false; }

/* ---- a vendor's per-mm contpte switch (<asm/p3s/pgtable.h>): the harness
 * tests contpte, so every mm it runs has it on -------------------------- */
static inline bool contpte_is_enabled(struct mm_struct *mm) { (void)mm; return true; }

#endif
