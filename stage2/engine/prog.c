/* stage2/engine/prog.c - stage-2 programs: text form and generator (see
 * stage2/engine/prog.h). */
#include "stage2/engine/prog.h"
#include "stage2/runtime/internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "engine/memory.h"

static const char *const op_names[S2I_COUNT] = {
	[S2I_ACCESS] = "access", [S2I_FAULT] = "fault", [S2I_PERM] = "perm", [S2I_MKYOUNG] = "mkyoung",
	[S2I_REMAP] = "remap", [S2I_UNMAP] = "unmap", [S2I_WRPROTECT] = "wrprotect", [S2I_SPLIT] = "split",
	[S2I_FLUSH] = "flush", [S2I_LOG_OFF] = "log-off", [S2I_MIGRATE] = "migrate", [S2I_AGE] = "age",
	[S2I_TEST_AGE] = "test-age", [S2I_GP] = "gp",
};
static const char *const setup_names[S2S_COUNT] = {
	[S2S_MAP_BLOCK] = "map-block", [S2S_MAP_PAGE] = "map-page", [S2S_SPLIT] = "split",
	[S2S_LOG] = "log", [S2S_LOG_OFF] = "log-off",
};

const char *s2p_op_name(unsigned op) { return op < S2I_COUNT ? op_names[op] : "?"; }

/* what an op takes (s2p_op_args, prog.h) */
static const char *const op_args[S2I_COUNT] = {
	[S2I_ACCESS] = "aw", [S2I_FAULT] = "aw", [S2I_PERM] = "a", [S2I_MKYOUNG] = "a", [S2I_REMAP] = "a",
	[S2I_UNMAP] = "as", [S2I_WRPROTECT] = "as", [S2I_SPLIT] = "as", [S2I_FLUSH] = "as",
	[S2I_LOG_OFF] = "u", [S2I_MIGRATE] = "u", [S2I_AGE] = "as", [S2I_TEST_AGE] = "as", [S2I_GP] = "",
};

const char *s2p_op_args(unsigned op) { return op < S2I_COUNT ? op_args[op] : ""; }

