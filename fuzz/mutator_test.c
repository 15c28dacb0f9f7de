/*
 * fuzz/mutator_test.c - the custom mutator's structural mutations
 * (fuzz/mutate.h) over the seed scripts given as arguments:
 *
 *   1. every mutant, of every operator, decodes strictly and is a script
 *      of the target's granule and variant; none was replaced for being
 *      invalid;
 *   2. every operator applies (it made mutants of its own), and the
 *      schedule operators change the run (another trace than the parent's)
 *      in most of their mutants;
 *   3. inserted instructions cover every opcode the descriptor tables have;
 *   4. reads-from by reordering (sc): the chosen load reads the chosen
 *      store in a good share of the mutants, and another store than before
 *      in most;
 *   5. reads-from by choice (arm): the chosen load, at the same step, reads
 *      another write than in the parent in (nearly) every mutant;
 *   6. the same seed gives the same mutants, another seed others;
 *   7. a parent's reads-from pairs are counted once, however often it is
 *      picked;
 *   8. a parent picked again is not run again: its analysis comes from
 *      the parent cache, the same as a fresh run's; the cache compares
 *      whole keys, replaces on a collision, and refuses past its bound;
 *   9. the mutant filter: a script added is seen, another is not; through
 *      it, 3,000 mutants of one parent are all different, while without
 *      it the same mutator remakes some (so the check can fail);
 *  10. forced steps: each step's thread is among the threads the analysis
 *      says could take it; after the last step two threads could take,
 *      any schedule makes the parent's run (what tail and redraw rely on
 *      to cut before it), while from that step on another can differ;
 *      reads-from mutants (sc and arm) run another run than the parent's
 *      (with the parent's blocked threads ignored, 3% of them here, 73%
 *      of hw_young_dirty's under arm, did not: the engine skips a
 *      schedule's step for a thread that cannot run).
 *  11. alike choices (arm): every choice's alike mask names the option
 *      taken; set to another option it names (a store held back or not as
 *      in the parent, a write of the same value), a choice makes the
 *      parent's run again; set to one it does not name, mostly another.
 * Exit 0 pass, 1 fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz/mutant_filter.h"
#include "fuzz/mutate.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

static struct mutator M, M2;
static uint8_t buf[SCRIPT_MAX_BYTES + 16], out[SCRIPT_MAX_BYTES + 16];
static struct script S, D;

struct seed { uint8_t *bin; size_t len; unsigned kb; };
static struct seed seeds[64];
static unsigned nseeds;

static void load_seed(const char *path)
{
	FILE *f = fopen(path, "rb");
	static char text[SCRIPT_TEXT_MAX];
	struct script_error err;
	size_t n;

	if (!f) {
		printf("FAIL: cannot read %s\n", path);
		fails++;
		return;
	}
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	if (script_parse(text, &S, &err)) {
		printf("FAIL: %s: line %zu: %s\n", path, err.offset, err.reason);
		fails++;
		return;
	}
	if (nseeds == 64)
		return;
	/* the targets linked here: baseline 4k and 16k (64k seeds run as 4k:
	 * the lenient reading fits their entries) */
	seeds[nseeds].kb = S.granule_kb == 16 ? 16 : 4;
	S.expect = EXPECT_NONE;
	n = script_encode(&S, buf);
	seeds[nseeds].bin = malloc(n);
	memcpy(seeds[nseeds].bin, buf, n);
	seeds[nseeds].len = n;
	nseeds++;
}

static uint64_t trace_of(const struct mutator *m, const uint8_t *b, size_t n)
{
	struct script_error err;
	struct run_result r;
	struct run_opts o = { .variant = m->v, .policy = { .kind = ES_SCRIPT } };

	if (script_decode(b, n, &D, &err))
		return 0;
	run_script(&D, &o, &r);
	return r.hash ^ r.steps;
}

static void init(struct mutator *m, unsigned kb, uint64_t seed)
{
	char err[256];

	mut_fini(m);
	if (mut_init(m, "baseline", kb, seed, err, sizeof(err))) {
		printf("FAIL: mut_init: %s\n", err);
		exit(1);
	}
}

