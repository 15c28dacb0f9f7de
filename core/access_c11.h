/*
 * core/access_c11.h - the C11-atomics backend of the access layer (default;
 * ThreadSanitizer understands it). Orderings follow the kernel's primitives:
 * READ_ONCE/WRITE_ONCE and the *_relaxed RMWs are relaxed; the barrier helpers
 * are fences. A backend provides exactly the accb_* functions below.
 */
#ifndef CORE_ACCESS_C11_H
#define CORE_ACCESS_C11_H

#include <stdatomic.h>
#include <stdint.h>

#define ACCESS_BACKEND_NAME "c11"

#define ACCB_ATOMIC(p) ((_Atomic uint64_t *)(p))

static inline uint64_t accb_load(const uint64_t *p)
{
	return atomic_load_explicit(ACCB_ATOMIC(p), memory_order_relaxed);
}

static inline void accb_store(uint64_t *p, uint64_t v)
{
	atomic_store_explicit(ACCB_ATOMIC(p), v, memory_order_relaxed);
}

/* Returns the value found; the swap happened iff it equals old. */
static inline uint64_t accb_cmpxchg(uint64_t *p, uint64_t old, uint64_t new)
{
	atomic_compare_exchange_strong_explicit(ACCB_ATOMIC(p), &old, new,
						memory_order_relaxed,
						memory_order_relaxed);
	return old;
}

static inline uint64_t accb_xchg(uint64_t *p, uint64_t v)
{
	return atomic_exchange_explicit(ACCB_ATOMIC(p), v, memory_order_relaxed);
}

static inline uint64_t accb_fetch_or(uint64_t *p, uint64_t m)
{
	return atomic_fetch_or_explicit(ACCB_ATOMIC(p), m, memory_order_relaxed);
}

static inline uint64_t accb_fetch_andnot(uint64_t *p, uint64_t m)
{
	return atomic_fetch_and_explicit(ACCB_ATOMIC(p), ~m, memory_order_relaxed);
}

static inline void accb_fence_full(void) { atomic_thread_fence(memory_order_seq_cst); }
static inline void accb_fence_acquire(void) { atomic_thread_fence(memory_order_acquire); }
static inline void accb_fence_release(void) { atomic_thread_fence(memory_order_release); }

#endif
