/*
 * stage2/runtime/access.c - the access layer of a tree's unit (READ_ONCE,
 * WRITE_ONCE, cmpxchg, smp_store_release, barriers, RCU, WARN_ON) on
 * core/access.h, with the checks every access to a table entry makes:
 *
 *   use after free      the page is live and the incarnation the thread
 *                       followed into (stage2/runtime/arena.c);
 *   protection          a software walk holds mmu_lock for write, owns what
 *                       it walks (teardown, an RCU callback), or is inside
 *                       an RCU read-side section (rcu_unprotected);
 *   every store judged  against the value it replaced, exactly: on real
 *                       threads the store and its judgement are one step
 *                       for its entry (a per-entry lock; a plain store is
 *                       an exchange, so the value it replaced is known), on
 *                       the engine the access layer's observer sees the
 *                       store as it becomes visible. A store over another
 *                       walker's LOCKED entry is locked_overwrite; a plain
 *                       store over a change made since the storer last saw
 *                       the entry is lost_update (resurrection when it
 *                       makes an entry another walker cleared valid again),
 *                       except a hardware access flag lost by an exclusive
 *                       walker, which the kernel accepts (counted); then
 *                       the break-before-make monitor (stage2/runtime/bbm.c)
 *                       and the table-linkage record see it.
 */
#include "stage2/runtime/s2.h"
#include <sched.h>
#include "stage2/runtime/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/access.h"
#include "core/rcu.h"
#include "core/rng.h"
#include "stage2/runtime/finding.h"
#ifdef S2_SCHED
#include "engine/sched.h"
#endif

struct s2_violation s2_found;
_Atomic int s2_nfound;
void (*s2_on_report)(void);
_Atomic uint64_t s2_clock;
struct s2_counters s2_count;

static const char *const vk_names[S2V_COUNT] = {
	[S2V_NONE] = "none",
	[S2V_UAF] = "use_after_free",
	[S2V_RCU] = "rcu_unprotected",
	[S2V_BBM] = "bbm_violation",
	[S2V_LOST_UPDATE] = "lost_update",
	[S2V_LOCKED_OVERWRITE] = "locked_overwrite",
	[S2V_RESURRECTION] = "resurrection",
	[S2V_REFCOUNT] = "refcount",
	[S2V_LEAK] = "leak",
	[S2V_DIRTY_LOG] = "dirty_log_lost",
	[S2V_AGING_MISS] = "aging_miss",
	[S2V_STALE_TLB] = "stale_tlb_access",
	[S2V_WARN] = "kernel_warn",
	[S2V_HANG] = "hang",
	[S2V_CRASH] = "crash",
};

const char *s2_vkind_name(enum s2_vkind k) { return k < S2V_COUNT ? vk_names[k] : "?"; }

enum s2_vkind s2_vkind_by_name(const char *name)
{
	for (int k = 1; k < S2V_COUNT; k++)
		if (!strcmp(name, vk_names[k]))
			return (enum s2_vkind)k;
	return S2V_NONE;
}

static double report_t0;          /* s2_report_reset's time */

static double clock_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* may_know: a known signature is counted and the run goes on (not for a
 * BUG_ON, which never returns) */
static void vreport(enum s2_vkind k, const char *where, bool may_know, const char *detail, const char *fmt,
		    va_list ap)
{
	struct s2_thread *t = s2_self();
	const char *op = s2_finding_op(t), *fn = s2_finding_fn(t);
	double at = clock_s() - report_t0;

	if (may_know && s2_known_note(k, op, fn, at))
		return;
	if (atomic_fetch_add(&s2_nfound, 1) != 0)
		return;
	s2_found.kind = k;
	snprintf(s2_found.op, sizeof(s2_found.op), "%s", op);
	snprintf(s2_found.fn, sizeof(s2_found.fn), "%s", fn);
	snprintf(s2_found.where, sizeof(s2_found.where), "%s", where ? where : "-");
	s2_found.at_s = at;
	vsnprintf(s2_found.summary, sizeof(s2_found.summary), fmt, ap);
	snprintf(s2_found.detail, sizeof(s2_found.detail), "%s", detail ? detail : "");
	if (s2_on_report)
		s2_on_report();
}

void s2_report(enum s2_vkind k, const char *detail, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(k, NULL, true, detail, fmt, ap);
	va_end(ap);
}

