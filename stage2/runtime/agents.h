/*
 * stage2/runtime/agents.h - what runs the tree's code: the callers of
 * arch/arm64/kvm/mmu.c re-created as ops (each with the lock mode and walk
 * flags the kernel's mmu.c uses), the vCPUs (hardware walkers translating
 * through stage 2 with a TLB, and the fault handlers behind them), the
 * ager, and the accuracy of aging. Used by both drivers.
 */
#ifndef STAGE2_RUNTIME_AGENTS_H
#define STAGE2_RUNTIME_AGENTS_H

#include "core/tlb_s2.h"
#include "stage2/runtime/vm.h"

/* The ops, with what mmu.c holds and passes when it calls the tree. */
enum s2_op {
	S2_OP_FAULT,        /* user_mem_abort: map a page or block (translation fault) */
	S2_OP_PERM,         /* user_mem_abort on a permission fault: relax_perms (or map a page when logging splits a block) */
	S2_OP_AF,           /* handle_access_fault: mkyoung */
	S2_OP_REMAP,        /* user_mem_abort mapping another physical page over a valid one */
	S2_OP_UNMAP,        /* kvm_unmap_gfn_range */
	S2_OP_WRPROTECT,    /* dirty logging: kvm_mmu_wp_memory_region + kvm_flush_remote_tlbs */
	S2_OP_SPLIT,        /* eager split: kvm_mmu_split_huge_pages */
	S2_OP_FLUSH,        /* stage2_flush_memslot */
	S2_OP_MIGRATE,      /* the host moves a block's backing: unmap, new pages */
	S2_OP_LOG_OFF,      /* dirty logging switched off: faults map blocks again (over tables) */
	S2_OP_AGE,          /* kvm_age_gfn (clear_flush_young) */
	S2_OP_TEST_AGE,     /* kvm_test_age_gfn */
	S2_OP_COUNT
};

struct s2_op_desc {
	const char *name;       /* the harness's name for it */
	const char *caller;     /* the mmu.c function it re-creates */
	const char *tree_fn;    /* the tree's function it calls */
	enum s2_held lock;      /* mmu_lock as mmu.c takes it (aging: --age-lock) */
	unsigned flags;         /* S2_WALK_* it passes, for the functions that take flags */
};
extern const struct s2_op_desc s2_ops[S2_OP_COUNT];
extern _Atomic uint64_t s2_op_count[S2_OP_COUNT];

struct s2_vcpu {
	struct s2_thread t;
	struct tlb_s2 tlb;
	struct kvm_mmu_memory_cache mc;
	unsigned index;
	uint64_t accesses, writes, hits;
	uint64_t faults_trans, faults_perm, faults_af;
};

static inline struct s2_vcpu *s2_self_vcpu(void) { return s2_self()->vcpu; }
void s2_vcpu_init(struct s2_vcpu *v, unsigned index, unsigned thread_id);
void s2_vcpu_fini(struct s2_vcpu *v);

/* One guest access by vCPU v: translated through its TLB or a walk,
 * setting the access flag (with hardware AF), faulting into the shared ops
 * until it succeeds (at most tries faults). True if it completed. */
bool s2_vcpu_access(struct s2_vcpu *v, uint64_t ipa, bool write, unsigned tries);

/* The ops: each takes and drops mmu_lock itself, as its mmu.c caller. */
int s2_fault(struct s2_thread *t, struct kvm_mmu_memory_cache *mc, uint64_t ipa, bool write,
	     bool perm, int fault_level, uint64_t seq);
void s2_access_fault(struct s2_thread *t, uint64_t ipa);
int s2_remap(struct s2_thread *t, struct kvm_mmu_memory_cache *mc, uint64_t ipa);
void s2_unmap(struct s2_thread *t, uint64_t start, uint64_t size);
void s2_wrprotect(struct s2_thread *t, uint64_t start, uint64_t size);
void s2_split(struct s2_thread *t, uint64_t start, uint64_t size);
void s2_flush(struct s2_thread *t, uint64_t start, uint64_t size);
void s2_migrate(struct s2_thread *t, unsigned unit);
void s2_log_off(struct s2_thread *t, unsigned unit);
bool s2_age(struct s2_thread *t, uint64_t start, uint64_t size, bool mkold);
/* mmu.c's kvm_flush_remote_tlbs */
void s2_flush_remote_tlbs(void);

/* Aging accuracy (stage2/runtime/ops.c): per lock mode, calls and their
 * verdicts against the ground truth of the guest's accesses. */
struct s2_accuracy {
	_Atomic uint64_t calls, young, definite_young, definite_old, racy;
	_Atomic uint64_t missed, invented;       /* a definite young said old; a definite old said young */
	_Atomic uint64_t quiescent_missed;       /* missed with nothing racing: a finding */
};
extern struct s2_accuracy s2_acc;

/* Random choices of the drivers over the window; a range of up to
 * max_pages pages, or now and then a whole block or the whole window
 * (never with max_pages 1: single pages only). */
uint64_t s2_pick_ipa(struct s2_thread *t);
void s2_pick_range(struct s2_thread *t, uint64_t *start, uint64_t *size, unsigned max_pages);

#endif
