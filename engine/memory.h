/*
 * engine/memory.h - the engine's memory models.
 *
 *   sc   every load reads the latest value: one interleaving at a time is
 *        sequentially consistent (the engine's original mode);
 *   arm  an operational model of ARMv8 (other-multi-copy-atomic), written
 *        after the view-based Promising-ARM semantics (Pulte et al., PLDI
 *        2019) without promises, plus a store buffer per thread:
 *
 * Memory is the list of every write (message), in the order writes became
 * visible: a write's position is its timestamp, and the writes to one
 * location in timestamp order are its coherence order. A write becomes
 * visible to every other thread at once (multi-copy atomic for others).
 * Each thread keeps views (timestamps): per location, the newest write it
 * has observed (coherence), and the views that later reads and writes must
 * respect (raised by barriers, acquire loads and dependencies). A load may
 * read any write to its location that is not older than the newest write
 * at or before max(its pre-view, its location's coherence view): the older
 * still allowed, the newer all allowed. Which one is a choice
 * (engine/sched.h: eng_choose), recorded so a run replays bit for bit.
 *
 * Stores go to the thread's store buffer and become visible (get a
 * timestamp) later, in any order across locations and in program order
 * per location. Each store is, by a choice, either visible before the next
 * step of the run, or held back: then it becomes visible only at a barrier
 * that orders stores (DMB ST, DMB, DSB), before a release store, an
 * unlock, a grace period, an atomic read-modify-write of the same
 * location, or at the end of the run (those drains take the stores in an
 * order the choices give). Held-back stores are what lets later stores of
 * a thread become visible first. The thread's own loads read its buffered stores
 * first (forwarding). Atomic read-modify-writes read the latest write and
 * are visible at once.
 *
 * What orders what (the code's own primitives, through the access layer):
 *   READ_ONCE / WRITE_ONCE, *_relaxed RMWs   no ordering
 *   smp_mb (DMB ISH), dsb                     everything before, before everything after
 *   smp_rmb (DMB ISHLD)                       loads before, before loads and stores after
 *   smp_wmb (DMB ISHST)                       stores before, before stores after
 *   acquire load (LDAR) / acquire-PC (LDAPR)  before every later access (LDAR also
 *                                             after every earlier release store)
 *   release store (STLR)                      after every earlier access
 *   lock / unlock (the PTL)                   acquire / release
 *   rcu_dereference                           its later loads are ordered after it
 *                                             (they use its address: a dependency)
 *   rcu_assign_pointer                        release
 *   synchronize_rcu                           a full barrier; a read-side section that
 *                                             begins after it returned sees everything
 *                                             before it (RCU's guarantee)
 *   explicit address dependencies             litmus tests (mem_set_dep)
 *
 * Not produced: outcomes that need a store to become visible before an
 * earlier load of its own thread was satisfied (load buffering, LB, and the
 * shapes built on it, e.g. S with a barrier only on the writer): the model
 * has no promises. docs/memory-model.md says why the subject code cannot
 * depend on them.
 */
#ifndef ENGINE_MEMORY_H
#define ENGINE_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/access_kind.h"

enum mem_model { MEM_SC, MEM_ARM, MEM_MODEL_COUNT };
extern const char *const mem_model_names[MEM_MODEL_COUNT];
/* MEM_MODEL_COUNT if name is not a model. */
enum mem_model mem_model_by_name(const char *name);

enum mem_order { MO_PLAIN, MO_ACQUIRE, MO_ACQUIRE_PC, MO_RELEASE };
enum mem_fence { MF_FULL, MF_LOADS, MF_STORES, MF_ISB };

/* Per run: forget every message and view. */
void mem_reset(void);

/* The accesses of thread tid (arm model). */
uint64_t mem_load(unsigned tid, const uint64_t *p, enum mem_order o);
/* True if the store was buffered; false if it is visible already.
 * observed: the engine's commit hooks observe it when it becomes visible
 * (the access layer's stores); false for the harness's own stores (a
 * table page cleared, a table pointer set). */
bool mem_store(unsigned tid, uint64_t *p, uint64_t v, enum mem_order o, bool observed);
/* An atomic read-modify-write: kind ACC_CMPXCHG (a = old, b = new),
 * ACC_XCHG (a = value), ACC_OR, ACC_ANDNOT (a = mask). Returns the value
 * read. */
uint64_t mem_rmw(unsigned tid, uint64_t *p, enum acc_kind kind, uint64_t a, uint64_t b);
void mem_fence(unsigned tid, enum mem_fence f);

/* Before each step of a run: every buffered store not held back becomes
 * visible. */
void mem_propagate(unsigned nthreads);
/* Whether mem_propagate has anything to do (a store not held back, of any
 * thread): when not, the scheduler skips it and its set-up. */
bool mem_propagate_due(void);
/* Make every buffered store of tid visible (order: choices). */
void mem_drain(unsigned tid);
/* ... of tid's to p (before an atomic on p) */
void mem_drain_loc(unsigned tid, const uint64_t *p);
/* ... of every thread (the end of a run), interleaved by choices. */
void mem_drain_all(unsigned nthreads);
/* Stores buffered by tid. */
unsigned mem_buffered(unsigned tid);

/* Synchronisation the engine itself implements. */
void mem_lock_acquire(unsigned tid, unsigned lock);
void mem_lock_release(unsigned tid, unsigned lock);
void mem_grace_period_begin(unsigned tid);  /* synchronize_rcu called in tid */
void mem_grace_period(unsigned tid);        /* synchronize_rcu returned in tid */
void mem_read_section_begin(unsigned tid);  /* outermost rcu_read_lock */
/* Views up to every write visible now: the thread has observed them all
 * (a probe's window start: see docs/memory-model.md). */
void mem_catch_up(unsigned tid);

/* A write not made by any modelled thread (the harness filling a table
 * page): visible at once. */
void mem_external_store(uint64_t *p, uint64_t v);

/* Litmus tests: the view a thread's last load produced, and an address
 * dependency (a view) for its next access. */
uint32_t mem_last_view(unsigned tid);
void mem_set_dep(unsigned tid, uint32_t view);
/* The thread's control dependencies are given (litmus: a load ordered by
 * a branch and an ISB carries it as a dependency); otherwise every load is
 * taken to feed a branch, so an ISB orders all earlier loads. */
void mem_explicit_ctrl(unsigned tid);

/* How the engine observes a store of thread tid becoming visible (the
 * history and the trace): before returns a token, after gets it back. */
void mem_set_commit_hooks(uint64_t (*before)(unsigned tid, uint64_t *p, bool observed),
			  void (*after)(unsigned tid, uint64_t token, uint64_t *p, uint64_t before,
					uint64_t after, bool observed));

/* Who wrote the value the thread's last load returned (for reads-from
 * coverage): thread, instruction and a sequence number; 0 for an initial
 * value. */
uint32_t mem_last_source(unsigned tid);

/* Statistics of the run so far. */
struct mem_stats {
	uint64_t loads, stale_loads, buffered, reordered_commits;
};
void mem_stats(struct mem_stats *out);

#endif
