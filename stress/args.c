/* stress/args.c - hammer's command line: every flag validated, exit 2 with
 * a reason (and the valid choices) on anything wrong. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "stress/driver.h"
#include "core/cpu.h"
#include "core/finding.h"
#include "core/ops.h"
#include "core/tlb.h"

static const char usage[] =
"usage: hammer [flags]\n"
"  --reader=NAME      all (default: every reader of the tree, the lockless one\n"
"                     and, one read in four, the locked gather), lockless, locked,\n"
"                     early-exit, locked-early-exit (the early-exit tree's readers;\n"
"                     its both: --variant=early_exit)\n"
"  --mutant=NAME      run a planted bug instead of a correct tree (--list shows them)\n"
"  --variant=NAME     a compiled variant by name (plug-in binaries: plugin)\n"
"  --granule=G        4k (default), 16k, 64k\n"
"  --writers=OPS      all (default) or a comma list of writer ops (--list);\n"
"                     -OP leaves one out (--writers=-access_flags: all but it)\n"
"  --threads=R[,W,H]  reader threads, and optionally writer and hardware threads\n"
"                     (default 2,1,1; R may be 0 for writer-contract runs)\n"
"  --pin              pin the threads one per CPU of the allowed set (taskset),\n"
"                     readers first, then writers, then hardware\n"
"  --seconds=S        run time (default 3; fractions allowed)\n"
"  --seed=N           random seed (default: from the clock; printed)\n"
"  --faulters=N       devices without hardware AF/DBM that fault and are fixed up\n"
"                     (0..16, default 1; core/fault.h)\n"
"  --tables=N         page tables (1..64, default 2 per writer thread, at least 2)\n"
"  --blocks=N         contiguous blocks per table (1..16, default 4)\n"
"  --delay=on|off     timed delays that widen races without the OS scheduler\n"
"                     (default on): readers stand still between the first and\n"
"                     last load of a block until writers stored to it K times,\n"
"                     writers in front of a store (most often between a clear and\n"
"                     the rewrite) until hardware updated the block K times,\n"
"                     hardware between its load and its CAS; K log-uniform in\n"
"                     [1, --delay-steps]; each thread adapts how often it delays\n"
"                     so that delays take --delay-share of its time\n"
"  --delay-share=F    share of each reader's time spent delayed (0 < F < 1,\n"
"                     default 0.5; writers half of it, hardware a quarter)\n"
"  --delay-max=US     longest single delay in microseconds (default 2000)\n"
"  --delay-steps=K    widest K (1..65536, default 256, at 16k 1024: eight\n"
"                     blocks' worth of stores)\n"
"  --chaos=N          the old race widening: writers yield on 1 in N entry\n"
"                     stores, and 1 in 8 reads yield at a random load (a yield\n"
"                     only widens a race when the OS preempts there: measured\n"
"                     slower than the delays even oversubscribed; 0 = never,\n"
"                     the default)\n"
"  --bbml2[=KIND]     model a CPU with BBML2: noabort (the default: BBML2_NOABORT,\n"
"                     never a TLB conflict abort; both system_supports_bbml2()\n"
"                     and system_supports_bbml2_noabort() true) or abort (only\n"
"                     system_supports_bbml2() true; a TLB lookup that matches\n"
"                     two translations of one address is a tlb_conflict)\n"
"  --cap=NAME=0|1     the answer of a capability probe the harness does not\n"
"                     model (a system_supports_*() or an ARM64_* capability:\n"
"                     the start-up report names those the code asks); false\n"
"                     by default; repeatable\n"
"  --tlb=N            a TLB of N entries (1..256) per hardware agent, with the\n"
"                     checks of docs/tlb.md (stale_tlb_access, tlb_conflict,\n"
"                     bbm_violation); 0 (the default): no TLB model\n"
"  --tlb-evict=POLICY lru (the default) or random\n"
"  --expect=KIND      succeed only if a KIND violation is found (mutant tests);\n"
"                     several kinds joined by | accept any of them; the run\n"
"                     goes on past violations of other kinds (a bug's other\n"
"                     symptoms) and stops at the first of an expected kind\n"
"  --keep-going       count violations instead of stopping at the first; every\n"
"                     distinct finding (by signature) is listed at the end and\n"
"                     in the JSON summary's findings\n"
"  --known=SIG[,SIG]  bugs already known, each kind:op:function (docs/contract.md,\n"
"                     \"Which bug\"; op or function * for any): a violation with\n"
"                     a known signature is counted (the JSON's known), not\n"
"                     reported; the run, the thread that hit it and every\n"
"                     other check go on\n"
"  --known-file=FILE  the same, one signature a line (its first word; '#'\n"
"                     comments): kernel_tree/known_bugs.tsv is one\n"
"  --progress, --no-progress   live progress line (default: if stderr is a tty)\n"
"  --report-dir=DIR   write the reproducer there (default: bazel test's outputs folder,\n"
"                     else ./hammer-reproducers, made on the first violation)\n"
"                     (relative paths: to where you ran the command, also under\n"
"                     bazel run)\n"
"  --json=FILE        write the JSON summary to FILE instead of stdout\n"
"  --list             list variants, mutants, writer ops and violation kinds\n"
"exit: 0 clean (or the expected violation found), 1 violation (or the\n"
"expected one missing), 2 bad usage or set-up failure.\n";

static int bad(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "hammer: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "\n(hammer --help for usage)\n");
	return 2;
}

static int parse_uint(const char *flag, const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v;
	char range[160];

	errno = 0;
	v = strtoul(s, &end, 10);
	snprintf(range, sizeof(range), "%u..%u, got '%.100s'", lo, hi, s);
	if (!*s || *end || errno || *s == '-' || v < lo || v > hi)
		return bad("%s wants an integer in %s", flag, range);
	*out = (unsigned)v;
	return 0;
}

static void list_all(void)
{
	printf("readers: all lockless locked early-exit locked-early-exit\n");
	printf("granules: 4k 16k 64k\nwriter ops:");
	for (int i = 0; i < OP_COUNT; i++)
		printf(" %s", op_desc[i].name);
	printf("\nviolation kinds: clean %s\nvariants (granule):\n", vkind_names());
	for (unsigned i = 0; i < variant_count(); i++) {
		const struct variant *v = variant_at(i);
		if (v->granule != &granules[0] && variant_find(v->name, &granules[0]))
			continue;
		printf("  %-24s %s%s%s\n", v->name, v->mutant ? "mutant, expect " : "correct tree",
		       v->mutant ? v->expect : "", v->mutant ? "" : "");
		if (v->mutant)
			printf("  %-24s   %s\n", "", v->what);
	}
}

static const char *valid_variant_names(const struct granule *g)
{
	static char buf[4096];
	size_t off = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < variant_count(); i++) {
		const struct variant *v = variant_at(i);
		if (v->granule == g && off < sizeof(buf) - 64)
			off += snprintf(buf + off, sizeof(buf) - off, "%s%s", off ? ", " : "", v->name);
	}
	return buf;
}

/* Where the user ran the command: under `bazel run` the binary runs in its
 * runfiles and BUILD_WORKING_DIRECTORY says where the user was (tools/hammer
 * sets it too, as it runs the binary from the checkout). */
