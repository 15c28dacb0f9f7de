/*
 * stage2/runtime/ops.c - the callers of arch/arm64/kvm/mmu.c, re-created:
 * each takes mmu_lock as mmu.c does (aging as --age-lock says), passes the
 * walk flags mmu.c passes, and records what it did for the oracle's ground
 * truth (stage2/runtime/vm.h: the guest pages it changed, write-protected,
 * aged). The table of s2_ops is what the report prints and what
 * stage2/kernel_tree/check_mmu.py compares with a tree's own mmu.c.
 */
#include "stage2/runtime/agents.h"

#include <stdio.h>
#include <string.h>

#include "core/rcu.h"
#include <time.h>
#include "core/rng.h"

#define SHARED_FAULT (S2_WALK_SHARED | S2_WALK_HANDLE_FAULT)

const struct s2_op_desc s2_ops[S2_OP_COUNT] = {
	[S2_OP_FAULT] = { "fault", "user_mem_abort", "kvm_pgtable_stage2_map", S2_HELD_READ, SHARED_FAULT },
	[S2_OP_PERM] = { "perm_fault", "user_mem_abort", "kvm_pgtable_stage2_relax_perms", S2_HELD_READ, SHARED_FAULT },
	[S2_OP_AF] = { "access_fault", "handle_access_fault", "kvm_pgtable_stage2_mkyoung", S2_HELD_READ, SHARED_FAULT },
	[S2_OP_REMAP] = { "remap", "user_mem_abort", "kvm_pgtable_stage2_map", S2_HELD_READ, SHARED_FAULT },
	[S2_OP_UNMAP] = { "unmap", "kvm_unmap_gfn_range", "kvm_pgtable_stage2_unmap", S2_HELD_WRITE, 0 },
	[S2_OP_WRPROTECT] = { "wrprotect", "kvm_mmu_wp_memory_region", "kvm_pgtable_stage2_wrprotect", S2_HELD_WRITE, 0 },
	[S2_OP_SPLIT] = { "split", "kvm_mmu_split_huge_pages", "kvm_pgtable_stage2_split", S2_HELD_WRITE, 0 },
	[S2_OP_FLUSH] = { "flush", "stage2_flush_memslot", "kvm_pgtable_stage2_flush", S2_HELD_WRITE, 0 },
	[S2_OP_MIGRATE] = { "migrate", "kvm_unmap_gfn_range", "kvm_pgtable_stage2_unmap", S2_HELD_WRITE, 0 },
	[S2_OP_LOG_OFF] = { "log_off", "kvm_arch_commit_memory_region", "(none: later faults map blocks)", S2_HELD_WRITE, 0 },
	[S2_OP_AGE] = { "age", "kvm_age_gfn", "kvm_pgtable_stage2_test_clear_young", S2_HELD_WRITE, 0 },
	[S2_OP_TEST_AGE] = { "test_age", "kvm_test_age_gfn", "kvm_pgtable_stage2_test_clear_young", S2_HELD_WRITE, 0 },
};
_Atomic uint64_t s2_op_count[S2_OP_COUNT];
struct s2_accuracy s2_acc;

static void op_begin(struct s2_thread *t, enum s2_op op, enum s2_held held)
{
	const char *fn = s2_ops[op].tree_fn;

	/* trees before aging became a range walk: one address per call */
	if (!s2_tree.age_is_range && (op == S2_OP_AGE || op == S2_OP_TEST_AGE))
		fn = op == S2_OP_AGE ? "kvm_pgtable_stage2_mkold" : "kvm_pgtable_stage2_is_young";
	if (fn[0] == '(')
		fn = "-";       /* an op that calls no function of the tree */
	s2_op_begin(t, s2_ops[op].name, s2_ops[op].caller, fn, held);
}

static void count(enum s2_op op) { atomic_fetch_add_explicit(&s2_op_count[op], 1, memory_order_relaxed); }

/* Ground truth around a software op that changes entries of [start,
 * start + size): its units are busy while it runs, and its pages (or, with
 * whole_units, its units: a fault in a huge unit may map, split or collapse
 * the block) were touched when it began and when it ended. */
