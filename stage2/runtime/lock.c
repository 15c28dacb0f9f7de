/*
 * stage2/runtime/lock.c - mmu_lock, an rwlock: a writer-preferring
 * pthread rwlock on real threads (the kernel's queued rwlock is fair to
 * writers), the engine's reader-writer lock on the engine.
 */
#include "stage2/runtime/vm.h"

#ifdef S2_SCHED
#include "engine/sched.h"

/* the engine's lock 0 is the contpte subject's page-table lock */
#define S2_MMU_LOCK 1

void s2_read_lock(void) { eng_read_lock(S2_MMU_LOCK); }
void s2_read_unlock(void) { eng_read_unlock(S2_MMU_LOCK); }
void s2_write_lock(void) { eng_lock(S2_MMU_LOCK); }
void s2_write_unlock(void) { eng_unlock(S2_MMU_LOCK); }
#else
void s2_read_lock(void) { pthread_rwlock_rdlock(&s2_vm.rw); }
void s2_read_unlock(void) { pthread_rwlock_unlock(&s2_vm.rw); }
void s2_write_lock(void) { pthread_rwlock_wrlock(&s2_vm.rw); }
void s2_write_unlock(void) { pthread_rwlock_unlock(&s2_vm.rw); }
#endif
