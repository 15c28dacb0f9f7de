/* core/tlb.c - translation caches of the hardware agents (see core/tlb.h). */
#include "core/tlb.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/access.h"
#include "core/bbm.h"
#include "core/cpu.h"
#include "core/finding.h"
#include "core/hw.h"
#include "core/mm.h"
#include "core/rcu_tsan.h"
#include "core/rng.h"

static void lock(struct tlb *t)
{
	while (atomic_flag_test_and_set_explicit(&t->lock, memory_order_acquire))
		;
}

static void unlock(struct tlb *t)
{
	atomic_flag_clear_explicit(&t->lock, memory_order_release);
}

int tlb_attach(struct harness_mm *m, struct tlb *t, unsigned cap, enum tlb_evict evict,
	       uint64_t seed)
{
	unsigned n = cap < TLB_MAX_ENTRIES ? cap : TLB_MAX_ENTRIES;

	/* the entries in use only (the engine attaches a TLB per thread per
	 * run; nothing reads past cap), then everything after them */
	memset(t->e, 0, n * sizeof(t->e[0]));
	memset(&t->cap, 0, sizeof(*t) - offsetof(struct tlb, cap));
	atomic_flag_clear(&t->lock);
	t->cap = n;
	t->evict = evict;
	t->rng = seed;
	for (unsigned i = 0; i < TLB_MAX_AGENTS; i++) {
		struct tlb *none = NULL;

		if (atomic_compare_exchange_strong(&m->tlbs[i], &none, t))
			return 0;
	}
	return -1;
}

void tlb_detach(struct harness_mm *m, struct tlb *t)
{
	for (unsigned i = 0; i < TLB_MAX_AGENTS; i++) {
		struct tlb *me = t;

		atomic_compare_exchange_strong(&m->tlbs[i], &me, NULL);
	}
}

static bool covers(const struct tlb_entry *e, unsigned lt, unsigned idx)
{
	return e->used && e->lt == lt && idx >= e->first && idx < e->first + e->npages;
}

static bool overlaps(const struct tlb_entry *e, unsigned lt, unsigned first, unsigned n)
{
	return e->used && e->lt == lt && first < e->first + e->npages && e->first < first + n;
}

/* Does translation e, at entry idx, grant what the table (tab: the live
 * table's entries) no longer does? To any access: the entry is gone or
 * maps another page. To a write (*write_only): the translation is
 * dirty-writable and the entry lost write permission, or lost the dirty
 * state the translation carries - for a CONT translation the block's
 * (hardware updates only the descriptor it walked; the block is dirty if
 * any entry is, as the kernel's gather has it). */
static const char *stale_because(const struct tlb_entry *e, const uint64_t *tab, unsigned idx,
				 unsigned shift, bool *write_only)
{
	uint64_t now = acc_peek((uint64_t *)tab + idx);
	uint64_t expect_pfn = pm_pfn(e->pte, shift) + idx - e->walked;
	bool dirty = false;

	*write_only = false;
	if (!pm_valid(now))
		return "the entry is no longer valid (its page may be freed and reused)";
	if (pm_pfn(now, shift) != expect_pfn)
		return "the entry maps another page now";
	*write_only = true;
	if (!pm_hw_dirty(e->pte))
		return NULL;
	if (!pm_write(now))
		return "the entry is no longer writable";
	for (unsigned x = e->first; x < e->first + e->npages && !dirty; x++)
		dirty = pm_hw_dirty(acc_peek((uint64_t *)tab + x));
	if (!dirty)
		return e->npages > 1 ? "no entry of the block is dirty-writable any more (a write would not mark it dirty)"
				     : "the entry is no longer dirty-writable (a write would not mark it dirty)";
	return NULL;
}

static void report_stale(struct harness_mm *m, const struct tlb_entry *e, unsigned lt,
			 unsigned idx, bool write, uint64_t now, const char *why,
			 struct violation *out)
{
	unsigned shift = m->g->page_shift;

