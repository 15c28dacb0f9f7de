/*
 * fuzz/decoder_check.h - the round-trip property of the script format
 * (engine/script.h), checked on one input:
 *   - the input loads (script_load: binary if it starts with the magic,
 *     else text) or is rejected with a reason; nothing else happens;
 *   - binary input that decodes re-encodes to exactly the input bytes;
 *     binary input is read as the harness reads it (engine/script.h, script_walk lenient: the
 *     schedule is the bytes present), which must be idempotent and leave
 *     canonical scripts unchanged;
 *   - any script that loads prints to text that parses back to the same
 *     script (compared by its binary encoding), within SCRIPT_TEXT_MAX;
 *   - its encoding decodes again, to the same encoding.
 * Shared by the decoder fuzz target and its regression test.
 */
#ifndef FUZZ_DECODER_CHECK_H
#define FUZZ_DECODER_CHECK_H

#include <stddef.h>
#include <stdint.h>

enum dc_result { DC_REJECTED, DC_OK, DC_MISMATCH };

/* On DC_MISMATCH, why says which property failed. */
enum dc_result decoder_check(const uint8_t *data, size_t len, char *why, size_t whylen);

#endif
