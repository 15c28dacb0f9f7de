/*
 * fuzz/script_asm.c - a script (text or binary) to its binary form: the
 * build's converter for the fuzzers' seeds (fuzz/BUILD) and tools/campaign's
 * at campaign start. Same as `engine asm`, without linking every variant.
 *   script_asm IN OUT       exit 0, or 2 with the reason
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/script.h"

int main(int argc, char **argv)
{
	static uint8_t in[SCRIPT_TEXT_MAX + 2], out[SCRIPT_MAX_BYTES];
	static struct script s;
	struct script_error err;
	FILE *f;
	size_t len, n;

	if (argc != 3) {
		fprintf(stderr, "usage: script_asm IN OUT\n");
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
	n = script_encode(&s, out);
	if (!(f = fopen(argv[2], "wb")) || fwrite(out, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "script_asm: cannot write %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	return 0;
}
