/*
 * fuzz/decoder_regress_test.c - the decoder fuzz target's property
 * (fuzz/decoder_check.h) without AFL, so `bazel test //...` checks it:
 *   1. every seed given on the command line (text or binary) loads and
 *      round-trips (DC_OK), and so does its binary encoding;
 *   2. thousands of deterministic mutations of the seeds' binary and text
 *      forms (byte flips, inserts, deletes, truncation, splices between
 *      seeds, schedule rewrites, line drops/duplicates/swaps and token
 *      replacement in the text) and of random byte strings (bare and
 *      behind the binary magic) never give DC_MISMATCH;
 *   3. a good share of the mutants is accepted, so the round-trip path is
 *      exercised and not only the rejections: at least half the binary
 *      mutants (read as the harness reads them, engine/script.h, script_walk lenient), 10% of the
 *      text mutants, and 90% of random bytes behind a valid header and
 *      variant name load.
 * Exit 0 pass, 1 fail (with the failing input in hex), 2 unreadable seed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/script.h"
#include "fuzz/decoder_check.h"

#define MUTANTS_PER_SEED 1500
#define RANDOM_INPUTS 3000
#define MAX_SEEDS 64

static uint64_t rng = 0x243f6a8885a308d3ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned below(unsigned n)
{
	return n ? (unsigned)(next() % n) : 0;
}

static struct {
	uint8_t bin[SCRIPT_MAX_BYTES];
	size_t nbin;
	char text[SCRIPT_TEXT_MAX];
	size_t ntext;
	unsigned nthreads;
} seeds[MAX_SEEDS];
static unsigned nseeds;

static unsigned failures;
static unsigned tried[3], accepted[3];   /* binary mutants, text mutants, header + random */

static void check(const uint8_t *d, size_t n, const char *what, int kind)
{
	char why[256];
	enum dc_result r = decoder_check(d, n, why, sizeof(why));

	if (kind >= 0) {
		tried[kind]++;
		accepted[kind] += r == DC_OK;
	}
	if (r != DC_MISMATCH)
		return;
	if (failures++ < 5) {
		fprintf(stderr, "FAIL (%s): %s\n  input (%zu bytes):", what, why, n);
		for (size_t i = 0; i < n && i < 2048; i++)
			fprintf(stderr, "%s%02x", i % 32 ? " " : "\n    ", d[i]);
		fputc('\n', stderr);
	}
}

static void mutate_binary(unsigned si)
{
	static uint8_t buf[2 * SCRIPT_MAX_BYTES];
	const uint8_t *b = seeds[si].bin;
	size_t n = seeds[si].nbin, m;

	for (unsigned k = 0; k < MUTANTS_PER_SEED; k++) {
		memcpy(buf, b, n);
		m = n;
		switch (k % 7) {
		case 0:         /* flip 1-4 bytes */
			for (unsigned j = 1 + below(4); j--;)
				buf[below((unsigned)m)] = (uint8_t)next();
			break;
		case 1:         /* a byte at the header / an instruction field */
			buf[below(m < 64 ? (unsigned)m : 64)] ^= (uint8_t)(1u << below(8));
			break;
		case 2:         /* insert bytes */
			for (unsigned j = 1 + below(6); j-- && m < sizeof(buf);) {
				size_t at = below((unsigned)m + 1);

				memmove(buf + at + 1, buf + at, m - at);
				buf[at] = (uint8_t)next();
				m++;
			}
			break;
		case 3:         /* delete bytes */
			for (unsigned j = 1 + below(6); j-- && m > 1;) {
				size_t at = below((unsigned)m);

				memmove(buf + at, buf + at + 1, m - at - 1);
				m--;
			}
			break;
		case 4:         /* truncate */
			m = below((unsigned)m + 1);
			break;
		case 5: {       /* splice: head of this seed, tail of another */
			unsigned o = below(nseeds);
			size_t cut = below((unsigned)m + 1), cut2 = below((unsigned)seeds[o].nbin + 1);

			m = cut + seeds[o].nbin - cut2;
			memcpy(buf + cut, seeds[o].bin + cut2, seeds[o].nbin - cut2);
			break;
		}
		default: {      /* rewrite schedule entries (mostly valid) */
			if (m < 2)
				break;
			for (unsigned j = 1 + below(8); j--;) {
				size_t at = m - 1 - below(m > 32 ? 32 : (unsigned)m - 1);

				buf[at] = (uint8_t)(below(seeds[si].nthreads) | below(32) << 3);
			}
			break;
		}
		}
		check(buf, m, "binary mutant", 0);
	}
}

static const char *const tokens[] = {
	"read", "read_locked", "touch", "gp", "map", "fold", "unfold", "unmap", "young",
	"flush_young", "clear_young_dirty", "wrprotect", "access_flags", "retire", "thread",
	"block", "schedule", "expect", "clean", "phantom_bit", "granule", "16k", "64k", "4k",
	"variant", "x", "0x32", "1", "0", "3x2", "15", "127", "255", "0+16", "8+8", "young",
	"dirty", "new", "rw", "ro", "other", "write", "cont", "ptes", "half", "none", "#", "\t",
	"contpte-script", "99999999999", "-1", "+", "0+0",
};

