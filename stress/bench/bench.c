/*
 * stress/bench.c - `bazel run //stress:bench`: what a read costs.
 *
 * For each reader (lockless / locked gather, baseline / the early-exit
 * patch's gather, docs/glossary.md) and granule (4k, 16k, 64k) it prints
 *   - ns per read with no writers: one thread, random target entries of a
 *     few consistent folded blocks (young/dirty pattern stated);
 *   - ns per read while one writer thread runs op_run ops (core/ops.h)
 *     under the PTL and one thread does hardware updates (core/hw.h), and
 *     how many reads that measured;
 *   - retries per read in that run, counted as stress/driver.c does;
 *   - instrumented / bare: the instrumented variant's read against the
 *     same sources built with ACCESS_BARE (bare_baseline, bare_early_exit)
 *     over the same entries, no writers; the target is <= 1.5.
 * These are printed figures, never assertions. Run time is bounded by
 * --seconds-per-case (default 0.5 s: about 15 s in all); progress goes to
 * stderr. The early-exit patch's own scenarios are in stress/bench/bench_seed002.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/access.h"
#include "core/hw.h"
#include "core/mm.h"
#include "core/rcu_tsan.h"
#include "core/ops.h"
#include "stress/agents.h"

#define TABLES 2
#define BLOCKS 4
#define NPTR 4096               /* targets per pass (no-writer runs) */
#define RATIO_TARGET 1.5
#define SPIN_SCANS 64           /* a read with more scans waited for a writer */

typedef uint64_t (*read_fn)(uint64_t *);

static const struct reader_desc {
	const char *label;
	const char *tree;           /* variant name; bare_<tree> is the bare build */
	bool locked;
} READERS[4] = {
	{ "lockless baseline", "baseline", false },
	{ "lockless early-exit", "early_exit", false },
	{ "locked baseline", "baseline", true },
	{ "locked early-exit", "early_exit", true },
};

enum pattern { PAT_YOUNG, PAT_DIRTY_YOUNG, PAT_ONE_YOUNG, PAT_NONE, PAT_MIXED, PAT_COUNT };
static const char *const pattern_names[PAT_COUNT] = {
	"young", "dirty-young", "one-young", "none", "mixed",
};
static const char *const pattern_text[PAT_COUNT] = {
	"every entry young, none dirty (every reader scans the whole block)",
	"every entry dirty and young (the early-exit patch's scenario 1; the early exit stops after entry 0)",
	"only entry 8 young, none dirty (the early-exit patch's scenario 2)",
	"no entry young or dirty (the early-exit patch's scenario 3)",
	"block b of each table has pattern b: young, dirty-young, one-young, none",
};

struct opts {
	double secs;
	uint64_t seed;
	enum pattern pattern;
	unsigned gmask;             /* bit i: granules[i] */
	uint32_t ops;               /* writer ops (mask of enum op) */
	const char *ops_text;
	double load0;               /* 1-minute load average at start */
};

struct result {
	bool done;
	/* no writers */
	double instr_ns, bare_ns, ratio;
	unsigned passes;
	/* writer loop */
	double quiet_ns;
	double wall_ns, cpu_ns;
	uint64_t reads, scans, retries, max_scans, cont_reads, retried_reads;
	uint64_t spins, spin_retries;
	double wops_s, hw_s;
};

static struct result results[4][3];
static double null_simple[3], null_loop[3];

