/*
 * engine/script_test.c - the script format's promises:
 *   - random valid scripts (every generator choice, every granule) survive
 *     binary -> script -> binary and text -> script -> text exactly;
 *   - every truncation and every single-byte corruption of a valid binary
 *     is either decoded to a valid script that re-encodes to the same
 *     bytes, or rejected with a reason (never a crash or a hang);
 *   - bad text is rejected with the line and a reason;
 *   - a script moved to another granule (script_regranule) stays valid
 *     and round-trips, keeps whole blocks whole and entries inside the
 *     ranges that held them, and comes back unchanged from a finer
 *     granule.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/rng.h"
#include "engine/gen.h"
#include "engine/script.h"
#include "core/violation.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint8_t bin[SCRIPT_MAX_BYTES], bin2[SCRIPT_MAX_BYTES];
static char text[SCRIPT_TEXT_MAX], text2[SCRIPT_TEXT_MAX];
static struct script a, b, c;

static void round_trip(const struct script *s)
{
	struct script_error err;
	size_t n = script_encode(s, bin), n2;

	CHECK(!script_decode(bin, n, &b, &err), "decode of encoded script: %s at %zu", err.reason, err.offset);
	n2 = script_encode(&b, bin2);
	CHECK(n == n2 && !memcmp(bin, bin2, n), "binary round trip differs");
	script_print(s, text, sizeof(text));
	CHECK(!script_parse(text, &c, &err), "parse of printed script: line %zu: %s\n%s", err.offset, err.reason, text);
	script_print(&c, text2, sizeof(text2));
	CHECK(!strcmp(text, text2), "text round trip differs:\n%s---\n%s", text, text2);
	n2 = script_encode(&c, bin2);
	CHECK(n == n2 && !memcmp(bin, bin2, n), "text -> binary differs from the original binary");
}

static void corrupt(const struct script *s, uint64_t *rng)
{
	struct script_error err;
	size_t n = script_encode(s, bin);

	for (size_t cut = 0; cut < n; cut++)
		CHECK(script_decode(bin, cut, &b, &err) != 0, "truncation to %zu bytes decoded", cut);
	for (int k = 0; k < 200; k++) {
		size_t at = rng_below(rng, (unsigned)n);
		uint8_t old = bin[at];

		bin[at] ^= (uint8_t)(1 + rng_below(rng, 255));
		if (!script_decode(bin, n, &b, &err)) {
			size_t n2 = script_encode(&b, bin2);

			CHECK(n2 == n && !memcmp(bin, bin2, n), "corrupted input decoded but does not re-encode");
		} else {
			CHECK(err.reason[0] && err.offset <= n, "rejection without reason or with a bad offset");
		}
		bin[at] = old;
	}
}

static void bad_text(const char *t, size_t line, const char *words)
{
	struct script_error err;

	CHECK(script_parse(t, &a, &err) != 0, "bad text accepted:\n%s", t);
	CHECK(err.offset == line, "bad text: line %zu reported, %zu expected (%s)", err.offset, line, err.reason);
	CHECK(strstr(err.reason, words) != NULL, "reason '%s' does not mention '%s'", err.reason, words);
}

/* Every granule to every other: valid, and for each pair of an entry
 * instruction and a range instruction on one block, the entry inside the
 * range after the move if it was before (and, to a finer granule, only
 * then); moved to a finer granule and back, the script is what it was. */