/* 1, 2, 3 */
static void test_operators(void)
{
	uint64_t applied[MO_COUNT] = { 0 }, changed[MO_COUNT] = { 0 }, bad = 0, total = 0;
	bool opseen[256] = { false };

	for (unsigned i = 0; i < nseeds; i++) {
		init(&M, seeds[i].kb, 1000 + i);
		for (int arm = 0; arm < 2; arm++) {
			struct script_error err;
			size_t n;

			/* the seed, and the seed under the arm model */
			script_walk(seeds[i].bin, seeds[i].len, SCRIPT_LENIENT, M.cont, &S, &err);
			S.memory = arm ? MEM_ARM : MEM_SC;
			n = script_encode(&S, buf);
			if (!mut_set_parent(&M, buf, n)) {
				CHECK(0, "seed %u does not read as a parent", i);
				continue;
			}
			uint64_t parent = trace_of(&M, buf, n);

			for (int op = 0; op <= MO_COUNT; op++) {
				for (int k = 0; k < (op == MO_COUNT ? 400 : 60); k++) {
					size_t len = mut_fuzz(&M, (enum mut_op)op, seeds[(i + 1) % nseeds].bin,
							      seeds[(i + 1) % nseeds].len, out);

					total++;
					if (script_decode(out, len, &D, &err) || D.granule_kb != seeds[i].kb ||
					    strcmp(D.variant, "baseline")) {
						if (bad++ < 5)
							printf("FAIL: seed %u op %s: mutant invalid (%s)\n", i,
							       mut_op_names[M.last], err.reason);
						continue;
					}
					if (op == MO_COUNT || M.last != (enum mut_op)op)
						continue;
					applied[op]++;
					if (trace_of(&M, out, len) != parent)
						changed[op]++;
					if (op == MO_INSERT)
						for (unsigned t = 0; t < D.nthreads; t++)
							for (unsigned j = 0; j < D.ninstr[t]; j++)
								opseen[D.prog[t][j].op] = true;
				}
			}
		}
		CHECK(M.invalid == 0, "seed %u: %llu mutants replaced for being invalid", i,
		      (unsigned long long)M.invalid);
	}
	CHECK(bad == 0, "%llu of %llu mutants invalid", (unsigned long long)bad, (unsigned long long)total);
	printf("mutants: %llu, all valid: %s\n", (unsigned long long)total, bad ? "no" : "yes");
	for (int op = 0; op < MO_COUNT; op++) {
		printf("  %-10s applied %5llu, changed the run %5llu (%.0f%%)\n", mut_op_names[op],
		       (unsigned long long)applied[op], (unsigned long long)changed[op],
		       applied[op] ? 100.0 * changed[op] / applied[op] : 0.0);
		CHECK(applied[op] > 0, "operator %s never applied", mut_op_names[op]);
	}
	/* the schedule and reads-from operators must change the run mostly
	 * (an edit past the end of the run, or a swap of steps of threads that
	 * do not interact, may not) */
	static const enum mut_op sched_ops[] = { MO_TAIL, MO_REDRAW, MO_PREEMPT, MO_SEGMENT, MO_RF, MO_RF_CHOICE };

	for (unsigned k = 0; k < sizeof(sched_ops) / sizeof(sched_ops[0]); k++) {
		enum mut_op op = sched_ops[k];

		CHECK(changed[op] * 2 > applied[op], "%s changed the run in only %llu of %llu mutants",
		      mut_op_names[op], (unsigned long long)changed[op], (unsigned long long)applied[op]);
	}
	for (unsigned op = 1; op < 256; op++)
		CHECK(!instr_desc((uint8_t)op) || opseen[op], "opcode 0x%02x (%s) never inserted", op,
		      instr_name((uint8_t)op));
}

