/*
 * stage2/kernel_tree/shim/s2_shim.h - what a tree's arch/arm64/kvm/hyp/
 * pgtable.c and its asm/kvm_pgtable.h are built on: every kernel header
 * they include (<linux/kvm_host.h>, <linux/bitfield.h>, <asm/kvm_mmu.h>,
 * ...) is one line including this file (shim/include/), as the contpte
 * subject's shim does (docs/kernel-tree.md).
 *
 * Three kinds of definition, as there:
 *   the kernel's vocabulary (types, bit and field helpers, errors,
 *     alignment, the page and level geometry of the build's granule),
 *     duplicated from the kernel's meaning, kept in step with it;
 *   what is wired to the harness: every access to an entry (READ_ONCE,
 *     WRITE_ONCE, cmpxchg, smp_store_release, ...), barriers, RCU, the
 *     TLB maintenance the tree asks for, CPU features, the tree's own
 *     WARN_ON/BUG_ON: out-of-line calls into stage2/runtime/ (s2.h), so
 *     that the unit is the same object on real threads and on the engine;
 *   no-ops (lockdep, exports, annotations).
 * S2_GRANULE_KB (4, 16, 64) is the build's page size.
 */
#ifndef STAGE2_SHIM_H
#define STAGE2_SHIM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stage2/runtime/s2.h"

/* ---- the kernel's vocabulary ------------------------------------------- */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef u64 phys_addr_t;
typedef u64 kvm_pfn_t;
typedef u64 gfn_t;
typedef u64 gpa_t;
typedef u64 hpa_t;
/* pKVM's mappings tree in struct kvm_pgtable (never used at stage 2 here) */
struct rb_root_cached { void *rb_node, *rb_leftmost; };

#define __rcu
#undef __always_inline
#define __always_inline inline __attribute__((always_inline))
#define __init
#define __maybe_unused __attribute__((unused))
#define __must_check
#define noinline __attribute__((noinline))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define EXPORT_SYMBOL(x)
#define EXPORT_SYMBOL_GPL(x)
#define fallthrough __attribute__((__fallthrough__))

/* the kernel's errno values (the C library's <errno.h> would reach for
 * <linux/errno.h>, which is this shim) */
#define EPERM 1
#define ENOENT 2
#define E2BIG 7
#define EAGAIN 11
#define ENOMEM 12
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define EINVAL 22
#define ENOSPC 28
#define ERANGE 34
#define EOPNOTSUPP 95
#define ENOTSUPP 524

#define BIT(nr) (1UL << (nr))
#define BIT_ULL(nr) (1ULL << (nr))
#define GENMASK(h, l) (((~0UL) - (1UL << (l)) + 1) & (~0UL >> (63 - (h))))
#define GENMASK_ULL(h, l) GENMASK(h, l)
#define FIELD_PREP(mask, val) \
	((__typeof__(mask))(((u64)(val) << __builtin_ctzll(mask)) & (mask)))
#define FIELD_GET(mask, reg) \
	((__typeof__(mask))(((reg) & (mask)) >> __builtin_ctzll(mask)))
#define FIELD_MAX(mask) ((__typeof__(mask))((mask) >> __builtin_ctzll(mask)))

#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define ALIGN(x, a) (((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)
#define PTR_ALIGN(p, a) ((__typeof__(p))ALIGN((unsigned long)(p), (a)))

#define min(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); __a < __b ? __a : __b; })
#define max(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); __a > __b ? __a : __b; })
#define min_t(t, a, b) min((t)(a), (t)(b))
#define max_t(t, a, b) max((t)(a), (t)(b))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) ((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return IS_ERR_VALUE((unsigned long)ptr); }
static inline bool IS_ERR_OR_NULL(const void *ptr) { return !ptr || IS_ERR(ptr); }

/* ---- the granule ------------------------------------------------------- */
#if S2_GRANULE_KB == 4
#define PAGE_SHIFT 12
#define CONFIG_ARM64_4K_PAGES 1
#define VTCR_EL2_TGRAN_SL0_BASE 2UL
#elif S2_GRANULE_KB == 16
#define PAGE_SHIFT 14
#define CONFIG_ARM64_16K_PAGES 1
#define VTCR_EL2_TGRAN_SL0_BASE 3UL
#elif S2_GRANULE_KB == 64
#define PAGE_SHIFT 16
#define CONFIG_ARM64_64K_PAGES 1
#define VTCR_EL2_TGRAN_SL0_BASE 3UL
#else
#error "S2_GRANULE_KB must be 4, 16 or 64"
#endif
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PAGE_ALIGN(addr) ALIGN(addr, PAGE_SIZE)
#define PTRS_PER_PTE (1 << (PAGE_SHIFT - 3))
#define ARM64_HW_PGTABLE_LEVEL_SHIFT(n) ((PAGE_SHIFT - 3) * (4 - (n)) + 3)
#define ARM64_HW_PGTABLE_LEVELS(va_bits) (((va_bits) - 4) / (PAGE_SHIFT - 3))
#define __phys_to_pfn(paddr) ((unsigned long)((paddr) >> PAGE_SHIFT))
#define __pfn_to_phys(pfn) ((phys_addr_t)(pfn) << PAGE_SHIFT)
#define CONFIG_ARM64 1
#define CONFIG_KVM 1
#define CONFIG_ARM64_HW_AFDBM 1
#define CONFIG_ARM64_PA_BITS 48

