/*
 * fuzz/mutate.h - structural mutations of interleaving scripts, for the
 * AFL++ custom mutator (fuzz/mutator.c) and its tests (docs/fuzzing.md,
 * "The custom mutator").
 *
 * A mutation works on the decoded script, never on its bytes (but for the
 * minority byte-havoc operator, whose result is read leniently): it changes
 * one thing of the program, the initial blocks, the schedule or the memory
 * model's choices, and always emits a script that decodes strictly.
 *
 * The parent is first run once on the engine in-process (mut_set_parent;
 * cached by its bytes): that gives the schedule it actually took, spelled
 * out step by step (its explicit schedule, then the tail the engine drew),
 * the memory model's choices it took, and every load with the store it
 * read from (and, under arm, the choice that picked that store). Schedule
 * mutations edit the spelled-out schedule, so a mutant runs as its parent
 * did up to the edit; reads-from mutations (after RFF, Wolff et al.,
 * ASPLOS 2024) pick a load, preferring reads-from pairs rarely seen in the
 * parents analysed so far, and reorder the schedule (or, under arm, change
 * the load's choice) so that it reads another store.
 *
 * Instructions come from the descriptor tables (instr_desc, core/ops.h):
 * an instruction added to the format is mutated and generated with no
 * change here.
 */
#ifndef FUZZ_MUTATE_H
#define FUZZ_MUTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/run.h"
#include "engine/script.h"
#include "fuzz/parent_cache.h"

/* The operators. Their weights: mut_weight[] (mutate.c). */
enum mut_op {
	MO_TAIL,        /* keep the schedule up to a point; the engine's tail (seeded by the script) after */
	MO_REDRAW,      /* re-draw the schedule after a point: random or PCT, seeded by the mutation */
	MO_PREEMPT,     /* insert, move or remove one preemption point */
	MO_SEGMENT,     /* swap two adjacent schedule segments */
	MO_RF,          /* reads-from: reorder so that a load reads another store (rare pairs first) */
	MO_RF_CHOICE,   /* arm: reads-from chosen directly (the load's choice) */
	MO_CHOICE,      /* arm: one choice, the choices' tail, or the memory model itself */
	MO_INSTR,       /* change one instruction (opcode or one argument) */
	MO_INSERT,      /* insert one instruction */
	MO_DELETE,      /* delete one instruction */
	MO_MOVE,        /* move an instruction to another entry or block */
	MO_BLOCK,       /* an initial block's shape or flags; add or drop a block */
	MO_SPLICE,      /* a thread from another corpus entry (or a random program) */
	MO_GENERATE,    /* a fresh random program (engine/gen.c, as random and PCT exploration), no schedule */
	MO_HAVOC,       /* AFL-style byte mutations, read leniently (the minority) */
	MO_COUNT
};

extern const char *const mut_op_names[MO_COUNT];
extern const unsigned mut_weight[MO_COUNT];

#define MUT_MAX_STEPS 32768       /* steps of a parent's run kept spelled out */
#define MUT_MAX_LOADS 16384
#define MUT_MAX_STORES 16384
#define MUT_PAIR_SLOTS 65536      /* reads-from pair counters (hashed) */

struct mut_load {
	uint32_t step;                /* the engine's step (1-based) */
	uint8_t tid, instr;
	int32_t src;                  /* index into stores[] of the store read; -1: the initial value */
	uint32_t tag;                 /* the store's source tag (engine/sched.h eng_source; 0 initial) */
	int32_t choice;               /* arm: index of the choice that picked the store; -1 none */
	uint16_t nopt;                /* ... and its number of options */
	int64_t off;                  /* byte offset in the segment */
	uint32_t site;                /* hash of (tid, instr, off) */
};

struct mut_store {
	uint32_t step;
	uint8_t tid, instr;
	int64_t off;
	uint32_t site;
};

/* What one run of the parent showed. */
struct mut_parent {
	bool valid;
	uint64_t hash;                /* of the input bytes */
	struct script s;              /* the parent as read, for the target */
	enum run_status status;
	uint8_t steps[MUT_MAX_STEPS]; /* thread of each step */
	uint8_t runnable[MUT_MAX_STEPS];  /* the threads that could have taken it (bit per thread) */
	unsigned nsteps;
	bool complete;                /* steps[] is the whole run */
	uint8_t choices[SCRIPT_MAX_CHOICES];
	uint8_t choice_n[SCRIPT_MAX_CHOICES];  /* the options each had (at least 2; 255 for more) */
	/* the options that do what the one taken did (bit per option;
	 * engine/sched.h eng_choose_alike): a store held back or not, a load
	 * of the same value */
	uint64_t choice_alike[SCRIPT_MAX_CHOICES];
	unsigned nchoices;
	struct mut_load loads[MUT_MAX_LOADS];
	unsigned nloads;
	struct mut_store stores[MUT_MAX_STORES];
	unsigned nstores;
};

struct mutator {
	const struct variant *v;      /* the variant the parents are analysed on */
	char target[SCRIPT_NAME_MAX + 1];  /* the variant name written into mutants */
	unsigned granule_kb, cont;
	uint64_t rng;
	struct mut_parent parent;
	uint32_t pair_count[MUT_PAIR_SLOTS];
	uint64_t seen[4096];          /* parents already counted (hashes, direct-mapped) */
	uint64_t applied[MO_COUNT];   /* mutants made by each operator */
	uint64_t invalid;             /* mutants that did not decode strictly (a bug: must stay 0) */
	uint64_t analyses;            /* parents run (the others came from the cache) */
	struct parent_cache cache;    /* analyses of parents picked before */
	enum mut_op last;             /* the operator of the last mutant */
	/* the last reads-from mutation: the load (its site, and its step in
	 * the parent's run), the store it read (step 0: the initial value)
	 * and, by reordering, the store it is meant to read (site 0: an
	 * older write, by the choice) */
	struct { uint32_t load_site, step, from_step, from_tag, to_site; } rf;
	unsigned weight[MO_COUNT];
	/* scratch */
	struct script w, other;
	uint8_t tmp[MUT_MAX_STEPS], tmp2[MUT_MAX_STEPS];
	unsigned nw;                  /* steps in tmp (the mutant's spelled-out schedule) */
	uint8_t wchoices[SCRIPT_MAX_CHOICES];
	unsigned nwchoices;
};

/* Set up for mutants run as variant target at granule_kb. The analysis
 * runs the parents on that variant if this binary has it, else on
 * "baseline" (a plug-in file or kernel tree: the schedule's shape is what
 * matters). 0, or -1 with a message in err. */
int mut_init(struct mutator *m, const char *target, unsigned granule_kb, uint64_t seed,
	     char *err, size_t errlen);

/* Frees what m holds (the parent cache); m may then be set up again. A
 * zeroed m is fine. */
void mut_fini(struct mutator *m);

/* The parent to mutate: read leniently for the target, and run once (the
 * analysis kept from an earlier pick of the same bytes instead, if there
 * is one: fuzz/parent_cache.h). False if the input is not a script;
 * mut_fuzz then has nothing to mutate. */
bool mut_set_parent(struct mutator *m, const uint8_t *buf, size_t len);

/* One mutant of the parent (op: MO_COUNT for one drawn by weight) into out
 * (room for SCRIPT_MAX_BYTES); add/addlen: another corpus entry for
 * splicing, or NULL. Returns its size, 0 if there is no parent. */
size_t mut_fuzz(struct mutator *m, enum mut_op op, const uint8_t *add, size_t addlen, uint8_t *out);

/* The mutant as a script (after mut_fuzz), for tests. */
const struct script *mut_last_script(const struct mutator *m);

#endif
