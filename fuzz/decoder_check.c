/* fuzz/decoder_check.c - see decoder_check.h. */
#include "fuzz/decoder_check.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "engine/script.h"

static enum dc_result mismatch(char *why, size_t whylen, const char *what)
{
	snprintf(why, whylen, "%s", what);
	return DC_MISMATCH;
}

enum dc_result decoder_check(const uint8_t *data, size_t len, char *why, size_t whylen)
{
	static struct script s, s2;
	static uint8_t enc[SCRIPT_MAX_BYTES], enc2[SCRIPT_MAX_BYTES];
	static uint8_t canon[SCRIPT_MAX_BYTES + 1], canon2[SCRIPT_MAX_BYTES + 1];
	static char text[SCRIPT_TEXT_MAX];
	struct script_error err;
	size_t n, n2, tl;
	bool binary = len >= 4 && !memcmp(data, SCRIPT_MAGIC, 4);

	if (binary) {
		/* the lenient reading: idempotent, the identity on canonical
		 * scripts, and what it accepts decodes; from here on the checks
		 * run on what it gives */
		size_t c, c2;
		bool ok = script_canonical(data, len, canon, &c, 0);

		script_canonical(canon, c, canon2, &c2, 0);
		if (c2 != c || memcmp(canon, canon2, c))
			return mismatch(why, whylen, "script_canonical is not idempotent");
		if (!script_decode(data, len, &s, &err) && (c != len || memcmp(canon, data, len)))
			return mismatch(why, whylen, "script_canonical changed a canonical script");
		if (ok && script_decode(canon, c, &s, &err)) {
			snprintf(why, whylen, "script_canonical output does not decode (offset %zu: %s)",
				 err.offset, err.reason);
			return DC_MISMATCH;
		}
		/* fitted to a smaller granule's blocks, it still decodes */
		if (ok && script_canonical(data, len, canon2, &c2, 16) && script_decode(canon2, c2, &s, &err)) {
			snprintf(why, whylen, "script_canonical output (cont 16) does not decode (offset %zu: %s)",
				 err.offset, err.reason);
			return DC_MISMATCH;
		}
		data = canon;
		len = c;
	}
	if (script_load(data, len, &s, &err))
		return DC_REJECTED;
	n = script_encode(&s, enc);
	if (n > SCRIPT_MAX_BYTES)
		return mismatch(why, whylen, "encoding larger than SCRIPT_MAX_BYTES");
	if (binary && (n != len || memcmp(enc, data, len)))
		return mismatch(why, whylen, "binary input decodes but does not re-encode to the same bytes");
	if (script_decode(enc, n, &s2, &err))
		return mismatch(why, whylen, "the encoding of a loaded script does not decode");
	n2 = script_encode(&s2, enc2);
	if (n2 != n || memcmp(enc, enc2, n))
		return mismatch(why, whylen, "decode(encode(s)) re-encodes differently");
	tl = script_print(&s, text, sizeof(text));
	if (tl != strlen(text) || tl + 1 >= sizeof(text))
		return mismatch(why, whylen, "script_print output truncated or wrong length");
	if (script_parse(text, &s2, &err)) {
		snprintf(why, whylen, "script_print output does not parse (line %zu: %s)", err.offset,
			 err.reason);
		return DC_MISMATCH;
	}
	n2 = script_encode(&s2, enc2);
	if (n2 != n || memcmp(enc, enc2, n))
		return mismatch(why, whylen, "script_parse(script_print(s)) differs from s");
	return DC_OK;
}
