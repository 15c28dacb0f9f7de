/* fuzz/mutate.c - structural mutations of interleaving scripts (see
 * fuzz/mutate.h and docs/fuzzing.md, "The custom mutator"). */
#include "fuzz/mutate.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/rng.h"
#include "engine/gen.h"
#include "engine/memory.h"
#include "engine/sched.h"
#include "fuzz/bytes_hash.h"

const char *const mut_op_names[MO_COUNT] = {
	[MO_TAIL] = "tail", [MO_REDRAW] = "redraw", [MO_PREEMPT] = "preempt",
	[MO_SEGMENT] = "segment", [MO_RF] = "rf", [MO_RF_CHOICE] = "rf_choice",
	[MO_CHOICE] = "choice", [MO_INSTR] = "instr", [MO_INSERT] = "insert",
	[MO_DELETE] = "delete", [MO_MOVE] = "move", [MO_BLOCK] = "block",
	[MO_SPLICE] = "splice", [MO_GENERATE] = "generate", [MO_HAVOC] = "havoc",
};

/* Relative weights (an operator that does not apply to a parent, such as
 * rf_choice on an sc script, hands over to another: see mutate_once). The
 * schedule's operators dominate: the bugs of this subject fall to fresh
 * and reordered interleavings of programs that are already right more
 * often than to program changes (docs/fuzzing.md has the measurements). */
const unsigned mut_weight[MO_COUNT] = {
	[MO_TAIL] = 20, [MO_REDRAW] = 8, [MO_PREEMPT] = 8, [MO_SEGMENT] = 3,
	[MO_RF] = 16, [MO_RF_CHOICE] = 8, [MO_CHOICE] = 3,
	[MO_INSTR] = 10, [MO_INSERT] = 4, [MO_DELETE] = 3, [MO_MOVE] = 5,
	[MO_BLOCK] = 3, [MO_SPLICE] = 4, [MO_GENERATE] = 24, [MO_HAVOC] = 4,
};

static unsigned below(struct mutator *m, unsigned n) { return n ? rng_below(&m->rng, n) : 0; }
static bool chance(struct mutator *m, unsigned one_in) { return below(m, one_in) == 0; }

static uint32_t mix32(uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;

	h ^= b + (h << 6) + (h >> 2);
	h *= 0x94d049bb133111ebULL;
	return (uint32_t)(h ^ (h >> 31));
}

/* ---- analysis: one run of the parent ------------------------------------ */

static struct mutator *A;         /* the mutator whose parent is running */
static unsigned store_scan;       /* events already scanned for stores */
static struct { uint64_t step; int tid; unsigned index, n; } last_choice;

static void an_choose(unsigned index, unsigned n, unsigned c, uint64_t alike)
{
	(void)c;
	if (index < SCRIPT_MAX_CHOICES) {
		A->parent.choice_n[index] = (uint8_t)(n < 255 ? n : 255);
		A->parent.choice_alike[index] = alike;
	}
	last_choice.step = eng.steps;
	last_choice.tid = eng.cur;
	last_choice.index = index;
	last_choice.n = n;
}

static void scan_stores(void)
{
	struct mut_parent *P = &A->parent;

	for (; store_scan < eng.nevents; store_scan++) {
		const struct eng_event *e = &eng.events[store_scan];

		if (e->off < 0 || e->tid >= ENG_MAX_THREADS || e->before == e->after ||
		    (e->kind != EK_STORE && e->kind != EK_CMPXCHG && e->kind != EK_XCHG &&
		     e->kind != EK_OR && e->kind != EK_ANDNOT && e->kind != EK_RCU_ASSIGN) ||
		    P->nstores == MUT_MAX_STORES)
			continue;
		P->stores[P->nstores++] = (struct mut_store){
			.step = e->step, .tid = e->tid, .instr = (uint8_t)e->instr, .off = e->off,
			.site = mix32(e->tid | (uint64_t)e->instr << 8, (uint64_t)e->off),
		};
	}
}

/* The store a source tag names (thread | instr << 4 | step16 << 12, as
 * engine/sched.c and engine/memory.c make them): the newest such store to
 * off at or before step. */
static int32_t store_of(uint32_t src, int64_t off, uint32_t step)
{
	struct mut_parent *P = &A->parent;

	if (!src)
		return -1;
	for (unsigned i = P->nstores; i-- > 0;) {
		const struct mut_store *st = &P->stores[i];

		if (st->step > step || st->off != off)
			continue;
		if (st->tid == (src & 15) && st->instr == ((src >> 4) & 0xff) &&
		    (st->step & 0xffff) == (src >> 12))
			return (int32_t)i;
	}
	return -1;
}

static void an_feature(uint32_t f)
{
	struct mut_parent *P = &A->parent;
	const struct eng_event *e;

	(void)f;
	if (eng.cur < 0 || !eng.nevents || P->nloads == MUT_MAX_LOADS)
		return;
	e = &eng.events[eng.nevents - 1];
	if (e->kind != EK_LOAD || e->tid != eng.cur || e->step != eng.steps || e->off < 0)
		return;
	scan_stores();
	unsigned tid = (unsigned)eng.cur;
	uint32_t src = P->s.memory == MEM_ARM ? mem_last_source(tid) : eng_rf_source(e->off);
	struct mut_load *L = &P->loads[P->nloads++];

	*L = (struct mut_load){
		.step = (uint32_t)eng.steps, .tid = (uint8_t)tid, .instr = (uint8_t)eng.th[tid].instr,
		.off = e->off, .choice = -1,
		.site = mix32(tid | (uint64_t)eng.th[tid].instr << 8, (uint64_t)e->off),
	};
	L->src = store_of(src, e->off, L->step);
	L->tag = src;
	if (last_choice.step == eng.steps && last_choice.tid == eng.cur &&
	    last_choice.index + 1 == eng.ntaken_choices) {
		L->choice = (int32_t)last_choice.index;
		L->nopt = (uint16_t)last_choice.n;
		last_choice.step = 0;
	}
}

static void an_pick(uint32_t runnable)
{
	if (eng.steps - 1 < MUT_MAX_STEPS)
		A->parent.runnable[eng.steps - 1] = (uint8_t)runnable;
}

static uint32_t pair_site(const struct mutator *m, const struct mut_load *L, int32_t src)
{
	return mix32(L->site, src >= 0 ? m->parent.stores[src].site : 0) % MUT_PAIR_SLOTS;
}

