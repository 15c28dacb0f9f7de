/*
 * core/rcu_tsan.h - tell ThreadSanitizer about liburcu's happens-before
 * edges. liburcu 0.13 is not instrumented (its fences and volatile accesses
 * are invisible to TSan), so without these a reader's access to a table and
 * the grace-period callback's poisoning of it look unordered. The edges are
 * the real RCU guarantees and nothing more: publish -> dereference,
 * read-side unlock -> end of the grace period, call_rcu -> its callback. Removing the grace period
 * (mutant rcu_no_grace) is still reported. No-ops without TSan.
 */
#ifndef CORE_RCU_TSAN_H
#define CORE_RCU_TSAN_H

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CORE_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define CORE_TSAN 1
#endif

#ifdef CORE_TSAN
#include <sanitizer/tsan_interface.h>
extern char rcu_tsan_gp_token;
#define TSAN_RCU_PUBLISH(p) __tsan_release((void *)(p))
#define TSAN_RCU_CONSUME(p) do { if (p) __tsan_acquire((void *)(p)); } while (0)
#define TSAN_RCU_READ_END() __tsan_release(&rcu_tsan_gp_token)
#define TSAN_RCU_GP_DONE() __tsan_acquire(&rcu_tsan_gp_token)
/* call_rcu(head) happens before its callback runs (liburcu's queue) */
#define TSAN_RCU_CALL(p) __tsan_release((void *)(p))
#define TSAN_RCU_CALLBACK(p) __tsan_acquire((void *)(p))
#else
#define TSAN_RCU_PUBLISH(p) ((void)0)
#define TSAN_RCU_CONSUME(p) ((void)0)
#define TSAN_RCU_READ_END() ((void)0)
#define TSAN_RCU_GP_DONE() ((void)0)
#define TSAN_RCU_CALL(p) ((void)0)
#define TSAN_RCU_CALLBACK(p) ((void)0)
#endif

#endif
