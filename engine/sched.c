/* engine/sched.c - the deterministic scheduler (see engine/sched.h). */
#include "engine/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "engine/rcu_sched.h"

extern _Bool eng_arm;     /* engine/access_sched.c */

struct eng eng = { .cur = -1 };   /* -1: set-up code, no thread running */
_Atomic uint64_t eng_heartbeat;
_Atomic int eng_running = -1;
static uint64_t beats;

const char *const eng_kind_names[EK_COUNT] = {
	"load", "store", "cmpxchg", "xchg", "or", "andnot",
	"rcu_deref", "rcu_assign", "lock", "gp",
};

static struct acc_thread main_acc;

/* The runnable threads as a mask, computed again only after something it
 * depends on changed (a thread's state, a lock wanted or taken, a grace
 * period waited for, a read-side section entered or left): most steps
 * change none of them, and the mask is asked for several times a step
 * (the pick, a load's livelock and propagation checks). */
static uint32_t runnable_cached;
static bool runnable_valid;
static inline void runnable_changed(void) { runnable_valid = false; }

/* Room for one more byte in a trace buffer (the schedule or the choices
 * taken), doubling it when full; false if it cannot grow. */
static bool trace_room(uint8_t **buf, unsigned n, unsigned *cap)
{
	unsigned c;
	uint8_t *b;

	if (n < *cap)
		return true;
	c = *cap ? 2 * *cap : 1024;
	if (!(b = realloc(*buf, c)))
		return false;
	*buf = b;
	*cap = c;
	return true;
}

static void thread_entry(void *arg)
{
	unsigned tid = (unsigned)(uintptr_t)arg;
	struct eng_thread *t = &eng.th[tid];

	acc_thread_copy(&acc_self, &t->acc);
	eng.body(tid);
	acc_thread_copy(&t->acc, &acc_self);
	t->state = PS_DONE;
	runnable_changed();
	coro_resume(&t->co, &eng.main);
	__builtin_trap();
}

int eng_init(unsigned nthreads, void (*body)(unsigned tid), const struct eng_policy *pol,
	     const void *base, size_t size)
{
	if (nthreads > ENG_MAX_THREADS)
		return -1;
	/* both trace buffers exist from the first run on: a run's result
	 * points at them, and callers copy from them even when empty */
	if (!trace_room(&eng.taken, 0, &eng.taken_cap) ||
	    !trace_room(&eng.taken_choices, 0, &eng.taken_choices_cap))
		return -1;
	eng.nthreads = nthreads;
	eng.body = body;
	eng.base = base;
	eng.size = size;
	eng.cur = -1;
	eng.steps = 0;
	if (!eng.step_limit)
		eng.step_limit = 200000;
	eng.hash = 0xcbf29ce484222325ULL;
	eng.stop = eng.limit_hit = eng.deadlock = false;
	eng.pol = *pol;
	eng.ntaken = 0;
	eng.ntaken_choices = 0;
	eng.ci = 0;
	eng.choice_rng = pol->choice_seed;
	if (pol->memory == MEM_ARM)
		mem_reset();
	eng.nevents = 0;
	eng.cb_head = NULL;
	eng.cb_tail = &eng.cb_head;
	eng.cb_seq = 0;
	for (unsigned i = 0; i < ENG_MAX_LOCKS; i++) {
		eng.lock_owner[i] = -1;
		eng.lock_readers[i] = 0;
	}
	if (++eng.run_no == 0) {         /* wrapped: clear once per 2^32 runs */
		memset(eng.rf_run, 0, sizeof(eng.rf_run));
		eng.run_no = 1;
	}
	for (unsigned i = 0; i < nthreads; i++) {
		struct eng_thread *t = &eng.th[i];

		if (!t->co.stack && coro_alloc(&t->co, ENG_STACK))
			return -1;
		coro_prepare(&t->co, thread_entry, (void *)(uintptr_t)i);
		memset(&t->acc, 0, sizeof(t->acc));
		t->acc.budget = t->acc.armed = INT64_MAX / 2;
		t->acc.on_limit = acc_limit_ignore;
		t->state = PS_NEW;
		t->pending = EK_LOAD;
		t->lock_want = -1;
		t->lock_want_read = false;
		t->gp_wait = false;
		t->rcu_nesting = 0;
		t->rcu_epoch = 0;
		t->instr = 0;
		t->solo_loads = 0;
	}
	eng.streak = 0;
	runnable_changed();
	switch (pol->kind) {
	case ES_RANDOM:
		eng.policy = random_policy_init(&eng.policy_state.random, pol->seed);
		break;
	case ES_PCT:
		eng.policy = pct_policy_init(&eng.policy_state.pct, pol->seed, nthreads, pol->depth,
					     pol->est_steps, 0);
		break;
	default:
		eng.policy = replay_policy_init(&eng.policy_state.replay, pol->sched, pol->nsched,
						pol->tail_seed);
		break;
	}
	return 0;
}

