/* core/hw.c - hardware access-flag and dirty-state updates. */
#include "core/hw.h"

#include "core/access.h"
#include "core/rcu_tsan.h"
#include "core/rng.h"
#include "core/tlb.h"

static void mark_max(_Atomic uint64_t *mark, uint64_t v)
{
	uint64_t cur = atomic_load_explicit(mark, memory_order_relaxed);

	while (cur < v && !atomic_compare_exchange_weak_explicit(
			      mark, &cur, v, memory_order_release, memory_order_relaxed))
		;
}

/* The walk's update; returns the descriptor as the walk leaves it. */
static uint64_t touch(struct block_hist *h, uint64_t *ptep, unsigned j, bool write, bool *changedp)
{
	bool changed = false;
	uint64_t s, v, nv;

	/* Announce before touching: a reader that sees hw_begin unchanged
	 * across its window knows no hardware update landed in it. */
	atomic_fetch_add_explicit(&h->hw_begin, 1, memory_order_seq_cst);
	atomic_thread_fence(memory_order_seq_cst);
	s = atomic_load_explicit(&h->lcomp, memory_order_acquire);
	v = acc_load(ptep);
	for (;;) {
		if (!pm_valid(v))
			break;
		nv = pm_mkyoung(v);
		if (write && pm_write(v))
			nv &= ~PTE_BIT_RDONLY;
		if (nv == v)
			break;
		uint64_t seen = acc_cmpxchg(ptep, v, nv);
		if (seen != v) {
			v = seen;
			continue;
		}
		if (!pm_young(v))
			mark_max(&h->hw_young_mark[j], s + 1);
		if (!pm_hw_dirty(v) && pm_hw_dirty(nv))
			mark_max(&h->hw_dirty_mark[j], s + 1);
		changed = true;
		v = nv;
		break;
	}
	atomic_fetch_add_explicit(&h->hw_end, 1, memory_order_release);
	*changedp = changed;
	return v;
}

bool hw_touch(struct block_hist *h, uint64_t *ptep, unsigned j, bool write)
{
	bool changed;

	touch(h, ptep, j, write, &changed);
	return changed;
}

uint64_t hw_walk(struct block_hist *h, uint64_t *ptep, unsigned j, bool write)
{
	bool changed;
	uint64_t v, seen;

	/* What the walk caches is the coherent latest descriptor: a walk that
	 * begins after an invalidation completed (TLBI + DSB) sees the stores
	 * before it (a plain load may read an older write under the engine's
	 * arm model; a compare-and-swap with itself reads the latest) */
	for (;;) {
		v = touch(h, ptep, j, write, &changed);
		if (changed || (seen = acc_cmpxchg(ptep, v, v)) == v)
			return v;
	}
}

bool hw_access(struct harness_mm *m, unsigned lt, unsigned b, unsigned j, bool write)
{
	struct slot_hdr *slot;
	bool changed;

	rcu_read_lock();
	slot = rcu_dereference(m->tables[lt]);
	TSAN_RCU_CONSUME(slot);
	changed = hw_touch(hmm_hist(m, lt, b), hmm_slot_entries(m, slot) + b * m->cont + j, j, write);
	TSAN_RCU_READ_END();
	rcu_read_unlock();
	return changed;
}

bool hw_burst(struct harness_mm *m, struct tlb *t, unsigned lt, unsigned b, unsigned n,
	      bool stream, uint64_t *rng, struct violation *out)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned j = stream ? i % m->cont : rng_below(rng, m->cont);
		bool write = stream || rng_below(rng, 3) == 0;

		if (!t)
			hw_access(m, lt, b, j, write);
		else if (tlb_access(m, t, lt, b, j, write, out) == TLB_BAD)
			return false;
	}
	return true;
}
