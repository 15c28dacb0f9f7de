/*
 * stress/delay.h - race widening that does not depend on the OS scheduler.
 *
 * The hard planted bugs need one thread to stand still in the middle of
 * something (a reader between its first and last load of a block, a writer
 * between the load and the store of a read-modify-write or between the
 * clear and the rewrite of a block, a hardware agent between its load and
 * its compare-and-swap) while another thread changes what it is looking
 * at. An oversubscribed run gets that from the OS preempting threads; with
 * a core per thread nothing preempts anyone, and a sched_yield returns at
 * once. Delays put the standing still where it matters:
 *
 *   - Where: the caller picks the point (stress/driver.c: a reader's load,
 *     skewed towards the start of the scan; stress/agents.c: a writer's
 *     mutation, weighted up at the first store after a clear; a hardware
 *     agent's compare-and-swap).
 *   - How long: not a time but the other side's progress, like a PCT
 *     priority change point (the delayed thread drops below the others
 *     until they have made K steps): K software stores to the reader's
 *     block, K hardware updates of the writer's block. K is drawn
 *     log-uniform from [1, kmax] (default max(256, 8 * CONT_PTES)), so
 *     short races (one store) and long ones (an unmap and a remap:
 *     2 * CONT_PTES stores) are both tried, on any machine speed. A time cap bounds each delay: the configured maximum,
 *     and below it 8 times K times the time one step took in the thread's
 *     recent completed delays (so a delay whose progress is not coming
 *     gives up soon). Delays end at once when the run stops or pauses.
 *   - How often: each thread adapts its probability so that its delays
 *     take a set share of its time (--delay-share): fast readers delay a
 *     small fraction of reads, and a run spends the same share of effort
 *     widening races on 2 cores as on 64.
 *
 * While delayed a thread spins on the progress counter, yielding the CPU
 * every few microseconds: with a core per thread the yield returns at once.
 * When the run has more threads than CPUs (sleep), it polls in short sleeps
 * instead: the OS preempts threads there anyway, and a spinning waiter
 * would take the CPU from the very threads it waits for.
 */
#ifndef STRESS_DELAY_H
#define STRESS_DELAY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Run-wide settings (hammer's --delay flags). */
struct delay_params {
	bool on;
	double share;        /* target share of each thread's time spent delayed */
	double max_ns;       /* longest single delay */
	unsigned kmax;       /* K drawn log-uniform from [1, kmax]; 0 in a
			      * stress_cfg: delay_kmax_for(CONT_PTES) */
	bool sleep;          /* more threads than CPUs: wait asleep (below) */
};

#define DELAY_DEFAULT_SHARE 0.5
#define DELAY_DEFAULT_MAX_US 2000
/* The default widest K: 256, or 8 blocks' worth of stores at 16K (an
 * unmap and a remap of a block take 2 * CONT_PTES; at 16K, 256 made the
 * early-exit mutants 2-3x slower to find without preemption). */
static inline unsigned delay_kmax_for(unsigned cont) { return 8 * cont > 256 ? 8 * cont : 256; }

/* Per thread. */
struct delay {
	const struct delay_params *P;
	double share;        /* this thread's target (the run's, scaled per role) */
	uint64_t rng;
	double p;            /* probability a delay point is taken */
	double step_ns;      /* recent time per progress step (EWMA) */
	/* adaptation window */
	double win_t0, win_delayed;
	unsigned win_events;
	/* totals */
	uint64_t points, taken, reached, capped, aborted;
	double delayed_ns;
};

enum delay_end { DELAY_REACHED, DELAY_CAPPED, DELAY_ABORTED };

double delay_now_ns(void);

void delay_init(struct delay *d, const struct delay_params *P, double share_scale, uint64_t seed);

/* A delay point: true if this one is taken (probability p * weight). */
bool delay_roll(struct delay *d, double weight);

/* K, log-uniform in [1, kmax]. */
unsigned delay_steps(struct delay *d);

/* A uniform draw in [0, n). */
unsigned delay_below(struct delay *d, unsigned n);

/* Stand still until *progress >= until (progress NULL: until the cap), or
 * the time cap for k steps passes, or *stop or *pause is set. */
enum delay_end delay_wait(struct delay *d, const _Atomic uint64_t *progress, uint64_t until,
			  unsigned k, const atomic_int *stop, const atomic_int *pause);

/* Sums over threads, for the summary. */
struct delay_totals {
	uint64_t points, taken, reached, capped, aborted;
	double delayed_ns;
};
void delay_add(struct delay_totals *t, const struct delay *d);

#endif
