/* core/plain_access.c - the load/store hooks (see core/plain_access.h). */
#define _GNU_SOURCE
#include "core/plain_access.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_RANGES 32

static struct { _Atomic uintptr_t lo, hi; } ranges[MAX_RANGES];
static _Atomic unsigned nranges;
static void (*reporter)(const struct violation *v);

void plain_access_watch(const void *lo, size_t len)
{
	for (unsigned i = 0; i < MAX_RANGES; i++) {
		uintptr_t zero = 0;

		if (atomic_compare_exchange_strong(&ranges[i].lo, &zero, (uintptr_t)lo)) {
			atomic_store(&ranges[i].hi, (uintptr_t)lo + len);
			if (i >= atomic_load(&nranges))
				atomic_store(&nranges, i + 1);
			return;
		}
	}
}

void plain_access_unwatch(const void *lo)
{
	for (unsigned i = 0; i < MAX_RANGES; i++)
		if (atomic_load(&ranges[i].lo) == (uintptr_t)lo) {
			atomic_store(&ranges[i].hi, 0);
			atomic_store(&ranges[i].lo, 0);
		}
}

void plain_access_set_reporter(void (*report)(const struct violation *v))
{
	reporter = report;
}

static __attribute__((noinline)) void found(uintptr_t a, unsigned size, bool store, void *pc)
{
	static __thread bool reporting;
	struct violation v;
	Dl_info di;
	const char *where = "?";

	if (reporting)
		return;          /* the report's own accesses */
	reporting = true;
	if (dladdr(pc, &di) && di.dli_sname)
		where = di.dli_sname;
	violation_clear(&v);
	v.kind = VK_PLAIN_ACCESS;
	v.pc = pc;             /* the access: a finding's location (core/finding.h) */
	snprintf(v.summary, sizeof(v.summary),
		 "plain_access: the subject %s %u bytes of a page-table entry at %#lx with a plain %s, in %s, not through %s",
		 store ? "wrote" : "read", size, (unsigned long)a, store ? "store" : "load", where,
		 store ? "WRITE_ONCE (__set_pte)" : "READ_ONCE (__ptep_get)");
	snprintf(v.detail, sizeof(v.detail),
		 "  a plain C access to an entry (e.g. `*ptep` or `ptep->pte`) may be torn, fused\n"
		 "  with another or loaded again by the compiler, and it bypasses the harness:\n"
		 "  the oracle cannot see it, the engine cannot schedule around it. Read entries\n"
		 "  with __ptep_get() / READ_ONCE() and write them with __set_pte() / WRITE_ONCE().\n"
		 "  code address %p (%s; addr2line -f -e THE_BINARY can name the line)\n", pc, where);
	if (reporter) {
		reporter(&v);
	} else {
		fprintf(stderr, "%s\n%s", v.summary, v.detail);
		exit(1);
	}
	reporting = false;
}

static inline void check(const void *p, unsigned size, bool store, void *pc)
{
	uintptr_t a = (uintptr_t)p;
	unsigned n = atomic_load_explicit(&nranges, memory_order_relaxed);

	for (unsigned i = 0; i < n; i++)
		if (a + size > atomic_load_explicit(&ranges[i].lo, memory_order_relaxed) &&
		    a < atomic_load_explicit(&ranges[i].hi, memory_order_relaxed))
			found(a, size, store, pc);
}

/* clang's -fsanitize-coverage=trace-loads,trace-stores callbacks */
#define HOOKS(n, type)                                                                   \
	void __sanitizer_cov_load##n(type *p) { check(p, n, false, __builtin_return_address(0)); } \
	void __sanitizer_cov_store##n(type *p) { check(p, n, true, __builtin_return_address(0)); }
HOOKS(1, uint8_t)
HOOKS(2, uint16_t)
HOOKS(4, uint32_t)
HOOKS(8, uint64_t)
HOOKS(16, unsigned __int128)
