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
#define SCRIPT_VERSION 1
#define SCRIPT_MAX_THREADS 4
#define SCRIPT_MAX_INSTRS 32
#define SCRIPT_MAX_BLOCKS 4
#define SCRIPT_MAX_SCHED 8192
#define SCRIPT_NAME_MAX 48
#define SCRIPT_INSTR_BYTES 5
#define SCRIPT_MAX_BYTES (4 + 2 + 1 + SCRIPT_NAME_MAX + 1 + 2 * SCRIPT_MAX_BLOCKS + 1 + 1 + \
			  SCRIPT_MAX_THREADS * (1 + SCRIPT_MAX_INSTRS * SCRIPT_INSTR_BYTES) + 2 + \
			  SCRIPT_MAX_SCHED)

/* Instruction opcodes: 0x10 + enum op for the software writer ops. */
enum {
	SI_READ = 0x01,          /* lockless read: ptep_get_lockless */
	SI_READ_LOCKED = 0x02,   /* ptep_get under the table's PTL */
	SI_TOUCH = 0x03,         /* hardware access (flags 1: a write) */
	SI_GP = 0x04,            /* a grace period: synchronize_rcu + callbacks */
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
	unsigned nblocks;
	struct { uint8_t shape, flags; } block[SCRIPT_MAX_BLOCKS];  /* flags as OPF_* of map */
	uint8_t expect;                      /* 0 none; 1 clean; 2 + enum vkind */
	unsigned nthreads;
	unsigned ninstr[SCRIPT_MAX_THREADS];
	struct instr prog[SCRIPT_MAX_THREADS][SCRIPT_MAX_INSTRS];
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
/* Text form. parse: 0, or -1 with err (offset = line). print writes a
 * NUL-terminated text into out (size at least SCRIPT_TEXT_MAX). */
#define SCRIPT_TEXT_MAX 65536
int script_parse(const char *text, struct script *s, struct script_error *err);
size_t script_print(const struct script *s, char *out, size_t size);
/* Either form: binary if it starts with the magic, else text. */
int script_load(const uint8_t *buf, size_t len, struct script *s, struct script_error *err);

/* Is this instruction valid for granule cont entries and nblocks blocks?
 * Sets why if not. */
bool instr_valid(const struct instr *in, unsigned cont, unsigned nblocks, const char **why);
/* "read", "map", ... ; NULL if not an opcode. */
const char *instr_name(uint8_t op);
unsigned granule_cont(unsigned kb);

#endif
