/*
 * core/access.h - the shared-memory access layer.
 *
 * Every algorithm (kernel-dialect readers and writers, hardware agents)
 * touches page-table entries only through these functions:
 *
 *   acc_load      READ_ONCE                acc_store     WRITE_ONCE
 *   acc_cmpxchg   cmpxchg_relaxed          acc_xchg      xchg_relaxed
 *   acc_fetch_or  atomic OR                acc_fetch_andnot atomic AND-NOT
 *   acc_mb / acc_rmb / acc_wmb / acc_dsb   barriers (smp_mb, smp_rmb, smp_wmb, dsb)
 *   acc_isb                                 isb
 *   acc_load_acquire[_pc] / acc_store_release   LDAR, LDAPR / STLR
 *
 * Underneath sits one backend (like liburcu's flavours: one API, several
 * implementations chosen at build time): C11 atomics (default), AArch64
 * assembly (access_arm64.h, the default when compiling for aarch64), and
 * the deterministic scheduler (engine/access_sched.h: every access a
 * scheduling point). Above the backend, two
 * cheap per-thread instruments serve the harness:
 *   - loads are counted (progress / livelock detection), and block scans
 *     (retries per read; counted by kcompat.h where code aligns down);
 *   - a software writer's mutations are reported to an observer (the
 *     oracle's history) before and after they happen.
 * acc_peek reads without instruments: for the oracle's own snapshots only.
 */
#ifndef CORE_ACCESS_H
#define CORE_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/access_kind.h"

#if defined(ACCESS_BACKEND_CUSTOM)
#include ACCESS_BACKEND_CUSTOM
#elif defined(__aarch64__)
#include "core/access_arm64.h"   /* LL/SC, or LSE with -march=armv8.1-a */
#else
#include "core/access_c11.h"
#endif

struct acc_thread;

/* A _nosync TLB invalidation this thread issued and has not yet completed
 * with a DSB (core/tlb.c): entries [lo, hi) of harness mm m, issued as
 * number seq of m's invalidations. Its next DSB completes them all. */
#define ACC_TLB_PEND 8
struct acc_tlb_pend {
	void *m;
	uint64_t epoch;           /* tlb_epoch when issued (a reset since: dropped) */
	unsigned long lo, hi;
	uint64_t seq;
};

/* Told about every mutation a thread with an observer makes. begin runs
 * before the access and returns a token; end runs after it with the value
 * the entry now holds (if changed) and whether it changed. */
struct acc_observer {
	uint64_t (*begin)(struct acc_thread *t, uint64_t *p, enum acc_kind k);
	void (*end)(struct acc_thread *t, uint64_t token, uint64_t *p,
		    uint64_t newval, bool changed);
};

/* What subject code the thread is running: a finding's identity and
 * location (core/finding.h). The drivers set op (and clear the rest) before
 * each writer op, read or fault; a kernel tree's glue (kernel_tree/glue.h)
 * records the tree's functions its calls enter (fn); the out-of-line access
 * layer of a subject's unit records where in it each access was made (pc). */
struct acc_subject {
	const char *op;           /* a writer op's name, "read", "fault", "hw", ... */
	const char *fn;           /* the tree's function the last call entered (NULL: none) */
	const void *pc;           /* the subject's last access through the access layer */
	uint16_t depth;           /* calls into the tree in progress */
	uint8_t fn_file;          /* fn is a function of the tree's contpte.c */
};

struct acc_thread {
	int64_t budget;          /* loads left until on_limit runs (a down-counter:
				  * one decrement and branch per load) */
	int64_t armed;           /* what budget was last set to (acc_arm) */
	uint64_t spent;          /* loads before that */
	uint64_t scans;          /* block scans started (kcompat's PTR_ALIGN_DOWN) */
	const struct acc_observer *observer;
	void *observer_data;
	void (*on_limit)(struct acc_thread *t);
	struct acc_guard *guard;  /* a read's or writer op's, or NULL */
	void *tlb_local;          /* the struct tlb of the CPU this thread runs on,
				   * for local flushes; NULL: none in the model */
	struct acc_subject subj;  /* what subject code it runs (above) */
	unsigned tlb_npend;       /* _nosync invalidations awaiting this thread's DSB */
	struct acc_tlb_pend tlb_pend[ACC_TLB_PEND];
};