void s2_report_at(enum s2_vkind k, const char *where, const char *detail, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(k, where, true, detail, fmt, ap);
	va_end(ap);
}

void s2_report_reset(void)
{
	atomic_store(&s2_nfound, 0);
	s2_found.kind = S2V_NONE;
	s2_found.summary[0] = s2_found.detail[0] = 0;
	s2_found.op[0] = s2_found.fn[0] = s2_found.where[0] = 0;
	/* the findings' clock: from the first reset (the engine resets for
	 * each of its runs; its times are the whole exploration's) */
	if (report_t0 == 0)
		report_t0 = clock_s();
}

/* ---- threads ------------------------------------------------------------ */

#ifdef S2_SCHED
static uint64_t observe_begin(struct acc_thread *at, uint64_t *p, enum acc_kind k);
static void observe_end(struct acc_thread *at, uint64_t token, uint64_t *p, uint64_t v, bool changed);
static const struct acc_observer s2_observer = { observe_begin, observe_end };
#endif

/* t: zeroed, or attached before (its follow array is kept if the arena
 * has the same size). */
void s2_thread_attach(struct s2_thread *t, unsigned id, const char *role)
{
	uint32_t *follow = t->follow;
	unsigned n = s2_arena.npages ? s2_arena.npages : 1;

	if (follow && t->follow_n != n) {
		free(follow);
		follow = NULL;
	}
	memset(t, 0, sizeof(*t));
	t->id = id;
	snprintf(t->role, sizeof(t->role), "%s", role);
	t->follow = follow ? follow : calloc(n, sizeof(uint32_t));
	t->follow_n = n;
	if (follow)
		memset(follow, 0, n * sizeof(uint32_t));
	t->rng = s2_cfg.seed * 0x9e3779b97f4a7c15ULL + id + 1;
	acc_self.observer_data = t;
#ifdef S2_SCHED
	acc_self.observer = &s2_observer;
#endif
}

void s2_thread_detach(void)
{
	acc_self.observer_data = NULL;
	acc_self.observer = NULL;
}

struct s2_thread *s2_self(void)
{
	static __thread struct s2_thread other;
	struct s2_thread *t = acc_self.observer_data;

	if (t)
		return t;
	if (!other.role[0]) {
		snprintf(other.role, sizeof(other.role), "rcu-callbacks");
		other.id = S2_MAX_THREADS;
		other.held = S2_HELD_NONE;
	}
	if (s2_arena.npages && other.follow_n != s2_arena.npages) {
		free(other.follow);
		other.follow = calloc(s2_arena.npages, sizeof(uint32_t));
		other.follow_n = s2_arena.npages;
	}
	return &other;
}

void s2_op_begin(struct s2_thread *t, const char *name, const char *caller, const char *fn, enum s2_held held)
{
	t->op = caller;
	t->op_name = name;
	t->op_fn = fn;
	t->held = held;
	t->op_no++;
	memset(t->seen, 0, sizeof(t->seen));
	/* an op walks from the root again: what it followed before is moot */
	if (t->follow)
		memset(t->follow, 0, t->follow_n * sizeof(*t->follow));
}

void s2_op_end(struct s2_thread *t)
{
	t->op = t->op_name = t->op_fn = NULL;
	t->held = S2_HELD_NONE;
	t->ops++;
}

/* ---- what a thread last saw of an entry ----------------------------------- */

static inline unsigned seen_slot(const uint64_t *p) { return ((uintptr_t)p >> 3) & (S2_SEEN - 1); }

static inline void seen_put(struct s2_thread *t, const uint64_t *p, uint64_t v)
{
	t->seen[seen_slot(p)].p = p;
	t->seen[seen_slot(p)].v = v;
}

static inline bool seen_get(struct s2_thread *t, const uint64_t *p, uint64_t *v)
{
	if (t->seen[seen_slot(p)].p != p)
		return false;
	*v = t->seen[seen_slot(p)].v;
	return true;
}

/* ---- per-entry state: who holds a LOCKED entry ------------------------------ */

static _Atomic int16_t *locked_by;      /* per arena entry: thread id + 1, 0: none */
static size_t nentries;

void s2_entries_init(void)
{
	free((void *)locked_by);
	nentries = s2_arena.npages * (s2_arena.page_size / sizeof(uint64_t));
	locked_by = calloc(nentries, sizeof(*locked_by));
}

