/* core/ops.c - software writer operations (see core/ops.h). */
#include "core/ops.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "core/access.h"
#include "core/oob.h"
#include "core/tlb.h"
#include "core/oracle/oracle.h"

/* Entry pointers and values as the kernel-dialect entry points take them. */
#define PTEP(p) ((pte_t *)(p))
static inline pte_t __pte_of(uint64_t v) { return (pte_t){ v }; }

uint32_t ops_parse(const char *s, char *err, size_t errlen)
{
	uint32_t mask = 0;
	char buf[512], *save, *tok;

	if (!strcmp(s, "all"))
		return OPS_ALL;
	/* a list that starts by leaving ops out leaves them out of all */
	if (s[0] == '-')
		mask = OPS_ALL;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool drop = tok[0] == '-';
		enum op i;

		if (!strcmp(tok, "all")) {
			mask = OPS_ALL;
			continue;
		}
		i = op_by_name(tok + drop);

		if (i == OP_COUNT) {
			size_t off = snprintf(err, errlen, "unknown writer op '%s' (valid: all", tok + drop);
			for (int k = 0; k < OP_COUNT && off < errlen; k++)
				off += snprintf(err + off, errlen - off, ", %s", op_desc[k].name);
			if (off < errlen)
				snprintf(err + off, errlen - off, ")");
			return 0;
		}
		if (drop)
			mask &= ~(1u << i);
		else
			mask |= 1u << i;
	}
	if (!mask)
		snprintf(err, errlen, "empty writer op list");
	return mask;
}

enum op op_by_name(const char *name)
{
	int i;

	for (i = 0; i < OP_COUNT && strcmp(name, op_desc[i].name); i++)
		;
	return i;
}

enum op ops_pick(uint32_t mask, uint64_t *rng)
{
	unsigned total = 0, r;

	for (int i = 0; i < OP_COUNT; i++)
		if (mask & (1u << i))
			total += op_desc[i].weight;
	r = rng_below(rng, total);
	for (int i = 0; i < OP_COUNT; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (r < op_desc[i].weight)
			return i;
		r -= op_desc[i].weight;
	}
	return OP_MAP;
}

unsigned op_consumes(enum op op, unsigned flags)
{
	return op_desc[op].consumes | (flags & OPF_DIRTY ? op_desc[op].consumes_if_dirty : 0);
}

/* Prots a block may be mapped with: normal memory, user, inner shareable,
 * not global, never executable; read-only, writable clean, or a second
 * memory type (so blocks of equal pfns can differ in prot). */
static uint64_t prot_of(unsigned choice)
{
	uint64_t base = PTE_BIT_VALID | PTE_BIT_TABLE | PTE_BIT_USER | PTE_BIT_SHARED |
			PTE_BIT_NG | PTE_BIT_PXN | PTE_BIT_UXN | PTE_BIT_RDONLY;

	switch (choice) {
	case PROT_RDONLY: return base;
	case PROT_OTHER_ATTR: return base | (1ULL << 2) | PTE_BIT_WRITE;
	default: return base | PTE_BIT_WRITE;                  /* writable, clean */
	}
}

/* Random maximal-or-shorter run [*s, *s + *n) of entries all valid (want=1)
 * or all none (want=0), containing a random entry. False if that entry is
 * not of the wanted kind. */
static bool pick_run(const uint64_t *e, unsigned cont, int want, uint64_t *rng,
		     unsigned *s, unsigned *n)
{
	unsigned j = rng_below(rng, cont), lo = j, hi = j + 1;

#define KIND(i) (want ? pm_valid(acc_peek(&e[i])) : acc_peek(&e[i]) == 0)
	if (!KIND(j))
		return false;
	while (lo > 0 && KIND(lo - 1))
		lo--;
	while (hi < cont && KIND(hi))
		hi++;
#undef KIND
	if (rng_below(rng, 2)) {          /* the whole run, often the whole block */
		*s = lo;
		*n = hi - lo;
	} else {
		*s = lo + rng_below(rng, hi - lo);
		*n = 1 + rng_below(rng, hi - *s);
	}
	return true;
}

/* Every entry of [s, s+n) valid (want=1) or none (want=0). */
static bool run_is(const uint64_t *e, unsigned s, unsigned n, int want)
{
	for (unsigned i = s; i < s + n; i++)
		if (want ? !pm_valid(acc_peek(&e[i])) : acc_peek(&e[i]) != 0)
			return false;
	return true;
}

/* ---- map ---------------------------------------------------------------- */
static bool pick_map(const uint64_t *e, unsigned cont, uint64_t *rng, struct op_args *a)
{
	bool empty = true;

	for (unsigned j = 0; j < cont && empty; j++)
		empty = acc_peek(&e[j]) == 0;
	if (empty && rng_below(rng, 10) < 7) {
		/* a new folio (after reclaim or migration), or the same
		 * again; usually with the VMA's prot, sometimes another */
		a->flags |= OPF_NEW_FOLIO;
		if (rng_below(rng, 2)) {
			unsigned c = rng_below(rng, 4);
			a->flags |= (c == 0 ? PROT_RDONLY : c == 1 ? PROT_OTHER_ATTR
							: PROT_WRITABLE) << OPF_PROT_SHIFT;
		}
	}
	if (!pick_run(e, cont, 0, rng, &a->s, &a->n))
		return false;
	if (empty && rng_below(rng, 4)) {
		a->s = 0;
		a->n = cont;
	}
	if (rng_below(rng, 2))
		a->flags |= OPF_YOUNG;
	if (rng_below(rng, 3) == 0)
		a->flags |= OPF_DIRTY;
	return true;
}

static unsigned gen_map_flags(uint64_t *rng)
{
	unsigned f = rng_below(rng, 2) ? OPF_YOUNG : 0;   /* one draw at a time, in order */

	f |= rng_below(rng, 3) == 0 ? OPF_DIRTY : 0;
	f |= rng_below(rng, 2) ? OPF_NEW_FOLIO : 0;
	return f | rng_below(rng, 4) << OPF_PROT_SHIFT;
}

