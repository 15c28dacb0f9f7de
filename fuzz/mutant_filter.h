/*
 * fuzz/mutant_filter.h - the mutants the custom mutator emitted recently,
 * so that it does not hand afl-fuzz one of them again.
 *
 * The harness is deterministic: a script run a second time can only
 * repeat what its first run found. Yet the structural operators often
 * remake a script they made before: afl-fuzz picks every queue entry
 * again and again, and an entry has only so many cut points for `tail`,
 * adjacent segments for `segment`, choices for `choice`. In 30 s of
 * afl-fuzz on baseline 4K (docs/fuzzing.md, "Mutants made twice") 29% of
 * the executions ran a script byte for byte the same as an earlier one.
 *
 * The filter remembers the hashes (fuzz/bytes_hash.h) of what was emitted
 * in MUTANT_FILTER_SLOTS slots, direct-mapped (a colliding hash replaces
 * the older one): bounded memory, and the recent past, which is where the
 * repeats come from (the same entry picked again within a queue cycle).
 * A hash equal to a remembered one counts as the same script; two
 * different scripts with the same 64-bit hash would cost one mutant, not
 * a wrong result.
 */
#ifndef FUZZ_MUTANT_FILTER_H
#define FUZZ_MUTANT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MUTANT_FILTER_BITS 21
#define MUTANT_FILTER_SLOTS (1u << MUTANT_FILTER_BITS)   /* 16 MB */

struct mutant_filter {
	uint64_t *slot;         /* MUTANT_FILTER_SLOTS hashes; 0: empty */
};

/* Allocates the slots; false if out of memory. */
bool mutant_filter_init(struct mutant_filter *f);

/* True if p[0..n) was added before (and is still remembered); otherwise
 * adds it and returns false. */
bool mutant_filter_seen(struct mutant_filter *f, const uint8_t *p, size_t n);

void mutant_filter_fini(struct mutant_filter *f);

#endif
