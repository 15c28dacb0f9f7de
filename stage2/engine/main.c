/*
 * stage2/engine/main.c - the stage-2 subject on the deterministic engine
 * (tools/explore and tools/repro --subject=stage2 run it):
 *
 *   stage2-engine explore [--strategy=random|pct|burst] [--runs=N] [--seconds=S] [--seed=N] [--program=FILE]
 *                         [--save=DIR] [--memory=sc|arm] [--age-lock=write|read|none]
 *                         [--age-rcu=on|off] [--hw-af=on|off] [--tlb=N] [--fwb=on|off]
 *                         [--tlb-range=on|off] [--tlb-hints=on|off] [--reuse=quarantine|immediate|never]
 *                         [--blocks=N] [--expect=KIND[|KIND]] [--keep-going] [--seeds=DIR]
 *                         [--known=SIG[,SIG]] [--json=FILE]
 *   stage2-engine replay FILE... [--check-expect] [--known=SIG[,SIG]]
 *   stage2-engine gen N DIR [--seed=N] [config flags as explore]
 *   stage2-engine encode TEXT OUT           a script's program as the bytes AFL++ mutates
 *   stage2-engine decode BIN [config flags] bytes as the program the AFL++ harness runs
 *                                           (stage2/fuzz/codec.h), printed as a script
 *
 * explore generates random programs (stage2/engine/prog.c), or takes one
 * (--program), or every other run one of DIR's scripts (--seeds), and runs each under a random or PCT schedule; the first violation is saved (with the
 * schedule and memory-model choices it took: the program replays it) and
 * the run stops. A violation whose signature is --known (kind:op:function,
 * stage2/runtime/finding.h) is counted and its run goes on. The summary
 * (one JSON line on standard output, or --json's FILE) holds the finding
 * and the script it was saved to. Exit: 0 clean (or, with --expect, the kind found; replay
 * --check-expect: every expectation met), 1 a violation (or the expected
 * kind not found), 2 usage or unreadable input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

#include "core/rng.h"
#include "engine/watchdog.h"
#include "stage2/engine/run.h"
#include "stage2/fuzz/codec.h"
#include "stage2/runtime/finding.h"
#include "stage2/runtime/internal.h"
#include "stage2/runtime/vm.h"

static const char *prog = "stage2-engine";

static int usage(void)
{
	fprintf(stderr,
		"usage: %s explore [--strategy=random|pct|burst] [--runs=N] [--seconds=S] [--seed=N] [--save=DIR] [--program=FILE]\n"
		"                  [--memory=sc|arm] [--age-lock=write|read|none] [--age-rcu=on|off] [--hw-af=on|off]\n"
		"                  [--tlb=N] [--fwb=on|off] [--tlb-range=on|off] [--tlb-hints=on|off]\n"
		"                  [--reuse=quarantine|immediate|never]\n"
		"                  [--blocks=N] [--age-pages=N] [--expect=KIND[|KIND]] [--keep-going] [--seeds=DIR]\n"
		"                  [--known=SIG[,SIG]] [--json=FILE]\n"
		"       %s replay FILE... [--check-expect] [--known=SIG[,SIG]]\n"
		"       %s gen N DIR [--seed=N] [configuration flags as explore]\n"
		"       %s encode TEXT OUT\n"
		"       %s decode BIN [configuration flags as explore]\n", prog, prog, prog, prog, prog);
	return 2;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *opt(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg, name, n) && arg[n] == '=' ? arg + n + 1 : NULL;
}


/* --known=SIG[,SIG]: 1 taken, 0 not it, -1 bad (said) */
static int known_flag(const char *a)
{
	const char *v = opt(a, "--known");
	char err[512];

	if (!v)
		return 0;
	if (s2_known_add(v, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return -1;
	}
	return 1;
}

static void base_prog(struct s2_prog *p)
{
	memset(p, 0, sizeof(*p));
	p->granule_kb = 1u << (s2_tree.page_shift - 10);
	p->age_lock = S2_AGE_WRITE;
	p->age_rcu = p->hw_af = p->fwb = p->tlb_range = true;
	p->tlb = 4;
	p->blocks = 2;
	p->expect = -1;
	/* tools/explore names the tree (and patch) it built, for tools/repro */
	snprintf(p->tree, sizeof(p->tree), "%s", s2_tree_desc());
}

static int write_prog(const char *path, const struct s2_prog *p)
{
	static char text[S2P_TEXT_MAX];
	size_t n = s2p_print(p, text, sizeof(text));
	FILE *f = fopen(path, "w");

	if (!f || fwrite(text, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	return 0;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = 0;
	fclose(f);
	return buf;
}

/* A burst schedule: each thread in turn for a run of steps drawn from a
 * heavy-tailed law (mostly a few, now and then hundreds or thousands), so
 * that one thread stops in the middle of a walk while another completes
 * whole ops: the shape of the use-after-free and lost-update races, which
 * uniform and PCT schedules rarely take (the engine's replay policy skips
 * a run whose thread cannot step, and a tail policy follows). */
static void burst_schedule(struct s2_prog *p, uint64_t seed)
{
	uint64_t r = seed * 0x9e3779b97f4a7c15ULL + 3;

	p->nsched = 0;
	p->nchoices = 0;
	while (p->nsched < 512) {
		unsigned tid = rng_below(&r, p->nthreads), k = rng_below(&r, 8);
		unsigned len = 1 + rng_below(&r, k < 4 ? 8 : k < 6 ? 64 : k < 7 ? 512 : 4096);

		while (len && p->nsched < S2P_SCHED) {
			unsigned run = len < 32 ? len : 32;

			p->sched[p->nsched++] = (uint8_t)(tid | (run - 1) << 3);
			len -= run;
		}
	}
}

#define S2_MAX_SEEDS 64

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --seeds=DIR: the programs of DIR's *.txt scripts at this binary's
 * granule (their schedules dropped); -1 if DIR cannot be read or a script
 * does not parse. */
static int load_seeds(const char *dir, struct s2_prog *out, unsigned max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0, want = 1u << (s2_tree.page_shift - 10);
	char **names = NULL;
	size_t nn = 0;

	if (!d) {
		fprintf(stderr, "%s: --seeds: cannot read %s: %s\n", prog, dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l > 4 && !strcmp(e->d_name + l - 4, ".txt")) {
			names = realloc(names, (nn + 1) * sizeof(*names));
			names[nn++] = strdup(e->d_name);
		}
	}
	closedir(d);
	qsort(names, nn, sizeof(*names), cmp_names);
	for (size_t i = 0; i < nn && n < max; i++) {
		char path[4096], err[256], *text;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		text = read_all(path);
		if (!text || s2p_parse(text, &out[n], err, sizeof(err))) {
			fprintf(stderr, "%s: --seeds: %s: %s\n", prog, path, text ? err : strerror(errno));
			free(text);
			return -1;
		}
		free(text);
		out[n].nsched = out[n].nchoices = 0;
		if (out[n].granule_kb == want)
			n++;
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	if (!n)
		fprintf(stderr, "%s: --seeds: no script of %s is for granule %uk\n", prog, dir, want);
	return (int)n;
}

/* A seed's program in the run's configuration (the command line's). */
static void seed_config(struct s2_prog *p, const struct s2_prog *base)
{
	p->memory = base->memory;
	p->age_lock = base->age_lock;
	p->age_rcu = base->age_rcu;
	p->hw_af = base->hw_af;
	p->tlb = base->tlb;
	p->fwb = base->fwb;
	p->tlb_range = base->tlb_range;
	p->ttl_ignored = base->ttl_ignored;
	p->reuse = base->reuse;
	p->expect = -1;
	memcpy(p->tree, base->tree, sizeof(p->tree));
}

static int cmd_explore(int argc, char **argv)
{
	struct s2_prog base, p;
	struct s2_run_result r;
	struct eng_policy pol = { .kind = ES_RANDOM };
	uint64_t runs = 0, max_runs = 0, seed = 1, found = 0, clean = 0, limits = 0;
	double seconds = 10, t0 = now_s();
	const char *save = NULL;
	unsigned expect = 0;
	bool keep_going = false;
	char buf[128];
	static struct s2_prog fixed, seeds[S2_MAX_SEEDS];
	unsigned nseeds = 0;
	bool have_fixed = false, burst = false;
	static struct s2_violation first;       /* the first finding, for the summary */
	static char first_script[4096];
	const char *json = NULL;
	FILE *jf;

	base_prog(&base);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v;
		int c = s2p_config_flag(a, &base);

		if (c < 0) {
			fprintf(stderr, "%s: bad value in %s\n", prog, a);
			return 2;
		}
		if (c)
			continue;
		if ((v = opt(a, "--strategy"))) {
			if (!strcmp(v, "random"))
				pol.kind = ES_RANDOM;
			else if (!strcmp(v, "pct"))
				pol.kind = ES_PCT;
			else if (!strcmp(v, "burst"))
				burst = true;
			else {
				fprintf(stderr, "%s: --strategy is random, pct or burst\n", prog);
				return 2;
			}
		} else if ((v = opt(a, "--runs"))) {
			max_runs = strtoull(v, NULL, 0);
		} else if ((v = opt(a, "--seconds"))) {
			seconds = atof(v);
		} else if ((v = opt(a, "--seed"))) {
			seed = strtoull(v, NULL, 0);
		} else if ((v = opt(a, "--save"))) {
			save = v;
		} else if ((v = opt(a, "--expect"))) {
			char *list = strdup(v), *sv = NULL;

			for (char *w = strtok_r(list, "|,", &sv); w; w = strtok_r(NULL, "|,", &sv)) {
				enum s2_vkind k = s2_vkind_by_name(w);

				if (k == S2V_NONE) {
					fprintf(stderr, "%s: --expect: '%s' is not a violation kind\n", prog, w);
					free(list);
					return 2;
				}
				expect |= 1u << k;
			}
			free(list);
		} else if ((v = opt(a, "--program"))) {
			char *text = read_all(v), err[256];

			if (!text || s2p_parse(text, &fixed, err, sizeof(err))) {
				fprintf(stderr, "%s: %s: %s\n", prog, v, text ? err : strerror(errno));
				free(text);
				return 2;
			}
			free(text);
			fixed.nsched = fixed.nchoices = 0;
			have_fixed = true;
		} else if ((v = opt(a, "--seeds"))) {
			int n = load_seeds(v, seeds, S2_MAX_SEEDS);

			if (n < 0)
				return 2;
			nseeds = (unsigned)n;
		} else if (!strcmp(a, "--keep-going")) {
			keep_going = true;
		} else if ((v = opt(a, "--json"))) {
			json = v;
		} else if ((c = known_flag(a))) {
			if (c < 0)
				return 2;
		} else if (!strcmp(a, "--variant=stage2")) {
		} else {
			fprintf(stderr, "%s: unknown argument '%s'\n", prog, a);
			return usage();
		}
	}
	if (save && mkdir(save, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: cannot make %s: %s\n", prog, save, strerror(errno));
		return 2;
	}
	watchdog_start(prog, NULL);
	fprintf(stderr, "%s: %s, granule %uk, %s schedules, %s memory, aging with mmu_lock %s\n", prog, s2_tree_desc(),
		base.granule_kb, burst ? "burst" : pol.kind == ES_PCT ? "PCT" : "random", mem_model_names[base.memory],
		base.age_lock == S2_AGE_WRITE ? "write" : base.age_lock == S2_AGE_READ ? "read" : "none");
	while ((!max_runs || runs < max_runs) && now_s() - t0 < seconds) {
		if (have_fixed) {
			p = fixed;      /* one program, many schedules */
		} else if (nseeds && runs % 2 == 0) {
			/* every other run a seed's program (in this run's
			 * configuration), under a schedule of its own */
			p = seeds[(runs / 2) % nseeds];
			seed_config(&p, &base);
		} else {
			s2p_generate(&p, &base, seed + runs);
		}
		pol.seed = (seed + runs) * 0x2545f4914f6cdd1dULL + 7;
		if (burst) {
			struct eng_policy script = { .kind = ES_SCRIPT };

			burst_schedule(&p, pol.seed);
			s2_run(&p, &script, &r);
		} else {
			s2_run(&p, &pol, &r);
		}
		runs++;
		if (r.status == S2R_CLEAN)
			clean++;
		else if (r.status == S2R_LIMIT)
			limits++;
		else if (r.status == S2R_ERROR) {
			fprintf(stderr, "%s: %s\n", prog, r.error);
			return 2;
		}
		if (r.status != S2R_VIOLATION)
			continue;
		found++;
		s2_take_schedule(&p, &r);
		p.expect = (int)r.vio.kind;
		fprintf(stderr, "\nVIOLATION in run %llu (seed %llu): %s\n%s", (unsigned long long)runs,
			(unsigned long long)(seed + runs - 1), r.vio.summary, r.vio.detail);
		s2_finding_print(stderr, "", &r.vio);
		if (found == 1) {
			first = r.vio;
			first.at_s = now_s() - t0;
		}
		if (save) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s-%uk-%llu.txt", save, s2_vkind_name(r.vio.kind), base.granule_kb,
				 (unsigned long long)(seed + runs - 1));
			if (!write_prog(path, &p)) {
				fprintf(stderr, "saved: %s (replay: tools/repro %s)\n", path, path);
				if (found == 1)
					snprintf(first_script, sizeof(first_script), "%s", path);
			}
		}
		if (!keep_going)
			break;
	}
	fprintf(stderr, "%s: %llu runs in %.1fs: %llu clean, %llu violations, %llu at the step limit\n", prog,
		(unsigned long long)runs, now_s() - t0, (unsigned long long)clean, (unsigned long long)found,
		(unsigned long long)limits);
	s2_finding_print(stderr, "", NULL);     /* the known ones counted */
	jf = json ? fopen(json, "w") : stdout;
	if (!jf) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, json, strerror(errno));
		jf = stdout;
	}
	fprintf(jf, "{\"subject\": \"stage2\", \"runs\": %llu, \"violations\": %llu, \"kind\": \"%s\", "
		"\"result\": \"%s\", \"script\": ", (unsigned long long)runs, (unsigned long long)found,
		found ? s2_vkind_name(first.kind) : "none", s2_run_status_text(&r, buf, sizeof(buf)));
	if (first_script[0])
		fprintf(jf, "\"%s\", ", first_script);    /* (a path the tools made: no quotes in it) */
	else
		fprintf(jf, "null, ");
	s2_findings_json(jf, found ? &first : NULL);
	fprintf(jf, "}\n");
	if (jf != stdout)
		fclose(jf);
	if (expect)
		return found && (expect >> first.kind & 1) ? 0 : 1;
	return found ? 1 : 0;
}

