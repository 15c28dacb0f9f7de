/*
 * core/oob.h - out-of-bounds accesses are a report, not a crash.
 *
 * A subject's writer op may store only to its own block (the write window
 * of the access layer, core/access.h, which core/ops.c's op_run sets: a
 * store outside it is stopped before it happens). A load or a plain store
 * that runs off the table pages into the guard pages (core/mm.c) or out of
 * the segment faults: oob_install's handler sends SIGSEGV/SIGBUS in a
 * thread with a recovery point (acc_self.guard->recover: a read in
 * progress, an op in progress) back there with the value OOB_SIGSEGV or
 * OOB_SIGBUS and the address in its guard's fault_addr, and the caller reports an
 * out_of_bounds violation. A fault anywhere else (the harness's own code)
 * keeps the default action.
 */
#ifndef CORE_OOB_H
#define CORE_OOB_H

#define OOB_SIGSEGV 3
#define OOB_SIGBUS 4

/* Install the handler (idempotent; hmm_create calls it). */
void oob_install(void);

#endif
