/*
 * stress/agents.h - the writer and hardware threads of a stress run, shared
 * by the stress driver (with the oracle's readers, stress/driver.c) and the
 * read bench (stress/bench.c, with its timing loop).
 *
 * Writers run random writer ops (core/ops.h) under each table's PTL, check
 * after every op that hardware's bits are still there, and with chaos stall
 * in front of stores (where a plain read-modify-write would lose a
 * concurrent hardware update). Hardware agents set AF and dirty in bursts
 * on one block at a time (core/hw.h), aimed half the time at the block a
 * writer is changing and at the entry a writer stalls in front of. Both
 * stand still while the world is paused (still phases, property 4).
 */
#ifndef STRESS_AGENTS_H
#define STRESS_AGENTS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/mm.h"
#include "core/ops.h"
#include "core/violation.h"

/* What every thread of a run shares. */
struct stress_world {
	struct harness_mm m;
	struct block_plan *plans;        /* per block, under its table's PTL */
	uint32_t ops;                    /* the writers' op mask (enum op) */
	unsigned chaos;                  /* 1-in-N stalls; 0: none */
	/* a writer's or hardware's finding (owed bits lost) */
	void (*report)(struct stress_world *w, const struct violation *v);
	atomic_int stop;
	atomic_int pause;                /* writers and hardware stand still while set */
	atomic_int parked;
	/* The block a writer is working on (lt * bpt + b + 1; 0 none):
	 * hardware bursts often go there. The entry a writer stalls in front
	 * of. The block a reader is stalled in the middle of: a writer often
	 * picks it next, to change the block under the read. */
	_Atomic unsigned hot_block;
	uint64_t *_Atomic hot_ptep;
	_Atomic unsigned stalled_block;
	/* the faulting devices (stress/faulter.c): accesses, fix-ups */
	_Atomic uint64_t fault_accesses, fault_fixups;
};

struct agent {
	pthread_t th;
	struct stress_world *w;
	struct writer_ctx ctx;           /* writers */
	uint64_t rng;
};

/* Start n writer threads (rng seed * 2000003 + i) or n hardware agents
 * (seed * 3000017 + i) in a[0..n). 0, or -1 if a thread cannot start. */
int agents_start_writers(struct stress_world *w, struct agent *a, unsigned n, uint64_t seed);
int agents_start_hw(struct stress_world *w, struct agent *a, unsigned n, uint64_t seed);
void agents_join(struct agent *a, unsigned n);
/* n faulting devices (core/fault.h; stress/faulter.c), rng seed * 4000037 + i. */
int agents_start_faulters(struct stress_world *w, struct agent *a, unsigned n, uint64_t seed);

/* Writers and hardware call this between ops: stand still while paused. */
void agents_park_point(struct stress_world *w);

/* Hardware's bits on block touched of table lt (every block: -1), under
 * its PTL; a loss is reported. False on a loss. */
bool agents_check_owed(struct stress_world *w, unsigned lt, int touched);

/* After writer op (or fault fix-up) c on table lt, under its PTL: the op's
 * whole verdict (core/ops.h: op_verdict); a violation is reported. */
bool agents_check_op(struct stress_world *w, struct writer_ctx *c, unsigned lt, int touched);

#endif
