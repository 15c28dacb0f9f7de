/*
 * stage2/runtime/vcpu.c - a vCPU's accesses to guest memory: the hardware
 * translating an IPA through stage 2 (its TLB's leaf entries, else a walk
 * from its deepest walk-cache entry or the root), setting the access flag
 * itself when hardware AF is on (an atomic update of the valid leaf), and
 * the faults into the shared ops when an entry is invalid (LOCKED
 * included), read-only for a write, or old without hardware AF.
 *
 * What the oracle checks here:
 *   every descriptor the walk reads is on a live table page, and the
 *   incarnation a walk-cache entry or the walk itself followed into
 *   (stage2/runtime/arena.c): a stale walk-cache entry pointing at a freed
 *   table is a use after free by the hardware;
 *   a TLB entry used is one the table still grants, or one whose break is
 *   still pending (stage2/runtime/bbm.c): otherwise an invalidation that
 *   should have removed it did not (stale_tlb_access);
 *   a write that completes through a writable translation after a
 *   write-protect for dirty logging returned, with no write fault on the
 *   page since, is a lost dirty-log entry.
 * A walk is one step for invalidations (core/tlb_s2.h): an invalidation's
 * DSB waits for it; on the engine it takes no scheduling point.
 */
#include "stage2/runtime/agents.h"

#include <stdio.h>
#include <string.h>

#include "core/access.h"

void s2_vcpu_init(struct s2_vcpu *v, unsigned index, unsigned thread_id)
{
	char role[24];

	snprintf(role, sizeof(role), "vcpu%u", index);
	s2_thread_attach(&v->t, thread_id, role);
	v->t.vcpu = v;
	v->index = index;
	tlb_s2_attach(&v->tlb, s2_cfg.tlb_entries, s2_cfg.seed * 7919 + index);
}

void s2_vcpu_fini(struct s2_vcpu *v)
{
	tlb_s2_detach(&v->tlb);
	s2_mc_free(&v->mc);
}

enum tr { TR_OK, TR_FAULT_TRANS, TR_FAULT_PERM, TR_FAULT_AF, TR_BAD };

static void stale(struct s2_vcpu *v, const struct tlb_s2_entry *e, uint64_t ipa, const char *why)
{
	char detail[768];

	snprintf(detail, sizeof(detail),
		 "  %s's TLB held a %s entry of level %d for IPA %#llx (descriptor %#llx, read from\n"
		 "  entry %d of table page %d, filled at its clock %llu): %s.\n"
		 "  An invalidation that completed should have removed it.\n",
		 v->t.role, e->kind == TLB_S2_LEAF ? "leaf" : "walk-cache", e->level,
		 (unsigned long long)e->ipa, (unsigned long long)e->desc, e->idx, e->page,
		 (unsigned long long)e->filled, why);
	s2_report(S2V_STALE_TLB, detail,
		  "stale_tlb_access: %s translated IPA %#llx through a %s TLB entry the table no longer grants",
		  v->t.role, (unsigned long long)ipa, e->kind == TLB_S2_LEAF ? "leaf" : "walk-cache");
}

/* May the TLB still hold e? (Its table page live and the same, and the
 * entry there still translating the same, or its break pending.) */
static bool still_allowed(const struct tlb_s2_entry *e, const char **why)
{
	struct s2_page *m = &s2_arena.meta[e->page];
	const uint64_t *src = (const uint64_t *)s2_page_addr(e->page) + e->idx;

	if (atomic_load(&m->state) != S2P_LIVE || atomic_load(&m->incarnation) != e->inc) {
		*why = "the table page it was read from has been freed since";
		return false;
	}
	if (!s2_bbm_allows(src, e->desc, e->level)) {
		*why = "that entry no longer holds this translation, and no break of it is pending";
		return false;
	}
	return true;
}

static enum tr accessed(struct s2_vcpu *v, uint64_t ipa, bool write, uint64_t desc, int level, const char *how)
{
	struct s2_vm *vm = &s2_vm;
	struct s2_gpage *gp = &vm->gp[s2_gpage_of(vm, ipa)];
	uint64_t now = s2_tick();

	s2_tick_max(&gp->accessed, now);
	if (write) {
		uint64_t wp = atomic_load(&gp->wp_done), wf = atomic_load(&gp->write_fault);

		v->writes++;
		if (wp > wf) {
			char detail[512];

			snprintf(detail, sizeof(detail),
				 "  write-protect for dirty logging of IPA %#llx (and its TLB flush) returned at\n"
				 "  event %llu; the page's last write fault was at %llu; this write at %llu\n"
				 "  completed without a fault, so the dirty log does not have it; it went\n"
				 "  through %s, a writable level-%d descriptor %#llx\n",
				 (unsigned long long)ipa, (unsigned long long)wp, (unsigned long long)wf,
				 (unsigned long long)now, how, level, (unsigned long long)desc);
			s2_report(S2V_DIRTY_LOG, detail,
				  "dirty_log_lost: %s wrote IPA %#llx after write-protect without faulting",
				  v->t.role, (unsigned long long)ipa);
			return TR_BAD;
		}
	}
	return TR_OK;
}

static inline uint32_t incarnation(int page) { return atomic_load(&s2_arena.meta[page].incarnation); }

