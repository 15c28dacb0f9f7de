/*
 * engine/access_sched.h - the access layer's backend for the deterministic
 * engine: every load, and every store or read-modify-write, is a
 * scheduling point (engine/sched.h). Threads take turns on one OS thread,
 * so the operations themselves are plain memory operations, and every
 * interleaving the engine runs is sequentially consistent.
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

#define ACCB_HAS_PEEK 1
#define ACCB_HAS_MUTATE_POINT 1

#define ACCB_WORD(p) (*(volatile uint64_t *)(p))

static inline uint64_t accb_peek(const uint64_t *p) { return ACCB_WORD(p); }

static inline uint64_t accb_load(const uint64_t *p)
{
	uint64_t v;

	eng_access_point(ACC_LOAD);
	v = ACCB_WORD(p);
	eng_access_note(ACC_LOAD, p, v, v);
	return v;
}

static inline void accb_mutate_point(uint64_t *p, enum acc_kind kind)
{
	(void)p;
	eng_access_point(kind);
}

static inline void accb_store(uint64_t *p, uint64_t v)
{
	uint64_t old = ACCB_WORD(p);

	ACCB_WORD(p) = v;
	eng_access_note(ACC_STORE, p, old, v);
}

static inline uint64_t accb_cmpxchg(uint64_t *p, uint64_t old, uint64_t new)
{
	uint64_t cur = ACCB_WORD(p);

	if (cur == old)
		ACCB_WORD(p) = new;
	eng_access_note(ACC_CMPXCHG, p, cur, ACCB_WORD(p));
	return cur;
}

static inline uint64_t accb_xchg(uint64_t *p, uint64_t v)
{
	uint64_t cur = ACCB_WORD(p);

	ACCB_WORD(p) = v;
	eng_access_note(ACC_XCHG, p, cur, v);
	return cur;
}

static inline uint64_t accb_fetch_or(uint64_t *p, uint64_t m)
{
	uint64_t cur = ACCB_WORD(p);

	ACCB_WORD(p) = cur | m;
	eng_access_note(ACC_OR, p, cur, cur | m);
	return cur;
}

static inline uint64_t accb_fetch_andnot(uint64_t *p, uint64_t m)
{
	uint64_t cur = ACCB_WORD(p);

	ACCB_WORD(p) = cur & ~m;
	eng_access_note(ACC_ANDNOT, p, cur, cur & ~m);
	return cur;
}

/* One interleaving at a time, each sequentially consistent: fences order
 * nothing that is not already ordered. */
static inline void accb_fence_full(void) { __asm__ __volatile__("" ::: "memory"); }
static inline void accb_fence_acquire(void) { __asm__ __volatile__("" ::: "memory"); }
static inline void accb_fence_release(void) { __asm__ __volatile__("" ::: "memory"); }

#endif
