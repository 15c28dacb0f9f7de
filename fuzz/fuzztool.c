/*
 * fuzz/fuzztool.c - what the fuzzing tools (tools/campaign, tools/minimize,
 * tools/triage, fuzz/bench/ttfd) need from the engine about one crash file:
 *
 *   fuzztool info FILE... [--target=VARIANT[:GRANULE]]
 *       one line per file: "PATH<TAB>OUTCOME<TAB>SIGNATURE<TAB>SIZE<TAB>CONTEXT";
 *       OUTCOME is a violation kind, "clean", "limit" or "rejected"
 *   fuzztool retarget FILE [--target=VARIANT[:GRANULE]] [-o OUT] [--binary]
 *       rewrite FILE as the harness ran it (the target's variant and granule
 *       in place of the seed's), with "expect" set to what the run gives;
 *       text unless --binary; prints the outcome (on stderr when the
 *       script goes to stdout)
 *
 *   fuzztool gen OUTDIR [--granule=G] [--count=N] [--seed=N] [--from=FILE...]
 *       seed scripts for a campaign with fine-grained schedules: N (default
 *       32) random programs from the engine's generator (engine/gen.h, what
 *       `engine explore` runs), or with --from the programs of the given
 *       scripts, N each; every one gets the schedule a random run of it
 *       took on baseline (a thread chosen at every step, where hand-written
 *       seeds switch threads every few steps). Binary files
 *       OUTDIR/gen-GRANULE-K.bin; only clean runs are kept
 *   fuzztool stable FILE... [--target=VARIANT[:GRANULE]] [--runs=N]
 *       run each file N times (default 5) in this one process, as a
 *       persistent-mode child does, and compare the trace hash, the steps
 *       and the sequence of interleaving features between runs: what
 *       afl-fuzz reports as instability; exit 1 if any file differs
 *
 * Binary files are read as the harness reads them (script_walk, lenient), and
 * run as the harness runs them: FUZZ_RUNS runs (fuzz/runs.h; the same
 * environment variable and default), stopping at the first violation;
 * retarget writes the script of the run that violated. Without
 * --target a file runs with its own variant and granule. The
 * harness (fuzz/harness.c) overrides both, so crash files from a campaign
 * must be read with the campaign's target to reproduce.
 *
 * The signature (tools/triage groups crashes by it): one planted bug, one
 * group.
 *   KIND|VARIANT|GRANULE|DETECTOR
 * DETECTOR is the instruction that reported the violation, i.e. the
 * subject's entry point whose result or effect was wrong: "read" (its
 * ptep_get_lockless), "read_locked" (ptep_get), a writer op's name (its
 * postcondition or owed-bits check), "fault" (the faulting device's
 * fix-up), or "end" for the end-of-run check. What the other threads did
 * meanwhile is not part of it: one bug is reached through many
 * interleavings, and grouping by them split one planted bug into 25
 * groups. info prints that context as a fifth field (the sorted set of the
 * other threads' instructions that changed shared memory while the
 * detector ran), for a reader of the triage.
 *
 * Exit: 0 done, 1 (info) some file was not a violation, 2 bad usage or an
 * unreadable / undecodable file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/violation.h"
#include "core/rng.h"
#include "engine/gen.h"
#include "engine/run.h"
#include "engine/search.h"
#include "engine/script.h"
#include "fuzz/runs.h"

static int usage(void)
{
	fprintf(stderr,
		"usage: fuzztool info FILE... [--target=VARIANT[:GRANULE]]\n"
		"       fuzztool retarget FILE [--target=VARIANT[:GRANULE]] [-o OUT] [--binary]\n"
		"       fuzztool stable FILE... [--target=VARIANT[:GRANULE]] [--runs=N]\n"
		"       fuzztool gen OUTDIR [--granule=G] [--count=N] [--seed=N] [--from=FILE...]\n");
	return 2;
}

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = SCRIPT_TEXT_MAX + 2;
	uint8_t *buf;

	if (!f)
		return NULL;
	if (!(buf = malloc(cap))) {
		fclose(f);
		return NULL;
	}
	*len = fread(buf, 1, cap, f);
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* 0, or 2 with a message. Binary files are read as the harness reads them,
 * with entries fitted to cont (0: the file's own granule). */
