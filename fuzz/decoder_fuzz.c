/*
 * fuzz/decoder_fuzz.c - fuzz the script decoders themselves: any input goes
 * to script_load (binary or text); whatever loads must round-trip exactly
 * (fuzz/decoder_check.h). A mismatch prints the input and aborts.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/decoder_check.h"

static void fuzz_init(void)
{
	/* nothing to set up: the script readers keep no state */
}

static void fuzz_one(const uint8_t *data, size_t len)
{
	char why[256];

	if (decoder_check(data, len, why, sizeof(why)) != DC_MISMATCH)
		return;
	fprintf(stderr, "decoder_fuzz: round-trip mismatch: %s\ninput (%zu bytes):", why, len);
	for (size_t i = 0; i < len && i < 4096; i++)
		fprintf(stderr, "%s%02x", i % 32 ? " " : "\n  ", data[i]);
	fputc('\n', stderr);
	abort();
}

#include "fuzz/entry.h"
