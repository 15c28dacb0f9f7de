/* The litmus suite and its front-end: every file in tests/ parses, carries
 * its herd7 verdict and catalogue reference, the suite covers every shape
 * and ordering feature, a few IRs match hand-written expectations, the
 * evaluator works, and inputs outside the subset are rejected with their
 * line. Arguments: the .litmus files. */
#include "litmus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c, ...)                                                   \
	do {                                                            \
		if (!(c)) {                                             \
			failures++;                                     \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);     \
			printf(__VA_ARGS__);                            \
			printf("\n");                                   \
		}                                                       \
	} while (0)

#define MAX_FILES 200
static struct lit_test suite[MAX_FILES];
static int nsuite;

static const struct lit_test *find(const char *name)
{
	for (int i = 0; i < nsuite; i++)
		if (!strcmp(suite[i].name, name))
			return &suite[i];
	return NULL;
}

static const char *shapes[] = {"MP", "SB", "LB", "S", "R", "2+2W", "CoRR", "CoRW1",
			       "CoRW2", "CoWR", "CoWW", "WRC", "IRIW", "ISA2"};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* ---- metadata ---- */

static void check_meta(const char *path, const struct lit_test *t)
{
	char want[LIT_NAME_MAX + 8];
	snprintf(want, sizeof want, "%s.litmus", t->name);
	CHECK(!strcmp(basename_of(path), want), "%s: file name is not the test name %s", path, t->name);
	bool known = false;
	for (int s = 0; s < NSHAPES; s++)
		known |= !strcmp(t->shape, shapes[s]);
	CHECK(known, "%s: Shape=%s is not a listed shape", path, t->shape);
	CHECK(t->verdict != LIT_UNKNOWN, "%s: no Herd7= verdict", path);
	CHECK(t->catalogue[0] && t->kinds[0] && t->confirmed[0],
	      "%s: Catalogue=, Kinds= and Confirmed= are required", path);
	CHECK(strstr(t->confirmed, "herd7") || strstr(t->confirmed, "kinds"),
	      "%s: Confirmed= must say herd7 run and/or kinds file", path);
	if (!strcmp(t->catalogue, "none")) {
		/* No catalogue verdict: only a herd7 run here can back it. */
		CHECK(!strcmp(t->kinds, "none"), "%s: Kinds= without Catalogue=", path);
		CHECK(strstr(t->confirmed, "herd7") != NULL, "%s: no catalogue entry and no herd7 run", path);
		return;
	}
	/* Catalogue=catalogue/.../NAME.litmus, Kinds=catalogue/.../kinds.txt: NAME Verdict */
	CHECK(!strncmp(t->catalogue, "catalogue/", 10), "%s: Catalogue= must be a path in herdtools7", path);
	char cname[LIT_NAME_MAX] = "";
	const char *b = basename_of(t->catalogue);
	const char *dot = strstr(b, ".litmus");
	CHECK(dot && dot[7] == 0, "%s: Catalogue= must name a .litmus file", path);
	if (dot)
		snprintf(cname, sizeof cname, "%.*s", (int)(dot - b), b);
	char kfile[LIT_META_MAX], kname[LIT_NAME_MAX], kverdict[16];
	int n = sscanf(t->kinds, "%199[^:]: %63s %15s", kfile, kname, kverdict);
	CHECK(n == 3, "%s: Kinds= must be 'path: NAME Verdict'", path);
	if (n != 3)
		return;
	CHECK(strstr(kfile, "kinds") != NULL, "%s: Kinds= must name a kinds file", path);
	CHECK(!strcasecmp(kname, cname), "%s: kinds line %s is not for catalogue test %s", path, kname, cname);
	bool allow = !strncmp(kverdict, "Allow", 5), forbid = !strncmp(kverdict, "Forbid", 6);
	CHECK(allow || forbid, "%s: kinds verdict %s", path, kverdict);
	CHECK((t->verdict == LIT_ALLOWED) == allow, "%s: Herd7= disagrees with the kinds line", path);
}

/* ---- coverage ---- */

enum feat { F_DMB_FULL, F_DMB_LD, F_DMB_ST, F_ACQ, F_ACQPC, F_REL, F_ADDR, F_DATA, F_CTRL, F_CTRLISB, NFEAT };
static const char *feat_name[] = {"DMB SY", "DMB LD", "DMB ST", "LDAR", "LDAPR", "STLR",
				  "addr dep", "data dep", "ctrl dep", "ctrl+ISB"};

