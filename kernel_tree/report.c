/*
 * kernel_tree/report.c - the kernel-tree build's side of the run: call
 * counts of the file's functions, the flush log, the BBML2 questions and
 * the capability probes the harness does not model, and
 * the report a reviewer reads (which of the file's functions ran, which
 * entry points the project filled in, what the file flushed).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/variant.h"
#include "kernel_tree/report.h"

static const struct {
	const char *name, *serves, *how;
} fns[KT_FN_COUNT] = {
#define KT_FN(name, serves, how) { #name, #serves, how },
#include "kernel_tree/functions.def"
#undef KT_FN
};

const char *const kt_fn_names[KT_FN_COUNT] = {
#define KT_FN(name, serves, how) #name,
#include "kernel_tree/functions.def"
#undef KT_FN
};

/* ---- call counts: per thread, added up when a thread exits ------------- */
_Thread_local struct kt_tls kt_tls;
static _Atomic uint64_t calls_total[KT_FN_COUNT];
static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

static void tls_flush(void *p)
{
	struct kt_tls *t = p;

	for (int i = 0; i < KT_FN_COUNT; i++) {
		atomic_fetch_add_explicit(&calls_total[i], t->calls[i], memory_order_relaxed);
		t->calls[i] = 0;
	}
}

static void tls_key_create(void) { pthread_key_create(&tls_key, tls_flush); }

void kt_tls_register(void)
{
	pthread_once(&tls_once, tls_key_create);
	kt_tls.registered = true;
	pthread_setspecific(tls_key, &kt_tls);
}

/* ---- the function a finding names (core/finding.h, report.h) ---------- */
void kt_enter_file(enum kt_fn fn, bool frame)
{
	struct acc_subject *s = &acc_self.subj;

	if (__builtin_expect(!kt_tls.registered, 0))
		kt_tls_register();
	kt_tls.calls[fn]++;
	if ((frame && s->depth++ == 0) || !s->fn_file) {
		s->fn = kt_fn_names[fn];
		s->fn_file = 1;
	}
}

void kt_enter_header(const char *name)
{
	struct acc_subject *s = &acc_self.subj;

	if (s->depth++ == 0) {
		s->fn = name;
		s->fn_file = 0;
	}
}

void kt_leave(void)
{
	acc_self.subj.depth--;
}

/* ---- flushes ---------------------------------------------------------- */
static const char *const flush_names[KT_FLUSH_COUNT] = {
	"__flush_tlb_range", "__flush_tlb_range_nosync", "flush_tlb_range",
	"flush_tlb_page", "__flush_tlb_page_nosync", "flush_tlb_mm", "local_flush_tlb_contpte",
	"flush_tlb_page_nosync", "__flush_tlb_page", "local_flush_tlb_contpte_range",
};
#define FLUSH_LOG_MAX 256
struct flush_rec {
	enum kt_flush_fn fn;
	const char *caller;
	int first_is_vma;
	unsigned long start, end, stride;
	long a5, a6;
};
static _Atomic uint64_t flush_count[KT_FLUSH_COUNT];
static _Atomic uint64_t flush_seq;
static struct flush_rec flush_log[FLUSH_LOG_MAX];
static unsigned flush_log_len = 8;          /* KT_FLUSH_LOG=N changes it */
static unsigned page_shift = 12;            /* the run's granule, for page counts */
static _Atomic uint64_t bbml2_noabort_asked, bbml2_asked;
static _Atomic uint64_t cap_asked[KT_CAPS_MAX];
static const char *_Atomic cap_name[KT_CAPS_MAX];
/* distinct callers per flush function, with counts */
#define MAX_CALLERS 16
static pthread_mutex_t caller_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	enum kt_flush_fn fn;
	const char *caller;
	uint64_t n;
} callers[MAX_CALLERS];
static unsigned n_callers;