static int fail(char *err, size_t errlen, unsigned line, const char *fmt, ...)
{
	va_list ap;
	size_t n = (size_t)snprintf(err, errlen, "line %u: ", line);

	va_start(ap, fmt);
	if (n < errlen)
		vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool parse_addr(const char *w, struct s2p_addr *a)
{
	unsigned u, pg;

	if (sscanf(w, "u%u+%u", &u, &pg) != 2 || u >= S2_MAX_UNITS)
		return false;
	a->unit = (uint8_t)u;
	a->page = pg;
	return true;
}

static bool parse_unit(const char *w, struct s2p_addr *a)
{
	unsigned u;

	if (sscanf(w, "u%u", &u) != 1 || u >= S2_MAX_UNITS)
		return false;
	a->unit = (uint8_t)u;
	a->page = 0;
	return true;
}

static bool parse_size(const char *w, uint32_t *n)
{
	char *end;

	if (!strcmp(w, "block")) {
		*n = S2P_SIZE_BLOCK;
		return true;
	}
	if (!strcmp(w, "all")) {
		*n = S2P_SIZE_ALL;
		return true;
	}
	*n = (uint32_t)strtoul(w, &end, 10);
	return *n > 0 && !strcmp(end, "p");
}


static unsigned hex_bytes(char *rest, uint8_t *out, unsigned max)
{
	unsigned n = 0;

	for (char *w = strtok(rest, " \t"); w && n < max; w = strtok(NULL, " \t"))
		out[n++] = (uint8_t)strtoul(w, NULL, 16);
	return n;
}

int s2p_parse(const char *text, struct s2_prog *p, char *err, size_t errlen)
{
	char *copy = strdup(text), *save = NULL;
	unsigned line = 0;
	bool header = false;

	memset(p, 0, sizeof(*p));
	p->granule_kb = 4;
	p->age_rcu = p->hw_af = p->fwb = p->tlb_range = true;
	p->tlb = 4;
	p->blocks = 2;
	p->expect = -1;
	if (!copy)
		return fail(err, errlen, 0, "out of memory");
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *w[8] = { 0 }, *rest, *key;
		unsigned nw = 0;

		line++;
		while (isspace((unsigned char)*l))
			l++;
		if (!*l || *l == '#')
			continue;
		key = l;
		rest = strpbrk(l, " \t");
		if (rest)
			*rest++ = 0;
		if (!strcmp(key, "stage2")) {
			header = true;
			continue;
		}
		if (!header) {
			free(copy);
			return fail(err, errlen, line, "a stage-2 script begins with 'stage2 script'");
		}
		if (!strcmp(key, "schedule") || !strcmp(key, "choices")) {
			if (rest) {
				if (!strcmp(key, "schedule"))
					p->nsched = hex_bytes(rest, p->sched, S2P_SCHED);
				else
					p->nchoices = hex_bytes(rest, p->choices, S2P_CHOICES);
			}
			continue;
		}
		if (!strcmp(key, "tree")) {
			snprintf(p->tree, sizeof(p->tree), "%s", rest ? rest : "");
			continue;
		}
		for (char *t = rest ? strtok(rest, " \t") : NULL; t && nw < 8; t = strtok(NULL, " \t"))
			w[nw++] = t;
#define BAD(...) do { free(copy); return fail(err, errlen, line, __VA_ARGS__); } while (0)
		if (!strcmp(key, "granule")) {
			if (nw != 1 || (strcmp(w[0], "4k") && strcmp(w[0], "16k") && strcmp(w[0], "64k")))
				BAD("granule: 4k, 16k or 64k");
			p->granule_kb = (unsigned)atoi(w[0]);
		} else if (!strcmp(key, "memory")) {
			if (nw != 1 || mem_model_by_name(w[0]) == MEM_MODEL_COUNT)
				BAD("memory: sc or arm");
			p->memory = (uint8_t)mem_model_by_name(w[0]);
		} else if (!strcmp(key, "age-lock")) {
			if (nw == 1 && !strcmp(w[0], "write"))
				p->age_lock = S2_AGE_WRITE;
			else if (nw == 1 && !strcmp(w[0], "read"))
				p->age_lock = S2_AGE_READ;
			else if (nw == 1 && !strcmp(w[0], "none"))
				p->age_lock = S2_AGE_NONE;
			else
				BAD("age-lock: write, read or none");
		} else if (!strcmp(key, "age-rcu") || !strcmp(key, "hw-af") || !strcmp(key, "fwb") ||
			   !strcmp(key, "tlb-range")) {
			bool *b = !strcmp(key, "age-rcu") ? &p->age_rcu : !strcmp(key, "hw-af") ? &p->hw_af :
				  !strcmp(key, "fwb") ? &p->fwb : &p->tlb_range;

			if (nw != 1 || !s2_parse_on_off(w[0], b))
				BAD("%s: on or off", key);
		} else if (!strcmp(key, "tlb-hints")) {
			bool on;

			if (nw != 1 || !s2_parse_on_off(w[0], &on))
				BAD("tlb-hints: on or off");
			p->ttl_ignored = !on;
		} else if (!strcmp(key, "tlb")) {
			if (nw != 1 || (p->tlb = (unsigned)atoi(w[0])) > 64)
				BAD("tlb: 0 to 64 entries");
		} else if (!strcmp(key, "reuse")) {
			if (nw == 1 && !strcmp(w[0], "quarantine"))
				p->reuse = S2_REUSE_QUARANTINE;
			else if (nw == 1 && !strcmp(w[0], "immediate"))
				p->reuse = S2_REUSE_IMMEDIATE;
			else if (nw == 1 && !strcmp(w[0], "never"))
				p->reuse = S2_REUSE_NEVER;
			else
				BAD("reuse: quarantine, immediate or never");
		} else if (!strcmp(key, "blocks")) {
			if (nw != 1 || (p->blocks = (unsigned)atoi(w[0])) < 1 || p->blocks > S2_MAX_UNITS)
				BAD("blocks: 1 to %d", S2_MAX_UNITS);
		} else if (!strcmp(key, "setup")) {
			struct s2p_setup_op *s = &p->setup[p->nsetup];
			int k = -1;

			if (p->nsetup == S2P_SETUP)
				BAD("at most %d setup lines", S2P_SETUP);
			for (int i = 0; i < S2S_COUNT && nw >= 1; i++)
				if (!strcmp(w[0], setup_names[i]))
					k = i;
			if (k < 0 || nw != 2 || !(k == S2S_MAP_PAGE ? parse_addr(w[1], &s->at) : parse_unit(w[1], &s->at)))
				BAD("setup: map-block U, map-page u<U>+<P>, split U, log U or log-off U");
			s->op = (uint8_t)k;
			p->nsetup++;
		} else if (!strcmp(key, "thread")) {
			unsigned tid = nw ? (unsigned)atoi(w[0]) : S2P_THREADS;
			struct s2p_instr *in;
			const char *args;
			unsigned a = 2;
			int k = -1;

			if (tid >= S2P_THREADS || nw < 2)
				BAD("thread: thread 0 to %d, then an op", S2P_THREADS - 1);
			if (p->ninstr[tid] == S2P_INSTRS)
				BAD("at most %d instructions a thread", S2P_INSTRS);
			for (int i = 0; i < S2I_COUNT; i++)
				if (!strcmp(w[1], op_names[i]))
					k = i;
			if (k < 0)
				BAD("thread: unknown op '%s'", w[1]);
			in = &p->prog[tid][p->ninstr[tid]];
			memset(in, 0, sizeof(*in));
			in->op = (uint8_t)k;
			for (args = op_args[k]; *args; args++, a++) {
				bool ok = a < nw;

				if (ok && *args == 'a')
					ok = parse_addr(w[a], &in->at);
				else if (ok && *args == 'u')
					ok = parse_unit(w[a], &in->at);
				else if (ok && *args == 's')
					ok = parse_size(w[a], &in->npages);
				else if (ok && *args == 'w')
					ok = (in->write = !strcmp(w[a], "w")) || !strcmp(w[a], "r");
				if (!ok)
					BAD("%s takes %s", op_names[k],
					    !strcmp(op_args[k], "aw") ? "an address (u<U>+<P>) and r or w" :
					    !strcmp(op_args[k], "as") ? "an address (u<U>+<P>) and a size (Np, block, all)" :
					    !strcmp(op_args[k], "u") ? "a unit (u<U>)" : "an address (u<U>+<P>)");
			}
			if (a < nw)
				BAD("%s: too many arguments", op_names[k]);
			p->ninstr[tid]++;
			if (tid + 1 > p->nthreads)
				p->nthreads = tid + 1;
		} else if (!strcmp(key, "expect")) {
			if (nw != 1)
				BAD("expect: a violation kind, or clean");
			if (!strcmp(w[0], "clean"))
				p->expect = 0;
			else if ((p->expect = (int)s2_vkind_by_name(w[0])) == S2V_NONE)
				BAD("expect: '%s' is not a violation kind", w[0]);
		} else {
			BAD("unknown line '%s'", key);
		}
#undef BAD
	}
	free(copy);
	if (!header)
		return fail(err, errlen, line, "not a stage-2 script (no 'stage2 script' line)");
	if (!p->nthreads)
		return fail(err, errlen, line, "no thread instructions");
	return 0;
}