	memset(out, 0, sizeof(*out));
	out->kind = VK_STALE_TLB;
	snprintf(out->summary, sizeof(out->summary),
		 "stale_tlb_access: a hardware %s of table %u entry %u (block %u entry %u) went through a cached translation: %s",
		 write ? "write" : "read", lt, idx, idx / m->cont, idx % m->cont, why);
	snprintf(out->detail, sizeof(out->detail),
		 "  cached translation (walked at entry %u, covering entries %u-%u): %s\n"
		 "  the table entry now:                                   %s\n"
		 "  a writer op that took this away had returned, with the TLB invalidation\n"
		 "  it (or its caller) owed; the TLB still held the old translation.\n",
		 e->walked, e->first, e->first + e->npages - 1, pm_format(e->pte, shift).s,
		 pm_format(now, shift).s);
	finding_set(out, "hw", e->by_fn, NULL);
}

static bool bit(const uint64_t *mask, unsigned i) { return mask[i / 64] >> (i % 64) & 1; }
static void set_bit(uint64_t *mask, unsigned i) { mask[i / 64] |= 1ULL << (i % 64); }

/* ---- the contiguous bit (cont_mismatch) -------------------------------------
 * The architecture's rule: while any CPU may walk a contiguous block, its
 * entries agree on the contiguous bit, the output address (consecutive
 * pages) and the attributes; otherwise a TLB may return the translation of
 * any of them for any address of the block, or raise a TLB conflict
 * abort. Invalid entries in a block whose valid entries agree are a break
 * in progress (a whole-block clear, a convert, a teardown): a walker faults
 * on them or gets the old translation, which the flush that follows
 * removes (the stale and break-before-make checks judge that flush).
 * Permissions, the access flag and the dirty state may differ (hardware
 * updates one entry; a whole-block wrprotect is entry by entry): not
 * judged here (a difference left when the PTL is released is
 * mixed_block). docs/tlb.md, "The contiguous bit". */
#define CONT_ATTRS (PTE_BIT_ATTRINDX | PTE_BIT_SHARED | PTE_BIT_NG)

/* Entry w at index x of the block against the walked CONT translation v at
 * j: 0 agrees (or invalid), 1 another size only (CONT clear, same page and
 * attributes), 2 another output address or memory attributes. */
static int cont_disagree(uint64_t v, unsigned j, uint64_t w, unsigned x, unsigned shift)
{
	if (!pm_valid(w))
		return 0;
	if (pm_pfn(w, shift) != pm_pfn(v, shift) - j + x || (w & CONT_ATTRS) != (v & CONT_ATTRS))
		return 2;
	return pm_cont(w) ? 0 : 1;
}

static void report_cont(struct harness_mm *m, const uint64_t *blk, unsigned lt, unsigned b,
			unsigned j, unsigned x, const char *what, struct violation *out)
{
	unsigned shift = m->g->page_shift;
	size_t off;

	memset(out, 0, sizeof(*out));
	out->kind = VK_CONT_MISMATCH;
	snprintf(out->summary, sizeof(out->summary),
		 "cont_mismatch: a hardware walk of table %u block %u entry %u (CONT) found entry %u "
		 "disagreeing on %s: %s", lt, b, j, x,
		 cont_disagree(blk[j], j, blk[x], x, shift) == 1 ? "the CONT bit" : "the output address or attributes",
		 what);
	off = snprintf(out->detail, sizeof(out->detail),
		       "  while a CPU may walk a contiguous block its entries must agree on the CONT bit,\n"
		       "  the output address and the attributes%s; otherwise the TLB may return\n"
		       "  any of their translations, or raise a TLB conflict abort. The block:\n",
		       kc_bbml2 == CPU_BBML2_NOABORT ? "" : " (BBML2_NOABORT, --bbml2=noabort, would allow the CONT bit alone)");
	for (unsigned i = 0; i < m->cont && off < sizeof(out->detail) - 200; i++)
		off += snprintf(out->detail + off, sizeof(out->detail) - off, "  %3u%c %s\n", i,
				i == j ? '*' : i == x ? '<' : ' ', pm_format(blk[i], shift).s);
	if (off < sizeof(out->detail) - 100)
		snprintf(out->detail + off, sizeof(out->detail) - off,
			 "  (* walked; < disagrees) a writer left the block so, or is in the middle of\n"
			 "  rewriting it without breaking it first\n");
}

