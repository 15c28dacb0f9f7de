/*
 * fuzz/mutant_filter.h - the mutants the custom mutator emitted recently,
 * so that it does not hand afl-fuzz one of them again.
 *
 * The harness is deterministic: a script run a second time can only
 * repeat what its first run found. Yet the structural operators often
 * remake a script they made before: afl-fuzz picks every queue entry
 * again and again, and an entry has only so many cut points for `tail`,
 * adjacent segments for `segment`, choices for `choice`. In 120 s of
 * afl-fuzz on baseline 4K (docs/fuzzing.md, "Mutants made twice") 39% of
 * the executions ran a script byte for byte the same as an earlier one.
 *
 * The filter remembers the hashes (fuzz/bytes_hash.h) of what was emitted
 * in MUTANT_FILTER_SLOTS slots, in sets of MUTANT_FILTER_WAYS (a full set
 * forgets its oldest hash): bounded memory, and the recent past, which is
 * where the repeats come from (the same entry picked again within a queue
 * cycle).
 * A hash equal to a remembered one counts as the same script; two
 * different scripts with the same 64-bit hash would cost one mutant, not
 * a wrong result.
 */
#ifndef FUZZ_MUTANT_FILTER_H
#define FUZZ_MUTANT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz/mutate.h"

#define MUTANT_FILTER_SET_BITS 19
#define MUTANT_FILTER_WAYS 4
#define MUTANT_FILTER_SLOTS (MUTANT_FILTER_WAYS << MUTANT_FILTER_SET_BITS)   /* 16 MB */

struct mutant_filter {
	uint64_t *slot;         /* MUTANT_FILTER_SLOTS hashes, newest first in
				 * each set; 0: empty */
};

/* Allocates the slots; false if out of memory. */
bool mutant_filter_init(struct mutant_filter *f);

/* True if p[0..n) was added before (and is still remembered); otherwise
 * adds it and returns false. */
bool mutant_filter_seen(struct mutant_filter *f, const uint8_t *p, size_t n);

void mutant_filter_fini(struct mutant_filter *f);

#define MUTANT_FILTER_TRIES 8    /* mutants made for one emitted, at most */

/* A mutant of m's parent (mut_fuzz, any operator) into out that f has not
 * seen, which f then remembers: its length; 0 if MUTANT_FILTER_TRIES
 * mutants in a row were all made before (or one did not fit in max).
 * Each one made again is counted in again[] by its operator. f NULL: no
 * filter (the first mutant). */
size_t mutant_filter_fuzz(struct mutant_filter *f, struct mutator *m, const uint8_t *add, size_t addlen,
			  uint8_t *out, size_t max, uint64_t again[MO_COUNT]);

#endif
