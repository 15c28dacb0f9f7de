/* engine/memory.c - the ARMv8 model (see engine/memory.h,
 * docs/memory-model.md). One run at a time; every call is made from the
 * engine's one OS thread. */
#include "engine/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sched.h"

const char *const mem_model_names[MEM_MODEL_COUNT] = { "sc", "arm" };

enum mem_model mem_model_by_name(const char *name)
{
	for (int i = 0; i < MEM_MODEL_COUNT; i++)
		if (!strcmp(name, mem_model_names[i]))
			return (enum mem_model)i;
	return MEM_MODEL_COUNT;
}

#define MAX_LOCS 8192             /* locations touched in one run */
#define HASH_SLOTS (2 * MAX_LOCS)
#define MAX_MSGS (1u << 21)       /* writes in one run (the step limit is far below) */
#define MAX_BUF 4096              /* stores a thread may have buffered */
#define DRAIN_WINDOW 8            /* a drain picks among the first eligible stores */
#define MAX_CANDIDATES 64         /* newest messages a load may choose among (at most 64: same_value's mask) */
#define NONE 0xffffffffu
/* Hold-back levels 0-3: at level k a store is held back when its choice
 * among HOLD_LEVELS is one of the top k (eng_choose's stream takes 0 half
 * the time: level 0 never, level 3 half the time). */
#define HOLD_LEVELS 4

struct msg {
	uint64_t val;
	uint32_t loc;
	uint32_t prev;            /* the previous message of the location, or NONE */
	uint32_t source;          /* who wrote it (mem_last_source) */
};

struct loc {
	uint64_t *addr;
	uint32_t hslot;                    /* its slot in hash[] */
	uint32_t last;                     /* newest message */
	uint32_t coh[ENG_MAX_THREADS];     /* per thread: newest observed (a view) */
	uint16_t nbuf[ENG_MAX_THREADS];    /* per thread: stores to it buffered */
	uint16_t held[ENG_MAX_THREADS];    /* per thread: of those, held-back ones
					    * in the scanned part of its buffer */
	uint32_t mark;                     /* scans: seen in scan number mark */
};

struct buffered {
	uint64_t *p;
	uint64_t v;
	uint32_t loc, source;
	bool observed;
	bool delayed;             /* stays buffered until a barrier or the end */
};

struct thread_views {
	uint32_t vr_old, vw_old;   /* views of the reads / writes made so far */
	uint32_t vr_new, vw_new;   /* what later reads / writes must respect */
	uint32_t v_rel;            /* the last release store */
	uint32_t v_cap;            /* control dependencies (ISB orders them) */
	bool explicit_ctrl;        /* litmus: control dependencies are given; C code:
				    * any load may feed a branch */
	uint32_t dep;              /* address dependency of the next access */
	uint32_t last_view, last_source;
	int hold_level;            /* -1 not chosen yet; else 0-3: how often stores are held back */
	/* the buffer: entries [first, end) of buf, in program order; gone ones
	 * (already visible) are skipped; nbuf live ones */
	struct buffered buf[MAX_BUF];
	bool gone[MAX_BUF];
	/* of a gone entry: an index past it, at or before the next live
	 * entry (live_from's shortcuts: scans step over runs of gone entries,
	 * which a store held back early can make as long as the buffer) */
	uint16_t skip[MAX_BUF];
	/* mem_propagate's progress: every prompt store in [first, scanned)
	 * waits behind a held-back store of its location there (counted in
	 * its location's held), so the next scan starts at scanned; unless
	 * rescan: a held-back store there became visible since */
	unsigned scanned;
	bool rescan;
	unsigned first, end, nbuf, nprompt;
};

static struct msg *msgs;
static uint32_t nmsgs;
static struct loc locs[MAX_LOCS];
static unsigned nlocs;
static uint32_t hash[HASH_SLOTS];           /* loc index + 1; 0 empty */
static struct thread_views th[ENG_MAX_THREADS];
static unsigned nprompt_all;                /* the sum of every thread's nprompt */
static uint32_t lock_view[ENG_MAX_LOCKS];
static uint32_t gp_view;
static struct mem_stats stats;

static inline uint32_t vmax(uint32_t a, uint32_t b) { return a > b ? a : b; }

