/* core/bbm.c - the break-before-make monitor (see core/bbm.h). */
#include "core/bbm.h"

#include <stdio.h>
#include <string.h>

#include "core/access.h"

extern int kc_bbml2_noabort;

void bbm_reset(struct harness_mm *m)
{
	if (m->bbm)
		memset(m->bbm, 0, (size_t)m->ntables * m->ept * sizeof(*m->bbm));
}

/* What a translation is for BBM: its output address and its size. */
static const char *differs(uint64_t cached, uint64_t v, unsigned shift)
{
	if (pm_pfn(cached, shift) != pm_pfn(v, shift))
		return "output address";
	if (pm_cont(cached) != pm_cont(v) && !kc_bbml2_noabort)
		return "CONT bit (the translation's size)";
	return NULL;
}

bool bbm_store(struct harness_mm *m, unsigned long gi, uint64_t v, struct violation *out)
{
	struct bbm_entry *e = &m->bbm[gi];
	unsigned shift = m->g->page_shift, st = BBM_ST(atomic_load(&e->state));
	uint64_t cached = st == BBM_VALID ? e->cur : e->old;
	const char *what = NULL;

	if (pm_valid(v) && st != BBM_INV_DONE)
		what = differs(cached, v, shift);
	if (pm_valid(v)) {
		atomic_store(&e->state, BBM_VALID);
	} else if (st == BBM_VALID) {
		e->old = e->cur;
		atomic_store(&e->state, atomic_load(&m->tlb_seq) << 2 | BBM_INV_PENDING);
	}
	e->cur = v;
	if (!what)
		return true;
	memset(out, 0, sizeof(*out));
	out->kind = VK_BBM;
	snprintf(out->summary, sizeof(out->summary),
		 "bbm_violation: table %lu entry %lu (block %lu entry %lu) got another %s %s",
		 gi / m->ept, gi % m->ept, gi % m->ept / m->cont, gi % m->cont, what,
		 st == BBM_VALID ? "while valid (no break)"
				 : "after a break whose TLB invalidation had not completed");
	snprintf(out->detail, sizeof(out->detail),
		 "  translation a TLB may still hold: %s\n"
		 "  new entry:                        %s\n"
		 "  break-before-make: make the entry invalid, complete a TLB invalidation\n"
		 "  for it (TLBI + DSB), then write the new one%s.\n",
		 pm_format(cached, shift).s, pm_format(v, shift).s,
		 kc_bbml2_noabort ? "" : " (BBML2_NOABORT, --bbml2, would allow a change of CONT alone)");
	/* the store's place in the subject (core/finding.h): the storing
	 * thread's, which is this one but for a store the engine's memory
	 * model made visible later */
	out->pc = acc_self.subj.pc;
	return false;
}

static void complete(struct harness_mm *m, unsigned long lo, unsigned long hi, uint64_t seq)
{
	for (unsigned long i = lo; i < hi; i++) {
		uint64_t v = atomic_load(&m->bbm[i].state);

		/* a compare-and-swap: a writer's new break is left alone */
		while (BBM_ST(v) == BBM_INV_PENDING && BBM_BRK(v) < seq &&
		       !atomic_compare_exchange_weak(&m->bbm[i].state, &v, BBM_INV_DONE))
			;
	}
}

void bbm_invalidated(struct harness_mm *m, unsigned long lo, unsigned long hi)
{
	complete(m, lo, hi, UINT64_MAX);
}

void bbm_invalidated_before(struct harness_mm *m, unsigned long lo, unsigned long hi,
			    uint64_t seq)
{
	complete(m, lo, hi, seq);
}
