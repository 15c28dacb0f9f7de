/*
 * stage2/runtime/internal.h - what the runtime's files share with each
 * other and with the drivers (stage2/stress/, stage2/engine/), not with
 * a tree's unit.
 */
#ifndef STAGE2_RUNTIME_INTERNAL_H
#define STAGE2_RUNTIME_INTERNAL_H

#include "stage2/runtime/s2.h"

/* "on" or "off" into *b; false (and *b untouched) for anything else: the
 * drivers' switches and the programs' configuration lines. */
bool s2_parse_on_off(const char *w, bool *b);

/* Counts the report prints. */
struct s2_counters {
	_Atomic uint64_t af_lost;        /* hardware access flags lost by exclusive walkers (accepted) */
	_Atomic uint64_t cmo;            /* cache maintenance calls */
	_Atomic uint64_t tlbi_ipa, tlbi_ipa_nsh, tlbi_vmid, tlbi_range;
	_Atomic uint64_t deferred_frees;
	/* guest faults (user_mem_abort, lock wait included), real threads
	 * only: a histogram of their latency by power of two of nanoseconds */
	_Atomic uint64_t fault_ns[48], fault_ns_sum, faults_timed;
};

/* The fault latency quantile q (0..1) in nanoseconds: the upper bound of
 * its histogram bucket; 0 if nothing was timed. */
uint64_t s2_fault_latency_ns(double q);
extern struct s2_counters s2_count;

/* An entry's store and its judgement are one step for the entry: a reader
 * of both takes the same lock (real threads; no-ops on the engine). */
void s2_entry_lock(const uint64_t *p);
void s2_entry_unlock(const uint64_t *p);

/* per-entry state, sized for the arena (after s2_arena_init) */
void s2_entries_init(void);
/* the thread holding the entry LOCKED (-1: none) */
int s2_locked_owner(const uint64_t *p);

/* Where each table page sits in the tree (arena.c's meta): recorded on
 * every store of or over a table descriptor. */
void s2_link_store(struct s2_thread *t, uint64_t *p, uint64_t old, uint64_t new);
/* The level of a page's entries and the IPA of its first entry, if the
 * page is linked to a root; false if not (unlinked, or being built). */
bool s2_page_place(int page, int *level, uint64_t *ipa);
/* A descriptor that points to a table page of the arena. */
bool s2_desc_points_to_table(uint64_t d, int *page);

/* The break-before-make monitor (stage2/runtime/bbm.c). */
void s2_bbm_init(void);
void s2_bbm_store(struct s2_thread *t, uint64_t *p, uint64_t old, uint64_t new);
/* May a TLB still translate through cached (read from entry p at level)?
 * Yes if the entry still holds that translation, or a break of it is
 * pending (no invalidation covering it has completed yet). */
bool s2_bbm_allows(const uint64_t *p, uint64_t cached, int level);
bool s2_same_translation(uint64_t a, uint64_t b, int level);

#include <unistd.h>
static inline void pause_forever(void)
{
	for (;;)
		sleep(1);
}

#endif
