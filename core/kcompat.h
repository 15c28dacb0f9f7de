/*
 * core/kcompat.h - the kernel-compatibility header.
 *
 * What every kernel-dialect file is built on: the project's own
 * core/kernel/ sources (core/variant_tu.c includes it first), and through
 * the kernel-tree shim (kernel_tree/shim/kt_shim.h) a kernel tree's
 * contpte.c and a user's plug-in file (tools/hammer --reader-file). Such
 * files get the kernel's types and helpers from here, and every access to
 * an entry goes through the access layer (core/access.h), so the same file
 * runs on real atomics, on AArch64 assembly or under the deterministic
 * scheduler without change. A build that needs other behaviour for a name
 * defined here sets its hook point (KC_TLB_FLUSH, KC_BBML2_NOABORT, KC_BBML2) before
 * including this header; no name is defined twice.
 *
 * Build-time knobs:
 *   KC_GRANULE_KB      4, 16 or 64 (default 4)
 *   KC_VARIANT_ID      identifier: rename entry points (built-in variants)
 *   KC_WEAK_DEFAULTS   make the project's entry points weak (plug-in builds)
 *   KC_PLANT           name from core/kernel/mutants.def to plant
 *   CONTPTE_EARLY_EXIT 1 = the early-exit gather (the early-exit patch, docs/glossary.md)
 */
#ifndef CORE_KCOMPAT_H
#define CORE_KCOMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/access.h"
#include "core/cpu.h"
#include "core/mm_types.h"
#include "core/pte.h"

/* ---- configuration ---------------------------------------------------- */
#ifndef KC_GRANULE_KB
#define KC_GRANULE_KB 4
#endif
#if KC_GRANULE_KB == 4
#define PAGE_SHIFT 12
#define CONT_PTE_SHIFT 4
#elif KC_GRANULE_KB == 16
#define PAGE_SHIFT 14
#define CONT_PTE_SHIFT 7
#elif KC_GRANULE_KB == 64
#define PAGE_SHIFT 16
#define CONT_PTE_SHIFT 5
#else
#error "KC_GRANULE_KB must be 4, 16 or 64"
#endif
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define CONT_PTES (1 << CONT_PTE_SHIFT)
#define CONT_PTE_SIZE (CONT_PTES * PAGE_SIZE)
#define CONT_PTE_MASK (~(CONT_PTE_SIZE - 1))

#ifndef CONTPTE_EARLY_EXIT
#define CONTPTE_EARLY_EXIT 0
#endif

/* ---- compiler and generic kernel bits -------------------------------- */
typedef uint64_t u64;
typedef uint32_t u32;
typedef int64_t s64;
typedef uint64_t pteval_t;
typedef uint64_t pgprotval_t;

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#undef __always_inline
#define __always_inline inline __attribute__((always_inline))
#define noinline __attribute__((noinline))
#define __maybe_unused __attribute__((unused))
#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
/* The kernel's forms, evaluations included (a patch's side effects in an
 * argument happen as often as in the kernel): the VM_* checks compile
 * their condition without evaluating it (CONFIG_DEBUG_VM off,
 * BUILD_BUG_ON_INVALID); min() and max() evaluate each argument once;
 * ALIGN() and ALIGN_DOWN() evaluate the alignment more than once. */
#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)
#define BUILD_BUG_ON_INVALID(e) ((void)sizeof((long)(e)))
#define VM_WARN_ON_ONCE(cond) BUILD_BUG_ON_INVALID(cond)
#define VM_WARN_ON(cond) BUILD_BUG_ON_INVALID(cond)
#define WARN_ON_ONCE(cond) ({ int __c = !!(cond); __c; })
#define WARN_ON(cond) WARN_ON_ONCE(cond)
#define min(a, b)                                                              \
	({ __typeof__(a) __kc_min_a = (a); __typeof__(b) __kc_min_b = (b);     \
	   __kc_min_a < __kc_min_b ? __kc_min_a : __kc_min_b; })
