/* engine/script.c - the script format (see engine/script.h and
 * docs/script-format.md). */
#include "engine/script.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/violation.h"

static const char *const shape_names[BS_COUNT] = { "none", "ptes", "cont", "half" };
static const char *const prot_names[4] = { "keep", "ro", "other", "rw" };
static const char *const af_names[4] = { "read", "write", "mkwrite", "af" };

unsigned granule_cont(unsigned kb)
{
	return kb == 4 ? 16 : kb == 16 ? 128 : kb == 64 ? 32 : 0;
}

const char *instr_name(uint8_t op)
{
	switch (op) {
	case SI_READ: return "read";
	case SI_READ_LOCKED: return "read_locked";
	case SI_TOUCH: return "touch";
	case SI_GP: return "gp";
	default:
		if (op >= SI_OP && op < SI_OP + OP_COUNT)
			return op_names[op - SI_OP];
		return NULL;
	}
}

/* What arguments each opcode takes. */
enum argkind { A_NONE, A_ENTRY, A_RANGE, A_TABLE };

static enum argkind arg_kind(uint8_t op)
{
	switch (op) {
	case SI_READ: case SI_READ_LOCKED: case SI_TOUCH:
	case SI_OP + OP_FOLD: case SI_OP + OP_UNFOLD: case SI_OP + OP_YOUNG:
	case SI_OP + OP_ACCESS_FLAGS:
		return A_ENTRY;
	case SI_OP + OP_MAP: case SI_OP + OP_UNMAP: case SI_OP + OP_FLUSH_YOUNG:
	case SI_OP + OP_CLEAR_YOUNG_DIRTY: case SI_OP + OP_WRPROTECT:
		return A_RANGE;
	default:
		return A_TABLE;          /* gp, retire: no arguments */
	}
}

static unsigned flags_allowed(uint8_t op)
{
	switch (op) {
	case SI_TOUCH: return 1;
	case SI_OP + OP_MAP: return OPF_YOUNG | OPF_DIRTY | OPF_NEW_FOLIO | OPF_PROT_MASK;
	case SI_OP + OP_CLEAR_YOUNG_DIRTY: return OPF_DIRTY;
	case SI_OP + OP_ACCESS_FLAGS: return 3;
	default: return 0;
	}
}

bool instr_valid(const struct instr *in, unsigned cont, unsigned nblocks, const char **why)
{
	if (!instr_name(in->op)) {
		*why = "unknown opcode";
		return false;
	}
	if (in->flags & ~flags_allowed(in->op)) {
		*why = "flags not valid for this instruction";
		return false;
	}
	switch (arg_kind(in->op)) {
	case A_ENTRY:
		if (in->block >= nblocks) { *why = "block out of range"; return false; }
		if (in->s >= cont) { *why = "entry out of range for the granule"; return false; }
		if (in->n) { *why = "count must be 0 for a one-entry instruction"; return false; }
		return true;
	case A_RANGE:
		if (in->block >= nblocks) { *why = "block out of range"; return false; }
		if (in->s >= cont || in->n == 0 || in->n > cont - in->s) {
			*why = "entry range out of the block";
			return false;
		}
		return true;
	default:
		if (in->block || in->s || in->n) {
			*why = "this instruction takes no arguments";
			return false;
		}
		return true;
	}
}

