/*
 * engine/sched.h - the deterministic scheduler.
 *
 * Up to ENG_MAX_THREADS harness threads run as coroutines on one OS thread.
 * Every shared-memory access of the algorithms (each access-layer call, and
 * RCU's pointer publish/dereference) is a scheduling point: the thread
 * stops in front of the access and a policy picks which thread performs
 * its next access. A "step" is one thread performing its pending access and
 * running on to its next scheduling point. Everything else the thread does
 * (the oracle's own snapshots, history records) happens inside a step.
 *
 * Blocking: a thread in front of a lock another thread holds, or in a grace
 * period that still waits for a reader, is not runnable.
 *
 * Which runnable thread takes the next step is a policy's choice
 * (engine/policy.h: a script's schedule, uniform random, or PCT); this file
 * is the mechanics only. The pick is made by the running thread at its
 * scheduling point: picked again (most steps are), it goes on without a
 * coroutine switch; otherwise it switches to eng_run, which resumes the
 * thread picked. Each run yields a trace hash over every access
 * (thread, kind, location, values before and after): same script, same
 * trace, on every run and machine.
 */
#ifndef ENGINE_SCHED_H
#define ENGINE_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/access.h"
#include "engine/coro.h"
#include "engine/memory.h"
#include "engine/policy.h"

struct rcu_head;

#define ENG_MAX_THREADS POLICY_MAX_THREADS
#define ENG_MAX_LOCKS 8
#define ENG_STACK (256 * 1024)

/* The access layer's kinds (core/access_kind.h), then the engine's own. */
enum eng_kind {
	EK_LOAD = ACC_LOAD, EK_STORE = ACC_STORE, EK_CMPXCHG = ACC_CMPXCHG,
	EK_XCHG = ACC_XCHG, EK_OR = ACC_OR, EK_ANDNOT = ACC_ANDNOT,
	EK_RCU_DEREF = ACC_KIND_COUNT, EK_RCU_ASSIGN, EK_LOCK, EK_GP, EK_COUNT
};
/* Recorded trace hashes mix these values in. */
_Static_assert(EK_RCU_DEREF == 6 && EK_COUNT == 10, "event kinds are part of the trace hash");
extern const char *const eng_kind_names[EK_COUNT];

enum eng_pstate { PS_IDLE, PS_NEW, PS_READY, PS_DONE };

/* One access, for timelines (engine/trace). */
struct eng_event {
	uint32_t step;
	uint8_t tid, kind;
	uint16_t instr;             /* the thread's instruction index */
	int64_t off;                /* byte offset in the segment, -1 if outside */
	uint64_t before, after;     /* value before and after (loads: equal) */
};

struct eng_thread {
	struct coro co;
	struct acc_thread acc;      /* the access layer's per-thread state */
	enum eng_pstate state;
	enum eng_kind pending;      /* the access it stands in front of */
	int lock_want;              /* lock it waits for, or -1 */
	bool lock_want_read;        /* ... for read (eng_read_lock) */
	bool gp_wait;               /* in synchronize_rcu */
	uint64_t gp_need;           /* threads (bitmask) the grace period waits for */
	uint64_t gp_epoch[ENG_MAX_THREADS];
	unsigned rcu_nesting;
	uint64_t rcu_epoch;         /* outermost rcu_read_unlock count */
	unsigned instr;             /* instruction index (set by the body) */
	uint64_t solo_loads;        /* loads in a row with no other thread's step */
};

enum eng_strategy { ES_SCRIPT, ES_RANDOM, ES_PCT };

/* Which policy a run uses, and its parameters. */
struct eng_policy {
	enum eng_strategy kind;
	/* ES_SCRIPT: run-length entries (thread | (run - 1) << 3), then, once
	 * they run out, a tail seeded by tail_seed (engine/run.c derives it
	 * from the script: script_tail_seed): PCT with depth 3 (three seeds in
	 * four) or uniform random */
	const uint8_t *sched;
	unsigned nsched;
	uint64_t tail_seed;
	/* ES_RANDOM, ES_PCT */
	uint64_t seed;
	unsigned depth;             /* PCT: d (d - 1 priority change points) */
	uint64_t est_steps;         /* PCT: estimated steps k for change points */
	/* the memory model (engine/memory.h), and under arm its choices
	 * (which write a load reads, which buffered store becomes visible):
	 * these first, then a stream seeded by choice_seed */
	enum mem_model memory;
	const uint8_t *choices;
	unsigned nchoices;
	uint64_t choice_seed;
};

