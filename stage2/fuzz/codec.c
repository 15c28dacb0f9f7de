/* stage2/fuzz/codec.c - the byte form of a stage-2 program (see codec.h). */
#include "stage2/fuzz/codec.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "engine/memory.h"
#include "stage2/runtime/vm.h"

#define TLB_MAX 64
#define SIZE_ALL_BYTE 255
#define PAGE_FROM_END 0x8000u
#define SHORT_RUNS 32           /* run codes below: that many steps plus one */
#define LONG_RUN_UNIT 64        /* run codes from SHORT_RUNS: multiples of this */
#define ENGINE_RUN_MAX 32       /* steps in one of the engine's run-length bytes */

/* A reader that gives zeros once the bytes run out. */
struct bytes { const uint8_t *p; size_t n, at; };

static unsigned next(struct bytes *b)
{
	return b->at < b->n ? b->p[b->at++] : (b->at++, 0);
}

static uint32_t page_of(unsigned lo, unsigned hi, unsigned upages)
{
	unsigned v = lo | hi << 8;
	uint32_t k = (v & ~PAGE_FROM_END) % upages;

	return v & PAGE_FROM_END ? upages - 1 - k : k;
}

static struct s2p_addr addr_of(struct bytes *b, unsigned blocks, unsigned upages, bool page)
{
	struct s2p_addr a;
	unsigned lo, hi;

	a.unit = (uint8_t)(next(b) % blocks);
	lo = next(b);
	hi = next(b);
	a.page = page ? page_of(lo, hi, upages) : 0;
	return a;
}

void s2f_decode(const uint8_t *data, size_t len, unsigned granule_kb, struct s2_prog *p)
{
	struct bytes b = { data, len, 0 };
	unsigned flags, upages = s2p_unit_pages(granule_kb), ninstr[S2P_THREADS] = { 0 };

	memset(p, 0, sizeof(*p));
	p->granule_kb = granule_kb;
	p->expect = -1;
	p->age_lock = S2_AGE_WRITE;
	p->age_rcu = true;
	p->memory = MEM_SC;
	flags = next(&b);
	p->hw_af = !(flags & 1);
	p->fwb = !(flags & 2);
	p->tlb_range = !(flags & 4);
	p->ttl_ignored = flags & 8;
	p->reuse = (flags >> 4 & 3) == 3 ? S2_REUSE_QUARANTINE : (enum s2_reuse)(flags >> 4 & 3);
	p->tlb = next(&b) % (TLB_MAX + 1);
	p->blocks = 1 + next(&b) % S2_MAX_UNITS;

	p->nsetup = next(&b) % (S2P_SETUP + 1);
	for (unsigned i = 0; i < p->nsetup; i++) {
		struct s2p_setup_op *s = &p->setup[i];

		s->op = (uint8_t)(next(&b) % S2S_COUNT);
		s->at = addr_of(&b, p->blocks, upages, s->op == S2S_MAP_PAGE);
	}

	p->nthreads = 1 + next(&b) % S2P_THREADS;
	for (unsigned t = 0; t < p->nthreads; t++)
		ninstr[t] = next(&b) % (S2P_INSTRS + 1);
	for (unsigned t = 0; t < p->nthreads; t++)
		for (unsigned i = 0; i < ninstr[t]; i++) {
			struct s2p_instr *in = &p->prog[t][i];
			unsigned opw = next(&b), size;
			const char *args;

			in->op = (uint8_t)((opw & 15) % S2I_COUNT);
			args = s2p_op_args(in->op);
			in->write = strchr(args, 'w') && (opw & 16);
			in->at = addr_of(&b, p->blocks, upages, strchr(args, 'a'));
			if (!strchr(args, 'a') && !strchr(args, 'u'))
				in->at.unit = 0;
			size = next(&b);
			if (strchr(args, 's'))
				in->npages = size == 0 ? S2P_SIZE_BLOCK : size == SIZE_ALL_BYTE ? S2P_SIZE_ALL : size;
		}
	/* as the text form has it: threads up to the last with instructions */
	while (p->nthreads > 0 && !ninstr[p->nthreads - 1])
		p->nthreads--;
	if (!p->nthreads) {
		p->nthreads = 1;
		ninstr[0] = 1;      /* (zeroed above: access u0+0 r) */
	}
	memcpy(p->ninstr, ninstr, sizeof(p->ninstr));

	{
		unsigned lo = next(&b), hi = next(&b);
		size_t runs = (lo | hi << 8) % (S2P_SCHED + 1), left;

		for (size_t i = 0; i < runs && b.at < len; i++) {
			unsigned c = next(&b), v = c >> 2, steps = v < SHORT_RUNS ? v + 1 : (v - SHORT_RUNS + 1) * LONG_RUN_UNIT;

			while (steps && p->nsched < S2P_SCHED) {
				unsigned run = steps < ENGINE_RUN_MAX ? steps : ENGINE_RUN_MAX;

				p->sched[p->nsched++] = (uint8_t)((c & 3) | (run - 1) << 3);
				steps -= run;
			}
		}
		left = b.at < len ? len - b.at : 0;
		p->nchoices = (unsigned)(left < S2P_CHOICES ? left : S2P_CHOICES);
		memcpy(p->choices, data + (b.at < len ? b.at : len), p->nchoices);
	}
}

