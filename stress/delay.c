/* stress/delay.c - timed, progress-bounded delays (see stress/delay.h). */
#define _GNU_SOURCE
#include "stress/delay.h"

#include <math.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include "core/rng.h"

#define P_MIN 1e-5
#define P_MAX 0.5
#define P_START (1.0 / 64)
#define WINDOW_NS 5e6            /* adapt p every 5 ms of the thread's time */
#define MIN_CAP_NS 10e3          /* a capped delay still lasts this long */
#define STEP_START_NS 1e3        /* first guess at one step of progress */
#define YIELD_EVERY_NS 4e3
#define SLEEP_NS 20000           /* a poll's sleep when oversubscribed */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

double delay_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

void delay_init(struct delay *d, const struct delay_params *P, double share_scale, uint64_t seed)
{
	*d = (struct delay){ .P = P, .rng = seed ^ 0x64656c6179ULL, .p = P_START,
			     .step_ns = STEP_START_NS };
	d->share = P->share * share_scale;
	d->win_t0 = delay_now_ns();
	if (P->sleep)      /* short sleeps: no 50 us timer slack */
		prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
}

unsigned delay_below(struct delay *d, unsigned n)
{
	return rng_below(&d->rng, n);
}

static double unit(struct delay *d)
{
	return (rng_next(&d->rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* Steer p so that delays take the target share of the thread's time. */
static void adapt(struct delay *d)
{
	double now = delay_now_ns(), span = now - d->win_t0;

	if (span < WINDOW_NS)
		return;
	double got = d->win_delayed / span, f;

	if (got <= 0)
		f = 2;
	else
		f = d->share / got;
	if (f < 0.5)
		f = 0.5;
	if (f > 2)
		f = 2;
	d->p *= f;
	if (d->p < P_MIN)
		d->p = P_MIN;
	if (d->p > P_MAX)
		d->p = P_MAX;
	d->win_t0 = now;
	d->win_delayed = 0;
}

bool delay_roll(struct delay *d, double weight)
{
	d->points++;
	if (++d->win_events >= 32) {
		d->win_events = 0;
		adapt(d);
	}
	return unit(d) < d->p * weight;
}

unsigned delay_steps(struct delay *d)
{
	unsigned kmax = d->P->kmax ? d->P->kmax : 1;
	/* exp of a uniform in [0, ln(kmax + 1)): log-uniform over [1, kmax] */
	unsigned k = (unsigned)exp(unit(d) * log((double)kmax + 1));

	return k < 1 ? 1 : k > kmax ? kmax : k;
}

enum delay_end delay_wait(struct delay *d, const _Atomic uint64_t *progress, uint64_t until,
			  unsigned k, const atomic_int *stop, const atomic_int *pause)
{
	double t0 = delay_now_ns(), cap, now = t0, next_yield = t0 + YIELD_EVERY_NS;
	enum delay_end end;

	if (progress) {
		cap = 8.0 * k * d->step_ns;
		if (cap < MIN_CAP_NS)
			cap = MIN_CAP_NS;
	} else {
		cap = 1e3 * k;           /* a plain timed delay: k microseconds */
	}
	if (cap > d->P->max_ns)
		cap = d->P->max_ns;
	d->taken++;
	for (unsigned i = 0;; i++) {
		if (progress && atomic_load_explicit(progress, memory_order_acquire) >= until) {
			end = DELAY_REACHED;
			break;
		}
		if ((stop && atomic_load_explicit(stop, memory_order_relaxed)) ||
		    (pause && atomic_load_explicit(pause, memory_order_relaxed))) {
			end = DELAY_ABORTED;
			break;
		}
		if (d->P->sleep) {
			struct timespec ts = { 0, SLEEP_NS };

			nanosleep(&ts, NULL);
			if (delay_now_ns() - t0 >= cap) {
				end = progress ? DELAY_CAPPED : DELAY_REACHED;
				break;
			}
			continue;
		}
		cpu_relax();
		if (i % 16 == 0) {
			now = delay_now_ns();
			if (now - t0 >= cap) {
				end = progress ? DELAY_CAPPED : DELAY_REACHED;
				break;
			}
			if (now >= next_yield) {
				sched_yield();
				next_yield = now + YIELD_EVERY_NS;
			}
		}
	}
	now = delay_now_ns();
	double took = now - t0;

	d->delayed_ns += took;
	d->win_delayed += took;
	if (end == DELAY_REACHED) {
		d->reached++;
		if (progress)
			d->step_ns = 0.9 * d->step_ns + 0.1 * (took / k);
	} else if (end == DELAY_CAPPED) {
		d->capped++;
		d->step_ns *= 1.25;
		if (d->step_ns > d->P->max_ns)
			d->step_ns = d->P->max_ns;
	} else {
		d->aborted++;
	}
	return end;
}

void delay_add(struct delay_totals *t, const struct delay *d)
{
	t->points += d->points;
	t->taken += d->taken;
	t->reached += d->reached;
	t->capped += d->capped;
	t->aborted += d->aborted;
	t->delayed_ns += d->delayed_ns;
}
