/* engine/script.c - the script format (see engine/script.h and
 * docs/script-format.md). */
#include "engine/script.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/violation.h"
#include "engine/memory.h"

static const char *const shape_names[BS_COUNT] = { "none", "ptes", "cont", "half" };

/* Instructions that are not writer ops, described like the ops of
 * core/ops.c (name, argument shape, flags and their words). */
static const struct op_word touch_words[] = { { "write", 1, 1 }, { NULL, 0, 0 } };
static const struct op_desc non_op_instrs[SI_OP] = {
	[SI_READ] = { .name = "read", .shape = OP_SHAPE_ENTRY },
	[SI_READ_LOCKED] = { .name = "read_locked", .shape = OP_SHAPE_ENTRY },
	[SI_TOUCH] = { .name = "touch", .shape = OP_SHAPE_ENTRY, .flags = 1, .words = touch_words },
	[SI_GP] = { .name = "gp", .shape = OP_SHAPE_NONE },
	[SI_FAULT] = { .name = "fault", .shape = OP_SHAPE_ENTRY, .flags = 1, .words = touch_words },
};

const struct op_desc *instr_desc(uint8_t op)
{
	if (op >= SI_OP && op < SI_OP + OP_COUNT)
		return &op_desc[op - SI_OP];
	if (op < SI_OP && non_op_instrs[op].name)
		return &non_op_instrs[op];
	return NULL;
}

const char *instr_name(uint8_t op)
{
	const struct op_desc *d = instr_desc(op);

	return d ? d->name : NULL;
}

/* Entry e of a block of from entries, as one of to entries: the same
 * place in the block, so that an entry inside a range stays inside it. */
static unsigned scale_entry(unsigned e, unsigned from, unsigned to)
{
	return e * to / from;
}

void script_set_taken(struct script *s, const uint8_t *taken, unsigned ntaken,
		      const uint8_t *choices, unsigned nchoices)
{
	s->nsched = ntaken < SCRIPT_MAX_SCHED ? ntaken : SCRIPT_MAX_SCHED;
	memcpy(s->sched, taken, s->nsched);
	if (s->memory == MEM_ARM) {
		s->nchoices = nchoices < SCRIPT_MAX_CHOICES ? nchoices : SCRIPT_MAX_CHOICES;
		memcpy(s->choices, choices, s->nchoices);
	}
}

bool script_take_whole(struct script *s, const uint8_t *taken, unsigned ntaken,
		       const uint8_t *choices, unsigned nchoices)
{
	if (ntaken > SCRIPT_MAX_SCHED || (s->memory == MEM_ARM && nchoices > SCRIPT_MAX_CHOICES))
		return false;
	script_set_taken(s, taken, ntaken, choices, nchoices);
	return true;
}

void script_regranule(struct script *s, unsigned granule_kb)
{
	unsigned from = granule_cont(s->granule_kb), to = granule_cont(granule_kb);

	for (unsigned t = 0; t < s->nthreads; t++)
		for (unsigned i = 0; i < s->ninstr[t]; i++) {
			struct instr *in = &s->prog[t][i];
			const struct op_desc *d = instr_desc(in->op);

			if (!d || d->shape == OP_SHAPE_NONE)
				continue;
			if (d->shape == OP_SHAPE_RANGE) {
				/* [s, s + n) to the smallest range over the same part */
				unsigned end = ((in->s + in->n) * to + from - 1) / from;

				in->s = (uint8_t)scale_entry(in->s, from, to);
				in->n = (uint8_t)(end - in->s);
			} else {
				in->s = (uint8_t)scale_entry(in->s, from, to);
			}
		}
	for (unsigned k = 0; k < s->ntlb_init; k++)
		s->tlb_init[k].entry = (uint8_t)scale_entry(s->tlb_init[k].entry, from, to);
	s->granule_kb = granule_kb;
}

bool instr_valid(const struct instr *in, unsigned cont, unsigned nblocks, const char **why)
{
	const struct op_desc *d = instr_desc(in->op);

	if (!d) {
		*why = "unknown opcode";
		return false;
	}
	if (in->flags & ~d->flags) {
		*why = "flags not valid for this instruction";
		return false;
	}
	switch (d->shape) {
	case OP_SHAPE_ENTRY:
		if (in->block >= nblocks) { *why = "block out of range"; return false; }
		if (in->s >= cont) { *why = "entry out of range for the granule"; return false; }
		if (in->n) { *why = "count must be 0 for a one-entry instruction"; return false; }
		return true;
	case OP_SHAPE_RANGE:
		if (in->block >= nblocks) { *why = "block out of range"; return false; }
		if (in->s >= cont || in->n == 0 || in->n > cont - in->s) {
			*why = "entry range out of the block";
			return false;
		}
		return true;
	default:
		if (in->block || in->s || in->n) {
			*why = "this instruction takes no arguments";
			return false;
		}
		return true;
	}
}

