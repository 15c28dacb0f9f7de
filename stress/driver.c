/* stress/driver.c - threads, phases, progress and summary of a stress run. */
#define _GNU_SOURCE
#include "stress/driver.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/access.h"
#include "core/cpu.h"
#include "core/finding.h"
#include "core/hw.h"
#include "core/mm.h"
#include "core/oob.h"
#include "core/oracle/history.h"
#include "core/oracle/oracle.h"
#include "core/rcu_tsan.h"
#include "core/ops.h"
#include "core/plain_access.h"
#include "core/tlb.h"
#include "stress/agents.h"

/* a reader's jump back after a plain access (beside 1, 2 and core/oob.h's) */
#define JMP_PLAIN_ACCESS 5

/* ---- run state shared by all threads ---------------------------------- */
static struct stress_world W;              /* the table, writers and hardware (agents.h) */
#define M (W.m)
static const struct stress_cfg *C;
static _Atomic uint64_t g_quiesce_gen;     /* odd while writers and hardware stand still */
static volatile sig_atomic_t g_signal;
static pthread_mutex_t vio_lock = PTHREAD_MUTEX_INITIALIZER;
static struct violation first_vio;
static _Atomic uint64_t n_violations;     /* of signatures not known (--known) */
static _Atomic uint64_t n_known;          /* violations of known signatures */
/* --expect: the kinds seen, and the first violation of an expected kind */
static _Atomic uint32_t kinds_seen;    /* written under vio_lock */
static struct violation expected_vio;
static struct judge_stats judged;
static pthread_mutex_t judged_lock = PTHREAD_MUTEX_INITIALIZER;
/* delays taken, by role: readers, writers, hardware */
static struct delay_totals delays_sum[3];
static double readers_cpu_s;             /* CPU time of the reader threads */
static uint64_t locked_reads;            /* of all reads, those of the locked gather */

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* A run stops at its first violation, except under --keep-going, and under
 * --expect until a violation of an expected kind: one bug has several
 * symptoms (a missing flush is a stale access or a conflict, a lost write
 * permission a dirty bit lost or a fault loop), and which one timing brings
 * first must not decide whether the mutant counts as caught. Do
 * violations of these kinds end the run? */
static bool ends_run(uint32_t kinds)
{
	return !C->keep_going && (C->expect ? (kinds & C->expect) != 0 : kinds != 0);
}

/* Every violation of the run, on the thread that found it: identified
 * (core/finding.h: in place, the reporters' own copies) and counted by
 * signature. A known one (--known) is counted only: the run and the thread
 * that hit it go on, every check stays on. */
static void report(const struct violation *cv)
{
	struct violation *v = (struct violation *)cv;
	uint32_t bit = 1u << v->kind;
	bool wanted = C->expect & bit, new_other, first_of_sig;
	char sig[200];

	finding_identify(v);
	if (finding_note(v, &first_of_sig)) {
		atomic_fetch_add_explicit(&n_known, 1, memory_order_relaxed);
		return;
	}
	if (first_of_sig && C->keep_going)
		fprintf(stderr, "\nhammer: finding %s: %s\n", finding_signature(v, sig, sizeof(sig)), v->summary);
	pthread_mutex_lock(&vio_lock);
	if (atomic_fetch_add(&n_violations, 1) == 0)
		first_vio = *v;
	if (wanted && !(kinds_seen & C->expect))
		expected_vio = *v;
	new_other = C->expect && !wanted && !(kinds_seen & bit);
	kinds_seen |= bit;
	pthread_mutex_unlock(&vio_lock);
	atomic_fetch_add(&M.hdr->violations, 1);
	if (new_other)
		fprintf(stderr, "\nhammer: a %s violation, not of the expected kind (%s); going on for one:\n%s\n",
			vkind_name(v->kind), C->expect_text, v->summary);
	if (ends_run(bit))
		atomic_store(&W.stop, 1);
}

/* The violation a report shows: under --expect the first of an expected
 * kind, if one was found; else the first. */
static const struct violation *shown_vio(void)
{
	return C->expect && (kinds_seen & C->expect) ? &expected_vio : &first_vio;
}

static void report_finding(struct stress_world *w, const struct violation *v)
{
	(void)w;
	report(v);
}

/* ---- readers ----------------------------------------------------------- */
struct reader {          /* cache-line aligned: each writes its own on every read */
	_Alignas(64) pthread_t th;
	uint64_t rng;
	sigjmp_buf jb;
	uint64_t q_seen;         /* still phase this read was first seen in */
	uint64_t q_loads;        /* the read's loads then */
	uint64_t bound;          /* loads between checks: a quarter of property 4's bound */
	bool yield_pending;      /* chaos: yield at the next limit crossing */
	bool delay_pending;      /* delays: stand still at the next limit crossing */
	unsigned cur_block;      /* lt * bpt + block + 1 of the read in flight */
	unsigned index;
	struct delay delay;
	struct judge_stats st;
	_Atomic unsigned reading; /* lt * bpt + block + 1 while inside a read (watchdog) */
	_Atomic bool reading_locked; /* that read is ptep_get under the PTL */
	const struct acc_subject *subj; /* its record of subject code (a hang names it) */
	struct acc_guard guard;   /* a fault in the subject's reader comes back to jb */
};
static __thread struct reader *self_reader;

