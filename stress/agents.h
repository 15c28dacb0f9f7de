/*
 * stress/agents.h - the writer and hardware threads of a stress run, shared
 * by the stress driver (with the oracle's readers, stress/driver.c) and the
 * read bench (stress/bench.c, with its timing loop).
 *
 * Writers run random writer ops (core/ops.h) under each table's PTL, check
 * after every op that hardware's bits are still there, and with delays
 * (stress/delay.h) or chaos stand still in front of stores (where a plain
 * read-modify-write would lose a concurrent hardware update, or between
 * the clear and the rewrite of a block). Hardware agents set AF and dirty
 * in bursts on one block at a time (core/hw.h), aimed half the time at the
 * block a writer is changing and at the entry a writer stands still in
 * front of (agent i follows writer i % writers), and with delays stand
 * still between their load and their compare-and-swap. Both stand still
 * while the world is paused (still phases, property 4).
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
#include "stress/delay.h"

struct agent;

/* What every thread of a run shares. */
struct stress_world {
	struct harness_mm m;
	struct block_plan *plans;        /* per block, under its table's PTL */
	uint32_t ops;                    /* the writers' op mask (enum op) */
	unsigned chaos;                  /* 1-in-N yields; 0: none */
	struct delay_params delay;       /* timed delays (stress/delay.h) */
	unsigned nreaders;               /* reader threads of the run (delays aim at them) */
	/* a writer's or hardware's finding (owed bits lost) */
	void (*report)(struct stress_world *w, const struct violation *v);
	atomic_int stop;
	atomic_int pause;                /* writers and hardware stand still while set */
	atomic_int parked;
	/* the running writers and hardware agents (agents_start_*) */
	struct agent *writers, *hws;
	unsigned nwriters, nhws;
	/* pinning: thread slot s (readers first, then writers, then
	 * hardware) runs on cpus[s % ncpus]; cpus NULL: not pinned */
	const int *cpus;
	unsigned ncpus;
	/* the TLB model (--tlb): hardware agent i accesses through tlbs[i],
	 * attached to m before the agents start; NULL: no TLB model */
	struct tlb *tlbs;
	/* the faulting devices (stress/faulter.c): accesses, fix-ups */
	_Atomic uint64_t fault_accesses, fault_fixups;
};

/* Cache-line aligned (allocate arrays with agents_alloc): each thread
 * writes its own agent on every op, and neighbours must not share lines. */
struct agent {
	_Alignas(64) pthread_t th;
	struct stress_world *w;
	struct writer_ctx ctx;           /* writers */
	uint64_t rng;
	unsigned index;                  /* among the agents of its kind */
	struct delay delay;
	/* A writer's mailboxes (lt * bpt + b + 1; 0 none). hot_block: the
	 * block it is working on (hardware agent i follows writer i % n
	 * there, and readers aim some reads at it). hot_ptep: the entry it
	 * stands still in front of (the hardware agent updates it then).
	 * stalled_block: a block a reader stands still in the middle of (the
	 * writer often changes it next). */
	_Alignas(64) _Atomic unsigned hot_block;
	uint64_t *_Atomic hot_ptep;
	_Atomic unsigned stalled_block;
	_Atomic uint64_t ops;            /* ops done (writers) or updates (hardware) */
	bool cleared;                    /* delays: this op has cleared entries */
	struct agent *follow;            /* hardware: the writer it follows */
	double cpu_s;                    /* the thread's CPU time, when it ended */
	const struct acc_subject *subj;  /* its record of subject code (a hang names it) */
};

/* The block a writer says it is working on (hot_block), for the agents
 * that aim at it: true with its table and block, false if none yet. */
static inline bool agent_hot_block(struct agent *writer, unsigned bpt, unsigned *lt, unsigned *b)
{
	unsigned hot = writer ? atomic_load_explicit(&writer->hot_block, memory_order_relaxed) : 0;

	if (!hot)
		return false;
	*lt = (hot - 1) / bpt;
	*b = (hot - 1) % bpt;
	return true;
}

/* The writer's side: block b of table lt is the one it works on now. */
static inline void agent_set_hot_block(struct agent *writer, unsigned bpt, unsigned lt, unsigned b)
{
	atomic_store_explicit(&writer->hot_block, lt * bpt + b + 1, memory_order_relaxed);
}

/* Start nw writer threads (rng seed * 2000003 + i) in wr[0..nw) and nh
 * hardware agents (seed * 3000017 + i) in hw[0..nh). Writers take thread
 * slots nreaders + i, hardware agents nreaders + nw + i. 0, or -1 (with
 * everything started joined again) if a thread cannot start. */
int agents_start(struct stress_world *w, struct agent *wr, unsigned nw, struct agent *hw,
		 unsigned nh, uint64_t seed);
void agents_join(struct agent *a, unsigned n);
/* n faulting devices (core/fault.h; stress/faulter.c), rng seed * 4000037 + i. */
int agents_start_faulters(struct stress_world *w, struct agent *a, unsigned n, uint64_t seed);

/* n zeroed agents, cache-line aligned (free with free); NULL if out of memory. */
struct agent *agents_alloc(unsigned n);

/* The writer that works on logical table lt most (each writer has its
 * own share of the tables when there are several): where a reader
 * standing still in a block of lt asks for it to be changed. nwriters > 0. */
struct agent *agents_owner(struct stress_world *w, unsigned lt);

/* CPU seconds the calling thread has used. */
double agents_thread_cpu_s(void);

/* Pin the calling thread to its slot's CPU (no-op without w->cpus). */
void agents_pin_self(struct stress_world *w, unsigned slot);

/* Writers and hardware call this between ops: stand still while paused. */
void agents_park_point(struct stress_world *w);

/* Hardware's bits on block touched of table lt (every block: -1), under
 * its PTL; a loss is reported. False on a loss. */
bool agents_check_owed(struct stress_world *w, unsigned lt, int touched);

/* After writer op (or fault fix-up) c on table lt, under its PTL: the op's
 * whole verdict (core/ops.h: op_verdict); a violation is reported. */
bool agents_check_op(struct stress_world *w, struct writer_ctx *c, unsigned lt, int touched);

#endif
