/* core/pte.c - granule table and the text form of an entry. */
#include "core/pte.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const struct granule granules[GRANULE_COUNT] = {
	{ "4k", 4, 12, 16 },
	{ "16k", 16, 14, 128 },
	{ "64k", 64, 16, 32 },
};

const struct granule *granule_by_name(const char *name)
{
	for (unsigned i = 0; i < GRANULE_COUNT; i++) {
		size_t n = strlen(granules[i].name) - 1;  /* digits only */
		if (!strcasecmp(name, granules[i].name) ||
		    (strlen(name) == n && !strncmp(name, granules[i].name, n)))
			return &granules[i];
	}
	return NULL;
}

const struct granule *granule_by_shift(unsigned page_shift)
{
	for (unsigned i = 0; i < GRANULE_COUNT; i++)
		if (granules[i].page_shift == page_shift)
			return &granules[i];
	return NULL;
}

const struct granule *granule_by_kb(unsigned kb)
{
	for (unsigned i = 0; i < GRANULE_COUNT; i++)
		if (granules[i].kb == kb)
			return &granules[i];
	return NULL;
}

struct pm_str pm_format(uint64_t v, unsigned page_shift)
{
	struct pm_str r;
	if (v == 0) {
		snprintf(r.s, sizeof(r.s), "none");
		return r;
	}
	snprintf(r.s, sizeof(r.s), "%016llx[pfn=%#llx %s%s%s%s%s%s%s]",
		 (unsigned long long)v,
		 (unsigned long long)pm_pfn(v, page_shift),
		 pm_valid(v) ? "V" : "-", pm_cont(v) ? "C" : "-",
		 pm_young(v) ? "A" : "-", pm_write(v) ? "W" : "-",
		 pm_rdonly(v) ? "R" : "-", pm_sw_dirty(v) ? "D" : "-",
		 pm_dirty(v) ? " dirty" : "");
	return r;
}