static void truth_op(uint64_t start, uint64_t size, bool whole_units, int busy)
{
	struct s2_vm *vm = &s2_vm;
	uint64_t now = s2_tick();
	unsigned u0 = s2_unit_of(vm, start), u1 = s2_unit_of(vm, start + size - 1);

	if (busy > 0)
		for (unsigned u = u0; u <= u1; u++)
			atomic_fetch_add(&vm->unit[u].busy, 1);
	if (whole_units) {
		for (unsigned u = u0; u <= u1; u++)
			s2_tick_max(&vm->unit[u].touched, now);
	} else {
		for (uint64_t ipa = start; ipa < start + size; ipa += vm->page_size)
			s2_tick_max(&vm->gp[s2_gpage_of(vm, ipa)].touched, now);
	}
	if (busy < 0)
		for (unsigned u = u0; u <= u1; u++)
			atomic_fetch_sub(&vm->unit[u].busy, 1);
}

/* ---- the shared ops: a vCPU's faults ------------------------------------------- */

static int map_op(struct s2_thread *t, enum s2_op op, struct kvm_mmu_memory_cache *mc, uint64_t ipa,
		  bool write, bool perm, int fault_level, int gen_delta, uint64_t seq)
{
	struct s2_vm *vm = &s2_vm;
	struct s2_unit *u = &vm->unit[s2_unit_of(vm, ipa)];
	struct s2_gpage *gp = &vm->gp[s2_gpage_of(vm, ipa)];
	bool logging, writable, huge;
	uint64_t size, fipa;
	unsigned prot;
	int r;

	/* kvm_mmu_topup_memory_cache(), outside the lock */
	if (mc && s2_mc_topup(mc, 4))
		return -12;
	s2_read_lock();
	if (atomic_load(&vm->inval_seq) != seq) {
		/* an invalidation or memslot change since the fault: retry */
		s2_read_unlock();
		return -11;
	}
	op_begin(t, op, S2_HELD_READ);
	/*
	 * The memslot as this fault sees it: dirty logging is switched on
	 * under the lock for write (and, in the kernel, a memslot update waits
	 * for every fault in flight), so no fault maps with a stale view.
	 */
	logging = atomic_load(&u->logging);
	size = atomic_load(&u->huge) && !logging ? vm->block_size : vm->page_size;
	fipa = ipa & ~(size - 1);
	/* while logging, only a write fault maps the page writable */
	writable = !(logging && !write);
	prot = S2_PROT_R | S2_PROT_X | (writable ? S2_PROT_W : 0);
	if (write && writable) {
		/* mark_page_dirty(): logged before the page turns writable */
		s2_tick_max(&gp->write_fault, s2_tick());
		atomic_store(&gp->dirty, true);
	}
	/* a page of a small unit is the page; anything in a huge unit may
	 * change the block's shape */
	huge = atomic_load(&u->huge);
	truth_op(huge ? fipa & ~(vm->block_size - 1) : fipa, huge ? vm->block_size : size, huge, 1);
	if (!vm->mmu.pgt) {
		r = 0;          /* the VM is being torn down */
	} else if (perm && (uint64_t)s2_level_size(fault_level) == size) {
		count(S2_OP_PERM);
		r = s2_tree.relax(vm->mmu.pgt, ipa & ~(vm->page_size - 1), prot, s2_ops[S2_OP_PERM].flags);
	} else {
		count(op);
		r = s2_tree.map(vm->mmu.pgt, fipa, size,
				s2_backing_pa(vm, fipa, atomic_load(&u->gen) + (uint32_t)gen_delta), prot, mc,
				s2_ops[op].flags);
	}
	truth_op(huge ? fipa & ~(vm->block_size - 1) : fipa, huge ? vm->block_size : size, huge, -1);
	s2_op_end(t);
	s2_read_unlock();
	return r;
}

