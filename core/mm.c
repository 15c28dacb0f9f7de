/* core/mm.c - segment, page tables, RCU lifetime (see core/mm.h). */
#define _GNU_SOURCE
#include "core/mm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/access.h"
#include "core/bbm.h"
#include "core/oob.h"
#include "core/plain_access.h"
#include "core/rcu_tsan.h"
#include "core/tlb.h"

#ifdef CORE_TSAN
char rcu_tsan_gp_token;
#endif

static size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* The harness's own writes to a table page (zeroing a new one, poisoning
 * a freed one): no access of the algorithms, but a write every memory
 * model sees (acc_seed). */
static void slot_fill(struct harness_mm *m, struct slot_hdr *s, uint64_t v)
{
	uint64_t *e = hmm_slot_entries(m, s);

	for (unsigned i = 0; i < m->ept; i++)
		acc_seed(&e[i], v);
}

static struct slot_hdr *slot_alloc(struct harness_mm *m, unsigned lt)
{
	struct slot_hdr *s = NULL;

	pthread_mutex_lock(&m->free_lock);
	if (m->free_count) {
		s = &m->slots[m->free_fifo[m->free_head]];
		m->free_head = (m->free_head + 1) % m->nslots;
		m->free_count--;
	}
	pthread_mutex_unlock(&m->free_lock);
	if (!s)
		return NULL;
	slot_fill(m, s, 0);
	atomic_store(&s->ltable, lt);
	atomic_store(&s->vacated, 0);
	atomic_fetch_add(&s->gen, 1);
	atomic_store(&s->state, SLOT_LIVE);
	return s;
}

/* Poison, then make the slot reusable (FIFO: reuse is as late as possible). */
static void slot_release(struct harness_mm *m, struct slot_hdr *s)
{
	slot_fill(m, s, pte_poison(m->g->page_shift));
	/* visible before the page can be allocated again (the free list's
	 * lock would order them on real hardware) */
	acc_writes_visible();
	atomic_store(&s->state, SLOT_POISONED);
	pthread_mutex_lock(&m->free_lock);
	m->free_fifo[(m->free_head + m->free_count) % m->nslots] = s->index;
	m->free_count++;
	pthread_mutex_unlock(&m->free_lock);
}

static void slot_free_cb(struct rcu_head *head)
{
	struct slot_hdr *s = caa_container_of(head, struct slot_hdr, rcu);

	TSAN_RCU_CALLBACK(s);
	TSAN_RCU_GP_DONE();
	slot_release(s->m, s);
	atomic_fetch_sub(&s->m->pending_frees, 1);
}

void kc_pte_free_rcu(struct mm_struct *mm, pgtable_t pgtable)
{
	struct harness_mm *m = hmm_of(mm);
	struct slot_hdr *s = pgtable;

	atomic_store(&s->state, SLOT_RETIRED);
	atomic_fetch_add(&m->pending_frees, 1);
	TSAN_RCU_CALL(s);
	call_rcu(&s->rcu, slot_free_cb);
}

void kc_pte_free_now(struct mm_struct *mm, pgtable_t pgtable)
{
	slot_release(hmm_of(mm), pgtable);
}

void kc_set_table(struct mm_struct *mm, pgtable_t *slot, pgtable_t table)
{
	(void)mm;
	TSAN_RCU_PUBLISH(table);
	rcu_set_pointer_relaxed(*(struct slot_hdr **)slot, (struct slot_hdr *)table);
}

void kc_tlb_flush(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct harness_mm *m = hmm_of(mm);

	atomic_fetch_add_explicit(&m->hdr->tlb_flushes, 1, memory_order_relaxed);
	/* With the TLB model on, a synchronous flush helper removes the range
	 * from the agents' TLBs and completes (docs/tlb.md). */
	if (m->tlb_on) {
		/* the flush helpers' DSB ISHST: the stores the flush covers are
		 * visible to table walks before the invalidation */
		acc_dsb();
		tlb_invalidate(m, start, end);
		/* its closing DSB ISH also completes the thread's _nosync ones */
		tlb_sync();
	}
}

void kc_tlb_flush_nosync(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct harness_mm *m = hmm_of(mm);

	atomic_fetch_add_explicit(&m->hdr->tlb_flushes, 1, memory_order_relaxed);
	/* The TLBI without the DSB that completes it: pending for this thread
	 * until its next DSB (kc_dsb, or a synchronous flush). */
	if (m->tlb_on) {
		acc_dsb();
		tlb_invalidate_nosync(m, start, end);
	}
}