/* After a walk of entry j of block b (*v: valid and CONT) through t. If
 * the block's valid entries disagree, the model takes what the
 * architecture allows, by t's RNG: the abort (false, out filled), or the
 * block translation of the walked entry or of a disagreeing CONT sibling
 * (*v: the one taken). One that sends the access to another page than
 * entry j maps is reported at once; the entries it would send elsewhere
 * are marked in wrong, for the accesses that use it later. */
static bool cont_rule(struct harness_mm *m, struct tlb *t, unsigned lt, unsigned b, unsigned j,
		      uint64_t *v, uint64_t *wrong, struct violation *out)
{
	unsigned cont = m->cont, shift = m->g->page_shift, ncand = 0, worst = 0, x0 = j, pick;
	unsigned cand[MAX_CONT_PTES];
	uint64_t blk[MAX_CONT_PTES], tv, c0;
	struct block_hist *h = hmm_hist(m, lt, b);
	struct slot_hdr *slot;
	bool abort_ok;

	/* the block at one instant: no software store began or completed
	 * while it was read (hardware only sets AF and dirty, which do not
	 * count here), and the walked entry still as walked; otherwise a
	 * writer is at work and no verdict is drawn (a finding may be
	 * missed, none made up) */
	c0 = atomic_load_explicit(&h->lcomp, memory_order_acquire);
	check_rcu_read_lock();
	slot = check_rcu_dereference(m->tables[lt]);
	TSAN_RCU_CONSUME(slot);
	for (unsigned x = 0; x < cont; x++)
		blk[x] = acc_peek(hmm_slot_entries(m, slot) + b * cont + x);
	TSAN_RCU_READ_END();
	check_rcu_read_unlock();
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&h->lseq, memory_order_acquire) != c0 ||
	    pm_content(blk[j]) != pm_content(*v))
		return true;
	for (unsigned x = 0; x < cont; x++) {
		int d = cont_disagree(*v, j, blk[x], x, shift);

		if (d > (int)worst) {
			worst = (unsigned)d;
			x0 = x;
		}
		/* a CONT sibling of another block translation offers its own */
		if (d == 2 && pm_cont(blk[x]))
			cand[ncand++] = x;
	}
	/* a CPU with BBML2 may still abort on a CONT-bit mismatch unless it has
	 * BBML2_NOABORT */
	abort_ok = worst == 2 || (worst == 1 && kc_bbml2 != CPU_BBML2_NOABORT);
	if (!abort_ok)
		return true;           /* agree, or another size with BBML2_NOABORT */
	lock(t);
	pick = rng_below(&t->rng, ncand + 2);
	unlock(t);
	if (pick == ncand + 1) {
		report_cont(m, blk, lt, b, j, x0, "the model took the TLB conflict abort it allows", out);
		return false;
	}
	if (pick < ncand) {        /* a sibling's block translation */
		unsigned k = cand[pick];

		tv = pm_pfn_pte(pm_pfn(blk[k], shift) - k + j, pm_pgprot(blk[k], shift), shift);
		if (pm_pfn(tv, shift) != pm_pfn(*v, shift)) {
			char what[160];

			snprintf(what, sizeof(what), "the model took entry %u's translation for the block, and "
				 "the access of entry %u goes to another page than entry %u maps", k, j, j);
			report_cont(m, blk, lt, b, j, k, what, out);
			return false;
		}
		*v = tv;
	}
	for (unsigned x = 0; x < cont; x++)
		if (pm_valid(blk[x]) && pm_pfn(blk[x], shift) != pm_pfn(*v, shift) - j + x)
			set_bit(wrong, x);
	return true;
}