static size_t put(char *out, size_t size, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (n >= size)
		return n;
	va_start(ap, fmt);
	n += (size_t)vsnprintf(out + n, size - n, fmt, ap);
	va_end(ap);
	return n;
}

static size_t put_size(char *out, size_t size, size_t n, uint32_t np)
{
	if (np == S2P_SIZE_BLOCK)
		return put(out, size, n, " block");
	if (np == S2P_SIZE_ALL)
		return put(out, size, n, " all");
	return put(out, size, n, " %up", np);
}

size_t s2p_print(const struct s2_prog *p, char *out, size_t size)
{
	static const char *const lock[] = { "write", "read", "none" };
	static const char *const reuse[] = { "quarantine", "immediate", "never" };
	size_t n = 0;

	n = put(out, size, n, "stage2 script\n");
	if (p->tree[0])
		n = put(out, size, n, "tree %s\n", p->tree);
	n = put(out, size, n, "granule %uk\nmemory %s\nage-lock %s\nage-rcu %s\nhw-af %s\ntlb %u\nfwb %s\n"
		"tlb-range %s\nreuse %s\nblocks %u\n", p->granule_kb, mem_model_names[p->memory],
		lock[p->age_lock], p->age_rcu ? "on" : "off", p->hw_af ? "on" : "off", p->tlb,
		p->fwb ? "on" : "off", p->tlb_range ? "on" : "off", reuse[p->reuse], p->blocks);
	if (p->ttl_ignored)
		n = put(out, size, n, "tlb-hints off\n");
	for (unsigned i = 0; i < p->nsetup; i++) {
		const struct s2p_setup_op *s = &p->setup[i];

		if (s->op == S2S_MAP_PAGE)
			n = put(out, size, n, "setup %s u%u+%u\n", setup_names[s->op], s->at.unit, s->at.page);
		else
			n = put(out, size, n, "setup %s u%u\n", setup_names[s->op], s->at.unit);
	}
	for (unsigned t = 0; t < p->nthreads; t++)
		for (unsigned i = 0; i < p->ninstr[t]; i++) {
			const struct s2p_instr *in = &p->prog[t][i];

			n = put(out, size, n, "thread %u %s", t, op_names[in->op]);
			for (const char *a = op_args[in->op]; *a; a++) {
				if (*a == 'a')
					n = put(out, size, n, " u%u+%u", in->at.unit, in->at.page);
				else if (*a == 'u')
					n = put(out, size, n, " u%u", in->at.unit);
				else if (*a == 's')
					n = put_size(out, size, n, in->npages);
				else
					n = put(out, size, n, " %s", in->write ? "w" : "r");
			}
			n = put(out, size, n, "\n");
		}
	if (p->expect >= 0)
		n = put(out, size, n, "expect %s\n", p->expect ? s2_vkind_name((enum s2_vkind)p->expect) : "clean");
	if (p->nsched) {
		n = put(out, size, n, "schedule");
		for (unsigned i = 0; i < p->nsched; i++)
			n = put(out, size, n, " %02x", p->sched[i]);
		n = put(out, size, n, "\n");
	}
	if (p->nchoices) {
		n = put(out, size, n, "choices");
		for (unsigned i = 0; i < p->nchoices; i++)
			n = put(out, size, n, " %02x", p->choices[i]);
		n = put(out, size, n, "\n");
	}
	return n;
}

