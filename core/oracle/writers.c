/*
 * core/oracle/writers.c - what writers promise against hardware
 * (docs/contract.md, "What writers promise"): once hardware set AF or made
 * an entry dirty, the entry keeps the bit until a writer op that may drop
 * it. Hardware marks lcomp + 1 as loaded before its compare-and-swap;
 * consuming writer ops mark their records; mark > consume means the bit
 * must still be there.
 */
#include "core/oracle/oracle.h"

#include <stdio.h>

#include "core/access.h"

bool oracle_check_owed(struct harness_mm *m, unsigned lt, unsigned block, struct violation *out)
{
	struct block_hist *h = hmm_hist(m, lt, block);
	uint64_t *e = hmm_slot_entries(m, m->tables[lt]) + block * m->cont;
	unsigned shift = m->g->page_shift;

	for (unsigned j = 0; j < m->cont; j++) {
		uint64_t dm = atomic_load_explicit(&h->hw_dirty_mark[j], memory_order_acquire);
		uint64_t ym = atomic_load_explicit(&h->hw_young_mark[j], memory_order_acquire);
		uint64_t v = acc_peek(&e[j]);
		bool dirty_owed = dm > h->consume_dirty[j] && !pm_dirty(v);
		bool young_owed = ym > h->consume_young[j] && !pm_young(v);

		if (!dirty_owed && !young_owed)
			continue;
		out->kind = dirty_owed ? VK_DIRTY_LOST : VK_YOUNG_LOST;
		snprintf(out->summary, sizeof(out->summary),
			 "%s: table %u block %u entry %u lost the %s hardware set",
			 dirty_owed ? "dirty_lost" : "young_lost", lt, block, j,
			 dirty_owed ? "dirty state" : "access flag");
		snprintf(out->detail, sizeof(out->detail),
			 "  entry now:      %s\n"
			 "  hardware set the bit after software record %llu; the last record\n"
			 "  allowed to clear it (unmap/clean/age) is %llu; no writer op since\n"
			 "  may drop it, yet the entry no longer has it.\n",
			 pm_format(v, shift).s,
			 (unsigned long long)((dirty_owed ? dm : ym) - 1),
			 (unsigned long long)(dirty_owed ? h->consume_dirty[j] : h->consume_young[j]));
		return false;
	}
	return true;
}