/* ---- time -------------------------------------------------------------- */
static double clk(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}
static double now_ns(void) { return clk(CLOCK_MONOTONIC); }

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}
static double median(double *v, unsigned n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The harness's per-call cost alone: one plain load of the target. */
static __attribute__((noinline)) uint64_t null_read(uint64_t *p) { return accb_load(p); }

/* ---- the blocks --------------------------------------------------------- */
static const uint64_t PROT = PTE_BIT_VALID | PTE_BIT_TABLE | PTE_BIT_USER | PTE_BIT_SHARED |
			     PTE_BIT_NG | PTE_BIT_PXN | PTE_BIT_UXN | PTE_BIT_RDONLY |
			     PTE_BIT_WRITE;

static uint64_t with_pattern(uint64_t pte, enum pattern p, unsigned j)
{
	switch (p) {
	case PAT_YOUNG: return pm_mkyoung(pte);
	case PAT_DIRTY_YOUNG: return pm_mkyoung(pm_mkdirty(pte));
	case PAT_ONE_YOUNG: return j == 8 ? pm_mkyoung(pte) : pte;
	default: return pte;
	}
}

/* Every block of every table: one fresh CONT-aligned folio, folded, with
 * the pattern; written with plain atomic stores (no writer observer). */
static void populate(struct harness_mm *m, struct block_plan *plans, enum pattern pat)
{
	unsigned shift = m->g->page_shift;

	for (unsigned lt = 0; lt < m->ntables; lt++) {
		uint64_t *e = hmm_slot_entries(m, m->tables[lt]);

		for (unsigned b = 0; b < m->bpt; b++) {
			uint64_t folio = hmm_fresh_folio(m);
			enum pattern p = pat == PAT_MIXED ? (enum pattern)(b % 4) : pat;

			plans[lt * m->bpt + b].folio = folio;
			plans[lt * m->bpt + b].prot = PROT;
			for (unsigned j = 0; j < m->cont; j++) {
				uint64_t pte = pm_mkcont(pm_pfn_pte(folio + j, PROT, shift));

				accb_store(&e[b * m->cont + j], with_pattern(pte, p, j));
			}
		}
	}
}

/* ---- no writers: instrumented vs bare over the same targets ------------ */
static __attribute__((noinline)) uint64_t pass(read_fn f, uint64_t *const *ptrs)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < NPTR; i++)
		sum += f(ptrs[i]);
	return sum;
}

static volatile uint64_t sink;

/* Alternate passes of fa and fb (order swapped every round) for about secs;
 * median ns/read of each and median per-round ratio fa/fb. */
static unsigned time_pair(read_fn fa, read_fn fb, uint64_t *const *ptrs, double secs,
			  double *a_ns, double *b_ns, double *ratio)
{
	enum { MAXR = 20000 };
	static double ta[MAXR], tb[MAXR], tr[MAXR];
	double end = now_ns() + secs * 1e9;
	unsigned r = 0;
	uint64_t s = 0;

	for (int w = 0; w < 3; w++)       /* warm caches and predictors */
		s += pass(fa, ptrs) + pass(fb, ptrs);
	while (r < MAXR && (r < 5 || now_ns() < end)) {
		for (int q = 0; q < 2; q++) {
			bool first_a = (r & 1) == 0;
			read_fn f = (q == 0) == first_a ? fa : fb;
			double t0 = now_ns();

			s += pass(f, ptrs);
			((q == 0) == first_a ? ta : tb)[r] = (now_ns() - t0) / NPTR;
		}
		tr[r] = ta[r] / tb[r];
		r++;
	}
	sink += s;
	*a_ns = median(ta, r);
	*b_ns = median(tb, r);
	*ratio = median(tr, r);
	return r;
}

/* ---- with writers: the stress run's own writer and hardware threads ---- */
static struct stress_world W;
#define M (W.m)

static struct block_plan plans[TABLES * BLOCKS];

/* Writers' findings are the stress tests' business, not the bench's. */
static void ignore_finding(struct stress_world *w, const struct violation *v)
{
	(void)w;
	(void)v;
}

struct wstats {
	uint64_t reads, scans, retries, max_scans, cont_reads, retried_reads;
	uint64_t spins, spin_retries;
	double wall_ns, cpu_ns;
};

/* The measuring thread's loop (the stress driver's reader without the
 * oracle): pick a random target, [take the PTL,] rcu_read_lock, find the
 * table, read, unlock. Scans are counted by the driver's rule. */