/* The engine's global state: one run at a time. */
struct eng {
	struct eng_thread th[ENG_MAX_THREADS];
	unsigned nthreads;
	int cur;                    /* running thread, -1 = the scheduler itself */
	struct coro main;
	void (*body)(unsigned tid); /* what each thread runs */
	const char *base;           /* segment base, for trace offsets */
	size_t size;
	uint64_t steps, step_limit;
	uint64_t hash;              /* trace hash */
	int lock_owner[ENG_MAX_LOCKS];
	unsigned lock_readers[ENG_MAX_LOCKS];   /* holders for read (eng_read_lock) */
	bool stop;                  /* a violation ended the run */
	bool limit_hit;
	bool deadlock;
	/* the policy picking the threads (engine/policy.h) */
	struct eng_policy pol;
	struct policy *policy;
	union {
		struct random_policy random;
		struct pct_policy pct;
		struct replay_policy replay;
	} policy_state;
	uint64_t streak;            /* steps in a row by the last thread picked */
	/* the schedule actually taken, run-length encoded like a script's */
	uint8_t *taken;
	unsigned ntaken, taken_cap;
	/* the arm model's choices: given, then drawn; the ones taken */
	unsigned ci;
	uint64_t choice_rng;
	uint8_t *taken_choices;
	unsigned ntaken_choices, taken_choices_cap;
	/* optional full trace */
	struct eng_event *events;
	unsigned nevents, events_cap;
	/* coverage of the interleaving (fuzzing): called with a feature hash */
	void (*feature)(uint32_t f);
	/* the store side of a feature names the store's thread and instruction
	 * only, not its step (fuzz/harness.c sets it: a schedule that merely
	 * shifts an unrelated store in time makes no new feature) */
	bool feature_sites;
	/* also a feature per judged read: its read_shape (core/oracle/oracle.h) */
	bool feature_reads;
	/* no trace hash (eng.hash stays at its start value): for a caller that
	 * never reads it (fuzz/harness.c; its four mixes per access were ~5%
	 * of a run). Not reset by eng_init. */
	bool hash_off;
	/* check the scheduler's and the memory model's cached state (the
	 * runnable mask, the count of stores due) against a fresh computation
	 * at every use, aborting with a message on a difference: a cache a
	 * change forgot to invalidate (engine/determinism_test.c sets it).
	 * Not reset by eng_init. */
	bool check_caches;
	/* an observer of the memory model's choices (fuzz/mutate.c maps each
	 * to the access that made it): index, number of options, the one
	 * taken, and the options that would have done what it did (bit per
	 * option, c's among them; eng_choose_alike); NULL: none. Not reset by
	 * eng_init. */
	void (*on_choose)(unsigned index, unsigned n, unsigned c, uint64_t alike);
	/* an observer of each step's pick: the threads it could have picked
	 * (bit per thread), called once the step is counted (eng.steps is its
	 * number). fuzz/mutate.c keeps them: a schedule change at a step
	 * where one thread alone could run changes nothing. NULL: none. Not
	 * reset by eng_init. */
	void (*on_pick)(uint32_t runnable);
	/* reads-from: the last store to each word (direct-mapped by offset),
	 * valid where rf_run holds this run's number (none stored: 0), so
	 * that a run starts without clearing 16 KB */
	uint32_t rf_tag[4096], rf_run[4096], run_no;
	/* RCU */
	struct rcu_head *cb_head, **cb_tail;
	uint64_t cb_seq;
	/* livelock: loads alone after which a thread is reported (0 = off) */
	uint64_t solo_bound;
	void (*on_solo_limit)(unsigned tid);
};

extern struct eng eng;

/* The reads-from table's slot of the word at off (direct-mapped). */
static inline unsigned eng_rf_word(int64_t off)
{
	return ((uint64_t)off >> 3) & (sizeof(eng.rf_tag) / sizeof(eng.rf_tag[0]) - 1);
}

/* Under sc: the source tag of the last store of this run to the word at
 * off (as the reads-from features have it); 0 if none. */
static inline uint32_t eng_rf_source(int64_t off)
{
	unsigned w = eng_rf_word(off);

	return eng.rf_run[w] == eng.run_no ? eng.rf_tag[w] : 0;
}

/* For the watchdog (engine/watchdog.h), read from its own thread: a count
 * that moves with every step, and the running thread (-1: the scheduler). */
#include <stdatomic.h>
extern _Atomic uint64_t eng_heartbeat;
extern _Atomic int eng_running;

/* Set up threads (stacks and the trace buffers are allocated once and
 * kept). -1 on failure. */
int eng_init(unsigned nthreads, void (*body)(unsigned tid), const struct eng_policy *pol,
	     const void *base, size_t size);
/* Run every thread to completion (or stop/limit). Returns the steps taken. */
uint64_t eng_run(void);
/* From a thread: end the whole run after this point (a violation). */
void eng_stop(void);

/* ---- called by the backends (engine/access_sched.h, rcu_sched.h) ---- */
void eng_point(enum eng_kind k);
void eng_note(enum eng_kind k, const void *p, uint64_t before, uint64_t after);

/* A choice among n (0 = what sequential consistency would do), for the
 * memory model: from the policy's given choices, then its seeded stream
 * (half the time 0, else uniform among the others); recorded.
 * eng_choose_alike is the same for a choice some of whose options do the
 * same thing (a store held back or not, decided by four options; an older
 * write of the same value): when eng.on_choose is set (only then),
 * alike(c, n, ctx) gives the options that do what option c does (bit per
 * option, c's included) to the observer, so that the mutator need not try
 * options that make the same run. */
typedef uint64_t eng_alike_fn(unsigned c, unsigned n, const void *ctx);
unsigned eng_choose_alike(unsigned n, eng_alike_fn *alike, const void *ctx);
static inline unsigned eng_choose(unsigned n) { return eng_choose_alike(n, NULL, NULL); }
/* Loads the running thread has made in a row while no other thread could
 * take a step (counted when the livelock check is on); 0 if another can. */
uint64_t eng_alone_loads(void);
/* The current access's source tag (thread, instruction, step), for
 * reads-from coverage. */
uint32_t eng_source(unsigned tid);

/* ---- engine-level primitives used by the run's bodies ---- */
void eng_lock(unsigned id);
void eng_unlock(unsigned id);
/* A lock taken for read (an rwlock's reader): held by any number of
 * readers at once; eng_lock waits until none holds it. */
void eng_read_lock(unsigned id);
void eng_read_unlock(unsigned id);
void eng_synchronize_rcu(void);
/* Run every queued RCU callback now (all threads done: nobody is inside a
 * read-side section). */
void eng_rcu_barrier(void);

static inline bool eng_in_thread(void) { return eng.cur >= 0; }

/* The one hash combiner of the engine: the trace hash (eng.hash) and the
 * features given to eng.feature (a load's reads-from pair, a read's shape). */
static inline uint64_t eng_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0x100000001b3ULL;
}

#endif
