/*
 * engine/access_sched.c - the arm memory model's side of the scheduler
 * backend (engine/access_sched.h): each access of a running thread goes to
 * engine/memory.c, and a store becoming visible is observed there as the
 * access layer observes any other mutation (the writers' history) and
 * traced.
 */
#include "core/access.h"
#include "engine/memory.h"
#include "engine/sched.h"

_Bool eng_arm;

/* Loads a thread makes alone before every write has reached it. */
#define ARM_PROPAGATION_LOADS 16

uint64_t eng_arm_load(const uint64_t *p, int order)
{
	/* Writes reach every thread in bounded time: one that has run alone
	 * for a while (nothing else could take a step, so nothing new was
	 * written) has seen them all. Without this a reader could read an old
	 * write for ever, which no machine does, and property 4 (progress)
	 * would report it; with it, a correct reader still needs far fewer
	 * loads than that bound. */
	if (eng_alone_loads() >= ARM_PROPAGATION_LOADS)
		mem_catch_up((unsigned)eng.cur);
	return mem_load((unsigned)eng.cur, p,
			order == 1 ? MO_ACQUIRE : order == 2 ? MO_ACQUIRE_PC : MO_PLAIN);
}

_Bool eng_arm_store(uint64_t *p, uint64_t v, int order)
{
	return mem_store((unsigned)eng.cur, p, v, order == 3 ? MO_RELEASE : MO_PLAIN, true);
}

uint64_t eng_arm_rmw(uint64_t *p, enum acc_kind kind, uint64_t a, uint64_t b)
{
	return mem_rmw((unsigned)eng.cur, p, kind, a, b);
}

void eng_arm_barrier(enum acc_barrier b)
{
	static const enum mem_fence f[] = {
		[ACC_BARRIER_FULL] = MF_FULL, [ACC_BARRIER_LOADS] = MF_LOADS,
		[ACC_BARRIER_STORES] = MF_STORES, [ACC_BARRIER_ISB] = MF_ISB,
	};

	mem_fence((unsigned)eng.cur, f[b]);
}

/* An op's end: other threads may run before its stores are made visible
 * (a step, under arm only: sc runs keep their recorded step counts), as
 * other CPUs run between a writer's last store and its unlock. */
void eng_arm_writes_visible(void)
{
	eng_point(EK_LOCK);
	mem_drain((unsigned)eng.cur);
}
void eng_arm_drain_loc(uint64_t *p) { mem_drain_loc((unsigned)eng.cur, p); }
void eng_arm_observe_all(void) { mem_catch_up((unsigned)eng.cur); }
/* The harness's own write (clearing or poisoning a table page): a store of
 * the thread doing it, never observed by the history; outside threads,
 * visible at once. */
void eng_arm_seed(uint64_t *p, uint64_t v)
{
	if (eng.cur >= 0)
		mem_store((unsigned)eng.cur, p, v, MO_PLAIN, false);
	else
		mem_external_store(p, v);
}

/* A buffered store of thread tid becomes visible, from tid itself (a
 * barrier, an unlock) or from the scheduler between steps: tid's observer
 * (the writers' history, core/oracle/history.h) records it now, with the
 * value the entry then holds. */
static struct acc_thread *acc_of(unsigned tid)
{
	return eng.cur == (int)tid ? &acc_self : &eng.th[tid].acc;
}

static uint64_t commit_before(unsigned tid, uint64_t *p, bool observed)
{
	struct acc_thread *t = acc_of(tid);

	return observed && t->observer ? t->observer->begin(t, p, ACC_STORE) : 0;
}

static void commit_after(unsigned tid, uint64_t token, uint64_t *p, uint64_t before,
			 uint64_t after, bool observed)
{
	struct acc_thread *t = acc_of(tid);

	if (!observed)
		return;         /* the harness's own (its values may be pointers: not hashed) */
	if (t->observer)
		t->observer->end(t, token, p, after, true);
	eng_access_note(ACC_STORE, p, before, after);
}

__attribute__((constructor)) static void install_commit_hooks(void)
{
	mem_set_commit_hooks(commit_before, commit_after);
}