/* Stage-2 translation control (asm/kvm_arm.h): the fields the tree reads. */
#define VTCR_EL2_T0SZ_MASK 0x3fUL
#define VTCR_EL2_T0SZ(x) (64 - (x))
#define VTCR_EL2_IPA(vtcr) (64 - ((vtcr) & VTCR_EL2_T0SZ_MASK))
#define VTCR_EL2_SL0_SHIFT 6
#define VTCR_EL2_SL0_MASK (3UL << VTCR_EL2_SL0_SHIFT)
#define VTCR_EL2_LVLS_TO_SL0(levels) \
	((VTCR_EL2_TGRAN_SL0_BASE - (4 - (levels))) << VTCR_EL2_SL0_SHIFT)
#define VTCR_EL2_SL0_TO_LVLS(sl0) ((sl0) + 4 - VTCR_EL2_TGRAN_SL0_BASE)
#define VTCR_EL2_LVLS(vtcr) VTCR_EL2_SL0_TO_LVLS(((vtcr) & VTCR_EL2_SL0_MASK) >> VTCR_EL2_SL0_SHIFT)
#define VTCR_EL2_PS_SHIFT 16
#define VTCR_EL2_HA BIT(21)
#define VTCR_EL2_VS_8BIT 0
#define VTCR_EL2_VS_16BIT BIT(19)
#define VTCR_EL2_FLAGS 0UL
#define ID_AA64MMFR0_EL1_PARANGE_MAX 5
#define ID_AA64MMFR0_EL1_PARANGE_SHIFT 0
static inline unsigned id_aa64mmfr0_parange_to_phys_shift(int parange) { (void)parange; return 48; }
static inline bool system_supports_lpa2(void) { return false; }