#define max(a, b)                                                              \
	({ __typeof__(a) __kc_max_a = (a); __typeof__(b) __kc_max_b = (b);     \
	   __kc_max_a > __kc_max_b ? __kc_max_a : __kc_max_b; })

#define ALIGN(x, a) (((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ALIGN((x) - ((a) - 1), (a))
/* Readers align down to the block's first entry once per scan: counting it
 * here gives the harness retries per read without a per-load cost (not in
 * ACCESS_BARE builds, which have no instruments). */
#ifdef ACCESS_BARE
#define PTR_ALIGN_DOWN(p, a) ((__typeof__(p))ALIGN_DOWN((unsigned long)(p), (a)))
#else
#define PTR_ALIGN_DOWN(p, a) \
	(acc_self.scans++, (__typeof__(p))ALIGN_DOWN((unsigned long)(p), (a)))
#endif
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)

/* READ_ONCE / WRITE_ONCE: 64-bit objects (entries) go through the access
 * layer; anything else is a plain volatile access. */
#define __KC_ONCE_UNION(x) union { __typeof__(x) __val; uint64_t __w; }
#define READ_ONCE(x)                                                          \
	__builtin_choose_expr(sizeof(x) == sizeof(uint64_t), ({                \
		__KC_ONCE_UNION(x) __u;                                        \
		__u.__w = acc_load((const uint64_t *)&(x));                    \
		__u.__val;                                                     \
	}), (*(const volatile __typeof__(x) *)&(x)))
#define WRITE_ONCE(x, v)                                                      \
	do {                                                                   \
		if (sizeof(x) == sizeof(uint64_t)) {                           \
			__KC_ONCE_UNION(x) __u = { .__val = (v) };             \
			acc_store((uint64_t *)&(x), __u.__w);                  \
		} else {                                                       \
			*(volatile __typeof__(x) *)&(x) = (v);                 \
		}                                                              \
	} while (0)

/* Atomics on an entry's value (pointer to the 64-bit word). */
#define cmpxchg_relaxed(ptr, o, n)                                            \
	((__typeof__(*(ptr)))acc_cmpxchg((uint64_t *)(ptr), (uint64_t)(o), (uint64_t)(n)))
#define cmpxchg(ptr, o, n)                                                    \
	({ acc_mb(); __typeof__(*(ptr)) __r = cmpxchg_relaxed(ptr, o, n); acc_mb(); __r; })
#define try_cmpxchg_relaxed(ptr, po, n)                                       \
	({ __typeof__(po) __po = (po);                                         \
	   __typeof__(*(ptr)) __o = *__po;                                     \
	   __typeof__(*(ptr)) __r = cmpxchg_relaxed(ptr, __o, n);              \
	   if (__r != __o) *__po = __r; __r == __o; })
#define xchg_relaxed(ptr, v)                                                  \
	((__typeof__(*(ptr)))acc_xchg((uint64_t *)(ptr), (uint64_t)(v)))
#define xchg(ptr, v)                                                          \
	({ acc_mb(); __typeof__(*(ptr)) __r = xchg_relaxed(ptr, v); acc_mb(); __r; })

#define smp_mb() acc_mb()
#define smp_rmb() acc_rmb()
#define smp_wmb() acc_wmb()
/* A DSB also completes the thread's _nosync TLB flushes (core/tlb.h);
 * the option is not told apart (the kernel completes a TLBI with
 * dsb(ish)). */
#define dsb(opt) kc_dsb()
#define isb() acc_isb()
#define barrier() __asm__ __volatile__("" ::: "memory")

/* ---- the PTE types and helpers (asm/pgtable-types.h, asm/pgtable.h) --- */
/* pte_t itself: core/mm_types.h (the runtime passes it to entry points) */
typedef struct { pgprotval_t pgprot; } pgprot_t;
#define pte_val(x) ((x).pte)
#define __pte(x) ((pte_t){ (x) })
#define pgprot_val(x) ((x).pgprot)
#define __pgprot(x) ((pgprot_t){ (x) })

