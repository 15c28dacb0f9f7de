/*
 * core/oracle/oracle.h - the contract in code: one file per property group
 * of docs/contract.md, used alike by the stress driver and the engine.
 *
 *   window.c      how a read is observed (the window protocol) and
 *                 property 5, memory safety
 *   read_props.c  properties 1-3 of a read: no torn mapping, no phantom
 *                 bits, no lost bits
 *   progress.c    property 4: the one livelock bound, and its report
 *   writers.c     what writers promise: hardware's bits are not lost
 *   history.c     the writers' log the checks read (history.h)
 *
 * Around each read the harness takes, without any lock:
 *   c0 = lcomp, e0 = hw_end, b0 = hw_begin     (window start)
 *   table = rcu_dereference(...)               (after c0: a table move
 *                                               before it is in the window)
 *   P  = snapshot of the block
 *   lp = lseq                                  (P exact if lp == c0)
 *   R  = the reader's result
 *   acquire fence
 *   Q  = snapshot of the block
 *   l1 = lseq, b1 = hw_begin                   (window end)
 * From the block's history the oracle then knows every value software gave
 * each entry in the window. If no software store landed in the window
 * (l1 == c0) contents were constant and only hardware set bits, so P and Q
 * bound every entry's state; if no hardware update did (e0 == b0 == b1), the
 * history alone is exact. Either way the bits are judged exactly; when both
 * raced, only the mapping content is (it never depends on hardware).
 */
#ifndef CORE_ORACLE_ORACLE_H
#define CORE_ORACLE_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/mm.h"
#include "core/violation.h"

/* ---- the read window (window.c) ------------------------------------------ */
struct read_obs {
	unsigned lt, block, t;     /* logical table, block, target index in block */
	bool locked;
	bool moved;                /* the page read was vacated by a table move by
				    * the window's end: it then holds none after the
				    * move, which the logical history does not show */
	unsigned slot;             /* physical table page read (for reports) */
	uint64_t c0, l1, e0, b0, b1;
	uint64_t lp;               /* lseq right after P: == c0 means no software
				    * store had begun by then, so P is exactly
				    * each entry's value at the window's start */
	uint64_t P[MAX_CONT_PTES], Q[MAX_CONT_PTES];
	uint64_t R;
};

/* One judged read, shared by the stress driver's reader threads and the
 * engine's READ steps:
 *   ptep = probe_open(...)     window start, rcu_read_lock, table, P; NULL
 *                              (no read: nothing to close) for a lockless
 *                              read of a table being torn down (hmm_exit_seq)
 *   R = reader(ptep)           the variant's ptep_get[_lockless]
 *   probe_close(..., R)        Q, window end, rcu_read_unlock
 *   probe_judge(...)           property 5, then (unless a teardown of the
 *                              table overlapped a lockless read: none)
 *                              properties 1-3 (out is
 *                              cleared first: violation_clear, not a
 *                              memset of its 8 KB; filled on a violation)
 * A locked read takes the table's PTL around all of it (the caller's lock). */
struct probe {
	struct read_obs o;
	struct slot_hdr *slot;
	uint64_t *e;                /* the block's entries in the page read */
	uint32_t gen, gen2, state;
	uint32_t exit0, exit1;      /* the table's teardown count (hmm_exit_seq) at
				     * the window's start and end */
};

enum verdict { VERDICT_OK, VERDICT_UNJUDGED, VERDICT_VIOLATION };

/* Which checks a verdict could apply (for statistics). */
struct judge_stats {
	uint64_t hw_quiet, sw_quiet, content_only, unjudged;
};

uint64_t *probe_open(struct harness_mm *m, struct probe *p, unsigned lt, unsigned block,
		     unsigned t, bool locked);
void probe_close(struct harness_mm *m, struct probe *p, uint64_t R);
/* Leave the read-side section of a read that will never return. */
void probe_abandon(struct probe *p);
enum verdict probe_judge(struct harness_mm *m, struct probe *p, struct violation *out,
			 struct judge_stats *st);

/* A coarse picture of what one read's window saw (14 bits): how many of
 * the block's entries changed, whether software and hardware changed it,
 * whether the target changed, a mapping came or went, a fold or unfold
 * happened, and how the result relates to the target's values at the
 * window's ends (and its young, dirty, valid+CONT, whether locked). The
 * fuzz harness's feedback (docs/fuzzing.md, "Read shapes"): a read that
 * raced with the writers in a new way is near what the properties judge. */
uint32_t read_shape(const struct harness_mm *m, const struct read_obs *o);

/* ---- properties 1-3 (read_props.c) ------------------------------------- */
enum verdict oracle_judge(struct harness_mm *m, const struct read_obs *o,
			  struct violation *out, struct judge_stats *st);

/* ---- property 4 (progress.c) ---------------------------------------------- */
/* Loads a read may make while no writer and no hardware agent can change
 * its table (they stand still, or are done): a correct reader needs at
 * most two passes over the block. More is a livelock. */
static inline uint64_t progress_bound(unsigned cont) { return 8 * (uint64_t)(cont + 2); }

/* The livelock report for a read p (opened, never returned) that made
 * loads loads; who: "reader" or "reader (thread 2)". */
