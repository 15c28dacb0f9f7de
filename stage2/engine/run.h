/*
 * stage2/engine/run.h - one stage-2 program on the deterministic engine:
 * a fresh VM with the program's set-up, its threads as coroutines of
 * engine/sched.h (every access of the tree's code a scheduling point, the
 * lock an rwlock of the engine's, RCU the engine's), then the same checks
 * at quiescence and after teardown as under stress.
 */
#ifndef STAGE2_ENGINE_RUN_H
#define STAGE2_ENGINE_RUN_H

#include "engine/sched.h"
#include "stage2/engine/prog.h"

enum s2_run_status { S2R_CLEAN, S2R_VIOLATION, S2R_LIMIT, S2R_ERROR };

#define S2_VIO_SETUP (-2)

struct s2_run_result {
	enum s2_run_status status;
	struct s2_violation vio;
	/* the thread and instruction that saw it; S2_VIO_SETUP in the set-up,
	 * -1 the checks at the end */
	int vio_tid, vio_instr;
	uint64_t steps, hash;
	const uint8_t *taken, *taken_choices;
	unsigned ntaken, ntaken_choices;
	char error[256];
};

/* Run p under pol (kind ES_SCRIPT: p's schedule and choices, then a tail
 * seeded by p; ES_RANDOM / ES_PCT: pol's seed). */
enum s2_run_status s2_run(const struct s2_prog *p, const struct eng_policy *pol, struct s2_run_result *r);

/* The run's schedule and choices as p's own: p replays that run. */
void s2_take_schedule(struct s2_prog *p, const struct s2_run_result *r);

const char *s2_run_status_text(const struct s2_run_result *r, char *buf, size_t len);

#endif
