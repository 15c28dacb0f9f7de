/*
 * core/access_test.c - the access layer's backend primitives against their
 * expected results. Written against core/access.h only, so it checks
 * whichever backend the build selects: C11 atomics on x86, the AArch64
 * LL/SC or LSE assembly under --config=aarch64 / aarch64-lse (run by
 * qemu-aarch64 with real parallel threads).
 *
 *  1. single-threaded semantics of every primitive (accb_* and the
 *     instrumented acc_* on top), on values with the high bit, zero and
 *     all-ones;
 *  2. contended runs that would lose updates if a read-modify-write were
 *     not atomic (an LL/SC loop that does not retry, a CAS that stores on a
 *     mismatch, ...): exact final values are checked:
 *       - fetch_or / fetch_andnot of distinct bits by every thread on one
 *         word, each thread checking that its bit was exactly where it left
 *         it, while others add to a counter in the same word with cmpxchg
 *         loops (so different RMW kinds interleave on one location);
 *       - cmpxchg increment loops: final count exact;
 *       - xchg: values passed through one slot are conserved (multiset sum
 *         and xor), and an xchg test-and-set lock protects a plain counter;
 *  3. a racy control (load + store increment) shows the contention is real:
 *     its lost updates are printed, not asserted.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/access.h"

static int failures;

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__,         \
				__LINE__, #cond);                             \
			fprintf(stderr, __VA_ARGS__);                         \
			fprintf(stderr, "\n");                                \
			failures++;                                           \
		}                                                             \
	} while (0)

#define HI ((uint64_t)1 << 63)

/* Keep the compiler from constant-folding through the primitives. */
static uint64_t opaque(uint64_t v)
{
	__asm__ volatile("" : "+r"(v));
	return v;
}

static void single_threaded(void)
{
	static const uint64_t vals[] = { 0, 1, 0x5a5a5a5a5a5a5a5aull, HI, ~0ull,
					 HI | 0x0f, 0x00000000ffffffffull };
	const size_t n = sizeof(vals) / sizeof(vals[0]);
	uint64_t w, r;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = opaque(vals[i]);
		/* load / store */
		accb_store(&w, a);
		CHECK(w == a, "store %#" PRIx64 " left %#" PRIx64, a, w);
		CHECK(accb_load(&w) == a, "load");
		CHECK(acc_load(&w) == a, "acc_load");
		acc_store(&w, ~a);
		CHECK(acc_peek(&w) == ~a, "acc_store");

		for (size_t j = 0; j < n; j++) {
			uint64_t b = opaque(vals[j]);
			/* cmpxchg success: returns old, stores new */
			w = a;
			r = accb_cmpxchg(&w, a, b);
			CHECK(r == a && w == b, "cmpxchg(%#" PRIx64 ", %#" PRIx64
			      ") ok -> r=%#" PRIx64 " w=%#" PRIx64, a, b, r, w);
			/* cmpxchg failure: returns the value found, no store */
			if (a != b) {
				w = a;
				r = accb_cmpxchg(&w, b, ~a);
				CHECK(r == a && w == a, "cmpxchg mismatch (found %#" PRIx64
				      ", expected %#" PRIx64 ") -> r=%#" PRIx64
				      " w=%#" PRIx64, a, b, r, w);
				w = a;
				r = acc_cmpxchg(&w, b, ~a);
				CHECK(r == a && w == a, "acc_cmpxchg mismatch");
			}
			w = a;
			r = acc_cmpxchg(&w, a, b);
			CHECK(r == a && w == b, "acc_cmpxchg ok");
			/* xchg */
			w = a;
			r = accb_xchg(&w, b);
			CHECK(r == a && w == b, "xchg(%#" PRIx64 " <- %#" PRIx64
			      ") -> r=%#" PRIx64 " w=%#" PRIx64, a, b, r, w);
			w = a;
			CHECK(acc_xchg(&w, b) == a && w == b, "acc_xchg");
			/* fetch_or */
			w = a;
			r = accb_fetch_or(&w, b);
			CHECK(r == a && w == (a | b), "fetch_or(%#" PRIx64 ", %#" PRIx64
			      ") -> r=%#" PRIx64 " w=%#" PRIx64, a, b, r, w);
			w = a;
			CHECK(acc_fetch_or(&w, b) == a && w == (a | b), "acc_fetch_or");
			/* fetch_andnot */
			w = a;
			r = accb_fetch_andnot(&w, b);
			CHECK(r == a && w == (a & ~b), "fetch_andnot(%#" PRIx64 ", %#" PRIx64
			      ") -> r=%#" PRIx64 " w=%#" PRIx64, a, b, r, w);
			w = a;
			CHECK(acc_fetch_andnot(&w, b) == a && w == (a & ~b),
			      "acc_fetch_andnot");
		}
	}
	/* neighbours untouched: the primitives are exactly 8 bytes wide */
	uint64_t arr[3] = { 0x1111, 0x2222, 0x3333 };
	accb_store(&arr[1], ~0ull);
	accb_cmpxchg(&arr[1], ~0ull, 7);
	accb_xchg(&arr[1], 9);
	accb_fetch_or(&arr[1], HI);
	accb_fetch_andnot(&arr[1], 1);
	CHECK(arr[0] == 0x1111 && arr[2] == 0x3333 && arr[1] == (HI | 8),
	      "neighbours %#" PRIx64 " %#" PRIx64 " middle %#" PRIx64,
	      arr[0], arr[2], arr[1]);
	/* fences exist and do not crash */
	accb_fence_full();
	accb_fence_acquire();
	accb_fence_release();
	acc_mb();
	acc_rmb();
	acc_wmb();
	acc_dsb();
}