static bool name_ok(const char *s, size_t n)
{
	if (n == 0 || n > SCRIPT_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

static int fail(struct script_error *err, size_t off, const char *fmt, ...)
{
	va_list ap;

	err->offset = off;
	va_start(ap, fmt);
	vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	va_end(ap);
	return -1;
}

/* Checks shared by both forms, once the script is read. */
static int validate(const struct script *s, struct script_error *err, size_t off)
{
	unsigned cont = granule_cont(s->granule_kb);
	const char *why;

	if (!cont)
		return fail(err, off, "granule must be 4k, 16k or 64k");
	for (unsigned b = 0; b < s->nblocks; b++) {
		if (s->block[b].shape >= BS_COUNT)
			return fail(err, off, "block %u: unknown shape %u", b, s->block[b].shape);
		if (s->block[b].flags & ~(OPF_YOUNG | OPF_DIRTY | OPF_PROT_MASK))
			return fail(err, off, "block %u: flags 0x%x not valid (young, dirty, prot)",
				    b, s->block[b].flags);
		if (s->block[b].shape == BS_NONE && s->block[b].flags)
			return fail(err, off, "block %u: an empty block has no flags", b);
	}
	if (s->expect == EXPECT_KIND(VK_NONE) || s->expect > EXPECT_KIND(VK_COUNT - 1))
		return fail(err, off, "unknown expected outcome %u", s->expect);
	for (unsigned t = 0; t < s->nthreads; t++)
		for (unsigned i = 0; i < s->ninstr[t]; i++)
			if (!instr_valid(&s->prog[t][i], cont, s->nblocks, &why))
				return fail(err, off, "thread %u instruction %u (%s): %s", t, i,
					    instr_name(s->prog[t][i].op) ? instr_name(s->prog[t][i].op) : "?",
					    why);
	for (unsigned i = 0; i < s->nsched; i++)
		if ((s->sched[i] & 7) >= s->nthreads)
			return fail(err, off, "schedule entry %u names thread %u of %u", i,
				    s->sched[i] & 7, s->nthreads);
	if (s->memory >= MEM_MODEL_COUNT)
		return fail(err, off, "unknown memory model %u (0 sc, 1 arm)", s->memory);
	if (s->memory == MEM_SC && s->nchoices)
		return fail(err, off, "choices are for the arm memory model; this script is sc");
	if (s->tlb_evict > 1 || (s->tlb_evict && !s->tlb))
		return fail(err, off, "TLB eviction %u (0 lru, 1 random; random needs a TLB)", s->tlb_evict);
	if (s->ntlb_init > SCRIPT_MAX_TLB_INIT)
		return fail(err, off, "%u tlb_entry lines (at most %d)", s->ntlb_init, SCRIPT_MAX_TLB_INIT);
	if (s->ntlb_init && !s->tlb)
		return fail(err, off, "tlb_entry needs a TLB (a tlb line)");
	for (unsigned i = 0; i < s->ntlb_init; i++)
		if (s->tlb_init[i].thread >= s->nthreads || s->tlb_init[i].block >= s->nblocks ||
		    s->tlb_init[i].entry >= cont || s->tlb_init[i].flags & ~1u)
			return fail(err, off, "tlb_entry %u: thread %u block %u entry %u flags %u (valid: a thread, a block, an entry of %u, flags 0-1)",
				    i, s->tlb_init[i].thread, s->tlb_init[i].block, s->tlb_init[i].entry,
				    s->tlb_init[i].flags, cont);
	return 0;
}

/* ---- binary ----------------------------------------------------------- */

/* The lenient reading's repairs (docs/script-format.md, fuzz/ uses them):
 * a count or choice out of range is brought into it, leaving valid values
 * as they are. */
static unsigned in_range(unsigned x, unsigned lo, unsigned hi)
{
	return x >= lo && x <= hi ? x : lo + x % (hi - lo + 1);
}

/* An unknown opcode becomes the (op % number of opcodes)-th opcode in
 * increasing order: the non-op instructions, then the writer ops. */
static uint8_t fit_opcode(uint8_t op)
{
	unsigned n = 0, k;

	for (unsigned i = 1; i < SI_OP; i++)
		n += non_op_instrs[i].name != NULL;
	k = op % (n + OP_COUNT);
	if (k >= n)
		return (uint8_t)(SI_OP + k - n);
	for (unsigned i = 1; i < SI_OP; i++)
		if (non_op_instrs[i].name && k-- == 0)
			return (uint8_t)i;
	return SI_READ;
}

static void fit_instr(struct instr *in, unsigned nblocks, unsigned cont)
{
	const struct op_desc *d;

	if (!instr_desc(in->op))
		in->op = fit_opcode(in->op);
	d = instr_desc(in->op);
	in->flags &= d->flags;
	if (d->shape == OP_SHAPE_NONE) {
		in->block = in->s = in->n = 0;
		return;
	}
	if (in->block >= nblocks)
		in->block = (uint8_t)(in->block % nblocks);
	if (in->s >= cont)
		in->s = (uint8_t)(in->s % cont);
	if (d->shape == OP_SHAPE_ENTRY)
		in->n = 0;
	else if (in->n == 0 || in->n > cont - in->s)
		in->n = (uint8_t)(1 + in->n % (cont - in->s));
}

/*
 * The one reader of the binary form. Strict: every field must be valid,
 * or the input is rejected with the byte offset and a reason. Lenient: an
 * input with the magic, the version and a variant name is read field by
 * field, each out-of-range field repaired (as in_range/fit_instr say; the
 * schedule is whatever bytes follow its length field, and an input that
 * ends inside a thread's instructions ends that thread's program there),
 * then checked like a strict one. A valid script reads the same in both
 * modes.
 */
int script_walk(const uint8_t *buf, size_t len, enum script_mode mode, unsigned cont,
		struct script *s, struct script_error *err)
{
	const bool lenient = mode == SCRIPT_LENIENT;
	size_t o = 0;

/* Lenient inputs too short to repair are what they are: the strict
 * reading says why they are not scripts. */
#define AS_STRICT() script_walk(buf, len, SCRIPT_STRICT, 0, s, err)
#define NEED(n, what) do { if (len - o < (size_t)(n)) return lenient ? AS_STRICT() : \
	fail(err, o, "truncated: %s needs %zu byte(s), %zu left", what, (size_t)(n), len - o); } while (0)
	if (lenient && (len < 8 || memcmp(buf, SCRIPT_MAGIC, 4) ||
			buf[4] < SCRIPT_VERSION_SC || buf[4] > SCRIPT_VERSION_TLB ||
			buf[6] == 0 || buf[6] > SCRIPT_NAME_MAX || len < 8u + buf[6]))
		return AS_STRICT();
	/* all but the choices' and the schedule's 16 KB, which are read up to
	 * their counts only (the fuzz harness decodes every input) */
	memset(s, 0, offsetof(struct script, choices));
	s->nsched = 0;
	NEED(6, "header");
	if (memcmp(buf, SCRIPT_MAGIC, 4))
		return fail(err, 0, "not a script (magic is not \"" SCRIPT_MAGIC "\")");
	if (buf[4] < SCRIPT_VERSION_SC || buf[4] > SCRIPT_VERSION_TLB)
		return fail(err, 4, "version %u not supported (this build reads %u-%u)", buf[4],
			    SCRIPT_VERSION_SC, SCRIPT_VERSION_TLB);
	s->granule_kb = buf[5];
	if (!granule_cont(s->granule_kb)) {
		if (!lenient)
			return fail(err, 5, "granule %u KB (valid: 4, 16, 64)", buf[5]);
		s->granule_kb = 4;
	}
	if (!cont)
		cont = granule_cont(s->granule_kb);
	o = 6;
	NEED(1, "variant name length");
	size_t nl = buf[o++];
	NEED(nl, "variant name");
	if (lenient) {
		static const char namechars[] = "abcdefghijklmnopqrstuvwxyz0123456789_";

		for (size_t i = 0; i < nl; i++)
			s->variant[i] = name_ok((const char *)buf + o + i, 1) ? (char)buf[o + i]
				      : namechars[buf[o + i] % (sizeof(namechars) - 1)];
	} else {
		if (!name_ok((const char *)buf + o, nl))
			return fail(err, o - 1, "variant name: 1-%d characters of [a-z0-9_]", SCRIPT_NAME_MAX);
		memcpy(s->variant, buf + o, nl);
	}
	o += nl;
	NEED(1, "block count");
	s->nblocks = buf[o];
	if (lenient) {
		/* as many as asked (1-4) and present */
		s->nblocks = in_range(s->nblocks, 1, SCRIPT_MAX_BLOCKS);
		if ((len - o - 1) / 2 < s->nblocks)
			s->nblocks = (unsigned)((len - o - 1) / 2);
		if (!s->nblocks)
			return AS_STRICT();
	} else if (s->nblocks < 1 || s->nblocks > SCRIPT_MAX_BLOCKS) {
		return fail(err, o, "block count %u (valid: 1-%d)", s->nblocks, SCRIPT_MAX_BLOCKS);
	}
	o++;
	NEED(2 * s->nblocks, "block states");
	for (unsigned b = 0; b < s->nblocks; b++) {
		s->block[b].shape = buf[o++];
		s->block[b].flags = buf[o++];
		if (lenient) {
			s->block[b].shape = (uint8_t)in_range(s->block[b].shape, 0, BS_COUNT - 1);
			s->block[b].flags = s->block[b].shape == BS_NONE ? 0 :
					    s->block[b].flags & (OPF_YOUNG | OPF_DIRTY | OPF_PROT_MASK);
		}
	}
	NEED(2, "expect and thread count");
	s->expect = buf[o++];
	s->nthreads = buf[o];
	if (lenient) {
		if (s->expect > EXPECT_KIND(VK_COUNT - 1) || s->expect == EXPECT_KIND(VK_NONE))
			s->expect = EXPECT_NONE;
		s->nthreads = in_range(s->nthreads, 1, SCRIPT_MAX_THREADS);
	} else if (s->nthreads < 1 || s->nthreads > SCRIPT_MAX_THREADS) {
		return fail(err, o, "thread count %u (valid: 1-%d)", s->nthreads, SCRIPT_MAX_THREADS);
	}
	o++;
	for (unsigned t = 0; t < s->nthreads; t++) {
		size_t avail;

		if (lenient && o >= len) {          /* no count for thread t: t threads */
			if (!t)
				return AS_STRICT();
			s->nthreads = t;
			break;
		}
		NEED(1, "instruction count");
		s->ninstr[t] = buf[o];
		if (lenient) {
			s->ninstr[t] = in_range(s->ninstr[t], 0, SCRIPT_MAX_INSTRS);
			avail = (len - o - 1) / SCRIPT_INSTR_BYTES;
			if (avail < s->ninstr[t]) {  /* the input ends inside this thread */
				s->ninstr[t] = (unsigned)avail;
				s->nthreads = t + 1;
			}
		} else if (s->ninstr[t] > SCRIPT_MAX_INSTRS) {
			return fail(err, o, "thread %u: %u instructions (at most %d)", t, s->ninstr[t],
				    SCRIPT_MAX_INSTRS);
		}
		o++;
		NEED(SCRIPT_INSTR_BYTES * s->ninstr[t], "instructions");
		for (unsigned i = 0; i < s->ninstr[t]; i++, o += SCRIPT_INSTR_BYTES) {
			struct instr *in = &s->prog[t][i];

			in->op = buf[o];
			in->block = buf[o + 1];
			in->s = buf[o + 2];
			in->n = buf[o + 3];
			in->flags = buf[o + 4];
			if (lenient)
				fit_instr(in, s->nblocks, cont);
		}
	}
	if (buf[4] >= SCRIPT_VERSION) {
		/* version 2: the memory model and its choices */
		NEED(3, "memory model and choice count");
		s->memory = buf[o];
		s->nchoices = buf[o + 1] | (unsigned)buf[o + 2] << 8;
		if (lenient) {
			size_t avail = len - o - 3;

			s->memory = (uint8_t)in_range(s->memory, 0, MEM_MODEL_COUNT - 1);
			if (s->nchoices > SCRIPT_MAX_CHOICES)
				s->nchoices = SCRIPT_MAX_CHOICES;
			if (s->nchoices > avail)
				s->nchoices = (unsigned)avail;
		} else if (s->nchoices > SCRIPT_MAX_CHOICES) {
			return fail(err, o + 1, "%u choices (at most %d)", s->nchoices, SCRIPT_MAX_CHOICES);
		} else if (buf[4] == SCRIPT_VERSION && s->memory == MEM_SC && !s->nchoices) {
			/* what the encoder writes as version 1: one script, one encoding */
			return fail(err, o, "version 2 with the sc model and no choices (written as version 1)");
		}
		o += 3;
		NEED(s->nchoices, "choices");
		memcpy(s->choices, buf + o, s->nchoices);
		o += s->nchoices;
		if (lenient && s->memory == MEM_SC)
			s->nchoices = 0;
	}
	if (buf[4] == SCRIPT_VERSION_TLB) {
		/* version 3: the TLB model and the TLBs' initial contents */
		NEED(3, "TLB size, flags and entry count");
		s->tlb = buf[o];
		s->tlb_evict = buf[o + 1] & 1;
		s->bbml2 = buf[o + 1] >> 1 & 3;   /* enum cpu_bbml2 */
		s->ntlb_init = buf[o + 2];
		if (lenient) {
			size_t avail = (len - o - 3) / 4;

			if (!s->tlb)
				s->tlb_evict = 0;
			if (s->bbml2 > CPU_BBML2_ABORT)
				s->bbml2 = CPU_BBML2_ABORT;
			s->ntlb_init = s->tlb ? in_range(s->ntlb_init, 0, SCRIPT_MAX_TLB_INIT) : 0;
			if (s->ntlb_init > avail)
				s->ntlb_init = (unsigned)avail;
		} else if ((buf[o + 1] & ~7u) || s->bbml2 > CPU_BBML2_ABORT) {
			return fail(err, o + 1, "TLB flags 0x%x (bit0 random eviction, bits 1-2 bbml2: 1 noabort, 2 abort)",
				    buf[o + 1]);
		} else if (!s->tlb && !s->bbml2) {
			/* what the encoder writes as version 1 or 2: one script, one encoding */
			return fail(err, o, "a TLB section with no TLB and no bbml2 (written as version 1 or 2)");
		} else if (s->ntlb_init > SCRIPT_MAX_TLB_INIT) {
			return fail(err, o + 2, "%u TLB entries (at most %d)", s->ntlb_init, SCRIPT_MAX_TLB_INIT);
		}
		o += 3;
		NEED(4 * s->ntlb_init, "TLB entries");
		for (unsigned i = 0; i < s->ntlb_init; i++, o += 4) {
			s->tlb_init[i].thread = buf[o];
			s->tlb_init[i].block = buf[o + 1];
			s->tlb_init[i].entry = buf[o + 2];
			s->tlb_init[i].flags = buf[o + 3];
			if (lenient) {
				s->tlb_init[i].thread %= s->nthreads;
				s->tlb_init[i].block %= s->nblocks;
				s->tlb_init[i].entry %= cont;
				s->tlb_init[i].flags &= 1;
			}
		}
	}
	if (lenient) {
		/* the schedule: the bytes after the length field, whatever it says */
		size_t n = len >= o + 2 ? len - o - 2 : 0;

		s->nsched = (unsigned)(n > SCRIPT_MAX_SCHED ? SCRIPT_MAX_SCHED : n);
		for (unsigned i = 0; i < s->nsched; i++) {
			uint8_t e = buf[o + 2 + i], t = e & 7;

			s->sched[i] = t < s->nthreads ? e : (uint8_t)((e & ~7u) | t % s->nthreads);
		}
		return validate(s, err, 0);
	}
	NEED(2, "schedule length");
	s->nsched = buf[o] | (unsigned)buf[o + 1] << 8;
	if (s->nsched > SCRIPT_MAX_SCHED)
		return fail(err, o, "schedule of %u entries (at most %d)", s->nsched, SCRIPT_MAX_SCHED);
	o += 2;
	NEED(s->nsched, "schedule");
	memcpy(s->sched, buf + o, s->nsched);
	o += s->nsched;
	if (o != len)
		return fail(err, o, "%zu trailing byte(s) after the schedule", len - o);
#undef NEED
#undef AS_STRICT
	return validate(s, err, 0);
}

int script_decode(const uint8_t *buf, size_t len, struct script *s, struct script_error *err)
{
	return script_walk(buf, len, SCRIPT_STRICT, 0, s, err);
}

/* The binary form, one byte at a time, to a buffer or a hash. */
struct sink { uint8_t *out; size_t n; uint64_t hash; };

static void emit(struct sink *k, uint8_t b)
{
	if (k->out)
		k->out[k->n] = b;
	else
		k->hash = (k->hash ^ b) * 0x100000001b3ULL;
	k->n++;
}

/* with_tlb: the TLB section (version 3) if the script has one; the tail
 * seed leaves it out, so a TLB line does not change the tail */
static void emit_script(const struct script *s, const char *variant, uint8_t expect,
			bool with_tlb, struct sink *k)
{
	size_t nl = strlen(variant);

	/* sc scripts without choices keep version 1's bytes (and so the
	 * schedule tails and trace hashes recorded for them); scripts without
	 * a TLB section version 2's */
	bool v3 = with_tlb && (s->tlb || s->bbml2 || s->ntlb_init);
	bool v2 = v3 || s->memory != MEM_SC || s->nchoices;

	for (int i = 0; i < 4; i++)
		emit(k, (uint8_t)SCRIPT_MAGIC[i]);
	emit(k, v3 ? SCRIPT_VERSION_TLB : v2 ? SCRIPT_VERSION : SCRIPT_VERSION_SC);
	emit(k, (uint8_t)s->granule_kb);
	emit(k, (uint8_t)nl);
	for (size_t i = 0; i < nl; i++)
		emit(k, (uint8_t)variant[i]);
	emit(k, (uint8_t)s->nblocks);
	for (unsigned b = 0; b < s->nblocks; b++) {
		emit(k, s->block[b].shape);
		emit(k, s->block[b].flags);
	}
	emit(k, expect);
	emit(k, (uint8_t)s->nthreads);
	for (unsigned t = 0; t < s->nthreads; t++) {
		emit(k, (uint8_t)s->ninstr[t]);
		for (unsigned i = 0; i < s->ninstr[t]; i++) {
			const struct instr *in = &s->prog[t][i];

			emit(k, in->op);
			emit(k, in->block);
			emit(k, in->s);
			emit(k, in->n);
			emit(k, in->flags);
		}
	}
	if (v2) {
		emit(k, s->memory);
		emit(k, (uint8_t)(s->nchoices & 0xff));
		emit(k, (uint8_t)(s->nchoices >> 8));
		for (unsigned i = 0; i < s->nchoices; i++)
			emit(k, s->choices[i]);
	}
	if (v3) {
		emit(k, s->tlb);
		emit(k, (uint8_t)(s->tlb_evict | s->bbml2 << 1));
		emit(k, (uint8_t)s->ntlb_init);
		for (unsigned i = 0; i < s->ntlb_init; i++) {
			emit(k, s->tlb_init[i].thread);
			emit(k, s->tlb_init[i].block);
			emit(k, s->tlb_init[i].entry);
			emit(k, s->tlb_init[i].flags);
		}
	}
	emit(k, (uint8_t)(s->nsched & 0xff));
	emit(k, (uint8_t)(s->nsched >> 8));
	if (k->out)
		memcpy(k->out + k->n, s->sched, s->nsched);
	else
		for (unsigned i = 0; i < s->nsched; i++)
			k->hash = (k->hash ^ s->sched[i]) * 0x100000001b3ULL;
	k->n += s->nsched;
}

size_t script_encode(const struct script *s, uint8_t *out)
{
	struct sink k = { .out = out };

	emit_script(s, s->variant, s->expect, true, &k);
	return k.n;
}

bool script_canonical(const uint8_t *in, size_t len, uint8_t *out, size_t *outlen, unsigned cont)
{
	static struct script s;
	struct script_error err;

	if (script_walk(in, len, SCRIPT_LENIENT, cont, &s, &err)) {
		*outlen = len > SCRIPT_MAX_BYTES + 1 ? SCRIPT_MAX_BYTES + 1 : len;
		memcpy(out, in, *outlen);
		return false;
	}
	*outlen = script_encode(&s, out);
	return true;
}

uint64_t script_tail_seed(const struct script *s)
{
	struct sink k = { .hash = 0xcbf29ce484222325ULL };

	emit_script(s, "x", EXPECT_NONE, false, &k);
	return k.hash ? k.hash : 1;
}

/* ---- text ------------------------------------------------------------- */
struct out { char *p; size_t size, len; };

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->len >= o->size)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(o->p + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
	if (o->len >= o->size)
		o->len = o->size - 1;
}

