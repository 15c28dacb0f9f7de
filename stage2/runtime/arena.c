/*
 * stage2/runtime/arena.c - table pages: one contiguous arena, a reference
 * count per page, and the exact use-after-free oracle.
 *
 * A page is FREE (never used, or handed back for reuse), LIVE (allocated:
 * a table, a page in a memory cache, the pgd) or QUARANTINE (freed and
 * poisoned, not yet reusable). Each allocation bumps the page's
 * incarnation. Every access to a table page, by the tree's code or by a
 * hardware walker, calls s2_page_check(): a page that is not LIVE is a use
 * after free; a LIVE page whose incarnation differs from the one the
 * thread followed into (a table descriptor it read, turned into a pointer
 * by mm_ops->phys_to_virt, or a walk-cache entry) was freed and reused
 * under the thread, which is a use after free too. The reuse policy
 * decides how soon that can happen: after a quarantine of freed pages
 * (default), at once (LIFO: the worst case), or never.
 */
#include "stage2/runtime/s2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/access.h"
#include "core/rcu.h"

struct s2_arena s2_arena;

/* The poison a freed page is filled with: an invalid entry of no software
 * type the trees use (not LOCKED as a bit or a type field, not counted). */
#define S2_POISON 0xdead0000dead0000ULL

static struct rcu_head *rcu_heads;      /* one per page (free_unlinked_table) */

static void lock(void)
{
	int zero;

	do {
		zero = 0;
	} while (!atomic_compare_exchange_weak(&s2_arena.lock, &zero, 1));
}

static void unlock(void) { atomic_store(&s2_arena.lock, 0); }

int s2_arena_init(unsigned npages, unsigned page_shift, char *err, size_t errlen)
{
	size_t ps = (size_t)1 << page_shift;

	s2_arena_fini();
	s2_arena.page_size = ps;
	s2_arena.npages = npages;
	s2_arena.base = aligned_alloc(ps, ps * npages);
	s2_arena.meta = calloc(npages, sizeof(*s2_arena.meta));
	s2_arena.freelist = calloc(npages, sizeof(int));
	s2_arena.quarantine = calloc(npages, sizeof(int));
	rcu_heads = calloc(npages, sizeof(*rcu_heads));
	if (!s2_arena.base || !s2_arena.meta || !s2_arena.freelist || !s2_arena.quarantine || !rcu_heads) {
		snprintf(err, errlen, "cannot allocate %u table pages of %zu KB", npages, ps >> 10);
		s2_arena_fini();
		return -1;
	}
	memset(s2_arena.base, 0, ps * npages);
	for (unsigned i = 0; i < npages; i++) {
		s2_arena.freelist[i] = (int)(npages - 1 - i);   /* low indexes first */
		atomic_init(&s2_arena.meta[i].parent, -1);
		atomic_init(&s2_arena.meta[i].level, -9);
	}
	s2_arena.nfree = (int)npages;
	s2_arena.qhead = s2_arena.qlen = 0;
	atomic_store(&s2_arena.live, 0);
	atomic_store(&s2_arena.peak, 0);
	atomic_store(&s2_arena.allocs, 0);
	atomic_store(&s2_arena.frees, 0);
	return 0;
}

void s2_arena_fini(void)
{
	free(s2_arena.base);
	free(s2_arena.meta);
	free(s2_arena.freelist);
	free(s2_arena.quarantine);
	free(rcu_heads);
	rcu_heads = NULL;
	memset(&s2_arena, 0, sizeof(s2_arena));
}

/* A page's words through the access layer's harness writes (on the
 * engine's arm model: visible at once, observed by nobody). */
