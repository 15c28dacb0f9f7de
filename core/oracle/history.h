/*
 * core/oracle/history.h - the software writers' log the oracle reads.
 *
 * A writer thread attaches an observer to the access layer; every store or
 * read-modify-write it makes to an entry is logged in the block's history
 * ring (core/mm.h) with the value the entry holds afterwards. Ordering (the
 * reason the oracle can trust the log): the record is reserved (lseq) and a
 * release fence issued before the access, and completed (lcomp) after it,
 * so a reader that saw the access's value and then issues an acquire fence
 * finds lseq past the record.
 *
 * The same log gives the writer-vs-hardware check: hardware marks an entry
 * with lcomp+1 before it sets AF or dirty; a writer op that legitimately
 * consumes the bit (unmap, clean, age) marks index+1 of its record. Whenever
 * mark > consume, the entry must still show the bit.
 */
#ifndef CORE_ORACLE_HISTORY_H
#define CORE_ORACLE_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/access.h"
#include "core/mm.h"
#include "core/violation.h"

#define CONSUMES_DIRTY 0x1
#define CONSUMES_YOUNG 0x2

struct writer_ctx {
	struct harness_mm *m;
	unsigned id;            /* which writer (reports: "writer 1") */
	unsigned consumes;      /* set per op: which bits this op may clear */
	unsigned chaos;         /* 1-in-N chance to yield before a store; 0 = never */
	uint64_t rng;
	/* where to announce the entry a chaos yield stalls in front of (so a
	 * hardware agent can update it meanwhile), or NULL */
	uint64_t *_Atomic *hot;
	/* the access in flight */
	struct block_hist *h;
	unsigned j;
	uint64_t k;
	/* the last op's verdict beyond the owed bits (core/ops.c: op_run
	 * judges its postcondition; op_verdict reports) */
	bool failed;
	struct violation vio;
	/* the break-before-make monitor's first finding in the op (with the
	 * TLB model on: core/bbm.h) */
	bool bbm_bad;
	struct violation bbm_vio;
	bool has_ret;           /* ... and what its entry point returned */
	uint64_t ret;
	/* the op in flight, enum op + 1 (0: none): for the history records'
	 * who and the watchdog */
	_Atomic int cur_op;
	_Atomic unsigned cur_lt, cur_b;
};

/* Route this thread's mutations into the history. */
void history_attach(struct writer_ctx *w);
void history_detach(void);

/* Read record index k (0-based); false if overwritten or incomplete.
 * who (may be NULL): the writer and op, as in struct hist_rec. */
bool history_read(const struct block_hist *h, uint64_t k, unsigned *entry,
		  uint64_t *value, uint64_t *prev, uint32_t *who);

/* For a report: entry j's records from index since on, newest first, at
 * most max of them, one "    record K: VALUE" line each (granule page
 * shift for the value's format) appended at buf[*off]; returns how many. */
unsigned history_print_entry(const struct block_hist *h, unsigned j, uint64_t since, unsigned max,
			     unsigned shift, char *buf, size_t len, size_t *off);

#endif
