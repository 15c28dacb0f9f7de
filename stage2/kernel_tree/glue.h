/*
 * stage2/kernel_tree/glue.h - appended to a tree's pgtable.c in its unit
 * (stage2/kernel_tree/probe.sh): the tree as the harness's runtime sees it,
 * struct s2_tree (stage2/runtime/s2.h).
 *
 * It is in the tree's own unit, so it calls the tree's static helpers
 * (stage2_pte_is_locked, stage2_pte_is_counted) and uses the tree's own
 * types and enums; cut.py's facts (S2_HAS_<function>, S2_HAS_ENUM_<name>,
 * S2_HAS_MACRO_<name>, S2_HAS_MMOPS_<member>) say which generation of the
 * API the tree is. The drift it adapts, each the same call on the tree's
 * own terms:
 *   levels                 u32 (KVM_PGTABLE_MAX_LEVELS) or s8
 *                          (KVM_PGTABLE_FIRST_LEVEL/LAST_LEVEL)
 *   free_removed_table / free_unlinked_table (mm_ops member), and
 *                          kvm_pgtable_stage2_free_removed / _free_unlinked
 *   aging                  kvm_pgtable_stage2_mkold + _is_young at one
 *                          address (mmu.c's kvm_age_gfn then looked at the
 *                          range's first page) or _test_clear_young over the
 *                          range, with or without walk flags
 *   LOCKED                 a bit of an invalid entry or its type field (the
 *                          tree's stage2_pte_is_locked either way)
 *   walk flags             HANDLE_FAULT, or IGNORE_EAGAIN with the opposite
 *                          sense; relax_perms and mkyoung with or without
 *                          flags (then they are a fault's, as mmu.c's);
 *                          relax_perms with an out pointer for the entry,
 *                          and no mkyoung (the access-flag fault is then
 *                          relax_perms(KVM_PGTABLE_PROT_AF))
 *   stage-2 init           __kvm_pgtable_stage2_init or
 *                          kvm_pgtable_stage2_init, VTCR in the MMU or in
 *                          the VM's arch
 * A signature is told apart by the compiler (__builtin_types_compatible_p
 * on the tree's own declaration), never by guessing.
 */

#include <stdatomic.h>
#include <string.h>

typedef __typeof__(((struct kvm_pgtable_visit_ctx *)0)->level) s2_level_t;

/* ---- calls into the tree's functions, counted ------------------------- */
#define S2_GLUE_FUNCS(X) X(map) X(unmap) X(wrprotect) X(mkyoung) X(relax_perms) \
	X(test_clear_young) X(mkold) X(is_young) X(split) X(flush) X(destroy) \
	X(free_unlinked) X(init)
#define S2_GLUE_ENUM(f) S2F_##f,
#define S2_GLUE_NAME(f) #f,
enum { S2_GLUE_FUNCS(S2_GLUE_ENUM) S2F_COUNT };
static const char *const glue_func_names[] = { S2_GLUE_FUNCS(S2_GLUE_NAME) };
static _Atomic uint64_t glue_calls[S2F_COUNT];
#define S2_COUNT(f) atomic_fetch_add_explicit(&glue_calls[S2F_##f], 1, memory_order_relaxed)

/* Call FN as the type it has in this tree: T_NEW with ARGS_NEW, else
 * T_OLD with ARGS_OLD (both compile; the compiler picks by FN's type). */
#define S2_CALL_AS(fn, t_new, args_new, t_old, args_old)                         \
	__builtin_choose_expr(__builtin_types_compatible_p(__typeof__(fn), t_new), \
			      ((t_new *)&(fn))args_new, ((t_old *)&(fn))args_old)
#define S2_IS_TYPE(fn, t) __builtin_types_compatible_p(__typeof__(fn), t)

/* ---- the harness's encodings in the tree's terms ---------------------- */
static enum kvm_pgtable_walk_flags glue_flags(unsigned f)
{
	enum kvm_pgtable_walk_flags r = 0;

	if (f & S2_WALK_SHARED)
		r |= KVM_PGTABLE_WALK_SHARED;
#if defined(S2_HAS_ENUM_KVM_PGTABLE_WALK_HANDLE_FAULT)
	if (f & S2_WALK_HANDLE_FAULT)
		r |= KVM_PGTABLE_WALK_HANDLE_FAULT;
#elif defined(S2_HAS_ENUM_KVM_PGTABLE_WALK_IGNORE_EAGAIN)
	if (!(f & S2_WALK_HANDLE_FAULT))
		r |= KVM_PGTABLE_WALK_IGNORE_EAGAIN;
#endif
	return r;
}