/* 4, 5 */
static void test_reads_from(void)
{
	unsigned sc_tries = 0, sc_hit = 0, sc_changed = 0, arm_tries = 0, arm_changed = 0;

	for (unsigned i = 0; i < nseeds; i++) {
		for (int arm = 0; arm < 2; arm++) {
			struct script_error err;
			size_t n;

			init(&M, seeds[i].kb, 77 + i);
			init(&M2, seeds[i].kb, 1);
			script_walk(seeds[i].bin, seeds[i].len, SCRIPT_LENIENT, M.cont, &S, &err);
			S.memory = arm ? MEM_ARM : MEM_SC;
			n = script_encode(&S, buf);
			if (!mut_set_parent(&M, buf, n))
				continue;
			for (int k = 0; k < 100; k++) {
				size_t len = mut_fuzz(&M, arm ? MO_RF_CHOICE : MO_RF, NULL, 0, out);
				if (M.last != (arm ? MO_RF_CHOICE : MO_RF))
					continue;
				if (!mut_set_parent(&M2, out, len)) {
					CHECK(0, "a reads-from mutant does not read back");
					continue;
				}
				if (arm) {
					/* the same schedule and choices up to the load: the
					 * load at the same step reads another write */
					arm_tries++;
					for (unsigned j = 0; j < M2.parent.nloads; j++)
						if (M2.parent.loads[j].site == M.rf.load_site &&
						    M2.parent.loads[j].step == M.rf.step) {
							arm_changed += M2.parent.loads[j].tag != M.rf.from_tag;
							break;
						}
				} else {
					/* reordered: the same load (its first run) reads the
					 * store it was moved to, or at least another one */
					bool any = false, hit = false;

					sc_tries++;
					for (unsigned j = 0; j < M2.parent.nloads; j++) {
						const struct mut_load *L = &M2.parent.loads[j];
						uint32_t fs = L->src >= 0 ? M2.parent.stores[L->src].site : 0;
						uint32_t fst = L->src >= 0 ? M2.parent.stores[L->src].step : 0;

						if (L->site != M.rf.load_site)
							continue;
						hit |= fs == M.rf.to_site;
						any |= fst != M.rf.from_step;
					}
					sc_hit += hit;
					sc_changed += any || hit;
				}
			}
		}
	}
	printf("reads-from by reordering (sc): %u mutants, the chosen store read in %u (%.0f%%), another store in %u (%.0f%%)\n",
	       sc_tries, sc_hit, sc_tries ? 100.0 * sc_hit / sc_tries : 0.0, sc_changed,
	       sc_tries ? 100.0 * sc_changed / sc_tries : 0.0);
	printf("reads-from by choice (arm): %u mutants, another write read in %u (%.0f%%)\n", arm_tries,
	       arm_changed, arm_tries ? 100.0 * arm_changed / arm_tries : 0.0);
	CHECK(sc_tries >= 100, "too few reads-from mutants under sc (%u)", sc_tries);
	CHECK(sc_hit * 2 >= sc_tries, "the chosen store was read in only %u of %u sc mutants", sc_hit, sc_tries);
	CHECK(sc_changed * 10 >= sc_tries * 8, "another store was read in only %u of %u sc mutants", sc_changed, sc_tries);
	CHECK(arm_tries >= 100, "too few reads-from mutants under arm (%u)", arm_tries);
	CHECK(arm_changed * 100 >= arm_tries * 95, "another write was read in only %u of %u arm mutants",
	      arm_changed, arm_tries);
}