static void regranule(const struct script *s)
{
	static const unsigned kbs[3] = { 4, 16, 64 };
	unsigned from = granule_cont(s->granule_kb);
	const char *why;

	for (int k = 0; k < 3; k++) {
		unsigned to = granule_cont(kbs[k]);

		a = *s;
		script_regranule(&a, kbs[k]);
		CHECK(a.granule_kb == kbs[k], "regranule: granule not set");
		round_trip(&a);
		for (unsigned t = 0; t < a.nthreads; t++)
			for (unsigned i = 0; i < a.ninstr[t]; i++)
				CHECK(instr_valid(&a.prog[t][i], to, a.nblocks, &why),
				      "regranule %uk -> %uk: %s", s->granule_kb, kbs[k], why);
		for (unsigned t = 0; t < a.nthreads; t++)
			for (unsigned i = 0; i < a.ninstr[t]; i++) {
				const struct instr *e0 = &s->prog[t][i], *e1 = &a.prog[t][i];
				const struct op_desc *de = instr_desc(e0->op);

				if (!de || de->shape != OP_SHAPE_ENTRY)
					continue;
				for (unsigned u = 0; u < a.nthreads; u++)
					for (unsigned j = 0; j < a.ninstr[u]; j++) {
						const struct instr *r0 = &s->prog[u][j], *r1 = &a.prog[u][j];
						const struct op_desc *dr = instr_desc(r0->op);

						if (!dr || dr->shape != OP_SHAPE_RANGE || r0->block != e0->block)
							continue;
						bool in0 = e0->s >= r0->s && e0->s < r0->s + r0->n;
						bool in1 = e1->s >= r1->s && e1->s < r1->s + r1->n;

						/* (to a coarser granule, entries outside a
						 * range may fall into its first or last one) */
						CHECK(to < from ? !in0 || in1 : in0 == in1,
						      "regranule %uk -> %uk: entry %u in %u+%u became %u in %u+%u",
						      s->granule_kb, kbs[k], e0->s, r0->s, r0->n, e1->s, r1->s, r1->n);
						if (r0->s == 0 && r0->n == from)
							CHECK(r1->s == 0 && r1->n == to, "regranule: a whole block is no longer whole");
					}
			}
		if (to > from) {
			script_regranule(&a, s->granule_kb);
			CHECK(!memcmp(a.prog, s->prog, sizeof(a.prog)) &&
			      !memcmp(a.tlb_init, s->tlb_init, sizeof(a.tlb_init)),
			      "regranule %uk -> %uk -> back is not the script", s->granule_kb, kbs[k]);
		}
	}
}