static void analyse(struct mutator *m)
{
	struct mut_parent *P = &m->parent;
	struct run_opts o = { .variant = m->v, .policy = { .kind = ES_SCRIPT },
			      .record_events = true, .feature = an_feature };
	struct run_result r;

	m->analyses++;
	A = m;
	store_scan = 0;
	last_choice.step = 0;
	P->nloads = P->nstores = P->nsteps = P->nchoices = 0;
	eng.on_choose = an_choose;
	eng.on_pick = an_pick;
	P->status = run_script(&P->s, &o, &r);
	eng.on_choose = NULL;
	eng.on_pick = NULL;
	A = NULL;
	P->complete = true;
	for (unsigned i = 0; i < r.ntaken; i++) {
		unsigned t = r.taken[i] & 7, n = (r.taken[i] >> 3) + 1;

		for (unsigned k = 0; k < n; k++) {
			if (P->nsteps == MUT_MAX_STEPS) {
				P->complete = false;
				break;
			}
			P->steps[P->nsteps++] = (uint8_t)t;
		}
	}
	if (P->s.memory == MEM_ARM) {
		P->nchoices = r.ntaken_choices < SCRIPT_MAX_CHOICES ? r.ntaken_choices : SCRIPT_MAX_CHOICES;
		memcpy(P->choices, r.taken_choices, P->nchoices);
	}
	/* reads-from pairs of a parent not seen before: counted once */
	uint64_t *seen = &m->seen[P->hash % 4096];

	if (*seen != P->hash) {
		*seen = P->hash;
		for (unsigned i = 0; i < P->nloads; i++) {
			uint32_t *c = &m->pair_count[pair_site(m, &P->loads[i], P->loads[i].src)];

			if (*c < UINT32_MAX)
				(*c)++;
		}
	}
}

/* ---- set-up ---------------------------------------------------------------- */

void mut_fini(struct mutator *m)
{
	parent_cache_clear(&m->cache);
}

int mut_init(struct mutator *m, const char *target, unsigned granule_kb, uint64_t seed,
	     char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->granule_kb = granule_kb;
	m->cont = granule_cont(granule_kb);
	if (!m->cont) {
		snprintf(err, errlen, "granule %u KB is not 4, 16 or 64", granule_kb);
		return -1;
	}
	if (!target || !*target || strlen(target) > SCRIPT_NAME_MAX) {
		snprintf(err, errlen, "no target variant name");
		return -1;
	}
	strcpy(m->target, target);
	if (!(m->v = run_find_variant(target, granule_kb, err, errlen)) &&
	    !(m->v = run_find_variant("baseline", granule_kb, err, errlen)))
		return -1;
	m->rng = seed ^ 0x6d7574617465ULL;
	memcpy(m->weight, mut_weight, sizeof(m->weight));
	return 0;
}

/* The cache's value: the analysis's counts, then its arrays (copied with
 * memcpy: a value need not be aligned). */
struct analysis_head {
	enum run_status status;
	bool complete;
	unsigned nsteps, nchoices, nloads, nstores;
};

static size_t analysis_size(const struct analysis_head *a)
{
	return sizeof(*a) + 2 * a->nsteps + 10 * a->nchoices + a->nloads * sizeof(struct mut_load) +
	       a->nstores * sizeof(struct mut_store);
}

static void analysis_to_cache(struct mutator *m, const uint8_t *buf, size_t len)
{
	const struct mut_parent *P = &m->parent;
	struct analysis_head a = { P->status, P->complete, P->nsteps, P->nchoices, P->nloads, P->nstores };
	uint8_t *v = parent_cache_put(&m->cache, P->hash, buf, len, analysis_size(&a));

	if (!v)
		return;
	memcpy(v, &a, sizeof(a)), v += sizeof(a);
	memcpy(v, P->steps, a.nsteps), v += a.nsteps;
	memcpy(v, P->runnable, a.nsteps), v += a.nsteps;
	memcpy(v, P->choices, a.nchoices), v += a.nchoices;
	memcpy(v, P->choice_n, a.nchoices), v += a.nchoices;
	memcpy(v, P->choice_alike, 8 * a.nchoices), v += 8 * a.nchoices;
	memcpy(v, P->loads, a.nloads * sizeof(struct mut_load)), v += a.nloads * sizeof(struct mut_load);
	memcpy(v, P->stores, a.nstores * sizeof(struct mut_store));
}

static bool analysis_from_cache(struct mutator *m, const uint8_t *buf, size_t len)
{
	struct mut_parent *P = &m->parent;
	struct analysis_head a;
	size_t n;
	const uint8_t *v = parent_cache_get(&m->cache, P->hash, buf, len, &n);

	if (!v)
		return false;
	memcpy(&a, v, sizeof(a)), v += sizeof(a);
	P->status = a.status;
	P->complete = a.complete;
	P->nsteps = a.nsteps;
	P->nchoices = a.nchoices;
	P->nloads = a.nloads;
	P->nstores = a.nstores;
	memcpy(P->steps, v, a.nsteps), v += a.nsteps;
	memcpy(P->runnable, v, a.nsteps), v += a.nsteps;
	memcpy(P->choices, v, a.nchoices), v += a.nchoices;
	memcpy(P->choice_n, v, a.nchoices), v += a.nchoices;
	memcpy(P->choice_alike, v, 8 * a.nchoices), v += 8 * a.nchoices;
	memcpy(P->loads, v, a.nloads * sizeof(struct mut_load)), v += a.nloads * sizeof(struct mut_load);
	memcpy(P->stores, v, a.nstores * sizeof(struct mut_store));
	return true;
}

bool mut_set_parent(struct mutator *m, const uint8_t *buf, size_t len)
{
	struct mut_parent *P = &m->parent;
	struct script_error err;
	uint64_t h = bytes_hash(buf, len);

	if (P->valid && P->hash == h)
		return true;
	P->valid = false;
	if (script_walk(buf, len, SCRIPT_LENIENT, m->cont, &P->s, &err))
		return false;
	P->s.granule_kb = m->granule_kb;
	strcpy(P->s.variant, m->v->name);
	P->s.expect = EXPECT_NONE;
	P->hash = h;
	if (!analysis_from_cache(m, buf, len)) {
		analyse(m);
		analysis_to_cache(m, buf, len);
	}
	strcpy(P->s.variant, m->target);
	P->valid = true;
	return true;
}

/* ---- instructions ------------------------------------------------------------ */

/* Every opcode the format has (the descriptor tables say which). */
static unsigned opcodes(uint8_t *ops)
{
	unsigned n = 0;

	for (unsigned op = 1; op < 256; op++)
		if (instr_desc((uint8_t)op))
			ops[n++] = (uint8_t)op;
	return n;
}

static unsigned op_weight(uint8_t op)
{
	const struct op_desc *d = instr_desc(op);

	return d && d->weight ? d->weight : 3;
}