static bool name_ok(const char *s, size_t n)
{
	if (n == 0 || n > SCRIPT_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

static int fail(struct script_error *err, size_t off, const char *fmt, ...)
{
	va_list ap;

	err->offset = off;
	va_start(ap, fmt);
	vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	va_end(ap);
	return -1;
}

/* Checks shared by both forms, once the script is read. */
static int validate(const struct script *s, struct script_error *err, size_t off)
{
	unsigned cont = granule_cont(s->granule_kb);
	const char *why;

	if (!cont)
		return fail(err, off, "granule must be 4k, 16k or 64k");
	for (unsigned b = 0; b < s->nblocks; b++) {
		if (s->block[b].shape >= BS_COUNT)
			return fail(err, off, "block %u: unknown shape %u", b, s->block[b].shape);
		if (s->block[b].flags & ~(OPF_YOUNG | OPF_DIRTY | OPF_PROT_MASK))
			return fail(err, off, "block %u: flags 0x%x not valid (young, dirty, prot)",
				    b, s->block[b].flags);
		if (s->block[b].shape == BS_NONE && s->block[b].flags)
			return fail(err, off, "block %u: an empty block has no flags", b);
	}
	if (s->expect == EXPECT_KIND(VK_NONE) || s->expect > EXPECT_KIND(VK_COUNT - 1))
		return fail(err, off, "unknown expected outcome %u", s->expect);
	for (unsigned t = 0; t < s->nthreads; t++)
		for (unsigned i = 0; i < s->ninstr[t]; i++)
			if (!instr_valid(&s->prog[t][i], cont, s->nblocks, &why))
				return fail(err, off, "thread %u instruction %u (%s): %s", t, i,
					    instr_name(s->prog[t][i].op) ? instr_name(s->prog[t][i].op) : "?",
					    why);
	for (unsigned i = 0; i < s->nsched; i++)
		if ((s->sched[i] & 7) >= s->nthreads)
			return fail(err, off, "schedule entry %u names thread %u of %u", i,
				    s->sched[i] & 7, s->nthreads);
	return 0;
}

/* ---- binary ----------------------------------------------------------- */
int script_decode(const uint8_t *buf, size_t len, struct script *s, struct script_error *err)
{
	size_t o = 0;

#define NEED(n, what) do { if (len - o < (size_t)(n)) \
	return fail(err, o, "truncated: %s needs %zu byte(s), %zu left", what, (size_t)(n), len - o); } while (0)
	memset(s, 0, sizeof(*s));
	NEED(6, "header");
	if (memcmp(buf, SCRIPT_MAGIC, 4))
		return fail(err, 0, "not a script (magic is not \"" SCRIPT_MAGIC "\")");
	if (buf[4] != SCRIPT_VERSION)
		return fail(err, 4, "version %u not supported (this build reads %u)", buf[4], SCRIPT_VERSION);
	s->granule_kb = buf[5];
	if (!granule_cont(s->granule_kb))
		return fail(err, 5, "granule %u KB (valid: 4, 16, 64)", buf[5]);
	o = 6;
	NEED(1, "variant name length");
	size_t nl = buf[o++];
	NEED(nl, "variant name");
	if (!name_ok((const char *)buf + o, nl))
		return fail(err, o - 1, "variant name: 1-%d characters of [a-z0-9_]", SCRIPT_NAME_MAX);
	memcpy(s->variant, buf + o, nl);
	o += nl;
	NEED(1, "block count");
	s->nblocks = buf[o];
	if (s->nblocks < 1 || s->nblocks > SCRIPT_MAX_BLOCKS)
		return fail(err, o, "block count %u (valid: 1-%d)", s->nblocks, SCRIPT_MAX_BLOCKS);
	o++;
	NEED(2 * s->nblocks, "block states");
	for (unsigned b = 0; b < s->nblocks; b++) {
		s->block[b].shape = buf[o++];
		s->block[b].flags = buf[o++];
	}
	NEED(2, "expect and thread count");
	s->expect = buf[o++];
	s->nthreads = buf[o];
	if (s->nthreads < 1 || s->nthreads > SCRIPT_MAX_THREADS)
		return fail(err, o, "thread count %u (valid: 1-%d)", s->nthreads, SCRIPT_MAX_THREADS);
	o++;
	for (unsigned t = 0; t < s->nthreads; t++) {
		NEED(1, "instruction count");
		s->ninstr[t] = buf[o];
		if (s->ninstr[t] > SCRIPT_MAX_INSTRS)
			return fail(err, o, "thread %u: %u instructions (at most %d)", t, s->ninstr[t],
				    SCRIPT_MAX_INSTRS);
		o++;
		NEED(SCRIPT_INSTR_BYTES * s->ninstr[t], "instructions");
		for (unsigned i = 0; i < s->ninstr[t]; i++, o += SCRIPT_INSTR_BYTES) {
			struct instr *in = &s->prog[t][i];

			in->op = buf[o];
			in->block = buf[o + 1];
			in->s = buf[o + 2];
			in->n = buf[o + 3];
			in->flags = buf[o + 4];
		}
	}
	NEED(2, "schedule length");
	s->nsched = buf[o] | (unsigned)buf[o + 1] << 8;
	if (s->nsched > SCRIPT_MAX_SCHED)
		return fail(err, o, "schedule of %u entries (at most %d)", s->nsched, SCRIPT_MAX_SCHED);
	o += 2;
	NEED(s->nsched, "schedule");
	memcpy(s->sched, buf + o, s->nsched);
	o += s->nsched;
	if (o != len)
		return fail(err, o, "%zu trailing byte(s) after the schedule", len - o);
#undef NEED
	return validate(s, err, 0);
}

size_t script_encode(const struct script *s, uint8_t *out)
{
	size_t o = 0, nl = strlen(s->variant);

	memcpy(out, SCRIPT_MAGIC, 4);
	out[4] = SCRIPT_VERSION;
	out[5] = (uint8_t)s->granule_kb;
	o = 6;
	out[o++] = (uint8_t)nl;
	memcpy(out + o, s->variant, nl);
	o += nl;
	out[o++] = (uint8_t)s->nblocks;
	for (unsigned b = 0; b < s->nblocks; b++) {
		out[o++] = s->block[b].shape;
		out[o++] = s->block[b].flags;
	}
	out[o++] = s->expect;
	out[o++] = (uint8_t)s->nthreads;
	for (unsigned t = 0; t < s->nthreads; t++) {
		out[o++] = (uint8_t)s->ninstr[t];
		for (unsigned i = 0; i < s->ninstr[t]; i++) {
			const struct instr *in = &s->prog[t][i];

			out[o++] = in->op;
			out[o++] = in->block;
			out[o++] = in->s;
			out[o++] = in->n;
			out[o++] = in->flags;
		}
	}
	out[o++] = (uint8_t)(s->nsched & 0xff);
	out[o++] = (uint8_t)(s->nsched >> 8);
	memcpy(out + o, s->sched, s->nsched);
	return o + s->nsched;
}

/* ---- text ------------------------------------------------------------- */
struct out { char *p; size_t size, len; };

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->len >= o->size)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(o->p + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
	if (o->len >= o->size)
		o->len = o->size - 1;
}

