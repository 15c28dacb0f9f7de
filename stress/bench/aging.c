/*
 * stress/bench/aging.c - what flush-less aging costs, on the TLB model
 * (core/tlb.h, docs/tlb.md). `bazel run //stress:aging [-- --svg=FILE]`,
 * on a kernel tree's clear_flush_young / test_and_clear_young:
 * `bazel run //stress:aging -- --kernel-tree PATH [--patch FILE]` (which
 * runs tools/aging: the tree's contpte.c built on the kernel-tree shim with
 * this file as its main, as tools/hammer builds it with the hammer's).
 * A bench, not a test: it prints figures (docs/results.md).
 *
 * One CPU with a TLB of C entries reads N blocks' worth of pages. With
 * --layout=cont (the default) each block is CONT-mapped (one translation,
 * one aging unit); with --layout=pages every page is mapped on its own,
 * never folded (as order-0 folios are: the entries' pfns are not
 * contiguous), and each page is a translation and an aging unit: the
 * non-CONT path of the young helpers (__ptep_clear_flush_young), which a
 * patch like seed 003 changes. Rounds alternate an aging pass over the
 * units with an interval of accesses (rate accesses per block, at
 * uniformly random blocks and entries). An aging pass is one of three
 * policies:
 *   flush    clear_flush_young_ptes per unit: AF cleared, the unit flushed
 *   noflush  ptep_test_and_clear_young per unit: AF cleared, no flush
 *            (seeds 001/003)
 *   batched  one clear_flush_young_ptes over all N blocks: one flush for the
 *            pass (seed 000)
 * A read through a cached translation does not set AF (an access through a
 * cached entry that already has AF writes nothing; the model caches the
 * walked descriptor, AF set). Imprecision: of the accesses made in an
 * interval, the share whose unit the next aging pass reports old. Then,
 * per reclaim pass, how many flush calls each policy makes and how many
 * cached translations they drop.
 *
 * A _nosync flush (the kernel trees' clear_flush_young) completes at the
 * thread's next DSB: each aging pass ends with one (dsb(), the best case
 * for _nosync: in the kernel a later synchronous flush or a context switch
 * brings it).
 *
 * Single-threaded and deterministic (--seed): the figures are exact for
 * the model, not timings.
 */
#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/access.h"
#include "core/hw.h"
#include "core/mm.h"
#include "core/rcu.h"
#include "core/rng.h"
#include "core/tlb.h"
#include "core/variant.h"

enum policy { P_FLUSH, P_NOFLUSH, P_BATCHED, P_COUNT };
static const char *const policy_names[P_COUNT] = { "flush", "noflush", "batched" };

struct result {
	double imprecision;          /* accesses unseen / accesses */
	double flushes_per_pass;     /* kc_tlb_flush calls */
	double dropped_per_pass;     /* translations the flushes removed */
	double hit_rate;
};

static const struct variant *V;
static unsigned N = 64, PASSES = 200;
static bool no_dsb;     /* --no-dsb: no DSB after the pass (_nosync flushes stay pending) */
static bool pages;      /* --layout=pages: every page its own translation, never folded */
static bool summary;    /* --summary: both layouts, each policy, the largest TLB, rate 1 */

/* Aging units: a block (cont layout) or a page (pages layout). */
static unsigned units(const struct harness_mm *m)
{
	return pages ? N * m->cont : N;
}

static unsigned unit_size(const struct harness_mm *m)
{
	return pages ? 1 : m->cont;
}

static uint64_t *entries(struct harness_mm *m, unsigned b)
{
	return hmm_slot_entries(m, m->tables[0]) + b * m->cont;
}

static void map_all(struct harness_mm *m)
{
	unsigned shift = m->g->page_shift;
	uint64_t prot = PTE_BIT_VALID | PTE_BIT_TABLE | PTE_BIT_USER | PTE_BIT_SHARED | PTE_BIT_NG |
			PTE_BIT_PXN | PTE_BIT_UXN | PTE_BIT_RDONLY | PTE_BIT_WRITE | PTE_BIT_AF;

	for (unsigned b = 0; b < N; b++) {
		uint64_t pfn = hmm_fresh_folio(m);

		if (!pages) {
			V->ep.ep_set_ptes(&m->mm, hmm_addr(m, 0, b * m->cont), (pte_t *)entries(m, b),
					  (pte_t){ pm_pfn_pte(pfn, prot, shift) }, m->cont);
			continue;
		}
		/* page by page, the folio's pages in reverse order: never
		 * contiguous, so set_ptes' fold attempt never folds */
		for (unsigned j = 0; j < m->cont; j++)
			V->ep.ep_set_ptes(&m->mm, hmm_addr(m, 0, b * m->cont + j), (pte_t *)entries(m, b) + j,
					  (pte_t){ pm_pfn_pte(pfn + m->cont - 1 - j, prot, shift) }, 1);
	}
}

