/*
 * core/test_check.h - the core tests' check: a failed condition is printed
 * with its line and counted in fails (the test returns fails != 0).
 */
#ifndef CORE_TEST_CHECK_H
#define CORE_TEST_CHECK_H

#include <stdio.h>

static int fails;
#define CHECK(c)                                                                      \
	do {                                                                          \
		if (!(c)) {                                                           \
			printf("FAIL line %d: %s\n", __LINE__, #c);                   \
			fails++;                                                      \
		}                                                                     \
	} while (0)

#endif
