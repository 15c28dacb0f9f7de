/*
 * fuzz/repeat_cache.h - the coverage map of the last input, given back
 * when afl-fuzz runs the very same input again.
 *
 * afl-fuzz runs every new queue entry three more times to calibrate it
 * (AFL_FAST_CAL; eight without), looking for coverage that varies between
 * runs. The harness is deterministic (the engine's runs are a function of
 * the script: `fuzztool stable`), so those runs can only repeat the map
 * the first one made, and on this subject they were 25-40% of all
 * executions in a campaign's first seconds (nearly every fresh program
 * reaches a new reads-from pair and becomes an entry). With the cache a repeat costs the
 * fork server's round trip and a copy of the map instead of the input's
 * engine runs. FUZZ_REPEAT_CACHE=0 turns it off (to measure it, or to let
 * afl-fuzz's stability figure test the harness's determinism itself).
 *
 * Only the AFL++ persistent loop uses it (fuzz/entry.h, for a target that
 * defines FUZZ_REPEAT_CACHE before including it). It finds afl's map
 * through the dynamic symbols afl-clang-fast exports (__afl_area_ptr,
 * __afl_final_loc); without them (another fuzzer, a build without AFL++)
 * it stays off. Its source is in fuzz/afl_denylist.txt: uninstrumented,
 * so saving and restoring add no coverage of their own.
 */
#ifndef FUZZ_REPEAT_CACHE_H
#define FUZZ_REPEAT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Once, first thing in main (the map's size is known once the
 * instrumentation's constructors ran; the map itself is read on every
 * use); false (with a message on stderr) if FUZZ_REPEAT_CACHE is neither
 * 0 nor 1. */
bool repeat_cache_init(void);

/* True if this input is the one whose map was saved last: the caller
 * skips the input and calls repeat_cache_done(true, ...). */
bool repeat_cache_hit(const uint8_t *data, size_t len);

/* After the input (hit: instead of it): a hit writes the saved map into
 * afl's map, a miss saves the map the input made, with the input. Call it
 * last in the iteration, from code both paths share. */
void repeat_cache_done(bool hit, const uint8_t *data, size_t len);

/* Executions given back from the cache, and all executions seen. */
extern unsigned long repeat_cache_hits, repeat_cache_calls;

#endif
