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

/* ---- writer postconditions (docs/contract.md, "What writers promise") ---- */
#include <stdarg.h>

#include "core/oracle/history.h"
#include "core/ops.h"

void op_check_begin(struct op_check *k, struct harness_mm *m, unsigned lt, unsigned b, bool all)
{
	const uint64_t *e = hmm_slot_entries(m, m->tables[lt]);
	unsigned cont = m->cont;

	k->m = m;
	k->lt = lt;
	k->b = b;
	k->b0 = all ? 0 : b;
	k->nb = all ? m->bpt : 1;
	k->rc = 0;
	k->has_ret = false;
	k->ret = k->want = 0;
	k->fixup = false;
	for (unsigned i = 0; i < k->nb; i++) {
		struct block_hist *h = hmm_hist(m, lt, k->b0 + i);

		/* hardware: nothing in flight now (end == begin, read in that
		 * order), and begin unchanged at the end: no update overlapped */
		k->he0[i] = atomic_load_explicit(&h->hw_end, memory_order_acquire);
		k->hb0[i] = atomic_load_explicit(&h->hw_begin, memory_order_acquire);
		k->k0[i] = atomic_load_explicit(&h->lseq, memory_order_relaxed);
	}
	for (unsigned i = 0; i < k->nb * cont; i++)
		k->E0[i] = acc_peek(&e[k->b0 * cont + i]);
}

void op_check_end(struct op_check *k)
{
	struct harness_mm *m = k->m;
	const uint64_t *e = hmm_slot_entries(m, m->tables[k->lt]);   /* moved: the new page */
	unsigned cont = m->cont;

	for (unsigned i = 0; i < k->nb * cont; i++)
		k->E1[i] = acc_peek(&e[k->b0 * cont + i]);
	/* a hardware update whose result E1 shows had announced itself
	 * (hw_begin, then a fence, then its compare-and-swap) */
	atomic_thread_fence(memory_order_acquire);
	for (unsigned i = 0; i < k->nb; i++) {
		struct block_hist *h = hmm_hist(m, k->lt, k->b0 + i);

		k->k1[i] = atomic_load_explicit(&h->lseq, memory_order_relaxed);
		k->hw_quiet[i] = k->he0[i] == k->hb0[i] &&
				 atomic_load_explicit(&h->hw_begin, memory_order_acquire) == k->hb0[i];
	}
}

static const char *op_label(const struct op_check *k, char *buf, size_t len)
{
	const struct op_desc *d = &op_desc[k->op];
	size_t off;

	if (d->shape == OP_SHAPE_RANGE)
		off = snprintf(buf, len, "%s %u+%u", d->name, k->s, k->n);
	else if (d->shape == OP_SHAPE_ENTRY)
		off = snprintf(buf, len, "%s%s %u", k->fixup ? "fault fix-up " : "", d->name, k->s);
	else
		off = snprintf(buf, len, "%s", d->name);
	/* its flags' words, as a script writes them (access_flags' request
	 * shows in the report's detail) */
	for (const struct op_word *w = d->words; w && w->word && off < len; w++)
		if (w->value && (k->flags & w->mask) == w->value && k->op != OP_ACCESS_FLAGS)
			off += snprintf(buf + off, len - off, " %s", w->word);
	return buf;
}

/* Does op return an entry (printed as one), or true/false? */
static bool returns_entry(int op)
{
	return op == OP_UNMAP || op == OP_TEARDOWN || op == OP_GET_AND_CLEAR;
}

