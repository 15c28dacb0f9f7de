/*
 * fuzz/harness.c - AFL++ / libFuzzer target over interleaving scripts.
 *
 * Each input is a binary script (engine/script.h; text is rejected: AFL++
 * mutates bytes), read leniently (script_walk's SCRIPT_LENIENT mode,
 * engine/script.h: out-of-range fields are repaired rather than rejected,
 * the schedule is the bytes present). The script's own granule and variant are replaced by the
 * campaign's target, the script is run on the deterministic engine with
 * its schedule (ES_SCRIPT), and a violation of the contract aborts with a
 * report on stderr: that is the "crash" the fuzzer saves. Inputs that do
 * not decode, or whose instructions do not fit the target's granule, are
 * rejected by returning quietly; a run that hits the step limit is a normal
 * return too. Nothing else aborts.
 *
 * Environment (read once, at start-up; bad values: a message and exit 2):
 *   FUZZ_VARIANT    the variant to run, default "baseline"
 *   FUZZ_GRANULE    4k, 16k or 64k, default 4k
 *   FUZZ_ONLY_KIND  abort only on these violation kinds (KIND[,KIND...];
 *                   '|' separates too, as in build/catalogue.bzl): afl-tmin
 *                   keeps the kind while it minimizes (tools/minimize),
 *                   fuzz/bench/ttfd waits for the expected kind
 *   FUZZ_KNOWN      bugs already known, KIND:OP:FUNCTION[,...] (core/finding.h,
 *                   docs/contract.md "Which bug"): a violation with a known
 *                   signature is counted, the run goes on past it and it
 *                   never aborts
 *   FUZZ_FEATURES   auto (the default): 1 on 4K and 64K, 0 on 16K (a 16K
 *                   target's planted bugs were found several times sooner
 *                   without them, docs/fuzzing.md "Interleaving feedback");
 *                   0 turns the interleaving feedback off (to measure it);
 *                   1: a load's feature names the store it read by thread
 *                   and instruction; 2: and by its step too (the feature
 *                   before the custom mutator, docs/fuzzing.md)
 *   FUZZ_READ_SHAPES 0 turns off the read shapes (below), 1 (default) on
 *   FUZZ_RUNS       runs per input: auto (the default: up to 16, within a
 *                   budget of engine steps; on 16K at least 2, up to 12
 *                   within a budget of its own) or 1-64: the script, then
 *                   fresh tails behind shorter prefixes of its schedule
 *                   (fuzz/runs.h: one fork-server round trip for several
 *                   runs)
 *   FUZZ_RUN_FLAGS  1 or warm (default): odd runs also toggle one flag
 *                   site of the script (fuzz/runs.h, "flag runs": one
 *                   flag word, a map's young or dirty with its block's,
 *                   or with a TLB a touch's translation cached at the
 *                   start); single: one flag word only (the harness
 *                   before pair sites); pairs: no warm TLB sites (the
 *                   harness before them); 0: none
 *   FUZZ_REPEAT_CACHE 1 (default): an input run again at once (afl-fuzz's
 *                   calibration) gets its map back without running;
 *                   0 runs it (fuzz/repeat_cache.h)
 *
 * Because the run uses the target's variant and granule (and the lenient
 * reading), a crash file is not the script that ran: tools/campaign,
 * tools/minimize and tools/triage rewrite it for replay (fuzz/fuzztool
 * retarget), and the abort report prints the script as it ran.
 *
 * Interleaving feedback (fuzz/features.h): every load the engine performs
 * names the store it read as a feature, coverage beside the edges; every
 * judged read also its read shape.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/finding.h"
#include "core/violation.h"
#include "engine/run.h"
#include "engine/script.h"
#include "fuzz/runs.h"

#include "fuzz/features.h"

static const struct variant *target;
static unsigned target_kb;
static uint32_t only_kinds;             /* bit per enum vkind; 0: any */
static struct fuzz_runs runs;           /* runs per input (fuzz/runs.h) */
static unsigned long runs_done;         /* for --repeat's figures */
static void (*feature_fn)(uint32_t);

static void die_usage(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "harness: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(2);
}