static inline size_t entry_of(const uint64_t *p)
{
	return (size_t)(p - (const uint64_t *)s2_arena.base);
}

int s2_locked_owner(const uint64_t *p)
{
	return atomic_load_explicit(&locked_by[entry_of(p)], memory_order_relaxed) - 1;
}

/* ---- the checks ---------------------------------------------------------------- */

static void protection(struct s2_thread *t, const uint64_t *p, bool store)
{
#ifdef S2_SCHED
	if (eng.cur < 0)
		return;         /* the engine's set-up and end checks, outside any thread */
#endif
	if (t->hw || t->held == S2_HELD_WRITE || t->held == S2_HELD_OWNER || s2_rcu_read_lock_held())
		return;
	s2_report(S2V_RCU,
		  "  a walker that holds mmu_lock for read, or not at all, is protected from\n"
		  "  a concurrent free of the tables it walks only by an RCU read-side\n"
		  "  section (unlinked tables are freed after a grace period); without one\n"
		  "  the tables it is in may be freed under it\n",
		  "rcu_unprotected: %s %s a table entry outside an RCU read-side section, holding mmu_lock %s (in %s)",
		  t->role, store ? "wrote" : "read", t->held == S2_HELD_READ ? "for read" : "not at all",
		  t->op ? t->op : "no op");
	(void)p;
}

enum store_kind { ST_PLAIN, ST_CAS, ST_XCHG };

/* pend: for a plain store, what the thread had seen of the entry when it
 * stored (NULL: what it has seen now, the store being visible at once) */
static void judge_seen(struct s2_thread *t, uint64_t *p, uint64_t x, uint64_t v, enum store_kind kind,
		       const bool *pend_has, const uint64_t *pend_seen)
{
	size_t e = entry_of(p);
	int owner = atomic_load_explicit(&locked_by[e], memory_order_relaxed) - 1;
	uint64_t seen;
	char detail[768];

	if (s2_tree.is_locked(x) && owner >= 0 && owner != (int)t->id && v != x) {
		snprintf(detail, sizeof(detail),
			 "  entry %zu of table page %d held %#llx, LOCKED by thread %d (break-before-make\n"
			 "  in progress); %s stored %#llx over it with a %s\n",
			 e % (s2_arena.page_size / 8), s2_page_of(p), (unsigned long long)x, owner, t->role,
			 (unsigned long long)v, kind == ST_CAS ? "compare-and-exchange" : "plain store");
		s2_report(S2V_LOCKED_OVERWRITE, detail,
			  "locked_overwrite: %s wrote over another walker's LOCKED entry (in %s)",
			  t->role, t->op ? t->op : "no op");
	} else if (kind == ST_PLAIN && (pend_has ? (seen = *pend_seen, *pend_has) : seen_get(t, p, &seen)) &&
		   seen != x) {
		bool exclusive = t->held == S2_HELD_WRITE || t->held == S2_HELD_OWNER;

		if ((x ^ seen) == S2_DESC_AF && exclusive) {
			/* an access flag set by the hardware (or cleared by a
			 * lockless ager) since the exclusive walker read the entry,
			 * undone by its store: accepted, it costs aging precision
			 * only (the next access sets it again) */
			atomic_fetch_add(&s2_count.af_lost, 1);
		} else {
			bool res = !s2_desc_valid(x) && !s2_tree.is_locked(x) && s2_desc_valid(v) &&
				   s2_desc_valid(seen);

			snprintf(detail, sizeof(detail),
				 "  entry %zu of table page %d: %s read %#llx, then stored %#llx with a plain\n"
				 "  store, but the entry held %#llx by then (%s): that change is lost\n",
				 e % (s2_arena.page_size / 8), s2_page_of(p), t->role, (unsigned long long)seen,
				 (unsigned long long)v, (unsigned long long)x,
				 !s2_desc_valid(x) ? (s2_tree.is_locked(x) ? "LOCKED" : "invalid: cleared by another walker")
						   : "another walker's or the hardware's update");
			s2_report(res ? S2V_RESURRECTION : S2V_LOST_UPDATE, detail,
				  "%s: %s stored over a change it had not seen (in %s, holding mmu_lock %s)",
				  res ? "resurrection" : "lost_update", t->role, t->op ? t->op : "no op",
				  t->held == S2_HELD_WRITE ? "for write" : t->held == S2_HELD_READ ? "for read" :
				  t->held == S2_HELD_OWNER ? "(owner)" : "not at all");
		}
	}
	atomic_store_explicit(&locked_by[e], s2_tree.is_locked(v) ? (int16_t)(t->id + 1) : 0,
			      memory_order_relaxed);
	s2_link_store(t, p, x, v);
	s2_bbm_store(t, p, x, v);
}

