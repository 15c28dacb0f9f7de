/*
 * stage2/engine/prog.h - stage-2 programs for the deterministic engine: a
 * configuration, a set-up (the table's state before the run, made by the
 * tree's own code outside any thread), up to four threads' instructions
 * (the ops of stage2/runtime/agents.h), the expected outcome, and the
 * schedule and memory-model choices a run took, so that a saved program
 * replays that run bit for bit. The text form (docs/stage2.md, "Scripts"):
 *
 *   stage2 script
 *   granule 4k
 *   memory sc                    sc | arm
 *   age-lock write               write | read | none
 *   age-rcu on   hw-af on   tlb 4   fwb on   tlb-range on   reuse quarantine   blocks 2
 *   setup map-block u0           map-block U | map-page IPA | split U | log U | log-off U
 *   thread 0 access u0+3 w       one instruction a line, in program order
 *   thread 2 unmap u0+0 block
 *   expect use_after_free        a kind, or clean
 *   schedule 00 08 11 ...        run-length bytes (thread | (run - 1) << 3)
 *   choices 01 00 ...
 *
 * An IPA is u<unit>+<page> (the window's unit and a page in it), a size Np
 * (pages), block or all: the same program means the same at every granule.
 */
#ifndef STAGE2_ENGINE_PROG_H
#define STAGE2_ENGINE_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stage2/runtime/vm.h"

#define S2P_THREADS 4
#define S2P_INSTRS 12
#define S2P_SETUP 16
#define S2P_SCHED 8192
#define S2P_CHOICES 8192

enum s2p_op {
	S2I_ACCESS, S2I_FAULT, S2I_PERM, S2I_MKYOUNG, S2I_REMAP,
	S2I_UNMAP, S2I_WRPROTECT, S2I_SPLIT, S2I_FLUSH, S2I_LOG_OFF, S2I_MIGRATE,
	S2I_AGE, S2I_TEST_AGE, S2I_GP, S2I_COUNT
};

enum s2p_setup { S2S_MAP_BLOCK, S2S_MAP_PAGE, S2S_SPLIT, S2S_LOG, S2S_LOG_OFF, S2S_COUNT };

/* An address of the window: unit and page in it. A size: pages, or
 * (npages 0) a whole unit (block), or (npages ~0) the whole window. */
struct s2p_addr { uint8_t unit; uint32_t page; };
#define S2P_SIZE_BLOCK 0u
#define S2P_SIZE_ALL 0xffffffffu

struct s2p_instr {
	uint8_t op;             /* enum s2p_op */
	bool write;
	struct s2p_addr at;
	uint32_t npages;
};

struct s2p_setup_op { uint8_t op; struct s2p_addr at; };

struct s2_prog {
	unsigned granule_kb;
	uint8_t memory;         /* enum mem_model */
	enum s2_age_lock age_lock;
	bool age_rcu, hw_af, fwb, tlb_range;
	bool ttl_ignored;       /* "tlb-hints off": TLBI level hints ignored */
	unsigned tlb;
	enum s2_reuse reuse;
	unsigned blocks;
	unsigned age_pages;     /* aging ranges of the generator and the AFL++ harness: at most this many pages (0: any) */
	unsigned nsetup;
	struct s2p_setup_op setup[S2P_SETUP];
	unsigned nthreads;
	unsigned ninstr[S2P_THREADS];
	struct s2p_instr prog[S2P_THREADS][S2P_INSTRS];
	int expect;             /* -1 none; 0 clean; else enum s2_vkind */
	char tree[512];         /* what it ran on (text only) */
	unsigned nsched, nchoices;
	uint8_t sched[S2P_SCHED];
	uint8_t choices[S2P_CHOICES];
};

/* Text form: parse (0, or -1 with a message naming the line in err),
 * print (into out, size at least S2P_TEXT_MAX). */
#define S2P_TEXT_MAX 65536
int s2p_parse(const char *text, struct s2_prog *p, char *err, size_t errlen);
size_t s2p_print(const struct s2_prog *p, char *out, size_t size);

/* A random program from seed: a set-up and threads whose ops race over
 * one or two units (a vCPU, a faulting vCPU, the exclusive side, the
 * ager), the configuration taken from base. */
void s2p_generate(struct s2_prog *p, const struct s2_prog *base, uint64_t seed);
/* p's aging ops over at most p->age_pages pages each (0: as they are). */
void s2p_cap_aging(struct s2_prog *p);

const char *s2p_op_name(unsigned op);
/* What an op takes: an address (a), a size (s), r|w (w), a unit (u). */
const char *s2p_op_args(unsigned op);
/* Pages a unit holds at this granule (a level-2 block of pages). */
unsigned s2p_unit_pages(unsigned granule_kb);

/* A configuration flag of the command lines (--memory=, --age-lock=,
 * --age-rcu=, --hw-af=, --tlb=, --fwb=, --tlb-range=, --tlb-hints=,
 * --reuse=, --age-pages=, --blocks=) into p: 1 taken, 0 not one, -1 a bad
 * value. */
int s2p_config_flag(const char *arg, struct s2_prog *p);

#endif
