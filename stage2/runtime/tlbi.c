/*
 * stage2/runtime/tlbi.c - the TLB maintenance and CPU features a tree's
 * pgtable.c asks for (the hyp's __kvm_tlb_flush_* through kvm_call_hyp,
 * FWB, range invalidation), on the stage-2 TLB model (core/tlb_s2.h):
 * each call invalidates with the scope and level hint it names, and a
 * broadcast one completes, with its DSB, before it returns.
 */
#include "stage2/runtime/vm.h"

#include "core/tlb_s2.h"
#include "stage2/runtime/agents.h"

bool s2_cpu_has_fwb(void) { return s2_cfg.fwb; }
bool s2_cpu_has_tlb_range(void) { return s2_cfg.tlb_range; }

/* The level hint a TLBI carries to the model: none if hints are ignored */
static inline int ttl(int level) { return s2_cfg.ttl_ignored ? 0 : level; }

/* TLBI IPAS2E1IS (with the level as a TTL hint), DSB, TLBI VMALLE1IS, DSB */
void __kvm_tlb_flush_vmid_ipa(struct kvm_s2_mmu *mmu, uint64_t ipa, int level)
{
	atomic_fetch_add(&s2_count.tlbi_ipa, 1);
	tlb_s2_inv_ipa(mmu->vmid, ipa, ttl(level), NULL);
}

/* the same, not broadcast: this CPU's TLB only */
void __kvm_tlb_flush_vmid_ipa_nsh(struct kvm_s2_mmu *mmu, uint64_t ipa, int level)
{
	struct s2_vcpu *v = s2_self_vcpu();

	atomic_fetch_add(&s2_count.tlbi_ipa_nsh, 1);
	if (v && v->tlb.cap)
		tlb_s2_inv_ipa(mmu->vmid, ipa, ttl(level), &v->tlb);
}

/* TLBI VMALLS12E1IS */
void __kvm_tlb_flush_vmid(struct kvm_s2_mmu *mmu)
{
	atomic_fetch_add(&s2_count.tlbi_vmid, 1);
	tlb_s2_inv_vmid(mmu->vmid);
}

/* TLBI RIPAS2E1IS over [start, start + pages), no level hint */
void __kvm_tlb_flush_vmid_range(struct kvm_s2_mmu *mmu, uint64_t start, unsigned long pages)
{
	atomic_fetch_add(&s2_count.tlbi_range, 1);
	tlb_s2_inv_range(mmu->vmid, start, (uint64_t)pages << s2_tree.page_shift);
}

/* mmu.c's kvm_flush_remote_tlbs() */
void s2_flush_remote_tlbs(void)
{
	__kvm_tlb_flush_vmid(&s2_vm.mmu);
}

void s2_dcache_clean_inval_poc(void *addr, size_t size)
{
	(void)addr;
	(void)size;
	atomic_fetch_add(&s2_count.cmo, 1);
}

void s2_icache_inval_pou(void *addr, size_t size)
{
	(void)addr;
	(void)size;
	atomic_fetch_add(&s2_count.cmo, 1);
}
