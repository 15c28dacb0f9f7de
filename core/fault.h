/*
 * core/fault.h - the faulting agent: a device without hardware access-flag
 * or dirty management (an SMMU, a CPU without FEAT_HAFDBS) beside the
 * HAFDBS agents of core/hw.c.
 *
 * Its table walk reads the one descriptor it translates through, never a
 * gathered view of a block. An access to an entry with AF clear, or a write
 * to one with RDONLY set (DBM does nothing for it), faults, and core-mm's
 * fault path fixes it up: a lockless read of the entry (ptep_get_lockless),
 * then under the PTL, if the arch's ptep_get still matches it, the entry
 * made young (and dirty for a write) through ptep_set_access_flags
 * (core/ops.c: access_flags with OPF_AF_FIXUP, judged like every writer op).
 * Then the device retries. A fix-up that leaves the very entry the device
 * reads without what it needs makes it fault for ever: FAULT_LOOP_BOUND
 * faults in a row on an unchanged entry (the same value read, no software
 * store to it since the last fault, and it still faults in memory) are a
 * fault_loop violation. Stress mode runs it in its own threads
 * (stress/faulter.c), the engine as the script instruction "fault".
 */
#ifndef CORE_FAULT_H
#define CORE_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/mm.h"
#include "core/ops.h"
#include "core/violation.h"

/* Faults on an unchanged entry, each after a fix-up, before fault_loop;
 * and faults of one access after which the device gives up quietly (the
 * entry kept changing: no loop). A correct fix-up changes the entry or
 * finds it changed; a fix-up can find nothing to do only when the block's
 * gathered state moved between the lockless read and the locked one,
 * which needs a new hardware or software update each time. */
#define FAULT_LOOP_BOUND 4
#define FAULT_MAX_TRIES 32

/* How the caller's world locks and stops (stress: pthread mutexes and the
 * stop flag; the engine: eng_lock). w's history observer must be attached
 * (the fix-up is a writer op). */
struct fault_env {
	struct harness_mm *m;
	struct writer_ctx *w;
	struct block_plan *plans;
	void (*lock)(struct fault_env *e, unsigned lt);
	void (*unlock)(struct fault_env *e, unsigned lt);
	bool (*stopping)(struct fault_env *e);
	/* around the fault path's lockless read (NULL: nothing to do): it is
	 * a reader, and a broken reader may spin in it */
	void (*reading)(struct fault_env *e, unsigned lt, unsigned b, unsigned j, bool begin);
	void *data;
	uint64_t fixups;           /* fix-ups made (statistics) */
};

/* One access (write: a write) of the device to entry j of block b of table
 * lt, with its faults and fix-ups. 0 when the access went through (or
 * meets a fault core-mm handles elsewhere: a missing page, a write to a
 * read-only entry), when the entry kept changing, or when the world stops;
 * 1 with out filled on a violation (fault_loop, or the fix-up's verdict,
 * core/ops.h op_verdict). */
int fault_access(struct fault_env *e, unsigned lt, unsigned b, unsigned j, bool write,
		 struct violation *out);

#endif
