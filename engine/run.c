/* engine/run.c - one script on the engine (see engine/run.h). */
#include "engine/run.h"

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/oracle/history.h"
#include "core/fault.h"
#include "core/finding.h"
#include "core/hw.h"
#include "core/tlb.h"
#include "core/mm.h"
#include "core/oob.h"
#include "core/ops.h"
#include "core/plain_access.h"
#include "core/oracle/oracle.h"
#include "core/rcu.h"


/* Read shapes and loads' reads-from pairs share the feature map: the salt
 * keeps a shape's hash apart from a pair's, but a shape can still land on a
 * slot some pair hits (slots of their own were measured and found worse:
 * docs/fuzzing.md, "Read shapes"). */
#define READ_SHAPE_SALT 0x5bd1e995u

/* Segments are created once per (variant, blocks) and reset per run. */
#define MM_CACHE 16
static struct mm_slot {
	const struct variant *v;
	unsigned nblocks;
	struct harness_mm m;
} mm_cache[MM_CACHE];

/* The run in progress (one at a time). */
static struct run_state {
	const struct script *s;
	struct harness_mm *m;
	struct run_result *r;
	struct block_plan plans[SCRIPT_MAX_BLOCKS];
	bool reading[ENG_MAX_THREADS];
	/* each thread's read in progress (where reading): probe_open sets
	 * what probe_close and probe_judge use, so a run does not clear
	 * these 16 KB (two 128-entry copies of a block per thread) */
	/* where a thread's read, or its fault path's read, is let go after a
	 * known livelock or plain access (core/finding.h); NULL outside one */
	sigjmp_buf *read_jb[ENG_MAX_THREADS], *fault_jb[ENG_MAX_THREADS];
	struct probe probe[ENG_MAX_THREADS];
} R;

/* do_read's jump back for a read let go (beside core/oob.h's values) */
#define JMP_LET_GO 9
/* The writers' contexts (each holds a violation report: kept out of R,
 * which is cleared per run; run_script resets what a run uses). */
static struct writer_ctx wctx[ENG_MAX_THREADS];
/* Each thread's TLB, for its hardware accesses (a script's tlb line). */
static struct tlb eng_tlbs[ENG_MAX_THREADS];

static struct eng_event *event_buf;
#define EVENTS_CAP (1u << 20)

const struct variant *run_find_variant(const char *name, unsigned granule_kb, char *err,
				       size_t errlen)
{
	const struct granule *g = granule_by_kb(granule_kb);
	const struct variant *v = g ? variant_find(name, g) : NULL;

	if (!v) {
		size_t off = snprintf(err, errlen, "variant '%s' is not built for granule %uk in this binary (have:",
				      name, granule_kb);
		for (unsigned i = 0; i < variant_count() && off < errlen; i++)
			if (g && variant_at(i)->granule == g)
				off += snprintf(err + off, errlen - off, " %s", variant_at(i)->name);
		if (off < errlen)
			snprintf(err + off, errlen - off, ")");
	}
	return v;
}

static struct harness_mm *mm_for(const struct variant *v, unsigned nblocks, char *err,
				 size_t errlen)
{
	for (unsigned i = 0; i < MM_CACHE; i++) {
		struct mm_slot *c = &mm_cache[i];

		if (c->v == v && c->nblocks == nblocks) {
			hmm_reset(&c->m);
			return &c->m;
		}
		if (!c->v) {
			if (hmm_create(&c->m, v, 1, nblocks, err, errlen))
				return NULL;
			c->v = v;
			c->nblocks = nblocks;
			return &c->m;
		}
	}
	/* cache full: recycle the last slot */
	struct mm_slot *c = &mm_cache[MM_CACHE - 1];
	hmm_destroy(&c->m);
	c->v = NULL;
	if (hmm_create(&c->m, v, 1, nblocks, err, errlen))
		return NULL;
	c->v = v;
	c->nblocks = nblocks;
	return &c->m;
}

/* A violation of thread tid (ENG_MAX_THREADS: outside the threads),
 * identified and counted (core/finding.h). A known one does not end the
 * run: false, and the thread goes on. True: the caller ends the run (the
 * first violation is the run's). */
static bool found(unsigned tid, const struct violation *cv)
{
	struct violation *v = (struct violation *)cv;   /* the reporters' own copies */

	finding_identify(v);
	if (finding_note(v, NULL)) {
		R.r->known++;
		return false;
	}
	if (R.r->status == RS_VIOLATION)
		return true;
	R.r->status = RS_VIOLATION;
	R.r->vio = *v;
	R.r->vio_tid = tid < ENG_MAX_THREADS ? (int)tid : -1;
	R.r->vio_instr = tid < ENG_MAX_THREADS ? (int)eng.th[tid].instr : -1;
	return true;
}

