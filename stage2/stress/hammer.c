/*
 * stage2/stress/hammer.c - the stage-2 subject under real threads: a
 * tree's pgtable.c (linked in: stage2_tree_library, build/stage2.bzl)
 * driven by
 *   vCPUs          hardware walkers translating guest accesses through
 *                  stage 2 with a TLB each, faulting into the shared ops
 *                  (mmu_lock for read, shared walks in RCU read-side
 *                  sections): map a page or block, relax permissions,
 *                  access-flag faults (--hw-af=off)
 *   a faulter      more shared ops, and mappings of other physical pages
 *                  over valid ones (break-before-make)
 *   an exclusive   mmu_lock for write: unmap, write-protect for dirty
 *   thread         logging, eager split, cache flush, the host moving a
 *                  block's backing
 *   an ager        kvm_age_gfn / kvm_test_age_gfn with mmu_lock for write,
 *                  for read, or none (--age-lock), counted for accuracy
 * then, with every agent stopped, the checks at quiescence, the VM's
 * teardown (the ager still running with --teardown-race) and the check
 * that nothing leaked. Exit 0 clean, 1 a violation (or, with --expect, not
 * the one expected), 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/rcu.h"
#include "core/rng.h"
#include "stage2/runtime/agents.h"
#include "stage2/runtime/finding.h"
#include "stage2/runtime/internal.h"

struct opts {
	double seconds;
	unsigned vcpus;
	bool exclusive, ager, progress, teardown_race;
	unsigned faulters;
	unsigned expect;                /* bit per s2_vkind; 0: clean expected */
	const char *expect_text;
	const char *json;
	const char *granule;
	unsigned excl_mask;             /* the exclusive thread's ops (bit per enum s2_op) */
	unsigned excl_pause_us;         /* the exclusive thread's mean pause between ops */
};

/* The profile runtime's writer, in a coverage build only. */
extern int __llvm_profile_write_file(void) __attribute__((weak));

static struct opts O = {
	.seconds = 3, .vcpus = 2, .excl_pause_us = 20, .faulters = 1, .exclusive = true, .ager = true, .progress = true,
	.excl_mask = 1u << S2_OP_UNMAP | 1u << S2_OP_WRPROTECT | 1u << S2_OP_SPLIT | 1u << S2_OP_FLUSH |
		     1u << S2_OP_MIGRATE | 1u << S2_OP_LOG_OFF,
};
static _Atomic bool stop_agents, stop_ager;
static char cmdline[4096];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--seconds=N] [--seed=N] [--vcpus=N] [--age-lock=write|read|none]\n"
		"          [--age-rcu=on|off] [--hw-af=on|off] [--tlb=N] [--reuse=quarantine|immediate|never]\n"
		"          [--quarantine=N] [--fwb=on|off] [--tlb-range=on|off] [--tlb-hints=on|off] [--blocks=N] [--arena-pages=N]\n"
		"          [--age-pages=N] [--ops=unmap,wrprotect,split,flush,migrate,log_off] [--no-ager] [--no-faulter] [--faulters=N]\n"
		"          [--no-exclusive] [--teardown-race] [--expect=KIND[|KIND]] [--json=FILE] [--no-progress]\n"
		"          [--known=SIG[,SIG]] [--known-file=FILE]\n"
		"          [--granule=4k|16k|64k] [--delay=off|SHIFT/SPINS] [--excl-pause=US]\n"
		"kinds: use_after_free, rcu_unprotected, bbm_violation, lost_update, locked_overwrite, resurrection,\n"
		"       refcount, leak, dirty_log_lost, aging_miss, stale_tlb_access, kernel_warn, hang, crash\n"
		"--known: bugs already known, each kind:op:function (docs/stage2.md, \"Which bug\"; * for any op\n"
		"or function): counted (the JSON's known), not reported, and the run goes on\n",
		program_invocation_short_name);
}

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "stage2-hammer: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (--help)\n");
	return 2;
}