/* An access through a translation the contiguous rule gave to an entry
 * whose own descriptor mapped another page (cont_rule marked it). */
static void cont_wrong_access(struct harness_mm *m, const struct tlb_entry *e, unsigned lt,
			      unsigned idx, bool write, struct violation *out)
{
	unsigned shift = m->g->page_shift;

	memset(out, 0, sizeof(*out));
	out->kind = VK_CONT_MISMATCH;
	snprintf(out->summary, sizeof(out->summary),
		 "cont_mismatch: a hardware %s of table %u entry %u (block %u entry %u) went through the "
		 "translation of a block whose entries disagreed: it reaches another page than the entry mapped",
		 write ? "write" : "read", lt, idx, idx / m->cont, idx % m->cont);
	snprintf(out->detail, sizeof(out->detail),
		 "  cached translation (walked at entry %u, covering entries %u-%u): %s\n"
		 "  when it was walked, entry %u mapped another page: the block's entries disagreed on\n"
		 "  the output address, and the TLB may return any of their translations for the block.\n",
		 e->walked, e->first, e->first + e->npages - 1, pm_format(e->pte, shift).s, idx);
}

/* Walk: the table's descriptor after the HAFDBS update (core/hw.c). */
static uint64_t walk(struct harness_mm *m, unsigned lt, unsigned b, unsigned j, bool write)
{
	struct slot_hdr *slot;
	uint64_t v;

	rcu_read_lock();
	slot = rcu_dereference(m->tables[lt]);
	TSAN_RCU_CONSUME(slot);
	v = hw_walk(hmm_hist(m, lt, b), hmm_slot_entries(m, slot) + b * m->cont + j, j, write);
	TSAN_RCU_READ_END();
	rcu_read_unlock();
	return v;
}

/* Two translations of table lt entry idx of different sizes (a CONT block
 * and a page of it): what a TLB conflict abort is raised on. when: how the
 * second met the first. */
static void report_conflict(struct harness_mm *m, unsigned lt, unsigned idx, const char *when,
			    const struct tlb_entry *a, uint64_t bpte, unsigned bfirst, unsigned bn,
			    struct violation *out)
{
	unsigned shift = m->g->page_shift;

	memset(out, 0, sizeof(*out));
	out->kind = VK_TLB_CONFLICT;
	snprintf(out->summary, sizeof(out->summary),
		 "tlb_conflict: %s two translations of table %u entry %u (entries %u-%u and %u-%u)",
		 when, lt, idx, a->first, a->first + a->npages - 1, bfirst, bfirst + bn - 1);
	snprintf(out->detail, sizeof(out->detail),
		 "  cached:  %s (entries %u-%u)\n"
		 "  and:     %s (entries %u-%u)\n"
		 "  a CONT block and a page of it (or two blocks) at once: a TLB conflict\n"
		 "  abort on arm64 unless the CPU has BBML2_NOABORT (--bbml2=%s here). The\n"
		 "  entries changed size without a completed TLB invalidation in between.\n",
		 pm_format(a->pte, shift).s, a->first, a->first + a->npages - 1,
		 pm_format(bpte, shift).s, bfirst, bfirst + bn - 1, cpu_bbml2_names[kc_bbml2]);
	/* which bug (core/finding.h): a hardware access, through what the
	 * cached translation's writer left */
	finding_set(out, "hw", a->by_fn, NULL);
}

/* A CPU with BBML2 that may abort (CPU_BBML2_ABORT) keeps translations of
 * different sizes side by side (fill): a lookup of idx that matches two of
 * them is the conflict abort. The older one is then dropped. */
static bool lookup_conflict(struct harness_mm *m, struct tlb *t, unsigned lt, unsigned idx,
			    struct violation *out)
{
	struct tlb_entry *a = NULL;