static int run_map(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	struct harness_mm *m = c->m;
	unsigned prot = (flags & OPF_PROT_MASK) >> OPF_PROT_SHIFT;
	uint64_t pte;

	if (!run_is(c->e, s, n, 0))
		return 0;
	/* a new folio only for an empty block: a block maps one folio */
	if (!c->plan->folio || ((flags & OPF_NEW_FOLIO) && run_is(c->e, 0, m->cont, 0)))
		c->plan->folio = hmm_fresh_folio(m);
	if (prot != PROT_KEEP || !c->plan->prot)
		c->plan->prot = prot_of(prot);
	pte = pm_pfn_pte(c->plan->folio + s, c->plan->prot, m->g->page_shift);
	if (flags & OPF_YOUNG)
		pte = pm_mkyoung(pte);
	if (flags & OPF_DIRTY)
		pte = pm_mkdirty(pte);
	c->k->want = pte;
	m->v->ep.ep_set_ptes(&m->mm, c->addr, PTEP(c->e + s), __pte_of(pte), n);
	return 1;
}

/* ---- fold, unfold -------------------------------------------------------- */
static int run_fold(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	uint64_t pte = acc_peek(&c->e[s]);

	if (!pm_valid(pte) || pm_cont(pte))
		return 0;
	c->m->v->ep.ep_contpte_try_fold(&c->m->mm, c->addr, PTEP(c->e + s), __pte_of(pte));
	return 1;
}

static int run_unfold(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	uint64_t pte = acc_peek(&c->e[s]);

	if (!pm_valid_cont(pte))
		return 0;
	c->m->v->ep.ep_contpte_try_unfold(&c->m->mm, c->addr, PTEP(c->e + s), __pte_of(pte));
	return 1;
}

/* ---- the caller's TLB flush --------------------------------------------------
 * What core-mm does after the arch call when the change takes a
 * permission or a page away: unmap (mmu_gather, before the pages are
 * freed), wrprotect (fork's flush before the child may run), MADV_FREE
 * (clear_young_dirty's mmu_gather). Only with the TLB model on (--tlb),
 * so that the flush counts of a run without it stay what they were. The
 * caller mutants (build/catalogue.bzl) drop it. */
static void caller_flush(struct op_ctx *c, unsigned n, const char *slip)
{
	if (!c->m->tlb_on || (slip && c->m->v->mutant && !strcmp(c->m->v->mutant, slip)))
		return;
	kc_tlb_flush(&c->m->mm, c->addr, c->addr + n * (1UL << c->m->g->page_shift));
}

/* MADV_FREE: contpte_clear_young_dirty_ptes may widen to whole blocks
 * (the kernel's caller passes whole large folios, so its flush covers
 * them); the harness asks for part of a block too, so its caller flushes
 * the block. */
static void caller_flush_block(struct op_ctx *c)
{
	unsigned long size = (unsigned long)c->m->cont << c->m->g->page_shift;
	unsigned long start = c->addr & ~(size - 1);

	if (c->m->tlb_on)
		kc_tlb_flush(&c->m->mm, start, start + size);
}

/* ---- unmap ---------------------------------------------------------------- */
/* Any range, often the whole block. */
static bool pick_any_range(const uint64_t *e, unsigned cont, uint64_t *rng, struct op_args *a)
{
	if (rng_below(rng, 5) < 2) {
		a->n = cont;
	} else {
		a->s = rng_below(rng, cont);
		a->n = 1 + rng_below(rng, cont - a->s);
	}
	return true;
}

static int run_unmap(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	c->k->ret = c->m->v->ep.ep_get_and_clear_full_ptes(&c->m->mm, c->addr, PTEP(c->e + s), n, 0).pte;
	c->k->has_ret = true;
	/* core-mm's mmu_gather: flush, then free the pages */
	caller_flush(c, n, "unmap_no_flush");
	return 1;
}

/* The same zap for a caller that needs no old value (an anonymous folio):
 * clear_full_ptes, full=0 */
static int run_unmap_clear(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	c->m->v->ep.ep_clear_full_ptes(&c->m->mm, c->addr, PTEP(c->e + s), n, 0);
	caller_flush(c, n, "unmap_no_flush");
	return 1;
}

/* a, or b if a is none, with the access and dirty state of both */
static uint64_t merge_bits(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (pm_valid(b) && pm_dirty(b))
		a = pm_mkdirty(a);
	if (pm_valid(b) && pm_young(b))
		a = pm_mkyoung(a);
	return a;
}

/* ---- process teardown: exit_mmap's zap ------------------------------------
 * The process is gone (its mm has no user left): none of its threads
 * faults, maps, protects, advises or remaps any more, and no lockless walk
 * of its tables begins: GUP-fast walks the caller's own mm only, and the
 * fault path needs a thread of the process (or a device whose fault
 * handler takes a reference the mm no longer gives). Hardware keeps its
 * TLBs and may still walk. The zap holds the PTL like any writer, so reclaim
 * and migration (rmap walkers, under the PTL) wait for it. The table's
 * teardown count is odd meanwhile: no lockless read of it begins, and one
 * in flight is not judged (hmm_exit_seq; docs/contract.md, "Process
 * teardown"). */
static void exit_begin(struct op_ctx *c)
{
	atomic_fetch_add_explicit(&c->m->ptl[c->lt].exit_seq, 1, memory_order_seq_cst);
	atomic_thread_fence(memory_order_seq_cst);
}

static void exit_end(struct op_ctx *c)
{
	atomic_fetch_add_explicit(&c->m->ptl[c->lt].exit_seq, 1, memory_order_release);
}

/* What folio_pte_batch compares: the mapping with the pfn, and with the
 * access, dirty and write state set aside. */
static uint64_t batch_key(uint64_t v)
{
	return pm_content(v) & ~PTE_BIT_WRITE;
}

/* core-mm's folio_pte_batch: how many entries from i (valid, read as v
 * through the arch's ptep_get) on, before end, map the following pages of
 * the same folio alike. The arch's pte_batch_hint says how many it may take
 * without reading them. */
static unsigned zap_batch(struct op_ctx *c, unsigned i, unsigned end, uint64_t v)
{
	const struct variant *vr = c->m->v;
	unsigned shift = c->m->g->page_shift, j = i;
	uint64_t key = batch_key(v);

	for (;;) {
		j += vr->ep.ep_pte_batch_hint(PTEP(c->e + j), __pte_of(v)) ?: 1;
		if (j >= end)
			return end - i;
		v = vr->ptep_get(c->e + j);
		if (!pm_valid(v) || batch_key(v) != key + ((uint64_t)(j - i) << shift))
			return j - i;
	}
}

/* zap_pte_range over [s, s + n) with full (process teardown): every present
 * entry, a folio's batch at a time or one entry at a time (OPF_SINGLE, as
 * before batching), with its old value (get_and_clear_full_ptes,
 * ptep_get_and_clear_full) or without (OPF_CLEAR, as for an anonymous
 * folio: clear_full_ptes). What each call returned is kept for the
 * postcondition. */