static void put_map_flags(struct out *o, unsigned f)
{
	if (f & OPF_YOUNG)
		put(o, " young");
	if (f & OPF_DIRTY)
		put(o, " dirty");
	if (f & OPF_NEW_FOLIO)
		put(o, " new");
	if (f & OPF_PROT_MASK)
		put(o, " %s", prot_names[(f & OPF_PROT_MASK) >> OPF_PROT_SHIFT]);
}

size_t script_print(const struct script *s, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	buf[0] = 0;
	put(&o, "contpte-script %d\n", SCRIPT_VERSION);
	put(&o, "granule %uk\n", s->granule_kb);
	put(&o, "variant %s\n", s->variant);
	for (unsigned b = 0; b < s->nblocks; b++) {
		put(&o, "block %u %s", b, shape_names[s->block[b].shape]);
		put_map_flags(&o, s->block[b].flags);
		put(&o, "\n");
	}
	if (s->expect == EXPECT_CLEAN)
		put(&o, "expect clean\n");
	else if (s->expect >= EXPECT_KIND(1))
		put(&o, "expect %s\n", vkind_name(s->expect - 2));
	for (unsigned t = 0; t < s->nthreads; t++) {
		put(&o, "thread %u\n", t);
		for (unsigned i = 0; i < s->ninstr[t]; i++) {
			const struct instr *in = &s->prog[t][i];

			put(&o, "  %s", instr_name(in->op));
			switch (arg_kind(in->op)) {
			case A_ENTRY: put(&o, " %u %u", in->block, in->s); break;
			case A_RANGE: put(&o, " %u %u+%u", in->block, in->s, in->n); break;
			default: break;
			}
			if (in->op == SI_TOUCH && in->flags)
				put(&o, " write");
			else if (in->op == SI_OP + OP_MAP)
				put_map_flags(&o, in->flags);
			else if (in->op == SI_OP + OP_CLEAR_YOUNG_DIRTY && in->flags)
				put(&o, " dirty");
			else if (in->op == SI_OP + OP_ACCESS_FLAGS)
				put(&o, " %s", af_names[in->flags & 3]);
			put(&o, "\n");
		}
	}
	for (unsigned i = 0; i < s->nsched; i++) {
		unsigned t = s->sched[i] & 7, r = (s->sched[i] >> 3) + 1;

		put(&o, i % 16 == 0 ? "schedule" : "");
		if (r == 1)
			put(&o, " %u", t);
		else
			put(&o, " %ux%u", t, r);
		if (i % 16 == 15 || i + 1 == s->nsched)
			put(&o, "\n");
	}
	return o.len;
}

