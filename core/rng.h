/* core/rng.h - the small per-thread random generator (splitmix64) every
 * agent of the harness uses; seeded per thread so runs are reproducible. */
#ifndef CORE_RNG_H
#define CORE_RNG_H

#include <stdint.h>

static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
static inline unsigned rng_below(uint64_t *s, unsigned n) { return (unsigned)(rng_next(s) % n); }

#endif
