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

uint64_t eng_arm_load(const uint64_t *p, int order)
{
	/* Writes reach every thread in bounded time: one that runs alone
	 * (nothing else can take a step, so nothing new is written) has seen
	 * them all. Without this a reader could read an old write for ever,
	 * which no machine does (property 4, progress). */
	if (eng_alone())
		mem_catch_up((unsigned)eng.cur);
	return mem_load((unsigned)eng.cur, p,
			order == 1 ? MO_ACQUIRE : order == 2 ? MO_ACQUIRE_PC : MO_PLAIN);
}

_Bool eng_arm_store(uint64_t *p, uint64_t v, int order)
{
	return mem_store((unsigned)eng.cur, p, v, order == 3 ? MO_RELEASE : MO_PLAIN);
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

void eng_arm_writes_visible(void) { mem_drain((unsigned)eng.cur); }
void eng_arm_observe_all(void) { mem_catch_up((unsigned)eng.cur); }
void eng_arm_seed(uint64_t *p, uint64_t v) { mem_external_store(p, v); }

/* A buffered store becomes visible: in the storing thread's own context
 * (at its step, or where it drains), so acc_self is its state and its
 * observer (the writers' history, core/oracle/history.h) records the store
 * now, with the value the entry then holds. */
static uint64_t commit_before(uint64_t *p)
{
	struct acc_thread *t = &acc_self;

	return t->observer ? t->observer->begin(t, p, ACC_STORE) : 0;
}

static void commit_after(uint64_t token, uint64_t *p, uint64_t before, uint64_t after,
			 uint32_t source)
{
	struct acc_thread *t = &acc_self;

	(void)source;
	if (t->observer)
		t->observer->end(t, token, p, after, true);
	eng_access_note(ACC_STORE, p, before, after);
}

__attribute__((constructor)) static void install_commit_hooks(void)
{
	mem_set_commit_hooks(commit_before, commit_after);
}
