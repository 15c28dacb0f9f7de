/* engine/policy_random.c - uniform random scheduling (see engine/policy.h). */
#include "engine/policy.h"

#include "core/rng.h"

static int pick_random(struct policy *base, const struct pick_view *v)
{
	struct random_policy *p = (struct random_policy *)base;
	int cand[POLICY_MAX_THREADS], n = 0;

	for (unsigned u = 0; u < v->nthreads; u++)
		if (v->runnable >> u & 1)
			cand[n++] = (int)u;
	return n ? cand[rng_below(&p->rng, n)] : -1;
}

struct policy *random_policy_init(struct random_policy *p, uint64_t seed)
{
	p->base.pick = pick_random;
	p->rng = seed;
	return &p->base;
}