int s2_fault(struct s2_thread *t, struct kvm_mmu_memory_cache *mc, uint64_t ipa, bool write, bool perm,
	     int fault_level, uint64_t seq)
{
#ifdef S2_SCHED
	return map_op(t, S2_OP_FAULT, mc, ipa, write, perm, fault_level, 0, seq);
#else
	struct timespec a, b;
	uint64_t ns;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &a);
	r = map_op(t, S2_OP_FAULT, mc, ipa, write, perm, fault_level, 0, seq);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull + (uint64_t)(b.tv_nsec - a.tv_nsec);
	atomic_fetch_add_explicit(&s2_count.fault_ns[ns ? 63 - __builtin_clzll(ns) : 0], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&s2_count.fault_ns_sum, ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&s2_count.faults_timed, 1, memory_order_relaxed);
	return r;
#endif
}

uint64_t s2_fault_latency_ns(double q)
{
	uint64_t n = atomic_load(&s2_count.faults_timed), seen = 0;

	if (!n)
		return 0;
	for (unsigned b = 0; b < 48; b++) {
		seen += atomic_load(&s2_count.fault_ns[b]);
		if (seen >= (uint64_t)(q * (double)n + 0.5) && seen)
			return 2ull << b;       /* the bucket [2^b, 2^(b+1)) */
	}
	return 2ull << 47;
}

/* Another physical page over the mapping (a valid -> valid change of
 * output address, which the tree must make with break-before-make). */
int s2_remap(struct s2_thread *t, struct kvm_mmu_memory_cache *mc, uint64_t ipa)
{
	return map_op(t, S2_OP_REMAP, mc, ipa, false, false, 3, 1 + (int)rng_below(&t->rng, 2),
		      atomic_load(&s2_vm.inval_seq));
}

void s2_access_fault(struct s2_thread *t, uint64_t ipa)
{
	s2_read_lock();
	op_begin(t, S2_OP_AF, S2_HELD_READ);
	if (s2_vm.mmu.pgt) {
		count(S2_OP_AF);
		s2_tree.mkyoung(s2_vm.mmu.pgt, ipa, s2_ops[S2_OP_AF].flags);
	}
	/* (mkyoung sets the access flag of an access that will complete: no
	 * change to the truth) */
	s2_op_end(t);
	s2_read_unlock();
}

/* ---- the exclusive ops ------------------------------------------------------------- */

static bool excl_begin(struct s2_thread *t, enum s2_op op, uint64_t start, uint64_t size)
{
	s2_write_lock();
	op_begin(t, op, S2_HELD_WRITE);
	if (!s2_vm.mmu.pgt) {
		s2_op_end(t);
		s2_write_unlock();
		return false;
	}
	count(op);
	/* whole units: an op over part of a block changes the whole block
	 * (unmap, write-protect and split act on every leaf they overlap) */
	truth_op(start, size, true, 1);
	return true;
}

static void excl_end(struct s2_thread *t, uint64_t start, uint64_t size)
{
	truth_op(start, size, true, -1);
	s2_op_end(t);
	s2_write_unlock();
}

void s2_unmap(struct s2_thread *t, uint64_t start, uint64_t size)
{
	if (!excl_begin(t, S2_OP_UNMAP, start, size))
		return;
	atomic_fetch_add(&s2_vm.inval_seq, 1);
	s2_tree.unmap(s2_vm.mmu.pgt, start, size);
	excl_end(t, start, size);
}

void s2_wrprotect(struct s2_thread *t, uint64_t start, uint64_t size)
{
	struct s2_vm *vm = &s2_vm;
	uint64_t done;

	if (!excl_begin(t, S2_OP_WRPROTECT, start, size))
		return;
	atomic_fetch_add(&vm->inval_seq, 1);
	for (unsigned u = s2_unit_of(vm, start); u <= s2_unit_of(vm, start + size - 1); u++)
		atomic_store(&vm->unit[u].logging, true);
	s2_tree.wrprotect(vm->mmu.pgt, start, size);
	s2_flush_remote_tlbs();
	/* nothing is writable over the range any more (nobody else changes
	 * entries while the lock is held for write) */
	for (uint64_t ipa = start; ipa < start + size; ipa += vm->page_size) {
		uint64_t d;
		int level;

		if (s2_peek_leaf(ipa, &d, &level, NULL) && (d & S2_DESC_S2AP_W)) {
			char detail[384];

			snprintf(detail, sizeof(detail),
				 "  kvm_pgtable_stage2_wrprotect(%#llx, %#llx) returned with the level-%d leaf\n"
				 "  mapping IPA %#llx still writable (%#llx): guest writes to it will not\n"
				 "  fault, and the dirty log will miss them\n",
				 (unsigned long long)start, (unsigned long long)size, level,
				 (unsigned long long)ipa, (unsigned long long)d);
			s2_report(S2V_DIRTY_LOG, detail,
				  "dirty_log_lost: write-protect for dirty logging left IPA %#llx writable",
				  (unsigned long long)ipa);
			break;
		}
	}
	/* from now on every guest write to the range must fault */
	done = s2_tick();
	for (uint64_t ipa = start; ipa < start + size; ipa += vm->page_size) {
		atomic_store(&vm->gp[s2_gpage_of(vm, ipa)].wp_done, done);
		atomic_store(&vm->gp[s2_gpage_of(vm, ipa)].dirty, false);
	}
	excl_end(t, start, size);
}

