/* fuzz/repeat_cache.c - see fuzz/repeat_cache.h. */
#define _GNU_SOURCE
#include "fuzz/repeat_cache.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPEAT_CACHE_MAX_INPUT (64u << 10)   /* larger inputs are not kept */

unsigned long repeat_cache_hits, repeat_cache_calls;

static uint8_t **area;           /* &__afl_area_ptr */
static const uint32_t *final_loc; /* &__afl_final_loc: the highest slot in use */
static uint8_t *map, *input;      /* the last input's map, and its bytes */
static size_t map_len, input_len;
static bool on, valid;

bool repeat_cache_init(void)
{
	const char *env = getenv("FUZZ_REPEAT_CACHE");

	if (env && *env && strcmp(env, "0") && strcmp(env, "1")) {
		fprintf(stderr, "harness: FUZZ_REPEAT_CACHE='%s': 0 or 1\n", env);
		return false;
	}
	on = valid = false;
	if (env && !strcmp(env, "0"))
		return true;
	area = dlsym(RTLD_DEFAULT, "__afl_area_ptr");
	final_loc = dlsym(RTLD_DEFAULT, "__afl_final_loc");
	if (!area || !final_loc || !*final_loc)
		return true;                   /* not built by AFL++: stays off */
	map_len = (size_t)*final_loc + 1;
	free(map);
	map = malloc(map_len);
	if (!input)
		input = malloc(REPEAT_CACHE_MAX_INPUT);
	on = map && input;
	return true;
}

bool repeat_cache_hit(const uint8_t *data, size_t len)
{
	repeat_cache_calls++;
	return on && valid && len == input_len && !memcmp(data, input, len);
}

void repeat_cache_done(bool hit, const uint8_t *data, size_t len)
{
	if (!on)
		return;
	if (hit) {
		memcpy(*area, map, map_len);
		repeat_cache_hits++;
		return;
	}
	valid = len <= REPEAT_CACHE_MAX_INPUT;
	if (!valid)
		return;
	memcpy(map, *area, map_len);
	memcpy(input, data, len);
	input_len = len;
}
