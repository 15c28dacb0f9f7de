/*
 * fuzz/mutator.c - the AFL++ custom mutator over interleaving scripts
 * (docs/fuzzing.md, "The custom mutator"): a shared library afl-fuzz loads
 * with AFL_CUSTOM_MUTATOR_LIBRARY (//fuzz:libscript_mutator.so, built in the
 * default configuration: it runs inside afl-fuzz, not in the target).
 *
 * Each queue entry AFL++ picks is read and run once on the engine
 * in-process (fuzz/mutate.h: the schedule it took, the memory model's
 * choices, its reads-from pairs), then afl_custom_fuzz makes FUZZ_MUTANTS
 * (default 4) structural mutants of it, each a valid script. Few mutants
 * per pick keep afl-fuzz moving over its queue: the bugs here fall to the
 * fresh programs and schedules that enter it, not to many mutants of one
 * entry (docs/fuzzing.md, "Mutants per queue entry"). The initial seeds,
 * hand-written scenarios an edit or two from some of the bugs, are the
 * exception: FUZZ_SEED_MUTANTS (default 32) each time one is picked, most
 * of all in afl-fuzz's first pass over its input (docs/fuzzing.md,
 * "Mutants per seed"). Run with
 * AFL_CUSTOM_MUTATOR_ONLY=1 (the tools do): byte-level havoc is one of the
 * mutator's own operators, a minority.
 *
 * Environment (afl-fuzz passes its own to the library):
 *   FUZZ_VARIANT, FUZZ_GRANULE   the target, as for the harness
 *   FUZZ_MUTANTS                 mutants per queue entry, 1-65536 (default 4)
 *   FUZZ_SEED_MUTANTS            mutants per pick of an initial seed (the
 *                                queue file's name has ",orig:"), 1-65536
 *                                (default 32: docs/fuzzing.md, "Mutants
 *                                per seed")
 *   FUZZ_MUTATOR_OPS             weights, "name=W,name=W,..." (mutate.c's
 *                                mut_op_names), to measure an operator's worth
 *   FUZZ_MUTANT_FILTER           1 (default): a mutant emitted recently is
 *                                not emitted again (fuzz/mutant_filter.h):
 *                                the mutator makes another, up to
 *                                MUTANT_FILTER_TRIES in all, and if every one was
 *                                made before, hands afl-fuzz none (no
 *                                execution); 0: off, to measure it
 *   FUZZ_MUTATOR_STATS           a file to write, at exit, the mutants each
 *                                operator made and, of those, the ones made
 *                                again and not emitted (and invalid ones:
 *                                must be 0), the calls that emitted nothing
 *                                (emitted_none), the entries fuzzed
 *                                (picks), of them initial seeds
 *                                (seed_picks), the mutants made of those
 *                                (seed_mutants),
 *                                and the parents analysed with a run and from
 *                                the cache (fuzz/parent_cache.h); created at
 *                                start, so a bad path fails then
 * A bad value of any of them stops afl-fuzz with a message (exit 2).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pte.h"
#include "fuzz/mutant_filter.h"
#include "fuzz/mutate.h"

#define EXPORT __attribute__((visibility("default")))
#define FUZZ_MUTANTS_DEFAULT 4
#define FUZZ_SEED_MUTANTS_DEFAULT 32
#define MUT_WEIGHT_MAX 1000000u

struct afl_mutator {
	struct mutator m;
	unsigned mutants, seed_mutants;
	bool seed_pick;               /* afl-fuzz's current entry is an initial seed */
	const char *stats;
	bool filter_on;
	struct mutant_filter filter;
	uint64_t again[MO_COUNT];     /* mutants made again, by operator: not emitted */
	uint64_t empty;               /* calls that emitted nothing */
	uint64_t picks, seed_picks;   /* entries fuzzed, of which initial seeds */
	uint64_t seed_made;           /* mutants made of initial seeds (stats: seed_mutants) */
	uint8_t out[SCRIPT_MAX_BYTES + 16];
};