/* Entries [s, s + n) drawn for a range of a block of cont entries: small
 * runs, whole halves and whole blocks, as the bugs need them. */
static void draw_range(struct mutator *m, unsigned cont, uint8_t *s, uint8_t *n)
{
	switch (below(m, 4)) {
	case 0:
		*s = 0, *n = (uint8_t)cont;
		break;
	case 1:
		*s = (uint8_t)(chance(m, 2) ? 0 : cont / 2), *n = (uint8_t)(cont / 2);
		break;
	default:
		*s = (uint8_t)below(m, cont);
		*n = (uint8_t)(1 + below(m, chance(m, 2) ? (cont - *s < 4 ? cont - *s : 4) : cont - *s));
		break;
	}
}

/* An entry other instructions of s use (the interesting ones), or any. */
static void draw_entry(struct mutator *m, const struct script *s, uint8_t *b, uint8_t *e)
{
	if (chance(m, 2)) {
		unsigned t = below(m, s->nthreads);

		if (s->ninstr[t]) {
			const struct instr *in = &s->prog[t][below(m, s->ninstr[t])];
			const struct op_desc *d = instr_desc(in->op);

			if (d && d->shape != OP_SHAPE_NONE) {
				*b = in->block;
				*e = (uint8_t)(in->s + (d->shape == OP_SHAPE_RANGE && in->n ? below(m, in->n) : 0));
				return;
			}
		}
	}
	*b = (uint8_t)below(m, s->nblocks);
	*e = (uint8_t)below(m, m->cont);
}

static void draw_args(struct mutator *m, const struct script *s, struct instr *in)
{
	const struct op_desc *d = instr_desc(in->op);

	in->block = in->s = in->n = in->flags = 0;
	if (d->shape == OP_SHAPE_ENTRY) {
		draw_entry(m, s, &in->block, &in->s);
	} else if (d->shape == OP_SHAPE_RANGE) {
		in->block = (uint8_t)below(m, s->nblocks);
		draw_range(m, m->cont, &in->s, &in->n);
	}
	if (d->gen_flags && chance(m, 2))
		in->flags = (uint8_t)(d->gen_flags(&m->rng) & d->flags);
	else if (d->flags)
		in->flags = (uint8_t)(rng_next(&m->rng) & d->flags);
}

/* A new instruction for thread t of s: half the time an opcode the thread
 * already has (threads keep their roles), else any, by the ops' weights. */
static void draw_instr(struct mutator *m, const struct script *s, unsigned t, struct instr *in)
{
	uint8_t ops[256];
	unsigned n = opcodes(ops), total = 0;
	const char *why;

	for (int tries = 0; tries < 8; tries++) {
		const struct instr *own = s->ninstr[t] ? &s->prog[t][below(m, s->ninstr[t])] : NULL;

		if (own && own != in && instr_desc(own->op) && chance(m, 2)) {
			in->op = own->op;
		} else {
			total = 0;
			for (unsigned i = 0; i < n; i++)
				total += op_weight(ops[i]);
			unsigned r = below(m, total);

			for (unsigned i = 0; i < n; i++) {
				if (r < op_weight(ops[i])) {
					in->op = ops[i];
					break;
				}
				r -= op_weight(ops[i]);
			}
		}
		draw_args(m, s, in);
		if (instr_valid(in, m->cont, s->nblocks, &why))
			return;
	}
	memset(in, 0, sizeof(*in));
	in->op = SI_READ;
}

/* Instructions fitted to the script's blocks (after blocks are dropped,
 * or a thread spliced from a script with more). */
static void fit_blocks(struct script *s)
{
	for (unsigned t = 0; t < s->nthreads; t++)
		for (unsigned i = 0; i < s->ninstr[t]; i++) {
			const struct op_desc *d = instr_desc(s->prog[t][i].op);

			if (d && d->shape != OP_SHAPE_NONE && s->prog[t][i].block >= s->nblocks)
				s->prog[t][i].block = (uint8_t)(s->prog[t][i].block % s->nblocks);
		}
	/* the TLBs' initial translations too (tlb_entry lines) */
	for (unsigned i = 0; i < s->ntlb_init; i++)
		if (s->tlb_init[i].block >= s->nblocks)
			s->tlb_init[i].block = (uint8_t)(s->tlb_init[i].block % s->nblocks);
}

/* ---- the spelled-out schedule (m->tmp, m->nw steps) --------------------------- */

/* Keep the first p steps. */
static void keep_steps(struct mutator *m, unsigned p)
{
	if (p < m->nw)
		m->nw = p;
}

/* A cut point for a program change: nothing (a fresh interleaving, half
 * the time: a changed program rarely wants its parent's), all, or
 * anything between. */
static unsigned draw_cut(struct mutator *m)
{
	switch (below(m, 4)) {
	case 0: case 1: return 0;
	case 2: return m->nw;
	default: return below(m, m->nw + 1);
	}
}

/* Move thread t's next r steps at or after position k to k (in order);
 * how many moved. */
static unsigned pull(struct mutator *m, unsigned k, unsigned t, unsigned r)
{
	unsigned n = 0, moved = 0;

	for (unsigned i = 0; i < k && i < m->nw; i++)
		m->tmp2[n++] = m->tmp[i];
	for (unsigned i = k; i < m->nw && moved < r; i++)
		if (m->tmp[i] == t)
			m->tmp2[n++] = (uint8_t)t, moved++;
	for (unsigned i = k, left = moved; i < m->nw; i++) {
		if (m->tmp[i] == t && left) {
			left--;
			continue;
		}
		m->tmp2[n++] = m->tmp[i];
	}
	memcpy(m->tmp, m->tmp2, n);
	m->nw = n;
	return moved;
}

/* Thread t's steps before position k. */
static unsigned steps_before(const struct mutator *m, unsigned k, unsigned t)
{
	unsigned c = 0;

	for (unsigned i = 0; i < k && i < m->nw; i++)
		c += m->tmp[i] == t;
	return c;
}

/* Hold thread a's steps from its ka-th on until thread b has made kb
 * steps (a happens-before edge: b's kb-th step before a's ka-th). */
static void order_after(struct mutator *m, unsigned a, unsigned ka, unsigned b, unsigned kb)
{
	unsigned n = 0, ca = 0, cb = 0, held = 0;

	for (unsigned i = 0; i < m->nw; i++) {
		unsigned t = m->tmp[i];

		if (t == a && ca >= ka && cb < kb) {
			held++;
			ca++;
			continue;
		}
		if (t == a)
			ca++;
		m->tmp2[n++] = (uint8_t)t;
		if (t == b && ++cb == kb)
			for (; held; held--)
				m->tmp2[n++] = (uint8_t)a;
	}
	for (; held; held--)
		m->tmp2[n++] = (uint8_t)a;
	memcpy(m->tmp, m->tmp2, n);
	m->nw = n;
}