static int parse(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *a = argv[i], *v = strchr(a, '=');
		size_t n = v ? (size_t)(v - a) : strlen(a);

		if (v)
			v++;
#define IS(name) (n == strlen(name) && !strncmp(a, name, n))
		if (IS("--help") || IS("-h")) {
			usage(stdout);
			exit(0);
		} else if (IS("--seconds") && v) {
			O.seconds = atof(v);
			if (O.seconds <= 0 || O.seconds > 86400)
				return bad("--seconds=%s: want a number of seconds above 0", v);
		} else if (IS("--seed") && v) {
			s2_cfg.seed = strtoull(v, NULL, 0);
		} else if (IS("--vcpus") && v) {
			O.vcpus = (unsigned)atoi(v);
			if (O.vcpus < 1 || O.vcpus > 8)
				return bad("--vcpus=%s: 1 to 8", v);
		} else if (IS("--age-lock") && v) {
			if (!strcmp(v, "write"))
				s2_cfg.age_lock = S2_AGE_WRITE;
			else if (!strcmp(v, "read"))
				s2_cfg.age_lock = S2_AGE_READ;
			else if (!strcmp(v, "none"))
				s2_cfg.age_lock = S2_AGE_NONE;
			else
				return bad("--age-lock=%s: write, read or none", v);
		} else if (IS("--age-rcu") && v) {
			if (!s2_parse_on_off(v, &s2_cfg.age_rcu))
				return bad("--age-rcu=%s: on or off", v);
		} else if (IS("--hw-af") && v) {
			if (!s2_parse_on_off(v, &s2_cfg.hw_af))
				return bad("--hw-af=%s: on or off", v);
		} else if (IS("--fwb") && v) {
			if (!s2_parse_on_off(v, &s2_cfg.fwb))
				return bad("--fwb=%s: on or off", v);
		} else if (IS("--tlb-range") && v) {
			if (!s2_parse_on_off(v, &s2_cfg.tlb_range))
				return bad("--tlb-range=%s: on or off", v);
		} else if (IS("--tlb-hints") && v) {
			bool on;

			if (!s2_parse_on_off(v, &on))
				return bad("--tlb-hints=%s: on (TLBI level hints honoured) or off (ignored)", v);
			s2_cfg.ttl_ignored = !on;
		} else if (IS("--tlb") && v) {
			s2_cfg.tlb_entries = (unsigned)atoi(v);
			if (s2_cfg.tlb_entries > TLB_S2_MAX)
				return bad("--tlb=%s: 0 (no TLB model) to 64 entries", v);
		} else if (IS("--reuse") && v) {
			if (!strcmp(v, "quarantine"))
				s2_cfg.reuse = S2_REUSE_QUARANTINE;
			else if (!strcmp(v, "immediate"))
				s2_cfg.reuse = S2_REUSE_IMMEDIATE;
			else if (!strcmp(v, "never"))
				s2_cfg.reuse = S2_REUSE_NEVER;
			else
				return bad("--reuse=%s: quarantine, immediate or never", v);
		} else if (IS("--quarantine") && v) {
			s2_cfg.quarantine = (unsigned)atoi(v);
		} else if (IS("--blocks") && v) {
			s2_cfg.blocks = (unsigned)atoi(v);
			if (s2_cfg.blocks < 1 || s2_cfg.blocks > S2_MAX_UNITS)
				return bad("--blocks=%s: 1 to 16", v);
		} else if (IS("--arena-pages") && v) {
			s2_cfg.arena_pages = (unsigned)atoi(v);
			if (s2_cfg.arena_pages < 16 || s2_cfg.arena_pages > 65536)
				return bad("--arena-pages=%s: 16 to 65536", v);
		} else if (IS("--age-pages") && v) {
			s2_cfg.age_max_pages = (unsigned)atoi(v);
			if (s2_cfg.age_max_pages < 1)
				return bad("--age-pages=%s: at least 1", v);
		} else if (IS("--ops") && v) {
			char *list = strdup(v), *save = NULL;

			O.excl_mask = 0;
			for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
				int k = -1;

				for (int op = S2_OP_UNMAP; op <= S2_OP_LOG_OFF; op++)
					if (!strcmp(w, s2_ops[op].name))
						k = op;
				if (k < 0) {
					free(list);
					return bad("--ops: '%s' is not one of unmap, wrprotect, split, flush, migrate, log_off", w);
				}
				O.excl_mask |= 1u << k;
			}
			free(list);
		} else if (IS("--delay") && v) {
			unsigned sh, spins;

			if (!strcmp(v, "off")) {
				s2_cfg.delay_shift = 0;
			} else if (sscanf(v, "%u/%u", &sh, &spins) == 2 && sh >= 1 && sh <= 30) {
				s2_cfg.delay_shift = sh;
				s2_cfg.delay_spins = spins;
			} else {
				return bad("--delay=%s: off, or SHIFT/SPINS (a pause of up to SPINS spins after one load in 2^SHIFT)", v);
			}
		} else if (IS("--excl-pause") && v) {
			O.excl_pause_us = (unsigned)atoi(v);
		} else if (IS("--no-ager")) {
			O.ager = false;
		} else if (IS("--no-faulter")) {
			O.faulters = 0;
		} else if (IS("--faulters") && v) {
			O.faulters = (unsigned)atoi(v);
			if (O.faulters > 4)
				return bad("--faulters=%s: 0 to 4", v);
		} else if (IS("--no-exclusive")) {
			O.exclusive = false;
		} else if (IS("--teardown-race")) {
			O.teardown_race = true;
		} else if (IS("--no-progress")) {
			O.progress = false;
		} else if (IS("--json") && v) {
			O.json = v;
		} else if (IS("--granule") && v) {
			O.granule = v;
		} else if (IS("--expect") && v) {
			char *list = strdup(v), *save = NULL;

			O.expect_text = v;
			for (char *w = strtok_r(list, "|,", &save); w; w = strtok_r(NULL, "|,", &save)) {
				enum s2_vkind k = s2_vkind_by_name(w);

				if (k == S2V_NONE) {
					free(list);
					return bad("--expect: '%s' is not a violation kind", w);
				}
				O.expect |= 1u << k;
			}
			free(list);
		} else if ((IS("--known") || IS("--known-file")) && v) {
			char err[512];

			if (IS("--known") ? s2_known_add(v, err, sizeof(err)) : s2_known_file(v, err, sizeof(err)))
				return bad("%s", err);
		} else if (IS("--variant") && v && !strcmp(v, "stage2")) {
			/* the subject, as build/drivers.bzl's tests name it */
		} else {
			return bad("unknown argument '%s'", a);
		}
