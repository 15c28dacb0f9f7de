/* core/violation.c - names of violation kinds. */
#include "core/violation.h"

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
};

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
	return "torn_mapping, phantom_bit, lost_bit, livelock, dirty_lost, young_lost, use_after_free";
}
