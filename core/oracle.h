/*
 * core/oracle.h - judging one lockless (or locked) read. docs/contract.md
 * states the properties and why these checks decide them.
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
#ifndef CORE_ORACLE_H
#define CORE_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/mm.h"
#include "core/violation.h"

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

enum verdict { VERDICT_OK, VERDICT_UNJUDGED, VERDICT_VIOLATION };

/* Which checks a verdict could apply (for statistics). */
struct judge_stats {
	uint64_t hw_quiet, sw_quiet, content_only, unjudged;
};

enum verdict oracle_judge(struct harness_mm *m, const struct read_obs *o,
			  struct violation *out, struct judge_stats *st);

#endif
