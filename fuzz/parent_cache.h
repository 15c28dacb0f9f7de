/*
 * fuzz/parent_cache.h - what the custom mutator learnt from a queue entry,
 * kept for the next time afl-fuzz picks the same entry.
 *
 * The mutator analyses every parent with one engine run (fuzz/mutate.c,
 * analyse): the schedule it took, its choices, its reads-from pairs. With
 * a few mutants per pick (FUZZ_MUTANTS, 4) afl-fuzz picks each queue entry
 * many times, and each pick ran the analysis again: one engine run with
 * its event record for every four executions, in the afl-fuzz process that
 * shares its CPU with the target (docs/fuzzing.md, "The parent cache").
 * The engine is deterministic, so the same bytes give the same analysis;
 * the cache gives it back instead.
 *
 * Keyed by the input's bytes (compared in full, not by hash alone), one
 * entry per slot of PARENT_CACHE_SLOTS (a colliding entry replaces the
 * older one), at most PARENT_CACHE_BYTES in all (past that, new entries
 * are not kept): bounded whatever the queue grows to.
 */
#ifndef FUZZ_PARENT_CACHE_H
#define FUZZ_PARENT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define PARENT_CACHE_SLOTS 16384
#define PARENT_CACHE_BYTES ((size_t)128 << 20)

struct parent_cache_entry;

struct parent_cache {
	struct parent_cache_entry *slot[PARENT_CACHE_SLOTS];
	size_t bytes;           /* held by the entries */
	uint64_t hits;          /* gets that found their key (FUZZ_MUTATOR_STATS) */
};

/* The value kept for key (hash: of key, by the caller), its size in *vlen;
 * NULL if there is none. */
const void *parent_cache_get(struct parent_cache *c, uint64_t hash, const uint8_t *key, size_t klen,
			     size_t *vlen);

/* Room for a value of vlen bytes for key, for the caller to fill (before
 * its next call here); NULL if the cache is full or out of memory (the
 * value is then not kept). */
void *parent_cache_put(struct parent_cache *c, uint64_t hash, const uint8_t *key, size_t klen,
		       size_t vlen);

/* Frees every entry; c is then empty. */
void parent_cache_clear(struct parent_cache *c);

#endif
