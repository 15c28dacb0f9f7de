/*
 * stage2/runtime/kvm_types.h - the few KVM structures that a tree's
 * pgtable.c reaches into and the harness owns: the stage-2 MMU (the tree's
 * split walker finds it from its page cache with container_of) and the
 * memory cache table pages come from. Seen by the tree's unit (through the
 * shim's <linux/kvm_host.h>) and by the harness's runtime alike, so both
 * agree on their layout.
 */
#ifndef STAGE2_RUNTIME_KVM_TYPES_H
#define STAGE2_RUNTIME_KVM_TYPES_H

#include <stdint.h>

/* Pages a memory cache holds at most (the kernel's is 40 on arm64). */
#define S2_MC_CAPACITY 40

struct kvm_mmu_memory_cache {
	int nobjs;
	int capacity;
	void *objects[S2_MC_CAPACITY];
};

struct kvm_pgtable;
struct s2_vm;

/* Older trees read the VTCR from the VM's arch rather than the MMU. */
struct kvm_arch {
	uint64_t vtcr;
};

struct kvm_s2_mmu {
	/* the tree reads these */
	struct kvm_pgtable *pgt;
	uint64_t vtcr;
	struct kvm_arch *arch;
	struct kvm_mmu_memory_cache split_page_cache;
	uint64_t split_page_chunk_size;
	/* the harness's VM this MMU belongs to (TLB invalidations reach it) */
	struct s2_vm *vm;
	uint16_t vmid;
};

#endif