void mem_reset(void)
{
	if (!msgs && !(msgs = malloc(MAX_MSGS * sizeof(*msgs))))
		abort();
	for (unsigned i = 0; i < nlocs; i++)
		hash[locs[i].hslot] = 0;
	nlocs = 0;
	nmsgs = 1;                       /* timestamp 0: before everything */
	for (unsigned t = 0; t < ENG_MAX_THREADS; t++) {
		struct thread_views *T = &th[t];

		T->vr_old = T->vw_old = T->vr_new = T->vw_new = T->v_rel = T->v_cap = 0;
		T->dep = T->last_view = T->last_source = 0;
		T->explicit_ctrl = false;
		T->hold_level = -1;
		T->first = T->end = T->nbuf = T->nprompt = T->scanned = 0;
		T->rescan = false;
	}
	nprompt_all = 0;
	memset(lock_view, 0, sizeof(lock_view));
	gp_view = 0;
	memset(&stats, 0, sizeof(stats));
}

static uint32_t append(uint32_t l, uint64_t v, uint32_t source)
{
	uint32_t t = nmsgs;

	if (t == MAX_MSGS)
		abort();                 /* unreachable below the step limit */
	nmsgs++;
	msgs[t] = (struct msg){ .val = v, .loc = l, .prev = locs[l].last, .source = source };
	locs[l].last = t;
	*(volatile uint64_t *)locs[l].addr = v;   /* memory holds the newest write */
	return t;
}

/* The location at p, made on first use with its current value as its
 * first message (the oldest: every view allows it until a newer one). */
static uint32_t loc_of(const uint64_t *p, bool create)
{
	uintptr_t h = ((uintptr_t)p >> 3) % HASH_SLOTS;

	while (hash[h]) {
		if (locs[hash[h] - 1].addr == p)
			return hash[h] - 1;
		h = (h + 1) % HASH_SLOTS;
	}
	if (!create)
		return NONE;
	if (nlocs == MAX_LOCS)
		abort();
	uint32_t l = nlocs++;

	locs[l].addr = (uint64_t *)p;
	locs[l].hslot = (uint32_t)h;
	locs[l].last = NONE;
	memset(locs[l].coh, 0, sizeof(locs[l].coh));
	memset(locs[l].nbuf, 0, sizeof(locs[l].nbuf));
	memset(locs[l].held, 0, sizeof(locs[l].held));
	locs[l].mark = 0;
	hash[h] = l + 1;
	append(l, *(const volatile uint64_t *)p, 0);
	return l;
}

/* ---- making buffered stores visible --------------------------------------- */
static uint64_t (*commit_before)(unsigned tid, uint64_t *p, bool observed);
static void (*commit_after)(unsigned tid, uint64_t token, uint64_t *p, uint64_t before,
			    uint64_t after, bool observed);

void mem_set_commit_hooks(uint64_t (*before)(unsigned tid, uint64_t *p, bool observed),
			  void (*after)(unsigned tid, uint64_t token, uint64_t *p, uint64_t before,
					uint64_t after, bool observed))
{
	commit_before = before;
	commit_after = after;
}

static void commit(unsigned tid, unsigned i)
{
	struct thread_views *T = &th[tid];
	struct buffered b = T->buf[i];
	uint64_t tok = commit_before ? commit_before(tid, b.p, b.observed) : 0, before = *b.p;
	uint32_t t;

	if (i != T->first)
		stats.reordered_commits++;
	T->gone[i] = true;
	T->skip[i] = (uint16_t)(i + 1);
	T->nbuf--;
	T->nprompt -= !b.delayed;
	nprompt_all -= !b.delayed;
	locs[b.loc].nbuf[tid]--;
	if (b.delayed && i < T->scanned) {
		locs[b.loc].held[tid]--;
		T->rescan = true;       /* what waited behind it may go now */
	}
	while (T->first < T->end && T->gone[T->first])
		T->first++;
	if (!T->nbuf)
		T->first = T->end = T->scanned = 0;
	t = append(b.loc, b.v, b.source);
	locs[b.loc].coh[tid] = t;
	T->vw_old = vmax(T->vw_old, t);
	if (commit_after)
		commit_after(tid, tok, b.p, before, b.v, b.observed);
}

static uint32_t scan_mark;

/* The first live entry of T's buffer at or after i, or T->end; the gone
 * entries passed are pointed straight at it. */