static int cmd_replay(int argc, char **argv)
{
	bool check = false;
	int rc = 0, files = 0;

	for (int i = 0; i < argc; i++) {
		int c;

		if (!strcmp(argv[i], "--check-expect"))
			check = true;
		else if ((c = known_flag(argv[i])) < 0)
			return 2;
		else if (!c && !strncmp(argv[i], "--", 2))
			fprintf(stderr, "%s: replay: '%s' ignored (the script holds the run's configuration)\n", prog,
				argv[i]);
	}
	watchdog_start(prog, NULL);
	for (int i = 0; i < argc; i++) {
		static struct s2_prog p;
		struct s2_run_result r;
		struct eng_policy pol = { .kind = ES_SCRIPT };
		char err[256], buf[128], *text;
		bool met;

		if (!strncmp(argv[i], "--", 2))
			continue;
		files++;
		if (!(text = read_all(argv[i]))) {
			fprintf(stderr, "%s: cannot read %s: %s\n", prog, argv[i], strerror(errno));
			return 2;
		}
		if (s2p_parse(text, &p, err, sizeof(err))) {
			fprintf(stderr, "%s: %s: %s\n", prog, argv[i], err);
			free(text);
			return 2;
		}
		free(text);
		s2_run(&p, &pol, &r);
		if (r.status == S2R_ERROR) {
			fprintf(stderr, "%s: %s: %s\n", prog, argv[i], r.error);
			return 2;
		}
		met = p.expect < 0 || (p.expect == 0 ? r.status == S2R_CLEAN :
					 r.status == S2R_VIOLATION && (int)r.vio.kind == p.expect);
		printf("%s: %s (%llu steps, trace %016llx)%s\n", argv[i], s2_run_status_text(&r, buf, sizeof(buf)),
		       (unsigned long long)r.steps, (unsigned long long)r.hash,
		       check ? (met ? ", as expected" : ", NOT as expected") : "");
		if (r.status == S2R_VIOLATION) {
			printf("%s\n%s", r.vio.summary, r.vio.detail);
			s2_finding_print(stdout, "  ", &r.vio);
		}
		if (check ? !met : r.status == S2R_VIOLATION)
			rc = 1;
	}
	if (!files)
		return usage();
	return rc;
}

