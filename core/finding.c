/* core/finding.c - signatures, known bugs, the findings of a run (see core/finding.h). */
#include "core/finding.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "core/access.h"
#include "core/ops.h"
#include "core/signature.h"
#include "core/where.h"

void finding_begin(const char *op)
{
	acc_self.subj = (struct acc_subject){ .op = op };
}

bool finding_at_access(enum vkind kind)
{
	return kind == VK_OOB || kind == VK_PLAIN_ACCESS || kind == VK_BBM || kind == VK_UAF ||
	       kind == VK_LIVELOCK;
}

void finding_identify(struct violation *v)
{
	const struct acc_subject *s = &acc_self.subj;

	/* detected on behalf of another thread's op (core/tlb.c), by the
	 * watchdog, or over several calls (core/fault.c): set where detected */
	if (v->kind == VK_STALE_TLB || v->kind == VK_TLB_CONFLICT || v->kind == VK_HANG ||
	    v->kind == VK_FAULT_LOOP)
		return;
	v->op = s->op;
	v->function = s->fn;
	/* the access itself was taken where detected (a store's observer, the
	 * plain-access hook) */
	if (v->kind == VK_BBM || v->kind == VK_PLAIN_ACCESS)
		return;
	v->pc = finding_at_access(v->kind) ? s->pc : NULL;
}

void finding_set(struct violation *v, const char *op, const char *function, const void *pc)
{
	v->op = op;
	v->function = function;
	v->pc = pc;
}

const char *finding_function(const struct violation *v)
{
	return v->function ? v->function : "-";
}

static const char *op_or_dash(const char *op) { return op ? op : "-"; }

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool finding_same(const struct violation *a, const struct violation *b)
{
	return a->kind == b->kind && same_str(a->op, b->op) && same_str(a->function, b->function);
}

const char *finding_signature(const struct violation *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s:%s", vkind_name(v->kind), op_or_dash(v->op), finding_function(v));
	return buf;
}

/* ---- known signatures ------------------------------------------------------ */
#define KNOWN_MAX 32
static struct known {
	enum vkind kind;
	char op[SIG_PART_MAX], function[SIG_PART_MAX];   /* "*": any */
	uint64_t count;
	double first_s;
} known[KNOWN_MAX];
static unsigned nknown;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The ops a known signature may name: the writer ops, then the roles. */
static const char *const *op_names(void)
{
	static const char *names[OP_COUNT + 16];

	if (!names[0]) {
		static const char *const roles[] = { FINDING_ROLES, NULL };
		unsigned n = 0;

		for (int i = 0; i < OP_COUNT; i++)
			names[n++] = op_name((enum op)i);
		for (const char *const *r = roles; *r; r++)
			names[n++] = *r;
	}
	return names;
}

/* One "kind:op:function". */
static int known_one(const char *sig, char *err, size_t errlen)
{
	char kind[SIG_PART_MAX], op[SIG_PART_MAX], fn[SIG_PART_MAX];
	struct known *k;

	if (sig_split(sig, kind, op, fn, "fault_loop:fault:contpte_ptep_set_access_flags", err, errlen))
		return -1;
	if (nknown == KNOWN_MAX) {
		snprintf(err, errlen, "more than %d known signatures", KNOWN_MAX);
		return -1;
	}
	k = &known[nknown];
	memset(k, 0, sizeof(*k));
	if (!(k->kind = vkind_by_name(kind))) {
		snprintf(err, errlen, "known signature '%s': unknown kind '%s' (valid: %s)", sig, kind, vkind_names());
		return -1;
	}
	if (sig_check_op_fn(sig, op, fn, op_names(), err, errlen))
		return -1;
	snprintf(k->op, sizeof(k->op), "%s", op);
	snprintf(k->function, sizeof(k->function), "%s", fn);
	nknown++;
	return 0;
}

int finding_known_add(const char *list, char *err, size_t errlen)
{
	return sig_list_each(list, known_one, err, errlen);
}

int finding_known_file(const char *path, char *err, size_t errlen)
{
	return sig_file_each(path, known_one, err, errlen);
}

unsigned finding_known_count(void) { return nknown; }


/* The known signature v matches, or NULL. */
static struct known *known_of(const struct violation *v)
{
	for (unsigned i = 0; i < nknown; i++)
		if (known[i].kind == v->kind && sig_part_matches(known[i].op, op_or_dash(v->op)) &&
		    sig_part_matches(known[i].function, finding_function(v)))
			return &known[i];
	return NULL;
}

/* ---- the run's findings ------------------------------------------------------ */
#define FINDINGS_MAX 64
static struct finding found[FINDINGS_MAX];
static unsigned nfound;
static uint64_t dropped;        /* distinct findings past FINDINGS_MAX */

bool finding_is_known(const struct violation *v)
{
	return nknown && known_of(v);
}

static double t0;               /* finding_reset's time */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

bool finding_note(const struct violation *v, bool *first)
{
	struct known *k;
	bool is_first = false;
	double t = now_s() - t0;

	pthread_mutex_lock(&lock);
	if (nknown && (k = known_of(v))) {
		if (!k->count++)
			k->first_s = t, is_first = true;
		pthread_mutex_unlock(&lock);
		if (first)
			*first = is_first;
		return true;
	}
	unsigned i;

	for (i = 0; i < nfound; i++)
		if (found[i].kind == v->kind && same_str(found[i].op, v->op) &&
		    same_str(found[i].function, v->function))
			break;
	if (i < nfound) {
		found[i].count++;
	} else if (nfound < FINDINGS_MAX) {
		struct finding *f = &found[nfound++];

		f->kind = v->kind;
		f->op = v->op;
		f->function = v->function;
		f->pc = v->pc;
		snprintf(f->summary, sizeof(f->summary), "%s", v->summary);
		f->count = 1;
		f->first_s = t;
		is_first = true;
	} else {
		dropped++;
		is_first = true;
	}
	pthread_mutex_unlock(&lock);
	if (first)
		*first = is_first;
	return false;
}