void progress_report(const struct harness_mm *m, const struct probe *p, uint64_t loads,
		     const char *who, struct violation *out);

/* ---- writers against hardware (writers.c) ------------------------------- */
/* Under the PTL of lt: does every entry of the block still show the dirty
 * and young state hardware gave it? Fills out and returns false if not. */
bool oracle_check_owed(struct harness_mm *m, unsigned lt, unsigned block, struct violation *out);

/* ---- what each writer op promises (writers.c; docs/contract.md) ------------
 * core/ops.c's op_run brackets every op (under the table's PTL) with
 * op_check_begin and op_check_end: the op's block (every block for a table
 * move) before (E0) and after (E1), the history records the op made, and
 * whether any hardware update overlapped it. The mixed-block invariant and
 * the op's own postcondition (op_desc[].post, core/ops.c, built on the
 * post_* helpers below) then judge the op. Software is serialised by the
 * PTL, so E0 -> E1 is the op's doing plus what hardware added (AF set,
 * RDONLY cleared on a DBM entry): never a bit taken away, never content
 * changed. */
#define OP_MAX_BLOCKS 16
struct op_check {
	struct harness_mm *m;
	int op;                      /* enum op (core/ops.h) */
	unsigned s, n, flags;        /* its arguments (n = 1 for one entry) */
	unsigned lt, b;              /* table, block */
	unsigned b0, nb;             /* blocks snapshotted: b0 .. b0 + nb - 1 */
	bool fixup;                  /* a fault fix-up (core/fault.c) */
	int rc;                      /* 0: the op did nothing (preconditions) */
	bool has_ret;
	uint64_t ret;                /* what the entry point returned */
	uint64_t want;               /* map: entry s as asked; access_flags: the request */
	uint64_t rets[MAX_CONT_PTES]; /* teardown: what the call that cleared entry j
				       * returned (0: none, or no return) */
	int arg;                     /* access_flags: its dirty argument */
	uint64_t k0[OP_MAX_BLOCKS], k1[OP_MAX_BLOCKS];   /* the op's records: [k0, k1) */
	uint64_t he0[OP_MAX_BLOCKS], hb0[OP_MAX_BLOCKS];
	bool hw_quiet[OP_MAX_BLOCKS];  /* no hardware update overlapped the op */
	uint64_t E0[OP_MAX_BLOCKS * MAX_CONT_PTES], E1[OP_MAX_BLOCKS * MAX_CONT_PTES];
};

/* Entry j of snapshotted block blk (b0-relative index i = blk - b0). */
static inline uint64_t op_e0(const struct op_check *k, unsigned blk, unsigned j)
{
	return k->E0[(blk - k->b0) * k->m->cont + j];
}
static inline uint64_t op_e1(const struct op_check *k, unsigned blk, unsigned j)
{
	return k->E1[(blk - k->b0) * k->m->cont + j];
}

/* Before the op (PTL held) and after it (its stores visible). */
void op_check_begin(struct op_check *k, struct harness_mm *m, unsigned lt, unsigned b, bool all);
void op_check_end(struct op_check *k);
/* The mixed-block invariant on every snapshotted block: all entries valid
 * CONT with one mapping (consecutive pfns, one prot), or no CONT bit. */
bool op_check_blocks(const struct op_check *k, struct violation *out);

/* Helpers of the op table's postconditions (core/ops.c):
 * the last value the op stored to entry j of block blk (false: none) */
bool post_last_store(const struct op_check *k, unsigned blk, unsigned j, uint64_t *v);
/* did the op store to entry j a value with pred true? */
bool post_some_store(const struct op_check *k, unsigned blk, unsigned j, bool (*pred)(uint64_t));
/* entry j of the op's block kept its mapping (CONT aside) and its young
 * and dirty state, but for those in consumes (CONSUMES_*) */
bool post_kept(const struct op_check *k, unsigned j, unsigned consumes, struct violation *out);
/* ... of snapshotted block blk */
bool post_kept_at(const struct op_check *k, unsigned blk, unsigned j, unsigned consumes,
		  struct violation *out);
/* every entry outside [lo, hi) of the op's block kept */
bool post_kept_outside(const struct op_check *k, unsigned lo, unsigned hi, struct violation *out);
/* every valid entry of [lo, hi) had bit (CONSUMES_YOUNG: AF, not_aged;
 * CONSUMES_DIRTY: dirty, not_cleaned) clear at some instant of the op and
 * the op did not set it again. The aging ops' return value (wrong_return):
 * true if the op cleared AF of an entry young when it began; false if no
 * entry of the block was young at any instant of it. */
bool post_cleared(const struct op_check *k, unsigned lo, unsigned hi, unsigned bit,
		  struct violation *out);
bool post_young_return(const struct op_check *k, struct violation *out);
/* Fill out: kind, the summary (printf-style, after "KIND: OP ARGS on table T
 * block B: "), and the detail (the block before and after, entry j's
 * stores in the op; j < 0: none in particular). Returns false. */
bool post_fail(const struct op_check *k, struct violation *out, enum vkind kind, int j,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* ... showing snapshotted block blk */
bool post_fail_at(const struct op_check *k, unsigned blk, struct violation *out, enum vkind kind,
		  int j, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