/* Tokenise one line in place (comments start with '#'). */
static int split(char *line, char **tok, int max)
{
	int n = 0;
	char *save, *t;

	if ((t = strchr(line, '#')))
		*t = 0;
	for (t = strtok_r(line, " \t\r", &save); t && n < max; t = strtok_r(NULL, " \t\r", &save))
		tok[n++] = t;
	return t ? -1 : n;
}

static bool parse_uint(const char *t, unsigned max, unsigned *v)
{
	char *end;
	unsigned long x;

	if (!*t || *t == '-' || *t == '+')
		return false;
	x = strtoul(t, &end, 10);
	if (*end || x > max)
		return false;
	*v = (unsigned)x;
	return true;
}

static int lookup(const char *t, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(t, names[i]))
			return i;
	return -1;
}

/* young / dirty / new / a prot name, into OPF_* bits; -1 if not one. */
static int map_flag(const char *t, bool allow_new)
{
	int p;

	if (!strcmp(t, "young"))
		return OPF_YOUNG;
	if (!strcmp(t, "dirty"))
		return OPF_DIRTY;
	if (allow_new && !strcmp(t, "new"))
		return OPF_NEW_FOLIO;
	if ((p = lookup(t, prot_names, 4)) > 0)
		return p << OPF_PROT_SHIFT;
	return -1;
}

static uint8_t op_by_text(const char *t)
{
	for (unsigned op = 1; op < SI_OP + OP_COUNT; op++)
		if (instr_name((uint8_t)op) && !strcmp(t, instr_name((uint8_t)op)))
			return (uint8_t)op;
	return 0;
}