/* After a known violation in a read: the read is let go (it may spin for
 * ever), or with nowhere to go the run ends (clean so far). */
static void let_go(unsigned tid)
{
	eng.th[tid].solo_loads = 0;
	if (R.read_jb[tid])
		siglongjmp(*R.read_jb[tid], JMP_LET_GO);
	if (R.fault_jb[tid])
		siglongjmp(*R.fault_jb[tid], 1);
	eng_stop();
}

/* A subject's plain access to an entry (core/plain_access.h): the run ends
 * there (a spin on plain loads would never reach a scheduling point). */
static void report_plain_access(const struct violation *v)
{
	if (found(eng.cur >= 0 ? (unsigned)eng.cur : ENG_MAX_THREADS, v)) {
		if (eng.cur >= 0)
			eng_stop();
	} else if (eng.cur >= 0 && (R.read_jb[eng.cur] || R.fault_jb[eng.cur])) {
		let_go((unsigned)eng.cur);
	}
}

/* All blocks' owed bits (under the PTL, or with every thread done). */
static bool check_owed_all(unsigned tid, int touched)
{
	struct violation vio;

	for (unsigned b = 0; b < R.m->bpt; b++) {
		if (touched >= 0 && (unsigned)touched != b)
			continue;
		if (!oracle_check_owed(R.m, 0, b, &vio) && found(tid, &vio))
			return false;
	}
	return true;
}

/* A read passed property 4's bound with every other thread standing still. */
static void on_solo_limit(unsigned tid)
{
	struct violation v;
	char who[32];

	if (!R.reading[tid]) {
		eng.th[tid].solo_loads = 0;
		return;
	}
	snprintf(who, sizeof(who), "reader (thread %u)", tid);
	progress_report(R.m, &R.probe[tid], eng.th[tid].solo_loads, who, &v);
	if (found(tid, &v))
		eng_stop();
	let_go(tid);
}

/* A read that faulted off the tables (core/oob.h): true if it ends the run. */
static bool read_faulted(unsigned tid, struct probe *p, int sig, const struct acc_guard *g)
{
	struct violation vio;
	char where[160];

	vio.kind = VK_OOB;
	snprintf(vio.summary, sizeof(vio.summary),
		 "out_of_bounds: the reader of table 0 block %u entry %u faulted (%s) on %s",
		 p->o.block, p->o.t, sig == OOB_SIGBUS ? "SIGBUS" : "SIGSEGV",
		 hmm_where(R.m, g->fault_addr, where, sizeof(where)));
	snprintf(vio.detail, sizeof(vio.detail),
		 "  a %s read loaded outside the table pages: the guard page after them, or\n"
		 "  outside the harness's segment\n", p->o.locked ? "locked" : "lockless");
	return found(tid, &vio);
}

static void do_read(unsigned tid, const struct instr *in)
{
	const struct variant *v = R.m->v;
	struct probe *p = &R.probe[tid];
	bool locked = in->op == SI_READ_LOCKED;
	struct violation vio;
	uint64_t *ptep, val;
	sigjmp_buf jb;
	struct acc_guard g = { .recover = &jb };
	int sig;

	if (locked)
		eng_lock(0);
	ptep = probe_open(R.m, p, 0, in->block, in->s, locked);
	if (!ptep)
		return;     /* a lockless read of a table being torn down: none */
	R.reading[tid] = true;
	eng.th[tid].solo_loads = 0;
	acc_self.guard = &g;
	R.read_jb[tid] = &jb;
	if ((sig = sigsetjmp(jb, 0))) {
		/* a fault off the tables, or let go after a known violation:
		 * the read is abandoned */
		acc_self.guard = NULL;
		R.read_jb[tid] = NULL;
		R.reading[tid] = false;
		eng.th[tid].solo_loads = 0;
		if (sig != JMP_LET_GO && read_faulted(tid, p, sig, &g))
			eng_stop();
		probe_abandon(p);
		if (locked)
			eng_unlock(0);
		return;
	}
	val = locked ? v->ptep_get(ptep) : v->ptep_get_lockless(ptep);
	acc_self.guard = NULL;
	R.read_jb[tid] = NULL;
	R.reading[tid] = false;
	probe_close(R.m, p, val);
	if (locked)
		eng_unlock(0);
	R.r->reads++;
	if (eng.feature && eng.feature_reads)   /* a feature apart from the loads' */
		eng.feature((uint32_t)eng_mix(READ_SHAPE_SALT, read_shape(R.m, &p->o)));
	if (probe_judge(R.m, p, &vio, &R.r->judged) == VERDICT_VIOLATION && found(tid, &vio))
		eng_stop();
}