/* ---- the encoder -------------------------------------------------------------- */

static size_t refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return 0;
}

/* unit and page as 3 bytes; false if the bytes cannot say them */
static bool put_addr(uint8_t **o, const struct s2p_addr *a, unsigned blocks, unsigned upages)
{
	unsigned v;

	if (a->unit >= blocks || a->page >= upages)
		return false;
	v = a->page < upages / 2 ? a->page : PAGE_FROM_END | (upages - 1 - a->page);
	*(*o)++ = a->unit;
	*(*o)++ = (uint8_t)v;
	*(*o)++ = (uint8_t)(v >> 8);
	return true;
}

size_t s2f_encode(const struct s2_prog *p, uint8_t *out, char *err, size_t errlen)
{
	unsigned upages = s2p_unit_pages(p->granule_kb);
	uint8_t *o = out;

	if (p->tlb > TLB_MAX)
		return refuse(err, errlen, "tlb %u: at most %d", p->tlb, TLB_MAX);
	if (p->blocks < 1 || p->blocks > S2_MAX_UNITS)
		return refuse(err, errlen, "blocks %u: 1 to %d", p->blocks, S2_MAX_UNITS);
	*o++ = (uint8_t)(!p->hw_af | !p->fwb << 1 | !p->tlb_range << 2 | p->ttl_ignored << 3 | (unsigned)p->reuse << 4);
	*o++ = (uint8_t)p->tlb;
	*o++ = (uint8_t)(p->blocks - 1);

	*o++ = (uint8_t)p->nsetup;
	for (unsigned i = 0; i < p->nsetup; i++) {
		const struct s2p_setup_op *s = &p->setup[i];
		struct s2p_addr a = { s->at.unit, s->op == S2S_MAP_PAGE ? s->at.page : 0 };

		*o++ = s->op;
		if (!put_addr(&o, &a, p->blocks, upages))
			return refuse(err, errlen, "setup %u: u%u+%u is not in a window of %u units of %u pages", i,
				      a.unit, a.page, p->blocks, upages);
	}

	*o++ = (uint8_t)(p->nthreads - 1);
	for (unsigned t = 0; t < p->nthreads; t++)
		*o++ = (uint8_t)p->ninstr[t];
	for (unsigned t = 0; t < p->nthreads; t++)
		for (unsigned i = 0; i < p->ninstr[t]; i++) {
			const struct s2p_instr *in = &p->prog[t][i];
			const char *args = s2p_op_args(in->op);
			struct s2p_addr a = { 0, 0 };
			uint32_t np = strchr(args, 's') ? in->npages : S2P_SIZE_BLOCK;

			if (strchr(args, 'a') || strchr(args, 'u'))
				a = (struct s2p_addr){ in->at.unit, strchr(args, 'a') ? in->at.page : 0 };
			*o++ = (uint8_t)(in->op | (strchr(args, 'w') && in->write) << 4);
			if (!put_addr(&o, &a, p->blocks, upages))
				return refuse(err, errlen, "thread %u instruction %u: u%u+%u is not in a window of %u units of %u pages",
					      t, i, a.unit, a.page, p->blocks, upages);
			if (np != S2P_SIZE_BLOCK && np != S2P_SIZE_ALL && np >= SIZE_ALL_BYTE)
				return refuse(err, errlen, "thread %u instruction %u: %u pages: at most %d (or block, all)", t, i,
					      np, SIZE_ALL_BYTE - 1);
			*o++ = (uint8_t)(np == S2P_SIZE_BLOCK ? 0 : np == S2P_SIZE_ALL ? SIZE_ALL_BYTE : np);
		}

	/* each engine byte as the short run code of the same thread and length */
	*o++ = (uint8_t)p->nsched;
	*o++ = (uint8_t)(p->nsched >> 8);
	for (unsigned i = 0; i < p->nsched; i++) {
		if ((p->sched[i] & 7) > 3)
			return refuse(err, errlen, "schedule byte %u (%02x): thread %u; the bytes say threads 0-3", i,
				      p->sched[i], p->sched[i] & 7);
		*o++ = (uint8_t)((p->sched[i] & 7) | (p->sched[i] >> 3) << 2);
	}
	memcpy(o, p->choices, p->nchoices);
	o += p->nchoices;
	return (size_t)(o - out);
}
