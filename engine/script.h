/*
 * engine/script.h - interleaving scripts (docs/script-format.md).
 *
 * A script is a configuration (granule, variant, initial block states, the
 * expected outcome), one program per thread, and a schedule. It has a
 * binary form (what AFL++ mutates) and a text form (what people read and
 * write); both decode totally: any input either yields a valid script of
 * bounded size or is rejected with the offset (or line) and a reason.
 * script_encode(script_decode(b)) == b and script_parse(script_print(s))
 * == s for every valid script.
 */
#ifndef ENGINE_SCRIPT_H
#define ENGINE_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ops.h"

#define SCRIPT_MAGIC "CPTS"
#define SCRIPT_VERSION 2          /* written for arm scripts; 1 (sc, no choices) too */
#define SCRIPT_VERSION_SC 1
#define SCRIPT_VERSION_TLB 3      /* version 2 and a TLB section (tlb, bbml2, tlb_entry) */
#define SCRIPT_MAX_TLB_INIT 16    /* tlb_entry lines */
#define SCRIPT_MAX_THREADS 4
#define SCRIPT_MAX_INSTRS 32
#define SCRIPT_MAX_BLOCKS 4
#define SCRIPT_MAX_SCHED 8192
#define SCRIPT_MAX_CHOICES 8192
#define SCRIPT_NAME_MAX 48
#define SCRIPT_SUBJECT_MAX 1024
#define SCRIPT_CAPS_MAX 256
#define SCRIPT_INSTR_BYTES 5
#define SCRIPT_MAX_BYTES (4 + 2 + 1 + SCRIPT_NAME_MAX + 1 + 2 * SCRIPT_MAX_BLOCKS + 1 + 1 + \
			  SCRIPT_MAX_THREADS * (1 + SCRIPT_MAX_INSTRS * SCRIPT_INSTR_BYTES) + \
			  1 + 2 + SCRIPT_MAX_CHOICES + 3 + 4 * SCRIPT_MAX_TLB_INIT + \
			  2 + SCRIPT_MAX_SCHED)

/* Instruction opcodes: 0x10 + enum op for the software writer ops. */
enum {
	SI_READ = 0x01,          /* lockless read: ptep_get_lockless */
	SI_READ_LOCKED = 0x02,   /* ptep_get under the table's PTL */
	SI_TOUCH = 0x03,         /* hardware access (flags 1: a write) */
	SI_GP = 0x04,            /* a grace period: synchronize_rcu + callbacks */
	SI_FAULT = 0x05,         /* a device without hardware AF/DBM accesses an entry
				  * (flags 1: a write), faulting and fixed up (core/fault.h) */
	SI_OP = 0x10,            /* .. SI_OP + OP_COUNT - 1 */
};

struct instr {
	uint8_t op, block, s, n, flags;
};

/* Initial shape of a block. */
enum { BS_NONE, BS_PTES, BS_CONT, BS_HALF, BS_COUNT };

struct script {
	unsigned granule_kb;                 /* 4, 16, 64 */
	char variant[SCRIPT_NAME_MAX + 1];   /* "baseline", a mutant, "plugin", ... */
	/* text form only: what a plugin / kernel_tree variant was built from
	 * (tools/explore writes it, tools/repro reads it), or "" */
	char subject[SCRIPT_SUBJECT_MAX];
	/* text form only: the answers of capability probes the harness does
	 * not model (core/cpu.h), "NAME=0 NAME=1" (cap lines), or "" */
	char caps[SCRIPT_CAPS_MAX];
	unsigned nblocks;
	struct { uint8_t shape, flags; } block[SCRIPT_MAX_BLOCKS];  /* flags as OPF_* of map */
	uint8_t expect;                      /* 0 none; 1 clean; 2 + enum vkind */
	unsigned nthreads;
	unsigned ninstr[SCRIPT_MAX_THREADS];
	struct instr prog[SCRIPT_MAX_THREADS][SCRIPT_MAX_INSTRS];
	uint8_t memory;                      /* enum mem_model: sc, arm (engine/memory.h) */
	/* (docs/script-format.md, docs/tlb.md) a TLB of tlb entries per
	 * thread's hardware accesses (0: no TLB model), its eviction (enum
	 * tlb_evict), and the CPU's BBML2 (enum cpu_bbml2, core/cpu.h: none,
	 * BBML2_NOABORT, or BBML2 that may abort); binary version 3 */
	uint8_t tlb, tlb_evict;
	uint8_t bbml2;
	/* the TLBs' contents at the start: thread's TLB holds the translation
	 * a hardware access (flags bit0: a write) to entry of block caches,
	 * walked after the blocks are made (tlb_entry lines) */
	unsigned ntlb_init;
	struct script_tlb_init { uint8_t thread, block, entry, flags; } tlb_init[SCRIPT_MAX_TLB_INIT];
	unsigned nchoices;                   /* arm: the model's choices, in order */
	uint8_t choices[SCRIPT_MAX_CHOICES];
	unsigned nsched;
	uint8_t sched[SCRIPT_MAX_SCHED];     /* thread | (run - 1) << 3 */
};

