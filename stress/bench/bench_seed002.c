/*
 * stress/bench/bench_seed002.c - the early-exit patch's three scenarios as a tiny program
 * whose only heavy work is N gathers of one contiguous block, so that
 * `valgrind --tool=callgrind` can count the instructions of a read
 * (stress/bench/bench-seed002 takes the difference of an N-read and a 2N-read run).
 *
 *   --scenario=1   every entry of the block dirty and young
 *   --scenario=2   only entry index 8 ("the 8th") young, none dirty
 *   --scenario=3   no entry young or dirty
 *   --reader=baseline|early_exit   one of the project's readers (for
 *                  callgrind or the qemu plugin), or
 *   --reader=kernel_tree  the kernel tree's readers this binary was built
 *                  over (build/drivers.bzl driver "bench_seed002"), or
 *   --reader=both  baseline and early exit timed alternately in one run
 *                  (the native time ratio; not for instruction counts)
 *   --granule=4k|16k|64k
 *   --mode=locked    contpte_ptep_get through variant->ptep_get (the
 *                    locked gather the seed's mlock/munlock loop exercised)
 *   --mode=lockless  contpte_ptep_get_lockless
 *   --iters=N        reads; read i targets entry i mod CONT_PTES, like the
 *                    seed's page-by-page walk of each block
 *
 * The project's readers are the bare_ variants (build/subjects.bzl
 * bare_variants: the kernel-dialect sources built with ACCESS_BARE, no
 * access-layer instruments, entry points out of line): the code the kernel
 * would run. A kernel tree's are its own contpte_ptep_get and
 * contpte_ptep_get_lockless built on the shim with the same backend (no
 * call counts), reached through the project's ptep_get / ptep_get_lockless
 * as asm/pgtable.h reaches them. The block is a plain naturally aligned
 * array; nothing else (no segment, no RCU, no threads).
 *
 * One reader prints ns/read, the median over chunks of 4096 reads
 * (stress/bench/bench-seed002 alternates two such processes for a tree
 * against its patched copy).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/access.h"
#include "core/pte.h"
#include "core/variant.h"

typedef uint64_t (*read_fn)(uint64_t *);

static const char usage[] =
	"usage: bench_seed002 --scenario=1|2|3 --reader=baseline|early_exit|kernel_tree|both\n"
	"                     --granule=4k|16k|64k --mode=locked|lockless --iters=N\n"
	"  scenario 1: all entries dirty and young; 2: only entry 8 young, none dirty;\n"
	"  3: none young or dirty. Uses the uninstrumented bare_ variants, or the\n"
	"  kernel tree this binary was built over (--reader=kernel_tree).\n"
	"  --reader=both times baseline and early exit alternately (native time ratio).\n";

static const char *const scenario_text[4] = {
	NULL,
	"all entries dirty+young",
	"only entry 8 young, none dirty",
	"no entry young or dirty",
};

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int bad(const char *what, const char *val)
{
	fprintf(stderr, "bench_seed002: bad %s '%s'\n%s", what, val, usage);
	return 2;
}

/* N reads, target i mod cont. Kept out of line: the loop is the program. */
static __attribute__((noinline)) uint64_t read_loop(read_fn f, uint64_t *e, unsigned cont,
						    uint64_t iters)
{
	uint64_t sum = 0;

	for (uint64_t i = 0; i < iters; i++)
		sum += f(&e[i & (cont - 1)]);
	return sum;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int scenario = 0, locked = -1;
	const char *reader = NULL;
	const struct granule *g = NULL;
	uint64_t iters = 0;
	bool have_iters = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "--scenario=", 11)) {
			scenario = atoi(a + 11);
			if (scenario < 1 || scenario > 3 || strlen(a + 11) != 1)
				return bad("--scenario", a + 11);
		} else if (!strncmp(a, "--reader=", 9)) {
			reader = a + 9;
			if (strcmp(reader, "baseline") && strcmp(reader, "early_exit") &&
			    strcmp(reader, "kernel_tree") && strcmp(reader, "both"))
				return bad("--reader", reader);
		} else if (!strncmp(a, "--granule=", 10)) {
			if (!(g = granule_by_name(a + 10)))
				return bad("--granule", a + 10);
		} else if (!strncmp(a, "--mode=", 7)) {
			if (!strcmp(a + 7, "locked"))
				locked = 1;
			else if (!strcmp(a + 7, "lockless"))
				locked = 0;
			else
				return bad("--mode", a + 7);
		} else if (!strncmp(a, "--iters=", 8)) {
			char *end;

			errno = 0;
			iters = strtoull(a + 8, &end, 10);
			if (!a[8] || *end || errno || a[8] == '-')
				return bad("--iters", a + 8);
			have_iters = true;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else {
			return bad("argument", a);
		}
	}
	if (!scenario || !reader || !g || locked < 0 || !have_iters) {
		fprintf(stderr, "bench_seed002: all five flags are required\n%s", usage);
		return 2;
	}

	/* One naturally aligned block of valid, writable, CONT entries. */
	unsigned cont = g->cont_ptes, shift = g->page_shift;
	size_t bytes = cont * sizeof(uint64_t);
	uint64_t *e = aligned_alloc(bytes, bytes);
	uint64_t prot = PTE_BIT_VALID | PTE_BIT_TABLE | PTE_BIT_USER | PTE_BIT_SHARED |
			PTE_BIT_NG | PTE_BIT_PXN | PTE_BIT_UXN | PTE_BIT_RDONLY |
			PTE_BIT_WRITE | PTE_BIT_CONT;
	uint64_t pfn0 = (1ULL << 20);   /* CONT-aligned for every granule */

	if (!e) {
		fprintf(stderr, "bench_seed002: out of memory\n");
		return 2;
	}
	for (unsigned j = 0; j < cont; j++) {
		uint64_t pte = pm_pfn_pte(pfn0 + j, prot, shift);

		if (scenario == 1)
			pte = pm_mkyoung(pm_mkdirty(pte));
		else if (scenario == 2 && j == 8)
			pte = pm_mkyoung(pte);
		accb_store(&e[j], pte);
	}

	const char *names[2];
	unsigned nr = 0;
	if (!strcmp(reader, "both")) {
		names[nr++] = "baseline";
		names[nr++] = "early_exit";
	} else {
		names[nr++] = reader;
	}
	read_fn fn[2];
	for (unsigned k = 0; k < nr; k++) {
		char bare[64];
		const struct variant *v;

		if (!strcmp(names[k], "kernel_tree"))
			snprintf(bare, sizeof(bare), "kernel_tree");
		else
			snprintf(bare, sizeof(bare), "bare_%s", names[k]);
		v = variant_find(bare, g);
		if (!v) {
			fprintf(stderr, "bench_seed002: variant %s not built for %s%s\n", bare, g->name,
				strcmp(names[k], "kernel_tree") ? "" :
				" (a kernel tree's binary is built for one granule)");
			return 2;
		}
		fn[k] = locked ? v->ptep_get : v->ptep_get_lockless;
		/* Sanity: the gathered bits are what the scenario says. */
		uint64_t r = fn[k](&e[3]);
		bool want_young = scenario != 3, want_dirty = scenario == 1;
		if (pm_young(r) != want_young || pm_dirty(r) != want_dirty ||
		    pm_pfn(r, shift) != pfn0 + 3) {
			fprintf(stderr, "bench_seed002: %s returned %s, not what scenario %d needs\n",
				bare, pm_format(r, shift).s, scenario);
			return 1;
		}
	}

	const char *what = locked ? "locked gather contpte_ptep_get (variant->ptep_get)"
				  : "lockless gather contpte_ptep_get_lockless";
	if (nr == 1) {
		/* Chunks of 4096 reads (the rest in a last, shorter one); the
		 * median chunk's ns/read, robust to a moment of preemption. */
		const uint64_t chunk = 4096;
		uint64_t rounds = (iters + chunk - 1) / chunk, sum = 0, left = iters;
		double *t = calloc(rounds ? rounds : 1, sizeof(double));

		if (!t) {
			fprintf(stderr, "bench_seed002: out of memory\n");
			return 2;
		}
		for (uint64_t r = 0; r < rounds; r++, left -= chunk) {
			uint64_t n = left < chunk ? left : chunk;
			double t0 = now_ns();

			sum += read_loop(fn[0], e, cont, n);
			t[r] = (now_ns() - t0) / n;
		}
		qsort(t, rounds, sizeof(double), cmp_double);
		printf("bench_seed002: scenario %d (%s), reader %s%s (uninstrumented: what the "
		       "kernel would run), granule %s, %s, %llu reads: %.2f ns/read (median of %llu "
		       "chunks; checksum %llx)\n",
		       scenario, scenario_text[scenario], strcmp(names[0], "kernel_tree") ? "bare_" : "",
		       names[0], g->name, what, (unsigned long long)iters,
		       rounds ? t[rounds / 2] : 0.0, (unsigned long long)rounds,
		       (unsigned long long)sum);
		free(t);
	} else {
		/* Alternate chunks of the two readers; median ns/read per chunk
		 * for each, so both see the same machine conditions. */
		const uint64_t chunk = 4096;
		uint64_t rounds = iters / chunk ? iters / chunk : 1;
		double *t[2] = { calloc(rounds, sizeof(double)), calloc(rounds, sizeof(double)) };
		double *ratio = calloc(rounds, sizeof(double));
		uint64_t sum = 0;

		if (!t[0] || !t[1] || !ratio) {
			fprintf(stderr, "bench_seed002: out of memory\n");
			return 2;
		}
		sum += read_loop(fn[0], e, cont, chunk);   /* warm up */
		sum += read_loop(fn[1], e, cont, chunk);
		for (uint64_t r = 0; r < rounds; r++) {
			for (unsigned q = 0; q < 2; q++) {
				unsigned k = (r & 1) ? 1 - q : q;
				double t0 = now_ns();

				sum += read_loop(fn[k], e, cont, chunk);
				t[k][r] = (now_ns() - t0) / chunk;
			}
			ratio[r] = t[1][r] / t[0][r];
		}
		qsort(t[0], rounds, sizeof(double), cmp_double);
		qsort(t[1], rounds, sizeof(double), cmp_double);
		qsort(ratio, rounds, sizeof(double), cmp_double);
		printf("bench_seed002: scenario %d (%s), bare readers (uninstrumented: what the "
		       "kernel would run), granule %s, %s, %llu x %llu reads each, alternating\n",
		       scenario, scenario_text[scenario], g->name, what,
		       (unsigned long long)rounds, (unsigned long long)chunk);
		printf("native: baseline %.2f ns/read  early_exit %.2f ns/read  "
		       "ratio early_exit/baseline %.3f (medians over chunks; checksum %llx)\n",
		       t[0][rounds / 2], t[1][rounds / 2], ratio[rounds / 2],
		       (unsigned long long)sum);
		free(t[0]);
		free(t[1]);
		free(ratio);
	}
	free(e);
	return 0;
}
