/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stage-2 geometry: a test tree written for the contpte-harness project in
 * the style of the kernel's header. Not kernel code.
 */
#ifndef __ARM64_S2_PGTABLE_H_
#define __ARM64_S2_PGTABLE_H_

#include <linux/pgtable.h>

/*
 * A stage-2 root may be up to 16 concatenated pages, which saves a level:
 * the levels an IPA of @ipa bits needs are those of @ipa - 4 bits.
 */
#define stage2_pgtable_levels(ipa)	ARM64_HW_PGTABLE_LEVELS((ipa) - 4)
#define kvm_stage2_levels(mmu)		VTCR_EL2_LVLS((mmu)->vtcr)

#endif	/* __ARM64_S2_PGTABLE_H_ */