static int load_cont(const char *path, struct script *s, unsigned cont)
{
	size_t len;
	uint8_t *buf = read_all(path, &len);
	struct script_error err;
	int rc;

	if (!buf) {
		fprintf(stderr, "fuzztool: cannot read %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (len >= 4 && !memcmp(buf, SCRIPT_MAGIC, 4)) {
		/* crash files: read as the harness read them */
		rc = script_walk(buf, len, SCRIPT_LENIENT, cont, s, &err);
	} else {
		rc = script_load(buf, len, s, &err);
	}
	if (rc)
		fprintf(stderr, "fuzztool: %s: %s %zu: %s\n", path,
			len >= 4 && !memcmp(buf, SCRIPT_MAGIC, 4) ? "byte offset" : "line",
			err.offset, err.reason);
	free(buf);
	return rc ? 2 : 0;
}

static unsigned load_cont_kb;    /* the target's granule, 0: none */

static int load(const char *path, struct script *s)
{
	return load_cont(path, s, granule_cont(load_cont_kb));
}

static int write_out(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "fuzztool: cannot write %s: %s\n", path, strerror(errno));
		return 2;
	}
	return 0;
}

struct target {
	char variant[SCRIPT_NAME_MAX + 1];
	unsigned kb;            /* 0: the file's own */
};

/* "VARIANT[:GRANULE]"; 0 or 2 with a message. */
static int parse_target(const char *arg, struct target *t)
{
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	const struct granule *g;

	if (n == 0 || n > SCRIPT_NAME_MAX)
		return fprintf(stderr, "fuzztool: --target=VARIANT[:GRANULE], got '%s'\n", arg), 2;
	memcpy(t->variant, arg, n);
	t->variant[n] = 0;
	t->kb = 4;
	if (colon) {
		if (!(g = granule_by_name(colon + 1)))
			return fprintf(stderr, "fuzztool: unknown granule '%s' (4k, 16k, 64k)\n", colon + 1), 2;
		t->kb = g->kb;
	}
	load_cont_kb = t->kb;
	return 0;
}

/* Apply the target as the harness does; "rejected" reasons as the harness
 * would silently reject. 0, 1 rejected (why set), 2 bad target. */
static int apply_target(struct script *s, const struct target *t, const struct variant **v,
			const char **why)
{
	char err[1024];
	unsigned cont;

	*v = NULL;
	if (t->variant[0]) {
		s->granule_kb = t->kb;
		strcpy(s->variant, t->variant);
	}
	if (!(*v = run_find_variant(s->variant, s->granule_kb, err, sizeof(err)))) {
		fprintf(stderr, "fuzztool: %s\n", err);
		return 2;
	}
	cont = granule_cont(s->granule_kb);
	for (unsigned th = 0; th < s->nthreads; th++)
		for (unsigned i = 0; i < s->ninstr[th]; i++)
			if (!instr_valid(&s->prog[th][i], cont, s->nblocks, why))
				return 1;
	return 0;
}

