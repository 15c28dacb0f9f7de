/*
 * stage2/fuzz/codec.h - the byte form of a stage-2 program, what AFL++
 * mutates (stage2/fuzz/harness.c): every byte string decodes to a valid
 * program, and every program the text form can say (stage2/engine/prog.h)
 * encodes to bytes that decode to it exactly (the seeds). Missing bytes
 * read as zero; a field's byte is reduced into range by taking it modulo
 * the range, so a mutated byte always means some value of that field.
 *
 *   config   3 bytes   flags: bit 0 hw-af off, 1 fwb off, 2 tlb-range off,
 *                      3 tlb-hints off, 4-5 reuse (quarantine, immediate,
 *                      never; 3 reads as quarantine); then tlb entries
 *                      (mod 65); blocks (1 + mod 16)
 *   setup    1 byte    count (mod 17), then 4 bytes per op: op (mod 5),
 *                      unit (mod blocks), page (2 bytes, below; map-page only)
 *   threads  1 byte    count (1 + mod 4), then a byte per thread: its
 *                      instructions (mod 13); then 5 bytes per instruction,
 *                      thread by thread: op (low 4 bits, mod 14) and
 *                      write (bit 4); unit (mod blocks); page (2 bytes);
 *                      size (0 block, 255 all, else that many pages).
 *                      Fields an op does not take decode as zero; trailing
 *                      threads without instructions are dropped (none at
 *                      all: thread 0 gets one, from zero bytes).
 *   schedule 2 bytes   length, little-endian (mod 8193, at most what
 *                      follows), then that many run bytes: thread (bits
 *                      0-1) and length (bits 2-7, v): v + 1 steps for v <
 *                      32, else (v - 31) * 64 steps (64 to 2048), written
 *                      as the engine's run-length bytes (thread | (run -
 *                      1) << 3, 32 steps at most each; at most 8192 of
 *                      them in all). One byte can so say "this thread
 *                      alone for a whole op", the shape of the races a
 *                      thread stopped mid-walk loses (the engine's burst
 *                      schedules); a thread that cannot step is skipped.
 *   choices  the rest  the memory model's choices (at most 8192)
 *
 * A page is 15 bits and a side: bit 15 clear, that page from the unit's
 * start; set, from its end (the unit's last pages: ranges from there run
 * into the next unit's table), both modulo the unit's pages. The memory
 * model, age-lock and age-rcu are not in the bytes: they are the run's
 * mode (the harness's S2_FUZZ_FLAGS; default sc, write, on), as is any
 * configuration field given there. (The memory model is not fuzzed: under
 * arm the stage-2 engine reports a lost_update on the newest tree in its
 * first run, a model problem to settle before AFL++ searches it.)
 */
#ifndef STAGE2_FUZZ_CODEC_H
#define STAGE2_FUZZ_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "stage2/engine/prog.h"

/* The longest encoding: config, setup, threads, schedule and choices (a
 * run byte is never longer than the engine's bytes it stands for). */
#define S2F_MAX_BYTES (3 + 1 + 4 * S2P_SETUP + 1 + S2P_THREADS + 5 * S2P_THREADS * S2P_INSTRS + 2 + S2P_SCHED + S2P_CHOICES)

/* data into p for a binary of granule_kb (pages per unit follow from it);
 * memory sc, age-lock write, age-rcu on, no expectation, no tree. Never
 * fails. */
void s2f_decode(const uint8_t *data, size_t len, unsigned granule_kb, struct s2_prog *p);

/* p into out (size at least S2F_MAX_BYTES): the length, or 0 with a reason
 * in err if p says something the bytes cannot (a page past the unit, a
 * size over 254 pages, a unit past the window, a tlb over 64, a schedule
 * byte of a thread past the fourth). */
size_t s2f_encode(const struct s2_prog *p, uint8_t *out, char *err, size_t errlen);

#endif