void s2_split(struct s2_thread *t, uint64_t start, uint64_t size)
{
	struct kvm_mmu_memory_cache *mc = &s2_vm.mmu.split_page_cache;

	if (!s2_tree.split || !excl_begin(t, S2_OP_SPLIT, start, size))
		return;
	if (s2_mc_topup(mc, 4) == 0)
		s2_tree.split(s2_vm.mmu.pgt, start, size, mc);
	excl_end(t, start, size);
}

void s2_flush(struct s2_thread *t, uint64_t start, uint64_t size)
{
	if (!excl_begin(t, S2_OP_FLUSH, start, size))
		return;
	s2_tree.flush(s2_vm.mmu.pgt, start, size);
	excl_end(t, start, size);
}

/* The host moves a block's backing (THP collapse or split, migration):
 * the MMU notifier unmaps it, the new pages fault in later. Dirty logging
 * of the block ends with it. */
void s2_migrate(struct s2_thread *t, unsigned unit)
{
	struct s2_vm *vm = &s2_vm;
	struct s2_unit *u = &vm->unit[unit];
	uint64_t start = vm->ipa_base + unit * vm->block_size;

	if (!excl_begin(t, S2_OP_MIGRATE, start, vm->block_size))
		return;
	atomic_fetch_add(&vm->inval_seq, 1);
	s2_tree.unmap(vm->mmu.pgt, start, vm->block_size);
	atomic_fetch_add(&u->gen, 1);
	atomic_store(&u->huge, rng_below(&t->rng, 2) == 0);
	if (atomic_load(&u->logging) && rng_below(&t->rng, 2)) {
		atomic_store(&u->logging, false);
		for (uint64_t ipa = start; ipa < start + vm->block_size; ipa += vm->page_size)
			atomic_store(&vm->gp[s2_gpage_of(vm, ipa)].wp_done, 0);
	}
	excl_end(t, start, vm->block_size);
}

/* Dirty logging of a block switched off (the memslot's flags change): its
 * pages stay mapped, and the next fault in it maps the block again over
 * the table logging left there (the table is freed through
 * free_unlinked_table). */
void s2_log_off(struct s2_thread *t, unsigned unit)
{
	struct s2_vm *vm = &s2_vm;
	uint64_t start = vm->ipa_base + unit * vm->block_size;

	if (!excl_begin(t, S2_OP_LOG_OFF, start, vm->block_size))
		return;
	atomic_fetch_add(&vm->inval_seq, 1);
	atomic_store(&vm->unit[unit].logging, false);
	for (uint64_t ipa = start; ipa < start + vm->block_size; ipa += vm->page_size)
		atomic_store(&vm->gp[s2_gpage_of(vm, ipa)].wp_done, 0);
	excl_end(t, start, vm->block_size);
}

/* ---- aging ------------------------------------------------------------------------------ */

static const char *const age_callers[] = { "kvm_age_gfn", "kvm_test_age_gfn" };

/* The span of the leaf mapping ipa now (a page if none). */
static void leaf_span(uint64_t ipa, uint64_t *lo, uint64_t *hi)
{
	uint64_t d, size = s2_vm.page_size;
	int level;

	if (s2_peek_leaf(ipa, &d, &level, NULL))
		size = s2_level_size(level);
	*lo = ipa & ~(size - 1);
	*hi = *lo + size;
}

