/*
 * core/oracle/window.c - how a read is observed: the window protocol
 * (core/oracle/oracle.h), and property 5, memory safety: the page a reader
 * read was not freed or reused before its rcu_read_unlock.
 */
#include "core/oracle/oracle.h"

#include <stdio.h>

#include "core/access.h"
#include "core/rcu_tsan.h"

uint64_t *probe_open(struct harness_mm *m, struct probe *p, unsigned lt, unsigned block,
		     unsigned t, bool locked)
{
	struct read_obs *o = &p->o;
	struct block_hist *h = hmm_hist(m, lt, block);
	unsigned cont = m->cont;

	o->lt = lt;
	o->block = block;
	o->t = t;
	o->locked = locked;
	o->c0 = atomic_load_explicit(&h->lcomp, memory_order_acquire);
	o->e0 = atomic_load_explicit(&h->hw_end, memory_order_acquire);
	o->b0 = atomic_load_explicit(&h->hw_begin, memory_order_acquire);
	rcu_read_lock();
	p->exit0 = hmm_exit_seq(m, lt);
	if (!locked && (p->exit0 & 1)) {
		/* the process is gone: no lockless walk of its tables begins */
		rcu_read_unlock();
		return NULL;
	}
	p->slot = rcu_dereference(m->tables[lt]);
	TSAN_RCU_CONSUME(p->slot);
	p->gen = atomic_load(&p->slot->gen);
	o->slot = p->slot->index;
	p->e = hmm_slot_entries(m, p->slot) + block * cont;
	/* The read may not see writes older than these (weak memory: the
	 * window's start; docs/memory-model.md). */
	acc_observe_all();
	for (unsigned j = 0; j < cont; j++)
		o->P[j] = acc_peek(&p->e[j]);
	atomic_thread_fence(memory_order_acquire);
	o->lp = atomic_load_explicit(&h->lseq, memory_order_acquire);
	return &p->e[t];
}

void probe_close(struct harness_mm *m, struct probe *p, uint64_t R)
{
	struct read_obs *o = &p->o;
	struct block_hist *h = hmm_hist(m, o->lt, o->block);

	o->R = R;
	atomic_thread_fence(memory_order_acquire);
	for (unsigned j = 0; j < m->cont; j++)
		o->Q[j] = acc_peek(&p->e[j]);
	o->l1 = atomic_load_explicit(&h->lseq, memory_order_acquire);
	o->b1 = atomic_load_explicit(&h->hw_begin, memory_order_acquire);
	o->moved = atomic_load_explicit(&p->slot->vacated, memory_order_acquire);
	p->exit1 = hmm_exit_seq(m, o->lt);
	p->state = atomic_load(&p->slot->state);
	p->gen2 = atomic_load(&p->slot->gen);
	TSAN_RCU_READ_END();
	rcu_read_unlock();
}

void probe_abandon(struct probe *p)
{
	(void)p;
	TSAN_RCU_READ_END();
	rcu_read_unlock();
}

enum verdict probe_judge(struct harness_mm *m, struct probe *p, struct violation *out,
			 struct judge_stats *st)
{
	const struct read_obs *o = &p->o;

	violation_clear(out);
	if (p->state == SLOT_POISONED || p->gen2 != p->gen) {
		out->kind = VK_UAF;
		snprintf(out->summary, sizeof(out->summary),
			 "use_after_free: table %u's page was freed%s while a reader was inside rcu_read_lock",
			 o->lt, p->gen2 != p->gen ? " and reused" : "");
		snprintf(out->detail, sizeof(out->detail),
			 "  the reader dereferenced the table, read entry %u of block %u, and\n"
			 "  before its rcu_read_unlock the page was poisoned (generation %u -> %u):\n"
			 "  the grace period did not wait for it.\n"
			 "  result: %s\n", o->t, o->block, p->gen, p->gen2,
			 pm_format(o->R, m->g->page_shift).s);
		return VERDICT_VIOLATION;
	}
	/* a lockless read that overlapped a teardown of its table: no such
	 * read exists in the kernel (docs/contract.md, "Process teardown") */
	if (!o->locked && p->exit1 != p->exit0)
		return VERDICT_OK;
	return oracle_judge(m, o, out, st);
}

uint32_t read_shape(const struct harness_mm *m, const struct read_obs *o)
{
	unsigned cont = m->cont, shift = m->g->page_shift, changed = 0;
	uint64_t pt = o->P[o->t], qt = o->Q[o->t];
	bool moved = false, recont = false;
	uint32_t s;

	for (unsigned j = 0; j < cont; j++) {
		if (o->P[j] == o->Q[j])
			continue;
		changed++;
		moved |= pm_valid(o->P[j]) != pm_valid(o->Q[j]) ||
			 pm_pfn(o->P[j], shift) != pm_pfn(o->Q[j], shift);
		recont |= pm_cont(o->P[j]) != pm_cont(o->Q[j]);
	}
	s = changed == 0 ? 0 : changed == 1 ? 1 : changed < cont / 2 ? 2 : changed < cont ? 3 : 4;
	s |= (uint32_t)(o->l1 != o->c0) << 3;                             /* software stores */
	s |= (uint32_t)!(o->e0 == o->b0 && o->b1 == o->b0) << 4;          /* hardware updates */
	s |= (uint32_t)(pt != qt) << 5;                                   /* the target changed */
	s |= (uint32_t)moved << 6;                                        /* a mapping came or went */
	s |= (uint32_t)recont << 7;                                       /* a fold or unfold */
	s |= (uint32_t)(pm_content(o->R) == pm_content(pt)) << 8;         /* the result is the */
	s |= (uint32_t)(pm_content(o->R) == pm_content(qt)) << 9;         /* target's at start/end */
	s |= (uint32_t)pm_young(o->R) << 10;
	s |= (uint32_t)pm_dirty(o->R) << 11;
	s |= (uint32_t)pm_valid_cont(o->R) << 12;
	s |= (uint32_t)o->locked << 13;
	return s;
}