/* Around a subject's read or writer op (core/ops.c, the drivers):
 *   the write window: a mutation of an address outside [wlo, wlo + wlen)
 *   calls on_wild instead of happening, which must not return (it ends
 *   the op); wlen 0: no window;
 *   where a SIGSEGV/SIGBUS in the subject's code jumps (core/oob.c): a
 *   sigjmp_buf *, or NULL (the default action), and what the fault hit. */
struct acc_guard {
	uintptr_t wlo, wlen;
	void (*on_wild)(struct acc_guard *g, uint64_t *p, enum acc_kind k);
	void *data;
	void *recover;
	void *fault_addr;
};

extern __thread struct acc_thread acc_self __attribute__((tls_model("initial-exec")));

/* d = s, copying only the pending invalidations in use: the engine saves
 * and restores a thread's state on every switch, and the whole struct is
 * mostly room for them. */
static inline void acc_thread_copy(struct acc_thread *d, const struct acc_thread *s)
{
	/* a fixed-size copy inlines into moves; a variable one calls memcpy */
	__builtin_memcpy(d, s, __builtin_offsetof(struct acc_thread, tlb_pend));
	for (unsigned i = 0; i < s->tlb_npend; i++)
		d->tlb_pend[i] = s->tlb_pend[i];
}

/* The write-window check of every mutation. */
static inline void acc_check_window(uint64_t *p, enum acc_kind kind)
{
	struct acc_guard *g = acc_self.guard;

	if (__builtin_expect(g != 0, 0) && g->wlen && (uintptr_t)p - g->wlo >= g->wlen)
		g->on_wild(g, p, kind);
}

#ifdef ACC_OUTLINE
/*
 * A subject's own translation unit (a plug-in file, a kernel tree's
 * contpte.c) calls the access layer out of line: every load or store left
 * in that unit is then the subject's own, and the unit is compiled with
 * clang's load/store tracing so that a plain access to a table entry is
 * seen (core/plain_access.c). The project's side of the build defines
 * these (core/variant_export.h) with the inline functions below.
 */
uint64_t acc_outlined_load(const uint64_t *p);
void acc_outlined_store(uint64_t *p, uint64_t v);
uint64_t acc_outlined_cmpxchg(uint64_t *p, uint64_t old, uint64_t new);
uint64_t acc_outlined_xchg(uint64_t *p, uint64_t v);
uint64_t acc_outlined_fetch_or(uint64_t *p, uint64_t m);
uint64_t acc_outlined_fetch_andnot(uint64_t *p, uint64_t m);
uint64_t acc_outlined_load_acquire(const uint64_t *p, bool pc);
void acc_outlined_store_release(uint64_t *p, uint64_t v);
static inline uint64_t acc_load(const uint64_t *p) { return acc_outlined_load(p); }
static inline void acc_store(uint64_t *p, uint64_t v) { acc_outlined_store(p, v); }
static inline uint64_t acc_cmpxchg(uint64_t *p, uint64_t old, uint64_t new)
{
	return acc_outlined_cmpxchg(p, old, new);
}
static inline uint64_t acc_xchg(uint64_t *p, uint64_t v) { return acc_outlined_xchg(p, v); }
static inline uint64_t acc_fetch_or(uint64_t *p, uint64_t m) { return acc_outlined_fetch_or(p, m); }
static inline uint64_t acc_fetch_andnot(uint64_t *p, uint64_t m) { return acc_outlined_fetch_andnot(p, m); }
static inline uint64_t acc_load_acquire(const uint64_t *p) { return acc_outlined_load_acquire(p, false); }
static inline uint64_t acc_load_acquire_pc(const uint64_t *p) { return acc_outlined_load_acquire(p, true); }
static inline void acc_store_release(uint64_t *p, uint64_t v) { acc_outlined_store_release(p, v); }
#else
#ifdef ACCESS_BARE
/* Benchmark builds: the same algorithms with no instruments at all, the
 * "bare loop" the instrumented read is measured against. */