/* One call as the MMU notifier makes it under --age-lock: the tree's
 * aging (for trees whose aging takes walk flags, a shared walk in read and
 * no-lock modes), with the caller's own RCU read-side section in those
 * modes (--age-rcu, as generic lockless-aging code holds one), then the
 * TLB flush of clear_flush_young if anything was young. */
static bool age_call(struct s2_thread *t, uint64_t start, uint64_t size, bool mkold, uint64_t *lo, uint64_t *hi)
{
	struct kvm_pgtable *pgt;
	unsigned flags = s2_cfg.age_lock == S2_AGE_WRITE ? 0 : S2_WALK_SHARED;
	bool young = false, rcu = s2_cfg.age_lock != S2_AGE_WRITE && s2_cfg.age_rcu;
	uint64_t dummy;

	if (s2_cfg.age_lock == S2_AGE_WRITE)
		s2_write_lock();
	else if (s2_cfg.age_lock == S2_AGE_READ)
		s2_read_lock();
	if (rcu)
		rcu_read_lock();
	op_begin(t, mkold ? S2_OP_AGE : S2_OP_TEST_AGE, s2_cfg.age_lock == S2_AGE_WRITE ? S2_HELD_WRITE :
		 s2_cfg.age_lock == S2_AGE_READ ? S2_HELD_READ : S2_HELD_NONE);
	/*
	 * The truth is per leaf: a call clears the access flag of every leaf
	 * it visits, a block's for all its pages. The range judged is the
	 * call's, widened to the leaves at its two ends, as mapped now (under
	 * the lock for write nothing changes them; otherwise a change during
	 * the call is a race, seen by the truth's ticks).
	 */
	leaf_span(start, lo, &dummy);
	leaf_span(start + size - 1, &dummy, hi);
	pgt = s2_vm.mmu.pgt;
	if (pgt)
		young = s2_tree.age(pgt, start, size, mkold, flags);
	/* and as mapped now: without the lock for write a fault may have
	 * made a block during the call, which the call cleared whole */
	{
		uint64_t l2, h2;

		leaf_span(start, &l2, &dummy);
		leaf_span(start + size - 1, &dummy, &h2);
		if (l2 < *lo)
			*lo = l2;
		if (h2 > *hi)
			*hi = h2;
	}
	s2_op_end(t);
	if (rcu)
		rcu_read_unlock();
	if (young && mkold && pgt)
		s2_flush_remote_tlbs();
	if (s2_cfg.age_lock == S2_AGE_WRITE)
		s2_write_unlock();
	else if (s2_cfg.age_lock == S2_AGE_READ)
		s2_read_unlock();
	return young;
}