/* The access layer calls this every `bound` loads of one read. A read that
 * makes progress_bound() loads inside one still phase (writers and
 * hardware standing still) is a livelock (property 4). */
static void reader_on_limit(struct acc_thread *t)
{
	struct reader *r = self_reader;
	uint64_t q = atomic_load_explicit(&g_quiesce_gen, memory_order_acquire);

	if (r->delay_pending) {
		/* delays: stand still in the middle of this read until writers
		 * have stored to its block k times (stress/delay.h); the writer
		 * owning its table picks the block often meanwhile */
		unsigned mine = r->cur_block, k = delay_steps(&r->delay);
		struct block_hist *h = &M.hist[mine - 1];
		struct agent *wr = agents_owner(&W, (mine - 1) / M.bpt);
		uint64_t l0 = atomic_load_explicit(&h->lseq, memory_order_acquire);

		r->delay_pending = false;
		atomic_store_explicit(&wr->stalled_block, mine, memory_order_relaxed);
		delay_wait(&r->delay, &h->lseq, l0 + k, k, &W.stop, &W.pause);
		atomic_compare_exchange_strong(&wr->stalled_block, &mine, 0);
		acc_arm(t, r->bound);
		return;
	}
	if (r->yield_pending) {
		/* chaos: stall this read at a random load, so writers can
		 * change the block between two of its loads */
		r->yield_pending = false;
		if (W.nwriters) {
			unsigned mine = r->cur_block;
			struct agent *wr = agents_owner(&W, (mine - 1) / M.bpt);

			atomic_store_explicit(&wr->stalled_block, mine, memory_order_relaxed);
			sched_yield();
			atomic_compare_exchange_strong(&wr->stalled_block, &mine, 0);
		} else {
			sched_yield();
		}
		acc_arm(t, r->bound);
		return;
	}
	if (atomic_load_explicit(&W.stop, memory_order_relaxed))
		siglongjmp(r->jb, 2);          /* run over: abandon this read */
	if ((q & 1) && r->q_seen != q) {
		r->q_seen = q;
		r->q_loads = acc_loads(t);
	} else if ((q & 1) && acc_loads(t) - r->q_loads >= progress_bound(M.cont)) {
		siglongjmp(r->jb, 1);
	}
	acc_arm(t, r->bound);
}