static unsigned live_from(struct thread_views *T, unsigned i)
{
	unsigned j = i;

	while (j < T->end && T->gone[j])
		j = T->skip[j];
	while (i < j && T->gone[i]) {
		unsigned n = T->skip[i];

		T->skip[i] = (uint16_t)j;
		i = n;
	}
	return j;
}

/* The first (up to max) buffered stores that may become visible next: the
 * oldest of each location (a location's stores stay in program order). */
static unsigned eligible(unsigned tid, unsigned *idx, unsigned max)
{
	struct thread_views *T = &th[tid];
	unsigned n = 0;

	scan_mark++;
	for (unsigned i = live_from(T, T->first); i < T->end && n < max; i = live_from(T, i + 1)) {
		struct loc *L = &locs[T->buf[i].loc];

		if (L->mark == scan_mark)
			continue;
		L->mark = scan_mark;
		idx[n++] = i;
	}
	return n;
}

bool mem_propagate_due(void)
{
	if (__builtin_expect(eng.check_caches, 0)) {
		unsigned sum = 0;

		for (unsigned tid = 0; tid < ENG_MAX_THREADS; tid++)
			sum += th[tid].nprompt;
		if (sum != nprompt_all) {
			fprintf(stderr, "engine: the count of stores due is %u, the threads' sum %u\n",
				nprompt_all, sum);
			abort();
		}
	}
	return nprompt_all != 0;
}

void mem_propagate(unsigned nthreads)
{
	for (unsigned tid = 0; tid < nthreads; tid++) {
		struct thread_views *T = &th[tid];
		unsigned i;

		if (!T->nprompt)
			continue;
		if (T->rescan) {
			/* scan it all again */
			for (i = live_from(T, T->first); i < T->scanned; i = live_from(T, i + 1))
				if (T->buf[i].delayed)
					locs[T->buf[i].loc].held[tid]--;
			T->scanned = T->first;
			T->rescan = false;
		}
		/* every store not held back becomes visible, oldest first;
		 * behind a held-back store of its location it waits too */
		for (i = live_from(T, vmax(T->scanned, T->first)); i < T->end && T->nprompt;
		     i = live_from(T, i + 1)) {
			struct loc *L = &locs[T->buf[i].loc];

			if (T->buf[i].delayed)
				L->held[tid]++;         /* blocks its location */
			else if (!L->held[tid])
				commit(tid, i);
		}
		T->scanned = T->nbuf ? i : 0;
	}
}

void mem_drain_all(unsigned nthreads)
{
	unsigned idx[DRAIN_WINDOW], who[ENG_MAX_THREADS], n;

	for (;;) {
		n = 0;
		for (unsigned tid = 0; tid < nthreads; tid++)
			if (th[tid].nbuf)
				who[n++] = tid;
		if (!n)
			return;
		/* whose store, and which of its first eligible ones, next */
		unsigned tid = who[eng_choose(n)];

		commit(tid, idx[eng_choose(eligible(tid, idx, DRAIN_WINDOW))]);
	}
}

void mem_drain(unsigned tid)
{
	unsigned idx[DRAIN_WINDOW];

	while (th[tid].nbuf)
		commit(tid, idx[eng_choose(eligible(tid, idx, DRAIN_WINDOW))]);
}

static void drain_loc(unsigned tid, uint32_t l)
{
	struct thread_views *T = &th[tid];

	for (unsigned i = live_from(T, T->first); i < T->end && locs[l].nbuf[tid];
	     i = live_from(T, i + 1))
		if (T->buf[i].loc == l)
			commit(tid, i);
}

unsigned mem_buffered(unsigned tid) { return th[tid].nbuf; }

void mem_drain_loc(unsigned tid, const uint64_t *p)
{
	uint32_t l = loc_of(p, false);

	if (l != NONE)
		drain_loc(tid, l);
}

/* ---- accesses --------------------------------------------------------------- */
static void after_read(struct thread_views *T, unsigned tid, uint32_t l, uint32_t vpost,
		       enum mem_order o)
{
	locs[l].coh[tid] = vmax(locs[l].coh[tid], vpost);
	T->vr_old = vmax(T->vr_old, vpost);
	if (!T->explicit_ctrl)
		T->v_cap = vmax(T->v_cap, vpost);
	if (o == MO_ACQUIRE || o == MO_ACQUIRE_PC) {
		T->vr_new = vmax(T->vr_new, vpost);
		T->vw_new = vmax(T->vw_new, vpost);
	}
	T->last_view = vpost;
	T->dep = 0;
}

