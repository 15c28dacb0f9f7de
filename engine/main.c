/*
 * engine/main.c - the engine's command line (wrapped by tools/repro,
 * tools/explore, tools/script and the corpus replay test):
 *
 *   engine replay FILE... [--variant=V] [--timeline] [--svg=OUT] [--check-expect] [--cap NAME=0|1]
 *                 [--known=SIG,... | --known-file=FILE]
 *   engine explore --strategy=random|pct [--depth=D] [--variant=V] [--granule=G]
 *                  [--runs=N] [--seconds=S] [--seed=N] [--save=DIR] [--seeds=DIR]
 *                  [--tlb=N [--tlb-evict=lru|random]] [--bbml2[=noabort|abort]]   (docs/tlb.md)
 *                  [--cap NAME=0|1]...   (core/cpu.h)
 *                  [--no-shrink] [--subject=LINE] [--known=SIG,... | --known-file=FILE]
 *                  [--json=FILE]
 *   engine asm TEXT OUT  |  engine disasm BINARY [OUT]
 *   engine shrink FILE OUT [--known=SIG,...] [--known-file=FILE]
 *                        (smallest script with the same violation: kind, op, function)
 *   engine gen N DIR [--granule=G] [--variant=V] [--seed=S]   (random programs as seed scripts)
 *   engine hash FILE     (trace hash and steps, for determinism checks)
 *   engine list          (variants built into this binary)
 *
 * Exit: 0 clean (or every expectation met), 1 violation (or an expectation
 * missed), 2 unreadable input or bad usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/cpu.h"
#include "core/finding.h"
#include "core/rng.h"
#include "core/where.h"
#include "engine/gen.h"
#include "engine/run.h"
#include "engine/script.h"
#include "engine/search.h"
#include "engine/shrink.h"
#include "engine/timeline.h"
#include "engine/watchdog.h"

static const char *prog = "engine";

/* A plug-in or kernel-tree build says what it is made of, once. */
static int describe_subject(const struct variant *v)
{
	static bool done;

	if (done || !v)
		return 0;
	done = true;
	return variant_describe(v, prog);
}

/* The watchdog (engine/watchdog.h): the program running now, and where
 * explore saves it when its thread spins without a scheduling point. */
static const struct script *wd_script;
static const char *wd_save;

static void save_stalled(void)
{
	static struct script s;
	static char text[SCRIPT_TEXT_MAX];
	char path[4096];
	FILE *f;

	if (!wd_script || !wd_save)
		return;
	s = *wd_script;
	script_set_taken(&s, eng.taken, eng.ntaken, eng.taken_choices, eng.ntaken_choices);
	s.expect = (uint8_t)EXPECT_KIND(VK_HANG);
	script_print(&s, text, sizeof(text));
	snprintf(path, sizeof(path), "%s/hang-%s-%uk.txt", wd_save, s.variant, s.granule_kb);
	if ((f = fopen(path, "w")) && fputs(text, f) >= 0 && !fclose(f))
		fprintf(stderr, "%s: watchdog: the program with the schedule up to the spin saved to %s\n"
			"  (its replay spins the same way: tools/repro %s)\n", prog, path, path);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: %s replay FILE... [--variant=V] [--memory=sc|arm] [--timeline] [--svg=OUT] [--check-expect] [--quiet]\n"
		"                 [--known=KIND:OP:FUNCTION,... | --known-file=FILE]\n"
		"                  [--cap=NAME=0|1]...\n"
		"       %s explore --strategy=random|pct [--depth=D] [--variant=V] [--granule=4k|16k|64k]\n"
		"                  [--memory=arm|sc] [--tlb=N [--tlb-evict=lru|random]] [--bbml2[=noabort|abort]]\n"
		"                  [--cap=NAME=0|1]... (a capability probe the harness does not model)\n"
		"                  [--runs=N] [--seconds=S] [--seed=N] [--save=DIR] [--seeds=DIR]\n"
		"                  [--no-shrink] (save violations as found) [--subject=LINE] (recorded\n"
		"                  in saved scripts: tools/explore's plug-in file or tree)\n"
		"                  [--known=KIND:OP:FUNCTION,... | --known-file=FILE] (bugs counted,\n"
		"                  not reported: docs/contract.md) [--json=FILE] (a JSON summary)\n"
		"       %s shrink FILE OUT [--known=SIG,... | --known-file=FILE]\n"
		"       %s gen N DIR [--granule=G] [--variant=V] [--seed=S]\n"
		"       %s asm TEXT OUT | disasm BINARY [OUT] | hash FILE | list\n"
		"       %s bench [--seconds=S] [--variant=V]   (runs/s under sc and arm)\n",
		prog, prog, prog, prog, prog, prog);
	return 2;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t cap = 4096, n = 0;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		size_t k = fread(buf + n, 1, cap - n, f);

		n += k;
		if (n < cap)
			break;
		if (cap > 16 * SCRIPT_TEXT_MAX) {       /* far beyond any script */
			n = cap + 1;
			break;
		}
		uint8_t *nb = realloc(buf, cap * 2);
		if (!nb) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* 0, or 2 with the reason printed. */
