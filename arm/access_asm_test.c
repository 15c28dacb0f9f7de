/*
 * arm/access_asm_test.c - reads the disassembly of arm/access_probe.c (one
 * function per access-layer primitive, built for aarch64 with the same
 * flags as everything else) and fails unless the instructions are the
 * intended ones for the flavour this build asked for (EXPECT_LSE, from the
 * --define the aarch64 / aarch64-lse configs set):
 *   LL/SC: cmpxchg, xchg, fetch_or, fetch_andnot are LDXR ... STXR loops
 *          (with the CBNZ retry) and use no LSE atomic;
 *   LSE:   they are CAS, SWP, LDSET, LDCLR, and no LDXR/STXR appears in
 *          any probe function;
 *   both:  relaxed RMWs (no acquire/release forms: LDAXR, STLXR, CASAL,
 *          SWPA, ...); load/store a plain LDR/STR (no LDAR/STLR); fences
 *          DMB ISH (full), DMB ISHLD (acquire), DMB ISH (release).
 * It also checks that EXPECT_LSE agrees with __ARM_FEATURE_ATOMICS (i.e.
 * that the config passed -march=armv8.1-a iff it asked for LSE).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EXPECT_LSE
#error "build with -DEXPECT_LSE=0|1 (arm/BUILD)"
#endif

#define MAXFN 32
#define MAXINS 256

struct insn { char mnem[16]; char ops[48]; };
struct fn { char name[64]; int n; struct insn ins[MAXINS]; };

static struct fn fns[MAXFN];
static int nfns, failures;

static void parse(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	struct fn *cur = NULL;

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof line, f)) {
		char *lt = strchr(line, '<'), *gt;
		line[strcspn(line, "\n")] = 0;
		/* "0000000000000000 <probe_load>:" */
		if (line[0] != ' ' && lt && (gt = strstr(lt, ">:")) && nfns < MAXFN) {
			cur = &fns[nfns++];
			*gt = 0;
			snprintf(cur->name, sizeof cur->name, "%s", lt + 1);
			cur->n = 0;
			continue;
		}
		/* "   4:\tldxr\tx2, [x0]" (--no-show-raw-insn) */
		char *colon = strchr(line, ':');
		if (!cur || line[0] != ' ' || !colon || colon[1] != '\t')
			continue;
		char *m = colon + 2, *ops = strchr(m, '\t');
		if (ops)
			*ops++ = 0;
		if (cur->n < MAXINS) {
			struct insn *in = &cur->ins[cur->n++];
			snprintf(in->mnem, sizeof in->mnem, "%s", m);
			snprintf(in->ops, sizeof in->ops, "%s", ops ? ops : "");
			/* trim trailing blanks / comments */
			in->mnem[strcspn(in->mnem, " ")] = 0;
			char *c = strstr(in->ops, " //");
			if (c)
				*c = 0;
			for (size_t l = strlen(in->ops); l && in->ops[l - 1] == ' '; l--)
				in->ops[l - 1] = 0;
		}
	}
	fclose(f);
}

static struct fn *find(const char *name)
{
	for (int i = 0; i < nfns; i++)
		if (strcmp(fns[i].name, name) == 0)
			return &fns[i];
	fprintf(stderr, "FAIL: no function <%s> in the disassembly\n", name);
	failures++;
	return NULL;
}

static bool has(const struct fn *f, const char *mnem, const char *ops)
{
	for (int i = 0; f && i < f->n; i++)
		if (strcmp(f->ins[i].mnem, mnem) == 0 &&
		    (!ops || (strncmp(f->ins[i].ops, ops, strlen(ops)) == 0 &&
			      (f->ins[i].ops[strlen(ops)] == 0 ||
			       f->ins[i].ops[strlen(ops)] == ' '))))
			return true;
	return false;
}

static void dump(const struct fn *f)
{
	fprintf(stderr, "  <%s>:\n", f->name);
	for (int i = 0; i < f->n; i++)
		fprintf(stderr, "    %-8s %s\n", f->ins[i].mnem, f->ins[i].ops);
}

static void want(const char *fname, const char *mnem, const char *ops, bool present)
{
	struct fn *f = find(fname);
	if (!f)
		return;
	if (has(f, mnem, ops) != present) {
		fprintf(stderr, "FAIL: <%s> %s %s%s%s\n", fname,
			present ? "lacks" : "must not contain", mnem,
			ops ? " " : "", ops ? ops : "");
		dump(f);
		failures++;
	}
}

static const char *const RMW[] = { "probe_cmpxchg", "probe_xchg",
				   "probe_fetch_or", "probe_fetch_andnot" };
static const char *const LSE_OF[] = { "cas", "swp", "ldset", "ldclr" };
/* every LSE mnemonic base, and the ordered suffixes that must not appear */
static const char *const LSE_BASES[] = { "cas", "swp", "ldset", "ldclr", "ldadd", "ldeor" };
static const char *const ORDER_SUFFIX[] = { "a", "l", "al" };
static const char *const EXCLUSIVES[] = { "ldxr", "stxr", "ldaxr", "stlxr" };

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DISASSEMBLY\n", argv[0]);
		return 2;
	}
#if defined(__ARM_FEATURE_ATOMICS) != EXPECT_LSE
	fprintf(stderr, "FAIL: the build asks for %s but __ARM_FEATURE_ATOMICS is %s\n",
		EXPECT_LSE ? "LSE" : "LL/SC",
		EXPECT_LSE ? "not defined (no -march=armv8.1-a?)" : "defined");
	failures++;
#endif
	parse(argv[1]);
	printf("flavour expected: %s; %d functions disassembled\n",
	       EXPECT_LSE ? "LSE" : "LL/SC", nfns);

	for (int i = 0; i < 4; i++) {
		const char *fn = RMW[i];
		char m[16];
		if (EXPECT_LSE) {
			want(fn, LSE_OF[i], NULL, true);
			for (int e = 0; e < 4; e++)
				want(fn, EXCLUSIVES[e], NULL, false);
		} else {
			want(fn, "ldxr", NULL, true);
			want(fn, "stxr", NULL, true);
			want(fn, "cbnz", NULL, true);     /* the retry */
			want(fn, "ldaxr", NULL, false);   /* relaxed */
			want(fn, "stlxr", NULL, false);
			for (int b = 0; b < 6; b++)
				want(fn, LSE_BASES[b], NULL, false);
		}
		for (int b = 0; b < 6; b++)           /* relaxed LSE forms only */
			for (int s = 0; s < 3; s++) {
				snprintf(m, sizeof m, "%s%s", LSE_BASES[b], ORDER_SUFFIX[s]);
				want(fn, m, NULL, false);
			}
		want(fn, "dmb", NULL, false);
	}
	want("probe_load", "ldr", NULL, true);
	want("probe_load", "ldar", NULL, false);
	want("probe_load", "ldapr", NULL, false);
	want("probe_store", "str", NULL, true);
	want("probe_store", "stlr", NULL, false);
	want("probe_fence_full", "dmb", "ish", true);
	want("probe_fence_acquire", "dmb", "ishld", true);
	want("probe_fence_release", "dmb", "ish", true);

	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	puts("access_asm_test: ok");
	return 0;
}
