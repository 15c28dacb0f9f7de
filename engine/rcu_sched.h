/*
 * engine/rcu_sched.h - liburcu's API (the calls core/ uses) on the
 * deterministic scheduler, with liburcu's semantics:
 *   rcu_read_lock/unlock   nestable read-side sections, per thread
 *   rcu_dereference        a scheduling point (the load of the pointer)
 *   rcu_assign_pointer     a scheduling point (the publishing store)
 *   synchronize_rcu        waits until every thread that was inside a
 *                          read-side section when it started has left it,
 *                          then runs the callbacks queued before it began
 *                          (the engine's call_rcu worker is the thread that
 *                          runs the grace period: a script's "gp" step)
 *   call_rcu               queues a callback for the next grace period
 *   rcu_barrier            runs everything queued (end of a run)
 * Selected by -DRCU_BACKEND_CUSTOM='"engine/rcu_sched.h"' (core/rcu.h).
 */
#ifndef ENGINE_RCU_SCHED_H
#define ENGINE_RCU_SCHED_H

#include <stddef.h>
#include <stdint.h>

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
	uint64_t seq;
};

void eng_rcu_read_lock(void);
void eng_rcu_read_unlock(void);
void *eng_rcu_deref(void *const *pp);
void eng_rcu_assign(void **pp, void *v);
void eng_rcu_set_relaxed(void **pp, void *v);
void eng_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
void eng_synchronize_rcu(void);
void eng_rcu_barrier(void);

#define rcu_read_lock() eng_rcu_read_lock()
#define rcu_read_unlock() eng_rcu_read_unlock()
#define rcu_dereference(p) ((__typeof__(p))eng_rcu_deref((void *const *)&(p)))
#define rcu_assign_pointer(p, v) eng_rcu_assign((void **)&(p), (void *)(v))
/* a plain WRITE_ONCE of a pointer (no release): core-mm publishing a page
 * table after its own smp_wmb() */
#define rcu_set_pointer_relaxed(p, v) eng_rcu_set_relaxed((void **)&(p), (void *)(v))
#define call_rcu(head, func) eng_call_rcu((head), (func))
#define synchronize_rcu() eng_synchronize_rcu()
#define rcu_barrier() eng_rcu_barrier()
/* The harness's own look at a table (a check, not a step of the code
 * under test, core/rcu.h): threads run one at a time here, so a plain
 * read, and no scheduling point that would change the run. */
#define check_rcu_read_lock() ((void)0)
#define check_rcu_read_unlock() ((void)0)
#define check_rcu_dereference(p) (p)
#define rcu_register_thread() ((void)0)
#define rcu_unregister_thread() ((void)0)
#ifndef caa_container_of
#define caa_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#endif