/* One aging pass; young[u]: what it reported for unit u. */
__attribute__((noinline)) void age(struct harness_mm *m, enum policy p, bool *young)
{
	unsigned us = unit_size(m);
	pte_t *base = (pte_t *)entries(m, 0);

	if (p == P_BATCHED) {
		/* one call over the range, one flush: per-unit young is what
		 * the AF bits said before it (a reclaim pass reads them per
		 * folio, then clears and flushes in one go) */
		for (unsigned u = 0; u < units(m); u++) {
			young[u] = false;
			for (unsigned j = 0; j < us; j++)
				young[u] |= pm_young(acc_peek((uint64_t *)base + u * us + j));
		}
		V->ep.ep_clear_flush_young_ptes(&m->vma, hmm_addr(m, 0, 0), base, N * m->cont);
		return;
	}
	for (unsigned u = 0; u < units(m); u++) {
		unsigned long a = hmm_addr(m, 0, u * us);

		young[u] = p == P_FLUSH
			? V->ep.ep_clear_flush_young_ptes(&m->vma, a, base + u * us, 1) != 0
			: V->ep.ep_ptep_test_and_clear_young(&m->vma, a, base + u * us) != 0;
	}
}

/* The pass's end: the DSB that completes its _nosync flushes. */
static void pass_end(void)
{
	if (!no_dsb)
		kc_dsb();
}

static struct result run(enum policy p, unsigned cap, double rate, uint64_t seed)
{
	static struct harness_mm m;
	static struct tlb t;
	struct result r = { 0 };
	char err[256];
	bool *young = calloc((size_t)N * MAX_CONT_PTES, sizeof(bool));
	uint64_t *acc = calloc((size_t)N * MAX_CONT_PTES, sizeof(uint64_t)), rng = seed, seen = 0, unseen = 0;
	uint64_t f0, d0, hits0, miss0;
	unsigned per_interval = (unsigned)(rate * N + 0.5);

	if (!young || !acc || hmm_create(&m, V, 1, N, err, sizeof(err))) {
		fprintf(stderr, "aging: %s\n", young && acc ? err : "out of memory");
		exit(2);
	}
	/* cap 0 (--only with --tlb=0): no TLB model, flushes only counted
	 * (instruction counts of the kernel code alone) */
	m.tlb_on = cap != 0;
	if (cap)
		tlb_attach(&m, &t, cap, TLB_EVICT_LRU, seed);
	map_all(&m);
	for (unsigned i = 0; pages && i < N * m.cont; i++)
		if (pm_cont(acc_peek(entries(&m, 0) + i))) {
			fprintf(stderr, "aging: --layout=pages: entry %u was folded into a CONT block\n", i);
			exit(2);
		}
	f0 = m.hdr->tlb_flushes;
	d0 = t.st.invalidated;
	hits0 = t.st.hits;
	miss0 = t.st.misses;
	for (unsigned pass = 0; pass <= PASSES; pass++) {
		age(&m, p, young);
		pass_end();
		for (unsigned u = 0; u < units(&m); u++) {
			if (pass)
				*(young[u] ? &seen : &unseen) += acc[u];
			acc[u] = 0;
		}
		if (pass == PASSES)
			break;
		for (unsigned i = 0; i < per_interval; i++) {
			unsigned b = rng_below(&rng, N), j = rng_below(&rng, m.cont);
			struct violation v;

			if (cap)
				tlb_access(&m, &t, 0, b, j, false, &v);
			else
				hw_access(&m, 0, b, j, false);
			acc[(b * m.cont + j) / unit_size(&m)]++;
		}
	}
	r.imprecision = seen + unseen ? (double)unseen / (seen + unseen) : 0;
	r.flushes_per_pass = (double)(m.hdr->tlb_flushes - f0) / (PASSES + 1);
	r.dropped_per_pass = (double)(t.st.invalidated - d0) / (PASSES + 1);
	r.hit_rate = (double)(t.st.hits - hits0) / (t.st.hits - hits0 + t.st.misses - miss0 + 1e-9);
	if (cap)
		tlb_detach(&m, &t);
	hmm_destroy(&m);
	free(young);
	free(acc);
	return r;
}

static const unsigned CAPS[] = { 8, 32, 64, 256 };
static const double RATES[] = { 0.25, 0.5, 1, 2, 4, 8, 16 };
#define NCAPS (sizeof(CAPS) / sizeof(CAPS[0]))
#define NRATES (sizeof(RATES) / sizeof(RATES[0]))

