/* engine/watchdog.c - the engine's watchdog (see engine/watchdog.h). */
#define _GNU_SOURCE
#include "engine/watchdog.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "engine/script.h"
#include "engine/sched.h"

static const char *wd_prog;
static void (*wd_on_stall)(void);

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *watch(void *arg)
{
	uint64_t last = atomic_load_explicit(&eng_heartbeat, memory_order_relaxed);
	double since = now_s();

	(void)arg;
	for (;;) {
		usleep(200000);
		uint64_t beat = atomic_load_explicit(&eng_heartbeat, memory_order_relaxed);
		int cur = atomic_load_explicit(&eng_running, memory_order_relaxed);

		if (beat != last || cur < 0) {
			last = beat;
			since = now_s();
			continue;
		}
		if (now_s() - since < WATCHDOG_STALL_S)
			continue;
		/* the running thread has not reached a scheduling point since */
		unsigned instr = eng.th[cur].instr;
		fprintf(stderr, "\n%s: watchdog: thread %d (instruction %u) has run %.0f s without a scheduling point:\n"
			"  the subject loops without any access through the access layer (no READ_ONCE,\n"
			"  WRITE_ONCE or cmpxchg of an entry in the loop), which the engine can neither\n"
			"  interleave nor stop; the same code hangs a kernel the same way\n",
			wd_prog, cur, instr, now_s() - since);
		if (wd_on_stall)
			wd_on_stall();
		fflush(stdout);
		fflush(stderr);
		_exit(1);
	}
	return NULL;
}

void watchdog_start(const char *prog, void (*on_stall)(void))
{
	static bool started;
	pthread_t th;

	if (started)
		return;
	started = true;
	wd_prog = prog;
	wd_on_stall = on_stall;
	if (!pthread_create(&th, NULL, watch, NULL))
		pthread_detach(th);
}