void kt_flush(enum kt_flush_fn fn, const char *caller, struct mm_struct *mm, int first_is_vma,
	      unsigned long start, unsigned long end, unsigned long stride, long a5, long a6)
{
	uint64_t seq = atomic_fetch_add_explicit(&flush_seq, 1, memory_order_relaxed);
	unsigned i;

	atomic_fetch_add_explicit(&flush_count[fn], 1, memory_order_relaxed);
	if (seq < flush_log_len)
		flush_log[seq] = (struct flush_rec){ fn, caller, first_is_vma, start, end, stride, a5, a6 };
	pthread_mutex_lock(&caller_lock);
	for (i = 0; i < n_callers && !(callers[i].fn == fn && !strcmp(callers[i].caller, caller)); i++)
		;
	if (i == n_callers && n_callers < MAX_CALLERS) {
		callers[i].fn = fn;
		callers[i].caller = caller;
		n_callers++;
	}
	if (i < n_callers)
		callers[i].n++;
	pthread_mutex_unlock(&caller_lock);
	/* each with the scope it has on hardware: TLBF_NOBROADCAST or a local
	 * helper reaches this CPU's TLB only */
	if (fn == KT_FLUSH_LOCAL_CONTPTE || fn == KT_FLUSH_LOCAL_CONTPTE_RANGE ||
	    (a6 >= 0 && (a6 & KT_TLBF_MARK) && (a6 & 0x4)))
		kc_tlb_flush_local(mm, start, end);
	else if (fn == KT_FLUSH_RANGE_NOSYNC || fn == KT_FLUSH_PAGE_NOSYNC ||
		 fn == KT_FLUSH_PAGE_NOSYNC_VMA || (a6 >= 0 && (a6 & KT_TLBF_MARK) && (a6 & 0x2)))
		kc_tlb_flush_nosync(mm, start, end);   /* completed by the thread's next dsb() */
	else
		kc_tlb_flush(mm, start, end);
}

bool kt_bbml2_noabort(void)
{
	atomic_fetch_add_explicit(&bbml2_noabort_asked, 1, memory_order_relaxed);
	return kc_bbml2 == CPU_BBML2_NOABORT;
}

bool kt_bbml2(void)
{
	atomic_fetch_add_explicit(&bbml2_asked, 1, memory_order_relaxed);
	return kc_bbml2 != CPU_BBML2_NONE;
}

bool kt_cap_ask(unsigned i, const char *name)
{
	if (i < KT_CAPS_MAX) {
		atomic_store_explicit(&cap_name[i], name, memory_order_relaxed);
		atomic_fetch_add_explicit(&cap_asked[i], 1, memory_order_relaxed);
	}
	return cpu_cap_value(name);
}

/* The last two arguments of a six-argument flush, in the meaning they had. */
static void describe_a5_a6(char *buf, size_t len, long a5, long a6)
{
	static const char *const flag_names[] = { "TLBF_NOWALKCACHE", "TLBF_NOSYNC",
						  "TLBF_NOBROADCAST", "TLBF_NONOTIFY" };

	if (a5 < 0 && a6 < 0) {
		buf[0] = 0;
	} else if (a6 & KT_TLBF_MARK) {
		/* a5 < 0: the flags are the only extra argument (__flush_tlb_page) */
		size_t off = a5 < 0 ? (size_t)snprintf(buf, len, ", flags=")
				    : (size_t)snprintf(buf, len, ", tlb_level=%ld, flags=", a5);
		long bits = a6 & ~KT_TLBF_MARK;

		if (!bits)
			snprintf(buf + off, len - off, "TLBF_NONE");
		for (unsigned b = 0; b < 4 && off < len; b++)
			if (bits & (1L << b))
				off += snprintf(buf + off, len - off, "%s%s",
						(bits & ((1L << b) - 1)) ? "|" : "", flag_names[b]);
	} else if ((a5 == 0 || a5 == 1) && a6 >= 0 && a6 <= 3) {
		snprintf(buf, len, ", last_level=%s, tlb_level=%ld", a5 ? "true" : "false", a6);
	} else {
		snprintf(buf, len, ", %ld, %ld", a5, a6);
	}
}

/* ---- the report ------------------------------------------------------- */
/* A caller's name as the tree spells it (its functions are renamed
 * kt_file_*, its header's kt_hdr_*). */
static const char *as_in_file(const char *fn)
{
	if (!strncmp(fn, "kt_file_", 8))
		return fn + 8;
	return strncmp(fn, "kt_hdr_", 7) ? fn : fn + 7;
}

static const char *source_name(void)
{
	const char *s = getenv("KERNEL_TREE_SOURCE");

	return s && *s ? s : kt_tree_info.source;
}

