/*
 * stage2/runtime/bbm.c - break-before-make at stage 2.
 *
 * Judged on every software store to an entry of the live tree (an entry of
 * a table page linked to the root: stage2/runtime/vm.c's place), with the
 * value it replaced (stage2/runtime/access.c), by translation: a leaf's
 * output address and level, a table's child. Permission, access-flag and
 * attribute changes keep the translation and need no break.
 *   valid -> valid, another translation         bbm_violation: no break
 *   valid -> invalid (0 or LOCKED)              the old translation is
 *                                               pending: TLBs may hold it
 *   pending -> valid, another translation       bbm_violation, unless an
 *                                               invalidation covering the old
 *                                               entry completed in between
 * An invalidation covers a pending leaf of level L if it removes leaf
 * entries of level L over its range; a pending table if it removes the
 * walk-cache entries of its level and every leaf level below it over its
 * span (core/tlb_s2.h's scopes: a level hint naming the table's level
 * does not). The vCPUs' TLB hits ask the same record whether what they
 * hold is still allowed (s2_bbm_allows).
 */
#include "stage2/runtime/vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/access.h"
#include "core/tlb_s2.h"

struct pending {
	uint64_t old;        /* the valid descriptor before the break */
	uint64_t issued;     /* broadcast invalidations issued before the break */
	uint64_t ipa;
	int8_t level;
	bool used;
};

static struct pending *pend;     /* per arena entry */
static int *plist;               /* the entries pending */
static unsigned npend, cap;
static atomic_flag plock;

static void lock(void)
{
	while (atomic_flag_test_and_set_explicit(&plock, memory_order_acquire))
		;
}
static void unlock(void) { atomic_flag_clear_explicit(&plock, memory_order_release); }

static void on_complete(const struct tlb_s2_scope *s);

void s2_bbm_init(void)
{
	size_t n = s2_arena.npages * (s2_arena.page_size / sizeof(uint64_t));

	free(pend);
	free(plist);
	pend = calloc(n, sizeof(*pend));
	cap = 4096;
	plist = calloc(cap, sizeof(int));
	npend = 0;
	tlb_s2_geometry(s2_tree.page_shift);
	tlb_s2_on_complete = on_complete;
}

static bool is_leaf(uint64_t d, int level) { return level == 3 || !(d & S2_DESC_TYPE); }

bool s2_same_translation(uint64_t a, uint64_t b, int level)
{
	if (is_leaf(a, level) != is_leaf(b, level))
		return false;
	return s2_desc_pa(a) == s2_desc_pa(b);
}

static void unpend(size_t e)
{
	if (!pend[e].used)
		return;
	pend[e].used = false;
	for (unsigned i = 0; i < npend; i++)
		if (plist[i] == (int)e) {
			plist[i] = plist[--npend];
			break;
		}
}

void s2_bbm_store(struct s2_thread *t, uint64_t *p, uint64_t x, uint64_t v)
{
	int page = s2_page_of(p), idx = (int)(p - (uint64_t *)s2_page_addr(page)), level;
	size_t e = (size_t)(p - (uint64_t *)s2_arena.base);
	uint64_t ipa0, ipa;
	char detail[768];

	if (!s2_page_place(page, &level, &ipa0)) {
		lock();
		unpend(e);      /* not in the live tree: no TLB can fill from it */
		unlock();
		return;
	}
	ipa = ipa0 + (uint64_t)idx * s2_level_size(level);
	lock();

	if (s2_desc_valid(x)) {
		if (s2_desc_valid(v) && !s2_same_translation(x, v, level)) {
			unlock();
			snprintf(detail, sizeof(detail),
				 "  the level-%d entry for IPA %#llx went from %#llx to %#llx, another\n"
				 "  %s, with no invalid entry and TLB invalidation in between\n",
				 level, (unsigned long long)ipa, (unsigned long long)x, (unsigned long long)v,
				 is_leaf(x, level) == is_leaf(v, level) ? "output address" : "shape (table/block)");
			s2_report(S2V_BBM, detail, "bbm_violation: %s changed a valid entry's translation without a break (in %s)",
				  t->role, t->op ? t->op : "no op");
			return;
		}
		if (!s2_desc_valid(v)) {
			if (!pend[e].used) {
				if (npend == cap) {
					int *n = realloc(plist, 2 * cap * sizeof(int));

					if (n) {
						plist = n;
						cap *= 2;
					}
				}
				if (npend < cap)
					plist[npend++] = (int)e;
			}
			pend[e] = (struct pending){ .old = x, .ipa = ipa, .level = (int8_t)level, .used = true,
						    .issued = tlb_s2_issued() };
		}
	} else if (s2_desc_valid(v)) {
		if (pend[e].used && !s2_same_translation(pend[e].old, v, level)) {
			struct pending was = pend[e];

			unpend(e);
			unlock();
			snprintf(detail, sizeof(detail),
				 "  the level-%d entry for IPA %#llx was %#llx, then invalid; it was made\n"
				 "  %#llx before any TLB invalidation covering the old %s completed\n"
				 "  (a TLB may still translate through the old one)\n",
				 level, (unsigned long long)ipa, (unsigned long long)was.old, (unsigned long long)v,
				 is_leaf(was.old, level) ? "leaf" : "table (its level's walk cache and every level below)");
			s2_report(S2V_BBM, detail,
				  "bbm_violation: %s made an entry valid again without the TLB invalidation of the old one (in %s)",
				  t->role, t->op ? t->op : "no op");
			return;
		}
		unpend(e);
	}
	unlock();
}

static bool covered(const struct pending *q, const struct tlb_s2_scope *s)
{
	uint64_t size = s2_level_size(q->level);
	unsigned below = 0;

	if (s->seq <= q->issued)
		return false;   /* issued before the break: its removals came first */
	if (!(q->ipa < s->end && s->start < q->ipa + size))
		return false;
	if (is_leaf(q->old, q->level))
		return s->leaf_levels >> (q->level + 1) & 1;
	for (int l = q->level + 1; l <= 3; l++)
		below |= 1u << (l + 1);
	return (s->walk_levels >> (q->level + 1) & 1) && (s->leaf_levels & below) == below;
}

static void on_complete(const struct tlb_s2_scope *s)
{
	if (s->vmid != s2_vm.mmu.vmid)
		return;
	lock();
	for (unsigned i = 0; i < npend;) {
		struct pending *q = &pend[plist[i]];

		if (covered(q, s)) {
			q->used = false;
			plist[i] = plist[--npend];
		} else {
			i++;
		}
	}
	unlock();
}

bool s2_bbm_allows(const uint64_t *p, uint64_t cached, int level)
{
	size_t e = (size_t)(p - (const uint64_t *)s2_arena.base);
	uint64_t now;
	bool ok;

	/* the entry's value and its pending break, as one (a store and its
	 * judgement are one step for the entry) */
	s2_entry_lock(p);
	now = acc_peek(p);
	ok = s2_desc_valid(now) && s2_same_translation(now, cached, level);
	if (!ok) {
		lock();
		ok = pend[e].used && s2_same_translation(pend[e].old, cached, level);
		unlock();
	}
	s2_entry_unlock(p);
	return ok;
}
