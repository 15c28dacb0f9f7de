/*
 * fuzz/runs.h - the runs one fuzz input stands for (docs/fuzzing.md,
 * "Several runs per input").
 *
 * An execution under afl-fuzz costs a fork-server round trip (two pipe
 * messages, SIGSTOP / SIGCONT, waitpid) of 30-75 us on the 2-core VM the
 * figures of docs/fuzzing.md come from, and its engine runs: in process,
 * ~15 us a 4K run of a queue entry, ~47 us a 16K one (~24 us a 16K run of
 * a generated program). So the
 * harness runs each input several times: run 0 is the script as read;
 * run k > 0 is the script with its
 * schedule cut to the first 3/4, 1/2, 1/4, 0, 3/4, ...
 * (k = 1, 2, 3, 4, 5, ...) of its entries and one entry appended, of
 * thread (k - 1 + (k - 1) / 4) mod nthreads running (k - 1) / 4 + 1 steps
 * (so no two runs share their bytes, and with two threads each cut meets
 * each thread, and the odd runs too), so that the engine's tail, seeded by
 * the script's bytes (docs/script-format.md), re-draws the rest of the
 * interleaving: fresh PCT or random tails behind shorter and shorter
 * prefixes of the input's own schedule.
 *
 * Flag runs (FUZZ_RUN_FLAGS=1, the default; 0 turns them off): an odd run
 * k also toggles one flag site of the script, site (h + k / 2) mod sites
 * where h is the input's tail seed: a block's young or dirty bit, one
 * word of an instruction's flags (map's young, dirty, new, a prot; ...),
 * or a pair: a map's young (dirty) with its block's young (dirty); on a
 * script with a TLB model, also a warm site per touch: the touch's
 * translation already in its thread's TLB at the start (a tlb_entry line
 * appended).
 * FUZZ_RUN_FLAGS=warm is the same as 1 (the name campaign.conf records,
 * so that a later generation of runs does not change what it means).
 * Earlier generations of runs, for crash files found with them:
 * FUZZ_RUN_FLAGS=single leaves out the pair and warm sites (harnesses
 * without pair sites), FUZZ_RUN_FLAGS=pairs the warm sites (harnesses
 * without warm sites); both (and 0) append thread (k - 1) mod nthreads as
 * those harnesses did, so that with two threads the odd runs, the flag
 * runs, only ever appended thread 0: a toucher first in the script always
 * ran early in them.
 * The bugs that wait for a program, not a schedule (no_pfn_check,
 * ee_unchecked_tail, ee_sticky_flags: a remap whose new folio lacks a bit
 * the old block had) are often one flag away from an input AFL++ already
 * has; a run explores that neighbour at the cost of one engine run instead
 * of a queue entry and an execution (docs/fuzzing.md, "Flag runs"). So
 * are the stale-translation bugs (wrprotect_no_flush: a write through a
 * translation cached writable before the wrprotect) one cached
 * translation away from a program with a single touch.
 *
 * How many: FUZZ_RUNS=N (1-64) exactly N; unset or "auto" (the default)
 * runs until the input's runs have taken FUZZ_STEP_BUDGET engine steps
 * (about 250 us of engine work here), at most FUZZ_RUNS_AUTO_MAX: ~13
 * runs of a 4K seed, ~9 of a 64K one. On a 16K target at least 2 and
 * then on within FUZZ_STEP_BUDGET_16K, at most FUZZ_RUNS_AUTO_MAX_16K:
 * ~5 runs of a queue entry (a median of ~650 steps a run), up to 12 of
 * a fresh generated program (~270). Against exactly 2 runs on 16K this
 * found ee_sticky_flags 16K about twice as fast and the other 16K cells
 * no slower (docs/fuzzing.md, "Several runs per input"). Runs 0 and 1
 * are the same either way, so a crash file found with 2 runs
 * (FUZZ_RUNS=2) replays. Steps are deterministic, so the count is too.
 * The runs stop at the first violation (of the kinds FUZZ_ONLY_KIND lets
 * through), and the abort report prints the run's own script.
 *
 * Everything that replays an input (fuzz/fuzztool.c: info, retarget,
 * stable; through it tools/campaign, tools/triage, tools/minimize;
 * fuzz/mutator_probe.c) runs the same runs in the same order with the
 * same FUZZ_RUNS and FUZZ_RUN_FLAGS, through fuzz_run_input.
 */