/* A load's options that read what option c reads: the candidates of the
 * same value (the view each leaves differs, so an older one may still
 * change a later load: the mutator prefers the others, it does not rule
 * these out). */
static uint64_t same_value(unsigned c, unsigned n, const void *ctx)
{
	const uint32_t *cand = ctx;
	uint64_t alike = 0;

	for (unsigned j = 0; j < n; j++)
		if (msgs[cand[j]].val == msgs[cand[c]].val)
			alike |= 1ull << j;
	return alike;
}

/* A store's hold-back options that do what option c does: at level k the
 * top k hold it back, the others do not (level 0: all alike). */
static uint64_t same_hold(unsigned c, unsigned n, const void *ctx)
{
	int level = *(const int *)ctx;
	uint64_t held = ((1ull << level) - 1) << (HOLD_LEVELS - level);

	return (int)c >= HOLD_LEVELS - level ? held : ((1ull << n) - 1) & ~held;
}

uint64_t mem_load(unsigned tid, const uint64_t *p, enum mem_order o)
{
	struct thread_views *T = &th[tid];
	uint32_t l = loc_of(p, true), vpre, floor, cand[MAX_CANDIDATES];
	unsigned n = 0, c;

	stats.loads++;
#ifdef MEM_BROKEN_IGNORE_DEPS
	T->dep = 0;      /* a planted model bug (engine/litmus/BUILD): dependencies order nothing */
#endif
	vpre = vmax(T->dep, T->vr_new);
	if (o == MO_ACQUIRE)
		vpre = vmax(vpre, T->v_rel);
	/* the thread's own newest buffered store to l (forwarding) */
	for (unsigned i = T->end; locs[l].nbuf[tid] && i-- > T->first;) {
		if (!T->gone[i] && T->buf[i].loc == l) {
			after_read(T, tid, l, vpre, o);
			T->last_source = T->buf[i].source;
			return T->buf[i].v;
		}
	}
	/* newest first, back to the newest at or before the floor */
	floor = vmax(vpre, locs[l].coh[tid]);
	for (uint32_t m = locs[l].last; m != NONE && n < MAX_CANDIDATES; m = msgs[m].prev) {
		cand[n++] = m;
		if (m <= floor)
			break;
	}
	c = eng_choose_alike(n, same_value, cand);
	if (c)
		stats.stale_loads++;
	after_read(T, tid, l, vmax(vpre, cand[c]), o);
	T->last_source = msgs[cand[c]].source;
	return msgs[cand[c]].val;
}

bool mem_store(unsigned tid, uint64_t *p, uint64_t v, enum mem_order o, bool observed)
{
	struct thread_views *T = &th[tid];
	uint32_t l = loc_of(p, true);

	if (o == MO_RELEASE) {
		/* after everything before it: nothing buffered may follow it */
		mem_drain(tid);
		uint32_t t = append(l, v, eng_source(tid));

		locs[l].coh[tid] = t;
		T->vw_old = vmax(T->vw_old, t);
		T->v_rel = vmax(T->v_rel, t);
		T->dep = 0;
		return false;
	}
#ifdef MEM_BROKEN_NO_BUFFER
	/* a planted model bug (engine/litmus/BUILD): stores visible at once */
	{
		uint32_t t = append(l, v, eng_source(tid));

		locs[l].coh[tid] = t;
		T->vw_old = vmax(T->vw_old, t);
		return false;
	}
#endif
	if (T->end == MAX_BUF) {
		/* full: what is buffered becomes visible (a drain) */
		mem_drain(tid);
	}
	/* held back (what reorders this store after the thread's later ones)
	 * or visible before the next step: a choice, made with a rate the
	 * thread chose at its first store (like PCT's priorities, some runs
	 * hold many stores back, most few or none) */
	if (T->hold_level < 0)
		T->hold_level = (int)eng_choose(HOLD_LEVELS);
	bool delayed = (int)eng_choose_alike(HOLD_LEVELS, same_hold, &T->hold_level) >=
		       HOLD_LEVELS - T->hold_level;

	T->gone[T->end] = false;
	T->buf[T->end++] = (struct buffered){ .p = p, .v = v, .loc = l, .source = eng_source(tid),
					      .observed = observed, .delayed = delayed };
	T->nbuf++;
	T->nprompt += !delayed;
	nprompt_all += !delayed;
	locs[l].nbuf[tid]++;
	stats.buffered++;
	T->dep = 0;
	return true;
}