/* ---- the command lines' configuration flags ---------------------------------- */

/* The value of --name=value, or NULL if arg is not that flag. */
static const char *flag_value(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg, name, n) && arg[n] == '=' ? arg + n + 1 : NULL;
}

int s2p_config_flag(const char *a, struct s2_prog *p)
{
	const char *v;

	if ((v = flag_value(a, "--memory"))) {
		if (mem_model_by_name(v) == MEM_MODEL_COUNT)
			return -1;
		p->memory = (uint8_t)mem_model_by_name(v);
	} else if ((v = flag_value(a, "--age-lock"))) {
		if (!strcmp(v, "write"))
			p->age_lock = S2_AGE_WRITE;
		else if (!strcmp(v, "read"))
			p->age_lock = S2_AGE_READ;
		else if (!strcmp(v, "none"))
			p->age_lock = S2_AGE_NONE;
		else
			return -1;
	} else if ((v = flag_value(a, "--age-rcu"))) {
		return s2_parse_on_off(v, &p->age_rcu) ? 1 : -1;
	} else if ((v = flag_value(a, "--hw-af"))) {
		return s2_parse_on_off(v, &p->hw_af) ? 1 : -1;
	} else if ((v = flag_value(a, "--fwb"))) {
		return s2_parse_on_off(v, &p->fwb) ? 1 : -1;
	} else if ((v = flag_value(a, "--tlb-range"))) {
		return s2_parse_on_off(v, &p->tlb_range) ? 1 : -1;
	} else if ((v = flag_value(a, "--tlb-hints"))) {
		bool on;

		if (!s2_parse_on_off(v, &on))
			return -1;
		p->ttl_ignored = !on;
		return 1;
	} else if ((v = flag_value(a, "--tlb"))) {
		if ((p->tlb = (unsigned)atoi(v)) > 64)
			return -1;
	} else if ((v = flag_value(a, "--reuse"))) {
		if (!strcmp(v, "quarantine"))
			p->reuse = S2_REUSE_QUARANTINE;
		else if (!strcmp(v, "immediate"))
			p->reuse = S2_REUSE_IMMEDIATE;
		else if (!strcmp(v, "never"))
			p->reuse = S2_REUSE_NEVER;
		else
			return -1;
	} else if ((v = flag_value(a, "--age-pages"))) {
		p->age_pages = (unsigned)atoi(v);
	} else if ((v = flag_value(a, "--blocks"))) {
		if ((p->blocks = (unsigned)atoi(v)) < 1 || p->blocks > S2_MAX_UNITS)
			return -1;
	} else {
		return 0;
	}
	return 1;
}

/* ---- the generator ---------------------------------------------------------- */

unsigned s2p_unit_pages(unsigned granule_kb)
{
	unsigned ps = granule_kb == 4 ? 12 : granule_kb == 16 ? 14 : 16;

	return 1u << (ps - 3);
}

static struct s2p_addr near(uint64_t *r, unsigned units, unsigned upages)
{
	struct s2p_addr a;

	/* mostly unit 0 and a few pages at its start: ops meet there */
	a.unit = (uint8_t)(rng_below(r, 4) ? 0 : rng_below(r, units));
	switch (rng_below(r, 8)) {
	case 0:
		a.page = rng_below(r, upages);
		break;
	case 1:         /* the unit's last pages: a range from there goes on
			 * into the next unit's table */
		a.page = upages - 1 - rng_below(r, 4);
		break;
	default:
		a.page = rng_below(r, 4);
	}
	return a;
}