/* 6, 7 */
static void test_determinism_and_counts(void)
{
	static uint8_t a[SCRIPT_MAX_BYTES + 16];
	unsigned same = 0, differ = 0;
	uint64_t before = 0, after = 0, again = 0;

	init(&M, seeds[0].kb, 5);
	init(&M2, seeds[0].kb, 5);
	mut_set_parent(&M, seeds[0].bin, seeds[0].len);
	mut_set_parent(&M2, seeds[0].bin, seeds[0].len);
	for (int k = 0; k < 200; k++) {
		size_t n1 = mut_fuzz(&M, MO_COUNT, NULL, 0, a), n2 = mut_fuzz(&M2, MO_COUNT, NULL, 0, out);

		same += n1 == n2 && !memcmp(a, out, n1);
	}
	init(&M2, seeds[0].kb, 6);
	init(&M, seeds[0].kb, 5);
	mut_set_parent(&M, seeds[0].bin, seeds[0].len);
	mut_set_parent(&M2, seeds[0].bin, seeds[0].len);
	for (int k = 0; k < 200; k++) {
		size_t n1 = mut_fuzz(&M, MO_COUNT, NULL, 0, a), n2 = mut_fuzz(&M2, MO_COUNT, NULL, 0, out);

		differ += n1 != n2 || memcmp(a, out, n1);
	}
	CHECK(same == 200, "same seed: %u of 200 mutants the same", same);
	CHECK(differ > 100, "another seed: only %u of 200 mutants differ", differ);

	init(&M, seeds[1 % nseeds].kb, 9);
	for (unsigned s = 0; s < MUT_PAIR_SLOTS; s++)
		before += M.pair_count[s];
	mut_set_parent(&M, seeds[1 % nseeds].bin, seeds[1 % nseeds].len);
	for (unsigned s = 0; s < MUT_PAIR_SLOTS; s++)
		after += M.pair_count[s];
	unsigned first = M.parent.nloads, second;

	mut_set_parent(&M, seeds[2 % nseeds].bin, seeds[2 % nseeds].len);
	second = M.parent.nloads;
	mut_set_parent(&M, seeds[1 % nseeds].bin, seeds[1 % nseeds].len);   /* again */
	for (unsigned s = 0; s < MUT_PAIR_SLOTS; s++)
		again += M.pair_count[s];
	CHECK(before == 0 && after == first && first > 0,
	      "a parent's pairs counted %llu times for %u loads", (unsigned long long)after, first);
	CHECK(again == after + second, "picked again, a parent's pairs were counted again (%llu, not %llu)",
	      (unsigned long long)again, (unsigned long long)(after + second));
	printf("determinism: same seed %u/200 identical, another seed %u/200 different; pairs counted %llu for %u loads\n",
	       same, differ, (unsigned long long)after, M.parent.nloads);
}

static bool same_analysis(const struct mut_parent *a, const struct mut_parent *b)
{
	if (a->status != b->status || a->complete != b->complete || a->nsteps != b->nsteps ||
	    a->nchoices != b->nchoices || a->nloads != b->nloads || a->nstores != b->nstores ||
	    memcmp(a->steps, b->steps, a->nsteps) || memcmp(a->runnable, b->runnable, a->nsteps) ||
	    memcmp(a->choices, b->choices, a->nchoices) ||
	    memcmp(a->choice_n, b->choice_n, a->nchoices) ||
	    memcmp(a->choice_alike, b->choice_alike, 8 * a->nchoices))
		return false;
	for (unsigned i = 0; i < a->nloads; i++) {
		const struct mut_load *x = &a->loads[i], *y = &b->loads[i];

		if (x->step != y->step || x->tid != y->tid || x->instr != y->instr || x->src != y->src ||
		    x->tag != y->tag || x->choice != y->choice || x->nopt != y->nopt || x->off != y->off ||
		    x->site != y->site)
			return false;
	}
	for (unsigned i = 0; i < a->nstores; i++) {
		const struct mut_store *x = &a->stores[i], *y = &b->stores[i];

		if (x->step != y->step || x->tid != y->tid || x->instr != y->instr || x->off != y->off ||
		    x->site != y->site)
			return false;
	}
	return true;
}

