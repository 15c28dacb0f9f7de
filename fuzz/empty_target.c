/*
 * fuzz/empty_target.c - the benchmark's reference: the same persistent
 * loop as the harness (fuzz/entry.h), with a test case that does nothing.
 * fuzz/bench/fuzz-bench measures the harness's execs/s against it.
 */
#include <stddef.h>
#include <stdint.h>

static volatile uint8_t sink;

static void fuzz_init(void)
{
}

static void fuzz_one(const uint8_t *data, size_t len)
{
	if (len)
		sink = data[0];     /* touch the test case, nothing more */
}

#include "fuzz/entry.h"