static void flush_counts(uint64_t *reads, uint64_t *retries)
{
	atomic_fetch_add_explicit(&M.hdr->reads, *reads, memory_order_relaxed);
	atomic_fetch_add_explicit(&M.hdr->retries, *retries, memory_order_relaxed);
	*reads = *retries = 0;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	const struct variant *v = C->variant;
	static __thread struct probe p;
	unsigned cont = M.cont;
	uint64_t n_reads = 0, n_retries = 0, n_locked = 0;

	self_reader = r;
	r->subj = &acc_self.subj;
	agents_pin_self(&W, r->index);
	rcu_register_thread();
	acc_self.on_limit = reader_on_limit;
	r->bound = progress_bound(cont) / 4;
	/* delays only where writers can change what a read stands still in */
	bool delays = C->delay.on && W.nwriters;
	unsigned cont_shift = 0;

	while ((1u << cont_shift) < cont)
		cont_shift++;
	if (delays)
		delay_init(&r->delay, &W.delay, 1.0, r->rng);
	while (!atomic_load_explicit(&W.stop, memory_order_relaxed)) {
		unsigned lt = rng_below(&r->rng, M.ntables);
		unsigned block = rng_below(&r->rng, M.bpt), t = rng_below(&r->rng, cont);
		uint64_t *ptep, R, scans;
		/* which of the tree's readers this read calls */
		bool locked = C->both_readers ? rng_below(&r->rng, 4) == 0 : C->locked;

		if (delays && rng_below(&r->rng, 4) == 0) {
			/* a quarter of the reads go where a writer works */
			agent_hot_block(&W.writers[r->index % W.nwriters], M.bpt, &lt, &block);
		}
		finding_begin(locked ? "read_locked" : "read");
		if (locked)
			pthread_mutex_lock(&M.ptl[lt].lock);
		ptep = probe_open(&M, &p, lt, block, t, locked);
		if (!ptep)
			continue;   /* a lockless read of a table being torn down: none */

		acc_self.scans = 0;
		acc_reset(&acc_self, r->bound);
		r->q_seen = 0;
		r->cur_block = lt * M.bpt + block + 1;
		if (delays && !locked && !atomic_load_explicit(&W.pause, memory_order_relaxed) &&
		    delay_roll(&r->delay, 1)) {
			/* before load n + 1, n in [1, cont]: between the target's
			 * load and the scan's last, skewed towards the start
			 * (n - 1 uniform below 2^e, e uniform in [0, log2 cont]) */
			unsigned e = delay_below(&r->delay, cont_shift + 1);

			r->delay_pending = true;
			acc_arm(&acc_self, 1 + delay_below(&r->delay, 1u << e));
		} else if (C->chaos && rng_below(&r->rng, 8) == 0) {
			r->yield_pending = true;
			acc_arm(&acc_self, rng_below(&r->rng, cont + 3));
		}
		int jumped = sigsetjmp(r->jb, 0);
		if (jumped) {
			acc_self.guard = NULL;
			atomic_store_explicit(&r->reading, 0, memory_order_relaxed);
			if (jumped == 1) {
				struct violation vio;

				progress_report(&M, &p, acc_loads(&acc_self), "reader", &vio);
				report(&vio);
			} else if (jumped == OOB_SIGSEGV || jumped == OOB_SIGBUS) {
				struct violation vio = { .kind = VK_OOB };
				char where[160];

				snprintf(vio.summary, sizeof(vio.summary),
					 "out_of_bounds: the %s reader of table %u block %u entry %u faulted (%s) on %s",
					 locked ? "locked" : "lockless", lt, block, t,
					 jumped == OOB_SIGBUS ? "SIGBUS" : "SIGSEGV",
					 hmm_where(&M, r->guard.fault_addr, where, sizeof(where)));
				snprintf(vio.detail, sizeof(vio.detail),
					 "  the read loaded outside the table pages (the guard page after\n"
					 "  them, or outside the harness's segment)\n");
				report(&vio);
			}
			probe_abandon(&p);
			if (locked)
				pthread_mutex_unlock(&M.ptl[lt].lock);
			continue;   /* the loop ends if the report stopped the run */
		}
		atomic_store_explicit(&r->reading_locked, locked, memory_order_relaxed);
		atomic_store_explicit(&r->reading, lt * M.bpt + block + 1, memory_order_relaxed);
		r->guard.recover = &r->jb;
		acc_self.guard = &r->guard;
		R = locked ? v->ptep_get(ptep) : v->ptep_get_lockless(ptep);
		acc_self.guard = NULL;
		atomic_store_explicit(&r->reading, 0, memory_order_relaxed);
		r->delay_pending = r->yield_pending = false;
		n_locked += locked;
		probe_close(&M, &p, R);
		if (locked)
			pthread_mutex_unlock(&M.ptl[lt].lock);

		/* retries = block scans started beyond the first; into the
		 * segment's counters every 64 reads (one shared cache line
		 * written on every read would keep readers from scaling) */
		scans = acc_self.scans;
		n_retries += scans ? scans - 1 : 0;
		if (++n_reads == 64)
			flush_counts(&n_reads, &n_retries);

		struct violation vio;   /* probe_judge clears it (without its 8 KB of text) */
		if (probe_judge(&M, &p, &vio, &r->st) == VERDICT_VIOLATION)
			report(&vio);
	}
	flush_counts(&n_reads, &n_retries);
	acc_self.on_limit = acc_limit_ignore;
	pthread_mutex_lock(&judged_lock);
	judged.hw_quiet += r->st.hw_quiet;
	judged.sw_quiet += r->st.sw_quiet;
	judged.content_only += r->st.content_only;
	judged.unjudged += r->st.unjudged;
	locked_reads += n_locked;
	delay_add(&delays_sum[0], &r->delay);
	readers_cpu_s += agents_thread_cpu_s();
	pthread_mutex_unlock(&judged_lock);
	rcu_unregister_thread();
	return NULL;
}

/* A subject's plain access to an entry (core/plain_access.h): reported; a
 * reader abandons its read (it may be spinning on plain loads, which never
 * reach the access layer's progress check). */
static void report_plain_access(const struct violation *v)
{
	report(v);
	if (self_reader)
		siglongjmp(self_reader->jb, JMP_PLAIN_ACCESS);
}

/* ---- monitor: phases, progress ---------------------------------------- */
static void on_signal(int sig) { g_signal = sig; }

/* Stop writers and hardware; readers go on and must finish their reads. */
static double g_t_end;                     /* the run's end (a still phase never outlasts it) */

static void quiesce(unsigned parties, int ms)
{
	double deadline = now_s() + 5 < g_t_end ? now_s() + 5 : g_t_end;

	atomic_store(&W.pause, 1);
	while (atomic_load(&W.parked) < (int)parties && !atomic_load(&W.stop) && now_s() < deadline)
		usleep(100);
	if (atomic_load(&W.parked) >= (int)parties) {
		atomic_fetch_add(&g_quiesce_gen, 1);
		usleep(ms * 1000);
		finding_begin("still");
		for (unsigned lt = 0; lt < M.ntables && !atomic_load(&W.stop); lt++) {
			pthread_mutex_lock(&M.ptl[lt].lock);
			agents_check_owed(&W, lt, -1);
			pthread_mutex_unlock(&M.ptl[lt].lock);
		}
		atomic_fetch_add(&g_quiesce_gen, 1);
	}
	atomic_store(&W.pause, 0);
}

struct snapshot { double t; uint64_t reads, retries, wops, hwops; };

static struct snapshot take(void)
{
	struct snapshot s = {
		now_s(), atomic_load(&M.hdr->reads), atomic_load(&M.hdr->retries),
		atomic_load(&M.hdr->writer_ops), atomic_load(&M.hdr->hw_ops),
	};
	return s;
}