const char *stress_caller_dir(void)
{
	static char cwd[4096];
	const char *d = getenv("BUILD_WORKING_DIRECTORY");

	if (d && *d)
		return d;
	return getcwd(cwd, sizeof(cwd)) ? cwd : ".";
}

/* A path the user gave, relative to where they ran the command (absolute,
 * so that the reproducer's command line means the same from anywhere);
 * always a copy, which the caller frees. */
char *stress_caller_path(const char *p)
{
	char *out;

	if (p[0] == '/' ? !(out = strdup(p)) : asprintf(&out, "%s/%s", stress_caller_dir(), p) < 0) {
		fprintf(stderr, "hammer: out of memory\n");
		exit(2);
	}
	return out;
}

void stress_cfg_release(struct stress_cfg *cfg)
{
	free(cfg->report_dir);
	free(cfg->json_path);
	cfg->report_dir = cfg->json_path = NULL;
}

int stress_parse_args(int argc, char **argv, struct stress_cfg *cfg)
{
	const char *reader = "all", *mutant = NULL, *vname = NULL, *writers = "all";
	const char *gname = "4k";
	int rc;
	bool early = false, seed_set = false;
	const char *slow = getenv("HARNESS_SLOWDOWN");

	memset(cfg, 0, sizeof(*cfg));
	cfg->readers = 2;
	cfg->writers = 1;
	cfg->hw = 1;
	cfg->faulters = 1;
	cfg->tables = 0;             /* default: from the writers, below */
	cfg->blocks = 4;
	cfg->seconds = 3;
	cfg->chaos = 0;              /* the delays do it better, on any core count */
	cfg->delay = (struct delay_params){ .on = true, .share = DELAY_DEFAULT_SHARE,
					    .max_ns = DELAY_DEFAULT_MAX_US * 1e3,
					    .kmax = 0 /* by granule */ };
	cfg->progress = -1;
	/* reproducers: bazel test's output folder, or a folder of the caller's
	 * (made when the first violation is written) */
	const char *outputs = getenv("TEST_UNDECLARED_OUTPUTS_DIR");

	if (outputs && *outputs) {
		cfg->report_dir = stress_caller_path(outputs);
	} else {
		cfg->report_dir = stress_caller_path("hammer-reproducers");
		cfg->report_dir_create = true;
	}

	for (int i = 1; i < argc; i++) {
		char *a = argv[i], *val = strchr(a, '=');
		size_t klen = val ? (size_t)(val - a) : strlen(a);
		char key[64];

		if (klen >= sizeof(key) || strncmp(a, "--", 2))
			return bad("unexpected argument '%s'%s", a, "");
		memcpy(key, a, klen);
		key[klen] = 0;
		if (val)
			val++;
#define NEEDS_VALUE() do { if (!val || !*val) return bad("%s needs a value (%s=...)", key, key); } while (0)
#define NO_VALUE() do { if (val) return bad("%s takes no value%s", key, ""); } while (0)
		if (!strcmp(key, "--help")) {
			fputs(usage, stdout);
			return 3;
		} else if (!strcmp(key, "--list")) {
			list_all();
			return 3;
		} else if (!strcmp(key, "--reader")) {
			NEEDS_VALUE();
			reader = val;
		} else if (!strcmp(key, "--mutant")) {
			NEEDS_VALUE();
			mutant = val;
		} else if (!strcmp(key, "--variant")) {
			NEEDS_VALUE();
			vname = val;
		} else if (!strcmp(key, "--granule")) {
			NEEDS_VALUE();
			gname = val;
		} else if (!strcmp(key, "--writers")) {
			NEEDS_VALUE();
			writers = val;
		} else if (!strcmp(key, "--threads")) {
			unsigned n[3] = { 0, 1, 1 };
			char buf[64], *save, *tok;
			int k = 0;

			NEEDS_VALUE();
			snprintf(buf, sizeof(buf), "%s", val);
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), k++) {
				if (k == 3)
					return bad("--threads takes at most three numbers (readers,writers,hw), got '%s'%s", val, "");
				if ((rc = parse_uint("--threads", tok, 0, 64, &n[k])))
					return rc;
			}
			if (n[0] + n[1] + n[2] == 0)
				return bad("--threads needs at least one thread, got '%s'%s", val, "");
			if (n[0] == 0 && n[1] == 0)
				return bad("--threads=0,0,H: hardware alone cannot violate anything; give readers or writers%s%s", "", "");
			cfg->readers = n[0];
			cfg->writers = n[1];
			cfg->hw = n[2];
		} else if (!strcmp(key, "--seconds")) {
			char *end;
			NEEDS_VALUE();
			errno = 0;
			cfg->seconds = strtod(val, &end);
			if (*end || errno || !(cfg->seconds > 0) || cfg->seconds > 1e7)
				return bad("--seconds wants a positive number of seconds (up to 1e7), got '%s'%s", val, "");
		} else if (!strcmp(key, "--seed")) {
			char *end;
			NEEDS_VALUE();
			errno = 0;
			cfg->seed = strtoull(val, &end, 0);
			if (*end || errno || *val == '-')
				return bad("--seed wants a non-negative integer, got '%s'%s", val, "");
			seed_set = true;
		} else if (!strcmp(key, "--faulters")) {
			NEEDS_VALUE();
			if ((rc = parse_uint("--faulters", val, 0, 16, &cfg->faulters)))
				return rc;
		} else if (!strcmp(key, "--tables")) {
			NEEDS_VALUE();
			if ((rc = parse_uint("--tables", val, 1, 64, &cfg->tables)))
				return rc;
		} else if (!strcmp(key, "--blocks")) {
			NEEDS_VALUE();
			if ((rc = parse_uint("--blocks", val, 1, 16, &cfg->blocks)))
				return rc;
		} else if (!strcmp(key, "--chaos")) {
			NEEDS_VALUE();
			if ((rc = parse_uint("--chaos", val, 0, 1000000, &cfg->chaos)))
				return rc;
		} else if (!strcmp(key, "--delay")) {
			NEEDS_VALUE();
			if (!strcmp(val, "on"))
				cfg->delay.on = true;
			else if (!strcmp(val, "off"))
				cfg->delay.on = false;
			else
				return bad("--delay wants on or off, got '%s'%s", val, "");
		} else if (!strcmp(key, "--delay-share")) {
			char *end;
			NEEDS_VALUE();
			errno = 0;
			cfg->delay.share = strtod(val, &end);
			if (*end || errno || !(cfg->delay.share > 0) || !(cfg->delay.share < 1))
				return bad("--delay-share wants a fraction between 0 and 1 (exclusive), got '%s'%s", val, "");
		} else if (!strcmp(key, "--delay-max")) {
			unsigned us;
			NEEDS_VALUE();
			if ((rc = parse_uint("--delay-max", val, 1, 1000000, &us)))
				return rc;
			cfg->delay.max_ns = us * 1e3;
		} else if (!strcmp(key, "--delay-steps")) {
			NEEDS_VALUE();
			if ((rc = parse_uint("--delay-steps", val, 1, 65536, &cfg->delay.kmax)))
				return rc;
		} else if (!strcmp(key, "--pin")) {
			NO_VALUE();
			cfg->pin = true;
		} else if (!strcmp(key, "--tlb")) {
			NEEDS_VALUE();
			if ((rc = parse_uint("--tlb", val, 0, TLB_MAX_ENTRIES, &cfg->tlb)))
				return rc;
		} else if (!strcmp(key, "--tlb-evict")) {
			NEEDS_VALUE();
			if (!strcmp(val, "lru"))
				cfg->tlb_evict = TLB_EVICT_LRU;
			else if (!strcmp(val, "random"))
				cfg->tlb_evict = TLB_EVICT_RANDOM;
			else
				return bad("--tlb-evict wants lru or random, got '%s'%s", val, "");
		} else if (!strcmp(key, "--bbml2")) {
			cfg->bbml2 = val ? cpu_bbml2_by_name(val) : CPU_BBML2_NOABORT;
			if (cfg->bbml2 <= CPU_BBML2_NONE)
				return bad("--bbml2 takes noabort or abort, got '%s'%s", val, "");
		} else if (!strcmp(key, "--cap")) {
			char why[256];

			NEEDS_VALUE();
			if (cpu_cap_option(val, why, sizeof(why)))
				return bad("%s%s", why, "");
		} else if (!strcmp(key, "--expect")) {
			NEEDS_VALUE();
			char buf[256], *save, *tok;

			cfg->expect = 0;
			cfg->expect_text = val;
			if (strcmp(val, "clean")) {
				snprintf(buf, sizeof(buf), "%s", val);
				for (tok = strtok_r(buf, "|,", &save); tok; tok = strtok_r(NULL, "|,", &save)) {
					enum vkind k = vkind_by_name(tok);
					if (!k)
						return bad("unknown violation kind '%s' (valid: clean, %s; several joined by |)",
							   tok, vkind_names());
					cfg->expect |= 1u << k;
				}
			}
		} else if (!strcmp(key, "--known") || !strcmp(key, "--known-file")) {
			/* known bugs (core/finding.h) */
			char err[1024], *path;
			int rc;

			NEEDS_VALUE();
			if (key[7]) {
				path = stress_caller_path(val);
				rc = finding_known_file(path, err, sizeof(err));
				free(path);
			} else {
				rc = finding_known_add(val, err, sizeof(err));
			}
			if (rc)
				return bad("%s%s", err, "");
		} else if (!strcmp(key, "--keep-going")) {
			NO_VALUE();
			cfg->keep_going = true;
		} else if (!strcmp(key, "--progress")) {
			NO_VALUE();
			cfg->progress = 1;
		} else if (!strcmp(key, "--no-progress")) {
			NO_VALUE();
			cfg->progress = 0;
		} else if (!strcmp(key, "--report-dir")) {
			NEEDS_VALUE();
			char *dir = stress_caller_path(val);
			struct stat st;

			if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK)) {
				rc = bad("--report-dir '%s' is not a writable directory%s", dir, "");
				free(dir);
				return rc;
			}
			free(cfg->report_dir);
			cfg->report_dir = dir;
			cfg->report_dir_create = false;
		} else if (!strcmp(key, "--json")) {
			NEEDS_VALUE();
			free(cfg->json_path);
			cfg->json_path = stress_caller_path(val);
		} else {
			return bad("unknown flag '%s' (valid: --reader --mutant --variant --granule --writers --threads "
				   "--seconds --seed --faulters --tables --blocks --pin --delay --delay-share --delay-max --delay-steps --chaos --bbml2 --cap --tlb --tlb-evict "
				   "--expect --keep-going --known --known-file --progress "
				   "--no-progress --report-dir --json --list --help)%s", key, "");
		}
	}

	if (cfg->tlb && cfg->hw > TLB_MAX_AGENTS)
		return bad("--tlb models at most 16 hardware agents, --threads asks for more%s%s", "", "");
	const struct granule *g = granule_by_name(gname);
	if (!g)
		return bad("unknown granule '%s' (valid: 4k, 16k, 64k)%s", gname, "");
	if (!strcmp(reader, "all") || !strcmp(reader, "lockless") || !strcmp(reader, "locked")) {
		early = false;
	} else if (!strcmp(reader, "early-exit") || !strcmp(reader, "locked-early-exit")) {
		early = true;
	} else {
		return bad("unknown reader '%s' (valid: all, lockless, locked, early-exit, locked-early-exit)%s", reader, "");
	}
	cfg->locked = !strncmp(reader, "locked", 6);
	cfg->both_readers = !strcmp(reader, "all");
	cfg->reader_name = reader;
	if (mutant && vname)
		return bad("--mutant and --variant both name the tree to run; give one%s%s", "", "");
	if (!vname)
		vname = mutant ? mutant : early ? "early_exit" : "baseline";
	cfg->variant = variant_find(vname, g);
	if (!cfg->variant) {
		if (variant_count() && variant_find(vname, &granules[0]))
			return bad("variant '%s' was not built for granule %s", vname, g->name);
		if (mutant)
			return bad("unknown mutant '%s' (hammer --list shows them: %s)", mutant, valid_variant_names(g));
		return bad("unknown variant '%s' (valid: %s)", vname, valid_variant_names(g));
	}
	if (mutant && !cfg->variant->mutant)
		return bad("'%s' is a correct tree, not a mutant (use --reader)%s", mutant, "");
	if (mutant && cfg->variant->early_exit != early && strcmp(reader, "all") && strcmp(reader, "lockless") &&
	    strcmp(reader, "locked")) {
		char why[128];

		snprintf(why, sizeof(why), "is planted in the %s tree; --reader=%s asks for the other",
			 cfg->variant->early_exit ? "early-exit" : "baseline", reader);
		return bad("mutant '%s' %s", mutant, why);
	}
	char err[512];
	if (!(cfg->ops = ops_parse(writers, err, sizeof(err))))
		return bad("%s%s", err, "");
	if (cfg->expect && cfg->keep_going)
		return bad("--expect stops at the first violation of an expected kind; --keep-going contradicts it%s%s", "", "");
	if (slow && cfg->expect) {
		/* sanitizer builds run slower: give planted bugs proportionally longer */
		double f = atof(slow);
		if (f >= 1)
			cfg->seconds *= f;
	}
	if (!cfg->tables) {
		/* writers on different tables do not wait for each other's
		 * lock: two tables per writer, so more writers run more ops */
		cfg->tables = 2 * cfg->writers;
		if (cfg->tables < 2)
			cfg->tables = 2;
		if (cfg->tables > 64)
			cfg->tables = 64;
	}
	if (!seed_set)
		cfg->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
	return 0;
}