static void judge(struct s2_thread *t, uint64_t *p, uint64_t x, uint64_t v, enum store_kind kind)
{
	judge_seen(t, p, x, v, kind, NULL, NULL);
}

#ifdef S2_SCHED
/* On the engine a store is judged as it becomes visible (under the arm
 * model that may be after later steps of its thread), by the thread that
 * made it; nothing runs between the two halves. */
static uint64_t observe_begin(struct acc_thread *at, uint64_t *p, enum acc_kind k)
{
	(void)at;
	(void)k;
	return s2_in_arena(p) ? acc_peek(p) : 0;
}

static void observe_end(struct acc_thread *at, uint64_t token, uint64_t *p, uint64_t v, bool changed)
{
	struct s2_thread *t = at->observer_data;
	unsigned i;

	if (!t || !s2_in_arena(p) || t->hw)
		return;
	/* the oldest of its plain stores to p still waiting: this one (a
	 * location's stores become visible in order) */
	for (i = 0; i < t->npend && t->pend[i].p != p; i++)
		;
	if (i < t->npend) {
		bool has = t->pend[i].has;
		uint64_t seen = t->pend[i].seen;

		memmove(&t->pend[i], &t->pend[i + 1], (t->npend - i - 1) * sizeof(t->pend[0]));
		t->npend--;
		if (changed)
			judge_seen(t, p, token, v, ST_PLAIN, &has, &seen);
		return;
	}
	if (changed)
		judge(t, p, token, v, t->storing_cas ? ST_CAS : ST_PLAIN);
}

/* A plain store of t to p is made: what t has seen of p now is what it is
 * judged against when it becomes visible (observe_end) */
static void pend_push(struct s2_thread *t, const uint64_t *p)
{
	if (t->npend == S2_PEND) {      /* the oldest judged against the thread's latest view */
		memmove(&t->pend[0], &t->pend[1], (S2_PEND - 1) * sizeof(t->pend[0]));
		t->npend--;
	}
	t->pend[t->npend].p = p;
	t->pend[t->npend].has = seen_get(t, p, &t->pend[t->npend].seen);
	t->npend++;
}
#else
/* On real threads: one lock per few entries around a store and its
 * judgement, so that judgements of one entry happen in store order. */
#define BUCKETS 1024
static atomic_flag buckets[BUCKETS];

static inline atomic_flag *bucket(const uint64_t *p) { return &buckets[((uintptr_t)p >> 3) % BUCKETS]; }
static inline void bucket_lock(const uint64_t *p)
{
	while (atomic_flag_test_and_set_explicit(bucket(p), memory_order_acquire))
		;
}
static inline void bucket_unlock(const uint64_t *p) { atomic_flag_clear_explicit(bucket(p), memory_order_release); }
#endif

void s2_entry_lock(const uint64_t *p)
{
#ifndef S2_SCHED
	bucket_lock(p);
#endif
	(void)p;
}

void s2_entry_unlock(const uint64_t *p)
{
#ifndef S2_SCHED
	bucket_unlock(p);
#endif
	(void)p;
}

/* ---- the tree's accesses ------------------------------------------------------ */

/* Stress only: now and then after a load, a walker that others may race
 * with (one not holding the lock for write) pauses, or gives its CPU up,
 * so that what races with it has time to happen while it is inside a
 * table (on a machine with few cores the threads would otherwise rarely
 * overlap there; the engine explores interleavings instead). */
static inline void maybe_pause(struct s2_thread *t)
{
#ifndef S2_SCHED
	uint64_t r;

	if (!s2_cfg.delay_shift || t->held == S2_HELD_WRITE || t->held == S2_HELD_OWNER)
		return;
	r = rng_next(&t->rng);
	if (r & ((1ULL << s2_cfg.delay_shift) - 1))
		return;
	if (r >> 63)
		sched_yield();
	else
		for (unsigned i = (unsigned)((r >> 32) % (s2_cfg.delay_spins + 1)); i; i--)
			__asm__ __volatile__("" ::: "memory");
#else
	(void)t;
#endif
}