#define PTE_VALID PTE_BIT_VALID
#define PTE_TABLE_BIT PTE_BIT_TABLE
#define PTE_TYPE_PAGE (PTE_BIT_VALID | PTE_BIT_TABLE)
#define PTE_USER PTE_BIT_USER
#define PTE_RDONLY PTE_BIT_RDONLY
#define PTE_SHARED PTE_BIT_SHARED
#define PTE_AF PTE_BIT_AF
#define PTE_NG PTE_BIT_NG
#define PTE_WRITE PTE_BIT_WRITE
#define PTE_DBM PTE_BIT_WRITE
#define PTE_CONT PTE_BIT_CONT
#define PTE_PXN PTE_BIT_PXN
#define PTE_UXN PTE_BIT_UXN
#define PTE_DIRTY PTE_BIT_DIRTY
#define PTE_SPECIAL PTE_BIT_SPECIAL
#define PTE_UFFD_WP PTE_BIT_UFFD_WP
#define PTE_ADDR_MASK pm_addr_mask(PAGE_SHIFT)

/*
 * The helpers keep the kernel's forms: what asm/pgtable.h defines as a
 * macro that evaluates its argument more than once is such a macro here
 * too (pte_hw_dirty, pte_dirty, pte_valid_cont, pte_present), so code that
 * passes an expression with a side effect (pte_dirty(__ptep_get(p++)))
 * gets what it gets in the kernel; the others are functions of one
 * evaluation, as the kernel's one-evaluation macros and static inlines.
 */
static inline bool pte_none(pte_t p) { return !pte_val(p); }
static inline bool pte_valid(pte_t p) { return pm_valid(pte_val(p)); }
/* an entry made invalid but kept present (PROT_NONE): not in the model */
static inline bool pte_present_invalid(pte_t p) { (void)p; return false; }
#define pte_present(pte) (pte_valid(pte) || pte_present_invalid(pte))
static inline bool pte_cont(pte_t p) { return pm_cont(pte_val(p)); }
#define pte_valid_cont(pte) (pte_valid(pte) && pte_cont(pte))
static inline bool pte_young(pte_t p) { return pm_young(pte_val(p)); }
static inline bool pte_write(pte_t p) { return pm_write(pte_val(p)); }
static inline bool pte_rdonly(pte_t p) { return pm_rdonly(pte_val(p)); }
#define pte_hw_dirty(pte) (pte_write(pte) && !pte_rdonly(pte))
static inline bool pte_sw_dirty(pte_t p) { return pm_sw_dirty(pte_val(p)); }
#define pte_dirty(pte) (pte_sw_dirty(pte) || pte_hw_dirty(pte))
static inline pte_t pte_mkyoung(pte_t p) { return __pte(pm_mkyoung(pte_val(p))); }
static inline pte_t pte_mkold(pte_t p) { return __pte(pm_mkold(pte_val(p))); }
static inline pte_t pte_mkdirty(pte_t p) { return __pte(pm_mkdirty(pte_val(p))); }
static inline pte_t pte_mkclean(pte_t p) { return __pte(pm_mkclean(pte_val(p))); }
static inline pte_t pte_wrprotect(pte_t p) { return __pte(pm_wrprotect(pte_val(p))); }
static inline pte_t pte_mkwrite_novma(pte_t p) { return __pte(pm_mkwrite(pte_val(p))); }
static inline pte_t pte_mkcont(pte_t p) { return __pte(pm_mkcont(pte_val(p))); }
static inline pte_t pte_mknoncont(pte_t p) { return __pte(pm_mknoncont(pte_val(p))); }
static inline pgprot_t pte_pgprot(pte_t p) { return __pgprot(pm_pgprot(pte_val(p), PAGE_SHIFT)); }
static inline unsigned long pte_pfn(pte_t p) { return pm_pfn(pte_val(p), PAGE_SHIFT); }
static inline pte_t pfn_pte(unsigned long pfn, pgprot_t prot)
{
	return __pte(pm_pfn_pte(pfn, pgprot_val(prot), PAGE_SHIFT));
}
static inline pte_t pte_advance_pfn(pte_t p, unsigned long nr)
{
	return pfn_pte(pte_pfn(p) + nr, pte_pgprot(p));
}
static inline int pte_same(pte_t a, pte_t b) { return pm_same(pte_val(a), pte_val(b)); }

