/*
 * core/ops.h - the software writers' operations, as core-mm would issue
 * them (fault, reclaim, madvise, mprotect, munmap, mremap paths), each a
 * call into the variant's arch-level entry points under the table's PTL.
 *
 * One table (op_desc[], core/ops.c) says everything about each op: its
 * name, how often random writers and random programs pick it, its argument
 * shape, the flags it takes and their words in the script text, which
 * hardware-set bits it may consume, how to choose random arguments for it
 * and how to run it. Stress writers, the engine's scripts and program
 * generator, and the fuzzer's lenient reader all read that table, so
 * adding an op is: its enum value here, its row in core/ops.c, the
 * kernel-dialect function it calls, and docs/script-format.md.
 *
 * An op is fully described by struct op_args, so the same op runs from a
 * stress writer's random choice (op_pick_args) and from an interleaving
 * script's explicit arguments (engine/).
 */
#ifndef CORE_OPS_H
#define CORE_OPS_H

#include <stdint.h>

#include "core/oracle/history.h"
#include "core/mm.h"
#include "core/rng.h"
#include "core/violation.h"

/* Scripts store an op as opcode 0x10 + enum op: append, never reorder. */
enum op {
	OP_MAP, OP_FOLD, OP_UNFOLD, OP_UNMAP, OP_YOUNG, OP_FLUSH_YOUNG,
	OP_CLEAR_YOUNG_DIRTY, OP_WRPROTECT, OP_ACCESS_FLAGS, OP_RETIRE,
	OP_TEARDOWN, OP_GET_AND_CLEAR, OP_YOUNG_PTES, OP_UNMAP_CLEAR, OP_COUNT
};

#define OPS_ALL ((1u << OP_COUNT) - 1)

/* What an op (or a script instruction) takes as arguments. */
enum op_shape {
	OP_SHAPE_NONE,      /* nothing: the whole table (retire) */
	OP_SHAPE_ENTRY,     /* one entry s of a block */
	OP_SHAPE_RANGE,     /* entries [s, s + n) of a block */
};

/* What an op does, exactly.
 *   s, n    entries [s, s+n) of the block (OP_SHAPE_RANGE), entry s alone
 *           (OP_SHAPE_ENTRY), unused (OP_SHAPE_NONE)
 *   flags   map: OPF_YOUNG, OPF_DIRTY (the new entries' bits), OPF_NEW_FOLIO
 *           (a folio never mapped before; else the block's last one) and a
 *           prot choice OPF_PROT_*; clear_young_dirty: OPF_DIRTY clears
 *           dirty too; access_flags: one of OPF_AF_*; teardown: OPF_CLEAR,
 *           OPF_SINGLE; get_and_clear: OPF_ZAP.
 */
struct op_args {
	unsigned s, n;
	unsigned flags;
	uint64_t entry;     /* access_flags with OPF_AF_FIXUP: the faulting device's
			     * lockless view of the entry (core/fault.c) */
};
#define OPF_YOUNG      0x01
#define OPF_DIRTY      0x02
#define OPF_NEW_FOLIO  0x04
/* teardown: clear_full_ptes (a caller that needs no old value: an
 * anonymous folio's zap); get_and_clear: ptep_get_and_clear_full(full=0),
 * a zap's, instead of ptep_get_and_clear */
#define OPF_CLEAR      0x08
#define OPF_ZAP        0x08
/* teardown: one entry at a time (ptep_get_and_clear_full(full=1), as
 * zap_pte_range did before batching; with OPF_CLEAR clear_full_ptes of one) */
#define OPF_SINGLE     0x40
#define OPF_PROT_SHIFT 4            /* 2 bits */
#define OPF_PROT_MASK  (3u << OPF_PROT_SHIFT)
enum { PROT_KEEP, PROT_RDONLY, PROT_OTHER_ATTR, PROT_WRITABLE };
/* access_flags requests (flags & OPF_AF_MASK) */
#define OPF_AF_MASK    0x03
enum { OPF_AF_READ, OPF_AF_WRITE, OPF_AF_MKWRITE, OPF_AF_ONLY };
/* access_flags as core-mm's fault path does it for a device that faulted
 * (core/fault.c): the request is a.entry made young (and dirty with
 * OPF_AF_WRITE), if the locked ptep_get still matches it. Not a script
 * flag (op_desc's flags do not accept it). */
#define OPF_AF_FIXUP   0x80

/* A word of the script text that sets flags: value within the field mask.
 * Words of one field exclude each other; a field's value 0 is printed only
 * if the field is required (access_flags' "read"). */
struct op_word {
	const char *word;
	uint8_t mask, value;
};

/* flags with word (mask, value) turned off (the field's 0) if it is on,
 * else on: the one-word flag change of the mutator and of flag runs. */
static inline uint8_t op_word_toggle(uint8_t flags, uint8_t mask, uint8_t value)
{
	return (uint8_t)((flags & mask) == value ? flags & ~mask : (flags & ~mask) | value);
}

struct op_check;

