/*
 * core/cont_rule_test.c - the TLB model's contiguous-bit rule (core/tlb.c,
 * docs/tlb.md "The contiguous bit"), on the baseline tree (4K, one
 * thread): a walk of a CONT entry of a block whose valid entries agree is
 * never judged, holes beside them neither (a break in progress); another
 * CONT bit without BBML2_NOABORT may abort, another output address may
 * abort or send an access to another page, each outcome by the TLB's RNG.
 */
#include <stdio.h>

#include "core/access.h"
#include "core/cpu.h"
#include "core/mm.h"
#include "core/rcu.h"
#include "core/test_check.h"
#include "core/tlb.h"
#include "core/variant.h"


#define SEEDS 64

static struct harness_mm M;
static const struct variant *V;
static unsigned C;

static uint64_t *ent(unsigned idx) { return hmm_slot_entries(&M, M.tables[0]) + idx; }

static uint64_t entry(uint64_t pfn, bool cont)
{
	uint64_t prot = PTE_BIT_VALID | PTE_BIT_TABLE | PTE_BIT_USER | PTE_BIT_SHARED | PTE_BIT_NG |
			PTE_BIT_PXN | PTE_BIT_UXN | PTE_BIT_RDONLY | PTE_BIT_WRITE | PTE_BIT_AF;

	return pm_pfn_pte(pfn, prot | (cont ? PTE_BIT_CONT : 0), M.g->page_shift);
}

/* Block 0 CONT on folio, then entry x replaced by v (0: left as it is). */
static void block(uint64_t folio, unsigned x, uint64_t v)
{
	for (unsigned i = 0; i < C; i++)
		acc_store(ent(i), entry(folio + i, true));
	if (v != ~0ULL)
		acc_store(ent(x), v);
}

/* Walk entry 5 through a fresh TLB seeded with seed, then access entry x
 * through it: how it went. */
enum outcome { OK, WALK_REPORTED, ACCESS_REPORTED };
static enum outcome walk_then(uint64_t seed, unsigned x, enum vkind *kind)
{
	static struct tlb t;
	struct violation v;
	enum outcome o = OK;

	tlb_attach(&M, &t, 4, TLB_EVICT_LRU, seed);
	*kind = VK_NONE;
	if (tlb_access(&M, &t, 0, 0, 5, false, &v) == TLB_BAD) {
		o = WALK_REPORTED;
		*kind = v.kind;
	} else if (tlb_access(&M, &t, 0, 0, x, false, &v) == TLB_BAD) {
		o = ACCESS_REPORTED;
		*kind = v.kind;
	}
	tlb_detach(&M, &t);
	return o;
}

int main(void)
{
	const struct granule *g = granule_by_name("4k");
	char err[256];
	uint64_t folio, other;
	unsigned n[3];
	enum vkind kind;

	V = variant_find("baseline", g);
	if (!V || hmm_create(&M, V, 1, 4, err, sizeof(err))) {
		printf("FAIL: set-up\n");
		return 1;
	}
	rcu_register_thread();
	C = M.cont;
	M.tlb_on = 1;
	folio = hmm_fresh_folio(&M);
	other = hmm_fresh_folio(&M);

	/* agreeing entries (AF, dirty and permissions may differ): never */
	block(folio, 3, entry(folio + 3, true) & ~(PTE_BIT_AF | PTE_BIT_WRITE));
	for (uint64_t s = 1; s <= SEEDS; s++)
		CHECK(walk_then(s, 3, &kind) == OK);

	/* holes beside agreeing entries (a break in progress): never */
	block(folio, 3, 0);
	acc_store(ent(9), 0);
	for (uint64_t s = 1; s <= SEEDS; s++)
		CHECK(walk_then(s, 12, &kind) == OK);

	/* entry 3 without CONT, same page: the abort, by the RNG, some of the
	 * time, without BBML2 and on a BBML2 CPU that may abort; never with
	 * BBML2_NOABORT; nothing reaches another page */
	block(folio, 3, entry(folio + 3, false));
	for (int k = CPU_BBML2_NONE; k <= CPU_BBML2_ABORT; k += CPU_BBML2_ABORT - CPU_BBML2_NONE) {
		kc_bbml2 = k;
		n[OK] = n[WALK_REPORTED] = n[ACCESS_REPORTED] = 0;
		for (uint64_t s = 1; s <= SEEDS; s++) {
			n[walk_then(s, 3, &kind)]++;
			CHECK(kind == VK_NONE || kind == VK_CONT_MISMATCH);
		}
		CHECK(n[OK] > 0 && n[WALK_REPORTED] > 0 && n[ACCESS_REPORTED] == 0);
	}
	kc_bbml2 = CPU_BBML2_NOABORT;
	for (uint64_t s = 1; s <= SEEDS; s++)
		CHECK(walk_then(s, 3, &kind) == OK);
	kc_bbml2 = CPU_BBML2_NONE;

	/* entry 3 CONT on another folio: every outcome is a finding, with or
	 * without BBML2_NOABORT - the abort, the walked access sent to entry
	 * 3's folio, or the walked entry's translation kept and the access to
	 * entry 3 through it reaching the wrong page */
	for (int k = CPU_BBML2_NONE; k <= CPU_BBML2_ABORT; k++) {
		kc_bbml2 = k;
		block(folio, 3, entry(other + 3, true));
		n[OK] = n[WALK_REPORTED] = n[ACCESS_REPORTED] = 0;
		for (uint64_t s = 1; s <= SEEDS; s++) {
			n[walk_then(s, 3, &kind)]++;
			CHECK(kind == VK_CONT_MISMATCH);
		}
		CHECK(n[OK] == 0 && n[WALK_REPORTED] > 0 && n[ACCESS_REPORTED] > 0);
	}
	kc_bbml2 = CPU_BBML2_NONE;

	hmm_destroy(&M);
	printf("cont_rule_test: %s\n", fails ? "FAILED" : "ok");
	return fails != 0;
}
