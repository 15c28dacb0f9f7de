/*
 * engine/determinism_test.c HASHES SCRIPT...: same script, same trace, bit
 * for bit. Every script runs three times in this process (the engine's
 * segment, stacks and history are reused, so leftovers of one run would
 * show in the next) and its trace hash (over every access: thread, kind,
 * location, values before and after) and step count must equal the ones
 * recorded in HASHES, which were produced on another machine. The AArch64
 * builds run this same test under qemu against the same file. The
 * engine's caches are checked against a fresh computation at every use
 * (eng.check_caches).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/run.h"
#include "engine/sched.h"
#include "engine/script.h"

int main(int argc, char **argv)
{
	static uint8_t buf[SCRIPT_TEXT_MAX];
	static struct script s;
	int fail = 0, n = 0;
	FILE *hf;
	char line[512];

	if (argc < 3) {
		fprintf(stderr, "usage: determinism_test HASHES SCRIPT...\n");
		return 2;
	}
	eng.check_caches = true;        /* and every cache as computed afresh */
	for (int i = 2; i < argc; i++) {
		const char *path = argv[i], *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		unsigned long long want_hash = 0, want_steps = 0;
		bool have = false;
		struct script_error err;
		FILE *f = fopen(path, "rb");
		size_t len;

		if (!f || (len = fread(buf, 1, sizeof(buf), f), fclose(f), 0) ||
		    script_load(buf, len, &s, &err)) {
			printf("FAIL %s: unreadable\n", path);
			fail = 1;
			continue;
		}
		if (!(hf = fopen(argv[1], "r"))) {
			printf("FAIL: cannot open %s\n", argv[1]);
			return 1;
		}
		while (fgets(line, sizeof(line), hf)) {
			char name[256];
			unsigned long long h, st;

			if (sscanf(line, "%255s %llx %llu", name, &h, &st) == 3 && !strcmp(name, base)) {
				want_hash = h;
				want_steps = st;
				have = true;
			}
		}
		fclose(hf);
		if (!have) {
			printf("FAIL %s: no recorded hash\n", base);
			fail = 1;
			continue;
		}
		for (int k = 0; k < 3; k++) {
			struct run_opts o = { .policy = { .kind = ES_SCRIPT } };
			struct run_result r;

			run_script(&s, &o, &r);
			if (r.hash != want_hash || r.steps != want_steps) {
				printf("FAIL %s (run %d): trace %016llx, %llu steps; recorded %016llx, %llu steps\n",
				       base, k + 1, (unsigned long long)r.hash, (unsigned long long)r.steps,
				       want_hash, want_steps);
				fail = 1;
				break;
			}
		}
		n++;
	}
	printf("determinism: %d scripts x 3 runs, %s\n", n, fail ? "MISMATCHES" : "every trace as recorded");
	return fail;
}