/* On the engine, an RCU callback freeing the unlinked table it owns runs
 * as one step (stage2/runtime/arena.c): its accesses are no scheduling
 * points, as a walk of the hardware's. What is worth interleaving is
 * before it (who may still reach the table) and after it (who reaches it
 * freed), not the order of its own loads. */
static inline bool quiet(const struct s2_thread *t)
{
#ifdef S2_SCHED
	return t->quiet;
#else
	(void)t;
	return false;
#endif
}

uint64_t s2_read_once(const uint64_t *p)
{
	struct s2_thread *t;
	uint64_t v;

	if (!s2_in_arena(p))
		return acc_load(p);
	t = s2_self();
	v = quiet(t) ? acc_peek(p) : acc_load(p);
	maybe_pause(t);
	protection(t, p, false);
	s2_page_check(p, false, "READ_ONCE");
	seen_put(t, p, v);
	return v;
}

uint64_t s2_load_acquire(const uint64_t *p)
{
	struct s2_thread *t;
	uint64_t v;

	if (!s2_in_arena(p))
		return acc_load_acquire(p);
	t = s2_self();
	v = quiet(t) ? acc_peek(p) : acc_load_acquire(p);
	protection(t, p, false);
	s2_page_check(p, false, "smp_load_acquire");
	seen_put(t, p, v);
	return v;
}

/* Before a store to an entry: protected, and the page live (a store to a
 * freed page is reported and not made). */
static bool store_ok(struct s2_thread *t, uint64_t *p, const char *what)
{
	protection(t, p, true);
	return s2_page_check(p, true, what);
}

static void store(uint64_t *p, uint64_t v, bool release, const char *what)
{
	struct s2_thread *t;

	if (!s2_in_arena(p)) {
		if (release)
			acc_store_release(p, v);
		else
			acc_store(p, v);
		return;
	}
	t = s2_self();
	if (!store_ok(t, p, what))
		return;
#ifdef S2_SCHED
	t->storing_cas = false;
	if (quiet(t)) {
		uint64_t x = acc_peek(p);

		acc_seed(p, v);
		judge(t, p, x, v, ST_PLAIN);
	} else if (release) {
		acc_store_release(p, v);
	} else {
		pend_push(t, p);
		acc_store(p, v);
	}
#else
	{
		uint64_t x;

		if (release)
			acc_wmb(), acc_mb();
		bucket_lock(p);
		x = acc_xchg(p, v);
		judge(t, p, x, v, ST_PLAIN);
		bucket_unlock(p);
	}
#endif
	seen_put(t, p, v);
}

void s2_write_once(uint64_t *p, uint64_t v) { store(p, v, false, "WRITE_ONCE"); }
void s2_store_release(uint64_t *p, uint64_t v) { store(p, v, true, "smp_store_release"); }

static uint64_t rmw(uint64_t *p, uint64_t old, uint64_t new, bool cas, const char *what)
{
	struct s2_thread *t;
	uint64_t r;

	if (!s2_in_arena(p))
		return cas ? acc_cmpxchg(p, old, new) : acc_xchg(p, new);
	t = s2_self();
	if (!store_ok(t, p, what))
		return cas ? ~old : 0;
#ifdef S2_SCHED
	if (quiet(t)) {
		r = acc_peek(p);
		if (!cas || r == old) {
			acc_seed(p, new);
			judge(t, p, r, new, cas ? ST_CAS : ST_XCHG);
		}
	} else {
		t->storing_cas = true;
		r = cas ? acc_cmpxchg(p, old, new) : acc_xchg(p, new);
		t->storing_cas = false;
	}
#else
	bucket_lock(p);
	r = cas ? acc_cmpxchg(p, old, new) : acc_xchg(p, new);
	if (!cas || r == old)
		judge(t, p, r, new, cas ? ST_CAS : ST_XCHG);
	bucket_unlock(p);
#endif
	seen_put(t, p, (!cas || r == old) ? new : r);
	return r;
}

uint64_t s2_cmpxchg_relaxed(uint64_t *p, uint64_t old, uint64_t new) { return rmw(p, old, new, true, "cmpxchg"); }

uint64_t s2_cmpxchg(uint64_t *p, uint64_t old, uint64_t new)
{
	uint64_t r;

	acc_mb();
	r = rmw(p, old, new, true, "cmpxchg");
	acc_mb();
	return r;
}