static bool vfail(const struct op_check *k, unsigned blk, struct violation *out, enum vkind kind,
		  int j, const char *fmt, va_list ap)
{
	struct harness_mm *m = k->m;
	unsigned shift = m->g->page_shift, cont = m->cont;
	char label[96];
	size_t off;

	out->kind = kind;
	off = snprintf(out->summary, sizeof(out->summary), "%s: %s on table %u block %u: ",
		       vkind_name(kind), op_label(k, label, sizeof(label)), k->lt, k->b);
	if (off < sizeof(out->summary))
		vsnprintf(out->summary + off, sizeof(out->summary) - off, fmt, ap);
	off = snprintf(out->detail, sizeof(out->detail),
		       "  writer op %s (under the PTL)%s%s; hardware %s during the op\n"
		       "  block %u   before the op                                   after it\n",
		       label, k->has_ret ? ", returned " : "",
		       k->has_ret ? (returns_entry(k->op) ? pm_format(k->ret, shift).s
				     : k->ret ? "true/nonzero" : "false/0") : "",
		       k->hw_quiet[blk - k->b0] ? "quiet (no update overlapped it)" : "active", blk);
	for (unsigned i = 0; i < cont && off < sizeof(out->detail) - 300; i++) {
		bool in = k->op == OP_RETIRE || (blk == k->b && i >= k->s && i < k->s + k->n);

		off += snprintf(out->detail + off, sizeof(out->detail) - off, "  %3u%c%c %-52s %s\n", i,
				in ? '*' : ' ', (int)i == j ? '<' : ' ', pm_format(op_e0(k, blk, i), shift).s,
				pm_format(op_e1(k, blk, i), shift).s);
	}
	if (j >= 0 && off < sizeof(out->detail) - 300) {
		const struct block_hist *h = hmm_hist(m, k->lt, blk);
		unsigned n;

		off += snprintf(out->detail + off, sizeof(out->detail) - off,
				"  (* the op's range; < entry %d) the op's stores to entry %d, newest first:\n", j, j);
		n = history_print_entry(h, (unsigned)j, k->k0[blk - k->b0], 16, shift, out->detail,
					sizeof(out->detail), &off);
		if (!n && off < sizeof(out->detail) - 100)
			snprintf(out->detail + off, sizeof(out->detail) - off, "    none\n");
	}
	return false;
}

bool post_fail(const struct op_check *k, struct violation *out, enum vkind kind, int j,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(k, k->b, out, kind, j, fmt, ap);
	va_end(ap);
	return false;
}

bool post_fail_at(const struct op_check *k, unsigned blk, struct violation *out, enum vkind kind,
		  int j, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(k, blk, out, kind, j, fmt, ap);
	va_end(ap);
	return false;
}

bool post_last_store(const struct op_check *k, unsigned blk, unsigned j, uint64_t *v)
{
	const struct block_hist *h = hmm_hist(k->m, k->lt, blk);
	uint64_t cur = atomic_load_explicit(&h->last[j], memory_order_acquire), prev;
	unsigned entry;

	/* records complete: the op's own, made by this thread */
	if (!cur || cur - 1 < k->k0[blk - k->b0])
		return false;
	return history_read(h, cur - 1, &entry, v, &prev, NULL);
}

bool post_some_store(const struct op_check *k, unsigned blk, unsigned j, bool (*pred)(uint64_t))
{
	const struct block_hist *h = hmm_hist(k->m, k->lt, blk);
	uint64_t cur = atomic_load_explicit(&h->last[j], memory_order_acquire);

	while (cur && cur - 1 >= k->k0[blk - k->b0]) {
		unsigned entry;
		uint64_t value, prev;

		if (!history_read(h, cur - 1, &entry, &value, &prev, NULL))
			return false;
		if (pred(value))
			return true;
		cur = prev;
	}
	return false;
}

bool op_check_blocks(const struct op_check *k, struct violation *out)
{
	unsigned cont = k->m->cont, shift = k->m->g->page_shift;

	for (unsigned blk = k->b0; blk < k->b0 + k->nb; blk++) {
		unsigned first = cont, ncont = 0;

		for (unsigned j = 0; j < cont; j++)
			if (pm_cont(op_e1(k, blk, j))) {
				ncont++;
				if (first == cont)
					first = j;
			}
		if (!ncont)
			continue;
		/* entry j's content is the first CONT entry's with the pfn moved
		 * by j - first (pm_content_at, one addition per entry) */
		uint64_t base = pm_content_at(op_e1(k, blk, first), first, 0, shift);

		for (unsigned j = 0; j < cont; j++) {
			uint64_t v = op_e1(k, blk, j);

			if (pm_valid_cont(v) && pm_content(v) == base + ((uint64_t)j << shift))
				continue;
			return post_fail_at(k, blk, out, VK_MIXED_BLOCK, (int)j,
					 "block %u left with %u of %u entries CONT when the PTL is released; entry %u %s",
					 blk, ncont, cont, j,
					 !pm_valid(v) ? "is not valid" : !pm_cont(v) ? "is not CONT"
					 : "maps another folio or prot than the block's first CONT entry");
		}
	}
	return true;
}

/* Content with the CONT bit set aside (fold and unfold change it). */
static uint64_t content_nc(uint64_t v) { return pm_content(pm_mknoncont(v)); }

bool post_kept(const struct op_check *k, unsigned j, unsigned consumes, struct violation *out)
{
	return post_kept_at(k, k->b, j, consumes, out);
}