static uint32_t a_size(uint64_t *r)
{
	unsigned k = rng_below(r, 6);

	return k < 2 ? S2P_SIZE_BLOCK : k == 2 ? S2P_SIZE_ALL : 1 + rng_below(r, 4);
}

void s2p_generate(struct s2_prog *p, const struct s2_prog *base, uint64_t seed)
{
	uint64_t r = seed * 0x9e3779b97f4a7c15ULL + 1;
	unsigned up = s2p_unit_pages(base->granule_kb), units = base->blocks;
	/* per thread role: the ops it draws from */
	static const uint8_t vcpu_ops[] = { S2I_ACCESS, S2I_ACCESS, S2I_ACCESS, S2I_FAULT, S2I_MKYOUNG };
	static const uint8_t fault_ops[] = { S2I_FAULT, S2I_PERM, S2I_MKYOUNG, S2I_REMAP, S2I_ACCESS };
	static const uint8_t excl_ops[] = { S2I_UNMAP, S2I_WRPROTECT, S2I_SPLIT, S2I_FLUSH, S2I_LOG_OFF,
					    S2I_MIGRATE, S2I_GP };
	static const uint8_t age_ops[] = { S2I_AGE, S2I_AGE, S2I_TEST_AGE, S2I_GP };
	static const struct { const uint8_t *ops; unsigned n; } roles[S2P_THREADS] = {
		{ vcpu_ops, sizeof(vcpu_ops) }, { fault_ops, sizeof(fault_ops) },
		{ excl_ops, sizeof(excl_ops) }, { age_ops, sizeof(age_ops) },
	};

	*p = *base;
	p->nsetup = 0;
	p->nsched = p->nchoices = 0;
	p->expect = -1;
	/* the table before the run: each unit a block, pages, a split block,
	 * or logged (write-protected, faults map pages) */
	for (unsigned u = 0; u < units && p->nsetup + 2 <= S2P_SETUP; u++) {
		struct s2p_addr a = { (uint8_t)u, 0 };

		switch (rng_below(&r, 6)) {
		case 0:
			break;
		case 5:
			/* logged, a page at each end: tables of few entries,
			 * emptied (and freed) by a short unmap */
			p->setup[p->nsetup++] = (struct s2p_setup_op){ S2S_LOG, a };
			a.page = up - 1;
			p->setup[p->nsetup++] = (struct s2p_setup_op){ S2S_MAP_PAGE, a };
			if (p->nsetup < S2P_SETUP) {
				a.page = 0;
				p->setup[p->nsetup++] = (struct s2p_setup_op){ S2S_MAP_PAGE, a };
			}
			break;
		case 1:
			p->setup[p->nsetup++] = (struct s2p_setup_op){ S2S_MAP_BLOCK, a };
			break;
		case 2:
			for (unsigned k = 0; k < 3; k++) {
				a.page = rng_below(&r, 4);
				p->setup[p->nsetup++] = (struct s2p_setup_op){ S2S_MAP_PAGE, a };
				if (p->nsetup == S2P_SETUP)
					break;
			}
			break;
		case 3:
			p->setup[p->nsetup++] = (struct s2p_setup_op){ S2S_MAP_BLOCK, a };
			p->setup[p->nsetup++] = (struct s2p_setup_op){ S2S_SPLIT, a };
			break;
		default:
			p->setup[p->nsetup++] = (struct s2p_setup_op){ S2S_MAP_BLOCK, a };
			p->setup[p->nsetup++] = (struct s2p_setup_op){ S2S_LOG, a };
			break;
		}
	}
	p->nthreads = S2P_THREADS;
	for (unsigned t = 0; t < S2P_THREADS; t++) {
		p->ninstr[t] = 1 + rng_below(&r, 4);
		for (unsigned i = 0; i < p->ninstr[t]; i++) {
			struct s2p_instr *in = &p->prog[t][i];

			memset(in, 0, sizeof(*in));
			in->op = roles[t].ops[rng_below(&r, roles[t].n)];
			in->at = near(&r, units, up);
			in->write = rng_below(&r, 2);
			in->npages = a_size(&r);
		}
	}
	s2p_cap_aging(p);
}

void s2p_cap_aging(struct s2_prog *p)
{
	for (unsigned t = 0; p->age_pages && t < p->nthreads; t++)
		for (unsigned i = 0; i < p->ninstr[t]; i++) {
			struct s2p_instr *in = &p->prog[t][i];

			if ((in->op == S2I_AGE || in->op == S2I_TEST_AGE) &&
			    (in->npages == S2P_SIZE_BLOCK || in->npages == S2P_SIZE_ALL || in->npages > p->age_pages))
				in->npages = p->age_pages;
		}
}