/* ---- switching ------------------------------------------------------- */
static void resume(unsigned tid)
{
	struct eng_thread *t = &eng.th[tid];

	acc_thread_copy(&main_acc, &acc_self);
	eng.cur = (int)tid;
	eng_arm = eng.pol.memory == MEM_ARM;
	atomic_store_explicit(&eng_heartbeat, ++beats, memory_order_relaxed);
	atomic_store_explicit(&eng_running, (int)tid, memory_order_relaxed);
	coro_resume(&eng.main, &t->co);
	atomic_store_explicit(&eng_running, -1, memory_order_relaxed);
	eng_arm = 0;
	eng.cur = -1;
	acc_thread_copy(&acc_self, &main_acc);
}

/* From a thread: back to the scheduler until picked again. */
static void yield(void)
{
	struct eng_thread *t = &eng.th[eng.cur];

	acc_thread_copy(&t->acc, &acc_self);
	coro_resume(&t->co, &eng.main);
	acc_thread_copy(&acc_self, &t->acc);
}

void eng_stop(void)
{
	eng.stop = true;
	if (eng.cur >= 0) {
		/* never resumed: the run is over */
		struct eng_thread *t = &eng.th[eng.cur];

		t->state = PS_DONE;
		runnable_changed();
		yield();
		__builtin_trap();
	}
}

/* ---- runnability ------------------------------------------------------ */
static bool gp_done(const struct eng_thread *t)
{
	for (unsigned u = 0; u < eng.nthreads; u++)
		if ((t->gp_need >> u & 1) && eng.th[u].rcu_nesting &&
		    eng.th[u].rcu_epoch == t->gp_epoch[u])
			return false;
	return true;
}

static bool runnable(unsigned tid)
{
	const struct eng_thread *t = &eng.th[tid];

	if (t->state != PS_READY)
		return false;
	if (t->lock_want >= 0 && eng.lock_owner[t->lock_want] >= 0 &&
	    eng.lock_owner[t->lock_want] != (int)tid)
		return false;
	/* a writer waits for the readers (none but an rwlock's: eng_read_lock) */
	if (t->lock_want >= 0 && !t->lock_want_read && eng.lock_readers[t->lock_want])
		return false;
	if (t->gp_wait && !gp_done(t))
		return false;
	return true;
}

static uint32_t runnable_now(void)
{
	uint32_t m = 0;

	for (unsigned u = 0; u < eng.nthreads; u++)
		if (runnable(u))
			m |= 1u << u;
	return m;
}

static uint32_t runnable_compute(void)
{
	runnable_cached = runnable_now();
	runnable_valid = true;
	return runnable_cached;
}

static void runnable_check(void)
{
	uint32_t now = runnable_now();

	if (now != runnable_cached) {
		fprintf(stderr, "engine: the cached runnable mask is stale at step %llu: %#x, now %#x "
			"(a change to what runnable() reads without runnable_changed())\n",
			(unsigned long long)eng.steps, runnable_cached, now);
		abort();
	}
}

static inline uint32_t runnable_mask(void)
{
	if (!runnable_valid)
		return runnable_compute();
	if (__builtin_expect(eng.check_caches, 0))
		runnable_check();
	return runnable_cached;
}

static void record_taken(int tid)
{
	if (eng.ntaken && (eng.taken[eng.ntaken - 1] & 7) == tid &&
	    (eng.taken[eng.ntaken - 1] >> 3) < 31) {
		eng.taken[eng.ntaken - 1] += 8;
		return;
	}
	if (trace_room(&eng.taken, eng.ntaken, &eng.taken_cap))
		eng.taken[eng.ntaken++] = (uint8_t)tid;
}

/* The run's scheduling state between steps (eng_run sets it up). */
static int last_tid;              /* the thread of the last step, -1 before the first */
static bool last_published;       /* its step published a table pointer */
static bool pick_in_thread;       /* the running thread picks at its points (below) */
#define NO_HANDOFF (-2)
static int handoff = NO_HANDOFF;  /* picked by a thread for eng_run to resume;
				   * -1: the run is over */

/* Stores become visible between steps, as seen from outside any thread
 * (what commits note is hashed as the scheduler's, tid 7): from a thread
 * at its point, its state is saved first as a switch would (the commit
 * hooks read other threads' saved state, engine/access_sched.c). */
