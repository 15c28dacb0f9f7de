/*
 * stage2/runtime/finding.c - a stage-2 violation's signature and the known
 * bugs (stage2/runtime/finding.h). The known list is fixed before any
 * thread starts; its counts are atomics, so every reporting thread notes
 * without a lock.
 */
#include "stage2/runtime/finding.h"

#include <errno.h>
#include <string.h>

#include "stage2/runtime/agents.h"

#define S2_KNOWN_MAX 64
/* the ops that are no op of s2_ops */
static const char *const roles[] = { "hw", "setup", "teardown", "rcu_free", "end", NULL };

struct known {
	enum s2_vkind kind;
	char op[32], fn[64];            /* "*": any */
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

static bool valid_op(const char *op)
{
	if (!strcmp(op, "*"))
		return true;
	for (const char *const *r = roles; *r; r++)
		if (!strcmp(op, *r))
			return true;
	for (int i = 0; i < S2_OP_COUNT; i++)
		if (!strcmp(op, s2_ops[i].name))
			return true;
	return false;
}

static bool valid_fn(const char *fn)
{
	if (!strcmp(fn, "-") || !strcmp(fn, "*"))
		return true;
	for (const char *c = fn; *c; c++)
		if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (c > fn && *c >= '0' && *c <= '9')))
			return false;
	return *fn != 0;
}

static int known_one(const char *sig, char *err, size_t errlen)
{
	char buf[160], *op, *fn;
	struct known *k;

	if (strlen(sig) >= sizeof(buf)) {
		snprintf(err, errlen, "known signature '%.60s...' is too long", sig);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", sig);
	op = strchr(buf, ':');
	fn = op ? strchr(op + 1, ':') : NULL;
	if (!op || !fn || strchr(fn + 1, ':')) {
		snprintf(err, errlen, "known signature '%s' is not kind:op:function "
			 "(e.g. use_after_free:age:kvm_pgtable_stage2_test_clear_young)", sig);
		return -1;
	}
	*op++ = 0;
	*fn++ = 0;
	if (nknown == S2_KNOWN_MAX) {
		snprintf(err, errlen, "more than %d known signatures", S2_KNOWN_MAX);
		return -1;
	}
	k = &known[nknown];
	if ((k->kind = s2_vkind_by_name(buf)) == S2V_NONE) {
		snprintf(err, errlen, "known signature '%s': '%s' is not a stage-2 violation kind", sig, buf);
		return -1;
	}
	if (strlen(op) >= sizeof(k->op) || !valid_op(op)) {
		size_t off = (size_t)snprintf(err, errlen, "known signature '%s': unknown op '%s' (valid: *", sig, op);

		for (int i = 0; i < S2_OP_COUNT && off < errlen; i++)
			off += (size_t)snprintf(err + off, errlen - off, ", %s", s2_ops[i].name);
		for (const char *const *r = roles; *r && off < errlen; r++)
			off += (size_t)snprintf(err + off, errlen - off, ", %s", *r);
		if (off < errlen)
			snprintf(err + off, errlen - off, ")");
		return -1;
	}
	if (strlen(fn) >= sizeof(k->fn) || !valid_fn(fn)) {
		snprintf(err, errlen, "known signature '%s': '%s' is not a function name (or - for none, * for any)",
			 sig, fn);
		return -1;
	}
	snprintf(k->op, sizeof(k->op), "%s", op);
	snprintf(k->fn, sizeof(k->fn), "%s", fn);
	atomic_store(&k->count, 0);
	nknown++;
	return 0;
}

int s2_known_add(const char *list, char *err, size_t errlen)
{
	char *buf = strdup(list), *save = NULL;
	int rc = 0;

	for (char *tok = strtok_r(buf, ", \t\n", &save); tok && !rc; tok = strtok_r(NULL, ", \t\n", &save))
		rc = known_one(tok, err, errlen);
	free(buf);
	return rc;
}

int s2_known_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned n = 0;

	if (!f) {
		snprintf(err, errlen, "cannot read the known-signature file '%s': %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');

		n++;
		if (hash)
			*hash = 0;
		line[strcspn(line, " \t\n")] = 0;
		if (line[0] && s2_known_add(line, err, errlen)) {
			size_t off = strlen(err);

			snprintf(err + off, errlen - off, " (%s line %u)", path, n);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

unsigned s2_known_count(void) { return nknown; }

static bool same(const char *pattern, const char *s) { return !strcmp(pattern, "*") || !strcmp(pattern, s); }

bool s2_known_note(enum s2_vkind kind, const char *op, const char *fn, double at_s)
{
	for (unsigned i = 0; i < nknown; i++) {
		struct known *k = &known[i];

		if (k->kind == kind && same(k->op, op) && same(k->fn, fn)) {
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
