/* stage2/runtime/vm.c - the guest, its table's set-up and teardown, and
 * the checks at quiescence (see stage2/runtime/vm.h). */
#define _GNU_SOURCE
#include "stage2/runtime/vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/access.h"

struct s2_cfg s2_cfg = {
	.blocks = 4,
	.age_lock = S2_AGE_WRITE,
	.age_rcu = true,
	.hw_af = true,
	.fwb = true,
	.tlb_range = true,
	.reuse = S2_REUSE_QUARANTINE,
	.quarantine = 16,
	.arena_pages = 256,
	.tlb_entries = 8,
	.age_max_pages = 64,
	.seed = 1,
	.delay_shift = 6,
	.delay_spins = 2000,
};

struct s2_vm s2_vm;

/* ---- where table pages sit -------------------------------------------------- */

bool s2_desc_points_to_table(uint64_t d, int *page)
{
	uint64_t pa, span = (uint64_t)s2_arena.npages * s2_arena.page_size;

	if ((d & (S2_DESC_VALID | S2_DESC_TYPE)) != (S2_DESC_VALID | S2_DESC_TYPE))
		return false;
	pa = s2_desc_pa(d);
	if (pa - S2_TABLE_PA_BASE >= span)
		return false;       /* a page descriptor: guest memory */
	*page = (int)((pa - S2_TABLE_PA_BASE) / s2_arena.page_size);
	return true;
}

void s2_link_store(struct s2_thread *t, uint64_t *p, uint64_t old, uint64_t new)
{
	int page = s2_page_of(p), idx = (int)(p - (uint64_t *)s2_page_addr(page)), c;

	(void)t;
	if (old != new && s2_desc_points_to_table(old, &c) &&
	    atomic_load(&s2_arena.meta[c].parent) == page && atomic_load(&s2_arena.meta[c].parent_idx) == idx)
		atomic_store(&s2_arena.meta[c].parent, -1);     /* unlinked */
	if (s2_desc_points_to_table(new, &c)) {
		atomic_store(&s2_arena.meta[c].parent_idx, idx);
		atomic_store(&s2_arena.meta[c].parent, page);
	}
}

bool s2_page_place(int page, int *level, uint64_t *ipa)
{
	int chain[8], n = 0, lv;
	uint64_t base;

	while (!s2_arena.meta[page].root) {
		int up = atomic_load(&s2_arena.meta[page].parent);

		if (up < 0 || n == 8)
			return false;
		chain[n++] = page;
		page = up;
	}
	lv = atomic_load(&s2_arena.meta[page].level);
	base = (uint64_t)(page - s2_page_of(s2_vm.pgd)) * s2_ptrs() * s2_level_size(lv);
	while (n--) {
		int child = chain[n];

		base += (uint64_t)atomic_load(&s2_arena.meta[child].parent_idx) * s2_level_size(lv);
		lv++;
	}
	*level = lv;
	*ipa = base;
	return true;
}

/* ---- set-up and teardown -------------------------------------------------------- */

int s2_vm_create(char *err, size_t errlen)
{
	struct s2_vm *vm = &s2_vm;
	struct s2_thread *t = s2_self();
	unsigned ia_bits = S2_IPA_BITS, levels, ps = s2_tree.page_shift;
	unsigned sl0_base = ps == 12 ? 2 : 3;
	int start_level, r;
	enum s2_held held = t->held;

	if (s2_cfg.blocks < 1 || s2_cfg.blocks > S2_MAX_UNITS) {
		snprintf(err, errlen, "--blocks must be 1..%d", S2_MAX_UNITS);
		return -1;
	}
	free(vm->gp);
	memset(vm, 0, sizeof(*vm));
	{
		pthread_rwlockattr_t a;

		pthread_rwlockattr_init(&a);
		pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&vm->rw, &a);
		pthread_rwlockattr_destroy(&a);
	}
	if (s2_arena_init(s2_cfg.arena_pages, ps, err, errlen))
		return -1;
	s2_entries_init();
	s2_bbm_init();
	/* the levels an IPA of ia_bits needs with up to 16 concatenated roots */
	levels = (ia_bits - 4 - 4) / (ps - 3);
	start_level = 4 - (int)levels;
	vm->mmu.vtcr = (64 - ia_bits) | ((uint64_t)(sl0_base - (unsigned)start_level) << 6);
	vm->arch.vtcr = vm->mmu.vtcr;
	vm->mmu.arch = &vm->arch;
	vm->mmu.vm = vm;
	vm->mmu.vmid = 1;
	vm->block_level = 2;
	vm->block_size = s2_level_size(2);
	vm->page_size = 1ULL << ps;
	vm->nunits = s2_cfg.blocks;
	vm->ipa_base = S2_WINDOW_IPA;
	vm->ipa_size = vm->nunits * vm->block_size;
	vm->npages = (unsigned)(vm->ipa_size / vm->page_size);
	vm->gp = calloc(vm->npages, sizeof(*vm->gp));
	if (!vm->gp) {
		snprintf(err, errlen, "out of memory for %u guest pages", vm->npages);
		return -1;
	}
	for (unsigned u = 0; u < vm->nunits; u++) {
		atomic_store(&vm->unit[u].huge, u % 2 == 0);
		atomic_store(&vm->unit[u].gen, 0);
	}
	s2_op_begin(t, "setup", "kvm_init_stage2_mmu", "kvm_pgtable_stage2_init", S2_HELD_OWNER);
	r = s2_tree.init(&vm->mmu, !s2_cfg.fwb);
	s2_op_end(t);
	t->held = held;
	if (r) {
		snprintf(err, errlen, "the tree's stage-2 init failed (%d)", r);
		return -1;
	}
	vm->pgt = vm->mmu.pgt;
	s2_tree.geometry(vm->pgt, &vm->pgd, &vm->start_level, &ia_bits);
	vm->pgd_pages = (unsigned)(((1ULL << ia_bits) - 1) / (s2_ptrs() * s2_level_size(vm->start_level))) + 1;
	if (vm->start_level != start_level) {
		snprintf(err, errlen, "the tree starts its walks at level %d, the VTCR says %d",
			 vm->start_level, start_level);
		return -1;
	}
	for (unsigned k = 0; k < vm->pgd_pages; k++) {
		struct s2_page *m = &s2_arena.meta[s2_page_of(vm->pgd) + (int)k];

		m->root = true;
		atomic_store(&m->level, vm->start_level);
	}
	return 0;
}

