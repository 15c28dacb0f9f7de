/*
 * kernel_tree/shim/hooks.h - the part of the kernel-tree shim wired to the
 * harness: kernel names whose answers come from the harness rather than
 * from a stub or a copy of the kernel.
 *
 *   - TLB flushes: core/kcompat.h defines every flush function once; its
 *     hook point KC_TLB_FLUSH is set here, so each flush the file asks for
 *     is counted and logged with its caller and arguments
 *     (kernel_tree/report.c) and then counted as the harness's own flush;
 *   - TLBF_* flags, carrying a marker bit by which the log tells a flags
 *     word (newer trees) from a TLB level (older trees);
 *   - BBML2: kcompat.h's hook points KC_BBML2_NOABORT and KC_BBML2, the
 *     hammer's --bbml2=noabort|abort with each question counted;
 *   - the CPU capability probes by number (cpus_have_cap(ARM64_...) and
 *     its kin): each asks kt_cpucap_<CAP>(); BBML2_NOABORT and BBML3 (the
 *     same) are the ones the harness models, every other the probe
 *     (kernel_tree/probe.sh) defines as a probe the harness does not
 *     model (false unless --cap);
 *   - pages and folios, answered from the harness's folio model, and
 *     init_mm (defined in kernel_tree/shim/hooks.c).
 *
 * It sets kcompat.h's hook points, so it must come before core/kcompat.h;
 * kernel_tree/shim/kt_shim.h includes it first.
 */
#ifndef KERNEL_TREE_SHIM_HOOKS_H
#define KERNEL_TREE_SHIM_HOOKS_H

#ifdef CORE_KCOMPAT_H
#error "kernel_tree/shim/hooks.h sets core/kcompat.h's hook points: include it (or kernel_tree/shim/kt_shim.h) before core/kcompat.h"
#endif

#include "kernel_tree/report.h"

/* ---- asm/tlbflush.h: every flush counted and logged ---------------- */
/* kcompat.h passes the flush function's name; report.c numbers them. */
#define KT_FLUSH_ID___flush_tlb_range KT_FLUSH_RANGE
#define KT_FLUSH_ID___flush_tlb_range_nosync KT_FLUSH_RANGE_NOSYNC
#define KT_FLUSH_ID_flush_tlb_range KT_FLUSH_TLB_RANGE
#define KT_FLUSH_ID_flush_tlb_page KT_FLUSH_PAGE
#define KT_FLUSH_ID___flush_tlb_page_nosync KT_FLUSH_PAGE_NOSYNC
#define KT_FLUSH_ID_flush_tlb_mm KT_FLUSH_MM
#define KT_FLUSH_ID_local_flush_tlb_contpte KT_FLUSH_LOCAL_CONTPTE
#define KT_FLUSH_ID_flush_tlb_page_nosync KT_FLUSH_PAGE_NOSYNC_VMA
#define KT_FLUSH_ID___flush_tlb_page KT_FLUSH_PAGE_FLAGS
#define KT_FLUSH_ID_local_flush_tlb_contpte_range KT_FLUSH_LOCAL_CONTPTE_RANGE
#define KC_TLB_FLUSH(name, caller, mm, first_is_vma, start, end, stride, a5, a6) \
	kt_flush(KT_FLUSH_ID_##name, (caller), (mm), (first_is_vma), (start), (end), \
		 (stride), (a5), (a6))

/* ---- asm/cpufeature.h: BBML2, counted, wired to --bbml2 ---------------- */
#define KC_BBML2_NOABORT() kt_bbml2_noabort()
#define KC_BBML2() kt_bbml2()

#include "core/kcompat.h"

/* ---- asm/cpufeature.h, asm/alternative-macros.h: probes by number ------ */
/* The capability's name is pasted, never evaluated: a file that asks about
 * ARM64_HAS_FOO gets kt_cpucap_ARM64_HAS_FOO(), which the probe defines
 * when the shim does not (a compile error naming it tells it which). */
#define KT_CPUCAP(cap) kt_cpucap_##cap()
#define cpus_have_cap(cap) KT_CPUCAP(cap)
#define cpus_have_const_cap(cap) KT_CPUCAP(cap)
#define cpus_have_final_cap(cap) KT_CPUCAP(cap)
#define cpus_have_final_boot_cap(cap) KT_CPUCAP(cap)
#define this_cpu_has_cap(cap) KT_CPUCAP(cap)
#define alternative_has_cap_likely(cap) KT_CPUCAP(cap)
#define alternative_has_cap_unlikely(cap) KT_CPUCAP(cap)
#define kt_cpucap_ARM64_HAS_BBML2_NOABORT() system_supports_bbml2_noabort()
#define kt_cpucap_ARM64_HAS_BBML3() system_supports_bbml2_noabort()

#define TLBF_NONE        (KT_TLBF_MARK)
#define TLBF_NOWALKCACHE (KT_TLBF_MARK | 0x1)
#define TLBF_NOSYNC      (KT_TLBF_MARK | 0x2)
#define TLBF_NOBROADCAST (KT_TLBF_MARK | 0x4)
#define TLBF_NONOTIFY    (KT_TLBF_MARK | 0x8)

/* ---- asm/pgtable.h, linux/types.h: an entry's output address ----------- */
/* The physical address an entry maps, in the harness's page-frame model
 * (core/pte.h: pfn << PAGE_SHIFT in the address field), for code that works
 * in addresses rather than pfns. */
typedef u64 phys_addr_t;
static inline phys_addr_t __pte_to_phys(pte_t pte) { return (phys_addr_t)pte_pfn(pte) << PAGE_SHIFT; }
static inline pteval_t __phys_to_pte_val(phys_addr_t phys) { return phys & PTE_ADDR_MASK; }

/* ---- linux/mm_types.h, linux/mm.h: init_mm, pages and folios ---------- */
/*
 * The harness maps one folio per contiguous block: CONT_PTES pages starting
 * at a CONT_PTES-aligned pfn (core/ops.c). struct page is never read or
 * written by contpte.c, only located and subtracted, so a small window of
 * page structs indexed by pfn modulo its size keeps every in-folio offset
 * exact (page - &folio->page) without memory per pfn.
 */
struct page {
	unsigned long kt_unused;
};
struct folio {
	struct page page;
};
extern struct mm_struct init_mm;
#define KT_MEM_MAP_PAGES (1UL << 16)
extern struct page kt_mem_map[KT_MEM_MAP_PAGES];

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

#endif
