/*
 * stress/bench/scaling.c - `bazel run //stress:bench -- --scaling`: how the
 * stress run scales with cores, and whether it finds the hard mutants
 * without the OS preempting anyone.
 *
 * Part 1 (throughput), for N = 1, 2, 4, ... up to the CPUs this process may
 * use: N threads of one role, pinned one per CPU, for --seconds-per-case:
 *   reads/s           N readers over blocks mapped and folded at start
 *   writer ops/s      N writers (2 tables each, the hammer's default), with
 *                     the fewest and most ops one writer ran
 *   hw updates/s      N hardware agents over mapped blocks
 * each with its ratio to N = 1.
 *
 * Part 2 (time to first detection) on C = all those CPUs, for each mutant
 * (--mutants: the hard ones by default, from the catalogue compiled in, so
 * new ones join without a change here; at 4k, and the early-exit ones also
 * at 16k, as the stress suite tests them), --seeds seeds, each run bounded by
 * --bound seconds, in two modes:
 *   pinned      one thread per CPU (hammer --pin), under SCHED_FIFO when
 *               allowed (root: nothing preempts a thread, as `chrt -f`):
 *               C >= 3: R,W,H = C - 2k, k, k with k = max(1, C / 5);
 *               C == 2: the two roles the mutant needs (1,1,0 for reader
 *               bugs, as in `chrt -f 50 taskset -c 0,1 hammer
 *               --threads=1,1,0`; 0,1,1 for writer-contract bugs, whose
 *               violations need hardware), and 1,1,1 for livelocks (some
 *               need all three roles: three threads on two CPUs, so not
 *               pinned, still never preempted under FIFO)
 *   over        2C threads on the C CPUs, not pinned, normal scheduling
 *               (C = 2: 2,1,1, the hammer's default)
 *   nodelay     as pinned with --delay=off (--modes=pinned,over,nodelay):
 *               what the delays are for
 * It prints median and worst seconds to the expected violation (a miss
 * counts as the bound), how many seeds caught it, and the pinned/over
 * ratio of medians.
 *
 * Every run is a child process (fork, then the stress driver), killed if
 * it outlives its bound by 15 s. Figures, not assertions; the load average
 * is printed at the start and the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/ops.h"
#include "core/variant.h"
#include "core/violation.h"
#include "stress/driver.h"

struct sc_opts {
	double secs, bound;
	unsigned seeds, maxn;
	const char *mutants;
	bool rt, throughput, detection;
	bool mode_pinned, mode_over, mode_nodelay;
};

struct spec {
	const struct variant *v;
	unsigned r, w, h;
	unsigned ncpus;       /* affinity: the first ncpus allowed CPUs */
	bool pin, rt, delay;
	double secs;
	uint64_t seed;
	unsigned expect;
	const char *expect_text;
};

struct outcome {
	bool ran, found;
	double seconds, reads_s, wops_s, hw_s;
	double cpu_s;             /* the child's user + system time */
	unsigned long long wmin, wmax;
	bool rt_denied;
};

static int allowed[CPU_SETSIZE];
static unsigned nallowed;

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double num_after(const char *json, const char *key)
{
	const char *p = strstr(json, key);

	return p ? atof(p + strlen(key)) : 0;
}