void s2_vm_teardown(struct s2_thread *t)
{
	struct kvm_pgtable *pgt;

	s2_write_lock();
	pgt = s2_vm.mmu.pgt;
	s2_vm.mmu.pgt = NULL;
	s2_write_unlock();
	if (!pgt)
		return;
	s2_op_begin(t, "teardown", "kvm_arch_flush_shadow_all", "kvm_pgtable_stage2_destroy", S2_HELD_OWNER);
	s2_tree.destroy(pgt);
	s2_op_end(t);
	s2_vm.destroyed = true;
}

void s2_vm_free(void)
{
	free(s2_vm.gp);
	s2_vm.gp = NULL;
}

/* ---- the harness's own look at the table -------------------------------------------- */

bool s2_peek_leaf(uint64_t ipa, uint64_t *desc, int *level, uint64_t **where)
{
	uint64_t *table;
	int lv = s2_vm.start_level;
	uint64_t d;

	if (!s2_vm.mmu.pgt)
		return false;
	table = s2_vm.pgd + (ipa >> (s2_level_shift(lv) + s2_tree.page_shift - 3)) * s2_ptrs();
	for (;;) {
		uint64_t *p = table + ((ipa >> s2_level_shift(lv)) & (s2_ptrs() - 1));
		int c;

		d = acc_peek(p);
		if (!s2_desc_valid(d))
			return false;
		if (lv < 3 && s2_desc_points_to_table(d, &c)) {
			table = s2_page_addr(c);
			lv++;
			continue;
		}
		*desc = d;
		*level = lv;
		if (where)
			*where = p;
		return true;
	}
}

/* ---- quiescence ------------------------------------------------------------------------ */

static void check_table(int page, int level, bool *reach)
{
	uint64_t *table = s2_page_addr(page);
	int counted = 0, rc = atomic_load(&s2_arena.meta[page].refcount);

	reach[page] = true;
	for (unsigned i = 0; i < s2_ptrs(); i++) {
		uint64_t d = acc_peek(table + i);
		int c;

		if (s2_tree.is_locked(d))
			s2_report(S2V_LEAK, "",
				  "leak: entry %u of table page %d is still LOCKED at quiescence (a walker broke it and never made a new entry)",
				  i, page);
		if (s2_tree.is_counted(d))
			counted++;
		if (level < 3 && s2_desc_points_to_table(d, &c)) {
			if (atomic_load(&s2_arena.meta[c].state) != S2P_LIVE)
				s2_report(S2V_UAF, "",
					  "use_after_free: entry %u of table page %d points to table page %d, which is freed",
					  i, page, c);
			else
				check_table(c, level + 1, reach);
		}
	}
	if (!s2_arena.meta[page].root && rc != 1 + counted)
		s2_report(S2V_REFCOUNT,
			  "  a table page holds one reference for being a table and one per\n"
			  "  counted entry (valid, or annotated); a count too high is a leak when\n"
			  "  the table empties, one too low frees it while it is in use\n",
			  "refcount: table page %d (level %d) has count %d with %d counted entries (want %d)",
			  page, level, rc, counted, 1 + counted);
}

void s2_vm_check_quiescent(bool after_teardown)
{
	bool *reach = calloc(s2_arena.npages, sizeof(bool));

	if (!reach)
		return;
	if (!after_teardown && s2_vm.mmu.pgt) {
		for (unsigned k = 0; k < s2_vm.pgd_pages; k++) {
			int root = s2_page_of(s2_vm.pgd) + (int)k;
			int rc = atomic_load(&s2_arena.meta[root].refcount);

			check_table(root, s2_vm.start_level, reach);
			/* a root page counts like any table page */
			{
				int counted = 0;

				for (unsigned i = 0; i < s2_ptrs(); i++)
					counted += s2_tree.is_counted(acc_peek((uint64_t *)s2_page_addr(root) + i));
				if (rc != 1 + counted)
					s2_report(S2V_REFCOUNT, "",
						  "refcount: root page %d has count %d with %d counted entries (want %d)",
						  root, rc, counted, 1 + counted);
			}
		}
	}
	for (unsigned i = 0; i < s2_arena.npages; i++) {
		struct s2_page *m = &s2_arena.meta[i];

		if (atomic_load(&m->state) != S2P_LIVE || reach[i] || m->owner == S2_OWN_MEMCACHE)
			continue;
		s2_report(S2V_LEAK,
			  "  a live table page that no table entry points to, no memory cache\n"
			  "  holds and no grace period will free: nothing will ever free it\n",
			  "leak: table page %d (refcount %d) is alive and unreachable %s",
			  i, atomic_load(&m->refcount),
			  after_teardown ? "after the VM was destroyed" : "at quiescence");
		break;
	}
	free(reach);
}

bool s2_parse_on_off(const char *w, bool *b)
{
	if (!strcmp(w, "on"))
		*b = true;
	else if (!strcmp(w, "off"))
		*b = false;
	else
		return false;
	return true;
}