static void zap_range(struct op_ctx *c, unsigned s, unsigned n, unsigned flags, int full)
{
	const struct variant *vr = c->m->v;
	unsigned long page = 1UL << c->m->g->page_shift;

	for (unsigned i = s, nr; i < s + n; i += nr) {
		uint64_t v = vr->ptep_get(c->e + i), ret = 0;
		unsigned long addr = c->addr + (i - s) * page;

		nr = 1;
		if (!pm_valid(v))
			continue;
		if (!(flags & OPF_SINGLE))
			nr = zap_batch(c, i, s + n, v);
		if (flags & OPF_CLEAR)
			vr->ep.ep_clear_full_ptes(&c->m->mm, addr, PTEP(c->e + i), nr, full);
		else if (flags & OPF_SINGLE)
			ret = vr->ep.ep_ptep_get_and_clear_full(&c->m->mm, addr, PTEP(c->e + i), full).pte;
		else
			ret = vr->ep.ep_get_and_clear_full_ptes(&c->m->mm, addr, PTEP(c->e + i), nr, full).pte;
		for (unsigned j = i; j < i + nr; j++)
			c->k->rets[j] = ret;
		c->k->ret = merge_bits(c->k->ret, ret);
	}
}

static int run_teardown(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	memset(c->k->rets, 0, sizeof(c->k->rets));
	exit_begin(c);
	zap_range(c, s, n, flags, 1);
	c->k->has_ret = !(flags & OPF_CLEAR);
	/* the gather's flush before the pages are freed (arm64 itself skips
	 * the leaf flush of an mm no CPU will run again; the harness's
	 * hardware agents go on, so it flushes as a generic architecture) */
	caller_flush(c, n, NULL);
	exit_end(c);
	return 1;
}

static unsigned gen_teardown_flags(uint64_t *rng)
{
	unsigned f = rng_below(rng, 3) ? 0 : OPF_CLEAR;   /* one draw at a time, in order */

	return f | (rng_below(rng, 3) ? 0 : OPF_SINGLE);
}

static bool pick_teardown(const uint64_t *e, unsigned cont, uint64_t *rng, struct op_args *a)
{
	a->flags = gen_teardown_flags(rng);
	return pick_any_range(e, cont, rng, a);
}

/* ---- one entry taken out: mremap's move, migration, KSM, a zap ------------ */
static int run_get_and_clear(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	const struct variant *vr = c->m->v;

	if (!pm_valid(acc_peek(&c->e[s])))
		return 0;
	if (flags & OPF_ZAP)
		c->k->ret = vr->ep.ep_ptep_get_and_clear_full(&c->m->mm, c->addr, PTEP(c->e + s), 0).pte;
	else
		c->k->ret = vr->ep.ep_ptep_get_and_clear(&c->m->mm, c->addr, PTEP(c->e + s)).pte;
	c->k->has_ret = true;
	/* ptep_clear_flush's flush, or the gather's before the page is freed */
	caller_flush(c, 1, NULL);
	return 1;
}

static unsigned gen_get_and_clear_flags(uint64_t *rng)
{
	return rng_below(rng, 2) ? OPF_ZAP : 0;
}

static bool pick_get_and_clear(const uint64_t *e, unsigned cont, uint64_t *rng, struct op_args *a)
{
	a->s = rng_below(rng, cont);
	a->flags = gen_get_and_clear_flags(rng);
	return true;
}

/* ---- aging ---------------------------------------------------------------- */
/* MGLRU's page-table walk: a batch of entries at once, no flush */
static int run_young_ptes(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	if (!run_is(c->e, s, n, 1))
		return 0;
	c->k->ret = c->m->v->ep.ep_test_and_clear_young_ptes(&c->m->vma, c->addr, PTEP(c->e + s), n) != 0;
	c->k->has_ret = true;
	return 1;
}

static int run_young(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	if (!pm_valid(acc_peek(&c->e[s])))
		return 0;
	c->k->ret = c->m->v->ep.ep_ptep_test_and_clear_young(&c->m->vma, c->addr, PTEP(c->e + s)) != 0;
	c->k->has_ret = true;
	return 1;
}

static int run_flush_young(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	if (!run_is(c->e, s, n, 1))
		return 0;
	/* one page: core-mm's single-entry call (folio_referenced_one on a
	 * small mapping) */
	if (n == 1)
		c->k->ret = c->m->v->ep.ep_ptep_clear_flush_young(&c->m->vma, c->addr, PTEP(c->e + s)) != 0;
	else
		c->k->ret = c->m->v->ep.ep_clear_flush_young_ptes(&c->m->vma, c->addr, PTEP(c->e + s), n) != 0;
	c->k->has_ret = true;
	return 1;
}

/* ---- MADV_COLD / MADV_FREE -------------------------------------------- */
static bool pick_clear_young_dirty(const uint64_t *e, unsigned cont, uint64_t *rng,
				   struct op_args *a)
{
	a->flags = rng_below(rng, 2) ? 0 : OPF_DIRTY;
	return pick_run(e, cont, 1, rng, &a->s, &a->n);
}

static unsigned gen_clear_young_dirty_flags(uint64_t *rng)
{
	return rng_below(rng, 2) ? OPF_DIRTY : 0;
}

static int run_clear_young_dirty(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	cydp_t cyd = flags & OPF_DIRTY ? CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY : CYDP_CLEAR_YOUNG;

	if (!run_is(c->e, s, n, 1))
		return 0;
	c->m->v->ep.ep_clear_young_dirty_ptes(&c->m->vma, c->addr, PTEP(c->e + s), n, cyd);
	if (flags & OPF_DIRTY)
		caller_flush_block(c);
	return 1;
}

/* ---- write-protect ------------------------------------------------------- */
static int run_wrprotect(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	if (!run_is(c->e, s, n, 1))
		return 0;
	/* one page: fork's and KSM's single-entry call */
	if (n == 1)
		c->m->v->ep.ep_ptep_set_wrprotect(&c->m->mm, c->addr, PTEP(c->e + s));
	else
		c->m->v->ep.ep_wrprotect_ptes(&c->m->mm, c->addr, PTEP(c->e + s), n);
	caller_flush(c, n, "wrprotect_no_flush");
	return 1;
}

