/*
 * fuzz/runs.h - the runs one fuzz input stands for (docs/fuzzing.md,
 * "Several runs per input").
 *
 * An execution under afl-fuzz costs a fork-server round trip (two pipe
 * messages, SIGSTOP / SIGCONT, waitpid) that is about twice the engine's
 * own run on this machine. So the harness runs each input FUZZ_RUNS times
 * (default 4; 1 runs the script alone): run 0 is the script as read; run
 * k > 0 is the script with its schedule cut to its first
 * nsched * (runs - k) / runs entries and one entry of thread
 * (k - 1) % nthreads (one step) appended, so that the engine's tail, seeded
 * by the script's bytes (docs/script-format.md), re-draws the rest of the
 * interleaving: a fresh PCT or random tail behind a shorter and shorter
 * prefix of the input's own schedule. The runs stop at the first violation
 * (of the kinds FUZZ_ONLY_KIND lets through), and the abort report prints
 * the run's own script.
 *
 * Everything that replays a crash file (fuzz/fuzztool.c: info, retarget,
 * stable; through it tools/campaign, tools/triage, tools/minimize) runs the
 * same runs in the same order with the same FUZZ_RUNS.
 */
#ifndef FUZZ_RUNS_H
#define FUZZ_RUNS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/script.h"

#define FUZZ_RUNS_DEFAULT 4
#define FUZZ_RUNS_MAX 64

/* FUZZ_RUNS from the environment; 0 (with a message) if it is not 1-64. */
static inline unsigned fuzz_runs_from_env(void)
{
	const char *e = getenv("FUZZ_RUNS");
	char *end;
	unsigned long n;

	if (!e || !*e)
		return FUZZ_RUNS_DEFAULT;
	n = strtoul(e, &end, 10);
	if (*end || n < 1 || n > FUZZ_RUNS_MAX) {
		fprintf(stderr, "FUZZ_RUNS='%s': runs per input, 1-%d\n", e, FUZZ_RUNS_MAX);
		return 0;
	}
	return (unsigned)n;
}

/* Make s (read with nsched0 schedule entries, the first of runs) run k.
 * Returns the schedule byte it overwrote; fuzz_run_restore puts s back. */
static inline uint8_t fuzz_run_set(struct script *s, unsigned nsched0, unsigned k, unsigned runs)
{
	unsigned cut;
	uint8_t saved;

	if (!k) {
		s->nsched = nsched0;
		return 0;
	}
	cut = nsched0 * (runs - k) / runs;
	if (cut >= SCRIPT_MAX_SCHED)
		cut = SCRIPT_MAX_SCHED - 1;
	saved = s->sched[cut];
	s->sched[cut] = (uint8_t)((k - 1) % s->nthreads);
	s->nsched = cut + 1;
	return saved;
}

static inline void fuzz_run_restore(struct script *s, unsigned nsched0, unsigned k, unsigned runs,
				    uint8_t saved)
{
	unsigned cut;

	if (k) {
		cut = nsched0 * (runs - k) / runs;
		if (cut >= SCRIPT_MAX_SCHED)
			cut = SCRIPT_MAX_SCHED - 1;
		s->sched[cut] = saved;
	}
	s->nsched = nsched0;
}

#endif
