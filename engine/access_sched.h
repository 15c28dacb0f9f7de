/*
 * engine/access_sched.h - the access layer's backend for the deterministic
 * engine: every load, and every store or read-modify-write, is a
 * scheduling point (engine/sched.h). Threads take turns on one OS thread.
 * Under the sc memory model the operations are plain memory operations,
 * so every interleaving is sequentially consistent; under the arm model
 * (engine/memory.h) a load may read an older write the model allows, and
 * a store may wait in its thread's store buffer (eng_arm is set while a
 * run under that model has threads running).
 *
 * A mutation's scheduling point is taken before the oracle's history
 * observer reserves its record (accb_mutate_point), so no other thread
 * ever sees a record reserved for an access not yet made.
 * acc_peek (the oracle's snapshots) is not a scheduling point.
 */
#ifndef ENGINE_ACCESS_SCHED_H
#define ENGINE_ACCESS_SCHED_H

#include <stdint.h>

#define ACCESS_BACKEND_NAME "sched"

#include "core/access_kind.h"

/* engine/sched.c */
void eng_access_point(enum acc_kind kind);
void eng_access_note(enum acc_kind kind, const void *p, uint64_t before, uint64_t after);
/* engine/access_sched.c: the arm model's side of each access */
extern _Bool eng_arm;
uint64_t eng_arm_load(const uint64_t *p, int order);
_Bool eng_arm_store(uint64_t *p, uint64_t v, int order);
uint64_t eng_arm_rmw(uint64_t *p, enum acc_kind kind, uint64_t a, uint64_t b);
void eng_arm_barrier(enum acc_barrier b);
void eng_arm_writes_visible(void);
void eng_arm_drain_loc(uint64_t *p);
void eng_arm_observe_all(void);
void eng_arm_seed(uint64_t *p, uint64_t v);

#define ACCB_HAS_PEEK 1
#define ACCB_HAS_MUTATE_POINT 1
#define ACCB_HAS_STORE_BUFFER 1
#define ACCB_HAS_BARRIERS 1
#define ACCB_HAS_ACQUIRE_RELEASE 1
#define ACCB_HAS_HARNESS_POINTS 1

#define ACCB_WORD(p) (*(volatile uint64_t *)(p))

static inline uint64_t accb_peek(const uint64_t *p) { return ACCB_WORD(p); }

static inline uint64_t accb_load(const uint64_t *p)
{
	uint64_t v;

	eng_access_point(ACC_LOAD);
	v = eng_arm ? eng_arm_load(p, 0) : ACCB_WORD(p);
	eng_access_note(ACC_LOAD, p, v, v);
	return v;
}

/* order: 1 acquire (LDAR), 2 acquire-PC (LDAPR) */
static inline uint64_t accb_load_acquire(const uint64_t *p, _Bool pc)
{
	uint64_t v;

	eng_access_point(ACC_LOAD);
	v = eng_arm ? eng_arm_load(p, pc ? 2 : 1) : ACCB_WORD(p);
	eng_access_note(ACC_LOAD, p, v, v);
	return v;
}

/* True if the store went to the thread's store buffer (the arm model):
 * it is observed and traced when it becomes visible. */
static inline _Bool accb_store_buffered(uint64_t *p, uint64_t v)
{
	if (!eng_arm)
		return 0;
	eng_access_point(ACC_STORE);
	return eng_arm ? eng_arm_store(p, v, 0) : 0;
}

/* A mutation's scheduling point; under arm, before the history observes
 * the mutation, the thread's buffered stores it must follow become visible
 * (an atomic: its location's; a release store: all), so that no commit is
 * observed in the middle of observing this access. */
static inline void accb_mutate_point(uint64_t *p, enum acc_kind kind)
{
	eng_access_point(kind);
	if (eng_arm && kind != ACC_STORE)
		eng_arm_drain_loc(p);
}

static inline void accb_release_point(void)
{
	if (eng_arm)
		eng_arm_barrier(ACC_BARRIER_FULL);
}

static inline void accb_store(uint64_t *p, uint64_t v)
{
	uint64_t old = ACCB_WORD(p);

	ACCB_WORD(p) = v;
	eng_access_note(ACC_STORE, p, old, v);
}

static inline void accb_store_release(uint64_t *p, uint64_t v)
{
	uint64_t old = ACCB_WORD(p);

	if (eng_arm)
		eng_arm_store(p, v, 3);
	else
		ACCB_WORD(p) = v;
	eng_access_note(ACC_STORE, p, old, v);
}

static inline uint64_t accb_cmpxchg(uint64_t *p, uint64_t old, uint64_t new)
{
	uint64_t cur = eng_arm ? eng_arm_rmw(p, ACC_CMPXCHG, old, new) : ACCB_WORD(p);

	if (cur == old)
		ACCB_WORD(p) = new;
	eng_access_note(ACC_CMPXCHG, p, cur, ACCB_WORD(p));
	return cur;
}

static inline uint64_t accb_xchg(uint64_t *p, uint64_t v)
{
	uint64_t cur = eng_arm ? eng_arm_rmw(p, ACC_XCHG, v, 0) : ACCB_WORD(p);

	ACCB_WORD(p) = v;
	eng_access_note(ACC_XCHG, p, cur, v);
	return cur;
}

static inline uint64_t accb_fetch_or(uint64_t *p, uint64_t m)
{
	uint64_t cur = eng_arm ? eng_arm_rmw(p, ACC_OR, m, 0) : ACCB_WORD(p);

	ACCB_WORD(p) = cur | m;
	eng_access_note(ACC_OR, p, cur, cur | m);
	return cur;
}

static inline uint64_t accb_fetch_andnot(uint64_t *p, uint64_t m)
{
	uint64_t cur = eng_arm ? eng_arm_rmw(p, ACC_ANDNOT, m, 0) : ACCB_WORD(p);

	ACCB_WORD(p) = cur & ~m;
	eng_access_note(ACC_ANDNOT, p, cur, cur & ~m);
	return cur;
}

/* Under sc one interleaving at a time is sequentially consistent: barriers
 * order nothing that is not already ordered. Under arm they are the
 * model's (engine/memory.h). */
static inline void accb_barrier(enum acc_barrier b)
{
	if (eng_arm)
		eng_arm_barrier(b);
}
static inline void accb_fence_full(void) { accb_barrier(ACC_BARRIER_FULL); }
static inline void accb_fence_acquire(void) { accb_barrier(ACC_BARRIER_LOADS); }
static inline void accb_fence_release(void) { accb_barrier(ACC_BARRIER_FULL); }

static inline void accb_writes_visible(void)
{
	if (eng_arm)
		eng_arm_writes_visible();
}
static inline void accb_observe_all(void)
{
	if (eng_arm)
		eng_arm_observe_all();
}
static inline void accb_seed(uint64_t *p, uint64_t v)
{
	if (eng_arm)
		eng_arm_seed(p, v);
	else
		ACCB_WORD(p) = v;
}

#endif