/* ---- fault fix-up -------------------------------------------------------- */
static bool pick_access_flags(const uint64_t *e, unsigned cont, uint64_t *rng, struct op_args *a)
{
	a->s = rng_below(rng, cont);
	a->flags = rng_below(rng, 4);
	return true;
}

static unsigned gen_access_flags_flags(uint64_t *rng)
{
	return rng_below(rng, 4);
}

/* core-mm's fault path (handle_pte_fault) for a device that faulted on
 * entry s, having read c->a->entry locklessly: under the PTL, if the entry
 * (the arch's ptep_get, gathered for a block) is still what the device's
 * path saw, ask for it young (and dirty for a write) with
 * ptep_set_access_flags. */
static int run_fixup(struct op_ctx *c, unsigned s, bool write)
{
	const struct harness_mm *m = c->m;
	uint64_t orig = c->a->entry, pte;

	if (!pm_valid(orig) || !pm_same(m->v->ptep_get(c->e + s), orig))
		return 0;                       /* changed meanwhile: retry the access */
	if (write && !pm_write(orig))
		return 0;                       /* a real write fault (copy on write): not ours */
	pte = orig;
	if (write)
		pte = pm_mkdirty(pte);
	pte = pm_mkyoung(pte);
	c->k->want = pte;
	c->k->arg = write;
	c->k->fixup = true;
	c->k->ret = m->v->ep.ep_ptep_set_access_flags(&c->m->vma, c->addr, PTEP(c->e + s),
						       __pte_of(pte), write) != 0;
	c->k->has_ret = true;
	return 1;
}

static int run_access_flags(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	uint64_t pte = acc_peek(&c->e[s]);
	int dirty = 0;

	if (flags & OPF_AF_FIXUP)
		return run_fixup(c, s, (flags & OPF_AF_MASK) == OPF_AF_WRITE);
	if (!pm_valid(pte))
		return 0;
	pte = pm_mknoncont(pm_mkyoung(pte));
	switch (flags & OPF_AF_MASK) {
	case OPF_AF_READ:           /* read fault: AF only, RDONLY requested */
		pte |= PTE_BIT_RDONLY;
		break;
	case OPF_AF_WRITE:          /* write fault on a writable entry */
		if (pm_write(pte)) {
			pte = pm_mkdirty(pte);
			dirty = 1;
		}
		break;
	case OPF_AF_MKWRITE:        /* write fault that makes it writable */
		pte = pm_mkdirty(pm_mkwrite(pte));
		dirty = 1;
		break;
	default:                    /* AF only */
		break;
	}
	c->k->want = pte;
	c->k->arg = dirty;
	c->k->ret = c->m->v->ep.ep_ptep_set_access_flags(&c->m->vma, c->addr, PTEP(c->e + s),
							  __pte_of(pte), dirty) != 0;
	c->k->has_ret = true;
	return 1;
}

/* ---- table moves ----------------------------------------------------------- */
static int run_retire(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	c->touched = -1;
	return hmm_retire_table(c->m, c->lt);
}

/* ---- shared pickers ------------------------------------------------------ */
static bool pick_entry(const uint64_t *e, unsigned cont, uint64_t *rng, struct op_args *a)
{
	a->s = rng_below(rng, cont);
	return true;
}

static bool pick_valid_run(const uint64_t *e, unsigned cont, uint64_t *rng, struct op_args *a)
{
	return pick_run(e, cont, 1, rng, &a->s, &a->n);
}

static bool pick_nothing(const uint64_t *e, unsigned cont, uint64_t *rng, struct op_args *a)
{
	return true;
}


/* ---- postconditions (docs/contract.md, "What writers promise") -----------
 * Each judges one op from struct op_check (core/oracle/oracle.h): its block
 * before (E0) and after (E1), its history records, what it returned. Under
 * the PTL only the op itself stores to the block, and hardware only sets
 * AF and clears RDONLY on a DBM entry: a bit that E0 has and E1 lacks, or
 * content that differs, is the op's doing. */
static uint64_t content_nc(uint64_t v) { return pm_content(pm_mknoncont(v)); }

static bool post_nothing_changed(const struct op_check *k, struct violation *out)
{
	return post_kept_outside(k, 0, 0, out);
}

static bool post_map(const struct op_check *k, struct violation *out)
{
	unsigned shift = k->m->g->page_shift;

	if (!k->rc)
		return post_nothing_changed(k, out);
	for (unsigned j = k->s; j < k->s + k->n; j++) {
		uint64_t v = op_e1(k, k->b, j);
		uint64_t want = pm_pfn_pte(pm_pfn(k->want, shift) + j - k->s, pm_pgprot(k->want, shift), shift);

		if (!pm_valid(v) || content_nc(v) != content_nc(want))
			return post_fail(k, out, VK_WRONG_MAPPING, (int)j,
					 "entry %u does not map what set_ptes was asked to map there", j);
		if ((pm_young(want) && !pm_young(v)) || (pm_dirty(want) && !pm_dirty(v)))
			return post_fail(k, out, VK_WRONG_MAPPING, (int)j,
					 "entry %u was mapped %s but is not", j, pm_young(want) && !pm_young(v) ? "young" : "dirty");
	}
	return post_kept_outside(k, k->s, k->s + k->n, out);
}

/* fold and unfold: the mapping and the bits of every entry kept (CONT
 * aside); the mixed-block invariant says the rest of "fold: all CONT with
 * one mapping" (a fold that does not fold is slow, not wrong) */
static bool post_fold(const struct op_check *k, struct violation *out)
{
	return post_nothing_changed(k, out);
}

static bool post_unfold(const struct op_check *k, struct violation *out)
{
	if (k->rc)
		for (unsigned j = 0; j < k->m->cont; j++)
			if (pm_cont(op_e1(k, k->b, j)))
				return post_fail(k, out, VK_WRONG_MAPPING, (int)j,
						 "entry %u is still CONT after the block was unfolded", j);
	return post_nothing_changed(k, out);
}