int script_parse(const char *text, struct script *s, struct script_error *err)
{
	char line[1024], *tok[64];
	const char *p = text;
	size_t lineno = 0;
	int cur = -1;
	bool header = false, have_granule = false, have_variant = false;

	memset(s, 0, sizeof(*s));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		int n;

		lineno++;
		if (l >= sizeof(line))
			return fail(err, lineno, "line longer than %zu characters", sizeof(line) - 1);
		memcpy(line, p, l);
		line[l] = 0;
		p += l + (nl ? 1 : 0);
		if (memchr(line, 0, l))
			return fail(err, lineno, "NUL byte in text");
		if ((n = split(line, tok, 64)) < 0)
			return fail(err, lineno, "too many words on one line");
		if (n == 0)
			continue;
		if (!header) {
			unsigned v;

			if (n != 2 || strcmp(tok[0], "contpte-script") || !parse_uint(tok[1], 255, &v))
				return fail(err, lineno, "first line must be \"contpte-script %d\"", SCRIPT_VERSION);
			if (v != SCRIPT_VERSION)
				return fail(err, lineno, "version %u not supported (this build reads %d)", v, SCRIPT_VERSION);
			header = true;
			continue;
		}
		if (!strcmp(tok[0], "granule")) {
			unsigned kb;
			char *end;

			if (n != 2 || (kb = (unsigned)strtoul(tok[1], &end, 10), strcmp(end, "k") && strcmp(end, "K")) ||
			    !granule_cont(kb))
				return fail(err, lineno, "granule takes one of 4k, 16k, 64k");
			s->granule_kb = kb;
			have_granule = true;
		} else if (!strcmp(tok[0], "variant")) {
			if (n != 2 || !name_ok(tok[1], strlen(tok[1])))
				return fail(err, lineno, "variant takes one name of 1-%d characters [a-z0-9_]", SCRIPT_NAME_MAX);
			strcpy(s->variant, tok[1]);
			have_variant = true;
		} else if (!strcmp(tok[0], "block")) {
			unsigned b;
			int shape;

			if (cur >= 0)
				return fail(err, lineno, "block lines come before the threads");
			if (n < 3 || !parse_uint(tok[1], SCRIPT_MAX_BLOCKS - 1, &b) || b != s->nblocks)
				return fail(err, lineno, "expected \"block %u SHAPE [young] [dirty] [ro|other|rw]\" (blocks numbered from 0, at most %d)",
					    s->nblocks, SCRIPT_MAX_BLOCKS);
			if ((shape = lookup(tok[2], shape_names, BS_COUNT)) < 0)
				return fail(err, lineno, "unknown block shape '%s' (none, ptes, cont, half)", tok[2]);
			s->block[b].shape = (uint8_t)shape;
			for (int i = 3; i < n; i++) {
				int f = map_flag(tok[i], false);

				if (f < 0 || (s->block[b].flags & f) ||
				    ((f & OPF_PROT_MASK) && (s->block[b].flags & OPF_PROT_MASK)))
					return fail(err, lineno, "unknown or repeated block flag '%s'", tok[i]);
				s->block[b].flags |= (uint8_t)f;
			}
			s->nblocks++;
		} else if (!strcmp(tok[0], "expect")) {
			enum vkind k;

			if (n != 2)
				return fail(err, lineno, "expect takes clean or one violation kind");
			if (!strcmp(tok[1], "clean"))
				s->expect = EXPECT_CLEAN;
			else if ((k = vkind_by_name(tok[1])) != VK_NONE)
				s->expect = (uint8_t)EXPECT_KIND(k);
			else
				return fail(err, lineno, "unknown outcome '%s' (clean, %s)", tok[1], vkind_names());
		} else if (!strcmp(tok[0], "thread")) {
			unsigned t;

			if (n != 2 || !parse_uint(tok[1], SCRIPT_MAX_THREADS - 1, &t) || t != s->nthreads)
				return fail(err, lineno, "expected \"thread %u\" (threads numbered from 0, at most %d)",
					    s->nthreads, SCRIPT_MAX_THREADS);
			if (s->nsched)
				return fail(err, lineno, "threads come before the schedule");
			cur = (int)t;
			s->nthreads++;
		} else if (!strcmp(tok[0], "schedule")) {
			for (int i = 1; i < n; i++) {
				unsigned t, r = 1;
				char *x = strchr(tok[i], 'x');

				if (x)
					*x = 0;
				if (!parse_uint(tok[i], 7, &t) || (x && !parse_uint(x + 1, 32, &r)) || r == 0)
					return fail(err, lineno, "schedule entries are THREAD or THREADxRUN (run 1-32)");
				if (s->nsched == SCRIPT_MAX_SCHED)
					return fail(err, lineno, "schedule longer than %d entries", SCRIPT_MAX_SCHED);
				s->sched[s->nsched++] = (uint8_t)(t | (r - 1) << 3);
			}
		} else {
			uint8_t op = op_by_text(tok[0]);
			struct instr *in;
			int i = 1;

			if (!op)
				return fail(err, lineno, "unknown keyword or instruction '%s'", tok[0]);
			if (cur < 0 || s->nsched)
				return fail(err, lineno, "instruction '%s' outside a thread section", tok[0]);
			if (s->ninstr[cur] == SCRIPT_MAX_INSTRS)
				return fail(err, lineno, "thread %d has more than %d instructions", cur, SCRIPT_MAX_INSTRS);
			in = &s->prog[cur][s->ninstr[cur]];
			memset(in, 0, sizeof(*in));
			in->op = op;
			switch (arg_kind(op)) {
			case A_ENTRY: {
				unsigned b, e;

				if (n < 3 || !parse_uint(tok[1], 255, &b) || !parse_uint(tok[2], 255, &e))
					return fail(err, lineno, "%s takes BLOCK ENTRY", tok[0]);
				in->block = (uint8_t)b;
				in->s = (uint8_t)e;
				i = 3;
				break;
			}
			case A_RANGE: {
				unsigned b, e, c;
				char *plus = n >= 3 ? strchr(tok[2], '+') : NULL;

				if (plus)
					*plus = 0;
				if (n < 3 || !plus || !parse_uint(tok[1], 255, &b) || !parse_uint(tok[2], 255, &e) ||
				    !parse_uint(plus + 1, 255, &c))
					return fail(err, lineno, "%s takes BLOCK FIRST+COUNT", tok[0]);
				in->block = (uint8_t)b;
				in->s = (uint8_t)e;
				in->n = (uint8_t)c;
				i = 3;
				break;
			}
			default:
				break;
			}
			for (; i < n; i++) {
				int f = -1;

				if (op == SI_TOUCH && !strcmp(tok[i], "write"))
					f = 1;
				else if (op == SI_OP + OP_MAP)
					f = map_flag(tok[i], true);
				else if (op == SI_OP + OP_CLEAR_YOUNG_DIRTY && !strcmp(tok[i], "dirty"))
					f = OPF_DIRTY;
				else if (op == SI_OP + OP_ACCESS_FLAGS && !(in->flags & 0x80))
					f = lookup(tok[i], af_names, 4), f = f < 0 ? -1 : f | 0x80;
				if (f < 0 || ((in->flags & 0x7f) & f & 0x7f) ||
				    (op == SI_OP + OP_MAP && (f & OPF_PROT_MASK) && (in->flags & OPF_PROT_MASK)))
					return fail(err, lineno, "unknown or repeated argument '%s' for %s", tok[i], tok[0]);
				in->flags |= (uint8_t)f;
			}
			if (op == SI_OP + OP_ACCESS_FLAGS) {
				if (!(in->flags & 0x80))
					return fail(err, lineno, "access_flags takes BLOCK ENTRY read|write|mkwrite|af");
				in->flags &= 3;
			}
			s->ninstr[cur]++;
		}
	}
	if (!header)
		return fail(err, lineno, "empty script (first line must be \"contpte-script %d\")", SCRIPT_VERSION);
	if (!have_granule || !have_variant || !s->nblocks || !s->nthreads)
		return fail(err, lineno, "a script needs granule, variant, at least one block and one thread");
	return validate(s, err, lineno);
}

int script_load(const uint8_t *buf, size_t len, struct script *s, struct script_error *err)
{
	char *text;
	int rc;

	if (len >= 4 && !memcmp(buf, SCRIPT_MAGIC, 4))
		return script_decode(buf, len, s, err);
	if (len > SCRIPT_TEXT_MAX)
		return fail(err, 0, "text script larger than %d bytes", SCRIPT_TEXT_MAX);
	if (!(text = malloc(len + 1)))
		return fail(err, 0, "out of memory");
	memcpy(text, buf, len);
	text[len] = 0;
	if (strlen(text) != len)
		rc = fail(err, strlen(text), "NUL byte in a text script (not binary: no \"" SCRIPT_MAGIC "\" magic)");
	else
		rc = script_parse(text, s, err);
	free(text);
	return rc;
}
