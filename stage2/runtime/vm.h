/*
 * stage2/runtime/vm.h - the guest the tree's stage-2 table belongs to: its
 * MMU and mmu_lock, the IPA window the agents use, what backs it (the
 * memslot's pages: huge or not, and their physical addresses), the dirty
 * log, and the ground truth the oracle judges aging and dirty logging by.
 */
#ifndef STAGE2_RUNTIME_VM_H
#define STAGE2_RUNTIME_VM_H

#include <pthread.h>

#include "stage2/runtime/internal.h"

#define S2_MAX_UNITS 16
#define S2_IPA_BITS 36
#define S2_WINDOW_IPA 0x40000000ULL       /* 1GB: the window's first IPA */
#define S2_GEN_STRIDE 0x100000000ULL      /* physical addresses of one backing generation */

/* One block-sized unit of the window (a host THP or a run of small pages). */
struct s2_unit {
	_Atomic bool huge;              /* backed by a huge page: faults map blocks */
	_Atomic uint32_t gen;           /* which physical pages back it */
	_Atomic bool logging;           /* dirty logging: faults map pages */
	/* ground truth for aging: a software op changing entries over the
	 * unit as a whole (a fault mapping a block, or a page into a block,
	 * which unmaps the block's other pages) ended or began at this tick;
	 * ops in progress over it */
	_Atomic uint64_t touched;
	_Atomic int busy;
};

/* Per guest page of the window. Sequence numbers are s2_clock ticks. */
struct s2_gpage {
	_Atomic uint64_t accessed;      /* the last guest access through a valid translation */
	_Atomic uint64_t aged_start, aged_end;  /* the last aging call that cleared it: began, ended */
	_Atomic uint64_t touched;       /* the last software op changing entries over it (not aging) */
	_Atomic uint64_t wp_done;       /* write-protect for dirty logging (and its flush) returned */
	_Atomic uint64_t write_fault;   /* the last write fault on it (logged dirty) */
	_Atomic bool dirty;             /* the dirty log's bit */
};

struct s2_vm {
	struct kvm_s2_mmu mmu;
	struct kvm_arch arch;
	struct kvm_pgtable *pgt;        /* while it lives (mmu.pgt is NULLed first at teardown) */
	pthread_rwlock_t rw;            /* mmu_lock (stress); the engine has its own */
	int block_level;                /* the lowest block level: the units' size */
	uint64_t block_size, page_size;
	uint64_t ipa_base, ipa_size;
	unsigned nunits, npages;
	struct s2_unit unit[S2_MAX_UNITS];
	struct s2_gpage *gp;
	int start_level;
	uint64_t *pgd;
	unsigned pgd_pages;
	bool destroyed;
	/* bumped (under the lock for write) by every invalidation and memslot
	 * change: a fault that sampled an older value retries */
	_Atomic uint64_t inval_seq;
	/* aging calls begun and ended: the truth's test that no other call
	 * overlapped one (stage2/runtime/ops.c, s2_age) */
	_Atomic uint64_t ages_begun, ages_ended;
};

extern struct s2_vm s2_vm;

/* Set up the arena, the entries' state and the VM (the tree's init); a
 * message in err on failure. */
int s2_vm_create(char *err, size_t errlen);
/* mmu.c's teardown: mmu->pgt cleared under the lock for write, then the
 * tree's destroy with no lock (nobody can reach the table any more). */
void s2_vm_teardown(struct s2_thread *t);
void s2_vm_free(void);

/* The lock, in the backend's terms (stage2/runtime/lock.c). */
void s2_read_lock(void);
void s2_read_unlock(void);
void s2_write_lock(void);
void s2_write_unlock(void);

/* Ticks only move forward: racing recorders keep the later one. */
static inline void s2_tick_max(_Atomic uint64_t *p, uint64_t v)
{
	uint64_t cur = atomic_load_explicit(p, memory_order_relaxed);

	while (cur < v && !atomic_compare_exchange_weak(p, &cur, v))
		;
}

/* The physical address backing ipa now (the unit's generation). */
static inline uint64_t s2_backing_pa(const struct s2_vm *vm, uint64_t ipa, uint32_t gen)
{
	return S2_GUEST_PA_BASE + (uint64_t)gen * S2_GEN_STRIDE + (ipa - vm->ipa_base);
}
static inline unsigned s2_unit_of(const struct s2_vm *vm, uint64_t ipa)
{
	return (unsigned)((ipa - vm->ipa_base) / vm->block_size);
}
static inline unsigned s2_gpage_of(const struct s2_vm *vm, uint64_t ipa)
{
	return (unsigned)((ipa - vm->ipa_base) / vm->page_size);
}

/* Quiescence (every agent stopped, every grace period over): each table
 * page's count is one plus its counted entries, no LOCKED entry is left,
 * every live page is owned (a table reachable from the root, a memory
 * cache). With after_teardown: no page but the caches' is left. */
void s2_vm_check_quiescent(bool after_teardown);

/* A harness walk of the live table (no scheduling points, no checks):
 * the leaf translating ipa, its level and where it sits; false if none. */
bool s2_peek_leaf(uint64_t ipa, uint64_t *desc, int *level, uint64_t **where);

#endif