static inline uint64_t acc_load(const uint64_t *p) { return accb_load(p); }
#else
static inline uint64_t acc_load(const uint64_t *p)
{
	struct acc_thread *t = &acc_self;
	if (__builtin_expect(--t->budget < 0, 0))
		t->on_limit(t);
	return accb_load(p);
}
#endif

/* A backend may define accb_peek (a load that is not a shared-memory
 * access of the algorithm, e.g. not a scheduling point); else it is a load. */
#ifdef ACCB_HAS_PEEK
static inline uint64_t acc_peek(const uint64_t *p) { return accb_peek(p); }
#else
static inline uint64_t acc_peek(const uint64_t *p) { return accb_load(p); }
#endif

/* A backend may take a mutation's scheduling point before the observer
 * sees it (engine/access_sched.h); a no-op for real hardware. */
#ifndef ACCB_HAS_MUTATE_POINT
static inline void accb_mutate_point(uint64_t *p, enum acc_kind kind) { (void)p; (void)kind; }
#endif

#define ACC_MUTATE(p, kind, expr_result, newval_expr, changed_expr)           \
	({                                                                     \
		struct acc_thread *__t = &acc_self;                            \
		uint64_t __r;                                                  \
		acc_check_window((p), (kind));                                 \
		accb_mutate_point((p), (kind));                       \
		if (__t->observer) {                                           \
			uint64_t __tok = __t->observer->begin(__t, (p), (kind)); \
			__r = (expr_result);                                   \
			__t->observer->end(__t, __tok, (p), (newval_expr),     \
					   (changed_expr));                    \
		} else {                                                       \
			__r = (expr_result);                                   \
		}                                                              \
		__r;                                                           \
	})

static inline void acc_store(uint64_t *p, uint64_t v)
{
	acc_check_window(p, ACC_STORE);
#ifdef ACCB_HAS_STORE_BUFFER
	/* A backend with store buffers (the engine's ARMv8 model) may hold
	 * the store: it is then observed when it becomes visible. */
	if (accb_store_buffered(p, v))
		return;
#endif
	(void)ACC_MUTATE(p, ACC_STORE, (accb_store(p, v), v), v, true);
}

static inline uint64_t acc_cmpxchg(uint64_t *p, uint64_t old, uint64_t new)
{
	return ACC_MUTATE(p, ACC_CMPXCHG, accb_cmpxchg(p, old, new), new,
			  __r == old);
}

static inline uint64_t acc_xchg(uint64_t *p, uint64_t v)
{
	return ACC_MUTATE(p, ACC_XCHG, accb_xchg(p, v), v, true);
}

static inline uint64_t acc_fetch_or(uint64_t *p, uint64_t m)
{
	return ACC_MUTATE(p, ACC_OR, accb_fetch_or(p, m), __r | m, true);
}

static inline uint64_t acc_fetch_andnot(uint64_t *p, uint64_t m)
{
	return ACC_MUTATE(p, ACC_ANDNOT, accb_fetch_andnot(p, m), __r & ~m, true);
}

#endif /* ACC_OUTLINE */

/* A backend that tells the kernel's barriers apart (the engine's ARMv8
 * model: smp_wmb is DMB ISHST, ordering stores only) defines
 * ACCB_HAS_BARRIERS and accb_barrier(); others map them onto C11-style
 * fences, each at least as strong as the kernel's. */
