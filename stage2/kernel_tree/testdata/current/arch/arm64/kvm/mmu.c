// SPDX-License-Identifier: GPL-2.0-only
/*
 * The callers of pgtable.c that the harness re-creates
 * (stage2/runtime/ops.c), written for the project in the shape of the
 * newest generation: read by stage2/kernel_tree/check_mmu.py, never built.
 * What each takes: faults under mmu_lock for read with shared walks that
 * handle faults; unmap, write-protect, split and flush under it for write;
 * aging under the MMU notifier's lock (virt/kvm/kvm_main.c).
 */
#include <linux/kvm_host.h>
#include <asm/kvm_pgtable.h>
#include <asm/kvm_mmu.h>

#define KVM_PGT_FN(fn)		(!is_protected_kvm_enabled() ? fn : p ## fn)

static phys_addr_t range_chunk_end(phys_addr_t addr, phys_addr_t end)
{
	phys_addr_t boundary = ALIGN_DOWN(addr + PMD_SIZE, PMD_SIZE);

	return (boundary - 1 < end - 1) ? boundary : end;
}

/* fn over [addr, end) in chunks, dropping the lock between them when asked */
static int apply_in_chunks(struct kvm_s2_mmu *mmu, phys_addr_t addr, phys_addr_t end,
			   int (*fn)(struct kvm_pgtable *, u64, u64), bool resched)
{
	struct kvm *kvm = kvm_s2_mmu_to_kvm(mmu);
	u64 next;
	int ret;

	do {
		if (!mmu->pgt)
			return -EINVAL;
		next = range_chunk_end(addr, end);
		ret = fn(mmu->pgt, addr, next - addr);
		if (ret)
			break;
		if (resched && next != end)
			cond_resched_rwlock_write(&kvm->mmu_lock);
	} while (addr = next, addr != end);
	return ret;
}

static void unmap_range(struct kvm_s2_mmu *mmu, phys_addr_t start, u64 size, bool may_block)
{
	struct kvm *kvm = kvm_s2_mmu_to_kvm(mmu);

	lockdep_assert_held_write(&kvm->mmu_lock);
	WARN_ON(apply_in_chunks(mmu, start, start + size, KVM_PGT_FN(kvm_pgtable_stage2_unmap),
				may_block));
}

static void stage2_flush_memslot(struct kvm *kvm, struct kvm_memory_slot *memslot)
{
	phys_addr_t addr = memslot->base_gfn << PAGE_SHIFT;

	apply_in_chunks(&kvm->arch.mmu, addr, addr + PAGE_SIZE * memslot->npages,
			KVM_PGT_FN(kvm_pgtable_stage2_flush), true);
}

static void stage2_flush_vm(struct kvm *kvm)
{
	struct kvm_memory_slot *memslot;
	int bkt;

	write_lock(&kvm->mmu_lock);
	kvm_for_each_memslot(memslot, bkt, kvm_memslots(kvm))
		stage2_flush_memslot(kvm, memslot);
	write_unlock(&kvm->mmu_lock);
}

static int kvm_mmu_split_huge_pages(struct kvm *kvm, phys_addr_t addr, phys_addr_t end)
{
	struct kvm_mmu_memory_cache *cache = &kvm->arch.mmu.split_page_cache;

	lockdep_assert_held_write(&kvm->mmu_lock);
	if (!kvm->arch.mmu.pgt)
		return -EINVAL;
	return KVM_PGT_FN(kvm_pgtable_stage2_split)(kvm->arch.mmu.pgt, addr, end - addr, cache);
}

static void kvm_mmu_wp_memory_region(struct kvm *kvm, int slot)
{
	struct kvm_memory_slot *memslot = id_to_memslot(kvm_memslots(kvm), slot);
	phys_addr_t start = memslot->base_gfn << PAGE_SHIFT;
	phys_addr_t end = (memslot->base_gfn + memslot->npages) << PAGE_SHIFT;

	write_lock(&kvm->mmu_lock);
	apply_in_chunks(&kvm->arch.mmu, start, end, KVM_PGT_FN(kvm_pgtable_stage2_wrprotect), true);
	kvm_flush_remote_tlbs_memslot(kvm, memslot);
	write_unlock(&kvm->mmu_lock);
}

