/*
 * fuzz/lenient.h - what the fuzzing side reads a binary script as: the
 * schedule is every byte after the schedule-length field, whatever that
 * field says (at most SCRIPT_MAX_SCHED entries; more are dropped), and an
 * input that ends right after the programs has an empty schedule.
 *
 * Why: the schedule is most of a script and what the fuzzer mutates most.
 * With the strict length, every havoc insertion or deletion inside it, and
 * every afl-tmin attempt to drop schedule bytes, makes the input a reject;
 * read leniently they stay runnable scripts, and afl-tmin can shorten a
 * crash's schedule. A canonical script (its length field right) reads the
 * same either way, so seeds and everything the engine writes are unchanged.
 * The harness and fuzz/fuzztool (tools/triage, tools/minimize,
 * tools/campaign status) both read crash files through it; the engine's own
 * replay reads only canonical scripts (fuzztool retarget writes those).
 */
#ifndef FUZZ_LENIENT_H
#define FUZZ_LENIENT_H

#include <stddef.h>
#include <stdint.h>

/* Copy in to out (room for SCRIPT_MAX_BYTES + 1) with the schedule length
 * set from the bytes present; returns the new length. Inputs whose header
 * or programs are malformed are copied unchanged (at most SCRIPT_MAX_BYTES
 * + 1 bytes: the decoder still rejects them). Idempotent. */
size_t fuzz_canonical(const uint8_t *in, size_t len, uint8_t *out);

#endif
