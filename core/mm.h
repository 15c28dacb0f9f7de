/*
 * core/mm.h - the harness's address space: page tables in a shared memory
 * segment, published to readers through RCU pointers, one PTL per table,
 * and the oracle's per-block history beside them.
 *
 * Segment layout (memfd, mode 0600, no file-system name; another process
 * of the same user attaches through /proc/<pid>/fd/<fd>, see
 * docs/contract.md, "the shared segment"):
 *   struct seg_header                      magic, geometry, live counters
 *   struct slot_hdr[nslots]                state/generation of each table page
 *   uint64_t entries[nslots][ept]          the page tables (block aligned)
 *   (a guard page: no access)
 *   struct block_hist[ntables * bpt]       history of each logical block
 * and a guard page after the segment.
 * Logical table lt (a range of virtual addresses) is backed by one slot at
 * a time; retiring it moves its entries to a fresh slot and frees the old
 * one after an RCU grace period, poisoning it first.
 */
#ifndef CORE_MM_H
#define CORE_MM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/rcu.h"

#include "core/mm_types.h"
#include "core/pte.h"
#include "core/variant.h"

#define MAX_CONT_PTES 128
#define HIST_RING 4096          /* records of software stores per block */
#define SEG_MAGIC "contpte-harness"
#define SEG_VERSION 1

/* The pattern a freed table is filled with: valid, every address bit set,
 * not CONT (so a reader returns it at once instead of retrying on it). */
static inline uint64_t pte_poison(unsigned page_shift)
{
	return pm_addr_mask(page_shift) | PTE_BIT_VALID | PTE_BIT_TABLE | PTE_BIT_AF;
}
static inline bool pte_is_poison(uint64_t v, unsigned page_shift)
{
	return (v & pm_addr_mask(page_shift)) == pm_addr_mask(page_shift);
}

enum slot_state { SLOT_FREE, SLOT_LIVE, SLOT_RETIRED, SLOT_POISONED };

struct slot_hdr {
	_Atomic uint32_t state;
	_Atomic uint32_t gen;       /* bumped each time the slot is allocated */
	_Atomic uint32_t ltable;    /* logical table it backs */
	_Atomic uint32_t vacated;   /* its entries are being / were moved away */
	uint32_t index;
	struct rcu_head rcu;
	struct harness_mm *m;
};

/* One software store (or RMW) to an entry of a block. Written by the one
 * writer holding the PTL, read by any reader's oracle: seqlock-style, tag is
 * index+1 once complete, 0 while being (re)written. */
struct hist_rec {
	_Atomic uint64_t tag;
	_Atomic uint64_t value;     /* the entry's value after the store */
	_Atomic uint64_t prev;      /* index+1 of the previous record of this entry */
	_Atomic uint32_t entry;     /* entry index in the block, HIST_NOP if no change */
	_Atomic uint32_t who;       /* the writer (bits 0-7) and its op + 1 (bits 8-15; 0: none) */
};
#define HIST_NOP 0xffffffffu

struct block_hist {
	/* software writer side */
	_Alignas(64) _Atomic uint64_t lseq;    /* records reserved */
	_Atomic uint64_t lcomp;                /* records completed */
	/* hardware side */
	_Alignas(64) _Atomic uint64_t hw_begin;
	_Atomic uint64_t hw_end;
	_Alignas(64) _Atomic uint64_t last[MAX_CONT_PTES];   /* index+1 of newest record */
	/* dirty/young owed: hardware marks lcomp+1 seen before it set the bit;
	 * consuming writers (unmap, clean) mark index+1 of their record */
	_Atomic uint64_t hw_dirty_mark[MAX_CONT_PTES];
	_Atomic uint64_t hw_young_mark[MAX_CONT_PTES];
	uint64_t consume_dirty[MAX_CONT_PTES];   /* under the PTL */
	uint64_t consume_young[MAX_CONT_PTES];
	struct hist_rec ring[HIST_RING];
};

struct seg_header {
	char magic[16];
	uint32_t version;
	uint32_t page_shift, cont_ptes;
	uint32_t ntables, blocks_per_table, nslots;
	uint64_t off_slots, off_entries, off_hist, slot_stride, size;
	int32_t owner_pid;
	/* live counters, readable by an attached process */
	_Alignas(64) _Atomic uint64_t reads, retries, writer_ops, hw_ops, tlb_flushes;
	_Atomic uint64_t retires, unjudged, violations;
};

/* A table's lock, alone on its cache line: writers on different tables
 * would otherwise bounce one line on every lock and unlock. exit_seq: odd
 * while a teardown op (under the lock) tears the table down as exit_mmap
 * would (hmm_exit_seq). */
struct hmm_ptl {
	_Alignas(64) pthread_mutex_t lock;
	_Atomic uint32_t exit_seq;
};

struct tlb;
struct bbm_entry;
#define HMM_MAX_TLBS 16