/* Is name one of the space-separated words of list? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
			return true;
	return false;
}

/* Which of the file's functions serves entry point i (a current name), or -1. */
static int served_by(int i)
{
	if (in_list(kt_tree_info.defined, fns[i].name))
		return i;
	for (int k = 0; k < KT_FN_COUNT; k++)
		if (k != i && !strcmp(fns[k].serves, fns[i].name) &&
		    in_list(kt_tree_info.defined, fns[k].name))
			return k;
	return -1;
}

/* Does row k serve an asm/pgtable.h wrapper (functions.def: a function only
 * an older header called), not an entry point of the file? */
static bool serves_wrapper(int k)
{
	for (int i = 0; i < KT_FN_COUNT; i++)
		if (!strcmp(fns[i].name, fns[i].serves) && !strcmp(fns[i].name, fns[k].serves))
			return false;
	return true;
}

/* How the file's function of such a row is reached: NULL when the file
 * does not define it, or the tree's header has the wrapper and the
 * wrapper does not call it; else "header" (the header's taken code calls
 * it) or "adapter" (kernel_tree/glue.h's wrapper, for a header without
 * one). */
static const char *wrapper_route(int k)
{
	if (!serves_wrapper(k) || !in_list(kt_tree_info.defined, fns[k].name))
		return NULL;
	if (kt_tree_info.header_calls && in_list(kt_tree_info.header_calls, fns[k].name))
		return "header";
	return kt_tree_info.header_taken && in_list(kt_tree_info.header_taken, fns[k].serves) ? NULL : "adapter";
}

/* Is name one of the file's functions that serve an entry point, or that a
 * wrapper calls? */
static bool driven(const char *name)
{
	for (int i = 0; i < KT_FN_COUNT; i++) {
		int k = served_by(i);

		if (!strcmp(fns[i].name, fns[i].serves) && k >= 0 && !strcmp(fns[k].name, name))
			return true;
		if (wrapper_route(i) && !strcmp(fns[i].name, name))
			return true;
	}
	return false;
}

