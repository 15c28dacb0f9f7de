/* core/violation.c - names of violation kinds. */
#include "core/violation.h"

#include <stdio.h>
#include <string.h>

static const char *const names[VK_COUNT] = {
	[VK_NONE] = "none",
	[VK_TORN] = "torn_mapping",
	[VK_PHANTOM] = "phantom_bit",
	[VK_LOST] = "lost_bit",
	[VK_LIVELOCK] = "livelock",
	[VK_DIRTY_LOST] = "dirty_lost",
	[VK_YOUNG_LOST] = "young_lost",
	[VK_UAF] = "use_after_free",
	[VK_STILL_WRITABLE] = "still_writable",
	[VK_NOT_AGED] = "not_aged",
	[VK_NOT_CLEANED] = "not_cleaned",
	[VK_WRONG_RETURN] = "wrong_return",
	[VK_FLAGS_NOT_SET] = "flags_not_set",
	[VK_WRONG_MAPPING] = "wrong_mapping",
	[VK_MIXED_BLOCK] = "mixed_block",
	[VK_FAULT_LOOP] = "fault_loop",
	[VK_OOB] = "out_of_bounds",
	[VK_HANG] = "hang",
	[VK_PLAIN_ACCESS] = "plain_access",
	[VK_STALE_TLB] = "stale_tlb_access",
	[VK_TLB_CONFLICT] = "tlb_conflict",
	[VK_BBM] = "bbm_violation",
	[VK_CONT_MISMATCH] = "cont_mismatch",
};
_Static_assert(VK_COUNT <= 32, "kinds are bits of a 32-bit mask (--expect, FUZZ_ONLY_KIND)");

const char *vkind_name(enum vkind k) { return k < VK_COUNT ? names[k] : "?"; }

enum vkind vkind_by_name(const char *name)
{
	for (int k = 1; k < VK_COUNT; k++)
		if (!strcmp(name, names[k]))
			return k;
	return VK_NONE;
}

const char *vkind_names(void)
{
	static char buf[512];

	if (!buf[0])
		for (int k = 1; k < VK_COUNT; k++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", k > 1 ? ", " : "", names[k]);
	return buf;
}