static int load(const char *path, struct script *s)
{
	size_t len;
	uint8_t *buf = read_file(path, &len);
	struct script_error err;
	int rc;

	if (!buf) {
		fprintf(stderr, "%s: cannot read %s: %s\n", prog, path, strerror(errno));
		return 2;
	}
	rc = script_load(buf, len, s, &err);
	if (rc)
		fprintf(stderr, "%s: %s: %s %zu: %s\n", prog, path,
			len >= 4 && !memcmp(buf, SCRIPT_MAGIC, 4) ? "byte offset" : "line",
			err.offset, err.reason);
	free(buf);
	return rc ? 2 : 0;
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
		return 2;
	}
	return 0;
}

static const char *opt(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg, name, n) && arg[n] == '=' ? arg + n + 1 : NULL;
}

static void print_result(const char *path, const struct script *s, const struct run_result *r)
{
	char st[300];

	printf("%s: %s (%llu steps, %u reads, %u writer ops, %u hw accesses, trace %016llx)\n",
	       path, run_status_text(r, st, sizeof(st)), (unsigned long long)r->steps, r->reads,
	       r->ops, r->touches, (unsigned long long)r->hash);
	if (r->faults)
		printf("  faulting device: %u accesses, %u fix-ups\n", r->faults, r->fixups);
	printf("  reads judged: %llu bits exact (hardware quiet), %llu bits exact (software quiet), %llu content only, %llu unjudged\n",
	       (unsigned long long)r->judged.hw_quiet, (unsigned long long)r->judged.sw_quiet,
	       (unsigned long long)r->judged.content_only, (unsigned long long)r->judged.unjudged);
	if (s->memory == MEM_ARM)
		printf("  memory model arm: %llu loads, %llu read an older write, %llu stores buffered, %llu became visible out of order; %u choices\n",
		       (unsigned long long)r->mem.loads, (unsigned long long)r->mem.stale_loads,
		       (unsigned long long)r->mem.buffered, (unsigned long long)r->mem.reordered_commits,
		       r->ntaken_choices);
	if (r->status == RS_VIOLATION) {
		printf("  variant %s, granule %uk; found by thread %d at instruction %d\n", s->variant,
		       s->granule_kb, r->vio_tid, r->vio_instr);
		finding_print_one(stdout, "  ", &r->vio);
		printf("  %s\n%s", r->vio.summary, r->vio.detail);
	}
	if (r->known)
		printf("  %u violations of known signatures (counted, not reported)\n", r->known);
}