/* After p: the same steps per thread, re-drawn uniformly at random or by
 * PCT (random priorities, two change points), from the mutator's stream. */
static void redraw(struct mutator *m, unsigned p)
{
	unsigned cnt[SCRIPT_MAX_THREADS] = { 0 }, left = 0, nt = m->w.nthreads;

	for (unsigned i = p; i < m->nw; i++)
		if (m->tmp[i] < nt)
			cnt[m->tmp[i]]++, left++;
	for (unsigned t = 0; t < nt; t++)        /* room to differ from the parent */
		cnt[t] += below(m, 4);
	left = 0;
	for (unsigned t = 0; t < nt; t++)
		left += cnt[t];
	if (left + p > MUT_MAX_STEPS)
		return;
	unsigned n = p;

	if (chance(m, 2)) {
		while (left) {
			unsigned r = below(m, left), t = 0;

			while (r >= cnt[t])
				r -= cnt[t++];
			m->tmp[n++] = (uint8_t)t;
			cnt[t]--, left--;
		}
	} else {
		int prio[SCRIPT_MAX_THREADS], lowest = 0;
		unsigned change[2];

		for (unsigned t = 0; t < nt; t++)
			prio[t] = 100 + (int)below(m, 1000);
		change[0] = below(m, left + 1);
		change[1] = below(m, left + 1);
		for (unsigned k = 0; left; k++) {
			unsigned best = nt;

			for (unsigned t = 0; t < nt; t++)
				if (cnt[t] && (best == nt || prio[t] > prio[best]))
					best = t;
			m->tmp[n++] = (uint8_t)best;
			cnt[best]--, left--;
			if (k == change[0] || k == change[1])
				prio[best] = lowest--;   /* below every other, in order */
		}
	}
	m->nw = n;
}

/* ---- the operators -------------------------------------------------------------- */

/* Could thread t have taken the parent's step (1-based)? Beyond the
 * steps kept: taken as yes. */
static bool could_step(const struct mut_parent *P, uint32_t step, unsigned t)
{
	return !step || step > P->nsteps || (P->runnable[step - 1] >> t & 1);
}

/* Where a schedule cut stops mattering: after the parent's last step at
 * which two threads or more could run, every pick is forced (one thread
 * left, the others done or blocked on a lock or a grace period), so a cut
 * there makes the parent's run again. Cuts in [0, the returned count)
 * can change the run. (mutator_probe over 21 queue entries: 36% of tail's
 * and 31% of redraw's mutants were the parent's run when the cut was drawn
 * over the whole run; the bound was the parent's last context switch
 * before this one.) The whole run when it may not have ended that way:
 * stopped by a violation or the step limit, or longer than the steps
 * kept. */
static unsigned choice_end(const struct mutator *m)
{
	const struct mut_parent *P = &m->parent;
	unsigned i = m->nw;

	if (P->status != RS_CLEAN || !P->complete || m->nw != P->nsteps)
		return m->nw;
	while (i && !(P->runnable[i - 1] & (P->runnable[i - 1] - 1)))
		i--;
	return i;               /* 0: never a choice */
}

static bool op_tail(struct mutator *m)
{
	unsigned e = choice_end(m);

	if (!e)
		return false;
	keep_steps(m, below(m, e));
	return true;
}

static bool op_redraw(struct mutator *m)
{
	unsigned e = choice_end(m);

	if (!e)
		return false;
	redraw(m, below(m, e));
	return true;
}

static unsigned run_length(struct mutator *m)
{
	return chance(m, 4) ? 1 + below(m, 32) : 1 + below(m, 4);
}

static bool op_preempt(struct mutator *m)
{
	unsigned k, j, a, b;

	if (m->nw < 2 || m->w.nthreads < 2)
		return false;
	k = 1 + below(m, m->nw - 1);
	switch (below(m, 3)) {
	case 0:     /* a new preemption: another thread runs at k */
		b = below(m, m->w.nthreads - 1);
		if (b >= m->tmp[k])
			b++;
		return pull(m, k, b, run_length(m)) > 0;
	case 1:     /* a context switch at or after k moved later or earlier */
		for (j = k; j < m->nw && m->tmp[j] == m->tmp[j - 1]; j++)
			;
		if (j == m->nw)
			return false;
		a = m->tmp[j - 1], b = m->tmp[j];
		if (chance(m, 2)) {
			pull(m, j, a, run_length(m));         /* a runs longer */
		} else {
			unsigned start = j, d, rb = 0;

			while (start > 0 && m->tmp[start - 1] == a)
				start--;
			d = 1 + below(m, j - start);
			for (unsigned i = j; i < m->nw && m->tmp[i] == b; i++)
				rb++;
			pull(m, j - d, b, rb);                 /* b comes d steps earlier */
		}
		return true;
	default:    /* a context switch removed: a's next run joins this one */
		for (j = k; j < m->nw && m->tmp[j] == m->tmp[j - 1]; j++)
			;
		if (j == m->nw)
			return false;
		a = m->tmp[j - 1];
		unsigned i = j, r = 0;

		while (i < m->nw && m->tmp[i] != a)
			i++;
		while (i < m->nw && m->tmp[i] == a)
			i++, r++;
		if (!r)
			return false;
		return pull(m, j, a, r) > 0;
	}
}

static bool op_segment(struct mutator *m)
{
	unsigned a, b, c, la, lb;

	if (m->nw < 2)
		return false;
	a = below(m, m->nw - 1);
	la = 1 + below(m, (m->nw - a - 1) < 64 ? m->nw - a - 1 : 64);
	b = a + la;
	lb = 1 + below(m, (m->nw - b) < 64 ? m->nw - b : 64);
	c = b + lb;
	/* [a, b) [b, c) -> [b, c) [a, b) */
	memcpy(m->tmp2, m->tmp + b, lb);
	memcpy(m->tmp2 + lb, m->tmp + a, la);
	memcpy(m->tmp + a, m->tmp2, la + lb);
	(void)c;
	return true;
}

/* A load of the parent, the rarest reads-from pair of a few drawn (RFF's
 * preference for rarely seen pairs), among those passing ok(). */