bool s2_age(struct s2_thread *t, uint64_t start, uint64_t size, bool mkold)
{
	struct s2_vm *vm = &s2_vm;
	uint64_t s0 = s2_tick(), s1, lo, hi;
	bool young, def_young = false, def_old = true, calm = true;
	uint64_t witness = 0;
	uint64_t begun = atomic_fetch_add(&vm->ages_begun, 1), ended = atomic_load(&vm->ages_ended);

	count(mkold ? S2_OP_AGE : S2_OP_TEST_AGE);
	young = age_call(t, start, size, mkold, &lo, &hi);
	/* Another aging call overlapping this one (possible without the lock
	 * for write) may clear an access flag this call then finds old, and
	 * marks the pages aged only once it returns: a race the truth's ticks
	 * do not see, so this call's answer is not judged calm. */
	if (begun != ended || atomic_load(&vm->ages_begun) != begun + 1)
		calm = false;
	atomic_fetch_add(&vm->ages_ended, 1);
	s1 = s2_tick();
	/* the VM torn down (--teardown-race): no stage 2 to judge aging by;
	 * the guest's last accesses went with it */
	if (!__atomic_load_n(&vm->mmu.pgt, __ATOMIC_ACQUIRE))
		return young;
	if (lo < vm->ipa_base)
		lo = vm->ipa_base;
	if (hi > vm->ipa_base + vm->ipa_size)
		hi = vm->ipa_base + vm->ipa_size;
	for (uint64_t ipa = lo; ipa < hi; ipa += vm->page_size) {
		struct s2_gpage *gp;
		uint64_t acc, touch, as, ae;

		if (ipa - vm->ipa_base >= vm->ipa_size)
			continue;
		gp = &vm->gp[s2_gpage_of(vm, ipa)];
		acc = atomic_load(&gp->accessed);
		touch = atomic_load(&gp->touched);
		{
			struct s2_unit *u = &vm->unit[s2_unit_of(vm, ipa)];
			uint64_t ut = atomic_load(&u->touched);

			if (ut > touch)
				touch = ut;
			if (atomic_load(&u->busy))
				calm = false, touch = UINT64_MAX;   /* changing now */
		}
		as = atomic_load(&gp->aged_start);
		ae = atomic_load(&gp->aged_end);
		/* accessed after the last aging of it ended, nothing changed
		 * its entry since, before this call began: its access flag is set */
		if (acc > ae && touch != UINT64_MAX && acc > touch && acc < s0 && !def_young) {
			def_young = true;
			witness = ipa;
		}
		/* neither accessed nor (re)mapped since the last aging began */
		if (!((acc == 0 || acc < as) && (touch == 0 || touch < as)))
			def_old = false;
		if (acc > s0 || (touch > s0 && touch != UINT64_MAX))
			calm = false;
		if (mkold) {
			atomic_store(&gp->aged_start, s0);
			atomic_store(&gp->aged_end, s1);
		}
	}
	atomic_fetch_add(&s2_acc.calls, 1);
	if (young)
		atomic_fetch_add(&s2_acc.young, 1);
	if (def_young) {
		atomic_fetch_add(&s2_acc.definite_young, 1);
		if (!young) {
			atomic_fetch_add(&s2_acc.missed, 1);
			if (calm) {
				char detail[512];

				atomic_fetch_add(&s2_acc.quiescent_missed, 1);
				snprintf(detail, sizeof(detail),
					 "  the guest accessed IPA %#llx after the last aging of it had returned\n"
					 "  and before this %s call over [%#llx, %#llx) began; no software op\n"
					 "  changed an entry of the range and nothing accessed it during the call:\n"
					 "  its access flag was set, and the call said old\n",
					 (unsigned long long)witness, age_callers[!mkold], (unsigned long long)start,
					 (unsigned long long)(start + size));
				s2_report(S2V_AGING_MISS, detail,
					  "aging_miss: %s said old for a range the guest accessed, with nothing racing",
					  age_callers[!mkold]);
			}
		}
	} else if (def_old && calm) {
		atomic_fetch_add(&s2_acc.definite_old, 1);
		if (young)
			atomic_fetch_add(&s2_acc.invented, 1);
	} else {
		atomic_fetch_add(&s2_acc.racy, 1);
	}
	return young;
}

/* ---- choices over the window ------------------------------------------------------------- */

uint64_t s2_pick_ipa(struct s2_thread *t)
{
	struct s2_vm *vm = &s2_vm;

	return vm->ipa_base + (uint64_t)rng_below(&t->rng, vm->npages) * vm->page_size;
}

void s2_pick_range(struct s2_thread *t, uint64_t *start, uint64_t *size, unsigned max_pages)
{
	struct s2_vm *vm = &s2_vm;
	unsigned r = max_pages == 1 ? 100 : rng_below(&t->rng, 100);

	if (r < 10) {                       /* a whole block */
		*start = vm->ipa_base + (uint64_t)rng_below(&t->rng, vm->nunits) * vm->block_size;
		*size = vm->block_size;
	} else if (r < 13) {                /* the whole window */
		*start = vm->ipa_base;
		*size = vm->ipa_size;
	} else {
		unsigned first = rng_below(&t->rng, vm->npages);
		unsigned n = 1 + rng_below(&t->rng, max_pages ? max_pages : 1);

		if (first + n > vm->npages)
			n = vm->npages - first;
		*start = vm->ipa_base + (uint64_t)first * vm->page_size;
		*size = (uint64_t)n * vm->page_size;
	}
}