static unsigned features(const struct lit_test *t)
{
	unsigned f = 0;
	for (int th = 0; th < t->nthreads; th++)
		for (int i = 0; i < t->ninsns[th]; i++) {
			const struct lit_insn *in = &t->insn[th][i];
			if (in->op == LIT_FENCE) {
				if (in->fence == LIT_DMB_FULL) f |= 1u << F_DMB_FULL;
				if (in->fence == LIT_DMB_LD) f |= 1u << F_DMB_LD;
				if (in->fence == LIT_DMB_ST) f |= 1u << F_DMB_ST;
				continue;
			}
			if (in->order == LIT_ACQ) f |= 1u << F_ACQ;
			if (in->order == LIT_ACQ_PC) f |= 1u << F_ACQPC;
			if (in->order == LIT_REL) f |= 1u << F_REL;
			if (in->addr_deps) f |= 1u << F_ADDR;
			if (in->data_deps) f |= 1u << F_DATA;
			if (in->ctrl_deps & ~in->ctrlisb_deps) f |= 1u << F_CTRL;
			if (in->ctrlisb_deps) f |= 1u << F_CTRLISB;
		}
	return f;
}

static void check_coverage(void)
{
	for (int s = 0; s < NSHAPES; s++) {
		const struct lit_test *plain = find(shapes[s]);
		CHECK(plain != NULL, "no plain test named %s", shapes[s]);
		CHECK(!plain || !strcmp(plain->shape, shapes[s]), "%s: wrong Shape=", shapes[s]);
		int forbidden = 0, allowed = 0;
		for (int i = 0; i < nsuite; i++)
			if (!strcmp(suite[i].shape, shapes[s])) {
				forbidden += suite[i].verdict == LIT_FORBIDDEN;
				allowed += suite[i].verdict == LIT_ALLOWED;
			}
		/* Coherence shapes are forbidden plain; every other shape needs
		 * a forbidding variant (something orders it). */
		CHECK(forbidden > 0, "shape %s has no Forbidden test", shapes[s]);
		if (plain && plain->verdict == LIT_ALLOWED)
			CHECK(forbidden > 0 && allowed > 0, "shape %s: plain Allowed but no forbidding variant", shapes[s]);
	}
	/* Each ordering feature appears in a Forbidden test (it can forbid)
	 * and, except ctrl+ISB, in an Allowed one (where it does not suffice). */
	unsigned in_forbidden = 0, in_allowed = 0;
	for (int i = 0; i < nsuite; i++) {
		unsigned f = features(&suite[i]);
		if (suite[i].verdict == LIT_FORBIDDEN)
			in_forbidden |= f;
		else
			in_allowed |= f;
	}
	for (int f = 0; f < NFEAT; f++) {
		CHECK(in_forbidden & (1u << f), "no Forbidden test uses %s", feat_name[f]);
		if (f != F_CTRLISB)
			CHECK(in_allowed & (1u << f), "no Allowed test uses %s", feat_name[f]);
	}
	int a = 0, fb = 0;
	for (int i = 0; i < nsuite; i++)
		suite[i].verdict == LIT_ALLOWED ? a++ : fb++;
	CHECK(nsuite >= 40, "only %d tests", nsuite);
	printf("suite: %d tests, %d Allowed, %d Forbidden\n", nsuite, a, fb);
}

/* ---- hand-written IR expectations ---- */

static const struct lit_insn *insn(const struct lit_test *t, int th, int i)
{
	return &t->insn[th][i];
}