static int cmd_gen(int argc, char **argv)
{
	struct s2_prog base, p;
	uint64_t seed = 1;
	unsigned n;

	if (argc < 2)
		return usage();
	n = (unsigned)atoi(argv[0]);
	base_prog(&base);
	for (int i = 2; i < argc; i++) {
		const char *v;
		int c = s2p_config_flag(argv[i], &base);

		if (c < 0)
			return usage();
		if (!c && (v = opt(argv[i], "--seed")))
			seed = strtoull(v, NULL, 0);
		else if (!c)
			return usage();
	}
	if (mkdir(argv[1], 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: cannot make %s: %s\n", prog, argv[1], strerror(errno));
		return 2;
	}
	for (unsigned i = 0; i < n; i++) {
		char path[4096];

		s2p_generate(&p, &base, seed + i);
		p.expect = 0;
		snprintf(path, sizeof(path), "%s/seed-%u.txt", argv[1], i);
		if (write_prog(path, &p))
			return 2;
	}
	return 0;
}

/* encode TEXT OUT: the script's program (its schedule and choices too) in
 * the byte form (stage2/fuzz/codec.h), checked to decode to the same
 * program; 2 if it cannot be said in bytes. */
static int cmd_encode(int argc, char **argv)
{
	static struct s2_prog p, back;
	static uint8_t bytes[S2F_MAX_BYTES];
	static char a[S2P_TEXT_MAX], b[S2P_TEXT_MAX];
	char err[256], *text;
	size_t n;
	FILE *f;

	if (argc != 2)
		return usage();
	if (!(text = read_all(argv[0]))) {
		fprintf(stderr, "%s: cannot read %s: %s\n", prog, argv[0], strerror(errno));
		return 2;
	}
	if (s2p_parse(text, &p, err, sizeof(err))) {
		fprintf(stderr, "%s: %s: %s\n", prog, argv[0], err);
		free(text);
		return 2;
	}
	free(text);
	if (!(n = s2f_encode(&p, bytes, err, sizeof(err)))) {
		fprintf(stderr, "%s: %s: not in the byte form: %s\n", prog, argv[0], err);
		return 2;
	}
	/* what the bytes do not carry: the run's mode, the tree, the expectation */
	s2f_decode(bytes, n, p.granule_kb, &back);
	back.memory = p.memory;
	back.age_lock = p.age_lock;
	back.age_rcu = p.age_rcu;
	back.expect = p.expect;
	memcpy(back.tree, p.tree, sizeof(p.tree));
	s2p_print(&p, a, sizeof(a));
	s2p_print(&back, b, sizeof(b));
	if (strcmp(a, b)) {
		fprintf(stderr, "%s: %s: the bytes decode to another program (a codec bug):\n%s", prog, argv[0], b);
		return 2;
	}
	if (!(f = fopen(argv[1], "wb")) || fwrite(bytes, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, argv[1], strerror(errno));
		return 2;
	}
	return 0;
}

/* decode BIN [flags]: the program the AFL++ harness runs for these bytes
 * (at this binary's granule, the flags as S2_FUZZ_FLAGS), as a script. */
static int cmd_decode(int argc, char **argv)
{
	static struct s2_prog p;
	static uint8_t bytes[S2F_MAX_BYTES];
	static char text[S2P_TEXT_MAX];
	FILE *f;
	size_t n;

	if (argc < 1)
		return usage();
	if (!(f = fopen(argv[0], "rb"))) {
		fprintf(stderr, "%s: cannot read %s: %s\n", prog, argv[0], strerror(errno));
		return 2;
	}
	n = fread(bytes, 1, sizeof(bytes), f);
	fclose(f);
	s2f_decode(bytes, n, 1u << (s2_tree.page_shift - 10), &p);
	for (int i = 1; i < argc; i++)
		if (s2p_config_flag(argv[i], &p) != 1) {
			fprintf(stderr, "%s: decode: '%s' is not a configuration flag\n", prog, argv[i]);
			return 2;
		}
	s2p_cap_aging(&p);
	snprintf(p.tree, sizeof(p.tree), "%s", s2_tree_desc());
	fwrite(text, 1, s2p_print(&p, text, sizeof(text)), stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "explore"))
		return cmd_explore(argc - 2, argv + 2);
	if (!strcmp(argv[1], "replay"))
		return cmd_replay(argc - 2, argv + 2);
	if (!strcmp(argv[1], "gen"))
		return cmd_gen(argc - 2, argv + 2);
	if (!strcmp(argv[1], "encode"))
		return cmd_encode(argc - 2, argv + 2);
	if (!strcmp(argv[1], "decode"))
		return cmd_decode(argc - 2, argv + 2);
	return usage();
}
