/*
 * kernel_tree/report.h - what a kernel tree's contpte.c, built on the shim
 * (kernel_tree/shim/), reports to the harness: calls into each of its
 * functions (counted per thread, summed at exit), the TLB flushes it asked
 * for with their arguments, and how often it asked about BBML2 and the
 * capability probes the harness does not model.
 * kernel_tree/report.c keeps the records and prints them.
 *
 * The harness side: no kernel types here (the shim's kernel_tree/shim/
 * hooks.h calls these from the kernel file's translation unit, so nothing
 * here pulls in libc headers beyond what core/kcompat.h already has).
 */
#ifndef KERNEL_TREE_REPORT_H
#define KERNEL_TREE_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/access.h"
#include "core/mm_types.h"

enum kt_fn {
#define KT_FN(name, serves, how) KT_FN_##name,
#include "kernel_tree/functions.def"
#undef KT_FN
	KT_FN_COUNT
};

struct kt_tls {
	uint64_t calls[KT_FN_COUNT];
	bool registered;
};
extern _Thread_local struct kt_tls kt_tls;
/* First call on a thread: arrange for its counts to be added up when it exits. */
void kt_tls_register(void);

/* The file's functions by name, as functions.def spells them. */
extern const char *const kt_fn_names[KT_FN_COUNT];

/* A call enters the file's function fn: counted, and recorded for a
 * finding's function (core/finding.h): the first function of the file a
 * call into the tree enters is the one a finding names. frame: the call
 * comes from outside the tree (kernel_tree/glue.h's trampolines), and
 * kt_leave ends it; the first such call of an op or read records its own
 * function. kt_enter_header: the same for the header's entry points (a
 * function of the file entered inside replaces it). Out of line, in
 * report.c: the subject's unit has its loads and stores traced
 * (core/plain_access.h), and the harness's bookkeeping is not the
 * subject's. */
void kt_enter_file(enum kt_fn fn, bool frame);
void kt_enter_header(const char *name);
void kt_leave(void);

#ifdef ACCESS_BARE
/* The bench's builds count nothing: the glue's trampolines are plain calls. */
static inline void kt_count(enum kt_fn fn) { (void)fn; }
#else
static inline void kt_count(enum kt_fn fn) { kt_enter_file(fn, false); }
#endif

/* The flush functions of asm/tlbflush.h the shim routes here. */
enum kt_flush_fn {
	KT_FLUSH_RANGE,         /* __flush_tlb_range */
	KT_FLUSH_RANGE_NOSYNC,  /* __flush_tlb_range_nosync */
	KT_FLUSH_TLB_RANGE,     /* flush_tlb_range */
	KT_FLUSH_PAGE,          /* flush_tlb_page */
	KT_FLUSH_PAGE_NOSYNC,   /* __flush_tlb_page_nosync */
	KT_FLUSH_MM,            /* flush_tlb_mm */
	KT_FLUSH_LOCAL_CONTPTE, /* local_flush_tlb_contpte: this CPU only */
	KT_FLUSH_PAGE_NOSYNC_VMA,     /* flush_tlb_page_nosync(vma, addr) */
	KT_FLUSH_PAGE_FLAGS,          /* __flush_tlb_page(vma, addr, TLBF_*) */
	KT_FLUSH_LOCAL_CONTPTE_RANGE, /* local_flush_tlb_contpte_range: this CPU only */
	KT_FLUSH_COUNT
};
/* Set in every TLBF_* constant of the shim: a sixth argument carrying it
 * is a flags word (newer trees), otherwise a TLB level (older trees). */
#define KT_TLBF_MARK (1L << 30)

/* Count and log one flush the file asked for, then flush as the harness
 * does (kc_tlb_flush; the _nosync ones kc_tlb_flush_nosync, which the
 * thread's next dsb() completes). caller is the kernel function that called it; a5/a6
 * are the last two arguments of the six-argument forms (-1 otherwise). */
void kt_flush(enum kt_flush_fn fn, const char *caller, struct mm_struct *mm, int first_is_vma,
	      unsigned long start, unsigned long end, unsigned long stride, long a5, long a6);

/* system_supports_bbml2_noabort() and system_supports_bbml2() for the
 * file: --bbml2=noabort|abort (core/cpu.h), and counted. */
bool kt_bbml2_noabort(void);
bool kt_bbml2(void);

/* A capability probe the harness does not model, the unit's i-th
 * (kernel_tree/probe.sh defines each as a call of this): its --cap answer,
 * false by default, and counted. */
#define KT_CAPS_MAX 16
bool kt_cap_ask(unsigned i, const char *name);

/* What the probe found in the file (defined by kernel_tree/glue.h, or for a
 * plug-in file by the unit kernel_tree/probe.sh --plugin writes). */
struct kt_tree_info {
	const char *source;         /* the file as built */
	const char *defined;        /* every global function nm found in it, space-separated */
	const char *shim_provided;  /* helpers it uses that the shim defined for it */
	const char *header;         /* the tree's asm/pgtable.h as built, or "" */
	const char *header_taken;   /* the functions taken from it, space-separated */
	const char *header_adapted; /* entry points run through an older wrapper ("name: how; ...") */
	const char *header_untaken; /* what it defines that nothing driven reaches: never built */
	const char *header_owned;   /* what it defines that stays the project's (never built) */
	const char *header_calls;   /* the file's functions its taken definitions call */
	const char *warnings;       /* the compiler's warnings, one a line (NULL or "": none) */
};
extern const struct kt_tree_info kt_tree_info;
/* The headers the file includes under a prefix the shim has no folder
 * for (<peenux/mm.h>, <asm/p3s/pgtable.h>), mapped to the shim by the
 * probe, space-separated ("" if none); defined by the probe's unit. */
extern const char kt_mapped_headers[];

/* The kernel tree's report: which of the file's functions run, which the
 * project fills in, and at exit the calls and flushes. A kernel tree's
 * build makes it the subject's describe hook (kc_subject_describe, in
 * kernel_tree/glue.h); a plug-in file's build, which links this library
 * for the shim's hooks, keeps the plug-in description. */
struct variant;
int kt_report_describe(const struct variant *v);

#endif
