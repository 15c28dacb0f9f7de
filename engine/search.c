/* engine/search.c - programs x schedules until a violation (engine/search.h). */
#include "engine/search.h"

#include <string.h>
#include <time.h>

#include "core/finding.h"
#include "core/rng.h"
#include "engine/gen.h"
#include "engine/shrink.h"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

void search_init(struct search *x, const struct variant *v, enum eng_strategy strategy,
		 unsigned depth, uint64_t seed)
{
	memset(x, 0, sizeof(*x));
	x->v = v;
	x->strategy = strategy;
	x->depth = depth;
	x->rng = seed;
	x->rng = rng_next(&x->rng);
}

void search_next_program(struct search *x, int pick, struct script *s)
{
	if (x->npool) {
		*s = x->pool[pick >= 0 ? (unsigned)pick % x->npool : rng_below(&x->rng, x->npool)];
		s->granule_kb = x->v->granule->kb;
		strcpy(s->variant, x->v->name);
		s->nsched = 0;
		s->nchoices = 0;
		s->expect = EXPECT_NONE;
	} else {
		gen_script(s, x->v->granule->kb, x->v->name, &x->rng);
	}
	s->memory = (uint8_t)x->memory;
	s->tlb = x->tlb;
	s->tlb_evict = x->tlb_evict;
	s->bbml2 = x->bbml2;
}

enum run_status search_run_one(struct search *x, const struct script *s, struct run_result *r)
{
	struct run_opts o = { .variant = x->v };

	o.policy.kind = x->strategy;
	o.policy.seed = rng_next(&x->rng);
	o.policy.depth = x->depth;
	o.policy.est_steps = 400;
	x->runs++;
	return run_script(s, &o, r);
}

bool search_until_violation(struct search *x, const struct search_budget *b, struct script *s,
			    struct run_result *r, double *elapsed)
{
	double t0 = now_s(), next = t0 + 1;
	uint64_t n = 0;

	for (;;) {
		double t = now_s();

		if ((b->runs && n >= b->runs) || (b->seconds && t - t0 >= b->seconds))
			break;
		if (b->progress && t >= next) {
			b->progress(n, t - t0);
			next = t + 1;
		}
		search_next_program(x, -1, s);
		search_run_one(x, s, r);
		n++;
		if (r->status == RS_ERROR)
			break;
		if (r->status != RS_VIOLATION)
			continue;
		*elapsed = now_s() - t0;
		script_set_taken(s, r->taken, r->ntaken, r->taken_choices, r->ntaken_choices);
		s->expect = (uint8_t)EXPECT_KIND(r->vio.kind);
		return true;
	}
	*elapsed = now_s() - t0;
	return false;
}

bool search_confirm(const struct variant *v, struct script *s, const struct violation *found,
		    bool shrink, struct run_result *replayed)
{
	struct run_opts o = { .variant = v, .policy = { .kind = ES_SCRIPT } };

	run_script(s, &o, replayed);
	if (replayed->status != RS_VIOLATION || !finding_same(&replayed->vio, found))
		return false;
	if (shrink)
		shrink_script(s, &o, found);
	return true;
}