#ifndef FUZZ_RUNS_H
#define FUZZ_RUNS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/finding.h"
#include "engine/run.h"
#include "engine/script.h"

#define FUZZ_RUNS_MAX 64
#define FUZZ_RUNS_AUTO_MAX 16
#define FUZZ_STEP_BUDGET 1600
#define FUZZ_RUNS_AUTO_MIN_16K 2
#define FUZZ_STEP_BUDGET_16K 3000
#define FUZZ_RUNS_AUTO_MAX_16K 12

/* Which flag sites odd runs choose from (FUZZ_RUN_FLAGS), each level
 * the sites of the one before and more, numbered after them; below ALL,
 * the old rotation of appended threads too (fuzz_run_set). */
enum fuzz_sites {
	FUZZ_SITES_NONE,        /* 0: no flag runs */
	FUZZ_SITES_SINGLE,      /* single: block and instruction flag words */
	FUZZ_SITES_PAIRS,       /* pairs: and map + block pairs */
	FUZZ_SITES_ALL,         /* 1 or warm, the default: and warm TLB entries */
};

/* How many runs an input gets: fixed (FUZZ_RUNS=N) or, with fixed 0, up
 * to FUZZ_RUNS_AUTO_MAX within FUZZ_STEP_BUDGET steps (on 16K: at least
 * FUZZ_RUNS_AUTO_MIN_16K, up to FUZZ_RUNS_AUTO_MAX_16K within
 * FUZZ_STEP_BUDGET_16K); and which flag sites its odd runs toggle. */
struct fuzz_runs {
	unsigned fixed;
	enum fuzz_sites sites;
};

/* FUZZ_RUNS, FUZZ_RUN_FLAGS and FUZZ_KNOWN from the environment; false
 * (with a message) if FUZZ_RUNS is neither "auto" nor 1-64, FUZZ_RUN_FLAGS
 * not 0, single, pairs, warm or 1, or FUZZ_KNOWN no list of signatures.
 * FUZZ_KNOWN (KIND:OP:FUNCTION[,...]: core/finding.h) is part of what an
 * input's runs stand for: a violation of a known signature does not end a
 * run, so whatever replays a crash file reads it too. */
static inline bool fuzz_runs_from_env(struct fuzz_runs *fr)
{
	/* the names campaign.conf records (run_flags=), and "1": the newest */
	static const struct { const char *name; enum fuzz_sites sites; } levels[] = {
		{ "0", FUZZ_SITES_NONE }, { "single", FUZZ_SITES_SINGLE },
		{ "pairs", FUZZ_SITES_PAIRS }, { "warm", FUZZ_SITES_ALL }, { "1", FUZZ_SITES_ALL },
	};
	const char *e = getenv("FUZZ_RUNS");
	const char *f = getenv("FUZZ_RUN_FLAGS");
	const char *bugs = getenv("FUZZ_KNOWN");
	bool known = !f || !*f;
	char *end, err[1024];
	unsigned long n;

	if (bugs && *bugs && !finding_known_count() && finding_known_add(bugs, err, sizeof(err))) {
		fprintf(stderr, "FUZZ_KNOWN: %s\n", err);
		return false;
	}

	fr->fixed = 0;
	fr->sites = FUZZ_SITES_ALL;
	for (unsigned i = 0; !known && i < sizeof(levels) / sizeof(levels[0]); i++)
		if ((known = !strcmp(f, levels[i].name)))
			fr->sites = levels[i].sites;
	if (!known) {
		fprintf(stderr, "FUZZ_RUN_FLAGS='%s': 1 or warm (the default) toggles a flag site in "
			"odd runs, 0 none; single (as before pair sites) and pairs (as before warm "
			"TLB sites) replay older crash files\n", f);
		return false;
	}
	if (!e || !*e || !strcmp(e, "auto"))
		return true;
	n = strtoul(e, &end, 10);
	if (*end || n < 1 || n > FUZZ_RUNS_MAX) {
		fprintf(stderr, "FUZZ_RUNS='%s': runs per input, 1-%d, or auto (the default)\n", e,
			FUZZ_RUNS_MAX);
		return false;
	}
	fr->fixed = (unsigned)n;
	return true;
}

/* Whether there is a run k of an input on granule_kb, after runs 0..k-1
 * took steps steps in all. */