static void reader_loop(read_fn f, bool locked, double secs, uint64_t *rng, struct wstats *st)
{
	unsigned cont = M.cont;
	double w0 = now_ns(), c0 = clk(CLOCK_THREAD_CPUTIME_ID), end = w0 + secs * 1e9;
	uint64_t sum = 0;

	memset(st, 0, sizeof(*st));
	do {
		for (unsigned k = 0; k < 256; k++) {
			uint64_t x = rng_next(rng);
			unsigned lt = (unsigned)(x % M.ntables);
			unsigned b = (unsigned)((x >> 8) % M.bpt);
			unsigned t = (unsigned)((x >> 16) % cont);
			struct slot_hdr *slot;
			uint64_t *e, hits;

			if (locked)
				pthread_mutex_lock(&M.ptl[lt].lock);
			rcu_read_lock();
			slot = rcu_dereference(M.tables[lt]);
			TSAN_RCU_CONSUME(slot);
			e = hmm_slot_entries(&M, slot) + b * cont;
			acc_self.scans = 0;
			sum += f(&e[t]);
			hits = acc_self.scans;
			TSAN_RCU_READ_END();
			rcu_read_unlock();
			if (locked)
				pthread_mutex_unlock(&M.ptl[lt].lock);
			st->scans += hits;
			st->retries += hits ? hits - 1 : 0;
			st->cont_reads += hits != 0;
			st->retried_reads += hits > 1;
			if (hits > SPIN_SCANS) {
				st->spins++;
				st->spin_retries += hits - 1;
			}
			if (hits > st->max_scans)
				st->max_scans = hits;
		}
		st->reads += 256;
	} while (now_ns() < end);
	st->wall_ns = now_ns() - w0;
	st->cpu_ns = clk(CLOCK_THREAD_CPUTIME_ID) - c0;
	sink += sum;
}

static int writer_case(const struct reader_desc *rd, const struct variant *v, const struct opts *o,
		       uint64_t seed, struct result *res)
{
	char err[256];
	struct agent wr = { 0 }, hw = { 0 };
	uint64_t rng = seed * 1000003 + 1;
	read_fn f = rd->locked ? v->ptep_get : v->ptep_get_lockless;
	struct wstats st;
	double t0;

	if (hmm_create(&M, v, TABLES, BLOCKS, err, sizeof(err))) {
		fprintf(stderr, "bench: %s\n", err);
		return -1;
	}
	memset(plans, 0, sizeof(plans));
	populate(&M, plans, o->pattern);
	W.plans = plans;
	W.ops = o->ops;
	W.chaos = 0;
	W.report = ignore_finding;

	/* the same loop with nobody else running */
	reader_loop(f, rd->locked, o->secs / 4, &rng, &st);
	res->quiet_ns = st.wall_ns / st.reads;

	atomic_store(&W.stop, 0);
	if (agents_start(&W, &wr, 1, &hw, 1, seed)) {
		fprintf(stderr, "bench: cannot start the writer and hardware threads\n");
		return -1;
	}
	usleep(20000);                       /* let the writer get going */
	uint64_t w0 = atomic_load(&M.hdr->writer_ops), h0 = atomic_load(&M.hdr->hw_ops);
	t0 = now_ns();
	reader_loop(f, rd->locked, o->secs, &rng, &st);
	double dt = (now_ns() - t0) * 1e-9;
	res->wops_s = (atomic_load(&M.hdr->writer_ops) - w0) / dt;
	res->hw_s = (atomic_load(&M.hdr->hw_ops) - h0) / dt;
	atomic_store(&W.stop, 1);
	agents_join(&wr, 1);
	agents_join(&hw, 1);
	hmm_destroy(&M);

	res->wall_ns = st.wall_ns / st.reads;
	res->cpu_ns = st.cpu_ns / st.reads;
	res->reads = st.reads;
	res->scans = st.scans;
	res->retries = st.retries;
	res->max_scans = st.max_scans;
	res->cont_reads = st.cont_reads;
	res->retried_reads = st.retried_reads;
	res->spins = st.spins;
	res->spin_retries = st.spin_retries;
	return 0;
}

/* ---- command line --------------------------------------------------------- */
static const char usage[] =
	"usage: bench [--seconds-per-case=S] [--pattern=P] [--granule=G[,G]] [--writers=OPS]\n"
	"             [--seed=N]\n"
	"       bench --scaling [...]   threads per core and time to detection (--scaling --help)\n"
	"  --seconds-per-case=S  time of each measurement (default 0.5; the whole run\n"
	"                        takes about 30*S seconds)\n"
	"  --pattern=P           young/dirty pattern of the blocks: young (default),\n"
	"                        dirty-young, one-young, none, mixed\n"
	"  --granule=G           4k, 16k, 64k or a comma list (default all)\n"
	"  --writers=OPS         the writer thread's ops: all (default) or a comma list\n"
	"                        (map, fold, unfold, unmap, young, flush_young,\n"
	"                        clear_young_dirty, wrprotect, access_flags, retire)\n"
	"  --seed=N              random seed (default 1)\n";