static void propagate_between_steps(void)
{
	int cur = eng.cur;

	if (eng.pol.memory != MEM_ARM || !mem_propagate_due())
		return;
	if (cur < 0) {
		mem_propagate(eng.nthreads);
		return;
	}
	acc_thread_copy(&eng.th[cur].acc, &acc_self);
	eng.cur = -1;
	eng_arm = 0;
	mem_propagate(eng.nthreads);
	eng_arm = 1;
	eng.cur = cur;
}

/* One step's decision: the thread that takes the next step, or -1 when
 * the run is over (nothing can run: a deadlock unless all are done; the
 * step limit), with the step's bookkeeping. */
static int pick_next(void)
{
	struct pick_view v = {
		.runnable = runnable_mask(), .nthreads = eng.nthreads, .last = last_tid,
		.steps = eng.steps, .streak = eng.streak, .published = last_published,
	};
	int tid = eng.policy->pick(eng.policy, &v);

	if (tid < 0) {
		for (unsigned u = 0; u < eng.nthreads; u++)
			if (eng.th[u].state != PS_DONE)
				eng.deadlock = true;
		return -1;
	}
	if (++eng.steps > eng.step_limit) {
		eng.limit_hit = true;
		return -1;
	}
	if (eng.on_pick)
		eng.on_pick(v.runnable);
	if (tid != last_tid)
		for (unsigned u = 0; u < eng.nthreads; u++)
			if (u != (unsigned)tid)
				eng.th[u].solo_loads = 0;
	record_taken(tid);
	eng.streak = tid == last_tid ? eng.streak + 1 : 1;
	last_tid = tid;
	last_published = eng.th[tid].pending == EK_RCU_ASSIGN;
	propagate_between_steps();
	return tid;
}

uint64_t eng_run(void)
{
	last_tid = -1;
	last_published = false;
	handoff = NO_HANDOFF;
	/* each thread runs up to its first scheduling point (no access yet) */
	for (unsigned i = 0; i < eng.nthreads && !eng.stop; i++) {
		eng.th[i].state = PS_READY;
		runnable_changed();
		resume(i);
	}
	pick_in_thread = true;
	for (;;) {
		int tid = handoff;

		if (tid == NO_HANDOFF) {
			/* the first step, or a thread ended or stopped the run */
			if (eng.stop)
				break;
			tid = pick_next();
		}
		handoff = NO_HANDOFF;
		if (tid < 0)
			break;
		resume(tid);
	}
	pick_in_thread = false;
	if (eng.pol.memory == MEM_ARM)
		mem_drain_all(eng.nthreads);          /* what is left becomes visible */
	return eng.steps;
}

/* ---- scheduling points and the trace ---------------------------------- */
void eng_point(enum eng_kind k)
{
	if (eng.cur < 0)
		return;                 /* set-up code outside any thread */
	eng.th[eng.cur].pending = k;
	if (pick_in_thread) {
		/* The scheduler's pick, made here: most steps go to the thread
		 * that took the last one (a replayed schedule's runs, PCT's
		 * highest priority), which then goes on without switching to
		 * eng_run and back. The same decisions in the same order as
		 * eng_run's own. */
		int tid = pick_next();

		if (tid == eng.cur) {
			atomic_store_explicit(&eng_heartbeat, ++beats, memory_order_relaxed);
			return;
		}
		handoff = tid;
	}
	yield();
}

unsigned eng_choose_alike(unsigned n, eng_alike_fn *alike, const void *ctx)
{
	unsigned c;

	if (n <= 1)
		return 0;
	if (eng.ci < eng.pol.nchoices) {
		c = eng.pol.choices[eng.ci++] % n;
	} else {
		uint64_t r = rng_next(&eng.choice_rng);

		c = (r & 1) ? 0 : 1 + (unsigned)((r >> 1) % (n - 1));
	}
	if (!trace_room(&eng.taken_choices, eng.ntaken_choices, &eng.taken_choices_cap))
		return c;
	eng.taken_choices[eng.ntaken_choices++] = (uint8_t)c;
	if (eng.on_choose)
		eng.on_choose(eng.ntaken_choices - 1, n, c,
			      alike ? alike(c, n, ctx) : c < 64 ? 1ull << c : 0);
	return c;
}

uint32_t eng_source(unsigned tid)
{
	return (uint32_t)(tid | eng.th[tid].instr << 4 | (eng.steps & 0xffff) << 12);
}

void eng_access_point(enum acc_kind kind) { eng_point((enum eng_kind)kind); }