static const struct mut_load *rare_load(struct mutator *m, bool (*ok)(const struct mutator *, const struct mut_load *))
{
	const struct mut_parent *P = &m->parent;
	const struct mut_load *best = NULL;
	uint32_t bestc = UINT32_MAX;

	if (!P->nloads)
		return NULL;
	for (int tries = 0; tries < 24; tries++) {
		const struct mut_load *L = &P->loads[below(m, P->nloads)];
		uint32_t c;

		if (!ok(m, L))
			continue;
		c = m->pair_count[pair_site(m, L, L->src)];
		if (c < bestc || (c == bestc && chance(m, 2)))
			best = L, bestc = c;
	}
	return best;
}

/* The stores (indices, in step order backwards) another thread made to
 * L's word that a reordering of the parent's schedule could make L read
 * instead of the one it read, as far as the parent's run tells: a later
 * store if its thread could have stepped at L's step (it was not blocked
 * there, say on a lock L's thread held: then no order puts it first); an
 * earlier one if every store to the word in between is another thread's
 * and L's thread could have stepped at each (they must wait for L). Up to
 * max (0: stop at the first and return 1). Without these conditions 73%
 * of rf's mutants of arm_hw_young_dirty_4k ran the parent's run
 * (mutator_probe): the engine skips a schedule's step for a blocked
 * thread. */
static unsigned rf_candidates(const struct mutator *m, const struct mut_load *L, int32_t *out,
			      unsigned max)
{
	const struct mut_parent *P = &m->parent;
	unsigned n = 0;
	bool open = true;       /* the stores between L and the next earlier one allow it */

	if (L->step > m->nw)
		return 0;
	for (unsigned i = P->nstores; i-- > 0;) {
		const struct mut_store *st = &P->stores[i];
		bool ok;

		if (st->off != L->off || st->step > m->nw)
			continue;
		if (st->step > L->step)
			ok = st->tid != L->tid && could_step(P, L->step, st->tid);
		else if (st->step < L->step && open)
			ok = st->tid != L->tid && (int32_t)i != L->src;
		else
			continue;
		if (ok) {
			if (!max)
				return 1;
			if (n < max)
				out[n++] = (int32_t)i;
		}
		if (st->step < L->step)
			open = open && st->tid != L->tid && could_step(P, st->step, L->tid);
	}
	return n;
}

static bool has_other_store(const struct mutator *m, const struct mut_load *L)
{
	return rf_candidates(m, L, NULL, 0) > 0;
}

static bool op_rf(struct mutator *m)
{
	const struct mut_parent *P = &m->parent;
	const struct mut_load *L = rare_load(m, has_other_store);
	int32_t pick = -1, cands[256];
	uint32_t bestc = UINT32_MAX;
	unsigned ncand;

	if (!L)
		return false;
	/* the store to read instead: the rarest pair among the candidates */
	ncand = rf_candidates(m, L, cands, sizeof(cands) / sizeof(cands[0]));
	for (unsigned k = 0; k < ncand; k++) {
		uint32_t c = m->pair_count[pair_site(m, L, cands[k])];

		if (c < bestc || (c == bestc && below(m, k + 1) == 0))
			pick = cands[k], bestc = c;
	}
	if (pick < 0)
		return false;
	const struct mut_store *st = &P->stores[pick];
	unsigned ka = steps_before(m, L->step - 1, L->tid);
	struct { unsigned a, ka, b, kb; } edge[64];
	unsigned nedge = 0;

	if (st->step > L->step) {
		/* a later store: the load waits for it (and so for every store
		 * before it in the schedule) */
		edge[nedge++] = (typeof(edge[0])){ L->tid, ka, st->tid,
						   steps_before(m, st->step - 1, st->tid) + 1 };
	} else {
		/* an earlier one: every store to the word after it and before
		 * the load waits for the load */
		for (unsigned i = 0; i < P->nstores && nedge < 64; i++) {
			const struct mut_store *x = &P->stores[i];

			if (x->off != L->off || x->step <= st->step || x->step >= L->step)
				continue;
			if (x->tid == L->tid)
				return false;      /* its own store: forwarded, whatever the order */
			edge[nedge++] = (typeof(edge[0])){ x->tid, steps_before(m, x->step - 1, x->tid),
							   L->tid, ka + 1 };
		}
		if (!nedge)
			return false;
	}
	/* (thread step counts do not change under reordering: the edges
	 * were computed on the parent's schedule and apply in any order) */
	for (unsigned i = 0; i < nedge; i++)
		order_after(m, edge[i].a, edge[i].ka, edge[i].b, edge[i].kb);
	m->rf.load_site = L->site;
	m->rf.step = L->step;
	m->rf.from_step = L->src >= 0 ? P->stores[L->src].step : 0;
	m->rf.to_site = st->site;
	if (chance(m, 4))
		keep_steps(m, L->step + below(m, 64));
	return true;
}

static bool has_choice(const struct mutator *m, const struct mut_load *L)
{
	return L->choice >= 0 && L->nopt > 1 && (unsigned)L->choice < m->nwchoices;
}

/* The options of choice i (of n) that do something the parent's did not
 * (bit per option), as far as its run tells (engine/sched.h
 * eng_choose_alike): 0 when every option does what the parent's did;
 * every option but the current one when the mutant's choice is no longer
 * the parent's or the options are too many to tell. */
static uint64_t unlike(const struct mutator *m, unsigned i, unsigned n)
{
	const struct mut_parent *P = &m->parent;
	uint64_t all = n >= 64 ? ~0ull : (1ull << n) - 1;
	unsigned cur = m->wchoices[i] % n;

	if (n > 64 || i >= P->nchoices || cur != P->choices[i])
		return all & ~(cur < 64 ? 1ull << cur : 0);
	return all & ~P->choice_alike[i];
}

/* A load whose choice can read another value than the parent's load did */
static bool has_unlike_choice(const struct mutator *m, const struct mut_load *L)
{
	return has_choice(m, L) && unlike(m, (unsigned)L->choice, L->nopt);
}

/* The set bit of mask (not 0) nearest to bit c, the lower (newer) one on a tie */
static unsigned nearest_bit(uint64_t mask, unsigned c)
{
	for (unsigned d = 0;; d++) {
		if (c >= d && (mask >> (c - d) & 1))
			return c - d;
		if (c + d < 64 && (mask >> (c + d) & 1))
			return c + d;
	}
}

static unsigned random_bit(struct mutator *m, uint64_t mask)
{
	for (unsigned k = below(m, (unsigned)__builtin_popcountll(mask)); k; k--)
		mask &= mask - 1;
	return (unsigned)__builtin_ctzll(mask);
}