static bool post_unmap(const struct op_check *k, struct violation *out)
{
	unsigned shift = k->m->g->page_shift;

	for (unsigned j = k->s; j < k->s + k->n; j++)
		if (op_e1(k, k->b, j))
			return post_fail(k, out, VK_WRONG_MAPPING, (int)j,
					 "entry %u of the unmapped range is not none after the unmap", j);
	if (!k->has_ret)             /* unmap_clear: no old value asked for */
		return post_kept_outside(k, k->s, k->s + k->n, out);
	/* every entry the op cleared had at least the bits it had before the
	 * op when it was cleared (only hardware ran, and it only adds) */
	for (unsigned j = k->s; j < k->s + k->n; j++) {
		uint64_t a = op_e0(k, k->b, j);

		if (pm_valid(a) && ((pm_dirty(a) && !pm_dirty(k->ret)) || (pm_young(a) && !pm_young(k->ret))))
			return post_fail(k, out, VK_WRONG_RETURN, (int)j,
					 "returned %s without the %s state of entry %u, which it cleared: "
					 "the caller loses it (a dirty page freed unwritten)",
					 pm_format(k->ret, shift).s, pm_dirty(a) && !pm_dirty(k->ret) ? "dirty" : "young", j);
	}
	return post_kept_outside(k, k->s, k->s + k->n, out);
}

/* exit_mmap's zap of [s, s+n): the range none, the rest of the block kept.
 * What the calls returned: batched, each call's entry has the access and
 * dirty state of every entry of its batch (get_and_clear_full_ptes' promise;
 * core-mm marks the folio from it); one entry at a time, the returns
 * together have those of every entry cleared (each call's own entry may
 * lack what only a sibling had: the folio learns it from the sibling's
 * call, which the same zap makes). */
static bool post_teardown(const struct op_check *k, struct violation *out)
{
	unsigned shift = k->m->g->page_shift;
	uint64_t all = 0;

	for (unsigned j = k->s; j < k->s + k->n; j++)
		if (op_e1(k, k->b, j))
			return post_fail(k, out, VK_WRONG_MAPPING, (int)j,
					 "entry %u of the torn-down range is not none after the zap", j);
	for (unsigned j = k->s; j < k->s + k->n && k->has_ret; j++)
		all = merge_bits(all, k->rets[j]);
	for (unsigned j = k->s; j < k->s + k->n && k->has_ret; j++) {
		uint64_t a = op_e0(k, k->b, j), got = k->flags & OPF_SINGLE ? all : k->rets[j];
		bool dirty = pm_dirty(a) && !pm_dirty(got), young = pm_young(a) && !pm_young(got);

		if (pm_valid(a) && (dirty || young))
			return post_fail(k, out, VK_WRONG_RETURN, (int)j,
					 "%s %s without the %s state of entry %u, which it cleared: "
					 "the folio is freed as %s",
					 k->flags & OPF_SINGLE ? "the calls returned" : "the call that cleared it returned",
					 pm_format(got, shift).s, dirty ? "dirty" : "young", j,
					 dirty ? "clean (its data is lost)" : "unreferenced");
	}
	return post_kept_outside(k, k->s, k->s + k->n, out);
}

/* ptep_get_and_clear(_full) of entry s: it is none; the value returned is
 * the entry as ptep_get gathered it before (its mapping; for a CONT entry
 * the block's access and dirty state: core-mm moves or frees the page on
 * it, and a clean value for a page a sibling's walk dirtied loses the
 * write once the siblings are cleaned); the other entries keep mapping and
 * bits (CONT aside: the block is unfolded). */
static bool post_get_and_clear(const struct op_check *k, struct violation *out)
{
	unsigned s = k->s, shift = k->m->g->page_shift;
	uint64_t a = op_e0(k, k->b, s), gathered = a;

	if (!k->rc)
		return post_nothing_changed(k, out);
	if (op_e1(k, k->b, s))
		return post_fail(k, out, VK_WRONG_MAPPING, (int)s, "entry %u is not none after it was cleared", s);
	/* the siblings first: a bit the unfold dropped is theirs to report */
	for (unsigned j = 0; j < k->m->cont; j++)
		if (j != s && !post_kept(k, j, 0, out))
			return false;
	if (!pm_valid(k->ret) || content_nc(k->ret) != content_nc(a))
		return post_fail(k, out, VK_WRONG_RETURN, (int)s,
				 "returned %s, not the mapping entry %u had", pm_format(k->ret, shift).s, s);
	for (unsigned j = 0; j < k->m->cont && pm_valid_cont(a); j++) {
		uint64_t x = op_e0(k, k->b, j);

		if (pm_valid(x) && pm_dirty(x))
			gathered = pm_mkdirty(gathered);
		if (pm_valid(x) && pm_young(x))
			gathered = pm_mkyoung(gathered);
	}
	if ((pm_dirty(gathered) && !pm_dirty(k->ret)) || (pm_young(gathered) && !pm_young(k->ret)))
		return post_fail(k, out, VK_WRONG_RETURN, (int)s,
				 "returned %s without the %s state entry %u had%s before the op",
				 pm_format(k->ret, shift).s, pm_dirty(gathered) && !pm_dirty(k->ret) ? "dirty" : "young", s,
				 pm_valid_cont(a) ? " (gathered over its CONT block, as ptep_get reads it)" : "");
	return true;
}

/* test_and_clear_young, clear_flush_young_ptes: AF clear on [s, s+n) (an
 * implementation may widen to whole blocks, as core-mm ages per folio, or
 * unfold and age just the range: both are correct); the rest of the block
 * keeps its mapping and dirty state */
static bool post_young(const struct op_check *k, struct violation *out)
{
	if (!k->rc)
		return post_nothing_changed(k, out);
	if (!post_cleared(k, k->s, k->s + k->n, CONSUMES_YOUNG, out) || !post_young_return(k, out))
		return false;
	for (unsigned j = 0; j < k->m->cont; j++)
		if (!post_kept(k, j, CONSUMES_YOUNG, out))
			return false;
	return true;
}

/* MADV_COLD (young) / MADV_FREE (young and dirty) on [s, s+n), widened to
 * whole blocks or not, as for aging */
static bool post_clear_young_dirty(const struct op_check *k, struct violation *out)
{
	unsigned consumes = op_consumes(OP_CLEAR_YOUNG_DIRTY, k->flags);

	if (!k->rc)
		return post_nothing_changed(k, out);
	if (!post_cleared(k, k->s, k->s + k->n, CONSUMES_YOUNG, out) ||
	    ((consumes & CONSUMES_DIRTY) && !post_cleared(k, k->s, k->s + k->n, CONSUMES_DIRTY, out)))
		return false;
	for (unsigned j = 0; j < k->m->cont; j++)
		if (!post_kept(k, j, consumes, out))
			return false;
	return true;
}