uint64_t mem_rmw(unsigned tid, uint64_t *p, enum acc_kind kind, uint64_t a, uint64_t b)
{
	struct thread_views *T = &th[tid];
	uint32_t l = loc_of(p, true), m, vpost;
	uint64_t old, new;

	/* after the thread's own earlier stores to p; an atomic reads the
	 * newest write and writes right after it */
	drain_loc(tid, l);
	m = locs[l].last;
	old = msgs[m].val;
	vpost = vmax(vmax(T->dep, T->vr_new), m);
	switch (kind) {
	case ACC_CMPXCHG: new = old == a ? b : old; break;
	case ACC_XCHG: new = a; break;
	case ACC_OR: new = old | a; break;
	default: new = old & ~a; break;
	}
	T->last_source = msgs[m].source;
	after_read(T, tid, l, vpost, MO_PLAIN);
	if (kind != ACC_CMPXCHG || old == a) {
		uint32_t t = append(l, new, eng_source(tid));

		locs[l].coh[tid] = t;
		T->vw_old = vmax(T->vw_old, t);
	}
	return old;
}

void mem_fence(unsigned tid, enum mem_fence f)
{
	struct thread_views *T = &th[tid];
	uint32_t all = vmax(T->vr_old, T->vw_old);

	switch (f) {
	case MF_FULL:
		mem_drain(tid);
		all = vmax(T->vr_old, T->vw_old);
		T->vr_new = vmax(T->vr_new, all);
		T->vw_new = vmax(T->vw_new, all);
		break;
	case MF_LOADS:
		T->vr_new = vmax(T->vr_new, T->vr_old);
		T->vw_new = vmax(T->vw_new, T->vr_old);
		break;
	case MF_STORES:
		mem_drain(tid);
		T->vw_new = vmax(T->vw_new, T->vw_old);
		break;
	case MF_ISB:
		T->vr_new = vmax(T->vr_new, T->v_cap);
		break;
	}
}

/* ---- synchronisation the engine implements ---------------------------------- */
void mem_lock_acquire(unsigned tid, unsigned lock)
{
	th[tid].vr_new = vmax(th[tid].vr_new, lock_view[lock]);
	th[tid].vw_new = vmax(th[tid].vw_new, lock_view[lock]);
}

void mem_lock_release(unsigned tid, unsigned lock)
{
	mem_drain(tid);
	lock_view[lock] = vmax(lock_view[lock], vmax(th[tid].vr_old, th[tid].vw_old));
}

/* RCU's guarantee: a read-side section the grace period does not wait for
 * began after the grace period began, and sees every write visible then
 * (the updater's rcu_assign_pointer and all before it): its rcu_read_lock
 * catches up to gp_view. */
void mem_grace_period_begin(unsigned tid)
{
	mem_fence(tid, MF_FULL);
	gp_view = nmsgs - 1;
}

void mem_grace_period(unsigned tid)
{
	mem_fence(tid, MF_FULL);
	gp_view = nmsgs - 1;
	mem_catch_up(tid);
}

void mem_read_section_begin(unsigned tid)
{
	th[tid].vr_new = vmax(th[tid].vr_new, gp_view);
}

void mem_catch_up(unsigned tid)
{
	th[tid].vr_new = vmax(th[tid].vr_new, nmsgs - 1);
	th[tid].vw_new = vmax(th[tid].vw_new, nmsgs - 1);
}

void mem_external_store(uint64_t *p, uint64_t v)
{
	uint32_t l = msgs ? loc_of(p, false) : NONE;

	if (l == NONE)
		*(volatile uint64_t *)p = v;
	else
		append(l, v, 0);
}

uint32_t mem_last_view(unsigned tid) { return th[tid].last_view; }
void mem_set_dep(unsigned tid, uint32_t view) { th[tid].dep = view; }
void mem_explicit_ctrl(unsigned tid) { th[tid].explicit_ctrl = true; }
uint32_t mem_last_source(unsigned tid) { return th[tid].last_source; }
void mem_stats(struct mem_stats *out) { *out = stats; }