static void progress_line(const struct snapshot *a, const struct snapshot *b, double elapsed)
{
	double dt = b->t - a->t;
	uint64_t dr = b->reads - a->reads;

	fprintf(stderr,
		"\r[%6.1fs] reads %8.0f/s  retries/read %6.3f  writer ops %7.0f/s  hw %8.0f/s  violations %llu",
		elapsed, dr / dt, dr ? (double)(b->retries - a->retries) / dr : 0.0,
		(b->wops - a->wops) / dt, (b->hwops - a->hwops) / dt,
		(unsigned long long)atomic_load(&n_violations));
	if (finding_known_count())
		fprintf(stderr, "  known %llu", (unsigned long long)atomic_load(&n_known));
	fputs("   ", stderr);
	fflush(stderr);
}

static void write_repro(void)
{
	char path[4096];
	FILE *f;
	const struct violation *v = shown_vio();

	if (!C->report_dir)
		return;
	if (C->report_dir_create && mkdir(C->report_dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "hammer: cannot make the reproducer folder %s: %s\n", C->report_dir, strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/violation-%s-%s-%s-seed%llu.txt", C->report_dir,
		 vkind_name(v->kind), C->variant->name, C->variant->granule->name,
		 (unsigned long long)C->seed);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "hammer: cannot write reproducer %s: %s\n", path, strerror(errno));
		return;
	}
	finding_print_one(f, "", v);
	fprintf(f, "%s\n%s\nreproduce (stress runs are timing-dependent; rerun a few times):\n  %s --seed=%llu\n",
		v->summary, v->detail, C->cmdline ? C->cmdline : "hammer",
		(unsigned long long)C->seed);
	fclose(f);
	fprintf(stderr, "hammer: reproduce (timing-dependent; rerun a few times) with\n  %s --seed=%llu\n",
		C->cmdline ? C->cmdline : "hammer", (unsigned long long)C->seed);
	fprintf(stderr, "hammer: reproducer written to %s\n", path);
}

static void json_delays(FILE *f, const char *name, const struct delay_totals *d, unsigned threads,
			double elapsed, bool last)
{
	fprintf(f, "\"%s\": {\"points\": %llu, \"taken\": %llu, \"reached\": %llu, \"capped\": %llu, "
		"\"time_share\": %.3f}%s",
		name, (unsigned long long)d->points, (unsigned long long)d->taken,
		(unsigned long long)d->reached, (unsigned long long)d->capped,
		threads ? d->delayed_ns * 1e-9 / (threads * elapsed) : 0.0, last ? "" : ", ");
}

