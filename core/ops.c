/* core/ops.c - software writer operations (see core/ops.h). */
#include "core/ops.h"

#include <stdio.h>
#include <string.h>

#include "core/access.h"

/* Entry pointers and values as the kernel-dialect entry points take them. */
#define PTEP(p) ((pte_t *)(p))
static inline pte_t __pte_of(uint64_t v) { return (pte_t){ v }; }

uint32_t ops_parse(const char *s, char *err, size_t errlen)
{
	uint32_t mask = 0;
	char buf[512], *save, *tok;

	if (!strcmp(s, "all"))
		return OPS_ALL;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum op i = op_by_name(tok);

		if (i == OP_COUNT) {
			size_t off = snprintf(err, errlen, "unknown writer op '%s' (valid: all", tok);
			for (int k = 0; k < OP_COUNT && off < errlen; k++)
				off += snprintf(err + off, errlen - off, ", %s", op_desc[k].name);
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

/* ---- unmap ---------------------------------------------------------------- */
static bool pick_unmap(const uint64_t *e, unsigned cont, uint64_t *rng, struct op_args *a)
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
	c->m->v->ep.ep_get_and_clear_full_ptes(&c->m->mm, c->addr, PTEP(c->e + s), n, 0);
	return 1;
}

/* ---- aging ---------------------------------------------------------------- */
static int run_young(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	if (!pm_valid(acc_peek(&c->e[s])))
		return 0;
	c->m->v->ep.ep_ptep_test_and_clear_young(&c->m->vma, c->addr, PTEP(c->e + s));
	return 1;
}

static int run_flush_young(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	if (!run_is(c->e, s, n, 1))
		return 0;
	c->m->v->ep.ep_clear_flush_young_ptes(&c->m->vma, c->addr, PTEP(c->e + s), n);
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
	return 1;
}

/* ---- write-protect ------------------------------------------------------- */
static int run_wrprotect(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	if (!run_is(c->e, s, n, 1))
		return 0;
	c->m->v->ep.ep_wrprotect_ptes(&c->m->mm, c->addr, PTEP(c->e + s), n);
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

static int run_access_flags(struct op_ctx *c, unsigned s, unsigned n, unsigned flags)
{
	uint64_t pte = acc_peek(&c->e[s]);
	int dirty = 0;

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
	c->m->v->ep.ep_ptep_set_access_flags(&c->m->vma, c->addr, PTEP(c->e + s), __pte_of(pte), dirty);
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
	},
	[OP_FOLD] = {
		.name = "fold", .weight = 4, .shape = OP_SHAPE_ENTRY,
		.pick = pick_entry, .run = run_fold,
	},
	[OP_UNFOLD] = {
		.name = "unfold", .weight = 2, .shape = OP_SHAPE_ENTRY,
		.pick = pick_entry, .run = run_unfold,
	},
	[OP_UNMAP] = {
		.name = "unmap", .weight = 3, .shape = OP_SHAPE_RANGE,
		.consumes = CONSUMES_DIRTY | CONSUMES_YOUNG,
		.pick = pick_unmap, .run = run_unmap,
	},
	[OP_YOUNG] = {
		.name = "young", .weight = 2, .shape = OP_SHAPE_ENTRY,
		.consumes = CONSUMES_YOUNG,
		.pick = pick_entry, .run = run_young,
	},
	[OP_FLUSH_YOUNG] = {
		.name = "flush_young", .weight = 2, .shape = OP_SHAPE_RANGE,
		.consumes = CONSUMES_YOUNG,
		.pick = pick_valid_run, .run = run_flush_young,
	},
	[OP_CLEAR_YOUNG_DIRTY] = {
		.name = "clear_young_dirty", .weight = 2, .shape = OP_SHAPE_RANGE,
		.flags = OPF_DIRTY, .words = clear_young_dirty_words,
		.consumes = CONSUMES_YOUNG, .consumes_if_dirty = CONSUMES_DIRTY,
		.pick = pick_clear_young_dirty, .gen_flags = gen_clear_young_dirty_flags,
		.run = run_clear_young_dirty,
	},
	[OP_WRPROTECT] = {
		.name = "wrprotect", .weight = 2, .shape = OP_SHAPE_RANGE,
		.pick = pick_valid_run, .run = run_wrprotect,
	},
	[OP_ACCESS_FLAGS] = {
		.name = "access_flags", .weight = 3, .shape = OP_SHAPE_ENTRY,
		.flags = OPF_AF_MASK, .words = access_flags_words, .required = OPF_AF_MASK,
		.pick = pick_access_flags, .gen_flags = gen_access_flags_flags,
		.run = run_access_flags,
	},
	[OP_RETIRE] = {
		.name = "retire", .weight = 1, .shape = OP_SHAPE_NONE,
		.pick = pick_nothing, .run = run_retire,
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

int op_run(struct harness_mm *m, struct writer_ctx *w, struct block_plan *plans,
	   unsigned lt, unsigned b, enum op op, const struct op_args *a, int *touched)
{
	const struct op_desc *d = &op_desc[op];
	unsigned cont = m->cont, s = a->s, n = d->shape == OP_SHAPE_ENTRY ? 1 : a->n;
	struct op_ctx c = {
		.m = m, .w = w, .plan = &plans[lt * m->bpt + b],
		.e = hmm_slot_entries(m, m->tables[lt]) + b * cont, .lt = lt, .b = b,
		.addr = hmm_addr(m, lt, b * cont) + s * (1UL << m->g->page_shift),
		.touched = (int)b,
	};
	int rc;

	*touched = (int)b;
	w->consumes = 0;
	if (op >= OP_COUNT)
		return 0;
	if (d->shape != OP_SHAPE_NONE && (s >= cont || n == 0 || n > cont - s))
		return 0;
	w->consumes = op_consumes(op, a->flags);
	w->op = op + 1;
	rc = d->run(&c, s, n, a->flags);
	/* the op's stores visible before the harness checks the op (on real
	 * hardware the PTL's release will do it) */
	acc_writes_visible();
	w->op = 0;
	*touched = c.touched;
	return rc;
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
