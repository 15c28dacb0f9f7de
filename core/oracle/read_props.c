/*
 * core/oracle/read_props.c - properties 1-3 of a read (docs/contract.md):
 * from the window's history, the values each entry may have held; then
 * 1 no torn mapping, 2 no phantom bits, 3 no lost bits, each its own check.
 */
#define _GNU_SOURCE
#include "core/oracle/oracle.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/oracle/history.h"
#include "core/ops.h"

#define MAX_VALUES 64

/* Where a possible value comes from (for the report): a software record's
 * index (>= 0), or one of these. */
enum {
	TAG_NEVER = -1,     /* never written: none */
	TAG_P = -2,         /* seen before the read (snapshot P) */
	TAG_Q = -3,         /* seen after the read (snapshot Q) */
	TAG_HW = -4,        /* the start value with what hardware could have added */
	TAG_MOVED = -5,     /* none: the page was vacated by a table move */
};

/* Values software gave entry j in [c0, l1): every record in the window, then
 * the value it had at c0 (last); tags[] says which record gave each.
 * *inwin counts the records in the window. Returns -1 if the history was
 * overwritten. */
static int window_values(const struct block_hist *h, unsigned j, uint64_t c0, uint64_t l1,
			 uint64_t *vals, int64_t *tags, int *inwin)
{
	uint64_t cur = atomic_load_explicit(&h->last[j], memory_order_acquire);
	int n = 0;

	while (cur) {
		unsigned entry;
		uint64_t value, prev;

		if (!history_read(h, cur - 1, &entry, &value, &prev, NULL) || entry != j)
			return -1;
		if (cur - 1 >= l1) {          /* after the window */
			cur = prev;
			continue;
		}
		if (n == MAX_VALUES)
			return -1;
		tags[n] = (int64_t)(cur - 1);
		vals[n++] = value;
		if (cur - 1 < c0)             /* the value at the window's start */
			return n;
		(*inwin)++;
		cur = prev;
	}
	tags[n] = TAG_NEVER;
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

/* What the checks of one read work on: the read, and each entry's
 * possible values in its window (nvals[j] of them; only the target's when
 * hardware was active). */
struct judging {
	struct harness_mm *m;
	const struct read_obs *o;
	bool hw_quiet;
	unsigned shift;
	uint64_t (*vals)[MAX_VALUES];
	int64_t (*tags)[MAX_VALUES];
	int *nvals;
	struct violation *out;
};

/* ---- the report ------------------------------------------------------------ */
/* What a report that outgrew its buffer ends with: a whole line saying so,
 * so that what follows it (the harness prints the script next) starts on
 * a line of its own. */
#define REPORT_CUT "\n  ... (report cut here: it outgrew its buffer, struct violation's detail)\n"
/* Room a read's report keeps for its target entry and legend: past it the
 * other entries are left out (counted), so the target's history is shown
 * whatever the block's size. */
#define REPORT_RESERVE 1536

static void put(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (*off + (size_t)n < len) {
		*off += (size_t)n;
		return;
	}
	memcpy(buf + len - sizeof(REPORT_CUT), REPORT_CUT, sizeof(REPORT_CUT));
	*off = len;                     /* nothing more fits */
}

/* Where value i of entry j came from, in words. */
static void source(const struct judging *J, unsigned j, int i, char *s, size_t len)
{
	const struct block_hist *h = hmm_hist(J->m, J->o->lt, J->o->block);
	int64_t tag = J->tags[j][i];
	unsigned entry;
	uint64_t value, prev;
	uint32_t who;

	switch (tag) {
	case TAG_NEVER: snprintf(s, len, "never written"); return;
	case TAG_P: snprintf(s, len, "before the read"); return;
	case TAG_Q: snprintf(s, len, "after the read"); return;
	case TAG_HW: snprintf(s, len, "start value, with what hardware may have set"); return;
	case TAG_MOVED: snprintf(s, len, "after the table move"); return;
	}
	if (!history_read(h, (uint64_t)tag, &entry, &value, &prev, &who)) {
		snprintf(s, len, "record %lld", (long long)tag);
		return;
	}
	snprintf(s, len, "%s %lld: writer %u%s%s", (uint64_t)tag < J->o->c0 ? "before the read, record"
		 : "record", (long long)tag, who & 0xff, (who >> 8) ? ", " : "",
		 (who >> 8) ? op_name((enum op)((who >> 8) - 1)) : "");
}

/* When value i of entry j was held, for ordering the report: the start
 * value, what hardware may have added, P, the records of the read in
 * order, none after a move, Q. */
static int64_t age(const struct judging *J, unsigned j, int i)
{
	int64_t tag = J->tags[j][i];

	switch (tag) {
	case TAG_NEVER: return -4;
	case TAG_HW: return -2;
	case TAG_P: return -1;
	case TAG_MOVED: return INT64_MAX - 1;
	case TAG_Q: return INT64_MAX;
	default: return (uint64_t)tag < J->o->c0 ? -3 : tag;
	}
}

/* The entries worth showing: the target, every entry that changed during
 * the read or held several values, and the ones the verdict is about. */
static bool notable(const struct judging *J, unsigned j, const char *const *named)
{
	const struct read_obs *o = J->o;

	if (j == o->t || named[j] || o->P[j] != o->Q[j])
		return true;
	for (int i = 0; i < J->nvals[j]; i++)
		if (J->vals[j][i] != o->P[j])
			return true;
	return false;
}

/* One entry of a read's report: its values before (P) and after (Q) the
 * read, and those it held during it, oldest first, each with the store
 * that gave it. */
static void describe_entry(const struct judging *J, unsigned j, const char *const *named,
			   char *buf, size_t len, size_t *off)
{
	const struct read_obs *o = J->o;
	int order[MAX_VALUES], n = 0;
	char src[128];

	put(buf, len, off, "  %3u%s P %s%s%s\n", j, j == o->t ? "*" : " ",
	    pm_format(o->P[j], J->shift).s, named[j] ? "   <- " : "", named[j] ? named[j] : "");
	put(buf, len, off, "       Q %s\n", o->Q[j] == o->P[j] ? "the same" : pm_format(o->Q[j], J->shift).s);
	/* the values it held, oldest first, each once (if more than P alone) */
	for (int i = 0; i < J->nvals[j]; i++) {
		bool seen = false;

		for (int k = 0; k < n && !seen; k++)
			seen = J->vals[j][order[k]] == J->vals[j][i];
		if (!seen)
			order[n++] = i;
	}
	for (int a = 1; a < n; a++)          /* by when: insertion sort on age */
		for (int b = a; b > 0 && age(J, j, order[b]) < age(J, j, order[b - 1]); b--) {
			int x = order[b];

			order[b] = order[b - 1];
			order[b - 1] = x;
		}
	for (int k = 0; k < n && (n > 1 || J->vals[j][order[0]] != o->P[j]); k++) {
		source(J, j, order[k], src, sizeof(src));
		put(buf, len, off, "         %s  (%s)\n", pm_format(J->vals[j][order[k]], J->shift).s, src);
	}
}

/*
 * The report of a read: who read what and got what, the window, why the
 * verdict (what), every notable entry with the values it held during the
 * read, oldest first and each with the store that gave it; the entries
 * that held one value throughout folded into one line; a legend.
 */
static void describe(const struct judging *J, const char *why, const char *const *named)
{
	const struct read_obs *o = J->o;
	unsigned cont = J->m->cont, folded = 0, fold_from = 0;
	unsigned nleft = 0, left_from = 0, left_to = 0;   /* entries left out */
	char *buf = J->out->detail;
	size_t len = sizeof(J->out->detail), off = 0;

	J->out->has_read = true;
	J->out->lt = o->lt;
	J->out->block = o->block;
	J->out->target = o->t;
	J->out->named[0] = J->out->named[1] = 0;
	for (unsigned j = 0; j < cont && j < 128; j++)
		if (named[j])
			J->out->named[j / 64] |= 1ull << (j % 64);
	put(buf, len, &off, "  reader:  %s of table %u, block %u, target entry %u (table page %u%s)\n",
	    o->locked ? "locked gather (ptep_get, under the PTL)" : "lockless (ptep_get_lockless)",
	    o->lt, o->block, o->t, o->slot, o->moved ? "; the table moved during the read" : "");
	put(buf, len, &off, "  result:  %s\n", pm_format(o->R, J->shift).s);
	put(buf, len, &off, "  why:     %s\n", why);
	put(buf, len, &off, "  window:  this block's software records %llu to %llu (%s); hardware %s\n",
	    (unsigned long long)o->c0, (unsigned long long)o->l1,
	    o->l1 > o->c0 ? "stored during the read" : "none during the read",
	    J->hw_quiet ? "quiet (no update during the read)" : "active (updates during the read)");
	put(buf, len, &off, "  entries (* the target; P before the read, Q after it; then the values it held during the read, oldest first):\n");
	for (unsigned j = 0; j <= cont; j++) {
		/* near the buffer's end only the target is listed (a 16K
		 * block's 128 histories outgrow it): the others are counted */
		bool room = off + REPORT_RESERVE < len;

		if (j < cont && !room && j != o->t) {
			if (!nleft++)
				left_from = j;
			left_to = j;
			continue;
		}
		if (j < cont && room && !notable(J, j, named)) {
			if (!folded++)
				fold_from = j;
			continue;
		}
		if (folded) {
			put(buf, len, &off, "  %3u%s%-4u held one value throughout (the same before and after the read)\n",
			    fold_from, folded > 1 ? "-" : " ", folded > 1 ? fold_from + folded - 1 : fold_from);
			folded = 0;
		}
		if (nleft) {
			put(buf, len, &off, "  %3u-%-4u left out (%u entries): the report's buffer, struct violation's detail (%zu bytes), is nearly full\n",
			    left_from, left_to, nleft, len);
			nleft = 0;
		}
		if (j == cont)
			break;
		describe_entry(J, j, named, buf, len, &off);
	}
	put(buf, len, &off, "  legend:  V valid, C contiguous (CONT), A access flag (young), W writable (DBM), R read-only (AP[2]),\n"
			    "           D software dirty; \"dirty\" = D, or W without R\n");
}

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
		int64_t *tags = J->tags[j];
		int inwin = 0, n;

		if (j != o->t && !J->hw_quiet)
			continue;
		n = window_values(h, j, o->c0, o->l1, vals, tags, &inwin);
		if (n < 0 || n >= MAX_VALUES - 4)
			return false;
		if (o->moved) {
			tags[n] = TAG_MOVED;
			vals[n++] = 0;
		}
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
				tags[n - 1] = TAG_P;
			} else if (o->lp == o->c0) {
				/* no software store had begun when P was taken:
				 * P is the start value, hardware's bits included */
				vals[n - 1] = o->P[j];
			} else {
				uint64_t sv = vals[n - 1];
				if (pm_valid(sv)) {
					tags[n] = TAG_HW;
					vals[n++] = pm_mkyoung(pm_write(sv) ? sv & ~PTE_BIT_RDONLY : sv);
				}
				tags[n] = TAG_P;
				vals[n++] = o->P[j];
			}
			tags[n] = TAG_Q;
			vals[n++] = o->Q[j];
		}
		J->nvals[j] = n;
	}
	return true;
}