static int parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .secs = 0.5, .seed = 1, .pattern = PAT_YOUNG, .gmask = 7,
			    .ops = OPS_ALL, .ops_text = "all" };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;

		if (!strncmp(a, "--seconds-per-case=", 19)) {
			errno = 0;
			o->secs = strtod(a + 19, &end);
			if (!a[19] || *end || errno || !(o->secs > 0) || o->secs > 3600)
				goto bad;
		} else if (!strncmp(a, "--pattern=", 10)) {
			int p;

			for (p = 0; p < PAT_COUNT && strcmp(a + 10, pattern_names[p]); p++)
				;
			if (p == PAT_COUNT)
				goto bad;
			o->pattern = p;
		} else if (!strncmp(a, "--granule=", 10)) {
			char buf[64], *save, *tok;

			snprintf(buf, sizeof(buf), "%s", a + 10);
			o->gmask = 0;
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				const struct granule *g = granule_by_name(tok);

				if (!g)
					goto bad;
				o->gmask |= 1u << (g - granules);
			}
			if (!o->gmask)
				goto bad;
		} else if (!strncmp(a, "--writers=", 10)) {
			char err[256];

			o->ops = ops_parse(a + 10, err, sizeof(err));
			if (!o->ops) {
				fprintf(stderr, "bench: %s\n", err);
				return 2;
			}
			o->ops_text = a + 10;
		} else if (!strncmp(a, "--seed=", 7)) {
			errno = 0;
			o->seed = strtoull(a + 7, &end, 10);
			if (!a[7] || *end || errno)
				goto bad;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 3;
		} else {
			goto bad;
		}
		continue;
bad:
		fprintf(stderr, "bench: bad argument '%s'\n%s", a, usage);
		return 2;
	}
	return 0;
}

/* ---- output ----------------------------------------------------------------- */
static void rule(int n)
{
	while (n--)
		putchar('-');
	putchar('\n');
}