/* const: the newest kernels' contpte_ptep_get* take const pte_t * */
static inline pte_t __ptep_get(const pte_t *ptep) { return __pte(READ_ONCE(pte_val(*ptep))); }
/* As arm64 does: a barrier after the store only for a valid kernel
 * (non-user) entry, which the kernel itself may use at once; user entries
 * get none (their walkers cope: a fault retries), so stores to them may
 * become visible out of order. */
static inline bool pte_valid_not_user(pte_t p)
{
	return (pte_val(p) & (PTE_VALID | PTE_USER)) == PTE_VALID;
}
static inline void __set_pte(pte_t *ptep, pte_t pte)
{
	WRITE_ONCE(pte_val(*ptep), pte_val(pte));
	if (pte_valid_not_user(pte)) {
		dsb(ishst);
		isb();
	}
}

/* ---- TLB maintenance (asm/tlbflush.h) and BBML2 (asm/cpufeature.h) ---- */
/*
 * A flush is counted (kc_tlb_flush, kc_tlb_flush_nosync for the _nosync
 * helpers) and, with the TLB model on (--tlb, core/tlb.h), invalidates:
 * the synchronous helpers at once, the _nosync ones at the thread's next
 * dsb().
 * Each flush function is defined here once, as a macro that hands the call
 * to one hook point:
 *
 *   KC_TLB_FLUSH(name, caller, mm, first_is_vma, start, end, stride, a5, a6)
 *
 * name is the flush function (a token), caller the calling function
 * (__func__), first_is_vma whether its first argument was a vma rather than
 * an mm, a5/a6 the last two arguments of the six-argument forms (-1 for the
 * others). By default the harness counts the flush; a build that wants to
 * see the calls defines KC_TLB_FLUSH before including this header (the
 * kernel-tree shim logs them: kernel_tree/shim/hooks.h).
 *
 * The signatures drifted between kernel generations and one definition
 * takes every form: __flush_tlb_range kept six arguments while the last two
 * went from (last_level, tlb_level) to (tlb_level, TLBF_* flags);
 * __flush_tlb_range_nosync and __flush_tlb_page_nosync took a vma, later an
 * mm (_Generic accepts either, and nothing else); some trees dropped the
 * stride of the range flushes (five arguments: the stride is then the
 * page, what a leaf flush of a contiguous block uses). A flush whose last
 * argument is a TLBF_* flags word (__flush_tlb_page(vma, addr, flags) of
 * the newest trees) keeps the scope the flags give it in the shim's log
 * (kernel_tree/report.c); by default it is a synchronous flush.
 */
#define KC_TLB_HOOK___flush_tlb_range kc_tlb_flush
#define KC_TLB_HOOK___flush_tlb_range_nosync kc_tlb_flush_nosync
#define KC_TLB_HOOK_flush_tlb_range kc_tlb_flush
#define KC_TLB_HOOK_flush_tlb_page kc_tlb_flush
#define KC_TLB_HOOK___flush_tlb_page_nosync kc_tlb_flush_nosync
#define KC_TLB_HOOK_flush_tlb_mm kc_tlb_flush
#define KC_TLB_HOOK_local_flush_tlb_contpte kc_tlb_flush_local
#define KC_TLB_HOOK_flush_tlb_page_nosync kc_tlb_flush_nosync
#define KC_TLB_HOOK___flush_tlb_page kc_tlb_flush
#define KC_TLB_HOOK_local_flush_tlb_contpte_range kc_tlb_flush_local
#ifndef KC_TLB_FLUSH
#define KC_TLB_FLUSH(name, caller, mm, first_is_vma, start, end, stride, a5, a6) \
	KC_TLB_HOOK_##name((mm), (start), (end))