/* The words for flags f, in the order the descriptor lists them. */
static void put_words(struct out *o, const struct op_desc *d, unsigned f)
{
	for (const struct op_word *w = d->words; w && w->word; w++)
		if ((f & w->mask) == w->value && (w->value || (d->required & w->mask)))
			put(o, " %s", w->word);
}

size_t script_print(const struct script *s, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	buf[0] = 0;
	put(&o, "contpte-script %d\n", s->memory != MEM_SC || s->nchoices ? SCRIPT_VERSION : SCRIPT_VERSION_SC);
	put(&o, "granule %uk\n", s->granule_kb);
	put(&o, "variant %s\n", s->variant);
	if (s->subject[0])
		put(&o, "subject %s\n", s->subject);
	for (const char *c = s->caps; *c; c += strspn(c, " ")) {
		size_t l = strcspn(c, "=");

		put(&o, "cap %.*s %c\n", (int)l, c, c[l + 1]);
		c += strcspn(c, " ");
	}
	if (s->memory != MEM_SC)
		put(&o, "memory %s\n", mem_model_names[s->memory]);
	if (s->tlb)
		put(&o, "tlb %u %s\n", s->tlb, s->tlb_evict ? "random" : "lru");
	if (s->bbml2)
		put(&o, "bbml2%s\n", s->bbml2 == CPU_BBML2_ABORT ? " abort" : "");
	for (unsigned i = 0; i < s->ntlb_init; i++)
		put(&o, "tlb_entry %u %u %u%s\n", s->tlb_init[i].thread, s->tlb_init[i].block,
		    s->tlb_init[i].entry, s->tlb_init[i].flags & 1 ? " write" : "");
	for (unsigned b = 0; b < s->nblocks; b++) {
		put(&o, "block %u %s", b, shape_names[s->block[b].shape]);
		put_words(&o, &op_desc[OP_MAP], s->block[b].flags);
		put(&o, "\n");
	}
	if (s->expect == EXPECT_CLEAN)
		put(&o, "expect clean\n");
	else if (s->expect >= EXPECT_KIND(1))
		put(&o, "expect %s\n", vkind_name(s->expect - 2));
	for (unsigned t = 0; t < s->nthreads; t++) {
		put(&o, "thread %u\n", t);
		for (unsigned i = 0; i < s->ninstr[t]; i++) {
			const struct instr *in = &s->prog[t][i];
			const struct op_desc *d = instr_desc(in->op);

			put(&o, "  %s", d->name);
			switch (d->shape) {
			case OP_SHAPE_ENTRY: put(&o, " %u %u", in->block, in->s); break;
			case OP_SHAPE_RANGE: put(&o, " %u %u+%u", in->block, in->s, in->n); break;
			default: break;
			}
			put_words(&o, d, in->flags);
			put(&o, "\n");
		}
	}
	for (unsigned i = 0; i < s->nchoices; i++)
		put(&o, "%s %u%s", i % 32 == 0 ? "choices" : "", s->choices[i],
		    i % 32 == 31 || i + 1 == s->nchoices ? "\n" : "");
	for (unsigned i = 0; i < s->nsched; i++) {
		unsigned t = s->sched[i] & 7, r = (s->sched[i] >> 3) + 1;

		put(&o, i % 16 == 0 ? "schedule" : "");
		if (r == 1)
			put(&o, " %u", t);
		else
			put(&o, " %ux%u", t, r);
		if (i % 16 == 15 || i + 1 == s->nsched)
			put(&o, "\n");
	}
	return o.len;
}