static inline bool fuzz_runs_next(const struct fuzz_runs *fr, unsigned granule_kb, unsigned k,
				  uint64_t steps)
{
	bool g16 = granule_kb == 16;
	unsigned min = g16 ? FUZZ_RUNS_AUTO_MIN_16K : 1;
	unsigned max = g16 ? FUZZ_RUNS_AUTO_MAX_16K : FUZZ_RUNS_AUTO_MAX;
	uint64_t budget = g16 ? FUZZ_STEP_BUDGET_16K : FUZZ_STEP_BUDGET;

	if (fr->fixed)
		return k < fr->fixed;
	return k < min || (k < max && steps < budget);
}

/* One flag site: a word of a flag byte (mask, value: op_word_toggle) and,
 * for a pair site, a bit of a second byte toggled with it; or, for a warm
 * site (byte NULL), a tlb_entry line to append. */
struct fuzz_flag_site {
	uint8_t *byte, mask, value;
	uint8_t *pair, pair_bit;        /* NULL: a single word */
	struct script_tlb_init warm;    /* byte NULL: the tlb_entry line */
};

/* Whether block b of s exists and starts with entries (a shape). */
static inline bool fuzz_block_has_entries(const struct script *s, unsigned b)
{
	return b < s->nblocks && s->block[b].shape != BS_NONE;
}

/* The flag sites of s, in this order: young and dirty of each block that
 * has entries; every word of every instruction's flags but a field's 0
 * (access_flags' "read": toggling it is either nothing or the same as
 * toggling the field's current word); and pair sites, a map's young (or
 * dirty) toggled together with its block's: the bit moves between the old
 * block and the new mapping, or both gain or lose it, the two-flag change
 * the bugs of bits carried across a remap need (ee_sticky_flags: an old
 * block with a bit the new folio lacks; with pairs false, none: the other
 * sites keep their numbers); and warm sites, on a script with a TLB and
 * room for a tlb_entry line, one per touch of a block that has entries:
 * the line that walks what the touch would (thread, block, entry, a
 * write or not), so the program runs with that translation cached from
 * the start, the state a stale-translation bug needs before the writer
 * that should flush it. Returns how many; with want below that, *f gets
 * site want. */
static inline unsigned fuzz_flag_sites(struct script *s, enum fuzz_sites level, unsigned want,
				       struct fuzz_flag_site *f)
{
	bool pairs = level >= FUZZ_SITES_PAIRS;
	bool warm = level >= FUZZ_SITES_ALL && s->tlb && s->ntlb_init < SCRIPT_MAX_TLB_INIT;
	unsigned n = 0;

	for (unsigned b = 0; b < s->nblocks; b++) {
		if (!fuzz_block_has_entries(s, b))
			continue;
		for (uint8_t bit = OPF_YOUNG; bit <= OPF_DIRTY; bit <<= 1, n++)
			if (n == want)
				*f = (struct fuzz_flag_site){ &s->block[b].flags, bit, bit };
	}
	for (unsigned t = 0; t < s->nthreads; t++)
		for (unsigned i = 0; i < s->ninstr[t]; i++) {
			const struct op_desc *d = instr_desc(s->prog[t][i].op);

			for (const struct op_word *w = d ? d->words : NULL; w && w->word; w++)
				if (w->value && n++ == want)
					*f = (struct fuzz_flag_site){ &s->prog[t][i].flags, w->mask,
								      w->value };
		}
	for (unsigned t = 0; pairs && t < s->nthreads; t++)
		for (unsigned i = 0; i < s->ninstr[t]; i++) {
			struct instr *in = &s->prog[t][i];

			if (instr_desc(in->op) != &op_desc[OP_MAP] || !fuzz_block_has_entries(s, in->block))
				continue;
			for (uint8_t bit = OPF_YOUNG; bit <= OPF_DIRTY; bit <<= 1, n++)
				if (n == want)
					*f = (struct fuzz_flag_site){ &in->flags, bit, bit,
								      &s->block[in->block].flags, bit };
		}
	for (unsigned t = 0; warm && t < s->nthreads; t++)
		for (unsigned i = 0; i < s->ninstr[t]; i++) {
			const struct instr *in = &s->prog[t][i];

			if (in->op != SI_TOUCH || !fuzz_block_has_entries(s, in->block))
				continue;
			if (n++ == want)
				*f = (struct fuzz_flag_site){ .warm = { (uint8_t)t, in->block, in->s,
									(uint8_t)(in->flags & 1) } };
		}
	return n;
}