/* 8 */
static void test_parent_cache(void)
{
	static struct parent_cache C;
	static const uint8_t k1[] = "one", k2[] = "two", k3[] = "six";
	unsigned hits = 0, same = 0, loads = 0;
	size_t n;

	for (unsigned i = 0; i < nseeds; i++) {
		const struct seed *a = &seeds[i], *b = &seeds[(i + 1) % nseeds];
		uint64_t runs;

		init(&M, a->kb, 11);
		init(&M2, a->kb, 11);
		mut_set_parent(&M, a->bin, a->len);
		mut_set_parent(&M, b->bin, b->len);
		runs = M.analyses;
		mut_set_parent(&M, a->bin, a->len);        /* picked again */
		hits += M.analyses == runs && M.cache.hits > 0;
		mut_set_parent(&M2, a->bin, a->len);       /* a fresh run */
		same += same_analysis(&M.parent, &M2.parent);
		loads += M.parent.nloads;
	}
	CHECK(hits == nseeds, "picked again, %u of %u parents came from the cache", hits, nseeds);
	CHECK(same == nseeds && loads > 0, "only %u of %u cached analyses equal a fresh run's", same, nseeds);

	/* three values of a third of the bound each do not fit with their keys */
	void *v1 = parent_cache_put(&C, 1, k1, 3, PARENT_CACHE_BYTES / 3);
	void *v2 = parent_cache_put(&C, 2, k2, 3, PARENT_CACHE_BYTES / 3);
	CHECK(v1 && v2 && !parent_cache_put(&C, 3, k3, 3, PARENT_CACHE_BYTES / 3),
	      "the cache took more than PARENT_CACHE_BYTES");
	CHECK(parent_cache_get(&C, 1, k1, 3, &n) == v1 && n == PARENT_CACHE_BYTES / 3 &&
	      !parent_cache_get(&C, 1, k3, 3, &n), "a key was not compared in full");
	/* the same slot: replaces the first, within the bound */
	CHECK(parent_cache_put(&C, 1 + PARENT_CACHE_SLOTS, k3, 3, 8) && !parent_cache_get(&C, 1, k1, 3, &n) &&
	      parent_cache_get(&C, 1 + PARENT_CACHE_SLOTS, k3, 3, &n) && n == 8,
	      "a colliding entry did not replace the older one");
	parent_cache_clear(&C);
	CHECK(C.bytes == 0 && !parent_cache_get(&C, 2, k2, 3, &n), "clear left entries");
	printf("parent cache: %u/%u parents picked again came from the cache, %u/%u equal to a fresh run (%u loads)\n",
	       hits, nseeds, same, nseeds, loads);
}

/* 10, 11: the parent's first k steps, then noise random entries, in a
 * copy of S (under arm with every choice the parent's run took, choice ci
 * set to cv unless ci < 0, so that only what is asked differs); its trace */
static uint64_t spelled_run(const struct mut_parent *P, unsigned k, unsigned noise, uint64_t *rng, int ci,
			    uint8_t cv)
{
	static struct script X;
	static uint8_t b[SCRIPT_MAX_BYTES + 16];
	unsigned n = 0;

	X = S;
	for (unsigned i = 0; i < k; i++) {
		if (n && (X.sched[n - 1] & 7) == P->steps[i] && (X.sched[n - 1] >> 3) < 31)
			X.sched[n - 1] += 8;
		else if (n < SCRIPT_MAX_SCHED - noise)
			X.sched[n++] = P->steps[i];
		else
			return 0;
	}
	for (unsigned e = 0; e < noise; e++) {
		*rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
		X.sched[n++] = (uint8_t)((*rng >> 33) % X.nthreads | ((*rng >> 40) % 32) << 3);
	}
	X.nsched = n;
	X.nchoices = X.memory == MEM_ARM ? P->nchoices : 0;
	memcpy(X.choices, P->choices, X.nchoices);
	if (ci >= 0)
		X.choices[ci] = cv;
	return trace_of(&M, b, script_encode(&X, b));
}

static uint64_t prefix_then_noise(const struct mut_parent *P, unsigned k, uint64_t *rng)
{
	return spelled_run(P, k, 8, rng, -1, 0);
}