#endif
#define KC_MM_OF(x)                                                            \
	_Generic((x), struct vm_area_struct *: ((struct vm_area_struct *)(x))->vm_mm, \
		 struct mm_struct *: (struct mm_struct *)(x))
#define KC_IS_VMA(x) _Generic((x), struct vm_area_struct *: 1, struct mm_struct *: 0)

#define TLB_FLUSH_VMA(mm, flags) { .vm_mm = (mm), .vm_flags = (flags) }
/* The range flushes take six arguments, or five without the stride. */
#define KC_PICK_5_OR_6(a1, a2, a3, a4, a5, a6, pick, ...) pick
#define __flush_tlb_range(...)                                                 \
	KC_PICK_5_OR_6(__VA_ARGS__, kc_flush_tlb_range6, kc_flush_tlb_range5,   \
		       __flush_tlb_range_takes_5_or_6_arguments)(__VA_ARGS__)
#define kc_flush_tlb_range6(vma, start, end, stride, a5, a6)                   \
	KC_TLB_FLUSH(__flush_tlb_range, __func__, (vma)->vm_mm, 1, (start), (end), \
		     (stride), (long)(a5), (long)(a6))
#define kc_flush_tlb_range5(vma, start, end, a4, a5)                           \
	KC_TLB_FLUSH(__flush_tlb_range, __func__, (vma)->vm_mm, 1, (start), (end), \
		     0, (long)(a4), (long)(a5))
#define __flush_tlb_range_nosync(...)                                          \
	KC_PICK_5_OR_6(__VA_ARGS__, kc_flush_tlb_range_nosync6,                 \
		       kc_flush_tlb_range_nosync5,                              \
		       __flush_tlb_range_nosync_takes_5_or_6_arguments)(__VA_ARGS__)
#define kc_flush_tlb_range_nosync6(vma_or_mm, start, end, stride, a5, a6)      \
	KC_TLB_FLUSH(__flush_tlb_range_nosync, __func__, KC_MM_OF(vma_or_mm),   \
		     KC_IS_VMA(vma_or_mm), (start), (end), (stride), (long)(a5), (long)(a6))
#define kc_flush_tlb_range_nosync5(vma_or_mm, start, end, a4, a5)              \
	KC_TLB_FLUSH(__flush_tlb_range_nosync, __func__, KC_MM_OF(vma_or_mm),   \
		     KC_IS_VMA(vma_or_mm), (start), (end), 0, (long)(a4), (long)(a5))
#define flush_tlb_range(vma, start, end)                                       \
	KC_TLB_FLUSH(flush_tlb_range, __func__, (vma)->vm_mm, 1, (start), (end), 0, -1, -1)
/* The page flushes are the kernel's static inlines: each argument
 * evaluated once. */
#define KC_FLUSH_PAGE(name, mm, first_is_vma, addr, a6)                        \
	({ unsigned long __kc_addr = (unsigned long)(addr);                    \
	   KC_TLB_FLUSH(name, __func__, (mm), (first_is_vma), __kc_addr,       \
			__kc_addr + PAGE_SIZE, 0, -1, (a6)); })
#define flush_tlb_page(vma, addr) KC_FLUSH_PAGE(flush_tlb_page, (vma)->vm_mm, 1, (addr), -1)
#define __flush_tlb_page_nosync(vma_or_mm, addr)                               \
	KC_FLUSH_PAGE(__flush_tlb_page_nosync, KC_MM_OF(vma_or_mm), KC_IS_VMA(vma_or_mm), (addr), -1)
#define flush_tlb_page_nosync(vma, addr)                                       \
	KC_FLUSH_PAGE(flush_tlb_page_nosync, (vma)->vm_mm, 1, (addr), -1)
#define __flush_tlb_page(vma, addr, flags)                                     \
	KC_FLUSH_PAGE(__flush_tlb_page, (vma)->vm_mm, 1, (addr), (long)(flags))
