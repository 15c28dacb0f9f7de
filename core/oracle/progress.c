/*
 * core/oracle/progress.c - property 4, progress (docs/contract.md): once no
 * writer and no hardware agent can change a table, a read of it returns
 * within progress_bound() loads (oracle.h). The stress driver stops them
 * in still phases; on the engine they stand still whenever no other thread
 * can take a step. Both report a read past the bound here.
 */
#include "core/oracle/oracle.h"

#include <stdio.h>

#include "core/access.h"

void progress_report(const struct harness_mm *m, const struct probe *p, uint64_t loads,
		     const char *who, struct violation *out)
{
	const struct read_obs *o = &p->o;
	unsigned shift = m->g->page_shift;
	size_t off = 0;

	out->kind = VK_LIVELOCK;
	snprintf(out->summary, sizeof(out->summary),
		 "livelock: %s made %llu loads on table %u block %u entry %u while nothing else could change the table (bound %llu)",
		 who, (unsigned long long)loads, o->lt, o->block, o->t,
		 (unsigned long long)progress_bound(m->cont));
	off += snprintf(out->detail + off, sizeof(out->detail) - off,
			"  reader %s; the block it keeps retrying on (unchanging):\n",
			o->locked ? "locked (ptep_get)" : "lockless (ptep_get_lockless)");
	for (unsigned j = 0; j < m->cont && off < sizeof(out->detail) - 120; j++)
		off += snprintf(out->detail + off, sizeof(out->detail) - off, "  %3u%s %s\n", j,
				j == o->t ? "*" : " ", pm_format(acc_peek(&p->e[j]), shift).s);
}