/* 10 */
static void test_forced_steps(void)
{
	unsigned made = 0, same = 0, steps = 0, bad = 0, forced = 0, forced_diff = 0, free_tries = 0, free_diff = 0;
	uint64_t rng = 1;

	for (unsigned i = 0; i < nseeds; i++) {
		for (int arm = 0; arm < 2; arm++) {
			const struct mut_parent *P = &M.parent;
			struct script_error err;
			size_t n;
			int f = -1;

			init(&M, seeds[i].kb, 31 + i);
			script_walk(seeds[i].bin, seeds[i].len, SCRIPT_LENIENT, M.cont, &S, &err);
			S.memory = arm ? MEM_ARM : MEM_SC;
			n = script_encode(&S, buf);
			if (!mut_set_parent(&M, buf, n))
				continue;
			for (unsigned k = 0; k < P->nsteps; k++, steps++) {
				bad += !(P->runnable[k] >> P->steps[k] & 1);
				if (P->runnable[k] & (P->runnable[k] - 1))
					f = (int)k;
			}
			uint64_t parent = trace_of(&M, buf, n);

			if (P->status == RS_CLEAN && P->complete && f >= 0 && P->nchoices < SCRIPT_MAX_CHOICES)
				for (int k = 0; k < 4; k++) {
					uint64_t after = prefix_then_noise(P, (unsigned)f + 1, &rng);
					uint64_t at = prefix_then_noise(P, (unsigned)f, &rng);

					forced += after != 0;
					forced_diff += after && after != parent;
					free_tries += at != 0;
					free_diff += at && at != parent;
				}
			for (int k = 0; k < 60; k++) {
				size_t len = mut_fuzz(&M, MO_RF, NULL, 0, out);

				if (M.last != MO_RF)
					continue;
				made++;
				same += trace_of(&M, out, len) == parent;
			}
		}
	}
	printf("forced steps: %u steps, %u taken by a thread not marked runnable; after the last free step "
	       "%u of %u schedules ran another run, from it %u of %u; rf made the parent's run again in %u of %u\n",
	       steps, bad, forced_diff, forced, free_diff, free_tries, same, made);
	CHECK(steps > 1000 && bad == 0, "%u of %u steps taken by a thread the analysis marks not runnable", bad, steps);
	CHECK(forced >= 40 && forced_diff == 0, "%u of %u schedules after the last free step ran another run",
	      forced_diff, forced);
	CHECK(free_diff > 0, "no schedule from the last free step on ran another run: this check cannot fail");
	CHECK(made >= 200 && same * 100 <= made, "rf: %u of %u mutants made the parent's run again", same, made);
}

static unsigned some_bit(uint64_t mask, uint64_t *rng)
{
	*rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
	for (unsigned k = (unsigned)((*rng >> 33) % (unsigned)__builtin_popcountll(mask)); k; k--)
		mask &= mask - 1;
	return (unsigned)__builtin_ctzll(mask);
}

/* 11 */
static void test_alike_choices(void)
{
	unsigned choices = 0, alike_tries = 0, alike_same = 0, unlike_tries = 0, unlike_diff = 0;
	unsigned op_made = 0, op_same = 0;
	uint64_t rng = 5;

	for (unsigned i = 0; i < nseeds; i++) {
		const struct mut_parent *P = &M.parent;
		struct script_error err;
		size_t n;

		init(&M, seeds[i].kb, 41 + i);
		script_walk(seeds[i].bin, seeds[i].len, SCRIPT_LENIENT, M.cont, &S, &err);
		S.memory = MEM_ARM;
		n = script_encode(&S, buf);
		if (!mut_set_parent(&M, buf, n) || P->status != RS_CLEAN || !P->complete ||
		    !P->nchoices || P->nchoices >= SCRIPT_MAX_CHOICES)
			continue;
		uint64_t parent = spelled_run(P, P->nsteps, 0, &rng, -1, 0);

		for (unsigned c = 0; c < P->nchoices; c++) {
			unsigned opts = P->choice_n[c];
			uint64_t all = opts >= 64 ? ~0ull : (1ull << opts) - 1;
			uint64_t alike = P->choice_alike[c] & ~(1ull << P->choices[c]);
			uint64_t other = all & ~P->choice_alike[c];

			choices++;
			CHECK(P->choice_alike[c] >> P->choices[c] & 1 && !(P->choice_alike[c] & ~all),
			      "choice %u: its alike mask %llx leaves out the option taken (%u) or names one past %u",
			      c, (unsigned long long)P->choice_alike[c], P->choices[c], opts);
			if (opts > 64 || c % 4)  /* a quarter of them: the runs cost */
				continue;
			if (alike) {
				alike_tries++;
				alike_same += spelled_run(P, P->nsteps, 0, &rng, (int)c,
							  (uint8_t)some_bit(alike, &rng)) == parent;
			}
			if (other) {
				unlike_tries++;
				unlike_diff += spelled_run(P, P->nsteps, 0, &rng, (int)c,
							   (uint8_t)some_bit(other, &rng)) != parent;
			}
		}
		for (int k = 0; k < 40; k++) {
			size_t len = mut_fuzz(&M, MO_CHOICE, NULL, 0, out);

			if (M.last != MO_CHOICE)
				continue;
			op_made++;
			op_same += trace_of(&M, out, len) == trace_of(&M, buf, n);
		}
	}
	printf("alike choices: %u choices; set to an option alike to the parent's, %u of %u made the "
	       "parent's run; to another, %u of %u another run; choice's mutants: %u of %u the parent's run\n",
	       choices, alike_same, alike_tries, unlike_diff, unlike_tries, op_same, op_made);
	CHECK(alike_tries >= 50 && alike_same * 100 >= alike_tries * 95,
	      "an option alike to the parent's made another run in %u of %u", alike_tries - alike_same,
	      alike_tries);
	CHECK(unlike_tries >= 50 && unlike_diff * 100 >= unlike_tries * 50,
	      "an option unlike the parent's made the parent's run in %u of %u", unlike_tries - unlike_diff,
	      unlike_tries);
}

