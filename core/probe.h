/*
 * core/probe.h - one judged read: the window protocol of core/oracle.h
 * around a reader call, shared by the stress driver's reader threads and
 * the deterministic engine's READ steps.
 *
 *   ptep = probe_open(...)     window start, rcu_read_lock, table, P
 *   R = reader(ptep)           the variant's ptep_get[_lockless]
 *   probe_close(..., R)        Q, window end, rcu_read_unlock
 *   probe_judge(...)           use-after-free check, then oracle_judge
 *
 * A locked read takes the table's PTL around all of it (the caller's lock).
 */
#ifndef CORE_PROBE_H
#define CORE_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/mm.h"
#include "core/oracle.h"
#include "core/violation.h"

struct probe {
	struct read_obs o;
	struct slot_hdr *slot;
	uint64_t *e;                /* the block's entries in the page read */
	uint32_t gen, gen2, state;
};

uint64_t *probe_open(struct harness_mm *m, struct probe *p, unsigned lt, unsigned block,
		     unsigned t, bool locked);
void probe_close(struct harness_mm *m, struct probe *p, uint64_t R);
/* Leave the read-side section of a read that will never return. */
void probe_abandon(struct probe *p);
enum verdict probe_judge(struct harness_mm *m, struct probe *p, struct violation *out,
			 struct judge_stats *st);

#endif