	for (unsigned i = 0; i < t->cap; i++) {
		struct tlb_entry *b = &t->e[i];

		if (!covers(b, lt, idx))
			continue;
		if (!a) {
			a = b;
			continue;
		}
		if (b->last_use < a->last_use) {
			struct tlb_entry *newer = a;

			a = b;
			b = newer;
		}
		report_conflict(m, lt, idx, "a lookup matched", a, b->pte, b->first, b->npages, out);
		a->used = false;
		return true;
	}
	return false;
}

static void fill(struct harness_mm *m, struct tlb *t, unsigned lt, unsigned idx, uint64_t pte,
		 uint64_t gen, uint64_t seq, const uint64_t *wrong, struct violation *out, bool *bad)
{
	unsigned cont = m->cont, first = idx, n = 1, slot = t->cap;
	struct tlb_entry *e;

	if (pm_valid_cont(pte)) {            /* one translation for the block */
		first = idx - idx % cont;
		n = cont;
	}
	lock(t);
	if (atomic_load(&t->gen) != gen) {   /* an invalidation raced the walk */
		t->st.discarded++;
		unlock(t);
		return;
	}
	for (unsigned i = 0; i < t->cap; i++) {
		e = &t->e[i];
		if (!overlaps(e, lt, first, n))
			continue;
		if (e->first != first || e->npages != n) {
			/* a second translation of the same addresses, of another
			 * size: without BBML2 the conflict is here; a BBML2 CPU
			 * that may abort keeps both (lookup_conflict), a
			 * BBML2_NOABORT one keeps the new one */
			if (kc_bbml2 == CPU_BBML2_ABORT)
				continue;
			if (kc_bbml2 == CPU_BBML2_NONE && !*bad) {
				report_conflict(m, lt, idx, "a TLB holds", e, pte, first, n, out);
				*bad = true;
			}
		}
		e->used = false;             /* the walk replaces it */
	}
	for (unsigned i = 0; i < t->cap && slot == t->cap; i++)
		if (!t->e[i].used)
			slot = i;
	if (slot == t->cap) {                /* full: evict */
		if (t->evict == TLB_EVICT_RANDOM) {
			slot = rng_below(&t->rng, t->cap);
		} else {
			slot = 0;
			for (unsigned i = 1; i < t->cap; i++)
				if (t->e[i].last_use < t->e[slot].last_use)
					slot = i;
		}
		t->st.evictions++;
	}
	t->e[slot] = (struct tlb_entry){ .used = true, .lt = lt, .first = first, .npages = n,
					 .walked = idx, .pte = pte, .last_use = ++t->clock,
					 .fill_seq = seq };
	memcpy(t->e[slot].wrong, wrong, sizeof(t->e[slot].wrong));
	t->st.fills++;
	unlock(t);
}

