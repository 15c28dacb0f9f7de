/*
 * fuzz/script_asm.c - a script (text or binary) to its binary form: the
 * build's converter for the fuzzers' seeds (fuzz/BUILD) and tools/campaign's
 * at campaign start. Same as `engine asm`, without linking every variant.
 *   script_asm [--granule=G] IN OUT       exit 0, or 2 with the reason
 *                                         (3: a move refused, below)
 * --granule=4k|16k|64k writes the script on granule G with its entries and
 * ranges scaled to the same part of the block (script_regranule): how a
 * seed written at 4K keeps its meaning on a 16K campaign (a whole-block
 * remap stays whole, not an eighth of the block). Only to a granule with
 * at least as many entries per block, where the move is exact; to fewer
 * it would merge entries, and it is refused with exit 3, its own code:
 * tools/lib/common.sh's seeds_for skips such seeds, and stops on any other
 * failure (a seed that does not assemble is a mistake to report, not to
 * drop).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pte.h"
#include "engine/script.h"

int main(int argc, char **argv)
{
	static uint8_t in[SCRIPT_TEXT_MAX + 2], out[SCRIPT_MAX_BYTES];
	static struct script s;
	struct script_error err;
	FILE *f;
	size_t len, n;
	const struct granule *g = NULL;

	if (argc == 4 && !strncmp(argv[1], "--granule=", 10)) {
		if (!(g = granule_by_name(argv[1] + 10))) {
			fprintf(stderr, "script_asm: %s: not a granule (4k, 16k, 64k)\n", argv[1]);
			return 2;
		}
		argc--, argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: script_asm [--granule=4k|16k|64k] IN OUT\n");
		return 2;
	}
	if (!(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "script_asm: cannot read %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	len = fread(in, 1, sizeof(in), f);
	fclose(f);
	if (script_load(in, len, &s, &err)) {
		fprintf(stderr, "script_asm: %s: %s %zu: %s\n", argv[1],
			len >= 4 && !memcmp(in, SCRIPT_MAGIC, 4) ? "byte offset" : "line", err.offset,
			err.reason);
		return 2;
	}
	if (g && g->cont_ptes < granule_cont(s.granule_kb)) {
		fprintf(stderr, "script_asm: %s: a %uk script has %u entries per block, %s only %u: "
			"moving it there would merge entries\n", argv[1], s.granule_kb,
			granule_cont(s.granule_kb), g->name, g->cont_ptes);
		return 3;
	}
	if (g)
		script_regranule(&s, g->kb);
	n = script_encode(&s, out);
	if (!(f = fopen(argv[2], "wb")) || fwrite(out, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "script_asm: cannot write %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	return 0;
}