#undef IS
		if (strncmp(a, "--seed=", 7) && strlen(cmdline) + strlen(a) + 2 < sizeof(cmdline)) {
			strcat(cmdline, " ");
			strcat(cmdline, a);
		}
	}
	if (O.granule) {
		char want[8];

		snprintf(want, sizeof(want), "%uk", 1u << (s2_tree.page_shift - 10));
		if (strcmp(O.granule, want))
			return bad("--granule=%s: this binary is built for the granule of its tree's build", O.granule);
	}
	return 0;
}

/* ---- the agents ----------------------------------------------------------------------- */

static struct s2_vcpu *vcpus;

static void *vcpu_main(void *arg)
{
	struct s2_vcpu *v = arg;
	uint64_t ipa = s2_pick_ipa(&v->t);

	rcu_register_thread();
	s2_vcpu_init(v, v->index, v->index);
	while (!atomic_load_explicit(&stop_agents, memory_order_relaxed) && !s2_stopping()) {
		/* mostly near the last access: a guest has locality */
		if (rng_below(&v->t.rng, 8) == 0)
			ipa = s2_pick_ipa(&v->t);
		else
			ipa = s2_vm.ipa_base + ((ipa - s2_vm.ipa_base + s2_vm.page_size *
						 (rng_below(&v->t.rng, 9))) % s2_vm.ipa_size);
		s2_vcpu_access(v, ipa, rng_below(&v->t.rng, 3) == 0, 64);
	}
	rcu_unregister_thread();
	return NULL;
}