struct harness_mm {
	struct mm_struct mm;            /* what kernel code sees */
	struct vm_area_struct vma;
	const struct granule *g;
	const struct variant *v;
	unsigned ntables, bpt, ept, nslots, cont;
	/* log2 of cont and of the slot stride (both powers of two), and where
	 * the table pages start: a software store's slot and entry without a
	 * division or a read of the segment header (core/oracle/history.c) */
	unsigned cont_shift, slot_shift;
	char *entries;
	int memfd;
	void *seg;
	size_t seg_size;
	size_t guard_off;               /* the guard page after the tables */
	struct seg_header *hdr;
	struct slot_hdr *slots;
	struct block_hist *hist;
	struct slot_hdr **tables;       /* RCU-published, one per logical table */
	struct hmm_ptl *ptl;            /* one per logical table: &ptl[lt].lock */
	/* written while the run goes on: off the lines every thread reads */
	_Alignas(64) pthread_mutex_t free_lock;
	uint32_t *free_fifo;
	unsigned free_head, free_count;
	_Alignas(64) _Atomic uint64_t next_folio;   /* next fresh folio's pfn (CONT-aligned) */
	_Alignas(64) _Atomic uint64_t pending_frees;
	/* The TLB model (core/tlb.h; --tlb): off (0) unless a driver turns it
	 * on; then flushes invalidate the attached TLBs and software stores go
	 * through the break-before-make monitor (core/bbm.h), one state per
	 * entry of every logical table (ntables * ept). */
	int tlb_on;
	struct tlb *_Atomic tlbs[HMM_MAX_TLBS];
	struct bbm_entry *bbm;
	/* numbers the _nosync invalidations (core/tlb.c): a TLB fill and a
	 * break record the count at their time, so that the DSB completing
	 * invalidation n covers only what was cached or broken before it */
	_Atomic uint64_t tlb_seq;
	/* _nosync invalidations issued, and completed by a DSB (stats) */
	_Atomic uint64_t tlb_nosync, tlb_nosync_done;
};

/* Create the segment and the tables. On failure returns -1 with err set. */
int hmm_create(struct harness_mm *m, const struct variant *v, unsigned ntables,
	       unsigned blocks_per_table, char *err, size_t errlen);
/* Back to the state hmm_create left (tables empty, history empty, slot
 * generations and folio numbering restarted): every slot and every
 * block's entries, but of the history rings only the records used. The
 * deterministic engine reuses one segment for many runs, with no thread
 * running during the reset. No RCU callback may be pending. */
void hmm_reset(struct harness_mm *m);
/* Wait for RCU callbacks, unmap and close the segment. Idempotent. */
void hmm_destroy(struct harness_mm *m);

static inline struct harness_mm *hmm_of(struct mm_struct *mm)
{
	return (struct harness_mm *)mm;   /* mm is the first member */
}
static inline uint64_t *hmm_slot_entries(struct harness_mm *m, const struct slot_hdr *s)
{
	return (uint64_t *)(m->entries + ((size_t)s->index << m->slot_shift));
}
static inline struct block_hist *hmm_hist(struct harness_mm *m, unsigned lt, unsigned block)
{
	return &m->hist[lt * m->bpt + block];
}
/* Virtual address of entry idx of logical table lt. */
static inline unsigned long hmm_addr(struct harness_mm *m, unsigned lt, unsigned idx)
{
	return (1UL << 40) + ((unsigned long)lt * m->ept + idx) * (1UL << m->g->page_shift);
}
/* Which slot and entry a pointer into the table area is. */
static inline struct slot_hdr *hmm_slot_of(const struct harness_mm *m, const void *p,
					   unsigned *idx)
{
	size_t off = (size_t)((const char *)p - m->entries);

	*idx = (unsigned)((off & (((size_t)1 << m->slot_shift) - 1)) / sizeof(uint64_t));
	return &m->slots[off >> m->slot_shift];
}

/* Table lt's teardown count (core/ops.c, teardown): odd while the table is
 * torn down as at process exit. No lockless walk of an exiting mm's tables
 * exists in the kernel: a lockless read does not begin while it is odd,
 * and one during which it changed overlapped a teardown and is not judged
 * (core/oracle/window.c; a seqcount: the teardown bumps it, with a full
 * fence, before its first store and after its last). */
static inline uint32_t hmm_exit_seq(const struct harness_mm *m, unsigned lt)
{
	return atomic_load_explicit(&m->ptl[lt].exit_seq, memory_order_acquire);
}

/* A folio never mapped before: its CONT-aligned base pfn. */
static inline uint64_t hmm_fresh_folio(struct harness_mm *m)
{
	return atomic_fetch_add(&m->next_folio, m->cont);
}

/* Where p points, in words, for reports of out-of-bounds accesses. */
const char *hmm_where(const struct harness_mm *m, const void *p, char *buf, size_t len);

/* Retire logical table lt (caller holds its PTL): move the entries to a
 * fresh slot, publish it, free the old one through the variant's
 * pte_free_defer. Returns false if no free slot was available. */
bool hmm_retire_table(struct harness_mm *m, unsigned lt);

#endif