static void report(struct judging *J, enum vkind kind, const char *why, const char *const *named)
{
	J->out->kind = kind;
	describe(J, why, named);
}

/* 1. No torn mapping: the result's content is one the target held. */
static bool no_torn_mapping(struct judging *J)
{
	const struct read_obs *o = J->o;
	const char *named[MAX_CONT_PTES] = { 0 };
	uint64_t R = o->R;

	for (int i = 0; i < J->nvals[o->t]; i++)
		if (pm_content(J->vals[o->t][i]) == pm_content(R))
			return true;
	bool poison = pte_is_poison(R, J->shift);

	snprintf(J->out->summary, sizeof(J->out->summary),
		 poison ? "use_after_free: the reader returned a poisoned entry of a freed table"
			: "torn_mapping: result maps %#llx with a prot the target never held in the window",
		 (unsigned long long)pm_pfn(R, J->shift));
	named[o->t] = "the target: its values below never include the result's mapping";
	report(J, poison ? VK_UAF : VK_TORN,
	       poison ? "the result is the poison a freed table page is filled with: the reader read a page that was no table (yet, or any more)"
		      : "the result maps a folio or prot (what it maps, without young/dirty) the target entry never held during the read",
	       named);
	return false;
}

/* 2. No phantom bits: if the result has the bit, some entry matching it
 * had the bit in the window. */