static struct s2_thread faulter_t[4], excl_t, ager_t;
static struct kvm_mmu_memory_cache faulter_mc[4];

static void *faulter_main(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;
	struct s2_thread *t = &faulter_t[i];
	char role[16];
	uint64_t last;

	rcu_register_thread();
	snprintf(role, sizeof(role), i ? "faulter%u" : "faulter", i);
	s2_thread_attach(t, 12 + i, role);
	last = s2_pick_ipa(t);
	while (!atomic_load_explicit(&stop_agents, memory_order_relaxed) && !s2_stopping()) {
		uint64_t ipa = s2_pick_ipa(t);
		unsigned r = rng_below(&t->rng, 10);

		uint64_t d, seq = atomic_load(&s2_vm.inval_seq);
		int level;

		/* mostly near its last fault, as a vCPU's faults are */
		if (rng_below(&t->rng, 16))
			ipa = s2_vm.ipa_base + ((last - s2_vm.ipa_base + s2_vm.page_size * rng_below(&t->rng, 16)) %
						s2_vm.ipa_size);
		last = ipa;
		/* the faults another vCPU would take, at what the table holds:
		 * a translation fault, another page over a valid one, a
		 * permission fault, an access-flag fault (a vCPU without
		 * hardware AF: a walk down to the page) */
		if (!s2_peek_leaf(ipa, &d, &level, NULL))
			s2_fault(t, &faulter_mc[i], ipa, r & 1, false, 3, seq);
		else if (r < 2)
			s2_remap(t, &faulter_mc[i], ipa);
		else if (r < 5 && !(d & S2_DESC_S2AP_W))
			s2_fault(t, &faulter_mc[i], ipa, true, true, level, seq);
		else
			s2_access_fault(t, ipa);
	}
	rcu_unregister_thread();
	return NULL;
}

