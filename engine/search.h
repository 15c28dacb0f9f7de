/*
 * engine/search.h - searching interleavings: programs (random ones, or the
 * programs of a seed corpus) run with fresh random or PCT schedules until
 * one violates the contract, within a run count or time budget.
 *
 * A search draws everything from one random stream, so a search replays
 * from its seed. Used by the engine's command line (explore), by fuzztool
 * (seed generation) and, through those, by the tools.
 */
#ifndef ENGINE_SEARCH_H
#define ENGINE_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/run.h"
#include "engine/script.h"

struct search {
	const struct variant *v;
	enum eng_strategy strategy;      /* ES_RANDOM or ES_PCT */
	unsigned depth;                  /* PCT's depth */
	enum mem_model memory;           /* the programs' memory model (default sc) */
	uint8_t tlb, tlb_evict;          /* the programs' TLB model (0: none; docs/tlb.md) */
	bool bbml2;                      /* ... and BBML2_NOABORT */
	const struct script *pool;       /* programs to draw from; NULL: random programs */
	unsigned npool;
	uint64_t rng;                    /* the stream */
	uint64_t runs;                   /* runs made */
};

/* A search of v with a stream of its own for seed: splitmix's state
 * advances by a fixed constant, so states seed * constant would make every
 * seed the same stream shifted; one output of it is not. */
void search_init(struct search *x, const struct variant *v, enum eng_strategy strategy,
		 unsigned depth, uint64_t seed);

/* The next program into s: pool[pick] (pick < 0: a random pool entry) or,
 * with no pool, a random program; the search's variant and granule, no
 * schedule, no expectation. */
void search_next_program(struct search *x, int pick, struct script *s);

/* Run s once with a fresh schedule seed from the stream. */
enum run_status search_run_one(struct search *x, const struct script *s, struct run_result *r);

struct search_budget {
	uint64_t runs;                   /* 0: no limit on runs */
	double seconds;                  /* 0: no limit on time */
	/* called about once a second with the runs so far and the time */
	void (*progress)(uint64_t runs, double elapsed);
};

/* Programs and schedules until a violation or the budget. True on a
 * violation: s then holds the program with the schedule the engine took
 * (at most SCRIPT_MAX_SCHED entries) and its expectation, r the result;
 * *elapsed the time it took. An engine error ends the search too (false,
 * r->status RS_ERROR). */
bool search_until_violation(struct search *x, const struct search_budget *b, struct script *s,
			    struct run_result *r, double *elapsed);

/* (search_until_violation saves the memory model's choices with the
 * schedule: under arm the script replays them.) */

/* A violation found by a search, checked and made small: replayed from its
 * saved schedule (false if it does not replay with found's signature, core/
 * finding.h), then, with shrink, the structural shrinker (engine/shrink.h). */
bool search_confirm(const struct variant *v, struct script *s, const struct violation *found,
		    bool shrink, struct run_result *replayed);

#endif
