/* engine/policy_replay.c - a script's schedule, then a tail policy (see
 * engine/policy.h and docs/script-format.md). */
#include "engine/policy.h"

static int pick_replay(struct policy *base, const struct pick_view *v)
{
	struct replay_policy *p = (struct replay_policy *)base;

	while (!p->tail && (p->si < p->nsched || p->run_left)) {
		if (!p->run_left) {
			uint8_t e = p->sched[p->si++];

			p->run_tid = e & 7;
			p->run_left = (e >> 3) + 1;
		}
		if ((unsigned)p->run_tid < v->nthreads && (v->runnable >> p->run_tid & 1)) {
			p->run_left--;
			return p->run_tid;
		}
		p->run_left = 0;       /* not runnable: the entry is skipped */
	}
	if (!p->tail)
		p->tail = (p->tail_seed >> 62) == 0
			? random_policy_init(&p->tail_state.random, p->tail_seed)
			: pct_policy_init(&p->tail_state.pct, p->tail_seed, v->nthreads, 3, 400, v->steps);
	return p->tail->pick(p->tail, v);
}

struct policy *replay_policy_init(struct replay_policy *p, const uint8_t *sched,
				  unsigned nsched, uint64_t tail_seed)
{
	p->base.pick = pick_replay;
	p->sched = sched;
	p->nsched = nsched;
	p->si = p->run_left = 0;
	p->run_tid = -1;
	p->tail_seed = tail_seed;
	p->tail = 0;
	return &p->base;
}
