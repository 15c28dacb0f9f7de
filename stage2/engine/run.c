/* stage2/engine/run.c - one stage-2 program on the engine (see run.h). */
#include "stage2/engine/run.h"

#include <stdio.h>
#include <string.h>

#include "core/rcu.h"
#include "core/tlb_s2.h"
#include "stage2/runtime/agents.h"

static const struct s2_prog *P;
static struct s2_vcpu vcpus[S2P_THREADS];
static struct s2_thread setup_t;
static int found_tid, found_instr;      /* where the run's violation was reported */
static bool in_setup;

static void stop_run(void)
{
	if (in_setup)
		found_tid = S2_VIO_SETUP;
	else if (eng.cur >= 0 && found_tid < 0) {
		found_tid = eng.cur;
		found_instr = (int)eng.th[eng.cur].instr;
	}
	if (eng.cur >= 0)
		eng_stop();
	eng.stop = true;
}

static uint64_t ipa_of(const struct s2p_addr *a)
{
	struct s2_vm *vm = &s2_vm;
	uint64_t upages = vm->block_size / vm->page_size;

	return vm->ipa_base + (a->unit % vm->nunits) * vm->block_size + (a->page % upages) * vm->page_size;
}

static void range_of(const struct s2p_instr *in, uint64_t *start, uint64_t *size)
{
	struct s2_vm *vm = &s2_vm;
	uint64_t end;

	if (in->npages == S2P_SIZE_ALL) {
		*start = vm->ipa_base;
		*size = vm->ipa_size;
		return;
	}
	if (in->npages == S2P_SIZE_BLOCK) {
		*start = vm->ipa_base + (in->at.unit % vm->nunits) * vm->block_size;
		*size = vm->block_size;
		return;
	}
	*start = ipa_of(&in->at);
	end = *start + (uint64_t)in->npages * vm->page_size;
	if (end > vm->ipa_base + vm->ipa_size)
		end = vm->ipa_base + vm->ipa_size;
	*size = end - *start;
}

static void instr(struct s2_vcpu *v, const struct s2p_instr *in)
{
	struct s2_thread *t = &v->t;
	uint64_t ipa = ipa_of(&in->at), start, size, d;
	int level;

	range_of(in, &start, &size);
	switch (in->op) {
	case S2I_ACCESS:
		/* a step of its own: a TLB hit reads no memory, and a walk takes
		 * no scheduling point (stage2/runtime/vcpu.c) */
		eng_point(EK_LOAD);
		s2_vcpu_access(v, ipa, in->write, 8);
		break;
	case S2I_FAULT:
		s2_fault(t, &v->mc, ipa, in->write, false, 3, atomic_load(&s2_vm.inval_seq));
		break;
	case S2I_PERM:
		if (s2_peek_leaf(ipa, &d, &level, NULL) && !(d & S2_DESC_S2AP_W))
			s2_fault(t, &v->mc, ipa, true, true, level, atomic_load(&s2_vm.inval_seq));
		break;
	case S2I_MKYOUNG:
		s2_access_fault(t, ipa);
		break;
	case S2I_REMAP:
		s2_remap(t, &v->mc, ipa);
		break;
	case S2I_UNMAP:
		s2_unmap(t, start, size);
		break;
	case S2I_WRPROTECT:
		s2_wrprotect(t, start, size);
		break;
	case S2I_SPLIT:
		s2_split(t, start, size);
		break;
	case S2I_FLUSH:
		s2_flush(t, start, size);
		break;
	case S2I_LOG_OFF:
		s2_log_off(t, in->at.unit % s2_vm.nunits);
		break;
	case S2I_MIGRATE:
		s2_migrate(t, in->at.unit % s2_vm.nunits);
		break;
	case S2I_AGE:
	case S2I_TEST_AGE:
		s2_age(t, start, size, in->op == S2I_AGE);
		break;
	case S2I_GP:
		synchronize_rcu();
		break;
	}
}

