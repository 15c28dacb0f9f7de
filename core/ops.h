/*
 * core/ops.h - the software writers' operations, as core-mm would issue
 * them (fault, reclaim, madvise, mprotect, munmap, mremap paths), each a
 * call into the variant's arch-level entry points under the table's PTL.
 *
 * An op is fully described by struct op_args, so the same op runs from a
 * stress writer's random choice (op_pick_args) and from an interleaving
 * script's explicit arguments (engine/).
 */
#ifndef CORE_OPS_H
#define CORE_OPS_H

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
/* OP_COUNT if unknown. */
enum op op_by_name(const char *name);

/* Per-block writer memory (which folio and prot a block maps), under PTL. */
struct block_plan {
	uint64_t folio;     /* base pfn, CONT-aligned; 0 = none chosen yet */
	uint64_t prot;
};

/* What an op does, exactly.
 *   s, n    entries [s, s+n) of the block: map, unmap, flush_young,
 *           clear_young_dirty, wrprotect; entry s alone: fold, unfold,
 *           young, access_flags; unused: retire
 *   flags   map: OPF_YOUNG, OPF_DIRTY (the new entries' bits), OPF_NEW_FOLIO
 *           (a folio never mapped before; else the block's last one) and a
 *           prot choice OPF_PROT_*; clear_young_dirty: OPF_DIRTY clears
 *           dirty too; access_flags: one of OPF_AF_*.
 */
struct op_args {
	unsigned s, n;
	unsigned flags;
};
#define OPF_YOUNG      0x01
#define OPF_DIRTY      0x02
#define OPF_NEW_FOLIO  0x04
#define OPF_PROT_SHIFT 4            /* 2 bits */
#define OPF_PROT_MASK  (3u << OPF_PROT_SHIFT)
enum { PROT_KEEP, PROT_RDONLY, PROT_OTHER_ATTR, PROT_WRITABLE };
/* access_flags requests (flags & 3) */
enum { OPF_AF_READ, OPF_AF_WRITE, OPF_AF_MKWRITE, OPF_AF_ONLY };

/* Choose random arguments for op on a block whose entries are e (stress
 * writers). False if the op has nothing suitable to act on. */
bool op_pick_args(const struct harness_mm *m, const uint64_t *e, enum op op,
		  uint64_t *rng, struct op_args *a);

/* Run op with arguments a on block b of table lt (caller holds its PTL).
 * Ops whose preconditions do not hold (map over non-none entries, fold of
 * an invalid or CONT entry, ...) do nothing, as core-mm would never issue
 * them. *touched gets the block it changed, or -1 for all blocks of the
 * table. Returns 0 if the op did nothing. */
int op_run(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans,
	   unsigned lt, unsigned b, enum op op, const struct op_args *a, int *touched);

/* op_pick_args then op_run: a stress writer's random op. */
int op_run_random(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans,
		  unsigned lt, unsigned b, enum op op, uint64_t *rng, int *touched);

#endif