static void summary(FILE *f, double elapsed, const char *result)
{
	uint64_t reads = atomic_load(&M.hdr->reads);

	fprintf(f, "{\"variant\": \"%s\", \"mutant\": %s%s%s, \"reader\": \"%s\", \"granule\": \"%s\",\n",
		C->variant->name, C->variant->mutant ? "\"" : "",
		C->variant->mutant ? C->variant->mutant : "null", C->variant->mutant ? "\"" : "",
		C->reader_name ? C->reader_name : C->locked ? "locked" : "lockless", C->variant->granule->name);
	fprintf(f, " \"threads\": {\"readers\": %u, \"writers\": %u, \"hw\": %u}, \"seed\": %llu,\n",
		C->readers, C->writers, C->hw, (unsigned long long)C->seed);
	fprintf(f, " \"seconds\": %.2f, \"reads\": %llu, \"reads_per_sec\": %.0f, \"retries_per_read\": %.4f,\n",
		elapsed, (unsigned long long)reads, reads / elapsed,
		reads ? (double)atomic_load(&M.hdr->retries) / reads : 0.0);
	fprintf(f, " \"reads_by_reader\": {\"lockless\": %llu, \"locked\": %llu},\n",
		(unsigned long long)(reads > locked_reads ? reads - locked_reads : 0),
		(unsigned long long)locked_reads);
	fprintf(f, " \"writer_ops\": %llu, \"writer_ops_per_sec\": %.0f, \"hw_ops\": %llu, \"retires\": %llu, \"tlb_flushes\": %llu,\n",
		(unsigned long long)atomic_load(&M.hdr->writer_ops),
		atomic_load(&M.hdr->writer_ops) / elapsed,
		(unsigned long long)atomic_load(&M.hdr->hw_ops),
		(unsigned long long)atomic_load(&M.hdr->retires),
		(unsigned long long)atomic_load(&M.hdr->tlb_flushes));
	if (C->tlb) {
		struct tlb_stats t = { 0 };

		for (unsigned i = 0; i < C->hw; i++) {
			t.hits += W.tlbs[i].st.hits;
			t.misses += W.tlbs[i].st.misses;
			t.upgrades += W.tlbs[i].st.upgrades;
			t.fills += W.tlbs[i].st.fills;
			t.evictions += W.tlbs[i].st.evictions;
			t.invalidated += W.tlbs[i].st.invalidated;
			t.discarded += W.tlbs[i].st.discarded;
		}
		fprintf(f, " \"tlb\": {\"entries\": %u, \"evict\": \"%s\", \"hits\": %llu, \"misses\": %llu, "
			"\"upgrades\": %llu, \"fills\": %llu, \"evictions\": %llu, \"invalidated\": %llu, \"fills_discarded\": %llu, "
			"\"nosync_flushes\": %llu, \"nosync_completed\": %llu},\n",
			C->tlb, C->tlb_evict == TLB_EVICT_RANDOM ? "random" : "lru",
			(unsigned long long)t.hits, (unsigned long long)t.misses, (unsigned long long)t.upgrades,
			(unsigned long long)t.fills, (unsigned long long)t.evictions,
			(unsigned long long)t.invalidated, (unsigned long long)t.discarded,
			(unsigned long long)atomic_load(&M.tlb_nosync),
			(unsigned long long)atomic_load(&M.tlb_nosync_done));
	}
	char cpu[1024];

	cpu_json_format(cpu, sizeof(cpu));   /* the modelled CPU: BBML2, unmodelled probes */
	fprintf(f, " \"cpu\": {%s},\n", cpu);
	fprintf(f, " \"faulting_devices\": %u, \"fault_accesses\": %llu, \"fault_fixups\": %llu,\n",
		C->faulters, (unsigned long long)atomic_load(&W.fault_accesses),
		(unsigned long long)atomic_load(&W.fault_fixups));
	fprintf(f, " \"tables\": %u, \"blocks\": %u, \"pinned\": %s, \"writer_ops_per_writer\": [",
		C->tables, C->blocks, C->pin ? "true" : "false");
	for (unsigned i = 0; i < C->writers; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)atomic_load(&W.writers[i].ops));
	fprintf(f, "], \"hw_ops_per_agent\": [");
	for (unsigned i = 0; i < C->hw; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)atomic_load(&W.hws[i].ops));
	double wcpu = 0, hcpu = 0;

	for (unsigned i = 0; i < C->writers; i++)
		wcpu += W.writers[i].cpu_s;
	for (unsigned i = 0; i < C->hw; i++)
		hcpu += W.hws[i].cpu_s;
	fprintf(f, "], \"cpu_seconds\": {\"readers\": %.3f, \"writers\": %.3f, \"hw\": %.3f}",
		readers_cpu_s, wcpu, hcpu);
	fprintf(f, ",\n \"delays\": {\"on\": %s, \"share\": %.2f, \"max_us\": %.0f, \"kmax\": %u, \"waits\": \"%s\", ",
		C->delay.on ? "true" : "false", C->delay.share, C->delay.max_ns * 1e-3, W.delay.kmax,
		W.delay.sleep ? "sleep" : "spin");
	json_delays(f, "readers", &delays_sum[0], C->readers, elapsed, false);
	json_delays(f, "writers", &delays_sum[1], C->writers, elapsed, false);
	json_delays(f, "hw", &delays_sum[2], C->hw, elapsed, true);
	fprintf(f, "},\n");
	fprintf(f, " \"judged\": {\"bits_exact_hw_quiet\": %llu, \"bits_exact_sw_quiet\": %llu, \"content_only\": %llu, \"unjudged\": %llu},\n",
		(unsigned long long)judged.hw_quiet, (unsigned long long)judged.sw_quiet,
		(unsigned long long)judged.content_only, (unsigned long long)judged.unjudged);
	fprintf(f, " \"violations\": %llu, \"known_violations\": %llu, \"first_violation\": ",
		(unsigned long long)atomic_load(&n_violations), (unsigned long long)atomic_load(&n_known));
	if (atomic_load(&n_violations)) {
		finding_json_violation(f, &first_vio, NULL);
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\n ");
	finding_json(f);
	fprintf(f, ",\n \"kinds_seen\": \"");
	for (unsigned k = 0, n = 0; k < VK_COUNT; k++)
		if (kinds_seen & (1u << k))
			fprintf(f, "%s%s", n++ ? "|" : "", vkind_name(k));
	fprintf(f, "\",\n \"expect\": \"%s\", \"result\": \"%s\"}\n",
		C->expect ? C->expect_text : "clean", result);
}

/* ---- the watchdog ---------------------------------------------------------
 * A run ends at --seconds (or a signal, or its first violation); its
 * threads then get STRESS_GRACE_S to come back. One that does not is inside
 * a subject's function that never returns: reported as a hang, with what
 * each stuck thread was doing, and the process exits without waiting for
 * it. A last-resort timer thread ends the process if even that is stuck. */
#define STRESS_GRACE_S 5.0