#define flush_tlb_mm(mm) KC_TLB_FLUSH(flush_tlb_mm, __func__, (mm), 0, 0, ~0UL, 0, -1, -1)
/* The calling CPU's TLB only, for the block holding addr (the newest trees'
 * contpte_ptep_set_access_flags: a change that only grants more). */
#define local_flush_tlb_contpte(vma, addr)                                     \
	({ unsigned long __kc_start = ALIGN_DOWN((unsigned long)(addr), CONT_PTE_SIZE); \
	   KC_TLB_FLUSH(local_flush_tlb_contpte, __func__, (vma)->vm_mm, 1,     \
			__kc_start, __kc_start + CONT_PTE_SIZE, PAGE_SIZE, -1, -1); })
/* The same for a range (a posting of that change). */
#define local_flush_tlb_contpte_range(vma, start, end)                         \
	KC_TLB_FLUSH(local_flush_tlb_contpte_range, __func__, (vma)->vm_mm, 1,  \
		     (start), (end), PAGE_SIZE, -1, -1)

/* The modelled CPU's BBML2 (the hammer's --bbml2=noabort|abort, core/cpu.h):
 * a BBML2_NOABORT CPU answers both questions yes, a BBML2 CPU that may
 * raise a TLB conflict abort only the second. The hook points
 * KC_BBML2_NOABORT() and KC_BBML2() let the kernel-tree shim count the
 * questions as well. */
#ifndef KC_BBML2_NOABORT
#define KC_BBML2_NOABORT() (kc_bbml2 == CPU_BBML2_NOABORT)
#endif
#ifndef KC_BBML2
#define KC_BBML2() (kc_bbml2 != CPU_BBML2_NONE)
#endif
#define system_supports_bbml2_noabort() KC_BBML2_NOABORT()
/* the newest trees' name for the same question: FEAT_BBML3 is BBML2_NOABORT
 * made architectural (no TLB conflict abort on a change of size) */
#define system_supports_bbml3() KC_BBML2_NOABORT()
#define system_supports_bbml2() KC_BBML2()

/* ---- planted bugs (core/kernel/mutants.def) --------------------------- */
enum kc_mutant_id {
	KC_MUT_none = 0,
#define KC_MUTANT(name, base, kind, what) KC_MUT_##name,
#include "core/kernel/mutants.def"
#undef KC_MUTANT
};
#define KC_MUT_PASTE_(n) KC_MUT_##n
#define KC_MUT_PASTE(n) KC_MUT_PASTE_(n)
#ifdef KC_PLANT
#define KC_MUTANT_ID KC_MUT_PASTE(KC_PLANT)
#else
#define KC_MUTANT_ID KC_MUT_none
#endif
/* True in the one variant that plants this bug; folds to 0 elsewhere. */
#define MUTANT(name) (KC_MUTANT_ID == KC_MUT_##name)

/* ---- entry points: prototypes, renaming, weak defaults ----------------- */
#ifdef KC_VARIANT_ID
#define KC_CAT3_(a, b, c) a##b##c
#define KC_CAT3(a, b, c) KC_CAT3_(a, b, c)
#define KC_RENAME(name) KC_CAT3(KC_VARIANT_ID, __, name)
#ifdef ACCESS_BARE
/* The bench's builds: entry points stay out of line, as in the kernel, where
 * contpte.c's functions are called from other files; otherwise the inliner
 * decides which reader the bench measures inside its caller. */
#define KC_ENTRY(ret, name, params) ret KC_RENAME(name) params __attribute__((__noinline__));
#else
#define KC_ENTRY(ret, name, params) ret KC_RENAME(name) params;
#endif
#include "core/kernel/entry_points.def"
#undef KC_ENTRY
#include "core/kernel/entry_points_rename.h"
#elif defined(KC_WEAK_DEFAULTS)
#define KC_ENTRY(ret, name, params) ret name params __attribute__((weak));
#include "core/kernel/entry_points.def"
#undef KC_ENTRY
#else
#define KC_ENTRY(ret, name, params) ret name params;
#include "core/kernel/entry_points.def"
#undef KC_ENTRY
#endif

#endif