static bool others_stand_still(unsigned tid)
{
	return !(runnable_mask() & ~(1u << tid));
}

uint64_t eng_alone_loads(void)
{
	return eng.cur >= 0 && others_stand_still((unsigned)eng.cur) ? eng.th[eng.cur].solo_loads : 0;
}

void eng_note(enum eng_kind k, const void *p, uint64_t before, uint64_t after)
{
	int64_t off = -1;
	unsigned tid = eng.cur < 0 ? 7 : (unsigned)eng.cur;
	struct eng_thread *t = eng.cur < 0 ? NULL : &eng.th[eng.cur];

	/* as integers: before a run eng.base is NULL, and NULL + 0 is undefined */
	if ((uintptr_t)p - (uintptr_t)eng.base < eng.size)
		off = (int64_t)((uintptr_t)p - (uintptr_t)eng.base);
	if (k == EK_RCU_DEREF || k == EK_RCU_ASSIGN) {
		/* the values are pointers into the segment: hash offsets */
		before = before ? (uint64_t)((const char *)(uintptr_t)before - eng.base) : 0;
		after = after ? (uint64_t)((const char *)(uintptr_t)after - eng.base) : 0;
	}
	if (!eng.hash_off)
		eng.hash = eng_mix(eng_mix(eng_mix(eng_mix(eng.hash, tid | (uint64_t)k << 8 |
							   (uint64_t)(t ? t->instr : 0) << 16),
						   (uint64_t)off), before), after);
	if (eng.events && eng.nevents < eng.events_cap) {
		struct eng_event *e = &eng.events[eng.nevents++];

		e->step = (uint32_t)eng.steps;
		e->tid = (uint8_t)tid;
		e->kind = (uint8_t)k;
		e->instr = (uint16_t)(t ? t->instr : 0);
		e->off = off;
		e->before = before;
		e->after = after;
	}
	if (!t || off < 0)
		return;
	if (k == EK_LOAD) {
		/* reads-from coverage: this load (thread, instruction, word)
		 * paired with the store it read (under arm: the write the model
		 * chose) */
		if (eng.feature) {
			uint32_t src = eng_arm ? mem_last_source(tid) : eng_rf_source(off);

			if (eng.feature_sites)
				src &= 0xfff;       /* thread | instruction << 4 */
			eng.feature((uint32_t)eng_mix(eng_mix(tid | t->instr << 4, (uint64_t)off), src));
		}
		if (eng.solo_bound) {
			if (others_stand_still(tid)) {
				if (++t->solo_loads > eng.solo_bound && eng.on_solo_limit)
					eng.on_solo_limit(tid);
			} else {
				t->solo_loads = 0;
			}
		}
	} else if (before != after) {
		unsigned w = eng_rf_word(off);

		eng.rf_tag[w] = (uint32_t)(tid | t->instr << 4 | (eng.steps & 0xffff) << 12);
		eng.rf_run[w] = eng.run_no;
	}
}

void eng_access_note(enum acc_kind kind, const void *p, uint64_t before, uint64_t after)
{
	eng_note((enum eng_kind)kind, p, before, after);
}

/* ---- locks ------------------------------------------------------------ */
void eng_lock(unsigned id)
{
	struct eng_thread *t;

	if (eng.cur < 0)
		return;
	t = &eng.th[eng.cur];
	t->lock_want = (int)id;
	runnable_changed();
	eng_point(EK_LOCK);
	/* picked only when the lock is free */
	eng.lock_owner[id] = eng.cur;
	t->lock_want = -1;
	runnable_changed();
	eng_note(EK_LOCK, NULL, id, id);
	if (eng_arm)
		mem_lock_acquire((unsigned)eng.cur, id);
}

void eng_unlock(unsigned id)
{
	if (eng.cur < 0)
		return;
	if (eng_arm)
		mem_lock_release((unsigned)eng.cur, id);
	eng.lock_owner[id] = -1;
	runnable_changed();
}

void eng_read_lock(unsigned id)
{
	struct eng_thread *t;

	if (eng.cur < 0)
		return;
	t = &eng.th[eng.cur];
	t->lock_want = (int)id;
	t->lock_want_read = true;
	runnable_changed();
	eng_point(EK_LOCK);
	/* picked only when no writer holds it */
	eng.lock_readers[id]++;
	t->lock_want = -1;
	t->lock_want_read = false;
	runnable_changed();
	eng_note(EK_LOCK, NULL, id, id);
	if (eng_arm)
		mem_lock_acquire((unsigned)eng.cur, id);
}