static void mutate_text(unsigned si)
{
	static char lines[256][1024], out[SCRIPT_TEXT_MAX + 2048];
	unsigned nl = 0;
	const char *p = seeds[si].text;

	while (*p && nl < 256) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l > 1000)
			l = 1000;
		memcpy(lines[nl], p, l);
		lines[nl++][l] = 0;
		p = e ? e + 1 : p + strlen(p);
	}
	for (unsigned k = 0; k < MUTANTS_PER_SEED; k++) {
		size_t o = 0;
		unsigned a = below(nl), b = below(nl), op = k % 5;

		for (unsigned i = 0; i < nl; i++) {
			const char *src = lines[i];
			char tmp[1100];

			if (op == 0 && i == a)
				continue;                               /* drop a line */
			if (op == 2 && (i == a || i == b))
				src = lines[i == a ? b : a];            /* swap two */
			if ((op == 3 || op == 4) && i == a) {           /* replace / add a token */
				const char *t = tokens[below(sizeof(tokens) / sizeof(*tokens))];
				const char *sp = strchr(lines[i] + (lines[i][0] == ' ' ? 2 : 0), ' ');

				if (op == 3 && sp)
					snprintf(tmp, sizeof(tmp), "%s%s", t, sp);
				else
					snprintf(tmp, sizeof(tmp), "%s %s", lines[i], t);
				src = tmp;
			}
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s\n", src);
			if (op == 1 && i == a)                          /* duplicate */
				o += (size_t)snprintf(out + o, sizeof(out) - o, "%s\n", src);
		}
		check((const uint8_t *)out, o, "text mutant", 1);
	}
}

int main(int argc, char **argv)
{
	static uint8_t buf[SCRIPT_TEXT_MAX + 2];
	static struct script s;
	struct script_error err;

	if (argc < 2) {
		fprintf(stderr, "usage: decoder_regress_test SEED...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		size_t n;

		if (!f) {
			fprintf(stderr, "cannot read %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		char why[256];
		enum dc_result r = decoder_check(buf, n, why, sizeof(why));

		if (r != DC_OK) {
			if (r == DC_REJECTED) {
				script_load(buf, n, &s, &err);
				fprintf(stderr, "FAIL: seed %s does not load: %zu: %s\n", argv[i], err.offset,
					err.reason);
			} else {
				fprintf(stderr, "FAIL: seed %s: %s\n", argv[i], why);
			}
			return 1;
		}
		if (nseeds == MAX_SEEDS)
			continue;
		script_load(buf, n, &s, &err);
		seeds[nseeds].nbin = script_encode(&s, seeds[nseeds].bin);
		seeds[nseeds].nthreads = s.nthreads;
		seeds[nseeds].ntext = script_print(&s, seeds[nseeds].text, sizeof(seeds[nseeds].text));
		check(seeds[nseeds].bin, seeds[nseeds].nbin, "seed encoding", -1);
		nseeds++;
	}
	for (unsigned i = 0; i < nseeds; i++) {
		mutate_binary(i);
		mutate_text(i);
	}
	for (unsigned k = 0; k < RANDOM_INPUTS; k++) {
		size_t n = below(k % 2 ? 64 : 600);

		for (size_t j = 0; j < n; j++)
			buf[j] = (uint8_t)next();
		if (k % 3 == 1 && n >= 5)
			memcpy(buf, SCRIPT_MAGIC "\x01", 5);
		check(buf, n, "random bytes", -1);
	}
	/* inputs afl-fuzz on decoder_fuzz found to mismatch: version 2 with
	 * the sc model and no choices decoded strictly, while the encoder
	 * writes that script as version 1 ("script_canonical changed a
	 * canonical script"; strict reading now rejects it) */
	static const uint8_t found[][42] = {
		{ 0x43, 0x50, 0x54, 0x53, 0x02, 0x04, 0x08, 'b', 'a', 's', 'e', 'l', 'i', 'n', 'e',
		  0x01, 0x02, 0x33, 0x00, 0x02, 0x01, 0x14, 0x00, 0x03, 0x00, 0x00, 0x01, 0x17, 0x00,
		  0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x08, 0x09, 0x08, 0x09, 0x00 },
	};
	for (unsigned k = 0; k < sizeof(found) / sizeof(found[0]); k++)
		check(found[k], sizeof(found[k]), "found by afl-fuzz", -1);
	/* a valid header and name, then anything: the harness's reading makes
	 * a script of (nearly) all of them */
	for (unsigned k = 0; k < RANDOM_INPUTS; k++) {
		static const char hdr[] = SCRIPT_MAGIC "\x01\x04\x08" "baseline";
		size_t h = sizeof(hdr) - 1, n = h + 3 + below(200);

		memcpy(buf, hdr, h);
		for (size_t j = h; j < n; j++)
			buf[j] = (uint8_t)next();
		check(buf, n, "header + random bytes", 2);
	}
	printf("decoder round-trip: %u seeds; binary mutants %u (%u decode), text mutants %u (%u parse), %u random inputs, %u header + random (%u decode); %u mismatches\n",
	       nseeds, tried[0], accepted[0], tried[1], accepted[1], RANDOM_INPUTS, tried[2], accepted[2],
	       failures);
	if (failures)
		return 1;
	if (accepted[0] * 2 < tried[0] || accepted[1] * 10 < tried[1] || accepted[2] * 10 < tried[2] * 9) {
		fprintf(stderr, "FAIL: too few mutants decode to exercise the round trip\n");
		return 1;
	}
	return 0;
}
