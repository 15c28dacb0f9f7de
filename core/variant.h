/*
 * core/variant.h - the registry of compiled kernel-dialect variants.
 *
 * A variant is the project's kernel-dialect sources (core/kernel/) built
 * for one granule with one configuration: the baseline tree, the early-exit patch's
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

/* One pointer per entry point, named ep_<name> (pasted, so a variant's
 * renaming macros do not reach the member names). */
struct kc_entry_points {
#define KC_ENTRY(ret, name, params) ret (*ep_##name) params;
#include "core/kernel/entry_points.def"
#undef KC_ENTRY
};

struct variant {
	const char *name;          /* "baseline", "early_exit", mutant name, "plugin" */
	const char *mutant;        /* planted bug, or NULL */
	const char *expect;        /* violation kind the mutant must produce */
	const char *what;          /* one line: what the slip is */
	const struct granule *granule;
	bool early_exit;

	/* the readers on plain entry words, for the drivers' read loops */
	uint64_t (*ptep_get)(uint64_t *ptep);            /* locked gather */
	uint64_t (*ptep_get_lockless)(uint64_t *ptep);
	/* every kernel-dialect entry point (core/kernel/entry_points.def),
	 * e.g. ep.ep_set_ptes: what the writer ops (core/ops.c) call, under
	 * the table's PTL */
	struct kc_entry_points ep;

	/* Says, on stderr, what the subject is made of (a plug-in file: what it
	 * defines; a kernel tree: its functions, adapters, what the project
	 * fills in), before a run; prog prefixes the lines. Non-zero: the
	 * subject cannot be run. NULL for built-in variants. */
	int (*describe)(const struct variant *v, const char *prog);

	/* plug-in builds: entry points the plug-in file defined itself */
	const char *provided[64];
	unsigned n_provided;
	const char *defaults[64];   /* ... and those the project filled in */
	unsigned n_defaults;
};

void variant_register(struct variant *v);
/* v->describe, if it has one (0 otherwise); then every --cap must name a
 * capability probe the subject asks (core/cpu.h), else 1. */
int variant_describe(const struct variant *v, const char *prog);
/* What a plug-in build says of itself: the entry points its file defines
 * and how many the project fills in. */
int variant_describe_plugin(const struct variant *v, const char *prog);
/* NULL if no variant of that name was built for that granule. */
const struct variant *variant_find(const char *name, const struct granule *g);
/* All registered variants, in registration order. */
unsigned variant_count(void);
const struct variant *variant_at(unsigned i);

#endif