static enum kvm_pgtable_prot glue_prot(unsigned p)
{
	enum kvm_pgtable_prot r = 0;

	if (p & S2_PROT_R)
		r |= KVM_PGTABLE_PROT_R;
	if (p & S2_PROT_W)
		r |= KVM_PGTABLE_PROT_W;
	if (p & S2_PROT_X)
		r |= KVM_PGTABLE_PROT_X;
	return r;
}

/* ---- mm_ops: the harness's table pages -------------------------------- */
static struct kvm_pgtable_mm_ops glue_mm_ops;

static void glue_free_unlinked_now(void *addr, int level)
{
	S2_COUNT(free_unlinked);
#if defined(S2_HAS_kvm_pgtable_stage2_free_unlinked)
	kvm_pgtable_stage2_free_unlinked(&glue_mm_ops, addr, (s2_level_t)level);
#elif defined(S2_HAS_kvm_pgtable_stage2_free_removed)
	kvm_pgtable_stage2_free_removed(&glue_mm_ops, addr, (s2_level_t)level);
#else
#error "the tree frees unlinked tables with neither kvm_pgtable_stage2_free_unlinked nor _free_removed"
#endif
}

/* mmu.c's stage2_free_unlinked_table(): the free waits for a grace period */
static void glue_free_unlinked(void *addr, s2_level_t level)
{
	s2_free_unlinked_deferred(addr, (int)level, glue_free_unlinked_now);
}

static struct kvm_pgtable_mm_ops glue_mm_ops = {
	.zalloc_page		= s2_zalloc_page,
	.zalloc_pages_exact	= s2_zalloc_pages_exact,
	.free_pages_exact	= s2_free_pages_exact,
#ifdef S2_HAS_MMOPS_free_unlinked_table
	.free_unlinked_table	= glue_free_unlinked,
#endif
#ifdef S2_HAS_MMOPS_free_removed_table
	.free_removed_table	= glue_free_unlinked,
#endif
#ifdef S2_HAS_MMOPS_put_page_rcu
	.put_page_rcu		= s2_put_page_rcu,
#endif
	.get_page		= s2_get_page,
	.put_page		= s2_put_page,
	.page_count		= s2_page_count,
	.phys_to_virt		= s2_phys_to_virt,
	.virt_to_phys		= s2_virt_to_phys,
	.dcache_clean_inval_poc	= s2_dcache_clean_inval_poc,
	.icache_inval_pou	= s2_icache_inval_pou,
};

/* ---- the API ------------------------------------------------------------ */
static struct kvm_pgtable glue_pgt;

static int glue_init(struct kvm_s2_mmu *mmu, bool fwb_off)
{
	int r;

	S2_COUNT(init);
	memset(&glue_pgt, 0, sizeof(glue_pgt));
#if defined(S2_HAS___kvm_pgtable_stage2_init) && defined(S2_HAS_ENUM_KVM_PGTABLE_S2_NOFWB)
	r = __kvm_pgtable_stage2_init(&glue_pgt, mmu, &glue_mm_ops,
				      fwb_off ? KVM_PGTABLE_S2_NOFWB : 0, NULL);
#elif defined(S2_HAS___kvm_pgtable_stage2_init)
	/* no per-table NOFWB: FWB is the CPU's alone (the shim's capability) */
	(void)fwb_off;
	r = __kvm_pgtable_stage2_init(&glue_pgt, mmu, &glue_mm_ops, 0, NULL);
#else
	(void)fwb_off;
	r = kvm_pgtable_stage2_init(&glue_pgt, mmu, &glue_mm_ops);
#endif
	if (!r)
		mmu->pgt = &glue_pgt;
	return r;
}

static void glue_destroy(struct kvm_pgtable *pgt)
{
	S2_COUNT(destroy);
	kvm_pgtable_stage2_destroy(pgt);
}

static void glue_geometry(struct kvm_pgtable *pgt, uint64_t **pgd, int *start_level, unsigned *ia_bits)
{
	*pgd = (uint64_t *)pgt->pgd;
	*start_level = pgt->start_level;
	*ia_bits = pgt->ia_bits;
}