static void print_tables(const struct opts *o)
{
	printf("\nbench: contpte gather readers, %.2f s per measurement, seed %llu\n",
	       o->secs, (unsigned long long)o->seed);
	printf("blocks: %d tables x %d folded CONT blocks (valid, writable-clean prot, one folio each);\n",
	       TABLES, BLOCKS);
	printf("young/dirty pattern: %s: %s\n", pattern_names[o->pattern], pattern_text[o->pattern]);
	printf("writer ops: %s; machine: %ld online CPUs, 1-minute load average %.2f at start\n",
	       o->ops_text, sysconf(_SC_NPROCESSORS_ONLN), o->load0);

	printf("\nTable 1. Cost of one read, per reader and granule\n");
	printf("  no-wr ns    ns per read, no writers: 1 thread, random target entries, median over\n"
	       "              passes of %d reads (the instrumented variant, as the stress runs use it;\n"
	       "              locked readers are called without the PTL here: nothing else runs)\n", NPTR);
	printf("  wr ns       ns per read (wall) of the measuring thread while 1 writer thread runs\n"
	       "              op_run (all ops, under the PTL) and 1 thread runs hw_touch bursts;\n"
	       "              a read there = pick target, [PTL lock,] rcu_read_lock, table lookup,\n"
	       "              read, unlock (locked readers take the PTL for every read); the\n"
	       "              writer keeps many blocks unfolded or unmapped (table 2 cont%%), and\n"
	       "              such reads return after one load, so wr ns can be below no-wr ns\n");
	printf("  wr reads    reads measured in that run\n");
	printf("  retries/rd  retries per read in that run: scans started minus one, per read\n"
	       "              (block scans started, counted where the reader aligns down: kcompat.h)\n");
	printf("  instr/bare  instrumented ns / bare_ variant ns (ACCESS_BARE: no instruments in\n"
	       "              acc_load), same targets, no writers, alternating passes, median ratio\n");
	printf("  target      the target for instr/bare; verdict PASS if met (a figure, not a test)\n\n");
	printf("%-20s %-7s %10s %10s %10s %11s %10s %7s %7s\n", "reader", "granule", "no-wr ns",
	       "wr ns", "wr reads", "retries/rd", "instr/bare", "target", "verdict");
	rule(100);
	for (unsigned gi = 0; gi < 3; gi++)
		for (unsigned r = 0; r < 4; r++) {
			const struct result *x = &results[r][gi];

			if (!x->done)
				continue;
			printf("%-20s %-7s %10.2f %10.2f %10llu %11.5f %10.3f %7s %7s\n", READERS[r].label,
			       granules[gi].name, x->instr_ns, x->wall_ns, (unsigned long long)x->reads,
			       x->reads ? (double)x->retries / x->reads : 0.0, x->ratio, "<= 1.5",
			       x->ratio <= RATIO_TARGET ? "PASS" : "MISS");
		}

	printf("\nTable 2. Details\n");
	printf("  instr ns    = no-wr ns of table 1; bare ns: the bare_ variant, same passes\n");
	printf("  quiet ns    the with-writers loop (table 1 'wr ns') run before the writers start\n");
	printf("  (locked readers with writers also wait for the PTL, a pthread mutex that the writer\n"
	       "   thread takes again at once: wr ns far above quiet ns is that waiting, not the gather)\n");
	printf("  cpu ns      the measuring thread's CPU time per read with writers (wall minus time\n"
	       "              descheduled or asleep on the PTL; 3 threads share 2 cores)\n");
	printf("  scans/rd    scans started per read with writers (0 when the target was not CONT)\n");
	printf("  cont%%       reads whose target headed a CONT block (scanned at least once)\n");
	printf("  retried%%    reads that needed more than one scan\n");
	printf("  max         most scans one read needed: a lockless reader retries for as long as\n"
	       "              the writer takes to rewrite the block (fold/unfold, wrprotect), much\n"
	       "              longer if the writer is descheduled in the middle\n");
	printf("  spins       reads that needed more than %d scans (waited for such a writer)\n",
	       SPIN_SCANS);
	printf("  rtr/rd-sp   retries per read leaving those reads out\n");
	printf("  wops/s hw/s writer ops and hardware touches per second during the run\n\n");
	printf("%-20s %-7s %8s %8s %6s %8s %8s %8s %8s %5s %8s %8s %5s %9s %7s %6s\n", "reader",
	       "granule", "instr ns", "bare ns", "passes", "quiet ns", "wr ns", "cpu ns", "scans/rd",
	       "cont%", "retried%", "max", "spins", "rtr/rd-sp", "wops/s", "hw/s");
	rule(136);
	for (unsigned gi = 0; gi < 3; gi++)
		for (unsigned r = 0; r < 4; r++) {
			const struct result *x = &results[r][gi];

			if (!x->done)
				continue;
			printf("%-20s %-7s %8.2f %8.2f %6u %8.2f %8.2f %8.2f %8.4f %5.1f %8.4f %8llu %5llu %9.6f %7.0f %6.0f\n",
			       READERS[r].label, granules[gi].name, x->instr_ns, x->bare_ns, x->passes,
			       x->quiet_ns, x->wall_ns, x->cpu_ns,
			       x->reads ? (double)x->scans / x->reads : 0.0,
			       x->reads ? 100.0 * x->cont_reads / x->reads : 0.0,
			       x->reads ? 100.0 * x->retried_reads / x->reads : 0.0,
			       (unsigned long long)x->max_scans, (unsigned long long)x->spins,
			       x->reads > x->spins ? (double)(x->retries - x->spin_retries) /
							     (x->reads - x->spins) : 0.0,
			       x->wops_s, x->hw_s);
		}
	printf("\nHarness cost included in every figure above (null reader = one plain load of the target):\n");
	printf("%-7s %18s %22s\n", "granule", "no-wr loop ns", "with-writers loop ns");
	rule(49);
	for (unsigned gi = 0; gi < 3; gi++)
		if (o->gmask & (1u << gi))
			printf("%-7s %18.2f %22.2f\n", granules[gi].name, null_simple[gi], null_loop[gi]);
	printf("\nThe early-exit patch's scenarios (instruction counts under callgrind): stress/bench/bench-seed002\n");
}

int scaling_main(int argc, char **argv);     /* stress/bench/scaling.c */