static void check_ir(void)
{
	const struct lit_test *t = find("MP+dmb.sy+addr");
	CHECK(t != NULL, "MP+dmb.sy+addr missing");
	if (t) {
		/* P0: Wx=1; DMB SY; Wy=1   P1: Ry; Rx with addr dep on the first. */
		CHECK(t->nthreads == 2 && t->nlocs == 2, "MP+dmb.sy+addr: shape");
		CHECK(t->ninsns[0] == 3 && t->ninsns[1] == 2, "MP+dmb.sy+addr: insn counts");
		CHECK(insn(t, 0, 0)->op == LIT_STORE && insn(t, 0, 0)->val == 1 && insn(t, 0, 0)->val_load < 0 &&
		      !strcmp(t->loc_name[insn(t, 0, 0)->loc], "x"), "P0.0 W x=1");
		CHECK(insn(t, 0, 1)->op == LIT_FENCE && insn(t, 0, 1)->fence == LIT_DMB_FULL, "P0.1 DMB SY");
		CHECK(insn(t, 1, 0)->op == LIT_LOAD && insn(t, 1, 0)->dst == 0 && insn(t, 1, 0)->addr_deps == 0,
		      "P1.0 plain load into X0");
		CHECK(insn(t, 1, 1)->op == LIT_LOAD && insn(t, 1, 1)->addr_deps == 1u << 0 &&
		      insn(t, 1, 1)->data_deps == 0 && insn(t, 1, 1)->ctrl_deps == 0 &&
		      !strcmp(t->loc_name[insn(t, 1, 1)->loc], "x") && insn(t, 1, 1)->dst == 2,
		      "P1.1: addr_deps = {load 0}, loads x into X2");
		CHECK(t->quant == LIT_EXISTS && t->nterms == 2 && t->verdict == LIT_FORBIDDEN, "condition/verdict");
	}
	t = find("LB+datas");
	if (t)
		CHECK(insn(t, 0, 1)->op == LIT_STORE && insn(t, 0, 1)->data_deps == 1 &&
		      insn(t, 0, 1)->val == 1 && insn(t, 0, 1)->val_load < 0 && insn(t, 0, 1)->addr_deps == 0,
		      "LB+datas: EOR/ADD store of 1 with data dep on load 0");
	t = find("LB+addrs");
	if (t)
		CHECK(insn(t, 1, 1)->op == LIT_STORE && insn(t, 1, 1)->addr_deps == 1 && insn(t, 1, 1)->data_deps == 0,
		      "LB+addrs: store with addr dep on load 0");
	t = find("MP+dmb.sy+ctrl");
	if (t)
		CHECK(insn(t, 1, 1)->ctrl_deps == 1 && insn(t, 1, 1)->ctrlisb_deps == 0, "MP+dmb.sy+ctrl");
	t = find("MP+dmb.sy+ctrlisb");
	if (t) {
		CHECK(insn(t, 1, 1)->op == LIT_FENCE && insn(t, 1, 1)->fence == LIT_ISB, "ctrlisb: ISB is insn 1");
		CHECK(insn(t, 1, 2)->ctrl_deps == 1 && insn(t, 1, 2)->ctrlisb_deps == 1, "ctrlisb: deps of P1.2");
	}
	t = find("MP+rel+acqpc");
	if (t)
		CHECK(insn(t, 0, 1)->order == LIT_REL && insn(t, 1, 0)->order == LIT_ACQ_PC &&
		      insn(t, 1, 1)->order == LIT_PLAIN, "MP+rel+acqpc orderings");
	t = find("CoRW2");
	if (t)
		CHECK(t->nterms == 2 && t->term[0].thread == -1 && t->term[0].reg == 0 && t->term[0].val == 1,
		      "CoRW2: memory term [x]=1");
	t = find("MP+dmb.st+dmb.ld");
	if (t)
		CHECK(insn(t, 0, 1)->fence == LIT_DMB_ST && insn(t, 1, 1)->fence == LIT_DMB_LD, "DMB ST/LD kinds");
}

/* Parse inline text; returns 0 on success. */
static int parse_text(const char *text, struct lit_test *t, char *err, int errlen)
{
	return lit_parse("inline.litmus", text, t, err, errlen);
}

#define HDR "AArch64 T\n{\n 0:X1=x; 0:X3=y;\n 1:X1=y; 1:X3=x;\n}\n"