static void bad(const char *what)
{
	fprintf(stderr, "script_mutator: %s\n", what);
	exit(2);
}

static void bad_op(const char *what, const char *token)
{
	fprintf(stderr, "script_mutator: FUZZ_MUTATOR_OPS: %s '%s' (name=WEIGHT,..., a name one of", what, token);
	for (int k = 0; k < MO_COUNT; k++)
		fprintf(stderr, " %s", mut_op_names[k]);
	fprintf(stderr, "; WEIGHT 0-%u)\n", MUT_WEIGHT_MAX);
	exit(2);
}

/* A whole decimal number 0..max (digits only: no sign, no blanks); false
 * otherwise. FUZZ_MUTANTS and the operator weights read the same way. */
static bool read_count(const char *t, unsigned long max, unsigned long *v)
{
	char *end;

	if (*t < '0' || *t > '9')
		return false;
	*v = strtoul(t, &end, 10);
	return !*end && *v <= max;
}

/* A count of mutants from the environment variable NAME, 1-65536; its
 * default when unset or empty, a stop with WHAT when it does not read. */
static unsigned mutants_from_env(const char *name, unsigned dflt, const char *what)
{
	const char *t = getenv(name);
	unsigned long k;
	char msg[128];

	if (!t || !*t)
		return dflt;
	if (!read_count(t, 65536, &k) || k < 1) {
		snprintf(msg, sizeof(msg), "%s: %s, 1-65536", name, what);
		bad(msg);
	}
	return (unsigned)k;
}

/* Every entry must read: an unknown name, a weight that is not a number
 * or a list that leaves every operator at 0 stops afl-fuzz with a message
 * instead of measuring something else than was asked. */
static void set_weights(struct mutator *m, const char *spec)
{
	char buf[512], *save, *t;
	unsigned long sum = 0;

	if (strlen(spec) >= sizeof(buf))
		bad("FUZZ_MUTATOR_OPS: longer than 511 characters");
	snprintf(buf, sizeof(buf), "%s", spec);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		unsigned long w;
		int k;

		if (!eq)
			bad_op("no '=' in", t);
		*eq = 0;
		for (k = 0; k < MO_COUNT && strcmp(t, mut_op_names[k]); k++)
			;
		if (k == MO_COUNT)
			bad_op("unknown operator", t);
		if (!read_count(eq + 1, MUT_WEIGHT_MAX, &w))
			bad_op("bad weight", eq + 1);
		m->weight[k] = (unsigned)w;
	}
	for (int k = 0; k < MO_COUNT; k++)
		sum += m->weight[k];
	if (!sum)
		bad("FUZZ_MUTATOR_OPS: every operator's weight is 0");
}

EXPORT void *afl_custom_init(void *afl, unsigned int seed)
{
	const char *v = getenv("FUZZ_VARIANT"), *g = getenv("FUZZ_GRANULE");
	const char *ops = getenv("FUZZ_MUTATOR_OPS"), *filter = getenv("FUZZ_MUTANT_FILTER");
	const struct granule *gr;
	struct afl_mutator *d;
	char err[512];

	(void)afl;
	if (!(d = calloc(1, sizeof(*d))))
		return NULL;
	if (!v || !*v)
		v = "baseline";
	if (!(gr = granule_by_name(g && *g ? g : "4k")))
		bad("FUZZ_GRANULE is not 4k, 16k or 64k");
	if (mut_init(&d->m, v, gr->kb, seed, err, sizeof(err)))
		bad(err);
	d->mutants = mutants_from_env("FUZZ_MUTANTS", FUZZ_MUTANTS_DEFAULT, "mutants per queue entry");
	d->seed_mutants = mutants_from_env("FUZZ_SEED_MUTANTS", FUZZ_SEED_MUTANTS_DEFAULT,
					   "mutants per pick of an initial seed");
	if (ops && *ops)
		set_weights(&d->m, ops);
	if (filter && *filter && strcmp(filter, "0") && strcmp(filter, "1"))
		bad("FUZZ_MUTANT_FILTER: 0 or 1");
	d->filter_on = !(filter && !strcmp(filter, "0"));
	if (d->filter_on && !mutant_filter_init(&d->filter))
		bad("no memory for the mutant filter");
	d->stats = getenv("FUZZ_MUTATOR_STATS");
	if (d->stats && *d->stats) {
		/* a path that cannot be written fails now, not after the campaign */
		FILE *f = fopen(d->stats, "w");

		if (!f) {
			fprintf(stderr, "script_mutator: FUZZ_MUTATOR_STATS='%s': cannot write it\n", d->stats);
			exit(2);
		}
		fclose(f);
	} else {
		d->stats = NULL;
	}
	return d;
}