/* Stage-2 memory types (asm/memory.h, asm/pgtable-prot.h). */
#define MT_S2_NORMAL 0xf
#define MT_S2_NORMAL_NC 0x5
#define MT_S2_DEVICE_nGnRE 0x1
#define MT_S2_FWB_NORMAL 6
#define MT_S2_FWB_NORMAL_NC 5
#define MT_S2_FWB_DEVICE_nGnRE 1
#define PTE_S2_MEMATTR(t) ((u64)(t) << 2)
#define MT_S2_AS_S1 MT_S2_NORMAL
#define MT_S2_FWB_AS_S1 7
/* (attr, has_fwb) in trees before FWB became the CPU's alone, (attr) after */
#define S2_PSM2(attr, has_fwb) \
	({ u64 __val = (has_fwb) ? PTE_S2_MEMATTR(MT_S2_FWB_ ## attr) : PTE_S2_MEMATTR(MT_S2_ ## attr); __val; })
#define S2_PSM1(attr) S2_PSM2(attr, s2_cpu_has_fwb())
#define S2_PSM_PICK(_1, _2, name, ...) name
#define PAGE_S2_MEMATTR(...) S2_PSM_PICK(__VA_ARGS__, S2_PSM2, S2_PSM1)(__VA_ARGS__)

/* ---- wired to the harness: entries, barriers, RCU ---------------------- */
#define __S2_ONCE_UNION(x) union { __typeof__(x) __val; u64 __w; }
#define READ_ONCE(x)                                                          \
	__builtin_choose_expr(sizeof(x) == sizeof(u64), ({                     \
		__S2_ONCE_UNION(x) __u;                                        \
		__u.__w = s2_read_once((const u64 *)&(x));                     \
		__u.__val;                                                     \
	}), (*(const volatile __typeof__(x) *)&(x)))
#define WRITE_ONCE(x, v)                                                      \
	do {                                                                   \
		if (sizeof(x) == sizeof(u64)) {                                \
			__S2_ONCE_UNION(x) __u = { .__val = (v) };             \
			s2_write_once((u64 *)&(x), __u.__w);                   \
		} else {                                                       \
			*(volatile __typeof__(x) *)&(x) = (v);                 \
		}                                                              \
	} while (0)
#define cmpxchg_relaxed(ptr, o, n) \
	((__typeof__(*(ptr)))s2_cmpxchg_relaxed((u64 *)(ptr), (u64)(o), (u64)(n)))
#define cmpxchg(ptr, o, n) \
	((__typeof__(*(ptr)))s2_cmpxchg((u64 *)(ptr), (u64)(o), (u64)(n)))
#define xchg(ptr, v) ((__typeof__(*(ptr)))s2_xchg((u64 *)(ptr), (u64)(v)))
#define xchg_relaxed(ptr, v) xchg(ptr, v)
#define try_cmpxchg(ptr, po, n)                                               \
	({ __typeof__(*(ptr)) __o = *(po);                                     \
	   __typeof__(*(ptr)) __r = cmpxchg(ptr, __o, n);                      \
	   if (__r != __o) *(po) = __r; __r == __o; })
#define smp_store_release(p, v) s2_store_release((u64 *)(p), (u64)(v))
#define smp_load_acquire(p) ((__typeof__(*(p)))s2_load_acquire((const u64 *)(p)))
#define smp_mb() s2_mb()
#define smp_rmb() s2_rmb()
#define smp_wmb() s2_wmb()
#define mb() s2_mb()
#define dsb(opt) s2_dsb()
#define isb() s2_isb()
#define barrier() __asm__ __volatile__("" ::: "memory")

#define rcu_read_lock() s2_rcu_read_lock()
#define rcu_read_unlock() s2_rcu_read_unlock()
#define rcu_read_lock_held() s2_rcu_read_lock_held()
#define rcu_dereference_check(p, c) \
	((__typeof__(p))s2_rcu_dereference_check((void *)(p), !!(c), __FILE__, __LINE__))
#define rcu_dereference(p) rcu_dereference_check(p, 0)
#define rcu_dereference_raw(p) (p)
#define rcu_dereference_protected(p, c) (p)

/* The tree's own checks: a WARN is a bug report, so a violation here. */
#define WARN_ON(cond) ({ bool __c = !!(cond); if (unlikely(__c)) s2_kernel_warn(__FILE__, __LINE__, #cond); __c; })
#define WARN_ON_ONCE(cond) WARN_ON(cond)
#define WARN(cond, ...) WARN_ON(cond)
#define WARN_ONCE(cond, ...) WARN_ON(cond)
#define BUG_ON(cond) do { if (unlikely(cond)) s2_kernel_bug(__FILE__, __LINE__, #cond); } while (0)
#define BUG() s2_kernel_bug(__FILE__, __LINE__, "BUG()")
#define VM_BUG_ON(cond) BUG_ON(cond)
#define lockdep_assert_held(l) ((void)0)
#define lockdep_assert_held_write(l) ((void)0)
#define lockdep_assert_held_read(l) ((void)0)
#define might_sleep() ((void)0)
#define cond_resched() ((void)0)

/* ---- TLB maintenance and CPU features (stage2/runtime/tlbi.c) ---------- */
#define kvm_call_hyp(f, ...) f(__VA_ARGS__)
#define kvm_call_hyp_nvhe(f, ...) f(__VA_ARGS__)
#define TLBI_TTL_UNKNOWN INT_MAX
#define MAX_TLBI_RANGE_PAGES (1UL << 21)
void __kvm_tlb_flush_vmid_ipa(struct kvm_s2_mmu *mmu, phys_addr_t ipa, int level);
void __kvm_tlb_flush_vmid_ipa_nsh(struct kvm_s2_mmu *mmu, phys_addr_t ipa, int level);
void __kvm_tlb_flush_vmid(struct kvm_s2_mmu *mmu);
void __kvm_tlb_flush_vmid_range(struct kvm_s2_mmu *mmu, phys_addr_t start, unsigned long pages);
bool s2_cpu_has_fwb(void);
bool s2_cpu_has_tlb_range(void);
/* CPU capabilities the trees ask about: only FWB can be on (--fwb) */
enum { ARM64_HAS_STAGE2_FWB = 1, ARM64_HAS_XNX, ARM64_KVM_HVHE, ARM64_WORKAROUND_AMPERE_AC03_CPU_38 };
#define cpus_have_final_cap(cap) ((cap) == ARM64_HAS_STAGE2_FWB && s2_cpu_has_fwb())
#define cpus_have_const_cap(cap) cpus_have_final_cap(cap)
#define cpus_have_cap(cap) cpus_have_final_cap(cap)
#define system_supports_tlb_range() s2_cpu_has_tlb_range()

#endif
