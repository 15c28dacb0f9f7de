/* core/oracle.c - the read judge (see core/oracle.h, docs/contract.md). */
#define _GNU_SOURCE
#include "core/oracle.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/history.h"

#define MAX_VALUES 64

/* Values software gave entry j in [c0, l1): every record in the window, then
 * the value it had at c0 (last). *inwin counts the records in the window.
 * Returns -1 if the history was overwritten. */
static int window_values(const struct block_hist *h, unsigned j, uint64_t c0, uint64_t l1,
			 uint64_t *vals, int *inwin)
{
	uint64_t cur = atomic_load_explicit(&h->last[j], memory_order_acquire);
	int n = 0;

	while (cur) {
		unsigned entry;
		uint64_t value, prev;

		if (!history_read(h, cur - 1, &entry, &value, &prev) || entry != j)
			return -1;
		if (cur - 1 >= l1) {          /* after the window */
			cur = prev;
			continue;
		}
		if (n == MAX_VALUES)
			return -1;
		vals[n++] = value;
		if (cur - 1 < c0)             /* the value at the window's start */
			return n;
		(*inwin)++;
		cur = prev;
	}
	vals[n++] = 0;                        /* never written: none */
	return n;
}

/* Wait (bounded) until every record reserved before l1 is complete. */
static bool history_settled(const struct block_hist *h, uint64_t l1)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (atomic_load_explicit(&h->lcomp, memory_order_acquire) < l1) {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > 200000000L)
			return false;
	}
	return true;
}

static bool has_bit(uint64_t v, int bit) { return bit ? pm_dirty(v) : pm_young(v); }
static const char *bit_name(int bit) { return bit ? "dirty" : "young"; }

/* Entry value v at index j belongs to the same mapping as result R at t. */
static bool matches(uint64_t v, unsigned j, uint64_t R, unsigned t, unsigned shift)
{
	return pm_valid(v) && pm_content(v) == pm_content_at(R, t, j, shift);
}

static void describe(struct harness_mm *m, const struct read_obs *o, char *buf, size_t len,
		     uint64_t (*vals)[MAX_VALUES], const int *nvals)
{
	unsigned shift = m->g->page_shift;
	size_t off = 0;

	off += snprintf(buf + off, len - off,
			"  reader %s, table %u (page %u%s) block %u target entry %u\n"
			"  result:        %s\n"
			"  window: software records [%llu, %llu), hardware %s\n"
			"  entry  before read (P)                              after read (Q)\n",
			o->locked ? "locked (ptep_get)" : "lockless (ptep_get_lockless)",
			o->lt, o->slot, o->moved ? ", moved away during the read" : "", o->block, o->t, pm_format(o->R, shift).s,
			(unsigned long long)o->c0, (unsigned long long)o->l1,
			(o->e0 == o->b0 && o->b1 == o->b0) ? "quiet" : "active");
	for (unsigned j = 0; j < m->cont && off < len - 200; j++) {
		off += snprintf(buf + off, len - off, "  %3u%s %-50s %s\n", j,
				j == o->t ? "*" : " ", pm_format(o->P[j], shift).s,
				pm_format(o->Q[j], shift).s);
		if (vals && (nvals[j] > 1 || j == o->t))
			for (int i = nvals[j] - 1; i >= 0 && off < len - 200; i--)
				off += snprintf(buf + off, len - off, "         history: %s\n",
						pm_format(vals[j][i], shift).s);
	}
}

enum verdict oracle_judge(struct harness_mm *m, const struct read_obs *o,
			  struct violation *out, struct judge_stats *st)
{
	const struct block_hist *h = hmm_hist(m, o->lt, o->block);
	unsigned shift = m->g->page_shift, cont = m->cont, t = o->t;
	bool sw_quiet = o->l1 == o->c0;
	bool hw_quiet = o->e0 == o->b0 && o->b1 == o->b0;
	static __thread uint64_t vals[MAX_CONT_PTES][MAX_VALUES];
	int nvals[MAX_CONT_PTES];
	uint64_t R = o->R;
	bool found;