bool post_kept_at(const struct op_check *k, unsigned blk, unsigned j, unsigned consumes,
		  struct violation *out)
{
	uint64_t a = op_e0(k, blk, j), z = op_e1(k, blk, j);

	if (a == z)
		return true;             /* untouched (the common case) */
	if (!pm_valid(a)) {
		if (z != a)
			return post_fail_at(k, blk, out, VK_WRONG_MAPPING, (int)j,
					 "entry %u outside what the op may change was %s and became %s", j,
					 a ? "not valid" : "none", pm_valid(z) ? "valid" : "another non-valid value");
		return true;
	}
	if (!pm_valid(z) || content_nc(z) != content_nc(a))
		return post_fail_at(k, blk, out, VK_WRONG_MAPPING, (int)j,
				 "entry %u %s although the op must keep its mapping", j,
				 pm_valid(z) ? "maps another page or prot" : "was cleared");
	if (!(consumes & CONSUMES_DIRTY) && pm_dirty(a) && !pm_dirty(z))
		return post_fail_at(k, blk, out, VK_DIRTY_LOST, (int)j,
				 "entry %u was dirty before the op and is clean after it; this op may not clean it", j);
	if (!(consumes & CONSUMES_YOUNG) && pm_young(a) && !pm_young(z))
		return post_fail_at(k, blk, out, VK_YOUNG_LOST, (int)j,
				 "entry %u was young before the op and is old after it; this op may not age it", j);
	return true;
}

bool post_kept_outside(const struct op_check *k, unsigned lo, unsigned hi, struct violation *out)
{
	for (unsigned j = 0; j < k->m->cont; j++)
		if ((j < lo || j >= hi) && !post_kept(k, j, 0, out))
			return false;
	return true;
}

static bool is_young(uint64_t v) { return pm_valid(v) && pm_young(v); }

static bool is_dirty(uint64_t v) { return pm_valid(v) && pm_dirty(v); }

bool post_cleared(const struct op_check *k, unsigned lo, unsigned hi, unsigned bit,
		  struct violation *out)
{
	bool (*has)(uint64_t) = bit == CONSUMES_DIRTY ? is_dirty : is_young;

	for (unsigned j = lo; j < hi; j++) {
		uint64_t a = op_e0(k, k->b, j), last;
		bool stored = post_last_store(k, k->b, j, &last);

		if (!pm_valid(a))
			continue;
		/* Only software ever takes AF or the dirty state away, and under
		 * the PTL that is the op: if its last store to the entry (or,
		 * with none, the entry before the op) has the bit, the bit was
		 * set from then on. If it lacks it, the bit was clear at that
		 * instant, and whatever is there now hardware set since. */
		if (stored ? !has(last) : !has(a))
			continue;
		return post_fail(k, out, bit == CONSUMES_DIRTY ? VK_NOT_CLEANED : VK_NOT_AGED, (int)j,
				 "entry %u was %s before the op and the op never cleared it (%s): %s", j,
				 bit == CONSUMES_DIRTY ? "dirty" : "young",
				 stored ? "its last store kept the bit" : "it never stored to the entry",
				 bit == CONSUMES_DIRTY ? "MADV_FREE keeps a page it should drop"
						       : "reclaim never sees the folio age");
	}
	return true;
}

bool post_young_return(const struct op_check *k, struct violation *out)
{
	bool young_before = false, young_stored = false;
	int cleared = -1;

	for (unsigned j = 0; j < k->m->cont; j++) {
		uint64_t a = op_e0(k, k->b, j), last;

		young_before |= is_young(a);
		young_stored |= post_some_store(k, k->b, j, is_young);
		/* young when the op began (it stayed young until the op's own
		 * store: nothing else clears AF under the PTL), and cleared by
		 * the op: the op saw it young and took it away */
		if (cleared < 0 && is_young(a) && post_last_store(k, k->b, j, &last) && !is_young(last))
			cleared = (int)j;
	}
	if (cleared >= 0 && !k->ret)
		return post_fail(k, out, VK_WRONG_RETURN, cleared,
				 "returned false, but it cleared the access flag of entry %d, which was young "
				 "when it began: the caller never learns the folio was referenced", cleared);
	/* no entry young before, in any value the op wrote, and no hardware
	 * update during it: none was young at any instant */
	if (k->ret && !young_before && !young_stored && k->hw_quiet[k->b - k->b0])
		return post_fail(k, out, VK_WRONG_RETURN, -1,
				 "returned true, but no entry of the block was young at any instant of the op "
				 "(all old before it, no hardware update during it)");
	return true;
}