static bool op_rf_choice(struct mutator *m)
{
	const struct mut_load *L;
	unsigned c, cur;

	if (m->w.memory != MEM_ARM ||
	    !(L = rare_load(m, has_unlike_choice)) && !(L = rare_load(m, has_choice)))
		return false;
	cur = m->wchoices[L->choice] % L->nopt;
	/* 0 is the newest write; larger, older ones (earlier in coherence order) */
	if (cur && chance(m, 2))
		c = chance(m, 2) ? 0 : cur - 1;
	else
		c = 1 + below(m, L->nopt - 1);
	if (c == cur)
		c = (cur + 1) % L->nopt;
	/* a write of the value the parent's load read made its run again
	 * (but for the view it leaves: an eighth of the time, kept) */
	uint64_t other = unlike(m, (unsigned)L->choice, L->nopt);

	if (other && !(other >> c & 1) && !chance(m, 8))
		c = nearest_bit(other, c);
	m->wchoices[L->choice] = (uint8_t)c;
	m->rf.load_site = L->site;
	m->rf.step = L->step;
	m->rf.from_step = L->src >= 0 ? m->parent.stores[L->src].step : 0;
	m->rf.from_tag = L->tag;
	m->rf.to_site = 0;
	if (chance(m, 2))
		m->nwchoices = (unsigned)L->choice + 1;   /* after it: a fresh stream */
	return true;
}

static bool op_choice(struct mutator *m)
{
	if (m->w.memory != MEM_ARM || chance(m, 6)) {
		/* the memory model itself */
		m->w.memory = m->w.memory == MEM_ARM ? MEM_SC : MEM_ARM;
		m->nwchoices = 0;
		return true;
	}
	if (m->nwchoices && chance(m, 2)) {
		/* one choice, to another of its options (the engine takes a
		 * choice modulo its options: a value equal to the old one
		 * modulo them made the parent's run again, half of this
		 * operator's mutants) */
		unsigned i = below(m, m->nwchoices), n = i < m->parent.nchoices ? m->parent.choice_n[i] : 0;
		uint64_t other = n >= 2 ? unlike(m, i, n) : 0;

		/* a choice whose options all do what the parent's did (a store
		 * held back at level 0: never) changes nothing: another one */
		for (int tries = 0; n >= 2 && !other && tries < 8; tries++) {
			i = below(m, m->nwchoices);
			n = i < m->parent.nchoices ? m->parent.choice_n[i] : 0;
			other = n >= 2 ? unlike(m, i, n) : 0;
		}
		if (other)
			m->wchoices[i] = (uint8_t)random_bit(m, other);
		else if (n >= 2)
			m->wchoices[i] = (uint8_t)((m->wchoices[i] % n + 1 + below(m, n - 1)) % n);
		else
			m->wchoices[i] = (uint8_t)below(m, chance(m, 2) ? 2 : 256);
		return true;
	}
	m->nwchoices = below(m, m->nwchoices + 1);
	return true;
}

static unsigned pick_thread(struct mutator *m, bool nonempty)
{
	unsigned t = below(m, m->w.nthreads);

	for (unsigned i = 0; nonempty && i < m->w.nthreads && !m->w.ninstr[t]; i++)
		t = (t + 1) % m->w.nthreads;
	return t;
}

/* One flag word of the descriptor set or cleared (map's young, dirty,
 * new, a prot; access_flags' request; ...), the rest kept: most of the
 * time. Else all flags at random. */
static void mutate_flags(struct mutator *m, const struct op_desc *d, uint8_t *flags)
{
	unsigned n = 0;

	for (const struct op_word *w = d->words; w && w->word; w++)
		n++;
	if (!n || chance(m, 4)) {
		*flags = (uint8_t)(rng_next(&m->rng) & d->flags);
		return;
	}
	const struct op_word *w = &d->words[below(m, n)];

	*flags = op_word_toggle(*flags, w->mask, w->value) & d->flags;
}

static bool op_instr(struct mutator *m)
{
	unsigned t = pick_thread(m, true), i;
	struct instr *in, old;
	const struct op_desc *d;
	const char *why;

	if (!m->w.ninstr[t])
		return false;
	i = below(m, m->w.ninstr[t]);
	in = &m->w.prog[t][i];
	old = *in;
	d = instr_desc(in->op);
	if (chance(m, 3) || d->shape == OP_SHAPE_NONE) {
		draw_instr(m, &m->w, t, in);
	} else {
		/* one argument: the block, the entry or range, or (half the
		 * time, for an instruction that takes them) one flag word */
		switch (below(m, d->flags ? 4 : 2)) {
		case 0:
			in->block = (uint8_t)below(m, m->w.nblocks);
			break;
		case 1:
			if (d->shape == OP_SHAPE_RANGE)
				draw_range(m, m->cont, &in->s, &in->n);
			else
				in->s = (uint8_t)below(m, m->cont);
			break;
		default:
			if (d->flags)
				mutate_flags(m, d, &in->flags);
			else
				draw_instr(m, &m->w, t, in);
			break;
		}
	}
	if (!instr_valid(in, m->cont, m->w.nblocks, &why))
		*in = old;
	keep_steps(m, draw_cut(m));
	return true;
}

static bool op_insert(struct mutator *m)
{
	unsigned t = pick_thread(m, false), i;

	if (m->w.ninstr[t] == SCRIPT_MAX_INSTRS)
		return false;
	i = below(m, m->w.ninstr[t] + 1);
	memmove(&m->w.prog[t][i + 1], &m->w.prog[t][i], (m->w.ninstr[t] - i) * sizeof(struct instr));
	m->w.ninstr[t]++;
	draw_instr(m, &m->w, t, &m->w.prog[t][i]);
	keep_steps(m, draw_cut(m));
	return true;
}

static bool op_delete(struct mutator *m)
{
	unsigned t = pick_thread(m, true), i;

	if (!m->w.ninstr[t])
		return false;
	i = below(m, m->w.ninstr[t]);
	memmove(&m->w.prog[t][i], &m->w.prog[t][i + 1], (m->w.ninstr[t] - i - 1) * sizeof(struct instr));
	m->w.ninstr[t]--;
	keep_steps(m, draw_cut(m));
	return true;
}