	if (!history_settled(h, o->l1))
		goto unjudged;
	memset(nvals, 0, sizeof(nvals));
	for (unsigned j = 0; j < cont; j++) {
		int inwin = 0;

		if (j != t && !hw_quiet)
			continue;
		nvals[j] = window_values(h, j, o->c0, o->l1, vals[j], &inwin);
		if (nvals[j] < 0 || nvals[j] >= MAX_VALUES - 4)
			goto unjudged;
		if (o->moved)
			vals[j][nvals[j]++] = 0;
		if (!hw_quiet)
			continue;
		/* The start value may also carry bits hardware set before the
		 * window (hardware is not logged). Untouched in the window, the
		 * entry is exactly P; otherwise keep both the logged value and
		 * the most hardware could have added. P and Q themselves were
		 * held in the window too. Every check then errs towards "no
		 * violation" where the history is not exact. */
		if (!inwin && !o->moved) {
			vals[j][nvals[j] - 1] = o->P[j];
		} else if (o->lp == o->c0) {
			/* no software store had begun when P was taken: P is
			 * the start value, hardware's bits included */
			vals[j][nvals[j] - 1] = o->P[j];
		} else {
			uint64_t s = vals[j][nvals[j] - 1];
			if (pm_valid(s))
				vals[j][nvals[j]++] = pm_mkyoung(pm_write(s) ? s & ~PTE_BIT_RDONLY : s);
			vals[j][nvals[j]++] = o->P[j];
		}
		vals[j][nvals[j]++] = o->Q[j];
	}

	/* 1. No torn mapping: the content is one the target held. */
	found = false;
	for (int i = 0; i < nvals[t] && !found; i++)
		found = pm_content(vals[t][i]) == pm_content(R);
	if (!found) {
		bool poison = pte_is_poison(R, shift);

		out->kind = poison ? VK_UAF : VK_TORN;
		snprintf(out->summary, sizeof(out->summary),
			 poison ? "use_after_free: the reader returned a poisoned entry of a freed table"
				: "torn_mapping: result maps %#llx with a prot the target never held in the window",
			 (unsigned long long)pm_pfn(R, shift));
		describe(m, o, out->detail, sizeof(out->detail), vals, nvals);
		return VERDICT_VIOLATION;
	}
	/* A non-present result is just the entry as read: its content (the
	 * whole value, hardware never touches it) was checked above. */
	if (!pm_valid(R) || (!hw_quiet && !sw_quiet)) {
		st->content_only++;
		return VERDICT_OK;
	}
	if (hw_quiet)
		st->hw_quiet++;
	else
		st->sw_quiet++;

	for (int bit = 0; bit < 2; bit++) {
		/* 2. No phantom bits: some matching entry had the bit. */
		if (has_bit(R, bit)) {
			found = false;
			for (unsigned j = 0; j < cont && !found; j++) {
				if (hw_quiet) {
					for (int i = 0; i < nvals[j] && !found; i++)
						found = matches(vals[j][i], j, R, t, shift) &&
							has_bit(vals[j][i], bit);
				} else {
					found = matches(o->Q[j], j, R, t, shift) && has_bit(o->Q[j], bit);
				}
			}
			if (!found) {
				out->kind = VK_PHANTOM;
				snprintf(out->summary, sizeof(out->summary),
					 "phantom_bit: result is %s but no entry of this mapping was %s in the window",
					 bit_name(bit), bit_name(bit));
				describe(m, o, out->detail, sizeof(out->detail), hw_quiet ? vals : NULL, nvals);
				return VERDICT_VIOLATION;
			}
		}
		/* 3. No lost bits: an entry that kept the mapping and the bit
		 * throughout the window must show in a block result. */
		if (pm_valid_cont(R) && !has_bit(R, bit)) {
			for (unsigned j = 0; j < cont; j++) {
				bool kept;

				if (hw_quiet) {
					kept = nvals[j] > 0;
					for (int i = 0; i < nvals[j] && kept; i++)
						kept = matches(vals[j][i], j, R, t, shift) &&
						       has_bit(vals[j][i], bit);
				} else {
					kept = matches(o->P[j], j, R, t, shift) && has_bit(o->P[j], bit);
				}
				if (kept) {
					out->kind = VK_LOST;
					snprintf(out->summary, sizeof(out->summary),
						 "lost_bit: entry %u stayed %s with this mapping throughout, result is not %s",
						 j, bit_name(bit), bit_name(bit));
					describe(m, o, out->detail, sizeof(out->detail), hw_quiet ? vals : NULL, nvals);
					return VERDICT_VIOLATION;
				}
			}
		}
	}
	return VERDICT_OK;

unjudged:
	st->unjudged++;
	return VERDICT_UNJUDGED;
}
