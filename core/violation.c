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
	[VK_PLAIN_ACCESS] = "plain_access",
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
	static char list[512];

	if (!list[0])
		for (int k = 1; k < VK_COUNT; k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 k > 1 ? ", " : "", names[k]);
	return list;
}