static int cmd_replay(int argc, char **argv)
{
	const char *variant = NULL, *svg = NULL;
	bool timeline = false, check = false, quiet = false;
	int memory = -1;         /* --memory: replay under another model */
	int rc = 0, nfiles = 0;
	char err[512];

	for (int i = 0; i < argc; i++) {
		const char *v;

		if ((v = opt(argv[i], "--variant")))
			variant = v;
		else if ((v = opt(argv[i], "--memory"))) {
			if ((memory = mem_model_by_name(v)) == MEM_MODEL_COUNT)
				return fprintf(stderr, "%s: --memory takes sc or arm\n", prog), 2;
		} else if ((v = opt(argv[i], "--svg")))
			svg = v;
		else if (!strcmp(argv[i], "--timeline"))
			timeline = true;
		else if (!strcmp(argv[i], "--check-expect"))
			check = true;
		else if (!strcmp(argv[i], "--quiet"))
			quiet = true;
		else if ((v = opt(argv[i], "--known")) || (v = opt(argv[i], "--known-file"))) {
			if (argv[i][7] == '=' ? finding_known_add(v, err, sizeof(err))
					      : finding_known_file(v, err, sizeof(err)))
				return fprintf(stderr, "%s replay: %s\n", prog, err), 2;
		} else if ((v = opt(argv[i], "--cap"))) {
			if (cpu_cap_option(v, err, sizeof(err)))
				return fprintf(stderr, "%s: %s\n", prog, err), 2;
		} else if (argv[i][0] == '-')
			return fprintf(stderr, "%s replay: unknown option %s\n", prog, argv[i]), usage();
		else
			nfiles++;
	}
	if (!nfiles)
		return fprintf(stderr, "%s replay: no script given\n", prog), usage();
	for (int i = 0; i < argc; i++) {
		static struct script s;
		struct run_opts o = { .policy = { .kind = ES_SCRIPT }, .record_events = timeline || svg };
		struct run_result r;
		int frc;

		if (argv[i][0] == '-')
			continue;
		if ((frc = load(argv[i], &s))) {
			rc = 2;
			continue;
		}
		if (variant) {
			if (strlen(variant) > SCRIPT_NAME_MAX)
				return fprintf(stderr, "%s: variant name too long\n", prog), 2;
			strcpy(s.variant, variant);
		}
		if (memory >= 0 && memory != s.memory) {
			/* the same program and schedule under the other model; the
			 * choices belong to arm runs */
			s.memory = (uint8_t)memory;
			if (memory == MEM_SC)
				s.nchoices = 0;
		}
		if (!quiet) {
			char e2[512];

			if (describe_subject(run_find_variant(s.variant, s.granule_kb, e2, sizeof(e2))))
				return 2;
		}
		wd_script = &s;
		run_script(&s, &o, &r);
		if (r.status == RS_ERROR) {
			fprintf(stderr, "%s: %s: %s\n", prog, argv[i], r.error);
			rc = 2;
			continue;
		}
		if (!quiet || (check && !run_meets_expect(&s, &r)))
			print_result(argv[i], &s, &r);
		if (timeline)
			timeline_print(stdout, &s, &r);
		if (svg && timeline_svg(svg, &s, &r))
			rc = 2;
		if (check) {
			if (!run_meets_expect(&s, &r)) {
				char st[300];

				printf("  EXPECTATION MISSED: the script expects %s, the run gave %s\n",
				       s.expect == EXPECT_CLEAN ? "clean" : vkind_name(s.expect - 2),
				       run_status_text(&r, st, sizeof(st)));
				if (rc < 2)
					rc = 1;
			}
		} else if (r.status != RS_CLEAN && rc < 2) {
			rc = 1;
		}
	}
	return rc;
}

static void show_progress(uint64_t runs, double elapsed)
{
	fprintf(stderr, "\r[%5.1fs] %llu runs, %.0f runs/s   ", elapsed, (unsigned long long)runs,
		runs / elapsed);
}

/* Seed scripts of the right granule from a directory (their programs;
 * the strategy supplies the schedules). */
static unsigned load_seeds(const char *dir, unsigned kb, struct script **out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0, cap = 0;

	if (!d) {
		fprintf(stderr, "%s: cannot open seed directory %s: %s\n", prog, dir, strerror(errno));
		return 0;
	}
	while ((e = readdir(d))) {
		char path[4096];
		struct script s;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (load(path, &s) || s.granule_kb != kb)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			*out = realloc(*out, cap * sizeof(**out));
		}
		(*out)[n++] = s;
	}
	closedir(d);
	return n;
}

/* explore --json=FILE: the search's outcome with the fields of hammer's
 * JSON summary (first_violation, findings, known; counts holds the last
 * two, as finding_json wrote them after the search), and its runs. */
