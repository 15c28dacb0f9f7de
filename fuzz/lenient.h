/*
 * fuzz/lenient.h - how the fuzzing side reads a binary script: it repairs
 * instead of rejecting, so that almost every byte string AFL++ makes from a
 * script is a script.
 *
 * The script format (engine/script.h) is strict: counts, thread numbers and
 * instruction fields must all be in range, or script_decode rejects the
 * input. Most of AFL++'s byte mutations break one of those: a schedule byte
 * naming thread 5 of 3, a block number or entry past the end, an insertion
 * that shifts the schedule length. Measured on the seeds, under 10% of
 * random mutants decoded strictly; every reject is an execution that tests
 * nothing. fuzz_canonical maps any input that has the magic, the version and
 * a variant name onto a valid script, field by field, leaving valid fields
 * as they are:
 *   - the schedule is the bytes after its length field, whatever that says
 *     (at most SCRIPT_MAX_SCHED); a schedule entry's thread is taken modulo
 *     the thread count;
 *   - counts out of range are reduced (blocks 1-4, threads 1-4,
 *     instructions 0-32); an input that ends inside a thread's instructions
 *     ends there (that thread is the last, with the instructions read, and
 *     the schedule is empty);
 *   - granule, block shapes and flags, the expectation, the variant name's
 *     characters, and each instruction's opcode, block, entry, count and
 *     flags are brought into range (modulo, or masked to what the
 *     instruction accepts, for entries against the granule given).
 * A valid script reads unchanged; what it makes of anything always
 * decodes (fuzz/decoder_check.c asserts both). The harness and
 * fuzz/fuzztool (tools/triage, tools/minimize, tools/campaign status) read
 * crash files through it; fuzztool retarget writes the canonical script,
 * which the engine replays as is.
 */
#ifndef FUZZ_LENIENT_H
#define FUZZ_LENIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Read in as the harness does into out (room for SCRIPT_MAX_BYTES + 1).
 * cont: the entries per block instructions are fitted to (the target
 * granule's), or 0 for the script's own granule. Returns true with the
 * canonical script's length in *outlen (it decodes); false if the input
 * lacks the magic, version or a variant name: then out holds the input
 * unchanged (at most SCRIPT_MAX_BYTES + 1 bytes, so script_decode rejects
 * it as it would have). Idempotent. */
bool fuzz_canonical(const uint8_t *in, size_t len, uint8_t *out, size_t *outlen, unsigned cont);

#endif