void kc_tlb_flush_local(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct harness_mm *m = hmm_of(mm);

	atomic_fetch_add_explicit(&m->hdr->tlb_flushes, 1, memory_order_relaxed);
	/* TLBI without the inner-shareable broadcast, and its DSB NSH: only
	 * this CPU's TLB (core/tlb.h, tlb_invalidate_local) */
	if (m->tlb_on) {
		acc_dsb();
		tlb_invalidate_local(m, start, end);
	}
}

void kc_dsb(void)
{
	acc_dsb();
	if (acc_self.tlb_npend)
		tlb_sync();
}

bool hmm_retire_table(struct harness_mm *m, unsigned lt)
{
	struct slot_hdr *old = m->tables[lt];
	struct slot_hdr *new = slot_alloc(m, lt);

	if (!new)
		return false;
	/* Before the first entry is cleared: a reader that sees a cleared
	 * entry of this page then also sees the flag (the history's clear
	 * records precede it, see core/oracle/history.h). */
	atomic_store_explicit(&old->vacated, 1, memory_order_release);
	m->v->ep.ep_move_ptes(&m->mm, hmm_addr(m, lt, 0), (pte_t *)hmm_slot_entries(m, old),
			      (pte_t *)hmm_slot_entries(m, new), m->ept);
	m->v->ep.ep_pte_install(&m->mm, (pgtable_t *)&m->tables[lt], new);
	/* the new table is in use before the old one is handed to RCU */
	acc_writes_visible();
	m->v->ep.ep_pte_free_defer(&m->mm, old);
	atomic_fetch_add_explicit(&m->hdr->retires, 1, memory_order_relaxed);
	return true;
}

