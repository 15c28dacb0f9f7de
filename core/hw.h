/*
 * core/hw.h - the hardware agent (FEAT_HAFDBS): on an access the MMU sets
 * AF; on a write to an entry with DBM (WRITE) it clears RDONLY. Both are
 * atomic updates conditional on the descriptor it walked being unchanged
 * (a compare-and-swap), with no lock, concurrent with everything.
 */
#ifndef CORE_HW_H
#define CORE_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "core/mm.h"

/* One access (write=false) or write (write=true) to the page that entry j
 * of the block maps. The caller is inside rcu_read_lock and found ptep
 * through the table pointer. Returns true if the entry changed. */
bool hw_touch(struct block_hist *h, uint64_t *ptep, unsigned j, bool write);
/* The same update, as a table walk (core/tlb.c): returns the descriptor as
 * the walk leaves it (invalid: the access faults). */
uint64_t hw_walk(struct block_hist *h, uint64_t *ptep, unsigned j, bool write);

/* One hardware access to entry j of block b of logical table lt, inside
 * its own RCU read-side section (the table walk). */
bool hw_access(struct harness_mm *m, unsigned lt, unsigned b, unsigned j, bool write);

/* A burst of n hardware accesses to block b of logical table lt, each
 * inside its own RCU read-side section: random entries, one in three a
 * write; or, with stream, a write to every entry in order (a program
 * streaming over the folio). Through TLB t (core/tlb.h), or with t NULL
 * straight to the table. False (out filled) if an access was a violation
 * of the TLB model; the burst stops there. */
struct tlb;
struct violation;
bool hw_burst(struct harness_mm *m, struct tlb *t, unsigned lt, unsigned b, unsigned n,
	      bool stream, uint64_t *rng, struct violation *out);

#endif