static void svg(const char *rel, double imp[NCAPS][NRATES])
{
	/* under bazel run, relative to where the command was run */
	const char *wd = getenv("BUILD_WORKING_DIRECTORY");
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s%s", rel[0] != '/' && wd ? wd : "", rel[0] != '/' && wd ? "/" : "", rel);
	f = fopen(path, "w");
	const double W = 640, H = 400, L = 60, B = 340, R = 600, T = 30;
	const char *colours[NCAPS] = { "#1b9e77", "#d95f02", "#7570b3", "#e7298a" };

	if (!f) {
		perror(path);
		return;
	}
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' font-family='sans-serif' font-size='12'>\n", W, H);
	fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
	fprintf(f, "<text x='%.0f' y='18'>noflush aging imprecision vs access rate, %u %s (flush, batched: 0)</text>\n", L, N,
		pages ? "blocks of single pages" : "CONT blocks");
	fprintf(f, "<line x1='%.0f' y1='%.0f' x2='%.0f' y2='%.0f' stroke='black'/>\n", L, B, R, B);
	fprintf(f, "<line x1='%.0f' y1='%.0f' x2='%.0f' y2='%.0f' stroke='black'/>\n", L, B, L, T);
	for (int k = 0; k <= 4; k++) {
		double y = B - (B - T) * k / 4.0;

		fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='end'>%d%%</text>\n", L - 6, y + 4, k * 25);
		fprintf(f, "<line x1='%.0f' y1='%.0f' x2='%.0f' y2='%.0f' stroke='#ddd'/>\n", L, y, R, y);
	}
	for (unsigned i = 0; i < NRATES; i++) {
		double x = L + (R - L) * i / (NRATES - 1);

		fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='middle'>%g</text>\n", x, B + 16, RATES[i]);
	}
	fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='middle'>accesses per block between aging passes (log scale)</text>\n",
		(L + R) / 2, B + 36);
	for (unsigned c = 0; c < NCAPS; c++) {
		fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='", colours[c]);
		for (unsigned i = 0; i < NRATES; i++)
			fprintf(f, "%.1f,%.1f ", L + (R - L) * i / (NRATES - 1), B - (B - T) * imp[c][i]);
		fprintf(f, "'/>\n<text x='%.0f' y='%.0f' fill='%s'>TLB %u entries</text>\n", R - 110, T + 16 + 16.0 * c,
			colours[c], CAPS[c]);
	}
	fprintf(f, "</svg>\n");
	fclose(f);
	printf("plot written to %s\n", path);
}

