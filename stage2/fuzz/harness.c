/*
 * stage2/fuzz/harness.c - the AFL++ target over stage-2 programs
 * (docs/stage2.md, "AFL++"), built over one tree at one granule
 * (build/stage2.bzl's afl_harness driver; fuzz/entry.h's persistent loop,
 * or its standalone driver outside afl-fuzz).
 *
 * Each input is a program in the byte form (stage2/fuzz/codec.h: every
 * byte string is one), run once on the deterministic engine under its own
 * schedule and memory-model choices (then a tail seeded by the program).
 * A violation is reported on standard error with the program as a
 * `stage2 script`, its schedule and choices the ones the run took (so
 * `tools/repro` replays it bit for bit), after the harness replayed that
 * script itself; then abort(), the crash afl-fuzz saves. A violation whose
 * script does not replay to the same kind is reported as such ("DOES NOT
 * REPLAY"), not as a finding, and aborts too: nondeterminism is a harness
 * bug that must be seen. Engine errors and the step limit return normally.
 *
 * Environment (read once, before the fork server; a bad value: exit 2):
 *   S2_FUZZ_FLAGS       configuration flags of the engine's command line
 *                       (--age-lock=read --fwb=off ...), applied over
 *                       every decoded program: the run's mode. The memory
 *                       model, age-lock and age-rcu are not in the bytes
 *                       (default sc, write, on); --age-pages=N caps each
 *                       aging op's range at N pages.
 *   S2_FUZZ_SCRIPT_OUT  where to write the reported script too (tools/
 *                       explore reads the crash's script from there)
 *   S2_TREE_DESC        the tree the script names (its "tree" line)
 *   FUZZ_FEATURES       1 (default): the engine's reads-from pairs are
 *                       coverage too (fuzz/features.h); 0: edges only
 *   FUZZ_KNOWN          signatures of bugs already known (SIG[,SIG],
 *                       stage2/runtime/finding.h): counted, no crash
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stage2/engine/run.h"
#include "stage2/fuzz/codec.h"
#include "stage2/runtime/finding.h"
#include "stage2/runtime/s2.h"

#define MAX_FLAGS 32

static unsigned granule_kb;
static char *flags[MAX_FLAGS];
static unsigned nflags;
static const char *script_out;

static void die_usage(const char *what, const char *value)
{
	fprintf(stderr, "stage2 harness: %s '%s'\n", what, value);
	exit(2);
}

/* The decoded program in the run's mode. */
static void program_of(const uint8_t *data, size_t len, struct s2_prog *p)
{
	s2f_decode(data, len, granule_kb, p);
	for (unsigned i = 0; i < nflags; i++)
		s2p_config_flag(flags[i], p);
	s2p_cap_aging(p);       /* --age-pages */
	snprintf(p->tree, sizeof(p->tree), "%s", s2_tree_desc());
}

#include "fuzz/features.h"

static void fuzz_init(void)
{
	const char *f = getenv("S2_FUZZ_FLAGS"), *feat = getenv("FUZZ_FEATURES");
	static struct s2_prog scratch;
	struct s2_run_result r;

	signal(SIGHUP, SIG_DFL);        /* as fuzz/harness.c: die with a campaign's session */
	granule_kb = 1u << (s2_tree.page_shift - 10);
	/* the bugs already known, as fuzz/harness.c's FUZZ_KNOWN: counted by
	 * the runtime, no crash, and the run goes on */
	{
		const char *known = getenv("FUZZ_KNOWN");
		char err[512];

		if (known && *known && s2_known_add(known, err, sizeof(err)))
			die_usage("FUZZ_KNOWN:", err);
	}
	if (f && *f) {
		char *copy = strdup(f), *save = NULL;

		for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
			if (nflags == MAX_FLAGS)
				die_usage("S2_FUZZ_FLAGS: too many flags at", w);
			if (s2p_config_flag(w, &scratch) != 1)
				die_usage("S2_FUZZ_FLAGS: not a configuration flag of the stage-2 engine:", w);
			flags[nflags++] = w;
		}
	}
	script_out = getenv("S2_FUZZ_SCRIPT_OUT");
	if (feat && *feat && strcmp(feat, "0") && strcmp(feat, "1"))
		die_usage("FUZZ_FEATURES: 0 or 1, not", feat);
	eng.feature = feat && !strcmp(feat, "0") ? NULL : features_hook();
	eng.feature_sites = true;
	eng.hash_off = true;

	/* Warm up before the fork server (the arena, the engine's stacks), so
	 * that no child allocates them again: the empty program. */
	program_of(NULL, 0, &scratch);
	if (s2_run(&scratch, &(struct eng_policy){ .kind = ES_SCRIPT }, &r) == S2R_ERROR)
		die_usage("cannot run on this tree:", r.error);
	features_clear();
}