static int glue_map(struct kvm_pgtable *pgt, uint64_t ipa, uint64_t size, uint64_t pa, unsigned prot,
		    void *mc, unsigned flags)
{
	S2_COUNT(map);
	return kvm_pgtable_stage2_map(pgt, ipa, size, pa, glue_prot(prot), mc, glue_flags(flags));
}

typedef int s2_relax4_t(struct kvm_pgtable *, u64, enum kvm_pgtable_prot, enum kvm_pgtable_walk_flags);
typedef int s2_relax3_t(struct kvm_pgtable *, u64, enum kvm_pgtable_prot);
typedef int s2_relax_out_t(struct kvm_pgtable *, u64, enum kvm_pgtable_prot, kvm_pte_t *);
_Static_assert(S2_IS_TYPE(kvm_pgtable_stage2_relax_perms, s2_relax4_t) ||
	       S2_IS_TYPE(kvm_pgtable_stage2_relax_perms, s2_relax3_t) ||
	       S2_IS_TYPE(kvm_pgtable_stage2_relax_perms, s2_relax_out_t),
	       "kvm_pgtable_stage2_relax_perms has a signature the glue does not know");

/* relax_perms without walk flags is a fault's walk; with an out pointer
 * for the entry it wrote, the harness does not ask for it */
static int glue_relax_prot(struct kvm_pgtable *pgt, uint64_t ipa, enum kvm_pgtable_prot prot, unsigned flags)
{
	return __builtin_choose_expr(
		S2_IS_TYPE(kvm_pgtable_stage2_relax_perms, s2_relax4_t),
		((s2_relax4_t *)&kvm_pgtable_stage2_relax_perms)(pgt, ipa, prot, glue_flags(flags)),
		__builtin_choose_expr(
			S2_IS_TYPE(kvm_pgtable_stage2_relax_perms, s2_relax_out_t),
			((s2_relax_out_t *)&kvm_pgtable_stage2_relax_perms)(pgt, ipa, prot, NULL),
			((s2_relax3_t *)&kvm_pgtable_stage2_relax_perms)(pgt, ipa, prot)));
}

static int glue_relax(struct kvm_pgtable *pgt, uint64_t ipa, unsigned prot, unsigned flags)
{
	S2_COUNT(relax_perms);
	return glue_relax_prot(pgt, ipa, glue_prot(prot), flags);
}

#if defined(S2_HAS_kvm_pgtable_stage2_mkyoung)
typedef void s2_mkyoung_flags_t(struct kvm_pgtable *, u64, enum kvm_pgtable_walk_flags);
typedef kvm_pte_t s2_mkyoung_old_t(struct kvm_pgtable *, u64);
_Static_assert(S2_IS_TYPE(kvm_pgtable_stage2_mkyoung, s2_mkyoung_flags_t) ||
	       S2_IS_TYPE(kvm_pgtable_stage2_mkyoung, s2_mkyoung_old_t),
	       "kvm_pgtable_stage2_mkyoung has a signature the glue does not know");
#define S2_MKYOUNG_TAKES_FLAGS S2_IS_TYPE(kvm_pgtable_stage2_mkyoung, s2_mkyoung_flags_t)

static void glue_mkyoung(struct kvm_pgtable *pgt, uint64_t ipa, unsigned flags)
{
	S2_COUNT(mkyoung);
	S2_CALL_AS(kvm_pgtable_stage2_mkyoung, s2_mkyoung_flags_t, (pgt, ipa, glue_flags(flags)),
		   s2_mkyoung_old_t, (pgt, ipa));
}
#elif defined(S2_HAS_ENUM_KVM_PGTABLE_PROT_AF)
/* no mkyoung: the access-flag fault relaxes the entry by the access flag */
#define S2_MKYOUNG_TAKES_FLAGS false

static void glue_mkyoung(struct kvm_pgtable *pgt, uint64_t ipa, unsigned flags)
{
	S2_COUNT(mkyoung);
	glue_relax_prot(pgt, ipa, KVM_PGTABLE_PROT_AF, flags);
}
#else
#error "the tree has neither kvm_pgtable_stage2_mkyoung nor KVM_PGTABLE_PROT_AF for relax_perms"
#endif