static int explore_json(const char *path, const char *strategy, const struct variant *v,
			uint64_t seed, uint64_t runs, double t, const struct violation *vio,
			const char *script, uint64_t known_total, const char *counts)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno)), 2;
	fprintf(f, "{\"strategy\": \"%s\", \"variant\": ", strategy);
	finding_json_str(f, v->name);
	fprintf(f, ", \"granule\": \"%s\", \"seed\": %llu,\n \"runs\": %llu, \"seconds\": %.3f, "
		"\"runs_per_sec\": %.0f,\n \"violations\": %d, \"known_violations\": %llu, \"first_violation\": ",
		v->granule->name, (unsigned long long)seed, (unsigned long long)runs, t, t > 0 ? runs / t : 0.0,
		vio != NULL, (unsigned long long)known_total);
	if (vio)
		finding_json_violation(f, vio, script);
	else
		fputs("null", f);
	fprintf(f, ",\n %s,\n \"result\": \"%s\"}\n", counts ? counts : "\"findings\": [], \"known\": []",
		vio ? "violation" : "clean");
	if (fclose(f))
		return fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno)), 2;
	return 0;
}

/* for memstream buffers: freed when the variable leaves scope, whichever
 * return is taken (LeakSanitizer runs every engine test) */
static void free_charp(char **p)
{
	free(*p);
}
#define AUTOFREE __attribute__((cleanup(free_charp)))