/* The violation's signature (kind:op:function, stage2/runtime/finding.h)
 * and place: "SIG at threadT.I" (the instruction that saw it), "at setup",
 * or "at end" (the checks at quiescence and after teardown). */
static void finding_line(const struct s2_prog *p, const struct s2_run_result *r, char *buf, size_t len)
{
	char sig[160];

	s2_signature(&r->vio, sig, sizeof(sig));
	if (r->vio_tid >= 0 && r->vio_instr >= 0 && (unsigned)r->vio_instr < p->ninstr[r->vio_tid])
		snprintf(buf, len, "%s at thread%d.%d", sig, r->vio_tid, r->vio_instr);
	else if (r->vio_tid == S2_VIO_SETUP)
		snprintf(buf, len, "%s at setup", sig);
	else
		snprintf(buf, len, "%s at end", sig);
}

static void report(struct s2_prog *p, const struct s2_run_result *r)
{
	static char text[S2P_TEXT_MAX + 512], body[S2P_TEXT_MAX];
	static struct s2_prog back;
	struct s2_run_result again;
	char err[256], where[256];
	bool replays;
	size_t n, first;

	s2_take_schedule(p, r);
	p->expect = (int)r->vio.kind;
	finding_line(p, r, where, sizeof(where));
	/* the finding as a comment after the first line (tools/repro knows a
	 * stage-2 script by that line) */
	n = s2p_print(p, body, sizeof(body));
	first = strcspn(body, "\n") + 1;
	n = (size_t)snprintf(text, sizeof(text), "%.*s# finding: %s\n%s", (int)first, body, where, body + first);
	/* the script as tools/repro reads it: parsed from the text, run alone */
	replays = !s2p_parse(text, &back, err, sizeof(err)) &&
		  s2_run(&back, &(struct eng_policy){ .kind = ES_SCRIPT }, &again) == S2R_VIOLATION &&
		  again.vio.kind == r->vio.kind;
	if (replays)
		fprintf(stderr, "==== stage2 violation: %s\n", s2_vkind_name(r->vio.kind));
	else
		fprintf(stderr, "==== stage2 violation that DOES NOT REPLAY: %s (the script alone: %s)\n",
			s2_vkind_name(r->vio.kind), again.status == S2R_VIOLATION ? s2_vkind_name(again.vio.kind) :
			again.status == S2R_CLEAN ? "clean" : "no run");
	fprintf(stderr, "%s, granule %uk (%llu steps)\nfinding: %s\n%s\n%s", s2_tree_desc(), granule_kb,
		(unsigned long long)r->steps, where, r->vio.summary, r->vio.detail);
	fprintf(stderr, "---- script (replay: tools/repro FILE) ----\n%s---- end of script\n", text);
	if (script_out) {
		FILE *f = fopen(script_out, "w");

		if (!f || fwrite(text, 1, n, f) != n || fclose(f))
			fprintf(stderr, "stage2 harness: cannot write %s\n", script_out);
	}
	fflush(stderr);
}

static void fuzz_one(const uint8_t *data, size_t len)
{
	static struct s2_prog p;
	static unsigned errors;
	struct s2_run_result r;

	program_of(data, len, &p);
	s2_run(&p, &(struct eng_policy){ .kind = ES_SCRIPT }, &r);
	features_clear();
	if (r.status == S2R_ERROR && errors++ < 10)
		fprintf(stderr, "stage2 harness: run error (not a violation): %s\n", r.error);
	if (r.status != S2R_VIOLATION)      /* (a known signature is no violation: FUZZ_KNOWN) */
		return;
	report(&p, &r);
	abort();
}

#define FUZZ_REPEAT_CACHE 1     /* deterministic: calibration gets the map back */
#include "fuzz/entry.h"
