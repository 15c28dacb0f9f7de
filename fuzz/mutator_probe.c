/*
 * fuzz/mutator_probe.c - what each operator of the custom mutator is worth
 * on one parent, without AFL++ (no feedback, no fork server): N mutants of
 * the parent (fuzz/mutate.h), each run in-process as the harness runs an
 * input (fuzz/runs.h: FUZZ_RUNS runs), counting per operator the mutants
 * that violate the contract on the target.
 *
 *   mutator_probe --target=VARIANT[:GRANULE] [--mutants=N] [--seed=S] FILE
 *
 * The mutants come through the mutant filter (fuzz/mutant_filter.h), as
 * in afl-fuzz: N is the number asked for; those made again are held back.
 * Prints one line per operator: mutants emitted, mutants that violated
 * (any kind) and the share, mutants whose run was the parent's own (the
 * same trace hash and steps: a wasted execution), and mutants made again
 * (not emitted). A development tool (docs/fuzzing.md: the figures behind
 * the weights); exit 0, 2 bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pte.h"
#include "fuzz/mutant_filter.h"
#include "fuzz/mutate.h"
#include "fuzz/runs.h"

static struct mutator M;
static uint8_t buf[SCRIPT_MAX_BYTES + 16], out[SCRIPT_MAX_BYTES + 16];
static struct script S;

/* Each run of a mutant: the first one's trace (the script's own schedule:
 * what the parent's run is compared with), and stop at a violation. */
static bool stop_on_violation(const struct run_result *r, void *arg)
{
	uint64_t *first = arg;

	if (!*first)
		*first = (r->hash ^ r->steps) | 1;
	return r->status == RS_VIOLATION;
}

int main(int argc, char **argv)
{
	const char *target = "baseline", *file = NULL;
	unsigned kb = 4;
	struct fuzz_runs runs;
	bool runs_ok = fuzz_runs_from_env(&runs);
	unsigned long n = 100000, seed = 1;
	uint64_t made[MO_COUNT] = { 0 }, hit[MO_COUNT] = { 0 }, same[MO_COUNT] = { 0 }, again[MO_COUNT] = { 0 };
	static struct mutant_filter filter;
	char tgt[128], err[256];

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--target=", 9)) {
			char *c;

			snprintf(tgt, sizeof(tgt), "%s", argv[i] + 9);
			if ((c = strchr(tgt, ':'))) {
				const struct granule *g;

				*c = 0;
				if (!(g = granule_by_name(c + 1)))
					return fprintf(stderr, "mutator_probe: bad granule %s\n", c + 1), 2;
				kb = g->kb;
			}
			target = tgt;
		} else if (!strncmp(argv[i], "--mutants=", 10)) {
			n = strtoul(argv[i] + 10, NULL, 10);
		} else if (!strncmp(argv[i], "--seed=", 7)) {
			seed = strtoul(argv[i] + 7, NULL, 10);
		} else if (argv[i][0] != '-' && !file) {
			file = argv[i];
		} else {
			return fprintf(stderr, "usage: mutator_probe --target=VARIANT[:GRANULE] [--mutants=N] [--seed=S] FILE\n"), 2;
		}
	}
	if (!file || !runs_ok)
		return fprintf(stderr, "usage: mutator_probe --target=VARIANT[:GRANULE] [--mutants=N] [--seed=S] FILE\n"), 2;
	FILE *f = fopen(file, "rb");
	struct script_error se;
	size_t len;

	if (!f)
		return fprintf(stderr, "mutator_probe: cannot read %s\n", file), 2;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (script_load(buf, len, &S, &se))
		return fprintf(stderr, "mutator_probe: %s: %s\n", file, se.reason), 2;
	S.expect = EXPECT_NONE;
	len = script_encode(&S, buf);
	if (mut_init(&M, target, kb, seed, err, sizeof(err)))
		return fprintf(stderr, "mutator_probe: %s\n", err), 2;
	if (!mut_set_parent(&M, buf, len))
		return fprintf(stderr, "mutator_probe: %s does not read as a script\n", file), 2;
	if (!mutant_filter_init(&filter))
		return fprintf(stderr, "mutator_probe: no memory for the mutant filter\n"), 2;
	mutant_filter_seen(&filter, buf, len);

	struct run_opts o = { .variant = M.v, .policy = { .kind = ES_SCRIPT } };
	struct run_result r;
	uint64_t parent_run;

	if (script_decode(buf, len, &S, &se))
		return fprintf(stderr, "mutator_probe: %s: %s\n", file, se.reason), 2;
	run_script(&S, &o, &r);
	parent_run = (r.hash ^ r.steps) | 1;   /* as stop_on_violation keeps it */
	for (unsigned long k = 0; k < n; k++) {
		size_t l = mutant_filter_fuzz(&filter, &M, NULL, 0, out, sizeof(out), again);

		if (!l)
			continue;
		made[M.last]++;
		if (script_decode(out, l, &S, &se))
			return fprintf(stderr, "mutator_probe: an invalid mutant: %s\n", se.reason), 2;
		uint64_t first = 0;

		if (fuzz_run_input(&S, &runs, &o, &r, stop_on_violation, &first))
			hit[M.last]++;
		if (first == parent_run)
			same[M.last]++;
	}
	printf("%-10s %9s %9s %8s %9s %9s\n", "operator", "mutants", "violated", "share", "parent's", "again");
	for (int i = 0; i < MO_COUNT; i++)
		printf("%-10s %9llu %9llu %7.3f%% %9llu %9llu\n", mut_op_names[i], (unsigned long long)made[i],
		       (unsigned long long)hit[i], made[i] ? 100.0 * hit[i] / made[i] : 0.0,
		       (unsigned long long)same[i], (unsigned long long)again[i]);
	return 0;
}