static int cmd_explore(int argc, char **argv)
{
	const char *strategy = NULL, *variant = "baseline", *granule = "4k", *save = ".", *seeds = NULL;
	const char *subject = NULL;   /* recorded in saved scripts (tools/explore) */
	const char *json = NULL;      /* --json: the summary's file */
	unsigned depth = 3;
	enum mem_model memory = MEM_ARM;
	bool no_shrink = false;
	int bbml2 = CPU_BBML2_NONE;
	unsigned tlb = 0, tlb_evict = 0;
	uint64_t runs = 0, seed = 1;
	double seconds = 0;
	char err[512];

	for (int i = 0; i < argc; i++) {
		const char *v;
		char *end;

		if ((v = opt(argv[i], "--strategy")))
			strategy = v;
		else if ((v = opt(argv[i], "--variant")))
			variant = v;
		else if ((v = opt(argv[i], "--granule")))
			granule = v;
		else if ((v = opt(argv[i], "--save")))
			save = v;
		else if ((v = opt(argv[i], "--seeds")))
			seeds = v;
		else if (!strcmp(argv[i], "--no-shrink"))
			no_shrink = true;
		else if (!strcmp(argv[i], "--bbml2"))
			bbml2 = CPU_BBML2_NOABORT;
		else if ((v = opt(argv[i], "--bbml2"))) {
			if ((bbml2 = cpu_bbml2_by_name(v)) <= CPU_BBML2_NONE)
				return fprintf(stderr, "%s: --bbml2 takes noabort or abort\n", prog), 2;
		} else if ((v = opt(argv[i], "--cap"))) {
			if (cpu_cap_option(v, err, sizeof(err)))
				return fprintf(stderr, "%s: %s\n", prog, err), 2;
		}
		else if ((v = opt(argv[i], "--tlb-evict"))) {
			if (strcmp(v, "lru") && strcmp(v, "random"))
				return fprintf(stderr, "%s: --tlb-evict takes lru or random\n", prog), 2;
			tlb_evict = !strcmp(v, "random");
		} else if ((v = opt(argv[i], "--tlb"))) {
			tlb = (unsigned)strtoul(v, &end, 10);
			if (*end || !*v || tlb > 255)
				return fprintf(stderr, "%s: --tlb must be 0-255 entries\n", prog), 2;
		}
		else if ((v = opt(argv[i], "--memory"))) {
			if ((memory = mem_model_by_name(v)) == MEM_MODEL_COUNT)
				return fprintf(stderr, "%s: --memory takes sc or arm\n", prog), 2;
		} else if ((v = opt(argv[i], "--subject"))) {
			if (strlen(v) >= SCRIPT_SUBJECT_MAX || strchr(v, '\n') || strchr(v, '#'))
				return fprintf(stderr, "%s: --subject: one line under %d characters, no '#'\n",
					       prog, SCRIPT_SUBJECT_MAX), 2;
			subject = v;
		}
		else if ((v = opt(argv[i], "--depth"))) {
			depth = (unsigned)strtoul(v, &end, 10);
			if (*end || depth < 1 || depth > 8)
				return fprintf(stderr, "%s: --depth must be 1-8\n", prog), 2;
		} else if ((v = opt(argv[i], "--runs"))) {
			runs = strtoull(v, &end, 10);
			if (*end || !*v)
				return fprintf(stderr, "%s: --runs must be a number\n", prog), 2;
		} else if ((v = opt(argv[i], "--seconds"))) {
			seconds = strtod(v, &end);
			if (*end || seconds <= 0)
				return fprintf(stderr, "%s: --seconds must be a positive number\n", prog), 2;
		} else if ((v = opt(argv[i], "--seed"))) {
			seed = strtoull(v, &end, 10);
			if (*end || !*v)
				return fprintf(stderr, "%s: --seed must be a number\n", prog), 2;
		} else if ((v = opt(argv[i], "--known"))) {
			if (finding_known_add(v, err, sizeof(err)))
				return fprintf(stderr, "%s: --known: %s\n", prog, err), 2;
		} else if ((v = opt(argv[i], "--known-file"))) {
			if (finding_known_file(v, err, sizeof(err)))
				return fprintf(stderr, "%s: --known-file: %s\n", prog, err), 2;
		} else if ((v = opt(argv[i], "--json"))) {
			json = v;
		} else
			return fprintf(stderr, "%s explore: unknown argument %s\n", prog, argv[i]), usage();
	}
	if (!strategy || (strcmp(strategy, "random") && strcmp(strategy, "pct")))
		return fprintf(stderr, "%s explore: --strategy=random|pct is required\n", prog), 2;
	const struct granule *g = granule_by_name(granule);
	if (!g)
		return fprintf(stderr, "%s: unknown granule '%s' (4k, 16k, 64k)\n", prog, granule), 2;
	unsigned kb = g->kb;
	const struct variant *v = run_find_variant(variant, kb, err, sizeof(err));
	if (!v)
		return fprintf(stderr, "%s: %s\n", prog, err), 2;
	if (describe_subject(v))
		return 2;
	if (!runs && !seconds)
		seconds = 10;
	struct script *pool = NULL;
	unsigned npool = seeds ? load_seeds(seeds, kb, &pool) : 0;
	if (seeds && !npool)
		return fprintf(stderr, "%s: no %uk seed scripts in %s\n", prog, kb, seeds), 2;

	static struct script s;
	struct run_result r, r2;
	struct search x;
	struct search_budget budget = { .runs = runs, .seconds = seconds,
					.progress = isatty(2) ? show_progress : NULL };
	double t;

	wd_script = &s;
	wd_save = save;
	mkdir(save, 0777);
	search_init(&x, v, strcmp(strategy, "pct") ? ES_RANDOM : ES_PCT, depth, seed);
	x.memory = memory;
	x.tlb = (uint8_t)tlb;
	x.tlb_evict = (uint8_t)tlb_evict;
	x.bbml2 = (uint8_t)bbml2;
	x.pool = pool;
	x.npool = npool;
	char tlbs[64] = "TLB model off";

	if (tlb)
		snprintf(tlbs, sizeof(tlbs), "TLB %u entries%s%s", tlb, tlb_evict ? " (random eviction)" : "",
			 bbml2 == CPU_BBML2_NOABORT ? ", BBML2_NOABORT" : bbml2 ? ", BBML2 (may abort)" : "");
	fprintf(stderr, "%s: %s%s on %s %uk, %s programs, memory model %s, %s, seed %llu\n", prog,
		strategy, strcmp(strategy, "pct") ? "" : (snprintf(err, sizeof(err), " (depth %u)", depth), err),
		v->name, kb, npool ? "seed-corpus" : "random", mem_model_names[memory], tlbs,
		(unsigned long long)seed);
	finding_reset();
	bool found = search_until_violation(&x, &budget, &s, &r, &t);
	/* what the search saw (confirming and shrinking run the finding again) */
	char AUTOFREE *counts = NULL;
	char AUTOFREE *known_lines = NULL;
	size_t ncounts = 0, nknown_lines = 0;
	uint64_t known_total = finding_known_total();
	FILE *mf;

	free(pool);           /* the seed programs: the search is over (s is a copy) */
	x.pool = NULL;
	x.npool = 0;
	if ((mf = open_memstream(&counts, &ncounts))) {
		finding_json(mf);
		fclose(mf);
	}
	if ((mf = open_memstream(&known_lines, &nknown_lines))) {
		finding_print_known(mf, "explore: ");
		fclose(mf);
	}
	if (budget.progress)
		fputc('\n', stderr);
	if (r.status == RS_ERROR)
		return fprintf(stderr, "%s: %s\n", prog, r.error), 2;
	if (!found) {
		printf("explore: no violation in %llu runs (%.1f s, %.0f runs/s)\n",
		       (unsigned long long)x.runs, t, x.runs / t);
		fputs(known_lines ? known_lines : "", stdout);
		if (json && explore_json(json, strategy, v, seed, x.runs, t, NULL, NULL, known_total, counts))
			return 2;
		return 0;
	}
	/* Save the program with the schedule taken, checked to replay. */
	char path[4096], text[SCRIPT_TEXT_MAX];
	enum vkind kind = r.vio.kind;
	unsigned before = s.nsched;

	printf("explore: %s violation after %llu runs, %.3f s%s\n", vkind_name(kind),
	       (unsigned long long)x.runs, t, no_shrink ? "" : "; shrinking it");
	fputs(known_lines ? known_lines : "", stdout);
	if (!search_confirm(v, &s, &r.vio, !no_shrink, &r2)) {
		/* the run as found: its schedule is saved, but does not replay */
		print_result("found", &s, &r);
		printf("  WARNING: the saved schedule did not replay the violation (%s)\n",
		       run_status_text(&r2, err, sizeof(err)));
	} else {
		if (!no_shrink) {
			printf("  shrunk: %u schedule entries -> %u, instructions per thread:", before, s.nsched);
			for (unsigned i = 0; i < s.nthreads; i++)
				printf(" %u", s.ninstr[i]);
			printf("\n");
		}
		/* the report of the script as saved (what tools/repro shows) */
		struct run_opts o3 = { .variant = v, .policy = { .kind = ES_SCRIPT } };

		run_script(&s, &o3, &r2);
		print_result("saved script", &s, &r2);
	}
	if (subject)
		snprintf(s.subject, sizeof(s.subject), "%s", subject);
	cpu_caps_given(s.caps, sizeof(s.caps));
	mkdir(save, 0777);
	snprintf(path, sizeof(path), "%s/%s-%s-%uk-%llu.txt", save, vkind_name(kind), v->name,
		 kb, (unsigned long long)x.runs);
	/* the finding's signature and location, as a comment line first */
	char AUTOFREE *head = NULL;
	size_t nhead = 0;

	if ((mf = open_memstream(&head, &nhead))) {
		finding_print_one(mf, "# ", &r.vio);
		fclose(mf);
	}
	script_print(&s, text, sizeof(text));
	if ((mf = fopen(path, "w")) == NULL || fputs(head ? head : "", mf) < 0 || fputs(text, mf) < 0 ||
	    fclose(mf))
		return fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno)), 2;
	finding_print_one(stdout, "explore: ", &r.vio);
	printf("explore: %s violation after %llu runs, %.3f s (%s); script saved to %s\n",
	       vkind_name(kind), (unsigned long long)x.runs, t, finding_signature(&r.vio, err, sizeof(err)),
	       path);
	if (json && explore_json(json, strategy, v, seed, x.runs, t, &r.vio, path, known_total, counts))
		return 2;
	printf("explore: replay with tools/repro %s%s\n", path,
	       v->describe && !subject ? " (with the same --reader-file or --kernel-tree)" : "");
	return 1;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* engine bench [--seconds=S] [--variant=V]: the same random programs with
 * the same PCT schedules, run alternately under the sc and the arm memory
 * model, at every granule; runs per CPU second of each and their ratio
 * (CPU time: the figure holds on a loaded machine; figures, not a test). */