/* ---- contended runs ---- */

#define THREADS 4
static long iters = 1000000;

static pthread_barrier_t start;
static uint64_t mixed;          /* low 32: cmpxchg counter; high 32: bits */
static uint64_t counter;        /* cmpxchg increments only */
static uint64_t slot;           /* xchg pass-through */
static uint64_t lock, locked_count;
static uint64_t racy;           /* load + store: loses updates */
static uint64_t bit_errors[THREADS];
static uint64_t xsum[THREADS], xxor[THREADS];
static volatile int lock_stuck;  /* a non-atomic xchg can leave the lock set
				  * with no holder: give up instead of hanging */
static struct timespec t0;

static double elapsed(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9;
}

/* Distinct pseudo-random values (splitmix64 of thread and index). */
static uint64_t token(int id, long k)
{
	uint64_t z = ((uint64_t)(id + 1) << 40) + (uint64_t)(k + 1);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	uint64_t mine = token(id, -1), sum = 0, x = 0;

	pthread_barrier_wait(&start);
	for (long k = 0; k < iters; k++) {
		/* distinct bits in the high half of `mixed`: 8 per thread */
		uint64_t bit = (uint64_t)1 << (32 + id * 8 + (k & 7));
		uint64_t old = accb_fetch_or(&mixed, bit);
		if (old & bit)
			bit_errors[id]++;        /* someone else set my bit?? */
		old = accb_fetch_andnot(&mixed, bit);
		if (!(old & bit))
			bit_errors[id]++;        /* my set was lost */

		/* cmpxchg increment of the low half of `mixed` */
		uint64_t cur = accb_load(&mixed), seen;
		for (;;) {
			uint64_t next = (cur & ~0xffffffffull) |
					((cur + 1) & 0xffffffffull);
			seen = accb_cmpxchg(&mixed, cur, next);
			if (seen == cur)
				break;
			cur = seen;
		}

		/* cmpxchg increment of a plain counter */
		cur = accb_load(&counter);
		while ((seen = accb_cmpxchg(&counter, cur, cur + 1)) != cur)
			cur = seen;

		/* xchg pass-through: what I give in, someone takes out */
		uint64_t got = accb_xchg(&slot, mine);
		sum += got;
		x ^= got;
		mine = token(id, k);

		/* xchg test-and-set lock around a plain increment */
		for (uint64_t spins = 0; accb_xchg(&lock, 1) != 0;)
			if ((++spins & 0xfffff) == 0 && (lock_stuck || elapsed() > 20)) {
				lock_stuck = 1;
				break;
			}
		if (lock_stuck)
			break;
		accb_fence_acquire();
		locked_count++;
		accb_fence_release();
		accb_store(&lock, 0);

		/* racy control */
		accb_store(&racy, accb_load(&racy) + 1);
	}
	xsum[id] = sum;
	xxor[id] = x;
	return NULL;
}

static void contended(void)
{
	pthread_t th[THREADS];
	uint64_t want_sum = 0, want_xor = 0, got_sum = 0, got_xor = 0;

	int before = failures;

	mixed = counter = slot = lock = locked_count = racy = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);

	const uint64_t total = (uint64_t)THREADS * (uint64_t)iters;
	CHECK(!lock_stuck, "the xchg test-and-set lock stayed taken with no holder "
	      "for 20 s: an xchg overwrote a release (not atomic)");
	for (int i = 0; i < THREADS; i++)
		CHECK(bit_errors[i] == 0, "thread %d: %" PRIu64
		      " fetch_or/fetch_andnot results that lost or invented its bit",
		      i, bit_errors[i]);
	CHECK((mixed >> 32) == 0, "high bits left set: %#" PRIx64, mixed >> 32);
	CHECK((mixed & 0xffffffffull) == (total & 0xffffffffull),
	      "mixed counter %" PRIu64 " want %" PRIu64, (uint64_t)(mixed & 0xffffffffull), total);
	CHECK(counter == total, "cmpxchg counter %" PRIu64 " want %" PRIu64,
	      counter, total);
	CHECK(locked_count == total, "xchg-locked counter %" PRIu64 " want %" PRIu64,
	      locked_count, total);

	/* Given into the slot: the initial 0, then every thread's tokens
	 * token(id,-1) .. token(id,iters-2). Taken out: what threads got, plus
	 * what is left in the slot. */
	for (int id = 0; id < THREADS; id++)
		for (long k = -1; k < iters - 1; k++) {
			want_sum += token(id, k);
			want_xor ^= token(id, k);
		}
	for (int i = 0; i < THREADS; i++) {
		got_sum += xsum[i];
		got_xor ^= xxor[i];
	}
	got_sum += slot;
	got_xor ^= slot;
	CHECK(got_sum == want_sum && got_xor == want_xor,
	      "xchg lost or duplicated values (sum %#" PRIx64 " want %#" PRIx64
	      ", xor %#" PRIx64 " want %#" PRIx64 ")",
	      got_sum, want_sum, got_xor, want_xor);

	printf("contended: %d threads x %ld iterations in %.2f s: %s; racy control "
	       "lost %" PRIu64 " of %" PRIu64 " updates (contention is real if > 0)\n",
	       THREADS, iters, elapsed(), failures == before ? "exact" : "WRONG",
	       total - racy, total);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], "--iters=", 8) == 0)
			iters = atol(argv[i] + 8);
	printf("access backend: %s\n", ACCESS_BACKEND_NAME);
	single_threaded();
	if (iters > 0)
		contended();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	puts("access_test: ok");
	return 0;
}
