/*
 * core/oracle/read_props.c - properties 1-3 of a read (docs/contract.md):
 * from the window's history, the values each entry may have held; then
 * 1 no torn mapping, 2 no phantom bits, 3 no lost bits, each its own check.
 */
#define _GNU_SOURCE
#include "core/oracle/oracle.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/oracle/history.h"

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

/* What the checks of one read work on: the read, and each entry's
 * possible values in its window (nvals[j] of them; only the target's when
 * hardware was active). */
struct judging {
	struct harness_mm *m;
	const struct read_obs *o;
	bool hw_quiet;
	unsigned shift;
	uint64_t (*vals)[MAX_VALUES];
	int *nvals;
	struct violation *out;
};

/* Each entry's possible values in the window (docs/contract.md, "Which
 * checks apply to which read"). False if the history cannot say. */
static bool possible_values(struct judging *J)
{
	const struct read_obs *o = J->o;
	const struct block_hist *h = hmm_hist(J->m, o->lt, o->block);

	if (!history_settled(h, o->l1))
		return false;
	memset(J->nvals, 0, sizeof(int) * MAX_CONT_PTES);
	for (unsigned j = 0; j < J->m->cont; j++) {
		uint64_t *vals = J->vals[j];
		int inwin = 0, n;

		if (j != o->t && !J->hw_quiet)
			continue;
		n = window_values(h, j, o->c0, o->l1, vals, &inwin);
		if (n < 0 || n >= MAX_VALUES - 4)
			return false;
		if (o->moved)
			vals[n++] = 0;
		if (J->hw_quiet) {
			/* The start value may also carry bits hardware set before
			 * the window (hardware is not logged). Untouched in the
			 * window, the entry is exactly P; otherwise keep both the
			 * logged value and the most hardware could have added.
			 * P and Q themselves were held in the window too. Every
			 * check then errs towards "no violation" where the
			 * history is not exact. */
			if (!inwin && !o->moved) {
				vals[n - 1] = o->P[j];
			} else if (o->lp == o->c0) {
				/* no software store had begun when P was taken:
				 * P is the start value, hardware's bits included */
				vals[n - 1] = o->P[j];
			} else {
				uint64_t sv = vals[n - 1];
				if (pm_valid(sv))
					vals[n++] = pm_mkyoung(pm_write(sv) ? sv & ~PTE_BIT_RDONLY : sv);
				vals[n++] = o->P[j];
			}
			vals[n++] = o->Q[j];
		}
		J->nvals[j] = n;
	}
	return true;
}

static void report(struct judging *J, enum vkind kind, bool with_history)
{
	J->out->kind = kind;
	describe(J->m, J->o, J->out->detail, sizeof(J->out->detail),
		 with_history ? J->vals : NULL, J->nvals);
}

/* 1. No torn mapping: the result's content is one the target held. */
static bool no_torn_mapping(struct judging *J)
{
	const struct read_obs *o = J->o;
	uint64_t R = o->R;

	for (int i = 0; i < J->nvals[o->t]; i++)
		if (pm_content(J->vals[o->t][i]) == pm_content(R))
			return true;
	bool poison = pte_is_poison(R, J->shift);

	snprintf(J->out->summary, sizeof(J->out->summary),
		 poison ? "use_after_free: the reader returned a poisoned entry of a freed table"
			: "torn_mapping: result maps %#llx with a prot the target never held in the window",
		 (unsigned long long)pm_pfn(R, J->shift));
	report(J, poison ? VK_UAF : VK_TORN, true);
	return false;
}

/* 2. No phantom bits: if the result has the bit, some entry matching it
 * had the bit in the window. */
static bool no_phantom_bit(struct judging *J, int bit)
{
	const struct read_obs *o = J->o;

	if (!has_bit(o->R, bit))
		return true;
	for (unsigned j = 0; j < J->m->cont; j++) {
		if (!J->hw_quiet) {
			if (matches(o->Q[j], j, o->R, o->t, J->shift) && has_bit(o->Q[j], bit))
				return true;
			continue;
		}
		for (int i = 0; i < J->nvals[j]; i++)
			if (matches(J->vals[j][i], j, o->R, o->t, J->shift) && has_bit(J->vals[j][i], bit))
				return true;
	}
	snprintf(J->out->summary, sizeof(J->out->summary),
		 "phantom_bit: result is %s but no entry of this mapping was %s in the window",
		 bit_name(bit), bit_name(bit));
	report(J, VK_PHANTOM, J->hw_quiet);
	return false;
}

/* 3. No lost bits: an entry that kept the mapping and the bit throughout
 * the window must show in a block result. */
static bool no_lost_bit(struct judging *J, int bit)
{
	const struct read_obs *o = J->o;

	if (!pm_valid_cont(o->R) || has_bit(o->R, bit))
		return true;
	for (unsigned j = 0; j < J->m->cont; j++) {
		bool kept;

		if (J->hw_quiet) {
			kept = J->nvals[j] > 0;
			for (int i = 0; i < J->nvals[j] && kept; i++)
				kept = matches(J->vals[j][i], j, o->R, o->t, J->shift) &&
				       has_bit(J->vals[j][i], bit);
		} else {
			kept = matches(o->P[j], j, o->R, o->t, J->shift) && has_bit(o->P[j], bit);
		}
		if (kept) {
			snprintf(J->out->summary, sizeof(J->out->summary),
				 "lost_bit: entry %u stayed %s with this mapping throughout, result is not %s",
				 j, bit_name(bit), bit_name(bit));
			report(J, VK_LOST, J->hw_quiet);
			return false;
		}
	}
	return true;
}

enum verdict oracle_judge(struct harness_mm *m, const struct read_obs *o,
			  struct violation *out, struct judge_stats *st)
{
	static __thread uint64_t vals[MAX_CONT_PTES][MAX_VALUES];
	int nvals[MAX_CONT_PTES];
	bool sw_quiet = o->l1 == o->c0;
	struct judging J = {
		.m = m, .o = o, .hw_quiet = o->e0 == o->b0 && o->b1 == o->b0,
		.shift = m->g->page_shift, .vals = vals, .nvals = nvals, .out = out,
	};

	if (!possible_values(&J)) {
		st->unjudged++;
		return VERDICT_UNJUDGED;
	}
	if (!no_torn_mapping(&J))
		return VERDICT_VIOLATION;
	/* A non-present result is just the entry as read: its content (the
	 * whole value, hardware never touches it) was checked above. Bits are
	 * judged only where one side was quiet. */
	if (!pm_valid(o->R) || (!J.hw_quiet && !sw_quiet)) {
		st->content_only++;
		return VERDICT_OK;
	}
	if (J.hw_quiet)
		st->hw_quiet++;
	else
		st->sw_quiet++;
	for (int bit = 0; bit < 2; bit++)
		if (!no_phantom_bit(&J, bit) || !no_lost_bit(&J, bit))
			return VERDICT_VIOLATION;
	return VERDICT_OK;
}