static void check_inline(void)
{
	static struct lit_test t;
	char err[300];
	/* A store of a loaded register's value (a copy), ORR/AND identities,
	 * [Xn,Xm] offsets and a register in the initial state. */
	const char *ok = HDR
		" P0          | P1           ;\n"
		" LDR W0,[X1] | MOV W5,#7    ;\n"
		" STR W0,[X3] | AND W6,W5,#0 ;\n"
		" ORR W2,W0,W0| LDR W2,[X1,X6];\n"
		"             | DMB ISHST    ;\n"
		"exists (0:X0=1 /\\ 1:X2=0 /\\ 1:X5=7 /\\ y=1)\n";
	int rc = parse_text(ok, &t, err, sizeof err);
	CHECK(rc == 0, "inline ok: %s", err);
	if (!rc) {
		CHECK(t.insn[0][1].op == LIT_STORE && t.insn[0][1].val_load == 0 && t.insn[0][1].data_deps == 1,
		      "store of a loaded value: val_load 0, data dep 0");
		CHECK(t.reg_final[0][2].kind == LIT_R_LOAD && t.reg_final[0][2].load == 0, "ORR r,r keeps the load value");
		CHECK(t.insn[1][0].addr_deps == 0 && t.insn[1][1].fence == LIT_DMB_ST, "[Xn,Xm] zero offset; ISHST");
		CHECK(t.verdict == LIT_UNKNOWN && !t.shape[0], "no metadata");

		/* Evaluator: registers from load values, then the condition. */
		uint64_t lv[LIT_MAX_THREADS][LIT_MAX_INSNS] = {{0}}, regs[LIT_MAX_THREADS][LIT_NREGS];
		uint64_t addr[LIT_MAX_LOCS] = {0x1000, 0x2000}, mem[LIT_MAX_LOCS] = {0, 1};
		lv[0][0] = 1;
		lv[1][0] = 0;
		lit_final_regs(&t, lv, addr, regs);
		CHECK(regs[0][0] == 1 && regs[0][2] == 1 && regs[1][5] == 7 && regs[1][6] == 0 && regs[0][1] == 0x1000,
		      "final registers");
		CHECK(lit_cond_holds(&t, regs, mem), "condition holds");
		mem[1] = 0;
		CHECK(!lit_cond_holds(&t, regs, mem), "memory term fails");
		mem[1] = 1;
		lv[1][0] = 5;
		lit_final_regs(&t, lv, addr, regs);
		CHECK(!lit_cond_holds(&t, regs, mem), "register term fails");
	}
	const struct lit_test *mp = find("MP+dmb.sy+addr");
	if (mp) {
		uint64_t lv[LIT_MAX_THREADS][LIT_MAX_INSNS] = {{0}}, regs[LIT_MAX_THREADS][LIT_NREGS];
		uint64_t addr[LIT_MAX_LOCS] = {1, 2}, mem[LIT_MAX_LOCS] = {1, 1};
		lv[1][0] = 1, lv[1][1] = 0;
		lit_final_regs(mp, lv, addr, regs);
		CHECK(lit_cond_holds(mp, regs, mem), "MP: 1:X0=1 /\\ 1:X2=0 holds");
		lv[1][1] = 1;
		lit_final_regs(mp, lv, addr, regs);
		CHECK(!lit_cond_holds(mp, regs, mem), "MP: 1:X2=1 does not satisfy");
	}
	/* herd's informational header keys are ignored. */
	const char *info = "AArch64 T\n\"Rfe PodRR Fre\"\nHash=0123\nCycle=Rfe PodRR Fre\n{ 0:X1=x; }\n"
			   " P0          ;\n LDR W0,[X1] ;\nexists (0:X0=0)\n";
	CHECK(parse_text(info, &t, err, sizeof err) == 0, "informational keys: %s", err);
	/* Quantifiers. */
	const char *q1 = HDR " P0          | P1 ;\n LDR W0,[X1] | ;\n~exists (0:X0=1)\n";
	CHECK(parse_text(q1, &t, err, sizeof err) == 0 && t.quant == LIT_NOT_EXISTS, "~exists: %s", err);
	const char *q2 = HDR " P0          | P1 ;\n LDR W0,[X1] | ;\nforall 0:X0=0 /\\ [y]=0\n";
	CHECK(parse_text(q2, &t, err, sizeof err) == 0 && t.quant == LIT_FORALL && t.nterms == 2, "forall: %s", err);
}

/* ---- rejected inputs: each names its line ---- */

struct bad {
	const char *text;
	int line;
	const char *msg; /* a substring of the message */
};