static const char *outcome(const struct run_result *r)
{
	switch (r->status) {
	case RS_VIOLATION: return vkind_name(r->vio.kind);
	case RS_CLEAN: return "clean";
	case RS_LIMIT: return "limit";
	default: return "error";
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The group key into out, the other threads' part into ctx (see above). */
static void signature(const struct script *s, const struct run_result *r, char *out, size_t len,
		      char *ctx, size_t clen)
{
	const char *others[SCRIPT_MAX_THREADS * SCRIPT_MAX_INSTRS];
	bool seen[SCRIPT_MAX_THREADS][SCRIPT_MAX_INSTRS] = { { false } };
	unsigned n = 0, start = 0;
	int dt = r->vio_tid, di = r->vio_instr;
	const char *det = "end";
	size_t o;

	if (dt >= 0 && dt < (int)s->nthreads && di >= 0 && di < (int)s->ninstr[dt]) {
		det = instr_name(s->prog[dt][di].op);
		start = UINT32_MAX;
		for (unsigned e = 0; e < r->nevents; e++)
			if (r->events[e].tid == dt && r->events[e].instr == di) {
				start = r->events[e].step;
				break;
			}
		if (start == UINT32_MAX)
			start = 0;
	}
	for (unsigned e = 0; e < r->nevents; e++) {
		const struct eng_event *ev = &r->events[e];

		if (ev->step < start || ev->tid == dt || ev->tid >= s->nthreads ||
		    ev->instr >= s->ninstr[ev->tid] || seen[ev->tid][ev->instr])
			continue;
		if (ev->before == ev->after && ev->kind != EK_RCU_ASSIGN && ev->kind != EK_GP)
			continue;
		if (ev->kind == EK_LOCK)
			continue;
		seen[ev->tid][ev->instr] = true;
		others[n++] = instr_name(s->prog[ev->tid][ev->instr].op);
	}
	qsort(others, n, sizeof(*others), cmp_str);
	snprintf(out, len, "%s|%s|%uk|%s", outcome(r), s->variant, s->granule_kb, det);
	o = 0;
	ctx[0] = 0;
	for (unsigned i = 0; i < n && o < clen; i++)
		if (i == 0 || strcmp(others[i], others[i - 1]))
			o += (size_t)snprintf(ctx + o, clen - o, "%s%s", o ? "," : "", others[i]);
	if (!n)
		snprintf(ctx, clen, "-");
}

static struct fuzz_runs nruns;

/* run_as_harness's stop: a violation or an error ends the runs; a run at
 * the step limit is remembered */
static bool stop_on_finding(const struct run_result *r, void *limit)
{
	*(bool *)limit |= r->status == RS_LIMIT;
	return r->status == RS_VIOLATION || r->status == RS_ERROR;
}

/* s's runs as the harness makes them (fuzz/runs.h), until the first
 * violation or error: s and r are then that run's; else s is the script as
 * read and r the last run's, with status limit if any run hit the limit. */
static enum run_status run_as_harness(struct script *s, const struct run_opts *o, struct run_result *r)
{
	bool limit = false;

	if (!fuzz_run_input(s, &nruns, o, r, stop_on_finding, &limit) && limit)
		r->status = RS_LIMIT;
	return r->status;
}

static int cmd_info(int argc, char **argv)
{
	struct target t = { "", 0 };
	int rc = 0, nfiles = 0;

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "--target=", 9)) {
			if (parse_target(argv[i] + 9, &t))
				return 2;
		} else if (argv[i][0] == '-') {
			return fprintf(stderr, "fuzztool info: unknown option %s\n", argv[i]), usage();
		} else {
			nfiles++;
		}
	}
	if (!nfiles)
		return fprintf(stderr, "fuzztool info: no file given\n"), usage();
	for (int i = 0; i < argc; i++) {
		static struct script s;
		struct run_result r;
		const struct variant *v;
		const char *why;
		char sig[512], ctx[512];
		struct stat st;

		if (argv[i][0] == '-')
			continue;
		if (load(argv[i], &s)) {
			rc = 2;
			continue;
		}
		switch (apply_target(&s, &t, &v, &why)) {
		case 2:
			return 2;
		case 1:
			printf("%s\trejected\t%s\t0\n", argv[i], why);
			if (rc < 1)
				rc = 1;
			continue;
		}
		struct run_opts o = { .variant = v, .policy = { .kind = ES_SCRIPT }, .record_events = true };
		if (run_as_harness(&s, &o, &r) == RS_ERROR) {
			fprintf(stderr, "fuzztool: %s: %s\n", argv[i], r.error);
			rc = 2;
			continue;
		}
		signature(&s, &r, sig, sizeof(sig), ctx, sizeof(ctx));
		printf("%s\t%s\t%s\t%lld\t%s\n", argv[i], outcome(&r), sig,
		       stat(argv[i], &st) ? -1LL : (long long)st.st_size, ctx);
		if (r.status != RS_VIOLATION && rc < 1)
			rc = 1;
	}
	return rc;
}

