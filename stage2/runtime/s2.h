/*
 * stage2/runtime/s2.h - the stage-2 subject's runtime: what a tree's
 * arch/arm64/kvm/hyp/pgtable.c runs on (table pages, the access layer with
 * its checks, RCU, TLB maintenance) and what drives it (the callers of
 * arch/arm64/kvm/mmu.c re-created as ops, the vCPUs' hardware walkers, the
 * ager), with the oracle of docs/stage2.md.
 *
 * Built once per backend, like core/'s runtime: natively with real threads
 * and liburcu (stress), or on the deterministic engine's scheduler
 * (-DS2_SCHED with the engine's access and RCU backends). The tree's own
 * unit is built once per tree and granule and calls only the functions
 * declared here (out of line), so it is the same object on both.
 */
#ifndef STAGE2_RUNTIME_S2_H
#define STAGE2_RUNTIME_S2_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "stage2/runtime/kvm_types.h"

/* ---- the tree's side (defined by stage2/kernel_tree/glue.h) ---------- */

/* Harness encodings of what the ops pass; the glue maps them onto the
 * tree's enums (which move between generations). */
enum { S2_PROT_R = 1, S2_PROT_W = 2, S2_PROT_X = 4 };
enum { S2_WALK_SHARED = 1, S2_WALK_HANDLE_FAULT = 2 };

struct s2_tree {
	const char *source;             /* the pgtable.c built */
	const char *header;             /* its asm/kvm_pgtable.h */
	const char *defined;            /* the driven functions it defines */
	const char *adapters;           /* the API generation, as adapters used */
	const char *warnings;           /* what the kernel's policy only warns about */
	unsigned page_shift;
	int first_level, last_level, min_block_level;
	bool age_is_range;              /* test_clear_young (else mkold/is_young at one address) */
	bool age_takes_flags;           /* its aging walk takes walk flags (lockless-aging trees) */
	bool has_split;
	bool relax_takes_flags, mkyoung_takes_flags;
	bool locked_is_type;            /* the LOCKED marker is a type field (else a bit) */
	const char *free_unlinked_name; /* its kvm_pgtable_stage2_free_unlinked (or _free_removed) */
	int (*init)(struct kvm_s2_mmu *mmu, bool fwb_off);
	void (*destroy)(struct kvm_pgtable *pgt);
	/* the pgd as the harness's walkers see it */
	void (*geometry)(struct kvm_pgtable *pgt, uint64_t **pgd, int *start_level, unsigned *ia_bits);
	int (*map)(struct kvm_pgtable *pgt, uint64_t ipa, uint64_t size, uint64_t pa, unsigned prot,
		   void *mc, unsigned flags);
	int (*relax)(struct kvm_pgtable *pgt, uint64_t ipa, unsigned prot, unsigned flags);
	void (*mkyoung)(struct kvm_pgtable *pgt, uint64_t ipa, unsigned flags);
	int (*unmap)(struct kvm_pgtable *pgt, uint64_t ipa, uint64_t size);
	int (*wrprotect)(struct kvm_pgtable *pgt, uint64_t ipa, uint64_t size);
	/* kvm_age_gfn / kvm_test_age_gfn over [ipa, ipa + size) as the tree's
	 * generation of mmu.c calls it */
	bool (*age)(struct kvm_pgtable *pgt, uint64_t ipa, uint64_t size, bool mkold, unsigned flags);
	int (*split)(struct kvm_pgtable *pgt, uint64_t ipa, uint64_t size, struct kvm_mmu_memory_cache *mc);
	int (*flush)(struct kvm_pgtable *pgt, uint64_t ipa, uint64_t size);
	/* the tree's own software conventions for invalid entries */
	bool (*is_locked)(uint64_t desc);
	bool (*is_counted)(uint64_t desc);
	/* calls into each driven function (stage2/kernel_tree/glue.h) */
	unsigned nfuncs;
	const char *const *func_names;
	_Atomic uint64_t *func_calls;
};
extern const struct s2_tree s2_tree;

/* What the tree is called in reports: the tools' name for it (the user's
 * path, and the patch applied; S2_TREE_DESC), else the probe's source path. */
static inline const char *s2_tree_desc(void)
{
	const char *d = getenv("S2_TREE_DESC");

	return d && *d ? d : s2_tree.source;
}

/* ---- configuration ----------------------------------------------------- */

enum s2_age_lock { S2_AGE_WRITE, S2_AGE_READ, S2_AGE_NONE };
enum s2_reuse { S2_REUSE_QUARANTINE, S2_REUSE_IMMEDIATE, S2_REUSE_NEVER };