static bool post_wrprotect(const struct op_check *k, struct violation *out)
{
	if (!k->rc)
		return post_nothing_changed(k, out);
	for (unsigned j = k->s; j < k->s + k->n; j++) {
		uint64_t a = op_e0(k, k->b, j), z = op_e1(k, k->b, j);

		/* hardware grants a write only through DBM (WRITE) or a clear
		 * RDONLY: with WRITE clear it can never clear RDONLY again */
		if (pm_write(z) || !pm_rdonly(z))
			return post_fail(k, out, VK_STILL_WRITABLE, (int)j,
					 "entry %u is still %s after write-protection: a write goes through "
					 "(after fork: copy-on-write bypassed)", j,
					 pm_write(z) ? "writable (DBM/WRITE set)" : "writable (RDONLY clear)");
		if (!pm_valid(z) || content_nc(z) != content_nc(pm_wrprotect(a)))
			return post_fail(k, out, VK_WRONG_MAPPING, (int)j,
					 "entry %u changed more than its write permission", j);
		if (pm_dirty(a) && !pm_dirty(z))
			return post_fail(k, out, VK_DIRTY_LOST, (int)j,
					 "entry %u was dirty and write-protection lost it (hardware dirty must move to DIRTY)", j);
		if (pm_young(a) && !pm_young(z))
			return post_fail(k, out, VK_YOUNG_LOST, (int)j, "entry %u lost its access flag", j);
	}
	return post_kept_outside(k, k->s, k->s + k->n, out);
}

static bool post_access_flags(const struct op_check *k, struct violation *out)
{
	unsigned s = k->s, cont = k->m->cont;
	uint64_t req = k->want, a = op_e0(k, k->b, s), t = op_e1(k, k->b, s);
	bool sw_changed = false, changed = false;

	if (!k->rc)
		return post_nothing_changed(k, out);
	/* the target entry itself, not a gathered view: a device that walks
	 * only this descriptor (an SMMU, a CPU without HAFDBS) faults until
	 * it has them. A fault fix-up is judged by the device's retry instead
	 * (core/fault.c: fault_loop). */
	if (!k->fixup) {
		const char *lack = pm_young(req) && !pm_young(t) ? "the access flag"
				 : pm_write(req) && !pm_write(t) ? "write permission (WRITE)"
				 : pm_write(req) && !pm_rdonly(req) && pm_rdonly(t) ? "hardware write access (RDONLY is still set)"
				 : (pm_sw_dirty(req) || k->arg) && !pm_dirty(t) ? "the dirty state"
				 : NULL;

		if (lack)
			return post_fail(k, out, VK_FLAGS_NOT_SET, (int)s,
					 "returned with the target entry %u still lacking %s it asked for: "
					 "a device without hardware AF/DBM faults on it again and again", s, lack);
	}
	if (!pm_valid(t) || content_nc(t) != content_nc(a | (req & PTE_BIT_WRITE)))
		return post_fail(k, out, VK_WRONG_MAPPING, (int)s,
				 "the target entry %u maps another page or prot than it did", s);
	if ((pm_dirty(a) && !pm_dirty(t)) || (pm_young(a) && !pm_young(t)))
		return post_fail(k, out, pm_dirty(a) && !pm_dirty(t) ? VK_DIRTY_LOST : VK_YOUNG_LOST, (int)s,
				 "the target entry %u lost its %s state", s, pm_dirty(a) && !pm_dirty(t) ? "dirty" : "young");
	for (unsigned j = 0; j < cont; j++) {
		uint64_t x = op_e0(k, k->b, j), y = op_e1(k, k->b, j);

		if (j != s && !post_kept(k, j, 0, out))
			return false;
		/* what hardware could not have done: content or CONT, software
		 * DIRTY; with hardware quiet, any change */
		sw_changed |= pm_content(x) != pm_content(y) || (pm_sw_dirty(y) && !pm_sw_dirty(x));
		changed |= x != y;
	}
	if (!k->ret && (sw_changed || (changed && k->hw_quiet[k->b - k->b0])))
		return post_fail(k, out, VK_WRONG_RETURN, (int)s,
				 "returned 0 (nothing changed) but the op changed the block: the caller skips "
				 "the TLB maintenance a change needs");
	/* (nonzero with nothing changed only costs the caller a flush: the
	 * trees before the 2026-03 fix return 1 whatever they did) */
	return true;
}

/* a table move: every entry of every block moved as it was (the bits
 * hardware set meanwhile moved with it) */
static bool post_retire(const struct op_check *k, struct violation *out)
{
	for (unsigned blk = 0; blk < k->nb; blk++)
		for (unsigned j = 0; j < k->m->cont; j++) {
			uint64_t a = op_e0(k, blk, j), z = op_e1(k, blk, j);

			if (pm_valid(a) ? !pm_valid(z) || pm_content(a) != pm_content(z) : a != z)
				return post_fail_at(k, blk, out, VK_WRONG_MAPPING, (int)j,
						    "entry %u of block %u is not what it was before the table moved",
						    j, blk);
			if (!post_kept_at(k, blk, j, 0, out))
				return false;
		}
	return true;
}

/* ---- the table ------------------------------------------------------------- */
static const struct op_word map_words[] = {
	{ "young", OPF_YOUNG, OPF_YOUNG },
	{ "dirty", OPF_DIRTY, OPF_DIRTY },
	{ "new", OPF_NEW_FOLIO, OPF_NEW_FOLIO },
	{ "ro", OPF_PROT_MASK, PROT_RDONLY << OPF_PROT_SHIFT },
	{ "other", OPF_PROT_MASK, PROT_OTHER_ATTR << OPF_PROT_SHIFT },
	{ "rw", OPF_PROT_MASK, PROT_WRITABLE << OPF_PROT_SHIFT },
	{ NULL, 0, 0 },
};
static const struct op_word clear_young_dirty_words[] = {
	{ "dirty", OPF_DIRTY, OPF_DIRTY },
	{ NULL, 0, 0 },
};
static const struct op_word teardown_words[] = {
	{ "clear", OPF_CLEAR, OPF_CLEAR },
	{ "single", OPF_SINGLE, OPF_SINGLE },
	{ NULL, 0, 0 },
};
static const struct op_word get_and_clear_words[] = {
	{ "zap", OPF_ZAP, OPF_ZAP },
	{ NULL, 0, 0 },
};
static const struct op_word access_flags_words[] = {
	{ "read", OPF_AF_MASK, OPF_AF_READ },
	{ "write", OPF_AF_MASK, OPF_AF_WRITE },
	{ "mkwrite", OPF_AF_MASK, OPF_AF_MKWRITE },
	{ "af", OPF_AF_MASK, OPF_AF_ONLY },
	{ NULL, 0, 0 },
};

