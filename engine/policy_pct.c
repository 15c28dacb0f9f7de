/* engine/policy_pct.c - PCT scheduling (see engine/policy.h). */
#include "engine/policy.h"

#include "core/rng.h"

/* A thread PCT has run this many steps in a row while another could run
 * is spinning (a reader retrying on a block a lower-priority writer is in
 * the middle of): it drops below every other thread, as at a change point.
 * Without this, PCT's strict priorities starve the writer and the run ends
 * at the step limit. */
#define PCT_SPIN_STEPS 256

static int pick_pct(struct policy *base, const struct pick_view *v)
{
	struct pct_policy *p = (struct pct_policy *)base;
	int best = -1;

	for (unsigned i = 0; i < p->nchanges; i++)
		if (p->change_at[i] == v->steps && v->last >= 0)
			p->prio[v->last] = p->next_low--;   /* below every initial one */
	if (v->last >= 0 && v->streak >= PCT_SPIN_STEPS && (v->runnable & ~(1u << v->last)))
		p->prio[v->last] = p->next_low--;
	/* Right after a table pointer is published is where a walker finds a
	 * table whose contents may not be visible yet (a missing smp_wmb):
	 * a window of a step or two in a run of thousands, which uniform
	 * change points hit 1 in steps/depth times. Half the time, demote
	 * the publisher there, as at a change point. */
	if (v->last >= 0 && v->published && (v->runnable & ~(1u << v->last)) &&
	    rng_below(&p->rng, 2))
		p->prio[v->last] = p->next_low--;
	for (unsigned u = 0; u < v->nthreads; u++)
		if ((v->runnable >> u & 1) && (best < 0 || p->prio[u] > p->prio[best]))
			best = (int)u;
	return best;
}

/* Burckhardt et al. 2010: distinct random priorities d..d+n-1 and d-1
 * change points uniform in the next k steps. */
struct policy *pct_policy_init(struct pct_policy *p, uint64_t seed, unsigned nthreads,
			       unsigned depth, uint64_t k, uint64_t from)
{
	unsigned d = depth ? depth : 1, order[POLICY_MAX_THREADS];

	p->base.pick = pick_pct;
	p->rng = seed;
	for (unsigned i = 0; i < nthreads; i++)
		order[i] = i;
	for (unsigned i = nthreads; i > 1; i--) {
		unsigned j = rng_below(&p->rng, i), x = order[i - 1];

		order[i - 1] = order[j];
		order[j] = x;
	}
	for (unsigned i = 0; i < nthreads; i++)
		p->prio[order[i]] = (int)(d + i);
	p->nchanges = d - 1 > 8 ? 8 : d - 1;
	for (unsigned i = 0; i < p->nchanges; i++)
		p->change_at[i] = from + 1 + rng_next(&p->rng) % (k ? k : 1000);
	p->next_low = (int)d - 1;
	return &p->base;
}