static bool op_move(struct mutator *m)
{
	struct instr *cand[SCRIPT_MAX_THREADS * SCRIPT_MAX_INSTRS];
	unsigned n = 0, writers = 0;
	const char *why;

	/* writer ops first (descriptors with a run function), else any with an entry */
	for (int pass = 0; pass < 2 && !n; pass++)
		for (unsigned t = 0; t < m->w.nthreads; t++)
			for (unsigned i = 0; i < m->w.ninstr[t]; i++) {
				const struct op_desc *d = instr_desc(m->w.prog[t][i].op);

				if (d->shape != OP_SHAPE_NONE && (pass || d->run))
					cand[n++] = &m->w.prog[t][i], writers += !pass;
			}
	if (!n)
		return false;
	struct instr *in = cand[below(m, n)], old = *in;
	const struct op_desc *d = instr_desc(in->op);

	if (m->w.nblocks > 1 && chance(m, 3)) {
		in->block = (uint8_t)((in->block + 1 + below(m, m->w.nblocks - 1)) % m->w.nblocks);
	} else {
		int delta = chance(m, 3) ? (int)below(m, m->cont) - (int)in->s : (int)(1 + below(m, 3)) * (chance(m, 2) ? 1 : -1);
		int s = (int)in->s + delta;

		if (s < 0)
			s = 0;
		if (s >= (int)m->cont)
			s = (int)m->cont - 1;
		in->s = (uint8_t)s;
		if (d->shape == OP_SHAPE_RANGE && in->n > m->cont - in->s)
			in->n = (uint8_t)(m->cont - in->s);
	}
	if (!instr_valid(in, m->cont, m->w.nblocks, &why) || !memcmp(in, &old, sizeof(old))) {
		*in = old;
		return false;
	}
	keep_steps(m, draw_cut(m));
	return true;
}

static bool op_block(struct mutator *m)
{
	struct script *s = &m->w;
	unsigned b = below(m, s->nblocks);

	/* a script with a TLB: a fifth choice, a tlb_entry line added or
	 * dropped (scripts without one draw as before) */
	switch (below(m, s->tlb ? 5 : 4)) {
	case 4:
		if (s->ntlb_init && (s->ntlb_init == SCRIPT_MAX_TLB_INIT || chance(m, 2))) {
			unsigned i = below(m, s->ntlb_init);

			s->tlb_init[i] = s->tlb_init[--s->ntlb_init];
		} else {
			/* drawn in this order (an initializer list's is unspecified) */
			unsigned thread = below(m, s->nthreads), entry = below(m, m->cont);
			unsigned write = below(m, 2);

			s->tlb_init[s->ntlb_init++] = (struct script_tlb_init){
				.thread = (uint8_t)thread, .block = (uint8_t)b,
				.entry = (uint8_t)entry, .flags = (uint8_t)write,
			};
		}
		break;
	case 0:
		s->block[b].shape = (uint8_t)((s->block[b].shape + 1 + below(m, BS_COUNT - 1)) % BS_COUNT);
		if (s->block[b].shape == BS_NONE)
			s->block[b].flags = 0;
		break;
	case 1:
		if (s->block[b].shape == BS_NONE)
			return false;
		s->block[b].flags = (uint8_t)(rng_next(&m->rng) & (OPF_YOUNG | OPF_DIRTY | OPF_PROT_MASK));
		break;
	case 2:
		if (s->nblocks == SCRIPT_MAX_BLOCKS)
			return false;
		b = s->nblocks++;
		s->block[b].shape = (uint8_t)below(m, BS_COUNT);
		s->block[b].flags = s->block[b].shape == BS_NONE ? 0 :
				    (uint8_t)(rng_next(&m->rng) & (OPF_YOUNG | OPF_DIRTY | OPF_PROT_MASK));
		break;
	default:
		if (s->nblocks == 1)
			return false;
		s->nblocks--;
		fit_blocks(s);
		break;
	}
	keep_steps(m, draw_cut(m));
	return true;
}

static bool op_splice(struct mutator *m, const uint8_t *add, size_t addlen)
{
	struct script_error err;
	struct script *o = &m->other;
	unsigned u, t;

	if (!add || script_walk(add, addlen, SCRIPT_LENIENT, m->cont, o, &err) || chance(m, 4))
		gen_script(o, m->granule_kb, m->target, &m->rng);   /* a random program's thread */
	u = below(m, o->nthreads);
	if (m->w.nthreads < SCRIPT_MAX_THREADS && chance(m, 3)) {
		t = m->w.nthreads++;
	} else {
		t = below(m, m->w.nthreads);
	}
	m->w.ninstr[t] = o->ninstr[u];
	memcpy(m->w.prog[t], o->prog[u], sizeof(m->w.prog[t]));
	fit_blocks(&m->w);
	keep_steps(m, draw_cut(m));
	return true;
}

static void copy_script(struct script *d, const struct script *s);

/* The programs the engine's own exploration runs: PCT on them finds bugs
 * that PCT on the hand-written seeds never does (ee_sticky_flags), so a
 * campaign needs them as raw material, and keeps those that reach new
 * reads-from pairs. Under the arm model half the time (what exploration
 * runs by default: campaigns from sc seeds reach arm-only bugs), else the
 * parent's. */
static bool op_generate(struct mutator *m)
{
	uint8_t memory = chance(m, 2) ? MEM_ARM : m->w.memory;
	/* the machine stays the parent's: its TLB model (a campaign on the
	 * TLB model starts from seeds with a tlb line) and BBML2 */
	uint8_t tlb = m->w.tlb, evict = m->w.tlb_evict;
	uint8_t bbml2 = m->w.bbml2;

	gen_script(&m->other, m->granule_kb, m->target, &m->rng);
	copy_script(&m->w, &m->other);
	m->w.memory = memory;
	m->w.tlb = tlb;
	m->w.tlb_evict = evict;
	m->w.bbml2 = bbml2;
	m->nw = 0;
	m->nwchoices = 0;
	return true;
}

static bool op_havoc(struct mutator *m, uint8_t *buf)
{
	struct script_error err;
	size_t len, head;

	m->w.nsched = 0;
	len = script_encode(&m->w, buf);
	head = 8 + strlen(m->w.variant);       /* leave the header alone */
	if (len <= head)
		return false;
	for (unsigned k = 1 + below(m, 8); k; k--) {
		size_t i = head + below(m, (unsigned)(len - head));

		switch (below(m, 4)) {
		case 0: buf[i] ^= (uint8_t)(1u << below(m, 8)); break;
		case 1: buf[i] = (uint8_t)rng_next(&m->rng); break;
		case 2: buf[i] = (uint8_t)(buf[i] + 1 + below(m, 8)); break;
		default:
			if (len < SCRIPT_MAX_BYTES) {     /* insert a byte */
				memmove(buf + i + 1, buf + i, len - i);
				buf[i] = (uint8_t)rng_next(&m->rng);
				len++;
			}
			break;
		}
	}
	if (script_walk(buf, len, SCRIPT_LENIENT, m->cont, &m->other, &err))
		return false;
	copy_script(&m->w, &m->other);
	m->nw = 0;           /* the bytes' schedule, then the engine's tail */
	for (unsigned i = 0; i < m->other.nsched; i++)
		for (unsigned r = (m->other.sched[i] >> 3) + 1; r && m->nw < MUT_MAX_STEPS; r--)
			m->tmp[m->nw++] = m->other.sched[i] & 7;
	if (m->w.memory != MEM_ARM)
		m->nwchoices = 0;
	else
		memcpy(m->wchoices, m->w.choices, m->nwchoices = m->w.nchoices);
	return true;
}