void eng_read_unlock(unsigned id)
{
	if (eng.cur < 0)
		return;
	if (eng_arm)
		mem_lock_release((unsigned)eng.cur, id);
	eng.lock_readers[id]--;
	runnable_changed();
}

/* ---- RCU (engine/rcu_sched.h) ----------------------------------------- */
void eng_rcu_read_lock(void)
{
	if (eng.cur < 0)
		return;
	/* runnability reads whether a thread is in a read-side section, and
	 * the count of its outermost exits (gp_done): nested entries and
	 * exits change neither */
	if (eng.th[eng.cur].rcu_nesting++ == 0) {
		runnable_changed();
		if (eng_arm)
			mem_read_section_begin((unsigned)eng.cur);
	}
}

void eng_rcu_read_unlock(void)
{
	if (eng.cur >= 0) {
		struct eng_thread *t = &eng.th[eng.cur];

		if (--t->rcu_nesting == 0) {
			t->rcu_epoch++;
			runnable_changed();
		}
	}
}

void *eng_rcu_deref(void *const *pp)
{
	void *v;

	eng_point(EK_RCU_DEREF);
	/* under arm: the later loads use the pointer's address (a dependency):
	 * ordered after this load like an acquire-PC load orders them */
	v = eng_arm ? (void *)(uintptr_t)mem_load((unsigned)eng.cur, (const uint64_t *)pp, MO_ACQUIRE_PC)
		    : *(void *volatile const *)pp;
	eng_note(EK_RCU_DEREF, pp, (uint64_t)(uintptr_t)v, (uint64_t)(uintptr_t)v);
	return v;
}

void eng_rcu_assign(void **pp, void *v)
{
	void *old;

	eng_point(EK_RCU_ASSIGN);
	old = *pp;
	if (eng_arm)
		mem_store((unsigned)eng.cur, (uint64_t *)pp, (uint64_t)(uintptr_t)v, MO_RELEASE, false);
	else
		*(void *volatile *)pp = v;
	eng_note(EK_RCU_ASSIGN, pp, (uint64_t)(uintptr_t)old, (uint64_t)(uintptr_t)v);
}

void eng_rcu_set_relaxed(void **pp, void *v)
{
	void *old;

	eng_point(EK_RCU_ASSIGN);
	old = *pp;
	if (eng_arm)
		mem_store((unsigned)eng.cur, (uint64_t *)pp, (uint64_t)(uintptr_t)v, MO_PLAIN, false);
	else
		*(void *volatile *)pp = v;
	eng_note(EK_RCU_ASSIGN, pp, (uint64_t)(uintptr_t)old, (uint64_t)(uintptr_t)v);
}

void eng_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	/* Under arm: what the caller wrote before call_rcu is visible before
	 * the grace period that runs the callback begins (RCU orders it, as
	 * for synchronize_rcu): a reader the grace period does not wait for
	 * sees it. */
	if (eng_arm)
		mem_fence((unsigned)eng.cur, MF_FULL);
	head->func = func;
	head->next = NULL;
	head->seq = ++eng.cb_seq;
	if (!eng.cb_tail)               /* queued before any eng_init (a set-up's) */
		eng.cb_tail = &eng.cb_head;
	*eng.cb_tail = head;
	eng.cb_tail = &head->next;
}

/* Run the callbacks queued up to seq, in order. */
static void run_callbacks(uint64_t upto)
{
	while (eng.cb_head && eng.cb_head->seq <= upto) {
		struct rcu_head *h = eng.cb_head;

		eng.cb_head = h->next;
		if (!eng.cb_head)
			eng.cb_tail = &eng.cb_head;
		h->func(h);
	}
}

void eng_synchronize_rcu(void)
{
	uint64_t upto = eng.cb_seq;

	if (eng.cur >= 0) {
		struct eng_thread *t = &eng.th[eng.cur];

		t->gp_need = 0;
		for (unsigned u = 0; u < eng.nthreads; u++) {
			if (u != (unsigned)eng.cur && eng.th[u].rcu_nesting) {
				t->gp_need |= 1ULL << u;
				t->gp_epoch[u] = eng.th[u].rcu_epoch;
			}
		}
		t->gp_wait = true;
		runnable_changed();
		if (eng_arm)
			mem_grace_period_begin((unsigned)eng.cur);
		eng_point(EK_GP);
		/* picked only once the grace period has elapsed */
		t->gp_wait = false;
		runnable_changed();
		eng_note(EK_GP, NULL, upto, upto);
		if (eng_arm)
			mem_grace_period((unsigned)eng.cur);
	}
	run_callbacks(upto);
}

void eng_rcu_barrier(void)
{
	run_callbacks(UINT64_MAX);
}
