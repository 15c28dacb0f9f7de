/*
 * stress/ops.h - the software writers' operations, as core-mm would issue
 * them (fault, reclaim, madvise, mprotect, munmap, mremap paths), each a
 * call into the variant's arch-level entry points under the table's PTL.
 */
#ifndef STRESS_OPS_H
#define STRESS_OPS_H

#include <stdint.h>

#include "core/history.h"
#include "core/mm.h"
#include "core/rng.h"

enum op {
	OP_MAP, OP_FOLD, OP_UNFOLD, OP_UNMAP, OP_YOUNG, OP_FLUSH_YOUNG,
	OP_CLEAR_YOUNG_DIRTY, OP_WRPROTECT, OP_ACCESS_FLAGS, OP_RETIRE, OP_COUNT
};

extern const char *const op_names[OP_COUNT];
#define OPS_ALL ((1u << OP_COUNT) - 1)

/* Parse "all" or a comma list of op names into a mask; on error returns 0
 * and names the bad token in err. */
uint32_t ops_parse(const char *s, char *err, size_t errlen);
/* Pick an enabled op, weighted. */
enum op ops_pick(uint32_t mask, uint64_t *rng);

/* Per-block writer memory (which folio and prot a block maps), under PTL. */
struct block_plan {
	uint64_t folio;     /* base pfn, CONT-aligned; 0 = none chosen yet */
	uint64_t prot;
};

/* Run one op on block b of table lt (caller holds its PTL). *touched gets
 * the block it changed, or -1 for all blocks of the table. Returns 0 if the
 * op did nothing (no suitable entries). */
int op_run(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans,
	   unsigned lt, unsigned b, enum op op, uint64_t *rng, int *touched);

#endif