static void do_op(unsigned tid, const struct instr *in)
{
	struct writer_ctx *w = &wctx[tid];
	struct op_args a = { in->s, in->n, in->flags, 0 };
	struct violation vio;
	int touched;

	eng_lock(0);
	history_attach(w);
	if (op_run(R.m, w, R.plans, 0, in->block, (enum op)(in->op - SI_OP), &a, &touched))
		R.r->ops++;
	w->consumes = 0;
	history_detach();
	if (!op_verdict(R.m, w, 0, touched, &vio)) {
		if (found(tid, &vio))
			eng_stop();
		/* a teardown that left its block mixed, known: the rest of
		 * exit_mmap's zap (core/ops.h), judged in turn */
		history_attach(w);
		bool again = op_finish_exit(R.m, w, R.plans, &touched);
		w->consumes = 0;
		history_detach();
		if (again && !op_verdict(R.m, w, 0, touched, &vio) && found(tid, &vio))
			eng_stop();
	}
	eng_unlock(0);
}

/* The faulting agent (core/fault.h) on the engine: the PTL is the
 * scheduler's lock 0. */
static void fault_lock(struct fault_env *e, unsigned lt) { (void)e; (void)lt; eng_lock(0); }
static void fault_unlock(struct fault_env *e, unsigned lt) { (void)e; (void)lt; eng_unlock(0); }
static bool fault_stopping(struct fault_env *e) { (void)e; return false; }

/* The fault path's lockless read is a read: one that never returns while
 * nothing else can run is a livelock (property 4), reported as a reader's. */
static void fault_reading(struct fault_env *e, unsigned lt, unsigned b, unsigned j, bool begin)
{
	unsigned tid = (unsigned)eng.cur;
	struct probe *p = &R.probe[tid];

	(void)e;
	if (begin) {
		p->o.lt = lt;
		p->o.block = b;
		p->o.t = j;
		p->o.locked = false;
		p->e = hmm_slot_entries(R.m, R.m->tables[lt]) + b * R.m->cont;
		eng.th[tid].solo_loads = 0;
	}
	R.reading[tid] = begin;
}

static void do_fault(unsigned tid, const struct instr *in)
{
	struct writer_ctx *w = &wctx[tid];
	struct fault_env env = {
		.m = R.m, .w = w, .plans = R.plans,
		.lock = fault_lock, .unlock = fault_unlock, .stopping = fault_stopping,
		.reading = fault_reading,
	};
	struct violation vio;
	sigjmp_buf jb;
	int bad;

	history_attach(w);
	if (sigsetjmp(jb, 0)) {
		/* the fault path's lockless read let go after a known livelock
		 * (inside its RCU read-side section, without the PTL): the
		 * device gives up this access */
		R.fault_jb[tid] = NULL;
		R.reading[tid] = false;
		rcu_read_unlock();
		history_detach();
		R.r->faults++;
		return;
	}
	R.fault_jb[tid] = &jb;
	bad = fault_access(&env, 0, in->block, in->s, in->flags & 1, &vio);
	R.fault_jb[tid] = NULL;
	history_detach();
	R.r->faults++;
	R.r->fixups += (unsigned)env.fixups;
	if (bad && found(tid, &vio))
		eng_stop();
}

/* What runs an instruction, as a finding names it (core/finding.h). */
static const char *instr_role(const struct instr *in)
{
	switch (in->op) {
	case SI_READ: return "read";
	case SI_READ_LOCKED: return "read_locked";
	case SI_TOUCH: return "hw";
	case SI_FAULT: return "fault";
	case SI_GP: return NULL;                /* a grace period judges nothing */
	default: return in->op >= SI_OP && in->op < SI_OP + OP_COUNT ? op_name((enum op)(in->op - SI_OP)) : NULL;
	}
}

static void body(unsigned tid)
{
	const struct script *s = R.s;

	for (unsigned i = 0; i < s->ninstr[tid]; i++) {
		const struct instr *in = &s->prog[tid][i];

		eng.th[tid].instr = i;
		finding_begin(instr_role(in));
		switch (in->op) {
		case SI_READ:
		case SI_READ_LOCKED:
			do_read(tid, in);
			break;
		case SI_TOUCH:
			if (R.m->tlb_on) {
				static struct violation vio;

				/* a step of its own: a TLB hit reads no memory, so
				 * without it the access would run glued to the
				 * thread's previous step (at the start, before any
				 * other thread), and a writer could never come
				 * between two touches of one translation - the
				 * stale-translation bugs' shape (docs/tlb.md) */
				eng_point(EK_LOAD);

				if (tlb_access(R.m, &eng_tlbs[tid], 0, in->block, in->s, in->flags & 1, &vio) == TLB_BAD &&
				    found(tid, &vio))
					eng_stop();
			} else {
				hw_access(R.m, 0, in->block, in->s, in->flags & 1);
			}
			R.r->touches++;
			break;
		case SI_GP:
			synchronize_rcu();
			R.r->gps++;
			break;
		case SI_FAULT:
			do_fault(tid, in);
			break;
		default:
			do_op(tid, in);
			break;
		}
	}
}

