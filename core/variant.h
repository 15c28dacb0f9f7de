/*
 * core/variant.h - the registry of compiled kernel-dialect variants.
 *
 * A variant is the project's kernel-dialect sources (core/kernel/) built
 * for one granule with one configuration: the baseline tree, seed 002's
 * early-exit tree, one planted mutant, or a user's plug-in file linked over
 * the project's weak defaults. Each registers itself at start-up
 * (core/variant_export.h) with thunks on plain 64-bit entry words, so the
 * granule-agnostic runtime can drive any of them.
 */
#ifndef CORE_VARIANT_H
#define CORE_VARIANT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/mm_types.h"
#include "core/pte.h"

struct variant {
	const char *name;          /* "baseline", "early_exit", mutant name, "plugin" */
	const char *mutant;        /* planted bug, or NULL */
	const char *expect;        /* violation kind the mutant must produce */
	const char *what;          /* one line: what the slip is */
	const struct granule *granule;
	bool early_exit;

	/* readers */
	uint64_t (*ptep_get)(uint64_t *ptep);            /* locked gather */
	uint64_t (*ptep_get_lockless)(uint64_t *ptep);
	/* software writers (caller holds the table's PTL) */
	void (*set_ptes)(struct mm_struct *mm, unsigned long addr, uint64_t *ptep,
			 uint64_t pte, unsigned nr);
	uint64_t (*get_and_clear_full_ptes)(struct mm_struct *mm, unsigned long addr,
					    uint64_t *ptep, unsigned nr, int full);
	int (*ptep_test_and_clear_young)(struct vm_area_struct *vma, unsigned long addr,
					 uint64_t *ptep);
	int (*clear_flush_young_ptes)(struct vm_area_struct *vma, unsigned long addr,
				      uint64_t *ptep, unsigned nr);
	void (*wrprotect_ptes)(struct mm_struct *mm, unsigned long addr, uint64_t *ptep,
			       unsigned nr);
	void (*clear_young_dirty_ptes)(struct vm_area_struct *vma, unsigned long addr,
				       uint64_t *ptep, unsigned nr, cydp_t flags);
	int (*ptep_set_access_flags)(struct vm_area_struct *vma, unsigned long addr,
				     uint64_t *ptep, uint64_t entry, int dirty);
	void (*contpte_try_fold)(struct mm_struct *mm, unsigned long addr, uint64_t *ptep,
				 uint64_t pte);
	void (*contpte_try_unfold)(struct mm_struct *mm, unsigned long addr, uint64_t *ptep,
				   uint64_t pte);
	void (*move_ptes)(struct mm_struct *mm, unsigned long addr, uint64_t *old_ptep,
			  uint64_t *new_ptep, unsigned nr);
	void (*pte_free_defer)(struct mm_struct *mm, pgtable_t pgtable);

	/* plug-in builds: entry points the plug-in file defined itself */
	const char *provided[64];
	unsigned n_provided;
	const char *defaults[64];   /* ... and those the project filled in */
	unsigned n_defaults;
};

void variant_register(struct variant *v);
/* NULL if no variant of that name was built for that granule. */
const struct variant *variant_find(const char *name, const struct granule *g);
/* All registered variants, in registration order. */
unsigned variant_count(void);
const struct variant *variant_at(unsigned i);

#endif