static void fuzz_init(void)
{
	const char *vname = getenv("FUZZ_VARIANT"), *gname = getenv("FUZZ_GRANULE");
	const char *kind = getenv("FUZZ_ONLY_KIND"), *feat = getenv("FUZZ_FEATURES");
	const char *shapes = getenv("FUZZ_READ_SHAPES");
	const struct granule *g;
	char err[1024];

	/* Backstop for fuzz/entry.h's PR_SET_PDEATHSIG: a stopped child of an
	 * orphaned process group gets SIGHUP, which must kill it even when the
	 * campaign was started under nohup. */
	signal(SIGHUP, SIG_DFL);
	if (!vname || !*vname)
		vname = "baseline";
	if (!gname || !*gname)
		gname = "4k";
	if (!(g = granule_by_name(gname)))
		die_usage("FUZZ_GRANULE='%s' is not a granule (4k, 16k, 64k)%s", gname, "");
	target_kb = g->kb;
	if (strlen(vname) > SCRIPT_NAME_MAX)
		die_usage("FUZZ_VARIANT='%s' is too long%s", vname, "");
	if (!(target = run_find_variant(vname, target_kb, err, sizeof(err))))
		die_usage("FUZZ_VARIANT: %s%s", err, "");
	if (kind && *kind) {
		char list[256], *save, *t;

		snprintf(list, sizeof(list), "%s", kind);
		for (t = strtok_r(list, ",|", &save); t; t = strtok_r(NULL, ",|", &save)) {
			enum vkind k = vkind_by_name(t);

			if (k == VK_NONE)
				die_usage("FUZZ_ONLY_KIND: '%s' is not a violation kind (%s)", t, vkind_names());
			only_kinds |= 1u << k;
		}
		if (!only_kinds)
			die_usage("FUZZ_ONLY_KIND='%s' names no violation kind%s", kind, "");
	}
	if (!fuzz_runs_from_env(&runs))     /* FUZZ_RUNS, FUZZ_RUN_FLAGS, FUZZ_KNOWN */
		exit(2);
	if (!feat || !*feat || !strcmp(feat, "auto"))
		feat = target_kb == 16 ? "0" : "1";
	else if (strcmp(feat, "0") && strcmp(feat, "1") && strcmp(feat, "2"))
		die_usage("FUZZ_FEATURES='%s': auto, 0, 1 or 2%s", feat, "");
	if (shapes && *shapes && strcmp(shapes, "0") && strcmp(shapes, "1"))
		die_usage("FUZZ_READ_SHAPES='%s': 0 or 1%s", shapes, "");
	eng.feature_sites = strcmp(feat, "2") != 0;
	eng.feature_reads = !(shapes && !strcmp(shapes, "0"));
	eng.hash_off = true;    /* nothing here reads it (fuzztool stable does) */
	feature_fn = !strcmp(feat, "0") ? NULL : features_hook();

	/* Warm up before the fork server: segments for 1-4 blocks and every
	 * coroutine stack, so no child builds them again (and shows their
	 * one-time code as unstable coverage). */
	static struct script w;
	struct run_result r;

	for (unsigned nb = 1; nb <= SCRIPT_MAX_BLOCKS; nb++) {
		memset(&w, 0, sizeof(w));
		w.granule_kb = target_kb;
		strcpy(w.variant, target->name);
		w.nblocks = nb;
		w.nthreads = SCRIPT_MAX_THREADS;
		struct run_opts o = { .variant = target, .policy = { .kind = ES_SCRIPT } };
		if (run_script(&w, &o, &r) == RS_ERROR)
			die_usage("cannot run on %s: %s", target->name, r.error);
	}
}

/* The report: what the engine's replay prints, plus the script in text
 * form with the target's variant and granule (the one that reproduces). */
static void report(struct script *s, const struct run_result *r)
{
	static char text[SCRIPT_TEXT_MAX];

	fprintf(stderr, "==== contpte violation: %s\n", vkind_name(r->vio.kind));
	fprintf(stderr, "variant %s, granule %uk; found by thread %d at instruction %d (%llu steps)\n",
		target->name, target_kb, r->vio_tid, r->vio_instr, (unsigned long long)r->steps);
	/* (where: not under afl-fuzz, whose time limit it would spend) */
	finding_print_one(stderr, "", &r->vio);
	fprintf(stderr, "%s\n%s", r->vio.summary, r->vio.detail);
	s->expect = (uint8_t)EXPECT_KIND(r->vio.kind);
	script_print(s, text, sizeof(text));
	fprintf(stderr, "---- script (replay: tools/repro FILE) ----\n%s---- end of script\n", text);
	fflush(stderr);
}

/* Each run of an input: a violation of the kinds let through ends the
 * runs (the caller aborts); an engine error is said, but a fuzzer crash
 * must mean a contract violation (a harness bug: engine deadlock, or no
 * memory). */
static bool stop_run(const struct run_result *r, void *arg)
{
	static unsigned errors;

	(void)arg;
	runs_done++;
	if (r->status == RS_ERROR && errors++ < 10)
		fprintf(stderr, "harness: run error (not a violation): %s\n", r->error);
	return r->status == RS_VIOLATION && (!only_kinds || (only_kinds >> r->vio.kind & 1));
}

static void fuzz_one(const uint8_t *data, size_t len)
{
	static struct script s;
	struct script_error err;
	struct run_result r;
	const char *why;
	unsigned cont = granule_cont(target_kb);

	if (script_walk(data, len, SCRIPT_LENIENT, cont, &s, &err))
		return;
	s.granule_kb = target_kb;
	memcpy(s.variant, target->name, strlen(target->name) + 1);
	for (unsigned t = 0; t < s.nthreads; t++)       /* (the reading fitted them) */
		for (unsigned i = 0; i < s.ninstr[t]; i++)
			if (!instr_valid(&s.prog[t][i], cont, s.nblocks, &why))
				return;

	struct run_opts o = { .variant = target, .policy = { .kind = ES_SCRIPT }, .feature = feature_fn };

	/* the input's runs (fuzz/runs.h); the features are a presence set
	 * over all of them */
	if (fuzz_run_input(&s, &runs, &o, &r, stop_run, NULL)) {
		report(&s, &r);
		abort();
	}
	features_clear();
}

#define FUZZ_RUN_COUNTER runs_done
#define FUZZ_REPEAT_CACHE 1     /* deterministic: calibration gets the map back */
#include "fuzz/entry.h"