/* A map of the initial state, judged like any op (a subject whose map is
 * wrong is caught before the first step). */
static void set_up_map(struct writer_ctx *w, unsigned b, const struct op_args *a)
{
	struct violation vio;
	int touched;

	if (R.r->status == RS_VIOLATION)
		return;
	op_run(R.m, w, R.plans, 0, b, OP_MAP, a, &touched);
	w->consumes = 0;
	if (!op_verdict(R.m, w, 0, touched, &vio))
		found(ENG_MAX_THREADS, &vio);
}

/* Initial block states, made by the variant's own writers (with the
 * history observer, outside any thread: no scheduling points). */
static void set_up_blocks(void)
{
	const struct script *s = R.s;
	struct writer_ctx *w = &wctx[0];
	unsigned cont = R.m->cont;

	history_attach(w);
	finding_begin(op_name(OP_MAP));
	for (unsigned b = 0; b < s->nblocks && R.r->status != RS_VIOLATION; b++) {
		unsigned f = s->block[b].flags | OPF_NEW_FOLIO;
		struct op_args half = { 0, cont / 2, f }, rest = { cont / 2, cont / 2, f };
		struct op_args all = { 0, cont, f };

		switch (s->block[b].shape) {
		case BS_PTES:           /* two halves: never folded */
			set_up_map(w, b, &half);
			set_up_map(w, b, &rest);
			break;
		case BS_CONT:           /* the whole block at once: CONT */
			set_up_map(w, b, &all);
			break;
		case BS_HALF:
			set_up_map(w, b, &half);
			break;
		default:
			break;
		}
	}
	history_detach();
}

/* The TLBs' initial contents (tlb_entry lines): each a hardware access
 * through the thread's TLB before the first step, walking the table the
 * blocks were made in (setting AF, and dirty for a write, as a touch
 * does) and caching what it walked. An entry that is not valid caches
 * nothing. */
static void set_up_tlbs(void)
{
	const struct script *s = R.s;

	for (unsigned i = 0; i < s->ntlb_init; i++) {
		struct violation vio;

		tlb_access(R.m, &eng_tlbs[s->tlb_init[i].thread], 0, s->tlb_init[i].block,
			   s->tlb_init[i].entry, s->tlb_init[i].flags & 1, &vio);
	}
}

/* A zeroed result, but for its violation's 8 KB of text: violation_clear
 * empties the report without writing it (a run fills it in only on a
 * violation, and the fuzz harness runs one every few microseconds). */
static void result_clear(struct run_result *r)
{
	size_t after = offsetof(struct run_result, vio) + sizeof(r->vio);

	memset(r, 0, offsetof(struct run_result, vio));
	violation_clear(&r->vio);
	memset((char *)r + after, 0, sizeof(*r) - after);
}

enum run_status run_script(const struct script *s, const struct run_opts *o,
			   struct run_result *r)
{
	char err[256];
	const struct variant *v = o->variant;
	struct eng_policy pol = o->policy;

