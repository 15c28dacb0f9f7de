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
#include <urcu.h>
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
/* ThreadSanitizer: rcu_dereference as the atomic (consume) load it is
 * (liburcu's non-LGPL form reads the pointer with a plain load before
 * calling into the uninstrumented library), so that the relaxed publish
 * below is atomic against it */
#undef rcu_dereference
#define rcu_dereference(p) __atomic_load_n(&(p), __ATOMIC_CONSUME)
#endif
#endif
/* a plain WRITE_ONCE of a pointer (no release): core-mm publishing a page
 * table after its own smp_wmb(). A relaxed atomic store: the same single
 * store instruction as CMM_STORE_SHARED, and one ThreadSanitizer does not
 * report against rcu_dereference's load. */
#define rcu_set_pointer_relaxed(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELAXED)
#endif

#endif