/* Run one stress run in a child; false if it could not run at all. */
static bool run_child(const struct spec *s, struct outcome *o)
{
	char path[] = "/tmp/contpte-scaling-XXXXXX";
	int fd = mkstemp(path);
	pid_t pid;

	memset(o, 0, sizeof(*o));
	if (fd < 0) {
		perror("bench: mkstemp");
		return false;
	}
	close(fd);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("bench: fork");
		unlink(path);
		return false;
	}
	if (pid == 0) {
		struct stress_cfg cfg;
		cpu_set_t set;
		int devnull = open("/dev/null", O_WRONLY);
		int rc = 0;

		if (devnull >= 0) {
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		CPU_ZERO(&set);
		for (unsigned i = 0; i < s->ncpus && i < nallowed; i++)
			CPU_SET(allowed[i], &set);
		sched_setaffinity(0, sizeof(set), &set);
		if (s->rt) {
			struct sched_param sp = { .sched_priority = 50 };

			if (sched_setscheduler(0, SCHED_FIFO, &sp))
				rc = 100;      /* reported: ran without real time */
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.variant = s->v;
		cfg.readers = s->r;
		cfg.writers = s->w;
		cfg.hw = s->h;
		cfg.tables = 2 * s->w < 2 ? 2 : 2 * s->w > 64 ? 64 : 2 * s->w;
		cfg.blocks = 4;
		cfg.seconds = s->secs;
		cfg.seed = s->seed;
		cfg.ops = OPS_ALL;
		cfg.chaos = 0;
		cfg.delay = (struct delay_params){ .on = s->delay, .share = DELAY_DEFAULT_SHARE,
						   .max_ns = DELAY_DEFAULT_MAX_US * 1e3,
						   .kmax = 0 };
		cfg.pin = s->pin;
		cfg.expect = s->expect;
		cfg.expect_text = s->expect_text;
		cfg.progress = 0;
		cfg.json_path = path;
		stress_run(&cfg);
		_exit(rc);
	}
	double deadline = mono() + s->secs + 15;
	int status = 0;
	bool killed = false;

	struct rusage ru = { 0 };

	for (;;) {
		pid_t w = wait4(pid, &status, WNOHANG, &ru);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			break;
		if (!killed && mono() > deadline) {
			kill(pid, SIGKILL);
			killed = true;
		}
		usleep(10000);
	}
	FILE *f = fopen(path, "r");
	char buf[8192] = "";

	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = 0;
		fclose(f);
	}
	unlink(path);
	if (!strstr(buf, "\"result\"")) {
		fprintf(stderr, "bench: a run (%u,%u,%u, seed %llu) ended without a summary%s\n", s->r,
			s->w, s->h, (unsigned long long)s->seed, killed ? " (killed at its deadline)" : "");
		return false;
	}
	o->ran = true;
	o->cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
		   ru.ru_stime.tv_usec * 1e-6;
	o->rt_denied = WIFEXITED(status) && WEXITSTATUS(status) == 100;
	o->seconds = num_after(buf, "\"seconds\": ");
	o->reads_s = num_after(buf, "\"reads_per_sec\": ");
	o->wops_s = num_after(buf, "\"writer_ops_per_sec\": ");
	o->hw_s = o->seconds > 0 ? num_after(buf, "\"hw_ops\": ") / o->seconds : 0;
	o->found = strstr(buf, "\"expected_violation_found\"") != NULL;
	const char *p = strstr(buf, "\"writer_ops_per_writer\": [");
	if (p) {
		p += strlen("\"writer_ops_per_writer\": [");
		o->wmin = ~0ULL;
		while (*p && *p != ']') {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			if (v < o->wmin)
				o->wmin = v;
			if (v > o->wmax)
				o->wmax = v;
			p = end;
			while (*p == ',' || *p == ' ')
				p++;
		}
		if (o->wmin == ~0ULL)
			o->wmin = 0;
	}
	return true;
}

/* ---- part 1 ------------------------------------------------------------ */
static void throughput(const struct sc_opts *o)
{
	const struct variant *v = variant_find("baseline", &granules[0]);
	unsigned ns[32], nn = 0;
	double base[3] = { 0, 0, 0 };

	for (unsigned n = 1; n <= o->maxn && nn < 31; n *= 2)
		ns[nn++] = n;
	if (ns[nn - 1] != o->maxn)
		ns[nn++] = o->maxn;
	printf("\nPart 1. Throughput: N threads of one role, pinned one per CPU, %.1f s each\n", o->secs);
	printf("  (baseline lockless reader, 4k; readers and hardware over blocks mapped and folded at\n"
	       "   start; writers alone on 2 tables each; ratio = figure / figure at N = 1)\n\n");
	printf("  cpu: CPU seconds the run used per second (at most N + the monitor; less when other\n"
	       "  work on the machine takes CPU); /cpu-s: the figure per CPU second, which stays flat\n"
	       "  when threads do not slow each other down\n\n");
	printf("%7s %11s %5s %4s %9s %12s %5s %4s %9s %19s %12s %5s %4s\n", "threads", "reads/s", "ratio",
	       "cpu", "/cpu-s", "writer ops/s", "ratio", "cpu", "/cpu-s", "ops/writer min..max",
	       "hw upd/s", "ratio", "cpu");
	for (unsigned i = 0; i < nn; i++) {
		unsigned n = ns[i];
		struct spec sp = { .v = v, .ncpus = n, .pin = true, .delay = true, .secs = o->secs, .seed = 1 };
		struct outcome r = { 0 }, w = { 0 }, h = { 0 };

		fprintf(stderr, "bench: scaling %u thread(s) ...\n", n);
		sp.r = n;
		run_child(&sp, &r);
		sp.r = 0;
		sp.w = n;
		run_child(&sp, &w);
		sp.w = 0;
		sp.h = n;
		run_child(&sp, &h);
		if (i == 0) {
			base[0] = r.reads_s;
			base[1] = w.wops_s;
			base[2] = h.hw_s;
		}
		char mm[48];

		snprintf(mm, sizeof(mm), "%llu..%llu", w.wmin, w.wmax);
		double rc = r.seconds > 0 ? r.cpu_s / r.seconds : 0, wc = w.seconds > 0 ? w.cpu_s / w.seconds : 0;
		double hc = h.seconds > 0 ? h.cpu_s / h.seconds : 0;

		printf("%7u %11.0f %5.2f %4.1f %9.0f %12.0f %5.2f %4.1f %9.0f %19s %12.0f %5.2f %4.1f\n", n,
		       r.reads_s, base[0] ? r.reads_s / base[0] : 0, rc, rc > 0 ? r.reads_s / rc : 0,
		       w.wops_s, base[1] ? w.wops_s / base[1] : 0, wc, wc > 0 ? w.wops_s / wc : 0, mm,
		       h.hw_s, base[2] ? h.hw_s / base[2] : 0, hc);
		fflush(stdout);
	}
}