uint64_t s2_xchg(uint64_t *p, uint64_t v)
{
	uint64_t r;

	acc_mb();
	r = rmw(p, 0, v, false, "xchg");
	acc_mb();
	return r;
}

void s2_mb(void) { acc_mb(); }
void s2_rmb(void) { acc_rmb(); }
void s2_wmb(void) { acc_wmb(); }
void s2_dsb(void) { acc_dsb(); }
void s2_isb(void) { acc_isb(); }

/* ---- the hardware walker's accesses ------------------------------------------------ */

/* On the engine a walk is one step: its reads are no scheduling points
 * and see the latest value (the hardware's walks are coherent). */
uint64_t s2_hw_load(const uint64_t *p)
{
#ifdef S2_SCHED
	uint64_t v = acc_peek(p);
#else
	uint64_t v = acc_load(p);
#endif

	s2_page_check(p, false, "a hardware table walk");
	return v;
}

bool s2_hw_set_af(uint64_t *p, uint64_t old)
{
	bool ok;

	if (!s2_page_check(p, true, "the hardware's access-flag update"))
		return false;
#ifdef S2_SCHED
	ok = acc_peek(p) == old;
	if (ok)
		acc_seed(p, old | S2_DESC_AF);
#else
	bucket_lock(p);
	ok = acc_cmpxchg(p, old, old | S2_DESC_AF) == old;
	bucket_unlock(p);
#endif
	return ok;
}

/* ---- RCU and the tree's own checks ------------------------------------------------- */

void s2_rcu_read_lock(void) { rcu_read_lock(); }
void s2_rcu_read_unlock(void) { rcu_read_unlock(); }

bool s2_rcu_read_lock_held(void)
{
#ifdef S2_SCHED
	/* outside any thread (the set-up) nothing runs concurrently */
	return eng.cur < 0 || eng.th[eng.cur].rcu_nesting > 0;
#else
	return rcu_read_ongoing();
#endif
}

void *s2_rcu_dereference_check(void *p, bool c, const char *file, int line)
{
	struct s2_thread *t;

	if (c || s2_rcu_read_lock_held())
		return p;
	t = s2_self();
	s2_report(S2V_RCU,
		  "  the tree's own rcu_dereference_check() (kvm_dereference_pteref for a\n"
		  "  shared walk) ran outside an RCU read-side section: lockdep would say so\n",
		  "rcu_unprotected: rcu_dereference_check() outside a read-side section at %s:%d (%s, in %s)",
		  file, line, t->role, t->op ? t->op : "no op");
	return p;
}

/* A file of the tree as the tree names it (arch/arm64/...): the build's
 * path is a copy's (a test tree's folder, a scratch package) */
static const char *tree_path(const char *file)
{
	const char *a = strstr(file, "arch/arm64/");

	return a ? a : file;
}

void s2_kernel_warn(const char *file, int line, const char *cond)
{
	struct s2_thread *t = s2_self();
	char detail[512], where[96];

	snprintf(detail, sizeof(detail), "  WARN_ON(%s) at %s:%d\n  (%s, in %s)\n", cond, file, line, t->role,
		 t->op ? t->op : "no op");
	snprintf(where, sizeof(where), "%s:%d", tree_path(file), line);
	s2_report_at(S2V_WARN, where, detail, "kernel_warn: the tree's WARN_ON(%s) fired at %s:%d (%s, in %s)", cond,
		  file, line, t->role, t->op ? t->op : "no op");
}

/* a BUG_ON never returns: known or not, it ends the run */
static void bug_report(const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(S2V_WARN, where, false, "", fmt, ap);
	va_end(ap);
}

void s2_kernel_bug(const char *file, int line, const char *cond)
{
	struct s2_thread *t = s2_self();
	char where[96];

	snprintf(where, sizeof(where), "%s:%d", tree_path(file), line);
	bug_report(where, "kernel_warn: the tree's BUG_ON(%s) fired at %s:%d (%s, in %s)", cond, file, line,
		   t->role, t->op ? t->op : "no op");
#ifdef S2_SCHED
	eng_stop();
#endif
	for (;;)
		pause_forever();
}

uint64_t s2_desc_pa(uint64_t d)
{
	uint64_t pa = d & (((1ULL << 48) - 1) & ~((1ULL << s2_tree.page_shift) - 1));

	if (s2_tree.page_shift == 16)
		pa |= ((d >> 12) & 0xf) << 48;
	return pa;
}
