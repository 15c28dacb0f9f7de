/* stress/hammer_main.c - the main job: `bazel run //stress:hammer -- ...`. */
#include <stdio.h>
#include <string.h>

#include "stress/driver.h"

int main(int argc, char **argv)
{
	struct stress_cfg cfg;
	char cmdline[4096];
	size_t off = 0;
	int rc = stress_parse_args(argc, argv, &cfg);

	if (rc == 3)
		return 0;
	if (rc)
		return rc;
	off += snprintf(cmdline, sizeof(cmdline), "hammer");
	for (int i = 1; i < argc && off < sizeof(cmdline) - 1; i++)
		if (strncmp(argv[i], "--seed", 6))
			off += snprintf(cmdline + off, sizeof(cmdline) - off, " %s", argv[i]);
	cfg.cmdline = cmdline;
	if (variant_describe(cfg.variant, "hammer"))
		return 2;
	fprintf(stderr, "hammer: variant %s, %s reader, granule %s, %u readers / %u writers / %u hw / %u faulting, %.1fs, seed %llu\n",
		cfg.variant->name, cfg.locked ? "locked" : "lockless", cfg.variant->granule->name,
		cfg.readers, cfg.writers, cfg.hw, cfg.faulters, cfg.seconds, (unsigned long long)cfg.seed);
	return stress_run(&cfg);
}