static int cmd_retarget(int argc, char **argv)
{
	struct target t = { "", 0 };
	const char *in = NULL, *out = NULL, *why;
	bool binary = false;
	static struct script s;
	static char text[SCRIPT_TEXT_MAX];
	static uint8_t bin[SCRIPT_MAX_BYTES];
	const struct variant *v;
	struct run_result r;

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "--target=", 9)) {
			if (parse_target(argv[i] + 9, &t))
				return 2;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--binary")) {
			binary = true;
		} else if (argv[i][0] == '-' || in) {
			return fprintf(stderr, "fuzztool retarget: unexpected argument %s\n", argv[i]), usage();
		} else {
			in = argv[i];
		}
	}
	if (!in)
		return fprintf(stderr, "fuzztool retarget: no file given\n"), usage();
	if (load(in, &s))
		return 2;
	switch (apply_target(&s, &t, &v, &why)) {
	case 2:
		return 2;
	case 1:
		fprintf(stderr, "fuzztool: %s does not fit %s %uk: %s\n", in, s.variant, s.granule_kb, why);
		return 2;
	}
	struct run_opts o = { .variant = v, .policy = { .kind = ES_SCRIPT } };
	if (run_as_harness(&s, &o, &r) == RS_ERROR)
		return fprintf(stderr, "fuzztool: %s: %s\n", in, r.error), 2;
	s.expect = r.status == RS_VIOLATION ? (uint8_t)EXPECT_KIND(r.vio.kind) :
		   r.status == RS_CLEAN ? EXPECT_CLEAN : EXPECT_NONE;
	fprintf(out ? stdout : stderr, "%s\n", outcome(&r));
	if (binary) {
		size_t n = script_encode(&s, bin);

		return out ? write_out(out, bin, n) : (fwrite(bin, 1, n, stdout) == n ? 0 : 2);
	}
	script_print(&s, text, sizeof(text));
	if (out)
		return write_out(out, text, strlen(text));
	fputs(text, stdout);
	return 0;
}

static int cmd_gen(int argc, char **argv)
{
	const char *dir = NULL;
	unsigned kb = 4, count = 32, made = 0, tries = 0, nfrom = 0;
	static struct script from[256];
	uint64_t seed = 1;
	char err[1024];

	for (int i = 0; i < argc; i++) {
		char *end;

		if (!strncmp(argv[i], "--granule=", 10)) {
			const struct granule *g = granule_by_name(argv[i] + 10);

			if (!g)
				return fprintf(stderr, "fuzztool gen: unknown granule '%s' (4k, 16k, 64k)\n", argv[i] + 10), 2;
			kb = g->kb;
		} else if (!strncmp(argv[i], "--count=", 8)) {
			count = (unsigned)strtoul(argv[i] + 8, &end, 10);
			if (*end || !count || count > 100000)
				return fprintf(stderr, "fuzztool gen: --count=N, 1-100000\n"), 2;
		} else if (!strncmp(argv[i], "--seed=", 7)) {
			seed = strtoull(argv[i] + 7, &end, 10);
			if (*end || !argv[i][7])
				return fprintf(stderr, "fuzztool gen: --seed must be a number\n"), 2;
		} else if (!strncmp(argv[i], "--from=", 7)) {
			if (nfrom == sizeof(from) / sizeof(*from))
				return fprintf(stderr, "fuzztool gen: at most %zu --from scripts\n", sizeof(from) / sizeof(*from)), 2;
			if (load_cont(argv[i] + 7, &from[nfrom], 0))
				return 2;
			nfrom++;
		} else if (argv[i][0] == '-' || dir) {
			return fprintf(stderr, "fuzztool gen: unexpected argument %s\n", argv[i]), usage();
		} else {
			dir = argv[i];
		}
	}
	if (!dir)
		return fprintf(stderr, "fuzztool gen: no output directory given\n"), usage();
	for (unsigned i = 0; i < nfrom; i++) {
		const char *why;

		for (unsigned t = 0; t < from[i].nthreads; t++)
			for (unsigned k = 0; k < from[i].ninstr[t]; k++)
				if (!instr_valid(&from[i].prog[t][k], granule_cont(kb), from[i].nblocks, &why))
					return fprintf(stderr, "fuzztool gen: a --from script does not fit %uk: %s\n", kb, why), 2;
	}
	if (nfrom)
		count *= nfrom;
	if (mkdir(dir, 0777) && errno != EEXIST)
		return fprintf(stderr, "fuzztool gen: cannot create %s: %s\n", dir, strerror(errno)), 2;
	const struct variant *v = run_find_variant("baseline", kb, err, sizeof(err));
	if (!v)
		return fprintf(stderr, "fuzztool: %s\n", err), 2;
	/* a splitmix64 stream per seed, far from the others' (see fuzz/bench/ttfd) */
	struct search x;

	search_init(&x, v, ES_RANDOM, 0, seed);
	x.rng = seed * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL;
	x.pool = from;
	x.npool = nfrom;
	while (made < count && tries++ < 100 * count) {
		static struct script s;
		static uint8_t bin[SCRIPT_MAX_BYTES];
		struct run_result r;
		char path[4096];

		search_next_program(&x, nfrom ? (int)(made % nfrom) : -1, &s);
		if (search_run_one(&x, &s, &r) != RS_CLEAN ||
		    !script_take_whole(&s, r.taken, r.ntaken, r.taken_choices, r.ntaken_choices))
			continue;
		snprintf(path, sizeof(path), "%s/gen-%uk-%u.bin", dir, kb, made);
		if (write_out(path, bin, script_encode(&s, bin)))
			return 2;
		made++;
	}
	printf("%u scripts in %s\n", made, dir);
	return made == count ? 0 : 1;
}

