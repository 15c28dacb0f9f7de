/*
 * core/kcompat.h - the kernel-compatibility header.
 *
 * Force-included (-include) into every kernel-dialect file: the project's
 * own core/kernel/ sources, a user's plug-in file (tools/hammer --reader-file),
 * later a kernel tree's contpte.c. Such files have no #include lines; they
 * get the kernel's types and helpers from here, and every access to an
 * entry goes through the access layer (core/access.h), so the same file
 * runs on real atomics, on AArch64 assembly or under the deterministic
 * scheduler without change.
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
#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)
#define VM_WARN_ON_ONCE(cond) ((void)(cond))
#define VM_WARN_ON(cond) ((void)(cond))
#define WARN_ON_ONCE(cond) ({ int __c = !!(cond); __c; })
#define WARN_ON(cond) WARN_ON_ONCE(cond)
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))

#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define ALIGN(x, a) (((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
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
	({ __typeof__(*(ptr)) __o = *(po);                                     \
	   __typeof__(*(ptr)) __r = cmpxchg_relaxed(ptr, __o, n);              \
	   if (__r != __o) *(po) = __r; __r == __o; })
#define xchg_relaxed(ptr, v)                                                  \
	((__typeof__(*(ptr)))acc_xchg((uint64_t *)(ptr), (uint64_t)(v)))
#define xchg(ptr, v)                                                          \
	({ acc_mb(); __typeof__(*(ptr)) __r = xchg_relaxed(ptr, v); acc_mb(); __r; })

#define smp_mb() acc_mb()
#define smp_rmb() acc_rmb()
#define smp_wmb() acc_wmb()
#define dsb(opt) acc_dsb()
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

static inline bool pte_none(pte_t p) { return !pte_val(p); }
static inline bool pte_valid(pte_t p) { return pm_valid(pte_val(p)); }
static inline bool pte_present(pte_t p) { return pm_valid(pte_val(p)); }
static inline bool pte_cont(pte_t p) { return pm_cont(pte_val(p)); }
static inline bool pte_valid_cont(pte_t p) { return pm_valid_cont(pte_val(p)); }
static inline bool pte_young(pte_t p) { return pm_young(pte_val(p)); }
static inline bool pte_write(pte_t p) { return pm_write(pte_val(p)); }
static inline bool pte_rdonly(pte_t p) { return pm_rdonly(pte_val(p)); }
static inline bool pte_hw_dirty(pte_t p) { return pm_hw_dirty(pte_val(p)); }
static inline bool pte_sw_dirty(pte_t p) { return pm_sw_dirty(pte_val(p)); }
static inline bool pte_dirty(pte_t p) { return pm_dirty(pte_val(p)); }
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
static inline void __set_pte(pte_t *ptep, pte_t pte)
{
	WRITE_ONCE(pte_val(*ptep), pte_val(pte));
	if (pte_valid(pte))
		dsb(ishst);
}

/* ---- TLB maintenance: counted by the harness, otherwise no-ops -------- */
#define TLB_FLUSH_VMA(mm, flags) { .vm_mm = (mm), .vm_flags = (flags) }
static inline void __flush_tlb_range(struct vm_area_struct *vma, unsigned long start,
				     unsigned long end, unsigned long stride,
				     bool last_level, int tlb_level)
{
	(void)stride; (void)last_level; (void)tlb_level;
	kc_tlb_flush(vma->vm_mm, start, end);
}
static inline void flush_tlb_range(struct vm_area_struct *vma, unsigned long start,
				   unsigned long end)
{
	kc_tlb_flush(vma->vm_mm, start, end);
}
static inline void flush_tlb_mm(struct mm_struct *mm) { kc_tlb_flush(mm, 0, ~0UL); }
static inline bool system_supports_bbml2_noabort(void) { return kc_bbml2_noabort; }

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

/* ---- batched per-entry helpers (asm/pgtable.h), on the primitives above - */
static inline void __clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				     pte_t *ptep, unsigned int nr, int full)
{
	(void)full;
	for (; nr; nr--, ptep++, addr += PAGE_SIZE)
		__ptep_get_and_clear(mm, addr, ptep);
}

/* The first entry, with the access/dirty state of all nr OR-ed in: the
 * caller must not lose the dirtiness of what it unmaps. */
static inline pte_t __get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
					      pte_t *ptep, unsigned int nr, int full)
{
	pte_t pte = __ptep_get_and_clear(mm, addr, ptep), ent;

	(void)full;
	while (--nr) {
		ptep++;
		addr += PAGE_SIZE;
		ent = __ptep_get_and_clear(mm, addr, ptep);
		if (pte_dirty(ent))
			pte = pte_mkdirty(pte);
		if (pte_young(ent))
			pte = pte_mkyoung(pte);
	}
	return pte;
}

static inline void __wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
				    pte_t *ptep, unsigned int nr)
{
	for (; nr; nr--, ptep++, addr += PAGE_SIZE)
		__ptep_set_wrprotect(mm, addr, ptep);
}

#endif
