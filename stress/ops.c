/* stress/ops.c - software writer operations (see stress/ops.h). */
#include "stress/ops.h"

#include <stdio.h>
#include <string.h>

#include "core/access.h"

const char *const op_names[OP_COUNT] = {
	"map", "fold", "unfold", "unmap", "young", "flush_young",
	"clear_young_dirty", "wrprotect", "access_flags", "retire",
};

static const unsigned op_weight[OP_COUNT] = { 5, 4, 2, 3, 2, 2, 2, 2, 3, 1 };

uint32_t ops_parse(const char *s, char *err, size_t errlen)
{
	uint32_t mask = 0;
	char buf[512], *save, *tok;

	if (!strcmp(s, "all"))
		return OPS_ALL;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < OP_COUNT && strcmp(tok, op_names[i]); i++)
			;
		if (i == OP_COUNT) {
			size_t off = snprintf(err, errlen, "unknown writer op '%s' (valid: all", tok);
			for (int k = 0; k < OP_COUNT && off < errlen; k++)
				off += snprintf(err + off, errlen - off, ", %s", op_names[k]);
			if (off < errlen)
				snprintf(err + off, errlen - off, ")");
			return 0;
		}
		mask |= 1u << i;
	}
	if (!mask)
		snprintf(err, errlen, "empty writer op list");
	return mask;
}

enum op ops_pick(uint32_t mask, uint64_t *rng)
{
	unsigned total = 0, r;

	for (int i = 0; i < OP_COUNT; i++)
		if (mask & (1u << i))
			total += op_weight[i];
	r = rng_below(rng, total);
	for (int i = 0; i < OP_COUNT; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (r < op_weight[i])
			return i;
		r -= op_weight[i];
	}
	return OP_MAP;
}

/* Prots a block may be mapped with: normal memory, user, inner shareable,
 * not global, never executable; read-only, writable clean, or a second
 * memory type (so blocks of equal pfns can differ in prot). */
static uint64_t pick_prot(uint64_t *rng)
{
	uint64_t base = PTE_BIT_VALID | PTE_BIT_TABLE | PTE_BIT_USER | PTE_BIT_SHARED |
			PTE_BIT_NG | PTE_BIT_PXN | PTE_BIT_UXN | PTE_BIT_RDONLY;

	switch (rng_below(rng, 4)) {
	case 0: return base;                                   /* read-only */
	case 1: return base | (1ULL << 2) | PTE_BIT_WRITE;     /* other AttrIndx */
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

int op_run(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans,
	   unsigned lt, unsigned b, enum op op, uint64_t *rng, int *touched)
{
	const struct variant *v = m->v;
	unsigned cont = m->cont, s, n, j;
	uint64_t *e = hmm_slot_entries(m, m->tables[lt]) + b * cont;
	struct block_plan *plan = &plans[lt * m->bpt + b];
	unsigned long addr = hmm_addr(m, lt, b * cont);
	unsigned shift = m->g->page_shift;
	struct mm_struct *mm = &m->mm;
	uint64_t pte;

	*touched = (int)b;
	w->consumes = 0;
	switch (op) {
	case OP_MAP: {
		bool empty = true;

		for (j = 0; j < cont && empty; j++)
			empty = acc_peek(&e[j]) == 0;
		if (empty && (!plan->folio || rng_below(rng, 10) < 7)) {
			/* a new folio (after reclaim or migration), or the same again;
			 * usually with the VMA's prot, sometimes another */
			plan->folio = hmm_fresh_folio(m);
			if (!plan->prot || rng_below(rng, 2))
				plan->prot = pick_prot(rng);
		}
		if (!plan->folio || !pick_run(e, cont, 0, rng, &s, &n))
			return 0;
		if (empty && rng_below(rng, 4)) {
			s = 0;
			n = cont;
		}
		pte = pm_pfn_pte(plan->folio + s, plan->prot, shift);
		if (rng_below(rng, 2))
			pte = pm_mkyoung(pte);
		if (rng_below(rng, 3) == 0)
			pte = pm_mkdirty(pte);
		v->set_ptes(mm, addr + s * (1UL << shift), e + s, pte, n);
		return 1;
	}
	case OP_FOLD:
		j = rng_below(rng, cont);
		pte = acc_peek(&e[j]);
		if (!pm_valid(pte) || pm_cont(pte))
			return 0;
		v->contpte_try_fold(mm, addr + j * (1UL << shift), e + j, pte);
		return 1;
	case OP_UNFOLD:
		j = rng_below(rng, cont);
		pte = acc_peek(&e[j]);
		if (!pm_valid_cont(pte))
			return 0;
		v->contpte_try_unfold(mm, addr + j * (1UL << shift), e + j, pte);
		return 1;
	case OP_UNMAP:
		if (rng_below(rng, 5) < 2) {
			s = 0;
			n = cont;
		} else {
			s = rng_below(rng, cont);
			n = 1 + rng_below(rng, cont - s);
		}
		w->consumes = CONSUMES_DIRTY | CONSUMES_YOUNG;
		v->get_and_clear_full_ptes(mm, addr + s * (1UL << shift), e + s, n, 0);
		return 1;
	case OP_YOUNG:
		j = rng_below(rng, cont);
		if (!pm_valid(acc_peek(&e[j])))
			return 0;
		w->consumes = CONSUMES_YOUNG;
		v->ptep_test_and_clear_young(&m->vma, addr + j * (1UL << shift), e + j);
		return 1;
	case OP_FLUSH_YOUNG:
		if (!pick_run(e, cont, 1, rng, &s, &n))
			return 0;
		w->consumes = CONSUMES_YOUNG;
		v->clear_flush_young_ptes(&m->vma, addr + s * (1UL << shift), e + s, n);
		return 1;
	case OP_CLEAR_YOUNG_DIRTY: {
		cydp_t flags = rng_below(rng, 2) ? CYDP_CLEAR_YOUNG
						 : CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY;

		if (!pick_run(e, cont, 1, rng, &s, &n))
			return 0;
		w->consumes = CONSUMES_YOUNG | (flags & CYDP_CLEAR_DIRTY ? CONSUMES_DIRTY : 0);
		v->clear_young_dirty_ptes(&m->vma, addr + s * (1UL << shift), e + s, n, flags);
		return 1;
	}
	case OP_WRPROTECT:
		if (!pick_run(e, cont, 1, rng, &s, &n))
			return 0;
		v->wrprotect_ptes(mm, addr + s * (1UL << shift), e + s, n);
		return 1;
	case OP_ACCESS_FLAGS: {
		int dirty = 0;

		j = rng_below(rng, cont);
		pte = acc_peek(&e[j]);
		if (!pm_valid(pte))
			return 0;
		pte = pm_mknoncont(pm_mkyoung(pte));
		switch (rng_below(rng, 4)) {
		case 0:                     /* read fault: AF only, RDONLY requested */
			pte |= PTE_BIT_RDONLY;
			break;
		case 1:                     /* write fault on a writable entry */
			if (pm_write(pte)) {
				pte = pm_mkdirty(pte);
				dirty = 1;
			}
			break;
		case 2:                     /* write fault that makes it writable */
			pte = pm_mkdirty(pm_mkwrite(pte));
			dirty = 1;
			break;
		default:                    /* AF only */
			break;
		}
		v->ptep_set_access_flags(&m->vma, addr + j * (1UL << shift), e + j, pte, dirty);
		return 1;
	}
	case OP_RETIRE:
		*touched = -1;
		return hmm_retire_table(m, lt);
	default:
		return 0;
	}
}
