/*
 * engine/policy.h - scheduling policies: which thread takes the next step.
 *
 * The scheduler's mechanics (engine/sched.c: coroutines, runnability,
 * locks, RCU, the trace) ask a policy at every step, showing it only what
 * a policy may use: the runnable threads, the thread of the last step, the
 * step count and how many steps in a row that thread has taken (a thread
 * that keeps running while others could is spinning). One file per policy:
 *
 *   random   uniform among the runnable threads            policy_random.c
 *   pct      PCT (Burckhardt et al. 2010) with a spin guard policy_pct.c
 *            and a bias to switch right after a publication
 *   replay   a script's run-length schedule, then a tail   policy_replay.c
 *            policy (random or PCT) seeded by the script
 *
 * A policy is deterministic given its seed and the views it is shown, so
 * a run replays bit for bit.
 */
#ifndef ENGINE_POLICY_H
#define ENGINE_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#define POLICY_MAX_THREADS 4

struct pick_view {
	uint32_t runnable;      /* bit per thread that can take a step */
	unsigned nthreads;
	int last;               /* thread of the last step; -1 before the first */
	uint64_t steps;         /* steps taken so far */
	uint64_t streak;        /* steps in a row taken by last */
	bool published;         /* last's step stored a table pointer (an RCU
				   publication: what a walker may now find) */
};

struct policy {
	/* The next thread to step (a bit of v->runnable); -1 if none. */
	int (*pick)(struct policy *p, const struct pick_view *v);
};

struct random_policy {
	struct policy base;
	uint64_t rng;
};

struct pct_policy {
	struct policy base;
	uint64_t rng;
	int prio[POLICY_MAX_THREADS];
	uint64_t change_at[8];      /* steps at which the running thread is demoted */
	unsigned nchanges;
	int next_low;               /* next priority for a demoted thread (may go negative) */
};

struct replay_policy {
	struct policy base;
	const uint8_t *sched;       /* run-length entries: thread | (run - 1) << 3 */
	unsigned nsched, si, run_left;
	int run_tid;
	uint64_t tail_seed;
	struct policy *tail;        /* chosen when the schedule runs out */
	union {
		struct random_policy random;
		struct pct_policy pct;
	} tail_state;
};

/* The policies; each returns its base. */
struct policy *random_policy_init(struct random_policy *p, uint64_t seed);
/* depth d: d - 1 priority change points, uniform in the k steps after
 * step `from` (k 0: 1000). */
struct policy *pct_policy_init(struct pct_policy *p, uint64_t seed, unsigned nthreads,
			       unsigned depth, uint64_t k, uint64_t from);
/* Entries naming a thread that cannot run are skipped whole. The tail:
 * PCT (depth 3, change points in the next 400 steps) for three seeds in
 * four, uniform random otherwise, seeded with tail_seed. */
struct policy *replay_policy_init(struct replay_policy *p, const uint8_t *sched,
				  unsigned nsched, uint64_t tail_seed);

#endif