int main(int argc, char **argv)
{
	const char *svg_path = NULL, *gname = "4k", *only = NULL, *vname = "baseline";
	const char *subject = getenv("KERNEL_TREE_SOURCE");
	uint64_t seed = 1;
	unsigned only_cap = CAPS[NCAPS - 1];
	double imp[NCAPS][NRATES];

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--kernel-tree") || !strncmp(argv[i], "--kernel-tree=", 14)) {
			/* built by tools/aging, which runs a nested bazel build as
			 * tools/hammer does (bazel run has released the server by
			 * now): hand it the whole command line */
			const char *ws = getenv("BUILD_WORKSPACE_DIRECTORY");
			char tool[4096];

			snprintf(tool, sizeof(tool), "%s%stools/aging", ws ? ws : "", ws ? "/" : "");
			argv[0] = tool;
			execv(tool, argv);
			fprintf(stderr, "aging: cannot run %s: %s\n", tool, strerror(errno));
			return 2;
		}
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--svg=", 6))
			svg_path = argv[i] + 6;
		else if (!strncmp(argv[i], "--blocks=", 9))
			N = (unsigned)atoi(argv[i] + 9);
		else if (!strncmp(argv[i], "--passes=", 9))
			PASSES = (unsigned)atoi(argv[i] + 9);
		else if (!strncmp(argv[i], "--seed=", 7))
			seed = strtoull(argv[i] + 7, NULL, 0);
		else if (!strncmp(argv[i], "--granule=", 10))
			gname = argv[i] + 10;
		else if (!strncmp(argv[i], "--only=", 7))
			only = argv[i] + 7;
		else if (!strncmp(argv[i], "--tlb=", 6))
			only_cap = (unsigned)atoi(argv[i] + 6);
		else if (!strncmp(argv[i], "--variant=", 10))
			vname = argv[i] + 10;
		else if (!strcmp(argv[i], "--no-dsb"))
			no_dsb = true;
		else if (!strcmp(argv[i], "--layout=pages"))
			pages = true;
		else if (!strcmp(argv[i], "--layout=cont"))
			pages = false;
		else if (!strcmp(argv[i], "--summary"))
			summary = true;
		else {
			fprintf(stderr, "usage: aging [--svg=FILE] [--blocks=N] [--passes=P] [--seed=S] [--granule=4k|16k|64k]\n"
					"             [--variant=NAME] (a built-in variant, default baseline; tools/aging gives its tree)\n"
					"             [--kernel-tree PATH [--patch FILE]] (a kernel tree's contpte.c, via tools/aging)\n"
					"             [--no-dsb] (no DSB after an aging pass: _nosync flushes stay pending)\n"
					"             [--layout=cont|pages] (CONT blocks, or every page its own translation, never folded)\n"
					"             [--summary] (both layouts, each policy, TLB 256 entries, rate 1: one line each)\n"
					"             [--only=flush|noflush|batched [--tlb=ENTRIES]]  (one reclaim run, for callgrind;\n"
					"             --tlb=0: no TLB model, flushes only counted:\n"
					"             valgrind --tool=callgrind --toggle-collect=age aging --only=...)\n");
			return 2;
		}
	}
	const struct granule *g = granule_by_name(gname);

	if (!g || !(V = variant_find(vname, g)) || N < 1 || N > 256 || PASSES < 1) {
		fprintf(stderr, "aging: no variant '%s' for granule '%s', or --blocks not 1..256, or --passes 0\n",
			vname, gname);
		return 2;
	}
	rcu_register_thread();
	if (summary) {
		/* one line per layout and policy at the largest TLB, rate 1:
		 * what tools/aging --compare and tools/check set side by side */
		printf("aging summary: %s%s %s, %u blocks, %u passes, seed %llu, TLB %u entries (LRU), 1 access per block "
		       "between passes\n",
		       subject ? "kernel tree " : "", subject ? subject : vname, g->name, N, PASSES,
		       (unsigned long long)seed, CAPS[NCAPS - 1]);
		printf("%-7s %-8s %13s %17s %26s\n", "layout", "policy", "missed young", "flush calls/pass",
		       "translations dropped/pass");
		for (int l = 0; l < 2; l++) {
			pages = l;
			for (int p = 0; p < P_COUNT; p++) {
				struct result r = run(p, CAPS[NCAPS - 1], 1, seed);

				printf("%-7s %-8s %12.1f%% %17.1f %26.1f\n", pages ? "pages" : "cont", policy_names[p],
				       100 * r.imprecision, r.flushes_per_pass, r.dropped_per_pass);
			}
		}
		return 0;
	}
	if (only) {
		for (int p = 0; p < P_COUNT; p++)
			if (!strcmp(only, policy_names[p])) {
				struct result r = run(p, only_cap, 1, seed);

				printf("%s: %u passes over %u blocks, %.1f flush calls per pass\n", only, PASSES + 1, N,
				       r.flushes_per_pass);
				return 0;
			}
		fprintf(stderr, "aging: --only takes flush, noflush or batched\n");
		return 2;
	}
	printf("aging imprecision (share of accesses after a young-clearing pass that the next pass\n"
	       "reports old), %s%s %s, %u %s, %u passes, seed %llu, LRU TLB%s\n\n",
	       subject ? "kernel tree " : "", subject ? subject : vname, g->name, N,
	       pages ? "blocks of single pages (never folded)" : "CONT blocks", PASSES,
	       (unsigned long long)seed, no_dsb ? ", no DSB after a pass" : "");
	printf("%-8s %8s", "policy", "entries");
	for (unsigned i = 0; i < NRATES; i++)
		printf("  rate %-5g", RATES[i]);
	printf("\n");
	for (int p = 0; p < P_COUNT; p++)
		for (unsigned c = 0; c < NCAPS; c++) {
			printf("%-8s %8u", policy_names[p], CAPS[c]);
			for (unsigned i = 0; i < NRATES; i++) {
				struct result r = run(p, CAPS[c], RATES[i], seed);

				printf("  %9.1f%%", 100 * r.imprecision);
				if (p == P_NOFLUSH)
					imp[c][i] = r.imprecision;
			}
			printf("\n");
		}
	printf("\nTLB invalidations per reclaim pass over %u blocks (TLB %u entries, rate 1):\n", N, CAPS[NCAPS - 1]);
	printf("%-8s %14s %22s %9s\n", "policy", "flush calls", "translations dropped", "hit rate");
	for (int p = 0; p < P_COUNT; p++) {
		struct result r = run(p, CAPS[NCAPS - 1], 1, seed);

		printf("%-8s %14.1f %22.1f %8.1f%%\n", policy_names[p], r.flushes_per_pass, r.dropped_per_pass,
		       100 * r.hit_rate);
	}
	if (svg_path)
		svg(svg_path, imp);
	rcu_unregister_thread();
	return 0;
}