int hmm_create(struct harness_mm *m, const struct variant *v, unsigned ntables,
	       unsigned bpt, char *err, size_t errlen)
{
	const struct granule *g = v->granule;
	size_t off_slots, off_entries, stride, off_hist, size, guard;
	void *area;

	memset(m, 0, sizeof(*m));
	m->memfd = -1;
	oob_install();
	m->g = g;
	m->v = v;
	m->cont = g->cont_ptes;
	m->ntables = ntables;
	m->bpt = bpt;
	m->ept = bpt * g->cont_ptes;
	m->nslots = ntables * 3;
	m->mm.hmm = m;
	m->vma.vm_mm = &m->mm;
	m->vma.vm_start = hmm_addr(m, 0, 0);
	m->vma.vm_end = hmm_addr(m, ntables, 0);

	off_slots = align_up(sizeof(struct seg_header), 64);
	off_entries = align_up(off_slots + m->nslots * sizeof(struct slot_hdr), 4096);
	/* a power of two, at least a page: a store's slot is a shift away */
	for (m->slot_shift = 12; ((size_t)1 << m->slot_shift) < m->ept * sizeof(uint64_t); m->slot_shift++)
		;
	stride = (size_t)1 << m->slot_shift;
	m->cont_shift = (unsigned)__builtin_ctz(m->cont);   /* a power of two (core/pte.h) */
	/* A guard page (no access) between the last table page and the
	 * history, and another after the segment: a subject's access that runs
	 * off the tables faults there (core/oob.c makes it a report) instead
	 * of reading or corrupting the history. Table pages keep their
	 * offsets: recorded trace hashes (engine/) include them. */
	guard = align_up(off_entries + m->nslots * stride, 4096);
	off_hist = guard + 4096;
	size = align_up(off_hist + (size_t)ntables * bpt * sizeof(struct block_hist), 4096);

	m->memfd = memfd_create("contpte-harness", MFD_CLOEXEC);
	if (m->memfd < 0 || fchmod(m->memfd, 0600) < 0 || ftruncate(m->memfd, size) < 0) {
		snprintf(err, errlen, "shared segment of %zu bytes: %s", size, strerror(errno));
		hmm_destroy(m);
		return -1;
	}
	/* the segment, then one page nobody may touch */
	area = mmap(NULL, size + 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	m->seg = area == MAP_FAILED ? MAP_FAILED
				    : mmap(area, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, m->memfd, 0);
	if (m->seg == MAP_FAILED || mprotect((char *)m->seg + guard, 4096, PROT_NONE)) {
		snprintf(err, errlen, "mmap of shared segment: %s", strerror(errno));
		if (area != MAP_FAILED)
			munmap(area, size + 4096);
		m->seg = NULL;
		hmm_destroy(m);
		return -1;
	}
	m->seg_size = size;
	m->guard_off = guard;
	m->hdr = m->seg;
	memcpy(m->hdr->magic, SEG_MAGIC, sizeof(SEG_MAGIC));
	m->hdr->version = SEG_VERSION;
	m->hdr->page_shift = g->page_shift;
	m->hdr->cont_ptes = g->cont_ptes;
	m->hdr->ntables = ntables;
	m->hdr->blocks_per_table = bpt;
	m->hdr->nslots = m->nslots;
	m->hdr->off_slots = off_slots;
	m->hdr->off_entries = off_entries;
	m->hdr->off_hist = off_hist;
	m->hdr->slot_stride = stride;
	m->hdr->size = size;
	m->hdr->owner_pid = getpid();
	/* the table pages: a subject's plain access to them is a finding */
	plain_access_watch((char *)m->seg + off_entries, m->nslots * stride);
	m->slots = (struct slot_hdr *)((char *)m->seg + off_slots);
	m->entries = (char *)m->seg + off_entries;
	m->hist = (struct block_hist *)((char *)m->seg + off_hist);

	m->tables = calloc(ntables, sizeof(*m->tables));
	m->ptl = aligned_alloc(64, ntables * sizeof(*m->ptl));
	m->free_fifo = calloc(m->nslots, sizeof(*m->free_fifo));
	m->bbm = calloc((size_t)ntables * m->ept, sizeof(*m->bbm));
	if (!m->tables || !m->ptl || !m->free_fifo || !m->bbm) {
		snprintf(err, errlen, "out of memory");
		hmm_destroy(m);
		return -1;
	}
	pthread_mutex_init(&m->free_lock, NULL);
	for (unsigned i = 0; i < m->nslots; i++) {
		m->slots[i].index = i;
		m->slots[i].m = m;
		m->free_fifo[i] = i;
		/* a free page holds garbage until cleared for use: the poison
		 * (as hmm_reset leaves it) */
		slot_fill(m, &m->slots[i], pte_poison(m->g->page_shift));
	}
	m->free_count = m->nslots;
	for (unsigned lt = 0; lt < ntables; lt++) {
		pthread_mutex_init(&m->ptl[lt].lock, NULL);
		atomic_init(&m->ptl[lt].exit_seq, 0);
		struct slot_hdr *s = slot_alloc(m, lt);
		TSAN_RCU_PUBLISH(s);
		rcu_assign_pointer(m->tables[lt], s);   /* before any thread runs */
	}
	/* Fresh folios start well above pfn 0 and stay far below the poison. */
	atomic_store(&m->next_folio, 1ULL << 20);
	return 0;
}

/* Relaxed stores throughout: no thread runs during a reset (the engine's
 * coroutines share its one OS thread), and a default seq_cst store is an
 * xchg on x86-64, ~20 cycles: three per entry of every block made this
 * reset 9% of an engine run (perf, docs/fuzzing.md "Figures"). */
void hmm_reset(struct harness_mm *m)
{
	for (unsigned i = 0; i < m->nslots; i++) {
		struct slot_hdr *s = &m->slots[i];

		/* a free page holds garbage until cleared for use: the poison */
		slot_fill(m, s, pte_poison(m->g->page_shift));
		atomic_store_explicit(&s->state, SLOT_FREE, memory_order_relaxed);
		atomic_store_explicit(&s->gen, 0, memory_order_relaxed);
		atomic_store_explicit(&s->ltable, 0, memory_order_relaxed);
		atomic_store_explicit(&s->vacated, 0, memory_order_relaxed);
		m->free_fifo[i] = i;
	}
	m->free_head = 0;
	m->free_count = m->nslots;
	for (unsigned i = 0; i < m->ntables * m->bpt; i++) {
		struct block_hist *h = &m->hist[i];
		uint64_t used = atomic_load_explicit(&h->lseq, memory_order_relaxed);

		for (uint64_t k = 0; k < used && k < HIST_RING; k++)
			atomic_store_explicit(&h->ring[k].tag, 0, memory_order_relaxed);
		atomic_store_explicit(&h->lseq, 0, memory_order_relaxed);
		atomic_store_explicit(&h->lcomp, 0, memory_order_relaxed);
		atomic_store_explicit(&h->hw_begin, 0, memory_order_relaxed);
		atomic_store_explicit(&h->hw_end, 0, memory_order_relaxed);
		for (unsigned j = 0; j < m->cont; j++) {
			atomic_store_explicit(&h->last[j], 0, memory_order_relaxed);
			atomic_store_explicit(&h->hw_dirty_mark[j], 0, memory_order_relaxed);
			atomic_store_explicit(&h->hw_young_mark[j], 0, memory_order_relaxed);
			h->consume_dirty[j] = 0;
			h->consume_young[j] = 0;
		}
	}
	for (unsigned lt = 0; lt < m->ntables; lt++) {
		m->tables[lt] = slot_alloc(m, lt);
		/* a run stopped inside a teardown */
		atomic_store_explicit(&m->ptl[lt].exit_seq, 0, memory_order_relaxed);
	}
	atomic_store_explicit(&m->next_folio, 1ULL << 20, memory_order_relaxed);
	atomic_store_explicit(&m->pending_frees, 0, memory_order_relaxed);
	bbm_reset(m);
	tlb_forget_pending();
	atomic_store_explicit(&m->tlb_nosync, 0, memory_order_relaxed);
	atomic_store_explicit(&m->tlb_nosync_done, 0, memory_order_relaxed);
	m->hdr->reads = m->hdr->retries = m->hdr->writer_ops = m->hdr->hw_ops = 0;
	m->hdr->tlb_flushes = m->hdr->retires = m->hdr->unjudged = m->hdr->violations = 0;
}

void hmm_destroy(struct harness_mm *m)
{
	if (m->tables && atomic_load(&m->pending_frees))
		rcu_barrier();
	if (m->free_fifo) {
		/* the last callback released the slot under free_lock: taking it
		 * orders its writes before the frees below */
		pthread_mutex_lock(&m->free_lock);
		pthread_mutex_unlock(&m->free_lock);
	}
	if (m->seg) {
		plain_access_unwatch((char *)m->seg + m->hdr->off_entries);
		munmap(m->seg, m->seg_size + 4096);
	}
	if (m->memfd >= 0)
		close(m->memfd);
	if (m->ptl)
		for (unsigned lt = 0; lt < m->ntables; lt++)
			pthread_mutex_destroy(&m->ptl[lt].lock);
	free(m->tables);
	free(m->ptl);
	free(m->free_fifo);
	free(m->bbm);
	m->bbm = NULL;
	tlb_forget_pending();
	m->seg = NULL;
	m->memfd = -1;
	m->tables = NULL;
	m->ptl = NULL;
	m->free_fifo = NULL;
}

const char *hmm_where(const struct harness_mm *m, const void *p, char *buf, size_t len)
{
	const char *c = p, *seg = m->seg;
	size_t entries_end = m->hdr->off_entries + (size_t)m->nslots * m->hdr->slot_stride;

	if (!seg || c < seg || c >= seg + m->seg_size + 4096) {
		snprintf(buf, len, "%p, outside the harness's segment", p);
	} else if ((size_t)(c - seg) < m->hdr->off_entries) {
		snprintf(buf, len, "segment offset %#zx, the segment's header before the tables",
			 (size_t)(c - seg));
	} else if ((size_t)(c - seg) < entries_end) {
		unsigned idx;
		const struct slot_hdr *s = hmm_slot_of(m, c, &idx);
		unsigned si = (unsigned)(s - m->slots);

		if (idx < m->ept)
			snprintf(buf, len, "table page %u (%s of table %u) entry %u: block %u entry %u",
				 si, s->state == SLOT_LIVE ? "live" : s->state == SLOT_FREE ? "free" : "freed",
				 s->ltable, idx, idx / m->cont, idx % m->cont);
		else
			snprintf(buf, len, "table page %u, word %u past its %u entries", si,
				 idx - m->ept, m->ept);
	} else if ((size_t)(c - seg) < m->guard_off + 4096) {
		snprintf(buf, len, "the guard page after the table pages (segment offset %#zx)",
			 (size_t)(c - seg));
	} else if ((size_t)(c - seg) < m->seg_size) {
		snprintf(buf, len, "segment offset %#zx, the oracle's history after the tables",
			 (size_t)(c - seg));
	} else {
		snprintf(buf, len, "the guard page after the segment");
	}
	return buf;
}
