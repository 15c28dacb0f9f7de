/*
 * fuzz/bytes_hash.h - the 64-bit hash of a byte string the fuzzing side
 * keys its caches with: a parent's analysis (fuzz/parent_cache.h) and the
 * mutants already emitted (fuzz/mutant_filter.h). FNV-1a: a script is a
 * few hundred bytes, and the caches compare more than the hash where a
 * collision would matter (the parent cache compares the bytes).
 */
#ifndef FUZZ_BYTES_HASH_H
#define FUZZ_BYTES_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t bytes_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

#endif
