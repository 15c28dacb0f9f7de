/*
 * core/rcu.h - the RCU the runtime uses, in liburcu's API. Stress mode is
 * real liburcu (urcu.h, the default flavour); the deterministic engine
 * supplies its own implementation of the same calls with the same
 * semantics (read-side sections, grace periods, call_rcu callbacks) on its
 * scheduler, selected at build time like an access-layer backend:
 *   -DRCU_BACKEND_CUSTOM='"engine/rcu_sched.h"'
 */
#ifndef CORE_RCU_H
#define CORE_RCU_H

#if defined(RCU_BACKEND_CUSTOM)
#include RCU_BACKEND_CUSTOM
#else
/* rcu_dereference() as liburcu's inline consume load, not a call taking the
 * pointer's value (a plain load in our code that ThreadSanitizer would
 * rightly report against the writer's store) */
#define URCU_INLINE_SMALL_FUNCTIONS
#include <urcu.h>
/* a WRITE_ONCE of a pointer (no release): core-mm publishing a page table
 * after its own smp_wmb(). A relaxed atomic store rather than liburcu's
 * volatile one, so that ThreadSanitizer sees it as the atomic access it is
 * against rcu_dereference()'s load. */
#define rcu_set_pointer_relaxed(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELAXED)
/* The harness's own look at a table from a thread that does not hold its
 * lock (a check, not a step of the code under test): a read-side section
 * here; on the engine a plain read that is no scheduling point. */
#define check_rcu_read_lock() rcu_read_lock()
#define check_rcu_read_unlock() rcu_read_unlock()
#define check_rcu_dereference(p) rcu_dereference(p)
#endif

#endif