static void body(unsigned tid)
{
	struct s2_vcpu *v = &vcpus[tid];
	char role[16];

	s2_vcpu_init(v, tid, tid);
	snprintf(role, sizeof(role), "thread%u", tid);
	snprintf(v->t.role, sizeof(v->t.role), "%s", role);
	for (unsigned i = 0; i < P->ninstr[tid] && !s2_stopping(); i++) {
		eng.th[tid].instr = i;
		instr(v, &P->prog[tid][i]);
	}
}

/* The set-up, by the tree's own code, outside any thread: no scheduling
 * points, locks and RCU no-ops. */
static void set_up(void)
{
	static struct kvm_mmu_memory_cache mc;
	struct s2_vm *vm = &s2_vm;

	for (unsigned i = 0; i < P->nsetup && !s2_stopping(); i++) {
		const struct s2p_setup_op *s = &P->setup[i];
		unsigned u = s->at.unit % vm->nunits;
		uint64_t base = vm->ipa_base + u * vm->block_size;
		struct s2p_addr a = s->at;

		switch (s->op) {
		case S2S_MAP_BLOCK:
			atomic_store(&vm->unit[u].huge, true);
			/* a block maps with logging off: switched off as log-off
			 * does it (the write-protect is no longer owed) */
			if (atomic_load(&vm->unit[u].logging))
				s2_log_off(&setup_t, u);
			s2_fault(&setup_t, &mc, base, false, false, 3, atomic_load(&vm->inval_seq));
			break;
		case S2S_MAP_PAGE:
			a.unit = (uint8_t)u;
			s2_fault(&setup_t, &mc, ipa_of(&a), true, false, 3, atomic_load(&vm->inval_seq));
			break;
		case S2S_SPLIT:
			s2_split(&setup_t, base, vm->block_size);
			break;
		case S2S_LOG:
			s2_wrprotect(&setup_t, base, vm->block_size);
			break;
		case S2S_LOG_OFF:
			s2_log_off(&setup_t, u);
			break;
		}
	}
	s2_mc_free(&mc);
}