static int cmd_bench(int argc, char **argv)
{
	const char *variant = "baseline";
	double seconds = 3;
	char err[512];

	for (int i = 0; i < argc; i++) {
		const char *v;
		char *end;

		if ((v = opt(argv[i], "--variant")))
			variant = v;
		else if ((v = opt(argv[i], "--seconds"))) {
			seconds = strtod(v, &end);
			if (*end || seconds <= 0)
				return fprintf(stderr, "%s: --seconds must be a positive number\n", prog), 2;
		} else
			return fprintf(stderr, "%s bench: unknown argument %s\n", prog, argv[i]), usage();
	}
	printf("%-8s %-12s %12s %12s %8s   (runs per CPU second; same programs and PCT schedules, %.1f s per granule)\n",
	       "granule", "variant", "sc runs/s", "arm runs/s", "arm/sc", seconds);
	for (unsigned gi = 0; gi < GRANULE_COUNT; gi++) {
		const struct granule *g = &granules[gi];
		const struct variant *v = run_find_variant(variant, g->kb, err, sizeof(err));
		static struct script s;
		struct run_result r;
		double t[MEM_MODEL_COUNT] = { 0 }, end = now_s() + seconds;
		uint64_t rng = 1, n = 0;

		if (!v)
			return fprintf(stderr, "%s: %s\n", prog, err), 2;
		while (now_s() < end) {
			struct run_opts o = { .variant = v, .policy = { .kind = ES_PCT, .depth = 3,
									 .est_steps = 400 } };

			gen_script(&s, g->kb, v->name, &rng);
			o.policy.seed = rng_next(&rng);
			for (int k = 0; k < MEM_MODEL_COUNT; k++) {
				int mm = (int)(n + k) % MEM_MODEL_COUNT;   /* alternate who goes first */
				double t0 = cpu_s();

				s.memory = (uint8_t)mm;
				run_script(&s, &o, &r);
				t[mm] += cpu_s() - t0;
				if (r.status == RS_ERROR)
					return fprintf(stderr, "%s: %s\n", prog, r.error), 2;
			}
			n++;
		}
		printf("%-8s %-12s %12.0f %12.0f %8.2f\n", g->name, v->name, n / t[MEM_SC],
		       n / t[MEM_ARM], t[MEM_SC] / t[MEM_ARM]);
	}
	return 0;
}

