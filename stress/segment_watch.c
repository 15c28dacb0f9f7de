/*
 * stress/segment_watch.c - attach to a running hammer's shared segment from
 * another process and print its geometry and live counters
 * (docs/contract.md, "the shared segment").
 *
 *   segment_watch /proc/<pid>/fd/<fd> [--follow]
 *
 * Exit: 0 ok, 2 bad usage or not a harness segment.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include "core/mm.h"

static void print_counters(const struct seg_header *h)
{
	printf("reads %llu  retries %llu  writer_ops %llu  hw_ops %llu  retires %llu  tlb_flushes %llu  violations %llu\n",
	       (unsigned long long)atomic_load(&h->reads), (unsigned long long)atomic_load(&h->retries),
	       (unsigned long long)atomic_load(&h->writer_ops), (unsigned long long)atomic_load(&h->hw_ops),
	       (unsigned long long)atomic_load(&h->retires), (unsigned long long)atomic_load(&h->tlb_flushes),
	       (unsigned long long)atomic_load(&h->violations));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	int follow = 0, fd;
	struct stat st;
	const struct seg_header *h;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--follow"))
			follow = 1;
		else if (argv[i][0] == '-' || path) {
			fprintf(stderr, "usage: segment_watch /proc/<pid>/fd/<fd> [--follow]\n");
			return 2;
		} else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: segment_watch /proc/<pid>/fd/<fd> [--follow]\n");
		return 2;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "segment_watch: %s: %s\n", path, strerror(errno));
		return 2;
	}
	if ((size_t)st.st_size < sizeof(*h)) {
		fprintf(stderr, "segment_watch: %s is not a harness segment (too small)\n", path);
		return 2;
	}
	h = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		fprintf(stderr, "segment_watch: mmap %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (memcmp(h->magic, SEG_MAGIC, sizeof(SEG_MAGIC)) || h->version != SEG_VERSION) {
		fprintf(stderr, "segment_watch: %s is not a version-%d harness segment\n", path, SEG_VERSION);
		return 2;
	}
	printf("segment of pid %d: %llu bytes, granule page_shift %u, %u entries per block, "
	       "%u tables x %u blocks, %u table pages\n",
	       h->owner_pid, (unsigned long long)h->size, h->page_shift, h->cont_ptes,
	       h->ntables, h->blocks_per_table, h->nslots);
	print_counters(h);
	while (follow && kill(h->owner_pid, 0) == 0) {
		sleep(1);
		print_counters(h);
	}
	return 0;
}