static bool listed(const char *const *names, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static uint64_t calls_of(int k)
{
	return atomic_load_explicit(&calls_total[k], memory_order_relaxed) + kt_tls.calls[k];
}

static void report_end(void)
{
	char extra[160];
	uint64_t total = 0;
	unsigned logged;

	fprintf(stderr, "kernel-tree: calls into the file's functions:\n");
	for (int i = 0; i < KT_FN_COUNT; i++) {
		int k;

		if (strcmp(fns[i].name, fns[i].serves) || (k = served_by(i)) < 0)
			continue;
		fprintf(stderr, "  %-36s %12llu%s\n", fns[k].name, (unsigned long long)calls_of(k),
			calls_of(k) ? "" : "   (never called in this run)");
	}
	for (int k = 0; k < KT_FN_COUNT; k++)
		if (wrapper_route(k))
			fprintf(stderr, "  %-36s %12llu%s\n", fns[k].name, (unsigned long long)calls_of(k),
				calls_of(k) ? "" : "   (never called in this run)");
	for (int f = 0; f < KT_FLUSH_COUNT; f++)
		total += atomic_load(&flush_count[f]);
	fprintf(stderr, "kernel-tree: flushes the file asked for: %llu", (unsigned long long)total);
	for (int f = 0; f < KT_FLUSH_COUNT; f++)
		if (atomic_load(&flush_count[f]))
			fprintf(stderr, "; %s %llu", flush_names[f],
				(unsigned long long)atomic_load(&flush_count[f]));
	fprintf(stderr, "\n");
	pthread_mutex_lock(&caller_lock);
	for (unsigned i = 0; i < n_callers; i++)
		fprintf(stderr, "  from %-32s %-26s %12llu\n", as_in_file(callers[i].caller),
			flush_names[callers[i].fn], (unsigned long long)callers[i].n);
	pthread_mutex_unlock(&caller_lock);
	logged = total < flush_log_len ? (unsigned)total : flush_log_len;
	if (logged)
		fprintf(stderr, "kernel-tree: the first %u flush calls:\n", logged);
	for (unsigned i = 0; i < logged; i++) {
		const struct flush_rec *r = &flush_log[i];

		describe_a5_a6(extra, sizeof(extra), r->a5, r->a6);
		if (r->fn == KT_FLUSH_MM)
			fprintf(stderr, "  %s: %s(mm)\n", as_in_file(r->caller), flush_names[r->fn]);
		else if (r->stride)
			fprintf(stderr, "  %s: %s(%s, 0x%lx, 0x%lx [%lu pages], stride=%lu%s)\n",
				as_in_file(r->caller), flush_names[r->fn], r->first_is_vma ? "vma" : "mm", r->start,
				r->end, (r->end - r->start) >> page_shift, r->stride, extra);
		else    /* no stride argument (single-page flushes, five-argument range flushes) */
			fprintf(stderr, "  %s: %s(%s, 0x%lx, 0x%lx [%lu pages]%s)\n",
				as_in_file(r->caller), flush_names[r->fn], r->first_is_vma ? "vma" : "mm", r->start,
				r->end, (r->end - r->start) >> page_shift, extra);
	}
	fprintf(stderr, "kernel-tree: system_supports_bbml2_noabort() asked %llu times, system_supports_bbml2() "
		"%llu times (--bbml2=%s)\n", (unsigned long long)atomic_load(&bbml2_noabort_asked),
		(unsigned long long)atomic_load(&bbml2_asked), cpu_bbml2_names[kc_bbml2]);
	for (unsigned i = 0; i < KT_CAPS_MAX; i++) {
		const char *name = atomic_load_explicit(&cap_name[i], memory_order_relaxed);

		if (name)
			fprintf(stderr, "kernel-tree: %s asked %llu times (--cap=%s=%d)\n", name,
				(unsigned long long)atomic_load(&cap_asked[i]), name, cpu_cap_value(name));
	}
}

/* The entry points asm/pgtable.h holds (core/kernel/entry_points.def's
 * first part): the tree's when its header defines them, else the project's. */
static const char *const header_entries[] = {
	"ptep_get", "ptep_get_lockless", "set_ptes", "get_and_clear_full_ptes",
	"ptep_test_and_clear_young", "clear_flush_young_ptes", "wrprotect_ptes",
	"clear_young_dirty_ptes", "ptep_set_access_flags", "contpte_try_fold",
	"contpte_try_unfold", "__ptep_get_and_clear", "__ptep_test_and_clear_young",
	"__ptep_set_wrprotect", "__ptep_set_access_flags", "__set_ptes",
	"__clear_young_dirty_ptes", "ptep_get_and_clear", "ptep_get_and_clear_full",
	"clear_full_ptes", "test_and_clear_young_ptes", "ptep_clear_flush_young",
	"ptep_set_wrprotect", "pte_batch_hint",
};

static const char *header_name(void)
{
	const char *s = getenv("KERNEL_TREE_HEADER");

	return s && *s ? s : kt_tree_info.header;
}

/* The file's functions the header's taken code calls that functions.def
 * does not know: they run, but their calls are not counted and a finding
 * in one is named by the header's function that called it. */
static void report_header_calls_unknown(void)
{
	const char *p = kt_tree_info.header_calls ? kt_tree_info.header_calls : "";
	bool any = false;

	for (p += strspn(p, " "); *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");
		bool known = false;

		for (int i = 0; i < KT_FN_COUNT; i++)
			known |= strlen(fns[i].name) == n && !strncmp(fns[i].name, p, n);
		if (!known)
			fprintf(stderr, "%s %.*s", any ? "" : "kernel-tree: the header calls the file's", (int)n, p), any = true;
		p += n;
	}
	if (any)
		fprintf(stderr, ", unknown to kernel_tree/functions.def: run, not counted (a finding in one "
			"is named by the header's function that called it)\n");
}

static void report_header(const struct variant *v)
{
	const char *taken = kt_tree_info.header_taken ? kt_tree_info.header_taken : "";
	unsigned n_tree = 0, n_project = 0, n_other = 0;

	if (!kt_tree_info.header || !*kt_tree_info.header) {
		fprintf(stderr, "kernel-tree: the tree has no arch/arm64/include/asm/pgtable.h: its wrappers and "
			"per-entry primitives are the project's (core/kernel/pgtable.c)\n");
		return;
	}
	fprintf(stderr, "kernel-tree: %s: the wrappers and primitives\n", header_name());
	fprintf(stderr, "  from the tree:  ");
	for (unsigned i = 0; i < sizeof(header_entries) / sizeof(*header_entries); i++)
		if (listed(v->provided, v->n_provided, header_entries[i]))
			fprintf(stderr, " %s", header_entries[i]), n_tree++;
	fprintf(stderr, "%s\n  from the project:", n_tree ? "" : " none");
	for (unsigned i = 0; i < sizeof(header_entries) / sizeof(*header_entries); i++)
		if (!listed(v->provided, v->n_provided, header_entries[i]))
			fprintf(stderr, " %s", header_entries[i]), n_project++;
	fprintf(stderr, "%s\n", n_project ? "" : " none");
	if (kt_tree_info.header_adapted && *kt_tree_info.header_adapted)
		fprintf(stderr, "  adapted:          %s\n", kt_tree_info.header_adapted);
	for (const char *p = taken; *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");

		p += n;
		n_other++;
	}
	fprintf(stderr, "kernel-tree: %u functions taken from the header in all, helpers such as "
		"pte_mkold included (kernel_tree/extract_header.py)\n", n_other);
	report_header_calls_unknown();
}

/* A path as the user named it: the tree's file, without a note such as
 * " with PATCH applied" that the name may carry. */
static void print_user_path(const char *name)
{
	const char *with = strstr(name, " with ");

	fprintf(stderr, "%.*s", (int)(with ? (size_t)(with - name) : strlen(name)), name);
}

/* What the compiler only warned about (the kernel's build warns too, it
 * does not stop): each line, with the build's copies named as the tree's
 * files. */
static void report_warnings(void)
{
	const char *w = kt_tree_info.warnings, *src = kt_tree_info.source, *hdr = kt_tree_info.header;
	size_t ls = strlen(src), lh = hdr ? strlen(hdr) : 0;
	unsigned n = 0;

	if (!w || !*w)
		return;
	for (const char *p = w; *p; p++)
		n += *p == '\n';
	fprintf(stderr, "kernel-tree: the compiler warned %u time%s (the kernel's build warns too; not an error):\n",
		n, n == 1 ? "" : "s");
	for (const char *p = w; *p;) {
		size_t len = strcspn(p, "\n");

		fprintf(stderr, "  ");
		for (size_t i = 0; i < len;) {
			if (ls && i + ls <= len && !strncmp(p + i, src, ls)) {
				print_user_path(source_name());
				i += ls;
			} else if (lh && i + lh <= len && !strncmp(p + i, hdr, lh)) {
				print_user_path(header_name());
				i += lh;
			} else {
				fputc(p[i++], stderr);
			}
		}
		fputc('\n', stderr);
		p += len + (p[len] == '\n');
	}
}

/* ---- not driven ----------------------------------------------------------
 * What of the tree's two files will not run, one line per file and
 * reason (kernel_tree/not_driven.def says the format tools read). */
static const struct {
	const char *name, *why;
} not_driven[] = {
#define KT_NOT_DRIVEN(name, why) { #name, why },
#include "kernel_tree/not_driven.def"
#undef KT_NOT_DRIVEN
};

#define ND_GROUPS 16
static struct nd_group {
	const char *file, *why;
	char names[1024];
} nd[ND_GROUPS];
static unsigned n_nd;

static void nd_add(const char *file, const char *why, const char *name)
{
	unsigned i;

	for (unsigned k = 0; k < sizeof(not_driven) / sizeof(*not_driven); k++)
		if (!strcmp(not_driven[k].name, name))
			why = not_driven[k].why;
	for (i = 0; i < n_nd && !(nd[i].file == file && !strcmp(nd[i].why, why)); i++)
		;
	if (i == ND_GROUPS)
		i = ND_GROUPS - 1;      /* (more reasons than a tree has: the last line takes them) */
	else if (i == n_nd)
		nd[n_nd++] = (struct nd_group){ .file = file, .why = why };
	snprintf(nd[i].names + strlen(nd[i].names), sizeof(nd[i].names) - strlen(nd[i].names), "%s%s",
		 nd[i].names[0] ? " " : "", name);
}

/* Each space-separated word of list, to nd_add. */
static void nd_add_list(const char *file, const char *why, const char *list)
{
	for (const char *p = list ? list : ""; *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");
		char name[128];

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		nd_add(file, why, name);
		p += n;
	}
}

static void report_not_driven(void)
{
	static const char file_c[] = "arch/arm64/mm/contpte.c", file_h[] = "arch/arm64/include/asm/pgtable.h";

	for (const char *p = kt_tree_info.defined; *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");
		char name[128];
		bool known = false, wrapper = false;

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		p += n;
		if (driven(name))
			continue;
		for (int i = 0; i < KT_FN_COUNT; i++)
			if (!strcmp(fns[i].name, name))
				known = true, wrapper = serves_wrapper(i);
		if (!known && kt_tree_info.header_calls && in_list(kt_tree_info.header_calls, name))
			continue;       /* it runs: report_header names it */
		nd_add(file_c, wrapper ? "the tree's header has its own version of the wrapper that called it, which does not call it"
			       : known ? "an older name beside the current one, which the harness calls instead"
				     : "unknown to the harness (kernel_tree/functions.def has no entry for it)", name);
	}
	nd_add_list(file_h, "nothing the harness drives reaches it: not built", kt_tree_info.header_untaken);
	nd_add_list(file_h, "the project keeps its own whatever the header says (the entry's address encoding, "
		    "debug checks, lazy MMU batching: kernel_tree/extract_header.py)", kt_tree_info.header_owned);
	for (unsigned i = 0; i < n_nd; i++)
		fprintf(stderr, "kernel-tree: not driven: %s: %s -- %s\n", nd[i].file, nd[i].names, nd[i].why);
}

int kt_report_describe(const struct variant *v)
{
	const char *env = getenv("KT_FLUSH_LOG");
	unsigned found = 0, adapted = 0, filled = 0;

	if (env && *env) {
		long n = strtol(env, NULL, 10);

		flush_log_len = n < 0 ? 0 : n > FLUSH_LOG_MAX ? FLUSH_LOG_MAX : (unsigned)n;
	}
	page_shift = v->granule->page_shift;
	fprintf(stderr, "kernel-tree: %s, granule %s\n", source_name(), v->granule->name);
	/* The link decided (core/variant_export.h): an entry point in
	 * v->provided is defined outside the project, i.e. by the glue for one
	 * of the file's functions; the probe says which one. */
	fprintf(stderr, "kernel-tree: the file's functions that run in place of core/kernel/contpte.c:\n");
	for (int i = 0; i < KT_FN_COUNT; i++) {
		int k = served_by(i);

		if (strcmp(fns[i].name, fns[i].serves))
			continue;
		if (!listed(v->provided, v->n_provided, fns[i].name)) {
			filled++;
			continue;
		}
		found++;
		if (k == i) {
			fprintf(stderr, "  %s\n", fns[i].name);
		} else if (k >= 0) {
			fprintf(stderr, "  %s, as %s (adapter: %s)\n", fns[k].name, fns[i].name, fns[k].how);
			adapted++;
		} else {
			fprintf(stderr, "  %s (defined outside the project, not by a function the probe found)\n",
				fns[i].name);
		}
	}
	for (int k = 0; k < KT_FN_COUNT; k++) {
		const char *route = wrapper_route(k);

		if (!route)
			continue;
		found++;
		if (!strcmp(route, "header")) {
			fprintf(stderr, "  %s, through the header's %s\n", fns[k].name, fns[k].serves);
		} else {
			fprintf(stderr, "  %s, as %s (adapter: %s)\n", fns[k].name, fns[k].serves, fns[k].how);
			adapted++;
		}
	}
	fprintf(stderr, "kernel-tree: filled in by the project (the file has no such function):");
	for (int i = 0; i < KT_FN_COUNT; i++)
		if (!strcmp(fns[i].name, fns[i].serves) && !listed(v->provided, v->n_provided, fns[i].name))
			fprintf(stderr, " %s", fns[i].name);
	fprintf(stderr, "%s\n", filled ? "" : " none");
	fprintf(stderr, "kernel-tree: %u of the file's functions run (%u through adapters), %u filled in by the project\n",
		found, adapted, filled);
	if (*kt_tree_info.shim_provided)
		fprintf(stderr, "kernel-tree: the file expects from a header (the shim provides): %s\n",
			kt_tree_info.shim_provided);
	if (*kt_mapped_headers)
		fprintf(stderr, "kernel-tree: kernel headers included under another prefix, read as the shim's "
			"<linux/...> and <asm/...>: %s\n", kt_mapped_headers);
	cpu_caps_report("kernel-tree");
	report_header(v);
	report_not_driven();
	report_warnings();
	atexit(report_end);
	return 0;
}
