/* core/oracle/history.c - the software writers' log (see history.h). */
#define _GNU_SOURCE
#include "core/oracle/history.h"
#include "core/pte.h"

#include "core/bbm.h"

#include <sched.h>
#include <stdio.h>

static uint64_t hist_begin(struct acc_thread *t, uint64_t *p, enum acc_kind kind)
{
	struct writer_ctx *w = t->observer_data;
	struct harness_mm *m = w->m;
	unsigned idx;
	struct slot_hdr *s = hmm_slot_of(m, p, &idx);
	unsigned lt = atomic_load_explicit(&s->ltable, memory_order_relaxed);

	(void)kind;
	if (w->chaos) {
		/* Stall between a writer's read of the entry and its store: the
		 * window in which a plain read-modify-write loses a concurrent
		 * hardware update (a compare-and-swap just fails and retries). */
		w->rng = w->rng * 6364136223846793005ULL + 1442695040888963407ULL;
		if ((w->rng >> 33) % w->chaos == 0) {
			if (w->hot)
				atomic_store_explicit(w->hot, p, memory_order_relaxed);
			sched_yield();
		}
	}
	w->h = hmm_hist(m, lt, idx >> m->cont_shift);
	w->j = idx & (m->cont - 1);
	w->k = atomic_load_explicit(&w->h->lseq, memory_order_relaxed);
	atomic_store_explicit(&w->h->lseq, w->k + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	return w->k;
}

static void hist_end(struct acc_thread *t, uint64_t token, uint64_t *p, uint64_t newval,
		     bool changed)
{
	struct writer_ctx *w = t->observer_data;
	struct block_hist *h = w->h;
	uint64_t k = token;
	struct hist_rec *r = &h->ring[k % HIST_RING];
	unsigned j = w->j;

	(void)p;
	atomic_store_explicit(&r->tag, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&r->entry, changed ? j : HIST_NOP, memory_order_relaxed);
	atomic_store_explicit(&r->value, newval, memory_order_relaxed);
	atomic_store_explicit(&r->prev, changed ? atomic_load_explicit(&h->last[j], memory_order_relaxed) : 0,
			      memory_order_relaxed);
	atomic_store_explicit(&r->who, (w->id & 0xff) | (atomic_load_explicit(&w->cur_op, memory_order_relaxed) & 0xff) << 8, memory_order_relaxed);
	atomic_store_explicit(&r->tag, k + 1, memory_order_release);
	if (changed && w->m->tlb_on && !w->bbm_bad &&
	    !bbm_store(w->m, (unsigned long)(h - w->m->hist) * w->m->cont + j, newval, &w->bbm_vio))
		w->bbm_bad = true;
	if (changed) {
		atomic_store_explicit(&h->last[j], k + 1, memory_order_release);
		if (w->consumes & CONSUMES_DIRTY)
			h->consume_dirty[j] = k + 1;
		if (w->consumes & CONSUMES_YOUNG)
			h->consume_young[j] = k + 1;
	}
	atomic_store_explicit(&h->lcomp, k + 1, memory_order_release);
}

static const struct acc_observer history_observer = {
	.begin = hist_begin,
	.end = hist_end,
};

void history_attach(struct writer_ctx *w)
{
	acc_self.observer = &history_observer;
	acc_self.observer_data = w;
}

void history_detach(void)
{
	acc_self.observer = NULL;
	acc_self.observer_data = NULL;
}

bool history_read(const struct block_hist *h, uint64_t k, unsigned *entry,
		  uint64_t *value, uint64_t *prev, uint32_t *who)
{
	const struct hist_rec *r = &h->ring[k % HIST_RING];
	uint64_t t1 = atomic_load_explicit(&r->tag, memory_order_acquire);

	*entry = atomic_load_explicit(&r->entry, memory_order_relaxed);
	*value = atomic_load_explicit(&r->value, memory_order_relaxed);
	*prev = atomic_load_explicit(&r->prev, memory_order_relaxed);
	if (who)
		*who = atomic_load_explicit(&r->who, memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	return t1 == k + 1 && atomic_load_explicit(&r->tag, memory_order_relaxed) == k + 1;
}

unsigned history_print_entry(const struct block_hist *h, unsigned j, uint64_t since, unsigned max,
			     unsigned shift, char *buf, size_t len, size_t *off)
{
	uint64_t cur = atomic_load_explicit(&h->last[j], memory_order_acquire);
	unsigned n = 0;

	while (cur && cur - 1 >= since && n < max && *off < len - 200) {
		unsigned entry;
		uint64_t value, prev;

		if (!history_read(h, cur - 1, &entry, &value, &prev, NULL))
			break;
		*off += snprintf(buf + *off, len - *off, "    record %llu: %s\n",
				 (unsigned long long)(cur - 1), pm_format(value, shift).s);
		cur = prev;
		n++;
	}
	return n;
}