static uint64_t prog_hash(const struct s2_prog *p)
{
	static char text[S2P_TEXT_MAX];
	struct s2_prog q = *p;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t n;

	q.nsched = q.nchoices = 0;
	q.expect = -1;
	q.tree[0] = 0;
	n = s2p_print(&q, text, sizeof(text));
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)text[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

enum s2_run_status s2_run(const struct s2_prog *p, const struct eng_policy *given, struct s2_run_result *r)
{
	struct eng_policy pol = *given;
	char err[256];

	memset(r, 0, sizeof(*r));
	r->vio_tid = r->vio_instr = found_tid = found_instr = -1;
	if (p->granule_kb != 1u << (s2_tree.page_shift - 10)) {
		snprintf(r->error, sizeof(r->error), "the program is for granule %uk, this binary's tree is built for %uk",
			 p->granule_kb, 1u << (s2_tree.page_shift - 10));
		return r->status = S2R_ERROR;
	}
	P = p;
	s2_cfg.age_lock = p->age_lock;
	s2_cfg.age_rcu = p->age_rcu;
	s2_cfg.hw_af = p->hw_af;
	s2_cfg.fwb = p->fwb;
	s2_cfg.tlb_range = p->tlb_range;
	s2_cfg.ttl_ignored = p->ttl_ignored;
	s2_cfg.tlb_entries = p->tlb;
	s2_cfg.reuse = p->reuse;
	s2_cfg.blocks = p->blocks;
	s2_cfg.arena_pages = 64;
	s2_cfg.quarantine = 4;
	s2_cfg.seed = 1;
	s2_cfg.delay_shift = 0;
	s2_report_reset();
	s2_on_report = stop_run;
	atomic_store(&s2_clock, 0);
	memset(&s2_acc, 0, sizeof(s2_acc));
	tlb_s2_detach_all();
	memset(vcpus, 0, sizeof(vcpus));
	s2_thread_attach(&setup_t, S2P_THREADS, "setup");
	if (s2_vm_create(err, sizeof(err))) {
		snprintf(r->error, sizeof(r->error), "%s", err);
		s2_thread_detach();
		return r->status = S2R_ERROR;
	}
	/* again, with the arena's size: what it follows into */
	s2_thread_attach(&setup_t, S2P_THREADS, "setup");
	in_setup = true;
	set_up();
	/* what the set-up handed to call_rcu (a block mapped over a table):
	 * no thread runs yet, so its grace period is over */
	eng_rcu_barrier();
	in_setup = false;
	if (pol.kind == ES_SCRIPT) {
		pol.sched = p->sched;
		pol.nsched = p->nsched;
		pol.tail_seed = prog_hash(p);
		pol.choices = p->choices;
		pol.nchoices = p->nchoices;
		pol.choice_seed = pol.tail_seed ^ 0x6d656d6f7279ULL;
	} else {
		pol.choices = NULL;
		pol.nchoices = 0;
		pol.choice_seed = pol.seed ^ 0x6d656d6f7279ULL;
		if (!pol.est_steps)
			pol.est_steps = 3000;
		if (!pol.depth)
			pol.depth = 3;
	}
	pol.memory = (enum mem_model)p->memory;
	eng.step_limit = 400000;

	if (!s2_stopping()) {
		if (eng_init(p->nthreads, body, &pol, s2_arena.base, (size_t)s2_arena.npages * s2_arena.page_size)) {
			snprintf(r->error, sizeof(r->error), "cannot set up the engine's threads");
			s2_thread_detach();
			return r->status = S2R_ERROR;
		}
		eng_run();
	}
	if (s2_stopping()) {
		r->status = S2R_VIOLATION;
	} else if (eng.limit_hit) {
		r->status = S2R_LIMIT;
	} else if (eng.deadlock) {
		snprintf(r->error, sizeof(r->error), "engine deadlock: no runnable thread left (a harness bug)");
		r->status = S2R_ERROR;
	} else {
		/* every thread done: every grace period over, then the checks */
		eng_rcu_barrier();
		s2_vm_check_quiescent(false);
		if (!s2_stopping()) {
			s2_vm_teardown(&setup_t);
			eng_rcu_barrier();
			if (!s2_stopping())
				s2_vm_check_quiescent(true);
		}
		r->status = s2_stopping() ? S2R_VIOLATION : S2R_CLEAN;
	}
	if (r->status == S2R_VIOLATION) {
		r->vio = s2_found;
		r->vio_tid = found_tid;
		r->vio_instr = found_instr;
	}
	eng_rcu_barrier();
	for (unsigned t = 0; t < S2P_THREADS; t++)
		s2_mc_free(&vcpus[t].mc);
	tlb_s2_detach_all();
	s2_thread_detach();
	r->steps = eng.steps;
	r->hash = eng.hash;
	r->taken = eng.taken;
	r->ntaken = eng.ntaken;
	r->taken_choices = eng.taken_choices;
	r->ntaken_choices = eng.ntaken_choices;
	return r->status;
}

void s2_take_schedule(struct s2_prog *p, const struct s2_run_result *r)
{
	p->nsched = r->ntaken < S2P_SCHED ? r->ntaken : S2P_SCHED;
	memcpy(p->sched, r->taken, p->nsched);
	p->nchoices = r->ntaken_choices < S2P_CHOICES ? r->ntaken_choices : S2P_CHOICES;
	memcpy(p->choices, r->taken_choices, p->nchoices);
}

const char *s2_run_status_text(const struct s2_run_result *r, char *buf, size_t len)
{
	switch (r->status) {
	case S2R_CLEAN: snprintf(buf, len, "clean"); break;
	case S2R_VIOLATION: snprintf(buf, len, "violation %s", s2_vkind_name(r->vio.kind)); break;
	case S2R_LIMIT: snprintf(buf, len, "step limit (%llu steps)", (unsigned long long)r->steps); break;
	default: snprintf(buf, len, "error: %s", r->error); break;
	}
	return buf;
}
