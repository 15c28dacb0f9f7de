/*
 * Test tree "needs_many_names" for the probe and tools/hammer --kernel-tree
 * (written for this project, not kernel code): a contpte.c that calls 24
 * functions the shim does not have, shim_lacks_01 to shim_lacks_24, one
 * error each: more than a compiler reports by default (clang stops after
 * 20 errors). Expected: the build is refused (exit 2) with all 24 names
 * listed as missing from the shim, not the first 20.
 */

#include <linux/mm.h>
#include <linux/export.h>

void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
			  pte_t *ptep, pte_t pte)
{
	shim_lacks_01(mm, addr);
	shim_lacks_02(mm, addr);
	shim_lacks_03(mm, addr);
	shim_lacks_04(mm, addr);
	shim_lacks_05(mm, addr);
	shim_lacks_06(mm, addr);
	shim_lacks_07(mm, addr);
	shim_lacks_08(mm, addr);
	shim_lacks_09(mm, addr);
	shim_lacks_10(mm, addr);
	shim_lacks_11(mm, addr);
	shim_lacks_12(mm, addr);
	shim_lacks_13(mm, addr);
	shim_lacks_14(mm, addr);
	shim_lacks_15(mm, addr);
	shim_lacks_16(mm, addr);
	shim_lacks_17(mm, addr);
	shim_lacks_18(mm, addr);
	shim_lacks_19(mm, addr);
	shim_lacks_20(mm, addr);
	shim_lacks_21(mm, addr);
	shim_lacks_22(mm, addr);
	shim_lacks_23(mm, addr);
	shim_lacks_24(mm, addr);
}
EXPORT_SYMBOL_GPL(__contpte_try_unfold);