int main(int argc, char **argv)
{
	struct opts o;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--scaling"))
			return scaling_main(argc, argv);

	int rc = parse(argc, argv, &o);
	unsigned ncase = 0, icase = 0;
	double t_start = now_ns();

	if (rc == 3)
		return 0;
	if (rc)
		return rc;
	for (unsigned gi = 0; gi < 3; gi++)
		if (o.gmask & (1u << gi))
			ncase += 8;
	if (getloadavg(&o.load0, 1) != 1)
		o.load0 = -1;
	rcu_register_thread();
	acc_self.on_limit = acc_limit_ignore;
	acc_arm(&acc_self, INT64_MAX / 2);
	fprintf(stderr, "bench: %u measurements of %.2f s (plus a quarter each for the quiet loops)\n",
		ncase, o.secs);

	for (unsigned gi = 0; gi < 3; gi++) {
		const struct granule *g = &granules[gi];
		const struct variant *vi[4], *vb[4];
		uint64_t *ptrs[NPTR];
		char err[256];
		uint64_t rng = o.seed * 7919 + gi;

		if (!(o.gmask & (1u << gi)))
			continue;
		for (unsigned r = 0; r < 4; r++) {
			char bare[64];

			snprintf(bare, sizeof(bare), "bare_%s", READERS[r].tree);
			vi[r] = variant_find(READERS[r].tree, g);
			vb[r] = variant_find(bare, g);
			if (!vi[r] || !vb[r]) {
				fprintf(stderr, "bench: variant %s or %s not built for %s\n",
					READERS[r].tree, bare, g->name);
				return 2;
			}
		}

		/* no writers: one set of blocks for the four readers */
		if (hmm_create(&M, vi[0], TABLES, BLOCKS, err, sizeof(err))) {
			fprintf(stderr, "bench: %s\n", err);
			return 2;
		}
		memset(plans, 0, sizeof(plans));
		populate(&M, plans, o.pattern);
		for (unsigned i = 0; i < NPTR; i++) {
			uint64_t x = rng_next(&rng);
			unsigned lt = x % TABLES, b = (x >> 8) % BLOCKS, t = (x >> 16) % M.cont;

			ptrs[i] = hmm_slot_entries(&M, M.tables[lt]) + b * M.cont + t;
		}
		{
			double a, b, q;

			time_pair(null_read, null_read, ptrs, 0.05, &a, &b, &q);
			null_simple[gi] = a;
		}
		for (unsigned r = 0; r < 4; r++) {
			struct result *x = &results[r][gi];
			bool lk = READERS[r].locked;

			fprintf(stderr, "bench: [%2u/%u] %-20s %-3s no writers, instrumented vs bare ...\n",
				++icase, ncase, READERS[r].label, g->name);
			x->passes = time_pair(lk ? vi[r]->ptep_get : vi[r]->ptep_get_lockless,
					      lk ? vb[r]->ptep_get : vb[r]->ptep_get_lockless, ptrs,
					      o.secs, &x->instr_ns, &x->bare_ns, &x->ratio);
			fprintf(stderr, "bench:         %.2f ns instrumented, %.2f ns bare, ratio %.3f\n",
				x->instr_ns, x->bare_ns, x->ratio);
		}
		{
			struct wstats st;
			uint64_t r2 = o.seed;

			reader_loop(null_read, false, 0.05, &r2, &st);
			null_loop[gi] = st.wall_ns / st.reads;
		}
		hmm_destroy(&M);

		/* with writers: fresh blocks for each reader */
		for (unsigned r = 0; r < 4; r++) {
			struct result *x = &results[r][gi];

			fprintf(stderr, "bench: [%2u/%u] %-20s %-3s with 1 writer + 1 hardware thread ...\n",
				++icase, ncase, READERS[r].label, g->name);
			if (writer_case(&READERS[r], vi[r], &o, o.seed + 101 * r + gi, x))
				return 2;
			x->done = true;
			fprintf(stderr, "bench:         %llu reads, %.2f ns/read, %.5f retries/read, %.0f writer ops/s\n",
				(unsigned long long)x->reads, x->wall_ns,
				(double)x->retries / x->reads, x->wops_s);
		}
	}
	fprintf(stderr, "bench: done in %.1f s\n", (now_ns() - t_start) * 1e-9);
	print_tables(&o);
	rcu_unregister_thread();
	return 0;
}
