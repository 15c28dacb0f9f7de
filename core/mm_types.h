/*
 * core/mm_types.h - the few core-mm types kernel-dialect code sees, shared
 * with the harness runtime. Kernel code only passes them through (to the
 * TLB-flush shims) or reads vm_mm.
 */
#ifndef CORE_MM_TYPES_H
#define CORE_MM_TYPES_H

#include <stdint.h>

/* A page-table entry as kernel code passes it (asm/pgtable-types.h). */
typedef struct { uint64_t pte; } pte_t;

struct harness_mm;

struct mm_struct {
	struct harness_mm *hmm;   /* the harness's own state for this mm */
};

struct vm_area_struct {
	struct mm_struct *vm_mm;
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_flags;
};

/* clear_young_dirty_ptes flags (MADV_COLD clears young, MADV_FREE both). */
typedef int cydp_t;
#define CYDP_CLEAR_YOUNG 0x1
#define CYDP_CLEAR_DIRTY 0x2

/* A page-table page (opaque to kernel code). */
typedef void *pgtable_t;
/* Set the table pointer *slot to table: a WRITE_ONCE, no barrier (core/mm.c;
 * the pointer is what lockless walkers rcu_dereference). */
void kc_set_table(struct mm_struct *mm, pgtable_t *slot, pgtable_t table);
/* Free a page table after an RCU grace period / at once (core/mm.c). */
void kc_pte_free_rcu(struct mm_struct *mm, pgtable_t pgtable);
void kc_pte_free_now(struct mm_struct *mm, pgtable_t pgtable);

/* Called by the TLB-flush shims: the harness counts flushes. */
void kc_tlb_flush(struct mm_struct *mm, unsigned long start, unsigned long end);
/* A _nosync flush: issued, completed by the thread's next DSB (kc_dsb). */
void kc_tlb_flush_nosync(struct mm_struct *mm, unsigned long start, unsigned long end);
/* A flush of the calling CPU's TLB only (local_flush_tlb_contpte,
 * TLBF_NOBROADCAST): other agents keep what they cached. */
void kc_tlb_flush_local(struct mm_struct *mm, unsigned long start, unsigned long end);
/* dsb(): the barrier, and the completion of the thread's _nosync flushes. */
void kc_dsb(void);

#endif
