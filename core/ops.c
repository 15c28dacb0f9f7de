/* core/ops.c - software writer operations (see core/ops.h). */
#include "core/ops.h"

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

enum op op_by_name(const char *name)
{
	int i;

	for (i = 0; i < OP_COUNT && strcmp(name, op_names[i]); i++)
		;
	return i;
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

bool op_pick_args(const struct harness_mm *m, const uint64_t *e, enum op op,
		  uint64_t *rng, struct op_args *a)
{
	unsigned cont = m->cont;

	a->s = 0;
	a->n = 1;
	a->flags = 0;
	switch (op) {
	case OP_MAP: {
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
	case OP_FOLD:
	case OP_UNFOLD:
	case OP_YOUNG:
		a->s = rng_below(rng, cont);
		return true;
	case OP_ACCESS_FLAGS:
		a->s = rng_below(rng, cont);
		a->flags = rng_below(rng, 4);
		return true;
	case OP_UNMAP:
		if (rng_below(rng, 5) < 2) {
			a->n = cont;
		} else {
			a->s = rng_below(rng, cont);
			a->n = 1 + rng_below(rng, cont - a->s);
		}
		return true;
	case OP_CLEAR_YOUNG_DIRTY:
		a->flags = rng_below(rng, 2) ? 0 : OPF_DIRTY;
		/* fall through */
	case OP_FLUSH_YOUNG:
	case OP_WRPROTECT:
		return pick_run(e, cont, 1, rng, &a->s, &a->n);
	default:
		return true;
	}
}

/* Every entry of [s, s+n) valid (want=1) or none (want=0). */
static bool run_is(const uint64_t *e, unsigned s, unsigned n, int want)
{
	for (unsigned i = s; i < s + n; i++)
		if (want ? !pm_valid(acc_peek(&e[i])) : acc_peek(&e[i]) != 0)
			return false;
	return true;
}

int op_run(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans,
	   unsigned lt, unsigned b, enum op op, const struct op_args *a, int *touched)
{
	const struct variant *v = m->v;
	unsigned cont = m->cont, s = a->s, n = a->n;
	uint64_t *e = hmm_slot_entries(m, m->tables[lt]) + b * cont;
	struct block_plan *plan = &plans[lt * m->bpt + b];
	unsigned shift = m->g->page_shift;
	unsigned long addr = hmm_addr(m, lt, b * cont) + s * (1UL << shift);
	struct mm_struct *mm = &m->mm;
	uint64_t pte;

	*touched = (int)b;
	w->consumes = 0;
	switch (op) {
	case OP_FOLD: case OP_UNFOLD: case OP_YOUNG: case OP_ACCESS_FLAGS:
		n = 1;                      /* one-entry ops: entry s */
		break;
	default:
		break;
	}
	if (op != OP_RETIRE && (s >= cont || n == 0 || n > cont - s))
		return 0;
	switch (op) {
	case OP_MAP: {
		unsigned prot = (a->flags & OPF_PROT_MASK) >> OPF_PROT_SHIFT;

		if (!run_is(e, s, n, 0))
			return 0;
		/* a new folio only for an empty block: a block maps one folio */
		if (!plan->folio || ((a->flags & OPF_NEW_FOLIO) && run_is(e, 0, cont, 0)))
			plan->folio = hmm_fresh_folio(m);
		if (prot != PROT_KEEP || !plan->prot)
			plan->prot = prot_of(prot);
		pte = pm_pfn_pte(plan->folio + s, plan->prot, shift);
		if (a->flags & OPF_YOUNG)
			pte = pm_mkyoung(pte);
		if (a->flags & OPF_DIRTY)
			pte = pm_mkdirty(pte);
		v->set_ptes(mm, addr, e + s, pte, n);
		return 1;
	}
	case OP_FOLD:
		pte = acc_peek(&e[s]);
		if (!pm_valid(pte) || pm_cont(pte))
			return 0;
		v->contpte_try_fold(mm, addr, e + s, pte);
		return 1;
	case OP_UNFOLD:
		pte = acc_peek(&e[s]);
		if (!pm_valid_cont(pte))
			return 0;
		v->contpte_try_unfold(mm, addr, e + s, pte);
		return 1;
	case OP_UNMAP:
		w->consumes = CONSUMES_DIRTY | CONSUMES_YOUNG;
		v->get_and_clear_full_ptes(mm, addr, e + s, n, 0);
		return 1;
	case OP_YOUNG:
		if (!pm_valid(acc_peek(&e[s])))
			return 0;
		w->consumes = CONSUMES_YOUNG;
		v->ptep_test_and_clear_young(&m->vma, addr, e + s);
		return 1;
	case OP_FLUSH_YOUNG:
		if (!run_is(e, s, n, 1))
			return 0;
		w->consumes = CONSUMES_YOUNG;
		v->clear_flush_young_ptes(&m->vma, addr, e + s, n);
		return 1;
	case OP_CLEAR_YOUNG_DIRTY: {
		cydp_t flags = a->flags & OPF_DIRTY ? CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY
						    : CYDP_CLEAR_YOUNG;

		if (!run_is(e, s, n, 1))
			return 0;
		w->consumes = CONSUMES_YOUNG | (flags & CYDP_CLEAR_DIRTY ? CONSUMES_DIRTY : 0);
		v->clear_young_dirty_ptes(&m->vma, addr, e + s, n, flags);
		return 1;
	}
	case OP_WRPROTECT:
		if (!run_is(e, s, n, 1))
			return 0;
		v->wrprotect_ptes(mm, addr, e + s, n);
		return 1;
	case OP_ACCESS_FLAGS: {
		int dirty = 0;

		pte = acc_peek(&e[s]);
		if (!pm_valid(pte))
			return 0;
		pte = pm_mknoncont(pm_mkyoung(pte));
		switch (a->flags & 3) {
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
		v->ptep_set_access_flags(&m->vma, addr, e + s, pte, dirty);
		return 1;
	}
	case OP_RETIRE:
		*touched = -1;
		return hmm_retire_table(m, lt);
	default:
		return 0;
	}
}

int op_run_random(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans,
		  unsigned lt, unsigned b, enum op op, uint64_t *rng, int *touched)
{
	struct op_args a;
	const uint64_t *e = hmm_slot_entries(m, m->tables[lt]) + b * m->cont;

	*touched = (int)b;
	w->consumes = 0;
	if (!op_pick_args(m, e, op, rng, &a))
		return 0;
	return op_run(m, w, plans, lt, b, op, &a, touched);
}