static int user_mem_abort(struct kvm_vcpu *vcpu, phys_addr_t fault_ipa, bool perm_fault,
			  long vma_pagesize, kvm_pfn_t pfn, enum kvm_pgtable_prot prot)
{
	enum kvm_pgtable_walk_flags flags = KVM_PGTABLE_WALK_HANDLE_FAULT | KVM_PGTABLE_WALK_SHARED;
	struct kvm_pgtable *pgt = vcpu->arch.hw_mmu->pgt;
	struct kvm_mmu_memory_cache *memcache = &vcpu->arch.mmu_page_cache;
	int ret;

	ret = kvm_mmu_topup_memory_cache(memcache, kvm_mmu_cache_min_pages(vcpu->arch.hw_mmu));
	if (ret)
		return ret;
	read_lock(&vcpu->kvm->mmu_lock);
	if (perm_fault && vma_pagesize == PAGE_SIZE)
		ret = KVM_PGT_FN(kvm_pgtable_stage2_relax_perms)(pgt, fault_ipa, prot, flags);
	else
		ret = KVM_PGT_FN(kvm_pgtable_stage2_map)(pgt, fault_ipa, vma_pagesize,
							 __pfn_to_phys(pfn), prot, memcache, flags);
	read_unlock(&vcpu->kvm->mmu_lock);
	return ret != -EAGAIN ? ret : 0;
}

static void handle_access_fault(struct kvm_vcpu *vcpu, phys_addr_t fault_ipa)
{
	enum kvm_pgtable_walk_flags flags = KVM_PGTABLE_WALK_HANDLE_FAULT | KVM_PGTABLE_WALK_SHARED;
	struct kvm_s2_mmu *mmu = vcpu->arch.hw_mmu;

	read_lock(&vcpu->kvm->mmu_lock);
	KVM_PGT_FN(kvm_pgtable_stage2_mkyoung)(mmu->pgt, fault_ipa, flags);
	read_unlock(&vcpu->kvm->mmu_lock);
}

bool kvm_unmap_gfn_range(struct kvm *kvm, struct kvm_gfn_range *range)
{
	if (!kvm->arch.mmu.pgt)
		return false;
	unmap_range(&kvm->arch.mmu, range->start << PAGE_SHIFT,
		    (range->end - range->start) << PAGE_SHIFT, range->may_block);
	return false;
}

bool kvm_age_gfn(struct kvm *kvm, struct kvm_gfn_range *range)
{
	u64 size = (range->end - range->start) << PAGE_SHIFT;

	if (!kvm->arch.mmu.pgt)
		return false;
	return KVM_PGT_FN(kvm_pgtable_stage2_test_clear_young)(kvm->arch.mmu.pgt,
								range->start << PAGE_SHIFT, size, true);
}

bool kvm_test_age_gfn(struct kvm *kvm, struct kvm_gfn_range *range)
{
	u64 size = (range->end - range->start) << PAGE_SHIFT;

	if (!kvm->arch.mmu.pgt)
		return false;
	return KVM_PGT_FN(kvm_pgtable_stage2_test_clear_young)(kvm->arch.mmu.pgt,
								range->start << PAGE_SHIFT, size, false);
}

void kvm_arch_commit_memory_region(struct kvm *kvm, struct kvm_memory_slot *old,
				   const struct kvm_memory_slot *new, enum kvm_mr_change change)
{
	bool log_dirty_pages = new && new->flags & KVM_MEM_LOG_DIRTY_PAGES;

	if (log_dirty_pages && change != KVM_MR_DELETE)
		kvm_mmu_wp_memory_region(kvm, new->id);
}