static bool no_phantom_bit(struct judging *J, int bit)
{
	const struct read_obs *o = J->o;
	const char *named[MAX_CONT_PTES] = { 0 };
	static __thread char why[256];

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
	/* where the bit could have come from: entries that had it, with
	 * another mapping than the result's at their index */
	for (unsigned j = 0; j < J->m->cont; j++) {
		bool had = has_bit(o->P[j], bit) || has_bit(o->Q[j], bit);

		for (int i = 0; i < J->nvals[j] && !had; i++)
			had = has_bit(J->vals[j][i], bit);
		if (had)
			named[j] = bit ? "dirty here, but not with the result's folio (at this index) and prot"
				       : "young here, but not with the result's folio (at this index) and prot";
	}
	snprintf(why, sizeof(why),
		 "the result is %s, but no entry was %s during the read while it mapped the result's folio, at its index, with its prot%s",
		 bit_name(bit), bit_name(bit), J->hw_quiet ? "" : " (hardware was active: judged on the values after the read)");
	report(J, VK_PHANTOM, why, named);
	return false;
}

/* 3. No lost bits: an entry that kept the mapping and the bit throughout
 * the window must show in a block result. */
static bool no_lost_bit(struct judging *J, int bit)
{
	const struct read_obs *o = J->o;
	const char *named[MAX_CONT_PTES] = { 0 };
	static __thread char why[256];

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
			named[j] = bit ? "dirty throughout the read, with the result's mapping"
				       : "young throughout the read, with the result's mapping";
			snprintf(why, sizeof(why),
				 "the result gathers the block (valid and CONT) but is not %s, while entry %u was %s throughout the read with the result's mapping",
				 bit_name(bit), j, bit_name(bit));
			report(J, VK_LOST, why, named);
			return false;
		}
	}
	return true;
}

enum verdict oracle_judge(struct harness_mm *m, const struct read_obs *o,
			  struct violation *out, struct judge_stats *st)
{
	static __thread uint64_t vals[MAX_CONT_PTES][MAX_VALUES];
	static __thread int64_t tags[MAX_CONT_PTES][MAX_VALUES];
	int nvals[MAX_CONT_PTES];
	bool sw_quiet = o->l1 == o->c0;
	struct judging J = {
		.m = m, .o = o, .hw_quiet = o->e0 == o->b0 && o->b1 == o->b0,
		.shift = m->g->page_shift, .vals = vals, .tags = tags, .nvals = nvals, .out = out,
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