static int glue_unmap(struct kvm_pgtable *pgt, uint64_t ipa, uint64_t size)
{
	S2_COUNT(unmap);
	return kvm_pgtable_stage2_unmap(pgt, ipa, size);
}

static int glue_wrprotect(struct kvm_pgtable *pgt, uint64_t ipa, uint64_t size)
{
	S2_COUNT(wrprotect);
	return kvm_pgtable_stage2_wrprotect(pgt, ipa, size);
}

#if defined(S2_HAS_kvm_pgtable_stage2_test_clear_young)
typedef bool s2_age5_t(struct kvm_pgtable *, u64, u64, bool, enum kvm_pgtable_walk_flags);
typedef bool s2_age4_t(struct kvm_pgtable *, u64, u64, bool);
_Static_assert(S2_IS_TYPE(kvm_pgtable_stage2_test_clear_young, s2_age5_t) ||
	       S2_IS_TYPE(kvm_pgtable_stage2_test_clear_young, s2_age4_t),
	       "kvm_pgtable_stage2_test_clear_young has a signature the glue does not know");
#define S2_AGE_TAKES_FLAGS S2_IS_TYPE(kvm_pgtable_stage2_test_clear_young, s2_age5_t)
#define S2_AGE_IS_RANGE 1
#else
#define S2_AGE_TAKES_FLAGS 0
#define S2_AGE_IS_RANGE 0
#endif

static bool glue_age(struct kvm_pgtable *pgt, uint64_t ipa, uint64_t size, bool mkold, unsigned flags)
{
#if defined(S2_HAS_kvm_pgtable_stage2_test_clear_young)
	S2_COUNT(test_clear_young);
	return S2_CALL_AS(kvm_pgtable_stage2_test_clear_young, s2_age5_t,
			  (pgt, ipa, size, mkold, glue_flags(flags)),
			  s2_age4_t, (pgt, ipa, size, mkold));
#elif defined(S2_HAS_kvm_pgtable_stage2_mkold) && defined(S2_HAS_kvm_pgtable_stage2_is_young)
	/*
	 * This generation's kvm_age_gfn() cleared the access flag of the
	 * leaf at the range's first address and answered from the entry it
	 * replaced; kvm_test_age_gfn() asked is_young() of that address.
	 */
	(void)size;
	(void)flags;
	if (mkold) {
		kvm_pte_t old;

		S2_COUNT(mkold);
		old = kvm_pgtable_stage2_mkold(pgt, ipa);
		return kvm_pte_valid(old) && (old & S2_DESC_AF);
	}
	S2_COUNT(is_young);
	return kvm_pgtable_stage2_is_young(pgt, ipa);
#else
#error "the tree has neither kvm_pgtable_stage2_test_clear_young nor kvm_pgtable_stage2_mkold and _is_young"
#endif
}

#if defined(S2_HAS_kvm_pgtable_stage2_split)
static int glue_split(struct kvm_pgtable *pgt, uint64_t ipa, uint64_t size, struct kvm_mmu_memory_cache *mc)
{
	S2_COUNT(split);
	return kvm_pgtable_stage2_split(pgt, ipa, size, mc);
}
#define S2_GLUE_SPLIT glue_split
#define S2_GLUE_HAS_SPLIT true
#else
#define S2_GLUE_SPLIT NULL
#define S2_GLUE_HAS_SPLIT false
#endif

static int glue_flush(struct kvm_pgtable *pgt, uint64_t ipa, uint64_t size)
{
	S2_COUNT(flush);
	return kvm_pgtable_stage2_flush(pgt, ipa, size);
}

static bool glue_is_locked(uint64_t desc) { return stage2_pte_is_locked(desc); }
static bool glue_is_counted(uint64_t desc) { return stage2_pte_is_counted(desc); }

#if defined(S2_HAS_MACRO_KVM_PGTABLE_FIRST_LEVEL)
#define S2_GLUE_FIRST KVM_PGTABLE_FIRST_LEVEL
#define S2_GLUE_LAST KVM_PGTABLE_LAST_LEVEL
#else
#define S2_GLUE_FIRST 0
#define S2_GLUE_LAST (KVM_PGTABLE_MAX_LEVELS - 1)
#endif

#ifndef S2_WARNINGS
#define S2_WARNINGS ""
#endif