const struct op_desc op_desc[OP_COUNT] = {
	[OP_MAP] = {
		.name = "map", .weight = 5, .shape = OP_SHAPE_RANGE,
		.flags = OPF_YOUNG | OPF_DIRTY | OPF_NEW_FOLIO | OPF_PROT_MASK, .words = map_words,
		.pick = pick_map, .gen_flags = gen_map_flags, .run = run_map,
		.post = post_map,
	},
	[OP_FOLD] = {
		.name = "fold", .weight = 4, .shape = OP_SHAPE_ENTRY,
		.pick = pick_entry, .run = run_fold,
		.post = post_fold,
	},
	[OP_UNFOLD] = {
		.name = "unfold", .weight = 2, .shape = OP_SHAPE_ENTRY,
		.pick = pick_entry, .run = run_unfold,
		.post = post_unfold,
	},
	[OP_UNMAP] = {
		.name = "unmap", .weight = 3, .shape = OP_SHAPE_RANGE,
		.consumes = CONSUMES_DIRTY | CONSUMES_YOUNG,
		.pick = pick_any_range, .run = run_unmap,
		.post = post_unmap,
	},
	[OP_YOUNG] = {
		.name = "young", .weight = 2, .shape = OP_SHAPE_ENTRY,
		.consumes = CONSUMES_YOUNG,
		.pick = pick_entry, .run = run_young,
		.post = post_young,
	},
	[OP_FLUSH_YOUNG] = {
		.name = "flush_young", .weight = 2, .shape = OP_SHAPE_RANGE,
		.consumes = CONSUMES_YOUNG,
		.pick = pick_valid_run, .run = run_flush_young,
		.post = post_young,
	},
	[OP_CLEAR_YOUNG_DIRTY] = {
		.name = "clear_young_dirty", .weight = 2, .shape = OP_SHAPE_RANGE,
		.flags = OPF_DIRTY, .words = clear_young_dirty_words,
		.consumes = CONSUMES_YOUNG, .consumes_if_dirty = CONSUMES_DIRTY,
		.pick = pick_clear_young_dirty, .gen_flags = gen_clear_young_dirty_flags,
		.run = run_clear_young_dirty,
		.post = post_clear_young_dirty,
	},
	[OP_WRPROTECT] = {
		.name = "wrprotect", .weight = 2, .shape = OP_SHAPE_RANGE,
		.pick = pick_valid_run, .run = run_wrprotect,
		.post = post_wrprotect,
	},
	[OP_ACCESS_FLAGS] = {
		.name = "access_flags", .weight = 3, .shape = OP_SHAPE_ENTRY,
		.flags = OPF_AF_MASK, .words = access_flags_words, .required = OPF_AF_MASK,
		.pick = pick_access_flags, .gen_flags = gen_access_flags_flags,
		.run = run_access_flags,
		.post = post_access_flags,
	},
	[OP_RETIRE] = {
		.name = "retire", .weight = 1, .shape = OP_SHAPE_NONE,
		.pick = pick_nothing, .run = run_retire,
		.post = post_retire,
	},
	[OP_TEARDOWN] = {
		.name = "teardown", .weight = 1, .shape = OP_SHAPE_RANGE,
		.flags = OPF_CLEAR | OPF_SINGLE, .words = teardown_words,
		.consumes = CONSUMES_DIRTY | CONSUMES_YOUNG,
		.pick = pick_teardown, .gen_flags = gen_teardown_flags, .run = run_teardown,
		.post = post_teardown,
	},
	[OP_GET_AND_CLEAR] = {
		.name = "get_and_clear", .weight = 1, .shape = OP_SHAPE_ENTRY,
		.flags = OPF_ZAP, .words = get_and_clear_words,
		.consumes = CONSUMES_DIRTY | CONSUMES_YOUNG,
		.pick = pick_get_and_clear, .gen_flags = gen_get_and_clear_flags,
		.run = run_get_and_clear,
		.post = post_get_and_clear,
	},
	[OP_YOUNG_PTES] = {
		.name = "young_ptes", .weight = 1, .shape = OP_SHAPE_RANGE,
		.consumes = CONSUMES_YOUNG,
		.pick = pick_valid_run, .run = run_young_ptes,
		.post = post_young,
	},
	[OP_UNMAP_CLEAR] = {
		.name = "unmap_clear", .weight = 1, .shape = OP_SHAPE_RANGE,
		.consumes = CONSUMES_DIRTY | CONSUMES_YOUNG,
		.pick = pick_any_range, .run = run_unmap_clear,
		.post = post_unmap,
	},
};

/* ---- driving an op --------------------------------------------------------- */
bool op_pick_args(const struct harness_mm *m, const uint64_t *e, enum op op,
		  uint64_t *rng, struct op_args *a)
{
	a->s = 0;
	a->n = 1;
	a->flags = 0;
	return op_desc[op].pick(e, m->cont, rng, a);
}

void op_gen_args(enum op op, unsigned cont, uint64_t *rng, struct op_args *a)
{
	const struct op_desc *d = &op_desc[op];

	a->s = a->n = a->flags = 0;
	if (d->shape == OP_SHAPE_NONE)
		return;
	a->s = rng_below(rng, cont);
	if (d->shape == OP_SHAPE_RANGE) {
		if (rng_below(rng, 2)) {             /* often the whole block */
			a->s = 0;
			a->n = cont;
		} else {
			a->n = 1 + rng_below(rng, cont - a->s);
		}
	}
	if (d->gen_flags)
		a->flags = d->gen_flags(rng);
}

/* The op being judged: one at a time per thread (on the engine, one at a
 * time altogether: its one table's PTL serialises them). */
static __thread struct op_check op_chk;

struct op_wild {
	sigjmp_buf *jb;
	uint64_t *p;
	enum acc_kind kind;
};

/* The access layer found a store outside the op's window: stop the op
 * before it happens (core/access.h). */
static void op_on_wild(struct acc_guard *g, uint64_t *p, enum acc_kind kind)
{
	struct op_wild *x = g->data;

	x->p = p;
	x->kind = kind;
	g->wlen = 0;
	siglongjmp(*x->jb, 1);
}

static const char *const acc_kind_words[ACC_KIND_COUNT] = {
	"a load", "a store", "a cmpxchg", "an xchg", "an atomic OR", "an atomic AND-NOT",
};

