/* core/variant.c - registry of compiled variants (see core/variant.h). */
#include "core/variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"

#define MAX_VARIANTS 256
static struct variant *registry[MAX_VARIANTS];
static unsigned nregistry;

void variant_register(struct variant *v)
{
	if (nregistry == MAX_VARIANTS) {
		fprintf(stderr, "variant registry full (%d)\n", MAX_VARIANTS);
		abort();
	}
	registry[nregistry++] = v;
}

const struct variant *variant_find(const char *name, const struct granule *g)
{
	for (unsigned i = 0; i < nregistry; i++)
		if (!strcmp(registry[i]->name, name) && registry[i]->granule == g)
			return registry[i];
	return NULL;
}

unsigned variant_count(void) { return nregistry; }
const struct variant *variant_at(unsigned i) { return i < nregistry ? registry[i] : NULL; }

int variant_describe(const struct variant *v, const char *prog)
{
	int rc = v && v->describe ? v->describe(v, prog) : 0;

	/* every --cap answers a probe the subject asks (core/cpu.h) */
	return rc ? rc : cpu_caps_check(prog);
}

int variant_describe_plugin(const struct variant *v, const char *prog)
{
	if (!v->n_provided) {
		/* a file may replace any entry points, readers or writers, but
		 * one that replaces none tests nothing of its own */
		fprintf(stderr, "%s: the plug-in file defines none of the entry points of "
			"core/kernel/entry_points.def (e.g. pte_t contpte_ptep_get_lockless(pte_t *orig_ptep))\n",
			prog);
		return 1;
	}
	fprintf(stderr, "%s: the plug-in file defines:", prog);
	for (unsigned i = 0; i < v->n_provided; i++)
		fprintf(stderr, " %s", v->provided[i]);
	fprintf(stderr, "\n%s: the project provides the other %u entry points (core/kernel/)\n",
		prog, v->n_defaults);
	cpu_caps_report(prog);
	return 0;
}