static inline unsigned fuzz_run_cut(unsigned nsched0, unsigned k)
{
	unsigned cut = nsched0 * ((4 - k % 4) % 4) / 4;

	return cut >= SCRIPT_MAX_SCHED ? SCRIPT_MAX_SCHED - 1 : cut;
}

/* What fuzz_run_set changed, for fuzz_run_restore. */
struct fuzz_run_saved {
	uint8_t sched;          /* the schedule byte it overwrote */
	uint8_t *flag, flag_old;  /* the flag byte it toggled a word of, or NULL */
	uint8_t *pair, pair_old;  /* a pair site's second byte, or NULL */
	bool warm;              /* it appended a tlb_entry line */
};

#define FUZZ_NO_SITE (~0u)

/* Make s (read with nsched0 schedule entries) run k of level's harness,
 * with flag site number site toggled (FUZZ_NO_SITE: none; fuzz_run_input
 * chooses it). */
static inline void fuzz_run_set(struct script *s, enum fuzz_sites level, unsigned nsched0,
				unsigned k, unsigned site, struct fuzz_run_saved *sv)
{
	unsigned cut, t = k - 1;
	struct fuzz_flag_site f;

	sv->flag = sv->pair = NULL;
	sv->warm = false;
	if (!k) {
		s->nsched = nsched0;
		return;
	}
	cut = fuzz_run_cut(nsched0, k);
	sv->sched = s->sched[cut];
	if (level == FUZZ_SITES_ALL)
		t += (k - 1) / 4;
	s->sched[cut] = (uint8_t)(t % s->nthreads | ((k - 1) / 4 % 32) << 3);
	s->nsched = cut + 1;
	if (site == FUZZ_NO_SITE)
		return;
	fuzz_flag_sites(s, FUZZ_SITES_ALL, site, &f);
	if (!f.byte) {
		s->tlb_init[s->ntlb_init++] = f.warm;
		sv->warm = true;
		return;
	}
	sv->flag = f.byte;
	sv->flag_old = *f.byte;
	*f.byte = op_word_toggle(*f.byte, f.mask, f.value);
	if ((sv->pair = f.pair)) {
		sv->pair_old = *f.pair;
		*f.pair ^= f.pair_bit;
	}
}

static inline void fuzz_run_restore(struct script *s, unsigned nsched0, unsigned k,
				    const struct fuzz_run_saved *sv)
{
	if (k)
		s->sched[fuzz_run_cut(nsched0, k)] = sv->sched;
	if (sv->pair)
		*sv->pair = sv->pair_old;
	if (sv->flag)
		*sv->flag = sv->flag_old;
	s->ntlb_init -= sv->warm;
	s->nsched = nsched0;
}

/* s's runs in order, each with run_script(s, o, r), until stop(r, arg)
 * says a run ends them (it sees every run): true then, with s left as
 * that run's script; false after the last run, with s as read. */
static inline bool fuzz_run_input(struct script *s, const struct fuzz_runs *fr,
				  const struct run_opts *o, struct run_result *r,
				  bool (*stop)(const struct run_result *r, void *arg), void *arg)
{
	unsigned nsched0 = s->nsched, nsites = 0;
	uint64_t steps = 0, seed = 0;

	for (unsigned k = 0; fuzz_runs_next(fr, s->granule_kb, k, steps); k++) {
		struct fuzz_run_saved sv;
		unsigned site = FUZZ_NO_SITE;

		/* flag runs: the sites are the same in every run (a run's
		 * toggle is undone after it, and run_script leaves s as it
		 * was), so they are counted once, when the first odd run
		 * needs them: an input of one run (FUZZ_RUNS=1, a short 4K
		 * one) never does */
		if (k == 1 && fr->sites && (nsites = fuzz_flag_sites(s, fr->sites, FUZZ_NO_SITE, NULL)))
			seed = script_tail_seed(s);
		if (nsites && (k & 1))
			site = (unsigned)((seed + k / 2) % nsites);

		fuzz_run_set(s, fr->sites, nsched0, k, site, &sv);
		run_script(s, o, r);
		if (stop(r, arg))
			return true;
		steps += r->steps;
		fuzz_run_restore(s, nsched0, k, &sv);
	}
	return false;
}

#endif