/* What an op run needs besides its arguments (filled in by op_run). */
struct op_ctx {
	struct harness_mm *m;
	struct writer_ctx *w;
	struct block_plan *plan;    /* the block's writer memory */
	uint64_t *e;                /* the block's entries */
	unsigned lt, b;             /* logical table, block */
	unsigned long addr;         /* virtual address of entry s */
	int touched;                /* block changed, or -1 for all of the table */
	const struct op_args *a;
	struct op_check *k;         /* what the op's postcondition judges: the run
				     * sets k->ret/has_ret (what the entry point
				     * returned) and k->want (what it asked for) */
};

/* Per-block writer memory (which folio and prot a block maps), under PTL. */
struct block_plan {
	uint64_t folio;     /* base pfn, CONT-aligned; 0 = none chosen yet */
	uint64_t prot;
};

/* Everything about one op (and, with run == NULL, a script instruction
 * that is not a writer op: engine/script.c describes those the same way). */
struct op_desc {
	const char *name;
	unsigned weight;                 /* relative frequency when picked at random */
	enum op_shape shape;
	uint8_t flags;                   /* flag bits it accepts */
	const struct op_word *words;     /* their text words, NULL-terminated */
	uint8_t required;                /* a field the text must name (0: none) */
	unsigned consumes;               /* CONSUMES_* it may clear */
	unsigned consumes_if_dirty;      /* ... and with OPF_DIRTY given */
	/* stress writers: arguments from the block's entries e (cont of them);
	 * false if there is nothing suitable to act on */
	bool (*pick)(const uint64_t *e, unsigned cont, uint64_t *rng, struct op_args *a);
	/* random programs: the flags (s and n are drawn from the shape) */
	unsigned (*gen_flags)(uint64_t *rng);
	/* run on the block (caller holds the PTL); 0 if it did nothing, as
	 * when its preconditions do not hold and core-mm would not issue it */
	int (*run)(struct op_ctx *c, unsigned s, unsigned n, unsigned flags);
	/* its postcondition (docs/contract.md, "What writers promise"): judged
	 * after every run, under the PTL, on the block before and after and
	 * the op's own history records (core/oracle/oracle.h: struct
	 * op_check); false with out filled if the op broke it */
	bool (*post)(const struct op_check *k, struct violation *out);
};

extern const struct op_desc op_desc[OP_COUNT];

static inline const char *op_name(enum op op) { return op_desc[op].name; }

/* Parse "all" or a comma list of op names into a mask; "-NAME" leaves an op
 * out ("all,-access_flags", or "-access_flags" alone: all but it). On error
 * returns 0 and names the bad token in err. */
uint32_t ops_parse(const char *s, char *err, size_t errlen);
/* Pick an op by weight: among the mask's (stress writers), or among all
 * (random programs). */
enum op ops_pick(uint32_t mask, uint64_t *rng);
/* OP_COUNT if unknown. */
enum op op_by_name(const char *name);
/* Which hardware-set bits (CONSUMES_*) op with these flags may clear. */
unsigned op_consumes(enum op op, unsigned flags);

/* Choose random arguments for op on a block whose entries are e (stress
 * writers). False if the op has nothing suitable to act on. */
bool op_pick_args(const struct harness_mm *m, const uint64_t *e, enum op op,
		  uint64_t *rng, struct op_args *a);
/* Random arguments for op in a random program over blocks of cont entries
 * (no entries to look at): s and n by the op's shape, then its flags. */
void op_gen_args(enum op op, unsigned cont, uint64_t *rng, struct op_args *a);

/* Run op with arguments a on block b of table lt (caller holds its PTL).
 * Ops whose preconditions do not hold (map over non-none entries, fold of
 * an invalid or CONT entry, ...) do nothing, as core-mm would never issue
 * them. *touched gets the block it changed, or -1 for all blocks of the
 * table. Returns 0 if the op did nothing. */
int op_run(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans,
	   unsigned lt, unsigned b, enum op op, const struct op_args *a, int *touched);

/* After op_run, still under the PTL: the op's verdict, in this order: an
 * access outside its blocks (out_of_bounds: the op was stopped before it),
 * the mixed-block invariant, hardware's bits on the blocks it touched
 * (oracle_check_owed), then its postcondition (op_desc[].post). False with
 * out filled on a violation. */
bool op_verdict(struct harness_mm *m, struct writer_ctx *w, unsigned lt, int touched,
		struct violation *out);

/* After op_verdict, still under the PTL: exit_mmap zaps every VMA of the
 * mm, so a teardown found to leave its block mixed (mixed_block: the zap
 * of a VMA ending inside the block, with a fast path that skips the
 * unfold) is followed by the zap of the rest of the block, another VMA's,
 * as the kernel goes on: a teardown of the whole block with the same
 * flags, through the same entry points. The mixed block is the finding;
 * with it known the run goes on with the block the kernel would leave
 * (none), not with one every later op on it would be judged on. Returns
 * what op_run returns (0: nothing to finish); the caller judges the zap
 * with op_verdict like any op. */
int op_finish_exit(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans, int *touched);

/* op_pick_args then op_run: a stress writer's random op. */
int op_run_random(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans,
		  unsigned lt, unsigned b, enum op op, uint64_t *rng, int *touched);

#endif