enum tlb_outcome tlb_access(struct harness_mm *m, struct tlb *t, unsigned lt, unsigned b,
			    unsigned j, bool write, struct violation *out)
{
	unsigned idx = b * m->cont + j;
	uint64_t gen, v, seq;
	bool bad = false;

	if (t && t->cap) {
		lock(t);
		if (kc_bbml2 == CPU_BBML2_ABORT && lookup_conflict(m, t, lt, idx, out)) {
			unlock(t);
			return TLB_BAD;
		}
		for (unsigned i = 0; i < t->cap; i++) {
			struct tlb_entry *e = &t->e[i];

			if (!covers(e, lt, idx))
				continue;
			/* a write through a clean (or read-only) translation needs
			 * the table: the walk sets dirty, or faults */
			if (write && !pm_hw_dirty(e->pte)) {
				e->used = false;
				t->st.upgrades++;
				break;
			}
			e->last_use = ++t->clock;
			t->st.hits++;
			struct tlb_entry seen = *e;
			unlock(t);
			unsigned k = idx - seen.first;

			if (bit(seen.wrong, k)) {
				cont_wrong_access(m, &seen, lt, idx, write, out);
				return TLB_BAD;
			}
			if (bit(seen.stale_r, k) || bit(seen.stale_w, k)) {
				/* reported only while the table still grants less
				 * than the translation does (not if a later op
				 * granted it again) */
				struct slot_hdr *slot;
				const uint64_t *tab;
				uint64_t now;
				bool wo;
				const char *why;

				/* the live table: a writer may retire it meanwhile */
				check_rcu_read_lock();
				slot = check_rcu_dereference(m->tables[lt]);
				TSAN_RCU_CONSUME(slot);
				tab = hmm_slot_entries(m, slot);
				now = acc_peek((uint64_t *)tab + idx);
				why = stale_because(&seen, tab, idx, m->g->page_shift, &wo);
				TSAN_RCU_READ_END();
				check_rcu_read_unlock();
				if (why && (write || !wo)) {
					report_stale(m, &seen, lt, idx, write, now, why, out);
					return TLB_BAD;
				}
			}
			return TLB_HIT;
		}
		if (!bad)
			t->st.misses++;
		gen = atomic_load(&t->gen);
		unlock(t);
	} else {
		gen = 0;
	}
	/* before the walk: a _nosync invalidation issued after this (seq or
	 * higher) does not cover the translation; one issued during the walk
	 * does (its DSB waits for walks in flight) */
	seq = atomic_load(&m->tlb_seq);
	v = walk(m, lt, b, j, write);
	if (!pm_valid(v) || (write && !pm_write(v)))
		return TLB_FAULT;
	if (t && t->cap) {
		uint64_t wrong[MAX_CONT_PTES / 64] = { 0 };

		if (pm_valid_cont(v) && !cont_rule(m, t, lt, b, j, &v, wrong, out))
			return TLB_BAD;
		fill(m, t, lt, idx, v, gen, seq, wrong, out, &bad);
	}
	return bad ? TLB_BAD : TLB_WALKED;
}

/* Entries [*lo, *hi) of m (lt * ept + index) that [start, end) covers;
 * false if none. */
static bool range_of(struct harness_mm *m, unsigned long start, unsigned long end,
		     unsigned long *lop, unsigned long *hip)
{
	unsigned long base = hmm_addr(m, 0, 0), shift = m->g->page_shift;
	unsigned long lo = start < base ? 0 : (start - base) >> shift;
	unsigned long hi = end <= base ? 0 : (end - base + (1UL << shift) - 1) >> shift;
	unsigned long total = (unsigned long)m->ntables * m->ept;

	if (hi > total)
		hi = total;
	*lop = lo;
	*hip = hi;
	return lo < hi;
}

/* Remove from t the translations overlapping [lo, hi) cached before
 * invalidation seq (all of them: UINT64_MAX). */
static void drop_one(struct harness_mm *m, struct tlb *t, unsigned long lo, unsigned long hi,
		     uint64_t seq)
{
		lock(t);
		atomic_fetch_add(&t->gen, 1);
		for (unsigned k = 0; k < t->cap; k++) {
			struct tlb_entry *e = &t->e[k];
			unsigned long a = (unsigned long)e->lt * m->ept + e->first;

			if (e->used && a < hi && lo < a + e->npages && e->fill_seq < seq) {
				e->used = false;
				t->st.invalidated++;
			}
		}
		unlock(t);
}

/* The same from every attached TLB. */
static void drop(struct harness_mm *m, unsigned long lo, unsigned long hi, uint64_t seq)
{
	for (unsigned i = 0; i < TLB_MAX_AGENTS; i++) {
		struct tlb *t = atomic_load(&m->tlbs[i]);

		if (t)
			drop_one(m, t, lo, hi, seq);
	}
}

void tlb_invalidate_local(struct harness_mm *m, unsigned long start, unsigned long end)
{
	struct tlb *own = acc_self.tlb_local;
	unsigned long lo, hi;

	if (!own || !range_of(m, start, end, &lo, &hi))
		return;
	for (unsigned i = 0; i < TLB_MAX_AGENTS; i++)
		if (atomic_load(&m->tlbs[i]) == own)
			drop_one(m, own, lo, hi, UINT64_MAX);
}