int op_run(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans,
	   unsigned lt, unsigned b, enum op op, const struct op_args *a, int *touched)
{
	const struct op_desc *d = &op_desc[op];
	unsigned cont = m->cont, s = a->s, n = d->shape == OP_SHAPE_ENTRY ? 1 : a->n;
	struct op_ctx c = {
		.m = m, .w = w, .plan = &plans[lt * m->bpt + b],
		.e = hmm_slot_entries(m, m->tables[lt]) + b * cont, .lt = lt, .b = b,
		.addr = hmm_addr(m, lt, b * cont) + s * (1UL << m->g->page_shift),
		.touched = (int)b, .a = a, .k = &op_chk,
	};
	struct op_check *k = &op_chk;
	struct acc_thread *t = &acc_self;
	struct acc_guard g, *saved_guard = t->guard;
	struct op_wild wild;
	sigjmp_buf jb;
	volatile int rc = 0;
	int jumped;

	*touched = (int)b;
	w->consumes = 0;
	w->failed = false;
	w->has_ret = false;
	if (op >= OP_COUNT)
		return 0;
	if (d->shape != OP_SHAPE_NONE && (s >= cont || n == 0 || n > cont - s))
		return 0;
	w->consumes = op_consumes(op, a->flags);
	w->bbm_bad = false;
	op_check_begin(k, m, lt, b, op == OP_RETIRE);
	k->op = op;
	k->s = s;
	k->n = d->shape == OP_SHAPE_NONE ? 0 : n;
	k->flags = a->flags;
	atomic_store_explicit(&w->cur_lt, lt, memory_order_relaxed);
	atomic_store_explicit(&w->cur_b, b, memory_order_relaxed);
	atomic_store_explicit(&w->cur_op, op + 1, memory_order_release);
	/* The op may store to its own block only (a table move: to the table
	 * pages); anything else is stopped before it happens, and a fault in
	 * the subject's code comes back here (core/oob.c). */
	if (op == OP_RETIRE) {
		g.wlo = (uintptr_t)((char *)m->seg + m->hdr->off_entries);
		g.wlen = (uintptr_t)m->nslots * m->hdr->slot_stride;
	} else {
		g.wlo = (uintptr_t)c.e;
		g.wlen = cont * sizeof(uint64_t);
	}
	wild.jb = &jb;
	wild.p = NULL;
	g.on_wild = op_on_wild;
	g.data = &wild;
	g.recover = &jb;
	g.fault_addr = NULL;
	t->guard = &g;
	jumped = sigsetjmp(jb, 0);
	if (!jumped)
		rc = d->run(&c, s, n, a->flags);
	t->guard = saved_guard;
	/* the op's stores visible before the harness checks the op (on real
	 * hardware the PTL's release will do it) */
	acc_writes_visible();
	/* an op stopped at an access outside its block is finished as its
	 * caller would finish it, its block (a table move: its table) flushed:
	 * what the stop left undone is no second finding (the out_of_bounds
	 * is the finding; with it known, the run goes on) */
	if (jumped && m->tlb_on)
		kc_tlb_flush(&m->mm, hmm_addr(m, lt, op == OP_RETIRE ? 0 : b * cont),
			     hmm_addr(m, lt, op == OP_RETIRE ? m->ept : (b + 1) * cont));
	/* the op returned: translations of its entries that outlived a change
	 * are stale from now on */
	if (m->tlb_on)
		tlb_op_done(m, lt, op == OP_RETIRE ? 0 : b * cont, op == OP_RETIRE ? m->ept : (b + 1) * cont);
	atomic_store_explicit(&w->cur_op, 0, memory_order_release);
	*touched = jumped ? (op == OP_RETIRE ? -1 : (int)b) : c.touched;
	k->rc = jumped ? 1 : rc;
	w->has_ret = !jumped && k->has_ret;
	w->ret = k->ret;
	op_check_end(k);
	if (jumped) {
		char where[160];

		w->failed = true;
		if (jumped == 1)
			post_fail(k, &w->vio, VK_OOB, -1,
				  "%s to %s, outside the op's %s: stopped before it happened",
				  acc_kind_words[wild.kind], hmm_where(m, wild.p, where, sizeof(where)),
				  op == OP_RETIRE ? "table pages" : "block");
		else
			post_fail(k, &w->vio, VK_OOB, -1,
				  "the subject's code faulted (%s) on %s: an access outside the tables",
				  jumped == OOB_SIGBUS ? "SIGBUS" : "SIGSEGV",
				  hmm_where(m, g.fault_addr, where, sizeof(where)));
		return 1;
	}
	if (w->bbm_bad) {
		w->failed = true;
		w->vio = w->bbm_vio;
	} else if (!op_check_blocks(k, &w->vio) || (d->post && !d->post(k, &w->vio))) {
		w->failed = true;
	}
	return rc;
}

/* Reported before the owed bits: the op was stopped (out_of_bounds), or it
 * left a block half CONT (a bit it dropped with the rest shows as owed). */
static bool first_in_verdict(const struct violation *v)
{
	return v->kind == VK_OOB || v->kind == VK_MIXED_BLOCK;
}

bool op_verdict(struct harness_mm *m, struct writer_ctx *w, unsigned lt, int touched,
		struct violation *out)
{
	if (w->failed && first_in_verdict(&w->vio)) {
		*out = w->vio;
		return false;
	}
	for (unsigned b = 0; b < m->bpt; b++)
		if ((touched < 0 || (unsigned)touched == b) && !oracle_check_owed(m, lt, b, out))
			return false;
	if (w->failed) {
		*out = w->vio;
		return false;
	}
	return true;
}

int op_finish_exit(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans, int *touched)
{
	const struct op_check *k = &op_chk;
	struct op_args a = { .s = 0, .n = m->cont, .flags = k->flags };

	if (!w->failed || w->vio.kind != VK_MIXED_BLOCK || k->op != OP_TEARDOWN)
		return 0;
	return op_run(m, w, plans, k->lt, k->b, OP_TEARDOWN, &a, touched);
}

int op_run_random(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans,
		  unsigned lt, unsigned b, enum op op, uint64_t *rng, int *touched)
{
	struct op_args a;
	const uint64_t *e = hmm_slot_entries(m, m->tables[lt]) + b * m->cont;

	*touched = (int)b;
	w->consumes = 0;
	w->failed = false;     /* no verdict left from an earlier op */
	if (!op_pick_args(m, e, op, rng, &a))
		return 0;
	return op_run(m, w, plans, lt, b, op, &a, touched);
}
