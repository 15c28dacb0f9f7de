/* stress/agents.c - writer and hardware threads (see stress/agents.h). */
#define _GNU_SOURCE
#include "stress/agents.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "core/access.h"
#include "core/finding.h"
#include "core/hw.h"
#include "core/tlb.h"
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

bool agents_check_op(struct stress_world *w, struct writer_ctx *c, unsigned lt, int touched)
{
	struct violation vio;

	if (op_verdict(&w->m, c, lt, touched, &vio))
		return true;
	w->report(w, &vio);
	return false;
}

double agents_thread_cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

void agents_pin_self(struct stress_world *w, unsigned slot)
{
	cpu_set_t set;

	if (!w->cpus || !w->ncpus)
		return;
	CPU_ZERO(&set);
	CPU_SET(w->cpus[slot % w->ncpus], &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The block an entry pointer of the table area belongs to: its history. */
static struct block_hist *hist_of(struct harness_mm *M, const uint64_t *p)
{
	unsigned idx;
	struct slot_hdr *s = hmm_slot_of(M, p, &idx);
	unsigned lt = atomic_load_explicit(&s->ltable, memory_order_relaxed);

	return hmm_hist(M, lt, idx / M->cont);
}

/* ---- software writers -------------------------------------------------- */
/* Writer i's own tables are [own_first(i), own_first(i + 1)). */
static unsigned own_first(const struct stress_world *w, unsigned i)
{
	return i * w->m.ntables / w->nwriters;
}

struct agent *agents_owner(struct stress_world *w, unsigned lt)
{
	unsigned i = 0;

	if (w->nwriters > 1 && w->m.ntables >= w->nwriters)
		while (i + 1 < w->nwriters && own_first(w, i + 1) <= lt)
			i++;
	return &w->writers[i];
}

static __thread struct agent *self_writer;
static __thread const struct acc_observer *inner_observer;   /* the history's */

/* chaos: stall a writer at a random load, e.g. between the load and the
 * store of a read-modify-write, so hardware can update the entry there. */
static void writer_on_limit(struct acc_thread *t)
{
	struct agent *a = self_writer;

	sched_yield();
	acc_arm(t, 1 + rng_below(&a->rng, 4 * a->w->chaos));
}

/* Delays: before a mutation (after the load of a read-modify-write: where
 * a plain store loses a concurrent hardware update), more often at the
 * first store after the op cleared entries (between a block's clear and
 * its rewrite). The writer stands still until hardware has updated its
 * block k times, aimed at this very entry (hot_ptep); with no hardware
 * agent following it, for k microseconds (readers see the block half
 * rewritten). */
static void writer_delay(struct agent *a, uint64_t *p)
{
	struct stress_world *w = a->w;
	unsigned k = delay_steps(&a->delay);

	if (a->index < w->nhws) {
		/* hardware agent a->index (and every nwriters-th after it)
		 * follows this writer */
		struct block_hist *h = hist_of(&w->m, p);
		uint64_t e0 = atomic_load_explicit(&h->hw_end, memory_order_acquire);

		if (k > w->m.cont)
			k = 1 + k % w->m.cont;
		atomic_store_explicit(&a->hot_ptep, p, memory_order_relaxed);
		delay_wait(&a->delay, &h->hw_end, e0 + k, k, &w->stop, &w->pause);
		atomic_store_explicit(&a->hot_ptep, NULL, memory_order_relaxed);
	} else {
		delay_wait(&a->delay, NULL, 0, k, &w->stop, &w->pause);
	}
}

static uint64_t delayed_begin(struct acc_thread *t, uint64_t *p, enum acc_kind kind)
{
	struct agent *a = self_writer;
	double weight = 1;

	if (kind == ACC_XCHG) {
		a->cleared = true;
	} else if (kind == ACC_STORE && a->cleared) {
		a->cleared = false;
		weight = 8;
	}
	if (delay_roll(&a->delay, weight))
		writer_delay(a, p);
	return inner_observer->begin(t, p, kind);
}

static void delayed_end(struct acc_thread *t, uint64_t token, uint64_t *p, uint64_t newval,
			bool changed)
{
	inner_observer->end(t, token, p, newval, changed);
}

static const struct acc_observer delayed_observer = {
	.begin = delayed_begin,
	.end = delayed_end,
};

static void *writer_main(void *arg)
{
	struct agent *a = arg;
	struct stress_world *w = a->w;
	struct harness_mm *M = &w->m;
	uint64_t unflushed = 0;
	/* this writer's own tables: a share of them when there are several
	 * writers and at least as many tables */
	unsigned own_lo = 0, own_n = 0;

	if (w->nwriters > 1 && M->ntables >= w->nwriters) {
		own_lo = own_first(w, a->index);
		own_n = own_first(w, a->index + 1) - own_lo;
	}
	self_writer = a;
	a->subj = &acc_self.subj;
	agents_pin_self(w, w->nreaders + a->index);
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
	a->ctx.hot = &a->hot_ptep;
	history_attach(&a->ctx);
	/* delays where someone can use them: hardware updating the entry a
	 * writer stands in front of, or readers seeing the block half done */
	if (w->delay.on && (w->nhws || w->nreaders)) {
		/* a writer delays holding its table's lock: half the share */
		delay_init(&a->delay, &w->delay, 0.5, a->rng);
		inner_observer = acc_self.observer;
		acc_self.observer = &delayed_observer;
	}
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		unsigned lt = rng_below(&a->rng, M->ntables), b = rng_below(&a->rng, M->bpt);
		unsigned stalled = atomic_load_explicit(&a->stalled_block, memory_order_relaxed);
		enum op op = ops_pick(w->ops, &a->rng);
		int touched;

		bool chase = stalled && rng_below(&a->rng, 2);

		if (chase) {
			/* change the block a reader stands still in */
			lt = (stalled - 1) / M->bpt;
			b = (stalled - 1) % M->bpt;
		}
		if (!chase && own_n && rng_below(&a->rng, 8)) {
			/* Seven ops in eight on the writer's own tables: writers
			 * on different tables never wait for (or bounce the lock
			 * line of) each other, so more writers run more ops. The
			 * eighth goes anywhere (tables still change hands), but
			 * not into a queue: a table another writer holds now is
			 * swapped for an own one (a lock handed over through the
			 * kernel costs ten ops). */
			lt = own_lo + rng_below(&a->rng, own_n);
		}
		agents_park_point(w);
		for (int tries = 0; !chase && tries < 4; tries++) {
			if (!pthread_mutex_trylock(&M->ptl[lt].lock))
				goto locked;
			lt = own_n ? own_lo + rng_below(&a->rng, own_n) : rng_below(&a->rng, M->ntables);
		}
		pthread_mutex_lock(&M->ptl[lt].lock);
locked:
		agent_set_hot_block(a, M->bpt, lt, b);
		a->cleared = false;
		finding_begin(op_name(op));
		if (op_run_random(M, &a->ctx, w->plans, lt, b, op, &a->rng, &touched)) {
			/* the segment's shared counter every 16 ops */
			if (++unflushed == 16) {
				atomic_fetch_add_explicit(&M->hdr->writer_ops, unflushed, memory_order_relaxed);
				unflushed = 0;
			}
			atomic_store_explicit(&a->ops, atomic_load_explicit(&a->ops, memory_order_relaxed) + 1,
					      memory_order_relaxed);
		}
		a->ctx.consumes = 0;
		/* a teardown that left its block mixed: the rest of exit_mmap's
		 * zap (core/ops.h), judged in turn */
		if (!agents_check_op(w, &a->ctx, lt, touched) && op_finish_exit(M, &a->ctx, w->plans, &touched)) {
			a->ctx.consumes = 0;
			agents_check_op(w, &a->ctx, lt, touched);
		}
		pthread_mutex_unlock(&M->ptl[lt].lock);
	}
	atomic_fetch_add_explicit(&M->hdr->writer_ops, unflushed, memory_order_relaxed);
	a->cpu_s = agents_thread_cpu_s();
	history_detach();
	acc_self.on_limit = acc_limit_ignore;
	rcu_unregister_thread();
	return NULL;
}

/* ---- hardware agents --------------------------------------------------- */
static __thread struct agent *self_hw;

/* Delays: between the agent's load of the entry and its compare-and-swap
 * (hw_touch), until software has stored to the block k times (the CAS
 * then fails and retries on the new value). */
static uint64_t hw_begin_cb(struct acc_thread *t, uint64_t *p, enum acc_kind kind)
{
	struct agent *a = self_hw;
	struct stress_world *w = a->w;

	(void)t;
	/* not while the followed writer stands still waiting for hardware:
	 * the two would only wait for each other */
	if (kind == ACC_CMPXCHG && a->follow &&
	    !atomic_load_explicit(&a->follow->hot_ptep, memory_order_relaxed) &&
	    delay_roll(&a->delay, 1)) {
		struct block_hist *h = hist_of(&w->m, p);
		unsigned k = delay_steps(&a->delay);
		uint64_t l0 = atomic_load_explicit(&h->lseq, memory_order_acquire);

		delay_wait(&a->delay, &h->lseq, l0 + k, k, &w->stop, &w->pause);
	}
	return 0;
}

static void hw_end_cb(struct acc_thread *t, uint64_t token, uint64_t *p, uint64_t newval,
		      bool changed)
{
	(void)t;
	(void)token;
	(void)p;
	(void)newval;
	(void)changed;
}

static const struct acc_observer hw_observer = {
	.begin = hw_begin_cb,
	.end = hw_end_cb,
};

/* Idle for up to us microseconds; with delays, end early when the followed
 * writer stands still in front of an entry (so hardware updates it then). */
static void hw_idle(struct agent *a, struct agent *fw, unsigned us)
{
	struct stress_world *w = a->w;

	if (!w->delay.on || w->delay.sleep || !fw) {
		usleep(us);
		return;
	}
	double end = delay_now_ns() + us * 1e3;
	struct timespec ts = { 0, 10000 };

	while (delay_now_ns() < end && !atomic_load_explicit(&fw->hot_ptep, memory_order_relaxed) &&
	       !atomic_load_explicit(&w->stop, memory_order_relaxed) &&
	       !atomic_load_explicit(&w->pause, memory_order_relaxed))
		nanosleep(&ts, NULL);
}

static void *hw_main(void *arg)
{
	struct agent *a = arg;
	struct stress_world *w = a->w;
	struct harness_mm *M = &w->m;
	struct agent *fw = w->nwriters ? &w->writers[a->index % w->nwriters] : NULL;
	uint64_t unflushed = 0;
	static __thread struct violation vio;

	self_hw = a;
	a->follow = fw;
	a->subj = &acc_self.subj;
	finding_begin("hw");
	agents_pin_self(w, w->nreaders + w->nwriters + a->index);
	rcu_register_thread();
	if (w->delay.on) {
		/* short sleeps in hw_idle: no 50 us timer slack */
		if (!w->delay.sleep)
			prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
		/* a hardware update in flight spoils exact judging of reads of
		 * its block: a quarter of the share */
		delay_init(&a->delay, &w->delay, 0.25, a->rng);
		acc_self.observer = &hw_observer;
		acc_self.observer_data = a;
	}
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		unsigned burst = 1 + rng_below(&a->rng, 32);
		unsigned lt = rng_below(&a->rng, M->ntables), b = rng_below(&a->rng, M->bpt);
		unsigned hlt, hb;
		bool stream = false;

		if (agent_hot_block(fw, M->bpt, &hlt, &hb) && rng_below(&a->rng, 2)) {
			/* stream writes over the block a writer is changing */
			lt = hlt;
			b = hb;
			burst = M->cont;
			stream = true;
		}

		/* A burst of accesses to one block (a program touching one
		 * folio), then idle: most reads of most blocks see no
		 * hardware update, so their bits can be judged exactly. */
		agents_park_point(w);
		uint64_t *hp = fw ? atomic_exchange_explicit(&fw->hot_ptep, NULL, memory_order_relaxed) : NULL;
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
		if (!hw_burst(M, w->tlbs ? &w->tlbs[a->index] : NULL, lt, b, burst, stream, &a->rng, &vio))
			w->report(w, &vio);
		unflushed += burst;
		if (unflushed >= 256) {
			atomic_fetch_add_explicit(&M->hdr->hw_ops, unflushed, memory_order_relaxed);
			unflushed = 0;
		}
		atomic_store_explicit(&a->ops, atomic_load_explicit(&a->ops, memory_order_relaxed) + burst,
				      memory_order_relaxed);
		/* Idle between bursts, so that many reads see no hardware update. */
		if (rng_below(&a->rng, 2) == 0)
			hw_idle(a, fw, rng_below(&a->rng, 500));
		else
			sched_yield();
	}
	atomic_fetch_add_explicit(&M->hdr->hw_ops, unflushed, memory_order_relaxed);
	a->cpu_s = agents_thread_cpu_s();
	acc_self.observer = NULL;
	rcu_unregister_thread();
	return NULL;
}