/* The generation, as the adapters it takes. */
#define S2_GLUE_ADAPTERS                                                                    \
	"levels " S2_GLUE_LEVELS "; " S2_GLUE_FREE "; " S2_GLUE_AGING "; LOCKED " S2_GLUE_LOCKED \
	"; " S2_GLUE_EAGAIN "; " S2_GLUE_SPLITS S2_GLUE_MKYOUNG
#if defined(S2_HAS_MACRO_KVM_PGTABLE_FIRST_LEVEL)
#define S2_GLUE_LEVELS "s8 (FIRST_LEVEL..LAST_LEVEL)"
#else
#define S2_GLUE_LEVELS "u32 (MAX_LEVELS)"
#endif
#if defined(S2_HAS_MMOPS_free_unlinked_table)
#define S2_GLUE_FREE "free_unlinked_table"
#else
#define S2_GLUE_FREE "free_removed_table"
#endif
#if defined(S2_HAS_kvm_pgtable_stage2_test_clear_young)
#define S2_GLUE_AGING "test_clear_young over the range"
#else
#define S2_GLUE_AGING "mkold + is_young at the range's first address (mmu.c of that generation)"
#endif
#if defined(S2_HAS_ENUM_KVM_INVALID_PTE_TYPE_LOCKED)
#define S2_GLUE_LOCKED "as a type field"
#else
#define S2_GLUE_LOCKED "as a bit"
#endif
#if defined(S2_HAS_ENUM_KVM_PGTABLE_WALK_HANDLE_FAULT)
#define S2_GLUE_EAGAIN "-EAGAIN ends fault walks only (HANDLE_FAULT)"
#elif defined(S2_HAS_ENUM_KVM_PGTABLE_WALK_IGNORE_EAGAIN)
#define S2_GLUE_EAGAIN "-EAGAIN ends walks without IGNORE_EAGAIN"
#else
#define S2_GLUE_EAGAIN "-EAGAIN ends every walk (no HANDLE_FAULT flag)"
#endif
#if defined(S2_HAS_kvm_pgtable_stage2_mkyoung)
#define S2_GLUE_MKYOUNG ""
#else
#define S2_GLUE_MKYOUNG "; access-flag faults by relax_perms(KVM_PGTABLE_PROT_AF)"
#endif
#if defined(S2_HAS_kvm_pgtable_stage2_split)
#define S2_GLUE_SPLITS "eager split"
#else
#define S2_GLUE_SPLITS "no eager split"
#endif

const struct s2_tree s2_tree = {
	.source			= S2_SOURCE,
	.header			= S2_HEADER,
	.defined		= S2_KEPT,
	.adapters		= S2_GLUE_ADAPTERS,
	.warnings		= S2_WARNINGS,
	.page_shift		= PAGE_SHIFT,
	.first_level		= S2_GLUE_FIRST,
	.last_level		= S2_GLUE_LAST,
	.min_block_level	= KVM_PGTABLE_MIN_BLOCK_LEVEL,
	.age_is_range		= S2_AGE_IS_RANGE,
	.age_takes_flags	= S2_AGE_TAKES_FLAGS,
	.has_split		= S2_GLUE_HAS_SPLIT,
	.relax_takes_flags	= S2_IS_TYPE(kvm_pgtable_stage2_relax_perms, s2_relax4_t),
	.mkyoung_takes_flags	= S2_MKYOUNG_TAKES_FLAGS,
#if defined(S2_HAS_ENUM_KVM_INVALID_PTE_TYPE_LOCKED)
	.locked_is_type		= true,
#endif
#if defined(S2_HAS_kvm_pgtable_stage2_free_unlinked)
	.free_unlinked_name	= "kvm_pgtable_stage2_free_unlinked",
#else
	.free_unlinked_name	= "kvm_pgtable_stage2_free_removed",
#endif
	.init			= glue_init,
	.destroy		= glue_destroy,
	.geometry		= glue_geometry,
	.map			= glue_map,
	.relax			= glue_relax,
	.mkyoung		= glue_mkyoung,
	.unmap			= glue_unmap,
	.wrprotect		= glue_wrprotect,
	.age			= glue_age,
	.split			= S2_GLUE_SPLIT,
	.flush			= glue_flush,
	.is_locked		= glue_is_locked,
	.is_counted		= glue_is_counted,
	.nfuncs			= S2F_COUNT,
	.func_names		= glue_func_names,
	.func_calls		= glue_calls,
};
