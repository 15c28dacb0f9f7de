/*
 * stage2/runtime/finding.c - a stage-2 violation's signature and the known
 * bugs (stage2/runtime/finding.h). The known list is fixed before any
 * thread starts; its counts are atomics, so every reporting thread notes
 * without a lock.
 */
#include "stage2/runtime/finding.h"

#include <string.h>

#include "core/signature.h"
#include "stage2/runtime/agents.h"

#define S2_KNOWN_MAX 64
/* the ops that are no op of s2_ops */
static const char *const roles[] = { "hw", "setup", "teardown", "rcu_free", "end", NULL };

struct known {
	enum s2_vkind kind;
	char op[SIG_PART_MAX], fn[SIG_PART_MAX];        /* "*": any */
	_Atomic uint64_t count;
	double first_s;
};
static struct known known[S2_KNOWN_MAX];
static unsigned nknown;
static _Atomic uint64_t known_total;

const char *s2_finding_op(const struct s2_thread *t)
{
	if (t->hw)
		return "hw";
	return t->op_name ? t->op_name : "end";
}

const char *s2_finding_fn(const struct s2_thread *t)
{
	return !t->hw && t->op_fn ? t->op_fn : "-";
}

const char *s2_signature(const struct s2_violation *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s:%s", s2_vkind_name(v->kind), v->op[0] ? v->op : "end", v->fn[0] ? v->fn : "-");
	return buf;
}

/* The ops a known signature may name: s2_ops's, then the roles. */
static const char *const *op_names(void)
{
	static const char *names[S2_OP_COUNT + 8];

	if (!names[0]) {
		unsigned n = 0;

		for (int i = 0; i < S2_OP_COUNT; i++)
			names[n++] = s2_ops[i].name;
		for (const char *const *r = roles; *r; r++)
			names[n++] = *r;
	}
	return names;
}

static int known_one(const char *sig, char *err, size_t errlen)
{
	char kind[SIG_PART_MAX], op[SIG_PART_MAX], fn[SIG_PART_MAX];
	struct known *k;

	if (sig_split(sig, kind, op, fn, "use_after_free:age:kvm_pgtable_stage2_test_clear_young", err, errlen))
		return -1;
	if (nknown == S2_KNOWN_MAX) {
		snprintf(err, errlen, "more than %d known signatures", S2_KNOWN_MAX);
		return -1;
	}
	k = &known[nknown];
	if ((k->kind = s2_vkind_by_name(kind)) == S2V_NONE) {
		snprintf(err, errlen, "known signature '%s': '%s' is not a stage-2 violation kind", sig, kind);
		return -1;
	}
	if (sig_check_op_fn(sig, op, fn, op_names(), err, errlen))
		return -1;
	snprintf(k->op, sizeof(k->op), "%s", op);
	snprintf(k->fn, sizeof(k->fn), "%s", fn);
	atomic_store(&k->count, 0);
	nknown++;
	return 0;
}

int s2_known_add(const char *list, char *err, size_t errlen)
{
	return sig_list_each(list, known_one, err, errlen);
}

int s2_known_file(const char *path, char *err, size_t errlen)
{
	return sig_file_each(path, known_one, err, errlen);
}

unsigned s2_known_count(void) { return nknown; }

bool s2_known_note(enum s2_vkind kind, const char *op, const char *fn, double at_s)
{
	for (unsigned i = 0; i < nknown; i++) {
		struct known *k = &known[i];

		if (k->kind == kind && sig_part_matches(k->op, op) && sig_part_matches(k->fn, fn)) {
			if (atomic_fetch_add(&k->count, 1) == 0)
				k->first_s = at_s;
			atomic_fetch_add(&known_total, 1);
			return true;
		}
	}
	return false;
}

uint64_t s2_known_total(void) { return atomic_load(&known_total); }

void s2_known_reset(void)
{
	for (unsigned i = 0; i < nknown; i++)
		atomic_store(&known[i].count, 0), known[i].first_s = 0;
	atomic_store(&known_total, 0);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void s2_findings_json(FILE *f, const struct s2_violation *v)
{
	char sig[160];

	fprintf(f, "\"findings\": [");
	if (v && v->kind != S2V_NONE) {
		fprintf(f, "{\"signature\": ");
		json_str(f, s2_signature(v, sig, sizeof(sig)));
		fprintf(f, ", \"kind\": \"%s\", \"op\": ", s2_vkind_name(v->kind));
		json_str(f, v->op[0] ? v->op : "end");
		fprintf(f, ", \"function\": ");
		json_str(f, v->fn[0] ? v->fn : "-");
		fprintf(f, ", \"where\": ");
		json_str(f, v->where[0] && strcmp(v->where, "-") ? v->where : "");
		fprintf(f, ", \"count\": 1, \"first_s\": %.3f, \"summary\": ", v->at_s);
		json_str(f, v->summary);
		fprintf(f, "}");
	}
	fprintf(f, "], \"known\": [");
	for (unsigned i = 0; i < nknown; i++) {
		uint64_t n = atomic_load(&known[i].count);

		fprintf(f, "%s{\"signature\": \"%s:%s:%s\", \"count\": %llu, \"first_s\": ", i ? ", " : "",
			s2_vkind_name(known[i].kind), known[i].op, known[i].fn, (unsigned long long)n);
		if (n)
			fprintf(f, "%.3f}", known[i].first_s);
		else
			fprintf(f, "null}");
	}
	fprintf(f, "]");
}

void s2_finding_print(FILE *f, const char *prefix, const struct s2_violation *v)
{
	char sig[160];

	if (v && v->kind != S2V_NONE)
		fprintf(f, "%sfinding: %s at %s\n", prefix, s2_signature(v, sig, sizeof(sig)),
			v->where[0] ? v->where : "-");
	for (unsigned i = 0; i < nknown; i++) {
		uint64_t n = atomic_load(&known[i].count);

		if (n)
			fprintf(f, "%sknown %s:%s:%s: %llu times, first at %.2f s (counted, not reported)\n", prefix,
				s2_vkind_name(known[i].kind), known[i].op, known[i].fn, (unsigned long long)n,
				known[i].first_s);
	}
}
