/*
 * core/access_plain.h - a deliberately wrong backend: entry loads and stores
 * are plain memory accesses (what a READ_ONCE/WRITE_ONCE that forgot its
 * volatile/atomic access would compile to). Only for the test that shows
 * ThreadSanitizer reports such a race (stress/tsan_plain_race_test.sh).
 */
#ifndef CORE_ACCESS_PLAIN_H
#define CORE_ACCESS_PLAIN_H

#include <stdint.h>

#define ACCESS_BACKEND_NAME "plain (racy on purpose)"

static inline uint64_t accb_load(const uint64_t *p) { return *p; }
static inline void accb_store(uint64_t *p, uint64_t v) { *p = v; }
static inline uint64_t accb_cmpxchg(uint64_t *p, uint64_t old, uint64_t new)
{
	__atomic_compare_exchange_n(p, &old, new, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return old;
}
static inline uint64_t accb_xchg(uint64_t *p, uint64_t v)
{
	return __atomic_exchange_n(p, v, __ATOMIC_RELAXED);
}
static inline uint64_t accb_fetch_or(uint64_t *p, uint64_t m)
{
	return __atomic_fetch_or(p, m, __ATOMIC_RELAXED);
}
static inline uint64_t accb_fetch_andnot(uint64_t *p, uint64_t m)
{
	return __atomic_fetch_and(p, ~m, __ATOMIC_RELAXED);
}
static inline void accb_fence_full(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void accb_fence_acquire(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
static inline void accb_fence_release(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }

#endif