static int cmd_asm(int argc, char **argv, bool to_binary)
{
	static struct script s;
	static uint8_t bin[SCRIPT_MAX_BYTES];
	static char text[SCRIPT_TEXT_MAX];

	if (argc < 1 || argc > 2 || (to_binary && argc != 2))
		return usage();
	if (load(argv[0], &s))
		return 2;
	if (to_binary) {
		size_t n = script_encode(&s, bin);

		return write_file(argv[1], bin, n);
	}
	script_print(&s, text, sizeof(text));
	if (argc == 2)
		return write_file(argv[1], text, strlen(text));
	fputs(text, stdout);
	return 0;
}

static int cmd_shrink(int argc, char **argv)
{
	static struct script s;
	static char text[SCRIPT_TEXT_MAX];
	struct run_opts o = { .policy = { .kind = ES_SCRIPT } };
	struct run_result r;
	enum vkind kind;
	char err[1024];
	char AUTOFREE *head = NULL;
	size_t nhead = 0;
	FILE *mf;

	/* --known, --known-file: bugs the shrinker must not turn the finding into */
	for (int i = 2; i < argc; i++) {
		const char *v;

		if ((v = opt(argv[i], "--known")) ? finding_known_add(v, err, sizeof(err))
		    : (v = opt(argv[i], "--known-file")) ? finding_known_file(v, err, sizeof(err))
		    : (snprintf(err, sizeof(err), "unknown argument %s", argv[i]), -1))
			return fprintf(stderr, "%s shrink: %s\n", prog, err), 2;
	}
	if (argc < 2)
		return usage();
	if (load(argv[0], &s))
		return 2;
	run_script(&s, &o, &r);
	if (r.status == RS_ERROR)
		return fprintf(stderr, "%s: %s\n", prog, r.error), 2;
	if (r.status != RS_VIOLATION)
		return fprintf(stderr, "%s: %s does not violate anything; nothing to shrink\n", prog, argv[0]), 1;
	kind = r.vio.kind;
	shrink_script(&s, &o, &r.vio);
	s.expect = (uint8_t)EXPECT_KIND(kind);
	script_print(&s, text, sizeof(text));
	if ((mf = open_memstream(&head, &nhead))) {
		finding_print_one(mf, "# ", &r.vio);
		fclose(mf);
	}
	printf("%s: %s, shrunk to %u schedule entries\n", argv[0], vkind_name(kind), s.nsched);
	finding_print_one(stdout, "", &r.vio);
	if ((mf = fopen(argv[1], "w")) == NULL || fputs(head ? head : "", mf) < 0 || fputs(text, mf) < 0 ||
	    fclose(mf))
		return fprintf(stderr, "%s: cannot write %s: %s\n", prog, argv[1], strerror(errno)), 2;
	return 0;
}