#define EXPECT_NONE 0
#define EXPECT_CLEAN 1
#define EXPECT_KIND(k) (2 + (k))

struct script_error {
	size_t offset;       /* binary: byte offset; text: line number */
	char reason[160];
};

/* Binary form. decode: 0, or -1 with err set. encode returns the size (at
 * most SCRIPT_MAX_BYTES). */
int script_decode(const uint8_t *buf, size_t len, struct script *s, struct script_error *err);
size_t script_encode(const struct script *s, uint8_t *out);

/* The binary reader behind script_decode, in either mode. Strict rejects
 * any invalid field; lenient (what fuzzing reads mutated bytes with)
 * repairs out-of-range fields instead, fitting instructions to blocks of
 * cont entries (0: the script's own granule's), so that almost every byte
 * string with the magic, version and a variant name is a script. A valid
 * script reads the same either way; what the lenient reading gives always
 * re-encodes to bytes that decode strictly. 0, or -1 with err set. */
enum script_mode { SCRIPT_STRICT, SCRIPT_LENIENT };
int script_walk(const uint8_t *buf, size_t len, enum script_mode mode, unsigned cont,
		struct script *s, struct script_error *err);

/* The lenient reading as bytes (crash files, the decoder's own checks):
 * true with the canonical script's encoding in out (room for
 * SCRIPT_MAX_BYTES + 1); false if the input is not read as a script, with
 * out holding it unchanged (at most SCRIPT_MAX_BYTES + 1 bytes). */
bool script_canonical(const uint8_t *in, size_t len, uint8_t *out, size_t *outlen, unsigned cont);

/* The seed of a script's schedule tail (docs/script-format.md): a hash of
 * its binary form with the variant name and the expectation left out (the
 * fuzz harness replaces the variant), so the same script always continues
 * the same way. Never 0. */
uint64_t script_tail_seed(const struct script *s);
/* Text form. parse: 0, or -1 with err (offset = line). print writes a
 * NUL-terminated text into out (size at least SCRIPT_TEXT_MAX). */
#define SCRIPT_TEXT_MAX 65536
int script_parse(const char *text, struct script *s, struct script_error *err);
size_t script_print(const struct script *s, char *out, size_t size);
/* Either form: binary if it starts with the magic, else text. */
int script_load(const uint8_t *buf, size_t len, struct script *s, struct script_error *err);

/* The script on another granule with its meaning kept: every entry and
 * range scaled to the same part of the block (a whole block stays whole,
 * a half a half, an entry inside a range inside it); the schedule is left
 * as it is. For seeds written at one granule and run at another
 * (script_asm --granule). */
void script_regranule(struct script *s, unsigned granule_kb);

/* The schedule a run took (and under the arm model the choices it took)
 * as s's own, each cut to what a script holds: the program saved so that
 * it replays that run (explore's violations, the watchdog's hangs). */
void script_set_taken(struct script *s, const uint8_t *taken, unsigned ntaken,
		      const uint8_t *choices, unsigned nchoices);

/* The same, only if all of it fits (false, s unchanged, if not): a
 * program that replays the run exactly, the choices its tail stream would
 * draw differently once the schedule's bytes change included (shrink's
 * spelled-out schedule, fuzztool gen's programs). */
bool script_take_whole(struct script *s, const uint8_t *taken, unsigned ntaken,
		       const uint8_t *choices, unsigned nchoices);

/* Is this instruction valid for granule cont entries and nblocks blocks?
 * Sets why if not. */
bool instr_valid(const struct instr *in, unsigned cont, unsigned nblocks, const char **why);
/* "read", "map", ... ; NULL if not an opcode. */
const char *instr_name(uint8_t op);
/* What an opcode takes (core/ops.h's descriptor; for writer ops, the op's
 * own row of op_desc[]); NULL if not an opcode. */
const struct op_desc *instr_desc(uint8_t op);

#endif