static void *exclusive_main(void *arg)
{
	struct s2_thread *t = &excl_t;

	(void)arg;
	rcu_register_thread();
	s2_thread_attach(t, 9, "exclusive");
	while (!atomic_load_explicit(&stop_agents, memory_order_relaxed) && !s2_stopping()) {
		uint64_t start, size;
		int op = S2_OP_UNMAP + (int)rng_below(&t->rng, S2_OP_LOG_OFF - S2_OP_UNMAP + 1);

		if (!(O.excl_mask >> op & 1))
			continue;
		s2_pick_range(t, &start, &size, 32);
		switch (op) {
		case S2_OP_UNMAP: s2_unmap(t, start, size); break;
		case S2_OP_WRPROTECT: s2_wrprotect(t, start, size); break;
		case S2_OP_SPLIT: s2_split(t, start, size); break;
		case S2_OP_FLUSH: s2_flush(t, start, size); break;
		case S2_OP_MIGRATE: s2_migrate(t, s2_unit_of(&s2_vm, start)); break;
		default: s2_log_off(t, s2_unit_of(&s2_vm, start)); break;
		}
		/* give the shared side time between exclusive ops */
		if (O.excl_pause_us) {
			struct timespec ts = { 0, (long)rng_below(&t->rng, 2 * O.excl_pause_us + 1) * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	rcu_unregister_thread();
	return NULL;
}

/* the ager's own CPU time, for the bench's aging calls per CPU second
 * (its wall-clock rate depends on what else the cores run) */
static double ager_cpu_s;

static void *ager_main(void *arg)
{
	struct s2_thread *t = &ager_t;
	struct timespec cpu;

	(void)arg;
	rcu_register_thread();
	s2_thread_attach(t, 10, "ager");
	while (!atomic_load_explicit(&stop_ager, memory_order_relaxed) && !s2_stopping()) {
		uint64_t start, size;

		s2_pick_range(t, &start, &size, s2_cfg.age_max_pages);
		s2_age(t, start, size, rng_below(&t->rng, 5) != 0);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	ager_cpu_s = cpu.tv_sec + cpu.tv_nsec * 1e-9;
	rcu_unregister_thread();
	return NULL;
}

/* ---- reports ---------------------------------------------------------------------------- */

static const char *age_lock_name(void)
{
	return s2_cfg.age_lock == S2_AGE_WRITE ? "write" : s2_cfg.age_lock == S2_AGE_READ ? "read" : "none";
}

static void startup(void)
{
	fprintf(stderr, "stage2-hammer: %s, granule %uk\n", s2_tree_desc(), 1u << (s2_tree.page_shift - 10));
	fprintf(stderr, "stage2-hammer: header %s\n", s2_tree.header);
	fprintf(stderr, "stage2-hammer: API generation: %s\n", s2_tree.adapters);
	if (s2_tree.warnings[0])
		fprintf(stderr, "stage2-hammer: the kernel's warning policy only warns about:\n%s", s2_tree.warnings);
	fprintf(stderr, "stage2-hammer: the callers of mmu.c, as driven:\n");
	for (int op = 0; op < S2_OP_COUNT; op++) {
		const struct s2_op_desc *d = &s2_ops[op];
		enum s2_held held = d->lock;

		if (op == S2_OP_AGE || op == S2_OP_TEST_AGE)
			held = s2_cfg.age_lock == S2_AGE_WRITE ? S2_HELD_WRITE :
			       s2_cfg.age_lock == S2_AGE_READ ? S2_HELD_READ : S2_HELD_NONE;
		fprintf(stderr, "  %-11s %-26s -> %-36s mmu_lock %-5s flags %s\n", d->name, d->caller, d->tree_fn,
			held == S2_HELD_WRITE ? "write" : held == S2_HELD_READ ? "read" : "none",
			d->flags ? "SHARED|HANDLE_FAULT" :
			(op >= S2_OP_AGE && s2_cfg.age_lock != S2_AGE_WRITE && s2_tree.age_takes_flags) ? "SHARED" :
			"(none)");
	}
	fprintf(stderr, "stage2-hammer: %u vCPUs (TLB %u entries, hardware AF %s)%s%s%s, aging with mmu_lock %s%s, "
		"%u blocks of %lluK, table pages reused %s, %.1fs, seed %llu\n",
		O.vcpus, s2_cfg.tlb_entries, s2_cfg.hw_af ? "on" : "off", O.faulters ? ", faulters" : "",
		O.exclusive ? ", an exclusive thread" : "", O.ager ? "" : ", no ager", age_lock_name(),
		s2_cfg.age_lock == S2_AGE_NONE ? (s2_cfg.age_rcu ? " (RCU read side)" : " (no RCU read side)") : "",
		s2_vm.nunits, (unsigned long long)(s2_vm.block_size >> 10),
		s2_cfg.reuse == S2_REUSE_IMMEDIATE ? "at once" : s2_cfg.reuse == S2_REUSE_NEVER ? "never" : "after a quarantine",
		O.seconds, (unsigned long long)s2_cfg.seed);
}

static uint64_t total_ops(void)
{
	uint64_t n = 0;

	for (int op = 0; op < S2_OP_COUNT; op++)
		n += atomic_load(&s2_op_count[op]);
	return n;
}

static uint64_t total_accesses(void)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < O.vcpus; i++)
		n += vcpus[i].accesses;
	return n;
}

static void report_end(double elapsed)
{
	fprintf(stderr, "stage2-hammer: calls into the tree's functions:\n");
	for (unsigned i = 0; i < s2_tree.nfuncs; i++) {
		uint64_t n = atomic_load(&s2_tree.func_calls[i]);

		fprintf(stderr, "  %-20s %10llu%s\n", s2_tree.func_names[i], (unsigned long long)n,
			n ? "" : "   (never called in this run)");
	}
	fprintf(stderr, "stage2-hammer: ops:");
	for (int op = 0; op < S2_OP_COUNT; op++)
		fprintf(stderr, " %s %llu", s2_ops[op].name, (unsigned long long)atomic_load(&s2_op_count[op]));
	fprintf(stderr, "\nstage2-hammer: guest accesses %llu; faults", (unsigned long long)total_accesses());
	{
		uint64_t ft = 0, fp = 0, fa = 0, hits = 0;

		for (unsigned i = 0; i < O.vcpus; i++) {
			ft += vcpus[i].faults_trans;
			fp += vcpus[i].faults_perm;
			fa += vcpus[i].faults_af;
			hits += vcpus[i].hits;
		}
		fprintf(stderr, ": translation %llu, permission %llu, access flag %llu; TLB hits %llu\n",
			(unsigned long long)ft, (unsigned long long)fp, (unsigned long long)fa, (unsigned long long)hits);
	}
	fprintf(stderr, "stage2-hammer: TLB maintenance: by IPA %llu, by IPA local %llu, by VMID %llu, by range %llu; "
		"cache maintenance %llu; access-flag changes undone by exclusive walkers %llu\n",
		(unsigned long long)atomic_load(&s2_count.tlbi_ipa), (unsigned long long)atomic_load(&s2_count.tlbi_ipa_nsh),
		(unsigned long long)atomic_load(&s2_count.tlbi_vmid), (unsigned long long)atomic_load(&s2_count.tlbi_range),
		(unsigned long long)atomic_load(&s2_count.cmo), (unsigned long long)atomic_load(&s2_count.af_lost));
	fprintf(stderr, "stage2-hammer: table pages: %llu allocated, %llu freed, at most %u live of %u\n",
		(unsigned long long)atomic_load(&s2_arena.allocs), (unsigned long long)atomic_load(&s2_arena.frees),
		atomic_load(&s2_arena.peak), s2_arena.npages);
	fprintf(stderr, "stage2-hammer: aging (mmu_lock %s): %llu calls, %llu young; definite young %llu (missed %llu, "
		"with nothing racing %llu), definite old %llu (said young %llu), racing %llu; %.1fs\n",
		age_lock_name(), (unsigned long long)atomic_load(&s2_acc.calls),
		(unsigned long long)atomic_load(&s2_acc.young), (unsigned long long)atomic_load(&s2_acc.definite_young),
		(unsigned long long)atomic_load(&s2_acc.missed), (unsigned long long)atomic_load(&s2_acc.quiescent_missed),
		(unsigned long long)atomic_load(&s2_acc.definite_old), (unsigned long long)atomic_load(&s2_acc.invented),
		(unsigned long long)atomic_load(&s2_acc.racy), elapsed);
	if (atomic_load(&s2_count.faults_timed))
		fprintf(stderr, "stage2-hammer: throughput: %.0f aging calls/s, %.0f guest faults/s; fault latency "
			"mean %.1f us, p50 <= %.1f us, p99 <= %.1f us\n",
			atomic_load(&s2_acc.calls) / elapsed, atomic_load(&s2_count.faults_timed) / elapsed,
			atomic_load(&s2_count.fault_ns_sum) / 1e3 / (double)atomic_load(&s2_count.faults_timed),
			s2_fault_latency_ns(0.5) / 1e3, s2_fault_latency_ns(0.99) / 1e3);
}

static void summary(FILE *f, double elapsed, const char *result)
{
	fprintf(f, "{\"subject\": \"stage2\", \"tree\": \"%s\", \"granule_kb\": %u, \"seconds\": %.2f, "
		"\"age_lock\": \"%s\", \"hw_af\": %s, \"tlb\": %u, \"vcpus\": %u, \"ops\": %llu, \"accesses\": %llu, "
		"\"aging\": {\"calls\": %llu, \"young\": %llu, \"definite_young\": %llu, \"missed\": %llu, "
		"\"quiescent_missed\": %llu, \"definite_old\": %llu, \"invented\": %llu, \"racy\": %llu}, "
		"\"ager_cpu_s\": %.3f, \"faults\": %llu, \"fault_ns\": {\"mean\": %.0f, \"p50\": %llu, \"p99\": %llu}, "
		"\"violations\": %d, \"kind\": \"%s\", \"summary\": \"",
		s2_tree_desc(), 1u << (s2_tree.page_shift - 10), elapsed, age_lock_name(), s2_cfg.hw_af ? "true" : "false",
		s2_cfg.tlb_entries, O.vcpus, (unsigned long long)total_ops(), (unsigned long long)total_accesses(),
		(unsigned long long)atomic_load(&s2_acc.calls), (unsigned long long)atomic_load(&s2_acc.young),
		(unsigned long long)atomic_load(&s2_acc.definite_young), (unsigned long long)atomic_load(&s2_acc.missed),
		(unsigned long long)atomic_load(&s2_acc.quiescent_missed),
		(unsigned long long)atomic_load(&s2_acc.definite_old), (unsigned long long)atomic_load(&s2_acc.invented),
		(unsigned long long)atomic_load(&s2_acc.racy), ager_cpu_s,
		(unsigned long long)atomic_load(&s2_count.faults_timed),
		atomic_load(&s2_count.faults_timed)
			? atomic_load(&s2_count.fault_ns_sum) / (double)atomic_load(&s2_count.faults_timed) : 0.0,
		(unsigned long long)s2_fault_latency_ns(0.5), (unsigned long long)s2_fault_latency_ns(0.99),
		atomic_load(&s2_nfound), s2_vkind_name(s2_found.kind));
	for (const char *c = s2_found.summary; *c; c++)
		fprintf(f, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
	fprintf(f, "\", ");
	s2_findings_json(f, s2_nfound ? &s2_found : NULL);
	fprintf(f, ", \"result\": \"%s\"}\n", result);
}

static double run_t0;             /* the run's start, for a crash's report */

static void repro_line(void)
{
	const char *tool = getenv("S2_REPRO_CMD");
	char *self = realpath("/proc/self/exe", NULL);

	fprintf(stderr, "reproduce: %s%s --seed=%llu\n", tool && *tool ? tool : self ? self : "stage2-hammer",
		tool && *tool ? "" : cmdline, (unsigned long long)s2_cfg.seed);
	free(self);
}

static void on_crash(int sig)
{
	struct s2_thread *t = s2_self();
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "\nVIOLATION crash: signal %d in %s (in %s): the subject's code faulted\n",
			 sig, t->role, t->op ? t->op : "no op");

	(void)!write(2, msg, (size_t)n);
	/* the finding, for the tools (not async-signal-safe, but this
	 * process is ending anyway and nothing else runs its stdio now) */
	if (atomic_fetch_add(&s2_nfound, 1) == 0) {
		s2_found.kind = S2V_CRASH;
		snprintf(s2_found.op, sizeof(s2_found.op), "%s", s2_finding_op(t));
		snprintf(s2_found.fn, sizeof(s2_found.fn), "%s", s2_finding_fn(t));
		snprintf(s2_found.summary, sizeof(s2_found.summary), "crash: signal %d in %s (in %s)", sig, t->role,
			 t->op ? t->op : "no op");
	}
	s2_finding_print(stderr, "", &s2_found);
	if (O.json) {
		FILE *jf = fopen(O.json, "w");

		if (jf) {
			summary(jf, now_s() - run_t0, "violation");
			fclose(jf);
		}
	}
	_exit(O.expect & (1u << S2V_CRASH) ? 0 : 1);
}

/* ---- the run ---------------------------------------------------------------------------- */

/* Join within the grace: false if a thread is stuck in the subject. */
static bool join_all(pthread_t *th, unsigned n, double until)
{
	for (unsigned i = 0; i < n; i++) {
		struct timespec ts;
		double left = until - now_s();

		clock_gettime(CLOCK_REALTIME, &ts);
		if (left < 0)
			left = 0;
		ts.tv_sec += (time_t)left;
		ts.tv_nsec += (long)((left - (time_t)left) * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (pthread_timedjoin_np(th[i], NULL, &ts))
			return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	char err[256];
	pthread_t th[16], ager_th;
	unsigned n = 0;
	double t0, elapsed, next_progress;
	static struct s2_thread main_t;
	int rc;
	const char *result;

	if ((rc = parse(argc, argv)))
		return rc;
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	rcu_register_thread();
	s2_thread_attach(&main_t, 11, "setup");
	if (s2_vm_create(err, sizeof(err))) {
		fprintf(stderr, "stage2-hammer: %s\n", err);
		return 2;
	}
	s2_thread_attach(&main_t, 11, "teardown");
	startup();
	vcpus = calloc(O.vcpus, sizeof(*vcpus));
	s2_report_reset();      /* the findings' clock starts */
	t0 = run_t0 = now_s();
	for (unsigned i = 0; i < O.vcpus; i++) {
		vcpus[i].index = i;
		pthread_create(&th[n++], NULL, vcpu_main, &vcpus[i]);
	}
	for (unsigned i = 0; i < O.faulters; i++)
		pthread_create(&th[n++], NULL, faulter_main, (void *)(uintptr_t)i);
	if (O.exclusive)
		pthread_create(&th[n++], NULL, exclusive_main, NULL);
	if (O.ager)
		pthread_create(&ager_th, NULL, ager_main, NULL);
	next_progress = t0 + 1;
	while (now_s() - t0 < O.seconds && !s2_stopping()) {
		usleep(10000);
		if (O.progress && now_s() >= next_progress) {
			fprintf(stderr, "\rstage2-hammer: %.0fs: %llu ops, %llu guest accesses, %llu aging calls   ",
				now_s() - t0, (unsigned long long)total_ops(), (unsigned long long)total_accesses(),
				(unsigned long long)atomic_load(&s2_acc.calls));
			next_progress += 1;
		}
	}
	if (O.progress)
		fputc('\n', stderr);
	atomic_store(&stop_agents, true);
	if (!O.teardown_race)
		atomic_store(&stop_ager, true);
	if (!join_all(th, n, now_s() + 5) || (O.ager && !O.teardown_race && !join_all(&ager_th, 1, now_s() + 5))) {
		s2_report(S2V_HANG, "", "hang: an agent did not return within 5 s of the end of the run "
			  "(the subject's code spins or waits for ever)");
		goto report;
	}
	/* every agent stopped (but the ager, with --teardown-race) */
	if (!s2_stopping() && !O.teardown_race) {
		rcu_barrier();
		s2_vm_check_quiescent(false);
	}
	if (!s2_stopping()) {
		s2_vm_teardown(&main_t);
		if (O.ager && O.teardown_race) {
			usleep(20000);
			atomic_store(&stop_ager, true);
			if (!join_all(&ager_th, 1, now_s() + 5)) {
				s2_report(S2V_HANG, "", "hang: the ager did not return after the teardown");
				goto report;
			}
		}
		rcu_barrier();
		if (!s2_stopping())
			s2_vm_check_quiescent(true);
	} else if (O.ager && O.teardown_race) {
		atomic_store(&stop_ager, true);
		join_all(&ager_th, 1, now_s() + 5);
	}
report:
	elapsed = now_s() - t0;
	report_end(elapsed);
	if (s2_nfound) {
		fprintf(stderr, "\nVIOLATION (%d found) %s\n%s\n", atomic_load(&s2_nfound), s2_found.summary,
			s2_found.detail);
		repro_line();
	}
	s2_finding_print(stderr, "stage2-hammer: ", s2_nfound ? &s2_found : NULL);
	if (O.expect) {
		bool hit = s2_nfound && (O.expect >> s2_found.kind & 1);

		result = hit ? "expected_violation_found" : "expected_violation_missing";
		rc = hit ? 0 : 1;
		if (!hit)
			fprintf(stderr, "stage2-hammer: expected a %s violation within %.1fs; %s\n", O.expect_text,
				O.seconds, s2_nfound ? "found another kind (above)" : "none found");
	} else {
		result = s2_nfound ? "violation" : "clean";
		rc = s2_nfound ? 1 : 0;
	}
	{
		FILE *jf = O.json ? fopen(O.json, "w") : stdout;

		summary(jf ? jf : stdout, elapsed, result);
		if (jf && jf != stdout)
			fclose(jf);
	}
	fflush(stdout);
	fflush(stderr);
	/* the coverage build's counts (tools --coverage): _exit skips the
	 * profile runtime's own write at exit */
	if (__llvm_profile_write_file)
		__llvm_profile_write_file();
	_exit(rc);
}