struct s2_cfg {
	unsigned blocks;                /* the IPA window: this many blocks of the lowest block level */
	enum s2_age_lock age_lock;
	bool age_rcu;                   /* the ager's own RCU read side without the lock for write */
	bool hw_af;                     /* hardware access-flag management (VTCR_EL2.HA) */
	bool fwb, tlb_range;            /* CPU features the tree asks about */
	bool ttl_ignored;               /* TLBI level hints (TTL) ignored, as many CPUs do:
	                                 * a wrong hint then costs nothing */
	enum s2_reuse reuse;
	unsigned quarantine;            /* freed pages held back before reuse */
	unsigned arena_pages;
	unsigned tlb_entries;           /* per vCPU; 0: no TLB model (every access walks) */
	unsigned age_max_pages;         /* the ager's ranges, at most */
	uint64_t seed;
	/* stress only: after one load of an entry in 2^delay_shift, a software
	 * walker pauses (up to delay_spins spins), widening race windows;
	 * 0: never */
	unsigned delay_shift, delay_spins;
};
extern struct s2_cfg s2_cfg;

/* ---- violations -------------------------------------------------------- */

enum s2_vkind {
	S2V_NONE,
	S2V_UAF,            /* use_after_free: a table page touched after it was freed */
	S2V_RCU,            /* rcu_unprotected: a table walked with neither the lock for write nor RCU */
	S2V_BBM,            /* bbm_violation: valid to valid without break, invalidation and DSB */
	S2V_LOST_UPDATE,    /* lost_update: a store over a change made since the storer read the entry */
	S2V_LOCKED_OVERWRITE, /* locked_overwrite: a store over another walker's LOCKED entry */
	S2V_RESURRECTION,   /* resurrection: an entry another walker cleared made valid from its old value */
	S2V_REFCOUNT,       /* refcount: a table page's count is not one plus its counted entries */
	S2V_LEAK,           /* leak: a table page alive that nothing owns */
	S2V_DIRTY_LOG,      /* dirty_log_lost: a guest write after write-protect that did not fault */
	S2V_AGING_MISS,     /* aging_miss: aging said old with an access and nothing racing */
	S2V_STALE_TLB,      /* stale_tlb_access: an access through a translation a completed op removed */
	S2V_WARN,           /* kernel_warn: the tree's own WARN_ON fired */
	S2V_HANG,           /* hang: an op did not return */
	S2V_CRASH,          /* crash: the subject's code faulted */
	S2V_COUNT
};

const char *s2_vkind_name(enum s2_vkind k);
enum s2_vkind s2_vkind_by_name(const char *name);

struct s2_violation {
	enum s2_vkind kind;
	char op[32], fn[64];            /* its signature kind:op:fn (s2_signature) */
	char where[96];                 /* file:line when the tree's code names it, else "-" */
	double at_s;                    /* seconds since s2_report_reset */
	char summary[320];
	char detail[4096];
};

/* The first violation of a run (later ones are counted, not kept). */
extern struct s2_violation s2_found;
extern _Atomic int s2_nfound;
/* Report a violation (the first one is kept; the run stops), unless its
 * signature is known (s2_known_add): then it is counted and the run goes
 * on. s2_report_at: with the file:line the tree's code names. */