static enum tr translate(struct s2_vcpu *v, uint64_t ipa, bool write, int *flevel)
{
	struct s2_vm *vm = &s2_vm;
	struct tlb_s2 *tlb = &v->tlb;
	uint16_t vmid = vm->mmu.vmid;
	/* the walk-cache entry a walk starts from (kind WALK, used once checked) */
	struct tlb_s2_entry fill[8], *e, from = { .kind = TLB_S2_LEAF };
	unsigned nfill = 0;
	uint64_t gen = tlb_s2_walk_begin(tlb), *table, d;
	int level;
	enum tr r = TR_BAD;
	const char *why;

	v->t.hw = true;
	*flevel = 3;
	if (tlb->cap) {
		tlb_s2_lock(tlb);
		e = tlb_s2_find_leaf(tlb, vmid, ipa);
		if (e) {
			struct tlb_s2_entry hit = *e;

			tlb_s2_unlock(tlb);
			if (!still_allowed(&hit, &why)) {
				stale(v, &hit, ipa, why);
				goto out;
			}
			v->hits++;
			*flevel = hit.level;
			r = write && !(hit.desc & S2_DESC_S2AP_W) ? TR_FAULT_PERM : accessed(v, ipa, write, hit.desc, hit.level, "a TLB hit");
			goto out;
		}
		e = tlb_s2_find_walk(tlb, vmid, ipa);
		if (e) {
			from = *e;
			from.used = false;
			tlb_s2_unlock(tlb);
			/* the walk starts from the table the entry points to */
			s2_follow(&v->t, from.child, from.child_inc);
			table = s2_page_addr(from.child);
			level = from.level + 1;
			goto walk;
		}
		tlb_s2_unlock(tlb);
	}
	if (!vm->mmu.pgt) {
		r = TR_FAULT_TRANS;     /* no stage 2 any more */
		goto out;
	}
	level = vm->start_level;
	table = vm->pgd + (ipa >> (s2_level_shift(level) + s2_tree.page_shift - 3)) * s2_ptrs();
walk:
	for (unsigned tries = 0;;) {
		uint64_t *p = table + ((ipa >> s2_level_shift(level)) & (s2_ptrs() - 1));
		int page = s2_page_of(p), c;

		d = s2_hw_load(p);
		if (s2_stopping())
			goto out;
		/* a walk from the walk cache: the table it read is live (else the
		 * load above reported it); is the entry still one to keep? */
		if (from.kind == TLB_S2_WALK && !from.used) {
			from.used = true;
			if (!still_allowed(&from, &why)) {
				stale(v, &from, ipa, why);
				goto out;
			}
		}
		if (!s2_desc_valid(d)) {
			*flevel = level;
			r = TR_FAULT_TRANS;
			goto out;
		}
		if (level < 3 && s2_desc_points_to_table(d, &c)) {
			fill[nfill++] = (struct tlb_s2_entry){
				.kind = TLB_S2_WALK, .level = (int8_t)level, .vmid = vmid,
				.ipa = ipa & ~(s2_level_size(level) - 1), .desc = d,
				.page = page, .idx = (int)(p - (uint64_t *)s2_page_addr(page)), .inc = incarnation(page),
				.child = c, .child_inc = incarnation(c),
			};
			s2_follow(&v->t, c, incarnation(c));
			table = s2_page_addr(c);
			level++;
			continue;
		}
		if (!(d & S2_DESC_AF)) {
			if (!s2_cfg.hw_af) {
				r = TR_FAULT_AF;
				goto out;
			}
			if (!s2_hw_set_af(p, d)) {
				if (s2_stopping() || ++tries > 100)
					goto out;
				continue;       /* the entry changed: read it again */
			}
			d |= S2_DESC_AF;
		}
		*flevel = level;
		fill[nfill++] = (struct tlb_s2_entry){
			.kind = TLB_S2_LEAF, .level = (int8_t)level, .vmid = vmid,
			.ipa = ipa & ~(s2_level_size(level) - 1), .desc = d,
			.page = page, .idx = (int)(p - (uint64_t *)s2_page_addr(page)), .inc = incarnation(page),
		};
		for (unsigned i = 0; i < nfill; i++)
			tlb_s2_fill(tlb, gen, &fill[i]);
		r = write && !(d & S2_DESC_S2AP_W) ? TR_FAULT_PERM : accessed(v, ipa, write, d, level, from.kind == TLB_S2_WALK ? "a walk from the walk cache" : "a walk from the root");
		goto out;
	}
out:
	v->t.hw = false;
	tlb_s2_walk_end(tlb);
	return r;
}

bool s2_vcpu_access(struct s2_vcpu *v, uint64_t ipa, bool write, unsigned tries)
{
	for (unsigned i = 0; i < tries && !s2_stopping(); i++) {
		/* the fault's view begins at the guest's exit: a memslot change or
		 * an invalidation after it makes the fault retry (mmu.c's
		 * mmu_invalidate_retry, and SRCU for memslots) */
		uint64_t seq = atomic_load(&s2_vm.inval_seq);
		int level;

		switch (translate(v, ipa, write, &level)) {
		case TR_OK:
			v->accesses++;
			return true;
		case TR_BAD:
			return false;
		case TR_FAULT_TRANS:
			v->faults_trans++;
			s2_fault(&v->t, &v->mc, ipa, write, false, level, seq);
			break;
		case TR_FAULT_PERM:
			v->faults_perm++;
			s2_fault(&v->t, &v->mc, ipa, write, true, level, seq);
			break;
		case TR_FAULT_AF:
			v->faults_af++;
			s2_access_fault(&v->t, ipa);
			break;
		}
	}
	return false;
}
