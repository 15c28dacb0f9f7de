/* AArch64 litmus tests (a small subset of herd7's .litmus syntax) parsed
 * into an IR for the deterministic engine's weak-memory mode.
 *
 * The front-end interprets each thread's register data flow statically:
 * what reaches the IR is only the memory accesses and the fences, with
 * the location each access touches, the value each store writes (a
 * constant or the value a named earlier load returned), and the
 * dependencies (address, data, control, control+ISB) as bitmasks of the
 * thread's earlier LOAD instructions. The engine executes this IR; it
 * never evaluates MOV/EOR/ADD or branches itself.
 *
 * Instruction indices: a thread's IR is an array of lit_insn; fences are
 * instructions too. A dependency mask has bit i set when the access
 * depends on the load at index i of the same array.
 *
 * The subset and the file convention: engine/litmus/README.md. */
#ifndef LITMUS_H
#define LITMUS_H

#include <stdbool.h>
#include <stdint.h>

#define LIT_MAX_THREADS 4
#define LIT_MAX_LOCS 4
#define LIT_MAX_INSNS 16 /* IR instructions per thread (fences included) */
#define LIT_NREGS 31     /* X0..X30 (W0..W30 are their low halves) */
#define LIT_MAX_TERMS 8  /* conjuncts in the final condition */
#define LIT_NAME_MAX 64
#define LIT_META_MAX 200

enum lit_op { LIT_LOAD, LIT_STORE, LIT_FENCE };

/* Ordering of an access: LDR/STR plain, LDAR acquire (RCsc), LDAPR
 * acquire-PC (RCpc), STLR release. */
enum lit_order { LIT_PLAIN, LIT_ACQ, LIT_ACQ_PC, LIT_REL };

/* DMB SY / DMB ISH (full), DMB LD / ISHLD, DMB ST / ISHST, ISB. */
enum lit_fence { LIT_DMB_FULL, LIT_DMB_LD, LIT_DMB_ST, LIT_ISB };

struct lit_insn {
	enum lit_op op;
	enum lit_order order; /* accesses */
	enum lit_fence fence; /* fences */
	int loc;              /* accesses: location index (lit_test.loc_name) */
	int dst;              /* loads: destination register number */
	/* Stores: the value written is val when val_load < 0, else the value
	 * returned by the load at index val_load (a register copy). */
	int val_load;
	uint64_t val;
	/* Earlier loads (bit i = insn i) this access depends on:
	 *   addr_deps     through the address registers,
	 *   data_deps     through the stored register (stores),
	 *   ctrl_deps     through a CBZ/CBNZ register earlier in the thread,
	 *   ctrlisb_deps  the subset of ctrl_deps with an ISB between that
	 *                 branch and this access (orders later loads). */
	uint32_t addr_deps, data_deps, ctrl_deps, ctrlisb_deps;
	int line; /* in the source file */
};

/* A register's final content, known statically except for load values. */
enum lit_rkind { LIT_R_CONST, LIT_R_LOAD, LIT_R_ADDR };
struct lit_reg {
	enum lit_rkind kind;
	uint64_t val; /* LIT_R_CONST */
	int load;     /* LIT_R_LOAD: index of the load whose value it holds */
	int loc;      /* LIT_R_ADDR: holds the address of this location */
};

enum lit_quant { LIT_EXISTS, LIT_NOT_EXISTS, LIT_FORALL };
enum lit_verdict { LIT_UNKNOWN, LIT_ALLOWED, LIT_FORBIDDEN };

/* One conjunct: thread:register = value, or location = value (thread -1). */
struct lit_term {
	int thread; /* -1: memory term */
	int reg;    /* register number, or location index for memory terms */
	uint64_t val;
};

struct lit_test {
	char name[LIT_NAME_MAX];
	int nthreads, nlocs;
	char loc_name[LIT_MAX_LOCS][8];
	uint64_t loc_init[LIT_MAX_LOCS];
	int ninsns[LIT_MAX_THREADS];
	struct lit_insn insn[LIT_MAX_THREADS][LIT_MAX_INSNS];
	struct lit_reg reg_final[LIT_MAX_THREADS][LIT_NREGS];

	enum lit_quant quant;
	int nterms;
	struct lit_term term[LIT_MAX_TERMS]; /* conjunction */

	/* Metadata from the header lines (README.md, "File convention"). */
	char shape[LIT_NAME_MAX];        /* Shape=MP */
	enum lit_verdict verdict;        /* Herd7=Allowed|Forbidden (else UNKNOWN) */
	char catalogue[LIT_META_MAX];    /* Catalogue=path|none */
	char kinds[LIT_META_MAX];        /* Kinds=file: line|none */
	char confirmed[LIT_META_MAX];    /* Confirmed=herd7|kinds|herd7+kinds */
};

/* Parses `text` (the file's contents; `file` only names it in messages).
 * Returns 0 and fills *t, or -1 with "file:line: message" in err. */
int lit_parse(const char *file, const char *text, struct lit_test *t,
	      char *err, int errlen);
/* Reads and parses a file. */
int lit_parse_file(const char *path, struct lit_test *t, char *err, int errlen);

/* Final register values from the values the loads returned:
 * load_val[th][i] is the value returned by insn i of thread th (only read
 * for loads); loc_addr[l] is what a register holding location l's
 * address should read as (any distinct values; conditions never test
 * them). */
void lit_final_regs(const struct lit_test *t,
		    const uint64_t load_val[LIT_MAX_THREADS][LIT_MAX_INSNS],
		    const uint64_t loc_addr[LIT_MAX_LOCS],
		    uint64_t regs[LIT_MAX_THREADS][LIT_NREGS]);

/* Does the condition's proposition (the conjunction, without its
 * quantifier) hold for these final registers and memory values? The
 * engine calls this after each run. A test's outcome over many runs:
 *   exists / ~exists: the proposition held in some run ("observed");
 *   forall: it held in every run.
 * herd7's Allowed means "observable", Forbidden "never observed". */
bool lit_cond_holds(const struct lit_test *t,
		    const uint64_t regs[LIT_MAX_THREADS][LIT_NREGS],
		    const uint64_t mem[LIT_MAX_LOCS]);

/* Text names, for messages and dumps. */
const char *lit_order_name(enum lit_order o);
const char *lit_fence_name(enum lit_fence f);
/* Writes a readable dump of the IR (one line an instruction). */
void lit_dump(const struct lit_test *t, void *file /* FILE * */);

#endif