void s2_report(enum s2_vkind k, const char *detail, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void s2_report_at(enum s2_vkind k, const char *where, const char *detail, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline bool s2_stopping(void) { return atomic_load_explicit(&s2_nfound, memory_order_relaxed) != 0; }
/* Forget the last run's violation (the engine runs many). */
void s2_report_reset(void);
/* Where reports go besides s2_found: the engine ends the run. */
extern void (*s2_on_report)(void);

/* ---- harness threads ---------------------------------------------------- */

/* What a harness thread holds while it runs the tree's code: mmu_lock for
 * read or for write, or ownership of what it walks (the VM's set-up and
 * teardown, an RCU callback freeing an unlinked table). */
enum s2_held { S2_HELD_NONE, S2_HELD_READ, S2_HELD_WRITE, S2_HELD_OWNER };

#define S2_SEEN 64                  /* last values a thread saw, direct-mapped */
#define S2_PEND 32                  /* stores a thread's judgement waits for */
#define S2_MAX_THREADS 16

struct s2_thread {
	unsigned id;
	char role[24];                  /* "vcpu0", "exclusive", "ager", ... */
	enum s2_held held;              /* what it holds of mmu_lock */
	bool hw;                        /* a hardware walker's access */
	bool storing_cas;               /* (engine) the store being observed is a cmpxchg */
	bool quiet;                     /* (engine) its accesses take no scheduling point:
	                                 * an RCU callback freeing a table it owns */
	const char *op;                 /* the mmu.c caller it runs, for reports */
	const char *op_name;            /* the harness's name of that op, and the tree */
	const char *op_fn;              /* function it calls: a finding's signature */
	uint64_t op_no;
	struct { const uint64_t *p; uint64_t v; } seen[S2_SEEN];
	/* (engine, arm memory) its plain stores not yet visible, oldest
	 * first, each with what the thread had seen of the entry when it
	 * stored: the store is judged when it becomes visible, and by then the
	 * thread's own later loads see the store itself */
	struct { const uint64_t *p; uint64_t seen; bool has; } pend[S2_PEND];
	unsigned npend;
	uint32_t *follow;               /* per table page: incarnation it followed into (0: none) */
	unsigned follow_n;              /* its size: the arena's pages when attached */
	uint64_t rng;
	uint64_t ops, faults, retries;
	struct s2_vcpu *vcpu;           /* the vCPU this thread is, if it is one */
};
struct s2_vcpu;

/* The incarnation t followed into page i (0: none), and recording it:
 * bounded by the array the thread was attached with. */
static inline uint32_t s2_followed(const struct s2_thread *t, int i)
{
	return t->follow && (unsigned)i < t->follow_n ? t->follow[i] : 0;
}
static inline void s2_follow(struct s2_thread *t, int i, uint32_t inc)
{
	if (t->follow && (unsigned)i < t->follow_n)
		t->follow[i] = inc;
}

/* The calling harness thread (a lazily made one for threads the harness
 * did not start, such as liburcu's callback thread). */
struct s2_thread *s2_self(void);
void s2_thread_attach(struct s2_thread *t, unsigned id, const char *role);
void s2_thread_detach(void);
/* An op begins: what the thread saw before is forgotten. caller: the
 * mmu.c function it re-creates; name and fn: the harness's name of the op
 * and the tree's function it calls (stage2/runtime/finding.c). */
void s2_op_begin(struct s2_thread *t, const char *name, const char *caller, const char *fn, enum s2_held held);
void s2_op_end(struct s2_thread *t);

/* ---- table pages (stage2/runtime/arena.c) ------------------------------- */

enum s2_page_state { S2P_FREE, S2P_LIVE, S2P_QUARANTINE };

struct s2_page {
	_Atomic int refcount;
	_Atomic int state;              /* enum s2_page_state */
	_Atomic uint32_t incarnation;   /* bumped at every allocation */
	/* where it sits in the tree: set when a table entry pointing to it is
	 * stored, cleared when that entry is overwritten */
	_Atomic int parent;             /* page index, -1: none (a root or unlinked) */
	_Atomic int parent_idx;
	_Atomic int level;              /* its entries' level, if known (else -9) */
	bool root;                      /* part of the pgd */
	unsigned owner;                 /* who holds it outside a table: S2_OWN_* */
	/* how it was freed, for the use-after-free report */
	char freed_by[48];
	uint64_t freed_at;              /* s2_clock at the free */
	unsigned free_kind;             /* S2_FREE_* */
	/* call_rcu for free_unlinked_table */
	struct { void *next, *func; uint64_t seq; } rcu_space[2];
	int unlinked_level;
	void *unlinked_fn;
	uint32_t rcu_inc;               /* its incarnation when its free was deferred */
};
enum { S2_OWN_NONE, S2_OWN_MEMCACHE, S2_OWN_RCU };
enum { S2_FREE_PUT, S2_FREE_EXACT, S2_FREE_MEMCACHE };

struct s2_arena {
	char *base;
	size_t page_size;
	unsigned npages;
	struct s2_page *meta;
	_Atomic int lock;
	int *freelist, nfree;           /* indexes, LIFO */
	int *quarantine;                /* FIFO ring */
	unsigned qhead, qlen;
	_Atomic unsigned live, peak;
	_Atomic uint64_t allocs, frees;
};
extern struct s2_arena s2_arena;

/* The physical addresses of table pages and of guest memory. */
#define S2_TABLE_PA_BASE 0x80000000ULL
#define S2_GUEST_PA_BASE 0x1000000000ULL
/* phys_to_virt of a guest page: a tagged cookie (cache maintenance only) */
#define S2_GUEST_VA_TAG 0x5a00000000000000ULL

int s2_arena_init(unsigned npages, unsigned page_shift, char *err, size_t errlen);
void s2_arena_fini(void);
static inline bool s2_in_arena(const void *p)
{
	return (uintptr_t)p - (uintptr_t)s2_arena.base < (uintptr_t)s2_arena.npages * s2_arena.page_size;
}
static inline int s2_page_of(const void *p)
{
	return (int)(((uintptr_t)p - (uintptr_t)s2_arena.base) / s2_arena.page_size);
}
static inline void *s2_page_addr(int i) { return s2_arena.base + (size_t)i * s2_arena.page_size; }
void *s2_alloc_pages(unsigned n, const char *why);
void s2_free_page_now(int i, const char *why, unsigned kind);
/* mm_ops (stage2/kernel_tree/glue.h calls these) */
void *s2_zalloc_page(void *mc);
void *s2_zalloc_pages_exact(size_t size);
void s2_free_pages_exact(void *addr, size_t size);
void s2_get_page(void *addr);
void s2_put_page(void *addr);
int s2_page_count(void *addr);
void *s2_phys_to_virt(uint64_t pa);
uint64_t s2_virt_to_phys(void *addr);
void s2_dcache_clean_inval_poc(void *addr, size_t size);
void s2_icache_inval_pou(void *addr, size_t size);
/* free_unlinked_table: the table is freed by fn(addr, level) after a grace
 * period (mmu.c's stage2_free_unlinked_table: call_rcu) */
void s2_free_unlinked_deferred(void *addr, int level, void (*fn)(void *addr, int level));
/* put_page_rcu: a put after a grace period */
void s2_put_page_rcu(void *addr);
/* memory caches: topped up outside the lock, freed at the end */
int s2_mc_topup(struct kvm_mmu_memory_cache *mc, int min);
void s2_mc_free(struct kvm_mmu_memory_cache *mc);

/* The check every access to a table page makes (software and hardware):
 * false, with the violation reported, if the page is not live or is not
 * the incarnation the thread followed into. */
bool s2_page_check(const void *p, bool store, const char *what);

/* ---- the access layer of the tree's unit (stage2/runtime/access.c) ----- */

uint64_t s2_read_once(const uint64_t *p);
void s2_write_once(uint64_t *p, uint64_t v);
uint64_t s2_cmpxchg_relaxed(uint64_t *p, uint64_t old, uint64_t new);
uint64_t s2_cmpxchg(uint64_t *p, uint64_t old, uint64_t new);
uint64_t s2_xchg(uint64_t *p, uint64_t v);
void s2_store_release(uint64_t *p, uint64_t v);
uint64_t s2_load_acquire(const uint64_t *p);
void s2_mb(void);
void s2_rmb(void);
void s2_wmb(void);
void s2_dsb(void);
void s2_isb(void);
/* a plain C read or write of 8 bytes the tree made (`*ptep`), when its
 * unit is built with load/store tracing */
void s2_plain_access(const void *p, unsigned size, bool store, void *pc);

/* RCU as the tree sees it */
void s2_rcu_read_lock(void);
void s2_rcu_read_unlock(void);
bool s2_rcu_read_lock_held(void);
/* rcu_dereference_check(p, c): p, after checking c or a read-side section */
void *s2_rcu_dereference_check(void *p, bool c, const char *file, int line);

/* WARN_ON and friends: the tree's own checks are violations */
void s2_kernel_warn(const char *file, int line, const char *cond);
void s2_kernel_bug(const char *file, int line, const char *cond) __attribute__((noreturn));

/* ---- the hardware's side ------------------------------------------------ */

/* A hardware walker's read of a descriptor, and its access-flag update. */
uint64_t s2_hw_load(const uint64_t *p);
bool s2_hw_set_af(uint64_t *p, uint64_t old);

/* Architectural decoding of stage-2 descriptors (no software conventions). */
#define S2_DESC_VALID 1ULL
#define S2_DESC_TYPE 2ULL
#define S2_DESC_S2AP_R (1ULL << 6)
#define S2_DESC_S2AP_W (1ULL << 7)
#define S2_DESC_AF (1ULL << 10)
static inline unsigned s2_level_shift(int level) { return (s2_tree.page_shift - 3) * (4 - level) + 3; }
static inline uint64_t s2_level_size(int level) { return 1ULL << s2_level_shift(level); }
static inline unsigned s2_ptrs(void) { return 1u << (s2_tree.page_shift - 3); }
static inline bool s2_desc_valid(uint64_t d) { return d & S2_DESC_VALID; }
static inline bool s2_desc_table(uint64_t d, int level)
{
	return level < 3 && (d & (S2_DESC_VALID | S2_DESC_TYPE)) == (S2_DESC_VALID | S2_DESC_TYPE);
}
uint64_t s2_desc_pa(uint64_t d);

/* ---- the clock of events (sequence numbers) ----------------------------- */
extern _Atomic uint64_t s2_clock;
static inline uint64_t s2_tick(void) { return atomic_fetch_add(&s2_clock, 1) + 1; }
static inline uint64_t s2_now(void) { return atomic_load(&s2_clock); }

#endif
