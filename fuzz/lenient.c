/* fuzz/lenient.c - see lenient.h. */
#include "fuzz/lenient.h"

#include <string.h>

#include "core/ops.h"
#include "core/violation.h"
#include "engine/script.h"

/* What each opcode takes, probed once from instr_valid (so this follows
 * engine/script.c): valid at all, its argument kind, its flag mask. */
enum { K_TABLE, K_ENTRY, K_RANGE };
static struct { bool valid; uint8_t kind, flags; } opinfo[256];
static uint8_t valid_ops[256];
static unsigned nvalid;

static void probe_ops(void)
{
	const char *why;

	for (unsigned op = 0; op < 256; op++) {
		struct instr range = { (uint8_t)op, 0, 0, 1, 0 }, entry = { (uint8_t)op, 0, 1, 0, 0 };
		struct instr *base;

		if (!instr_name((uint8_t)op))
			continue;
		opinfo[op].valid = true;
		valid_ops[nvalid++] = (uint8_t)op;
		if (instr_valid(&range, 16, 1, &why)) {
			opinfo[op].kind = K_RANGE;
			base = &range;
		} else if (instr_valid(&entry, 16, 1, &why)) {
			opinfo[op].kind = K_ENTRY;
			base = &entry;
		} else {
			opinfo[op].kind = K_TABLE;
			base = &(struct instr){ (uint8_t)op, 0, 0, 0, 0 };
		}
		for (unsigned b = 0; b < 8; b++) {
			struct instr t = *base;

			t.flags = (uint8_t)(1u << b);
			if (instr_valid(&t, 16, 1, &why))
				opinfo[op].flags |= (uint8_t)(1u << b);
		}
	}
}

static void fix_instr(uint8_t *p, unsigned nblocks, unsigned cont)
{
	uint8_t op = p[0];

	if (!opinfo[op].valid)
		op = p[0] = valid_ops[op % nvalid];
	p[4] &= opinfo[op].flags;
	if (opinfo[op].kind == K_TABLE) {
		p[1] = p[2] = p[3] = 0;
		return;
	}
	if (p[1] >= nblocks)
		p[1] = (uint8_t)(p[1] % nblocks);
	if (p[2] >= cont)
		p[2] = (uint8_t)(p[2] % cont);
	if (opinfo[op].kind == K_ENTRY)
		p[3] = 0;
	else if (p[3] == 0 || p[3] > cont - p[2])
		p[3] = (uint8_t)(1 + p[3] % (cont - p[2]));
}

static unsigned in_range(unsigned x, unsigned lo, unsigned hi)
{
	return x >= lo && x <= hi ? x : lo + x % (hi - lo + 1);
}

bool fuzz_canonical(const uint8_t *in, size_t len, uint8_t *out, size_t *outlen, unsigned cont)
{
	static const char namechars[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
	size_t o, w, n, nthreads, tpos;
	unsigned nblocks, kb;

	if (!nvalid)
		probe_ops();
	if (len < 8 || memcmp(in, SCRIPT_MAGIC, 4) || in[4] != SCRIPT_VERSION || in[6] == 0 ||
	    in[6] > SCRIPT_NAME_MAX || len < 8u + in[6])
		goto unchanged;
	memcpy(out, in, 7);
	kb = granule_cont(in[5]) ? in[5] : 4;
	out[5] = (uint8_t)kb;
	if (!cont)
		cont = granule_cont(kb);
	for (o = 7; o < 7u + in[6]; o++) {
		uint8_t c = in[o];

		out[o] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? c :
			 (uint8_t)namechars[c % (sizeof(namechars) - 1)];
	}
	/* blocks: as many as asked (1-4) and present */
	nblocks = in_range(in[o], 1, SCRIPT_MAX_BLOCKS);
	if ((len - o - 1) / 2 < nblocks)
		nblocks = (unsigned)((len - o - 1) / 2);
	if (!nblocks)
		goto unchanged;
	out[o] = (uint8_t)nblocks;
	w = ++o;
	for (unsigned b = 0; b < nblocks; b++, o += 2, w += 2) {
		uint8_t shape = (uint8_t)in_range(in[o], 0, BS_COUNT - 1);

		out[w] = shape;
		out[w + 1] = shape == BS_NONE ? 0 : in[o + 1] & (OPF_YOUNG | OPF_DIRTY | OPF_PROT_MASK);
	}
	/* expect, threads */
	if (len < o + 2)
		goto unchanged;
	out[w++] = in[o] <= EXPECT_KIND(VK_COUNT - 1) && in[o] != EXPECT_KIND(VK_NONE) ? in[o] : EXPECT_NONE;
	nthreads = in_range(in[o + 1], 1, SCRIPT_MAX_THREADS);
	tpos = w++;
	o += 2;
	for (size_t t = 0; t < nthreads; t++) {
		size_t ni, avail;

		if (o >= len) {          /* no count for thread t: t threads */
			if (!t)
				goto unchanged;
			nthreads = t;
			break;
		}
		ni = in_range(in[o], 0, SCRIPT_MAX_INSTRS);
		avail = (len - o - 1) / SCRIPT_INSTR_BYTES;
		o++;
		if (avail < ni) {        /* the input ends inside this thread */
			ni = avail;
			nthreads = t + 1;
		}
		out[w++] = (uint8_t)ni;
		for (size_t i = 0; i < ni; i++, o += SCRIPT_INSTR_BYTES, w += SCRIPT_INSTR_BYTES) {
			memcpy(out + w, in + o, SCRIPT_INSTR_BYTES);
			fix_instr(out + w, nblocks, cont);
		}
		if (t + 1 == nthreads)
			break;
	}
	out[tpos] = (uint8_t)nthreads;
	/* the schedule: the bytes after the length field */
	n = len >= o + 2 ? len - o - 2 : 0;
	if (n > SCRIPT_MAX_SCHED)
		n = SCRIPT_MAX_SCHED;
	out[w] = (uint8_t)(n & 0xff);
	out[w + 1] = (uint8_t)(n >> 8);
	w += 2;
	for (size_t i = 0; i < n; i++) {
		uint8_t e = in[o + 2 + i], t = e & 7;

		out[w + i] = t < nthreads ? e : (uint8_t)((e & ~7u) | t % nthreads);
	}
	*outlen = w + n;
	return true;
unchanged:
	n = len > SCRIPT_MAX_BYTES + 1 ? SCRIPT_MAX_BYTES + 1 : len;
	memcpy(out, in, n);
	*outlen = n;
	return false;
}