static bool join_by(pthread_t th, double deadline)
{
	struct timespec ts;
	double d = deadline - now_s();

	clock_gettime(CLOCK_REALTIME, &ts);
	if (d < 0)
		d = 0;
	ts.tv_sec += (time_t)d;
	ts.tv_nsec += (long)((d - (double)(time_t)d) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(th, NULL, &ts) == 0;
}

/* What a stuck writer or faulting device was doing. */
static size_t describe_op(char *buf, size_t len, const char *who, unsigned i, const struct writer_ctx *c)
{
	int op = atomic_load(&c->cur_op);

	if (!op)
		return snprintf(buf, len, "  %s %u: not inside a writer op (%s)\n", who, i,
				!strcmp(who, "faulting device") ? "waiting for the table's PTL, or in its walk or lockless read"
								: "waiting for the table's PTL, or between ops");
	return snprintf(buf, len, "  %s %u: inside writer op %s on table %u block %u (the subject's code)\n",
			who, i, op_name((enum op)(op - 1)), atomic_load(&c->cur_lt), atomic_load(&c->cur_b));
}

static void *last_resort(void *arg)
{
	double until = *(double *)arg;

	while (now_s() < until)
		usleep(100000);
	fprintf(stderr, "\nhammer: watchdog: still running %.0f s after the run's end (a thread blocked "
		"in the harness itself); exiting\n", until - g_t_end);
	_exit(1);
	return NULL;
}

/* Under a real-time policy (chrt -f: no preemption) a worker that never
 * blocks, such as a livelocked reader, keeps its CPU from every other
 * thread of the same priority, the monitor included: then nobody ends the
 * run. The monitor (this thread, after the workers inherited the policy)
 * goes one priority above them. */
static void monitor_above_workers(void)
{
	struct sched_param sp;
	int policy;

	if (pthread_getschedparam(pthread_self(), &policy, &sp) ||
	    (policy != SCHED_FIFO && policy != SCHED_RR))
		return;
	if (sp.sched_priority >= sched_get_priority_max(policy)) {
		fprintf(stderr, "hammer: real-time priority %d is the highest: the monitor cannot go above "
			"the workers (a livelock may then run past --seconds)\n", sp.sched_priority);
		return;
	}
	sp.sched_priority++;
	if (pthread_setschedparam(pthread_self(), policy, &sp))
		fprintf(stderr, "hammer: cannot raise the monitor's real-time priority: %s\n", strerror(errno));
}

/* With no writer thread nothing would ever map a block: map every block
 * whole first (a whole aligned block is mapped CONT), through the writer
 * op and the history like any writer's (readers alone then measure
 * reading folded blocks; hardware alone, updating them). Blocks b % 4 =
 * 0..3: young, dirty and young, neither, young. */
static void populate(void)
{
	struct writer_ctx ctx = { .m = &M, .rng = C->seed };
	int touched;

	history_attach(&ctx);
	finding_begin(op_name(OP_MAP));
	for (unsigned lt = 0; lt < M.ntables; lt++) {
		pthread_mutex_lock(&M.ptl[lt].lock);
		for (unsigned b = 0; b < M.bpt; b++) {
			static const unsigned pattern[4] = { OPF_YOUNG, OPF_YOUNG | OPF_DIRTY, 0, OPF_YOUNG };
			struct op_args a = { .s = 0, .n = M.cont, .flags = OPF_NEW_FOLIO | pattern[b % 4] };

			op_run(&M, &ctx, W.plans, lt, b, OP_MAP, &a, &touched);
		}
		pthread_mutex_unlock(&M.ptl[lt].lock);
	}
	history_detach();
}

/* More worker threads than CPUs this process may run on. */
static bool oversubscribed(const struct stress_cfg *cfg)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	return cfg->readers + cfg->writers + cfg->hw > (unsigned)CPU_COUNT(&set);
}

/* --pin: one thread per CPU of the allowed set (sched_getaffinity), in
 * slot order (readers, writers, hardware), round robin if there are more
 * threads than CPUs. */
static int pin_cpus(struct stress_world *w)
{
	cpu_set_t set;
	static int cpus[CPU_SETSIZE];
	unsigned n = 0;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "hammer: --pin: sched_getaffinity: %s\n", strerror(errno));
		return -1;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	w->cpus = cpus;
	w->ncpus = n;
	return 0;
}