	result_clear(r);
	r->vio_tid = r->vio_instr = -1;
	if (!v && !(v = run_find_variant(s->variant, s->granule_kb, err, sizeof(err)))) {
		snprintf(r->error, sizeof(r->error), "%s", err);
		return r->status = RS_ERROR;
	}
	if (v->granule->cont_ptes != granule_cont(s->granule_kb)) {
		snprintf(r->error, sizeof(r->error), "variant %s is built for granule %s, the script says %uk",
			 v->name, v->granule->name, s->granule_kb);
		return r->status = RS_ERROR;
	}
	/* the answers of the probes the harness does not model (cap lines) */
	if (s->caps[0] && cpu_caps_apply(s->caps, r->error, sizeof(r->error)))
		return r->status = RS_ERROR;
	memset(&R, 0, offsetof(struct run_state, probe));
	R.s = s;
	R.r = r;
	if (!(R.m = mm_for(v, s->nblocks, err, sizeof(err)))) {
		snprintf(r->error, sizeof(r->error), "%s", err);
		return r->status = RS_ERROR;
	}
	for (unsigned t = 0; t < ENG_MAX_THREADS; t++) {
		wctx[t].m = R.m;
		wctx[t].id = t;         /* reports name a writer by its thread */
		wctx[t].failed = false;
		atomic_store(&wctx[t].cur_op, 0);
	}
	kc_bbml2 = o->bbml2 ? o->bbml2 : s->bbml2;
	plain_access_set_reporter(report_plain_access);
	if (pol.kind == ES_SCRIPT) {
		pol.sched = s->sched;
		pol.nsched = s->nsched;
		pol.tail_seed = script_tail_seed(s);
		pol.memory = s->memory;
		pol.choices = s->choices;
		pol.nchoices = s->nchoices;
		pol.choice_seed = pol.tail_seed ^ 0x6d656d6f7279ULL;
	} else {
		pol.memory = s->memory;
		pol.choices = NULL;
		pol.nchoices = 0;
		pol.choice_seed = pol.seed ^ 0x6d656d6f7279ULL;
	}
	eng.feature = o->feature;
	eng.step_limit = o->step_limit ? o->step_limit : 200000;
	eng.solo_bound = progress_bound(R.m->cont);
	eng.on_solo_limit = on_solo_limit;
	if (o->record_events) {
		if (!event_buf && !(event_buf = malloc(EVENTS_CAP * sizeof(*event_buf)))) {
			snprintf(r->error, sizeof(r->error), "out of memory for the trace");
			return r->status = RS_ERROR;
		}
		eng.events = event_buf;
		eng.events_cap = EVENTS_CAP;
	} else {
		eng.events = NULL;
		eng.events_cap = 0;
	}
	if (eng_init(s->nthreads, body, &pol, R.m->seg, R.m->seg_size)) {
		snprintf(r->error, sizeof(r->error), "cannot allocate coroutine stacks or trace buffers");
		return r->status = RS_ERROR;
	}
	if (s->tlb) {
		/* attached in thread order, seeded by thread: deterministic */
		for (unsigned t = 0; t < s->nthreads; t++)
			tlb_attach(R.m, &eng_tlbs[t], s->tlb, s->tlb_evict ? TLB_EVICT_RANDOM : TLB_EVICT_LRU,
				   0x9e3779b97f4a7c15ULL * (t + 1));
		R.m->tlb_on = 1;
	}
	set_up_blocks();
	if (r->status != RS_VIOLATION && s->tlb)
		set_up_tlbs();
	if (r->status != RS_VIOLATION)
		eng_run();
	if (r->status != RS_VIOLATION) {
		if (eng.limit_hit) {
			r->status = RS_LIMIT;
		} else if (eng.deadlock) {
			snprintf(r->error, sizeof(r->error), "engine deadlock: no runnable thread left (a harness bug)");
			r->status = RS_ERROR;
		} else {
			/* every thread done: hardware's bits must all still be there */
			finding_begin("end");
			check_owed_all(ENG_MAX_THREADS, -1);
		}
	}
	/* nobody is inside a read-side section now */
	eng_rcu_barrier();
	if (s->tlb)             /* the TLBs attached above */
		for (unsigned t = 0; t < s->nthreads; t++)
			tlb_detach(R.m, &eng_tlbs[t]);
	R.m->tlb_on = 0;
	r->steps = eng.steps;
	r->hash = eng.hash;
	r->taken = eng.taken;
	r->ntaken = eng.ntaken;
	r->taken_choices = eng.taken_choices;
	r->ntaken_choices = eng.ntaken_choices;
	if (pol.memory == MEM_ARM)
		mem_stats(&r->mem);
	r->events = eng.events;
	r->nevents = eng.nevents;
	r->m = R.m;
	return r->status;
}

const char *run_status_text(const struct run_result *r, char *buf, size_t len)
{
	switch (r->status) {
	case RS_CLEAN: snprintf(buf, len, "clean"); break;
	case RS_VIOLATION: snprintf(buf, len, "violation %s", vkind_name(r->vio.kind)); break;
	case RS_LIMIT: snprintf(buf, len, "step limit (%llu steps)", (unsigned long long)r->steps); break;
	default: snprintf(buf, len, "error: %s", r->error); break;
	}
	return buf;
}

bool run_meets_expect(const struct script *s, const struct run_result *r)
{
	if (s->expect == EXPECT_NONE)
		return true;
	if (s->expect == EXPECT_CLEAN)
		return r->status == RS_CLEAN;
	return r->status == RS_VIOLATION && r->vio.kind == (enum vkind)(s->expect - 2);
}
