/*
 * stress/faulter.c - the faulting agent's threads in a stress run: devices
 * without hardware AF/DBM (core/fault.h) beside the HAFDBS agents. Each
 * burst accesses a few entries of one block (half the time the block a
 * writer is changing), faulting and fixing up through core-mm's path under
 * the table's PTL; the fix-ups are writer ops judged like the writers'
 * (agents_check_op), and a fault that repeats on an unchanged entry is
 * fault_loop. They stand still in still phases like the other agents.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <unistd.h>

#include "core/access.h"
#include "core/fault.h"
#include "core/finding.h"
#include "core/oracle/history.h"
#include "core/rcu_tsan.h"
#include "stress/agents.h"

static void ptl_lock(struct fault_env *e, unsigned lt)
{
	pthread_mutex_lock(&((struct stress_world *)e->data)->m.ptl[lt].lock);
}

static void ptl_unlock(struct fault_env *e, unsigned lt)
{
	pthread_mutex_unlock(&((struct stress_world *)e->data)->m.ptl[lt].lock);
}

static bool stopping(struct fault_env *e)
{
	return atomic_load_explicit(&((struct stress_world *)e->data)->stop, memory_order_relaxed);
}

/* The fault path's lockless read may spin in a broken reader. It is a
 * reader then: in a still phase it stands still like the writers (so that
 * the readers' livelock can be seen), and once the run is over it leaves
 * (the readers' own checks judge that reader). Never with the PTL held. */
static __thread sigjmp_buf *faulter_out;
static __thread struct stress_world *faulter_world;
static __thread bool faulter_in_read;

static void faulter_reading(struct fault_env *e, unsigned lt, unsigned b, unsigned j, bool begin)
{
	(void)e; (void)lt; (void)b; (void)j;
	faulter_in_read = begin;
}

static void faulter_on_limit(struct acc_thread *t)
{
	if (faulter_in_read) {
		if (atomic_load_explicit(&faulter_world->stop, memory_order_relaxed) && faulter_out)
			siglongjmp(*faulter_out, 1);
		agents_park_point(faulter_world);
	}
	acc_arm(t, 64);
}

static void *faulter_main(void *arg)
{
	struct agent *a = arg;
	struct stress_world *w = a->w;
	struct harness_mm *M = &w->m;
	struct fault_env env = {
		.m = M, .w = &a->ctx, .plans = w->plans,
		.lock = ptl_lock, .unlock = ptl_unlock, .stopping = stopping,
		.reading = faulter_reading, .data = w,
	};
	sigjmp_buf out;

	rcu_register_thread();
	a->ctx.m = M;
	a->subj = &acc_self.subj;
	history_attach(&a->ctx);
	faulter_world = w;
	faulter_out = &out;
	acc_self.on_limit = faulter_on_limit;
	acc_arm(&acc_self, 64);
	if (sigsetjmp(out, 0)) {
		TSAN_RCU_READ_END();
		rcu_read_unlock();  /* left from inside the lockless read (no PTL held) */
		goto done;
	}
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		unsigned lt = rng_below(&a->rng, M->ntables), b = rng_below(&a->rng, M->bpt);
		/* half the time, the block a writer is changing */
		struct agent *fw = w->nwriters ? &w->writers[a->index % w->nwriters] : NULL;
		unsigned hlt, hb, n = 1 + rng_below(&a->rng, 8);

		agents_park_point(w);
		if (agent_hot_block(fw, M->bpt, &hlt, &hb) && rng_below(&a->rng, 2)) {
			lt = hlt;
			b = hb;
		}
		for (unsigned i = 0; i < n && !atomic_load_explicit(&w->stop, memory_order_relaxed); i++) {
			struct violation vio;

			finding_begin("fault");
			if (fault_access(&env, lt, b, rng_below(&a->rng, M->cont), rng_below(&a->rng, 3) == 0,
					 &vio)) {
				w->report(w, &vio);
				break;
			}
		}
		atomic_fetch_add_explicit(&w->fault_accesses, n, memory_order_relaxed);
		atomic_fetch_add_explicit(&w->fault_fixups, env.fixups, memory_order_relaxed);
		env.fixups = 0;
		if (rng_below(&a->rng, 2) == 0)
			usleep(rng_below(&a->rng, 500));
		else
			sched_yield();
	}
done:
	faulter_out = NULL;
	history_detach();
	acc_self.on_limit = acc_limit_ignore;
	rcu_unregister_thread();
	return NULL;
}

int agents_start_faulters(struct stress_world *w, struct agent *a, unsigned n, uint64_t seed)
{
	for (unsigned i = 0; i < n; i++) {
		a[i].w = w;
		a[i].rng = seed * 4000037 + i;
		a[i].index = i;
		if (pthread_create(&a[i].th, NULL, faulter_main, &a[i])) {
			atomic_store(&w->stop, 1);
			agents_join(a, i);
			return -1;
		}
	}
	return 0;
}
