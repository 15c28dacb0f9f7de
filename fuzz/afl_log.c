/*
 * fuzz/afl_log.c - afl-fuzz's output appended to a log file, without the
 * line it prints for every queue entry it picks.
 *
 *   afl-fuzz ... 2>&1 | afl_log FILE      (tools/lib/common.sh's afl_log)
 *
 * Without a terminal (AFL_NO_UI, output to a file) AFL++ 4.04c prints
 * "Fuzzing test case #N (...)" for each pick, and the custom mutator
 * makes a few mutants per pick: on baseline 4K 1,400 lines (180 KB) a
 * second, 650 MB an hour per campaign instance. Everything else (the
 * start, warnings, PROGRAM ABORT, the statistics at the end) is kept, in
 * order.
 *
 * It reads in batches: it sleeps BATCH_MS, then takes all the pipe holds
 * (the pipe enlarged to PIPE_BYTES). A reader blocked in read() is woken
 * by every line afl-fuzz writes, and on these VMs a wake-up of the other
 * CPU is dear: grep as the filter cost the harness under afl-fuzz about
 * 7% of its executions; this one measured no cost (docs/fuzzing.md,
 * "Campaign logs").
 *
 * It outlives the terminal (SIGHUP, SIGINT ignored), as afl-fuzz does
 * under setsid, and it reads to the end whatever happens to FILE: a
 * filter gone would fail or block afl-fuzz's writes. Exit 0; 1 if FILE
 * could not be written (said on stderr, once); 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH_MS 50
#define PIPE_BYTES (1 << 20)
#define LINE_MAX_BYTES (64 << 10)   /* a longer line is written as it comes */

static const char dropped[] = "Fuzzing test case #";

static int out = -1;
static bool failed;

static void put(const char *p, size_t n)
{
	while (n && !failed) {
		ssize_t w = write(out, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			fprintf(stderr, "afl_log: cannot write the log: %s (reading on)\n",
				w < 0 ? strerror(errno) : "no progress");
			failed = true;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* One whole line (with its newline, or the last one without). */
static void line(const char *p, size_t n)
{
	if (!memmem(p, n, dropped, sizeof(dropped) - 1))
		put(p, n);
}

/* What stdin holds now, read into p: the bytes read; 0 if nothing is
 * there (a read would wait); -1 at its end, or on an error (said).
 * stdin stays blocking (it is shared: afl_log's shell function drains it
 * with cat if this process ends early), so poll says when a read will
 * not wait. */
static ssize_t take_ready(char *p, size_t room)
{
	for (;;) {
		struct pollfd pf = { .fd = 0, .events = POLLIN };
		int k = poll(&pf, 1, 0);
		ssize_t r;

		if (k == 0)
			return 0;
		if (k > 0) {
			r = read(0, p, room);
			if (r > 0)
				return r;
			if (r == 0)
				return -1;
		}
		if (errno == EINTR)
			continue;
		fprintf(stderr, "afl_log: reading: %s\n", strerror(errno));
		return -1;
	}
}

/* The whole lines of buf[0, have) filtered out, the partial last one
 * moved to the front (or written, if overlong): what is left in buf. */
static size_t lines(char *buf, size_t have)
{
	size_t start = 0;
	char *nl;

	while ((nl = memchr(buf + start, '\n', have - start))) {
		line(buf + start, (size_t)(nl - buf) + 1 - start);
		start = (size_t)(nl - buf) + 1;
	}
	if (start == 0 && have >= LINE_MAX_BYTES) {
		line(buf, have);       /* an overlong line, as it is */
		start = have;
	}
	memmove(buf, buf + start, have - start);
	return have - start;
}

int main(int argc, char **argv)
{
	static char buf[PIPE_BYTES + LINE_MAX_BYTES];
	const struct timespec batch = { 0, BATCH_MS * 1000000L };
	size_t have = 0;
	ssize_t r;

	if (argc != 2 || !*argv[1]) {
		fprintf(stderr, "usage: afl-fuzz ... 2>&1 | afl_log FILE\n");
		return 2;
	}
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	out = open(argv[1], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (out < 0) {
		fprintf(stderr, "afl_log: %s: %s (reading on)\n", argv[1], strerror(errno));
		failed = true;
	}
	(void)fcntl(0, F_SETPIPE_SZ, PIPE_BYTES);      /* not a pipe, or no room: as it is */

	/* a batch: sleep (no write of afl-fuzz's wakes this process), then
	 * take all that is there; lines() always leaves less than the buffer
	 * (a line ends in it, or it is written whole), so a read has room */
	do {
		nanosleep(&batch, NULL);
		while ((r = take_ready(buf + have, sizeof(buf) - have)) > 0)
			have = lines(buf, have + (size_t)r);
	} while (r == 0);
	if (have)
		line(buf, have);
	return failed ? 1 : 0;
}