/* Called with each entry afl-fuzz is about to fuzz (before its own skip
 * of entries that are not favoured): note whether it is an initial seed. */
EXPORT uint8_t afl_custom_queue_get(void *data, const uint8_t *filename)
{
	struct afl_mutator *d = data;

	d->seed_pick = filename && strstr((const char *)filename, ",orig:");
	return 1;
}

/* Called once per queue entry before its mutants: the analysis run. */
EXPORT unsigned afl_custom_fuzz_count(void *data, const uint8_t *buf, size_t len)
{
	struct afl_mutator *d = data;

	if (!mut_set_parent(&d->m, buf, len))
		return 0;
	/* the parent itself ran already: a mutant equal to it is made again */
	if (d->filter_on)
		mutant_filter_seen(&d->filter, buf, len);
	d->picks++;
	if (!d->seed_pick)
		return d->mutants;
	d->seed_picks++;
	return d->seed_mutants;
}

EXPORT size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t len, uint8_t **out, uint8_t *add,
			      size_t addlen, size_t max)
{
	struct afl_mutator *d = data;
	size_t n;

	*out = d->out;
	if (!mut_set_parent(&d->m, buf, len))
		return 0;
	d->seed_made += d->seed_pick;
	n = mutant_filter_fuzz(d->filter_on ? &d->filter : NULL, &d->m, add, addlen, d->out, max, d->again);
	if (!n)
		d->empty++;     /* afl-fuzz runs nothing for this one */
	return n;
}

/* The operator behind the last mutant: AFL++ puts it in queue and crash
 * file names (op:...), so a campaign shows which operators find things. */
EXPORT const char *afl_custom_describe(void *data, size_t max)
{
	struct afl_mutator *d = data;

	(void)max;
	return mut_op_names[d->m.last];
}

EXPORT void afl_custom_deinit(void *data)
{
	struct afl_mutator *d = data;
	FILE *f;

	if (d->stats) {
		if ((f = fopen(d->stats, "w"))) {
			/* operator, mutants made, of those made again (not emitted) */
			for (int i = 0; i < MO_COUNT; i++)
				fprintf(f, "%s\t%llu\t%llu\n", mut_op_names[i], (unsigned long long)d->m.applied[i],
					(unsigned long long)d->again[i]);
			fprintf(f, "invalid\t%llu\n", (unsigned long long)d->m.invalid);
			fprintf(f, "emitted_none\t%llu\n", (unsigned long long)d->empty);
			fprintf(f, "picks\t%llu\n", (unsigned long long)d->picks);
			fprintf(f, "seed_picks\t%llu\n", (unsigned long long)d->seed_picks);
			fprintf(f, "seed_mutants\t%llu\n", (unsigned long long)d->seed_made);
			fprintf(f, "parents_run\t%llu\n", (unsigned long long)d->m.analyses);
			fprintf(f, "parents_cached\t%llu\n", (unsigned long long)d->m.cache.hits);
			fclose(f);
		} else {
			fprintf(stderr, "script_mutator: FUZZ_MUTATOR_STATS='%s': cannot write it at exit\n", d->stats);
		}
	}
	mut_fini(&d->m);
	if (d->filter_on)
		mutant_filter_fini(&d->filter);
	free(d);
}