/* engine gen N DIR [--granule=G] [--variant=V] [--seed=S]: N random
 * programs (engine/gen.c) as text scripts with no schedule: seeds for
 * fuzzing, whose tails (docs/script-format.md) interleave them. */
static int cmd_gen(int argc, char **argv)
{
	const char *granule = "4k", *variant = "baseline";
	static struct script s;
	static char text[SCRIPT_TEXT_MAX];
	uint64_t seed = 1, rng;
	unsigned long n;
	char *end;

	if (argc < 2)
		return usage();
	n = strtoul(argv[0], &end, 10);
	if (*end || !n || n > 100000)
		return fprintf(stderr, "%s gen: N must be 1-100000\n", prog), 2;
	for (int i = 2; i < argc; i++) {
		const char *v;

		if ((v = opt(argv[i], "--granule")))
			granule = v;
		else if ((v = opt(argv[i], "--variant")))
			variant = v;
		else if ((v = opt(argv[i], "--seed")))
			seed = strtoull(v, NULL, 10);
		else
			return fprintf(stderr, "%s gen: unknown argument %s\n", prog, argv[i]), usage();
	}
	const struct granule *g = granule_by_name(granule);
	if (!g)
		return fprintf(stderr, "%s: unknown granule '%s' (4k, 16k, 64k)\n", prog, granule), 2;
	if (strlen(variant) > SCRIPT_NAME_MAX)
		return fprintf(stderr, "%s: variant name too long\n", prog), 2;
	mkdir(argv[1], 0777);
	rng = seed ^ 0x67656e;         /* a stream per seed (see cmd_explore) */
	rng = rng_next(&rng);
	for (unsigned long i = 0; i < n; i++) {
		char path[4096];

		gen_script(&s, g->kb, variant, &rng);
		script_print(&s, text, sizeof(text));
		snprintf(path, sizeof(path), "%s/gen_%04lu_%s.txt", argv[1], i, g->name);
		if (write_file(path, text, strlen(text)))
			return 2;
	}
	return 0;
}

static int cmd_hash(int argc, char **argv)
{
	static struct script s;
	struct run_opts o = { .policy = { .kind = ES_SCRIPT } };
	struct run_result r;
	char st[300];

	if (argc != 1)
		return usage();
	if (load(argv[0], &s))
		return 2;
	run_script(&s, &o, &r);
	if (r.status == RS_ERROR)
		return fprintf(stderr, "%s: %s\n", prog, r.error), 2;
	printf("%016llx %llu %s\n", (unsigned long long)r.hash, (unsigned long long)r.steps,
	       run_status_text(&r, st, sizeof(st)));
	return 0;
}

int main(int argc, char **argv)
{
	const char *check = getenv("ENGINE_CHECK_CACHES");

	if (getenv("ENGINE_PROG"))
		prog = getenv("ENGINE_PROG");
	/* the engine's caches checked at every use (engine/sched.h) */
	eng.check_caches = check && *check == '1';
	if (argc < 2)
		return usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[1], "bench"))
		watchdog_start(prog, save_stalled);
	if (!strcmp(argv[1], "replay"))
		return cmd_replay(argc - 2, argv + 2);
	if (!strcmp(argv[1], "explore"))
		return cmd_explore(argc - 2, argv + 2);
	if (!strcmp(argv[1], "asm"))
		return cmd_asm(argc - 2, argv + 2, true);
	if (!strcmp(argv[1], "disasm"))
		return cmd_asm(argc - 2, argv + 2, false);
	if (!strcmp(argv[1], "gen"))
		return cmd_gen(argc - 2, argv + 2);
	if (!strcmp(argv[1], "shrink"))
		return cmd_shrink(argc - 2, argv + 2);
	if (!strcmp(argv[1], "hash"))
		return cmd_hash(argc - 2, argv + 2);
	if (!strcmp(argv[1], "bench"))
		return cmd_bench(argc - 2, argv + 2);
	if (!strcmp(argv[1], "list")) {
		for (unsigned i = 0; i < variant_count(); i++)
			printf("%s %s\n", variant_at(i)->name, variant_at(i)->granule->name);
		return 0;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(), 0;
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	return usage();
}