int stress_run(const struct stress_cfg *cfg)
{
	char err[256];
	struct reader *rd;
	struct agent *wr, *hw, *fa;
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, old;
	int progress = cfg->progress >= 0 ? cfg->progress : isatty(2);
	double t0, t_end, next_phase, next_line;
	struct snapshot last;
	const char *result;
	int rc;

	C = cfg;
	memset(&W, 0, sizeof(W));
	atomic_store(&g_quiesce_gen, 0);
	atomic_store(&n_violations, 0);
	atomic_store(&n_known, 0);
	kinds_seen = 0;
	memset(&judged, 0, sizeof(judged));
	memset(&delays_sum, 0, sizeof(delays_sum));
	readers_cpu_s = 0;
	locked_reads = 0;
	g_signal = 0;
	kc_bbml2 = cfg->bbml2;
	plain_access_set_reporter(report_plain_access);
	if (hmm_create(&M, cfg->variant, cfg->tables, cfg->blocks, err, sizeof(err))) {
		fprintf(stderr, "hammer: %s\n", err);
		return 2;
	}
	fprintf(stderr, "hammer: shared segment /proc/%d/fd/%d (%zu bytes; attach: bazel run //stress:segment_watch -- /proc/%d/fd/%d)\n",
		(int)getpid(), M.memfd, M.seg_size, (int)getpid(), M.memfd);
	W.plans = calloc((size_t)cfg->tables * cfg->blocks, sizeof(*W.plans));
	W.ops = cfg->ops;
	W.chaos = cfg->chaos;
	W.delay = cfg->delay;
	W.delay.sleep = oversubscribed(cfg);
	if (!W.delay.kmax)
		W.delay.kmax = delay_kmax_for(M.cont);
	W.nreaders = cfg->readers;
	W.report = report_finding;
	if (cfg->tlb) {
		/* one TLB per hardware agent, attached before any thread runs */
		W.tlbs = calloc(cfg->hw ? cfg->hw : 1, sizeof(*W.tlbs));
		for (unsigned i = 0; W.tlbs && i < cfg->hw; i++)
			tlb_attach(&M, &W.tlbs[i], cfg->tlb, cfg->tlb_evict, cfg->seed * 5000011 + i);
		M.tlb_on = 1;
	}
	if (cfg->pin && pin_cpus(&W)) {
		hmm_destroy(&M);
		return 2;
	}
	rd = aligned_alloc(64, ((cfg->readers ? cfg->readers : 1) * sizeof(*rd) + 63) / 64 * 64);
	if (rd)
		memset(rd, 0, (cfg->readers ? cfg->readers : 1) * sizeof(*rd));
	wr = agents_alloc(cfg->writers);
	hw = agents_alloc(cfg->hw);
	fa = agents_alloc(cfg->faulters);
	if (!W.plans || !rd || !wr || !hw || !fa || (cfg->tlb && !W.tlbs)) {
		fprintf(stderr, "hammer: out of memory\n");
		hmm_destroy(&M);
		return 2;
	}

	/* Workers never take the signals; the monitor does, and stops them. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rcu_register_thread();
	finding_reset();        /* the findings' clock starts with the threads */
	if (!cfg->writers)
		populate();
	/* writers and hardware first: readers aim at what they do */
	if (agents_start(&W, wr, cfg->writers, hw, cfg->hw, cfg->seed)) {
		fprintf(stderr, "hammer: cannot start the writer and hardware threads\n");
		exit(2);
	}
	if (agents_start_faulters(&W, fa, cfg->faulters, cfg->seed)) {
		fprintf(stderr, "hammer: cannot start the faulting devices\n");
		exit(2);
	}
	for (unsigned i = 0; i < cfg->readers; i++) {
		rd[i].rng = cfg->seed * 1000003 + i;
		rd[i].index = i;
		if (pthread_create(&rd[i].th, NULL, reader_main, &rd[i])) {
			fprintf(stderr, "hammer: cannot start reader thread %u\n", i);
			exit(2);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	monitor_above_workers();

	t0 = now_s();
	t_end = t0 + cfg->seconds;
	g_t_end = t_end;
	static double last_resort_at;
	pthread_t wd;
	last_resort_at = t_end + 2 * STRESS_GRACE_S + 20;
	if (!pthread_create(&wd, NULL, last_resort, &last_resort_at))
		pthread_detach(wd);
	next_phase = t0 + 0.05;
	next_line = t0 + 0.5;
	last = take();
	uint64_t phase_rng = cfg->seed ^ 0xa5a5;
	while (!atomic_load(&W.stop) && !g_signal && now_s() < t_end) {
		usleep(2000);
		if (now_s() >= next_phase && (cfg->writers || cfg->hw || cfg->faulters)) {
			quiesce(cfg->writers + cfg->hw + cfg->faulters, 5 + rng_below(&phase_rng, 10));
			next_phase = now_s() + 0.02 + rng_below(&phase_rng, 80) * 1e-3;
		}
		if (progress && now_s() >= next_line) {
			struct snapshot s = take();
			progress_line(&last, &s, s.t - t0);
			last = s;
			next_line = s.t + 0.5;
		}
	}
	atomic_store(&W.stop, 1);
	/* every thread back within the grace period, or the run hangs */
	double deadline = now_s() + STRESS_GRACE_S;
	char stuck[4096];
	size_t soff = 0;
	const struct acc_subject *stuck_subj = NULL;   /* the first stuck thread's */
	for (unsigned i = 0; i < cfg->readers; i++)
		if (!join_by(rd[i].th, deadline) && soff < sizeof(stuck) - 200) {
			unsigned at = atomic_load(&rd[i].reading);

			if (!stuck_subj)
				stuck_subj = rd[i].subj;
			soff += at ? snprintf(stuck + soff, sizeof(stuck) - soff,
					      "  reader %u: inside %s on table %u block %u (the subject's reader)\n", i,
					      atomic_load(&rd[i].reading_locked) ? "ptep_get" : "ptep_get_lockless", (at - 1) / M.bpt, (at - 1) % M.bpt)
				   : snprintf(stuck + soff, sizeof(stuck) - soff, "  reader %u: outside a read\n", i);
		}
	for (unsigned i = 0; i < cfg->writers; i++)
		if (!join_by(wr[i].th, deadline) && soff < sizeof(stuck) - 200) {
			stuck_subj = stuck_subj ? stuck_subj : wr[i].subj;
			soff += describe_op(stuck + soff, sizeof(stuck) - soff, "writer", i, &wr[i].ctx);
		}
	for (unsigned i = 0; i < cfg->hw; i++)
		if (!join_by(hw[i].th, deadline) && soff < sizeof(stuck) - 200) {
			stuck_subj = stuck_subj ? stuck_subj : hw[i].subj;
			soff += snprintf(stuck + soff, sizeof(stuck) - soff,
					 "  hardware agent %u: in its access (a compare-and-swap against an entry that never settles)\n", i);
		}
	for (unsigned i = 0; i < cfg->faulters; i++)
		if (!join_by(fa[i].th, deadline) && soff < sizeof(stuck) - 200) {
			stuck_subj = stuck_subj ? stuck_subj : fa[i].subj;
			soff += describe_op(stuck + soff, sizeof(stuck) - soff, "faulting device", i, &fa[i].ctx);
		}
	bool hung = soff > 0;
	if (hung) {
		struct violation vio = { .kind = VK_HANG };

		snprintf(vio.summary, sizeof(vio.summary),
			 "hang: threads still running %.0f s after the run ended (the subject's function never returned)",
			 STRESS_GRACE_S);
		snprintf(vio.detail, sizeof(vio.detail),
			 "  the likely cause: a loop in the subject that never ends (a compare-and-swap retried\n"
			 "  for ever, a wrong loop bound) or a spin with no load the harness can interrupt.\n"
			 "  Still running:\n%s", stuck);
		/* what the first stuck thread was running (read without a lock:
		 * it is stuck), where it last made an access */
		if (stuck_subj)
			finding_set(&vio, stuck_subj->op, stuck_subj->fn, stuck_subj->pc);
		report(&vio);
		fprintf(stderr, "\nhammer: watchdog: threads did not return within %.0f s of the run's end\n",
			STRESS_GRACE_S);
	}
	for (unsigned i = 0; i < cfg->writers; i++)
		delay_add(&delays_sum[1], &wr[i].delay);
	for (unsigned i = 0; i < cfg->hw; i++)
		delay_add(&delays_sum[2], &hw[i].delay);
	/* Final writer-vs-hardware check with everything stopped. */
	finding_begin("end");
	if (!hung && !ends_run(kinds_seen))     /* no violation ended the run */
		for (unsigned lt = 0; lt < M.ntables; lt++)
			agents_check_owed(&W, lt, -1);
	double elapsed = now_s() - t0;
	if (progress) {
		struct snapshot s = take();
		progress_line(&(struct snapshot){ t0, 0, 0, 0, 0 }, &s, elapsed);
		fputc('\n', stderr);
	}

	if (atomic_load(&n_violations)) {
		fprintf(stderr, "\nVIOLATION (%llu found) in variant %s%s%s, granule %s, %s reader:\n",
			(unsigned long long)atomic_load(&n_violations), cfg->variant->name,
			cfg->variant->mutant ? " (planted: " : "",
			cfg->variant->mutant ? cfg->variant->what : "",
			cfg->variant->granule->name, cfg->reader_name);
		finding_print_one(stderr, "", shown_vio());
		fprintf(stderr, "%s\n%s\n", shown_vio()->summary, shown_vio()->detail);
		if (shown_vio() == &expected_vio && !(cfg->expect & (1u << first_vio.kind)))
			fprintf(stderr, "(the first violation was of another kind: %s)\n", first_vio.summary);
		write_repro();
	}
	if (finding_count() > 1 || atomic_load(&n_known)) {
		fprintf(stderr, "hammer: findings by signature (docs/contract.md, \"Which bug\"):\n");
		finding_print(stderr, "  ");
	}
	if (g_signal)
		fprintf(stderr, "hammer: stopped by signal %d\n", (int)g_signal);

	if (cfg->expect) {
		bool hit = kinds_seen & cfg->expect;
		result = hit ? "expected_violation_found" : "expected_violation_missing";
		rc = hit ? 0 : 1;
		if (!hit)
			fprintf(stderr, "hammer: expected a %s violation within %.1fs; %s\n",
				cfg->expect_text, cfg->seconds,
				atomic_load(&n_violations) ? "found only other kinds (above)" : "none found");
	} else {
		result = atomic_load(&n_violations) ? "violation" : "clean";
		rc = atomic_load(&n_violations) ? 1 : 0;
	}
	if (cfg->readers) {
		uint64_t reads = atomic_load(&M.hdr->reads);

		fprintf(stderr, "hammer: reads: %llu through ptep_get_lockless, "
			"%llu through ptep_get (the locked gather, under the PTL)\n",
			(unsigned long long)(reads > locked_reads ? reads - locked_reads : 0),
			(unsigned long long)locked_reads);
	}
	FILE *jf = stdout;
	if (cfg->json_path && !(jf = fopen(cfg->json_path, "w"))) {
		fprintf(stderr, "hammer: cannot write %s: %s\n", cfg->json_path, strerror(errno));
		jf = stdout;
	}
	summary(jf, elapsed, result);
	if (jf != stdout)
		fclose(jf);
	if (hung) {
		/* the stuck threads use the segment: leave without tearing down */
		fflush(stdout);
		fflush(stderr);
		_exit(rc);
	}
	rcu_unregister_thread();
	hmm_destroy(&M);
	free(W.plans);
	free(rd);
	free(wr);
	free(hw);
	free(fa);
	return rc;
}
