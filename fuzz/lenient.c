/* fuzz/lenient.c - see lenient.h. */
#include "fuzz/lenient.h"

#include <string.h>

#include "engine/script.h"

size_t fuzz_canonical(const uint8_t *in, size_t len, uint8_t *out)
{
	size_t o = 7, n;

	/* header, name, blocks, expect, threads and programs, as script_decode
	 * walks them; anything off: leave it to script_decode to reject */
	if (len < 7 || memcmp(in, SCRIPT_MAGIC, 4) || in[6] > SCRIPT_NAME_MAX)
		goto unchanged;
	o += in[6];
	if (len < o + 1 || in[o] < 1 || in[o] > SCRIPT_MAX_BLOCKS)
		goto unchanged;
	o += 1 + 2u * in[o];
	if (len < o + 2 || in[o + 1] < 1 || in[o + 1] > SCRIPT_MAX_THREADS)
		goto unchanged;
	n = in[o + 1];
	o += 2;
	for (size_t t = 0; t < n; t++) {
		if (len < o + 1 || in[o] > SCRIPT_MAX_INSTRS)
			goto unchanged;
		o += 1 + (size_t)SCRIPT_INSTR_BYTES * in[o];
		if (len < o)
			goto unchanged;
	}
	/* o: the schedule-length field */
	n = len >= o + 2 ? len - o - 2 : 0;
	if (n > SCRIPT_MAX_SCHED)
		n = SCRIPT_MAX_SCHED;
	memcpy(out, in, o);
	out[o] = (uint8_t)(n & 0xff);
	out[o + 1] = (uint8_t)(n >> 8);
	if (n)
		memcpy(out + o + 2, in + o + 2, n);
	return o + 2 + n;
unchanged:
	n = len > SCRIPT_MAX_BYTES + 1 ? SCRIPT_MAX_BYTES + 1 : len;
	memcpy(out, in, n);
	return n;
}