/* What a mutant costs afl-fuzz (informational: the machine's load varies). */
static void time_mutants(void)
{
	struct timespec t0, t1;
	unsigned n = 20000;

	init(&M, seeds[0].kb, 3);
	mut_set_parent(&M, seeds[0].bin, seeds[0].len);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned k = 0; k < n; k++)
		mut_fuzz(&M, MO_COUNT, seeds[1].bin, seeds[1].len, out);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("mutants: %.2f us each\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / n);
}

/* 9: how many of n mutants of seed 0's parent equal an earlier one, with
 * filter f (NULL: none); *emitted the ones made */
static unsigned remade(struct mutant_filter *f, unsigned n, unsigned *emitted)
{
	static uint8_t *kept[4096];
	static size_t klen[4096];
	uint64_t again[MO_COUNT] = { 0 };
	unsigned k = 0, same = 0;

	init(&M, seeds[0].kb, 9);
	mut_set_parent(&M, seeds[0].bin, seeds[0].len);
	if (f)          /* as afl_custom_fuzz_count: the parent ran already */
		mutant_filter_seen(f, seeds[0].bin, seeds[0].len);
	for (unsigned i = 0; i < n && k < 4096; i++) {
		size_t len = mutant_filter_fuzz(f, &M, seeds[1].bin, seeds[1].len, out, sizeof(out), again);

		if (!len)
			continue;
		for (unsigned j = 0; j < k; j++)
			if (klen[j] == len && !memcmp(kept[j], out, len)) {
				same++;
				break;
			}
		kept[k] = malloc(len);
		memcpy(kept[k], out, len);
		klen[k++] = len;
	}
	for (unsigned j = 0; j < k; j++)
		free(kept[j]);
	*emitted = k;
	return same;
}

static void test_mutant_filter(void)
{
	struct mutant_filter f;
	const uint8_t a[] = "one script", b[] = "another";
	unsigned with, without, made_with, made_without;

	CHECK(mutant_filter_init(&f), "mutant_filter_init");
	CHECK(!mutant_filter_seen(&f, a, sizeof(a)), "a script never added is seen");
	CHECK(mutant_filter_seen(&f, a, sizeof(a)), "a script added is not seen");
	CHECK(!mutant_filter_seen(&f, b, sizeof(b)), "another script is seen");
	CHECK(mutant_filter_seen(&f, a, sizeof(a)), "the first script is forgotten after another");
	mutant_filter_fini(&f);

	without = remade(NULL, 3000, &made_without);
	CHECK(mutant_filter_init(&f), "mutant_filter_init");
	with = remade(&f, 3000, &made_with);
	mutant_filter_fini(&f);
	printf("mutant filter: of 3000 mutants of one parent, %u remade without it (%u made); "
	       "with it %u remade, %u emitted\n", without, made_without, with, made_with);
	CHECK(without > 0, "without the filter no mutant was remade: this check cannot fail");
	CHECK(with == 0, "%u mutants emitted through the filter were made before", with);
	CHECK(made_with > 1000, "the filter let only %u of 3000 through", made_with);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		load_seed(argv[i]);
	if (nseeds < 3) {
		printf("FAIL: need seed scripts as arguments\n");
		return 1;
	}
	test_operators();
	test_reads_from();
	test_determinism_and_counts();
	test_parent_cache();
	test_mutant_filter();
	test_forced_steps();
	test_alike_choices();
	time_mutants();
	printf("mutator_test: %d failure(s)\n", fails);
	return fails ? 1 : 0;
}