static const struct bad bads[] = {
	{"ARM T\n{ 0:X1=x; }\n P0 ;\n LDR R0,[R1] ;\nexists (0:X0=1)\n", 1, "AArch64"},
	{"AArch64 T\nFoo=bar\n{ 0:X1=x; }\n P0 ;\n LDR W0,[X1] ;\nexists (0:X0=1)\n", 2, "unknown header key"},
	{"AArch64 T\nHerd7=Maybe\n{ 0:X1=x; }\n P0 ;\n LDR W0,[X1] ;\nexists (0:X0=1)\n", 2, "Allowed or Forbidden"},
	{"AArch64 T\n{ 0:X1=x;\n", 2, "not closed"},
	{"AArch64 T\n{ 0:X1=x; int y=0; }\n P0 ;\n LDR W0,[X1] ;\nexists (0:X0=1)\n", 2, "bad location name"},
	{HDR " P0 | P1 ;\n LDXR W0,[X1] | ;\nexists (0:X0=1)\n", 7, "outside the subset"},
	{HDR " P0 | P1 ;\n MOV W0,#1 | ;\n DMB OSH | ;\nexists (0:X0=1)\n", 8, "DMB OSH"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | ;\n CBNZ W0,L0 | ;\n MOV W2,#1 | ;\n L0: | ;\nexists (0:X0=1)\n", 8, "next"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | ;\n LDR W2,[X3,W0,SXTW] | ;\nexists (0:X0=1)\n", 8, "statically zero"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | ;\n LDR W2,[X0] | ;\nexists (0:X0=1)\n", 8, "address"},
	{HDR " P0 | P1 ;\n STR X1,[X3] | ;\nexists (0:X0=1)\n", 7, "storing an address"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | ;\n LDR W2,[X3] | ;\n ADD W4,W0,W2 | ;\nexists (0:X0=1)\n", 9, "statically known"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | ;\n LDR W2,[X3] ;\nexists (0:X0=1)\n", 8, "columns"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | \n", 7, "end with ';'"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | ;\nexists (0:X0=1 \\/ 1:X0=1)\n", 8, "disjunction"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | ;\nexists (0:X0=1 /\\ w=0)\n", 8, "unknown location"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | ;\nexists (2:X0=1)\n", 8, "no thread 2"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | ;\nexists (0:X3=1)\n", 8, "holds an address"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | ;\nexists (0:X0!=1)\n", 8, "equalities"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | ;\n", 7, "missing final condition"},
	{HDR " P0 | P1 ;\n LDAR W0,[X1,X5] | ;\nexists (0:X0=1)\n", 7, "only [Xn]"},
	{HDR " P0 | P1 ;\n LDR W0,[X1] | ;\nlocations [x;]\nexists (0:X0=1)\n", 8, "locations"},
	{"AArch64 T\n{ 0:X1=x; 1:X1=x; 2:X1=x; 3:X1=x; 4:X1=x; }\n", 2, "at most 4 threads"},
	{"AArch64 T\n{ 0:X1=a; 0:X2=b; 0:X3=c; 0:X4=d; 0:X5=e; }\n", 2, "more than 4 locations"},
	{"AArch64 T\n{ 0:X1=x; }\n P0 | P1 | P2 | P3 | P4 ;\n", 3, "more than 4 threads"},
	{"AArch64 T\n{ 0:X1=x; }\n P1 ;\n", 3, "expected P0"},
	{"AArch64 T\n{ 0:X1=x; 1:X0=0; }\n P0 ;\n", 3, "beyond P0"},
};

static void check_bad(void)
{
	static struct lit_test t;
	for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
		char err[300] = "", want[32];
		int rc = parse_text(bads[i].text, &t, err, sizeof err);
		snprintf(want, sizeof want, "inline.litmus:%d: ", bads[i].line);
		CHECK(rc == -1, "bad input %zu accepted", i);
		CHECK(!strncmp(err, want, strlen(want)), "bad input %zu: message '%s' lacks '%s'", i, err, want);
		CHECK(strstr(err, bads[i].msg) != NULL, "bad input %zu: message '%s' lacks '%s'", i, err, bads[i].msg);
	}
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char err[300];
		if (nsuite == MAX_FILES) {
			CHECK(0, "more than %d files", MAX_FILES);
			break;
		}
		struct lit_test *t = &suite[nsuite];
		if (lit_parse_file(argv[i], t, err, sizeof err)) {
			CHECK(0, "%s", err);
			continue;
		}
		CHECK(find(t->name) == NULL, "%s: duplicate test name %s", argv[i], t->name);
		nsuite++;
		check_meta(argv[i], t);
	}
	check_coverage();
	check_ir();
	check_inline();
	check_bad();
	printf("%s\n", failures ? "FAILED" : "all checks passed");
	return failures != 0;
}
