/*
 * core/variant_export.h - included at the end of a variant's translation
 * unit (core/variant_tu.c): points the variant's entry-point table at this
 * unit's functions, wraps the two readers in thunks on 64-bit entry words,
 * and registers the variant at start-up.
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
static struct variant vx_variant = {
	.name = KC_VARIANT_NAME,
	.early_exit = CONTPTE_EARLY_EXIT,
	.ptep_get = vx_ptep_get,
	.ptep_get_lockless = vx_ptep_get_lockless,
	.ep = {
#define KC_ENTRY(ret, name, params) .ep_##name = name,
#include "core/kernel/entry_points.def"
#undef KC_ENTRY
	},
};

#ifdef KC_WEAK_DEFAULTS
/* The access layer out of line, for the subject's own unit (ACC_OUTLINE in
 * core/access.h): this unit is the project's, on the same backend. */
/* Each records where in the subject's code it was called from (a
 * finding's location, core/where.h); not in the bench's bare builds. */
#ifdef ACCESS_BARE
#define VX_SITE() ((void)0)
#else
#define VX_SITE() (acc_self.subj.pc = __builtin_return_address(0))
#endif
uint64_t acc_outlined_load(const uint64_t *p) { VX_SITE(); return acc_load(p); }
void acc_outlined_store(uint64_t *p, uint64_t v) { VX_SITE(); acc_store(p, v); }
uint64_t acc_outlined_cmpxchg(uint64_t *p, uint64_t old, uint64_t new) { VX_SITE(); return acc_cmpxchg(p, old, new); }
uint64_t acc_outlined_xchg(uint64_t *p, uint64_t v) { VX_SITE(); return acc_xchg(p, v); }
uint64_t acc_outlined_fetch_or(uint64_t *p, uint64_t m) { VX_SITE(); return acc_fetch_or(p, m); }
uint64_t acc_outlined_fetch_andnot(uint64_t *p, uint64_t m) { VX_SITE(); return acc_fetch_andnot(p, m); }
uint64_t acc_outlined_load_acquire(const uint64_t *p, bool pc)
{
	VX_SITE();
	return pc ? acc_load_acquire_pc(p) : acc_load_acquire(p);
}
void acc_outlined_store_release(uint64_t *p, uint64_t v) { VX_SITE(); acc_store_release(p, v); }
#undef VX_SITE

/* How a build over these weak defaults describes itself: a plug-in file's
 * build as variant_describe_plugin does; a kernel tree's build replaces
 * this with its own report (kernel_tree/report.c), by the same link-time
 * override as the entry points. */
__attribute__((weak)) int kc_subject_describe(const struct variant *v, const char *prog)
{
	return variant_describe_plugin(v, prog);
}

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
#ifdef KC_WEAK_DEFAULTS
	vx_variant.describe = kc_subject_describe;
#endif
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