/* Tokenise one line in place (comments start with '#'). */
static int split(char *line, char **tok, int max)
{
	int n = 0;
	char *save, *t;

	if ((t = strchr(line, '#')))
		*t = 0;
	for (t = strtok_r(line, " \t\r", &save); t && n < max; t = strtok_r(NULL, " \t\r", &save))
		tok[n++] = t;
	return t ? -1 : n;
}

static bool parse_uint(const char *t, unsigned max, unsigned *v)
{
	char *end;
	unsigned long x;

	if (!*t || *t == '-' || *t == '+')
		return false;
	x = strtoul(t, &end, 10);
	if (*end || x > max)
		return false;
	*v = (unsigned)x;
	return true;
}

static int lookup(const char *t, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(t, names[i]))
			return i;
	return -1;
}

/* Add word t of descriptor d to *flags; *given has the fields named so
 * far. False if t is not one of d's words, or names a field again. */
static bool add_word(const struct op_desc *d, const char *t, uint8_t *flags, uint8_t *given)
{
	for (const struct op_word *w = d->words; w && w->word; w++) {
		if (strcmp(t, w->word))
			continue;
		if (*given & w->mask)
			return false;
		*given |= w->mask;
		*flags |= w->value;
		return true;
	}
	return false;
}

/* "a|b|c": the words of a required field, for messages. */
static const char *required_words(const struct op_desc *d, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (const struct op_word *w = d->words; w && w->word && off < len; w++)
		if (w->mask & d->required)
			off += snprintf(buf + off, len - off, "%s%s", off ? "|" : "", w->word);
	return buf;
}