static uint64_t feat_hash, feat_count;

static void feature_sink(uint32_t f)
{
	feat_hash = (feat_hash ^ f) * 0x100000001b3ULL;
	feat_count++;
}

static int cmd_stable(int argc, char **argv)
{
	struct target t = { "", 0 };
	unsigned runs = 5;
	int rc = 0, nfiles = 0;

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "--target=", 9)) {
			if (parse_target(argv[i] + 9, &t))
				return 2;
		} else if (!strncmp(argv[i], "--runs=", 7)) {
			char *end;

			runs = (unsigned)strtoul(argv[i] + 7, &end, 10);
			if (*end || runs < 2)
				return fprintf(stderr, "fuzztool stable: --runs=N, N >= 2\n"), 2;
		} else if (argv[i][0] == '-') {
			return fprintf(stderr, "fuzztool stable: unknown option %s\n", argv[i]), usage();
		} else {
			nfiles++;
		}
	}
	if (!nfiles)
		return fprintf(stderr, "fuzztool stable: no file given\n"), usage();
	for (int i = 0; i < argc; i++) {
		static struct script s;
		const struct variant *v;
		const char *why;
		uint64_t h0 = 0, s0 = 0, f0 = 0, n0 = 0;
		bool same = true;

		if (argv[i][0] == '-')
			continue;
		if (load(argv[i], &s)) {
			rc = 2;
			continue;
		}
		int a = apply_target(&s, &t, &v, &why);
		if (a == 2)
			return 2;
		if (a == 1) {
			printf("%s: rejected (%s)\n", argv[i], why);
			continue;
		}
		for (unsigned k = 0; k < runs; k++) {
			struct run_opts o = { .variant = v, .policy = { .kind = ES_SCRIPT }, .feature = feature_sink };
			struct run_result r;
			static struct script c;

			feat_hash = 0xcbf29ce484222325ULL;
			feat_count = 0;
			c = s;
			run_as_harness(&c, &o, &r);
			if (k == 0) {
				h0 = r.hash, s0 = r.steps, f0 = feat_hash, n0 = feat_count;
				continue;
			}
			if (r.hash != h0 || r.steps != s0 || feat_hash != f0 || feat_count != n0) {
				printf("%s: run %u differs from run 1: trace %016llx/%016llx, steps %llu/%llu, features %llu/%llu (%s)\n",
				       argv[i], k + 1, (unsigned long long)r.hash, (unsigned long long)h0,
				       (unsigned long long)r.steps, (unsigned long long)s0,
				       (unsigned long long)feat_count, (unsigned long long)n0,
				       feat_hash == f0 ? "same feature sequence" : "different feature sequence");
				same = false;
				break;
			}
		}
		if (same)
			printf("%s: %u runs identical (trace %016llx, %llu steps, %llu features)\n", argv[i], runs,
			       (unsigned long long)h0, (unsigned long long)s0, (unsigned long long)n0);
		else if (rc < 1)
			rc = 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!fuzz_runs_from_env(&nruns))
		return 2;
	if (!strcmp(argv[1], "info"))
		return cmd_info(argc - 2, argv + 2);
	if (!strcmp(argv[1], "retarget"))
		return cmd_retarget(argc - 2, argv + 2);
	if (!strcmp(argv[1], "stable"))
		return cmd_stable(argc - 2, argv + 2);
	if (!strcmp(argv[1], "gen"))
		return cmd_gen(argc - 2, argv + 2);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(), 0;
	fprintf(stderr, "fuzztool: unknown command '%s'\n", argv[1]);
	return usage();
}
