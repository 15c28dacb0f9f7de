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
/* a plain WRITE_ONCE of a pointer (no release): core-mm publishing a page
 * table after its own smp_wmb() */
#define rcu_set_pointer_relaxed(p, v) CMM_STORE_SHARED(p, v)
#endif

#endif