static int start(struct stress_world *w, struct agent *a, unsigned n, uint64_t rng0,
		 void *(*body)(void *))
{
	for (unsigned i = 0; i < n; i++) {
		a[i].w = w;
		a[i].rng = rng0 + i;
		a[i].index = i;
		a[i].ctx.id = i;        /* reports name a writer by its index */
		if (pthread_create(&a[i].th, NULL, body, &a[i])) {
			atomic_store(&w->stop, 1);
			agents_join(a, i);
			return -1;
		}
	}
	return 0;
}

int agents_start(struct stress_world *w, struct agent *wr, unsigned nw, struct agent *hw,
		 unsigned nh, uint64_t seed)
{
	w->writers = wr;
	w->nwriters = nw;
	w->hws = hw;
	w->nhws = nh;
	if (start(w, wr, nw, seed * 2000003, writer_main))
		return -1;
	if (start(w, hw, nh, seed * 3000017, hw_main)) {
		atomic_store(&w->stop, 1);
		agents_join(wr, nw);
		return -1;
	}
	return 0;
}

struct agent *agents_alloc(unsigned n)
{
	size_t size = ((n ? n : 1) * sizeof(struct agent) + 63) / 64 * 64;
	struct agent *a = aligned_alloc(64, size);

	if (a)
		memset(a, 0, size);
	return a;
}

void agents_join(struct agent *a, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		pthread_join(a[i].th, NULL);
}
