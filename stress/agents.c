/* stress/agents.c - writer and hardware threads (see stress/agents.h). */
#define _GNU_SOURCE
#include "stress/agents.h"

#include <sched.h>
#include <unistd.h>

#include "core/access.h"
#include "core/hw.h"
#include "core/oracle/history.h"
#include "core/oracle/oracle.h"
#include "core/rcu_tsan.h"

void agents_park_point(struct stress_world *w)
{
	if (!atomic_load_explicit(&w->pause, memory_order_acquire))
		return;
	atomic_fetch_add(&w->parked, 1);
	while (atomic_load(&w->pause) && !atomic_load(&w->stop))
		usleep(100);
	atomic_fetch_sub(&w->parked, 1);
}

bool agents_check_owed(struct stress_world *w, unsigned lt, int touched)
{
	struct violation vio;

	for (unsigned b = 0; b < w->m.bpt; b++) {
		if (touched >= 0 && (unsigned)touched != b)
			continue;
		if (!oracle_check_owed(&w->m, lt, b, &vio)) {
			w->report(w, &vio);
			return false;
		}
	}
	return true;
}

/* ---- software writers -------------------------------------------------- */
static __thread struct agent *self_writer;

/* chaos: stall a writer at a random load, e.g. between the load and the
 * store of a read-modify-write, so hardware can update the entry there. */
static void writer_on_limit(struct acc_thread *t)
{
	struct agent *a = self_writer;

	sched_yield();
	acc_arm(t, 1 + rng_below(&a->rng, 4 * a->w->chaos));
}

static void *writer_main(void *arg)
{
	struct agent *a = arg;
	struct stress_world *w = a->w;
	struct harness_mm *M = &w->m;

	self_writer = a;
	rcu_register_thread();
	if (w->chaos) {
		acc_self.on_limit = writer_on_limit;
		acc_arm(&acc_self, rng_below(&a->rng, 4 * w->chaos));
	}
	a->ctx.m = M;
	/* per-store odds scaled so an op stalls about as often at every
	 * granule (a 16K fold makes 8x the stores of a 4K one) */
	a->ctx.chaos = w->chaos * (M->cont >= 16 ? M->cont / 16 : 1);
	a->ctx.rng = a->rng ^ 0x5bd1e995;
	a->ctx.hot = &w->hot_ptep;
	history_attach(&a->ctx);
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		unsigned lt = rng_below(&a->rng, M->ntables), b = rng_below(&a->rng, M->bpt);
		unsigned stalled = atomic_load_explicit(&w->stalled_block, memory_order_relaxed);
		enum op op = ops_pick(w->ops, &a->rng);
		int touched;

		if (stalled && rng_below(&a->rng, 2)) {
			lt = (stalled - 1) / M->bpt;
			b = (stalled - 1) % M->bpt;
		}
		agents_park_point(w);
		pthread_mutex_lock(&M->ptl[lt]);
		atomic_store_explicit(&w->hot_block, lt * M->bpt + b + 1, memory_order_relaxed);
		if (op_run_random(M, &a->ctx, w->plans, lt, b, op, &a->rng, &touched))
			atomic_fetch_add_explicit(&M->hdr->writer_ops, 1, memory_order_relaxed);
		a->ctx.consumes = 0;
		agents_check_owed(w, lt, touched);
		pthread_mutex_unlock(&M->ptl[lt]);
	}
	history_detach();
	acc_self.on_limit = acc_limit_ignore;
	rcu_unregister_thread();
	return NULL;
}

/* ---- hardware agents --------------------------------------------------- */
static void *hw_main(void *arg)
{
	struct agent *a = arg;
	struct stress_world *w = a->w;
	struct harness_mm *M = &w->m;

	rcu_register_thread();
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		unsigned burst = 1 + rng_below(&a->rng, 32);
		unsigned lt = rng_below(&a->rng, M->ntables), b = rng_below(&a->rng, M->bpt);
		unsigned hot = atomic_load_explicit(&w->hot_block, memory_order_relaxed);
		bool stream = false;

		if (hot && rng_below(&a->rng, 2)) {
			/* stream writes over the block a writer is changing */
			lt = (hot - 1) / M->bpt;
			b = (hot - 1) % M->bpt;
			burst = M->cont;
			stream = true;
		}

		/* A burst of accesses to one block (a program touching one
		 * folio), then idle: most reads of most blocks see no
		 * hardware update, so their bits can be judged exactly. */
		agents_park_point(w);
		uint64_t *hp = atomic_exchange_explicit(&w->hot_ptep, NULL, memory_order_relaxed);
		if (hp) {
			/* write to the entry a writer is stalled in front of; only
			 * if its page is still the live table (else it may be freed) */
			unsigned idx;
			struct slot_hdr *s = hmm_slot_of(M, hp, &idx);
			unsigned hlt = atomic_load(&s->ltable);

			rcu_read_lock();
			if (rcu_dereference(M->tables[hlt]) == s) {
				TSAN_RCU_CONSUME(s);
				hw_touch(hmm_hist(M, hlt, idx / M->cont), hp, idx % M->cont, true);
			}
			TSAN_RCU_READ_END();
			rcu_read_unlock();
		}
		hw_burst(M, lt, b, burst, stream, &a->rng);
		atomic_fetch_add_explicit(&M->hdr->hw_ops, burst, memory_order_relaxed);
		/* Idle between bursts, so that many reads see no hardware update. */
		if (rng_below(&a->rng, 2) == 0)
			usleep(rng_below(&a->rng, 500));
		else
			sched_yield();
	}
	rcu_unregister_thread();
	return NULL;
}

static int start(struct stress_world *w, struct agent *a, unsigned n, uint64_t rng0,
		 void *(*body)(void *))
{
	for (unsigned i = 0; i < n; i++) {
		a[i].w = w;
		a[i].rng = rng0 + i;
		a[i].ctx.id = i;        /* reports name a writer by its index */
		if (pthread_create(&a[i].th, NULL, body, &a[i])) {
			atomic_store(&w->stop, 1);
			agents_join(a, i);
			return -1;
		}
	}
	return 0;
}

int agents_start_writers(struct stress_world *w, struct agent *a, unsigned n, uint64_t seed)
{
	return start(w, a, n, seed * 2000003, writer_main);
}

int agents_start_hw(struct stress_world *w, struct agent *a, unsigned n, uint64_t seed)
{
	return start(w, a, n, seed * 3000017, hw_main);
}

void agents_join(struct agent *a, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		pthread_join(a[i].th, NULL);
}