/* ---- one mutant ------------------------------------------------------------------- */

/* d = s, copying only the choices and schedule entries in use (a script
 * is 17 KB, nearly all of it room for them). */
static void copy_script(struct script *d, const struct script *s)
{
	memcpy(d, s, offsetof(struct script, choices));
	memcpy(d->choices, s->choices, s->nchoices);
	d->nsched = s->nsched;
	memcpy(d->sched, s->sched, s->nsched);
}

/* What script_decode would check of a script built here (engine/script.c's
 * rules, without decoding 17 KB again): false if it would be rejected. */
static bool valid(const struct mutator *m, const struct script *s)
{
	const char *why;

	if (s->granule_kb != m->granule_kb || s->nblocks < 1 || s->nblocks > SCRIPT_MAX_BLOCKS ||
	    s->nthreads < 1 || s->nthreads > SCRIPT_MAX_THREADS || s->memory >= MEM_MODEL_COUNT ||
	    (s->memory == MEM_SC && s->nchoices) || s->nchoices > SCRIPT_MAX_CHOICES ||
	    s->nsched > SCRIPT_MAX_SCHED || s->expect != EXPECT_NONE)
		return false;
	for (unsigned b = 0; b < s->nblocks; b++)
		if (s->block[b].shape >= BS_COUNT || (s->block[b].flags & ~(OPF_YOUNG | OPF_DIRTY | OPF_PROT_MASK)) ||
		    (s->block[b].shape == BS_NONE && s->block[b].flags))
			return false;
	for (unsigned t = 0; t < s->nthreads; t++) {
		if (s->ninstr[t] > SCRIPT_MAX_INSTRS)
			return false;
		for (unsigned i = 0; i < s->ninstr[t]; i++)
			if (!instr_valid(&s->prog[t][i], m->cont, s->nblocks, &why))
				return false;
	}
	for (unsigned i = 0; i < s->nsched; i++)
		if ((s->sched[i] & 7) >= s->nthreads)
			return false;
	if (s->tlb_evict > 1 || s->ntlb_init > SCRIPT_MAX_TLB_INIT || (s->ntlb_init && !s->tlb))
		return false;
	for (unsigned i = 0; i < s->ntlb_init; i++)
		if (s->tlb_init[i].thread >= s->nthreads || s->tlb_init[i].block >= s->nblocks ||
		    s->tlb_init[i].entry >= m->cont || s->tlb_init[i].flags > 1)
			return false;
	return true;
}

static enum mut_op draw_op(struct mutator *m)
{
	unsigned total = 0, r;

	for (int i = 0; i < MO_COUNT; i++)
		total += m->weight[i];
	r = below(m, total);
	for (int i = 0; i < MO_COUNT; i++) {
		if (r < m->weight[i])
			return (enum mut_op)i;
		r -= m->weight[i];
	}
	return MO_TAIL;
}

static bool apply(struct mutator *m, enum mut_op op, const uint8_t *add, size_t addlen, uint8_t *buf)
{
	switch (op) {
	case MO_TAIL: return op_tail(m);
	case MO_REDRAW: return op_redraw(m);
	case MO_PREEMPT: return op_preempt(m);
	case MO_SEGMENT: return op_segment(m);
	case MO_RF: return op_rf(m);
	case MO_RF_CHOICE: return op_rf_choice(m);
	case MO_CHOICE: return op_choice(m);
	case MO_INSTR: return op_instr(m);
	case MO_INSERT: return op_insert(m);
	case MO_DELETE: return op_delete(m);
	case MO_MOVE: return op_move(m);
	case MO_BLOCK: return op_block(m);
	case MO_SPLICE: return op_splice(m, add, addlen);
	case MO_GENERATE: return op_generate(m);
	case MO_HAVOC: return op_havoc(m, buf);
	default: return false;
	}
}

/* The working copy back into a script: the spelled-out steps run-length
 * encoded (as many as fit), threads fitted, the choices under arm. */
static void finish(struct mutator *m)
{
	struct script *s = &m->w;
	unsigned n = 0;

	for (unsigned i = 0; i < m->nw; i++) {
		uint8_t t = m->tmp[i];

		if (t >= s->nthreads)
			continue;           /* a thread spliced away or dropped */
		if (n && (s->sched[n - 1] & 7) == t && (s->sched[n - 1] >> 3) < 31) {
			s->sched[n - 1] += 8;
			continue;
		}
		if (n == SCRIPT_MAX_SCHED)
			break;
		s->sched[n++] = t;
	}
	s->nsched = n;
	if (s->memory == MEM_ARM) {
		s->nchoices = m->nwchoices;
		memcpy(s->choices, m->wchoices, m->nwchoices);
	} else {
		s->nchoices = 0;
	}
	s->granule_kb = m->granule_kb;
	strcpy(s->variant, m->target);
	s->expect = EXPECT_NONE;
}

size_t mut_fuzz(struct mutator *m, enum mut_op op, const uint8_t *add, size_t addlen, uint8_t *out)
{
	const struct mut_parent *P = &m->parent;
	size_t len;
	bool done = false;

	if (!P->valid)
		return 0;
	for (int tries = 0; tries < 8 && !done; tries++) {
		enum mut_op o = op < MO_COUNT && tries < 4 ? op : draw_op(m);

		copy_script(&m->w, &P->s);
		memcpy(m->tmp, P->steps, m->nw = P->nsteps);
		memcpy(m->wchoices, P->choices, m->nwchoices = P->nchoices);
		if (apply(m, o, add, addlen, out)) {
			m->last = o;
			done = true;
		}
	}
	if (!done) {                 /* nothing applied: a fresh tail */
		copy_script(&m->w, &P->s);
		memcpy(m->tmp, P->steps, m->nw = P->nsteps);
		memcpy(m->wchoices, P->choices, m->nwchoices = P->nchoices);
		op_tail(m);
		m->last = MO_TAIL;
	}
	finish(m);
	if (!valid(m, &m->w)) {
		/* never emit an invalid script: the parent as read instead */
		m->invalid++;
		copy_script(&m->w, &P->s);
		m->w.nsched = 0;
	}
	len = script_encode(&m->w, out);
	m->applied[m->last]++;
	return len;
}

const struct script *mut_last_script(const struct mutator *m)
{
	return &m->w;
}