static uint8_t op_by_text(const char *t)
{
	for (unsigned op = 1; op < SI_OP + OP_COUNT; op++)
		if (instr_name((uint8_t)op) && !strcmp(t, instr_name((uint8_t)op)))
			return (uint8_t)op;
	return 0;
}

int script_parse(const char *text, struct script *s, struct script_error *err)
{
	char line[1024], *tok[64];
	const char *p = text;
	size_t lineno = 0;
	int cur = -1;
	bool header = false, have_granule = false, have_variant = false;

	memset(s, 0, sizeof(*s));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		int n;

		lineno++;
		if (l >= sizeof(line))
			return fail(err, lineno, "line longer than %zu characters", sizeof(line) - 1);
		memcpy(line, p, l);
		line[l] = 0;
		p += l + (nl ? 1 : 0);
		if (memchr(line, 0, l))
			return fail(err, lineno, "NUL byte in text");
		if ((n = split(line, tok, 64)) < 0)
			return fail(err, lineno, "too many words on one line");
		if (n == 0)
			continue;
		if (!header) {
			unsigned v;

			if (n != 2 || strcmp(tok[0], "contpte-script") || !parse_uint(tok[1], 255, &v))
				return fail(err, lineno, "first line must be \"contpte-script %d\"", SCRIPT_VERSION);
			if (v != SCRIPT_VERSION && v != SCRIPT_VERSION_SC)
				return fail(err, lineno, "version %u not supported (this build reads %d and %d)", v,
					    SCRIPT_VERSION_SC, SCRIPT_VERSION);
			header = true;
			continue;
		}
		if (!strcmp(tok[0], "granule")) {
			unsigned kb;
			char *end;

			if (n != 2 || (kb = (unsigned)strtoul(tok[1], &end, 10), strcmp(end, "k") && strcmp(end, "K")) ||
			    !granule_cont(kb))
				return fail(err, lineno, "granule takes one of 4k, 16k, 64k");
			s->granule_kb = kb;
			have_granule = true;
		} else if (!strcmp(tok[0], "variant")) {
			if (n != 2 || !name_ok(tok[1], strlen(tok[1])))
				return fail(err, lineno, "variant takes one name of 1-%d characters [a-z0-9_]", SCRIPT_NAME_MAX);
			strcpy(s->variant, tok[1]);
			have_variant = true;
		} else if (!strcmp(tok[0], "block")) {
			unsigned b;
			int shape;

			if (cur >= 0)
				return fail(err, lineno, "block lines come before the threads");
			if (n < 3 || !parse_uint(tok[1], SCRIPT_MAX_BLOCKS - 1, &b) || b != s->nblocks)
				return fail(err, lineno, "expected \"block %u SHAPE [young] [dirty] [ro|other|rw]\" (blocks numbered from 0, at most %d)",
					    s->nblocks, SCRIPT_MAX_BLOCKS);
			if ((shape = lookup(tok[2], shape_names, BS_COUNT)) < 0)
				return fail(err, lineno, "unknown block shape '%s' (none, ptes, cont, half)", tok[2]);
			s->block[b].shape = (uint8_t)shape;
			uint8_t given = 0;
			for (int i = 3; i < n; i++) {
				/* the words of map, but for "new": a block's folio is always new */
				if (!strcmp(tok[i], "new") ||
				    !add_word(&op_desc[OP_MAP], tok[i], &s->block[b].flags, &given))
					return fail(err, lineno, "unknown or repeated block flag '%s'", tok[i]);
			}
			s->nblocks++;
		} else if (!strcmp(tok[0], "expect")) {
			enum vkind k;

			if (n != 2)
				return fail(err, lineno, "expect takes clean or one violation kind");
			if (!strcmp(tok[1], "clean"))
				s->expect = EXPECT_CLEAN;
			else if ((k = vkind_by_name(tok[1])) != VK_NONE)
				s->expect = (uint8_t)EXPECT_KIND(k);
			else
				return fail(err, lineno, "unknown outcome '%s' (clean, %s)", tok[1], vkind_names());
		} else if (!strcmp(tok[0], "thread")) {
			unsigned t;

			if (n != 2 || !parse_uint(tok[1], SCRIPT_MAX_THREADS - 1, &t) || t != s->nthreads)
				return fail(err, lineno, "expected \"thread %u\" (threads numbered from 0, at most %d)",
					    s->nthreads, SCRIPT_MAX_THREADS);
			if (s->nsched)
				return fail(err, lineno, "threads come before the schedule");
			cur = (int)t;
			s->nthreads++;
		} else if (!strcmp(tok[0], "subject")) {
			size_t off = 0;

			if (n < 2)
				return fail(err, lineno, "subject takes a description (what the plug-in or kernel-tree variant was built from)");
			for (int i = 1; i < n; i++) {
				size_t l = strlen(tok[i]);

				if (off + l + 2 > sizeof(s->subject))
					return fail(err, lineno, "subject longer than %d characters", SCRIPT_SUBJECT_MAX - 1);
				if (i > 1)
					s->subject[off++] = ' ';
				memcpy(s->subject + off, tok[i], l + 1);
				off += l;
			}
		} else if (!strcmp(tok[0], "cap")) {
			char one[CPU_CAP_NAME_MAX + 4], why[200];
			size_t off = strlen(s->caps);

			if (n != 3)
				return fail(err, lineno, "cap takes a capability probe's NAME and 0 or 1");
			snprintf(one, sizeof(one), "%s=%s", tok[1], tok[2]);
			if (cpu_cap_valid(one, why, sizeof(why)))
				return fail(err, lineno, "%s", why);
			if (off + strlen(one) + 2 > sizeof(s->caps))
				return fail(err, lineno, "cap lines longer than %d characters in all", SCRIPT_CAPS_MAX - 1);
			snprintf(s->caps + off, sizeof(s->caps) - off, "%s%s", off ? " " : "", one);
		} else if (!strcmp(tok[0], "tlb")) {
			char *end;
			unsigned long t = n >= 2 ? strtoul(tok[1], &end, 10) : 0;

			if (n < 2 || n > 3 || *end || t < 1 || t > 255 ||
			    (n == 3 && strcmp(tok[2], "lru") && strcmp(tok[2], "random")))
				return fail(err, lineno, "tlb takes a number of entries (1-255) and lru or random");
			s->tlb = (uint8_t)t;
			s->tlb_evict = n == 3 && !strcmp(tok[2], "random");
		} else if (!strcmp(tok[0], "tlb_entry")) {
			unsigned t, b, e;

			if (n < 4 || n > 5 || !parse_uint(tok[1], 255, &t) || !parse_uint(tok[2], 255, &b) ||
			    !parse_uint(tok[3], 255, &e) || (n == 5 && strcmp(tok[4], "write")))
				return fail(err, lineno, "tlb_entry takes THREAD BLOCK ENTRY [write]");
			if (s->ntlb_init == SCRIPT_MAX_TLB_INIT)
				return fail(err, lineno, "more than %d tlb_entry lines", SCRIPT_MAX_TLB_INIT);
			s->tlb_init[s->ntlb_init].thread = (uint8_t)t;
			s->tlb_init[s->ntlb_init].block = (uint8_t)b;
			s->tlb_init[s->ntlb_init].entry = (uint8_t)e;
			s->tlb_init[s->ntlb_init].flags = n == 5;
			s->ntlb_init++;
		} else if (!strcmp(tok[0], "bbml2")) {
			int kind = n == 1 ? CPU_BBML2_NOABORT : n == 2 ? cpu_bbml2_by_name(tok[1]) : -1;

			if (kind <= CPU_BBML2_NONE)
				return fail(err, lineno, "bbml2 takes nothing (BBML2_NOABORT), noabort or abort");
			s->bbml2 = (uint8_t)kind;
		} else if (!strcmp(tok[0], "memory")) {
			enum mem_model mm;

			if (n != 2 || (mm = mem_model_by_name(tok[1])) == MEM_MODEL_COUNT)
				return fail(err, lineno, "memory takes sc or arm");
			s->memory = (uint8_t)mm;
		} else if (!strcmp(tok[0], "choices")) {
			if (s->nsched)
				return fail(err, lineno, "choices come before the schedule");
			for (int i = 1; i < n; i++) {
				unsigned c;

				if (!parse_uint(tok[i], 255, &c))
					return fail(err, lineno, "choices are numbers 0-255");
				if (s->nchoices == SCRIPT_MAX_CHOICES)
					return fail(err, lineno, "more than %d choices", SCRIPT_MAX_CHOICES);
				s->choices[s->nchoices++] = (uint8_t)c;
			}
		} else if (!strcmp(tok[0], "schedule")) {
			for (int i = 1; i < n; i++) {
				unsigned t, r = 1;
				char *x = strchr(tok[i], 'x');

				if (x)
					*x = 0;
				if (!parse_uint(tok[i], 7, &t) || (x && !parse_uint(x + 1, 32, &r)) || r == 0)
					return fail(err, lineno, "schedule entries are THREAD or THREADxRUN (run 1-32)");
				if (s->nsched == SCRIPT_MAX_SCHED)
					return fail(err, lineno, "schedule longer than %d entries", SCRIPT_MAX_SCHED);
				s->sched[s->nsched++] = (uint8_t)(t | (r - 1) << 3);
			}
		} else {
			uint8_t op = op_by_text(tok[0]), given = 0;
			const struct op_desc *d = instr_desc(op);
			struct instr *in;
			int i = 1;

			if (!op)
				return fail(err, lineno, "unknown keyword or instruction '%s'", tok[0]);
			if (cur < 0 || s->nsched)
				return fail(err, lineno, "instruction '%s' outside a thread section", tok[0]);
			if (s->ninstr[cur] == SCRIPT_MAX_INSTRS)
				return fail(err, lineno, "thread %d has more than %d instructions", cur, SCRIPT_MAX_INSTRS);
			in = &s->prog[cur][s->ninstr[cur]];
			memset(in, 0, sizeof(*in));
			in->op = op;
			switch (d->shape) {
			case OP_SHAPE_ENTRY: {
				unsigned b, e;

				if (n < 3 || !parse_uint(tok[1], 255, &b) || !parse_uint(tok[2], 255, &e))
					return fail(err, lineno, "%s takes BLOCK ENTRY", tok[0]);
				in->block = (uint8_t)b;
				in->s = (uint8_t)e;
				i = 3;
				break;
			}
			case OP_SHAPE_RANGE: {
				unsigned b, e, c;
				char *plus = n >= 3 ? strchr(tok[2], '+') : NULL;

				if (plus)
					*plus = 0;
				if (n < 3 || !plus || !parse_uint(tok[1], 255, &b) || !parse_uint(tok[2], 255, &e) ||
				    !parse_uint(plus + 1, 255, &c))
					return fail(err, lineno, "%s takes BLOCK FIRST+COUNT", tok[0]);
				in->block = (uint8_t)b;
				in->s = (uint8_t)e;
				in->n = (uint8_t)c;
				i = 3;
				break;
			}
			default:
				break;
			}
			for (; i < n; i++)
				if (!add_word(d, tok[i], &in->flags, &given))
					return fail(err, lineno, "unknown or repeated argument '%s' for %s", tok[i], tok[0]);
			if ((given & d->required) != d->required) {
				char words[128];

				return fail(err, lineno, "%s takes BLOCK ENTRY %s", tok[0],
					    required_words(d, words, sizeof(words)));
			}
			s->ninstr[cur]++;
		}
	}
	if (!header)
		return fail(err, lineno, "empty script (first line must be \"contpte-script %d\")", SCRIPT_VERSION);
	if (!have_granule || !have_variant || !s->nblocks || !s->nthreads)
		return fail(err, lineno, "a script needs granule, variant, at least one block and one thread");
	return validate(s, err, lineno);
}

int script_load(const uint8_t *buf, size_t len, struct script *s, struct script_error *err)
{
	char *text;
	int rc;

	if (len >= 4 && !memcmp(buf, SCRIPT_MAGIC, 4))
		return script_decode(buf, len, s, err);
	if (len > SCRIPT_TEXT_MAX)
		return fail(err, 0, "text script larger than %d bytes", SCRIPT_TEXT_MAX);
	if (!(text = malloc(len + 1)))
		return fail(err, 0, "out of memory");
	memcpy(text, buf, len);
	text[len] = 0;
	if (strlen(text) != len)
	{
		size_t line = 1;

		for (size_t i = 0; i < strlen(text); i++)
			line += text[i] == '\n';
		rc = fail(err, line, "NUL byte in a text script (not binary: no \"" SCRIPT_MAGIC "\" magic)");
	}
	else
		rc = script_parse(text, s, err);
	free(text);
	return rc;
}
