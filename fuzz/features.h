/*
 * fuzz/features.h - the engine's interleaving features as fuzzer coverage,
 * for a fuzz target that includes it once (fuzz/harness.c, the first
 * subject's; stage2/fuzz/harness.c, the stage-2 subject's). It defines
 *
 *     static void feature(uint32_t f);     (where HAVE_FEATURES is 1)
 *     static void (*features_hook(void))(uint32_t);  feature, or NULL
 *     static void features_clear(void);    after each input's runs
 *
 * Every load the engine performs calls eng.feature (engine/sched.h; the
 * first subject's run_opts.feature) with a hash of (thread, instruction, word, the store it
 * read from): which reads-from pairs a schedule produced. Edge coverage
 * alone cannot tell two schedules apart that run the same code; these
 * features can, so AFL++ keeps schedules that make new reads-from pairs.
 *   - AFL++: the features get slots of their own in AFL's map. The harness
 *     declares FEATURE_SLOTS 32-bit guards in the __sancov_guards section,
 *     the section afl-clang-fast's pc-guard instrumentation collects its
 *     edge guards in. The linker merges them with the real guards, so
 *     afl-compiler-rt's __sanitizer_cov_trace_pc_guard_init numbers them
 *     like edges (the map grows by FEATURE_SLOTS, the forkserver reports
 *     the larger size to afl-fuzz) and a feature f is recorded by
 *     __sanitizer_cov_trace_pc_guard(&guard[f % FEATURE_SLOTS]): AFL's own
 *     hit counter for that slot. Measured to work with AFL++ 4.04c: the
 *     slots show up in afl-showmap, and a campaign with features on finds
 *     more paths than one with FUZZ_FEATURES=0 (docs/fuzzing.md). Writing
 *     into __afl_area_ptr[f % __afl_map_size] directly would share the
 *     slots with real edges (__afl_map_size is only the real size once
 *     the fork server has set it), and an extern __afl_area_ptr in a TU
 *     afl-clang-fast compiles does not even link (its pass renames it).
 *   - libFuzzer: a counter array in the __libfuzzer_extra_counters section,
 *     which libFuzzer reads as additional coverage.
 *   Both record presence, not counts: a slot is hit once per run however
 *   often the pair recurs (the first hit per run calls the guard; the
 *   slots touched are cleared after the run). With hit counts, AFL's
 *   count buckets made every slot up to 8 "new paths": on baseline 4K the
 *   queue grew by 5,900-6,900 entries in the first 30 s (1,000-1,300 with
 *   presence, 770-790 without features), afl-fuzz spent its time
 *   calibrating them, and planted mutants were found less often than with
 *   no features (docs/fuzzing.md has the figures). -DFEATURE_COUNTS
 *   restores counts.
 *   - standalone: no feedback (the callback is not installed).
 * Read shapes. Every judged read also calls it once with its read_shape
 * (core/oracle/oracle.h): how the writers and hardware changed the block
 * during the read and how the result relates to the target's values at
 * the window's ends. Reads-from pairs say which stores a schedule made
 * visible; a read shape says whether a read raced with a writer, and how:
 * the near misses of the properties, which AFL++ then keeps and mutates.
 */
#ifndef FUZZ_FEATURES_H
#define FUZZ_FEATURES_H

#include <stdint.h>

#ifndef FEATURE_SLOTS
#define FEATURE_SLOTS 4096
#endif

#if defined(FUZZ_LIBFUZZER)
__attribute__((section("__libfuzzer_extra_counters"), used))
static uint8_t feature_counters[FEATURE_SLOTS];

static void feature(uint32_t f)
{
	feature_counters[f % FEATURE_SLOTS] = 1;      /* presence, as below */
}
#define HAVE_FEATURES 1
#elif defined(__AFL_COMPILER) && defined(__AFL_FUZZ_TESTCASE_LEN)
__attribute__((section("__sancov_guards"), used, aligned(4)))
static uint32_t feature_guards[FEATURE_SLOTS];
void __sanitizer_cov_trace_pc_guard(uint32_t *guard);

#ifndef FEATURE_COUNTS
static uint8_t feature_seen[FEATURE_SLOTS];
static uint16_t feature_list[FEATURE_SLOTS];
static unsigned feature_n;
#endif

static void feature(uint32_t f)
{
#ifndef FEATURE_COUNTS
	unsigned i = f % FEATURE_SLOTS;

	if (feature_seen[i])
		return;
	feature_seen[i] = 1;
	feature_list[feature_n++] = (uint16_t)i;
#endif
	__sanitizer_cov_trace_pc_guard(&feature_guards[f % FEATURE_SLOTS]);
}
#define HAVE_FEATURES 1
#else
#define HAVE_FEATURES 0
#endif

/* The callback to install (eng.feature, run_opts.feature): NULL in a
 * build without feedback (standalone). */
static inline void (*features_hook(void))(uint32_t)
{
#if HAVE_FEATURES
	return feature;
#else
	return NULL;
#endif
}

/* After an input's runs: the presence set cleared for the next input. */
static inline void features_clear(void)
{
#if !defined(FEATURE_COUNTS) && HAVE_FEATURES && !defined(FUZZ_LIBFUZZER)
	while (feature_n)
		feature_seen[feature_list[--feature_n]] = 0;
#endif
}

#endif
