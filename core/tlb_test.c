/*
 * core/tlb_test.c - the TLB model and the break-before-make monitor, step by
 * step on the baseline tree (4K, one thread): what a hit writes, what a
 * flush removes, and each check firing where it must and not elsewhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/access.h"
#include "core/bbm.h"
#include "core/cpu.h"
#include "core/mm.h"
#include "core/rcu.h"
#include "core/test_check.h"
#include "core/tlb.h"
#include "core/variant.h"


static struct harness_mm M;
static const struct variant *V;

static uint64_t *ent(unsigned idx) { return hmm_slot_entries(&M, M.tables[0]) + idx; }
static unsigned long addr(unsigned idx) { return hmm_addr(&M, 0, idx); }

static uint64_t prot(bool young)
{
	return PTE_BIT_VALID | PTE_BIT_TABLE | PTE_BIT_USER | PTE_BIT_SHARED | PTE_BIT_NG | PTE_BIT_PXN |
	       PTE_BIT_UXN | PTE_BIT_RDONLY | PTE_BIT_WRITE | (young ? PTE_BIT_AF : 0);
}

static void map(unsigned first, unsigned n, uint64_t pfn, bool young)
{
	V->ep.ep_set_ptes(&M.mm, addr(first), (pte_t *)ent(first),
			  (pte_t){ pm_pfn_pte(pfn, prot(young), M.g->page_shift) }, n);
}

static bool any_young(unsigned first, unsigned n)
{
	for (unsigned i = first; i < first + n; i++)
		if (pm_young(acc_peek(ent(i))))
			return true;
	return false;
}

int main(void)
{
	const struct granule *g = granule_by_name("4k");
	static struct tlb t;
	struct violation v;
	char err[256];
	unsigned c;

	V = variant_find("baseline", g);
	if (!V || hmm_create(&M, V, 1, 4, err, sizeof(err))) {
		printf("FAIL: set-up\n");
		return 1;
	}
	rcu_register_thread();
	c = M.cont;
	M.tlb_on = 1;
	CHECK(tlb_attach(&M, &t, 4, TLB_EVICT_LRU, 1) == 0);

	/* block 0: CONT, one translation for the block */
	map(0, c, hmm_fresh_folio(&M), true);
	CHECK(pm_cont(acc_peek(ent(0))));
	CHECK(tlb_access(&M, &t, 0, 0, 3, false, &v) == TLB_WALKED);
	CHECK(tlb_access(&M, &t, 0, 0, 5, false, &v) == TLB_HIT);

	/* aging without a flush: reads through the cached translation do not
	 * set AF again; after the flush the next read walks and sets it */
	CHECK(V->ep.ep_ptep_test_and_clear_young(&M.vma, addr(0), (pte_t *)ent(0)) != 0);
	CHECK(!any_young(0, c));
	CHECK(tlb_access(&M, &t, 0, 0, 7, false, &v) == TLB_HIT);
	CHECK(!any_young(0, c));
	kc_tlb_flush(&M.mm, addr(0), addr(c));
	CHECK(tlb_access(&M, &t, 0, 0, 7, false, &v) == TLB_WALKED);
	CHECK(any_young(0, c));

	/* block 1: pages, written (dirty-writable translation cached), then
	 * write-protected: with no flush, the op's end marks the translation
	 * stale and the next write through it is reported; a flush removes it
	 * and the write faults */
	map(c, c / 2, hmm_fresh_folio(&M), false);
	map(c + c / 2, c / 2, hmm_fresh_folio(&M) + c / 2, false);
	CHECK(!pm_cont(acc_peek(ent(c + 2))));
	CHECK(tlb_access(&M, &t, 0, 1, 2, true, &v) == TLB_WALKED);
	CHECK(tlb_access(&M, &t, 0, 1, 2, true, &v) == TLB_HIT);
	V->ep.ep_wrprotect_ptes(&M.mm, addr(c), (pte_t *)ent(c), c);
	tlb_op_done(&M, 0, c, 2 * c);
	CHECK(tlb_access(&M, &t, 0, 1, 2, false, &v) == TLB_HIT);   /* reads are still granted */
	CHECK(tlb_access(&M, &t, 0, 1, 2, true, &v) == TLB_BAD && v.kind == VK_STALE_TLB);
	kc_tlb_flush(&M.mm, addr(c), addr(2 * c));
	CHECK(tlb_access(&M, &t, 0, 1, 2, true, &v) == TLB_FAULT);

	/* block 2: a page translation cached, then the block rewritten CONT
	 * without a flush: without BBML2 a walk of another entry meets the
	 * page -> conflict; BBML2_NOABORT keeps the block translation alone
	 * (the page's entry then hits it); a BBML2 CPU that may abort keeps
	 * both, and the lookup of the page's entry matches both -> conflict */
	for (int bbml2 = CPU_BBML2_NONE; bbml2 <= CPU_BBML2_ABORT; bbml2++) {
		uint64_t folio = hmm_fresh_folio(&M);

		kc_bbml2 = bbml2;
		map(2 * c, c / 2, folio, false);
		map(2 * c + c / 2, c / 2, folio + c / 2, false);
		CHECK(tlb_access(&M, &t, 0, 2, 1, false, &v) == TLB_WALKED);
		V->ep.ep_get_and_clear_full_ptes(&M.mm, addr(2 * c), (pte_t *)ent(2 * c), c, 0);
		map(2 * c, c, folio, false);
		CHECK(pm_cont(acc_peek(ent(2 * c))));
		v.kind = VK_NONE;
		CHECK(tlb_access(&M, &t, 0, 2, 4, false, &v) == (bbml2 ? TLB_WALKED : TLB_BAD));
		CHECK(v.kind == (bbml2 ? VK_NONE : VK_TLB_CONFLICT));
		if (bbml2 == CPU_BBML2_NOABORT) {
			CHECK(tlb_access(&M, &t, 0, 2, 1, false, &v) == TLB_HIT && v.kind == VK_NONE);
		} else if (bbml2 == CPU_BBML2_ABORT) {
			CHECK(tlb_access(&M, &t, 0, 2, 4, false, &v) == TLB_HIT);   /* the block alone */
			CHECK(tlb_access(&M, &t, 0, 2, 1, false, &v) == TLB_BAD && v.kind == VK_TLB_CONFLICT);
			CHECK(strstr(v.summary, "a lookup matched two translations") != NULL);
		}
		V->ep.ep_get_and_clear_full_ptes(&M.mm, addr(2 * c), (pte_t *)ent(2 * c), c, 0);
		kc_tlb_flush(&M.mm, addr(2 * c), addr(3 * c));
	}
	kc_bbml2 = CPU_BBML2_NONE;

	/* the monitor on entry 3c: valid -> another CONT bit without a break;
	 * a break, then another page before the invalidation completes; after
	 * it, anything */
	{
		unsigned long gi = 3 * c;
		uint64_t a = pm_pfn_pte(5000, prot(true), M.g->page_shift);
		uint64_t b = pm_pfn_pte(6000, prot(true), M.g->page_shift);

		CHECK(bbm_store(&M, gi, a, &v));                      /* from none, invalidated */
		CHECK(bbm_store(&M, gi, a & ~PTE_BIT_AF, &v));        /* AF only: no break needed */
		CHECK(!bbm_store(&M, gi, a | PTE_BIT_CONT, &v) && v.kind == VK_BBM);
		kc_bbml2 = CPU_BBML2_NOABORT;
		CHECK(bbm_store(&M, gi, a, &v));                      /* CONT alone: BBML2 allows */
		CHECK(!bbm_store(&M, gi, b, &v) && v.kind == VK_BBM); /* not another address */
		kc_bbml2 = CPU_BBML2_ABORT;                           /* either kind */
		CHECK(bbm_store(&M, gi, b | PTE_BIT_CONT, &v));
		CHECK(bbm_store(&M, gi, b, &v));
		kc_bbml2 = CPU_BBML2_NONE;
		CHECK(bbm_store(&M, gi, 0, &v));                      /* the break */
		CHECK(!bbm_store(&M, gi, a | PTE_BIT_CONT, &v));      /* not invalidated yet */
		CHECK(bbm_store(&M, gi, 0, &v));
		CHECK(bbm_store(&M, gi, b, &v) == false);             /* old translation is a | CONT */
		CHECK(bbm_store(&M, gi, 0, &v));
		bbm_invalidated(&M, gi, gi + 1);
		CHECK(bbm_store(&M, gi, a | PTE_BIT_CONT, &v));       /* after the invalidation */
	}

	/* _nosync: the TLBI pends until this thread's DSB. Block 0 (CONT) is
	 * cached; a nosync flush leaves it usable; dsb() removes it. A walk
	 * after the TLBI was issued is not covered by it: its translation
	 * survives the DSB. */
	kc_tlb_flush(&M.mm, addr(0), addr(c));
	CHECK(tlb_access(&M, &t, 0, 0, 1, false, &v) == TLB_WALKED);
	kc_tlb_flush_nosync(&M.mm, addr(0), addr(c));
	CHECK(acc_self.tlb_npend == 1);
	CHECK(tlb_access(&M, &t, 0, 0, 1, false, &v) == TLB_HIT);
	kc_dsb();
	CHECK(acc_self.tlb_npend == 0);
	CHECK(tlb_access(&M, &t, 0, 0, 1, false, &v) == TLB_WALKED);
	kc_tlb_flush(&M.mm, addr(0), addr(c));
	kc_tlb_flush_nosync(&M.mm, addr(0), addr(c));
	CHECK(tlb_access(&M, &t, 0, 0, 2, false, &v) == TLB_WALKED);  /* after the TLBI */
	kc_dsb();
	CHECK(tlb_access(&M, &t, 0, 0, 2, false, &v) == TLB_HIT);
	/* a synchronous flush's DSB completes the pending ones too, and more
	 * than ACC_TLB_PEND pending ones all complete */
	for (unsigned i = 0; i <= ACC_TLB_PEND; i++)
		kc_tlb_flush_nosync(&M.mm, addr(i == 0 ? 0 : 3 * c), addr(i == 0 ? c : 3 * c + 1));
	CHECK(acc_self.tlb_npend == ACC_TLB_PEND);
	CHECK(tlb_access(&M, &t, 0, 0, 2, false, &v) == TLB_HIT);
	kc_tlb_flush(&M.mm, addr(3 * c), addr(4 * c));
	CHECK(acc_self.tlb_npend == 0);
	CHECK(tlb_access(&M, &t, 0, 0, 2, false, &v) == TLB_WALKED);

	/* the monitor with _nosync: a break stays not-invalidated until the
	 * DSB; a break made after the TLBI was issued is not covered by it */
	{
		unsigned long gi = 3 * c + 1;
		uint64_t a = pm_pfn_pte(7000, prot(true), M.g->page_shift);
		uint64_t b = pm_pfn_pte(8000, prot(true), M.g->page_shift);

		CHECK(bbm_store(&M, gi, a, &v));
		CHECK(bbm_store(&M, gi, 0, &v));                      /* the break */
		kc_tlb_flush_nosync(&M.mm, addr(gi), addr(gi + 1));
		CHECK(!bbm_store(&M, gi, b, &v) && v.kind == VK_BBM); /* TLBI issued, not complete */
		CHECK(bbm_store(&M, gi, 0, &v));                      /* a break after the TLBI */
		kc_dsb();
		CHECK(!bbm_store(&M, gi, a, &v) && v.kind == VK_BBM); /* the DSB did not cover it */
		CHECK(bbm_store(&M, gi, 0, &v));
		kc_tlb_flush_nosync(&M.mm, addr(gi), addr(gi + 1));
		kc_dsb();
		CHECK(bbm_store(&M, gi, b, &v));                      /* TLBI + DSB: complete */
	}

	/* a local flush: the calling thread's own TLB only. Block 0 cached in
	 * both; with no TLB of its own the thread removes nothing; with t as
	 * its own, t loses it and u keeps it; and a break it covers is not
	 * complete for break-before-make (the others may hold it) */
	{
		static struct tlb u;
		unsigned long gi = 3 * c + 2;
		uint64_t a = pm_pfn_pte(9000, prot(true), M.g->page_shift);
		uint64_t b = pm_pfn_pte(9500, prot(true), M.g->page_shift);

		CHECK(tlb_attach(&M, &u, 4, TLB_EVICT_LRU, 2) == 0);
		kc_tlb_flush(&M.mm, addr(0), addr(c));
		CHECK(tlb_access(&M, &t, 0, 0, 1, false, &v) == TLB_WALKED);
		CHECK(tlb_access(&M, &u, 0, 0, 1, false, &v) == TLB_WALKED);
		kc_tlb_flush_local(&M.mm, addr(0), addr(c));
		CHECK(tlb_access(&M, &t, 0, 0, 1, false, &v) == TLB_HIT);
		acc_self.tlb_local = &t;
		kc_tlb_flush_local(&M.mm, addr(0), addr(c));
		CHECK(tlb_access(&M, &t, 0, 0, 1, false, &v) == TLB_WALKED);
		CHECK(tlb_access(&M, &u, 0, 0, 1, false, &v) == TLB_HIT);
		CHECK(bbm_store(&M, gi, a, &v));
		CHECK(bbm_store(&M, gi, 0, &v));                      /* the break */
		kc_tlb_flush_local(&M.mm, addr(gi), addr(gi + 1));
		CHECK(!bbm_store(&M, gi, b, &v) && v.kind == VK_BBM); /* local: not complete */
		CHECK(bbm_store(&M, gi, 0, &v));
		kc_tlb_flush(&M.mm, addr(gi), addr(gi + 1));
		CHECK(bbm_store(&M, gi, b, &v));                      /* broadcast: complete */
		acc_self.tlb_local = NULL;
		tlb_detach(&M, &u);
	}

	tlb_detach(&M, &t);
	hmm_destroy(&M);
	rcu_unregister_thread();
	printf("tlb_test: %s\n", fails ? "FAILED" : "all checks passed");
	return fails != 0;
}
