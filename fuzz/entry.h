/*
 * fuzz/entry.h - the one entry point every fuzz target of fuzz/ shares, so
 * the harness, the decoder target and the empty benchmark target run the
 * very same loop. A target defines
 *
 *     static void fuzz_init(void);                        // once, before fuzzing
 *     static void fuzz_one(const uint8_t *data, size_t len);
 *
 * and then includes this file, which supplies, depending on the build:
 *
 *   - libFuzzer (-DFUZZ_LIBFUZZER, --config=libfuzzer): LLVMFuzzerInitialize
 *     and LLVMFuzzerTestOneInput; libFuzzer brings main().
 *   - AFL++ (afl-clang-fast defines __AFL_FUZZ_TESTCASE_LEN, --config=afl):
 *     a persistent-mode main with shared-memory test cases. fuzz_init runs
 *     before the deferred fork server (__AFL_INIT), so whatever it sets up
 *     (variant lookup, segments, coroutine stacks) is inherited by every
 *     child instead of being rebuilt per child; then __AFL_LOOP(FUZZ_LOOP)
 *     calls fuzz_one on each test case (a deterministic target that
 *     defines FUZZ_REPEAT_CACHE gets a repeated input's map back without
 *     running it: fuzz/repeat_cache.h). Run with file arguments (and outside
 *     afl-fuzz) it behaves like the standalone driver below, so a crash file
 *     replays with the very binary that found it.
 *   - anything else (the default config): a standalone driver like AFL++'s
 *     libAFLDriver: each FILE argument is read and run once (no argument:
 *     stdin). It is what `bazel test //...` smoke-tests on the seeds.
 *     `--repeat=N FILE...` runs each N times and prints the mean time per
 *     call (profiling the target without a fuzzer).
 *
 * Common flag: `--check` runs fuzz_init only (a target's start-up
 * validation of its environment) and exits 0.
 */
#ifndef FUZZ_ENTRY_H
#define FUZZ_ENTRY_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef FUZZ_LOOP
#define FUZZ_LOOP 10000          /* test cases per persistent child */
#endif
#define FUZZ_MAX_INPUT (1 << 20)  /* larger than any script (SCRIPT_MAX_BYTES) */

static void fuzz_init(void);
static void fuzz_one(const uint8_t *data, size_t len);

#if defined(FUZZ_LIBFUZZER)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	fuzz_one(data, len);
	return 0;
}

#else

/* Read a whole file (or stdin for "-"); NULL with errno on failure. */
static uint8_t *fuzz_read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	uint8_t *buf;
	size_t n = 0;

	if (!f)
		return NULL;
	if (!(buf = malloc(FUZZ_MAX_INPUT + 1))) {
		if (f != stdin)
			fclose(f);
		return NULL;
	}
	n = fread(buf, 1, FUZZ_MAX_INPUT + 1, f);
	if (ferror(f) || n > FUZZ_MAX_INPUT) {
		int e = ferror(f) ? errno : EFBIG;

		free(buf);
		if (f != stdin)
			fclose(f);
		errno = e;
		return NULL;
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

/* Each file once (or --repeat=N times, printing the mean time of one
 * call: what the target costs without a fuzzer around it); 0, or 2 if one
 * cannot be read. */
static int fuzz_standalone(int argc, char **argv)
{
	int rc = 0;
	char *stdin_arg[] = { "-" };
	unsigned long repeat = 1, calls = 0;
	struct timespec t0, t1;

	if (argc > 0 && !strncmp(argv[0], "--repeat=", 9)) {
		char *end;

		repeat = strtoul(argv[0] + 9, &end, 10);
		if (*end || !repeat) {
			fprintf(stderr, "fuzz: --repeat=N, N a positive number\n");
			return 2;
		}
		argc--;
		argv++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);

	if (argc < 1) {
		argc = 1;
		argv = stdin_arg;
	}
	for (int i = 0; i < argc; i++) {
		size_t len;
		uint8_t *buf = fuzz_read_file(argv[i], &len);

		if (!buf) {
			fprintf(stderr, "fuzz: cannot read %s: %s\n", argv[i], strerror(errno));
			rc = 2;
			continue;
		}
		for (unsigned long k = 0; k < repeat; k++, calls++)
			fuzz_one(buf, len);
		free(buf);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (repeat > 1 && calls) {
		fprintf(stderr, "fuzz: %lu calls, %.2f us per call", calls,
			((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / calls);
#ifdef FUZZ_RUN_COUNTER
		/* a target that runs an input several times (fuzz/runs.h) */
		fprintf(stderr, ", %.2f runs per call", (double)FUZZ_RUN_COUNTER / calls);
#endif
		fputc('\n', stderr);
	}
	return rc;
}

#if defined(__AFL_FUZZ_TESTCASE_LEN)

#include <sys/prctl.h>

#ifdef FUZZ_REPEAT_CACHE
#include "fuzz/repeat_cache.h"
#endif

__AFL_FUZZ_INIT();

int main(int argc, char **argv)
{
#ifdef FUZZ_REPEAT_CACHE
	if (!repeat_cache_init())
		return 2;
#endif
	if (argc == 2 && !strcmp(argv[1], "--check")) {
		fuzz_init();
		return 0;
	}
	fuzz_init();
	/* Files given and no fuzzer around: replay them (repro with the
	 * instrumented binary itself). */
	if (argc > 1 && !getenv("__AFL_SHM_ID"))
		return fuzz_standalone(argc - 1, argv + 1);
	pid_t server = getpid();        /* the fork server is this process */
	bool armed = false;

	__AFL_INIT();
	unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;   /* after __AFL_INIT */
	while (__AFL_LOOP(FUZZ_LOOP)) {
		int len = __AFL_FUZZ_TESTCASE_LEN;
		size_t n = len > 0 ? (size_t)len : 0;

		/* In a persistent child: die with the fork server. Killed with
		 * SIGKILL, afl-fuzz cannot stop its child, the fork server exits
		 * on the closed pipe and the child, stopped between test cases
		 * (SIGSTOP), would stay stopped forever. */
		if (!armed && getpid() != server) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != server)
				_exit(0);
			armed = true;
		}
#ifdef FUZZ_REPEAT_CACHE
		/* a calibration run of a deterministic target: its last map */
		bool hit = repeat_cache_hit(buf, n);

		if (!hit)
			fuzz_one(buf, n);
		repeat_cache_done(hit, buf, n);     /* last, on both paths */
#else
		fuzz_one(buf, n);
#endif
	}
	return 0;
}

#else

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--check")) {
		fuzz_init();
		return 0;
	}
	fuzz_init();
	return fuzz_standalone(argc - 1, argv + 1);
}

#endif
#endif
#endif