static void fill(int i, uint64_t v)
{
	uint64_t *w = s2_page_addr(i);
	size_t n = s2_arena.page_size / sizeof(uint64_t);

#ifdef S2_SCHED
	for (size_t k = 0; k < n; k++)
		acc_seed(w + k, v);
#else
	for (size_t k = 0; k < n; k++)
		__atomic_store_n(w + k, v, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Pages freed and quarantined go back to the free list (oldest first)
 * once the quarantine holds more than its size. Under the lock. */
static void release_quarantine(unsigned keep)
{
	while (s2_arena.qlen > keep) {
		int i = s2_arena.quarantine[s2_arena.qhead];

		s2_arena.qhead = (s2_arena.qhead + 1) % s2_arena.npages;
		s2_arena.qlen--;
		atomic_store(&s2_arena.meta[i].state, S2P_FREE);
		s2_arena.freelist[s2_arena.nfree++] = i;
	}
}

static void take(int i, const char *why)
{
	struct s2_page *m = &s2_arena.meta[i];
	struct s2_thread *t = s2_self();
	unsigned live;

	(void)why;
	atomic_store(&m->refcount, 1);
	atomic_store(&m->parent, -1);
	atomic_store(&m->parent_idx, -1);
	atomic_store(&m->level, -9);
	m->root = false;
	m->owner = S2_OWN_NONE;
	m->freed_by[0] = 0;
	atomic_fetch_add(&m->incarnation, 1);
	fill(i, 0);
	atomic_store(&m->state, S2P_LIVE);
	s2_follow(t, i, atomic_load(&m->incarnation));
	atomic_fetch_add(&s2_arena.allocs, 1);
	live = atomic_fetch_add(&s2_arena.live, 1) + 1;
	if (live > atomic_load(&s2_arena.peak))
		atomic_store(&s2_arena.peak, live);
}

/* n free pages (contiguous), marked taken: the first, or -1 */
static int find_pages(unsigned n)
{
	int first = -1;

	lock();
	if (n == 1) {
		if (!s2_arena.nfree)
			release_quarantine(0);
		if (s2_arena.nfree)
			first = s2_arena.freelist[--s2_arena.nfree];
	} else {
		/* contiguous pages (a concatenated pgd): a run of free ones */
		for (int pass = 0; pass < 2 && first < 0; pass++) {
			unsigned run = 0;

			for (unsigned i = 0; i < s2_arena.npages; i++) {
				run = atomic_load(&s2_arena.meta[i].state) == S2P_FREE ? run + 1 : 0;
				if (run == n) {
					first = (int)(i + 1 - n);
					break;
				}
			}
			if (first < 0)
				release_quarantine(0);
		}
		if (first >= 0) {
			int k = 0;

			for (int j = 0; j < s2_arena.nfree; j++)
				if (s2_arena.freelist[j] < first || s2_arena.freelist[j] >= first + (int)n)
					s2_arena.freelist[k++] = s2_arena.freelist[j];
			s2_arena.nfree = k;
		}
	}
	if (first >= 0)
		for (unsigned k = 0; k < n; k++)
			atomic_store(&s2_arena.meta[first + k].state, S2P_QUARANTINE);  /* not FREE: being taken */
	unlock();
	return first;
}

void *s2_alloc_pages(unsigned n, const char *why)
{
	int first = find_pages(n);

#ifndef S2_SCHED
	/* pages waiting for a grace period (call_rcu) are no leak: a memory
	 * cache's top-up (with nothing held, or mmu_lock for write: eager
	 * split's; no thread takes mmu_lock inside a read-side section, so
	 * waiting here cannot deadlock) waits for the callbacks and tries
	 * again, as the kernel's allocator would find memory */
	if (first < 0 && !s2_rcu_read_lock_held() &&
	    (s2_self()->held == S2_HELD_NONE || s2_self()->held == S2_HELD_WRITE)) {
		rcu_barrier();
		first = find_pages(n);
	}
#endif
	if (first < 0) {
		s2_report(S2V_LEAK, "  every table page of the arena is in use (stage2: --arena-pages):\n"
			  "  the tree keeps pages it should have freed, or the run needs more\n",
			  "leak: out of table pages allocating %u for %s (%u pages, %u live)", n, why,
			  s2_arena.npages, atomic_load(&s2_arena.live));
		return NULL;
	}
	for (unsigned k = 0; k < n; k++)
		take(first + (int)k, why);
	return s2_page_addr(first);
}

void s2_free_page_now(int i, const char *why, unsigned kind)
{
	struct s2_page *m = &s2_arena.meta[i];
	struct s2_thread *t = s2_self();

	snprintf(m->freed_by, sizeof(m->freed_by), "%s%s%s", t->role, t->op ? " in " : "", t->op ? t->op : why);
	m->freed_at = s2_tick();
	m->free_kind = kind;
	m->owner = S2_OWN_NONE;
	atomic_store(&m->state, S2P_QUARANTINE);
	fill(i, S2_POISON);
	atomic_fetch_sub(&s2_arena.live, 1);
	atomic_fetch_add(&s2_arena.frees, 1);
	lock();
	if (s2_cfg.reuse == S2_REUSE_IMMEDIATE) {
		atomic_store(&m->state, S2P_FREE);
		s2_arena.freelist[s2_arena.nfree++] = i;
	} else {
		s2_arena.quarantine[(s2_arena.qhead + s2_arena.qlen) % s2_arena.npages] = i;
		s2_arena.qlen++;
		if (s2_cfg.reuse == S2_REUSE_QUARANTINE)
			release_quarantine(s2_cfg.quarantine);
	}
	unlock();
}

static const char *state_name(int s)
{
	return s == S2P_FREE ? "back on the free list" : s == S2P_QUARANTINE ? "poisoned, in quarantine" : "live";
}

bool s2_page_check(const void *p, bool store, const char *what)
{
	int i = s2_page_of(p);
	struct s2_page *m = &s2_arena.meta[i];
	struct s2_thread *t = s2_self();
	int st = atomic_load_explicit(&m->state, memory_order_acquire);
	uint32_t inc = atomic_load_explicit(&m->incarnation, memory_order_relaxed);
	uint32_t mine = s2_followed(t, i);
	char detail[1024];

	if (st == S2P_LIVE && (!mine || mine == inc))
		return true;
	snprintf(detail, sizeof(detail),
		 "  %s %s %s entry %zu of table page %d (physical %#llx)\n"
		 "  the page was freed by %s (event %llu)%s; it is now %s%s\n"
		 "  %s\n",
		 t->role, t->hw ? "(its hardware walker)" : "(software)", store ? "wrote" : "read",
		 (size_t)((uintptr_t)p - (uintptr_t)s2_page_addr(i)) / sizeof(uint64_t), i,
		 (unsigned long long)(S2_TABLE_PA_BASE + (uint64_t)i * s2_arena.page_size),
		 m->freed_by[0] ? m->freed_by : "nobody yet", (unsigned long long)m->freed_at,
		 m->free_kind == S2_FREE_EXACT ? " with free_pages_exact" : " (its last reference dropped)",
		 state_name(st),
		 st == S2P_LIVE ? " again (reused: a later incarnation)" : "",
		 t->op ? t->op : "");
	s2_report(S2V_UAF, detail, "use_after_free: %s %s a table page freed under it (%s, in %s)",
		  t->role, store ? "wrote" : "read", what, t->op ? t->op : "no op");
	return false;
}

/* ---- mm_ops ------------------------------------------------------------- */

void *s2_zalloc_page(void *arg)
{
	struct kvm_mmu_memory_cache *mc = arg;
	void *p;

	if (!mc)
		return s2_alloc_pages(1, "zalloc_page");
	if (!mc->nobjs)
		return NULL;
	p = mc->objects[--mc->nobjs];
	s2_arena.meta[s2_page_of(p)].owner = S2_OWN_NONE;
	s2_follow(s2_self(), s2_page_of(p), atomic_load(&s2_arena.meta[s2_page_of(p)].incarnation));
	return p;
}

void *s2_zalloc_pages_exact(size_t size)
{
	unsigned n = (unsigned)((size + s2_arena.page_size - 1) / s2_arena.page_size);

	return s2_alloc_pages(n, "zalloc_pages_exact");
}

void s2_free_pages_exact(void *addr, size_t size)
{
	unsigned n = (unsigned)((size + s2_arena.page_size - 1) / s2_arena.page_size);
	int first = s2_page_of(addr);

	for (unsigned k = 0; k < n; k++) {
		if (!s2_page_check(s2_page_addr(first + (int)k), true, "free_pages_exact"))
			return;
		s2_free_page_now(first + (int)k, "free_pages_exact", S2_FREE_EXACT);
	}
}

void s2_get_page(void *addr)
{
	if (!s2_in_arena(addr)) {
		s2_report(S2V_REFCOUNT, "", "refcount: get_page on %p, which is not a table page", addr);
		return;
	}
	if (s2_page_check(addr, true, "get_page"))
		atomic_fetch_add(&s2_arena.meta[s2_page_of(addr)].refcount, 1);
}

void s2_put_page(void *addr)
{
	int i, r;

	if (!s2_in_arena(addr)) {
		s2_report(S2V_REFCOUNT, "", "refcount: put_page on %p, which is not a table page", addr);
		return;
	}
	if (!s2_page_check(addr, true, "put_page"))
		return;
	i = s2_page_of(addr);
	r = atomic_fetch_sub(&s2_arena.meta[i].refcount, 1) - 1;
	if (r == 0)
		s2_free_page_now(i, "put_page", S2_FREE_PUT);
	else if (r < 0)
		s2_report(S2V_REFCOUNT, "", "refcount: put_page took table page %d below zero", i);
}

int s2_page_count(void *addr)
{
	if (!s2_in_arena(addr) || !s2_page_check(addr, false, "page_count"))
		return 0;
	return atomic_load(&s2_arena.meta[s2_page_of(addr)].refcount);
}

void *s2_phys_to_virt(uint64_t pa)
{
	uint64_t span = (uint64_t)s2_arena.npages * s2_arena.page_size;

	if (pa - S2_TABLE_PA_BASE < span) {
		int i = (int)((pa - S2_TABLE_PA_BASE) / s2_arena.page_size);
		struct s2_thread *t = s2_self();

		/* the incarnation the thread follows into */
		s2_follow(t, i, atomic_load(&s2_arena.meta[i].incarnation));
		return s2_arena.base + (pa - S2_TABLE_PA_BASE);
	}
	return (void *)(uintptr_t)(S2_GUEST_VA_TAG | pa);
}

uint64_t s2_virt_to_phys(void *addr)
{
	if (s2_in_arena(addr))
		return S2_TABLE_PA_BASE + (uint64_t)((char *)addr - s2_arena.base);
	return (uint64_t)(uintptr_t)addr & ~S2_GUEST_VA_TAG;
}

/* ---- deferred frees ------------------------------------------------------ */

static void unlinked_cb(struct rcu_head *head)
{
	int i = (int)(head - rcu_heads);
	struct s2_page *m = &s2_arena.meta[i];
	void (*fn)(void *, int) = (void (*)(void *, int))m->unlinked_fn;
	struct s2_thread *t = s2_self();
	const char *op = t->op, *op_name = t->op_name, *op_fn = t->op_fn;
	enum s2_held held = t->held;

	/* the callback owns the unlinked table: nobody can reach it now; it
	 * walks it from the table itself (no descriptor followed into it) */
	t->op = "free_unlinked_table (RCU callback)";
	t->op_name = "rcu_free";
	t->op_fn = s2_tree.free_unlinked_name;
	t->held = S2_HELD_WRITE;
	m->owner = S2_OWN_NONE;
	/* the incarnation handed to call_rcu: one freed and reused since is
	 * a use after free */
	s2_follow(t, i, m->rcu_inc);
	t->quiet = true;        /* (engine) one step: see stage2/runtime/access.c */
	fn(s2_page_addr(i), m->unlinked_level);
	t->quiet = false;
	t->op = op;
	t->op_name = op_name;
	t->op_fn = op_fn;
	t->held = held;
}

void s2_free_unlinked_deferred(void *addr, int level, void (*fn)(void *addr, int level))
{
	int i;

	if (!s2_in_arena(addr) || !s2_page_check(addr, true, "free_unlinked_table"))
		return;
	i = s2_page_of(addr);
	s2_arena.meta[i].unlinked_level = level;
	s2_arena.meta[i].unlinked_fn = (void *)fn;
	s2_arena.meta[i].owner = S2_OWN_RCU;
	s2_arena.meta[i].rcu_inc = atomic_load(&s2_arena.meta[i].incarnation);
	call_rcu(&rcu_heads[i], unlinked_cb);
}

static void put_rcu_cb(struct rcu_head *head)
{
	int i = (int)(head - rcu_heads);

	s2_arena.meta[i].owner = S2_OWN_NONE;
	s2_follow(s2_self(), i, s2_arena.meta[i].rcu_inc);
	s2_put_page(s2_page_addr(i));
}

void s2_put_page_rcu(void *addr)
{
	int i;

	if (!s2_in_arena(addr) || !s2_page_check(addr, true, "put_page_rcu"))
		return;
	i = s2_page_of(addr);
	s2_arena.meta[i].owner = S2_OWN_RCU;
	s2_arena.meta[i].rcu_inc = atomic_load(&s2_arena.meta[i].incarnation);
	call_rcu(&rcu_heads[i], put_rcu_cb);
}

/* ---- memory caches --------------------------------------------------------- */

int s2_mc_topup(struct kvm_mmu_memory_cache *mc, int min)
{
	if (min > S2_MC_CAPACITY)
		min = S2_MC_CAPACITY;
	mc->capacity = S2_MC_CAPACITY;
	while (mc->nobjs < min) {
		void *p = s2_alloc_pages(1, "memory cache");

		if (!p)
			return -12;
		s2_arena.meta[s2_page_of(p)].owner = S2_OWN_MEMCACHE;
		mc->objects[mc->nobjs++] = p;
	}
	return 0;
}

void s2_mc_free(struct kvm_mmu_memory_cache *mc)
{
	while (mc->nobjs > 0) {
		int i = s2_page_of(mc->objects[--mc->nobjs]);

		s2_arena.meta[i].owner = S2_OWN_NONE;
		atomic_store(&s2_arena.meta[i].refcount, 0);
		s2_free_page_now(i, "memory cache freed", S2_FREE_MEMCACHE);
	}
}