/* ---- part 2 ------------------------------------------------------------ */
static bool writer_kinds_only(unsigned expect)
{
	unsigned writer = (1u << VK_DIRTY_LOST) | (1u << VK_YOUNG_LOST);

	return expect && !(expect & ~writer);
}

static unsigned parse_expect(const char *text)
{
	char buf[256], *save, *tok;
	unsigned m = 0;

	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, "|,", &save); tok; tok = strtok_r(NULL, "|,", &save))
		m |= 1u << vkind_by_name(tok);
	return m;
}

static void shape(unsigned c, bool pinned, unsigned expect, unsigned *r, unsigned *w, unsigned *h)
{
	unsigned n = pinned ? c : 2 * c, k;

	if (pinned && c == 2) {
		if (writer_kinds_only(expect)) {
			*r = 0, *w = 1, *h = 1;
		} else if (expect & (1u << VK_LIVELOCK)) {
			*r = 1, *w = 1, *h = 1;
		} else {
			*r = 1, *w = 1, *h = 0;
		}
		return;
	}
	k = n / 5 ? n / 5 : 1;
	*w = k;
	*h = k;
	*r = n > 2 * k ? n - 2 * k : 1;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct cell {
	unsigned r, w, h, caught, ran;
	bool unpinned;            /* pinned mode, but more threads than CPUs */
	double med, worst;
	bool rt_denied;
};

static void detect_cell(const struct sc_opts *o, const struct variant *v, unsigned expect,
			int mode, struct cell *c)
{
	unsigned cpus = o->maxn;
	double t[64];
	bool pinned = mode != 1;

	memset(c, 0, sizeof(*c));
	shape(cpus, pinned, expect, &c->r, &c->w, &c->h);
	c->unpinned = pinned && c->r + c->w + c->h > cpus;
	for (unsigned s = 1; s <= o->seeds; s++) {
		/* more threads than CPUs (the 1,1,1 livelock shape on 2 CPUs): not
		 * pinned, so a thread that sleeps leaves its CPU to the third;
		 * still no preemption under SCHED_FIFO */
		bool pin = pinned && c->r + c->w + c->h <= cpus;
		struct spec sp = {
			.v = v, .r = c->r, .w = c->w, .h = c->h, .ncpus = cpus, .pin = pin,
			.rt = pinned && o->rt, .delay = mode != 2, .secs = o->bound, .seed = s,
			.expect = expect, .expect_text = v->expect,
		};
		struct outcome out;

		if (!run_child(&sp, &out)) {
			t[s - 1] = o->bound;
			continue;
		}
		c->ran++;
		c->rt_denied |= out.rt_denied;
		if (out.found) {
			c->caught++;
			t[s - 1] = out.seconds;
		} else {
			t[s - 1] = o->bound;
		}
		fprintf(stderr, "bench:   %-22s %-3s %-8s seed %u: %s %.2f s\n", v->name, v->granule->name,
			mode == 0 ? "pinned" : mode == 1 ? "over" : "nodelay", s,
			out.found ? "found" : "missed", out.seconds);
	}
	qsort(t, o->seeds, sizeof(double), cmp_d);
	c->med = o->seeds & 1 ? t[o->seeds / 2] : (t[o->seeds / 2 - 1] + t[o->seeds / 2]) / 2;
	c->worst = t[o->seeds - 1];
}

static bool wanted(const struct sc_opts *o, const struct variant *v, unsigned expect)
{
	if (!strcmp(o->mutants, "all"))
		return true;
	if (!strcmp(o->mutants, "hard"))
		return !strcmp(v->name, "no_pfn_check") || !strcmp(v->name, "ee_sticky_flags") ||
		       !strcmp(v->name, "ee_check_after_gather") || writer_kinds_only(expect);
	size_t n = strlen(v->name);

	for (const char *p = o->mutants; (p = strstr(p, v->name)); p += n)
		if ((p == o->mutants || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
			return true;
	return false;
}

static void print_cell(const struct cell *c)
{
	char sh[16];

	snprintf(sh, sizeof(sh), "%u,%u,%u%s", c->r, c->w, c->h, c->unpinned ? "*" : "");
	printf(" %8s %7.2f %7.2f %3u/%-3u", sh, c->med, c->worst, c->caught, c->ran);
}

static void detection(const struct sc_opts *o)
{
	int modes[3], nm = 0;

	if (o->mode_pinned)
		modes[nm++] = 0;
	if (o->mode_over)
		modes[nm++] = 1;
	if (o->mode_nodelay)
		modes[nm++] = 2;
	printf("\nPart 2. Time to first detection on %u CPU(s): %u seeds, %.0f s bound per run\n", o->maxn,
	       o->seeds, o->bound);
	printf("  pinned: one thread per CPU%s; over: %u threads on %u CPUs, not pinned%s\n",
	       o->rt ? ", SCHED_FIFO (no preemption)" : "", 2 * o->maxn, o->maxn,
	       o->mode_nodelay ? "; nodelay: pinned with --delay=off" : "");
	printf("  shape R,W,H (*: more threads than CPUs, so not pinned; under SCHED_FIFO still never\n"
	       "  preempted); median and worst seconds (a miss counts as the bound); caught/runs\n\n");
	printf("%-22s %-4s %-22s", "mutant", "gran", "expect");
	for (int i = 0; i < nm; i++) {
		const char *name = modes[i] == 0 ? "pinned" : modes[i] == 1 ? "over" : "nodelay";

		printf(" %8s %7s %7s %7s", name, "median", "worst", "caught");
	}
	if (o->mode_pinned && o->mode_over)
		printf(" %12s", "pinned/over");
	printf("\n");
	for (unsigned i = 0; i < variant_count(); i++) {
		const struct variant *v = variant_at(i);
		struct cell cells[3];
		bool rt_denied = false;

		/* the cells of the stress suite: 4k, and 16k for the early-exit tree */
		if (!v->mutant || (v->granule != &granules[0] && !(v->early_exit && v->granule == &granules[1])))
			continue;
		unsigned expect = parse_expect(v->expect);

		if (!wanted(o, v, expect))
			continue;
		for (int m = 0; m < nm; m++) {
			detect_cell(o, v, expect, modes[m], &cells[m]);
			rt_denied |= cells[m].rt_denied;
		}
		printf("%-22s %-4s %-22s", v->name, v->granule->name, v->expect);
		for (int m = 0; m < nm; m++)
			print_cell(&cells[m]);
		if (o->mode_pinned && o->mode_over) {
			double ratio = cells[1].med > 0 ? cells[0].med / cells[1].med : 0;

			printf(" %6.2f %-5s", ratio, ratio <= 3 ? "<=3x" : ">3x");
		}
		printf("%s\n", rt_denied ? "  (SCHED_FIFO refused: pinned without real time)" : "");
		fflush(stdout);
	}
}

static const char usage[] =
	"usage: bench --scaling [--seconds-per-case=S] [--seeds=N] [--bound=S]\n"
	"             [--mutants=hard|all|NAME,...] [--max-threads=N] [--modes=pinned,over,nodelay]\n"
	"             [--no-rt] [--no-throughput] [--no-detection]\n"
	"  --seconds-per-case=S  each throughput run (default 2)\n"
	"  --seeds=N             seeds per mutant and mode (default 5)\n"
	"  --bound=S             each detection run's bound (default 20)\n"
	"  --mutants=...         hard (default: no_pfn_check, ee_sticky_flags, ee_check_after_gather\n"
	"                        and every writer-contract mutant of the catalogue: expected kinds\n"
	"                        dirty_lost/young_lost), all, or names\n"
	"  --max-threads=N       up to N threads / CPUs (default: the CPUs this process may use)\n"
	"  --modes=LIST          detection modes (default pinned,over)\n"
	"  --no-rt               pinned runs without SCHED_FIFO\n";

int scaling_main(int argc, char **argv)
{
	struct sc_opts o = { .secs = 2, .bound = 20, .seeds = 5, .mutants = "hard", .rt = true,
			     .throughput = true, .detection = true, .mode_pinned = true, .mode_over = true };
	cpu_set_t set;
	double load0[3], load1[3];

	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("bench: sched_getaffinity");
		return 2;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			allowed[nallowed++] = c;
	o.maxn = nallowed;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;

		if (!strcmp(a, "--scaling")) {
			continue;
		} else if (!strncmp(a, "--seconds-per-case=", 19)) {
			o.secs = strtod(a + 19, &end);
			if (*end || !(o.secs > 0) || o.secs > 3600)
				goto bad;
		} else if (!strncmp(a, "--seeds=", 8)) {
			o.seeds = (unsigned)strtoul(a + 8, &end, 10);
			if (*end || o.seeds < 1 || o.seeds > 64)
				goto bad;
		} else if (!strncmp(a, "--bound=", 8)) {
			o.bound = strtod(a + 8, &end);
			if (*end || !(o.bound > 0) || o.bound > 3600)
				goto bad;
		} else if (!strncmp(a, "--mutants=", 10)) {
			o.mutants = a + 10;
			if (!*o.mutants)
				goto bad;
		} else if (!strncmp(a, "--max-threads=", 14)) {
			o.maxn = (unsigned)strtoul(a + 14, &end, 10);
			if (*end || o.maxn < 1 || o.maxn > nallowed)
				goto bad;
		} else if (!strncmp(a, "--modes=", 8)) {
			o.mode_pinned = strstr(a + 8, "pinned") != NULL;
			o.mode_over = strstr(a + 8, "over") != NULL;
			o.mode_nodelay = strstr(a + 8, "nodelay") != NULL;
			if (!o.mode_pinned && !o.mode_over && !o.mode_nodelay)
				goto bad;
		} else if (!strcmp(a, "--no-rt")) {
			o.rt = false;
		} else if (!strcmp(a, "--no-throughput")) {
			o.throughput = false;
		} else if (!strcmp(a, "--no-detection")) {
			o.detection = false;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else {
			goto bad;
		}
		continue;
bad:
		fprintf(stderr, "bench: bad argument '%s'\n%s", a, usage);
		return 2;
	}
	if (strcmp(o.mutants, "hard") && strcmp(o.mutants, "all")) {
		/* every name must be a mutant built in */
		char buf[1024], *save, *tok;

		snprintf(buf, sizeof(buf), "%s", o.mutants);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			const struct variant *v = variant_find(tok, &granules[0]);

			if (!v || !v->mutant) {
				fprintf(stderr, "bench: '%s' is not a mutant of this build (hammer --list)\n", tok);
				return 2;
			}
		}
	}
	if (getloadavg(load0, 3) != 3)
		load0[0] = load0[1] = load0[2] = -1;
	printf("bench --scaling: %u CPU(s) allowed (%ld online), load average %.2f %.2f %.2f at start\n",
	       nallowed, sysconf(_SC_NPROCESSORS_ONLN), load0[0], load0[1], load0[2]);
	if (o.rt && o.detection && o.mode_pinned) {
		struct sched_param sp = { .sched_priority = 50 };
		int pol = sched_getscheduler(0);
		struct sched_param old;

		sched_getparam(0, &old);
		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			printf("(SCHED_FIFO not permitted: %s; pinned runs use normal scheduling)\n",
			       strerror(errno));
			o.rt = false;
		} else {
			sched_setscheduler(0, pol, &old);
		}
	}
	if (o.throughput)
		throughput(&o);
	if (o.detection)
		detection(&o);
	if (getloadavg(load1, 3) != 3)
		load1[0] = load1[1] = load1[2] = -1;
	printf("\nload average %.2f %.2f %.2f at the end\n", load1[0], load1[1], load1[2]);
	return 0;
}