int main(void)
{
	static const unsigned kbs[3] = { 4, 16, 64 };
	uint64_t rng = 12345;
	int scripts = 0, tlb_scripts = 0;

	for (int i = 0; i < 3000; i++) {
		gen_script(&a, kbs[i % 3], i % 2 ? "early_exit" : "baseline", &rng);
		a.expect = (uint8_t)rng_below(&rng, 9);
		if (a.expect == EXPECT_KIND(VK_NONE))
			a.expect = EXPECT_NONE;
		a.nsched = rng_below(&rng, 40);
		for (unsigned k = 0; k < a.nsched; k++)
			a.sched[k] = (uint8_t)(rng_below(&rng, a.nthreads) | rng_below(&rng, 32) << 3);
		if (i % 4 == 3) {
			/* a TLB section: version 3; the tail seed leaves it out */
			uint64_t seed = script_tail_seed(&a);
			unsigned cont = a.granule_kb == 4 ? 16 : a.granule_kb == 16 ? 128 : 32;

			a.tlb = (uint8_t)(1 + rng_below(&rng, 255));
			a.tlb_evict = (uint8_t)rng_below(&rng, 2);
			a.bbml2 = (uint8_t)rng_below(&rng, 3);
			a.ntlb_init = rng_below(&rng, SCRIPT_MAX_TLB_INIT + 1);
			for (unsigned k = 0; k < a.ntlb_init; k++) {
				a.tlb_init[k].thread = (uint8_t)rng_below(&rng, a.nthreads);
				a.tlb_init[k].block = (uint8_t)rng_below(&rng, a.nblocks);
				a.tlb_init[k].entry = (uint8_t)rng_below(&rng, cont);
				a.tlb_init[k].flags = (uint8_t)rng_below(&rng, 2);
			}
			CHECK(script_encode(&a, bin) && bin[4] == SCRIPT_VERSION_TLB, "a TLB section is version 3");
			CHECK(script_tail_seed(&a) == seed, "the TLB section changed the tail seed");
			tlb_scripts++;
		} else {
			CHECK(script_encode(&a, bin) && bin[4] != SCRIPT_VERSION_TLB,
			      "a script without a TLB section is version 1 or 2");
		}
		round_trip(&a);
		if (i % 10 == 0 || i % 4 == 3)
			corrupt(&a, &rng);
		if (i % 10 == 1) {
			static struct script keep;

			keep = a;
			regranule(&keep);
		}
		scripts++;
	}
	/* the largest script there is */
	gen_script(&a, 16, "baseline", &rng);
	a.nthreads = SCRIPT_MAX_THREADS;
	for (unsigned t = 0; t < a.nthreads; t++) {
		a.ninstr[t] = SCRIPT_MAX_INSTRS;
		for (unsigned i = 0; i < SCRIPT_MAX_INSTRS; i++)
			a.prog[t][i] = (struct instr){ SI_READ, 0, (uint8_t)i, 0, 0 };
	}
	a.nsched = SCRIPT_MAX_SCHED;
	memset(a.sched, 0xf9, a.nsched);     /* thread 1, run 32 */
	a.tlb = 255;
	a.ntlb_init = SCRIPT_MAX_TLB_INIT;
	for (unsigned k = 0; k < a.ntlb_init; k++)
		a.tlb_init[k].thread = (uint8_t)(k % 4), a.tlb_init[k].block = 0,
		a.tlb_init[k].entry = (uint8_t)k, a.tlb_init[k].flags = 1;
	round_trip(&a);
	CHECK(script_encode(&a, bin) <= SCRIPT_MAX_BYTES, "encoding larger than SCRIPT_MAX_BYTES");

	const char *hdr = "contpte-script 1\ngranule 4k\nvariant baseline\nblock 0 cont\n";
	char t[2048];
	bad_text("", 0, "empty");
	bad_text("contpte-script 3\n", 1, "version");
	bad_text("hello\n", 1, "first line");
	snprintf(t, sizeof(t), "%sthread 0\n  read 0 16\n", hdr);
	bad_text(t, 6, "entry out of range");
	snprintf(t, sizeof(t), "%sthread 0\n  read 1 0\n", hdr);
	bad_text(t, 6, "block out of range");
	snprintf(t, sizeof(t), "%sthread 0\n  map 0 10+7\n", hdr);
	bad_text(t, 6, "range");
	snprintf(t, sizeof(t), "%sthread 0\n  frobnicate 0 1\n", hdr);
	bad_text(t, 6, "unknown keyword");
	snprintf(t, sizeof(t), "%sthread 0\n  read 0 1\nschedule 0x33\n", hdr);
	bad_text(t, 7, "run 1-32");
	snprintf(t, sizeof(t), "%sthread 0\n  read 0 1\nschedule 1\n", hdr);
	bad_text(t, 7, "names thread 1");
	snprintf(t, sizeof(t), "%sthread 1\n", hdr);
	bad_text(t, 5, "thread 0");
	snprintf(t, sizeof(t), "%sexpect sometimes\nthread 0\n", hdr);
	bad_text(t, 5, "unknown outcome");
	snprintf(t, sizeof(t), "%sthread 0\n  map 0 0+16 ro rw\n", hdr);
	bad_text(t, 6, "repeated");
	snprintf(t, sizeof(t), "contpte-script 1\ngranule 8k\n");
	bad_text(t, 2, "granule");
	snprintf(t, sizeof(t), "%stlb_entry 0 0 3\nthread 0\n  read 0 1\n", hdr);
	bad_text(t, 7, "needs a TLB");
	snprintf(t, sizeof(t), "%stlb 4\ntlb_entry 1 0 3\nthread 0\n  read 0 1\n", hdr);
	bad_text(t, 8, "tlb_entry 0");
	snprintf(t, sizeof(t), "%stlb 4\ntlb_entry 0 0 16\nthread 0\n  read 0 1\n", hdr);
	bad_text(t, 8, "tlb_entry 0");
	snprintf(t, sizeof(t), "%stlb 4\ntlb_entry 0 0 3 read\nthread 0\n", hdr);
	bad_text(t, 6, "THREAD BLOCK ENTRY [write]");

	/* the text form's TLB lines and the binary form's section: the same
	 * script; and a version-2 script without them keeps its bytes */
	snprintf(t, sizeof(t), "%stlb 4\nbbml2 sometimes\nthread 0\n", hdr);
	bad_text(t, 6, "noabort or abort");
	snprintf(t, sizeof(t), "%stlb 4 random\nbbml2 abort\ntlb_entry 0 0 3 write\ntlb_entry 1 0 15\n"
		 "thread 0\n  read 0 1\nthread 1\n  touch 0 3 write\nschedule 0 1x2\n", hdr);
	{
		struct script_error e;
		size_t n;

		CHECK(!script_parse(t, &a, &e), "TLB text: line %zu: %s", e.offset, e.reason);
		CHECK(a.tlb == 4 && a.tlb_evict == 1 && a.bbml2 == CPU_BBML2_ABORT && a.ntlb_init == 2 &&
		      a.tlb_init[0].thread == 0 && a.tlb_init[0].entry == 3 && a.tlb_init[0].flags == 1 &&
		      a.tlb_init[1].thread == 1 && a.tlb_init[1].entry == 15 && a.tlb_init[1].flags == 0,
		      "TLB text read wrong");
		n = script_encode(&a, bin);
		CHECK(bin[4] == SCRIPT_VERSION_TLB, "TLB text encodes as version %u", bin[4]);
		CHECK(!script_decode(bin, n, &b, &e) && b.tlb == 4 && b.tlb_evict == 1 && b.bbml2 == CPU_BBML2_ABORT &&
		      b.ntlb_init == 2 && !memcmp(b.tlb_init, a.tlb_init, sizeof(a.tlb_init)),
		      "TLB section does not decode to the same");
		/* lenient: a version 3 section with fields out of range is repaired */
		/* the section's flags byte: before it tlb; after it the count,
		 * 2 x 4 entry bytes, the schedule length (2) and 2 entries */
		bin[n - 2 - 2 - 8 - 1] = 0xff;
		CHECK(script_decode(bin, n, &b, &e) != 0, "TLB flags 0xff accepted strictly");
		CHECK(!script_walk(bin, n, SCRIPT_LENIENT, 0, &b, &e) && b.tlb_evict == 1 && b.bbml2,
		      "lenient reading of TLB flags 0xff");
		round_trip(&a);
		/* one script, one encoding: a section that says nothing (no TLB,
		 * no bbml2) or random eviction without a TLB is not read
		 * strictly; leniently it is repaired */
		a.ntlb_init = 0;
		a.bbml2 = false;
		n = script_encode(&a, bin);
		bin[n - 2 - 2 - 3] = 0;           /* tlb 0: before the flags and the count (0) */
		CHECK(script_decode(bin, n, &b, &e) != 0, "an empty TLB section read strictly");
		CHECK(!script_walk(bin, n, SCRIPT_LENIENT, 0, &b, &e) && !b.tlb && !b.tlb_evict,
		      "an empty TLB section read leniently");
		a.tlb = 0;
		a.tlb_evict = 0;
		a.bbml2 = false;
		a.ntlb_init = 0;
		CHECK(script_encode(&a, bin) && bin[4] == SCRIPT_VERSION_SC, "without TLB lines: version 1");
	}

	/* a 4K seed on 16K: whole block, second half, an entry and a TLB entry */
	snprintf(t, sizeof(t), "%stlb 4\ntlb_entry 0 0 15\nthread 0\n  read 0 13\nthread 1\n"
		 "  unmap 0 0+16\n  map 0 8+8 new\n  wrprotect 0 3+1\n", hdr);
	{
		struct script_error e;

		CHECK(!script_parse(t, &a, &e), "regranule text: line %zu: %s", e.offset, e.reason);
		script_regranule(&a, 16);
		CHECK(a.granule_kb == 16 && a.prog[0][0].s == 104 &&
		      a.prog[1][0].s == 0 && a.prog[1][0].n == 128 &&
		      a.prog[1][1].s == 64 && a.prog[1][1].n == 64 &&
		      a.prog[1][2].s == 24 && a.prog[1][2].n == 8 && a.tlb_init[0].entry == 120,
		      "4K -> 16K: read %u, unmap %u+%u, map %u+%u, wrprotect %u+%u, tlb_entry %u",
		      a.prog[0][0].s, a.prog[1][0].s, a.prog[1][0].n, a.prog[1][1].s, a.prog[1][1].n,
		      a.prog[1][2].s, a.prog[1][2].n, a.tlb_init[0].entry);
		script_regranule(&a, 64);
		CHECK(a.prog[0][0].s == 26 && a.prog[1][0].n == 32 && a.prog[1][1].s == 16 &&
		      a.prog[1][2].s == 6 && a.prog[1][2].n == 2, "16K -> 64K");
	}

	/* binary rejections name the offset */
	struct script_error err;
	CHECK(script_decode((const uint8_t *)"CPTX\1\4", 6, &a, &err) && err.offset == 0, "bad magic");
	CHECK(script_decode((const uint8_t *)"CPTS\1\5", 6, &a, &err) && err.offset == 5, "bad granule");
	CHECK(script_decode((const uint8_t *)"CPTS\4\4", 6, &a, &err) && err.offset == 4, "bad version");

	printf("script_test: %d scripts round-tripped (%d with a TLB section), %d failure(s)\n", scripts,
	       tlb_scripts, failures);
	return failures != 0;
}
