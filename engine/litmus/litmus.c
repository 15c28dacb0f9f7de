/* AArch64 litmus front-end: herd7 .litmus subset -> IR (litmus.h).
 * The accepted subset is listed in README.md; everything else is an error
 * with the file and line, never skipped. */
#include "litmus.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ZR 31 /* WZR/XZR */
#define MAX_LINE 256

struct line {
	int no;
	char *s; /* trimmed, writable */
};

struct parser {
	const char *file;
	char *err;
	int errlen;
	struct lit_test *t;
	unsigned init_threads; /* threads named in the initial state */
	struct line *L;        /* the file's lines, trimmed */
	int nl, i;             /* line count, current line */
};

static int fail(struct parser *p, int line, const char *fmt, ...)
{
	int n = snprintf(p->err, p->errlen, "%s:%d: ", p->file, line);
	if (n < 0 || n >= p->errlen)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- small lexical helpers ---- */

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* Decimal or 0x hex, optionally negative; the whole string. */
static bool parse_uint(const char *s, uint64_t *v)
{
	char *end;
	if (!*s)
		return false;
	bool neg = *s == '-';
	if (neg)
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	uint64_t x = strtoull(s, &end, hex ? 16 : 10);
	if (*end)
		return false;
	*v = neg ? (uint64_t)-(int64_t)x : x;
	return true;
}

/* W<n>/X<n> (n 0..30), WZR/XZR. Returns the number (ZR = 31) or -1;
 * *is_w says which view. */
static int parse_reg(const char *s, bool *is_w)
{
	char c = toupper((unsigned char)s[0]);
	if (c != 'W' && c != 'X')
		return -1;
	if (is_w)
		*is_w = c == 'W';
	if (!strcasecmp(s + 1, "ZR"))
		return ZR;
	if (!isdigit((unsigned char)s[1]))
		return -1;
	char *end;
	long n = strtol(s + 1, &end, 10);
	if (*end || n < 0 || n >= LIT_NREGS)
		return -1;
	return (int)n;
}

static bool is_ident(const char *s)
{
	if (!islower((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* Index of location `name`; creates it if `create`. -1 if unknown or
 * too many (an error is set then). */
static int loc_index(struct parser *p, int line, const char *name, bool create)
{
	struct lit_test *t = p->t;
	for (int i = 0; i < t->nlocs; i++)
		if (!strcmp(t->loc_name[i], name))
			return i;
	if (!create) {
		fail(p, line, "unknown location '%s' (locations come from the initial state)", name);
		return -1;
	}
	if (!is_ident(name) || strlen(name) >= sizeof t->loc_name[0]) {
		fail(p, line, "bad location name '%s' (lower-case identifier, up to 7 characters)", name);
		return -1;
	}
	if (t->nlocs == LIT_MAX_LOCS) {
		fail(p, line, "more than %d locations", LIT_MAX_LOCS);
		return -1;
	}
	snprintf(t->loc_name[t->nlocs], sizeof t->loc_name[0], "%s", name);
	return t->nlocs++;
}

/* "N:Xk" -> thread, register. */
static bool parse_thread_reg(const char *s, int *th, int *reg)
{
	if (!isdigit((unsigned char)s[0]) || s[1] != ':')
		return false;
	*th = s[0] - '0';
	*reg = parse_reg(s + 2, NULL);
	return *reg >= 0 && *reg != ZR;
}

/* ---- per-thread register data flow ---- */

/* What the front-end knows about a register while interpreting a
 * thread: its value class (as struct lit_reg) and the loads it depends on. */
struct rstate {
	struct lit_reg r;
	uint32_t deps;
};

struct thread_ctx {
	struct rstate reg[LIT_NREGS];
	uint32_t ctrl, ctrlisb;    /* deps of branches so far; those followed by ISB */
	char pending_label[32];    /* a branch's target, which must come next */
	int pending_line;
};

static struct rstate read_reg(const struct thread_ctx *c, int r)
{
	if (r == ZR)
		return (struct rstate){.r = {.kind = LIT_R_CONST, .val = 0}};
	return c->reg[r];
}

/* Splits "a, [b, c], d" at top-level commas into at most max trimmed
 * operands; returns the count or -1. */
static int split_operands(char *s, char **ops, int max)
{
	int n = 0, depth = 0;
	char *start = s;
	if (!*trim(s))
		return 0;
	for (char *q = s;; q++) {
		if (*q == '[')
			depth++;
		else if (*q == ']')
			depth--;
		if ((*q == ',' && depth == 0) || !*q) {
			bool end = !*q;
			*q = 0;
			if (n == max)
				return -1;
			ops[n++] = trim(start);
			start = q + 1;
			if (end)
				break;
		}
	}
	return n;
}

static int thread_push(struct parser *p, int th, int line, struct lit_insn *in)
{
	struct lit_test *t = p->t;
	if (t->ninsns[th] == LIT_MAX_INSNS)
		return fail(p, line, "P%d: more than %d memory accesses and fences", th, LIT_MAX_INSNS);
	in->line = line;
	t->insn[th][t->ninsns[th]++] = *in;
	return 0;
}

/* "[Xn]" or "[Xn,Rm]" or "[Xn,Wm,SXTW]" / "[Xn,Xm,LSL #0]" is not in the
 * subset. Sets *loc and *deps. */
static int parse_address(struct parser *p, int line, struct thread_ctx *c, char *op,
			 int *loc, uint32_t *deps)
{
	size_t len = strlen(op);
	if (len < 3 || op[0] != '[' || op[len - 1] != ']')
		return fail(p, line, "address operand '%s': expected [Xn], [Xn,Xm] or [Xn,Wm,SXTW]", op);
	op[len - 1] = 0;
	char *parts[4];
	int n = split_operands(op + 1, parts, 4);
	if (n < 1 || n > 3)
		return fail(p, line, "address operand: expected [Xn], [Xn,Xm] or [Xn,Wm,SXTW]");
	bool w;
	int base = parse_reg(parts[0], &w);
	if (base < 0 || base == ZR || w)
		return fail(p, line, "address base '%s' must be an X register", parts[0]);
	struct rstate b = read_reg(c, base);
	if (b.r.kind != LIT_R_ADDR)
		return fail(p, line, "X%d does not hold a location's address here", base);
	*loc = b.r.loc;
	*deps = b.deps;
	if (n >= 2) {
		int off = parse_reg(parts[1], &w);
		if (off < 0)
			return fail(p, line, "address offset '%s' must be a register", parts[1]);
		if (n == 3 && (!w || strcasecmp(parts[2], "SXTW")))
			return fail(p, line, "address extension '%s': only Wm,SXTW is in the subset", parts[2]);
		if (n == 2 && w)
			return fail(p, line, "a W offset register needs SXTW");
		struct rstate o = read_reg(c, off);
		if (o.r.kind != LIT_R_CONST || o.r.val != 0)
			return fail(p, line, "offset register %s is not statically zero "
				    "(the subset has only the EOR-zero address dependency)", parts[1]);
		*deps |= o.deps;
	}
	return 0;
}

enum alu { ALU_EOR, ALU_ADD, ALU_SUB, ALU_AND, ALU_ORR };

/* dst = a OP b, statically. */
static int alu(struct parser *p, int line, enum alu op, bool same_reg,
	       struct rstate a, struct rstate b, bool w, struct rstate *out)
{
	out->deps = a.deps | b.deps;
	bool ac = a.r.kind == LIT_R_CONST, bc = b.r.kind == LIT_R_CONST;
	if (same_reg && (op == ALU_EOR || op == ALU_SUB)) {
		out->r = (struct lit_reg){.kind = LIT_R_CONST, .val = 0};
		return 0;
	}
	if (same_reg && (op == ALU_AND || op == ALU_ORR)) {
		out->r = a.r;
		return 0;
	}
	if (ac && bc) {
		uint64_t x = a.r.val, y = b.r.val, v = 0;
		switch (op) {
		case ALU_EOR: v = x ^ y; break;
		case ALU_ADD: v = x + y; break;
		case ALU_SUB: v = x - y; break;
		case ALU_AND: v = x & y; break;
		case ALU_ORR: v = x | y; break;
		}
		out->r = (struct lit_reg){.kind = LIT_R_CONST, .val = w ? (uint32_t)v : v};
		return 0;
	}
	if (op == ALU_AND && ((ac && a.r.val == 0) || (bc && b.r.val == 0))) {
		out->r = (struct lit_reg){.kind = LIT_R_CONST, .val = 0};
		return 0;
	}
	/* Identities keep the other operand's value (a load value or an
	 * address) and add the dependencies. */
	if (bc && b.r.val == 0 && op != ALU_AND) {
		out->r = a.r;
		return 0;
	}
	if (ac && a.r.val == 0 && (op == ALU_EOR || op == ALU_ADD || op == ALU_ORR)) {
		out->r = b.r;
		return 0;
	}
	return fail(p, line, "value not statically known (only EOR r,r,r / AND #0 / "
		    "identities on load values and addresses are in the subset)");
}

/* One cell of the program table. */
static int thread_insn(struct parser *p, int th, int line, struct thread_ctx *c, char *text)
{
	text = trim(text);
	if (!*text)
		return 0;
	size_t len = strlen(text);
	if (text[len - 1] == ':') { /* a label */
		text[len - 1] = 0;
		if (!c->pending_label[0] || strcmp(c->pending_label, trim(text)))
			return fail(p, line, "label '%s' is not the target of the branch just before it "
				    "(only branches to the next instruction are in the subset)", text);
		c->pending_label[0] = 0;
		return 0;
	}
	if (c->pending_label[0])
		return fail(p, c->pending_line, "branch target '%s' must be the next line of P%d "
			    "(only branches to the next instruction are in the subset)",
			    c->pending_label, th);

	char mn[16];
	int k = 0;
	while (text[k] && !isspace((unsigned char)text[k]) && k < (int)sizeof mn - 1) {
		mn[k] = toupper((unsigned char)text[k]);
		k++;
	}
	mn[k] = 0;
	char *ops[4];
	int nops = split_operands(text + k, ops, 4);
	if (nops < 0)
		return fail(p, line, "too many operands");
	struct lit_insn in = {.val_load = -1, .loc = -1, .dst = -1};
	in.ctrl_deps = c->ctrl;
	in.ctrlisb_deps = c->ctrlisb;
	bool w;

	/* Fences. */
	if (!strcmp(mn, "DMB") || !strcmp(mn, "ISB")) {
		in.op = LIT_FENCE;
		if (!strcmp(mn, "ISB")) {
			if (nops != 0 && !(nops == 1 && !strcasecmp(ops[0], "SY")))
				return fail(p, line, "ISB takes no operand");
			in.fence = LIT_ISB;
			c->ctrlisb |= c->ctrl;
		} else {
			if (nops != 1)
				return fail(p, line, "DMB needs one option");
			if (!strcasecmp(ops[0], "SY") || !strcasecmp(ops[0], "ISH"))
				in.fence = LIT_DMB_FULL;
			else if (!strcasecmp(ops[0], "LD") || !strcasecmp(ops[0], "ISHLD"))
				in.fence = LIT_DMB_LD;
			else if (!strcasecmp(ops[0], "ST") || !strcasecmp(ops[0], "ISHST"))
				in.fence = LIT_DMB_ST;
			else
				return fail(p, line, "DMB %s is outside the subset (SY, ISH, LD, ISHLD, ST, ISHST)", ops[0]);
		}
		in.ctrl_deps = in.ctrlisb_deps = 0;
		return thread_push(p, th, line, &in);
	}

	/* Loads and stores. */
	int ord = -1;
	bool load = false;
	if (!strcmp(mn, "LDR")) load = true, ord = LIT_PLAIN;
	else if (!strcmp(mn, "LDAR")) load = true, ord = LIT_ACQ;
	else if (!strcmp(mn, "LDAPR")) load = true, ord = LIT_ACQ_PC;
	else if (!strcmp(mn, "STR")) ord = LIT_PLAIN;
	else if (!strcmp(mn, "STLR")) ord = LIT_REL;
	if (ord >= 0) {
		if (nops != 2)
			return fail(p, line, "%s needs a register and an address", mn);
		int rt = parse_reg(ops[0], &w);
		if (rt < 0)
			return fail(p, line, "bad register '%s'", ops[0]);
		if ((ord == LIT_ACQ || ord == LIT_ACQ_PC || ord == LIT_REL) && ops[1][0] == '[' && strchr(ops[1], ','))
			return fail(p, line, "%s takes only [Xn]", mn);
		in.order = ord;
		if (parse_address(p, line, c, ops[1], &in.loc, &in.addr_deps))
			return -1;
		int idx = p->t->ninsns[th];
		if (load) {
			if (rt == ZR)
				return fail(p, line, "loads into the zero register are outside the subset");
			in.op = LIT_LOAD;
			in.dst = rt;
			if (thread_push(p, th, line, &in))
				return -1;
			c->reg[rt] = (struct rstate){.r = {.kind = LIT_R_LOAD, .load = idx}, .deps = 1u << idx};
			return 0;
		}
		in.op = LIT_STORE;
		struct rstate v = read_reg(c, rt);
		if (v.r.kind == LIT_R_ADDR)
			return fail(p, line, "storing an address is outside the subset");
		if (v.r.kind == LIT_R_LOAD)
			in.val_load = v.r.load;
		else
			in.val = v.r.val;
		in.data_deps = v.deps;
		return thread_push(p, th, line, &in);
	}

	/* Conditional branches: only to the very next instruction. */
	if (!strcmp(mn, "CBZ") || !strcmp(mn, "CBNZ")) {
		if (nops != 2)
			return fail(p, line, "%s needs a register and a label", mn);
		int rn = parse_reg(ops[0], &w);
		if (rn < 0)
			return fail(p, line, "bad register '%s'", ops[0]);
		if (!*ops[1] || strlen(ops[1]) >= sizeof c->pending_label)
			return fail(p, line, "bad label");
		c->ctrl |= read_reg(c, rn).deps;
		snprintf(c->pending_label, sizeof c->pending_label, "%s", ops[1]);
		c->pending_line = line;
		return 0;
	}

	/* Register moves and arithmetic, interpreted statically. */
	if (!strcmp(mn, "MOV")) {
		if (nops != 2)
			return fail(p, line, "MOV needs two operands");
		int rd = parse_reg(ops[0], &w);
		if (rd < 0 || rd == ZR)
			return fail(p, line, "bad destination '%s'", ops[0]);
		uint64_t imm;
		if (ops[1][0] == '#') {
			if (!parse_uint(ops[1] + 1, &imm))
				return fail(p, line, "bad immediate '%s'", ops[1]);
			c->reg[rd] = (struct rstate){.r = {.kind = LIT_R_CONST, .val = w ? (uint32_t)imm : imm}};
			return 0;
		}
		int rm = parse_reg(ops[1], NULL);
		if (rm < 0)
			return fail(p, line, "bad operand '%s'", ops[1]);
		c->reg[rd] = read_reg(c, rm);
		return 0;
	}
	static const char *alus[] = {"EOR", "ADD", "SUB", "AND", "ORR"};
	for (int a = 0; a < 5; a++) {
		if (strcmp(mn, alus[a]))
			continue;
		if (nops != 3)
			return fail(p, line, "%s needs three operands (Rd,Rn,Rm or Rd,Rn,#imm)", mn);
		int rd = parse_reg(ops[0], &w), rn = parse_reg(ops[1], NULL);
		if (rd < 0 || rd == ZR || rn < 0)
			return fail(p, line, "bad register in %s", mn);
		struct rstate b;
		bool same = false;
		if (ops[2][0] == '#') {
			uint64_t imm;
			if (!parse_uint(ops[2] + 1, &imm))
				return fail(p, line, "bad immediate '%s'", ops[2]);
			b = (struct rstate){.r = {.kind = LIT_R_CONST, .val = imm}};
		} else {
			int rm = parse_reg(ops[2], NULL);
			if (rm < 0)
				return fail(p, line, "bad operand '%s' (shifted or extended operands are outside the subset)", ops[2]);
			b = read_reg(c, rm);
			same = rm == rn;
		}
		struct rstate out;
		if (alu(p, line, (enum alu)a, same, read_reg(c, rn), b, w, &out))
			return -1;
		c->reg[rd] = out;
		return 0;
	}
	return fail(p, line, "instruction '%s' is outside the subset", mn);
}

/* ---- file structure ---- */

static int set_meta(struct parser *p, int line, const char *key, const char *val)
{
	struct lit_test *t = p->t;
	char *dst;
	size_t cap;
	if (!strcmp(key, "Shape")) dst = t->shape, cap = sizeof t->shape;
	else if (!strcmp(key, "Catalogue")) dst = t->catalogue, cap = sizeof t->catalogue;
	else if (!strcmp(key, "Kinds")) dst = t->kinds, cap = sizeof t->kinds;
	else if (!strcmp(key, "Confirmed")) dst = t->confirmed, cap = sizeof t->confirmed;
	else if (!strcmp(key, "Hash") || !strcmp(key, "Cycle") || !strcmp(key, "Generator") ||
		 !strcmp(key, "Prefetch") || !strcmp(key, "Com") || !strcmp(key, "Orig"))
		return 0; /* herd's own informational keys: no meaning for a run */
	else if (!strcmp(key, "Herd7")) {
		if (!strcmp(val, "Allowed"))
			t->verdict = LIT_ALLOWED;
		else if (!strcmp(val, "Forbidden"))
			t->verdict = LIT_FORBIDDEN;
		else
			return fail(p, line, "Herd7= must be Allowed or Forbidden");
		return 0;
	} else
		return fail(p, line, "unknown header key '%s' (Shape, Herd7, Catalogue, Kinds, Confirmed)", key);
	if (strlen(val) >= cap)
		return fail(p, line, "%s= value too long", key);
	if (dst[0])
		return fail(p, line, "%s= given twice", key);
	snprintf(dst, cap, "%s", val);
	return 0;
}

static int parse_init_entry(struct parser *p, int line, char *e)
{
	struct lit_test *t = p->t;
	e = trim(e);
	if (!*e)
		return 0;
	char *eq = strchr(e, '=');
	if (!eq)
		return fail(p, line, "initial state entry '%s': expected N:Xk=loc, N:Xk=value or loc=value", e);
	*eq = 0;
	char *lhs = trim(e), *rhs = trim(eq + 1);
	uint64_t v;
	int th, reg;
	if (strchr(lhs, ':')) {
		if (!parse_thread_reg(lhs, &th, &reg))
			return fail(p, line, "bad register '%s'", lhs);
		if (th >= LIT_MAX_THREADS)
			return fail(p, line, "thread %d: at most %d threads", th, LIT_MAX_THREADS);
		p->init_threads |= 1u << th;
		struct lit_reg *r = &t->reg_final[th][reg]; /* the initial state, for now */
		if (parse_uint(rhs, &v))
			*r = (struct lit_reg){.kind = LIT_R_CONST, .val = v};
		else {
			int l = loc_index(p, line, rhs, true);
			if (l < 0)
				return -1;
			*r = (struct lit_reg){.kind = LIT_R_ADDR, .loc = l};
		}
		return 0;
	}
	if (!parse_uint(rhs, &v))
		return fail(p, line, "initial value of %s must be an integer", lhs);
	int l = loc_index(p, line, lhs, true);
	if (l < 0)
		return -1;
	t->loc_init[l] = v;
	return 0;
}

/* Condition body: conjunction of terms, with optional parentheses. */
struct cond {
	struct parser *p;
	const char *s;
	int line;
};

static void skip_ws(struct cond *c)
{
	while (isspace((unsigned char)*c->s))
		c->s++;
}

static int cond_term(struct cond *c)
{
	struct lit_test *t = c->p->t;
	char lhs[32], rhs[32];
	int n = 0;
	bool bracket = *c->s == '[';
	if (bracket)
		c->s++;
	while ((isalnum((unsigned char)*c->s) || *c->s == ':' || *c->s == '_') && n < 31)
		lhs[n++] = *c->s++;
	lhs[n] = 0;
	if (bracket) {
		if (*c->s != ']')
			return fail(c->p, c->line, "condition: expected ']'");
		c->s++;
	}
	skip_ws(c);
	if (*c->s != '=')
		return fail(c->p, c->line, "condition: expected '=' after '%s' (only equalities are in the subset)", lhs);
	c->s++;
	skip_ws(c);
	n = 0;
	while ((isalnum((unsigned char)*c->s) || *c->s == '-') && n < 31)
		rhs[n++] = *c->s++;
	rhs[n] = 0;
	struct lit_term term;
	if (!parse_uint(rhs, &term.val))
		return fail(c->p, c->line, "condition: '%s' must equal an integer", lhs);
	if (t->nterms == LIT_MAX_TERMS)
		return fail(c->p, c->line, "condition: more than %d terms", LIT_MAX_TERMS);
	if (!bracket && strchr(lhs, ':')) {
		if (!parse_thread_reg(lhs, &term.thread, &term.reg))
			return fail(c->p, c->line, "condition: bad register '%s'", lhs);
		if (term.thread >= t->nthreads)
			return fail(c->p, c->line, "condition: no thread %d", term.thread);
		if (t->reg_final[term.thread][term.reg].kind == LIT_R_ADDR)
			return fail(c->p, c->line, "condition: %s holds an address", lhs);
	} else {
		term.thread = -1;
		term.reg = loc_index(c->p, c->line, lhs, false);
		if (term.reg < 0)
			return -1;
	}
	t->term[t->nterms++] = term;
	return 0;
}

static int cond_conj(struct cond *c);

static int cond_atom(struct cond *c)
{
	skip_ws(c);
	if (*c->s == '(') {
		c->s++;
		if (cond_conj(c))
			return -1;
		skip_ws(c);
		if (*c->s != ')')
			return fail(c->p, c->line, "condition: expected ')'");
		c->s++;
		return 0;
	}
	return cond_term(c);
}

static int cond_conj(struct cond *c)
{
	for (;;) {
		if (cond_atom(c))
			return -1;
		skip_ws(c);
		if (!strncmp(c->s, "/\\", 2)) {
			c->s += 2;
			continue;
		}
		if (!strncmp(c->s, "\\/", 2))
			return fail(c->p, c->line, "condition: disjunction is outside the subset");
		return 0;
	}
}

/* Splits a program row "a | b | c ;" into cells. */
static int split_row(struct parser *p, int line, char *s, char **cells)
{
	size_t len = strlen(s);
	if (!len || s[len - 1] != ';')
		return fail(p, line, "program row must end with ';'");
	s[len - 1] = 0;
	int n = 0;
	for (char *q = s;; ) {
		char *bar = strchr(q, '|');
		if (n == LIT_MAX_THREADS)
			return fail(p, line, "more than %d threads", LIT_MAX_THREADS);
		if (bar)
			*bar = 0;
		cells[n++] = q;
		if (!bar)
			break;
		q = bar + 1;
	}
	return n;
}

/* The file's sections, in order; each advances p->i past what it read. */

static void skip_blank(struct parser *p)
{
	while (p->i < p->nl && !p->L[p->i].s[0])
		p->i++;
}

/* "AArch64 NAME", then a quoted description and Key=Value lines up to '{'. */
static int parse_header(struct parser *p)
{
	struct lit_test *t = p->t;
	struct line *L = p->L;
	skip_blank(p);
	if (p->i == p->nl || strncmp(L[p->i].s, "AArch64 ", 8))
		return fail(p, p->i < p->nl ? L[p->i].no : 1,
			    "expected 'AArch64 NAME' (only AArch64 tests are in the subset)");
	char *name = trim(L[p->i].s + 8);
	if (!*name || strlen(name) >= sizeof t->name || strpbrk(name, " \t"))
		return fail(p, L[p->i].no, "bad test name");
	snprintf(t->name, sizeof t->name, "%s", name);
	for (p->i++; p->i < p->nl && L[p->i].s[0] != '{'; p->i++) {
		char *s = L[p->i].s;
		if (!*s || s[0] == '"')
			continue;
		char *eq = strchr(s, '=');
		if (!eq)
			return fail(p, L[p->i].no, "header line: expected Key=Value or '{'");
		*eq = 0;
		if (set_meta(p, L[p->i].no, trim(s), trim(eq + 1)))
			return -1;
	}
	if (p->i == p->nl)
		return fail(p, p->nl, "missing initial state '{ ... }'");
	return 0;
}

/* Initial state: from '{' to '}', entries separated by ';'. */
static int parse_init(struct parser *p)
{
	struct line *L = p->L;
	int start = L[p->i].no;
	char *s = L[p->i].s + 1;
	for (;;) {
		char *close = strchr(s, '}');
		if (close) {
			*close = 0;
			if (*trim(close + 1))
				return fail(p, L[p->i].no, "text after '}'");
		}
		for (char *e = s, *semi; e; e = semi) {
			semi = strchr(e, ';');
			if (semi)
				*semi++ = 0;
			if (parse_init_entry(p, L[p->i].no, e))
				return -1;
		}
		p->i++;
		if (close)
			return 0;
		if (p->i == p->nl)
			return fail(p, start, "initial state not closed with '}'");
		s = L[p->i].s;
	}
}

/* Program: "P0 | P1 ... ;" then one row a line, up to the condition. */
static int parse_program(struct parser *p)
{
	struct lit_test *t = p->t;
	struct line *L = p->L;
	skip_blank(p);
	if (p->i == p->nl)
		return fail(p, p->nl, "missing program");
	char *cells[LIT_MAX_THREADS];
	int n = split_row(p, L[p->i].no, L[p->i].s, cells);
	if (n < 0)
		return -1;
	for (int k = 0; k < n; k++) {
		char want[4];
		snprintf(want, sizeof want, "P%d", k);
		if (strcmp(trim(cells[k]), want))
			return fail(p, L[p->i].no, "program header: expected %s, got '%s'", want, trim(cells[k]));
	}
	t->nthreads = n;
	if (p->init_threads >> n)
		return fail(p, L[p->i].no, "the initial state names a thread beyond P%d", n - 1);

	struct thread_ctx ctx[LIT_MAX_THREADS];
	memset(ctx, 0, sizeof ctx);
	for (int th = 0; th < n; th++)
		for (int r = 0; r < LIT_NREGS; r++)
			ctx[th].reg[r].r = t->reg_final[th][r]; /* the initial state */
	for (p->i++; p->i < p->nl; p->i++) {
		char *s = L[p->i].s;
		if (!*s)
			continue;
		if (!strncmp(s, "exists", 6) || !strncmp(s, "~exists", 7) || !strncmp(s, "forall", 6))
			break;
		if (!strncmp(s, "locations", 9) || !strncmp(s, "filter", 6))
			return fail(p, L[p->i].no, "'locations' and 'filter' are outside the subset");
		int m = split_row(p, L[p->i].no, s, cells);
		if (m < 0)
			return -1;
		if (m != n)
			return fail(p, L[p->i].no, "row has %d columns, the program %d threads", m, n);
		for (int th = 0; th < n; th++)
			if (thread_insn(p, th, L[p->i].no, &ctx[th], cells[th]))
				return -1;
	}
	for (int th = 0; th < n; th++) {
		if (ctx[th].pending_label[0])
			return fail(p, ctx[th].pending_line, "branch target '%s' never appears",
				    ctx[th].pending_label);
		for (int r = 0; r < LIT_NREGS; r++)
			t->reg_final[th][r] = ctx[th].reg[r].r;
	}
	return 0;
}

/* The final condition: the rest of the file. */
static int parse_condition(struct parser *p)
{
	struct lit_test *t = p->t;
	struct line *L = p->L;
	if (p->i == p->nl)
		return fail(p, p->nl, "missing final condition (exists, ~exists or forall)");
	int cline = L[p->i].no;
	char cbuf[1024] = "";
	for (; p->i < p->nl; p->i++) {
		if (strlen(cbuf) + strlen(L[p->i].s) + 2 >= sizeof cbuf)
			return fail(p, L[p->i].no, "condition too long");
		strcat(cbuf, L[p->i].s);
		strcat(cbuf, " ");
	}
	struct cond c = {.p = p, .s = cbuf, .line = cline};
	if (!strncmp(c.s, "~exists", 7))
		t->quant = LIT_NOT_EXISTS, c.s += 7;
	else if (!strncmp(c.s, "exists", 6))
		t->quant = LIT_EXISTS, c.s += 6;
	else
		t->quant = LIT_FORALL, c.s += 6;
	if (cond_conj(&c))
		return -1;
	skip_ws(&c);
	if (*c.s)
		return fail(p, cline, "condition: unexpected '%.20s'", c.s);
	return 0;
}

int lit_parse(const char *file, const char *text, struct lit_test *t, char *err, int errlen)
{
	struct parser P = {.file = file, .err = err, .errlen = errlen, .t = t};
	struct parser *p = &P;
	memset(t, 0, sizeof *t);
	if (errlen > 0)
		err[0] = 0;

	/* Split a private copy into trimmed lines. */
	size_t len = strlen(text);
	int cap = 1;
	for (size_t k = 0; k < len; k++)
		cap += text[k] == '\n';
	char *buf = malloc(len + 1);
	p->L = calloc(cap, sizeof *p->L);
	int rc = -1;
	if (!buf || !p->L) {
		fail(p, 0, "out of memory");
		goto out;
	}
	memcpy(buf, text, len + 1);
	for (char *s = buf, *nx; s; s = nx) {
		nx = strchr(s, '\n');
		if (nx)
			*nx++ = 0;
		if (strlen(s) > MAX_LINE) {
			fail(p, p->nl + 1, "line longer than %d characters", MAX_LINE);
			goto out;
		}
		p->L[p->nl].no = p->nl + 1;
		p->L[p->nl].s = trim(s);
		p->nl++;
	}
	while (p->nl > 0 && !p->L[p->nl - 1].s[0])
		p->nl--; /* trailing blank lines */

	if (!parse_header(p) && !parse_init(p) && !parse_program(p) && !parse_condition(p))
		rc = 0;
out:
	free(buf);
	free(p->L);
	return rc;
}

int lit_parse_file(const char *path, struct lit_test *t, char *err, int errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: cannot open", path);
		return -1;
	}
	enum { CAP = 64 * 1024 };
	char *text = malloc(CAP);
	size_t n = text ? fread(text, 1, CAP - 1, f) : 0;
	bool big = text && !feof(f);
	fclose(f);
	int rc = -1;
	if (!text)
		snprintf(err, errlen, "%s: out of memory", path);
	else if (big)
		snprintf(err, errlen, "%s: file too large", path);
	else if (text[n] = 0, strlen(text) != n)
		snprintf(err, errlen, "%s: NUL byte in file", path);
	else
		rc = lit_parse(path, text, t, err, errlen);
	free(text);
	return rc;
}

/* ---- evaluation ---- */

void lit_final_regs(const struct lit_test *t,
		    const uint64_t load_val[LIT_MAX_THREADS][LIT_MAX_INSNS],
		    const uint64_t loc_addr[LIT_MAX_LOCS],
		    uint64_t regs[LIT_MAX_THREADS][LIT_NREGS])
{
	for (int th = 0; th < LIT_MAX_THREADS; th++)
		for (int r = 0; r < LIT_NREGS; r++) {
			const struct lit_reg *x = &t->reg_final[th][r];
			switch (x->kind) {
			case LIT_R_CONST: regs[th][r] = x->val; break;
			case LIT_R_LOAD: regs[th][r] = load_val[th][x->load]; break;
			case LIT_R_ADDR: regs[th][r] = loc_addr[x->loc]; break;
			}
		}
}

bool lit_cond_holds(const struct lit_test *t,
		    const uint64_t regs[LIT_MAX_THREADS][LIT_NREGS],
		    const uint64_t mem[LIT_MAX_LOCS])
{
	for (int k = 0; k < t->nterms; k++) {
		const struct lit_term *x = &t->term[k];
		uint64_t v = x->thread < 0 ? mem[x->reg] : regs[x->thread][x->reg];
		if (v != x->val)
			return false;
	}
	return true;
}

/* ---- names and dump ---- */

const char *lit_order_name(enum lit_order o)
{
	static const char *n[] = {"plain", "acq", "acqpc", "rel"};
	return n[o];
}

const char *lit_fence_name(enum lit_fence f)
{
	static const char *n[] = {"DMB.SY", "DMB.LD", "DMB.ST", "ISB"};
	return n[f];
}

static void dump_mask(FILE *f, const char *what, uint32_t m)
{
	if (!m)
		return;
	fprintf(f, " %s={", what);
	const char *sep = "";
	for (int i = 0; i < 32; i++)
		if (m & (1u << i)) {
			fprintf(f, "%s%d", sep, i);
			sep = ",";
		}
	fprintf(f, "}");
}

void lit_dump(const struct lit_test *t, void *file)
{
	FILE *f = file;
	static const char *verd[] = {"?", "Allowed", "Forbidden"};
	fprintf(f, "%s (%s, herd7 %s)\n", t->name, t->shape, verd[t->verdict]);
	for (int l = 0; l < t->nlocs; l++)
		fprintf(f, "  loc %d %s = %llu\n", l, t->loc_name[l], (unsigned long long)t->loc_init[l]);
	for (int th = 0; th < t->nthreads; th++)
		for (int i = 0; i < t->ninsns[th]; i++) {
			const struct lit_insn *in = &t->insn[th][i];
			fprintf(f, "  P%d.%d ", th, i);
			if (in->op == LIT_FENCE) {
				fprintf(f, "%s\n", lit_fence_name(in->fence));
				continue;
			}
			if (in->op == LIT_LOAD)
				fprintf(f, "R%s %s -> X%d", lit_order_name(in->order),
					t->loc_name[in->loc], in->dst);
			else if (in->val_load >= 0)
				fprintf(f, "W%s %s = value of %d", lit_order_name(in->order),
					t->loc_name[in->loc], in->val_load);
			else
				fprintf(f, "W%s %s = %llu", lit_order_name(in->order),
					t->loc_name[in->loc], (unsigned long long)in->val);
			dump_mask(f, "addr", in->addr_deps);
			dump_mask(f, "data", in->data_deps);
			dump_mask(f, "ctrl", in->ctrl_deps);
			dump_mask(f, "ctrlisb", in->ctrlisb_deps);
			fprintf(f, "\n");
		}
	static const char *q[] = {"exists", "~exists", "forall"};
	fprintf(f, "  %s", q[t->quant]);
	for (int k = 0; k < t->nterms; k++) {
		const struct lit_term *x = &t->term[k];
		if (x->thread < 0)
			fprintf(f, "%s%s=%llu", k ? " /\\ " : " ", t->loc_name[x->reg], (unsigned long long)x->val);
		else
			fprintf(f, "%s%d:X%d=%llu", k ? " /\\ " : " ", x->thread, x->reg, (unsigned long long)x->val);
	}
	fprintf(f, "\n");
}
