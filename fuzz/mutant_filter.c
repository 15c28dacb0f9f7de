/* fuzz/mutant_filter.c - see fuzz/mutant_filter.h. */
#include "fuzz/mutant_filter.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz/bytes_hash.h"

bool mutant_filter_init(struct mutant_filter *f)
{
	f->slot = calloc(MUTANT_FILTER_SLOTS, sizeof(*f->slot));
	return f->slot != NULL;
}

bool mutant_filter_seen(struct mutant_filter *f, const uint8_t *p, size_t n)
{
	uint64_t h = bytes_hash(p, n), x = h;

	/* FNV's last multiply moves the last byte into only a few bits (two
	 * scripts that differ in their schedule's last step would share a
	 * set): mix them all before taking the set's bits */
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	uint64_t *set = &f->slot[(x >> (64 - MUTANT_FILTER_SET_BITS)) * MUTANT_FILTER_WAYS];

	if (!h)
		h = 1;          /* 0 marks an empty slot */
	for (int w = 0; w < MUTANT_FILTER_WAYS; w++)
		if (set[w] == h)
			return true;
	memmove(set + 1, set, (MUTANT_FILTER_WAYS - 1) * sizeof(*set));
	set[0] = h;
	return false;
}

void mutant_filter_fini(struct mutant_filter *f)
{
	free(f->slot);
	f->slot = NULL;
}

size_t mutant_filter_fuzz(struct mutant_filter *f, struct mutator *m, const uint8_t *add, size_t addlen,
			  uint8_t *out, size_t max, uint64_t again[MO_COUNT])
{
	for (int tries = 0; tries < MUTANT_FILTER_TRIES; tries++) {
		size_t n = mut_fuzz(m, MO_COUNT, add, addlen, out);

		if (n > max)
			return 0;
		if (!f || !mutant_filter_seen(f, out, n))
			return n;
		again[m->last]++;
	}
	return 0;
}
