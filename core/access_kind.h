/*
 * core/access_kind.h - the kinds of shared-memory access the access layer
 * makes: one enum shared by the layer (core/access.h), its backends (the
 * scheduler backend passes them to the engine) and the engine's trace
 * (engine/sched.h extends it with RCU, lock and grace-period events).
 * The values are part of every recorded trace hash: append, never reorder.
 */
#ifndef CORE_ACCESS_KIND_H
#define CORE_ACCESS_KIND_H

enum acc_kind {
	ACC_LOAD,       /* READ_ONCE */
	ACC_STORE,      /* WRITE_ONCE */
	ACC_CMPXCHG,    /* cmpxchg_relaxed */
	ACC_XCHG,       /* xchg_relaxed */
	ACC_OR,         /* atomic OR */
	ACC_ANDNOT,     /* atomic AND-NOT */
	ACC_KIND_COUNT
};

/* The kernel's barriers, for a backend that tells them apart. */
enum acc_barrier {
	ACC_BARRIER_FULL,    /* smp_mb, dsb: DMB ISH / DSB */
	ACC_BARRIER_LOADS,   /* smp_rmb: DMB ISHLD */
	ACC_BARRIER_STORES,  /* smp_wmb: DMB ISHST */
	ACC_BARRIER_ISB,     /* isb */
};

#endif