unsigned finding_count(void) { return nfound; }
const struct finding *finding_at(unsigned i) { return i < nfound ? &found[i] : NULL; }

void finding_reset(void)
{
	pthread_mutex_lock(&lock);
	t0 = now_s();
	nfound = 0;
	dropped = 0;
	for (unsigned i = 0; i < nknown; i++)
		known[i].count = 0, known[i].first_s = 0;
	pthread_mutex_unlock(&lock);
}

/* ---- output ------------------------------------------------------------- */
void finding_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void finding_json_violation(FILE *f, const struct violation *v, const char *script)
{
	char where[160], sig[3 * SIG_PART_MAX + 32];

	where_of(v->function, v->pc, where, sizeof(where), NULL, 0);
	fprintf(f, "{\"kind\": \"%s\", \"op\": ", vkind_name(v->kind));
	finding_json_str(f, op_or_dash(v->op));
	fprintf(f, ", \"function\": ");
	finding_json_str(f, finding_function(v));
	fprintf(f, ", \"signature\": ");
	finding_json_str(f, finding_signature(v, sig, sizeof(sig)));
	fprintf(f, ", \"where\": ");
	finding_json_str(f, where);
	fprintf(f, ", \"summary\": ");
	finding_json_str(f, v->summary);
	if (script) {
		fprintf(f, ", \"script\": ");
		finding_json_str(f, script);
	}
	fprintf(f, "}");
}

uint64_t finding_known_total(void)
{
	uint64_t n = 0;

	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < nknown; i++)
		n += known[i].count;
	pthread_mutex_unlock(&lock);
	return n;
}

void finding_json(FILE *f)
{
	char where[160], sig[3 * SIG_PART_MAX + 32];

	fprintf(f, "\"findings\": [");
	for (unsigned i = 0; i < nfound; i++) {
		const struct finding *x = &found[i];
		struct violation v = { .kind = x->kind, .op = x->op, .function = x->function };

		where_of(x->function, x->pc, where, sizeof(where), NULL, 0);
		fprintf(f, "%s\n  {\"kind\": \"%s\", \"op\": ", i ? "," : "", vkind_name(x->kind));
		finding_json_str(f, op_or_dash(x->op));
		fprintf(f, ", \"function\": ");
		finding_json_str(f, finding_function(&v));
		fprintf(f, ", \"signature\": ");
		finding_json_str(f, finding_signature(&v, sig, sizeof(sig)));
		fprintf(f, ", \"where\": ");
		finding_json_str(f, where);
		fprintf(f, ", \"count\": %llu, \"first_s\": %.3f, \"summary\": ", (unsigned long long)x->count,
			x->first_s);
		finding_json_str(f, x->summary);
		fprintf(f, "}");
	}
	fprintf(f, "%s],\n \"known\": [", nfound ? "\n " : "");
	for (unsigned i = 0; i < nknown; i++) {
		const struct known *k = &known[i];

		fprintf(f, "%s\n  {\"signature\": \"%s:%s:%s\", \"count\": %llu, \"first_s\": ", i ? "," : "",
			vkind_name(k->kind), k->op, k->function, (unsigned long long)k->count);
		if (k->count)
			fprintf(f, "%.3f}", k->first_s);
		else
			fprintf(f, "null}");
	}
	fprintf(f, "%s]", nknown ? "\n " : "");
}

void finding_print_one(FILE *f, const char *prefix, const struct violation *v)
{
	char sig[3 * SIG_PART_MAX + 32], where[160], chain[600];

	where_of(v->function, v->pc, where, sizeof(where), chain, sizeof(chain));
	fprintf(f, "%sfinding: %s%s%s\n", prefix, finding_signature(v, sig, sizeof(sig)),
		where[0] ? " at " : "", where);
	if (strchr(chain, '>'))
		fprintf(f, "%s  detected at: %s\n", prefix, chain);
}

void finding_print(FILE *f, const char *prefix)
{
	char where[160], chain[600], sig[3 * SIG_PART_MAX + 32];

	for (unsigned i = 0; i < nfound; i++) {
		const struct finding *x = &found[i];
		struct violation v = { .kind = x->kind, .op = x->op, .function = x->function };

		where_of(x->function, x->pc, where, sizeof(where), chain, sizeof(chain));
		fprintf(f, "%s%s%s%s: %llu time%s, first at %.2f s\n%s  %s\n", prefix,
			finding_signature(&v, sig, sizeof(sig)), where[0] ? " at " : "", where,
			(unsigned long long)x->count, x->count == 1 ? "" : "s", x->first_s, prefix, x->summary);
		if (chain[0] && strchr(chain, '>'))
			fprintf(f, "%s  detected at: %s\n", prefix, chain);
	}
	if (dropped)
		fprintf(f, "%s(%llu more violations of further signatures not kept)\n", prefix,
			(unsigned long long)dropped);
	finding_print_known(f, prefix);
}

void finding_print_known(FILE *f, const char *prefix)
{
	for (unsigned i = 0; i < nknown; i++)
		if (known[i].count)
			fprintf(f, "%sknown %s:%s:%s: %llu time%s, first at %.2f s (counted, not reported)\n", prefix,
				vkind_name(known[i].kind), known[i].op, known[i].function,
				(unsigned long long)known[i].count, known[i].count == 1 ? "" : "s",
				known[i].first_s);
}
