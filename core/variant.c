/* core/variant.c - registry of compiled variants (see core/variant.h). */
#include "core/variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
