/*
 * kernel_tree/shim/kt_shim.h - what a kernel tree's arch/arm64/mm/contpte.c
 * gets from its #include lines when tools/hammer --kernel-tree builds it.
 *
 * Every header under kernel_tree/shim/include/ (linux/mm.h, asm/tlbflush.h,
 * ...) includes this one file: the kernel's headers include each other, so
 * whatever a contpte.c reaches through one of them it reaches here too. It
 * is core/kcompat.h (types, PTE helpers, READ_ONCE, cmpxchg, the per-entry
 * primitives and arch wrappers of core/kernel/pgtable.c, which plays
 * asm/pgtable.h) plus what real kernel files use and plug-in files do not:
 * TLB flushes that log their arguments, folio/page bits, init_mm, the
 * batched __*_ptes helpers, and helpers older trees expected from a header.
 *
 * Knobs, set by the generated translation unit (kernel_tree/probe.sh):
 *   KT_SHIM_PROVIDE_<name>  the file uses <name> without defining it: the
 *                           shim defines it (contpte_align_down, mm_is_user)
 * The generated unit then renames every function the file defines to
 * kt_file_<name> (after this header, so kcompat.h's prototypes keep the
 * real names and current signatures) and appends kernel_tree/glue.h.
 */
#ifndef KERNEL_TREE_SHIM_KT_SHIM_H
#define KERNEL_TREE_SHIM_KT_SHIM_H

#include "core/kcompat.h"
#include "kernel_tree/report.h"

/* ---- linux/compiler.h, linux/bug.h, linux/mmdebug.h ------------------ */
#ifndef VM_BUG_ON
#define VM_BUG_ON(cond) ((void)(cond))
#endif
#ifndef VM_WARN_ON_ONCE_FOLIO
#define VM_WARN_ON_ONCE_FOLIO(cond, folio) ((void)(folio), (void)(cond))
#endif
#ifndef BUG_ON
#define BUG_ON(cond) do { if (unlikely(cond)) __builtin_trap(); } while (0)
#endif
#define __always_unused __attribute__((unused))
#define __init
#define __pure __attribute__((pure))
#define IS_ENABLED(opt) 0

/* ---- linux/mm_types.h, linux/mm.h: init_mm, pages and folios ---------- */
/*
 * The harness maps one folio per contiguous block: CONT_PTES pages starting
 * at a CONT_PTES-aligned pfn (core/ops.c). struct page is never read or
 * written by contpte.c, only located and subtracted, so a small window of
 * page structs indexed by pfn modulo its size keeps every in-folio offset
 * exact (page - &folio->page) without memory per pfn.
 */
/* struct page, struct folio, init_mm, kt_mem_map: kernel_tree/report.h */
static inline struct page *pfn_to_page(unsigned long pfn)
{
	return &kt_mem_map[pfn & (KT_MEM_MAP_PAGES - 1)];
}
static inline struct page *pte_page(pte_t pte) { return pfn_to_page(pte_pfn(pte)); }
static inline struct folio *page_folio(const struct page *page)
{
	unsigned long i = (unsigned long)(page - kt_mem_map);

	return (struct folio *)&kt_mem_map[ALIGN_DOWN(i, CONT_PTES)];
}
static inline long folio_nr_pages(const struct folio *folio) { (void)folio; return CONT_PTES; }
static inline bool folio_test_large(const struct folio *folio) { return folio_nr_pages(folio) > 1; }
static inline struct page *folio_page(struct folio *folio, unsigned long n)
{
	return &folio->page + n;
}

/* ---- linux/efi.h: the EFI runtime mm is never the harness's ----------- */
static inline bool mm_is_efi(struct mm_struct *mm) { (void)mm; return false; }

/* ---- asm/cpufeature.h: BBML2_NOABORT, counted, wired to --bbml2 ------- */
#define system_supports_bbml2_noabort() kt_bbml2_noabort()

/* ---- asm/tlbflush.h: flushes the harness counts and the report logs --- */
/*
 * __flush_tlb_range kept six arguments while the last two changed meaning:
 * (last_level, tlb_level) in older trees, (tlb_level, TLBF_* flags) in
 * newer ones. Both compile against one macro; the flags carry a marker bit
 * so that the log can tell which meaning a call used. __flush_tlb_range_nosync
 * took a vma first, later an mm: _Generic accepts either (and nothing else).
 * Each call records the calling function (__func__) and its arguments.
 */
#define TLBF_NONE        (KT_TLBF_MARK)
#define TLBF_NOWALKCACHE (KT_TLBF_MARK | 0x1)
#define TLBF_NOSYNC      (KT_TLBF_MARK | 0x2)
#define TLBF_NOBROADCAST (KT_TLBF_MARK | 0x4)
#define TLBF_NONOTIFY    (KT_TLBF_MARK | 0x8)

#define KT_MM_OF(x)                                                           \
	_Generic((x), struct vm_area_struct *: ((struct vm_area_struct *)(x))->vm_mm, \
		 struct mm_struct *: (struct mm_struct *)(x))
#define KT_IS_VMA(x) _Generic((x), struct vm_area_struct *: 1, struct mm_struct *: 0)

#define __flush_tlb_range(vma, start, end, stride, a5, a6)                    \
	kt_flush(KT_FLUSH_RANGE, __func__, (vma)->vm_mm, 1, (start), (end),    \
		 (stride), (long)(a5), (long)(a6))
#define __flush_tlb_range_nosync(vma_or_mm, start, end, stride, a5, a6)       \
	kt_flush(KT_FLUSH_RANGE_NOSYNC, __func__, KT_MM_OF(vma_or_mm),        \
		 KT_IS_VMA(vma_or_mm), (start), (end), (stride), (long)(a5), (long)(a6))
#define flush_tlb_range(vma, start, end)                                      \
	kt_flush(KT_FLUSH_TLB_RANGE, __func__, (vma)->vm_mm, 1, (start), (end), 0, -1, -1)
#define flush_tlb_page(vma, addr)                                             \
	kt_flush(KT_FLUSH_PAGE, __func__, (vma)->vm_mm, 1, (addr), (addr) + PAGE_SIZE, 0, -1, -1)
#define __flush_tlb_page_nosync(mm, addr)                                     \
	kt_flush(KT_FLUSH_PAGE_NOSYNC, __func__, KT_MM_OF(mm), KT_IS_VMA(mm), (addr), \
		 (addr) + PAGE_SIZE, 0, -1, -1)
#define flush_tlb_mm(mm) kt_flush(KT_FLUSH_MM, __func__, (mm), 0, 0, ~0UL, 0, -1, -1)

/* ---- asm/pgtable.h: what the kernel keeps beside the arch wrappers ---- */
/* End of the contiguous block holding addr, or end if that comes first. */
static inline unsigned long pte_cont_addr_end(unsigned long addr, unsigned long end)
{
	unsigned long boundary = (addr + CONT_PTE_SIZE) & CONT_PTE_MASK;

	return boundary - 1 < end - 1 ? boundary : end;
}

/* __clear_full_ptes, __get_and_clear_full_ptes, __wrprotect_ptes: core/kcompat.h */

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