void tlb_invalidate(struct harness_mm *m, unsigned long start, unsigned long end)
{
	unsigned long lo, hi;

	if (!range_of(m, start, end, &lo, &hi))
		return;
	drop(m, lo, hi, UINT64_MAX);
	/* break-before-make: the invalidation of these entries is complete */
	bbm_invalidated(m, lo, hi);
}

/* Bumped by every hmm_reset and hmm_destroy: a pending record of an older
 * epoch names an mm that was reset or freed since, and is dropped. */
static _Atomic uint64_t tlb_epoch;

void tlb_forget_pending(void)
{
	atomic_fetch_add(&tlb_epoch, 1);
}

void tlb_invalidate_nosync(struct harness_mm *m, unsigned long start, unsigned long end)
{
	struct acc_thread *self = &acc_self;
	unsigned long lo, hi;
	uint64_t seq;

	if (!range_of(m, start, end, &lo, &hi))
		return;
	/* the TLBI is issued now: it covers what is cached, being walked or
	 * broken before this point, and nothing later */
	seq = atomic_fetch_add(&m->tlb_seq, 1) + 1;
	atomic_fetch_add_explicit(&m->tlb_nosync, 1, memory_order_relaxed);
	if (self->tlb_npend == ACC_TLB_PEND) {
		/* full: the last record grows to cover this one too (later, so
		 * it covers more: a finding may hide, none is made up) */
		struct acc_tlb_pend *p = &self->tlb_pend[ACC_TLB_PEND - 1];

		if (p->m == m && p->epoch == atomic_load(&tlb_epoch)) {
			p->lo = p->lo < lo ? p->lo : lo;
			p->hi = p->hi > hi ? p->hi : hi;
			p->seq = seq;
			return;
		}
		tlb_sync();   /* another mm's (not in this harness's runs) */
	}
	self->tlb_pend[self->tlb_npend++] =
		(struct acc_tlb_pend){ m, atomic_load(&tlb_epoch), lo, hi, seq };
}

void tlb_sync(void)
{
	struct acc_thread *self = &acc_self;

	for (unsigned i = 0; i < self->tlb_npend; i++) {
		struct acc_tlb_pend *p = &self->tlb_pend[i];
		struct harness_mm *m = p->m;

		if (p->epoch != atomic_load(&tlb_epoch) || !m->tlb_on)
			continue;
		drop(m, p->lo, p->hi, p->seq);
		bbm_invalidated_before(m, p->lo, p->hi, p->seq);
		atomic_fetch_add_explicit(&m->tlb_nosync_done, 1, memory_order_relaxed);
	}
	self->tlb_npend = 0;
}

void tlb_op_done(struct harness_mm *m, unsigned lt, unsigned lo, unsigned hi)
{
	const uint64_t *tab = hmm_slot_entries(m, m->tables[lt]);

	for (unsigned i = 0; i < TLB_MAX_AGENTS; i++) {
		struct tlb *t = atomic_load(&m->tlbs[i]);

		if (!t)
			continue;
		lock(t);
		for (unsigned k = 0; k < t->cap; k++) {
			struct tlb_entry *e = &t->e[k];

			if (!overlaps(e, lt, lo, hi - lo))
				continue;
			/* a size the table no longer has (judged at one entry the op
			 * covers): a later walk conflicts, naming this op's function */
			unsigned xs = e->walked >= lo && e->walked < hi ? e->walked : e->first > lo ? e->first : lo;

			if (pm_valid_cont(acc_peek((uint64_t *)tab + xs)) != (e->npages > 1))
				e->by_fn = acc_self.subj.fn;
			for (unsigned x = e->first; x < e->first + e->npages; x++) {
				bool wo;

				if (x < lo || x >= hi ||
				    !stale_because(e, tab, x, m->g->page_shift, &wo))
					continue;
				set_bit(wo ? e->stale_w : e->stale_r, x - e->first);
				e->by_fn = acc_self.subj.fn;
			}
		}
		unlock(t);
	}
}
