/* fuzz/mutant_filter.c - see fuzz/mutant_filter.h. */
#include "fuzz/mutant_filter.h"

#include <stdlib.h>

#include "fuzz/bytes_hash.h"

bool mutant_filter_init(struct mutant_filter *f)
{
	f->slot = calloc(MUTANT_FILTER_SLOTS, sizeof(*f->slot));
	return f->slot != NULL;
}

bool mutant_filter_seen(struct mutant_filter *f, const uint8_t *p, size_t n)
{
	uint64_t h = bytes_hash(p, n);
	/* the slot from the high bits: FNV's low bits mix the last bytes less */
	uint64_t *s = &f->slot[h >> (64 - MUTANT_FILTER_BITS)];

	if (!h)
		h = 1;          /* 0 marks an empty slot */
	if (*s == h)
		return true;
	*s = h;
	return false;
}

void mutant_filter_fini(struct mutant_filter *f)
{
	free(f->slot);
	f->slot = NULL;
}
