/*
 * fuzz/repeat_cache_test.c - the repeated-input cache (fuzz/repeat_cache.h)
 * against a map of its own: this binary defines the two symbols AFL++'s
 * runtime exports (linked with --export-dynamic, so the cache's dlsym finds
 * them as it finds afl's), then plays afl-fuzz: clears the map before each
 * execution, as afl-fuzz does, and checks what the cache leaves in it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/repeat_cache.h"

#define SLOTS 300

uint8_t map_mem[SLOTS + 64];
uint8_t *__afl_area_ptr = map_mem;
uint32_t __afl_final_loc = SLOTS;

static int failures;

#define CHECK(c, ...) do { if (!(c)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); putchar('\n'); } } while (0)

/* One execution as the persistent loop runs it; `target` is what the
 * target would write into the map when it runs (NULL: a cache hit is
 * expected, the target must not run). Returns whether it was a hit. */
static int exec(const uint8_t *in, size_t len, const uint8_t *target)
{
	memset(map_mem, 0, sizeof(map_mem));         /* afl-fuzz, before each run */
	map_mem[0] = 1;                              /* the persistent loop */
	int hit = repeat_cache_hit(in, len);

	if (!hit && target)
		memcpy(map_mem, target, SLOTS + 1);
	repeat_cache_done(hit, in, len);
	return hit;
}

int main(void)
{
	static uint8_t a[SLOTS + 1], b[SLOTS + 1], big[(64 << 10) + 1];
	const uint8_t in1[] = "script one", in2[] = "script two", in1x[] = "script one!";

	for (int i = 0; i <= SLOTS; i++) {
		a[i] = (uint8_t)(i % 7 == 0);
		b[i] = (uint8_t)(i % 5 == 0);
	}
	a[SLOTS] = 3;                                /* the last slot in use is kept too */

	setenv("FUZZ_REPEAT_CACHE", "2", 1);
	CHECK(!repeat_cache_init(), "FUZZ_REPEAT_CACHE=2 accepted");
	setenv("FUZZ_REPEAT_CACHE", "1", 1);
	CHECK(repeat_cache_init(), "FUZZ_REPEAT_CACHE=1 refused");

	CHECK(!exec(in1, sizeof(in1), a), "a first input was a hit");
	CHECK(!memcmp(map_mem, a, SLOTS + 1), "the first run's map changed");
	for (int k = 0; k < 3; k++) {                /* calibration: three repeats */
		CHECK(exec(in1, sizeof(in1), NULL), "repeat %d was not a hit", k);
		CHECK(!memcmp(map_mem, a, SLOTS + 1), "repeat %d: not the first run's map", k);
		CHECK(map_mem[SLOTS + 1] == 0, "repeat %d wrote past the last slot", k);
	}
	CHECK(!exec(in1x, sizeof(in1x), b), "a longer input with the same start was a hit");
	CHECK(!exec(in1, sizeof(in1), a), "an input two back was a hit (only the last is kept)");
	CHECK(!exec(in2, sizeof(in2), b), "another input of the same length was a hit");
	CHECK(exec(in2, sizeof(in2), NULL) && !memcmp(map_mem, b, SLOTS + 1), "in2 repeated: not its map");
	CHECK(!exec(in1, 0, a) && exec(in1, 0, NULL), "an empty input is kept like any other");

	memset(big, 'x', sizeof(big));               /* too large to keep: always runs */
	CHECK(!exec(big, sizeof(big), a) && !exec(big, sizeof(big), a), "an input over 64 KiB was a hit");

	setenv("FUZZ_REPEAT_CACHE", "0", 1);           /* off: every execution runs */
	CHECK(repeat_cache_init(), "FUZZ_REPEAT_CACHE=0 refused");
	CHECK(!exec(in2, sizeof(in2), b) && !exec(in2, sizeof(in2), b), "a hit with FUZZ_REPEAT_CACHE=0");

	printf("repeat_cache: %lu hits of %lu executions\n", repeat_cache_hits, repeat_cache_calls);
	CHECK(repeat_cache_hits == 5 && repeat_cache_calls == 14, "hits %lu calls %lu, expected 5 of 14",
	      repeat_cache_hits, repeat_cache_calls);
	if (failures)
		return 1;
	puts("repeat_cache_test: ok");
	return 0;
}
