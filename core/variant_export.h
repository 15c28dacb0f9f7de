/*
 * core/variant_export.h - included at the end of a variant's translation
 * unit (core/variant_tu.c): wraps the arch-level entry points in thunks on
 * 64-bit entry words and registers the variant at start-up.
 *
 * Needs KC_VARIANT_NAME (string); the planted mutant comes from KC_PLANT.
 */
#ifndef KC_VARIANT_NAME
#error "KC_VARIANT_NAME must name the variant"
#endif

#include "core/variant.h"

#define VX_P(p) ((pte_t *)(p))

static uint64_t vx_ptep_get(uint64_t *p) { return pte_val(ptep_get(VX_P(p))); }
static uint64_t vx_ptep_get_lockless(uint64_t *p) { return pte_val(ptep_get_lockless(VX_P(p))); }
static void vx_set_ptes(struct mm_struct *mm, unsigned long addr, uint64_t *p, uint64_t pte,
			unsigned nr)
{
	set_ptes(mm, addr, VX_P(p), __pte(pte), nr);
}
static uint64_t vx_get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
					   uint64_t *p, unsigned nr, int full)
{
	return pte_val(get_and_clear_full_ptes(mm, addr, VX_P(p), nr, full));
}
static int vx_ptep_test_and_clear_young(struct vm_area_struct *vma, unsigned long addr,
					uint64_t *p)
{
	return ptep_test_and_clear_young(vma, addr, VX_P(p));
}
static int vx_clear_flush_young_ptes(struct vm_area_struct *vma, unsigned long addr,
				     uint64_t *p, unsigned nr)
{
	return clear_flush_young_ptes(vma, addr, VX_P(p), nr);
}
static void vx_wrprotect_ptes(struct mm_struct *mm, unsigned long addr, uint64_t *p,
			      unsigned nr)
{
	wrprotect_ptes(mm, addr, VX_P(p), nr);
}
static void vx_clear_young_dirty_ptes(struct vm_area_struct *vma, unsigned long addr,
				      uint64_t *p, unsigned nr, cydp_t flags)
{
	clear_young_dirty_ptes(vma, addr, VX_P(p), nr, flags);
}
static int vx_ptep_set_access_flags(struct vm_area_struct *vma, unsigned long addr,
				    uint64_t *p, uint64_t entry, int dirty)
{
	return ptep_set_access_flags(vma, addr, VX_P(p), __pte(entry), dirty);
}
static void vx_contpte_try_fold(struct mm_struct *mm, unsigned long addr, uint64_t *p,
				uint64_t pte)
{
	contpte_try_fold(mm, addr, VX_P(p), __pte(pte));
}
static void vx_contpte_try_unfold(struct mm_struct *mm, unsigned long addr, uint64_t *p,
				  uint64_t pte)
{
	contpte_try_unfold(mm, addr, VX_P(p), __pte(pte));
}
static void vx_move_ptes(struct mm_struct *mm, unsigned long addr, uint64_t *o, uint64_t *n,
			 unsigned nr)
{
	move_ptes(mm, addr, VX_P(o), VX_P(n), nr);
}

static struct variant vx_variant = {
	.name = KC_VARIANT_NAME,
	.early_exit = CONTPTE_EARLY_EXIT,
	.ptep_get = vx_ptep_get,
	.ptep_get_lockless = vx_ptep_get_lockless,
	.set_ptes = vx_set_ptes,
	.get_and_clear_full_ptes = vx_get_and_clear_full_ptes,
	.ptep_test_and_clear_young = vx_ptep_test_and_clear_young,
	.clear_flush_young_ptes = vx_clear_flush_young_ptes,
	.wrprotect_ptes = vx_wrprotect_ptes,
	.clear_young_dirty_ptes = vx_clear_young_dirty_ptes,
	.ptep_set_access_flags = vx_ptep_set_access_flags,
	.contpte_try_fold = vx_contpte_try_fold,
	.contpte_try_unfold = vx_contpte_try_unfold,
	.move_ptes = vx_move_ptes,
	.pte_free_defer = pte_free_defer,
};

#ifdef KC_WEAK_DEFAULTS
/* Our own definitions under a second name: if the linker resolved an entry
 * point elsewhere, a plug-in file provided it. */
#define KC_ENTRY(ret, name, params) \
	extern __typeof__(name) vx_own_##name __attribute__((alias(#name)));
#include "core/kernel/entry_points.def"
#undef KC_ENTRY
#endif

__attribute__((constructor)) static void vx_register(void)
{
	static const struct {
		const char *name, *expect, *what;
	} mutants[] = {
#define KC_MUTANT(name, base, kind, what) { #name, #kind, what },
#include "core/kernel/mutants.def"
#undef KC_MUTANT
	};

	vx_variant.granule = granule_by_shift(PAGE_SHIFT);
	if (KC_MUTANT_ID != KC_MUT_none) {
		vx_variant.mutant = mutants[KC_MUTANT_ID - 1].name;
		vx_variant.expect = mutants[KC_MUTANT_ID - 1].expect;
		vx_variant.what = mutants[KC_MUTANT_ID - 1].what;
	}
#ifdef KC_WEAK_DEFAULTS
#define KC_ENTRY(ret, name, params)                                                   \
	if ((void *)&name != (void *)&vx_own_##name)                                   \
		vx_variant.provided[vx_variant.n_provided++] = #name;                  \
	else                                                                           \
		vx_variant.defaults[vx_variant.n_defaults++] = #name;
#include "core/kernel/entry_points.def"
#undef KC_ENTRY
#endif
	variant_register(&vx_variant);
}