#ifdef ACCB_HAS_BARRIERS
static inline void acc_mb(void) { accb_barrier(ACC_BARRIER_FULL); }
static inline void acc_rmb(void) { accb_barrier(ACC_BARRIER_LOADS); }
static inline void acc_wmb(void) { accb_barrier(ACC_BARRIER_STORES); }
static inline void acc_dsb(void) { accb_barrier(ACC_BARRIER_FULL); }
static inline void acc_isb(void) { accb_barrier(ACC_BARRIER_ISB); }
#else
static inline void acc_mb(void) { accb_fence_full(); }
static inline void acc_rmb(void) { accb_fence_acquire(); }
static inline void acc_wmb(void) { accb_fence_release(); }
/* dsb(ishst)-style completion barrier: a full fence in this model. */
static inline void acc_dsb(void) { accb_fence_full(); }
/* isb orders later loads after the control dependencies before it; the
 * C11 backends order all earlier loads (at least as strong). */
static inline void acc_isb(void) { accb_fence_acquire(); }
#endif

#ifndef ACC_OUTLINE
/* Acquire / release accesses (LDAR, LDAPR, STLR): the engine's model has
 * its own; elsewhere a load then an acquire fence, a release fence then a
 * store (at least as strong). */
#ifdef ACCB_HAS_ACQUIRE_RELEASE
static inline uint64_t acc_load_acquire(const uint64_t *p) { return accb_load_acquire(p, false); }
static inline uint64_t acc_load_acquire_pc(const uint64_t *p) { return accb_load_acquire(p, true); }
static inline void acc_store_release(uint64_t *p, uint64_t v)
{
	acc_check_window(p, ACC_STORE);
	accb_release_point();    /* everything before it visible first */
	(void)ACC_MUTATE(p, ACC_STORE, (accb_store_release(p, v), v), v, true);
}
#else
static inline uint64_t acc_load_acquire(const uint64_t *p)
{
	uint64_t v = acc_load(p);

	accb_fence_acquire();
	return v;
}
static inline uint64_t acc_load_acquire_pc(const uint64_t *p) { return acc_load_acquire(p); }
static inline void acc_store_release(uint64_t *p, uint64_t v)
{
	accb_fence_release();
	acc_store(p, v);
}
#endif

#endif /* !ACC_OUTLINE */

/* The harness's own points, no-ops on real hardware:
 *   acc_writes_visible   the thread's stores so far are visible (an op
 *                        ends before the harness checks it, as the PTL's
 *                        release would make them);
 *   acc_observe_all      the thread has observed every visible write (a
 *                        read's window starts: it may not read older);
 *   acc_seed             a write that is no access of the algorithms (the
 *                        harness filling a table page). */
#ifdef ACCB_HAS_HARNESS_POINTS
static inline void acc_writes_visible(void) { accb_writes_visible(); }
static inline void acc_observe_all(void) { accb_observe_all(); }
static inline void acc_seed(uint64_t *p, uint64_t v) { accb_seed(p, v); }
#else
static inline void acc_writes_visible(void) {}
static inline void acc_observe_all(void) {}
static inline void acc_seed(uint64_t *p, uint64_t v) { accb_store(p, v); }
#endif

/* Instrumented loads this thread has made since acc_reset. */
static inline uint64_t acc_loads(const struct acc_thread *t)
{
	return t->spent + (uint64_t)(t->armed - t->budget);
}
/* Call on_limit again after n more loads. */
static inline void acc_arm(struct acc_thread *t, int64_t n)
{
	t->spent = acc_loads(t);
	t->armed = t->budget = n;
}
/* Start counting from zero; on_limit after n loads. */
static inline void acc_reset(struct acc_thread *t, int64_t n)
{
	t->spent = 0;
	t->armed = t->budget = n;
}

/* Default on_limit: push the next call far away (no progress checking). */
void acc_limit_ignore(struct acc_thread *t);

#endif
